#!/bin/sh
# papers/002's experiment, a small subset (bench/lidassign.sh on 128/16 and
# 128/64, 4 seeds each): what holds instance by instance or with a wide
# margin. color/L needs no more LIDs than greedy on every path-selection
# instance and color/S the most on average; path selection spreads the
# heuristics by 15% or more; fully explicit routing takes exactly one LID
# per machine and the worst load, Separate the best; the exact colouring
# proves every destination and never beats itself. The full reproduction
# (32 seeds, 9 configurations, the paper's own checks) is bench/lidassign.sh.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

out=$(sh "$top_srcdir/bench/lidassign.sh" "$top_builddir" --seeds 4 --confs "128/16 128/64" \
	--exact 200 --jobs 2 --raw "$t_tmp/raw" 2>&1) && st=0 || st=$?
is "the bench runs" "$st" 0
is "one line per instance" "$(wc -l < "$t_tmp/raw")" 8
like "Table 1 printed" "$out" "^128/64 +[0-9.]+±[0-9.]+ "
like "Table 3 printed beside the paper's" "$out" "^  paper +4\.34 +128 "
like "the checks printed" "$out" "^S6 128/16 path selection"

# field NAME of every line, one per line
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$t_tmp/raw"; }
# pair A B: "A B" per line, the fields A and B of every line
pair() { field "$1" > "$t_tmp/a"; field "$2" > "$t_tmp/b"; paste -d' ' "$t_tmp/a" "$t_tmp/b"; }
# per configuration means of the named fields: "conf mean1 mean2 ..."
means() {
	awk -v keys="$*" 'BEGIN { nk = split(keys, k, " ") }
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		c = v["conf"]; n[c]++
		for (j = 1; j <= nk; j++) s[c, j] += v[k[j]]
	}
	END { for (c in n) { printf "%s", c; for (j = 1; j <= nk; j++) printf " %.3f", s[c, j] / n[c]; print "" } }' \
		"$t_tmp/raw"
}

worse=$(pair t2y.color-l t2y.greedy | awk '$1 > $2' | wc -l)
is "color/L <= greedy on every path-selection instance" "$worse" 0
most=$(means t2y.color-s t2y.greedy t2y.sm-s t2y.sm-l t2y.color-l |
	awk '$2 >= $3 && $2 >= $4 && $2 >= $5 && $2 >= $6' | wc -l)
is "color/S the most LIDs on average, both path-selection cells" "$most" 2
wide=$(means t2y.color-s t2y.greedy t2y.sm-s t2y.sm-l t2y.color-l |
	awk '{ lo = $2; hi = $2; for (i = 3; i <= 6; i++) { if ($i < lo) lo = $i; if ($i > hi) hi = $i }
	       if (hi / lo - 1 >= 0.15) print }' | wc -l)
is "path selection spreads the heuristics by 15% or more, both cells" "$wide" 2
fx=$(awk '{ split($1, c, "="); split(c[2], m, "/"); for (i = 1; i <= NF; i++) if ($i ~ /^t3\.fx\.lids=/) { split($i, v, "="); if (v[2] != m[1]) bad++ } }
	END { print bad + 0 }' "$t_tmp/raw")
is "fully explicit: one LID per machine on every instance" "$fx" 0
order=$(means t3y.sep.load t3.ren.load t3.fx.load | awk '$2 < $3 && $3 < $4' | wc -l)
is "load: Separate < Renaming < fully explicit, both cells" "$order" 2
proven=$(pair ex.proven ex.dests | awk '$1 != $2' | wc -l)
is "exact colouring on the 4 instances of 128/16" "$(pair ex.proven ex.dests | wc -l)" 4
is "exact colouring proves every destination of 128/16" "$proven" 0
beaten=$(pair ex.opt.k ex.color-l.k | awk '$1 > $2' | wc -l)
is "the optimum never exceeds color/L" "$beaten" 0
done_testing
