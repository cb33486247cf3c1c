/* SPDX-License-Identifier: MIT */
/*
 * The stubs and the fixture of the reroute pipeline's tests: see
 * tests/unit/pipe_stub.h.
 */
#include <unistd.h>

#include "tests/unit/testutil.h"
#include "tests/unit/pipe_stub.h"

#include "gen/gen.h"

struct store ps_store = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
struct srcf ps_src = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

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
	if (s->nevents < PS_EVENTS_MAX) {
		snprintf(s->event_type[s->nevents], sizeof(s->event_type[0]), "%s", type);
		snprintf(s->event_msg[s->nevents], sizeof(s->event_msg[0]), "%s", message);
		s->event_details[s->nevents] = details ? json_dumps(details, JSON_COMPACT) : NULL;
	}
	s->nevents++;
	pthread_mutex_unlock(&s->mu);
	return s->nevents;
}

int64_t store_snapshot_add(struct store *s, const struct store_snap_in *in, struct fab_err *err)
{
	int64_t id;

	pthread_mutex_lock(&s->mu);
	s->snap_waiting = 1;
	while (s->snap_gate_closed)
		pthread_cond_wait(&s->cv, &s->mu);
	s->snap_waiting = 0;
	if (s->nsnapshots < 16)
		s->stored_seq[s->nsnapshots] = in->seq;
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

void store_seq_floor(struct store *s, int64_t seq)
{
	pthread_mutex_lock(&s->mu);
	if (s->seq < (uint64_t)seq)
		s->seq = (uint64_t)seq;
	pthread_mutex_unlock(&s->mu);
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

static void *loop_main(void *arg)
{
	loop_run(arg);
	return NULL;
}

void ps_reset(const char *family, const char *const *kv, size_t nkv)
{
	struct fab_err err = { { 0 } };

	fab_free(ps_src.topo);
	ps_src.topo = gen_build(family, kv, nkv, 1, &err);
	assert_non_null(ps_src.topo);
	ps_src.gate_closed = ps_src.fail = ps_src.waiting = 0;
	ps_src.calls = 0;
	free(ps_store.routing_key);
	ps_store.routing_key = NULL;
	fab_free(ps_store.snap_f);
	rt_free(ps_store.snap_r);
	ps_store.snap_f = NULL;
	ps_store.snap_r = NULL;
	for (unsigned i = 0; i < PS_EVENTS_MAX; i++) {
		free(ps_store.event_details[i]);
		ps_store.event_details[i] = NULL;
	}
	ps_store.nevents = ps_store.nsnapshots = 0;
	ps_store.snap_gate_closed = 0;
	ps_store.snap_seq = ps_store.seq = 0;
	ps_store.seq_fail = 0;
}

void ps_reset_tree(void)
{
	static const char *const kv[] = { "k=2", "n=3" };

	ps_reset("kary-ntree", kv, 2);
}

struct ps_fix *ps_start_chain(unsigned holddown_ms, const char *chain)
{
	struct pipe_settings set = { .chain = chain, .options = "", .holddown_ms = holddown_ms,
				     .keep = 10 };

	return ps_start(&set);
}

struct ps_fix *ps_start(const struct pipe_settings *set)
{
	struct fab_err err = { { 0 } };
	struct ps_fix *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	x->loop = loop_new();
	epoch_slot_init(&x->slot);
	x->p = pipe_new(x->loop, &x->slot, &ps_store, &ps_src, set, &err);
	if (!x->p)
		fail_msg("pipe_new: %s", err.msg);
	assert_int_equal(pthread_create(&x->th, NULL, loop_main, x->loop), 0);
	return x;
}

void ps_close_gate(void)
{
	pthread_mutex_lock(&ps_src.mu);
	ps_src.gate_closed = 1;
	pthread_mutex_unlock(&ps_src.mu);
}

void ps_wait_at_gate(void)
{
	int waiting = 0;

	for (int i = 0; i < 1000 && !waiting; i++) {
		pthread_mutex_lock(&ps_src.mu);
		waiting = ps_src.waiting;
		pthread_mutex_unlock(&ps_src.mu);
		if (!waiting)
			usleep(10000);
	}
	if (!waiting)
		fail_msg("no reroute reached the source within 10 s");
}

void ps_open_gate(void)
{
	pthread_mutex_lock(&ps_src.mu);
	ps_src.gate_closed = 0;
	pthread_cond_broadcast(&ps_src.cv);
	pthread_mutex_unlock(&ps_src.mu);
}

void ps_stop(struct ps_fix *x)
{
	ps_open_gate();
	loop_stop(x->loop);
	pthread_join(x->th, NULL);
	pipe_free(x->p);
	loop_free(x->loop);
	epoch_slot_fini(&x->slot);
	free(x);
}

struct pipe_stats ps_wait_for(struct ps_fix *x, uint64_t ok, uint64_t failed)
{
	struct pipe_stats s;

	for (int i = 0; i < 2000; i++) {
		pipe_stats(x->p, &s);
		if (s.ok == ok && s.failed == failed && !s.busy) {
			pipe_flush(x->p);	/* and its snapshots stored */
			return s;
		}
		usleep(5000);
	}
	fail_msg("after 10 s: %llu reroutes, %llu failed, busy %d; expected %llu and %llu",
		 (unsigned long long)s.ok, (unsigned long long)s.failed, s.busy,
		 (unsigned long long)ok, (unsigned long long)failed);
	return s;
}

uint64_t ps_current_seq(struct ps_fix *x)
{
	struct epoch *e = epoch_slot_get(&x->slot);
	uint64_t seq = e ? e->seq : 0;

	epoch_unref(e);
	return seq;
}


struct epoch *ps_current(struct ps_fix *x)
{
	return epoch_slot_get(&x->slot);
}

int ps_event(unsigned from, const char *type, const char *needle)
{
	int found = -1;

	pthread_mutex_lock(&ps_store.mu);
	for (unsigned i = from; i < ps_store.nevents && i < PS_EVENTS_MAX && found < 0; i++)
		if (!strcmp(ps_store.event_type[i], type) && strstr(ps_store.event_msg[i], needle))
			found = (int)i;
	pthread_mutex_unlock(&ps_store.mu);
	return found;
}

void ps_link_down(const char *desc, unsigned port)
{
	struct fab_err err = { { 0 } };
	uint32_t n;

	pthread_mutex_lock(&ps_src.mu);
	n = fab_node_by_desc(ps_src.topo, desc, NULL);
	if (n == FAB_NONE)
		fail_msg("no node \"%s\"", desc);
	fab_link_remove(ps_src.topo, n, port);
	if (fab_finalize(ps_src.topo, &err))
		fail_msg("%s", err.msg);
	pthread_mutex_unlock(&ps_src.mu);
}

int ps_teardown(void **state)
{
	(void)state;
	ps_reset_tree();
	fab_free(ps_src.topo);
	ps_src.topo = NULL;
	free(ps_store.routing_key);
	ps_store.routing_key = NULL;
	return 0;
}
