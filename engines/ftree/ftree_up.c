/* SPDX-License-Identifier: MIT */
/**
 * DOC: up-link classes and counters of ftree's step 4b
 *
 * Step 4b of the fat-tree routing (ftree.c) sends a switch without entry
 * up the link, among those whose peer has an up/down entry at the least
 * distance, that carried the fewest secondary entries so far (then the
 * lowest port). Done naively that is a scan of every up link of most
 * switches for every destination.
 *
 * Classes: switches of one level whose up links lead to the same peers
 * through the same ports, in the same order (in a fat tree, the switches
 * of a pod, of a column). Which up links are candidates depends only on
 * the peers, so it is worked out once per class and destination.
 *
 * Counters: per class member (in class order, so that a pass over a level
 * reads memory in order), the least count of its up links, the bit set of
 * the links holding it, the bit set of the links one above, and the counts
 * of the other links. When every up link is a candidate, the answer is the
 * lowest bit of the first set; counting the pick moves that bit to the
 * second set, and when the first set runs empty the second one takes its
 * place. The counts are only written and scanned for links two or more
 * above the least, which a complete tree never has.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftree/ftree.h"

/* A hash of the peers and ports of switch @s's up links, in port order. */
static uint64_t up_hash(const struct ft_model *m, uint32_t s)
{
	uint64_t h = 1469598103934665603ull;

	for (uint32_t e = ft_first(m, s, FT_UP); e < ft_end(m, s, FT_UP); e++)
		h = (h ^ ((uint64_t)m->links[e].peer << 8 | m->links[e].port)) * 1099511628211ull;
	return h;
}

/* Switches @a and @b have up links to the same peers through the same ports, in order. */
static int same_up(const struct ft_model *m, uint32_t a, uint32_t b)
{
	uint32_t ea = ft_first(m, a, FT_UP), eb = ft_first(m, b, FT_UP);
	uint32_t n = ft_end(m, a, FT_UP) - ea;

	if (ft_end(m, b, FT_UP) - eb != n)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (m->links[ea + i].peer != m->links[eb + i].peer ||
		    m->links[ea + i].port != m->links[eb + i].port)
			return 0;
	return 1;
}

struct up_key {
	uint32_t level;
	uint32_t sw;
	uint64_t hash;
};

static int cmp_up_key(const void *a, const void *b)
{
	const struct up_key *x = a, *y = b;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

/*
 * Switches with up links sorted by level, then by hash; a run of equal
 * hashes whose links match those of its first switch is one class (a hash
 * collision only costs a class). Fills mem, off, lvl; returns the count of
 * members, or UINT32_MAX when out of memory.
 */
static uint32_t sort_classes(struct ft_up *u, const struct ft_model *m)
{
	struct up_key *k = malloc(((size_t)m->nsw + 1) * sizeof(*k));
	uint32_t n = 0;

	if (!k)
		return UINT32_MAX;
	for (uint32_t s = 0; s < m->nsw; s++)
		if (m->level[s] && ft_first(m, s, FT_UP) < ft_end(m, s, FT_UP))
			k[n++] = (struct up_key){ m->level[s], s, up_hash(m, s) };
	qsort(k, n, sizeof(*k), cmp_up_key);
	for (uint32_t i = 0; i < n; i++) {
		u->mem[i] = k[i].sw;
		if (i && k[i].level == k[i - 1].level && k[i].hash == k[i - 1].hash &&
		    same_up(m, u->mem[u->off[u->ncls - 1]], k[i].sw))
			continue;
		u->off[u->ncls++] = i;
		u->lvl[k[i].level + 1] = u->ncls;
	}
	u->off[u->ncls] = n;
	for (uint32_t l = 1; l <= m->nlevels + 1; l++)
		u->lvl[l] = u->lvl[l] > u->lvl[l - 1] ? u->lvl[l] : u->lvl[l - 1];
	free(k);
	return n;
}

int ft_up_init(struct ft_up *u, const struct ft_model *m)
{
	size_t ns = (size_t)m->nsw + 1;
	uint32_t n, maxup = 0;

	memset(u, 0, sizeof(*u));
	u->m = m;
	u->mem = malloc(ns * sizeof(*u->mem));
	u->off = malloc((ns + 1) * sizeof(*u->off));
	u->lvl = calloc((size_t)m->nlevels + 2, sizeof(*u->lvl));
	u->base = malloc((ns + 1) * sizeof(*u->base));
	if (!u->mem || !u->off || !u->lvl || !u->base || (n = sort_classes(u, m)) == UINT32_MAX)
		goto fail;
	u->base[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = ft_end(m, u->mem[i], FT_UP) - ft_first(m, u->mem[i], FT_UP);

		u->base[i + 1] = u->base[i] + k;
		maxup = k > maxup ? k : maxup;
	}
	u->uw = (maxup + 63) / 64;
	u->cnt = calloc((size_t)u->base[n] + 1, sizeof(*u->cnt));
	u->least = calloc((size_t)n + 1, sizeof(*u->least));
	u->high = calloc((size_t)n + 1, sizeof(*u->high));
	u->mask = calloc((size_t)n * 2 * u->uw + 1, sizeof(*u->mask));
	u->cand = malloc(((size_t)maxup + 1) * sizeof(*u->cand));
	if (!u->cnt || !u->least || !u->high || !u->mask || !u->cand)
		goto fail;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < u->base[i + 1] - u->base[i]; j++)
			u->mask[(size_t)i * 2 * u->uw + j / 64] |= 1ull << j % 64;
	return 0;
fail:
	ft_up_fini(u);
	return -1;
}

void ft_up_fini(struct ft_up *u)
{
	free(u->mem);
	free(u->off);
	free(u->lvl);
	free(u->base);
	free(u->cnt);
	free(u->least);
	free(u->high);
	free(u->mask);
	free(u->cand);
	memset(u, 0, sizeof(*u));
}

void ft_up_advance(struct ft_up *u, uint32_t i)
{
	uint64_t *w = u->mask + (size_t)i * 2 * u->uw, *nx = w + u->uw;
	const uint32_t *c = u->cnt + u->base[i];

	u->least[i]++;
	for (uint32_t k = 0; k < u->uw; k++) {
		w[k] = nx[k];
		nx[k] = 0;
	}
	for (uint32_t j = 0; u->high[i] && j < u->base[i + 1] - u->base[i]; j++)
		if (!(w[j / 64] >> j % 64 & 1) && c[j] == u->least[i] + 1) {
			nx[j / 64] |= 1ull << j % 64;
			u->high[i]--;
		}
}

uint32_t ft_up_pick_some(const struct ft_up *u, uint32_t i, uint32_t n)
{
	uint32_t best = u->cand[0], cb = ft_up_value(u, i, best);

	for (uint32_t j = 1; j < n; j++) {
		uint32_t c = ft_up_value(u, i, u->cand[j]);

		if (c < cb) {
			best = u->cand[j];
			cb = c;
		}
	}
	return best;
}
