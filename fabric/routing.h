/* SPDX-License-Identifier: MIT */
/**
 * DOC: routing tables
 *
 * What a routing engine computes for a fabric, and what the formats read
 * back from OpenSM's dumps:
 *
 *  - one linear forwarding table (LFT) per switch: DLID -> output port,
 *    RT_NO_PORT (0xFF) where the switch has no route. One byte per LID from
 *    0 up to lft_len - 1, all switches in one block (864 switches x 6049
 *    LIDs = 5.2 MB);
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

#include "fabric/fabric.h"

#define RT_NO_PORT 0xFFu
#define RT_SLS 16u

struct rt_routing {
	uint32_t nswitches;
	uint32_t lft_len;
	uint8_t *lft;
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
void rt_free(struct rt_routing *r);
/**
 * rt_copy() - a copy of @b (LFTs, SL2VL tables, pair tables, VLs, notes)
 * for fabric @f, which has @b's switches and endpoints in the same order.
 * Return: the copy, or NULL when out of memory.
 */
struct rt_routing *rt_copy(const struct fabric *f, const struct rt_routing *b);

static inline uint8_t *rt_lft(const struct rt_routing *r, uint32_t sw)
{
	return r->lft + (size_t)sw * r->lft_len;
}

/** rt_lft_get() - output port of switch @sw for @lid, RT_NO_PORT past the table. */
static inline uint8_t rt_lft_get(const struct rt_routing *r, uint32_t sw, unsigned lid)
{
	return lid < r->lft_len ? rt_lft(r, sw)[lid] : RT_NO_PORT;
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
