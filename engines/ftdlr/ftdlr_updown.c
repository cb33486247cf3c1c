/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - the base's up*down* paths, checked a block of LIDs at a time
 *
 * ftdlr repairs only a base whose CA LIDs it rewrites are routed over
 * up*down* paths (ftdlr.c's check_updown()). Checked LID by LID, each column of
 * the tables is read one entry per switch row: at 10^3 switches and 10^4
 * LIDs that is most of a repair's time. Here FD_BLOCK LIDs are checked at
 * once, switch by switch, each row read in one run, and without a search:
 * a switch whose entry goes down depends on a lower switch, one whose
 * entry goes up on a higher one, so one pass up the levels settles every
 * way down and one pass down the levels every way up. A path that turns
 * from down to up, a loop, or a bad switch is not settled so: the exact
 * check then runs and names the first bad switch as before.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr/ftdlr_impl.h"

#define FD_BLOCK 64u

enum { Q_UNKNOWN, Q_DOWN, Q_UPDOWN, Q_NONE, Q_BAD };

/*
 * One block: its LIDs, where each one's CA hangs; per (switch, LID) the
 * state and, for a switch whose entry goes up, the switch it goes to.
 */
struct qblock {
	const struct fd *x;
	unsigned lid[FD_BLOCK];
	uint32_t home[FD_BLOCK];
	uint8_t hport[FD_BLOCK];
	uint32_t n;
	uint8_t *st;
	uint32_t *up;
	uint32_t *step;	/* per base port slot: Q_NOLINK, or the peer switch x 2 + 1 when it is up */
};

#define Q_NOLINK UINT32_MAX
/* Rows of the tables asked for ahead of their turn. */
#define Q_AHEAD 8u

/* Up the levels: every switch's step; the way down settled, the way up left for later. */
static void pass_up(struct qblock *b, uint32_t s)
{
	const struct fd *x = b->x;
	const struct fab_node *n = &x->bf->nodes[x->bf->switches[s]];
	const uint8_t *row = rt_lft(x->br, s);
	const uint32_t *step = b->step + n->port0;
	uint8_t *st = b->st + (size_t)s * FD_BLOCK;
	uint32_t *up = b->up + (size_t)s * FD_BLOCK;

	for (uint32_t j = 0; j < b->n; j++) {
		uint8_t p = row[b->lid[j]], t;
		uint32_t e = p <= n->nports ? step[p] : Q_NOLINK;

		if (p == RT_NO_PORT) {
			st[j] = Q_NONE;
		} else if (e == Q_NOLINK) {
			st[j] = s == b->home[j] && p == b->hport[j] ? Q_DOWN : Q_BAD;
		} else if (e & 1) {
			st[j] = Q_UNKNOWN;
			up[j] = e >> 1;
		} else {
			t = b->st[(size_t)(e >> 1) * FD_BLOCK + j];
			/* a lower switch still unknown goes up: down then up, the exact check says */
			st[j] = t == Q_DOWN || t == Q_NONE ? t : Q_BAD;
		}
	}
}

/* Down the levels: the ways up, from the higher switches settled; 0, or -1 when unsure. */
static int pass_down(struct qblock *b, uint32_t s)
{
	uint8_t *st = b->st + (size_t)s * FD_BLOCK;
	const uint32_t *up = b->up + (size_t)s * FD_BLOCK;

	for (uint32_t j = 0; j < b->n; j++) {
		uint8_t t;

		if (st[j] == Q_BAD)
			return -1;
		if (st[j] != Q_UNKNOWN)
			continue;
		t = b->st[(size_t)up[j] * FD_BLOCK + j];
		if (t != Q_DOWN && t != Q_UPDOWN && t != Q_NONE)
			return -1;
		st[j] = t == Q_NONE ? Q_NONE : Q_UPDOWN;
	}
	return 0;
}

/* The block's LIDs settled in two passes: 0 when all are up*down* (or unrouted), -1 when unsure. */
static int qblock_check(struct qblock *b)
{
	const struct ft_model *m = &b->x->m;

	for (uint32_t i = 0; i < b->x->nsw; i++) {
		if (i + Q_AHEAD < b->x->nsw) {
			/* rows lie far apart: no hardware prefetcher guesses the next one */
			const uint8_t *row = rt_lft(b->x->br, m->order[i + Q_AHEAD]);

			__builtin_prefetch(row + b->lid[0]);
			__builtin_prefetch(row + b->lid[b->n - 1]);
		}
		pass_up(b, m->order[i]);
	}
	for (uint32_t i = b->x->nsw; i--;)
		if (pass_down(b, m->order[i]))
			return -1;
	return 0;
}

/* LID @lid of endpoint @e joins the block; where the CA hangs, from the base fabric. */
static void qblock_add(struct qblock *b, uint32_t e, unsigned lid)
{
	const struct fabric *bf = b->x->bf;
	const struct fab_port *p = fab_port(bf, bf->eps[e].node, bf->eps[e].port);

	b->lid[b->n] = lid;
	b->home[b->n] = p->peer != FAB_NONE && bf->nodes[p->peer].type == FAB_SWITCH ?
			bf->nodes[p->peer].swidx : FD_NONE;
	b->hport[b->n] = p->peer_port;
	b->n++;
}

/* Per base port slot, where its model link leads (port 0 and unlinked ports: Q_NOLINK). */
static uint32_t *steps(const struct fd *x)
{
	const struct fabric *bf = x->bf;
	uint32_t *step = malloc(((size_t)bf->nports + 1) * sizeof(*step));

	for (uint32_t i = 0; step && i < bf->nports; i++)
		step[i] = Q_NOLINK;
	for (uint32_t s = 0; step && s < x->nsw; s++) {
		uint32_t port0 = bf->nodes[bf->switches[s]].port0;

		for (unsigned p = 1; p <= bf->nodes[bf->switches[s]].nports; p++) {
			uint32_t e = fd_link(x, s, p);

			if (e != FD_NONE)
				step[port0 + p] = x->m.links[e].peer << 1 | (uint32_t)is_up_link(x, s, e);
		}
	}
	return step;
}

int fd_updown_quick(const struct fd *x)
{
	const struct fabric *bf = x->bf;
	struct qblock b = { .x = x };
	int rc = 0;

	if (x->m.lvl_off[1] != 0 || x->m.lvl_off[x->m.nlevels + 1] != x->nsw)
		return -1;	/* switches outside the levels: the exact check */
	b.st = malloc((size_t)x->nsw * FD_BLOCK + 1);
	b.up = malloc(((size_t)x->nsw * FD_BLOCK + 1) * sizeof(*b.up));
	b.step = steps(x);
	if (!b.st || !b.up || !b.step) {
		free(b.st);
		free(b.up);
		free(b.step);
		return -1;
	}
	for (uint32_t e = 0; e < bf->neps && !rc; e++) {
		unsigned lid = fab_ep_lid(bf, e), n = 1u << fab_ep_lmc(bf, e);

		if (bf->nodes[bf->eps[e].node].type == FAB_SWITCH || !lid)
			continue;
		for (unsigned l = lid; l < lid + n && l < x->br->lft_len && !rc; l++) {
			if (!x->need[l])
				continue;
			qblock_add(&b, e, l);
			if (b.n == FD_BLOCK) {
				rc = qblock_check(&b);
				b.n = 0;
			}
		}
	}
	if (!rc && b.n)
		rc = qblock_check(&b);
	free(b.st);
	free(b.up);
	free(b.step);
	return rc;
}
