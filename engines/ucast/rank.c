/* SPDX-License-Identifier: MIT */
/**
 * DOC: Up*\/Down* ranking, shared by updn and the path-based engines
 *
 * Both number the switches the same way: a BFS from the root switches gives
 * each switch its rank (distance to the nearest root), and the switches are
 * then totally ordered by (rank, node GUID); a hop towards a switch earlier
 * in that order goes up. The order depends on the cabling and the GUIDs
 * only, never on the order of the fabric's records.
 */
#include <stdlib.h>

#include "engines/ucast/ucast.h"

uint32_t ucast_node_switch(const struct fabric *f, uint32_t n)
{
	if (f->nodes[n].type == FAB_SWITCH)
		return f->nodes[n].swidx;
	for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
		uint32_t peer = fab_port(f, n, p)->peer;

		if (peer != FAB_NONE && f->nodes[peer].type == FAB_SWITCH)
			return f->nodes[peer].swidx;
	}
	return FAB_NONE;
}

struct place {
	uint32_t rank;
	uint64_t guid;
	uint32_t sw;
};

static int cmp_place(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

/* BFS from the roots; the largest rank given. */
static uint32_t bfs(const struct ucast_adj *adj, uint32_t ns, const uint32_t *roots,
		    size_t nroots, uint32_t *rank, uint32_t *queue)
{
	uint32_t head = 0, tail = 0, maxrank = 0;

	for (uint32_t s = 0; s < ns; s++)
		rank[s] = UINT32_MAX;
	for (size_t i = 0; i < nroots; i++)
		if (rank[roots[i]]) {
			rank[roots[i]] = 0;
			queue[tail++] = roots[i];
		}
	while (head < tail) {
		uint32_t v = queue[head++];

		for (uint32_t k = adj->off[v]; k < adj->off[v + 1]; k++)
			if (rank[adj->peer[k]] == UINT32_MAX) {
				rank[adj->peer[k]] = rank[v] + 1;
				maxrank = rank[v] + 1;
				queue[tail++] = adj->peer[k];
			}
	}
	return maxrank;
}

int ucast_rank(const struct fabric *f, const struct ucast_adj *adj, const uint32_t *roots,
	       size_t nroots, uint32_t *rank, uint32_t *pos, uint32_t *maxrank)
{
	uint32_t ns = f->nswitches;
	uint32_t *queue = malloc(((size_t)ns + 1) * sizeof(*queue));
	struct place *pl = malloc(((size_t)ns + 1) * sizeof(*pl));

	if (!queue || !pl) {
		free(queue);
		free(pl);
		return -1;
	}
	*maxrank = bfs(adj, ns, roots, nroots, rank, queue);
	for (uint32_t s = 0; s < ns; s++)
		pl[s] = (struct place){ rank[s], f->nodes[f->switches[s]].guid, s };
	qsort(pl, ns, sizeof(*pl), cmp_place);
	for (uint32_t i = 0; i < ns; i++)
		pos[pl[i].sw] = i;
	free(queue);
	free(pl);
	return 0;
}
