#!/bin/sh
# The fabrics of tests/data/fabrics through fabrouted (file source, real
# HTTP, real SQLite): each is parsed, routed by the default chain and
# published ready (every pair connected, deadlock-free). On the EDR dump:
# its diagnostic lines logged with file:line, topology_strict = 1 refusing
# it, a name several switches share answered 409 with their GUIDs, and
# node_name_map naming nodes in the API, re-read on SIGHUP.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"

DATA=$top_srcdir/tests/data/fabrics
n=0
for f in "$DATA"/*.ibnd "$DATA"/*.ibnd.gz "$DATA"/subnet-2005.lst.gz; do
	name=$(basename "$f" .gz)
	case $f in *.gz) gzip -dc "$f" > "$t_tmp/$name"; f=$t_tmp/$name ;; esac
	n=$((n + 1))
	if ! d_start "f$n" --topology "$f"; then
		not_ok "$name: fabrouted starts"
		continue
	fi
	d_wait_epoch 1 || :
	api GET /api/ready
	is "$name: ready (connected, deadlock-free)" "$code" 200
	api GET /api/fabric
	like "$name: routed by the default chain" "$(jf .epoch.engine)" "^(sftree|updn)$"
	d_stop
done

edr=$DATA/edr-6x.ibnd
d_start strict --topology "$edr" --topology-strict 1 || :
sleep 0.5
d_stop
like "topology_strict = 1: the EDR dump refused, with its line" "$(cat "$t_tmp/strict.log")" \
	"edr-6x.ibnd:[0-9]+: expected topology, found a diagnostic line"

printf '0x7cfe900300a5a2c0 "spine-1"\n' > "$t_tmp/names"
d_start edr --topology "$edr" --node-name-map "$t_tmp/names"
d_wait_epoch 1
like "the diagnostic lines logged with file:line" "$(cat "$D_LOG.new")" \
	"edr-6x.ibnd:[0-9]+: skipped a diagnostic line, not topology: 'ibwarn: "
api GET "/api/nodes/SwitchIB%20Mellanox%20Technologies"
is "a description five switches share: 409" "$code" 409
is "its candidates, by GUID" "$(jf '.error.candidates | length')" 5
is "and how many" "$(jf .error.count)" 5
like "the message lists GUIDs" "$(jf .error.message)" "nodes are described 'SwitchIB Mellanox Technologies' \(0x"
api GET "/api/nodes/spine-1"
is "node_name_map: the spine by its site name" "$code" 200
is "its GUID" "$(jf .guid)" 0x7cfe900300a5a2c0
printf '0x7cfe900300a5a2c0 "spine-one"\n' > "$t_tmp/names"
kill -HUP "$D_PID"
i=0
while :; do
	api GET "/api/nodes/spine-one"
	[ "$code" = 200 ] || [ $i -gt 100 ] && break
	i=$((i + 1))
	sleep 0.1
done
is "re-read on SIGHUP: the new name" "$code" 200
d_stop
done_testing
