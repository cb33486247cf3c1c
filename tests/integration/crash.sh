#!/bin/sh
# kill -9 in the middle of reroutes: at every restart the database passes
# PRAGMA integrity_check, every snapshot committed before the kill is still
# there, and the daemon serves a routing again.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip_all "the sqlite3 command is needed"

# big enough that a reroute (route, evaluate, store) takes a few hundred ms
topo=$t_tmp/tree.ibnd
"$FABROUTE" gen kary-ntree k=12 n=3 -o "$topo"
db=$t_tmp/c.db

d_start c --topology "$topo" --engine ftree --holddown-ms 0 --publish-policy any || { not_ok "fabrouted starts"; done_testing; }
d_wait_epoch 1
for delay in 0.05 0.15 0.3 0.45; do
	d_wait_idle
	api GET /api/snapshots
	before=$(jf '[.snapshots[].id] | join(",")')
	api POST /api/faults '{"action":"down","switch":"0x0002fab100000001"}'
	sleep "$delay"
	api GET /api/health
	diag "kill -9 after ${delay}s, reroute in progress: $(jf .reroute_in_progress)"
	d_stop KILL
	is "kill -9 after ${delay}s: the database is intact" "$(sqlite3 "$db" 'PRAGMA integrity_check;')" ok
	d_start c --topology "$topo" --engine ftree --holddown-ms 0 --publish-policy any
	d_wait_epoch 1
	api GET /api/snapshots
	after=$(jf '[.snapshots[].id] | join(",")')
	case ",$after," in
	*",$before,"*) ok "kill -9 after ${delay}s: every committed snapshot is there ($before)" ;;
	*) not_ok "kill -9 after ${delay}s: every committed snapshot is there"; diag "before $before, after $after" ;;
	esac
	api GET /api/connectivity
	is "kill -9 after ${delay}s: the restarted daemon serves a routing" "$code" 200
	api POST /api/faults '{"action":"up","switch":"0x0002fab100000001"}'
done
d_stop
is "stopped cleanly" "$D_STATUS" 0
done_testing
