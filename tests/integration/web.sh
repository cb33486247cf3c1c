#!/bin/sh
# The dashboard: fabrouted serves web/ at / (content types, ETag and 304,
# HEAD, no way out of the embedded files, off with dashboard = 0); and the
# page in headless Chromium (driven over the DevTools protocol by
# tests/integration/web_check.py), against daemons routing the 648-port fat
# tree and a 5488-CA 3-level fat tree (mport-ntree m=28 n=3), before and
# after faults taken down with `fabroute fault down`: the live epoch,
# engine and counts, every switch drawn (648) or pods and spine groups
# (5488) with a pod opened, a host found, the heat switched to all pairs,
# the subtree root named, faults drawn and listed, no script error. Prints
# the first render times (performance marks) and leaves screenshots in the
# build directory (web-*.png).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"

CHROMIUM=${CHROMIUM:-chromium}
command -v "$CHROMIUM" >/dev/null 2>&1 || skip_all "chromium is needed (scripts/setup.sh installs it)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed"
B=$top_builddir

# page OUT ACTION...: the dashboard at $D_URL in Chromium, what it shows after loading and after
# each action in $t_tmp/OUT.json (tests/integration/web_check.py)
page() {
	out=$t_tmp/$1.json
	shift
	timeout 180 python3 "$top_srcdir/tests/integration/web_check.py" --chromium "$CHROMIUM" \
		"$D_URL/" "$out" "$@" 2>>"$t_tmp/chromium.log" ||
		{ diag "web_check.py failed:"; sed 's/^/# /' "$t_tmp/chromium.log" | tail -20; }
	[ -s "$out" ] || echo '[]' >"$out"
}
# at STEP FILTER: a jq filter over what the page showed at step STEP (0: after loading)
at() { jq -r ".[$1] | $2" "$out" 2>/dev/null; }
no_errors() { is "$1: no script error" "$(at "$2" '.errors | length')" 0; }
fault() { "$FABROUTE" fault down "$@" --url "$D_URL" --token-file "$t_tmp/token" >/dev/null; }

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

# --- the page in a browser: 648 CAs, every switch drawn ---------------------
api GET /api/fabric
want_epoch=$(jf .epoch.seq) want_engine=$(jf .epoch.engine)
want_sw=$(jf .switches) want_ca=$(jf .cas) want_nodes=$(jf .nodes)
page ft648 "find:node-645" "trace:leaf-00,node-645"
diag "648 CAs: first render $(at 0 .marks.topology) ms, every panel $(at 0 .marks.ready) ms"
is "648: the live epoch" "$(at 0 '.text["epoch-seq"]')" "$want_epoch"
is "648: the live engine" "$(at 0 .text.engine)" "$want_engine"
is "648: switch count" "$(at 0 '.text["count-switches"]')" "$want_sw"
is "648: CA count" "$(at 0 '.text["count-cas"]')" "$want_ca"
is "648: node count" "$(at 0 '.text["count-nodes"]')" "$want_nodes"
is "648: readiness" "$(at 0 '.text["ready-badge"]')" READY
is "648: no role shown on a node without replication" "$(at 0 .role)" null
is "648: VLs in use, with their numbers" "$(at 0 '.text["vls-used"]')" "1 (VL 0)"
like "648: max link load, CA-to-CA" "$(at 0 '.text["max-load"]')" '^[0-9]+\.[0-9]{3}$'
like "648: and all pairs beside it" "$(at 0 '.text["max-load-sub"]')" '^CA-to-CA; all pairs: [0-9,]+ routes$'
is "648: every switch drawn" "$(at 0 .svg.sw)" "$want_sw"
is "648: no units (a small fabric)" "$(at 0 .svg.unit)" 0
like "648: links drawn" "$(at 0 .svg.ln)" '^[1-9][0-9]*$'
is "648: the breadcrumb says so" "$(at 0 '.text["topo-crumbs"]')" "every switch"
like "648: heat by CA-to-CA routes" "$(at 0 '.text["legend-range"]')" '^CA-to-CA: busiest link [0-9,]+ routes / 647 CAs'
like "648: the subtree root named" "$(at 0 .root)" "^Subtree root: leaf-00 \\(LID 1\\)"
is "648: the root ringed" "$(at 0 .svg.root)" 1
like "648: a route traced" "$(at 0 '.text["route-summary"]')" 'delivered'
like "648: VL verdict" "$(at 0 '.text["vl-verdict"]')" '^Deadlock-free'
like "648: events listed" "$(at 0 .events)" 'fabrouted [0-9.]+ started'
is "648: no fault" "$(at 0 '.text["faults-summary"]')" "No fault in force."
no_errors "648" 0
is "648: a host found, its switch marked" "$(at 1 .svg.found)" 1
is "648: the host drawn by its switch" "$(at 1 '.svg.hosts | join(",")')" "node-645 (port 16)"
like "648: where the host is" "$(at 1 '.text["topo-hover"]')" '^found node-645 \(0x[0-9a-f]{16}, LID [0-9]+\) on leaf-35 port 16$'
is "648: the route drawn" "$(at 2 .svg.route)" 1
no_errors "648, found and traced" 2

fault --link leaf-00:19
fault --switch spine-03
d_wait_epoch 3 || not_ok "epoch 3 is published"
d_wait_idle
api GET /api/fabric
page ft648f "shot:$B/web-648-faults.png" "show:0" "zoom:in" "drag:120,0" "zoom:fit"
is "648 after faults: the new epoch" "$(at 0 '.text["epoch-seq"]')" "$(jf .epoch.seq)"
is "648 after faults: one switch fewer" "$(at 0 '.text["count-switches"]')" "$(jf .switches)"
is "648 after faults: still every switch drawn, the downed one too" "$(at 0 .svg.sw)" "$want_sw"
is "648 after faults: the downed switch drawn as such" "$(at 0 .svg.sw_down)" 1
is "648 after faults: its 36 links and the downed link drawn as down" "$(at 0 .svg.ln_down)" 37
like "648 after faults: the caption counts them" "$(at 0 '.text["topo-caption"]')" \
	'faults: 1 switch\(es\) and 1 link\(s\) down, 37 link\(s\) out of service$'
is "648 after faults: both listed" "$(at 0 '[.faults[] | .[0] + " " + .[1]] | join("; ")')" \
	"switch spine-03 (level 2, 36 switch links, 0 CAs); link leaf-00:19 ↔ spine-00:1"
like "648 after faults: said plainly" "$(at 0 '.text["faults-summary"]')" \
	'^1 switch\(es\) and 1 link\(s\) down; epoch [0-9]+ routes around them: every pair delivered$'
like "648 after faults: the fault events" "$(at 0 .events)" 'switch spine-03 down'
no_errors "648 after faults" 0
is "648 after faults: 'show' marks the downed switch" "$(at 2 .svg.found)" 1
vb=$(at 2 .viewbox)
is "648: the whole picture at first" "${vb%% *} $(echo "$vb" | cut -d' ' -f3)" "0.0 1200.0"
is "648: zoomed in by 1.5 around the middle" "$(at 3 .viewbox | cut -d' ' -f1,3)" "200.0 800.0"
like "648: dragged 120 px to the right, the picture follows" "$(at 4 .viewbox | cut -d' ' -f1,3)" '^1[0-9]{2}\.[0-9] 800\.0$'
is "648: fit again" "$(at 5 .viewbox)" "$vb"
no_errors "648: show, zoom, drag" 5
like "screenshot saved as $B/web-648-faults.png" "$(head -c 8 "$B/web-648-faults.png" 2>/dev/null | od -An -c | tr -d ' ')" '^211PNG'
d_stop

# --- 5488 CAs: pods and spine groups, drill-down, search, heat ----------------
if d_start big --topology gen:mport-ntree:m=28,n=3 && d_wait_epoch 1; then
	ok "fabrouted routes 5488 CAs"
	api GET /api/topology
	is "5488: 28 pods" "$(jf .pods)" 28
	page big "open:pod 0" "fabric" "shot:$B/web-5488.png" "find:node-1234" "heat:all" \
		"shot:$B/web-5488-found.png:#topology-panel"
	diag "5488 CAs: first render $(at 0 .marks.topology) ms, every panel $(at 0 .marks.ready) ms"
	is "5488: pods and spine groups, no switch drawn one by one" "$(at 0 '[.svg.unit, .svg.sw] | join(" ")')" "42 0"
	is "5488: units named" "$(at 0 '[.svg.units[0], .svg.units[14], .svg.units[41]] | join(", ")')" \
		"spine group 0, pod 0, pod 27"
	is "5488: every bundle drawn" "$(at 0 .svg.ln)" "$((28 * 14))"
	like "5488: the caption" "$(at 0 '.text["topo-caption"]')" \
		'^tree, 980 switches in 28 pod units and 14 spine units, 10,976 switch-to-switch links$'
	like "5488: the subtree root named" "$(at 0 .root)" '^Subtree root: leaf-000 \(LID 1\)'
	is "5488: its pod ringed" "$(at 0 .svg.root)" 1
	no_errors "5488" 0
	is "5488: pod 0 opened" "$(at 1 '.text["topo-crumbs"]')" "fabric›pod 0"
	is "5488: its 28 switches drawn" "$(at 1 .svg.sw)" 28
	is "5488: with the 14 spine groups it links to" "$(at 1 .svg.unit)" 14
	is "5488: back to the fabric" "$(at 2 .svg.unit)" 42
	is "5488: a host found in its pod" "$(at 4 '.text["topo-crumbs"]')" "fabric›pod 6"
	is "5488: the host drawn by its leaf" "$(at 4 '.svg.hosts | join(",")')" "node-1234 (port 3)"
	like "5488: heat by CA-to-CA routes, 1 = a host's rate" "$(at 4 '.text["legend-range"]')" \
		'^CA-to-CA: busiest link 5,474 routes / 5,487 CAs = 1\.00$'
	like "5488: heat by all pairs" "$(at 5 '.text["legend-range"]')" \
		'^all pairs: busiest link 35,292 routes / 6,467 endpoints = 5\.46$'
	no_errors "5488, opened, found, heat" 5

	fault --link leaf-003:15
	d_wait_epoch 2 || not_ok "epoch 2 is published"
	d_wait_idle
	page bigf "open:pod 0" "shot:$B/web-5488-pod0-fault.png:#topology-panel"
	diag "5488 CAs with a fault: first render $(at 0 .marks.topology) ms"
	is "5488 after a fault: the pod holding it marked" "$(at 0 .svg.unit_hurt)" 1
	is "5488 after a fault: listed" "$(at 0 '.faults[0][1]')" "leaf-003:15 ↔ l2-000:4"
	is "5488 after a fault: drawn in its pod" "$(at 1 .svg.ln_down)" 1
	no_errors "5488 after a fault" 1
	d_stop
else
	not_ok "fabrouted routes 5488 CAs"
fi

# --- with a read token, given as #token= in the page's address -----------------------
head -c 30 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$t_tmp/rtoken"
chmod 600 "$t_tmp/rtoken"
if d_start rtok --topology gen:kary-ntree:k=2,n=2 --read-token-file "$t_tmp/rtoken"; then
	i=0
	until [ "$(curl -s -H "Authorization: Bearer $(cat "$t_tmp/rtoken")" "$D_URL/api/fabric" |
		jq -r '.epoch.seq // 0')" -ge 1 ] || [ $i -gt 100 ]; do i=$((i + 1)); sleep 0.1; done
	out=$t_tmp/rtok.json
	timeout 180 python3 "$top_srcdir/tests/integration/web_check.py" --chromium "$CHROMIUM" \
		"$D_URL/#token=$(cat "$t_tmp/rtoken")" "$out" 2>>"$t_tmp/chromium.log" || echo '[]' >"$out"
	is "read token in the address: the page reads the fabric" "$(at 0 '.text["count-switches"]')" 4
	d_stop
else
	not_ok "fabrouted starts with a read token"
fi

# --- dashboard = 0 ------------------------------------------------------------------
d_start nodash --topology gen:kary-ntree:k=2,n=2 --dashboard 0 || not_ok "fabrouted starts without dashboard"
head_of /
is "dashboard = 0: / is 404" "$(status)" 404
api GET /api/health
is "dashboard = 0: the API still answers" "$code" 200
d_stop
done_testing
