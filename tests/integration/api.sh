#!/bin/sh
# The REST API end to end: fabrouted on a loopback port with a temporary
# database, every endpoint through curl, faults -> reroute -> changed routes
# and events, engine selection, and bad input -> the right 4xx JSON error.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"

d_start api || { not_ok "fabrouted starts"; done_testing; }
ok "fabrouted starts on port $D_PORT"
d_wait_epoch 1 && ok "the first epoch is published" || not_ok "the first epoch is published"

# --- reading ------------------------------------------------------------------
api GET /api/health
is "health: 200" "$code" 200
is "health: status ok" "$(jf .status)" ok
api GET /api/ready
is "ready: 200 on the intact fat tree" "$code" 200
is "ready: no failing check" "$(jf '.failing | length')" 0

api GET "/api/route?src=leaf-00&dst=node-645"
is "route by description: 200" "$code" 200
is "route: delivered" "$(jf .delivered)" true
is "route: 3 switches from leaf to leaf" "$(jf .hop_count)" 3
is "route: DLID is the CA's LID" "$(jf .dlid)" "$(jf .dst.lid)"
path=$(jf '[.hops[] | "\(.guid):\(.out_port)"] | join(" ")')
first_port=$(jf '.hops[0].out_port')
lid=$(jf .src.lid)
guid=$(jf .dst.guid)
api GET "/api/route?src=$lid&dst=$guid"
is "route by LID and GUID: same path" "$(jf '[.hops[] | "\(.guid):\(.out_port)"] | join(" ")')" "$path"
api GET "/api/route?src=$(printf '0x%x' "$lid")&dst=node-645"
is "route by hex LID: same path" "$(jf '[.hops[] | "\(.guid):\(.out_port)"] | join(" ")')" "$path"

api GET /api/connectivity
is "connectivity: connected" "$(jf .connected)" true
is "connectivity: switch-to-switch pairs all delivered" "$(jf '.classes["sw-sw"].unreachable')" 0
api GET /api/reachability/switches
is "reachability: complete" "$(jf .complete)" true
is "reachability: 54 switches" "$(jf .switches)" 54
api GET "/api/reachability/switches?src=leaf-00&dst=spine-03"
is "reachability pair: reachable" "$(jf .reachable)" true
api GET /api/vl-usage
is "vl-usage: deadlock-free" "$(jf .deadlock_free)" true
is "vl-usage: VL 0 only" "$(jf '.vls_used | join(",")')" 0
api GET /api/fabric
is "fabric: 54 switches" "$(jf .switches)" 54
is "fabric: 648 CAs" "$(jf .cas)" 648
is "fabric: routing ready" "$(jf .routing.ready)" true
api GET /api/nodes
is "nodes: 702" "$(jf .count)" 702
api GET "/api/nodes?type=sw"
is "nodes of type sw: 54" "$(jf .count)" 54
api GET /api/nodes/leaf-00
is "node by description: a switch" "$(jf .type)" SW
api GET /api/links
is "links: 1296 in all, the first page of 1000" "$(jf '[.count, (.links | length), .more] | map(tostring) | join(",")')" "1296,1000,true"
api GET "/api/links?offset=1000"
is "links: the second page, the last" "$(jf '[(.links | length), .more] | map(tostring) | join(",")')" "296,false"
api GET "/api/links?offset=5&limit=2"
is "links: a page of 2 from 5" "$(jf '[.offset, (.links | length)] | map(tostring) | join(",")')" "5,2"
api GET /api/lids
is "lids: one per endpoint" "$(jf .count)" 702
api GET /api/lfts
like "lfts: one block per switch, in ibroute's format" "$(printf '%s\n' "$body" | grep -c '^Unicast lids')" '^54$'
api GET /api/engines
like "engines: sftree listed" "$(jf '[.engines[].name] | join(",")')" sftree
api GET /api/config
is "config: the listen address given" "$(jf .config.listen)" "127.0.0.1:0"
is "config: its origin is the flag" "$(jf '.config.origin.listen')" flag
api GET /api/snapshots
is "snapshots: the first is stored" "$(jf '.snapshots[0].seq')" 1
api GET /api/snapshots/"$(jf '.snapshots[0].id')"
is "snapshot by id: 200" "$code" 200
api GET /metrics
like "metrics: epoch sequence" "$body" '^fabroute_epoch_seq 1$'
like "metrics: unreachable switch pairs" "$body" '^fabroute_unreachable_pairs\{class="sw-sw"\} 0$'
like "metrics: reroute histogram" "$body" '^fabroute_reroute_duration_seconds_count 1$'
like "metrics: requests by endpoint and status" "$body" 'fabroute_api_requests_total\{endpoint="/api/route",method="GET",status="200"\} 3'

# --- bad input ---------------------------------------------------------------
# bad DESC STATUS CODE METHOD PATH [BODY [TOKEN]]
bad() {
	d=$1 st=$2 c=$3
	shift 3
	api "$@"
	if [ "$code" = "$st" ] && [ "$(jf .error.code)" = "$c" ] && [ -n "$(jf .error.message)" ]; then
		ok "$d: $st $c"
	else
		not_ok "$d: $st $c"; diag "got $code: $body"
	fi
}
bad "route without dst" 400 missing_parameter GET "/api/route?src=leaf-00"
bad "LID 0" 400 bad_parameter GET "/api/route?src=0&dst=node-645"
bad "LID 0xC000 (multicast)" 400 bad_parameter GET "/api/route?src=0xC000&dst=node-645"
bad "malformed LID" 400 bad_parameter GET "/api/route?src=12x&dst=node-645"
api GET "/api/route?src=12x&dst=node-645"
like "the message names the parameter" "$(jf .error.message)" '^src'
bad "unknown node" 404 not_found GET "/api/route?src=no-such-node&dst=node-645"
bad "unknown LID" 404 not_found GET "/api/route?src=9999&dst=node-645"
bad "unknown parameter" 400 bad_parameter GET "/api/route?src=1&dst=2&color=red"
bad "unknown node GUID" 404 not_found GET /api/nodes/0x1234567890abcdef
bad "bad node type" 400 bad_parameter GET "/api/nodes?type=router-ish"
bad "one of src/dst" 400 missing_parameter GET "/api/reachability/switches?src=leaf-00"
bad "unknown endpoint" 404 not_found GET /api/nope
bad "wrong method" 405 method_not_allowed POST "/api/route" ""
bad "snapshot id not a number" 400 bad_parameter GET /api/snapshots/abc
bad "unknown snapshot" 404 not_found GET /api/snapshots/99999
bad "diff with an unknown snapshot" 404 not_found GET /api/snapshots/1/diff/99999
bad "events: limit 0" 400 bad_parameter GET "/api/events?limit=0"
bad "events: a page above 1000" 400 bad_parameter GET "/api/events?limit=1001"
bad "links: a page above 10000" 400 bad_parameter GET "/api/links?limit=10001"
bad "events: unknown type" 400 bad_parameter GET "/api/events?type=bogus"
bad "events: bad since" 400 bad_parameter GET "/api/events?since=yesterdayT"
bad "POST without a token" 401 unauthorized POST /api/reroute "" ""
bad "POST with a wrong token" 401 unauthorized POST /api/reroute "" "not-the-token-at-all"
bad "body that is not JSON" 400 bad_json POST /api/engine "{chain:"
bad "a body that is a JSON array" 400 bad_json POST /api/faults '[]'
bad "a path of 1100 bytes" 414 too_large GET "/$(head -c 1100 /dev/zero | tr '\0' x)"
bad "engine without chain" 400 missing_parameter POST /api/engine '{}'
bad "unknown engine" 400 bad_parameter POST /api/engine '{"chain":"warp-drive"}'
head -c 70000 /dev/zero | tr '\0' 'x' >"$t_tmp/big"
code=$(curl -s -o "$t_tmp/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
	--data-binary @"$t_tmp/big" "$D_URL/api/engine")
body=$(cat "$t_tmp/body")
is "oversized body: 413" "$code" 413
is "oversized body: too_large" "$(jf .error.code)" too_large
bad "fault: unknown action" 400 bad_parameter POST /api/faults '{"action":"sideways","link":"leaf-00:1"}'
bad "fault: no link or switch" 400 missing_parameter POST /api/faults '{"action":"down"}'
bad "fault: unknown node" 404 not_found POST /api/faults '{"action":"down","link":"nowhere:1"}'
bad "fault: port not linked" 404 not_found POST /api/faults '{"action":"down","link":"leaf-00:99"}'
bad "fault: a CA is not a switch" 400 bad_parameter POST /api/faults '{"action":"down","switch":"node-001"}'
bad "fault: up a link that is not down" 409 conflict POST /api/faults '{"action":"up","link":"leaf-00:1"}'
api GET /api/health
is "the daemon still runs after the bad input" "$code" 200
api GET /api/snapshots
is "bad input stored nothing: still one snapshot" "$(jf '.snapshots | length')" 1

# --- faults -> reroute --------------------------------------------------------
api POST /api/faults "{\"action\":\"down\",\"link\":\"leaf-00:$first_port\"}"
is "fault: accepted (202)" "$code" 202
d_wait_epoch 2 && ok "fault: a new epoch" || not_ok "fault: a new epoch"
api GET "/api/route?src=leaf-00&dst=node-645"
is "after the fault: still delivered" "$(jf .delivered)" true
isnt_port=$(jf '.hops[0].out_port')
[ "$isnt_port" != "$first_port" ] && ok "after the fault: leaf-00 leaves by another port ($isnt_port)" ||
	not_ok "after the fault: leaf-00 leaves by another port"
is "after the fault: reason fault" "$(jf .epoch.reason)" fault
api GET "/api/events?type=fault"
is "events: the fault is recorded" "$(jf '.events | length')" 1
api GET "/api/events?type=reroute"
is "events: two reroutes" "$(jf '.events | length')" 2
second=$(jf '.events[1].id')
api GET "/api/events?type=reroute&limit=1"
is "events: a page of one, the newest, more before it" "$(jf '[.events[0].id, .more] | map(tostring) | join(",")')" "$second,true"
api GET "/api/events?type=reroute&limit=1&before=$second"
is "events: the page before it, the last" "$(jf '[(.events | length), .more] | map(tostring) | join(",")')" "1,false"
api GET /api/faults
is "faults: one link down" "$(jf '.links | length')" 1
bad "fault: down twice" 409 conflict POST /api/faults "{\"action\":\"down\",\"link\":\"leaf-00:$first_port\"}"
api GET /api/snapshots/1/diff/2
is "diff: one link removed" "$(jf '.links.removed | length')" 1
is "diff: topology changed" "$(jf .topology_changed)" true
[ "$(jf .lft.entries_changed)" -gt 0 ] && ok "diff: LFT entries changed" || not_ok "diff: LFT entries changed"
api POST /api/faults "{\"action\":\"up\",\"link\":\"leaf-00:$first_port\"}"
d_wait_epoch 3
api GET "/api/route?src=leaf-00&dst=node-645"
is "link up: the original path is back" "$(jf '[.hops[] | "\(.guid):\(.out_port)"] | join(" ")')" "$path"
api GET /api/snapshots/1/diff/3
is "diff 1 -> 3: no LFT entry differs" "$(jf .lft.entries_changed)" 0
api POST /api/faults '{"action":"down","switch":"spine-05"}'
d_wait_epoch 4
api GET /api/ready
is "spine down: still ready (every pair reachable, deadlock-free)" "$code" 200
api GET /api/fabric
is "spine down: 53 switches" "$(jf .switches)" 53
api POST /api/faults '{"action":"up","switch":"spine-05"}'
d_wait_epoch 5

# --- engine and reroute -------------------------------------------------------
api POST /api/engine '{"chain":"updn,minhop"}'
is "engine: accepted (202)" "$code" 202
d_wait_epoch 6
is "engine: updn routes" "$(jf .epoch.engine)" updn
is "engine: reason engine" "$(jf .epoch.reason)" engine
api GET "/api/events?type=engine"
is "engine: event recorded" "$(jf '.events[0].message')" "engine chain 'updn,minhop' selected"
api POST /api/reroute ""
is "reroute: accepted (202)" "$code" 202
d_wait_epoch 7
is "reroute: reason api" "$(jf .epoch.reason)" api

d_stop
is "SIGTERM: exit status 0" "$D_STATUS" 0
like "SIGTERM: logged" "$(cat "$D_LOG")" "stopped"

# --- limits -------------------------------------------------------------------
d_start limits --api-rate-limit 5 --api-write-rate-limit 2 --engine updn
d_wait_epoch 1
# 20 requests from one curl on one connection: well past 5/s even when the
# daemon runs under valgrind on a loaded machine
urls=""
for i in $(seq 20); do urls="$urls $D_URL/api/config"; done
# shellcheck disable=SC2086
codes=$(curl -s -o /dev/null -w '%{http_code} ' $urls)
like "rate limit: 429 beyond 5 requests/s" "$codes" 429
# shellcheck disable=SC2086
like "rate limit: 429 is JSON" "$(curl -s $urls)" '"code":"rate_limited"'
# shellcheck disable=SC2086
is "rate limit: health checks are never limited" \
	"$(curl -s $(echo "$urls" | sed 's|/api/config|/api/health|g') | grep -o '"status":"ok"' | wc -l)" 20
d_stop
d_start notoken --engine updn --token-file ""
d_wait_epoch 1
bad "no token configured: POST refused" 403 writes_disabled POST /api/reroute ""
d_stop

done_testing
