/* SPDX-License-Identifier: MIT */
/*
 * The evaluator against ibdmchk on OpenSM's own routings. Every fixture
 * under tests/data/eval/ is a real OpenSM run under ibsim, checked by
 * ibdmchk (see tests/data/eval/README.md). For each one the fabric comes
 * from opensm-subnet.lst (and must hash like ibnetdiscover's view of the
 * same simulator), the routing from opensm-lfts.dump (and must equal
 * opensm.fdbs), and an_evaluate() must reach ibdmchk's verdicts: CA-to-CA
 * paths only (what ibdmchk checks by default) and all paths (ibdmchk -a),
 * with the path SLs and SL2VL tables when the case has them.
 *
 * Then the readers of formats/fmt_sl.c: opensm-sl2vl.dump and the path-SL
 * file of `ibdmchk -c`, on real files and on broken ones.
 */
#include "tests/unit/testutil.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "fabric/routing.h"

/*
 * What the switch-inclusive evaluation (ca_only = 0) finds, recorded:
 * @free: deadlock-free with all paths; @sw_holes: SW-to-SW pairs without a
 * route; @sl_free: deadlock-free with all paths once the path SLs are read
 * (cases with a path-sl file, else -1).
 */
struct eval_case {
	const char *name;
	int free;
	unsigned sw_holes;
	int sl_free;
};

static const struct eval_case cases[] = {
	{ "dragonfly-ftree", 0, 0, -1 },
	{ "dragonfly-minhop", 0, 0, -1 },
	{ "dragonfly-nue", 0, 0, -1 },
	{ "dragonfly-updn", 1, 0, -1 },
	{ "fattree-ftree", 1, 36, -1 },
	{ "fattree-minhop", 0, 0, -1 },
	{ "fattree-nue", 0, 0, -1 },
	{ "fattree-updn", 1, 36, -1 },
	{ "ring-dfsssp", 0, 0, 0 },
	{ "ring-ftree", 0, 0, -1 },
	{ "ring-minhop", 0, 0, -1 },
	{ "ring-minhop-qos", 0, 0, -1 },
	{ "ring-nue", 0, 0, -1 },
	{ "ring-updn", 1, 0, -1 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* --- helpers ------------------------------------------------------------------ */

static char *load_opt(const char *dir, const char *file, size_t *len)
{
	struct fab_err err = { { 0 } };
	char rel[256], *buf = NULL;
	struct stat st;

	snprintf(rel, sizeof(rel), "eval/%s/%s", dir, file);
	if (stat(tu_data(rel), &st))
		return NULL;
	if (fmt_read_file(tu_data(rel), &buf, len, &err))
		fail_msg("%s", err.msg);
	return buf;
}

static char *load(const char *dir, const char *file, size_t *len)
{
	char *buf = load_opt(dir, file, len);

	if (!buf)
		fail_msg("eval/%s/%s is missing", dir, file);
	return buf;
}

/* The fabric of a case, with the LIDs and LMCs of its guid2lid. */
static struct fabric *case_fabric(const char *dir)
{
	struct fab_err err = { { 0 } };
	struct fab_lid_pin *pins = NULL;
	size_t len, n = 0;
	char *buf = load(dir, "opensm-subnet.lst", &len);
	struct fabric *f = fmt_subnet_parse(buf, len, "opensm-subnet.lst", &err);

	if (!f)
		fail_msg("%s: %s", dir, err.msg);
	free(buf);
	buf = load(dir, "guid2lid", &len);
	if (fmt_guid2lid_parse(buf, len, "guid2lid", &pins, &n, &err) ||
	    fab_lids_assign(f, pins, n, FAB_LIDS_KEEP, 0, &err))
		fail_msg("%s: %s", dir, err.msg);
	for (size_t i = 0; i < n; i++) {
		uint32_t ep = fab_ep_by_port_guid(f, pins[i].guid);

		assert_int_not_equal(ep, FAB_NONE);
		assert_int_equal(fab_ep_lid(f, ep), pins[i].lid);
	}
	free(pins);
	free(buf);
	return f;
}

static struct rt_routing *case_routing(const char *dir, const char *file,
				       const struct fabric *f)
{
	struct fab_err err = { { 0 } };
	size_t len;
	char *buf = load(dir, file, &len);
	struct rt_routing *r = !strcmp(file, "opensm.fdbs") ? fmt_fdbs_parse(buf, len, file, f, &err)
							     : fmt_lfts_parse(buf, len, file, f, &err);

	if (!r)
		fail_msg("%s/%s: %s", dir, file, err.msg);
	free(buf);
	return r;
}

/* Read the case's @file with @parse into @r when the case has it; 1 when read. */
static int case_sl_file(const char *dir, const char *file, const struct fabric *f,
			struct rt_routing *r,
			int (*parse)(const char *, size_t, const char *, const struct fabric *,
				     struct rt_routing *, struct fab_err *))
{
	struct fab_err err = { { 0 } };
	size_t len;
	char *buf = load_opt(dir, file, &len);

	if (!buf)
		return 0;
	if (parse(buf, len, file, f, r, &err))
		fail_msg("%s/%s: %s", dir, file, err.msg);
	free(buf);
	return 1;
}

/*
 * ibdmchk's verdicts in @out: *@loops 1 (credit loop), 0 (none found), -1
 * (no loop check ran); *@missing the paths it could not trace; *@scanned
 * the paths it traced when all were good.
 */
static void ibdmchk_verdict(const char *dir, const char *out, int *loops, long *missing,
			    long *scanned)
{
	size_t len;
	char *text = load(dir, out, &len);
	const char *p;

	*loops = strstr(text, "Found credit loop") ? 1 :
		 strstr(text, "no credit loops found") ? 0 : -1;
	*missing = 0;
	*scanned = -1;
	if ((p = strstr(text, "-E- Found ")))
		*missing = strtol(p + 10, NULL, 10);
	if ((p = strstr(text, "-I- Scanned:")))
		*scanned = strtol(p + 12, NULL, 10);
	if (strstr(text, "Verifying all paths") && (p = strstr(strstr(text, "Verifying all paths"),
							       "-I- Scanned:")))
		*scanned = strtol(p + 12, NULL, 10);
	free(text);
	if (*loops < 0 && !*missing)
		fail_msg("%s/%s holds no ibdmchk verdict", dir, out);
}

static uint64_t total(const uint64_t v[AN_NCLASSES])
{
	return v[AN_CA_CA] + v[AN_CA_SW] + v[AN_SW_CA] + v[AN_SW_SW];
}

static void evaluate(const struct fabric *f, const struct rt_routing *r, int ca_only,
		     struct an_report *rep)
{
	struct an_opts o = { .ca_only = ca_only };

	tu_eval_opts(f, r, &o, rep);
}

/* Our CA-to-CA verdict against ibdmchk's default check in @out. */
static void check_ca_only(const char *dir, const struct fabric *f, const struct rt_routing *r,
			  const char *out)
{
	struct an_report rep;
	int loops;
	long missing, scanned;

	ibdmchk_verdict(dir, out, &loops, &missing, &scanned);
	evaluate(f, r, 1, &rep);
	assert_int_equal(missing, 0);
	assert_int_equal(rep.conn.unreachable[AN_CA_CA], 0);	/* OpenSM connects all CAs */
	assert_int_equal(rep.conn.pairs[AN_CA_CA], scanned);
	if (rep.cdg.deadlock_free != (loops == 0))
		fail_msg("%s: we find %s, ibdmchk (%s) finds %s", dir,
			 rep.cdg.deadlock_free ? "no credit loop" : "a credit loop", out,
			 loops ? "one" : "none");
	an_report_free(&rep);
}

/*
 * Our all-paths verdict: as recorded in @c (@want_free), and as ibdmchk -a
 * finds in @out: the same missing paths, or the same loop verdict when all
 * paths could be traced (ibdmchk checks no loops otherwise).
 */
static void check_all(const struct eval_case *c, const struct fabric *f,
		      const struct rt_routing *r, const char *out, int want_free)
{
	struct an_report rep;
	int loops;
	long missing, scanned;

	ibdmchk_verdict(c->name, out, &loops, &missing, &scanned);
	evaluate(f, r, 0, &rep);
	assert_int_equal(total(rep.conn.unreachable), missing);
	assert_int_equal(rep.conn.unreachable[AN_SW_SW], c->sw_holes);
	assert_int_equal(rep.conn.unreachable[AN_CA_CA], 0);
	if (!missing)
		assert_int_equal(total(rep.conn.pairs), scanned);
	if (loops >= 0 && rep.cdg.deadlock_free != (loops == 0))
		fail_msg("%s: with all paths we find %s, ibdmchk -a (%s) finds %s", c->name,
			 rep.cdg.deadlock_free ? "no credit loop" : "a credit loop", out,
			 loops ? "one" : "none");
	if (rep.cdg.deadlock_free != want_free)
		fail_msg("%s: with all paths we find %s, recorded: %s", c->name,
			 rep.cdg.deadlock_free ? "no credit loop" : "a credit loop",
			 want_free ? "none" : "one");
	an_report_free(&rep);
}

/* The engine OpenSM's log says routed the case ("used ENGINE" in the engine file). */
static void print_engine(const char *dir)
{
	size_t len;
	char *text = load(dir, "engine", &len), *used = strstr(text, "used ");

	assert_non_null(used);
	print_message("# %s: %.*s\n", dir, (int)strcspn(used, "\n"), used);
	free(text);
}

/* --- one fixture ------------------------------------------------------------- */

static void test_case(void **state)
{
	const struct eval_case *c = *state;
	struct fab_err err = { { 0 } };
	struct fabric *f = case_fabric(c->name), *g;
	struct rt_routing *r = case_routing(c->name, "opensm-lfts.dump", f);
	struct rt_routing *fdbs = case_routing(c->name, "opensm.fdbs", f);
	size_t len;
	char *ibnd = load(c->name, "ibnetdiscover.out", &len);

	print_engine(c->name);
	g = fmt_topo_parse(ibnd, len, "ibnetdiscover.out", FMT_IBND, &err);
	if (!g)
		fail_msg("%s: %s", c->name, err.msg);
	assert_int_equal(fab_topology_hash(f), fab_topology_hash(g));
	assert_true(rt_equal_lfts(r, fdbs));
	case_sl_file(c->name, "opensm-sl2vl.dump", f, r, fmt_sl2vl_parse);
	check_ca_only(c->name, f, r, "ibdmchk.out");
	check_all(c, f, r, "ibdmchk-all.out", c->free);
	if (case_sl_file(c->name, "path-sl", f, r, fmt_pathsl_parse)) {
		assert_int_not_equal(c->sl_free, -1);
		check_ca_only(c->name, f, r, "ibdmchk-sl.out");
		check_all(c, f, r, "ibdmchk-sl-all.out", c->sl_free);
	} else {
		assert_int_equal(c->sl_free, -1);
	}
	free(ibnd);
	rt_free(fdbs);
	rt_free(r);
	fab_free(g);
	fab_free(f);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every directory under tests/data/eval is a case of the table, and the other way round. */
static void test_all_fixtures_listed(void **state)
{
	DIR *d = opendir(tu_data("eval"));
	const char *names[64];
	size_t n = 0;
	struct dirent *e;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		char rel[300];
		struct stat st;

		snprintf(rel, sizeof(rel), "eval/%s", e->d_name);
		if (e->d_name[0] == '.' || stat(tu_data(rel), &st) || !S_ISDIR(st.st_mode))
			continue;
		assert_true(n < 64);
		names[n] = strdup(e->d_name);
		assert_non_null(names[n++]);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_name);
	assert_int_equal(n, NCASES);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(names[i], cases[i].name);
		free((void *)names[i]);
	}
}

/* --- opensm-sl2vl.dump ------------------------------------------------------- */

static void test_sl2vl_real(void **state)
{
	struct fabric *f = case_fabric("ring-minhop-qos");
	struct rt_routing *r = rt_new(f);

	(void)state;
	assert_int_equal(case_sl_file("ring-minhop-qos", "opensm-sl2vl.dump", f, r,
				      fmt_sl2vl_parse), 1);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		const struct fab_node *n = &f->nodes[f->switches[s]];

		assert_non_null(r->sl2vl[s]);
		/* OpenSM's default QoS tables: VL = SL mod 8, on every (in, out) */
		for (unsigned in = 0; in <= n->nports; in++)
			for (unsigned out = 1; out <= n->nports; out++)
				for (unsigned sl = 0; sl < RT_SLS; sl++)
					assert_int_equal(rt_sl2vl_get(r, f, s, in, out, sl), sl % 8);
	}
	rt_free(r);
	fab_free(f);
}

/* Parse @text (SL2VL dump or path SLs) for the ring fabric; expect an error starting with @where, holding @needle. */
static void sl_fails(int pathsl, const char *text, const char *where, const char *needle)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = case_fabric("ring-dfsssp");
	struct rt_routing *r = rt_new(f);
	int rc = pathsl ? fmt_pathsl_parse(text, strlen(text), "bad.psl", f, r, &err)
			: fmt_sl2vl_parse(text, strlen(text), "bad.dump", f, r, &err);

	if (!rc)
		fail_msg("expected an error containing \"%s\", the parse succeeded", needle);
	if (strncmp(err.msg, where, strlen(where)))
		fail_msg("error \"%s\" does not start with \"%s\"", err.msg, where);
	if (!strstr(err.msg, needle))
		fail_msg("error \"%s\" does not contain \"%s\"", err.msg, needle);
	/* nothing half done */
	assert_null(r->path_sl);
	for (uint32_t s = 0; s < r->nswitches; s++)
		assert_null(r->sl2vl[s]);
	rt_free(r);
	fab_free(f);
}

#define SW0 "Switch 0x0002fab100000001, base LID 1, \"sw-0\"\n"
#define ROW " : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7\n"

static void test_sl2vl_bad(void **state)
{
	(void)state;
	sl_fails(0, "0   1" ROW, "bad.dump:1: ", "expected a record header");
	sl_fails(0, SW0 "0   1" ROW "\n1   1" ROW, "bad.dump:4: ", "expected a record header");
	sl_fails(0, "Swich 0x1, base LID 1, \"x\"\n", "bad.dump:1: ", "expected a record header");
	sl_fails(0, "Switch 0x0002fab100000001 base LID 1\n", "bad.dump:1: ",
		 "expected \"Switch 0xGUID, base LID N");
	sl_fails(0, "Switch 0x0002fab100000001, base LID 1, \"sw-0\n", "bad.dump:1: ",
		 "in double quotes");
	sl_fails(0, "Switch 0x00000000deadbeef, base LID 1, \"x\"\n", "bad.dump:1: ",
		 "expected the GUID of a linked port of the fabric, found 0x00000000deadbeef");
	sl_fails(0, "Channel Adapter 0x0002fab100000001, base LID 1, \"sw-0\"\n", "bad.dump:1: ",
		 "expected the type the fabric gives");
	sl_fails(0, "Switch 0x0002fab100000001, base LID 2, \"sw-0\"\n", "bad.dump:1: ",
		 "expected base LID 1");
	sl_fails(0, SW0 "#in out\n0   1   : 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6\n", "bad.dump:3: ",
		 "expected 16 VLs after ':', found 15");
	sl_fails(0, SW0 "0   1   : 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 16\n", "bad.dump:2: ",
		 "expected the VL of SL 15 (0 to 15), found \"16\"");
	sl_fails(0, SW0 "0   1   : 0 1 2 3 x 5 6 7 0 1 2 3 4 5 6 7\n", "bad.dump:2: ",
		 "expected the VL of SL 4 (0 to 15), found \"x 5 6 7 \"");
	sl_fails(0, SW0 "0   1   : 0 1 2 3 4x 5 6 7 0 1 2 3 4 5 6 7\n", "bad.dump:2: ",
		 "expected the VL of SL 4");
	sl_fails(0, SW0 "0   1   : 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 8\n", "bad.dump:2: ",
		 "expected the end of the row");
	sl_fails(0, SW0 "0   1   0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7\n", "bad.dump:2: ",
		 "expected a row \"IN OUT : VL0 ... VL15\"");
	sl_fails(0, SW0 "0   5" ROW, "bad.dump:2: ", "expected in and out ports of at most 4");
	sl_fails(0, SW0 "0   1" ROW "1   1" ROW "0   1" ROW, "bad.dump:4: ",
		 "expected each (in, out) row once per switch, found 0 1 again");
	sl_fails(0, SW0 "0   1" ROW "\n" SW0, "bad.dump:4: ",
		 "expected each switch once, found 0x0002fab100000001 again (first at line 1)");
	sl_fails(0, "Channel Adapter 0x0002fab200000011, base LID 6, \"node-00\"\n1   1" ROW,
		 "bad.dump:2: ", "expected a single row \"0 0 : ...\"");
	sl_fails(0, "Channel Adapter 0x0002fab200000011, base LID 6, \"node-00\"\n0   0" ROW
		 "0   0" ROW, "bad.dump:3: ", "(row 2)");
	sl_fails(0, SW0 "0   1" ROW "\n" "Switch 0x0002fab100000002, base LID 2, \"sw-1\"\n"
		 "0   9" ROW, "bad.dump:5: ", "expected in and out ports");
}

/* --- path SLs --------------------------------------------------------------- */

static char *pathsl_text(const struct fabric *f, const struct rt_routing *r)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *mf = open_memstream(&buf, &n);

	assert_non_null(mf);
	assert_int_equal(fmt_pathsl_write(mf, f, r), 0);
	fclose(mf);
	return buf;
}

/* The lines of @text that are not comments, sorted; the caller frees v[0] and v. */
static char **data_lines(const char *text, size_t *n)
{
	char *copy = strdup(text), *save = NULL, *p;
	char **v = calloc(strlen(text) + 2, sizeof(*v));

	assert_non_null(copy);
	assert_non_null(v);
	*n = 0;
	v[0] = copy;
	for (p = strtok_r(copy, "\n", &save); p; p = strtok_r(NULL, "\n", &save))
		if (*p != '#')
			v[1 + (*n)++] = p;
	qsort(v + 1, *n, sizeof(*v), cmp_name);
	return v;
}

/* The real file (from the SA's answers) read, written back: the same lines. */
static void test_pathsl_real(void **state)
{
	struct fabric *f = case_fabric("ring-dfsssp");
	struct rt_routing *r = rt_new(f), *back = rt_new(f);
	struct fab_err err = { { 0 } };
	size_t len, na, nb;
	char *orig = load("ring-dfsssp", "path-sl", &len), *text;
	char **a, **b;
	unsigned sls = 0;

	(void)state;
	assert_int_equal(fmt_pathsl_parse(orig, len, "path-sl", f, r, &err), 0);
	for (size_t i = 0; i < (size_t)f->neps * f->neps; i++)
		sls |= 1u << r->path_sl[i];
	assert_true(sls > 1);	/* dfsssp spreads the paths over several SLs */
	text = pathsl_text(f, r);
	a = data_lines(orig, &na);
	b = data_lines(text, &nb);
	assert_int_equal(na, nb);
	assert_int_equal(na, (size_t)f->neps * (f->neps - 1));
	for (size_t i = 1; i <= na; i++)
		assert_string_equal(a[i], b[i]);
	assert_int_equal(fmt_pathsl_parse(text, strlen(text), "back", f, back, &err), 0);
	assert_memory_equal(r->path_sl, back->path_sl, (size_t)f->neps * f->neps);
	free(a[0]);
	free(a);
	free(b[0]);
	free(b);
	free(text);
	free(orig);
	rt_free(back);
	rt_free(r);
	fab_free(f);
}

/* The OpenSM fixture with a two-port CA (tests/data/osm/mixed-lmc1), LMC 1. */
static struct fabric *mixed_lmc1(void)
{
	struct fab_err err = { { 0 } };
	struct fab_lid_pin *pins = NULL;
	char *buf = NULL;
	size_t len, n = 0;
	struct fabric *f;

	if (fmt_read_file(tu_data("osm/mixed-lmc1/opensm-subnet.lst"), &buf, &len, &err))
		fail_msg("%s", err.msg);
	f = fmt_subnet_parse(buf, len, "opensm-subnet.lst", &err);
	free(buf);
	if (!f || fmt_read_file(tu_data("osm/mixed-lmc1/guid2lid"), &buf, &len, &err) ||
	    fmt_guid2lid_parse(buf, len, "guid2lid", &pins, &n, &err) ||
	    fab_lids_assign(f, pins, n, FAB_LIDS_KEEP, 0, &err))
		fail_msg("%s", err.msg);
	free(buf);
	free(pins);
	return f;
}

/* Random SLs, one per (node, destination) as the format wants: written, read back. */
static void test_pathsl_roundtrip_lmc(void **state)
{
	struct fabric *f = mixed_lmc1();
	struct rt_routing *r = rt_new(f), *back = rt_new(f);
	struct fab_err err = { { 0 } };
	struct fab_rng rng;
	char *text;
	size_t nlines = 0, want = 0;

	(void)state;
	fab_rng_seed(&rng, 7);
	assert_int_equal(rt_pairs_alloc(r), 0);
	for (uint32_t d = 0; d < f->neps; d++)
		for (uint32_t n = 0; n < f->nnodes; n++) {
			uint8_t sl = (uint8_t)fab_rng_below(&rng, 16);

			for (uint32_t s = 0; s < f->neps; s++)
				if (f->eps[s].node == n)
					r->path_sl[(size_t)s * f->neps + d] = sl;
		}
	for (uint32_t d = 0; d < f->neps; d++)	/* a self pair means nothing */
		r->path_sl[(size_t)d * f->neps + d] = 0;
	text = pathsl_text(f, r);
	for (const char *p = text; (p = strchr(p, '\n')); p++)
		nlines++;
	for (uint32_t n = 0; n < f->nnodes; n++)
		for (uint32_t d = 0; d < f->neps; d++) {
			int other = 0;

			for (uint32_t s = 0; s < f->neps; s++)
				other |= f->eps[s].node == n && s != d;
			want += other ? 1u << fab_ep_lmc(f, d) : 0;
		}
	assert_int_equal(nlines, want + 1);	/* and the comment */
	assert_non_null(strstr(text, "\n0x"));
	assert_int_equal(fmt_pathsl_parse(text, strlen(text), "lmc", f, back, &err), 0);
	assert_memory_equal(r->path_sl, back->path_sl, (size_t)f->neps * f->neps);
	free(text);
	rt_free(back);
	rt_free(r);
	fab_free(f);
}

/* Two ports of one CA with different SLs to one destination: not expressible. */
static void test_pathsl_write_conflict(void **state)
{
	struct fabric *f = mixed_lmc1();
	struct rt_routing *r = rt_new(f);
	char *buf = NULL;
	size_t n = 0;
	FILE *mf;
	uint32_t a = FAB_NONE, b = FAB_NONE;

	(void)state;
	for (uint32_t e = 0; e + 1 < f->neps && a == FAB_NONE; e++)
		if (f->eps[e].node == f->eps[e + 1].node) {
			a = e;
			b = e + 1;
		}
	assert_int_not_equal(a, FAB_NONE);
	assert_int_equal(rt_pairs_alloc(r), 0);
	r->path_sl[(size_t)a * f->neps + 0] = 1;
	r->path_sl[(size_t)b * f->neps + 0] = 2;
	mf = open_memstream(&buf, &n);
	assert_non_null(mf);
	errno = 0;
	assert_int_equal(fmt_pathsl_write(mf, f, r), -1);
	assert_int_equal(errno, EINVAL);
	fclose(mf);
	assert_int_equal(n, 0);
	free(buf);
	rt_free(r);
	fab_free(f);
}

/* A line for another LID of the destination's LMC range leaves the pair alone. */
static void test_pathsl_other_lid(void **state)
{
	struct fabric *f = mixed_lmc1();
	struct rt_routing *r = rt_new(f);
	struct fab_err err = { { 0 } };
	uint32_t src = FAB_NONE, dst = FAB_NONE;
	char line[128];

	(void)state;
	for (uint32_t e = 0; e < f->neps; e++)
		if (f->nodes[f->eps[e].node].type == FAB_CA && fab_ep_lmc(f, e) == 1) {
			if (src == FAB_NONE)
				src = e;
			else if (f->eps[e].node != f->eps[src].node && dst == FAB_NONE)
				dst = e;
		}
	assert_int_not_equal(dst, FAB_NONE);
	snprintf(line, sizeof(line), "# node 0xabc, LID 7\n0x%016llx %u 5\n",
		 (unsigned long long)f->nodes[f->eps[src].node].guid, fab_ep_lid(f, dst) + 1u);
	assert_int_equal(fmt_pathsl_parse(line, strlen(line), "l", f, r, &err), 0);
	assert_int_equal(rt_path_sl(r, src, dst), 0);
	snprintf(line, sizeof(line), "0x%016llx %u 5\n",
		 (unsigned long long)f->nodes[f->eps[src].node].guid, fab_ep_lid(f, dst));
	assert_int_equal(fmt_pathsl_parse(line, strlen(line), "l", f, r, &err), 0);
	assert_int_equal(rt_path_sl(r, src, dst), 5);
	rt_free(r);
	fab_free(f);
}

static void test_pathsl_bad(void **state)
{
	(void)state;
	sl_fails(1, "# c\n0x0002FAB100000001 6 1\n", "bad.psl:2: ", "lower-case hex");
	sl_fails(1, "\n# was 0x0002fab100000001 6 1\n", "bad.psl:2: ",
		 "expected a comment without \"0xGUID DLID SL\" in it");
	sl_fails(1, "0x0002fab100000001\t6 1\n", "bad.psl:1: ", "expected \"0xNODEGUID DLID SL\"");
	sl_fails(1, "0x0002fab100000001  6 1\n", "bad.psl:1: ", "single spaces");
	sl_fails(1, "0x0002fab100000001 6 1 # x\n", "bad.psl:1: ", "nothing after");
	sl_fails(1, "0x0002fab100000001 6 16\n", "bad.psl:1: ", "SL 0 to 15");
	sl_fails(1, "0x0002fab100000001 0 1\n", "bad.psl:1: ", "DLID 1 to");
	sl_fails(1, "0002fab100000001 6 1\n", "bad.psl:1: ", "expected \"0xNODEGUID");
	sl_fails(1, "0x0002fab200000011 7 1\n", "bad.psl:1: ",
		 "expected a node GUID, found port GUID 0x0002fab200000011 of node"
		 " 0x0002fab200000010");
	sl_fails(1, "0x00000000deadbeef 7 1\n", "bad.psl:1: ",
		 "expected the GUID of a node of the fabric");
	sl_fails(1, "0x0002fab100000001 99 1\n", "bad.psl:1: ",
		 "expected a LID owned by a port of the fabric, found 99");
	sl_fails(1, "0x0002fab100000001 6 1\n0x0002fab100000001 7 2\n0x0002fab100000001 6 3\n",
		 "bad.psl:3: ", "expected one SL per source node and DLID, found SL 3 for DLID 6"
		 " after SL 1");
}

int main(void)
{
	struct CMUnitTest tests[NCASES + 8];
	size_t n = 0;

	for (size_t i = 0; i < NCASES; i++)
		tests[n++] = (struct CMUnitTest){ .name = cases[i].name, .test_func = test_case,
						  .initial_state = (void *)&cases[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_all_fixtures_listed);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_sl2vl_real);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_sl2vl_bad);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_pathsl_real);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_pathsl_roundtrip_lmc);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_pathsl_write_conflict);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_pathsl_other_lid);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_pathsl_bad);
	return _cmocka_run_group_tests("test_eval_osm", tests, n, NULL, NULL);
}
