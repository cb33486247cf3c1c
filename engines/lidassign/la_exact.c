/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - exact colouring of a split graph (DSATUR branch and bound)
 *
 * The fewest configurations of one destination is the chromatic number of
 * its split graph. Brélaz's DSATUR order drives a depth-first search: the
 * next vertex is the uncoloured one seeing the most distinct colours among
 * its neighbours (then the most uncoloured neighbours, then the lowest
 * index); it takes each colour already in use that none of its neighbours
 * has, then one new colour, as long as the count stays below the best
 * colouring known. The search starts from a heuristic's colouring and stops
 * when it finishes (the best is optimal), when it reaches a clique's size
 * (a lower bound), or when a cap on search nodes or on CPU time is hit (the
 * best is then only an upper bound). For papers/002's S6 check and the
 * optimality gap `fabroute lids --exact` reports; engines never call it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engines/lidassign/lidassign.h"

struct ex {
	const struct la_graph *g;
	uint32_t n, cap, best, lb;
	uint32_t *bestc, *col, *sat, *udeg;
	uint16_t *cnt;		/* n x cap: neighbours of v holding colour c */
	uint64_t nodes, max_nodes;
	clock_t deadline;
	int stop, timed;
};

static double cpu_ms(void)
{
	return (double)clock() * 1000.0 / CLOCKS_PER_SEC;
}

/* A clique found greedily, largest degree first: a lower bound on the colours. */
static uint32_t clique_bound(const struct la_graph *g)
{
	uint32_t best = g->n ? 1 : 0;
	uint32_t *mem = malloc(((size_t)g->n + 1) * sizeof(*mem));

	for (uint32_t s = 0; mem && s < g->n; s++) {
		uint32_t m = 0;

		mem[m++] = s;
		for (uint32_t v = 0; v < g->n; v++) {
			uint32_t i = 0;

			if (v == s || g->deg[v] + 1 <= best)
				continue;
			while (i < m && la_graph_has(g, v, mem[i]))
				i++;
			if (i == m)
				mem[m++] = v;
		}
		if (m > best)
			best = m;
	}
	free(mem);
	return best;
}

static void set_colour(struct ex *x, uint32_t v, uint32_t c, int on)
{
	const uint64_t *row = x->g->adj + (size_t)v * x->g->words;

	x->col[v] = on ? c : UINT32_MAX;
	for (uint32_t w = 0; w < x->g->words; w++)
		for (uint64_t b = row[w]; b; b &= b - 1) {
			uint32_t u = w * 64 + (uint32_t)__builtin_ctzll(b);
			uint16_t *k = &x->cnt[(size_t)u * x->cap + c];

			if (on) {
				x->sat[u] += !(*k)++;
				x->udeg[u]--;
			} else {
				x->sat[u] -= !--(*k);
				x->udeg[u]++;
			}
		}
}

static uint32_t next_vertex(const struct ex *x)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t v = 0; v < x->n; v++) {
		if (x->col[v] != UINT32_MAX)
			continue;
		if (best == UINT32_MAX || x->sat[v] > x->sat[best] ||
		    (x->sat[v] == x->sat[best] && x->udeg[v] > x->udeg[best]))
			best = v;
	}
	return best;
}

static int limits_hit(struct ex *x)
{
	x->nodes++;
	if ((x->max_nodes && x->nodes > x->max_nodes) ||
	    (x->deadline && !(x->nodes & 255) && clock() > x->deadline))
		x->stop = x->timed = 1;
	return x->stop;
}

static void search(struct ex *x, uint32_t depth, uint32_t used)
{
	uint32_t v;

	if (depth == x->n) {
		x->best = used;
		memcpy(x->bestc, x->col, x->n * sizeof(*x->col));
		if (x->best <= x->lb)
			x->stop = 1;
		return;
	}
	if (limits_hit(x))
		return;
	v = next_vertex(x);
	for (uint32_t c = 0; c <= used && c + 1 < x->best && !x->stop; c++) {
		if (x->cnt[(size_t)v * x->cap + c])
			continue;
		set_colour(x, v, c, 1);
		search(x, depth + 1, c == used ? used + 1 : used);
		set_colour(x, v, c, 0);
	}
}

int la_exact_colour(const struct la_graph *g, uint32_t *colour, uint32_t k0, uint64_t max_nodes,
		    double max_ms, struct la_exact *res)
{
	struct ex x = { .g = g, .n = g->n, .cap = k0 ? k0 : 1, .best = k0,
			.max_nodes = max_nodes };
	int rc = -1;

	memset(res, 0, sizeof(*res));
	res->k = k0;
	x.lb = clique_bound(g);
	if (k0 <= x.lb || !g->n) {
		res->optimal = 1;
		return 0;
	}
	if (max_ms > 0)
		x.deadline = (clock_t)((cpu_ms() + max_ms) * CLOCKS_PER_SEC / 1000.0) + 1;
	x.bestc = malloc((size_t)g->n * sizeof(*x.bestc));
	x.col = malloc((size_t)g->n * sizeof(*x.col));
	x.sat = calloc(g->n, sizeof(*x.sat));
	x.udeg = malloc((size_t)g->n * sizeof(*x.udeg));
	x.cnt = calloc((size_t)g->n * x.cap, sizeof(*x.cnt));
	if (x.bestc && x.col && x.sat && x.udeg && x.cnt) {
		memcpy(x.bestc, colour, g->n * sizeof(*colour));
		for (uint32_t v = 0; v < g->n; v++) {
			x.col[v] = UINT32_MAX;
			x.udeg[v] = g->deg[v];
		}
		search(&x, 0, 0);
		memcpy(colour, x.bestc, g->n * sizeof(*colour));
		res->k = x.best;
		res->optimal = !x.timed;
		res->nodes = x.nodes;
		rc = 0;
	}
	free(x.bestc);
	free(x.col);
	free(x.sat);
	free(x.udeg);
	free(x.cnt);
	return rc;
}
