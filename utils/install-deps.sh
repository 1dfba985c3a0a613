#!/usr/bin/env bash
# Installs the Debian 12 packages AsmEvo needs, when they are missing.
# Debian 12 carries LLVM 22 from bookworm-backports/apt.llvm.org-compatible
# packages named llvm-22-dev, lld-22, liblld-22-dev, clang-22, llvm-22-tools.
set -euo pipefail
pkgs=(cmake ninja-build g++ python3 llvm-22 llvm-22-dev lld-22 liblld-22-dev clang-22
      llvm-22-tools clang-tools-22 libclang-rt-22-dev libgtest-dev libgmock-dev zlib1g-dev libzstd-dev libsqlite3-dev
      libhsa-runtime-dev nodejs
      hipcc libamdhip64-dev rocm-device-libs clang-tools-15)
# hipcc (Debian's HIP 5.2) builds the HIP executables and shared libraries
# test/PostLink rewrites; clang-tools-15's clang-offload-bundler reads their
# old bundle ids, which clang-offload-bundler-22 refuses.
# The MCP tests drive `asmevo-opt mcp` with the official TypeScript clients,
# run by the machine's Node.js (nodejs: Debian's, or NodeSource's of the same
# name, which carries npm); Debian's npm where there is none.
command -v npm >/dev/null 2>&1 || pkgs+=(npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq || true
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages the tests use, at pinned versions, outside the source tree
# (test/CMakeLists.txt: ASMEVO_NPM_DIR has the same default).
npm_dir="${ASMEVO_NPM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/asmevo/npm}"
npm_pkgs=(@modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/client@2.4.0)
npm_have=1
for p in "${npm_pkgs[@]}"; do
  name="${p%@*}"; version="${p##*@}"
  f="$npm_dir/node_modules/$name/package.json"
  grep -q "\"version\": \"$version\"" "$f" 2>/dev/null || npm_have=0
done
if [ "$npm_have" -eq 0 ]; then
  echo "install-deps: installing ${npm_pkgs[*]} into $npm_dir (npm)" >&2
  mkdir -p "$npm_dir"
  [ -f "$npm_dir/package.json" ] || echo '{"private": true}' >"$npm_dir/package.json"
  npm install --prefix "$npm_dir" --no-audit --no-fund --silent "${npm_pkgs[@]}"
fi

# Debian's librocrand.so.1 (package librocrand1 5.3.3-4: bundles for gfx803,
# gfx90a, gfx1030 and more) is a real shared library the post-link tests
# rewrite. It is fetched once with `apt-get download` (not installed: it
# would pull in the HIP runtime), checked against its sha256 and unpacked
# into the cache; tests never download it.
rocrand_dir="${XDG_CACHE_HOME:-$HOME/.cache}/asmevo/librocrand1"
rocrand_deb=librocrand1_5.3.3-4_amd64.deb
rocrand_sha256=b145d4e47a26ce14da5f8550a092db8d3c7e2d84174c68885336de40f51b7b81
if [ ! -f "$rocrand_dir/ok" ]; then
  mkdir -p "$rocrand_dir"
  (cd "$rocrand_dir" && apt-get download -qq librocrand1=5.3.3-4 >/dev/null)
  echo "$rocrand_sha256  $rocrand_dir/$rocrand_deb" | sha256sum -c --quiet -
  dpkg-deb -x "$rocrand_dir/$rocrand_deb" "$rocrand_dir/root"
  touch "$rocrand_dir/ok"
fi
