/* SPDX-License-Identifier: MIT */
/**
 * DOC: events stored by a thread of their own
 *
 * Storing an event is a database commit, a flush to disk: tens of
 * milliseconds on a busy disk. A thread that must not wait for it (the
 * OpenSM plugin's connection, whose next message may be the link-state trap
 * the fast repair is waiting for) queues the event here; one thread stores
 * the queued events in the order they came, each with the time it was
 * queued. At most EVQ_MAX wait; past that an event is dropped, logged and
 * counted.
 */
#ifndef FABROUTE_DAEMON_EVQUEUE_H
#define FABROUTE_DAEMON_EVQUEUE_H

#include <jansson.h>
#include <stdint.h>

#include "store/store.h"

#define EVQ_MAX 10000

struct evq;

/** evq_start() - start the storing thread for @st. NULL with @err. */
struct evq *evq_start(struct store *st, struct fab_err *err);
/** evq_stop() - store what is queued, stop the thread, free @q (NULL: nothing). */
void evq_stop(struct evq *q);

/**
 * evq_add() - queue an event for store_event_add() (same arguments; @details
 * is copied). Thread-safe; never waits for the disk.
 * Return: 0, or -1 when it was dropped (the queue is full, out of memory).
 */
int evq_add(struct evq *q, int64_t time_ms, const char *type, const char *message,
	    json_t *details);

#endif
