#!/bin/sh
# fabroute's main job on its built-in default: set up, build, generate the
# 648-port 2-stage fat tree (18 spine + 36 leaf 36-port switches, 648 hosts)
# and show its summary.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
"$top/scripts/build.sh"
fab="$top/build/fabroute"
out=${FABROUTE_DEMO_DIR:-$top/build/demo}
mkdir -p "$out"
"$fab" gen ft648 -o "$out/ft648.ibnd"
echo
echo "Generated $out/ft648.ibnd (ibnetdiscover format):"
echo
"$fab" show "$out/ft648.ibnd"
echo
echo "Next: '$fab gen --list' for more topologies, '$fab --help' for the commands."
