/* SPDX-License-Identifier: MIT */
/**
 * DOC: one destination of the fat-tree routing, in two stages
 *
 * The steps of ftree.c's DOC comment for one destination, split by the
 * counters they read and write:
 *
 *  - the first stage: the states of step 1 (which leaves reach the
 *    destination over a sibling link), step 2 (the dedicated downward
 *    path: cnt_down, load) and step 3 (the upward entries: cnt_up);
 *  - the second stage: the ports of step 1 and step 4 (the secondary
 *    entries: cnt_sec, cnt_ext and the up-link counters of ftree_up.c).
 *
 * No step reads the other stage's counters, and which switches get an
 * entry, at which distance, never depends on a counter (only which of
 * equally good links a switch takes does), so the first stage of a
 * destination can run ahead of the second stage of earlier ones: ftree.c
 * runs them in turn, or in two threads, with the same result.
 *
 * A switch's way is chosen among the links offered to it in one round
 * (the links of the switches reached in the previous round): the lowest
 * rank (hops to go, then the link's counter), then the lowest port. Which
 * one wins does not depend on the order of the offers. Counters are kept
 * by the end of the cable that offers it, so that a round reads them in
 * link order.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftree/ftree.h"

enum ft_state {
	ST_NONE = 0,
	ST_DOWN = 1,	/* the path to the destination only goes down */
	ST_UP = 2,	/* goes up first */
	ST_SIB = 3,	/* crosses a sibling link first */
	ST_OFFERED = 4,	/* had none, offered a way this round (a round's own) */
	ST_OFFERED_UP = 5,	/* had ST_UP, offered a way down this round (likewise) */
};

static void offers_fini(struct ft_offers *o)
{
	free(o->stamp);
	free(o->best);
	free(o->bkey);
	free(o->cur);
	free(o->next);
}

static int offers_init(struct ft_offers *o, uint32_t nsw)
{
	size_t ns = (size_t)nsw + 1;

	o->round = 0;
	o->stamp = calloc(ns, sizeof(*o->stamp));
	o->best = calloc(ns, sizeof(*o->best));
	o->bkey = calloc(ns, sizeof(*o->bkey));
	o->cur = malloc(ns * sizeof(*o->cur));
	o->next = malloc(ns * sizeof(*o->next));
	return o->stamp && o->best && o->bkey && o->cur && o->next ? 0 : -1;
}

/*
 * The key of a link of a switch as its way to the destination, lowest
 * best: the hops to go from its peer (@hops), then the link's counter
 * (@cnt), then its port on the switch (@port).
 */
static inline uint64_t key_of(uint16_t hops, uint32_t cnt, uint8_t port)
{
	return (uint64_t)hops << 40 | (uint64_t)cnt << 8 | port;
}

/*
 * Offer switch @t a way to the destination this round: the link of key
 * @key, counted in slot @slot of the counters take_best() is given. New
 * switches of the round go to @list.
 */
static inline void offer(struct ft_offers *o, uint32_t t, uint32_t slot, uint64_t key,
			 uint32_t *list, uint32_t *n)
{
	if (o->stamp[t] != o->round) {
		o->stamp[t] = o->round;
		list[(*n)++] = t;
	} else if (key >= o->bkey[t]) {
		return;	/* not better */
	}
	o->best[t] = slot;
	o->bkey[t] = key;
}

/* Give switch @t the entry of the best way offered this round; count it in @cnt. */
static inline void take_best(const struct ft_offers *o, const struct ft_slot *sl, uint32_t t,
			     enum ft_state st, uint32_t *cnt)
{
	sl->state[t] = (uint8_t)st;
	sl->oport[t] = (uint8_t)o->bkey[t];
	sl->hops[t] = (uint16_t)((o->bkey[t] >> 40) + 1);
	cnt[o->best[t]]++;
}

/* --- the first stage ------------------------------------------------------------- */

int ft_stage1_init(struct ft_stage1 *a, const struct ft_model *m)
{
	size_t nl = (size_t)m->nlinks + 1;

	memset(a, 0, sizeof(*a));
	a->m = m;
	a->cnt_down = calloc(nl, sizeof(*a->cnt_down));
	a->cnt_up = calloc(nl, sizeof(*a->cnt_up));
	a->load = calloc((size_t)m->nsw + 1, sizeof(*a->load));
	if (offers_init(&a->o, m->nsw) || !a->cnt_down || !a->cnt_up || !a->load) {
		ft_stage1_fini(a);
		return -1;
	}
	return 0;
}

void ft_stage1_fini(struct ft_stage1 *a)
{
	offers_fini(&a->o);
	free(a->cnt_down);
	free(a->cnt_up);
	free(a->load);
	memset(a, 0, sizeof(*a));
}

/* Up link of @s for the dedicated downward path: see step 2 of ftree.c. */
static uint32_t chain_link(const struct ft_stage1 *a, uint32_t s)
{
	const struct ft_model *m = a->m;
	uint32_t best = ft_first(m, s, FT_UP);

	for (uint32_t e = best + 1; e < ft_end(m, s, FT_UP); e++) {
		uint32_t le = a->load[m->links[e].peer], lb = a->load[m->links[best].peer];

		if (a->cnt_down[e] < a->cnt_down[best] ||
		    (a->cnt_down[e] == a->cnt_down[best] && le < lb))
			best = e;
	}
	return best;
}

/* Step 2 from d->home, into d->chain. */
static void chain_up(struct ft_stage1 *a, struct ft_dest *d, const struct ft_slot *sl)
{
	const struct ft_model *m = a->m;
	uint32_t s = d->home;

	while (ft_first(m, s, FT_UP) < ft_end(m, s, FT_UP)) {
		uint32_t e = chain_link(a, s), u = m->links[e].peer;

		a->cnt_down[e]++;
		a->load[u]++;
		sl->filled[m->level[u]]++;
		sl->state[u] = ST_DOWN;
		sl->oport[u] = m->links[e].peer_port;
		sl->hops[u] = (uint16_t)(sl->hops[s] + 1);
		d->chain[d->nchain++] = u;
		s = u;
	}
}

/*
 * Offer switch @t the link @e of key @k this round. @st is its state, @mark
 * what an offer makes of a switch without one this round (ST_OFFERED, or
 * ST_OFFERED_UP for a switch of state ST_UP); new switches of the round go
 * to @list, which holds @n. The state marks what stamps and rounds do in
 * offer(), one byte that the caller reads anyway. Return: the new count.
 */
static inline uint32_t offer_state(uint8_t *state, uint32_t *best, uint64_t *bkey, uint32_t t,
				   uint8_t st, uint8_t mark, uint32_t e, uint64_t k,
				   uint32_t *list, uint32_t n)
{
	if (st < ST_OFFERED) {
		state[t] = mark;
		list[n++] = t;
	} else if (k >= bkey[t]) {
		return n;	/* not better */
	}
	best[t] = e;
	bkey[t] = k;
	return n;
}

/*
 * Give switch @t the way of key @k (the best offered this round) and state
 * @st in a slot's @state, @oport and @hops; count it in @cnt[@e].
 */
static inline void take(uint8_t *state, uint8_t *oport, uint16_t *hops, uint32_t t, uint8_t st,
			uint64_t k, uint32_t *cnt, uint32_t e)
{
	state[t] = st;
	oport[t] = (uint8_t)k;
	hops[t] = (uint16_t)((k >> 40) + 1);
	cnt[e]++;
}

/*
 * Step 3 below chain switch @top: entries going up, level by level
 * downwards. (Locals in the loops: byte stores could alias fields.)
 */
static void descend(struct ft_stage1 *a, const struct ft_slot *sl, uint32_t top)
{
	const struct ft_model *m = a->m;
	const struct ft_link *links = m->links;
	const uint32_t *off = m->off;
	uint32_t ncur = 1, *cur = a->o.cur, *next = a->o.next, *cnt = a->cnt_up, *best = a->o.best;
	uint32_t *filled = sl->filled;
	uint64_t *bkey = a->o.bkey;
	uint8_t *state = sl->state, *oport = sl->oport;
	uint16_t *hops = sl->hops;

	cur[0] = top;
	while (ncur) {
		uint32_t nnext = 0, *tmp;

		for (uint32_t i = 0; i < ncur; i++) {
			uint32_t s = cur[i];
			uint64_t h = key_of(hops[s], 0, 0);

			for (uint32_t e = off[3 * s + FT_DOWN], end = off[3 * s + FT_DOWN + 1]; e < end;
			     e++) {
				uint32_t t = links[e].peer;
				uint8_t st = state[t];

				if (st == ST_NONE || st == ST_OFFERED)
					nnext = offer_state(state, best, bkey, t, st, ST_OFFERED, e,
							    h | key_of(0, cnt[e], links[e].peer_port),
							    next, nnext);
			}
		}
		for (uint32_t i = 0; i < nnext; i++)
			take(state, oport, hops, next[i], ST_UP, bkey[next[i]], cnt, best[next[i]]);
		if (nnext)	/* one level below the round's switches */
			filled[m->level[next[0]]] += nnext;
		tmp = cur;
		cur = next;
		next = tmp;
		ncur = nnext;
	}
}

void ft_stage1_run(struct ft_stage1 *a, struct ft_dest *d, const struct ft_slot *sl)
{
	const struct ft_model *m = a->m;

	memset(sl->state, ST_NONE, m->nsw);
	memset(sl->oport, RT_NO_PORT, m->nsw);
	memset(sl->filled, 0, ((size_t)m->nlevels + 2) * sizeof(*sl->filled));
	sl->filled[m->level[d->home]]++;
	sl->state[d->home] = ST_DOWN;
	sl->oport[d->home] = d->port;
	sl->hops[d->home] = d->hops;
	d->chain[0] = d->home;
	d->nchain = 1;
	for (uint32_t e = ft_first(m, d->home, FT_SIB); d->sibs && e < ft_end(m, d->home, FT_SIB);
	     e++) {
		sl->filled[1] += sl->state[m->links[e].peer] == ST_NONE;
		sl->state[m->links[e].peer] = ST_SIB;	/* the port: the second stage */
	}
	if (!d->paths)
		return;
	chain_up(a, d, sl);
	for (uint32_t i = 0; i < d->nchain; i++)
		descend(a, sl, d->chain[i]);
}

/* --- the second stage ------------------------------------------------------------ */

int ft_stage2_init(struct ft_stage2 *b, const struct ft_model *m)
{
	size_t nl = (size_t)m->nlinks + 1, ns = (size_t)m->nsw + 1;

	memset(b, 0, sizeof(*b));
	b->m = m;
	b->lport = malloc(nl);
	b->cnt_ext = calloc(nl, sizeof(*b->cnt_ext));
	b->cnt_sec = calloc(nl, sizeof(*b->cnt_sec));
	b->dn = malloc(ns * sizeof(*b->dn));
	b->ndn = calloc((size_t)m->nlevels + 2, sizeof(*b->ndn));
	b->sibl = malloc(ns * sizeof(*b->sibl));
	if (offers_init(&b->o, m->nsw) || !b->lport || !b->cnt_ext || !b->cnt_sec || !b->dn ||
	    !b->ndn || !b->sibl || ft_up_init(&b->up, m)) {
		ft_stage2_fini(b);
		return -1;
	}
	for (uint32_t e = 0; e < m->nlinks; e++)
		b->lport[e] = m->links[e].port;
	for (uint32_t i = m->lvl_off[1]; i < m->lvl_off[2]; i++)
		if (ft_first(m, m->order[i], FT_SIB) < ft_end(m, m->order[i], FT_SIB))
			b->sibl[b->nsibl++] = m->order[i];
	return 0;
}

void ft_stage2_fini(struct ft_stage2 *b)
{
	offers_fini(&b->o);
	free(b->lport);
	free(b->cnt_ext);
	free(b->cnt_sec);
	free(b->dn);
	free(b->ndn);
	free(b->sibl);
	ft_up_fini(&b->up);
	memset(b, 0, sizeof(*b));
}

/* Switch @s, of level 1 or more, has state ST_DOWN. */
static inline void push_down(struct ft_stage2 *b, uint32_t s)
{
	uint32_t l = b->m->level[s];

	b->dn[b->m->lvl_off[l] + b->ndn[l]++] = s;
}

/* Step 1's ports: the leaves linked to d->home take their least used sibling link to it. */
static void siblings(struct ft_stage2 *b, const struct ft_dest *d, const struct ft_slot *sl)
{
	const struct ft_model *m = b->m;
	uint32_t n = 0;

	b->o.round++;
	for (uint32_t e = ft_first(m, d->home, FT_SIB); e < ft_end(m, d->home, FT_SIB); e++) {
		const struct ft_link *l = &m->links[e];

		offer(&b->o, l->peer, l->back, key_of(d->hops, b->cnt_sec[l->back], l->peer_port),
		      b->o.next, &n);
	}
	for (uint32_t i = 0; i < n; i++)
		take_best(&b->o, sl, b->o.next[i], ST_SIB, b->cnt_sec);
}

/* Step 4a: switches above a down-only switch go down, levels upwards. */
static void extend_down(struct ft_stage2 *b, const struct ft_slot *sl)
{
	const struct ft_model *m = b->m;
	const struct ft_link *links = m->links;
	const uint32_t *off = m->off;
	uint32_t *cnt = b->cnt_ext, *best = b->o.best, *list = b->o.cur;
	uint64_t *bkey = b->o.bkey;
	uint8_t *state = sl->state, *oport = sl->oport;
	uint16_t *hops = sl->hops;

	for (uint32_t l = 1; l < m->nlevels; l++) {
		uint32_t n = 0, fresh = 0, *dn = b->dn + m->lvl_off[l + 1] + b->ndn[l + 1];

		for (uint32_t i = m->lvl_off[l]; i < m->lvl_off[l] + b->ndn[l]; i++) {
			uint32_t s = b->dn[i];
			uint64_t h = key_of(hops[s], 0, 0);

			for (uint32_t e = off[3 * s + FT_UP], end = off[3 * s + FT_UP + 1]; e < end; e++) {
				uint32_t t = links[e].peer;
				uint8_t st = state[t];

				if (st == ST_NONE || st == ST_UP || st >= ST_OFFERED)
					n = offer_state(state, best, bkey, t, st,
							st == ST_UP ? ST_OFFERED_UP : ST_OFFERED, e,
							h | key_of(0, cnt[e], links[e].peer_port), list, n);
			}
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t t = list[i];

			fresh += state[t] == ST_OFFERED;
			take(state, oport, hops, t, ST_DOWN, bkey[t], cnt, best[t]);
			dn[i] = t;	/* all of level l + 1: up links lead there */
		}
		sl->filled[l + 1] += fresh;
		b->ndn[l + 1] += n;
	}
}

/*
 * The up link positions (0: the first) whose peers have an up/down entry
 * at the least distance, for the switches of class @c, into b->up.cand;
 * their distance into @hops, the first up link of a member of the class
 * into @first. Returns their count.
 */
static uint32_t class_cands(struct ft_stage2 *b, const struct ft_slot *sl, uint32_t c,
			    uint16_t *hops, uint32_t *first)
{
	const struct ft_model *m = b->m;
	uint32_t s = b->up.mem[b->up.off[c]], n = 0;
	uint16_t h = UINT16_MAX;

	*first = ft_first(m, s, FT_UP);
	for (uint32_t e = *first; e < ft_end(m, s, FT_UP); e++) {
		uint32_t p = m->links[e].peer;

		if (sl->state[p] != ST_DOWN && sl->state[p] != ST_UP)
			continue;
		if (sl->hops[p] < h) {
			h = sl->hops[p];
			n = 0;
		}
		if (sl->hops[p] == h)
			b->up.cand[n++] = e - *first;
	}
	*hops = h;
	return n;
}

/*
 * Step 4b for the switches of class @c without entry: up to the nearest
 * parent with an up/down entry, through its least used link to one.
 * Returns how many got an entry. (Locals, not @b and @sl, in the loop:
 * byte stores could alias any of their fields.)
 */
static uint32_t pull_class(struct ft_stage2 *b, const struct ft_slot *sl, uint32_t c)
{
	struct ft_up *u = &b->up;
	uint8_t *state = sl->state, *oport = sl->oport;
	uint16_t *hops = sl->hops, h1 = 0;
	const uint8_t *lp = b->lport;
	const uint32_t *mem = u->mem;
	uint64_t *mask = u->mask;
	uint32_t uw = u->uw, beg = u->off[c], end = u->off[c + 1];
	uint32_t n = UINT32_MAX, got = 0, nup = u->base[beg + 1] - u->base[beg];

	for (uint32_t i = beg; i < end; i++) {
		uint32_t s = mem[i], j;

		if (state[s] != ST_NONE)
			continue;
		if (n == UINT32_MAX) {
			uint16_t h;
			uint32_t first;

			if (!(n = class_cands(b, sl, c, &h, &first)))
				break;
			h1 = (uint16_t)(h + 1);
			lp += first;	/* the ports of the first member's up links: the class's */
		}
		if (n == nup) {	/* every up link: the members' common case */
			j = ft_up_take_least(u, i, mask + (size_t)i * 2 * uw, uw);
		} else {
			j = ft_up_pick(u, i, n);
			ft_up_count(u, i, j);
		}
		state[s] = ST_UP;
		oport[s] = lp[j];
		hops[s] = h1;
		got++;
	}
	return got;
}

/*
 * Step 4b, levels downwards. A switch's choice depends on the level above
 * and its own counters only, so switches are visited class by class, and
 * a level where every switch has an entry is skipped.
 */
static void pull_up(struct ft_stage2 *b, const struct ft_slot *sl)
{
	const struct ft_model *m = b->m;

	for (uint32_t l = m->nlevels - 1; l >= 1; l--)
		for (uint32_t c = b->up.lvl[l]; c < b->up.lvl[l + 1] &&
		     sl->filled[l] < m->lvl_off[l + 1] - m->lvl_off[l]; c++)
			sl->filled[l] += pull_class(b, sl, c);
}

/*
 * Step 4c: a leaf still without entry crosses its least used sibling link
 * to a leaf with an up/down entry (the nearest first).
 */
static void pull_sib(struct ft_stage2 *b, const struct ft_slot *sl)
{
	const struct ft_model *m = b->m;

	for (uint32_t i = 0; i < b->nsibl; i++) {
		uint32_t s = b->sibl[i], best = UINT32_MAX;
		uint64_t rb = UINT64_MAX;

		if (sl->state[s] != ST_NONE)
			continue;
		for (uint32_t e = ft_first(m, s, FT_SIB); e < ft_end(m, s, FT_SIB); e++) {
			uint32_t p = m->links[e].peer;
			uint64_t r = key_of(sl->hops[p], b->cnt_sec[e], 0);

			if ((sl->state[p] == ST_DOWN || sl->state[p] == ST_UP) && r < rb) {
				rb = r;
				best = e;
			}
		}
		if (best == UINT32_MAX)
			continue;
		sl->filled[1]++;
		sl->state[s] = ST_SIB;
		sl->oport[s] = b->lport[best];
		sl->hops[s] = (uint16_t)((rb >> 40) + 1);
		b->cnt_sec[best]++;
	}
}

void ft_stage2_run(struct ft_stage2 *b, const struct ft_dest *d, const struct ft_slot *sl)
{
	memset(b->ndn, 0, ((size_t)b->m->nlevels + 2) * sizeof(*b->ndn));
	for (uint32_t i = 0; i < d->nchain; i++)
		push_down(b, d->chain[i]);
	if (d->sibs)
		siblings(b, d, sl);
	extend_down(b, sl);
	pull_up(b, sl);
	pull_sib(b, sl);
}
