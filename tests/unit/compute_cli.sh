#!/bin/sh
# fabroute compute and fabroute engines: files written, chains, evaluation,
# exit codes, errors.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need jq

F=$FABROUTE
D=$t_tmp

runs "engines lists the engines" 0 "$F" engines
for e in minhop updn ftree sftree dmodk smodk opt; do
	like "engines shows $e" "$out" "^$e "
done
runs "engines --json" 0 "$F" engines --json
is "engines --json names 7 engines" "$(printf '%s' "$out" | jq length)" 7
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
