#!/bin/sh
# Count test results from automake's .trs files under the given build
# directories; print the failures and "N passed, N failed". Skipped tests are
# reported but count as neither. Exit 1 when a test failed or none ran.
set -eu
pass=0 fail=0 skip=0
for dir in "$@"; do
	for trs in $(find "$dir" -name '*.trs' | sort); do
		p=$(grep -c '^:test-result: PASS' "$trs" || true)
		x=$(grep -c '^:test-result: XFAIL' "$trs" || true)
		s=$(grep -c '^:test-result: SKIP' "$trs" || true)
		f=$(grep -c -E '^:test-result: (FAIL|XPASS|ERROR)' "$trs" || true)
		pass=$((pass + p + x)); skip=$((skip + s)); fail=$((fail + f))
		if [ "$f" -gt 0 ]; then
			echo "FAILED in ${trs%.trs}.log:"
			grep -E '^(not ok|ERROR:)' "${trs%.trs}.log" | sed 's/^/  /' || true
		fi
	done
done
[ "$skip" -gt 0 ] && echo "($skip skipped)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
