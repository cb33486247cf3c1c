/* SPDX-License-Identifier: MIT */
/**
 * DOC: the common case, a block of destinations at a time
 *
 * No per-pair tables, every hop on VL 0, one LID per pair, every source in
 * the CDG (struct an_plan.block): what analysis/dest_fast.c (or, counting,
 * the three passes of analysis/dest.c) does for one destination, done for
 * up to AN_BLOCK destinations at once (their LIDs are neighbours: the plan
 * takes destinations by LID). The large tables (the LFT rows, the steps of
 * every switch port, the channel marks, the pairs out of every port) are
 * then read and written switch by switch, for every destination of the
 * block while the switch's few cache lines are at hand, instead of once
 * per destination all over memory. Three steps:
 *
 *  1. gather(), switch by switch: each destination's LFT entry (one run of
 *     neighbouring bytes of the switch's row) and the step it gives;
 *  2. one(), destination by destination: its functional graph settled in
 *     the plan's switch order (top down in a tree), where most switches
 *     find their next one settled and delivering: those are counted all
 *     at once, as sending every source they have; the others (the
 *     destination's own switches, failures, loops) one by one
 *     (settle_one()); then the sources pushed along the graph (push());
 *  3. scatter_bits() or scatter_counts(), switch by switch: the channel and
 *     dependency marks (bits, or counts with an_opts.incremental), the
 *     pairs out of each port. With bits and the load, a channel's own mark
 *     is read off the load at the end (an_dest_block_channels()).
 *
 * The destinations stay separate throughout, and the sums are those of the
 * per-destination passes: the unit tests compare the reports with the
 * reference evaluator's, with every option and thread count.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/dest_impl.h"

/*
 * A switch's step towards a destination, in 16 bits: the next switch, or
 * C_TERM | the result when the packet goes no further (delivered on the
 * port, or lost).
 */
#define C_TERM AN_PC_TERM

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
#define DEP_NONE AN_DEP_NONE

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
	b->up = malloc(n * sizeof(*b->up));
	b->r = malloc(((size_t)nsw + 1) * sizeof(*b->r));
	b->settled = malloc(((size_t)nsw + 1) * sizeof(*b->settled));
	return b->c && b->fl && b->o && b->dep && b->up && b->r && b->settled ? 0 : -1;
}

void an_blk_fini(struct an_blk *b)
{
	free(b->c);
	free(b->fl);
	free(b->o);
	free(b->dep);
	free(b->up);
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

/* Step 1 at switch @s. */
static inline void gather_switch(const struct an_plan *p, struct an_blk *b, const uint32_t *lid,
				 uint32_t m, uint32_t s)
{
	uint32_t nsw = p->c.f->nswitches, lim = p->pt_base[s + 1] - p->pt_base[s];
	const uint8_t *row = rt_lft(p->c.r, s);
	const uint16_t *pc = p->pcode + p->pt_base[s] + s;

	for (uint32_t j = 0; j < m; j++) {
		size_t i = (size_t)j * nsw + s;
		uint8_t port = row[lid[j]];
		uint16_t code = pc[port < lim ? port : lim];

		b->o[i] = port;
		b->c[i] = port == RT_NO_PORT ? C_TERM | AN_NO_ENTRY : code;
	}
}

/*
 * Step 1: the LFT entries of the LIDs @lid[0..@m) and their steps from the
 * plan, switch by switch. A port to a CA counts as a wrong one here: the
 * destination's own is set right by one().
 */
static void gather(struct an_work *w, const uint32_t *lid, uint32_t m)
{
	const struct an_plan *p = w->p;
	const struct rt_routing *r = p->c.r;
	uint32_t nsw = p->c.f->nswitches;
	struct an_blk *b = &w->blk;

	for (uint32_t s = 0; s < nsw; s++) {
		if (s + AN_AHEAD < nsw) {
			/* rows are far apart: no hardware prefetcher guesses the next one */
			__builtin_prefetch(rt_lft(r, s + AN_AHEAD) + lid[0]);
			__builtin_prefetch(rt_lft(r, s + AN_AHEAD) + lid[m - 1]);
		}
		gather_switch(p, b, lid, m, s);
	}
}

/* The step of switch @s on @port towards @d where @d may be delivered: its switch, or the one it is on. */
static uint16_t step_exact(const struct an_plan *p, uint8_t port, uint32_t s, uint32_t d)
{
	uint32_t lim = p->pt_base[s + 1] - p->pt_base[s];

	return step(port, port < lim ? p->pt[p->pt_base[s] + port] :
		    AN_PT(AN_PT_DOWN, 0, AN_PT_NOVAL), d);
}

uint16_t an_dest_block_step(const struct an_plan *p, uint32_t s, uint8_t port, uint32_t d,
			    uint32_t at)
{
	uint32_t lim = p->pt_base[s + 1] - p->pt_base[s];

	if (s == at)
		return step_exact(p, port, s, d);
	return port == RT_NO_PORT ? C_TERM | AN_NO_ENTRY :
				    p->pcode[p->pt_base[s] + s + (port < lim ? port : lim)];
}

/*
 * Per destination: the figures of the switches settled one by one
 * (settle_one(); the others are delivered, on a port to a switch, with
 * all their sources: counted at once in one()).
 */
struct tally {
	uint32_t slow_sw;
	uint64_t slow_nn;
	uint64_t ok_sw, ok_ca, bad_sw[AN_NFAILS], bad_ca[AN_NFAILS];
	uint64_t paths;
	uint32_t maxh;
};

/* What one destination's pass shares. */
struct dest {
	struct an_work *w;
	uint32_t d, dfirst;
	const uint16_t *c;
	const uint8_t *o;
	uint32_t *fl;
	uint8_t *dep;
	const uint32_t *own;	/* per switch, its sums when it delivers */
	uint32_t dca;		/* @d is a CA: 1 */
	struct tally t;
};

/* The mark of switch @s, whose next is a switch: the port that one leaves by to a switch, or 0. */
static inline uint8_t chan(const uint16_t *c, const uint8_t *o, uint32_t s)
{
	uint32_t nx = c[s];

	return c[nx] < C_TERM ? o[nx] : 0;
}

/* The sources entering switch @s towards the destination. */
static inline uint32_t sources(const struct an_plan *p, const struct dest *x, uint32_t s)
{
	return (s != x->d) + p->n_nonsw[s] - (s == x->dfirst);
}

/* Settle switch @s with @res and @hops, counted one by one. */
static void settle_one(struct dest *x, uint32_t s, unsigned res, uint32_t hops)
{
	struct an_work *w = x->w;
	const struct an_plan *p = w->p;
	struct an_blk *b = &w->blk;
	struct tally *t = &x->t;
	uint32_t n = sources(p, x, s), nsw_s = s != x->d, nca = n - nsw_s, sres = R_SRES(b->r[s]);

	b->r[s] = R_DONE | hops << 8 | sres << 4 | res;
	t->slow_sw++;
	t->slow_nn += p->n_nonsw[s];
	t->paths += (sres == AN_DELIVERED || sres == AN_WRONG_PORT) && x->o[s] != 0 ? n : 0;
	x->dep[s] = x->c[s] < C_TERM ? chan(x->c, x->o, s) : DEP_NONE;
	if (res == AN_DELIVERED) {
		t->ok_sw += nsw_s;
		t->ok_ca += nca;
		t->maxh = n && hops > t->maxh ? hops : t->maxh;
		x->fl[s] = FLOW(n, x->dca ? p->n_ca[s] - (s == x->dfirst) : 0);
		b->settled[b->nsettled++] = s;
		return;
	}
	t->bad_sw[res] += nsw_s;
	t->bad_ca[res] += nca;
	x->fl[s] = 0;
	w->acc->dall[s]--;	/* one() counted every switch as delivering */
	w->acc->dca[s] -= x->dca;
}

/* Follow the steps from @s until a switch settled, a loop or the end; settle the way back. */
static void walk(struct dest *x, uint32_t s)
{
	struct an_work *w = x->w;
	uint32_t *r = w->blk.r, depth = 0, v, res, hops;

	for (;;) {
		uint32_t t = x->c[s];

		r[s] = R_ACTIVE | (t >= C_TERM ? t & 0xfu : AN_DELIVERED) << 4;
		w->stack[depth++] = s;
		if (t >= C_TERM) {
			res = t & 0xfu;
			hops = 0;
			break;
		}
		v = r[t];
		if (v & R_DONE) {
			res = R_RES(v);
			hops = R_HOPS(v);
			break;
		}
		if (v & R_ACTIVE) {
			res = AN_LOOP;
			hops = 0;
			break;
		}
		s = t;
	}
	while (depth--) {
		hops = res == AN_DELIVERED ? (hops + 1) & 0xffffu : 0;
		settle_one(x, w->stack[depth], res, hops);
	}
}

/*
 * Step 2a: the destination's functional graph, each switch settled once,
 * in the plan's order: most switches find their next one settled and
 * delivering, and settle in a few instructions. The switches of the
 * destination itself go first, one by one (their sources are not all
 * theirs), and so does every switch that does not find its next one so.
 */
static void settle(struct dest *x)
{
	const struct an_plan *p = x->w->p;
	uint32_t nsw = p->c.f->nswitches, maxh = 0;
	struct an_blk *b = &x->w->blk;
	const uint16_t *c = x->c;
	const uint8_t *o = x->o;
	uint32_t *r = b->r, *fl = x->fl, *settled = b->settled, ns;
	uint8_t *dep = x->dep;

	memset(r, 0, (size_t)nsw * sizeof(*r));
	b->nsettled = 0;
	if (x->d < nsw)
		walk(x, x->d);
	if (x->dfirst != FAB_NONE && !r[x->dfirst])
		walk(x, x->dfirst);
	ns = b->nsettled;
	for (uint32_t i = 0; i < nsw; i++) {
		uint32_t s = p->sw_order[i], t = c[s], v, h;

		if (r[s])
			continue;
		if (t >= C_TERM || ((v = r[t]) & (R_DONE | 0xfu)) != R_DONE) {
			b->nsettled = ns;
			walk(x, s);
			ns = b->nsettled;
			continue;
		}
		h = (R_HOPS(v) + 1) & 0xffffu;
		r[s] = R_DONE | h << 8;
		settled[ns++] = s;
		maxh = h > maxh ? h : maxh;
		fl[s] = x->own[s];
		dep[s] = c[t] < C_TERM ? o[t] : 0;
	}
	b->nsettled = ns;
	x->t.maxh = maxh > x->t.maxh ? maxh : x->t.maxh;
}

/*
 * Step 2c: push the sources along the graph, in the reverse of the
 * settling order (every switch after all that send to it): a switch's
 * sums become the pairs out of the port it leaves by. Both halves of a sum
 * stay below 2^16 (fewer sources), so one addition adds both.
 */
static void push(struct dest *x, uint32_t j)
{
	const struct an_blk *b = &x->w->blk;
	const uint16_t *c = x->c;
	uint32_t *fl = x->fl, nsw = x->w->p->c.f->nswitches;
	uint16_t *up = x->w->rows ? b->up + (size_t)j * nsw : NULL;

	if (up)
		memset(up, 0, (size_t)nsw * sizeof(*up));
	for (uint32_t i = b->nsettled; i--;) {
		uint32_t s = b->settled[i], t = c[s];

		if (t >= C_TERM)
			continue;
		fl[t] += fl[s];
		if (up && up[t] <= up[s])
			up[t] = (uint16_t)(up[s] + 1);
	}
	if (x->d < x->w->p->c.f->nswitches && x->o[x->d] == 0)
		fl[x->d] = 0;	/* delivered at its port 0: no link */
}

/* @d is a switch no other source enters: its channel counts only when walks go on through it. */
static void dest_switch(struct dest *x, uint32_t nsw)
{
	int reached = 0;

	if (x->d >= nsw || x->w->p->n_nonsw[x->d] || x->dep[x->d] == DEP_NONE)
		return;
	for (uint32_t s = 0; s < nsw && !reached; s++)
		reached = x->c[s] == x->d && s != x->d;
	if (!reached)
		x->dep[x->d] = DEP_NONE;
}

/* Step 2: destination @d, row @j of the block. */
static void one(struct an_work *w, uint32_t j, uint32_t d)
{
	const struct an_plan *p = w->p;
	const struct fabric *f = p->c.f;
	uint32_t nsw = f->nswitches;
	struct an_blk *b = &w->blk;
	struct an_acc *a = w->acc;
	int dsw = d < nsw;
	enum an_class k_ca = dsw ? AN_CA_SW : AN_CA_CA, k_sw = dsw ? AN_SW_SW : AN_SW_CA;
	struct dest x = { .w = w, .d = d, .dfirst = dsw ? FAB_NONE : p->c.first[d],
			  .c = b->c + (size_t)j * nsw, .o = b->o + (size_t)j * nsw,
			  .fl = b->fl + (size_t)j * nsw, .dep = b->dep + (size_t)j * nsw,
			  .dca = (uint32_t)an_dest_is_ca(f, d) };
	uint32_t fast;
	uint64_t fast_nn;
	uint8_t fails = 0;

	x.own = x.dca ? p->own_ca : p->own_sw;
	settle(&x);
	dest_switch(&x, nsw);
	fast = nsw - x.t.slow_sw;
	fast_nn = p->nn_total - x.t.slow_nn;
	a->paths[0] += x.t.paths + fast + fast_nn;
	an_dest_tally(a, k_sw, x.t.ok_sw + fast, AN_DELIVERED);
	an_dest_tally(a, k_ca, x.t.ok_ca + fast_nn, AN_DELIVERED);
	for (unsigned r = 1; r < AN_NFAILS; r++) {
		an_dest_tally(a, k_sw, x.t.bad_sw[r], (enum an_fail)r);
		an_dest_tally(a, k_ca, x.t.bad_ca[r], (enum an_fail)r);
		fails |= (uint8_t)((x.t.bad_sw[r] ? 1u << k_sw : 0) |
				   (x.t.bad_ca[r] ? 1u << k_ca : 0));
	}
	an_dest_conn_rest(w, d, fails, x.t.maxh);
	if (!p->o.load)
		return;
	if (x.dfirst != FAB_NONE && R_RES(b->r[x.dfirst]) == AN_DELIVERED) {
		/* the destination does not send to itself */
		a->eld[2 * d]--;
		a->eld[2 * d + 1] -= x.dca;
	}
	push(&x, j);
}

/* Both sums of a port at once: neither passes 2^32 (fewer than 2^16 endpoints). */
static inline void add_flow(uint32_t *ld, uint32_t slot, uint32_t f)
{
	uint64_t l;

	memcpy(&l, ld + 2 * slot, sizeof(l));
	l += (f & 0xffffu) | (uint64_t)(f >> 16) << 32;
	memcpy(ld + 2 * slot, &l, sizeof(l));
}

/*
 * Step 3: the marks and the per-port sums of rows [0, @m), switch by
 * switch. With the load, the mark of a channel that pairs towards the
 * destination cross is left to the sums (an_dest_block_channels()).
 */
static void scatter_bits(struct an_work *w, uint32_t m)
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
			uint32_t slot = base + o[i], f = load ? fl[i] : 0;
			unsigned q = dep[i];

			if (q != DEP_NONE) {
				bit = (size_t)slot * wblk;
				if (!f)
					bits[bit / 64] |= 1ull << (bit % 64);
				if (q) {
					bit += 1u + q;
					bits[bit / 64] |= 1ull << (bit % 64);
				}
			}
			if (f)
				add_flow(ld, slot, f);
		}
	}
}

/*
 * The same with counts (an_opts.incremental: a destination's share can be
 * taken out again): each destination counts once every channel it marks
 * and the dependency, as analysis/dest_cdg.c's walks on VL 0 do.
 * Return: 0, or -1 when out of memory.
 */
static int scatter_counts(struct an_work *w, uint32_t m)
{
	const struct an_plan *p = w->p;
	uint32_t nsw = p->c.f->nswitches;
	const uint8_t *o = w->blk.o, *dep = w->blk.dep;
	const uint32_t *fl = w->blk.fl;
	struct an_acc *a = w->acc;
	int load = p->o.load;

	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t base = p->pt_base[s];

		for (uint32_t j = 0; j < m; j++) {
			size_t i = (size_t)j * nsw + s;
			uint32_t slot = base + o[i], b;
			unsigned q = dep[i];

			if (q != DEP_NONE) {
				/* one VL slot (struct an_plan.block): a channel's index is its port's */
				if (!(b = a->blk[slot]) && !(b = an_acc_block(a, p, slot, 0)))
					return -1;
				a->chan[slot]++;
				if (q)
					a->arena[b + 1 + q]++;
			}
			if (load && fl[i])
				add_flow(a->ld, slot, fl[i]);
		}
	}
	return 0;
}

void an_dest_block_channels(const struct an_plan *p, struct an_acc *a)
{
	if (!p->block || !p->bits || !p->o.load)
		return;
	for (uint32_t i = 0; i < p->npt; i++)
		if (AN_PT_KIND(p->pt[i]) == AN_PT_SW && a->ld[2 * i])
			an_acc_setbit(a, (size_t)i * p->wblk);
}

int an_dest_block_fits(const struct an_plan *p, uint32_t d)
{
	const struct fabric *f = p->c.f;
	unsigned lid = fab_ep_lid(f, d);

	return p->block && f->neps < AN_BLOCK_EPS && f->nswitches < C_TERM && lid &&
	       lid < p->c.r->lft_len;
}

/* Row @j's step at the switch of destination @d itself, or at the one it is on. */
static void own_step(struct an_work *w, uint32_t j, uint32_t d)
{
	const struct an_plan *p = w->p;
	uint32_t nsw = p->c.f->nswitches, at = d < nsw ? d : p->c.first[d];

	if (at != FAB_NONE)
		w->blk.c[(size_t)j * nsw + at] = step_exact(p, w->blk.o[(size_t)j * nsw + at], at, d);
}

static void block_lids(const struct an_plan *p, const uint32_t *d, uint32_t m, uint32_t *lid)
{
	for (uint32_t j = 0; j < m; j++)
		lid[j] = fab_ep_lid(p->c.f, d[j]);
}

void an_dest_block_gather(struct an_work *w, const uint32_t *d, uint32_t m)
{
	uint32_t lid[AN_BLOCK] = { 0 };

	block_lids(w->p, d, m, lid);
	w->tspan = 0;	/* examples, if any, resolve from the tables */
	gather(w, lid, m);
	for (uint32_t j = 0; j < m; j++)
		own_step(w, j, d[j]);
}

void an_dest_block_gather_like(struct an_work *w, const struct an_work *like, const uint32_t *d,
			       uint32_t m, const uint32_t *sw, uint32_t nsw_diff)
{
	const struct an_plan *p = w->p;
	uint32_t lid[AN_BLOCK] = { 0 }, nsw = p->c.f->nswitches;

	block_lids(p, d, m, lid);
	w->tspan = 0;
	memcpy(w->blk.o, like->blk.o, (size_t)m * nsw);
	memcpy(w->blk.c, like->blk.c, (size_t)m * nsw * sizeof(*w->blk.c));
	for (uint32_t k = 0; k < nsw_diff; k++)
		gather_switch(p, &w->blk, lid, m, sw[k]);
	for (uint32_t j = 0; j < m; j++)
		own_step(w, j, d[j]);
}

void an_dest_block_settle(struct an_work *w, const uint32_t *d, const uint32_t *rows, uint32_t n)
{
	uint32_t nca = 0, nsw = w->p->c.f->nswitches;

	for (uint32_t k = 0; k < n; k++)
		nca += (uint32_t)an_dest_is_ca(w->p->c.f, d[rows[k]]);
	for (uint32_t s = 0; s < nsw; s++) {
		/* every switch delivers, but those one() finds do not */
		w->acc->dall[s] += n;
		w->acc->dca[s] += nca;
	}
	for (uint32_t k = 0; k < n; k++) {
		for (uint32_t i = 0; i < w->p->nfwd; i++)
			w->fw[i].ready = 0;
		one(w, rows[k], d[rows[k]]);
	}
}

void an_dest_block_rows(struct an_work *w, const uint32_t *d, uint32_t m)
{
	uint32_t all[AN_BLOCK];

	for (uint32_t j = 0; j < m; j++)
		all[j] = j;
	an_dest_block_gather(w, d, m);
	an_dest_block_settle(w, d, all, m);
}

void an_dest_block_keep(const struct an_work *w, const uint32_t *d, uint32_t m)
{
	uint32_t nsw = w->p->c.f->nswitches;

	for (uint32_t k = 0; k < m; k++) {
		size_t at = (size_t)d[k] * nsw, j = (size_t)k * nsw;

		memcpy(w->rows->fl + at, w->blk.fl + j, nsw * sizeof(*w->blk.fl));
		memcpy(w->rows->c + at, w->blk.c + j, nsw * sizeof(*w->blk.c));
		memcpy(w->rows->o + at, w->blk.o + j, nsw);
		memcpy(w->rows->up + at, w->blk.up + j, nsw * sizeof(*w->blk.up));
	}
}

int an_dest_block(struct an_work *w, const uint32_t *d, uint32_t m)
{
	an_dest_block_rows(w, d, m);
	if (w->rows)
		an_dest_block_keep(w, d, m);
	if (w->p->bits) {
		scatter_bits(w, m);
		return 0;
	}
	return scatter_counts(w, m);
}
