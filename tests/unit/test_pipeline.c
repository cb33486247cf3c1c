/* SPDX-License-Identifier: MIT */
/*
 * The reroute scheduler and one reroute on their own: daemon/sched.c and
 * daemon/job.c, the real event loop, epochs and engines, linked against the
 * stubs of tests/unit/pipe_stub.c. The stubs record what the pipeline stores
 * and let a test hold a reroute in progress (the source's fabric is taken
 * behind a gate), fail one, or offer a stored snapshot to restore.
 *
 * Checked: the hold-down is leading-edge and then delays; a storm of
 * changes during a reroute is coalesced into one more; a failed reroute
 * (source, chain, or no epoch number from the store) keeps the last good
 * epoch and records an error; a snapshot being stored does not hold up
 * the next reroute; the sums for repairs are counted when the worker is
 * idle; an epoch a reader holds
 * outlives the swap; a stored snapshot is restored without routing when the
 * routing inputs match, and not otherwise; OpenSM's answers become current
 * once installed and never when not, OpenSM's own tables are adopted; a
 * pass over the routing in force's fabric under its settings keeps it.
 */
#include <pthread.h>
#include <unistd.h>

#include "tests/unit/testutil.h"
#include "tests/unit/engine_call.h"

#include "tests/unit/pipe_stub.h"

#include "svc/log.h"

/* --- tests ------------------------------------------------------------------------- */

/* The first change after a quiet period reroutes at once, whatever the hold-down. */
static void test_leading_edge(void **state)
{
	struct ps_fix *x;
	int64_t t0;

	(void)state;
	ps_reset_tree();
	x = ps_start_chain(60000, "sftree");
	t0 = loop_now_ms();
	pipe_request(x->p, "startup");
	ps_wait_for(x, 1, 0);
	assert_int_equal(ps_src.calls, 1);
	assert_true(ps_src.call_ms[0] - t0 < 5000);
	assert_int_equal(ps_current_seq(x), 1);
	assert_string_equal(ps_store.event_type[0], "reroute");
	assert_non_null(strstr(ps_store.event_msg[0], "epoch 1: sftree routed (startup)"));
	assert_int_equal(ps_store.nsnapshots, 1);
	ps_stop(x);
}

/* 20 faults while a reroute runs make one more reroute, not 20. */
static void test_storm_coalesced(void **state)
{
	struct pipe_stats s;
	struct ps_fix *x;

	(void)state;
	ps_reset_tree();
	x = ps_start_chain(0, "sftree");
	ps_close_gate();
	pipe_request(x->p, "fault");
	ps_wait_at_gate();
	for (int i = 0; i < 20; i++)
		pipe_request(x->p, "fault");
	ps_open_gate();
	s = ps_wait_for(x, 2, 0);
	assert_int_equal(s.requests, 21);
	assert_int_equal(ps_src.calls, 2);
	assert_int_equal(ps_current_seq(x), 2);
	assert_int_equal(ps_store.nsnapshots, 2);
	ps_stop(x);
}

/* A change soon after a reroute waits for the hold-down counted from that reroute's start. */
static void test_holddown_delays(void **state)
{
	struct ps_fix *x;
	int64_t t0;

	(void)state;
	ps_reset_tree();
	x = ps_start_chain(400, "sftree");
	t0 = loop_now_ms();	/* the first reroute starts after this */
	pipe_request(x->p, "fault");
	ps_wait_for(x, 1, 0);
	pipe_request(x->p, "fault");
	ps_wait_for(x, 2, 0);
	assert_int_equal(ps_src.calls, 2);
	assert_true(ps_src.call_ms[1] - t0 >= 400);
	ps_stop(x);
}

/* Wait (at most 10 s) until epoch @seq is current, or fail. */
static void wait_current(struct ps_fix *x, uint64_t seq)
{
	for (int i = 0; i < 2000 && ps_current_seq(x) != seq; i++)
		usleep(5000);
	assert_int_equal(ps_current_seq(x), seq);
}

static int snap_waiting(void)
{
	int w;

	pthread_mutex_lock(&ps_store.mu);
	w = ps_store.snap_waiting;
	pthread_mutex_unlock(&ps_store.mu);
	return w;
}

static void snap_gate(int closed)
{
	pthread_mutex_lock(&ps_store.mu);
	ps_store.snap_gate_closed = closed;
	pthread_cond_broadcast(&ps_store.cv);
	pthread_mutex_unlock(&ps_store.mu);
}

/*
 * A snapshot being stored does not hold up the next reroute: epoch 2 is
 * published while epoch 1's snapshot is still being written; both are
 * stored, in order, once the store goes on, and the stats say so meanwhile.
 */
static void test_store_behind(void **state)
{
	struct pipe_stats s;
	struct ps_fix *x;

	(void)state;
	ps_reset_tree();
	snap_gate(1);
	x = ps_start_chain(0, "sftree");
	pipe_request(x->p, "startup");
	wait_current(x, 1);
	for (int i = 0; i < 1000 && !snap_waiting(); i++)
		usleep(5000);
	assert_true(snap_waiting());
	pipe_request(x->p, "fault");
	wait_current(x, 2);
	pipe_stats(x->p, &s);
	assert_int_equal(s.ok, 2);
	assert_int_equal(s.storing, 1);
	assert_int_equal(ps_store.nsnapshots, 0);
	snap_gate(0);
	s = ps_wait_for(x, 2, 0);
	assert_int_equal(ps_store.nsnapshots, 2);
	assert_int_equal(ps_store.stored_seq[0], 1);
	assert_int_equal(ps_store.stored_seq[1], 2);
	pipe_stats(x->p, &s);
	assert_int_equal(s.storing, 0);
	ps_stop(x);
}

/*
 * The sums a repair is proven from are counted once the worker has nothing
 * else to do: the epoch is published without them, and gets them after.
 */
static void test_state_when_idle(void **state)
{
	struct epoch *e;
	struct ps_fix *x;
	int have = 0;

	(void)state;
	ps_reset_tree();
	x = ps_start_chain(0, "sftree");
	pipe_request(x->p, "startup");
	ps_wait_for(x, 1, 0);
	e = ps_current(x);
	assert_non_null(e);
	assert_true(e->opts.incremental && e->opts.state_later);
	for (int i = 0; i < 2000 && !have; i++) {
		have = __atomic_load_n(&e->report.state, __ATOMIC_ACQUIRE) != NULL;
		if (!have)
			usleep(5000);
	}
	assert_true(have);
	epoch_unref(e);
	ps_stop(x);
}

/* A reroute that fails (source or chain) keeps the last good epoch and records why. */
static void test_failure_keeps_epoch(void **state)
{
	struct epoch *before, *after;
	struct ps_fix *x;

	(void)state;
	ps_reset_tree();
	x = ps_start_chain(0, "sftree");
	pipe_request(x->p, "startup");
	ps_wait_for(x, 1, 0);
	before = ps_current(x);
	ps_src.fail = 1;
	pipe_request(x->p, "fault");
	ps_wait_for(x, 1, 1);
	after = ps_current(x);
	assert_ptr_equal(before, after);
	assert_string_equal(ps_store.event_type[1], "error");
	assert_non_null(strstr(ps_store.event_msg[1], "the last good epoch stays: topology file unreadable"));
	epoch_unref(after);

	/* no epoch number can be allocated: nothing is published, none is reused */
	ps_src.fail = 0;
	ps_store.seq_fail = 1;
	pipe_request(x->p, "fault");
	ps_wait_for(x, 1, 2);
	after = ps_current(x);
	assert_ptr_equal(before, after);
	assert_non_null(strstr(ps_store.event_msg[2], "database is full"));
	ps_store.seq_fail = 0;
	pipe_request(x->p, "fault");
	ps_wait_for(x, 2, 2);
	assert_int_equal(ps_current_seq(x), 2);
	epoch_unref(before);
	epoch_unref(after);
	ps_stop(x);

	/* no engine of the chain applies: the same */
	ps_reset_tree();
	x = ps_start_chain(0, "opt");
	pipe_request(x->p, "startup");
	ps_wait_for(x, 0, 1);
	assert_int_equal(ps_current_seq(x), 0);
	assert_non_null(strstr(ps_store.event_msg[0], "no engine of the chain applies"));
	ps_stop(x);
}

/* A reader's epoch stays whole after the next one is swapped in. */
static void test_epoch_swap(void **state)
{
	struct epoch *old, *cur;
	struct ps_fix *x;

	(void)state;
	ps_reset_tree();
	x = ps_start_chain(0, "sftree");
	pipe_request(x->p, "startup");
	ps_wait_for(x, 1, 0);
	old = ps_current(x);
	pipe_request(x->p, "fault");
	ps_wait_for(x, 2, 0);
	cur = ps_current(x);
	assert_ptr_not_equal(old, cur);
	assert_int_equal(old->seq, 1);
	assert_int_equal(cur->seq, 2);
	assert_int_equal(old->fabric->nswitches, 12);	/* still readable */
	assert_true(an_connected(&old->report));
	assert_string_equal(old->engine, "sftree");
	epoch_unref(old);
	epoch_unref(cur);
	ps_stop(x);
}

/* The newest snapshot is published again without routing when nothing changed. */
static void test_restore(void **state)
{
	struct eng_res res;
	struct epoch *e;
	struct ps_fix *x;

	(void)state;
	ps_reset_tree();
	eng_run_chain(ps_src.topo, "sftree", NULL, &res);
	ps_store.snap_f = res.fabric;
	ps_store.snap_r = res.routing;
	ps_store.snap_seq = 41;
	res.fabric = NULL;
	res.routing = NULL;
	eng_res_free(&res);
	ps_store.routing_key = strdup("sftree||lmc=0");
	x = ps_start_chain(0, "sftree");
	assert_int_equal(pipe_restore(x->p), 1);
	e = ps_current(x);
	assert_non_null(e);
	assert_int_equal(e->seq, 41);
	assert_int_equal(e->snapshot_id, 5);
	assert_string_equal(e->engine_log, "restored from the store");
	assert_true(an_connected(&e->report));
	epoch_unref(e);
	assert_int_equal(ps_src.calls, 1);		/* only to compare the topology */
	/* the next reroute continues the sequence */
	pipe_request(x->p, "fault");
	ps_wait_for(x, 1, 0);
	assert_int_equal(ps_current_seq(x), 42);
	ps_stop(x);

	/* another chain was asked for: not restored */
	ps_reset_tree();
	eng_run_chain(ps_src.topo, "sftree", NULL, &res);
	ps_store.snap_f = res.fabric;
	ps_store.snap_r = res.routing;
	res.fabric = NULL;
	res.routing = NULL;
	eng_res_free(&res);
	ps_store.routing_key = strdup("ftree||lmc=0");
	x = ps_start_chain(0, "sftree");
	assert_int_equal(pipe_restore(x->p), 0);
	assert_int_equal(ps_current_seq(x), 0);
	ps_stop(x);
}

/* Wait (10 s) for an event from @from of @type holding @needle; its index. */
static int wait_event(unsigned from, const char *type, const char *needle)
{
	int k = -1;

	for (int i = 0; i < 2000 && (k = ps_event(from, type, needle)) < 0; i++)
		usleep(5000);
	if (k < 0)
		fail_msg("no %s event with '%s' after 10 s", type, needle);
	return k;
}

/*
 * OpenSM's answers: current once OpenSM says it installed them, never when
 * it did not; then OpenSM's own engine's tables, read back, adopted as they are.
 */
static void test_opensm_answers(void **state)
{
	struct fab_err err = { { 0 } };
	struct epoch *e, *late, *fb;
	struct ps_fix *x;

	(void)state;
	ps_reset_tree();
	x = ps_start_chain(0, "sftree");
	e = pipe_route_fabric(x->p, fab_copy(ps_src.topo, &err), &err);
	assert_non_null(e);
	assert_int_equal(e->seq, 1);
	assert_int_equal(ps_current_seq(x), 0);		/* answered, not installed yet */
	assert_int_equal(ps_store.nsnapshots, 0);
	pipe_installed(x->p, 2, 1);			/* another epoch: nothing */
	pipe_installed(x->p, 1, 1);
	ps_wait_for(x, 1, 0);
	assert_int_equal(ps_current_seq(x), 1);
	assert_int_equal(ps_store.nsnapshots, 1);
	assert_true(wait_event(0, "reroute", "epoch 1: sftree routed (opensm)") >= 0);

	late = pipe_route_fabric(x->p, fab_copy(ps_src.topo, &err), &err);
	assert_non_null(late);
	assert_int_equal(late->seq, 2);
	pipe_installed(x->p, 0, 0);			/* OpenSM's own engine routed that pass */
	wait_event(0, "error", "epoch 2 not installed: OpenSM routed the pass with its own engine");
	assert_int_equal(ps_current_seq(x), 1);
	assert_int_equal(ps_store.nsnapshots, 1);
	pipe_installed(x->p, 2, 1);			/* dropped is dropped */
	usleep(50000);
	assert_int_equal(ps_current_seq(x), 1);

	fb = pipe_adopt(x->p, fab_copy(late->fabric, &err), rt_copy(late->fabric, e->routing), &err);
	assert_non_null(fb);
	assert_int_equal(fb->seq, 3);
	assert_int_equal(ps_current_seq(x), 3);
	assert_string_equal(fb->engine, "opensm");
	assert_string_equal(fb->kind, "fallback");
	assert_string_equal(fb->reason, "fallback");
	assert_true(an_connected(&fb->report));
	assert_true(wait_event(0, "reroute", "epoch 3: OpenSM's own engine routed the pass (fallback)") >= 0);
	epoch_unref(fb);
	epoch_unref(late);
	epoch_unref(e);
	ps_stop(x);
}

/* An OpenSM pass of @f (a copy is routed), installed at once: the epoch (a reference). */
static struct epoch *osm_pass(struct ps_fix *x, const struct fabric *f)
{
	struct fab_err err = { { 0 } };
	struct pipe_stats before;
	struct epoch *e;

	pipe_stats(x->p, &before);
	if (!(e = pipe_route_fabric(x->p, fab_copy(f, &err), &err)))
		fail_msg("pass: %s", err.msg);
	pipe_installed(x->p, e->seq, 1);
	ps_wait_for(x, before.ok + 1, 0);
	return e;
}

static int kept(const struct epoch *e)
{
	return e->engine_log && strstr(e->engine_log, "'s routing: the fabric and the settings are those it was made for");
}

/*
 * A pass over the fabric the routing in force was made for, under the same
 * settings, keeps that routing (the same tables, not routed again); a
 * changed LID, or option files read again with other contents, route anew.
 */
static void test_opensm_keeps(void **state)
{
	struct pipe_settings set = { .chain = "sftree", .options = "", .keep = 10 };
	struct fab_err err = { { 0 } };
	struct epoch *a, *b, *c, *d;
	struct fabric *g;
	struct ps_fix *x;

	(void)state;
	ps_reset_tree();
	x = ps_start(&set);
	a = osm_pass(x, ps_src.topo);
	b = osm_pass(x, ps_src.topo);
	assert_false(kept(a));
	assert_true(kept(b));
	assert_string_equal(epoch_digest(a), epoch_digest(b));
	assert_int_equal(b->report.dests, 0);	/* proven from a's proof */

	g = fab_copy(ps_src.topo, &err);	/* the last CA's LID moved */
	fab_port(g, g->eps[g->neps - 1].node, g->eps[g->neps - 1].port)->lid = (uint16_t)(g->lid_top + 1);
	assert_int_equal(fab_finalize(g, &err), 0);
	c = osm_pass(x, g);
	assert_false(kept(c));
	fab_free(g);

	set.files_gen = 1;			/* the option files' contents changed */
	assert_int_equal(pipe_settings_set(x->p, &set, NULL, &err), 0);
	d = osm_pass(x, ps_src.topo);
	assert_false(kept(d));
	epoch_unref(d);
	d = osm_pass(x, ps_src.topo);
	assert_true(kept(d));
	epoch_unref(a);
	epoch_unref(b);
	epoch_unref(c);
	epoch_unref(d);
	ps_stop(x);
}

/* @f with the SM on endpoint @ep's port (a copy). */
static struct fabric *with_sm(const struct fabric *f, uint32_t ep)
{
	struct fab_err err = { { 0 } };
	struct fabric *g = fab_copy(f, &err);

	assert_non_null(g);
	g->sm_node = g->eps[ep].node;
	g->sm_port = g->eps[ep].port;
	return g;
}

/*
 * A failover: the SM moves, the routing in force is kept, and its epoch
 * says where the SM was when it was made, so that a standby routing that
 * epoch's fabric as its base gets the same tables (sftree's root avoids
 * the SM's leaf).
 */
static void test_opensm_keeps_sm_moved(void **state)
{
	struct pipe_settings set = { .chain = "sftree", .options = "", .keep = 10 };
	struct fabric *f, *g;
	struct epoch *a, *b;
	struct ps_fix *x;
	struct tu_run again;

	(void)state;
	ps_reset_tree();
	f = with_sm(ps_src.topo, ps_src.topo->nswitches);		/* the first CA */
	g = with_sm(ps_src.topo, ps_src.topo->neps - 1);		/* the last */
	x = ps_start(&set);
	a = osm_pass(x, f);
	b = osm_pass(x, g);
	assert_true(kept(b));
	assert_string_equal(epoch_digest(a), epoch_digest(b));
	assert_int_equal(b->fabric->sm_node, f->sm_node);
	assert_int_equal(b->fabric->sm_port, f->sm_port);
	tu_run_route(b->fabric, "sftree", NULL, 0, NULL, NULL, &again);
	assert_string_equal(again.digest, epoch_digest(b));
	tu_run_free(&again);
	epoch_unref(a);
	epoch_unref(b);
	fab_free(f);
	fab_free(g);
	ps_stop(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leading_edge),
		cmocka_unit_test(test_storm_coalesced),
		cmocka_unit_test(test_holddown_delays),
		cmocka_unit_test(test_store_behind),
		cmocka_unit_test(test_state_when_idle),
		cmocka_unit_test(test_failure_keeps_epoch),
		cmocka_unit_test(test_epoch_swap),
		cmocka_unit_test(test_restore),
		cmocka_unit_test(test_opensm_answers),
		cmocka_unit_test(test_opensm_keeps),
		cmocka_unit_test(test_opensm_keeps_sm_moved),
	};

	log_set_level(LOG_EMERG);
	return cmocka_run_group_tests(tests, NULL, ps_teardown);
}
