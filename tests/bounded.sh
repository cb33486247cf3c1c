#!/bin/sh
# bounded.sh COMMAND [ARGS...]: run one test, bounded in time, for the TAP driver.
# The test runs in a process group of its own under timeout(1): past
# $T_LIMIT_S seconds (900 unless set) the whole group gets SIGTERM (the test's
# own cleanup runs), and SIGKILL 15 s later. Its TAP output goes to a file that
# is printed when it ends, so that a process it left behind holding its
# standard output (a daemon, a browser helper) cannot keep the driver's pipe
# open and the test suite waiting for ever. A test that ran out of time ends
# with "Bail out!", which the driver counts as an error.
limit=${T_LIMIT_S:-900}
out=$(mktemp "${TMPDIR:-/tmp}/fabroute-tap.XXXXXX") || exit 99
timeout -k 15 "$limit" "$@" >"$out"
st=$?
cat "$out"
rm -f "$out"
if [ $st -eq 124 ] || [ $st -eq 137 ]; then
	echo "Bail out! $* ran out of time: stopped after $limit s (T_LIMIT_S)"
fi
exit $st
