#!/bin/sh
# lidassign end to end under ibsim, with per-port LMC (TAP).
#
# fabroute compute -e pathsel plans LIDs with an LMC per port and tables
# realising its paths; ibsim simulates the fabric with those LIDs and LMCs
# (its net format carries them per port; OpenSM is not used: it would impose
# one global LMC). tests/sim/lft_set programs every switch through directed
# SMPs (LinearFDBTop, LFT blocks, read back) and makes the ports active.
# Then, on a seeded sample of machine pairs from compute's paths file,
# ibtracert from the source's LID to the planned DLID must cross the planned
# switches by the planned ports and reach the destination port, whose LID
# range (per-port LMC) is the plan's; DLIDs of the range that no path uses
# (completion, aliases) must reach the same port too.
#
# Needs ibsim, infiniband-diags and umad2sim; "1..0 # SKIP" without them.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

have_ibsim && command -v ibtracert >/dev/null 2>&1 || skip_all "ibsim or ibtracert not installed"
F=$FABROUTE
lft_set=$top_builddir/tests/sim/lft_set
[ -x "$lft_set" ] || skip_all "tests/sim/lft_set not built"
D=$t_tmp
SAMPLE=${LIDASSIGN_SIM_PAIRS:-60}

"$F" gen random switches=12 machines=48 degree=4 --seed 9 -o "$D/r.ibnd"
runs "compute -e pathsel" 0 "$F" compute -e pathsel --topology "$D/r.ibnd" -d "$D/c"
runs "the plan as an ibsim net file" 0 "$F" convert "$D/c/topology.ibnd" --to ibsim -o "$D/r.net"
like "the net file gives ports several LMCs" "$(grep -o 'lmc [0-9]' "$D/r.net" | sort -u | tr '\n' ' ')" \
	"lmc 0 lmc [1-7]"
sim_start "$D/r.net" || { not_ok "ibsim starts"; done_testing; }
ok "ibsim starts"
SIM_HOST=node-00
export SIM_HOST
runs "lft_set programs every switch and activates the ports" 0 sim_run "$lft_set" \
	"$D/c/topology.ibnd" "$D/c/opensm-lfts.dump" node-00
like "every switch read back" "$(printf '%s\n' "$out" | grep -c 'blocks set and read back')" '^12$'

# base LID and top LID per port GUID, from the plan
awk 'NF == 3 { print $1, $2, $3 }' "$D/c/guid2lid" > "$D/ranges"
base() { awk -v g="$1" '$1 == g { printf "%d\n", $2 }' "$D/ranges"; }
top() { awk -v g="$1" '$1 == g { printf "%d\n", $3 }' "$D/ranges"; }

# ibtracert's hops as "SWITCHGUID:OUTPORT ...": a switch line's out port
# opens the next line ("[out] -> ...").
hops() {
	awk '{
		if (match($0, /^\[[0-9]+\]/)) {
			o = substr($0, 2, RLENGTH - 2) + 0
			if (sw != "") printf "%s:%d ", sw, o
			sw = ""
		}
		if ($0 ~ /-> switch port/ && match($0, /\{0x[0-9a-f]+\}/))
			sw = substr($0, RSTART + 1, RLENGTH - 2)
	}' | sed 's/ $//'
}

# a seeded sample of pairs, DLIDs other than the base LID among them
total=$(wc -l < "$D/c/paths")
awk -v n="$SAMPLE" -v t="$total" 'BEGIN { srand(7); for (i = 0; i < n; i++) print int(rand() * t) + 1 }' |
	sort -n -u > "$D/lines"
good=0 tried=0 offs=0 ranged=0 bad=""
while read -r line; do
	set -- $(sed -n "${line}p" "$D/c/paths")
	src=$1 dst=$2 dlid=$3
	shift 3
	want="$*"
	slid=$(base "$src")
	[ "$dlid" -ne "$(base "$dst")" ] && offs=$((offs + 1))
	got=$(sim_run ibtracert "$slid" "$dlid" 2>"$D/tr.err")
	tried=$((tried + 1))
	to=$(printf '%s\n' "$got" | sed -n 's/^To ca {\(0x[0-9a-f]*\)} portnum \([0-9]*\) lid \([0-9]*\)-\([0-9]*\).*/\3 \4/p')
	[ "$to" = "$(base "$dst") $(top "$dst")" ] && ranged=$((ranged + 1))
	if [ "$(printf '%s\n' "$got" | hops)" = "$want" ] && [ -n "$to" ]; then
		good=$((good + 1))
	elif [ -z "$bad" ]; then
		bad="line $line: $src -> $dst DLID $dlid: want '$want', ibtracert: $(printf '%s' "$got" | tr '\n' '|') $(cat "$D/tr.err")"
	fi
done < "$D/lines"
is "ibtracert follows the planned hops with the planned DLID ($tried sampled pairs)" "$good" "$tried"
[ -n "$bad" ] && diag "$bad"
like "the sample holds DLIDs past the base LID" "$offs" "^[1-9][0-9]*$"
is "ibtracert reports each destination's planned range (per-port LMC)" "$ranged" "$tried"

# every other LID of a range reaches its port too (completion and aliases)
reached=0 n=0
for g in $(awk '$3 != $2 { print $1 }' "$D/ranges" | head -n 8); do
	first=$(base "$g") last=$(top "$g")
	for l in $(seq "$first" "$last"); do
		n=$((n + 1))
		sim_run ibtracert "$(base 0x0002fab200000011)" "$l" 2>/dev/null |
			grep -q "^To ca {$(printf '0x%016x' $(( $g - 1 )))}" && reached=$((reached + 1))
	done
done
is "every LID of 8 multi-LID ranges reaches its port ($n LIDs)" "$reached" "$n"
sim_stop
done_testing
