/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - parallel cables in path selection
 *
 * Two switches are often joined by several cables (six from each leaf to
 * each spine of a real EDR tree). Enumerated port by port, the shortest
 * legal paths of a leaf pair are then the 6 x 6 cable combinations through
 * the first spine before any through the second: the 16 candidates of
 * papers/002's path selection all cross one spine on one or two cables,
 * and most-loaded-link-first has nothing to balance.
 *
 * Path selection therefore works on bundles: the cables between two
 * switches are one link of the switch graph (its lowest port stands for
 * it) whose capacity is their number, and most-loaded-link-first compares
 * loads per cable (load / cables). The paths chosen are then spread over
 * the cables of each bundle destination by destination: all the paths to
 * one destination that cross a bundle take the same cable (so the cables
 * add no LID: paths to a destination that leave a switch by different
 * ports need different LIDs, and these leave it by one), and a bundle's
 * destinations go, heaviest first (the most paths), each to the cable with
 * the fewest paths so far (ties: the lowest port). Without parallel cables
 * nothing changes.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/lidassign/la_impl.h"

void la_bundle_free(struct la_bundle *b)
{
	free(b->ub.adj.off);
	free(b->ub.adj.peer);
	free(b->ub.adj.port);
	free(b->mult);
	free(b->poff);
	free(b->ports);
	free(b->linkof);
	memset(b, 0, sizeof(*b));
}

/* Count the bundles of every switch (one per distinct peer); 1 when some has two cables or more. */
static int count(const struct la_updn *u, uint32_t ns, uint32_t *nb)
{
	int any = 0;

	*nb = 0;
	for (uint32_t s = 0; s < ns; s++)
		for (uint32_t k = u->adj.off[s]; k < u->adj.off[s + 1]; k++) {
			uint32_t j = u->adj.off[s];

			while (j < k && u->adj.peer[j] != u->adj.peer[k])
				j++;
			*nb += j == k;
			any |= j < k;
		}
	return any;
}

int la_bundle_init(struct la_bundle *b, const struct la_ctx *c, struct fab_err *err)
{
	const struct la_updn *u = c->u;
	uint32_t ns = c->ns, nb, n = 0, np = 0;

	memset(b, 0, sizeof(*b));
	if (!count(u, ns, &nb))
		return 0;
	b->ub = *u;
	b->ub.adj.off = malloc(((size_t)ns + 1) * sizeof(uint32_t));
	b->ub.adj.peer = malloc(((size_t)nb + 1) * sizeof(uint32_t));
	b->ub.adj.port = malloc((size_t)nb + 1);
	b->mult = malloc(((size_t)nb + 1) * sizeof(*b->mult));
	b->poff = malloc(((size_t)nb + 2) * sizeof(*b->poff));
	b->ports = malloc((size_t)u->adj.off[ns] + 1);
	b->linkof = malloc(((size_t)ns * c->nports + 1) * sizeof(*b->linkof));
	if (!b->ub.adj.off || !b->ub.adj.peer || !b->ub.adj.port || !b->mult || !b->poff ||
	    !b->ports || !b->linkof) {
		la_bundle_free(b);
		fab_err_set(err, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < (size_t)ns * c->nports; i++)
		b->linkof[i] = UINT32_MAX;
	for (uint32_t s = 0; s < ns; s++) {
		b->ub.adj.off[s] = n;
		for (uint32_t k = u->adj.off[s]; k < u->adj.off[s + 1]; k++) {
			uint32_t j = u->adj.off[s];

			while (j < k && u->adj.peer[j] != u->adj.peer[k])
				j++;
			if (j < k)
				continue;	/* a later cable of a bundle already made */
			b->ub.adj.peer[n] = u->adj.peer[k];
			b->ub.adj.port[n] = u->adj.port[k];
			b->linkof[(size_t)s * c->nports + u->adj.port[k]] = n;
			b->poff[n] = np;
			for (uint32_t q = k; q < u->adj.off[s + 1]; q++)
				if (u->adj.peer[q] == u->adj.peer[k])
					b->ports[np++] = u->adj.port[q];
			b->mult[n] = np - b->poff[n];
			n++;
		}
	}
	b->ub.adj.off[ns] = n;
	b->poff[n] = np;
	b->nlinks = n;
	b->any = 1;
	return 0;
}

struct la_use {
	uint64_t key;		/* bundle << 32 | destination machine */
	uint32_t paths;
	uint8_t port;
};

static int cmp_key(const void *a, const void *b)
{
	const struct la_use *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* Within a bundle: the most paths first, then the lower destination. */
static int cmp_weight(const void *a, const void *b)
{
	const struct la_use *x = *(const struct la_use *const *)a, *y = *(const struct la_use *const *)b;

	if (x->paths != y->paths)
		return x->paths > y->paths ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Each (bundle, destination) of @v (@n of them, sorted by key) gets a cable. */
static int assign(const struct la_bundle *b, struct la_use *v, size_t n)
{
	struct la_use **by = malloc((n + 1) * sizeof(*by));
	uint64_t *load = calloc(256, sizeof(*load));

	if (!by || !load) {
		free(by);
		free(load);
		return -1;
	}
	for (size_t i = 0; i < n;) {
		uint32_t l = (uint32_t)(v[i].key >> 32), m = b->mult[l];
		size_t j = i, k;

		while (j < n && v[j].key >> 32 == l)
			j++;
		for (k = i; k < j; k++)
			by[k - i] = &v[k];
		qsort(by, j - i, sizeof(*by), cmp_weight);
		memset(load, 0, m * sizeof(*load));
		for (k = 0; k < j - i; k++) {
			uint32_t best = 0;

			for (uint32_t c = 1; c < m; c++)
				if (load[c] < load[best])
					best = c;
			load[best] += by[k]->paths;
			by[k]->port = b->ports[b->poff[l] + best];
		}
		i = j;
	}
	free(by);
	free(load);
	return 0;
}

/* Append (bundle, @dst, paths) for each bundle @tl lists (@nt of them) with its count in @cnt, then clear it. */
static int spread_dest(struct la_use **v, size_t *n, size_t *cap,
		       uint32_t *cnt, const uint32_t *tl, uint32_t nt, uint32_t dst)
{
	for (uint32_t t = 0; t < nt; t++) {
		if (*n == *cap) {
			struct la_use *nv = realloc(*v, (*cap = *cap ? 2 * *cap : 4096) * sizeof(**v));

			if (!nv)
				return -1;
			*v = nv;
		}
		(*v)[(*n)++] = (struct la_use){ .key = (uint64_t)tl[t] << 32 | dst, .paths = cnt[tl[t]] };
		cnt[tl[t]] = 0;
	}
	return 0;
}

/*
 * Destination by destination, the paths crossing each multi-cable bundle
 * are counted in a per-bundle array: memory in (bundle, destination)
 * entries, never one per path hop.
 */
int la_bundle_spread(const struct la_bundle *b, const struct la_ctx *c, struct la_spread *sp,
		     la_bundle_path_fn path, void *arg)
{
	struct la_use *v = NULL;
	uint32_t *cnt = calloc((size_t)b->nlinks + 1, sizeof(*cnt));
	uint32_t *tl = malloc(((size_t)b->nlinks + 1) * sizeof(*tl));
	size_t n = 0, cap = 0;
	uint32_t m = c->nca;
	int rc = cnt && tl ? 0 : -1;

	memset(sp, 0, sizeof(*sp));
	for (uint32_t d = 0; !rc && m >= 2 && d < m; d++) {
		uint32_t nt = 0;

		for (uint32_t s = 0; s < m; s++) {
			const struct la_hop *h;
			uint32_t len = s == d ? 0 : path(arg, s * (m - 1) + (d > s ? d - 1 : d), &h);

			for (uint32_t i = 0; i < len; i++) {
				uint32_t l = b->linkof[(size_t)h[i].node * c->nports + h[i].port];

				if (l == UINT32_MAX || b->mult[l] < 2)
					continue;
				if (!cnt[l]++)
					tl[nt++] = l;
			}
		}
		rc = spread_dest(&v, &n, &cap, cnt, tl, nt, d);
	}
	free(cnt);
	free(tl);
	if (!rc && n)
		qsort(v, n, sizeof(*v), cmp_key);
	if (rc || assign(b, v, n)) {
		free(v);
		return -1;
	}
	sp->v = v;
	sp->n = n;
	return 0;
}

unsigned la_bundle_port(const struct la_bundle *b, const struct la_ctx *c,
			const struct la_spread *sp, const struct la_hop *h, uint32_t dst)
{
	uint32_t l = b->linkof[(size_t)h->node * c->nports + h->port];
	uint64_t key;
	size_t lo = 0, hi = sp->n;

	if (l == UINT32_MAX || b->mult[l] < 2)
		return h->port;
	key = (uint64_t)l << 32 | dst;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (sp->v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sp->n && sp->v[lo].key == key ? sp->v[lo].port : h->port;
}

void la_spread_free(struct la_spread *sp)
{
	free(sp->v);
	memset(sp, 0, sizeof(*sp));
}
