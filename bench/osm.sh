#!/bin/sh
# fabroute inside OpenSM (the fabroute-osm plugin and fabrouted --source
# opensm) against OpenSM's own ftree, on the same simulated fabric in the
# same run: a 3-level fat tree of 2000 CAs / 500 switches (XGFT(3; 20,10,10;
# 1,20,10)) under ibsim.
#
#   bench/osm.sh [BUILD_DIR]     (needs ibsim, umad2sim, opensm 3.3.23, perl, curl, jq)
#   REPS=5 LINKS=4 READBACK=0 FABROUTE_OSM_PLUGIN=PATH bench/osm.sh BUILD_DIR
#   (defaults shown; KEEP=1 keeps the temporary directory; about 90 s)
#
# Three setups, one after the other, on one ibsim:
#   OpenSM ftree      routing_engine ftree, no plugin;
#   fabroute sftree   the plugin + fabrouted --engine sftree,ftree (OpenSM's
#                     routing_engine ftree behind it);
#   fabroute ftree    the same with fabrouted --engine ftree (fabroute's ftree)
#                     and --publish-policy any: ftree leaves switch pairs
#                     without an up/down path unrouted, which the default
#                     policy (proven) refuses, and OpenSM's engines would
#                     route every pass.
# fabrouted runs with --readback 0 (READBACK=1: the default read-back, 1 s
# after each routing pass, which then competes for the CPU; on this fabric a
# read takes 10 s: 20000 SMPs at readback_rate 2000/s).
#
#  1. The routing phase of REPS heavy sweeps (kill -HUP opensm), OpenSM run
#     with -d 2 -D 0x07 (unbuffered; VERBOSE gives the start marker): from
#     "ucast_mgr_route: building routing with '<engine>' ..." (the first of
#     the pass) to "osm_ucast_mgr_process: <engine> tables configured on all
#     switches". For fabroute this holds the plugin's whole round trip,
#     from its engine's build_lid_matrices: the subnet (binary records,
#     fabroute-osm protocol 3), the hop matrices the plugin fills for
#     OpenSM meanwhile, fabrouted's engine, its evaluation (all pairs + CDG
#     + load), the publication, the LFTs (binary), and filling OpenSM's
#     new_lft; fabrouted stores the snapshot in SQLite after it answered.
#     Where the time goes comes from OpenSM's log, the plugin's line
#     ("epoch N routed by fabrouted's E: ... in T ms"), fabrouted's log
#     (stamped on arrival: it has no timestamps of its own) and the time of
#     the reroute event (/api/events, written after the snapshot).
#  2. Unlink in ibsim's console, for LINKS leaf-to-l2 links (ReLink after
#     each), OpenSM restarted with the default log flags (-D 0x03): the time
#     from writing Unlink (or ReLink) to ibsim's console to the first
#     "tables configured" after it, to the next "SUBNET UP" (the LFTs are
#     uploaded then), and for fabroute to fabrouted's "epoch N published".
#     The trap 128 leads to a heavy sweep (rediscovery of 2500 nodes).
#
# Benchmarks print figures, they never fail on time. ibsim, OpenSM and
# fabrouted share the machine's cores: the script prints the CPU time each
# took per setup.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
reps=${REPS:-5}
links=${LINKS:-4}
readback=${READBACK:-0}
me=bench/osm.sh tools="ibsim opensm perl curl jq"
. "$top/bench/osm_lib.sh"
fr_url=""
# now_ms: milliseconds since local midnight (the clock of OpenSM's log lines)
now_ms() { date '+%H %M %S %N' | awk '{ printf "%.3f\n", (($1 * 60 + $2) * 60 + $3) * 1000 + $4 / 1e6 }'; }
# cpu PID: user + system CPU time in ms (0 if gone)
cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.0f\n", ($12 + $13) * 1000 / hz }' \
		"/proc/$1/stat" 2> /dev/null || echo 0
}
# stats: min median max of the numbers on stdin ("-" if none)
stats() {
	sort -g | awk '{ v[++n] = $1 } END {
		if (!n) { printf "%8s %8s %8s", "-", "-", "-"; exit }
		m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "%8.1f %8.1f %8.1f", v[1], m, v[n] }'
}
median() { sort -g | awk '{ v[++n] = $1 } END { if (!n) print "-"; else printf "%.1f\n", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'; }

# OpenSM log lines of interest, as "MS TEXT" (MS since local midnight)
osm_lines() {
	grep -E "building routing with|tables configured on all switches|fabroute: epoch [0-9]+ routed|SUBNET UP|OpenSM's next routing engine" "$1" |
		awk '{ split($3, t, ":"); ms = ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 + $4 / 1000
			sub(/^[^>]*> /, ""); printf "%.3f %s\n", ms, $0 }'
}

# osm_errors LOG: OpenSM's error lines (level 0x01), the plugin's included
# (traps are logged at that level too: left out)
osm_errors() { grep -E '\] 0x01 -> ' "$1" | grep -v 'log_trap_info: Received Generic Notice' | sed 's/^.*\] 0x01 -> /OpenSM: /' || true; }

# busy: CPU time (ms) the whole machine spent busy so far, all cores
busy() { awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%.0f\n", ($2 + $3 + $4 + $7 + $8 + $9) * 1000 / hz }' /proc/stat; }
# wall_ms: a monotonic-enough wall clock in ms
wall_ms() { date +%s%3N; }

# --- the fabric and the simulator ---------------------------------------------
run=$tmp/run
mkdir -p "$run" "$tmp/plugin"
cp "$plugin" "$tmp/plugin/libfabroute-osm.so"
"$fab" gen xgft h=3 m=20,10,10 w=1,20,10 -f ibsim -o "$tmp/ft.net"
ncas=$(grep -c '^Hca' "$tmp/ft.net" || true)
nsw=$(grep -c '^Switch' "$tmp/ft.net" || true)
IBSIM_SOCKNAME="fbo$$x$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
export IBSIM_SOCKNAME
mkfifo "$tmp/sim.in"
(cd "$run" && exec ibsim -s "$tmp/ft.net" -S 1024 -N 8192 -P 60000 0<> "$tmp/sim.in" > "$tmp/sim.log" 2>&1) &
sim=$!
wait_new "$tmp/sim.log" 0 "simulator ready" 1 120 "$sim" || { tail -5 "$tmp/sim.log" >&2; die "ibsim did not start"; }
sim_cmd() { echo "$1" > "$tmp/sim.in"; }

busy0=$(busy)
wall0=$(wall_ms)
echo "=== fabric: xgft h=3 m=20,10,10 w=1,20,10 under ibsim -S 1024 -N 8192 -P 60000: $ncas CAs, $nsw switches"
echo "machine: $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "OpenSM $(dpkg-query -W -f '${Version}' opensm 2> /dev/null || echo '?'), plugin $plugin; $reps heavy sweeps (HUP) and $links links (Unlink + ReLink) per setup; fabrouted read-back $readback"
echo

# osm_start LOG FLAGS CONF: OpenSM on the simulator, until its first SUBNET UP
osm_start() {
	(cd "$run" && LD_PRELOAD=$umad LD_LIBRARY_PATH=$tmp/plugin OSM_CACHE_DIR=$run OSM_TMP_DIR=$run \
		exec opensm -F "$3" -s 0 -d 2 -D "$2" -f "$1" > "$1.out" 2>&1) &
	osm=$!
	wait_new "$1" 0 "SUBNET UP" 1 120 "$osm" || { tail -5 "$1" "$1.out" >&2; die "OpenSM did not bring the subnet up"; }
}
osm_stop() { stop "$osm"; osm=; }

# fr_start DIR CHAIN [POLICY]: fabrouted --source opensm, its stderr stamped on arrival
# ("SEC.USEC-since-midnight LINE") into DIR/fr.log
fr_start() {
	mkfifo "$1/fr.pipe"
	perl -MTime::HiRes=gettimeofday -ne 'BEGIN { $| = 1 } my ($s, $u) = gettimeofday; my @t = localtime($s);
		printf "%.3f %s", ($t[2] * 3600 + $t[1] * 60 + $t[0]) * 1000 + $u / 1000, $_' < "$1/fr.pipe" > "$1/fr.log" &
	stamp=$!
	if [ "$readback" = 1 ]; then pre="env LD_PRELOAD=$umad"; else pre=; fi
	# shellcheck disable=SC2086
	(cd "$run" && exec $pre "$build/fabrouted" --listen 127.0.0.1:0 --db "$1/db" --source opensm \
		--socket "$1/osm.sock" --engine "$2" --publish-policy "${3:-proven}" --readback "$readback" --readback-interval-s 0 \
		--log-level info > /dev/null 2> "$1/fr.pipe") &
	fr=$!
	wait_new "$1/fr.log" 0 "API listening on" 1 30 "$fr" || { cat "$1/fr.log" >&2; die "fabrouted did not start"; }
	fr_url=http://127.0.0.1:$(sed -n 's|.*API listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$1/fr.log" | head -1)
}
fr_stop() { stop "$fr"; fr=; stop "$stamp"; stamp=; }

# the links taken down: leaf uplinks (leaf to l2), spread over the leaves
link_list() {
	awk -v n="$links" 'BEGIN { for (i = 0; i < n; i++) printf "\"leaf-%02d\"[%d]\n", (10 + 23 * i) % 100, 21 + (5 * i) % 20 }'
}

# setup NAME LABEL CHAIN [POLICY] (CHAIN empty: OpenSM alone; POLICY: fabrouted's publish_policy)
setup() {
	name=$1 label=$2 chain=$3 policy=${4:-proven}
	d=$tmp/$name
	mkdir -p "$d"
	c0_sim=$(cpu "$sim")
	if [ -n "$chain" ]; then
		fr_start "$d" "$chain" "$policy"
		cat > "$d/osm.conf" <<-EOC
			event_plugin_name fabroute-osm
			event_plugin_options socket=$d/osm.sock timeout_ms=10000
			routing_engine ftree
		EOC
	else
		echo "routing_engine ftree" > "$d/osm.conf"
	fi

	# 1. heavy sweeps
	osm_start "$d/p1.log" 0x07 "$d/osm.conf"
	for i in $(seq "$reps"); do
		pos=$(size "$d/p1.log")
		kill -HUP "$osm"
		wait_new "$d/p1.log" "$pos" "SUBNET UP" 1 120 "$osm" || die "$label: sweep $i did not end"
		sleep 0.3
	done
	c_osm=$(cpu "$osm")
	osm_stop
	# one line per routing pass: start end engine-used plugin-epoch plugin-ms plugin-line-ms
	osm_lines "$d/p1.log" | awk '
		/building routing with/ { if (!inpass) { inpass = 1; start = $1 } next }
		function w(x) { return x < start - 43200000 ? x + 86400000 : x }
		/fabroute: epoch [0-9]+ routed/ { ep = $4; rtend = w($1)
			rt = substr($0, match($0, / switches in [0-9]+ ms/) + 13); sub(/ .*/, "", rt); next }
		/next routing engine routes this pass/ { fb++; next }
		/tables configured on all switches/ {
			if (inpass) printf "%s %s %s %s %s %s %d\n", start, w($1), $3, ep == "" ? "-" : ep, rt == "" ? "-" : rt, rtend == "" ? "-" : rtend, fb
			inpass = 0; ep = rt = rtend = ""; fb = 0 }' | tail -n +2 > "$d/passes"
	osm_errors "$d/p1.log" > "$d/problems"
	rm -f "$d/p1.log"

	# 2. Unlink / ReLink
	osm_start "$d/p2.log" 0x03 "$d/osm.conf"
	: > "$d/events"
	link_list > "$tmp/links"
	while read -r l; do
		for cmd in Unlink ReLink; do
			pos=$(size "$d/p2.log")
			fpos=$(size "$d/fr.log")
			t0=$(now_ms)
			sim_cmd "$cmd $l"
			wait_new "$d/p2.log" "$pos" "tables configured on all switches" 1 60 "$osm" || die "$label: no routing after $cmd $l"
			wait_new "$d/p2.log" "$pos" "SUBNET UP" 1 60 "$osm" || die "$label: no SUBNET UP after $cmd $l"
			if [ -n "$chain" ]; then
				wait_new "$d/fr.log" "$fpos" "published (opensm)" 1 10 "$fr" || echo "$label: fabrouted published nothing after $cmd $l" >&2
			fi
			sleep 1	# a second trap (the link's other end) may bring a second sweep
			tail -c +$((pos + 1)) "$d/p2.log" > "$d/win.log"
			pub=$(tail -c +$((fpos + 1)) "$d/fr.log" 2> /dev/null | awk '/published \(opensm\)/ { print $1; exit }')
			osm_lines "$d/win.log" | awk -v t0="$t0" -v cmd="$cmd" -v l="$l" -v pub="${pub:--}" '
				function d(x) { x -= t0; if (x < -43200000) x += 86400000; return x }
				/tables configured on all switches/ { n++; if (n == 1) { tc = d($1); eng = $3 } }
				/SUBNET UP/ { if (!up) up = d($1) }
				END { printf "%s %s %.1f %.1f %s %s %d\n", cmd, l, tc, up, pub == "-" ? "-" : sprintf("%.1f", d(pub)), eng, n }' >> "$d/events"
		done
	done < "$tmp/links"
	c_osm=$((c_osm + $(cpu "$osm")))
	osm_stop
	osm_errors "$d/p2.log" >> "$d/problems"
	rm -f "$d/p2.log" "$d/win.log"
	c_fr=0
	if [ -n "$chain" ]; then
		c_fr=$(cpu "$fr")
		curl -s -m 10 "$fr_url/api/events?type=reroute&limit=1000" |
			jq -r '.events[] | "\(.message | capture("^epoch (?<e>[0-9]+):").e) \(.time_ms) \(.details.connected) \(.details.unreachable | "\(.["ca-ca"]) \(.["ca-sw"]) \(.["sw-ca"]) \(.["sw-sw"])")"' \
			> "$d/reroutes" || true
		fr_stop
		grep -E '^[0-9.]+ <[0-4]>|NOT connected|deadlock POSSIBLE' "$d/fr.log" | sed 's/^[0-9.]* /fabrouted: /' >> "$d/problems" || true
	fi
	echo "$(($(cpu "$sim") - c0_sim)) $c_osm $c_fr" > "$d/cpu"
}

setup osm "OpenSM ftree" ""
setup sftree "fabroute sftree" "sftree,ftree"
setup ftree "fabroute ftree" "ftree" any

# --- 1. the routing phase -------------------------------------------------------
echo "--- 1. routing phase of a heavy sweep (kill -HUP), OpenSM -d 2 -D 0x07, ms"
echo "    (\"building routing with\" to \"tables configured on all switches\")"
printf "%-16s %-14s %3s %8s %8s %8s   %s\n" setup "engine used" n min median max "fallbacks to OpenSM"
for s in osm:"OpenSM ftree" sftree:"fabroute sftree" ftree:"fabroute ftree"; do
	n=${s%%:*} label=${s#*:}
	f=$tmp/$n/passes
	used=$(awk '{ print $3 }' "$f" | sort | uniq -c | awk '{ printf "%s%s(%d)", (NR > 1 ? "," : ""), $2, $1 }')
	printf "%-16s %-14s %3d %s   %d\n" "$label" "${used:--}" "$(wc -l < "$f")" \
		"$(awk '{ print $2 - $1 }' "$f" | stats)" "$(awk '{ s += $7 } END { print s + 0 }' "$f")"
done
m_osm=$(awk '{ print $2 - $1 }' "$tmp/osm/passes" | median)
for n in sftree ftree; do
	m=$(awk '$3 == "fabroute" { print $2 - $1 }' "$tmp/$n/passes" | median)
	awk -v a="$m" -v b="$m_osm" -v n="$n" 'BEGIN {
		if (a == "-" || b == "-") { printf "target \"no slower than OpenSM'"'"'s ftree\" (fabroute %s): no figures\n", n; exit }
		printf "target \"no slower than OpenSM'"'"'s ftree\": fabroute %s median %.1f ms vs OpenSM ftree %.1f ms (x%.2f): %s\n",
			n, a, b, a / b, a <= b ? "met" : "NOT met" }'
done
echo
echo "where fabroute's routing phase goes (medians over the passes, ms):"
printf "%-16s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n" setup hop-mat request engine eval publish store answer after "round-tr" "phase"
for n in sftree ftree; do
	d=$tmp/$n
	# fabrouted: epoch stamp engine-ms eval-ms latency-ms
	sed -n 's/^\([0-9.]*\) <[0-9]>epoch \([0-9]*\) published (opensm): [a-z0-9_]* in \([0-9.]*\) ms, evaluated in \([0-9.]*\) ms, .*; \([0-9.]*\) ms after the change.*/\2 \1 \3 \4 \5/p' \
		"$d/fr.log" > "$d/pubs"
	off=$(date +%z | awk '{ s = substr($1, 1, 1) == "-" ? -1 : 1; print s * (substr($1, 2, 2) * 3600 + substr($1, 4, 2) * 60) * 1000 }')
	awk -v off="$off" '{ printf "%s %.3f\n", $1, ($2 + off) % 86400000 }' "$d/reroutes" > "$d/stored"
	awk 'FILENAME == ARGV[1] { pub[$1] = $2; eng[$1] = $3; ev[$1] = $4; lat[$1] = $5; next }
	     FILENAME == ARGV[2] { st[$1] = $2; next }
	     function w(x) { return x < $1 - 43200000 ? x + 86400000 : x }
	     $4 != "-" && ($4 in pub) {
		e = $4; rt0 = $6 - $5; pub[e] = w(pub[e]); if (e in st) st[e] = w(st[e]); job = pub[e] - lat[e]
		print rt0 - $1, job - rt0, eng[e], ev[e], lat[e] - eng[e] - ev[e], (e in st) ? st[e] - pub[e] : "-",
		      $6 - pub[e], $2 - $6, $5, $2 - $1 }' "$d/pubs" "$d/stored" "$d/passes" > "$d/parts"
	printf "%-16s" "fabroute $n"
	for k in 1 2 3 4 5 6 7 8 9 10; do
		printf " %8s" "$(awk -v k=$k '$k != "-" { print $k }' "$d/parts" | median)"
	done
	echo
done
cat <<-EOT
	  hop-mat   OpenSM before the plugin's engine starts (the plugin fills the hop matrices in its round trip)
	  request   the subnet encoded in the plugin, sent, read by fabrouted (to the job's start)
	  engine    fabrouted's engine compute; eval: its evaluation (all pairs, CDG, load)
	  publish   the rest of the job up to the publication; store: the snapshot stored in SQLite, after the answer
	  answer    from the publication: the LFTs (binary) sent, checked and copied into OpenSM's new_lft
	  after     OpenSM after the plugin returned, to "tables configured"
	  round-tr  the plugin's own figure ("tables of N switches in T ms", whole ms)
	  store uses the reroute event's time (ms); the rest fabrouted's log lines stamped on arrival
EOT
echo

# --- 2. Unlink to new tables ----------------------------------------------------
echo "--- 2. from Unlink/ReLink in ibsim's console to new tables, OpenSM -d 2 (default log flags), ms"
printf "%-16s %-7s %3s %-26s %-26s %-26s %s\n" setup event n "to tables configured" "to SUBNET UP (uploaded)" "to epoch published" "engines used, passes"
printf "%-16s %-7s %3s %-26s %-26s %-26s\n" "" "" "" "     min   median      max" "     min   median      max" "     min   median      max"
for s in osm:"OpenSM ftree" sftree:"fabroute sftree" ftree:"fabroute ftree"; do
	n=${s%%:*} label=${s#*:}
	f=$tmp/$n/events
	for c in Unlink ReLink; do
		used=$(awk -v c=$c '$1 == c { print $6 }' "$f" | sort | uniq -c | awk '{ printf "%s%s(%d)", (NR > 1 ? "," : ""), $2, $1 }')
		passes=$(awk -v c=$c '$1 == c { print $7 }' "$f" | sort -n | uniq -c | awk '{ printf "%s%dx%d", (NR > 1 ? "," : ""), $1, $2 }')
		printf "%-16s %-7s %3d %s   %s   %s   %s, %s\n" "$label" "$c" "$(awk -v c=$c '$1 == c' "$f" | wc -l)" \
			"$(awk -v c=$c '$1 == c { print $3 }' "$f" | stats)" \
			"$(awk -v c=$c '$1 == c { print $4 }' "$f" | stats)" \
			"$(awk -v c=$c '$1 == c && $5 != "-" { print $5 }' "$f" | stats)" "${used:--}" "${passes:--}"
	done
done
echo "links: $(link_list | tr '\n' ' ')(leaf to l2; \"passes\" NxP: N events brought P routing passes)"
echo

# --- errors ---------------------------------------------------------------------
echo "--- errors and warnings in the logs (OpenSM level 0x01, fabrouted err/warning, epochs not proven)"
for s in osm:"OpenSM ftree" sftree:"fabroute sftree" ftree:"fabroute ftree"; do
	n=${s%%:*} label=${s#*:}
	printf "%-16s %d line(s)" "$label" "$(wc -l < "$tmp/$n/problems")"
	if [ -s "$tmp/$n/reroutes" ]; then
		awk '{ n++; if ($3 != "true") { k++; for (i = 4; i <= 7; i++) if ($i > m[i]) m[i] = $i } }
			END { printf "; epochs %d, not connected %d", n, k
				if (k) printf " (most unreachable pairs: ca-ca %d, ca-sw %d, sw-ca %d, sw-sw %d)", m[4], m[5], m[6], m[7] }' \
			"$tmp/$n/reroutes"
	fi
	echo
	sed 's/[0-9]\{1,\}/N/g' "$tmp/$n/problems" | sort | uniq -c | sort -rn | head -5 | cut -c1-160 | sed 's/^/    /'
done
echo "(ftree, OpenSM's and fabroute's alike, leaves switch pairs without an up/down path unrouted:"
echo " epochs \"not connected\" with only sw-sw pairs unreachable are that; sftree routes them)"
echo

# --- CPU ----------------------------------------------------------------------------
echo "--- CPU time per setup (both parts), s: ibsim, OpenSM, fabrouted"
for s in osm:"OpenSM ftree" sftree:"fabroute sftree" ftree:"fabroute ftree"; do
	n=${s%%:*} label=${s#*:}
	awk -v l="$label" '{ printf "%-16s ibsim %6.1f   OpenSM %6.1f   fabrouted %6.1f\n", l, $1 / 1000, $2 / 1000, $3 / 1000 }' "$tmp/$n/cpu"
done
ours=$(cat "$tmp"/*/cpu | awk '{ s += $1 + $2 + $3 } END { print s + 0 }')
awk -v b="$(($(busy) - busy0))" -v w="$(($(wall_ms) - wall0))" -v o="$ours" -v c="$(nproc)" 'BEGIN {
	printf "whole run: %.0f s; the machine was %.0f%% busy (of %d cores): ibsim + OpenSM + fabrouted %.0f%%, this script'"'"'s polling and other processes %.0f%%\n",
		w / 1000, 100 * b / w / c, c, 100 * o / w / c, 100 * (b - o) / w / c }'
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
cat <<-EOT
	Caveats: ibsim, OpenSM and fabrouted (and this script's polling) share the $(nproc) cores; OpenSM's
	routing is single-threaded, fabrouted's routing + evaluation run in one worker thread, ibsim
	answers every MAD of the sweep. The routing phases are measured while ibsim is idle; the
	Unlink figures include the rediscovery of the whole fabric (ibsim busy) and the upload. On a
	virtual machine the same work varies by 1.5x between runs: compare setups within one run.
EOT
