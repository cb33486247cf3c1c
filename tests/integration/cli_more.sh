#!/bin/sh
# The fabroute commands added for operators, against a real fabrouted
# (127.0.0.1:0, temporary database and token: daemon_lib.sh): nodes, links
# (with the routes of /api/topology), lft (ibroute's layout, from GET
# /api/lfts?switch=), config (a file fabrouted loads back), status's
# source, read-back and store lines, route --format ibtracert, and compute
# taking the running daemon's chain when no --engine is given (and
# fabrouted's default chain without a daemon).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need jq
. "$top_srcdir/tests/integration/daemon_lib.sh"

F=$FABROUTE

if d_start k22 --topology gen:kary-ntree:k=2,n=2 --engine sftree,minhop && d_wait_epoch 1; then
	ok "fabrouted started on $D_URL"
else
	not_ok "fabrouted started"
	done_testing
fi
U="--url $D_URL"

# --- nodes ---------------------------------------------------------------------
runs "nodes" 0 "$F" nodes $U
like "nodes: a header" "$out" "^TYPE +GUID +LID +PORTS +LINKS +NODE$"
like "nodes: a switch with its GUID, LID, ports, links" "$out" "^SW +0x0002fab100000001 +1 +4 +4 +leaf-00$"
like "nodes: a CA" "$out" "^CA +0x0002fab200000040 +8 +1 +1 +node-03$"
like "nodes: the count and the epoch" "$out" "^8 nodes \(epoch 1, sftree\)$"
runs "nodes --type ca" 0 "$F" nodes --type ca $U
is "nodes --type ca: only the 4 CAs" "$(printf '%s\n' "$out" | grep -c '^CA ')/$(printf '%s\n' "$out" | grep -c '^SW ')" 4/0
runs "nodes --type with a bad value" 2 "$F" nodes --type switch $U
like "names the value" "$err" "--type 'switch': expected ca, sw or rt"
runs "nodes --json" 0 "$F" nodes --json $U
is "nodes --json is GET /api/nodes" "$(printf '%s' "$out" | jq .count)" 8

# --- links ---------------------------------------------------------------------
runs "links" 0 "$F" links $U
api GET /api/topology
ab=$(jf '.links[] | select(.a.node == "leaf-00" and .a.port == 3) | .routes_ab')
ba=$(jf '.links[] | select(.a.node == "leaf-00" and .a.port == 3) | .routes_ba')
like "links: a switch link with the routes of /api/topology, each direction" "$out" \
	"^leaf-00:3 +<-> spine-00:1 +- +- +$ab +$ba$"
like "links: a CA link has no routes" "$out" "^leaf-00:1 +<-> node-00:1 +- +- +- +-$"
is "links: every link once" "$(printf '%s\n' "$out" | grep -c ' <-> ')" 8
like "links: the busiest direction is /api/topology's max_routes" "$out" \
	"^8 links, the busiest direction carries $(jf .max_routes) routes \(epoch 1, sftree\)$"
runs "links --json" 0 "$F" links --json $U
is "links --json holds both answers" "$(printf '%s' "$out" | jq -c '[.links.count, (.topology.links | length)]')" "[8,4]"

# --- lft -----------------------------------------------------------------------
api GET "/api/lfts?switch=leaf-00"
is "GET /api/lfts?switch= answers one block" "$code $(printf '%s\n' "$body" | grep -c '^Unicast lids')" "200 1"
printf '%s\n' "$body" >"$t_tmp/block.dump"
api GET /api/lfts
printf '%s\n' "$body" | awk '/^Unicast/ { n++ } n == 1' >"$t_tmp/first.dump"
is "it is leaf-00's block of the whole dump" "$(cat "$t_tmp/block.dump")" "$(cat "$t_tmp/first.dump")"
api GET "/api/lfts?switch=node-00"
is "GET /api/lfts?switch=CA: 400" "$code $(jf .error.code)" "400 bad_parameter"
api GET "/api/lfts?switch=nosuch"
is "GET /api/lfts?switch=unknown: 404" "$code $(jf .error.code)" "404 not_found"
runs "lft leaf-00" 0 "$F" lft leaf-00 $U
is "lft: ibroute's header" "$(printf '%s\n' "$out" | head -3)" "Unicast lids [0x0-0x8] of switch Lid 1 guid 0x0002fab100000001 (leaf-00):
  Lid  Out   Destination
       Port     Info "
like "lft: an entry as ibroute prints it" "$out" \
	"^0x0005 001 : \(Channel Adapter portguid 0x0002fab200000011: 'node-00'\)$"
like "lft: the switch itself on port 0" "$out" "^0x0001 000 : \(Switch portguid 0x0002fab100000001: 'leaf-00'\)$"
is "lft: ibroute's footer, with its trailing space" "$(printf '%s\n' "$out" | tail -1)" "8 valid lids dumped "
printf '%s\n' "$out" >"$t_tmp/lft.txt"
is "lft: the entries of GET /api/lfts" "$(lft_entries "$t_tmp/lft.txt")" "$(lft_entries "$t_tmp/block.dump")"
runs "lft by LID" 0 "$F" lft 1 $U
is "lft 1 is lft leaf-00" "$out" "$(cat "$t_tmp/lft.txt")"
runs "lft by GUID" 0 "$F" lft 0x0002fab100000001 $U
is "lft 0x...01 is lft leaf-00" "$out" "$(cat "$t_tmp/lft.txt")"
runs "lft of a CA" 1 "$F" lft node-00 $U
is "says it is not a switch" "$err" \
	"fabroute: switch: 'node-00' names CA 'node-00', not a switch (bad_parameter, HTTP 400)"
runs "lft without a switch" 2 "$F" lft $U
runs "lft --json" 2 "$F" lft --json leaf-00 $U
like "says lft prints ibroute's layout only" "$err" "--json: lft prints ibroute's layout only"

# --- config --------------------------------------------------------------------
runs "config" 0 "$F" config $U
like "config: the chain in use" "$out" "^# engine chain in use: sftree,minhop$"
like "config: a flag" "$out" "^engine += sftree,minhop +# flag$"
like "config: a default" "$out" "^holddown_ms += 50 +# default$"
printf '%s\n' "$out" >"$t_tmp/conf"
runs "fabrouted loads what config prints" 0 "$FABROUTED" -n -c "$t_tmp/conf"
is "the same keys and values" "$(printf '%s\n' "$out" | sed 's/ *$//')" \
	"$(grep -v '^#' "$t_tmp/conf" | sed 's/ *#.*//; s/  *= */ = /; s/ *$//')"
runs "config --json" 0 "$F" config --json $U
is "config --json is GET /api/config" "$(printf '%s' "$out" | jq -r .config.origin.engine)" flag

# --- status ----------------------------------------------------------------------
runs "status" 0 "$F" status $U
like "status: the source" "$out" "^source: +file$"
like "status: no read-back with the file source" "$out" "^read-back: +off$"
like "status: the store" "$out" "^store: +ok, epoch stored; 0 errors since the start$"

# --- route --format ibtracert -------------------------------------------------------
runs "route --format ibtracert node-00 node-03" 0 "$F" route --format ibtracert node-00 node-03 $U
api GET "/api/route?src=node-00&dst=node-03"
is "route --format ibtracert: From, a line per port entered, To" "$(printf '%s\n' "$out" | head -2; printf '%s\n' "$out" | tail -2)" \
"From ca {0x0002fab200000010} portnum 1 lid 5-5 \"node-00\"
[1] -> switch port {0x0002fab100000001}[1] lid 1-1 \"leaf-00\"
[$(jf '.hops[-1].out_port')] -> ca port {0x0002fab200000041}[1] lid 8-8 \"node-03\"
To ca {0x0002fab200000040} portnum 1 lid 8-8 \"node-03\""
is "route --format ibtracert: one line per hop" "$(printf '%s\n' "$out" | grep -c 'switch port')" "$(jf .hop_count)"
runs "route --format ibtracert from a switch to a switch" 0 "$F" route --format ibtracert leaf-00 spine-01 $U
like "the source switch is From, not a hop" "$out" \
	"^From switch \{0x0002fab100000001\} portnum 0 lid 1-1 \"leaf-00\"
\[[34]\] -> switch port \{0x0002fab100000004\}\[1\] lid 4-4 \"spine-01\"
To switch \{0x0002fab100000004\} portnum 0 lid 4-4 \"spine-01\"$"
runs "route --format with a bad value" 2 "$F" route --format dot node-00 node-03 $U
runs "route --format ibtracert with --json" 2 "$F" route --format ibtracert --json node-00 node-03 $U

# --- compute without --engine --------------------------------------------------------
"$F" gen kary-ntree k=2 n=2 -o "$t_tmp/t.ibnd"
runs "compute without --engine, a daemon running" 0 "$F" compute --topology "$t_tmp/t.ibnd" -d "$t_tmp/o1" $U
like "says it takes the daemon's chain" "$err" \
	"^fabroute compute: no --engine: the chain of fabrouted at $D_URL: sftree,minhop$"
is "routes with it" "$(jq -r .chain "$t_tmp/o1/summary.json")" sftree,minhop
runs "FABROUTE_URL names the daemon" 0 env FABROUTE_URL="$D_URL" "$F" compute --topology "$t_tmp/t.ibnd" -d "$t_tmp/o2"
is "the daemon's chain again" "$(jq -r .chain "$t_tmp/o2/summary.json")" sftree,minhop
api POST /api/engine '{"chain": "minhop"}'
d_wait_epoch 2
runs "after POST /api/engine, the new chain" 0 "$F" compute --topology "$t_tmp/t.ibnd" -d "$t_tmp/o3" $U
is "routes with minhop" "$(jq -r .chain "$t_tmp/o3/summary.json")" minhop
d_stop
runs "compute without --engine, no daemon" 0 "$F" compute --topology "$t_tmp/t.ibnd" -d "$t_tmp/o4" $U
like "says it falls back to fabrouted's default chain" "$err" \
	"no chain from fabrouted at $D_URL \(cannot reach fabrouted.*\): fabrouted's default chain sftree,updn,minhop$"
is "routes with the default chain" "$(jq -r .chain "$t_tmp/o4/summary.json")" sftree,updn,minhop
is "the default chain is fabrouted's" "$("$FABROUTED" --help | grep -A1 '^  --engine CHAIN' | sed -n 's/.*(default: \(.*\))$/\1/p')" \
	sftree,updn,minhop
runs "--url with --engine" 2 "$F" compute -e minhop --topology "$t_tmp/t.ibnd" -d "$t_tmp/o5" $U

# --- a path that is not delivered: ftree leaves spine-to-spine pairs unrouted ---------
if d_start ftree --topology gen:kary-ntree:k=2,n=2 --engine ftree --publish-policy any && d_wait_epoch 1; then
	U="--url $D_URL"
	runs "route --format ibtracert, not delivered: exit 4" 4 "$F" route --format ibtracert spine-00 spine-01 $U
	is "it stops where ibtracert stops: at the switch whose table fails" "$out" \
		'From switch {0x0002fab100000003} portnum 0 lid 3-3 "spine-00"'
	is "and says why on standard error" "$err" \
		"fabroute: no route from spine-00 to spine-01: no-entry at switch 'spine-00' (DLID 4)"
	d_stop
else
	not_ok "a daemon routing with ftree"
fi
done_testing
