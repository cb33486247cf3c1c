/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - the repaired routing's frame
 *
 * A repair starts from the base's tables: fresh tables for the current
 * fabric's switches, each row the base's (mapped by GUID), with the base's
 * SL2VL and pair tables. At 10^4 switches that is tens of MB, most of whose
 * cost is the kernel zeroing fresh pages; the rows are written once, by
 * the copy (rt_new_rows()), and ftdlr.c makes the frame in a thread of its
 * own while the rest of the set-up runs.
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

/* @r gets the base's entries (every row written), SL2VL tables and pair tables, mapped by GUID. */
static int copy_base(struct fd *x)
{
	const struct fabric *bf = x->bf, *cf = x->cf;
	const struct rt_routing *br = x->br;
	struct rt_routing *r = x->r;
	uint32_t *map;

	uint8_t *done = calloc((size_t)r->nswitches + 1, 1);

	if (!done)
		return -1;
	for (uint32_t s = 0; s < x->nsw; s++) {
		uint32_t c = x->cur[s];
		size_t dim = bf->nodes[bf->switches[s]].nports + 1u;

		if (c == FD_NONE)
			continue;
		memcpy(rt_lft(r, c), rt_lft(br, s), br->lft_len);
		memset(rt_lft(r, c) + br->lft_len, RT_NO_PORT, r->lft_len - br->lft_len);
		done[c] = 1;
		if (br->sl2vl[s] && !(r->sl2vl[c] = malloc(dim * dim * RT_SLS))) {
			free(done);
			return -1;
		}
		if (br->sl2vl[s])
			memcpy(r->sl2vl[c], br->sl2vl[s], dim * dim * RT_SLS);
	}
	for (uint32_t c = 0; c < r->nswitches; c++)	/* the frame's rows are not set (rt_new_rows()) */
		if (!done[c])
			memset(rt_lft(r, c), RT_NO_PORT, r->lft_len);
	free(done);
	r->vls_used = br->vls_used;
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

/* The repaired routing's frame: the base's tables in fresh memory (its zeroing is most of the time). */
void *fd_make_frame(void *arg)
{
	struct fd *x = arg;

	x->r = rt_new_rows_in(x->cf, x->br->lft_len, x->spare, x->spare_cap);
	x->spare = NULL;
	return x->r && !copy_base(x) ? x : NULL;
}
