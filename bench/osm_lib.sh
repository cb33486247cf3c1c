# shellcheck shell=sh
# What bench/osm.sh, bench/osm_scale.sh and bench/ftdlr_osm.sh share:
# checks of the tools, a temporary directory, stopping ibsim, OpenSM and
# fabrouted, waiting for log lines. Sourced after the script sets $me (its
# name), $build and $tools (the commands it needs); sets $plugin, $umad, $simto,
# $fab and $tmp, and stops $osm, $fr, $stamp and $sim at exit.
plugin=${FABROUTE_OSM_PLUGIN:-$build/.libs/libfabroute-osm.so}
umad=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
# preloaded before umad2sim where two OpenSMs meet: the kernel's MAD timeouts (tests/sim/sim_timeout.c)
simto=$build/tests/sim/.libs/libsimtimeout.so
fab=$build/fabroute

die() { echo "$me: $*" >&2; exit 1; }
for t in $tools; do command -v "$t" > /dev/null 2>&1 || die "$t is missing"; done
[ -e "$umad" ] || die "no umad2sim at $umad"
[ -r "$plugin" ] || die "no OpenSM plugin at $plugin (set FABROUTE_OSM_PLUGIN)"
{ [ -x "$build/fabrouted" ] && [ -x "$fab" ]; } || die "no fabrouted/fabroute in $build"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabroute-$(basename "$me" .sh).XXXXXX")
sim="" osm="" fr="" stamp=""

# stop PID: TERM, up to 5 s, then KILL
stop() {
	[ -n "$1" ] || return 0
	kill "$1" 2> /dev/null || true
	i=0
	while kill -0 "$1" 2> /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	kill -9 "$1" 2> /dev/null || true
	wait "$1" 2> /dev/null || true
}
# OpenSM first: it waits on the simulator while it exits
cleanup() {
	stop "$osm"; osm=
	stop "$fr"; fr=
	stop "$stamp"; stamp=
	stop "$sim"; sim=
	if [ "${KEEP:-0}" = 1 ]; then echo "$me: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM

# size FILE: its length in bytes (0 if missing)
size() { if [ -e "$1" ]; then wc -c < "$1" | tr -d ' '; else echo 0; fi; }
# wait_new FILE POS PATTERN N TIMEOUT_S [PID]: until FILE holds N lines
# matching PATTERN after byte POS; 1 on timeout or if PID is gone.
wait_new() {
	i=0
	while :; do
		n=$(tail -c +$(($2 + 1)) "$1" 2> /dev/null | grep -c -- "$3" || true)
		[ "${n:-0}" -lt "$4" ] || return 0
		[ $i -lt $(($5 * 10)) ] || { echo "$me: no '$3' (x$4) in $1 after $5 s" >&2; return 1; }
		if [ -n "${6:-}" ] && ! kill -0 "$6" 2> /dev/null; then
			echo "$me: process $6 exited" >&2
			return 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
}
