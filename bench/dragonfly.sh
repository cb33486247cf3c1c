#!/bin/sh
# dla (Maglione-Mathey et al., "Leveraging InfiniBand Controller to Configure
# Deadlock-Free Routing Engines for Dragonflies") against OpenSM 3.3.23's own engines on the same fully
# connected dragonflies, absolute and relative wiring:
#
#   bench/dragonfly.sh [BUILD_DIR]       (needs ibsim, umad2sim, opensm, jq)
#   SIZES="4,2,2 6,3,3 8,4,4 10,5,5" WIRINGS="absolute relative" \
#   ENGINES="lash dfsssp nue updn minhop" bench/dragonfly.sh BUILD_DIR
#   (defaults: the three smaller sizes, both wirings, all five engines; about
#   2 min; 10,5,5 adds about 3 min, lash and dfsssp taking most of it)
#
# Per fabric (a,p,h: a switches a group, p CAs a switch, h global links a
# switch, a*h+1 groups):
#  - dla: `fabroute compute -e dla` (its routing time is the engine's, from
#    summary.json), evaluated with its SL2VL tables;
#  - "dla/osm" (when the fabroute-osm plugin is built): dla through OpenSM,
#    one pass of `opensm -o -Q` with the plugin and `fabrouted --source
#    opensm --engine dla` on a fresh ibsim, timed like OpenSM's engines
#    (the plugin's round trip to fabrouted, dla and its evaluation of all
#    pairs included); what OpenSM programmed (opensm.fdbs and
#    opensm-sl2vl.dump) evaluated;
#  - each OpenSM engine: one pass of `opensm -o -Q -R ENGINE,no_fallback` on a
#    fresh ibsim (updn with the first switch, g00-sw0, as root through -a),
#    its routing time from its log ("Entering MASTER state" to "ENGINE tables
#    configured on all switches"), its dumps evaluated by `fabroute eval`.
# Columns: VLs the engine needs (lash's "Lanes needed", dfsssp's "Virtual
# Lanes needed" of the VLs it finds available; 1 for the others, 2 for dla,
# which uses 1 SL); whether fabroute's evaluator finds the (channel, VL)
# dependency graph acyclic with switch paths included, and on CA paths only
# (what ibdmchk checks; "-" for engines on several SLs, whose path SLs OpenSM
# keeps in its SA); average and longest CA-to-CA path in switch-to-switch
# links; CA pairs whose path takes two or more global links; the most flows
# on one global and one local channel under uniform all-to-all CA traffic;
# the most pairs on one channel when CA i of every group sends to CA i of
# the next group (group shift +1); routing time.
#
# Printed, never pass or fail. The paper's Table 2 and eqs. (2)-(3) are
# printed beside the figures.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
fab=$build/fabroute
plugin=${FABROUTE_OSM_PLUGIN:-$build/.libs/libfabroute-osm.so}
umad=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
sizes=${SIZES:-4,2,2 6,3,3 8,4,4}
wirings=${WIRINGS:-absolute relative}
engines=${ENGINES:-lash dfsssp nue updn minhop}

die() { echo "bench/dragonfly.sh: $*" >&2; exit 1; }
for t in ibsim opensm jq; do command -v $t > /dev/null 2>&1 || die "$t is missing"; done
[ -e "$umad" ] || die "no umad2sim at $umad"
[ -x "$fab" ] || die "no fabroute in $build"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabroute-bench-df.XXXXXX")
sim= fr=
if [ -r "$plugin" ] && [ -x "$build/fabrouted" ]; then
	mkdir -p "$tmp/plugin"
	cp "$plugin" "$tmp/plugin/libfabroute-osm.so"
else
	plugin=
fi
stop() {
	[ -n "$1" ] || return 0
	kill "$1" 2> /dev/null || true
	i=0
	while kill -0 "$1" 2> /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	kill -9 "$1" 2> /dev/null || true
	wait "$1" 2> /dev/null || true
}
cleanup() {
	stop "$fr"
	stop "$sim"
	if [ "${KEEP:-0}" = 1 ]; then echo "bench/dragonfly.sh: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# microseconds since midnight of an OpenSM log line ("Nov 21 22:36:34 027955 ...")
usec() { awk '{ split($3, t, ":"); printf "%.0f\n", ((t[1] * 60 + t[2]) * 60 + t[3]) * 1e6 + $4 }'; }

# row NAME VLS DEADLOCK JSON ROUTE: one line of the table from an eval --json
row() {
	jq -r --arg n "$1" --arg v "$2" --arg d "$3" --arg t "$5" '.dragonfly as $m |
		[$n, $v, $d, ($m.ca_ca.avg_hops * 1000 | round / 1000 | tostring), ($m.ca_ca.max_hops | tostring),
		 ($m.multi_gc | tostring), ($m.flows.gc.max | tostring), ($m.flows.lc.max | tostring),
		 ($m.shift.max | tostring), $t] | @tsv' "$4" |
		awk -F '\t' '{ printf "  %-8s %-16s %-20s %6s %4s %7s %7s %7s %8s %12s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
}

header() {
	printf "  %-8s %-16s %-20s %6s %4s %7s %7s %7s %8s %12s\n" engine VLs "acyclic all / CA" \
		"avg" max ">=2gc" "gc max" "lc max" "shift+1" "route ms"
}

# verdict DIR ARGS...: "yes" / "NO" for the whole graph and CA paths only
verdict() {
	dir=$1
	shift
	all=$("$fab" eval "$@" --metrics conn --json 2> /dev/null | jq -r '.deadlock.deadlock_free')
	ca=$("$fab" eval "$@" --metrics conn --ca-only --json 2> /dev/null | jq -r '.deadlock.deadlock_free')
	echo "$(yn "$all") / $(yn "$ca")"
}
yn() { if [ "$1" = true ]; then echo yes; else echo NO; fi; }

dla_row() {
	dir=$1
	"$fab" compute -e dla --topology "$dir/fabric.ibnd" -d "$dir/dla" > /dev/null
	ms=$(jq -r '.compute_ms' "$dir/dla/summary.json" | awk '{ printf "%.2f", $1 }')
	set -- --topology "$dir/dla/topology.ibnd" --lfts "$dir/dla/opensm-lfts.dump" \
		--sl2vl "$dir/dla/opensm-sl2vl.dump"
	"$fab" eval "$@" --metrics dragonfly --json > "$dir/dla.json" || true
	vls=$(jq -r '.deadlock.vls_used | map(tostring) | join(",")' "$dir/dla.json")
	row dla "2 (VL $vls, 1 SL)" "$(verdict "$dir" "$@")" "$dir/dla.json" "$ms"
	mh=$("$fab" compute -e minhop --topology "$dir/fabric.ibnd" -d "$dir/fr-minhop" > /dev/null &&
		jq -r '.compute_ms' "$dir/fr-minhop/summary.json" | awk '{ printf "%.2f", $1 }')
	echo "  (fabroute's own minhop on this fabric: $mh ms)" > "$dir/fr-minhop.txt"
}

# fr_start OUT: fabrouted --source opensm --engine dla for the plugin, socket OUT/osm.sock
fr_start() {
	(cd "$1" && exec "$build/fabrouted" --listen 127.0.0.1:0 --db "$1/fr.db" --source opensm \
		--socket "$1/osm.sock" --engine dla --readback 0 > /dev/null 2> "$1/fr.log") &
	fr=$!
	i=0
	until grep -q "API listening on" "$1/fr.log" 2> /dev/null; do
		[ $i -lt 300 ] || die "fabrouted did not start ($1/fr.log)"
		sleep 0.1
		i=$((i + 1))
	done
	printf 'event_plugin_name fabroute-osm\nevent_plugin_options socket=%s timeout_ms=60000\nrouting_engine minhop\n' \
		"$1/osm.sock" > "$1/osm.conf"
}

# osm_run DIR ENGINE: one OpenSM pass on a fresh ibsim; dumps in DIR/ENGINE
# (ENGINE "dla/osm": the plugin and fabrouted's dla)
osm_run() {
	dir=$1 e=$2 out=$1/$2
	mkdir -p "$out"
	conf= engine=$e,no_fallback
	if [ "$e" = dla/osm ]; then
		fr_start "$out"
		conf="-F $out/osm.conf"
		engine=minhop
	fi
	IBSIM_SOCKNAME="fbdf$$$e$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')"
	export IBSIM_SOCKNAME
	(cd "$out" && exec ibsim -n -s "$dir/fabric.net" -S 1024 -N 8192 -P 60000 > sim.log 2>&1) &
	sim=$!
	i=0
	until grep -q "simulator ready" "$out/sim.log" 2> /dev/null; do
		[ $i -lt 1200 ] || die "ibsim did not start ($out/sim.log)"
		sleep 0.1
		i=$((i + 1))
	done
	roots=
	if [ "$e" = updn ]; then
		printf '0x%016x\n' $((0x0002fab100000001)) > "$out/roots"
		roots="-a $out/roots"
	fi
	# shellcheck disable=SC2086
	(cd "$out" && OSM_CACHE_DIR=$out OSM_TMP_DIR=$out LD_PRELOAD=$umad LD_LIBRARY_PATH=$tmp/plugin \
		timeout -k 5 900 opensm -o -s 0 -Q $conf -R "$engine" $roots -f "$out/osm.log" -D 0x43 \
		--dump_files_dir "$out" > "$out/opensm.out" 2>&1) || true
	stop "$fr"
	stop "$sim"
	sim= fr=
}

osm_row() {
	dir=$1 e=$2 out=$1/$2 used=$2
	[ "$e" = dla/osm ] && used=fabroute
	osm_run "$dir" "$e"
	if [ ! -s "$out/opensm.fdbs" ] || ! grep -q "$used tables configured on all switches" "$out/osm.log"; then
		printf "  %-8s did not route (%s)\n" "$e" "$(grep -m1 -i -E 'error|disabling' "$out/osm.log" | cut -c1-80)"
		return
	fi
	t0=$(grep -m1 "Entering MASTER state" "$out/osm.log" | usec)
	t1=$(grep -m1 "$used tables configured on all switches" "$out/osm.log" | usec)
	ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
	set -- --subnet "$out/opensm-subnet.lst" --fdbs "$out/opensm.fdbs"
	"$fab" eval "$@" --metrics dragonfly --json > "$out/eval.json" || true
	case $e in
	dla/osm)
		set -- "$@" --sl2vl "$out/opensm-sl2vl.dump"
		"$fab" eval "$@" --metrics dragonfly --json > "$out/eval.json" || true
		vls=$(jq -r '.deadlock.vls_used | map(tostring) | join(",")' "$out/eval.json")
		row "$e" "2 (VL $vls, 1 SL)" "$(verdict "$dir" "$@")" "$out/eval.json" "$ms" ;;
	lash)
		vls=$(sed -n 's/.*Lanes needed: \([0-9]*\).*/\1/p' "$out/osm.log" | head -1)
		row "$e" "$vls" "-" "$out/eval.json" "$ms" ;;
	dfsssp)
		need=$(sed -n 's/.*Virtual Lanes needed: \([0-9]*\).*/\1/p' "$out/osm.log" | head -1)
		have=$(sed -n 's/.*Virtual Lanes available: \([0-9]*\).*/\1/p' "$out/osm.log" | head -1)
		row "$e" "$need (uses $have)" "-" "$out/eval.json" "$ms" ;;
	*)
		row "$e" 1 "$(verdict "$dir" "$@")" "$out/eval.json" "$ms" ;;
	esac
}

table2() {
	cat << 'EOF'
Maglione-Mathey et al., Table 2 (SLs / VLs on balanced fully connected dragonflies; OpenSM's engines and DLA):
  nodes        72 (4,2,2)  342 (6,3,3)  1056 (8,4,4)  2550 (10,5,5)
  DLA          1 / 2       1 / 2        1 / 2         1 / 2
  LASH         2 / 2       2 / 2        3 / 3         3 / 3
  UPDN         1 / 1       1 / 1        1 / 1         1 / 1
  DFSSSP       8 / 8       8 / 8        8 / 8         8 / 8
EOF
}

echo "dla against OpenSM $(opensm --version 2> /dev/null | sed -n 's/^OpenSM //p' | head -1) under ibsim; $(nproc) cores, $(date -u '+%Y-%m-%d')"
for size in $sizes; do
	a=${size%%,*} rest=${size#*,} p=${size#*,}
	p=${p%%,*} h=${rest#*,}
	g=$((a * h + 1))
	for w in $wirings; do
		dir=$tmp/df-$a-$p-$h-$w
		mkdir -p "$dir"
		"$fab" gen dragonfly a="$a" p="$p" h="$h" wiring="$w" -o "$dir/fabric.ibnd"
		"$fab" convert --to ibsim -o "$dir/fabric.net" "$dir/fabric.ibnd"
		echo
		echo "=== a=$a p=$p h=$h, $w wiring: $g groups, $((g * a)) switches, $((g * a * p)) CAs;" \
			"eq. (2) gc $((a * p * a * p)), eq. (3) lc $((p * p + 2 * a * h * p * p)), group shift +1 bound $((a * p))"
		header
		dla_row "$dir"
		[ -z "$plugin" ] || osm_row "$dir" dla/osm
		for e in $engines; do
			osm_row "$dir" "$e"
		done
		cat "$dir/fr-minhop.txt"
	done
done
echo
table2
