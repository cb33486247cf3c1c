#!/bin/sh
# The fabrics of tests/data/fabrics (and ibsim's example nets) from the
# command line: each parses, routes with the default chain and is proven
# connected and deadlock-free; what the real dumps carry works as a site
# expects: diagnostic lines skipped with a warning naming file:line (and
# refused with --strict, exit 3), ambiguous switch names refused with
# their GUIDs, a node-name-map naming nodes in every output, EDR written to
# ibsim as e=2 beside the DDR cable's s=2, the 2005 subnet list with its
# tables evaluated, and ftree's notes counting the pairs it leaves out.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

F=$FABROUTE
D=$t_tmp
DATA=$top_srcdir/tests/data
CHAIN=sftree,updn,minhop

for f in "$DATA"/fabrics/*.ibnd "$DATA"/fabrics/*.ibnd.gz "$DATA"/ibsim/net "$DATA"/ibsim/net.*[!t]; do
	name=$(basename "$f" .gz)
	case $f in *.gz) gzip -dc "$f" > "$D/$name"; f=$D/$name ;; esac
	runs "$name: routed by $CHAIN, connected and deadlock-free" 0 "$F" compute -e "$CHAIN" \
		--topology "$f" -d "$D/out-$name" --eval
	like "$name: every class of pairs delivered" "$out" "connectivity: connected"
	like "$name: deadlock-free" "$out" "deadlock: +free"
done

# --- what the dumps carry ---------------------------------------------------
edr=$DATA/fabrics/edr-6x.ibnd
runs "edr-6x: diagnostic lines skipped" 0 "$F" show "$edr"
like "each with file:line and what it was" "$err" \
	"edr-6x.ibnd:[0-9]+: skipped a diagnostic line, not topology: 'ibwarn: \[28413\] mad_rpc"
like "and that --strict would refuse it" "$err" "\(--strict refuses it\)"
runs "edr-6x --strict: exit 3" 3 "$F" show --strict "$edr"
like "names the line" "$err" "edr-6x.ibnd:[0-9]+: expected topology, found a diagnostic line"
runs "a line that is no diagnostic is still an error" 3 "$F" show - <<'EOF'
Switch	8 "S-0000000000000001"		# "s"
this is not topology
EOF
like "file:line" "$err" "<stdin>:2: expected a record line"

runs "updn.roots with the vendor's description: refused (exit 1)" 1 "$F" compute -e updn \
	-O "updn.roots=SwitchIB Mellanox Technologies" --topology "$edr" -d "$D/amb"
like "lists the six switches by GUID" "$err" \
	"\"SwitchIB Mellanox Technologies\" is the description of 6 nodes: 0x248a070300f6c040, .*0x7cfe900300a5a3c0; name one by its GUID"
runs "updn.roots by GUID: routed" 0 "$F" compute -e updn -O updn.roots=0x7cfe900300a5a2c0 \
	--topology "$edr" -d "$D/byguid"
like "the notes name the root with its GUID" "$out" \
	"root 'SwitchIB Mellanox Technologies \(0x7cfe900300a5a2c0\)' \(given\)"
runs "show names the roots with their GUIDs" 0 "$F" show "$edr"
like "roots" "$out" "roots: +\"SwitchIB Mellanox Technologies \(0x7cfe900300a5a2c0\)\""

printf '0x7cfe900300a5a2c0 "spine-1"\n0x7cfe900300a5a3c0 spine-2\n' > "$D/names"
runs "--node-name-map: roots by the site's names" 0 "$F" compute -e updn \
	-O updn.roots=spine-1,spine-2 -O updn.strict=0 --node-name-map "$D/names" \
	--topology "$edr" -d "$D/named"
like "notes" "$out" "roots 'spine-1', 'spine-2' \(given\)"
like "output files" "$(cat "$D/named/topology.ibnd")" "# \"spine-1\" base port 0"
like "and the LFT dump" "$(cat "$D/named/opensm-lfts.dump")" "spine-2"

runs "convert --to ibsim" 0 "$F" convert --to ibsim "$edr" -o "$D/edr.net"
is "EDR cables as e=2 (288 port ends)" "$(grep -c 'e=2' "$D/edr.net")" 286
is "the DDR cable as s=2, both ends" "$(grep -c 's=2' "$D/edr.net")" 2
runs "convert back" 0 "$F" convert "$D/edr.net" -o "$D/edr-back.ibnd"
is "as many EDR port ends come back" "$(grep -c 'xEDR' "$D/edr-back.ibnd")" \
	"$(grep -c 'xEDR' "$edr")"
runs "convert NDR/XDR to ibsim: XDR written as NDR, with a warning" 0 "$F" convert --to ibsim \
	"$DATA/fabrics/ndr-noblank.ibnd" -o "$D/ndr.net"
like "the warning" "$err" "warning: 1 link at XDR written as NDR \(e=8\)"
is "2x widths as w=16" "$(grep -c 'w=16' "$D/ndr.net")" 14

# --- 2005: a subnet list without SPD= and OpenSM's tables ---------------------
gzip -dc "$DATA/fabrics/subnet-2005.lst.gz" > "$D/subnet.lst"
gzip -dc "$DATA/fabrics/subnet-2005.fdbs.gz" > "$D/opensm.fdbs"
runs "eval --subnet --fdbs of 2005: a cycle among the switch paths (exit 5)" 5 "$F" eval \
	--subnet "$D/subnet.lst" --fdbs "$D/opensm.fdbs"
like "OpenSM's tables: connected" "$out" "connectivity: connected"
like "the cycle named switch by switch with GUIDs" "$out" \
	"cycle on VL 0 \(16 channels\): \"MT43132 Mellanox Technologies \(0x[0-9a-f]{16}\)\"/[0-9]"
runs "its CA-to-CA paths are free of cycles (what ibdmchk checks)" 0 "$F" eval \
	--subnet "$D/subnet.lst" --fdbs "$D/opensm.fdbs" --ca-only
runs "the fabric it describes routed by $CHAIN" 0 "$F" compute -e "$CHAIN" --topology "$D/subnet.lst" \
	-d "$D/2005" --eval
like "proven" "$out" "connectivity: connected"
like "deadlock-free" "$out" "deadlock: +free"
like "the switches all described alike, named with their GUIDs" "$out" \
	"root 'MT43132 Mellanox Technologies \(0x[0-9a-f]{16}\)'"

# --- ftree says what it leaves out, and when OpenSM would refuse -------------
gzip -dc "$DATA/fabrics/rhino512.ibnd.gz" > "$D/rhino512.ibnd"
runs "ftree on the 512-host chassis fabric" 0 "$F" compute -e ftree --topology "$D/rhino512.ibnd" \
	-d "$D/rh-ftree"
like "counts the CA<->switch pairs it leaves unreachable" "$out" \
	"unreachable pairs: CA->CA 0, CA->switch 21504, switch->CA 21504, switch->switch 21240"
like "says OpenSM's ftree refuses the fabric" "$out" "OpenSM's ftree refuses this fabric"
done_testing
