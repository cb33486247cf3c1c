/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - the subtree rule's repair of a LID at the few switches it concerns
 *
 * fd_sn_lid() sets every live switch's entry by the subtree rule
 * (ftdlr_sn.c) and follows every switch's way: a pass over all switches
 * per LID, most of a repair at 5488 CAs. Yet a switch's entry by the rule
 * depends only on its base entry, its links being live, its and its
 * neighbours' classes towards the LID's switch, and its way to sn (x->snway,
 * x->anchor). When the classes are the base's (kept in the memo, and the
 * faults leave them as they were), a switch none of whose links died and
 * whose way to sn is the base's gets the entry the rule gives on the base
 * fabric. The prepare hook finds, once per base, the LIDs for which that
 * is the base's own entry at every switch, every switch delivering
 * (rule_base). For those, the repair is the base column but at the few
 * switches Q with a dead link or another way to sn, computed here alone:
 * when the way from each of Q delivers, every switch's does (a way that
 * never meets Q is the base's, over live links), so fd_sn_lid() would find
 * no switch failing, break no loop, and return exactly these entries. When
 * the faults change the classes towards the LID's switch (it lies below a
 * dead link), the switches whose class changed and their neighbours join
 * Q for the LIDs of that switch, as long as sn keeps its class (else
 * fd_sn_lid() takes sn's way backwards, elsewhere). When a way from Q
 * fails, or Q grows past FD_Q_MAX, the LID takes fd_repair_lid() as before.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr/ftdlr_impl.h"

/* The most switches of Q: beyond, the pass over every switch costs about as much. */
#define FD_Q_MAX 256u

/* The LIDs the rule repairs at all (fd_repair_lid()): not sn's, and switch LIDs or a base without path SLs. */
static int ruled(const struct fd *x, const struct dst *d)
{
	return d->lid != x->snlid && !x->br->path_sl;
}

/* The memo's rule_base, snway0, anchor0: the base's ways to sn kept, no LID known yet. 0 or -1. */
static int rule_start(struct fd *x)
{
	struct fd_memo *k = x->keep;

	free(k->snway0);	/* of a start that ran out of memory */
	free(k->anchor0);
	k->rule_base = calloc((size_t)x->br->lft_len + 1, 1);
	k->snway0 = malloc((size_t)x->nsw + 1);
	k->anchor0 = malloc((size_t)x->nsw + 1);
	if (!k->rule_base || !k->snway0 || !k->anchor0) {
		free(k->rule_base);
		k->rule_base = NULL;	/* the others are the memo's to free */
		return -1;
	}
	memcpy(k->snway0, x->snway, x->nsw);
	memcpy(k->anchor0, x->anchor, x->nsw);
	k->rb_next = 1;
	return 0;
}

/*
 * Per LID from k->rb_next, whether the rule gives the base's column
 * (rule_base), FD_COLS LIDs at a time until *@stop, one run at least (a
 * LID not reached yet reads as not: its repair takes the pass over every
 * switch). Return: 0 when done, 1 when stopped, -1 when out of memory.
 */
static int rule_lids(struct fd *x, const int *stop)
{
	struct fd_memo *k = x->keep;
	size_t n = (size_t)x->nsw + 1;
	uint8_t *col = malloc((size_t)FD_COLS * x->nsw + 1);
	int rc = -1;

	x->row = malloc(n);
	x->bcol = malloc(n);
	x->mark = malloc(n);
	x->stack = malloc(n * sizeof(*x->stack));
	if (!col || !x->row || !x->bcol || !x->mark || !x->stack)
		goto out;
	fd_sn_ways(x, x->br);
	if (!k->rule_base && rule_start(x))
		goto out;
	while (k->rb_next < x->br->lft_len) {
		uint32_t lo = k->rb_next, m = 0;
		unsigned lid[FD_COLS];
		struct dst d[FD_COLS];

		for (uint32_t l = lo; l < lo + FD_COLS && l < x->br->lft_len; l++)
			if (fd_find_dst(x, l, &d[m]) && ruled(x, &d[m]))
				lid[m++] = l;
		fd_columns(x, lid, m, col);
		for (uint32_t j = 0; j < m; j++)
			k->rule_base[lid[j]] =
				(uint8_t)fd_sn_gives_base(x, &d[j], col + (size_t)j * x->nsw);
		k->rb_next = lo + FD_COLS;
		if (fd_stopped(stop))
			break;
	}
	k->rb_tried = k->rb_next >= x->br->lft_len;
	rc = !k->rb_tried;
out:
	free(col);
	return rc;
}

int fd_quick_prepare(struct fd *x, const int *stop)
{
	struct fd_memo *k = x->keep;

	if (!k || k->rb_tried)
		return 0;
	if (!x->snway && fd_sn_find(x))
		return -1;
	if (x->sn == FD_NONE || !k->ud_base || x->br->path_sl) {
		k->rb_tried = 1;	/* the rule does not apply */
		return 0;
	}
	return rule_lids(x, stop);
}

/* Live switch @s has a dead link, or another way to sn than on the base. */
static int differs(const struct fd *x, uint32_t s)
{
	if (x->snway[s] != x->keep->snway0[s] || x->anchor[s] != x->keep->anchor0[s])
		return 1;
	for (uint32_t e = ft_first(&x->m, s, FT_UP); e < ft_end(&x->m, s, FT_SIB); e++)
		if (!x->alive[e])
			return 1;
	return 0;
}

int fd_quick_init(struct fd *x)
{
	x->nq = x->nqd = 0;
	x->qd_sw = FD_NONE;
	if (!x->keep || !x->keep->rule_base)
		return 0;
	x->qpos = calloc((size_t)x->nsw + 1, sizeof(*x->qpos));
	x->qsw = malloc(((size_t)FD_Q_MAX + 1) * sizeof(*x->qsw));
	x->qnew = malloc(FD_Q_MAX + 1);
	if (!x->qpos || !x->qsw || !x->qnew)
		return -1;
	for (uint32_t s = 0; s < x->nsw; s++) {
		if (fd_dead(x, s) || !differs(x, s))
			continue;
		if (x->nq == FD_Q_MAX / 4) {	/* as costly as the pass over every switch */
			while (x->nq)
				x->qpos[x->qsw[--x->nq]] = 0;
			return 0;
		}
		x->qsw[x->nq++] = s;
		x->qpos[s] = x->nq;
	}
	x->nqd = x->nq;
	return 0;
}

/* Live switch @s into Q for the LID at hand; 0 when Q would pass FD_Q_MAX. */
static int join(struct fd *x, uint32_t s)
{
	if (fd_dead(x, s) || x->qpos[s])
		return 1;
	if (x->nqd == FD_Q_MAX)
		return 0;
	x->qsw[x->nqd++] = s;
	x->qpos[s] = x->nqd;
	return 1;
}

/*
 * Q for the LIDs of @d's switch: with classes other than the base's, the
 * switches whose class changed and their neighbours too. 0 when too many.
 */
static int q_for(struct fd *x, const struct dst *d)
{
	const uint8_t *b = x->keep->ud_base + (size_t)d->sw * x->nsw;
	int ok = 1;

	if (x->qd_sw == d->sw)
		return x->qd_ok;
	for (uint32_t i = x->nq; i < x->nqd; i++)
		x->qpos[x->qsw[i]] = 0;
	x->nqd = x->nq;
	x->qd_sw = d->sw;
	for (uint32_t s = 0; s < x->nsw && ok && !x->ud_kept; s++) {
		if (x->ud[s] == b[s])
			continue;
		ok = join(x, s);
		for (uint32_t e = ft_first(&x->m, s, FT_UP); ok && e < ft_end(&x->m, s, FT_SIB); e++)
			ok = join(x, x->m.links[e].peer);
	}
	x->qd_ok = ok && fd_sn_updown(x);
	return x->qd_ok;
}

/* The way from @s towards @d on the entries of Q and the base's elsewhere delivers. */
static int delivers(const struct fd *x, const struct dst *d, uint32_t s)
{
	for (uint32_t h = 0; h <= x->nsw && s != FD_NONE; h++) {
		uint8_t p = x->qpos[s] ? x->qnew[x->qpos[s] - 1] : rt_lft(x->br, s)[d->lid];

		if (fd_delivers(d, s, p))
			return 1;
		s = fd_hop(x, s, p);
	}
	return 0;
}

/* Q's entries into the tables, counted as fd_put_columns() counts. Return 0 or -1 (memory). */
static int put(struct fd *x, const struct dst *d)
{
	size_t words = (x->nblk64 + 63) / 64;
	uint32_t b = d->lid / 64;

	for (uint32_t i = 0; i < x->nqd; i++) {
		uint32_t s = x->qsw[i];
		uint8_t *row;

		if (x->qnew[i] == x->bcol[s])
			continue;
		if (!(row = fd_row(x, x->cur[s])))
			return -1;
		row[d->lid] = x->qnew[i];
		x->st.entries++;
		x->chg[s * words + b / 64] |= 1ull << (b % 64);
	}
	return 0;
}

int fd_quick(struct fd *x, const struct dst *d)
{
	/* rule_base marks only the LIDs the rule repairs (ruled()) */
	if (!x->nq || !x->keep->rule_base[d->lid] || fd_dead(x, x->sn) || fd_dead(x, d->sw))
		return 0;
	fd_sn_ud(x, d);
	if (!q_for(x, d))
		return 0;
	for (uint32_t i = 0; i < x->nqd; i++)
		x->bcol[x->qsw[i]] = rt_lft(x->br, x->qsw[i])[d->lid];
	for (uint32_t i = 0; i < x->nqd; i++)
		x->qnew[i] = fd_sn_entry(x, d, x->qsw[i]);
	for (uint32_t i = 0; i < x->nqd; i++)
		if (!delivers(x, d, x->qsw[i]))
			return 0;
	if (put(x, d))
		return -1;
	x->st.subtree++;
	x->st.quick++;
	return 1;
}
