#!/bin/sh
# Failovers of the SM node, measured in the switches: one ibsim, two SM nodes
# (OpenSM with the plugin + fabrouted with replication = etcd + an etcd
# member each, OpenSM's priorities equal), a third etcd member as witness,
# all on loopback. Each cycle: an engine chain POSTed to the master and
# acknowledged, on every other cycle a leaf-spine link Unlinked and repaired
# in force, then the master node is stopped:
#   osm    its OpenSM killed (SIGKILL)
#   fr     its fabrouted killed and started again (as systemd restarts it):
#          no SM failover, its OpenSM stays master
#   host   every process of the node killed (OpenSM, fabrouted, etcd member)
# then the node is started again (OpenSM may hand the mastership back to it:
# the entries that changes are printed as "return"), and the next failover
# stops whichever node is master. Per failover:
# the time from the kill (or the restart) to the new master's SUBNET UP, the
# LFT entries and LIDs that differ in the switches before and after (read
# over SMP by dump_fts from a third HCA, not from fabroute), whether the
# repair in force is kept, whether the acknowledged chain is in force, and
# how long the new master's fabrouted took to answer its OpenSM's first pass
# (from the request's first byte to the answer, as the plugin logs it; "kept":
# with the warm copy, not routed again).
# Then OpenSM alone (ftree, two OpenSMs, no fabroute) on the same fabric.
#
#   bench/ha.sh [BUILD_DIR]         FABRIC="ft648" CYCLES=4 MODES="osm fr host" SETTLE=3 BACK_S=8
#                                   POLL_MS=500 POLL_RETRIES=2
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
me=bench/ha.sh tools="ibsim opensm curl jq dump_fts etcd"
. "$top/bench/osm_lib.sh"
[ -r "$simto" ] || die "no $simto (make -C $build check builds it)"
fabric=${FABRIC:-ft648}
cycles=${CYCLES:-4}
modes=${MODES:-osm fr host}
# seconds for a repair to settle in the switches, and for a node that returns to take the mastership
# back: the defaults suit ft648; at 5488 CAs OpenSM's sweep alone takes 7 s or more
settle=${SETTLE:-3} back_s=${BACK_S:-8}
base=$((23000 + $$ % 900 * 10))	# below the ephemeral ports (32768 on), which a client may hold
cluster="e1=http://127.0.0.1:$((base + 3)),e2=http://127.0.0.1:$((base + 5)),e3=http://127.0.0.1:$((base + 7))"
endpoints="http://127.0.0.1:$((base + 2)),http://127.0.0.1:$((base + 4)),http://127.0.0.1:$((base + 6))"
pids=""
cleanup_all() { for p in $pids; do kill -9 "$p" 2> /dev/null || true; done; cleanup; }
trap cleanup_all EXIT

now_ms() { echo $(($(date +%s%N) / 1000000)); }
start_etcd() {
	i=$1
	etcd --name "e$i" --data-dir "$tmp/e$i.etcd" --listen-client-urls "http://127.0.0.1:$((base + 2 * i))" \
		--advertise-client-urls "http://127.0.0.1:$((base + 2 * i))" --listen-peer-urls "http://127.0.0.1:$((base + 2 * i + 1))" \
		--initial-advertise-peer-urls "http://127.0.0.1:$((base + 2 * i + 1))" --initial-cluster "$cluster" \
		--initial-cluster-state new --initial-cluster-token "b$$" > "$tmp/e$i.log" 2>&1 &
	eval "ETCD_$i=\$!"
	pids="$pids $!"
}
# start_fr N HCA: fabrouted of node N
start_fr() {
	pos=$(size "$tmp/n$1/fr.log")
	(cd "$tmp/n$1" && LD_PRELOAD=$umad SIM_HOST=$2 exec "$build/fabrouted" --listen 127.0.0.1:0 --db "$tmp/n$1/db" \
		--source opensm --socket "$tmp/n$1/osm.sock" --engine sftree,updn --readback 0 \
		--fast-repair-timeout-ms 1000 --rebalance-delay-s 0 --api-write-rate-limit 0 --replication etcd \
		--etcd-endpoints "$endpoints" --node-name "node$1" --token-file "$tmp/token" --log-level info \
		>> "$tmp/n$1/fr.log" 2>&1) &
	eval "FR_$1=\$!"
	pids="$pids $!"
	wait_new "$tmp/n$1/fr.log" "$pos" "API listening on" 1 60 || die "fabrouted $1 did not start"
	eval "URL_$1=http://127.0.0.1:\$(tail -c +\$((pos + 1)) \"\$tmp/n\$1/fr.log\" | sed -n 's|.*API listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' | tail -1)"
}
# start_osm N HCA PRIORITY [ENGINE]: OpenSM of node N (with the plugin unless ENGINE)
start_osm() {
	{
		[ -n "${4:-}" ] || printf 'event_plugin_name fabroute-osm\nevent_plugin_options socket=%s timeout_ms=30000\n' "$tmp/n$1/osm.sock"
		printf 'routing_engine %s\nsm_priority %s\nsminfo_polling_timeout %s\npolling_retry_number %s\n' \
			"${4:-updn}" "$3" "$poll_ms" "$poll_retries"
	} > "$tmp/n$1/osm.conf"
	(cd "$tmp/n$1" && LD_PRELOAD="$simto $umad" SIM_HOST=$2 LD_LIBRARY_PATH=$tmp OSM_CACHE_DIR=$tmp/n$1 OSM_TMP_DIR=$tmp/n$1 \
		exec opensm -F "$tmp/n$1/osm.conf" -s 0 -d 2 -f "$tmp/n$1/osm.log" > "$tmp/n$1/osm.out" 2>&1) &
	eval "OSM_$1=\$!"
	pids="$pids $!"
}
# a standby's polling of the master (POLL_MS, POLL_RETRIES): short by default, so that failovers are short;
# OpenSM's own defaults are 10000 and 4
poll_ms=${POLL_MS:-500} poll_retries=${POLL_RETRIES:-2}
health() { curl -s -m 5 "$1/api/health"; }
# detach PID: a process killed by a signal stays attached to ibsim (10 clients at most): ibsim's
# console lists its clients ("Client N: pid P connected at ..."), and "X N" lets that one go
detach() {
	pos=$(size "$simlog")
	echo Attached > "$tmp/sim.in"
	sleep 0.3
	c=$(tail -c +$((pos + 1)) "$simlog" | sed -n "s/.*Client \([0-9]*\): pid $1 connected.*/\1/p" | tail -1)
	[ -z "$c" ] || echo "X $c" > "$tmp/sim.in"
}
# kill_osm N, kill_fr N: SIGKILL, the pid kept in $dead; detach_dead lets them go, once the
# takeover is over (a killed SM's port let go at once may still be taken for a live master)
dead=""
kill_osm() { eval "p=\$OSM_$1"; kill -9 "$p"; dead="$dead $p"; }
kill_fr() { eval "p=\$FR_$1"; kill -9 "$p"; dead="$dead $p"; }
detach_dead() { for p in $dead; do detach "$p"; done; dead=""; }
role() { health "$1" | jq -r '.ha.role // "down"'; }
# tables F: every switch's LFT read over SMP by the ruler into F (entries) and F.lids; a dump that fails
# (an SM handing over while it reads) is taken again, up to three times
tables() {
	for k in 1 2 3; do
		(cd "$tmp" && LD_PRELOAD=$umad SIM_HOST=$ruler timeout 300 dump_fts 2> /dev/null) > "$1.dump" && break
		[ $k = 3 ] && die "dump_fts failed three times"
		sleep 2
	done
	awk '/^Unicast lids/ { sw = ""; for (i = 1; i < NF; i++) if ($i == "guid") sw = $(i + 1); next }
	     /^0x[0-9a-fA-F]+ [0-9]+/ { if (sw != "" && $2 + 0 != 255) print sw, tolower($1), $2 + 0 }' "$1.dump" | LC_ALL=C sort > "$1"
	grep -o 'Lid [0-9]*' "$1.dump" | sort > "$1.lids"
}
changed() { LC_ALL=C comm -3 "$1" "$2" | awk '{ print $1, $2 }' | sort -u | wc -l; }
# "-> SUBNET UP": the one line per subnet up at every log level (-D 0x07 adds a banner)
ups() { u=$(grep -c -- "-> SUBNET UP" "$tmp/n$1/osm.log" 2> /dev/null || true); echo "${u:-0}"; }
wait_up() { i=0; while [ "$(ups "$1")" -lt "$2" ]; do i=$((i + 1)); [ $i -gt 1200 ] && return 1; sleep 0.05; done; }
wait_role() { i=0; while [ "$(role "$1")" != "$2" ]; do i=$((i + 1)); [ $i -gt 1200 ] && return 1; sleep 0.05; done; }
up_ms() { # the stamp (ms since midnight) of node N's K-th SUBNET UP, as epoch ms
	grep -- "-> SUBNET UP" "$tmp/n$1/osm.log" | sed -n "$2p" | awk -v d="$(date -u +%s)" '{ split($3, t, ":")
		printf "%d\n", ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 + $4 / 1000 }'; }
midnight_ms() { echo $(( $(date -d "$(date +%F) 00:00:00" +%s) * 1000 )); }

head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$tmp/token"
chmod 600 "$tmp/token"
token=$(cat "$tmp/token")
cp "$plugin" "$tmp/libfabroute-osm.so"
case $fabric in
ft648) gen=ft648 link='"leaf-03"[20]' ;;
m28) gen="mport-ntree m=28 n=3" link='"leaf-000"[15]' ;;
*) gen=$fabric link=${LINK:?LINK names a link of $fabric} ;;
esac
# shellcheck disable=SC2086
"$fab" gen $gen -f ibsim -o "$tmp/f.net"
ruler=$(grep '^Hca' "$tmp/f.net" | tail -1 | sed 's/.*"\(.*\)".*/\1/')
hca1=$(grep '^Hca' "$tmp/f.net" | sed -n 1p | sed 's/.*"\(.*\)".*/\1/')
hca2=$(grep '^Hca' "$tmp/f.net" | sed -n 2p | sed 's/.*"\(.*\)".*/\1/')
IBSIM_SOCKNAME="fha$$"
export IBSIM_SOCKNAME
mkfifo "$tmp/sim.in"
simlog=$tmp/sim.log
(cd "$tmp" && exec ibsim -s "$tmp/f.net" -S 4096 -N 32768 -P 200000 0<> "$tmp/sim.in" > "$tmp/sim.log" 2>&1) &
sim=$!
wait_new "$tmp/sim.log" 0 "simulator ready" 1 120 "$sim" || die "ibsim did not start"
mkdir -p "$tmp/n1" "$tmp/n2"

echo "=== $fabric: fabroute on two SM nodes (replication etcd, three members), $cycles cycles of: $modes; ruler on $ruler"
printf "%-5s %-10s %12s %8s %6s %8s %8s %14s\n" mode failover "SUBNET UP ms" entries LIDs repair "acked" "first pass ms"
for i in 1 2 3; do start_etcd "$i"; done
sleep 2
start_fr 1 "$hca1"; start_fr 2 "$hca2"
start_osm 1 "$hca1" 5
wait_up 1 1 || die "OpenSM 1 did not bring the subnet up"
start_osm 2 "$hca2" 5
m=1
wait_role "$URL_1" master || { m=2; wait_role "$URL_2" master; } || die "no fabrouted became master"
run=0
for c in $(seq "$cycles"); do
	for mode in $modes; do
		run=$((run + 1))
		o=$((3 - m))
		eval "mu=\$URL_$m ou=\$URL_$o mh=\$hca$m"
		chain=$([ $((run % 2)) = 0 ] && echo sftree,updn,minhop || echo sftree,updn)
		code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $token" \
			--data "{\"chain\":\"$chain\"}" "$mu/api/engine")
		[ "$code" = 202 ] || die "the engine POST to node $m ($mu) got $code; roles: $(role "$URL_1") $(role "$URL_2")"
		fault=$((run % 2))
		# the chain routes at the heavy sweep the POST asks for; a master whose OpenSM does not
		# sweep (an SMP the simulator never answered: the plugin warns) routes nothing more, and
		# the failover after it shows that, not the replication
		i=0
		until [ "$(curl -s -m 5 "$mu/api/fabric" | jq -r .epoch.chain)" = "$chain" ] || [ $i -gt 200 ]; do
			i=$((i + 1)); sleep 0.1
		done
		[ $i -gt 200 ] && echo "      note: node $m's OpenSM did not route the POSTed chain in 20 s:" \
			"$(grep 'has not begun the heavy sweep' "$tmp/n$m/fr.log" | tail -1 | sed 's/.*warning: //')"
		sleep 2
		[ $fault = 1 ] && echo "Unlink $link" > "$tmp/sim.in" && sleep "$settle"
		tables "$tmp/before"
		digest=$(curl -s -m 5 "$mu/api/fabric" | jq -r .routing.digest)
		lag=$(health "$ou" | jq -r '"p50 \(.ha.replication.lag_ms_p50) ms, p99 \(.ha.replication.lag_ms_p99) ms"')
		upo=$(ups $o)
		frpos=$(size "$tmp/n$o/fr.log") osmpos=$(size "$tmp/n$o/osm.log")
		t0=$(now_ms)
		case $mode in
		osm) kill_osm $m ;;
		fr) kill_fr $m; start_fr $m "$mh" ;;
		host) eval "kill -9 \$ETCD_$m"; kill_osm $m; kill_fr $m ;;
		esac
		if [ "$mode" = fr ]; then
			eval "new=\$URL_$m" to=$m upms=-
			sleep 3
		else
			wait_up $o $((upo + 1)) || die "node $o's OpenSM did not take over"
			upms=$(( $(midnight_ms) + $(up_ms $o $((upo + 1))) - t0 ))
			new=$ou to=$o
			sleep 1
		fi
		detach_dead
		tables "$tmp/after"
		# the new master's first pass, as its OpenSM's plugin logged it: fabrouted's time from the
		# request's first byte to its answer (the sum of the parts it reports), and whether it kept the copy
		pass=$(tail -c +$((osmpos + 1)) "$tmp/n$o/osm.log" | grep -m1 'routed by fabrouted' || true)
		first=$(printf '%s' "$pass" | sed -n 's/.*fabrouted: read \([0-9]*\), subnet \([0-9]*\), [a-z]* \([0-9]*\), evaluation \([0-9]*\), rest \([0-9]*\) ms.*/\1 \2 \3 \4 \5/p' |
			awk '{ print $1 + $2 + $3 + $4 + $5 }')
		tail -c +$((frpos + 1)) "$tmp/n$o/fr.log" | grep -q "kept epoch [0-9]*'s routing" && first="$first kept"
		[ "$mode" = fr ] && first=-
		kept=$([ "$(curl -s -m 5 "$new/api/fabric" | jq -r .routing.digest)" = "$digest" ] && echo yes || echo no)
		acked=$([ "$(curl -s -m 5 "$new/api/config" | jq -r .engine_in_use)" = "$chain" ] && echo kept || echo LOST)
		lids=$(cmp -s "$tmp/before.lids" "$tmp/after.lids" && echo 0 || echo changed)
		printf "%-5s %-10s %12s %8s %6s %8s %8s %14s\n" "$mode" "node$m>node$to" "$upms" \
			"$(changed "$tmp/before" "$tmp/after")" "$lids" "$([ $fault = 1 ] && echo "$kept" || echo "-")" \
			"$acked" "${first:--}"
		[ -z "$pass" ] || echo "      first pass: ${pass#*-> fabroute: }"
		echo "      replication lag at the standby before the kill: $lag"
		# the link back, and its reroute in the switches before the tables are read again
		[ $fault = 1 ] && echo "ReLink $link" > "$tmp/sim.in" && sleep 4
		if [ "$mode" != fr ]; then	# the node back: OpenSM may hand it the mastership again
			tables "$tmp/before"
			[ "$mode" = host ] && start_etcd $m
			start_fr $m "$mh"
			start_osm $m "$mh" 5
			sleep "$back_s"
			back=$m
			eval "[ \"\$(role \$URL_$m)\" = master ]" || m=$o
			tables "$tmp/after"
			[ "$m" = "$back" ] && printf "%-5s %-10s %12s %8s %6s %8s %8s %14s\n" return \
				"node$o>node$m" - "$(changed "$tmp/before" "$tmp/after")" \
				"$(cmp -s "$tmp/before.lids" "$tmp/after.lids" && echo 0 || echo changed)" - - -
		fi
	done
done
eval "h=\$(health \$URL_$((3 - m)))"
echo "replication lag at the standby: p50 $(echo "$h" | jq .ha.replication.lag_ms_p50) ms, p99 $(echo "$h" | jq .ha.replication.lag_ms_p99) ms"
for p in $pids; do kill -9 "$p" 2> /dev/null || true; done
pids=""

echo "=== OpenSM alone (ftree), two OpenSMs, the master killed"
stop "$sim"	# a fresh simulator: no table, no client left from the run above
simlog=$tmp/sim2.log
(cd "$tmp" && exec ibsim -s "$tmp/f.net" -S 4096 -N 32768 -P 200000 0<> "$tmp/sim.in" > "$tmp/sim2.log" 2>&1) &
sim=$!
wait_new "$tmp/sim2.log" 0 "simulator ready" 1 120 "$sim" || die "ibsim did not start"
for n in 1 2; do mv -f "$tmp/n$n/osm.log" "$tmp/n$n/osm-fabroute.log"; done	# kept with KEEP=1
OSM_1="" OSM_2=""
start_osm 1 "$hca1" 10 ftree
wait_up 1 1 || die "OpenSM alone did not come up"
start_osm 2 "$hca2" 5 ftree
for fault in 0 1; do
	sleep 2
	[ $fault = 1 ] && echo "Unlink $link" > "$tmp/sim.in" && sleep "$settle"
	tables "$tmp/before"
	up2=$(ups 2)
	t0=$(now_ms)
	kill_osm 1
	if ! wait_up 2 $((up2 + 1)); then
		detach_dead
		printf "%-5s %-10s %12s\n" osm "osm1>osm2" "none in 60 s"
		break
	fi
	sleep 1
	detach_dead
	tables "$tmp/after"
	printf "%-5s %-10s %12s %8s %6s\n" osm "osm1>osm2" "$(( $(midnight_ms) + $(up_ms 2 $((up2 + 1))) - t0 ))" \
		"$(changed "$tmp/before" "$tmp/after")" "$(cmp -s "$tmp/before.lids" "$tmp/after.lids" && echo 0 || echo changed)"
	[ $fault = 1 ] && echo "ReLink $link" > "$tmp/sim.in"
	up1=$(ups 1)
	start_osm 1 "$hca1" 10 ftree
	wait_up 1 $((up1 + 1)) || true
	sleep 2
done
