/* SPDX-License-Identifier: MIT */
/*
 * The reroute pipeline on its own: daemon/pipeline.c, the real event loop,
 * epochs and engines, linked against stubs of the store and of the file
 * source defined below. The stubs record what the pipeline stores and let
 * a test hold a reroute in progress (the source's fabric is taken behind a
 * gate), fail one, or offer a stored snapshot to restore.
 *
 * Checked: the hold-down is leading-edge and then delays; a storm of
 * changes during a reroute is coalesced into one more; a failed reroute
 * (source, chain, or no epoch number from the store) keeps the last good
 * epoch and records an error; an epoch a reader holds
 * outlives the swap; a stored snapshot is restored without routing when the
 * routing inputs match, and not otherwise.
 */
#include <pthread.h>
#include <unistd.h>

#include "tests/unit/testutil.h"
#include "tests/unit/engine_call.h"

#include "daemon/pipeline.h"
#include "gen/gen.h"
#include "store/store.h"
#include "svc/log.h"

/* --- stubs ---------------------------------------------------------------------- */

#define EVENTS_MAX 64

struct store {
	pthread_mutex_t mu;
	unsigned nevents, nsnapshots;
	char event_type[EVENTS_MAX][16];
	char event_msg[EVENTS_MAX][256];
	char *routing_key;
	struct fabric *snap_f;		/* offered by store_snapshot_load() */
	struct rt_routing *snap_r;
	uint64_t snap_seq;
	uint64_t seq;		/* the last number store_seq_next() gave */
	int seq_fail;
};

struct srcf {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct fabric *topo;
	int gate_closed, fail, waiting;
	unsigned calls;
	int64_t call_ms[16];
};

static struct store st = { .mu = PTHREAD_MUTEX_INITIALIZER };
static struct srcf src = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

struct fabric *srcf_fabric(struct srcf *s, struct fab_err *err)
{
	struct fabric *f = NULL;

	pthread_mutex_lock(&s->mu);
	if (s->calls < 16)
		s->call_ms[s->calls] = loop_now_ms();
	s->calls++;
	s->waiting = 1;
	pthread_cond_broadcast(&s->cv);
	while (s->gate_closed)
		pthread_cond_wait(&s->cv, &s->mu);
	s->waiting = 0;
	if (s->fail)
		fab_err_set(err, "topology file unreadable (test)");
	else
		f = fab_copy(s->topo, err);
	pthread_mutex_unlock(&s->mu);
	return f;
}

int store_lids_pins(struct store *s, struct fab_lid_pin **pins, size_t *n, struct fab_err *err)
{
	*pins = NULL;
	*n = 0;
	return 0;
}

int64_t store_event_add(struct store *s, int64_t time_ms, const char *type, const char *message,
			const json_t *details, struct fab_err *err)
{
	pthread_mutex_lock(&s->mu);
	if (s->nevents < EVENTS_MAX) {
		snprintf(s->event_type[s->nevents], sizeof(s->event_type[0]), "%s", type);
		snprintf(s->event_msg[s->nevents], sizeof(s->event_msg[0]), "%s", message);
	}
	s->nevents++;
	pthread_mutex_unlock(&s->mu);
	return s->nevents;
}

int64_t store_snapshot_add(struct store *s, const struct store_snap_in *in, struct fab_err *err)
{
	int64_t id;

	pthread_mutex_lock(&s->mu);
	id = ++s->nsnapshots;
	pthread_mutex_unlock(&s->mu);
	return id;
}

int store_setting_get(struct store *s, const char *key, char **val, struct fab_err *err)
{
	*val = !strcmp(key, "routing_key") && s->routing_key ? strdup(s->routing_key) : NULL;
	return 0;
}

int store_setting_set(struct store *s, const char *key, const char *val, struct fab_err *err)
{
	return 0;
}

int store_prune(struct store *s, unsigned keep, int64_t max_age_ms, int64_t now_ms,
		struct fab_err *err)
{
	return 0;
}

int64_t store_snapshot_latest(struct store *s, struct fab_err *err)
{
	return s->snap_f ? 5 : 0;
}

int store_snapshot_load(struct store *s, int64_t id, struct store_snap *out, struct fab_err *err)
{
	memset(out, 0, sizeof(*out));
	out->id = id;
	out->seq = s->snap_seq;
	out->topo_hash = fab_topology_hash(s->snap_f);
	out->chain = strdup("sftree");
	out->engine = strdup("sftree");
	out->reason = strdup("fault");
	out->f = fab_copy(s->snap_f, err);
	out->r = s->snap_r;
	s->snap_r = NULL;
	return 0;
}

void store_snap_free(struct store_snap *snap)
{
	free(snap->chain);
	free(snap->engine);
	free(snap->reason);
	fab_free(snap->f);
	rt_free(snap->r);
}

int64_t store_seq_next(struct store *s, struct fab_err *err)
{
	int64_t seq = -1;

	pthread_mutex_lock(&s->mu);
	if (s->seq_fail) {
		fab_err_set(err, "database is full (test)");
	} else {
		if (s->seq < s->snap_seq)
			s->seq = s->snap_seq;
		seq = (int64_t)++s->seq;
	}
	pthread_mutex_unlock(&s->mu);
	return seq;
}

/* --- the fixture: a pipeline over a 2-ary 3-tree, the loop in a thread of its own ------ */

struct fix {
	struct loop *loop;
	pthread_t th;
	struct epoch_slot slot;
	struct pipeline *p;
};

static void *loop_main(void *arg)
{
	loop_run(arg);
	return NULL;
}

static void reset_stubs(void)
{
	static const char *const kv[] = { "k=2", "n=3" };
	struct fab_err err = { { 0 } };

	fab_free(src.topo);
	src.topo = gen_build("kary-ntree", kv, 2, 1, &err);
	assert_non_null(src.topo);
	src.gate_closed = src.fail = src.waiting = 0;
	src.calls = 0;
	free(st.routing_key);
	st.routing_key = NULL;
	fab_free(st.snap_f);
	rt_free(st.snap_r);
	st.snap_f = NULL;
	st.snap_r = NULL;
	st.nevents = st.nsnapshots = 0;
	st.snap_seq = st.seq = 0;
	st.seq_fail = 0;
}

static struct fix *start(unsigned holddown_ms, const char *chain)
{
	struct pipe_settings set = { .chain = chain, .options = "", .holddown_ms = holddown_ms,
				     .keep = 10 };
	struct fab_err err = { { 0 } };
	struct fix *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	x->loop = loop_new();
	epoch_slot_init(&x->slot);
	x->p = pipe_new(x->loop, &x->slot, &st, &src, &set, &err);
	if (!x->p)
		fail_msg("pipe_new: %s", err.msg);
	assert_int_equal(pthread_create(&x->th, NULL, loop_main, x->loop), 0);
	return x;
}

static void close_gate(void)
{
	pthread_mutex_lock(&src.mu);
	src.gate_closed = 1;
	pthread_mutex_unlock(&src.mu);
}

/* Wait (up to 10 s) until a reroute is held at the gate. */
static void wait_at_gate(void)
{
	int waiting = 0;

	for (int i = 0; i < 1000 && !waiting; i++) {
		pthread_mutex_lock(&src.mu);
		waiting = src.waiting;
		pthread_mutex_unlock(&src.mu);
		if (!waiting)
			usleep(10000);
	}
	if (!waiting)
		fail_msg("no reroute reached the source within 10 s");
}

static void open_gate(void)
{
	pthread_mutex_lock(&src.mu);
	src.gate_closed = 0;
	pthread_cond_broadcast(&src.cv);
	pthread_mutex_unlock(&src.mu);
}

static void stop(struct fix *x)
{
	open_gate();
	loop_stop(x->loop);
	pthread_join(x->th, NULL);
	pipe_free(x->p);
	loop_free(x->loop);
	epoch_slot_fini(&x->slot);
	free(x);
}

/* Wait up to 10 s for @ok reroutes and @failed failures, and for the pipeline to go idle. */
static struct pipe_stats wait_for(struct fix *x, uint64_t ok, uint64_t failed)
{
	struct pipe_stats s;

	for (int i = 0; i < 2000; i++) {
		pipe_stats(x->p, &s);
		if (s.ok == ok && s.failed == failed && !s.busy)
			return s;
		usleep(5000);
	}
	fail_msg("after 10 s: %llu reroutes, %llu failed, busy %d; expected %llu and %llu",
		 (unsigned long long)s.ok, (unsigned long long)s.failed, s.busy,
		 (unsigned long long)ok, (unsigned long long)failed);
	return s;
}

static uint64_t current_seq(struct fix *x)
{
	struct epoch *e = epoch_slot_get(&x->slot);
	uint64_t seq = e ? e->seq : 0;

	epoch_unref(e);
	return seq;
}

/* --- tests ------------------------------------------------------------------------- */

/* The first change after a quiet period reroutes at once, whatever the hold-down. */
static void test_leading_edge(void **state)
{
	struct fix *x;
	int64_t t0;

	(void)state;
	reset_stubs();
	x = start(60000, "sftree");
	t0 = loop_now_ms();
	pipe_request(x->p, "startup");
	wait_for(x, 1, 0);
	assert_int_equal(src.calls, 1);
	assert_true(src.call_ms[0] - t0 < 5000);
	assert_int_equal(current_seq(x), 1);
	assert_string_equal(st.event_type[0], "reroute");
	assert_non_null(strstr(st.event_msg[0], "epoch 1: sftree routed (startup)"));
	assert_int_equal(st.nsnapshots, 1);
	stop(x);
}

/* 20 faults while a reroute runs make one more reroute, not 20. */
static void test_storm_coalesced(void **state)
{
	struct pipe_stats s;
	struct fix *x;

	(void)state;
	reset_stubs();
	x = start(0, "sftree");
	close_gate();
	pipe_request(x->p, "fault");
	wait_at_gate();
	for (int i = 0; i < 20; i++)
		pipe_request(x->p, "fault");
	open_gate();
	s = wait_for(x, 2, 0);
	assert_int_equal(s.requests, 21);
	assert_int_equal(src.calls, 2);
	assert_int_equal(current_seq(x), 2);
	assert_int_equal(st.nsnapshots, 2);
	stop(x);
}

/* A change soon after a reroute waits for the hold-down counted from that reroute's start. */
static void test_holddown_delays(void **state)
{
	struct fix *x;
	int64_t t0;

	(void)state;
	reset_stubs();
	x = start(400, "sftree");
	t0 = loop_now_ms();	/* the first reroute starts after this */
	pipe_request(x->p, "fault");
	wait_for(x, 1, 0);
	pipe_request(x->p, "fault");
	wait_for(x, 2, 0);
	assert_int_equal(src.calls, 2);
	assert_true(src.call_ms[1] - t0 >= 400);
	stop(x);
}

/* A reroute that fails (source or chain) keeps the last good epoch and records why. */
static void test_failure_keeps_epoch(void **state)
{
	struct epoch *before, *after;
	struct fix *x;

	(void)state;
	reset_stubs();
	x = start(0, "sftree");
	pipe_request(x->p, "startup");
	wait_for(x, 1, 0);
	before = epoch_slot_get(&x->slot);
	src.fail = 1;
	pipe_request(x->p, "fault");
	wait_for(x, 1, 1);
	after = epoch_slot_get(&x->slot);
	assert_ptr_equal(before, after);
	assert_string_equal(st.event_type[1], "error");
	assert_non_null(strstr(st.event_msg[1], "the last good epoch stays: topology file unreadable"));
	epoch_unref(after);

	/* no epoch number can be allocated: nothing is published, none is reused */
	src.fail = 0;
	st.seq_fail = 1;
	pipe_request(x->p, "fault");
	wait_for(x, 1, 2);
	after = epoch_slot_get(&x->slot);
	assert_ptr_equal(before, after);
	assert_non_null(strstr(st.event_msg[2], "database is full"));
	st.seq_fail = 0;
	pipe_request(x->p, "fault");
	wait_for(x, 2, 2);
	assert_int_equal(current_seq(x), 2);
	epoch_unref(before);
	epoch_unref(after);
	stop(x);

	/* no engine of the chain applies: the same */
	reset_stubs();
	x = start(0, "opt");
	pipe_request(x->p, "startup");
	wait_for(x, 0, 1);
	assert_int_equal(current_seq(x), 0);
	assert_non_null(strstr(st.event_msg[0], "no engine of the chain applies"));
	stop(x);
}

/* A reader's epoch stays whole after the next one is swapped in. */
static void test_epoch_swap(void **state)
{
	struct epoch *old, *cur;
	struct fix *x;

	(void)state;
	reset_stubs();
	x = start(0, "sftree");
	pipe_request(x->p, "startup");
	wait_for(x, 1, 0);
	old = epoch_slot_get(&x->slot);
	pipe_request(x->p, "fault");
	wait_for(x, 2, 0);
	cur = epoch_slot_get(&x->slot);
	assert_ptr_not_equal(old, cur);
	assert_int_equal(old->seq, 1);
	assert_int_equal(cur->seq, 2);
	assert_int_equal(old->fabric->nswitches, 12);	/* still readable */
	assert_true(an_connected(&old->report));
	assert_string_equal(old->engine, "sftree");
	epoch_unref(old);
	epoch_unref(cur);
	stop(x);
}

/* The newest snapshot is published again without routing when nothing changed. */
static void test_restore(void **state)
{
	struct eng_res res;
	struct epoch *e;
	struct fix *x;

	(void)state;
	reset_stubs();
	eng_run_chain(src.topo, "sftree", NULL, &res);
	st.snap_f = res.fabric;
	st.snap_r = res.routing;
	st.snap_seq = 41;
	res.fabric = NULL;
	res.routing = NULL;
	eng_res_free(&res);
	st.routing_key = strdup("sftree||lmc=0");
	x = start(0, "sftree");
	assert_int_equal(pipe_restore(x->p), 1);
	e = epoch_slot_get(&x->slot);
	assert_non_null(e);
	assert_int_equal(e->seq, 41);
	assert_int_equal(e->snapshot_id, 5);
	assert_string_equal(e->engine_log, "restored from the store");
	assert_true(an_connected(&e->report));
	epoch_unref(e);
	assert_int_equal(src.calls, 1);		/* only to compare the topology */
	/* the next reroute continues the sequence */
	pipe_request(x->p, "fault");
	wait_for(x, 1, 0);
	assert_int_equal(current_seq(x), 42);
	stop(x);

	/* another chain was asked for: not restored */
	reset_stubs();
	eng_run_chain(src.topo, "sftree", NULL, &res);
	st.snap_f = res.fabric;
	st.snap_r = res.routing;
	res.fabric = NULL;
	res.routing = NULL;
	eng_res_free(&res);
	st.routing_key = strdup("ftree||lmc=0");
	x = start(0, "sftree");
	assert_int_equal(pipe_restore(x->p), 0);
	assert_int_equal(current_seq(x), 0);
	stop(x);
}

static int teardown_all(void **state)
{
	(void)state;
	reset_stubs();
	fab_free(src.topo);
	src.topo = NULL;
	free(st.routing_key);
	st.routing_key = NULL;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leading_edge),
		cmocka_unit_test(test_storm_coalesced),
		cmocka_unit_test(test_holddown_delays),
		cmocka_unit_test(test_failure_keeps_epoch),
		cmocka_unit_test(test_epoch_swap),
		cmocka_unit_test(test_restore),
	};

	log_set_level(LOG_EMERG);
	return cmocka_run_group_tests(tests, NULL, teardown_all);
}
