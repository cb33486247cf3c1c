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

static uint32_t slot(const struct fabric *f, uint32_t node, unsigned port)
{
	return f->nodes[node].port0 + port;
}

static int sw_link(const struct fabric *f, uint32_t n, uint32_t peer)
{
	return peer != FAB_NONE && f->nodes[n].type == FAB_SWITCH &&
	       f->nodes[peer].type == FAB_SWITCH;
}

void an_load_summarise(const struct fabric *f, const uint64_t *all, const uint64_t *ca,
		       struct an_load *out)
{
	uint64_t total = 0, machines = 0;

	for (uint32_t e = 0; e < f->neps; e++)
		machines += is_ca(f, e);
	for (uint32_t n = 0; n < f->nnodes; n++)
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t peer = fab_port(f, n, p)->peer, i = slot(f, n, p);
			double l = machines > 1 ? (double)ca[i] / (double)(machines - 1) : 0;

			if (peer == FAB_NONE)
				continue;
			if (l > out->ca_max_load)
				out->ca_max_load = l;
			if (!sw_link(f, n, peer))
				continue;
			out->sw_channels++;
			total += all[i];
			if (all[i] > out->max || out->sw_channels == 1) {
				out->max = all[i];
				out->max_node = n;
				out->max_port = (uint8_t)p;
			}
		}
	out->mean = out->sw_channels ? (double)total / out->sw_channels : 0;
	for (uint32_t n = 0; n < f->nnodes && out->max; n++)
		for (unsigned p = 1; p <= f->nodes[n].nports; p++)
			if (sw_link(f, n, fab_port(f, n, p)->peer))
				out->hist[all[slot(f, n, p)] * AN_LOAD_BUCKETS / (out->max + 1)]++;
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
