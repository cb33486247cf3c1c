/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftree - fat-tree routing
 *
 * The fat-tree routing papers/000 builds on (section 3: Zahavi's scheme,
 * OpenSM's ftree): up/down routing in which the paths of all sources to
 * one destination converge at one root and come down one dedicated path,
 * with both halves balanced by port counters. Levels and port directions
 * come from struct ft_model (ftree_model.c): leaves are the switches with
 * CAs, levels grow by BFS upwards.
 *
 * Destinations are routed one after the other: CA and router LIDs leaf by
 * leaf (switch order), each leaf's ports in port order, each LID of a
 * port's LMC range as a destination of its own; then switch LIDs. For a CA
 * destination D on leaf L:
 *
 *  1. Sibling shortcut. Leaves linked horizontally to L (a rack-switch
 *     partner, the sibling leaf in the next core) reach D over that link:
 *     one hop, shorter than any up/down path.
 *  2. Dedicated downward path (counted). From L go up, each time through
 *     the up port whose cable carries the fewest dedicated downward paths
 *     so far (then the upper switch crossed by the fewest, then the lowest
 *     port), until a switch without up port: the root of D. Every switch of
 *     this chain forwards D down the cable it was reached by.
 *  3. Upward entries (counted). For each chain switch from L up to the
 *     root, every switch below it that has no entry yet gets one going up,
 *     level by level downwards: among its up ports leading to switches that
 *     just got theirs, the one that carried the fewest upward entries so
 *     far (then the lowest port). A switch thus goes up to the lowest chain
 *     switch above it, its lowest common ancestor with L in a complete
 *     tree, and the counters spread the destinations over the up ports.
 *  4. Secondary entries (not counted), for switch-sourced paths and for
 *     degraded trees, where a switch may be cut off from the chain yet
 *     keep an up/down path: a switch with a down port to a switch whose
 *     path to D only goes down goes down too (levels upwards); then a
 *     switch without entry goes up to the parent nearest to D (levels
 *     downwards); then a leaf still without entry crosses a sibling link to
 *     a leaf that has an up/down path (never two sibling links in a row).
 *
 * Leaves carrying fewer CA LIDs than the fullest leaf route "dummy"
 * destinations through steps 2 and 3 (counters only, no table entry), as
 * OpenSM does, so that partially populated trees stay balanced. Switch
 * destinations get only step 1 and step 4: every switch reaches a switch
 * over a shortest up/down path if there is one, and switch pairs without
 * such a path (roots among themselves, ...) stay unrouted; sftree routes
 * them.
 *
 * Every path is [sibling hop] up* down*. Up and down channels alone are
 * ordered by level, and a sibling hop is only ever the first switch hop of
 * a path (no switch forwards into a leaf whose entry is a sibling hop), so
 * no channel leads into it: the channel dependency graph is acyclic on one
 * VL. Pairs that would need a down-to-up turn stay unrouted and the notes
 * count them: CAs of cores that are not neighbours (a ring of four cores or
 * more), a leaf whose sibling link failed and the other core, leaves of a
 * degraded tree left without a common ancestor.
 *
 * In a complete tree the result is OpenSM's ftree routing up to the order
 * in which destinations, ports and ties are visited (OpenSM orders leaves
 * by its BFS indexing, here switch order); unlike OpenSM it routes degraded
 * trees (missing links or switches) instead of falling back to minhop.
 *
 * Cost: O(destinations x switch links) time, O(switch links) memory besides
 * the LFTs.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftree.h"

/* Destinations whose entries are gathered before being written to the LFTs. */
#define FT_BLOCK 64u

enum ft_state {
	ST_NONE = 0,
	ST_DOWN = 1,	/* the path to the destination only goes down */
	ST_UP = 2,	/* goes up first */
	ST_SIB = 3,	/* crosses a sibling link first */
};

/**
 * struct ft_run - counters of a whole routing and scratch of one destination
 * @cnt_down: per up link: dedicated downward paths on its cable
 * @cnt_up: per down link: destinations its peer routed up through the
 *          cable (step 3); kept by the upper end, which offers it
 * @cnt_ext: per up link: destinations its peer routed down through the
 *           cable (step 4a); kept by the lower end, which offers it
 * @cnt_sec: per sibling link: secondary entries through it (steps 1 and 4c)
 * @load: per switch: dedicated downward paths crossing it
 * @state, @oport, @hops: per switch, for the current destination: enum
 *        ft_state, output port (RT_NO_PORT while the state is ST_NONE; a
 *        row of @blk), links to the destination
 * @best, @brank, @bport, @stamp, @round: per switch, the best way offered
 *        this round: its counter slot, rank and port (valid when stamp ==
 *        round)
 * @lport: per link, its port (links[].port, packed)
 * @chain, @cur, @next: switch lists
 * @dn, @ndn: the switches of state ST_DOWN, level l's in dn[lvl_off[l] ..
 *            lvl_off[l] + ndn[l])
 * @blk, @blk_lid, @nblk: the output ports of up to FT_BLOCK destinations,
 *                       one row of nsw bytes each, written to the LFTs
 *                       switch by switch (emit(), flush())
 * @up: the classes of switches and the counters of step 4b
 * @sibl, @nsibl: the leaves with sibling links
 */
struct ft_run {
	const struct ft_model *m;
	uint32_t *cnt_down, *cnt_up, *cnt_ext, *cnt_sec, *load;
	uint8_t *state, *oport;
	uint16_t *hops;
	uint32_t *best, *stamp;
	uint64_t *brank;
	uint8_t *bport, *lport;
	uint32_t round;
	uint32_t *chain, *cur, *next;
	uint32_t *dn, *ndn;
	uint8_t *blk;
	uint16_t blk_lid[FT_BLOCK];
	uint32_t nblk;
	struct ft_up up;
	uint32_t *sibl, nsibl;
};

static void run_fini(struct ft_run *x)
{
	free(x->cnt_down);
	free(x->cnt_up);
	free(x->cnt_ext);
	free(x->cnt_sec);
	free(x->load);
	free(x->state);
	free(x->hops);
	free(x->best);
	free(x->brank);
	free(x->bport);
	free(x->lport);
	free(x->stamp);
	free(x->chain);
	free(x->cur);
	free(x->next);
	free(x->dn);
	free(x->ndn);
	free(x->blk);
	ft_up_fini(&x->up);
	free(x->sibl);
}

static int run_init(struct ft_run *x, const struct ft_model *m)
{
	size_t nl = (size_t)m->nlinks + 1, ns = (size_t)m->nsw + 1;

	memset(x, 0, sizeof(*x));
	x->m = m;
	x->cnt_down = calloc(nl, sizeof(*x->cnt_down));
	x->cnt_up = calloc(nl, sizeof(*x->cnt_up));
	x->cnt_ext = calloc(nl, sizeof(*x->cnt_ext));
	x->cnt_sec = calloc(nl, sizeof(*x->cnt_sec));
	x->load = calloc(ns, sizeof(*x->load));
	x->state = calloc(ns, 1);
	x->hops = calloc(ns, sizeof(*x->hops));
	x->best = calloc(ns, sizeof(*x->best));
	x->brank = calloc(ns, sizeof(*x->brank));
	x->bport = calloc(ns, 1);
	x->lport = malloc(nl);
	x->stamp = calloc(ns, sizeof(*x->stamp));
	x->chain = malloc(ns * sizeof(*x->chain));
	x->cur = malloc(ns * sizeof(*x->cur));
	x->next = malloc(ns * sizeof(*x->next));
	x->dn = malloc(ns * sizeof(*x->dn));
	x->ndn = calloc((size_t)m->nlevels + 2, sizeof(*x->ndn));
	x->blk = malloc(ns * FT_BLOCK);
	x->sibl = malloc(ns * sizeof(*x->sibl));
	if (!x->cnt_down || !x->cnt_up || !x->cnt_ext || !x->cnt_sec || !x->load || !x->state || !x->hops ||
	    !x->best || !x->brank || !x->bport || !x->lport || !x->stamp || !x->chain || !x->cur || !x->next || !x->dn || !x->ndn ||
	    !x->blk || !x->sibl || ft_up_init(&x->up, m)) {
		run_fini(x);
		return -1;
	}
	for (uint32_t i = m->lvl_off[1]; i < m->lvl_off[2]; i++)
		if (ft_first(m, m->order[i], FT_SIB) < ft_end(m, m->order[i], FT_SIB))
			x->sibl[x->nsibl++] = m->order[i];
	x->oport = x->blk;
	for (uint32_t e = 0; e < m->nlinks; e++)
		x->lport[e] = m->links[e].port;
	return 0;
}

/* --- candidates: the best link of a switch towards the destination ------------ */

/*
 * The rank of a link of a switch as its way to the destination, lowest
 * best: the hops to go from its peer (@hops), then the link's counter
 * (@cnt); ties go to the lowest port.
 */
static inline uint64_t rank_of(uint16_t hops, uint32_t cnt)
{
	return (uint64_t)hops << 32 | cnt;
}

/*
 * Offer switch @t a way to the destination this round: the link of rank
 * @rank, leaving @t by its port @port, counted in slot @slot of the
 * counters take_best() is given.
 */
static inline void offer(struct ft_run *x, uint32_t t, uint32_t slot, uint64_t rank, uint8_t port,
			 uint32_t *list, uint32_t *n)
{
	if (x->stamp[t] != x->round) {
		x->stamp[t] = x->round;
		list[(*n)++] = t;
	} else if (rank > x->brank[t] || (rank == x->brank[t] && port >= x->bport[t])) {
		return;	/* not better */
	}
	x->best[t] = slot;
	x->brank[t] = rank;
	x->bport[t] = port;
}

/* Give switch @t the entry of the best way offered this round; count it in @cnt. */
static inline void take_best(struct ft_run *x, uint32_t t, enum ft_state st, uint32_t *cnt)
{
	x->state[t] = (uint8_t)st;
	x->oport[t] = x->bport[t];
	x->hops[t] = (uint16_t)((x->brank[t] >> 32) + 1);
	cnt[x->best[t]]++;
}

/* Give switch @t the entry of its link @e, whose peer is @hops away from the destination. */
static inline void take(struct ft_run *x, uint32_t t, uint32_t e, uint16_t hops, enum ft_state st)
{
	x->state[t] = (uint8_t)st;
	x->oport[t] = x->lport[e];
	x->hops[t] = (uint16_t)(hops + 1);
}

/* --- one destination ------------------------------------------------------------ */

/* Switch @s, of level 1 or more, just got state ST_DOWN. */
static inline void push_down(struct ft_run *x, uint32_t s)
{
	uint32_t l = x->m->level[s];

	x->dn[x->m->lvl_off[l] + x->ndn[l]++] = s;
}

/* Start a destination at switch @home, delivered through @port; step 1 when @sibs. */
static void dest_begin(struct ft_run *x, uint32_t home, uint8_t port, uint16_t hops, int sibs)
{
	const struct ft_model *m = x->m;
	uint32_t n = 0;

	memset(x->state, ST_NONE, m->nsw);
	x->oport = x->blk + (size_t)x->nblk * m->nsw;
	memset(x->oport, RT_NO_PORT, m->nsw);
	memset(x->ndn, 0, ((size_t)m->nlevels + 2) * sizeof(*x->ndn));
	x->state[home] = ST_DOWN;
	x->oport[home] = port;
	x->hops[home] = hops;
	push_down(x, home);
	if (!sibs)
		return;
	x->round++;
	for (uint32_t e = ft_first(m, home, FT_SIB); e < ft_end(m, home, FT_SIB); e++) {
		const struct ft_link *l = &m->links[e];

		offer(x, l->peer, l->back, rank_of(hops, x->cnt_sec[l->back]), l->peer_port, x->next,
		      &n);
	}
	for (uint32_t i = 0; i < n; i++)
		take_best(x, x->next[i], ST_SIB, x->cnt_sec);
}

/* Up link of @s for the dedicated downward path: see step 2 of the DOC comment. */
static uint32_t chain_link(const struct ft_run *x, uint32_t s)
{
	const struct ft_model *m = x->m;
	uint32_t best = ft_first(m, s, FT_UP);

	for (uint32_t e = best + 1; e < ft_end(m, s, FT_UP); e++) {
		uint32_t le = x->load[m->links[e].peer], lb = x->load[m->links[best].peer];

		if (x->cnt_down[e] < x->cnt_down[best] ||
		    (x->cnt_down[e] == x->cnt_down[best] && le < lb))
			best = e;
	}
	return best;
}

/* Step 2 from @home; returns the chain length (home included). */
static uint32_t chain_up(struct ft_run *x, uint32_t home)
{
	const struct ft_model *m = x->m;
	uint32_t n = 0, s = home;

	x->chain[n++] = s;
	while (ft_first(m, s, FT_UP) < ft_end(m, s, FT_UP)) {
		uint32_t e = chain_link(x, s), u = m->links[e].peer;

		x->cnt_down[e]++;
		x->load[u]++;
		x->state[u] = ST_DOWN;
		x->oport[u] = m->links[e].peer_port;
		x->hops[u] = (uint16_t)(x->hops[s] + 1);
		push_down(x, u);
		x->chain[n++] = u;
		s = u;
	}
	return n;
}

/* Step 3 below chain switch @top: entries going up, level by level downwards. */
static void descend(struct ft_run *x, uint32_t top)
{
	const struct ft_model *m = x->m;
	uint32_t ncur = 1, *cur = x->cur, *next = x->next;

	cur[0] = top;
	while (ncur) {
		uint32_t nnext = 0, *tmp;

		x->round++;
		for (uint32_t i = 0; i < ncur; i++) {
			uint16_t h = x->hops[cur[i]];

			for (uint32_t e = ft_first(m, cur[i], FT_DOWN); e < ft_end(m, cur[i], FT_DOWN);
			     e++) {
				const struct ft_link *l = &m->links[e];

				if (x->state[l->peer] == ST_NONE)
					offer(x, l->peer, e, rank_of(h, x->cnt_up[e]), l->peer_port, next,
					      &nnext);
			}
		}
		for (uint32_t i = 0; i < nnext; i++)
			take_best(x, next[i], ST_UP, x->cnt_up);
		tmp = cur;
		cur = next;
		next = tmp;
		ncur = nnext;
	}
}

/* Steps 2 and 3 for a destination begun at @home. */
static void main_paths(struct ft_run *x, uint32_t home)
{
	uint32_t n = chain_up(x, home);

	for (uint32_t i = 0; i < n; i++)
		descend(x, x->chain[i]);
}

/*
 * Step 4a: switches above a down-only switch go down, levels upwards. The
 * best link of each switch does not depend on the order of the offers.
 */
static void extend_down(struct ft_run *x)
{
	const struct ft_model *m = x->m;

	for (uint32_t l = 1; l < m->nlevels; l++) {
		uint32_t n = 0;

		x->round++;
		for (uint32_t i = m->lvl_off[l]; i < m->lvl_off[l] + x->ndn[l]; i++) {
			uint32_t s = x->dn[i];
			uint16_t h = x->hops[s];

			for (uint32_t e = ft_first(m, s, FT_UP); e < ft_end(m, s, FT_UP); e++) {
				const struct ft_link *k = &m->links[e];

				if (x->state[k->peer] == ST_NONE || x->state[k->peer] == ST_UP)
					offer(x, k->peer, e, rank_of(h, x->cnt_ext[e]), k->peer_port,
					      x->cur, &n);
			}
		}
		for (uint32_t i = 0; i < n; i++) {
			take_best(x, x->cur[i], ST_DOWN, x->cnt_ext);
			push_down(x, x->cur[i]);
		}
	}
}

/* Best link of @s in direction @d leading to a switch with an up/down entry; UINT32_MAX if none. */
static uint32_t pull(const struct ft_run *x, uint32_t s, enum ft_dir d)
{
	const struct ft_model *m = x->m;
	uint32_t best = UINT32_MAX;
	uint64_t rb = UINT64_MAX;

	for (uint32_t e = ft_first(m, s, d); e < ft_end(m, s, d); e++) {
		uint8_t st = x->state[m->links[e].peer];
		uint64_t r;

		if (st != ST_DOWN && st != ST_UP)
			continue;
		r = rank_of(x->hops[m->links[e].peer], x->cnt_sec[e]);
		if (r < rb) {
			rb = r;
			best = e;
		}
	}
	return best;
}

/*
 * The up link positions (0: the first) whose peers have an up/down entry
 * at the least distance, for the switches of class @c, into x->up.cand;
 * their distance into @hops, the first up link of a member of the class
 * into @first. Returns their count.
 */
static uint32_t class_cands(struct ft_run *x, uint32_t c, uint16_t *hops, uint32_t *first)
{
	const struct ft_model *m = x->m;
	uint32_t s = x->up.mem[x->up.off[c]], n = 0;
	uint16_t h = UINT16_MAX;

	*first = ft_first(m, s, FT_UP);
	for (uint32_t e = *first; e < ft_end(m, s, FT_UP); e++) {
		uint32_t p = m->links[e].peer;

		if (x->state[p] != ST_DOWN && x->state[p] != ST_UP)
			continue;
		if (x->hops[p] < h) {
			h = x->hops[p];
			n = 0;
		}
		if (x->hops[p] == h)
			x->up.cand[n++] = e - *first;
	}
	*hops = h;
	return n;
}

/*
 * Steps 4b and 4c: up to the nearest routed parent (levels downwards), then
 * siblings. A switch's choice depends on the level above and its own
 * counters only, so switches are visited class by class.
 */
static void fill_rest(struct ft_run *x)
{
	const struct ft_model *m = x->m;
	struct ft_up *u = &x->up;

	for (uint32_t l = m->nlevels - 1; l >= 1; l--)
		for (uint32_t c = u->lvl[l]; c < u->lvl[l + 1]; c++) {
			uint32_t n = UINT32_MAX, first = 0;
			uint16_t h = 0;

			for (uint32_t i = u->off[c]; i < u->off[c + 1]; i++) {
				uint32_t s = u->mem[i], j;

				if (x->state[s] != ST_NONE)
					continue;
				if (n == UINT32_MAX && !(n = class_cands(x, c, &h, &first)))
					break;
				j = ft_up_pick(u, i, n);
				x->state[s] = ST_UP;
				x->oport[s] = x->lport[first + j];	/* the same in the class */
				x->hops[s] = (uint16_t)(h + 1);
				ft_up_count(u, i, j);
			}
		}
	for (uint32_t i = 0; i < x->nsibl; i++) {
		uint32_t s = x->sibl[i], e;

		if (x->state[s] == ST_NONE && (e = pull(x, s, FT_SIB)) != UINT32_MAX) {
			take(x, s, e, x->hops[m->links[e].peer], ST_SIB);
			x->cnt_sec[e]++;
		}
	}
}

/* Transpose the 8 x 8 bytes of @a: byte k of a[j] goes to byte j of a[k]. */
static void transpose8(uint64_t a[8])
{
	for (unsigned i = 0; i < 8; i += 2) {
		uint64_t t = ((a[i] >> 8) ^ a[i + 1]) & 0x00FF00FF00FF00FFull;

		a[i + 1] ^= t;
		a[i] ^= t << 8;
	}
	for (unsigned i = 0; i < 8; i += i % 2 ? 3 : 1) {
		uint64_t t = ((a[i] >> 16) ^ a[i + 2]) & 0x0000FFFF0000FFFFull;

		a[i + 2] ^= t;
		a[i] ^= t << 16;
	}
	for (unsigned i = 0; i < 4; i++) {
		uint64_t t = ((a[i] >> 32) ^ a[i + 4]) & 0x00000000FFFFFFFFull;

		a[i + 4] ^= t;
		a[i] ^= t << 32;
	}
}

/*
 * Eight switches from @s0 of a full block of consecutive LIDs: 8 x 8 bytes
 * at a time, read as rows of the block, written as pieces of LFT rows.
 */
static void flush8(struct ft_run *x, struct rt_routing *r, uint32_t s0)
{
	uint32_t n = x->m->nsw;

	for (uint32_t j0 = 0; j0 < FT_BLOCK; j0 += 8) {
		uint64_t a[8];

		for (uint32_t j = 0; j < 8; j++)
			memcpy(&a[j], x->blk + (size_t)(j0 + j) * n + s0, 8);
		transpose8(a);
		for (uint32_t k = 0; k < 8; k++)
			memcpy(rt_lft(r, s0 + k) + x->blk_lid[0] + j0, &a[k], 8);
	}
}

/* Write the gathered entries to the LFTs, one switch row at a time. */
static void flush(struct ft_run *x, struct rt_routing *r)
{
	uint32_t n = x->m->nsw, s = 0;
	int run = x->nblk == FT_BLOCK;

	for (uint32_t j = 1; j < x->nblk && run; j++)
		run = x->blk_lid[j] == x->blk_lid[0] + j;
	for (; run && s + 8 <= n; s += 8)
		flush8(x, r, s);
	for (; s < n; s++) {
		uint8_t *row = rt_lft(r, s);

		for (uint32_t j = 0; j < x->nblk; j++)
			row[x->blk_lid[j]] = x->blk[(size_t)j * n + s];
	}
	x->nblk = 0;
}

/* Keep the current destination's entries (the row x->oport) for @lid (< r->lft_len). */
static void emit(struct ft_run *x, struct rt_routing *r, unsigned lid)
{
	x->blk_lid[x->nblk++] = (uint16_t)lid;
	if (x->nblk == FT_BLOCK)
		flush(x, r);
}

/* --- all destinations ---------------------------------------------------------- */

/* The CA or router port behind port @p of switch @s, or NULL. */
static const struct fab_port *ca_port(const struct fabric *f, uint32_t s, unsigned p)
{
	const struct fab_port *x = fab_port(f, f->switches[s], p);

	if (x->peer == FAB_NONE || f->nodes[x->peer].type == FAB_SWITCH)
		return NULL;
	return fab_port(f, x->peer, x->peer_port);
}

/* CA LIDs hanging off leaf @s. */
static uint32_t leaf_lids(const struct fabric *f, uint32_t s)
{
	uint32_t n = 0;

	for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
		const struct fab_port *c = ca_port(f, s, p);

		if (c && c->lid)
			n += 1u << c->lmc;
	}
	return n;
}

/* Route the CA LIDs of leaf @s, then its dummies up to @quota destinations. */
static void route_leaf(struct ft_run *x, struct rt_routing *r, uint32_t s, uint32_t quota,
		       struct ft_stats *st)
{
	const struct fabric *f = x->m->f;
	uint32_t done = 0;

	for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
		const struct fab_port *c = ca_port(f, s, p);

		for (unsigned l = 0; c && c->lid && l < (1u << c->lmc); l++) {
			dest_begin(x, s, (uint8_t)p, 1, 1);
			main_paths(x, s);
			extend_down(x);
			fill_rest(x);
			if (c->lid + l < r->lft_len)
				emit(x, r, c->lid + l);
			done++;
		}
	}
	st->ca_lids += done;
	for (; done < quota; done++, st->dummies++) {
		dest_begin(x, s, RT_NO_PORT, 1, 0);
		main_paths(x, s);
	}
}

static void route_switch(struct ft_run *x, struct rt_routing *r, uint32_t s)
{
	unsigned lid = fab_port(x->m->f, x->m->f->switches[s], 0)->lid;

	if (!lid || lid >= r->lft_len)
		return;
	dest_begin(x, s, 0, 0, 1);
	extend_down(x);
	fill_rest(x);
	emit(x, r, lid);
}

int ft_route(const struct ft_model *m, struct rt_routing *r, struct ft_stats *st)
{
	const struct fabric *f = m->f;
	uint32_t quota = 0;
	struct ft_run x;

	memset(st, 0, sizeof(*st));
	if (run_init(&x, m))
		return -1;
	eng_route_endpoints(f, r);
	for (uint32_t i = m->lvl_off[1]; i < m->lvl_off[2]; i++) {
		uint32_t n = leaf_lids(f, m->order[i]);

		quota = n > quota ? n : quota;
	}
	for (uint32_t i = m->lvl_off[1]; i < m->lvl_off[2]; i++)
		route_leaf(&x, r, m->order[i], quota, st);
	for (uint32_t i = 0; i < m->lvl_off[m->nlevels + 1]; i++)
		route_switch(&x, r, m->order[i]);
	flush(&x, r);
	run_fini(&x);
	return 0;
}

int ft_count_holes(const struct ft_model *m, const struct rt_routing *r, struct ft_stats *st)
{
	const struct fabric *f = m->f;
	/* per LID: endpoints (switches, CAs) whose base LID it is */
	uint32_t *nsw = calloc((size_t)r->lft_len + 1, sizeof(*nsw));
	uint32_t *nca = calloc((size_t)r->lft_len + 1, sizeof(*nca));

	if (!nsw || !nca) {
		free(nsw);
		free(nca);
		return -1;
	}
	for (uint32_t e = 0; e < f->neps; e++) {
		unsigned l = fab_ep_lid(f, e);

		if (l && l < r->lft_len)
			(f->nodes[f->eps[e].node].type == FAB_SWITCH ? nsw : nca)[l]++;
	}
	st->ca_holes = st->sw_holes = 0;
	for (uint32_t s = 0; s < m->nsw; s++) {
		const uint8_t *row = rt_lft(r, s), *p = row + 1, *end = row + r->lft_len;
		uint32_t ncas = 0;
		uint64_t miss = 0;

		for (unsigned q = 1; q <= f->nodes[f->switches[s]].nports; q++)
			ncas += ca_port(f, s, q) != NULL;
		for (; p < end && (p = memchr(p, RT_NO_PORT, (size_t)(end - p))); p++) {
			st->sw_holes += nsw[p - row];
			miss += nca[p - row];
		}
		st->ca_holes += miss * ncas;
	}
	free(nsw);
	free(nca);
	return 0;
}

/* --- the engine ------------------------------------------------------------------ */

static int ftree_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		struct fab_err *err)
{
	const struct fabric *f = q->fabric;
	struct rt_routing **out = &res->routing;
	struct ft_stats st;
	struct ft_model m;
	struct rt_routing *r;
	int rc = ft_model_init(&m, f, err);

	(void)a;
	if (rc != ENG_OK)
		return rc;
	r = rt_new(f);
	if (!r || ft_route(&m, r, &st) || ft_count_holes(&m, r, &st) ||
	    !(r->notes = ft_notes(&m, &st))) {
		fab_err_set(err, "out of memory routing %u switches", f->nswitches);
		rt_free(r);
		ft_model_fini(&m);
		return ENG_ERROR;
	}
	ft_model_fini(&m);
	*out = r;
	return ENG_OK;
}

const struct engine eng_ftree = {
	.name = "ftree",
	.summary = "fat-tree routing (Zahavi, OpenSM's ftree): balanced up/down paths, one "
		   "dedicated downward path per CA; degraded and multi-core trees too",
	.options = NULL,
	.deadlock_free = 1,
	.vls = 1,
	.route = ftree_route,
};
