/* SPDX-License-Identifier: MIT */
/*
 * What an evaluation tells its caller while it runs, and how it is stopped:
 * an_opts.progress is called with counts that never go back, ending at the
 * total; an_opts.cancel stops an evaluation (and an_state_make()) with its
 * own message, leaving nothing behind.
 */
#include "analysis/analysis.h"
#include "tests/unit/testutil.h"

/* --- progress ----------------------------------------------------------------- */

struct seen {
	uint64_t calls, last, total;
	int backwards;
};

static void on_progress(void *arg, uint64_t done, uint64_t total)
{
	struct seen *s = arg;

	s->backwards |= done < s->last || done > total;
	s->calls++;
	s->last = done;
	s->total = total;
}

static void test_progress(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen("ft648", 3);
	struct rt_routing *r = tu_route_in_place(f, "sftree");
	struct seen s = { 0 };
	struct an_opts o = { .load = 1, .threads = 2, .progress = on_progress, .progress_arg = &s };
	struct an_report rep;

	(void)state;
	assert_int_equal(an_evaluate(f, r, &o, &rep, &err), 0);
	assert_true(s.calls >= 1);
	assert_false(s.backwards);
	assert_int_equal(s.total, f->neps);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

/* Stops the evaluation once @at destinations are done (struct an_opts.cancel). */
struct stopper {
	int cancel;
	uint64_t at, calls;
};

static void stop_at(void *arg, uint64_t done, uint64_t total)
{
	struct stopper *s = arg;

	(void)total;
	s->calls++;
	if (done >= s->at)
		__atomic_store_n(&s->cancel, 1, __ATOMIC_RELAXED);
}

/*
 * A cancelled evaluation fails with its own message and leaves no report
 * or state; an_state_make() cancelled leaves the report as it was, and
 * makes the same state afterwards as if it had never been stopped.
 */
static void test_cancel(void **state)
{
	static const struct an_opts later = { .load = 1, .incremental = 1, .state_later = 1,
					      .threads = 2 };
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen("ft648", 3);
	struct rt_routing *r = tu_route_in_place(f, "sftree");
	struct stopper s = { .cancel = 1 };
	struct an_opts o = later;
	struct an_report rep, full;

	(void)state;
	o.cancel = &s.cancel;
	assert_int_equal(an_evaluate(f, r, &o, &rep, &err), -1);
	assert_string_equal(err.msg, "evaluation cancelled");
	assert_null(rep.state);
	assert_null(rep.port_all);

	assert_int_equal(an_evaluate(f, r, &later, &rep, &err), 0);
	assert_null(rep.state);
	s = (struct stopper){ .at = 1 };
	o.progress = stop_at;
	o.progress_arg = &s;
	assert_int_equal(an_state_make(f, r, &o, &rep, &err), -1);
	assert_true(s.calls >= 1);
	assert_string_equal(err.msg, "evaluation cancelled");
	assert_null(rep.state);
	assert_int_equal(an_state_make(f, r, &later, &rep, &err), 0);
	assert_non_null(rep.state);
	assert_int_equal(an_evaluate(f, r, &(struct an_opts){ .load = 1, .incremental = 1 }, &full,
				     &err), 0);
	tu_same_report(&rep, &full, "the state made after a cancelled one");
	an_report_free(&full);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_cancel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
