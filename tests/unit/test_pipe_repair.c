/* SPDX-License-Identifier: MIT */
/*
 * Repair now, rebalance later, through the pipeline: daemon/job.c and
 * daemon/repair.c with the real engines (eng_run() in ENG_MODE_REPAIR and
 * ENG_MODE_ROUTE) and the stubs of tests/unit/pipe_stub.c.
 *
 * Checked: a link fault of a 2-level fat tree is published at once as
 * ftdlr's repair of the base (sftree's routing), with a "repair" event
 * counting what changed; the recovery gives the base's tables back; a change
 * ftdlr cannot repair (the fabric is not the base with faults) is refused
 * with the reason in an event and the chain routes; once the fabric is stable
 * the chain's routing replaces the repair (a "rebalance" epoch) and becomes
 * the base, or, beyond rebalance_max_blocks, the repair stays; a new chain drops the base, so the
 * next fault is routed by the chain.
 */
#include <unistd.h>

#include "tests/unit/testutil.h"
#include "tests/unit/pipe_stub.h"

#include "engines/engine.h"
#include "svc/log.h"

/* The 4-ary 2-tree: 4 leaves, 4 spines, 16 nodes. */
static void reset_2tree(void)
{
	static const char *const kv[] = { "k=4", "n=2" };

	ps_reset("kary-ntree", kv, 2);
}

static struct ps_fix *start_repairing(const char *chain, unsigned delay_s, unsigned max_blocks)
{
	struct pipe_settings set = { .chain = chain, .options = "", .keep = 10, .repair = 1,
				     .policy = ENG_ACCEPT_PROVEN, .rebalance_delay_s = delay_s,
				     .rebalance_max_blocks = max_blocks };

	return ps_start(&set);
}

/* The current epoch's engine, reason and whether it is connected and deadlock-free. */
static void expect_current(struct ps_fix *x, const char *engine, const char *reason)
{
	struct epoch *e = ps_current(x);

	assert_non_null(e);
	assert_string_equal(e->engine, engine);
	assert_string_equal(e->reason, reason);
	assert_true(an_connected(&e->report));
	assert_true(e->report.cdg.deadlock_free);
	epoch_unref(e);
}

/* A link fault is repaired at once; its recovery gives the base back. */
static void test_repair_and_recovery(void **state)
{
	struct epoch *base, *rep, *back;
	struct ps_fix *x;
	int ev;

	(void)state;
	reset_2tree();
	x = start_repairing("sftree,updn", 0, 0);
	pipe_request(x->p, "startup");
	ps_wait_for(x, 1, 0);
	base = ps_current(x);
	assert_string_equal(base->engine, "sftree");

	ps_link_down("leaf-00", 5);
	pipe_request(x->p, "fault");
	ps_wait_for(x, 2, 0);
	expect_current(x, "ftdlr", "fault");
	rep = ps_current(x);
	assert_false(rt_equal_lfts(base->routing, rep->routing));
	assert_non_null(strstr(rep->engine_log, "ftdlr: routed (repair)"));
	ev = ps_event(0, "repair", "local repair");
	assert_true(ev >= 0);
	assert_non_null(strstr(ps_store.event_msg[ev], "changed from epoch 1"));
	assert_non_null(strstr(ps_store.event_details[ev], "\"blocks\""));

	/* the link comes back: the repair of the base without faults is the base */
	ps_reset("kary-ntree", (const char *const[]){ "k=4", "n=2" }, 2);
	pipe_request(x->p, "fault");
	ps_wait_for(x, 3, 0);
	back = ps_current(x);
	assert_string_equal(back->engine, "ftdlr");
	assert_true(rt_equal_lfts(base->routing, back->routing));
	epoch_unref(base);
	epoch_unref(rep);
	epoch_unref(back);
	ps_stop(x);
}

/* A change ftdlr does not repair: refused with the reason, the chain routes. */
static void test_repair_refused(void **state)
{
	static const char *const bigger[] = { "k=4", "n=3" };
	struct ps_fix *x;
	int ev;

	(void)state;
	reset_2tree();
	x = start_repairing("sftree", 0, 0);
	pipe_request(x->p, "startup");
	ps_wait_for(x, 1, 0);
	ps_reset("kary-ntree", bigger, 2);	/* other switches: not the base with faults */
	ps_store.nevents = 0;
	pipe_request(x->p, "fault");
	ps_wait_for(x, 2, 0);
	expect_current(x, "sftree", "fault");
	ev = ps_event(0, "repair", "no local repair");
	assert_true(ev >= 0);
	assert_non_null(strstr(ps_store.event_msg[ev], "ftdlr: not applicable"));
	assert_non_null(strstr(ps_store.event_msg[ev], "sftree routed"));
	assert_non_null(strstr(ps_store.event_details[ev], "\"refused\":true"));
	ps_stop(x);
}

/* Once stable, the chain's routing replaces the repair. */
static void test_rebalance_adopted(void **state)
{
	struct ps_fix *x;

	(void)state;
	reset_2tree();
	x = start_repairing("sftree", 1, 0);
	pipe_request(x->p, "startup");
	ps_wait_for(x, 1, 0);
	ps_link_down("spine-01", 2);
	pipe_request(x->p, "fault");
	ps_wait_for(x, 2, 0);
	expect_current(x, "ftdlr", "fault");
	ps_wait_for(x, 3, 0);			/* the rebalance, 1 s later */
	expect_current(x, "sftree", "rebalance");
	assert_true(ps_event(0, "rebalance", "rebalanced") >= 0);
	/*
	 * the rebalanced routing is the new base; ftdlr repairs only a base
	 * routed on the whole tree, so the next fault is refused with that
	 * reason and the chain routes it
	 */
	ps_link_down("spine-02", 3);
	pipe_request(x->p, "fault");
	ps_wait_for(x, 4, 0);
	expect_current(x, "sftree", "fault");
	assert_true(ps_event(0, "repair", "its parents cannot be labelled") >= 0);
	ps_stop(x);
}

/* A rebalance over rebalance_max_blocks is declined: the repair stays. */
static void test_rebalance_declined(void **state)
{
	struct ps_fix *x;
	uint64_t seq;
	int ev = -1;

	(void)state;
	reset_2tree();
	x = start_repairing("sftree", 1, 1);
	pipe_request(x->p, "startup");
	ps_wait_for(x, 1, 0);
	ps_link_down("spine-01", 2);
	pipe_request(x->p, "fault");
	ps_wait_for(x, 2, 0);
	seq = ps_current_seq(x);
	for (int i = 0; i < 400 && ev < 0; i++) {
		usleep(10000);
		ev = ps_event(0, "rebalance", "not adopted");
	}
	assert_true(ev >= 0);
	assert_non_null(strstr(ps_store.event_msg[ev], "rebalance_max_blocks is 1"));
	assert_int_equal(ps_current_seq(x), seq);
	expect_current(x, "ftdlr", "fault");
	ps_stop(x);
}

/* New routing inputs: no repair of a routing made with the old ones. */
static void test_new_chain_drops_base(void **state)
{
	struct pipe_settings set = { .chain = "updn", .options = "", .keep = 10, .repair = 1,
				     .policy = ENG_ACCEPT_PROVEN };
	struct fab_err err = { { 0 } };
	struct ps_fix *x;

	(void)state;
	reset_2tree();
	x = start_repairing("sftree", 0, 0);
	pipe_request(x->p, "startup");
	ps_wait_for(x, 1, 0);
	assert_int_equal(pipe_settings_set(x->p, &set, NULL, &err), 0);
	ps_link_down("leaf-01", 6);
	pipe_request(x->p, "fault");
	ps_wait_for(x, 2, 0);
	expect_current(x, "updn", "fault");
	assert_int_equal(ps_event(0, "repair", ""), -1);
	ps_stop(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repair_and_recovery),
		cmocka_unit_test(test_repair_refused),
		cmocka_unit_test(test_rebalance_adopted),
		cmocka_unit_test(test_rebalance_declined),
		cmocka_unit_test(test_new_chain_drops_base),
	};

	log_set_level(LOG_EMERG);
	return cmocka_run_group_tests(tests, NULL, ps_teardown);
}
