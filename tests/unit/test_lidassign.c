/* SPDX-License-Identifier: MIT */
/*
 * lidassign, exactly (papers/002): Fig. 6 (split graph, every heuristic's
 * configurations, the optimum, path order), the reduction of Thm. 1 on
 * Fig. 4's graph, C5, Petersen, K6 and K4,4 (split graph = G, every
 * heuristic >= chi, exact = chi), K129 refused, LMC rounding, the LID plan,
 * and the path file format.
 */
#include "tests/unit/testutil.h"

#include "gen/gen.h"

static const enum la_heur all_heur[] = { LA_GREEDY, LA_SM_S, LA_SM_L, LA_COLOR_S, LA_COLOR_L };

/* Colour @r with @h; check the result; *@k gets the count. */
static void colour(const struct la_rd *r, enum la_heur h, int dyn, uint32_t *c, uint32_t *k)
{
	struct la_opts o = { .heur = h, .dynamic = dyn };
	struct la_graph g;
	char why[200];

	assert_int_equal(la_colour(r, &o, c, k), 0);
	assert_int_equal(la_graph_build(r, &g), 0);
	if (la_check(&g, c, *k, why, sizeof(why)))
		fail_msg("%s: %s", la_heur_name(h), why);
	la_graph_free(&g);
}

/* --- Fig. 6 ---------------------------------------------------------------------- */

static void test_fig6_split_graph(void **state)
{
	struct fmt_paths ps;
	struct fabric *f = tu_lb_fig6(&ps);
	struct tu_lb_rd r;
	struct la_graph g;
	uint32_t at;

	(void)state;
	tu_lb_rd(f, &ps, &r);
	assert_int_equal(la_graph_build(&r.rd, &g), 0);
	assert_int_equal(g.edges, 3);
	assert_true(la_graph_has(&g, 0, 1));	/* p1 p2 at s4 */
	assert_true(la_graph_has(&g, 1, 3));	/* p2 p4 at s3 */
	assert_true(la_graph_has(&g, 2, 3));	/* p3 p4 at s5 */
	assert_int_equal(la_split(&r.rd, 0, 1, &at), 1);
	assert_string_equal(fab_desc(f, f->switches[at]), "s4");
	assert_int_equal(la_split(&r.rd, 1, 3, &at), 1);
	assert_string_equal(fab_desc(f, f->switches[at]), "s3");
	assert_int_equal(la_split(&r.rd, 2, 3, &at), 1);
	assert_string_equal(fab_desc(f, f->switches[at]), "s5");
	assert_int_equal(la_split(&r.rd, 0, 2, NULL), 0);
	assert_int_equal(la_split(&r.rd, 0, 3, NULL), 0);
	assert_int_equal(la_lower_bound(&r.rd), 2);
	la_graph_free(&g);
	tu_lb_rd_free(&r);
	fmt_paths_free(&ps);
	fab_free(f);
}

static void test_fig6_heuristics(void **state)
{
	static const uint32_t want_k[] = { 3, 3, 3, 3, 2 }, want_lids[] = { 4, 4, 4, 4, 2 };
	struct fmt_paths ps;
	struct fabric *f = tu_lb_fig6(&ps);
	struct tu_lb_rd r;
	uint32_t c[4], k;

	(void)state;
	tu_lb_rd(f, &ps, &r);
	for (size_t i = 0; i < 5; i++) {
		colour(&r.rd, all_heur[i], 0, c, &k);
		if (k != want_k[i])
			fail_msg("%s: %u configurations, expected %u", la_heur_name(all_heur[i]), k,
				 want_k[i]);
		assert_int_equal(1u << la_lmc(k), want_lids[i]);
	}
	/* greedy: {p1, p3}, {p2}, {p4} */
	colour(&r.rd, LA_GREEDY, 0, c, &k);
	assert_int_equal(c[0], 0);
	assert_int_equal(c[2], 0);
	assert_int_equal(c[1], 1);
	assert_int_equal(c[3], 2);
	/* color/L: {p2, p3}, {p1, p4}, as papers/002 L243 */
	colour(&r.rd, LA_COLOR_L, 0, c, &k);
	assert_int_equal(c[1], 0);
	assert_int_equal(c[2], 0);
	assert_int_equal(c[0], 1);
	assert_int_equal(c[3], 1);
	colour(&r.rd, LA_COLOR_L, 1, c, &k);
	assert_int_equal(k, 2);
	tu_lb_rd_free(&r);
	fmt_paths_free(&ps);
	fab_free(f);
}

static void test_fig6_exact(void **state)
{
	struct fmt_paths ps;
	struct fabric *f = tu_lb_fig6(&ps);
	struct tu_lb_rd r;
	struct la_graph g;
	struct la_exact ex;
	uint32_t c[4], k;
	char why[200];

	(void)state;
	tu_lb_rd(f, &ps, &r);
	colour(&r.rd, LA_GREEDY, 0, c, &k);
	assert_int_equal(la_graph_build(&r.rd, &g), 0);
	assert_int_equal(la_exact_colour(&g, c, k, 0, 0, &ex), 0);
	assert_int_equal(ex.k, 2);
	assert_true(ex.optimal);
	assert_int_equal(la_check(&g, c, ex.k, why, sizeof(why)), 0);
	/* a cap of one search node leaves greedy's 3, not proven optimal */
	colour(&r.rd, LA_GREEDY, 0, c, &k);
	assert_int_equal(la_exact_colour(&g, c, k, 1, 0, &ex), 0);
	assert_int_equal(ex.k, 3);
	assert_false(ex.optimal);
	la_graph_free(&g);
	tu_lb_rd_free(&r);
	fmt_paths_free(&ps);
	fab_free(f);
}

/* Sorted by source (m1 p1, m2 p2, m3 p4, m4 p3), greedy needs 2; the paper's order 3. */
static void test_fig6_order(void **state)
{
	struct fmt_paths ps;
	struct fabric *f = tu_lb_fig6(&ps);
	struct la_opts o = { .heur = LA_GREEDY };
	struct la_assign a;
	struct fab_err err = { { 0 } };
	uint32_t m0 = fab_ep_of_node(f, fab_node_by_desc(f, "m0", NULL), 1);

	(void)state;
	assert_int_equal(la_assign(f, &ps, &o, &a, &err), 0);
	assert_int_equal(a.k[m0], 2);
	assert_int_equal(a.lmc[m0], 1);
	assert_int_equal(a.configs, 2);
	/* configurations ranked largest first: two of two paths each; p1 (first) at 0 */
	assert_int_equal(a.offset[0], 0);
	assert_int_equal(a.offset[0], a.offset[3]);
	assert_int_equal(a.offset[1], a.offset[2]);
	assert_int_not_equal(a.offset[0], a.offset[1]);
	assert_int_equal(a.pairs, 4);
	assert_int_equal(a.sa_pairs, 2);
	/* CA ports: 5, m0 with 2 LIDs */
	assert_int_equal(a.cas, 5);
	assert_int_equal(a.lids, 6);
	assert_int_equal(a.lids_global, 10);
	la_assign_free(&a);
	o.input_order = 1;
	assert_int_equal(la_assign(f, &ps, &o, &a, &err), 0);
	assert_int_equal(a.k[m0], 3);
	assert_int_equal(a.lmc[m0], 2);
	la_assign_free(&a);
	fmt_paths_free(&ps);
	fab_free(f);
}

/* --- the reduction ------------------------------------------------------------------- */

struct graph_case {
	const char *name;
	uint32_t nv, chi;
	const uint32_t (*e)[2];
	size_t ne;
};

static const uint32_t e_fig4[][2] = { { 0, 1 }, { 0, 2 }, { 1, 2 }, { 1, 3 }, { 2, 3 } };
static const uint32_t e_c5[][2] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 4 }, { 4, 0 } };
static const uint32_t e_petersen[][2] = {
	{ 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 4 }, { 4, 0 }, { 0, 5 }, { 1, 6 }, { 2, 7 },
	{ 3, 8 }, { 4, 9 }, { 5, 7 }, { 7, 9 }, { 9, 6 }, { 6, 8 }, { 8, 5 },
};
static const uint32_t e_k6[][2] = {
	{ 0, 1 }, { 0, 2 }, { 0, 3 }, { 0, 4 }, { 0, 5 }, { 1, 2 }, { 1, 3 }, { 1, 4 },
	{ 1, 5 }, { 2, 3 }, { 2, 4 }, { 2, 5 }, { 3, 4 }, { 3, 5 }, { 4, 5 },
};
static const uint32_t e_k44[][2] = {
	{ 0, 4 }, { 0, 5 }, { 0, 6 }, { 0, 7 }, { 1, 4 }, { 1, 5 }, { 1, 6 }, { 1, 7 },
	{ 2, 4 }, { 2, 5 }, { 2, 6 }, { 2, 7 }, { 3, 4 }, { 3, 5 }, { 3, 6 }, { 3, 7 },
};

#define CASE(n, v, x, e) { n, v, x, e, sizeof(e) / sizeof(e[0]) }
static const struct graph_case cases[] = {
	CASE("fig4", 4, 3, e_fig4), CASE("C5", 5, 3, e_c5), CASE("Petersen", 10, 3, e_petersen),
	CASE("K6", 6, 6, e_k6), CASE("K4,4", 8, 2, e_k44),
};

static void check_case(const struct graph_case *gc)
{
	struct fmt_paths ps;
	struct fabric *f = tu_lb_reduction(gc->nv, gc->e, gc->ne, &ps);
	struct tu_lb_rd r;
	struct la_graph g, want;
	struct la_exact ex;
	uint32_t c[16], k;

	tu_lb_rd(f, &ps, &r);
	assert_int_equal(la_graph_build(&r.rd, &g), 0);
	assert_int_equal(la_graph_from_edges(gc->nv, gc->e, gc->ne, &want), 0);
	for (uint32_t i = 0; i < gc->nv; i++)
		for (uint32_t j = 0; j < gc->nv; j++)
			if (la_graph_has(&g, i, j) != la_graph_has(&want, i, j))
				fail_msg("%s: split graph and G differ at %u-%u", gc->name, i, j);
	for (size_t h = 0; h < 5; h++) {
		colour(&r.rd, all_heur[h], 0, c, &k);
		if (k < gc->chi)
			fail_msg("%s: %s used %u colours, below chi %u", gc->name,
				 la_heur_name(all_heur[h]), k, gc->chi);
		assert_int_equal(la_exact_colour(&g, c, k, 0, 0, &ex), 0);
		if (ex.k != gc->chi || !ex.optimal)
			fail_msg("%s: exact gave %u (optimal %d), chi is %u", gc->name, ex.k,
				 ex.optimal, gc->chi);
	}
	la_graph_free(&g);
	la_graph_free(&want);
	tu_lb_rd_free(&r);
	fmt_paths_free(&ps);
	fab_free(f);
}

static void test_reductions(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i]);
}

/* Fig. 4: the only minimal configuration set is {p1}, {p2}, {p0, p3}: 3 for every heuristic. */
static void test_fig4_every_heuristic(void **state)
{
	struct fmt_paths ps;
	struct fabric *f = tu_lb_reduction(4, e_fig4, 5, &ps);
	struct tu_lb_rd r;
	uint32_t c[4], k;

	(void)state;
	tu_lb_rd(f, &ps, &r);
	for (size_t h = 0; h < 5; h++) {
		colour(&r.rd, all_heur[h], 0, c, &k);
		assert_int_equal(k, 3);
		assert_int_equal(la_lmc(k), 2);
		assert_int_equal(c[0], c[3]);
		assert_int_not_equal(c[1], c[2]);
		assert_int_not_equal(c[0], c[1]);
		assert_int_not_equal(c[0], c[2]);
	}
	tu_lb_rd_free(&r);
	fmt_paths_free(&ps);
	fab_free(f);
}

static void test_k129_refused(void **state)
{
	uint32_t (*e)[2] = malloc(129 * 128 / 2 * sizeof(*e));
	struct fmt_paths ps;
	struct fabric *f;
	struct la_opts o = { .heur = LA_COLOR_L };
	struct la_assign a;
	struct fab_err err = { { 0 } };
	size_t n = 0;

	(void)state;
	assert_non_null(e);
	for (uint32_t u = 0; u < 129; u++)
		for (uint32_t v = u + 1; v < 129; v++) {
			e[n][0] = u;
			e[n++][1] = v;
		}
	f = tu_lb_reduction(129, (const uint32_t(*)[2])e, n, &ps);
	assert_int_equal(la_assign(f, &ps, &o, &a, &err), -1);
	if (!strstr(err.msg, "'d' port 1") || !strstr(err.msg, "129 configurations") ||
	    !strstr(err.msg, "128"))
		fail_msg("unclear error: %s", err.msg);
	fmt_paths_free(&ps);
	fab_free(f);
	free(e);
}

static void test_lmc_rounding(void **state)
{
	static const uint32_t k[] = { 1, 2, 3, 4, 5, 8, 9, 128 };
	static const unsigned lids[] = { 1, 2, 4, 4, 8, 8, 16, 128 }, lmc[] = { 0, 1, 2, 2, 3, 3, 4, 7 };

	(void)state;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		assert_int_equal(la_lmc(k[i]), lmc[i]);
		assert_int_equal(1u << la_lmc(k[i]), lids[i]);
	}
}

/* --- unrealisable paths ---------------------------------------------------------------- */

static void expect_assign_error(const struct fabric *f, const struct fmt_paths *ps,
				const char *needle)
{
	struct la_opts o = { .heur = LA_GREEDY };
	struct la_assign a;
	struct fab_err err = { { 0 } };

	assert_int_equal(la_assign(f, ps, &o, &a, &err), -1);
	if (!strstr(err.msg, needle))
		fail_msg("\"%s\" does not say \"%s\"", err.msg, needle);
}

static void test_unrealisable(void **state)
{
	struct fmt_paths ps, bad = { 0 };
	struct fabric *f = tu_lb_fig6(&ps);
	struct fmt_hop h[8];
	size_t n = ps.off[2] - ps.off[1];

	(void)state;
	/* p2 with s3 -> s4 -> s3: crosses s3 twice */
	memcpy(h, ps.hop + ps.off[1], n * sizeof(*h));	/* s4 s3 s2 s0 */
	h[0] = (struct fmt_hop){ h[1].node, (uint8_t)tu_lb_port(f, h[1].node, h[0].node) };
	assert_int_equal(fmt_paths_add(&bad, ps.src[0], ps.dst[0], 0, h, n), 0);
	expect_assign_error(f, &bad, "path 1: cannot be realised");
	fmt_paths_free(&bad);
	/* p1 ending at s1 instead of s0 */
	assert_int_equal(fmt_paths_add(&bad, ps.src[0], ps.dst[0], 0, ps.hop + ps.off[0], 2), 0);
	expect_assign_error(f, &bad, "does not lead to 'm0' port 1");
	fmt_paths_free(&bad);
	fmt_paths_free(&ps);
	fab_free(f);
}

/* --- the LID plan ----------------------------------------------------------------------- */

static void check_plan(const struct fabric *f, const struct fab_lid_pin *p, size_t n,
		       const uint8_t *lmc)
{
	uint8_t *used = calloc(FAB_LID_UCAST_MAX + 1, 1);
	unsigned top = 0, sum = 0, most = 0;

	assert_non_null(used);
	assert_int_equal(n, f->neps);
	for (size_t e = 0; e < n; e++) {
		unsigned size = 1u << p[e].lmc;
		int sw = f->nodes[f->eps[e].node].type == FAB_SWITCH;

		assert_int_equal(p[e].lmc, sw ? 0 : lmc[e]);
		assert_int_equal(p[e].lid % size, 0);
		assert_true(p[e].lid >= size);
		assert_true(p[e].lid + size - 1 <= FAB_LID_UCAST_MAX);
		for (unsigned l = p[e].lid; l < p[e].lid + size; l++) {
			assert_int_equal(used[l], 0);
			used[l] = 1;
		}
		if (p[e].lid + size - 1 > top)
			top = p[e].lid + size - 1;
		sum += size;
		if (size > most)
			most = size;
	}
	assert_true(top <= sum + most);	/* compact */
	free(used);
}

/* @f with its nodes added in reverse order (same GUIDs, ports and links). */
static struct fabric *reversed(const struct fabric *f)
{
	struct fabric *g = fab_new();
	struct fab_err err = { { 0 } };
	uint32_t *map = malloc(f->nnodes * sizeof(*map));

	assert_true(g && map);
	for (uint32_t i = f->nnodes; i-- > 0;) {
		const struct fab_node *n = &f->nodes[i];
		struct fab_node_info in = { .type = n->type, .guid = n->guid, .nports = n->nports,
					    .desc = fab_desc(f, i) };

		map[i] = fab_node_add(g, &in, &err);
		assert_int_not_equal(map[i], FAB_NONE);
	}
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; p <= f->nodes[i].nports; p++) {
			const struct fab_port *x = fab_port(f, i, p);

			if (x->peer != FAB_NONE)
				assert_int_equal(fab_link_add(g, map[i], p, map[x->peer], x->peer_port,
							      &err), 0);
		}
	assert_int_equal(fab_finalize(g, &err), 0);
	free(map);
	return g;
}

static void test_plan(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen("random switches=6 machines=40 degree=4", 3), *g;
	struct fab_lid_pin *p, *q;
	uint8_t *lmc, *lmc2;
	size_t n, m;

	(void)state;
	assert_non_null(f);
	lmc = calloc(f->neps, 1);
	for (uint32_t e = 0; e < f->neps; e++)
		lmc[e] = (uint8_t)((e * 7) % 4);
	assert_int_equal(la_plan(f, lmc, &p, &n, &err), 0);
	check_plan(f, p, n, lmc);
	/* the same fabric with its nodes in reverse order plans the same LIDs per GUID */
	g = reversed(f);
	lmc2 = calloc(g->neps, 1);
	for (uint32_t e = 0; e < g->neps; e++)
		lmc2[e] = lmc[fab_ep_by_port_guid(f, fab_port(g, g->eps[e].node, g->eps[e].port)->guid)];
	assert_int_equal(la_plan(g, lmc2, &q, &m, &err), 0);
	check_plan(g, q, m, lmc2);
	for (size_t e = 0; e < m; e++) {
		uint32_t x = fab_ep_by_port_guid(f, q[e].guid);

		assert_int_equal(q[e].lid, p[x].lid);
		assert_int_equal(q[e].lmc, p[x].lmc);
	}
	free(lmc);
	free(lmc2);
	free(p);
	free(q);
	fab_free(f);
	fab_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fig6_split_graph),
		cmocka_unit_test(test_fig6_heuristics),
		cmocka_unit_test(test_fig6_exact),
		cmocka_unit_test(test_fig6_order),
		cmocka_unit_test(test_reductions),
		cmocka_unit_test(test_fig4_every_heuristic),
		cmocka_unit_test(test_k129_refused),
		cmocka_unit_test(test_lmc_rounding),
		cmocka_unit_test(test_unrealisable),
		cmocka_unit_test(test_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
