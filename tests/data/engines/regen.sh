#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Regenerate the fixtures of the baseline engines (minhop, updn) from real
# OpenSM runs under ibsim (README.md says what every file is):
#   tests/data/engines/regen.sh [CASE...]        (no CASE: every case below)
# The fabric of a case is written by `fabroute gen` ($FABROUTE, else
# `fabroute` in PATH); without it the committed CASE/fabric.net is reused.
# Needs ibsim, opensm and umad2sim; ibdmchk (ibutils) for the updn cases.
set -eu

# case                   engine  OpenSM options (ROOTS: a root GUID file naming
#                                the first switch of fabric.net)
cases='
gft2-minhop-lmc2         minhop  -l 2
dragonfly-minhop-lmc1    minhop  -l 1
multicore-minhop         minhop
random-updn              updn    -a ROOTS
torus-updn               updn    -a ROOTS
rack-updn                updn
'

gen_args() {
	case $1 in
	gft2-*) echo "gft2 n=4 m=4 r=6" ;;
	dragonfly-*) echo "dragonfly a=4 p=2 h=2" ;;
	multicore-*) echo "multicore" ;;
	random-*) echo "random switches=16 machines=32 degree=4" ;;
	torus-*) echo "torus dims=4,4 hosts=2" ;;
	rack-*) echo "ft648-rack racks=4 hosts=4 uplinks=9" ;;
	*) echo "unknown case $1" >&2; return 1 ;;
	esac
}

here=$(cd "$(dirname "$0")" && pwd)
umad=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
if [ -z "${FABROUTE:-}" ]; then
	FABROUTE=$(command -v fabroute || :)
fi
tmp=$(mktemp -d)
sim_pid=
cleanup() {
	rc=$?
	if [ -n "$sim_pid" ]; then
		kill "$sim_pid" 2>/dev/null || :
		wait "$sim_pid" 2>/dev/null || :
	fi
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

run_case() {
	name=$1 engine=$2
	shift 2
	dir=$here/$name
	mkdir -p "$dir"
	if [ -n "$FABROUTE" ]; then
		# shellcheck disable=SC2046
		"$FABROUTE" gen $(gen_args "$name") -f ibsim --seed 1 -o "$dir/fabric.net"
	fi
	rm -rf "$tmp/run"
	mkdir -p "$tmp/run/dump"
	cd "$tmp/run"
	opts=
	for o in "$@"; do
		if [ "$o" = ROOTS ]; then
			sed -n 's/^switchguid=//p' "$dir/fabric.net" | head -1 >"$dir/root_guids"
			o=$dir/root_guids
		fi
		opts="$opts $o"
	done
	export IBSIM_SOCKNAME="engfx$$" OSM_CACHE_DIR="$tmp/run/dump" OSM_TMP_DIR="$tmp/run/dump"
	mkfifo sim.in
	timeout 600 ibsim -n -s "$dir/fabric.net" 0<>sim.in >sim.log 2>&1 &
	sim_pid=$!
	wait_for sim.log 'simulator ready' 600
	# shellcheck disable=SC2086
	LD_PRELOAD=$umad timeout 120 opensm -o -s 0 -R "$engine" $opts -f "$tmp/run/osm.log" \
		-D 0x43 --dump_files_dir "$tmp/run/dump" >osm.out 2>&1
	kill "$sim_pid" 2>/dev/null || :
	wait "$sim_pid" 2>/dev/null || :
	sim_pid=
	used=$(sed -n 's/.* \([a-z]*\) tables configured on all switches.*/\1/p' osm.log | head -1)
	printf 'requested %s\noptions %s\nused %s\n' "$engine" "$*" "$used" >"$dir/engine"
	cp dump/opensm-lfts.dump dump/opensm-subnet.lst dump/guid2lid "$dir/"
	if [ "$engine" = updn ] && command -v ibdmchk >/dev/null 2>&1; then
		# ibdmchk prints its verdict, then crashes on exit
		sh -c 'cd dump && ibdmchk -a -s opensm-subnet.lst -f opensm.fdbs \
			-m opensm.mcfdbs >"$1" 2>&1; :' sh "$dir/ibdmchk-all.out" 2>/dev/null
	fi
	cd "$here"
	echo "$name: $used"
}

echo "$cases" | while read -r name engine opts; do
	[ -n "$name" ] || continue
	if [ $# -gt 0 ]; then
		want=
		for c in "$@"; do [ "$c" = "$name" ] && want=1; done
		[ -n "$want" ] || continue
	fi
	# shellcheck disable=SC2086
	run_case "$name" "$engine" $opts
done
