/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - the channel dependencies of a transition between two routings
 *
 * A subnet manager writes new tables one switch at a time, so for a while
 * some switches forward with the old entries and some with the new. A
 * packet then follows, at each switch, either entry; ftdlr_transition()
 * builds the channel dependency graph of every such path and looks for a
 * cycle. The repair's writes are ordered downstream first, but the check
 * does not rely on any order: it allows every mix.
 *
 * Per destination LID and path SL, a search over states (switch, input
 * port, VL of the input channel): sources are every endpoint that uses the
 * LID with that SL (switch port 0 and the CA ports); at each state both
 * entries are followed (the old one through a's table of the same switch,
 * matched by GUID), each hop's VL from that routing's SL2VL table. A
 * channel is a directed link between two switches on one VL; a dependency
 * joins the input channel to the output channel of a switch. Cost: per LID
 * and SL, O(states reached x 2); the dependencies are kept in a hash set.
 * With a == b this is b's own dependency graph: an independent check of
 * what analysis/ computes.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr/ftdlr.h"

#define NOCH UINT32_MAX
#define VLS 17u		/* VLs 0..15, and 16: no input channel (the source's switch) */

/* --- a hash set of dependencies --------------------------------------------------- */

struct deps {
	uint64_t *k;
	size_t cap, n;
};

static int deps_grow(struct deps *d)
{
	size_t cap = d->cap ? d->cap * 2 : 4096;
	uint64_t *k = calloc(cap, sizeof(*k));

	if (!k)
		return -1;
	for (size_t i = 0; i < d->cap; i++) {
		size_t h;

		if (!d->k[i])
			continue;
		h = (size_t)(d->k[i] * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
		while (k[h])
			h = (h + 1) & (cap - 1);
		k[h] = d->k[i];
	}
	free(d->k);
	d->k = k;
	d->cap = cap;
	return 0;
}

/* Add from -> to (channel ids + 1, so that the key is never 0). */
static int deps_add(struct deps *d, uint32_t from, uint32_t to)
{
	uint64_t key = (uint64_t)(from + 1u) << 32 | (to + 1u);
	size_t h;

	if ((d->n + 1) * 2 > d->cap && deps_grow(d))
		return -1;
	h = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (d->cap - 1);
	while (d->k[h] && d->k[h] != key)
		h = (h + 1) & (d->cap - 1);
	if (!d->k[h]) {
		d->k[h] = key;
		d->n++;
	}
	return 0;
}

/* --- the walk ------------------------------------------------------------------------ */

/**
 * struct tw - one transition's walk
 * @old: per switch of @f, its index in @fa (FAB_NONE: not there)
 * @swof: per port slot of @f, the switch it belongs to (FAB_NONE: a CA's)
 * @ea: per endpoint of @f, the same endpoint in @fa (FAB_NONE: not there)
 * @a_lid: per LID of @a's LFTs, some endpoint of @fa owns it (entries for
 *         a LID that had gone away are no old paths)
 * @seen, @stamp: per state (port slot of @f x VLS), the pass that reached it
 * @queue: states to expand
 */
struct tw {
	const struct fabric *f, *fa;
	const struct rt_routing *a, *b;
	uint32_t *old, *swof, *ea;
	uint8_t *a_lid;
	uint32_t *seen, stamp;
	uint32_t *queue, nq;
	struct deps deps;
};

/* The two (port, VL) choices of switch @c for @lid entered by @in with @sl. */
static unsigned choices(const struct tw *w, uint32_t c, unsigned in, unsigned lid, unsigned sl,
			uint8_t port[2], uint8_t vl[2])
{
	unsigned n = 0;

	port[0] = rt_lft_get(w->b, c, lid);
	vl[0] = (uint8_t)rt_sl2vl_get(w->b, w->f, c, in, port[0], sl);
	n = 1;
	if (w->old[c] != FAB_NONE && lid < w->a->lft_len && w->a_lid[lid]) {
		uint32_t o = w->old[c];
		uint8_t p = rt_lft_get(w->a, o, lid);
		uint8_t v = (uint8_t)rt_sl2vl_get(w->a, w->fa, o, in, p, sl);

		if (p != port[0] || v != vl[0]) {
			port[n] = p;
			vl[n++] = v;
		}
	}
	return n;
}

static int push(struct tw *w, uint32_t state)
{
	if (w->seen[state] == w->stamp)
		return 0;
	w->seen[state] = w->stamp;
	w->queue[w->nq++] = state;
	return 0;
}

/* Expand state (switch @c entered by port @in on channel @ch) for @lid, @sl. */
static int expand(struct tw *w, uint32_t c, unsigned in, uint32_t ch, unsigned lid, unsigned sl)
{
	const struct fabric *f = w->f;
	uint32_t node = f->switches[c];
	uint8_t port[2], vl[2];
	unsigned n = choices(w, c, in, lid, sl, port, vl);

	for (unsigned i = 0; i < n; i++) {
		const struct fab_port *p;
		uint32_t out;

		if (port[i] == RT_NO_PORT || port[i] == 0 || port[i] > f->nodes[node].nports)
			continue;
		p = fab_port(f, node, port[i]);
		if (p->peer == FAB_NONE || f->nodes[p->peer].type != FAB_SWITCH)
			continue;	/* delivered, or dropped: no switch channel */
		out = (f->nodes[node].port0 + port[i]) * 16u + vl[i];
		if (ch != NOCH && deps_add(&w->deps, ch, out))
			return -1;
		push(w, (f->nodes[p->peer].port0 + p->peer_port) * VLS + vl[i]);
	}
	return 0;
}

/* The SL pair (@e, @d) had in @a; its SL in @b when @a did not know it. */
static unsigned old_sl(const struct tw *w, uint32_t e, uint32_t d)
{
	if (!w->a->path_sl || w->ea[e] == FAB_NONE || w->ea[d] == FAB_NONE)
		return rt_path_sl(w->b, e, d);
	return rt_path_sl(w->a, w->ea[e], w->ea[d]);
}

/* Sources of LID @lid (owned by endpoint @dst) on @sl, in @a or @b: start the pass. */
static void sources(struct tw *w, uint32_t dst, unsigned lid, unsigned sl)
{
	const struct fabric *f = w->f;

	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t node = f->eps[e].node;
		const struct fab_port *p = fab_port(f, node, f->eps[e].port);

		if (e == dst || rt_dlid(w->b, f, e, dst) != lid ||
		    (rt_path_sl(w->b, e, dst) != sl && old_sl(w, e, dst) != sl))
			continue;
		if (f->nodes[node].type == FAB_SWITCH)
			push(w, f->nodes[node].port0 * VLS + 16);
		else if (p->peer != FAB_NONE && f->nodes[p->peer].type == FAB_SWITCH)
			push(w, (f->nodes[p->peer].port0 + p->peer_port) * VLS + 16);
	}
}

/* The channel arriving at port slot @slot on @vl. */
static uint32_t in_channel(const struct tw *w, uint32_t slot, uint32_t vl)
{
	const struct fab_port *p = &w->f->ports[slot];

	return (w->f->nodes[p->peer].port0 + p->peer_port) * 16u + vl;
}

static int pass(struct tw *w, uint32_t dst, unsigned lid, unsigned sl)
{
	w->stamp++;
	w->nq = 0;
	sources(w, dst, lid, sl);
	for (uint32_t i = 0; i < w->nq; i++) {
		uint32_t state = w->queue[i], slot = state / VLS, vl = state % VLS;
		uint32_t c = w->swof[slot];
		unsigned in = slot - w->f->nodes[w->f->switches[c]].port0;

		if (expand(w, c, in, vl == 16 ? NOCH : in_channel(w, slot, vl), lid, sl))
			return -1;
	}
	return 0;
}

/* SLs the sources of @lid (owned by @dst) use, as a mask. */
static unsigned sl_mask(const struct tw *w, uint32_t dst, unsigned lid)
{
	unsigned mask = 0;

	if (!w->b->path_sl && !w->a->path_sl)
		return 1;
	for (uint32_t e = 0; e < w->f->neps; e++)
		if (e != dst && (!w->b->dlid_off || rt_dlid(w->b, w->f, e, dst) == lid))
			mask |= 1u << rt_path_sl(w->b, e, dst) | 1u << old_sl(w, e, dst);
	return mask;
}

/* --- cycles ------------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t dense(const uint32_t *ids, uint32_t n, uint32_t id)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Iterative DFS over CSR (@off, @adj) of @n nodes: 1 when a cycle exists
 * (its first nodes, up to FTDLR_CYCLE, into @cyc, their count into *@len),
 * 0 when none, -1 out of memory.
 */
static int has_cycle(const uint32_t *off, const uint32_t *adj, uint32_t n, uint32_t *cyc,
		     uint32_t *len)
{
	uint8_t *color = calloc((size_t)n + 1, 1);
	uint32_t *stack = malloc(((size_t)n + 1) * sizeof(*stack));
	uint32_t *pos = malloc(((size_t)n + 1) * sizeof(*pos));
	int found = 0;

	if (!color || !stack || !pos) {
		found = -1;
		goto out;
	}
	for (uint32_t s = 0; s < n && !found; s++) {
		uint32_t top = 0;

		if (color[s])
			continue;
		stack[top++] = s;
		color[s] = 1;
		pos[s] = off[s];
		while (top && !found) {
			uint32_t v = stack[top - 1], t;

			if (pos[v] == off[v + 1]) {
				color[v] = 2;
				top--;
				continue;
			}
			t = adj[pos[v]++];
			if (color[t] == 1) {
				uint32_t i = top;

				while (i && stack[i - 1] != t)
					i--;
				for (*len = 0; i - 1 < top && *len < FTDLR_CYCLE; i++)
					cyc[(*len)++] = stack[i - 1];
				found = 1;
			} else if (!color[t]) {
				color[t] = 1;
				pos[t] = off[t];
				stack[top++] = t;
			}
		}
	}
out:
	free(color);
	free(stack);
	free(pos);
	return found;
}

/* Channels, dependencies and a cycle search over w->deps. */
static int judge(struct tw *w, struct ftdlr_trans *t)
{
	size_t n = 0;
	uint64_t *e = malloc((w->deps.n + 1) * sizeof(*e));
	uint32_t *ids = malloc((2 * w->deps.n + 1) * sizeof(*ids)), *off = NULL, *adj = NULL;
	uint32_t nid = 0;
	int rc = -1;

	if (!e || !ids)
		goto out;
	for (size_t i = 0; i < w->deps.cap; i++)
		if (w->deps.k[i])
			e[n++] = w->deps.k[i];
	qsort(e, n, sizeof(*e), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		ids[2 * i] = (uint32_t)(e[i] >> 32);
		ids[2 * i + 1] = (uint32_t)e[i];
	}
	qsort(ids, 2 * n, sizeof(*ids), cmp_u32);
	for (size_t i = 0; i < 2 * n; i++)
		if (!nid || ids[nid - 1] != ids[i])
			ids[nid++] = ids[i];
	off = calloc((size_t)nid + 2, sizeof(*off));
	adj = malloc((n + 1) * sizeof(*adj));
	if (!off || !adj)
		goto out;
	for (size_t i = 0; i < n; i++)
		off[dense(ids, nid, (uint32_t)(e[i] >> 32)) + 1]++;
	for (uint32_t i = 0; i < nid; i++)
		off[i + 1] += off[i];
	for (size_t i = 0; i < n; i++)	/* sorted by source: fill in order */
		adj[i] = dense(ids, nid, (uint32_t)e[i]);
	rc = has_cycle(off, adj, nid, t->cycle, &t->cycle_len);
	if (rc >= 0) {
		t->deps = n;
		t->channels = nid;
		t->acyclic = !rc;
		for (uint32_t i = 0; i < t->cycle_len; i++)
			t->cycle[i] = ids[t->cycle[i]] - 1;	/* back to channel ids */
		rc = 0;
	}
out:
	free(e);
	free(ids);
	free(off);
	free(adj);
	return rc;
}

/* --- the transition ---------------------------------------------------------------- */

static void tw_fini(struct tw *w)
{
	free(w->old);
	free(w->swof);
	free(w->ea);
	free(w->a_lid);
	free(w->seen);
	free(w->queue);
	free(w->deps.k);
}

static int tw_init(struct tw *w)
{
	const struct fabric *f = w->f;
	size_t states = ((size_t)f->nports + 1) * VLS;

	w->old = malloc(((size_t)f->nswitches + 1) * sizeof(*w->old));
	w->swof = malloc(((size_t)f->nports + 1) * sizeof(*w->swof));
	w->seen = calloc(states, sizeof(*w->seen));
	w->queue = malloc(states * sizeof(*w->queue));
	w->ea = malloc(((size_t)f->neps + 1) * sizeof(*w->ea));
	w->a_lid = calloc((size_t)w->a->lft_len + 1, 1);
	if (!w->old || !w->swof || !w->seen || !w->queue || !w->ea || !w->a_lid ||
	    deps_grow(&w->deps))
		return -1;
	for (uint32_t e = 0; e < w->fa->neps; e++) {
		unsigned lid = fab_ep_lid(w->fa, e), top = lid + (1u << fab_ep_lmc(w->fa, e));

		for (unsigned l = lid; lid && l < top && l < w->a->lft_len; l++)
			w->a_lid[l] = 1;
	}
	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t o = fab_ep_by_port_guid(w->fa, fab_port(f, f->eps[e].node,
							      f->eps[e].port)->guid);

		w->ea[e] = o != FAB_NONE && o < w->a->neps ? o : FAB_NONE;
	}
	for (uint32_t i = 0; i < f->nports; i++)
		w->swof[i] = FAB_NONE;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		const struct fab_node *n = &f->nodes[f->switches[s]];
		uint32_t o = fab_node_by_guid(w->fa, n->guid);

		w->old[s] = o == FAB_NONE || w->fa->nodes[o].type != FAB_SWITCH ||
			    w->fa->nodes[o].nports != n->nports ? FAB_NONE : w->fa->nodes[o].swidx;
		if (w->old[s] != FAB_NONE && w->old[s] >= w->a->nswitches)
			w->old[s] = FAB_NONE;
		for (unsigned p = 0; p <= n->nports; p++)
			w->swof[n->port0 + p] = s;
	}
	return 0;
}

int ftdlr_transition(const struct fabric *f, const struct fabric *fa, const struct rt_routing *a,
		     const struct rt_routing *b, struct ftdlr_trans *t, struct fab_err *err)
{
	return ftdlr_transition_sls(f, fa, a, b, 0xffff, 0, t, err);
}

int ftdlr_transition_sls(const struct fabric *f, const struct fabric *fa,
			 const struct rt_routing *a, const struct rt_routing *b, unsigned sls,
			 int switches_only, struct ftdlr_trans *t, struct fab_err *err)
{
	struct tw w = { .f = f, .fa = fa, .a = a, .b = b };
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (b->nswitches != f->nswitches || b->neps != f->neps || b->lft_len < f->lid_top + 1) {
		fab_err_set(err, "the routing was not computed for this fabric");
		return -1;
	}
	if (tw_init(&w))
		goto out;
	for (uint32_t d = 0; d < f->neps; d++) {
		unsigned lid = fab_ep_lid(f, d), n = 1u << fab_ep_lmc(f, d);

		if (switches_only && f->nodes[f->eps[d].node].type != FAB_SWITCH)
			continue;
		for (unsigned l = lid; lid && l < lid + n; l++) {
			unsigned mask = sl_mask(&w, d, l) & sls;

			for (unsigned sl = 0; sl < RT_SLS; sl++)
				if ((mask & (1u << sl)) && pass(&w, d, l, sl))
					goto out;
		}
	}
	rc = judge(&w, t);
out:
	if (rc)
		fab_err_set(err, "out of memory checking the dependencies of %u switches",
			    f->nswitches);
	tw_fini(&w);
	return rc;
}
