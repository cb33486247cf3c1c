/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - steps that are safe in any order
 *
 * A subnet manager writes a switch's blocks in an order of its own. A
 * repair's detour c -> w -> u changes c and w; if c takes its new entry
 * while w still sends the LID up to c, packets go round between them. So a
 * move from routing a to routing b is cut into steps, each published when
 * the one before is in place: per LID, a switch whose entry changes gets
 * the step after the last changing switch on its new path (the switches
 * closest to the destination first, "downstream first"). Within a step
 * every new entry leads through entries that are new already or never
 * change, whatever order the step is written in. Switch LIDs, whose paths
 * may turn anywhere, change break before make instead: their changed
 * entries are cleared in every LFT step but the last, which writes them.
 *
 * Path SLs change in steps of their own: those that grow (a pair moving to
 * VL 1) in a first step before any entry changes, those that shrink in a
 * last step after all have; the steps between run every pair on the larger
 * of its SLs. Packets sent on the old SL while entries change thus follow,
 * on each VL, only the old paths, the new ones, or mixes of them that keep
 * to that VL's rule.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr.h"

/**
 * struct sg - staging state
 * @old: per switch of @f, its index in @fa (FAB_NONE: new)
 * @ea: per endpoint of @f, its index in @fa (FAB_NONE: new)
 * @depth: per switch, the step of its entry for the LID at hand (0: unchanged)
 * @after: per switch, the deepest step on its path after it
 * @st, @stack: resolution scratch
 */
struct sg {
	const struct fabric *f, *fa;
	const struct rt_routing *a, *b;
	uint32_t *old, *ea;
	uint32_t *depth, *after, *stack;
	uint8_t *st;
};

enum { SG_UNKNOWN = 0, SG_BUSY, SG_DONE };

static uint8_t old_entry(const struct sg *g, uint32_t s, unsigned lid)
{
	return g->old[s] == FAB_NONE ? RT_NO_PORT : rt_lft_get(g->a, g->old[s], lid);
}

static uint32_t next_sw(const struct sg *g, uint32_t s, unsigned lid)
{
	uint8_t p = rt_lft_get(g->b, s, lid);

	return p == RT_NO_PORT || p == 0 ? FAB_NONE : eng_sw_peer(g->f, s, p);
}

/* depth[] of every switch for @lid; the deepest. */
static uint32_t depths(struct sg *g, unsigned lid)
{
	uint32_t n = g->f->nswitches, most = 0;

	memset(g->st, SG_UNKNOWN, n);
	for (uint32_t s = 0; s < n; s++) {
		uint32_t top = 0, c = s, below = 0;

		while (c != FAB_NONE && g->st[c] == SG_UNKNOWN) {
			g->st[c] = SG_BUSY;
			g->stack[top++] = c;
			c = next_sw(g, c, lid);
		}
		if (c != FAB_NONE && g->st[c] == SG_DONE)
			below = g->after[c] > g->depth[c] ? g->after[c] : g->depth[c];
		while (top--) {	/* a loop (SG_BUSY) is cut where it closes */
			uint32_t t = g->stack[top];

			g->after[t] = below;
			g->depth[t] = rt_lft_get(g->b, t, lid) != old_entry(g, t, lid) ? below + 1 : 0;
			g->st[t] = SG_DONE;
			below = g->depth[t] > below ? g->depth[t] : below;
		}
	}
	for (uint32_t s = 0; s < n; s++)
		most = g->depth[s] > most ? g->depth[s] : most;
	return most;
}

static void sg_fini(struct sg *g)
{
	free(g->old);
	free(g->ea);
	free(g->depth);
	free(g->after);
	free(g->stack);
	free(g->st);
}

static int sg_init(struct sg *g)
{
	size_t n = (size_t)g->f->nswitches + 1;

	g->old = malloc(n * sizeof(*g->old));
	g->depth = calloc(n, sizeof(*g->depth));
	g->after = calloc(n, sizeof(*g->after));
	g->stack = malloc(n * sizeof(*g->stack));
	g->st = malloc(n);
	g->ea = malloc(((size_t)g->f->neps + 1) * sizeof(*g->ea));
	if (!g->old || !g->depth || !g->after || !g->stack || !g->st || !g->ea)
		return -1;
	for (uint32_t e = 0; e < g->f->neps; e++) {
		const struct fab_port *p = fab_port(g->f, g->f->eps[e].node, g->f->eps[e].port);
		uint32_t o = fab_ep_by_port_guid(g->fa, p->guid);

		g->ea[e] = o != FAB_NONE && o < g->a->neps ? o : FAB_NONE;
	}
	for (uint32_t s = 0; s < g->f->nswitches; s++) {
		const struct fab_node *nd = &g->f->nodes[g->f->switches[s]];
		uint32_t o = fab_node_by_guid(g->fa, nd->guid);

		g->old[s] = o == FAB_NONE || g->fa->nodes[o].type != FAB_SWITCH ||
			    g->fa->nodes[o].swidx >= g->a->nswitches ? FAB_NONE : g->fa->nodes[o].swidx;
	}
	return 0;
}

/* A copy of @b's LFTs, SL2VL tables and pair tables for @f. */
static struct rt_routing *copy_b(const struct fabric *f, const struct rt_routing *b)
{
	struct rt_routing *r = rt_new_len(f, b->lft_len);

	if (!r)
		return NULL;
	memcpy(r->lft, b->lft, (size_t)b->nswitches * b->lft_len);
	r->vls_used = b->vls_used;
	for (uint32_t s = 0; s < b->nswitches; s++) {
		size_t dim = f->nodes[f->switches[s]].nports + 1u;

		if (!b->sl2vl[s])
			continue;
		r->sl2vl[s] = malloc(dim * dim * RT_SLS);
		if (!r->sl2vl[s]) {
			rt_free(r);
			return NULL;
		}
		memcpy(r->sl2vl[s], b->sl2vl[s], dim * dim * RT_SLS);
	}
	if ((b->path_sl || b->dlid_off) && rt_pairs_alloc(r)) {
		rt_free(r);
		return NULL;
	}
	if (b->path_sl)
		memcpy(r->path_sl, b->path_sl, (size_t)b->neps * b->neps);
	if (b->dlid_off)
		memcpy(r->dlid_off, b->dlid_off, (size_t)b->neps * b->neps);
	return r;
}

/* The SL of pair (@s, @d) in @a; its SL in @b when @a did not have the pair. */
static unsigned old_sl(const struct sg *g, uint32_t s, uint32_t d)
{
	if (g->ea[s] == FAB_NONE || g->ea[d] == FAB_NONE)
		return rt_path_sl(g->b, s, d);
	return rt_path_sl(g->a, g->ea[s], g->ea[d]);
}

/* Some pair's SL grows (*@grow) or shrinks (*@shrink) from @a to @b. */
static void sl_moves(const struct sg *g, int *grow, int *shrink)
{
	*grow = *shrink = 0;
	if (!g->a->path_sl && !g->b->path_sl)
		return;
	for (uint32_t s = 0; s < g->f->neps; s++)
		for (uint32_t d = 0; d < g->f->neps; d++) {
			unsigned o = old_sl(g, s, d), n = rt_path_sl(g->b, s, d);

			*grow |= n > o;
			*shrink |= n < o;
		}
}

/* Intermediate steps run every pair on the larger of its old and new SL. */
static int larger_sls(const struct sg *g, struct rt_routing *r)
{
	if (!g->a->path_sl)
		return 0;
	if (rt_pairs_alloc(r))
		return -1;
	for (uint32_t s = 0; s < g->f->neps; s++)
		for (uint32_t d = 0; d < g->f->neps; d++) {
			uint8_t *p = &r->path_sl[(size_t)s * r->neps + d];
			unsigned o = old_sl(g, s, d);

			*p = (uint8_t)(o > *p ? o : *p);
		}
	return 0;
}

void ftdlr_stages_free(struct rt_routing **steps, unsigned n)
{
	for (unsigned i = 0; steps && i < n; i++)
		rt_free(steps[i]);
	free(steps);
}

/* Per LID, the destination is a switch (its entries change break before make). */
static uint8_t *switch_lids(const struct fabric *f, uint32_t len)
{
	uint8_t *sw = calloc((size_t)len + 1, 1);

	for (uint32_t e = 0; sw && e < f->neps; e++) {
		unsigned lid = fab_ep_lid(f, e);

		if (f->nodes[f->eps[e].node].type == FAB_SWITCH && lid && lid < len)
			sw[lid] = 1;
	}
	return sw;
}

/*
 * Fill steps[0 .. n - 2]. Step k is LFT step j = k - @off + 1 (@off: 1 when
 * a first step changes only SLs) of @m. A CA LID's entry of depth t is new
 * from LFT step t on; a switch LID's changed entries are cleared in the LFT
 * steps before the last and new in the last, so that old and new switch
 * paths, which may turn anywhere, never mix. The last step is @b itself.
 */
static int fill(struct sg *g, struct rt_routing **steps, unsigned n, unsigned off, unsigned m,
		const uint8_t *sw)
{
	const struct rt_routing *b = g->b;

	for (unsigned lid = 1; lid < b->lft_len && n > 1; lid++) {
		depths(g, lid);
		for (uint32_t s = 0; s < g->f->nswitches; s++)
			for (unsigned k = 0; k + 1 < n; k++) {
				unsigned j = k + 1 - off;	/* 0: before any LFT step */

				if (!g->depth[s] || (sw[lid] ? j >= m && j : g->depth[s] <= j))
					continue;
				rt_lft(steps[k], s)[lid] = sw[lid] && j ? RT_NO_PORT : old_entry(g, s, lid);
			}
	}
	for (unsigned k = 0; k + 1 < n; k++)
		if (larger_sls(g, steps[k]))
			return -1;
	return 0;
}

/* The deepest change of any LID (*@most), and whether a switch LID changes. */
static int depths_all(struct sg *g, const uint8_t *sw, uint32_t *most)
{
	int swc = 0;

	*most = 0;
	for (unsigned lid = 1; lid < g->b->lft_len; lid++) {
		uint32_t m = depths(g, lid);

		*most = m > *most ? m : *most;
		swc |= sw[lid] && m;
	}
	return swc;
}

int ftdlr_stages(const struct fabric *f, const struct fabric *fa, const struct rt_routing *a,
		 const struct rt_routing *b, struct rt_routing ***steps, unsigned *nsteps,
		 struct fab_err *err)
{
	struct sg g = { .f = f, .fa = fa, .a = a, .b = b };
	struct rt_routing **out = NULL;
	uint8_t *sw = NULL;
	uint32_t most = 0;
	unsigned n = 0;
	int grow, shrink;

	if (b->nswitches != f->nswitches || sg_init(&g) || !(sw = switch_lids(f, b->lft_len)))
		goto fail;
	if (depths_all(&g, sw, &most) && most < 2)
		most = 2;	/* break, then make */
	sl_moves(&g, &grow, &shrink);
	n = (unsigned)grow + most + (unsigned)shrink;
	n = n ? n : 1;
	out = calloc(n, sizeof(*out));
	if (!out)
		goto fail;
	for (unsigned k = 0; k < n; k++)
		if (!(out[k] = copy_b(f, b)))
			goto fail;
	if (fill(&g, out, n, (unsigned)grow, most, sw))
		goto fail;
	free(sw);
	sg_fini(&g);
	*steps = out;
	*nsteps = n;
	return 0;
fail:
	fab_err_set(err, "out of memory staging a routing of %u switches", f->nswitches);
	ftdlr_stages_free(out, n);
	free(sw);
	sg_fini(&g);
	return -1;
}
