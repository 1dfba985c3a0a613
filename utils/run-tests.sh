#!/usr/bin/env bash
# Every test: GoogleTest unit tests and the lit suite. Tests that need the
# third-party corpus (../shared/corpus) are reported unsupported without it.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/utils/build.sh"
build="${ASMEVO_BUILD_DIR:-$here/build}"
# Every program the suite runs must come from a package install-deps.sh
# installs; a hand-installed one makes tests pass here and fail elsewhere.
/usr/bin/python3 "$here/utils/check-test-programs.py" --build "$build"
ninja -C "$build" check-asmevo
