#!/bin/sh
# Engine work bounded: SIGTERM while pathsel routes 1024 machines (about
# 30 s) stops the daemon within a second; with engine_timeout_s 1, pathsel
# is stopped after its second and the chain's next engine routes; with
# engine_memory_mb 1, pathsel does not even start.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"

"$FABROUTE" gen random switches=64 machines=1024 degree=8 --seed 1 -o "$t_tmp/r1024.ibnd"
"$FABROUTE" gen random switches=32 machines=256 degree=8 --seed 1 -o "$t_tmp/r256.ibnd"

d_start s --topology "$t_tmp/r1024.ibnd" --engine pathsel ||
	{ not_ok "fabrouted starts unbounded"; done_testing; }
i=0
until grep -q "rerouting (startup)" "$D_LOG.new" || [ $i -gt 100 ]; do i=$((i + 1)); sleep 0.05; done
sleep 1
api GET /api/health
is "pathsel is running" "$(jf .reroute_in_progress)" true
t0=$(date +%s%N)
kill -TERM "$D_PID"
i=0
while kill -0 "$D_PID" 2>/dev/null && [ $i -lt $((30 * T_SLOW)) ]; do i=$((i + 1)); sleep 0.1; done
if kill -0 "$D_PID" 2>/dev/null; then
	kill -9 "$D_PID"
	not_ok "SIGTERM while pathsel runs: stopped within a second"
else
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$ms" -le $((1000 * T_SLOW)) ] && ok "SIGTERM while pathsel runs: stopped within a second ($ms ms)" ||
		not_ok "SIGTERM while pathsel runs: stopped within a second ($ms ms)"
fi
d_stop
is "and cleanly" "$D_STATUS" 0

d_start t --topology "$t_tmp/r1024.ibnd" --engine pathsel,updn --engine-timeout-s 1 ||
	{ not_ok "fabrouted starts"; done_testing; }
t0=$(date +%s)
d_wait_epoch 1 && ok "a routing is published" || not_ok "a routing is published"
[ $(($(date +%s) - t0)) -le $((10 * T_SLOW)) ] && ok "within seconds, not the half minute pathsel takes" ||
	not_ok "within seconds, not the half minute pathsel takes"
api GET /api/fabric
is "the chain's next engine routed" "$(jf .epoch.engine)" updn
like "the epoch's engine log says why pathsel did not" "$(jf .epoch.engine_log)" \
	"pathsel: not applicable: stopped after its time budget of 1.0 s"
d_stop
is "stopped cleanly" "$D_STATUS" 0

d_start m --topology "$t_tmp/r256.ibnd" --engine pathsel,updn --engine-memory-mb 1 ||
	{ not_ok "fabrouted starts with 1 MB"; done_testing; }
d_wait_epoch 1
api GET /api/fabric
is "1 MB: the chain's next engine routed" "$(jf .epoch.engine)" updn
like "1 MB: pathsel says what it would need" "$(jf .epoch.engine_log)" \
	"pathsel: not applicable: path selection for 256 machines needs about [0-9]+ MiB, more than the budget of 1 MiB"
d_stop

done_testing
