/* SPDX-License-Identifier: MIT */
/**
 * DOC: what-if: what removing links and switches would do
 *
 * Before maintenance (a cable pulled, a switch drained) an administrator
 * asks what the fabric would become. wi_run() answers without changing
 * anything: the fabric in force without those links and switches (and the
 * CAs left without a link, as discovery would lose them) is routed as the
 * daemon would route it, through eng_run(): first the repair of the base
 * when one is wanted (ENG_MODE_REPAIR), then the chain (ENG_MODE_ROUTE,
 * the base as the previous routing), held to the same publish policy. The
 * answer says which of them would publish, whether the routing is
 * connected and deadlock-free (the failing pairs, a cycle: the evaluation
 * of doc/eval-json.md), the largest link load before and after, and what a
 * subnet manager would write to get there from the routing in force (LFT
 * entries, 64-LID blocks, switches: rt_diff()).
 *
 * Whatever routes it, the answer also says whether the fabric would stay in
 * one piece: its parts and the CA pairs no routing could join.
 *
 * The same code answers `fabroute whatif` on files and POST /api/whatif in
 * fabrouted, which runs it in a process of its own to bound its time and
 * memory (daemon/whatif.c).
 */
#ifndef FABROUTE_ENGINES_WHATIF_H
#define FABROUTE_ENGINES_WHATIF_H

#include <jansson.h>

#include "engines/engine.h"

/** Most links and switches one what-if may remove. */
#define WI_REMOVE_MAX 256

/** wi_run() and wi_check()'s results besides 0: a removal names nothing of the fabric. */
#define WI_BAD_NAME 1

/**
 * struct wi_req - one what-if
 * @fabric, @routing: the routing in force and its fabric
 * @report: its evaluation (with load); with an_opts.incremental, its state
 *          may be taken over to prove a repair (an_reevaluate()), so the
 *          report must be the caller's to spend; NULL: evaluated here
 * @base_fabric, @base: the routing a repair starts from and the chain is
 *                      given as the previous one (NULL: none)
 * @repair: try the repair engine (REPAIR) first; when 0, @no_repair says why
 * @chain, @options: the engine chain and its options ("eng.k=v,...")
 * @policy: enum eng_policy
 * @assign: 1: LIDs are the routing's own (kept; new ports get @lmc);
 *          0: they are an SM's (an engine that needs more does not apply)
 * @links, @nlinks: "NODE:PORT" to remove (NODE a description or 0x GUID)
 * @switches, @nswitches: "NODE" to remove
 */
struct wi_req {
	const struct fabric *fabric;
	const struct rt_routing *routing;
	struct an_report *report;
	const struct fabric *base_fabric;
	const struct rt_routing *base;
	int repair;
	const char *no_repair;
	const char *chain, *options;
	enum eng_policy policy;
	int assign;
	unsigned lmc;
	const char *const *links;
	size_t nlinks;
	const char *const *switches;
	size_t nswitches;
};

/** The engine that repairs: its repair hook runs in ENG_MODE_REPAIR. */
#define WI_REPAIR_ENGINE "ftdlr"

/**
 * wi_check() - the removals of @q name links and switches of @q->fabric
 * Return: 0 with *@removed set to their description ({"links": [{"a", "b"}],
 * "switches": [{"node", "guid", "cas"}]}; may be NULL), WI_BAD_NAME with
 * @err naming the first that does not, or -1 with @err (out of memory).
 */
int wi_check(const struct wi_req *q, json_t **removed, struct fab_err *err);

/**
 * wi_run() - answer what-if @q (see the DOC comment)
 * Return: 0 with *@answer set ({"remove", "lost", "split", "routed_by",
 * "engine", "repair", "log", "connected", "deadlock_free", "max_link_load",
 * "lft_changes", "evaluation", "time_ms"}; doc/api.md), WI_BAD_NAME or -1
 * with @err set.
 */
int wi_run(const struct wi_req *q, json_t **answer, struct fab_err *err);

#endif
