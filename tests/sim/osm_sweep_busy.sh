#!/bin/sh
# A sweep fabrouted asks for while OpenSM is sweeping is kept: ibsim
# simulating a fat tree, real OpenSM (no periodic sweep, -s 0) with the
# fabroute-osm plugin, fabrouted --source opensm. OpenSM's sweep is held at a
# known point by freezing (SIGSTOP) fabrouted, which OpenSM's routing pass
# waits for, or the simulator, whose answers OpenSM's sweep waits for (it
# times nothing out); POST /api/engine then asks for a heavy sweep:
# - during OpenSM's first sweep, its routing pass answered with the old chain
#   and its tables not yet written: once the sweep ends, OpenSM sweeps once
#   more and the new chain routes the subnet;
# - while a heavy sweep discovers the subnet: OpenSM discovers it again and
#   the new chain routes that sweep's pass;
# each time within seconds, in exactly one more routing pass (no loop of
# sweeps), and the switches' LFTs (dump_fts) hold the new epoch's tables;
# - POST /api/reroute while a heavy sweep waits for the simulator for longer
#   than the plugin's 10 s: an event says the sweep asked for has not begun,
#   with OpenSM's state and the SMPs it awaits; thawed, the pass follows.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
. "$top_srcdir/tests/sim/osm_lib.sh"

cd "$t_tmp" || exit 1
"$FABROUTE" gen kary-ntree k=4 n=2 -f ibsim -o t.net
sim_start "$t_tmp/t.net" || { not_ok "ibsim starts"; done_testing; }
sock=$t_tmp/osm.sock
FABROUTED_WRAPPER="env LD_PRELOAD=$UMAD2SIM" \
	d_start e --source opensm --socket "$sock" --engine updn --readback-interval-s 0 \
	--fast-repair 0 --api-write-rate-limit 0 || { not_ok "fabrouted starts"; done_testing; }
cat >osm.conf <<EOC
event_plugin_name fabroute-osm
event_plugin_options socket=$sock timeout_ms=30000
routing_engine updn
EOC
# whatever happens, nothing stays frozen
trap 'kill -CONT "$D_PID" "$SIM_PID" 2>/dev/null; d_cleanup' EXIT INT TERM

# passes: routing passes fabrouted answered, as the plugin logs them
passes() { grep -c "routed by fabrouted's" osm.log; }
# routed_with CHAIN: until the current epoch is CHAIN's (10 s)
routed_with() {
	i=0
	while api GET /api/fabric; [ "$(jf .epoch.chain)" != "$1" ]; do
		i=$((i + 1)); [ $i -gt 100 ] && return 1; sleep 0.1
	done
}
# control_up: until the plugin's control connection is up (10 s)
control_up() {
	i=0
	while api GET /api/health; [ "$(jf .source.control_connections)" != 1 ]; do
		i=$((i + 1)); [ $i -gt 100 ] && return 1; sleep 0.1
	done
}
# settled N: no routing pass but the N seen, 2 s after the last
settled() { sleep 2; is "  in exactly one more routing pass ($1 in all)" "$(passes)" "$1"; }

# --- during OpenSM's first sweep, after its routing pass -------------------------------------
kill -STOP "$D_PID"
osm_start -D 0x47	# verbose: OpenSM's phases
wait_log "STARTING SWITCH TABLE CONFIG" 1 || { not_ok "OpenSM's first sweep reaches its routing pass"; done_testing; }
kill -STOP "$SIM_PID"	# the tables OpenSM writes wait: the sweep stays under way
kill -CONT "$D_PID"
wait_log "routed by fabrouted's updn" 1 && ok "OpenSM's first routing pass: updn's answer installed" ||
	not_ok "OpenSM's first routing pass: updn's answer installed"
control_up || diag "no control connection: $body"
api POST /api/engine '{"chain":"sftree,updn"}'
is "POST /api/engine during OpenSM's first sweep: 202" "$code" 202
wait_log "fabrouted asks for a heavy sweep" 1 && ok "  the plugin asks OpenSM for a heavy sweep" ||
	not_ok "  the plugin asks OpenSM for a heavy sweep"
is "  while the first sweep is under way (no SUBNET UP yet)" "$(grep -c 'SUBNET UP' osm.log)" 0
kill -CONT "$SIM_PID"
routed_with sftree,updn && ok "the new chain routes the subnet once the first sweep is over" ||
	not_ok "the new chain routes the subnet once the first sweep is over"
is "  by sftree" "$(jf .epoch.engine)" sftree
settled 2
same_tables "  the switches hold its tables"

# --- while a heavy sweep discovers the subnet ------------------------------------------------
sweeps=$(grep -c "INITIATING HEAVY SWEEP" osm.log)
kill -STOP "$SIM_PID"	# the sweep's first SMP waits: the sweep stays in its discovery
kill -HUP "$OSM_PID"	# OpenSM's own heavy sweep
wait_log "INITIATING HEAVY SWEEP" $((sweeps + 1)) || not_ok "SIGHUP starts a heavy sweep"
api POST /api/engine '{"chain":"minhop"}'
is "POST /api/engine while a heavy sweep discovers the subnet: 202" "$code" 202
wait_log "fabrouted asks for a heavy sweep" 2 && ok "  the plugin asks OpenSM for a heavy sweep" ||
	not_ok "  the plugin asks OpenSM for a heavy sweep"
kill -CONT "$SIM_PID"
routed_with minhop && ok "the new chain routes that sweep's pass" || not_ok "the new chain routes that sweep's pass"
settled 3
same_tables "  the switches hold its tables"
is "no routing pass left to OpenSM's own engine" "$(grep -c 'tables configured on all switches' osm.log)" \
	"$(grep -c 'fabroute tables configured on all switches' osm.log)"

# --- a sweep that does not end: the one asked for is said to be late --------------------------
sweeps=$(grep -c "INITIATING HEAVY SWEEP" osm.log)
kill -STOP "$SIM_PID"
kill -HUP "$OSM_PID"
wait_log "INITIATING HEAVY SWEEP" $((sweeps + 1)) || not_ok "SIGHUP starts a heavy sweep"
api POST /api/reroute
is "POST /api/reroute while a heavy sweep waits for the simulator: 202" "$code" 202
late="OpenSM has not begun the heavy sweep fabrouted asked for 1[0-9] s ago: OpenSM is MASTER, SMPs awaiting an answer: [1-9]"
i=0
while api GET "/api/events?type=opensm&limit=1000"; ! jf '.events[].message' | grep -Eq "$late"; do
	i=$((i + 1)); [ $i -gt 250 ] && break; sleep 0.1
done
like "  10 s later an event says it has not begun, and why" "$(jf '.events[].message')" "$late"
kill -CONT "$SIM_PID"
wait_log "the heavy sweep fabrouted asked for has begun" 1 && ok "  thawed, it begins (OpenSM's log says so)" ||
	not_ok "  thawed, it begins (OpenSM's log says so)"
settled 4

kill "$OSM_PID"
d_stop
is "fabrouted stops cleanly" "$D_STATUS" 0
done_testing
