#!/usr/bin/env bash
# Every test: GoogleTest unit tests and the lit suite. Tests that need the
# third-party corpus (../shared/corpus) are reported unsupported without it.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/utils/build.sh"
build="${ASMEVO_BUILD_DIR:-$here/build}"
ninja -C "$build" check-asmevo
