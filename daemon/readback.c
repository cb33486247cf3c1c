/* SPDX-License-Identifier: MIT */
/**
 * DOC: LFT read-back
 *
 * One thread. It sleeps until a trigger's delay or the interval runs out,
 * takes the current epoch, reads every switch's LFT blocks for LIDs 1 up
 * to the fabric's top LID, and swaps in the result. The MAD port is opened
 * on first use and kept; if it cannot be opened the result says why. A
 * fallback asked for (rb_fallback()) is read first, into a routing of its
 * own, and handed over before the current epoch is read.
 */
#include <infiniband/mad.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/report.h"
#include "svc/log.h"
#include "daemon/loop.h"
#include "daemon/readback.h"

#define RB_EXAMPLES 10

struct readback {
	struct rb_opts o;
	char ca[64];
	struct epoch_slot *slot;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int quit;
	int64_t due_ms;		/* monotonic; -1: nothing due but the interval */
	json_t *last;
	long long drift;
	struct ibmad_port *port;
	struct epoch *fb;	/* rb_fallback()'s pass, NULL: none asked */
	uint64_t fb_cur;	/* the current epoch then: a newer one cancels it */
	rb_fallback_fn fb_cb;
	void *fb_ud;
};

/* The counts of one read. */
struct rb_run {
	uint32_t read, unreadable, drifting;
	uint64_t entries;
	json_t *examples;
	uint64_t smps;
	double start_ms;
};

static void pace(const struct readback *rb, struct rb_run *run)
{
	double min_ms = rb->o.rate ? (double)run->smps * 1000.0 / rb->o.rate : 0;
	double ahead = min_ms - (loop_now_fms() - run->start_ms);

	if (ahead > 0.05) {
		struct timespec ts = { (time_t)(ahead / 1000), (long)((ahead - (double)(time_t)(ahead / 1000) * 1000) * 1e6) };

		nanosleep(&ts, NULL);
	}
}

static void note_drift(struct rb_run *run, const struct fabric *f, uint32_t node, unsigned lid,
		       unsigned want, unsigned got)
{
	if (json_array_size(run->examples) >= RB_EXAMPLES)
		return;
	json_array_append_new(run->examples, json_pack("{s:s, s:o, s:i, s:i, s:i}", "node", fab_desc(f, node),
		"guid", an_json_guid(f->nodes[node].guid), "lid", lid, "computed", want, "programmed", got));
}

/*
 * Read switch @sw's blocks of fabric @f: compared with @want, or kept in
 * @got. 0, or -1 when an SMP got no answer.
 */
static int read_switch(struct readback *rb, const struct fabric *f, const struct rt_routing *want,
		       struct rt_routing *got, uint32_t sw, struct rb_run *run)
{
	uint32_t node = f->switches[sw];
	unsigned lid = fab_ep_lid(f, fab_ep_of_node(f, node, 0)), drift = 0;
	uint8_t buf[IB_SMP_DATA_SIZE];
	ib_portid_t pid = { 0 };

	if (!lid)
		return -1;
	for (unsigned b = 0; b * 64 <= f->lid_top; b++) {
		ib_portid_set(&pid, (int)lid, 0, 0);
		run->smps++;
		pace(rb, run);
		if (!smp_query_via(buf, &pid, IB_ATTR_LINEARFORWTBL, b, rb->o.timeout_ms, rb->port))
			return -1;
		for (unsigned i = 0; i < 64; i++) {
			unsigned l = b * 64 + i, w = want ? rt_lft_get(want, sw, l) : 0;

			if (l == 0 || l > f->lid_top)
				continue;
			if (got && l < got->lft_len)
				rt_lft(got, sw)[l] = buf[i];
			if (!want || buf[i] == w)
				continue;
			drift++;
			note_drift(run, f, node, l, w, buf[i]);
		}
	}
	run->entries += drift;
	run->drifting += drift > 0;
	return 0;
}

static int open_port(struct readback *rb, char *why, size_t len)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };

	if (rb->port)
		return 0;
	rb->port = mad_rpc_open_port(rb->ca[0] ? rb->ca : NULL, (int)rb->o.port, classes, 2);
	if (!rb->port) {
		snprintf(why, len, "cannot open the MAD port %s:%u (libibumad)", rb->ca[0] ? rb->ca : "(first)",
			 rb->o.port);
		return -1;
	}
	mad_rpc_set_timeout(rb->port, (int)rb->o.timeout_ms);
	mad_rpc_set_retries(rb->port, (int)rb->o.retries);
	return 0;
}

static json_t *read_epoch(struct readback *rb, const struct epoch *e, long long *drift)
{
	struct rb_run run = { .examples = json_array(), .start_ms = loop_now_fms() };
	char why[256] = "";

	*drift = -1;
	if (open_port(rb, why, sizeof(why)) == 0)
		for (uint32_t sw = 0; sw < e->fabric->nswitches; sw++) {
			if (read_switch(rb, e->fabric, e->routing, NULL, sw, &run))
				run.unreadable++;
			else
				run.read++;
		}
	if (!why[0] && run.unreadable)
		snprintf(why, sizeof(why), "%u switch(es) did not answer", run.unreadable);
	if (!why[0])
		*drift = (long long)run.entries;
	return json_pack("{s:b, s:I, s:I, s:f, s:i, s:i, s:i, s:i, s:I, s:o, s:s?}", "enabled", 1,
			 "epoch", (json_int_t)e->seq, "time_ms", (json_int_t)loop_wall_ms(),
			 "ms", loop_now_fms() - run.start_ms, "switches", e->fabric->nswitches,
			 "switches_read", run.read, "switches_unreadable", run.unreadable,
			 "switches_drifting", run.drifting, "entries_drifting", (json_int_t)run.entries,
			 "examples", run.examples, "error", why[0] ? why : NULL);
}

/* Another epoch than @e is current now. */
static int stale(struct readback *rb, const struct epoch *e)
{
	struct epoch *cur = epoch_slot_get(rb->slot);
	int changed = cur != e;

	epoch_unref(cur);
	return changed;
}

/* With @mu held: wait until a read is due; 0, or -1 when stopping. */
static int wait_due(struct readback *rb)
{
	while (!rb->quit) {
		int64_t now = loop_now_ms(), due = rb->due_ms;
		struct timespec ts;

		if (due >= 0 && due <= now)
			return 0;
		if (due < 0 && !rb->o.interval_s) {
			pthread_cond_wait(&rb->cv, &rb->mu);
			continue;
		}
		if (due < 0)
			due = rb->due_ms = now + (int64_t)rb->o.interval_s * 1000;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (time_t)((due - now) / 1000);
		ts.tv_nsec += (long)((due - now) % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&rb->cv, &rb->mu, &ts);
	}
	return -1;
}

/* The tables of @e's fabric as the switches hold them: a routing, or NULL with @why. */
static struct rt_routing *read_tables(struct readback *rb, const struct epoch *e, char *why, size_t len)
{
	struct rb_run run = { .start_ms = loop_now_fms() };
	struct rt_routing *r;

	if (open_port(rb, why, len))
		return NULL;
	if (!(r = rt_new(e->fabric))) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	for (uint32_t sw = 0; sw < e->fabric->nswitches; sw++)
		if (read_switch(rb, e->fabric, NULL, r, sw, &run)) {
			snprintf(why, len, "switch '%s' did not answer",
				 fab_desc(e->fabric, e->fabric->switches[sw]));
			rt_free(r);
			return NULL;
		}
	return r;
}

/* A fallback asked for: its tables to the callback, while no other epoch was published since. */
static void read_fallback(struct readback *rb, struct epoch *fb, uint64_t cur_then)
{
	struct epoch *cur = epoch_slot_get(rb->slot);
	uint64_t now = cur ? cur->seq : 0;
	struct rt_routing *r = NULL;
	struct fabric *f = NULL;
	struct fab_err err = { { 0 } };
	char why[sizeof(err.msg)] = "";

	epoch_unref(cur);
	if (now != cur_then)
		snprintf(why, sizeof(why), "epoch %llu was published meanwhile", (unsigned long long)now);
	else if ((r = read_tables(rb, fb, why, sizeof(why))) && !(f = fab_copy(fb->fabric, &err)))
		snprintf(why, sizeof(why), "%s", err.msg);
	if (f) {
		rb->fb_cb(rb->fb_ud, f, r);
		return;
	}
	rt_free(r);
	log_warn("read-back: the tables OpenSM's own engine installed (the pass of epoch %llu) "
		 "not taken: %s", (unsigned long long)fb->seq, why);
}

static void *rb_main(void *arg)
{
	struct readback *rb = arg;

	pthread_mutex_lock(&rb->mu);
	while (wait_due(rb) == 0) {
		struct epoch *e;
		json_t *res = NULL;
		long long drift = -1;
		struct epoch *fb = rb->fb;

		rb->due_ms = -1;
		rb->fb = NULL;
		pthread_mutex_unlock(&rb->mu);
		if (fb) {
			read_fallback(rb, fb, rb->fb_cur);
			epoch_unref(fb);
		}
		e = epoch_slot_get(rb->slot);
		if (e && e->routing)
			res = read_epoch(rb, e, &drift);
		if (res && stale(rb, e)) {
			/* a newer epoch came during the read: what was read mixes both; its own read follows */
			json_decref(res);
			res = NULL;
		}
		if (res && drift > 0)
			log_warn("read-back: %lld LFT entries on %lld switches differ from epoch %llu",
				 drift, (long long)json_integer_value(json_object_get(res, "switches_drifting")),
				 (unsigned long long)e->seq);
		epoch_unref(e);
		pthread_mutex_lock(&rb->mu);
		if (res) {
			json_decref(rb->last);
			rb->last = res;
			rb->drift = drift;
		}
	}
	pthread_mutex_unlock(&rb->mu);
	return NULL;
}

struct readback *rb_start(const struct rb_opts *o, struct epoch_slot *slot, struct fab_err *err)
{
	struct readback *rb = calloc(1, sizeof(*rb));

	if (!rb) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	rb->o = *o;
	snprintf(rb->ca, sizeof(rb->ca), "%s", o->ca ? o->ca : "");
	rb->o.ca = rb->ca;
	rb->slot = slot;
	rb->due_ms = -1;
	rb->drift = -1;
	pthread_mutex_init(&rb->mu, NULL);
	pthread_cond_init(&rb->cv, NULL);
	if (pthread_create(&rb->th, NULL, rb_main, rb)) {
		fab_err_set(err, "cannot start the read-back thread");
		pthread_cond_destroy(&rb->cv);
		pthread_mutex_destroy(&rb->mu);
		free(rb);
		return NULL;
	}
	return rb;
}

void rb_stop(struct readback *rb)
{
	if (!rb)
		return;
	pthread_mutex_lock(&rb->mu);
	rb->quit = 1;
	pthread_cond_signal(&rb->cv);
	pthread_mutex_unlock(&rb->mu);
	pthread_join(rb->th, NULL);
	if (rb->port)
		mad_rpc_close_port(rb->port);
	epoch_unref(rb->fb);
	json_decref(rb->last);
	pthread_cond_destroy(&rb->cv);
	pthread_mutex_destroy(&rb->mu);
	free(rb);
}

void rb_set_fallback_cb(struct readback *rb, rb_fallback_fn cb, void *ud)
{
	if (!rb)
		return;
	pthread_mutex_lock(&rb->mu);
	rb->fb_cb = cb;
	rb->fb_ud = ud;
	pthread_mutex_unlock(&rb->mu);
}

void rb_fallback(struct readback *rb, struct epoch *e)
{
	struct epoch *cur;

	if (!rb)
		return;
	cur = epoch_slot_get(rb->slot);
	pthread_mutex_lock(&rb->mu);
	if (!rb->fb_cb) {
		pthread_mutex_unlock(&rb->mu);
		epoch_unref(cur);
		return;
	}
	epoch_unref(rb->fb);
	rb->fb = epoch_ref(e);
	rb->fb_cur = cur ? cur->seq : 0;
	if (rb->due_ms < 0)	/* OpenSM's routing_done moves it on */
		rb->due_ms = loop_now_ms() + 1000;
	pthread_cond_signal(&rb->cv);
	pthread_mutex_unlock(&rb->mu);
	epoch_unref(cur);
}

void rb_trigger(struct readback *rb, unsigned delay_ms)
{
	if (!rb)
		return;
	pthread_mutex_lock(&rb->mu);
	rb->due_ms = loop_now_ms() + delay_ms;	/* a later trigger moves it: debounced */
	pthread_cond_signal(&rb->cv);
	pthread_mutex_unlock(&rb->mu);
}

json_t *rb_json(struct readback *rb)
{
	json_t *j;

	if (!rb)
		return json_pack("{s:b}", "enabled", 0);
	pthread_mutex_lock(&rb->mu);
	j = rb->last ? json_deep_copy(rb->last) : json_pack("{s:b, s:n}", "enabled", 1, "epoch");
	pthread_mutex_unlock(&rb->mu);
	return j;
}

long long rb_drift(struct readback *rb)
{
	long long d;

	if (!rb)
		return -1;
	pthread_mutex_lock(&rb->mu);
	d = rb->drift;
	pthread_mutex_unlock(&rb->mu);
	return d;
}
