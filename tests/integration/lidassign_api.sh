#!/bin/sh
# The LIDs lidassign plans, through the daemon: fabrouted routes a random
# fabric with pathsel (per-port LMC); /api/lids gives each port the range
# compute plans offline, /api/route each pair the DLID compute's paths file
# lists, and the epoch survives a restart from the database.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"

F=$FABROUTE
"$F" gen random switches=8 machines=32 degree=4 --seed 4 -o "$t_tmp/r.ibnd"
"$F" compute -e pathsel --topology "$t_tmp/r.ibnd" -d "$t_tmp/c" > /dev/null ||
	not_ok "compute -e pathsel"

d_start la --topology "$t_tmp/r.ibnd" --engine pathsel || { not_ok "fabrouted starts"; done_testing; }
ok "fabrouted starts with engine pathsel"
d_wait_epoch 1 && ok "the first epoch is published" || not_ok "the first epoch is published"
api GET /api/fabric
is "routed by pathsel" "$(jf .epoch.engine)" pathsel

# every port's range: the daemon's equals compute's guid2lid
api GET /api/lids
printf '%s' "$body" | jq -r '.lids[] | "\(.guid) \(.lid) \(.lid + .lids - 1)"' | sort > "$t_tmp/api.lids"
while read -r g b t; do
	[ -n "$g" ] && echo "$g $((b)) $((t))"
done < "$t_tmp/c/guid2lid" | sort > "$t_tmp/c.lids"
is "/api/lids: the ranges compute plans" "$(cmp -s "$t_tmp/api.lids" "$t_tmp/c.lids" && echo same)" same
like "/api/lids: several LMCs (per port)" "$(jf '[.lids[].lmc] | unique | join(",")')" "^0,[1-7]"
is "/api/lids: lids_total sums the ranges" "$(jf '[.lids[].lids] | add')" "$(jf .lids_total)"

# sampled pairs: the planned DLID and hops of compute's paths file
n=0 same=0
for line in 1 77 200 333 512 700 991; do
	set -- $(sed -n "${line}p" "$t_tmp/c/paths")
	src=$1 dst=$2 dlid=$3
	shift 3
	api GET "/api/route?src=$src&dst=$dst"
	n=$((n + 1))
	[ "$(jf .dlid)" = "$dlid" ] && [ "$(jf .delivered)" = true ] &&
		[ "$(jf '[.hops[] | "\(.guid):\(.out_port)"] | join(" ")')" = "$*" ] &&
		[ "$(jf .dlid_offset)" = "$((dlid - $(jf .dst.lid)))" ] && same=$((same + 1))
done
is "/api/route: planned DLID and hops of $n sampled pairs" "$same" "$n"

d_stop
d_start la --topology "$t_tmp/r.ibnd" --engine pathsel || { not_ok "fabrouted restarts"; done_testing; }
d_wait_epoch 1 >/dev/null
api GET /api/lids
printf '%s' "$body" | jq -r '.lids[] | "\(.guid) \(.lid) \(.lid + .lids - 1)"' | sort > "$t_tmp/api2.lids"
is "after a restart: the same ranges" "$(cmp -s "$t_tmp/api2.lids" "$t_tmp/c.lids" && echo same)" same
d_stop
done_testing
