/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - forwarding tables from configurations (la_realise())
 *
 * A configuration is an in-forest towards its destination, so one LID
 * realises it (papers/002 Lemma 2): each switch on its paths sends that LID
 * out by the port the paths leave it by. Then every switch the
 * configuration does not cover gets a route for the LID too (completion,
 * see engines/lidassign/la_fabric.c): hosts pick DLID offsets themselves (UCX, PSM,
 * Open MPI use every offset of the range), switches send to every LID, and
 * an SA walks the tables; none of them may meet a hole. Offsets past the
 * configurations repeat offset (j mod k).
 *
 * Cost per LID: one walk of the covered switches and one bucketed BFS over
 * the switch links, O(switches + links).
 */
#include <stdlib.h>
#include <string.h>

#include "engines/lidassign/lidassign.h"

#define NO_DIST UINT32_MAX

/*
 * struct tab - la_realise() at work
 * @load: per switch and port, LIDs routed out by it (for ties)
 * @dist: per switch, hops to the destination switch on the LID's route
 * @down: per switch, its route only goes down
 * @head, @next: buckets of switches by distance
 * @bport, @bpeer, @bdown: per switch, the best candidate of the level being
 *                         done (port, switch, all-down route)
 * @touched: switches with a candidate
 */
struct tab {
	const struct fabric *f;
	const struct la_updn *u;
	struct rt_routing *r;
	struct la_stats *st;
	uint32_t nports;
	uint32_t *load, *dist, *head, *next, *touched, *bpeer;
	uint8_t *down, *bport, *bdown;
};

static uint32_t *load_of(struct tab *t, uint32_t sw, unsigned port)
{
	return &t->load[(size_t)sw * t->nports + port];
}

/* The switch index the endpoint @e's LIDs are delivered from; FAB_NONE if none. */
static uint32_t ep_switch(const struct fabric *f, uint32_t e)
{
	uint32_t node = f->eps[e].node;
	const struct fab_port *p;

	if (f->nodes[node].type == FAB_SWITCH)
		return f->nodes[node].swidx;
	p = fab_port(f, node, f->eps[e].port);
	if (p->peer == FAB_NONE || f->nodes[p->peer].type != FAB_SWITCH)
		return FAB_NONE;
	return f->nodes[p->peer].swidx;
}

/* Distance and down state of routed switch @s for @lid (memoised along the route). */
static void resolve(struct tab *t, uint32_t s, uint32_t dsw, unsigned lid, uint32_t *stack)
{
	uint32_t n = 0, x = s, d;
	uint8_t down;

	while (t->dist[x] == NO_DIST && x != dsw && n < t->f->nswitches) {
		unsigned port = rt_lft(t->r, x)[lid];
		uint32_t y = port == RT_NO_PORT ? FAB_NONE : fab_sw_peer(t->f, x, port);

		stack[n++] = x;
		if (y == FAB_NONE || rt_lft(t->r, y)[lid] == RT_NO_PORT)
			return;	/* leaves the switches elsewhere: cannot be extended */
		x = y;
	}
	if (x == dsw) {
		t->dist[x] = 0;
		t->down[x] = 1;
	}
	if (t->dist[x] == NO_DIST)
		return;
	d = t->dist[x];
	down = t->down[x];
	while (n--) {
		uint32_t y = x;

		x = stack[n];
		down = down && !la_updn_up(t->u, x, y);
		t->dist[x] = ++d;
		t->down[x] = down;
	}
}

static void push(struct tab *t, uint32_t s)
{
	t->next[s] = t->head[t->dist[s]];
	t->head[t->dist[s]] = s;
}

/*
 * Consider the hop s -> w (port @port) for switch @s at the level being
 * done; @down: s's route would then only go down. Kept: the one giving an
 * all-down route, then the least loaded port, then the lower port.
 */
static void offer(struct tab *t, uint32_t s, unsigned port, uint32_t w, int down, unsigned lid,
		  uint32_t *ntouched)
{
	uint8_t *lft = rt_lft(t->r, s);

	if (lft[lid] != RT_NO_PORT)
		return;
	if (t->bport[s] == RT_NO_PORT) {
		t->touched[(*ntouched)++] = s;
	} else if (down != t->bdown[s]) {
		if (!down)
			return;
	} else if (*load_of(t, s, port) > *load_of(t, s, t->bport[s]) ||
		   (*load_of(t, s, port) == *load_of(t, s, t->bport[s]) && port > t->bport[s])) {
		return;
	}
	t->bport[s] = (uint8_t)port;
	t->bpeer[s] = w;
	t->bdown[s] = (uint8_t)down;
}

/*
 * One phase of completion: from the routed switches in the buckets, nearest
 * first, unrouted switches hop to them: @hops says which hops count:
 * HOP_DOWN down hops to all-down routes only, HOP_UP up hops only, HOP_ANY
 * both.
 */
enum { HOP_ANY, HOP_DOWN, HOP_UP };

static void spread(struct tab *t, unsigned lid, int hops)
{
	const struct ucast_adj *adj = &t->u->adj;
	uint32_t ns = t->f->nswitches;

	for (uint32_t lvl = 0; lvl < ns; lvl++) {
		uint32_t nt = 0;

		for (uint32_t w = t->head[lvl]; w != FAB_NONE; w = t->next[w])
			for (uint32_t k = adj->off[w]; k < adj->off[w + 1]; k++) {
				uint32_t s = adj->peer[k];
				int up = la_updn_up(t->u, s, w);	/* the hop s -> w */

				if (up ? hops == HOP_DOWN : hops == HOP_UP || !t->down[w])
					continue;
				for (uint32_t j = adj->off[s]; j < adj->off[s + 1]; j++)
					if (adj->peer[j] == w)
						offer(t, s, adj->port[j], w, !up, lid, &nt);
			}
		for (uint32_t i = 0; i < nt; i++) {
			uint32_t s = t->touched[i];

			rt_lft(t->r, s)[lid] = t->bport[s];
			++*load_of(t, s, t->bport[s]);
			t->dist[s] = lvl + 1;
			t->down[s] = t->bdown[s];
			t->bport[s] = RT_NO_PORT;
			if (lvl + 1 < ns)
				push(t, s);
			t->st->filled++;
		}
	}
}

/* Seed the buckets with the routed switches (all-down ones only with @downs). */
static void seed(struct tab *t, int downs)
{
	uint32_t ns = t->f->nswitches;

	for (uint32_t s = 0; s < ns; s++)
		t->head[s] = FAB_NONE;
	for (uint32_t s = ns; s-- > 0;)
		if (t->dist[s] != NO_DIST && t->dist[s] < ns && (!downs || t->down[s]))
			push(t, s);
}

/* Route @lid (delivered from switch @dsw) from every switch. */
static void complete(struct tab *t, uint32_t dsw, unsigned lid)
{
	uint32_t ns = t->f->nswitches;

	for (uint32_t s = 0; s < ns; s++) {
		t->dist[s] = NO_DIST;
		t->down[s] = 0;
	}
	for (uint32_t s = 0; s < ns; s++)
		if (rt_lft(t->r, s)[lid] != RT_NO_PORT)
			resolve(t, s, dsw, lid, t->touched);
	if (t->u->fill == LA_FILL_DOWN_FIRST) {
		seed(t, 1);
		spread(t, lid, HOP_DOWN);
		seed(t, 0);
		spread(t, lid, HOP_UP);
	} else {
		seed(t, 0);
		spread(t, lid, HOP_ANY);
	}
	for (uint32_t s = 0; s < ns; s++)
		t->st->unrouted += rt_lft(t->r, s)[lid] == RT_NO_PORT;
}

/* The entries of path @i of @ps with offset @off; 0 or -1 with @err (a switch sends its LID elsewhere). */
static int put_path(struct tab *t, const struct fmt_paths *ps, size_t i, unsigned off, struct fab_err *err)
{
	const struct fabric *f = t->f;
	unsigned lid = fab_ep_lid(f, ps->dst[i]) + off;

	for (size_t h = ps->off[i]; h < ps->off[i + 1]; h++) {
		uint32_t sw = f->nodes[ps->hop[h].node].swidx;
		uint8_t *e = &rt_lft(t->r, sw)[lid];

		if (*e != RT_NO_PORT && *e != ps->hop[h].port) {
			fab_err_set(err, "path %zu: switch '%s' already sends LID %u by port %u, not %u", i + 1,
				    FAB_LABEL(f, ps->hop[h].node), lid, *e, ps->hop[h].port);
			return -1;
		}
		if (*e == RT_NO_PORT) {
			*e = ps->hop[h].port;
			++*load_of(t, sw, *e);
		}
		t->st->entries++;
	}
	return 0;
}

/* The paths' entries; per-pair DLID offsets (the first path of each pair). */
static int put_paths(struct tab *t, const void *ctx, struct fab_err *err)
{
	const struct fmt_paths *ps = ((const void *const *)ctx)[0];
	const struct la_assign *a = ((const void *const *)ctx)[1];
	const struct fabric *f = t->f;
	uint8_t *seen = calloc(((size_t)f->neps * f->neps + 7) / 8 + 1, 1);
	int rc = 0;

	if (!seen) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	for (size_t i = 0; !rc && i < ps->n; i++) {
		size_t pair = (size_t)ps->src[i] * f->neps + ps->dst[i];

		if (!(seen[pair / 8] >> (pair % 8) & 1)) {
			seen[pair / 8] |= (uint8_t)(1u << (pair % 8));
			t->r->dlid_off[pair] = (uint8_t)a->offset[i];
		}
		rc = put_path(t, ps, i, a->offset[i], err);
	}
	free(seen);
	return rc;
}

/* The entries of the paths @src gives, destination by destination, at the offsets r->dlid_off holds. */
static int put_dests(struct tab *t, const void *ctx, struct fab_err *err)
{
	const struct la_source *src = ctx;
	const struct fabric *f = t->f;
	struct fmt_paths ps = { 0 };
	int rc = 0;

	for (uint32_t d = 0; !rc && d < f->neps; d++) {
		ps.n = ps.nhops = 0;
		rc = src->get(src->ud, d, &ps, err);
		for (size_t i = 0; !rc && i < ps.n; i++)
			rc = put_path(t, &ps, i, t->r->dlid_off[(size_t)ps.src[i] * f->neps + d], err);
	}
	fmt_paths_free(&ps);
	return rc;
}

/* Offsets k .. 2^lmc - 1 of endpoint @e repeat offset (j mod k). */
static void alias(struct tab *t, unsigned base, unsigned n, uint32_t k)
{
	for (unsigned j = k; j < n; j++) {
		for (uint32_t s = 0; s < t->f->nswitches; s++) {
			uint8_t *lft = rt_lft(t->r, s), p = lft[base + j % k];

			if (lft[base + j] == RT_NO_PORT && p != RT_NO_PORT && p)
				++*load_of(t, s, p);
			lft[base + j] = p;
		}
		t->st->aliased++;
	}
}

static int tab_alloc(struct tab *t)
{
	const struct fabric *f = t->f;
	size_t ns = (size_t)f->nswitches + 1;

	t->nports = 1;
	for (uint32_t s = 0; s < f->nswitches; s++)
		if (f->nodes[f->switches[s]].nports + 1u > t->nports)
			t->nports = f->nodes[f->switches[s]].nports + 1u;
	t->load = calloc(ns * t->nports, sizeof(*t->load));
	t->dist = malloc(ns * sizeof(*t->dist));
	t->head = malloc(ns * sizeof(*t->head));
	t->next = malloc(ns * sizeof(*t->next));
	t->touched = malloc(ns * sizeof(*t->touched));
	t->bpeer = malloc(ns * sizeof(*t->bpeer));
	t->down = malloc(ns);
	t->bport = malloc(ns);
	t->bdown = malloc(ns);
	if (!t->load || !t->dist || !t->head || !t->next || !t->touched || !t->bpeer || !t->down ||
	    !t->bport || !t->bdown)
		return -1;
	memset(t->bport, RT_NO_PORT, ns);
	return 0;
}

static void tab_free(struct tab *t)
{
	free(t->load);
	free(t->dist);
	free(t->head);
	free(t->next);
	free(t->touched);
	free(t->bpeer);
	free(t->down);
	free(t->bport);
	free(t->bdown);
}

/* la_realise() with the paths' entries set by @put (@ctx its input). */
static int realise(const struct fabric *f, const struct la_assign *a, const struct la_updn *u, struct rt_routing *r,
		   struct la_stats *st, int (*put)(struct tab *t, const void *ctx, struct fab_err *err),
		   const void *ctx, struct fab_err *err)
{
	struct tab t = { .f = f, .u = u, .r = r, .st = st };
	int rc = -1;

	memset(st, 0, sizeof(*st));
	if (!r->dlid_off)	/* per-pair DLIDs only: path SLs stay 0 (NULL) */
		r->dlid_off = calloc((size_t)r->neps * r->neps + 1, 1);
	if (tab_alloc(&t) || !r->dlid_off) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t k = a->k[e] ? a->k[e] : 1;

		if (fab_ep_lid(f, e) + (1u << fab_ep_lmc(f, e)) > r->lft_len || (1u << fab_ep_lmc(f, e)) < k) {
			fab_err_set(err, "'%s' port %u: %u LIDs from LID %u do not hold its %u "
				    "configurations", FAB_LABEL(f, f->eps[e].node), f->eps[e].port,
				    1u << fab_ep_lmc(f, e), fab_ep_lid(f, e), k);
			goto out;
		}
	}
	eng_route_endpoints(f, r);
	if (put(&t, ctx, err))
		goto out;
	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t dsw = ep_switch(f, e), k = a->k[e] ? a->k[e] : 1;
		unsigned base = fab_ep_lid(f, e);

		if (dsw == FAB_NONE || !base)
			continue;
		for (uint32_t j = 0; j < k; j++)
			complete(&t, dsw, base + j);
		alias(&t, base, 1u << fab_ep_lmc(f, e), k);
	}
	rc = 0;
out:
	tab_free(&t);
	return rc;
}

int la_realise(const struct fabric *f, const struct fmt_paths *ps, const struct la_assign *a,
	       const struct la_updn *u, struct rt_routing *r, struct la_stats *st,
	       struct fab_err *err)
{
	const void *ctx[2] = { ps, a };

	return realise(f, a, u, r, st, put_paths, ctx, err);
}

int la_realise_dests(const struct fabric *f, const struct la_source *src, const struct la_assign *a,
		     uint8_t *off, const struct la_updn *u, struct rt_routing *r, struct la_stats *st,
		     struct fab_err *err)
{
	free(r->dlid_off);
	r->dlid_off = off;
	return realise(f, a, u, r, st, put_dests, src, err);
}
