# Shared by bench/api.sh and bench/reroute.sh: run one fabrouted at a time.
# Source after setting $build, $tmp and die(). Sets the exit traps.

pid=
child=
# run a command in the background and wait for it, so that a signal to this
# script is handled at once (and the command is killed on exit)
fg() {
	"$@" &
	child=$!
	rc=0
	wait "$child" || rc=$?
	child=
	return $rc
}
stop_daemon() {
	[ -n "$pid" ] || return 0
	kill "$pid" 2> /dev/null || true
	i=0
	while kill -0 "$pid" 2> /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	kill -9 "$pid" 2> /dev/null || true
	wait "$pid" 2> /dev/null || true
	pid=
}
trap '[ -z "$child" ] || kill "$child" 2> /dev/null; stop_daemon; rm -rf "$tmp"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM

token=bench-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$token" > "$tmp/token"
chmod 600 "$tmp/token"

# start_daemon NAME [FLAGS...]: a daemon with its database in $tmp/NAME, on
# a free port; waits for GET /api/ready = 200. Sets $pid, $port, $url, $log.
start_daemon() {
	dir=$tmp/$1
	shift
	mkdir -p "$dir"
	log=$dir/fabrouted.log
	: > "$log"
	"$build/fabrouted" --listen 127.0.0.1:0 --db "$dir/db" --token-file "$tmp/token" \
		--log-level info "$@" 2> "$log" < /dev/null &
	pid=$!
	port=
	i=0
	while [ -z "$port" ]; do
		kill -0 "$pid" 2> /dev/null || { cat "$log" >&2; die "fabrouted exited at startup"; }
		[ $i -lt 100 ] || { cat "$log" >&2; die "no 'API listening' in the log after 10 s"; }
		port=$(sed -n 's|.*API listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log" | head -1)
		[ -n "$port" ] || { sleep 0.1; i=$((i + 1)); }
	done
	url=http://127.0.0.1:$port
	i=0
	until [ "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$url/api/ready")" = 200 ]; do
		kill -0 "$pid" 2> /dev/null || { cat "$log" >&2; die "fabrouted exited before it was ready"; }
		[ $i -lt 600 ] || { tail "$log" >&2; die "GET /api/ready is not 200 after 60 s"; }
		sleep 0.1
		i=$((i + 1))
	done
}
