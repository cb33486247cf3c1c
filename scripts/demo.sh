#!/bin/sh
# fabroute's main job on its built-in default: set up, build, start the
# routing daemon on the 648-port 2-stage fat tree (18 spine + 36 leaf
# 36-port switches, 648 hosts) with a throw-away database, show what it
# answers, print curl examples, and keep it running until Ctrl-C.
# FABROUTE_DEMO_ONCE=1: stop after the examples (what the tests run).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
"$top/scripts/build.sh"
build=${BUILD_DIR:-$top/build}
dir=${FABROUTE_DEMO_DIR:-$top/build/demo}
port=${FABROUTE_DEMO_PORT:-8577}
mkdir -p "$dir"
rm -f "$dir/fabroute.db" "$dir/fabroute.db-wal" "$dir/fabroute.db-shm"
[ -s "$dir/token" ] || { head -c 32 /dev/urandom | base64 >"$dir/token"; }
chmod 600 "$dir/token"

"$build/fabrouted" --topology gen:ft648 --listen "127.0.0.1:$port" --db "$dir/fabroute.db" \
	--token-file "$dir/token" 2>"$dir/fabrouted.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; echo; echo "fabrouted stopped."' EXIT
trap 'exit 0' INT TERM
url=http://127.0.0.1:$port
i=0
until curl -sf "$url/api/ready" >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 $pid 2>/dev/null; then
		echo "fabrouted did not become ready:" >&2
		cat "$dir/fabrouted.log" >&2
		exit 1
	fi
	sleep 0.1
done
export FABROUTE_URL=$url FABROUTE_TOKEN_FILE=$dir/token
fab=$build/fabroute

echo "fabrouted routes the 648-port fat tree at $url (log: $dir/fabrouted.log)"
echo
echo "\$ fabroute status"
"$fab" status || true
echo
echo "\$ fabroute route leaf-00 node-645"
"$fab" route leaf-00 node-645
echo
echo "\$ fabroute fault down --link spine-00:1     # simulate a link failure"
"$fab" fault down --link spine-00:1 >/dev/null
sleep 0.3
"$fab" events --limit 3
echo
cat <<EOM
Try (TOKEN=\$(cat $dir/token)):
  curl '$url/api/route?src=leaf-00&dst=node-645'
  curl '$url/api/route?src=0x1&dst=700'                 # by LID
  curl  $url/api/connectivity
  curl  $url/api/reachability/switches
  curl  $url/api/vl-usage
  curl  $url/api/ready                                  # 200 only when fully routed and deadlock-free
  curl  $url/metrics
  curl  $url/api/events
  curl -H "Authorization: Bearer \$TOKEN" -d '{"action":"down","switch":"spine-03"}' $url/api/faults
  curl -H "Authorization: Bearer \$TOKEN" -d '{"chain":"updn"}' $url/api/engine
  $fab --help                                  # the same from the command line
EOM
if [ "${FABROUTE_DEMO_ONCE:-0}" = 1 ]; then
	exit 0
fi
echo
echo "fabrouted is running; press Ctrl-C to stop it."
wait $pid
