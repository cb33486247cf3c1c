/* SPDX-License-Identifier: MIT */
/**
 * DOC: one reroute, top to bottom
 *
 * The worker (daemon/sched.c) hands each reroute to job_run():
 *
 *  1. the fabric: the one OpenSM gave, with its LIDs, or the source's, with
 *     the stored LIDs pinned;
 *  2. the previous routing: the base, the last routing the chain made;
 *  3. what to make: the routing in force kept when OpenSM's fabric is the
 *     one it was made for (daemon/keep.c); a repair of the base when the
 *     change may be repaired (daemon/repair.h), the chain's routing
 *     otherwise; a rebalance when one is due on the fabric the repair left;
 *  4. make it with eng_run(), the only way a routing is made: the repair
 *     engine in ENG_MODE_REPAIR, the chain in ENG_MODE_ROUTE, both evaluated
 *     with the same options and held to the same publish policy; a repair
 *     eng_run() refuses lets the chain route, and the refusal is recorded;
 *  5. a rebalance replaces the repair only when rebalance_judge() adopts it;
 *  6. publish the epoch (its number comes from the store first), answer
 *     OpenSM, count, hand the snapshot to its writer (daemon/snapw.h),
 *     record the events, move the base.
 *
 * A restore (pipe_restore(), daemon/keep.c) is a routing run too: the stored
 * routing in ENG_MODE_KEEP, evaluated and judged like any other.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svc/clock.h"
#include "svc/log.h"
#include "daemon/pipeline_impl.h"
#include "analysis/report.h"

static const double hist_bounds[PIPE_HIST_N] = PIPE_HIST_BOUNDS;

/*
 * How every routing the daemon publishes is evaluated; with the state that
 * lets a repair be proven by redoing only the destinations it changed,
 * made once the routing is out when it was evaluated in full
 * (job_make_state(), when the worker has nothing else to do).
 */
const struct an_opts job_eval_opts = { .load = 1, .parallel = 1, .incremental = 1,
				       .state_later = 1 };

void pipe_event(struct store *st, const char *type, json_t *details, const char *fmt, ...)
{
	char msg[512];
	struct fab_err err;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (store_event_add(st, loop_wall_ms(), type, msg, details, &err) < 0)
		log_err("%s", err.msg);
	json_decref(details);
}

/* --- the routing run ------------------------------------------------------- */

/*
 * Route @f through eng_run() with @chain in @mode, the base as the previous
 * routing; @own: @f given away (eng_req.own), taken whatever happens. A
 * given fabric (OpenSM's) keeps its LIDs; the source's gets the stored
 * ones. Return: enum eng_status, @res filled on ENG_OK.
 */
static int route(struct pipeline *p, const struct job *j, const struct fabric *f,
		 struct fabric *own, enum eng_mode mode, const char *chain, const char *options,
		 struct eng_res *res, struct fab_err *err)
{
	struct eng_chain c;
	struct eng_req req = { .fabric = f, .own = own, .chain = &c, .mode = mode, .eval = &job_eval_opts,
			       .policy = (enum eng_policy)j->set.policy, .budget = j->set.budget };
	struct epoch *cur = mode != ENG_MODE_KEEP ? epoch_slot_get(p->slot) : NULL;
	struct eng_since since;
	struct fab_lid_pin *pins = NULL;
	size_t npins = 0;
	int rc;

	if (p->base.epoch) {
		req.prev_fabric = p->base.epoch->fabric;
		req.prev = p->base.epoch->routing;
		req.memo = &p->base.memo;
	}
	if (cur) {	/* proven from the evaluation of the routing in force: only what changed is redone */
		since = (struct eng_since){ cur->fabric, cur->routing, &cur->report };
		req.since = &since;
	}
	if (!j->given) {
		if (store_lids_pins(p->st, &pins, &npins, err)) {
			epoch_unref(cur);
			fab_free(own);
			return ENG_ERROR;
		}
		req.pins = pins;
		req.npins = npins;
		req.assign = 1;
		req.lid_mode = FAB_LIDS_KEEP;
		req.lmc = j->set.lmc;
		req.lmc_budget = FAB_LMC_MAX;
	}
	req.budget.cancel = &p->cancel;
	rc = eng_chain_parse_files(&c, chain, options, j->set.files, err) ? ENG_ERROR : ENG_OK;
	if (rc == ENG_OK) {
		rc = eng_run(&req, res, err);	/* takes @own */
		eng_chain_free(&c);
	} else {
		fab_free(own);
	}
	epoch_unref(cur);
	free(pins);
	return rc;
}

/* A new epoch holding what the routing run gave (taken from @res). */
struct epoch *job_epoch_from(struct eng_res *res, const char *chain, struct fab_err *err)
{
	struct epoch *e = epoch_new();

	if (!e) {
		eng_res_free(res);
		fab_err_set(err, "out of memory");
		return NULL;
	}
	snprintf(e->chain, sizeof(e->chain), "%s", chain);
	e->fabric = res->fabric;
	e->routing = res->routing;
	e->opts = res->eval_opts;
	e->report = res->report;
	e->compute_ms = res->route_ms;
	e->eval_ms = res->eval_ms;
	e->topo_hash = fab_topology_hash(e->fabric);
	snprintf(e->engine, sizeof(e->engine), "%s", res->used->name);
	e->engine_log = strdup(res->log);
	res->fabric = NULL;
	res->routing = NULL;
	res->evaluated = 0;
	eng_res_free(res);
	return e;
}

/*
 * The epoch of a routing run for @j: a repair of the base (the repair
 * engine's, or a chain engine's repair hook) is JOB_REPAIR, anything else
 * JOB_FULL.
 */
static struct epoch *from_run(struct job *j, struct eng_res *res, const char *chain,
			      struct fab_err *err)
{
	int repaired = res->repaired;
	struct epoch *e = job_epoch_from(res, chain, err);

	if (!e)
		return NULL;
	e->inputs = job_inputs(&j->set);
	j->kind = repaired ? JOB_REPAIR : JOB_FULL;
	return e;
}

/*
 * What repair @e changed from the base, counted once the caller waiting for
 * it has its answer (tens of milliseconds on 5,000 endpoints: the fast
 * repair writes meanwhile), before anything can change the base.
 */
static void job_diff(struct pipeline *p, struct job *j, const struct epoch *e)
{
	if (j->kind != JOB_REPAIR || j->diffed || !p->base.epoch)
		return;
	rt_diff(p->base.epoch->fabric, p->base.epoch->routing, e->fabric, e->routing, &j->diff);
	j->diffed = 1;
}

/* The first line of an engine log: why a one-engine chain gave nothing. */
static void first_line(char *out, size_t size, const char *log, const char *dflt)
{
	size_t n = strcspn(log, "\n");

	snprintf(out, size, "%.*s", (int)n, n ? log : dflt);
}

/*
 * The repair of the base when one is wanted: the epoch, or NULL with
 * @j->refused set (or left empty). A repair-only job's fabric is routed
 * as it is, not copied: *@fp is taken (NULL after) when the repair is tried.
 */
static struct epoch *try_repair(struct pipeline *p, struct job *j, struct fabric **fp)
{
	const struct fabric *f = *fp;
	struct fabric *own = j->repair_only ? *fp : NULL;
	struct fab_err why = { { 0 } };
	struct eng_res res;
	struct epoch *e;
	int rc;

	if (!repair_wanted(j->set.repair, j->reason, p->base.epoch, j->why_not,
			   sizeof(j->why_not)))
		return NULL;
	if (own)
		*fp = NULL;
	rc = route(p, j, f, own, ENG_MODE_REPAIR, REPAIR_ENGINE, "", &res, &why);
	if (rc != ENG_OK) {
		first_line(j->refused, sizeof(j->refused), rc == ENG_ERROR ? why.msg : res.log,
			   why.msg);
		log_info("no local repair, the chain routes: %s", j->refused);
		return NULL;
	}
	if (!(e = from_run(j, &res, j->set.chain, &why)))
		first_line(j->refused, sizeof(j->refused), why.msg, "out of memory");
	return e;
}

/*
 * What this reroute publishes: a repair, the chain's routing, or a
 * rebalance judged (JOB_KEEP: declined). *@fp may be taken (NULL after).
 */
static struct epoch *make_routing(struct pipeline *p, struct job *j, struct fabric **fp,
				  struct fab_err *err)
{
	const struct fabric *f = *fp;	/* a repair-only job's: taken by try_repair() */
	struct epoch *cur = epoch_slot_get(p->slot), *e = NULL;
	int rebal = rebalance_wanted(j->rebalance, p->base.repaired, f, cur);
	struct eng_res res;

	if (!rebal && cur && (e = job_reuse(p, j, f, cur)))
		goto out;
	if (!rebal && (e = try_repair(p, j, fp)))
		goto out;
	if (j->repair_only) {
		fab_err_set(err, "%s", j->refused[0] ? j->refused : j->why_not);
		goto out;
	}
	if (route(p, j, f, NULL, ENG_MODE_ROUTE, j->set.chain, j->set.options, &res, err) != ENG_OK ||
	    !(e = from_run(j, &res, j->set.chain, err)))
		goto out;
	if (!rebal)
		goto out;
	if (rebalance_judge(cur, e->fabric, e->routing, &e->report, j->set.rebalance_max_blocks,
			    &j->rv, err)) {
		epoch_unref(e);
		e = NULL;
	} else {
		j->kind = j->rv.adopt ? JOB_REBALANCE : JOB_KEEP;
	}
out:
	epoch_unref(cur);
	return e;
}

/*
 * OpenSM's own engine's tables for @f (taken), read back from the switches:
 * an epoch evaluated with the same options as any, whatever it shows.
 */
static struct epoch *adopt(struct job *j, struct fabric *f, struct fab_err *err)
{
	struct epoch *e = epoch_new();
	double t0 = loop_now_fms();

	if (!e) {
		fab_free(f);
		fab_err_set(err, "out of memory");
		return NULL;
	}
	e->fabric = f;
	e->routing = j->routing;
	j->routing = NULL;
	e->opts = job_eval_opts;
	if (an_evaluate(f, e->routing, &job_eval_opts, &e->report, err)) {
		epoch_unref(e);
		return NULL;
	}
	e->eval_ms = loop_now_fms() - t0;
	e->topo_hash = fab_topology_hash(f);
	snprintf(e->chain, sizeof(e->chain), "%s", j->set.chain);
	snprintf(e->engine, sizeof(e->engine), "opensm");
	e->engine_log = strdup("OpenSM's own engine routed the pass: its tables, read back from "
			       "the switches");
	j->kind = JOB_FALLBACK;
	return e;
}

/* --- publication ------------------------------------------------------------ */

/*
 * Make @e current. A new epoch's number is allocated in the store first: a
 * number clients have seen is never given to another routing, even after a
 * crash. When the store cannot allocate one, nothing is published.
 */
int job_publish_epoch(struct pipeline *p, struct epoch *e, const char *reason, struct fab_err *err)
{
	int64_t seq = e->seq ? (int64_t)e->seq : store_seq_next(p->st, err);

	if (seq < 0)
		return -1;
	e->seq = (uint64_t)seq;
	snprintf(e->reason, sizeof(e->reason), "%s", reason);
	e->published_ms = loop_wall_ms();
	epoch_slot_publish(p->slot, epoch_ref(e));
	return 0;
}

void job_answer_sync(struct pipeline *p, struct epoch *e, const struct fab_err *err)
{
	p->sync.result = e;
	p->sync.err = *err;
	p->sync.done = 1;
	pthread_cond_broadcast(&p->sync.cv);
}

static void answer_sync(struct pipeline *p, const struct job *j, struct epoch *e)
{
	struct fab_err none = { { 0 } };

	if (!j->sync)
		return;
	pthread_mutex_lock(&p->mu);
	job_answer_sync(p, epoch_ref(e), &none);
	p->sync.writing = j->writes;
	pthread_mutex_unlock(&p->mu);
}

/* A repair answered: until its caller has written it (at most PIPE_WRITE_WAIT_MS), nothing else. */
static void wait_written(struct pipeline *p)
{
	/* sync.cv waits on CLOCK_MONOTONIC (pipe_new()) */
	struct timespec until = svc_deadline(CLOCK_MONOTONIC, PIPE_WRITE_WAIT_MS);

	pthread_mutex_lock(&p->mu);
	while (p->sync.writing && !p->sched.quit &&
	       !pthread_cond_timedwait(&p->sync.cv, &p->mu, &until))
		;
	p->sync.writing = 0;
	pthread_mutex_unlock(&p->mu);
}

static void account(struct pipeline *p, int ok, double ms)
{
	unsigned b = 0;

	while (b < PIPE_HIST_N && ms > hist_bounds[b])
		b++;
	pthread_mutex_lock(&p->mu);
	if (ok) {
		p->stats.ok++;
		p->stats.hist[b]++;
		p->stats.sum_ms += ms;
		p->stats.last_ms = ms;
	} else {
		p->stats.failed++;
	}
	pthread_mutex_unlock(&p->mu);
}

static json_t *summary_json(const struct epoch *e, double latency_ms)
{
	json_t *unr = json_object(), *pairs = json_object();

	for (unsigned k = 0; k < AN_NCLASSES; k++) {
		json_object_set_new(unr, an_class_name(k), json_integer((json_int_t)e->report.conn.unreachable[k]));
		json_object_set_new(pairs, an_class_name(k), json_integer((json_int_t)e->report.conn.pairs[k]));
	}
	return json_pack("{s:b, s:b, s:o, s:o, s:o, s:I, s:i, s:f}",
			 "connected", an_connected(&e->report), "deadlock_free", e->report.cdg.deadlock_free,
			 "pairs", pairs, "unreachable", unr, "vls_used", an_json_bits(e->report.cdg.vls_used),
			 "max_link_load", (json_int_t)e->report.load.max,
			 "max_hops", (json_int_t)e->report.conn.max_hops, "latency_ms", latency_ms);
}

/*
 * Hand @e to the snapshot writer (daemon/snapw.h): stored while the worker
 * goes on. The writer gets a copy of @summary: the worker encodes it too.
 */
static void store_epoch(struct pipeline *p, struct epoch *e, const struct job *j, json_t *summary)
{
	struct snapw_item it = {
		.e = epoch_ref(e), .summary = json_deep_copy(summary), .key = job_routing_key(&j->set),
		.keep = j->set.keep, .max_age_ms = (int64_t)j->set.max_age_days * 86400000,
	};

	snapw_put(p->writer, &it);
}

void job_base_set(struct pipeline *p, struct epoch *e)
{
	eng_memo_clear(&p->base.memo);
	epoch_unref(p->base.epoch);
	p->base = (struct pipe_base){ .epoch = e ? epoch_ref(e) : NULL };
}

/* What the repair engine works out from the base alone, now rather than at the next fault. */
int job_prepare_repair(struct pipeline *p)
{
	const struct engine *e = eng_find(REPAIR_ENGINE);
	struct epoch *b = p->base.epoch;
	double t0 = loop_now_fms();
	int rc;

	if (!b || !e || !e->prepare)
		return 0;
	rc = e->prepare(b->fabric, b->routing, &p->base.memo, &p->wanted);
	if (rc < 0)
		log_warn("out of memory preparing the repairs of epoch %llu",
			 (unsigned long long)b->seq);
	log_debug("epoch %llu: its repairs prepared for %.1f ms%s", (unsigned long long)b->seq,
		  loop_now_fms() - t0, rc == 1 ? ", stopped for work" : "");
	return rc == 1;
}

/* The counting of a due epoch's sums: it stops when work came and less than half is done. */
static void state_progress(void *arg, uint64_t done, uint64_t total)
{
	struct pipeline *p = arg;

	if (__atomic_load_n(&p->wanted, __ATOMIC_RELAXED) && done * 2 < total)
		__atomic_store_n(&p->state_stop, 1, __ATOMIC_RELAXED);
}

int job_make_state(struct epoch *e, struct pipeline *p)
{
	struct fab_err err = { { 0 } };
	struct an_opts o = e->opts;
	double t0 = loop_now_fms();

	if (e->report.state || !e->opts.incremental)
		return 0;
	if (p) {
		__atomic_store_n(&p->state_stop, 0, __ATOMIC_RELAXED);
		o.progress = state_progress;
		o.progress_arg = p;
		o.cancel = &p->state_stop;
	}
	if (!an_state_make(e->fabric, e->routing, &o, &e->report, &err)) {
		log_debug("epoch %llu: the sums for its repairs counted in %.1f ms",
			  (unsigned long long)e->seq, loop_now_fms() - t0);
	} else if (p && __atomic_load_n(&p->state_stop, __ATOMIC_RELAXED)) {
		log_info("epoch %llu: counting the sums for its repairs stopped after %.1f ms: a "
			 "reroute came first (its proof takes the full evaluation)",
			 (unsigned long long)e->seq, loop_now_fms() - t0);
		return 1;
	} else {
		log_warn("epoch %llu: %s; its next repair is proven by a full evaluation",
			 (unsigned long long)e->seq, err.msg);
	}
	return 0;
}

void job_state_due(struct pipeline *p, struct epoch *e)
{
	epoch_unref(p->state_due);
	p->state_due = epoch_ref(e);
}

/* The base after publishing @e: a repair keeps it, anything else becomes it; the rebalance timer. */
static void move_base(struct pipeline *p, struct epoch *e, const struct job *j)
{
	int arm = -1;

	if (j->kind == JOB_REPAIR) {
		p->base.repaired = j->diff.blocks > 0;	/* every fault recovered: the base again */
		arm = p->base.repaired ? 1 : -1;
	} else {	/* a fallback is not the chain's: nothing to repair or give it */
		job_base_set(p, j->kind == JOB_FALLBACK ? NULL : e);
	}
	pthread_mutex_lock(&p->mu);
	/* when idle, after the sums its proof takes (they save more) */
	p->prep_due = j->set.repair && p->base.epoch;
	p->sched.rebalance_arm = arm;
	pthread_mutex_unlock(&p->mu);
}

/* The events of a published epoch: the reroute, then the repair, its refusal or the rebalance. */
static void record(struct pipeline *p, const struct epoch *e, const struct job *j, json_t *summary,
		   double latency)
{
	unsigned long long seq = (unsigned long long)e->seq;

	if (j->kind == JOB_FALLBACK)
		pipe_event(p->st, "reroute", summary, "epoch %llu: OpenSM's own engine routed the pass "
			   "(fallback), its tables read back from the switches", seq);
	else
		pipe_event(p->st, "reroute", summary, "epoch %llu: %s %s (%s)", seq, e->engine,
			   j->kind == JOB_REPAIR ? "repaired" : "routed", e->reason);
	if (j->kind == JOB_REPAIR)
		pipe_event(p->st, "repair", repair_json(&j->diff, e, latency),
			   "epoch %llu: local repair, %llu LFT entries in %u blocks on %u switches "
			   "changed from epoch %llu", seq, (unsigned long long)j->diff.entries,
			   j->diff.blocks, j->diff.switches,
			   (unsigned long long)(p->base.epoch ? p->base.epoch->seq : 0));
	else if (j->refused[0])
		pipe_event(p->st, "repair", json_pack("{s:b, s:s}", "refused", 1, "why", j->refused),
			   "epoch %llu: no local repair (%s); %s routed", seq, j->refused, e->engine);
	if (j->kind == JOB_REBALANCE)
		pipe_event(p->st, "rebalance", rebalance_json(&j->rv),
			   "epoch %llu: rebalanced, %llu LFT entries in %u blocks on %u switches "
			   "changed", seq, (unsigned long long)j->rv.diff.entries, j->rv.diff.blocks,
			   j->rv.diff.switches);
}

/*
 * What @e is, and its number when it mirrors the master's. A copy keeps the
 * kind of what it copies (the reason says "mirror"): a standby that becomes
 * master replicates a copied repair with its base, as the old master did.
 */
static void set_kind(struct pipeline *p, struct epoch *e, const struct job *j)
{
	static const char *const kinds[] = { "full", "repair", "rebalance", "full", "fallback" };

	snprintf(e->kind, sizeof(e->kind), "%s", kinds[j->kind]);
	e->base_seq = j->kind == JOB_REPAIR && p->base.epoch ? p->base.epoch->seq : 0;
	if (j->kind == JOB_REPAIR && p->base.epoch)
		e->base = epoch_ref(p->base.epoch);
	if (j->seq) {
		e->seq = j->seq;
		store_seq_floor(p->st, j->seq);
	}
	if (!e->base_seq)
		e->base_seq = e->seq;
}

/* A declined rebalance: the repair stays; OpenSM, if it asked, gets it again. */
static struct epoch *keep_repair(struct pipeline *p, const struct job *j)
{
	struct epoch *cur = epoch_slot_get(p->slot);

	log_info("rebalance not adopted, the repair stays: %s", j->rv.why);
	pipe_event(p->st, "rebalance", rebalance_json(&j->rv),
		   "rebalance not adopted, the repair stays: %s", j->rv.why);
	answer_sync(p, j, cur);
	return cur;
}

/* The fabric to route: the one given (its LIDs kept), or the source's (taken). */
static struct fabric *job_fabric(struct pipeline *p, struct job *j, struct fab_err *err)
{
	struct fabric *f = j->fabric;
	char size[160];

	j->fabric = NULL;
	j->given = f != NULL;
	if (!f && (f = srcf_fabric(p->src, err)))
		log_info("rerouting (%s): %s; chain %s", j->reason, fab_describe(f, size, sizeof(size)),
			 j->set.chain);
	return f;
}

/* Publish @e, the routing @j made: count, store, record, move the base. 0, or -1 with @err. */
static int job_publish(struct pipeline *p, struct job *j, struct epoch *e, struct fab_err *err)
{
	json_t *summary;
	double latency;

	if (job_publish_epoch(p, e, j->kind == JOB_REBALANCE ? "rebalance" : j->reason, err))
		return -1;
	answer_sync(p, j, e);	/* OpenSM waits: answer before storing */
	if (j->writes)
		wait_written(p);
	job_diff(p, j, e);
	latency = loop_now_fms() - j->first_change_ms;
	account(p, 1, latency);
	summary = summary_json(e, latency);
	log_info("epoch %llu published (%s): %s in %.1f ms, evaluated in %.1f ms (%u of %u "
		 "destinations), %s, %s; %.1f ms after the change", (unsigned long long)e->seq,
		 j->reason, e->engine, e->compute_ms, e->eval_ms, e->report.dests, e->fabric->neps,
		 an_connected(&e->report) ? "connected" : "NOT connected",
		 e->report.cdg.deadlock_free ? "deadlock-free" : "deadlock POSSIBLE", latency);
	store_epoch(p, e, j, summary);
	record(p, e, j, summary, latency);
	move_base(p, e, j);
	job_state_due(p, e);
	return 0;
}

/* --- OpenSM's answers, published once installed ------------------------------ */

void job_held_free(struct pipeline *p)
{
	epoch_unref(p->held.e);
	p->held.e = NULL;
	job_free(&p->held.j);
}

/*
 * Answer OpenSM with @e under a number of its own, and hold it: OpenSM
 * installs it only if the answer came in time and passed its checks, and
 * says so (job_settle()). An answer held before and never confirmed was
 * not installed: it goes.
 */
static int hold(struct pipeline *p, struct job *j, struct epoch *e, struct fab_err *err)
{
	int64_t seq = store_seq_next(p->st, err);

	if (seq < 0)
		return -1;
	e->seq = (uint64_t)seq;
	if (p->held.e) {
		log_warn("epoch %llu dropped: OpenSM never said it installed it",
			 (unsigned long long)p->held.e->seq);
		job_held_free(p);
	}
	j->sync = 0;
	p->held.e = epoch_ref(e);
	p->held.j = *j;
	memset(j, 0, sizeof(*j));
	pthread_mutex_lock(&p->mu);
	job_answer_sync(p, epoch_ref(e), err);
	pthread_mutex_unlock(&p->mu);
	job_diff(p, &p->held.j, e);
	job_state_due(p, e);	/* counted while OpenSM installs it */
	return 0;
}

void job_settle(struct pipeline *p, uint64_t seq, int installed)
{
	struct fab_err err = { { 0 } };
	struct epoch *e = p->held.e;

	if (!e || (seq && seq != e->seq) || (installed && !seq))
		return;	/* no answer waits, or OpenSM speaks of another epoch */
	if (!installed) {
		struct epoch *cur = epoch_slot_get(p->slot);

		log_warn("epoch %llu not installed: OpenSM routed the pass with its own engine; "
			 "the current epoch stays %llu", (unsigned long long)e->seq,
			 (unsigned long long)(cur ? cur->seq : 0));
		pipe_event(p->st, "error", json_pack("{s:I}", "epoch", (json_int_t)e->seq),
			   "epoch %llu not installed: OpenSM routed the pass with its own engine "
			   "(fabrouted's answer was late or refused)", (unsigned long long)e->seq);
		epoch_unref(cur);
		if (p->dropped)
			p->dropped(p->dropped_ud, e);
		if (p->state_due == e) {	/* never in force: its sums are never needed */
			epoch_unref(p->state_due);
			p->state_due = NULL;
		}
	} else if (job_publish(p, &p->held.j, e, &err)) {
		log_err("epoch %llu installed by OpenSM but not published: %s",
			(unsigned long long)e->seq, err.msg);
	}
	job_held_free(p);
}

struct epoch *job_run(struct pipeline *p, struct job *j, struct fab_err *errp)
{
	struct fab_err err = { { 0 } };
	struct fabric *f;
	struct epoch *e = NULL;

	if (j->drop_base)
		job_base_set(p, NULL);
	if (!(f = job_fabric(p, j, &err)))
		goto fail;
	if (j->routing) {
		e = adopt(j, f, &err);	/* takes @f */
		f = NULL;
	} else {
		e = make_routing(p, j, &f, &err);
	}
	fab_free(f);
	if (!e)
		goto fail;
	if (j->kind == JOB_KEEP) {
		epoch_unref(e);
		return keep_repair(p, j);
	}
	set_kind(p, e, j);
	if (j->hold ? hold(p, j, e, &err) : job_publish(p, j, e, &err))
		goto fail;
	return e;
fail:
	epoch_unref(e);
	*errp = err;
	if (j->repair_only)	/* nothing changed: OpenSM's sweep routes as it always does */
		return NULL;
	account(p, 0, 0);
	log_err("reroute (%s) failed, the last good epoch stays: %s", j->reason, err.msg);
	pipe_event(p->st, "error", json_pack("{s:s, s:s}", "reason", j->reason, "chain", j->set.chain),
		   "reroute failed, the last good epoch stays: %s", err.msg);
	return NULL;
}

/* --- the job's inputs --------------------------------------------------------- */

void job_free(struct job *j)
{
	free((char *)j->set.chain);
	free((char *)j->set.options);
	fab_free(j->fabric);
	rt_free(j->routing);
	memset(j, 0, sizeof(*j));
}

int job_take(struct pipeline *p, struct job *j)
{
	memset(j, 0, sizeof(*j));
	if (p->sync.fabric) {
		j->sync = 1;
		j->repair_only = p->sync.repair_only;
		j->seq = p->sync.seq;
		j->writes = j->repair_only && !j->seq;	/* pipe_repair_fabric() */
		j->hold = !j->repair_only && !j->seq && p->sync.hold;
		j->routing = p->sync.routing;
		p->sync.routing = NULL;
		j->fabric = p->sync.fabric;
		p->sync.fabric = NULL;
		snprintf(j->reason, sizeof(j->reason), "%s", j->seq ? "mirror" : j->repair_only ? "trap" :
			 j->routing ? "fallback" : "opensm");
		j->first_change_ms = loop_now_fms();
		p->sched.busy = 1;
	} else {
		p->sched.job = 0;
		memcpy(j->reason, p->sched.reason, sizeof(j->reason));
		j->first_change_ms = p->sched.first_change_ms;
	}
	if (!j->repair_only) {	/* a due rebalance waits for a routing run */
		j->rebalance = p->sched.rebalance_due;
		p->sched.rebalance_due = 0;
	}
	j->drop_base = p->sched.drop_base || (j->seq && !j->repair_only);	/* the master's base anew */
	p->sched.drop_base = 0;
	j->set = p->set;
	j->set.chain = strdup(p->set.chain);
	j->set.options = strdup(p->set.options);
	return j->set.chain && j->set.options ? 0 : -1;
}
