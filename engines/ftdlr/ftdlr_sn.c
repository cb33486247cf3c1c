/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - repairs of a base that turns its switch paths through a subtree root
 *
 * sftree routes the switch pairs that have no up*down* path through one
 * switch, the subtree root sn (papers/000): such a packet heads for sn and
 * the first switch on its way that has an up*down* path to the destination
 * turns it up. All of these down-to-up turns are at sn or its ancestors,
 * in every direction between their parents, on the CAs' VL.
 *
 * The label rule of ftdlr.c does not hold against them. A detour U-turns
 * at a switch w from the dead link's (dirty) label a to a clean label b;
 * sftree turns from b back to a at sn; ordinary CA traffic joins the two
 * (w up through b towards sn's CAs, sn up through a and down to w). On the
 * 4-ary 3-tree routed by sftree, 66 of the 128 single link faults close
 * that cycle: every link between a middle switch and a leaf outside sn's
 * pod, and 16 links of the top. No choice of switch-LID entries can break
 * it (a switch of column b reaches one of column a only through a turn at
 * some leaf), and CA-LID traffic alone is acyclic; the cycle needs the
 * switch paths and the detour on one VL.
 *
 * So such a base is repaired by its own rule. Every down-to-up turn of a
 * routing at sn or a live ancestor of sn (a switch whose way to sn only
 * goes down: an anchor) cannot close a cycle (papers/000, Lemma 5.9): a
 * chain of dependencies between two such turns climbs from one anchor to a
 * peak and comes down to another, both along the one down path from the
 * peak to sn, so at the peak a packet would leave by the link it came in
 * on, which a loop-free routing never does. For a LID d whose entries need
 * repair, on the current fabric:
 *
 *  - DOWN: the switches with a live down path to d; UP: the others with a
 *    live up path to one of DOWN (both have an up*down* path);
 *  - a DOWN switch goes down towards d (its base entry when that still
 *    does);
 *  - an UP switch keeps a live base entry that goes up; an anchor only
 *    when that parent is in DOWN or UP (else the packet would come back
 *    down to it on the way to sn); otherwise a parent in DOWN or UP, the
 *    one d's LID picks among them (spreading as replace_up() does);
 *  - any other switch forwards d the way it forwards sn, keeping a live
 *    base entry that goes up when that way goes up too. The packet then
 *    reaches sn's side and the first switch of DOWN or UP on the way turns
 *    it up: an anchor, since the way had come down to it.
 *
 * Only switches whose base path to d crossed a dead link change. A dead
 * link between a middle switch c and a leaf outside sn's pod costs c, the
 * top switches above c (they reach the leaf only through c), sn's parent
 * in c's column and sn: about 6 entries per LID below the link instead of
 * the 2 of a detour, and traffic to those LIDs from above c takes sn's
 * way (4 hops more on a 3-level tree). Elsewhere the rule gives the
 * detour itself (w an anchor).
 *
 * sn's own LID is repaired first, by detours. Where its repaired way comes
 * down to a switch and goes up again (sn or an ancestor lost a link: a
 * crossing), the other LIDs turn only as that way does; a LID that sn
 * cannot reach up*down* takes the way from its switch to sn backwards; a
 * switch that kept an entry going up and finds the packet coming back (on
 * such a way) takes a parent of DOWN or UP, or its way to sn. A LID the
 * rule leaves some switch without a way to is repaired by detours.
 * Exhaustive and sampled fault sets in the unit tests, and fabroute's
 * evaluator on every repair a daemon publishes, check what the argument
 * above does not cover. ftdlr's own base (switch destinations on VL 1)
 * has its switch LIDs repaired by this rule and its CA LIDs by detours.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr/ftdlr_impl.h"

enum { UD_NO = 0, UD_UP = 1, UD_DOWN = 2 };

/* The most bytes of switch classes kept for the switches LIDs are repaired towards (all threads). */
#define FD_UDC_MAX (64u << 20)

/* x->anchor[]: a switch whose way to sn only goes down, or where a way to sn turns up */
enum { SN_ANCHOR = 1, SN_CROSSING = 2 };

static int is_up(const struct fd *x, uint32_t s, uint32_t e)
{
	return e < ft_first(&x->m, s, FT_DOWN);
}

/* --- the subtree root --------------------------------------------------------------- */

/* Turning switches whose base entry towards switch @t's LID goes down. */
static uint32_t turning_above(const struct fd *x, uint32_t t)
{
	const struct fabric *bf = x->bf;
	unsigned lid = fab_port(bf, bf->switches[t], 0)->lid;
	uint32_t n = 0;

	for (uint32_t s = 0; lid && s < x->nsw; s++) {
		uint8_t p = x->turning[s] ? rt_lft_get(x->br, s, lid) : RT_NO_PORT;
		uint32_t e = p == RT_NO_PORT ? FD_NONE : fd_link(x, s, p);

		n += e != FD_NONE && !is_up(x, s, e);
	}
	return n;
}

/*
 * sn: the turning switch of the lowest level (sftree turns at sn and its
 * ancestors), the one with the most turning switches above it when several
 * are; none when the base turns no switch path (ftree: x->sw_updown then
 * says its switch LIDs are repaired as CA LIDs) or sn is gone.
 */
int fd_sn_find(struct fd *x)
{
	uint32_t best = FD_NONE, bn = 0;

	x->sn = FD_NONE;
	x->ud_sw = FD_NONE;
	x->udc_max = FD_UDC_MAX;
	x->ud = calloc((size_t)x->nsw + 1, 1);
	x->udc = calloc((size_t)x->nsw + 1, sizeof(*x->udc));
	x->snway = malloc((size_t)x->nsw + 1);
	x->anchor = calloc((size_t)x->nsw + 1, 1);
	if (!x->ud || !x->udc || !x->snway || !x->anchor)
		return -1;
	x->sw_updown = !x->st.switch_sl;
	for (uint32_t s = 0; s < x->nsw && x->sw_updown; s++)
		x->sw_updown = !x->turning[s];
	for (uint32_t l = 1; l <= x->m.nlevels && best == FD_NONE; l++)
		for (uint32_t i = x->m.lvl_off[l]; i < x->m.lvl_off[l + 1]; i++) {
			uint32_t t = x->m.order[i], n;

			if (!x->turning[t])
				continue;
			n = turning_above(x, t);
			if (best == FD_NONE || n > bn) {
				best = t;
				bn = n;
			}
		}
	if (best == FD_NONE || fd_dead(x, best))
		return 0;
	x->sn = best;
	x->snlid = fab_port(x->bf, x->bf->switches[best], 0)->lid;
	return 0;
}

/* The model link of live switch @s's entry in @r towards sn, FD_NONE if none or dead. */
static uint32_t sn_link(const struct fd *x, const struct rt_routing *r, uint32_t s)
{
	uint8_t p = rt_lft(r, x->cur[s])[x->snlid];
	uint32_t e = p == RT_NO_PORT ? FD_NONE : fd_link(x, s, p);

	return e != FD_NONE && x->alive[e] ? e : FD_NONE;
}

void fd_sn_ways(struct fd *x, const struct rt_routing *r)
{
	memset(x->anchor, 0, x->nsw);
	for (uint32_t s = 0; s < x->nsw; s++) {
		uint32_t e = fd_dead(x, s) ? FD_NONE : sn_link(x, r, s);

		x->snway[s] = e == FD_NONE ? RT_NO_PORT : x->m.links[e].port;
	}
	if (fd_dead(x, x->sn))
		return;
	x->anchor[x->sn] = SN_ANCHOR;
	for (uint32_t l = x->m.level[x->sn] + 1; l <= x->m.nlevels; l++)	/* levels upwards */
		for (uint32_t i = x->m.lvl_off[l]; i < x->m.lvl_off[l + 1]; i++) {
			uint32_t s = x->m.order[i], e = fd_dead(x, s) ? FD_NONE : sn_link(x, r, s);

			x->anchor[s] = e != FD_NONE && !is_up(x, s, e) &&
				       x->anchor[x->m.links[e].peer] == SN_ANCHOR;
		}
	for (uint32_t s = 0; s < x->nsw; s++) {	/* where a way comes down and goes up */
		uint32_t e = fd_dead(x, s) ? FD_NONE : sn_link(x, r, s), w, f;

		if (e == FD_NONE || is_up(x, s, e))
			continue;
		w = x->m.links[e].peer;
		f = sn_link(x, r, w);
		if (f != FD_NONE && is_up(x, w, f))
			x->anchor[w] = SN_CROSSING;
	}
}

/* --- one LID ------------------------------------------------------------------------ */

/*
 * The classes towards switch @sw on the links x->alive says are live, into
 * @ud: DOWN from @sw upwards, then UP downwards (@stack: scratch).
 */
static void classify(const struct fd *x, uint32_t sw, uint8_t *ud, uint32_t *stack)
{
	uint32_t head = 0, tail = 0;

	memset(ud, UD_NO, x->nsw);
	ud[sw] = UD_DOWN;
	stack[tail++] = sw;
	while (head < tail) {
		uint32_t s = stack[head++];

		for (uint32_t e = ft_first(&x->m, s, FT_UP); e < ft_end(&x->m, s, FT_UP); e++)
			if (x->alive[e] && ud[x->m.links[e].peer] != UD_DOWN) {
				ud[x->m.links[e].peer] = UD_DOWN;
				stack[tail++] = x->m.links[e].peer;
			}
	}
	for (head = 0; head < tail; head++) {	/* every DOWN switch, then what they reach below */
		uint32_t s = stack[head];

		for (uint32_t e = ft_first(&x->m, s, FT_DOWN); e < ft_end(&x->m, s, FT_DOWN); e++)
			if (x->alive[e] && ud[x->m.links[e].peer] == UD_NO) {
				ud[x->m.links[e].peer] = UD_UP;
				stack[tail++] = x->m.links[e].peer;
			}
	}
}

int fd_sn_prepare(struct fd *x, const int *stop)
{
	struct fd_memo *k = x->keep;
	size_t n = (size_t)x->nsw * x->nsw;
	uint32_t *stack;

	if (!k || k->ud_tried || n > FD_UDB_MAX)
		return 0;
	if (fd_sn_find(x))
		return -1;
	if (x->sn == FD_NONE) {
		k->ud_tried = 1;
		return 0;	/* no repair by the rule */
	}
	if (!k->ud_build && !(k->ud_build = malloc(n + 1)))
		return -1;
	if (!(stack = malloc(((size_t)x->nsw + 1) * sizeof(*stack))))
		return -1;
	while (k->ud_sw < x->nsw) {
		classify(x, k->ud_sw, k->ud_build + (size_t)k->ud_sw * x->nsw, stack);
		if (++k->ud_sw % FD_UDB_RUN == 0 && fd_stopped(stop))
			break;
	}
	free(stack);
	if (k->ud_sw < x->nsw)
		return 1;
	k->ud_base = k->ud_build;	/* the repairs take it once whole */
	k->ud_build = NULL;
	k->ud_tried = 1;
	return 0;
}

/*
 * Live switch @u has a way up over live links to a switch of class DOWN in
 * @b, within @left hops.
 */
static int up_to_down(const struct fd *x, const uint8_t *b, uint32_t u, unsigned left)
{
	for (uint32_t e = ft_first(&x->m, u, FT_UP); left && e < ft_end(&x->m, u, FT_UP); e++)
		if (x->alive[e] && (b[x->m.links[e].peer] == UD_DOWN ||
				    up_to_down(x, b, x->m.links[e].peer, left - 1)))
			return 1;
	return 0;
}

/*
 * The base's classes towards @sw (@b) hold on the current fabric: no dead
 * link leaves a switch of DOWN upwards (DOWN is then the same), and the
 * lower switch of each dead link still has a live way up to DOWN (so it,
 * and everything below it, is still UP; NO stays NO).
 */
static int base_holds(const struct fd *x, const uint8_t *b)
{
	for (uint32_t i = 0; i < x->ndead; i++) {
		uint32_t u = x->dead[i];

		if (b[u] == UD_DOWN || (b[u] == UD_UP && !up_to_down(x, b, u, x->m.nlevels)))
			return 0;
	}
	return 1;
}

void fd_sn_ud(struct fd *x, const struct dst *d)
{
	uint8_t **c = &x->udc[d->sw];
	const uint8_t *b = x->keep && x->keep->ud_base ?
			   x->keep->ud_base + (size_t)d->sw * x->nsw : NULL;

	if (x->ud_sw == d->sw)
		return;
	x->ud_sw = d->sw;
	x->ud_kept = b && base_holds(x, b);
	if (x->ud_kept) {
		memcpy(x->ud, b, x->nsw);
		return;
	}
	if (*c) {
		memcpy(x->ud, *c, x->nsw);
		return;
	}
	classify(x, d->sw, x->ud, x->stack);
	if (x->udc_bytes + x->nsw > x->udc_max || !(*c = malloc(x->nsw)))
		return;
	memcpy(*c, x->ud, x->nsw);
	x->udc_bytes += x->nsw;
}

/* A live link of @s in direction @dir to a switch of class >= @min: the @pick-th of them. */
static uint32_t nth_link(const struct fd *x, uint32_t s, enum ft_dir dir, uint8_t min,
			 unsigned pick)
{
	uint32_t cand[FAB_PORTS_MAX], n = 0;

	for (uint32_t e = ft_first(&x->m, s, dir); e < ft_end(&x->m, s, dir); e++)
		if (x->alive[e] && x->ud[x->m.links[e].peer] >= min && n < FAB_PORTS_MAX)
			cand[n++] = e;
	return n ? cand[pick % n] : FD_NONE;
}

uint8_t fd_sn_entry(const struct fd *x, const struct dst *d, uint32_t s)
{
	uint8_t p = x->bcol[s];
	uint32_t e = p == RT_NO_PORT ? FD_NONE : fd_link(x, s, p), f;
	int up_ok = e != FD_NONE && x->alive[e] && is_up(x, s, e);

	if (s == d->sw)
		return d->port;
	if (p == RT_NO_PORT)
		return p;	/* the base did not route it either */
	switch (x->ud[s]) {
	case UD_DOWN:
		if (e != FD_NONE && x->alive[e] && !is_up(x, s, e) &&
		    x->ud[x->m.links[e].peer] == UD_DOWN)
			return p;
		f = nth_link(x, s, FT_DOWN, UD_DOWN, 0);
		break;
	case UD_UP:
		if (x->anchor[s] == SN_CROSSING)
			return x->snway[s];	/* turns only as sn's way does */
		if (up_ok && (!x->anchor[s] || x->ud[x->m.links[e].peer] != UD_NO))
			return p;
		f = nth_link(x, s, FT_UP, UD_UP, d->lid);
		break;
	default:
		if (x->snway[s] == RT_NO_PORT)
			return RT_NO_PORT;
		f = fd_link(x, s, x->snway[s]);
		if (up_ok && is_up(x, s, f) && x->anchor[s] != SN_CROSSING)
			return p;
		return x->snway[s];
	}
	return f == FD_NONE ? RT_NO_PORT : x->m.links[f].port;
}

/* Port of the cable of model link @e seen from its other end. */
static uint8_t back_port(const struct fd *x, uint32_t e)
{
	return x->m.links[x->m.links[e].back].port;
}

/*
 * sn has no up*down* path to @d (dead links cut d's side off sn's): sn and
 * every switch on the way from d's switch to sn forward d along that way
 * backwards. It turns where the way turns (at its crossings, the other way
 * round) and nowhere else. Return: 0 when d's switch has no way to sn.
 */
static int way_back(struct fd *x, const struct dst *d)
{
	uint32_t v = d->sw;

	for (uint32_t h = 0; v != x->sn; h++) {
		uint32_t e = x->snway[v] == RT_NO_PORT ? FD_NONE : fd_link(x, v, x->snway[v]);

		if (e == FD_NONE || h > x->nsw)
			return 0;
		v = x->m.links[e].peer;
	}
	for (v = d->sw; v != x->sn;) {
		uint32_t e = fd_link(x, v, x->snway[v]);

		x->row[x->m.links[e].peer] = back_port(x, e);
		v = x->m.links[e].peer;
	}
	return 1;
}

/* Following x->row[] from @s comes back to @s. */
static int on_loop(const struct fd *x, const struct dst *d, uint32_t s)
{
	uint32_t c = s;

	for (uint32_t h = 0; h <= x->nsw; h++) {
		uint32_t e = fd_delivers(d, c, x->row[c]) || x->row[c] == RT_NO_PORT ? FD_NONE :
			     fd_link(x, c, x->row[c]);

		if (e == FD_NONE || !x->alive[e])
			return 0;
		c = x->m.links[e].peer;
		if (c == s)
			return 1;
	}
	return 0;
}

/*
 * A switch that kept a base entry going up to a parent without an up*down*
 * path can get the packet back, on sn's way, when that way turns (sn or
 * one of its ancestors lost a link): such a switch on a loop takes a parent
 * of UP or DOWN (an UP switch) or its way to sn (any other). Return: 1
 * when an entry changed.
 */
static int break_loops(struct fd *x, const struct dst *d)
{
	int changed = 0;

	for (uint32_t s = 0; s < x->nsw; s++) {
		uint32_t e, f;

		if (fd_dead(x, s) || x->mark[s] != MK_FAIL || x->row[s] == RT_NO_PORT ||
		    (e = fd_link(x, s, x->row[s])) == FD_NONE || !is_up(x, s, e) ||
		    x->ud[x->m.links[e].peer] != UD_NO || x->row[s] == x->snway[s] ||
		    !on_loop(x, d, s))
			continue;
		if (x->ud[s] == UD_NO) {
			x->row[s] = x->snway[s];
			changed = 1;
		} else if (x->ud[s] == UD_UP && (f = nth_link(x, s, FT_UP, UD_UP, d->lid)) != FD_NONE) {
			x->row[s] = x->m.links[f].port;
			changed = 1;
		}
	}
	return changed;
}

int fd_sn_updown(const struct fd *x)
{
	return x->ud[x->sn] != UD_NO;
}

int fd_sn_gives_base(struct fd *x, const struct dst *d, const uint8_t *bcol)
{
	fd_sn_ud(x, d);
	if (!fd_sn_updown(x))
		return 0;	/* sn's way taken backwards */
	memcpy(x->bcol, bcol, x->nsw);
	for (uint32_t s = 0; s < x->nsw; s++)
		if (fd_sn_entry(x, d, s) != bcol[s])
			return 0;
	memcpy(x->row, bcol, x->nsw);
	fd_resolve(x, d);
	for (uint32_t s = 0; s < x->nsw; s++)
		if (x->mark[s] != MK_OK)
			return 0;
	return 1;
}

int fd_sn_lid(struct fd *x, const struct dst *d)
{
	if (fd_dead(x, x->sn) || fd_dead(x, d->sw))
		return 0;
	fd_sn_ud(x, d);
	x->dist[d->sw] = UINT32_MAX;
	for (uint32_t s = 0; s < x->nsw; s++)
		if (!fd_dead(x, s))
			x->row[s] = fd_sn_entry(x, d, s);
	if (x->ud[x->sn] == UD_NO && !way_back(x, d))
		return 0;
	do
		fd_resolve(x, d);
	while (break_loops(x, d));
	for (uint32_t s = 0; s < x->nsw; s++) {
		if (fd_dead(x, s) || x->mark[s] == MK_OK || x->bcol[s] == RT_NO_PORT)
			continue;
		if (x->dist[d->sw] != 0)	/* the first failure: which switches have a way */
			fd_bfs(x, d);
		if (x->dist[s] != UINT32_MAX)
			return 0;
	}
	return 1;
}
