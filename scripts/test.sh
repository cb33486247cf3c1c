#!/bin/sh
# Set up, build, and run every test (unit, CLI, and the ibsim/OpenSM end-to-end
# tests). Prints "N passed, N failed" at the end; exits non-zero on a failure.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
"$top/scripts/setup.sh"
"$top/scripts/build.sh"
status=0
make -C "$build" -s -j"$(nproc)" check || status=$?
"$top/scripts/count-results.sh" "$build" || status=1
exit $status
