#!/bin/sh
# fabroute inside OpenSM at scale: real OpenSM under ibsim on 3-level fat
# trees of 1728 CAs / 432 switches (kary-ntree k=12 n=3), 5488 CAs / 980
# switches (mport-ntree m=28 n=3), 16000 CAs / 2000 switches (m=40),
# 27648 CAs / 2880 switches (m=48, 30528 LIDs: the largest of these trees
# ibsim's LFTs hold) and 43904 CAs / 3920 switches (m=56, 47824 of the
# 49151 unicast LIDs),
# OpenSM's own ftree against the plugin + fabrouted in the same run, on the
# same simulated fabric.
#
#   bench/osm_scale.sh [BUILD_DIR]   (needs ibsim, umad2sim, opensm 3.3.23, perl, curl)
#   REPS=3 SIZES="1728 5488" CHAIN=sftree,ftree TIMEOUT_MS=auto bench/osm_scale.sh BUILD_DIR
#   (defaults shown; SIZES may also name 16000, 27648 and 43904; KEEP=1 keeps
#   the temporary directory; FABROUTE_OSM_PLUGIN=PATH; about 5 minutes for
#   the two default sizes, 30 for 16000 with REPS=5; ibsim needs about 0.2 GB
#   for 16000 CAs; it loads 43904 CAs in 0.54 GB, but its switches hold LFTs
#   of at most 30720 LIDs (ibsim's MaxLinearCap), fewer than the 47824 that
#   fabric uses: that size is then reported as skipped)
#
# Per fabric, two setups one after the other on one ibsim:
#   OpenSM ftree   routing_engine ftree, no plugin;
#   fabroute       the plugin (timeout_ms TIMEOUT_MS: its default, a deadline
#                  by the subnet's size, unless set) + fabrouted --source opensm --engine CHAIN
#                  --readback 0, with routing_engine ftree,updn behind it
#                  (what doc/deploy.md recommends).
# Each setup: OpenSM starts (-d 2 -D 0x07: unbuffered, VERBOSE for the
# start marker) and makes its first sweep, then REPS heavy sweeps (kill -HUP,
# one at a time). Printed, in ms:
#   first sweep   "Entering MASTER state" to the first "tables configured on
#                 all switches" (LID assignment, routing, nothing uploaded yet)
#   routing phase of each heavy sweep: the pass's first "ucast_mgr_route:
#                 building routing with" to "tables configured on all switches"
# OpenSM's ftree builds OpenSM's min-hop matrices inside its phase (for
# multicast); with the plugin, fabroute's phase holds the whole round trip:
# the subnet sent, fabrouted's engine, its proof (every pair, CDG, load) and
# publication before it answers, the LFTs installed, and the hop matrices
# the plugin fills meanwhile. The plugin's own line says where the time went
# ("request", "hop matrices", "waited", "installed", and fabrouted's "read",
# "subnet", engine, "evaluation", "rest"); its fallbacks (any pass that
# OpenSM's next engine routed) are counted, and the engine that configured
# each pass is named.
#
# Benchmarks print figures, they never fail on time. ibsim, OpenSM and
# fabrouted share the machine's cores with whatever else runs: the load
# average is printed before and after each fabric.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
reps=${REPS:-3}
sizes=${SIZES:-1728 5488}
chain=${CHAIN:-sftree,ftree}
timeout_ms=${TIMEOUT_MS:-auto}
me=bench/osm_scale.sh tools="ibsim opensm perl curl"
. "$top/bench/osm_lib.sh"
# stats: min median max of the numbers on stdin ("-" if none)
stats() {
	sort -g | awk '{ v[++n] = $1 } END {
		if (!n) { printf "%7s %7s %7s", "-", "-", "-"; exit }
		m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "%7.0f %7.0f %7.0f", v[1], m, v[n] }'
}
median() { sort -g | awk '{ v[++n] = $1 } END { if (!n) print "-"; else printf "%.0f\n", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'; }
# OpenSM's log lines of interest as "MS TEXT" (MS since local midnight, wrapped past it)
osm_lines() {
	grep -E "Entering MASTER state|building routing with|tables configured on all switches|next routing engine routes this pass|fabroute: epoch [0-9]+ routed" "$1" |
		awk '{ split($3, t, ":"); ms = ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 + $4 / 1000
			if (n++ && ms < last - 43200000) ms += 86400000; last = ms
			sub(/^[^>]*> /, ""); printf "%.3f %s\n", ms, $0 }'
}
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# osm_start DIR CONF: OpenSM on the simulator, until its first SUBNET UP
osm_start() {
	(cd "$tmp/run" && LD_PRELOAD=$umad LD_LIBRARY_PATH=$tmp/plugin OSM_CACHE_DIR=$1 OSM_TMP_DIR=$1 \
		exec opensm -F "$2" -s 0 -d 2 -D 0x07 -f "$1/osm.log" > "$1/osm.out" 2>&1) &
	osm=$!
	wait_new "$1/osm.log" 0 "SUBNET UP" 1 600 "$osm" || { tail -5 "$1/osm.log" >&2; die "OpenSM did not bring the subnet up"; }
}

# fr_start DIR: fabrouted --source opensm, its stderr stamped on arrival
fr_start() {
	mkfifo "$1/fr.pipe"
	perl -MTime::HiRes=gettimeofday -ne 'BEGIN { $| = 1 } my ($s, $u) = gettimeofday; my @t = localtime($s);
		printf "%.3f %s", ($t[2] * 3600 + $t[1] * 60 + $t[0]) * 1000 + $u / 1000, $_' < "$1/fr.pipe" > "$1/fr.log" &
	stamp=$!
	(cd "$tmp/run" && exec "$build/fabrouted" --listen 127.0.0.1:0 --db "$1/db" --source opensm \
		--socket "$1/osm.sock" --engine "$chain" --readback 0 --log-level info > /dev/null 2> "$1/fr.pipe") &
	fr=$!
	wait_new "$1/fr.log" 0 "API listening on" 1 30 "$fr" || { cat "$1/fr.log" >&2; die "fabrouted did not start"; }
}

# setup DIR PLUGIN(0|1): first sweep and REPS heavy sweeps; DIR/passes gets
# "start end engine fallbacks first(0|1)" per routing pass
setup() {
	d=$1
	mkdir -p "$d"
	if [ "$2" = 1 ]; then
		fr_start "$d"
		printf 'event_plugin_name fabroute-osm\nevent_plugin_options socket=%s timeout_ms=%s\nrouting_engine ftree,updn\n' \
			"$d/osm.sock" "$timeout_ms" > "$d/osm.conf"
	else
		echo "routing_engine ftree" > "$d/osm.conf"
	fi
	osm_start "$d" "$d/osm.conf"
	for i in $(seq "$reps"); do
		pos=$(size "$d/osm.log")
		kill -HUP "$osm"
		wait_new "$d/osm.log" "$pos" "SUBNET UP" 1 600 "$osm" || die "sweep $i did not end"
		sleep 0.5
	done
	stop "$osm"; osm=
	if [ "$2" = 1 ]; then
		stop "$fr"; fr=
		stop "$stamp"; stamp=
	fi
	osm_lines "$d/osm.log" | awk '
		/Entering MASTER state/ { master = $1; next }
		/building routing with/ { if (!inpass) { inpass = 1; start = $1 } next }
		/next routing engine routes this pass/ { fb++; next }
		/tables configured on all switches/ {
			if (inpass) printf "%s %s %s %d %d\n", master != "" ? master : start, $1, $3, fb, master != ""
			inpass = 0; fb = 0; master = "" }' > "$d/passes"
	grep -o "tables of [0-9]* switches in .*" "$d/osm.log" > "$d/plugin" || true
}

mkdir -p "$tmp/run" "$tmp/plugin"
cp "$plugin" "$tmp/plugin/libfabroute-osm.so"
echo "machine: $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)); OpenSM $(dpkg-query -W -f '${Version}' opensm 2> /dev/null || echo '?')"
echo "fabrouted --engine $chain --readback 0; plugin timeout_ms $timeout_ms; $reps heavy sweeps (HUP) per setup"

for n in $sizes; do
	simsize="-S 1024 -N 8192 -P 60000"
	case $n in
	1728) gen="kary-ntree k=12 n=3" label="12-ary 3-tree" ;;
	5488) gen="mport-ntree m=28 n=3" label="28-port 3-tree" ;;
	16000) gen="mport-ntree m=40 n=3" label="40-port 3-tree" simsize="-S 4096 -N 32768 -P 200000" ;;
	27648) gen="mport-ntree m=48 n=3" label="48-port 3-tree" simsize="-S 4096 -N 32768 -P 200000" ;;
	43904) gen="mport-ntree m=56 n=3" label="56-port 3-tree" simsize="-S 8192 -N 65536 -P 400000" ;;
	*) die "SIZES: 1728, 5488, 16000, 27648 or 43904, not '$n'" ;;
	esac
	f=$tmp/f$n
	mkdir -p "$f"
	# shellcheck disable=SC2086
	"$fab" gen $gen -f ibsim -o "$f/ft.net"
	ncas=$(grep -c '^Hca' "$f/ft.net" || true)
	nsw=$(grep -c '^Switch' "$f/ft.net" || true)
	IBSIM_SOCKNAME="fbs$$x$n"
	export IBSIM_SOCKNAME
	# shellcheck disable=SC2086
	(cd "$tmp/run" && exec ibsim -n -s "$f/ft.net" $simsize > "$f/sim.log" 2>&1) &
	sim=$!
	wait_new "$f/sim.log" 0 "simulator ready" 1 300 "$sim" || { tail -5 "$f/sim.log" >&2; die "ibsim did not start"; }
	cap=$(sed -n 's/^MaxLinearCap *= *//p' "$f/sim.log")
	if [ -n "$cap" ] && [ $((ncas + nsw)) -ge "$cap" ]; then
		echo
		echo "=== $label ($gen): $ncas CAs, $nsw switches: skipped, ibsim's switches hold LFTs of"
		echo "    at most $cap LIDs (MaxLinearCap) and this fabric uses $((ncas + nsw))"
		stop "$sim"; sim=
		continue
	fi
	echo
	echo "=== $label ($gen): $ncas CAs, $nsw switches; load average $(loadavg)"
	setup "$f/osm" 0
	setup "$f/fab" 1
	stop "$sim"; sim=

	printf "%-15s %-16s %12s   %-32s %s\n" setup "engine used" "first sweep" "heavy sweeps: n     min  median     max" "fallbacks"
	for s in osm:"OpenSM ftree" fab:"fabroute"; do
		k=${s%%:*} name=${s#*:}
		p=$f/$k/passes
		used=$(awk '{ print $3 }' "$p" | sort | uniq -c | awk '{ printf "%s%s(%d)", (NR > 1 ? "," : ""), $2, $1 }')
		first=$(awk '$5 == 1 { printf "%.0f", $2 - $1 }' "$p")
		printf "%-15s %-16s %12s   %15d %s   %9d\n" "$name" "${used:--}" "${first:--}" "$(awk '$5 == 0' "$p" | wc -l)" \
			"$(awk '$5 == 0 { print $2 - $1 }' "$p" | stats)" "$(awk '{ s += $4 } END { print s + 0 }' "$p")"
	done
	mo=$(awk '$5 == 0 { print $2 - $1 }' "$f/osm/passes" | median)
	mf=$(awk '$5 == 0 { print $2 - $1 }' "$f/fab/passes" | median)
	fo=$(awk '$5 == 1 { print $2 - $1 }' "$f/osm/passes")
	ff=$(awk '$5 == 1 { print $2 - $1 }' "$f/fab/passes")
	fb=$(awk '{ s += $4 } END { print s + 0 }' "$f/fab/passes")
	nf=$(awk '$3 != "fabroute"' "$f/fab/passes" | wc -l)
	awk -v a="$mf" -v b="$mo" -v x="$ff" -v y="$fo" -v fb="$fb" -v nf="$nf" 'BEGIN {
		if (a == "-" || b == "-") { print "target: no figures"; exit }
		printf "target \"no slower than OpenSM'"'"'s ftree\": heavy sweeps %.0f vs %.0f ms (x%.2f), first sweep %.0f vs %.0f ms (x%.2f): %s\n",
			a, b, a / b, x, y, (y > 0 ? x / y : 0), (a <= b && x <= y) ? "met" : "NOT met"
		printf "target \"zero fallbacks\": %d fallback(s), %d pass(es) not configured by fabroute: %s\n",
			fb, nf, (fb == 0 && nf == 0) ? "met" : "NOT met" }'
	echo "where fabroute's routing pass goes (the plugin's line; medians over the $(wc -l < "$f/fab/plugin") passes, ms):"
	printf "  %-9s %-9s %-9s %-9s %-9s | fabrouted: %-6s %-6s %-7s %-7s %-6s\n" round-tr request hop-mat waited installed read subnet engine eval rest
	printf "  %-9s %-9s %-9s %-9s %-9s |            %-6s %-6s %-7s %-7s %-6s\n" \
		"$(sed -n 's/.* in \([0-9]*\) ms (.*/\1/p' "$f/fab/plugin" | median)" \
		"$(sed -n 's/.*, request \([0-9]*\) ms.*/\1/p' "$f/fab/plugin" | median)" \
		"$(sed -n 's/.*hop matrices \([0-9]*\) ms.*/\1/p' "$f/fab/plugin" | median)" \
		"$(sed -n 's/.*waited \([0-9]*\) ms.*/\1/p' "$f/fab/plugin" | median)" \
		"$(sed -n 's/.*installed \([0-9]*\) ms.*/\1/p' "$f/fab/plugin" | median)" \
		"$(sed -n 's/.*fabrouted: read \([0-9]*\),.*/\1/p' "$f/fab/plugin" | median)" \
		"$(sed -n 's/.*, subnet \([0-9]*\),.*/\1/p' "$f/fab/plugin" | median)" \
		"$(sed -n 's/.*, subnet [0-9]*, [a-z0-9_]* \([0-9]*\),.*/\1/p' "$f/fab/plugin" | median)" \
		"$(sed -n 's/.*, evaluation \([0-9]*\),.*/\1/p' "$f/fab/plugin" | median)" \
		"$(sed -n 's/.*, rest \([0-9]*\) ms.*/\1/p' "$f/fab/plugin" | median)"
	echo "  the plugin's deadline for these passes: $(sed -n 's/.*(deadline \([0-9]*\) ms.*/\1/p' "$f/fab/plugin" | median) ms"
	echo "  request: the subnet encoded and sent ($(sed -n 's/.*ms, \([0-9]*\) KiB,.*/\1/p' "$f/fab/plugin" | head -1) KiB); hop-mat: the plugin fills OpenSM's hop"
	echo "  matrices while fabrouted works; waited: for the answer after that; installed: checked and copied into new_lft;"
	echo "  fabrouted: read and decode the request, build the fabric, the engine, the proof, the rest (publication, answer)"
	echo "  load average after: $(loadavg)"
done
cat <<-EOT

	Caveats: ibsim, OpenSM and fabrouted share the $(nproc) cores with everything else on the machine; the
	routing phases are measured while ibsim is idle. OpenSM's routing is single-threaded; fabrouted
	routes and proves in its own process, in parallel with the plugin's hop matrices. Compare the
	setups within one run.
EOT
