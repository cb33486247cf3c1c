/* SPDX-License-Identifier: MIT */
/**
 * DOC: the canonical order of a fabric
 *
 * A fabric describes a graph: nodes named by GUID, ports by number, links
 * between ports, LIDs on ports. The order in which a topology file, a
 * generator or a subnet manager's discovery hands over its records is not
 * part of it, yet every consumer iterates the model's arrays: the switch
 * list, the endpoints, the ports. fab_finalize() therefore puts the nodes
 * in ascending node GUID order first (ports are kept by number anyway, and
 * links live on their ports), so that the same graph always gives the same
 * arrays, and every engine, evaluation and writer sees one order whatever
 * the input's. The switch list and the endpoints follow from it: switches
 * by node GUID, then CA and router ports by node GUID and port number.
 */
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/index.h"

struct node_key {
	uint64_t guid;
	uint32_t node;
};

static int cmp_key(const void *a, const void *b)
{
	const struct node_key *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int in_order(const struct fabric *f)
{
	for (uint32_t i = 1; i < f->nnodes; i++)
		if (f->nodes[i - 1].guid >= f->nodes[i].guid)
			return 0;
	return 1;
}

int fab_reorder(struct fabric *f, const uint32_t *order, struct fab_err *err)
{
	struct fab_node *nodes = malloc(((size_t)f->nodes_cap + 1) * sizeof(*nodes));
	struct fab_port *ports = malloc(((size_t)f->ports_cap + 1) * sizeof(*ports));
	uint32_t *rank = malloc(((size_t)f->nnodes + 1) * sizeof(*rank)), slot = 0;

	if (!nodes || !ports || !rank) {
		free(nodes);
		free(ports);
		free(rank);
		fab_err_set(err, "out of memory ordering %u nodes", f->nnodes);
		return -1;
	}
	for (uint32_t i = 0; i < f->nnodes; i++)
		rank[order[i]] = i;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct fab_node *n = &f->nodes[order[i]];

		nodes[i] = *n;
		nodes[i].port0 = slot;
		memcpy(ports + slot, f->ports + n->port0, ((size_t)n->nports + 1) * sizeof(*ports));
		slot += n->nports + 1u;
	}
	for (uint32_t s = 0; s < slot; s++)
		if (ports[s].peer != FAB_NONE)
			ports[s].peer = rank[ports[s].peer];
	if (f->sm_node != FAB_NONE && f->sm_node < f->nnodes)
		f->sm_node = rank[f->sm_node];
	free(f->nodes);
	free(f->ports);
	free(rank);
	f->nodes = nodes;
	f->ports = ports;
	f->finalized = 0;
	return 0;
}

int fab_canon_order(struct fabric *f, struct fab_err *err)
{
	struct node_key *key;
	uint32_t *order;
	int rc = -1;

	if (in_order(f))
		return 0;
	key = malloc(((size_t)f->nnodes + 1) * sizeof(*key));
	order = malloc(((size_t)f->nnodes + 1) * sizeof(*order));
	if (key && order) {
		for (uint32_t i = 0; i < f->nnodes; i++)
			key[i] = (struct node_key){ .guid = f->nodes[i].guid, .node = i };
		qsort(key, f->nnodes, sizeof(*key), cmp_key);
		for (uint32_t i = 0; i < f->nnodes; i++)
			order[i] = key[i].node;
		rc = fab_reorder(f, order, err);
	} else {
		fab_err_set(err, "out of memory ordering %u nodes", f->nnodes);
	}
	free(key);
	free(order);
	return rc;
}

static int same_node(const struct fab_node *x, const struct fab_node *y)
{
	return x->guid == y->guid && x->sysimg_guid == y->sysimg_guid && x->type == y->type &&
	       x->nports == y->nports && x->vl_cap == y->vl_cap && x->port0 == y->port0 &&
	       x->swidx == y->swidx;
}

static int same_port(const struct fab_port *x, const struct fab_port *y)
{
	return x->guid == y->guid && x->peer == y->peer && x->peer_port == y->peer_port &&
	       x->lid == y->lid && x->lmc == y->lmc;
}

int fab_routes_alike(const struct fabric *a, const struct fabric *b)
{
	if (!a->finalized || !b->finalized || a->nnodes != b->nnodes || a->nports != b->nports ||
	    a->nswitches != b->nswitches || a->neps != b->neps || a->nlinks != b->nlinks ||
	    a->lid_top != b->lid_top)
		return 0;
	for (uint32_t n = 0; n < a->nnodes; n++)
		if (!same_node(&a->nodes[n], &b->nodes[n]))
			return 0;
	for (uint32_t p = 0; p < a->nports; p++)
		if (!same_port(&a->ports[p], &b->ports[p]))
			return 0;
	for (uint32_t e = 0; e < a->neps; e++)
		if (a->eps[e].node != b->eps[e].node || a->eps[e].port != b->eps[e].port)
			return 0;
	return 1;
}
