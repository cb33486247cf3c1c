#!/bin/sh
# fabroute as OpenSM's routing engine, end to end: ibsim simulating a fat
# tree, real OpenSM with the fabroute-osm plugin, fabrouted --source opensm.
# - the switches' LFTs (dump_fts) equal the tables fabrouted published
#   (GET /api/lfts) and stored; the read-back finds no drift; ibdmchk finds
#   no credit loop in OpenSM's dumps;
# - Unlink in ibsim: trap -> OpenSM sweep -> fabrouted reroutes -> new tables
#   in the switches, every pair reachable, events stored; ReLink restores
#   the original tables;
# - fabrouted killed: OpenSM's next engine routes the next sweep and the
#   subnet stays up; fabrouted back: it routes the next sweep;
# - POST /api/engine re-routes the live fabric with the new chain.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
. "$top_srcdir/tests/sim/osm_lib.sh"

cd "$t_tmp" || exit 1
"$FABROUTE" gen kary-ntree k=4 n=2 -f ibsim -o t.net
sim_start "$t_tmp/t.net" console || { not_ok "ibsim starts"; done_testing; }
sock=$t_tmp/osm.sock
FABROUTED_WRAPPER="env LD_PRELOAD=$UMAD2SIM" \
	d_start e --source opensm --socket "$sock" --engine sftree,updn --readback-interval-s 0 \
	--readback-timeout-ms 500 --api-write-rate-limit 0 || { not_ok "fabrouted starts"; done_testing; }
ok "fabrouted --source opensm starts"

cat >osm.conf <<EOC
event_plugin_name fabroute-osm
event_plugin_options socket=$sock timeout_ms=3000
routing_engine updn
EOC
# wait_readback: until a read-back of the current epoch is done
wait_readback() {
	i=0
	while :; do
		api GET /api/fabric
		[ "$(jf .readback.epoch)" = "$(jf .epoch.seq)" ] && [ "$(jf .readback.time_ms)" != null ] && return 0
		i=$((i + 1))
		[ $i -gt 100 ] && return 1
		sleep 0.1
	done
}

osm_start
wait_log "SUBNET UP" 1 && ok "OpenSM brings the subnet up" || not_ok "OpenSM brings the subnet up"
like "OpenSM routed with fabroute" "$(grep 'tables configured' osm.log)" "fabroute tables configured"
api GET /api/fabric
is "fabrouted published OpenSM's fabric (reason opensm)" "$(jf .epoch.reason)" opensm
is "sftree routed it" "$(jf .epoch.engine)" sftree
same_tables "the switches' LFTs (dump_fts) equal fabrouted's (GET /api/lfts)"
lft_entries opensm-lfts.dump >osm.txt
cmp -s osm.txt ours.txt && ok "OpenSM's own dump holds fabrouted's tables" || not_ok "OpenSM's own dump holds fabrouted's tables"
wait_readback && ok "fabrouted read the tables back" || not_ok "fabrouted read the tables back"
is "read-back: no drift" "$(jf .readback.entries_drifting)" 0
is "read-back: every switch answered" "$(jf .readback.switches_read)" "$(jf .switches)"
api GET /api/ready
is "ready: connected, deadlock-free, programmed as computed" "$code" 200
if command -v ibdmchk >/dev/null 2>&1; then
	timeout 60 ibdmchk -s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs >ibdmchk.out 2>&1
	like "ibdmchk: no credit loop" "$(cat ibdmchk.out)" "no credit loops found"
fi
# traced SRC DST: ibtracert (SMPs to the simulated switches) follows the path GET /api/route gives
traced() {
	api GET "/api/route?src=$1&dst=$2"
	ours=$(jf '[.hops[] | "\(.node):\(.in_port)"] | join(" ")')
	sim_run ibtracert "$(jf .src.lid)" "$(jf .dlid)" >tr.out 2>&1
	theirs=$(sed -n 's/.*-> switch port {[^}]*}\[\([0-9]*\)\].*"\([^"]*\)".*/\2:\1/p' tr.out | tr '\n' ' ')
	is "ibtracert $1 -> $2 crosses the switches fabroute says, by the same ports" "${theirs% }" "$ours"
}
traced node-00 node-15
traced node-03 node-12
orig=$t_tmp/orig.txt
cp ours.txt "$orig"
api GET /api/snapshots
is "the epoch is stored" "$(jf '.snapshots[0].reason')" opensm

# --- a link goes down and comes back ---------------------------------------------
seq0=$(curl -s "$D_URL/api/fabric" | jq .epoch.seq)
link='"leaf-00"[5]'	# leaf-00 to spine-00
diag "taking down $link"
sim_cmd "Unlink $link"
d_wait_epoch $((seq0 + 1)) && ok "Unlink: fabrouted rerouted" || not_ok "Unlink: fabrouted rerouted"
api GET "/api/events?type=trap"
[ "$(jf '.events | length')" -ge 1 ] && ok "Unlink: the trap reached fabrouted" || not_ok "Unlink: the trap reached fabrouted"
like "Unlink: the trap is stored with OpenSM's name for it and the switch it came from" \
	"$(jf '[.events[].message] | join("\n")')" "trap 128 link state change: (leaf-00|spine-00)"
api GET "/api/events?type=opensm"
like "Unlink: routing_done counts the switches whose tables changed, in plain words" \
	"$(jf '[.events[] | select(.details.event == "routing_done") | .message] | join("\n")')" \
	"OpenSM routing done: epoch [0-9]+ \([a-z]+\) installed, [0-9]+ LFT blocks on [1-9][0-9]* switches changed"
rd_blocks=$(jf "[.events[] | select(.details.event == \"routing_done\" and .details.epoch == $((seq0 + 1)))][0].details | \"\(.lft_blocks_changed) \(.switches_changed)\"")
api GET "/api/events?type=repair"
is "Unlink: routing_done and the repair event give the same counts (one source)" "$rd_blocks" \
	"$(jf '.events[-1].details.changed | "\(.blocks) \(.switches)"')"
like "  the repair event's own words say the same" "$(jf '.events[-1].message')" " in ${rd_blocks% *} blocks on ${rd_blocks#* } switches "
api GET /api/connectivity
is "Unlink: every pair reachable, switches included" "$(jf .connected)" true
wait_log "SUBNET UP" 2
sleep 0.5
same_tables "Unlink: the switches hold the new tables"
wait_readback && ok "Unlink: the read-back of the new epoch, after SUBNET UP" ||
	not_ok "Unlink: the read-back of the new epoch, after SUBNET UP"
is "Unlink: read-back: every switch, no drift" "$(jf '.readback.switches_read == .switches and .readback.entries_drifting == 0')" true
is "Unlink: the read-back read only the blocks the pass changed" \
	"$(jf '.readback.blocks_read > 0 and .readback.blocks_read < .switches * (.lid_top / 64 | floor + 1)')" true
api GET /api/ready
is "Unlink: /api/ready and fabroute_ready agree (200, 1)" \
	"$code/$(curl -s "$D_URL/metrics" | sed -n 's/^fabroute_ready //p')" 200/1
cmp -s ours.txt "$orig" && not_ok "Unlink: the tables changed" || ok "Unlink: the tables changed"
seq1=$(curl -s "$D_URL/api/fabric" | jq .epoch.seq)
sim_cmd "ReLink $link"
d_wait_epoch $((seq1 + 1)) && ok "ReLink: fabrouted rerouted" || not_ok "ReLink: fabrouted rerouted"
wait_log "SUBNET UP" 3
sleep 0.5
same_tables "ReLink: the switches hold fabrouted's tables"
cmp -s ours.txt "$orig" && ok "ReLink: the original tables are back" || not_ok "ReLink: the original tables are back"
api GET /metrics
passes=$(printf '%s\n' "$body" | sed -n 's/^fabroute_osm_passes_total{result="routed"} //p')
[ "${passes:-0}" -ge 3 ] && ok "metrics: the plugin reported its routed passes ($passes)" ||
	not_ok "metrics: the plugin reported its routed passes (${passes:-none})"
like "metrics: no pass fell back" "$body" 'fabroute_osm_passes_total\{result="fallback"\} 0'
like "metrics: the plugin is connected" "$body" "fabroute_osm_connected 1"

# --- fabrouted away, and back ---------------------------------------------------
d_stop
configured=$(grep -c "fabroute tables configured" osm.log)
kill -HUP "$OSM_PID"
wait_log "OpenSM's next routing engine routes" 1 && ok "fabrouted away: the plugin steps aside" ||
	not_ok "fabrouted away: the plugin steps aside"
wait_log "updn tables configured" 1 && ok "fabrouted away: OpenSM's updn routes the sweep" ||
	not_ok "fabrouted away: OpenSM's updn routes the sweep"
sim_run dump_fts >hw.dump 2>/dev/null
lft_entries hw.dump >hw.txt
[ -s hw.txt ] && ok "fabrouted away: the switches still route" || not_ok "fabrouted away: the switches still route"
FABROUTED_WRAPPER="env LD_PRELOAD=$UMAD2SIM" \
	d_start e --source opensm --socket "$sock" --engine sftree,updn --readback-interval-s 0 \
	--readback-timeout-ms 500 --api-write-rate-limit 0 --readback-ca no-such-hca
sleep 1.5	# the plugin's control connection comes back within a second
kill -HUP "$OSM_PID"
wait_log "fabroute tables configured" $((configured + 1)) && ok "fabrouted back: it routes the next sweep" ||
	not_ok "fabrouted back: it routes the next sweep"
wait_readback
like "a read-back that cannot reach the switches says why" "$(jf .readback.error)" "cannot open the MAD port no-such-hca"
api GET /api/ready
is "  and does not fail readiness: /api/ready 200, fabroute_ready 1" \
	"$code/$(curl -s "$D_URL/metrics" | sed -n 's/^fabroute_ready //p')" 200/1
like "  /api/ready notes it" "$(jf '.notes | join(" ")')" "read-back: cannot open the MAD port"
is "  and claims no programmed_matches it could not check" "$(jf '.checks | has("programmed_matches")')" false

# --- another engine chain through the API ------------------------------------------
seq2=$(curl -s "$D_URL/api/fabric" | jq .epoch.seq)
api POST /api/engine '{"chain":"updn"}'
is "engine: accepted" "$code" 202
d_wait_epoch $((seq2 + 1))
api GET /api/fabric
is "engine: updn routed OpenSM's pass" "$(jf .epoch.engine)" updn
sleep 1
same_tables "engine: the switches hold the updn tables fabrouted published"

kill "$OSM_PID" 2>/dev/null
wait "$OSM_PID" 2>/dev/null
d_stop
is "fabrouted stops cleanly" "$D_STATUS" 0
done_testing
