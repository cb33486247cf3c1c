#!/bin/sh
# papers/002 (Nienaber, Yuan, Duan, "On LID Assignment In InfiniBand
# Networks") Tables 1-3, reproduced on random irregular fabrics: per
# configuration MACHINES/SWITCHES (16, 32, 64 switches of average degree 8;
# 128, 256, 512 machines placed uniformly), seeds 1..N, each entry the mean
# over the seeds +- the half width of its 95% confidence interval
# (Student's t). Then the checks S1-S6 of the reproduction, each with the
# figures it rests on, and the time of each step. Figures, never pass/fail.
#
#   bench/lidassign.sh [BUILD_DIR] [--seeds N] [--confs "128/16 512/64 ..."]
#                      [--jobs J] [--exact MS] [--raw FILE]
#
# Defaults: seeds 32, the 9 configurations of the paper, 2 jobs, exact
# colouring of color/L's configurations on 128/16 with 1000 ms per
# destination. --raw keeps the per-instance lines (bench/bench_lidassign).
# The CI subset (tests/unit/lidassign_repro.sh) is
#   --seeds 4 --confs "128/16 128/64 512/64" --exact 200
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
seeds=32
confs="128/16 256/16 512/16 128/32 256/32 512/32 128/64 256/64 512/64"
jobs=2
exact=1000
raw=
case ${1:-} in -*|'') ;; *) build=$1; shift ;; esac
while [ $# -gt 0 ]; do
	case $1 in
	--seeds) seeds=$2; shift 2 ;;
	--confs) confs=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--exact) exact=$2; shift 2 ;;
	--raw) raw=$2; shift 2 ;;
	*) echo "usage: $0 [BUILD_DIR] [--seeds N] [--confs LIST] [--jobs J] [--exact MS] [--raw FILE]" >&2
	   exit 2 ;;
	esac
done
bin=$build/bench/bench_lidassign
[ -x "$bin" ] || make -C "$build" -s bench/bench_lidassign
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one job per (configuration, seed range), at most $jobs at a time
t0=$(date +%s)
n=0
for c in $confs; do
	m=${c%/*} s=${c#*/}
	x=""
	[ "$c" = 128/16 ] && [ "$exact" != 0 ] && x="--exact $exact"
	half=$(( (seeds + 1) / 2 ))
	for range in "1 $half" "$((half + 1)) $seeds"; do
		set -- $range
		[ "$1" -gt "$2" ] && continue
		# shellcheck disable=SC2086
		"$bin" "$m" "$s" "$1" "$2" $x > "$tmp/$m-$s-$1.out".tmp 2>&1 &&
			mv "$tmp/$m-$s-$1.out".tmp "$tmp/$m-$s-$1.out" &
		n=$((n + 1))
		if [ $((n % jobs)) -eq 0 ]; then wait; fi
	done
done
wait
secs=$(( $(date +%s) - t0 ))
cat "$tmp"/*.out > "$tmp/all" 2>/dev/null || true
if ls "$tmp"/*.tmp > /dev/null 2>&1; then
	echo "bench_lidassign failed:" >&2
	cat "$tmp"/*.tmp >&2
	exit 1
fi
[ -n "$raw" ] && cp "$tmp/all" "$raw"

awk -v confs="$confs" -v secs="$secs" -f - "$tmp/all" <<'AWK'
# --- reading: one instance per line, key=value ---------------------------------
{
	for (i = 1; i <= NF; i++) {
		k = substr($i, 1, index($i, "=") - 1)
		v = substr($i, index($i, "=") + 1)
		f[k] = v
	}
	c = f["conf"]
	n[c]++
	for (k in f)
		if (k != "conf") {
			val[c, k, n[c]] = f[k]
			keys[k] = 1
		}
	delete f
}

function tq(df) {	# Student's t, 97.5% quantile
	if (df < 1) return 0
	if (df <= 10) return substr("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", (df - 1) * 7 + 1, 6) + 0
	if (df <= 20) return 2.228 - (df - 10) * 0.0143
	if (df <= 30) return 2.086 - (df - 20) * 0.0044
	return 2.042 - (df > 60 ? 0.042 : (df - 30) * 0.0007)
}
function mean(c, k,   i, s) { s = 0; for (i = 1; i <= n[c]; i++) s += val[c, k, i]; return s / n[c] }
function ci(c, k,   i, m, s) {
	if (n[c] < 2) return 0
	m = mean(c, k); s = 0
	for (i = 1; i <= n[c]; i++) s += (val[c, k, i] - m) ^ 2
	return tq(n[c] - 1) * sqrt(s / (n[c] - 1)) / sqrt(n[c])
}
function cell(c, k, w, d) { return sprintf("%*.*f±%-*.*f", w, d, mean(c, k), w - 2, d, ci(c, k)) }
function table(title, pre, paper,   i, c, h, line) {
	print ""
	print title
	printf "%-8s", "conf."
	for (h = 1; h <= 5; h++) printf " %15s", hname[h]
	print ""
	for (i = 1; i <= nc; i++) {
		c = conf[i]
		if (!n[c]) continue
		printf "%-8s", c
		for (h = 1; h <= 5; h++) printf " %15s", cell(c, pre heur[h], 7, 1)
		print ""
		if (paper && (c in pap)) {
			split(pap[c], p, " ")
			printf "%-8s", "  paper"
			for (h = 1; h <= 5; h++) printf " %15s", sprintf("%7.1f        ", p[paper + h - 1])
			print ""
		}
	}
}
function spread(c, pre,   h, lo, hi, v) {
	lo = 1e18; hi = 0
	for (h = 1; h <= 5; h++) { v = mean(c, pre heur[h]); if (v < lo) lo = v; if (v > hi) hi = v }
	return 100 * (hi / lo - 1)
}
function extreme(c, pre, low,   h, b, v, bv) {	# the heuristic with the lowest (highest) mean
	bv = low ? 1e18 : -1
	for (h = 1; h <= 5; h++) {
		v = mean(c, pre heur[h])
		if ((low && v < bv) || (!low && v > bv)) { bv = v; b = heur[h] }
	}
	return b
}
function verdict(ok) { return ok ? "holds" : "does not hold" }

END {
	nc = split(confs, conf, " ")
	split("greedy sm-s sm-l color-s color-l", heur, " ")
	split("greedy s-m/S s-m/L color/S color/L", hname, " ")
	# papers/002: Table 1 (5), Table 2 (5), Table 3 (FX load, LIDs, Ren. load, LIDs, Sep. load, LIDs)
	pap["128/16"] = "478.7 478.9 477.3 479.3 476.4 520.9 524.2 514.0 581.2 466.0 4.34 128 3.84 477.8 3.70 466.0"
	pap["256/16"] = "1044.3 1045.4 1041.5 1047.7 1039.2 951.3 952.7 935.0 1062.6 851.2 8.65 256 7.52 1044.9 7.35 851.2"
	pap["512/16"] = "2218.3 2220.1 2211.8 2220.4 2208.5 1829.2 1852.8 1823.0 2038.7 1653.2 17.95 512 15.46 2213.3 14.91 1653.2"
	pap["128/32"] = "451.5 453.9 452.9 461.3 443.0 540.3 546.7 539.3 611.3 466.0 3.29 128 3.01 448.1 2.75 466.0"
	pap["256/32"] = "1078.8 1084.7 1079.0 1100.0 1062.4 1006.7 1018.2 1002.2 1130.8 887.2 6.89 256 6.26 1079.2 5.8 887.2"
	pap["512/32"] = "2428.7 2440.2 2425.8 2461.0 2392.1 1904.0 1920.3 1895.7 2115.8 1688.7 14.71 512 13.24 2422.8 12.37 1688.7"
	pap["128/64"] = "422.8 427.7 427.0 441.5 407.4 528.0 541.1 530.5 599.4 460.5 3.29 128 3.01 420.0 2.75 460.5"
	pap["256/64"] = "1015.5 1022.2 1019.3 1044.6 990.6 1054.9 1092.9 1068.1 1197.9 921.4 6.15 256 5.72 1011.8 5.13 921.4"
	pap["512/64"] = "2325.8 2338.4 2330.1 2385.1 2274.4 2019.9 2075.4 2043.4 2278.6 1786.6 11.36 512 10.55 2323.4 9.54 1786.6"
	seeds = 0
	for (i = 1; i <= nc; i++) if (n[conf[i]] > seeds) seeds = n[conf[i]]
	printf "Nienaber, Yuan and Duan, \"On LID Assignment In InfiniBand Networks\", on random irregular\nfabrics (average switch degree 8), %d seeds per configuration;\n", seeds
	print "each entry: mean±95% CI half width; 'paper' rows: the paper's means (32 GT-ITM instances)."

	table("Table 1: total LIDs (2^ceil(lg k) per machine), shortest-widest paths", "t1.", 1)
	table("Table 2: total LIDs, path selection (Yen's 16 shortest legal paths, most loaded link first)", "t2y.", 6)
	table("Table 2': path selection among the minimal-length legal paths only (variant)", "t2.", 0)

	print ""
	print "Table 3: max link load (each machine sends 1 in all) and LIDs"
	printf "%-8s %15s %9s %15s %15s %15s %15s\n", "conf.", "FX load", "FX LIDs", "Ren. load", "Ren. LIDs", "Sep. load", "Sep. LIDs"
	for (i = 1; i <= nc; i++) {
		c = conf[i]
		if (!n[c]) continue
		printf "%-8s %15s %9.1f %15s %15s %15s %15s\n", c, cell(c, "t3.fx.load", 6, 2),
			mean(c, "t3.fx.lids"), cell(c, "t3.ren.load", 6, 2), cell(c, "t3.ren.lids", 7, 1),
			cell(c, "t3y.sep.load", 6, 2), cell(c, "t2y.color-l", 7, 1)
		if (c in pap) {
			split(pap[c], p, " ")
			printf "%-8s %15.2f %9d %15.2f %15.1f %15.2f %15.1f\n", "  paper", p[11], p[12], p[13], p[14], p[15], p[16]
		}
	}

	print ""
	print "Variants (means): color/L with the degree among the candidates left ('cand') on shortest-widest"
	print "and minimal-candidate path selection; shortest-widest by its heaviest link (LIDs with color/L,"
	print "load); Separate on minimal-length candidates (load); renaming destination by destination"
	printf "%-8s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n", "conf.", "T1 c/L", "T1 cand", "T2' c/L", "T2' cand", "max c/L", "max load", "Sep' load", "RenD load", "RenD LIDs"
	for (i = 1; i <= nc; i++) {
		c = conf[i]
		if (!n[c]) continue
		printf "%-8s %10.1f %10.1f %10.1f %10.1f %10.1f %10.2f %10.2f %10.2f %10.1f\n", c,
			mean(c, "t1.color-l"), mean(c, "v.t1.color-l-dyn"), mean(c, "t2.color-l"),
			mean(c, "v.t2.color-l-dyn"), mean(c, "v.t1max.color-l"), mean(c, "v.t1max.load"),
			mean(c, "t3.sep.load"), mean(c, "v.rendst.load"), mean(c, "v.rendst.lids")
	}

	# --- the checks ---------------------------------------------------------------
	print ""
	print "Checks of the reproduction (the paper's claims and their expected margins):"
	cells = 0; low = 0; high = 0; lowps = 0; ncps = 0; sign = 1; signtxt = ""
	for (i = 1; i <= nc; i++) {
		c = conf[i]
		if (!n[c]) continue
		for (t = 1; t <= 2; t++) {
			pre = t == 1 ? "t1." : "t2y."
			cells++
			low += extreme(c, pre, 1) == "color-l"
			high += extreme(c, pre, 0) == "color-s"
		}
		ncps++
		lowps += extreme(c, "t2y.", 1) == "color-l"
		w = 0
		for (s = 1; s <= n[c]; s++) w += val[c, "t2y.color-l", s] + 0 <= val[c, "t2y.greedy", s] + 0
		signtxt = signtxt sprintf(" %s %d/%d", c, w, n[c])
		if (w < 0.75 * n[c]) sign = 0
	}
	printf "S1 color/L lowest mean in %d/%d cells (want >= all but one), in %d/%d path-selection cells (want all);\n", low, cells, lowps, ncps
	printf "   color/S highest in %d/%d (want >= all but two); color/L <= greedy per instance, path selection:%s\n", high, cells, signtxt
	printf "   -> %s\n", verdict(low >= cells - 1 && lowps == ncps && high >= cells - 2 && sign)
	s2 = 1; txt1 = ""; txt2 = ""
	for (i = 1; i <= nc; i++) {
		c = conf[i]
		if (!n[c]) continue
		a = spread(c, "t2y."); b = spread(c, "t1.")
		txt2 = txt2 sprintf(" %s %.1f%%", c, a); txt1 = txt1 sprintf(" %s %.1f%%", c, b)
		if (a < 15 || b > 10) s2 = 0
	}
	printf "S2 spread (worst/best - 1), path selection (want >= 15%%):%s\n", txt2
	printf "   shortest-widest (want <= 10%%):%s\n   -> %s\n", txt1, verdict(s2)
	s3 = 1; cnt = 0; tot = 0; txt = ""
	for (i = 1; i <= nc; i++) {
		c = conf[i]
		if (!n[c]) continue
		for (t = 1; t <= 2; t++) {
			pre = t == 1 ? "t1." : "t2y."
			d = 100 * (mean(c, pre "sm-l") / mean(c, pre "greedy") - 1)
			if (d > 3 || d < -3) s3 = 0
			txt = txt sprintf(" %+.1f%%", d)
			tot++; cnt += mean(c, pre "sm-s") >= mean(c, pre "greedy")
		}
	}
	printf "S3 s-m/L vs greedy (want within 3%%):%s\n   s-m/S >= greedy in %d/%d cells -> %s\n", txt, cnt, tot, verdict(s3 && cnt >= tot - 2)
	fxn = 1; ord = 0; rat = 0; ren = 0; okn = 0; nn = 0; cs = 0; txt = ""
	for (i = 1; i <= nc; i++) {
		c = conf[i]
		if (!n[c]) continue
		cs++
		m = c; sub(/\/.*/, "", m)
		fx = mean(c, "t3.fx.load"); rn = mean(c, "t3.ren.load"); sp = mean(c, "t3y.sep.load")
		if (mean(c, "t3.fx.lids") != m) fxn = 0
		ord += sp < rn && rn < fx
		r = fx / sp
		rat += r >= 1.05 && r <= 1.40
		d = 100 * (mean(c, "t3.ren.lids") / mean(c, "t1.greedy") - 1)
		ren += d <= 2 && d >= -2
		if (m >= 256) { nn++; okn += mean(c, "t2y.color-l") < mean(c, "t3.ren.lids") }
		txt = txt sprintf("\n   %s: FX LIDs %d, load Sep %.2f < Ren %.2f < FX %.2f: %s, FX/Sep %.2f, renaming vs greedy LIDs %+.1f%%", c, mean(c, "t3.fx.lids"), sp, rn, fx, (sp < rn && rn < fx) ? "yes" : "no", r, d)
	}
	printf "S4 Table 3:%s\n", txt
	printf "   FX LIDs = machines in every cell -> %s; load Separate < Renaming < FX in %d/%d -> %s\n", verdict(fxn), ord, cs, verdict(ord == cs)
	printf "   FX/Separate load in [1.05, 1.40] (paper 1.17-1.20) in %d/%d -> %s\n", rat, cs, verdict(rat == cs)
	printf "   renaming LIDs within 2%% of greedy on shortest-widest in %d/%d -> %s\n", ren, cs, verdict(ren == cs)
	printf "   Separate needs fewer LIDs than renaming at 256/512 machines in %d/%d -> %s\n", okn, nn, verdict(okn == nn)
	print "   (renaming: shortest-widest paths, LIDs first fit: its LIDs are Table 1's greedy column;"
	print "   destination by destination instead, see the variants)"
	if (n["512/64"]) {
		c = "512/64"
		dl = 100 * (1 - mean(c, "t2y.color-l") / mean(c, "t3.ren.lids"))
		dd = 100 * (1 - mean(c, "t3y.sep.load") / mean(c, "t3.ren.load"))
		printf "S5 512/64, Separate vs renaming: %.1f%% fewer LIDs (want >= 11.5%%; paper 23.1%%), %.1f%% lower load (want >= 4.8%%; paper 9.6%%) -> %s\n", dl, dd, verdict(dl >= 11.5 && dd >= 4.8)
	}
	txt = ""; ok = 1
	for (i = 1; i <= nc; i++) {
		c = conf[i]
		if (!n[c]) continue
		m = c; sub(/\/.*/, "", m)
		v = mean(c, "t2y.color-l") / m
		txt = txt sprintf(" %s %.2f", c, v)
		if (v < 2.5 || v > 5.0) ok = 0
	}
	printf "   color/L LIDs per machine on path selection (want 2.5-5.0; paper 3.2-3.6):%s -> %s\n", txt, verdict(ok)
	if (n["128/16"]) {
		r = mean("128/16", "t3.fx.load") / 4.34
		printf "   FX max load at 128/16: %.2f, %.0f%% of the paper's 4.34 (want 70-130%%) -> %s\n", mean("128/16", "t3.fx.load"), 100 * r, verdict(r >= 0.7 && r <= 1.3)
	}
	if (n["128/16"] && val["128/16", "ex.opt.k", 1] != "") {
		c = "128/16"
		k = 0; o = 0; pr = 0; ds = 0
		for (s = 1; s <= n[c]; s++) { k += val[c, "ex.color-l.k", s]; o += val[c, "ex.opt.k", s]; pr += val[c, "ex.proven", s]; ds += val[c, "ex.dests", s] }
		printf "S6 128/16 path selection, all instances: color/L %d configurations, exact %d (%+.2f%%; want <= 3%%), %d of %d destinations proven optimal -> %s\n", k, o, 100 * (k / o - 1), pr, ds, verdict(k <= 1.03 * o)
	}

	print ""
	print "Time per instance (ms, mean): swidest paths, path selection (minimal), path selection (Yen), the five heuristics on the shortest-widest paths"
	for (i = 1; i <= nc; i++) {
		c = conf[i]
		if (!n[c]) continue
		printf "  %-8s %8.1f %8.1f %8.1f %8.1f   candidates: %.0f minimal, %.0f Yen\n", c, mean(c, "ms.swidest"), mean(c, "ms.pathsel"), mean(c, "ms.pathsel.yen"), mean(c, "ms.heuristics"), mean(c, "cands"), mean(c, "cands.yen")
	}
	printf "  wall clock: %d s\n", secs
}
AWK
