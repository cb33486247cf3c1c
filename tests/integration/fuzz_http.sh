#!/bin/sh
# The REST API under random input: fabrouted on a small generated fat tree,
# tests/integration/fuzz_http.py sending random and malformed requests for
# $FUZZ_HTTP_SECONDS seconds (default 20) from seed $FUZZ_HTTP_SEED
# (default 1). The daemon must stay up and answer /api/health, never answer
# 5xx (but the documented 503s), give every error as {"error": {"code",
# "message"}}, log no sanitizer report (build with --enable-sanitizers to
# make that check mean something) and stop cleanly on SIGTERM.
# FUZZ_HTTP_AVOID=long-path,array-body keeps the fuzzer from triggering
# those known findings (to fuzz past them; see fuzz_http.py --help);
# FUZZ_HTTP_KEEP_LOG=FILE keeps the daemon's log.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed"
: "${FUZZ_HTTP_SECONDS:=20}"
: "${FUZZ_HTTP_SEED:=1}"
: "${FUZZ_HTTP_AVOID:=}"
diag "seed $FUZZ_HTTP_SEED, $FUZZ_HTTP_SECONDS s (set FUZZ_HTTP_SEED and FUZZ_HTTP_SECONDS to change)"

# no write rate limit: let the POSTs reach the handlers (the fuzzer itself
# holds valid rerouting requests to about one a second)
d_start fuzz --topology gen:kary-ntree:k=4,n=2 --api-write-rate-limit 0 ||
	{ not_ok "fabrouted starts"; done_testing; }
ok "fabrouted starts on port $D_PORT"
d_wait_epoch 1 || { not_ok "the first epoch is published"; d_stop KILL; done_testing; }

python3 "$top_srcdir/tests/integration/fuzz_http.py" --url "$D_URL" --token-file "$t_tmp/token" \
	--seconds "$FUZZ_HTTP_SECONDS" --seed "$FUZZ_HTTP_SEED" --avoid "$FUZZ_HTTP_AVOID" \
	--results "$t_tmp/results" \
	>"$t_tmp/fuzz.out" 2>&1 && st=0 || st=$?
if [ "$st" -ne 0 ] || [ ! -s "$t_tmp/results" ]; then
	not_ok "the HTTP fuzzer ran (exit $st)"
	sed 's/^/# /' "$t_tmp/fuzz.out"
else
	ok "the HTTP fuzzer ran"
	while IFS= read -r line; do
		case $line in
		"check "*)	# check NAME 0|1 DESCRIPTION
			rest=${line#check }
			name=${rest%% *}
			rest=${rest#* }
			pass=${rest%% *}
			desc=${rest#* }
			if [ "$pass" = 1 ]; then ok "$name: $desc"; else not_ok "$name: $desc"; fi
			;;
		"diag "*) printf '# %s\n' "${line#diag }" ;;	# not diag: dash's echo reads backslashes
		esac
	done <"$t_tmp/results"
fi

alive=0
kill -0 "$D_PID" 2>/dev/null && alive=1
d_stop
if [ $alive = 1 ]; then
	is "SIGTERM: clean exit (status 0)" "$D_STATUS" 0
else
	not_ok "the daemon is still running at the end (it exited with status $D_STATUS)"
fi
if grep -q -e "ERROR: AddressSanitizer" -e "ERROR: LeakSanitizer" -e "runtime error:" "$D_LOG"; then
	not_ok "no sanitizer report in the daemon's log"
	grep -A30 -e "ERROR: AddressSanitizer" -e "ERROR: LeakSanitizer" -e "runtime error:" "$D_LOG" |
		head -60 | sed 's/^/# /'
else
	ok "no sanitizer report in the daemon's log"
fi
if [ -n "${FUZZ_HTTP_KEEP_LOG:-}" ]; then
	cp "$D_LOG" "$FUZZ_HTTP_KEEP_LOG"
	diag "daemon log kept in $FUZZ_HTTP_KEEP_LOG"
fi
done_testing
