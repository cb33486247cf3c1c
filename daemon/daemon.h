/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabrouted
 *
 * The daemon's folder: fabrouted.c (start, signals, reload), config.c (the
 * configuration keys), loop.c (the event loop), the sources of a fabric
 * (source_file.c: a topology file with simulated faults; source_osm*.c:
 * OpenSM through the plugin), the reroute pipeline (pipeline.h: sched.c
 * schedules, job.c runs one reroute through eng_run(), repair.c decides
 * repairs and rebalances), fastrepair.c (a trap's repair written to the
 * switches at once, over smp.c's SMPs), readback.c (the LFTs read back
 * from the switches) and control.c (what the API asks of the daemon).
 *
 * This header puts the modules together: what the main loop, the reload
 * and the API hooks share. Private to daemon/.
 */
#ifndef FABROUTE_DAEMON_DAEMON_H
#define FABROUTE_DAEMON_DAEMON_H

#include <pthread.h>

#include "api/server.h"
#include "daemon/config.h"
#include "daemon/engfiles.h"
#include "daemon/fastrepair.h"
#include "daemon/ha.h"
#include "svc/epoch.h"
#include "daemon/loop.h"
#include "daemon/pipeline.h"
#include "daemon/readback.h"
#include "daemon/source_file.h"
#include "daemon/source_osm.h"
#include "store/store.h"

#define DAEMON_FLAGS_MAX 64

/**
 * struct daemon - the running daemon
 * @cfg: the effective configuration (guarded by @cfg_mu: API threads read it)
 * @cfg_path: the file, NULL when none is used
 * @flags: "key", "value" pairs given on the command line, re-applied on reload
 */
struct daemon {
	pthread_mutex_t cfg_mu;
	pthread_mutex_t fault_mu;	/* a fault is applied and stored (or undone) under it */
	struct loop_timer *store_timer;	/* probes the store while it refuses writes */
	struct {			/* SIGHUP: the topology and option files are read in @thread, it may block */
		pthread_t thread;
		int running, fd;
		int api_chain;		/* the chain selected through the API stays in force */
		int failed;		/* @err says why the reload is refused */
		struct config cfg;
		struct fabric *f;
		struct fab_err err;
	} rl;
	struct config cfg;
	const char *cfg_path;
	const char *flags[2 * DAEMON_FLAGS_MAX];
	unsigned nflags;
	struct loop *loop;
	struct store *st;
	struct srcf *src;	/* source file, or */
	struct srco *osm;	/* source opensm */
	struct readback *rb;	/* LFT read-back, with source opensm */
	struct fastrep *fr;	/* the fast repair, with source opensm */
	struct engf *files;	/* the engine option files read beforehand */
	struct eng_files files_src;	/* the pipeline's parsing reads them from @files */
	int forget_engine;	/* --forget-engine: drop the chain selected through the API */
	struct ha *ha;		/* the SM nodes' replication, with replication = etcd */
	struct epoch_slot slot;
	struct pipeline *pipe;
	struct api_server *api;
	struct api_warmer *warm;	/* routes per link computed at each publication */
	int sig_fd;
	int64_t start_ms;
	int ready_sent;
	struct loop_timer *watchdog;	/* with WatchdogSec=: WATCHDOG=1 every @watchdog_ms */
	int64_t watchdog_ms;
	pthread_mutex_t whatif_mu;	/* held while a what-if runs */
};

/** daemon_hooks() - the API's hooks into @d. */
struct api_hooks daemon_hooks(struct daemon *d);

/**
 * daemon_settings() - the pipeline settings in @c, with @chain/@options
 * overriding when not NULL, file options from @d's cache (with its generation)
 */
struct pipe_settings daemon_settings(struct daemon *d, const struct config *c, const char *chain,
				     const char *options);

/* daemon/check.c */

/** daemon_tokens_check() - the token files of @c can be read and are good. 0, or -1 with @err. */
int daemon_tokens_check(const struct config *c, struct fab_err *err);
/**
 * daemon_files_prepare() - read the option files of @c's chain and, with
 * @api_chain, of the chain selected through the API (stored) into
 * @d->files. 0, or -1 with @err saying what cannot be read and what to do.
 */
int daemon_files_prepare(struct daemon *d, const struct config *c, int api_chain, struct fab_err *err);
/** daemon_check_mode() - `fabrouted -n`'s checks beyond the configuration's own. 0, or -1 with @err. */
int daemon_check_mode(const struct config *c, struct fab_err *err);

/**
 * daemon_store_json() - the store's health: {"ok", "disk_full", "errors",
 * "error" (while not ok), "epoch_stored"}
 */
json_t *daemon_store_json(struct daemon *d);

/** daemon_hook_whatif() - the API's whatif hook: POST /api/whatif (daemon/whatif.c). */
json_t *daemon_hook_whatif(void *ud, const json_t *body, struct api_err *err);

/** daemon_build_config() - the defaults, @d's file, then its flags, checked into @c; 0, or -1 with @err. */
int daemon_build_config(const struct daemon *d, struct config *c, struct fab_err *err);
/** daemon_apply_token() - @c's administrator's and read tokens into the API; 0, or -1 with @err (none changed). */
int daemon_apply_token(struct daemon *d, const struct config *c, struct fab_err *err);
/**
 * daemon_effective_settings() - the pipeline settings in force: a chain
 * selected through the API (stored) wins over @c's; *@chain and *@opts get
 * the stored strings (free them).
 */
struct pipe_settings daemon_effective_settings(struct daemon *d, const struct config *c, char **chain,
					       char **opts);
/** daemon_reload() - SIGHUP: read the configuration again (its slow half in a thread). */
void daemon_reload(struct daemon *d);
/** daemon_on_reloaded() - loop callback on the reload's eventfd: apply what the thread read, or refuse it. */
void daemon_on_reloaded(struct loop *l, int fd, void *ud);

/** daemon_read_token() - the token in @path (trimmed) into a malloc'd string; NULL with @err. */
char *daemon_read_token(const char *path, struct fab_err *err);

#endif
