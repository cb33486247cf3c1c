/* SPDX-License-Identifier: MIT */
/*
 * ftdlr within k - 1 faults (papers/001, the brief's acceptance checks 1-4),
 * repairing ftdlr's own base (sftree, switch destinations on VL 1), each
 * repair checked by fabroute's evaluator, switch paths included:
 * every 1- and 2-link fault set of the 4-ary 3-tree and sampled 3-link sets
 * (uniform, inside one group, inside the tier-1/2 column); every set of up
 * to 3 dead non-leaf switches; every single fault of the 2-ary 6-tree; 300
 * sets of 17 link faults on the 648-port tree. And the proof the daemon
 * makes of such repairs, re-evaluated from the base's, against a full
 * evaluation (analysis/reeval_near.c's destinations near the change).
 * Under the sanitizers the pairs, triples and sampled sets are a sample
 * (tu_stride()).
 */
#include "tests/unit/testutil.h"

#include "analysis/analysis.h"
#include "engines/ftdlr/ftdlr.h"
#include "engines/ftree/ftree.h"

/* One set of link faults @l[0..@n) (and switches @sw[0..@ns)), checked; the group bound asserted. */
static void one_set(const struct tu_base *b, const uint32_t *l, unsigned n, const uint32_t *sw,
		    unsigned ns, struct tu_tally *t)
{
	uint8_t *g = calloc(b->f->nswitches + 1, 1);
	struct fabric *f = tu_degrade(b, l, n, sw, ns);
	struct rt_routing *r;
	char what[128];

	for (unsigned i = 0; i < n; i++)
		tu_group_of_link(b, &b->links[l[i]], g);
	for (unsigned i = 0; i < ns; i++)
		tu_group_of_switch(b, sw[i], g);
	snprintf(what, sizeof(what), "%u link and %u switch faults (first link %u, first switch %u)",
		 n, ns, n ? l[0] : 0, ns ? sw[0] : 0);
	r = tu_check_repair(b, f, g, t, what);
	rt_free(r);
	fab_free(f);
	free(g);
}

static void report(const char *what, const struct tu_tally *t)
{
	print_message("# %s: %u sets, switch LIDs recomputed in %u, SL 1 used in %u; at most %llu "
		      "entries on %u switches (%llu of CA LIDs on %u), %u blocks on one switch\n",
		      what, t->sets, t->fallback, t->sl1, (unsigned long long)t->entries,
		      t->all_switches, (unsigned long long)t->ca_entries, t->switches, t->blocks);
}

static void test_kary43_links_1_2(void **state)
{
	struct tu_base b;
	struct tu_tally t1 = { 0 }, t2 = { 0 };
	unsigned seen = 0;

	(void)state;
	tu_base_init(&b, "kary-ntree k=4 n=3", &eng_ftdlr);
	assert_int_equal(b.nlinks, 128);
	for (uint32_t i = 0; i < b.nlinks; i++)
		one_set(&b, &i, 1, NULL, 0, &t1);
	report("4-ary 3-tree, single link faults", &t1);
	assert_true(t1.switches <= 4);	/* c, s, w, u */
	assert_true(t1.blocks <= 2);
	for (uint32_t i = 0; i < b.nlinks; i++)
		for (uint32_t j = i + 1; j < b.nlinks; j++) {
			uint32_t l[2] = { i, j };

			if (tu_take(&seen))
				one_set(&b, l, 2, NULL, 0, &t2);
		}
	report("4-ary 3-tree, link fault pairs", &t2);
	assert_int_equal(t2.sets, tu_taken(8128));
	assert_true(t2.switches <= 8);
	assert_true(t2.blocks <= 2);
	tu_base_fini(&b);
}

/* @n distinct links drawn from @pool[0..@np). */
static void draw(struct fab_rng *rng, const uint32_t *pool, uint32_t np, uint32_t *l, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned k;

		do {
			l[i] = pool[fab_rng_below(rng, np)];
			for (k = 0; k < i && l[k] != l[i]; k++)
				;
		} while (k < i);
	}
}

static void test_kary43_links_3(void **state)
{
	struct tu_base b;
	struct tu_tally t = { 0 };
	struct fab_rng rng;
	uint32_t *all, *grp, *col, na = 0, ng = 0, nc = 0, l[3], st = tu_stride();

	(void)state;
	tu_base_init(&b, "kary-ntree k=4 n=3", &eng_ftdlr);
	all = malloc(b.nlinks * sizeof(*all));
	grp = malloc(b.nlinks * sizeof(*grp));
	col = malloc(b.nlinks * sizeof(*col));
	for (uint32_t i = 0; i < b.nlinks; i++) {
		uint8_t g0[64] = { 0 }, g1[64] = { 0 };

		all[na++] = i;
		tu_group_of_link(&b, &b.links[0], g0);	/* leaf-00's group: levels 1 and 2 */
		tu_group_of_link(&b, &b.links[i], g1);
		if (!memcmp(g0, g1, b.f->nswitches))
			grp[ng++] = i;
		if (b.m.level[b.links[i].c] == 2)	/* the tier-1/2 column: one label order */
			col[nc++] = i;
	}
	assert_int_equal(ng, 16);
	assert_int_equal(nc, 64);
	fab_rng_seed(&rng, 3);
	for (unsigned s = 0; s < 1000 / st; s++) {
		draw(&rng, all, na, l, 3);
		one_set(&b, l, 3, NULL, 0, &t);
	}
	for (unsigned s = 0; s < 500 / st; s++) {
		draw(&rng, grp, ng, l, 3);
		one_set(&b, l, 3, NULL, 0, &t);
	}
	for (unsigned s = 0; s < 500 / st; s++) {
		draw(&rng, col, nc, l, 3);
		one_set(&b, l, 3, NULL, 0, &t);
	}
	report("4-ary 3-tree, sampled link fault triples", &t);
	assert_int_equal(t.sets, 1000 / st + 2 * (500 / st));
	free(all);
	free(grp);
	free(col);
	tu_base_fini(&b);
}

/*
 * (@b's base, its full evaluation @bfull) -> a repair for @l[0..@n) -> back,
 * re-evaluated with options @o; into @count, the destinations redone, those
 * near the change and those from the rows kept (re-evaluations not made whole).
 */
static void reevaluated(const struct tu_base *b, const struct an_opts *o, struct an_report *prev,
			const struct an_report *bfull, const uint32_t *l, unsigned n,
			uint64_t count[3])
{
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_degrade(b, l, n, NULL, 0);
	struct an_report rep, full;
	struct rt_routing *r;
	struct ftdlr_stats st;
	char what[96];

	snprintf(what, sizeof(what), "%u link faults from link %u, %s base", n, l[0],
		 b->r->notes ? b->r->notes : "");
	if (ftdlr_repair(b->f, b->r, f, FTDLR_MINIMAL, 1, &r, &st, &err) != ENG_OK) {
		fab_free(f);
		return;
	}
	assert_int_equal(an_reevaluate(b->f, b->r, prev, f, r, o, NULL, &rep, &err), 0);
	assert_int_equal(an_evaluate(f, r, o, &full, &err), 0);
	tu_same_report(&rep, &full, what);
	if (rep.dests < f->neps) {	/* not evaluated whole */
		count[0] += rep.dests;
		count[1] += rep.dests_near;
		count[2] += rep.dests_kept;
	}
	an_report_free(prev);
	assert_int_equal(an_reevaluate(f, r, &rep, b->f, b->r, o, NULL, prev, &err), 0);
	tu_same_report(prev, bfull, what);
	an_report_free(&rep);
	an_report_free(&full);
	rt_free(r);
	fab_free(f);
}

/*
 * The daemon proves a repair by re-evaluating from the routing in force:
 * on sftree and ftdlr bases of a 128-CA 3-tree, 60 sets of 1-3 link
 * faults (changed switches downstream of others, ways that grow), there
 * and back, the re-evaluation gives a full evaluation's report; on the
 * sftree base every destination it redoes is worked out near the change:
 * from the rows kept beside the sums (analysis/reeval_kept.c), or without
 * them (@rows_max 1) its old share from its new one
 * (analysis/reeval_near.c); ftdlr's (path SLs) is evaluated whole.
 */
static void m8_case(size_t rows_max)
{
	const struct engine *bases[] = { &eng_sftree, &eng_ftdlr };
	struct an_opts o = { .load = 1, .incremental = 1, .rows_max = rows_max };
	struct fab_err err = { { 0 } };
	struct fab_rng rng;

	fab_rng_seed(&rng, 11);
	for (unsigned k = 0; k < 2; k++) {
		struct an_report prev, bfull;
		uint64_t count[3] = { 0, 0, 0 };
		struct tu_base b;
		uint32_t *all;

		tu_base_init(&b, "mport-ntree m=8 n=3", bases[k]);
		all = malloc(b.nlinks * sizeof(*all));
		for (uint32_t i = 0; all && i < b.nlinks; i++)
			all[i] = i;
		assert_non_null(all);
		assert_int_equal(an_evaluate(b.f, b.r, &o, &prev, &err), 0);
		assert_int_equal(an_evaluate(b.f, b.r, &o, &bfull, &err), 0);
		for (unsigned i = 0; i < 60; i++) {
			uint32_t l[3];

			draw(&rng, all, b.nlinks, l, i % 3 + 1);
			reevaluated(&b, &o, &prev, &bfull, l, i % 3 + 1, count);
		}
		print_message("# %s base, rows kept up to %zu bytes: %llu destinations redone, "
			      "%llu near the change, %llu from the rows kept\n",
			      bases[k]->name, rows_max ? rows_max : AN_ROWS_MAX,
			      (unsigned long long)count[0], (unsigned long long)count[1],
			      (unsigned long long)count[2]);
		/* every way still delivers: all near; ftdlr's base has path SLs: evaluated whole */
		assert_true(k ? !count[0] : count[0] && count[1] == count[0]);
		assert_true(count[2] == (rows_max == 1 ? 0 : count[0]));
		an_report_free(&prev);
		an_report_free(&bfull);
		free(all);
		tu_base_fini(&b);
	}
}

static void test_m8_reevaluated(void **state)
{
	(void)state;
	m8_case(0);
	m8_case(1);
}

/* The memo's repair of base @b for links @l[0..@nl) and switches @sw[0..@ns) is the plain one. */
static void memo_set(const struct tu_base *b, struct eng_memo *memo, const uint32_t *l,
		     unsigned nl, const uint32_t *sw, unsigned ns, uint64_t *quick)
{
	struct fabric *f = tu_degrade(b, l, nl, sw, ns);

	tu_memo_same(b->f, b->r, f, memo, quick);
	fab_free(f);
}

/*
 * With a memo prepared, most LIDs of a repair are made at the few switches
 * where the subtree rule may differ from the base (ftdlr_quick.c). On
 * sftree bases of the 4-ary 3-tree, a 128-CA 3-tree and the 648-port
 * 2-level tree, every single link fault, some of the double ones, 200
 * triples, 200 links with a switch, every single and double upper-switch
 * fault: the
 * tables, notes and figures equal the repair without a memo (every LID
 * over every switch), and some LIDs of every kind of set were made quick.
 * (Q's growth where the classes change is needed by the argument; these
 * trees never make a LID it guards differ.)
 */
static void test_quick_same(void **state)
{
	static const char *const specs[] = { "kary-ntree k=4 n=3", "mport-ntree m=8 n=3", "ft648" };
	static const unsigned pair_step[] = { 3, 9, 60 };

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		struct eng_memo memo = { 0 };
		uint64_t quick[4] = { 0, 0, 0, 0 };
		unsigned seen = 0;
		struct tu_base b;

		tu_base_init(&b, specs[k], &eng_sftree);
		assert_int_equal(eng_ftdlr.prepare(b.f, b.r, &memo, NULL), 0);
		for (uint32_t i = 0; i < b.nlinks; i++) {
			memo_set(&b, &memo, &i, 1, NULL, 0, &quick[0]);
			for (uint32_t j = i + 1 + i % 3; j < b.nlinks; j += pair_step[k] * tu_stride()) {
				uint32_t l2[2] = { i, j };

				memo_set(&b, &memo, l2, 2, NULL, 0, &quick[1]);
			}
		}
		for (uint32_t i = 0; i < 200 / tu_stride(); i++) {	/* triples, a link with a switch */
			uint32_t l3[3] = { i * 7919u % b.nlinks, (i * 104729u + 17) % b.nlinks,
					   (i * 31u + 5) % b.nlinks };

			memo_set(&b, &memo, l3, 3, NULL, 0, &quick[1]);
			memo_set(&b, &memo, l3, 1, &b.upper[i % b.nupper], 1, &quick[3]);
		}
		for (uint32_t i = 0; i < b.nupper; i++) {
			memo_set(&b, &memo, NULL, 0, &b.upper[i], 1, &quick[2]);
			for (uint32_t j = i + 1; j < b.nupper; j++) {
				uint32_t s2[2] = { b.upper[i], b.upper[j] };

				if (tu_take(&seen))
					memo_set(&b, &memo, NULL, 0, s2, 2, &quick[3]);
			}
		}
		print_message("# %s, sftree base: LIDs repaired quick: %llu (single links), %llu "
			      "(pairs), %llu (single switches), %llu (pairs)\n", specs[k],
			      (unsigned long long)quick[0], (unsigned long long)quick[1],
			      (unsigned long long)quick[2], (unsigned long long)quick[3]);
		assert_true(quick[0] && quick[1] && quick[2] && quick[3]);
		eng_memo_clear(&memo);
		tu_base_fini(&b);
	}
}

/*
 * The prepare hook stopped and taken up again (the daemon stops it when
 * work comes, and goes on when idle): with its stop set from the start,
 * every call still goes on by one run of switches or LIDs and returns 1
 * until the last, which returns 0, and a call after it returns 0 at once.
 * On ft648 (54 switches, 702 LIDs: the classes at once, two runs of the
 * up*down* check, eleven of the subtree rule) and the 128-CA 3-tree (80
 * switches: the classes in two runs), a memo stopped after its first call
 * (no LID known yet) and the finished one both repair every single link
 * fault as the plain repair does, and the finished one makes as many LIDs
 * at their few switches as a memo made in one call.
 */
static void test_prepare_stopped(void **state)
{
	static const char *const specs[] = { "ft648", "mport-ntree m=8 n=3" };
	static const unsigned least[] = { 12, 4 };

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		struct eng_memo half = { 0 }, whole = { 0 }, once = { 0 };
		uint64_t q_half = 0, q_whole = 0, q_once = 0;
		const int stop = 1;
		struct tu_base b;
		unsigned calls = 1;
		int rc;

		tu_base_init(&b, specs[k], &eng_sftree);
		assert_int_equal(eng_ftdlr.prepare(b.f, b.r, &half, &stop), 1);
		while ((rc = eng_ftdlr.prepare(b.f, b.r, &whole, &stop)) == 1)
			calls++;
		assert_int_equal(rc, 0);
		assert_true(calls >= least[k]);
		assert_int_equal(eng_ftdlr.prepare(b.f, b.r, &whole, &stop), 0);	/* nothing left */
		assert_int_equal(eng_ftdlr.prepare(b.f, b.r, &once, NULL), 0);
		for (uint32_t i = 0; i < b.nlinks; i++) {
			memo_set(&b, &half, &i, 1, NULL, 0, &q_half);
			memo_set(&b, &whole, &i, 1, NULL, 0, &q_whole);
			memo_set(&b, &once, &i, 1, NULL, 0, &q_once);
		}
		print_message("# %s: LIDs repaired quick: %llu (stopped after 1 call), %llu (%u calls), "
			      "%llu (one)\n", specs[k], (unsigned long long)q_half,
			      (unsigned long long)q_whole, calls, (unsigned long long)q_once);
		assert_int_equal(q_whole, q_once);
		assert_true(q_half < q_once);
		eng_memo_clear(&half);
		eng_memo_clear(&whole);
		eng_memo_clear(&once);
		tu_base_fini(&b);
	}
}

static void test_kary43_switches(void **state)
{
	struct tu_base b;
	struct tu_tally t[3] = { { 0 } };
	unsigned seen = 0;
	uint32_t *u;

	(void)state;
	tu_base_init(&b, "kary-ntree k=4 n=3", &eng_ftdlr);
	u = b.upper;
	assert_int_equal(b.nupper, 32);
	for (uint32_t i = 0; i < b.nupper; i++) {
		one_set(&b, NULL, 0, &u[i], 1, &t[0]);
		for (uint32_t j = i + 1; j < b.nupper; j++) {
			uint32_t s2[2] = { u[i], u[j] };

			one_set(&b, NULL, 0, s2, 2, &t[1]);
			for (uint32_t k = j + 1; k < b.nupper; k++) {
				uint32_t s3[3] = { u[i], u[j], u[k] };

				if (tu_take(&seen))
					one_set(&b, NULL, 0, s3, 3, &t[2]);
			}
		}
	}
	report("4-ary 3-tree, 1 dead switch", &t[0]);
	report("4-ary 3-tree, 2 dead switches", &t[1]);
	report("4-ary 3-tree, 3 dead switches", &t[2]);
	assert_int_equal(t[0].sets + t[1].sets + t[2].sets, 32 + 496 + tu_taken(4960));
	tu_base_fini(&b);
}

static void test_kary26_singles(void **state)
{
	struct tu_base b;
	struct tu_tally tl = { 0 }, ts = { 0 };

	(void)state;
	tu_base_init(&b, "kary-ntree k=2 n=6", &eng_ftdlr);
	assert_int_equal(b.nlinks, 320);
	for (uint32_t i = 0; i < b.nlinks; i++)
		one_set(&b, &i, 1, NULL, 0, &tl);
	for (uint32_t i = 0; i < b.nupper; i++)
		one_set(&b, NULL, 0, &b.upper[i], 1, &ts);
	report("2-ary 6-tree, single link faults", &tl);
	report("2-ary 6-tree, single dead switches", &ts);
	assert_true(tl.switches <= 4);
	tu_base_fini(&b);
}

static void test_ft648_17(void **state)
{
	struct tu_base b;
	struct tu_tally t = { 0 };
	struct fab_rng rng;
	uint32_t *all, l[17];

	(void)state;
	tu_base_init(&b, "ft648", &eng_ftdlr);
	assert_int_equal(b.nlinks, 648);
	all = malloc(b.nlinks * sizeof(*all));
	for (uint32_t i = 0; i < b.nlinks; i++)
		all[i] = i;
	fab_rng_seed(&rng, 17);
	for (unsigned s = 0; s < 300 / tu_stride(); s++) {	/* bench/ftdlr.sh runs 1000 */
		draw(&rng, all, b.nlinks, l, 17);
		one_set(&b, l, 17, NULL, 0, &t);
	}
	report("648-port tree, sets of 17 link faults", &t);
	assert_int_equal(t.sets, 300 / tu_stride());
	free(all);
	tu_base_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kary43_links_1_2),
		cmocka_unit_test(test_kary43_links_3),
		cmocka_unit_test(test_m8_reevaluated),
		cmocka_unit_test(test_quick_same),
		cmocka_unit_test(test_prepare_stopped),
		cmocka_unit_test(test_kary43_switches),
		cmocka_unit_test(test_kary26_singles),
		cmocka_unit_test(test_ft648_17),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
