/* SPDX-License-Identifier: MIT */
/**
 * DOC: sums over destinations
 *
 * Each thread adds the pairs of its destinations to its own struct
 * an_acc; the threads' sums are then added in a fixed order. Everything in
 * it is a count (or a set of the smallest examples), so the total does not
 * depend on which thread took which destination, and a destination's
 * share can be taken out again exactly (an_reevaluate()).
 *
 * Dependencies are counted per channel: a channel (switch port, VL) that
 * carries a walk gets a block of counters, one per port of the switch it
 * leads to (dependencies on the same VL, the common case: an increment, no
 * hashing); the walks through each channel are counted apart, in an array
 * by port (every destination's pass adds to it at every switch: kept
 * dense, it stays in cache where the blocks would not). Dependencies that
 * change VL go to a small hash table keyed by both channel ids. When every hop is on VL 0
 * and no re-evaluation will need the counts, a bit per channel and
 * dependency says which exist instead: an eighth of a counter's cache
 * footprint, which is what the passes spend their time on at 10^4
 * switches.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

int an_acc_init(struct an_acc *a, const struct an_plan *p)
{
	const struct fabric *f = p->c.f;

	memset(a, 0, sizeof(*a));
	a->nblk = p->npt * p->nvs;
	a->blk = calloc((size_t)a->nblk + 1, sizeof(*a->blk));
	if (!p->bits)
		a->chan = calloc((size_t)a->nblk + 1, sizeof(*a->chan));
	a->acap = (size_t)p->wblk * 64;
	a->alen = 1;	/* offset 0 means "no block" */
	a->arena = malloc(a->acap * sizeof(*a->arena));
	if (p->bits)
		a->bits = calloc((size_t)p->npt * p->wblk / 64 + 1, sizeof(*a->bits));
	a->ld = calloc(2 * (size_t)p->npt + 1, sizeof(*a->ld));
	a->eld = calloc(2 * (size_t)f->neps + 1, sizeof(*a->eld));
	a->dall = calloc((size_t)f->nswitches + 1, sizeof(*a->dall));
	a->dca = calloc((size_t)f->nswitches + 1, sizeof(*a->dca));
	if (!a->blk || (!p->bits && !a->chan) || !a->arena || (p->bits && !a->bits) || !a->ld ||
	    !a->eld || !a->dall || !a->dca) {
		an_acc_fini(a);
		return -1;
	}
	return 0;
}

void an_acc_fini(struct an_acc *a)
{
	free(a->blk);
	free(a->chan);
	free(a->arena);
	free(a->cross.keys);
	free(a->cross.cnt);
	free(a->bits);
	free(a->ld);
	free(a->eld);
	free(a->dall);
	free(a->dca);
	memset(a, 0, sizeof(*a));
}

uint32_t an_acc_block(struct an_acc *a, const struct an_plan *p, uint32_t pti, unsigned vl)
{
	size_t i = an_acc_index(p, pti, vl);

	if (a->blk[i])
		return a->blk[i];
	if (a->alen + p->wblk > a->acap) {
		size_t cap = a->acap * 2;
		uint32_t *n = cap <= UINT32_MAX ? realloc(a->arena, cap * sizeof(*n)) : NULL;

		if (!n)
			return 0;
		a->arena = n;
		a->acap = cap;
	}
	memset(a->arena + a->alen, 0, p->wblk * sizeof(*a->arena));
	a->blk[i] = (uint32_t)a->alen;
	a->alen += p->wblk;
	return a->blk[i];
}

/* --- dependencies across VLs ------------------------------------------------ */

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t cmap_slot(const uint64_t *keys, size_t cap, uint64_t k)
{
	size_t i = mix(k) & (cap - 1);

	while (keys[i] && keys[i] != k)
		i = (i + 1) & (cap - 1);
	return i;
}

static int cmap_grow(struct an_cmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	uint32_t *cnt = calloc(cap, sizeof(*cnt));

	if (!keys || !cnt) {
		free(keys);
		free(cnt);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i]) {
			size_t j = cmap_slot(keys, cap, m->keys[i]);

			keys[j] = m->keys[i];
			cnt[j] = m->cnt[i];
		}
	free(m->keys);
	free(m->cnt);
	m->keys = keys;
	m->cnt = cnt;
	m->cap = cap;
	return 0;
}

/* Add @d (modulo 2^32) to the count of key @k (never 0). */
static int cmap_add(struct an_cmap *m, uint64_t k, uint32_t d)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && cmap_grow(m))
		return -1;
	i = cmap_slot(m->keys, m->cap, k);
	if (!m->keys[i]) {
		m->keys[i] = k;
		m->n++;
	}
	m->cnt[i] += d;
	return 0;
}

int an_acc_cross(struct an_acc *a, uint32_t from, uint32_t to)
{
	return cmap_add(&a->cross, (uint64_t)from << 32 | to, 1);
}

/* --- examples --------------------------------------------------------------- */

static int ex_before(const struct an_example *a, uint32_t dst, uint32_t src)
{
	return a->dst < dst || (a->dst == dst && a->src < src);
}

void an_pool_add(struct an_pool *p, const struct an_example *e)
{
	uint32_t i;

	if (p->n == AN_EXAMPLES && !ex_before(e, p->ex[p->n - 1].dst, p->ex[p->n - 1].src))
		return;
	if (p->n < AN_EXAMPLES)
		p->n++;
	for (i = p->n - 1; i > 0 && ex_before(e, p->ex[i - 1].dst, p->ex[i - 1].src); i--)
		p->ex[i] = p->ex[i - 1];
	p->ex[i] = *e;
}

int an_pool_full_before(const struct an_pool *p, uint32_t dst, uint32_t src)
{
	return p->n == AN_EXAMPLES && ex_before(&p->ex[p->n - 1], dst, src);
}

/* --- adding and subtracting ----------------------------------------------- */

static void add64(uint64_t *into, const uint64_t *from, size_t n, int sign)
{
	for (size_t i = 0; i < n; i++)
		into[i] = sign > 0 ? into[i] + from[i] : into[i] - from[i];
}

static void add32(uint32_t *into, const uint32_t *from, size_t n, int sign)
{
	for (size_t i = 0; i < n; i++)
		into[i] = sign > 0 ? into[i] + from[i] : into[i] - from[i];
}

static int add_blocks(struct an_acc *into, const struct an_plan *p, const struct an_acc *from,
		      int sign)
{
	for (uint32_t i = 0; i < from->nblk; i++) {
		const uint32_t *fb;
		uint32_t *ib, at;

		if (!from->blk[i])
			continue;
		at = an_acc_block(into, p, i / p->nvs, i % p->nvs);
		if (!at)
			return -1;
		ib = into->arena + at;
		fb = from->arena + from->blk[i];
		for (uint32_t j = 0; j < p->wblk; j++)
			ib[j] = sign > 0 ? ib[j] + fb[j] : ib[j] - fb[j];
	}
	return 0;
}

int an_acc_add(struct an_acc *into, const struct an_plan *p, const struct an_acc *from, int sign)
{
	const struct fabric *f = p->c.f;

	add64(into->pairs, from->pairs, AN_NCLASSES, sign);
	add64(into->unreachable, from->unreachable, AN_NCLASSES, sign);
	add64(&into->by_fail[0][0], &from->by_fail[0][0], (size_t)AN_NCLASSES * AN_NFAILS, sign);
	add64(into->paths, from->paths, AN_VLS, sign);
	for (unsigned k = 0; sign > 0 && k < AN_NCLASSES; k++)
		for (uint32_t i = 0; i < from->ex[k].n; i++)
			an_pool_add(&into->ex[k], &from->ex[k].ex[i]);
	if (add_blocks(into, p, from, sign))
		return -1;
	for (size_t i = 0; i < from->cross.cap; i++)
		if (from->cross.keys[i] &&
		    cmap_add(&into->cross, from->cross.keys[i],
			     sign > 0 ? from->cross.cnt[i] : 0u - from->cross.cnt[i]))
			return -1;
	for (size_t i = 0; p->bits && i < (size_t)p->npt * p->wblk / 64 + 1; i++)
		into->bits[i] |= from->bits[i];
	if (!p->bits)
		add32(into->chan, from->chan, from->nblk, sign);
	add32(into->ld, from->ld, 2 * (size_t)p->npt, sign);
	add32(into->eld, from->eld, 2 * (size_t)f->neps, sign);
	add32(into->dall, from->dall, f->nswitches, sign);
	add32(into->dca, from->dca, f->nswitches, sign);
	return 0;
}
