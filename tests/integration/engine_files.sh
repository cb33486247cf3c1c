#!/bin/sh
# Files named by engine options (dla.groups=FILE): only regular files in
# engine_files_dir, read beforehand with a bound on time, never by a thread
# holding a lock. A device, a FIFO, a path out of the directory are refused
# at once with the reason (the API keeps answering, SIGTERM stops the
# daemon); a chain stored through the API whose file is gone makes the
# start fail at once, -n says so too, --forget-engine gets the daemon going
# again; a reload naming a FIFO is refused and the old configuration stays.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"

# post_engine BODY: POST /api/engine, at most 5 s; sets $code and $body
post_engine() {
	code=$(curl -sg --max-time 5 -o "$t_tmp/body" -w '%{http_code}' -X POST \
		-H "Authorization: Bearer $TOKEN" --data-binary "$1" "$D_URL/api/engine")
	body=$(cat "$t_tmp/body" 2>/dev/null)
}
# stops_within SECONDS: SIGTERM, then the daemon must be gone within that long
stops_within() {
	kill -TERM "$D_PID"
	i=0
	while kill -0 "$D_PID" 2>/dev/null && [ $i -lt $(($1 * 10 * T_SLOW)) ]; do i=$((i + 1)); sleep 0.1; done
	if kill -0 "$D_PID" 2>/dev/null; then
		kill -9 "$D_PID"
		return 1
	fi
	d_stop
	return 0
}

topo=gen:kary-ntree:k=4,n=2
d_start plain --topology "$topo" || { not_ok "fabrouted starts"; done_testing; }
d_wait_epoch 1
post_engine '{"chain":"dla,updn","options":"dla.groups=/dev/ptmx"}'
is "a device: refused at once (400)" "$code" 400
like "a device: the answer says it is not in engine_files_dir" "$body" "not in engine_files_dir"
post_engine '{"chain":"dla,updn","options":"dla.groups=/etc/shadow"}'
is "a file outside engine_files_dir: refused (400)" "$code" 400
like "a file outside: the same answer whether it exists or not" "$body" "'/etc/shadow' is not in engine_files_dir"
api GET /api/health
is "the API still answers" "$code" 200
stops_within 2 && ok "SIGTERM stops the daemon within 2 s" || not_ok "SIGTERM stops the daemon within 2 s"

eng=$t_tmp/eng
mkdir -p "$eng"
mkfifo "$eng/fifo"
ln -s /etc/passwd "$eng/out"
printf 'leaf-00 0\n' >"$eng/groups"
d_start files --topology "$topo" --engine-files-dir "$eng" || { not_ok "fabrouted starts with engine_files_dir"; done_testing; }
d_wait_epoch 1
post_engine '{"chain":"dla,updn","options":"dla.groups=fifo"}'
is "a FIFO in the directory: refused at once (400)" "$code" 400
like "a FIFO: not a regular file" "$body" "'fifo' is not a regular file"
post_engine '{"chain":"dla,updn","options":"dla.groups=out"}'
like "a symbolic link out of the directory: refused" "$code $body" "^400 .*leads out of engine_files_dir"
post_engine '{"chain":"dla,updn","options":"dla.groups=../token"}'
is "'..': refused" "$code" 400
api GET /api/config
is "/api/config answers meanwhile" "$code" 200
post_engine "{\"chain\":\"dla,updn\",\"options\":\"dla.groups=$eng/groups\"}"
is "a regular file in the directory (absolute path): accepted (202)" "$code" 202
d_wait_idle
api GET /api/fabric
is "and routed (dla does not apply here: updn)" "$(jf .epoch.engine)" updn
stops_within 2 && ok "stopped" || not_ok "stopped"

# the chain is stored; its file goes: the start fails at once and says why
rm "$eng/groups"
t0=$(date +%s)
"$FABROUTED" --listen 127.0.0.1:0 --db "$t_tmp/files.db" --token-file "$t_tmp/token" --topology "$topo" \
	--engine-files-dir "$eng" >/dev/null 2>"$t_tmp/start.log" &
pid=$!
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt $((50 * T_SLOW)) ]; do i=$((i + 1)); sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
	kill -9 $pid
	not_ok "a stored chain whose file is gone: the start fails"
else
	wait $pid && st=0 || st=$?
	is "a stored chain whose file is gone: the start fails (exit 1)" "$st" 1
fi
[ $(($(date +%s) - t0)) -le $((3 * T_SLOW)) ] && ok "at once" || not_ok "at once"
like "and says which file and what to do" "$(cat "$t_tmp/start.log")" \
	"selected through the API .*groups': no such file in engine_files_dir.*--forget-engine"
runs "-n says so too (exit 3)" 3 "$FABROUTED" -n --db "$t_tmp/files.db" --topology "$topo" --engine-files-dir "$eng"
like "-n names the file" "$err" "groups': no such file"
d_start files --topology "$topo" --engine-files-dir "$eng" --forget-engine ||
	{ not_ok "--forget-engine: fabrouted starts"; done_testing; }
ok "--forget-engine: fabrouted starts"
d_wait_epoch 1
api GET /api/config
is "--forget-engine: the configuration's chain is in use" "$(jf .engine_in_use)" "$(jf .config.engine)"

# a configuration whose option names a FIFO: refused at start, with the reason
d_stop
printf 'engine = dla,updn\nengine_options = dla.groups=fifo\n' >"$t_tmp/f.conf"
"$FABROUTED" --listen 127.0.0.1:0 --db "$t_tmp/r.db" --token-file "$t_tmp/token" --topology "$topo" \
	--engine-files-dir "$eng" -c "$t_tmp/f.conf" >/dev/null 2>"$t_tmp/r.log" &
pid=$!
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt $((50 * T_SLOW)) ]; do i=$((i + 1)); sleep 0.1; done
kill -0 $pid 2>/dev/null && { kill -9 $pid; not_ok "a configuration naming a FIFO: refused at start"; } ||
	{ wait $pid; is "a configuration naming a FIFO: refused at start (exit 3)" "$?" 3; }
like "it says why" "$(cat "$t_tmp/r.log")" "'fifo' is not a regular file"

# a reload whose option names a FIFO: refused, the old configuration stays
printf 'engine = updn\n' >"$t_tmp/f.conf"
d_start reload -c "$t_tmp/f.conf" --topology "$topo" --engine-files-dir "$eng" ||
	{ not_ok "fabrouted starts for the reload"; done_testing; }
d_wait_epoch 1
printf 'engine = dla,updn\nengine_options = dla.groups=fifo\n' >"$t_tmp/f.conf"
kill -HUP "$D_PID"
i=0
until grep -q "reload.*keeping the old configuration" "$D_LOG.new" || [ $i -gt $((50 * T_SLOW)) ]; do
	i=$((i + 1)); sleep 0.1
done
like "SIGHUP with a FIFO: the reload is refused, the reason logged" "$(cat "$D_LOG.new")" \
	"reload: .*'fifo' is not a regular file; keeping the old configuration"
api GET /api/config
is "the old chain stays" "$(jf .config.engine)" updn
stops_within 2 && ok "SIGTERM stops it within 2 s" || not_ok "SIGTERM stops it within 2 s"
done_testing
