#!/bin/sh
# fabroute status with the OpenSM source, end to end: ibsim simulating a
# 2-ary 2-tree, real OpenSM with the fabroute-osm plugin, fabrouted
# --source opensm reading the switches' tables back every second.
# - before OpenSM: the plugin is not connected, nothing routed (exit 4);
# - OpenSM routes with fabrouted: the plugin is connected, its routed pass
#   counted, the read-back finds no drift (exit 0);
# - OpenSM stopped, and a second OpenSM run programs one switch entry other
#   than the daemon published (-R file -U): status shows the drift, the
#   entry, and exits 4 (not ready: programmed tables differ); fabroute lft
#   and ibroute now differ in that entry alone.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
have_ibsim || skip_all "ibsim, umad2sim or infiniband-diags missing"
for t in opensm ibroute; do command -v $t >/dev/null 2>&1 || skip_all "$t missing"; done
plugin=${FABROUTE_OSM_PLUGIN:-$top_builddir/.libs/libfabroute-osm.so}
[ -r "$plugin" ] || skip_all "no OpenSM plugin at $plugin (built only with libopensm-dev)"
mkdir -p "$t_tmp/plugin"
cp "$plugin" "$t_tmp/plugin/libfabroute-osm.so"

F=$FABROUTE
cd "$t_tmp" || exit 1
"$F" gen kary-ntree k=2 n=2 -f ibsim -o t.net
sim_start "$t_tmp/t.net" || { not_ok "ibsim starts"; done_testing; }
sock=$t_tmp/osm.sock
FABROUTED_WRAPPER="env LD_PRELOAD=$UMAD2SIM" \
	d_start e --source opensm --socket "$sock" --engine sftree --readback-interval-s 1 \
	--readback-timeout-ms 500 || { not_ok "fabrouted starts"; done_testing; }
U="--url $D_URL"

runs "status before OpenSM: not ready" 4 "$F" status $U
like "the plugin is not connected" "$out" "^source: +opensm, plugin NOT connected on $sock \(0 route, 0 control connections\)$"
like "no pass yet" "$out" "^passes: +0 routed, 0 fallback, 0 timeout, 0 error; 0 routings answered, 0 failed$"

cat >osm.conf <<EOC
event_plugin_name fabroute-osm
event_plugin_options socket=$sock timeout_ms=3000
routing_engine updn
EOC
( cd "$t_tmp" && LD_PRELOAD=$UMAD2SIM LD_LIBRARY_PATH=$t_tmp/plugin OSM_CACHE_DIR=$t_tmp OSM_TMP_DIR=$t_tmp \
	exec opensm -F "$t_tmp/osm.conf" -s 0 -d 2 -f "$t_tmp/osm.log" >"$t_tmp/osm.out" 2>&1 ) &
OSM_PID=$!
t_sim_pids="$OSM_PID $t_sim_pids"
# wait_for DESC CMD...: until CMD succeeds (30 s at most)
wait_for() {
	desc=$1
	shift
	i=0
	until "$@"; do
		i=$((i + 1))
		[ $i -gt 300 ] && { not_ok "$desc"; return 1; }
		sleep 0.1
	done
	ok "$desc"
}
subnet_up() { grep -q "SUBNET UP" osm.log 2>/dev/null; }
# read_back N: a read-back of the epoch in use found N entries drifting
read_back() {
	api GET /api/fabric
	[ "$(jf .readback.epoch)" = "$(jf .epoch.seq)" ] && [ "$(jf .readback.entries_drifting)" = "$1" ]
}
wait_for "OpenSM brings the subnet up with fabrouted's tables" subnet_up
wait_for "the read-back finds the switches as published" read_back 0
runs "status: ready" 0 "$F" status $U
like "the plugin is connected" "$out" "^source: +opensm, plugin connected on $sock \([1-9] route, [1-9] control connections?\)$"
like "its routed pass is counted" "$out" "^passes: +[1-9][0-9]* routed, 0 fallback, 0 timeout, 0 error; [1-9][0-9]* routings answered, 0 failed$"
like "the read-back: every switch, no drift" "$out" "^read-back: +epoch 1: 4 of 4 switches read in [0-9]+ ms; no drift$"

# OpenSM away; another run programs leaf-00's first uplink entry on the other uplink
kill "$OSM_PID" 2>/dev/null
wait "$OSM_PID" 2>/dev/null
api GET /api/lfts
printf '%s\n' "$body" | awk '
	/^Unicast/ { n++ }
	n == 1 && !done && $1 ~ /^0x/ && $2 == "003" { $2 = "004"; done = 1; print $1 > "changed.lid" }
	{ print }' >edited.dump
lid=$(printf "%d" "$(cat changed.lid)")
if (OSM_CACHE_DIR=$t_tmp OSM_TMP_DIR=$t_tmp sim_run opensm -o -s 0 -R file -U "$t_tmp/edited.dump" \
	-f "$t_tmp/osm2.log" >osm2.out 2>&1) && grep -q 'file tables configured on all switches' osm2.log; then
	ok "a second OpenSM programmed leaf-00's LID $lid on port 4"
else
	not_ok "a second OpenSM programmed leaf-00's LID $lid on port 4"
fi
wait_for "the read-back finds one entry drifting" read_back 1
runs "status with drift: not ready" 4 "$F" status $U
like "status shows the drift" "$out" \
	"^read-back: +epoch 1: 4 of 4 switches read in [0-9]+ ms; DRIFT: 1 LFT entry on 1 switch differs from the published tables$"
like "and the entry" "$out" "^  drift: +leaf-00 0x0002fab100000001 LID $lid: port 4 programmed, 3 computed$"
like "the failing check says so" "$out" "^  failing: +.*differ from the published tables"
"$F" lft leaf-00 $U >lft.out
sim_run ibroute 1 >ibroute.out 2>/dev/null
is "fabroute lft and ibroute differ in that entry alone" "$(diff lft.out ibroute.out | grep '^[<>]' | cut -c1-12)" \
	"$(printf '< 0x%04x 003\n> 0x%04x 004' "$lid" "$lid")"
d_stop
done_testing
