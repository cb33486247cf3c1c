#!/bin/sh
# The fabroute command line: help, exit codes, gen/show/convert end to end,
# determinism, and errors that name what was wrong.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need jq

F=$FABROUTE

runs "--help exits 0" 0 "$F" --help
for c in "gen FAMILY" "show FILE" "convert IN" "eval --topology" "compute \[-e CHAIN\]" engines "help \[COMMAND\]"; do
	like "--help lists $c" "$out" "^  $c "
done
runs "--version exits 0" 0 "$F" --version
like "--version prints the version" "$out" "^fabroute [0-9]+\.[0-9]+"
runs "no arguments is a usage error" 2 "$F"
runs "unknown command is a usage error" 2 "$F" frobnicate
like "unknown command names it" "$err" "frobnicate"
for c in gen show convert; do
	runs "$c --help exits 0" 0 "$F" $c --help
	like "$c --help shows usage" "$out" "Usage: fabroute $c"
	runs "help $c exits 0" 0 "$F" help $c
done
runs "gen --list exits 0" 0 "$F" gen --list
like "gen --list shows the 648-port tree" "$out" "ft648"
like "gen --list shows parameters" "$out" "default"
text_names=$(printf '%s\n' "$out" | sed -n 's/^\([a-z][a-z0-9-]*\) .*/\1/p' | tr '\n' ' ')
runs "gen --list --json exits 0" 0 "$F" gen --list --json
is "gen --list --json names the families --list shows" "$(printf '%s' "$out" | jq -r '.[].name' | tr '\n' ' ')" \
	"$text_names"
is "gen --list --json: each parameter with its default" \
	"$(printf '%s' "$out" | jq -r '.[] | select(.name == "kary-ntree") | .params[] | select(.name == "k") | .default')" 4
runs "gen --json without --list is a usage error" 2 "$F" gen --json

# gen + show: the 648-port 2-stage tree of the sFtree paper
runs "gen ft648" 0 "$F" gen ft648 -o "$t_tmp/ft648.ibnd"
runs "show ft648" 0 "$F" show "$t_tmp/ft648.ibnd"
like "ft648 has 54 switches and 648 CAs" "$out" "nodes: +702 \(54 switches, 648 CAs, 0 routers\)"
like "ft648 has 1296 links" "$out" "links: +1296 \(648 switch-switch, 648 switch-CA"
like "ft648 is a 2-level tree" "$out" "shape: +tree, 2 switch levels"
like "ft648 has 18 roots" "$out" "level 2 +18 switches"
like "ft648 LIDs are 1..702" "$out" "LIDs: +1\.\.702"
runs "show --json" 0 "$F" show --json "$t_tmp/ft648.ibnd"
is "JSON switch count" "$(printf '%s' "$out" | jq .nodes.switches)" 54
is "JSON shape kind" "$(printf '%s' "$out" | jq -r .shape.kind)" tree
hash=$(printf '%s' "$out" | jq -r .hash)
runs "show reads stdin" 0 sh -c "'$F' gen ft648 | '$F' show -"
like "show - names stdin" "$out" "fabric: +- \(ibnetdiscover\)"

# determinism: same arguments and seed, same bytes
"$F" gen random switches=16 machines=64 degree=4 --seed 5 > "$t_tmp/r1"
"$F" gen random switches=16 machines=64 degree=4 --seed 5 > "$t_tmp/r2"
"$F" gen random switches=16 machines=64 degree=4 --seed 6 > "$t_tmp/r3"
is "same seed, same bytes" "$(cmp -s "$t_tmp/r1" "$t_tmp/r2" && echo same)" same
is "other seed, other fabric" "$(cmp -s "$t_tmp/r1" "$t_tmp/r3" && echo same || echo differ)" differ
"$F" gen kary-ntree k=4 n=3 --link-faults 3 --seed 9 > "$t_tmp/f1"
"$F" gen kary-ntree k=4 n=3 --link-faults 3 --seed 9 > "$t_tmp/f2"
is "random faults are deterministic" "$(cmp -s "$t_tmp/f1" "$t_tmp/f2" && echo same)" same
runs "show faulty tree" 0 "$F" show "$t_tmp/f1"
like "3 faults remove 3 of 128 switch links" "$out" "\(125 switch-switch"

# convert round trip keeps the graph
runs "convert to ibsim" 0 "$F" convert --to ibsim -o "$t_tmp/ft648.net" "$t_tmp/ft648.ibnd"
like "ibsim output has switch records" "$(head -20 "$t_tmp/ft648.net")" "^Switch"
runs "convert back" 0 "$F" convert --to ibnetdiscover -o "$t_tmp/back.ibnd" "$t_tmp/ft648.net"
if [ -n "${hash:-}" ]; then
	is "round trip keeps the topology hash" \
		"$("$F" show --json "$t_tmp/back.ibnd" | jq -r .hash)" "$hash"
fi
runs "convert --lmc 2 --renew-lids" 0 "$F" convert --renew-lids --lmc 2 "$t_tmp/ft648.ibnd"
like "LMC 2 in the output" "$out" "lmc 2"

# errors
runs "show of a missing file" 3 "$F" show "$t_tmp/nope"
like "names the missing file" "$err" "nope: cannot open"
printf 'Switch 4 "a"\n[1] "b"[1]\0junk\n' > "$t_tmp/bin"
runs "show of binary junk" 3 "$F" show "$t_tmp/bin"
like "says binary, with file and line" "$err" "bin:2: binary data"
printf 'Switch 4 "a"\n[9] "b"[1]\n\nHca 1 "b"\n[1] "a"[9]\n' > "$t_tmp/badport"
runs "show of a port beyond the port count" 3 "$F" show --from ibsim "$t_tmp/badport"
like "names file and line" "$err" "badport:[0-9]+:"
runs "gen of an unknown family" 2 "$F" gen nosuch
like "names the family" "$err" "nosuch"
runs "gen with an unknown parameter" 2 "$F" gen kary-ntree q=3
like "names the parameter" "$err" "q"
runs "gen with a bad value" 2 "$F" gen kary-ntree k=four
like "names the value" "$err" "four"
runs "gen dragonfly with an unknown wiring" 2 "$F" gen dragonfly wiring=diagonal
like "lists the wirings" "$err" "expected one of absolute[|]relative[|]circulant$"
runs "gen with a bad option value" 2 "$F" gen ft648 --seed -3
runs "gen with an unknown option" 2 "$F" gen ft648 --frob
runs "convert to a bad format" 2 "$F" convert --to xml "$t_tmp/ft648.ibnd"
runs "show with two files" 2 "$F" show a b
runs "convert with --lmc 9" 2 "$F" convert --lmc 9 "$t_tmp/ft648.ibnd"
runs "gen removing a link that does not exist" 2 "$F" gen ft648 --remove-link nosuch:1
runs "write to an unwritable path" 1 "$F" gen ft648 -o /nonexistent/dir/x

# the man page renders without warnings
if command -v man >/dev/null 2>&1 && [ -f "$top_srcdir/doc/fabroute.1" ]; then
	w=$(MANWIDTH=80 man --warnings=all -l "$top_srcdir/doc/fabroute.1" 2>&1 >/dev/null)
	is "man page renders without warnings" "$w" ""
fi

done_testing
