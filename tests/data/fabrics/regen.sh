#!/bin/sh
# Regenerate the fabrics of tests/data/fabrics (see README.md): the ibutils
# topologies through ibdm (ibdmsh) into ibsim's net format, simulated by
# ibsim with one OpenSM pass assigning LIDs, captured as ibnetdiscover
# prints them; the vendor-shaped dumps written by src/vendor.py. Needs
# ibutils, ibsim-utils, libumad2sim0, opensm, infiniband-diags, python3.
#   tests/data/fabrics/regen.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
ibnl=/usr/lib/x86_64-linux-gnu/ibdm1.5.7/ibnl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# capture NET OUT [IBNETDISCOVER OPTIONS]: simulate NET, one OpenSM pass, ibnetdiscover
capture() {
	net=$1 out=$2
	shift 2
	(
		cd "$work"
		IBSIM_SOCKNAME=fabrics-$$-$(basename "$out")
		export IBSIM_SOCKNAME OSM_CACHE_DIR=$work OSM_TMP_DIR=$work
		ibsim -n -s "$net" > sim.log 2>&1 &
		sim=$!
		sleep 1
		rc=0
		LD_PRELOAD=$shim timeout 120 opensm -o -s 0 -f "$work/osm.log" > /dev/null 2>&1 || rc=$?
		[ $rc -ne 0 ] || LD_PRELOAD=$shim timeout 60 ibnetdiscover "$@" > "$out" 2> ibnd.err ||
			rc=$?
		kill $sim 2>/dev/null || :
		wait $sim 2>/dev/null || :
		[ $rc -eq 0 ] || { echo "capture of $net failed ($rc)" >&2; cat ibnd.err >&2; }
		exit $rc
	)
	echo "$out"
}

# topo TOPO NAME [topo2net options]: an ibutils topology file into NAME.ibnd
topo() {
	src=$1 name=$2
	shift 2
	IBDM_IBNL_PATH=$here/src ibdmsh "$here/src/export.tcl" "$src" | grep -E '^(NODE|LINK) ' \
		> "$work/$name.exp"
	python3 "$here/src/topo2net.py" "$work/$name.exp" "$@" > "$work/$name.net"
	capture "$work/$name.net" "$here/$name.ibnd" ${GROUP:-}
}

topo "$ibnl/RhinoBased512.topo" rhino512
topo "$ibnl/RhinoBased512.topo" rhino512-no-sl2-3 --drop SL2-3/
gzip -9 -n -f "$here/rhino512.ibnd" "$here/rhino512-no-sl2-3.ibnd"	# 0.9 MB as text
GROUP=-g topo "$here/src/network.topo" network128
GROUP=-g topo "$here/src/gnu-based-32.topo" gnu32
GROUP=-g topo "$here/src/partial-gnu-based-32.topo" gnu32-partial
topo "$here/src/credit-loops.topo" credit-loops
topo "$ibnl/PartialGazelle.topo" gazelle-partial
topo "$ibnl/SingleRhino.topo" rhino-single
python3 "$here/src/vendor.py" "$here"
