#!/usr/bin/env bash
# Installs the Debian 12 packages AsmEvo needs, when they are missing.
# Debian 12 carries LLVM 22 from bookworm-backports/apt.llvm.org-compatible
# packages named llvm-22-dev, lld-22, liblld-22-dev, clang-22, llvm-22-tools.
set -euo pipefail
pkgs=(cmake ninja-build g++ python3 llvm-22 llvm-22-dev lld-22 liblld-22-dev clang-22
      llvm-22-tools clang-tools-22 libclang-rt-22-dev libgtest-dev libgmock-dev zlib1g-dev libzstd-dev
      libhsa-runtime-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || true
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
