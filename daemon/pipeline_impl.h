/* SPDX-License-Identifier: MIT */
/*
 * The reroute pipeline's insides, shared by daemon/pipeline.c (the worker,
 * the hold-down, publication) and daemon/pipeline_repair.c (repair now,
 * rebalance later). Nothing outside those two files includes it.
 */
#ifndef FABROUTE_DAEMON_PIPELINE_IMPL_H
#define FABROUTE_DAEMON_PIPELINE_IMPL_H

#include <pthread.h>

#include "daemon/pipeline.h"
#include "daemon/repair.h"
#include "engines/engine.h"

struct pipeline {
	struct loop *loop;
	struct epoch_slot *slot;
	struct store *st;
	struct srcf *src;
	pthread_t worker;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int wake_fd;
	struct loop_timer *timer;
	char *chain, *options;
	unsigned lmc, holddown_ms, keep, max_age_days;
	int policy;
	int pending, job, busy, quit, completed;
	char reason[32];
	double first_change_ms;
	int64_t last_start_ms;
	struct pipe_stats stats;
	void (*cb)(void *ud, const struct epoch *e);
	void *cb_ud;
	/* pipe_route_fabric(): one caller at a time (sync_mu), answered through done_cv */
	pthread_mutex_t sync_mu;
	pthread_cond_t done_cv;
	struct fabric *sync_fabric;
	struct epoch *sync_result;
	int sync_done;
	struct fab_err sync_err;
	/*
	 * repair now, rebalance later (the repair_*() and rebalance_*()
	 * functions): settings and @rebalance_due, @rebalance_arm under @mu;
	 * @base, @repaired, @drop_base the worker's
	 */
	int repair;
	unsigned rebalance_delay_s, rebalance_max_blocks;
	struct epoch *base;		/* the last full routing: what repairs start from */
	int repaired;			/* the current epoch is a repair of @base */
	int drop_base;			/* the routing inputs changed: no repair before a full routing */
	int rebalance_due;		/* the rebalance timer fired */
	int rebalance_arm;		/* for the loop: 1 arm the timer, -1 disarm it */
	struct loop_timer *rebalance_timer;
	void (*sweep)(void *ud);	/* ask the source (OpenSM) for a routing pass */
	void *sweep_ud;
};

/* What a job published: a full routing, a repair, an adopted rebalance, nothing new. */
enum job_kind { JOB_FULL = 0, JOB_REPAIR, JOB_REBALANCE, JOB_KEEP };

/**
 * struct job - one reroute's inputs, copied out of the pipeline
 */
struct job {
	char reason[32];
	char *chain, *options;
	unsigned lmc, keep, max_age_days;
	int policy;
	double first_change_ms;
	struct fabric *fabric;	/* given (routed with its own LIDs), or NULL: the source's */
	int given;
	int sync;		/* pipe_route_fabric() waits: answer it right after publication */
	int rebalance;		/* a rebalance is due */
	enum job_kind kind;
	struct repair_result rr;	/* JOB_REPAIR: the repair's figures */
	struct rebalance_verdict rv;	/* JOB_REBALANCE, JOB_KEEP: the verdict */
};

/* pipeline.c */
int pipe_assign_lids(struct pipeline *p, struct fabric *f, unsigned lmc, struct fab_err *err);
int pipe_route_chain(struct pipeline *p, const struct fabric *f, const struct job *j,
		     struct epoch *e, struct fab_err *err);
void pipe_answer_sync(struct pipeline *p, struct epoch *e, const struct fab_err *err);
void pipe_schedule(struct pipeline *p);

/* pipeline_repair.c */
int pipe_route(struct pipeline *p, const struct fabric *f, struct job *j, struct epoch *e,
	       struct fab_err *err);
void pipe_repair_after(struct pipeline *p, struct epoch *e, struct job *j, double latency);
struct epoch *pipe_rebalance_keep(struct pipeline *p, struct job *j);
void pipe_rebalance_timer_update(struct pipeline *p);
void pipe_on_rebalance(struct loop *l, void *ud);

#endif
