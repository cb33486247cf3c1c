/* SPDX-License-Identifier: MIT */
/**
 * DOC: link load
 *
 * All-to-all traffic, one unit per ordered endpoint pair. The pairs out of
 * every port are summed by the per-destination passes (analysis/dest.c);
 * here they become the figures of struct an_load: switch-to-switch links,
 * the busiest one, the mean, the histogram, and papers/002's maximum link
 * load from the CA-to-CA pairs (each machine sends 1 in total, 1/(M-1) to
 * each other machine). The DLID balance reads the LFTs, switch by switch.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

static int is_ca(const struct fabric *f, uint32_t ep)
{
	return f->nodes[f->eps[ep].node].type == FAB_CA;
}

/* Per node, 1 for a switch: a byte each, where the nodes' records are 40 bytes apart; NULL when out of memory. */
static uint8_t *switch_map(const struct fabric *f)
{
	uint8_t *sw = malloc((size_t)f->nnodes + 1);

	for (uint32_t n = 0; sw && n < f->nnodes; n++)
		sw[n] = f->nodes[n].type == FAB_SWITCH;
	return sw;
}

static int is_switch(const struct fabric *f, const uint8_t *sw, uint32_t n)
{
	return sw ? sw[n] : f->nodes[n].type == FAB_SWITCH;
}

/*
 * The histogram's buckets by their lower bounds: @v is in bucket
 * v * AN_LOAD_BUCKETS / (max + 1), the first v of bucket k being
 * ceil(k * (max + 1) / AN_LOAD_BUCKETS); no division per link.
 */
static void bucket_bounds(uint64_t max, uint64_t low[AN_LOAD_BUCKETS])
{
	for (unsigned k = 0; k < AN_LOAD_BUCKETS; k++)
		low[k] = (k * (max + 1) + AN_LOAD_BUCKETS - 1) / AN_LOAD_BUCKETS;
}

static unsigned bucket(const uint64_t low[AN_LOAD_BUCKETS], uint64_t v)
{
	unsigned b = 0;

	for (unsigned k = 1; k < AN_LOAD_BUCKETS; k++)
		b += v >= low[k];
	return b;
}

void an_load_summarise(const struct fabric *f, const uint64_t *all, const uint64_t *ca,
		       struct an_load *out)
{
	uint64_t total = 0, machines = 0, ca_top = 0, low[AN_LOAD_BUCKETS];
	uint8_t *sw = switch_map(f);

	for (uint32_t e = 0; e < f->neps; e++)
		machines += is_ca(f, e);
	for (uint32_t n = 0; n < f->nnodes; n++) {
		const struct fab_port *x = f->ports + f->nodes[n].port0;
		uint32_t i = f->nodes[n].port0;
		int from_sw = is_switch(f, sw, n);

		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			if (x[p].peer == FAB_NONE)
				continue;
			ca_top = ca[i + p] > ca_top ? ca[i + p] : ca_top;
			if (!from_sw || !is_switch(f, sw, x[p].peer))
				continue;
			out->sw_channels++;
			total += all[i + p];
			if (all[i + p] > out->max || out->sw_channels == 1) {
				out->max = all[i + p];
				out->max_node = n;
				out->max_port = (uint8_t)p;
			}
		}
	}
	/* the largest quotient is the largest count's: division by one positive number keeps the order */
	out->ca_max_load = machines > 1 && ca_top ? (double)ca_top / (double)(machines - 1) : 0;
	out->mean = out->sw_channels ? (double)total / out->sw_channels : 0;
	bucket_bounds(out->max, low);
	for (uint32_t n = 0; n < f->nnodes && out->max; n++) {
		const struct fab_port *x = f->ports + f->nodes[n].port0;

		if (!is_switch(f, sw, n))
			continue;
		for (unsigned p = 1; p <= f->nodes[n].nports; p++)
			if (x[p].peer != FAB_NONE && is_switch(f, sw, x[p].peer))
				out->hist[bucket(low, all[f->nodes[n].port0 + p])]++;
	}
	free(sw);
}

uint8_t *an_load_lid_ep(const struct fabric *f)
{
	uint8_t *m = calloc((size_t)f->lid_top + 2, 1);

	for (uint32_t lid = 1; m && lid <= f->lid_top; lid++)
		m[lid] = fab_ep_by_lid(f, lid) != FAB_NONE;
	return m;
}

uint32_t an_load_spread(const struct fabric *f, const struct rt_routing *r, const uint8_t *lid_ep,
			uint32_t s)
{
	uint32_t node = f->switches[s], lo = UINT32_MAX, hi = 0;
	uint32_t cnt[4][RT_NO_PORT + 1] = { { 0 } };
	uint32_t top = f->lid_top < r->lft_len ? f->lid_top : r->lft_len - 1, lid = 1;
	const uint8_t *lft = rt_lft(r, s);

	/* four counts per port: neighbouring LIDs often take one port, and would wait on each other */
	for (; lid + 3 <= top; lid += 4) {
		cnt[0][lft[lid]] += lid_ep[lid];
		cnt[1][lft[lid + 1]] += lid_ep[lid + 1];
		cnt[2][lft[lid + 2]] += lid_ep[lid + 2];
		cnt[3][lft[lid + 3]] += lid_ep[lid + 3];
	}
	for (; lid <= top; lid++)
		cnt[0][lft[lid]] += lid_ep[lid];
	for (unsigned p = 0; p <= RT_NO_PORT; p++)
		cnt[0][p] += cnt[1][p] + cnt[2][p] + cnt[3][p];
	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t peer = fab_port(f, node, p)->peer;

		if (peer == FAB_NONE || f->nodes[peer].type != FAB_SWITCH)
			continue;
		lo = cnt[0][p] < lo ? cnt[0][p] : lo;
		hi = cnt[0][p] > hi ? cnt[0][p] : hi;
	}
	return lo == UINT32_MAX ? 0 : hi - lo;
}
