/* SPDX-License-Identifier: MIT */
/*
 * The dla engine (engines/dla/dla.c), papers/004, against the acceptance checks
 * of its brief:
 *  A. a=4,p=2,h=2 on absolute and relative wiring: every LID pair (switches
 *     included) delivered on [lc] gc [lc]; the hop histograms; VL0 180
 *     channels and 216 dependencies (all lc -> gc), VL1 108 channels and
 *     none; only VL0 -> VL1 between VLs; 6 SL2VL rows per switch on VL1
 *     (216 rows in opensm-sl2vl.dump); 64 / 68 (36 + 32) / 71 flows per
 *     gc / lc / tc; group shift +1 at most 8;
 *  B. the same invariants at 342, 1056 and 2550 nodes against the brief's
 *     table and the closed forms; oversubscribed fabrics and CELLIA's shape;
 *  C. what dla refuses (a lost local or global link, a non-clique group,
 *     unequal groups, one data VL, the ambiguous a=3,h=2 without a groups
 *     file) and the chain falling back; Fig. 8 with a naive detour around
 *     the brief's three dead links closes a cycle through both VLs that no
 *     single VL shows, while one dead link never does;
 *  and LIDs spread over parallel global links with LMC, VLs read back by
 *  an_trace() hop by hop.
 */
#include <unistd.h>

#include "tests/unit/testutil.h"

#include "analysis/dfly.h"
#include "fabric/dfly.h"
#include "formats/formats.h"
#include "gen/gen.h"

/* --- helpers ------------------------------------------------------------------ */

/* A groups file naming switch s's group s / @a; the caller unlinks @path. */
static void groups_file(const struct fabric *f, unsigned a, char *path)
{
	int fd = mkstemp(path);
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "w");

	assert_non_null(fp);
	for (uint32_t s = 0; s < f->nswitches; s++)
		fprintf(fp, "0x%016llx group-%u\n", (unsigned long long)f->nodes[f->switches[s]].guid,
			s / a);
	assert_int_equal(fclose(fp), 0);
}

/* Route with dla (groups from @path when given); expect @want. */
static struct rt_routing *dla(const struct fabric *f, const char *path, int want,
			      struct fab_err *err)
{
	char opt[128];
	const char *kv[2] = { opt, NULL };

	snprintf(opt, sizeof(opt), "groups=%s", path ? path : "");
	return tu_route_opts(&eng_dla, f, kv, want, err);
}

static void metrics(const struct fabric *f, const struct rt_routing *r, const char *groups,
		    struct an_dfly *m)
{
	struct fab_err err = { { 0 } };
	struct fab_dfly d;
	char *buf = NULL;
	size_t len = 0;

	if (groups && fmt_read_file(groups, &buf, &len, &err))
		fail_msg("%s", err.msg);
	if (fmt_dfly_find(f, buf, len, groups, &d, &err))
		fail_msg("%s", err.msg);
	if (an_dfly_run(f, r, &d, m, &err))
		fail_msg("%s", err.msg);
	free(buf);
	fab_dfly_free(&d);
}

/* --- A and B: balanced fabrics ----------------------------------------------- */

/* The brief's figures per size (§5 A and B). */
struct want {
	unsigned a, p, h;
	uint32_t vl0_ch;
	uint64_t vl0_deps;
	uint32_t vl1_ch;
	double avg;
	uint64_t gc, lc, shift;
};

static const struct want balanced[] = {
	{ 4, 2, 2, 180, 216, 108, 2.3380, 64, 68, 8 },
	{ 6, 3, 3, 912, 1710, 570, 2.5777, 324, 333, 18 },
	{ 8, 4, 4, 2904, 7392, 1848, 2.6957, 1024, 1040, 32 },
	{ 10, 5, 5, 7140, 22950, 4590, 2.7638, 2500, 2525, 50 },
};

/* Per switch, h(a-1) (in, out) rows map every SL to VL1, all others to VL0. */
static void check_sl2vl_tables(const struct fabric *f, const struct rt_routing *r, unsigned a,
			       unsigned p, unsigned h)
{
	for (uint32_t s = 0; s < f->nswitches; s++) {
		unsigned np = f->nodes[f->switches[s]].nports, rows = 0;

		assert_non_null(r->sl2vl[s]);
		for (unsigned in = 0; in <= np; in++)
			for (unsigned out = 0; out <= np; out++) {
				unsigned vl = rt_sl2vl_get(r, f, s, in, out, 0);
				int want = in >= p + a && out > p && out < p + a;

				for (unsigned sl = 1; sl < RT_SLS; sl++)
					assert_int_equal(rt_sl2vl_get(r, f, s, in, out, sl), vl);
				assert_int_equal(vl, (unsigned)want);
				rows += vl;
			}
		assert_int_equal(rows, h * (a - 1));
	}
}

/* opensm-sl2vl.dump as written: @vl1 rows on VL1, every other row and CA row 0; read back equal. */
static void check_sl2vl_dump(const struct fabric *f, const struct rt_routing *r, unsigned vl1,
			     unsigned cas)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	unsigned ones = 0, zeros = 0, ca = 0, sw = 0;
	struct rt_routing *back = rt_new(f);
	struct fab_err err = { { 0 } };

	assert_non_null(fp);
	assert_non_null(back);
	assert_int_equal(fmt_sl2vl_write(fp, f, r), 0);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(fmt_sl2vl_parse(buf, len, "dump", f, back, &err), 0);
	/* every row the dump holds (out port 0 has none) reads back as it was */
	for (uint32_t s = 0; s < f->nswitches; s++) {
		unsigned np = f->nodes[f->switches[s]].nports;

		for (unsigned in = 0; in <= np; in++)
			for (unsigned out = 1; out <= np; out++)
				for (unsigned sl = 0; sl < RT_SLS; sl++)
					assert_int_equal(rt_sl2vl_get(back, f, s, in, out, sl),
							 rt_sl2vl_get(r, f, s, in, out, sl));
	}
	rt_free(back);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		ca += !strncmp(line, "Channel Adapter 0x", 18);
		sw += !strncmp(line, "Switch 0x", 9);
		if (strstr(line, ": 1  1  1  1  1  1  1  1  1  1  1  1  1  1  1  1 "))
			ones++;
		else if (strstr(line, ": 0  0  0  0  0  0  0  0  0  0  0  0  0  0  0  0 "))
			zeros++;
		else if (line[0] != '#' && strncmp(line, "Switch", 6) && strncmp(line, "Channel", 7))
			fail_msg("unexpected line \"%s\"", line);
	}
	free(buf);
	assert_int_equal(ones, vl1);
	assert_int_equal(ca, cas);
	assert_int_equal(sw, f->nswitches);
	/* every switch: (ports + 1) in ports x ports out ports */
	assert_int_equal(ones + zeros - cas,
			 f->nswitches * (f->nodes[f->switches[0]].nports + 1u) *
			 f->nodes[f->switches[0]].nports);
}

/*
 * Along every path (switches included), VLs never drop on switch-to-switch
 * channels; VL1 only from a gc onto an lc (the delivery hop is VL0).
 */
static void check_vl_order(const struct fabric *f, const struct rt_routing *r, unsigned a,
			   unsigned p)
{
	for (uint32_t s = 0; s < f->neps; s++)
		for (uint32_t t = 0; t < f->neps; t++) {
			struct an_path path;
			unsigned last = 0;

			if (s == t)
				continue;
			assert_int_equal(an_trace(f, r, s, fab_ep_lid(f, t), 0, &path), 0);
			assert_int_equal(path.fail, AN_DELIVERED);
			for (uint32_t i = 0; i < path.nhops; i++) {
				const struct an_hop *x = &path.hops[i];
				int shift = x->in_port >= p + a && x->out_port > p && x->out_port < p + a;

				assert_int_equal(x->vl, (unsigned)shift);
				if (i + 1 == path.nhops)
					break;	/* the last hop leaves for a CA or port 0: no channel */
				assert_true(x->vl >= last);
				last = x->vl;
			}
			an_path_free(&path);
		}
}

static void check_balanced(const struct want *w, const char *wiring)
{
	unsigned a = w->a, p = w->p, h = w->h;
	uint64_t g = (uint64_t)a * h + 1, S = g * a, N = S * p, P = (uint64_t)p * p;
	struct fabric *f = tu_dragonfly(a, p, h, wiring);
	struct fab_err err = { { 0 } };
	struct rt_routing *r = dla(f, NULL, ENG_OK, &err);
	struct an_report rep;
	struct an_dfly m;

	assert_non_null(strstr(r->notes, "closed neighbourhoods"));
	assert_int_equal(r->vls_used, 0x3);
	assert_null(r->path_sl);
	tu_eval(f, r, 0, &rep);
	assert_true(an_connected(&rep));
	assert_int_equal(rep.conn.pairs[AN_CA_CA], N * (N - 1));
	assert_int_equal(rep.conn.pairs[AN_SW_SW], S * (S - 1));
	assert_int_equal(rep.conn.pairs[AN_CA_SW], N * S);
	assert_true(rep.cdg.deadlock_free);
	assert_false(rep.cdg.cross_cycle);
	assert_int_equal(rep.cdg.vls_used, 0x3);
	/* the brief's table, then the closed forms */
	assert_int_equal(rep.cdg.vl[0].channels, w->vl0_ch);
	assert_int_equal(rep.cdg.vl[0].deps, w->vl0_deps);
	assert_int_equal(rep.cdg.vl[1].channels, w->vl1_ch);
	assert_int_equal(rep.cdg.vl[0].channels, g * a * (a - 1) + g * (g - 1));
	assert_int_equal(rep.cdg.vl[0].deps, g * a * h * (a - 1));
	assert_int_equal(rep.cdg.vl[1].channels, g * a * (a - 1));
	assert_int_equal(rep.cdg.vl[1].deps, 0);
	assert_int_equal(rep.cdg.cross_deps, g * (g - 1) * (a - 1));
	an_report_free(&rep);

	metrics(f, r, NULL, &m);
	assert_int_equal(m.ca_pairs, N * (N - 1));
	assert_int_equal(m.ca_lost + m.sw_lost + m.off_shape + m.multi_gc, 0);
	assert_int_equal(m.ca_hops[0], p * (p - 1) * S);
	assert_int_equal(m.ca_hops[1], (g * a * (a - 1) + g * (g - 1)) * P);
	assert_int_equal(m.ca_hops[2], 2 * (a - 1) * g * (g - 1) * P);
	assert_int_equal(m.ca_hops[3], (uint64_t)(a - 1) * (a - 1) * g * (g - 1) * P);
	for (unsigned k = 1; k < 4; k++)
		assert_int_equal(m.sw_hops[k], m.ca_hops[k] / P);
	assert_int_equal(m.sw_hops[0] + m.ca_hops[4] + m.sw_hops[4], 0);
	assert_int_equal(m.ca_max_hops, 3);
	assert_true(m.ca_avg_hops > w->avg - 5e-5 && m.ca_avg_hops < w->avg + 5e-5);
	assert_int_equal(m.gc.min, w->gc);
	assert_int_equal(m.gc.max, (uint64_t)a * p * a * p);		/* eq. (2) */
	assert_int_equal(m.lc.min, w->lc);
	assert_int_equal(m.lc.max, P + 2 * a * h * P);			/* eq. (3) */
	assert_int_equal(m.lc_vls, 0x3);
	assert_int_equal(m.lc_vl[0].min, P + a * h * P);
	assert_int_equal(m.lc_vl[0].max, P + a * h * P);
	assert_int_equal(m.lc_vl[1].min, a * h * P);
	assert_int_equal(m.lc_vl[1].max, a * h * P);
	assert_int_equal(m.tc.min, N - 1);					/* eq. (1) */
	assert_int_equal(m.tc.max, N - 1);
	assert_int_equal(m.gc.channels, g * (g - 1));
	assert_int_equal(m.lc.channels, g * a * (a - 1));
	assert_int_equal(m.tc.channels, 2 * N);
	assert_int_equal(m.shift_max, w->shift);
	assert_int_equal(m.shift_max, a * p);
	assert_int_equal(m.shift_pairs, N);

	check_sl2vl_tables(f, r, a, p, h);
	if (a == 4) {
		check_sl2vl_dump(f, r, 216, 72);
		check_vl_order(f, r, a, p);
	}
	rt_free(r);
	fab_free(f);
}

static void test_a_absolute(void **state)
{
	(void)state;
	check_balanced(&balanced[0], "absolute");
}

static void test_a_relative(void **state)
{
	(void)state;
	check_balanced(&balanced[0], "relative");
	check_balanced(&balanced[0], "circulant");
}

static void test_b_scale(void **state)
{
	(void)state;
	check_balanced(&balanced[1], "absolute");
	check_balanced(&balanced[1], "relative");
	check_balanced(&balanced[2], "absolute");
	check_balanced(&balanced[3], "relative");
}

/* Oversubscribed (a = 2h = p): lc flows 272, 1332, 4160; eq. (3) p^2 + 2ahp^2. */
static void test_b_oversubscribed(void **state)
{
	static const unsigned sizes[][4] = { { 4, 4, 2, 272 }, { 6, 6, 3, 1332 }, { 8, 8, 4, 4160 } };

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		unsigned a = sizes[i][0], p = sizes[i][1], h = sizes[i][2];
		struct fabric *f = tu_dragonfly(a, p, h, "absolute");
		struct fab_err err = { { 0 } };
		struct rt_routing *r = dla(f, NULL, ENG_OK, &err);
		struct an_dfly m;

		metrics(f, r, NULL, &m);
		assert_int_equal(m.lc.max, sizes[i][3]);
		assert_int_equal(m.lc.min, sizes[i][3]);
		assert_int_equal(m.gc.max, a * p * a * p);
		assert_int_equal(m.off_shape, 0);
		rt_free(r);
		fab_free(f);
	}
}

/* CELLIA (a=3, p=2, h=2; 42 nodes): ambiguous groups, routed with a groups file. */
static void test_cellia(void **state)
{
	struct fabric *f = tu_dragonfly(3, 2, 2, "absolute");
	struct fab_err err = { { 0 } };
	char path[] = "/tmp/fabroute-dla-XXXXXX";
	struct rt_routing *r;
	struct an_report rep;
	struct an_dfly m;

	(void)state;
	assert_null(dla(f, NULL, ENG_NOT_APPLICABLE, &err));
	assert_non_null(strstr(err.msg, "name the groups in a file (dla.groups)"));
	groups_file(f, 3, path);
	r = dla(f, path, ENG_OK, &err);
	assert_non_null(strstr(r->notes, "7 groups of 3 switches, 2 global links per switch (groups "
				       "from the groups file)"));
	tu_eval(f, r, 0, &rep);
	assert_true(an_connected(&rep));
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);
	metrics(f, r, path, &m);
	assert_int_equal(m.gc.max, 36);
	assert_int_equal(m.lc.max, 52);
	assert_int_equal(m.tc.max, 41);	/* uniform bound 41 / 52 = 0.79 */
	unlink(path);
	rt_free(r);
	fab_free(f);
}

/* --- C: what dla refuses ---------------------------------------------------- */

static struct fabric *faulty(const char *spec, const char *const *links, size_t nlinks,
			     const char *sw)
{
	struct fabric *f = tu_gen(spec, 1);
	struct fab_err err = { { 0 } };
	const char *sws[1] = { sw };
	struct gen_faults g = { .links = links, .nlinks = nlinks,
				.switches = sws, .nswitches = sw != NULL };

	if (gen_faults_apply(&f, &g, &err))
		fail_msg("%s", err.msg);
	return f;
}

static void refused(const struct fabric *f, const char *path, const char *needle)
{
	struct fab_err err = { { 0 } };
	struct eng_res res;

	assert_null(dla(f, path, ENG_NOT_APPLICABLE, &err));
	if (!strstr(err.msg, needle))
		fail_msg("\"%s\" does not contain \"%s\"", err.msg, needle);
	if (path)
		return;
	/* the chain falls back, saying why */
	tu_run_chain(f, "dla,updn", NULL, &res);
	assert_ptr_equal(res.used, &eng_updn);
	assert_non_null(strstr(res.log, "dla: not applicable: "));
	assert_non_null(strstr(res.log, needle));
	eng_res_free(&res);
}

static void test_c_refused(void **state)
{
	static const char *const lc[] = { "g00-sw0:3" }, *const gc[] = { "g03-sw2:6" };
	char path[] = "/tmp/fabroute-dla-XXXXXX";
	struct fab_err err = { { 0 } };
	struct fabric *f;

	(void)state;
	f = faulty("dragonfly a=4 p=2 h=2", lc, 1, NULL);
	refused(f, NULL, "(a lost local link?)");
	groups_file(f, 4, path);
	refused(f, path, "group 0 is not a clique");
	unlink(path);
	fab_free(f);
	f = faulty("dragonfly a=4 p=2 h=2 wiring=relative", gc, 1, NULL);
	refused(f, NULL, "(a lost global link?)");
	fab_free(f);
	f = faulty("dragonfly a=6 p=3 h=3", NULL, 0, "g04-sw5");
	refused(f, NULL, "not a dragonfly of equal cliques");
	strcpy(path, "/tmp/fabroute-dla-XXXXXX");
	groups_file(f, 6, path);
	refused(f, path, "groups of different sizes");
	unlink(path);
	fab_free(f);
	f = tu_gen("torus dims=4,4,4", 1);
	refused(f, NULL, "not a dragonfly");
	fab_free(f);
	/* one data VL on a switch */
	f = tu_dragonfly(4, 2, 2, "absolute");
	f->nodes[f->switches[5]].vl_cap = 1;
	refused(f, NULL, "switch \"g01-sw1\" runs 1 data VL on its ports; dla needs VL1");
	fab_free(f);
	/* a malformed groups file is an error, not a fallback */
	f = tu_dragonfly(4, 2, 2, "absolute");
	strcpy(path, "/tmp/fabroute-dla-XXXXXX");
	groups_file(f, 4, path);
	assert_int_equal(truncate(path, 10), 0);
	assert_null(dla(f, path, ENG_ERROR, &err));
	assert_non_null(strstr(err.msg, ":1: expected \"NODE GROUP\""));
	unlink(path);
	fab_free(f);
}

/*
 * Fig. 8 with a naive detour: where a dead local link s -> v would be used,
 * go s -> w -> v through the first other switch w of the group with both
 * links alive (w's own entry already leads to v). After a gc the hop s -> w
 * is on VL1 and w -> v back on VL0.
 */
static void detour(const struct fabric *dead, struct rt_routing *r, const struct fabric *f)
{
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s], G = node / 4;

		for (unsigned lid = 1; lid < r->lft_len; lid++) {
			uint8_t port = rt_lft(r, s)[lid];
			uint32_t v;

			if (port == RT_NO_PORT || !port || fab_port_linked(dead, node, port))
				continue;
			v = fab_port(f, node, port)->peer;
			for (uint32_t w = G * 4; w < G * 4 + 4; w++) {
				unsigned to_w = 0, w_to_v = 0;

				for (unsigned q = 1; w != node && w != v && q <= f->nodes[node].nports; q++)
					if (fab_port(dead, node, q)->peer == w)
						to_w = q;
				for (unsigned q = 1; to_w && q <= f->nodes[w].nports; q++)
					if (fab_port(dead, w, q)->peer == v)
						w_to_v = q;
				if (w_to_v) {
					rt_lft(r, s)[lid] = (uint8_t)to_w;
					break;
				}
			}
		}
	}
}

static void test_c_naive_detour(void **state)
{
	static const char *const dead3[] = { "g00-sw1:3", "g01-sw3:3", "g03-sw3:5" };
	struct fabric *f = tu_dragonfly(4, 2, 2, "relative"), *bad;
	struct fab_err err = { { 0 } };
	struct an_report rep;
	unsigned cycles = 0;

	(void)state;
	bad = faulty("dragonfly a=4 p=2 h=2 wiring=relative", dead3, 3, NULL);
	{
		struct rt_routing *r = dla(f, NULL, ENG_OK, &err);

		detour(bad, r, f);
		tu_eval(bad, r, 0, &rep);
		assert_true(an_connected(&rep));
		assert_true(rep.cdg.vl[0].acyclic);
		assert_true(rep.cdg.vl[1].acyclic);
		assert_true(rep.cdg.cross_cycle);
		assert_false(rep.cdg.deadlock_free);
		an_report_free(&rep);
		rt_free(r);
	}
	fab_free(bad);
	/* one dead local link, any of the 54: never a cycle */
	for (uint32_t s = 0; s < f->nswitches; s++)
		for (unsigned q = 3; q <= 5; q++) {
			char link[32];
			const char *one[1] = { link };
			struct rt_routing *r;

			if (fab_port(f, f->switches[s], q)->peer < f->switches[s])
				continue;
			snprintf(link, sizeof(link), "%s:%u", fab_desc(f, f->switches[s]), q);
			bad = faulty("dragonfly a=4 p=2 h=2 wiring=relative", one, 1, NULL);
			r = dla(f, NULL, ENG_OK, &err);
			detour(bad, r, f);
			tu_eval(bad, r, 0, &rep);
			assert_true(an_connected(&rep));
			cycles += !rep.cdg.deadlock_free;
			an_report_free(&rep);
			rt_free(r);
			fab_free(bad);
		}
	assert_int_equal(cycles, 0);
	fab_free(f);
}

/* --- LMC over parallel global links ----------------------------------------- */

/*
 * A dragonfly of @g < a*h+1 groups: each pair of groups shares a*h/(g-1)
 * global links, handed out in order of the groups' free global ports.
 * One CA per switch (port 1), lc on ports 2..a, gc on a+1..a+h.
 */
static struct fabric *parallel_df(unsigned a, unsigned h, unsigned g, unsigned lmc)
{
	struct fabric *f = fab_new();
	struct fab_err err = { { 0 } };
	unsigned m = a * h / (g - 1), *next = calloc(g, sizeof(*next));
	char desc[32];

	assert_non_null(f);
	assert_non_null(next);
	for (unsigned s = 0; s < g * a; s++) {
		struct fab_node_info sw = { .type = FAB_SWITCH, .guid = 0x100 + s, .nports = a + h,
					    .desc = desc };

		snprintf(desc, sizeof(desc), "G%u-S%u", s / a, s % a);
		assert_int_not_equal(fab_node_add(f, &sw, &err), FAB_NONE);
	}
	for (unsigned s = 0; s < g * a; s++) {
		struct fab_node_info ca = { .type = FAB_CA, .guid = 0x10000 + 16 * s, .nports = 1,
					    .desc = desc };
		uint32_t n;

		snprintf(desc, sizeof(desc), "H%u", s);
		n = fab_node_add(f, &ca, &err);
		assert_int_equal(fab_link_add(f, s, 1, n, 1, &err), 0);
		for (unsigned t = s % a + 1; t < a; t++)
			assert_int_equal(fab_link_add(f, s, 2 + t - 1, s - s % a + t, 2 + s % a, &err), 0);
	}
	for (unsigned G = 0; G < g; G++)
		for (unsigned T = G + 1; T < g; T++)
			for (unsigned k = 0; k < m; k++, next[G]++, next[T]++)
				assert_int_equal(fab_link_add(f, G * a + next[G] / h, a + 1 + next[G] % h,
							      T * a + next[T] / h, a + 1 + next[T] % h,
							      &err), 0);
	free(next);
	if (fab_finalize(f, &err) || fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, lmc, &err))
		fail_msg("%s", err.msg);
	return f;
}

/* The (switch node, port) of the first gc a path from @src to @lid takes. */
static uint64_t first_gc(const struct fabric *f, const struct rt_routing *r, uint32_t src,
			 unsigned lid, unsigned a)
{
	struct an_path p;
	uint64_t gc = 0;

	assert_int_equal(an_trace(f, r, src, lid, 0, &p), 0);
	assert_int_equal(p.fail, AN_DELIVERED);
	for (uint32_t i = 0; i + 1 < p.nhops && !gc; i++)
		if (p.hops[i].out_port > a)
			gc = (uint64_t)p.hops[i].node << 8 | p.hops[i].out_port;
	an_path_free(&p);
	assert_true(gc != 0);
	return gc;
}

static void test_lmc_parallel(void **state)
{
	struct fab_err err = { { 0 } };
	struct an_report rep;
	struct an_dfly m;

	(void)state;
	for (unsigned lmc = 0; lmc <= 1; lmc++) {
		struct fabric *f = parallel_df(4, 1, 3, lmc);
		struct rt_routing *r = dla(f, NULL, ENG_OK, &err);
		uint32_t src = fab_ep_of_node(f, fab_node_by_desc(f, "H3", NULL), 1);
		uint64_t seen[4] = { 0 };
		unsigned nseen = 0;

		assert_non_null(strstr(r->notes, "3 groups of 4 switches, 1 global links per switch"));
		tu_eval(f, r, 1, &rep);
		assert_true(an_connected(&rep));
		assert_true(rep.cdg.deadlock_free);
		an_report_free(&rep);
		metrics(f, r, NULL, &m);
		assert_int_equal(m.off_shape + m.multi_gc, 0);
		/* from H3 (G0-S3, no gc to G1) to the CAs of G1: both G0-G1 gcs carry LIDs */
		for (unsigned d = 4; d < 8; d++) {
			char name[8];
			uint32_t dst;
			unsigned lid;

			snprintf(name, sizeof(name), "H%u", d);
			dst = fab_ep_of_node(f, fab_node_by_desc(f, name, NULL), 1);
			lid = fab_ep_lid(f, dst);
			if (lmc)	/* the two LIDs of one port: the two parallel gcs */
				assert_int_not_equal(first_gc(f, r, src, lid, 4),
						     first_gc(f, r, src, lid + 1, 4));
			for (unsigned o = 0; o <= lmc; o++) {
				uint64_t gc = first_gc(f, r, src, lid + o, 4);
				unsigned k;

				for (k = 0; k < nseen && seen[k] != gc; k++)
					;
				if (k == nseen)
					seen[nseen++] = gc;
			}
		}
		assert_int_equal(nseen, 2);
		rt_free(r);
		fab_free(f);
	}
}

/* an_trace() shows the shift: G0's CA to a CA off G1's landing switch, VLs 0 0 1 0. */
static void test_trace_vls(void **state)
{
	struct fabric *f = tu_dragonfly(4, 2, 2, "absolute");
	struct fab_err err = { { 0 } };
	struct rt_routing *r = dla(f, NULL, ENG_OK, &err);
	uint32_t src = fab_ep_of_node(f, fab_node_by_desc(f, "node-00", NULL), 1);
	uint32_t dst = fab_ep_of_node(f, fab_node_by_desc(f, "node-14", NULL), 1);
	struct an_path p;

	(void)state;
	/* node-00 on g00-sw0 (gc 0 -> g01-sw0); node-14 on g01-sw3 */
	assert_int_equal(an_trace(f, r, src, fab_ep_lid(f, dst), 0, &p), 0);
	assert_int_equal(p.fail, AN_DELIVERED);
	assert_int_equal(p.nhops, 3);
	assert_string_equal(fab_desc(f, p.hops[1].node), "g01-sw0");
	assert_int_equal(p.hops[0].vl, 0);
	assert_int_equal(p.hops[1].vl, 1);
	assert_int_equal(p.hops[2].vl, 0);
	an_path_free(&p);
	rt_free(r);
	fab_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_absolute),
		cmocka_unit_test(test_a_relative),
		cmocka_unit_test(test_b_scale),
		cmocka_unit_test(test_b_oversubscribed),
		cmocka_unit_test(test_cellia),
		cmocka_unit_test(test_c_refused),
		cmocka_unit_test(test_c_naive_detour),
		cmocka_unit_test(test_lmc_parallel),
		cmocka_unit_test(test_trace_vls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
