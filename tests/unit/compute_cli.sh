#!/bin/sh
# fabroute compute and fabroute engines: files written, chains, evaluation,
# exit codes, errors.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need jq

F=$FABROUTE
D=$t_tmp

runs "engines lists the engines" 0 "$F" engines
for e in minhop updn ftree sftree dmodk smodk opt dla pathsel swidest rename explicit ftdlr; do
	like "engines shows $e" "$out" "^$e "
done
runs "engines --json" 0 "$F" engines --json
is "engines --json names 13 engines" "$(printf '%s' "$out" | jq length)" 13
runs "compute --help" 0 "$F" compute --help

"$F" gen ft648 -o "$D/ft648.ibnd"
runs "sftree on ft648 with --eval: connected and deadlock-free" 0 \
	"$F" compute --engine sftree,updn --topology "$D/ft648.ibnd" --out-dir "$D/out" --eval
like "reports the engine and time" "$out" "engine: +sftree \(chain sftree,updn\), [0-9.]+ ms"
like "evaluation printed" "$out" "connectivity: connected"
for file in opensm-lfts.dump guid2lid topology.ibnd summary.json; do
	is "wrote $file" "$(test -s "$D/out/$file" && echo yes)" yes
done
is "summary names the engine" "$(jq -r .engine "$D/out/summary.json")" sftree
is "summary holds the evaluation" "$(jq .evaluation.connectivity.connected "$D/out/summary.json")" true
is "summary: SW-SW all reachable" \
	"$(jq '.evaluation.connectivity.classes["sw-sw"].unreachable' "$D/out/summary.json")" 0
is "no path-sl when every pair uses SL 0" "$(test -e "$D/out/path-sl" && echo written || echo absent)" absent
runs "eval reads what compute wrote" 0 "$F" eval --topology "$D/out/topology.ibnd" \
	--lfts "$D/out/opensm-lfts.dump"

# same input, same bytes
"$F" compute --engine sftree --topology "$D/ft648.ibnd" --out-dir "$D/out2" > /dev/null
is "deterministic LFTs" "$(cmp -s "$D/out/opensm-lfts.dump" "$D/out2/opensm-lfts.dump" && echo same)" same

# a chain falls back where tree engines do not apply
"$F" gen ring switches=5 hosts=2 -o "$D/ring.ibnd"
runs "ring: the chain falls back to updn" 0 "$F" compute --engine sftree,updn,minhop \
	--topology "$D/ring.ibnd" --out-dir "$D/ring" --eval
like "says why sftree was skipped" "$out" "sftree: not applicable"
like "used updn" "$out" "engine: +updn"
runs "minhop on the ring: a credit loop (exit 5)" 5 "$F" compute --engine minhop \
	--topology "$D/ring.ibnd" --out-dir "$D/ring-minhop" --eval
runs "no engine applies: exit 1" 1 "$F" compute --engine sftree,opt --topology "$D/ring.ibnd" \
	--out-dir "$D/none"
like "the reasons are listed" "$err" "opt: not applicable"

# opt on T(9+9,18) needs LMC: LIDs are assigned with it
"$F" gen gft2 n=9 m=9 r=18 -o "$D/t9.ibnd"
runs "opt on T(9+9,18)" 0 "$F" compute --engine opt --topology "$D/t9.ibnd" --out-dir "$D/opt" --eval
like "guid2lid carries LMC ranges" "$(head -1 "$D/opt/guid2lid")" "^0x[0-9a-f]+ 0x[0-9a-f]+ 0x[0-9a-f]+"
like "opt's notes name the groups" "$out" "notes: .*k=3"

# dla on a dragonfly: SL2VL tables written in OpenSM's format, proven only with them
"$F" gen dragonfly a=4 p=2 h=2 wiring=relative -o "$D/df.ibnd"
runs "dla on a=4 p=2 h=2 with --eval" 0 "$F" compute -e dla --topology "$D/df.ibnd" \
	--out-dir "$D/dla" --eval
like "VLs 0 and 1" "$out" "deadlock: +free: .*VLs used: 0 1"
like "lists opensm-sl2vl.dump as written" "$out" "written: .*opensm-sl2vl.dump"
is "216 (in, out) rows map every SL to VL1" \
	"$(grep -c ': 1  1  1  1  1  1  1  1  1  1  1  1  1  1  1  1 $' "$D/dla/opensm-sl2vl.dump")" 216
is "36 switch records" "$(grep -c '^Switch 0x' "$D/dla/opensm-sl2vl.dump")" 36
is "no path-sl: every pair on SL 0" "$(test -e "$D/dla/path-sl" && echo written || echo absent)" absent
is "summary names the SL2VL file" "$(jq -r .files.sl2vl "$D/dla/summary.json")" opensm-sl2vl.dump
is "summary: VLs 0 and 1" "$(jq -c .vls_used "$D/dla/summary.json")" "[0,1]"
runs "eval with the SL2VL tables: deadlock-free" 0 "$F" eval --topology "$D/dla/topology.ibnd" \
	--lfts "$D/dla/opensm-lfts.dump" --sl2vl "$D/dla/opensm-sl2vl.dump" --metrics dragonfly
like "dragonfly metrics: hops" "$out" "CA->CA hops: 0: 72 1: 720 2: 1728 3: 2592 \(5112 pairs\)"
like "dragonfly metrics: flows" "$out" "tc 71..71 lc 68..68 gc 64..64"
like "dragonfly metrics: VLs of local channels" "$out" "VL0 36..36 VL1 32..32"
like "dragonfly metrics: group shift" "$out" "at most 8 on one channel"
runs "eval reads them from next to the LFTs: deadlock-free" 0 "$F" eval \
	--topology "$D/dla/topology.ibnd" --lfts "$D/dla/opensm-lfts.dump"
runs "eval without them (--no-sl-files): all on VL0, a credit loop (exit 5)" 5 "$F" eval \
	--topology "$D/dla/topology.ibnd" --lfts "$D/dla/opensm-lfts.dump" --no-sl-files
"$F" eval --topology "$D/dla/topology.ibnd" --lfts "$D/dla/opensm-lfts.dump" \
	--sl2vl "$D/dla/opensm-sl2vl.dump" --metrics dragonfly --json > "$D/dla.json"
is "eval --json: dragonfly gc flows" "$(jq .dragonfly.flows.gc.max "$D/dla.json")" 64
is "eval --json: VL1 on local channels" "$(jq '.dragonfly.flows.lc.by_vl[1].max' "$D/dla.json")" 32
runs "dragonfly metrics on a fat tree: exit 3" 3 "$F" eval --topology "$D/ft648.ibnd" \
	--lfts "$D/out/opensm-lfts.dump" --metrics dragonfly
like "says why" "$err" "not a fully connected dragonfly"

# a=3 h=2: groups ambiguous; the chain falls back, a groups file lets dla route
"$F" gen dragonfly a=3 p=2 h=2 -o "$D/cellia.ibnd"
runs "a=3 h=2: dla falls back to updn" 0 "$F" compute -e dla,updn --topology "$D/cellia.ibnd" \
	--out-dir "$D/cellia"
like "says the groups are ambiguous" "$out" "dla: not applicable: .*name the groups in a file"
for g in 0 1 2 3 4 5 6; do
	for s in 0 1 2; do echo "\"g0$g-sw$s\" G$g"; done
done > "$D/groups.txt"
runs "with dla.groups: dla routes" 0 "$F" compute -e dla -O dla.groups="$D/groups.txt" \
	--topology "$D/cellia.ibnd" --out-dir "$D/cellia2" --eval
like "from the groups file" "$out" "7 groups of 3 switches.*groups file"
runs "a groups file that does not exist" 2 "$F" compute -e dla -O dla.groups="$D/nope" \
	--topology "$D/cellia.ibnd" --out-dir "$D/x"
like "names the option" "$err" "dla.groups"
echo "g00-sw0" > "$D/bad-groups.txt"
runs "a malformed groups file" 1 "$F" compute -e dla,updn -O dla.groups="$D/bad-groups.txt" \
	--topology "$D/cellia.ibnd" --out-dir "$D/x"
like "names the line" "$err" "bad-groups.txt:1: expected \"NODE GROUP\""

# --json: summary.json on standard output, reals at 10 significant digits at most
runs "compute --eval --json" 0 "$F" compute --engine sftree --topology "$D/ft648.ibnd" --out-dir "$D/js" --eval --json
is "compute --json prints summary.json" "$(printf '%s' "$out" | jq -cS .)" "$(jq -cS . "$D/js/summary.json")"
is "compute --json: the evaluation, no text report" "$(printf '%s' "$out" | jq -r '.evaluation.deadlock | has("deadlock_free")')" true
is "compute --json: no real printed with more than 10 significant digits" \
	"$(printf '%s' "$out" | grep -oE '[0-9]+\.[0-9]+' | sed 's/^0*\.0*//; s/\.//' | awk 'length > 10')" ""

# errors
runs "missing --out-dir" 2 "$F" compute --topology "$D/ft648.ibnd"
runs "unknown engine" 2 "$F" compute --engine lash --topology "$D/ft648.ibnd" --out-dir "$D/x"
like "names it" "$err" "lash"
runs "unknown option" 2 "$F" compute --engine updn -O nosuch=1 --topology "$D/ft648.ibnd" --out-dir "$D/x"
runs "updn with an unknown root" 1 "$F" compute --engine updn -O updn.roots=nosuch \
	--topology "$D/ft648.ibnd" --out-dir "$D/x"
like "names the root" "$err" "nosuch"
runs "missing topology" 3 "$F" compute --engine updn --topology "$D/nope" --out-dir "$D/x"
runs "unwritable out dir" 1 "$F" compute --engine updn --topology "$D/ft648.ibnd" \
	--out-dir /nonexistent/dir

done_testing
