/* SPDX-License-Identifier: MIT */
/**
 * DOC: repair now, rebalance later (papers/001's hybrid)
 *
 * When a change only takes down or brings back links or switches of a fat
 * tree, the pipeline publishes at once ftdlr's repair of the last full
 * routing (the base), which rewrites only the faults' groups, if eng_run()
 * accepts it under the publish policy; a refused repair lets the chain
 * route, and the refusal is an event with its reason. Once the fabric has been stable for
 * rebalance_delay_s, it computes the chain's routing for it and adopts it
 * only when it connects at least as many pairs, every step from the repair
 * to it (ftdlr_stages(): switches update one at a time) is deadlock-free,
 * and it changes at most rebalance_max_blocks LFT blocks; the adopted
 * routing becomes the new base. This module holds those decisions; the
 * scheduler (daemon/sched.c) holds the timers, one reroute (daemon/job.c)
 * the routing runs and the publication.
 */
#ifndef FABROUTE_DAEMON_REPAIR_H
#define FABROUTE_DAEMON_REPAIR_H

#include <jansson.h>

#include "analysis/analysis.h"
#include "fabric/routing.h"
#include "svc/epoch.h"

/** The engine that repairs: its repair hook runs in ENG_MODE_REPAIR. */
#define REPAIR_ENGINE "ftdlr"

/** repair_routing() - @r is a repair (its notes say so, also once stored and restored). */
int repair_routing(const struct rt_routing *r);

/**
 * repair_wanted() - a change for @reason is first repaired: repairs are on
 * (@on), the change may be one (a fault, OpenSM's pass, a trap, a re-read
 * topology)
 * and there is a @base routed by a fat-tree engine whose routing ftdlr
 * repairs (ftree, sftree, ftdlr). When not, @why (@len bytes) says why.
 */
int repair_wanted(int on, const char *reason, const struct epoch *base, char *why, size_t len);

/**
 * rebalance_wanted() - a due (@due) rebalance replaces the repair in force
 * (@repaired) only while the cabling is the one it repaired (@f against the
 * current epoch @cur).
 */
int rebalance_wanted(int due, int repaired, const struct fabric *f, const struct epoch *cur);

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

/** repair_json() - the "repair" event's details: what changed from the base (@diff), @e the published repair. */
json_t *repair_json(const struct rt_diff *diff, const struct epoch *e, double latency_ms);
/** rebalance_json() - the "rebalance" event's details. */
json_t *rebalance_json(const struct rebalance_verdict *v);

#endif
