/* SPDX-License-Identifier: MIT */
/**
 * DOC: LFT read-back
 *
 * One thread. It sleeps until a read is due (an OpenSM event's delay or
 * the interval), takes the current epoch, reads the blocks it needs (see
 * readback.h), tries the switches that did not answer again, and swaps in
 * the result when the read went to its end on the epoch still current.
 * What each switch was last read to hold is kept by switch GUID across
 * epochs; the MAD port is opened on first use and kept. A fallback asked
 * for (rb_fallback()) is read first, every block of its fabric, into a
 * routing handed over before the current epoch is read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "svc/clock.h"
#include "analysis/report.h"
#include "svc/log.h"
#include "daemon/loop.h"
#include "daemon/readback.h"

#define RB_EXAMPLES 10
#define RB_RETRY_ROUNDS 3	/* after 1, 2 and 4 s */
#define RB_SUBNET_UP_MS 200
#define RB_ROUTING_DONE_MS 30000
#define RB_SWEEP_MAX_MS 60000	/* a heavy sweep without SUBNET UP holds reads back this long at most */

/* What one switch was last read to hold. */
struct rb_sw {
	uint64_t guid;
	unsigned nblocks;
	uint8_t *lft;		/* nblocks * 64 entries */
	uint8_t *known;		/* per block: read */
};

struct readback {
	struct rb_opts o;
	char ca[64];
	struct epoch_slot *slot;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int quit, due_full;
	int64_t sweep_ms;	/* when a heavy sweep started; -1: none under way */
	unsigned gen;		/* bumped by a heavy sweep: a read under way is abandoned */
	int64_t due_ms;		/* monotonic; -1: nothing due but the interval */
	int64_t full_ms;	/* when the next read of every block is due */
	json_t *last;
	long long drift;
	struct epoch *fb;	/* rb_fallback()'s pass, NULL: none asked */
	uint64_t fb_cur;	/* the current epoch then: a newer one cancels it */
	rb_fallback_fn fb_cb;
	void *fb_ud;
	/* the thread's own */
	struct rbm_port *port;
	struct rb_sw *sw;
	size_t nsw;
	unsigned read_gen;
};

/* The figures of one read. */
struct rb_run {
	const struct epoch *e;
	struct rb_sw **sw;	/* per switch index of e's fabric */
	ib_portid_t *dest;	/* per switch index */
	struct smpw_stats st;
	uint64_t blocks;
	double start_ms;
	char why[256];
};

static int sw_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct rb_sw *)a)->guid, y = ((const struct rb_sw *)b)->guid;

	return x < y ? -1 : x > y;
}

static void sw_free(struct rb_sw *s)
{
	free(s->lft);
	free(s->known);
}

/*
 * The switches of @e's fabric with what was read before from the same
 * GUIDs; others are dropped. run->sw[i] points into the new array. -1 out of memory.
 */
static int sync_cache(struct readback *rb, struct rb_run *run)
{
	const struct fabric *f = run->e->fabric;
	unsigned nb = f->lid_top / 64 + 1;
	struct rb_sw *n = calloc((size_t)f->nswitches + 1, sizeof(*n));

	if (!n)
		return -1;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		struct rb_sw key = { .guid = f->nodes[f->switches[s]].guid }, *old;

		old = rb->nsw ? bsearch(&key, rb->sw, rb->nsw, sizeof(*rb->sw), sw_cmp) : NULL;
		n[s] = old ? *old : key;
		if (old)
			*old = (struct rb_sw){ 0 };	/* taken */
		if (n[s].nblocks != nb) {
			uint8_t *lft = realloc(n[s].lft, (size_t)nb * 64), *known = realloc(n[s].known, nb);

			if (lft)
				n[s].lft = lft;
			if (known)
				n[s].known = known;
			if (!lft || !known) {
				for (uint32_t t = 0; t <= s; t++)
					sw_free(&n[t]);
				free(n);
				return -1;	/* what was read before is lost: read again */
			}
			for (unsigned b = n[s].nblocks; b < nb; b++)
				known[b] = 0;
			n[s].nblocks = nb;
		}
	}
	for (size_t i = 0; i < rb->nsw; i++)
		sw_free(&rb->sw[i]);
	free(rb->sw);
	qsort(n, f->nswitches, sizeof(*n), sw_cmp);
	rb->sw = n;
	rb->nsw = f->nswitches;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		struct rb_sw key = { .guid = f->nodes[f->switches[s]].guid };

		run->sw[s] = bsearch(&key, n, rb->nsw, sizeof(*n), sw_cmp);
	}
	return 0;
}

/* Directed routes from the local port to every switch, or LID routes when it is not in the fabric. */
static void routes(const struct readback *rb, struct rb_run *run)
{
	const struct fabric *f = run->e->fabric;
	uint32_t ep = rb->port ? fab_ep_by_port_guid(f, rbm_port_guid(rb->port)) : FAB_NONE;
	uint32_t *q = malloc(((size_t)f->nswitches + 1) * sizeof(*q)), head = 0, tail = 0;
	uint8_t *seen = calloc((size_t)f->nswitches + 1, 1);
	const struct fab_port *first = NULL;

	for (uint32_t s = 0; s < f->nswitches; s++) {
		memset(&run->dest[s], 0, sizeof(run->dest[s]));
		run->dest[s].lid = fab_ep_lid(f, fab_ep_of_node(f, f->switches[s], 0));
	}
	if (ep != FAB_NONE && f->nodes[f->eps[ep].node].type != FAB_SWITCH)
		first = fab_port(f, f->eps[ep].node, f->eps[ep].port);
	if (q && seen && first && first->peer != FAB_NONE && f->nodes[first->peer].type == FAB_SWITCH) {
		/* breadth first from the switch the local port is cabled to */
		q[tail++] = f->nodes[first->peer].swidx;
		seen[q[0]] = 1;
		run->dest[q[0]] = (ib_portid_t){ .drpath = { .cnt = 1, .p = { 0, (uint8_t)f->eps[ep].port },
							      .drslid = 0xffff, .drdlid = 0xffff } };
	}
	while (head < tail) {
		uint32_t s = q[head++], node = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			const struct fab_port *x = fab_port(f, node, p);
			uint32_t t;

			if (x->peer == FAB_NONE || f->nodes[x->peer].type != FAB_SWITCH)
				continue;
			t = f->nodes[x->peer].swidx;
			if (seen[t] || run->dest[s].drpath.cnt >= IB_SUBNET_PATH_HOPS_MAX - 2)
				continue;	/* reached already, or too far for a directed route */
			seen[t] = 1;
			run->dest[t] = run->dest[s];
			run->dest[t].drpath.p[++run->dest[t].drpath.cnt] = (uint8_t)p;
			q[tail++] = t;
		}
	}
	free(q);
	free(seen);
}

/* The computed block @b of switch @s equals what was read. */
static int block_same(const struct rb_run *run, uint32_t s, unsigned b)
{
	const struct rb_sw *w = run->sw[s];

	for (unsigned i = 0; i < 64; i++) {
		unsigned l = b * 64 + i;

		if (l && l <= run->e->fabric->lid_top && w->lft[l] != rt_lft_get(run->e->routing, s, l))
			return 0;
	}
	return 1;
}

static int stop_now(void *ud)
{
	struct readback *rb = ud;
	int stop;

	pthread_mutex_lock(&rb->mu);
	stop = rb->quit || rb->gen != rb->read_gen;
	pthread_mutex_unlock(&rb->mu);
	return stop;
}

/*
 * Read what is needed: every block when @full, else the blocks not read yet
 * and those the routing changed from what was read. 0, or -1 when abandoned.
 */
static int read_blocks(struct readback *rb, struct rb_run *run, int full)
{
	const struct fabric *f = run->e->fabric;
	struct smpw_opts o = { .timeout_ms = rb->o.timeout_ms, .retries = rb->o.retries,
			       .rate = rb->o.rate, .stop = stop_now, .stop_ud = rb };
	struct smpw_req *reqs = NULL;
	size_t n = 0, cap = 0;
	int rc;

	for (uint32_t s = 0; s < f->nswitches; s++) {
		if (!run->dest[s].lid && !run->dest[s].drpath.cnt)
			continue;	/* no LID and no route: unreadable */
		for (unsigned b = 0; b < run->sw[s]->nblocks; b++) {
			if (!full && run->sw[s]->known[b] && block_same(run, s, b))
				continue;
			if (n == cap) {
				struct smpw_req *r = realloc(reqs, (cap = cap ? 2 * cap : 1024) * sizeof(*r));

				if (!r) {
					free(reqs);
					snprintf(run->why, sizeof(run->why), "out of memory");
					return -1;
				}
				reqs = r;
			}
			reqs[n++] = (struct smpw_req){ .dest = run->dest[s], .attr = IB_ATTR_LINEARFORWTBL,
							     .mod = b, .tag = s };
		}
	}
	rc = rbm_read(rb->port, reqs, n, &o, &run->st);
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct rb_sw *w = run->sw[reqs[i].tag];

		if (reqs[i].done == 1) {
			memcpy(w->lft + (size_t)reqs[i].mod * 64, reqs[i].data, 64);
			w->known[reqs[i].mod] = 1;
			run->blocks++;
		} else {
			w->known[reqs[i].mod] = 0;	/* not read this time: read it again */
		}
	}
	free(reqs);
	return rc;
}

/* Switches with a block not read. */
static uint32_t unread_switches(const struct rb_run *run)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < run->e->fabric->nswitches; s++)
		n += memchr(run->sw[s]->known, 0, run->sw[s]->nblocks) != NULL;
	return n;
}

/* Wait @ms unless stopping, a heavy sweep starts or another epoch comes; -1 then. */
static int wait_retry(struct readback *rb, const struct epoch *e, unsigned ms)
{
	for (unsigned t = 0; t < ms; t += 50) {
		struct timespec ts = { 0, 50 * 1000000L };
		struct epoch *cur;
		int other;

		if (stop_now(rb))
			return -1;
		cur = epoch_slot_get(rb->slot);
		other = cur != e;
		epoch_unref(cur);
		if (other)
			return -1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* The result of the read in @run: drift over the switches read, the others named as unreadable. */
static json_t *result(const struct rb_run *run, int full, long long *drift)
{
	const struct fabric *f = run->e->fabric;
	json_t *ex = json_array(), *unread = json_array();
	uint32_t read = 0, drifting = 0;
	uint64_t entries = 0;

	for (uint32_t s = 0; s < f->nswitches; s++) {
		const struct rb_sw *w = run->sw[s];
		uint32_t node = f->switches[s], d = 0;

		if (memchr(w->known, 0, w->nblocks)) {
			if (json_array_size(unread) < RB_EXAMPLES)
				json_array_append_new(unread, json_pack("{s:s, s:o}", "node", fab_desc(f, node),
									"guid", an_json_guid(f->nodes[node].guid)));
			continue;
		}
		read++;
		for (unsigned l = 1; l <= f->lid_top; l++) {
			unsigned want = rt_lft_get(run->e->routing, s, l);

			if (w->lft[l] == want)
				continue;
			if (d++ == 0 && json_array_size(ex) < RB_EXAMPLES)
				json_array_append_new(ex, json_pack("{s:s, s:o, s:i, s:i, s:i}", "node",
					fab_desc(f, node), "guid", an_json_guid(f->nodes[node].guid), "lid", l,
					"computed", want, "programmed", w->lft[l]));
		}
		entries += d;
		drifting += d > 0;
	}
	*drift = run->why[0] ? -1 : (long long)entries;
	return json_pack("{s:b, s:I, s:I, s:f, s:i, s:i, s:i, s:i, s:I, s:I, s:I, s:b, s:o, s:o, s:s?}",
			 "enabled", 1, "epoch", (json_int_t)run->e->seq, "time_ms", (json_int_t)loop_wall_ms(),
			 "ms", loop_now_fms() - run->start_ms, "switches", f->nswitches, "switches_read", read,
			 "switches_unreadable", f->nswitches - read, "switches_drifting", drifting,
			 "entries_drifting", (json_int_t)entries, "blocks_read", (json_int_t)run->blocks,
			 "smps", (json_int_t)run->st.sent, "full", full, "examples", ex, "unreadable", unread,
			 "error", run->why[0] ? run->why : NULL);
}

/* One read of @e; NULL when it was abandoned (a heavy sweep, another epoch, stopping). */
static json_t *read_epoch(struct readback *rb, const struct epoch *e, int full, long long *drift)
{
	uint32_t ns = e->fabric->nswitches;
	struct rb_run run = { .e = e, .start_ms = loop_now_fms(), .sw = calloc((size_t)ns + 1, sizeof(*run.sw)),
			      .dest = calloc((size_t)ns + 1, sizeof(*run.dest)) };
	json_t *res = NULL;
	unsigned delay = 1000;
	int rc = 0;

	if (!run.sw || !run.dest || sync_cache(rb, &run)) {
		snprintf(run.why, sizeof(run.why), "out of memory");
		goto out;
	}
	if (!rb->port)
		rb->port = rbm_open(rb->ca, rb->o.port, run.why, sizeof(run.why));
	if (rb->port) {
		routes(rb, &run);
		rc = read_blocks(rb, &run, full);
		for (unsigned r = 0; rc == 0 && r < RB_RETRY_ROUNDS && unread_switches(&run); r++, delay *= 2)
			if ((rc = wait_retry(rb, e, delay)) == 0)
				rc = read_blocks(rb, &run, 0);
	}
	if (rc == 0)
		res = result(&run, full, drift);
out:
	if (!res && run.why[0])
		res = json_pack("{s:b, s:I, s:I, s:s}", "enabled", 1, "epoch", (json_int_t)e->seq, "time_ms",
				(json_int_t)loop_wall_ms(), "error", run.why), *drift = -1;
	free(run.sw);
	free(run.dest);
	return res;
}

/*
 * Every block of every switch of @run->e's fabric, tried again as a read
 * of @cur is; 0, or -1 with @run->why (abandoned: empty).
 */
static int read_all(struct readback *rb, struct rb_run *run, const struct epoch *cur)
{
	unsigned delay = 1000;
	int rc;

	if (!run->sw || !run->dest || sync_cache(rb, run)) {
		snprintf(run->why, sizeof(run->why), "out of memory");
		return -1;
	}
	if (!rb->port && !(rb->port = rbm_open(rb->ca, rb->o.port, run->why, sizeof(run->why))))
		return -1;
	routes(rb, run);
	rc = read_blocks(rb, run, 1);
	for (unsigned r = 0; rc == 0 && r < RB_RETRY_ROUNDS && unread_switches(run); r++, delay *= 2)
		if ((rc = wait_retry(rb, cur, delay)) == 0)
			rc = read_blocks(rb, run, 0);
	if (rc == 0 && unread_switches(run))
		snprintf(run->why, sizeof(run->why), "%u switch(es) could not be read", unread_switches(run));
	return rc || run->why[0] ? -1 : 0;
}

/* The tables read in @run as a routing of its fabric; NULL out of memory. */
static struct rt_routing *tables(const struct rb_run *run)
{
	const struct fabric *f = run->e->fabric;
	struct rt_routing *r = rt_new(f);

	for (uint32_t s = 0; r && s < f->nswitches; s++)
		for (unsigned l = 1; l <= f->lid_top && l < r->lft_len; l++)
			rt_lft(r, s)[l] = run->sw[s]->lft[l];
	return r;
}

/* A fallback asked for: its tables to the callback, while no other epoch was published since. */
static void read_fallback(struct readback *rb, struct epoch *fb, uint64_t cur_then)
{
	uint32_t ns = fb->fabric->nswitches;
	struct rb_run run = { .e = fb, .start_ms = loop_now_fms(), .sw = calloc((size_t)ns + 1, sizeof(*run.sw)),
			      .dest = calloc((size_t)ns + 1, sizeof(*run.dest)) };
	struct epoch *cur = epoch_slot_get(rb->slot);
	struct fab_err err = { { 0 } };
	struct rt_routing *r = NULL;
	struct fabric *f = NULL;

	if ((cur ? cur->seq : 0) != cur_then)
		snprintf(run.why, sizeof(run.why), "epoch %llu was published meanwhile",
			 (unsigned long long)(cur ? cur->seq : 0));
	else if (!read_all(rb, &run, cur) && (!(r = tables(&run)) || !(f = fab_copy(fb->fabric, &err))))
		snprintf(run.why, sizeof(run.why), "%.200s", r ? err.msg : "out of memory");
	epoch_unref(cur);
	free(run.sw);
	free(run.dest);
	if (f) {
		log_info("read-back: the tables OpenSM's own engine installed (the pass of epoch %llu): "
			 "%llu blocks in %.0f ms", (unsigned long long)fb->seq,
			 (unsigned long long)run.blocks, loop_now_fms() - run.start_ms);
		rb->fb_cb(rb->fb_ud, f, r);
		return;
	}
	rt_free(r);
	log_warn("read-back: the tables OpenSM's own engine installed (the pass of epoch %llu) not "
		 "taken: %s", (unsigned long long)fb->seq, run.why[0] ? run.why : "abandoned");
}

/* With @mu held: wait until a read is due; 0 (with *@full), or -1 when stopping. */
static int wait_due(struct readback *rb, int *full)
{
	while (!rb->quit) {
		int64_t now = loop_now_ms(), due = rb->due_ms;
		int sweeping = rb->sweep_ms >= 0 && now - rb->sweep_ms < RB_SWEEP_MAX_MS;
		struct timespec ts;

		if (rb->o.interval_s && rb->full_ms <= now && !sweeping) {
			*full = 1;
			return 0;
		}
		if (due >= 0 && due <= now && !sweeping) {
			*full = rb->due_full;
			return 0;
		}
		if (sweeping)
			due = rb->sweep_ms + RB_SWEEP_MAX_MS;	/* wait for SUBNET UP, not for ever */
		else if (due < 0 || (rb->o.interval_s && rb->full_ms < due))
			due = rb->o.interval_s ? rb->full_ms : -1;
		if (due < 0 || due <= now) {
			pthread_cond_wait(&rb->cv, &rb->mu);
			continue;
		}
		ts = svc_deadline(CLOCK_REALTIME, due - now);
		pthread_cond_timedwait(&rb->cv, &rb->mu, &ts);
	}
	return -1;
}

/* Swap in @res (a read of @e that went to its end) unless another epoch came meanwhile. */
static void publish(struct readback *rb, const struct epoch *e, json_t *res, long long drift)
{
	struct epoch *cur = epoch_slot_get(rb->slot);
	int stale = cur != e;

	epoch_unref(cur);
	if (stale) {
		json_decref(res);	/* what was read is kept per switch; the next epoch's read follows */
		return;
	}
	if (drift > 0)
		log_warn("read-back: %lld LFT entries on %lld switches differ from epoch %llu", drift,
			 (long long)json_integer_value(json_object_get(res, "switches_drifting")),
			 (unsigned long long)e->seq);
	pthread_mutex_lock(&rb->mu);
	json_decref(rb->last);
	rb->last = res;
	rb->drift = drift;
	pthread_mutex_unlock(&rb->mu);
}

static void *rb_main(void *arg)
{
	struct readback *rb = arg;
	int full;

	pthread_mutex_lock(&rb->mu);
	while (wait_due(rb, &full) == 0) {
		struct epoch *e, *fb = rb->fb;
		uint64_t fb_cur = rb->fb_cur;
		json_t *res = NULL;
		long long drift = -1;

		rb->due_ms = -1;
		rb->due_full = 0;
		rb->fb = NULL;
		if (full)
			rb->full_ms = loop_now_ms() + (int64_t)rb->o.interval_s * 1000;
		rb->read_gen = rb->gen;
		pthread_mutex_unlock(&rb->mu);
		if (fb) {
			read_fallback(rb, fb, fb_cur);
			epoch_unref(fb);
		}
		e = epoch_slot_get(rb->slot);
		if (e && e->routing)
			res = read_epoch(rb, e, full, &drift);
		if (res)
			publish(rb, e, res, drift);
		epoch_unref(e);
		pthread_mutex_lock(&rb->mu);
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
	rb->sweep_ms = -1;
	rb->drift = -1;
	rb->full_ms = loop_now_ms() + (int64_t)o->interval_s * 1000;
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
	rbm_close(rb->port);
	epoch_unref(rb->fb);
	for (size_t i = 0; i < rb->nsw; i++)
		sw_free(&rb->sw[i]);
	free(rb->sw);
	json_decref(rb->last);
	pthread_cond_destroy(&rb->cv);
	pthread_mutex_destroy(&rb->mu);
	free(rb);
}

/* With @mu held: a read due @delay_ms from now, unless one is due sooner (@sooner) or anyway (!@sooner). */
static void due_in(struct readback *rb, unsigned delay_ms, int sooner)
{
	int64_t at = loop_now_ms() + delay_ms;

	if (!sooner || rb->due_ms < 0 || at < rb->due_ms)
		rb->due_ms = at;
	pthread_cond_signal(&rb->cv);
}

void rb_trigger(struct readback *rb, unsigned delay_ms)
{
	if (!rb)
		return;
	pthread_mutex_lock(&rb->mu);
	due_in(rb, delay_ms, 1);
	pthread_mutex_unlock(&rb->mu);
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
	if (rb->fb_cb) {
		epoch_unref(rb->fb);
		rb->fb = epoch_ref(e);
		rb->fb_cur = cur ? cur->seq : 0;
		due_in(rb, RB_SUBNET_UP_MS, 1);	/* held back while OpenSM's sweep writes its tables */
	}
	pthread_mutex_unlock(&rb->mu);
	epoch_unref(cur);
}

void rb_osm_event(struct readback *rb, const char *event)
{
	if (!rb)
		return;
	pthread_mutex_lock(&rb->mu);
	if (!strcmp(event, "heavy_sweep_start")) {
		rb->sweep_ms = loop_now_ms();
		rb->gen++;	/* a read under way stops: the tables are being written */
	} else if (!strcmp(event, "subnet_up")) {
		rb->sweep_ms = -1;
		due_in(rb, RB_SUBNET_UP_MS, 0);
	} else if (!strcmp(event, "routing_done")) {
		due_in(rb, RB_ROUTING_DONE_MS, 1);	/* in case SUBNET UP never comes */
	}
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
