/* SPDX-License-Identifier: MIT */
/**
 * DOC: link load
 *
 * All-to-all traffic, one unit per ordered endpoint pair: for each
 * destination LID in use, the sources entering at each switch are counted,
 * then pushed along the LFTs from the switches farthest from the
 * destination to the nearest, so each link gets the number of pairs
 * crossing it in O(switches) per LID. A second count keeps only CA-to-CA
 * pairs for papers/002's maximum link load (each machine sends 1 in total,
 * 1/(M-1) to each other machine).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

struct load_state {
	const struct an_ctx *c;
	struct an_fwd fwd;
	uint64_t *all;		/* per port slot: pairs sent out of that port */
	uint64_t *ca;		/* the same, CA-to-CA pairs only */
	uint64_t *acc_all, *acc_ca;	/* per switch */
	uint32_t *order, *bucket;	/* switches by decreasing hops */
};

static int is_ca(const struct fabric *f, uint32_t ep)
{
	return f->nodes[f->eps[ep].node].type == FAB_CA;
}

static uint32_t slot(const struct fabric *f, uint32_t node, unsigned port)
{
	return f->nodes[node].port0 + port;
}

/* Sort delivering switches by hops, farthest first (counting sort). */
static uint32_t order_switches(struct load_state *st)
{
	const struct an_fwd *w = &st->fwd;
	uint32_t n = st->c->f->nswitches, m = 0, max = w->maxhops;

	memset(st->bucket, 0, ((size_t)max + 2) * sizeof(*st->bucket));
	for (uint32_t s = 0; s < n; s++)
		if (w->res[s] == AN_DELIVERED)
			st->bucket[max - w->hops[s] + 1]++;
	for (uint32_t h = 1; h <= max + 1; h++)
		st->bucket[h] += st->bucket[h - 1];
	for (uint32_t s = 0; s < n; s++)
		if (w->res[s] == AN_DELIVERED) {
			st->order[st->bucket[max - w->hops[s]]++] = s;
			m++;
		}
	return m;
}

static void push_along(struct load_state *st, unsigned dlid, uint32_t dst)
{
	const struct fabric *f = st->c->f;
	uint32_t m = order_switches(st);

	for (uint32_t i = 0; i < m; i++) {
		uint32_t s = st->order[i], next;
		uint8_t out, in;

		if (!st->acc_all[s])
			continue;
		an_step(st->c, s, dlid, dst, &out, &next, &in);
		if (out == 0)
			continue;	/* delivered to this switch's port 0 */
		st->all[slot(f, f->switches[s], out)] += st->acc_all[s];
		st->ca[slot(f, f->switches[s], out)] += st->acc_ca[s];
		if (next != FAB_NONE) {
			st->acc_all[next] += st->acc_all[s];
			st->acc_ca[next] += st->acc_ca[s];
		}
	}
}

/* Sources using LID offset @off of @dst: count them where they enter. */
static void load_lid(struct load_state *st, uint32_t dst, unsigned off)
{
	const struct fabric *f = st->c->f;
	const struct rt_routing *r = st->c->r;
	unsigned base = fab_ep_lid(f, dst), mask = (1u << fab_ep_lmc(f, dst)) - 1;
	int any = 0;

	memset(st->acc_all, 0, (size_t)f->nswitches * sizeof(*st->acc_all));
	memset(st->acc_ca, 0, (size_t)f->nswitches * sizeof(*st->acc_ca));
	an_fwd_resolve(&st->fwd, st->c, base + off, dst);
	for (uint32_t src = 0; src < f->neps; src++) {
		uint32_t first = st->c->first[src];
		int both_ca = is_ca(f, src) && is_ca(f, dst);

		if (src == dst || (r->dlid_off ? r->dlid_off[(size_t)src * r->neps + dst] & mask : 0) != off)
			continue;
		if (first == FAB_NONE || st->fwd.res[first] != AN_DELIVERED)
			continue;
		any = 1;
		st->acc_all[first]++;
		st->acc_ca[first] += both_ca;
		if (f->nodes[f->eps[src].node].type != FAB_SWITCH) {
			st->all[slot(f, f->eps[src].node, f->eps[src].port)]++;
			st->ca[slot(f, f->eps[src].node, f->eps[src].port)] += both_ca;
		}
	}
	if (any)
		push_along(st, base + off, dst);
}

static void balance(const struct an_ctx *c, struct an_load *out)
{
	const struct fabric *f = c->f;
	uint32_t cnt[FAB_PORTS_MAX + 1];

	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s], lo = UINT32_MAX, hi = 0;

		memset(cnt, 0, sizeof(cnt));
		for (uint32_t lid = 1; lid <= f->lid_top; lid++) {
			uint8_t p = rt_lft_get(c->r, s, lid);

			if (p != RT_NO_PORT && p <= f->nodes[node].nports && fab_ep_by_lid(f, lid) != FAB_NONE)
				cnt[p]++;
		}
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t peer = fab_port(f, node, p)->peer;

			if (peer == FAB_NONE || f->nodes[peer].type != FAB_SWITCH)
				continue;
			lo = cnt[p] < lo ? cnt[p] : lo;
			hi = cnt[p] > hi ? cnt[p] : hi;
		}
		if (lo != UINT32_MAX && hi - lo > out->balance_max) {
			out->balance_max = hi - lo;
			out->balance_node = node;
		}
	}
}

static void summarise(const struct load_state *st, struct an_load *out)
{
	const struct fabric *f = st->c->f;
	uint64_t total = 0, machines = 0;

	for (uint32_t e = 0; e < f->neps; e++)
		machines += is_ca(f, e);
	for (uint32_t n = 0; n < f->nnodes; n++)
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t peer = fab_port(f, n, p)->peer, i = slot(f, n, p);
			double ca = machines > 1 ? (double)st->ca[i] / (double)(machines - 1) : 0;

			if (peer == FAB_NONE)
				continue;
			if (ca > out->ca_max_load)
				out->ca_max_load = ca;
			if (f->nodes[n].type != FAB_SWITCH || f->nodes[peer].type != FAB_SWITCH)
				continue;
			out->sw_channels++;
			total += st->all[i];
			if (st->all[i] > out->max || out->sw_channels == 1) {
				out->max = st->all[i];
				out->max_node = n;
				out->max_port = (uint8_t)p;
			}
		}
	out->mean = out->sw_channels ? (double)total / out->sw_channels : 0;
	for (uint32_t n = 0; n < f->nnodes && out->max; n++)
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t peer = fab_port(f, n, p)->peer;
			uint64_t b;

			if (peer == FAB_NONE || f->nodes[n].type != FAB_SWITCH ||
			    f->nodes[peer].type != FAB_SWITCH)
				continue;
			b = st->all[slot(f, n, p)] * AN_LOAD_BUCKETS / (out->max + 1);
			out->hist[b]++;
		}
}

int an_load_run(const struct an_ctx *c, struct an_load *out)
{
	const struct fabric *f = c->f;
	struct load_state st = { .c = c };
	size_t nsw = (size_t)f->nswitches + 2;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	st.all = calloc((size_t)f->nports + 1, sizeof(*st.all));
	st.ca = calloc((size_t)f->nports + 1, sizeof(*st.ca));
	st.acc_all = malloc(nsw * sizeof(*st.acc_all));
	st.acc_ca = malloc(nsw * sizeof(*st.acc_ca));
	st.order = malloc(nsw * sizeof(*st.order));
	st.bucket = malloc((nsw + 1) * sizeof(*st.bucket));
	if (!st.all || !st.ca || !st.acc_all || !st.acc_ca || !st.order || !st.bucket ||
	    an_fwd_init(&st.fwd, f))
		goto out;
	for (uint32_t dst = 0; dst < f->neps; dst++) {
		unsigned n = 1u << fab_ep_lmc(f, dst);

		for (unsigned off = 0; fab_ep_lid(f, dst) && off < (c->r->dlid_off ? n : 1); off++)
			load_lid(&st, dst, off);
	}
	summarise(&st, out);
	balance(c, out);
	rc = 0;
out:
	an_fwd_fini(&st.fwd);
	free(st.all);
	free(st.ca);
	free(st.acc_all);
	free(st.acc_ca);
	free(st.order);
	free(st.bucket);
	return rc;
}
