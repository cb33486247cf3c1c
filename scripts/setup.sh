#!/bin/sh
# fabroute set-up: installs every Debian package fabroute builds and tests with.
# Idempotent: packages already present are left alone. Run as root (or with sudo available).
set -eu

PKGS="build-essential autoconf automake libtool pkg-config
libmicrohttpd-dev libjansson-dev libsqlite3-dev libcurl4-openssl-dev libssl-dev zlib1g-dev libsystemd-dev
libibumad-dev libibmad-dev libibnetdisc-dev libopensm-dev libcmocka-dev
opensm ibsim-utils libumad2sim0 infiniband-diags ibutils etcd-server etcd-client
sqlite3 curl valgrind clang libclang-rt-dev wrk hyperfine jq time man-db
chromium prometheus python3"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "setup: all packages present"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || { echo "setup: need root or sudo to install:$missing" >&2; exit 1; }
	SUDO=sudo
fi
echo "setup: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
echo "setup: done"
