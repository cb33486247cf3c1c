#!/bin/sh
# papers/003's Table I from fabroute's own files: for each of the 15 trees
# T(n+m, r) (r = n + m), `fabroute compute -e opt` (and -e dmodk), then
# `fabroute eval --metrics worst` on the directory compute wrote (eval reads
# the dlid-plan next to the LFTs). Prints WORST beside the paper's figures,
# and WORST of opt's LFTs at the base LIDs (what eval measured before the
# DLID plan travelled with the routing).
# Usage: bench/table1.sh [BUILD_DIR]   (default ./build)
set -eu
B=${1:-build}
F=$B/fabroute
D=$(mktemp -d "${TMPDIR:-/tmp}/table1.XXXXXX")
trap 'rm -rf "$D"' EXIT


printf '%-16s %10s %10s %10s %10s %14s\n' topology "paper OPT" "eval opt" "paper Dmk" "eval dmodk" "opt, base LIDs"
for row in 9:9:3 16:16:4 25:25:5 12:12:4 24:24:6 12:4:6 24:9:8 24:16:6 16:8:8 24:8:12 \
	8:16:2 12:16:3 10:25:2 8:24:2 16:32:4; do
	n=${row%%:*} rest=${row#*:}
	m=${rest%%:*} paper=${rest#*:}
	r=$((n + m))
	"$F" gen gft2 n=$n m=$m r=$r -o "$D/t.ibnd"
	"$F" compute -e opt --topology "$D/t.ibnd" -d "$D/opt" >/dev/null
	"$F" compute -e dmodk --topology "$D/t.ibnd" -d "$D/dmodk" >/dev/null
	"$F" eval --topology "$D/opt/topology.ibnd" --lfts "$D/opt/opensm-lfts.dump" --metrics worst \
		--json 2>/dev/null >"$D/opt.json"
	printf '%-16s %10s %10s %10s %10s %14s\n' "T($n+$m, $r)" "$paper" \
		"$(jq .permutation.worst.load "$D/opt.json")" "$n" \
		"$("$F" eval --topology "$D/dmodk/topology.ibnd" --lfts "$D/dmodk/opensm-lfts.dump" \
			--metrics worst --json | jq .permutation.worst.load)" \
		"$("$F" eval --topology "$D/opt/topology.ibnd" --lfts "$D/opt/opensm-lfts.dump" \
			--metrics worst --json --no-dlid-plan | jq .permutation.worst.load)"
done
