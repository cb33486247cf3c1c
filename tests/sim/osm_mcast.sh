#!/bin/sh
# Multicast under the fabroute engine: ibsim simulating a fat tree, real
# OpenSM, CAs joining the IPoIB broadcast group through the SA (mcjoin).
# OpenSM routes a group's spanning tree with the switches' hop matrices,
# which the plugin fills when fabroute routes the pass. Three runs on the
# same fabric, the same joins in the same order:
#  - OpenSM alone (minhop: OpenSM's own min-hop matrices);
#  - the plugin and fabrouted (sftree): fabroute's unicast tables, and
#    the same hop matrices (opensm-lid-matrix.dump) and the same multicast
#    tables (opensm.mcfdbs, non-empty) as OpenSM alone; saquery -g shows
#    the group, the switches hold its multicast tables (ibroute -M);
#  - fabrouted refuses its routing mid-pass (fabroute's ftree leaves switch
#    pairs unrouted, publish_policy proven): OpenSM's next engine (minhop)
#    routes with matrices equal to OpenSM's own, multicast the same.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
have_ibsim || skip_all "ibsim, umad2sim or infiniband-diags missing"
for t in opensm saquery; do command -v $t >/dev/null 2>&1 || skip_all "$t missing"; done
plugin=${FABROUTE_OSM_PLUGIN:-$top_builddir/.libs/libfabroute-osm.so}
[ -r "$plugin" ] || skip_all "no OpenSM plugin at $plugin (built only with libopensm-dev)"
mcjoin=$top_builddir/tests/sim/mcjoin
[ -x "$mcjoin" ] || skip_all "no $mcjoin (make check builds it)"
plugdir=$t_tmp/plugin
mkdir -p "$plugdir"
cp "$plugin" "$plugdir/libfabroute-osm.so"

cd "$t_tmp" || exit 1
"$FABROUTE" gen kary-ntree k=3 n=3 -f ibsim -o t.net
MEMBERS="node-00 node-04 node-13 node-22 node-26"
BCAST=ff12:401b:ffff::ffff:ffff

# wait_up DIR N: until DIR/osm.log holds N "SUBNET UP" lines
wait_up() {
	i=0
	while n=$(grep -c "SUBNET UP" "$1/osm.log" 2>/dev/null); [ "${n:-0}" -lt "$2" ]; do
		i=$((i + 1))
		[ $i -gt 600 ] && { diag "no SUBNET UP (x$2) in $1/osm.log"; return 1; }
		kill -0 "$OSM_PID" 2>/dev/null || { diag "OpenSM exited"; return 1; }
		sleep 0.1
	done
}

# run NAME CONF: OpenSM with CONF on a fresh simulator; the members join,
# a heavy sweep routes everything again and writes the dumps into $t_tmp/NAME
run() {
	d=$t_tmp/$1
	mkdir -p "$d"
	printf '%s\n' "$2" >"$d/osm.conf"
	sim_start "$t_tmp/t.net" || return 1
	( cd "$d" && LD_PRELOAD=$UMAD2SIM LD_LIBRARY_PATH=$plugdir OSM_CACHE_DIR=$d OSM_TMP_DIR=$d \
		exec timeout 120 opensm -F "$d/osm.conf" -s 0 -d 2 -D 0x43 --dump_files_dir "$d" \
		-f "$d/osm.log" >"$d/osm.out" 2>&1 ) &
	OSM_PID=$!
	t_sim_pids="$OSM_PID $t_sim_pids"
	wait_up "$d" 1 || return 1
	: >"$d/joins"
	for m in $MEMBERS; do
		( cd "$d" && SIM_HOST=$m LD_PRELOAD=$UMAD2SIM timeout 30 "$mcjoin" $BCAST ) >>"$d/joins" 2>&1
	done
	kill -HUP "$OSM_PID"
	wait_up "$d" 2 || return 1
	sleep 0.5	# the dumps are written after SUBNET UP
	( cd "$d" && LD_PRELOAD=$UMAD2SIM timeout 30 saquery -g ) >"$d/groups" 2>&1
	hw_mft "$d" >"$d/hw_mft"
	kill "$OSM_PID" 2>/dev/null
	wait "$OSM_PID" 2>/dev/null
	sim_stop
}
# awk: hex("0x01a") = 26
HEX='function hex(s,  i, n) { s = tolower(s); sub(/^0x/, "", s); n = 0
	for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }'
# mft_entries DUMP: "switch-guid mlid port,port,..." lines of an opensm.mcfdbs, sorted
mft_entries() {
	awk "$HEX"'
	/^Switch/ { sw = tolower($2); next }
	/^0x[cC]/ { p = ""; for (i = 3; i <= NF; i++) p = p (p == "" ? "" : ",") hex($i); print sw, hex($1), p }' "$1" |
		LC_ALL=C sort
}
# hw_mft DIR: the same lines read from the switches (ibroute -M) that DIR/opensm.mcfdbs names
hw_mft() {
	for g in $(awk '/^Switch/ { print tolower($2) }' "$1/opensm.mcfdbs"); do
		lid=$(awk -v g="$g" 'tolower($1) == g { print $2 }' "$1/guid2lid")
		( cd "$1" && LD_PRELOAD=$UMAD2SIM timeout 30 ibroute -M "$((lid))" 2>/dev/null ) | awk -v sw="$g" "$HEX"'
		/Ports:/ { for (i = 1; i <= length($0); i++) if (substr($0, i, 1) ~ /[0-9]/ && substr($0, i - 1, 1) == " ") {
				n = substr($0, i); sub(/ .*/, "", n); at[n + 0] = i; top = n + 0 } next }
		/^0x[cC]/ { p = ""; for (k = 0; k <= top; k++) if (substr($0, at[k], 1) == "x") p = p (p == "" ? "" : ",") k
			print sw, hex($1), p }'
	done | LC_ALL=C sort
}

# --- OpenSM alone -------------------------------------------------------------------
run ref "routing_engine minhop" || { not_ok "OpenSM alone runs"; done_testing; }
is "OpenSM alone: every member joined" "$(grep -c "joined $BCAST as LID [0-9]*: MLID 0xc000" ref/joins)" 5
mft_entries ref/opensm.mcfdbs >ref/mft
like "OpenSM alone: the broadcast group (MLID 0xc000) has multicast tables" "$(cat ref/mft)" " 49152 "
[ -s ref/opensm-lid-matrix.dump ] && ok "OpenSM alone: hop matrices dumped" || not_ok "OpenSM alone: hop matrices dumped"

# --- fabroute routes --------------------------------------------------------------------
sock=$t_tmp/osm.sock
d_start fr --source opensm --socket "$sock" --engine sftree --readback 0 || { not_ok "fabrouted starts"; done_testing; }
run fab "event_plugin_name fabroute-osm
event_plugin_options socket=$sock timeout_ms=10000
routing_engine minhop" || { not_ok "OpenSM with the plugin runs"; done_testing; }
is "fabroute: both sweeps routed by fabroute" "$(grep -c "fabroute tables configured" fab/osm.log)" 2
is "fabroute: no fallback" "$(grep -c "next routing engine routes" fab/osm.log)" 0
is "fabroute: every member joined" "$(grep -c "joined $BCAST as LID [0-9]*: MLID 0xc000" fab/joins)" 5
if cmp -s ref/opensm-lid-matrix.dump fab/opensm-lid-matrix.dump; then
	ok "fabroute: the hop matrices are OpenSM's own"
else
	not_ok "fabroute: the hop matrices are OpenSM's own"
	diff ref/opensm-lid-matrix.dump fab/opensm-lid-matrix.dump | head -5 | sed 's/^/# /'
fi
mft_entries fab/opensm.mcfdbs >fab/mft
if [ -s ref/mft ] && cmp -s ref/mft fab/mft; then
	ok "fabroute: the multicast tables are those OpenSM alone computes ($(wc -l <fab/mft) switches)"
else
	not_ok "fabroute: the multicast tables are those OpenSM alone computes"
	diff ref/mft fab/mft | head -5 | sed 's/^/# /'
fi
like "fabroute: saquery -g shows the broadcast group" "$(cat fab/groups)" "MGID\.+ff12:401b:ffff::ffff:ffff"
like "fabroute: ... with its MLID" "$(cat fab/groups)" "Mlid\.+0xC000"
if [ -s fab/mft ] && cmp -s fab/mft fab/hw_mft; then
	ok "fabroute: the switches hold those multicast tables (ibroute -M)"
else
	not_ok "fabroute: the switches hold those multicast tables (ibroute -M)"
	diff fab/mft fab/hw_mft | head -5 | sed 's/^/# /'
fi
if cmp -s ref/opensm-lfts.dump fab/opensm-lfts.dump; then
	not_ok "fabroute: the unicast tables are fabroute's, not minhop's"
else
	ok "fabroute: the unicast tables are fabroute's, not minhop's"
fi
d_stop

# --- fabroute refuses its routing mid-pass: OpenSM's minhop -------------------------------
d_start fb --source opensm --socket "$sock" --engine ftree --readback 0 || { not_ok "fabrouted starts"; done_testing; }
run fallback "event_plugin_name fabroute-osm
event_plugin_options socket=$sock timeout_ms=10000
routing_engine minhop" || { not_ok "OpenSM with the plugin runs (fallback)"; done_testing; }
like "fallback: fabrouted refuses its routing (publish_policy proven)" "$(cat "$D_LOG.new")" \
	"ftree: routed, not accepted: [0-9]+ pairs unreachable"
is "fallback: both sweeps left to OpenSM's next engine" "$(grep -c "next routing engine routes this pass" fallback/osm.log)" 2
is "fallback: minhop routed them" "$(grep -c "minhop tables configured" fallback/osm.log)" 2
if cmp -s ref/opensm-lid-matrix.dump fallback/opensm-lid-matrix.dump; then
	ok "fallback: minhop had OpenSM's own hop matrices"
else
	not_ok "fallback: minhop had OpenSM's own hop matrices"
	diff ref/opensm-lid-matrix.dump fallback/opensm-lid-matrix.dump | head -5 | sed 's/^/# /'
fi
mft_entries fallback/opensm.mcfdbs >fallback/mft
cmp -s ref/mft fallback/mft && ok "fallback: the multicast tables are OpenSM's" ||
	not_ok "fallback: the multicast tables are OpenSM's"
cmp -s ref/opensm-lfts.dump fallback/opensm-lfts.dump && ok "fallback: the unicast tables are minhop's" ||
	not_ok "fallback: the unicast tables are minhop's"
d_stop
done_testing
