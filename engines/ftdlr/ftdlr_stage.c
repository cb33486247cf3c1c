/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - steps that are safe in any order
 *
 * A subnet manager writes a switch's blocks in an order of its own. A
 * repair's detour c -> w -> u changes c and w; if c takes its new entry
 * while w still sends the LID up to c, packets go round between them. So a
 * move from routing a to routing b is cut into steps, each published when
 * the one before is in place. Per LID, a changing switch comes after every
 * changing switch on its new path (downstream first: a new entry never
 * leads into an old one) and before every changing switch on its old path
 * (upstream first for what goes away: an old entry never leads into a new
 * one, as undoing a detour c -> w -> u must rewrite c before w). Within a
 * step a packet thus follows old entries, then new ones, only where both
 * routings agree, whatever order the step is written in. When these
 * constraints form a cycle, and for switch LIDs, whose paths may turn
 * anywhere, the LID changes break before make instead: its changed entries
 * are cleared in every LFT step but the last, which writes them; the
 * entries both routings share stay as they are.
 *
 * Path SLs change while their LID is cleared: a LID some pair towards which
 * changes SL changes break before make, its pairs keeping their old SLs
 * until the step that makes it, so that a packet sent on the new SL never
 * meets the old routing's entries.
 * With a pair's SL and paths fixed, each VL of a step and the step before
 * carries only old paths, new ones, or old ones continued by new ones only
 * where both routings agree.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr/ftdlr.h"

/**
 * struct sg - staging state
 * @old: per switch of @f, its index in @fa (FAB_NONE: new)
 * @ea: per endpoint of @f, its index in @fa (FAB_NONE: new)
 * @a_sl: the largest SL @a gives a pair towards a CA [0], a switch [1]
 * @a_lid: per LID of @a's LFTs, some endpoint of @fa owns it
 * @a_run: per run of SG_RUN LIDs from 1 on, every LID of it in @a_lid
 * @coff, @csw: the switches whose entry for LID l changes are
 *              csw[coff[l] .. coff[l + 1]), in switch order
 * @depth: per switch, the step of its entry for the LID at hand (0: unchanged)
 * @pos: per switch, its place among the LID's changed switches (FAB_NONE: unchanged)
 * @list, @nlist, @indeg, @queue: the changed switches, Kahn's scratch
 * @edge, @nedge, @cap: "first before second" among them (indexes into @list)
 */
struct sg {
	const struct fabric *f, *fa;
	const struct rt_routing *a, *b;
	uint32_t *old, *ea;
	unsigned a_sl[2];
	uint8_t *a_lid, *a_run;
	uint32_t *coff, *csw;
	uint32_t *depth, *pos, *list, *indeg, *queue, nlist;
	uint32_t (*edge)[2];
	size_t nedge, cap;
};

/* Hops a path is followed at most (fat-tree paths are far shorter). */
enum { BRK_NO = 0, BRK_SWITCH = 1, BRK_SL = 2 };
#define SG_HOPS 64u
/* LIDs of a row compared at once by changed(). */
#define SG_RUN 64u

/*
 * Switch @s's entry for @lid in @a: none for a switch @a did not have, and
 * none for a LID no endpoint of @fa owned (entries a routing keeps for a
 * LID that went away were never checked with its paths).
 */
static uint8_t old_entry(const struct sg *g, uint32_t s, unsigned lid)
{
	if (g->old[s] == FAB_NONE || lid >= g->a->lft_len || !g->a_lid[lid])
		return RT_NO_PORT;
	return rt_lft_get(g->a, g->old[s], lid);
}

/* The switch after @s with @s's old (a's) or new (b's) entry for @lid, FAB_NONE if none. */
static uint32_t next_sw(const struct sg *g, uint32_t s, unsigned lid, int old)
{
	uint8_t p = old ? old_entry(g, s, lid) : rt_lft_get(g->b, s, lid);

	return p == RT_NO_PORT || p == 0 ? FAB_NONE : fab_sw_peer(g->f, s, p);
}

static int add_edge(struct sg *g, uint32_t first, uint32_t second)
{
	if (g->nedge == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 256;
		uint32_t (*e)[2] = realloc(g->edge, cap * sizeof(*e));

		if (!e)
			return -1;
		g->edge = e;
		g->cap = cap;
	}
	g->edge[g->nedge][0] = first;
	g->edge[g->nedge][1] = second;
	g->nedge++;
	return 0;
}

/*
 * Order constraints among the changed switches of @lid: a changed switch
 * on x's new path changes before x (downstream first: x's new entry never
 * leads into an old one); a changed switch on x's old path after x (x's
 * old entry never leads into a new one). Return: 0, or -1 (memory).
 */
static int constraints(struct sg *g, unsigned lid, uint32_t nc)
{
	g->nedge = 0;
	for (uint32_t i = 0; i < nc; i++)
		for (int old = 0; old < 2; old++) {
			uint32_t y = next_sw(g, g->list[i], lid, old);

			for (uint32_t h = 0; y != FAB_NONE && h < SG_HOPS; h++) {
				if (g->pos[y] != FAB_NONE && g->pos[y] != i &&
				    add_edge(g, old ? i : g->pos[y], old ? g->pos[y] : i))
					return -1;
				y = next_sw(g, y, lid, old);
			}
		}
	return 0;
}

/*
 * Every changed switch (the @nc of @g->list) gets depth 1: its entry for
 * @lid is cleared until the last step, which writes it. The entries the
 * move does not change are the same in both routings and stay: a packet
 * then follows entries both routings share until a cleared one drops it,
 * and never meets a new entry before the last step.
 */
static int clear_changed(struct sg *g, uint32_t nc, int *bbm)
{
	for (uint32_t i = 0; i < nc; i++)
		g->depth[g->list[i]] = 1;
	*bbm = nc > 0;
	return *bbm;
}

/*
 * depth[] of every switch for @lid: 0 unchanged, else its step (1 for the
 * changed switches, list[0 .. nlist), that nothing must precede, one more
 * than the latest that must precede it). *@bbm: the LID changes break before make, every changed
 * entry of it cleared until the last step: @brk is BRK_SL (its pairs change
 * SL), or BRK_SWITCH (a switch's LID) and some entry changes, or its
 * constraints form a cycle. Return: the deepest step, or -1 (memory).
 */
static int depths(struct sg *g, unsigned lid, int brk, int *bbm)
{
	uint32_t nc = 0, head = 0, tail = 0, most = 0;

	*bbm = 0;
	for (uint32_t i = 0; i < g->nlist; i++) {	/* the LID before's */
		g->depth[g->list[i]] = 0;
		g->pos[g->list[i]] = FAB_NONE;
	}
	for (uint32_t i = g->coff[lid]; i < g->coff[lid + 1]; i++) {
		g->pos[g->csw[i]] = nc;
		g->list[nc++] = g->csw[i];
	}
	g->nlist = nc;
	if ((brk == BRK_SL || brk == BRK_SWITCH) && nc)
		return clear_changed(g, nc, bbm);
	if (!nc)
		return 0;
	if (constraints(g, lid, nc))
		return -1;
	memset(g->indeg, 0, nc * sizeof(*g->indeg));
	for (size_t e = 0; e < g->nedge; e++)
		g->indeg[g->edge[e][1]]++;
	for (uint32_t i = 0; i < nc; i++)
		if (!g->indeg[i]) {
			g->queue[tail++] = i;
			g->depth[g->list[i]] = 1;
		}
	while (head < tail) {	/* Kahn; the edges are few, scanned per node */
		uint32_t v = g->queue[head++], dv = g->depth[g->list[v]];

		most = dv > most ? dv : most;
		for (size_t e = 0; e < g->nedge; e++) {
			uint32_t t = g->edge[e][1];

			if (g->edge[e][0] != v)
				continue;
			if (g->depth[g->list[t]] < dv + 1)
				g->depth[g->list[t]] = dv + 1;
			if (!--g->indeg[t])
				g->queue[tail++] = t;
		}
	}
	if (tail < nc)	/* a cycle of constraints */
		return clear_changed(g, nc, bbm);
	return (int)most;
}

/*
 * The changed entries, the tables read a row at a time (a LID's column is
 * a cache miss per switch): counted into coff[] (@fill 0; 0 when done, -1
 * past 2^32), then listed into csw[] (@fill 1).
 */
static int changed(struct sg *g, int fill)
{
	uint32_t len = g->b->lft_len, alen = g->a->lft_len < len ? g->a->lft_len : len, *at = g->coff;
	uint64_t total = 0;

	for (uint32_t s = 0; s < g->f->nswitches; s++) {
		const uint8_t *nb = rt_lft(g->b, s), *na = g->old[s] == FAB_NONE ? NULL :
							      rt_lft(g->a, g->old[s]);

		for (uint32_t l0 = 1; l0 < len; l0 += SG_RUN) {
			uint32_t end = l0 + SG_RUN < len ? l0 + SG_RUN : len;

			if (na && end <= alen && g->a_run[l0 / SG_RUN] &&
			    !memcmp(nb + l0, na + l0, end - l0))
				continue;	/* the common case: nothing changes */
			for (uint32_t l = l0; l < end; l++) {
				uint8_t o = na && l < alen && g->a_lid[l] ? na[l] : RT_NO_PORT;

				if (nb[l] == o)
					continue;
				if (fill)
					g->csw[at[l]++] = s;
				else
					at[l]++;
			}
		}
	}
	if (fill) {	/* at[l] now ends LID l's list, where l + 1's starts */
		memmove(at + 1, at, (size_t)len * sizeof(*at));
		at[0] = 0;
		return 0;
	}
	for (uint32_t l = 0; l < len; l++) {	/* counts to starts */
		uint32_t n = at[l];

		at[l] = (uint32_t)total;
		total += n;
	}
	at[len] = (uint32_t)total;
	return total >= UINT32_MAX ? -1 : 0;
}

static void sg_fini(struct sg *g)
{
	free(g->old);
	free(g->ea);
	free(g->depth);
	free(g->pos);
	free(g->list);
	free(g->indeg);
	free(g->queue);
	free(g->edge);
	free(g->a_lid);
	free(g->a_run);
	free(g->coff);
	free(g->csw);
}

static int sg_init(struct sg *g)
{
	size_t n = (size_t)g->f->nswitches + 1;

	g->old = malloc(n * sizeof(*g->old));
	g->depth = malloc(n * sizeof(*g->depth));
	g->pos = malloc(n * sizeof(*g->pos));
	g->list = malloc(n * sizeof(*g->list));
	g->indeg = malloc(n * sizeof(*g->indeg));
	g->queue = malloc(n * sizeof(*g->queue));
	g->ea = malloc(((size_t)g->f->neps + 1) * sizeof(*g->ea));
	g->a_lid = calloc((size_t)g->a->lft_len + 1, 1);
	g->coff = calloc((size_t)g->b->lft_len + 1, sizeof(*g->coff));
	g->a_run = malloc((size_t)g->b->lft_len / SG_RUN + 1);
	if (!g->old || !g->depth || !g->pos || !g->list || !g->indeg || !g->queue || !g->ea ||
	    !g->a_lid || !g->coff || !g->a_run)
		return -1;
	for (uint32_t e = 0; e < g->fa->neps; e++) {
		unsigned lid = fab_ep_lid(g->fa, e), top = lid + (1u << fab_ep_lmc(g->fa, e));

		for (unsigned l = lid; lid && l < top && l < g->a->lft_len; l++)
			g->a_lid[l] = 1;
	}
	for (uint32_t e = 0; e < g->f->neps; e++) {
		const struct fab_port *p = fab_port(g->f, g->f->eps[e].node, g->f->eps[e].port);
		uint32_t o = fab_ep_by_port_guid(g->fa, p->guid);

		g->ea[e] = o != FAB_NONE && o < g->a->neps ? o : FAB_NONE;
	}
	for (uint32_t s = 0; g->a->path_sl && s < g->a->neps; s++)
		for (uint32_t d = 0; d < g->a->neps; d++) {
			int sw = g->fa->nodes[g->fa->eps[d].node].type == FAB_SWITCH;
			unsigned sl = rt_path_sl(g->a, s, d);

			g->a_sl[sw] = sl > g->a_sl[sw] ? sl : g->a_sl[sw];
		}
	for (uint32_t s = 0; s < g->f->nswitches; s++) {
		const struct fab_node *nd = &g->f->nodes[g->f->switches[s]];
		uint32_t o = fab_node_by_guid(g->fa, nd->guid);

		g->old[s] = o == FAB_NONE || g->fa->nodes[o].type != FAB_SWITCH ||
			    g->fa->nodes[o].swidx >= g->a->nswitches ? FAB_NONE : g->fa->nodes[o].swidx;
	}
	for (uint32_t s = 0; s < g->f->nswitches; s++) {
		g->depth[s] = 0;
		g->pos[s] = FAB_NONE;
	}
	for (uint32_t l0 = 1, k = 0; l0 < g->b->lft_len; l0 += SG_RUN, k++) {
		g->a_run[k] = 1;
		for (uint32_t l = l0; l < l0 + SG_RUN && l < g->b->lft_len; l++)
			g->a_run[k] &= l < g->a->lft_len && g->a_lid[l];
	}
	return changed(g, 0) || !(g->csw = malloc(((size_t)g->coff[g->b->lft_len] + 1) *
						   sizeof(*g->csw))) ? -1 : changed(g, 1);
}

/*
 * The SL of @a's pair (@s, @d) (indexes of @a), @dflt when @a lacks it
 * (FAB_NONE). must_break() gives a pair @a did not have (an endpoint came
 * back) the largest SL @a gives a pair towards the same kind of node: a
 * switch that returns while a repair runs switch destinations on VL 1 stays
 * on VL 1 until the move ends, as every other switch does.
 */
static inline unsigned sl_of(const struct rt_routing *a, uint32_t s, uint32_t d, unsigned dflt)
{
	if (s == FAB_NONE || d == FAB_NONE)
		return dflt;
	return a->path_sl ? a->path_sl[(size_t)s * a->neps + d] : 0;
}

/*
 * Per LID of @b's LFTs, whether it changes break before make: BRK_SL when
 * some pair towards its destination changes SL (a packet sent on either SL
 * must never meet the other routing's entries), else BRK_SWITCH for a
 * switch's LID (its paths may turn anywhere: when an entry changes, old
 * and new paths must not mix), else BRK_NO. NULL when out of memory.
 */
static uint8_t *must_break(const struct sg *g)
{
	const struct fabric *f = g->f;
	uint8_t *brk = calloc((size_t)g->b->lft_len + 1, 1);

	for (uint32_t d = 0; brk && d < f->neps; d++) {
		unsigned lid = fab_ep_lid(f, d), top = lid + (1u << fab_ep_lmc(f, d));
		uint8_t how = f->nodes[f->eps[d].node].type == FAB_SWITCH ? BRK_SWITCH : BRK_NO;

		for (uint32_t s = 0; (g->a->path_sl || g->b->path_sl) && s < f->neps; s++)
			if (s != d && sl_of(g->a, g->ea[s], g->ea[d], g->a_sl[how == BRK_SWITCH]) !=
				      rt_path_sl(g->b, s, d)) {
				how = BRK_SL;
				break;
			}
		for (unsigned l = lid; lid && l < top && l < g->b->lft_len; l++)
			brk[l] = how;
	}
	return brk;
}

/* The steps before the last keep @a's path SLs (a pair @a lacks: @b's). */
static int old_sls(const struct sg *g, struct rt_routing *r)
{
	if (!g->a->path_sl && !g->b->path_sl)
		return 0;
	if (rt_pairs_alloc(r))
		return -1;
	for (uint32_t s = 0; s < g->f->neps; s++)
		for (uint32_t d = 0; d < g->f->neps; d++) {
			size_t i = (size_t)s * r->neps + d;

			r->path_sl[i] = (uint8_t)sl_of(g->a, g->ea[s], g->ea[d],
						       g->b->path_sl ? g->b->path_sl[i] : 0);
		}
	return 0;
}

/*
 * The plan's entries: per LID, the changed switches with the step from
 * which each holds @b's entry (*@most: the deepest, *@any_bbm: some LID
 * breaks before make) and the entry it holds until then. Return: 0, or
 * -1 (memory).
 */
static int entries(struct sg *g, const uint8_t *brk, struct ftdlr_plan *p, uint32_t *most,
		   int *any_bbm)
{
	size_t n = 0;

	*most = 0;
	*any_bbm = 0;
	if (!(p->ent = malloc(((size_t)g->coff[g->b->lft_len] + 1) * sizeof(*p->ent))))
		return -1;
	for (unsigned lid = 1; lid < g->b->lft_len; lid++) {
		int bbm, m = depths(g, lid, brk[lid], &bbm);

		if (m < 0)
			return -1;
		*most = (uint32_t)m > *most ? (uint32_t)m : *most;
		*any_bbm |= bbm;
		for (uint32_t i = 0; i < g->nlist; i++) {
			uint32_t s = g->list[i];

			p->ent[n++] = (struct ftdlr_pent){ .sw = s, .asw = g->old[s], .lid = lid,
							   .first = bbm ? UINT32_MAX : g->depth[s],
							   .before = bbm ? RT_NO_PORT :
									   old_entry(g, s, lid) };
		}
	}
	p->n = n;
	return 0;
}

static int by_switch(const void *x, const void *y)
{
	const struct ftdlr_pent *a = x, *b = y;

	if (a->sw != b->sw)
		return a->sw < b->sw ? -1 : 1;
	return a->lid < b->lid ? -1 : a->lid > b->lid;
}

/*
 * The plan of the move: the steps (when some LID breaks before make, the
 * first only clears its changed entries, which stay cleared until the
 * last makes them: no old path of theirs meets a new entry of another
 * LID, no new one an old entry; the other LIDs' entries of depth t are
 * new from step t, or t + 1 after such a first step), its entries by
 * switch and LID. Return: 0, or -1 (memory).
 */
static int plan(struct sg *g, struct ftdlr_plan *p)
{
	uint8_t *brk = must_break(g);
	uint32_t most;
	int bbm;

	memset(p, 0, sizeof(*p));
	if (!brk || entries(g, brk, p, &most, &bbm)) {
		free(brk);
		return -1;
	}
	free(brk);
	p->nsteps = bbm ? most + 2 : most;	/* break first, make last */
	p->nsteps = p->nsteps ? p->nsteps : 1;
	for (size_t i = 0; i < p->n; i++)	/* depth t: new from step t - 1 + bbm (0-based) */
		p->ent[i].first = p->ent[i].first == UINT32_MAX ? p->nsteps - 1 :
				  p->ent[i].first - 1 + (unsigned)bbm;
	qsort(p->ent, p->n, sizeof(*p->ent), by_switch);
	return 0;
}

void ftdlr_plan_free(struct ftdlr_plan *p)
{
	free(p->ent);
	memset(p, 0, sizeof(*p));
}

int ftdlr_plan(const struct fabric *f, const struct fabric *fa, const struct rt_routing *a,
	       const struct rt_routing *b, struct ftdlr_plan *p, struct fab_err *err)
{
	struct sg g = { .f = f, .fa = fa, .a = a, .b = b };
	int rc;

	memset(p, 0, sizeof(*p));
	rc = b->nswitches != f->nswitches || sg_init(&g) || plan(&g, p) ? -1 : 0;
	if (rc) {
		fab_err_set(err, "out of memory staging a routing of %u switches", f->nswitches);
		ftdlr_plan_free(p);
	}
	sg_fini(&g);
	return rc;
}

size_t ftdlr_plan_block(const struct ftdlr_plan *p, const struct rt_routing *a,
			const struct rt_routing *b, size_t i, int k, uint8_t out[FTDLR_BLOCK])
{
	uint32_t s = p->ent[i].sw, lo = p->ent[i].lid / FTDLR_BLOCK * FTDLR_BLOCK;
	const struct rt_routing *r = k < 0 ? a : b;
	uint32_t rs = k < 0 ? p->ent[i].asw : s;

	for (uint32_t j = 0; j < FTDLR_BLOCK; j++)
		out[j] = rs == FAB_NONE ? RT_NO_PORT : rt_lft_get(r, rs, lo + j);
	for (; i < p->n && p->ent[i].sw == s && p->ent[i].lid < lo + FTDLR_BLOCK; i++)
		if (k >= 0 && (unsigned)k < p->ent[i].first)
			out[p->ent[i].lid - lo] = p->ent[i].before;
	return i;
}

void ftdlr_stages_free(struct rt_routing **steps, unsigned n)
{
	for (unsigned i = 0; steps && i < n; i++) {
		if (steps[i])	/* @b's SL2VL tables, borrowed */
			memset(steps[i]->sl2vl, 0, (size_t)steps[i]->nswitches * sizeof(*steps[i]->sl2vl));
		rt_free(steps[i]);
	}
	free(steps);
}

/*
 * A step: @b's LFTs shared (a row copied when a step's entry makes it
 * differ), its pair tables copied, its SL2VL tables (the same in every
 * step) borrowed.
 */
static struct rt_routing *step_new(const struct fabric *f, const struct rt_routing *b)
{
	struct rt_routing *r = rt_derive(f, b, NULL, RT_KEEP_PAIRS);

	if (r)
		memcpy(r->sl2vl, b->sl2vl, (size_t)b->nswitches * sizeof(*b->sl2vl));
	return r;
}

/* The steps before an entry's first hold its old one. Return: 0, or -1 when out of memory. */
static int old_entries(const struct ftdlr_plan *p, struct rt_routing **out)
{
	for (size_t i = 0; i < p->n; i++)
		for (unsigned k = 0; k < p->ent[i].first; k++) {
			uint8_t *row = rt_row_own(out[k], p->ent[i].sw);

			if (!row)
				return -1;
			row[p->ent[i].lid] = p->ent[i].before;
		}
	return 0;
}

int ftdlr_stages(const struct fabric *f, const struct fabric *fa, const struct rt_routing *a,
		 const struct rt_routing *b, struct rt_routing ***steps, unsigned *nsteps,
		 struct fab_err *err)
{
	struct sg g = { .f = f, .fa = fa, .a = a, .b = b };
	struct ftdlr_plan p = { 0 };
	struct rt_routing **out = NULL;
	unsigned n = 0;

	if (b->nswitches != f->nswitches || sg_init(&g) || plan(&g, &p) ||
	    !(out = calloc(p.nsteps, sizeof(*out))))
		goto fail;
	for (n = 0; n < p.nsteps; n++)
		if (!(out[n] = step_new(f, b)) || (n + 1 < p.nsteps && old_sls(&g, out[n])))
			goto fail;
	if (old_entries(&p, out))
		goto fail;
	ftdlr_plan_free(&p);
	sg_fini(&g);
	*steps = out;
	*nsteps = n;
	return 0;
fail:
	fab_err_set(err, "out of memory staging a routing of %u switches", f->nswitches);
	ftdlr_stages_free(out, out ? p.nsteps : 0);	/* calloc: steps not made are NULL */
	ftdlr_plan_free(&p);
	sg_fini(&g);
	return -1;
}
