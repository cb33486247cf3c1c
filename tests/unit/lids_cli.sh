#!/bin/sh
# papers/002 through the command line: compute -e pathsel writes the paths
# file, eval --paths checks it (and catches a path the tables do not
# follow), fabroute lids realises a path file given from outside (by GUID
# and by description), bad path files are refused naming the line.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need jq

F=$FABROUTE
D=$t_tmp

"$F" gen random switches=8 machines=32 degree=4 --seed 3 -o "$D/r.ibnd"
runs "compute -e pathsel" 0 "$F" compute -e pathsel --topology "$D/r.ibnd" -d "$D/ps" --eval
like "notes give LIDs per port and under a global LMC" "$out" \
	"LIDs for 32 ports with per-port LMC \(largest [0-9]; under one global LMC [0-9]+\)"
like "completion leaves nothing unrouted" "$out" "completion added [0-9]+ entries, 0 unrouted"
like "connected" "$out" "connectivity: connected"
like "deadlock-free" "$out" "deadlock: +free"
like "written names paths" "$out" "written: .*paths,summary.json"
is "paths: one line per machine pair" "$(wc -l < "$D/ps/paths")" $((32 * 31))
like "paths: GUIDs, decimal DLID, SWITCH:PORT hops" "$(head -1 "$D/ps/paths")" \
	"^0x[0-9a-f]{16} 0x[0-9a-f]{16} [0-9]+( 0x[0-9a-f]{16}:[0-9]+)+$"
is "summary lists paths" "$(jq -r .files.paths "$D/ps/summary.json")" paths
sizes=$(while read -r g b t; do [ -n "$g" ] && echo $((t - b + 1)); done < "$D/ps/guid2lid" |
	sort -un | tr '\n' ' ')
like "guid2lid: per-port ranges of several sizes" "$sizes" "^1 (2 |4 |8 )+$"

runs "eval --paths: every path followed" 0 "$F" eval --topology "$D/ps/topology.ibnd" \
	--lfts "$D/ps/opensm-lfts.dump" --paths "$D/ps/paths" --all-lids
like "eval counts them" "$out" "paths: +992 of 992 listed paths followed"
runs "eval --paths --json" 0 "$F" eval --topology "$D/ps/topology.ibnd" \
	--lfts "$D/ps/opensm-lfts.dump" --paths "$D/ps/paths" --json
like "json: paths.not_followed 0" "$out" '"not_followed": 0'

# tables routing other paths do not follow these
"$F" compute -e explicit --topology "$D/r.ibnd" -d "$D/fx" > /dev/null
runs "eval --paths on other tables: not followed (exit 7)" 7 "$F" eval \
	--topology "$D/ps/topology.ibnd" --lfts "$D/fx/opensm-lfts.dump" --paths "$D/ps/paths"
like "names the file, line and hop" "$out" "not followed: .*/ps/paths:[0-9]+: DLID [0-9]+ from"
runs "eval --paths with a path file that does not fit: exit 3" 3 "$F" eval \
	--topology "$D/ps/topology.ibnd" --lfts "$D/ps/opensm-lfts.dump" --paths "$D/r.ibnd"

# fabroute lids on the same paths, without DLIDs
cut -d' ' -f1,2,4- "$D/ps/paths" > "$D/p.txt"
runs "lids" 0 "$F" lids --topology "$D/r.ibnd" --paths "$D/p.txt"
like "per destination: port, node, paths, configurations, lids" "$out" \
	"0x[0-9a-f]{16} +node-00 +31 +[0-9]+ +[0-9]+"
like "totals" "$out" "total: +992 paths \(0 identical merged\) to 32 ports"
runs "lids --json --exact" 0 "$F" lids --topology "$D/r.ibnd" --paths "$D/p.txt" --json --exact 200
is "json: 32 destinations" "$(printf '%s' "$out" | jq '.destinations | length')" 32
is "json: exact no worse than color-l" \
	"$(printf '%s' "$out" | jq '.totals.optimum <= .totals.configurations')" true
is "json: configurations >= lower bounds" \
	"$(printf '%s' "$out" | jq '[.destinations[] | .configurations >= .lower_bound] | all')" true
for h in greedy sm-s sm-l color-s color-l; do
	runs "lids --heuristic $h" 0 "$F" lids --topology "$D/r.ibnd" --paths "$D/p.txt" --heuristic $h
done
runs "lids -d writes tables" 0 "$F" lids --topology "$D/r.ibnd" --paths "$D/p.txt" -d "$D/l" \
	--heuristic greedy
like "completion" "$out" "written: .*root '.*', completion added [0-9]+ entries, 0 unrouted"
runs "its tables follow its paths" 0 "$F" eval --topology "$D/l/topology.ibnd" \
	--lfts "$D/l/opensm-lfts.dump" --paths "$D/l/paths" --all-lids

# by description (a CA for its port 1), identical paths merged
cat > "$D/two.net" <<'NET'
Switch 4 "s1"
[1] "h1"[1]
[2] "h2"[1]
[3] "s2"[3]
[4] "s2"[4]

Switch 4 "s2"
[1] "h3"[1]
[3] "s1"[3]
[4] "s1"[4]

Hca 1 "h1"
[1] "s1"[1]

Hca 1 "h2"
[1] "s1"[2]

Hca 1 "h3"
[1] "s2"[1]
NET
printf '# h1, h2 over both links\nh1 h3 s1:3 s2:1\nh2 h3 s1:4 s2:1\n\nh1 h3 s1:3 s2:1\n' > "$D/two.txt"
runs "paths by description" 0 "$F" lids --topology "$D/two.net" --paths "$D/two.txt"
like "the two links split: 2 configurations, 2 LIDs for h3" "$out" \
	"0x[0-9a-f]{16} +h3 +3 +2 +2"
like "the identical path is merged" "$out" "3 paths \(1 identical merged\) to 1 ports: 2 configurations"
printf 'h1 h3 s1:3 s2:1\nh2 h3 s1:3 s2:1\n' > "$D/one.txt"
runs "one link: one configuration" 0 "$F" lids --topology "$D/two.net" --paths "$D/one.txt" --json
like "one LID" "$out" '"configurations": 1,'
runs "a switch crossed twice: exit 3" 3 "$F" lids --topology "$D/two.net" --paths /dev/stdin <<'P'
h1 h3 s1:3 s2:4 s1:3 s2:1
P
like "says why, with the line" "$err" "stdin:1: hop 3: switch 's1' is crossed twice"

# bad path files name the line
printf '# x\n%s extra:1\n' "$p1" > "$D/bad1.txt"
runs "a hop past the destination: exit 3" 3 "$F" lids --topology "$D/r.ibnd" --paths "$D/bad1.txt"
like "names the file and line" "$err" "bad1.txt:2: "
printf 'node-00 node-01\n' > "$D/bad2.txt"
runs "no hops: exit 3" 3 "$F" lids --topology "$D/r.ibnd" --paths "$D/bad2.txt"
like "says a node is unknown or a hop missing" "$err" "bad2.txt:1: (no node|expected at least one hop)"
printf '\n\nnosuch node-01 sw-1:1\n' > "$D/bad3.txt"
runs "unknown node: exit 3" 3 "$F" lids --topology "$D/r.ibnd" --paths "$D/bad3.txt"
like "names it" "$err" "bad3.txt:3: no node \"nosuch\""
runs "bad heuristic: exit 2" 2 "$F" lids --topology "$D/r.ibnd" --paths "$D/p.txt" --heuristic x
like "lists the heuristics" "$err" "expected greedy[|]sm-s[|]sm-l[|]color-s[|]color-l$"
runs "missing --paths: exit 2" 2 "$F" lids --topology "$D/r.ibnd"
runs "lids --help" 0 "$F" lids --help

# papers/002 Figure 6: realising R_m0 = {p1, p2, p3, p4} in that order, greedy
# puts p1 and p3 in one configuration, then needs one for p2 and one for p4:
# 3. The paths are taken in the file's order; sorted by source (m1, m2, m3,
# m4: p1, p2, p4, p3) greedy finds the optimum, 2.
cat > "$D/fig6.net" <<'EOF'
switchguid=0x100
Switch	4 "s0"
[1]	"m0"[1]
[2]	"s1"[2]
[3]	"s2"[2]

Switch	4 "s1"
[1]	"s4"[3]
[2]	"s0"[2]
[3]	"s3"[4]

Switch	4 "s2"
[1]	"s3"[2]
[2]	"s0"[3]
[3]	"s5"[3]

Switch	4 "s3"
[1]	"s4"[4]
[2]	"s2"[1]
[3]	"s5"[4]
[4]	"s1"[3]

Switch	4 "s4"
[1]	"m1"[1]
[2]	"m2"[1]
[3]	"s1"[1]
[4]	"s3"[1]

Switch	4 "s5"
[1]	"m3"[1]
[2]	"m4"[1]
[3]	"s2"[3]
[4]	"s3"[3]

caguid=0x1000
Hca	1 "m0"
[1]	"s0"[1]

Hca	1 "m1"
[1]	"s4"[1]

Hca	1 "m2"
[1]	"s4"[2]

Hca	1 "m3"
[1]	"s5"[1]

Hca	1 "m4"
[1]	"s5"[2]
EOF
printf '# p1, p2, p3, p4\nm1 m0 s4:3 s1:2 s0:1\nm2 m0 s4:4 s3:2 s2:2 s0:1\nm4 m0 s5:3 s2:2 s0:1\nm3 m0 s5:4 s3:4 s1:2 s0:1\n' \
	> "$D/fig6.txt"
runs "Fig. 6, greedy, the file's order" 0 "$F" lids --topology "$D/fig6.net" --paths "$D/fig6.txt" \
	--heuristic greedy
like "3 configurations for m0" "$out" "4 paths \(0 identical merged\) to 1 ports: 3 configurations"
runs "Fig. 6, greedy, --sort-by-source" 0 "$F" lids --topology "$D/fig6.net" \
	--paths "$D/fig6.txt" --heuristic greedy --sort-by-source
like "2 configurations for m0" "$out" "4 paths \(0 identical merged\) to 1 ports: 2 configurations"
done_testing
