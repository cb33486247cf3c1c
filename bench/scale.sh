#!/bin/sh
# Scale benchmark: route + full proof (connectivity of every pair, switches
# included; the CDG per VL; all-to-all load) of 3-level fat trees from
# 5488 to 43904 CAs, with the engines sftree and ftree: times, peak
# resident memory, the pair-by-pair reference evaluator on the same routing
# (same report?), and the re-evaluation after a link goes down.
#   bench/scale.sh [BUILD_DIR]
#   RUNS=3        evaluations timed per case (the fastest is kept)
#   REF=1         time the reference evaluator on the 5488 and 16000 cases
#   REF_BIG=0     ... and on the 43904-CA case too (a minute or more)
#   DUMPS=0       also write the 16000-CA dump with `fabroute compute` and read
#                 it back with `fabroute eval` (2.5 GB in the build directory)
# Figures only; never fails on time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
runs=${RUNS:-3}
make -C "$build" -s fabroute bench/bench_scale

echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"\
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"

# run LABEL ENGINE [BENCH_OPTIONS...] -- FAMILY PARAMS...
run() {
	label=$1 engine=$2
	shift 2
	echo
	echo "=== $label, $engine"
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "process:       %e s wall, %U s user, %M KiB peak resident" \
			"$build/bench/bench_scale" -e "$engine" -r "$runs" "$@" 2>&1
	else
		"$build/bench/bench_scale" -e "$engine" -r "$runs" "$@"
	fi
}

ref=
[ "${REF:-1}" = 1 ] && ref=-R
ref_big=
[ "${REF_BIG:-0}" = 1 ] && ref_big=-R

for engine in sftree ftree; do
	# ref may be empty: it is meant to vanish from the command line
	# shellcheck disable=SC2086
	run "28-ary 3-level tree: 5488 CAs, 980 switches" $engine $ref -l mport-ntree m=28 n=3
	# shellcheck disable=SC2086
	run "40-ary 3-level tree: 16000 CAs, 2000 switches" $engine $ref mport-ntree m=40 n=3
	# shellcheck disable=SC2086
	run "56-ary 3-level tree: 43904 CAs, 3920 switches (47824 of 49151 LIDs)" $engine $ref_big \
		mport-ntree m=56 n=3
done
run "648-port 2-stage tree: 648 CAs, 54 switches" sftree -l ft648

if [ "${DUMPS:-0}" = 1 ]; then
	dir=$build/bench-scale-dump
	rm -rf "$dir"
	mkdir -p "$dir"
	echo
	echo "=== the 16000-CA routing through files"
	"$build/fabroute" gen mport-ntree m=40 n=3 -o "$dir/m40.ibnd"
	t0=$(date +%s.%N)
	"$build/fabroute" compute -e sftree --topology "$dir/m40.ibnd" -d "$dir/out" > /dev/null
	t1=$(date +%s.%N)
	echo "fabroute compute: $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s, opensm-lfts.dump" \
		"$(du -m "$dir/out/opensm-lfts.dump" | cut -f1) MiB"
	/usr/bin/time -f "fabroute eval:    %e s wall, %M KiB peak resident" "$build/fabroute" eval \
		--topology "$dir/out/topology.ibnd" --lfts "$dir/out/opensm-lfts.dump" | grep -E "^(time|connectivity|deadlock):"
	rm -rf "$dir"
fi
