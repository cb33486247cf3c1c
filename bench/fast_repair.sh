#!/bin/sh
# How long a link fault stays in the switches' tables, measured by a ruler of
# its own: bench/lft_poll, an SMP client with its own umad2sim attachment,
# reads the LFT blocks of the dead link's two end switches over directed
# routes that avoid the link, from just before the Unlink written to ibsim's
# console until WINDOW seconds later. Three set-ups on each fabric, one after
# the other on one simulator (real OpenSM 3.3.23 under ibsim):
#
#   osm     OpenSM alone (routing_engine ftree; on a degraded tree it falls
#           back to minhop)
#   sweep   OpenSM + fabroute, fast_repair = 0: the repair reaches the
#           switches with OpenSM's heavy sweep
#   fast    OpenSM + fabroute with its defaults: the fast repair
#
#   bench/fast_repair.sh [BUILD_DIR]    (needs ibsim, umad2sim, opensm, curl, jq)
#   FABRICS="kary43 ft648 m28" SETUPS="osm sweep fast" REPS=3 KEEP=0 bench/fast_repair.sh build
#   FABROUTED_ARGS="--fast-repair-window 1" ...   more options for fabrouted
#   FABROUTED_ENV="GLIBC_TUNABLES=..." ...        more environment for fabrouted (e.g. glibc malloc tunables)
#
# Per Unlink it prints: gone, the time from the Unlink to when no entry of
# either switch points at the dead link; final, to the last change the ruler
# saw (the switches then hold their final tables); after, the LFT entries of
# the two switches that changed after the fast path's last write (what
# OpenSM's following sweep changed there: 0 is the target); fabroute's own
# figures (trap to last write, blocks written) and the LFT blocks OpenSM's
# sweep sent (LFT_CHANGE events the plugin reported). Then ReLink, and
# whether the tables are the ones before the Unlink, byte for byte.
# Benchmarks print figures, they never fail on time; ibsim, OpenSM, fabrouted
# and the ruler share the machine's cores.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
reps=${REPS:-3}
me=bench/fast_repair.sh tools="ibsim opensm curl jq dump_fts"
. "$top/bench/osm_lib.sh"
poll=$build/bench/lft_poll
# an Unlink and a ReLink are a trap 128 each from both end switches; OpenSM
# ignores the 11th alike within its aging window (osm_trap_rcv.c)
[ "$reps" -ge 1 ] && [ "$reps" -le 5 ] ||
	die "REPS=$reps: 1 to 5 (OpenSM ignores a switch's traps once it had 10 alike within its aging window)"
[ -x "$poll" ] || die "no $poll (make -C $build bench/lft_poll)"

now_us() { date +%s%6N; }
# entries FILE: a dump_fts dump as "switch-guid lid port" lines, sorted
entries() {
	awk '/^Unicast lids/ { sw = ""; for (i = 1; i < NF; i++) if ($i == "guid") sw = $(i + 1); next }
	     /^0x[0-9a-fA-F]+ [0-9]+/ { if (sw != "" && $2 + 0 != 255) print sw, tolower($1), $2 + 0 }' "$1" | LC_ALL=C sort
}
tables() { (cd "$tmp" && LD_PRELOAD=$umad SIM_HOST=$ruler timeout 300 dump_fts 2> /dev/null) > "$1.dump"; entries "$1.dump" > "$1"; }

# fabric NAME GEN-ARGS A PA B PB WINDOW-S
fabric() {
	name=$1 gen=$2 a=$3 pa=$4 b=$5 pb=$6 window=$7
	# shellcheck disable=SC2086
	"$fab" gen $gen -f ibsim -o "$tmp/$name.net"
	"$fab" gen $gen -o "$tmp/$name.ibnd"
	ruler=$(grep '^Hca' "$tmp/$name.net" | tail -1 | sed 's/.*"\(.*\)".*/\1/')
	IBSIM_SOCKNAME="ffr$$x$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
	export IBSIM_SOCKNAME
	rm -f "$tmp/sim.in"
	mkfifo "$tmp/sim.in"
	mkdir -p "$tmp/$name"
	(cd "$tmp/$name" && exec ibsim -s "$tmp/$name.net" -S 4096 -N 32768 -P 200000 0<> "$tmp/sim.in" > "$tmp/$name/sim.log" 2>&1) &
	sim=$!
	wait_new "$tmp/$name/sim.log" 0 "simulator ready" 1 120 "$sim" || die "ibsim did not start"
	echo "=== $name ($gen): Unlink \"$a\"[$pa] - \"$b\"[$pb], $reps times per set-up; ruler on $ruler; OpenSM $(dpkg-query -W -f '${Version}' opensm 2> /dev/null || echo '?')"
	printf "%-6s %4s %10s %10s %7s %24s %11s %s\n" setup rep "gone ms" "final ms" after "fabroute (trap->write)" "sweep Sets" "ReLink = before"
	for setup in ${SETUPS:-osm sweep fast}; do
		run_setup "$name" "$setup" "$window"
	done
	stop "$sim"; sim=
	echo
}

start_setup() {
	d=$1 setup=$2
	if [ "$setup" = osm ]; then
		echo "routing_engine ftree" > "$d/osm.conf"
	else
		fast=1
		[ "$setup" = sweep ] && fast=0
		# shellcheck disable=SC2086
		(cd "$d" && LD_PRELOAD=$umad exec env ${FABROUTED_ENV:-} "$build/fabrouted" --listen 127.0.0.1:0 --db "$d/db" \
			--source opensm --socket "$d/osm.sock" --engine sftree,updn,minhop --repair ftdlr \
			--fast-repair $fast --fast-repair-timeout-ms 1000 --rebalance-delay-s 0 --readback 0 --log-level info \
			${FABROUTED_ARGS:-} > /dev/null 2> "$d/fr.log") &
		fr=$!
		wait_new "$d/fr.log" 0 "API listening on" 1 60 "$fr" || die "fabrouted did not start"
		url=http://127.0.0.1:$(sed -n 's|.*API listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$d/fr.log" | head -1)
		printf 'event_plugin_name fabroute-osm\nevent_plugin_options socket=%s timeout_ms=30000\nrouting_engine ftree\n' \
			"$d/osm.sock" > "$d/osm.conf"
	fi
	cp "$plugin" "$d/libfabroute-osm.so"
	(cd "$d" && LD_PRELOAD=$umad LD_LIBRARY_PATH=$d OSM_CACHE_DIR=$d OSM_TMP_DIR=$d \
		exec opensm -F "$d/osm.conf" -s 0 -d 2 -f "$d/osm.log" > "$d/osm.out" 2>&1) &
	osm=$!
	wait_new "$d/osm.log" 0 "SUBNET UP" 1 600 "$osm" || die "$setup: OpenSM did not bring the subnet up"
	sleep 2
}

# fabroute's own figures in the window: "trap->write ms/blocks", the time of
# the last write, the LFT blocks OpenSM's sweep reported sending and when its
# routing pass ended (it writes after it; 0: no pass in the window)
fabroute_figures() {
	if [ "$2" = osm ]; then echo "- 0 - 0"; return; fi
	ev=$(curl -s -m 10 "$url/api/events?type=repair_fast&since=$1&limit=1000" |
		jq -r --argjson s "$1" '[.events[] | select(.id > $s and .details.trap_to_write_ms != null)] |
			if length > 0 then "\(.[0].details.trap_to_write_ms | . * 10 | round / 10)/\(.[0].details.blocks) \(.[0].time_ms)" else "- 0" end')
	osm_ev=$(curl -s -m 10 "$url/api/events?type=opensm&since=$1&limit=1000" |
		jq -r --argjson s "$1" '[.events[] | select(.id > $s)] |
			"\([.[] | select(.details.event == "routing_done") | .details.lft_blocks_changed // 0] | add // 0) \([.[] | select(.details.event == "pass_result") | .time_ms] | first // 0)"')
	echo "$ev $osm_ev"
}

# phases SINCE T0-US: where fabrouted's time went (its repair_fast event's
# phases), and when the trap reached it after the Unlink
phases() {
	[ "$2" = osm ] && return 0
	curl -s -m 10 "$url/api/events?type=repair_fast&since=$1&limit=1000" |
		jq -r --argjson t0 "$3" 'def r: . * 10 | round / 10;
			[.events[] | select(.details.phases != null)] | if length == 0 then empty else
			.[0] as $e | $e.details as $d | $d.phases as $p |
			"       trap in fabrouted \(($e.time_ms - $d.trap_to_write_ms - $t0 / 1000) | r) ms after the Unlink; queued \($p.queued_ms | r), probe \($p.probe_ms | r), publish \($p.publish_ms | r) (CPU \($p.cpu_ms // 0 | r); repair \($d.repair_ms | r), proof \($d.eval_ms | r)), stage \($p.stage_ms | r) (routes \($p.routes_ms // 0 | r)), write \([$p.write_ms[] | r] | map(tostring) | join("+")) ms; \($p.smps) SMPs" end'
}

last_event() { if [ "$1" = osm ]; then echo 0; else curl -s -m 10 "$url/api/events?limit=1" | jq '.events[-1].id // 0'; fi; }

run_setup() {
	name=$1 setup=$2 window=$3
	d=$tmp/$name/$setup
	mkdir -p "$d"
	start_setup "$d" "$setup"
	for r in $(seq "$reps"); do
		tables "$d/before"
		since=$(last_event "$setup")
		(cd "$d" && LD_PRELOAD=$umad SIM_HOST=$ruler exec "$poll" "$tmp/$name.ibnd" "$a" "$pa" "$b" "$pb" "$window" \
			> "$d/poll.$r" 2> "$d/poll.$r.err") &
		stamp=$!
		wait_new "$d/poll.$r" 0 "^start" 1 120 "$stamp" || die "the ruler did not start"
		t0=$(now_us)
		echo "Unlink \"$a\"[$pa]" > "$tmp/sim.in"
		wait "$stamp" 2> /dev/null || true
		stamp=
		figs=$(fabroute_figures "$since" "$setup")
		awk -v t0="$t0" -v s="$setup" -v r="$r" -v f="$figs" '
			BEGIN { gone = "-"; last = "-" }
			/^clear/ { gone = sprintf("%.1f", ($2 - t0) / 1000) }
			/^change/ { last = sprintf("%.1f", ($2 - t0) / 1000); ch[++n] = $2; ent[n] = $5 }
			/^end/ { round = $4 }
			END {
				split(f, x, " "); w = x[1]; fast_end = x[2] * 1000; pass = x[4] * 1000
				# the sweep writes after its routing pass; before it, what the ruler sees is the write
				from = pass > fast_end ? pass : fast_end + 1000 + 2 * round
				after = "-"
				if (fast_end) { after = 0; for (i = 1; i <= n; i++) if (ch[i] > from) after += ent[i] }
				printf "%-6s %4d %10s %10s %7s %24s %11s", s, r, gone, last, after, w, x[3] }' "$d/poll.$r"
		echo "ReLink \"$a\"[$pa]" > "$tmp/sim.in"
		sleep "$((window / 2 + 2))"	# OpenSM's sweep after the ReLink, and the other end's
		tables "$d/after"
		cmp -s "$d/before" "$d/after" && echo " yes" || echo " no"
		phases "$since" "$setup" "$t0"
	done
	stop "$osm"; osm=
	stop "$fr"; fr=
}

for f in ${FABRICS:-kary43 ft648 m28}; do
	case $f in
	kary43) fabric kary43 "kary-ntree k=4 n=3" l2-00 2 leaf-01 5 3 ;;
	ft648) fabric ft648 "ft648" leaf-03 20 spine-01 4 3 ;;
	m28) fabric m28 "mport-ntree m=28 n=3" leaf-000 15 l2-000 1 20 ;;
	*) die "unknown fabric $f (kary43, ft648, m28)" ;;
	esac
done
cat <<-EOT
	gone ms:   from the Unlink to when no entry of the two end switches points at the dead link
	           (the ruler's own SMP reads); "-": not within the window. OpenSM ignores a
	           switch's trap once it had 10 alike within its aging window, each restarting it
	           (osm_trap_rcv.c): the 6th Unlink of a set-up is the 11th trap 128 of its
	           switches, no sweep follows it and no plugin hears of it (REPS is 5 at most).
	final ms:  to the last change the ruler saw in the two switches (their final tables)
	after:     entries of the two switches changed after the fast path's last write by OpenSM's
	           following sweep (changes the ruler saw after the sweep's routing pass; without
	           one, after two of the ruler's rounds past the write)
	fabroute:  fabrouted's repair_fast event: trap to last write (ms) / LFT blocks written
	sweep Sets: LFT blocks OpenSM's sweep(s) reported setting (LFT_CHANGE events, routing_done)
EOT
