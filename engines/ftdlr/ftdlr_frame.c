/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - the repaired routing's frame
 *
 * A repair starts from the base's tables: each current switch's row is the
 * base's (mapped by GUID), shared with the base until the repair writes it
 * (rt_derive(), rt_row_own()), with the base's SL2VL and pair tables. At
 * 43,904 CAs the rows are 187 MB, which a copy took 100-500 ms to put in
 * fresh memory (the kernel zeroing the pages, on the repair's path); a
 * fault changes a few dozen rows.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr/ftdlr_impl.h"

/* Pair table @to (@n endpoints) from @from (@bn endpoints; none: zeros) through @map. */
static void copy_pairs(uint8_t *restrict to, const uint8_t *restrict from, const uint32_t *map,
		       uint32_t n, uint32_t bn)
{
	int same = n == bn;

	for (uint32_t a = 0; same && a < n; a++)
		same = map[a] == a;
	if (!from)
		return;	/* rt_pairs_alloc() zeroed it */
	if (same) {
		memcpy(to, from, (size_t)n * n);
		return;
	}
	for (uint32_t a = 0; a < n; a++) {
		const uint8_t *row = from + (size_t)map[a] * bn;

		for (uint32_t b = 0; b < n; b++)
			to[(size_t)a * n + b] = row[map[b]];
	}
}

/* @r's pair tables: the base's, mapped by GUID. Return 0 or -1. */
static int map_pairs(const struct fd *x, struct rt_routing *r)
{
	const struct fabric *bf = x->bf, *cf = x->cf;
	const struct rt_routing *br = x->br;
	uint32_t *map;

	if (!br->path_sl && !br->dlid_off)
		return 0;
	if (rt_pairs_alloc(r) || !(map = malloc(((size_t)cf->neps + 1) * sizeof(*map))))
		return -1;
	for (uint32_t a = 0; a < cf->neps; a++)	/* every endpoint of @cf is one of the base's */
		map[a] = fab_ep_by_port_guid(bf, fab_port(cf, cf->eps[a].node, cf->eps[a].port)->guid);
	copy_pairs(r->path_sl, br->path_sl, map, cf->neps, br->neps);
	copy_pairs(r->dlid_off, br->dlid_off, map, cf->neps, br->neps);
	free(map);
	return 0;
}

int fd_make_frame(struct fd *x)
{
	uint32_t n = x->cf->nswitches, *map = malloc(((size_t)n + 1) * sizeof(*map));

	if (!map)
		return -1;
	for (uint32_t c = 0; c < n; c++)
		map[c] = FAB_NONE;
	for (uint32_t s = 0; s < x->nsw; s++)
		if (x->cur[s] != FAB_NONE)
			map[x->cur[s]] = s;
	x->r = rt_derive(x->cf, x->br, map, RT_KEEP_SL2VL);
	free(map);
	return x->r && !map_pairs(x, x->r) ? 0 : -1;
}
