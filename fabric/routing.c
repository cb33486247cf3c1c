/* SPDX-License-Identifier: MIT */
/**
 * DOC: routing tables
 *
 * Allocation and access for struct rt_routing; see routing.h for the
 * layout and its memory cost. A block of rows of RT_MAP_MIN bytes or more
 * is mapped with its pages made at once (MAP_POPULATE): the engine writes
 * every byte of it, and on a 2-core VM a page fault per 4 KiB page taken
 * as the rows are first written costs far more than the kernel making
 * them all in one call (187 MB at 43,904 CAs: 0.50 s to fault and fill
 * against 0.03 s to map and 0.23 s to fill, the hypervisor's part of a
 * page's first write, measured in a test program; ftree's route 0.9 s
 * instead of 1.25-1.3). Small pages, not MADV_HUGEPAGE: the
 * huge pages' making took 0.3-0.4 s once the host had taken the free
 * memory back (a few seconds idle, as between two reroutes), and the
 * proof's CPU time was the same on both: it reads a block of LIDs of a
 * row at a time, not a column.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fabric/routing.h"

/*
 * Rows blocks from this size on are mapped, their pages made at once:
 * glibc's malloc() maps blocks this large itself, afresh each time; a
 * smaller one freed is kept in its heap and reused without faults.
 */
#define RT_MAP_MIN (32u << 20)

/*
 * Memory rows are in: each routing with rows in it holds one reference.
 * @mapped: the size of @mem's mapping, 0 when it is from malloc()
 */
struct rt_rows {
	unsigned long refs;
	uint8_t *mem;
	size_t mapped;
};

static struct rt_rows *rows_new(size_t n)
{
	struct rt_rows *h = malloc(sizeof(*h));
	void *m;

	if (!h)
		return NULL;
	h->refs = 1;
	h->mapped = 0;
	if (n >= RT_MAP_MIN) {
		m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
			 -1, 0);
		if (m != MAP_FAILED) {
			h->mem = m;
			h->mapped = n;
			return h;
		}
	}
	if (!(h->mem = malloc(n))) {
		free(h);
		return NULL;
	}
	return h;
}

static void rows_unref(struct rt_rows *h)
{
	if (__atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (h->mapped)
		munmap(h->mem, h->mapped);
	else
		free(h->mem);
	free(h);
}

/* @r holds @h (a reference already taken for it). Return 0, or -1 when out of memory. */
static int hold(struct rt_routing *r, struct rt_rows *h)
{
	/* room for 4, then doubled each time the count reaches a power of two */
	if (r->nheld >= 4 && !(r->nheld & (r->nheld - 1))) {
		struct rt_rows **n = realloc(r->held, 2 * (size_t)r->nheld * sizeof(*n));

		if (!n)
			return -1;
		r->held = n;
	}
	r->held[r->nheld++] = h;
	return 0;
}

/* A routing for @f without rows: sizes, no SL2VL table, no pair table. */
static struct rt_routing *frame(const struct fabric *f, uint32_t lft_len)
{
	struct rt_routing *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->nswitches = f->nswitches;
	r->lft_len = lft_len > f->lid_top + 1 ? lft_len : f->lid_top + 1;
	r->neps = f->neps;
	r->vls_used = 1;
	r->row = calloc((size_t)r->nswitches + 1, sizeof(*r->row));
	r->held = malloc(4 * sizeof(*r->held));
	r->sl2vl = calloc((size_t)r->nswitches + 1, sizeof(*r->sl2vl));
	if (!r->row || !r->held || !r->sl2vl) {
		rt_free(r);
		return NULL;
	}
	return r;
}

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
	struct rt_routing *r = frame(f, lft_len);
	struct rt_rows *h;

	if (!r)
		return NULL;
	h = rows_new((size_t)r->nswitches * r->lft_len + 1);
	if (!h || hold(r, h)) {
		if (h)
			rows_unref(h);
		rt_free(r);
		return NULL;
	}
	r->lft = h->mem;
	for (uint32_t s = 0; s <= r->nswitches; s++)
		r->row[s] = r->lft + (size_t)s * r->lft_len;
	return r;
}

void rt_free(struct rt_routing *r)
{
	if (!r)
		return;
	if (r->sl2vl)
		for (uint32_t s = 0; s < r->nswitches; s++)
			free(r->sl2vl[s]);
	for (uint32_t i = 0; i < r->nheld; i++)
		rows_unref(r->held[i]);
	free(r->held);
	free(r->row);
	free(r->mine);
	free(r->sl2vl);
	free(r->path_sl);
	free(r->dlid_off);
	free(r->notes);
	free(r);
}

/* The switch of the other routing that switch @s takes after (@map NULL: the same). */
static inline uint32_t mapped(const uint32_t *map, uint32_t s)
{
	return map ? map[s] : s;
}

/* @r's SL2VL tables: @b's of switch @map[s] (@map NULL: s) for switch s, @f's sizes. */
static int copy_sl2vl(struct rt_routing *r, const struct fabric *f, const struct rt_routing *b,
		      const uint32_t *map)
{
	for (uint32_t s = 0; s < r->nswitches; s++) {
		uint32_t from = mapped(map, s);
		size_t dim = f->nodes[f->switches[s]].nports + 1u;

		if (from == FAB_NONE || !b->sl2vl[from])
			continue;
		if (!(r->sl2vl[s] = malloc(dim * dim * RT_SLS)))
			return -1;
		memcpy(r->sl2vl[s], b->sl2vl[from], dim * dim * RT_SLS);
	}
	return 0;
}

/* @r gets @b's pair tables (the same endpoints). Return 0 or -1. */
static int copy_pairs(struct rt_routing *r, const struct rt_routing *b)
{
	size_t n = (size_t)b->neps * b->neps;

	if ((b->path_sl || b->dlid_off) && rt_pairs_alloc(r))
		return -1;
	if (b->path_sl)
		memcpy(r->path_sl, b->path_sl, n);
	if (b->dlid_off)
		memcpy(r->dlid_off, b->dlid_off, n);
	return 0;
}

/* The rows of @b (switch @map[s] for s; @map NULL: s), copied into @r's. */
static void copy_rows(struct rt_routing *r, const struct rt_routing *b, const uint32_t *map)
{
	uint32_t n = b->lft_len < r->lft_len ? b->lft_len : r->lft_len;

	for (uint32_t s = 0; s < r->nswitches; s++) {
		uint32_t from = mapped(map, s);

		if (from != FAB_NONE)
			memcpy(r->row[s], b->row[from], n);
		memset(r->row[s] + (from != FAB_NONE ? n : 0), RT_NO_PORT,
		       r->lft_len - (from != FAB_NONE ? n : 0));
	}
}

struct rt_routing *rt_copy(const struct fabric *f, const struct rt_routing *b)
{
	struct rt_routing *r = rt_new_rows(f, b->lft_len);

	if (!r)
		return NULL;
	copy_rows(r, b, NULL);
	r->vls_used = b->vls_used;
	if (copy_sl2vl(r, f, b, NULL) || copy_pairs(r, b) ||
	    (b->notes && !(r->notes = strdup(b->notes)))) {
		rt_free(r);
		return NULL;
	}
	return r;
}

/* Switch @sw's row in memory of @r's own: a copy of @from, or a row without routes (NULL). */
static uint8_t *own_row(struct rt_routing *r, uint32_t sw, const uint8_t *from)
{
	struct rt_rows *h = rows_new(r->lft_len);

	if (!h || hold(r, h)) {
		if (h)
			rows_unref(h);
		return NULL;
	}
	if (from)
		memcpy(h->mem, from, r->lft_len);
	else
		memset(h->mem, RT_NO_PORT, r->lft_len);
	r->row[sw] = h->mem;
	r->mine[sw] = 1;
	return h->mem;
}

uint8_t *rt_row_own(struct rt_routing *r, uint32_t sw)
{
	return !r->mine || r->mine[sw] ? r->row[sw] : own_row(r, sw, r->row[sw]);
}

/*
 * @r shares @b's rows through @map (NULL: the same switches): a reference
 * on all @b holds, an own row where none maps.
 */
static int share_rows(struct rt_routing *r, const struct rt_routing *b, const uint32_t *map)
{
	if (!(r->mine = calloc((size_t)r->nswitches + 1, 1)))
		return -1;
	for (uint32_t i = 0; i < b->nheld; i++) {
		__atomic_add_fetch(&b->held[i]->refs, 1, __ATOMIC_RELAXED);
		if (hold(r, b->held[i])) {
			rows_unref(b->held[i]);
			return -1;
		}
	}
	r->gen = b->gen + 1;
	for (uint32_t s = 0; s < r->nswitches; s++) {
		uint32_t from = mapped(map, s);

		if (from != FAB_NONE)
			r->row[s] = b->row[from];
		else if (!own_row(r, s, NULL))
			return -1;
	}
	return 0;
}

struct rt_routing *rt_derive(const struct fabric *f, const struct rt_routing *b,
			     const uint32_t *map, unsigned what)
{
	int share = b->gen < RT_DERIVE_MAX && f->lid_top < b->lft_len;
	struct rt_routing *r = share ? frame(f, b->lft_len) : rt_new_rows(f, b->lft_len);

	if (!r)
		return NULL;
	if (!share)
		copy_rows(r, b, map);
	else if (share_rows(r, b, map))
		goto fail;
	r->vls_used = b->vls_used;
	if (((what & RT_KEEP_SL2VL) && copy_sl2vl(r, f, b, map)) ||
	    ((what & RT_KEEP_PAIRS) && copy_pairs(r, b)))
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
	for (uint32_t s = 0; a->lft_len == b->lft_len && s < a->nswitches; s++)
		if (!rt_row_shared(a, s, b, s) && memcmp(a->row[s], b->row[s], len))
			return 0;
	for (uint32_t s = 0; a->lft_len != b->lft_len && s < a->nswitches; s++)
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

	if (sa != FAB_NONE && rt_row_shared(a, sa, b, sb))
		return;	/* one row of two routings (rt_derive()) */
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
