/* SPDX-License-Identifier: MIT */
/**
 * DOC: routing tables
 *
 * Allocation and access for struct rt_routing; see routing.h for the
 * layout and its memory cost. The LFTs are plain memory, without
 * MADV_HUGEPAGE: at 43,904 CAs (187 MB of tables, a 2-core VM) the huge
 * pages' first touch took 0.57-0.88 s once the host had taken the free
 * memory back (a few seconds idle, as between two reroutes), small pages
 * 0.13-0.17 s, and the proof's CPU time was the same on both (1.88-1.97
 * s): it reads a block of LIDs of a row at a time, not a column.
 */
#include <stdlib.h>
#include <string.h>

#include "fabric/routing.h"

struct rt_routing *rt_new(const struct fabric *f)
{
	return rt_new_len(f, f->lid_top + 1);
}

struct rt_routing *rt_new_len(const struct fabric *f, uint32_t lft_len)
{
	struct rt_routing *r = rt_new_rows(f, lft_len);

	if (r)
		memset(r->lft, RT_NO_PORT, (size_t)r->nswitches * r->lft_len);
	return r;
}

struct rt_routing *rt_new_rows(const struct fabric *f, uint32_t lft_len)
{
	return rt_new_rows_in(f, lft_len, NULL, 0);
}

uint8_t *rt_lft_buffer(uint32_t nswitches, uint32_t lft_len, size_t *cap)
{
	uint8_t *buf;

	*cap = (size_t)nswitches * lft_len + 1;
	buf = malloc(*cap);
	if (buf)
		memset(buf, RT_NO_PORT, *cap);
	return buf;
}

struct rt_routing *rt_new_rows_in(const struct fabric *f, uint32_t lft_len, uint8_t *buf,
				  size_t cap)
{
	struct rt_routing *r = calloc(1, sizeof(*r));
	size_t need;

	if (!r) {
		free(buf);
		return NULL;
	}
	r->nswitches = f->nswitches;
	r->lft_len = lft_len > f->lid_top + 1 ? lft_len : f->lid_top + 1;
	r->neps = f->neps;
	r->vls_used = 1;
	need = (size_t)r->nswitches * r->lft_len + 1;
	if (buf && cap < need) {
		free(buf);
		buf = NULL;
	}
	r->lft = buf ? buf : malloc(need);
	r->sl2vl = calloc((size_t)r->nswitches + 1, sizeof(*r->sl2vl));
	if (!r->lft || !r->sl2vl) {
		rt_free(r);
		return NULL;
	}
	return r;
}

void rt_free(struct rt_routing *r)
{
	if (!r)
		return;
	if (r->sl2vl)
		for (uint32_t s = 0; s < r->nswitches; s++)
			free(r->sl2vl[s]);
	free(r->sl2vl);
	free(r->lft);
	free(r->path_sl);
	free(r->dlid_off);
	free(r->notes);
	free(r);
}

struct rt_routing *rt_copy(const struct fabric *f, const struct rt_routing *b)
{
	struct rt_routing *r = rt_new_len(f, b->lft_len);

	if (!r)
		return NULL;
	memcpy(r->lft, b->lft, (size_t)b->nswitches * b->lft_len);
	r->vls_used = b->vls_used;
	for (uint32_t s = 0; s < b->nswitches; s++) {
		size_t dim = f->nodes[f->switches[s]].nports + 1u;

		if (!b->sl2vl[s])
			continue;
		if (!(r->sl2vl[s] = malloc(dim * dim * RT_SLS)))
			goto fail;
		memcpy(r->sl2vl[s], b->sl2vl[s], dim * dim * RT_SLS);
	}
	if ((b->path_sl || b->dlid_off) && rt_pairs_alloc(r))
		goto fail;
	if (b->path_sl)
		memcpy(r->path_sl, b->path_sl, (size_t)b->neps * b->neps);
	if (b->dlid_off)
		memcpy(r->dlid_off, b->dlid_off, (size_t)b->neps * b->neps);
	if (b->notes && !(r->notes = strdup(b->notes)))
		goto fail;
	return r;
fail:
	rt_free(r);
	return NULL;
}

static unsigned default_vl(const struct fabric *f, uint32_t sw, unsigned sl)
{
	unsigned vls = f->nodes[f->switches[sw]].vl_cap;

	return vls ? sl % vls : 0;
}

int rt_sl2vl_set(struct rt_routing *r, const struct fabric *f, uint32_t sw, unsigned in,
		 unsigned out, unsigned sl, unsigned vl)
{
	unsigned np, dim;

	if (sw >= r->nswitches || sl >= RT_SLS || vl > 15)
		return -1;
	np = f->nodes[f->switches[sw]].nports;
	dim = np + 1;
	if (in > np || out > np)
		return -1;
	if (!r->sl2vl[sw]) {
		uint8_t *t = malloc((size_t)dim * dim * RT_SLS);

		if (!t)
			return -1;
		for (size_t i = 0; i < (size_t)dim * dim; i++)
			for (unsigned s = 0; s < RT_SLS; s++)
				t[i * RT_SLS + s] = (uint8_t)default_vl(f, sw, s);
		r->sl2vl[sw] = t;
	}
	r->sl2vl[sw][((size_t)in * dim + out) * RT_SLS + sl] = (uint8_t)vl;
	return 0;
}

unsigned rt_sl2vl_get(const struct rt_routing *r, const struct fabric *f, uint32_t sw,
		      unsigned in, unsigned out, unsigned sl)
{
	unsigned dim = f->nodes[f->switches[sw]].nports + 1u;

	if (!r->sl2vl[sw] || in >= dim || out >= dim)
		return default_vl(f, sw, sl % RT_SLS);
	return r->sl2vl[sw][((size_t)in * dim + out) * RT_SLS + sl % RT_SLS];
}

int rt_sl2vl_custom(const struct rt_routing *r, const struct fabric *f, uint32_t sw)
{
	unsigned dim = f->nodes[f->switches[sw]].nports + 1u;
	const uint8_t *t = r->sl2vl[sw];

	for (size_t i = 0; t && i < (size_t)dim * dim; i++)
		for (unsigned sl = 0; sl < RT_SLS; sl++)
			if (t[i * RT_SLS + sl] != default_vl(f, sw, sl))
				return 1;
	return 0;
}

/* The offset of @dst's range @src uses (0 without per-pair DLIDs). */
static unsigned pair_off(const struct rt_routing *r, const struct fabric *f, uint32_t src,
			 uint32_t dst)
{
	return r->dlid_off ? r->dlid_off[(size_t)src * r->neps + dst] &
			     ((1u << fab_ep_lmc(f, dst)) - 1) : 0;
}

unsigned rt_src_offset(const struct rt_routing *r, const struct fabric *f, uint32_t src,
		       uint32_t *exceptions)
{
	uint32_t votes[1u << FAB_LMC_MAX] = { 0 }, best = 0, miss = 0;
	unsigned top = 0;

	for (uint32_t d = 0; d < f->neps; d++)
		if (d != src && fab_ep_lid(f, d) && fab_ep_lmc(f, d) > top)
			top = fab_ep_lmc(f, d);
	for (uint32_t d = 0; d < f->neps && top; d++)
		if (d != src && fab_ep_lid(f, d) && fab_ep_lmc(f, d) == top)
			votes[pair_off(r, f, src, d)]++;
	for (unsigned o = 1; o < (1u << top); o++)
		if (votes[o] > votes[best])
			best = o;
	for (uint32_t d = 0; d < f->neps; d++)
		if (d != src && fab_ep_lid(f, d) &&
		    pair_off(r, f, src, d) != (best & ((1u << fab_ep_lmc(f, d)) - 1)))
			miss++;
	if (exceptions)
		*exceptions = miss;
	return best;
}

int rt_pairs_alloc(struct rt_routing *r)
{
	size_t n = (size_t)r->neps * r->neps + 1;

	if (!r->path_sl)
		r->path_sl = calloc(n, 1);
	if (!r->dlid_off)
		r->dlid_off = calloc(n, 1);
	return r->path_sl && r->dlid_off ? 0 : -1;
}

unsigned rt_dlid(const struct rt_routing *r, const struct fabric *f, uint32_t src, uint32_t dst)
{
	unsigned base = fab_ep_lid(f, dst);

	if (!r->dlid_off || !base)
		return base;
	return base + (r->dlid_off[(size_t)src * r->neps + dst] & ((1u << fab_ep_lmc(f, dst)) - 1));
}

int rt_equal_lfts(const struct rt_routing *a, const struct rt_routing *b)
{
	uint32_t len = a->lft_len > b->lft_len ? a->lft_len : b->lft_len;

	if (a->nswitches != b->nswitches)
		return 0;
	if (a->lft_len == b->lft_len)
		return !memcmp(a->lft, b->lft, (size_t)a->nswitches * len);
	for (uint32_t s = 0; s < a->nswitches; s++)
		for (uint32_t l = 0; l < len; l++)
			if (rt_lft_get(a, s, l) != rt_lft_get(b, s, l))
				return 0;
	return 1;
}

/* Blocks of switch @sb of @b that differ from switch @sa of @a (FAB_NONE: none), into @d. */
static void diff_switch(const struct rt_routing *a, uint32_t sa, const struct rt_routing *b,
			uint32_t sb, struct rt_diff *d)
{
	uint32_t len = a && a->lft_len > b->lft_len ? a->lft_len : b->lft_len, blocks = 0;
	/* where both tables have the block, an equal block is one memcmp (most are equal) */
	uint32_t both = sa == FAB_NONE ? 0 : a->lft_len < b->lft_len ? a->lft_len : b->lft_len;
	const uint8_t *ra = sa == FAB_NONE ? NULL : rt_lft(a, sa), *rb = rt_lft(b, sb);

	for (uint32_t start = 0; start < len; start += 64) {
		uint32_t n = 0, routed = 0;

		if (start + 64 <= both && !memcmp(ra + start, rb + start, 64))
			continue;
		for (uint32_t l = start; l < start + 64 && l < len; l++) {
			uint8_t x = sa == FAB_NONE ? RT_NO_PORT : rt_lft_get(a, sa, l);
			uint8_t y = rt_lft_get(b, sb, l);

			n += x != y;
			routed |= y != RT_NO_PORT;
		}
		if (sa != FAB_NONE)
			d->entries += n;
		blocks += sa == FAB_NONE ? routed : n > 0;
	}
	d->blocks += blocks;
	d->switches += blocks > 0;
	d->max_blocks = blocks > d->max_blocks ? blocks : d->max_blocks;
}

void rt_diff(const struct fabric *fa, const struct rt_routing *a, const struct fabric *fb,
	     const struct rt_routing *b, struct rt_diff *d)
{
	memset(d, 0, sizeof(*d));
	for (uint32_t s = 0; s < fb->nswitches && s < b->nswitches; s++) {
		uint32_t n = fab_node_by_guid(fa, fb->nodes[fb->switches[s]].guid);
		uint32_t sa = n == FAB_NONE || fa->nodes[n].type != FAB_SWITCH ||
			      fa->nodes[n].swidx >= a->nswitches ? FAB_NONE : fa->nodes[n].swidx;

		d->added += sa == FAB_NONE;
		diff_switch(a, sa, b, s, d);
	}
}
