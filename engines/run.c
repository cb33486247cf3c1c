/* SPDX-License-Identifier: MIT */
/**
 * DOC: the routing run
 *
 * eng_run() composes a routing run, for `fabroute compute` and for the
 * daemon's pipeline alike:
 *
 *  1. copy the request's fabric and assign LIDs (pins first, then the LIDs
 *     the fabric carries or new ones), unless the LIDs are an SM's;
 *  2. for each engine of the chain: give the CA ports the LMC it needs
 *     (on a copy of its own, within the LMC budget), call its repair hook
 *     when a previous routing is given, else (and in ENG_MODE_ROUTE only)
 *     its route hook; apply the LID plan the engine made, if any;
 *     evaluate (incrementally from an evaluated routing when one is
 *     given); hold the routing to the publish policy; the first routing
 *     accepted ends the chain. ENG_MODE_KEEP takes the previous routing as
 *     it is and only evaluates and judges it;
 *  3. hand back the fabric as routed, the routing, the LID plan, the
 *     evaluation, the chain's log and the timings.
 *
 * The request's fabric is never changed, so an engine that does not apply
 * leaves nothing to undo.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engines/engine.h"

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void log_line(struct eng_res *res, const char *name, const char *fmt, const char *what)
{
	size_t n = strlen(res->log);

	if (n < sizeof(res->log))
		snprintf(res->log + n, sizeof(res->log) - n, "%s: %s%s\n", name, fmt, what);
}

void eng_res_free(struct eng_res *res)
{
	fab_free(res->fabric);
	rt_free(res->routing);
	free(res->plan);
	if (res->evaluated)
		an_report_free(&res->report);
	res->fabric = NULL;
	res->routing = NULL;
	res->plan = NULL;
	res->evaluated = 0;
	free(res->changed);
	res->changed = NULL;
}

void eng_memo_clear(struct eng_memo *m)
{
	if (m && m->data && m->free)
		m->free(m->data);
	if (m)
		*m = (struct eng_memo){ 0 };
}

/* One engine's attempt: what it routed, on which fabric. */
struct attempt {
	struct fabric *f;	/* owned, or the run's base */
	struct eng_res one;	/* routing, plan (the engine's), report */
};

static void attempt_free(struct attempt *at, const struct fabric *base)
{
	if (at->f == base)
		at->one.fabric = NULL;
	else
		at->one.fabric = at->f;
	eng_res_free(&at->one);
	at->f = NULL;
}

/*
 * The fabric engine @e routes: @base, or a copy whose CA ports have the LMC
 * the engine needs. Return: ENG_OK, ENG_NOT_APPLICABLE (budget) or ENG_ERROR.
 */
static int engine_fabric(const struct eng_req *req, struct fabric *base, const struct engine *e,
			 const struct eng_args *a, struct attempt *at, struct fab_err *err)
{
	unsigned lmc = e->lmc ? e->lmc(base, a) : 0, have = FAB_LMC_MAX;

	at->f = base;
	for (uint32_t ep = 0; ep < base->neps; ep++)
		if (base->nodes[base->eps[ep].node].type != FAB_SWITCH && fab_ep_lmc(base, ep) < have)
			have = fab_ep_lmc(base, ep);
	if (lmc <= have)
		return ENG_OK;
	if (!req->assign || lmc > req->lmc_budget) {
		fab_err_set(err, "needs LMC %u on every CA port; some have LMC %u and %s", lmc, have,
			    req->assign ? "the LMC budget is lower" : "the LIDs are the SM's");
		return ENG_NOT_APPLICABLE;
	}
	at->f = fab_copy(base, err);
	if (!at->f || fab_lids_assign(at->f, NULL, 0, FAB_LIDS_RENEW, lmc, err))
		return ENG_ERROR;
	return ENG_OK;
}

/* Give the fabric the LID plan the engine made (a copy of its own). */
static int apply_plan(struct fabric *base, struct attempt *at, struct fab_err *err)
{
	struct eng_res *o = &at->one;

	if (!o->plan)
		return 0;
	if (at->f == base && !(at->f = fab_copy(base, err)))
		return -1;
	if (fab_lids_assign(at->f, o->plan, o->nplan, FAB_LIDS_RENEW, 0, err))
		return -1;
	free(o->plan);
	o->plan = NULL;
	o->nplan = 0;
	return 0;
}

/* @b again for @f (its switches and endpoints): its rows shared, the rest copied. NULL: memory. */
static struct rt_routing *keep_rows(const struct fabric *f, const struct rt_routing *b)
{
	struct rt_routing *r = rt_derive(f, b, NULL, RT_KEEP_SL2VL | RT_KEEP_PAIRS);

	if (r && b->notes && !(r->notes = strdup(b->notes))) {
		rt_free(r);
		r = NULL;
	}
	return r;
}

/* ENG_MODE_KEEP: the previous routing, as if its engine had just made it. */
static int keep_previous(const struct eng_req *req, struct attempt *at, struct fab_err *err)
{
	if (!req->prev || !req->prev_fabric) {
		fab_err_set(err, "no routing to keep");
		return ENG_NOT_APPLICABLE;
	}
	if (req->prev->nswitches != at->f->nswitches || req->prev->neps != at->f->neps) {
		fab_err_set(err, "the routing to keep is not one of this fabric");
		return ENG_NOT_APPLICABLE;
	}
	if (!(at->one.routing = keep_rows(at->f, req->prev))) {
		fab_err_set(err, "out of memory");
		return ENG_ERROR;
	}
	return ENG_OK;
}

int eng_stopped(const struct eng_req *q)
{
	return (q->budget.cancel && __atomic_load_n(q->budget.cancel, __ATOMIC_RELAXED)) ||
	       (q->deadline_ms > 0 && now_ms() > q->deadline_ms);
}

/* An engine gave up: because the run was cancelled (ENG_ERROR), or over its time (not applicable). */
static int stopped_why(const struct eng_req *q, struct fab_err *err)
{
	if (q->budget.cancel && __atomic_load_n(q->budget.cancel, __ATOMIC_RELAXED)) {
		fab_err_set(err, "cancelled");
		return ENG_ERROR;
	}
	fab_err_set(err, "stopped after its time budget of %.1f s (engine_timeout_s)", q->budget.time_ms / 1e3);
	return ENG_NOT_APPLICABLE;
}

static int call_engine(const struct eng_req *req, const struct engine *e, const struct eng_args *a,
		       struct attempt *at, struct eng_res *res, struct fab_err *err)
{
	struct eng_req q = *req;
	int rc = ENG_NOT_APPLICABLE;
	double t0 = now_ms();

	q.fabric = at->f;
	q.deadline_ms = req->budget.time_ms ? t0 + req->budget.time_ms : 0;
	if (req->mode == ENG_MODE_KEEP)
		return keep_previous(req, at, err);
	if (req->prev && e->repair) {
		rc = e->repair(&q, a, &at->one, err);
		at->one.repaired = rc == ENG_OK;
		if (rc == ENG_NOT_APPLICABLE && req->mode == ENG_MODE_ROUTE)
			log_line(res, e->name, "repair not applicable: ", err->msg);
	} else if (req->mode == ENG_MODE_REPAIR) {
		fab_err_set(err, "%s", req->prev ? "it repairs no routing" : "no routing to repair");
	}
	if (rc == ENG_NOT_APPLICABLE && req->mode == ENG_MODE_ROUTE)
		rc = e->route(&q, a, &at->one, err);
	at->one.route_ms = now_ms() - t0;
	if (rc != ENG_OK && eng_stopped(&q))
		rc = stopped_why(&q, err);
	if (rc == ENG_OK && !at->one.routing) {
		fab_err_set(err, "%s returned no routing", e->name);
		rc = ENG_ERROR;
	}
	return rc;
}

/*
 * Why a routing is refused, for the log: @what, the first cycle the
 * evaluation found when @cycle, and for a repair the first clause of its
 * notes (what it repaired: ftdlr's say how many faults, within or beyond
 * the k - 1 it guarantees).
 */
static void refusal(const struct fabric *f, const struct eng_res *o, const char *what, int cycle,
		    struct fab_err *err)
{
	char buf[sizeof(err->msg)];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "routed, not accepted: %s", what);

	for (unsigned v = 0; cycle && v < AN_VLS && n < sizeof(buf); v++) {
		const struct an_vl *vl = &o->report.cdg.vl[v];

		if (vl->acyclic || !vl->cycle_len)
			continue;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " (a cycle on VL %u:", v);
		for (uint32_t i = 0; i < vl->cycle_len && i < 4 && n < sizeof(buf); i++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s \"%s\"/%u", i ? " ->" : "",
					      fab_desc(f, vl->cycle[i].node), vl->cycle[i].port);
		if (n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s, %u channels)",
					      vl->cycle_len > 4 ? " -> ..." : "", vl->cycle_len);
		break;
	}
	if (cycle && o->report.cdg.cross_cycle && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " (a cycle through several VLs)");
	if (o->repaired && o->routing->notes && n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, "; %.*s", (int)strcspn(o->routing->notes, ":;"),
			 o->routing->notes);
	fab_err_set(err, "%s", buf);
}

/* Evaluate and judge the routing: ENG_OK, ENG_NOT_APPLICABLE (policy) or ENG_ERROR. */
static int judge(const struct eng_req *req, struct attempt *at, struct fab_err *err)
{
	struct eng_res *o = &at->one;
	const struct an_report *rep = &o->report;
	/* a repair of the routing in force says which tables it changed */
	struct an_change chg = { .switches = o->changed, .nswitches = o->nchanged };
	int known = o->changed && req->since && req->since->routing == req->prev;
	double t0 = now_ms();

	if (!req->eval && req->policy == ENG_ACCEPT_ANY)
		return ENG_OK;
	o->eval_opts = req->eval ? *req->eval : (struct an_opts){ 0 };
	if (req->since && req->since->report->state ?
	    an_reevaluate(req->since->fabric, req->since->routing, req->since->report, at->f,
			  o->routing, &o->eval_opts, known ? &chg : NULL, &o->report, err) :
	    an_evaluate(at->f, o->routing, &o->eval_opts, &o->report, err))
		return ENG_ERROR;
	o->evaluated = 1;
	o->eval_ms = now_ms() - t0;
	if (req->policy != ENG_ACCEPT_ANY && !an_connected(rep)) {
		uint64_t n = 0;
		char what[64];

		for (unsigned k = 0; k < AN_NCLASSES; k++)
			n += rep->conn.unreachable[k];
		snprintf(what, sizeof(what), "%llu pairs unreachable", (unsigned long long)n);
		refusal(at->f, o, what, 0, err);
		return ENG_NOT_APPLICABLE;
	}
	if (req->policy == ENG_ACCEPT_PROVEN && !rep->cdg.deadlock_free) {
		refusal(at->f, o, "deadlock possible", 1, err);
		return ENG_NOT_APPLICABLE;
	}
	return ENG_OK;
}

/*
 * End the notes with the pairs the routing leaves unreachable, by class:
 * the evaluation's figures when it counted every pair, else counted here.
 */
static int note_unreachable(const struct eng_req *req, struct attempt *at, struct fab_err *err)
{
	struct rt_routing *r = at->one.routing;
	uint64_t n[AN_NCLASSES];
	char line[160], *notes;
	size_t len;

	if (req->mode == ENG_MODE_KEEP)
		return 0;	/* its notes say it already */
	if (at->one.evaluated && !at->one.eval_opts.ca_only && !at->one.eval_opts.all_lids)
		memcpy(n, at->one.report.conn.unreachable, sizeof(n));
	else if (eng_unreachable(at->f, r, n))
		goto oom;
	eng_unreachable_text(n, line, sizeof(line));
	len = (r->notes ? strlen(r->notes) + 2 : 0) + strlen(line) + 1;
	if (!(notes = malloc(len)))
		goto oom;
	snprintf(notes, len, "%s%s%s", r->notes ? r->notes : "", r->notes ? "; " : "", line);
	free(r->notes);
	r->notes = notes;
	return 0;
oom:
	fab_err_set(err, "out of memory");
	return -1;
}

static int try_engine(const struct eng_req *req, struct fabric *base, size_t i,
		      struct eng_res *res, struct fab_err *err)
{
	const struct engine *e = req->chain->e[i];
	const struct eng_args *a = &req->chain->args[i];
	struct attempt at = { 0 };
	int rc = engine_fabric(req, base, e, a, &at, err);

	if (rc == ENG_OK)
		rc = call_engine(req, e, a, &at, res, err);
	if (rc == ENG_OK && apply_plan(base, &at, err))
		rc = ENG_ERROR;
	if (rc == ENG_OK)
		rc = judge(req, &at, err);
	free(at.one.changed);
	at.one.changed = NULL;
	if (rc == ENG_OK && note_unreachable(req, &at, err))
		rc = ENG_ERROR;
	if (rc == ENG_OK) {
		at.one.fabric = at.f;
		at.one.used = e;
		memcpy(at.one.log, res->log, sizeof(res->log));
		at.one.lids_ms = res->lids_ms;
		*res = at.one;
		log_line(res, e->name, req->mode == ENG_MODE_KEEP ? "kept" : "routed",
			 at.one.repaired ? " (repair)" : "");
		return ENG_OK;
	}
	if (rc == ENG_NOT_APPLICABLE)
		log_line(res, e->name, strncmp(err->msg, "routed, ", 8) ? "not applicable: " : "",
			 err->msg);
	else
		log_line(res, e->name, "", err->msg);
	attempt_free(&at, base);
	return rc;
}

/* The LID plan: every endpoint's port GUID, base LID and LMC in @f. */
static int make_plan(struct eng_res *res, struct fab_err *err)
{
	const struct fabric *f = res->fabric;

	res->plan = malloc(((size_t)f->neps + 1) * sizeof(*res->plan));
	if (!res->plan) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	for (uint32_t e = 0; e < f->neps; e++)
		res->plan[e] = (struct fab_lid_pin){ fab_port(f, f->eps[e].node, f->eps[e].port)->guid,
						     fab_ep_lid(f, e), fab_ep_lmc(f, e) };
	res->nplan = f->neps;
	return 0;
}

int eng_run(const struct eng_req *req, struct eng_res *res, struct fab_err *err)
{
	struct fabric *base;
	int rc = ENG_NOT_APPLICABLE;
	double t0 = now_ms();

	memset(res, 0, sizeof(*res));
	base = req->own ? req->own : fab_copy(req->fabric, err);
	if (!base)
		return ENG_ERROR;
	if (req->assign &&
	    fab_lids_assign(base, req->pins, req->npins, req->lid_mode, req->lmc, err)) {
		res->lids_failed = 1;
		fab_free(base);
		return ENG_ERROR;
	}
	res->lids_ms = now_ms() - t0;
	for (size_t i = 0; rc == ENG_NOT_APPLICABLE && i < req->chain->n; i++)
		rc = try_engine(req, base, i, res, err);
	if (rc == ENG_NOT_APPLICABLE && req->budget.cancel && __atomic_load_n(req->budget.cancel, __ATOMIC_RELAXED)) {
		fab_err_set(err, "cancelled");
		rc = ENG_ERROR;
	}
	if (rc == ENG_OK && res->fabric != base)
		fab_free(base);
	else if (rc != ENG_OK)
		fab_free(base);
	if (rc == ENG_OK && make_plan(res, err)) {
		eng_res_free(res);
		rc = ENG_ERROR;
	}
	if (rc == ENG_NOT_APPLICABLE)
		fab_err_set(err, "no engine of the chain applies to this fabric:\n%s", res->log);
	return rc;
}
