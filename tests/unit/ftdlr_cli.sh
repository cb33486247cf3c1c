#!/bin/sh
# fabroute compute --base DIR: ftdlr repairs an earlier compute's routing
# for a degraded topology (same files written, the changes counted), gives
# the base back byte for byte once the fault is gone, repairs a plain sftree
# base too, is refused in favour of the chain's next engine when
# not proven (beyond k - 1 faults), saying why, and says what is wrong with
# a base it cannot start from.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need jq

F=$FABROUTE
D=$t_tmp

"$F" gen kary-ntree k=4 n=3 -o "$D/k.ibnd"
"$F" gen kary-ntree k=4 n=3 --remove-link l2-00:2 -o "$D/k1.ibnd"
"$F" gen kary-ntree k=4 n=3 --remove-link l2-00:2 --remove-link spine-05:3 -o "$D/k2.ibnd"

runs "ftdlr without a base: sftree, switch destinations on SL 1" 0 \
	"$F" compute -e ftdlr --topology "$D/k.ibnd" -d "$D/base" --eval
like "its notes say so" "$out" "switch destinations on SL 1 \(VL 1\), CA destinations on SL 0"
like "deadlock-free on VLs 0 and 1" "$out" "deadlock: +free: .*VLs used: 0 1"
is "path-sl written" "$(test -s "$D/base/path-sl" && echo yes)" yes

runs "one link down: repaired" 0 "$F" compute -e ftdlr,sftree --base "$D/base" \
	--topology "$D/k1.ibnd" -d "$D/r1" --eval
like "by ftdlr's repair" "$out" "engine: +ftdlr \(chain ftdlr,sftree\)"
like "the repair's notes" "$out" "repair \(scope minimal\) of 1 link and 0 switch faults"
like "changes counted" "$out" "changed: +[1-9][0-9]* LFT entries in [1-9][0-9]* blocks on [1-4] switches"
like "connected and deadlock-free" "$out" "connectivity: connected.*"
like "deadlock-free" "$out" "deadlock: +free"
for file in opensm-lfts.dump guid2lid path-sl topology.ibnd summary.json; do
	is "wrote $file" "$(test -s "$D/r1/$file" && echo yes)" yes
done
is "the LIDs are the base's" "$(cmp -s "$D/base/guid2lid" "$D/r1/guid2lid" && echo same)" same
is "the path SLs are the base's" "$(cmp -s "$D/base/path-sl" "$D/r1/path-sl" && echo same)" same
is "summary: repaired" "$(jq .base.repaired "$D/r1/summary.json")" true
is "summary: switches changed" "$(jq '.base.switches <= 4' "$D/r1/summary.json")" true
is "summary: blocks counted" "$(jq '.base.blocks > 0' "$D/r1/summary.json")" true

runs "a second fault: repaired from the same base" 0 "$F" compute -e ftdlr,sftree \
	--base "$D/base" --topology "$D/k2.ibnd" -d "$D/r2"
like "two faults" "$out" "of 2 link and 0 switch faults"
runs "the repair evaluates clean" 0 "$F" eval --topology "$D/r2/topology.ibnd" \
	--lfts "$D/r2/opensm-lfts.dump" --path-sl "$D/r2/path-sl"

runs "every fault recovered" 0 "$F" compute -e ftdlr --base "$D/base" --topology "$D/k.ibnd" \
	-d "$D/back"
like "nothing changed" "$out" "changed: +0 LFT entries in 0 blocks on 0 switches"
is "the base's LFTs byte for byte" \
	"$(cmp -s "$D/base/opensm-lfts.dump" "$D/back/opensm-lfts.dump" && echo same)" same

# a plain sftree base keeps SL 0 for every pair: the repair turns at its
# subtree root and stays on that one VL
"$F" compute -e sftree --topology "$D/k.ibnd" -d "$D/plain" > /dev/null
runs "plain base: repaired" 0 "$F" compute -e ftdlr,sftree --base "$D/plain" \
	--topology "$D/k1.ibnd" -d "$D/p1" --eval
like "by ftdlr's repair" "$out" "engine: +ftdlr \(chain ftdlr,sftree\)"
like "through the subtree root" "$out" "turned at the base's subtree root 'leaf-00'"
like "on one VL" "$out" "deadlock: +free: .*VLs used: 0\$"
is "no path SL written" "$(test -e "$D/p1/path-sl" && echo yes || echo no)" no

# beyond k - 1 faults the repair is made, and refused when not proven:
# the four top switches above l2-04 all lose their link to it
"$F" gen kary-ntree k=4 n=3 --remove-link spine-00:2 --remove-link spine-04:2 \
	--remove-link spine-08:2 --remove-link spine-12:2 --remove-link spine-04:3 \
	--remove-link l2-09:4 -o "$D/k6.ibnd"
runs "six faults: the repair is refused, sftree routes" 0 "$F" compute -e ftdlr,sftree \
	--base "$D/plain" --topology "$D/k6.ibnd" -d "$D/p6"
like "why" "$out" "ftdlr: routed, not accepted: [0-9]+ pairs unreachable; repair \(scope minimal\) of 6 link and 0 switch faults .*beyond k - 1 = 3"
like "sftree routed" "$out" "engine: +sftree"
like "counted as a new routing" "$out" "from the base in .*, by a new routing"

# what a repair cannot start from
runs "a base directory that is not there: exit 3" 3 "$F" compute -e ftdlr --base "$D/none" \
	--topology "$D/k1.ibnd" -d "$D/x"
like "names the file" "$err" "--base $D/none: .*topology.ibnd"
"$F" compute -e ftdlr --topology "$D/k1.ibnd" -d "$D/base1" > /dev/null
runs "a link the base lacks: not applicable, the next engine routes" 0 "$F" compute \
	-e ftdlr,sftree --base "$D/base1" --topology "$D/k.ibnd" -d "$D/y"
like "says which link" "$out" "ftdlr: repair not applicable: link .* is not in the base fabric"
cp -r "$D/base" "$D/broken"
printf 'garbage\n' > "$D/broken/opensm-lfts.dump"
runs "a broken LFT dump: exit 3" 3 "$F" compute -e ftdlr --base "$D/broken" \
	--topology "$D/k1.ibnd" -d "$D/z"
like "names the dump" "$err" "opensm-lfts.dump"
done_testing
