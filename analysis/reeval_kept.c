/* SPDX-License-Identifier: MIT */
/**
 * DOC: a destination near the change, from the rows kept beside the sums
 *
 * When the sums keep the block pass's rows (struct an_rows: per
 * destination and switch, the pairs out of the port it leaves by and the
 * longest way into it), a destination that changed only near the change
 * needs no pass over the switches at all: its new row differs from the
 * kept one only at the switches near the change, and those are read and
 * worked out alone. The argument is analysis/reeval_near.c's, the other
 * way round: X is the switches whose entry or step changed (among those
 * whose tables or links did), U is X with every switch their old and new
 * ways reach; when every switch of U delivers on both sides, a switch
 * outside U has the same step, way, fate, pairs and longest way into it
 * on both sides (no switch of U is upstream of it: it would be in U). So:
 *
 *  - the entries and steps of U are read from the two routings' tables;
 *  - the new pairs of U are what enters each from outside U (its kept
 *    pairs less those of the switches of U that sent to it) plus what
 *    U's switches send to it on the new side, nearest the senders first;
 *  - the new longest way into a switch of U is one more than its longest
 *    sender's, a sender outside U read from the kept rows;
 *  - the destination's longest way is the one into the switch it is
 *    delivered at, plus that switch;
 *  - the switches outside U that send to one of X keep their pairs, but
 *    their mark names X's port on each side.
 *
 * Only U and those senders can differ. Anything else — a way of U that
 * fails on either side, a destination switch whose own entry is not port
 * 0, more than KEPT_MAX switches near the change, the switches that
 * changed not known — is left to the passes over every switch. The unit
 * tests compare every re-evaluation with a full evaluation.
 */
#include <stdlib.h>

#include "analysis/reeval_impl.h"

/* The most switches near the change of one destination. */
#define KEPT_MAX 96u
/* The most switches whose row may differ (U and the switches that send to X). */
#define KEPT_ROWS (4u * KEPT_MAX)

/**
 * struct an_kept - one destination's switches near the change
 * @s: U (X first), then the other switches that send to one of X
 * @oo, @on, @co, @cn, @fo, @fn, @mo, @mn: per switch of @s, its entry,
 *     step, pairs and mark, old and new
 * @ln, @up: per switch of U, its new way's length (itself included) and
 *     the new longest way into it
 * @nu, @nx, @nd: the sizes of U, X and @s
 * @maxh: the destination's new longest way
 * @in: per switch, 1 + its place in @s, else 0
 */
struct an_kept {
	uint32_t s[KEPT_ROWS], fo[KEPT_ROWS], fn[KEPT_ROWS];
	uint16_t co[KEPT_ROWS], cn[KEPT_ROWS];
	uint8_t oo[KEPT_ROWS], on[KEPT_ROWS], mo[KEPT_ROWS], mn[KEPT_ROWS];
	uint16_t ln[KEPT_MAX], up[KEPT_MAX];
	uint32_t nu, nx, nd, maxh;
	uint32_t *in;
};

/* What the searches of one destination share. */
struct ctx {
	const struct an_plan *p;
	const struct an_rows *rows;
	uint32_t d, at, lid;
	size_t row;	/* the destination's rows: d * switches */
};

struct an_kept *an_kept_new(uint32_t nsw)
{
	struct an_kept *k = calloc(1, sizeof(*k));

	if (k && !(k->in = calloc((size_t)nsw + 1, sizeof(*k->in)))) {
		free(k);
		return NULL;
	}
	return k;
}

void an_kept_free(struct an_kept *k)
{
	if (!k)
		return;
	free(k->in);
	free(k);
}

/* Switch @s's entries and steps, both sides, at place @i; @diff: its tables or links may differ. */
static void read_sw(struct an_kept *k, const struct ctx *c, uint32_t s, uint32_t i, int diff)
{
	k->oo[i] = c->rows->o[c->row + s];
	k->co[i] = c->rows->c[c->row + s];
	if (!diff) {
		k->on[i] = k->oo[i];
		k->cn[i] = k->co[i];
		return;
	}
	k->on[i] = rt_lft(c->p->c.r, s)[c->lid];
	k->cn[i] = an_dest_block_step(c->p, s, k->on[i], c->d, c->at);
}

/*
 * Take switch @s into @s[] unless it is there (its tables and links the
 * same on both sides: it is not among the switches that differ, or was
 * found unchanged); 0 when @s[] would pass @max.
 */
static int take(struct an_kept *k, const struct ctx *c, uint32_t s, uint32_t *n, uint32_t max)
{
	if (k->in[s])
		return 1;
	if (*n == max)
		return 0;
	read_sw(k, c, s, *n, 0);
	k->s[*n] = s;
	k->in[s] = ++*n;
	return 1;
}

/* X among @sw[0..@n), then its closure on both sides: U. 0 when too large. */
static int find_u(struct an_kept *k, const struct ctx *c, const uint32_t *sw, uint32_t n)
{
	int ok = 1;

	k->nu = 0;
	for (uint32_t i = 0; i < n && ok; i++) {
		uint32_t s = sw[i];

		if (k->nu == KEPT_MAX)
			return 0;
		read_sw(k, c, s, k->nu, 1);
		if (k->oo[k->nu] != k->on[k->nu] || k->co[k->nu] != k->cn[k->nu]) {
			k->s[k->nu] = s;
			k->in[s] = ++k->nu;
		}
	}
	k->nx = k->nu;
	for (uint32_t i = 0; i < k->nu && ok; i++) {
		uint16_t o = k->co[i], w = k->cn[i];

		if (o < AN_PC_TERM)
			ok = take(k, c, o, &k->nu, KEPT_MAX);
		if (ok && w < AN_PC_TERM)
			ok = take(k, c, w, &k->nu, KEPT_MAX);
	}
	return ok;
}

/* The length of the way from place @i on steps @st, when it ends delivered within U; else 0. */
static uint16_t way(const struct an_kept *k, const uint16_t *st, uint32_t i)
{
	for (uint32_t n = 1; n <= k->nu; n++) {
		uint32_t t = st[i];

		if (t >= AN_PC_TERM)
			return (t & 0xfu) == AN_DELIVERED ? (uint16_t)n : 0;
		i = k->in[t] - 1;	/* in U: a closure */
	}
	return 0;
}

/* Switch @t's new step: the kept one but for X. */
static uint16_t new_step(const struct an_kept *k, const struct ctx *c, uint32_t t)
{
	return k->in[t] ? k->cn[k->in[t] - 1] : c->rows->c[c->row + t];
}

/* After U, the switches outside it that send to one of X (the same on both sides). */
static int find_senders(struct an_kept *k, const struct ctx *c)
{
	const struct an_plan *p = c->p;
	int ok = 1;

	k->nd = k->nu;
	for (uint32_t i = 0; i < k->nx && ok; i++) {
		uint32_t x = k->s[i];

		for (uint32_t q = p->pt_base[x]; q < p->pt_base[x + 1] && ok; q++) {
			uint32_t e = p->pt[q], t = AN_PT_VAL(e);

			if (AN_PT_KIND(e) == AN_PT_SW && !k->in[t] && new_step(k, c, t) == x)
				ok = take(k, c, t, &k->nd, KEPT_ROWS);
		}
	}
	return ok;
}

/* The new longest way into place @i of U, its senders in U done (they are farther). */
static uint16_t up_new(const struct an_kept *k, const struct ctx *c, uint32_t i)
{
	const struct an_plan *p = c->p;
	uint32_t u = k->s[i];
	uint16_t best = 0;

	for (uint32_t q = p->pt_base[u]; q < p->pt_base[u + 1]; q++) {
		uint32_t e = p->pt[q], t = AN_PT_VAL(e), at = k->in[t];
		uint16_t h;

		if (AN_PT_KIND(e) != AN_PT_SW || new_step(k, c, t) != u)
			continue;
		h = at && at <= k->nu ? k->up[at - 1] : c->rows->up[c->row + t];
		best = h >= best ? (uint16_t)(h + 1) : best;
	}
	return best;
}

/* The sum of the pairs of U's switches whose step @st is switch @u. */
static uint32_t from_u(const struct an_kept *k, const uint16_t *st, const uint32_t *fl, uint32_t u)
{
	uint32_t sum = 0;

	for (uint32_t b = 0; b < k->nu; b++)
		sum += st[b] == u ? fl[b] : 0;
	return sum;
}

/*
 * Whether place @a of U may have a new longest way into it: one of X
 * sends to it on either side (its senders differ), or a switch of U whose
 * longest way changed does (@moved, per place).
 */
static int may_move(const struct an_kept *k, const uint8_t *moved, uint32_t a)
{
	uint32_t u = k->s[a];

	for (uint32_t b = 0; b < k->nu; b++)
		if ((b < k->nx && (k->co[b] == u || k->cn[b] == u)) || (moved[b] && k->cn[b] == u))
			return 1;
	return 0;
}

/* The new pairs and longest ways into U, nearest the senders first. */
static void work_out(struct an_kept *k, const struct ctx *c)
{
	uint32_t in[KEPT_MAX], far = 0;
	uint8_t moved[KEPT_MAX] = { 0 };

	for (uint32_t a = 0; a < k->nu; a++) {
		far = k->ln[a] > far ? k->ln[a] : far;
		in[a] = k->fo[a] - from_u(k, k->co, k->fo, k->s[a]);
	}
	for (uint32_t len = far; len; len--)
		for (uint32_t a = 0; a < k->nu; a++) {
			uint16_t was = c->rows->up[c->row + k->s[a]];

			if (k->ln[a] != len)
				continue;
			k->up[a] = may_move(k, moved, a) ? up_new(k, c, a) : was;
			moved[a] = k->up[a] != was;
			/* the destination switch's own: no pairs on either side (port 0) */
			k->fn[a] = k->s[a] == c->d ? 0 : in[a] + from_u(k, k->cn, k->fn, k->s[a]);
		}
}

/* The mark of place @i on steps @st and entries @o: as the block pass sets it. */
static uint8_t mark(const struct an_kept *k, const uint16_t *st, const uint8_t *o, uint32_t i)
{
	uint32_t t = st[i], ti;

	if (t >= AN_PC_TERM)
		return AN_DEP_NONE;
	ti = k->in[t] - 1;	/* in U: a switch of U, or one of X for a sender */
	return st[ti] < AN_PC_TERM ? o[ti] : 0;
}

/* The destination's longest way: into the switch it is delivered at, and that one. */
static uint32_t longest(const struct an_kept *k, const struct ctx *c)
{
	const struct an_plan *p = c->p;
	uint32_t r = k->in[c->at] - 1, nsw = p->c.f->nswitches;
	uint32_t sources = (c->at != c->d) + p->n_nonsw[c->at] - (c->d >= nsw);

	return k->up[r] ? 1u + k->up[r] : sources ? 1u : 0u;
}

int an_kept_find(struct an_kept *k, const struct an_plan *p, const struct an_rows *rows, uint32_t d, const uint32_t *sw, uint32_t nsw_diff)
{
	uint32_t nsw = p->c.f->nswitches;
	struct ctx c = { .p = p, .rows = rows, .d = d,
			 .at = d < nsw ? d : p->c.first[d], .lid = fab_ep_lid(p->c.f, d),
			 .row = (size_t)d * nsw };
	int ok = sw && c.at != FAB_NONE;

	k->nu = k->nd = 0;
	if (ok && d < nsw)	/* the block pass's rule for a destination switch */
		ok = !rows->o[c.row + d] && !rt_lft(p->c.r, d)[c.lid];
	ok = ok && find_u(k, &c, sw, nsw_diff) && find_senders(k, &c);
	for (uint32_t i = 0; i < k->nu && ok; i++)
		ok = way(k, k->co, i) && (k->ln[i] = way(k, k->cn, i));
	for (uint32_t i = 0; i < k->nd && ok; i++) {
		k->fo[i] = rows->fl[c.row + k->s[i]];
		k->fn[i] = k->fo[i];
		k->mo[i] = mark(k, k->co, k->oo, i);
		k->mn[i] = mark(k, k->cn, k->on, i);
	}
	if (ok && k->nu) {
		work_out(k, &c);
		k->maxh = longest(k, &c);
		for (uint32_t i = 0; i < k->nu; i++) {
			rows->fl[c.row + k->s[i]] = k->fn[i];
			rows->c[c.row + k->s[i]] = k->cn[i];
			rows->o[c.row + k->s[i]] = k->on[i];
			rows->up[c.row + k->s[i]] = k->up[i];
		}
	}
	for (uint32_t i = 0; i < k->nd || i < k->nu; i++)
		k->in[k->s[i]] = 0;
	return ok;
}

void an_kept_ahead(const struct an_plan *p, const struct an_rows *rows, uint32_t d, const uint32_t *sw, uint32_t nsw_diff)
{
	uint32_t nsw = p->c.f->nswitches;
	size_t row = (size_t)d * nsw;
	unsigned lid = fab_ep_lid(p->c.f, d);

	/* a cache line: 64 entries, 32 steps or longest ways, 16 pairs */
	for (uint32_t s = 0; s < nsw; s += 32) {
		if (!(s % 64))
			__builtin_prefetch(rows->o + row + s);
		__builtin_prefetch(rows->c + row + s);
		__builtin_prefetch(rows->up + row + s);
		__builtin_prefetch(rows->fl + row + s);
		__builtin_prefetch(rows->fl + row + s + 16);
	}
	for (uint32_t i = 0; sw && i < nsw_diff; i++)
		__builtin_prefetch(rt_lft(p->c.r, sw[i]) + lid);
}

uint32_t an_kept_count(const struct an_kept *k)
{
	return k->nd;
}

void an_kept_row(const struct an_kept *k, uint32_t i, int side, uint32_t *s, uint8_t *o,
		 uint8_t *mark, uint32_t *fl)
{
	*s = k->s[i];
	*o = side ? k->on[i] : k->oo[i];
	*mark = side ? k->mn[i] : k->mo[i];
	*fl = side ? k->fn[i] : k->fo[i];
}

uint32_t an_kept_longest(const struct an_kept *k)
{
	return k->maxh;
}
