#!/bin/sh
# The OpenSM plugin (libfabroute-osm.so) inside real OpenSM on ibsim, with a
# small python stand-in for fabrouted (written to $t_tmp/fake.py below)
# instead of the daemon:
#  - the daemon answers "route" with an error, is absent, or is silent:
#    OpenSM logs the plugin's line, routes with its next engine (minhop),
#    brings the subnet up, never hangs, and what it programmed is connected;
#  - the "route" request holds the subnet ibnetdiscover sees, with
#    OpenSM's LIDs;
#  - the daemon answers with tables (those of an earlier updn run): OpenSM
#    says "fabroute tables configured" and the switches hold them;
#  - control: events reach the daemon, a "sweep" from it causes a heavy
#    sweep, a trap reaches it, the plugin reconnects after a daemon restart;
#  - malformed answers (huge frame, not JSON, wrong version, wrong id, a
#    switch missing, a port the switch does not have, VL 15 in an SL2VL
#    table) and a daemon of protocol 1: logged, OpenSM's next engine routes
#    with OpenSM's own hop matrices;
#  - the hop matrices the plugin fills when it routes are those OpenSM
#    builds (opensm-lid-matrix.dump);
#  - SL2VL tables and path SLs (QoS on): OpenSM programs the tables
#    (opensm-sl2vl.dump, smpquery sl2vl), the SA answers the routing's SL
#    (saquery -p), VLArb gives the VL in use weight (smpquery vlarb); with
#    QoS off, or links running one VL, the pass is refused with the reason;
#  - every pass's outcome reaches the daemon as a pass_result event.
# Needs opensm, ibsim (umad2sim), infiniband-diags and python3.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

have_ibsim || skip_all "ibsim, umad2sim or ibnetdiscover not installed"
for tool in opensm dump_fts python3 timeout; do
	command -v $tool >/dev/null 2>&1 || skip_all "$tool not installed"
done
PLUGIN=${FABROUTE_OSM_PLUGIN:-$top_builddir/.libs/libfabroute-osm.so}
[ -f "$PLUGIN" ] || skip_all "the OpenSM plugin is not built ($PLUGIN)"
F=$FABROUTE

# OpenSM dlopen()s "libfabroute-osm.so" through the loader's path: give it
# a directory holding nothing else.
plugdir=$t_tmp/plugin
mkdir -p "$plugdir" && cp "$PLUGIN" "$plugdir/libfabroute-osm.so"

NET=$t_tmp/fabric.net
"$F" gen kary-ntree k=2 n=3 -f ibsim -o "$NET" || { echo "Bail out! fabroute gen failed"; exit 1; }
# nodes, switches and links of the fabric
set -- $("$F" gen kary-ntree k=2 n=3 | "$F" show --json - | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["nodes"]["total"], d["nodes"]["switches"], d["links"]["total"])')
NNODES=$1 NSW=$2 NLINKS=$3

cat >"$t_tmp/fake.py" <<'PYEOF'
# fabrouted's side of doc/osm-protocol.md (version 3), for tests: answers
# hellos, records every message as a JSON line (--log), answers "route" as
# --mode says, sends one {"type":"sweep"} after the control event --sweep-on
# ("hello": at once). Mode "vl" adds SL2VL tables (SL 1 on VL 1 out of odd
# ports, VL 0 out of even ones; other SLs on the default mapping) for every
# switch and path SL 1 from the first CA to the last (by description),
# recorded as {"vl_pair": [SLID, DLID]}. Mode "v1" behaves like a daemon of
# protocol 1: it closes a connection whose hello is not of version 1.
import argparse, json, os, re, socket, struct, threading

ap = argparse.ArgumentParser()
ap.add_argument("--socket", required=True)
ap.add_argument("--log", required=True)
ap.add_argument("--mode", default="error", choices=[
    "error", "silent", "lfts", "vl", "missing", "wrong-id", "huge", "garbage", "badver", "badvl", "badport",
    "v1"])
ap.add_argument("--lfts", help="the opensm-lfts.dump to answer with")
ap.add_argument("--sweep-on")
args = ap.parse_args()
lock = threading.Lock()
swept = []
VLS = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 15}


def record(role, msg):
    with lock, open(args.log, "a") as f:
        f.write(json.dumps({"role": role, "msg": msg}) + "\n")


def readn(c, n):
    b = b""
    while len(b) < n:
        chunk = c.recv(n - len(b))
        if not chunk:
            raise EOFError("closed")
        b += chunk
    return b


TYPES = {1: "CA", 2: "SW", 3: "RT"}


def decode_subnet(counts, data):
    """A route request's records as lists: nodes (dicts), ports and links (rows)."""
    nodes, ports, links, off = [], [], [], 0
    for _ in range(counts["nodes"]):
        guid, sysimg, vendor, device, typ, nports, desc = struct.unpack_from(">QQIHBB64s", data, off)
        nodes.append({"guid": "0x%016x" % guid, "type": TYPES[typ], "ports": nports,
                      "desc": desc.split(b"\0")[0].decode(), "sysimg": "0x%016x" % sysimg,
                      "vendor": vendor, "device": device})
        off += 88
    for _ in range(counts["ports"]):
        node, guid, lid, port, lmc, state, phys, width, speed, vls = struct.unpack_from(">IQHBBBBBBB", data, off)
        ports.append([node, port, "0x%016x" % guid, lid, lmc, state, phys, width, speed, vls])
        off += 24
    for _ in range(counts["links"]):
        a, b, pa, pb = struct.unpack_from(">IIBB", data, off)
        links.append([a, pa, b, pb])
        off += 12
    if off != len(data):
        raise ValueError("a payload of %d bytes for %d" % (len(data), off))
    return dict(counts, nodes=nodes, ports=ports, links=links)


def recv(c):
    (n,) = struct.unpack(">I", readn(c, 4))
    msg = json.loads(readn(c, n))
    data = readn(c, msg["payload"]) if msg.get("payload") else b""
    if msg.get("type") == "route":
        msg["subnet"] = decode_subnet(msg["subnet"], data)
    return msg


def send_raw(c, data, payload=b""):
    c.sendall(struct.pack(">I", len(data)) + data + payload)


def send(c, obj, payload=b""):
    obj.setdefault("v", 3)
    if payload:
        obj["payload"] = len(payload)
    send_raw(c, json.dumps(obj).encode(), payload)


def parse_lfts(path):
    tabs, top, cur = {}, 0, None
    for line in open(path):
        m = re.match(r"Unicast lids \[0-(\d+)\] of switch Lid \d+ guid (0x[0-9a-fA-F]+)", line)
        if m:
            top = max(top, int(m.group(1)))
            cur = tabs.setdefault(int(m.group(2), 16), {})
            continue
        m = re.match(r"(0x[0-9a-fA-F]+) (\d+)", line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = int(m.group(2))
    return tabs, top


def nibbles(values):
    """Pack 4-bit values two to a byte, the even one in the high nibble."""
    values = list(values) + [0] * (len(values) % 2)
    return bytes(values[i] << 4 | values[i + 1] for i in range(0, len(values), 2))


def sl2vl_section(subnet):
    """Every switch's table: SL 1 -> VL 1 out of odd ports, VL 0 out of even ones; else SL mod VLs."""
    nodes, ports = subnet["nodes"], subnet["ports"]
    linked = {(a, pa) for a, pa, b, pb in subnet["links"]} | {(b, pb) for a, pa, b, pb in subnet["links"]}
    guids, data = [], b""
    for i, n in sorted(enumerate(nodes), key=lambda x: int(x[1]["guid"], 16)):
        if n["type"] != "SW":
            continue
        vls = min([VLS.get(p[9], 1) for p in ports if p[0] == i and p[1] > 0 and (i, p[1]) in linked] or [1])
        dim = n["ports"] + 1
        tab = []
        for k in range(dim * dim):
            out = k % dim
            tab += [(out % 2 if sl == 1 else sl % vls) for sl in range(16)]
        if args.mode == "badvl" and not guids:
            tab[16 + 3] = 15
        guids.append(n["guid"])
        data += nibbles(tab)
    return guids, data


def path_sl_section(subnet, lft_len):
    """SL 1 from the first CA to the last (by description)."""
    nodes, ports = subnet["nodes"], subnet["ports"]
    cas = sorted((n["desc"], i) for i, n in enumerate(nodes) if n["type"] == "CA")
    src = [p for p in ports if p[0] == cas[0][1] and p[3]][0]
    dst = [p for p in ports if p[0] == cas[-1][1] and p[3]][0]
    row = [0] * lft_len
    row[dst[3]] = 1
    record("route", {"vl_pair": [src[3], dst[3]]})
    return [src[2]], nibbles(row)


def routing(req):
    tabs, top = parse_lfts(args.lfts)
    guids, payload = [], b""
    for guid, tab in sorted(tabs.items()):
        b = bytearray([0xFF] * (top + 1))
        for lid, port in tab.items():
            b[lid] = port
        guids.append("0x%016x" % guid)
        payload += bytes(b)
    if args.mode == "missing":
        guids.pop()
        payload = payload[:-(top + 1)]
    if args.mode == "badport":  # the first switch sends LID 3 to a port it does not have
        payload = payload[:3] + bytes([200]) + payload[4:]
    ans = {"type": "routing", "id": req["id"] + (args.mode == "wrong-id"), "epoch": 40 + req["id"],
           "engine": "fake", "lft_len": top + 1, "lfts": guids}
    if args.mode in ("vl", "badvl"):
        ans["sl2vl"], tables = sl2vl_section(req["subnet"])
        ans["path_sl"], rows = path_sl_section(req["subnet"], top + 1)
        payload += tables + rows
    return ans, payload


def answer_route(c, req):
    if args.mode == "error":
        send(c, {"type": "error", "id": req["id"], "message": "fake daemon does not route"})
    elif args.mode == "huge":
        c.sendall(b"\xff\xff\xff\xff")
    elif args.mode == "garbage":
        send_raw(c, b"this is not {json")
    elif args.mode == "badver":
        send(c, {"type": "routing", "v": 1, "id": req["id"]})
    elif args.mode != "silent":
        send(c, *routing(req))


def sweep(c, role, why):
    if role == "control" and why == args.sweep_on and not swept:
        swept.append(1)
        send(c, {"type": "sweep", "heavy": True})
        record(role, {"sent": "sweep"})


def serve(c):
    role = "?"
    try:
        hello = recv(c)
        role = hello.get("role", "?")
        record(role, hello)
        if args.mode == "v1" and hello.get("v") != 1:
            raise ValueError("protocol version %r, expected 1" % hello.get("v"))
        send(c, {"type": "hello", "daemon": "fake 0"})
        sweep(c, role, "hello")
        while True:
            msg = recv(c)
            record(role, msg)
            if msg.get("type") == "route":
                answer_route(c, msg)
            elif msg.get("type") == "event":
                sweep(c, role, msg.get("event"))
    except (EOFError, OSError, ValueError) as e:
        record(role, {"closed": str(e)})
    finally:
        c.close()


if os.path.exists(args.socket):
    os.unlink(args.socket)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(args.socket)
s.listen(8)
while True:
    conn, _ = s.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
PYEOF

# The checks on a recorded "route" request (case 4): the subnet against
# ibnetdiscover's view and OpenSM's guid2lid. Prints "ok" or the mismatches.
cat >"$t_tmp/check_subnet.py" <<'PYEOF'
import json, re, sys

fake_log, disc, guid2lid, want_nodes, want_sw, want_links = sys.argv[1:7]
req = [r["msg"] for r in map(json.loads, open(fake_log)) if r["msg"].get("type") == "route"][0]
s = req["subnet"]
nodes, ports, links = s["nodes"], s["ports"], s["links"]
bad = []
if (req.get("v") != 3 or not isinstance(req.get("id"), int)
        or req.get("payload") != len(nodes) * 88 + len(ports) * 24 + len(links) * 12):
    bad.append("request without v 3, an id and the payload its records take")
nsw = sum(n["type"] == "SW" for n in nodes)
if (len(nodes), nsw, len(links)) != (int(want_nodes), int(want_sw), int(want_links)):
    bad.append("%d nodes, %d switches, %d links" % (len(nodes), nsw, len(links)))
if len(ports) != sum(n["ports"] for n in nodes) + nsw:
    bad.append("%d port rows for %d ports" % (len(ports), sum(n["ports"] for n in nodes)))
if any(n["type"] == "SW" and not any(p[0] == i and p[1] == 0 for p in ports) for i, n in enumerate(nodes)):
    bad.append("a switch without its port 0")
if any(p[5] > 1 and (p[8] not in (1, 2, 4, 8, 16, 32, 64, 128) or p[7] == 0) for p in ports):
    bad.append("a port that is not down without width or speed")
if any(len(p) != 10 or not 1 <= p[9] <= 5 for p in ports):
    bad.append("a port row without 10 columns or its VLs (1 to 5)")
if any((p[5] > 1) != any((a, pa) == (p[0], p[1]) or (b, pb) == (p[0], p[1]) for a, pa, b, pb in links)
       for p in ports if p[1] > 0):
    bad.append("a linked port down, or an unlinked one up")
# LIDs: ours (endpoints: switch port 0, CA ports) against guid2lid and ibnetdiscover
lid = {}
for p in ports:
    if p[3]:
        lid[int(p[2], 16)] = p[3]
g2l = {}
for line in open(guid2lid):
    f = line.split()
    if len(f) >= 2:
        g2l[int(f[0], 16)] = int(f[1], 16)
if lid != g2l:
    bad.append("LIDs differ from guid2lid: %r vs %r" % (sorted(lid.items())[:3], sorted(g2l.items())[:3]))
dlid, dlinks, cur, sw_pg = {}, set(), None, None
for line in open(disc):
    m = re.match(r'switchguid=0x[0-9a-f]+\(([0-9a-f]+)\)', line)
    if m:
        sw_pg = int(m.group(1), 16)
    m = re.match(r'(Switch|Ca|Rt)\s+\d+\s+"[SHR]-([0-9a-f]+)"', line)
    if m:
        cur = int(m.group(2), 16)
        m = re.search(r'base port 0 lid (\d+)', line)
        if m:
            dlid[sw_pg] = int(m.group(1))
    m = re.match(r'\[(\d+)\](?:\(([0-9a-f]+)\))?\s+"[SHR]-([0-9a-f]+)"\[(\d+)\]', line)
    if m and cur is not None:
        dlinks.add(frozenset([(cur, int(m.group(1))), (int(m.group(3), 16), int(m.group(4)))]))
        own = re.search(r'# lid (\d+) lmc', line)
        if m.group(2) and own:
            dlid[int(m.group(2), 16)] = int(own.group(1))
if lid != dlid:
    bad.append("LIDs differ from ibnetdiscover: %d vs %d ports" % (len(lid), len(dlid)))
guid = [int(n["guid"], 16) for n in nodes]
ours = set(frozenset([(guid[a], pa), (guid[b], pb)]) for a, pa, b, pb in links)
if ours != dlinks or len(ours) != len(links):
    bad.append("links differ from ibnetdiscover's (%d vs %d)" % (len(ours), len(dlinks)))
if int(s["sm_port_guid"], 16) not in lid:
    bad.append("sm_port_guid %s is no port with a LID" % s["sm_port_guid"])
print("; ".join(bad) or "ok")
PYEOF

# "SWITCHGUID LID PORT" per routed entry of an LFT dump, sorted
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# new_case NAME: a directory of its own ($dir) and a fresh simulator
new_case() {
	dir=$t_tmp/$1
	mkdir -p "$dir"
	sim_start "$NET"
}

# fake_start ARGS...: the stand-in daemon on $dir/d.sock, log $dir/fake.log
fake_start() {
	python3 "$t_tmp/fake.py" --socket "$dir/d.sock" --log "$dir/fake.log" "$@" 2>>"$dir/fake.err" &
	FAKE_PID=$!
	t_sim_pids="$t_sim_pids $FAKE_PID"
	i=0
	while [ ! -S "$dir/d.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
fake_stop() {
	kill "$FAKE_PID" 2>/dev/null
	wait "$FAKE_PID" 2>/dev/null
	rm -f "$dir/d.sock"
}

# osm_conf OPTIONS [CONFIG LINES...]: $dir/osm.conf loading the plugin
osm_conf() {
	{
		echo "event_plugin_name fabroute-osm"
		echo "event_plugin_options $1"
		shift
		for l in "$@"; do echo "$l"; done
	} >"$dir/osm.conf"
}

osm_env() {
	env OSM_CACHE_DIR="$dir" OSM_TMP_DIR="$dir" LD_LIBRARY_PATH="$plugdir" LD_PRELOAD="$UMAD2SIM" "$@"
}

# osm_once [ARGS]: one OpenSM pass (-o); its status in $osm_st, time in $osm_ms
osm_once() {
	t0=$(now_ms)
	( cd "$dir" && osm_env timeout 60 opensm -F "$dir/osm.conf" -o -s 0 -f "$dir/osm.log" -D 0x43 -d 2 \
		--dump_files_dir "$dir" "$@" >"$dir/opensm.out" 2>&1 ) && osm_st=0 || osm_st=$?
	osm_ms=$(($(now_ms) - t0))
}

# osm_start [ARGS]: OpenSM as a daemon (no periodic sweeps), pid in $OSM_PID
osm_start() {
	( cd "$dir" && exec env OSM_CACHE_DIR="$dir" OSM_TMP_DIR="$dir" LD_LIBRARY_PATH="$plugdir" \
		LD_PRELOAD="$UMAD2SIM" timeout 120 opensm -F "$dir/osm.conf" -s 0 -f "$dir/osm.log" -D 0x43 -d 2 \
		--dump_files_dir "$dir" "$@" >"$dir/opensm.out" 2>&1 ) &
	OSM_PID=$!
	t_sim_pids="$t_sim_pids $OSM_PID"
}
osm_stop() {
	kill "$OSM_PID" 2>/dev/null
	wait "$OSM_PID" 2>/dev/null && osm_st=0 || osm_st=$?
}

# count FILE PATTERN: lines of FILE matching PATTERN (grep -E)
count() {
	n=$(grep -cE -- "$2" "$1" 2>/dev/null) || true
	echo "${n:-0}"
}

# wait_for FILE PATTERN N SECONDS: until N lines match; 1 on timeout
wait_for() {
	i=0
	while [ "$(count "$1" "$2")" -lt "$3" ]; do
		i=$((i + 1))
		[ $i -gt $(($4 * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}

# the plugin's log lines, for diagnostics
show_log() { grep -E "fabroute|tables configured|SUBNET UP" "$dir/osm.log" | sed 's/^.*\] /# /' | head -20; }

# pass_results: the "result reason" of every pass_result the fake daemon got
pass_results() {
	python3 -c 'import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)["msg"]
    if m.get("event") == "pass_result":
        print(m["result"], m.get("reason", "epoch %s by %s" % (m.get("epoch"), m.get("engine"))))' "$dir/fake.log"
}

fallback_checks() {
	name=$1
	is "$name: OpenSM's next engine routed" "$(count "$dir/osm.log" "minhop tables configured on all switches")" 1
	is "$name: OpenSM brought the subnet up and exited normally" \
		"$(count "$dir/osm.log" "SUBNET UP")/$osm_st" "1/0"
	same_hops "$name: OpenSM's next engine had OpenSM's own hop matrices"
}
# same_hops DESC: the hop matrices (opensm-lid-matrix.dump) are those OpenSM's minhop built
same_hops() {
	if [ -s "$HOPS" ] && cmp -s "$HOPS" "$dir/opensm-lid-matrix.dump"; then
		ok "$1"
	else
		not_ok "$1"
		diff "$HOPS" "$dir/opensm-lid-matrix.dump" 2>&1 | head -5 | sed 's/^/# /'
	fi
}

# --- 0. reference: OpenSM's own updn tables, and its LIDs (guid2lid) ------
dir=$t_tmp/ref
mkdir -p "$dir"
sim_start "$NET"
( cd "$dir" && osm_env timeout 60 opensm -o -s 0 -R updn -f "$dir/osm.log" -D 0x43 \
	--dump_files_dir "$dir" >"$dir/opensm.out" 2>&1 )
sim_stop
REF=$dir
is "reference: updn configured the switches (no plugin)" \
	"$(count "$REF/osm.log" "updn tables configured on all switches")" 1
# OpenSM's min-hop matrices (updn keeps its own up/down hop counts instead)
dir=$t_tmp/ref-minhop
mkdir -p "$dir"
cp "$REF/guid2lid" "$dir/guid2lid"
sim_start "$NET"
( cd "$dir" && osm_env timeout 60 opensm -o -s 0 -R minhop -f "$dir/osm.log" -D 0x43 \
	--dump_files_dir "$dir" >"$dir/opensm.out" 2>&1 )
sim_stop
HOPS=$dir/opensm-lid-matrix.dump
is "reference: minhop configured the switches (no plugin)" \
	"$(count "$dir/osm.log" "minhop tables configured on all switches")" 1

# --- 1 + 4. the daemon answers with an error; its request is checked ----
new_case error
fake_start --mode error
osm_conf "socket=$dir/d.sock timeout_ms=1000"
osm_once
like "error: the plugin logs the daemon's error and falls back" "$(cat "$dir/osm.log")" \
	"fabroute: fabrouted could not route: fake daemon does not route \(after [0-9]+ ms\); OpenSM's next routing engine routes this pass"
is "error: OpenSM tried the engine fabroute first" "$(count "$dir/osm.log" "fabroute: cannot build fwd tables")" 1
fallback_checks error
out=$("$F" eval --subnet "$dir/opensm-subnet.lst" --fdbs "$dir/opensm.fdbs" 2>&1)
like "error: fabroute eval: what OpenSM programmed is connected" "$out" "connected: all [0-9]+ pairs delivered"
sim_run ibnetdiscover >"$dir/disc.txt" 2>/dev/null
fake_stop
sim_stop
is "request: the subnet holds ibnetdiscover's nodes, switches, links, ports, and OpenSM's LIDs" \
	"$(python3 "$t_tmp/check_subnet.py" "$dir/fake.log" "$dir/disc.txt" "$dir/guid2lid" $NNODES $NSW $NLINKS 2>&1)" ok
like "error: the daemon learns the pass fell back, and why" "$(pass_results)" \
	"^fallback fabrouted could not route: fake daemon does not route$"
is "request: both connections said hello with their role" \
	"$(grep -c '"type": "hello", "role": "\(route\|control\)", "opensm": "OpenSM' "$dir/fake.log")" 2
[ "$(count "$dir/osm.log" "fabroute: .*OpenSM's next")" = 1 ] || show_log

# --- 2. no daemon at all; bad options fall back to defaults --------------
new_case absent
osm_conf "socket=$dir/nobody.sock timeout_ms=5 colour=blue"
osm_once
like "absent: cannot reach fabrouted, OpenSM's next engine routes" "$(cat "$dir/osm.log")" \
	"fabroute: cannot reach fabrouted: connect $dir/nobody.sock: No such file or directory \(after [0-9]+ ms\); OpenSM's next routing engine routes this pass"
fallback_checks absent
ms=$(sed -n "s/.*cannot reach fabrouted.*(after \([0-9]*\) ms).*/\1/p" "$dir/osm.log")
like "absent: the plugin gave up at once (${ms:-?} ms), the whole OpenSM run took ${osm_ms} ms" \
	"${ms:-9999} $osm_ms" "^[0-9]{1,2} [0-9]{1,5}$"
like "absent: a bad timeout_ms is reported and the default kept" "$(cat "$dir/osm.log")" \
	"option timeout_ms='5': expected auto or 100 to 60000; using auto \(by the subnet's size\)"
like "absent: an unknown option is reported" "$(cat "$dir/osm.log")" "unknown option 'colour=blue'"
is "absent: the missing control connection is logged once" \
	"$(count "$dir/osm.log" "no control connection yet")" 1
sim_stop

# --- 3. a daemon that never answers: fallback after timeout_ms -----------
new_case silent
fake_start --mode silent
osm_conf "socket=$dir/d.sock timeout_ms=500"
osm_start
if wait_for "$dir/osm.log" "SUBNET UP" 1 60; then ok "silent: the subnet came up"; else not_ok "silent: the subnet came up"; fi
ms=$(sed -n "s/.*waiting for the routing: timed out (after \([0-9]*\) ms).*/\1/p" "$dir/osm.log")
if [ -n "$ms" ] && [ "$ms" -ge 500 ] && [ "$ms" -lt 1500 ]; then
	ok "silent: the plugin gave up after timeout_ms ($ms ms)"
else
	not_ok "silent: the plugin gave up after timeout_ms (${ms:-no line})"
	show_log
fi
like "silent: the daemon learns the pass timed out" "$(pass_results)" "^timeout waiting for the routing: timed out$"
is "silent: OpenSM's next engine routed" "$(count "$dir/osm.log" "minhop tables configured on all switches")" 1
sleep 1
if kill -0 "$OSM_PID" 2>/dev/null; then ok "silent: OpenSM keeps running"; else not_ok "silent: OpenSM keeps running"; fi
osm_stop
is "silent: OpenSM stops cleanly on SIGTERM" "$osm_st" 0
like "silent: the plugin unloads with its counts" "$(cat "$dir/osm.log")" \
	"fabroute: unloading: 0 passes routed by fabrouted, 1 left to OpenSM"
fake_stop
sim_stop

# --- 5. the daemon answers with tables: the switches hold them ----------
new_case lfts
cp "$REF/guid2lid" "$dir/guid2lid"
fake_start --mode lfts --lfts "$REF/opensm-lfts.dump"
osm_conf "socket=$dir/d.sock"
osm_once
is "lfts: OpenSM says fabroute tables configured" \
	"$(count "$dir/osm.log" "fabroute tables configured on all switches")" 1
like "lfts: the plugin logs epoch, engine and time" "$(cat "$dir/osm.log")" \
	"fabroute: epoch 41 routed by fabrouted's fake: tables of $NSW switches in [0-9]+ ms"
is "lfts: no fallback" "$(count "$dir/osm.log" "cannot build fwd tables|next routing engine")" 0
is "lfts: the daemon learns its tables were installed" "$(pass_results)" "routed epoch 41 by fake"
is "lfts: a routing on SL 0 and VL 0 leaves OpenSM's SL/VL settings alone" \
	"$(count "$dir/osm.log" "the routing uses SLs")" 0
sim_run dump_fts >"$dir/switches.dump" 2>/dev/null
lft_entries "$REF/opensm-lfts.dump" >"$dir/want.t"
lft_entries "$dir/switches.dump" >"$dir/switches.t"
lft_entries "$dir/opensm-lfts.dump" >"$dir/osm.t"
if [ -s "$dir/want.t" ] && cmp -s "$dir/want.t" "$dir/switches.t" && cmp -s "$dir/want.t" "$dir/osm.t"; then
	ok "lfts: the switches hold the daemon's tables ($(wc -l <"$dir/want.t") entries)"
else
	not_ok "lfts: the switches hold the daemon's tables"
	diff "$dir/want.t" "$dir/switches.t" | head -5 | sed 's/^/# /'
	show_log
fi
same_hops "lfts: the hop matrices the plugin filled are those OpenSM builds (multicast reads them)"
lft_entries "$t_tmp/error/opensm-lfts.dump" >"$dir/minhop.t"
if ! cmp -s "$dir/minhop.t" "$dir/switches.t"; then
	ok "lfts: ... which are not what the fallback (minhop) would have programmed"
else
	not_ok "lfts: ... which are not what the fallback (minhop) would have programmed"
fi
fake_stop
sim_stop

# --- 6. control: events out, sweep in, traps, daemon restart -------------
# this case needs ibsim's console (Unlink)
dir=$t_tmp/control
mkdir -p "$dir"
sim_start "$NET" console || diag "ibsim did not start"
fake_start --mode error --sweep-on subnet_up
osm_conf "socket=$dir/d.sock"
osm_start
FL=$dir/fake.log
if wait_for "$FL" '"event": "subnet_up"' 2 60; then
	ok "control: after the daemon's sweep request, a second sweep brought the subnet up"
else
	not_ok "control: after the daemon's sweep request, a second sweep brought the subnet up"
	show_log
fi
is "control: the heavy sweep was requested once and logged" \
	"$(count "$dir/osm.log" "fabroute: fabrouted asks for a heavy sweep")/$(count "$FL" '"sent": "sweep"')" 1/1
is "control: two heavy sweeps, each reported start, done, the pass's result, routing, subnet up" \
	"$(grep -o '"event": "[a-z_]*"' "$FL" | sed 's/"event": //' | tr -d '"' | grep -v state_change | tr '\n' ' ')" \
	"heavy_sweep_start heavy_sweep_done pass_result routing_done subnet_up heavy_sweep_start heavy_sweep_done pass_result routing_done subnet_up "
like "control: the SM state is reported when OpenSM becomes master" \
	"$(grep '"event": "state_change"' "$FL" | tail -1)" '"state": "MASTER"'
like "control: routing_done tells the engine and that it was no reroute" "$(grep routing_done "$FL" | head -1)" \
	'"reroute": false, "engine": "minhop"'
# a link goes down: both switches send trap 128
leaf_lid=$(awk '$1 == "0x0002fab100000001" { print $2 + 0 }' "$dir/guid2lid")
sim_cmd 'Unlink "leaf-00"[3]'
if wait_for "$FL" '"event": "subnet_up"' 3 30; then
	ok "control: the link failure led to a third sweep"
else
	not_ok "control: the link failure led to a third sweep"
fi
like "control: trap 128 reached the daemon, with the switch's LID" "$(grep '"trap"' "$FL")" \
	"\"trap\": 128, \"lid\": [0-9]+, \"port\": 0, \"issuer\": [0-9]+, \"text\": \"Link state change\""
[ -n "$leaf_lid" ] && grep '"trap"' "$FL" | grep -q "\"lid\": $leaf_lid," ||
	diag "no trap from leaf-00 (LID ${leaf_lid:-?}): $(grep '"trap"' "$FL" | head -2)"
# the daemon goes away: logged once; comes back: reconnected at once
fake_stop
sleep 2.5
is "control: losing the daemon is logged once, not every second" \
	"$(count "$dir/osm.log" "control connection lost")" 1
mv "$FL" "$dir/fake1.log"
fake_start --mode error --sweep-on hello
if wait_for "$FL" '"event": "subnet_up"' 1 30; then
	ok "control: the plugin reconnected and the new daemon's sweep ran"
else
	not_ok "control: the plugin reconnected and the new daemon's sweep ran"
	show_log
fi
is "control: the reconnection is logged" "$(count "$dir/osm.log" "control connection to .* up; [0-9]+ events dropped while it was down")" 2
if kill -0 "$OSM_PID" 2>/dev/null; then ok "control: OpenSM is running"; else not_ok "control: OpenSM is running"; fi
osm_stop
is "control: OpenSM stops cleanly (the plugin's thread joined)" "$osm_st" 0
fake_stop
sim_cmd Quit
sim_stop

# --- 7. malformed answers, a daemon of protocol 1 -------------------------
malformed() {
	mode=$1 result=$2 want=$3
	new_case "bad-$mode"
	cp "$REF/guid2lid" "$dir/guid2lid"
	fake_start --mode "$mode" --lfts "$REF/opensm-lfts.dump"
	osm_conf "socket=$dir/d.sock timeout_ms=1000"
	osm_once
	if grep -qE "fabroute: $want \(after [0-9]+ ms\); OpenSM's next routing engine routes this pass" "$dir/osm.log"; then
		ok "$mode: the plugin says why and falls back"
	else
		not_ok "$mode: the plugin says why and falls back"
		show_log
	fi
	fallback_checks "$mode"
	if [ "$result" = - ]; then
		is "$mode: no pass result reaches a daemon of another version" "$(pass_results)" ""
	else
		like "$mode: the daemon learns the pass ended in $result" "$(pass_results)" "^$result $want$"
	fi
	fake_stop
	sim_stop
}
malformed huge error "waiting for the routing: frame of 4294967295 bytes \(1 to 268435456 allowed\)"
malformed garbage error "waiting for the routing: not a message: .*"
malformed badver error "waiting for the routing: peer speaks fabroute-osm protocol 1, this build speaks 3"
malformed wrong-id error "fabrouted answered request 2, expected 1"
malformed missing fallback "fabrouted sent no tables for switch 0x[0-9a-f]{16} \([^)]*\)"
malformed badport fallback "malformed routing: switch 0x[0-9a-f]{16} sends LID 3 to port 200 of [0-9]+"
malformed badvl fallback "malformed routing: switch 0x[0-9a-f]{16} maps \(in 0, out 1, SL 3\) to VL 15 \(0 to 14 allowed\)"
malformed v1 - "hello on the route connection: fabrouted closed the connection at hello \(a fabrouted that speaks another fabroute-osm protocol than version 3 does so\)"

# --- 8. SL2VL tables and path SLs, QoS on -----------------------------------
# The fake daemon answers the updn tables with SL 1 on VL 1 out of odd ports
# (VL 0 out of even ones) and path SL 1 from the first CA to the last.
# OpenSM's own VLArb low table holds only VL 0: the plugin must add VL 1.
new_case vl
cp "$REF/guid2lid" "$dir/guid2lid"
fake_start --mode vl --lfts "$REF/opensm-lfts.dump"
osm_conf "socket=$dir/d.sock" "qos_vlarb_low 0:32" "qos_vlarb_high 0:0"
osm_start -Q
if wait_for "$dir/osm.log" "SUBNET UP" 1 60; then ok "vl: the subnet came up"; else not_ok "vl: the subnet came up"; fi
is "vl: OpenSM says fabroute tables configured" "$(count "$dir/osm.log" "fabroute tables configured on all switches")" 1
like "vl: the plugin takes the SL2VL tables and path SLs" "$(cat "$dir/osm.log")" \
	"fabroute: the routing uses SLs 0,1 and VLs 0,1: OpenSM programs its SL2VL tables \($NSW of $NSW switches not on the default mapping\) and answers its path SLs \(1 sources not on SL 0\)"
is "vl: the daemon learns its tables were installed" "$(pass_results)" "routed epoch 41 by fake"
# opensm-sl2vl.dump: every switch row maps SL 1 to out port % 2, SL s to s mod 8 (ibsim runs VL0-7)
out=$(python3 -c 'import re, sys
rows = bad = 0
sw = False
for line in open(sys.argv[1]):
    if line.startswith("Switch "):
        sw = True
    elif line.startswith(("Channel Adapter", "Router")):
        sw = False
    m = re.match(r"(\d+)\s+(\d+)\s+:((?:\s+\d+){16})\s*$", line)
    if sw and m:
        rows += 1
        vl = [int(x) for x in m.group(3).split()]
        out = int(m.group(2))
        bad += vl != [out % 2 if sl == 1 else sl % 8 for sl in range(16)]
print("%d rows, %d wrong" % (rows, bad))' "$dir/opensm-sl2vl.dump" 2>&1)
like "vl: opensm-sl2vl.dump holds the routing's tables ($out)" "$out" "^[1-9][0-9]* rows, 0 wrong$"
leaf_lid=$(awk '$1 == "0x0002fab100000001" { print $2 + 0 }' "$dir/guid2lid")
# smpquery sl2vl LID OUT: one row per in port, "ports: in N, out M: | 0| 1| ..."
sl1_column() { sim_run smpquery sl2vl "$leaf_lid" "$1" 2>/dev/null | awk -F'|' '/^ports: in/ { printf "%s", $3 + 0 }'; }
is "vl: smpquery sl2vl reads SL 1 on VL 1 out of leaf-00's port 1, from every in port" "$(sl1_column 1)" 11111
is "vl: ... and SL 1 on VL 0 out of its port 2" "$(sl1_column 2)" 00000
pair=$(python3 -c 'import json, sys
print(*[json.loads(l)["msg"]["vl_pair"] for l in open(sys.argv[1]) if "vl_pair" in l][-1])' "$dir/fake.log")
set -- $pair
sa_sl() { sim_run saquery -p --src-to-dst "$1:$2" 2>/dev/null | sed -n 's/^[[:space:]]*sl\.*\(0x[0-9a-fA-F]*\).*/\1/p'; }
is "vl: saquery -p answers the routing's SL 1 for LID $1 to LID $2" "$(sa_sl "$1" "$2")" 0x1
is "vl: ... and SL 0 the other way" "$(sa_sl "$2" "$1")" 0x0
vlarb=$(sim_run smpquery vlarb "$leaf_lid" 3 2>/dev/null | awk -F'|' '
	/Low priority/ { low = 1; next } /High priority/ { low = 0 }
	low && /^VL/ { for (i = 2; i < NF; i++) vl[i] = $i + 0 }
	low && /^WEIGHT/ { for (i = 2; i < NF; i++) if (vl[i] == 1 && $i !~ /0x0 *$/) print "VL1 weighted" }')
is "vl: smpquery vlarb: VL 1 has weight in the low-priority table OpenSM configured with VL 0 only" \
	"$(echo "$vlarb" | head -1)" "VL1 weighted"
osm_stop
is "vl: OpenSM stops cleanly" "$osm_st" 0
fake_stop
sim_stop

# --- 9. the same routing when OpenSM cannot program it --------------------
vl_refused() {
	name=$1 want=$2
	shift 2
	new_case "$name"
	cp "$REF/guid2lid" "$dir/guid2lid"
	fake_start --mode vl --lfts "$REF/opensm-lfts.dump"
	osm_conf "socket=$dir/d.sock" "$@"
	osm_once $osm_args
	if grep -qE "fabroute: $want \(after [0-9]+ ms\); OpenSM's next routing engine routes this pass" "$dir/osm.log"; then
		ok "$name: the plugin refuses the routing, says why and falls back"
	else
		not_ok "$name: the plugin refuses the routing, says why and falls back"
		show_log
	fi
	fallback_checks "$name"
	like "$name: the daemon gets the refusal and its reason" "$(pass_results)" "^fallback $want$"
	is "$name: no SL2VL state installed" "$(count "$dir/osm.log" "the routing uses SLs 0,1 and VLs 0,1: OpenSM programs")" 0
	fake_stop
	sim_stop
}
osm_args=
vl_refused qos-off "the routing uses SLs 0,1 and VLs 0,1, but OpenSM's QoS is off, so OpenSM would program no SL2VL tables: start OpenSM with -Q \(qos TRUE\)"
osm_args=-Q
vl_refused one-vl "switch 0x[0-9a-f]{16} \([^)]*\) port [0-9]+ runs 1 data VL, but the routing sends SL 1 from port [0-9]+ out of it on VL 1" \
	"max_op_vls 1"

done_testing
