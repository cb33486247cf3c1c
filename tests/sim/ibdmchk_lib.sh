# shellcheck shell=sh
# ibdmchk's verdict, for tests/sim/ibdmchk.sh and bench/ftdlr_ibdmchk.sh.
# ibdmchk prints its verdict and then may crash on exit: read its text.

# ibdmchk_verdict FILE: "free", "loop", "missing N" or "none" from ibdmchk's output.
ibdmchk_verdict() {
	if grep -q 'Found credit loop' "$1"; then
		echo loop
	elif grep -q 'no credit loops found' "$1"; then
		echo free
	elif n=$(sed -n 's/^-E- Found \([0-9]*\) missing paths.*/\1/p' "$1") && [ -n "$n" ]; then
		echo "missing $n"
	else
		echo none
	fi
}

# ibdmchk_in DIR OUT [options]: ibdmchk on OpenSM's dumps in DIR (-D 0x43),
# its output in DIR/OUT, at most $IBDMCHK_TIMEOUT s (default 60); prints the verdict.
ibdmchk_in() {
	ibdmchk_dir=$1 ibdmchk_out=$2
	shift 2
	( cd "$ibdmchk_dir" && timeout "${IBDMCHK_TIMEOUT:-60}" ibdmchk -s opensm-subnet.lst \
		-f opensm.fdbs -m opensm.mcfdbs "$@" >"$ibdmchk_out" 2>&1 || : ) 2>/dev/null
	ibdmchk_verdict "$ibdmchk_dir/$ibdmchk_out"
}
