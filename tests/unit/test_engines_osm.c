/* SPDX-License-Identifier: MIT */
/*
 * minhop and updn against OpenSM 3.3.23's own tables on the same fabrics
 * and LIDs (tests/data/engines), and the updn case where OpenSM's tables
 * have a credit loop and ours do not.
 */
#include "tests/unit/testutil.h"

/* --- OpenSM's own tables ------------------------------------------------------------- */

/*
 * @opts: engine options; "roots=@" takes the case's root_guids file
 * @differ: entries where we differ from OpenSM on purpose (see
 *          test_osm_updn_loop)
 */
struct osm_case {
	const char *dir;
	const struct engine *e;
	const char *opts[3];
	unsigned differ;
};

static struct fabric *osm_fabric(const char *dir)
{
	struct fab_err err = { { 0 } };
	struct fab_lid_pin *pins = NULL;
	char rel[256], *buf = NULL;
	size_t len, n = 0;
	struct fabric *f;

	snprintf(rel, sizeof(rel), "%s/opensm-subnet.lst", dir);
	if (fmt_read_file(tu_data(rel), &buf, &len, &err))
		fail_msg("%s", err.msg);
	f = fmt_subnet_parse(buf, len, rel, &err);
	if (!f)
		fail_msg("%s: %s", rel, err.msg);
	free(buf);
	snprintf(rel, sizeof(rel), "%s/guid2lid", dir);
	if (fmt_read_file(tu_data(rel), &buf, &len, &err) ||
	    fmt_guid2lid_parse(buf, len, rel, &pins, &n, &err) ||
	    fab_lids_assign(f, pins, n, FAB_LIDS_KEEP, 0, &err))
		fail_msg("%s: %s", rel, err.msg);
	free(pins);
	free(buf);
	return f;
}

static struct rt_routing *osm_lfts(const char *dir, const struct fabric *f)
{
	struct fab_err err = { { 0 } };
	char rel[256], *buf = NULL;
	struct rt_routing *r;
	size_t len;

	snprintf(rel, sizeof(rel), "%s/opensm-lfts.dump", dir);
	if (fmt_read_file_max(tu_data(rel), FMT_DUMP_SIZE_MAX, &buf, &len, &err))
		fail_msg("%s", err.msg);
	r = fmt_lfts_parse(buf, len, rel, f, &err);
	if (!r)
		fail_msg("%s: %s", rel, err.msg);
	free(buf);
	return r;
}

/* The first line of the case's root_guids file, as "roots=0x...". */
static void root_opt(const char *dir, char *out, size_t len)
{
	struct fab_err err = { { 0 } };
	char rel[256], *buf = NULL;
	size_t n;

	snprintf(rel, sizeof(rel), "%s/root_guids", dir);
	if (fmt_read_file(tu_data(rel), &buf, &n, &err))
		fail_msg("%s", err.msg);
	buf[strcspn(buf, "\r\n")] = '\0';
	snprintf(out, len, "roots=%s", buf);
	free(buf);
}

/* Route the case's fabric with its engine and options. */
static struct rt_routing *osm_case_route(const struct osm_case *c, const struct fabric *f)
{
	struct fab_err err = { { 0 } };
	const char *opts[4] = { NULL };
	char roots[128];

	for (unsigned i = 0; c->opts[i]; i++) {
		opts[i] = c->opts[i];
		if (!strcmp(c->opts[i], "roots=@")) {
			root_opt(c->dir, roots, sizeof(roots));
			opts[i] = roots;
		}
	}
	return tu_route_opts(c->e, f, opts, ENG_OK, &err);
}

static void check_osm_case(const struct osm_case *c)
{
	struct fabric *f = osm_fabric(c->dir);
	struct rt_routing *osm = osm_lfts(c->dir, f), *ours = osm_case_route(c, f);
	unsigned diff = 0;

	for (uint32_t s = 0; s < f->nswitches; s++)
		for (unsigned lid = 1; lid <= f->lid_top; lid++)
			if (rt_lft_get(ours, s, lid) != rt_lft_get(osm, s, lid) && !diff++ &&
			    !c->differ)
				print_message("%s: switch %s LID %u: ours %u, OpenSM's %u\n", c->dir,
					      fab_desc(f, f->switches[s]), lid,
					      rt_lft_get(ours, s, lid), rt_lft_get(osm, s, lid));
	if (diff != c->differ)
		fail_msg("%s: %s differs from OpenSM in %u entries, expected %u", c->dir,
			 c->e->name, diff, c->differ);
	rt_free(ours);
	rt_free(osm);
	fab_free(f);
}

static void test_osm_tables(void **state)
{
	static const struct osm_case cases[] = {
		{ "osm/fattree", &eng_minhop, { NULL }, 0 },
		{ "osm/ring", &eng_minhop, { NULL }, 0 },
		{ "osm/mixed", &eng_minhop, { NULL }, 0 },
		{ "osm/mixed-lmc1", &eng_minhop, { NULL }, 0 },
		{ "eval/ring-minhop", &eng_minhop, { NULL }, 0 },
		{ "eval/fattree-minhop", &eng_minhop, { NULL }, 0 },
		{ "eval/dragonfly-minhop", &eng_minhop, { NULL }, 0 },
		{ "eval/ring-updn", &eng_updn, { "roots=@", NULL }, 0 },
		{ "eval/dragonfly-updn", &eng_updn, { "roots=@", NULL }, 0 },
		{ "eval/fattree-updn", &eng_updn, { "detect=osm", "strict=0", NULL }, 0 },
		{ "engines/gft2-minhop-lmc2", &eng_minhop, { NULL }, 0 },
		{ "engines/dragonfly-minhop-lmc1", &eng_minhop, { NULL }, 0 },
		{ "engines/multicore-minhop", &eng_minhop, { NULL }, 0 },
		{ "engines/torus-updn", &eng_updn, { "roots=@", NULL }, 0 },
		{ "engines/rack-updn", &eng_updn, { "detect=osm", "strict=0", NULL }, 0 },
		{ "engines/random-updn", &eng_updn, { "roots=@", NULL }, 5 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_osm_case(&cases[i]);
}

/* The verdict of the case's ibdmchk-all.out: 1 credit loop, 0 none. */
static int ibdmchk_loop(const char *dir)
{
	struct fab_err err = { { 0 } };
	char rel[256], *buf = NULL;
	size_t len;
	int loop;

	snprintf(rel, sizeof(rel), "%s/ibdmchk-all.out", dir);
	if (fmt_read_file(tu_data(rel), &buf, &len, &err))
		fail_msg("%s", err.msg);
	loop = strstr(buf, "Found credit loop") ? 1 : strstr(buf, "no credit loops found") ? 0 : -1;
	free(buf);
	assert_int_not_equal(loop, -1);
	return loop;
}

/* Switches crossed by all paths between endpoints, to their base LIDs. */
static uint64_t total_hops(const struct fabric *f, const struct rt_routing *r)
{
	uint64_t sum = 0;

	for (uint32_t src = 0; src < f->neps; src++)
		for (uint32_t dst = 0; dst < f->neps; dst++) {
			struct an_path p = { 0 };

			if (src == dst)
				continue;
			assert_int_equal(an_trace(f, r, src, fab_ep_lid(f, dst), 0, &p), 0);
			assert_int_equal(p.fail, AN_DELIVERED);
			sum += p.nhops;
			an_path_free(&p);
		}
	return sum;
}

/*
 * Where OpenSM's Up/Down BFS closes a cycle: on this random fabric (root:
 * its first switch) a switch accepts both an up and a down port towards the
 * same destination, and paths from and to switches then form a credit loop
 * (ibdmchk -a finds it too). CA-to-CA paths alone are free of it. Our updn
 * differs in 5 entries, keeps the same path lengths and is deadlock-free.
 */
static void test_osm_updn_loop(void **state)
{
	static const struct osm_case c = {
		"engines/random-updn", &eng_updn, { "roots=@", NULL }, 5,
	};
	struct fabric *f = osm_fabric(c.dir);
	struct rt_routing *osm = osm_lfts(c.dir, f), *ours = osm_case_route(&c, f);
	struct an_opts ca_only = { .ca_only = 1 };
	struct fab_err err = { { 0 } };
	struct an_report rep;

	(void)state;
	assert_int_equal(ibdmchk_loop(c.dir), 1);
	tu_eval(f, osm, 0, &rep);
	assert_true(an_connected(&rep));
	assert_false(rep.cdg.deadlock_free);
	an_report_free(&rep);
	assert_int_equal(an_evaluate(f, osm, &ca_only, &rep, &err), 0);
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);
	tu_eval(f, ours, 0, &rep);
	assert_true(an_connected(&rep));
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);
	assert_int_equal(total_hops(f, ours), total_hops(f, osm));
	assert_int_equal(ibdmchk_loop("engines/torus-updn"), 0);
	rt_free(ours);
	rt_free(osm);
	fab_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_osm_tables),
		cmocka_unit_test(test_osm_updn_loop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
