#!/bin/sh
# Reroute latency of fabrouted on the built-in 648-port fat tree (gen:ft648:
# 36 leaves, 18 spines, 648 CAs), faults injected through the REST API.
#
#   bench/reroute.sh [BUILD_DIR] [N]        (N faults, default 30; needs python3)
#
# For each hold-down (0 ms, then the default 50 ms) a fresh daemon in a
# temporary directory, then:
#
#  1. N faults one at a time, 100 ms apart (each on an idle daemon): a
#     spine-to-leaf link down, the same link up again, the next link down,
#     ... Per fault:
#       POST     the round trip of POST /api/faults (it stores the fault and
#                an event in SQLite before it asks for the reroute);
#       daemon   the daemon's own figure, details.latency_ms of the reroute
#                event (from the reroute request, made at the end of the
#                POST handler, to the publication; whole ms);
#       client   from sending the POST to the first GET /api/fabric that
#                shows the new epoch seq (polled on a keep-alive connection,
#                every POLL_MS ms, default 0.5).
#     The daemon's log gives where the time goes (engine, evaluation).
#  2. A storm: 20 link-down faults posted back to back on one keep-alive
#     connection: how many reroutes they cause (coalescing) and when the
#     epoch that holds all 20 is published.
#
# Target: <= 20 ms from a fault to the publication of the new epoch.
# The write rate limit (api_write_rate_limit, default 10 POSTs/s per
# address) is turned off, or the storm would get 429s after 10 POSTs.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
n=${2:-30}
poll_ms=${POLL_MS:-0.5}

die() { echo "reroute.sh: $*" >&2; exit 1; }
command -v python3 > /dev/null || die "python3 not found (it drives the faults and polls the API)"
command -v curl > /dev/null || die "curl not found"
case $n in '' | *[!0-9]*) die "N must be a whole number, found '$n'" ;; esac
[ "$n" -ge 2 ] || die "N must be at least 2"
[ "$n" -le 600 ] || die "N must be at most 600 (distinct spine-to-leaf links)"
[ -x "$build/fabrouted" ] || make -C "$build" -s fabrouted || die "no fabrouted in $build; build it first"
build=$(cd "$build" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabroute-reroute.XXXXXX")
pid=
stop_daemon() {
	[ -n "$pid" ] || return 0
	kill "$pid" 2> /dev/null || true
	i=0
	while kill -0 "$pid" 2> /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	kill -9 "$pid" 2> /dev/null || true
	wait "$pid" 2> /dev/null || true
	pid=
}
trap 'stop_daemon; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

token=bench-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$token" > "$tmp/token"
chmod 600 "$tmp/token"

# start_daemon NAME HOLDDOWN_MS: sets $pid, $port, $log
start_daemon() {
	dir=$tmp/$1
	mkdir -p "$dir"
	log=$dir/fabrouted.log
	"$build/fabrouted" --listen 127.0.0.1:0 --db "$dir/db" --token-file "$tmp/token" \
		--log-level info --holddown-ms "$2" --api-write-rate-limit 0 2> "$log" < /dev/null &
	pid=$!
	port=
	i=0
	while [ -z "$port" ]; do
		kill -0 "$pid" 2> /dev/null || { cat "$log" >&2; die "fabrouted exited at startup"; }
		[ $i -lt 100 ] || { cat "$log" >&2; die "no 'API listening' in the log after 10 s"; }
		port=$(sed -n 's|.*API listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log" | head -1)
		[ -n "$port" ] || { sleep 0.1; i=$((i + 1)); }
	done
	i=0
	until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/ready")" = 200 ]; do
		kill -0 "$pid" 2> /dev/null || { cat "$log" >&2; die "fabrouted exited before it was ready"; }
		[ $i -lt 600 ] || { tail "$log" >&2; die "GET /api/ready is not 200 after 60 s"; }
		sleep 0.1
		i=$((i + 1))
	done
}

cat > "$tmp/reroute.py" << 'EOF'
import http.client, json, re, socket, statistics, sys, time

port, token, log, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
TIMEOUT = 10.0

def connect():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    c.connect()
    c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return c

def get(c, path):
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit("GET %s: %d %s" % (path, r.status, body[:200]))
    return json.loads(body)

def post_fault(c, action, link):
    body = json.dumps({"action": action, "link": link}).encode()
    c.request("POST", "/api/faults", body, {"Authorization": "Bearer " + token,
                                            "Content-Type": "application/json"})
    r = c.getresponse()
    text = r.read()
    return r.status, text

def link(k):
    # the k-th spine-to-leaf link: spine k % 18, port (k / 18) + 1 (port p leads to leaf p-1)
    return "spine-%02d:%d" % (k % 18, (k // 18) % 36 + 1)

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, max(0, int(round(p / 100.0 * len(v) + 0.5)) - 1))]

def stats(v):
    return "%7.1f %7.1f %7.1f %7.1f" % (min(v), statistics.median(v), pct(v, 90), max(v))

def epochs_from_log():
    # "epoch 7 published (fault): sftree in 1 ms, evaluated in 13 ms, ...; 16 ms after the change"
    rx = re.compile(r"epoch (\d+) published \(([^)]*)\): (\S+) in (\d+) ms, evaluated in (\d+) ms.*; (\d+) ms after")
    out = {}
    with open(log) as f:
        for line in f:
            m = rx.search(line)
            if m:
                out[int(m.group(1))] = (m.group(3), int(m.group(4)), int(m.group(5)), int(m.group(6)))
    return out

def reroute_events(c, since_seq):
    ev = get(c, "/api/events?type=reroute&limit=10000")["events"]
    out = {}
    for e in ev:
        m = re.match(r"epoch (\d+):", e["message"])
        if m and int(m.group(1)) > since_seq:
            out[int(m.group(1))] = e["details"].get("latency_ms")
    return out

def wait_epoch(c, seq0, poll_s, deadline, cond=None):
    """Poll /api/fabric until epoch.seq > seq0 (and cond(j)); (time seen, json, polls)."""
    polls = 0
    while True:
        j = get(c, "/api/fabric")
        t = time.perf_counter()
        polls += 1
        if j["epoch"]["seq"] > seq0 and (cond is None or cond(j)):
            return t, j, polls
        if t > deadline:
            sys.exit("no new epoch after %.0f s (seq still %d)" % (TIMEOUT, j["epoch"]["seq"]))
        if poll_s > 0:
            time.sleep(poll_s)

def quiet(c, hold_s):
    """Wait until no reroute runs and the seq stays put for hold_s + 0.3 s; the seq."""
    deadline = time.monotonic() + TIMEOUT
    seq, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        h = get(c, "/api/health")
        if h["epoch"] != seq or h["reroute_in_progress"]:
            seq, since = h["epoch"], time.monotonic()
        elif time.monotonic() - since > hold_s + 0.3:
            return seq
        time.sleep(0.02)
    sys.exit("the daemon did not settle within %.0f s" % TIMEOUT)

def sequential(n, pause_s, poll_s, hold_s):
    pc, qc = connect(), connect()
    seq0 = quiet(qc, hold_s)
    first = seq0
    rows = []
    for i in range(n):
        action, what = ("down" if i % 2 == 0 else "up"), link(i // 2)
        t0 = time.perf_counter()
        st, text = post_fault(pc, action, what)
        t1 = time.perf_counter()
        if st != 202:
            sys.exit("POST %s %s: %d %s" % (action, what, st, text[:200]))
        t2, j, polls = wait_epoch(qc, seq0, poll_s, t0 + TIMEOUT)
        seq = j["epoch"]["seq"]
        rows.append((seq, (t1 - t0) * 1e3, (t2 - t0) * 1e3, polls, seq - seq0))
        seq0 = seq
        time.sleep(pause_s)
    quiet(qc, hold_s)
    lat = reroute_events(qc, first)
    logd = epochs_from_log()
    post = [r[1] for r in rows]
    client = [r[2] for r in rows]
    daemon = [lat[r[0]] for r in rows if lat.get(r[0]) is not None]
    eng = [logd[r[0]][1] for r in rows if r[0] in logd]
    ev = [logd[r[0]][2] for r in rows if r[0] in logd]
    rest = [logd[r[0]][3] - logd[r[0]][1] - logd[r[0]][2] for r in rows if r[0] in logd]
    skipped = sum(1 for r in rows if r[4] != 1)
    print("  %d faults (%s), %s reroute(s) per fault%s; polls per fault: median %d"
          % (n, ", ".join(sorted({logd[r[0]][0] for r in rows if r[0] in logd})),
             "one" if not skipped else "not always one",
             "" if not skipped else " (%d faults saw the seq jump by more than 1)" % skipped,
             statistics.median(r[3] for r in rows)))
    print("  %-44s %7s %7s %7s %7s" % ("ms", "min", "median", "p90", "max"))
    print("  %-44s %s" % ("POST /api/faults round trip", stats(post)))
    print("  %-44s %s" % ("daemon: request -> publication (latency_ms)", stats(daemon)))
    print("  %-44s %s" % ("   of which engine (sftree)", stats(eng)))
    print("  %-44s %s" % ("   of which evaluation (all pairs, CDG, load)", stats(ev)))
    print("  %-44s %s" % ("   the rest (fabric copy, LID pins, publish)", stats(rest)))
    print("  %-44s %s" % ("client: POST sent -> new seq in /api/fabric", stats(client)))
    for name, v in (("daemon", daemon), ("client", client)):
        over = sum(1 for x in v if x > 20)
        print("  target <= 20 ms (%s): %s (%d of %d over, median %.1f, max %.1f ms)"
              % (name, "met" if not over else "NOT met", over, len(v), statistics.median(v), max(v)))

def storm(count, poll_s, hold_s):
    pc, qc = connect(), connect()
    seq0 = quiet(qc, hold_s)
    base = get(qc, "/api/fabric")
    links0 = base["links"]
    m0 = get_changes(qc)
    wall0 = time.time()
    t0 = time.perf_counter()
    codes = []
    for k in range(count):
        st, text = post_fault(pc, "down", link(300 + k))
        codes.append(st)
    t1 = time.perf_counter()
    ok = codes.count(202)
    tf, j, polls = wait_epoch(qc, seq0, poll_s, t0 + TIMEOUT, lambda j: j["links"] == links0 - ok)
    final = j["epoch"]["seq"]
    pub_ms = iso_ms(j["epoch"]["published"])
    seq_end = quiet(qc, hold_s)
    lat = reroute_events(qc, seq0)
    m1 = get_changes(qc)
    print("  %d link-down POSTs back to back in %.1f ms (%s)"
          % (count, (t1 - t0) * 1e3, ", ".join("%dx %d" % (codes.count(c), c) for c in sorted(set(codes)))))
    print("  reroutes: %d (epochs %d..%d) for %d topology changes (fabroute_topology_changes_total +%d)"
          % (seq_end - seq0, seq0 + 1, seq_end, ok, m1 - m0))
    print("  daemon latency_ms of each: %s" % ", ".join("%g" % lat[s] for s in sorted(lat)))
    print("  epoch %d has all %d faults (links %d -> %d): published %.1f ms after the first POST "
          "(daemon clock), seen %.1f ms after the first POST, %.1f ms after the last"
          % (final, ok, links0, j["links"], pub_ms - wall0 * 1e3, (tf - t0) * 1e3, (tf - t1) * 1e3))
    if seq_end != final:
        print("  (epochs after %d: the same topology, requested while %d was being computed)" % (final, final))

def get_changes(c):
    c.request("GET", "/metrics")
    r = c.getresponse()
    text = r.read().decode()
    m = re.search(r"^fabroute_topology_changes_total (\d+)", text, re.M)
    return int(m.group(1)) if m else 0

def iso_ms(s):
    # "2026-11-22T00:01:01.145Z"
    import calendar
    t = time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")
    return calendar.timegm(t) * 1000.0 + float(s[19:-1] or 0) * 1000

poll_s = float(sys.argv[6]) / 1000.0
hold_s = float(sys.argv[7]) / 1000.0
if mode == "seq":
    sequential(int(sys.argv[5]), 0.1, poll_s, hold_s)
else:
    storm(int(sys.argv[5]), poll_s, hold_s)
EOF

echo "fabrouted reroute latency: gen:ft648 (648 CAs, 54 switches), $n faults, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(the daemon, the python3 client and its poller share the cores; /api/fabric polled every $poll_ms ms)"
for hd in 0 50; do
	start_daemon "hd$hd" "$hd"
	echo
	echo "=== holddown_ms = $hd"
	echo "-- $n faults, one at a time, 100 ms apart"
	python3 "$tmp/reroute.py" "$port" "$token" "$log" seq "$n" "$poll_ms" "$hd" || die "the sequential test failed"
	echo "-- storm: 20 faults back to back"
	python3 "$tmp/reroute.py" "$port" "$token" "$log" storm 20 "$poll_ms" "$hd" || die "the storm test failed"
	kill -0 "$pid" 2> /dev/null || die "fabrouted died during the test"
	h=$(curl -s "http://127.0.0.1:$port/metrics" | awk '/^fabroute_reroute_duration_seconds_(sum|count)/ { v[$1] = $2 }
		END { printf "%d reroutes, mean %.1f ms", v["fabroute_reroute_duration_seconds_count"],
			1000 * v["fabroute_reroute_duration_seconds_sum"] / v["fabroute_reroute_duration_seconds_count"] }')
	echo "-- /metrics fabroute_reroute_duration_seconds: $h (startup included)"
	stop_daemon
done
