/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - configurations, LID plan and tables on a fabric
 *
 * Destinations are ports (a multi-homed machine is several destinations),
 * the split points are switches. la_assign() groups the paths by
 * destination port, in the order (source endpoint, order given) unless the
 * caller keeps its own order, merges identical paths (they cannot split and
 * get one DLID), colours each group, checks the result (valid and minimal)
 * and ranks its configurations largest first: rank 0 sits at the base LID,
 * the DLID an SA PathRecord Get returns, so it serves the most pairs.
 *
 * la_plan() turns per-port LMCs into LIDs; la_realise() into forwarding
 * tables. Completion gives every LID of every range a route from every
 * switch: from the switches a configuration covers, first switches that hop
 * down to a switch whose route only goes down (the route stays all-down),
 * nearest first; then switches that hop up to any routed switch, nearest
 * first; ties to the least loaded port, then the lower port. An up hop in
 * front of a legal route, or a down hop in front of an all-down one, is
 * legal again, so every entry added keeps every walk Up*\/Down*-legal and
 * each LID's table an in-tree (no loop). Offsets j >= k repeat offset
 * (j mod k), which is what a global LMC (OpenSM) needs too.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/lidassign/lidassign.h"

void la_assign_free(struct la_assign *a)
{
	free(a->k);
	free(a->lmc);
	free(a->lb);
	free(a->offset);
	memset(a, 0, sizeof(*a));
}

struct pidx {
	uint32_t dst, src;
	size_t i;
};

static int cmp_pidx(const void *x, const void *y)
{
	const struct pidx *a = x, *b = y;

	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int same_path(const struct fmt_paths *ps, size_t a, size_t b)
{
	size_t n = ps->off[a + 1] - ps->off[a];

	if (ps->src[a] != ps->src[b] || ps->dst[a] != ps->dst[b] || n != ps->off[b + 1] - ps->off[b])
		return 0;
	for (size_t h = 0; h < n; h++)
		if (ps->hop[ps->off[a] + h].node != ps->hop[ps->off[b] + h].node ||
		    ps->hop[ps->off[a] + h].port != ps->hop[ps->off[b] + h].port)
			return 0;
	return 1;
}

/*
 * struct asg - la_assign() at work
 * @order: the paths sorted by destination
 * @hop: every hop of the set as (switch index, port)
 * @rep: per path, the first identical path (itself when unique)
 */
struct asg {
	const struct fabric *f;
	const struct fmt_paths *ps;
	const struct la_opts *o;
	struct la_assign *a;
	struct pidx *order;
	struct la_hop *hop;
	size_t *rep;
	const struct la_hop **p;
	uint32_t *len, *colour, *rank, *size;
	struct fab_err *err;
};

static const char *where(const struct fmt_paths *ps, size_t i, char *buf, size_t len)
{
	if (ps->line && ps->line[i])
		snprintf(buf, len, "path %zu (line %u)", i + 1, ps->line[i]);
	else
		snprintf(buf, len, "path %zu", i + 1);
	return buf;
}

static int check_paths(struct asg *g)
{
	const struct fmt_paths *ps = g->ps;
	char why[400], at[64];

	for (size_t i = 0; i < ps->n; i++) {
		if (ps->src[i] >= g->f->neps || ps->dst[i] >= g->f->neps || ps->src[i] == ps->dst[i]) {
			fab_err_set(g->err, "%s: bad endpoints", where(ps, i, at, sizeof(at)));
			return -1;
		}
		if (fmt_paths_check(g->f, ps->hop + ps->off[i], ps->off[i + 1] - ps->off[i],
				    ps->src[i], ps->dst[i], why, sizeof(why))) {
			fab_err_set(g->err, "%s: cannot be realised: %s", where(ps, i, at, sizeof(at)),
				    why);
			return -1;
		}
	}
	for (size_t h = 0; h < ps->nhops; h++)
		g->hop[h] = (struct la_hop){ g->f->nodes[ps->hop[h].node].swidx, ps->hop[h].port };
	return 0;
}

/* Sort by destination, find identical paths. */
static void group(struct asg *g)
{
	const struct fmt_paths *ps = g->ps;

	for (size_t i = 0; i < ps->n; i++)
		g->order[i] = (struct pidx){ ps->dst[i], g->o->input_order ? 0 : ps->src[i], i };
	qsort(g->order, ps->n, sizeof(*g->order), cmp_pidx);
	for (size_t i = 0; i < ps->n; i++) {
		size_t x = g->order[i].i;

		g->rep[x] = x;
		for (size_t j = i; j-- > 0 && g->order[j].dst == g->order[i].dst;) {
			size_t y = g->order[j].i;

			if (!g->o->input_order && ps->src[y] != ps->src[x])
				break;
			if (g->rep[y] == y && same_path(ps, y, x)) {
				g->rep[x] = y;
				g->a->dups++;
				break;
			}
		}
	}
}

struct rk {
	uint32_t size, colour;
};

static int cmp_rk(const void *x, const void *y)
{
	const struct rk *a = x, *b = y;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->colour < b->colour ? -1 : a->colour > b->colour;
}

/* Configurations ranked largest first: g->rank[colour]. */
static int rank_configs(struct asg *g, uint32_t n, uint32_t k)
{
	struct rk *r = malloc(((size_t)k + 1) * sizeof(*r));

	if (!r)
		return -1;
	for (uint32_t c = 0; c < k; c++)
		r[c] = (struct rk){ 0, c };
	for (uint32_t i = 0; i < n; i++)
		r[g->colour[i]].size++;
	qsort(r, k, sizeof(*r), cmp_rk);
	for (uint32_t c = 0; c < k; c++)
		g->rank[r[c].colour] = c;
	free(r);
	return 0;
}

static int too_many(struct asg *g, uint32_t d, uint32_t k)
{
	const struct fabric *f = g->f;
	const struct fab_ep *e = &f->eps[d];
	int sw = f->nodes[e->node].type == FAB_SWITCH;

	if (k <= (sw ? 1u : LA_LIDS_MAX))
		return 0;
	if (sw)
		fab_err_set(g->err, "switch '%s' (port 0): its paths need %u configurations; a "
			    "switch's port 0 has LMC 0, one LID", FAB_LABEL(f, e->node), k);
	else
		fab_err_set(g->err, "'%s' port %u (GUID 0x%016" PRIx64 "): its paths need %u "
			    "configurations, more than the %u LIDs a port can have (LMC 7)",
			    FAB_LABEL(f, e->node), e->port, fab_port(f, e->node, e->port)->guid, k,
			    LA_LIDS_MAX);
	return 1;
}

/* R_d of the distinct paths of order[b .. e) (one destination). */
static struct la_rd dest_rd(struct asg *g, size_t b, size_t e)
{
	struct la_rd rd = { .p = g->p, .len = g->len, .nnodes = g->f->nswitches };

	for (size_t i = b; i < e; i++) {
		size_t x = g->order[i].i;

		if (g->rep[x] != x)
			continue;
		g->p[rd.n] = g->hop + g->ps->off[x];
		g->len[rd.n++] = (uint32_t)(g->ps->off[x + 1] - g->ps->off[x]);
	}
	return rd;
}

/* Colour the paths of order[b .. e) (one destination). */
static int one_dest(struct asg *g, size_t b, size_t e)
{
	uint32_t d = g->order[b].dst, n, k = 0;
	struct la_rd rd = dest_rd(g, b, e);
	struct la_graph gr;
	char why[200];
	int rc;

	n = rd.n;
	if (la_colour(&rd, g->o, g->colour, &k) || la_graph_build(&rd, &gr)) {
		fab_err_set(g->err, "out of memory");
		return -1;
	}
	rc = la_check(&gr, g->colour, k, why, sizeof(why));
	la_graph_free(&gr);
	if (rc) {
		fab_err_set(g->err, "%s gave a wrong result for '%s': %s", la_heur_name(g->o->heur),
			    FAB_LABEL(g->f, g->f->eps[d].node), why);
		return -1;
	}
	if (too_many(g, d, k) || rank_configs(g, n, k))
		return -1;
	g->a->k[d] = k;
	g->a->lmc[d] = (uint8_t)la_lmc(k);
	g->a->lb[d] = la_lower_bound(&rd);
	g->a->configs += k;
	n = 0;
	for (size_t i = b; i < e; i++) {
		size_t x = g->order[i].i;

		if (g->rep[x] == x)
			g->a->offset[x] = g->rank[g->colour[n++]];
	}
	for (size_t i = b; i < e; i++)
		g->a->offset[g->order[i].i] = g->a->offset[g->rep[g->order[i].i]];
	return 0;
}

/* The figures per endpoint: destinations, ports, LIDs under per-port and global LMC. */
static void ep_totals(const struct fabric *f, struct la_assign *a)
{
	a->dests = a->cas = 0;
	a->lids = 0;
	a->lmc_max = 0;
	for (uint32_t e = 0; e < f->neps; e++) {
		if (a->k[e])
			a->dests++;
		if (f->nodes[f->eps[e].node].type == FAB_SWITCH)
			continue;
		a->cas++;
		a->lids += 1u << a->lmc[e];
		if (a->lmc[e] > a->lmc_max)
			a->lmc_max = a->lmc[e];
	}
	a->lids_global = (uint64_t)a->cas << a->lmc_max;
}

static void totals(struct asg *g)
{
	struct la_assign *a = g->a;
	const struct fmt_paths *ps = g->ps;

	ep_totals(g->f, a);
	a->paths = ps->n;
	/* pairs: the first path (in the order given) of each (source, destination) */
	for (size_t i = 0; i < ps->n; i++) {
		size_t x = g->order[i].i;
		int first = 1;

		for (size_t j = i; j-- > 0 && g->order[j].dst == g->order[i].dst;) {
			if (ps->src[g->order[j].i] == ps->src[x]) {
				first = 0;
				break;
			}
			if (!g->o->input_order)
				break;
		}
		if (!first)
			continue;
		a->pairs++;
		a->sa_pairs += a->offset[x] == 0;
	}
}

static int asg_alloc(struct asg *g)
{
	size_t n = g->ps->n + 1, neps = (size_t)g->f->neps + 1;

	g->a->k = calloc(neps, sizeof(*g->a->k));
	g->a->lmc = calloc(neps, 1);
	g->a->lb = calloc(neps, sizeof(*g->a->lb));
	g->a->offset = calloc(n, sizeof(*g->a->offset));
	g->order = malloc(n * sizeof(*g->order));
	g->hop = malloc((g->ps->nhops + 1) * sizeof(*g->hop));
	g->rep = malloc(n * sizeof(*g->rep));
	g->p = malloc(n * sizeof(*g->p));
	g->len = malloc(n * sizeof(*g->len));
	g->colour = malloc(n * sizeof(*g->colour));
	g->rank = malloc(n * sizeof(*g->rank));
	return g->a->k && g->a->lmc && g->a->lb && g->a->offset && g->order && g->hop && g->rep &&
	       g->p && g->len && g->colour && g->rank ? 0 : -1;
}

int la_assign(const struct fabric *f, const struct fmt_paths *ps, const struct la_opts *o,
	      struct la_assign *a, struct fab_err *err)
{
	struct asg g = { .f = f, .ps = ps, .o = o, .a = a, .err = err };
	int rc = -1;

	memset(a, 0, sizeof(*a));
	a->neps = f->neps;
	if (asg_alloc(&g)) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	if (check_paths(&g))
		goto out;
	group(&g);
	for (size_t b = 0, e; b < ps->n; b = e) {
		for (e = b + 1; e < ps->n && g.order[e].dst == g.order[b].dst; e++)
			;
		if (one_dest(&g, b, e))
			goto out;
	}
	totals(&g);
	rc = 0;
out:
	free(g.order);
	free(g.hop);
	free(g.rep);
	free(g.p);
	free(g.len);
	free(g.colour);
	free(g.rank);
	if (rc)
		la_assign_free(a);
	return rc;
}

/* One destination's result (@one, of the paths @ps to @d) into @a and the per-pair offsets @off. */
static void merge_dest(const struct fabric *f, uint32_t d, const struct fmt_paths *ps, const struct la_assign *one,
		       struct la_assign *a, uint8_t *off)
{
	a->k[d] = one->k[d];
	a->lmc[d] = one->lmc[d];
	a->lb[d] = one->lb[d];
	a->paths += one->paths;
	a->dups += one->dups;
	a->pairs += one->pairs;
	a->sa_pairs += one->sa_pairs;
	a->configs += one->configs;
	for (size_t i = 0; i < ps->n; i++)
		off[(size_t)ps->src[i] * f->neps + d] = (uint8_t)one->offset[i];
}

int la_assign_dests(const struct fabric *f, const struct la_source *src, const struct la_opts *o,
		    struct la_assign *a, uint8_t *off, struct fab_err *err)
{
	struct fmt_paths ps = { 0 };
	struct la_assign one;
	size_t neps = (size_t)f->neps + 1;
	int rc = -1;

	memset(a, 0, sizeof(*a));
	a->neps = f->neps;
	a->k = calloc(neps, sizeof(*a->k));
	a->lmc = calloc(neps, 1);
	a->lb = calloc(neps, sizeof(*a->lb));
	if (!a->k || !a->lmc || !a->lb) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	for (uint32_t d = 0; d < f->neps; d++) {
		ps.n = ps.nhops = 0;
		if (src->get(src->ud, d, &ps, err))
			goto out;
		if (!ps.n)
			continue;
		if (la_assign(f, &ps, o, &one, err))
			goto out;
		merge_dest(f, d, &ps, &one, a, off);
		la_assign_free(&one);
	}
	ep_totals(f, a);
	rc = 0;
out:
	fmt_paths_free(&ps);
	if (rc)
		la_assign_free(a);
	return rc;
}

int la_optimum(const struct fabric *f, const struct fmt_paths *ps, const struct la_opts *o,
	       double max_ms, uint32_t *opt, uint8_t *proven, struct fab_err *err)
{
	struct la_assign a = { 0 };
	struct asg g = { .f = f, .ps = ps, .o = o, .a = &a, .err = err };
	int rc = -1;

	for (uint32_t e = 0; e < f->neps; e++) {
		opt[e] = 0;
		proven[e] = 1;
	}
	if (asg_alloc(&g)) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	if (check_paths(&g))
		goto out;
	group(&g);
	for (size_t b = 0, e; b < ps->n; b = e) {
		struct la_rd rd;
		struct la_graph gr;
		struct la_exact ex;
		uint32_t k, d = g.order[b].dst;

		for (e = b + 1; e < ps->n && g.order[e].dst == d; e++)
			;
		rd = dest_rd(&g, b, e);
		if (la_colour(&rd, o, g.colour, &k) || la_graph_build(&rd, &gr)) {
			fab_err_set(err, "out of memory");
			goto out;
		}
		rc = la_exact_colour(&gr, g.colour, k, 0, max_ms, &ex);
		la_graph_free(&gr);
		if (rc) {
			fab_err_set(err, "out of memory");
			goto out;
		}
		rc = -1;
		opt[d] = ex.k;
		proven[d] = (uint8_t)ex.optimal;
	}
	rc = 0;
out:
	free(g.order);
	free(g.hop);
	free(g.rep);
	free(g.p);
	free(g.len);
	free(g.colour);
	free(g.rank);
	la_assign_free(&a);
	return rc;
}

/* --- the LID plan ------------------------------------------------------------------ */

struct plan_key {
	uint64_t guid;
	uint32_t ep;
	uint8_t lmc, sw;
};

static int cmp_plan(const void *x, const void *y)
{
	const struct plan_key *a = x, *b = y;

	if (a->sw != b->sw)
		return a->sw - b->sw;
	if (a->lmc != b->lmc)
		return b->lmc - a->lmc;
	return a->guid < b->guid ? -1 : a->guid > b->guid;
}

/* The lowest free range of 2^@lmc LIDs aligned to its size at or after *@cur; 0 if none. */
static uint32_t first_fit(const uint8_t *used, uint32_t *cur, unsigned lmc)
{
	uint32_t step = 1u << lmc, lid = *cur ? *cur : step;

	for (; lid + step - 1 <= FAB_LID_UCAST_MAX; lid += step) {
		uint32_t l = lid;

		while (l < lid + step && !used[l])
			l++;
		if (l == lid + step)
			break;
	}
	*cur = lid;
	return lid + step - 1 <= FAB_LID_UCAST_MAX ? lid : 0;
}

int la_plan(const struct fabric *f, const uint8_t *lmc, struct fab_lid_pin **pins, size_t *npins,
	    struct fab_err *err)
{
	struct plan_key *k = malloc(((size_t)f->neps + 1) * sizeof(*k));
	uint8_t *used = calloc(FAB_LID_UCAST_MAX + 1, 1);
	struct fab_lid_pin *p = malloc(((size_t)f->neps + 1) * sizeof(*p));
	uint32_t cur[FAB_LMC_MAX + 1] = { 0 };

	if (!k || !used || !p) {
		fab_err_set(err, "out of memory");
		goto fail;
	}
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_port *pt = fab_port(f, f->eps[e].node, f->eps[e].port);
		int sw = f->nodes[f->eps[e].node].type == FAB_SWITCH;

		k[e] = (struct plan_key){ pt->guid, e, (uint8_t)(sw ? 0 : lmc[e]), (uint8_t)sw };
	}
	qsort(k, f->neps, sizeof(*k), cmp_plan);
	for (uint32_t i = 0; i < f->neps; i++) {
		uint32_t lid = first_fit(used, &cur[k[i].lmc], k[i].lmc);

		if (!lid) {
			fab_err_set(err, "out of unicast LIDs: the plan needs more than 0x%x LIDs",
				    FAB_LID_UCAST_MAX);
			goto fail;
		}
		memset(used + lid, 1, 1u << k[i].lmc);
		p[k[i].ep] = (struct fab_lid_pin){ fab_port(f, f->eps[k[i].ep].node,
							     f->eps[k[i].ep].port)->guid,
						   (uint16_t)lid, k[i].lmc };
	}
	free(k);
	free(used);
	*pins = p;
	*npins = f->neps;
	return 0;
fail:
	free(k);
	free(used);
	free(p);
	return -1;
}
