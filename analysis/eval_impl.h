/* SPDX-License-Identifier: MIT */
/*
 * Private to analysis/eval.c and analysis/reeval.c: the sums a report
 * keeps for an_reevaluate(), and running the per-destination passes over
 * threads.
 */
#ifndef FABROUTE_ANALYSIS_EVAL_IMPL_H
#define FABROUTE_ANALYSIS_EVAL_IMPL_H

#include "analysis/internal.h"

/**
 * struct an_state - what an_reevaluate() starts from
 * @acc: the sums over every destination
 * @dhops: per destination endpoint, its longest delivered path
 * @dfail: per destination endpoint, the classes with an unreachable pair
 * @spread: with the load, per switch its DLID spread (NULL: none kept)
 * @rows: the block pass's rows, when kept
 * @o: the options the sums were made with
 * @ready: the sums are complete
 * @ranks: an order of the sums' dependency graph, when one is known
 */
struct an_state {
	struct an_acc acc;
	struct an_ranks ranks;
	uint16_t *dhops;
	uint8_t *dfail;
	uint32_t *spread;
	struct an_rows rows;
	struct an_opts o;
	int ready;
};

struct an_state *an_state_new(const struct fabric *f);
void an_state_free(struct an_state *st);

/** an_cancelled() - @o asks the evaluation to stop (struct an_opts.cancel). */
static inline int an_cancelled(const struct an_opts *o)
{
	return o->cancel && __atomic_load_n(o->cancel, __ATOMIC_RELAXED);
}

/** an_eval_threads() - threads to use for @ndests destinations. */
unsigned an_eval_threads(const struct an_opts *o, uint32_t ndests);

/**
 * an_eval_run() - the passes over destinations @order[0..@n), on threads
 * @out: gets the sums (initialised here; an_acc_fini() it)
 * @rows: when not NULL, gets the block pass's rows (struct an_rows)
 * @spread: when not NULL, every switch's DLID spread (the plan's LIDs)
 * Return: 0, or -1 when out of memory (*@out untouched).
 */
int an_eval_run(const struct an_plan *p, const struct an_opts *o, const uint32_t *order,
		uint32_t n, struct an_acc *out, uint16_t *dhops, uint8_t *dfail,
		const struct an_rows *rows, uint32_t *spread);

/** an_eval_finish() - the report's figures from @st, examples from @pools (per class). */
int an_eval_finish(const struct an_plan *p, struct an_state *st, const struct an_pool *pools,
		   const uint32_t *spread, struct an_report *rep);

#endif
