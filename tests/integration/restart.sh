#!/bin/sh
# What survives a restart: LIDs, snapshots, the engine chosen through the
# API, the simulated faults; an unchanged fabric is restored from the store
# without recomputing. SIGHUP: a bad file keeps the old configuration, a
# good one applies.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"

topo=$t_tmp/tree.ibnd
"$FABROUTE" gen kary-ntree k=4 n=3 -o "$topo"
conf=$t_tmp/fabroute.conf
printf 'topology = %s\nengine = ftree,updn\nlog_level = info\n' "$topo" >"$conf"

d_start r -c "$conf" || { not_ok "fabrouted starts"; done_testing; }
d_wait_epoch 1
api GET /api/lids
lids1=$(jf '[.lids[] | "\(.guid)=\(.lid)"] | join(" ")')
api POST /api/engine '{"chain":"updn"}'
d_wait_epoch 2
api POST /api/faults '{"action":"down","link":"0x0002fab100000001:1"}'
is "fault accepted" "$code" 202
d_wait_epoch 3
d_wait_idle
api GET /api/snapshots
snaps1=$(jf '[.snapshots[].id] | join(",")')
api GET /api/fabric
hash3=$(jf .topology_hash)
d_stop
is "stopped cleanly" "$D_STATUS" 0

d_start r -c "$conf"
d_wait_epoch 3
api GET /api/fabric
is "restart: the epoch is restored (seq 3)" "$(jf .epoch.seq)" 3
is "restart: reason restore" "$(jf .epoch.reason)" restore
is "restart: the selected engine survives" "$(jf .epoch.engine)" updn
is "restart: the fault survives (same topology)" "$(jf .topology_hash)" "$hash3"
like "restart: restored without recomputing" "$(cat "$D_LOG.new")" "restored from snapshot [0-9]+ without recomputing"
api GET /api/config
is "restart: engine in use is the selection" "$(jf .engine_in_use)" updn
api GET /api/snapshots
is "restart: snapshots survive" "$(jf '[.snapshots[].id] | join(",")')" "$snaps1"
api POST /api/faults '{"action":"up","link":"0x0002fab100000001:1"}'
d_wait_epoch 4
api GET /api/lids
is "restart + reroute: every LID is the same" "$(jf '[.lids[] | "\(.guid)=\(.lid)"] | join(" ")')" "$lids1"

# SIGHUP with a bad file: the old configuration stays
cp "$conf" "$conf.good"
printf 'holddown_ms = soon\n' >>"$conf"
kill -HUP "$D_PID"
sleep 0.5
like "SIGHUP, bad file: the reason is logged" "$(cat "$D_LOG.new")" "conf:4: holddown_ms: expected an integer"
api GET /api/health
is "SIGHUP, bad file: still serving" "$code" 200
api GET /api/config
is "SIGHUP, bad file: old configuration" "$(jf .config.holddown_ms)" 50
# a good file with another engine wins over the API's selection
printf 'topology = %s\nengine = sftree\nholddown_ms = 10\n' "$topo" >"$conf"
kill -HUP "$D_PID"
d_wait_epoch 5
api GET /api/config
is "SIGHUP: new value applied" "$(jf .config.holddown_ms)" 10
api GET /api/fabric
is "SIGHUP: the file's new engine routes" "$(jf .epoch.engine)" sftree
api GET "/api/events?type=config"
like "SIGHUP: events recorded" "$(jf '[.events[].message] | join(";")')" "reload refused.*;configuration reloaded"
d_stop
is "stopped cleanly again" "$D_STATUS" 0

# publish_policy proven (the default): minhop's routing of the tree has a
# credit loop through the switch paths, so updn routes instead
d_start p --topology "$topo" --engine minhop,updn --db "$t_tmp/p.db"
d_wait_epoch 1
api GET /api/fabric
is "publish_policy proven: the next engine routes" "$(jf .epoch.engine)" updn
like "publish_policy proven: the chain's log says why" "$(jf -r .epoch.engine_log)" \
	"minhop: routed, not accepted: deadlock possible"
d_stop
d_start p2 --topology "$topo" --engine minhop --publish-policy any --db "$t_tmp/p2.db"
d_wait_epoch 1
api GET /api/fabric
is "publish_policy any: minhop's routing is published" "$(jf .epoch.engine)" minhop
d_stop

# fabrouted -n prints the canonical form; bad files exit 3 naming the line
runs "-n: exit 0" 0 "$FABROUTED" -n -c "$conf"
like "-n: canonical form" "$out" "^holddown_ms = 10$"
like "-n: every key, with defaults" "$out" "^api_threads = 2$"
printf 'engine = sftree\nbogus_key = 1\n' >"$t_tmp/bad.conf"
runs "-n, unknown key: exit 3" 3 "$FABROUTED" -n -c "$t_tmp/bad.conf"
like "-n, unknown key: file and line named" "$err" "bad.conf:2: unknown key 'bogus_key'"
printf 'db = /tmp/caf\351.db\n' >"$t_tmp/latin1.conf"
runs "-n, a value that is not UTF-8: exit 3" 3 "$FABROUTED" -n -c "$t_tmp/latin1.conf"
like "-n, a value that is not UTF-8: named" "$err" "latin1.conf:1: db: the value is not valid UTF-8"
printf '# a comment\ndb = /tmp/a#b.db   # the rest is a comment\nlog_level = debug #\n  #engine = x\n' >"$t_tmp/hash.conf"
runs "-n, '#' inside a value" 0 "$FABROUTED" -n -c "$t_tmp/hash.conf"
like "-n, '#' inside a value is kept, after a blank it starts a comment" "$out" "^db = /tmp/a#b.db$"
like "-n, '#' right after a value's blank ends it" "$out" "^log_level = debug$"
runs "flag overrides the file" 0 "$FABROUTED" -n -c "$conf" --holddown-ms 7
like "flag overrides the file: value" "$out" "^holddown_ms = 7$"
runs "bad flag: exit 2" 2 "$FABROUTED" --no-such
runs "unknown key as a flag: exit 3" 3 "$FABROUTED" -n --no-such-key 1
runs "bad engine chain: exit 3" 3 "$FABROUTED" -n --engine nope
like "bad engine chain: named" "$err" "engine: "
runs "bad engine option value: exit 3" 3 "$FABROUTED" -n --engine updn --engine-options updn.detect=sideways
like "bad engine option value: named" "$err" "engine_options: option updn.detect=sideways: expected one of center|osm"
runs "bad publish_policy: exit 3" 3 "$FABROUTED" -n --publish-policy sometimes
like "bad publish_policy: named" "$err" "publish_policy: expected proven, connected or any"
runs "--help: exit 0" 0 "$FABROUTED" --help
like "--help lists every key" "$out" "--snapshot-max-age-days"

done_testing
