#!/bin/sh
# The shipped configuration and unit: fabroute.conf is valid, names every
# key fabrouted knows and nothing else; the unit is well-formed.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
: "${FABROUTED:=$top_builddir/fabrouted}"

shipped=$top_builddir/systemd/fabroute.conf
[ -f "$shipped" ] || make -C "$top_builddir" -s systemd/fabroute.conf >/dev/null
unit=$top_builddir/systemd/fabroute.service
[ -f "$unit" ] || make -C "$top_builddir" -s systemd/fabroute.service >/dev/null
confdir=$(sed -n 's|^ExecStart=.* -c \(/.*\)/fabroute.conf$|\1|p' "$unit")
is "the configuration's token file is in the directory the unit reads" \
	"$(sed -n 's/^token_file = //p' "$shipped")" "$confdir/token"
if [ ! -e "$confdir/token" ]; then
	runs "fabrouted -n checks the token file: missing" 3 "$FABROUTED" -n -c "$shipped"
	like "fabrouted -n names the missing token file" "$err" "token_file: .*$confdir/token"
fi
# the shipped file with a token that exists
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$t_tmp/token"
chmod 600 "$t_tmp/token"
conf=$t_tmp/fabroute.conf
sed "s|^token_file = .*|token_file = $t_tmp/token|" "$shipped" >"$conf"
runs "fabrouted -n accepts the shipped fabroute.conf" 0 "$FABROUTED" -n -c "$conf"
canon=$out
printf 'short\n' >"$t_tmp/token"
runs "fabrouted -n refuses a token that is too short" 3 "$FABROUTED" -n -c "$conf"
like "  and says why" "$err" 'at least 16 characters'
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$t_tmp/token"
keys_known=$(printf '%s\n' "$canon" | sed 's/ = .*//' | sort | tr '\n' ' ')
keys_file=$(grep -E '^[a-z_]+ *=' "$conf" | sed 's/ *=.*//' | sort | tr '\n' ' ')
is "fabroute.conf names every key, and only those" "$keys_file" "$keys_known"
man8=$top_builddir/doc/fabrouted.8
[ -f "$man8" ] || make -C "$top_builddir" -s doc/fabrouted.8 >/dev/null
missing=""
for k in $keys_known; do
	grep -q "^\.BI $(printf '%s' "$k" | sed 's/-/\\\\-/g') " "$man8" || missing="$missing $k"
done
is "fabrouted(8) lists every configuration key" "$missing" ""
runs "defaults alone are valid" 0 "$FABROUTED" -n
# the file states the defaults, except the token file it points at
printf '%s\n' "$out" >"$t_tmp/defaults"
printf '%s\n' "$canon" >"$t_tmp/shipped"
diff_keys=$(diff "$t_tmp/defaults" "$t_tmp/shipped" | sed -n 's/^> \([a-z_]*\) = .*/\1/p' | tr '\n' ' ')
is "fabroute.conf differs from the defaults only in source (opensm: never a synthetic fabric) and token_file" \
	"$diff_keys" "source token_file "

like "the unit is Type=notify" "$(cat "$unit")" '^Type=notify$'
like "the unit starts fabrouted with the installed configuration" "$(cat "$unit")" \
	'^ExecStart=/.*/fabrouted -c /.*/fabroute/fabroute.conf$'
like "the unit is hardened" "$(cat "$unit")" '^ProtectSystem=strict$'
like "the unit has a watchdog" "$(cat "$unit")" '^WatchdogSec=[0-9]+s$'
if command -v systemd-analyze >/dev/null 2>&1; then
	out=$(systemd-analyze verify --man=no "$unit" 2>&1 | grep -v -e 'fabrouted.*is not executable' \
		-e 'Failed to prepare filename' -e 'Command .* is not executable' -e '^$' || true)
	is "systemd-analyze verify finds nothing wrong" "$out" ""
else
	diag "systemd-analyze is not installed: unit syntax not verified"
fi

# make install into a staging root: the paths the unit, the configuration and the docs agree on
root=$t_tmp/root
if make -C "$top_builddir" -s install DESTDIR="$root" >"$t_tmp/install.log" 2>&1; then
	ok "make install DESTDIR=..."
	is "the configuration directory is 0750" "$(stat -c %a "$root$confdir")" 750
	ok_files=1
	for f in "$confdir/fabroute.conf" "$confdir/opensm-fabroute.conf"; do
		[ -f "$root$f" ] || { ok_files=0; diag "missing $f"; }
	done
	[ "$ok_files" = 1 ] && ok "the configuration and the opensm.conf lines are installed" ||
		not_ok "the configuration and the opensm.conf lines are installed"
	is "the installed token_file is under the unit's configuration directory" \
		"$(sed -n 's/^token_file = //p' "$root$confdir/fabroute.conf")" "$confdir/token"
	like "doc/*.md, the OpenAPI document and LICENSE are installed" \
		"$(cd "$root" && find . -path '*/doc/fabroute/*' -type f | sed 's|.*/||' | sort | tr '\n' ' ')" \
		'LICENSE README.md api.md deploy.md eval-json.md hosts.md openapi.json osm-protocol.md repair.md store.md'
	for d in opensm.service.d opensm@.service.d; do
		like "the OpenSM ordering drop-in $d/fabroute.conf is installed beside the unit" \
			"$(cat "$(dirname "$(find "$root" -name fabroute.service | head -1)")/$d/fabroute.conf" 2>/dev/null)" \
			'^After=fabroute.service$'
	done
	is "no libtool .la file is installed" "$(cd "$root" && find . -name '*.la' | tr '\n' ' ')" ""
	like "the Grafana dashboard and the alert rules are installed" \
		"$(cd "$root" && find . -name 'fabroute.json' -o -name 'fabroute.rules.yml' | sort | tr '\n' ' ')" \
		'grafana/fabroute.json .*prometheus/fabroute.rules.yml'
else
	not_ok "make install DESTDIR=..."
	sed 's/^/# /' "$t_tmp/install.log"
fi
done_testing
