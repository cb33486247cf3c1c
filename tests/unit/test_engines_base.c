/* SPDX-License-Identifier: MIT */
/*
 * The baseline engines minhop and updn (engines/ucast/minhop.c, engines/ucast/updn.c,
 * engines/ucast/ucast.c):
 *  - on every generator family, degraded trees and LMC 2 fabrics: every
 *    pair of every class routed (every LID of each range with LMC), updn
 *    deadlock-free, minhop's paths (and updn's CA paths on trees) shortest;
 *  - known answers: minhop closes a cycle on a 5-switch ring; both spread
 *    the LIDs of a leaf evenly over its up ports; an LMC range leaves a
 *    leaf by as many different spines as it has LIDs;
 *  - OpenSM's own tables (tests/data/osm, tests/data/eval): our minhop and
 *    updn reproduce them entry for entry;
 *  - determinism, option errors, fabrics the engines refuse, roots.
 *
 * The engine registry (engines/engine.c) is not linked: the engines are
 * called through their tables.
 */
#include "tests/unit/testutil.h"

/* --- every family ----------------------------------------------------------------- */

/*
 * @tree: a fat tree, whose CA-to-CA paths updn keeps shortest (its root is
 * a leaf); @lmc: LMC > 0, every LID of each range is checked
 */
struct fam {
	const char *spec;
	uint64_t seed;
	unsigned faults;
	int tree, lmc;
};

static const struct fam fams[] = {
	{ "kary-ntree k=4 n=3", 1, 0, 1, 0 },
	{ "kary-ntree k=2 n=4", 1, 0, 1, 0 },
	{ "mport-ntree m=8 n=3", 1, 0, 1, 0 },
	{ "xgft h=3 m=4,4,4 w=1,4,4", 1, 0, 1, 0 },
	{ "xgft h=2 m=8,6 w=1,4", 1, 0, 1, 0 },
	{ "gft2 n=8 m=4 r=8", 1, 0, 1, 0 },
	{ "ft648", 1, 0, 1, 0 },
	{ "xgft h=3 m=8,6,4 w=1,4,3", 1, 0, 1, 0 },
	{ "ft648-rack racks=4 hosts=4 uplinks=9", 1, 0, 1, 0 },
	{ "ft648-rack", 1, 0, 1, 0 },
	{ "multicore", 1, 0, 1, 0 },
	{ "multicore cores=3", 1, 0, 1, 0 },
	{ "dragonfly a=6 p=3 h=3", 1, 0, 0, 0 },
	{ "dragonfly a=4 p=2 h=2", 1, 0, 0, 0 },
	{ "random switches=16 machines=64 degree=4", 1, 0, 0, 0 },
	{ "random switches=16 machines=64 degree=4", 2, 0, 0, 0 },
	{ "random switches=24 machines=48 degree=3", 3, 0, 0, 0 },
	{ "random switches=12 machines=40 degree=6", 4, 0, 0, 0 },
	{ "random switches=1 machines=6 degree=0", 1, 0, 0, 0 },
	{ "random switches=2 machines=6 degree=1", 1, 0, 0, 0 },
	{ "ring switches=5 hosts=2", 1, 0, 0, 0 },
	{ "ring switches=8", 1, 0, 0, 0 },
	{ "mesh dims=4,4", 1, 0, 0, 0 },
	{ "mesh dims=3,3,3", 1, 0, 0, 0 },
	{ "torus dims=4,4", 1, 0, 0, 0 },
	{ "torus dims=3,3,3", 1, 0, 0, 0 },
	/* trees with random link faults */
	{ "kary-ntree k=4 n=3", 1, 1, 1, 0 },
	{ "kary-ntree k=4 n=3", 2, 2, 1, 0 },
	{ "kary-ntree k=4 n=3", 3, 3, 1, 0 },
	{ "gft2 n=8 m=8 r=16", 1, 2, 1, 0 },
	{ "xgft h=3 m=4,4,4 w=1,4,4", 5, 3, 1, 0 },
	{ "ft648", 7, 3, 1, 0 },
	/* LMC 2 */
	{ "kary-ntree k=2 n=3 lmc=2", 1, 0, 1, 1 },
	{ "gft2 n=4 m=4 r=6 lmc=2", 1, 0, 1, 1 },
	{ "dragonfly a=3 p=2 h=1 lmc=2", 1, 0, 0, 1 },
	{ "random switches=10 machines=30 degree=4 lmc=2", 9, 0, 0, 1 },
	{ "torus dims=3,3 hosts=2 lmc=2", 1, 0, 0, 1 },
};

#define NFAMS (sizeof(fams) / sizeof(fams[0]))

static void check_family(const struct fam *c)
{
	struct fabric *f = tu_faults(tu_gen(c->spec, c->seed), c->faults, 0, c->seed + c->faults);
	struct rt_routing *mh = tu_route(&eng_minhop, f), *ud = tu_route(&eng_updn, f);
	struct an_report rep;

	tu_eval(f, mh, c->lmc, &rep);
	if (!an_connected(&rep))
		fail_msg("minhop on %s: pairs left unrouted", c->spec);
	an_report_free(&rep);
	tu_check_shortest(f, mh, 0, 20000);

	tu_eval(f, ud, c->lmc, &rep);
	if (!an_connected(&rep))
		fail_msg("updn on %s: pairs left unrouted (%s)", c->spec, ud->notes);
	if (!rep.cdg.deadlock_free)
		fail_msg("updn on %s: credit loop", c->spec);
	assert_int_equal(rep.cdg.vls_used, 1);
	an_report_free(&rep);
	if (c->tree)
		tu_check_shortest(f, ud, 1, 20000);
	rt_free(mh);
	rt_free(ud);
	fab_free(f);
}

static void test_families(void **state)
{
	(void)state;
	for (size_t i = 0; i < NFAMS; i++)
		check_family(&fams[i]);
}

/* --- known answers ---------------------------------------------------------------- */

/* Shortest paths chase each other round a ring of 5: a cycle; updn breaks it. */
static void test_ring_cycle(void **state)
{
	struct fabric *f = tu_gen("ring switches=5 hosts=1", 1);
	struct rt_routing *mh = tu_route(&eng_minhop, f), *ud = tu_route(&eng_updn, f);
	struct an_report rep;

	(void)state;
	tu_eval(f, mh, 0, &rep);
	assert_true(an_connected(&rep));
	assert_false(rep.cdg.deadlock_free);
	assert_false(rep.cdg.vl[0].acyclic);
	assert_true(rep.cdg.vl[0].cycle_len >= 5);	/* round the whole ring */
	an_report_free(&rep);
	tu_eval(f, ud, 0, &rep);
	assert_true(an_connected(&rep));
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);
	assert_int_equal(eng_minhop.deadlock_free, 0);
	assert_int_equal(eng_updn.deadlock_free, 1);
	rt_free(mh);
	rt_free(ud);
	fab_free(f);
}

/*
 * The largest difference, over every switch of @f, between the LIDs its up
 * ports (towards a higher level) carry; CA and router LIDs only unless @all.
 */
static unsigned up_port_spread(const struct fabric *f, const struct rt_routing *r, int all)
{
	struct fab_err err = { { 0 } };
	struct fab_shape sh;
	unsigned worst = 0;

	assert_int_equal(fab_shape(f, &sh, &err), 0);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s], cnt[FAB_PORTS_MAX + 1] = { 0 };
		uint32_t lo = UINT32_MAX, hi = 0;

		for (unsigned lid = 1; lid <= f->lid_top; lid++) {
			uint32_t e = fab_ep_by_lid(f, lid);
			uint8_t p = rt_lft_get(r, s, lid);

			if (e != FAB_NONE && (all || tu_is_ca(f, e)) && p != RT_NO_PORT)
				cnt[p]++;
		}
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t peer = fab_port(f, node, p)->peer;

			if (peer == FAB_NONE || f->nodes[peer].type != FAB_SWITCH ||
			    sh.level[f->nodes[peer].swidx] <= sh.level[s])
				continue;
			lo = cnt[p] < lo ? cnt[p] : lo;
			hi = cnt[p] > hi ? cnt[p] : hi;
		}
		if (lo != UINT32_MAX && hi - lo > worst)
			worst = hi - lo;
	}
	fab_shape_free(&sh);
	return worst;
}

/*
 * OpenSM's balance: the CA LIDs of a switch spread over its up ports to
 * within one. Switch LIDs do not count by default, so they all leave by the
 * port least loaded when their turn comes (what OpenSM does); with
 * count_switch_lids=1 they spread too.
 */
static void check_balance(const char *spec)
{
	static const char *const count_sw[] = { "count_switch_lids=1", NULL };
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen(spec, 1);
	const struct engine *es[] = { &eng_minhop, &eng_updn };

	for (unsigned i = 0; i < 2; i++) {
		struct rt_routing *r = tu_route(es[i], f);

		if (up_port_spread(f, r, 0) > 1)
			fail_msg("%s on %s: CA LIDs spread %u apart", es[i]->name, spec,
				 up_port_spread(f, r, 0));
		assert_true(up_port_spread(f, r, 1) > 1);	/* switch LIDs pile up */
		rt_free(r);
		r = tu_route_opts(es[i], f, count_sw, ENG_OK, &err);
		assert_true(up_port_spread(f, r, 0) <= 1);
		assert_true(up_port_spread(f, r, 1) <= 2);
		rt_free(r);
	}
	fab_free(f);
}

static void test_balance(void **state)
{
	(void)state;
	check_balance("gft2 n=8 m=8 r=16");
	check_balance("gft2 n=12 m=4 r=8");
	check_balance("kary-ntree k=4 n=3");
}

/*
 * LMC 2 on a 2-level tree with 4 spines: the 4 LIDs of a CA on another
 * leaf leave a leaf by 4 different up ports (4 different spines).
 */
static void test_lmc_spread(void **state)
{
	struct fabric *f = tu_gen("gft2 n=4 m=4 r=6 lmc=2", 1);
	const struct engine *es[] = { &eng_minhop, &eng_updn };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct rt_routing *r = tu_route(es[i], f);

		for (uint32_t s = 0; s < f->nswitches; s++)
			for (uint32_t e = 0; e < f->neps; e++) {
				unsigned used = 0, base = fab_ep_lid(f, e);

				if (!tu_is_ca(f, e) || tu_ep_sw(f, e) == s ||
				    strncmp(fab_desc(f, f->switches[s]), "leaf", 4))
					continue;
				assert_int_equal(fab_ep_lmc(f, e), 2);
				for (unsigned l = 0; l < 4; l++)
					used |= 1u << rt_lft_get(r, s, base + l);
				assert_int_equal(__builtin_popcount(used), 4);
			}
		rt_free(r);
	}
	fab_free(f);
}

/* --- determinism ------------------------------------------------------------------- */

static void check_same(const struct engine *e, const struct fabric *f)
{
	struct rt_routing *a = tu_route(e, f), *b = tu_route(e, f);

	assert_int_equal(a->lft_len, b->lft_len);
	assert_true(rt_equal_lfts(a, b));
	assert_non_null(a->notes);
	assert_string_equal(a->notes, b->notes);
	assert_int_equal(a->vls_used, 1);
	assert_null(a->path_sl);
	rt_free(a);
	rt_free(b);
}

static void test_deterministic(void **state)
{
	struct fabric *f1 = tu_gen("random switches=20 machines=60 degree=4 lmc=1", 11);
	struct fabric *f2 = tu_faults(tu_gen("kary-ntree k=4 n=3", 4), 2, 0, 4 + 2);

	(void)state;
	check_same(&eng_minhop, f1);
	check_same(&eng_updn, f1);
	check_same(&eng_minhop, f2);
	check_same(&eng_updn, f2);
	fab_free(f1);
	fab_free(f2);
}

/* --- refusals and errors --------------------------------------------------------------- */

/*
 * By hand: with @switches, switches "A" and "B" with a CA each and no link
 * between them; without, two CAs linked to each other.
 */
static struct fabric *hand_made(int switches)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_new();
	struct fab_node_info sw = { .type = FAB_SWITCH, .nports = 4, .guid = 0x10, .desc = "A" };
	struct fab_node_info ca = { .type = FAB_CA, .nports = 1, .guid = 0x100, .desc = "h1" };
	uint32_t h1, h2;

	assert_non_null(f);
	h1 = fab_node_add(f, &ca, &err);
	ca.guid = 0x200, ca.desc = "h2";
	h2 = fab_node_add(f, &ca, &err);
	if (switches) {
		uint32_t a = fab_node_add(f, &sw, &err), b;

		sw.guid = 0x20, sw.desc = "B";
		b = fab_node_add(f, &sw, &err);
		assert_int_equal(fab_link_add(f, h1, 1, a, 1, &err), 0);
		assert_int_equal(fab_link_add(f, h2, 1, b, 1, &err), 0);
	} else {
		assert_int_equal(fab_link_add(f, h1, 1, h2, 1, &err), 0);
	}
	assert_int_equal(fab_finalize(f, &err), 0);
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err), 0);
	return f;
}

static void test_disconnected(void **state)
{
	struct fabric *f = hand_made(1);
	const struct engine *es[] = { &eng_minhop, &eng_updn };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct fab_err err = { { 0 } };

		tu_route_opts(es[i], f, NULL, ENG_NOT_APPLICABLE, &err);
		assert_non_null(strstr(err.msg, "'A' cannot reach 'B'"));
	}
	fab_free(f);
}

/* Two CAs linked to each other: nothing to route, both engines apply. */
static void test_no_switches(void **state)
{
	struct fabric *f = hand_made(0);
	const struct engine *es[] = { &eng_minhop, &eng_updn };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct rt_routing *r = tu_route(es[i], f);
		struct an_report rep;

		assert_int_equal(r->nswitches, 0);
		tu_eval(f, r, 0, &rep);
		assert_true(an_connected(&rep));
		an_report_free(&rep);
		rt_free(r);
	}
	fab_free(f);
}

static void expect_error(const struct engine *e, const struct fabric *f, const char *opt,
			 const char *needle)
{
	const char *opts[] = { opt, NULL };
	struct fab_err err = { { 0 } };

	tu_route_opts(e, f, opts, ENG_ERROR, &err);
	if (!strstr(err.msg, needle))
		fail_msg("%s with %s: \"%s\" does not mention \"%s\"", e->name, opt, err.msg, needle);
}

/* A value of the wrong type is refused when the chain is parsed. */
static void expect_refused(const struct engine *e, const char *opt, const char *needle)
{
	struct eng_chain c;
	struct fab_err err = { { 0 } };

	assert_int_equal(eng_chain_parse(&c, e->name, &opt, 1, &err), -1);
	if (!strstr(err.msg, needle))
		fail_msg("%s with %s: \"%s\" does not mention \"%s\"", e->name, opt, err.msg, needle);
}

static void test_bad_options(void **state)
{
	struct fabric *f = tu_gen("gft2 n=4 m=2 r=4", 1);

	(void)state;
	expect_error(&eng_updn, f, "roots=leaf-00,no-such-switch", "no-such-switch");
	expect_error(&eng_updn, f, "roots=0xdeadbeef", "0xdeadbeef");
	expect_refused(&eng_updn, "detect=spines", "updn.detect=spines: expected one of center|osm");
	expect_refused(&eng_updn, "strict=yes", "updn.strict=yes: expected one of 0|1");
	expect_refused(&eng_minhop, "count_switch_lids=2", "minhop.count_switch_lids=2");
	fab_free(f);
}

/* --- roots --------------------------------------------------------------------------- */

/* N of "N switch pairs without an up/down path" in @notes, 0 when absent. */
static unsigned long long unrouted_in(const char *notes)
{
	const char *p = strstr(notes, " switch pairs without");

	if (!p)
		return 0;
	while (p > notes && p[-1] != ' ')
		p--;
	return strtoull(p, NULL, 10);
}

/*
 * Several roots: the spines of a tree (given, or found by OpenSM's rule)
 * cannot reach one another along up/down paths. strict refuses and names a
 * pair; strict=0 routes all CA traffic and leaves exactly those switch pairs
 * out, deadlock-free.
 */
static void test_several_roots(void **state)
{
	static const char *const given[] = { "roots=spine-00,spine-01,spine-02", NULL };
	static const char *const osm[] = { "detect=osm", NULL };
	static const char *const loose[] = { "detect=osm", "strict=0", NULL };
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen("gft2 n=4 m=3 r=6", 1);
	struct rt_routing *r;
	struct an_report rep;

	(void)state;
	tu_route_opts(&eng_updn, f, given, ENG_NOT_APPLICABLE, &err);
	assert_non_null(strstr(err.msg, "no up/down path from switch 'spine-0"));
	assert_non_null(strstr(err.msg, "strict=0"));
	tu_route_opts(&eng_updn, f, osm, ENG_NOT_APPLICABLE, &err);
	assert_non_null(strstr(err.msg, "'spine-00', 'spine-01', 'spine-02'"));
	r = tu_route_opts(&eng_updn, f, loose, ENG_OK, &err);
	tu_eval(f, r, 0, &rep);
	assert_int_equal(rep.conn.unreachable[AN_CA_CA], 0);
	assert_int_equal(rep.conn.unreachable[AN_CA_SW], 0);
	assert_int_equal(rep.conn.unreachable[AN_SW_CA], 0);
	assert_int_equal(rep.conn.unreachable[AN_SW_SW], 6);	/* 3 spines, ordered pairs */
	assert_int_equal(unrouted_in(r->notes), 6);
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

/*
 * Two roots on an irregular fabric: the second BFS (all-down routes kept)
 * reaches switch pairs the first could not; what stays unrouted is what the
 * notes report, and the routing stays deadlock-free.
 */
static void test_all_down_fallback(void **state)
{
	static const char *const opts[] = { "roots=sw-01,sw-05", "strict=0", NULL };
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen("random switches=14 machines=20 degree=4", 6);
	struct rt_routing *r = tu_route_opts(&eng_updn, f, opts, ENG_OK, &err);
	struct an_report rep;

	(void)state;
	assert_non_null(strstr(r->notes, "routed with all-down routes kept"));
	tu_eval(f, r, 0, &rep);
	assert_true(unrouted_in(r->notes) > 0);
	assert_int_equal(rep.conn.unreachable[AN_SW_SW], unrouted_in(r->notes));
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

/*
 * Root detection: a leaf of a tree (not a spine), the center of a mesh; a
 * CA given as root stands for its switch; OpenSM's rule finds none on a
 * ring, where every switch has CAs.
 */
static void test_detect(void **state)
{
	static const char *const by_ca[] = { "roots=node-05", NULL };
	static const char *const osm[] = { "detect=osm", NULL };
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen("gft2 n=4 m=4 r=6", 1);
	struct rt_routing *r = tu_route(&eng_updn, f);

	(void)state;
	assert_non_null(strstr(r->notes, "root 'leaf-00' (detected)"));
	rt_free(r);
	r = tu_route_opts(&eng_updn, f, by_ca, ENG_OK, &err);
	assert_non_null(strstr(r->notes, "root 'leaf-01' (given)"));	/* 4 CAs per leaf */
	rt_free(r);
	fab_free(f);

	f = tu_gen("mesh dims=5,5", 1);
	r = tu_route(&eng_updn, f);
	assert_non_null(strstr(r->notes, "root 'sw-2-2'"));
	rt_free(r);
	fab_free(f);

	f = tu_gen("ring switches=6", 1);
	tu_route_opts(&eng_updn, f, osm, ENG_NOT_APPLICABLE, &err);
	assert_non_null(strstr(err.msg, "no root"));
	fab_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_ring_cycle),
		cmocka_unit_test(test_balance),
		cmocka_unit_test(test_lmc_spread),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_disconnected),
		cmocka_unit_test(test_no_switches),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_several_roots),
		cmocka_unit_test(test_all_down_fallback),
		cmocka_unit_test(test_detect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
