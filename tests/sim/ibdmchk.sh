#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `fabroute eval` agrees with ibdmchk on OpenSM's own routings (TAP).
#
# For a ring of 5 switches (2 hosts each), a 3-level 2-ary fat tree and a
# fully connected dragonfly (a=4 p=2 h=2), each routed by two or three of
# OpenSM's engines: ibsim simulates the fabric, OpenSM routes it once and
# dumps its tables (-D 0x43), ibdmchk checks the dumps, and
#   fabroute eval --subnet opensm-subnet.lst --lfts opensm-lfts.dump --ca-only --json
# must give ibdmchk's verdict on CA-to-CA credit loops; without --ca-only,
# the verdict of `ibdmchk -a` (all paths, switches included), or its missing
# paths when it finds some (it checks no loops then). The exit status of
# fabroute eval must match its JSON (0 connected and deadlock-free, 4 not
# fully connected, 5 deadlock possible, 6 both).
#
# Then dfsssp on the ring, with QoS: it spreads the paths over several SLs,
# which OpenSM writes nowhere; its SA tells them (saquery -p per pair). The
# answers are written as the path-SL file `ibdmchk -c` reads, and
#   fabroute eval ... --path-sl FILE --sl2vl opensm-sl2vl.dump
# must agree with `ibdmchk -c FILE`, with and without -a.
#
# Last, ftdlr's repair of an sftree routing of a 4-ary 3-tree with three
# links down, loaded into the simulated switches by `opensm -R file -U`:
# the switches hold it entry for entry, and ibdmchk (CA paths, and -a) finds
# no credit loop, as fabroute eval says.
#
# Needs ibsim, opensm, ibdmchk (ibutils), umad2sim and jq; prints
# "1..0 # SKIP" without them.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

have_ibsim || skip_all "ibsim, umad2sim or ibnetdiscover not installed"
for tool in opensm ibdmchk jq timeout; do
	command -v "$tool" >/dev/null 2>&1 || skip_all "$tool not installed"
done

F=$FABROUTE

IBDMCHK_TIMEOUT=30
. "$top_srcdir/tests/sim/ibdmchk_lib.sh"

# eval_json DIR [options]: run fabroute eval; sets $json and $st. With a
# path-sl file in DIR, the path SLs and SL2VL tables are read too.
eval_json() {
	dir=$1
	shift
	if [ -s "$dir/path-sl" ]; then
		set -- --path-sl "$dir/path-sl" --sl2vl "$dir/opensm-sl2vl.dump" "$@"
	fi
	json=$(timeout 30 "$F" eval --subnet "$dir/opensm-subnet.lst" \
		--lfts "$dir/opensm-lfts.dump" "$@" --json 2>"$t_tmp/eval.err") && st=0 || st=$?
}

# want_status CONNECTED FREE: the exit status fabroute eval documents.
want_status() {
	case "$1 $2" in
	"true true") echo 0 ;;
	"false true") echo 4 ;;
	"true false") echo 5 ;;
	*) echo 6 ;;
	esac
}

# check_eval NAME DIR VERDICT CHECKER [--ca-only]: fabroute eval against
# the VERDICT of CHECKER (how ibdmchk was run).
check_eval() {
	name=$1 dir=$2 v=$3 checker=$4
	shift 4
	what="fabroute eval${1:+ $1}"
	[ -s "$dir/path-sl" ] && what="$what --path-sl --sl2vl"
	eval_json "$dir" "$@"
	conn=$(printf '%s' "$json" | jq -r '.connectivity.connected' 2>/dev/null)
	free=$(printf '%s' "$json" | jq -r '.deadlock.deadlock_free' 2>/dev/null)
	case "$conn $free" in
	"true true" | "true false" | "false true" | "false false") ;;
	*)
		not_ok "$name: $what prints the JSON verdicts"
		diag "exit $st: $(head -c 300 "$t_tmp/eval.err")"
		return ;;
	esac
	is "$name: $what exits as its JSON says" "$st" "$(want_status "$conn" "$free")"
	case $v in
	free) is "$name: $what: deadlock-free, like $checker" "$free" true ;;
	loop) is "$name: $what: credit loop, like $checker" "$free" false ;;
	missing*) is "$name: $what: not fully connected, like $checker ($v paths)" "$conn" false ;;
	*) not_ok "$name: $checker gives a verdict" ;;
	esac
}

# run_case NAME NET ENGINE [opensm options]
run_case() {
	name=$1 net=$2 engine=$3
	shift 3
	dir=$t_tmp/$name
	mkdir -p "$dir"
	if ! sim_start "$net"; then
		not_ok "$name: ibsim starts"
		return
	fi
	OSM_CACHE_DIR=$dir OSM_TMP_DIR=$dir
	export OSM_CACHE_DIR OSM_TMP_DIR
	if sim_run timeout 20 opensm -o -s 0 -R "$engine" "$@" \
		-f "$dir/osm.log" -D 0x43 --dump_files_dir "$dir" >"$dir/osm.out" 2>&1 </dev/null &&
		grep -q 'Exiting SM' "$dir/osm.out" && [ -s "$dir/opensm-lfts.dump" ]; then
		used=$(sed -n 's/.*osm_ucast_mgr_process: \(.*\) tables configured.*/\1/p' "$dir/osm.log")
		ok "$name: OpenSM routes once and dumps its tables (engine used: $used)"
	else
		not_ok "$name: OpenSM routes once and dumps its tables"
		sed 's/^/# /' "$dir/osm.out" | tail -n 5
		sim_stop
		return
	fi
	sim_stop
	v=$(ibdmchk_in "$dir" ibdmchk.out)
	check_eval "$name" "$dir" "$v" ibdmchk --ca-only
	v=$(ibdmchk_in "$dir" ibdmchk-all.out -a)
	check_eval "$name" "$dir" "$v" "ibdmchk -a"
}

# sa_sl SLID DLID: the SL of the SA's path record, in hex; empty when none came.
sa_sl() {
	sim_run timeout 10 saquery -p --src-to-dst "$1:$2" 2>/dev/null </dev/null |
		sed -n 's/^[[:space:]]*sl\.*0x\([0-9a-fA-F]*\)$/\1/p'
}

# path_sls DIR: ask the running OpenSM's SA for the SL of every ordered pair
# of LIDs; write DIR/path-sl as `ibdmchk -c` reads it (source node GUID).
path_sls() {
	sed 's/} {/}\n{/' "$1/opensm-subnet.lst" |
		sed -n 's/.*NodeGUID:\([0-9a-fA-F]*\) .* LID:\([0-9a-fA-F]*\) PN:.*/\2 \1/p' |
		sort -u | while read -r hex guid; do
			printf '%d 0x%s\n' "0x$hex" "$(echo "$guid" | tr 'A-F' 'a-f')"
		done | sort -n -u >"$1/lids"
	: >"$1/path-sl"
	while read -r slid sguid; do
		while read -r dlid _; do
			[ "$slid" = "$dlid" ] && continue
			sl=$(sa_sl "$slid" "$dlid")
			[ -n "$sl" ] || sl=$(sa_sl "$slid" "$dlid")	# once more: a loaded machine
			[ -n "$sl" ] || { diag "no path record for $slid -> $dlid"; return 1; }
			echo "$sguid $dlid $((0x$sl))" >>"$1/path-sl"
		done <"$1/lids"
	done <"$1/lids"
}

# run_sl_case NAME NET ENGINE [opensm options]: OpenSM as a daemon, so that
# its SA answers the path SL queries.
run_sl_case() {
	name=$1 net=$2 engine=$3
	shift 3
	dir=$t_tmp/$name
	mkdir -p "$dir"
	if ! sim_start "$net"; then
		not_ok "$name: ibsim starts"
		return
	fi
	OSM_CACHE_DIR=$dir OSM_TMP_DIR=$dir
	export OSM_CACHE_DIR OSM_TMP_DIR
	( cd "$t_tmp" && LD_PRELOAD="$UMAD2SIM" exec timeout 300 opensm -s 0 -d 2 -R "$engine" "$@" \
		-f "$dir/osm.log" -D 0x43 --dump_files_dir "$dir" >"$dir/osm.out" 2>&1 </dev/null ) &
	osm_pid=$!
	i=0
	while ! grep -q 'SUBNET UP' "$dir/osm.log" 2>/dev/null && [ $i -lt 150 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	used=$(sed -n 's/.*osm_ucast_mgr_process: \(.*\) tables configured.*/\1/p' "$dir/osm.log")
	is "$name: OpenSM routes with $engine and serves path records" "$used" "$engine"
	if path_sls "$dir" && [ -s "$dir/opensm-sl2vl.dump" ]; then
		ok "$name: the SA answers every path SL ($(wc -l <"$dir/path-sl") pairs)"
	else
		not_ok "$name: the SA answers every path SL"
		rm -f "$dir/path-sl"
	fi
	kill "$osm_pid" 2>/dev/null
	wait "$osm_pid" 2>/dev/null
	sim_stop
	[ -s "$dir/path-sl" ] || return
	v=$(ibdmchk_in "$dir" ibdmchk.out -c path-sl)
	check_eval "$name" "$dir" "$v" "ibdmchk -c" --ca-only
	v=$(ibdmchk_in "$dir" ibdmchk-all.out -a -c path-sl)
	check_eval "$name" "$dir" "$v" "ibdmchk -a -c"
}

# run_repair_case NAME: a 4-ary 3-tree without three links (two on the
# subtree root's ways) repaired by `fabroute compute -e ftdlr --base` from
# an sftree base; OpenSM loads the repair into the switches (-R file -U,
# the LIDs from the repair's guid2lid), the switches' tables read back equal
# it, and ibdmchk checks OpenSM's dumps of them.
run_repair_case() {
	name=$1
	dir=$t_tmp/$name
	cut="--remove-link l2-10:2 --remove-link l2-01:1 --remove-link spine-13:1"
	mkdir -p "$dir/cache" "$dir/dump"
	# shellcheck disable=SC2086
	if timeout 30 "$F" gen kary-ntree k=4 n=3 -o "$dir/k.ibnd" &&
		timeout 30 "$F" compute -e sftree --topology "$dir/k.ibnd" -d "$dir/base" >/dev/null &&
		timeout 30 "$F" gen kary-ntree k=4 n=3 $cut -o "$dir/k3.ibnd" &&
		timeout 30 "$F" gen kary-ntree k=4 n=3 $cut -f ibsim -o "$dir/k3.net" &&
		timeout 30 "$F" compute -e ftdlr --base "$dir/base" --topology "$dir/k3.ibnd" \
			-d "$dir/rep" >"$dir/compute.out" 2>&1 &&
		grep -q 'turned at the base.s subtree root' "$dir/compute.out"; then
		ok "$name: ftdlr repaired the sftree base"
	else
		not_ok "$name: ftdlr repaired the sftree base"
		sed 's/^/# /' "$dir/compute.out" 2>/dev/null | tail -n 3
		return
	fi
	if ! sim_start "$dir/k3.net"; then
		not_ok "$name: ibsim starts"
		return
	fi
	cp "$dir/rep/guid2lid" "$dir/cache/guid2lid"
	OSM_CACHE_DIR=$dir/cache OSM_TMP_DIR=$dir/cache
	export OSM_CACHE_DIR OSM_TMP_DIR
	if sim_run timeout 30 opensm -o -s 0 -R file -U "$dir/rep/opensm-lfts.dump" \
		-f "$dir/osm.log" -d 2 -D 0x43 --dump_files_dir "$dir/dump" >"$dir/osm.out" 2>&1 \
		</dev/null && grep -q 'file tables configured on all switches' "$dir/osm.log" &&
		sim_run dump_fts >"$dir/switches.dump" 2>/dev/null </dev/null; then
		ok "$name: OpenSM loaded the repair into the switches"
	else
		not_ok "$name: OpenSM loaded the repair into the switches"
		sim_stop
		return
	fi
	sim_stop
	lft_entries "$dir/rep/opensm-lfts.dump" >"$dir/ours.txt"
	lft_entries "$dir/switches.dump" >"$dir/switches.txt"
	is "$name: the switches hold the repair ($(wc -l <"$dir/ours.txt") entries)" \
		"$(cmp -s "$dir/ours.txt" "$dir/switches.txt" && echo same)" same
	v=$(ibdmchk_in "$dir/dump" ibdmchk.out)
	is "$name: ibdmchk, CA to CA paths: no credit loop" "$v" free
	v=$(ibdmchk_in "$dir/dump" ibdmchk-all.out -a)
	is "$name: ibdmchk -a, all paths: no credit loop" "$v" free
	check_eval "$name" "$dir/dump" "$v" "ibdmchk -a"
}

if ! timeout 10 "$F" eval --help >/dev/null 2>&1; then
	not_ok "fabroute has an eval command"
	done_testing
fi

gen() {
	timeout 30 "$F" gen "$@" -f ibsim -o "$t_tmp/$1.net" 2>"$t_tmp/gen.err" ||
		{ not_ok "fabroute gen $*"; sed 's/^/# /' "$t_tmp/gen.err"; }
}
gen ring switches=5 hosts=2
gen kary-ntree k=2 n=3
gen dragonfly a=4 p=2 h=2
# Up*/Down* finds no root where every switch has hosts: give it the switch
# OpenSM runs on (the first of the file).
for net in ring dragonfly; do
	sed -n 's/^switchguid=//p' "$t_tmp/$net.net" | head -n 1 >"$t_tmp/$net.roots"
done

run_case ring-minhop "$t_tmp/ring.net" minhop
run_case ring-updn "$t_tmp/ring.net" updn -a "$t_tmp/ring.roots"
run_case ring-nue "$t_tmp/ring.net" nue
run_case fattree-minhop "$t_tmp/kary-ntree.net" minhop
run_case fattree-ftree "$t_tmp/kary-ntree.net" ftree
run_case fattree-updn "$t_tmp/kary-ntree.net" updn
run_case dragonfly-minhop "$t_tmp/dragonfly.net" minhop
run_case dragonfly-updn "$t_tmp/dragonfly.net" updn -a "$t_tmp/dragonfly.roots"
run_case dragonfly-nue "$t_tmp/dragonfly.net" nue
run_sl_case ring-dfsssp "$t_tmp/ring.net" dfsssp -Q
run_repair_case fattree-ftdlr-repair

done_testing
