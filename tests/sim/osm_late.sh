#!/bin/sh
# A late answer never becomes the truth: ibsim simulating a fat tree, real
# OpenSM with the fabroute-osm plugin (timeout_ms=500), fabrouted
# --source opensm.
# - fabrouted frozen (SIGSTOP) while OpenSM sweeps: the plugin gives up,
#   OpenSM's updn routes the pass; fabrouted thawed answers too late, and
#   that answer is never published: the epoch the switches held stays
#   current until the read-back has taken what OpenSM installed, which
#   becomes the current epoch (reason fallback, engine opensm), with no
#   drift and /api/ready 200; an event says why, the timeout is counted;
# - the next pass is fabroute's again: its epoch is current and the switches
#   hold exactly its tables.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
. "$top_srcdir/tests/sim/osm_lib.sh"

cd "$t_tmp" || exit 1
"$FABROUTE" gen kary-ntree k=4 n=2 -f ibsim -o t.net
sim_start "$t_tmp/t.net" || { not_ok "ibsim starts"; done_testing; }
sock=$t_tmp/osm.sock
FABROUTED_WRAPPER="env LD_PRELOAD=$UMAD2SIM" \
	d_start e --source opensm --socket "$sock" --engine sftree,updn --readback-interval-s 0 \
	--readback-timeout-ms 500 --fast-repair 0 --api-write-rate-limit 0 || { not_ok "fabrouted starts"; done_testing; }

cat >osm.conf <<EOC
event_plugin_name fabroute-osm
event_plugin_options socket=$sock timeout_ms=500
routing_engine updn
EOC
osm_start

wait_log "SUBNET UP" 1 && wait_log "fabroute tables configured" 1 ||
	{ not_ok "OpenSM routes with fabroute"; done_testing; }
d_wait_epoch 1 && ok "OpenSM's first pass: fabroute's answer installed, then published" ||
	not_ok "OpenSM's first pass: fabroute's answer installed, then published"
api GET /api/fabric
seq0=$(jf .epoch.seq)
is "it is sftree's" "$(jf .epoch.engine)" sftree
same_tables "the switches hold the current epoch"

# --- fabrouted late ---------------------------------------------------------------
updn=$(grep -c "updn tables configured" osm.log)
kill -STOP "$D_PID"
sim_cmd "Unlink \"leaf-00\"[5]"	# a change, so that OpenSM's engine computes other tables
kill -HUP "$OSM_PID"
wait_log "updn tables configured" $((updn + 1)) && ok "frozen fabrouted: OpenSM's updn routes the pass" ||
	not_ok "frozen fabrouted: OpenSM's updn routes the pass"
kill -CONT "$D_PID"
# every epoch seen current from now until OpenSM's tables are published
seen=""
i=0
while api GET /api/fabric; [ "$(jf .epoch.reason)" != fallback ]; do
	seen="$seen $(jf .epoch.seq)"
	i=$((i + 1))
	[ $i -gt 200 ] && break
	sleep 0.05
done
is "the current epoch becomes OpenSM's own engine's tables" "$(jf .epoch.reason) $(jf .epoch.engine)" "fallback opensm"
fb=$(jf .epoch.seq)
api GET "/api/events?type=error"
like "the late answer is dropped, and the event says why" "$(jf '[.events[].message] | join("\n")')" \
	"epoch [0-9]+ not installed: OpenSM routed the pass with its own engine"
late=$(jf '[.events[] | select(.message | test("not installed")) | .details.epoch][0]')
is "until then, the epoch before stayed current" "$(echo $seen | tr ' ' '\n' | sort -u | tr '\n' ' ')" "$seq0 "
api GET "/api/snapshots"
is "the late epoch ($late) was never stored" "$(jf "[.snapshots[] | select(.seq == ${late:-0})] | length")" 0
api GET "/api/events?type=reroute"
like "the fallback epoch's event says where its tables come from" "$(jf '[.events[].message] | join("\n")')" \
	"epoch $fb: OpenSM's own engine routed the pass \\(fallback\\), its tables read back from the switches"
same_tables "the switches hold the current epoch: OpenSM's updn tables"
i=0
while api GET /api/fabric; [ "$(jf .readback.epoch)" != "$fb" ] || [ "$(jf .readback.time_ms)" = null ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && break
	sleep 0.1
done
is "read-back of the fallback epoch: no drift" "$(jf .readback.entries_drifting)" 0
api GET /api/ready
is "ready: the switches hold what the current epoch says" "$(jf .checks.programmed_matches)" true
# OpenSM's updn cannot take spine-00 down to leaf-00 without the cable: the
# fallback's own evaluation says so, and /api/ready with it
like "ready judges the fallback by its own evaluation" "$code $(jf '.failing | join(" ")')" \
	"^503 sw-sw: [0-9]+ of [0-9]+ pairs unreachable$"
api GET /metrics
like "the timed-out pass is counted" "$body" 'fabroute_osm_passes_total\{result="timeout"\} 1'
like "fabrouted logged the drop" "$(cat "$D_LOG.new")" "epoch $late not installed"

# --- and back -------------------------------------------------------------------------
configured=$(grep -c "fabroute tables configured" osm.log)
kill -HUP "$OSM_PID"
wait_log "fabroute tables configured" $((configured + 1)) && ok "the next pass is fabroute's" ||
	not_ok "the next pass is fabroute's"
d_wait_epoch $((fb + 1)) && ok "its epoch is published once installed" ||
	not_ok "its epoch is published once installed"
sleep 0.5
same_tables "the switches hold the current epoch again"

kill "$OSM_PID" 2>/dev/null
wait "$OSM_PID" 2>/dev/null
d_stop
is "fabrouted stops cleanly" "$D_STATUS" 0
done_testing
