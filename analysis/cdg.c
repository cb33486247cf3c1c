/* SPDX-License-Identifier: MIT */
/**
 * DOC: channel dependency graph
 *
 * A channel is a directed switch-to-switch link on one VL (links to and from
 * CAs cannot be on a cycle: nothing waits behind a CA's receive buffer and
 * nothing comes into a CA's send buffer). A path that leaves a switch on
 * channel a and the next switch on channel b makes b depend on a. The walks
 * that find them are in analysis/dest.c; here the counted channels and
 * dependencies become a compact graph (nodes in channel id order, each
 * node's successors in id order, so the searches below, and the cycle they
 * report, do not depend on the order the walks ran in).
 *
 * Per VL, a depth-first search over the VL's channels finds a cycle when
 * there is one. Tarjan's strongly connected components over all channels
 * tell whether a cycle runs through several VLs.
 *
 * With one VL slot and no dependency across VLs (the block pass's), the
 * graph is not built first: Kahn's order over the marks or counts proves
 * it acyclic when it takes every channel (by_kahn()); the graph is built
 * only when a cycle is left, for the search to name it.
 *
 * An acyclic graph on VL 0 (the block pass's) also gets an order every
 * dependency follows (struct an_ranks): a re-evaluation that adds only
 * dependencies going up in it is acyclic without building the graph or
 * searching it (an_cdg_ranked()), which at 10^4 switches is most of the
 * cost of proving a local repair.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

static void fill_channel(const struct fabric *f, uint32_t id, struct an_channel *ch)
{
	uint32_t slot = id / AN_VLS;
	uint32_t lo = 0, hi = f->nnodes;

	/* the node whose port slots hold @slot: nodes are in port0 order */
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;

		if (f->nodes[mid].port0 <= slot)
			lo = mid;
		else
			hi = mid;
	}
	ch->node = lo;
	ch->port = (uint8_t)(slot - f->nodes[lo].port0);
	ch->vl = (uint8_t)(id % AN_VLS);
}

static int vl_cycle(const struct fabric *f, const struct an_graph *g, unsigned v,
		    struct an_cdg *out)
{
	uint32_t *cyc = NULL, len = 0;

	out->vl[v].acyclic = 1;
	if (!out->vl[v].channels)
		return 0;
	if (an_graph_cycle(g, v, AN_VLS, &cyc, &len))
		return -1;
	if (!len)
		return 0;
	out->vl[v].acyclic = 0;
	out->deadlock_free = 0;
	out->vl[v].cycle = calloc(len, sizeof(*out->vl[v].cycle));
	if (!out->vl[v].cycle) {
		free(cyc);
		return -1;
	}
	for (uint32_t i = 0; i < len; i++)
		fill_channel(f, g->id[cyc[i]], &out->vl[v].cycle[i]);
	out->vl[v].cycle_len = len;
	free(cyc);
	return 0;
}

int an_cdg_analyse(const struct fabric *f, const struct an_graph *g, struct an_cdg *out)
{
	for (uint32_t i = 0; i < g->n; i++)
		out->vl[g->id[i] % AN_VLS].channels++;
	for (uint32_t i = 0; i < g->n; i++)
		for (uint32_t k = g->off[i]; k < g->off[i + 1]; k++) {
			unsigned a = g->id[i] % AN_VLS, b = g->id[g->adj[k]] % AN_VLS;

			if (a == b)
				out->vl[a].deps++;
			else
				out->cross_deps++;
		}
	out->deadlock_free = 1;
	for (unsigned v = 0; v < AN_VLS; v++)
		if (vl_cycle(f, g, v, out))
			return -1;
	/* a cycle through several VLs takes a dependency from one VL to another */
	if (out->cross_deps && an_graph_cross_cycle(g, AN_VLS, &out->cross_cycle))
		return -1;
	if (out->cross_cycle)
		out->deadlock_free = 0;
	return 0;
}

void an_cdg_free(struct an_cdg *cdg)
{
	for (unsigned v = 0; v < AN_VLS; v++) {
		free(cdg->vl[v].cycle);
		cdg->vl[v].cycle = NULL;
	}
}

/* --- the graph of the counted channels ------------------------------------ */

/* Dependencies across VLs, as (from node, to node) sorted. */
struct xdep {
	uint32_t from, to;
};

static int xdep_cmp(const void *a, const void *b)
{
	const struct xdep *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

/* The switch port (index in the plan's port table) of channel id @id. */
static uint32_t pti_of(const struct an_plan *p, uint32_t id)
{
	const struct fabric *f = p->c.f;
	struct an_channel ch;

	fill_channel(f, id, &ch);
	return p->pt_base[f->nodes[ch.node].swidx] + ch.port;
}

struct gbuild {
	const struct an_plan *p;
	const struct an_acc *a;
	uint32_t *node_of;	/* per block index: graph node, FAB_NONE */
	struct xdep *x;
	size_t nx;
};

/* Channels with walks through them become nodes, in id order. */
static int make_nodes(struct gbuild *b, struct an_graph *g)
{
	const struct an_plan *p = b->p;
	const struct fabric *f = p->c.f;
	const struct an_acc *a = b->a;

	b->node_of = malloc(((size_t)a->nblk + 1) * sizeof(*b->node_of));
	g->id = malloc(((size_t)a->nblk + 1) * sizeof(*g->id));
	if (!b->node_of || !g->id)
		return -1;
	memset(b->node_of, 0xff, (size_t)a->nblk * sizeof(*b->node_of));
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t port0 = f->nodes[f->switches[s]].port0;

		for (uint32_t q = 1; p->pt_base[s] + q < p->pt_base[s + 1]; q++)
			for (uint32_t v = 0; v < p->nvs; v++) {
				uint32_t i = (p->pt_base[s] + q) * p->nvs + v;

				if (p->bits ? !an_acc_bit(a, (size_t)(p->pt_base[s] + q) * p->wblk) :
				    !a->chan[i])
					continue;
				b->node_of[i] = g->n;
				g->id[g->n++] = (port0 + q) * AN_VLS + v;
			}
	}
	return 0;
}

/* Dependencies across VLs between nodes, sorted. */
static int make_cross(struct gbuild *b)
{
	const struct an_cmap *m = &b->a->cross;
	const struct an_plan *p = b->p;

	b->x = malloc((m->n + 1) * sizeof(*b->x));
	if (!b->x)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		uint32_t from, to;

		if (!m->keys[i] || !m->cnt[i])
			continue;
		from = (uint32_t)(m->keys[i] >> 32);
		to = (uint32_t)m->keys[i];
		from = b->node_of[pti_of(p, from) * p->nvs + from % AN_VLS];
		to = b->node_of[pti_of(p, to) * p->nvs + to % AN_VLS];
		if (from != FAB_NONE && to != FAB_NONE)
			b->x[b->nx++] = (struct xdep){ from, to };
	}
	qsort(b->x, b->nx, sizeof(*b->x), xdep_cmp);
	return 0;
}

/*
 * Successors of node @i (channel @blk_i, leading to switch @t on VL @v):
 * same-VL ones from the block, other-VL ones from b->x (from *@xi on),
 * merged in node order, into @adj; their number.
 */
static uint32_t successors(struct gbuild *b, uint32_t i, uint32_t blk_i, uint32_t t, unsigned v,
			   size_t *xi, uint32_t *adj)
{
	const struct an_plan *p = b->p;
	const uint32_t *cnt = p->bits ? NULL : b->a->arena + b->a->blk[blk_i] + 1;
	size_t bit = (size_t)blk_i * p->wblk + 1;
	uint32_t n = 0, nq = p->pt_base[t + 1] - p->pt_base[t];

	for (uint32_t q = 0; q < nq; q++) {
		uint32_t to;

		if (cnt ? !cnt[q] : !an_acc_bit(b->a, bit + q))
			continue;
		to = b->node_of[(p->pt_base[t] + q) * p->nvs + (p->nvs > 1 ? v : 0)];
		if (to == FAB_NONE)
			continue;
		while (*xi < b->nx && b->x[*xi].from == i && b->x[*xi].to < to)
			adj[n++] = b->x[(*xi)++].to;
		adj[n++] = to;
	}
	while (*xi < b->nx && b->x[*xi].from == i)
		adj[n++] = b->x[(*xi)++].to;
	return n;
}

/*
 * The CSR adjacency in one pass: nodes come in block order, so each
 * node's successors follow the last's; the array is sized for the most
 * there can be (every port of the next switch, every dependency across
 * VLs), of which the pages never written are never touched.
 */
static int make_edges(struct gbuild *b, struct an_graph *g)
{
	const struct an_plan *p = b->p;
	size_t xi = 0, most = b->nx;

	g->off = calloc((size_t)g->n + 2, sizeof(*g->off));
	if (!g->off)
		return -1;
	for (uint32_t blk_i = 0; blk_i < b->a->nblk; blk_i++) {
		uint32_t t = AN_PT_VAL(p->pt[blk_i / p->nvs]);

		if (b->node_of[blk_i] != FAB_NONE)
			most += p->pt_base[t + 1] - p->pt_base[t];
	}
	if (!(g->adj = malloc((most + 1) * sizeof(*g->adj))))
		return -1;
	for (uint32_t blk_i = 0; blk_i < b->a->nblk; blk_i++) {
		uint32_t node = b->node_of[blk_i];

		if (node != FAB_NONE)
			g->off[node + 1] = g->off[node] +
					   successors(b, node, blk_i, AN_PT_VAL(p->pt[blk_i / p->nvs]),
						      blk_i % p->nvs, &xi, g->adj + g->off[node]);
	}
	return 0;
}

static void cdg_paths(const struct an_acc *a, struct an_cdg *out)
{
	for (unsigned v = 0; v < AN_VLS; v++) {
		out->vl[v].paths = a->paths[v];
		out->vls_used |= (uint16_t)(a->paths[v] ? 1u << v : 0);
	}
}

/*
 * The order of @g (acyclic, VL 0 alone) by channel into @rk; else none:
 * @given, when not NULL, the nodes' ranks already made. 0, or -1 (memory).
 */
static int make_ranks(const struct gbuild *b, const struct an_graph *g, const struct an_cdg *out,
		      struct an_ranks *rk, const uint32_t *given)
{
	uint32_t *own = NULL, *old = rk->rank;
	const uint32_t *r = given;
	int only0 = !out->cross_deps, gr = 0;

	for (unsigned v = 1; v < AN_VLS; v++)
		only0 &= !out->vl[v].channels;
	rk->channels = out->vl[0].channels;
	rk->deps = out->vl[0].deps;
	rk->against = rk->npend = 0;
	rk->stale = 0;
	if (!out->deadlock_free || !only0) {
		free(old);
		rk->rank = NULL;
		return 0;
	}
	if (!given) {
		own = malloc(((size_t)g->n + 1) * sizeof(*own));
		gr = own ? an_graph_ranks(g, own) : -1;
		r = own;
	}
	if (!old)
		rk->rank = malloc(((size_t)b->a->nblk + 1) * sizeof(*rk->rank));
	gr = rk->rank ? gr : -1;
	/* a channel out of the graph keeps its rank (analysis/ranks.c) */
	for (uint32_t i = 0; !gr && i < b->a->nblk; i++)
		if (b->node_of[i] != FAB_NONE || !old)
			rk->rank[i] = b->node_of[i] == FAB_NONE ? AN_RANK_NONE : r[b->node_of[i]];
	if (gr) {
		free(rk->rank);
		rk->rank = NULL;
	}
	free(own);
	return gr < 0 ? -1 : 0;
}

int an_cdg_ranked(const struct an_ranks *rk, const struct an_acc *a, struct an_cdg *out)
{
	if (!rk->rank || rk->against || rk->stale)
		return 0;
	cdg_paths(a, out);
	out->vl[0].channels = rk->channels;
	out->vl[0].deps = rk->deps;
	for (unsigned v = 0; v < AN_VLS; v++)
		out->vl[v].acyclic = 1;
	out->deadlock_free = 1;
	return 1;
}

/*
 * The dependencies of channel block @blk_i on ports [@q0, @nq) of the next
 * switch, marked or counted, up to 64 of them in a word (bit k: port
 * @q0 + k).
 */
static uint64_t dep_word(const struct an_plan *p, const struct an_acc *a, uint32_t blk_i,
			 uint32_t q0, uint32_t nq)
{
	size_t x = (size_t)blk_i * p->wblk + 1 + q0, w = x / 64;
	size_t nw = (size_t)p->npt * p->wblk / 64 + 1;
	unsigned sh = x % 64, left = nq - q0 < 64 ? nq - q0 : 64;
	uint64_t v;

	if (!p->bits) {
		const uint32_t *cnt = a->arena + a->blk[blk_i] + 1 + q0;

		v = 0;
		for (unsigned k = 0; a->blk[blk_i] && k < left; k++)
			v |= (uint64_t)(cnt[k] != 0) << k;
		return v;
	}
	v = a->bits[w] >> sh;
	if (sh && w + 1 < nw)
		v |= a->bits[w + 1] << (64 - sh);
	return left < 64 ? v & ((1ull << left) - 1) : v;
}

/* Kahn's order (kahn_acyclic()): the successors of node @u, channel block @blk_i. */
static uint64_t kahn_visit(const struct gbuild *b, uint32_t blk_i, uint32_t *indeg,
			   uint32_t *rank, uint32_t u, uint32_t *queue, uint32_t *tail)
{
	const struct an_plan *p = b->p;
	uint32_t t = AN_PT_VAL(p->pt[blk_i]), base = p->pt_base[t], nq = p->pt_base[t + 1] - base;
	uint64_t deps = 0;

	for (uint32_t q0 = 0; q0 < nq; q0 += 64)
		for (uint64_t v = dep_word(p, b->a, blk_i, q0, nq); v; v &= v - 1) {
			uint32_t w = b->node_of[base + q0 + (uint32_t)__builtin_ctzll(v)];

			if (w == FAB_NONE)
				continue;
			deps++;
			if (queue)
				an_kahn_edge(u, w, indeg, rank, queue, tail);
			else
				indeg[w]++;
		}
	return deps;
}

/*
 * VL 0 alone: Kahn's order over the marks or counts themselves
 * (an_graph_ranks()'s, without the graph's 24 MB of edges at 43,904 CAs)
 * counts the dependencies and, when it takes every channel, proves the
 * graph acyclic and gives its ranks (@rank, per node). Return 1 when
 * acyclic (@out filled), 0 when a cycle is left (the graph is then built
 * to name it), -1 (memory).
 */
static int kahn_acyclic(struct gbuild *b, const struct an_graph *g, struct an_cdg *out,
			uint32_t *rank)
{
	uint32_t *indeg = calloc((size_t)g->n + 1, sizeof(*indeg));
	uint32_t *blk = malloc(((size_t)g->n + 1) * sizeof(*blk));
	uint32_t *queue = malloc(((size_t)g->n + 1) * sizeof(*queue)), head = 0, tail;
	uint64_t deps = 0;
	int rc = -1;

	if (!indeg || !blk || !queue)
		goto out;
	for (uint32_t i = 0; i < b->a->nblk; i++)
		if (b->node_of[i] != FAB_NONE) {
			blk[b->node_of[i]] = i;
			deps += kahn_visit(b, i, indeg, NULL, 0, NULL, NULL);
		}
	tail = an_kahn_start(g->n, indeg, rank, queue);
	while (head < tail) {
		uint32_t u = queue[head++];

		kahn_visit(b, blk[u], indeg, rank, u, queue, &tail);
	}
	rc = tail == g->n;
	if (rc) {
		out->vl[0].channels = g->n;
		out->vl[0].deps = deps;
		for (unsigned v = 0; v < AN_VLS; v++)
			out->vl[v].acyclic = 1;
		out->deadlock_free = 1;
	}
out:
	free(indeg);
	free(blk);
	free(queue);
	return rc;
}

/* One VL slot, no dependency across VLs: Kahn's order tells. 1, 0 or -1 as kahn_acyclic(). */
static int by_kahn(struct gbuild *b, struct an_graph *g, struct an_cdg *out, struct an_ranks *rk)
{
	uint32_t *rank;
	int rc;

	if (b->p->nvs != 1 || b->a->cross.n)
		return 0;
	if (!(rank = malloc(((size_t)g->n + 1) * sizeof(*rank))))
		return -1;
	rc = kahn_acyclic(b, g, out, rank);
	if (rc == 1 && rk && make_ranks(b, g, out, rk, rank))
		rc = -1;
	free(rank);
	return rc;
}

int an_cdg_from_acc(const struct an_plan *p, const struct an_acc *a, struct an_cdg *out,
		    struct an_ranks *rk)
{
	struct gbuild b = { .p = p, .a = a };
	struct an_graph g = { 0 };
	int rc = -1, fast;

	cdg_paths(a, out);
	if (make_nodes(&b, &g) || (fast = by_kahn(&b, &g, out, rk)) < 0)
		goto out;
	if (fast) {
		rc = 0;
		goto out;
	}
	if (!make_cross(&b) && !make_edges(&b, &g))
		rc = an_cdg_analyse(p->c.f, &g, out);
	if (!rc && rk)
		rc = make_ranks(&b, &g, out, rk, NULL);
out:
	an_graph_free(&g);
	free(b.node_of);
	free(b.x);
	return rc;
}
