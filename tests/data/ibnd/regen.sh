#!/bin/sh
# Regenerate the ibnetdiscover samples of tests/data/ibnd and tests/data/ibsim:
# simulate each net file with ibsim, let OpenSM assign LIDs (one pass), then
# capture what ibnetdiscover prints. Needs ibsim-utils, libumad2sim0, opensm
# and infiniband-diags (see README.md). Run from anywhere:
#   tests/data/ibnd/regen.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so

# capture NET OUT LMC
capture() {
	net=$1 out=$2 lmc=$3
	work=$(mktemp -d)
	(
		cd "$work"
		IBSIM_SOCKNAME=regen-$$-$(basename "$out")
		export IBSIM_SOCKNAME OSM_CACHE_DIR=$work OSM_TMP_DIR=$work
		ibsim -n -s "$net" > sim.log 2>&1 &
		sim=$!
		sleep 1
		rc=0
		LD_PRELOAD=$shim timeout 60 opensm -o -s 0 -l "$lmc" -f "$work/osm.log" \
			> /dev/null 2>&1 || rc=$?
		[ $rc -ne 0 ] || LD_PRELOAD=$shim timeout 30 ibnetdiscover > "$out" 2> ibnd.err || rc=$?
		kill $sim 2>/dev/null || :
		wait $sim 2>/dev/null || :
		[ $rc -eq 0 ] || { echo "capture of $net failed ($rc)" >&2; cat ibnd.err >&2; }
		exit $rc
	)
	rm -rf "$work"
	echo "$out"
}

capture "$here/mixed.net" "$here/mixed.txt" 0
capture "$here/mixed.net" "$here/mixed-lmc2.txt" 2
capture "$here/fattree.net" "$here/fattree.txt" 0
for net in "$here"/../ibsim/net "$here"/../ibsim/net.*; do
	case $net in *.txt) continue ;; esac
	capture "$net" "$net.txt" 0
done
