#!/bin/sh
# dla end to end: ibsim simulating a fully connected dragonfly, real OpenSM
# with QoS on and the fabroute-osm plugin, fabrouted --source opensm with
# the chain dla,updn; on a=4,p=2,h=2 (72 CAs) and a=6,p=3,h=3 (342 CAs):
# - OpenSM programs dla's tables: the switches' LFTs (dump_fts) are
#   fabrouted's; opensm-sl2vl.dump maps exactly h(a-1) (in, out) rows of
#   every switch to VL1 for every SL, the others to VL0, as dla computed;
#   `smpquery sl2vl` reads them back from the simulated switches;
# - ibdmchk, given the SL2VL tables, finds no credit loop over the CA
#   paths (1 SL, 2 VLs); without them (every SL on VL0) it finds one;
# - the SA answers SL 0 (`saquery -p`);
# - GET /api/vl-usage: VL0 and VL1 with their channels, deadlock-free;
#   GET /api/route: the VL of every hop (VL1 on the local hop after the
#   global one);
# - QoS off: the plugin refuses dla's routing, OpenSM's next engine routes
#   the pass, and both OpenSM's log and fabrouted's events say why.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
have_ibsim || skip_all "ibsim, umad2sim or infiniband-diags missing"
for t in opensm dump_fts smpquery saquery ibdmchk; do
	command -v $t >/dev/null 2>&1 || skip_all "$t missing"
done
plugin=${FABROUTE_OSM_PLUGIN:-$top_builddir/.libs/libfabroute-osm.so}
[ -r "$plugin" ] || skip_all "no OpenSM plugin at $plugin (built only with libopensm-dev)"
plugdir=$t_tmp/plugin
mkdir -p "$plugdir"
cp "$plugin" "$plugdir/libfabroute-osm.so"
cd "$t_tmp" || exit 1

# osm_start [ARGS]: OpenSM as a daemon (no periodic sweeps) with the plugin
osm_start() {
	( cd "$t_tmp" && LD_PRELOAD=$UMAD2SIM LD_LIBRARY_PATH=$plugdir OSM_CACHE_DIR=$t_tmp OSM_TMP_DIR=$t_tmp \
		exec timeout 300 opensm -F "$t_tmp/osm.conf" -s 0 -d 2 -f "$t_tmp/osm.log" -D 0x43 \
		--dump_files_dir "$t_tmp" "$@" >"$t_tmp/osm.out" 2>&1 ) &
	OSM_PID=$!
	t_sim_pids="$OSM_PID $t_sim_pids"
}
osm_stop() {
	kill "$OSM_PID" 2>/dev/null
	wait "$OSM_PID" 2>/dev/null
}
# wait_log PATTERN COUNT: until osm.log holds COUNT lines matching PATTERN
wait_log() {
	i=0
	while n=$(grep -c -- "$1" osm.log 2>/dev/null); [ "${n:-0}" -lt "$2" ]; do
		i=$((i + 1))
		[ $i -gt 600 ] && { diag "no '$1' (x$2) in OpenSM's log"; return 1; }
		sleep 0.1
	done
}

jc() { printf '%s' "$body" | jq -c "$1"; }
# lid_of PORTGUID: its base LID (decimal) from OpenSM's guid2lid
lid_of() {
	v=$(awk -v g="$1" '$1 == g { print $2; exit }' "$t_tmp/guid2lid")
	echo $((${v:-0}))
}

# vl1_rows DUMP: "SWITCHES ROWS WRONG": switch records, rows mapping every SL
# to VL1, and switches whose count of such rows is not $H1 or that have a
# row other than all VL0 or all VL1
vl1_rows() {
	awk -v want="$H1" '
		function done_sw() { if (sw && n != want) bad++ }
		/^Switch 0x/ { done_sw(); sw = 1; nsw++; n = 0; next }
		/^(Channel Adapter|Router) / { done_sw(); sw = 0; next }
		sw && /^[0-9]+ +[0-9]+ +:/ {
			sub(/^[0-9]+ +[0-9]+ +: */, ""); gsub(/ +$/, "")
			if ($0 == "1  1  1  1  1  1  1  1  1  1  1  1  1  1  1  1") { n++; rows++ }
			else if ($0 != "0  0  0  0  0  0  0  0  0  0  0  0  0  0  0  0") bad++
		}
		END { done_sw(); printf "%d %d %d\n", nsw, rows, bad }' "$1"
}

# ibdmchk_sl2vl DUMP: OpenSM's opensm-sl2vl.dump as ibdmchk -d wants it:
# "0xSWITCHGUID IN OUT 0x(sl0)(sl1) 0x(sl2)(sl3) ..." per switch row (only the
# switches: OpenSM's CA rows carry its QoS mapping, SL s on VL s)
ibdmchk_sl2vl() {
	awk '/^Switch 0x/ { guid = $2; sub(/,$/, "", guid); sw = 1; next }
		/^(Channel Adapter|Router) / { sw = 0; next }
		sw && /^[0-9]+ +[0-9]+ +:/ {
			split($0, f, ":"); split(f[1], io, " "); n = split(f[2], vl, " ")
			line = guid " " io[1] " " io[2] " "
			for (i = 1; i <= 16; i += 2)
				line = line sprintf("%s0x%x%x", i > 1 ? " " : "", vl[i], vl[i + 1])
			print line
		}' "$1"
}

# check_size A P H: the whole QoS-on run on one dragonfly
check_size() {
	a=$1 p=$2 h=$3
	g=$((a * h + 1))
	S=$((g * a))
	N=$((S * p))
	H1=$((h * (a - 1)))
	tag="a=$a,p=$p,h=$h"
	"$FABROUTE" gen dragonfly a="$a" p="$p" h="$h" -f ibsim -o df.net
	sim_start "$t_tmp/df.net" || { not_ok "$tag: ibsim starts"; return; }
	FABROUTED_WRAPPER="env LD_PRELOAD=$UMAD2SIM" \
		d_start "e$a" --source opensm --socket "$t_tmp/osm.sock" --engine dla,updn \
		--readback-interval-s 0 --readback-timeout-ms 500 ||
		{ not_ok "$tag: fabrouted starts"; sim_stop; return; }
	cat >osm.conf <<EOC
event_plugin_name fabroute-osm
event_plugin_options socket=$t_tmp/osm.sock timeout_ms=20000
routing_engine minhop
EOC
	rm -f osm.log opensm-sl2vl.dump
	osm_start -Q
	wait_log "SUBNET UP" 1 && ok "$tag: OpenSM (QoS on) brings the subnet up" ||
		not_ok "$tag: OpenSM (QoS on) brings the subnet up"
	like "$tag: OpenSM routed with fabroute" "$(grep 'tables configured' osm.log)" "fabroute tables configured"
	like "$tag: the plugin installs dla's SL2VL tables on SL 0" "$(cat osm.log)" \
		"fabroute: the routing uses SLs 0 and VLs 0,1: OpenSM programs its SL2VL tables \($S of $S switches"
	api GET /api/fabric
	is "$tag: dla routed OpenSM's fabric" "$(jf .epoch.engine)" dla

	# the LFTs in the switches are fabrouted's
	sim_run dump_fts >hw.dump 2>/dev/null
	lft_entries hw.dump >hw.txt
	api GET /api/lfts
	printf '%s\n' "$body" >ours.dump
	lft_entries ours.dump >ours.txt
	if [ -s hw.txt ] && cmp -s hw.txt ours.txt; then ok "$tag: the switches hold dla's LFTs"; else
		not_ok "$tag: the switches hold dla's LFTs"; diff ours.txt hw.txt | head -5 | sed 's/^/# /'; fi

	# OpenSM's SL2VL dump: h(a-1) rows of every switch on VL1, as dla computed them
	is "$tag: opensm-sl2vl.dump: $S switches, $((S * H1)) rows on VL1, $H1 on every switch" \
		"$(vl1_rows opensm-sl2vl.dump)" "$S $((S * H1)) 0"
	"$FABROUTE" compute -e dla --topology "$t_tmp/df.net" -d "$t_tmp/off$a" >/dev/null 2>&1
	is "$tag: the same rows as fabroute compute -e dla writes offline" \
		"$(vl1_rows "$t_tmp/off$a/opensm-sl2vl.dump")" "$S $((S * H1)) 0"
	# smpquery sl2vl: g00-sw0's first local port (p+1), every in port; gcs are p+a..p+a+h-1
	lid=$(lid_of 0x0002fab100000001)
	got=$(sim_run smpquery sl2vl "$lid" $((p + 1)) 2>/dev/null | awk -F'|' '
		/^ports: in/ { split($1, w, /[ ,:]+/); v = ""; for (i = 2; i <= 17; i++) v = v ($i + 0)
			printf "%s:%s ", w[3], (v == "1111111111111111" ? 1 : v == "0000000000000000" ? 0 : "?") }')
	want=
	for in in $(seq 0 $((p + a - 1 + h))); do
		if [ "$in" -ge $((p + a)) ]; then want="$want$in:1 "; else want="$want$in:0 "; fi
	done
	is "$tag: smpquery sl2vl reads VL1 from the gcs out of a local port, VL0 from the rest" "$got" "$want"

	# ibdmchk over the CA paths, with and without the SL2VL tables
	ibdmchk_sl2vl opensm-sl2vl.dump >ibdm.sl2vl
	timeout 300 ibdmchk -s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs -d ibdm.sl2vl >ibdm-vl.out 2>&1
	like "$tag: ibdmchk with the SL2VL tables: 1 SL, 2 VLs" "$(cat ibdm-vl.out)" "1 SLs, 2 VLs used"
	like "$tag: ibdmchk with the SL2VL tables: no credit loop" "$(cat ibdm-vl.out)" "no credit loops found"
	like "$tag: ibdmchk checked every CA pair" "$(cat ibdm-vl.out)" "Scanned:$((N * (N - 1))) CA to CA paths"
	timeout 300 ibdmchk -s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs >ibdm-novl.out 2>&1
	like "$tag: ibdmchk without them (all on VL0): a credit loop (negative control)" \
		"$(cat ibdm-novl.out)" "Found credit loop"

	# the SA: SL 0 between a CA of group 0 and one of the last group
	src=$(lid_of 0x0002fab200000011)
	dst=$(lid_of "$(printf '0x%016x' $((0x0002fab200000001 + N * 16)))")
	sl=$(sim_run saquery -p --src-to-dst "$src:$dst" 2>/dev/null | sed -n 's/^[[:space:]]*sl\.*\(0x[0-9a-fA-F]*\).*/\1/p')
	is "$tag: saquery -p answers SL 0 (LID $src to $dst)" "$sl" 0x0

	# the API: VL usage and each hop's VL
	api GET /api/vl-usage
	is "$tag: /api/vl-usage: VLs 0 and 1, deadlock-free" "$(jc '[.vls_used, .deadlock_free]')" "[[0,1],true]"
	is "$tag: /api/vl-usage: VL0 on every lc and gc, VL1 on every lc" \
		"$(jc '[.vls[] | [.vl, .channels, .acyclic]]')" \
		"[[0,$((g * a * (a - 1) + g * (g - 1))),true],[1,$((g * a * (a - 1))),true]]"
	is "$tag: /api/vl-usage: only VL0 -> VL1 between VLs, no cycle" \
		"$(jc '[.cross_vl.dependencies, .cross_vl.cycle, .sl2vl.switches_with_tables, .sl2vl.sls_used]')" \
		"[$((g * (g - 1) * (a - 1))),false,$S,[0]]"
	# node-00 (g00-sw0) to the last CA of group 1 (g01-sw(a-1)): lc? gc lc
	last=$(printf 'node-%02d' $((2 * a * p - 1)))
	[ "$N" -gt 100 ] && last=$(printf 'node-%03d' $((2 * a * p - 1)))
	first=node-00
	[ "$N" -gt 100 ] && first=node-000
	api GET "/api/route?src=$first&dst=$last"
	is "$tag: /api/route $first -> $last: g00-sw0 (gc, VL0), g01-sw0 (lc, VL1), g01-sw$((a - 1)) (VL0)" \
		"$(jc '[.hops[] | select(.type == "SW") | [.node, .vl]]')" \
		"[[\"g00-sw0\",0],[\"g01-sw0\",1],[\"g01-sw$((a - 1))\",0]]"
	osm_stop
	d_stop
	sim_stop
}

check_size 4 2 2
check_size 6 3 3

# --- QoS off: the pass is refused, OpenSM's next engine routes ----------------
"$FABROUTE" gen dragonfly a=4 p=2 h=2 -f ibsim -o df.net
sim_start "$t_tmp/df.net" || { not_ok "ibsim starts"; done_testing; }
FABROUTED_WRAPPER="env LD_PRELOAD=$UMAD2SIM" \
	d_start off --source opensm --socket "$t_tmp/osm.sock" --engine dla,updn --readback-interval-s 0 ||
	{ not_ok "fabrouted starts"; done_testing; }
rm -f osm.log
osm_start
wait_log "SUBNET UP" 1 && ok "QoS off: the subnet comes up" || not_ok "QoS off: the subnet comes up"
why="the routing uses SLs 0 and VLs 0,1, but OpenSM's QoS is off, so OpenSM would program no SL2VL tables"
like "QoS off: OpenSM's log says the plugin refused dla's routing, and why" "$(cat osm.log)" \
	"fabroute: $why: start OpenSM with -Q \(qos TRUE\) \(after [0-9]+ ms\); OpenSM's next routing engine routes this pass"
like "QoS off: OpenSM's minhop routed the pass" "$(grep 'tables configured' osm.log)" "minhop tables configured"
i=0
while api GET "/api/events?type=opensm"; ! printf '%s' "$body" | grep -q "QoS is off" && [ $i -lt 50 ]; do
	i=$((i + 1)); sleep 0.1
done
like "QoS off: fabrouted's events say the pass fell back, and why" \
	"$(jc '[.events[] | select(.message | test("fallback|refused|QoS")) | [.message, .details]]')" "QoS is off"
osm_stop
d_stop
sim_stop
done_testing
