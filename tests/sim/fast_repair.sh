#!/bin/sh
# The fast repair end to end: ibsim simulating the 648-port fat tree, real
# OpenSM with the fabroute-osm plugin, fabrouted --source opensm with its
# defaults (repair = ftdlr, fast_repair = 1). OpenSM runs with
# sweep_on_trap FALSE, so after an Unlink only fabrouted's fast path can
# change the switches until the test asks OpenSM for a heavy sweep (SIGHUP):
# - Unlink of a leaf-spine link: a repair_fast event; the tables read back
#   from every switch (dump_fts, SMPs of its own) equal the repair fabrouted
#   published, no entry of the two end switches points at the dead ports,
#   and they differ from the base only on a few switches;
# - OpenSM's heavy sweep then gets the same tables from fabrouted: the
#   switches hold the same entries after it;
# - ReLink and a heavy sweep: the base's tables again, byte for byte;
# - leaf-00 to spine-01, where fabrouted's port is: the route to spine-01
#   crosses the dead link, the probe goes around it;
# - a CA link (leaf to node): no other path leads to the node, the repair
#   changes no entry and the fast path writes no block;
# - once OpenSM has installed its own engine's tables (fabrouted's chain does
#   not apply: OpenSM falls back), the fast path writes nothing over them.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
. "$top_srcdir/tests/sim/osm_lib.sh"

cd "$t_tmp" || exit 1
"$FABROUTE" gen ft648 -f ibsim -o t.net
sim_start "$t_tmp/t.net" console || { not_ok "ibsim starts"; done_testing; }
sock=$t_tmp/osm.sock
FABROUTED_WRAPPER="env LD_PRELOAD=$UMAD2SIM" \
	d_start e --source opensm --socket "$sock" --engine sftree,updn --readback 0 --fast-repair-timeout-ms 1000 \
	--rebalance-delay-s 0 --api-write-rate-limit 0 || { not_ok "fabrouted starts"; done_testing; }
cat >osm.conf <<EOC
event_plugin_name fabroute-osm
event_plugin_options socket=$sock timeout_ms=5000
routing_engine updn
sweep_on_trap FALSE
EOC
( cd "$t_tmp" && LD_PRELOAD=$UMAD2SIM LD_LIBRARY_PATH=$plugdir OSM_CACHE_DIR=$t_tmp OSM_TMP_DIR=$t_tmp \
	exec opensm -F "$t_tmp/osm.conf" -s 0 -d 2 -f "$t_tmp/osm.log" >"$t_tmp/osm.out" 2>&1 ) &
OSM_PID=$!
t_sim_pids="$OSM_PID $t_sim_pids"

# wait_up N: until OpenSM's log holds N "SUBNET UP" lines
wait_up() {
	i=0
	while n=$(grep -c "SUBNET UP" osm.log 2>/dev/null); [ "${n:-0}" -lt "$1" ]; do
		i=$((i + 1))
		[ $i -gt 600 ] && { diag "no SUBNET UP (x$1) in OpenSM's log"; return 1; }
		sleep 0.1
	done
}
# read_switches FILE: every switch's LFT as the switches hold it, one entry a line
read_switches() { sim_run dump_fts >hw.dump 2>/dev/null; lft_entries hw.dump >"$1"; }
# published FILE: the entries of the published epoch
published() { api GET /api/lfts; printf '%s\n' "$body" >pub.dump; lft_entries pub.dump >"$1"; }
# wait_fast N: until N repair_fast events are stored; $body holds them
wait_fast() {
	i=0
	while api GET "/api/events?type=repair_fast"; [ "$(jf '.events | length')" -lt "$1" ]; do
		i=$((i + 1))
		[ $i -gt 200 ] && { diag "no repair_fast event (x$1)"; return 1; }
		sleep 0.05
	done
}
# differ A B: "entries switches": the (switch, LID) entries that differ between two entry lists
differ() {
	LC_ALL=C comm -3 "$1" "$2" | awk '{ print $1, $2 }' | sort -u |
		awk '{ e++; if (!($1 in s)) { s[$1] = 1; n++ } } END { print e + 0, n + 0 }'
}

wait_up 1 && ok "OpenSM brings the subnet up with fabroute" || not_ok "OpenSM brings the subnet up with fabroute"
published base.txt
read_switches hw0.txt
cmp -s base.txt hw0.txt && ok "the switches hold the base" || not_ok "the switches hold the base"
api GET "/api/nodes?type=SW"
leaf=$(jf '.nodes[] | select(.desc == "leaf-03") | .guid')
spine=$(jf '.nodes[] | select(.desc == "spine-01") | .guid')

# --- Unlink: the fast path alone ------------------------------------------------
diag "Unlink \"leaf-03\"[20] (to spine-01), sweep_on_trap FALSE"
sim_cmd 'Unlink "leaf-03"[20]'
wait_fast 1 && ok "Unlink: a repair_fast event" || not_ok "Unlink: a repair_fast event"
like "  it wrote the repair" "$(jf '.events[0].message')" "fast repair written, [0-9]+ LFT blocks on [0-9]+ switches"
like "  it names the dead port (the trap of either end)" "$(jf '.events[0].details.dead | map("\(.node):\(.port)") | join(" ")')" "leaf-03:20|spine-01:4"
diag "$(jf '.events[0].message')"
# the writer: one figure per step, and at least an SMP per block written and per port queried
is "  its phases give one write time per step" "$(jf '.events[0].details | (.phases.write_ms | length) == .steps')" true
is "  it counts its SMPs (the blocks and the port queries at least)" \
	"$(jf '.events[0].details | .phases.smps >= .blocks + 2')" true
read_switches hw1.txt
published rep.txt
cmp -s hw1.txt rep.txt && ok "the switches hold the published repair before OpenSM sweeps" ||
	{ not_ok "the switches hold the published repair before OpenSM sweeps"; diff rep.txt hw1.txt | head | sed 's/^/# /'; }
dead=$(awk -v l="$leaf" -v s="$spine" '($1 == l && $3 == 20) || ($1 == s && $3 == 4)' hw1.txt | wc -l)
is "no entry of the end switches points at the dead ports" "$dead" 0
set -- $(differ base.txt hw1.txt)
[ "$2" -ge 1 ] && [ "$2" -le 4 ] && ok "local: $1 entries on $2 switches changed" ||
	not_ok "local: $1 entries on $2 switches changed"
n=$(grep -c "SUBNET UP" osm.log)
is "OpenSM did not sweep" "$n" 1
api GET /metrics
like "metrics: fabroute_repair_seconds counts it" "$body" 'fabroute_repair_seconds_count 1'

# --- OpenSM's heavy sweep installs the same tables ---------------------------------------
kill -HUP "$OSM_PID"
wait_up 2 && ok "a heavy sweep (SIGHUP) brings the subnet up" || not_ok "a heavy sweep (SIGHUP) brings the subnet up"
like "OpenSM routed it with fabroute" "$(grep 'tables configured' osm.log | tail -1)" "fabroute tables configured"
read_switches hw2.txt
cmp -s hw1.txt hw2.txt && ok "the sweep changed no entry" ||
	{ not_ok "the sweep changed no entry"; diff hw1.txt hw2.txt | head | sed 's/^/# /'; }

# --- ReLink: the base again -----------------------------------------------------------
sim_cmd 'ReLink "leaf-03"[20]'
sleep 1
kill -HUP "$OSM_PID"
wait_up 3 && ok "ReLink and a heavy sweep" || not_ok "ReLink and a heavy sweep"
read_switches hw3.txt
cmp -s base.txt hw3.txt && ok "ReLink: the base's tables byte for byte" ||
	{ not_ok "ReLink: the base's tables byte for byte"; diff base.txt hw3.txt | head | sed 's/^/# /'; }

# --- the route to a trap's switch crosses the dead link ----------------------------------
# fabrouted's port is on leaf-00: its route to spine-01 leaves by leaf-00's port 20
sim_cmd 'Unlink "leaf-00"[20]'
wait_fast 2 && ok "leaf-00 to spine-01: a repair_fast event" || not_ok "leaf-00 to spine-01: a repair_fast event"
like "  it found the dead port around the dead link" "$(jf '.events[-1].message')" "fast repair written, [1-9][0-9]* LFT blocks"
read_switches hw7.txt
published rep7.txt
cmp -s hw7.txt rep7.txt && ok "  the switches hold the repair" || not_ok "  the switches hold the repair"

# --- a CA link: nothing to write ---------------------------------------------------------
sim_cmd 'Unlink "leaf-05"[1]'
wait_fast 3 && ok "CA link: a repair_fast event" || not_ok "CA link: a repair_fast event"
like "  it writes no block" "$(jf '.events[-1].message')" "fast repair written, 0 LFT blocks on 0 switches"
read_switches hw4.txt
cmp -s hw7.txt hw4.txt && ok "CA link: the switches keep their tables" || not_ok "CA link: the switches keep their tables"

# --- OpenSM's own tables in the switches: nothing written over them -------------------------
api POST /api/engine '{"chain":"dla"}'	# not a dragonfly: no engine of the chain applies
is "engine dla: accepted" "$code" 202
i=0
while api GET "/api/events?type=opensm"; ! jf '[.events[].message] | join("\n")' | grep -q "pass fallback"; do
	i=$((i + 1)); [ $i -gt 200 ] && break; sleep 0.05
done
like "OpenSM falls back to its own engine" "$(jf '[.events[].message] | join(" ")')" "OpenSM routing pass fallback"
sleep 1	# OpenSM writes its engine's tables after the pass
read_switches hw5.txt
sim_cmd 'Unlink "leaf-07"[22]'
wait_fast 4 && ok "OpenSM's tables: a repair_fast event" || not_ok "OpenSM's tables: a repair_fast event"
like "  it writes nothing over tables it did not install" "$(jf '.events[-1].message')" "no fast repair \(the switches do not hold epoch"
read_switches hw6.txt
cmp -s hw5.txt hw6.txt && ok "OpenSM's tables: unchanged" || not_ok "OpenSM's tables: unchanged"

kill "$OSM_PID" 2>/dev/null
wait "$OSM_PID" 2>/dev/null
d_stop
is "fabrouted stops cleanly" "$D_STATUS" 0
done_testing
