/* SPDX-License-Identifier: MIT */
/*
 * The reroute pipeline's insides, shared by its three files and nothing else:
 * daemon/sched.c (the scheduler: changes, hold-down, timers, the worker
 * thread), daemon/job.c (one reroute, read top to bottom) and
 * daemon/repair.c (the repair and rebalance decisions, daemon/repair.h).
 */
#ifndef FABROUTE_DAEMON_PIPELINE_IMPL_H
#define FABROUTE_DAEMON_PIPELINE_IMPL_H

#include <pthread.h>

#include "daemon/pipeline.h"
#include "daemon/repair.h"
#include "daemon/snapw.h"
#include "engines/engine.h"

/*
 * struct sched - the scheduler's state, under pipeline.mu
 * @pending: a change waits for the hold-down
 * @job: the worker has been handed a reroute; @busy: a reroute runs
 * @completed: a reroute finished since the loop last looked
 * @reason, @first_change_ms: the first change of the pending reroute
 * @last_start_ms: when the last reroute started (the hold-down counts from it)
 * @rebalance_due: the rebalance timer fired
 * @rebalance_arm: for the loop: 1 arm the rebalance timer, -1 disarm it
 * @drop_base: the routing inputs changed: no repair before a full routing
 */
struct sched {
	int pending, job, busy, quit, completed;
	char reason[32];
	double first_change_ms;
	int64_t last_start_ms;
	int rebalance_due, rebalance_arm, drop_base;
};

/*
 * pipe_route_fabric() and pipe_repair_fabric(): one caller at a time
 * (@call_mu), answered through @cv under pipeline.mu; @repair_only for the
 * latter
 */
struct sync_req {
	pthread_mutex_t call_mu;
	pthread_cond_t cv;
	struct fabric *fabric;
	int repair_only;
	int hold;	/* pipe_route_fabric(): OpenSM's pass, held until installed */
	struct rt_routing *routing;	/* pipe_adopt(): the tables to publish */
	uint64_t seq;	/* pipe_mirror(): the master's number */
	struct epoch *result;
	int done;
	int writing;	/* a repair answered: its caller writes it to the switches (pipe_repair_written()) */
	struct fab_err err;
};

/*
 * struct pipe_base - the previous routing, the worker's alone
 * @epoch: the last routing the chain made (a full routing or an adopted
 *         rebalance): what a repair repairs and what the chain is given as
 *         the previous routing; NULL before the first or after the routing
 *         inputs changed
 * @repaired: the current epoch is a repair of @epoch
 * @memo: what the repair engine keeps of @epoch between its repairs
 */
struct pipe_base {
	struct epoch *epoch;
	int repaired;
	struct eng_memo memo;
};

/* What a reroute published: a full routing, a repair, an adopted rebalance, nothing new. */
enum job_kind { JOB_FULL = 0, JOB_REPAIR, JOB_REBALANCE, JOB_KEEP, JOB_FALLBACK };

/*
 * struct job - one reroute: its inputs, copied out of the pipeline under
 * its lock, and what it decided
 * @fabric: given (OpenSM's, routed with its own LIDs), or NULL: the source's
 * @sync: pipe_route_fabric() waits: answer it right after publication
 * @repair_only: pipe_repair_fabric(): a repair or nothing
 * @writes: pipe_repair_fabric()'s caller writes the repair next: stored
 *          once it is written (pipe_repair_written())
 * @seq: pipe_mirror(): publish under this number
 * @hold: OpenSM's pass: answered, then published only once OpenSM says it
 *        installed it (pipe_installed())
 * @routing: pipe_adopt(): OpenSM's own engine's tables for @fabric
 * @rebalance: a rebalance is due; @drop_base: the routing inputs changed
 * @refused: why a repair was not published (empty when none was tried)
 * @why_not: why none was tried
 * @diff: JOB_REPAIR: what changed from the base (job_diff(), once answered);
 * @diffed: @diff is counted; @rv: the rebalance verdict
 */
struct job {
	char reason[32];
	struct pipe_settings set;
	double first_change_ms;
	struct fabric *fabric;
	int given, sync, repair_only, writes, rebalance, drop_base, hold;
	struct rt_routing *routing;
	uint64_t seq;
	enum job_kind kind;
	char refused[512], why_not[128];
	struct rt_diff diff;
	int diffed;
	struct rebalance_verdict rv;
};

/*
 * struct pipe_held - OpenSM's answer not yet installed, the worker's alone
 * @e: the epoch answered (its number allocated, not published), NULL: none
 * @j: its reroute, to publish it as job_run() would have
 */
struct pipe_held {
	struct epoch *e;
	struct job j;
};

/*
 * struct pipe_verdict - what OpenSM did with an answer, under pipeline.mu
 * @due: a verdict waits for the worker
 * @seq, @installed: see pipe_installed()
 */
struct pipe_verdict {
	int due, installed;
	uint64_t seq;
};

struct pipeline {
	struct loop *loop;		/* borrowed, as @slot, @st, @src */
	struct epoch_slot *slot;
	struct store *st;
	struct srcf *src;
	pthread_mutex_t mu;		/* guards @set, @sched, @stats, @sync's fields, @verdict */
	pthread_cond_t cv;		/* wakes the worker */
	struct pipe_settings set;	/* @set.chain and @set.options owned */
	struct sched sched;
	struct pipe_stats stats;
	struct sync_req sync;
	int cancel;			/* set by pipe_free(): the routing run in progress stops */
	pthread_t worker;
	struct snapw *writer;		/* stores what the worker publishes */
	struct epoch *state_due;	/* the worker's: the sums of this epoch to count when idle */
	int prep_due;			/* under @mu: the base's repairs to prepare when idle */
	int wanted;			/* atomic: a reroute, a pass or a verdict came for the worker */
	int state_stop;			/* atomic: the counting in progress stops (job.c) */
	struct pipe_base base;
	struct pipe_held held;
	struct pipe_verdict verdict;
	int wake_fd;			/* the worker wakes the loop */
	struct loop_timer *timer, *rebalance_timer;
	void (*sweep)(void *ud);	/* ask the source (OpenSM) for a routing pass */
	void *sweep_ud;
	void (*cb)(void *ud, const struct epoch *e);
	void *cb_ud;
	void (*dropped)(void *ud, struct epoch *e);	/* an answer OpenSM did not install */
	void *dropped_ud;
};

/* job.c */
/** job_take() - with pipeline.mu held: the next reroute's inputs (a given fabric first). 0, or -1 out of memory. */
int job_take(struct pipeline *p, struct job *j);
void job_free(struct job *j);
/**
 * job_run() - route, publish, store and record one reroute: the published
 * epoch (a reference), or NULL with @err; an OpenSM pass's answer is held
 * (p->held) instead of published, and returned
 */
struct epoch *job_run(struct pipeline *p, struct job *j, struct fab_err *err);
/** job_answer_sync() - with pipeline.mu held: hand a given fabric's result to pipe_route_fabric(). */
void job_answer_sync(struct pipeline *p, struct epoch *e, const struct fab_err *err);
/** job_settle() - pipe_installed()'s verdict: the held answer published, dropped, or left waiting. */
void job_settle(struct pipeline *p, uint64_t seq, int installed);
/** job_base_set() - the base becomes @e (referenced; NULL: none), not repaired, nothing kept of the last. */
void job_base_set(struct pipeline *p, struct epoch *e);
/** job_held_free() - drop the held answer, unpublished. */
void job_held_free(struct pipeline *p);
/** How every routing the daemon publishes is evaluated (with the state an incremental proof takes over). */
extern const struct an_opts job_eval_opts;
/** job_epoch_from() - a new epoch holding what a routing run gave (taken from @res); NULL with @err. */
struct epoch *job_epoch_from(struct eng_res *res, const char *chain, struct fab_err *err);
/** job_publish_epoch() - make @e current, its number from the store first; 0, or -1 with @err. */
int job_publish_epoch(struct pipeline *p, struct epoch *e, const char *reason, struct fab_err *err);

/**
 * job_make_state() - the sums the next repair of @e is proven from, when
 * @e's proof was made without them (job_eval_opts.state_later). A failure
 * is logged: the next repair is then proven by a full evaluation. With @p,
 * the worker counts them when it has nothing else to do (p->state_due,
 * daemon/sched.c), and stops when a reroute or an OpenSM pass comes before
 * half are counted (p->wanted): return 1 then, and the epoch stays due.
 */
int job_make_state(struct epoch *e, struct pipeline *p);
/** job_state_due() - the sums of @e (published or answered) to count once the worker is idle. */
void job_state_due(struct pipeline *p, struct epoch *e);
/**
 * job_prepare_repair() - the worker, idle (p->prep_due, after the sums of
 * p->state_due): the repair engine prepares the base's next repair (struct
 * engine.prepare) until it is done, or work comes (p->wanted)
 * Return: 1 when stopped (still due), else 0.
 */
int job_prepare_repair(struct pipeline *p);

/* keep.c */
/** job_routing_key() - the routing inputs as one string (a stored snapshot matches it); malloc'd, NULL out of memory. */
char *job_routing_key(const struct pipe_settings *s);
/** job_inputs() - a hash of what a routing is made under besides the fabric (struct epoch's @inputs); never 0. */
uint64_t job_inputs(const struct pipe_settings *s);
/**
 * job_reuse() - for @j's pass over @f, the routing in force @cur kept (not
 * routed again) when @f is alike to the fabric it was made for, under the
 * same settings, and it is still the base or its repair: a new epoch (@j's
 * kind set), or NULL (then the pass routes as always).
 */
struct epoch *job_reuse(struct pipeline *p, struct job *j, const struct fabric *f, struct epoch *cur);

#endif
