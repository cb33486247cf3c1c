/* SPDX-License-Identifier: MIT */
/**
 * DOC: channel dependency graph
 *
 * A channel is a directed switch-to-switch link on one VL (links to and from
 * CAs cannot be on a cycle: nothing waits behind a CA's receive buffer and
 * nothing comes into a CA's send buffer). A path that leaves a switch on
 * channel a and the next switch on channel b makes b depend on a.
 *
 * Paths are walked per (destination LID, path SL) from the switch and in
 * port where each source's packets enter: the state (switch, in port)
 * decides the next hop and its VL, so each state is expanded once per
 * (LID, SL) and shared by every source reaching it. Switch sources (port 0)
 * and switch destinations are walked like any other: this is where
 * management traffic adds dependencies that CA-only checkers never see.
 *
 * Per VL, a depth-first search over the VL's channels finds a cycle when
 * there is one. Tarjan's strongly connected components over all channels
 * tell whether a cycle runs through several VLs.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"
#include "analysis/graph.h"

#define NO_CH UINT32_MAX

struct cdg_walk {
	const struct an_ctx *c;
	struct an_edges edges;
	uint8_t *ch_used;	/* per channel id */
	uint32_t *stamp;	/* per state: walk group that expanded it */
	uint16_t *mask;		/* per state: VLs from it to the end of its path */
	uint32_t *trail;	/* states of the current walk */
	uint32_t group;
	struct an_cdg *out;
};

static uint32_t state_of(const struct an_ctx *c, uint32_t sw, unsigned in)
{
	return c->f->nodes[c->f->switches[sw]].port0 + (c->has_sl2vl ? in : 0);
}

static uint32_t chan_id(const struct an_ctx *c, uint32_t sw, unsigned out, unsigned vl)
{
	return (c->f->nodes[c->f->switches[sw]].port0 + out) * AN_VLS + vl;
}

/*
 * Walk from state (sw, in) towards @dlid with @sl, adding the dependencies
 * met on the way, until the path ends or joins a state this group already
 * expanded. *@mask_out gets the VLs the path uses from (sw, in) on.
 * Return: 0, or -1 when out of memory.
 */
static int walk(struct cdg_walk *w, uint32_t sw, unsigned in, unsigned dlid, uint32_t dst,
		unsigned sl, uint16_t *mask_out)
{
	const struct an_ctx *c = w->c;
	uint32_t prev = NO_CH, n = 0, st;
	uint16_t tail = 0;

	for (;;) {
		uint32_t next, ch = NO_CH;
		uint8_t out, next_in = 0;
		enum an_fail res = an_step(c, sw, dlid, dst, &out, &next, &next_in);
		uint16_t bit = 0;

		st = state_of(c, sw, in);
		if (out != RT_NO_PORT && out != 0 && (res == AN_DELIVERED || res == AN_WRONG_PORT)) {
			unsigned vl = an_vl(c, sw, in, out, sl);

			bit = (uint16_t)(1u << vl);
			if (next != FAB_NONE) {
				ch = chan_id(c, sw, out, vl);
				w->ch_used[ch] = 1;
				if (prev != NO_CH && an_edges_add(&w->edges, prev, ch))
					return -1;
			}
		}
		if (w->stamp[st] == w->group) {
			tail = w->mask[st] | bit;	/* joined a walked path (or looped) */
			break;
		}
		w->stamp[st] = w->group;
		w->mask[st] = bit;
		w->trail[n++] = st;
		if (ch == NO_CH || res != AN_DELIVERED)
			break;
		prev = ch;
		sw = next;
		in = next_in;
	}
	while (n--) {
		w->mask[w->trail[n]] |= tail;
		tail = w->mask[w->trail[n]];
	}
	*mask_out = tail;
	return 0;
}

static void count_paths(struct an_cdg *out, uint16_t mask)
{
	out->vls_used |= mask;
	for (unsigned v = 0; mask; v++, mask >>= 1)
		if (mask & 1)
			out->vl[v].paths++;
}

/* Walk every (LID offset, SL) group of sources towards @dst. */
static int walk_dest(struct cdg_walk *w, const struct an_opts *o, uint32_t dst, uint16_t *key)
{
	const struct an_ctx *c = w->c;
	const struct fabric *f = c->f;
	const struct rt_routing *r = c->r;
	unsigned base = fab_ep_lid(f, dst), nlids = 1u << fab_ep_lmc(f, dst);
	uint8_t seen[(1u << FAB_LMC_MAX) * RT_SLS / 8 + 1] = { 0 };

	if (!base || (o->ca_only && f->nodes[f->eps[dst].node].type != FAB_CA))
		return 0;
	for (uint32_t s = 0; s < f->neps; s++) {
		size_t pi = (size_t)s * r->neps + dst;
		unsigned off = r->dlid_off ? r->dlid_off[pi] & (nlids - 1) : 0;

		key[s] = (uint16_t)(off * RT_SLS + (r->path_sl ? r->path_sl[pi] % RT_SLS : 0));
		seen[key[s] / 8] |= (uint8_t)(1u << (key[s] % 8));
	}
	for (unsigned k = 0; k < nlids * RT_SLS; k++) {
		unsigned first_off = o->all_lids ? 0 : k / RT_SLS, last_off = o->all_lids ? nlids : first_off + 1;

		if (!(seen[k / 8] & (1u << (k % 8))))
			continue;
		for (unsigned off = first_off; off < last_off; off++) {
			w->group++;
			for (uint32_t s = 0; s < f->neps; s++) {
				uint16_t mask;

				if (key[s] != k || s == dst || c->first[s] == FAB_NONE ||
				    (o->ca_only && f->nodes[f->eps[s].node].type != FAB_CA))
					continue;
				if (walk(w, c->first[s], c->in_port[s], base + off, dst, k % RT_SLS, &mask))
					return -1;
				if (off == k / RT_SLS)
					count_paths(w->out, mask);
			}
		}
	}
	return 0;
}

static void fill_channel(const struct an_ctx *c, uint32_t id, struct an_channel *ch)
{
	uint32_t slot = id / AN_VLS;
	const struct fabric *f = c->f;
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

static int analyse(struct cdg_walk *w)
{
	struct an_graph g;
	struct an_cdg *out = w->out;
	int rc = -1;

	if (an_graph_build(&g, &w->edges, w->ch_used,
			   (size_t)w->c->f->nports * AN_VLS))
		return -1;
	for (uint32_t i = 0; i < g.n; i++)
		out->vl[g.id[i] % AN_VLS].channels++;
	for (uint32_t i = 0; i < g.n; i++)
		for (uint32_t k = g.off[i]; k < g.off[i + 1]; k++) {
			unsigned a = g.id[i] % AN_VLS, b = g.id[g.adj[k]] % AN_VLS;

			if (a == b)
				out->vl[a].deps++;
			else
				out->cross_deps++;
		}
	out->deadlock_free = 1;
	for (unsigned v = 0; v < AN_VLS; v++) {
		uint32_t *cyc = NULL, len = 0;

		out->vl[v].acyclic = 1;
		if (!out->vl[v].channels)
			continue;
		if (an_graph_cycle(&g, v, AN_VLS, &cyc, &len))
			goto out;
		if (!len)
			continue;
		out->vl[v].acyclic = 0;
		out->deadlock_free = 0;
		out->vl[v].cycle = malloc(len * sizeof(*out->vl[v].cycle));
		if (!out->vl[v].cycle) {
			free(cyc);
			goto out;
		}
		for (uint32_t i = 0; i < len; i++)
			fill_channel(w->c, g.id[cyc[i]], &out->vl[v].cycle[i]);
		out->vl[v].cycle_len = len;
		free(cyc);
	}
	if (an_graph_cross_cycle(&g, AN_VLS, &out->cross_cycle))
		goto out;
	if (out->cross_cycle)
		out->deadlock_free = 0;
	rc = 0;
out:
	an_graph_free(&g);
	return rc;
}

int an_cdg_run(const struct an_ctx *c, const struct an_opts *o, struct an_cdg *out)
{
	const struct fabric *f = c->f;
	struct cdg_walk w = { .c = c, .out = out };
	uint16_t *key = malloc(((size_t)f->neps + 1) * sizeof(*key));
	int rc = -1;

	memset(out, 0, sizeof(*out));
	w.ch_used = calloc((size_t)f->nports * AN_VLS + 1, 1);
	w.stamp = calloc((size_t)f->nports + 1, sizeof(*w.stamp));
	w.mask = calloc((size_t)f->nports + 1, sizeof(*w.mask));
	w.trail = malloc(((size_t)f->nports + 1) * sizeof(*w.trail));
	if (!key || !w.ch_used || !w.stamp || !w.mask || !w.trail || an_edges_init(&w.edges))
		goto out;
	for (uint32_t dst = 0; dst < f->neps; dst++)
		if (walk_dest(&w, o, dst, key))
			goto out;
	rc = analyse(&w);
out:
	an_edges_free(&w.edges);
	free(key);
	free(w.ch_used);
	free(w.stamp);
	free(w.mask);
	free(w.trail);
	return rc;
}

void an_cdg_free(struct an_cdg *cdg)
{
	for (unsigned v = 0; v < AN_VLS; v++) {
		free(cdg->vl[v].cycle);
		cdg->vl[v].cycle = NULL;
	}
}
