/* SPDX-License-Identifier: MIT */
/*
 * Topology generators: sizes against the closed forms of each family, port
 * counts and numbering, tree levels, dragonfly groups, connectivity,
 * determinism, LMC and parameter errors. Faults: test_gen_faults.c.
 */
#include "tests/unit/testutil.h"

static void test_table(void **state)
{
	size_t n = 0;
	const struct gen_family *fams = gen_families(&n);

	(void)state;
	assert_int_equal(n, 12);
	for (size_t i = 0; i < n; i++) {
		int has_lmc = 0;

		assert_non_null(fams[i].summary);
		assert_ptr_equal(gen_family_find(fams[i].name), &fams[i]);
		for (const struct gen_param *p = fams[i].params; p->name; p++) {
			assert_non_null(p->defval);
			assert_non_null(p->help);
			has_lmc |= !strcmp(p->name, "lmc");
		}
		assert_true(has_lmc);
	}
	assert_null(gen_family_find("fat-tree"));
	assert_null(gen_family_find(NULL));
}

/* Every family with its defaults: valid, named, connected, deterministic. */
static void test_defaults(void **state)
{
	size_t n = 0;
	const struct gen_family *fams = gen_families(&n);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		char spec[256];
		struct fabric *a = tu_gen(fams[i].name, 1), *b = tu_gen(fams[i].name, 1), *c;

		snprintf(spec, sizeof(spec), "%s", fams[i].name);
		for (const struct gen_param *p = fams[i].params; p->name; p++)
			snprintf(spec + strlen(spec), sizeof(spec) - strlen(spec), " %s=%s",
				 p->name, p->defval);
		c = tu_gen(spec, 1);
		tu_assert_connected(a);
		tu_check_names(a);
		for (uint32_t e = 0; e < a->neps; e++)
			assert_int_not_equal(fab_ep_lid(a, e), 0);
		tu_assert_same(a, b);
		tu_assert_same(a, c);
		fab_free(a);
		fab_free(b);
		fab_free(c);
	}
}

/* --- trees ---------------------------------------------------------------- */

static void test_kary_ntree(void **state)
{
	static const unsigned cases[][2] = { { 2, 1 }, { 2, 3 }, { 4, 3 }, { 3, 4 }, { 8, 2 } };

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned k = cases[c][0], n = cases[c][1];
		uint32_t per[TU_MAXLVL];
		char spec[64];
		struct fabric *f;

		snprintf(spec, sizeof(spec), "kary-ntree k=%u n=%u", k, n);
		f = tu_gen(spec, 1);
		tu_check_counts(f, n * (uint32_t)tu_ipow(k, n - 1), (uint32_t)tu_ipow(k, n),
				n * (uint32_t)tu_ipow(k, n));
		tu_check_all_ports(f, 2 * k);
		for (unsigned l = 0; l < n; l++)
			per[l] = (uint32_t)tu_ipow(k, n - 1);
		tu_check_tree(f, n, per, 0);
		fab_free(f);
	}
}

static void test_mport_ntree(void **state)
{
	static const unsigned cases[][2] = { { 4, 1 }, { 4, 2 }, { 4, 3 }, { 6, 3 }, { 36, 2 } };

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned m = cases[c][0], n = cases[c][1], k = m / 2;
		uint32_t per[TU_MAXLVL], nca = 2 * (uint32_t)tu_ipow(k, n);
		char spec[64];
		struct fabric *f;

		snprintf(spec, sizeof(spec), "mport-ntree m=%u n=%u", m, n);
		f = tu_gen(spec, 1);
		tu_check_counts(f, (2 * n - 1) * (uint32_t)tu_ipow(k, n - 1), nca, n * nca);
		tu_check_all_ports(f, m);
		for (unsigned l = 0; l < n; l++)
			per[l] = (l + 1 < n ? 2 : 1) * (uint32_t)tu_ipow(k, n - 1);
		tu_check_tree(f, n, per, 0);
		fab_free(f);
	}
}

static void test_xgft_benchmarks(void **state)
{
	static const uint32_t per1[] = { 288, 288, 288 }, per2[] = { 100, 200, 200 };
	static const unsigned ports1[] = { 36, 34, 16 }, ports2[] = { 40, 20, 10 };
	struct fabric *f;

	(void)state;
	f = tu_gen("xgft h=3 m=18,18,16 w=1,18,16", 1);
	tu_check_counts(f, 864, 5184, 5184 + 288 * 18 + 288 * 16);
	tu_check_tree(f, 3, per1, 0);
	tu_check_level_ports(f, ports1);
	tu_check_names(f);
	fab_free(f);

	f = tu_gen("xgft h=3 m=20,10,10 w=1,20,10", 1);
	tu_check_counts(f, 500, 2000, 2000 + 100 * 20 + 200 * 10);
	tu_check_tree(f, 3, per2, 0);
	tu_check_level_ports(f, ports2);
	fab_free(f);
}

/* XGFT(n; k..k; 1, k..k) is the k-ary n-tree but for the spare top ports. */
static void test_xgft_general(void **state)
{
	static const uint32_t per[] = { 8, 8, 8, 8 };
	struct fabric *f;

	(void)state;
	f = tu_gen("xgft h=4 m=2,2,2,2 w=1,2,2,2", 1);
	tu_check_counts(f, 32, 16, 4 * 16);
	tu_check_tree(f, 4, per, 0);
	fab_free(f);
	/* dual-ported CAs: w1 = 2 */
	f = tu_gen("xgft h=2 m=4,3 w=2,2", 1);
	tu_check_counts(f, 3 * 2 + 4, 12, 24 + 6 * 2);
	for (uint32_t i = 0; i < f->nnodes; i++)
		if (!tu_is_sw(f, i))
			assert_int_equal(f->nodes[i].nports, 2);
	fab_free(f);
}

static void test_gft2(void **state)
{
	/* full T(8+8, 16), slimmed T(12+4, 16), fatted T(8+16, 24) */
	static const unsigned cases[][3] = { { 8, 8, 16 }, { 12, 4, 16 }, { 8, 16, 24 } };

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned n = cases[c][0], m = cases[c][1], r = cases[c][2];
		const uint32_t per[2] = { r, m };
		const unsigned ports[2] = { n + m, r };
		char spec[64];
		struct fabric *f;

		snprintf(spec, sizeof(spec), "gft2 n=%u m=%u r=%u", n, m, r);
		f = tu_gen(spec, 1);
		tu_check_counts(f, r + m, r * n, r * n + r * m);
		tu_check_tree(f, 2, per, 0);
		tu_check_level_ports(f, ports);
		/* node i hangs on bottom switch i / n (the papers' numbering) */
		for (uint32_t i = 0; i < f->nnodes; i++)
			if (!tu_is_sw(f, i)) {
				uint32_t ca = (uint32_t)((f->nodes[i].guid - GEN_GUID_CA) / 16 - 1);
				uint32_t leaf = fab_port(f, i, 1)->peer;

				assert_true(f->nodes[leaf].guid == GEN_GUID_SWITCH + ca / n + 1);
				assert_int_equal(fab_port(f, i, 1)->peer_port, ca % n + 1);
			}
		fab_free(f);
	}
}

static void test_ft648(void **state)
{
	static const uint32_t per[] = { 36, 18 };
	struct fabric *f = tu_gen("ft648", 1), *g = tu_gen("mport-ntree m=36 n=2", 1);

	(void)state;
	tu_check_counts(f, 54, 648, 1296);
	tu_check_all_ports(f, 36);
	tu_check_tree(f, 2, per, 0);
	/* the 648-port tree is the 36-port 2-tree */
	tu_assert_same(f, g);
	fab_free(f);
	fab_free(g);
}

static void check_rack_pairs(const struct fabric *f, unsigned hosts, unsigned uplinks,
			     unsigned hlinks)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const char *d = fab_desc(f, i);
		uint32_t leaves[64];

		if (strncmp(d, "rack-", 5))
			continue;
		assert_int_equal(f->nodes[i].nports, hosts + uplinks + hlinks);
		for (unsigned u = 0; u < uplinks; u++) {
			leaves[u] = fab_port(f, i, hosts + u + 1)->peer;
			assert_memory_equal(fab_desc(f, leaves[u]), "leaf-", 5);
			for (unsigned v = 0; v < u; v++)
				assert_int_not_equal(leaves[u], leaves[v]);
		}
		for (unsigned l = 0; l < hlinks; l++) {
			const char *pd = fab_desc(f, fab_port(f, i, hosts + uplinks + l + 1)->peer);

			/* "rack-05a" <-> "rack-05b" */
			assert_int_equal(strlen(pd), strlen(d));
			assert_memory_equal(pd, d, strlen(d) - 1);
			assert_int_not_equal(pd[strlen(d) - 1], d[strlen(d) - 1]);
		}
	}
}

static void test_ft648_rack(void **state)
{
	static const uint32_t per[] = { 36, 36, 18 }, per2[] = { 8, 36, 18 };
	struct fabric *f = tu_gen("ft648-rack", 1);

	(void)state;
	tu_check_counts(f, 36 + 54, 36 * 16, 576 + 648 + 36 + 648);
	tu_check_tree(f, 3, per, 36);
	check_rack_pairs(f, 16, 18, 2);
	fab_free(f);

	f = tu_gen("ft648-rack racks=4 hosts=8 uplinks=6 hlinks=1", 1);
	tu_check_counts(f, 8 + 54, 64, 64 + 48 + 4 + 648);
	tu_check_tree(f, 3, per2, 4);
	check_rack_pairs(f, 8, 6, 1);
	fab_free(f);
	tu_gen_fails("ft648-rack racks=19 uplinks=18", "648");
	tu_gen_fails("ft648-rack hosts=200 uplinks=36 hlinks=20", "254");
}

/* Horizontal links join leaf J of core C to leaf J of core C+1 (mod cores). */
static void check_siblings(const struct fabric *f, unsigned cores)
{
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; tu_is_sw(f, i) && p <= f->nodes[i].nports; p++) {
			uint32_t m = fab_port(f, i, p)->peer;
			unsigned c1, c2, j1, j2, d;

			if (m == FAB_NONE || !tu_is_sw(f, m) ||
			    sscanf(fab_desc(f, i), "c%u-leaf-%u", &c1, &j1) != 2 ||
			    sscanf(fab_desc(f, m), "c%u-leaf-%u", &c2, &j2) != 2)
				continue;
			d = (c2 + cores - c1) % cores;
			assert_int_equal(j1, j2);
			assert_true(d == 1 || d == cores - 1);
		}
}

static void test_multicore(void **state)
{
	static const uint32_t per2[] = { 16, 8 }, per3[] = { 24, 12 };
	struct fabric *f = tu_gen("multicore", 1);

	(void)state;
	/* 2 cores of T(4+4, 8), one horizontal link per sibling pair */
	tu_check_counts(f, 2 * 12, 2 * 32, 2 * 64 + 8);
	tu_check_tree(f, 2, per2, 8);
	check_siblings(f, 2);
	tu_check_names(f);
	fab_free(f);

	/* a ring of 3 cores, 2 links to each neighbour */
	f = tu_gen("multicore cores=3 hlinks=2", 1);
	tu_check_counts(f, 3 * 12, 3 * 32, 3 * 64 + 3 * 8 * 2);
	tu_check_tree(f, 2, per3, 48);
	check_siblings(f, 3);
	for (uint32_t s = 0; s < f->nswitches; s++)
		if (strstr(fab_desc(f, f->switches[s]), "leaf"))
			assert_int_equal(f->nodes[f->switches[s]].nports, 4 + 4 + 4);
	fab_free(f);
	tu_gen_fails("multicore n=100 m=100 cores=3 hlinks=60", "n+m+2*hlinks");
}

/* --- direct networks ------------------------------------------------------ */

static void check_dragonfly(unsigned a, unsigned p, unsigned h)
{
	unsigned g = a * h + 1;
	uint32_t *pair = calloc((size_t)g * g, sizeof(*pair));
	uint32_t *local = calloc((size_t)a * g * a, sizeof(*local));
	char spec[64];
	struct fabric *f;

	assert_non_null(pair);
	assert_non_null(local);
	snprintf(spec, sizeof(spec), "dragonfly a=%u p=%u h=%u", a, p, h);
	f = tu_gen(spec, 1);
	tu_check_counts(f, a * g, a * p * g, a * p * g + g * a * (a - 1) / 2 + g * (g - 1) / 2);
	tu_check_all_ports(f, p + a - 1 + h);
	for (uint32_t s = 0; s < f->nswitches; s++)
		for (unsigned q = 1; q <= f->nodes[s].nports; q++) {
			uint32_t t = fab_port(f, s, q)->peer;

			if (t == FAB_NONE || !tu_is_sw(f, t))
				continue;
			if (s / a != t / a)
				pair[(s / a) * g + t / a]++;
			else
				local[s * a + t % a]++;
		}
	for (unsigned x = 0; x < g; x++)
		for (unsigned y = 0; y < g; y++)
			assert_int_equal(pair[x * g + y], x != y);
	for (uint32_t s = 0; s < f->nswitches; s++)
		for (unsigned t = 0; t < a; t++)
			assert_int_equal(local[s * a + t], s % a != t);
	free(pair);
	free(local);
	fab_free(f);
}

/*
 * Where global link j of group i lands, per the wiring's definition (the
 * group and that group's index of the link), worked out independently.
 */
static void df_target(const char *w, unsigned g, unsigned i, unsigned j, unsigned *t, unsigned *j2)
{
	if (!strcmp(w, "relative")) {
		*t = (i + j + 1) % g;
		*j2 = g - 2 - j;
	} else if (!strcmp(w, "circulant")) {
		unsigned k = j / 2;

		*t = j % 2 ? (i + g - k - 1) % g : (i + k + 1) % g;
		*j2 = j % 2 ? 2 * k : 2 * k + 1;
	} else {
		*t = j < i ? j : j + 1;
		*j2 = i < *t ? i : i - 1;
	}
}

/* Every global link j of group i on switch j / h, port p+a+(j mod h), to where the wiring says. */
static void check_wiring(unsigned a, unsigned p, unsigned h, const char *w)
{
	unsigned g = a * h + 1;
	char spec[96];
	struct fabric *f;

	snprintf(spec, sizeof(spec), "dragonfly a=%u p=%u h=%u wiring=%s", a, p, h, w);
	f = tu_gen(spec, 1);
	tu_check_all_ports(f, p + a - 1 + h);
	for (unsigned i = 0; i < g; i++)
		for (unsigned j = 0; j < a * h; j++) {
			unsigned t, j2;
			const struct fab_port *x = fab_port(f, i * a + j / h, p + a + j % h);

			df_target(w, g, i, j, &t, &j2);
			assert_int_equal(x->peer, t * a + j2 / h);
			assert_int_equal(x->peer_port, p + a + j2 % h);
		}
	fab_free(f);
}

static void test_dragonfly_wiring(void **state)
{
	static const char *const w[] = { "absolute", "relative", "circulant" };
	struct fabric *x, *y;

	(void)state;
	for (unsigned k = 0; k < 3; k++) {
		check_wiring(4, 2, 2, w[k]);
		check_wiring(6, 3, 3, w[k]);
		check_wiring(3, 2, 2, w[k]);
		check_wiring(2, 1, 1, w[k]);
	}
	check_wiring(3, 1, 3, "relative");
	/* absolute is the default, and the arrangements differ */
	x = tu_gen("dragonfly a=4 p=2 h=2", 1);
	y = tu_gen("dragonfly a=4 p=2 h=2 wiring=absolute", 1);
	assert_int_equal(fab_topology_hash(x), fab_topology_hash(y));
	fab_free(y);
	y = tu_gen("dragonfly a=4 p=2 h=2 wiring=relative", 1);
	assert_int_not_equal(fab_topology_hash(x), fab_topology_hash(y));
	fab_free(y);
	fab_free(x);
	tu_gen_fails("dragonfly a=3 p=1 h=3 wiring=circulant", "a*h must be even, a=3 h=3 give 9");
	tu_gen_fails("dragonfly wiring=diagonal", "wiring=\"diagonal\": expected one of "
		     "absolute|relative|circulant");
	tu_gen_fails("dragonfly wiring=1", "expected one of");
}

static void test_dragonfly(void **state)
{
	(void)state;
	check_dragonfly(4, 2, 2);
	check_dragonfly(2, 1, 1);
	check_dragonfly(3, 2, 3);
	check_dragonfly(1, 1, 3);
	check_dragonfly(8, 4, 4);
	tu_gen_fails("dragonfly a=100 p=100 h=100", "p+a-1+h");
}

static void test_random(void **state)
{
	struct fabric *a = tu_gen("random", 7), *b = tu_gen("random", 7);
	struct fabric *c = tu_gen("random", 8);

	(void)state;
	tu_check_counts(a, 16, 128, 128 + 64);
	assert_int_equal(tu_sw_links(a), 16 * 8 / 2);
	tu_assert_same(a, b);
	assert_true(fab_topology_hash(a) != fab_topology_hash(c));
	/* no parallel switch links: each switch sees distinct neighbours */
	for (uint32_t s = 0; s < a->nswitches; s++)
		for (unsigned p = 1; p <= a->nodes[s].nports; p++)
			for (unsigned q = p + 1; q <= a->nodes[s].nports; q++) {
				uint32_t x = fab_port(a, s, p)->peer, y = fab_port(a, s, q)->peer;

				if (x != FAB_NONE && tu_is_sw(a, x))
					assert_int_not_equal(x, y);
			}
	fab_free(a);
	fab_free(b);
	fab_free(c);

	a = tu_gen("random switches=64 machines=256 degree=5 radix=12", 3);
	tu_check_counts(a, 64, 256, 256 + 160);
	tu_check_all_ports(a, 12);
	fab_free(a);
	/* a tree-like sparse graph is still connected */
	a = tu_gen("random switches=200 machines=10 degree=2", 99);
	tu_check_counts(a, 200, 10, 10 + 200);
	fab_free(a);
	tu_gen_fails("random switches=16 degree=1", "degree=1 is too low");
	tu_gen_fails("random switches=8 degree=9", "too high");
	tu_gen_fails("random switches=16 machines=100 degree=8 radix=10", "radix");
}

static void check_switch_degrees(const struct fabric *f, const unsigned *hist, unsigned maxd)
{
	unsigned got[16] = { 0 };

	for (uint32_t s = 0; s < f->nswitches; s++) {
		unsigned d = 0;

		for (unsigned p = 1; p <= f->nodes[s].nports; p++) {
			uint32_t m = fab_port(f, s, p)->peer;

			d += m != FAB_NONE && tu_is_sw(f, m);
		}
		assert_in_range(d, 0, maxd);
		got[d]++;
	}
	for (unsigned d = 0; d <= maxd; d++)
		assert_int_equal(got[d], hist[d]);
}

static void test_ring_mesh_torus(void **state)
{
	static const unsigned ring[] = { 0, 0, 8 }, mesh[] = { 0, 0, 4, 8, 4 };
	static const unsigned torus[] = { 0, 0, 0, 0, 16 }, t3[] = { 0, 0, 0, 0, 0, 0, 27 };
	struct fabric *f;

	(void)state;
	f = tu_gen("ring", 1);
	tu_check_counts(f, 8, 8, 16);
	check_switch_degrees(f, ring, 2);
	fab_free(f);
	f = tu_gen("mesh dims=4,4", 1);
	tu_check_counts(f, 16, 16, 16 + 24);
	check_switch_degrees(f, mesh, 4);
	tu_check_all_ports(f, 1 + 4);
	fab_free(f);
	f = tu_gen("torus dims=4,4 hosts=2", 1);
	tu_check_counts(f, 16, 32, 32 + 32);
	check_switch_degrees(f, torus, 4);
	fab_free(f);
	f = tu_gen("torus dims=3,3,3 hosts=0", 1);
	tu_check_counts(f, 27, 0, 81);
	check_switch_degrees(f, t3, 6);
	tu_check_names(f);
	fab_free(f);
	tu_gen_fails("torus dims=2,4", "dims=2,4: value 2 is out of range");
	tu_gen_fails("ring switches=2", "switches=2 is out of range");
}

/* --- parameters, limits, LMC ---------------------------------------------- */

static void test_param_errors(void **state)
{
	(void)state;
	tu_gen_fails("fat-tree", "unknown topology family \"fat-tree\"");
	tu_gen_fails("kary-ntree q=1",
		     "kary-ntree: unknown parameter \"q\" (parameters: k, n, lmc)");
	tu_gen_fails("kary-ntree k=abc", "kary-ntree: k=\"abc\": expected an unsigned integer");
	tu_gen_fails("kary-ntree k=-1", "expected an unsigned integer");
	tu_gen_fails("kary-ntree k=4x", "expected an unsigned integer");
	tu_gen_fails("kary-ntree k=", "expected an unsigned integer");
	tu_gen_fails("kary-ntree k=2,2", "expected an unsigned integer");
	tu_gen_fails("kary-ntree k=99999999999999999999", "out of range");
	tu_gen_fails("kary-ntree k=0", "kary-ntree: k=0 is out of range: expected 1 to 127");
	tu_gen_fails("kary-ntree k=128", "k=128 is out of range");
	tu_gen_fails("kary-ntree k4", "\"k4\": expected NAME=VALUE");
	tu_gen_fails("kary-ntree =4", "expected NAME=VALUE");
	tu_gen_fails("kary-ntree k=4 k=2", "\"k\" is given twice");
	tu_gen_fails("kary-ntree lmc=8", "lmc=8 is out of range: expected 0 to 7");
	tu_gen_fails("mport-ntree m=5", "m=5: the port count must be even");
	tu_gen_fails("xgft m=18,,16", "expected a comma-separated list");
	tu_gen_fails("xgft m=18,16,", "expected a comma-separated list");
	tu_gen_fails("xgft m=18,0,16", "m=18,0,16: value 0 is out of range");
	tu_gen_fails("xgft h=2", "m has 3 values but h=2");
	tu_gen_fails("xgft h=2 m=4,4", "w has 3 values but h=2");
	tu_gen_fails("xgft h=2 m=4,4 w=16,4", "w1=16");
	tu_gen_fails("xgft m=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "more than 16 values");
	tu_gen_fails("gft2 n=200 m=100", "leaf switches (n+m) would have 300 ports; at most 254");
}

static void test_limits(void **state)
{
	(void)state;
	tu_gen_fails("kary-ntree k=16 n=4", "at most 49151 fit");
	tu_gen_fails("kary-ntree k=127 n=16", "endpoints");
	tu_gen_fails("xgft h=3 m=40,40,40 w=1,40,40", "at most 49151");
	tu_gen_fails("mesh dims=1000,1000", "at most 49151");
	tu_gen_fails("random switches=40000 machines=40000", "at most 49151");
	tu_gen_fails("xgft h=2 m=200,100 w=1,100", "(m1+w2) would have 300 ports");
	/* LMC 7 on 1000 endpoints needs 128000 LIDs */
	tu_gen_fails("gft2 n=32 m=16 r=32 lmc=7", "out of unicast LIDs");
}

static void check_lmc(const char *spec, unsigned lmc)
{
	struct fabric *f = tu_gen(spec, 1);

	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t n = f->eps[e].node;
		unsigned l = fab_ep_lid(f, e);

		if (tu_is_sw(f, n)) {
			assert_int_equal(fab_ep_lmc(f, e), 0);
			continue;
		}
		assert_int_equal(fab_ep_lmc(f, e), lmc);
		assert_int_equal(l % (1u << lmc), 0);
		assert_int_equal(fab_ep_by_lid(f, l + (1u << lmc) - 1), e);
	}
	fab_free(f);
}

static void test_lmc(void **state)
{
	(void)state;
	check_lmc("kary-ntree lmc=2", 2);
	check_lmc("dragonfly lmc=3", 3);
	check_lmc("random lmc=1", 1);
	check_lmc("ft648-rack lmc=0", 0);
}

/* --- faults --------------------------------------------------------------- */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_kary_ntree),
		cmocka_unit_test(test_mport_ntree),
		cmocka_unit_test(test_xgft_benchmarks),
		cmocka_unit_test(test_xgft_general),
		cmocka_unit_test(test_gft2),
		cmocka_unit_test(test_ft648),
		cmocka_unit_test(test_ft648_rack),
		cmocka_unit_test(test_multicore),
		cmocka_unit_test(test_dragonfly),
		cmocka_unit_test(test_dragonfly_wiring),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_ring_mesh_torus),
		cmocka_unit_test(test_param_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_lmc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
