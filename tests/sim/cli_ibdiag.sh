#!/bin/sh
# fabroute lft and fabroute route --format ibtracert against infiniband-diags
# on a simulated fabric: fabrouted routes a 2-ary 3-tree with LMC 1 (file
# source), OpenSM programs ibsim's switches with the tables the daemon
# published (GET /api/lfts, -R file -U, the LIDs from GET /api/lids), then
# - `ibroute LID`, reading each switch's table with SMPs, prints exactly
#   what `fabroute lft SWITCH` prints (LMC "path #" lines included);
# - `ibtracert SLID DLID` prints exactly what `fabroute route --format
#   ibtracert SRC DST` prints, for CA and switch ends.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
have_ibsim || skip_all "ibsim, umad2sim or infiniband-diags missing"
for t in opensm ibroute ibtracert; do command -v $t >/dev/null 2>&1 || skip_all "$t missing"; done

F=$FABROUTE
cd "$t_tmp" || exit 1
"$F" gen kary-ntree k=2 n=3 lmc=1 -o t.ibnd && "$F" gen kary-ntree k=2 n=3 lmc=1 -f ibsim -o t.net ||
	{ not_ok "the fabric is generated"; done_testing; }
d_start fab --topology "$t_tmp/t.ibnd" --engine sftree || { not_ok "fabrouted starts"; done_testing; }
d_wait_epoch 1 || { not_ok "fabrouted routes the fabric"; done_testing; }
U="--url $D_URL"
api GET /api/lfts
printf '%s\n' "$body" >ours.dump
api GET /api/lids
mkdir cache
jf '.lids[] | "\(.guid) \(.lid) \(.lmc)"' | while read -r g l m; do
	printf '%s 0x%04x 0x%04x\n' "$g" "$l" $((l + (1 << m) - 1))
done >cache/guid2lid
[ -s cache/guid2lid ] && [ "$(grep -c '^Unicast' ours.dump)" = 12 ] && ok "the daemon's tables and LIDs" ||
	{ not_ok "the daemon's tables and LIDs"; done_testing; }

sim_start "$t_tmp/t.net" || { not_ok "ibsim starts"; done_testing; }
if (OSM_CACHE_DIR=$t_tmp/cache OSM_TMP_DIR=$t_tmp/cache sim_run opensm -o -s 0 -l 1 -R file \
	-U "$t_tmp/ours.dump" -f "$t_tmp/osm.log" -d 2 >osm.out 2>&1) &&
	grep -q 'file tables configured on all switches' osm.log; then
	ok "OpenSM programmed the switches with the daemon's tables"
else
	not_ok "OpenSM programmed the switches with the daemon's tables"
	grep -E 'ERR|tables configured' osm.log | head -5 | sed 's/^/# /'
	done_testing
fi

# same_lft SWITCH: ibroute on the switch's LID prints what fabroute lft prints
same_lft() {
	api GET "/api/nodes/$1"
	lid=$(jf '.ports[0].lid')
	sim_run ibroute "$lid" >ibroute.out 2>ibroute.err
	"$F" lft "$1" $U >lft.out 2>lft.err
	if [ -s lft.out ] && cmp -s ibroute.out lft.out; then
		ok "ibroute $lid and fabroute lft $1 print the same ($(grep -c '^0x' lft.out) entries)"
	else
		not_ok "ibroute $lid and fabroute lft $1 print the same"
		diff ibroute.out lft.out | head -10 | sed 's/^/# /'
		sed 's/^/# /' lft.err ibroute.err | head -5
	fi
}
same_lft leaf-00
same_lft spine-03
same_lft 0x0002fab100000007
grep -q 'path #2 out of 2: portguid' lft.out && ok "LMC 1: the second LID of a range is a path # line" ||
	not_ok "LMC 1: the second LID of a range is a path # line"

# same_trace SRC DST: ibtracert SLID DLID prints what fabroute route --format ibtracert prints
same_trace() {
	api GET "/api/route?src=$1&dst=$2"
	slid=$(jf .src.lid) dlid=$(jf .dlid)
	sim_run ibtracert "$slid" "$dlid" >tracert.out 2>tracert.err
	"$F" route --format ibtracert "$1" "$2" $U >ours.out 2>ours.err
	if [ -s ours.out ] && cmp -s tracert.out ours.out; then
		ok "ibtracert $slid $dlid and fabroute route --format ibtracert $1 $2 print the same"
	else
		not_ok "ibtracert $slid $dlid and fabroute route --format ibtracert $1 $2 print the same"
		diff tracert.out ours.out | head -10 | sed 's/^/# /'
		sed 's/^/# /' ours.err tracert.err | head -5
	fi
}
same_trace node-00 node-07
same_trace node-05 node-02
same_trace node-01 spine-03
same_trace leaf-00 spine-02
same_trace spine-01 node-06
like "a switch-sourced trace starts at the switch's port 0" "$(head -1 ours.out)" \
	'^From switch \{0x0002fab10000000a\} portnum 0 lid 10-10 "spine-01"$'

d_stop
sim_stop
done_testing
