#!/bin/sh
# Two SM nodes, one subnet: ibsim simulating a 4-ary 2-tree, two real OpenSMs
# on two HCAs (priorities 10 and 5), a fabrouted beside each with
# replication = etcd, three etcd members on loopback. Checked:
# - the roles follow OpenSM's election: master beside the MASTER, standby
#   beside the STANDBY; the standby keeps a warm copy of the master's epoch
#   (same number, same digest) and refuses writes with 409 naming the master;
# - an engine chain POSTed to the master (acknowledged) is the standby's;
# - a link fault repaired by the master: the standby's copy is that repair;
# - SIGKILL of the master's OpenSM and fabrouted: the standby's OpenSM takes
#   over, its fabrouted becomes master and answers the first pass with the
#   same tables: 0 LFT entries and 0 LIDs change in the switches (read over
#   SMP from a third HCA), the repair is kept (the warm copy answers, not
#   routed again), the chain is the one POSTed;
# - node 2 in a minority refuses writes; node 1 back takes the mastership
#   again with the chain acknowledged while it was away.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
have_ibsim || skip_all "ibsim, umad2sim or infiniband-diags missing"
for t in opensm dump_fts etcd; do command -v $t >/dev/null 2>&1 || skip_all "$t missing"; done
plugin=${FABROUTE_OSM_PLUGIN:-$top_builddir/.libs/libfabroute-osm.so}
[ -r "$plugin" ] || skip_all "no OpenSM plugin at $plugin (built only with libopensm-dev)"
[ -r "$SIM_TIMEOUT" ] || { not_ok "$SIM_TIMEOUT is there (make check builds it)"; done_testing; }
mkdir -p "$t_tmp/plugin"
cp "$plugin" "$t_tmp/plugin/libfabroute-osm.so"
cd "$t_tmp" || exit 1

# --- three etcd members -------------------------------------------------------------------
base=$((21000 + $$ % 1100 * 10))	# below the ephemeral ports (32768 on), which a client may hold
cluster=""
for i in 1 2 3; do cluster="$cluster${cluster:+,}e$i=http://127.0.0.1:$((base + 2 * i + 1))"; done
endpoints=""
for i in 1 2 3; do
	c=http://127.0.0.1:$((base + 2 * i)) p=http://127.0.0.1:$((base + 2 * i + 1))
	endpoints="$endpoints${endpoints:+,}$c"
	etcd --name "e$i" --data-dir "$t_tmp/e$i.etcd" --listen-client-urls "$c" --advertise-client-urls "$c" \
		--listen-peer-urls "$p" --initial-advertise-peer-urls "$p" --initial-cluster "$cluster" \
		--initial-cluster-state new --initial-cluster-token "t$$" >"$t_tmp/e$i.log" 2>&1 &
	t_sim_pids="$t_sim_pids $!"
	eval "ETCD_$i=\$! ETCD_ARGS_$i=\"--name e$i --data-dir $t_tmp/e$i.etcd --listen-client-urls $c \
--advertise-client-urls $c --listen-peer-urls $p --initial-advertise-peer-urls $p\""
done
i=0
until curl -s -m 1 -X POST "http://127.0.0.1:$((base + 2))/v3/kv/range" -d '{"key":"AA=="}' | grep -q header; do
	i=$((i + 1)); [ $i -gt 300 ] && { not_ok "etcd starts"; done_testing; }; sleep 0.1
done
ok "three etcd members"

# --- the fabric, two fabrouteds, two OpenSMs ------------------------------------------------
"$FABROUTE" gen kary-ntree k=4 n=2 -f ibsim -o t.net
sim_start "$t_tmp/t.net" console || { not_ok "ibsim starts"; done_testing; }
# start_fr N HCA: fabrouted N (FR_N, URL_N) on HCA
start_fr() {
	FABROUTED_WRAPPER="env LD_PRELOAD=$UMAD2SIM SIM_HOST=$2" \
		d_start "n$1" --source opensm --socket "$t_tmp/osm$1.sock" --engine sftree,updn \
		--readback 0 --fast-repair-timeout-ms 1000 --rebalance-delay-s 0 --api-write-rate-limit 0 \
		--replication etcd --etcd-endpoints "$endpoints" --node-name "node$1" || return 1
	eval "FR_$1=\$D_PID URL_$1=\$D_URL"
}
# start_node N HCA PRIORITY [OPENSM-ARGS]: fabrouted N, then OpenSM N (OSM_N) on HCA
start_node() {
	start_fr "$1" "$2" || return 1
	mkdir -p "$t_tmp/o$1"
	cat >"$t_tmp/o$1/osm.conf" <<-EOC
	event_plugin_name fabroute-osm
	event_plugin_options socket=$t_tmp/osm$1.sock timeout_ms=5000
	routing_engine updn
	sm_priority $3
	sminfo_polling_timeout 500
	polling_retry_number 2
	EOC
	( cd "$t_tmp/o$1" && LD_PRELOAD="$SIM_TIMEOUT $UMAD2SIM" SIM_HOST=$2 LD_LIBRARY_PATH=$t_tmp/plugin \
		OSM_CACHE_DIR=$t_tmp/o$1 OSM_TMP_DIR=$t_tmp/o$1 \
		exec opensm -F "$t_tmp/o$1/osm.conf" -s 0 -d 2 ${4:-} -f "$t_tmp/o$1/osm.log" >"$t_tmp/o$1/out" 2>&1 ) &
	eval "OSM_$1=\$!"
	t_sim_pids="$! $t_sim_pids"
}
# wait_for URL JQ-TEST: until GET URL/api/health satisfies it (30 s)
wait_for() {
	i=0
	while :; do
		body=$(curl -s -m 2 "$1/api/health")
		printf '%s' "$body" | jq -e "$2" >/dev/null 2>&1 && return 0
		i=$((i + 1)); [ $i -gt 300 ] && { diag "$1: not $2: $(printf '%s' "$body" | jq -c .ha)"; return 1; }
		sleep 0.1
	done
}
fab() { curl -s -m 5 "$1/api/fabric"; }
read_switches() { (cd "$t_tmp" && LD_PRELOAD=$UMAD2SIM SIM_HOST=node-15 timeout 60 dump_fts 2>/dev/null) >"$1.dump"; lft_entries "$1.dump" >"$1"; grep -o 'Lid [0-9]*' "$1.dump" | sort >"$1.lids"; }

start_node 1 node-00 10 || { not_ok "node 1 starts"; done_testing; }
# OpenSM 2 joins once OpenSM 1 is up. OpenSM 1 may ask it for its SMInfo (its trap 144 starts
# OpenSM 1's sweep) before it knows its own port, and OpenSM 3.3.23 then drops the request
# unanswered (osm_sminfo_rcv.c): the request times out as on a real port (SIM_TIMEOUT, preloaded
# under each OpenSM; the simulator times nothing out) and OpenSM 1 asks again at its next sweep.
i=0
until grep -q "SUBNET UP" "$t_tmp/o1/osm.log" 2>/dev/null; do i=$((i + 1)); [ $i -gt 300 ] && break; sleep 0.1; done
start_node 2 node-01 5 "-D 0x07" || { not_ok "node 2 starts"; done_testing; }
wait_for "$URL_1" '.ha.role == "master"' && ok "node 1 is master (its OpenSM is)" || not_ok "node 1 is master (its OpenSM is)"
wait_for "$URL_2" '.ha.role == "standby"' && ok "node 2 is standby" || not_ok "node 2 is standby"
# same_copy: node 2's epoch is node 1's (number and digest)
same_copy() {
	i=0
	while :; do
		a=$(fab "$URL_1" | jq -r '"\(.epoch.seq) \(.routing.digest)"')
		b=$(fab "$URL_2" | jq -r '"\(.epoch.seq) \(.routing.digest)"')
		[ "$a" = "$b" ] && [ "${a#null}" = "$a" ] && return 0
		i=$((i + 1)); [ $i -gt 300 ] && { diag "master: $a; standby: $b"; return 1; }
		sleep 0.1
	done
}
same_copy && ok "the standby's copy is the master's epoch (number and digest)" || not_ok "the standby's copy is the master's epoch (number and digest)"
# the dashboard of each node shows its role (headless Chromium, tests/integration/web_check.py)
need "${CHROMIUM:-chromium}" python3
for n in 1 2; do
	eval "u=\$URL_$n"
	timeout 120 python3 "$top_srcdir/tests/integration/web_check.py" --chromium "${CHROMIUM:-chromium}" \
		"$u/" "$t_tmp/web$n.json" "shot:$top_builddir/web-ha-node$n.png" 2>>"$t_tmp/chromium.log" ||
		diag "web_check.py failed on node $n: $(tail -3 "$t_tmp/chromium.log")"
done
is "node 1's dashboard: MASTER" "$(jq -r '.[0].role.text' "$t_tmp/web1.json" 2>/dev/null)" MASTER
is "node 2's dashboard: STANDBY" "$(jq -r '.[0].role.text' "$t_tmp/web2.json" 2>/dev/null)" STANDBY
like "  naming the master" "$(jq -r '.[0].role.title' "$t_tmp/web2.json" 2>/dev/null)" "master: node1 http"
D_URL=$URL_2 api POST /api/engine '{"chain":"updn"}'
is "a write to the standby: 409" "$code" 409
like "  naming the master" "$(jf .error.message)" "standby; the master is node1"
D_URL=$URL_1 api POST /api/engine '{"chain":"sftree,updn,minhop"}'
is "a write to the master: acknowledged" "$code" 202
# under OpenSM the new chain routes at the heavy sweep the change asks for: wait for it, or the
# fault below would come first, with no base of that chain to repair
i=0
until fab "$URL_1" | jq -e '.epoch.chain == "sftree,updn,minhop"' >/dev/null; do
	i=$((i + 1)); [ $i -gt 300 ] && break; sleep 0.1
done
is "the master routed with the new chain" "$(fab "$URL_1" | jq -r .epoch.chain)" "sftree,updn,minhop"
same_copy && ok "the standby follows" || not_ok "the standby follows"
is "the standby's chain is the master's" "$(curl -s -m 5 "$URL_2/api/config" | jq -r .engine_in_use)" "sftree,updn,minhop"

# --- a fault repaired in force --------------------------------------------------------------
sim_cmd 'Unlink "leaf-00"[5]'
i=0
until fab "$URL_1" | jq -e '.epoch.engine == "ftdlr"' >/dev/null; do i=$((i + 1)); [ $i -gt 200 ] && break; sleep 0.1; done
is "the master repaired the fault" "$(fab "$URL_1" | jq -r .epoch.engine)" ftdlr
[ "$(fab "$URL_1" | jq -r .epoch.engine)" = ftdlr ] ||
	diag "node 1's last events: $(curl -s -m 5 "$URL_1/api/events?limit=8" | jq -r '.events[].message' | tr '\n' '|')"
same_copy && ok "the standby's copy is the repair" || not_ok "the standby's copy is the repair"
sleep 2	# OpenSM's sweep after the trap

# --- the master's fabrouted killed and started again, its OpenSM still master ---------------
# it comes back as the master of its OpenSM with the repair in force, and replicates that
# repair with its base: the standby's copy does not diverge
eval "kill -9 \$FR_1"
start_fr 1 node-00 || not_ok "fabrouted 1 starts again"
wait_for "$URL_1" '.ha.role == "master"' && ok "fabrouted 1 restarted: master again" || not_ok "fabrouted 1 restarted: master again"
sleep 2	# OpenSM's next pass, answered with the repair kept
same_copy && ok "the standby's copy is still the master's epoch" || not_ok "the standby's copy is still the master's epoch"
is "  the master's routing is the repair" "$(fab "$URL_1" | jq -r .epoch.engine)" ftdlr
is "  the standby's copy has not diverged" "$(curl -s -m 5 "$URL_2/api/health" | jq -r .ha.warm.diverged)" false
is "  no divergence event" "$(curl -s -m 5 "$URL_2/api/events?limit=100" | jq '[.events[] | select(.message | test("diverged"))] | length')" 0
diag "replication lag at the standby: $(curl -s -m 5 "$URL_2/api/health" | jq -c '[.ha.replication.lag_ms_p50, .ha.replication.lag_ms_p99]') ms (p50, p99)"
# --- the etcd member both nodes watch through stops: the standby reads the keys again from
# another member, and leaves the copies it holds as they are (no routing of the base again)
mirrors() { grep -c 'published (mirror)' "$t_tmp/n2.log.new"; }
m0=$(mirrors)
kill -9 $ETCD_1
sleep 3
wait_for "$URL_2" '.ha.replication.state == "connected"' || diag "node 2 did not reconnect"
is "member 1 stopped: the standby's copies are not routed again" "$(mirrors)" "$m0"
same_copy && ok "  its copy is still the master's repair" || not_ok "  its copy is still the master's repair"
eval "args=\$ETCD_ARGS_1"
# shellcheck disable=SC2086
etcd $args >>"$t_tmp/e1.log" 2>&1 &
ETCD_1_AGAIN=$!
t_sim_pids="$t_sim_pids $!"
sleep 1

read_switches before
repair=$(fab "$URL_1" | jq -r .routing.digest)
# etcd_rev KEY: the revision that last wrote /fabroute/KEY (member 3, never stopped)
etcd_rev() {
	curl -s -m 5 -X POST "http://127.0.0.1:$((base + 6))/v3/kv/range" \
		-d "{\"key\":\"$(printf '/fabroute/%s' "$1" | base64)\"}" | jq -r '.kvs[0].mod_revision // "none"'
}
fabric_rev=$(etcd_rev fabric) base_rev=$(etcd_rev base)
like "the master's base names its fabric, which a key of its own holds" "$fabric_rev $base_rev" "^[0-9]+ [0-9]+$"

# --- the master node dies ----------------------------------------------------------------
eval "kill -9 \$OSM_1 \$FR_1"
wait_for "$URL_2" '.ha.role == "master"' && ok "node 2 becomes master with its OpenSM" || not_ok "node 2 becomes master with its OpenSM"
i=0
until grep -q "SUBNET UP" "$t_tmp/o2/osm.log" 2>/dev/null; do i=$((i + 1)); [ $i -gt 300 ] && break; sleep 0.1; done
grep -q "SUBNET UP" "$t_tmp/o2/osm.log" && ok "node 2's OpenSM brings the subnet up" || not_ok "node 2's OpenSM brings the subnet up"
like "node 2's OpenSM routed with fabroute" "$(grep 'tables configured' "$t_tmp/o2/osm.log" | tail -1)" "fabroute tables configured"
sleep 1
read_switches after
set -- $(LC_ALL=C comm -3 before after | awk '{ print $1, $2 }' | sort -u | wc -l)
is "takeover: 0 LFT entries changed in the switches" "$1" 0
cmp -s before.lids after.lids && ok "takeover: 0 LIDs changed" || not_ok "takeover: 0 LIDs changed"
is "takeover: the repair is kept (same digest)" "$(fab "$URL_2" | jq -r .routing.digest)" "$repair"
i=0
while [ "$(etcd_rev base)" = "$base_rev" ] && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
isnt "takeover: the new master writes the base" "$(etcd_rev base)" "$base_rev"
is "  but not its fabric, which the standbys hold" "$(etcd_rev fabric)" "$fabric_rev"
is "takeover: the acknowledged chain is in force" "$(curl -s -m 5 "$URL_2/api/config" | jq -r .engine_in_use)" "sftree,updn,minhop"
grep -q "ftdlr: kept epoch [0-9]*'s routing" "$t_tmp/n2.log.new" &&
	ok "takeover: the first pass is answered with the warm copy, not routed again" ||
	not_ok "takeover: the first pass is answered with the warm copy, not routed again"
like "  proven from the copy's proof, no destination redone" "$(grep -m1 'published (opensm)' "$t_tmp/n2.log.new")" \
	"evaluated in [0-9.]+ ms \(0 of [0-9]+ destinations\)"

# --- node 2 in a minority: two of the three etcd members stop -----------------------------
kill -9 $ETCD_1_AGAIN $ETCD_2
wait_for "$URL_2" '.ha.stale == true and .ha.replication.state == "unreachable"' &&
	ok "minority: /api/health says the copy is stale and etcd unreachable" ||
	not_ok "minority: /api/health says the copy is stale and etcd unreachable"
is "minority: reads answered" "$(curl -s -o /dev/null -w '%{http_code}' -m 5 "$URL_2/api/fabric")" 200
is "  /api/fabric marked stale" "$(fab "$URL_2" | jq -r .ha.stale)" true
D_URL=$URL_2 api POST /api/engine '{"chain":"updn"}'
is "minority: a write refused (503)" "$code" 503
like "  saying why" "$(jf .error.message)" "not applied: the replication did not store it"
is "  nothing changed" "$(curl -s -m 5 "$URL_2/api/config" | jq -r .engine_in_use)" "sftree,updn,minhop"
like "minority: an event says so" "$(curl -s -m 5 "$URL_2/api/events?limit=20" | jq -r '.events[].message')" \
	"replication: etcd unreachable .*routes on its own"
for i in 1 2; do
	eval "args=\$ETCD_ARGS_$i"
	# shellcheck disable=SC2086
	etcd $args >>"$t_tmp/e$i.log" 2>&1 &
	t_sim_pids="$t_sim_pids $!"
done
wait_for "$URL_2" '.ha.stale == false and .ha.replication.state == "connected"' &&
	ok "quorum back: connected, not stale" || not_ok "quorum back: connected, not stale"
D_URL=$URL_2 api POST /api/engine '{"chain":"sftree,updn"}'
is "quorum back: a write acknowledged" "$code" 202

# --- the old master comes back (its store still says sftree,updn,minhop) and its OpenSM
# (priority 10) takes the mastership back: the chain acknowledged meanwhile stays in force
start_node 1 node-00 10 "-D 0x07" || { not_ok "node 1 starts again"; done_testing; }
wait_for "$URL_1" '.ha.role == "master"' && ok "node 1 back: master again (its OpenSM is)" ||
	not_ok "node 1 back: master again (its OpenSM is)"
# a node that becomes master takes the replicated settings first (its writer, at once after the
# role changes): wait for it rather than read the instant the role says master
i=0
until [ "$(curl -s -m 5 "$URL_1/api/config" | jq -r .engine_in_use)" = sftree,updn ] || [ $i -gt 100 ]; do
	i=$((i + 1)); sleep 0.1
done
is "  the chain acknowledged while it was away is in force" \
	"$(curl -s -m 5 "$URL_1/api/config" | jq -r .engine_in_use)" "sftree,updn"
i=0
until [ "$(fab "$URL_1" | jq -r .epoch.chain)" = sftree,updn ] || [ $i -gt 200 ]; do
	i=$((i + 1)); sleep 0.1
done
is "  and routes" "$(fab "$URL_1" | jq -r .epoch.chain)" "sftree,updn"
# node 2, a standby again after writes that failed in the minority, is idle: its writer has
# nothing to write and waits (it once spun on what it had left pending, holding the lock that
# its OpenSM's next state and its own stop need)
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
eval "c0=\$(cpu \$FR_2)"
sleep 2
eval "c1=\$(cpu \$FR_2)"
[ $((c1 - c0)) -lt 50 ] && ok "node 2, standby again, is idle ($((c1 - c0)) ticks of CPU in 2 s)" ||
	not_ok "node 2, standby again, is idle ($((c1 - c0)) ticks of CPU in 2 s)"

eval "kill \$OSM_1 \$OSM_2" 2>/dev/null
D_PID=$FR_1 d_stop
D_PID=$FR_2 d_stop
is "fabrouted 2 stops cleanly" "$D_STATUS" 0
done_testing
