#!/bin/sh
# The dashboard: fabrouted serves web/ at / (content types, ETag and 304,
# HEAD, no way out of the embedded files, off with dashboard = 0), and the
# page, loaded in headless Chromium against a daemon routing the 648-port
# fat tree, shows the live engine, epoch and node counts, before and after
# a fault. Leaves a screenshot in the build directory (web-dashboard.png).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"

CHROMIUM=${CHROMIUM:-chromium}
command -v "$CHROMIUM" >/dev/null 2>&1 || skip_all "chromium is needed (scripts/setup.sh installs it)"

# browser ARGS... URL: headless Chromium with its own profile, bounded in time.
browser() {
	prof=$(mktemp -d "$t_tmp/chromium.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --disable-extensions \
		--user-data-dir="$prof" --virtual-time-budget=10000 "$@" 2>>"$t_tmp/chromium.log"
}

# dom_text ID: the text of the element with id ID in $t_tmp/dom.html.
dom_text() {
	sed -n "s/.*id=\"$1\"[^>]*>\([^<]*\)<.*/\1/p" "$t_tmp/dom.html" | head -1
}

d_start web --topology gen:ft648 || { not_ok "fabrouted starts"; done_testing; }
ok "fabrouted starts on port $D_PORT"
d_wait_epoch 1 || not_ok "the first epoch is published"

# --- serving --------------------------------------------------------------------
# head_of PATH [CURL ARGS...]: the status line and headers in $t_tmp/h, the body in $t_tmp/b
head_of() {
	p=$1
	shift
	: >"$t_tmp/b"	# curl leaves the file alone when the body is empty
	curl -sg --path-as-is -D "$t_tmp/h" -o "$t_tmp/b" "$@" "$D_URL$p" >/dev/null
	tr -d '\r' <"$t_tmp/h" >"$t_tmp/h2"
}
hdr() { sed -n "s/^$1: //Ip" "$t_tmp/h2" | head -1; }
status() { sed -n '1s/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' "$t_tmp/h2"; }

head_of /
is "/: 200" "$(status)" 200
is "/: text/html" "$(hdr Content-Type)" "text/html; charset=utf-8"
like "/: the dashboard page" "$(cat "$t_tmp/b")" '<title>fabroute</title>'
etag=$(hdr ETag)
like "/: a strong ETag" "$etag" '^"[0-9a-f]{8}-[0-9]+"$'
is "/: revalidated each time (no-cache)" "$(hdr Cache-Control)" no-cache
head_of / -H "If-None-Match: $etag"
is "/ with If-None-Match: 304" "$(status)" 304
is "304: no body" "$(wc -c <"$t_tmp/b" | tr -d ' ')" 0
is "304: the ETag again" "$(hdr ETag)" "$etag"
head_of /index.html
is "/index.html: the same file" "$(hdr ETag)" "$etag"
head_of / -I
is "HEAD /: 200" "$(status)" 200
is "HEAD /: Content-Length of the page" "$(hdr Content-Length)" "$(curl -s "$D_URL/" | wc -c | tr -d ' ')"
head_of /style.css
is "style.css: text/css" "$(hdr Content-Type)" "text/css; charset=utf-8"
head_of /app.js
is "app.js: text/javascript" "$(hdr Content-Type)" "text/javascript; charset=utf-8"
head_of /topo.js
is "topo.js: 200" "$(status)" 200
for p in /../etc/passwd /%2e%2e/etc/passwd /..%2fetc%2fpasswd //etc/passwd /index.html/.. \
	/./index.html /web/index.html /INDEX.HTML /openapi.json; do
	head_of "$p"
	if [ "$(status)" = 404 ] && [ "$(hdr Content-Type)" = application/json ] &&
	   ! grep -q root: "$t_tmp/b"; then
		ok "$p: 404 JSON"
	else
		not_ok "$p: 404 JSON"
		diag "status $(status), $(head -c 200 "$t_tmp/b")"
	fi
done
head_of '/index.html%00.js'
is "/index.html%00.js: 400, not a file" "$(status)" 400
head_of / -X POST
is "POST /: 404" "$(status)" 404

# --- the page in a browser ---------------------------------------------------------
api GET /api/fabric
want_epoch=$(jf .epoch.seq) want_engine=$(jf .epoch.engine)
want_sw=$(jf .switches) want_ca=$(jf .cas) want_nodes=$(jf .nodes)
browser --dump-dom "$D_URL/" >"$t_tmp/dom.html"
like "the browser renders the page" "$(head -c 300 "$t_tmp/dom.html")" '<html'
is "DOM: the live epoch" "$(dom_text epoch-seq)" "$want_epoch"
is "DOM: the live engine" "$(dom_text engine)" "$want_engine"
is "DOM: switch count" "$(dom_text count-switches)" "$want_sw"
is "DOM: CA count" "$(dom_text count-cas)" "$want_ca"
is "DOM: node count" "$(dom_text count-nodes)" "$want_nodes"
is "DOM: readiness" "$(dom_text ready-badge)" READY
is "DOM: the topology is drawn, one rectangle per switch" \
	"$(grep -o 'class="sw"' "$t_tmp/dom.html" | wc -l | tr -d ' ')" "$want_sw"
like "DOM: links drawn" "$(grep -o 'class="ln"' "$t_tmp/dom.html" | wc -l | tr -d ' ')" '^[1-9][0-9]*$'
like "DOM: a route traced" "$(dom_text route-summary)" 'delivered'
like "DOM: VL verdict" "$(dom_text vl-verdict)" '^Deadlock-free'
like "DOM: events listed" "$(cat "$t_tmp/dom.html")" 'fabrouted [0-9.]+ started'
like "DOM: no OpenSM source, said plainly" "$(cat "$t_tmp/dom.html")" 'no OpenSM source'

api POST /api/faults '{"action": "down", "switch": "spine-00"}'
is "fault: 202" "$code" 202
d_wait_epoch 2 || not_ok "epoch 2 is published"
d_wait_idle
api GET /api/fabric
browser --dump-dom "$D_URL/" >"$t_tmp/dom.html"
is "DOM after a fault: the new epoch" "$(dom_text epoch-seq)" "$(jf .epoch.seq)"
is "DOM after a fault: one switch fewer" "$(dom_text count-switches)" "$(jf .switches)"
like "DOM after a fault: the fault event" "$(cat "$t_tmp/dom.html")" 'switch spine-00 down'

shot=$top_builddir/web-dashboard.png
rm -f "$shot"
browser --hide-scrollbars --window-size=1440,1700 --screenshot="$shot" "$D_URL/" >/dev/null
like "screenshot saved as $shot" "$(head -c 8 "$shot" 2>/dev/null | od -An -c | tr -d ' ')" '^211PNG'
d_stop

# --- with a read token: given as #token= in the address -------------------------------
head -c 30 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$t_tmp/rtoken"
chmod 600 "$t_tmp/rtoken"
d_start rtok --topology gen:kary-ntree:k=2,n=2 --read-token-file "$t_tmp/rtoken" ||
	not_ok "fabrouted starts with a read token"
i=0
until [ "$(curl -s -H "Authorization: Bearer $(cat "$t_tmp/rtoken")" "$D_URL/api/fabric" | jq -r '.epoch.seq // 0')" -ge 1 ] ||
	[ $i -gt 100 ]; do i=$((i + 1)); sleep 0.1; done
browser --dump-dom "$D_URL/#token=$(cat "$t_tmp/rtoken")" >"$t_tmp/dom.html"
is "read token in the address: the page reads the fabric" "$(dom_text count-switches)" 4
d_stop

# --- dashboard = 0 ------------------------------------------------------------------
d_start nodash --topology gen:kary-ntree:k=2,n=2 --dashboard 0 || not_ok "fabrouted starts without dashboard"
head_of /
is "dashboard = 0: / is 404" "$(status)" 404
api GET /api/health
is "dashboard = 0: the API still answers" "$code" 200
d_stop
done_testing
