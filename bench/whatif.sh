#!/bin/sh
# What-if on the 5488-CA fat tree (gen mport-ntree m=28 n=3: 5488 CAs, 980
# switches of 28 ports): what removing spine-000 would do.
#
#   bench/whatif.sh [BUILD_DIR] [RUNS]     (default 5 runs; needs curl and jq)
#
#  1. offline: `fabroute whatif --topology FILE --switch spine-000 --json`,
#     the wall time of the whole command (reading the file, routing it as
#     the base, the what-if) and the what-if's own time (time_ms);
#  2. fabrouted on the same file: POST /api/whatif {"switches":
#     ["spine-000"]} one after the other, the round trip (curl's
#     time_total) and the answer's time_ms;
#  3. a reroute while a what-if runs: a link goes down 100 ms after a
#     what-if was posted, and the reroute's latency (details.latency_ms of
#     its reroute event: from the fault to the publication) beside the same
#     fault on an idle daemon. The link comes back up before the next run.
#
# Prints medians (min-max) over RUNS, what the answer says, and the load
# average when the benchmark starts and ends.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
runs=${2:-5}

die() { echo "whatif.sh: $*" >&2; exit 1; }
for t in curl jq; do command -v $t > /dev/null || die "$t not found"; done
case $runs in '' | *[!0-9]*) die "RUNS must be a whole number, found '$runs'" ;; esac
[ "$runs" -ge 1 ] && [ "$runs" -le 100 ] || die "RUNS must be 1 to 100"
[ -x "$build/fabroute" ] && [ -x "$build/fabrouted" ] || die "no fabroute and fabrouted in $build; build first"
build=$(cd "$build" && pwd)
F=$build/fabroute
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabroute-whatif.XXXXXX")
. "$top/bench/daemon.sh"

ms_now() { echo $(($(date +%s%N) / 1000000)); }
# median and range of the numbers in file $1: "MEDIAN (MIN-MAX)"
stats() {
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.0f (%.0f-%.0f)", m, v[1], v[NR] }'
}
post() { # PATH BODY: the answer in $tmp/ans, prints "CODE SECONDS"
	curl -s -m 120 -o "$tmp/ans" -w '%{http_code} %{time_total}' -X POST \
		-H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
		-d "$2" "$url$1"
}
seq_now() { curl -s -m 10 "$url/api/fabric" | jq .epoch.seq; }
wait_seq() { # SEQ: until the epoch in force is past SEQ (at most 60 s)
	i=0
	while [ "$(seq_now)" -le "$1" ]; do
		[ $i -lt 6000 ] || die "no epoch after $1 within 60 s"
		sleep 0.01
		i=$((i + 1))
	done
}
latency() { # the latency_ms of the reroute event of the epoch in force (stored after it)
	n=$(seq_now)
	i=0
	until v=$(curl -s -m 10 -H "Authorization: Bearer $token" \
		"$url/api/events?type=reroute&limit=10" | jq -e --arg p "epoch $n:" \
		'[.events[] | select(.message | startswith($p)) | .details.latency_ms][0] // empty'); do
		[ $i -lt 500 ] || die "no reroute event for epoch $n"
		sleep 0.01
		i=$((i + 1))
	done
	echo "$v"
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
"$F" gen mport-ntree m=28 n=3 -o "$tmp/t.ibnd"
echo "fabric: 5488 CAs, 980 switches (mport-ntree m=28 n=3); removed: spine-000; $runs runs"

: > "$tmp/off.wall"
: > "$tmp/off.own"
for _ in $(seq "$runs"); do
	t0=$(ms_now)
	rc=0
	fg "$F" whatif --topology "$tmp/t.ibnd" --switch spine-000 --json > "$tmp/off.json" || rc=$?
	[ $rc -eq 0 ] || die "fabroute whatif: exit $rc"
	echo $(($(ms_now) - t0)) >> "$tmp/off.wall"
	jq .time_ms.total "$tmp/off.json" >> "$tmp/off.own"
done
jq -r '"answer: routed by " + .routed_by + " (" + .engine + "); connected " + (.connected | tostring) +
	", deadlock-free " + (.deadlock_free | tostring) + "; max link load " +
	(.max_link_load.before | tostring) + " -> " + (.max_link_load.after | tostring) +
	"; LFT changes: " + (.lft_changes.entries | tostring) + " entries, " +
	(.lft_changes.blocks | tostring) + " blocks, " + (.lft_changes.switches | tostring) + " switches"' \
	"$tmp/off.json"
echo "offline (fabroute whatif --topology): whole command $(stats "$tmp/off.wall") ms, what-if $(stats "$tmp/off.own") ms"

start_daemon d --topology "$tmp/t.ibnd"
: > "$tmp/api.wall"
: > "$tmp/api.own"
for _ in $(seq "$runs"); do
	set -- $(post /api/whatif '{"switches": ["spine-000"]}')
	[ "$1" = 200 ] || die "POST /api/whatif: $1 $(cat "$tmp/ans")"
	awk -v s="$2" 'BEGIN { printf "%.0f\n", s * 1000 }' >> "$tmp/api.wall"
	jq .time_ms.total "$tmp/ans" >> "$tmp/api.own"
done
echo "fabrouted (POST /api/whatif): round trip $(stats "$tmp/api.wall") ms, what-if $(stats "$tmp/api.own") ms"

# 3. the same link fault, on an idle daemon and while a what-if runs
: > "$tmp/idle"
: > "$tmp/busy"
for k in $(seq "$runs"); do
	for mode in idle busy; do
		link=spine-000:$k
		wpid=
		if [ $mode = busy ]; then
			post /api/whatif '{"switches": ["spine-001"]}' > "$tmp/w.code" &
			wpid=$!
			sleep 0.1
		fi
		s=$(seq_now)
		set -- $(post /api/faults "{\"action\": \"down\", \"link\": \"$link\"}")
		[ "$1" = 202 ] || die "POST /api/faults: $1 $(cat "$tmp/ans")"
		wait_seq "$s"
		latency >> "$tmp/$mode"
		if [ -n "$wpid" ]; then
			wait "$wpid"
			[ "$(cut -d' ' -f1 "$tmp/w.code")" = 200 ] || die "the what-if meanwhile: $(cat "$tmp/w.code")"
		fi
		s=$(seq_now)
		set -- $(post /api/faults "{\"action\": \"up\", \"link\": \"$link\"}")
		[ "$1" = 202 ] || die "POST /api/faults: $1 $(cat "$tmp/ans")"
		wait_seq "$s"
	done
done
echo "reroute of a link fault (latency_ms): idle $(stats "$tmp/idle") ms, while a what-if runs $(stats "$tmp/busy") ms"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
