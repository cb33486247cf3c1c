/* SPDX-License-Identifier: MIT */
/**
 * DOC: D-mod-k and S-mod-k on 2-level generalized fat trees (papers/003)
 *
 * T(n+m, r) (papers/003 Section I, Fig. 1): r bottom switches, each with n
 * nodes and one link to each of m top switches. The engines here and opt
 * (engines/gft2/opt.c) route a pair (s, d) on two bottom switches through
 * one top switch chosen by a formula over the paper's numbering, and a
 * pair on one bottom switch through that switch alone.
 *
 * Recognition, from the links alone (never from descriptions): a node is a
 * CA or router port; bottom switches are the switches with nodes, top
 * switches the others. The fabric fits when there is at least one of each,
 * no two top switches are linked (else there are more than two levels),
 * no two bottom switches are linked, every bottom switch has as many nodes
 * as the others and exactly one link to every top switch. Spare (unlinked)
 * ports are allowed. The reason names the first switch that does not fit.
 *
 * Numbering (Section II): BSW_0 .. BSW_{r-1} are the bottom switches by
 * ascending node GUID, TSW_0 .. TSW_{m-1} the top switches by ascending
 * node GUID, and node x is the (x mod n)-th node port of BSW_{x / n} in
 * ascending port number. It only depends on GUIDs and cabling, not on the
 * order a topology file lists things in, and on gen_build("gft2") trees
 * (GUIDs in creation order, nodes on ports 1..n) it is the generator's:
 * leaf i = BSW_i, spine t = TSW_t, CA x = node x.
 *
 * Routing of a node d's LID offset o: its own bottom switch delivers it;
 * every other bottom switch sends it up to the top switch the scheme picks
 * for (d, o); every top switch sends it down to d's bottom switch.
 *
 *  - dmodk (Section III): offset o through TSW_{(d + o) mod m}; with LMC 0
 *    exactly D-mod-k's TSW_{d mod m}. Every source uses the base LID.
 *  - smodk (Section III): the top switch depends on the source, which a
 *    destination-based LFT cannot see; so each node owns one LID per top
 *    switch (LMC = ceil(log2 m)), offset o goes through TSW_{o mod m}, and
 *    source s uses offset s mod m of every destination (what a PathRecord
 *    returns): pair (s, d) crosses TSW_{s mod m}.
 *
 * Switch LIDs: BSW_j's LID goes from the other bottom switches up through
 * TSW_{j mod m}, and straight down from every top switch; TSW_u's LID goes
 * straight up from every bottom switch, and from the other top switches
 * down to BSW_0 and up again. Every path is then a legal up*-down* path with
 * BSW_0 as the root (BSW_0 at level 0, the top switches at 1, the other
 * bottom switches at 2): node to node paths go up then down (or down then
 * down from BSW_0, up then up to it), top to top paths up to BSW_0 then
 * down. So the channel dependency graph is acyclic on one VL, switch
 * traffic included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/gft2/gft2.h"

#define NOT_GFT2 "not a 2-level generalized fat tree: "

/* --- recognition ------------------------------------------------------------ */

struct sw_key {
	uint64_t guid;
	uint32_t sw;
};

static int cmp_key(const void *a, const void *b)
{
	const struct sw_key *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* A switch's name in reasons (its GUID too where its description is not its own). */
#define sw_desc(f, sw) FAB_LABEL((f), (f)->switches[sw])

/* Nodes per switch into @cnt; a node linked to anything but a switch disqualifies. */
static int count_nodes(const struct fabric *f, uint32_t *cnt, struct fab_err *err)
{
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_ep *ep = &f->eps[e];
		const struct fab_port *p = fab_port(f, ep->node, ep->port);

		if (f->nodes[ep->node].type == FAB_SWITCH)
			continue;
		if (p->peer == FAB_NONE || f->nodes[p->peer].type != FAB_SWITCH) {
			fab_err_set(err, NOT_GFT2 "%s '%s' port %u is not linked to a switch",
				    fab_node_type_name(f->nodes[ep->node].type), FAB_LABEL(f, ep->node),
				    ep->port);
			return ENG_NOT_APPLICABLE;
		}
		cnt[f->nodes[p->peer].swidx]++;
	}
	return ENG_OK;
}

/* Fill @out (@n entries) with the switches whose "has nodes" is @with, by GUID. */
static int sorted_level(const struct fabric *f, const uint32_t *cnt, int with, uint32_t *out,
			uint32_t n, uint32_t *pos)
{
	struct sw_key *keys = malloc(((size_t)n + 1) * sizeof(*keys));
	uint32_t k = 0;

	if (!keys)
		return ENG_ERROR;
	for (uint32_t sw = 0; sw < f->nswitches; sw++)
		if ((cnt[sw] > 0) == with)
			keys[k++] = (struct sw_key){ f->nodes[f->switches[sw]].guid, sw };
	qsort(keys, n, sizeof(*keys), cmp_key);
	for (uint32_t i = 0; i < n; i++) {
		out[i] = keys[i].sw;
		pos[keys[i].sw] = i;
	}
	free(keys);
	return ENG_OK;
}

/* Split the switches into BSW_0.. and TSW_0.. (see the DOC comment). */
static int split_levels(const struct fabric *f, const uint32_t *cnt, struct gft2 *g,
			uint32_t *pos, struct fab_err *err)
{
	for (uint32_t sw = 0; sw < f->nswitches; sw++)
		g->r += cnt[sw] > 0;
	g->m = f->nswitches - g->r;
	if (!g->r || !g->m) {
		fab_err_set(err, NOT_GFT2 "%s", !g->r ? "no switch has CAs attached" :
			    "every switch has CAs attached (one level of switches, no top level)");
		return ENG_NOT_APPLICABLE;
	}
	g->bsw = malloc((size_t)g->r * sizeof(*g->bsw));
	g->tsw = malloc((size_t)g->m * sizeof(*g->tsw));
	g->up = calloc((size_t)g->r * g->m, 1);
	g->down = calloc((size_t)g->r * g->m, 1);
	if (!g->bsw || !g->tsw || !g->up || !g->down ||
	    sorted_level(f, cnt, 1, g->bsw, g->r, pos) || sorted_level(f, cnt, 0, g->tsw, g->m, pos)) {
		fab_err_set(err, "out of memory recognising a 2-level fat tree");
		return ENG_ERROR;
	}
	g->n = cnt[g->bsw[0]];
	return ENG_OK;
}

/* No link between two top switches. */
static int check_tops(const struct fabric *f, const struct gft2 *g, const uint32_t *cnt,
		      struct fab_err *err)
{
	for (uint32_t t = 0; t < g->m; t++) {
		uint32_t sw = g->tsw[t];

		for (unsigned p = 1; p <= f->nodes[f->switches[sw]].nports; p++) {
			uint32_t w = fab_sw_peer(f, sw, p);

			if (w != FAB_NONE && !cnt[w]) {
				fab_err_set(err, NOT_GFT2 "switches '%s' and '%s' have no CAs and are "
					    "linked: more than two levels of switches", sw_desc(f, sw),
					    sw_desc(f, w));
				return ENG_NOT_APPLICABLE;
			}
		}
	}
	return ENG_OK;
}

/* BSW_i: n nodes, one link to each top switch, none to a bottom switch; fills up/down. */
static int check_bottom(const struct fabric *f, struct gft2 *g, uint32_t i, const uint32_t *cnt,
			const uint32_t *pos, struct fab_err *err)
{
	uint32_t sw = g->bsw[i], node = f->switches[sw], links = 0;

	if (cnt[sw] != g->n) {
		fab_err_set(err, NOT_GFT2 "switch '%s' has %u CAs, switch '%s' has %u: expected "
			    "the same number on every switch with CAs", sw_desc(f, sw), cnt[sw],
			    sw_desc(f, g->bsw[0]), g->n);
		return ENG_NOT_APPLICABLE;
	}
	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t w = fab_sw_peer(f, sw, p), t;

		if (w == FAB_NONE)
			continue;
		if (cnt[w]) {
			fab_err_set(err, NOT_GFT2 "switches '%s' and '%s' both have CAs and are "
				    "linked (a horizontal link)", sw_desc(f, sw), sw_desc(f, w));
			return ENG_NOT_APPLICABLE;
		}
		t = pos[w];
		if (g->up[(size_t)i * g->m + t]) {
			fab_err_set(err, NOT_GFT2 "switch '%s' has several links to top switch '%s', "
				    "expected one", sw_desc(f, sw), sw_desc(f, w));
			return ENG_NOT_APPLICABLE;
		}
		g->up[(size_t)i * g->m + t] = (uint8_t)p;
		g->down[(size_t)t * g->r + i] = fab_port(f, node, p)->peer_port;
		links++;
	}
	if (links != g->m) {
		fab_err_set(err, NOT_GFT2 "switch '%s' has CAs and %u links to top switches, "
			    "expected %u (one to each switch without CAs)", sw_desc(f, sw), links,
			    g->m);
		return ENG_NOT_APPLICABLE;
	}
	return ENG_OK;
}

/* Node i * n + rank: the rank-th node port of BSW_i in port order. */
static void number_nodes(const struct fabric *f, struct gft2 *g)
{
	for (uint32_t i = 0; i < g->r; i++) {
		uint32_t node = f->switches[g->bsw[i]], rank = 0;

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			const struct fab_port *x = fab_port(f, node, p);

			if (x->peer != FAB_NONE && f->nodes[x->peer].type != FAB_SWITCH)
				g->node_ep[(size_t)i * g->n + rank++] =
					fab_ep_of_node(f, x->peer, x->peer_port);
		}
	}
}

static int recognise(const struct fabric *f, struct gft2 *g, uint32_t *cnt, uint32_t *pos,
		     struct fab_err *err)
{
	int rc = count_nodes(f, cnt, err);

	if (rc || (rc = split_levels(f, cnt, g, pos, err)) || (rc = check_tops(f, g, cnt, err)))
		return rc;
	for (uint32_t i = 0; i < g->r; i++)
		if ((rc = check_bottom(f, g, i, cnt, pos, err)))
			return rc;
	g->node_ep = malloc((size_t)g->r * g->n * sizeof(*g->node_ep));
	if (!g->node_ep) {
		fab_err_set(err, "out of memory recognising a 2-level fat tree");
		return ENG_ERROR;
	}
	number_nodes(f, g);
	return ENG_OK;
}

int gft2_recognise(const struct fabric *f, struct gft2 *g, struct fab_err *err)
{
	uint32_t *cnt = calloc((size_t)f->nswitches + 1, sizeof(*cnt));
	uint32_t *pos = calloc((size_t)f->nswitches + 1, sizeof(*pos));
	int rc;

	memset(g, 0, sizeof(*g));
	if (!cnt || !pos) {
		fab_err_set(err, "out of memory recognising a 2-level fat tree");
		rc = ENG_ERROR;
	} else {
		rc = recognise(f, g, cnt, pos, err);
	}
	free(cnt);
	free(pos);
	if (rc)
		gft2_free(g);
	return rc;
}

void gft2_free(struct gft2 *g)
{
	free(g->bsw);
	free(g->tsw);
	free(g->up);
	free(g->down);
	free(g->node_ep);
	memset(g, 0, sizeof(*g));
}

unsigned gft2_log2(uint32_t x)
{
	unsigned l = 0;

	while (l < 32 && (1ull << l) < x)
		l++;
	return l;
}

int gft2_lmc_fits(const struct fabric *f, const struct gft2 *g, unsigned lmc)
{
	uint64_t step = 1ull << lmc, first = (f->nswitches + step) / step * step;

	return lmc <= FAB_LMC_MAX &&
	       first + (uint64_t)g->r * g->n * step - 1 <= FAB_LID_UCAST_MAX;
}

/* --- routing ------------------------------------------------------------------- */

static int check_lmc(const struct fabric *f, const struct gft2 *g, const struct gft2_rule *rule,
		     struct fab_err *err)
{
	for (uint32_t x = 0; x < g->r * g->n; x++) {
		uint32_t ep = g->node_ep[x];

		if (fab_ep_lid(f, ep) && fab_ep_lmc(f, ep) < rule->lmc) {
			fab_err_set(err, "%s needs LMC %u on the CA ports (%s); '%s' port %u has LMC "
				    "%u: assign LIDs with LMC %u", rule->name, rule->lmc,
				    rule->lmc_why, FAB_LABEL(f, f->eps[ep].node), f->eps[ep].port,
				    fab_ep_lmc(f, ep), rule->lmc);
			return -1;
		}
	}
	return 0;
}

/* Base LID of switch @sw (its port 0). */
static unsigned sw_lid(const struct fabric *f, uint32_t sw)
{
	return fab_ep_lid(f, fab_ep_of_node(f, f->switches[sw], 0));
}

/* BSW_j: up through TSW_{j mod m}, down from every top; TSW_u: up, or via BSW_0. */
static void route_switch_lids(const struct fabric *f, const struct gft2 *g, struct rt_routing *r)
{
	for (uint32_t j = 0; j < g->r; j++) {
		unsigned lid = sw_lid(f, g->bsw[j]);

		for (uint32_t i = 0; lid && lid < r->lft_len && i < g->r; i++)
			if (i != j)
				rt_lft(r, g->bsw[i])[lid] = g->up[(size_t)i * g->m + j % g->m];
		for (uint32_t u = 0; lid && lid < r->lft_len && u < g->m; u++)
			rt_lft(r, g->tsw[u])[lid] = g->down[(size_t)u * g->r + j];
	}
	for (uint32_t u = 0; u < g->m; u++) {
		unsigned lid = sw_lid(f, g->tsw[u]);

		for (uint32_t i = 0; lid && lid < r->lft_len && i < g->r; i++)
			rt_lft(r, g->bsw[i])[lid] = g->up[(size_t)i * g->m + u];
		for (uint32_t v = 0; lid && lid < r->lft_len && v < g->m; v++)
			if (v != u)
				rt_lft(r, g->tsw[v])[lid] = g->down[(size_t)v * g->r];
	}
}

/* Every LID of node @d: up to the rule's top switch, down from every top switch. */
static void route_node(const struct fabric *f, const struct gft2 *g, const struct gft2_rule *rule,
		       uint32_t d, struct rt_routing *r)
{
	uint32_t ep = g->node_ep[d], leaf = d / g->n;
	unsigned lid = fab_ep_lid(f, ep), nlids = 1u << fab_ep_lmc(f, ep);

	for (unsigned off = 0; lid && off < nlids && lid + off < r->lft_len; off++) {
		unsigned t = rule->top(g, rule->ctx, d, off) % g->m;

		for (uint32_t i = 0; i < g->r; i++)
			if (i != leaf)
				rt_lft(r, g->bsw[i])[lid + off] = g->up[(size_t)i * g->m + t];
		for (uint32_t u = 0; u < g->m; u++)
			rt_lft(r, g->tsw[u])[lid + off] = g->down[(size_t)u * g->r + leaf];
	}
}

/* The LID offset each node uses towards each node; switches use base LIDs. */
static int set_dlids(const struct gft2 *g, const struct gft2_rule *rule, struct rt_routing *r)
{
	uint32_t nodes = g->r * g->n;

	if (rt_pairs_alloc(r))
		return -1;
	for (uint32_t s = 0; s < nodes; s++) {
		uint8_t *row = r->dlid_off + (size_t)g->node_ep[s] * r->neps;

		for (uint32_t d = 0; d < nodes; d++)
			row[g->node_ep[d]] = (uint8_t)rule->src_off(g, rule->ctx, s, d);
	}
	return 0;
}

int gft2_route(const struct fabric *f, const struct gft2 *g, const struct gft2_rule *rule,
	       const char *notes, struct rt_routing **out, struct fab_err *err)
{
	struct rt_routing *r;

	*out = NULL;
	if (check_lmc(f, g, rule, err))
		return ENG_ERROR;
	r = rt_new(f);
	if (!r)
		goto oom;
	eng_route_endpoints(f, r);
	route_switch_lids(f, g, r);
	for (uint32_t d = 0; d < g->r * g->n; d++)
		route_node(f, g, rule, d, r);
	if (rule->src_off && set_dlids(g, rule, r))
		goto oom;
	r->notes = strdup(notes);
	if (!r->notes)
		goto oom;
	*out = r;
	return ENG_OK;
oom:
	rt_free(r);
	fab_err_set(err, "%s: out of memory", rule->name);
	return ENG_ERROR;
}
