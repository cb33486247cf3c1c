/* SPDX-License-Identifier: MIT */
/**
 * DOC: the common case, a block of destinations at a time
 *
 * What analysis/dest_fast.c does for one destination, done for up to
 * AN_BLOCK destinations at once (their LIDs are neighbours: the plan takes
 * destinations by LID). The large tables (the plan's entry of every switch
 * port, the channel and dependency bits, the pairs out of every port) are
 * then read and written switch by switch, for every destination of the
 * block while the switch's few cache lines are at hand, instead of once
 * per destination all over memory. Three steps:
 *
 *  1. switch by switch: each destination's LFT entry (one run of
 *     neighbouring bytes of the switch's row) and its port's entry;
 *  2. destination by destination (what is per destination stays so:
 *     settle(), tally(), push()): the functional graph settled in the
 *     plan's switch order, where the next switch of most switches is
 *     settled already; connectivity counted; the sources pushed along the
 *     graph; what step 3 needs kept per (destination, switch);
 *  3. switch by switch: the channel and dependency bits, the pairs out of
 *     each port.
 *
 * The sums are those of an_dest_fast() (the unit tests compare the reports
 * with the reference evaluator's).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/dest_impl.h"

/*
 * A switch's step towards a destination, in 16 bits: the next switch, or
 * C_TERM | the result when the packet goes no further (delivered on the
 * port, or lost).
 */
#define C_TERM 0xfff0u

/* Per switch while one destination is settled: state, step result, result, hops. */
#define R_DONE 0x80000000u
#define R_ACTIVE 0x40000000u
#define R_RES(x) ((x) & 0xfu)
#define R_SRES(x) ((x) >> 4 & 0xfu)
#define R_HOPS(x) ((x) >> 8 & 0xffffu)

/*
 * Kept per (destination, switch) for step 3, in a byte: DEP_NONE, no
 * channel marked; 0, the channel alone; a port, the channel and its
 * dependency on the channel the next switch leaves by through that port
 * (port 0 never leads to a switch, 0xff is no port).
 */
#define DEP_NONE 0xffu

/* The sums of a switch towards a destination: all pairs and CA-to-CA ones, 16 bits each. */
#define FLOW(all, ca) ((uint32_t)(all) | (uint32_t)(ca) << 16)

/* Rows of the LFTs asked for ahead of their turn. */
#define AN_AHEAD 16u

int an_blk_init(struct an_blk *b, uint32_t nsw)
{
	size_t n = (size_t)AN_BLOCK * nsw + 1;

	b->c = malloc(n * sizeof(*b->c));
	b->fl = malloc(n * sizeof(*b->fl));
	b->o = malloc(n);
	b->dep = malloc(n);
	b->r = malloc(((size_t)nsw + 1) * sizeof(*b->r));
	b->settled = malloc(((size_t)nsw + 1) * sizeof(*b->settled));
	return b->c && b->fl && b->o && b->dep && b->r && b->settled ? 0 : -1;
}

void an_blk_fini(struct an_blk *b)
{
	free(b->c);
	free(b->fl);
	free(b->o);
	free(b->dep);
	free(b->r);
	free(b->settled);
}

/* What a packet for @d does at a switch whose LFT says @port, of the plan's entry @e. */
static inline uint16_t step(uint8_t port, uint32_t e, uint32_t d)
{
	if (port == RT_NO_PORT)
		return C_TERM | AN_NO_ENTRY;
	if (AN_PT_KIND(e) == AN_PT_SW)
		return (uint16_t)AN_PT_VAL(e);
	if (AN_PT_KIND(e) == AN_PT_EP)
		return AN_PT_VAL(e) == d ? C_TERM | AN_DELIVERED : C_TERM | AN_WRONG_PORT;
	return C_TERM | AN_LINK_DOWN;
}

/* Step 1: the LFT entries of destinations @d[0..@m) (LIDs @lid) and their steps, switch by switch. */
static void gather(struct an_work *w, const uint32_t *d, const uint32_t *lid, uint32_t m)
{
	const struct an_plan *p = w->p;
	const struct rt_routing *r = p->c.r;
	uint32_t nsw = p->c.f->nswitches;
	struct an_blk *b = &w->blk;

	for (uint32_t s = 0; s < nsw; s++) {
		const uint8_t *row = rt_lft(r, s);
		const uint32_t *pt = p->pt + p->pt_base[s];
		uint32_t lim = p->pt_base[s + 1] - p->pt_base[s];

		if (s + AN_AHEAD < nsw) {
			/* rows are far apart: no hardware prefetcher guesses the next one */
			__builtin_prefetch(rt_lft(r, s + AN_AHEAD) + lid[0]);
			__builtin_prefetch(rt_lft(r, s + AN_AHEAD) + lid[m - 1]);
		}
		for (uint32_t j = 0; j < m; j++) {
			size_t i = (size_t)j * nsw + s;
			uint8_t port = row[lid[j]];

			b->o[i] = port;
			b->c[i] = step(port, port < lim ? pt[port] : AN_PT(AN_PT_DOWN, 0, AN_PT_NOVAL),
				       d[j]);
		}
	}
}

/* Settle the switches on the stack, innermost first, from the result at its end. */
static void settle_stack(struct an_work *w, uint32_t depth, unsigned res, uint32_t hops)
{
	struct an_blk *b = &w->blk;

	while (depth--) {
		uint32_t s = w->stack[depth];

		hops = res == AN_DELIVERED ? (hops + 1) & 0xffffu : 0;
		b->r[s] = R_DONE | hops << 8 | (b->r[s] & 0xf0u) | res;
		if (res == AN_DELIVERED)
			b->settled[b->nsettled++] = s;
	}
}

/* Follow the steps from @s until a switch settled, a loop or the end; settle the way. */
static void walk(struct an_work *w, const uint16_t *c, uint32_t s)
{
	uint32_t *r = w->blk.r, depth = 0, x;

	for (;;) {
		uint32_t t = c[s];

		r[s] = R_ACTIVE | (t >= C_TERM ? t & 0xfu : AN_DELIVERED) << 4;
		w->stack[depth++] = s;
		if (t >= C_TERM) {
			settle_stack(w, depth, t & 0xfu, 0);
			return;
		}
		x = r[t];
		if (x & R_DONE) {
			settle_stack(w, depth, R_RES(x), R_HOPS(x));
			return;
		}
		if (x & R_ACTIVE) {
			settle_stack(w, depth, AN_LOOP, 0);
			return;
		}
		s = t;
	}
}

/*
 * Step 2a: destination row @j's functional graph, each switch settled
 * once; in the plan's order most switches find their next one settled.
 */
static void settle(struct an_work *w, uint32_t j)
{
	const struct an_plan *p = w->p;
	uint32_t nsw = p->c.f->nswitches;
	struct an_blk *b = &w->blk;
	const uint16_t *c = b->c + (size_t)j * nsw;
	uint32_t *r = b->r;

	memset(r, 0, (size_t)nsw * sizeof(*r));
	b->nsettled = 0;
	for (uint32_t i = 0; i < nsw; i++) {
		uint32_t s = p->sw_order[i], t = c[s], x, res, hops;

		if (r[s])
			continue;
		if (t >= C_TERM || !((x = r[t]) & R_DONE)) {
			walk(w, c, s);
			continue;
		}
		res = R_RES(x);
		hops = res == AN_DELIVERED ? (R_HOPS(x) + 1) & 0xffffu : 0;
		r[s] = R_DONE | hops << 8 | AN_DELIVERED << 4 | res;
		if (res == AN_DELIVERED)
			b->settled[b->nsettled++] = s;
	}
}

/* Per destination: the pairs counted. */
struct tally {
	uint64_t ok_sw, ok_ca, bad_sw[AN_NFAILS], bad_ca[AN_NFAILS];
	uint64_t paths;
	uint32_t maxh;
};

/* The mark of switch @t, whose next is a switch: the port that one leaves by to a switch, or 0. */
static inline uint8_t chan(const uint16_t *c, const uint8_t *o, uint32_t t)
{
	uint32_t nx = c[t];

	return c[nx] < C_TERM ? o[nx] : 0;
}

/* The sources entering switch @s towards @d, whose first switch is @dfirst. */
static inline uint32_t sources(const struct an_plan *p, uint32_t s, uint32_t d, uint32_t dfirst)
{
	return (s != d) + p->n_nonsw[s] - (s == dfirst);
}

/* The pairs that leave switch @s on a port towards @d (the CDG's count of VL 0). */
static inline int leaves(const uint8_t *o, uint32_t x, uint32_t s)
{
	return (R_SRES(x) == AN_DELIVERED || R_SRES(x) == AN_WRONG_PORT) && o[s] != 0;
}

/* The pairs counted again switch by switch, by result (some switch does not deliver). */
static void tally_fails(const struct an_plan *p, const uint32_t *r, uint32_t d, uint32_t dfirst,
			struct tally *t)
{
	t->ok_sw = t->ok_ca = 0;
	t->maxh = 0;
	for (uint32_t s = 0; s < p->c.f->nswitches; s++) {
		uint32_t nsw_s = s != d, nca = p->n_nonsw[s] - (s == dfirst);
		unsigned res = R_RES(r[s]);

		if (res != AN_DELIVERED) {
			t->bad_sw[res] += nsw_s;
			t->bad_ca[res] += nca;
			continue;
		}
		t->ok_sw += nsw_s;
		t->ok_ca += nca;
		t->maxh = nsw_s + nca && R_HOPS(r[s]) > t->maxh ? R_HOPS(r[s]) : t->maxh;
	}
}

/*
 * Step 2b: the switches' sources towards @d (row @j) counted, the marks
 * and the switches' own sums kept. The loop counts every switch as a
 * source with all its non-switch sources; @d and the switch @d's port is
 * on are set right after.
 */
static void tally(struct an_work *w, uint32_t j, uint32_t d, struct tally *t)
{
	const struct an_plan *p = w->p;
	const struct fabric *f = p->c.f;
	uint32_t nsw = f->nswitches, dfirst = d < nsw ? FAB_NONE : p->c.first[d];
	struct an_blk *b = &w->blk;
	struct an_acc *a = w->acc;
	const uint16_t *c = b->c + (size_t)j * nsw;
	const uint8_t *o = b->o + (size_t)j * nsw;
	const uint32_t *r = b->r, *nn = p->n_nonsw, *nc = p->n_ca;
	uint32_t *fl = b->fl + (size_t)j * nsw, *dall = a->dall, *dca = a->dca;
	uint8_t *dep = b->dep + (size_t)j * nsw;
	uint32_t camask = an_dest_is_ca(f, d) ? 0xffffu : 0, ndel = 0, maxh = 0, reached = 0;
	uint64_t ok_nn = 0, paths = 0;
	int load = p->o.load;

	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t x = r[s], del = R_RES(x) == AN_DELIVERED, m = 0u - del;

		ndel += del;
		ok_nn += nn[s] & m;
		maxh = R_HOPS(x) > maxh ? R_HOPS(x) : maxh;
		paths += leaves(o, x, s) ? 1 + nn[s] : 0;
		if (load) {
			fl[s] = FLOW(1 + nn[s], nc[s] & camask) & m;
			dall[s] += del;
			dca[s] += del & camask;
		}
		dep[s] = c[s] < C_TERM ? chan(c, o, s) : DEP_NONE;
		reached |= (c[s] == d) & (s != d);
	}
	t->ok_sw = ndel;
	t->ok_ca = ok_nn;
	t->maxh = maxh;
	t->paths = paths;
	if (d < nsw) {
		uint32_t del = R_RES(r[d]) == AN_DELIVERED;

		/* @d sends to itself from no switch; walks from other switches go on through it */
		t->ok_sw -= del;
		t->paths -= leaves(o, r[d], d);
		if (load)
			fl[d] -= FLOW(del, 0);
		if (!nn[d] && !reached)
			dep[d] = DEP_NONE;
		if (!nn[d] && del && R_HOPS(r[d]) == maxh)
			ndel = 0;	/* the longest path might be @d's own: count again */
	} else if (dfirst != FAB_NONE) {
		uint32_t del = R_RES(r[dfirst]) == AN_DELIVERED;

		/* @d does not send to itself */
		t->ok_ca -= del;
		t->paths -= leaves(o, r[dfirst], dfirst);
		if (load)
			fl[dfirst] -= del ? FLOW(1, camask & 1) : 0;
	}
	if (ndel != nsw)
		tally_fails(p, r, d, dfirst, t);	/* exact, and by result */
}

/*
 * Step 2c: push the sources along the graph, in the reverse of the
 * settling order (every switch after all that send to it): a switch's
 * sums become the pairs out of the port it leaves by (0: none). Both
 * halves of a sum stay below 2^16 (fewer sources), so one addition adds
 * both.
 */
static void push(struct an_work *w, uint32_t j)
{
	uint32_t nsw = w->p->c.f->nswitches;
	struct an_blk *b = &w->blk;
	const uint16_t *c = b->c + (size_t)j * nsw;
	const uint8_t *o = b->o + (size_t)j * nsw;
	uint32_t *fl = b->fl + (size_t)j * nsw;

	for (uint32_t i = b->nsettled; i--;) {
		uint32_t s = b->settled[i], nx = c[s];

		if (!fl[s] || o[s] == 0) {
			fl[s] = 0;
			continue;
		}
		if (nx < C_TERM)
			fl[nx] += fl[s];
	}
}

/* Step 2: destination @d, row @j of the block. */
static void one(struct an_work *w, uint32_t j, uint32_t d)
{
	const struct an_plan *p = w->p;
	const struct fabric *f = p->c.f;
	struct an_acc *a = w->acc;
	struct tally t;
	int dsw = d < f->nswitches;
	enum an_class k_ca = dsw ? AN_CA_SW : AN_CA_CA, k_sw = dsw ? AN_SW_SW : AN_SW_CA;
	uint32_t dfirst = dsw ? FAB_NONE : p->c.first[d];
	uint8_t fails = 0;

	memset(&t, 0, sizeof(t));
	settle(w, j);
	tally(w, j, d, &t);
	a->paths[0] += t.paths;
	an_dest_tally(a, k_sw, t.ok_sw, AN_DELIVERED);
	an_dest_tally(a, k_ca, t.ok_ca, AN_DELIVERED);
	for (unsigned r = 1; r < AN_NFAILS; r++) {
		an_dest_tally(a, k_sw, t.bad_sw[r], (enum an_fail)r);
		an_dest_tally(a, k_ca, t.bad_ca[r], (enum an_fail)r);
		fails |= (uint8_t)((t.bad_sw[r] ? 1u << k_sw : 0) | (t.bad_ca[r] ? 1u << k_ca : 0));
	}
	an_dest_conn_rest(w, d, fails, t.maxh);
	if (!p->o.load)
		return;
	if (dfirst != FAB_NONE && R_RES(w->blk.r[dfirst]) == AN_DELIVERED) {
		/* the destination does not send to itself */
		a->eld[2 * d]--;
		a->eld[2 * d + 1] -= (uint32_t)an_dest_is_ca(f, d);
	}
	push(w, j);
}

/* Step 3: the marks and the per-port sums of rows [0, @m), switch by switch. */
static void scatter(struct an_work *w, uint32_t m)
{
	const struct an_plan *p = w->p;
	uint32_t nsw = p->c.f->nswitches, wblk = p->wblk;
	const uint8_t *o = w->blk.o, *dep = w->blk.dep;
	const uint32_t *fl = w->blk.fl;
	uint64_t *bits = w->acc->bits;
	uint32_t *ld = w->acc->ld;
	int load = p->o.load;

	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t base = p->pt_base[s];

		for (uint32_t j = 0; j < m; j++) {
			size_t i = (size_t)j * nsw + s, bit;
			uint32_t slot = base + o[i];

			if (dep[i] != DEP_NONE) {
				bit = (size_t)slot * wblk;
				bits[bit / 64] |= 1ull << (bit % 64);
				bit += 1u + dep[i];
				bits[bit / 64] |= (uint64_t)(dep[i] != 0) << (bit % 64);
			}
			if (load && fl[i]) {
				ld[2 * slot] += fl[i] & 0xffffu;
				ld[2 * slot + 1] += fl[i] >> 16;
			}
		}
	}
}

int an_dest_block_fits(const struct an_plan *p, uint32_t d)
{
	const struct fabric *f = p->c.f;
	unsigned lid = fab_ep_lid(f, d);

	return p->fast && f->neps <= AN_BLOCK_EPS && f->nswitches < C_TERM && lid &&
	       lid < p->c.r->lft_len;
}

void an_dest_block(struct an_work *w, const uint32_t *d, uint32_t m)
{
	uint32_t lid[AN_BLOCK] = { 0 };

	for (uint32_t j = 0; j < m; j++)
		lid[j] = fab_ep_lid(w->p->c.f, d[j]);
	w->tspan = 0;	/* examples, if any, resolve from the tables */
	gather(w, d, lid, m);
	for (uint32_t j = 0; j < m; j++) {
		for (uint32_t i = 0; i < w->p->nfwd; i++)
			w->fw[i].ready = 0;
		one(w, j, d[j]);
	}
	scatter(w, m);
}
