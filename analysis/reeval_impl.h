/* SPDX-License-Identifier: MIT */
/*
 * Private to analysis/reeval*.c: the parts of an_reevaluate().
 */
#ifndef FABROUTE_ANALYSIS_REEVAL_IMPL_H
#define FABROUTE_ANALYSIS_REEVAL_IMPL_H

#include <pthread.h>

#include "analysis/dest_impl.h"
#include "analysis/eval_impl.h"

/**
 * struct an_plan_once - the old routing's plan, built only when a
 * destination needs it (one the rows kept do not settle): by the first
 * thread that asks, once (analysis/reeval.c)
 */
struct an_plan_once {
	struct an_plan p;
	const struct fabric *f;
	const struct rt_routing *r;
	const struct an_opts *o;
	pthread_mutex_t lock;
	int built;	/* 0: not yet, 1: built, -1: out of memory */
};

/** an_plan_once_get() - the plan, built if it is not yet. Return: NULL when out of memory. */
const struct an_plan *an_plan_once_get(struct an_plan_once *po);

/**
 * an_reeval_blocks() - the destinations of @d[0..@n) that the block pass
 * takes (an_dest_block_fits()): their share as (@pp's plan) routes them taken out
 * of @st's sums and their share as (@p) does put in, switch by switch
 * where the two differ (analysis/reeval_block.c); @st's dhops and dfail
 * set for them. The tables and links differ only at the switches
 * @sw[0..@nsw_diff) (@sw NULL: not known). The others are left in @d[0..*@rest), in their order;
 * in @near, the destinations worked out near the change, and of those from the rows kept.
 * Return: 0, or -1 when out of memory (@st's sums then undefined).
 */
int an_reeval_blocks(struct an_plan_once *pp, const struct an_plan *p, struct an_state *st,
		     uint32_t *d, uint32_t n, const uint32_t *sw, uint32_t nsw_diff, uint32_t *rest,
		     uint32_t near[2]);

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

/* analysis/reeval_kept.c: a destination's new row near the change, from the rows kept. */
struct an_kept;
struct an_kept *an_kept_new(uint32_t nsw);
void an_kept_free(struct an_kept *k);
/**
 * an_kept_find() - whether destination @d changed only near the change
 * from the routing @rows were kept for to (@p), the tables and links
 * differing at the switches @sw[0..@nsw_diff) only (@sw NULL: not known);
 * when it did, the switches whose row may differ and both their rows
 * (an_kept_row()), and @rows updated to (@p) for @d
 */
int an_kept_find(struct an_kept *k, const struct an_plan *p, const struct an_rows *rows, uint32_t d, const uint32_t *sw, uint32_t nsw_diff);
/** an_kept_ahead() - ask for what an_kept_find() of @d will read first, ahead of its turn. */
void an_kept_ahead(const struct an_plan *p, const struct an_rows *rows, uint32_t d, const uint32_t *sw, uint32_t nsw_diff);
/** an_kept_count() - how many switches' rows an_kept_find() left to compare. */
uint32_t an_kept_count(const struct an_kept *k);
/**
 * an_kept_row() - the @i-th of them: switch @s, its entry, mark and pairs
 * on the old side (@side 0) or the new one (1)
 */
void an_kept_row(const struct an_kept *k, uint32_t i, int side, uint32_t *s, uint8_t *o,
		 uint8_t *mark, uint32_t *fl);
/** an_kept_longest() - the destination's new longest way, once an_kept_find() found it near. */
uint32_t an_kept_longest(const struct an_kept *k);

#endif
