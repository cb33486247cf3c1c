/* SPDX-License-Identifier: MIT */
/**
 * DOC: snapshots stored by a thread of their own
 *
 * Storing a published epoch compresses its LFTs and writes them with the
 * topology and the LIDs in one transaction: 0.1-0.3 s at 16,000 CAs,
 * 0.5-0.9 s at 43,904. The reroute worker hands the epoch over here and is
 * free for the next fault at once; one thread stores the epochs in the
 * order they were handed over.
 *
 * One epoch is stored at a time and none waits behind it: snapw_put()
 * waits for the one being stored, so the writer never holds more than one
 * epoch, the one in force or the one it just replaced, and the daemon holds
 * no more routings than with the store on the worker (its peak at 43,904
 * CAs grew by 20-26 MiB: the blobs being written beside a reroute). A
 * snapshot not stored is logged and recorded as an "error" event; the
 * epoch then has no snapshot id (the daemon's store timer routes again to
 * store it).
 */
#ifndef FABROUTE_DAEMON_SNAPW_H
#define FABROUTE_DAEMON_SNAPW_H

#include <jansson.h>
#include <stdint.h>

#include "store/store.h"
#include "svc/epoch.h"

/**
 * struct snapw_item - what storing an epoch takes
 * @e: the published epoch (a reference, taken)
 * @summary: the snapshot's summary (taken, the writer's own; NULL: none)
 * @key: the routing inputs (job_routing_key(), taken), stored with it
 * @keep, @max_age_ms: the pruning after it (store_prune())
 */
struct snapw_item {
	struct epoch *e;
	json_t *summary;
	char *key;
	unsigned keep;
	int64_t max_age_ms;
};

struct snapw;

/** snapw_start() - start the storing thread for @st (borrowed). NULL with @err. */
struct snapw *snapw_start(struct store *st, struct fab_err *err);
/** snapw_stop() - store what was handed over, stop the thread, free @w (NULL: nothing). */
void snapw_stop(struct snapw *w);

/**
 * snapw_put() - hand @it over (its references taken, @it cleared); waits
 * while the previous epoch is still being stored.
 */
void snapw_put(struct snapw *w, struct snapw_item *it);
/** snapw_wait() - wait until every epoch handed over is stored (or failed). */
void snapw_wait(struct snapw *w);
/** snapw_busy() - 1 while an epoch handed over is not stored yet. */
int snapw_busy(struct snapw *w);

#endif
