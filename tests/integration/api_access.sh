#!/bin/sh
# Who may read, over what, in what form: the read token (health, readiness
# and the dashboard's files stay open; the administrator's token reads too;
# "bearer" in any case), gzip where the client takes it (/metrics, topology,
# links) with an ETag of its own, 304 only where the answer would be 200,
# exact paths, a chunked body refused at once (a chunk size of 2^64 - 1
# included), HTTPS with tls_cert and tls_key, a warning when listening
# beyond loopback, the database readable by the daemon alone.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed"
need openssl

head -c 30 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$t_tmp/rtoken"
chmod 600 "$t_tmp/rtoken"
RTOKEN=$(cat "$t_tmp/rtoken")
# get PATH [HEADER...]: GET with headers; $code, $body, the headers in $t_tmp/head
get() {
	p=$1
	shift
	set -- "$@" -H "X-Nothing: 0"
	code=$(curl -sg -D "$t_tmp/head" -o "$t_tmp/body" -w '%{http_code}' "$@" "$D_URL$p")
	body=$(cat "$t_tmp/body")
}
header() { tr -d '\r' <"$t_tmp/head" | sed -n "s/^$1: //Ip" | head -1; }

d_start r --topology gen:kary-ntree:k=4,n=2 --read-token-file "$t_tmp/rtoken" ||
	{ not_ok "fabrouted starts with a read token"; done_testing; }
d_wait() {	# the first epoch, asked with the read token
	i=0
	until get /api/fabric -H "Authorization: Bearer $RTOKEN" && [ "$(jf '.epoch.seq // 0')" -ge 1 ] 2>/dev/null; do
		i=$((i + 1)); [ $i -gt $((300 * T_SLOW)) ] && return 1; sleep 0.05
	done
}
d_wait
get /api/fabric
is "read token: a read without it is 401" "$code" 401
like "read token: the answer says a token is needed" "$body" "read token"
get /api/fabric -H "Authorization: Bearer $RTOKEN"
is "read token: with it, 200" "$code" 200
get /api/fabric -H "Authorization: bearer   $RTOKEN"
is "read token: 'bearer' in lower case, blanks after it: 200" "$code" 200
get /api/fabric -H "Authorization: Bearer $TOKEN"
is "read token: the administrator's token reads too" "$code" 200
get /api/fabric -H "Authorization: Bearer not-the-token-at-all"
is "read token: a wrong one is 401" "$code" 401
get /metrics
is "read token: /metrics needs it" "$code" 401
for p in /api/health /api/ready /; do
	get $p
	is "read token: $p stays open" "$code" 200
done
api POST /api/reroute ""
is "the administrator's POST still works" "$code" 202
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $RTOKEN" "$D_URL/api/reroute")
is "the read token does not write" "$code" 401

# gzip
A="Authorization: Bearer $RTOKEN"
get /metrics -H "$A" -H "Accept-Encoding: gzip"
is "/metrics with Accept-Encoding: gzip: compressed" "$(header content-encoding)" gzip
like "/metrics compressed: Prometheus text inside" "$(gzip -dc "$t_tmp/body")" "^fabroute_routed 1$"
get /metrics -H "$A" -H "Accept-Encoding: gzip;q=0"
is "/metrics with gzip;q=0: not compressed" "$(header content-encoding)" ""
get /api/topology -H "$A"
plain_etag=$(header etag)
is "/api/topology without Accept-Encoding: not compressed" "$(header content-encoding)" ""
get /api/topology -H "$A" -H "Accept-Encoding: deflate, gzip"
gz_etag=$(header etag)
is "/api/topology compressed" "$(header content-encoding)" gzip
is "/api/topology compressed: Vary: Accept-Encoding" "$(header vary)" Accept-Encoding
is "/api/topology compressed: the same JSON" "$(gzip -dc "$t_tmp/body" | jq -c .switches)" \
	"$(curl -s -H "$A" "$D_URL/api/topology" | jq -c .switches)"
[ -n "$gz_etag" ] && [ "$gz_etag" != "$plain_etag" ] && ok "the compressed answer has an ETag of its own" ||
	not_ok "the compressed answer has an ETag of its own ($plain_etag, $gz_etag)"
get /api/topology -H "$A" -H "Accept-Encoding: gzip" -H "If-None-Match: $gz_etag"
is "If-None-Match with the compressed ETag: 304" "$code" 304
get /api/links -H "$A" -H "Accept-Encoding: gzip"
is "/api/links compressed" "$(header content-encoding)" gzip

# 304 only for what would be 200
get /api/nodes/leaf-00 -H "$A"
etag=$(header etag)
get /api/nodes/leaf-00 -H "$A" -H "If-None-Match: $etag"
is "a node with its ETag: 304" "$code" 304
get /api/nodes/nosuch -H "$A" -H "If-None-Match: $etag"
is "an unknown node with the epoch's ETag: 404, not 304" "$code" 404
get /api/nodes/nosuch -H "$A" -H "If-None-Match: *"
is "an unknown node with If-None-Match: *: 404" "$code" 404
get "/api/route?src=leaf-00" -H "$A" -H "If-None-Match: *"
is "a route without dst, If-None-Match: *: 400" "$code" 400

# paths, bodies
get /api/health/
is "/api/health/ (a trailing slash): 404" "$code" 404
get //api//health
is "//api//health: 404" "$code" 404
set -- $(raw "POST /api/reroute HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer $TOKEN\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n")
is "a chunk size of 2^64 - 1: 411 at once" "$1" 411
[ "$(echo "$2 < 2" | bc)" = 1 ] && ok "at once ($2 s)" || not_ok "at once ($2 s)"
set -- $(raw "POST /api/reroute HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer $TOKEN\r\nContent-Length: 99999999\r\n\r\n")
is "a Content-Length above api_max_body: 413 before the body" "$1" 413
is "the database is the daemon's alone (mode 600)" "$(stat -c %a "$t_tmp/r.db")" 600
d_stop
is "stopped cleanly" "$D_STATUS" 0

# HTTPS
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$t_tmp/key.pem" -out "$t_tmp/cert.pem" 2>/dev/null
chmod 600 "$t_tmp/key.pem"
d_start tls --topology gen:kary-ntree:k=2,n=2 --tls-cert "$t_tmp/cert.pem" --tls-key "$t_tmp/key.pem" ||
	{ not_ok "fabrouted starts with TLS"; done_testing; }
like "TLS: the log says https" "$D_URL" "^https://"
is "TLS: /api/health over HTTPS" "$(curl -s --cacert "$t_tmp/cert.pem" -o /dev/null -w '%{http_code}' "$D_URL/api/health")" 200
is "TLS: the administrator's POST over HTTPS" "$(curl -s --cacert "$t_tmp/cert.pem" -o /dev/null -w '%{http_code}' \
	-X POST -H "Authorization: Bearer $TOKEN" "$D_URL/api/reroute")" 202
is "TLS: plain HTTP gets no answer" "$(curl -s --max-time 3 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$D_PORT/api/health")" 000
d_stop
is "TLS: stopped cleanly" "$D_STATUS" 0
runs "tls_cert without tls_key: refused" 3 "$FABROUTED" -n --tls-cert "$t_tmp/cert.pem"
like "tls_cert without tls_key: says so" "$err" "tls_key: set tls_cert and tls_key together"

# beyond loopback
"$FABROUTED" --listen 0.0.0.0:0 --db "$t_tmp/w.db" --topology gen:kary-ntree:k=2,n=2 >/dev/null 2>"$t_tmp/w.log" &
pid=$!
i=0
until grep -q "API listening" "$t_tmp/w.log" || [ $i -gt $((100 * T_SLOW)) ]; do i=$((i + 1)); sleep 0.1; done
kill -TERM $pid
wait $pid
like "listening on 0.0.0.0: a warning names what is open" "$(cat "$t_tmp/w.log")" \
	"reachable from other hosts: plain HTTP.* reads need no token"
done_testing
