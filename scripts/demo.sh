#!/bin/sh
# fabroute's main job on its built-in default, end to end on one machine:
# set up and build, then run ibsim simulating the 648-port 2-stage fat tree
# (18 spine + 36 leaf 36-port switches, 648 hosts), real OpenSM with the
# fabroute-osm plugin, and fabrouted as its routing engine. Shows what the
# switches hold and what fabrouted answers, prints curl examples, and stops
# all three on Ctrl-C.
#   FABROUTE_DEMO_ONCE=1   stop after the examples (no waiting for Ctrl-C)
#   FABROUTE_DEMO_PORT=N   the API's and the dashboard's port (default 8577)
#   FABROUTE_DEMO_DIR=DIR  where the logs and the state go (default build/demo)
# Installs only what building and the demo need (scripts/setup.sh demo).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh" demo
"$top/scripts/build.sh"
build=${BUILD_DIR:-$top/build}
dir=${FABROUTE_DEMO_DIR:-$top/build/demo}
port=${FABROUTE_DEMO_PORT:-8577}
umad=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
plugin=${FABROUTE_OSM_PLUGIN:-$build/.libs/libfabroute-osm.so}
fab=$build/fabroute
[ -r "$plugin" ] || { echo "demo: no OpenSM plugin at $plugin (libopensm-dev missing?)" >&2; exit 1; }

rm -rf "$dir"
mkdir -p "$dir/plugin"
cp "$plugin" "$dir/plugin/libfabroute-osm.so"
head -c 32 /dev/urandom | base64 >"$dir/token"
chmod 600 "$dir/token"
"$fab" gen ft648 -f ibsim -o "$dir/ft648.net"
export IBSIM_SOCKNAME="demo$$"
pids=""
# OpenSM first, then fabrouted, then ibsim (the newest first): OpenSM
# waits on the simulator while it exits. Each gets 5 s, then SIGKILL.
stop() {
	for p in $pids; do
		kill "$p" 2>/dev/null || continue
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	echo
	echo "OpenSM, fabrouted and ibsim stopped."
}
trap stop EXIT
trap 'exit 0' INT TERM
# wait_for FILE PATTERN WHAT PID: until FILE has PATTERN; stops at once when PID exits
wait_for() {
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		if ! kill -0 "$4" 2>/dev/null; then
			echo "demo: $3 exited:" >&2
			tail -5 "$1" | sed 's/^/  /' >&2
			exit 1
		fi
		[ $i -le 600 ] || { echo "demo: $3 did not come up in 60 s; see $1" >&2; exit 1; }
		sleep 0.1
	done
}
# the port is free, or say who holds it, before anything starts
rc=0
curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/" || rc=$?
if [ "$rc" -ne 7 ]; then	# 7: connection refused, the port is free
	echo "demo: port $port on 127.0.0.1 is in use (another fabrouted or demo?);" \
		"choose another with FABROUTE_DEMO_PORT=N" >&2
	exit 1
fi

cd "$dir"
mkfifo sim.in
ibsim -s ft648.net 0<>sim.in >sim.log 2>&1 &
pids="$! $pids"
wait_for sim.log "simulator ready" ibsim $!
LD_PRELOAD=$umad "$build/fabrouted" --source opensm --socket "$dir/osm.sock" \
	--listen "127.0.0.1:$port" --db "$dir/fabroute.db" --token-file "$dir/token" 2>fabrouted.log &
pids="$! $pids"
wait_for fabrouted.log "API listening" fabrouted $!
cat >osm.conf <<EOC
event_plugin_name fabroute-osm
event_plugin_options socket=$dir/osm.sock timeout_ms=2000
routing_engine ftree,updn
EOC
LD_PRELOAD=$umad LD_LIBRARY_PATH=$dir/plugin OSM_CACHE_DIR=$dir OSM_TMP_DIR=$dir \
	opensm -F osm.conf -s 30 -d 2 -f osm.log -D 0x43 --dump_files_dir "$dir" >osm.out 2>&1 &
pids="$! $pids"
wait_for osm.log "SUBNET UP" OpenSM $!
sleep 1.5	# fabrouted reads the tables back from the switches

export FABROUTE_URL=http://127.0.0.1:$port FABROUTE_TOKEN_FILE=$dir/token
url=$FABROUTE_URL
echo "ibsim simulates the 648-port fat tree; OpenSM manages it with fabroute as its routing engine:"
grep -o "fabroute tables configured.*" osm.log | head -1
echo
echo "\$ fabroute status"
"$fab" status || true
echo
echo "\$ fabroute route leaf-00 node-645"
"$fab" route leaf-00 node-645
echo
echo "\$ echo 'Unlink \"leaf-00\"[19]' > $dir/sim.in      # a link fails in the simulated fabric"
echo 'Unlink "leaf-00"[19]' >sim.in
sleep 2
"$fab" events --limit 5
cat <<EOM

The dashboard: $url/   (open it in a browser on this machine)
Logs: $dir/{osm,fabrouted,sim}.log. Try:
  curl '$url/api/route?src=leaf-00&dst=node-645'
  curl  $url/api/ready                  # 200: connected, deadlock-free, switches programmed as computed
  curl  $url/api/fabric | jq .readback  # the switches' tables read back against fabroute's
  curl  $url/metrics
  curl  $url/api/events?type=trap
  echo 'ReLink "leaf-00"[19]' > $dir/sim.in          # the link comes back
  curl -H "Authorization: Bearer \$(cat $dir/token)" -d '{"chain":"updn"}' $url/api/engine
  IBSIM_SOCKNAME=$IBSIM_SOCKNAME LD_PRELOAD=$umad dump_lfts   # the switches' tables
EOM
[ "${FABROUTE_DEMO_ONCE:-0}" = 1 ] && exit 0
echo
echo "Running; press Ctrl-C to stop OpenSM, fabrouted and ibsim."
while :; do sleep 3600; done
