/* SPDX-License-Identifier: MIT */
/**
 * DOC: repair now, rebalance later
 *
 * On a fault of a fat tree routed by ftree or sftree the worker publishes
 * ftdlr's local repair of the last full routing (the base) before it tries
 * the chain. Once the fabric stayed as the repair left it for
 * rebalance_delay_s, the chain routes again and its routing replaces the
 * repair only when daemon/repair.h's rebalance_judge() adopts it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svc/log.h"
#include "daemon/pipeline_impl.h"

/* The worker's base for a repair, NULL when none (taken: drop it with epoch_unref()). */
static struct epoch *repair_base(struct pipeline *p)
{
	int drop, on;

	pthread_mutex_lock(&p->mu);
	drop = p->drop_base;
	on = p->repair;
	p->drop_base = 0;
	pthread_mutex_unlock(&p->mu);
	if (drop) {
		epoch_unref(p->base);
		p->base = NULL;
		p->repaired = 0;
	}
	return on && p->base && repair_base_ok(p->base) ? epoch_ref(p->base) : NULL;
}

/*
 * Try ftdlr's repair of the base for @f first: 0 when @e holds it, 1 when
 * the chain must route (no base, another kind of change, a repair that does
 * not apply or falls short of the policy: logged).
 */
static int repair_first(struct pipeline *p, const struct fabric *f, struct job *j,
			struct epoch *e)
{
	struct epoch *base;
	struct fabric *cf;
	struct fab_err why = { { 0 } };
	int rc = 1;

	if (!repair_applies(j->reason) || !(base = repair_base(p)))
		return 1;
	cf = fab_copy(f, &why);
	if (cf && !j->given && pipe_assign_lids(p, cf, j->lmc, &why)) {
		fab_free(cf);
		cf = NULL;
	}
	if (cf)
		rc = repair_run(base, cf, j->policy, &j->rr, &why);
	epoch_unref(base);
	if (rc) {
		log_info("no local repair, the chain routes: %s", why.msg);
		return 1;
	}
	e->fabric = j->rr.f;
	e->routing = j->rr.r;
	e->opts = j->rr.opts;
	e->report = j->rr.rep;
	e->compute_ms = j->rr.repair_ms;
	e->eval_ms = j->rr.eval_ms;
	e->topo_hash = fab_topology_hash(e->fabric);
	snprintf(e->engine, sizeof(e->engine), "ftdlr");
	e->engine_log = strdup("ftdlr: routed (repair)\n");
	j->rr.f = NULL;
	j->rr.r = NULL;
	memset(&j->rr.rep, 0, sizeof(j->rr.rep));
	j->kind = JOB_REPAIR;
	return 0;
}

/*
 * A rebalance is due and the fabric is the repaired one: @e holds the
 * chain's routing; keep it (JOB_REBALANCE) only when rebalance_judge()
 * adopts it, else the repair stays (JOB_KEEP).
 */
static int rebalance_decide(struct pipeline *p, struct job *j, struct epoch *e,
			    struct fab_err *err)
{
	struct epoch *cur = epoch_slot_get(p->slot);
	unsigned max_blocks;
	int rc;

	pthread_mutex_lock(&p->mu);
	max_blocks = p->rebalance_max_blocks;
	pthread_mutex_unlock(&p->mu);
	rc = rebalance_judge(cur, e->fabric, e->routing, &e->report, max_blocks, &j->rv, err);
	epoch_unref(cur);
	if (rc == 0)
		j->kind = j->rv.adopt ? JOB_REBALANCE : JOB_KEEP;
	return rc;
}

/* The job is a rebalance of the repair in place: one is due and the cabling is the same. */
static int rebalancing(struct pipeline *p, const struct fabric *f, const struct job *j)
{
	struct epoch *cur;
	int same;

	if (!j->rebalance || !p->repaired)
		return 0;
	cur = epoch_slot_get(p->slot);
	same = cur && fab_topology_hash(f) == cur->topo_hash;
	epoch_unref(cur);
	return same;
}

/* What the job published: the base, the repair flag, the timer, the events. */
void pipe_repair_after(struct pipeline *p, struct epoch *e, struct job *j, double latency)
{
	int arm;

	if (j->kind == JOB_REPAIR) {
		p->repaired = j->rr.diff.blocks > 0;	/* every fault recovered: the base again */
		arm = p->repaired ? 1 : -1;
		pipe_event(p->st, "repair", repair_json(&j->rr, e, latency),
			   "epoch %llu: local repair, %llu LFT entries in %u blocks on %u switches "
			   "changed from epoch %llu", (unsigned long long)e->seq,
			   (unsigned long long)j->rr.diff.entries, j->rr.diff.blocks,
			   j->rr.diff.switches, (unsigned long long)(p->base ? p->base->seq : 0));
	} else {
		epoch_unref(p->base);
		p->base = epoch_ref(e);
		p->repaired = 0;
		arm = -1;
		pthread_mutex_lock(&p->mu);
		p->drop_base = 0;	/* routed with the settings in force */
		pthread_mutex_unlock(&p->mu);
		if (j->kind == JOB_REBALANCE)
			pipe_event(p->st, "rebalance", rebalance_json(&j->rv),
				   "epoch %llu: rebalanced, %llu LFT entries in %u blocks on %u switches "
				   "changed", (unsigned long long)e->seq,
				   (unsigned long long)j->rv.diff.entries, j->rv.diff.blocks,
				   j->rv.diff.switches);
	}
	pthread_mutex_lock(&p->mu);
	p->rebalance_arm = arm;
	pthread_mutex_unlock(&p->mu);
}

/* A declined rebalance: the repair stays; OpenSM, if it asked, gets it again. */
struct epoch *pipe_rebalance_keep(struct pipeline *p, struct job *j)
{
	struct epoch *cur = epoch_slot_get(p->slot);
	struct fab_err none = { { 0 } };

	log_info("rebalance not adopted, the repair stays: %s", j->rv.why);
	pipe_event(p->st, "rebalance", rebalance_json(&j->rv),
		   "rebalance not adopted, the repair stays: %s", j->rv.why);
	if (j->sync) {
		pthread_mutex_lock(&p->mu);
		pipe_answer_sync(p, epoch_ref(cur), &none);
		pthread_mutex_unlock(&p->mu);
	}
	return cur;
}

/* Route @f: a repair first when one applies; a due rebalance judged against the repair. */
int pipe_route(struct pipeline *p, const struct fabric *f, struct job *j, struct epoch *e,
		 struct fab_err *err)
{
	int rebal = rebalancing(p, f, j);

	if (!rebal && repair_first(p, f, j, e) == 0)
		return 0;
	if (pipe_route_chain(p, f, j, e, err))
		return -1;
	return rebal ? rebalance_decide(p, j, e, err) : 0;
}

/* With @mu held, in the loop: arm or disarm the rebalance timer as the worker asked. */
void pipe_rebalance_timer_update(struct pipeline *p)
{
	if (p->rebalance_arm > 0 && p->rebalance_delay_s)
		loop_timer_arm(p->rebalance_timer, (int64_t)p->rebalance_delay_s * 1000);
	else if (p->rebalance_arm)
		loop_timer_disarm(p->rebalance_timer);
	p->rebalance_arm = 0;
}

/* The fabric stayed as the repair left it for rebalance_delay_s: route with the chain. */
void pipe_on_rebalance(struct loop *l, void *ud)
{
	struct pipeline *p = ud;
	void (*sweep)(void *ud);

	(void)l;
	pthread_mutex_lock(&p->mu);
	p->rebalance_due = 1;
	sweep = p->sweep;
	if (!sweep) {
		if (!p->pending) {
			p->first_change_ms = loop_now_fms();
			snprintf(p->reason, sizeof(p->reason), "rebalance");
		}
		p->pending = 1;
		pipe_schedule(p);
	}
	pthread_mutex_unlock(&p->mu);
	if (sweep)
		sweep(p->sweep_ud);
}

void pipe_set_sweep_cb(struct pipeline *p, void (*cb)(void *ud), void *ud)
{
	p->sweep = cb;
	p->sweep_ud = ud;
}
