/* SPDX-License-Identifier: MIT */
/**
 * DOC: routes per link
 *
 * How many endpoint pairs route through each directed link under
 * all-to-all traffic (every ordered pair of endpoints, switches' port 0
 * included, one unit each, with the DLID the routing assigns to the pair),
 * counted at the switch port the link leaves from (only switch ports are
 * read),
 * for the dashboard's topology picture, GET /api/topology and the
 * fabroute_link_routes metric; and the same for the CA-to-CA pairs alone
 * (the traffic of the hosts, without the paths from and to switches that
 * a routing may send through one switch), counted in the same walks.
 *
 * The epoch's evaluation counts the same pairs per port on its way to the
 * busiest link (struct an_report's port_all and port_ca) and keeps them: they
 * are the answer. An epoch evaluated without load gets them walked here:
 * the path towards a DLID does not depend on the source, so per DLID the
 * sources are counted at the switch where they enter and each such switch
 * is walked once towards the destination; only walks that deliver to the
 * destination count, as in the evaluation. Walked once per epoch and kept
 * with it: by the daemon's warmer thread as soon as the epoch is published
 * (api_warmer_kick()), or on first use.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "svc/clock.h"
#include "api/query_impl.h"

struct walk {
	const struct fabric *f;
	const struct rt_routing *r;
	uint64_t *routes;	/* per port slot: all pairs, then CA-to-CA pairs */
	uint64_t *ca;		/* routes + nports + 1 */
	uint64_t *acc;		/* per switch index: sources entering there */
	uint64_t *acc_ca;	/* of them, CAs (counted when the destination is a CA) */
	uint32_t *path;		/* port slots of the walk under way */
};

/* The switch where endpoint @ep's packets enter the fabric, or FAB_NONE. */
static uint32_t entry_switch(const struct fabric *f, uint32_t ep)
{
	const struct fab_node *n = &f->nodes[f->eps[ep].node];
	const struct fab_port *p;

	if (n->type == FAB_SWITCH)
		return n->swidx;
	p = fab_port(f, f->eps[ep].node, f->eps[ep].port);
	if (p->peer == FAB_NONE || f->nodes[p->peer].type != FAB_SWITCH)
		return FAB_NONE;
	return f->nodes[p->peer].swidx;
}

/*
 * Walk from switch @s towards @dlid; add @count (@count_ca to the CA-to-CA
 * counts) to each link when it reaches endpoint @dst.
 */
static void walk_one(struct walk *w, uint32_t s, unsigned dlid, uint32_t dst, uint64_t count,
		     uint64_t count_ca)
{
	const struct fabric *f = w->f;
	uint32_t node = f->switches[s], dnode = f->eps[dst].node, n = 0;
	unsigned dport = f->eps[dst].port;

	for (uint32_t step = 0; step <= f->nswitches; step++) {
		unsigned out = rt_lft_get(w->r, f->nodes[node].swidx, dlid);
		const struct fab_port *p;

		if (out == 0) {
			if (node != dnode || dport != 0)
				return;
			break;
		}
		if (out > f->nodes[node].nports)
			return;
		p = fab_port(f, node, out);
		if (p->peer == FAB_NONE)
			return;
		w->path[n++] = f->nodes[node].port0 + out;
		if (f->nodes[p->peer].type != FAB_SWITCH) {
			if (p->peer != dnode || p->peer_port != dport)
				return;
			break;
		}
		node = p->peer;
		if (step == f->nswitches)
			return;	/* a loop */
	}
	for (uint32_t i = 0; i < n; i++) {
		w->routes[w->path[i]] += count;
		w->ca[w->path[i]] += count_ca;
	}
}

/* All sources using LID offset @off of @dst. */
static void route_lid(struct walk *w, uint32_t dst, unsigned off)
{
	const struct fabric *f = w->f;
	const struct rt_routing *r = w->r;
	unsigned mask = (1u << fab_ep_lmc(f, dst)) - 1;
	int dst_ca = f->nodes[f->eps[dst].node].type == FAB_CA;

	memset(w->acc, 0, (size_t)f->nswitches * sizeof(*w->acc));
	memset(w->acc_ca, 0, (size_t)f->nswitches * sizeof(*w->acc_ca));
	for (uint32_t src = 0; src < f->neps; src++) {
		uint32_t s;

		if (src == dst || (r->dlid_off ? r->dlid_off[(size_t)src * r->neps + dst] & mask : 0) != off)
			continue;
		s = entry_switch(f, src);
		if (s == FAB_NONE)
			continue;
		w->acc[s]++;
		w->acc_ca[s] += dst_ca && f->nodes[f->eps[src].node].type == FAB_CA;
	}
	for (uint32_t s = 0; s < f->nswitches; s++)
		if (w->acc[s])
			walk_one(w, s, fab_ep_lid(f, dst) + off, dst, w->acc[s], w->acc_ca[s]);
}

static uint64_t *compute(const struct fabric *f, const struct rt_routing *r)
{
	struct walk w = { .f = f, .r = r };

	w.routes = calloc(2 * ((size_t)f->nports + 1), sizeof(*w.routes));
	w.ca = w.routes ? w.routes + f->nports + 1 : NULL;
	w.acc = malloc(((size_t)f->nswitches + 1) * sizeof(*w.acc));
	w.acc_ca = malloc(((size_t)f->nswitches + 1) * sizeof(*w.acc_ca));
	w.path = malloc(((size_t)f->nswitches + 1) * sizeof(*w.path));
	if (w.routes && w.acc && w.acc_ca && w.path)
		for (uint32_t dst = 0; dst < f->neps; dst++)
			for (unsigned off = 0; off < 1u << fab_ep_lmc(f, dst); off++)
				route_lid(&w, dst, off);
	free(w.acc);
	free(w.acc_ca);
	free(w.path);
	if (!w.acc || !w.acc_ca || !w.path) {
		free(w.routes);
		return NULL;
	}
	return w.routes;
}

const uint64_t *api_link_routes(struct epoch *e)
{
	const uint64_t *v;

	if (!e || !e->fabric || !e->routing)
		return NULL;
	if (e->report.port_all)
		return e->report.port_all;
	pthread_mutex_lock(&e->cache_mu);
	if (!e->link_routes)
		e->link_routes = compute(e->fabric, e->routing);
	v = e->link_routes;
	pthread_mutex_unlock(&e->cache_mu);
	return v;
}

const uint64_t *api_link_routes_ca(struct epoch *e)
{
	const uint64_t *v = api_link_routes(e);

	if (v && e->report.port_ca)
		return e->report.port_ca;
	return v ? v + e->fabric->nports + 1 : NULL;
}

const uint64_t *api_link_routes_wait(struct epoch *e, unsigned ms)
{
	struct timespec ts;
	const uint64_t *v;

	if (!e || !e->fabric || !e->routing)
		return NULL;
	if (e->report.port_all)
		return e->report.port_all;	/* the evaluation counted them */
	ts = svc_deadline(CLOCK_REALTIME, ms);	/* pthread_mutex_timedlock()'s clock */
	/* the warmer holds the lock while it computes: past @ms, answer without */
	if (pthread_mutex_timedlock(&e->cache_mu, &ts))
		return NULL;
	if (!e->link_routes)
		e->link_routes = compute(e->fabric, e->routing);
	v = e->link_routes;
	pthread_mutex_unlock(&e->cache_mu);
	return v;
}

/* --- the warmer: routes per link computed when an epoch is published ------- */

struct api_warmer {
	struct epoch_slot *slot;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int kicked, quit;
};

static void *warm_main(void *arg)
{
	struct api_warmer *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct epoch *e;

		while (!w->kicked && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->quit)
			break;
		w->kicked = 0;
		pthread_mutex_unlock(&w->mu);
		e = epoch_slot_get(w->slot);
		api_link_routes(e);
		epoch_unref(e);
		pthread_mutex_lock(&w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct api_warmer *api_warmer_start(struct epoch_slot *slot)
{
	struct api_warmer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->slot = slot;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->th, NULL, warm_main, w)) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return NULL;
	}
	return w;
}

void api_warmer_kick(struct api_warmer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->kicked = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void api_warmer_stop(struct api_warmer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->quit = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
