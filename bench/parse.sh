#!/bin/sh
# Parse benchmark: ibnetdiscover output of a 5184-CA / 864-switch 3-level fat
# tree (XGFT(3; 18,18,16; 1,18,16)), parsed and indexed repeatedly.
# Usage: bench/parse.sh [BUILD_DIR]   (default: build)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -C "$build" -s bench/bench_parse fabroute
"$build/fabroute" gen xgft h=3 m=18,18,16 w=1,18,16 -o "$tmp/xgft5184.ibnd"
echo "peak RSS of the whole bench_parse process (GNU time):"
/usr/bin/time -f "  %M KiB max resident, %e s elapsed" \
	"$build/bench/bench_parse" "$tmp/xgft5184.ibnd" 20
