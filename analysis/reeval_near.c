/* SPDX-License-Identifier: MIT */
/**
 * DOC: a destination's old share from its new one, near the change
 *
 * analysis/reeval_block.c takes a destination's old share out and puts
 * its new one in, both as rows of one entry per switch. A repair changes
 * a few entries of a column and every switch's packet is delivered before
 * and after; then the old row differs from the new one only near the
 * change, and is worked out from it here instead of by a second pass
 * over every switch.
 *
 * The switches whose entry or step changed (X), and every switch that
 * some of them reach, on either side (the closure: the old and the new
 * ways down from X), are the switches near the change (U). A switch
 * outside U has the same step on both sides, and its way either never
 * meets U, and is the same, or meets it at a switch of U. So when every
 * switch of U delivers on both sides, every switch delivers on both sides
 * or fails on both alike: what the rows do not hold (connectivity,
 * per-switch deliveries) is the same, but for the destination's longest
 * way, which the new side's pass sets in the kept sums. The old row's:
 *
 *  - entry is the old LFT entry, read by the gather anyway;
 *  - mark is, as the block pass sets it, the channel to the next switch
 *    and the port that one leaves by, from the old steps;
 *  - pairs are the new ones outside U: no switch whose packets pass such
 *    a switch changed (it would be in that one's closure). In
 *    U, a switch's pairs are what enters it from outside U, the same on
 *    both sides (its new pairs less those from the switches of U that
 *    send to it on the new side), plus those from the switches of U that
 *    send to it on the old side, taken farthest from the destination
 *    first.
 *
 * Every other switch's row is the same on both sides, but for the marks
 * of the switches that send to one of X (they name the port it leaves
 * by): only U and those are compared. Anything else — a way of U that
 * fails on either side, a destination switch whose own entry is not port
 * 0, more than NEAR_MAX switches near the change — is left to the second
 * pass. The unit tests compare every re-evaluation with a full
 * evaluation.
 */
#include <stdlib.h>

#include "analysis/reeval_impl.h"

/* The most switches near the change of one destination: beyond, the second pass is as cheap. */
#define NEAR_MAX 96u
/* The most switches whose row may differ (U and the switches that send to X). */
#define NEAR_ROWS (4u * NEAR_MAX)

/**
 * struct an_near - the switches near the change, per row of a block
 * @u, @nu, @nx: per row, U (X first, then the closure), its size and X's
 * @lo: per row and switch of U, the switches on its old way, itself included
 * @nd: per row, U followed in @u by the other switches that send to one of
 *      X: the switches whose row may differ
 * @in: per switch, 1 + its place in the row's list being built, else 0
 */
struct an_near {
	uint32_t u[AN_BLOCK][NEAR_ROWS];
	uint16_t lo[AN_BLOCK][NEAR_MAX];
	uint32_t nu[AN_BLOCK], nx[AN_BLOCK], nd[AN_BLOCK];
	uint32_t *in;
};

struct an_near *an_near_new(uint32_t nsw)
{
	struct an_near *x = calloc(1, sizeof(*x));

	if (x && !(x->in = calloc((size_t)nsw + 1, sizeof(*x->in)))) {
		free(x);
		return NULL;
	}
	return x;
}

void an_near_free(struct an_near *x)
{
	if (!x)
		return;
	free(x->in);
	free(x);
}

/* Add switch @s to row @j's list of @n unless it is there; 0 when it would pass @max. */
static int add(struct an_near *x, uint32_t j, uint32_t *n, uint32_t max, uint32_t s)
{
	if (x->in[s])
		return 1;
	if (*n == max)
		return 0;
	x->u[j][(*n)++] = s;
	x->in[s] = *n;
	return 1;
}

/*
 * The switches of the way from @s on steps @c, @s included, when it ends
 * delivered (its switches all in U: a closure); 0 otherwise (lost, or a
 * loop: longer than U).
 */
static uint32_t way(const uint16_t *c, uint32_t s, uint32_t nu)
{
	for (uint32_t n = 1; n <= nu; n++) {
		uint32_t t = c[s];

		if (t >= AN_PC_TERM)
			return (t & 0xfu) == AN_DELIVERED ? n : 0;
		s = t;
	}
	return 0;
}

/*
 * Row @j's U on steps @co (old) and @cn (new), entries @oo and @on, X among
 * the switches @sw[0..@n) (NULL: all @n); 0 when not near.
 */
static int find_u(struct an_near *x, uint32_t j, const uint32_t *sw, uint32_t n,
		  const uint16_t *co, const uint16_t *cn, const uint8_t *oo, const uint8_t *on)
{
	uint32_t *nu = &x->nu[j];
	int ok = 1;

	*nu = 0;
	for (uint32_t k = 0; k < n && ok; k++) {
		uint32_t s = sw ? sw[k] : k;

		if (oo[s] != on[s] || co[s] != cn[s])
			ok = add(x, j, nu, NEAR_MAX, s);
	}
	x->nx[j] = *nu;
	for (uint32_t i = 0; i < *nu && ok; i++) {
		uint32_t s = x->u[j][i];

		if (co[s] < AN_PC_TERM)
			ok = add(x, j, nu, NEAR_MAX, co[s]);
		if (ok && cn[s] < AN_PC_TERM)
			ok = add(x, j, nu, NEAR_MAX, cn[s]);
	}
	return ok;
}

/*
 * After U, the switches that send to one of X (on the new side; outside
 * U they send there on both): their mark names X's port. 0 when too many.
 */
static int find_senders(struct an_near *x, const struct an_plan *p, uint32_t j, const uint16_t *cn)
{
	int ok = 1;

	x->nd[j] = x->nu[j];
	for (uint32_t i = 0; i < x->nx[j] && ok; i++) {
		uint32_t s = x->u[j][i];

		for (uint32_t q = p->pt_base[s]; q < p->pt_base[s + 1] && ok; q++) {
			uint32_t e = p->pt[q], t = AN_PT_VAL(e);

			if (AN_PT_KIND(e) == AN_PT_SW && cn[t] == s)
				ok = add(x, j, &x->nd[j], NEAR_ROWS, t);
		}
	}
	return ok;
}

int an_near_find(struct an_near *x, const struct an_plan *p, const struct an_blk *ob,
		 const struct an_blk *nb, uint32_t j, uint32_t d, const uint32_t *sw, uint32_t nsw_diff)
{
	uint32_t nsw = p->c.f->nswitches;
	size_t r = (size_t)j * nsw;
	const uint16_t *co = ob->c + r, *cn = nb->c + r;
	int ok;

	if (d < nsw && (ob->o[r + d] != 0 || nb->o[r + d] != 0))
		return 0;	/* the block pass's rule for a destination switch */
	x->nd[j] = 0;
	ok = find_u(x, j, sw, sw ? nsw_diff : nsw, co, cn, ob->o + r, nb->o + r) &&
	     find_senders(x, p, j, cn);
	for (uint32_t i = 0; i < x->nd[j] || i < x->nu[j]; i++)
		x->in[x->u[j][i]] = 0;
	for (uint32_t i = 0; i < x->nu[j] && ok; i++) {
		uint32_t s = x->u[j][i], lo = way(co, s, x->nu[j]);

		ok = lo && way(cn, s, x->nu[j]);
		x->lo[j][i] = (uint16_t)lo;
	}
	return ok;
}

/* The pairs of U's switches on the old side: in, as in the DOC comment; @fo holds the new ones. */
static void old_pairs(const struct an_near *x, uint32_t j, uint32_t d, const uint16_t *co,
		      const uint16_t *cn, const uint32_t *fn, uint32_t *fo)
{
	const uint32_t *u = x->u[j];
	uint32_t nu = x->nu[j], in[NEAR_MAX], far = 0;

	for (uint32_t a = 0; a < nu; a++) {
		far = x->lo[j][a] > far ? x->lo[j][a] : far;
		in[a] = fn[u[a]];
		for (uint32_t b = 0; b < nu; b++)
			in[a] -= cn[u[b]] == u[a] ? fn[u[b]] : 0;
	}
	/* farthest first: a switch's old senders are one switch farther than it */
	for (uint32_t len = far; len; len--)
		for (uint32_t a = 0; a < nu; a++) {
			uint32_t sum = in[a];

			if (x->lo[j][a] != len || u[a] == d)
				continue;	/* d's own: no pairs on either side (port 0) */
			for (uint32_t b = 0; b < nu; b++)
				sum += co[u[b]] == u[a] ? fo[u[b]] : 0;
			fo[u[a]] = sum;
		}
}

const uint32_t *an_near_old(const struct an_near *x, const struct an_plan *p, struct an_blk *ob,
			    const struct an_blk *nb, uint32_t j, uint32_t d, uint32_t *n)
{
	uint32_t nsw = p->c.f->nswitches;
	size_t r = (size_t)j * nsw;
	const uint16_t *co = ob->c + r;
	const uint8_t *oo = ob->o + r;
	uint8_t *dep = ob->dep + r;
	uint32_t *fo = ob->fl + r;
	const uint32_t *fn = nb->fl + r;

	for (uint32_t i = 0; i < x->nd[j]; i++) {
		uint32_t s = x->u[j][i], t = co[s];

		dep[s] = t >= AN_PC_TERM ? AN_DEP_NONE : co[t] < AN_PC_TERM ? oo[t] : 0;
		fo[s] = fn[s];
	}
	if (p->o.load)
		old_pairs(x, j, d, co, nb->c + r, fn, fo);
	*n = x->nd[j];
	return x->u[j];
}
