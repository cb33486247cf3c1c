/* SPDX-License-Identifier: MIT */
/**
 * DOC: lookup indexes
 *
 * Node GUID, port GUID and description lookups use open-addressed hash
 * tables with linear probing, built once by fab_finalize() at a load factor
 * of at most 1/2 (16 bytes a slot for GUIDs, 4 for descriptions). LIDs use
 * a flat array over the whole unicast range (4 bytes a LID, 192 KiB) so
 * that every LID of an LMC range finds its endpoint directly.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/index.h"

struct guid_slot {
	uint64_t key;		/* 0 = empty (GUID 0 is never valid) */
	uint32_t val;
};

struct guid_map {
	struct guid_slot *slots;
	uint32_t mask;
};

struct fab_index {
	struct guid_map node_guid;	/* node GUID -> node */
	struct guid_map port_guid;	/* port GUID -> endpoint */
	uint32_t *desc_slots;		/* node index, FAB_NONE = empty */
	uint32_t *desc_count;		/* per node: nodes sharing its description */
	uint32_t desc_mask;
	uint32_t *slot_ep;		/* port slot -> endpoint */
	uint32_t *lid_ep;		/* LID -> endpoint */
};

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t table_size(uint32_t n)
{
	uint32_t cap = 16;

	while (cap < 2 * n + 2)
		cap *= 2;
	return cap;
}

static int gmap_init(struct guid_map *m, uint32_t n)
{
	uint32_t cap = table_size(n);

	m->slots = calloc(cap, sizeof(*m->slots));
	m->mask = cap - 1;
	return m->slots ? 0 : -1;
}

/* Insert; returns FAB_NONE when inserted, else the value already there. */
static uint32_t gmap_put(struct guid_map *m, uint64_t key, uint32_t val)
{
	uint32_t i = (uint32_t)mix64(key) & m->mask;

	while (m->slots[i].key) {
		if (m->slots[i].key == key)
			return m->slots[i].val;
		i = (i + 1) & m->mask;
	}
	m->slots[i].key = key;
	m->slots[i].val = val;
	return FAB_NONE;
}

static uint32_t gmap_get(const struct guid_map *m, uint64_t key)
{
	uint32_t i;

	if (!m->slots || !key)
		return FAB_NONE;
	for (i = (uint32_t)mix64(key) & m->mask; m->slots[i].key; i = (i + 1) & m->mask)
		if (m->slots[i].key == key)
			return m->slots[i].val;
	return FAB_NONE;
}

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

void fab_index_free(struct fab_index *idx)
{
	if (!idx)
		return;
	free(idx->node_guid.slots);
	free(idx->port_guid.slots);
	free(idx->desc_slots);
	free(idx->desc_count);
	free(idx->slot_ep);
	free(idx->lid_ep);
	free(idx);
}

static int index_nodes(struct fabric *f, struct fab_index *x, struct fab_err *err)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		uint32_t prev = gmap_put(&x->node_guid, f->nodes[i].guid, i);

		if (prev != FAB_NONE) {
			fab_err_set(err, "duplicate node GUID 0x%016" PRIx64 ": \"%s\" and \"%s\"",
				    f->nodes[i].guid, fab_desc(f, prev), fab_desc(f, i));
			return -1;
		}
	}
	return 0;
}

static int index_descs(struct fabric *f, struct fab_index *x)
{
	uint32_t cap = table_size(f->nnodes);

	x->desc_slots = malloc((size_t)cap * sizeof(uint32_t));
	x->desc_count = calloc((size_t)f->nnodes + 1, sizeof(uint32_t));
	if (!x->desc_slots || !x->desc_count)
		return -1;
	memset(x->desc_slots, 0xff, (size_t)cap * sizeof(uint32_t));
	x->desc_mask = cap - 1;
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const char *d = fab_desc(f, i);
		uint32_t s = str_hash(d) & x->desc_mask;

		while (x->desc_slots[s] != FAB_NONE && strcmp(fab_desc(f, x->desc_slots[s]), d))
			s = (s + 1) & x->desc_mask;
		if (x->desc_slots[s] == FAB_NONE)
			x->desc_slots[s] = i;
		x->desc_count[x->desc_slots[s]]++;
	}
	return 0;
}

static int index_eps(struct fabric *f, struct fab_index *x, struct fab_err *err)
{
	for (uint32_t i = 0; i < f->nports; i++)
		x->slot_ep[i] = FAB_NONE;
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_ep *ep = &f->eps[e];
		const struct fab_port *p = fab_port(f, ep->node, ep->port);
		uint32_t prev;

		x->slot_ep[f->nodes[ep->node].port0 + ep->port] = e;
		if (!p->guid) {
			fab_err_set(err, "\"%s\" port %u has port GUID 0", fab_desc(f, ep->node),
				    ep->port);
			return -1;
		}
		prev = gmap_put(&x->port_guid, p->guid, e);
		if (prev != FAB_NONE) {
			fab_err_set(err, "duplicate port GUID 0x%016" PRIx64 ": \"%s\" port %u and \"%s\" port %u",
				    p->guid, fab_desc(f, f->eps[prev].node), f->eps[prev].port,
				    fab_desc(f, ep->node), ep->port);
			return -1;
		}
	}
	return 0;
}

int fab_index_lids(struct fabric *f, struct fab_err *err)
{
	struct fab_index *x = f->idx;

	f->lid_top = 0;
	for (uint32_t l = 0; l <= FAB_LID_UCAST_MAX; l++)
		x->lid_ep[l] = FAB_NONE;
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_port *p = fab_port(f, f->eps[e].node, f->eps[e].port);
		uint32_t n, l;

		if (!p->lid)
			continue;
		if (p->lmc > FAB_LMC_MAX) {
			fab_err_set(err, "\"%s\" port %u: LMC %u, expected 0 to %u",
				    fab_desc(f, f->eps[e].node), f->eps[e].port, p->lmc, FAB_LMC_MAX);
			return -1;
		}
		n = 1u << p->lmc;
		if (p->lid % n || p->lid + n - 1 > FAB_LID_UCAST_MAX) {
			fab_err_set(err, "\"%s\" port %u: LID %u with LMC %u is %s",
				    fab_desc(f, f->eps[e].node), f->eps[e].port, p->lid, p->lmc,
				    p->lid % n ? "not aligned to 2^LMC" : "past the unicast range (0xBFFF)");
			return -1;
		}
		for (l = p->lid; l < p->lid + n; l++) {
			if (x->lid_ep[l] != FAB_NONE) {
				const struct fab_ep *o = &f->eps[x->lid_ep[l]];

				fab_err_set(err, "LID %u is owned twice: \"%s\" port %u and \"%s\" port %u",
					    l, fab_desc(f, o->node), o->port,
					    fab_desc(f, f->eps[e].node), f->eps[e].port);
				return -1;
			}
			x->lid_ep[l] = e;
		}
		if (p->lid + n - 1 > f->lid_top)
			f->lid_top = p->lid + n - 1;
	}
	return 0;
}

static int gmap_dup(struct guid_map *to, const struct guid_map *from)
{
	to->mask = from->mask;
	to->slots = fab_memdup(from->slots, ((size_t)from->mask + 1) * sizeof(*from->slots));
	return to->slots ? 0 : -1;
}

struct fab_index *fab_index_dup(const struct fab_index *x, const struct fabric *f)
{
	struct fab_index *y = calloc(1, sizeof(*y));

	if (!y)
		return NULL;
	y->desc_mask = x->desc_mask;
	y->desc_slots = fab_memdup(x->desc_slots, ((size_t)x->desc_mask + 1) * sizeof(uint32_t));
	y->desc_count = fab_memdup(x->desc_count, ((size_t)f->nnodes + 1) * sizeof(uint32_t));
	y->slot_ep = fab_memdup(x->slot_ep, ((size_t)f->nports + 1) * sizeof(uint32_t));
	y->lid_ep = fab_memdup(x->lid_ep, (FAB_LID_UCAST_MAX + 1) * sizeof(uint32_t));
	if (gmap_dup(&y->node_guid, &x->node_guid) || gmap_dup(&y->port_guid, &x->port_guid) ||
	    !y->desc_slots || !y->desc_count || !y->slot_ep || !y->lid_ep) {
		fab_index_free(y);
		return NULL;
	}
	return y;
}

int fab_index_build(struct fabric *f, struct fab_err *err)
{
	struct fab_index *x = calloc(1, sizeof(*x));

	fab_index_free(f->idx);
	f->idx = x;
	if (!x || gmap_init(&x->node_guid, f->nnodes) || gmap_init(&x->port_guid, f->neps) ||
	    !(x->slot_ep = malloc(((size_t)f->nports + 1) * sizeof(uint32_t))) ||
	    !(x->lid_ep = malloc((FAB_LID_UCAST_MAX + 1) * sizeof(uint32_t))) ||
	    index_descs(f, x)) {
		fab_err_set(err, "out of memory indexing %u nodes", f->nnodes);
		return -1;
	}
	if (index_nodes(f, x, err) || index_eps(f, x, err))
		return -1;
	return fab_index_lids(f, err);
}

uint32_t fab_node_by_guid(const struct fabric *f, uint64_t guid)
{
	return f->idx ? gmap_get(&f->idx->node_guid, guid) : FAB_NONE;
}

uint32_t fab_ep_by_port_guid(const struct fabric *f, uint64_t guid)
{
	return f->idx ? gmap_get(&f->idx->port_guid, guid) : FAB_NONE;
}

uint32_t fab_ep_by_lid(const struct fabric *f, unsigned lid)
{
	if (!f->idx || lid == 0 || lid > FAB_LID_UCAST_MAX)
		return FAB_NONE;
	return f->idx->lid_ep[lid];
}

uint32_t fab_index_ep_of_port(const struct fabric *f, uint32_t slot)
{
	return f->idx && slot < f->nports ? f->idx->slot_ep[slot] : FAB_NONE;
}

uint32_t fab_node_by_desc(const struct fabric *f, const char *desc, unsigned *count)
{
	const struct fab_index *x = f->idx;
	uint32_t s;

	if (count)
		*count = 0;
	if (!x || !desc)
		return FAB_NONE;
	for (s = str_hash(desc) & x->desc_mask; x->desc_slots[s] != FAB_NONE;
	     s = (s + 1) & x->desc_mask) {
		uint32_t n = x->desc_slots[s];

		if (!strcmp(fab_desc(f, n), desc)) {
			if (count)
				*count = x->desc_count[n];
			return n;
		}
	}
	return FAB_NONE;
}

/* --- topology hash ------------------------------------------------------ */

struct link_rec {
	uint64_t ga, gb;
	uint8_t pa, pb;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_link(const void *a, const void *b)
{
	const struct link_rec *x = a, *y = b;

	if (x->ga != y->ga)
		return x->ga < y->ga ? -1 : 1;
	if (x->pa != y->pa)
		return x->pa < y->pa ? -1 : 1;
	if (x->gb != y->gb)
		return x->gb < y->gb ? -1 : 1;
	return (x->pb > y->pb) - (x->pb < y->pb);
}

static uint64_t fnv(uint64_t h, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		h = (h ^ ((v >> (8 * i)) & 0xff)) * 0x100000001b3ull;
	return h;
}

static uint64_t hash_nodes(const struct fabric *f, uint64_t h)
{
	uint64_t *keys = malloc(((size_t)f->nnodes + 1) * sizeof(*keys));

	if (!keys)
		return 0;
	int sorted = 1;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		keys[i] = f->nodes[i].guid;
		sorted &= !i || keys[i - 1] < keys[i];
	}
	if (!sorted)	/* a finalized fabric's nodes are in GUID order already */
		qsort(keys, f->nnodes, sizeof(*keys), cmp_u64);
	for (uint32_t i = 0; i < f->nnodes; i++) {
		uint32_t n = sorted ? i : fab_node_by_guid(f, keys[i]);

		h = fnv(h, f->nodes[n].type, 1);
		h = fnv(h, keys[i], 8);
		h = fnv(h, f->nodes[n].nports, 1);
	}
	free(keys);
	return h;
}

static uint64_t hash_links(const struct fabric *f, uint64_t h)
{
	struct link_rec *l = malloc(((size_t)f->nlinks + 1) * sizeof(*l));
	uint32_t n = 0;

	if (!l)
		return 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; p <= f->nodes[i].nports; p++) {
			const struct fab_port *x = fab_port(f, i, p);
			struct link_rec r;

			if (x->peer == FAB_NONE)
				continue;
			r = (struct link_rec){ f->nodes[i].guid, f->nodes[x->peer].guid,
					       (uint8_t)p, x->peer_port };
			if (r.ga > r.gb || (r.ga == r.gb && r.pa > r.pb))
				continue;	/* counted from the other end */
			if (n < f->nlinks)
				l[n++] = r;
		}
	for (uint32_t i = 1; i < n; i++)
		if (cmp_link(&l[i - 1], &l[i]) > 0) {	/* in node order, they come sorted */
			qsort(l, n, sizeof(*l), cmp_link);
			break;
		}
	for (uint32_t i = 0; i < n; i++) {
		h = fnv(h, l[i].ga, 8);
		h = fnv(h, l[i].pa, 1);
		h = fnv(h, l[i].gb, 8);
		h = fnv(h, l[i].pb, 1);
	}
	free(l);
	return h;
}

uint64_t fab_topology_hash(const struct fabric *f)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = fnv(h, f->nnodes, 4);
	h = fnv(h, f->nlinks, 4);
	h = hash_nodes(f, h);
	return hash_links(f, h);
}
