/* SPDX-License-Identifier: MIT */
/**
 * DOC: repair now, rebalance later - the decisions
 *
 * Whether a change is first repaired, whether a rebalance may replace the
 * repair in force, and rebalance_judge(), which weighs the chain's routing
 * against that repair. The repairs themselves are routing runs
 * (daemon/job.c, eng_run() in ENG_MODE_REPAIR). See repair.h.
 */
#include <stdio.h>
#include <string.h>

#include "daemon/repair.h"
#include "engines/ftdlr/ftdlr.h"

static int repair_applies(const char *reason)
{
	return !strcmp(reason, "fault") || !strcmp(reason, "opensm") || !strcmp(reason, "source") ||
	       !strcmp(reason, "trap") || !strcmp(reason, "mirror");
}

int repair_routing(const struct rt_routing *r)
{
	return r->notes && !strncmp(r->notes, "repair (", 8);
}

static int repair_base_ok(const struct epoch *base)
{
	return !strcmp(base->engine, "sftree") || !strcmp(base->engine, "ftree") ||
	       !strcmp(base->engine, "ftdlr");
}

int repair_wanted(int on, const char *reason, const struct epoch *base, char *why, size_t len)
{
	if (!on)
		snprintf(why, len, "repairs are off (repair = none)");
	else if (!repair_applies(reason))
		snprintf(why, len, "a change of the routing inputs (%s) is not repaired", reason);
	else if (!base)
		snprintf(why, len, "no routing of the chain to repair yet");
	else if (!repair_base_ok(base))
		snprintf(why, len, "the routing in force was made by %s, not by a fat-tree engine",
			 base->engine);
	else
		return 1;
	return 0;
}

int rebalance_wanted(int due, int repaired, const struct fabric *f, const struct epoch *cur)
{
	return due && repaired && cur && fab_topology_hash(f) == cur->topo_hash;
}

/* Pairs delivered, every class. */
static uint64_t delivered(const struct an_report *rep)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < AN_NCLASSES; k++)
		n += rep->conn.pairs[k] - rep->conn.unreachable[k];
	return n;
}

/* Every step from the repair to @r is deadlock-free with the one before: 1, 0, or -1. */
static int steps_acyclic(const struct epoch *cur, const struct fabric *f,
			 const struct rt_routing *r, unsigned *nsteps, struct fab_err *err)
{
	struct rt_routing **steps;
	unsigned n;
	int ok = 1;

	if (ftdlr_stages(f, cur->fabric, cur->routing, r, &steps, &n, err))
		return -1;
	*nsteps = n;
	for (unsigned k = 0; k < n && ok == 1; k++) {
		struct ftdlr_trans t;

		if (ftdlr_transition(f, k ? f : cur->fabric, k ? steps[k - 1] : cur->routing, steps[k],
				     &t, err))
			ok = -1;
		else
			ok = t.acyclic;
	}
	ftdlr_stages_free(steps, n);
	return ok;
}

int rebalance_judge(const struct epoch *cur, const struct fabric *f, const struct rt_routing *r,
		    const struct an_report *rep, unsigned max_blocks, struct rebalance_verdict *v,
		    struct fab_err *err)
{
	int ok;

	memset(v, 0, sizeof(*v));
	v->pairs_before = delivered(&cur->report);
	v->pairs_after = delivered(rep);
	rt_diff(cur->fabric, cur->routing, f, r, &v->diff);
	ok = steps_acyclic(cur, f, r, &v->steps, err);
	if (ok < 0)
		return -1;
	v->acyclic = ok;
	if (v->pairs_after < v->pairs_before)
		snprintf(v->why, sizeof(v->why), "it delivers %llu pairs, the repair %llu",
			 (unsigned long long)v->pairs_after, (unsigned long long)v->pairs_before);
	else if (!v->acyclic)
		snprintf(v->why, sizeof(v->why), "a step from the repair to it is not deadlock-free");
	else if (max_blocks && v->diff.blocks > max_blocks)
		snprintf(v->why, sizeof(v->why), "it changes %u LFT blocks, rebalance_max_blocks is %u",
			 v->diff.blocks, max_blocks);
	else
		v->adopt = 1;
	return 0;
}

static json_t *diff_json(const struct rt_diff *d)
{
	return json_pack("{s:I, s:i, s:i, s:i}", "entries", (json_int_t)d->entries, "blocks",
			 (int)d->blocks, "switches", (int)d->switches, "max_blocks", (int)d->max_blocks);
}

json_t *repair_json(const struct rt_diff *diff, const struct epoch *e, double latency_ms)
{
	return json_pack("{s:o, s:s, s:b, s:b, s:f, s:f, s:f}", "changed", diff_json(diff),
			 "notes", e->routing->notes ? e->routing->notes : "", "connected",
			 an_connected(&e->report), "deadlock_free", e->report.cdg.deadlock_free,
			 "repair_ms", e->compute_ms, "eval_ms", e->eval_ms, "latency_ms",
			 latency_ms);
}

json_t *rebalance_json(const struct rebalance_verdict *v)
{
	return json_pack("{s:b, s:s, s:o, s:I, s:I, s:i, s:b}", "adopted", v->adopt, "why",
			 v->adopt ? "" : v->why, "changed", diff_json(&v->diff), "pairs_before",
			 (json_int_t)v->pairs_before, "pairs_after", (json_int_t)v->pairs_after,
			 "steps", (int)v->steps, "steps_deadlock_free", v->acyclic);
}
