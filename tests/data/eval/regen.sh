#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Regenerate the evaluation fixtures from real OpenSM runs under ibsim, each
# checked by ibdmchk (README.md says what every file is):
#   tests/data/eval/regen.sh [CASE...]        (no CASE: every case below)
# The fabric of a case is written by `fabroute gen` ($FABROUTE, else
# `fabroute` in PATH); without it the committed CASE/fabric.net is reused.
# Needs ibsim, opensm, infiniband-diags, umad2sim and ibutils (ibdmchk).
set -eu

# case               fabric     engine  OpenSM options (ROOTS: a root GUID file
#                                       naming the switch OpenSM runs on;
#                                       PATHSL: also ask the SA for every path SL)
cases='
ring-minhop          ring       minhop
ring-minhop-qos      ring       minhop  -Q
ring-updn            ring       updn    -a ROOTS
ring-ftree           ring       ftree
ring-nue             ring       nue
ring-dfsssp          ring       dfsssp  -Q PATHSL
fattree-minhop       fattree    minhop
fattree-updn         fattree    updn
fattree-ftree        fattree    ftree
fattree-nue          fattree    nue
dragonfly-minhop     dragonfly  minhop
dragonfly-updn       dragonfly  updn    -a ROOTS
dragonfly-ftree      dragonfly  ftree
dragonfly-nue        dragonfly  nue
'

gen_args() {
	case $1 in
	ring) echo "ring switches=5 hosts=2" ;;
	fattree) echo "kary-ntree k=2 n=3" ;;
	dragonfly) echo "dragonfly a=4 p=2 h=2" ;;
	*) echo "unknown fabric $1" >&2; return 1 ;;
	esac
}

here=$(cd "$(dirname "$0")" && pwd)
umad=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
if [ -z "${FABROUTE:-}" ]; then
	FABROUTE=$(command -v fabroute || :)
fi
tmp=$(mktemp -d)
sim_pid=
osm_pid=
cleanup() {
	rc=$?
	for p in $osm_pid $sim_pid; do
		kill "$p" 2>/dev/null || :
		wait "$p" 2>/dev/null || :
	done
	rm -rf "$tmp"
	exit $rc
}
trap cleanup EXIT INT TERM

# wait_for FILE PATTERN TENTHS: wait until FILE holds PATTERN.
wait_for() {
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt "$3" ]; then
			echo "timed out waiting for '$2' in $1" >&2
			return 1
		fi
		sleep 0.1
	done
}

# lid_nodes: "LID NODEGUID" (decimal LID, 0x GUID) of every port in opensm-subnet.lst.
lid_nodes() {
	sed 's/} {/}\n{/' dump/opensm-subnet.lst |
		sed -n 's/.*NodeGUID:\([0-9a-fA-F]*\) .* LID:\([0-9a-fA-F]*\) PN:.*/\2 \1/p' |
		sort -u | while read -r hex guid; do
			printf '%d 0x%s\n' "0x$hex" "$(echo "$guid" | tr 'A-F' 'a-f')"
		done | sort -n -u
}

# query_path_sls: ask the running OpenSM's SA for the path of every ordered
# pair of LIDs and write path-sl, the file `ibdmchk -c` reads.
query_path_sls() {
	lid_nodes >lids
	: >path-sl
	while read -r slid sguid; do
		while read -r dlid _; do
			[ "$slid" = "$dlid" ] && continue
			sl=$(LD_PRELOAD=$umad timeout 10 saquery -p --src-to-dst "$slid:$dlid" 2>/dev/null |
				sed -n 's/^[[:space:]]*sl\.*0x\([0-9a-fA-F]*\)$/\1/p')
			if [ -z "$sl" ]; then
				echo "no path record for $slid:$dlid" >&2
				return 1
			fi
			echo "$sguid $dlid $((0x$sl))" >>path-sl
		done <lids
	done <lids
}

run_opensm() {
	engine=$1
	shift
	if [ "$pathsl" = 1 ]; then
		LD_PRELOAD=$umad timeout 300 opensm -s 0 -d 2 -R "$engine" "$@" -f "$tmp/run/osm.log" \
			-D 0x43 --dump_files_dir "$tmp/run/dump" >osm.out 2>&1 &
		osm_pid=$!
		wait_for osm.log 'SUBNET UP' 300
		query_path_sls
	else
		LD_PRELOAD=$umad timeout 60 opensm -o -s 0 -R "$engine" "$@" -f "$tmp/run/osm.log" \
			-D 0x43 --dump_files_dir "$tmp/run/dump" >osm.out 2>&1
		grep -q 'Exiting SM' osm.out
	fi
}

# ibdmchk_run OUT [options]: ibdmchk prints its verdict (credit loops, or the
# paths it could not trace, after which it checks no loops), then crashes on exit.
ibdmchk_run() {
	out=$1
	shift
	(timeout 120 ibdmchk -s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs "$@" \
		>"$out" 2>&1 || :) 2>/dev/null
	grep -Eq 'no credit loops found|Found credit loop|missing paths out of' "$out" || {
		echo "no verdict in $out" >&2
		return 1
	}
}

verdict() {
	grep -Eo 'no credit loops found|Found credit loop|Found [0-9]+ missing paths' "$1" | tr '\n' ' '
}

regen_case() {
	name=$1 fabric=$2 engine=$3
	shift 3
	dir=$here/$name
	mkdir -p "$dir"
	if [ -n "$FABROUTE" ]; then
		# shellcheck disable=SC2046
		"$FABROUTE" gen $(gen_args "$fabric") -f ibsim -o "$dir/fabric.net"
	fi
	[ -s "$dir/fabric.net" ] || { echo "$name: no fabric.net and no fabroute" >&2; return 1; }
	rm -rf "$tmp/run" && mkdir -p "$tmp/run/dump" && cd "$tmp/run"
	pathsl=0
	opts=
	for o in "$@"; do
		case $o in
		ROOTS)
			sed -n 's/^switchguid=//p' "$dir/fabric.net" | head -n 1 >"$dir/root_guids"
			opts="$opts $dir/root_guids" ;;
		PATHSL) pathsl=1 ;;
		*) opts="$opts $o" ;;
		esac
	done
	export IBSIM_SOCKNAME="evfx$$" OSM_CACHE_DIR="$tmp/run/dump" OSM_TMP_DIR="$tmp/run/dump"
	mkfifo sim.in
	timeout 600 ibsim -n -s "$dir/fabric.net" 0<>sim.in >sim.log 2>&1 &
	sim_pid=$!
	wait_for sim.log 'Network simulator ready' 100
	# shellcheck disable=SC2086
	run_opensm "$engine" $opts
	LD_PRELOAD=$umad timeout 30 ibnetdiscover >ibnetdiscover.out 2>/dev/null
	for p in $osm_pid $sim_pid; do
		kill "$p" 2>/dev/null || :
		wait "$p" 2>/dev/null || :
	done
	osm_pid='' sim_pid=''
	rm -f "$dir/opensm-sl2vl.dump" "$dir/path-sl" "$dir"/ibdmchk*.out
	for f in opensm-lfts.dump opensm.fdbs opensm.mcfdbs opensm-subnet.lst guid2lid; do
		cp "dump/$f" "$dir/$f"
	done
	if [ -e dump/opensm-sl2vl.dump ]; then
		cp dump/opensm-sl2vl.dump "$dir/"
	fi
	if [ "$pathsl" = 1 ]; then
		cp path-sl "$dir/path-sl"
	fi
	cp ibnetdiscover.out "$dir/ibnetdiscover.out"
	used=$(sed -n 's/.*osm_ucast_mgr_process: \(.*\) tables configured on all switches.*/\1/p' \
		"$tmp/run/osm.log" | tail -n 1)
	{
		echo "requested $engine"
		echo "options$(echo "$opts" | sed "s|$dir/||g")"
		echo "used $used"
	} >"$dir/engine"
	cd "$dir"
	ibdmchk_run ibdmchk.out
	ibdmchk_run ibdmchk-all.out -a
	if [ "$pathsl" = 1 ]; then
		ibdmchk_run ibdmchk-sl.out -c path-sl
		ibdmchk_run ibdmchk-sl-all.out -a -c path-sl
	fi
	echo "$name: $(tr '\n' ' ' <engine); ibdmchk: $(verdict ibdmchk.out), with -a: $(verdict ibdmchk-all.out)"
}

want=" $* "
while read -r name fabric engine opts; do
	[ -n "$name" ] || continue
	[ $# -eq 0 ] || case $want in *" $name "*) ;; *) continue ;; esac
	# shellcheck disable=SC2086
	regen_case "$name" "$fabric" "$engine" $opts </dev/null
done <<EOF
$cases
EOF
