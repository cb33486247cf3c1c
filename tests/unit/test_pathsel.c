/* SPDX-License-Identifier: MIT */
/*
 * lidassign on fabrics (papers/002 properties P1-P6) and its engines:
 * every path of every heuristic is followed hop by hop through the tables
 * with its DLID (P4), every LID of every range delivers from every switch
 * on an Up/Down-legal walk (P5), configurations hold their bounds (P3), the
 * engines route connected and deadlock-free with per-port LMCs, keep an
 * SM's LIDs when told to (aliases under a global LMC), refuse what cannot
 * be realised, and the path file reads back what was written.
 */
#include "tests/unit/testutil.h"

#include <math.h>

#include "analysis/analysis.h"
#include "engines/lidassign/la_impl.h"
#include "gen/gen.h"

static struct fabric *random_fabric(uint64_t seed)
{
	return tu_gen("random switches=10 machines=40 degree=4", seed);
}

/* Every hop of the walk from @src with @dlid: the switch nodes and ports, and legality. */
static void follow(const struct fabric *f, const struct rt_routing *r, const struct la_updn *u,
		   uint32_t src, unsigned dlid, uint32_t dst, const struct fmt_hop *h, size_t n)
{
	struct an_path p = { 0 };
	int down = 0;

	assert_int_equal(an_trace(f, r, src, dlid, 0, &p), 0);
	if (p.fail != AN_DELIVERED || p.dst_node != f->eps[dst].node ||
	    p.dst_port != f->eps[dst].port)
		fail_msg("DLID %u from '%s': %s", dlid, fab_desc(f, f->eps[src].node),
			 an_fail_name(p.fail));
	if (h) {
		assert_int_equal(p.nhops, n);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(p.hops[i].node, h[i].node);
			assert_int_equal(p.hops[i].out_port, h[i].port);
		}
	}
	for (uint32_t i = 0; i + 1 < p.nhops; i++) {
		uint32_t a = f->nodes[p.hops[i].node].swidx, b = f->nodes[p.hops[i + 1].node].swidx;
		int up = la_updn_up(u, a, b);

		if (up && down)
			fail_msg("DLID %u from '%s' goes up after down", dlid,
				 fab_desc(f, f->eps[src].node));
		down |= !up;
	}
	an_path_free(&p);
}

/* Max degree of the split graph of @ps's paths to @d (source order). */
static uint32_t max_degree(const struct fabric *f, const struct fmt_paths *ps, uint32_t d)
{
	struct fmt_paths one = { 0 };
	struct tu_lb_rd r;
	struct la_graph g;
	uint32_t best = 0;

	for (size_t i = 0; i < ps->n; i++)
		if (ps->dst[i] == d)
			assert_int_equal(fmt_paths_add(&one, ps->src[i], d, 0, ps->hop + ps->off[i],
						       ps->off[i + 1] - ps->off[i]), 0);
	tu_lb_rd(f, &one, &r);
	assert_int_equal(la_graph_build(&r.rd, &g), 0);
	for (uint32_t v = 0; v < g.n; v++)
		if (g.deg[v] > best)
			best = g.deg[v];
	la_graph_free(&g);
	tu_lb_rd_free(&r);
	fmt_paths_free(&one);
	return best;
}

/*
 * P1-P5 for heuristic @h on the paths @ps of @f: assign, plan, realise on a
 * copy, then trace every path with its DLID and every LID from every switch.
 */
static void realise_and_check(const struct fabric *f, const struct la_updn *u,
			      const struct fmt_paths *ps, enum la_heur h)
{
	struct la_opts o = { .heur = h };
	struct la_assign a;
	struct la_stats st;
	struct fab_lid_pin *pins;
	struct fab_err err = { { 0 } };
	struct fabric *g = fab_copy(f, &err);
	struct rt_routing *r;
	size_t n;

	assert_non_null(g);
	if (la_assign(f, ps, &o, &a, &err))
		fail_msg("%s: %s", la_heur_name(h), err.msg);
	assert_int_equal(la_plan(f, a.lmc, &pins, &n, &err), 0);
	assert_int_equal(fab_lids_assign(g, pins, n, FAB_LIDS_RENEW, 0, &err), 0);
	r = rt_new(g);
	assert_non_null(r);
	if (la_realise(g, ps, &a, u, r, &st, &err))
		fail_msg("%s: %s", la_heur_name(h), err.msg);
	assert_int_equal(st.unrouted, 0);
	for (uint32_t d = 0; d < f->neps; d++) {
		if (!a.k[d])
			continue;
		assert_true(a.lb[d] <= a.k[d]);		/* P3 */
		assert_int_equal(fab_ep_lmc(g, d), la_lmc(a.k[d]));
		if (h == LA_GREEDY || h == LA_COLOR_S || h == LA_COLOR_L)
			assert_true(a.k[d] <= max_degree(f, ps, d) + 1);
	}
	for (size_t i = 0; i < ps->n; i++)	/* P4: each path, hop by hop, with its DLID */
		follow(g, r, u, ps->src[i], fab_ep_lid(g, ps->dst[i]) + a.offset[i], ps->dst[i],
		       ps->hop + ps->off[i], ps->off[i + 1] - ps->off[i]);
	for (uint32_t s = 0; s < g->nswitches; s++) {	/* P5: every LID from every switch */
		uint32_t src = fab_ep_of_node(g, g->switches[s], 0);

		for (uint32_t d = 0; d < g->neps; d++)
			for (unsigned j = 0; d != src && j < (1u << fab_ep_lmc(g, d)); j++)
				follow(g, r, u, src, fab_ep_lid(g, d) + j, d, NULL, 0);
	}
	rt_free(r);
	free(pins);
	la_assign_free(&a);
	fab_free(g);
}

static void test_realised_every_heuristic(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct fabric *f = random_fabric(seed);
		struct fab_err err = { { 0 } };
		struct la_updn u;
		struct la_ctx c;
		struct fmt_paths sel = { 0 }, wide = { 0 };
		struct la_sel_stats ss;

		assert_int_equal(la_updn_build(f, (uint32_t)seed % f->nswitches, &u, &err), 0);
		assert_int_equal(la_ctx_init(&c, f, &u, &err), 0);
		assert_int_equal(la_paths_select(&c, 16, 0, &sel, &ss, &err), 0);
		assert_int_equal(la_paths_widest(&c, 0, 0, &wide, &err), 0);
		assert_int_equal(sel.n, 40 * 39);
		assert_int_equal(wide.n, 40 * 39);
		assert_true(ss.cands >= sel.n);
		assert_int_equal(ss.removed, ss.cands - sel.n);
		for (enum la_heur h = LA_GREEDY; h < LA_NHEUR; h++) {
			realise_and_check(f, &u, &sel, h);
			realise_and_check(f, &u, &wide, h);
		}
		fmt_paths_free(&sel);
		fmt_paths_free(&wide);
		la_ctx_free(&c);
		la_updn_free(&u);
		fab_free(f);
	}
}

/* Shortest legal paths: as long as the legal distance, and legal. */
static void test_candidates(void **state)
{
	struct fabric *f = random_fabric(7);
	struct fab_err err = { { 0 } };
	struct la_updn u;
	struct la_ctx c;
	struct la_hop h[16 * 64];

	(void)state;
	assert_int_equal(la_updn_build(f, 0, &u, &err), 0);
	assert_int_equal(la_ctx_init(&c, f, &u, &err), 0);
	for (uint32_t s = 0; s < f->nswitches; s++)
		for (uint32_t t = 0; t < f->nswitches; t++) {
			const uint16_t *du = c.du + (size_t)t * c.ns, *dd = c.dd + (size_t)t * c.ns;
			uint32_t n = la_updn_paths(&u, s, t, du, dd, 16, h);

			assert_true(n >= 1 && n <= 16);
			assert_true(du[s] <= c.ns);
			for (uint32_t i = 0; i < n; i++) {
				const struct la_hop *p = h + (size_t)i * du[s];
				uint32_t x = s;
				int down = 0;

				for (uint32_t j = 0; j < du[s]; j++) {
					uint32_t y = fab_sw_peer(f, x, p[j].port);

					assert_int_equal(p[j].node, x);
					assert_int_not_equal(y, FAB_NONE);
					assert_false(la_updn_up(&u, x, y) && down);
					down |= !la_updn_up(&u, x, y);
					x = y;
				}
				assert_int_equal(x, t);
			}
		}
	la_ctx_free(&c);
	la_updn_free(&u);
	fab_free(f);
}

/* Yen: distinct legal switch-simple paths, shortest first, the first a shortest one. */
static void test_kpaths(void **state)
{
	struct fabric *f = random_fabric(8);
	struct fab_err err = { { 0 } };
	struct la_updn u;
	struct la_ctx c;
	struct la_hop h[16 * LA_HOPS_MAX];
	uint32_t len[16], more = 0;

	(void)state;
	assert_int_equal(la_updn_build(f, 3, &u, &err), 0);
	assert_int_equal(la_ctx_init(&c, f, &u, &err), 0);
	for (uint32_t s = 0; s < f->nswitches; s++)
		for (uint32_t t = 0; t < f->nswitches; t++) {
			uint32_t n = la_updn_kpaths(&u, s, t, 16, h, len);

			assert_true(n >= 1 && n <= 16);
			assert_int_equal(len[0], c.du[(size_t)t * c.ns + s]);
			more += n == 16;
			for (uint32_t i = 0; i < n; i++) {
				const struct la_hop *p = h + (size_t)i * LA_HOPS_MAX;
				uint8_t seen[64] = { 0 };
				uint32_t x = s;
				int down = 0;

				assert_true(!i || len[i] >= len[i - 1]);
				for (uint32_t j = 0; j < len[i]; j++) {
					uint32_t y = fab_sw_peer(f, x, p[j].port);

					assert_int_equal(p[j].node, x);
					assert_false(seen[x]);
					seen[x] = 1;
					assert_false(la_updn_up(&u, x, y) && down);
					down |= !la_updn_up(&u, x, y);
					x = y;
				}
				assert_int_equal(x, t);
				for (uint32_t k = 0; k < i; k++) {
					const struct la_hop *q = h + (size_t)k * LA_HOPS_MAX;

					if (len[k] == len[i])
						assert_true(memcmp(p, q, len[i] * sizeof(*p)) != 0);
				}
			}
		}
	assert_true(more > 0);	/* longer paths too: some pairs reach 16 */
	la_ctx_free(&c);
	la_updn_free(&u);
	fab_free(f);
}

/* --- the engines through eng_run() ------------------------------------------------ */

/* Route @f with @chain and @options ("eng.k=v ...", may be NULL); the status must be @want. */
static void run_engine_opts(const struct fabric *f, const char *chain, const char *options,
			    int assign, int want, struct eng_res *res, struct fab_err *err)
{
	static const struct an_opts eval = { .all_lids = 1, .load = 1 };
	struct eng_chain c;
	struct eng_req q = { .fabric = f, .chain = &c, .assign = assign,
			     .lid_mode = FAB_LIDS_KEEP, .lmc_budget = FAB_LMC_MAX, .eval = &eval };
	int rc;

	if (eng_chain_parse_str(&c, chain, options, err))
		fail_msg("%s: %s", chain, err->msg);
	rc = eng_run(&q, res, err);
	eng_chain_free(&c);
	if (rc != want)
		fail_msg("%s: %d, expected %d: %s", chain, rc, want, err->msg);
}

static void run_engine(const struct fabric *f, const char *chain, int assign, int want,
		       struct eng_res *res, struct fab_err *err)
{
	run_engine_opts(f, chain, NULL, assign, want, res, err);
}

static void check_routed(const struct eng_res *res, const char *chain)
{
	const struct an_report *rep = &res->report;

	if (!an_connected(rep))
		fail_msg("%s: not connected", chain);
	if (!rep->cdg.deadlock_free)
		fail_msg("%s: deadlock possible", chain);
	assert_int_equal(rep->cdg.vls_used, 1);
}

static void test_engines_route(void **state)
{
	static const char *const chains[] = { "pathsel", "swidest", "rename", "explicit" };
	struct fabric *fs[3];

	(void)state;
	fs[0] = random_fabric(11);
	fs[1] = tu_gen("kary-ntree k=4 n=2", 1);
	fs[2] = tu_gen("dragonfly a=3 p=2 h=1", 1);
	for (size_t i = 0; i < 3; i++)
		for (size_t e = 0; e < 4; e++) {
			struct eng_res res;
			struct fab_err err = { { 0 } };
			uint64_t lids = 0;

			run_engine(fs[i], chains[e], 1, ENG_OK, &res, &err);
			check_routed(&res, chains[e]);
			assert_non_null(res.routing->notes);
			assert_non_null(strstr(res.routing->notes, "0 unrouted"));
			for (uint32_t d = 0; d < res.fabric->neps; d++)
				if (res.fabric->nodes[res.fabric->eps[d].node].type != FAB_SWITCH)
					lids += 1u << fab_ep_lmc(res.fabric, d);
			if (e == 3)	/* explicit: one LID per machine */
				assert_int_equal(lids, res.fabric->neps - res.fabric->nswitches);
			eng_res_free(&res);
		}
	for (size_t i = 0; i < 3; i++)
		fab_free(fs[i]);
}

/* The SM's LIDs: kept, with aliases past k; refused when a port has too few. */
static void test_sm_lids(void **state)
{
	struct fabric *f = random_fabric(5);
	struct fab_err err = { { 0 } };
	struct eng_res res;

	(void)state;
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 3, &err), 0);
	run_engine(f, "pathsel", 0, ENG_OK, &res, &err);
	check_routed(&res, "pathsel (LMC 3)");
	for (uint32_t e = 0; e < f->neps; e++) {
		assert_int_equal(fab_ep_lid(res.fabric, e), fab_ep_lid(f, e));
		assert_int_equal(fab_ep_lmc(res.fabric, e), fab_ep_lmc(f, e));
	}
	eng_res_free(&res);
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err), 0);
	run_engine(f, "swidest", 0, ENG_NOT_APPLICABLE, &res, &err);
	if (!strstr(err.msg, "needs") || !strstr(err.msg, "subnet manager"))
		fail_msg("unclear: %s", err.msg);
	fab_free(f);
}

/* Parallel links are distinct egress ports: paths over both split; the engines use both. */
static void test_parallel_links(void **state)
{
	struct tu_lb *b = calloc(1, sizeof(*b));
	uint32_t s0, s1, h[8], a = 0, c = 0;
	struct fabric *f;
	struct eng_res res;
	struct fab_err err = { { 0 } };
	struct fmt_paths ps = { 0 };
	struct la_opts o = { .heur = LA_COLOR_L };
	struct la_assign as;
	char name[8];

	(void)state;
	b->f = fab_new();
	s0 = tu_lb_node(b, FAB_SWITCH, "s0", 8);
	s1 = tu_lb_node(b, FAB_SWITCH, "s1", 8);
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		h[i] = tu_lb_node(b, FAB_CA, name, 1);
		tu_lb_link(b, h[i], i < 4 ? s0 : s1);
	}
	tu_lb_link(b, s0, s1);	/* s0 port 5 - s1 port 5 */
	tu_lb_link(b, s0, s1);	/* s0 port 6 - s1 port 6 */
	f = tu_lb_done(b);
	free(b);
	for (uint8_t p = 5; p <= 6; p++) {
		struct fmt_hop hop[2] = { { s0, p }, { s1, 1 } };

		assert_int_equal(fmt_paths_add(&ps, fab_ep_of_node(f, h[p - 5], 1),
					       fab_ep_of_node(f, h[4], 1), 0, hop, 2), 0);
	}
	assert_int_equal(la_assign(f, &ps, &o, &as, &err), 0);
	assert_int_equal(as.k[fab_ep_of_node(f, h[4], 1)], 2);
	la_assign_free(&as);
	fmt_paths_free(&ps);
	run_engine(f, "pathsel", 1, ENG_OK, &res, &err);
	check_routed(&res, "pathsel");
	for (uint32_t d = 0; d < res.fabric->neps; d++) {
		uint32_t e0 = fab_ep_of_node(res.fabric, h[0], 1);

		if (res.fabric->eps[d].node == h[4] || res.fabric->eps[d].node == h[5] ||
		    res.fabric->eps[d].node == h[6] || res.fabric->eps[d].node == h[7]) {
			uint8_t port = rt_lft_get(res.routing, 0, rt_dlid(res.routing, res.fabric,
									e0, d));

			a += port == 5;
			c += port == 6;
		}
	}
	assert_int_equal(a + c, 4);
	/* each machine sends 1 in all, 1/7 per pair: 16 pairs each way split 8 / 8 give 8/7 */
	assert_true(res.report.load.ca_max_load < 9.0 / 7);
	eng_res_free(&res);
	fab_free(f);
}

/* CA paths on the worst link of @res: its CA max link load times the machines less one. */
static double worst_ca_paths(const struct eng_res *res, uint32_t machines)
{
	return res->report.load.ca_max_load * (machines - 1);
}

/*
 * The EDR tree of tests/data/fabrics: six cables from every leaf to every
 * spine, 96 hosts. With default options pathsel chooses a leaf as Up/Down
 * root and spreads the paths over both spines and every cable: its worst
 * link carries 144 CA paths, no more than sftree's (each leaf sends 24 x 72
 * = 1728 pairs up 12 cables: 144 a cable), and the cables take no LID (one
 * per port). The paper's random root (seed 1 draws a spine) leaves the
 * leaf pairs no turn but at that spine: 288 on its cables.
 */
static void test_parallel_cables(void **state)
{
	struct fabric *f = tu_load("fabrics/edr-6x.ibnd", FMT_AUTO);
	struct fab_err err = { { 0 } };
	struct eng_res ps, sf, drawn, given;
	struct an_opts o = { .load = 1, .ca_only = 1 };
	struct an_report rp, rs;
	uint32_t used = 0;

	(void)state;
	run_engine(f, "pathsel", 1, ENG_OK, &ps, &err);
	check_routed(&ps, "pathsel");
	assert_non_null(strstr(ps.routing->notes, "(chosen of 6 switches scored"));
	assert_true(fabs(worst_ca_paths(&ps, 96) - 144) < 1e-6);
	run_engine(f, "sftree", 1, ENG_OK, &sf, &err);
	assert_int_equal(an_evaluate(ps.fabric, ps.routing, &o, &rp, &err), 0);
	assert_int_equal(an_evaluate(sf.fabric, sf.routing, &o, &rs, &err), 0);
	assert_true(rp.load.max <= rs.load.max);
	assert_true(ps.report.load.ca_max_load <= sf.report.load.ca_max_load + 1e-9);
	/* every cable, both ways, carries the paths to some CA */
	for (uint32_t s = 0; s < ps.fabric->nswitches; s++)
		for (unsigned p = 1; p <= ps.fabric->nodes[ps.fabric->switches[s]].nports; p++) {
			int hit = 0;

			for (uint32_t e = 0; e < ps.fabric->neps && !hit; e++)
				hit = ps.fabric->nodes[ps.fabric->eps[e].node].type == FAB_CA &&
				      fab_sw_peer(ps.fabric, s, p) != FAB_NONE &&
				      rt_lft_get(ps.routing, s, fab_ep_lid(ps.fabric, e)) == p;
			used += hit;
		}
	assert_int_equal(used, 96);
	assert_non_null(strstr(ps.routing->notes, "96 LIDs for 96 ports"));
	run_engine_opts(f, "pathsel", "pathsel.seed=1", 1, ENG_OK, &drawn, &err);
	assert_non_null(strstr(drawn.routing->notes,
			       "root 'SwitchIB Mellanox Technologies (0x7cfe900300a5a3c0)' (drawn with seed 1)"));
	assert_true(fabs(worst_ca_paths(&drawn, 96) - 288) < 1e-6);
	run_engine_opts(f, "pathsel", "pathsel.root=0x248a070300f6c100", 1, ENG_OK, &given, &err);
	assert_non_null(strstr(given.routing->notes, "(0x248a070300f6c100)' (given)"));
	assert_true(fabs(worst_ca_paths(&given, 96) - 144) < 1e-6);
	an_report_free(&rp);
	an_report_free(&rs);
	eng_res_free(&ps);
	eng_res_free(&sf);
	eng_res_free(&drawn);
	eng_res_free(&given);
	fab_free(f);
}

/* The root la_updn_root() chooses for @f (cap 16): the same on a copy built in another order. */
static struct la_root chosen_root(const struct fabric *f)
{
	struct eng_args none = { 0 };
	struct fab_err err = { { 0 } };
	struct la_root r, again;
	uint32_t *order = tu_random_order(f, 3);
	struct fabric *g = tu_rebuild(f, order, 5);

	if (la_updn_root(f, &none, 0, 16, NULL, &r, &err))
		fail_msg("la_updn_root: %s", err.msg);
	assert_int_equal(la_updn_root(g, &none, 0, 16, NULL, &again, &err), 0);
	assert_int_equal(r.how, LA_ROOT_CHOSEN);
	assert_int_equal(g->nodes[g->switches[again.sw]].guid, f->nodes[f->switches[r.sw]].guid);
	assert_int_equal(again.tried, r.tried);
	free(order);
	fab_free(g);
	return r;
}

/*
 * The chosen root: a leaf of two- and three-level trees (every shortest
 * leaf-to-leaf path stays legal); a spine of ft648-rack, where a rack
 * switch's first 16 of its 288 shortest paths to another rack would all
 * cross one spine; on a tree of 320 switches, whose scoring would exceed
 * the work allowed, one switch of each kind (leaf, middle, top); the same
 * whatever the order of the records. Seeds draw as the paper does.
 */
static void test_root_choice(void **state)
{
	static const struct eng_opt schema[] = {
		{ .name = "root", .type = ENG_OPT_LIST, .defval = "" }, { .name = NULL },
	};
	struct eng_args given = { .schema = schema, .val = { (char *)"spine-01" } };
	struct fabric *f = tu_gen("kary-ntree k=4 n=3", 1);
	struct fab_err err = { { 0 } };
	struct la_root r = chosen_root(f);
	struct la_root d1, d1b;

	(void)state;
	assert_int_equal(r.tried, f->nswitches);
	assert_non_null(strstr(fab_desc(f, f->switches[r.sw]), "leaf"));
	fab_free(f);
	f = tu_gen("ft648-rack racks=4 hosts=8 uplinks=4", 1);
	r = chosen_root(f);
	assert_non_null(strstr(fab_desc(f, f->switches[r.sw]), "spine"));
	assert_int_equal(la_updn_root(f, &given, 0, 16, NULL, &r, &err), 0);
	assert_int_equal(r.how, LA_ROOT_GIVEN);
	assert_string_equal(fab_desc(f, f->switches[r.sw]), "spine-01");
	assert_int_equal(la_updn_root(f, &(struct eng_args){ 0 }, 7, 16, NULL, &d1, &err), 0);
	assert_int_equal(la_updn_root(f, &(struct eng_args){ 0 }, 7, 16, NULL, &d1b, &err), 0);
	assert_int_equal(d1.how, LA_ROOT_DRAWN);
	assert_int_equal(d1.sw, d1b.sw);
	fab_free(f);
	f = tu_gen("mport-ntree m=16 n=3", 1);
	r = chosen_root(f);
	assert_int_equal(f->nswitches, 320);
	assert_int_equal(r.tried, 3);
	assert_non_null(strstr(fab_desc(f, f->switches[r.sw]), "leaf"));
	fab_free(f);
}

static void test_engine_options(void **state)
{
	struct fabric *f = random_fabric(2);
	struct fab_err err = { { 0 } };
	struct eng_res res;
	struct eng_chain c;

	(void)state;
	run_engine(f, "pathsel", 1, ENG_OK, &res, &err);
	assert_non_null(strstr(res.routing->notes, "lids=color-l"));
	eng_res_free(&res);
	assert_int_equal(eng_chain_parse_str(&c, "pathsel", "pathsel.lids=sm-x", &err), -1);
	assert_non_null(strstr(err.msg, "greedy|sm-s|sm-l|color-s|color-l"));
	assert_int_equal(eng_chain_parse_str(&c, "pathsel", "pathsel.paths=17", &err), -1);
	assert_int_equal(eng_chain_parse_str(&c, "swidest", "swidest.root=nosuch", &err), 0);
	{
		struct eng_req q = { .fabric = f, .chain = &c, .assign = 1, .lmc_budget = 7 };

		assert_int_not_equal(eng_run(&q, &res, &err), ENG_OK);
		assert_non_null(strstr(err.msg, "no node \"nosuch\""));
	}
	eng_chain_free(&c);
	fab_free(f);
}

/* --- path files ------------------------------------------------------------------ */

static void expect_parse_error(const struct fabric *f, const char *text, const char *needle)
{
	struct fmt_paths p;
	struct fab_err err = { { 0 } };

	assert_int_equal(fmt_paths_parse(text, strlen(text), "p.txt", f, FMT_PATHS_DLID_ANY, &p,
					 &err), -1);
	if (!strstr(err.msg, needle))
		fail_msg("\"%s\" does not say \"%s\"", err.msg, needle);
}

static void test_path_file(void **state)
{
	struct fmt_paths ps, back;
	struct fabric *f = tu_lb_fig6(&ps);
	struct fab_err err = { { 0 } };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(fp);
	assert_int_equal(fmt_paths_write(fp, f, &ps), 0);
	fclose(fp);
	assert_int_equal(fmt_paths_parse(buf, len, "w", f, FMT_PATHS_DLID_NONE, &back, &err), 0);
	assert_int_equal(back.n, ps.n);
	assert_int_equal(back.nhops, ps.nhops);
	for (size_t i = 0; i < ps.nhops; i++) {
		assert_int_equal(back.hop[i].node, ps.hop[i].node);
		assert_int_equal(back.hop[i].port, ps.hop[i].port);
	}
	assert_int_equal(back.line[3], 4);
	fmt_paths_free(&back);
	free(buf);
	/* by description, CAs for their port 1, comments */
	{
		static const char text[] = "# Fig. 6\nm1 m0 s4:1 s1:1 s0:1\n\n";

		assert_int_equal(fmt_paths_parse(text, strlen(text), "d", f, FMT_PATHS_DLID_ANY,
						 &back, &err), 0);
	}
	assert_int_equal(back.n, 1);
	assert_int_equal(back.line[0], 2);
	fmt_paths_free(&back);
	expect_parse_error(f, "m1 m0 s4:1 s1:1\n", "p.txt:1: the last hop ('s1' port 1) does not "
			   "lead to 'm0' port 1");
	expect_parse_error(f, "\nm1 m0 s4:2 s3:9\n", "p.txt:2: hop 2: switch 's3' has no port 9");
	expect_parse_error(f, "m1 m9 s4:2\n", "p.txt:1: no node \"m9\"");
	expect_parse_error(f, "m1 m0 s5:1\n", "hop 1: expected switch 's4', found 's5'");
	expect_parse_error(f, "m1 m0 7 s4:1 s1:1 s0:1\n m1 m0 s4:x\n", "p.txt:2: hop \"s4:x\"");
	expect_parse_error(f, "m1\n", "p.txt:1: expected SRC DST");
	expect_parse_error(f, "m1 m1 s4:2\n", "one port");
	expect_parse_error(f, "# nothing\n", "at least one path");
	fmt_paths_free(&ps);
	fab_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_realised_every_heuristic),
		cmocka_unit_test(test_candidates),
		cmocka_unit_test(test_kpaths),
		cmocka_unit_test(test_engines_route),
		cmocka_unit_test(test_sm_lids),
		cmocka_unit_test(test_parallel_links),
		cmocka_unit_test(test_parallel_cables),
		cmocka_unit_test(test_root_choice),
		cmocka_unit_test(test_engine_options),
		cmocka_unit_test(test_path_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
