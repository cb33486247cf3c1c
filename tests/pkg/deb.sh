#!/bin/sh
# The Debian packages, as a site gets them: built from this tree with
# dpkg-buildpackage, lintian-clean (no error, no warning), installed with
# apt into a clean Debian root made by debootstrap (minbase, beside Debian's
# own opensm), where `fabrouted -n` accepts the installed configuration and
# Debian's OpenSM loads the installed plugin by name: under ibsim, OpenSM's
# pass is routed by the installed fabrouted. Needs root (debootstrap,
# chroot, mount) and the Debian archive; run by .ci/run (make check-package).
#   KEEP=1: keep the root and the packages (in $top_builddir/pkg).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need dpkg-buildpackage lintian debootstrap chroot git
[ "$(id -u)" -eq 0 ] || skip_all "needs root: debootstrap, chroot and mount"

work=$top_builddir/pkg
root=$work/root
suite=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
mirror=$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
: "${mirror:=http://deb.debian.org/debian}"
pids=""
pkg_cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	for m in proc sys; do mountpoint -q "$root/$m" && umount "$root/$m"; done
	[ "${KEEP:-0}" = 1 ] || rm -rf --one-file-system "$work"
	t_cleanup
}
trap pkg_cleanup EXIT INT TERM
now() { date +%s; }
t0=$(now)

# --- build ------------------------------------------------------------------------
rm -rf "$work"
mkdir -p "$work/src"
git -C "$top_srcdir" ls-files -co --exclude-standard -z | (cd "$top_srcdir" && tar -c --null -T -) |
	tar -x -C "$work/src"
# debootstrap mostly waits for the archive: it runs beside the build, which mostly computes
debootstrap --variant=minbase --cache-dir=/var/cache/apt/archives "$suite" "$root" "$mirror" \
	>"$work/debootstrap.log" 2>&1 &
boot=$!
pids="$boot $pids"
( cd "$work/src" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b ) >"$work/build.log" 2>&1 &&
	ok "dpkg-buildpackage builds the packages ($(($(now) - t0)) s)" ||
	{ not_ok "dpkg-buildpackage builds the packages"; tail -30 "$work/build.log" | sed 's/^/# /'; done_testing; }
is "two packages: fabroute and fabroute-osm" \
	"$(for p in "$work"/fabroute_*.deb "$work"/fabroute-osm_*.deb; do dpkg-deb -f "$p" Package; done | tr '\n' ' ')" \
	"fabroute fabroute-osm "
t1=$(now)
runs "lintian: no error, no warning" 0 lintian --fail-on error,warning "$work"/fabroute_*.changes
[ "$st" -eq 0 ] || printf '%s\n%s\n' "$out" "$err" | sed 's/^/# /'
osm_up=$(dpkg-query -W -f='${Version}' libopensm-dev | sed -e 's/^[0-9]*://' -e 's/-[^-]*$//')
like "fabroute-osm depends on the OpenSM release it was built against ($osm_up)" \
	"$(dpkg-deb -f "$work"/fabroute-osm_*.deb Depends)" "opensm \(>= $osm_up\), opensm \(<< $osm_up\.0~\)"
is "fabroute-osm puts the plugin in the multiarch library directory, no .la" \
	"$(dpkg-deb -c "$work"/fabroute-osm_*.deb | awk '{print $6}' | grep -E '\.(so|la)$')" \
	"./usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libfabroute-osm.so"
like "fabroute ships the unit and both OpenSM drop-ins" \
	"$(dpkg-deb -c "$work"/fabroute_*.deb | awk '{print $6}' | tr '\n' ' ')" \
	'fabroute.service .*opensm.service.d/fabroute.conf .*opensm@.service.d/fabroute.conf'
diag "build $((t1 - t0)) s, lintian $(($(now) - t1)) s"

# --- a clean root (made while the packages build) -----------------------------------
wait "$boot" && st=0 || st=$?
pids=${pids#"$boot "}
t2=$(stat -c %Y "$work/debootstrap.log")	# its last line: when it ended
[ "$st" -eq 0 ] && ok "debootstrap: a clean $suite root ($((t2 - t0)) s, beside the build)" ||
	{ not_ok "debootstrap: a clean $suite root"; tail -20 "$work/debootstrap.log" | sed 's/^/# /'; done_testing; }
mount -t proc proc "$root/proc"
mkdir -p "$root/tmp/debs"
cp "$work"/fabroute_*.deb "$work"/fabroute-osm_*.deb "$root/tmp/debs/"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
t3=$(now)
in_root sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -q &&
	apt-get install -y -q --no-install-recommends /tmp/debs/*.deb ibsim-utils libumad2sim0' \
	>"$work/install.log" 2>&1 && ok "apt installs both packages with their dependencies ($(($(now) - t3)) s)" ||
	{ not_ok "apt installs both packages with their dependencies"; tail -20 "$work/install.log" | sed 's/^/# /'; done_testing; }
like "  Debian's opensm came with the plugin" "$(in_root dpkg-query -W -f='${Status} ${Version}' opensm)" \
	"install ok installed $osm_up"
is "  the token was made, mode 600" "$(in_root stat -c %a /etc/fabroute/token)" 600
runs "fabrouted -n accepts the installed configuration" 0 in_root fabrouted -n -c /etc/fabroute/fabroute.conf
like "  which says source = opensm" "$out" '^source = opensm$'
is "  the configuration directory is 0750" "$(in_root stat -c %a /etc/fabroute)" 750

# --- Debian's OpenSM loads the installed plugin --------------------------------------
in_root fabroute gen kary-ntree k=2 n=2 -f ibsim -o /tmp/t.net
sock=fabdeb$$
( cd "$root/tmp" && exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin IBSIM_SOCKNAME="$sock" \
	sh -c 'cd /tmp && exec ibsim -n -s /tmp/t.net' >"$work/sim.log" 2>&1 ) &
pids="$! $pids"
i=0
until grep -q "simulator ready" "$work/sim.log" 2>/dev/null || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
umad=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/umad2sim/libumad2sim.so
port=$((20000 + $$ % 20000))
chroot "$root" env -i PATH=/usr/sbin:/usr/bin IBSIM_SOCKNAME="$sock" LD_PRELOAD="$umad" sh -c \
	"cd /tmp && exec fabrouted -c /etc/fabroute/fabroute.conf --socket /tmp/osm.sock --db /tmp/fr.db \
	--listen 127.0.0.1:$port" >"$work/fr.log" 2>&1 &
pids="$! $pids"
i=0
until grep -q "API listening" "$work/fr.log" 2>/dev/null || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
sed -e 's|^event_plugin_options .*|event_plugin_options socket=/tmp/osm.sock timeout_ms=5000|' \
	"$root/etc/fabroute/opensm-fabroute.conf" >"$root/tmp/osm.conf"
timeout 120 chroot "$root" env -i PATH=/usr/sbin:/usr/bin IBSIM_SOCKNAME="$sock" LD_PRELOAD="$umad" \
	OSM_CACHE_DIR=/tmp OSM_TMP_DIR=/tmp sh -c 'cd /tmp && exec opensm -F /tmp/osm.conf -o -s 0 -f /tmp/osm.log' \
	>"$work/osm.out" 2>&1
like "Debian's OpenSM loads fabroute-osm by name from the installed package and fabroute routes its pass" \
	"$(cat "$root/tmp/osm.log" 2>/dev/null)" "fabroute tables configured"
like "  fabrouted published OpenSM's fabric" "$(cat "$work/fr.log")" "epoch 1 published \(opensm\)"
diag "whole run $(($(now) - t0)) s"
done_testing
