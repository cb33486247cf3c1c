/* SPDX-License-Identifier: MIT */
/**
 * DOC: the switches' hop matrices, filled for OpenSM
 *
 * When the fabroute engine routes a pass, OpenSM does not build its own
 * min-hop matrices (the engine supplies build_lid_matrices), but other
 * parts of OpenSM read them after the routing: the multicast manager picks
 * the centre of a group's spanning tree with osm_switch_get_least_hops()
 * and branches it with osm_switch_recommend_mcast_path(), which reads the
 * hop count of every port towards a switch's LID; the lid-matrix dump
 * prints them. So the plugin fills exactly what OpenSM's
 * osm_ucast_mgr_build_lid_matrices() fills, with one breadth-first search
 * per switch instead of OpenSM's relaxation over every switch and port,
 * repeated until nothing changes.
 *
 * What OpenSM's function leaves in p_sw->hops, for switches s and t (only
 * switch LIDs have rows; a CA's LID is reached through its switch):
 *
 * - every switch port gets hop weight 1 (hop_wf), unless a hop_weights_file
 *   sets others: then OpenSM builds the matrices itself;
 * - hops[lid(t)][p] of s, for a port p linked to a switch r other than s:
 *   1 when r is t (whether or not the link is healthy), else
 *   1 + least(r, t) when the link is healthy (osm_link_is_healthy()),
 *   else no path;
 * - hops[lid(t)][0] of s: least(s, t), the smallest of its ports; 0 for
 *   the switch's own LID;
 * - least(s, t) is thus the length of the shortest walk from s to t whose
 *   links are healthy, except perhaps the last; OpenSM never stores 255 or
 *   more (OSM_NO_PATH is 0xff).
 *
 * The search goes backwards from t: t's neighbours through any link are at
 * 1, then the search follows healthy links only; least() of every pair is
 * kept (n^2 bytes). Then every switch's rows are written, in LID order (the
 * order of its hops[], where the rows lie in memory once allocated in that
 * order). A row OpenSM would allocate is allocated the same way (malloc of
 * num_ports bytes, which OpenSM frees). Everything runs with osm->lock
 * held, inside the routing pass.
 */
#include <stdlib.h>
#include <string.h>

#include "opensm/plugin.h"

/* Hop counts of the search: OpenSM stores at most 254 (0xfe). */
#define HOPS_NONE 0xffu
#define HOPS_MAX 0xfeu

/* One switch-to-switch port, from the switch that owns it. */
struct hop_link {
	uint32_t peer;	/* index of the switch at the other end */
	uint8_t port;
	uint8_t healthy;
};

struct hop_graph {
	osm_switch_t **sw;	/* by index */
	uint16_t *lid;		/* base LID of each switch (0: none) */
	size_t n;
	struct hop_link *out;	/* each switch's links: out[first[s] .. first[s + 1]) */
	uint32_t *first;
	uint32_t *in;		/* the switches with a link to s: in[in_first[s] .. in_first[s + 1]), */
	uint8_t *in_healthy;	/* ... and whether that link is healthy */
	uint32_t *in_first;
	size_t nlinks;
};

/* Switches by address, to find a remote switch's index. */
struct sw_ix {
	const osm_switch_t *sw;
	uint32_t ix;
};

static int sw_ix_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct sw_ix *)a)->sw, y = (uintptr_t)((const struct sw_ix *)b)->sw;

	return x < y ? -1 : x > y;
}

static long sw_index(const struct sw_ix *tab, size_t n, const osm_switch_t *sw)
{
	struct sw_ix key = { .sw = sw };
	const struct sw_ix *hit = bsearch(&key, tab, n, sizeof(*tab), sw_ix_cmp);

	return hit ? (long)hit->ix : -1;
}

static void graph_free(struct hop_graph *g)
{
	free(g->sw);
	free(g->lid);
	free(g->out);
	free(g->first);
	free(g->in);
	free(g->in_healthy);
	free(g->in_first);
	memset(g, 0, sizeof(*g));
}

/* The switch at the other end of port @i of @sw, when it is another switch. */
static const osm_switch_t *port_peer(const osm_switch_t *sw, unsigned i, const osm_physp_t **pp)
{
	const osm_physp_t *p = osm_node_get_physp_ptr(sw->p_node, i);
	const osm_node_t *r = p && p->p_remote_physp ? p->p_remote_physp->p_node : NULL;

	*pp = p;
	return r && r->sw && r != sw->p_node ? r->sw : NULL;
}

/* Switches, their LIDs and their outgoing switch links. */
static int graph_out(osm_subn_t *subn, struct hop_graph *g, struct sw_ix *tab)
{
	cl_qmap_t *map = &subn->sw_guid_tbl;
	size_t i = 0, cap = 0;

	for (cl_map_item_t *it = cl_qmap_head(map); it != cl_qmap_end(map) && i < g->n; it = cl_qmap_next(it), i++) {
		g->sw[i] = (osm_switch_t *)it;
		g->lid[i] = cl_ntoh16(osm_node_get_base_lid(g->sw[i]->p_node, 0));
		tab[i] = (struct sw_ix){ .sw = g->sw[i], .ix = (uint32_t)i };
		cap += g->sw[i]->num_ports;
	}
	g->n = i;
	qsort(tab, g->n, sizeof(*tab), sw_ix_cmp);
	g->out = malloc((cap ? cap : 1) * sizeof(*g->out));
	if (!g->out)
		return -1;
	for (i = 0; i < g->n; i++) {
		g->first[i] = (uint32_t)g->nlinks;
		for (unsigned port = 1; port < g->sw[i]->num_ports; port++) {
			const osm_physp_t *p;
			const osm_switch_t *r = port_peer(g->sw[i], port, &p);
			long ix = r ? sw_index(tab, g->n, r) : -1;

			if (ix >= 0)
				g->out[g->nlinks++] = (struct hop_link){ .peer = (uint32_t)ix, .port = (uint8_t)port,
									 .healthy = osm_link_is_healthy(p) ? 1 : 0 };
		}
	}
	g->first[g->n] = (uint32_t)g->nlinks;
	return 0;
}

/* The reverse of the links: who has a link to each switch. */
static int graph_in(struct hop_graph *g)
{
	uint32_t *fill;

	g->in = malloc((g->nlinks ? g->nlinks : 1) * sizeof(*g->in));
	g->in_healthy = malloc(g->nlinks ? g->nlinks : 1);
	fill = calloc(g->n + 1, sizeof(*fill));
	if (!g->in || !g->in_healthy || !fill) {
		free(fill);
		return -1;
	}
	for (size_t k = 0; k < g->nlinks; k++)
		g->in_first[g->out[k].peer + 1]++;
	for (size_t s = 0; s < g->n; s++)
		g->in_first[s + 1] += g->in_first[s];
	for (size_t s = 0; s < g->n; s++)
		for (uint32_t k = g->first[s]; k < g->first[s + 1]; k++) {
			uint32_t r = g->out[k].peer, at = g->in_first[r] + fill[r]++;

			g->in[at] = (uint32_t)s;
			g->in_healthy[at] = g->out[k].healthy;
		}
	free(fill);
	return 0;
}

static int graph_build(osm_subn_t *subn, struct hop_graph *g)
{
	struct sw_ix *tab;
	int rc = -1;

	memset(g, 0, sizeof(*g));
	g->n = cl_qmap_count(&subn->sw_guid_tbl);
	g->sw = calloc(g->n + 1, sizeof(*g->sw));
	g->lid = calloc(g->n + 1, sizeof(*g->lid));
	g->first = calloc(g->n + 1, sizeof(*g->first));
	g->in_first = calloc(g->n + 1, sizeof(*g->in_first));
	tab = calloc(g->n + 1, sizeof(*tab));
	if (g->sw && g->lid && g->first && g->in_first && tab && !graph_out(subn, g, tab) && !graph_in(g))
		rc = 0;
	free(tab);
	if (rc)
		graph_free(g);
	return rc;
}

/*
 * least(s, @t) for every switch s into @dist (HOPS_NONE: no path): a search
 * backwards from @t, through any link into t, through healthy links after.
 */
static void search_from(const struct hop_graph *g, uint32_t t, uint8_t *dist, uint32_t *queue)
{
	size_t head = 0, tail = 0;

	memset(dist, HOPS_NONE, g->n);
	dist[t] = 0;
	queue[tail++] = t;
	while (head < tail) {
		uint32_t r = queue[head++];
		unsigned d = dist[r] + 1u;

		if (d > HOPS_MAX)
			break;	/* breadth first: every later switch is as far */
		for (uint32_t k = g->in_first[r]; k < g->in_first[r + 1]; k++) {
			uint32_t s = g->in[k];

			if (dist[s] == HOPS_NONE && (r == t || g->in_healthy[k])) {
				dist[s] = (uint8_t)d;
				queue[tail++] = s;
			}
		}
	}
}

/*
 * Row lid(@t) of switch @s: @least[r * n + t] is least(r, t) for every
 * switch r. -1 when out of memory.
 */
static int fill_row(const struct hop_graph *g, uint32_t s, uint32_t t, const uint8_t *least)
{
	osm_switch_t *sw = g->sw[s];
	uint16_t lid = g->lid[t];
	uint8_t *row;

	if (!lid || lid > sw->max_lid_ho || lid >= sw->num_hops)
		return 0;	/* osm_switch_set_hops() refuses these LIDs */
	row = sw->hops[lid];
	if (!row) {
		row = malloc(sw->num_ports);	/* as osm_switch_set_hops() does; OpenSM frees it */
		if (!row)
			return -1;
		sw->hops[lid] = row;
	}
	memset(row, HOPS_NONE, sw->num_ports);
	if (s == t)
		row[0] = 0;
	for (uint32_t k = g->first[s]; k < g->first[s + 1]; k++) {
		const struct hop_link *l = &g->out[k];
		unsigned d = least[(size_t)l->peer * g->n + t];
		unsigned v = l->peer == t ? 1u : l->healthy && d < HOPS_MAX ? d + 1u : HOPS_NONE;

		row[l->port] = (uint8_t)v;
		if (v < row[0])
			row[0] = (uint8_t)v;
	}
	return 0;
}

/* least(r, t) of every pair into @least (n x n, row r), one search per t. */
static int all_searches(const struct hop_graph *g, uint8_t *least)
{
	uint8_t *dist = malloc(g->n ? g->n : 1);
	uint32_t *queue = malloc((g->n ? g->n : 1) * sizeof(*queue));

	if (!dist || !queue) {
		free(dist);
		free(queue);
		return -1;
	}
	for (uint32_t t = 0; t < g->n; t++) {
		search_from(g, t, dist, queue);
		for (uint32_t r = 0; r < g->n; r++)
			least[(size_t)r * g->n + t] = dist[r];
	}
	free(dist);
	free(queue);
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The switches by LID, so that a switch's rows are visited in the order of its hops[]. */
static uint32_t *lid_order(const struct hop_graph *g)
{
	uint64_t *key = malloc((g->n ? g->n : 1) * sizeof(*key));
	uint32_t *order = malloc((g->n ? g->n : 1) * sizeof(*order));

	if (key && order) {
		for (uint32_t i = 0; i < g->n; i++)
			key[i] = (uint64_t)g->lid[i] << 32 | i;
		qsort(key, g->n, sizeof(*key), u64_cmp);
		for (uint32_t i = 0; i < g->n; i++)
			order[i] = (uint32_t)key[i];
	} else {
		free(order);
		order = NULL;
	}
	free(key);
	return order;
}

/* Hop weight 1 on every switch port, as OpenSM's set_default_hop_wf(). */
static void default_hop_weights(const struct hop_graph *g)
{
	for (size_t s = 0; s < g->n; s++)
		for (unsigned i = 1; i < g->sw[s]->num_ports; i++) {
			osm_physp_t *p = osm_node_get_physp_ptr(g->sw[s]->p_node, i);

			if (p)
				p->hop_wf = 1;
		}
}

int fosm_hops_fill(struct fosm *f)
{
	struct hop_graph g;
	uint8_t *least = NULL;
	uint32_t *order = NULL;
	int rc = -1;

	if (graph_build(&f->osm->subn, &g))
		return -1;
	least = malloc(g.n * g.n + 1);
	order = lid_order(&g);
	if (least && order && !all_searches(&g, least)) {
		default_hop_weights(&g);
		rc = 0;
		for (uint32_t i = 0; i < g.n && !rc; i++)
			for (uint32_t k = 0; k < g.n && !rc; k++)
				rc = fill_row(&g, order[i], order[k], least);
	}
	free(least);
	free(order);
	graph_free(&g);
	if (rc)
		fosm_hops_clear(f);
	return rc;
}

void fosm_hops_clear(struct fosm *f)
{
	cl_qmap_t *map = &f->osm->subn.sw_guid_tbl;

	for (cl_map_item_t *it = cl_qmap_head(map); it != cl_qmap_end(map); it = cl_qmap_next(it))
		osm_switch_clear_hops((osm_switch_t *)it);
}
