#!/bin/sh
# Golden test of the fat-tree engines on larger trees than golden.sh's
# (up to 3456 CAs and 720 switches, intact and degraded, with LMC and
# multi-core): the SHA-256 of the LFTs `fabroute compute` writes and of
# its notes, per (fabric, engine), pinned in tests/data/golden/ftree-large.txt.
# Their speed-ups (classes of switches, two stages, threads) must never
# change a table.
#
# Regenerate (only when an output change is intended, and say why in the
# commit): GOLDEN_UPDATE=1 tests/unit/golden_ftree.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

F=$FABROUTE
D=$t_tmp
golden=$top_srcdir/tests/data/golden/ftree-large.txt

# name|family and parameters|gen options
fabrics='m24|mport-ntree m=24 n=3|
m24links|mport-ntree m=24 n=3|--link-faults 80 --seed 7
m24switches|mport-ntree m=24 n=3|--switch-faults 8 --seed 3
k63lmc|kary-ntree k=6 n=3 lmc=2|--link-faults 20 --seed 5
multicore3|multicore cores=3 n=16 m=12 r=32|--link-faults 30 --seed 9
rack|ft648-rack racks=18 hosts=16 uplinks=9|--link-faults 40 --seed 4'

sum() { if [ -e "$1" ]; then sha256sum < "$1" | cut -c1-16; else echo -; fi; }

: > "$D/now.txt"
printf '%s\n' "$fabrics" | while IFS='|' read -r name spec gopts; do
	# shellcheck disable=SC2086
	"$F" gen $spec $gopts -o "$D/$name.ibnd" || echo "$name gen-failed" >> "$D/now.txt"
	for e in sftree ftree; do
		o=$D/out-$name-$e
		"$F" compute -e $e --topology "$D/$name.ibnd" -d "$o" > "$D/compute.txt" 2>&1
		st=$?
		notes=$(grep '^notes:' "$D/compute.txt" | sha256sum | cut -c1-16)
		echo "$name $e exit=$st lfts=$(sum "$o/opensm-lfts.dump") notes=$notes" >> "$D/now.txt"
		rm -rf "$o"
	done
done

if [ "${GOLDEN_UPDATE:-}" = 1 ]; then
	cp "$D/now.txt" "$golden"
	echo "# written $golden"
fi
while read -r name e rest; do
	got=$(grep "^$name $e " "$D/now.txt" | cut -d' ' -f3-)
	is "$name / $e unchanged" "$got" "$rest"
done < "$golden"
is "no case missing from the golden file" "$(wc -l < "$D/now.txt")" "$(wc -l < "$golden")"
done_testing
