/* SPDX-License-Identifier: MIT */
/**
 * DOC: dependency graphs
 *
 * An edge set built incrementally (open addressing, grown at half load),
 * turned into a compact CSR graph (nodes in id order, each node's
 * successors in id order: the graph does not depend on the order the
 * edges came in), and two searches on it: an iterative
 * depth-first search that returns one cycle within a class of nodes, and
 * Tarjan's strongly connected components, iterative too (paths in big
 * fabrics are short, but dependency chains need not be, so no recursion);
 * and the longest-path layers of an acyclic graph (Kahn's order).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/graph.h"

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int an_edges_init(struct an_edges *e)
{
	e->cap = 1 << 16;
	e->n = 0;
	e->keys = calloc(e->cap, sizeof(*e->keys));
	return e->keys ? 0 : -1;
}

void an_edges_free(struct an_edges *e)
{
	free(e->keys);
	e->keys = NULL;
	e->cap = e->n = 0;
}

static void insert(uint64_t *keys, size_t cap, uint64_t k)
{
	size_t i = mix(k) & (cap - 1);

	while (keys[i] && keys[i] != k)
		i = (i + 1) & (cap - 1);
	keys[i] = k;
}

static int grow(struct an_edges *e)
{
	size_t cap = e->cap * 2;
	uint64_t *keys = calloc(cap, sizeof(*keys));

	if (!keys)
		return -1;
	for (size_t i = 0; i < e->cap; i++)
		if (e->keys[i])
			insert(keys, cap, e->keys[i]);
	free(e->keys);
	e->keys = keys;
	e->cap = cap;
	return 0;
}

int an_edges_add(struct an_edges *e, uint32_t from, uint32_t to)
{
	uint64_t k = (uint64_t)from << 32 | to;
	size_t i = mix(k) & (e->cap - 1);

	while (e->keys[i]) {
		if (e->keys[i] == k)
			return 0;
		i = (i + 1) & (e->cap - 1);
	}
	e->keys[i] = k;
	if (++e->n * 2 > e->cap)
		return grow(e);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

void an_graph_free(struct an_graph *g)
{
	free(g->id);
	free(g->off);
	free(g->adj);
	memset(g, 0, sizeof(*g));
}

int an_graph_build(struct an_graph *g, const struct an_edges *e, const uint8_t *used, size_t nids)
{
	uint32_t *index = malloc((nids + 1) * sizeof(*index));
	memset(g, 0, sizeof(*g));
	if (!index)
		return -1;
	for (size_t i = 0; i < nids; i++)
		g->n += used[i] != 0;
	g->id = malloc(((size_t)g->n + 1) * sizeof(*g->id));
	g->off = calloc((size_t)g->n + 2, sizeof(*g->off));
	g->adj = malloc((e->n + 1) * sizeof(*g->adj));
	if (!g->id || !g->off || !g->adj) {
		free(index);
		an_graph_free(g);
		return -1;
	}
	for (size_t i = 0, k = 0; i < nids; i++)
		if (used[i]) {
			index[i] = (uint32_t)k;
			g->id[k++] = (uint32_t)i;
		}
	for (size_t i = 0; i < e->cap; i++)
		if (e->keys[i])
			g->off[index[e->keys[i] >> 32] + 1]++;
	for (uint32_t i = 0; i < g->n; i++)
		g->off[i + 1] += g->off[i];
	{
		uint32_t *fill = malloc(((size_t)g->n + 1) * sizeof(*fill));

		if (!fill) {
			free(index);
			an_graph_free(g);
			return -1;
		}
		memcpy(fill, g->off, ((size_t)g->n + 1) * sizeof(*fill));
		for (size_t i = 0; i < e->cap; i++)
			if (e->keys[i]) {
				uint32_t a = index[e->keys[i] >> 32], b = index[e->keys[i] & 0xffffffffu];

				g->adj[fill[a]++] = b;
			}
		free(fill);
	}
	free(index);
	for (uint32_t i = 0; i < g->n; i++)
		qsort(g->adj + g->off[i], g->off[i + 1] - g->off[i], sizeof(*g->adj), cmp_u32);
	return 0;
}

enum { WHITE = 0, GREY = 1, BLACK = 2 };

struct dfs {
	uint8_t *color;
	uint32_t *it;		/* next edge to look at, per node */
	uint32_t *stack;
	uint32_t *pos;		/* position on the stack, per grey node */
};

static void dfs_free(struct dfs *d)
{
	free(d->color);
	free(d->it);
	free(d->stack);
	free(d->pos);
}

static int dfs_init(struct dfs *d, uint32_t n)
{
	d->color = calloc((size_t)n + 1, 1);
	d->it = malloc(((size_t)n + 1) * sizeof(*d->it));
	d->stack = malloc(((size_t)n + 1) * sizeof(*d->stack));
	d->pos = malloc(((size_t)n + 1) * sizeof(*d->pos));
	if (!d->color || !d->it || !d->stack || !d->pos) {
		dfs_free(d);
		return -1;
	}
	return 0;
}

/* DFS from @root within the class; returns the stack index where a cycle starts, or -1. */
static long dfs_from(const struct an_graph *g, struct dfs *d, uint32_t root, unsigned class,
		     unsigned mod, uint32_t *top)
{
	uint32_t sp = 0;

	d->color[root] = GREY;
	d->it[root] = g->off[root];
	d->pos[root] = 0;
	d->stack[sp++] = root;
	while (sp) {
		uint32_t u = d->stack[sp - 1];

		if (d->it[u] < g->off[u + 1]) {
			uint32_t w = g->adj[d->it[u]++];

			if (g->id[w] % mod != class || d->color[w] == BLACK)
				continue;
			if (d->color[w] == GREY) {
				*top = sp;
				return d->pos[w];
			}
			d->color[w] = GREY;
			d->it[w] = g->off[w];
			d->pos[w] = sp;
			d->stack[sp++] = w;
		} else {
			d->color[u] = BLACK;
			sp--;
		}
	}
	return -1;
}

int an_graph_cycle(const struct an_graph *g, unsigned class, unsigned mod, uint32_t **cyc,
		   uint32_t *len)
{
	struct dfs d;

	*cyc = NULL;
	*len = 0;
	if (dfs_init(&d, g->n))
		return -1;
	for (uint32_t r = 0; r < g->n; r++) {
		uint32_t top;
		long at;

		if (g->id[r] % mod != class || d.color[r] != WHITE)
			continue;
		at = dfs_from(g, &d, r, class, mod, &top);
		if (at < 0)
			continue;
		*len = top - (uint32_t)at;
		*cyc = malloc(*len * sizeof(**cyc));
		if (!*cyc) {
			dfs_free(&d);
			return -1;
		}
		memcpy(*cyc, d.stack + at, *len * sizeof(**cyc));
		break;
	}
	dfs_free(&d);
	return 0;
}

/* Tarjan's SCC, iterative: comp[v] gets the component of every node. */
struct tarjan {
	uint32_t *index, *low, *comp, *stack, *call, *it;
	uint8_t *on;
};

static void tarjan_free(struct tarjan *t)
{
	free(t->index);
	free(t->low);
	free(t->comp);
	free(t->stack);
	free(t->call);
	free(t->it);
	free(t->on);
}

static int tarjan_init(struct tarjan *t, uint32_t n)
{
	size_t sz = ((size_t)n + 1) * sizeof(uint32_t);

	t->index = malloc(sz);
	t->low = malloc(sz);
	t->comp = malloc(sz);
	t->stack = malloc(sz);
	t->call = malloc(sz);
	t->it = malloc(sz);
	t->on = calloc((size_t)n + 1, 1);
	if (!t->index || !t->low || !t->comp || !t->stack || !t->call || !t->it || !t->on) {
		tarjan_free(t);
		return -1;
	}
	memset(t->index, 0xff, sz);
	return 0;
}

static void tarjan_from(const struct an_graph *g, struct tarjan *t, uint32_t root,
			uint32_t *counter, uint32_t *sp, uint32_t *ncomp)
{
	uint32_t depth = 0;

	t->call[depth++] = root;
	t->index[root] = t->low[root] = (*counter)++;
	t->it[root] = g->off[root];
	t->stack[(*sp)++] = root;
	t->on[root] = 1;
	while (depth) {
		uint32_t u = t->call[depth - 1];

		if (t->it[u] < g->off[u + 1]) {
			uint32_t w = g->adj[t->it[u]++];

			if (t->index[w] == UINT32_MAX) {
				t->index[w] = t->low[w] = (*counter)++;
				t->it[w] = g->off[w];
				t->stack[(*sp)++] = w;
				t->on[w] = 1;
				t->call[depth++] = w;
			} else if (t->on[w] && t->index[w] < t->low[u]) {
				t->low[u] = t->index[w];
			}
			continue;
		}
		if (t->low[u] == t->index[u]) {
			uint32_t w;

			do {
				w = t->stack[--(*sp)];
				t->on[w] = 0;
				t->comp[w] = *ncomp;
			} while (w != u);
			(*ncomp)++;
		}
		depth--;
		if (depth && t->low[u] < t->low[t->call[depth - 1]])
			t->low[t->call[depth - 1]] = t->low[u];
	}
}

int an_graph_cross_cycle(const struct an_graph *g, unsigned mod, int *found)
{
	struct tarjan t;
	uint32_t counter = 0, sp = 0, ncomp = 0;

	*found = 0;
	if (tarjan_init(&t, g->n))
		return -1;
	for (uint32_t v = 0; v < g->n; v++)
		if (t.index[v] == UINT32_MAX)
			tarjan_from(g, &t, v, &counter, &sp, &ncomp);
	for (uint32_t u = 0; u < g->n && !*found; u++)
		for (uint32_t k = g->off[u]; k < g->off[u + 1]; k++) {
			uint32_t w = g->adj[k];

			if (t.comp[u] == t.comp[w] && g->id[u] % mod != g->id[w] % mod) {
				*found = 1;
				break;
			}
		}
	tarjan_free(&t);
	return 0;
}

uint32_t an_kahn_start(uint32_t n, const uint32_t *indeg, uint32_t *rank, uint32_t *queue)
{
	uint32_t tail = 0;

	for (uint32_t v = 0; v < n; v++) {
		rank[v] = 0;
		if (!indeg[v])
			queue[tail++] = v;
	}
	return tail;
}

int an_graph_ranks(const struct an_graph *g, uint32_t *rank)
{
	uint32_t *indeg = calloc((size_t)g->n + 1, sizeof(*indeg));
	uint32_t *queue = malloc(((size_t)g->n + 1) * sizeof(*queue));
	uint32_t head = 0, tail;

	if (!indeg || !queue) {
		free(indeg);
		free(queue);
		return -1;
	}
	for (uint32_t k = 0; k < g->off[g->n]; k++)
		indeg[g->adj[k]]++;
	tail = an_kahn_start(g->n, indeg, rank, queue);
	while (head < tail) {
		uint32_t u = queue[head++];

		for (uint32_t k = g->off[u]; k < g->off[u + 1]; k++)
			an_kahn_edge(u, g->adj[k], indeg, rank, queue, &tail);
	}
	free(indeg);
	free(queue);
	return tail == g->n ? 0 : 1;
}
