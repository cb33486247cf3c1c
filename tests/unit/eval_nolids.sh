#!/bin/sh
# fabroute eval on a topology discovered before the SM ran (ibnetdiscover
# prints every LID 0): the LIDs come from the port GUID annotations of the
# LFT dump, and the report equals the one of the topology discovered after
# OpenSM set the LIDs; where the dump cannot give them, eval refuses and
# says why. Fixtures: tests/data/osm/mixed-lmc1 (real OpenSM -l 1 under
# ibsim; ibnetdiscover-presm.out is discovery before OpenSM ran).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need jq

F=$FABROUTE
D=$top_srcdir/tests/data/osm/mixed-lmc1
report() { jq -S '{connectivity, deadlock, load}' "$1"; }

is "the fixture has no LIDs" "$(grep -c 'lid [1-9]' "$D/ibnetdiscover-presm.out")" 0
runs "eval after the SM: connected" 0 "$F" eval --json --topology "$D/ibnetdiscover.out" --lfts "$D/opensm-lfts.dump"
printf '%s\n' "$out" >"$t_tmp/after.json"
runs "eval before the SM, with OpenSM's dump: connected" 0 \
	"$F" eval --json --topology "$D/ibnetdiscover-presm.out" --lfts "$D/opensm-lfts.dump"
printf '%s\n' "$out" >"$t_tmp/before.json"
like "says where the LIDs came from" "$err" \
	"has no LIDs for 8 endpoints .*took them from the port GUID annotations of .*opensm-lfts.dump"
is "the report equals the one after the SM (LMC 1 ranges included)" "$(report "$t_tmp/before.json")" \
	"$(report "$t_tmp/after.json")"
is "every pair is checked" "$(jq '[.connectivity.classes[].pairs] | add' "$t_tmp/before.json")" 56
runs "eval before the SM, with dump_fts's tables (ibroute's layout, path # lines)" 0 \
	"$F" eval --json --topology "$D/ibnetdiscover-presm.out" --lfts "$D/dump_fts.out"
is "dump_fts's annotations give the same LIDs" "$(printf '%s\n' "$out" | jq -S '{connectivity, deadlock}')" \
	"$(jq -S '{connectivity, deadlock}' "$t_tmp/after.json")"
runs "with --guid2lid the annotations are not needed" 0 \
	"$F" eval --topology "$D/ibnetdiscover-presm.out" --guid2lid "$D/guid2lid" --lfts "$D/opensm-lfts.dump" \
	--no-dlid-plan
is "and nothing is said about them" "$err" ""

runs "the dump on standard input: refused" 3 \
	sh -c "'$F' eval --topology '$D/ibnetdiscover-presm.out' --lfts - <'$D/opensm-lfts.dump'"
like "says standard input cannot be read twice" "$err" "has no LIDs for 8 endpoints .*standard input, which cannot be read twice"
runs "opensm.fdbs: refused" 3 "$F" eval --topology "$D/ibnetdiscover-presm.out" --fdbs "$D/opensm.fdbs"
like "says fdbs names no port GUIDs" "$err" "opensm.fdbs names no port GUIDs to take them from: give the LIDs with --guid2lid"
grep -v "portguid 0x0000000000100008" "$D/opensm-lfts.dump" >"$t_tmp/no-h4.dump"
runs "a dump that names no LID for one port: refused" 3 \
	"$F" eval --topology "$D/ibnetdiscover-presm.out" --lfts "$t_tmp/no-h4.dump"
like "names the port" "$err" "name no LID for 'H4' port 1 \(port GUID 0x0000000000100008\)"
done_testing
