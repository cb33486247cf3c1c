#!/bin/sh
# pathsel's time and memory as the machines double: random irregular fabrics
# of 64 switches (average degree 8, seed 1) with MACHINES machines, routed by
# `fabroute compute -e pathsel` (wall time and peak resident memory, from
# /usr/bin/time), and the growth of each from one size to the next.
# Figures, never pass/fail.
#
#   bench/pathsel.sh [FABROUTE] [--machines "256 512 1024"] [--switches 64] [--runs N]
#
# With FABROUTE another build's fabroute (an A/B against a branch); the
# figure of each size is the median of --runs runs (default 1).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build/fabroute
machines="256 512 1024"
switches=64
runs=1
case ${1:-} in -*|'') ;; *) bin=$1; shift ;; esac
while [ $# -gt 0 ]; do
	case $1 in
	--machines) machines=$2; shift 2 ;;
	--switches) switches=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) echo "usage: $0 [FABROUTE] [--machines LIST] [--switches N] [--runs N]" >&2; exit 2 ;;
	esac
done
[ -x /usr/bin/time ] || { echo "pathsel.sh: /usr/bin/time is needed (apt install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "$bin; random fabrics of $switches switches, degree 8, seed 1; median of $runs run(s)"
printf '%9s %10s %10s %8s %8s\n' machines seconds MB "time x" "mem x"
prev_s= prev_m=
for m in $machines; do
	"$bin" gen random switches="$switches" machines="$m" degree=8 --seed 1 -o "$tmp/r.ibnd"
	: >"$tmp/runs"
	i=0
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$bin" compute -e pathsel --topology "$tmp/r.ibnd" \
			-d "$tmp/out" >/dev/null
		cat "$tmp/t" >>"$tmp/runs"
		i=$((i + 1))
	done
	set -- $(sort -n "$tmp/runs" | awk '{ s[NR] = $1 } END { print s[int((NR + 1) / 2)] }') \
		$(sort -n -k2 "$tmp/runs" | awk '{ k[NR] = $2 } END { print k[int((NR + 1) / 2)] }')
	sec=$1 mb=$(awk "BEGIN { printf \"%.1f\", $2 / 1024 }")
	tx=- mx=-
	[ -n "$prev_s" ] && tx=$(awk "BEGIN { printf \"%.2f\", $sec / $prev_s }") &&
		mx=$(awk "BEGIN { printf \"%.2f\", $mb / $prev_m }")
	printf '%9s %10s %10s %8s %8s\n' "$m" "$sec" "$mb" "$tx" "$mx"
	prev_s=$sec prev_m=$mb
done
