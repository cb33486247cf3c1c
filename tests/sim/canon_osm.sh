#!/bin/sh
# Same fabric, same tables, through real parts: ibsim simulates a degraded
# rack-switch fat tree, real OpenSM with the fabroute-osm plugin hands
# fabrouted --source opensm its subnet (nodes in OpenSM's node_guid_tbl
# order), and `fabroute compute` routes what ibnetdiscover reads from the
# same simulated fabric (the switches in discovery order), with the LIDs
# OpenSM gave. For ftree and updn:
# - the digest fabrouted publishes (GET /api/fabric) equals compute's
#   (summary.json), and its LFTs (GET /api/lfts) are compute's, byte for byte;
# - the switches (dump_fts) hold exactly those tables;
# - the ibnetdiscover output with its records and port lines reversed
#   gives compute the same digest and the same files.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
. "$top_srcdir/tests/sim/osm_lib.sh"

cd "$t_tmp" || exit 1
"$FABROUTE" gen ft648-rack racks=4 hosts=8 uplinks=4 --link-faults 6 --seed 3 -f ibsim -o t.net
sim_start "$t_tmp/t.net" || { not_ok "ibsim starts"; done_testing; }
sock=$t_tmp/osm.sock
FABROUTED_WRAPPER="env LD_PRELOAD=$UMAD2SIM" \
	d_start e --source opensm --socket "$sock" --engine ftree --publish-policy any --repair none \
	--readback 0 \
	--api-write-rate-limit 0 || { not_ok "fabrouted starts"; done_testing; }
cat >osm.conf <<EOC
event_plugin_name fabroute-osm
event_plugin_options socket=$sock timeout_ms=5000
routing_engine updn
EOC
osm_start
wait_log "SUBNET UP" 1 && ok "OpenSM brings the subnet up" || not_ok "OpenSM brings the subnet up"
sim_run ibnetdiscover >live.ibnd 2>/dev/null
[ -s live.ibnd ] && ok "ibnetdiscover reads the fabric" || not_ok "ibnetdiscover reads the fabric"
awk 'BEGIN { RS = ""; FS = "\n" }
{	head = ""; n = 0
	for (i = 1; i <= NF; i++) if ($i ~ /^\[/) pl[++n] = $i; else head = head $i "\n"
	rec = head; for (i = n; i >= 1; i--) rec = rec pl[i] "\n"
	if (n == 0 && head ~ /^#/) pre = pre rec "\n"; else r[++nr] = rec }
END { printf "%s", pre; for (i = nr; i >= 1; i--) printf "%s\n", r[i] }' live.ibnd >reversed.ibnd
cmp -s live.ibnd reversed.ibnd && not_ok "the records are reversed" || ok "the records are reversed"

# check ENGINE SEQ: fabrouted's epoch SEQ, routed by ENGINE, against compute and the switches
check() {
	d_wait_epoch "$2" || { not_ok "$1: fabrouted routed OpenSM's pass"; return; }
	api GET /api/fabric
	is "$1: fabrouted routed OpenSM's subnet with $1" "$(jf .epoch.engine)" "$1"
	ours=$(jf .routing.digest)
	like "$1: fabrouted publishes the routing's digest" "$ours" '^[0-9a-f]{64}$'
	api GET /api/lfts
	printf '%s\n' "$body" >"daemon-$1.dump"
	for t in live reversed; do
		"$FABROUTE" compute -e "$1" --topology $t.ibnd -d "$t-$1" >/dev/null 2>&1 ||
			not_ok "$1: compute routes the $t ibnetdiscover output"
	done
	is "$1: fabrouted's digest is compute's" "$ours" "$(jq -r .routing_digest "live-$1/summary.json")"
	cmp -s "daemon-$1.dump" "live-$1/opensm-lfts.dump" && ok "$1: fabrouted's LFTs are compute's, byte for byte" ||
		not_ok "$1: fabrouted's LFTs are compute's, byte for byte"
	is "$1: the reversed records give compute the same digest" \
		"$(jq -r .routing_digest "reversed-$1/summary.json")" "$ours"
	for f in opensm-lfts.dump guid2lid topology.ibnd; do
		cmp -s "live-$1/$f" "reversed-$1/$f" && ok "$1: the reversed records give the same $f" ||
			not_ok "$1: the reversed records give the same $f"
	done
	lft_entries "live-$1/opensm-lfts.dump" >off.txt
	i=0
	while sim_run dump_fts >hw.dump 2>/dev/null; lft_entries hw.dump >hw.txt; ! cmp -s hw.txt off.txt; do
		i=$((i + 1))
		[ $i -gt 50 ] && break
		sleep 0.2
	done
	[ -s hw.txt ] && cmp -s hw.txt off.txt && ok "$1: the switches hold compute's tables" ||
		not_ok "$1: the switches hold compute's tables"
}
check ftree 1
api POST /api/engine '{"chain":"updn"}'
is "engine: accepted" "$code" 202
check updn 2

kill "$OSM_PID" 2>/dev/null
wait "$OSM_PID" 2>/dev/null
d_stop
is "fabrouted stops cleanly" "$D_STATUS" 0
done_testing
