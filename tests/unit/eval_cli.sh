#!/bin/sh
# fabroute eval on committed OpenSM dumps: verdicts, exit codes, JSON schema,
# and errors that name what was wrong.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need jq

F=$FABROUTE
D=$top_srcdir/tests/data/osm

runs "eval --help" 0 "$F" eval --help
like "help documents the exit codes" "$out" "4 some pair unreachable"

# a 5-switch ring routed shortest-path by OpenSM's minhop: a credit loop
runs "ring/minhop: deadlock possible (exit 5)" 5 "$F" eval --subnet "$D/ring/opensm-subnet.lst" \
	--lfts "$D/ring/opensm-lfts.dump"
like "ring: connected" "$out" "connectivity: connected"
like "ring: the cycle is shown" "$out" "cycle on VL 0 \(5 channels\)"
runs "ring from opensm.fdbs: the same" 5 "$F" eval --subnet "$D/ring/opensm-subnet.lst" \
	--fdbs "$D/ring/opensm.fdbs"

# a fat tree: connected and deadlock-free
runs "fattree/minhop: exit 0" 0 "$F" eval --subnet "$D/fattree/opensm-subnet.lst" \
	--lfts "$D/fattree/opensm-lfts.dump"
like "fattree: deadlock free" "$out" "deadlock: +free"
like "fattree: every class listed" "$out" "SW->SW"
runs "fattree from ibnetdiscover output" 0 "$F" eval --topology "$D/fattree/ibnetdiscover.out" \
	--lfts "$D/fattree/opensm-lfts.dump"

# JSON
runs "eval --json" 5 "$F" eval --json --subnet "$D/ring/opensm-subnet.lst" --lfts "$D/ring/opensm-lfts.dump"
is "JSON schema" "$(printf '%s' "$out" | jq -r .schema)" "fabroute-eval/1"
is "JSON connected" "$(printf '%s' "$out" | jq .connectivity.connected)" true
is "JSON deadlock_free" "$(printf '%s' "$out" | jq .deadlock.deadlock_free)" false
is "JSON cycle length" "$(printf '%s' "$out" | jq '.deadlock.vls[0].cycle | length')" 5
is "JSON SW->SW pairs" "$(printf '%s' "$out" | jq '.connectivity.classes["sw-sw"].pairs')" 20
like "JSON load present" "$(printf '%s' "$out" | jq .load.max)" "^[0-9]+$"
runs "eval --metrics conn" 5 "$F" eval --json --metrics conn --subnet "$D/ring/opensm-subnet.lst" \
	--lfts "$D/ring/opensm-lfts.dump"
is "no load without asking" "$(printf '%s' "$out" | jq .load)" null

# a black hole: one LFT entry removed -> not connected (exit 4)
sed '0,/^0x0002 [0-9]*/s//0x0002 255/' "$D/fattree/opensm-lfts.dump" > "$t_tmp/hole.dump"
runs "black hole: exit 4" 4 "$F" eval --subnet "$D/fattree/opensm-subnet.lst" --lfts "$t_tmp/hole.dump"
like "black hole: no-entry reported" "$out" "no-entry"

# LMC: the routing of the LMC 1 run is checked on every LID with --all-lids
runs "LMC 1 with --all-lids" 0 "$F" eval --all-lids --subnet "$D/mixed-lmc1/opensm-subnet.lst" \
	--guid2lid "$D/mixed-lmc1/guid2lid" --lfts "$D/mixed-lmc1/opensm-lfts.dump"
like "on every LID" "$out" "on every LID"

# threads: the same report on 1 and 3 threads
runs "eval --threads 1" 4 "$F" eval --json --threads 1 --subnet "$D/fattree/opensm-subnet.lst" \
	--lfts "$t_tmp/hole.dump"
one=$out
runs "eval --threads 3" 4 "$F" eval --json --threads 3 --subnet "$D/fattree/opensm-subnet.lst" \
	--lfts "$t_tmp/hole.dump"
is "same JSON on 1 and 3 threads" "$out" "$one"
runs "bad --threads" 2 "$F" eval --threads many --subnet "$D/ring/opensm-subnet.lst" \
	--lfts "$D/ring/opensm-lfts.dump"

# the LFT dump from a pipe, in pieces (no size limit)
out=$(cat "$D/fattree/opensm-lfts.dump" | "$F" eval --subnet "$D/fattree/opensm-subnet.lst" --lfts -)
like "LFTs read from standard input" "$out" "deadlock: +free"

# progress: only on a terminal (or when asked), on standard error, cleared at the end
runs "no progress when stderr is no terminal" 0 "$F" eval --json --subnet "$D/fattree/opensm-subnet.lst" \
	--lfts "$D/fattree/opensm-lfts.dump"
is "nothing on stderr" "$err" ""
plain=$out
out=$(FABROUTE_PROGRESS=now "$F" eval --json --subnet "$D/fattree/opensm-subnet.lst" \
	--lfts "$D/fattree/opensm-lfts.dump" 2> "$t_tmp/progress")
is "progress leaves stdout alone" "$out" "$plain"
like "progress names the steps" "$(tr '\r' '\n' < "$t_tmp/progress")" "fabroute eval: reading the LFTs"
like "progress counts destinations" "$(cat "$t_tmp/progress")" "fabroute eval: evaluating"
like "progress line cleared at the end" "$(tail -c 4 "$t_tmp/progress" | od -An -c)" '\\r 033   \[   K *$'
out=$(FABROUTE_PROGRESS=now "$F" gen kary-ntree k=2 n=2 --link-faults 1 -o "$t_tmp/g.ibnd" 2>&1)
like "gen shows its steps" "$out" "fabroute gen: applying faults"

# errors
runs "no routing given" 2 "$F" eval --subnet "$D/ring/opensm-subnet.lst"
runs "both --lfts and --fdbs" 2 "$F" eval --subnet "$D/ring/opensm-subnet.lst" \
	--lfts "$D/ring/opensm-lfts.dump" --fdbs "$D/ring/opensm.fdbs"
runs "unknown metric" 2 "$F" eval --metrics speed --subnet "$D/ring/opensm-subnet.lst" \
	--lfts "$D/ring/opensm-lfts.dump"
like "names the metric" "$err" "speed"
runs "missing file" 3 "$F" eval --subnet "$t_tmp/nope" --lfts "$D/ring/opensm-lfts.dump"
like "names the file" "$err" "nope"
runs "dump of another fabric" 3 "$F" eval --subnet "$D/ring/opensm-subnet.lst" \
	--lfts "$D/fattree/opensm-lfts.dump"
like "says which switch is unknown" "$err" "opensm-lfts.dump:[0-9]+:"

done_testing
