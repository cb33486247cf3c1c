# Shared by the shell tests: TAP output and running ibsim.
# Source it; the harness sets $top_srcdir, $top_builddir and $FABROUTE.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
: "${FABROUTE:=$top_builddir/fabroute}"
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
# Preloaded before umad2sim: the kernel's MAD timeouts, which ibsim does not simulate (tests/sim/sim_timeout.c)
SIM_TIMEOUT=${SIM_TIMEOUT:-$top_builddir/tests/sim/.libs/libsimtimeout.so}

t_count=0
t_failed=0

plan() { echo "1..$1"; }
ok() { t_count=$((t_count + 1)); echo "ok $t_count - $*"; }
not_ok() { t_count=$((t_count + 1)); t_failed=$((t_failed + 1)); echo "not ok $t_count - $*"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
diag() { echo "# $*"; }
# done_testing: print the plan at the end and exit with the right status.
done_testing() { echo "1..$t_count"; [ "$t_failed" -eq 0 ]; exit $?; }

# need CMD...: commands scripts/setup.sh installs; a missing one fails the
# test file (it is not skipped: a missing set-up step must show).
need() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 && continue
		not_ok "$c is installed (scripts/setup.sh installs it)"
		done_testing
	done
}

# is DESC GOT WANT
is() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; diag "got '$2', want '$3'"; fi
}
# isnt DESC GOT UNWANTED
isnt() {
	if [ "$2" != "$3" ]; then ok "$1"; else not_ok "$1"; diag "got '$2', want anything else"; fi
}
# like DESC TEXT PATTERN (grep -E)
like() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"; else not_ok "$1"; diag "'$2' !~ /$3/"; fi
}
# runs DESC WANT_STATUS CMD... : runs CMD, records its output in $out and stderr in $err
runs() {
	desc=$1 want=$2
	shift 2
	out=$("$@" 2>"$t_tmp/stderr") && st=0 || st=$?
	err=$(cat "$t_tmp/stderr")
	if [ "$st" -eq "$want" ]; then ok "$desc"; else not_ok "$desc"; diag "exit $st, want $want: $err"; fi
}

t_tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabroute-test.XXXXXX")
t_sim_pids=""
# every curl of a test is bounded in time (a curl that sets -m keeps its own)
printf 'max-time = %s\n' $((120 * ${T_SLOW:-1})) >"$t_tmp/.curlrc"
CURL_HOME=$t_tmp
export CURL_HOME
# t_alive PID...: one of them still runs
t_alive() { for p in "$@"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
t_cleanup() {
	# the simulator last: an OpenSM that stops asks ibsim to clear its SM flag, and waits for the
	# answer for ever once ibsim is gone; what has not stopped 3 s later is killed
	t_left=""
	for p in $t_sim_pids; do [ "$p" = "${SIM_PID:-}" ] || { kill "$p" 2>/dev/null && t_left="$t_left $p"; }; done
	i=0
	while [ $i -lt 30 ] && t_alive $t_left; do i=$((i + 1)); sleep 0.1; done
	for p in $t_left; do kill -9 "$p" 2>/dev/null; done
	[ -z "${SIM_PID:-}" ] || kill "$SIM_PID" 2>/dev/null
	if [ "${T_KEEP:-0}" = 1 ]; then echo "# kept $t_tmp" >&2; else rm -rf "$t_tmp"; fi
}
trap t_cleanup EXIT INT TERM

have_ibsim() {
	command -v ibsim >/dev/null 2>&1 && command -v ibnetdiscover >/dev/null 2>&1 &&
		[ -e "$UMAD2SIM" ]
}

# sim_start NETFILE [console]: start ibsim on NETFILE with a socket name of
# its own, wait until it is ready. Sets IBSIM_SOCKNAME (exported) and
# SIM_PID. With "console", ibsim reads commands from a FIFO: sim_cmd sends one.
sim_start() {
	IBSIM_SOCKNAME="fr$$x${t_count}x$(od -An -N3 -tx1 /dev/urandom | tr -d ' ')"
	export IBSIM_SOCKNAME
	if [ "${2:-}" = console ]; then
		rm -f "$t_tmp/sim.in"
		mkfifo "$t_tmp/sim.in"
		( cd "$t_tmp" && exec ibsim -s "$1" -S 1024 -N 8192 -P 60000 0<>"$t_tmp/sim.in" \
			>"$t_tmp/sim.log" 2>&1 ) &
	else
		( cd "$t_tmp" && exec ibsim -n -s "$1" -S 1024 -N 8192 -P 60000 >"$t_tmp/sim.log" 2>&1 ) &
	fi
	SIM_PID=$!
	t_sim_pids="$t_sim_pids $SIM_PID"
	i=0
	while ! grep -q "simulator ready" "$t_tmp/sim.log" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$SIM_PID" 2>/dev/null; then
			diag "ibsim did not start:"; sed 's/^/# /' "$t_tmp/sim.log"
			return 1
		fi
		sleep 0.1
	done
}
sim_cmd() { echo "$1" >"$t_tmp/sim.in"; }

sim_stop() {
	kill "$SIM_PID" 2>/dev/null
	wait "$SIM_PID" 2>/dev/null
	return 0
}

# lft_entries DUMP: the routed entries of an ibroute-format LFT dump, one
# "switch-guid lid port" line each, sorted (0xff entries left out).
lft_entries() {
	awk '/^Unicast lids/ {
		sw = ""
		for (i = 1; i < NF; i++) if ($i == "guid") sw = tolower($(i + 1))
		next
	}
	/^0x[0-9a-fA-F]+ [0-9]+/ { if (sw != "" && $2 + 0 != 255) print sw, tolower($1), $2 + 0 }' "$1" |
		LC_ALL=C sort
}

# sim_run CMD...: run an InfiniBand tool against the running ibsim.
sim_run() {
	( cd "$t_tmp" && LD_PRELOAD="$UMAD2SIM" timeout 60 "$@" )
}
