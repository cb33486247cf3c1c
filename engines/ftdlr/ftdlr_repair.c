/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - repairing the LIDs whose entries used a dead link
 *
 * A LID needs repair when some live switch's base entry for it leaves by a
 * dead link (a link that is gone, or leads to a dead switch). Its column of
 * entries is rebuilt from the base's; every other LID keeps the base's
 * entries, so the repair costs what it touches. A base whose switch paths
 * turn at a subtree root (sftree) has its LIDs repaired by the subtree rule
 * of ftdlr_sn.c when it finds a way; the others, by the label rule's four
 * steps below (an ftree base's switch LIDs as its CA LIDs: up*down*).
 *
 *  1. Down entries. A live switch c whose entry goes down over a dead link
 *     to a live child s detours c -> w -> u -> s: u is the upper switch all
 *     detours to s share (u*: the best-ranked parent of s whose links to s
 *     and to a w of every dead parent of s are alive, clean labels first,
 *     rotated by s's position so that groups spread their detours), w a
 *     child of c linked to u (the first after s in c's port order). c's
 *     entry goes to w, w's to u; u's entry already goes to s. The U-turn at
 *     w goes from c's label (dirty) to u's (clean up to k - 1 faults). With
 *     scope group, every other child of c that sent the LID up to c goes to
 *     u directly. A down entry towards a dead switch X (its parent p's
 *     entry) detours two levels lower, p -> x2 -> y2 -> z: x2 a sibling of
 *     X, y2 a child of x2, z y2's parent with the label l* chosen for X (a
 *     clean label of X's column; X's own label counts as dirty); z goes up,
 *     and its parents come down through the l-labelled parent of X's child.
 *  2. Up entries (levels from the top down). A live switch whose entry
 *     goes up over a dead link takes another live parent: for a CA LID the
 *     one the LID's number picks among them (spreading the load as the base
 *     did); for a switch LID the one whose path (as repaired so far) reaches
 *     it in the fewest hops. A switch LID that only the dead parent y leads
 *     to (y itself and its ancestors) goes s -> u*(s) -> w -> y, the detour
 *     of the dead link taken backwards: a U-turn outside the rule, checked
 *     with the rest by the evaluator.
 *  3. Check. Every live switch's path is followed. A switch that does not
 *     reach a CA LID although a live path exists is counted as left without
 *     a way; a switch LID is marked for fd_vls() to recompute.
 *  4. Write the column into the repaired routing (ftdlr_cols.c: a block of
 *     LIDs at a time, as they were read).
 *
 * Writes of step 1 are fixed: a second detour that wants another port at
 * the same switch keeps the first (counted as a conflict; none up to k - 1
 * faults, since every detour to s goes through the same u).
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr/ftdlr_impl.h"

/* --- links ------------------------------------------------------------------------ */

/* The live model link from @s to @t, FD_NONE if none. */
static uint32_t alive_link(const struct fd *x, uint32_t s, uint32_t t)
{
	for (uint32_t e = ft_first(&x->m, s, FT_UP); e < ft_end(&x->m, s, FT_DOWN); e++)
		if (x->m.links[e].peer == t && x->alive[e])
			return e;
	return FD_NONE;
}

static uint8_t port_of(const struct fd *x, uint32_t e)
{
	return x->m.links[e].port;
}

static int is_up(const struct fd *x, uint32_t s, uint32_t e)
{
	return e < ft_first(&x->m, s, FT_DOWN);
}

/* Position of child @y among @s's down links (0 if not one). */
static uint32_t down_pos(const struct fd *x, uint32_t s, uint32_t y)
{
	uint32_t first = ft_first(&x->m, s, FT_DOWN);

	for (uint32_t e = first; e < ft_end(&x->m, s, FT_DOWN); e++)
		if (x->m.links[e].peer == y)
			return e - first;
	return 0;
}

/* --- choices ------------------------------------------------------------------------ */

/*
 * Preference among candidate uppers of one column, lowest first: clean
 * labels rotated to start at @start, then the others by rank.
 */
static uint64_t pref(const struct fd *x, uint32_t col, uint32_t label, uint32_t start)
{
	unsigned d = x->dirt[(size_t)col * x->kmax + label];

	if (!d)
		return (label + x->kmax - start % x->kmax) % x->kmax;
	return x->kmax + ((uint64_t)d << 16 | label);
}

/* A child w of @c, not @y, with live links c-w and w-@u: the first after @y. */
static uint32_t pick_w(const struct fd *x, uint32_t c, uint32_t y, uint32_t u)
{
	uint32_t first = ft_first(&x->m, c, FT_DOWN), n = ft_end(&x->m, c, FT_DOWN) - first;
	uint32_t start = down_pos(x, c, y);

	for (uint32_t i = 1; i <= n; i++) {
		uint32_t e = first + (start + i) % n, w = x->m.links[e].peer;

		if (w != y && x->alive[e] && alive_link(x, w, u) != FD_NONE)
			return w;
	}
	return FD_NONE;
}

/* Every live parent of @y cut off from it has a w towards @u. */
static int serves_all(const struct fd *x, uint32_t y, uint32_t u)
{
	for (uint32_t e = ft_first(&x->m, y, FT_UP); e < ft_end(&x->m, y, FT_UP); e++) {
		uint32_t c = x->m.links[e].peer;

		if (!x->alive[e] && !fd_dead(x, c) && pick_w(x, c, y, u) == FD_NONE)
			return 0;
	}
	return 1;
}

/* u*(@y): the upper switch every detour to @y goes through (FD_NONE: none). */
static uint32_t ustar(struct fd *x, uint32_t y)
{
	uint32_t best = FD_NONE, first = ft_first(&x->m, y, FT_UP), start;
	uint64_t bk = UINT64_MAX;
	int bok = -1;

	if (x->ustar[y] != FD_UNSET)
		return x->ustar[y];
	start = first < ft_end(&x->m, y, FT_UP) ? down_pos(x, x->m.links[first].peer, y) : 0;
	for (uint32_t e = first; e < ft_end(&x->m, y, FT_UP); e++) {
		uint32_t u = x->m.links[e].peer;
		uint64_t k;
		int ok;

		if (!x->alive[e])
			continue;
		ok = serves_all(x, y, u);
		k = pref(x, x->col[u], x->label[u], start);
		if (ok > bok || (ok == bok && k < bk)) {
			best = u;
			bk = k;
			bok = ok;
		}
	}
	x->ustar[y] = best;
	return best;
}

/* The U-turn switch of the detour around down link @e (c -> y). */
static uint32_t wsel(struct fd *x, uint32_t c, uint32_t e)
{
	uint32_t y = x->m.links[e].peer, u;

	if (x->wsel[e] != FD_UNSET)
		return x->wsel[e];
	u = ustar(x, y);
	x->wsel[e] = u == FD_NONE ? FD_NONE : pick_w(x, c, y, u);
	return x->wsel[e];
}

/* The parent of @y labelled @l over a live link, FD_NONE if none. */
static uint32_t parent_label(const struct fd *x, uint32_t y, uint32_t l)
{
	for (uint32_t e = ft_first(&x->m, y, FT_UP); e < ft_end(&x->m, y, FT_UP); e++)
		if (x->label[x->m.links[e].peer] == l)
			return x->alive[e] ? x->m.links[e].peer : FD_NONE;
	return FD_NONE;
}

/* A live child y2 of @x2 whose @l-labelled parent is linked to it. */
static uint32_t pick_y2(const struct fd *x, uint32_t x2, uint32_t l)
{
	for (uint32_t e = ft_first(&x->m, x2, FT_DOWN); e < ft_end(&x->m, x2, FT_DOWN); e++)
		if (x->alive[e] && parent_label(x, x->m.links[e].peer, l) != FD_NONE)
			return x->m.links[e].peer;
	return FD_NONE;
}

/* A sibling x2 of dead @X under @p with a way down and back up to label @l. */
static uint32_t pick_x2(const struct fd *x, uint32_t p, uint32_t X, uint32_t l)
{
	uint32_t first = ft_first(&x->m, p, FT_DOWN), n = ft_end(&x->m, p, FT_DOWN) - first;
	uint32_t start = down_pos(x, p, X);

	for (uint32_t i = 1; i <= n; i++) {
		uint32_t e = first + (start + i) % n, x2 = x->m.links[e].peer;

		if (x2 != X && x->alive[e] && pick_y2(x, x2, l) != FD_NONE)
			return x2;
	}
	return FD_NONE;
}

/* l*(@X): the label the detours around dead switch @X turn to (FD_NONE: none). */
static uint32_t lstar(struct fd *x, uint32_t X)
{
	uint32_t best = FD_NONE;
	uint64_t bk = UINT64_MAX;
	int bok = -1;

	if (x->lstar[X] != FD_UNSET)
		return x->lstar[X];
	for (uint32_t l = 0; l < x->kmax; l++) {
		uint64_t k = pref(x, x->col[X], l, x->label[X] + 1u);
		int ok = 1;

		if (l == x->label[X])
			continue;
		for (uint32_t e = ft_first(&x->m, X, FT_UP); e < ft_end(&x->m, X, FT_UP) && ok; e++) {
			uint32_t p = x->m.links[e].peer;

			ok = fd_dead(x, p) || pick_x2(x, p, X, l) != FD_NONE;
		}
		if (ok > bok || (ok == bok && k < bk)) {
			best = l;
			bk = k;
			bok = ok;
		}
	}
	x->lstar[X] = best;
	return best;
}

/* The base's path from @y only goes down and delivers: the LID is below @y. */
static int below(const struct fd *x, const struct dst *d, uint32_t y)
{
	uint32_t c = y;

	for (uint32_t h = 0; h <= x->nsw; h++) {
		uint8_t p = x->bcol[c];
		uint32_t e;

		if (fd_delivers(d, c, p))
			return 1;
		e = p == RT_NO_PORT ? FD_NONE : fd_link(x, c, p);
		if (e == FD_NONE || is_up(x, c, e))
			return 0;
		c = x->m.links[e].peer;
	}
	return 0;
}

/* --- step 1: detours ------------------------------------------------------------------- */

/* A fixed write: the first detour to claim an entry keeps it. */
static void set_fixed(struct fd *x, uint32_t s, uint8_t port)
{
	if (x->fixed[s] && x->row[s] != port) {
		x->st.conflicts++;
		return;
	}
	x->row[s] = port;
	x->fixed[s] = 1;
}

/* Scope group: @c's other children that sent the LID up to @c go to @u. */
static void group_writes(struct fd *x, const struct dst *d, uint32_t c, uint32_t y, uint32_t u)
{
	for (uint32_t e = ft_first(&x->m, c, FT_DOWN); e < ft_end(&x->m, c, FT_DOWN); e++) {
		uint32_t w = x->m.links[e].peer, eu;

		if (w == y || !x->alive[e] || x->fixed[w] ||
		    x->bcol[w] != x->m.links[e].peer_port)
			continue;
		eu = alive_link(x, w, u);
		if (eu != FD_NONE)
			set_fixed(x, w, port_of(x, eu));
	}
}

/* The base's path from @w reaches the LID over live links without crossing @avoid. */
static int base_reaches(const struct fd *x, const struct dst *d, uint32_t w, uint32_t avoid)
{
	uint32_t c = w;

	for (uint32_t h = 0; h <= x->nsw && c != avoid; h++) {
		uint8_t p = x->bcol[c];
		uint32_t e;

		if (fd_delivers(d, c, p))
			return 1;
		e = p == RT_NO_PORT ? FD_NONE : fd_link(x, c, p);
		if (e == FD_NONE || !x->alive[e])
			return 0;
		c = x->m.links[e].peer;
	}
	return 0;
}

/*
 * Port @p of @w climbs over a live link to a parent q that a U-turn from @c
 * may go to (fd_uturn_ok()) and that sends the LID down to @y over a live
 * link: a U-turn at w that keeps the rule, and needs no new entry at q.
 */
static int climbs_ok(const struct fd *x, const struct dst *d, uint32_t c, uint32_t y, uint32_t w,
		     uint8_t p)
{
	uint32_t f = p == RT_NO_PORT ? FD_NONE : fd_link(x, w, p), q, ey;

	if (f == FD_NONE || !x->alive[f] || !is_up(x, w, f))
		return 0;
	q = x->m.links[f].peer;
	ey = alive_link(x, q, y);
	return q != c && fd_uturn_ok(x, c, q) && ey != FD_NONE &&
	       x->bcol[q] == port_of(x, ey);
}

/* Children of @c other than @y over live links, in port order after @y: the i-th. */
static uint32_t child_after(const struct fd *x, uint32_t c, uint32_t y, uint32_t i)
{
	uint32_t first = ft_first(&x->m, c, FT_DOWN), n = ft_end(&x->m, c, FT_DOWN) - first;
	uint32_t e = first + (down_pos(x, c, y) + 1 + i) % n;

	return x->m.links[e].peer != y && x->alive[e] ? x->m.links[e].peer : FD_NONE;
}

/*
 * A child w of @c that needs no new entry: its entry (fixed by an earlier
 * detour, or the base's) climbs as climbs_ok() wants; for a switch LID
 * (@direct) one whose base path reaches it without @c. *@base says the
 * entry is the base's (to fix).
 */
static uint32_t pick_kept_w(const struct fd *x, const struct dst *d, uint32_t c, uint32_t y,
			    int direct, int *base)
{
	uint32_t n = ft_end(&x->m, c, FT_DOWN) - ft_first(&x->m, c, FT_DOWN);

	for (int pass = 0; pass < 2; pass++)	/* the base's turning switches first */
		for (uint32_t i = 0; i < n; i++) {
			uint32_t w = child_after(x, c, y, i);
			uint8_t bp;

			if (w == FD_NONE || x->turning[w] != !pass)
				continue;
			bp = x->bcol[w];
			*base = !x->fixed[w];
			if (x->fixed[w] ? (!direct && climbs_ok(x, d, c, y, w, x->row[w])) :
			    direct ? base_reaches(x, d, w, c) : climbs_ok(x, d, c, y, w, bp))
				return w;
		}
	return FD_NONE;
}

/*
 * A free child w of @c linked to @u, FD_NONE if none: one of the base's
 * turning switches first, then wsel()'s choice, then any.
 */
static uint32_t pick_free_w(struct fd *x, uint32_t c, uint32_t e, uint32_t u)
{
	uint32_t y = x->m.links[e].peer, w;
	uint32_t n = ft_end(&x->m, c, FT_DOWN) - ft_first(&x->m, c, FT_DOWN);

	for (uint32_t i = 0; i < n; i++) {
		w = child_after(x, c, y, i);
		if (w != FD_NONE && x->turning[w] && !x->fixed[w] &&
		    alive_link(x, w, u) != FD_NONE)
			return w;
	}
	w = wsel(x, c, e);
	if (w != FD_NONE && !x->fixed[w])
		return w;
	for (uint32_t i = 0; i < n; i++) {
		w = child_after(x, c, y, i);
		if (w != FD_NONE && !x->fixed[w] && alive_link(x, w, u) != FD_NONE)
			return w;
	}
	return FD_NONE;
}

/*
 * Down link @e of @c to live @y is dead: c -> w -> p -> y through a child w
 * whose entry already climbs to a higher-ranked parent p of @y (no new
 * entry at w, and no switch that could send the packet back to c while the
 * tables change); else c -> w -> u*(y) -> y, writing w's entry. A switch
 * LID may also go through a child whose base path reaches it without @c.
 */
static void link_detour(struct fd *x, const struct dst *d, uint32_t c, uint32_t e)
{
	uint32_t y = x->m.links[e].peer, w = FD_NONE, u;
	int base = 0;

	if (d->is_switch)
		w = pick_kept_w(x, d, c, y, 1, &base);
	if (w == FD_NONE)
		w = pick_kept_w(x, d, c, y, 0, &base);
	if (w != FD_NONE) {
		set_fixed(x, c, port_of(x, alive_link(x, c, w)));
		if (base)
			set_fixed(x, w, x->bcol[w]);
		return;
	}
	u = ustar(x, y);
	if (u == FD_NONE || (w = pick_free_w(x, c, e, u)) == FD_NONE ||
	    (d->is_switch && x->bcol[u] != port_of(x, alive_link(x, u, y))))
		return;	/* a CA LID: step 3 counts it; a switch LID: sw_entries() */
	set_fixed(x, c, port_of(x, alive_link(x, c, w)));
	set_fixed(x, w, port_of(x, alive_link(x, w, u)));
	if (!d->is_switch && !fd_uturn_ok(x, c, u))
		x->st.nonmonotone++;
	if (x->scope == FTDLR_GROUP)
		group_writes(x, d, c, y, u);
}

/* Down link @e of @p leads to dead switch @X: p -> x2 -> y2 -> z. */
static void switch_detour(struct fd *x, const struct dst *d, uint32_t p, uint32_t X)
{
	uint32_t l = lstar(x, X), x2, y2, z;

	if (l == FD_NONE || (x2 = pick_x2(x, p, X, l)) == FD_NONE)
		return;
	y2 = pick_y2(x, x2, l);
	z = parent_label(x, y2, l);
	if (d->is_switch && !below(x, d, X) && !base_reaches(x, d, z, p))
		return;	/* sw_entries() */
	set_fixed(x, p, port_of(x, alive_link(x, p, x2)));
	set_fixed(x, x2, port_of(x, alive_link(x, x2, y2)));
	set_fixed(x, y2, port_of(x, alive_link(x, y2, z)));
	if (!d->is_switch && !fd_uturn_ok(x, x2, z))
		x->st.nonmonotone++;
}

/*
 * Step 1 for every switch whose down entry crosses a dead link; for a
 * switch LID only when the LID is below the dead link (other switch-LID
 * paths turn up further down: sw_entries() gives them another way).
 */
static void detours(struct fd *x, const struct dst *d)
{
	for (uint32_t s = 0; s < x->nsw; s++) {
		uint8_t p = x->bcol[s];
		uint32_t e = p == RT_NO_PORT ? FD_NONE : fd_link(x, s, p);

		if (fd_dead(x, s) || e == FD_NONE || x->alive[e] || is_up(x, s, e))
			continue;
		if (!fd_dead(x, x->m.links[e].peer))
			link_detour(x, d, s, e);
		else
			switch_detour(x, d, s, x->m.links[e].peer);
	}
}

/* --- step 2: up entries ------------------------------------------------------------------ */

/* Hops from @q to the destination following row[], avoiding @avoid; UINT32_MAX if not. */
static uint32_t walk(const struct fd *x, const struct dst *d, uint32_t q, uint32_t avoid)
{
	uint32_t c = q;

	for (uint32_t h = 0; h <= x->nsw; h++) {
		uint32_t e;

		if (c == avoid)
			return UINT32_MAX;
		if (fd_delivers(d, c, x->row[c]))
			return h;
		e = x->row[c] == RT_NO_PORT ? FD_NONE : fd_link(x, c, x->row[c]);
		if (e == FD_NONE || !x->alive[e])
			return UINT32_MAX;
		c = x->m.links[e].peer;
	}
	return UINT32_MAX;
}

/* A switch LID only dead parent @y led to: s -> u*(s) -> w -> y. */
static void uturn_back(struct fd *x, const struct dst *d, uint32_t s, uint32_t e)
{
	uint32_t y = x->m.links[e].peer, back = x->m.links[e].back, u, w;

	if (fd_dead(x, y) || (u = ustar(x, s)) == FD_NONE || (w = wsel(x, y, back)) == FD_NONE)
		return;
	x->row[s] = port_of(x, alive_link(x, s, u));
	if (walk(x, d, u, s) == UINT32_MAX && !x->fixed[u])
		x->row[u] = port_of(x, alive_link(x, u, w));
	if (walk(x, d, w, s) == UINT32_MAX && !x->fixed[w])
		x->row[w] = port_of(x, alive_link(x, w, y));
}

/* CA LID: up link @e of @s is dead; the live parent the LID's number picks. */
static void replace_up(struct fd *x, const struct dst *d, uint32_t s)
{
	uint32_t cand[FAB_PORTS_MAX], n = 0;

	for (uint32_t f = ft_first(&x->m, s, FT_UP); f < ft_end(&x->m, s, FT_UP); f++)
		if (x->alive[f])
			cand[n++] = f;
	if (n)
		x->row[s] = port_of(x, cand[d->lid % n]);
}

/* The base entry of live, unfixed @s crosses a dead link: that link, else FD_NONE. */
static uint32_t broken(const struct fd *x, const struct dst *d, uint32_t s)
{
	uint8_t p = x->bcol[s];
	uint32_t e = p == RT_NO_PORT ? FD_NONE : fd_link(x, s, p);

	if (fd_dead(x, s) || x->fixed[s] || e == FD_NONE || x->alive[e])
		return FD_NONE;
	return e;
}

static void up_entries(struct fd *x, const struct dst *d)
{
	const struct ft_model *m = &x->m;

	for (uint32_t l = m->nlevels; l >= 1; l--)
		for (uint32_t i = m->lvl_off[l]; i < m->lvl_off[l + 1]; i++) {
			uint32_t s = m->order[i], e = broken(x, d, s);

			if (e != FD_NONE && is_up(x, s, e))
				replace_up(x, d, s);
		}
}

/*
 * Switch LID: the live neighbour of @s whose path (as repaired so far)
 * reaches the LID without crossing @s in the fewest hops, parents before
 * children, then port order. Return 1 when @s got it.
 */
static int sw_neighbour(struct fd *x, const struct dst *d, uint32_t s)
{
	uint32_t best = FD_NONE;
	uint64_t bk = UINT64_MAX;

	for (uint32_t e = ft_first(&x->m, s, FT_UP); e < ft_end(&x->m, s, FT_DOWN); e++) {
		uint32_t h;
		uint64_t k;

		if (!x->alive[e] || (h = walk(x, d, x->m.links[e].peer, s)) == UINT32_MAX)
			continue;
		k = (uint64_t)h << 40 | (uint64_t)!is_up(x, s, e) << 32 | x->m.links[e].port;
		if (k < bk) {
			bk = k;
			best = e;
		}
	}
	if (best == FD_NONE)
		return 0;
	x->row[s] = port_of(x, best);
	return 1;
}

/*
 * Switch LID: every switch whose entry still crosses a dead link takes a
 * neighbour that leads there (levels from the top down, again while any
 * progress is made); what is left and went up to a live parent turns back
 * (uturn_back()).
 */
static void sw_entries(struct fd *x, const struct dst *d)
{
	const struct ft_model *m = &x->m;
	int progress = 1;

	memset(x->mark, 0, x->nsw);
	while (progress) {
		progress = 0;
		for (uint32_t i = m->lvl_off[m->nlevels + 1]; i-- > m->lvl_off[1];) {
			uint32_t s = m->order[i];

			if (!x->mark[s] && broken(x, d, s) != FD_NONE && sw_neighbour(x, d, s))
				progress = x->mark[s] = 1;
		}
	}
	for (uint32_t i = m->lvl_off[m->nlevels + 1]; i-- > m->lvl_off[1];) {
		uint32_t s = m->order[i], e = broken(x, d, s);

		if (!x->mark[s] && e != FD_NONE && is_up(x, s, e))
			uturn_back(x, d, s, e);
	}
}

/* --- step 3: check ---------------------------------------------------------------------- */

void fd_resolve(struct fd *x, const struct dst *d)
{
	memset(x->mark, MK_UNKNOWN, x->nsw);
	for (uint32_t s = 0; s < x->nsw; s++) {
		uint32_t top = 0, c = s;
		uint8_t res;

		if (fd_dead(x, s))
			continue;
		for (;;) {
			if (x->mark[c] == MK_OK || x->mark[c] == MK_FAIL) {
				res = x->mark[c];
				break;
			}
			if (x->mark[c] == MK_BUSY) {
				res = MK_FAIL;	/* a loop */
				break;
			}
			x->mark[c] = MK_BUSY;
			x->stack[top++] = c;
			if (fd_delivers(d, c, x->row[c])) {
				res = MK_OK;
				break;
			}
			if ((c = fd_hop(x, c, x->row[c])) == FD_NONE) {
				res = MK_FAIL;
				break;
			}
		}
		while (top)
			x->mark[x->stack[--top]] = res;
	}
}

void fd_bfs(struct fd *x, const struct dst *d)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < x->nsw; s++)
		x->dist[s] = UINT32_MAX;
	x->dist[d->sw] = 0;
	x->stack[tail++] = d->sw;
	while (head < tail) {
		uint32_t s = x->stack[head++];

		for (uint32_t e = ft_first(&x->m, s, FT_UP); e < ft_end(&x->m, s, FT_DOWN); e++) {
			uint32_t t = x->m.links[e].peer;

			if (x->alive[e] && x->dist[t] == UINT32_MAX) {
				x->dist[t] = x->dist[s] + 1;
				x->stack[tail++] = t;
			}
		}
	}
}

/*
 * Follow every live switch's path. A switch that no longer reaches the LID
 * although the base routed it and a live path exists is counted: for a CA
 * LID as left without a way; a switch LID is marked in x->sw_broken
 * (fd_vls() recomputes it).
 */
static void check(struct fd *x, const struct dst *d)
{
	int failing = 0;

	fd_resolve(x, d);
	for (uint32_t s = 0; s < x->nsw && !failing; s++)
		failing = !fd_dead(x, s) && x->mark[s] == MK_FAIL;
	if (!failing)
		return;
	fd_bfs(x, d);
	for (uint32_t s = 0; s < x->nsw; s++) {
		if (fd_dead(x, s) || x->mark[s] != MK_FAIL || x->dist[s] == UINT32_MAX ||
		    x->bcol[s] == RT_NO_PORT)
			continue;	/* delivers, cannot, or the base did not route it either */
		if (d->is_switch)
			x->sw_broken[d->lid] = 1;
		else
			x->st.unrepaired++;
	}
}

/*
 * Repair one LID, from the base's column @bcol into @out: by the subtree
 * rule when the base turns through a subtree root (ftdlr_sn.c; its own LID
 * excepted), else, or when that rule finds no way, by detours whose
 * U-turns follow the labels. A base that turns no path at all and runs
 * switch destinations on the CAs' VL (ftree) has its switch LIDs repaired
 * as CA LIDs are: up*down* with detours of the rule.
 */
void fd_repair_lid(struct fd *x, const struct dst *d, const uint8_t *bcol, uint8_t *out)
{
	struct dst r = *d;

	memcpy(x->bcol, bcol, x->nsw);
	memcpy(x->row, bcol, x->nsw);
	if (x->sn != FD_NONE && d->lid != x->snlid && (d->is_switch || !x->st.switch_sl)) {
		if (fd_sn_lid(x, d)) {	/* checked as check() would */
			x->st.subtree++;
			memcpy(out, x->row, x->nsw);
			return;
		}
		memcpy(x->row, x->bcol, x->nsw);
	}
	r.is_switch = d->is_switch && !x->sw_updown;
	memset(x->fixed, 0, x->nsw);
	detours(x, &r);
	if (r.is_switch)
		sw_entries(x, &r);
	else
		up_entries(x, &r);
	check(x, d);
	memcpy(out, x->row, x->nsw);
}

/* The LIDs some live switch's base entry sends over a dead link. */
int fd_need(struct fd *x)
{
	x->need = calloc((size_t)x->br->lft_len + 1, 1);
	if (!x->need)
		return -1;
	for (uint32_t s = 0; s < x->nsw; s++) {
		uint8_t dead[256] = { 0 };
		const uint8_t *row = rt_lft(x->br, s);
		int any = 0;

		if (fd_dead(x, s))
			continue;
		for (uint32_t e = ft_first(&x->m, s, FT_UP); e < ft_end(&x->m, s, FT_DOWN); e++)
			if (!x->alive[e])
				any = dead[x->m.links[e].port] = 1;
		for (uint32_t l = 1; any && l < x->br->lft_len; l++)
			x->need[l] |= dead[row[l]];
	}
	return 0;
}
