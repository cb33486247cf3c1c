/* SPDX-License-Identifier: MIT */
/**
 * DOC: repair now, rebalance later (papers/001's hybrid)
 *
 * When a change only takes down or brings back links or switches of a fat
 * tree, the pipeline publishes at once ftdlr's repair of the last full
 * routing (the base), which rewrites only the faults' groups, if it meets
 * the publish policy. Once the fabric has been stable for
 * rebalance_delay_s, it computes the chain's routing for it and adopts it
 * only when it connects at least as many pairs, every step from the repair
 * to it (ftdlr_stages(): switches update one at a time) is deadlock-free,
 * and it changes at most rebalance_max_blocks LFT blocks; the adopted
 * routing becomes the new base. This module holds those decisions; the
 * pipeline (pipeline.c) holds the state, the timer and the publication.
 */
#ifndef FABROUTE_DAEMON_REPAIR_H
#define FABROUTE_DAEMON_REPAIR_H

#include <jansson.h>

#include "analysis/analysis.h"
#include "fabric/routing.h"
#include "svc/epoch.h"

/** repair_applies() - a change with this reason may be repaired (a fault, OpenSM's pass, a re-read topology). */
int repair_applies(const char *reason);

/** repair_routing() - @r is a repair (its notes say so, also once stored and restored). */
int repair_routing(const struct rt_routing *r);

/** repair_base_ok() - @base was routed by a fat-tree engine whose routing ftdlr repairs (ftree, sftree, ftdlr). */
int repair_base_ok(const struct epoch *base);

/**
 * struct repair_result - a repair of the base, evaluated
 * @f, @r: the current fabric (with the base's LIDs) and its repair
 * @rep, @opts: the evaluation
 * @diff: what changes from the base's tables
 * @repair_ms, @eval_ms: time in ftdlr and in the evaluator
 */
struct repair_result {
	struct fabric *f;
	struct rt_routing *r;
	struct an_report rep;
	struct an_opts opts;
	struct rt_diff diff;
	double repair_ms, eval_ms;
};

/**
 * repair_run() - repair @base's routing for @f (taken: freed or moved into
 * @res) and evaluate it
 * @policy: enum eng_policy the repair must meet
 * Return: 0 with @res filled (release with repair_result_free()), 1 when
 * it does not apply or falls short (@why says why), -1 with @why on an
 * error.
 */
int repair_run(const struct epoch *base, struct fabric *f, int policy, struct repair_result *res,
	       struct fab_err *why);
void repair_result_free(struct repair_result *res);

/**
 * struct rebalance_verdict - whether a rebalance is adopted
 * @adopt: all three conditions hold
 * @why: the first that does not
 * @pairs_before, @pairs_after: pairs delivered by the repair, by the rebalance
 * @steps: steps from the repair to the rebalance; @acyclic: each deadlock-free
 *         together with the step before
 * @diff: what a subnet manager writes (blocks, entries, switches)
 */
struct rebalance_verdict {
	int adopt;
	char why[160];
	uint64_t pairs_before, pairs_after;
	unsigned steps;
	int acyclic;
	struct rt_diff diff;
};

/**
 * rebalance_judge() - judge the rebalance @r (of @f, evaluated in @rep)
 * against the current repair @cur, with at most @max_blocks LFT blocks
 * changed (0: no limit). Return: 0 with @v set, -1 with @err.
 */
int rebalance_judge(const struct epoch *cur, const struct fabric *f, const struct rt_routing *r,
		    const struct an_report *rep, unsigned max_blocks, struct rebalance_verdict *v,
		    struct fab_err *err);

/** repair_json() - the "repair" event's details: @res's figures, @e the published repair. */
json_t *repair_json(const struct repair_result *res, const struct epoch *e, double latency_ms);
/** rebalance_json() - the "rebalance" event's details. */
json_t *rebalance_json(const struct rebalance_verdict *v);

#endif
