/* SPDX-License-Identifier: MIT */
/**
 * DOC: reroute pipeline
 *
 * A topology change (a fault, a reload, a request through the API) calls
 * pipe_request(). The first change after a quiet period starts a reroute at
 * once; changes that arrive within holddown_ms of the last start, or while
 * a reroute runs, are coalesced into one more reroute when the hold-down
 * ends (the scheduler: daemon/sched.c). A reroute runs in the worker
 * thread (daemon/job.c): take the source's fabric, pin the stored LIDs,
 * make the routing with eng_run(), publish a new epoch, store it as a
 * snapshot, record the events. A failed or non-applicable routing keeps the
 * last good epoch and records an error event. The API never waits for any
 * of it. A fault of a fat tree is first repaired locally, and the chain's
 * routing replaces the repair once the fabric is stable (the decisions:
 * daemon/repair.h).
 */
#ifndef FABROUTE_DAEMON_PIPELINE_H
#define FABROUTE_DAEMON_PIPELINE_H

#include <stdint.h>

#include "engines/engine.h"
#include "svc/epoch.h"
#include "daemon/loop.h"
#include "daemon/source_file.h"
#include "store/store.h"

/** Upper bounds (ms) of the reroute duration histogram; the last bucket is +Inf. */
#define PIPE_HIST_BOUNDS { 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000 }
#define PIPE_HIST_N 12

/**
 * struct pipe_settings - what the pipeline routes with
 * @chain: engine chain; @options: engine options ("eng.k=v,...")
 * @lmc: LMC for CA ports that get a new LID
 * @holddown_ms: see DOC
 * @keep, @max_age_days: snapshot retention
 * @policy: enum eng_policy: what a routing must be to be published
 * @repair: publish ftdlr's repair of the last full routing on a fault
 *          (daemon/repair.h) before trying the chain
 * @rebalance_delay_s, @rebalance_max_blocks: when and how far the chain's
 *                                            routing replaces a repair
 * @files: where the chain's file options come from (read beforehand; NULL:
 *         the files themselves)
 * @files_gen: a number that changes when the files' contents change (a
 *             routing made before is then not reused for an unchanged fabric)
 * @budget: what each engine may spend (its cancel flag is the pipeline's:
 *          pipe_free() stops an engine still running)
 */
struct pipe_settings {
	const char *chain, *options;
	const struct eng_files *files;
	uint64_t files_gen;
	struct eng_budget budget;
	unsigned lmc, holddown_ms, keep, max_age_days;
	int policy;
	int repair;
	unsigned rebalance_delay_s, rebalance_max_blocks;
};

/**
 * struct pipe_stats - counters for /metrics
 * @ok, @failed: reroutes that published, that kept the old epoch
 * @requests: changes requested; @hist, @sum_ms: duration from the first
 * change to publication
 * @busy: a reroute runs; @storing: a published epoch is being stored
 */
struct pipe_stats {
	uint64_t ok, failed, requests;
	uint64_t hist[PIPE_HIST_N + 1];
	double sum_ms;
	double last_ms;
	int busy, storing;
};

struct pipeline;

/** pipe_new() - @slot, @st and @src are borrowed; starts the worker. NULL with @err. */
struct pipeline *pipe_new(struct loop *l, struct epoch_slot *slot, struct store *st,
			  struct srcf *src, const struct pipe_settings *set, struct fab_err *err);
/** pipe_free() - wait for a reroute in progress, stop the worker. */
void pipe_free(struct pipeline *p);

/**
 * pipe_settings_set() - new settings (from a reload or the API); checks the
 * engine chain and its options first. 0, or -1 with @err (nothing changed).
 * *@changed (may be NULL) tells whether the routing inputs changed.
 */
int pipe_settings_set(struct pipeline *p, const struct pipe_settings *set, int *changed,
		      struct fab_err *err);
/**
 * pipe_settings_get() - the settings in force into @out; its chain and
 * options are new strings (free() them). 0, or -1 when out of memory.
 */
int pipe_settings_get(struct pipeline *p, struct pipe_settings *out);
/** pipe_chain() - copy the current chain into @buf. */
void pipe_chain(struct pipeline *p, char *buf, size_t size);

/** pipe_restore() - publish the newest stored snapshot when nothing changed; 1 if done, 0 if not. */
int pipe_restore(struct pipeline *p);

/**
 * pipe_route_fabric() - route @f now (taken; its LIDs are kept), bypassing
 * the hold-down, and wait for the result: the OpenSM source's path. The
 * routing gets its epoch number but is not published: OpenSM installs it
 * only if the answer comes in time and passes its checks, so it becomes
 * the current epoch when pipe_installed() says OpenSM installed it, and is
 * dropped when OpenSM routed the pass with its own engine.
 * Return: the epoch to answer with (a reference), or NULL with @err (the
 * last good epoch stays).
 */
struct epoch *pipe_route_fabric(struct pipeline *p, struct fabric *f, struct fab_err *err);

/**
 * pipe_installed() - what OpenSM did with the answer pipe_route_fabric()
 * gave: installed epoch @seq (@installed 1: it is published), or did not
 * install it (@installed 0: it is dropped; @seq 0: OpenSM's own engine
 * routed its latest pass). Thread-safe; the worker acts on it before it
 * routes anything else.
 */
void pipe_installed(struct pipeline *p, uint64_t seq, int installed);

/**
 * pipe_set_dropped_cb() - call @cb (in the worker) with each answer dropped
 * because OpenSM routed that pass with its own engine: its fabric is the
 * pass's (the read-back then reads what OpenSM installed)
 */
void pipe_set_dropped_cb(struct pipeline *p, void (*cb)(void *ud, struct epoch *e), void *ud);

/**
 * pipe_adopt() - publish what OpenSM's own engine installed: routing @r of
 * fabric @f (both taken), as read back from the switches, evaluated like
 * any routing but published whatever the evaluation says (it is what the
 * switches do): kind "fallback", engine "opensm". The chain's next routing
 * starts afresh (no repair of it).
 * Return: the published epoch (a reference), or NULL with @err.
 */
struct epoch *pipe_adopt(struct pipeline *p, struct fabric *f, struct rt_routing *r, struct fab_err *err);

/**
 * pipe_repair_fabric() - publish at once the repair of the base for @f
 * (taken; its LIDs are kept): the fast path after a trap, bypassing the
 * hold-down. Only a repair is published: when none is wanted or the repair
 * engine refuses, nothing changes.
 * The caller writes it to the switches next: the worker stores, records and
 * prepares the next repair (a hundred milliseconds of CPU at 5488 CAs) only
 * once the caller says it is done (pipe_repair_written()), or after
 * PIPE_WRITE_WAIT_MS, so that this work takes no core from the writes.
 * Return: the published repair (a reference), or NULL with @err saying why.
 */
struct epoch *pipe_repair_fabric(struct pipeline *p, struct fabric *f, struct fab_err *err);
/** pipe_repair_written() - the repair pipe_repair_fabric() gave is written (or will not be). */
void pipe_repair_written(struct pipeline *p);

/* The longest the worker waits for pipe_repair_written() before storing a repair (ms). */
#define PIPE_WRITE_WAIT_MS 1000

/**
 * pipe_mirror() - a standby's copy of the master's epoch @seq: route @f
 * (taken; its LIDs are kept) with the chain, which becomes this pipeline's
 * base (@repair 0: the master's base), or publish the repair of the base
 * for it (@repair 1: the master's repair); published under the master's
 * number @seq, bypassing the hold-down.
 * Return: the published epoch (a reference), or NULL with @err.
 */
struct epoch *pipe_mirror(struct pipeline *p, struct fabric *f, uint64_t seq, int repair,
			  struct fab_err *err);

/**
 * pipe_set_sweep_cb() - with a source that routes on its own schedule
 * (OpenSM), call @cb to ask it for a routing pass when a rebalance is due
 * (in the loop's thread) or pipe_ask() is called (in its caller's); @cb
 * must be thread-safe. Without one, the pipeline reroutes itself.
 */
void pipe_set_sweep_cb(struct pipeline *p, void (*cb)(void *ud), void *ud);

/** pipe_request() - a change happened (thread-safe): reroute soon. */
void pipe_request(struct pipeline *p, const char *reason);
/**
 * pipe_ask() - a routing under new settings is wanted (thread-safe): the
 * source that routes on its own schedule is asked for a pass (the sweep
 * callback, called in the caller's thread), else pipe_request().
 */
void pipe_ask(struct pipeline *p, const char *reason);

/** pipe_event() - record an event in @st (a failure is logged); takes @details. */
void pipe_event(struct store *st, const char *type, json_t *details, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** pipe_stats() - a copy of the counters. */
void pipe_stats(struct pipeline *p, struct pipe_stats *out);
/** pipe_flush() - wait until every epoch published so far is stored (or failed to be). */
void pipe_flush(struct pipeline *p);

/**
 * pipe_set_done_cb() - call @cb in the loop's thread after each reroute,
 * with the current epoch (NULL when none was ever published)
 */
void pipe_set_done_cb(struct pipeline *p, void (*cb)(void *ud, const struct epoch *e), void *ud);

#endif
