#!/bin/sh
# Build fabroute into ./build (out of tree). Idempotent: reruns only what changed.
#   scripts/build.sh [extra configure options...]
# Environment: BUILD_DIR (default: build), CONFIGURE_FLAGS (default: --enable-werror).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
flags=${CONFIGURE_FLAGS:---enable-werror}

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	echo "build: autoreconf"
	autoreconf -fi >/dev/null
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$(cat .configure-flags 2>/dev/null)" != "$flags $*" ]; then
	echo "build: configure $flags $*"
	# shellcheck disable=SC2086
	"$top/configure" -q $flags "$@"
	echo "$flags $*" > .configure-flags
fi
echo "build: make"
make -s -j"$(nproc)"
