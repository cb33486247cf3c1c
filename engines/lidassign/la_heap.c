/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - the two heaps of most-loaded-link-first
 *
 * Path selection (engines/lidassign/la_mllf.c) keeps, per link, a min-heap
 * of 64-bit keys (the candidates crossing it that may still go, the first
 * to go on top), and over the links that still have keys a max-heap by
 * load per cable (ties: the lower link index) whose top is the link that
 * loses a candidate next. A link's place in the second heap is kept, so a
 * load that changed moves its link at once.
 */
#include <stdlib.h>

#include "engines/lidassign/la_impl.h"

int la_keys_push(struct la_keys *h, uint64_t key)
{
	uint32_t i;

	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 8;
		uint64_t *e = realloc(h->e, cap * sizeof(*e));

		if (!e)
			return -1;
		h->e = e;
		h->cap = cap;
	}
	for (i = h->n++; i && h->e[(i - 1) / 2] > key; i = (i - 1) / 2)
		h->e[i] = h->e[(i - 1) / 2];
	h->e[i] = key;
	return 0;
}

void la_keys_pop(struct la_keys *h)
{
	uint64_t x = h->e[--h->n];
	uint32_t i = 0;

	for (;;) {
		uint32_t a = 2 * i + 1, m = a;

		if (a >= h->n)
			break;
		if (a + 1 < h->n && h->e[a + 1] < h->e[a])
			m = a + 1;
		if (h->e[m] >= x)
			break;
		h->e[i] = h->e[m];
		i = m;
	}
	if (h->n)
		h->e[i] = x;
}

int la_links_init(struct la_links *g, uint32_t nlinks, const uint64_t *load, const uint32_t *mult)
{
	g->load = load;
	g->mult = mult;
	g->n = 0;
	g->h = malloc(((size_t)nlinks + 1) * sizeof(*g->h));
	g->pos = malloc(((size_t)nlinks + 1) * sizeof(*g->pos));
	if (!g->h || !g->pos)
		return -1;
	for (uint32_t l = 0; l < nlinks; l++)
		g->pos[l] = UINT32_MAX;
	return 0;
}

void la_links_free(struct la_links *g)
{
	free(g->h);
	free(g->pos);
	g->h = g->pos = NULL;
	g->n = 0;
}

/* Is link @x above link @y: more load per cable, then the lower index. */
static int above(const struct la_links *g, uint32_t x, uint32_t y)
{
	uint64_t lx = g->load[x], ly = g->load[y];

	if (g->mult) {		/* load per cable: compare lx / mx with ly / my */
		lx *= g->mult[y];
		ly *= g->mult[x];
	}
	return lx != ly ? lx > ly : x < y;
}

static void swap(struct la_links *g, uint32_t i, uint32_t j)
{
	uint32_t t = g->h[i];

	g->h[i] = g->h[j];
	g->h[j] = t;
	g->pos[g->h[i]] = i;
	g->pos[g->h[j]] = j;
}

void la_links_fix(struct la_links *g, uint32_t l)
{
	uint32_t i = g->pos[l];

	if (i == UINT32_MAX)
		return;
	while (i && above(g, g->h[i], g->h[(i - 1) / 2])) {
		swap(g, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		uint32_t a = 2 * i + 1, b = a + 1, m = i;

		if (a < g->n && above(g, g->h[a], g->h[m]))
			m = a;
		if (b < g->n && above(g, g->h[b], g->h[m]))
			m = b;
		if (m == i)
			return;
		swap(g, i, m);
		i = m;
	}
}

void la_links_add(struct la_links *g, uint32_t l)
{
	g->h[g->n] = l;
	g->pos[l] = g->n++;
	la_links_fix(g, l);
}

void la_links_remove(struct la_links *g, uint32_t l)
{
	uint32_t i = g->pos[l], last = g->h[--g->n];

	g->pos[l] = UINT32_MAX;
	if (last == l)
		return;
	g->h[i] = last;
	g->pos[last] = i;
	la_links_fix(g, last);
}
