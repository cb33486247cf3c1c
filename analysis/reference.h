/* SPDX-License-Identifier: MIT */
/**
 * DOC: the reference evaluator
 *
 * The pair-by-pair evaluator an_evaluate() replaced, kept to check it: the
 * unit tests require both to give the same report, and bench/bench_scale
 * times both on the same fabric. Not for production use: O(pairs) time.
 */
#ifndef FABROUTE_ANALYSIS_REFERENCE_H
#define FABROUTE_ANALYSIS_REFERENCE_H

#include "analysis/analysis.h"

/**
 * an_evaluate_reference() - what an_evaluate() computes, pair by pair
 * @o: as for an_evaluate(); @o->parallel, @o->threads, @o->incremental and
 *     @o->progress are ignored (one thread, no state kept)
 * Return: 0, or -1 with @err set. Free with an_report_free().
 */
int an_evaluate_reference(const struct fabric *f, const struct rt_routing *r,
			  const struct an_opts *o, struct an_report *rep, struct fab_err *err);

#endif
