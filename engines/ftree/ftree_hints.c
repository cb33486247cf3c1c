/* SPDX-License-Identifier: MIT */
/**
 * DOC: OpenSM's site files for ftree and sftree
 *
 * The three GUID files OpenSM's fat-tree routing reads, with its meaning
 * (osm_ucast_ftree.c, opensm(8)), as options root_guid_file, cn_guid_file
 * and io_guid_file (one GUID a line, fmt_guids_parse()):
 *
 *  - cn_guid_file: the compute nodes, by port GUID. Only CA ports it lists
 *    are compute nodes (CNs); without it every CA port is one. Leaves are
 *    the switches CNs hang off; the other CA ports ("non-CNs": service and
 *    storage nodes, possibly on higher switches) are routed after all CNs,
 *    and the dummies that keep partly filled leaves in step count CNs only.
 *    A file that names no CA port of the fabric: not applicable (OpenSM
 *    falls back to its next engine too).
 *  - io_guid_file: I/O nodes, by port GUID: non-CNs (a port in both files
 *    is a CN). OpenSM lets them cross up to max_reverse_hops switches the
 *    wrong way; that option defaults to 0 and these engines never do it
 *    (every path stays up*down*, deadlock-free), so I/O nodes are routed as
 *    OpenSM routes them by default: as non-CNs.
 *  - root_guid_file: the root switches, by node GUID (GUIDs of no switch
 *    of the fabric are ignored). Levels are counted down from them (BFS),
 *    and the leaves are the switches of the CNs, which must all be as far
 *    from the roots (else not applicable, as for OpenSM). Without it, or
 *    when it names no switch of the fabric (OpenSM then ranks from the CAs
 *    too), levels are counted up from the leaves.
 *
 * Without any of the three the model is fab_shape()'s and the routing the
 * same byte for byte.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/ftree/ftree.h"

void ft_hints_free(struct ft_hints *h)
{
	free(h->root);
	free(h->cn);
	memset(h, 0, sizeof(*h));
}

/* The port slots of @f whose GUIDs @g lists, CA ports only; their count. */
static uint32_t mark_ports(const struct fabric *f, const uint64_t *g, size_t n, uint8_t *mark,
			   uint8_t bit)
{
	uint32_t hits = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t ep = fab_ep_by_port_guid(f, g[i]);

		if (ep == FAB_NONE || f->nodes[f->eps[ep].node].type != FAB_CA)
			continue;
		mark[f->nodes[f->eps[ep].node].port0 + f->eps[ep].port] |= bit;
		hits++;
	}
	return hits;
}

/* cn_guid_file and io_guid_file into h->cn (1 = CN); ENG_OK, NOT_APPLICABLE, ERROR. */
static int hints_cn(struct ft_hints *h, const struct fabric *f, const struct eng_args *a,
		    struct fab_err *err)
{
	uint64_t *cn = NULL, *io = NULL;
	size_t ncn = 0, nio = 0;
	int hascn = eng_arg_guids(a, "cn_guid_file", &cn, &ncn, err);
	int hasio = hascn < 0 ? -1 : eng_arg_guids(a, "io_guid_file", &io, &nio, err);
	int rc = ENG_OK;

	if (hascn < 0 || hasio < 0) {
		free(cn);
		return ENG_ERROR;
	}
	if (!hascn && !hasio)
		return ENG_OK;
	h->cn = calloc((size_t)f->nports + 1, 1);
	if (!h->cn) {
		rc = ENG_ERROR;
		fab_err_set(err, "out of memory");
		goto out;
	}
	h->cn_file = hascn;
	h->cn_given = mark_ports(f, cn, ncn, h->cn, 1);
	h->io_given = mark_ports(f, io, nio, h->cn, 2);
	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t slot = f->nodes[f->eps[e].node].port0 + f->eps[e].port;
		uint8_t m = h->cn[slot];

		if (f->nodes[f->eps[e].node].type == FAB_SWITCH)
			continue;
		h->cn[slot] = hascn ? (m & 1) : !(m & 2);
		h->ncn += h->cn[slot];
		h->nio += !(m & 1) && (m & 2);
	}
	if (!h->ncn) {
		fab_err_set(err, "%s names no CA port of this fabric: no compute node (OpenSM's ftree "
			    "does not route then either)", hascn ? "cn_guid_file" : "io_guid_file");
		rc = ENG_NOT_APPLICABLE;
	}
out:
	free(cn);
	free(io);
	return rc;
}

int ft_hints_init(struct ft_hints *h, const struct fabric *f, const struct eng_args *a,
		  struct fab_err *err)
{
	uint64_t *g = NULL;
	size_t n = 0;
	int rc;

	memset(h, 0, sizeof(*h));
	rc = hints_cn(h, f, a, err);
	if (rc != ENG_OK)
		goto fail;
	if (eng_arg_guids(a, "root_guid_file", &g, &n, err) < 0) {
		rc = ENG_ERROR;
		goto fail;
	}
	h->root_guids = n;
	for (size_t i = 0; i < n; i++) {
		uint32_t node = fab_node_by_guid(f, g[i]);

		if (node == FAB_NONE || f->nodes[node].type != FAB_SWITCH)
			continue;
		if (!h->root && !(h->root = calloc((size_t)f->nswitches + 1, 1))) {
			free(g);
			fab_err_set(err, "out of memory");
			rc = ENG_ERROR;
			goto fail;
		}
		h->nroots += !h->root[f->nodes[node].swidx];
		h->root[f->nodes[node].swidx] = 1;
	}
	free(g);
	return ENG_OK;
fail:
	ft_hints_free(h);
	return rc;
}

/* The switch index a CN port hangs off, FAB_NONE if none. */
static uint32_t cn_switch(const struct fabric *f, const struct ft_hints *h, uint32_t e)
{
	const struct fab_node *n = &f->nodes[f->eps[e].node];
	const struct fab_port *x = fab_port(f, f->eps[e].node, f->eps[e].port);

	if (n->type == FAB_SWITCH || x->peer == FAB_NONE || f->nodes[x->peer].type != FAB_SWITCH)
		return FAB_NONE;
	if (h->cn ? !h->cn[n->port0 + f->eps[e].port] : n->type != FAB_CA && n->type != FAB_ROUTER)
		return FAB_NONE;
	return f->nodes[x->peer].swidx;
}

/* Multi-source BFS over the switch links from the @seed switches: dist (UINT32_MAX: none). */
static int bfs(const struct fabric *f, const uint8_t *seed, uint32_t *dist)
{
	uint32_t *off, *adj, *q = malloc(((size_t)f->nswitches + 1) * sizeof(*q)), head = 0, tail = 0;

	if (!q || fab_sw_neighbours(f, &off, &adj)) {
		free(q);
		return -1;
	}
	for (uint32_t s = 0; s < f->nswitches; s++) {
		dist[s] = seed[s] ? 0 : UINT32_MAX;
		if (seed[s])
			q[tail++] = s;
	}
	while (head < tail) {
		uint32_t s = q[head++];

		for (uint32_t j = off[s]; j < off[s + 1]; j++)
			if (dist[adj[j]] == UINT32_MAX) {
				dist[adj[j]] = dist[s] + 1;
				q[tail++] = adj[j];
			}
	}
	free(q);
	free(off);
	free(adj);
	return 0;
}

/* Levels from the roots: the leaves (the CNs' switches) at level 1. */
static int levels_from_roots(const struct fabric *f, const struct ft_hints *h, uint32_t *level,
			     uint32_t *nlevels, struct fab_err *err)
{
	uint32_t leaf = FAB_NONE, rank = 0;

	if (bfs(f, h->root, level))
		return ENG_ERROR;
	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t s = cn_switch(f, h, e);

		if (s == FAB_NONE || level[s] == UINT32_MAX)
			continue;
		if (leaf == FAB_NONE) {
			leaf = s;
			rank = level[s];
		} else if (level[s] != rank) {
			fab_err_set(err, "not a fat tree from the roots of root_guid_file: compute nodes "
				    "hang off '%s', %u links below a root, and '%s', %u links below",
				    FAB_LABEL(f, f->switches[leaf]), rank, FAB_LABEL(f, f->switches[s]),
				    level[s]);
			return ENG_NOT_APPLICABLE;
		}
	}
	if (leaf == FAB_NONE) {
		fab_err_set(err, "not a fat tree: no compute node hangs off a switch the roots of "
			    "root_guid_file reach");
		return ENG_NOT_APPLICABLE;
	}
	for (uint32_t s = 0; s < f->nswitches; s++) {
		if (level[s] != UINT32_MAX && level[s] > rank) {
			fab_err_set(err, "not a fat tree from the roots of root_guid_file: switch '%s' "
				    "is %u links below a root, below the leaves (%u)",
				    FAB_LABEL(f, f->switches[s]), level[s], rank);
			return ENG_NOT_APPLICABLE;
		}
		level[s] = level[s] == UINT32_MAX ? 0 : rank - level[s] + 1;
	}
	*nlevels = rank + 1;
	return ENG_OK;
}

/* Levels up from the CNs' switches. */
static int levels_from_cns(const struct fabric *f, const struct ft_hints *h, uint32_t *level,
			   uint32_t *nlevels)
{
	uint8_t *seed = calloc((size_t)f->nswitches + 1, 1);

	if (!seed)
		return ENG_ERROR;
	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t s = cn_switch(f, h, e);

		if (s != FAB_NONE)
			seed[s] = 1;
	}
	if (bfs(f, seed, level)) {
		free(seed);
		return ENG_ERROR;
	}
	free(seed);
	*nlevels = 0;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		level[s] = level[s] == UINT32_MAX ? 0 : level[s] + 1;
		if (level[s] > *nlevels)
			*nlevels = level[s];
	}
	return ENG_OK;
}

int ft_hint_levels(const struct fabric *f, const struct ft_hints *h, struct fab_shape *sh,
		   struct fab_err *err)
{
	int rc;

	memset(sh, 0, sizeof(*sh));
	sh->level = malloc(((size_t)f->nswitches + 1) * sizeof(*sh->level));
	if (!sh->level) {
		fab_err_set(err, "out of memory");
		return ENG_ERROR;
	}
	rc = h->nroots ? levels_from_roots(f, h, sh->level, &sh->nlevels, err) :
	     levels_from_cns(f, h, sh->level, &sh->nlevels);
	if (rc == ENG_ERROR)
		fab_err_set(err, "out of memory");
	if (rc != ENG_OK)
		fab_shape_free(sh);
	return rc;
}

int ft_hints_note(const struct ft_hints *h, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (h->cn && h->cn_file)
		n += snprintf(buf + n, len - (size_t)n, "; compute nodes: %u CA ports (cn_guid_file "
			      "names %u)", h->ncn, h->cn_given);
	if (h->cn && h->nio && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "; I/O nodes: %u (io_guid_file; routed as "
			      "non-compute nodes, without reverse hops)", h->nio);
	if (h->root_guids && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, h->nroots ?
			      "; roots: %u switches of root_guid_file (%zu GUIDs), levels counted "
			      "from them" : "; root_guid_file names no switch of this fabric%.0u (%zu "
			      "GUIDs): levels counted from the leaves", h->nroots, h->root_guids);
	return n;
}
