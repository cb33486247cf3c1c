/* SPDX-License-Identifier: MIT */
/*
 * sftree (papers/000): every switch pair connected with an acyclic CDG on
 * one VL, intact and with link and switch faults; end-node entries as
 * ftree's; the subtree root and hop counts.
 */
#include "tests/unit/testutil.h"

/* --- sftree ----------------------------------------------------------------------- */

static const char *const sf_specs[] = {
	"ft648", "ft648-rack", "kary-ntree k=4 n=3", "kary-ntree k=2 n=6", "multicore",
	"multicore cores=3",
};
#define NSF (sizeof(sf_specs) / sizeof(sf_specs[0]))

/* Every pair connected, switches included, acyclic on one VL; ftree's CA entries kept. */
static void check_sftree(const char *spec, unsigned links, unsigned sws, uint64_t seed)
{
	struct fabric *f = tu_faults(tu_gen(spec, 1), links, sws, seed);
	struct rt_routing *r = tu_route(&eng_sftree, f), *ft = tu_route(&eng_ftree, f);
	struct an_report rep;

	tu_eval(f, r, 0, &rep);
	if (!an_connected(&rep) || !rep.cdg.deadlock_free)
		fail_msg("%s, %u link and %u switch faults, seed %llu: unreachable pairs: %llu of "
			 "%llu switch-switch, %llu switch-CA, %llu CA-CA; deadlock-free %d: %s", spec,
			 links, sws, (unsigned long long)seed,
			 (unsigned long long)rep.conn.unreachable[AN_SW_SW],
			 (unsigned long long)rep.conn.pairs[AN_SW_SW],
			 (unsigned long long)rep.conn.unreachable[AN_SW_CA],
			 (unsigned long long)rep.conn.unreachable[AN_CA_CA], rep.cdg.deadlock_free,
			 r->notes);
	assert_int_equal(rep.cdg.vls_used, 1);
	assert_non_null(strstr(r->notes, "left unrouted: 0; switch-to-CA"));
	tu_same_ca_entries(f, ft, r);
	an_report_free(&rep);
	rt_free(r);
	rt_free(ft);
	fab_free(f);
}

static void test_sftree_intact(void **state)
{
	(void)state;
	for (size_t i = 0; i < NSF; i++)
		check_sftree(sf_specs[i], 0, 0, 0);
	check_sftree("mport-ntree m=8 n=3", 0, 0, 0);
	check_sftree("xgft h=3 m=4,3,2 w=1,2,3", 0, 0, 0);
	check_sftree("gft2 n=4 m=8 r=16", 0, 0, 0);
}

static void test_sftree_link_faults(void **state)
{
	(void)state;
	for (size_t i = 0; i < NSF; i++)
		for (unsigned links = 1; links <= 3; links++)
			for (uint64_t seed = 1; seed <= 6; seed++)
				check_sftree(sf_specs[i], links, 0, seed);
}

static void test_sftree_switch_faults(void **state)
{
	(void)state;
	for (size_t i = 0; i < NSF; i++)
		for (uint64_t seed = 1; seed <= 4; seed++) {
			check_sftree(sf_specs[i], 0, 1, seed);
			check_sftree(sf_specs[i], 2, 1, seed);
		}
}

/*
 * The rack-switch tree with one failed link, sn a rack switch, is the case
 * that needs the single-way-down condition: the first core leaf is taken.
 */
/*
 * An intact 2-core tree: ftree gives a core's spines no way to the other
 * core's 32 CAs (4 spines x 32 CAs x 2 cores); sftree fills exactly those
 * entries, through its subtree root.
 */
static void test_sftree_switch_to_ca(void **state)
{
	struct fabric *f = tu_gen("multicore", 1);
	struct rt_routing *ft = tu_route(&eng_ftree, f), *sf = tu_route(&eng_sftree, f);
	struct an_report rep;

	(void)state;
	tu_eval(f, ft, 0, &rep);
	assert_int_equal(rep.conn.unreachable[AN_SW_CA], 256);
	an_report_free(&rep);
	tu_eval(f, sf, 0, &rep);
	assert_true(an_connected(&rep));
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);
	assert_int_equal(tu_same_ca_entries(f, ft, sf), 256);
	assert_non_null(strstr(sf->notes, "switch-to-CA pairs routed through it: 256"));
	rt_free(ft);
	rt_free(sf);
	fab_free(f);
}

static void test_sftree_rack_root(void **state)
{
	struct fabric *f = tu_faults(tu_gen("ft648-rack", 1), 1, 0, 3);
	struct rt_routing *r = tu_route(&eng_sftree, f);

	(void)state;
	assert_non_null(strstr(r->notes, "subtree root: 'leaf-"));
	rt_free(r);
	fab_free(f);
	check_sftree("ft648-rack", 1, 0, 3);
}

/* Path length in switches crossed, and whether it crosses @via. */
static uint32_t hops(const struct fabric *f, const struct rt_routing *r, const char *a,
		     const char *b, const char *via, int *crosses)
{
	struct an_path p = { 0 };
	uint32_t src = fab_ep_of_node(f, f->switches[tu_sw_named(f, a)], 0);
	uint32_t dst = fab_ep_of_node(f, f->switches[tu_sw_named(f, b)], 0);
	uint32_t n;

	assert_int_equal(an_trace(f, r, src, fab_ep_lid(f, dst), 0, &p), 0);
	assert_int_equal(p.fail, AN_DELIVERED);
	*crosses = 0;
	for (uint32_t h = 0; h < p.nhops; h++)
		*crosses |= via && p.hops[h].node == f->switches[tu_sw_named(f, via)];
	n = p.nhops;
	an_path_free(&p);
	return n;
}

/*
 * Hop counts of papers/000 section 4: in a 2-stage tree two roots meet at
 * sn (root, sn, root); in a 4-ary 3-tree roots of different groups go down
 * to sn and up again (5 switches), roots of one group turn at the group's
 * switch above sn (3), and level-2 switches of different groups and pods
 * zig-zag through sn (7).
 */
static void test_sftree_hops(void **state)
{
	struct fabric *f = tu_gen("ft648", 1);
	struct rt_routing *r = tu_route(&eng_sftree, f);
	int x;

	(void)state;
	assert_int_equal(hops(f, r, "spine-03", "spine-11", "leaf-00", &x), 3);
	assert_true(x);
	rt_free(r);
	fab_free(f);

	f = tu_gen("kary-ntree k=4 n=3", 1);
	r = tu_route(&eng_sftree, f);
	/*
	 * Pod q holds l2-4q .. l2-4q+3; spine p hangs off l2-(4q + p % 4) in
	 * every pod: spines 0, 4, 8, 12 form a group, 1, 5, 9, 13 the next.
	 */
	assert_int_equal(hops(f, r, "spine-00", "spine-05", "leaf-00", &x), 5);
	assert_true(x);
	assert_int_equal(hops(f, r, "spine-00", "spine-04", "leaf-00", &x), 3);
	assert_false(x);
	assert_int_equal(hops(f, r, "l2-04", "l2-09", "leaf-00", &x), 7);
	assert_true(x);
	/* pairs with an up/down path keep it */
	assert_int_equal(hops(f, r, "l2-04", "l2-08", "leaf-00", &x), 3);
	assert_false(x);
	assert_non_null(strstr(r->notes, "longest switch-to-switch path: 6 links"));
	rt_free(r);
	fab_free(f);
}

/* Algorithm 1 keeps sn off the SM's leaf; documented choice when the SM is unknown. */
static void test_sftree_sm_leaf(void **state)
{
	struct fabric *f = tu_gen("ft648", 1);
	uint32_t ca = fab_node_by_desc(f, "node-005", NULL);
	struct rt_routing *r = tu_route(&eng_sftree, f);

	(void)state;
	assert_non_null(strstr(r->notes, "subtree root: 'leaf-00' (the SM's leaf is unknown)"));
	rt_free(r);
	f->sm_node = ca;	/* node-005 hangs off leaf-00 */
	f->sm_port = 1;
	r = tu_route(&eng_sftree, f);
	assert_non_null(strstr(r->notes, "subtree root: 'leaf-01' (the SM's leaf is 'leaf-00')"));
	rt_free(r);
	f->sm_node = f->switches[tu_sw_named(f, "leaf-01")];	/* the SM on a switch */
	f->sm_port = 0;
	r = tu_route(&eng_sftree, f);
	assert_non_null(strstr(r->notes, "subtree root: 'leaf-00' (the SM's leaf is 'leaf-01')"));
	rt_free(r);
	fab_free(f);
	check_sftree("ft648", 0, 0, 0);
}

/* Same fabric, same tables and notes, byte for byte. */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sftree_intact),
		cmocka_unit_test(test_sftree_link_faults),
		cmocka_unit_test(test_sftree_switch_faults),
		cmocka_unit_test(test_sftree_switch_to_ca),
		cmocka_unit_test(test_sftree_rack_root),
		cmocka_unit_test(test_sftree_hops),
		cmocka_unit_test(test_sftree_sm_leaf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
