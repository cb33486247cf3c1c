#!/bin/sh
# fabroute.service beside Debian's own OpenSM units (opensm.service and the
# per-port opensm@GUID.service it starts), checked by systemd-analyze
# verify: no ordering cycle when all of them start in one boot transaction
# with the network targets, and both OpenSM units are ordered after
# fabrouted by the drop-ins. The same check on a unit still ordered
# After=network.target must find the cycle (the check can fail).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
: "${FABROUTED:=$top_builddir/fabrouted}"
need systemd-analyze

debian=/lib/systemd/system
for u in opensm.service opensm@.service; do
	[ -f "$debian/$u" ] || { not_ok "Debian's $u is installed (package opensm, scripts/setup.sh)"; done_testing; }
done
unit=$top_builddir/systemd/fabroute.service
[ -f "$unit" ] || make -C "$top_builddir" -s systemd/fabroute.service >/dev/null
guid=0x0002c90300000001

# units DIR FABROUTE_UNIT: Debian's OpenSM units unchanged, ours with the
# built fabrouted as ExecStart (verify wants an executable), the drop-ins
# as installed, a target that starts them all with the network targets.
units() {
	mkdir -p "$1/opensm.service.d" "$1/opensm@.service.d"
	sed "s|^ExecStart=[^ ]*|ExecStart=$FABROUTED|" "$2" >"$1/fabroute.service"
	cp "$debian/opensm.service" "$debian/opensm@.service" "$1/"
	cp "$top_srcdir/systemd/opensm.service.d/fabroute.conf" "$1/opensm.service.d/"
	cp "$top_srcdir/systemd/opensm@.service.d/fabroute.conf" "$1/opensm@.service.d/"
	all="fabroute.service opensm.service opensm@$guid.service network.target network-online.target"
	printf '[Unit]\nDescription=all of them\nWants=%s\nAfter=%s\n' "$all" "$all" >"$1/fabroute-check.target"
	mkdir -p "$1/multi-user.target.wants" "$1/network-online.target.wants"
	ln -sf ../fabroute.service "$1/multi-user.target.wants/fabroute.service"
	ln -sf ../opensm.service "$1/network-online.target.wants/opensm.service"
}
# verify DIR UNIT...: what systemd-analyze says about starting each UNIT
verify() {
	d=$1
	shift
	SYSTEMD_UNIT_PATH=$d: systemd-analyze verify --man=no "$@" 2>&1 || true
}

units "$t_tmp/ok" "$unit"
like "fabroute.service is not ordered after network.target" "$(grep -c '^After=.*network' "$unit")" '^0$'
out=$(verify "$t_tmp/ok" fabroute-check.target multi-user.target "opensm@$guid.service" opensm.service)
is "systemd-analyze verify: no ordering cycle with Debian's opensm.service and opensm@.service" \
	"$(printf '%s\n' "$out" | grep -i 'cycle' || true)" ""
is "  nor anything else to say about fabroute.service or OpenSM's units" \
	"$(printf '%s\n' "$out" | grep -i -e fabroute -e opensm | grep -v -i -e 'riscv_hwprobe' -e 'uretprobe' || true)" ""
dump=$(SYSTEMD_LOG_LEVEL=debug SYSTEMD_UNIT_PATH=$t_tmp/ok: systemd-analyze verify --man=no "opensm@$guid.service" 2>&1)
like "opensm@$guid.service reads opensm@.service.d/fabroute.conf" "$dump" 'DropIn Path: .*/opensm@\.service\.d/fabroute\.conf'
like "  and is ordered after fabroute.service" "$dump" 'After: fabroute\.service \(origin-file\)'
dump=$(SYSTEMD_LOG_LEVEL=debug SYSTEMD_UNIT_PATH=$t_tmp/ok: systemd-analyze verify --man=no opensm.service 2>&1)
like "opensm.service is ordered after fabroute.service" "$dump" 'After: fabroute\.service \(origin-file\)'

# the check finds the cycle the unit had when it was ordered after network.target
sed 's/^Documentation=.*/&\nAfter=network.target/' "$unit" >"$t_tmp/old.service"
units "$t_tmp/old" "$t_tmp/old.service"
like "the same check finds the cycle of a unit ordered After=network.target" \
	"$(verify "$t_tmp/old" fabroute-check.target)" 'Found ordering cycle'
done_testing
