#!/bin/sh
# SPDX-License-Identifier: MIT
#
# OpenSM loads the opensm-lfts.dump fabroute writes (TAP).
#
# On the "mixed" fixtures (three switches joined by parallel links; once
# with LMC 0, once with LMC 1), the tables OpenSM's minhop computed are read
# with fmt_lfts_parse(), moved onto the other links of each parallel bundle
# (lfts_tool --shift) and written back with fmt_lfts_write(). A fresh ibsim
# of the same fabric is then configured by `opensm -R file -U OUT.dump`,
# the tables are read back from the simulated switches with dump_fts, and
# must equal OUT.dump entry for entry, and differ from minhop's (so they can
# only come from our file).
#
# Needs ibsim, opensm, infiniband-diags and umad2sim; prints "1..0 # SKIP"
# without them. Uses $top_srcdir and $top_builddir (lfts_tool).
set -u

umad=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
for tool in ibsim opensm dump_fts timeout mktemp; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "1..0 # SKIP ibsim not installed ($tool missing)"
		exit 0
	fi
done
if [ ! -r "$umad" ]; then
	echo "1..0 # SKIP ibsim not installed (no $umad)"
	exit 0
fi

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
lfts_tool=$builddir/tests/sim/lfts_tool
steps=7

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lfts_load.XXXXXX") || exit 1
sim_pid=
stop_sim() {
	if [ -n "$sim_pid" ]; then
		kill "$sim_pid" 2>/dev/null
		wait "$sim_pid" 2>/dev/null
		sim_pid=
	fi
}
trap 'stop_sim; rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT PIPE TERM

n=0
failed=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	failed=1
	echo "not ok $n - $1"
	[ $# -gt 1 ] && [ -s "$2" ] && sed -e 's/^/# /' "$2" | head -n 20
	return 0
}
# The steps of a case after a failed one are reported as failed, not run.
skip_rest() {
	while [ $n -lt "$last" ]; do
		not_ok "$1 (not run after an earlier failure)"
	done
	return 1
}

# "SWITCHGUID LID PORT" per routed entry of a dump in OpenSM's or ibroute's
# layout, sorted; entries with port 255 (no route) are left out.
tables() {
	awk '/^Unicast lids/ {
		sw = ""
		for (i = 1; i < NF; i++) if ($i == "guid") sw = $(i + 1)
		next
	}
	/^0x[0-9a-fA-F]+ [0-9]+/ { if (sw != "" && $2 + 0 != 255) print sw, tolower($1), $2 + 0 }' "$1" |
		LC_ALL=C sort
}

# run_case CASE [opensm options]: the seven steps on tests/data/osm/CASE.
run_case() {
	c=$1
	shift
	fx=$srcdir/tests/data/osm/$c
	last=$((n + steps))
	mkdir "$tmp/$c" "$tmp/$c/cache" "$tmp/$c/dump" || return 1
	cd "$tmp/$c" || return 1

	# 1. our reader and writer, with the routes moved onto parallel links
	if timeout 10 "$lfts_tool" "$fx/ibnetdiscover.out" "$fx/opensm-lfts.dump" out.dump \
		--shift >tool.out 2>tool.err && grep -q '^moved [1-9][0-9]* of ' tool.out; then
		ok "$c: lfts_tool --shift rewrote the minhop tables ($(cat tool.out))"
	else
		not_ok "$c: lfts_tool --shift rewrote the minhop tables" tool.err
		skip_rest "$c: lfts_tool failed"
		return
	fi

	# 2. same entries (LIDs per switch), other ports
	tables out.dump >ours.txt
	tables "$fx/opensm-lfts.dump" >minhop.txt
	cut -d' ' -f1,2 ours.txt >ours.lids
	cut -d' ' -f1,2 minhop.txt >minhop.lids
	if [ -s ours.txt ] && cmp -s ours.lids minhop.lids && ! cmp -s ours.txt minhop.txt; then
		ok "$c: our dump routes minhop's LIDs over other ports ($(wc -l <ours.txt) entries)"
	else
		diff minhop.txt ours.txt >diff.txt
		not_ok "$c: our dump routes minhop's LIDs over other ports" diff.txt
		skip_rest "$c: unusable dump"
		return
	fi

	# 3. a simulator of the same fabric, on its own socket
	IBSIM_SOCKNAME="lftsload$$$c"
	export IBSIM_SOCKNAME
	mkfifo sim.in
	timeout 30 ibsim -n -s "$fx/fabric.net" 0<>sim.in >sim.log 2>&1 &
	sim_pid=$!
	i=0
	while ! grep -q 'Network simulator ready' sim.log 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 50 ] || ! kill -0 "$sim_pid" 2>/dev/null; then
			not_ok "$c: ibsim is up" sim.log
			skip_rest "$c: no simulator"
			return
		fi
		sleep 0.1
	done
	ok "$c: ibsim is up"

	# 4. OpenSM programs the switches from our file; the LIDs come from the
	# fixture's guid2lid so that they match the dump
	cp "$fx/guid2lid" cache/guid2lid
	if OSM_CACHE_DIR=$PWD/cache OSM_TMP_DIR=$PWD/cache LD_PRELOAD=$umad \
		timeout 30 opensm -o -s 0 "$@" -R file -U "$PWD/out.dump" -f "$PWD/osm.log" -d 2 \
		--dump_files_dir "$PWD/dump" >osm.out 2>&1 &&
		grep -q 'file tables configured on all switches' osm.log; then
		ok "$c: opensm${*:+ $*} -R file -U loaded our dump"
	else
		{ grep -E 'ERR|PARSE|tables configured' osm.log; cat osm.out; } >osm.err 2>/dev/null
		not_ok "$c: opensm${*:+ $*} -R file -U loaded our dump" osm.err
		skip_rest "$c: OpenSM did not take the file"
		return
	fi

	# 5. the switches' tables, read back
	if LD_PRELOAD=$umad timeout 30 dump_fts >switches.dump 2>dump_fts.err &&
		grep -q '^Unicast lids' switches.dump; then
		ok "$c: dump_fts read the tables back"
	else
		not_ok "$c: dump_fts read the tables back" dump_fts.err
		skip_rest "$c: no tables read back"
		return
	fi
	stop_sim
	tables switches.dump >switches.txt

	# 6. entry for entry what we wrote
	if cmp -s switches.txt ours.txt; then
		ok "$c: the switches hold our tables entry for entry"
	else
		diff ours.txt switches.txt >diff.txt
		not_ok "$c: the switches hold our tables entry for entry" diff.txt
	fi

	# 7. and not minhop's
	if ! cmp -s switches.txt minhop.txt; then
		ok "$c: the switches' tables differ from OpenSM's minhop tables"
	else
		not_ok "$c: the switches' tables differ from OpenSM's minhop tables"
	fi
}

echo "1..$((2 * steps))"
run_case mixed
run_case mixed-lmc1 -l 1
exit $failed
