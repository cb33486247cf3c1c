#!/bin/sh
# papers/002's experiment, a small subset (bench/lidassign.sh on 128/16 and
# 128/64, 4 seeds): the orderings that must hold on any sample (color/L
# lowest and LIDs spread on path selection, FX one LID per machine and the
# worst load, Separate the best load, color/L at the exact optimum on
# 128/16). The full reproduction is bench/lidassign.sh (32 seeds).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

out=$(sh "$top_srcdir/bench/lidassign.sh" "$top_builddir" --seeds 4 --confs "128/16 128/64" \
	--exact 200 --jobs 2 --raw "$t_tmp/raw" 2>&1) && st=0 || st=$?
is "the bench runs" "$st" 0
is "one line per instance" "$(wc -l < "$t_tmp/raw")" 8
like "Table 1 printed" "$out" "^128/64 +[0-9.]+±[0-9.]+ "
like "S1: color/L lowest on every path-selection cell" "$out" "in 2/2 path-selection cells"
like "S1: color/L <= greedy on every path-selection instance" "$out" "path selection: 128/16 4/4 128/64 4/4$"
like "S2: path selection spreads the heuristics by 15% or more" "$out" \
	"^S2 .*128/16 (1[5-9]|[2-9][0-9])\.[0-9]% 128/64 (1[5-9]|[2-9][0-9])\.[0-9]%$"
like "S4: fully explicit takes one LID per machine, load Separate < Renaming < FX" "$out" \
	"128/16: FX LIDs 128, load Sep .* yes"
like "S4 on 128/64 too" "$out" "128/64: FX LIDs 128, load Sep .* yes"
like "S6: color/L within 3% of the optimum on 128/16" "$out" "^S6 .* -> holds"
for h in greedy sm-s sm-l color-s color-l; do
	n=$(grep -c "t2y.$h=[0-9]" "$t_tmp/raw")
	is "every instance has $h on path selection" "$n" 8
done
done_testing
