#!/bin/sh
# REST API throughput and latency of fabrouted on the built-in 648-port fat
# tree (gen:ft648: 36 leaves, 18 spines, 648 CAs, LIDs 1..702).
#
#   bench/api.sh [BUILD_DIR] [DURATION_S]     (default 10 s a run; needs wrk, python3)
#
# Starts its own daemon (temporary directory, port 0, default settings:
# api_threads 2, no rate limit), waits for GET /api/ready = 200, then:
#
#  - GET /api/route with bench/route.lua: 8192 different src/dst pairs (LIDs
#    in decimal and hex, node descriptions), 2 wrk threads, 32 then 64
#    connections, DURATION_S each. Every pair is first checked once (200).
#  - GET /api/fabric and GET /metrics for reference (32 connections, a
#    third of DURATION_S, at least 3 s).
#
# Per run: requests/s, latency p50/p90/p99, non-2xx answers, socket errors,
# the daemon's CPU time per request and the CPU share of the daemon, of wrk
# and of other processes. The daemon and wrk share the machine's cores, so
# the figures are those of a client and a server on the same 2 cores.
# Targets for /api/route: >= 20000 requests/s, p99 <= 5 ms, no errors.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
dur=${2:-10}
lua=$top/bench/route.lua

die() { echo "api.sh: $*" >&2; exit 1; }
command -v wrk > /dev/null || die "wrk not found (apt-get install wrk)"
command -v python3 > /dev/null || die "python3 not found (it checks the request pairs)"
command -v curl > /dev/null || die "curl not found"
[ -r "$lua" ] || die "$lua not found"
case $dur in '' | *[!0-9]*) die "DURATION_S must be a whole number of seconds, found '$dur'" ;; esac
[ "$dur" -ge 1 ] || die "DURATION_S must be at least 1"
[ -x "$build/fabrouted" ] || make -C "$build" -s fabrouted || die "no fabrouted in $build; build it first"
build=$(cd "$build" && pwd)
ref=$((dur / 3))
[ "$ref" -ge 3 ] || ref=3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabroute-api.XXXXXX")
. "$top/bench/daemon.sh"
start_daemon api
threads=$(curl -s -m 5 "$url/api/config" | python3 -c 'import json, sys; print(json.load(sys.stdin)["config"]["api_threads"])' 2> /dev/null || echo "?")

echo "fabrouted REST API: gen:ft648 (648 CAs, 54 switches, 702 LIDs), api_threads $threads;" \
	"wrk -t2 --latency on the same machine"
echo "$(nproc) cores shared by the daemon and wrk (and anything else running); load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"

# Every pair route.lua sends must answer 200: have it write its list (a
# one-second, one-connection run that also warms the daemon up), then ask
# for each path once on a keep-alive connection.
export ROUTE_DUMP="$tmp/paths"
fg wrk -t1 -c1 -d1s -s "$lua" "$url" > /dev/null 2>&1 || die "wrk failed with $lua"
unset ROUTE_DUMP
[ -s "$tmp/paths" ] || die "route.lua wrote no request list"
python3 - "$port" "$tmp/paths" << 'EOF' || die "checking the /api/route requests of route.lua failed"
import http.client, re, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
paths = [p.strip() for p in open(sys.argv[2]) if p.strip()]
kinds, bad = {}, []
for p in paths:
    c.request("GET", p)
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        bad.append("%s: %d %s" % (p, r.status, body[:120]))
    for v in re.findall(r"(?:src|dst)=([^&]+)", p):
        k = "decimal LID" if v.isdigit() else "hex LID" if v[:2] in ("0x", "0X") else "description"
        kinds[k] = kinds.get(k, 0) + 1
print("%d route requests checked, %d distinct; endpoints named by %s" % (len(paths), len(set(paths)),
      ", ".join("%s %d" % (k, kinds[k]) for k in sorted(kinds))))
for b in bad[:10]:
    print("  " + b)
sys.exit(1 if bad else 0)
EOF

# busy ticks of the machine, the daemon's ticks
ticks() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat"
}

# CPU seconds of the children waited for, from the output of `times`
children_cpu() {
	awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1"
}

# ms from wrk's "1.23ms", "456.00us", "1.20s", "2.00m"
to_ms() {
	awk -v v="$1" 'BEGIN { n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
		printf "%.2f", n }'
}

summary=

# run NAME CONNS SECONDS URL [SCRIPT]
run() {
	name=$1 conns=$2 secs=$3 target=$4
	shift 4
	set -- ${1:+-s "$1"}
	kill -0 "$pid" 2> /dev/null || die "fabrouted is not running any more"
	# shellcheck disable=SC2046
	set -- $(ticks) "$@"
	b0=$1 d0=$2
	shift 2
	times > "$tmp/times0"
	fg wrk -t2 -c"$conns" -d"${secs}s" --timeout 5s --latency "$@" "$target" > "$tmp/wrk.out" 2>&1 ||
		{ cat "$tmp/wrk.out" >&2; die "wrk failed"; }
	times > "$tmp/times1"
	# shellcheck disable=SC2046
	set -- $(ticks)
	b1=$1 d1=$2
	kill -0 "$pid" 2> /dev/null || die "fabrouted died during the $name run"
	rps=$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$tmp/wrk.out")
	nreq=$(awk '/requests in/ { print $1 }' "$tmp/wrk.out")
	p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' "$tmp/wrk.out")")
	p90=$(to_ms "$(awk '$1 == "90%" { print $2 }' "$tmp/wrk.out")")
	p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$tmp/wrk.out")")
	non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$tmp/wrk.out")
	non2xx=${non2xx:-0}
	sockerr=$(awk '/Socket errors:/ { gsub(/,/, ""); print $4 + $6 + $8 + $10 }' "$tmp/wrk.out")
	sockerr=${sockerr:-0}
	sockdet=$(sed -n 's/.*Socket errors: //p' "$tmp/wrk.out")
	hz=$(getconf CLK_TCK)
	w="$(children_cpu "$tmp/times1") $(children_cpu "$tmp/times0")"
	cpu=$(awk -v b="$((b1 - b0))" -v d="$((d1 - d0))" -v w="$w" -v s="$secs" -v n="$(nproc)" \
		-v hz="$hz" -v r="${nreq:-1}" 'BEGIN { split(w, t, " ")
		wt = (t[1] - t[2]) * hz; o = b - d - wt; if (o < 0) o = 0; tot = s * hz * n
		printf "%10.1f  %3.0f%% / %3.0f%% / %3.0f%%", d / hz * 1e6 / r, 100 * d / tot, 100 * wt / tot, 100 * o / tot }')
	others=$(printf '%s\n' "$cpu" | awk '{ print $NF }')
	printf '%-14s %5s %10s %8s %8s %8s %8s %8s %s\n' "$name" "$conns" "$rps" "$p50" "$p90" "$p99" \
		"$non2xx" "$sockerr" "$cpu"
	[ "$sockerr" = 0 ] || echo "               socket errors: $sockdet"
	last="$rps $p99 $non2xx $sockerr $others"
}

echo
printf '%-14s %5s %10s %8s %8s %8s %8s %8s %10s  %s\n' endpoint conns "req/s" "p50 ms" "p90 ms" "p99 ms" \
	non-2xx "sock err" "CPU us/req" "CPU: daemon/wrk/others"
for c in 32 64; do
	run /api/route "$c" "$dur" "$url" "$lua"
	# shellcheck disable=SC2086
	set -- $last
	why=
	awk -v r="$1" 'BEGIN { exit !(r < 20000) }' && why="$why, $1 req/s < 20000"
	awk -v p="$2" 'BEGIN { exit !(p > 5) }' && why="$why, p99 $2 ms > 5 ms"
	[ "$3" = 0 ] || why="$why, $3 non-2xx"
	[ "$4" = 0 ] || why="$why, $4 socket errors"
	if [ -z "$why" ]; then
		summary="$summary
/api/route, $c connections: target (>= 20000 req/s, p99 <= 5 ms, no errors) met"
	else
		summary="$summary
/api/route, $c connections: target (>= 20000 req/s, p99 <= 5 ms, no errors) NOT met: ${why#, } (other processes took $5 of the CPU meanwhile)"
	fi
done
run /api/fabric 32 "$ref" "$url/api/fabric"
run /metrics 32 "$ref" "$url/metrics"
printf '%s\n' "$summary"
echo "(CPU us/req: the daemon's CPU time per answered request; CPU shares in % of all $(nproc) cores over the run)"
w=$(grep -c -E '^<[0-4]>' "$log" || true)
[ "$w" = 0 ] || { echo "the daemon logged $w warnings or errors:"; grep -E '^<[0-4]>' "$log" | sort | uniq -c | head; }
