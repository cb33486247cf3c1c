/* SPDX-License-Identifier: MIT */
/**
 * DOC: repair now, rebalance later - the decisions
 *
 * repair_run() calls ftdlr's repair directly rather than a routing run: a
 * repair that does not apply must not cost a full routing (the chain routes
 * then), and its evaluation is the one the epoch keeps. rebalance_judge()
 * weighs the chain's routing against the repair in place. See repair.h.
 */
#include <string.h>
#include <time.h>

#include "daemon/repair.h"
#include "engines/ftdlr.h"

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int repair_applies(const char *reason)
{
	return !strcmp(reason, "fault") || !strcmp(reason, "opensm") || !strcmp(reason, "source");
}

int repair_routing(const struct rt_routing *r)
{
	return r->notes && !strncmp(r->notes, "repair (", 8);
}

int repair_base_ok(const struct epoch *base)
{
	return !strcmp(base->engine, "sftree") || !strcmp(base->engine, "ftree") ||
	       !strcmp(base->engine, "ftdlr");
}

void repair_result_free(struct repair_result *res)
{
	fab_free(res->f);
	rt_free(res->r);
	an_report_free(&res->rep);
	memset(res, 0, sizeof(*res));
}

/* The evaluation meets @policy (enum eng_policy); else 0 with @why. */
static int meets(const struct an_report *rep, int policy, struct fab_err *why)
{
	if (policy != ENG_ACCEPT_ANY && !an_connected(rep)) {
		fab_err_set(why, "the repair leaves pairs unreachable");
		return 0;
	}
	if (policy == ENG_ACCEPT_PROVEN && !rep->cdg.deadlock_free) {
		fab_err_set(why, "the repair is not deadlock-free (a cycle in the dependency graph)");
		return 0;
	}
	return 1;
}

int repair_run(const struct epoch *base, struct fabric *f, int policy, struct repair_result *res,
	       struct fab_err *why)
{
	struct ftdlr_stats st;
	double t0 = now_ms();
	int rc;

	memset(res, 0, sizeof(*res));
	res->f = f;
	res->opts = (struct an_opts){ .load = 1, .parallel = 1 };	/* as a full reroute proves */
	rc = ftdlr_repair(base->fabric, base->routing, f, FTDLR_MINIMAL, &res->r, &st, why);
	res->repair_ms = now_ms() - t0;
	if (rc != ENG_OK) {
		repair_result_free(res);
		return rc == ENG_NOT_APPLICABLE ? 1 : -1;
	}
	t0 = now_ms();
	if (an_evaluate(f, res->r, &res->opts, &res->rep, why)) {
		repair_result_free(res);
		return -1;
	}
	res->eval_ms = now_ms() - t0;
	if (!meets(&res->rep, policy, why)) {
		repair_result_free(res);
		return 1;
	}
	rt_diff(base->fabric, base->routing, f, res->r, &res->diff);
	return 0;
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

json_t *repair_json(const struct repair_result *res, const struct epoch *e, double latency_ms)
{
	return json_pack("{s:o, s:s, s:b, s:b, s:f, s:f, s:f}", "changed", diff_json(&res->diff),
			 "notes", e->routing->notes ? e->routing->notes : "", "connected",
			 an_connected(&e->report), "deadlock_free", e->report.cdg.deadlock_free,
			 "repair_ms", res->repair_ms, "eval_ms", res->eval_ms, "latency_ms",
			 latency_ms);
}

json_t *rebalance_json(const struct rebalance_verdict *v)
{
	return json_pack("{s:b, s:s, s:o, s:I, s:I, s:i, s:b}", "adopted", v->adopt, "why",
			 v->adopt ? "" : v->why, "changed", diff_json(&v->diff), "pairs_before",
			 (json_int_t)v->pairs_before, "pairs_after", (json_int_t)v->pairs_after,
			 "steps", (int)v->steps, "steps_deadlock_free", v->acyclic);
}
