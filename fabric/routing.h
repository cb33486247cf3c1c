/* SPDX-License-Identifier: MIT */
/**
 * DOC: routing tables
 *
 * What a routing engine computes for a fabric, and what the formats read
 * back from OpenSM's dumps:
 *
 *  - one linear forwarding table (LFT) per switch: DLID -> output port,
 *    RT_NO_PORT (0xFF) where the switch has no route. One byte per LID from
 *    0 up to lft_len - 1, a row per switch (864 switches x 6049 LIDs = 5.2
 *    MB). A routing made afresh has all its rows in one block (@lft), in
 *    switch order; a routing derived from another (rt_derive(), a repair)
 *    shares the rows it does not change with it and owns the others: 187
 *    MB at 43,904 CAs are then not copied for the few rows a fault
 *    changes. Rows are shared only between routings no one writes any more
 *    but through rt_row_own(), and the memory they are in is counted, so
 *    either routing may be freed first;
 *  - SL2VL tables per switch, indexed (in port, out port, SL). NULL for a
 *    switch means the default mapping (VL = SL modulo the switch's data VL
 *    count). When set: (nports + 1)^2 x 16 bytes for the switch
 *    (37^2 x 16 = 21904 bytes for a 36-port switch);
 *  - the path SL of every (source endpoint, destination endpoint) pair and
 *    the DLID each source uses (an offset into the destination's LMC range),
 *    what an SA PathRecord would return. NULL means SL 0 and the base LID
 *    for every pair; when set, one byte per pair (neps^2 bytes);
 *  - the VLs used and free-form notes from the engine.
 *
 * Switches are indexed by their position in fabric->switches, endpoints by
 * their position in fabric->eps.
 */
#ifndef FABROUTE_ROUTING_H
#define FABROUTE_ROUTING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fabric/fabric.h"

#define RT_NO_PORT 0xFFu
#define RT_SLS 16u

struct rt_rows;

/*
 * @lft: all rows in one block, in switch order (rt_new*(), rt_copy()), or
 *       NULL (rt_derive()): only code that wants that layout reads it
 * @row: per switch, its row (rt_lft())
 * @mine: NULL when every row is the routing's own, else per switch 1 when
 *        it is (rt_row_own())
 * @held, @nheld, @gen: the memory the rows are in, referenced; how many
 *        derivations lie between the routing and one made afresh
 */
struct rt_routing {
	uint32_t nswitches;
	uint32_t lft_len;
	uint8_t *lft;
	uint8_t **row;
	uint8_t *mine;
	struct rt_rows **held;
	uint32_t nheld, gen;
	uint8_t **sl2vl;
	uint32_t neps;
	uint8_t *path_sl;
	uint8_t *dlid_off;
	uint16_t vls_used;
	char *notes;
};

/**
 * rt_new() - empty routing for fabric @f: every LFT entry RT_NO_PORT,
 * LFTs sized to the fabric's top LID, default SL2VL, SL 0, base DLIDs.
 * Return: the routing, or NULL when out of memory.
 */
struct rt_routing *rt_new(const struct fabric *f);
/** rt_new_len() - rt_new() with LFTs of at least @lft_len entries (dumps may name LIDs past the fabric's top). */
struct rt_routing *rt_new_len(const struct fabric *f, uint32_t lft_len);
/**
 * rt_new_rows() - rt_new_len() with the LFTs left as they come: the caller
 * writes every row (a copy that writes them all saves a pass over the
 * tables, tens of MB at 10^4 switches)
 */
struct rt_routing *rt_new_rows(const struct fabric *f, uint32_t lft_len);
void rt_free(struct rt_routing *r);
/**
 * rt_copy() - a copy of @b (LFTs, SL2VL tables, pair tables, VLs, notes)
 * for fabric @f, which has @b's switches and endpoints in the same order.
 * Return: the copy, or NULL when out of memory.
 */
struct rt_routing *rt_copy(const struct fabric *f, const struct rt_routing *b);
/**
 * rt_derive() - a routing for fabric @f made from @b: switch s of @f gets
 * @b's row of switch @map[s] (FAB_NONE: a row without routes; @map NULL:
 * switch s, @f has @b's switches), shared, not copied; @b's VLs; with
 * RT_KEEP_SL2VL in @what its SL2VL tables (by @map), with RT_KEEP_PAIRS
 * its pair tables (@f has @b's endpoints). @b
 * must not be written through rt_lft() any more: rt_row_own() copies a
 * row before it is written. The rows are copied instead, into one block,
 * after RT_DERIVE_MAX derivations in a row or when @f has a LID past
 * @b's tables. Return: the routing, or NULL when out of memory.
 */
struct rt_routing *rt_derive(const struct fabric *f, const struct rt_routing *b,
			     const uint32_t *map, unsigned what);
#define RT_KEEP_SL2VL 1u
#define RT_KEEP_PAIRS 2u
#define RT_DERIVE_MAX 8u
/**
 * rt_row_own() - switch @sw's row, made the routing's own first (copied)
 * if it is shared. Return: the row to write, or NULL when out of memory.
 */
uint8_t *rt_row_own(struct rt_routing *r, uint32_t sw);
/** rt_row_shared() - @a's row of switch @sa is @b's of @sb, the same memory. */
static inline int rt_row_shared(const struct rt_routing *a, uint32_t sa, const struct rt_routing *b,
				uint32_t sb)
{
	return a->row[sa] == b->row[sb] && a->lft_len == b->lft_len;
}

/* The row of switch @sw: read it; write it only in a routing one made afresh, else through rt_row_own(). */
static inline uint8_t *rt_lft(const struct rt_routing *r, uint32_t sw)
{
	return r->row[sw];
}

/** rt_lft_get() - output port of switch @sw for @lid, RT_NO_PORT past the table. */
static inline uint8_t rt_lft_get(const struct rt_routing *r, uint32_t sw, unsigned lid)
{
	return lid < r->lft_len ? rt_lft(r, sw)[lid] : RT_NO_PORT;
}

/* Swap the bit fields of @x and @y picked by @mask, @sh bits apart (a step of rt_tile8()). */
static inline void rt_swap_bits(uint64_t *x, uint64_t *y, unsigned sh, uint64_t mask)
{
	uint64_t t = ((*x >> sh) ^ *y) & mask;

	*y ^= t;
	*x ^= t << sh;
}

static inline uint64_t rt_load8(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline void rt_store8(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/**
 * rt_tile8() - copy 8 x 8 bytes transposed: byte k of row j of @src (rows
 * @sstride bytes apart) to byte j of row k of @dst (rows @dstride apart).
 * A block of destinations (a row per LID) to the LFTs (a row per switch)
 * or back, 64 entries with 16 loads and stores. Named locals, not an
 * array: the compiler keeps them in registers, where an array went through
 * the stack, and a wide load of two narrow stores there waited for every
 * store before it (LFT stores, cache misses) to reach the cache.
 */
static inline void rt_tile8(uint8_t *dst, size_t dstride, const uint8_t *src, size_t sstride)
{
	const uint64_t m8 = 0x00FF00FF00FF00FFull, m16 = 0x0000FFFF0000FFFFull;
	const uint64_t m32 = 0x00000000FFFFFFFFull;
	uint64_t a0 = rt_load8(src), a1 = rt_load8(src + sstride);
	uint64_t a2 = rt_load8(src + 2 * sstride), a3 = rt_load8(src + 3 * sstride);
	uint64_t a4 = rt_load8(src + 4 * sstride), a5 = rt_load8(src + 5 * sstride);
	uint64_t a6 = rt_load8(src + 6 * sstride), a7 = rt_load8(src + 7 * sstride);

	rt_swap_bits(&a0, &a1, 8, m8);
	rt_swap_bits(&a2, &a3, 8, m8);
	rt_swap_bits(&a4, &a5, 8, m8);
	rt_swap_bits(&a6, &a7, 8, m8);
	rt_swap_bits(&a0, &a2, 16, m16);
	rt_swap_bits(&a1, &a3, 16, m16);
	rt_swap_bits(&a4, &a6, 16, m16);
	rt_swap_bits(&a5, &a7, 16, m16);
	rt_swap_bits(&a0, &a4, 32, m32);
	rt_swap_bits(&a1, &a5, 32, m32);
	rt_swap_bits(&a2, &a6, 32, m32);
	rt_swap_bits(&a3, &a7, 32, m32);
	rt_store8(dst, a0);
	rt_store8(dst + dstride, a1);
	rt_store8(dst + 2 * dstride, a2);
	rt_store8(dst + 3 * dstride, a3);
	rt_store8(dst + 4 * dstride, a4);
	rt_store8(dst + 5 * dstride, a5);
	rt_store8(dst + 6 * dstride, a6);
	rt_store8(dst + 7 * dstride, a7);
}

/**
 * rt_sl2vl_set() - set the VL of (@in, @out, @sl) on switch @sw, allocating
 * the switch's table (filled with the default mapping) on first use.
 * Return: 0, or -1 when out of memory or an argument is out of range.
 */
int rt_sl2vl_set(struct rt_routing *r, const struct fabric *f, uint32_t sw, unsigned in,
		 unsigned out, unsigned sl, unsigned vl);
/** rt_sl2vl_get() - VL of (@in, @out, @sl) on switch @sw. */
unsigned rt_sl2vl_get(const struct rt_routing *r, const struct fabric *f, uint32_t sw,
		      unsigned in, unsigned out, unsigned sl);

/**
 * rt_sl2vl_custom() - switch @sw's SL2VL table maps some (in, out, SL) to
 * another VL than the default mapping (VL = SL modulo the switch's data
 * VLs) does: a table a subnet manager must program.
 */
int rt_sl2vl_custom(const struct rt_routing *r, const struct fabric *f, uint32_t sw);

/** rt_pairs_alloc() - allocate path_sl and dlid_off (zeroed). Return 0 or -1. */
int rt_pairs_alloc(struct rt_routing *r);

static inline unsigned rt_path_sl(const struct rt_routing *r, uint32_t src, uint32_t dst)
{
	return r->path_sl ? r->path_sl[(size_t)src * r->neps + dst] : 0;
}

/** rt_dlid() - the DLID source endpoint @src uses to reach endpoint @dst. */
unsigned rt_dlid(const struct rt_routing *r, const struct fabric *f, uint32_t src, uint32_t dst);

/**
 * rt_src_offset() - the LID offset that reaches most destinations of source
 * endpoint @src as @r plans them: the DLID @src uses for a destination d is
 * d's base LID + (offset mod 2^LMC(d)) for all but *@exceptions of the
 * destinations (those with a LID, @src itself left out). Among the offsets
 * below 2^L (L: the largest LMC of those destinations) the one that fits
 * the most destinations of LMC L wins, the lowest on a tie; 0 when every
 * LMC is 0. O(destinations).
 */
unsigned rt_src_offset(const struct rt_routing *r, const struct fabric *f, uint32_t src,
		       uint32_t *exceptions);

/** rt_equal_lfts() - the LFTs of @a and @b route every LID the same way. */
int rt_equal_lfts(const struct rt_routing *a, const struct rt_routing *b);

/**
 * struct rt_diff - what a subnet manager writes to go from one routing to another
 * @entries: LFT entries that differ, on switches both fabrics have
 * @blocks: 64-LID LFT blocks that differ (one SMP each), summed over the
 *          switches; a switch only the second fabric has counts every block
 *          holding a route
 * @switches: switches with such a block
 * @max_blocks: the most on one switch
 * @added: switches only the second fabric has
 */
struct rt_diff {
	uint64_t entries;
	uint32_t blocks, switches, max_blocks, added;
};

/**
 * rt_diff() - compare routing @a of fabric @fa with routing @b of fabric @fb,
 * switches matched by node GUID, LIDs past a table's end read as no route
 */
void rt_diff(const struct fabric *fa, const struct rt_routing *a, const struct fabric *fb,
	     const struct rt_routing *b, struct rt_diff *d);

/** Characters of a routing digest: 64 hex digits and the NUL. */
#define RT_DIGEST_HEX 65

/**
 * rt_digest() - SHA-256 of what routing @r programs on fabric @f: every
 * endpoint's GUID, LID and LMC, every switch's LFT, the SL2VL tables that
 * differ from the default mapping and the path SLs and DLID offsets that
 * are not 0, in the fabric's canonical order (fabric/digest.c says exactly
 * what, byte for byte). The same tables on the same fabric give the same
 * digest whatever order the fabric's records came in; the engine's name,
 * its notes and the descriptions do not enter.
 * Return: 0 with @out set to 64 lowercase hex digits, or -1 with @err set
 * (@r does not fit @f, SHA-256 unavailable).
 */
int rt_digest(const struct fabric *f, const struct rt_routing *r, char out[RT_DIGEST_HEX],
	      struct fab_err *err);

#endif
