#!/bin/sh
# Round trips through the real simulator: for every generator family and every
# committed ibnetdiscover sample, write the fabric (ibnetdiscover and ibsim
# formats), load it in ibsim, run ibnetdiscover against it, and check the
# discovered graph has the same topology hash (same node GUIDs and types, port
# counts, and cabling) as the original.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

have_ibsim || skip_all "ibsim, umad2sim or ibnetdiscover not installed"
need jq

F=$FABROUTE
hash_of() { "$F" show --json "$1" | jq -r .hash; }

# through_ibsim NAME FILE WANT_HASH: simulate FILE, discover, compare.
through_ibsim() {
	if ! sim_start "$2"; then
		not_ok "$1: ibsim loads it"
		return
	fi
	if sim_run ibnetdiscover > "$t_tmp/disc.ibnd" 2>"$t_tmp/disc.err"; then
		got=$(hash_of "$t_tmp/disc.ibnd")
		is "$1: ibnetdiscover gives back the same graph" "$got" "$3"
	else
		not_ok "$1: ibnetdiscover runs"
		sed 's/^/# /' "$t_tmp/disc.err"
	fi
	sim_stop
}

roundtrip() {
	name=$1
	shift
	if ! "$F" gen "$@" -o "$t_tmp/$name.ibnd" 2>"$t_tmp/gen.err"; then
		not_ok "$name: gen $*"
		sed 's/^/# /' "$t_tmp/gen.err"
		return
	fi
	want=$(hash_of "$t_tmp/$name.ibnd")
	through_ibsim "$name (ibnetdiscover format)" "$t_tmp/$name.ibnd" "$want"
	"$F" convert --to ibsim -o "$t_tmp/$name.net" "$t_tmp/$name.ibnd"
	through_ibsim "$name (ibsim format)" "$t_tmp/$name.net" "$want"
}

roundtrip kary kary-ntree k=2 n=3
roundtrip mport mport-ntree m=4 n=3
roundtrip xgft xgft h=2 m=4,4 w=1,2
roundtrip gft2-slim gft2 n=4 m=2 r=6
roundtrip gft2-fat gft2 n=2 m=4 r=6
roundtrip ft648 ft648
roundtrip ft648-rack ft648-rack
roundtrip multicore multicore cores=2 n=2 m=2 r=4 hlinks=1
roundtrip dragonfly dragonfly a=4 p=2 h=2
roundtrip random random switches=12 machines=40 degree=4
roundtrip ring ring switches=5 hosts=2
roundtrip mesh mesh dims=3,3 hosts=1
roundtrip torus torus dims=3,3 hosts=1
roundtrip faulty kary-ntree k=4 n=2 --link-faults 2 --seed 3

for sample in "$top_srcdir"/tests/data/ibnd/*.txt; do
	[ -f "$sample" ] || continue
	base=$(basename "$sample" .txt)
	want=$(hash_of "$sample")
	"$F" convert -o "$t_tmp/$base.out.ibnd" "$sample"
	through_ibsim "sample $base (rewritten)" "$t_tmp/$base.out.ibnd" "$want"
	"$F" convert --to ibsim -o "$t_tmp/$base.net" "$sample"
	through_ibsim "sample $base (as ibsim net)" "$t_tmp/$base.net" "$want"
done

done_testing
