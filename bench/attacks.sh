#!/bin/sh
# The API under the attacks a client without the token can make, one
# fabrouted in its default configuration (127.0.0.1, gen:ft648, a token
# file), each attack from up to 300 connections for DURATION_S, with
# bench/flood.py's probes throughout:
#
#   bench/attacks.sh [BUILD_DIR] [DURATION_S]      (default 30 s an attack; needs python3)
#   ATTACKS="reads slow" bench/attacks.sh ...      (only those)
#
#  body    300 POST /api/faults, Content-Length 60000, one byte every 5 s,
#          from 127.0.0.1-5, reopened when closed
#  expect  300 POST /api/faults with Expect: 100-continue, then silence,
#          from 127.0.0.1-5, reopened when closed
#  reads   64 keep-alive clients on GET /api/events?limit=1000 (after a
#          storm of 120 faults wrote their events), from 127.0.0.2
#  slow    300 slowloris connections (a header byte a second) from
#          127.0.0.1, the address local health checks come from
#  reads5  the reads from 127.0.0.1-5 (one client on loopback, or five)
#
# Probes: GET /api/health every 0.1 s from the attack's first address
# ("same") and from this host's first non-loopback address ("other"),
# POST /api/reroute with the token every second ("admin"), the daemon's
# resident memory. One line per attack: the share of health checks answered
# within 100 ms from each address, their p99 and worst, the administrator's
# POSTs answered within 1 s, the memory's start and peak; the longest a slow
# connection was held, or the readers' answers by status (429: over the
# client's read budget).
# Targets (issue: reliability v2): health >= 99% within 100 ms from either
# address, the POST within 1 s, memory within 100 MB of its start.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
dur=${2:-30}

die() { echo "attacks.sh: $*" >&2; exit 1; }
command -v python3 > /dev/null || die "python3 not found"
command -v curl > /dev/null || die "curl not found"
case $dur in '' | *[!0-9]*) die "DURATION_S must be a whole number of seconds, found '$dur'" ;; esac
[ -x "$build/fabrouted" ] || die "no fabrouted in $build; build it first"
build=$(cd "$build" && pwd)
other=$(hostname -I 2> /dev/null | tr ' ' '\n' | grep -m1 '^[0-9]*\.[0-9]*\.[0-9]*\.[0-9]*$' || true)
[ -n "$other" ] || die "no non-loopback IPv4 address on this host for the 'other' probe"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabroute-attacks.XXXXXX")
. "$top/bench/daemon.sh"

start_daemon a
# events for the heavy reads: a storm of faults (each an event and a reroute's)
i=0
while [ $i -lt 60 ]; do
	for act in down up; do
		curl -s -o /dev/null -X POST -H "Authorization: Bearer $token" \
			-d "{\"action\":\"$act\",\"link\":\"leaf-00:19\"}" "$url/api/faults"
		sleep 0.1	# within the write rate limit
	done
	i=$((i + 1))
done
events=$(curl -s "$url/api/events?limit=1000" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["events"]))' 2> /dev/null || echo "?")

attack() {
	name=$1
	shift
	fg python3 "$top/bench/flood.py" "$url" "$@" --seconds "$dur" --other "$other" \
		--token-file "$tmp/token" --pid "$pid" --json > "$tmp/$name.json" || die "flood.py $name failed"
	python3 - "$name" "$tmp/$name.json" << 'PY'
import json, sys
name, d = sys.argv[1], json.load(open(sys.argv[2]))
def p(k):
    s = d[k]
    return "%s %5.1f%% (%d/%d) p99 %s max %s ms" % (k, s["fast_pct"] or 0, s["fast"], s["n"], s["p99_ms"], s["max_ms"])
grow = (d["rss_max_mb"] or 0) - (d["rss_start_mb"] or 0)
extra = ""
if "held_max_s" in d:  # the slow connections: how long the longest was held, how many the server closed
    extra = " | held max %s s, %d of %d closed by the server" % (d["held_max_s"], d["closed_by_server"], d["opened"])
if "status" in d:  # the readers' answers by status (429: over the client's read budget)
    extra = " | reads %s/s %s" % (d["requests_per_s"], ",".join("%s:%d" % kv for kv in sorted(d["status"].items())))
print("%-7s %s | %s | %s | rss %s -> %s MB (+%.1f)%s" % (name, p("same"), p("other"), p("admin"),
      d["rss_start_mb"], d["rss_max_mb"], grow, extra))
PY
}

echo "fabrouted $(git -C "$top" rev-parse --short HEAD 2> /dev/null || echo '?'), default configuration," \
	"$dur s an attack; events stored: $events; load: $(cut -d' ' -f1-3 /proc/loadavg)"
want() { [ -z "${ATTACKS:-}" ] || case " $ATTACKS " in *" $1 "*) ;; *) return 1 ;; esac; }
want body && attack body body --conns 300 --from 127.0.0.1-5 --interval 5 --persist
want expect && attack expect expect --conns 300 --from 127.0.0.1-5 --interval 5 --persist
want reads && attack reads reads --conns 64 --from 127.0.0.2 --path "/api/events?limit=1000"
want slow && attack slow slow --conns 300 --from 127.0.0.1 --interval 1 --persist
want reads5 && attack reads5 reads --conns 64 --from 127.0.0.1-5 --path "/api/events?limit=1000"
exit 0
