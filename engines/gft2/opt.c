/* SPDX-License-Identifier: MIT */
/**
 * DOC: OPT on 2-level generalized fat trees (papers/003 Fig. 2 and Section IV)
 *
 * OPT (Section III-B, Fig. 2) on T(n+m, r), numbered as engines/gft2/gft2.c
 * says: with k = floor(sqrt(m)) and grp_size = ceil(n / k), the nodes of
 * each bottom switch fall into groups of grp_size by local index (s mod n);
 * there are G = ceil(n / grp_size) <= k of them. A pair (s, d) on two
 * bottom switches goes through TSW_{src_grp * k + dst_grp}. Every up link
 * then carries traffic from one group of one bottom switch (at most
 * grp_size sources) and every down link traffic to one group of one bottom
 * switch (at most grp_size destinations), so no permutation puts more than
 * grp_size pairs on a link: WORST = ceil(n / floor(sqrt(m))) (Theorem 3 and
 * Table I).
 *
 * LIDs: the top switch depends on the source's group, which an LFT cannot
 * see. So every node owns one LID per source group (LMC = ceil(log2 G));
 * LID offset i of node d is routed through the top switch of (source group
 * i, d), and source s uses offset src_grp(s) of every destination, what a
 * PathRecord would return. Offsets past G (a larger LMC) are routed as
 * offset mod G.
 *
 * Balancing (Section IV): when sqrt(m) is not an integer or n is not a
 * multiple of it, Fig. 2 leaves m - G^2 top switches unused. The paper
 * moves SD pairs to them, round robin over the loaded switches, while every
 * link keeps carrying traffic from at most grp_size sources or to at most
 * grp_size destinations. With destination-based LFTs and one LID per source
 * group, the unit that can move is (source group i, destination d): the
 * LID of d for group i, and with it the pairs from group i on every other
 * bottom switch to d. Here:
 *
 *  1. the unused top switches, in ascending order, go to the source groups
 *     round robin (the x-th to group x mod G): their up links will only
 *     carry group i, at most grp_size sources, as Fig. 2's do;
 *  2. per source group i, round robin over its Fig. 2 switches TSW_{i*k+j}
 *     (j = 0 .. G-1): when TSW_{i*k+j} serves more destinations per bottom
 *     switch than the least loaded of group i's extra switches plus one, its
 *     highest-indexed destination moves there; rounds repeat until no move
 *     happens. Destinations are per local index, the same on every bottom
 *     switch, so the plan is a table (source group, local index) -> top
 *     switch.
 *
 * Why WORST stays optimal: an up link of a top switch of group i still
 * only carries sources of group i of its bottom switch (<= grp_size); a
 * down link carries the destinations of one bottom switch assigned to its
 * top switch for one source group, and moves only go to a switch serving
 * fewer, so never more than Fig. 2's largest group, grp_size. Terminal
 * links carry one source or one destination. Balancing only lowers the
 * destinations per down link, to about n / (m / G) (e.g. T(12+12, 24):
 * 4 -> 3, T(16+32, 48): 4 -> 2), and spreads each up link's destinations
 * over more switches, which is what raises ABB, AFPB and ADB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/gft2/gft2.h"

/**
 * struct opt_plan - which top switch carries which LID
 * @k: floor(sqrt(m))
 * @gs: grp_size, ceil(n / k), also the worst-case permutation load
 * @groups: G, ceil(n / gs)
 * @extra: top switches Fig. 2 leaves unused (m - G^2)
 * @moved: (source group, local index) entries balancing moved
 * @owner: owner[i * n + q]: top switch of the LID offset i of the nodes
 *         with local index q
 */
struct opt_plan {
	uint32_t k, gs, groups, extra, moved;
	uint32_t *owner;
};

static uint32_t isqrt(uint32_t m)
{
	uint32_t k = 0;

	while ((uint64_t)(k + 1) * (k + 1) <= m)
		k++;
	return k;
}

static void plan_sizes(const struct gft2 *g, struct opt_plan *p)
{
	p->k = isqrt(g->m);
	p->gs = (g->n + p->k - 1) / p->k;
	p->groups = (g->n + p->gs - 1) / p->gs;
	p->extra = g->m - p->groups * p->groups;
	p->moved = 0;
	p->owner = NULL;
}

/* The least loaded of group @i's extra switches (@spare[i], @spare[i + G], ...). */
static uint32_t least_loaded(const struct opt_plan *p, const uint32_t *spare, uint32_t i,
			     const uint32_t *load)
{
	uint32_t best = spare[i];

	for (uint32_t x = i + p->groups; x < p->extra; x += p->groups)
		if (load[spare[x]] < load[best])
			best = spare[x];
	return best;
}

/* Move the highest local index group @i sends through @from over to @to. */
static void move_one(const struct gft2 *g, struct opt_plan *p, uint32_t i, uint32_t from,
		     uint32_t to)
{
	uint32_t *row = p->owner + (size_t)i * g->n;

	for (uint32_t q = g->n; q-- > 0;)
		if (row[q] == from) {
			row[q] = to;
			p->moved++;
			return;
		}
}

/* Step 2 of the balancing for source group @i; @load is scratch of m entries. */
static void balance_group(const struct gft2 *g, struct opt_plan *p, uint32_t i,
			  const uint32_t *spare, uint32_t *load)
{
	int moved = 1;

	for (uint32_t t = 0; t < g->m; t++)
		load[t] = 0;
	for (uint32_t q = 0; q < g->n; q++)
		load[p->owner[(size_t)i * g->n + q]]++;
	while (moved) {
		moved = 0;
		for (uint32_t j = 0; j < p->groups; j++) {
			uint32_t from = i * p->k + j, to = least_loaded(p, spare, i, load);

			if (load[from] > load[to] + 1) {
				move_one(g, p, i, from, to);
				load[from]--;
				load[to]++;
				moved = 1;
			}
		}
	}
}

/* Section IV's balancing (see the DOC comment). Return: 0, or -1 when out of memory. */
static int balance(const struct gft2 *g, struct opt_plan *p)
{
	uint32_t *spare = malloc((size_t)g->m * sizeof(*spare));
	uint32_t *load = malloc((size_t)g->m * sizeof(*load));
	uint32_t x = 0;

	if (!spare || !load) {
		free(spare);
		free(load);
		return -1;
	}
	for (uint32_t t = 0; t < g->m; t++)
		if (t / p->k >= p->groups || t % p->k >= p->groups)
			spare[x++] = t;
	for (uint32_t i = 0; i < p->groups && i < p->extra; i++)
		balance_group(g, p, i, spare, load);
	free(spare);
	free(load);
	return 0;
}

/* Fig. 2's table, then the balancing when asked. Return: 0, or -1 when out of memory. */
static int plan_build(const struct gft2 *g, int balanced, struct opt_plan *p)
{
	plan_sizes(g, p);
	p->owner = malloc((size_t)p->groups * g->n * sizeof(*p->owner));
	if (!p->owner)
		return -1;
	for (uint32_t i = 0; i < p->groups; i++)
		for (uint32_t q = 0; q < g->n; q++)
			p->owner[(size_t)i * g->n + q] = i * p->k + q / p->gs;
	if (balanced && p->extra && balance(g, p)) {
		free(p->owner);
		p->owner = NULL;
		return -1;
	}
	return 0;
}

static unsigned opt_top(const struct gft2 *g, const void *ctx, uint32_t d, unsigned off)
{
	const struct opt_plan *p = ctx;

	return p->owner[(size_t)(off % p->groups) * g->n + d % g->n];
}

static unsigned opt_off(const struct gft2 *g, const void *ctx, uint32_t s, uint32_t d)
{
	const struct opt_plan *p = ctx;

	(void)d;
	return (s % g->n) / p->gs;
}

static unsigned opt_lmc(const struct fabric *f, const struct eng_args *a)
{
	struct fab_err err;
	struct opt_plan p;
	struct gft2 g;
	unsigned lmc;

	(void)a;
	if (gft2_recognise(f, &g, &err))
		return 0;
	plan_sizes(&g, &p);
	lmc = gft2_log2(p.groups);
	if (!gft2_lmc_fits(f, &g, lmc))
		lmc = 0;
	gft2_free(&g);
	return lmc;
}

static void opt_notes(const struct gft2 *g, const struct opt_plan *p, int balanced, unsigned lmc,
		      char *buf, size_t len)
{
	int w = snprintf(buf, len, "T(%u+%u, %u): k=%u, %u source groups of %u nodes, LMC %u, "
			 "worst-case permutation load %u; Fig. 2 uses %u of %u top switches",
			 g->n, g->m, g->r, p->k, p->groups, p->gs, lmc, p->gs,
			 p->groups * p->groups, g->m);

	if (w < 0 || (size_t)w >= len || !p->extra)
		return;
	if (balanced)
		snprintf(buf + w, len - (size_t)w, ", balancing moved %u (source group, "
			 "destination index) entries to the other %u", p->moved, p->extra);
	else
		snprintf(buf + w, len - (size_t)w, ", balancing off");
}

/* Plan, check the LID space, route the recognised tree @g. */
static int opt_run(const struct fabric *f, const struct gft2 *g, int balanced,
		   struct rt_routing **out, struct fab_err *err)
{
	struct gft2_rule rule = { .name = "opt", .lmc_why = "one LID per source group",
				  .top = opt_top, .src_off = opt_off };
	struct opt_plan p;
	char notes[300];
	int rc;

	if (plan_build(g, balanced, &p)) {
		fab_err_set(err, "opt: out of memory");
		return ENG_ERROR;
	}
	rule.lmc = gft2_log2(p.groups);
	rule.ctx = &p;
	if (!gft2_lmc_fits(f, g, rule.lmc)) {
		fab_err_set(err, "opt needs LMC %u (one LID per source group, %u groups): %u CA ports "
			    "with %u LIDs each do not fit in the unicast LID space", rule.lmc,
			    p.groups, g->r * g->n, 1u << rule.lmc);
		free(p.owner);
		return ENG_NOT_APPLICABLE;
	}
	opt_notes(g, &p, balanced, rule.lmc, notes, sizeof(notes));
	rc = gft2_route(f, g, &rule, notes, out, err);
	free(p.owner);
	return rc;
}

static const struct eng_opt opt_options[] = {
	{ .name = "balance", .type = ENG_OPT_BOOL, .defval = "1",
	  .help = "1: move pairs to the top switches Fig. 2 leaves unused (papers/003 Section IV); 0: "
	  "Fig. 2 alone" },
	{ .name = NULL },
};

static int opt_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		struct fab_err *err)
{
	const struct fabric *f = q->fabric;
	struct rt_routing **out = &res->routing;
	struct gft2 g;
	int balanced = eng_arg_bool(a, "balance"), rc;

	*out = NULL;
	rc = gft2_recognise(f, &g, err);
	if (rc)
		return rc;
	rc = opt_run(f, &g, balanced, out, err);
	gft2_free(&g);
	return rc;
}

const struct engine eng_opt = {
	.name = "opt",
	.summary = "OPT on 2-level generalized fat trees T(n+m, r) (Nienaber, Mahapatra and Yuan, "
		   "\"Improving Performance of Deterministic Single-path Routing on 2-Level Generalized "
		   "Fat-trees\", Fig. 2, balanced): optimal worst-case permutation load "
		   "ceil(n / floor(sqrt(m))); needs LMC ceil(log2 source groups)",
	.options = opt_options,
	.deadlock_free = 1,
	.vls = 1,
	.lmc = opt_lmc,
	.route = opt_route,
};
