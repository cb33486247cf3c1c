#!/bin/sh
# Same fabric, same files: `fabroute compute` with every engine on topology
# files and on the same files with their node records in reverse order and
# each record's port lines reversed (ibnetdiscover output, ibsim nets with
# GUID lines; ibsim nets without them number GUIDs by record, so only their
# port lines move). Every file compute writes must be byte-identical, and
# summary.json too but for the time it took.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need jq

F=$FABROUTE
D=$t_tmp

# reverse FILE [ports]: FILE's records (and port lines) reversed on stdout;
# with "ports", the records keep their order and only their port lines move.
reverse() {
	awk -v ports_only="${2:-}" 'BEGIN { RS = ""; FS = "\n" }
	{	head = ""; n = 0
		for (i = 1; i <= NF; i++) if ($i ~ /^[ \t]*\[/) pl[++n] = $i; else head = head $i "\n"
		rec = head; for (i = n; i >= 1; i--) rec = rec pl[i] "\n"
		if (n == 0 && head ~ /^#/ && !nr) pre = pre rec "\n"; else r[++nr] = rec }
	END {	printf "%s", pre
		if (ports_only) for (i = 1; i <= nr; i++) printf "%s\n", r[i]
		else for (i = nr; i >= 1; i--) printf "%s\n", r[i] }' "$1"
}

"$F" gen kary-ntree k=3 n=3 --link-faults 3 --seed 2 -o "$D/kary.ibnd"
"$F" gen gft2 n=4 m=4 r=6 lmc=1 -o "$D/gft2.ibnd"
"$F" gen dragonfly a=4 p=2 h=2 -f ibsim -o "$D/dfly.net"
"$F" gen ft648-rack racks=2 hosts=4 uplinks=2 --switch-faults 1 --seed 4 -f ibsim -o "$D/rack.net"
cp "$top_srcdir/tests/data/ibnd/mixed.txt" "$top_srcdir/tests/data/ibnd/fattree.txt" \
	"$top_srcdir/tests/data/ibsim/net.2sw2path4hca2port" "$D/"
for t in kary.ibnd gft2.ibnd dfly.net rack.net mixed.txt fattree.txt; do
	reverse "$D/$t" >"$D/rev-$t"
done
reverse "$D/net.2sw2path4hca2port" ports >"$D/rev-net.2sw2path4hca2port"
for t in kary.ibnd dfly.net net.2sw2path4hca2port; do
	cmp -s "$D/$t" "$D/rev-$t" && not_ok "$t: reversed" || ok "$t: reversed"
done

for t in kary.ibnd gft2.ibnd dfly.net rack.net mixed.txt fattree.txt net.2sw2path4hca2port; do
	for e in minhop updn ftree sftree dmodk smodk opt dla ftdlr pathsel swidest rename explicit; do
		"$F" compute -e $e --topology "$D/$t" -d "$D/a" >/dev/null 2>&1
		sa=$?
		"$F" compute -e $e --topology "$D/rev-$t" -d "$D/b" >/dev/null 2>&1
		sb=$?
		if [ $sa != $sb ]; then
			not_ok "$t $e: exit $sa, reversed $sb"
			continue
		fi
		[ $sa = 0 ] || continue
		diff=
		for f in "$D"/a/*; do
			f=${f##*/}
			[ "$f" = summary.json ] && continue
			cmp -s "$D/a/$f" "$D/b/$f" || diff="$diff $f"
		done
		[ "$(ls "$D/a")" = "$(ls "$D/b")" ] || diff="$diff (the files written)"
		jq 'del(.compute_ms)' "$D/a/summary.json" >"$D/a.json"
		jq 'del(.compute_ms)' "$D/b/summary.json" >"$D/b.json"
		cmp -s "$D/a.json" "$D/b.json" || diff="$diff summary.json"
		if [ -z "$diff" ] && jq -e '.routing_digest | test("^[0-9a-f]{64}$")' "$D/a.json" >/dev/null; then
			ok "$t $e: the same files in both orders"
		else
			not_ok "$t $e: the same files in both orders (differ:$diff)"
		fi
		rm -rf "$D/a" "$D/b"
	done
done
done_testing
