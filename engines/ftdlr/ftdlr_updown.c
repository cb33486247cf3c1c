/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - the base's up*down* paths, checked a block of LIDs at a time
 *
 * ftdlr repairs only a base whose CA LIDs it rewrites are routed over
 * up*down* paths (fd_updown_check() below). Checked LID by LID, each column of
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

/* @b's scratch and step table for @x: 0, or -1 (memory, or switches outside the levels). */
static int qblock_open(const struct fd *x, struct qblock *b)
{
	*b = (struct qblock){ .x = x };
	if (x->m.lvl_off[1] != 0 || x->m.lvl_off[x->m.nlevels + 1] != x->nsw)
		return -1;	/* switches outside the levels: the exact check */
	b->st = malloc((size_t)x->nsw * FD_BLOCK + 1);
	b->up = malloc(((size_t)x->nsw * FD_BLOCK + 1) * sizeof(*b->up));
	b->step = steps(x);
	if (b->st && b->up && b->step)
		return 0;
	free(b->st);
	free(b->up);
	free(b->step);
	return -1;
}

static void qblock_close(struct qblock *b)
{
	free(b->st);
	free(b->up);
	free(b->step);
}

/* fd_updown_quick() with @b open. */
static int qblock_need(struct qblock *b)
{
	const struct fd *x = b->x;
	const struct fabric *bf = x->bf;
	int rc = 0;

	b->n = 0;
	/* by LID: a block's entries lie together in each row, whatever the endpoints' order */
	for (unsigned l = 1; l < x->br->lft_len && !rc; l++) {
		uint32_t e;

		if (!x->need[l] || (e = fab_ep_by_lid(bf, l)) == FAB_NONE ||
		    bf->nodes[bf->eps[e].node].type == FAB_SWITCH)
			continue;
		qblock_add(b, e, l);
		if (b->n == FD_BLOCK) {
			rc = qblock_check(b);
			b->n = 0;
		}
	}
	return !rc && b->n ? qblock_check(b) : rc;
}

int fd_updown_quick(const struct fd *x)
{
	struct qblock b;
	int rc;

	if (qblock_open(x, &b))
		return -1;
	rc = qblock_need(&b);
	qblock_close(&b);
	return rc;
}

/* --- the exact check, and which LIDs to check ----------------------------------- */

enum { UD_UNKNOWN, UD_BUSY, UD_DOWN, UD_UPDOWN, UD_NONE, UD_BAD };

/* The state of switch @s towards CA LID @lid (owned by the port behind @home:@hport). */
static uint8_t ud_step(const struct fd *x, const uint8_t *st, uint32_t s, unsigned lid)
{
	const struct fabric *bf = x->bf;
	uint8_t p = rt_lft_get(x->br, s, lid), t;
	uint32_t e;

	if (p == RT_NO_PORT)
		return UD_NONE;
	e = fd_link(x, s, p);
	if (e == FD_NONE) {
		uint32_t ep = fab_ep_by_lid(bf, lid);
		const struct fab_port *fp = p && p <= bf->nodes[bf->switches[s]].nports ?
					    fab_port(bf, bf->switches[s], p) : NULL;

		return fp && ep != FAB_NONE && fp->peer == bf->eps[ep].node &&
		       fp->peer_port == bf->eps[ep].port ? UD_DOWN : UD_BAD;
	}
	t = st[x->m.links[e].peer];
	if (e >= ft_first(&x->m, s, FT_DOWN))
		return t == UD_DOWN ? UD_DOWN : t == UD_NONE ? UD_NONE : UD_BAD;
	return t == UD_DOWN || t == UD_UPDOWN ? UD_UPDOWN : t == UD_NONE ? UD_NONE : UD_BAD;
}

/* Resolve every switch's state towards @lid; the first bad switch, or FD_NONE. */
static uint32_t ud_lid(const struct fd *x, uint8_t *st, uint32_t *stack, unsigned lid)
{
	memset(st, UD_UNKNOWN, x->nsw);
	for (uint32_t s = 0; s < x->nsw; s++) {
		uint32_t top = 0, c = s;

		while (x->m.level[c] && st[c] == UD_UNKNOWN) {
			uint8_t p = rt_lft_get(x->br, c, lid);
			uint32_t e = p == RT_NO_PORT ? FD_NONE : fd_link(x, c, p);

			st[c] = UD_BUSY;
			stack[top++] = c;
			if (e == FD_NONE)
				break;
			c = x->m.links[e].peer;
		}
		if (x->m.level[c] && st[c] == UD_BUSY && (top == 0 || stack[top - 1] != c))
			return c;	/* a loop */
		while (top--) {
			uint32_t t = stack[top];

			st[t] = UD_UNKNOWN;
			st[t] = ud_step(x, st, t, lid);
			if (st[t] == UD_BAD)
				return t;
		}
	}
	return FD_NONE;
}

/*
 * Every CA LID the repair rewrites is routed over up*down* paths in the
 * base (fd_updown_quick() first, qblock_need() with @q open; this when
 * unsure). The others keep the base's entries, whatever they are: the
 * proof of the repaired routing judges them with the rest, and checking
 * them all would read every table.
 */
static int check_need_updown(struct fd *x, struct qblock *q, struct fab_err *err)
{
	const struct fabric *bf = x->bf;
	uint8_t *st = malloc((size_t)x->nsw + 1);
	uint32_t *stack = malloc(((size_t)x->nsw + 1) * sizeof(*stack));
	int rc = ENG_OK;

	if (!st || !stack) {
		free(st);
		free(stack);
		return ENG_ERROR;
	}
	if (q ? !qblock_need(q) : !fd_updown_quick(x)) {
		free(st);
		free(stack);
		return ENG_OK;
	}
	for (uint32_t e = 0; e < bf->neps && rc == ENG_OK; e++) {
		unsigned lid = fab_ep_lid(bf, e), n = 1u << fab_ep_lmc(bf, e);

		if (bf->nodes[bf->eps[e].node].type == FAB_SWITCH || !lid)
			continue;
		for (unsigned l = lid; l < lid + n && l < x->br->lft_len && rc == ENG_OK; l++) {
			uint32_t bad = x->need[l] ? ud_lid(x, st, stack, l) : FD_NONE;

			if (bad != FD_NONE) {
				fab_err_set(err, "the base routing is not an up/down fat-tree routing: the "
					    "path from switch '%s' to LID %u is not up*down*",
					    ft_sw_name(bf, bad), l);
				rc = ENG_NOT_APPLICABLE;
			}
		}
	}
	free(st);
	free(stack);
	return rc;
}

/*
 * Every LID of the base checked up*down* ahead of its repairs (each
 * checks the LIDs it rewrites, at a fault: at 43,904 CAs about a third of
 * a repair), FD_UDA_RUN LIDs at a time until *@stop (one run at least:
 * every call goes on); once per base. A base that is not up*down* stays
 * unchecked: its repairs say why.
 */
int fd_updown_prepare(struct fd *x, const int *stop)
{
	struct fd_memo *k = x->keep;
	struct fab_err err = { { 0 } };
	uint32_t len = x->br->lft_len;
	struct qblock q;
	int rc = ENG_OK, open;
	uint8_t *run;

	if (k->ud_all)
		return 0;
	if (!(run = calloc((size_t)len + 1, 1)))
		return -1;
	open = !qblock_open(x, &q);	/* once for every run: the step table is 10^5 ports */
	x->need = run;
	for (k->ud_next = k->ud_next ? k->ud_next : 1; k->ud_next < len && rc == ENG_OK;) {
		uint32_t hi = len - k->ud_next < FD_UDA_RUN ? len : k->ud_next + FD_UDA_RUN;

		memset(run + k->ud_next, 1, hi - k->ud_next);
		if ((rc = check_need_updown(x, open ? &q : NULL, &err)) == ENG_OK)
			fd_memo_checked(x, run);
		memset(run + k->ud_next, 0, hi - k->ud_next);
		k->ud_next = hi;
		if (fd_stopped(stop))
			break;
	}
	x->need = NULL;
	free(run);
	if (open)
		qblock_close(&q);
	if (rc == ENG_ERROR)
		return -1;
	k->ud_all = rc == ENG_NOT_APPLICABLE || k->ud_next >= len;
	return !k->ud_all;
}

/* check_need_updown() for the LIDs not known to be up*down* already (x->keep). */
int fd_updown_check(struct fd *x, struct fab_err *err)
{
	uint8_t *need = x->need, *chk = x->keep ? fd_memo_unchecked(x) : NULL;
	int rc;

	if (x->keep && !chk)
		return ENG_ERROR;
	if (chk && !memchr(chk, 1, x->br->lft_len)) {
		free(chk);	/* every LID checked ahead (the prepare hook) */
		return ENG_OK;
	}
	x->need = chk ? chk : need;
	rc = check_need_updown(x, NULL, err);
	x->need = need;
	if (rc == ENG_OK && chk)
		fd_memo_checked(x, chk);
	free(chk);
	return rc;
}
