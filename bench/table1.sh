#!/bin/sh
# papers/003's Table I from fabroute's own files: for each of the 15 trees
# T(n+m, r) (r = n + m), `fabroute compute -e opt` (and -e dmodk), then
# `fabroute eval --metrics worst` on the directory compute wrote (eval reads
# the dlid-plan next to the LFTs). Prints WORST beside the paper's figures,
# and WORST of opt's LFTs at the base LIDs (what eval measured before the
# DLID plan travelled with the routing). Then Table II's OPT columns: ABB,
# AFPB and ADB of the same files (eval --metrics perm, sampled as the paper
# does: until the 99% confidence interval is under 1% of the mean) beside
# the paper's, and the largest relative difference of the three.
# Usage: bench/table1.sh [BUILD_DIR]   (default ./build)
set -eu
B=${1:-build}
F=$B/fabroute
D=$(mktemp -d "${TMPDIR:-/tmp}/table1.XXXXXX")
trap 'rm -rf "$D"' EXIT

printf '%-16s %10s %10s %10s %10s %14s\n' topology "paper OPT" "eval opt" "paper Dmk" "eval dmodk" "opt, base LIDs"
# n:m:table I's OPT:table II's OPT ABB,AFPB,ADB
rows="9:9:3:0.380,0.333,0.334 16:16:4:0.317,0.253,0.265 25:25:5:0.278,0.224,0.235
12:12:4:0.333,0.265,0.266 24:24:6:0.278,0.215,0.215 12:4:6:0.234,0.176,0.184
24:9:8:0.198,0.149,0.155 24:16:6:0.244,0.192,0.199 16:8:8:0.248,0.185,0.185
24:8:12:0.189,0.136,0.136 8:16:2:0.500,0.500,0.500 12:16:3:0.369,0.333,0.333
10:25:2:0.500,0.500,0.500 8:24:2:0.487,0.430,0.428 16:32:4:0.374,0.311,0.311"
: > "$D/table2"
for row in $rows; do
	n=${row%%:*} rest=${row#*:}
	m=${rest%%:*} rest=${rest#*:}
	paper=${rest%%:*} t2=${rest#*:}
	r=$((n + m))
	"$F" gen gft2 n=$n m=$m r=$r -o "$D/t.ibnd"
	"$F" compute -e opt --topology "$D/t.ibnd" -d "$D/opt" >/dev/null
	"$F" compute -e dmodk --topology "$D/t.ibnd" -d "$D/dmodk" >/dev/null
	"$F" eval --topology "$D/opt/topology.ibnd" --lfts "$D/opt/opensm-lfts.dump" --metrics worst,perm \
		--json 2>/dev/null >"$D/opt.json"
	printf '%-16s %10s %10s %10s %10s %14s\n' "T($n+$m, $r)" "$paper" \
		"$(jq .permutation.worst.load "$D/opt.json")" "$n" \
		"$("$F" eval --topology "$D/dmodk/topology.ibnd" --lfts "$D/dmodk/opensm-lfts.dump" \
			--metrics worst --json | jq .permutation.worst.load)" \
		"$("$F" eval --topology "$D/opt/topology.ibnd" --lfts "$D/opt/opensm-lfts.dump" \
			--metrics worst --json --no-dlid-plan | jq .permutation.worst.load)"
	jq -r --arg t "T($n+$m, $r)" --arg p "$t2" '.permutation as $q | ($p | split(",") | map(tonumber)) as $w |
		[$q.abb.mean, $q.afpb.mean, $q.adb.mean] as $v |
		[$t, $w[0], $v[0], $w[1], $v[1], $w[2], $v[2],
		 ([range(3) | (($v[.] - $w[.]) / $w[.] * 100) | fabs] | max)] | @tsv' "$D/opt.json" >>"$D/table2"
done
echo
printf '%-16s %10s %10s %10s %10s %10s %10s %9s\n' topology "paper ABB" "eval ABB" "paper AFPB" \
	"eval AFPB" "paper ADB" "eval ADB" "max diff"
awk -F'\t' '{ printf "%-16s %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %8.1f%%\n", $1, $2, $3, $4, $5, $6, $7, $8 }' \
	"$D/table2"
