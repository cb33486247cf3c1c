#!/bin/sh
# Epoch numbers are never reused. In each round another process takes the
# database's write lock (as a backup or an sqlite3 shell would) and holds it
# while a fault is posted: the daemon can neither record the fault nor
# allocate the next epoch number until the lock is let go. Then the new
# epoch is awaited through the API, the daemon is killed with -9 at once
# (its snapshot stored or not) and restarted with the other engine. Every
# epoch seen through the API is recorded as "seq engine topology_hash": no
# number may ever come with two routings. A round counts when its fault was
# posted under the lock, nothing was published while the lock was held, the
# fault was accepted and the new epoch was seen before the kill: every round
# must count.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
need sqlite3

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
exercised=0
for round in 1 2 3 4; do
	d_wait_idle
	api GET /api/fabric
	before=$(jf .epoch.seq)
	rm -f "$t_tmp/release"
	{
		echo ".timeout 5000"	# a write of the daemon's under way: wait for it, then take the lock
		echo "BEGIN IMMEDIATE;"
		i=0	# until told to let go (at most 30 s)
		while [ ! -e "$t_tmp/release" ] && [ $i -lt 600 ]; do
			i=$((i + 1))
			sleep 0.05
		done
		echo "ROLLBACK;"
	} | sqlite3 "$db" 2>>"$t_tmp/locker.err" &
	locker=$!
	locked=no
	j=0	# until the lock is held: a second writer is refused at once
	while [ $j -lt $((100 * T_SLOW)) ]; do
		if ! sqlite3 "$db" "BEGIN IMMEDIATE; ROLLBACK;" >/dev/null 2>&1; then
			locked=yes
			break
		fi
		j=$((j + 1))
		sleep 0.05
	done
	curl -s -o /dev/null -w '%{http_code}' -m 30 -X POST -H "Authorization: Bearer $TOKEN" \
		--data-binary "{\"action\":\"down\",\"switch\":\"0x0002fab10000000$round\"}" \
		"$D_URL/api/faults" >"$t_tmp/post.code" &
	poster=$!
	sleep 1	# the fault waits for the lock (the store's busy timeout is 5 s)
	api GET /api/fabric
	under_lock=$(jf .epoch.seq)
	touch "$t_tmp/release"
	wait "$locker" "$poster" 2>/dev/null
	posted=$(cat "$t_tmp/post.code")
	seen_new=no
	if d_wait_epoch $((before + 1)); then
		echo "$(jf .epoch.seq) $(jf .epoch.engine) $(jf .topology_hash)" >>"$seen"
		seen_new=yes
	fi
	diag "round $round: lock held: $locked, epoch under the lock: $under_lock (before: $before)," \
		"fault: HTTP $posted, epoch $(jf .epoch.seq) (snapshot id $(jf .epoch.snapshot_id)) when killed"
	[ $locked = yes ] && [ "$under_lock" = "$before" ] && [ "$posted" = 202 ] &&
		[ $seen_new = yes ] && exercised=$((exercised + 1))
	d_stop KILL
	[ $engine = updn ] && engine=minhop || engine=updn
	# shellcheck disable=SC2086
	d_start s $args --engine $engine || { not_ok "fabrouted restarts"; break; }
	d_wait_epoch 1
	d_wait_idle
	record
done
diag "locker: $(cat "$t_tmp/locker.err")"
is "every round: the fault waited for the lock, its epoch was seen before the kill" "$exercised" 4
diag "epochs seen: $(sort -n -u "$seen" | tr '\n' ';')"
reused=$(sort -u "$seen" | awk '{ n[$1]++ } END { for (s in n) if (n[s] > 1) printf "%s ", s }')
is "no epoch number came with two routings" "$reused" ""
d_stop
is "stopped cleanly" "$D_STATUS" 0
done_testing
