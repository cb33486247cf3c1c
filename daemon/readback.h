/* SPDX-License-Identifier: MIT */
/**
 * DOC: LFT read-back
 *
 * What the switches really forward with: fabrouted reads the switches'
 * linear forwarding tables with SMP LinearForwardingTable Get, 64 LIDs per
 * SMP, several in flight, each with its own timeout and retries, under a
 * cap on SMPs per second, and compares them with the published epoch's
 * tables. The SMPs take directed routes from the local port (found in the
 * fabric by its GUID), so a switch is read whatever its tables say; LID
 * routes when the local port is not in the fabric.
 *
 * It runs in its own thread and never blocks the API. Under OpenSM it
 * reads once OpenSM says SUBNET UP (not while a heavy sweep is under way:
 * a read then is abandoned), and every interval. After a routing pass it
 * reads only the blocks that should have changed (those where what was last
 * read differs from the new tables) and the switches it has not read yet;
 * every interval it reads every block. Switches that do not answer are
 * tried again after 1, 2 and 4 s; what was read from a switch before is
 * kept, and the published result is replaced only by a read that went to
 * its end on the epoch still current. Switches not reached count as
 * unreadable, never as drift.
 *
 * When OpenSM's own engine routed a pass (fabrouted's answer was late or
 * refused), the next read, after that pass's SUBNET UP, first takes every
 * block of every switch of the pass's fabric and hands those tables over
 * (rb_fallback()): the daemon publishes them as the current epoch,
 * evaluated like any other.
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
 * rb_trigger() - read again after @delay_ms unless a read is due sooner
 * (thread-safe): an epoch was published outside a routing pass.
 */
void rb_trigger(struct readback *rb, unsigned delay_ms);

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
 * fabric at the next read (once that pass's SUBNET UP came), and hand them
 * to the callback, unless a switch cannot be read or another epoch was
 * published meanwhile. Thread-safe; takes a reference to @e.
 */
void rb_fallback(struct readback *rb, struct epoch *e);

/**
 * rb_osm_event() - an OpenSM event (thread-safe): "heavy_sweep_start" holds
 * reads back (and abandons one under way) until "subnet_up", 60 s at most;
 * "subnet_up" reads 200 ms later; "routing_done" reads 30 s later unless
 * SUBNET UP comes first.
 */
void rb_osm_event(struct readback *rb, const char *event);

/**
 * rb_json() - the last result: {"epoch", "time_ms", "ms", "switches",
 * "switches_read", "switches_unreadable", "switches_drifting",
 * "entries_drifting", "blocks_read", "smps", "full", "examples": [{"node",
 * "guid", "lid", "computed", "programmed"}], "unreadable": [{"node",
 * "guid"}], "error"}; {"enabled": false} for NULL.
 */
json_t *rb_json(struct readback *rb);

/** rb_drift() - entries that differ in the last complete read; -1 when none was done. */
long long rb_drift(struct readback *rb);

/* --- the MAD I/O (readback_mad.c) -------------------------------------------- */

#include "daemon/smpwin.h"

struct rbm_port;

/** rbm_open() - the MAD port @ca:@port (NULL/0: the first); NULL with @why. */
struct rbm_port *rbm_open(const char *ca, unsigned port, char *why, size_t len);
void rbm_close(struct rbm_port *p);
/** rbm_port_guid() - the port's GUID (0 when unknown). */
uint64_t rbm_port_guid(const struct rbm_port *p);
/**
 * rbm_read() - the @n SMPs of @reqs (LFT block Gets), RBM_WINDOW in flight,
 * an error status tried again like a lost SMP (@o's window, retry_errors and
 * fail_fast are not used). -1 when @o->stop said so, else 0; counts into @st.
 */
int rbm_read(struct rbm_port *p, struct smpw_req *reqs, size_t n, const struct smpw_opts *o,
	     struct smpw_stats *st);

#endif
