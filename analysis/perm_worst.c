/* SPDX-License-Identifier: MIT */
/**
 * DOC: WORST, the worst-case permutation load (papers/003)
 *
 * For every directed link, the machine pairs routed over it form a
 * bipartite graph (sources, destinations); the largest set of them in which
 * no source and no destination repeats - a maximum matching, found with
 * Hopcroft-Karp - is the worst any permutation can put on the link. A cheap
 * bound (distinct sources, distinct destinations) skips links that cannot
 * beat the best found so far.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/perm_impl.h"

/* --- WORST ----------------------------------------------------------------- */

/**
 * struct bip - one link's bipartite graph and Hopcroft-Karp's state
 * @lid, @rid: per machine, its left (source) / right (destination) vertex,
 *             valid when @lst / @rst equals @gen
 * @off, @adj: the edges by left vertex (CSR), @ne of them (room for @ecap)
 * @ml, @mr: the matching; @dist: BFS layers; @it: next edge to try;
 *        @queue, @stack: BFS queue, augmenting path
 * @est: per entry, stamp of the bound computation
 */
struct bip {
	uint32_t *block;
	uint32_t nl, nr, ne, ecap, gen;
	uint32_t *lid, *rid, *lst, *rst, *est;
	uint32_t *off, *adj;
	uint32_t *ml, *mr, *dist, *it, *queue, *stack;
	uint32_t *lk_off, *lk_keys;	/* per port slot: keys crossing it (CSR) */
};

static void bip_fini(struct bip *b)
{
	free(b->block);
	free(b->adj);
}

static int bip_init(struct bip *b, const struct perm *p)
{
	size_t n = (size_t)p->n + 1;
	const struct carve c[] = {
		{ &b->lid, n }, { &b->rid, n }, { &b->lst, n }, { &b->rst, n }, { &b->off, n + 1 },
		{ &b->ml, n }, { &b->mr, n }, { &b->dist, n }, { &b->it, n }, { &b->queue, n },
		{ &b->stack, n }, { &b->est, (size_t)p->nentries + 1 },
		{ &b->lk_off, (size_t)p->f->nports + 2 }, { &b->lk_keys, (size_t)p->nlinks + 1 },
	};

	memset(b, 0, sizeof(*b));
	b->block = perm_carve(c, sizeof(c) / sizeof(c[0]));
	return b->block ? 0 : -1;
}

/* Keys (key map indexes) crossing each port slot, in key order. */
static void index_links(struct bip *b, const struct perm *p)
{
	uint32_t nkeys = p->nentries * p->lids;

	for (uint32_t i = 0; i < p->nlinks; i++)
		b->lk_off[p->links[i] + 2]++;
	for (uint32_t s = 0; s < p->f->nports; s++)
		b->lk_off[s + 2] += b->lk_off[s + 1];
	for (uint32_t key = 0; key < nkeys; key++) {
		uint64_t v = p->keymap[key];

		for (uint32_t i = KEY_OFF(v); i < KEY_OFF(v) + KEY_LEN(v); i++)
			b->lk_keys[b->lk_off[p->links[i] + 1]++] = key;
	}
}

/* Destination machine of key map index @key. */
static uint32_t key_dst(const struct perm *p, uint32_t key)
{
	return p->ep_mach[fab_ep_by_lid(p->f, key % p->lids)];
}

/* min(destinations, sources of the entries) among the keys of one slot. */
static uint32_t link_bound(struct bip *b, const struct perm *p, const uint32_t *keys, uint32_t nk)
{
	uint32_t dsts = 0, srcs = 0;

	b->gen++;
	for (uint32_t i = 0; i < nk; i++) {
		uint32_t d = key_dst(p, keys[i]), e = keys[i] / p->lids;

		if (b->rst[d] != b->gen) {
			b->rst[d] = b->gen;
			dsts++;
		}
		if (b->est[e] != b->gen) {
			b->est[e] = b->gen;
			srcs += p->emach_off[e + 1] - p->emach_off[e];
		}
	}
	return dsts < srcs ? dsts : srcs;
}

/*
 * One pass over the pairs behind @keys: the first (@fill 0) numbers the
 * vertices and counts each left vertex's degree in @off, the second fills
 * @adj from the cursors in @it.
 */
static void graph_pass(struct bip *b, const struct perm *p, const uint32_t *keys, uint32_t nk,
		       int fill)
{
	for (uint32_t i = 0; i < nk; i++) {
		uint32_t d = key_dst(p, keys[i]), e = keys[i] / p->lids, dlid = keys[i] % p->lids;

		for (uint32_t j = p->emach_off[e]; j < p->emach_off[e + 1]; j++) {
			uint32_t s = p->emach[j];

			if (s == d || (p->r->dlid_off &&
				       rt_dlid(p->r, p->f, p->ep[s], p->ep[d]) != dlid))
				continue;
			if (fill) {
				b->adj[b->it[b->lid[s]]++] = b->rid[d];
				continue;
			}
			if (b->lst[s] != b->gen) {
				b->lst[s] = b->gen;
				b->lid[s] = b->nl++;
				b->off[b->nl] = 0;
			}
			if (b->rst[d] != b->gen) {
				b->rst[d] = b->gen;
				b->rid[d] = b->nr++;
			}
			b->off[b->lid[s] + 1]++;
			b->ne++;
		}
	}
}

/* The pairs behind @keys as a graph by left vertex (CSR). Return 0 or -1. */
static int build_graph(struct bip *b, const struct perm *p, const uint32_t *keys, uint32_t nk)
{
	b->gen++;
	b->nl = b->nr = b->ne = 0;
	b->off[0] = 0;
	graph_pass(b, p, keys, nk, 0);
	if (b->ne > b->ecap) {
		uint32_t *q = realloc(b->adj, (size_t)b->ne * sizeof(*q));

		if (!q)
			return -1;
		b->adj = q;
		b->ecap = b->ne;
	}
	for (uint32_t u = 0; u < b->nl; u++)
		b->off[u + 1] += b->off[u];
	memcpy(b->it, b->off, (size_t)b->nl * sizeof(*b->it));
	graph_pass(b, p, keys, nk, 1);
	return 0;
}

/* BFS layers from the free left vertices; 1 when a free right vertex is reachable. */
static int hk_bfs(struct bip *b)
{
	uint32_t qh = 0, qt = 0;
	int found = 0;

	for (uint32_t u = 0; u < b->nl; u++) {
		b->dist[u] = b->ml[u] == NONE ? 0 : NONE;
		if (b->ml[u] == NONE)
			b->queue[qt++] = u;
	}
	while (qh < qt) {
		uint32_t u = b->queue[qh++];

		for (uint32_t i = b->off[u]; i < b->off[u + 1]; i++) {
			uint32_t w = b->mr[b->adj[i]];

			if (w == NONE) {
				found = 1;
			} else if (b->dist[w] == NONE) {
				b->dist[w] = b->dist[u] + 1;
				b->queue[qt++] = w;
			}
		}
	}
	return found;
}

/*
 * Augment along the layers from free left vertex @root: a depth-first
 * search with an explicit stack of left vertices (depth up to the matching
 * size). @it[u] is the edge of u being tried; exhausted vertices leave the
 * layers. Return: 1 when the matching grew.
 */
static int hk_augment(struct bip *b, uint32_t root)
{
	uint32_t depth = 0;

	b->stack[depth++] = root;
	while (depth) {
		uint32_t u = b->stack[depth - 1], v, w;

		if (b->it[u] == b->off[u + 1]) {
			b->dist[u] = NONE;
			if (--depth)
				b->it[b->stack[depth - 1]]++;
			continue;
		}
		v = b->adj[b->it[u]];
		w = b->mr[v];
		if (w == NONE) {
			while (depth--) {
				u = b->stack[depth];
				v = b->adj[b->it[u]++];
				b->ml[u] = v;
				b->mr[v] = u;
			}
			return 1;
		}
		if (b->dist[w] != NONE && b->dist[w] == b->dist[u] + 1)
			b->stack[depth++] = w;
		else
			b->it[u]++;
	}
	return 0;
}

/* Hopcroft-Karp: O(E sqrt(V)); the first phase is a greedy matching. */
static uint32_t hk_match(struct bip *b)
{
	uint32_t m = 0, cap = b->nl < b->nr ? b->nl : b->nr;

	memset(b->ml, 0xff, (size_t)b->nl * sizeof(*b->ml));
	memset(b->mr, 0xff, (size_t)b->nr * sizeof(*b->mr));
	while (m < cap && hk_bfs(b)) {
		memcpy(b->it, b->off, (size_t)b->nl * sizeof(*b->it));
		for (uint32_t u = 0; u < b->nl; u++)
			if (b->ml[u] == NONE && hk_augment(b, u))
				m++;
	}
	return m;
}

/* Trace every machine pair; *@first gets the first source with a delivered pair. */
static int trace_all(struct perm *p, uint32_t *first)
{
	*first = NONE;
	for (uint32_t s = 0; s < p->n; s++)
		for (uint32_t d = 0; d < p->n; d++) {
			const uint32_t *links;
			uint32_t len;
			int rc = d == s ? 0 : perm_pair_get(p, s, d, &links, &len);

			if (rc < 0)
				return -1;
			if (rc && *first == NONE)
				*first = s;
		}
	return 0;
}

/* The best matching over the links leaving switches, in node and port order. */
static int match_links(struct perm *p, struct bip *b, struct an_perm *out)
{
	const struct fabric *f = p->f;

	for (uint32_t n = 0; n < f->nnodes; n++)
		for (unsigned port = 1; port <= f->nodes[n].nports; port++) {
			uint32_t s = slot_of(f, n, port), nk = b->lk_off[s + 1] - b->lk_off[s], m;
			const uint32_t *keys = b->lk_keys + b->lk_off[s];

			if (!nk || link_bound(b, p, keys, nk) <= out->worst)
				continue;
			if (build_graph(b, p, keys, nk))
				return -1;
			if ((b->nl < b->nr ? b->nl : b->nr) <= out->worst)
				continue;
			m = hk_match(b);
			if (m > out->worst) {
				out->worst = m;
				out->worst_node = n;
				out->worst_port = (uint8_t)port;
			}
		}
	return 0;
}

int perm_worst(struct perm *p, struct an_perm *out, struct fab_err *err)
{
	uint32_t first;
	struct bip b;
	int rc = -1;

	if (p->n > PERM_WORST_MAX) {
		fab_err_set(err, "WORST over %u machines would take too long: it matches the %llu "
			    "machine pairs link by link, which is done for up to %u machines; "
			    "sample ABB, AFPB and ADB instead", p->n,
			    (unsigned long long)p->n * (p->n - 1), PERM_WORST_MAX);
		return -1;
	}
	if (!trace_all(p, &first) && !bip_init(&b, p)) {
		if (first != NONE) {	/* a source's own link carries its pairs only */
			out->worst = 1;
			out->worst_node = p->f->eps[p->ep[first]].node;
			out->worst_port = p->f->eps[p->ep[first]].port;
		}
		index_links(&b, p);
		rc = match_links(p, &b, out);
		bip_fini(&b);
	}
	if (rc)
		perm_oom(p, err, "WORST");
	return rc;
}
