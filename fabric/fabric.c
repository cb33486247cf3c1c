/* SPDX-License-Identifier: MIT */
/**
 * DOC: building the fabric model
 *
 * Nodes and their port slots live in two growing arrays; descriptions in
 * one string pool. fab_finalize() puts the nodes in their canonical order
 * (canon.c), derives the switch list and the endpoints and hands over to
 * index.c for the lookup tables.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/index.h"

void fab_err_vset(struct fab_err *err, const char *fmt, va_list ap)
{
	if (err)
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

void fab_err_set(struct fab_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fab_err_vset(err, fmt, ap);
	va_end(ap);
}

const char *fab_node_type_name(enum fab_node_type t)
{
	switch (t) {
	case FAB_CA:
		return "CA";
	case FAB_SWITCH:
		return "SW";
	case FAB_ROUTER:
		return "RT";
	}
	return "?";
}

struct fabric *fab_new(void)
{
	struct fabric *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->sm_node = FAB_NONE;
	f->strings = malloc(256);
	if (!f->strings) {
		free(f);
		return NULL;
	}
	f->strings_cap = 256;
	f->strings[0] = '\0';
	f->strings_len = 1;	/* offset 0 is the empty string */
	return f;
}

void fab_free(struct fabric *f)
{
	if (!f)
		return;
	fab_index_free(f->idx);
	free(f->nodes);
	free(f->ports);
	free(f->switches);
	free(f->eps);
	free(f->strings);
	free(f);
}

int fab_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*arr, (size_t)ncap * elem);
	if (!n)
		return -1;
	*arr = n;
	*cap = ncap;
	return 0;
}

static uint32_t intern(struct fabric *f, const char *s)
{
	size_t n = strnlen(s, FAB_DESC_MAX);
	uint32_t off;

	if (f->strings_len + n + 1 > f->strings_cap) {
		size_t cap = f->strings_cap * 2;
		char *p;

		while (cap < f->strings_len + n + 1)
			cap *= 2;
		p = realloc(f->strings, cap);
		if (!p)
			return FAB_NONE;
		f->strings = p;
		f->strings_cap = cap;
	}
	off = (uint32_t)f->strings_len;
	memcpy(f->strings + off, s, n);
	f->strings[off + n] = '\0';
	f->strings_len += n + 1;
	return off;
}

int fab_node_set_desc(struct fabric *f, uint32_t node, const char *desc)
{
	uint32_t off = intern(f, desc);

	if (off == FAB_NONE)
		return -1;
	f->nodes[node].desc = off;
	return 0;
}

static int check_node_info(const struct fab_node_info *in, struct fab_err *err)
{
	if (in->type != FAB_CA && in->type != FAB_SWITCH && in->type != FAB_ROUTER) {
		fab_err_set(err, "node 0x%016" PRIx64 ": unknown node type %d", in->guid, in->type);
		return -1;
	}
	if (in->nports < 1 || in->nports > FAB_PORTS_MAX) {
		fab_err_set(err, "node 0x%016" PRIx64 ": %u ports, expected 1 to %u", in->guid,
			    in->nports, FAB_PORTS_MAX);
		return -1;
	}
	if (in->guid == 0) {
		fab_err_set(err, "node \"%s\": GUID 0 is not a valid node GUID",
			    in->desc ? in->desc : "");
		return -1;
	}
	return 0;
}

uint32_t fab_node_add(struct fabric *f, const struct fab_node_info *in, struct fab_err *err)
{
	struct fab_node *n;
	char gdesc[32];
	uint32_t desc, i;

	if (check_node_info(in, err))
		return FAB_NONE;
	if (f->nnodes >= FAB_NONE - 1 ||
	    fab_grow((void **)&f->nodes, &f->nodes_cap, f->nnodes + 1, sizeof(*f->nodes)) ||
	    fab_grow((void **)&f->ports, &f->ports_cap, f->nports + in->nports + 1, sizeof(*f->ports))) {
		fab_err_set(err, "out of memory adding node 0x%016" PRIx64, in->guid);
		return FAB_NONE;
	}
	if (!in->desc || !in->desc[0]) {
		snprintf(gdesc, sizeof(gdesc), "%s-%016" PRIx64, fab_node_type_name(in->type),
			 in->guid);
		desc = intern(f, gdesc);
	} else {
		desc = intern(f, in->desc);
	}
	if (desc == FAB_NONE) {
		fab_err_set(err, "out of memory adding node 0x%016" PRIx64, in->guid);
		return FAB_NONE;
	}
	n = &f->nodes[f->nnodes];
	memset(n, 0, sizeof(*n));
	n->guid = in->guid;
	n->sysimg_guid = in->sysimg_guid;
	n->vendor_id = in->vendor_id;
	n->device_id = in->device_id;
	n->type = (uint8_t)in->type;
	n->nports = (uint8_t)in->nports;
	n->vl_cap = (uint8_t)(in->vl_cap ? in->vl_cap : 4);
	n->desc = desc;
	n->port0 = f->nports;
	n->swidx = FAB_NONE;
	for (i = 0; i <= in->nports; i++) {
		struct fab_port *p = &f->ports[f->nports + i];

		memset(p, 0, sizeof(*p));
		p->guid = in->type == FAB_SWITCH ? in->guid : (i ? in->guid + i : 0);
		p->peer = FAB_NONE;
		p->phys = FAB_PHYS_POLLING;
		p->state = FAB_LOG_DOWN;
	}
	if (in->type == FAB_SWITCH) {
		f->ports[f->nports].phys = FAB_PHYS_LINKUP;
		f->ports[f->nports].state = FAB_LOG_ACTIVE;
	}
	f->nports += in->nports + 1;
	f->finalized = 0;
	return f->nnodes++;
}

void fab_port_set_guid(struct fabric *f, uint32_t node, unsigned port, uint64_t guid)
{
	if (node < f->nnodes && port >= 1 && port <= f->nodes[node].nports &&
	    f->nodes[node].type != FAB_SWITCH)
		fab_port(f, node, port)->guid = guid;
}

static int check_port(const struct fabric *f, uint32_t node, unsigned port, struct fab_err *err)
{
	if (node >= f->nnodes) {
		fab_err_set(err, "link to node #%u, which does not exist", node);
		return -1;
	}
	if (port < 1 || port > f->nodes[node].nports) {
		fab_err_set(err, "\"%s\" has ports 1 to %u, not port %u", fab_desc(f, node),
			    f->nodes[node].nports, port);
		return -1;
	}
	return 0;
}

int fab_link_add(struct fabric *f, uint32_t a, unsigned pa, uint32_t b, unsigned pb,
		 struct fab_err *err)
{
	struct fab_port *x, *y;

	if (check_port(f, a, pa, err) || check_port(f, b, pb, err))
		return -1;
	if (a == b && pa == pb) {
		fab_err_set(err, "\"%s\" port %u is linked to itself", fab_desc(f, a), pa);
		return -1;
	}
	x = fab_port(f, a, pa);
	y = fab_port(f, b, pb);
	if (x->peer == b && x->peer_port == pb && y->peer == a && y->peer_port == pa)
		return 0;	/* the same link, seen from its other end */
	if (x->peer != FAB_NONE) {
		fab_err_set(err, "\"%s\" port %u is linked twice: to \"%s\" port %u and to \"%s\" port %u",
			    fab_desc(f, a), pa, fab_desc(f, x->peer), x->peer_port, fab_desc(f, b), pb);
		return -1;
	}
	if (y->peer != FAB_NONE) {
		fab_err_set(err, "\"%s\" port %u is linked twice: to \"%s\" port %u and to \"%s\" port %u",
			    fab_desc(f, b), pb, fab_desc(f, y->peer), y->peer_port, fab_desc(f, a), pa);
		return -1;
	}
	x->peer = b;
	x->peer_port = (uint8_t)pb;
	y->peer = a;
	y->peer_port = (uint8_t)pa;
	x->phys = y->phys = FAB_PHYS_LINKUP;
	x->state = y->state = FAB_LOG_ACTIVE;
	f->finalized = 0;
	return 0;
}

void fab_link_remove(struct fabric *f, uint32_t node, unsigned port)
{
	struct fab_port *x = fab_port(f, node, port), *y;

	if (x->peer == FAB_NONE)
		return;
	y = fab_port(f, x->peer, x->peer_port);
	y->peer = FAB_NONE;
	y->peer_port = 0;
	y->phys = FAB_PHYS_POLLING;
	y->state = FAB_LOG_DOWN;
	x->peer = FAB_NONE;
	x->peer_port = 0;
	x->phys = FAB_PHYS_POLLING;
	x->state = FAB_LOG_DOWN;
	f->finalized = 0;
}

int fab_switch_link_remove(struct fabric *f, uint32_t node, unsigned port)
{
	const struct fab_port *x;

	if (!f->finalized || node >= f->nnodes || port < 1 || port > f->nodes[node].nports)
		return -1;
	x = fab_port(f, node, port);
	if (f->nodes[node].type != FAB_SWITCH || x->peer == FAB_NONE ||
	    f->nodes[x->peer].type != FAB_SWITCH)
		return -1;
	fab_link_remove(f, node, port);
	f->nlinks--;
	f->finalized = 1;
	return 0;
}

/* Switch list and endpoints: switches' port 0 first, then linked CA/router ports. */
static int derive_lists(struct fabric *f, struct fab_err *err)
{
	uint32_t nsw = 0, neps = 0, i, j;

	for (i = 0; i < f->nnodes; i++) {
		const struct fab_node *n = &f->nodes[i];

		if (n->type == FAB_SWITCH) {
			nsw++;
			continue;
		}
		for (j = 1; j <= n->nports; j++)
			neps += fab_port_linked(f, i, j);
	}
	free(f->switches);
	free(f->eps);
	f->switches = malloc(((size_t)nsw + 1) * sizeof(*f->switches));
	f->eps = malloc(((size_t)nsw + neps + 1) * sizeof(*f->eps));
	if (!f->switches || !f->eps) {
		fab_err_set(err, "out of memory indexing %u nodes", f->nnodes);
		return -1;
	}
	f->nswitches = f->neps = 0;
	for (i = 0; i < f->nnodes; i++) {
		if (f->nodes[i].type != FAB_SWITCH) {
			f->nodes[i].swidx = FAB_NONE;
			continue;
		}
		f->nodes[i].swidx = f->nswitches;
		f->switches[f->nswitches++] = i;
		f->eps[f->neps++] = (struct fab_ep){ .node = i, .port = 0 };
	}
	for (i = 0; i < f->nnodes; i++) {
		const struct fab_node *n = &f->nodes[i];

		if (n->type == FAB_SWITCH)
			continue;
		for (j = 1; j <= n->nports; j++)
			if (fab_port_linked(f, i, j))
				f->eps[f->neps++] = (struct fab_ep){ .node = i, .port = (uint8_t)j };
	}
	return 0;
}

static void count_links(struct fabric *f)
{
	uint32_t links = 0;

	for (uint32_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; p <= f->nodes[i].nports; p++) {
			const struct fab_port *x = fab_port(f, i, p);

			if (x->peer != FAB_NONE && (x->peer > i || (x->peer == i && x->peer_port > p)))
				links++;
		}
	f->nlinks = links;
}

int fab_finalize(struct fabric *f, struct fab_err *err)
{
	if (fab_canon_order(f, err) || derive_lists(f, err))
		return -1;
	count_links(f);
	if (fab_index_build(f, err))
		return -1;
	f->finalized = 1;
	return 0;
}

uint32_t fab_ep_of_node(const struct fabric *f, uint32_t node, unsigned port)
{
	const struct fab_node *n;

	if (node >= f->nnodes)
		return FAB_NONE;
	n = &f->nodes[node];
	if (n->type == FAB_SWITCH)
		return fab_ep_by_port_guid(f, n->guid);
	if (port < 1 || port > n->nports || !fab_port_linked(f, node, port))
		return FAB_NONE;
	return fab_index_ep_of_port(f, n->port0 + port);
}

/* Copy the kept nodes with their ports; @map gets old -> new node index. */
static struct fabric *copy_nodes(const struct fabric *f, const uint8_t *keep, uint32_t *map,
				 struct fab_err *err)
{
	struct fabric *g = fab_new();

	if (!g) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct fab_node *n = &f->nodes[i];
		struct fab_node_info in = {
			.type = n->type, .guid = n->guid, .sysimg_guid = n->sysimg_guid,
			.vendor_id = n->vendor_id, .device_id = n->device_id,
			.nports = n->nports, .vl_cap = n->vl_cap, .desc = fab_desc(f, i),
		};

		if (!keep[i])
			continue;
		map[i] = fab_node_add(g, &in, err);
		if (map[i] == FAB_NONE) {
			fab_free(g);
			return NULL;
		}
		for (unsigned p = 0; p <= n->nports; p++) {
			struct fab_port *dst = fab_port(g, map[i], p);

			*dst = *fab_port(f, i, p);
			dst->peer = FAB_NONE;
			dst->peer_port = 0;
			if (p) {
				dst->phys = FAB_PHYS_POLLING;
				dst->state = FAB_LOG_DOWN;
			}
		}
	}
	if (f->sm_node != FAB_NONE && map[f->sm_node] != FAB_NONE) {
		g->sm_node = map[f->sm_node];
		g->sm_port = f->sm_port;
	}
	return g;
}

/* A node survives when it is not dropped and keeps a link to a surviving node. */
static void mark_kept(const struct fabric *f, const uint8_t *drop, uint8_t *keep)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		keep[i] = 0;
		if (drop[i])
			continue;
		for (unsigned p = 1; p <= f->nodes[i].nports && !keep[i]; p++) {
			uint32_t peer = fab_port(f, i, p)->peer;

			keep[i] = peer != FAB_NONE && !drop[peer];
		}
	}
}

struct fabric *fab_subset(const struct fabric *f, const uint8_t *drop, struct fab_err *err)
{
	uint8_t *keep = malloc(f->nnodes + 1u);
	uint32_t *map = malloc(((size_t)f->nnodes + 1) * sizeof(*map));
	struct fabric *g = NULL;

	if (!keep || !map) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	memset(map, 0xff, ((size_t)f->nnodes + 1) * sizeof(*map));
	mark_kept(f, drop, keep);
	g = copy_nodes(f, keep, map, err);
	if (!g)
		goto out;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; map[i] != FAB_NONE && p <= f->nodes[i].nports; p++) {
			const struct fab_port *x = fab_port(f, i, p);

			if (x->peer == FAB_NONE || map[x->peer] == FAB_NONE)
				continue;
			if (fab_link_add(g, map[i], p, map[x->peer], x->peer_port, err))
				goto fail;
		}
	if (fab_finalize(g, err) == 0)
		goto out;
fail:
	fab_free(g);
	g = NULL;
out:
	free(keep);
	free(map);
	return g;
}


/* @g, a copy of finalized @f's nodes and ports: @f's lists, counts and index too; freed on failure. */
static int copy_derived(struct fabric *g, const struct fabric *f)
{
	g->nswitches = f->nswitches;
	g->neps = f->neps;
	g->nlinks = f->nlinks;
	g->lid_top = f->lid_top;
	g->switches = fab_memdup(f->switches, (size_t)f->nswitches * sizeof(*f->switches));
	g->eps = fab_memdup(f->eps, (size_t)f->neps * sizeof(*f->eps));
	g->idx = fab_index_dup(f->idx, f);
	if (!g->switches || !g->eps || !g->idx) {
		fab_free(g);
		return -1;
	}
	g->finalized = 1;
	return 0;
}

struct fabric *fab_copy(const struct fabric *f, struct fab_err *err)
{
	struct fabric *g = calloc(1, sizeof(*g));

	if (!g)
		goto oom;
	*g = (struct fabric){
		.nnodes = f->nnodes, .nports = f->nports, .nodes_cap = f->nnodes,
		.ports_cap = f->nports, .strings_len = f->strings_len, .strings_cap = f->strings_len,
		.sm_node = f->sm_node, .sm_port = f->sm_port,
	};
	g->nodes = fab_memdup(f->nodes, (size_t)f->nnodes * sizeof(*f->nodes));
	g->ports = fab_memdup(f->ports, (size_t)f->nports * sizeof(*f->ports));
	g->strings = fab_memdup(f->strings, f->strings_len);
	if (!g->nodes || !g->ports || !g->strings)
		goto oom;
	if (f->finalized && f->idx && copy_derived(g, f)) {
		fab_err_set(err, "out of memory copying a fabric of %u nodes", f->nnodes);
		return NULL;
	}
	if (g->finalized)	/* what fab_finalize() would make again, copied */
		return g;
	if (fab_finalize(g, err) == 0)
		return g;
	fab_free(g);
	return NULL;
oom:
	fab_free(g);
	fab_err_set(err, "out of memory copying a fabric of %u nodes", f->nnodes);
	return NULL;
}

const char *fab_describe(const struct fabric *f, char *out, size_t len)
{
	uint32_t cas = 0, routers = 0, lids = 0;

	for (uint32_t n = 0; n < f->nnodes; n++) {
		cas += f->nodes[n].type == FAB_CA;
		routers += f->nodes[n].type == FAB_ROUTER;
	}
	for (uint32_t ep = 0; ep < f->neps; ep++)
		lids += fab_ep_lid(f, ep) ? 1u << fab_ep_lmc(f, ep) : 0;
	snprintf(out, len, "%u nodes (%u switches, %u CAs, %u routers), %u LIDs, %u links", f->nnodes,
		 f->nswitches, cas, routers, lids, f->nlinks);
	return out;
}

uint32_t fab_sw_peer(const struct fabric *f, uint32_t sw, unsigned p)
{
	uint32_t node = f->switches[sw];
	const struct fab_port *x;

	if (p < 1 || p > f->nodes[node].nports)
		return FAB_NONE;
	x = fab_port(f, node, p);
	if (x->peer == FAB_NONE || f->nodes[x->peer].type != FAB_SWITCH)
		return FAB_NONE;
	return f->nodes[x->peer].swidx;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int fab_sw_neighbours(const struct fabric *f, uint32_t **off_out, uint32_t **adj_out)
{
	uint32_t n = f->nswitches, total = 0;
	uint32_t *off = calloc((size_t)n + 1, sizeof(*off));
	uint32_t *adj = malloc(((size_t)f->nlinks * 2 + 1) * sizeof(*adj));

	if (!off || !adj) {
		free(off);
		free(adj);
		return -1;
	}
	for (uint32_t s = 0; s < n; s++) {
		uint32_t start = total, w = total;

		off[s] = total;
		for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
			uint32_t t = fab_sw_peer(f, s, p);

			if (t != FAB_NONE && t != s)
				adj[total++] = t;
		}
		qsort(adj + start, total - start, sizeof(*adj), cmp_u32);
		for (uint32_t i = start; i < total; i++)
			if (i == start || adj[i] != adj[w - 1])
				adj[w++] = adj[i];
		total = w;
	}
	off[n] = total;
	*off_out = off;
	*adj_out = adj;
	return 0;
}
