/* SPDX-License-Identifier: MIT */
/*
 * The engine registry, typed options and the routing run: names and values
 * checked against each engine's schema; eng_run()'s fallback, LMC budget,
 * LID plans, repair hook and publish policy; and every engine pure: the
 * same request gives byte-identical output.
 */
#include "analysis/analysis.h"
#include "engines/engine.h"
#include "gen/gen.h"
#include "tests/unit/testutil.h"

static struct fabric *ring(void)
{
	return tu_gen("ring switches=5 hosts=2", 1);
}

static void test_registry(void **state)
{
	size_t n;
	const struct engine *const *all = eng_all(&n);
	const struct engine *want[] = { &eng_minhop, &eng_updn, &eng_ftree, &eng_sftree,
					&eng_dmodk, &eng_smodk, &eng_opt, &eng_dla, &eng_pathsel,
					&eng_swidest, &eng_rename, &eng_explicit, &eng_ftdlr };

	(void)state;
	assert_int_equal(n, 13);
	for (size_t i = 0; i < 13; i++) {
		assert_ptr_equal(eng_find(want[i]->name), want[i]);
		assert_non_null(want[i]->summary);
		assert_non_null(want[i]->route);
		assert_true(want[i]->vls >= 1);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(all[i]->name, all[j]->name);
	assert_null(eng_find("lash"));
}

static void expect_parse_error(const char *chain, const char *kv, const char *needle)
{
	const char *v[] = { kv };
	struct eng_chain c;
	struct fab_err err = { { 0 } };

	assert_int_equal(eng_chain_parse(&c, chain, v, kv ? 1 : 0, &err), -1);
	if (!strstr(err.msg, needle))
		fail_msg("%s %s: \"%s\" does not say \"%s\"", chain, kv ? kv : "", err.msg, needle);
	assert_int_equal(c.n, 0);
}

static void test_chain_parse_errors(void **state)
{
	struct eng_chain c;
	struct fab_err err = { { 0 } };

	(void)state;
	expect_parse_error("sftree,lash", NULL, "no engine \"lash\"");
	expect_parse_error("", NULL, "empty engine chain");
	expect_parse_error("minhop,,updn", NULL, "expected engine names separated by commas");
	expect_parse_error("updn,minhop", "nosuch=1", "no engine of the chain has option \"nosuch\"");
	expect_parse_error("updn,minhop", "ftree.roots=x", "no engine of the chain has option");
	expect_parse_error("updn", "roots", "expected [engine.]option=value");
	/* values are checked against the option's type, naming the option */
	expect_parse_error("opt", "opt.balance=maybe", "option opt.balance=maybe: expected one of 0|1");
	expect_parse_error("updn", "updn.detect=sideways",
			   "option updn.detect=sideways: expected one of center|osm");
	expect_parse_error("updn", "strict=yes", "option updn.strict=yes");
	expect_parse_error("updn", "roots=a,,b", "option updn.roots=a,,b: expected items");
	expect_parse_error("minhop,updn", "count_switch_lids=2", "minhop.count_switch_lids=2");
	assert_int_equal(eng_chain_parse(&c, "sftree,updn,minhop", NULL, 0, &err), 0);
	assert_int_equal(c.n, 3);
	assert_ptr_equal(c.e[1], &eng_updn);
	eng_chain_free(&c);
}

/* Every type of option, checked on its own. */
static void test_option_types(void **state)
{
	static const struct eng_opt o[] = {
		{ .name = "b", .type = ENG_OPT_BOOL, .defval = "0", .help = "" },
		{ .name = "i", .type = ENG_OPT_INT, .defval = "4", .help = "", .min = 1, .max = 16 },
		{ .name = "n", .type = ENG_OPT_INT, .defval = "0", .help = "", .min = -3, .max = 3 },
		{ .name = "e", .type = ENG_OPT_ENUM, .defval = "x", .help = "", .values = "x|yy|z" },
		{ .name = "l", .type = ENG_OPT_LIST, .defval = "", .help = "" },
		{ .name = "f", .type = ENG_OPT_FILE, .defval = "", .help = "" },
	};
	struct fab_err err = { { 0 } };
	char buf[48];

	(void)state;
	assert_int_equal(eng_opt_check("t", &o[0], "1", &err), 0);
	assert_int_equal(eng_opt_check("t", &o[0], "true", &err), -1);
	assert_int_equal(eng_opt_check("t", &o[1], "16", &err), 0);
	assert_int_equal(eng_opt_check("t", &o[1], "0x10", &err), 0);
	assert_int_equal(eng_opt_check("t", &o[1], "17", &err), -1);
	assert_string_equal(err.msg, "option t.i=17: expected an integer from 1..16");
	assert_int_equal(eng_opt_check("t", &o[1], "-1", &err), -1);
	assert_int_equal(eng_opt_check("t", &o[1], "", &err), -1);
	assert_int_equal(eng_opt_check("t", &o[1], "3x", &err), -1);
	assert_int_equal(eng_opt_check("t", &o[2], "-3", &err), 0);
	assert_int_equal(eng_opt_check("t", &o[2], "-4", &err), -1);
	assert_int_equal(eng_opt_check("t", &o[3], "yy", &err), 0);
	assert_int_equal(eng_opt_check("t", &o[3], "y", &err), -1);
	assert_string_equal(err.msg, "option t.e=y: expected one of x|yy|z");
	assert_int_equal(eng_opt_check("t", &o[4], "", &err), 0);
	assert_int_equal(eng_opt_check("t", &o[4], "a,b", &err), 0);
	assert_int_equal(eng_opt_check("t", &o[4], "a,", &err), -1);
	assert_int_equal(eng_opt_check("t", &o[4], ",a", &err), -1);
	assert_string_equal(eng_opt_type_text(&o[1], buf, sizeof(buf)), "1..16");
	assert_string_equal(eng_opt_type_text(&o[5], buf, sizeof(buf)), "FILE");
}

static void test_chain_options(void **state)
{
	struct eng_chain c;
	struct fab_err err = { { 0 } };
	const char *kv[] = { "updn.roots=sw0,sw1", "count_switch_lids=1" };

	(void)state;
	assert_int_equal(eng_chain_parse(&c, "minhop,updn", kv, 2, &err), 0);
	assert_string_equal(eng_arg(&c.args[1], "roots"), "sw0,sw1");
	assert_null(eng_arg(&c.args[0], "roots"));
	/* an option without an engine name reaches every engine that has it */
	assert_int_equal(eng_arg_bool(&c.args[0], "count_switch_lids"), 1);
	assert_int_equal(eng_arg_bool(&c.args[1], "count_switch_lids"), 1);
	assert_int_equal(eng_arg_bool(&c.args[1], "strict"), 1);	/* the default */
	assert_int_equal(eng_arg_enum(&c.args[1], "detect"), 0);
	eng_chain_free(&c);

	/* one string, as the daemon's engine_options: lists keep their commas */
	assert_int_equal(eng_chain_parse_str(&c, "updn", "updn.roots=a,b detect=osm,strict=0", &err),
			 0);
	assert_string_equal(eng_arg(&c.args[0], "roots"), "a,b");
	assert_int_equal(eng_arg_enum(&c.args[0], "detect"), 1);
	assert_int_equal(eng_arg_bool(&c.args[0], "strict"), 0);
	eng_chain_free(&c);
	assert_int_equal(eng_chain_parse_str(&c, "updn", "", &err), 0);
	eng_chain_free(&c);
	assert_int_equal(eng_chain_parse_str(&c, "updn", "detect=osm,x", &err), -1);
	assert_non_null(strstr(err.msg, "detect=osm,x"));
}

/* Run @chain on @f with @policy; the status, @res filled. */
static int run(const struct fabric *f, const char *chain, enum eng_policy policy,
	       unsigned budget, struct eng_res *res, struct fab_err *err)
{
	static const struct an_opts none = { 0 };
	struct eng_chain c;
	struct eng_req q = { .fabric = f, .chain = &c, .assign = 1, .lid_mode = FAB_LIDS_KEEP,
			     .lmc_budget = budget, .eval = &none, .policy = policy };
	int rc;

	assert_int_equal(eng_chain_parse(&c, chain, NULL, 0, err), 0);
	rc = eng_run(&q, res, err);
	eng_chain_free(&c);
	return rc;
}

/* On a ring, tree engines do not apply: the chain falls back to updn, with the reasons logged. */
static void test_chain_fallback(void **state)
{
	struct fabric *f = ring();
	struct eng_res res;
	struct fab_err err = { { 0 } };

	(void)state;
	assert_int_equal(run(f, "sftree,ftree,opt,updn,minhop", ENG_ACCEPT_ANY, 7, &res, &err),
			 ENG_OK);
	assert_ptr_equal(res.used, &eng_updn);
	assert_non_null(strstr(res.log, "sftree: not applicable"));
	assert_non_null(strstr(res.log, "opt: not applicable"));
	assert_non_null(strstr(res.log, "updn: routed"));
	assert_null(strstr(res.log, "minhop"));
	/* the result's fabric and LID plan: opt's LMC was never applied */
	assert_ptr_not_equal(res.fabric, f);
	assert_int_equal(res.nplan, f->neps);
	for (uint32_t e = 0; e < res.fabric->neps; e++) {
		assert_int_equal(fab_ep_lmc(res.fabric, e), 0);
		assert_int_equal(res.plan[e].lid, fab_ep_lid(f, e));
	}
	assert_true(res.evaluated);
	assert_true(an_connected(&res.report));
	assert_true(res.report.cdg.deadlock_free);
	eng_res_free(&res);

	/* no engine applies: the error lists each reason */
	assert_int_equal(run(f, "sftree,opt", ENG_ACCEPT_ANY, 7, &res, &err), ENG_NOT_APPLICABLE);
	assert_null(res.routing);
	assert_non_null(strstr(err.msg, "no engine of the chain applies"));
	assert_non_null(strstr(err.msg, "opt: not applicable"));
	fab_free(f);
}

/* opt needs LMC 1 on T(4+4, 6): assigned on a copy within the budget, or refused. */
static void test_lmc_budget(void **state)
{
	struct fabric *f = tu_gen("gft2 n=4 m=4 r=6", 1);
	struct eng_res res;
	struct fab_err err = { { 0 } };
	struct eng_chain c;
	struct eng_req fixed = { .fabric = f, .chain = &c };

	(void)state;
	assert_int_equal(run(f, "opt", ENG_ACCEPT_ANY, 1, &res, &err), ENG_OK);
	for (uint32_t e = 0; e < res.fabric->neps; e++) {
		int sw = res.fabric->nodes[res.fabric->eps[e].node].type == FAB_SWITCH;

		assert_int_equal(fab_ep_lmc(res.fabric, e), sw ? 0 : 1);
		assert_int_equal(res.plan[e].lmc, sw ? 0 : 1);
		assert_int_equal(fab_ep_lmc(f, e), 0);	/* the request's fabric is untouched */
	}
	eng_res_free(&res);
	assert_int_equal(run(f, "opt,dmodk", ENG_ACCEPT_ANY, 0, &res, &err), ENG_OK);
	assert_ptr_equal(res.used, &eng_dmodk);
	assert_non_null(strstr(res.log, "opt: not applicable: needs LMC 1 on every CA port; some have "
				"LMC 0 and the LMC budget is lower"));
	eng_res_free(&res);
	/* an SM's LIDs are never changed */
	assert_int_equal(eng_chain_parse(&c, "opt", NULL, 0, &err), 0);
	assert_int_equal(eng_run(&fixed, &res, &err), ENG_NOT_APPLICABLE);
	assert_non_null(strstr(err.msg, "the LIDs are the SM's"));
	eng_chain_free(&c);
	fab_free(f);
}

/* A pin that conflicts is the request's fault: ENG_ERROR with lids_failed. */
static void test_bad_pins(void **state)
{
	struct fabric *f = ring();
	struct fab_lid_pin pins[2] = {
		{ fab_port(f, f->eps[0].node, 0)->guid, 5, 0 },
		{ fab_port(f, f->eps[1].node, 0)->guid, 5, 0 },
	};
	struct eng_chain c;
	struct eng_req q = { .fabric = f, .chain = &c, .pins = pins, .npins = 2, .assign = 1 };
	struct eng_res res;
	struct fab_err err = { { 0 } };

	(void)state;
	assert_int_equal(eng_chain_parse(&c, "updn", NULL, 0, &err), 0);
	assert_int_equal(eng_run(&q, &res, &err), ENG_ERROR);
	assert_true(res.lids_failed);
	eng_chain_free(&c);
	fab_free(f);
}

/* The publish policy: a routing that falls short lets the next engine route. */
static void test_policy(void **state)
{
	struct fabric *f = ring();
	struct fab_err err = { { 0 } };
	struct gen_faults g = { .random_links = 1, .seed = 1 };
	struct fabric *t = tu_gen("kary-ntree k=2 n=3", 1);
	struct eng_res res;

	(void)state;
	/* minhop on a ring has a credit loop */
	assert_int_equal(run(f, "minhop,updn", ENG_ACCEPT_PROVEN, 7, &res, &err), ENG_OK);
	assert_ptr_equal(res.used, &eng_updn);
	assert_non_null(strstr(res.log, "minhop: routed, not accepted: deadlock possible"));
	eng_res_free(&res);
	assert_int_equal(run(f, "minhop,updn", ENG_ACCEPT_CONNECTED, 7, &res, &err), ENG_OK);
	assert_ptr_equal(res.used, &eng_minhop);
	assert_false(res.report.cdg.deadlock_free);
	eng_res_free(&res);
	assert_int_equal(run(f, "minhop", ENG_ACCEPT_PROVEN, 7, &res, &err), ENG_NOT_APPLICABLE);
	eng_res_free(&res);

	/* ftree leaves pairs of a degraded 2-ary 3-tree unreachable; sftree does not */
	assert_int_equal(gen_faults_apply(&t, &g, &err), 0);
	assert_int_equal(run(t, "ftree,sftree", ENG_ACCEPT_ANY, 7, &res, &err), ENG_OK);
	assert_ptr_equal(res.used, &eng_ftree);
	assert_false(an_connected(&res.report));
	eng_res_free(&res);
	assert_int_equal(run(t, "ftree,sftree", ENG_ACCEPT_CONNECTED, 7, &res, &err), ENG_OK);
	assert_ptr_equal(res.used, &eng_sftree);
	assert_non_null(strstr(res.log, "ftree: routed, not accepted:"));
	assert_non_null(strstr(res.log, "pairs unreachable"));
	assert_true(an_connected(&res.report));
	eng_res_free(&res);
	fab_free(t);
	fab_free(f);
}

/*
 * A test engine with a repair hook: repair applies only with a previous
 * routing of the same fabric and plans its own LIDs (every base LID + 100);
 * route hands the work to updn.
 */
static int repair_hook(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		       struct fab_err *err)
{
	const struct fabric *f = q->fabric;

	if (q->prev_fabric->nnodes != f->nnodes) {
		fab_err_set(err, "another fabric");
		return ENG_NOT_APPLICABLE;
	}
	res->plan = calloc(f->neps, sizeof(*res->plan));
	res->nplan = f->neps;
	for (uint32_t e = 0; e < f->neps; e++)
		res->plan[e] = (struct fab_lid_pin){ fab_port(f, f->eps[e].node, f->eps[e].port)->guid,
						     (uint16_t)(fab_ep_lid(f, e) + 100), 0 };
	res->routing = rt_new(f);
	return res->routing ? ENG_OK : ENG_ERROR;
}

static int route_hook(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		      struct fab_err *err)
{
	struct eng_args defaults = { .schema = eng_updn.options };

	return eng_updn.route(q, &defaults, res, err);
}

static const struct engine test_eng = {
	.name = "test", .summary = "", .vls = 1, .route = route_hook, .repair = repair_hook,
};

static void test_repair_hook(void **state)
{
	struct fabric *f = ring();
	struct fabric *other = tu_gen("ring switches=4 hosts=1", 1);
	struct eng_chain c = { .n = 1, .e = { &test_eng } };
	struct eng_req q = { .fabric = f, .chain = &c, .prev_fabric = f };
	struct rt_routing *prev = rt_new(f);
	struct eng_res res;
	struct fab_err err = { { 0 } };

	(void)state;
	q.prev = prev;
	assert_int_equal(eng_run(&q, &res, &err), ENG_OK);
	assert_true(res.repaired);
	assert_non_null(strstr(res.log, "test: routed (repair)"));
	for (uint32_t e = 0; e < f->neps; e++) {
		assert_int_equal(fab_ep_lid(res.fabric, e), fab_ep_lid(f, e) + 100);
		assert_int_equal(res.plan[e].lid, fab_ep_lid(f, e) + 100);
	}
	assert_int_equal(res.routing->lft_len, (uint32_t)f->lid_top + 1);
	eng_res_free(&res);
	/* repair does not apply: the route hook runs */
	q.prev_fabric = other;
	assert_int_equal(eng_run(&q, &res, &err), ENG_OK);
	assert_false(res.repaired);
	assert_non_null(strstr(res.log, "test: repair not applicable: another fabric\ntest: routed\n"));
	eng_res_free(&res);
	/* no previous routing: route only */
	q.prev = NULL;
	assert_int_equal(eng_run(&q, &res, &err), ENG_OK);
	assert_string_equal(res.log, "test: routed\n");
	eng_res_free(&res);
	rt_free(prev);
	fab_free(other);
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

static void same_routing(const struct eng_res *a, const struct eng_res *b)
{
	const struct rt_routing *x = a->routing, *y = b->routing;
	size_t la, lb, pairs = (size_t)x->neps * x->neps;
	char *da = dump(a->fabric, x, &la), *db = dump(b->fabric, y, &lb);

	assert_int_equal(la, lb);
	assert_memory_equal(da, db, la);
	assert_int_equal(x->vls_used, y->vls_used);
	assert_true((x->notes == NULL) == (y->notes == NULL));
	if (x->notes)
		assert_string_equal(x->notes, y->notes);
	assert_true((x->path_sl == NULL) == (y->path_sl == NULL));
	if (x->path_sl)
		assert_memory_equal(x->path_sl, y->path_sl, pairs);
	assert_true((x->dlid_off == NULL) == (y->dlid_off == NULL));
	if (x->dlid_off)
		assert_memory_equal(x->dlid_off, y->dlid_off, pairs);
	assert_int_equal(a->nplan, b->nplan);
	for (size_t i = 0; i < a->nplan; i++) {
		assert_int_equal(a->plan[i].guid, b->plan[i].guid);
		assert_int_equal(a->plan[i].lid, b->plan[i].lid);
		assert_int_equal(a->plan[i].lmc, b->plan[i].lmc);
	}
	free(da);
	free(db);
}

/* Every engine that applies routes the same input to byte-identical output; @want of them apply. */
static void check_pure(const char *spec, unsigned want)
{
	size_t n;
	const struct engine *const *all = eng_all(&n);
	struct fabric *f = tu_gen(spec, 1);
	unsigned routed = 0;

	for (size_t i = 0; i < n; i++) {
		struct eng_res a, b;
		struct fab_err err = { { 0 } };

		if (run(f, all[i]->name, ENG_ACCEPT_ANY, 7, &a, &err) != ENG_OK)
			continue;
		routed++;
		assert_int_equal(run(f, all[i]->name, ENG_ACCEPT_ANY, 7, &b, &err), ENG_OK);
		same_routing(&a, &b);
		eng_res_free(&a);
		eng_res_free(&b);
	}
	if (routed != want)
		fail_msg("%s: %u engines routed, expected %u", spec, routed, want);
	fab_free(f);
}

static void test_pure(void **state)
{
	(void)state;
	check_pure("gft2 n=4 m=4 r=6", 12);	/* every engine */
	/* the tree engines (ftdlr too), updn, minhop, lidassign's */
	check_pure("kary-ntree k=2 n=3", 9);
	/* updn, minhop, lidassign's four */
	check_pure("random switches=12 machines=30 degree=4", 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_chain_parse_errors),
		cmocka_unit_test(test_option_types),
		cmocka_unit_test(test_chain_options),
		cmocka_unit_test(test_chain_fallback),
		cmocka_unit_test(test_lmc_budget),
		cmocka_unit_test(test_bad_pins),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_repair_hook),
		cmocka_unit_test(test_pure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
