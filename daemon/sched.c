/* SPDX-License-Identifier: MIT */
/**
 * DOC: the reroute scheduler
 *
 * Three threads meet here. API threads and the loop call pipe_request();
 * the loop's thread owns the hold-down and rebalance timers and hands a
 * reroute to the worker; the worker runs it (daemon/job.c), then wakes the
 * loop through an eventfd so it can start the next coalesced reroute and
 * arm or disarm the rebalance timer as the reroute asked. OpenSM's passes
 * (pipe_route_fabric()) skip the hold-down and wait for their answer.
 * With nothing else to do, the worker counts the sums the next repair of
 * the epoch in force is proven from (count_due()), then has the repair
 * engine prepare the next repair of the base (prepare_due()); a reroute,
 * an OpenSM pass or its verdict stops either (p->wanted).
 * pipeline.mu guards the settings, the scheduler's state and the counters;
 * nothing slow runs under it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "svc/clock.h"
#include "daemon/pipeline_impl.h"

static void wake_loop(struct pipeline *p)
{
	uint64_t one = 1;

	if (write(p->wake_fd, &one, sizeof(one)) < 0)
		return;	/* counter already non-zero: the loop wakes anyway */
}

/* --- the worker ----------------------------------------------------------- */

/*
 * With @mu held: hand the worker a reroute, an OpenSM pass, its verdict or
 * the stop; it leaves any idle work.
 */
static void wake_worker(struct pipeline *p)
{
	__atomic_store_n(&p->wanted, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&p->cv);
}

/*
 * With @mu held and nothing else to do: count the sums of p->state_due
 * (job_make_state()). Work that comes before half are counted stops it;
 * the epoch then stays due.
 */
static void count_due(struct pipeline *p)
{
	struct epoch *e = p->state_due;

	__atomic_store_n(&p->wanted, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&p->mu);
	if (!job_make_state(e, p)) {
		p->state_due = NULL;	/* the worker's alone */
		epoch_unref(e);
	}
	pthread_mutex_lock(&p->mu);
}

/* With @mu held and nothing else to do: go on preparing the base's next repair. */
static void prepare_due(struct pipeline *p)
{
	int due;

	p->prep_due = 0;
	__atomic_store_n(&p->wanted, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&p->mu);
	due = job_prepare_repair(p);
	pthread_mutex_lock(&p->mu);
	p->prep_due |= due;	/* or asked again meanwhile (pipe_restore()) */
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
		while (!p->sched.quit && !p->sched.job && !p->sync.fabric && !p->verdict.due) {
			if (p->state_due)
				count_due(p);
			else if (p->prep_due)
				prepare_due(p);
			else
				pthread_cond_wait(&p->cv, &p->mu);
		}
		if (p->sched.quit) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		if (p->verdict.due) {	/* OpenSM said what it installed: before any new pass */
			struct pipe_verdict v = p->verdict;

			p->verdict.due = 0;
			pthread_mutex_unlock(&p->mu);
			job_settle(p, v.seq, v.installed);
			pthread_mutex_lock(&p->mu);
			p->sched.completed = 1;
			pthread_mutex_unlock(&p->mu);
			wake_loop(p);
			continue;
		}
		sync = p->sync.fabric != NULL;
		__atomic_store_n(&p->wanted, 0, __ATOMIC_RELAXED);	/* work that comes next stops preparing */
		ok = job_take(p, &j) == 0;
		pthread_mutex_unlock(&p->mu);
		if (ok)
			e = job_run(p, &j, &err);
		else
			fab_err_set(&err, "out of memory");
		job_free(&j);
		pthread_mutex_lock(&p->mu);
		if (sync && !e)
			job_answer_sync(p, NULL, &err);	/* on success it was answered at publication */
		epoch_unref(e);
		p->sched.busy = p->sched.job;	/* a reroute the timer already handed over stays due */
		p->sched.completed = 1;
		pthread_mutex_unlock(&p->mu);
		wake_loop(p);
	}
}

/* --- the loop's side ---------------------------------------------------- */

/* With @mu held: arm the hold-down timer for a pending change. */
static void schedule(struct pipeline *p)
{
	if (p->sched.pending && !p->sched.busy && !loop_timer_armed(p->timer))
		loop_timer_arm(p->timer, p->sched.last_start_ms + p->set.holddown_ms - loop_now_ms());
}

/* With @mu held: arm or disarm the rebalance timer as the last reroute asked. */
static void rebalance_timer_update(struct pipeline *p)
{
	if (p->sched.rebalance_arm > 0 && p->set.rebalance_delay_s)
		loop_timer_arm(p->rebalance_timer, (int64_t)p->set.rebalance_delay_s * 1000);
	else if (p->sched.rebalance_arm)
		loop_timer_disarm(p->rebalance_timer);
	p->sched.rebalance_arm = 0;
}

static void on_timer(struct loop *l, void *ud)
{
	struct pipeline *p = ud;

	(void)l;
	pthread_mutex_lock(&p->mu);
	if (p->sched.pending && !p->sched.busy) {
		p->sched.pending = 0;
		p->sched.busy = p->sched.job = 1;
		p->sched.last_start_ms = loop_now_ms();
		wake_worker(p);
	}
	pthread_mutex_unlock(&p->mu);
}

/* The fabric stayed as the repair left it for rebalance_delay_s: route with the chain. */
static void on_rebalance(struct loop *l, void *ud)
{
	struct pipeline *p = ud;
	void (*sweep)(void *ud);

	(void)l;
	pthread_mutex_lock(&p->mu);
	p->sched.rebalance_due = 1;
	sweep = p->sweep;
	if (!sweep) {
		if (!p->sched.pending) {
			p->sched.first_change_ms = loop_now_fms();
			snprintf(p->sched.reason, sizeof(p->sched.reason), "rebalance");
		}
		p->sched.pending = 1;
		schedule(p);
	}
	pthread_mutex_unlock(&p->mu);
	if (sweep)
		sweep(p->sweep_ud);
}

static void on_wake(struct loop *l, int fd, void *ud)
{
	struct pipeline *p = ud;
	uint64_t n;
	int completed;

	(void)l;
	if (read(fd, &n, sizeof(n)) < 0)
		return;
	pthread_mutex_lock(&p->mu);
	completed = p->sched.completed;
	p->sched.completed = 0;
	schedule(p);
	rebalance_timer_update(p);
	pthread_mutex_unlock(&p->mu);
	if (completed && p->cb) {
		struct epoch *e = epoch_slot_get(p->slot);

		p->cb(p->cb_ud, e);
		epoch_unref(e);
	}
}

/* --- what the daemon calls -------------------------------------------------- */

/* Hand @f to the worker now and wait for its answer. */
static struct epoch *route_now(struct pipeline *p, struct fabric *f, struct rt_routing *r,
			       int repair_only, uint64_t seq, int hold, struct fab_err *err)
{
	struct epoch *e;

	pthread_mutex_lock(&p->sync.call_mu);
	pthread_mutex_lock(&p->mu);
	p->sync.fabric = f;
	p->sync.repair_only = repair_only;
	p->sync.seq = seq;
	p->sync.hold = hold;
	p->sync.routing = r;
	p->sync.done = 0;
	wake_worker(p);
	while (!p->sync.done && !p->sched.quit)
		pthread_cond_wait(&p->sync.cv, &p->mu);
	e = p->sync.result;
	p->sync.result = NULL;
	if (!p->sync.done) {
		fab_free(p->sync.fabric);	/* stopping: never taken */
		rt_free(p->sync.routing);
		p->sync.fabric = NULL;
		p->sync.routing = NULL;
		fab_err_set(err, "fabrouted is stopping");
	} else if (!e) {
		*err = p->sync.err;
	}
	pthread_mutex_unlock(&p->mu);
	pthread_mutex_unlock(&p->sync.call_mu);
	return e;
}

struct epoch *pipe_route_fabric(struct pipeline *p, struct fabric *f, struct fab_err *err)
{
	return route_now(p, f, NULL, 0, 0, 1, err);
}

struct epoch *pipe_repair_fabric(struct pipeline *p, struct fabric *f, struct fab_err *err)
{
	return route_now(p, f, NULL, 1, 0, 0, err);
}

void pipe_repair_written(struct pipeline *p)
{
	pthread_mutex_lock(&p->mu);
	p->sync.writing = 0;
	pthread_cond_broadcast(&p->sync.cv);
	pthread_mutex_unlock(&p->mu);
}

struct epoch *pipe_mirror(struct pipeline *p, struct fabric *f, uint64_t seq, int repair,
			  struct fab_err *err)
{
	return route_now(p, f, NULL, repair, seq ? seq : 1, 0, err);
}

struct epoch *pipe_adopt(struct pipeline *p, struct fabric *f, struct rt_routing *r, struct fab_err *err)
{
	return route_now(p, f, r, 0, 0, 0, err);
}

void pipe_installed(struct pipeline *p, uint64_t seq, int installed)
{
	pthread_mutex_lock(&p->mu);
	p->verdict = (struct pipe_verdict){ 1, installed, seq };
	wake_worker(p);	/* before the idle work: the answer is published the sooner */
	pthread_mutex_unlock(&p->mu);
}

void pipe_request(struct pipeline *p, const char *reason)
{
	pthread_mutex_lock(&p->mu);
	if (!p->sched.pending) {
		p->sched.first_change_ms = loop_now_fms();
		snprintf(p->sched.reason, sizeof(p->sched.reason), "%s", reason);
	}
	p->sched.pending = 1;
	p->stats.requests++;
	p->sched.rebalance_arm = -1;	/* not stable: a repair re-arms it */
	pthread_mutex_unlock(&p->mu);
	wake_loop(p);
}

void pipe_ask(struct pipeline *p, const char *reason)
{
	void (*sweep)(void *ud);

	pthread_mutex_lock(&p->mu);
	sweep = p->sweep;
	pthread_mutex_unlock(&p->mu);
	if (sweep)
		sweep(p->sweep_ud);
	else
		pipe_request(p, reason);
}

void pipe_set_done_cb(struct pipeline *p, void (*cb)(void *ud, const struct epoch *e), void *ud)
{
	p->cb = cb;
	p->cb_ud = ud;
}

void pipe_set_dropped_cb(struct pipeline *p, void (*cb)(void *ud, struct epoch *e), void *ud)
{
	p->dropped = cb;
	p->dropped_ud = ud;
}

void pipe_set_sweep_cb(struct pipeline *p, void (*cb)(void *ud), void *ud)
{
	p->sweep = cb;
	p->sweep_ud = ud;
}

void pipe_stats(struct pipeline *p, struct pipe_stats *out)
{
	pthread_mutex_lock(&p->mu);
	*out = p->stats;
	out->busy = p->sched.busy;
	pthread_mutex_unlock(&p->mu);
	out->storing = snapw_busy(p->writer);
}

void pipe_flush(struct pipeline *p)
{
	snapw_wait(p->writer);
}

int pipe_settings_get(struct pipeline *p, struct pipe_settings *out)
{
	pthread_mutex_lock(&p->mu);
	*out = p->set;
	out->chain = strdup(p->set.chain);
	out->options = strdup(p->set.options);
	pthread_mutex_unlock(&p->mu);
	if (out->chain && out->options)
		return 0;
	free((char *)out->chain);
	free((char *)out->options);
	return -1;
}

void pipe_chain(struct pipeline *p, char *buf, size_t size)
{
	pthread_mutex_lock(&p->mu);
	snprintf(buf, size, "%s", p->set.chain);
	pthread_mutex_unlock(&p->mu);
}

/* --- settings, life cycle ---------------------------------------------------- */

static int check_chain(const struct pipe_settings *set, struct fab_err *err)
{
	struct eng_chain c;

	if (eng_chain_parse_files(&c, set->chain, set->options, set->files, err))
		return -1;
	eng_chain_free(&c);
	return 0;
}

int pipe_settings_set(struct pipeline *p, const struct pipe_settings *set, int *changed,
		      struct fab_err *err)
{
	struct pipe_settings old, s = *set;
	int diff;

	if (check_chain(set, err))
		return -1;
	s.chain = strdup(set->chain);
	s.options = strdup(set->options);
	if (!s.chain || !s.options) {
		free((char *)s.chain);
		free((char *)s.options);
		fab_err_set(err, "out of memory");
		return -1;
	}
	pthread_mutex_lock(&p->mu);
	old = p->set;
	diff = !old.chain || strcmp(old.chain, s.chain) || strcmp(old.options, s.options) ||
	       old.lmc != s.lmc || old.policy != s.policy;
	p->set = s;
	p->sched.drop_base |= diff;	/* the next routing is the chain's */
	pthread_mutex_unlock(&p->mu);
	free((char *)old.chain);
	free((char *)old.options);
	if (changed)
		*changed = diff;
	return 0;
}

/* What pipe_new() made, the worker aside. */
static void release(struct pipeline *p)
{
	if (p->wake_fd >= 0)
		close(p->wake_fd);
	free((char *)p->set.chain);
	free((char *)p->set.options);
	pthread_cond_destroy(&p->cv);
	pthread_cond_destroy(&p->sync.cv);
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->sync.call_mu);
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
	pthread_mutex_init(&p->sync.call_mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	svc_cond_init_monotonic(&p->sync.cv);	/* wait_written()'s deadline */
	p->sched.last_start_ms = loop_now_ms() - 3600000;
	if (pipe_settings_set(p, set, NULL, err) || !(p->writer = snapw_start(st, err)))
		goto fail;
	p->sched.drop_base = 0;
	p->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->timer = loop_timer_new(l, on_timer, p);
	p->rebalance_timer = loop_timer_new(l, on_rebalance, p);
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
	snapw_stop(p->writer);
	release(p);
	return NULL;
}

void pipe_free(struct pipeline *p)
{
	if (!p)
		return;
	__atomic_store_n(&p->cancel, 1, __ATOMIC_RELAXED);	/* an engine still running stops soon */
	pthread_mutex_lock(&p->mu);
	p->sched.quit = 1;
	wake_worker(p);
	pthread_cond_broadcast(&p->sync.cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->worker, NULL);
	epoch_unref(p->state_due);
	snapw_stop(p->writer);	/* what the worker handed over is stored */
	job_held_free(p);
	loop_del_fd(p->loop, p->wake_fd);
	loop_timer_disarm(p->timer);
	loop_timer_disarm(p->rebalance_timer);
	job_base_set(p, NULL);
	release(p);
}
