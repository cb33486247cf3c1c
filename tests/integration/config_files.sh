#!/bin/sh
# The shipped configuration and unit: fabroute.conf is valid, names every
# key fabrouted knows and nothing else; the unit is well-formed.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
: "${FABROUTED:=$top_builddir/fabrouted}"

conf=$top_srcdir/systemd/fabroute.conf
runs "fabrouted -n accepts the shipped fabroute.conf" 0 "$FABROUTED" -n -c "$conf"
canon=$out
keys_known=$(printf '%s\n' "$canon" | sed 's/ = .*//' | sort | tr '\n' ' ')
keys_file=$(grep -E '^[a-z_]+ *=' "$conf" | sed 's/ *=.*//' | sort | tr '\n' ' ')
is "fabroute.conf names every key, and only those" "$keys_file" "$keys_known"
runs "defaults alone are valid" 0 "$FABROUTED" -n
# the file states the defaults, except the token file it points at
printf '%s\n' "$out" >"$t_tmp/defaults"
printf '%s\n' "$canon" >"$t_tmp/shipped"
diff_keys=$(diff "$t_tmp/defaults" "$t_tmp/shipped" | sed -n 's/^> \([a-z_]*\) = .*/\1/p' | tr '\n' ' ')
is "fabroute.conf differs from the defaults only in token_file" "$diff_keys" "token_file "

unit=$top_builddir/systemd/fabroute.service
[ -f "$unit" ] || make -C "$top_builddir" -s systemd/fabroute.service >/dev/null
like "the unit is Type=notify" "$(cat "$unit")" '^Type=notify$'
like "the unit starts fabrouted with the installed configuration" "$(cat "$unit")" \
	'^ExecStart=/.*/fabrouted -c /.*/fabroute/fabroute.conf$'
like "the unit is hardened" "$(cat "$unit")" '^ProtectSystem=strict$'
if command -v systemd-analyze >/dev/null 2>&1; then
	out=$(systemd-analyze verify --man=no "$unit" 2>&1 | grep -v -e 'fabrouted.*is not executable' \
		-e 'Failed to prepare filename' -e 'Command .* is not executable' -e '^$' || true)
	is "systemd-analyze verify finds nothing wrong" "$out" ""
else
	diag "systemd-analyze is not installed: unit syntax not verified"
fi
done_testing
