/* SPDX-License-Identifier: MIT */
/*
 * Private to analysis/reeval*.c: the parts of an_reevaluate().
 */
#ifndef FABROUTE_ANALYSIS_REEVAL_IMPL_H
#define FABROUTE_ANALYSIS_REEVAL_IMPL_H

#include "analysis/dest_impl.h"
#include "analysis/eval_impl.h"

/**
 * an_reeval_blocks() - the destinations of @d[0..@n) that the block pass
 * takes (an_dest_block_fits()): their share as (@pp) routes them taken out
 * of @st's sums and their share as (@p) does put in, switch by switch
 * where the two differ (analysis/reeval_block.c); @st's dhops and dfail
 * set for them. The tables and links differ only at the switches
 * @sw[0..@nsw_diff) (@sw NULL: not known). The others are left in @d[0..*@rest), in their order.
 * Return: 0, or -1 when out of memory (@st's sums then undefined).
 */
int an_reeval_blocks(const struct an_plan *pp, const struct an_plan *p, struct an_state *st,
		     uint32_t *d, uint32_t n, const uint32_t *sw, uint32_t nsw_diff, uint32_t *rest,
		     uint32_t *near);

/* analysis/reeval_near.c: a destination's old row from its new one, near the change. */
struct an_near;
struct an_near *an_near_new(uint32_t nsw);
void an_near_free(struct an_near *x);
/**
 * an_near_find() - whether row @j (destination @d) of the gathered blocks
 * @ob (old side) and @nb (new side) changed only near the change, so that
 * an_near_old() can work the old row out once @nb's row is settled; the
 * rows differ at most at switches @sw[0..@nsw_diff) (@sw NULL: anywhere)
 */
int an_near_find(struct an_near *x, const struct an_plan *p, const struct an_blk *ob,
		 const struct an_blk *nb, uint32_t j, uint32_t d, const uint32_t *sw, uint32_t nsw_diff);
/**
 * an_near_old() - row @j of @ob (its marks, and its pairs with the load)
 * as the block pass would settle it, from @nb's settled row and what
 * an_near_find() found, at the switches where the two rows may differ;
 * the rest of the destination's share is the same on both sides
 * Return: those switches (*@n of them)
 */
const uint32_t *an_near_old(const struct an_near *x, const struct an_plan *p, struct an_blk *ob,
			    const struct an_blk *nb, uint32_t j, uint32_t d, uint32_t *n);

#endif
