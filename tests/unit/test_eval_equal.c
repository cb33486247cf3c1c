/* SPDX-License-Identifier: MIT */
/*
 * an_evaluate() (one pass per destination, on threads) gives the report of
 * the pair-by-pair reference evaluator (an_evaluate_reference()): the same
 * counts, examples, cycles and load, on every fixture of tests/data, on a
 * fabric of every generator family routed by the engines, on routings
 * broken on purpose (black holes, loops, dead links, wrong ports, no LID,
 * CAs cabled to CAs), with path SLs, DLID offsets and SL2VL tables, with
 * every option and 1, 2 and 3 threads. an_reevaluate() after LFT
 * changes and links going down or up gives the report of a full
 * evaluation, redoing only the destinations it must, and so does its
 * proof without a search (turns that keep the dependency graph acyclic,
 * turns that close a cycle).
 */
#include <dirent.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "analysis/reference.h"
#include "engines/engine.h"
#include "engines/ftdlr/ftdlr.h"
#include "gen/gen.h"
#include "tests/unit/testutil.h"

static const unsigned threads[] = { 1, 2, 3 };

/* --- comparing ----------------------------------------------------------- */

/* Every option set, every thread count: the report of the reference. */
static void check(const struct fabric *f, const struct rt_routing *r, const char *name)
{
	static const struct an_opts sets[] = {
		{ .load = 1 }, { .load = 1, .all_lids = 1 }, { .load = 1, .ca_only = 1 },
		{ .all_lids = 1, .ca_only = 1 }, { .load = 1, .incremental = 1 },
	};
	struct fab_err err = { { 0 } };

	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct an_report ref, rep;
		char what[256];

		if (an_evaluate_reference(f, r, &sets[i], &ref, &err))
			fail_msg("%s: reference: %s", name, err.msg);
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
			struct an_opts o = sets[i];

			o.threads = threads[t];
			snprintf(what, sizeof(what), "%s (options %zu, %u threads)", name, i, threads[t]);
			if (an_evaluate(f, r, &o, &rep, &err))
				fail_msg("%s: %s", what, err.msg);
			tu_same_report(&rep, &ref, what);
			assert_int_equal(rep.dests, f->neps);
			assert_true((rep.state != NULL) == (o.incremental != 0));
			an_report_free(&rep);
		}
		an_report_free(&ref);
	}
}

/* --- routings to compare on ---------------------------------------------- */

static struct rt_routing *copy_routing(const struct fabric *f, const struct rt_routing *r)
{
	struct rt_routing *c = rt_copy(f, r);

	assert_non_null(c);
	return c;
}

/* Entries overwritten at random: no entry, port 0, any port (loops, dead links, wrong ports). */
static void break_entries(const struct fabric *f, struct rt_routing *r, uint64_t seed,
			  unsigned per_mille)
{
	struct fab_rng g;

	fab_rng_seed(&g, seed);
	for (uint32_t s = 0; s < r->nswitches; s++)
		for (uint32_t l = 0; l < r->lft_len; l++) {
			unsigned np = f->nodes[f->switches[s]].nports;

			if (fab_rng_below(&g, 1000) >= per_mille)
				continue;
			switch (fab_rng_below(&g, 3)) {
			case 0:
				rt_lft(r, s)[l] = RT_NO_PORT;
				break;
			case 1:
				rt_lft(r, s)[l] = 0;
				break;
			default:
				rt_lft(r, s)[l] = (uint8_t)fab_rng_below(&g, np + 2);
			}
		}
}

/* SL2VL tables on every other switch, VLs 0 to 2 for SLs 0 to 3. */
static void add_tables(const struct fabric *f, struct rt_routing *r, struct fab_rng *g)
{
	for (uint32_t s = 0; s < r->nswitches; s += 2) {
		unsigned np = f->nodes[f->switches[s]].nports;

		for (unsigned in = 0; in <= np; in++)
			for (unsigned out = 1; out <= np; out++)
				for (unsigned sl = 0; sl < 4; sl++)
					assert_int_equal(rt_sl2vl_set(r, f, s, in, out, sl,
								      (unsigned)fab_rng_below(g, 3)), 0);
	}
}

/* Path SLs, DLID offsets within each range, SL2VL tables. */
static void add_sls(const struct fabric *f, struct rt_routing *r, uint64_t seed, int offsets,
		    int tables)
{
	struct fab_rng g;

	fab_rng_seed(&g, seed);
	assert_int_equal(rt_pairs_alloc(r), 0);
	for (size_t i = 0; i < (size_t)r->neps * r->neps; i++) {
		r->path_sl[i] = (uint8_t)fab_rng_below(&g, 4);
		if (offsets)
			r->dlid_off[i] = (uint8_t)fab_rng_below(&g, 8);
	}
	if (tables)
		add_tables(f, r, &g);
}

/*
 * Path SLs as ftdlr sets them: SL 1 towards switch LIDs, SL 0 towards the
 * rest, so most destinations have one key for every source.
 */
static void sls_by_kind(const struct fabric *f, struct rt_routing *r)
{
	assert_int_equal(rt_pairs_alloc(r), 0);
	for (uint32_t s = 0; s < r->neps; s++)
		for (uint32_t d = 0; d < r->neps; d++)
			r->path_sl[(size_t)s * r->neps + d] =
				f->nodes[f->eps[d].node].type == FAB_SWITCH;
}

/*
 * The routing as is, broken, broken with SL2VL tables (VLs change along
 * paths: the walks see in ports and loops over several VLs), and (below
 * 300 endpoints: per-pair tables make both evaluators O(pairs)) with SLs
 * and offsets.
 */
static void check_variants(const struct fabric *f, const struct rt_routing *r, const char *name)
{
	struct rt_routing *c;
	struct fab_rng g;
	char what[256];

	check(f, r, name);
	c = copy_routing(f, r);
	break_entries(f, c, 7, 20);
	snprintf(what, sizeof(what), "%s, broken", name);
	check(f, c, what);
	fab_rng_seed(&g, 5);
	add_tables(f, c, &g);
	snprintf(what, sizeof(what), "%s, broken, SL2VL", name);
	check(f, c, what);
	sls_by_kind(f, c);
	snprintf(what, sizeof(what), "%s, broken, SL2VL, SL 1 towards switches", name);
	check(f, c, what);
	if (f->neps >= 300) {
		rt_free(c);
		return;
	}
	add_sls(f, c, 11, 0, 1);
	snprintf(what, sizeof(what), "%s, broken, path SLs and SL2VL", name);
	check(f, c, what);
	rt_free(c);
	c = copy_routing(f, r);
	add_sls(f, c, 13, 1, 0);
	snprintf(what, sizeof(what), "%s, DLID offsets and path SLs", name);
	check(f, c, what);
	free(c->path_sl);
	c->path_sl = NULL;
	snprintf(what, sizeof(what), "%s, DLID offsets", name);
	check(f, c, what);
	rt_free(c);
}

/* --- fixtures --------------------------------------------------------------- */

static char *read_opt(const char *rel, size_t *len)
{
	struct fab_err err = { { 0 } };
	struct stat st;
	char *buf;

	if (stat(tu_data(rel), &st))
		return NULL;
	if (fmt_read_file_max(tu_data(rel), FMT_DUMP_SIZE_MAX, &buf, len, &err))
		fail_msg("%s", err.msg);
	return buf;
}

/* DIR/opensm-subnet.lst with DIR/guid2lid's LIDs, routed by DIR/opensm-lfts.dump. */
static void check_fixture(const char *dir)
{
	struct fab_err err = { { 0 } };
	struct fab_lid_pin *pins = NULL;
	char rel[512], *buf;
	size_t len, n = 0;
	struct fabric *f;
	struct rt_routing *r;

	snprintf(rel, sizeof(rel), "%s/opensm-subnet.lst", dir);
	if (!(buf = read_opt(rel, &len)))
		return;
	f = fmt_subnet_parse(buf, len, rel, &err);
	free(buf);
	assert_non_null(f);
	snprintf(rel, sizeof(rel), "%s/guid2lid", dir);
	buf = read_opt(rel, &len);
	assert_non_null(buf);
	if (fmt_guid2lid_parse(buf, len, rel, &pins, &n, &err) ||
	    fab_lids_assign(f, pins, n, FAB_LIDS_KEEP, 0, &err))
		fail_msg("%s: %s", rel, err.msg);
	free(buf);
	free(pins);
	snprintf(rel, sizeof(rel), "%s/opensm-lfts.dump", dir);
	buf = read_opt(rel, &len);
	assert_non_null(buf);
	r = fmt_lfts_parse(buf, len, rel, f, &err);
	free(buf);
	if (!r)
		fail_msg("%s: %s", rel, err.msg);
	snprintf(rel, sizeof(rel), "%s/opensm-sl2vl.dump", dir);
	if ((buf = read_opt(rel, &len))) {
		if (fmt_sl2vl_parse(buf, len, rel, f, r, &err))
			fail_msg("%s: %s", rel, err.msg);
		free(buf);
	}
	check_variants(f, r, dir);
	rt_free(r);
	fab_free(f);
}

static void test_fixtures(void **state)
{
	static const char *const groups[] = { "eval", "engines", "osm" };
	unsigned seen = 0;

	(void)state;
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		DIR *d = opendir(tu_data(groups[g]));
		struct dirent *e;

		assert_non_null(d);
		while ((e = readdir(d))) {
			char dir[300];

			if (e->d_name[0] == '.')
				continue;
			snprintf(dir, sizeof(dir), "%s/%s", groups[g], e->d_name);
			check_fixture(dir);
			seen++;
		}
		closedir(d);
	}
	assert_true(seen >= 20);
}

/* Topologies of tests/data/ibnd and ibsim, routed by our engines. */
static void test_topology_files(void **state)
{
	static const char *const files[] = {
		"ibnd/fattree.txt", "ibnd/mixed.txt", "ibnd/mixed-lmc2.txt", "ibsim/net",
		"ibsim/net.2sw2path4hca2port",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct fabric *f = tu_load(files[i], FMT_AUTO);
		struct rt_routing *r = tu_route_in_place(f, "sftree,ftree,updn,minhop");

		assert_non_null(r);
		check_variants(f, r, files[i]);
		rt_free(r);
		fab_free(f);
	}
}

/* --- generated fabrics ------------------------------------------------------ */

static const char *const small[] = {
	"kary-ntree k=3 n=3",
	"mport-ntree m=6 n=3 lmc=1",
	"xgft h=2 m=4,3 w=1,3",
	"gft2 n=4 m=3 r=5",
	"ft648",
	"ft648-rack racks=2 hosts=4 uplinks=4",
	"multicore cores=3",
	"dragonfly a=3 p=2 h=1",
	"random switches=9 machines=30 degree=3",
	"ring switches=5 hosts=2",
	"mesh dims=3,3 hosts=1",
	"torus dims=3,3,3 hosts=1",
};

static void test_families(void **state)
{
	static const char *const chains[] = { "sftree,ftree,updn,minhop", "minhop", "opt", "smodk" };
	size_t nfam;

	(void)state;
	gen_families(&nfam);
	assert_int_equal(nfam, sizeof(small) / sizeof(small[0]));
	for (size_t i = 0; i < nfam; i++)
		for (size_t c = 0; c < sizeof(chains) / sizeof(chains[0]); c++) {
			struct fabric *f = tu_gen(small[i], 3);
			struct rt_routing *r = NULL;
			char what[128];

			/* opt and smodk need up to 32 LIDs per CA on ft648: too slow for the reference */
			if (c < 2 || f->neps < 300)
				r = tu_route_in_place(f, chains[c]);
			if (!r) {
				assert_true(c >= 2);	/* opt, smodk: 2-level trees */
				fab_free(f);
				continue;
			}
			snprintf(what, sizeof(what), "%s routed by %s", small[i], chains[c]);
			check_variants(f, r, what);
			rt_free(r);
			fab_free(f);
		}
}

/* A CA cabled to another CA (sources and destinations no switch sees) and a port without a LID. */
static void test_odd_endpoints(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_new();
	struct fab_node_info sw = { .type = FAB_SWITCH, .guid = 0x10, .nports = 4, .desc = "sw" };
	struct fab_node_info a = { .type = FAB_CA, .guid = 0x100, .nports = 2, .desc = "a" };
	struct fab_node_info b = { .type = FAB_CA, .guid = 0x200, .nports = 1, .desc = "b" };
	struct fab_node_info c = { .type = FAB_CA, .guid = 0x300, .nports = 1, .desc = "c" };
	struct fab_node_info rt = { .type = FAB_ROUTER, .guid = 0x400, .nports = 1, .desc = "rt" };
	uint32_t s, na, nb, nc, nr;
	struct rt_routing *r;

	(void)state;
	s = fab_node_add(f, &sw, &err);
	na = fab_node_add(f, &a, &err);
	nb = fab_node_add(f, &b, &err);
	nc = fab_node_add(f, &c, &err);
	nr = fab_node_add(f, &rt, &err);
	assert_int_equal(fab_link_add(f, s, 1, na, 1, &err), 0);
	assert_int_equal(fab_link_add(f, na, 2, nb, 1, &err), 0);
	assert_int_equal(fab_link_add(f, s, 2, nc, 1, &err), 0);
	assert_int_equal(fab_link_add(f, s, 3, nr, 1, &err), 0);
	assert_int_equal(fab_finalize(f, &err), 0);
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err), 0);
	r = tu_route_in_place(f, "minhop");
	assert_non_null(r);
	check_variants(f, r, "CA cabled to a CA");
	/* c loses its LID: every pair towards it fails with no LID */
	fab_port(f, nc, 1)->lid = 0;
	assert_int_equal(fab_finalize(f, &err), 0);
	check(f, r, "a CA without a LID");
	rt_free(r);
	fab_free(f);
}

/* --- re-evaluation ----------------------------------------------------------- */

static void reeval_same(const struct fabric *pf, const struct rt_routing *pr,
			struct an_report *prev, const struct fabric *f, const struct rt_routing *r,
			const struct an_opts *o, const struct an_change *chg, const char *what,
			uint32_t *redone)
{
	struct fab_err err = { { 0 } };
	struct an_report rep, full;

	if (an_reevaluate(pf, pr, prev, f, r, o, chg, &rep, &err))
		fail_msg("%s: %s", what, err.msg);
	assert_null(prev->state);
	assert_non_null(rep.state);
	assert_int_equal(an_evaluate(f, r, o, &full, &err), 0);
	tu_same_report(&rep, &full, what);
	*redone = rep.dests;
	an_report_free(prev);
	*prev = rep;
	an_report_free(&full);
}

static struct fabric *copy_fabric(const struct fabric *f)
{
	struct fab_err err = { { 0 } };
	uint8_t *none = calloc((size_t)f->nnodes + 1, 1);
	struct fabric *c = fab_subset(f, none, &err);

	free(none);
	assert_non_null(c);
	return c;
}

/* The first switch-to-switch link found from switch @from on. */
static void first_sw_link(const struct fabric *f, uint32_t from, uint32_t *node, unsigned *port)
{
	for (uint32_t s = from; s < f->nswitches; s++) {
		uint32_t n = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t peer = fab_port(f, n, p)->peer;

			if (peer != FAB_NONE && f->nodes[peer].type == FAB_SWITCH) {
				*node = n;
				*port = p;
				return;
			}
		}
	}
	fail_msg("no switch-to-switch link");
}

/*
 * LFT entries changed, a link down with the old tables, the link back, the
 * first routing back. With @partial (a fabric where one link carries the
 * paths of fewer than half the destinations), the link's changes redo only
 * part of them; else more than half may change and a full evaluation is
 * made instead.
 */
static void reeval_case(struct fabric *f, const char *chain, const struct an_opts *o,
			const char *name, int partial)
{
	struct fab_err err = { { 0 } };
	struct rt_routing *r = tu_route_in_place(f, chain), *r2, *r3;
	struct fabric *g;
	struct an_report prev;
	uint32_t node = 0, redone, sw, lid;
	unsigned port = 0;
	char what[200];
	struct an_change chg = { .switches = &sw, .nswitches = 1 };

	assert_non_null(r);
	assert_int_equal(an_evaluate(f, r, o, &prev, &err), 0);
	/* two LIDs rewritten on one switch: only their destinations are redone */
	r2 = copy_routing(f, r);
	sw = f->nswitches / 2;
	lid = fab_ep_lid(f, f->neps - 1);
	rt_lft(r2, sw)[lid] = RT_NO_PORT;
	rt_lft(r2, sw)[fab_ep_lid(f, 0)] = 1;
	snprintf(what, sizeof(what), "%s: two entries of one switch", name);
	reeval_same(f, r, &prev, f, r2, o, &chg, what, &redone);
	assert_true(redone >= 1 && redone <= 2);
	/* the same found by comparing every table (no change list) */
	r3 = copy_routing(f, r2);
	break_entries(f, r3, 5, 3);
	snprintf(what, sizeof(what), "%s: entries broken at random", name);
	reeval_same(f, r2, &prev, f, r3, o, NULL, what, &redone);
	assert_true(redone < f->neps);
	/* a link goes down, the tables stay */
	g = copy_fabric(f);
	first_sw_link(g, sw, &node, &port);
	fab_link_remove(g, node, port);
	assert_int_equal(fab_finalize(g, &err), 0);
	snprintf(what, sizeof(what), "%s: link down", name);
	reeval_same(f, r3, &prev, g, r3, o, NULL, what, &redone);
	assert_true(redone < f->neps || !partial);
	/* and comes back */
	snprintf(what, sizeof(what), "%s: link up", name);
	reeval_same(g, r3, &prev, f, r3, o, NULL, what, &redone);
	assert_true(redone < f->neps || !partial);
	/* rerouted from scratch: every destination whose column changed */
	snprintf(what, sizeof(what), "%s: back to the first routing", name);
	reeval_same(f, r3, &prev, f, r, o, NULL, what, &redone);
	an_report_free(&prev);
	rt_free(r);
	rt_free(r2);
	rt_free(r3);
	fab_free(g);
}

static void test_reevaluate(void **state)
{
	static const struct an_opts sets[] = {
		{ .load = 1, .incremental = 1 }, { .load = 1, .incremental = 1, .threads = 3 },
		{ .load = 1, .incremental = 1, .rows_max = 1 },
		{ .all_lids = 1, .ca_only = 1, .incremental = 1 }, { .incremental = 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct fabric *f = tu_gen(small[4], 3);	/* ft648 */
		struct fabric *t = tu_gen(small[11], 3);	/* torus */
		struct fabric *m = tu_gen(small[1], 3);	/* mport-ntree, LMC 1 */

		reeval_case(f, "sftree", &sets[i], "ft648", 1);
		reeval_case(t, "minhop", &sets[i], "torus", 0);
		reeval_case(m, "ftree", &sets[i], "mport-ntree", 0);
		fab_free(f);
		fab_free(t);
		fab_free(m);
	}
}

/* With SL2VL tables (walks per in port, VLs counted) the re-evaluation still matches. */
static void test_reevaluate_sl2vl(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen(small[9], 3);	/* ring */
	struct rt_routing *r = tu_route_in_place(f, "minhop"), *r2;
	struct an_opts o = { .load = 1, .incremental = 1 };
	struct an_report prev;
	uint32_t redone;

	(void)state;
	for (uint32_t s = 0; s < f->nswitches; s++)
		assert_int_equal(rt_sl2vl_set(r, f, s, 2, 1, 0, s % 2), 0);
	assert_int_equal(an_evaluate(f, r, &o, &prev, &err), 0);
	r2 = copy_routing(f, r);
	break_entries(f, r2, 3, 40);
	reeval_same(f, r, &prev, f, r2, &o, NULL, "ring with SL2VL", &redone);
	assert_true(redone <= f->neps);
	an_report_free(&prev);
	rt_free(r);
	rt_free(r2);
	fab_free(f);
}

/* What cannot be updated is evaluated in full: per-pair tables, other options, CAs gone. */
static void test_reevaluate_falls_back(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen(small[0], 3), *g;
	struct rt_routing *r = tu_route_in_place(f, "sftree"), *q, *pairs;
	struct an_opts o = { .load = 1, .incremental = 1 }, other = o;
	struct an_report prev;
	struct gen_faults gf = { .random_switches = 1, .seed = 2 };
	uint32_t redone;

	(void)state;
	assert_int_equal(an_evaluate(f, r, &o, &prev, &err), 0);
	pairs = copy_routing(f, r);
	assert_int_equal(rt_pairs_alloc(pairs), 0);
	reeval_same(f, r, &prev, f, pairs, &o, NULL, "per-pair tables", &redone);
	assert_int_equal(redone, f->neps);
	other.ca_only = 1;
	reeval_same(f, pairs, &prev, f, r, &other, NULL, "other options", &redone);
	assert_int_equal(redone, f->neps);
	g = copy_fabric(f);
	assert_int_equal(gen_faults_apply(&g, &gf, &err), 0);
	q = tu_route_in_place(g, "sftree");
	assert_non_null(q);
	reeval_same(f, r, &prev, g, q, &other, NULL, "a switch gone", &redone);
	assert_int_equal(redone, g->neps);
	/* a report made without the option has no state: a full evaluation */
	an_report_free(&prev);
	assert_int_equal(an_evaluate(g, q, &(struct an_opts){ .load = 1 }, &prev, &err), 0);
	assert_null(prev.state);
	reeval_same(g, q, &prev, g, q, &o, NULL, "no state", &redone);
	assert_int_equal(redone, g->neps);
	an_report_free(&prev);
	rt_free(r);
	rt_free(q);
	rt_free(pairs);
	fab_free(f);
	fab_free(g);
}

/* The port of node @a that leads to node @b. */
static unsigned port_to(const struct fabric *f, uint32_t a, uint32_t b)
{
	for (unsigned p = 1; p <= f->nodes[a].nports; p++)
		if (fab_port(f, a, p)->peer == b)
			return p;
	fail_msg("no link from \"%s\" to \"%s\"", fab_desc(f, a), fab_desc(f, b));
	return 0;
}

/* Switch @s (swidx) sends LID @lid on to switch @to. */
static void send_to(const struct fabric *f, struct rt_routing *r, uint32_t s, unsigned lid,
		    uint32_t to)
{
	rt_lft(r, s)[lid] = (uint8_t)port_to(f, f->switches[s], f->switches[to]);
}

/* The LID of the @k-th CA on switch @s (swidx); 0 when it has fewer. */
static unsigned ca_lid(const struct fabric *f, uint32_t s, unsigned k)
{
	for (uint32_t e = 0; e < f->neps; e++)
		if (tu_is_ca(f, e) && tu_ep_sw(f, e) == s && !k--)
			return fab_ep_lid(f, e);
	return 0;
}

/*
 * A down-up turn put into an up*down* routing (ft648, sftree): leaves A, B,
 * C, spines X, Y, A -> X -> B -> Y -> C. The spine-to-spine paths sftree
 * relays through the leaves close a cycle with it, which the
 * re-evaluation must find as a full search does; undone, the graph is
 * acyclic again.
 */
static void test_reevaluate_turn(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen(small[4], 3);	/* ft648 */
	struct rt_routing *r = tu_route_in_place(f, "sftree"), *turn;
	struct an_opts o = { .load = 1, .incremental = 1 };
	uint32_t leaf[3], spine[2], nl = 0, ns = 0, redone;
	unsigned d;
	struct an_report prev;

	(void)state;
	for (uint32_t s = 0; s < f->nswitches; s++)
		if (ca_lid(f, s, 0) && nl < 3)
			leaf[nl++] = s;
		else if (!ca_lid(f, s, 0) && ns < 2)
			spine[ns++] = s;
	assert_true(nl == 3 && ns == 2);
	d = ca_lid(f, leaf[2], 0);
	assert_true(d != 0);
	assert_int_equal(an_evaluate(f, r, &o, &prev, &err), 0);
	assert_true(prev.cdg.deadlock_free);
	turn = copy_routing(f, r);
	send_to(f, turn, leaf[0], d, spine[0]);
	send_to(f, turn, spine[0], d, leaf[1]);
	send_to(f, turn, leaf[1], d, spine[1]);
	send_to(f, turn, spine[1], d, leaf[2]);
	reeval_same(f, r, &prev, f, turn, &o, NULL, "ft648, a down-up turn", &redone);
	assert_true(an_connected(&prev));
	assert_false(prev.cdg.deadlock_free);
	reeval_same(f, turn, &prev, f, r, &o, NULL, "ft648, the turn undone", &redone);
	assert_true(prev.cdg.deadlock_free);
	an_report_free(&prev);
	rt_free(r);
	rt_free(turn);
	fab_free(f);
}

/*
 * ftdlr's repairs of single link faults of a 3-level tree (sftree base)
 * add dependencies that go down in the order the re-evaluation keeps
 * (about half of them, on this tree), which it moves without a search:
 * the same report as a full evaluation, acyclic, there and back; every
 * destination worked out near the change: from the rows kept beside the
 * sums (reeval_kept.c), or without them (@rows_max 1) its old share from
 * its new one (reeval_near.c).
 */
static void repairs_case(size_t rows_max)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen("mport-ntree m=8 n=3", 3);
	struct rt_routing *r = tu_route_in_place(f, "sftree");
	struct an_opts o = { .load = 1, .incremental = 1, .rows_max = rows_max };
	struct an_report prev;
	/* destinations redone, near the change alone, from the rows kept */
	uint32_t redone, node, near[3] = { 0, 0, 0 };
	unsigned port, done = 0;
	char what[96];

	assert_int_equal(an_evaluate(f, r, &o, &prev, &err), 0);
	for (uint32_t s = 0; s < f->nswitches; s += 7) {
		struct fabric *g = copy_fabric(f);
		struct rt_routing *rep;
		struct ftdlr_stats st;

		first_sw_link(g, s, &node, &port);
		fab_link_remove(g, node, port);
		assert_int_equal(fab_finalize(g, &err), 0);
		assert_int_equal(ftdlr_repair(f, r, g, FTDLR_MINIMAL, 1, &rep, &st, &err), ENG_OK);
		snprintf(what, sizeof(what), "\"%s\" port %u down, repaired", fab_desc(g, node), port);
		reeval_same(f, r, &prev, g, rep, &o, NULL, what, &redone);
		assert_true(an_connected(&prev) && prev.cdg.deadlock_free);
		near[0] += redone;
		near[1] += prev.dests_near;
		near[2] += prev.dests_kept;
		snprintf(what, sizeof(what), "\"%s\" port %u back", fab_desc(g, node), port);
		reeval_same(g, rep, &prev, f, r, &o, NULL, what, &redone);
		assert_true(prev.cdg.deadlock_free);
		near[0] += redone;
		near[1] += prev.dests_near;
		near[2] += prev.dests_kept;
		done++;
		rt_free(rep);
		fab_free(g);
	}
	assert_true(done >= 10);
	assert_int_equal(near[1], near[0]);	/* every way still delivered: worked out near the change */
	assert_int_equal(near[2], rows_max == 1 ? 0 : near[0]);
	an_report_free(&prev);
	rt_free(r);
	fab_free(f);
}

static void test_reevaluate_repairs(void **state)
{
	(void)state;
	repairs_case(0);
	repairs_case(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_topology_files),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_odd_endpoints),
		cmocka_unit_test(test_reevaluate),
		cmocka_unit_test(test_reevaluate_sl2vl),
		cmocka_unit_test(test_reevaluate_falls_back),
		cmocka_unit_test(test_reevaluate_turn),
		cmocka_unit_test(test_reevaluate_repairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
