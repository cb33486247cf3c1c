/* SPDX-License-Identifier: MIT */
/*
 * The fat-tree engines ftree and sftree (papers/000), proven with the
 * evaluator: CA-to-CA connectivity, balance and dedicated downward paths
 * of ftree on every tree family, intact and degraded (every CA pair with an
 * up/down path routed, counted here independently of the engine), not
 * applicable off trees; sftree's switch-to-switch connectivity with an
 * acyclic channel dependency graph on one VL (switch paths included), every
 * CA entry ftree made kept as it is (the ones ftree left empty filled
 * through the subtree), its hop counts, the subtree root away from the SM;
 * determinism, time, and OpenSM's own ftree tables on the same fabric.
 */
#include <time.h>

#include "tests/unit/testutil.h"

/* --- ftree ------------------------------------------------------------------------ */

static const char *const families[] = {
	"kary-ntree k=4 n=3", "kary-ntree k=2 n=6", "kary-ntree k=3 n=4", "mport-ntree m=8 n=3",
	"xgft h=3 m=4,3,2 w=1,2,3", "xgft h=3 m=4,4,4 w=1,4,2", "gft2 n=8 m=4 r=16",
	"gft2 n=4 m=8 r=16", "ft648", "ft648-rack", "multicore", "multicore cores=3",
	"multicore cores=2 n=6 m=6 r=12 hlinks=2",
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

/* Every tree family, intact: CA pairs all routed, acyclic on one VL. */
static void test_ftree_families(void **state)
{
	for (size_t i = 0; i < NFAMILIES; i++) {
		struct fabric *f = tu_gen(families[i], 1);
		struct rt_routing *r = tu_route(&eng_ftree, f);
		int multicore = !strncmp(families[i], "multicore", 9);
		struct an_report rep;

	(void)state;
		tu_eval(f, r, 0, &rep);
		if (rep.conn.unreachable[AN_CA_CA] || !rep.cdg.deadlock_free)
			fail_msg("%s: %llu CA pairs unreachable, deadlock-free %d (%s)", families[i],
				 (unsigned long long)rep.conn.unreachable[AN_CA_CA],
				 rep.cdg.deadlock_free, r->notes);
		assert_int_equal(rep.cdg.vls_used, 1);
		/* CAs reach every switch; switches reach every CA except across cores */
		assert_int_equal(rep.conn.unreachable[AN_CA_SW], 0);
		if (!multicore)
			assert_int_equal(rep.conn.unreachable[AN_SW_CA], 0);
		an_report_free(&rep);
		rt_free(r);
		fab_free(f);
	}
}

static void test_ftree_notes(void **state)
{
	struct fabric *f = tu_gen("ft648", 1);
	struct rt_routing *r = tu_route(&eng_ftree, f);

	(void)state;
	assert_non_null(strstr(r->notes, "ranks: 2, leaves: 36, roots: 18"));
	assert_non_null(strstr(r->notes, "CA LIDs: 648 (+0 dummies)"));
	/* the 18 roots cannot reach each other up and down */
	assert_non_null(strstr(r->notes, "switch pairs without up/down path: 306"));
	rt_free(r);
	fab_free(f);
}

/*
 * Balance: on every leaf, the CA LIDs routed up spread over the up ports
 * within one. Dedicated downward paths: for each CA, the switches that the
 * paths of all other CAs cross going down, the peak included, hold at most
 * one switch per level (a single chain from one root).
 */
static void check_balance(const char *spec)
{
	struct fabric *f = tu_gen(spec, 1);
	struct rt_routing *r = tu_route(&eng_ftree, f);
	struct fab_shape sh;
	uint32_t cnt[FAB_PORTS_MAX + 1];

	tu_shape(f, &sh);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t lo = UINT32_MAX, hi = 0;

		if (sh.level[s] != 1)
			continue;
		memset(cnt, 0, sizeof(cnt));
		for (uint32_t e = 0; e < f->neps; e++)
			if (tu_is_ca(f, e) && tu_ep_sw(f, e) != s)
				cnt[rt_lft(r, s)[fab_ep_lid(f, e)]]++;
		for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
			uint32_t t = fab_sw_peer(f, s, p);

			if (t == FAB_NONE || sh.level[t] != 2)
				continue;
			lo = cnt[p] < lo ? cnt[p] : lo;
			hi = cnt[p] > hi ? cnt[p] : hi;
		}
		if (hi > lo + 1)
			fail_msg("%s: leaf %s: up ports carry %u to %u CA LIDs", spec,
				 fab_desc(f, f->switches[s]), lo, hi);
	}
	for (uint32_t d = 0; d < f->neps; d++) {
		uint32_t chain[FAB_LEVELS_MAX + 1];

		if (!tu_is_ca(f, d))
			continue;
		for (unsigned l = 0; l <= FAB_LEVELS_MAX; l++)
			chain[l] = FAB_NONE;
		for (uint32_t src = 0; src < f->neps; src++) {
			struct an_path p = { 0 };
			uint32_t peak = 0;

			if (!tu_is_ca(f, src) || tu_ep_sw(f, src) == tu_ep_sw(f, d))
				continue;
			assert_int_equal(an_trace(f, r, src, fab_ep_lid(f, d), 0, &p), 0);
			assert_int_equal(p.fail, AN_DELIVERED);
			for (uint32_t h = 0; h < p.nhops; h++)
				if (sh.level[f->nodes[p.hops[h].node].swidx] >
				    sh.level[f->nodes[p.hops[peak].node].swidx])
					peak = h;
			for (uint32_t h = peak; h < p.nhops; h++) {
				uint32_t s = f->nodes[p.hops[h].node].swidx;

				if (chain[sh.level[s]] != FAB_NONE && chain[sh.level[s]] != s)
					fail_msg("%s: two downward paths to %s at level %u", spec,
						 fab_desc(f, f->eps[d].node), sh.level[s]);
				chain[sh.level[s]] = s;
			}
			an_path_free(&p);
		}
	}
	fab_shape_free(&sh);
	rt_free(r);
	fab_free(f);
}

static void test_ftree_balance(void **state)
{
	(void)state;
	check_balance("ft648");
	check_balance("kary-ntree k=4 n=3");
	check_balance("kary-ntree k=2 n=6");
	check_balance("mport-ntree m=8 n=3");
	check_balance("xgft h=3 m=6,4,3 w=1,6,4");
}

/*
 * Degraded trees: 1 to 3 failed links, a failed switch. Every CA pair with
 * an up/down path is routed (and with this much redundancy left, that is
 * every pair), the graph stays acyclic.
 */
static void test_ftree_degraded(void **state)
{
	static const char *const specs[] = {
		"kary-ntree k=4 n=3", "kary-ntree k=2 n=6", "ft648", "ft648-rack",
		"mport-ntree m=8 n=3", "xgft h=3 m=4,4,4 w=1,4,2", "multicore",
		"gft2 n=4 m=2 r=8",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		for (unsigned k = 0; k < 4; k++)
			for (uint64_t seed = 1; seed <= 4; seed++) {
				struct fabric *f = tu_faults(tu_gen(specs[i], 1),
							     k < 3 ? k + 1 : 0, k == 3, seed);
				struct rt_routing *r = tu_route(&eng_ftree, f);
				uint64_t holes = tu_updown_holes(f);
				struct an_report rep;

				tu_eval(f, r, 0, &rep);
				if (rep.conn.unreachable[AN_CA_CA] != holes || !rep.cdg.deadlock_free)
					fail_msg("%s, %u faults, seed %llu: %llu CA pairs unreachable, "
						 "%llu without up/down path, deadlock-free %d",
						 specs[i], k + 1, (unsigned long long)seed,
						 (unsigned long long)rep.conn.unreachable[AN_CA_CA],
						 (unsigned long long)holes, rep.cdg.deadlock_free);
				if (strncmp(specs[i], "multicore", 9) && strncmp(specs[i], "gft2", 4))
					assert_int_equal(holes, 0);
				an_report_free(&rep);
				rt_free(r);
				fab_free(f);
			}
}

/*
 * A leaf whose sibling link failed: no up/down path between its CAs and
 * the other core's (that would need a down-to-up turn), every other pair
 * routed.
 */
static void test_ftree_cut_sibling(void **state)
{
	static const char *const cut[] = { "c0-leaf-03:9" };	/* ports: 4 down, 4 up, 1 sideways */
	struct gen_faults g = { .links = cut, .nlinks = 1 };
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen("multicore", 1);
	struct rt_routing *r, *sf;
	struct an_report rep;

	(void)state;
	if (gen_faults_apply(&f, &g, &err))
		fail_msg("%s", err.msg);
	r = tu_route(&eng_ftree, f);
	tu_eval(f, r, 0, &rep);
	assert_int_equal(tu_updown_holes(f), 2 * 4 * 32);
	assert_int_equal(rep.conn.unreachable[AN_CA_CA], 2 * 4 * 32);
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);

	/* sftree sends them through its subtree root, leaving ftree's entries alone */
	sf = tu_route(&eng_sftree, f);
	tu_eval(f, sf, 0, &rep);
	assert_true(an_connected(&rep));
	assert_true(rep.cdg.deadlock_free);
	assert_true(tu_same_ca_entries(f, r, sf) > 0);
	an_report_free(&rep);
	rt_free(sf);
	rt_free(r);
	fab_free(f);
}

/* Not trees: rings, dragonflies, meshes, tori, a fabric of CAs only. */
static void test_ftree_not_applicable(void **state)
{
	static const char *const specs[] = {
		"ring switches=6 hosts=2", "dragonfly a=4 p=2 h=2", "mesh dims=4,4",
		"torus dims=3,3,3",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct fabric *f = tu_gen(specs[i], 1);

		for (int k = 0; k < 2; k++) {
			const struct engine *e = k ? &eng_sftree : &eng_ftree;
			struct fab_err err = { { 0 } };
			struct rt_routing *r = NULL;

			assert_int_equal(tu_eng_call(e, f, NULL, &r, &err), ENG_NOT_APPLICABLE);
			assert_null(r);
			assert_non_null(strstr(err.msg, "not a fat tree"));
			if (!strncmp(specs[i], "dragonfly", 9))
				assert_non_null(strstr(err.msg, "dragonfly of 9 groups of 4"));
		}
		fab_free(f);
	}
}

/*
 * Two leaves (ports 1-2: CAs, 3-4: spines, 5: spare) and two spines
 * (ports 1-2: leaves, 5: spare).
 */
static struct fabric *tiny_tree(void)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_new();

	for (unsigned i = 0; i < 4; i++) {
		char d[16];
		struct fab_node_info in = { .type = FAB_SWITCH, .guid = 0x100 + i, .nports = 5,
					    .desc = d };

		snprintf(d, sizeof(d), "%s-%u", i < 2 ? "leaf" : "spine", i % 2);
		assert_int_equal(fab_node_add(f, &in, &err), i);
	}
	for (unsigned i = 0; i < 4; i++) {
		struct fab_node_info in = { .type = FAB_CA, .guid = 0x1000 + 16 * i, .nports = 1 };
		uint32_t c = fab_node_add(f, &in, &err);

		assert_int_equal(fab_link_add(f, i / 2, 1 + i % 2, c, 1, &err), 0);
	}
	for (unsigned l = 0; l < 2; l++)
		for (unsigned s = 0; s < 2; s++)
			assert_int_equal(fab_link_add(f, l, 3 + s, 2 + s, 1 + l, &err), 0);
	return f;
}

static void expect_na(struct fabric *f, const char *why)
{
	struct fab_err err = { { 0 } };
	struct rt_routing *r = NULL;

	assert_int_equal(fab_finalize(f, &err), 0);
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err), 0);
	assert_int_equal(tu_eng_call(&eng_ftree, f, NULL, &r, &err), ENG_NOT_APPLICABLE);
	assert_null(r);
	if (!strstr(err.msg, why))
		fail_msg("\"%s\" does not say \"%s\"", err.msg, why);
}

/* A horizontal link between two spines; a leaf with no way up. */
static void test_ftree_not_applicable_shapes(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = tiny_tree();
	struct rt_routing *r;

	(void)state;
	assert_int_equal(fab_finalize(f, &err), 0);
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err), 0);
	r = tu_route(&eng_ftree, f);
	assert_non_null(strstr(r->notes, "ranks: 2, leaves: 2, roots: 2"));
	rt_free(r);
	assert_int_equal(fab_link_add(f, 2, 5, 3, 5, &err), 0);
	expect_na(f, "switches 'spine-0' and 'spine-1' are linked at level 2");
	fab_free(f);

	f = tiny_tree();
	fab_link_remove(f, 1, 3);
	fab_link_remove(f, 1, 4);
	assert_int_equal(fab_link_add(f, 0, 5, 1, 5, &err), 0);
	expect_na(f, "leaf switch 'leaf-1' has no link to a switch above the leaves");
	fab_free(f);
}

/* LMC 1: each of a CA's two LIDs is a destination of its own, all routed. */
static void test_ftree_lmc(void **state)
{
	struct fabric *f = tu_gen("kary-ntree k=4 n=3 lmc=1", 1);
	struct rt_routing *r = tu_route(&eng_ftree, f);
	struct an_report rep;

	(void)state;
	assert_non_null(strstr(r->notes, "CA LIDs: 128"));
	tu_eval(f, r, 1, &rep);
	assert_int_equal(rep.conn.unreachable[AN_CA_CA], 0);
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

/* A leaf with fewer CAs routes dummies so that the counters stay in step. */
static void test_ftree_dummies(void **state)
{
	static const char *const gone[] = { "node-00:1", "node-01:1", "node-13:1" };
	struct gen_faults g = { .links = gone, .nlinks = 3 };
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen("kary-ntree k=4 n=3", 1);
	struct rt_routing *r;
	struct an_report rep;

	(void)state;
	if (gen_faults_apply(&f, &g, &err))
		fail_msg("%s", err.msg);
	r = tu_route(&eng_ftree, f);
	assert_non_null(strstr(r->notes, "CA LIDs: 61 (+3 dummies)"));
	tu_eval(f, r, 0, &rep);
	assert_int_equal(rep.conn.unreachable[AN_CA_CA], 0);
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

static void test_determinism(void **state)
{
	static const char *const specs[] = { "kary-ntree k=4 n=3", "multicore cores=3",
					     "ft648-rack" };

	(void)state;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct fabric *f = tu_faults(tu_gen(specs[i], 1), 2, 0, 7);

		for (int k = 0; k < 2; k++) {
			const struct engine *e = k ? &eng_sftree : &eng_ftree;
			struct rt_routing *a = tu_route(e, f), *b = tu_route(e, f);

			assert_true(rt_equal_lfts(a, b));
			assert_true(rt_equal_lfts(a, b));
			assert_string_equal(a->notes, b->notes);
			rt_free(a);
			rt_free(b);
		}
		fab_free(f);
	}
}

/* @e's routing of @f with @threads threads, through its route hook. */
static struct rt_routing *route_threads(const struct engine *e, const struct fabric *f,
					unsigned threads)
{
	struct fab_err err = { { 0 } };
	struct eng_chain c;
	struct eng_req q = { .fabric = f, .chain = &c, .threads = threads };
	struct eng_res res;

	memset(&res, 0, sizeof(res));
	if (eng_chain_parse(&c, e->name, NULL, 0, &err))
		fail_msg("%s: %s", e->name, err.msg);
	if (e->route(&q, &c.args[0], &res, &err) != ENG_OK)
		fail_msg("%s: %s", e->name, err.msg);
	eng_chain_free(&c);
	assert_non_null(res.routing);
	return res.routing;
}

/*
 * The stages of many blocks of destinations run in turn (one thread) or
 * side by side (two threads, or 0: one per CPU): the same tables and notes.
 */
static void test_threads(void **state)
{
	static const char *const specs[] = { "mport-ntree m=12 n=3", "kary-ntree k=4 n=4 lmc=1",
					     "multicore cores=3 n=4 m=4 r=8", "ft648-rack" };
	static const unsigned counts[] = { 2, 3, 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct fabric *f = tu_faults(tu_gen(specs[i], 1), 6, i == 1, 11);

		for (int k = 0; k < 2; k++) {
			const struct engine *e = k ? &eng_sftree : &eng_ftree;
			struct rt_routing *a = route_threads(e, f, 1);

			assert_true(f->neps > 64);	/* more than one block of destinations */
			for (size_t t = 0; t < sizeof(counts) / sizeof(counts[0]); t++) {
				struct rt_routing *b = route_threads(e, f, counts[t]);

				assert_true(rt_equal_lfts(a, b));
				assert_string_equal(a->notes, b->notes);
				rt_free(b);
			}
			rt_free(a);
		}
		fab_free(f);
	}
}

/* tiny_tree() with a spine's port 0 at LMC 2 (a pin): ftree routes its base LID only. */
static struct fabric *switch_lmc(void)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = tiny_tree();
	struct fab_lid_pin pin = { .guid = 0x102, .lid = 8, .lmc = 2 };

	assert_int_equal(fab_finalize(f, &err), 0);
	assert_int_equal(fab_lids_assign(f, &pin, 1, FAB_LIDS_RENEW, 0, &err), 0);
	assert_int_equal(fab_port(f, fab_node_by_guid(f, 0x102), 0)->lmc, 2);
	return f;
}

/* @f routed by ft_route() with @threads threads on @r; its counts and missing LIDs. */
static void route_on(const struct fabric *f, struct rt_routing *r, unsigned threads,
		     struct ft_stats *st, uint8_t *missing)
{
	struct fab_err err = { { 0 } };
	struct ft_model m;

	if (ft_model_init(&m, f, &err) != ENG_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(ft_route(&m, r, st, threads, missing), 0);
	ft_model_fini(&m);
}

/* Every endpoint's own entries in @r, and no entry for the LIDs of none (!@cover[l]). */
static void expect_endpoints(const struct fabric *f, const struct rt_routing *r,
			     const uint8_t *cover)
{
	struct rt_routing *own = rt_new(f);

	eng_route_endpoints(f, own);
	for (uint32_t s = 0; s < f->nswitches; s++)
		for (unsigned l = 0; l < r->lft_len; l++) {
			uint8_t want = rt_lft(own, s)[l], got = rt_lft(r, s)[l];

			if ((want != RT_NO_PORT || !cover[l]) && got != want)
				fail_msg("switch %u LID %u: entry %u, not %u", s, l, got, want);
		}
	rt_free(own);
}

/*
 * ft_route() writes every entry: on LFTs holding anything before, the same
 * tables as on LFTs set as engines set them (no entry, then the endpoints'
 * own: eng_route_endpoints()), with LIDs of no endpoint (LMC ranges), CAs
 * cut off, a switch's LIDs past its base, faults; one thread and two.
 */
static void test_unset_lfts(void **state)
{
	static const char *const specs[] = { "kary-ntree k=4 n=3 lmc=2", "mport-ntree m=8 n=3",
					     "ft648-rack" };	/* and switch_lmc() */
	static const char *const gone[] = { "node-00:1", "node-05:1" };
	struct gen_faults g = { .links = gone, .nlinks = 2 };
	struct fab_err err = { { 0 } };
	uint32_t gaps = 0;

	(void)state;
	for (size_t i = 0; i <= sizeof(specs) / sizeof(specs[0]); i++) {
		struct fabric *f = i < 3 ? tu_faults(tu_gen(specs[i], 1), 3, 0, 5 + i) : switch_lmc();
		size_t len = f->lid_top + 1u, n = (size_t)f->nswitches * len;
		uint8_t *miss_a = malloc(len), *miss_b = malloc(len), *cover = calloc(len, 1);

		if (!i && gen_faults_apply(&f, &g, &err))
			fail_msg("%s", err.msg);
		for (uint32_t e = 0; e < f->neps; e++) {
			unsigned base = fab_ep_lid(f, e), top = base + (1u << fab_ep_lmc(f, e));

			for (unsigned l = base; l && l < top && l < len; l++)
				cover[l] = 1;
		}
		for (size_t l = 1; l < len; l++)
			gaps += !cover[l];
		for (unsigned threads = 1; threads <= 2; threads++) {
			struct rt_routing *a = rt_new(f), *b = rt_new_rows(f, (uint32_t)len);
			struct ft_stats sa, sb;

			memset(b->lft, 0x5a, n);
			eng_route_endpoints(f, a);
			route_on(f, a, threads, &sa, miss_a);
			route_on(f, b, threads, &sb, miss_b);
			assert_true(rt_equal_lfts(a, b));
			assert_memory_equal(miss_a, miss_b, len);
			expect_endpoints(f, b, cover);
			assert_true(sa.ca_holes == sb.ca_holes && sa.sw_holes == sb.sw_holes);
			rt_free(a);
			rt_free(b);
		}
		free(miss_a);
		free(miss_b);
		free(cover);
		fab_free(f);
	}
	assert_true(gaps > 0);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* 2000 CAs, 500 switches: well under a second even unoptimised (about 20 ms with -O2). */
static void test_timing(void **state)
{
	struct fabric *f = tu_gen("xgft h=3 m=20,10,10 w=1,20,10", 1);

	(void)state;
	for (int k = 0; k < 2; k++) {
		const struct engine *e = k ? &eng_sftree : &eng_ftree;
		double t0 = now();
		struct rt_routing *r = tu_route(e, f);
		double ms = (now() - t0) * 1e3;

		print_message("%s on 2000 CAs / 500 switches: %.1f ms\n", e->name, ms);
		assert_true(ms < 5000);
		rt_free(r);
	}
	fab_free(f);
}

/* --- OpenSM's ftree on the same fabric ------------------------------------------ */

static char *load(const char *rel, size_t *len)
{
	struct fab_err err = { { 0 } };
	char *buf = NULL;

	if (fmt_read_file(tu_data(rel), &buf, len, &err))
		fail_msg("%s", err.msg);
	return buf;
}

/*
 * tests/data/eval/fattree-ftree: OpenSM 3.3.23's ftree on a 2-ary 3-tree
 * under ibsim, OpenSM on leaf-00's port 0. With the same LIDs, ftree's CA
 * entries match OpenSM's but for equal-cost choices of root (4 of 96
 * entries: two destinations' roots swapped within a group of spines);
 * sftree keeps its subtree root off the SM's switch and connects the 36
 * switch pairs OpenSM leaves without route.
 */
static void test_opensm_ftree(void **state)
{
	struct fab_err err = { { 0 } };
	struct fab_lid_pin *pins = NULL;
	size_t len, n = 0;
	char *buf = load("eval/fattree-ftree/opensm-subnet.lst", &len);
	struct fabric *f = fmt_subnet_parse(buf, len, "opensm-subnet.lst", &err);
	struct rt_routing *osm, *r, *sf;
	uint32_t same = 0, total = 0;
	struct an_report rep;

	(void)state;
	assert_non_null(f);
	free(buf);
	buf = load("eval/fattree-ftree/guid2lid", &len);
	assert_int_equal(fmt_guid2lid_parse(buf, len, "guid2lid", &pins, &n, &err), 0);
	assert_int_equal(fab_lids_assign(f, pins, n, FAB_LIDS_KEEP, 0, &err), 0);
	free(pins);
	free(buf);
	buf = load("eval/fattree-ftree/opensm-lfts.dump", &len);
	osm = fmt_lfts_parse(buf, len, "opensm-lfts.dump", f, &err);
	assert_non_null(osm);
	free(buf);
	r = tu_route(&eng_ftree, f);
	for (uint32_t e = 0; e < f->neps; e++)
		for (uint32_t s = 0; s < f->nswitches && tu_is_ca(f, e); s++) {
			same += rt_lft(r, s)[fab_ep_lid(f, e)] == rt_lft(osm, s)[fab_ep_lid(f, e)];
			total++;
		}
	print_message("CA entries equal to OpenSM's ftree: %u of %u\n", same, total);
	assert_int_equal(total, 96);
	assert_true(same >= 88);
	tu_eval(f, osm, 0, &rep);
	assert_int_equal(rep.conn.unreachable[AN_SW_SW], 36);
	an_report_free(&rep);
	sf = tu_route(&eng_sftree, f);
	assert_non_null(strstr(sf->notes, "(the SM's leaf is 'leaf-00')"));
	assert_null(strstr(sf->notes, "subtree root: 'leaf-00'"));
	tu_eval(f, sf, 0, &rep);
	assert_true(an_connected(&rep));
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);
	rt_free(sf);
	rt_free(r);
	rt_free(osm);
	fab_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ftree_families),
		cmocka_unit_test(test_ftree_notes),
		cmocka_unit_test(test_ftree_balance),
		cmocka_unit_test(test_ftree_degraded),
		cmocka_unit_test(test_ftree_cut_sibling),
		cmocka_unit_test(test_ftree_not_applicable),
		cmocka_unit_test(test_ftree_not_applicable_shapes),
		cmocka_unit_test(test_ftree_lmc),
		cmocka_unit_test(test_unset_lfts),
		cmocka_unit_test(test_ftree_dummies),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_opensm_ftree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
