/* SPDX-License-Identifier: MIT */
/**
 * DOC: LFT read-back
 *
 * What the switches really forward with: fabrouted reads every switch's
 * linear forwarding table with SMP LinearForwardingTable Get (libibmad over
 * libibumad, LID-routed to the switch), 64 LIDs per SMP, with its own
 * timeout, retries and a cap on SMPs per second, and compares it with the
 * published epoch's tables. Runs in its own thread, after OpenSM reports a
 * routing pass (debounced) and every interval; never blocks the API.
 *
 * When OpenSM's own engine routed a pass (fabrouted's answer was late or
 * refused), the same read takes the tables it installed, for the fabric of
 * that pass, and hands them over (rb_fallback()): the daemon then publishes
 * them as the current epoch, evaluated like any other.
 */
#ifndef FABROUTE_DAEMON_READBACK_H
#define FABROUTE_DAEMON_READBACK_H

#include <jansson.h>

#include "svc/epoch.h"

/**
 * struct rb_opts - how to read
 * @ca, @port: the local HCA port to send from ("" / 0: the first active)
 * @interval_s: read again this often (0: only when triggered)
 * @timeout_ms, @retries: per SMP
 * @rate: SMPs per second at most
 */
struct rb_opts {
	const char *ca;
	unsigned port, interval_s, timeout_ms, retries, rate;
};

struct readback;

/** rb_start() - start the read-back thread reading the epochs of @slot. NULL with @err. */
struct readback *rb_start(const struct rb_opts *o, struct epoch_slot *slot, struct fab_err *err);
void rb_stop(struct readback *rb);

/**
 * rb_fallback_fn - in the read-back thread: the tables OpenSM's own engine
 * installed, @r (taken), for fabric @f (a copy, taken)
 */
typedef void (*rb_fallback_fn)(void *ud, struct fabric *f, struct rt_routing *r);

/** rb_set_fallback_cb() - where rb_fallback()'s tables go; set before any rb_fallback(). */
void rb_set_fallback_cb(struct readback *rb, rb_fallback_fn cb, void *ud);

/**
 * rb_fallback() - OpenSM's own engine routed the pass whose fabric @e (the
 * answer it did not install) holds: read every switch's tables for that
 * fabric at the next read (after OpenSM's routing_done and subnet_up), and
 * hand them to the callback, unless a switch does not answer or another
 * epoch was published meanwhile. Thread-safe; takes a reference to @e.
 */
void rb_fallback(struct readback *rb, struct epoch *e);

/** rb_trigger() - read again after @delay_ms (coalesces; thread-safe). */
void rb_trigger(struct readback *rb, unsigned delay_ms);

/**
 * rb_json() - the last result: {"epoch", "time", "ms", "switches",
 * "switches_read", "switches_unreadable", "switches_drifting",
 * "entries_drifting", "examples": [{"node", "guid", "lid", "computed",
 * "programmed"}], "error"}; {"enabled": false} for NULL.
 */
json_t *rb_json(struct readback *rb);

/** rb_drift() - entries that differ in the last complete read; -1 when none was done. */
long long rb_drift(struct readback *rb);

#endif
