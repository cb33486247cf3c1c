/* SPDX-License-Identifier: MIT */
/*
 * Every routing's notes end with the pairs it leaves unreachable, by class,
 * counted as the evaluator counts them: eng_unreachable() against
 * an_evaluate() for engines that leave pairs out (ftree on a degraded tree,
 * switch pairs without up/down path) and for one that uses several DLIDs
 * per destination (opt, pair offsets), and the notes of eng_run() with and
 * without an evaluation.
 */
#include "tests/unit/testutil.h"

/* eng_unreachable() equals the evaluator's count, class by class. */
static void same_as_eval(const struct fabric *f, const char *chain, int expect_holes)
{
	struct an_opts o = { 0 };
	struct eng_res res;
	uint64_t n[AN_NCLASSES], total = 0;
	char line[160];

	tu_run_chain(f, chain, &o, &res);
	assert_int_equal(eng_unreachable(res.fabric, res.routing, n), 0);
	for (unsigned k = 0; k < AN_NCLASSES; k++) {
		if (n[k] != res.report.conn.unreachable[k])
			fail_msg("%s, class %s: %llu counted, the evaluator %llu", chain,
				 an_class_name((enum an_class)k), (unsigned long long)n[k],
				 (unsigned long long)res.report.conn.unreachable[k]);
		total += n[k];
	}
	assert_int_equal(total > 0, expect_holes);
	/* the notes end with them */
	eng_unreachable_text(n, line, sizeof(line));
	assert_non_null(res.routing->notes);
	assert_non_null(strstr(res.routing->notes, line));
	eng_res_free(&res);
}

static void test_degraded_tree(void **state)
{
	struct gen_faults fl = { .random_links = 3, .seed = 7 };
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen("kary-ntree k=4 n=3", 1);

	(void)state;
	assert_int_equal(gen_faults_apply(&f, &fl, &err), 0);
	same_as_eval(f, "ftree", 1);
	same_as_eval(f, "sftree", 0);
	same_as_eval(f, "minhop", 0);
	fab_free(f);
}

static void test_pair_offsets(void **state)
{
	struct fabric *f = tu_gen("gft2 n=4 m=4 r=8", 1);

	(void)state;
	same_as_eval(f, "opt", 0);
	same_as_eval(f, "ftree", 1);	/* the roots among themselves */
	fab_free(f);
}

/* Without an evaluation, eng_run() counts them itself. */
static void test_notes_without_eval(void **state)
{
	struct fabric *f = tu_gen("kary-ntree k=2 n=3", 1);
	struct eng_res res;
	uint64_t n[AN_NCLASSES];
	char line[160];

	(void)state;
	tu_run_chain(f, "ftree", NULL, &res);
	assert_false(res.evaluated);
	assert_int_equal(eng_unreachable(res.fabric, res.routing, n), 0);
	assert_true(n[AN_SW_SW] > 0);
	eng_unreachable_text(n, line, sizeof(line));
	assert_non_null(strstr(res.routing->notes, line));
	assert_non_null(strstr(line, "switch->switch"));
	eng_res_free(&res);
	fab_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_degraded_tree),
		cmocka_unit_test(test_pair_offsets),
		cmocka_unit_test(test_notes_without_eval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
