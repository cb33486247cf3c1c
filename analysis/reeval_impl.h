/* SPDX-License-Identifier: MIT */
/*
 * Private to analysis/reeval*.c: the parts of an_reevaluate().
 */
#ifndef FABROUTE_ANALYSIS_REEVAL_IMPL_H
#define FABROUTE_ANALYSIS_REEVAL_IMPL_H

#include "analysis/eval_impl.h"

/**
 * an_reeval_blocks() - the destinations of @d[0..@n) that the block pass
 * takes (an_dest_block_fits()): their share as (@pp) routes them taken out
 * of @st's sums and their share as (@p) does put in, switch by switch
 * where the two differ (analysis/reeval_block.c); @st's dhops and dfail
 * set for them. The others are left in @d[0..*@rest), in their order.
 * Return: 0, or -1 when out of memory (@st's sums then undefined).
 */
int an_reeval_blocks(const struct an_plan *pp, const struct an_plan *p, struct an_state *st,
		     uint32_t *d, uint32_t n, uint32_t *rest);

#endif
