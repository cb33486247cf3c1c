#!/bin/sh
# First render of the dashboard in headless Chromium, at scale.
#
#   bench/web.sh [BUILD_DIR] [RUNS]      (RUNS per fabric, default 5; needs chromium, python3, jq)
#   SIZES="648 5488 16000" bench/web.sh  (the fabrics, by CAs; default 648 5488)
#
# Fabrics: 648 CAs (gen:ft648, 54 switches, drawn switch by switch), 5488
# CAs (mport-ntree m=28 n=3, 980 switches, 10,976 switch-to-switch links)
# and 16000 CAs (mport-ntree m=40 n=3, 2000 switches, 32,000 links), both
# drawn by pod and spine group. For each run a fresh fabrouted (routing and
# evaluation done, GET /api/ready = 200), then the page loaded twice in a
# fresh Chromium profile each (cold browser cache) by
# tests/integration/web_check.py:
#   cold   the first load after the epoch's publication: the daemon builds
#          the /api/topology answer then;
#   warm   the second load: the daemon answers from the epoch's copy.
# "first render" is the page's performance mark fabroute:topology (time from
# navigation to the frame after the topology picture was drawn), "every
# panel" the mark fabroute:ready. Also: GET /api/topology's size and time
# (curl, warm, median of 5). Medians, min and max over RUNS; the load
# average before and after is printed, since these are wall-clock times on
# a machine that may be shared.
#
# Target: first render <= 1 s at 5488 CAs.
set -eu
build=${1:-build}
runs=${2:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
chromium=${CHROMIUM:-chromium}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabroute-web.XXXXXX")
die() { echo "web.sh: $*" >&2; exit 1; }
for c in "$chromium" python3 jq curl; do
	command -v "$c" > /dev/null 2>&1 || die "$c is needed (scripts/setup.sh installs it)"
done
[ -x "$build/fabrouted" ] || die "$build/fabrouted: not built (scripts/build.sh)"
. "$top/bench/daemon.sh"

# stats: "median min max" of the numbers on stdin
stats() { sort -n | awk '{ v[NR] = $1 } END { printf "%d %d %d", v[int((NR + 1) / 2)], v[1], v[NR] }'; }

# load URL: one page load; prints "topology ready" (ms)
load() {
	python3 "$top/tests/integration/web_check.py" --chromium "$chromium" "$1/" "$tmp/out.json" \
		2>> "$tmp/chromium.log" || die "web_check.py failed (see $tmp/chromium.log)"
	jq -r '.[0].marks | "\(.topology) \(.ready)"' "$tmp/out.json"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
printf '%-7s %-9s %-6s %-22s %-22s %s\n' CAs switches runs "first render ms" "every panel ms" \
	"(median min max)"
for size in ${SIZES:-648 5488}; do
	case $size in
	648) topo=gen:ft648 ;;
	5488) topo=gen:mport-ntree:m=28,n=3 ;;
	16000) topo=gen:mport-ntree:m=40,n=3 ;;
	*) die "SIZES: $size is not 648, 5488 or 16000" ;;
	esac
	: > "$tmp/cold"
	: > "$tmp/warm"
	for r in $(seq "$runs"); do
		start_daemon "$size-$r" --topology "$topo"
		load "$url" >> "$tmp/cold"
		load "$url" >> "$tmp/warm"
		if [ "$r" = 1 ]; then
			sw=$(curl -s "$url/api/fabric" | jq .switches)
			bytes=$(curl -s -o /dev/null -w '%{size_download}' "$url/api/topology")
			t=$(for i in 1 2 3 4 5; do
				curl -s -o /dev/null -w '%{time_total}\n' "$url/api/topology"
			done | awk '{ printf "%d\n", $1 * 1000 }' | stats)
		fi
		stop_daemon
	done
	for kind in cold warm; do
		printf '%-7s %-9s %-6s %-22s %-22s %s\n' "$size" "$sw" "$runs" \
			"$(cut -d' ' -f1 "$tmp/$kind" | stats)" "$(cut -d' ' -f2 "$tmp/$kind" | stats)" "$kind"
	done
	echo "        GET /api/topology: $bytes bytes, ${t%% *} ms (median of 5, warm; min max ${t#* })"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
