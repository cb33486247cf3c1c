#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Regenerate the fixtures of one case from a real OpenSM run under ibsim:
#   tests/data/osm/regen.sh CASE [NET [extra opensm options]]
# NET defaults to CASE/fabric.net and is copied into CASE/ when it lives
# elsewhere. Needs ibsim, opensm, infiniband-diags and umad2sim (README.md).
set -eu
if [ $# -lt 1 ]; then
	echo "usage: $0 CASE [NET [opensm options]]" >&2
	exit 1
fi
case_dir=$1; shift
net=${1:-$case_dir/fabric.net}; [ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
mkdir -p "$case_dir"
[ "$net" = "$case_dir/fabric.net" ] || cp "$net" "$case_dir/fabric.net"
net=$here/$case_dir/fabric.net
umad=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
tmp=$(mktemp -d)
sim_pid=
cleanup() {
	rc=$?
	if [ -n "$sim_pid" ]; then
		kill "$sim_pid" 2>/dev/null || :
		wait "$sim_pid" 2>/dev/null || :
	fi
	rm -rf "$tmp"
	exit $rc
}
trap cleanup EXIT INT TERM
cd "$tmp"
export IBSIM_SOCKNAME="osmfx$$" OSM_CACHE_DIR="$tmp/dump" OSM_TMP_DIR="$tmp/dump"
mkdir dump
mkfifo sim.in
timeout 120 ibsim -n -s "$net" 0<>sim.in >sim.log 2>&1 &
sim_pid=$!
i=0
until grep -q 'Network simulator ready' sim.log; do
	i=$((i + 1)); [ $i -lt 50 ] || { cat sim.log >&2; exit 1; }
	sleep 0.1
done
# what discovery sees before any SM ran: every LID 0
LD_PRELOAD=$umad timeout 30 ibnetdiscover >ibnetdiscover-presm.out 2>/dev/null
LD_PRELOAD=$umad timeout 60 opensm -o -s 0 -R minhop "$@" -f "$tmp/osm.log" -D 0x43 \
	--dump_files_dir "$tmp/dump" >osm.out 2>&1
grep -q 'Exiting SM' osm.out
LD_PRELOAD=$umad timeout 30 ibnetdiscover >ibnetdiscover.out 2>/dev/null
LD_PRELOAD=$umad timeout 60 dump_fts >dump_fts.out 2>/dev/null
for f in opensm-lfts.dump opensm.fdbs opensm-subnet.lst guid2lid; do
	cp "dump/$f" "$here/$case_dir/$f"
done
cp ibnetdiscover.out "$here/$case_dir/ibnetdiscover.out"
cp ibnetdiscover-presm.out "$here/$case_dir/ibnetdiscover-presm.out"
cp dump_fts.out "$here/$case_dir/dump_fts.out"
echo "$case_dir: opensm -o -s 0 -R minhop $* -D 0x43; $(grep -c . "$here/$case_dir/opensm-subnet.lst") link ends"
