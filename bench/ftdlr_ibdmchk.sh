#!/bin/sh
# ftdlr's repairs checked by a ruler that is not fabroute's: random sets of
# 1, 2 and 3 link faults between switches of the 4-ary 3-tree (fixed seeds,
# `fabroute gen --link-faults N --seed S`), each repaired from an sftree
# base and from an ftdlr base by `fabroute compute -e ftdlr --base` (which
# accepts only a repair its evaluator proves), loaded into ibsim's switches
# by `opensm -R file -U`; the tables read back from the switches (dump_fts)
# must equal the repair, and ibdmchk checks OpenSM's dumps of them for
# credit loops over the CA-to-CA paths and, with -a, over every path
# (switches included; ftdlr bases with their path SLs, -c path-sl).
#
#   bench/ftdlr_ibdmchk.sh [BUILD_DIR]        (needs ibsim, umad2sim, opensm,
#   SETS=5 FAULTS="1 2 3" BASES="sftree ftdlr" bench/ftdlr_ibdmchk.sh build
#                                               ibdmchk, dump_fts)
#
# One line per set, then per base: repairs accepted by fabroute, loaded and
# held by the switches, and ibdmchk's verdicts. An ftree base is not here:
# its routing leaves switch pairs without an up*down* path unrouted, so
# `fabroute compute --base` (proven routings only) refuses its repairs as it
# refuses the base itself (bench_ftdlr accept counts them instead).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
sets=${SETS:-5}
faults=${FAULTS:-1 2 3}
bases=${BASES:-sftree ftdlr}
me=bench/ftdlr_ibdmchk.sh tools="ibsim opensm ibdmchk dump_fts timeout"
. "$top/bench/osm_lib.sh"

# entries FILE: an ibroute-format LFT dump as "switch-guid lid port" lines, sorted
entries() {
	awk '/^Unicast lids/ { sw = ""; for (i = 1; i < NF; i++) if ($i == "guid") sw = tolower($(i + 1)); next }
	     /^0x[0-9a-fA-F]+ [0-9]+/ { if (sw != "" && $2 + 0 != 255) print sw, tolower($1), $2 + 0 }' "$1" | LC_ALL=C sort
}
IBDMCHK_TIMEOUT=120
. "$top/tests/sim/ibdmchk_lib.sh"

# check DIR: load DIR/rep into ibsim running DIR/f.net; prints "held CA ALL"
check() {
	d=$1
	mkdir -p "$d/cache" "$d/dump"
	IBSIM_SOCKNAME="fic$$x$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')"
	export IBSIM_SOCKNAME
	(cd "$d" && exec ibsim -n -s "$d/f.net" -S 1024 -N 8192 -P 60000 > "$d/sim.log" 2>&1) &
	sim=$!
	wait_new "$d/sim.log" 0 "simulator ready" 1 60 "$sim" || die "ibsim did not start"
	cp "$d/rep/guid2lid" "$d/cache/guid2lid"
	if (cd "$d" && OSM_CACHE_DIR=$d/cache OSM_TMP_DIR=$d/cache LD_PRELOAD=$umad timeout 120 \
		opensm -o -s 0 -R file -U "$d/rep/opensm-lfts.dump" -f "$d/osm.log" -d 2 -D 0x43 \
		--dump_files_dir "$d/dump" > "$d/osm.out" 2>&1 < /dev/null) &&
		grep -q 'file tables configured on all switches' "$d/osm.log" &&
		(cd "$d" && LD_PRELOAD=$umad timeout 120 dump_fts > "$d/switches.dump" 2> /dev/null < /dev/null); then
		entries "$d/rep/opensm-lfts.dump" > "$d/ours.txt"
		entries "$d/switches.dump" > "$d/switches.txt"
		if cmp -s "$d/ours.txt" "$d/switches.txt"; then held=yes; else held=no; fi
	else
		held=unloaded
	fi
	stop "$sim"
	sim=
	sl=""
	if [ -s "$d/rep/path-sl" ]; then
		cp "$d/rep/path-sl" "$d/dump/path-sl"
		sl="-c path-sl"
	fi
	# shellcheck disable=SC2086
	ca=$(ibdmchk_in "$d/dump" ibdmchk.out $sl)
	# shellcheck disable=SC2086
	all=$(ibdmchk_in "$d/dump" ibdmchk-all.out -a $sl)
	echo "$held $ca $all"
}

echo "=== 4-ary 3-tree: $sets sets each of $faults link faults, bases $bases; OpenSM $(dpkg-query -W -f '${Version}' opensm 2> /dev/null || echo '?'), ibdmchk (ibutils $(dpkg-query -W -f '${Version}' ibutils 2> /dev/null || echo '?'))"
"$fab" gen kary-ntree k=4 n=3 -o "$tmp/k.ibnd"
for base in $bases; do
	"$fab" compute -e "$base" --topology "$tmp/k.ibnd" -d "$tmp/base-$base" > /dev/null
	eval "n_$base=0 acc_$base=0 held_$base=0 ca_$base=0 all_$base=0"
done
for n in $faults; do
	s=1
	while [ "$s" -le "$sets" ]; do
		seed=$((2100 + 100 * n + s))
		for base in $bases; do
			d=$tmp/$base-$n-$s
			mkdir -p "$d"
			"$fab" gen kary-ntree k=4 n=3 --link-faults "$n" --seed "$seed" -o "$d/f.ibnd"
			"$fab" gen kary-ntree k=4 n=3 --link-faults "$n" --seed "$seed" -f ibsim -o "$d/f.net"
			eval "n_$base=\$((n_$base + 1))"
			if "$fab" compute -e ftdlr --base "$tmp/base-$base" --topology "$d/f.ibnd" -d "$d/rep" > "$d/compute.out" 2>&1; then
				eval "acc_$base=\$((acc_$base + 1))"
				changed=$(sed -n 's/^changed: *\([0-9]*\) LFT entries.*/\1/p' "$d/compute.out")
				# shellcheck disable=SC2046
				set -- $(check "$d")
				[ "$1" != yes ] || eval "held_$base=\$((held_$base + 1))"
				[ "$2" != free ] || eval "ca_$base=\$((ca_$base + 1))"
				[ "$3" != free ] || eval "all_$base=\$((all_$base + 1))"
				printf '%-6s base, %s faults, seed %s: repair accepted, %s entries changed; switches hold it: %s; ibdmchk CA paths: %s, all paths (-a): %s\n' \
					"$base" "$n" "$seed" "$changed" "$1" "$2" "$3"
			else
				printf '%-6s base, %s faults, seed %s: repair refused: %s\n' "$base" "$n" "$seed" \
					"$(grep -v '^$' "$d/compute.out" | tail -n 1)"
			fi
			[ "${KEEP:-0}" = 1 ] || rm -rf "$d"
		done
		s=$((s + 1))
	done
done
for base in $bases; do
	eval "echo \"$base base: \$n_$base sets, repair accepted by fabroute \$acc_$base, held by the switches \$held_$base, ibdmchk no credit loop: CA paths \$ca_$base, all paths \$all_$base\""
done
