#!/bin/sh
# The LFT read-back at scale: real OpenSM with the plugin and fabrouted
# (--source opensm, read-back on) under ibsim on the 980-switch, 5488-CA
# fat tree (mport-ntree m=28 n=3), then a link fault.
#
#   bench/readback.sh [BUILD_DIR]   (needs ibsim, umad2sim, opensm, curl, jq)
#   RATE=2000 TIMEOUT_MS=200 FAMILY="mport-ntree m=28 n=3" bench/readback.sh BUILD_DIR
#   (defaults shown; RATE is readback_rate, SMPs per second; KEEP=1 keeps the
#   temporary directory; about 3 minutes at the default rate)
#
# Printed:
#   first read    from OpenSM's first SUBNET UP to the read-back of the epoch
#                 in force (every block of every switch: nothing was read
#                 before): switches read, unreadable, drifting, blocks, SMPs
#                 and the read's own time
#   agreement     /api/ready's status against fabroute_ready, sampled every
#                 second from OpenSM's start to the end of the first read
#   after a fault a link between two switches goes down (ibsim Unlink): the
#                 read after OpenSM's SUBNET UP, which reads only the blocks
#                 the pass changed
#   noise         lines fabrouted wrote to stderr that came from libibmad or
#                 libibumad ("ibwarn", "_do_madrpc"; the simulator shim's one
#                 "attached" line is not counted)
#
# Benchmarks print figures, they never fail on time: the load average is
# printed before and after.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
me=bench/readback.sh
tools="ibsim opensm curl jq"
. "$top/bench/osm_lib.sh"
rate=${RATE:-2000}
family=${FAMILY:-mport-ntree m=28 n=3}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

cd "$tmp"
# shellcheck disable=SC2086
"$fab" gen $family -f ibsim -o fabric.net
mkfifo sim.in
IBSIM_SOCKNAME=rb$$
export IBSIM_SOCKNAME
ibsim -s fabric.net -S 2048 -N 16384 -P 200000 0<>sim.in > sim.log 2>&1 &
sim=$!
wait_new sim.log 0 "simulator ready" 1 120 "$sim"
mkdir plugin
cp "$plugin" plugin/libfabroute-osm.so
port=$((20000 + $$ % 20000))
url=http://127.0.0.1:$port
LD_PRELOAD=$umad "$build/fabrouted" --source opensm --socket "$tmp/osm.sock" --listen "127.0.0.1:$port" \
	--db "$tmp/fr.db" --engine sftree,updn --readback 1 --readback-interval-s 0 --readback-rate "$rate" \
	--readback-timeout-ms "${TIMEOUT_MS:-200}" > fr.out 2> fr.log &
fr=$!
wait_new fr.log 0 "API listening" 1 30 "$fr"
cat > osm.conf << EOC
event_plugin_name fabroute-osm
event_plugin_options socket=$tmp/osm.sock timeout_ms=10000
routing_engine ftree,updn
EOC
LD_PRELOAD=$umad LD_LIBRARY_PATH=$tmp/plugin OSM_CACHE_DIR=$tmp OSM_TMP_DIR=$tmp \
	opensm -F osm.conf -s 0 -d 2 -f osm.log > osm.out 2>&1 &
osm=$!
t0=$(date +%s%N)

# sample: "STATUS METRIC" every second until the read-back of the epoch in force is done
agree=0 disagree=0 samples=""
until [ "$(curl -s "$url/api/fabric" | jq -r '(.readback.epoch // -1) == (.epoch.seq // -2) and .readback.time_ms != null')" = true ]; do
	code=$(curl -s -o /dev/null -w '%{http_code}' "$url/api/ready")
	m=$(curl -s "$url/metrics" | sed -n 's/^fabroute_ready //p')
	if { [ "$code" = 200 ] && [ "$m" = 1 ]; } || { [ "$code" != 200 ] && [ "$m" = 0 ]; }; then
		agree=$((agree + 1))
	else
		disagree=$((disagree + 1))
		samples="$samples $code/$m"
	fi
	[ $(($(date +%s%N) - t0)) -lt 600000000000 ] || die "no read-back within 600 s"
	sleep 1
done
done_ns=$(date +%s%N)
rb=$(curl -s "$url/api/fabric" | jq -c '.readback | {epoch, ms: (.ms | floor), switches, switches_read,
	switches_unreadable, switches_drifting, entries_drifting, blocks_read, smps, full}')
echo "first read:    $rb"
echo "               OpenSM start to read-back done: $(((done_ns - t0) / 1000000)) ms"
echo "agreement:     /api/ready and fabroute_ready agreed in $agree of $((agree + disagree)) samples${samples:+ (not:$samples)}"
ready=$(curl -s -o /dev/null -w '%{http_code}' "$url/api/ready")
echo "               /api/ready after the read: $ready, fabroute_ready $(curl -s "$url/metrics" | sed -n 's/^fabroute_ready //p')"

# a link between two switches goes down: a pass, SUBNET UP, a read of the changed blocks
seq0=$(curl -s "$url/api/fabric" | jq .epoch.seq)
pos=$(size osm.log)
# the first switch's last port that leads to another switch
leaf=$(sed -n 's/^Switch[^"]*"\([^"]*\)".*/\1/p' fabric.net | head -1)
uport=$(sed -n "/^Switch[^\"]*\"$leaf\"/,/^\$/p" fabric.net | grep -v '"node-' | sed -n 's/^\[\([0-9]*\)\].*/\1/p' | tail -1)
echo "Unlink \"$leaf\"[$uport]" > sim.in
wait_new osm.log "$pos" "SUBNET UP" 1 120 "$osm" || true
i=0
until [ "$(curl -s "$url/api/fabric" | jq -r --argjson s "$seq0" '.epoch.seq > $s and .readback.epoch == .epoch.seq')" = true ]; do
	i=$((i + 1))
	[ $i -lt 600 ] || die "no read-back of the new epoch within 600 s"
	sleep 0.5
done
echo "after a fault: $(curl -s "$url/api/fabric" | jq -c '.readback | {epoch, ms: (.ms | floor), switches_read,
	switches_unreadable, entries_drifting, blocks_read, smps, full}')"
echo "noise:         $(grep -v 'sim_connect: attached' fr.log | grep -c -e ibwarn -e _do_madrpc || true) libibmad lines in fabrouted's log ($(wc -l < fr.log) lines, umad2sim's own 'attached' line not counted)"
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
