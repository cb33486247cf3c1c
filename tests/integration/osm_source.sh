#!/bin/sh
# fabrouted --source opensm against a script playing the plugin
# (doc/osm-protocol.md, version 3): a subnet in, the right LFTs out
# (binary), published once the plugin says it installed them, never when
# it gave up on them; epochs and events stored (traps named, LFT changes summed up by
# distinct switch, pass results counted for /metrics); malformed frames
# rejected without harm; a plugin of protocol 1 refused with one log line;
# sweep requests from POST /api/reroute. The real plugin under OpenSM:
# tests/sim/.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed to play the plugin"
play() { timeout 60 python3 "$top_srcdir/tests/integration/osm_source.py" "$sock" "$1"; }

sock=$t_tmp/osm.sock
d_start o --source opensm --socket "$sock" --engine minhop || { not_ok "fabrouted starts"; done_testing; }
ok "fabrouted --source opensm starts"
[ -S "$sock" ] && ok "it listens on the socket" || not_ok "it listens on the socket"
api GET /api/ready
is "ready: 503 before OpenSM's first pass" "$code" 503
bad_fault=$(curl -s -X POST -H "Authorization: Bearer $TOKEN" -d '{"action":"down","switch":"swA"}' "$D_URL/api/faults")
is "simulated faults are refused with source opensm" "$(printf '%s' "$bad_fault" | jq -r .error.code)" conflict
api POST /api/reroute ""
is "reroute without a plugin: 503" "$code" 503

is "a subnet in, the expected LFTs out" "$(play route)" ok
api GET /api/fabric
is "the routing is published as an epoch" "$(jf .epoch.reason)" opensm
is "the fabric is OpenSM's: 4 nodes" "$(jf .nodes)" 4
api GET "/api/route?src=h1&dst=h2"
is "routes are answered on it" "$(jf .hop_count)" 2
api GET /api/lids
is "OpenSM's LIDs are kept" "$(jf '[.lids[].lid] | join(",")')" "1,2,3,4"
api GET /api/snapshots
is "the epoch is stored" "$(jf '.snapshots | length')" 1
late=$(play late)
like "an answer the plugin gave up on" "$late" "^epoch [0-9]+$"
api GET /api/fabric
is "... is never published: the epoch OpenSM installed stays current" "$(jf .epoch.seq)" 1
api GET /api/snapshots
is "... nor stored" "$(jf '.snapshots | length')" 1
api GET "/api/events?type=error"
like "... and an event says so" "$(jf '[.events[].message] | join("\n")')" \
	"$late not installed: OpenSM routed the pass with its own engine"
is "a bad subnet is refused with the reason, the connection keeps serving" "$(play bad_subnet)" ok
is "malformed frames close the connection, no answer" "$(play malformed)" ok
api GET /api/health
is "the daemon is unharmed" "$code" 200
is "events are accepted" "$(play control)" ok
api GET "/api/events?type=trap"
is "a trap is stored as a trap event" "$(jf '[.events[].details.trap] | sort | join(",")')" 128,129
is "the trap's message names it and the switch its LID belongs to" \
	"$(jf '.events[] | select(.details.trap == 128) | .message')" "trap 128 link state change: swA"
is "... and the port, when the notice has one" \
	"$(jf '.events[] | select(.details.trap == 129) | .message')" \
	"trap 129 local Link integrity threshold reached: h1 port 1"
api GET "/api/events?type=opensm"
is "other events are stored as opensm events, in plain words" \
	"$(jf '[.events[].message] | map(select(. == "OpenSM subnet up")) | length')" 1
rd=$(jf '.events[] | select(.details.event == "routing_done")')
like "routing_done says which epoch was installed and what changed from the one before" \
	"$(printf '%s' "$rd" | jq -r .message)" \
	'^OpenSM routing done: epoch ([0-9]+) \([a-z]+\) installed, [0-9]+ LFT blocks on [0-9]+ switches changed from epoch [0-9]+$'
e2=$(printf '%s' "$rd" | jq -r .details.epoch)
api GET /api/snapshots
s_new=$(jf ".snapshots[] | select(.seq == $e2) | .id")
s_old=$(jf ".snapshots[] | select(.seq < $e2) | .id" | head -1)
api GET "/api/snapshots/$s_old/diff/$s_new"
is "  its count of switches is the snapshot diff's: one source" \
	"$(printf '%s' "$rd" | jq -r .details.switches_changed)" "$(jf .lft.switches_changed)"
api GET "/api/events?type=opensm"
is "lft_change events are not stored" "$(jf '[.events[] | select(.details.event == "lft_change")] | length')" 0

is "pass results are accepted" "$(play passes)" ok
api GET /api/health
# with the routed passes of the route and bad subnet checks, the late one's timeout
is "health counts the passes by result" "$(jf '.source.passes | "\(.routed) \(.fallback) \(.timeout) \(.error)"')" "3 1 2 1"
api GET "/api/events?type=opensm"
like "a refused pass is an event with its reason" \
	"$(jf '.events[] | select(.message | startswith("OpenSM routing pass fallback")) | .message')" \
	"OpenSM routing pass fallback: the routing uses SLs 0,1 and VLs 0,1, but OpenSM's QoS is off"
api GET /metrics
for r in routed:3 fallback:1 timeout:2 error:1; do
	like "metrics: fabroute_osm_passes_total{result=\"${r%:*}\"}" "$body" \
		"fabroute_osm_passes_total\{result=\"${r%:*}\"\} ${r#*:}"
done
like "metrics: fabroute_osm_connected is 1 while a plugin is connected" "$body" "fabroute_osm_connected 1"

is "a plugin of protocol 1 gets an error in its version naming both, and the connection closes" "$(play v1_plugin)" ok
sleep 0.2
is "the daemon logs the refusal once for three attempts" \
	"$(grep -c "peer speaks fabroute-osm protocol 1, this build speaks 3: upgrade the OpenSM plugin" "$D_LOG.new")" 1
play sweep >"$t_tmp/sweep.out" &
player=$!
i=0
while ! grep -q connected "$t_tmp/sweep.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.2
api POST /api/reroute ""
is "reroute with a plugin: 202" "$code" 202
wait $player
is "the plugin gets a heavy sweep request" "$(tail -1 "$t_tmp/sweep.out")" ok
sleep 0.2
api GET /metrics
like "metrics: fabroute_osm_connected is 0 once no plugin is connected" "$body" "fabroute_osm_connected 0"

# A pass over the fabric the routing in force was made for, under the same
# settings, keeps that routing (proven again, not routed again); another
# chain routes anew.
api GET /api/fabric
in_force=$(jf .epoch.seq)
is "the subnet of the routing in force again: the same LFTs" "$(play route)" ok
api GET /api/fabric
is "... from the routing in force, kept without routing" "$(jf .epoch.engine_log)" \
	"minhop: kept epoch $in_force's routing: the fabric and the settings are those it was made for"
like "... and proven again, from its proof" "$(grep 'published (opensm)' "$D_LOG.new" | tail -1)" \
	"evaluated in [0-9.]+ ms \(0 of 4 destinations\), connected, deadlock-free"
api POST /api/engine '{"chain":"updn"}'
is "the same subnet under another chain" "$(play route)" ok
api GET /api/fabric
is "... is routed by that chain, nothing kept" "$(jf '"\(.epoch.engine) \(.epoch.engine_log | test("kept"))"')" "updn false"
d_stop
is "SIGTERM: exit 0" "$D_STATUS" 0
[ ! -e "$sock" ] && ok "the socket file is removed" || not_ok "the socket file is removed"
done_testing
