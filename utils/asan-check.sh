#!/usr/bin/env bash
# Builds asmevo-opt, asmevo-link and asmevo-verify with AddressSanitizer into its own build directory and
# runs the bad-input tests (test/BadInput) against it: each test's lit
# configuration comes from that build, so `asmevo-opt` on the tests' PATH is
# the sanitized binary. Prints how long the build and the tests took.
#
#   utils/asan-check.sh [BUILD_DIR [LIT_FILTER]]
#
# BUILD_DIR defaults to build-asan next to the sources; LIT_FILTER (a lit
# --filter regex) defaults to "BadInput/" ("." runs every lit test).
# ASMEVO_CMAKE_ARGS adds configure options (e.g. -DASMEVO_CORPUS_DIR=...);
# ASAN_OPTIONS may be set by the caller. By default leaks are not reported:
# binary inputs leak nothing, but a .mir that the MachineVerifier rejects
# leaves the MIR parser's state behind when the crash-recovery context
# abandons it (~29 KB, by design). A report makes the process exit with 99,
# which the tests count as a failure.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build-asan}"
filter="${2:-BadInput/}"
jobs="${ASMEVO_JOBS:-2}"

"$here/utils/install-deps.sh"
t0=$(date +%s)
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DASMEVO_ENABLE_ASAN=ON ${ASMEVO_CMAKE_ARGS:-} >/dev/null
fi
ninja -C "$build" -j"$jobs" asmevo-opt asmevo-link asmevo-verify asmevo-test-kernels
t1=$(date +%s)

# The binary must really be instrumented, or this check proves nothing.
# (grep reads all of nm's output: with -q it would exit early and the
# SIGPIPE would fail the pipeline under pipefail.)
tool() { /usr/bin/python3 "$here/utils/asmevo_tools.py" "$build" "$1"; }
if ! "$(tool llvm-nm)" "$build/bin/asmevo-opt" 2>/dev/null | grep __asan_init >/dev/null; then
  echo "asan-check: $build/bin/asmevo-opt is not built with ASan" \
       "(configure with -DASMEVO_ENABLE_ASAN=ON)" >&2
  exit 1
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:exitcode=99:abort_on_error=0}"
lit="$(tool lit)"
status=0
"$lit" -sv --filter "$filter" "$build/test" || status=$?
t2=$(date +%s)
echo "asan-check: build $((t1 - t0)) s, tests $((t2 - t1)) s," \
     "ASAN_OPTIONS=$ASAN_OPTIONS, exit $status"
exit $status
