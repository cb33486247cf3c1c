#!/bin/sh
# Who may talk to fabrouted over the plugin socket (source opensm): only
# plugin_user (OpenSM's user) and fabrouted's own; anyone else who can open
# the socket (its group) is closed at once, counted, logged once, and the
# made-up subnet it sends is never routed. A plugin's leftover connections
# (16 that said hello and went idle) do not keep a new plugin out: one
# connection per role, the newest wins. A frame announced at 256 MiB, or a
# subnet above 64 MiB, closes the connection at its header: the daemon's
# memory does not grow with it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed to play the plugin"
play() { timeout 60 python3 "$top_srcdir/tests/integration/osm_source.py" "$sock" "$1"; }
rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$D_PID/status"; }

sock=$t_tmp/osm.sock
d_start o --source opensm --socket "$sock" --engine minhop --readback 0 ||
	{ not_ok "fabrouted starts"; done_testing; }

# other: osm_source.py's route check as user nobody (the socket and the script made reachable to it)
other() {
	timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$t_tmp/play.py" "$sock" route 2>&1
}
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && [ -x /usr/bin/python3 ]; then
	cp "$top_srcdir/tests/integration/osm_source.py" "$t_tmp/play.py"
	chmod 644 "$t_tmp/play.py"
	chmod 711 "$t_tmp"
	chmod 666 "$sock"	# as if the other user were in the socket's group
	out=$(other)
	like "another user: closed at once, no hello" "$out" "no hello|Connection reset|Broken pipe"
	api GET /api/fabric
	is "another user: its subnet is not routed (no epoch)" "$(jf '.epoch.seq // 0')" 0
	other >/dev/null
	is "another user: the refusal is logged once for two attempts" \
		"$(grep -c "refused: only plugin_user" "$D_LOG.new")" 1
	api GET /metrics
	like "another user: counted in /metrics" "$body" "fabroute_osm_connections_refused_total 2"
	chmod 660 "$sock"
	chmod 700 "$t_tmp"
else
	diag "not root or no setpriv: the other-user checks are skipped"
fi
is "fabrouted's own user routes" "$(play route)" ok
is "16 idle connections that said hello do not keep a plugin out" "$(play leftovers)" ok
like "the newest connection of a role replaces the one before" "$(cat "$D_LOG.new")" \
	"a new control connection replaces the one before it"
before=$(rss_kb)
is "a frame of 256 MiB and a subnet above 64 MiB: closed at their header" "$(play big_frames)" ok
after=$(rss_kb)
[ -n "$before" ] && [ -n "$after" ] && [ $((after - before)) -lt 20480 ] && ok "the daemon's memory did not grow with them ($before -> $after kB)" ||
	not_ok "the daemon's memory did not grow with them ($before -> $after kB)"
api GET /api/health
is "the daemon is unharmed" "$code" 200
d_stop
is "stopped cleanly" "$D_STATUS" 0
done_testing
