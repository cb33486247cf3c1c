#!/bin/sh
# The fabrics of tests/data/fabrics (and ibsim's example nets) as a table:
# per fabric and chain, whether fabroute parses it, the engine that routed
# it, the pairs left unreachable by class and whether the routing is
# deadlock-free (fabroute's evaluator: every pair, switches included).
#
#   bench/real_fabrics.sh                      the build in ./build
#   FABROUTE=/path/to/fabroute bench/real_fabrics.sh   another build (main)
#   CHAINS="sftree,updn,minhop ftree pathsel" bench/real_fabrics.sh
#
# A fabric that does not parse shows "no (exit N)" and the first words of
# the error; "-" where there is nothing to say. subnet-2005.lst is given
# with --topology (fabroute reads OpenSM's subnet lists as a topology since
# it learnt to; an older build says it does not parse).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
F=${FABROUTE:-$top/build/fabroute}
CHAINS=${CHAINS:-sftree,updn,minhop}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fabrics() {
	for f in "$top"/tests/data/fabrics/*.ibnd "$top"/tests/data/fabrics/*.gz \
		 "$top"/tests/data/ibsim/net "$top"/tests/data/ibsim/net.*; do
		case $f in *.txt | *fdbs.gz) continue ;; esac
		echo "$f"
	done
}

# field NAME: the unreachable pairs of class NAME (CA->CA, ...) in $work/out, "-" if none
field() { awk -v c="$1" '$1 == c { print $3; found = 1; exit } END { if (!found) print "-" }' \
	"$work/out"; }

printf '%-23s %-19s %-6s %8s %8s %8s %8s  %s\n' fabric chain parsed CA-CA CA-SW SW-CA SW-SW \
	"engine, deadlock-free"
for f in $(fabrics); do
	name=$(basename "$f" .gz)
	case $f in *.gz) gzip -dc "$f" > "$work/$name"; f=$work/$name ;; esac
	for chain in $CHAINS; do
		rm -rf "$work/d"
		"$F" compute -e "$chain" --topology "$f" -d "$work/d" --eval > "$work/out" 2> "$work/err"
		rc=$?
		if [ $rc -eq 3 ] || [ $rc -eq 2 ]; then
			why=$(sed -n '$s/^fabroute: //p' "$work/err" |
				sed "s|$top/tests/data/fabrics/||; s|$work/||" | cut -c1-64)
			printf '%-23s %-19s %-6s %8s %8s %8s %8s  %s\n' "$name" "$chain" "no" - - - - \
				"exit $rc: $why"
			continue
		fi
		engine=$(sed -n 's/^engine: *\([a-z0-9]*\).*/\1/p' "$work/out")
		dl=$(sed -n 's/^deadlock: *\([A-Za-z]*\).*/\1/p' "$work/out")
		case $dl in free) dl=yes ;; POSSIBLE) dl=NO ;; *) dl=- ;; esac
		printf '%-23s %-19s %-6s %8s %8s %8s %8s  %s\n' "$name" "$chain" yes \
			"$(field CA-\>CA)" "$(field CA-\>SW)" "$(field SW-\>CA)" "$(field SW-\>SW)" \
			"${engine:-none (exit $rc)}, ${dl}"
	done
done
