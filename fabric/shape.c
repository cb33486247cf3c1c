/* SPDX-License-Identifier: MIT */
/**
 * DOC: topology shape
 *
 * What `fabroute show` says about the structure of a fabric:
 *
 *  - switch levels: switches with CAs attached are level 1, every other
 *    switch is one more than its nearest such switch (a BFS through the
 *    switch graph). The fabric is called a tree when it has at least two
 *    levels, every switch below the top has a link to the level above, and
 *    horizontal links (same level) exist only at level 1, where multi-core
 *    trees and rack-switch pairs have them. The top level holds the roots.
 *  - dragonfly groups: switches partitioned into cliques grown greedily
 *    (each switch pulls in the neighbours it shares the most neighbours
 *    with, as long as the group stays fully connected). The fabric is
 *    called a dragonfly when all groups have the same size a >= 2, there
 *    are at least three of them, and every pair of groups is linked.
 *  - connected components of the whole graph.
 */
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"

/* Switch adjacency in CSR form, parallel links collapsed. */
struct swgraph {
	uint32_t *off;	/* nswitches + 1 */
	uint32_t *adj;	/* switch indexes */
};

static int swgraph_build(const struct fabric *f, struct swgraph *g)
{
	uint32_t n = f->nswitches, total = 0;

	g->off = calloc((size_t)n + 1, sizeof(*g->off));
	g->adj = malloc(((size_t)f->nlinks * 2 + 1) * sizeof(*g->adj));
	if (!g->off || !g->adj)
		return -1;
	for (uint32_t s = 0; s < n; s++) {
		uint32_t node = f->switches[s], start = total;

		g->off[s] = total;
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t peer = fab_port(f, node, p)->peer, ps, k;

			if (peer == FAB_NONE || f->nodes[peer].type != FAB_SWITCH || peer == node)
				continue;
			ps = f->nodes[peer].swidx;
			for (k = start; k < total && g->adj[k] != ps; k++)
				;
			if (k == total)
				g->adj[total++] = ps;
		}
	}
	g->off[n] = total;
	return 0;
}

static void swgraph_free(struct swgraph *g)
{
	free(g->off);
	free(g->adj);
}

static int has_ca(const struct fabric *f, uint32_t node)
{
	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t peer = fab_port(f, node, p)->peer;

		if (peer != FAB_NONE && f->nodes[peer].type != FAB_SWITCH)
			return 1;
	}
	return 0;
}

static int levels(const struct fabric *f, const struct swgraph *g, struct fab_shape *s)
{
	uint32_t n = f->nswitches, head = 0, tail = 0;
	uint32_t *queue = malloc(((size_t)n + 1) * sizeof(*queue));

	if (!queue)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		s->level[i] = has_ca(f, f->switches[i]) ? 1 : 0;
		if (s->level[i])
			queue[tail++] = i;
	}
	while (head < tail) {
		uint32_t v = queue[head++];

		for (uint32_t k = g->off[v]; k < g->off[v + 1]; k++)
			if (!s->level[g->adj[k]]) {
				s->level[g->adj[k]] = s->level[v] + 1;
				queue[tail++] = g->adj[k];
			}
	}
	free(queue);
	for (uint32_t i = 0; i < n; i++) {
		if (s->level[i] > s->nlevels)
			s->nlevels = s->level[i];
		if (s->level[i] <= FAB_LEVELS_MAX)
			s->per_level[s->level[i]]++;
	}
	return 0;
}

static void tree_check(const struct fabric *f, const struct swgraph *g, struct fab_shape *s)
{
	int tree = s->nlevels >= 2 && s->nlevels <= FAB_LEVELS_MAX;

	for (uint32_t v = 0; v < f->nswitches; v++) {
		int up = 0;

		for (uint32_t k = g->off[v]; k < g->off[v + 1]; k++) {
			uint32_t w = g->adj[k];

			up |= s->level[w] == s->level[v] + 1;
			if (s->level[w] == s->level[v] && s->level[v] != 1)
				tree = 0;
		}
		if (!s->level[v] || (s->level[v] < s->nlevels && !up))
			tree = 0;
	}
	s->is_tree = tree;
}

/* Physical links (parallel ones counted) between switches of the same level. */
static void count_hlinks(const struct fabric *f, struct fab_shape *s)
{
	for (uint32_t v = 0; v < f->nswitches; v++) {
		uint32_t node = f->switches[v];

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			const struct fab_port *x = fab_port(f, node, p);
			uint32_t w;

			if (x->peer == FAB_NONE || f->nodes[x->peer].type != FAB_SWITCH)
				continue;
			w = f->nodes[x->peer].swidx;
			if (s->level[w] == s->level[v] && (v < w || (v == w && p < x->peer_port)))
				s->hlinks++;
		}
	}
}

static int adjacent(const struct swgraph *g, uint32_t a, uint32_t b)
{
	for (uint32_t k = g->off[a]; k < g->off[a + 1]; k++)
		if (g->adj[k] == b)
			return 1;
	return 0;
}

struct cand {
	uint32_t sw, common;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->common != y->common)
		return x->common > y->common ? -1 : 1;
	return (x->sw > y->sw) - (x->sw < y->sw);
}

/* Grow the group of switch @v; returns its size. */
static uint32_t grow_group(const struct swgraph *g, uint32_t v, uint32_t gid, uint32_t *group,
			   struct cand *cand, uint32_t *members)
{
	uint32_t nc = 0, nm = 0;

	group[v] = gid;
	members[nm++] = v;
	for (uint32_t k = g->off[v]; k < g->off[v + 1]; k++) {
		uint32_t u = g->adj[k], common = 0;

		if (group[u] != FAB_NONE)
			continue;
		for (uint32_t j = g->off[u]; j < g->off[u + 1]; j++)
			common += adjacent(g, v, g->adj[j]);
		cand[nc++] = (struct cand){ u, common };
	}
	qsort(cand, nc, sizeof(*cand), cmp_cand);
	for (uint32_t i = 0; i < nc; i++) {
		uint32_t m;

		for (m = 0; m < nm && adjacent(g, cand[i].sw, members[m]); m++)
			;
		if (m == nm) {
			group[cand[i].sw] = gid;
			members[nm++] = cand[i].sw;
		}
	}
	return nm;
}

/* Every pair of groups must be linked; @seen is ngroups^2 bytes. */
static int groups_all_linked(const struct swgraph *g, uint32_t n, const uint32_t *group,
			     uint32_t ngroups)
{
	uint8_t *seen = calloc((size_t)ngroups * ngroups, 1);
	size_t missing = (size_t)ngroups * (ngroups - 1);

	if (!seen)
		return 0;
	for (uint32_t v = 0; v < n; v++)
		for (uint32_t k = g->off[v]; k < g->off[v + 1]; k++) {
			size_t i = (size_t)group[v] * ngroups + group[g->adj[k]];

			if (group[v] != group[g->adj[k]] && !seen[i]) {
				seen[i] = 1;
				missing--;
			}
		}
	free(seen);
	return missing == 0;
}

static int dragonfly(const struct fabric *f, const struct swgraph *g, struct fab_shape *s)
{
	uint32_t n = f->nswitches, ngroups = 0, size = 0, maxdeg = 0;
	struct cand *cand;
	uint32_t *members;
	int ok = 1;

	for (uint32_t v = 0; v < n; v++)
		if (g->off[v + 1] - g->off[v] > maxdeg)
			maxdeg = g->off[v + 1] - g->off[v];
	cand = malloc(((size_t)maxdeg + 1) * sizeof(*cand));
	members = malloc(((size_t)maxdeg + 2) * sizeof(*members));
	if (!cand || !members) {
		free(cand);
		free(members);
		return -1;
	}
	for (uint32_t v = 0; v < n; v++)
		s->group[v] = FAB_NONE;
	for (uint32_t v = 0; v < n && ok; v++) {
		uint32_t sz;

		if (s->group[v] != FAB_NONE)
			continue;
		sz = grow_group(g, v, ngroups++, s->group, cand, members);
		ok = sz >= 2 && (!size || sz == size);
		size = sz;
	}
	free(cand);
	free(members);
	if (ok && ngroups >= 3 && groups_all_linked(g, n, s->group, ngroups)) {
		s->ngroups = ngroups;
		s->group_size = size;
	} else {
		for (uint32_t v = 0; v < n; v++)
			s->group[v] = FAB_NONE;
	}
	return 0;
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

uint32_t fab_components(const struct fabric *f, uint32_t *comp)
{
	uint32_t count = 0;

	for (uint32_t i = 0; i < f->nnodes; i++)
		comp[i] = i;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; p <= f->nodes[i].nports; p++) {
			uint32_t peer = fab_port(f, i, p)->peer;

			if (peer != FAB_NONE)
				comp[find(comp, i)] = find(comp, peer);
		}
	for (uint32_t i = 0; i < f->nnodes; i++)
		count += find(comp, i) == i;
	for (uint32_t i = 0; i < f->nnodes; i++)
		comp[i] = find(comp, i);
	return count;
}

static int components(const struct fabric *f, struct fab_shape *s)
{
	uint32_t *comp = malloc(((size_t)f->nnodes + 1) * sizeof(*comp));

	if (!comp)
		return -1;
	s->components = fab_components(f, comp);
	free(comp);
	return 0;
}

int fab_shape(const struct fabric *f, struct fab_shape *s, struct fab_err *err)
{
	struct swgraph g = { 0 };
	int rc = -1;

	memset(s, 0, sizeof(*s));
	s->level = calloc((size_t)f->nswitches + 1, sizeof(*s->level));
	s->group = calloc((size_t)f->nswitches + 1, sizeof(*s->group));
	if (!s->level || !s->group || swgraph_build(f, &g) || levels(f, &g, s))
		goto out;
	tree_check(f, &g, s);
	count_hlinks(f, s);
	if (!s->is_tree && dragonfly(f, &g, s))
		goto out;
	if (s->is_tree)
		for (uint32_t v = 0; v < f->nswitches; v++)
			s->group[v] = FAB_NONE;
	rc = components(f, s);
out:
	swgraph_free(&g);
	if (rc) {
		fab_err_set(err, "out of memory analysing %u switches", f->nswitches);
		fab_shape_free(s);
	}
	return rc;
}

void fab_shape_free(struct fab_shape *s)
{
	free(s->level);
	free(s->group);
	s->level = s->group = NULL;
}
