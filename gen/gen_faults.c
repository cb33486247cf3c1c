/* SPDX-License-Identifier: MIT */
/**
 * DOC: fault injection
 *
 * gen_faults_apply() removes, in this order: the links named "NODE:PORT",
 * the switches named "NODE", then @random_switches switches and
 * @random_links switch-to-switch links drawn with the seed. NODE is a node
 * description or a node GUID written 0x...; the part after the last ':' is
 * the port, so descriptions holding ':' work too.
 *
 * The random draws work on the switch graph (switches and the links
 * between them) left by what was removed before: a switch is drawn only
 * when it is not an articulation point, a link only when it is not a
 * bridge (Tarjan, iteratively), so a draw never splits a connected set of
 * switches. Each draw picks uniformly among the candidates in switch order,
 * resp. link order (lower end's node index and port), and the graph is
 * analysed again after each draw; one random switch always remains.
 *
 * The original fabric is only read. The result is built with fab_subset():
 * a first copy without the removed switches, in which the removed links
 * are unplugged, then a second copy that drops the nodes left without any
 * link (a removed switch's CAs, a CA whose only link went, and any node
 * that had no link to begin with). LIDs are kept. When only links go and
 * every node keeps one (the common case: a fault in a fabric being
 * routed), one copy with the links unplugged gives the same fabric.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"

/**
 * struct swg - the switch graph of a fabric, with what has been removed
 * @la, @lb: switch indexes (swidx) at both ends of each switch link
 * @adj_off, @adj: per switch, the ids of its links (CSR)
 * @link_of_slot: per port slot, the switch link it carries, or FAB_NONE
 * @cut: per port slot, unplugged
 * @dead_sw, @dead_link: removed switches and links
 * @disc .. @bridge: scratch of the articulation point / bridge search
 */
struct swg {
	const struct fabric *f;
	uint32_t nsw, nl;
	uint32_t *la, *lb, *adj_off, *adj, *link_of_slot;
	uint8_t *cut, *dead_sw, *dead_link;
	uint32_t *disc, *low, *pe, *stack, *it;
	uint8_t *art, *bridge;
};

static void swg_free(struct swg *g)
{
	free(g->la);
	free(g->lb);
	free(g->adj_off);
	free(g->adj);
	free(g->link_of_slot);
	free(g->cut);
	free(g->dead_sw);
	free(g->dead_link);
	free(g->disc);
	free(g->low);
	free(g->pe);
	free(g->stack);
	free(g->it);
	free(g->art);
	free(g->bridge);
}

/* Port @p of switch node @n starts a switch link (counted once, from its lower end). */
static int link_start(const struct fabric *f, uint32_t n, unsigned p)
{
	const struct fab_port *x = fab_port(f, n, p);

	return x->peer != FAB_NONE && f->nodes[x->peer].type == FAB_SWITCH &&
	       (x->peer > n || (x->peer == n && x->peer_port > p));
}

static uint32_t count_links(const struct fabric *f)
{
	uint32_t nl = 0;

	for (uint32_t s = 0; s < f->nswitches; s++)
		for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++)
			nl += (uint32_t)link_start(f, f->switches[s], p);
	return nl;
}

static int swg_alloc(struct swg *g)
{
	size_t ns = (size_t)g->nsw + 1, nl = (size_t)g->nl + 1;

	g->la = malloc(nl * sizeof(*g->la));
	g->lb = malloc(nl * sizeof(*g->lb));
	g->adj_off = calloc(ns + 1, sizeof(*g->adj_off));
	g->adj = malloc(2 * nl * sizeof(*g->adj));
	g->link_of_slot = malloc(((size_t)g->f->nports + 1) * sizeof(*g->link_of_slot));
	g->cut = calloc((size_t)g->f->nports + 1, 1);
	g->dead_sw = calloc(ns, 1);
	g->dead_link = calloc(nl, 1);
	g->disc = malloc(ns * sizeof(*g->disc));
	g->low = malloc(ns * sizeof(*g->low));
	g->pe = malloc(ns * sizeof(*g->pe));
	g->stack = malloc(ns * sizeof(*g->stack));
	g->it = malloc(ns * sizeof(*g->it));
	g->art = malloc(ns);
	g->bridge = malloc(nl);
	return g->la && g->lb && g->adj_off && g->adj && g->link_of_slot && g->cut &&
	       g->dead_sw && g->dead_link && g->disc && g->low && g->pe && g->stack && g->it &&
	       g->art && g->bridge ? 0 : -1;
}

/* Enumerate the switch links and build the adjacency lists. */
static void swg_fill(struct swg *g)
{
	const struct fabric *f = g->f;
	uint32_t l = 0, *fill = g->it;

	memset(g->link_of_slot, 0xff, ((size_t)f->nports + 1) * sizeof(*g->link_of_slot));
	for (uint32_t s = 0; s < g->nsw; s++) {
		uint32_t n = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *x = fab_port(f, n, p);

			if (!link_start(f, n, p))
				continue;
			g->la[l] = s;
			g->lb[l] = f->nodes[x->peer].swidx;
			g->link_of_slot[f->nodes[n].port0 + p] = l;
			g->link_of_slot[f->nodes[x->peer].port0 + x->peer_port] = l;
			g->adj_off[s + 1]++;
			if (g->lb[l] != s)
				g->adj_off[g->lb[l] + 1]++;
			l++;
		}
	}
	for (uint32_t s = 0; s < g->nsw; s++)
		g->adj_off[s + 1] += g->adj_off[s];
	memcpy(fill, g->adj_off, (size_t)g->nsw * sizeof(*fill));
	for (l = 0; l < g->nl; l++) {
		g->adj[fill[g->la[l]]++] = l;
		if (g->lb[l] != g->la[l])
			g->adj[fill[g->lb[l]]++] = l;
	}
}

static int swg_init(struct swg *g, const struct fabric *f, struct fab_err *err)
{
	memset(g, 0, sizeof(*g));
	g->f = f;
	g->nsw = f->nswitches;
	g->nl = count_links(f);
	if (swg_alloc(g)) {
		swg_free(g);
		fab_err_set(err, "out of memory");
		return -1;
	}
	swg_fill(g);
	return 0;
}

static int link_live(const struct swg *g, uint32_t l)
{
	return !g->dead_link[l] && !g->dead_sw[g->la[l]] && !g->dead_sw[g->lb[l]];
}

/* Leave switch @v of the DFS: pass its low point up and classify its tree link. */
static void dfs_leave(struct swg *g, uint32_t v, uint32_t root, uint32_t *root_children)
{
	uint32_t e = g->pe[v], u;

	if (e == FAB_NONE)
		return;
	u = g->la[e] == v ? g->lb[e] : g->la[e];
	if (g->low[v] < g->low[u])
		g->low[u] = g->low[v];
	if (g->low[v] > g->disc[u])
		g->bridge[e] = 1;
	if (u == root)
		(*root_children)++;
	else if (g->low[v] >= g->disc[u])
		g->art[u] = 1;
}

/* One DFS tree from @root over the live switch graph. */
static void dfs(struct swg *g, uint32_t root, uint32_t *time)
{
	uint32_t sp = 0, root_children = 0;

	g->disc[root] = g->low[root] = ++*time;
	g->pe[root] = FAB_NONE;
	g->it[root] = g->adj_off[root];
	g->stack[sp++] = root;
	while (sp) {
		uint32_t v = g->stack[sp - 1], e, w;

		if (g->it[v] == g->adj_off[v + 1]) {
			sp--;
			dfs_leave(g, v, root, &root_children);
			continue;
		}
		e = g->adj[g->it[v]++];
		w = g->la[e] == v ? g->lb[e] : g->la[e];
		if (!link_live(g, e) || e == g->pe[v] || w == v)
			continue;
		if (g->disc[w]) {
			if (g->disc[w] < g->low[v])
				g->low[v] = g->disc[w];
			continue;
		}
		g->disc[w] = g->low[w] = ++*time;
		g->pe[w] = e;
		g->it[w] = g->adj_off[w];
		g->stack[sp++] = w;
	}
	if (root_children > 1)
		g->art[root] = 1;
}

/* Articulation points (art) and bridges (bridge) of the live switch graph. */
static void swg_analyse(struct swg *g)
{
	uint32_t time = 0;

	memset(g->disc, 0, (size_t)g->nsw * sizeof(*g->disc));
	memset(g->art, 0, g->nsw);
	memset(g->bridge, 0, g->nl);
	for (uint32_t s = 0; s < g->nsw; s++)
		if (!g->dead_sw[s] && !g->disc[s])
			dfs(g, s, &time);
}

/* Unplug the link at port slot @slot (both ends). */
static void cut_slot(struct swg *g, uint32_t slot)
{
	const struct fab_port *x = &g->f->ports[slot];

	g->cut[slot] = 1;
	g->cut[g->f->nodes[x->peer].port0 + x->peer_port] = 1;
	if (g->link_of_slot[slot] != FAB_NONE)
		g->dead_link[g->link_of_slot[slot]] = 1;
}

/* --- naming nodes ------------------------------------------------------------ */

/* The node named by the first @len characters of @name (a description or a GUID). */
static uint32_t find_node(const struct fabric *f, const char *name, size_t len, const char *spec,
			  struct fab_err *err)
{
	char buf[FAB_DESC_MAX + 1], what[120];

	if (len > FAB_DESC_MAX) {
		fab_err_set(err, "fault \"%.80s\": node name longer than %u characters", spec,
			    FAB_DESC_MAX);
		return FAB_NONE;
	}
	memcpy(buf, name, len);
	buf[len] = '\0';
	snprintf(what, sizeof(what), "fault \"%.80s\": ", spec);
	return fab_node_resolve(f, buf, what, err);
}

static int parse_port(const char *s, unsigned *port)
{
	unsigned x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > FAB_PORTS_MAX)
			return -1;
		x = x * 10 + (unsigned)(*s - '0');
	}
	*port = x;
	return 0;
}

static int remove_named_link(struct swg *g, const char *spec, struct fab_err *err)
{
	const struct fabric *f = g->f;
	const char *colon = strrchr(spec, ':');
	unsigned port;
	uint32_t n;

	if (!colon || colon == spec || parse_port(colon + 1, &port)) {
		fab_err_set(err, "fault \"%.80s\": expected NODE:PORT", spec);
		return -1;
	}
	n = find_node(f, spec, (size_t)(colon - spec), spec, err);
	if (n == FAB_NONE)
		return -1;
	if (port < 1 || port > f->nodes[n].nports) {
		fab_err_set(err, "fault \"%.80s\": \"%s\" has ports 1 to %u", spec, fab_desc(f, n),
			    f->nodes[n].nports);
		return -1;
	}
	if (g->cut[f->nodes[n].port0 + port])
		return 0;	/* named twice, or from both ends */
	if (!fab_port_linked(f, n, port)) {
		fab_err_set(err, "fault \"%.80s\": port %u of \"%s\" is not linked", spec, port,
			    fab_desc(f, n));
		return -1;
	}
	cut_slot(g, f->nodes[n].port0 + port);
	return 0;
}

static int remove_named_switch(struct swg *g, const char *spec, struct fab_err *err)
{
	uint32_t n = find_node(g->f, spec, strlen(spec), spec, err);

	if (n == FAB_NONE)
		return -1;
	if (g->f->nodes[n].type != FAB_SWITCH) {
		fab_err_set(err, "fault \"%.80s\": \"%s\" is a %s, not a switch", spec,
			    fab_desc(g->f, n), fab_node_type_name(g->f->nodes[n].type));
		return -1;
	}
	g->dead_sw[g->f->nodes[n].swidx] = 1;
	return 0;
}

/* --- random draws ------------------------------------------------------------- */

static int draw_switch(struct swg *g, struct fab_rng *rng, unsigned i, unsigned total,
		       struct fab_err *err)
{
	uint32_t live = 0, n = 0, k;

	swg_analyse(g);
	for (uint32_t s = 0; s < g->nsw; s++) {
		live += !g->dead_sw[s];
		n += !g->dead_sw[s] && !g->art[s];
	}
	if (live < 2 || !n) {
		fab_err_set(err, "random faults: only %u of %u random switches can be removed "
			    "without disconnecting the remaining switches", i, total);
		return -1;
	}
	k = (uint32_t)fab_rng_below(rng, n);
	for (uint32_t s = 0; s < g->nsw; s++)
		if (!g->dead_sw[s] && !g->art[s] && k-- == 0) {
			g->dead_sw[s] = 1;
			break;
		}
	return 0;
}

static int draw_link(struct swg *g, struct fab_rng *rng, unsigned i, unsigned total,
		     struct fab_err *err)
{
	uint32_t n = 0, k;

	swg_analyse(g);
	for (uint32_t l = 0; l < g->nl; l++)
		n += link_live(g, l) && !g->bridge[l];
	if (!n) {
		fab_err_set(err, "random faults: only %u of %u random switch-to-switch links can be "
			    "removed without disconnecting the switches", i, total);
		return -1;
	}
	k = (uint32_t)fab_rng_below(rng, n);
	for (uint32_t l = 0; l < g->nl; l++)
		if (link_live(g, l) && !g->bridge[l] && k-- == 0) {
			uint32_t a = g->f->switches[g->la[l]];

			for (unsigned p = 1; p <= g->f->nodes[a].nports; p++)
				if (g->link_of_slot[g->f->nodes[a].port0 + p] == l) {
					cut_slot(g, g->f->nodes[a].port0 + p);
					break;
				}
			break;
		}
	return 0;
}

static int mark_faults(struct swg *g, const struct gen_faults *fl, struct fab_err *err)
{
	struct fab_rng rng;

	for (size_t i = 0; i < fl->nlinks; i++)
		if (remove_named_link(g, fl->links[i] ? fl->links[i] : "", err))
			return -1;
	for (size_t i = 0; i < fl->nswitches; i++)
		if (remove_named_switch(g, fl->switches[i] ? fl->switches[i] : "", err))
			return -1;
	fab_rng_seed(&rng, fl->seed);
	for (unsigned i = 0; i < fl->random_switches; i++)
		if (draw_switch(g, &rng, i, fl->random_switches, err))
			return -1;
	for (unsigned i = 0; i < fl->random_links; i++)
		if (draw_link(g, &rng, i, fl->random_links, err))
			return -1;
	return 0;
}

/* --- building the result ----------------------------------------------------- */

/* Unplug, in the copy @c, the ports cut in the original. */
static int unplug(const struct swg *g, struct fabric *c)
{
	const struct fabric *f = g->f;
	int any = 0;

	for (uint32_t n = 0; n < f->nnodes; n++)
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t m;

			if (!g->cut[f->nodes[n].port0 + p])
				continue;
			m = fab_node_by_guid(c, f->nodes[n].guid);
			if (m != FAB_NONE) {
				fab_link_remove(c, m, p);
				any = 1;
			}
		}
	return any;
}

/* No switch removed, and every node keeps a link once the cut ports are unplugged. */
static int links_only(const struct swg *g)
{
	const struct fabric *f = g->f;

	for (uint32_t s = 0; s < g->nsw; s++)
		if (g->dead_sw[s])
			return 0;
	for (uint32_t n = 0; n < f->nnodes; n++) {
		int linked = 0;

		for (unsigned p = 1; p <= f->nodes[n].nports && !linked; p++)
			linked = fab_port(f, n, p)->peer != FAB_NONE && !g->cut[f->nodes[n].port0 + p];
		if (!linked)
			return 0;
	}
	return 1;
}

/*
 * links_only(): one copy with the cut ports unplugged and every port's
 * state as fab_subset() sets it (up where linked, down elsewhere) is what
 * the two copies of apply() give, for one finalize instead of two copies.
 */
static struct fabric *apply_links(const struct swg *g, struct fab_err *err)
{
	struct fabric *c = fab_copy(g->f, err);

	if (!c)
		return NULL;
	unplug(g, c);
	for (uint32_t n = 0; n < c->nnodes; n++)
		for (unsigned p = 1; p <= c->nodes[n].nports; p++) {
			struct fab_port *x = fab_port(c, n, p);
			int up = x->peer != FAB_NONE;

			x->phys = up ? FAB_PHYS_LINKUP : FAB_PHYS_POLLING;
			x->state = up ? FAB_LOG_ACTIVE : FAB_LOG_DOWN;
		}
	if (fab_finalize(c, err) == 0)
		return c;
	fab_free(c);
	return NULL;
}

static struct fabric *apply(const struct swg *g, struct fab_err *err)
{
	const struct fabric *f = g->f;
	uint8_t *drop;
	struct fabric *c = NULL, *d;

	if (links_only(g))
		return apply_links(g, err);
	drop = calloc((size_t)f->nnodes + 1, 1);

	if (!drop) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	for (uint32_t s = 0; s < g->nsw; s++)
		drop[f->switches[s]] = g->dead_sw[s];
	c = fab_subset(f, drop, err);
	if (c && unplug(g, c)) {
		memset(drop, 0, (size_t)f->nnodes + 1);
		d = fab_subset(c, drop, err);
		fab_free(c);
		c = d;
	}
	free(drop);
	return c;
}

struct fabric *gen_faults_applied(const struct fabric *f, const struct gen_faults *faults,
				  struct fab_err *err)
{
	struct fabric *res = NULL;
	struct swg g;

	if (!f || !f->finalized) {
		fab_err_set(err, "fault injection needs a finalized fabric");
		return NULL;
	}
	if (swg_init(&g, f, err))
		return NULL;
	if (mark_faults(&g, faults, err) == 0)
		res = apply(&g, err);
	swg_free(&g);
	return res;
}

int gen_faults_apply(struct fabric **f, const struct gen_faults *faults, struct fab_err *err)
{
	struct fabric *res = gen_faults_applied(f ? *f : NULL, faults, err);

	if (!res)
		return -1;
	fab_free(*f);
	*f = res;
	return 0;
}
