#!/bin/sh
# Epoch numbers are never reused. In each round another process holds the
# database's write lock (as a backup or an sqlite3 shell would) while a
# fault is posted, so that whatever the daemon publishes meanwhile cannot
# be stored; the daemon is killed with -9 during the lock and restarted with
# the other engine. Every epoch seen through the API is recorded as
# "seq engine topology_hash": no number may ever come with two routings.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
command -v sqlite3 >/dev/null 2>&1 || skip_all "the sqlite3 command is needed"

db=$t_tmp/s.db
seen=$t_tmp/seen
: >"$seen"
record() { api GET /api/fabric && [ "$code" = 200 ] && echo "$(jf .epoch.seq) $(jf .epoch.engine) $(jf .topology_hash)" >>"$seen"; }
args="--topology gen:kary-ntree:k=4,n=2 --holddown-ms 0 --api-write-rate-limit 0"

engine=updn
# shellcheck disable=SC2086
d_start s $args --engine $engine || { not_ok "fabrouted starts"; done_testing; }
d_wait_epoch 1
record
published=0
for round in 1 2 3 4; do
	d_wait_idle
	api GET /api/fabric
	before=$(jf .epoch.seq)
	{ echo "BEGIN IMMEDIATE;"; sleep 2; echo "ROLLBACK;"; } | sqlite3 "$db" 2>>"$t_tmp/locker.err" &
	locker=$!
	j=0	# until the lock is held
	while sqlite3 "$db" "BEGIN IMMEDIATE; ROLLBACK;" >/dev/null 2>&1 && [ $j -lt 20 ]; do
		j=$((j + 1))
		sleep 0.05
	done
	curl -s -o /dev/null -m 10 -X POST -H "Authorization: Bearer $TOKEN" \
		--data-binary "{\"action\":\"down\",\"switch\":\"0x0002fab10000000$round\"}" "$D_URL/api/faults" &
	poster=$!
	j=0
	j=0
	while [ $j -lt 20 ]; do	# an epoch published while the store is locked
		api GET /api/fabric
		if [ "$(jf .epoch.seq)" -gt "$before" ] 2>/dev/null; then
			echo "$(jf .epoch.seq) $(jf .epoch.engine) $(jf .topology_hash)" >>"$seen"
			published=$((published + 1))
			break
		fi
		j=$((j + 1))
		sleep 0.05
	done
	diag "round $round: epoch $(jf .epoch.seq) (snapshot id $(jf .epoch.snapshot_id)) when killed"
	d_stop KILL
	wait "$locker" "$poster" 2>/dev/null
	[ $engine = updn ] && engine=minhop || engine=updn
	# shellcheck disable=SC2086
	d_start s $args --engine $engine || { not_ok "fabrouted restarts"; break; }
	d_wait_epoch 1
	d_wait_idle
	record
done
diag "locker: $(cat "$t_tmp/locker.err")"
diag "rounds where a new epoch was seen before the kill: $published of 4"
diag "epochs seen: $(sort -n -u "$seen" | tr '\n' ';')"
reused=$(sort -u "$seen" | awk '{ n[$1]++ } END { for (s in n) if (n[s] > 1) printf "%s ", s }')
is "no epoch number came with two routings" "$reused" ""
d_stop
is "stopped cleanly" "$D_STATUS" 0
done_testing
