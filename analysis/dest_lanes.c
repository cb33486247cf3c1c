/* SPDX-License-Identifier: MIT */
/**
 * DOC: the block pass in lanes, when channels are marked in bits
 *
 * analysis/dest_block.c settles one destination of the block after the
 * other, each over a row of its own. Without the counts (struct
 * an_plan.bits) and with no rows kept, this file does the same work with
 * the loops the other way round: a row per switch holds an entry per
 * destination of the block ([s * AN_BLOCK + j], the lanes), and every
 * step goes switch by switch, all lanes at once. The LFT entries are then
 * read and the marks and sums written in runs, and the destinations'
 * passes, independent of each other, overlap in the processor instead of
 * following one another.
 *
 *  1. gather(): each lane's LFT entry, step, and the port a switch leaves
 *     by when its next hop is a switch (what the switch before it marks);
 *  2. settle(): the switches in the plan's order; a lane whose next switch
 *     is settled and delivering settles at once, the others walk
 *     (an_blk_walk(), as one destination does in analysis/dest_block.c;
 *     each walk is kept, in order, for the push);
 *  3. push(): the sources along each lane's graph, the switches in the
 *     reverse of the plan's order: a switch settled at once sends after
 *     every switch that sends to it, so does a walk from the switch it
 *     starts at (the switches it settles come later in the plan's order
 *     and send after it), and the walks from the destination's own
 *     switches go last;
 *  4. scatter(): the marks and the per-port sums, switch by switch.
 *
 * The sums are those of analysis/dest_block.c, destination by
 * destination; the unit tests compare the reports with the reference
 * evaluator's.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/dest_impl.h"

#define C_TERM AN_PC_TERM
#define DEP_NONE AN_DEP_NONE
#define LANE(s, j) ((size_t)(s) * AN_BLOCK + (j))

/* Rows of the LFTs asked for ahead of their turn. */
#define AHEAD 16u

/* Step 1, for the LIDs @lid[0..@m) of destinations @d. */
static void gather(struct an_work *w, const uint32_t *d, const uint32_t *lid, uint32_t m)
{
	const struct an_plan *p = w->p;
	const struct rt_routing *r = p->c.r;
	uint32_t nsw = p->c.f->nswitches;
	struct an_blk *b = &w->blk;

	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t lim = p->pt_base[s + 1] - p->pt_base[s];
		const uint8_t *row = rt_lft(r, s);
		const uint16_t *pc = p->pcode + p->pt_base[s] + s;
		uint16_t *c = b->c + LANE(s, 0);
		uint8_t *o = b->o + LANE(s, 0), *lp = b->lp + LANE(s, 0);

		if (s + AHEAD < nsw) {
			__builtin_prefetch(rt_lft(r, s + AHEAD) + lid[0]);
			__builtin_prefetch(rt_lft(r, s + AHEAD) + lid[m - 1]);
		}
		for (uint32_t j = 0; j < m; j++) {
			uint8_t port = row[lid[j]];
			uint16_t code = port == RT_NO_PORT ? C_TERM | AN_NO_ENTRY :
							     pc[port < lim ? port : lim];

			o[j] = port;
			c[j] = code;
			lp[j] = code < C_TERM ? port : 0;
		}
	}
	for (uint32_t j = 0; j < m; j++) {
		uint32_t at = d[j] < nsw ? d[j] : p->c.first[d[j]];

		/* delivered or not, the destination's own step ends there: .lp stays 0 */
		if (at != FAB_NONE)
			b->c[LANE(at, j)] = an_dest_block_step(p, at, b->o[LANE(at, j)], d[j], at);
	}
}

/*
 * Step 2 for lanes [@j0, @j1), whose sums per switch are @own: a switch
 * whose next one is settled and delivers settles at once, the others walk.
 */
static void settle_lanes(struct an_work *w, struct an_bdest *x, uint32_t j0, uint32_t j1,
			 const uint32_t *own, uint32_t *maxh)
{
	const struct an_plan *p = w->p;
	uint32_t nsw = p->c.f->nswitches;
	struct an_blk *b = &w->blk;

	for (uint32_t i = 0; i < nsw; i++) {
		uint32_t s = p->sw_order[i], *r = b->lr + LANE(s, 0), *fl = b->fl + LANE(s, 0);
		const uint16_t *c = b->c + LANE(s, 0);
		uint8_t *dep = b->dep + LANE(s, 0);
		uint32_t f = own[s];

		for (uint32_t j = j0; j < j1; j++) {
			uint32_t t = c[j], v, h;

			if (r[j])
				continue;
			if (t >= C_TERM ||
			    ((v = b->lr[LANE(t, j)]) & (AN_R_DONE | 0xfu)) != AN_R_DONE) {
				an_blk_walk(&x[j], s, AN_R_WALK);
				continue;
			}
			h = (AN_R_HOPS(v) + 1) & 0xffffu;
			r[j] = AN_R_DONE | AN_R_FAST | h << 8;
			maxh[j] = h > maxh[j] ? h : maxh[j];
			fl[j] = f;
			dep[j] = b->lp[LANE(t, j)];
		}
	}
}

/*
 * Step 2. @reach[j]: a switch other than destination j (a switch) sends
 * to it; what analysis/dest_block.c's dest_switch() looks for.
 */
static void settle(struct an_work *w, struct an_bdest *x, const uint32_t *dsw, uint32_t m,
		   uint8_t *reach)
{
	const struct an_plan *p = w->p;
	uint32_t nsw = p->c.f->nswitches, maxh[AN_BLOCK] = { 0 };
	struct an_blk *b = &w->blk;
	int one_own = 1;

	memset(b->lr, 0, LANE(nsw, 0) * sizeof(*b->lr));
	for (uint32_t j = 0; j < m; j++) {
		one_own &= x[j].own == x[0].own;
		if (x[j].d < nsw)
			an_blk_walk(&x[j], x[j].d, AN_R_OWN);
		if (x[j].dfirst != FAB_NONE && !b->lr[LANE(x[j].dfirst, j)])
			an_blk_walk(&x[j], x[j].dfirst, AN_R_OWN);
	}
	if (one_own) {
		settle_lanes(w, x, 0, m, x[0].own, maxh);
	} else {
		for (uint32_t j = 0; j < m; j++)
			settle_lanes(w, x, j, j + 1, x[j].own, maxh);
	}
	for (uint32_t j = 0; j < m; j++) {
		x[j].t.maxh = maxh[j] > x[j].t.maxh ? maxh[j] : x[j].t.maxh;
		reach[j] = 0;
		for (uint32_t s = 0; dsw[j] != UINT32_MAX && s < nsw && !reach[j]; s++)
			reach[j] = b->c[LANE(s, j)] == dsw[j] && s != dsw[j];
	}
}

/* The last walk of @x not pushed yet: each delivering switch's sums into its next one's. */
static void push_walk(struct an_bdest *x)
{
	uint32_t n = x->walks[--x->nwalks];
	const uint32_t *sw;

	x->nwalks -= n;
	sw = x->walks + x->nwalks;
	for (uint32_t k = 0; k < n; k++) {
		size_t i = sw[k] * x->st;
		uint32_t t = x->c[i];

		if (AN_R_RES(x->r[i]) == AN_DELIVERED && t < C_TERM)
			x->fl[t * x->st] += x->fl[i];
	}
}

/* Step 3. */
static void push(struct an_work *w, struct an_bdest *x, uint32_t m)
{
	const struct an_plan *p = w->p;
	uint32_t nsw = p->c.f->nswitches;
	struct an_blk *b = &w->blk;

	for (uint32_t i = nsw; i--;) {
		uint32_t s = p->sw_order[i], *fl = b->fl;
		const uint32_t *r = b->lr + LANE(s, 0);
		const uint16_t *c = b->c + LANE(s, 0);

		for (uint32_t j = 0; j < m; j++) {
			if (r[j] & AN_R_FAST)
				fl[LANE(c[j], j)] += fl[LANE(s, j)];
			else if (r[j] & AN_R_WALK)
				push_walk(&x[j]);
		}
	}
	for (uint32_t j = 0; j < m; j++) {
		while (x[j].nwalks)
			push_walk(&x[j]);
		if (x[j].d < nsw && b->o[LANE(x[j].d, j)] == 0)
			b->fl[LANE(x[j].d, j)] = 0;	/* delivered at its port 0: no link */
	}
}

/*
 * Step 4: the marks and the per-port sums, switch by switch. With the
 * load, the mark of a channel that pairs towards the destination cross is
 * left to the sums (an_dest_block_channels()).
 */
static void scatter(struct an_work *w, uint32_t m)
{
	const struct an_plan *p = w->p;
	uint32_t nsw = p->c.f->nswitches, wblk = p->wblk;
	uint64_t *bits = w->acc->bits;
	uint32_t *ld = w->acc->ld;
	int load = p->o.load;

	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t base = p->pt_base[s];
		const uint8_t *o = w->blk.o + LANE(s, 0), *dep = w->blk.dep + LANE(s, 0);
		const uint32_t *fl = w->blk.fl + LANE(s, 0);

		for (uint32_t j = 0; j < m; j++) {
			uint32_t slot = base + o[j], f = load ? fl[j] : 0;
			unsigned q = dep[j];
			size_t bit = (size_t)slot * wblk;

			if (q != DEP_NONE) {
				if (!f)
					bits[bit / 64] |= 1ull << (bit % 64);
				if (q) {
					bit += 1u + q;
					bits[bit / 64] |= 1ull << (bit % 64);
				}
			}
			if (f)
				an_add_flow(ld, slot, f);
		}
	}
}

void an_dest_lanes(struct an_work *w, const uint32_t *d, uint32_t m)
{
	const struct an_plan *p = w->p;
	uint32_t nsw = p->c.f->nswitches, lid[AN_BLOCK], dsw[AN_BLOCK];
	struct an_bdest x[AN_BLOCK];
	uint8_t reach[AN_BLOCK];

	for (uint32_t j = 0; j < m; j++) {
		lid[j] = fab_ep_lid(p->c.f, d[j]);
		dsw[j] = d[j] < nsw ? d[j] : UINT32_MAX;
		an_blk_dest(&x[j], w, d[j], j, AN_BLOCK, w->blk.lr + j);
		x[j].walks = w->blk.walks + 2 * (size_t)j * nsw;
	}
	w->tspan = 0;	/* examples, if any, resolve from the tables */
	gather(w, d, lid, m);
	an_blk_count_all(w, d, NULL, m);
	settle(w, x, dsw, m, reach);
	for (uint32_t j = 0; j < m; j++) {
		size_t at = LANE(d[j], j);

		/* a switch no other source enters: its channel counts only when walks go on through it */
		if (d[j] < nsw && !p->n_nonsw[d[j]] && !reach[j])
			w->blk.dep[at] = DEP_NONE;
		an_blk_count(&x[j]);
	}
	if (p->o.load)
		push(w, x, m);
	scatter(w, m);
}
