#!/usr/bin/env bash
# Configures and builds AsmEvo into ${ASMEVO_BUILD_DIR:-build} with Ninja.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/utils/install-deps.sh"
build="${ASMEVO_BUILD_DIR:-$here/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 "$@" >/dev/null
fi
ninja -C "$build" ${ASMEVO_NINJA_FLAGS:-}
