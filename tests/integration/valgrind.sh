#!/bin/sh
# The integration suites again with fabrouted under valgrind: every daemon
# run must end with no invalid access, no use of uninitialised memory and
# no leak (definitely or indirectly lost); and once under helgrind (the
# http_strict suite: API threads, the reroute worker, the reload thread, the
# connection guard), with no data race and no lock misuse (helgrind.supp
# names the two reports from inside libmicrohttpd and p11-kit).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
command -v valgrind >/dev/null 2>&1 || skip_all "valgrind is not installed"

vg=$t_tmp/vg
mkdir -p "$vg"
for suite in api restart http_strict hg:http_strict; do
	name=memcheck
	tool="--leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --track-origins=yes"
	case $suite in hg:*) suite=${suite#hg:}; name=helgrind; tool="--tool=helgrind --suppressions=$top_srcdir/tests/integration/helgrind.supp"; vg=$t_tmp/hg; mkdir -p "$vg" ;; esac
	FABROUTED_WRAPPER="valgrind --quiet --error-exitcode=99 $tool --log-file=$vg/$suite.%p" \
		T_SLOW=20 sh "$top_srcdir/tests/integration/$suite.sh" >"$t_tmp/$suite.tap" 2>&1 && st=0 || st=$?
	fails=$(grep -c '^not ok' "$t_tmp/$suite.tap")
	passes=$(grep -c '^ok' "$t_tmp/$suite.tap")
	if [ "$st" -eq 0 ] && [ "$fails" -eq 0 ]; then
		ok "$suite suite under $name: $passes checks pass"
	else
		not_ok "$suite suite under $name"; grep '^not ok' "$t_tmp/$suite.tap" | sed 's/^/# /'
	fi
	n=0
	for log in "$vg/$suite".*; do
		[ -e "$log" ] || continue
		n=$((n + 1))
		if [ -s "$log" ]; then
			not_ok "$suite ($name): daemon run $n is clean"; head -40 "$log" | sed 's/^/# /'
		else
			ok "$suite ($name): daemon run $n is clean"
		fi
	done
	[ "$n" -gt 0 ] && ok "$suite: $n daemon runs checked" || not_ok "$suite: daemon runs checked"
done
done_testing
