#!/bin/sh
# fabroute set-up: installs the Debian packages fabroute needs.
#   scripts/setup.sh          everything: build, demo, tests, packaging (CI, scripts/test.sh)
#   scripts/setup.sh demo     only what building and the demo need (scripts/demo.sh):
#                             no browser, Prometheus, valgrind, clang or packaging tools
# Idempotent: packages already present are left alone. Run as root (or with sudo available).
set -eu

# build the daemon, the CLI and the OpenSM plugin; run ibsim + OpenSM + fabrouted
DEMO="build-essential autoconf automake libtool pkg-config
libmicrohttpd-dev libjansson-dev libsqlite3-dev libcurl4-openssl-dev libssl-dev zlib1g-dev liblzma-dev libsystemd-dev
libibumad-dev libibmad-dev libibnetdisc-dev libopensm-dev
opensm ibsim-utils libumad2sim0 infiniband-diags curl jq python3"
# the tests, benchmarks and the package build: unit tests, independent checkers,
# a real etcd member, memory checkers, load tools, the dashboard's browser,
# Prometheus' promtool, debhelper and lintian, debootstrap for the clean
# root the packages are installed into, and Slurm with munge (a real
# slurmctld reads the topology.conf fabroute writes)
TEST="libcmocka-dev ibutils etcd-server etcd-client sqlite3 valgrind clang libclang-rt-dev wrk hyperfine
time man-db openssl chromium prometheus debhelper lintian debootstrap
slurm-wlm munge"

case ${1:-all} in
demo) PKGS=$DEMO ;;
all) PKGS="$DEMO $TEST" ;;
*) echo "usage: scripts/setup.sh [demo|all]" >&2; exit 2 ;;
esac

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
