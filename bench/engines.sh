#!/bin/sh
# Routing engines against OpenSM's on the same fabric, in the same run:
# 3-level fat trees of 2000 CAs / 500 switches and 5184 CAs / 864 switches.
# OpenSM runs under ibsim; its routing phase is taken from its log, from
# "Entering MASTER state" to "<engine> tables configured on all switches"
# (LID assignment and LFT computation; the upload to the switches comes
# after). Ours is the engine's compute time (summary.json) and the peak
# memory of the whole `fabroute compute` run.
#   bench/engines.sh [BUILD_DIR]      (needs ibsim and opensm)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
fab=$build/fabroute
umad=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
tmp=$(mktemp -d)
sim=
trap '[ -n "$sim" ] && kill $sim 2>/dev/null; rm -rf "$tmp"' EXIT
make -C "$build" -s fabroute

# microseconds since midnight of an OpenSM log line ("Nov 21 22:36:34 027955 ...")
usec() { awk '{ split($3, t, ":"); printf "%.0f\n", ((t[1] * 60 + t[2]) * 60 + t[3]) * 1e6 + $4 }'; }

osm_phase() {
	dir=$1 engine=$2
	export IBSIM_SOCKNAME="bench$$$engine"
	(cd "$dir" && exec ibsim -n -s fabric.net -S 1024 -N 8192 -P 60000 > sim.log 2>&1) &
	sim=$!
	until grep -q "simulator ready" "$dir/sim.log" 2>/dev/null; do sleep 0.2; done
	rm -f "$dir/osm.log"
	(cd "$dir" && OSM_CACHE_DIR=$dir OSM_TMP_DIR=$dir LD_PRELOAD=$umad timeout 900 \
		opensm -o -s 0 -R "$engine" -f "$dir/osm.log" > /dev/null 2>&1) || true
	kill $sim; wait $sim 2>/dev/null || true; sim=
	a=$(grep -m1 "Entering MASTER state" "$dir/osm.log" | usec)
	line=$(grep -m1 "tables configured on all switches" "$dir/osm.log" || true)
	b=$(printf '%s\n' "$line" | usec)
	used=$(printf '%s\n' "$line" | sed -n 's/.*osm_ucast_mgr_process: \([a-z_]*\) tables.*/\1/p')
	awk -v a="$a" -v b="$b" -v u="$used" 'BEGIN { printf "%9.1f ms (%s)", (b - a) / 1000, u }'
}

ours() {
	dir=$1 engine=$2
	/usr/bin/time -f "%M" -o "$dir/mem" "$fab" compute --engine "$engine" \
		--topology "$dir/fabric.ibnd" --out-dir "$dir/$engine" > /dev/null 2>&1 || { echo "     failed"; return; }
	awk -v m="$(cat "$dir/mem")" '/"compute_ms"/ { gsub(/[,]/, "", $2); printf "%9.1f ms, %6.1f MiB peak", $2, m / 1024 }' \
		"$dir/$engine/summary.json"
}

bench() {
	name=$1
	shift
	dir=$tmp/$name
	mkdir -p "$dir"
	"$fab" gen xgft "$@" -o "$dir/fabric.ibnd"
	"$fab" convert --to ibsim -o "$dir/fabric.net" "$dir/fabric.ibnd"
	echo "=== $name: xgft $* ($("$fab" show --json "$dir/fabric.ibnd" | jq -r '"\(.nodes.cas) CAs, \(.nodes.switches) switches"'))"
	printf "%-8s %-28s %-36s\n" engine "OpenSM routing phase" "fabroute compute"
	for e in minhop updn ftree sftree; do
		if [ "$e" = sftree ]; then o="        (no such engine)"; else o=$(osm_phase "$dir" "$e"); fi
		printf "%-8s %-28s %s\n" "$e" "$o" "$(ours "$dir" "$e")"
	done
}

bench ft2000 h=3 m=20,10,10 w=1,20,10
bench ft5184 h=3 m=18,18,16 w=1,18,16
