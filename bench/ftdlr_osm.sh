#!/bin/sh
# Local repair under OpenSM (papers/001's "repair now"): one inter-switch link
# taken down in ibsim, then back, on the 4-ary 3-tree and the 648-port tree,
# OpenSM alone (routing_engine ftree: it falls back to minhop on a degraded
# tree) against OpenSM with the fabroute-osm plugin and fabrouted --source
# opensm --engine sftree --repair ftdlr (no rebalance during the run).
#
#   bench/ftdlr_osm.sh [BUILD_DIR]   (needs ibsim, umad2sim, opensm 3.3.23, perl, curl, jq)
#   REPS=3 KEEP=1 bench/ftdlr_osm.sh BUILD_DIR    (defaults: REPS=3; about 2 minutes)
#
# For each Unlink and ReLink written to ibsim's console: the time to the
# first "tables configured on all switches" after it and to the next "SUBNET
# UP" (the LFTs are uploaded by then: the last LFT write), read from
# OpenSM's log (-d 2, microsecond stamps); the LFT entries, 64-LID blocks
# and switches that differ between OpenSM's opensm-lfts.dump before and
# after (OpenSM sends one SMP per block that changed, set_lft_block), and
# whether the tables after ReLink are the ones before Unlink byte for byte.
# With fabroute, fabrouted's repair event gives its own figures too.
# Benchmarks print figures, they never fail on time; ibsim, OpenSM and
# fabrouted share the machine's cores.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
reps=${REPS:-3}
me=bench/ftdlr_osm.sh tools="ibsim opensm perl curl jq"
. "$top/bench/osm_lib.sh"
# now_ms: milliseconds since local midnight (the clock of OpenSM's log lines)
now_ms() { date '+%H %M %S %N' | awk '{ printf "%.3f\n", (($1 * 60 + $2) * 60 + $3) * 1000 + $4 / 1e6 }'; }
# first_ms LOG PATTERN: the stamp (ms since midnight) of PATTERN's first line in LOG
first_ms() {
	grep -m1 -- "$2" "$1" | awk '{ split($3, t, ":"); printf "%.3f\n", ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 + $4 / 1000 }'
}
# blocks A B: "entries blocks switches" that differ between two opensm-lfts.dump files
blocks() {
	awk 'function hex(h,   i, v) { v = 0; h = tolower(substr(h, 3))
		for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return v }
	     FNR == 1 { f++ }
	     /^Unicast lids/ { sw = $0; sub(/ \(.*/, "", sw); sub(/.*guid /, "", sw); next }
	     /^0x/ { lid = hex($1); port = $2; if (f == 1) a[sw, lid] = port; else b[sw, lid] = port; k[sw, lid] = 1 }
	     END { for (x in k) if (a[x] != b[x]) { e++; split(x, p, SUBSEP); blk[p[1], int(p[2] / 64)] = 1; s[p[1]] = 1 }
		   for (x in blk) nb++; for (x in s) ns++; printf "%d %d %d\n", e, nb, ns }' "$1" "$2"
}

# fabric NAME GEN-ARGS LINK: one fabric, both setups
fabric() {
	name=$1 gen=$2 link=$3
	# shellcheck disable=SC2086
	"$fab" gen $gen -f ibsim -o "$tmp/$name.net"
	IBSIM_SOCKNAME="fbd$$x$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
	export IBSIM_SOCKNAME
	rm -f "$tmp/sim.in"
	mkfifo "$tmp/sim.in"
	mkdir -p "$tmp/$name"
	(cd "$tmp/$name" && exec ibsim -s "$tmp/$name.net" -S 1024 -N 8192 -P 60000 0<> "$tmp/sim.in" > "$tmp/$name/sim.log" 2>&1) &
	sim=$!
	wait_new "$tmp/$name/sim.log" 0 "simulator ready" 1 60 "$sim" || die "ibsim did not start"
	echo "=== $name ($gen): Unlink and ReLink $link, $reps times each, OpenSM $(dpkg-query -W -f '${Version}' opensm 2> /dev/null || echo '?')"
	printf "%-22s %-7s %10s %10s %18s %14s %s\n" setup event "tables ms" "uploaded ms" "entries/blocks/sw" "fabrouted ms" "ReLink = before"
	for setup in osm fabroute; do
		run_setup "$name" "$setup" "$link"
	done
	stop "$sim"; sim=
	echo
}

run_setup() {
	name=$1 setup=$2 link=$3
	d=$tmp/$name/$setup
	mkdir -p "$d"
	if [ "$setup" = fabroute ]; then
		(cd "$d" && exec "$build/fabrouted" --listen 127.0.0.1:0 --db "$d/db" --source opensm \
			--socket "$d/osm.sock" --engine sftree,updn,minhop --repair ftdlr \
			--rebalance-delay-s 0 --readback 0 --log-level info > /dev/null 2> "$d/fr.log") &
		fr=$!
		wait_new "$d/fr.log" 0 "API listening on" 1 30 "$fr" || die "fabrouted did not start"
		url=http://127.0.0.1:$(sed -n 's|.*API listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$d/fr.log" | head -1)
		printf 'event_plugin_name fabroute-osm\nevent_plugin_options socket=%s timeout_ms=10000\nrouting_engine ftree\n' \
			"$d/osm.sock" > "$d/osm.conf"
		label="OpenSM + fabroute"
	else
		echo "routing_engine ftree" > "$d/osm.conf"
		label="OpenSM ftree alone"
	fi
	cp "$build/.libs/libfabroute-osm.so" "$d/" 2> /dev/null || cp "$plugin" "$d/libfabroute-osm.so"
	(cd "$d" && LD_PRELOAD=$umad LD_LIBRARY_PATH=$d OSM_CACHE_DIR=$d OSM_TMP_DIR=$d \
		exec opensm -F "$d/osm.conf" -s 0 -d 2 -D 0x43 --dump_files_dir "$d" -f "$d/osm.log" > "$d/osm.out" 2>&1) &
	osm=$!
	wait_new "$d/osm.log" 0 "SUBNET UP" 1 120 "$osm" || die "$label: OpenSM did not bring the subnet up"
	sleep 1
	for r in $(seq "$reps"); do
		cp "$d/opensm-lfts.dump" "$d/before.dump"
		for cmd in Unlink ReLink; do
			pos=$(size "$d/osm.log")
			fpos=$(size "$d/fr.log")
			t0=$(now_ms)
			echo "$cmd $link" > "$tmp/sim.in"
			wait_new "$d/osm.log" "$pos" "SUBNET UP" 1 60 "$osm" || die "$label: no SUBNET UP after $cmd"
			sleep 1.5	# the link's other end may trap too: let a second sweep end
			tail -c +$((pos + 1)) "$d/osm.log" > "$d/win.log"
			tc=$(first_ms "$d/win.log" "tables configured on all switches")
			up=$(first_ms "$d/win.log" "SUBNET UP")
			eng=$(grep -m1 "tables configured on all switches" "$d/win.log" | sed 's/.*osm_ucast_mgr_process: \([a-z0-9_]*\) tables.*/\1/')
			fms=-
			if [ "$setup" = fabroute ]; then
				fms=$(tail -c +$((fpos + 1)) "$d/fr.log" | sed -n 's/.*published (opensm): \([a-z]*\) in \([0-9.]*\) ms, evaluated in \([0-9.]*\) ms.*/\1:\2+\3/p' | head -1)
			fi
			if [ "$cmd" = Unlink ]; then
				chg=$(blocks "$d/before.dump" "$d/opensm-lfts.dump")
				cp "$d/opensm-lfts.dump" "$d/after.dump"
				same=-
			else
				chg=$(blocks "$d/after.dump" "$d/opensm-lfts.dump")
				cmp -s "$d/before.dump" "$d/opensm-lfts.dump" && same=yes || same=no
			fi
			awk -v l="$label" -v c="$cmd ${eng:-?}" -v t0="$t0" -v tc="${tc:-0}" -v up="${up:-0}" \
			    -v chg="$chg" -v f="${fms:--}" -v s="$same" 'BEGIN {
				split(chg, x, " ")
				printf "%-22s %-7s %10.1f %10.1f %18s %14s %s\n", l, c, tc - t0, up - t0,
					x[1] "/" x[2] "/" x[3], f, s }'
		done
	done
	if [ "$setup" = fabroute ]; then
		curl -s -m 10 "$url/api/events?type=repair&limit=100" |
			jq -r '.events[] | "    repair event: \(.message)"' | tail -2
	fi
	stop "$osm"; osm=
	stop "$fr"; fr=
}

fabric kary43 "kary-ntree k=4 n=3" '"l2-00"[2]'
fabric ft648 "ft648" '"leaf-03"[20]'
cat <<-EOT
	tables ms:    from writing Unlink/ReLink to ibsim's console to OpenSM's first "tables
	              configured on all switches" (engine named after the event: OpenSM's own
	              engine, or fabroute when the plugin routed)
	uploaded ms:  to the next "SUBNET UP": the LFTs are in the switches (the last LFT write)
	entries/blocks/sw: what differs between OpenSM's LFT dumps before and after: OpenSM
	              sends one SMP per changed 64-LID block
	fabrouted ms: the engine that published and its compute + proof time
	ReLink = before: the tables after ReLink are those before Unlink, byte for byte
EOT
