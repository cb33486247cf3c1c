/* SPDX-License-Identifier: MIT */
/**
 * DOC: re-evaluation by differences, a block of destinations at a time
 *
 * an_reevaluate() takes a destination's share out of the sums as the old
 * routing made it and puts it back as the new one makes it. Where the
 * block pass of analysis/dest_block.c takes the destination (the common
 * case: no per-pair tables, every hop on VL 0), both shares come as rows
 * of one entry per switch: the LFT entry, the channel marked and its
 * dependency, the pairs out of the port. A repair changes a few entries
 * of each column, so most switches add the same to both shares: only the
 * switches whose row differs are counted, the old row out and the new one
 * in, straight into the sums kept (an_acc's channel blocks and per-port
 * sums), instead of counting both shares whole into sums of their own and
 * adding those (each as large as the fabric) to the kept ones. What the
 * rows do not hold (connectivity, per-switch deliveries, the endpoints'
 * own links) is counted by the block pass into small sums of each side
 * and added at the end. The sums are the same as the whole shares give:
 * the unit tests compare the reports with full evaluations.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/dest_impl.h"
#include "analysis/reeval_impl.h"

/* One side (old or new): the block pass's scratch and the sums of what the rows do not hold. */
struct side {
	struct an_work *w;
	struct an_acc acc;
	uint16_t *dhops;
	uint8_t *dfail;
};

static int side_init(struct side *x, const struct an_plan *p, uint16_t *dhops, uint8_t *dfail)
{
	const struct fabric *f = p->c.f;

	memset(x, 0, sizeof(*x));
	x->acc.eld = calloc(2 * (size_t)f->neps + 1, sizeof(*x->acc.eld));
	x->acc.dall = calloc((size_t)f->nswitches + 1, sizeof(*x->acc.dall));
	x->acc.dca = calloc((size_t)f->nswitches + 1, sizeof(*x->acc.dca));
	x->w = an_work_new(p);
	if (!x->acc.eld || !x->acc.dall || !x->acc.dca || !x->w)
		return -1;
	x->w->acc = &x->acc;
	x->w->dhops = x->dhops = dhops;
	x->w->dfail = x->dfail = dfail;
	return 0;
}

static void side_fini(struct side *x)
{
	an_work_free(x->w);
	an_acc_fini(&x->acc);
}

/* Count one switch's row (entry @o, mark @dep, pairs @fl) @sign times (1 or -1) into @a. */
static int count_row(struct an_acc *a, const struct an_plan *p, uint32_t s, uint8_t o,
		     uint8_t dep, uint32_t fl, int sign)
{
	uint32_t slot = p->pt_base[s] + o, b;

	if (dep != AN_DEP_NONE) {
		if (!(b = an_acc_block(a, p, slot, 0)))
			return -1;
		a->arena[b] += (uint32_t)sign;
		a->arena[b + 1 + dep] += dep ? (uint32_t)sign : 0;
	}
	if (fl) {
		/* sums of 32 bits: they wrap back exactly */
		a->ld[2 * slot] += (uint32_t)sign * (fl & 0xffffu);
		a->ld[2 * slot + 1] += (uint32_t)sign * (fl >> 16);
	}
	return 0;
}

/* Rows [0, @m) of both sides: the switches whose row differs, old out and new in. */
static int count_diffs(const struct an_plan *p, const struct an_blk *ob, const struct an_blk *nb,
		       uint32_t m, struct an_acc *a)
{
	uint32_t nsw = p->c.f->nswitches;
	int load = p->o.load;

	for (uint32_t j = 0; j < m; j++)
		for (uint32_t s = 0; s < nsw; s++) {
			size_t i = (size_t)j * nsw + s;
			uint32_t ofl = load ? ob->fl[i] : 0, nfl = load ? nb->fl[i] : 0;

			if (ob->o[i] == nb->o[i] && ob->dep[i] == nb->dep[i] && ofl == nfl)
				continue;
			if (count_row(a, p, s, ob->o[i], ob->dep[i], ofl, -1) ||
			    count_row(a, p, s, nb->o[i], nb->dep[i], nfl, 1))
				return -1;
		}
	return 0;
}

static void add64(uint64_t *into, const uint64_t *plus, const uint64_t *minus, size_t n)
{
	for (size_t i = 0; i < n; i++)
		into[i] += plus[i] - minus[i];
}

static void add32(uint32_t *into, const uint32_t *plus, const uint32_t *minus, size_t n)
{
	for (size_t i = 0; i < n; i++)
		into[i] += plus[i] - minus[i];
}

/* What the rows do not hold: the new side's sums in, the old side's out (pools as an_acc_add()). */
static void add_rest(const struct fabric *f, struct an_acc *a, const struct an_acc *n,
		     const struct an_acc *o)
{
	add64(a->pairs, n->pairs, o->pairs, AN_NCLASSES);
	add64(a->unreachable, n->unreachable, o->unreachable, AN_NCLASSES);
	add64(&a->by_fail[0][0], &n->by_fail[0][0], &o->by_fail[0][0],
	      (size_t)AN_NCLASSES * AN_NFAILS);
	add64(a->paths, n->paths, o->paths, AN_VLS);
	for (unsigned k = 0; k < AN_NCLASSES; k++)
		for (uint32_t i = 0; i < n->ex[k].n; i++)
			an_pool_add(&a->ex[k], &n->ex[k].ex[i]);
	add32(a->eld, n->eld, o->eld, 2 * (size_t)f->neps);
	add32(a->dall, n->dall, o->dall, f->nswitches);
	add32(a->dca, n->dca, o->dca, f->nswitches);
}

int an_reeval_blocks(const struct an_plan *pp, const struct an_plan *p, struct an_state *st,
		     uint32_t *d, uint32_t n, uint32_t *rest)
{
	const struct fabric *f = p->c.f;
	uint16_t *oh = calloc((size_t)f->neps + 1, sizeof(*oh));
	uint8_t *of = calloc((size_t)f->neps + 1, sizeof(*of));
	struct side old, cur;
	uint32_t blk[AN_BLOCK], m = 0, k = 0;
	int rc = -1;

	memset(&old, 0, sizeof(old));
	memset(&cur, 0, sizeof(cur));
	if (!oh || !of || side_init(&old, pp, oh, of) || side_init(&cur, p, st->dhops, st->dfail))
		goto out;
	for (uint32_t i = 0; i <= n; i++) {
		if (i < n && !an_dest_block_fits(p, d[i])) {
			d[k++] = d[i];
			continue;
		}
		if (i < n)
			blk[m++] = d[i];
		if (!m || (m < AN_BLOCK && i < n))
			continue;
		an_dest_block_rows(old.w, blk, m);
		an_dest_block_rows(cur.w, blk, m);
		if (count_diffs(p, &old.w->blk, &cur.w->blk, m, &st->acc))
			goto out;
		m = 0;
	}
	add_rest(f, &st->acc, &cur.acc, &old.acc);
	*rest = k;
	rc = 0;
out:
	side_fini(&old);
	side_fini(&cur);
	free(oh);
	free(of);
	return rc;
}
