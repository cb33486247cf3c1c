/* SPDX-License-Identifier: MIT */
/**
 * DOC: helpers shared by the engines
 *
 * All-pairs switch hop counts (over fab_sw_neighbours()), and the last
 * hop every engine routes the same way: a LID owned by a switch ends at
 * its port 0, a LID owned by a CA leaves its switch by the CA's port.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"

uint8_t *eng_hops(const struct fabric *f)
{
	uint32_t n = f->nswitches, *off, *adj;
	uint8_t *hops = malloc((size_t)n * n + 1);
	uint32_t *queue = malloc(((size_t)n + 1) * sizeof(*queue));

	if (!hops || !queue || fab_sw_neighbours(f, &off, &adj)) {
		free(hops);
		free(queue);
		return NULL;
	}
	memset(hops, UINT8_MAX, (size_t)n * n);
	for (uint32_t src = 0; src < n; src++) {
		uint8_t *h = hops + (size_t)src * n;
		uint32_t head = 0, tail = 0;

		h[src] = 0;
		queue[tail++] = src;
		while (head < tail) {
			uint32_t v = queue[head++];

			for (uint32_t k = off[v]; k < off[v + 1]; k++) {
				uint32_t w = adj[k];

				if (h[w] == UINT8_MAX && h[v] < UINT8_MAX - 1) {
					h[w] = (uint8_t)(h[v] + 1);
					queue[tail++] = w;
				}
			}
		}
	}
	free(off);
	free(adj);
	free(queue);
	return hops;
}

void eng_route_endpoints(const struct fabric *f, struct rt_routing *r)
{
	eng_route_endpoints_if(f, r, NULL, 0);
}

void eng_route_endpoints_if(const struct fabric *f, struct rt_routing *r, const uint8_t *flags,
			    uint8_t skip)
{
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_ep *ep = &f->eps[e];
		const struct fab_port *p = fab_port(f, ep->node, ep->port);
		unsigned base = p->lid, n = 1u << p->lmc;
		uint32_t sw;
		uint8_t out;

		if (!base)
			continue;
		if (f->nodes[ep->node].type == FAB_SWITCH) {
			sw = f->nodes[ep->node].swidx;
			out = 0;
		} else if (p->peer != FAB_NONE && f->nodes[p->peer].type == FAB_SWITCH) {
			sw = f->nodes[p->peer].swidx;
			out = p->peer_port;
		} else {
			continue;
		}
		for (unsigned l = base; l < base + n && l < r->lft_len; l++)
			if (!flags || !(flags[l] & skip))
				rt_lft(r, sw)[l] = out;
	}
}
