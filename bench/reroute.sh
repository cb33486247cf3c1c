#!/bin/sh
# Reroute latency of fabrouted on the built-in 648-port fat tree (gen:ft648:
# 36 leaves, 18 spines, 648 CAs) or a larger generated tree, faults injected
# through the REST API.
#
#   bench/reroute.sh [BUILD_DIR] [N]        (N faults, default 30; needs python3)
#   FABRIC=m28|m40|m56 bench/reroute.sh ... (the fabric: ft648 by default; m28 the
#                                            5488-CA, m40 the 16,000-CA and m56 the
#                                            43,904-CA m-port 3-tree,
#                                            gen:mport-ntree:m=28|40|56,n=3)
#   REPAIR=none bench/reroute.sh ...        (fabrouted's repair setting, default
#                                            ftdlr: a link fault is published as
#                                            the local repair of the last routing;
#                                            none: the chain routes every fault)
#
# For each hold-down (0 ms, then the default 50 ms) a fresh daemon in a
# temporary directory, then:
#
#  1. N faults one at a time, each on an idle daemon (100 ms after the
#     previous epoch was seen, once the reroute worker has stopped using
#     CPU and the epoch's snapshot is stored): a spine-to-leaf link down,
#     the same link up again, the next link down, ... Then N more, each
#     100 ms after the previous epoch was seen, whatever the daemon is still
#     doing (storing that epoch's snapshot, at the larger sizes). Per fault:
#       POST     the round trip of POST /api/faults (it asks for the
#                reroute and stores the fault and an event in SQLite);
#       daemon   the daemon's own figure, details.latency_ms of the reroute
#                event: from the reroute request (made by the POST handler)
#                to the publication;
#       client   from sending the POST to the first GET /api/fabric that
#                shows the new epoch seq (polled on a keep-alive connection,
#                every POLL_MS ms, default 0.5);
#     and where the time goes: engine and evaluation (the daemon's log), the
#     CPU time of the reroute thread up to the publication and in all
#     (/proc/PID/task/TID/schedstat), and when the snapshot was stored
#     after the publication (the snapshot writer's log line; the writer is a
#     thread of its own: the worker takes the next reroute meanwhile, and
#     waits only when it hands over the next epoch before this one is
#     stored).
#  2. A storm: 20 link-down faults posted back to back on one keep-alive
#     connection: how many reroutes they cause (coalescing) and when the
#     epoch that holds all 20 is published.
#
# Target: <= 20 ms from a fault to the publication of the new epoch on ft648,
# <= 200 ms at 16,000 CAs (m40); none is set at 5488 or 43,904 CAs.
# The write rate limit (api_write_rate_limit, default 10 POSTs/s per
# address) is turned off, or the storm would get 429s after 10 POSTs.
# Wall-clock figures depend on what else runs: each test prints the CPU
# share other processes took meanwhile.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
n=${2:-30}
poll_ms=${POLL_MS:-0.5}
repair=${REPAIR:-ftdlr}
fabric=${FABRIC:-ft648}

die() { echo "reroute.sh: $*" >&2; exit 1; }
command -v python3 > /dev/null || die "python3 not found (it drives the faults and polls the API)"
command -v curl > /dev/null || die "curl not found"
case $repair in ftdlr | none) ;; *) die "REPAIR must be ftdlr or none, found '$repair'" ;; esac
# the fabric: its generator, its spines (name format, count, ports: every spine port leads down)
case $fabric in
ft648) gen="ft648" desc="648 CAs, 54 switches" sfmt="spine-%02d" spines=18 sports=36 target=20 tmo=10 ;;
m28) gen="mport-ntree m=28 n=3" desc="5488 CAs, 980 switches" sfmt="spine-%03d" spines=196 sports=28 target=0 tmo=10 ;;
m40) gen="mport-ntree m=40 n=3" desc="16,000 CAs, 2000 switches" sfmt="spine-%03d" spines=400 sports=40 target=200 tmo=10 ;;
m56) gen="mport-ntree m=56 n=3" desc="43,904 CAs, 3920 switches" sfmt="spine-%03d" spines=784 sports=56 target=0 tmo=60 ;;
*) die "FABRIC must be ft648, m28, m40 or m56, found '$fabric'" ;;
esac
topo=gen:$(echo "$gen" | sed 's/ /:/; s/ /,/g')
case $n in '' | *[!0-9]*) die "N must be a whole number, found '$n'" ;; esac
[ "$n" -ge 2 ] || die "N must be at least 2"
[ "$n" -le 600 ] || die "N must be at most 600 (distinct spine-to-leaf links)"
[ -x "$build/fabrouted" ] || make -C "$build" -s fabrouted || die "no fabrouted in $build; build it first"
build=$(cd "$build" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabroute-reroute.XXXXXX")
. "$top/bench/daemon.sh"

cat > "$tmp/reroute.py" << 'EOF'
import calendar, http.client, json, os, re, resource, socket, statistics, sys, time

port, token, log, dpid, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
count, poll_s, hold_s = int(sys.argv[6]), float(sys.argv[7]) / 1e3, float(sys.argv[8]) / 1e3
sfmt, spines, sports, target_ms = sys.argv[9], int(sys.argv[10]), int(sys.argv[11]), float(sys.argv[12])
TIMEOUT = float(sys.argv[13])  # s: a reroute of the 43,904-CA tree takes seconds
HZ = os.sysconf("SC_CLK_TCK")
NCPU = os.cpu_count() or 1

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
    return json.loads(body) if path != "/metrics" else body.decode()

def post_fault(c, action, link):
    body = json.dumps({"action": action, "link": link}).encode()
    c.request("POST", "/api/faults", body, {"Authorization": "Bearer " + token,
                                            "Content-Type": "application/json"})
    r = c.getresponse()
    return r.status, r.read()

def link(k):
    # the k-th spine-to-leaf link: spine k % spines, port k / spines + 1 (each spine port leads down)
    return (sfmt % (k % spines)) + ":%d" % ((k // spines) % sports + 1)

# --- CPU accounting ------------------------------------------------------

def thread_ns():
    """{tid: ns on CPU} for the daemon's threads."""
    out = {}
    for t in os.listdir("/proc/%d/task" % dpid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (dpid, t)) as f:
                out[int(t)] = int(f.read().split()[0])
        except OSError:
            pass
    return out

def cpu_sample():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    busy = sum(v) - v[3] - v[4]          # all but idle and iowait, in ticks
    with open("/proc/%d/stat" % dpid) as f:
        st = f.read().rsplit(")", 1)[1].split()
    daemon = int(st[11]) + int(st[12])
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return time.monotonic(), busy / HZ, daemon / HZ, ru.ru_utime + ru.ru_stime

def cpu_report(a, b):
    wall = b[0] - a[0]
    busy, daemon, me = b[1] - a[1], b[2] - a[2], b[3] - a[3]
    others = max(0.0, busy - daemon - me)
    print("  CPU over %.1f s, in %% of %d cores: daemon %.0f%%, this client %.0f%%, other processes %.0f%%"
          % (wall, NCPU, 100 * daemon / wall / NCPU, 100 * me / wall / NCPU, 100 * others / wall / NCPU))

# --- helpers -------------------------------------------------------------

def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, max(0, int(-(-p * len(v) // 100)) - 1))]

def stats(v):
    if not v:
        return "    (none)"
    return "%7.1f %7.1f %7.1f %7.1f" % (min(v), statistics.median(v), pct(v, 90), max(v))

def iso_ms(s):
    # "2026-11-22T00:01:01.145Z"
    return calendar.timegm(time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")) * 1000.0 + float(s[19:-1] or 0) * 1000

def epochs_from_log():
    # "epoch 7 published (fault): sftree in 1.2 ms, evaluated in 13.4 ms, ...; 16.0 ms after the change"
    # (whole ms in older builds)
    num = r"(\d+(?:\.\d+)?)"
    rx = re.compile(r"epoch (\d+) published \(([^)]*)\): (\S+) in %s ms, evaluated in %s ms.*; %s ms after"
                    % (num, num, num))
    out = {}
    with open(log) as f:
        for line in f:
            m = rx.search(line)
            if m:
                out[int(m.group(1))] = (m.group(3), float(m.group(4)), float(m.group(5)), float(m.group(6)))
    return out

def stores_from_log():
    """{seq: (ms storing, ms from publication to stored)} from the snapshot writer's log lines."""
    # "epoch 7 stored as snapshot 7 in 612.3 ms, 640 ms after its publication"
    rx = re.compile(r"epoch (\d+) stored as snapshot \d+ in (\d+(?:\.\d+)?) ms, (\d+) ms after")
    out = {}
    with open(log) as f:
        for line in f:
            m = rx.search(line)
            if m:
                out[int(m.group(1))] = (float(m.group(2)), float(m.group(3)))
    return out

def reroute_events(c, since_seq):
    """{seq: (latency_ms, event time_ms)} of the reroute events after since_seq."""
    out = {}
    for e in get(c, "/api/events?type=reroute&limit=1000")["events"]:
        m = re.match(r"epoch (\d+):", e["message"])
        if m and int(m.group(1)) > since_seq:
            out[int(m.group(1))] = ((e.get("details") or {}).get("latency_ms"), e["time_ms"])
    return out

def snapshot_times(c):
    """{seq: time_ms} of the stored snapshots (the epoch's publication time)."""
    return {s["seq"]: s["time_ms"] for s in get(c, "/api/snapshots?limit=1000")["snapshots"]}

def changes(c):
    m = re.search(r"^fabroute_topology_changes_total (\d+)", get(c, "/metrics"), re.M)
    return int(m.group(1)) if m else 0

def wait_epoch(c, seq0, deadline, cond=None):
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

def settle(c):
    """Wait until no reroute runs or is pending and the seq stays put; the seq."""
    deadline = time.monotonic() + TIMEOUT
    seq, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        h = get(c, "/api/health")
        if h["epoch"] != seq or h["reroute_in_progress"] or not h["store"]["epoch_stored"]:
            seq, since = h["epoch"], time.monotonic()
        elif time.monotonic() - since > hold_s + 0.3:
            return seq
        time.sleep(0.02)
    sys.exit("the daemon did not settle within %.0f s" % TIMEOUT)

def worker_idle(tid):
    """Wait (at most 2 s) until thread tid has not run for 20 ms."""
    end = time.monotonic() + 2
    last = thread_ns().get(tid, 0)
    while time.monotonic() < end:
        time.sleep(0.02)
        now = thread_ns().get(tid, 0)
        if now == last:
            return
        last = now

def stored(c):
    """Wait until the epoch in force is stored (the snapshot writer is done)."""
    end = time.monotonic() + TIMEOUT
    while time.monotonic() < end and not get(c, "/api/health")["store"]["epoch_stored"]:
        time.sleep(0.01)

# --- the tests -----------------------------------------------------------

def sequential(n, gap_ms=None):
    """n faults: each on an idle daemon, or gap_ms after the last epoch was seen."""
    pc, qc = connect(), connect()
    seq0 = first = settle(qc)
    c0 = cpu_sample()
    rows, worker = [], None
    for i in range(n):
        action, what = ("down" if i % 2 == 0 else "up"), link(i // 2)
        ns0 = thread_ns()
        t0 = time.perf_counter()
        st, text = post_fault(pc, action, what)
        t1 = time.perf_counter()
        if st != 202:
            sys.exit("POST %s %s: %d %s" % (action, what, st, text[:200]))
        t2, j, polls = wait_epoch(qc, seq0, t0 + TIMEOUT)
        ns1 = thread_ns()
        if worker is None:      # the reroute thread: the one that ran most for the first fault
            worker = max(ns1, key=lambda t: ns1[t] - ns0.get(t, 0))
        if gap_ms is None:
            time.sleep(0.1)
            worker_idle(worker)
            stored(qc)
        else:
            time.sleep(gap_ms / 1e3)
        ns2 = thread_ns()
        seq = j["epoch"]["seq"]
        rows.append(dict(seq=seq, post=(t1 - t0) * 1e3, client=(t2 - t0) * 1e3, polls=polls,
                         jump=seq - seq0, cpu_pub=(ns1[worker] - ns0[worker]) / 1e6,
                         cpu_all=(ns2[worker] - ns0[worker]) / 1e6))
        seq0 = seq
    c1 = cpu_sample()
    settle(qc)
    ev, stores, logd = reroute_events(qc, first), stores_from_log(), epochs_from_log()
    col = lambda f: [f(r) for r in rows if f(r) is not None]
    daemon = col(lambda r: ev.get(r["seq"], (None,))[0])
    inlog = [logd[r["seq"]] for r in rows if r["seq"] in logd]
    store = col(lambda r: stores[r["seq"]][1] if r["seq"] in stores else None)
    jumps = sum(1 for r in rows if r["jump"] != 1)
    print("  %d faults, engine %s, %s; %d polls of /api/fabric per fault (median)"
          % (n, ",".join(sorted({x[0] for x in inlog})),
             "one new epoch per fault" if not jumps else "%d faults moved the seq by more than 1" % jumps,
             statistics.median(r["polls"] for r in rows)))
    print("  %-52s %7s %7s %7s %7s" % ("ms", "min", "median", "p90", "max"))
    for name, v in (("POST /api/faults round trip", col(lambda r: r["post"])),
                    ("daemon: request -> publication (latency_ms)", daemon),
                    ("   engine (log)", [x[1] for x in inlog]),
                    ("   evaluation: all pairs, CDG, load (log)", [x[2] for x in inlog]),
                    ("   the rest: fabric copy, LID pins, publish (log)", [x[3] - x[1] - x[2] for x in inlog]),
                    ("client: POST sent -> new seq seen in /api/fabric", col(lambda r: r["client"])),
                    ("reroute thread CPU until the epoch was seen", col(lambda r: r["cpu_pub"])),
                    ("reroute thread CPU per fault, in all", col(lambda r: r["cpu_all"])),
                    ("snapshot stored (writer thread), after the publication", store)):
        print("  %-52s %s" % (name, stats(v)))
    for name, v in (("daemon", daemon), ("client", col(lambda r: r["client"]))) if target_ms else ():
        over = sum(1 for x in v if x > target_ms)
        print("  target <= %g ms from the fault to the publication (%s figure): %s (%d of %d over; "
              "median %.1f ms, max %.1f ms)" % (target_ms, name, "met" if not over else "NOT met", over,
                                              len(v), statistics.median(v), max(v)))
    cpu_report(c0, c1)

def storm(k):
    pc, qc = connect(), connect()
    seq0 = settle(qc)
    links0 = get(qc, "/api/fabric")["links"]
    m0 = changes(qc)
    wall0, t0 = time.time(), time.perf_counter()
    codes = [post_fault(pc, "down", link(300 + i))[0] for i in range(k)]
    t1 = time.perf_counter()
    ok = codes.count(202)
    tf, j, polls = wait_epoch(qc, seq0, t0 + TIMEOUT, lambda j: j["links"] == links0 - ok)
    final = j["epoch"]["seq"]
    seq_end = settle(qc)
    ev, snaps, stores = reroute_events(qc, seq0), snapshot_times(qc), stores_from_log()
    print("  %d link-down POSTs back to back in %.1f ms (%s)"
          % (k, (t1 - t0) * 1e3, ", ".join("%dx %d" % (codes.count(c), c) for c in sorted(set(codes)))))
    print("  %d reroute(s) (epochs %d..%d) for %d changes (fabroute_topology_changes_total +%d)"
          % (seq_end - seq0, seq0 + 1, seq_end, ok, changes(qc) - m0))
    for s in sorted(ev):
        print("    epoch %d: published %6.1f ms after the first POST, latency_ms %.1f, snapshot stored %g ms later"
              % (s, snaps[s] - wall0 * 1e3, ev[s][0], stores[s][1]) if s in snaps and s in stores else
              "    epoch %d: latency_ms %.1f" % (s, ev[s][0]))
    print("  epoch %d holds all %d faults (links %d -> %d): seen %.1f ms after the first POST, %.1f ms after the last"
          % (final, ok, links0, j["links"], (tf - t0) * 1e3, (tf - t1) * 1e3))
    if seq_end != final:
        print("  (the epochs after %d have the same topology: requested while %d was being computed)" % (final, final))

if mode == "seq":
    sequential(count)
elif mode == "gap":
    sequential(count, 100)
else:
    storm(count)
EOF

# The same evaluation offline, as a yardstick of the machine's speed now:
# `fabroute eval` (connectivity, CDG, load) of the fabric routed by sftree.
ref_eval() {
	fab=$build/fabroute
	[ -x "$fab" ] || { echo "(no $fab: no offline reference)"; return 0; }
	mkdir -p "$tmp/ref"
	# shellcheck disable=SC2086 # $gen: the generator and its parameters
	if ! "$fab" gen $gen -o "$tmp/ref/ft.ibnd" > /dev/null 2>&1 ||
		! "$fab" compute -e sftree --topology "$tmp/ref/ft.ibnd" -d "$tmp/ref/out" > /dev/null 2>&1; then
		echo "(fabroute gen/compute failed: no offline reference)"
		return 0
	fi
	for i in 1 2 3 4 5 6 7; do
		"$fab" eval --topology "$tmp/ref/out/topology.ibnd" --lfts "$tmp/ref/out/opensm-lfts.dump" \
			--metrics conn,cdg,load 2> /dev/null | sed -n 's/^time: *\([0-9.]*\) ms evaluation.*/\1/p'
	done | sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "yardstick: the same evaluation offline (fabroute eval, 7 runs): min %.1f ms, median %.1f ms\n", v[1], v[int((NR + 1) / 2)] }'
}

echo "fabrouted reroute latency: $topo ($desc), repair = $repair, $n faults; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(the daemon, this python3 client and its poller share the cores; /api/fabric polled every $poll_ms ms)"
ref_eval
for hd in 0 50; do
	start_daemon "hd$hd" --topology "$topo" --holddown-ms "$hd" --api-write-rate-limit 0 --repair "$repair" \
		--rebalance-delay-s 0
	echo
	echo "=== holddown_ms = $hd"
	echo "-- $n faults, one at a time, on an idle daemon"
	fg python3 "$tmp/reroute.py" "$port" "$token" "$log" "$pid" seq "$n" "$poll_ms" "$hd" "$sfmt" "$spines" "$sports" "$target" "$tmo" ||
		die "the sequential test failed"
	echo "-- $n faults, each 100 ms after the last epoch was seen (its snapshot still being stored)"
	fg python3 "$tmp/reroute.py" "$port" "$token" "$log" "$pid" gap "$n" "$poll_ms" "$hd" "$sfmt" "$spines" "$sports" "$target" "$tmo" ||
		die "the 100 ms test failed"
	echo "-- storm: 20 link-down faults back to back"
	fg python3 "$tmp/reroute.py" "$port" "$token" "$log" "$pid" storm 20 "$poll_ms" "$hd" "$sfmt" "$spines" "$sports" "$target" "$tmo" ||
		die "the storm test failed"
	kill -0 "$pid" 2> /dev/null || die "fabrouted died during the test"
	h=$(curl -s -m 5 "http://127.0.0.1:$port/metrics" | awk '/^fabroute_reroute_duration_seconds_(sum|count)/ { v[$1] = $2 }
		END { c = v["fabroute_reroute_duration_seconds_count"]
		      printf "%d reroutes, mean %.1f ms", c, c ? 1000 * v["fabroute_reroute_duration_seconds_sum"] / c : 0 }')
	echo "-- /metrics fabroute_reroute_duration_seconds: $h (startup included)"
	echo "-- the daemon's peak resident memory (VmHWM): $(awk '/^VmHWM/ { printf "%.0f MiB", $2 / 1024 }' "/proc/$pid/status")"
	stop_daemon
done
