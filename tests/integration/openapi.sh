#!/bin/sh
# doc/openapi.json against the real daemon: served as it is, well formed,
# the same operations as the route table, and every documented answer
# (GET, HEAD, errors, POSTs) valid against its schema
# (tests/integration/openapi_check.py). Also: GET /api, the ETag from the
# epoch and 304, JSON for paths and methods the API does not know.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed"

d_start openapi --topology gen:kary-ntree:k=2,n=2 || { not_ok "fabrouted starts"; done_testing; }
ok "fabrouted starts on port $D_PORT"
d_wait_epoch 1 || not_ok "the first epoch is published"

api GET /api
is "GET /api: 200" "$code" 200
is "GET /api lists itself" "$(jf '[.endpoints[] | select(.path == "/api")] | length')" 1
is "GET /api: POST /api/reroute needs the token" \
	"$(jf '.endpoints[] | select(.path == "/api/reroute") | .auth')" true
api GET /api/nope
is "unknown path: 404" "$code" 404
like "unknown path: the message points at GET /api" "$(jf .error.message)" 'GET /api lists them'

# ETag from the epoch
etag=$(curl -s -D - -o /dev/null "$D_URL/api/connectivity" | tr -d '\r' | sed -n 's/^ETag: //Ip')
like "connectivity: an ETag naming the epoch" "$etag" '^"e1-[0-9]+"$'
code=$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$D_URL/api/connectivity")
is "connectivity with If-None-Match: 304" "$code" 304
code=$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: W/$etag" "$D_URL/api/route?src=leaf-00&dst=node-00")
is "route with the same epoch's ETag (weak): 304" "$code" 304
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'If-None-Match: "e0-1"' "$D_URL/api/connectivity")
is "another ETag: 200" "$code" 200
hdrs=$(curl -s -D - -o /dev/null "$D_URL/api/health" | tr -d '\r')
like "health: no ETag (not from the epoch alone)" "$(printf '%s\n' "$hdrs" | grep -ci '^etag:' || true)" '^0$'
like "health: not kept (no-store)" "$hdrs" 'Cache-Control: no-store'
hdrs=$(curl -s -D - -o /dev/null "$D_URL/api/route?src=nobody&dst=leaf-00" | tr -d '\r')
like "an error carries no ETag" "$(printf '%s\n' "$hdrs" | grep -ci '^etag:' || true)" '^0$'

# HEAD
hdrs=$(curl -s -I "$D_URL/api/fabric" | tr -d '\r')
like "HEAD /api/fabric: 200" "$hdrs" '^HTTP/1.1 200'
like "HEAD /api/fabric: JSON" "$hdrs" 'Content-Type: application/json'
hdrs=$(curl -s -I "$D_URL/metrics" | tr -d '\r')
like "HEAD /metrics: 200" "$hdrs" '^HTTP/1.1 200'
hdrs=$(curl -s -D - -o /dev/null -X DELETE "$D_URL/api/fabric" | tr -d '\r')
like "DELETE /api/fabric: 405" "$hdrs" '^HTTP/1.1 405'
like "405: Allow lists GET and HEAD" "$hdrs" 'Allow: GET, HEAD'

# the document against the real answers
python3 "$top_srcdir/tests/integration/openapi_check.py" "$D_URL" "$top_srcdir/doc/openapi.json" "$TOKEN" \
	>"$t_tmp/check.out" 2>&1
while IFS= read -r line; do
	case $line in
	PASS\ *) ok "openapi: ${line#PASS }" ;;
	FAIL\ *) not_ok "openapi: ${line#FAIL }" ;;
	*) not_ok "openapi_check.py: $line" ;;
	esac
done <"$t_tmp/check.out"
d_stop
is "fabrouted stops cleanly" "$D_STATUS" 0
done_testing
