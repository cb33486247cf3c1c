#!/bin/sh
# Evaluation benchmark: all-pairs connectivity (switches included) and the
# per-VL channel dependency graph on 3-level fat trees routed by real OpenSM
# under ibsim, against ibdmchk's time on the same dump (ibdmchk checks
# CA-to-CA paths only).
#   bench/eval.sh [BUILD_DIR]     (default: build; needs ibsim, opensm, ibutils)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
umad=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
tmp=$(mktemp -d)
sim=
trap '[ -n "$sim" ] && kill $sim 2>/dev/null; rm -rf "$tmp"' EXIT
make -C "$build" -s fabroute bench/bench_eval

bench() {
	name=$1
	shift
	dir=$tmp/$name
	mkdir -p "$dir"
	echo "=== $name: xgft $*"
	"$build/fabroute" gen xgft "$@" -f ibsim -o "$dir/fabric.net"
	export IBSIM_SOCKNAME="bench$$$name"
	(cd "$dir" && exec ibsim -n -s fabric.net -S 1024 -N 8192 -P 60000 > sim.log 2>&1) &
	sim=$!
	until grep -q "simulator ready" "$dir/sim.log" 2>/dev/null; do sleep 0.2; done
	t0=$(date +%s.%N)
	(cd "$dir" && OSM_CACHE_DIR=$dir OSM_TMP_DIR=$dir LD_PRELOAD=$umad timeout 900 \
		opensm -o -s 0 -R ftree -f "$dir/osm.log" -D 0x43 --dump_files_dir "$dir" \
		> /dev/null 2>&1)
	t1=$(date +%s.%N)
	kill $sim; wait $sim 2>/dev/null || true; sim=
	engine=$(grep -o "[a-z_]* tables configured on all switches" "$dir/osm.log" | head -1 || true)
	echo "OpenSM (under ibsim): $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s for the whole run; $engine"
	"$build/bench/bench_eval" "$dir/opensm-subnet.lst" "$dir/opensm-lfts.dump" 5
	if command -v ibdmchk > /dev/null; then
		t0=$(date +%s.%N)
		(cd "$dir" && timeout 900 ibdmchk -s opensm-subnet.lst -f opensm.fdbs \
			-m opensm.mcfdbs > ibdmchk.out 2>&1 || true)
		t1=$(date +%s.%N)
		echo "ibdmchk:       $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s (CA-to-CA only); says: $(grep -o -E \
			'no credit loops found|Found credit loop' "$dir/ibdmchk.out" | head -1)"
	fi
}

bench ft2000 h=3 m=20,10,10 w=1,20,10
bench ft5184 h=3 m=18,18,16 w=1,18,16
