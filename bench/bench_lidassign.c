/* SPDX-License-Identifier: MIT */
/*
 * papers/002's experiment, one instance per line (bench/lidassign.sh sums
 * them up into Tables 1-3): a random irregular fabric of SWITCHES switches
 * of average degree 8 and MACHINES machines placed uniformly on them
 * (`fabroute gen random`), Up*\/Down* from a root drawn with the instance's
 * seed; then
 *
 *  - shortest-widest paths, realised with each of the five heuristics
 *    (Table 1): total LIDs, each port 2^ceil(lg k);
 *  - path-selection paths, the same (Table 2);
 *  - fully explicit, destination renaming (shortest-widest paths, LIDs first
 *    fit: Table 1's greedy column) and Separate (path selection + color/L):
 *    the largest load of a directed link when each machine sends 1 in all
 *    to the others (pairs on the link / (machines - 1)) and the LIDs
 *    (Table 3); renaming destination by destination as a variant;
 *  - variants: color/L with the degree among the candidates left, and
 *    shortest-widest by its heaviest link; with --exact MS, the exact
 *    optimum of color/L's configurations on path selection (Yen's
 *    candidates; MS ms per destination) and how many destinations it proved;
 *  - the time of each step.
 *
 * Usage: bench_lidassign MACHINES SWITCHES SEED [SEED_TO] [--exact MS]
 * Output: "key=value" fields, one line per seed (see the header line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engines/lidassign/la_impl.h"
#include "gen/gen.h"

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void die(const char *what, const struct fab_err *err)
{
	fprintf(stderr, "bench_lidassign: %s: %s\n", what, err->msg);
	exit(1);
}

/* Total LIDs of @ps with heuristic @h (@dyn: degree among the candidates left). */
static unsigned long long lids(const struct fabric *f, const struct fmt_paths *ps,
			       enum la_heur h, int dyn)
{
	struct la_opts o = { .heur = h, .dynamic = dyn };
	struct la_assign a;
	struct fab_err err = { { 0 } };
	unsigned long long n;

	if (la_assign(f, ps, &o, &a, &err))
		die(la_heur_name(h), &err);
	n = a.lids;
	la_assign_free(&a);
	return n;
}

/*
 * papers/002's load: each machine sends 1 in all, 1 / (N - 1) to each other;
 * the most loaded directed link, switch links and machine links alike.
 */
static double max_load(const struct la_ctx *c, const struct fmt_paths *ps)
{
	const struct fabric *f = c->f;
	size_t nl = (size_t)c->ns * c->nports;
	uint64_t *n = calloc(nl + 1, sizeof(*n)), best = 1;

	for (size_t i = 0; n && i < ps->n; i++)
		for (size_t h = ps->off[i]; h + 1 < ps->off[i + 1]; h++)
			n[(size_t)f->nodes[ps->hop[h].node].swidx * c->nports + ps->hop[h].port]++;
	for (size_t l = 0; n && l < nl; l++)
		if (n[l] > best)
			best = n[l];
	free(n);
	if (c->nca < 2)
		return 0;
	/* a machine's own link carries 1: all it sends, or all it receives */
	return (double)best / (c->nca - 1) > 1.0 ? (double)best / (c->nca - 1) : 1.0;
}

static void one(unsigned machines, unsigned switches, uint64_t seed, double exact_ms)
{
	static const enum la_heur hs[] = { LA_GREEDY, LA_SM_S, LA_SM_L, LA_COLOR_S, LA_COLOR_L };
	char m[32], s[32];
	const char *kv[] = { m, s, "degree=8" };
	struct fab_err err = { { 0 } };
	struct fabric *f;
	struct la_updn u;
	struct la_ctx c;
	struct fmt_paths sw = { 0 }, sel = { 0 }, fx = { 0 }, ren = { 0 }, swmax = { 0 }, yen = { 0 };
	struct la_sel_stats sy;
	struct la_sel_stats ss;
	struct eng_args none = { 0 };
	double t0, t_sw, t_sel, t_yen, t_lids;
	struct la_root root;

	snprintf(m, sizeof(m), "machines=%u", machines);
	snprintf(s, sizeof(s), "switches=%u", switches);
	if (!(f = gen_build("random", kv, 3, seed, &err)))
		die("gen", &err);
	if (la_updn_root(f, &none, seed, 16, NULL, &root, &err) || la_updn_build(f, root.sw, &u, &err) ||
	    la_ctx_init(&c, f, &u, &err))
		die("up/down", &err);
	t0 = now_ms();
	if (la_paths_widest(&c, 0, 0, &sw, &err))
		die("shortest-widest", &err);
	t_sw = now_ms() - t0;
	t0 = now_ms();
	if (la_paths_select(&c, 16, 0, &sel, &ss, &err))
		die("path selection", &err);
	t_sel = now_ms() - t0;
	t0 = now_ms();
	if (la_paths_select(&c, 16, 1, &yen, &sy, &err))
		die("path selection (Yen)", &err);
	t_yen = now_ms() - t0;
	if (la_paths_explicit(&c, &fx, &err) || la_paths_widest(&c, 1, 0, &ren, &err) ||
	    la_paths_widest(&c, 0, 1, &swmax, &err))
		die("baselines", &err);
	printf("conf=%u/%u seed=%llu", machines, switches, (unsigned long long)seed);
	t0 = now_ms();
	for (size_t i = 0; i < 5; i++)
		printf(" t1.%s=%llu", la_heur_name(hs[i]), lids(f, &sw, hs[i], 0));
	t_lids = now_ms() - t0;
	for (size_t i = 0; i < 5; i++)
		printf(" t2.%s=%llu", la_heur_name(hs[i]), lids(f, &sel, hs[i], 0));
	for (size_t i = 0; i < 5; i++)
		printf(" t2y.%s=%llu", la_heur_name(hs[i]), lids(f, &yen, hs[i], 0));
	printf(" t3y.sep.load=%.4f", max_load(&c, &yen));
	printf(" t3.fx.load=%.4f t3.fx.lids=%llu t3.ren.load=%.4f t3.ren.lids=%llu"
	       " v.rendst.load=%.4f v.rendst.lids=%llu t3.sep.load=%.4f t3.sep.lids=%llu",
	       max_load(&c, &fx), lids(f, &fx, LA_GREEDY, 0), max_load(&c, &sw),
	       lids(f, &sw, LA_GREEDY, 0), max_load(&c, &ren), lids(f, &ren, LA_GREEDY, 0),
	       max_load(&c, &sel), lids(f, &sel, LA_COLOR_L, 0));
	printf(" t1.sw.greedy=%llu v.t1.color-l-dyn=%llu v.t2.color-l-dyn=%llu v.t1max.color-l=%llu"
	       " v.t1max.load=%.4f t1.sw.load=%.4f", lids(f, &sw, LA_GREEDY, 0),
	       lids(f, &sw, LA_COLOR_L, 1), lids(f, &sel, LA_COLOR_L, 1),
	       lids(f, &swmax, LA_COLOR_L, 0), max_load(&c, &swmax), max_load(&c, &sw));
	if (exact_ms > 0) {
		struct la_opts o = { .heur = LA_COLOR_L };
		struct la_assign a;
		uint32_t *opt = calloc(f->neps, sizeof(*opt));
		uint8_t *proven = calloc(f->neps, 1);
		unsigned long long k = 0, best = 0, np = 0, nd = 0;

		if (!opt || !proven || la_assign(f, &yen, &o, &a, &err) ||
		    la_optimum(f, &yen, &o, exact_ms, opt, proven, &err))
			die("exact", &err);
		for (uint32_t e = 0; e < f->neps; e++)
			if (a.k[e]) {
				k += a.k[e];
				best += opt[e];
				np += proven[e];
				nd++;
			}
		printf(" ex.color-l.k=%llu ex.opt.k=%llu ex.proven=%llu ex.dests=%llu", k, best, np,
		       nd);
		la_assign_free(&a);
		free(opt);
		free(proven);
	}
	printf(" cands=%llu cands.yen=%llu ms.swidest=%.1f ms.pathsel=%.1f ms.pathsel.yen=%.1f"
	       " ms.heuristics=%.1f\n", (unsigned long long)ss.cands, (unsigned long long)sy.cands,
	       t_sw, t_sel, t_yen, t_lids);
	fflush(stdout);
	fmt_paths_free(&sw);
	fmt_paths_free(&sel);
	fmt_paths_free(&fx);
	fmt_paths_free(&ren);
	fmt_paths_free(&swmax);
	fmt_paths_free(&yen);
	la_ctx_free(&c);
	la_updn_free(&u);
	fab_free(f);
}

int main(int argc, char **argv)
{
	unsigned long long from, to;
	double exact_ms = 0;
	int n = argc;

	if (argc > 2 && !strcmp(argv[argc - 2], "--exact")) {
		exact_ms = atof(argv[argc - 1]);
		n -= 2;
	}
	if (n < 4 || n > 5) {
		fprintf(stderr, "usage: bench_lidassign MACHINES SWITCHES SEED [SEED_TO] [--exact MS]\n");
		return 2;
	}
	from = strtoull(argv[3], NULL, 10);
	to = n == 5 ? strtoull(argv[4], NULL, 10) : from;
	for (unsigned long long seed = from; seed <= to; seed++)
		one((unsigned)atoi(argv[1]), (unsigned)atoi(argv[2]), seed, exact_ms);
	return 0;
}
