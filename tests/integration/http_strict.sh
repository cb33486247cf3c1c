#!/bin/sh
# Smaller robustness findings, each on loopback with a bound on time:
# queries of 1000+ parameters, %00 in values and path segments, ambiguous
# body framing, the write rate charged before the token check, a token
# file others can read, a SIGHUP whose topology read blocks, a node renamed
# through SIGHUP.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed"


topo=$t_tmp/tree.ibnd
"$FABROUTE" gen kary-ntree k=4 n=2 -o "$topo"
ln -s "$topo" "$t_tmp/topo"
d_start h --topology "$t_tmp/topo" --holddown-ms 0 || { not_ok "fabrouted starts"; done_testing; }
d_wait_epoch 1

q=$(python3 -c 'print("&".join("p%d=1" % i for i in range(1000)))')
set -- $(raw "GET /api/health?$q HTTP/1.1\r\nHost: x\r\n\r\n")
is "1000 query parameters: answered 414" "$1" 414
[ "$(echo "$2 < 2" | bc)" = 1 ] && ok "1000 query parameters: answered at once ($2 s)" || not_ok "1000 query parameters: answered at once ($2 s)"
set -- $(raw "GET /api/nodes?type=switch%00x HTTP/1.1\r\nHost: x\r\n\r\n")
is "%00 in a query value: 400" "$1" 400
set -- $(raw "GET /api/nodes/leaf-00%00junk HTTP/1.1\r\nHost: x\r\n\r\n")
is "%00 in a path segment: 400" "$1" 400
api GET /api/nodes/leaf-00
is "the same node without %00: 200" "$code" 200
set -- $(raw "POST /api/reroute HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer $TOKEN\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\nhello")
is "two Content-Length headers: 400" "$1" 400
set -- $(raw "POST /api/reroute HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer $TOKEN\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
is "Content-Length with Transfer-Encoding: 400" "$1" 400

# 30 POSTs without the token on one connection (well past 10 a second, even
# on a loaded machine), then the administrator's
urls=""
for i in $(seq 1 30); do urls="$urls $D_URL/api/reroute"; done
# shellcheck disable=SC2086
n429=$(curl -s -X POST -H "Authorization: Bearer not-the-token" $urls | grep -o '"rate_limited"' | wc -l)
[ "$n429" -gt 0 ] && ok "POSTs without the token are rate limited ($n429 of 30)" || not_ok "POSTs without the token are rate limited"
api POST /api/reroute ''
is "the administrator's POST after them: 202" "$code" 202

# a node renamed in the topology, SIGHUP: the API uses the new name
d_wait_idle
sed 's/"leaf-00"/"leaf-renamed"/' "$topo" >"$topo.new" && mv "$topo.new" "$topo"
kill -HUP "$D_PID"
i=0
until api GET /api/nodes/leaf-renamed && [ "$code" = 200 ]; do
	i=$((i + 1)); [ $i -gt $((100 * T_SLOW)) ] && break; sleep 0.05
done
is "renamed by SIGHUP: the API knows the new name" "$code" 200
api GET /api/nodes/leaf-00
is "renamed by SIGHUP: the old name is gone" "$code" 404

# SIGHUP whose topology read blocks (a FIFO nobody writes), then SIGTERM
mkfifo "$t_tmp/fifo"
ln -sf "$t_tmp/fifo" "$t_tmp/topo"
kill -HUP "$D_PID"
sleep 0.3
api GET /api/health
is "topology read blocked: /api/health still answers" "$code" 200
kill -TERM "$D_PID"
i=0
while kill -0 "$D_PID" 2>/dev/null && [ $i -lt $((30 * T_SLOW)) ]; do i=$((i + 1)); sleep 0.1; done
kill -0 "$D_PID" 2>/dev/null && not_ok "topology read blocked: SIGTERM stops the daemon within $((3 * T_SLOW)) s" ||
	ok "topology read blocked: SIGTERM stops the daemon within $((3 * T_SLOW)) s"
d_stop
is "stopped cleanly" "$D_STATUS" 0

# a token file others can read: refused
chmod 644 "$t_tmp/token"
$FABROUTED_WRAPPER "$FABROUTED" --listen 127.0.0.1:0 --db "$t_tmp/t.db" --token-file "$t_tmp/token" \
	--topology "$topo" 2>"$t_tmp/t.log" &
pid=$!
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt $((50 * T_SLOW)) ]; do i=$((i + 1)); sleep 0.1; done
kill -9 $pid 2>/dev/null && not_ok "a world-readable token file: fabrouted refuses to start" ||
	{ wait $pid; is "a world-readable token file: fabrouted refuses to start (a configuration error: 3)" "$?" 3; }
like "a world-readable token file: the message says why" "$(cat "$t_tmp/t.log")" "readable or writable by group or others"
[ -e "$t_tmp/t.db" ] && not_ok "a world-readable token file: no database created" ||
	ok "a world-readable token file: no database created"
chmod 600 "$t_tmp/token"
done_testing
