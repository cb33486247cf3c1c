/* SPDX-License-Identifier: MIT */
/**
 * DOC: reroute pipeline
 *
 * Three threads meet here. API threads and the loop call pipe_request();
 * the loop's thread owns the hold-down timer and hands a job to the
 * worker; the worker routes, publishes and stores, then wakes the loop
 * through an eventfd so it can start the next coalesced reroute. @mu
 * guards the settings, the pending change and the counters; nothing slow
 * runs under it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "svc/log.h"
#include "daemon/pipeline_impl.h"
#include "analysis/report.h"

static const double hist_bounds[PIPE_HIST_N] = PIPE_HIST_BOUNDS;

static void wake_loop(struct pipeline *p)
{
	uint64_t one = 1;

	if (write(p->wake_fd, &one, sizeof(one)) < 0)
		return;	/* counter already non-zero: the loop wakes anyway */
}

/* Routing inputs as one string: a stored snapshot is reusable when it matches. */
static char *routing_key(const char *chain, const char *options, unsigned lmc)
{
	size_t n = strlen(chain) + strlen(options) + 32;
	char *k = malloc(n);

	if (k)
		snprintf(k, n, "%s|%s|lmc=%u", chain, options, lmc);
	return k;
}

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

/* --- the worker ----------------------------------------------------------- */

int pipe_assign_lids(struct pipeline *p, struct fabric *f, unsigned lmc, struct fab_err *err)
{
	struct fab_lid_pin *pins = NULL;
	size_t n = 0;
	int rc;

	if (store_lids_pins(p->st, &pins, &n, err))
		return -1;
	rc = fab_lids_assign(f, pins, n, FAB_LIDS_KEEP, lmc, err);
	free(pins);
	return rc;
}

static const struct an_opts eval_opts = { .load = 1, .parallel = 1 };

/* Move what the routing run gave into @e. */
static void take_result(struct epoch *e, struct eng_res *res)
{
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
}

/*
 * Route @f with the job's chain through eng_run(): a given fabric (OpenSM's)
 * keeps its LIDs; the source's gets the stored ones. The current epoch is
 * the previous routing.
 */
int pipe_route_chain(struct pipeline *p, const struct fabric *f, const struct job *j,
		       struct epoch *e, struct fab_err *err)
{
	struct eng_chain chain;
	struct eng_req req = { .fabric = f, .chain = &chain, .eval = &eval_opts,
			       .policy = (enum eng_policy)j->policy };
	struct eng_res res;
	struct fab_lid_pin *pins = NULL;
	struct epoch *prev = epoch_slot_get(p->slot);
	size_t npins = 0;
	int rc = -1;

	if (!j->given) {
		if (store_lids_pins(p->st, &pins, &npins, err))
			goto out;
		req = (struct eng_req){ .fabric = f, .chain = &chain, .eval = &eval_opts, .pins = pins,
					.npins = npins, .assign = 1, .lid_mode = FAB_LIDS_KEEP,
					.lmc = j->lmc, .lmc_budget = FAB_LMC_MAX,
					.policy = (enum eng_policy)j->policy };
	}
	if (prev) {
		req.prev_fabric = prev->fabric;
		req.prev = prev->routing;
	}
	if (eng_chain_parse_str(&chain, j->chain, j->options, err))
		goto out;
	rc = eng_run(&req, &res, err) == ENG_OK ? 0 : -1;
	eng_chain_free(&chain);
	if (rc == 0)
		take_result(e, &res);
out:
	epoch_unref(prev);
	free(pins);
	return rc;
}


/* Evaluate a restored epoch (a routing run evaluates its own). */
static int evaluate(struct epoch *e, struct fab_err *err)
{
	double t0 = loop_now_fms();

	e->opts = eval_opts;
	if (an_evaluate(e->fabric, e->routing, &e->opts, &e->report, err))
		return -1;
	e->eval_ms = loop_now_fms() - t0;
	e->topo_hash = fab_topology_hash(e->fabric);
	return 0;
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

static void store_epoch(struct pipeline *p, struct epoch *e, const struct job *j, json_t *summary)
{
	struct store_snap_in in = {
		.seq = e->seq, .time_ms = e->published_ms, .reason = e->reason, .chain = e->chain,
		.engine = e->engine, .compute_ms = e->compute_ms, .eval_ms = e->eval_ms,
		.summary = summary, .f = e->fabric, .r = e->routing,
	};
	struct fab_err err;
	int64_t id = store_snapshot_add(p->st, &in, &err);
	char *key = routing_key(j->chain, j->options, j->lmc);

	if (id < 0) {
		log_err("epoch %llu not stored: %s", (unsigned long long)e->seq, err.msg);
		pipe_event(p->st, "error", NULL, "epoch %llu not stored: %s", (unsigned long long)e->seq, err.msg);
	} else {
		epoch_set_stored(e, id);
		if (!key || store_setting_set(p->st, "routing_key", key, &err))
			log_err("%s", key ? err.msg : "out of memory");
	}
	free(key);
	if (store_prune(p->st, j->keep, (int64_t)j->max_age_days * 86400000, loop_wall_ms(), &err) < 0)
		log_err("%s", err.msg);
}

/*
 * Make @e current. A new epoch's number is allocated in the store first: a
 * number clients have seen is never given to another routing, even after a
 * crash. When the store cannot allocate one, nothing is published.
 */
static int publish(struct pipeline *p, struct epoch *e, const char *reason, struct fab_err *err)
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

/* The fabric to route: the one given (its LIDs kept), or the source's (taken). */
static struct fabric *job_fabric(struct pipeline *p, struct job *j, struct fab_err *err)
{
	struct fabric *f = j->fabric;
	char size[160];

	j->fabric = NULL;
	j->given = f != NULL;
	if (!f && (f = srcf_fabric(p->src, err)))
		log_info("rerouting (%s): %s; chain %s", j->reason, fab_describe(f, size, sizeof(size)), j->chain);
	return f;
}

/* One reroute; the published epoch (a reference), or NULL with @err. */
static struct epoch *reroute(struct pipeline *p, struct job *j, struct fab_err *errp)
{
	struct epoch *e = epoch_new();
	struct fab_err err = { { 0 } };
	struct fabric *f = NULL;
	json_t *summary;
	double latency;

	if (!e) {
		fab_err_set(&err, "out of memory");
		goto fail;
	}
	snprintf(e->chain, sizeof(e->chain), "%s", j->chain);
	if (!(f = job_fabric(p, j, &err)) || pipe_route(p, f, j, e, &err))
		goto fail;
	fab_free(f);
	f = NULL;
	if (j->kind == JOB_KEEP) {
		epoch_unref(e);
		return pipe_rebalance_keep(p, j);
	}
	if (publish(p, e, j->kind == JOB_REBALANCE ? "rebalance" : j->reason, &err))
		goto fail;
	if (j->sync) {	/* OpenSM waits: answer before storing */
		pthread_mutex_lock(&p->mu);
		pipe_answer_sync(p, epoch_ref(e), &err);
		pthread_mutex_unlock(&p->mu);
	}
	latency = loop_now_fms() - j->first_change_ms;
	account(p, 1, latency);
	summary = summary_json(e, latency);
	log_info("epoch %llu published (%s): %s in %.1f ms, evaluated in %.1f ms, %s, %s; %.1f ms after the change",
		 (unsigned long long)e->seq, j->reason, e->engine, e->compute_ms, e->eval_ms,
		 an_connected(&e->report) ? "connected" : "NOT connected",
		 e->report.cdg.deadlock_free ? "deadlock-free" : "deadlock POSSIBLE", latency);
	store_epoch(p, e, j, summary);
	pipe_event(p->st, "reroute", summary, "epoch %llu: %s %s (%s)", (unsigned long long)e->seq,
		     e->engine, j->kind == JOB_REPAIR ? "repaired" : "routed", e->reason);
	pipe_repair_after(p, e, j, latency);
	return e;
fail:
	fab_free(f);
	epoch_unref(e);
	account(p, 0, 0);
	log_err("reroute (%s) failed, the last good epoch stays: %s", j->reason, err.msg);
	pipe_event(p->st, "error", json_pack("{s:s, s:s}", "reason", j->reason, "chain", j->chain),
		     "reroute failed, the last good epoch stays: %s", err.msg);
	*errp = err;
	return NULL;
}

static void job_free(struct job *j)
{
	free(j->chain);
	free(j->options);
	fab_free(j->fabric);
	repair_result_free(&j->rr);
}

/* With @mu held: the next job's inputs; a given fabric goes first. */
static int take_job(struct pipeline *p, struct job *j)
{
	memset(j, 0, sizeof(*j));
	if (p->sync_fabric) {
		j->sync = 1;
		j->fabric = p->sync_fabric;
		p->sync_fabric = NULL;
		snprintf(j->reason, sizeof(j->reason), "opensm");
		j->first_change_ms = loop_now_fms();
		p->busy = 1;
	} else {
		p->job = 0;
		memcpy(j->reason, p->reason, sizeof(j->reason));
		j->first_change_ms = p->first_change_ms;
	}
	j->rebalance = p->rebalance_due;
	p->rebalance_due = 0;
	j->chain = strdup(p->chain);
	j->options = strdup(p->options);
	j->lmc = p->lmc;
	j->policy = p->policy;
	j->keep = p->keep;
	j->max_age_days = p->max_age_days;
	return j->chain && j->options ? 0 : -1;
}

/* With @mu held: hand a given fabric's result to pipe_route_fabric(). */
void pipe_answer_sync(struct pipeline *p, struct epoch *e, const struct fab_err *err)
{
	p->sync_result = e;
	p->sync_err = *err;
	p->sync_done = 1;
	pthread_cond_broadcast(&p->done_cv);
}

static void *worker_main(void *arg)
{
	struct pipeline *p = arg;

	for (;;) {
		struct fab_err err = { { 0 } };
		struct epoch *e = NULL;
		struct job j;
		int sync, ok;

		pthread_mutex_lock(&p->mu);
		while (!p->quit && !p->job && !p->sync_fabric)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->quit) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		sync = p->sync_fabric != NULL;
		ok = take_job(p, &j) == 0;
		pthread_mutex_unlock(&p->mu);
		if (ok)
			e = reroute(p, &j, &err);
		else
			fab_err_set(&err, "out of memory");
		job_free(&j);
		pthread_mutex_lock(&p->mu);
		if (sync && !e)
			pipe_answer_sync(p, NULL, &err);	/* on success it was answered at publication */
		epoch_unref(e);
		p->busy = p->job;	/* a reroute the timer already handed over stays due */
		p->completed = 1;
		pthread_mutex_unlock(&p->mu);
		wake_loop(p);
	}
}

/* --- the loop's side ---------------------------------------------------- */

/* With @mu held: arm the hold-down timer for a pending change. */
void pipe_schedule(struct pipeline *p)
{
	if (p->pending && !p->busy && !loop_timer_armed(p->timer))
		loop_timer_arm(p->timer, p->last_start_ms + p->holddown_ms - loop_now_ms());
}

static void on_timer(struct loop *l, void *ud)
{
	struct pipeline *p = ud;

	pthread_mutex_lock(&p->mu);
	if (p->pending && !p->busy) {
		p->pending = 0;
		p->busy = p->job = 1;
		p->last_start_ms = loop_now_ms();
		pthread_cond_signal(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
}

static void on_wake(struct loop *l, int fd, void *ud)
{
	struct pipeline *p = ud;
	uint64_t n;
	int completed;

	if (read(fd, &n, sizeof(n)) < 0)
		return;
	pthread_mutex_lock(&p->mu);
	completed = p->completed;
	p->completed = 0;
	pipe_schedule(p);
	pipe_rebalance_timer_update(p);
	pthread_mutex_unlock(&p->mu);
	if (completed && p->cb) {
		struct epoch *e = epoch_slot_get(p->slot);

		p->cb(p->cb_ud, e);
		epoch_unref(e);
	}
}

struct epoch *pipe_route_fabric(struct pipeline *p, struct fabric *f, struct fab_err *err)
{
	struct epoch *e;

	pthread_mutex_lock(&p->sync_mu);
	pthread_mutex_lock(&p->mu);
	p->sync_fabric = f;
	p->sync_done = 0;
	pthread_cond_signal(&p->cv);
	while (!p->sync_done && !p->quit)
		pthread_cond_wait(&p->done_cv, &p->mu);
	e = p->sync_result;
	p->sync_result = NULL;
	if (!p->sync_done) {
		fab_free(p->sync_fabric);	/* stopping: never taken */
		p->sync_fabric = NULL;
		fab_err_set(err, "fabrouted is stopping");
	} else if (!e) {
		*err = p->sync_err;
	}
	pthread_mutex_unlock(&p->mu);
	pthread_mutex_unlock(&p->sync_mu);
	return e;
}

void pipe_request(struct pipeline *p, const char *reason)
{
	pthread_mutex_lock(&p->mu);
	if (!p->pending) {
		p->first_change_ms = loop_now_fms();
		snprintf(p->reason, sizeof(p->reason), "%s", reason);
	}
	p->pending = 1;
	p->stats.requests++;
	p->rebalance_arm = -1;	/* not stable: a repair re-arms it */
	pthread_mutex_unlock(&p->mu);
	wake_loop(p);
}

void pipe_set_done_cb(struct pipeline *p, void (*cb)(void *ud, const struct epoch *e), void *ud)
{
	p->cb = cb;
	p->cb_ud = ud;
}

void pipe_stats(struct pipeline *p, struct pipe_stats *out)
{
	pthread_mutex_lock(&p->mu);
	*out = p->stats;
	out->busy = p->busy;
	pthread_mutex_unlock(&p->mu);
}

void pipe_chain(struct pipeline *p, char *buf, size_t size)
{
	pthread_mutex_lock(&p->mu);
	snprintf(buf, size, "%s", p->chain);
	pthread_mutex_unlock(&p->mu);
}

/* --- settings, restore, life cycle --------------------------------------- */

static int check_chain(const char *chain, const char *options, struct fab_err *err)
{
	struct eng_chain c;

	if (eng_chain_parse_str(&c, chain, options, err))
		return -1;
	eng_chain_free(&c);
	return 0;
}

int pipe_settings_set(struct pipeline *p, const struct pipe_settings *set, int *changed,
		      struct fab_err *err)
{
	char *chain, *options;
	int diff;

	if (check_chain(set->chain, set->options, err))
		return -1;
	chain = strdup(set->chain);
	options = strdup(set->options);
	if (!chain || !options) {
		free(chain);
		free(options);
		fab_err_set(err, "out of memory");
		return -1;
	}
	pthread_mutex_lock(&p->mu);
	diff = !p->chain || strcmp(p->chain, chain) || strcmp(p->options, options) ||
	       p->lmc != set->lmc || p->policy != set->policy;
	free(p->chain);
	free(p->options);
	p->chain = chain;
	p->options = options;
	p->lmc = set->lmc;
	p->policy = set->policy;
	p->holddown_ms = set->holddown_ms;
	p->keep = set->keep;
	p->max_age_days = set->max_age_days;
	p->repair = set->repair;
	p->rebalance_delay_s = set->rebalance_delay_s;
	p->rebalance_max_blocks = set->rebalance_max_blocks;
	p->drop_base |= diff;	/* the next routing is the chain's */
	pthread_mutex_unlock(&p->mu);
	if (changed)
		*changed = diff;
	return 0;
}

/* Every endpoint of @a has the same LID and LMC in @b (found by port GUID). */
static int same_lids(const struct fabric *a, const struct fabric *b)
{
	if (a->neps != b->neps)
		return 0;
	for (uint32_t e = 0; e < a->neps; e++) {
		const struct fab_port *pa = fab_port(a, a->eps[e].node, a->eps[e].port);
		uint32_t eb = fab_ep_by_port_guid(b, pa->guid);

		if (eb == FAB_NONE || fab_ep_lid(b, eb) != pa->lid || fab_ep_lmc(b, eb) != pa->lmc)
			return 0;
	}
	return 1;
}

/* The stored snapshot @id matches the fabric the source gives now. */
static int snapshot_matches(struct pipeline *p, const struct store_snap *snap, struct fab_err *err)
{
	struct fabric *f = srcf_fabric(p->src, err);
	int ok = f && pipe_assign_lids(p, f, p->lmc, err) == 0 &&
		 fab_topology_hash(f) == snap->topo_hash && same_lids(f, snap->f);

	fab_free(f);
	return ok;
}

static int meets_policy(const struct an_report *rep, int policy)
{
	if (policy == ENG_ACCEPT_ANY)
		return 1;
	return an_connected(rep) && (policy != ENG_ACCEPT_PROVEN || rep->cdg.deadlock_free);
}

int pipe_restore(struct pipeline *p)
{
	struct store_snap snap = { 0 };
	struct fab_err err = { { 0 } };
	char *stored = NULL, *key = routing_key(p->chain, p->options, p->lmc);
	int64_t id = store_snapshot_latest(p->st, &err);
	struct epoch *e = NULL;
	int done = 0;

	if (!p->src || id <= 0 || !key || store_setting_get(p->st, "routing_key", &stored, &err) ||
	    !stored || strcmp(stored, key) || store_snapshot_load(p->st, id, &snap, &err) ||
	    !snapshot_matches(p, &snap, &err) || !(e = epoch_new()))
		goto out;
	e->fabric = snap.f;
	e->routing = snap.r;
	snap.f = NULL;
	snap.r = NULL;
	e->seq = snap.seq;
	e->snapshot_id = id;
	e->compute_ms = snap.compute_ms;
	snprintf(e->chain, sizeof(e->chain), "%s", snap.chain);
	snprintf(e->engine, sizeof(e->engine), "%s", snap.engine);
	e->engine_log = strdup("restored from the store");
	if (evaluate(e, &err))
		goto out;
	if (!meets_policy(&e->report, p->policy)) {
		fab_err_set(&err, "it does not meet publish_policy");
		goto out;
	}
	if (publish(p, e, "restore", &err))
		goto out;
	if (!repair_routing(e->routing))	/* a stored repair's base is not known */
		p->base = epoch_ref(e);
	log_notice("epoch %llu restored from snapshot %lld without recomputing (evaluated in %.0f ms)",
		   (unsigned long long)e->seq, (long long)id, e->eval_ms);
	pipe_event(p->st, "daemon", NULL, "epoch %llu restored from snapshot %lld without recomputing",
		     (unsigned long long)e->seq, (long long)id);
	done = 1;
out:
	if (err.msg[0] && !done)
		log_info("not restoring the stored routing: %s", err.msg);
	epoch_unref(e);
	store_snap_free(&snap);
	free(stored);
	free(key);
	return done;
}

/* What pipe_new() made, the worker aside. */
static void release(struct pipeline *p)
{
	if (p->wake_fd >= 0)
		close(p->wake_fd);
	free(p->chain);
	free(p->options);
	pthread_cond_destroy(&p->cv);
	pthread_cond_destroy(&p->done_cv);
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->sync_mu);
	free(p);
}

struct pipeline *pipe_new(struct loop *l, struct epoch_slot *slot, struct store *st,
			  struct srcf *src, const struct pipe_settings *set, struct fab_err *err)
{
	struct pipeline *p = calloc(1, sizeof(*p));

	if (!p) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	*p = (struct pipeline){ .loop = l, .slot = slot, .st = st, .src = src, .wake_fd = -1 };
	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->sync_mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_cond_init(&p->done_cv, NULL);
	p->last_start_ms = loop_now_ms() - 3600000;
	if (pipe_settings_set(p, set, NULL, err))
		goto fail;
	p->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->timer = loop_timer_new(l, on_timer, p);
	p->rebalance_timer = loop_timer_new(l, pipe_on_rebalance, p);
	if (p->wake_fd < 0 || !p->timer || !p->rebalance_timer ||
	    loop_add_fd(l, p->wake_fd, on_wake, p) ||
	    pthread_create(&p->worker, NULL, worker_main, p)) {
		fab_err_set(err, "cannot start the reroute worker");
		if (p->wake_fd >= 0)
			loop_del_fd(l, p->wake_fd);
		goto fail;
	}
	return p;
fail:
	release(p);
	return NULL;
}

void pipe_free(struct pipeline *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = 1;
	pthread_cond_signal(&p->cv);
	pthread_cond_broadcast(&p->done_cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->worker, NULL);
	loop_del_fd(p->loop, p->wake_fd);
	loop_timer_disarm(p->timer);
	loop_timer_disarm(p->rebalance_timer);
	epoch_unref(p->base);
	release(p);
}
