#!/bin/sh
# The fabroute commands that talk to a running fabrouted: status, route,
# reach, vl, events, snapshots, engine, reroute, fault; text and --json,
# exit codes, the daemon's error messages, the token, a fault and a reroute
# end to end. Starts its own daemons on 127.0.0.1:0 with a temporary
# database and token (tests/integration/daemon_lib.sh), and stops them at
# the end; the library's trap kills them on any exit.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need jq
. "$top_srcdir/tests/integration/daemon_lib.sh"

F=$FABROUTE

# wait_routed: poll GET /api/ready (10 s at most, longer with $T_SLOW) until
# the daemon has published its first routing, ready or not. Sets URL.
wait_routed() {
	URL=$D_URL
	i=0
	while :; do
		api GET /api/ready
		[ "$(jf .checks.routed 2>/dev/null)" = true ] && return 0
		i=$((i + 1))
		if [ $i -gt $((100 * T_SLOW)) ] || ! kill -0 "$D_PID" 2>/dev/null; then
			diag "fabrouted did not publish a routing:"; sed 's/^/# /' "$D_LOG.new"
			return 1
		fi
		sleep 0.1
	done
}

# Lines of "$1" that match the pattern "$2" (grep -E), as a count.
count() { printf '%s\n' "$1" | grep -Ec -- "$2"; }

# --- without a daemon: help and bad command lines ---------------------------
runs "--help exits 0" 0 "$F" --help
for c in status "route SRC DST" "reach \[SRC DST\]" vl events snapshots engine "reroute \[--wait\]" fault; do
	like "--help lists $c" "$out" "^  $c "
done
like "--help names FABROUTE_URL" "$out" "FABROUTE_URL"
for c in status route reach vl events snapshots engine reroute fault; do
	runs "$c --help exits 0" 0 "$F" $c --help
	like "$c --help shows its usage" "$out" "Usage: fabroute $c"
done
runs "route with one argument is a usage error" 2 "$F" route node-000
like "names what route expects" "$err" "expected SRC and DST, found 1 argument"
runs "reach with one argument is a usage error" 2 "$F" reach leaf-00
runs "vl with an argument is a usage error" 2 "$F" vl extra
runs "an unknown option is a usage error" 2 "$F" status --frob
like "names the option" "$err" "bad option '--frob'"
runs "a URL that is not http is a usage error" 2 "$F" status --url ftp://127.0.0.1:1
like "names the URL" "$err" "ftp://127.0.0.1:1"
runs "events --limit 0 is a usage error" 2 "$F" events --limit 0 --url http://127.0.0.1:1
runs "a snapshot id that is not a number" 2 "$F" snapshots first --url http://127.0.0.1:1
like "names the id" "$err" "snapshot id 'first'"
runs "fault with a bad action" 2 "$F" fault sideways --link leaf-00:1 --url http://127.0.0.1:1
like "names the action" "$err" "'sideways': expected down or up"
runs "fault down without --link or --switch" 2 "$F" fault down --url http://127.0.0.1:1
runs "fault down with both --link and --switch" 2 "$F" fault down --link a:1 --switch b
runs "engine --options without a chain" 2 "$F" engine --options minhop.count_switch_lids=1
runs "no daemon to reach" 1 "$F" status --url http://127.0.0.1:1
like "says which URL cannot be reached" "$err" "^fabroute: cannot reach fabrouted at http://127.0.0.1:1: "

# --- a daemon on the 648-port fat tree ----------------------------------------
# (daemon_lib.sh wrote the token to $t_tmp/token; its trap kills the daemons.)
echo "not-the-token-at-all-0123456789" > "$t_tmp/badtoken"
if d_start ft648 --topology gen:ft648 --api-write-rate-limit 0 --publish-policy any && wait_routed; then
	ok "fabrouted started on $URL"
else
	not_ok "fabrouted started"
	done_testing
fi
U="--url $URL"
T="--token-file $t_tmp/token"

runs "status of a ready daemon exits 0" 0 "$F" status $U
like "status shows the epoch" "$out" "^epoch: +1[ ,].*reason: startup"
like "status shows the engine" "$out" "^engine: +sftree \(chain sftree,updn,minhop\)"
like "status shows the fabric" "$out" "^fabric: +702 nodes \(54 switches, 648 CAs, 0 routers\), 1296 links"
like "status says ready" "$out" "^ready: +yes"
like "status shows the reroutes" "$out" "^reroutes: +1 ok, 0 failed"
runs "status --json" 0 "$F" status --json $U
like "status --json holds the three answers" "$(printf '%s' "$out" | tr -d '\n ')" \
	'^\{"fabric":\{"epoch".*"ready":\{"ready":true.*"health":\{'
is "status --json parses, switches" "$(printf '%s' "$out" | jq .fabric.switches)" 54
runs "FABROUTE_URL gives the URL" 0 env FABROUTE_URL="$URL" "$F" status
runs "a proxy in the environment is not used for loopback" 0 \
	env http_proxy=http://127.0.0.1:1 HTTP_PROXY=http://127.0.0.1:1 no_proxy=example.org "$F" status $U

runs "route node-000 node-645" 0 "$F" route node-000 node-645 $U
like "route shows DLID, SL and hop count" "$out" "^DLID 700, SL 0, 3 hops"
like "route shows a hop: node, GUID, ports, VL" "$out" \
	"^ +1 +leaf-00 +0x0002fab100000001 +1 -> [0-9]+ +0$"
is "route shows three hops" "$(count "$out" '^ +[0-9]+ +(leaf|spine)-')" 3
like "route says delivered" "$out" "^delivered$"
runs "route --json" 0 "$F" route --json node-000 node-645 $U
like "route --json is the daemon's answer, indented" "$out" '^  "delivered": true,'
runs "route to an unknown node" 1 "$F" route nosuch node-645 $U
is "the daemon's message, code and status" "$err" \
	"fabroute: src: no node described 'nosuch' (not_found, HTTP 404)"
runs "route by LID and GUID" 0 "$F" route 55 0x0002fab200002860 $U
like "LID 55 is node-000" "$out" "^node-000 -> node-645"

runs "reach" 0 "$F" reach $U
like "reach says all switch pairs are delivered" "$out" \
	"^switch pairs: 2862 among 54 switches, 0 not delivered: complete"
runs "reach leaf-00 leaf-05" 0 "$F" reach leaf-00 leaf-05 $U
like "reach shows the pair" "$out" "^leaf-00 -> leaf-05: reachable in 3 hops"
like "reach shows the path" "$out" "^ +3 +leaf-05 "
runs "reach with a CA" 1 "$F" reach node-000 leaf-05 $U
like "says it is not a switch" "$err" "'node-000' names CA 'node-000', not a switch \(bad_parameter, HTTP 400\)"

runs "vl" 0 "$F" vl $U
like "vl shows the VLs used" "$out" "^VLs used: 0; deadlock-free"
like "vl shows VL 0 acyclic" "$out" "^ +0 +[0-9]+ +1296 +[0-9]+ +yes$"
runs "vl --json" 0 "$F" vl --json $U
like "vl --json" "$out" '"acyclic": true'

runs "events" 0 "$F" events $U
like "events shows the start" "$out" "^ +1 +20[0-9-]+T[0-9:.]+Z +daemon +fabrouted .* started$"
like "events shows the first epoch" "$out" "reroute +epoch 1: sftree routed"
runs "events --type with a bad type" 1 "$F" events --type nope $U
like "the daemon names the type" "$err" "type: expected trap, fault, .* found 'nope' \(bad_parameter, HTTP 400\)"
runs "events --since ID --limit" 0 "$F" events --since 1 --limit 1 $U
is "one event after event 1" "$(count "$out" '^ +[0-9]+ ')" 1

runs "snapshots" 0 "$F" snapshots $U
like "snapshots lists the first" "$out" "^ +1 +1 +20[^ ]+ +startup +sftree +6f4cc7af89202eb7"
runs "snapshots 1" 0 "$F" snapshots 1 $U
like "snapshot 1" "$out" "^snapshot: +1 \(epoch 1\)"
like "snapshot 1 evaluation" "$out" "^routing: +connected, deadlock-free"
runs "a snapshot that does not exist" 1 "$F" snapshots 99 $U
like "says which" "$err" "no snapshot 99"

runs "engine" 0 "$F" engine $U
like "engine shows the engine in use" "$out" "^engine in use: +sftree"
like "engine lists the engines" "$out" "^  \* minhop "
runs "engine --json" 0 "$F" engine --json $U
like "engine --json holds engines and config" "$out" '"engine_in_use": "sftree,updn,minhop"'

# --- control: token, fault, reroute ------------------------------------------
runs "reroute without a token" 1 "$F" reroute $U
like "says unauthorized" "$err" "\(unauthorized, HTTP 401\)"
like "says how to give the token" "$err" "--token-file"
runs "reroute with a wrong token" 1 "$F" reroute $U --token-file "$t_tmp/badtoken"
like "says the token is not valid" "$err" "not valid \(unauthorized, HTTP 401\)"
runs "reroute with a missing token file" 3 "$F" reroute $U --token-file "$t_tmp/nope"
like "names the token file" "$err" "token file .*nope: cannot open"
runs "reroute --wait" 0 "$F" reroute --wait $U $T
like "reroute requested" "$out" "^reroute requested$"
like "reroute waited for an epoch" "$out" "^rerouted: epoch [0-9]+ in use$"

runs "fault lists none" 0 "$F" fault $U
like "no link down" "$out" "^links down: +none$"
runs "fault down --link" 0 "$F" fault down --link leaf-00:34 $U $T
like "fault down names the link" "$out" "^link 0x0002fab100000001:34 \(leaf-00:34\) down; reroute requested"
runs "the same fault again" 1 "$F" fault down --link leaf-00:34 $U $T
like "the daemon says it is down already" "$err" "already down \(conflict, HTTP 409\)"
runs "fault down on an unknown switch" 1 "$F" fault down --switch nosuch $U $T
like "names the switch" "$err" "nosuch"
runs "reroute after the fault (token from FABROUTE_TOKEN_FILE)" 0 \
	env FABROUTE_TOKEN_FILE="$t_tmp/token" "$F" reroute --wait $U
runs "fault lists the link" 0 "$F" fault $U
like "the link is down, by name next to its GUID" "$out" "^  leaf-00:34 - spine-15:1 +0x0002fab100000001:34$"
api GET /api/faults
is "/api/faults names each fault" "$(jf '.details.links[0] | "\(.a.node):\(.a.port) - \(.b.node):\(.b.port)"')" \
	"leaf-00:34 - spine-15:1"
runs "events --type fault" 0 "$F" events --type fault $U
like "the fault is an event" "$out" "fault +link leaf-00:34 down$"
is "only fault events" "$(count "$out" ' (daemon|reroute) ')" 0
runs "route after the fault" 0 "$F" route node-000 node-645 $U
like "still delivered" "$out" "^delivered$"
is "not through the link down" "$(count "$out" '^ +1 +leaf-00 .* -> 34 ')" 0
runs "status after the fault" 0 "$F" status $U
like "a newer epoch" "$out" "^epoch: +([3-9]|[1-9][0-9]+) .*reason: (fault|api)"
like "one link fewer" "$out" "1295 links"
runs "links: every page of GET /api/links (1000 a page)" 0 "$F" links --json $U
is "links: all 1295, once each" "$(printf '%s' "$out" | jq -c '[.links.count, (.links.links | length),
	(.links.links | map(.a.node + ":" + (.a.port | tostring)) | unique | length), .links.more]')" "[1295,1295,1295,false]"
runs "fault up --all without the token" 1 "$F" fault up --all $U
runs "fault up --all with something else is a usage error" 2 "$F" fault up --all --link leaf-00:1 $U $T
runs "fault down --all is a usage error" 2 "$F" fault down --all $U $T
runs "snapshots 1 3: the diff" 0 "$F" snapshots 1 3 $U
like "the diff shows the link removed" "$out" "^links removed: 1$"
like "the diff names it" "$out" "^  - leaf-00:34 .* - spine-15:1 "
runs "snapshots --json of a diff" 0 "$F" snapshots --json 1 3 $U
like "diff JSON" "$out" '"topology_changed": true'

runs "engine with an unknown engine" 1 "$F" engine nosuch $U $T
like "the daemon names the chain" "$err" "^fabroute: chain: .*nosuch.*\(bad_parameter, HTTP 400\)"
runs "engine minhop" 0 "$F" engine minhop --options minhop.count_switch_lids=1 $U $T
like "engine says selected" "$out" "^engine chain 'minhop' selected \(options: minhop.count_switch_lids=1\)"
runs "reroute --wait for minhop" 0 "$F" reroute --wait $U $T
runs "status of a daemon that is not ready exits 4" 4 "$F" status $U
like "status says not ready" "$out" "^ready: +no$"
like "status shows the failing check" "$out" "failing: +a channel dependency graph has a cycle"
runs "vl with minhop" 0 "$F" vl $U
like "vl shows the cycle" "$out" "^cycle on VL 0 \([0-9]+ channels"
runs "fault up --link" 0 "$F" fault up --link leaf-00:34 $U $T
like "fault up" "$out" "up; reroute requested"
runs "fault down --link again" 0 "$F" fault down --link leaf-00:34 $U $T
runs "fault down --switch (a second fault)" 0 "$F" fault down --switch spine-03 $U $T
runs "fault up --all" 0 "$F" fault up --all $U $T
like "fault up --all: a link and a switch came back, one reroute" "$out" "^every fault up: 2; reroute requested$"
like "  and none is left" "$out" "^links down: none$"
runs "fault up --all with nothing down" 0 "$F" fault up --all $U $T
like "  says so" "$out" "^every fault up: 0; nothing was down$"
api POST /api/faults '{"action":"up","all":false}'
is "POST /api/faults all: only true" "$code" 400
runs "engine back to the default chain" 0 "$F" engine sftree,updn,minhop --json $U $T
like "engine --json is the daemon's answer" "$out" '"reroute_requested": true'
runs "reroute --wait" 0 "$F" reroute --wait $U $T
runs "ready again" 0 "$F" status $U
d_stop
is "the daemon stopped cleanly" "$D_STATUS" 0
runs "a daemon that stopped cannot be reached" 1 "$F" status $U
like "says so, with the URL" "$err" "^fabroute: cannot reach fabrouted at $URL: "

# --- a fabric with an island: routes not delivered, names with spaces -------
"$F" gen kary-ntree k=2 n=2 > "$t_tmp/island.ibnd"
cat >> "$t_tmp/island.ibnd" <<'EOF'

vendid=0x0
devid=0x0
caguid=0x2fab2000000a0
Ca	1 "H-0002fab2000000a0"		# "island a"
[1](2fab2000000a1) 	"H-0002fab2000000b0"[1](2fab2000000b1)		# "island b"

vendid=0x0
devid=0x0
caguid=0x2fab2000000b0
Ca	1 "H-0002fab2000000b0"		# "island b"
[1](2fab2000000b1) 	"H-0002fab2000000a0"[1](2fab2000000a1)		# "island a"
EOF
if d_start island --topology "$t_tmp/island.ibnd" --publish-policy any && wait_routed; then
	ok "fabrouted started on the island fabric"
	runs "status of a fabric not connected exits 4" 4 "$F" status --url "$URL"
	like "says which pairs fail" "$out" "failing: +ca-ca: [0-9]+ of [0-9]+ pairs unreachable"
	runs "route to the island exits 4" 4 "$F" route node-00 "island a" --url "$URL"
	like "says why it is not delivered" "$out" "^not delivered: no-entry$"
	like "shows where it stops" "$out" "^ +1 +leaf-00 .* -> none "
	runs "route --json not delivered exits 4" 4 "$F" route --json node-00 "island a" --url "$URL"
	like "route --json not delivered" "$out" '"delivered": false'
	runs "a node description with a space" 0 "$F" route "island a" "island b" --url "$URL"
	like "names both" "$out" "^island a -> island b "
	runs "reach on the island fabric" 0 "$F" reach --url "$URL"
	like "the switches reach each other" "$out" "0 not delivered: complete"
	d_stop
	is "the island daemon stopped cleanly" "$D_STATUS" 0
else
	not_ok "fabrouted started on the island fabric"
fi
done_testing
