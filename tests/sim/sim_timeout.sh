#!/bin/sh
# tests/sim/sim_timeout.c, the kernel's MAD timeouts preloaded under OpenSM:
# - a pass of OpenSM alone (no other SM) with it logs no timeout: every
#   answer is matched to its request (the simulator owns the TID's high half);
# - a second SM client that never answers (ibsysstat -S on an HCA marked
#   IsSM, SIM_SET_ISSM=1): OpenSM's SMInfo to it times out after its retries
#   and its pass ends with SUBNET UP, as on a real port;
# - without it, the same OpenSM waits for that answer for ever (what the
#   library is for: the simulator times nothing out).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
have_ibsim || skip_all "ibsim, umad2sim or infiniband-diags missing"
for t in opensm ibsysstat; do command -v $t >/dev/null 2>&1 || skip_all "$t missing"; done
[ -r "$SIM_TIMEOUT" ] || { not_ok "$SIM_TIMEOUT is there (make check builds it)"; done_testing; }
cd "$t_tmp" || exit 1
"$FABROUTE" gen kary-ntree k=4 n=2 -f ibsim -o t.net
sim_start "$t_tmp/t.net" || { not_ok "ibsim starts"; done_testing; }

# pass NAME PRELOAD SECONDS: one OpenSM pass (-o) from node-00, its exit status in $rc
pass() {
	mkdir -p "$t_tmp/$1"
	( cd "$t_tmp/$1" && LD_PRELOAD=$2 SIM_HOST=node-00 OSM_CACHE_DIR=$t_tmp/$1 OSM_TMP_DIR=$t_tmp/$1 \
		exec timeout "$3" opensm -o -s 0 -d 2 -R updn -f "$t_tmp/$1/osm.log" >"$t_tmp/$1/out" 2>&1 )
	rc=$?
}
timeouts() { grep -c "Timeout while getting attribute\|ERR 541[23]" "$t_tmp/$1/osm.log"; }

pass alone "$SIM_TIMEOUT $UMAD2SIM" 60
is "OpenSM alone, the library preloaded: its pass ends" "$rc" 0
is "and brings the subnet up" "$(grep -c 'SUBNET UP' alone/osm.log)" 1
is "and no request timed out or went unmatched" "$(timeouts alone)" 0

( SIM_SET_ISSM=1 SIM_HOST=node-01 LD_PRELOAD=$UMAD2SIM exec timeout 120 ibsysstat -S >"$t_tmp/mute.out" 2>&1 ) &
t_sim_pids="$! $t_sim_pids"
sleep 0.5
pass mute "$SIM_TIMEOUT $UMAD2SIM" 60
is "a second SM that never answers: OpenSM's pass ends" "$rc" 0
is "and brings the subnet up" "$(grep -c 'SUBNET UP' mute/osm.log)" 1
is "its SMInfo to the silent SM timed out, as on a real port" \
	"$(grep -c 'Timeout while getting attribute 0x20 (SMInfo)' mute/osm.log)" 1
is "no answer unmatched and no timeout handed back twice" "$(grep -c 'ERR 541[23]' mute/osm.log)" 0

pass bare "$UMAD2SIM" 8
is "without the library, the same pass is still waiting for that answer 8 s later" "$rc" 124
done_testing
