# Shared by the integration tests: start and stop fabrouted, call its API.
# Source after tests/lib.sh. $FABROUTED is the daemon; $FABROUTED_WRAPPER
# (e.g. valgrind) runs it when set. Timeouts grow with $T_SLOW (valgrind: 20).

: "${FABROUTED:=$top_builddir/fabrouted}"
: "${FABROUTED_WRAPPER:=}"
: "${T_SLOW:=1}"

need curl jq

head -c 30 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$t_tmp/token"
chmod 600 "$t_tmp/token"
TOKEN=$(cat "$t_tmp/token")
t_daemon_pids=""
d_cleanup() {
	for p in $t_daemon_pids; do kill -9 "$p" 2>/dev/null; done
	t_cleanup
}
trap d_cleanup EXIT INT TERM

# d_start NAME [ARGS...]: start fabrouted with database $t_tmp/NAME.db and
# log $t_tmp/NAME.log; wait for the API. Sets D_PID, D_PORT, D_URL (http:
# or https:), D_LOG.
d_start() {
	d_name=$1
	shift
	D_LOG=$t_tmp/$d_name.log
	: >"$D_LOG.new"
	# shellcheck disable=SC2086
	$FABROUTED_WRAPPER "$FABROUTED" --listen 127.0.0.1:0 --db "$t_tmp/$d_name.db" \
		--token-file "$t_tmp/token" "$@" >>"$D_LOG.new" 2>&1 &
	D_PID=$!
	t_daemon_pids="$t_daemon_pids $D_PID"
	i=0
	while ! grep -q "API listening on" "$D_LOG.new"; do
		i=$((i + 1))
		if [ $i -gt $((300 * T_SLOW)) ] || ! kill -0 "$D_PID" 2>/dev/null; then
			diag "fabrouted did not start:"; sed 's/^/# /' "$D_LOG.new"
			cat "$D_LOG.new" >>"$D_LOG"
			return 1
		fi
		sleep 0.1
	done
	D_PORT=$(sed -n 's/.*API listening on https*:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$D_LOG.new")
	D_URL=$(sed -n 's/.*API listening on \(https*\):.*/\1/p' "$D_LOG.new")://127.0.0.1:$D_PORT
}

# d_stop [SIGNAL]: stop the daemon, wait (30 s, then SIGKILL and a diagnostic);
# the exit status in $D_STATUS.
d_stop() {
	kill -"${1:-TERM}" "$D_PID" 2>/dev/null
	i=0
	while kill -0 "$D_PID" 2>/dev/null && [ $i -lt $((300 * T_SLOW)) ]; do i=$((i + 1)); sleep 0.1; done
	kill -0 "$D_PID" 2>/dev/null && { diag "fabrouted $D_PID did not stop: killed"; kill -9 "$D_PID"; }
	wait "$D_PID" 2>/dev/null && D_STATUS=0 || D_STATUS=$?
	cat "$D_LOG.new" >>"$D_LOG"
}

# api METHOD PATH [BODY [TOKEN]]: sets $code and $body (curl -g: no globbing).
api() {
	if [ "$1" = POST ]; then
		code=$(curl -sg -m $((30 * T_SLOW)) -o "$t_tmp/body" -w '%{http_code}' -X POST \
			-H "Authorization: Bearer ${4-$TOKEN}" --data-binary "${3-}" "$D_URL$2")
	else
		code=$(curl -sg -m $((30 * T_SLOW)) -o "$t_tmp/body" -w '%{http_code}' "$D_URL$2")
	fi
	body=$(cat "$t_tmp/body")
}

# jf FILTER: a jq filter over the last $body.
jf() { printf '%s' "$body" | jq -r "$1"; }

# d_wait_epoch N: wait until the published epoch's sequence is at least N.
d_wait_epoch() {
	i=0
	while :; do
		api GET /api/fabric
		s=$(jf '.epoch.seq // 0' 2>/dev/null || echo 0)
		[ "$s" -ge "$1" ] 2>/dev/null && return 0
		i=$((i + 1))
		[ $i -gt $((300 * T_SLOW)) ] && { diag "epoch $1 not published (at $s)"; return 1; }
		sleep 0.05
	done
}

# d_wait_idle: wait until no reroute runs and none is pending, and the epoch is stored.
d_wait_idle() {
	i=0
	sleep 0.2
	while :; do
		api GET /api/health
		# idle: no reroute, and the epoch stored (or the store failing)
		[ "$(jf .reroute_in_progress)" = false ] &&
			{ [ "$(jf .store.epoch_stored)" = true ] || [ "$(jf .store.ok)" = false ]; } && return 0
		i=$((i + 1))
		[ $i -gt $((300 * T_SLOW)) ] && return 1
		sleep 0.05
	done
}

# raw REQUEST: send REQUEST on a plain socket to the daemon (\r\n written
# as such), print "STATUS SECONDS" of the first answer (000 when none in 5 s).
raw() {
	python3 - "$D_PORT" "$1" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(5)
t0 = time.monotonic()
s.sendall(sys.argv[2].encode().replace(b"\\r\\n", b"\r\n"))
d = b""
try:
    while b"\r\n" not in d:
        x = s.recv(4096)
        if not x:
            break
        d += x
except OSError:
    pass
print(d.split(b" ")[1].decode() if d.startswith(b"HTTP/") else "000", round(time.monotonic() - t0, 2))
PY
}
