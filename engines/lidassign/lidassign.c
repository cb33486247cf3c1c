/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - configurations for one destination (papers/002 §2, §4)
 *
 * Split (Def. 1, Lemma 1): two paths to one destination split when some
 * node on both sends them out by different ports. Only the nodes a path
 * lists count: the fabric layer lists switches, so two paths leaving one CA
 * by different ports never split (a CA has no forwarding table).
 *
 * The heuristics, each deterministic and each returning a minimal
 * configuration set (Def. 4), which la_check() verifies:
 *
 *  - greedy (Fig. 5): configuration after configuration, every path not yet
 *    placed joins the current one if it splits with none of its paths, in
 *    input order (first fit). A configuration is kept as the port each node
 *    sends it out by, so a test costs the length of the path;
 *  - split-merge (Fig. 7): one item holding every path; nodes are visited
 *    by the number of paths through them (s-m/S fewest first, s-m/L most
 *    first, ties to the lower node); at a node, an item whose paths leave it
 *    by two or more ports is replaced, in place, by one part per port
 *    (ascending) and one part of the paths not crossing it; an item whose
 *    paths leave it by at most one port stays whole. Every item is then a
 *    configuration; greedy merges the items, an item as one unit;
 *  - colouring (§4.3): the split graph is coloured one colour at a time;
 *    in a round every vertex not yet coloured is a candidate; the vertex of
 *    largest (color/L) or smallest (color/S) degree is coloured and its
 *    neighbours stop being candidates, until none is left; the degree is
 *    the vertex's degree among the vertices uncoloured when the round
 *    began, fixed for the round (with @dynamic: among the candidates still
 *    left), ties to the lower path. On the example of Fig. 8 color/L gives
 *    {p2, p3}, {p1, p4} as the paper does.
 *
 * Minimality holds by construction: a path (or item) that went to a later
 * configuration was refused by every earlier one, which only grew since.
 *
 * The split graph is a bit matrix: 32 KiB for 511 paths. It is built per
 * node from the (node, port, path) triples sorted, setting the edges
 * between paths of different ports only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/lidassign/lidassign.h"

static const char *const heur_names[LA_NHEUR] = { "greedy", "sm-s", "sm-l", "color-s", "color-l" };

const char *la_heur_name(enum la_heur h)
{
	return (unsigned)h < LA_NHEUR ? heur_names[h] : "?";
}

int la_heur_parse(const char *name)
{
	for (int i = 0; i < (int)LA_NHEUR; i++)
		if (!strcmp(heur_names[i], name))
			return i;
	return -1;
}

unsigned la_lmc(uint32_t k)
{
	unsigned l = 0;

	while (l < 31 && (1u << l) < k)
		l++;
	return l;
}

int la_split(const struct la_rd *r, uint32_t a, uint32_t b, uint32_t *at)
{
	for (uint32_t i = 0; i < r->len[a]; i++)
		for (uint32_t j = 0; j < r->len[b]; j++)
			if (r->p[a][i].node == r->p[b][j].node) {
				if (r->p[a][i].port == r->p[b][j].port)
					break;
				if (at)
					*at = r->p[a][i].node;
				return 1;
			}
	return 0;
}

/* --- (node, port, path) triples -------------------------------------------------- */

struct triple {
	uint32_t node, port, path;
};

static int cmp_triple(const void *x, const void *y)
{
	const struct triple *a = x, *b = y;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	return a->path < b->path ? -1 : a->path > b->path;
}

/* Every hop of @r as a triple, sorted; *@nt gets their count. NULL when out of memory. */
static struct triple *triples(const struct la_rd *r, size_t *nt)
{
	size_t n = 0;
	struct triple *t;

	for (uint32_t i = 0; i < r->n; i++)
		n += r->len[i];
	t = malloc((n + 1) * sizeof(*t));
	if (!t)
		return NULL;
	n = 0;
	for (uint32_t i = 0; i < r->n; i++)
		for (uint32_t h = 0; h < r->len[i]; h++)
			t[n++] = (struct triple){ r->p[i][h].node, r->p[i][h].port, i };
	qsort(t, n, sizeof(*t), cmp_triple);
	*nt = n;
	return t;
}

uint32_t la_lower_bound(const struct la_rd *r)
{
	size_t nt, i = 0;
	struct triple *t = triples(r, &nt);
	uint32_t best = r->n ? 1 : 0;

	if (!t)
		return best;
	while (i < nt) {
		uint32_t ports = 1;
		size_t j = i + 1;

		for (; j < nt && t[j].node == t[i].node; j++)
			ports += t[j].port != t[j - 1].port;
		if (ports > best)
			best = ports;
		i = j;
	}
	free(t);
	return best;
}

/* --- the split graph ----------------------------------------------------------------- */

static int graph_alloc(uint32_t n, struct la_graph *g)
{
	memset(g, 0, sizeof(*g));
	g->n = n;
	g->words = (n + 63) / 64;
	g->adj = calloc((size_t)n * g->words + 1, sizeof(*g->adj));
	g->deg = calloc((size_t)n + 1, sizeof(*g->deg));
	if (g->adj && g->deg)
		return 0;
	la_graph_free(g);
	return -1;
}

static void graph_edge(struct la_graph *g, uint32_t a, uint32_t b)
{
	g->adj[(size_t)a * g->words + b / 64] |= 1ull << (b % 64);
	g->adj[(size_t)b * g->words + a / 64] |= 1ull << (a % 64);
}

static void graph_degrees(struct la_graph *g)
{
	g->edges = 0;
	for (uint32_t v = 0; v < g->n; v++) {
		uint32_t d = 0;

		for (uint32_t w = 0; w < g->words; w++)
			d += (uint32_t)__builtin_popcountll(g->adj[(size_t)v * g->words + w]);
		g->deg[v] = d;
		g->edges += d;
	}
	g->edges /= 2;
}

void la_graph_free(struct la_graph *g)
{
	free(g->adj);
	free(g->deg);
	memset(g, 0, sizeof(*g));
}

int la_graph_from_edges(uint32_t n, const uint32_t (*e)[2], size_t ne, struct la_graph *g)
{
	if (graph_alloc(n, g))
		return -1;
	for (size_t i = 0; i < ne; i++)
		if (e[i][0] != e[i][1] && e[i][0] < n && e[i][1] < n)
			graph_edge(g, e[i][0], e[i][1]);
	graph_degrees(g);
	return 0;
}

int la_graph_build(const struct la_rd *r, struct la_graph *g)
{
	size_t nt, i = 0;
	struct triple *t;

	if (graph_alloc(r->n, g))
		return -1;
	t = triples(r, &nt);
	if (!t) {
		la_graph_free(g);
		return -1;
	}
	while (i < nt) {
		size_t j = i;

		while (j < nt && t[j].node == t[i].node)
			j++;
		/* t[i..j): one node, by port; edges between different ports only */
		for (size_t a = i; a < j; a++)
			for (size_t b = a + 1; b < j; b++)
				if (t[b].port != t[a].port)
					graph_edge(g, t[a].path, t[b].path);
		i = j;
	}
	free(t);
	graph_degrees(g);
	return 0;
}

/* --- greedy over items ---------------------------------------------------------------- */

/*
 * struct cfg - the configuration being filled: the port each node sends it
 * out by, valid where stamp[node] equals the round
 */
struct cfg {
	uint32_t *out, *stamp, round;
};

static int fits(const struct la_rd *r, const struct cfg *c, uint32_t path)
{
	for (uint32_t h = 0; h < r->len[path]; h++) {
		const struct la_hop *x = &r->p[path][h];

		if (c->stamp[x->node] == c->round && c->out[x->node] != x->port)
			return 0;
	}
	return 1;
}

static void put(const struct la_rd *r, struct cfg *c, uint32_t path)
{
	for (uint32_t h = 0; h < r->len[path]; h++) {
		const struct la_hop *x = &r->p[path][h];

		c->stamp[x->node] = c->round;
		c->out[x->node] = x->port;
	}
}

/*
 * First fit of items: item i is the paths order[start[i] .. start[i + 1]),
 * each a configuration; @nitems of them. Colours every path, *@k gets the
 * count. @left holds nitems entries. Return 0 or -1.
 */
static int greedy_items(const struct la_rd *r, const uint32_t *order, const uint32_t *start,
			uint32_t nitems, uint32_t *colour, uint32_t *k)
{
	struct cfg c = { .round = 0 };
	uint32_t *left = malloc(((size_t)nitems + 1) * sizeof(*left)), nleft = nitems;

	c.out = calloc((size_t)r->nnodes + 1, sizeof(*c.out));
	c.stamp = calloc((size_t)r->nnodes + 1, sizeof(*c.stamp));
	if (!left || !c.out || !c.stamp) {
		free(left);
		free(c.out);
		free(c.stamp);
		return -1;
	}
	for (uint32_t i = 0; i < nitems; i++)
		left[i] = i;
	*k = 0;
	while (nleft) {
		uint32_t kept = 0;

		c.round++;
		for (uint32_t i = 0; i < nleft; i++) {
			uint32_t it = left[i], s = start[it], e = start[it + 1], m = s;

			while (m < e && fits(r, &c, order[m]))
				m++;
			if (m < e) {
				left[kept++] = it;
				continue;
			}
			for (m = s; m < e; m++) {
				put(r, &c, order[m]);
				colour[order[m]] = *k;
			}
		}
		nleft = kept;
		++*k;
	}
	free(left);
	free(c.out);
	free(c.stamp);
	return 0;
}

static int greedy(const struct la_rd *r, uint32_t *colour, uint32_t *k)
{
	uint32_t *order = malloc(((size_t)r->n + 1) * sizeof(*order));
	uint32_t *start = malloc(((size_t)r->n + 2) * sizeof(*start));
	int rc = -1;

	if (order && start) {
		for (uint32_t i = 0; i <= r->n; i++) {
			order[i] = i;
			start[i] = i;
		}
		rc = greedy_items(r, order, start, r->n, colour, k);
	}
	free(order);
	free(start);
	return rc;
}

/* --- split-merge ----------------------------------------------------------------------- */

struct sm {
	const struct la_rd *r;
	uint32_t *order, *start, nitems;	/* items, as in greedy_items() */
	uint32_t *order2, *start2;		/* the next split's result */
	struct triple *key;			/* one item's members with their port */
};

/* The port path @p leaves node @a by; UINT32_MAX when it does not cross @a. */
static uint32_t port_at(const struct la_rd *r, uint32_t p, uint32_t a)
{
	for (uint32_t h = 0; h < r->len[p]; h++)
		if (r->p[p][h].node == a)
			return r->p[p][h].port;
	return UINT32_MAX;
}

static int cmp_key(const void *x, const void *y)
{
	const struct triple *a = x, *b = y;

	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	return a->node < b->node ? -1 : a->node > b->node;	/* node: position in the item */
}

/* Split every item at node @a (Fig. 7 lines 4-7). */
static void sm_split(struct sm *s, uint32_t a)
{
	uint32_t n2 = 0, pos = 0, *t;

	for (uint32_t it = 0; it < s->nitems; it++) {
		uint32_t b = s->start[it], e = s->start[it + 1], ports = 0, last = UINT32_MAX;

		for (uint32_t m = b; m < e; m++) {
			uint32_t port = port_at(s->r, s->order[m], a);

			s->key[m - b] = (struct triple){ m - b, port, s->order[m] };
		}
		qsort(s->key, e - b, sizeof(*s->key), cmp_key);
		for (uint32_t m = 0; m < e - b; m++)
			if (s->key[m].port != UINT32_MAX && s->key[m].port != last) {
				ports++;
				last = s->key[m].port;
			}
		if (ports <= 1) {
			s->start2[n2++] = pos;
			for (uint32_t m = b; m < e; m++)
				s->order2[pos++] = s->order[m];
			continue;
		}
		for (uint32_t m = 0; m < e - b; m++) {
			if (!m || s->key[m].port != s->key[m - 1].port)
				s->start2[n2++] = pos;
			s->order2[pos++] = s->key[m].path;
		}
	}
	s->start2[n2] = pos;
	s->nitems = n2;
	t = s->order;
	s->order = s->order2;
	s->order2 = t;
	t = s->start;
	s->start = s->start2;
	s->start2 = t;
}

struct use {
	uint32_t node, count;
};

static int cmp_use_s(const void *x, const void *y)
{
	const struct use *a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	return a->node < b->node ? -1 : a->node > b->node;
}

static int cmp_use_l(const void *x, const void *y)
{
	const struct use *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->node < b->node ? -1 : a->node > b->node;
}

/* The nodes the paths cross with their use counts, in visiting order; *@nu their count. */
static struct use *sm_nodes(const struct la_rd *r, int largest, uint32_t *nu)
{
	size_t nt;
	struct triple *t = triples(r, &nt);
	struct use *u = t ? malloc((nt + 1) * sizeof(*u)) : NULL;
	uint32_t n = 0;

	if (!u) {
		free(t);
		return NULL;
	}
	for (size_t i = 0; i < nt; i++) {
		if (!n || u[n - 1].node != t[i].node)
			u[n++] = (struct use){ t[i].node, 0 };
		u[n - 1].count++;
	}
	free(t);
	qsort(u, n, sizeof(*u), largest ? cmp_use_l : cmp_use_s);
	*nu = n;
	return u;
}

static int split_merge(const struct la_rd *r, int largest, uint32_t *colour, uint32_t *k)
{
	size_t n = (size_t)r->n + 2;
	struct sm s = { .r = r, .nitems = r->n ? 1 : 0 };
	uint32_t nu = 0;
	struct use *u = sm_nodes(r, largest, &nu);
	int rc = -1;

	s.order = malloc(n * sizeof(*s.order));
	s.order2 = malloc(n * sizeof(*s.order2));
	s.start = malloc(n * sizeof(*s.start));
	s.start2 = malloc(n * sizeof(*s.start2));
	s.key = malloc(n * sizeof(*s.key));
	if (u && s.order && s.order2 && s.start && s.start2 && s.key) {
		for (uint32_t i = 0; i < r->n; i++)
			s.order[i] = i;
		s.start[0] = 0;
		s.start[1] = r->n;
		for (uint32_t i = 0; i < nu; i++)
			sm_split(&s, u[i].node);
		rc = greedy_items(r, s.order, s.start, s.nitems, colour, k);
	}
	free(u);
	free(s.order);
	free(s.order2);
	free(s.start);
	free(s.start2);
	free(s.key);
	return rc;
}

/* --- colouring the split graph ----------------------------------------------------------- */

/* The candidate of @cand (bit set) with the best @deg; ties to the lower index. */
static uint32_t pick(const uint64_t *cand, uint32_t words, const uint32_t *deg, int largest)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t w = 0; w < words; w++)
		for (uint64_t b = cand[w]; b; b &= b - 1) {
			uint32_t v = w * 64 + (uint32_t)__builtin_ctzll(b);

			if (best == UINT32_MAX || (largest ? deg[v] > deg[best] : deg[v] < deg[best]))
				best = v;
		}
	return best;
}

/* Drop @v from the candidates; with @dyn, its candidate neighbours lose a degree. */
static void drop(const struct la_graph *g, uint64_t *cand, uint32_t v, uint32_t *deg, int dyn)
{
	if (!(cand[v / 64] >> (v % 64) & 1))
		return;
	cand[v / 64] &= ~(1ull << (v % 64));
	if (!dyn)
		return;
	for (uint32_t w = 0; w < g->words; w++)
		for (uint64_t b = cand[w] & g->adj[(size_t)v * g->words + w]; b; b &= b - 1)
			deg[w * 64 + (uint32_t)__builtin_ctzll(b)]--;
}

/* One round: colour @k a maximal independent set of the uncoloured @unc. */
static void colour_round(const struct la_graph *g, uint64_t *unc, uint64_t *cand, uint32_t *deg,
			 int largest, int dyn, uint32_t k, uint32_t *colour)
{
	const uint64_t *adj;
	uint32_t v;

	memcpy(cand, unc, g->words * sizeof(*cand));
	for (uint32_t w = 0; w < g->words; w++)
		for (uint64_t b = unc[w]; b; b &= b - 1) {
			uint32_t x = w * 64 + (uint32_t)__builtin_ctzll(b), d = 0;

			for (uint32_t y = 0; y < g->words; y++)
				d += (uint32_t)__builtin_popcountll(g->adj[(size_t)x * g->words + y] & unc[y]);
			deg[x] = d;
		}
	while ((v = pick(cand, g->words, deg, largest)) != UINT32_MAX) {
		colour[v] = k;
		unc[v / 64] &= ~(1ull << (v % 64));
		drop(g, cand, v, deg, dyn);
		adj = g->adj + (size_t)v * g->words;
		for (uint32_t w = 0; w < g->words; w++)
			for (uint64_t b = cand[w] & adj[w]; b; b &= b - 1)
				drop(g, cand, w * 64 + (uint32_t)__builtin_ctzll(b), deg, dyn);
	}
}

static int colour_graph(const struct la_rd *r, int largest, int dyn, uint32_t *colour,
			uint32_t *k)
{
	struct la_graph g;
	uint64_t *unc, *cand;
	uint32_t *deg;
	int rc = -1;

	if (la_graph_build(r, &g))
		return -1;
	unc = calloc((size_t)g.words + 1, sizeof(*unc));
	cand = calloc((size_t)g.words + 1, sizeof(*cand));
	deg = calloc((size_t)g.n + 1, sizeof(*deg));
	if (unc && cand && deg) {
		for (uint32_t v = 0; v < g.n; v++)
			unc[v / 64] |= 1ull << (v % 64);
		for (*k = 0; pick(unc, g.words, deg, 0) != UINT32_MAX; ++*k)
			colour_round(&g, unc, cand, deg, largest, dyn, *k, colour);
		rc = 0;
	}
	free(unc);
	free(cand);
	free(deg);
	la_graph_free(&g);
	return rc;
}

int la_colour(const struct la_rd *r, const struct la_opts *o, uint32_t *colour, uint32_t *k)
{
	*k = 0;
	if (!r->n)
		return 0;
	switch (o->heur) {
	case LA_SM_S:
	case LA_SM_L:
		return split_merge(r, o->heur == LA_SM_L, colour, k);
	case LA_COLOR_S:
	case LA_COLOR_L:
		return colour_graph(r, o->heur == LA_COLOR_L, o->dynamic, colour, k);
	default:
		return greedy(r, colour, k);
	}
}

/* --- checks ------------------------------------------------------------------------------- */

int la_check(const struct la_graph *g, const uint32_t *colour, uint32_t k, char *why, size_t len)
{
	uint32_t words = g->words;
	uint64_t *cls = calloc((size_t)k * words + 1, sizeof(*cls));
	uint64_t *nb = calloc((size_t)words + 1, sizeof(*nb));
	int rc = -1;

	if (!cls || !nb) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	for (uint32_t v = 0; v < g->n; v++) {
		if (colour[v] >= k) {
			snprintf(why, len, "path %u has configuration %u of %u", v, colour[v], k);
			goto out;
		}
		cls[(size_t)colour[v] * words + v / 64] |= 1ull << (v % 64);
	}
	for (uint32_t c = 0; c < k; c++) {
		const uint64_t *cc = cls + (size_t)c * words;
		uint32_t any = 0;

		memset(nb, 0, words * sizeof(*nb));
		for (uint32_t w = 0; w < words; w++)
			for (uint64_t b = cc[w]; b; b &= b - 1) {
				const uint64_t *a = g->adj + (size_t)(w * 64 + (uint32_t)__builtin_ctzll(b)) * words;

				any = 1;
				for (uint32_t y = 0; y < words; y++)
					nb[y] |= a[y];
			}
		if (!any) {
			snprintf(why, len, "configuration %u is empty", c);
			goto out;
		}
		for (uint32_t w = 0; w < words; w++)
			if (nb[w] & cc[w]) {
				snprintf(why, len, "configuration %u holds two paths that split", c);
				goto out;
			}
		for (uint32_t d = c + 1; d < k; d++) {
			const uint64_t *cd = cls + (size_t)d * words;
			uint64_t hit = 0;

			for (uint32_t w = 0; w < words && !hit; w++)
				hit = nb[w] & cd[w];
			if (!hit) {
				snprintf(why, len, "configurations %u and %u could merge (no split "
					 "between them): not a minimal configuration set", c, d);
				goto out;
			}
		}
	}
	rc = 0;
out:
	free(cls);
	free(nb);
	return rc;
}
