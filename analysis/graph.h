/* SPDX-License-Identifier: MIT */
/*
 * Private to analysis/: a set of directed edges between integer ids, the
 * compact graph built from it, and cycle searches on that graph.
 */
#ifndef FABROUTE_ANALYSIS_GRAPH_H
#define FABROUTE_ANALYSIS_GRAPH_H

#include <stddef.h>
#include <stdint.h>

/* Edge set: open addressing over (from << 32 | to); 0 is never an edge. */
struct an_edges {
	uint64_t *keys;
	size_t cap, n;
};

int an_edges_init(struct an_edges *e);
/** an_edges_add() - add from -> to (ids below 2^32, not both 0); 0 or -1 (memory). */
int an_edges_add(struct an_edges *e, uint32_t from, uint32_t to);
void an_edges_free(struct an_edges *e);

/**
 * struct an_graph - compact graph over the ids marked used
 * @n: nodes; @id: their original ids, ascending; @off, @adj: CSR adjacency,
 *     each node's successors in ascending order
 */
struct an_graph {
	uint32_t n;
	uint32_t *id;
	uint32_t *off;
	uint32_t *adj;
};

int an_graph_build(struct an_graph *g, const struct an_edges *e, const uint8_t *used, size_t nids);
void an_graph_free(struct an_graph *g);

/**
 * an_graph_cycle() - find a cycle among the nodes with id % @mod == @class
 * (edges leaving the class ignored). *@cyc gets the cycle's node indexes
 * (malloc'd; edges cyc[i] -> cyc[i+1] and last -> first), *@len its length;
 * *@len is 0 when there is none.
 * Return: 0, or -1 when out of memory.
 */
int an_graph_cycle(const struct an_graph *g, unsigned class, unsigned mod, uint32_t **cyc,
		   uint32_t *len);

/**
 * an_graph_cross_cycle() - *@found = 1 when a cycle uses nodes of different
 * classes (id % @mod). Return: 0, or -1 when out of memory.
 */
int an_graph_cross_cycle(const struct an_graph *g, unsigned mod, int *found);

/**
 * an_graph_ranks() - for an acyclic @g, each node's rank (@rank[0..n)):
 * the length of the longest path that ends at it, so that every edge goes
 * from a lower rank to a higher one. Layers of this kind follow what
 * makes the graph: in an up*down* routing's dependency graph, channels up
 * from the leaves, up from the next level, ... then down.
 * Return: 0; 1 when @g has a cycle (@rank then undefined); -1 when out of
 * memory.
 */
int an_graph_ranks(const struct an_graph *g, uint32_t *rank);

/*
 * Kahn's order, for an_graph_ranks() and for graphs walked without being
 * built (analysis/cdg.c): an_kahn_start() sets every rank of @n nodes to 0
 * and queues those of in-degree 0 (@indeg), returning the queue's length;
 * an_kahn_edge() takes edge @u -> @w off, raising @w's rank and queueing
 * it once its in-degree is 0. Every node queued: no cycle.
 */
uint32_t an_kahn_start(uint32_t n, const uint32_t *indeg, uint32_t *rank, uint32_t *queue);

static inline void an_kahn_edge(uint32_t u, uint32_t w, uint32_t *indeg, uint32_t *rank,
				uint32_t *queue, uint32_t *tail)
{
	rank[w] = rank[u] + 1 > rank[w] ? rank[u] + 1 : rank[w];
	if (!--indeg[w])
		queue[(*tail)++] = w;
}

#endif
