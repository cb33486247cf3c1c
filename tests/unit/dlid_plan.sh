#!/bin/sh
# The DLID plan travels with the routing: compute writes dlid-plan for the
# engines that give ports several LIDs, eval reads it from next to the LFTs
# (or --dlid-plan), and opt then reproduces papers/003's Table I exactly;
# without it eval warns and measures the base LIDs' routing. path-sl only
# when some SL is not 0, and eval reads it and the SL2VL tables from next
# to the LFTs too. The plan's parser refuses bad lines by file:line.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need jq

F=$FABROUTE
D=$t_tmp

worst() { # DIR [EVAL OPTIONS]: WORST of the routing compute wrote into DIR
	dir=$1
	shift
	"$F" eval --topology "$dir/topology.ibnd" --lfts "$dir/opensm-lfts.dump" --metrics worst \
		--json "$@" 2>"$D/eval.err" | jq .permutation.worst.load
}

# papers/003 Table I, OPT column (T(n+m, r) with r = n + m; the table's
# "T(12+16, 24)" is Table II's T(12+16, 28)); D-m-k's column is n.
for row in 9:9:3 16:16:4 25:25:5 12:12:4 24:24:6 12:4:6 24:9:8 24:16:6 16:8:8 24:8:12 \
	8:16:2 12:16:3 10:25:2 8:24:2 16:32:4; do
	n=${row%%:*} rest=${row#*:}
	m=${rest%%:*} want=${rest#*:}
	r=$((n + m))
	"$F" gen gft2 n=$n m=$m r=$r -o "$D/t.ibnd"
	"$F" compute -e opt --topology "$D/t.ibnd" -d "$D/opt" >/dev/null
	is "T($n+$m, $r): eval on compute's opt output gives Table I's WORST $want" "$(worst "$D/opt")" "$want"
	is "T($n+$m, $r): without the plan, the base LIDs give WORST n = $n" \
		"$(worst "$D/opt" --no-dlid-plan)" "$n"
done

"$F" gen gft2 n=9 m=9 r=18 -o "$D/t9.ibnd"
"$F" compute -e opt --topology "$D/t9.ibnd" -d "$D/t9" >/dev/null
is "opt: dlid-plan written" "$(test -s "$D/t9/dlid-plan" && echo yes)" yes
is "opt: summary names the plan" "$(jq -r .files.dlid_plan "$D/t9/summary.json")" dlid-plan
is "opt: no path-sl (every SL is 0)" "$(test -e "$D/t9/path-sl" && echo written || echo absent)" absent
is "opt: summary names no path-sl" "$(jq -r '.files.path_sl // "none"' "$D/t9/summary.json")" none
is "opt: one offset line per source, no pair line (the choice depends on the source only)" \
	"$(grep -v '^#' "$D/t9/dlid-plan" | awk 'NF != 2' | wc -l)" 0
is "opt: sources of group 0 use their base LIDs (no line)" \
	"$(grep -vc '^#' "$D/t9/dlid-plan")" 108
runs "eval reads the plan from next to the LFTs" 0 "$F" eval --topology "$D/t9/topology.ibnd" \
	--lfts "$D/t9/opensm-lfts.dump"
like "and says which file it read" "$err" "pairs at the DLIDs of the plan .*t9/dlid-plan"

mkdir "$D/bare"
cp "$D/t9/opensm-lfts.dump" "$D/t9/topology.ibnd" "$D/bare/"
runs "LMC > 0 without a plan: eval still evaluates" 0 "$F" eval --topology "$D/bare/topology.ibnd" \
	--lfts "$D/bare/opensm-lfts.dump" --metrics worst
like "... and warns that base LIDs are used" "$err" "warning: ports own several LIDs \(LMC > 0\) and no DLID plan"
like "... which shows in WORST" "$out" "WORST 9 "
runs "--dlid-plan names the plan anywhere" 0 "$F" eval --topology "$D/bare/topology.ibnd" \
	--lfts "$D/bare/opensm-lfts.dump" --metrics worst --dlid-plan "$D/t9/dlid-plan"
like "... WORST 3 again" "$out" "WORST 3 "
runs "--no-dlid-plan: no warning" 0 "$F" eval --topology "$D/bare/topology.ibnd" \
	--lfts "$D/bare/opensm-lfts.dump" --no-dlid-plan
is "... nothing on standard error" "$err" ""
runs "--dlid-plan with --no-dlid-plan: usage error" 2 "$F" eval --topology "$D/bare/topology.ibnd" \
	--lfts "$D/bare/opensm-lfts.dump" --no-dlid-plan --dlid-plan "$D/t9/dlid-plan"
"$F" compute -e sftree --topology "$D/t9.ibnd" -d "$D/lmc0" >/dev/null
is "LMC 0: no dlid-plan" "$(test -e "$D/lmc0/dlid-plan" && echo written || echo absent)" absent
runs "LMC 0 without a plan: no warning" 0 "$F" eval --topology "$D/lmc0/topology.ibnd" \
	--lfts "$D/lmc0/opensm-lfts.dump"
is "... nothing on standard error" "$err" ""

# smodk: one LID per top switch, source s uses offset s mod m
"$F" compute -e smodk --topology "$D/t9.ibnd" -d "$D/smodk" >/dev/null
is "smodk: no path-sl" "$(test -e "$D/smodk/path-sl" && echo written || echo absent)" absent
is "smodk: offsets only" "$(grep -v '^#' "$D/smodk/dlid-plan" | awk 'NF != 2' | wc -l)" 0
is "smodk: every source but those of offset 0 has a line" \
	"$(grep -vc '^#' "$D/smodk/dlid-plan")" 144
is "smodk: S-mod-k's WORST with its plan (paper: n, the same as D-mod-k)" "$(worst "$D/smodk")" 9

# pathsel: per-pair choices; the plan gives eval the same DLIDs as its paths file
"$F" gen kary-ntree k=2 n=3 -o "$D/k2.ibnd"
"$F" compute -e pathsel --topology "$D/k2.ibnd" -d "$D/ps" >/dev/null
is "pathsel: dlid-plan written" "$(test -s "$D/ps/dlid-plan" && echo yes)" yes
like "pathsel: pair lines where a source departs from its offset" "$(cat "$D/ps/dlid-plan")" \
	"^0x[0-9a-f]{16} 0x[0-9a-f]{16} 0x[0-9a-f]{4}$"
a=$("$F" eval --topology "$D/ps/topology.ibnd" --lfts "$D/ps/opensm-lfts.dump" --json 2>/dev/null |
	jq -c '[.connectivity, .load.max, .deadlock.deadlock_free]')
b=$("$F" eval --topology "$D/ps/topology.ibnd" --lfts "$D/ps/opensm-lfts.dump" --no-dlid-plan \
	--paths "$D/ps/paths" --json | jq -c '[.connectivity, .load.max, .deadlock.deadlock_free]')
is "pathsel: eval with the plan equals eval with the paths file's DLIDs" "$a" "$b"
runs "pathsel: every listed path followed with the plan's DLIDs" 0 "$F" eval \
	--topology "$D/ps/topology.ibnd" --lfts "$D/ps/opensm-lfts.dump" --paths "$D/ps/paths"

# the SL files travel too: eval reads opensm-sl2vl.dump and path-sl from next to the LFTs
dl() { # DIR [EVAL OPTIONS]: "deadlock-free VLs" of the routing in DIR
	dir=$1
	shift
	"$F" eval --topology "$dir/topology.ibnd" --lfts "$dir/opensm-lfts.dump" --json "$@" \
		2>"$D/eval.err" | jq -r '"\(.deadlock.deadlock_free) \(.deadlock.vls_used | join(","))"'
}
"$F" gen dragonfly a=4 p=2 h=2 -o "$D/df.ibnd"
"$F" compute -e dla --topology "$D/df.ibnd" -d "$D/dla" >/dev/null
is "dla: eval reads the SL2VL tables next to the LFTs: deadlock-free on VLs 0 and 1" "$(dl "$D/dla")" "true 0,1"
like "... and says which file it read" "$(cat "$D/eval.err")" "the SL2VL tables of .*dla/opensm-sl2vl.dump"
is "dla: --no-sl-files: one VL, a cycle" "$(dl "$D/dla" --no-sl-files)" "false 0"
"$F" gen kary-ntree k=4 n=3 -o "$D/k4.ibnd"
"$F" compute -e ftdlr --topology "$D/k4.ibnd" -d "$D/ftdlr" >/dev/null
is "ftdlr: path-sl written (switch destinations on SL 1)" "$(test -s "$D/ftdlr/path-sl" && echo yes)" yes
is "ftdlr: eval reads the path SLs next to the LFTs: VLs 0 and 1" "$(dl "$D/ftdlr")" "true 0,1"
like "... and says which file it read" "$(cat "$D/eval.err")" "the path SLs of .*ftdlr/path-sl"
is "ftdlr: --no-sl-files: every pair on SL 0" "$(dl "$D/ftdlr" --no-sl-files)" "true 0"
runs "--path-sl with --no-sl-files: usage error" 2 "$F" eval --topology "$D/ftdlr/topology.ibnd" \
	--lfts "$D/ftdlr/opensm-lfts.dump" --path-sl "$D/ftdlr/path-sl" --no-sl-files

# the parser: every bad line named by file and line, exit 3
src=$(grep -v '^#' "$D/t9/dlid-plan" | head -1 | cut -d' ' -f1)
dst=$(grep -v '^#' "$D/t9/dlid-plan" | sed -n 2p | cut -d' ' -f1)
bad() { # DESC PATTERN LINE...
	desc=$1 pat=$2
	shift 2
	printf '%s\n' "# a comment" "$@" >"$D/bad.plan"
	runs "plan refused: $desc" 3 "$F" eval --topology "$D/t9/topology.ibnd" \
		--lfts "$D/t9/opensm-lfts.dump" --dlid-plan "$D/bad.plan"
	like "... named by file and line" "$err" "bad.plan:[0-9]+: $pat"
}
bad "unknown source" "source port GUID 0x00000000deadbeef: no such port" "0xdeadbeef 1"
bad "offset out of range" "expected an offset from 0 to 127" "$src 128"
bad "not a GUID" "expected the source port GUID" "node-1 1"
bad "source twice" "source port 0x[0-9a-f]+ has an offset already" "$src 1" "$src 2"
bad "DLID outside the destination's range" "DLID 0x0001 is not a LID of the destination" "$src $dst 0x1"
bad "pair twice" "this pair has a DLID already" "$src $dst $(grep "$dst" "$D/t9/guid2lid" | cut -d' ' -f2)" \
	"$src $dst $(grep "$dst" "$D/t9/guid2lid" | cut -d' ' -f2)"
bad "to itself" "a port does not send to itself" "$src $src $(grep "$src" "$D/t9/guid2lid" | cut -d' ' -f2)"
bad "four fields" "expected \"0xSOURCE OFFSET\" or" "$src $dst 0x10 extra"

# a plan written by hand: pair lines override the source's offset, in any order
b0=$(grep "$dst" "$D/t9/guid2lid" | cut -d' ' -f2)
printf '%s\n' "$src $dst $b0" "$src 2" >"$D/hand.plan"
runs "pair line before its source's offset: accepted" 0 "$F" eval --topology "$D/t9/topology.ibnd" \
	--lfts "$D/t9/opensm-lfts.dump" --dlid-plan "$D/hand.plan"

done_testing
