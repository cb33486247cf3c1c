/* SPDX-License-Identifier: MIT */
/*
 * The engine registry and chains: names and options checked against each
 * engine's schema, fallback on "not applicable", LIDs restored after an
 * engine that needed LMC did not apply, and every engine pure: the same
 * input gives byte-identical output.
 */
#include "analysis/analysis.h"
#include "engines/engine.h"
#include "fabric/gen.h"
#include "tests/unit/testutil.h"

static struct fabric *gen(const char *family, const char *const *kv, size_t n)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = gen_build(family, kv, n, 1, &err);

	if (!f)
		fail_msg("gen %s: %s", family, err.msg);
	return f;
}

static void test_registry(void **state)
{
	size_t n;
	const struct engine *const *all = eng_all(&n);
	const char *want[] = { "minhop", "updn", "ftree", "sftree", "dmodk", "smodk", "opt" };

	assert_int_equal(n, 7);
	for (size_t i = 0; i < 7; i++) {
		const struct engine *e = eng_find(want[i]);

		assert_non_null(e);
		assert_non_null(e->summary);
		assert_non_null(e->route);
		assert_true(e->vls >= 1);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(all[i]->name, all[j]->name);
	assert_null(eng_find("lash"));
}

static void test_chain_parse_errors(void **state)
{
	struct eng_chain c;
	struct fab_err err = { { 0 } };
	const char *bad_opt[] = { "nosuch=1" };
	const char *bad_eng[] = { "ftree.roots=x" };
	const char *no_eq[] = { "roots" };

	assert_int_equal(eng_chain_parse(&c, "sftree,lash", NULL, 0, &err), -1);
	assert_non_null(strstr(err.msg, "no engine \"lash\""));
	assert_int_equal(eng_chain_parse(&c, "", NULL, 0, &err), -1);
	assert_int_equal(eng_chain_parse(&c, "minhop,,updn", NULL, 0, &err), -1);
	assert_int_equal(eng_chain_parse(&c, "updn,minhop", bad_opt, 1, &err), -1);
	assert_non_null(strstr(err.msg, "nosuch"));
	assert_int_equal(eng_chain_parse(&c, "updn,minhop", bad_eng, 1, &err), -1);
	assert_int_equal(eng_chain_parse(&c, "updn", no_eq, 1, &err), -1);
	assert_int_equal(eng_chain_parse(&c, "sftree,updn,minhop", NULL, 0, &err), 0);
	assert_int_equal(c.n, 3);
	assert_string_equal(c.e[1]->name, "updn");
}

static void test_chain_options(void **state)
{
	struct eng_chain c;
	struct fab_err err = { { 0 } };
	const char *kv[] = { "updn.roots=sw0,sw1" };

	assert_int_equal(eng_chain_parse(&c, "minhop,updn", kv, 1, &err), 0);
	assert_string_equal(eng_arg(&c.args[1], "roots"), "sw0,sw1");
	assert_null(eng_arg(&c.args[0], "roots"));
}

/* On a ring, tree engines do not apply: the chain falls back to updn, with the reasons logged. */
static void test_chain_fallback(void **state)
{
	static const char *const kv[] = { "switches=5", "hosts=2" };
	struct fabric *f = gen("ring", kv, 2);
	struct eng_chain c;
	struct eng_outcome res;
	struct fab_err err = { { 0 } };
	struct rt_routing *r;
	struct an_report rep;
	struct an_opts o = { 0 };

	assert_int_equal(eng_chain_parse(&c, "sftree,ftree,opt,updn,minhop", NULL, 0, &err), 0);
	assert_int_equal(eng_chain_route(f, &c, &r, &res, &err), ENG_OK);
	assert_string_equal(res.used->name, "updn");
	assert_non_null(strstr(res.log, "sftree: not applicable"));
	assert_non_null(strstr(res.log, "opt: not applicable"));
	assert_non_null(strstr(res.log, "updn: routed"));
	/* opt's LMC was undone: every CA port is back to LMC 0 */
	for (uint32_t e = 0; e < f->neps; e++)
		assert_int_equal(fab_ep_lmc(f, e), 0);
	assert_int_equal(an_evaluate(f, r, &o, &rep, &err), 0);
	assert_true(an_connected(&rep));
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);
	rt_free(r);

	/* no engine applies: the error lists each reason */
	assert_int_equal(eng_chain_parse(&c, "sftree,opt", NULL, 0, &err), 0);
	assert_int_equal(eng_chain_route(f, &c, &r, &res, &err), ENG_NOT_APPLICABLE);
	assert_null(r);
	assert_non_null(strstr(err.msg, "no engine of the chain applies"));
	assert_non_null(strstr(err.msg, "opt: not applicable"));
	fab_free(f);
}

static char *dump(const struct fabric *f, const struct rt_routing *r, size_t *len)
{
	char *buf = NULL;
	FILE *mf = open_memstream(&buf, len);

	assert_non_null(mf);
	assert_int_equal(fmt_lfts_write(mf, f, r), 0);
	fclose(mf);
	return buf;
}

/* Every engine that applies routes the same input to byte-identical output. */
static void check_pure(const char *family, const char *const *kv, size_t nkv)
{
	size_t n;
	const struct engine *const *all = eng_all(&n);

	for (size_t i = 0; i < n; i++) {
		struct fabric *f = gen(family, kv, nkv);
		struct eng_chain c;
		struct eng_outcome res;
		struct fab_err err = { { 0 } };
		struct rt_routing *a, *b;
		char *da, *db;
		size_t la, lb;

		assert_int_equal(eng_chain_parse(&c, all[i]->name, NULL, 0, &err), 0);
		if (eng_chain_route(f, &c, &a, &res, &err) != ENG_OK) {
			fab_free(f);
			continue;
		}
		assert_int_equal(eng_chain_route(f, &c, &b, &res, &err), ENG_OK);
		da = dump(f, a, &la);
		db = dump(f, b, &lb);
		assert_int_equal(la, lb);
		assert_memory_equal(da, db, la);
		assert_int_equal(a->vls_used, b->vls_used);
		assert_true((a->notes == NULL) == (b->notes == NULL));
		if (a->notes)
			assert_string_equal(a->notes, b->notes);
		if (a->path_sl)
			assert_memory_equal(a->path_sl, b->path_sl, (size_t)a->neps * a->neps);
		if (a->dlid_off)
			assert_memory_equal(a->dlid_off, b->dlid_off, (size_t)a->neps * a->neps);
		free(da);
		free(db);
		rt_free(a);
		rt_free(b);
		fab_free(f);
	}
}

static void test_pure(void **state)
{
	static const char *const gft2[] = { "n=4", "m=4", "r=6" };
	static const char *const kary[] = { "k=2", "n=3" };
	static const char *const rnd[] = { "switches=12", "machines=30", "degree=4" };

	check_pure("gft2", gft2, 3);
	check_pure("kary-ntree", kary, 2);
	check_pure("random", rnd, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_chain_parse_errors),
		cmocka_unit_test(test_chain_options),
		cmocka_unit_test(test_chain_fallback),
		cmocka_unit_test(test_pure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
