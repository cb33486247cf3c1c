/* SPDX-License-Identifier: MIT */
/*
 * OpenSM's dump files: opensm-lfts.dump, opensm.fdbs, opensm-subnet.lst
 * and guid2lid. The fixtures under tests/data/osm/ come from real OpenSM
 * runs under ibsim (see tests/data/osm/README.md); every fabric here is
 * built from its opensm-subnet.lst, and checked once against the
 * ibnetdiscover output of the same simulator.
 */
#include "tests/unit/testutil.h"

#include <errno.h>

#include "fabric/routing.h"

static const char *const cases[] = { "mixed", "fattree", "ring", "mixed-lmc1" };
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* --- helpers ------------------------------------------------------------------ */

static char *load(const char *dir, const char *file, size_t *len)
{
	struct fab_err err = { { 0 } };
	char rel[256], *buf = NULL;
	size_t n = 0;

	snprintf(rel, sizeof(rel), "osm/%s/%s", dir, file);
	if (fmt_read_file(tu_data(rel), &buf, &n, &err))
		fail_msg("%s", err.msg);
	if (len)
		*len = n;
	return buf;
}

enum which { LFTS, FDBS, SUBNET, GUID2LID };

static int no_pins;	/* what parse_as() returns for a guid2lid without entries */

/* Run the parser of @w; the result (routing, fabric or pins), or NULL with @err set. */
static void *parse_as(enum which w, const char *text, size_t len, const char *name,
		      const struct fabric *f, struct fab_err *err, size_t *npins)
{
	struct fab_lid_pin *pins = NULL;

	switch (w) {
	case LFTS:
		return fmt_lfts_parse(text, len, name, f, err);
	case FDBS:
		return fmt_fdbs_parse(text, len, name, f, err);
	case SUBNET:
		return fmt_subnet_parse(text, len, name, err);
	case GUID2LID:
		if (fmt_guid2lid_parse(text, len, name, &pins, npins, err))
			return NULL;
		return pins ? (void *)pins : (void *)&no_pins;
	}
	return NULL;
}

static void drop(enum which w, void *got)
{
	if (w == LFTS || w == FDBS)
		rt_free(got);
	else if (w == SUBNET)
		fab_free(got);
	else if (got != &no_pins)
		free(got);
}

/* Parse a fixture file; fails the test with the parser's message. */
static void *fixture(enum which w, const char *dir, const char *file, const struct fabric *f)
{
	struct fab_err err = { { 0 } };
	size_t len, npins;
	char *buf = load(dir, file, &len);
	void *got = parse_as(w, buf, len, file, f, &err, &npins);

	if (!got)
		fail_msg("%s/%s: %s", dir, file, err.msg);
	free(buf);
	return got;
}

static struct fabric *subnet_of(const char *dir)
{
	return fixture(SUBNET, dir, "opensm-subnet.lst", NULL);
}

/* Give the fabric the LIDs and LMCs of the case's guid2lid, as OpenSM had them. */
static void pin_lids(struct fabric *f, const char *dir)
{
	struct fab_err err = { { 0 } };
	size_t len, n = 0;
	char *buf = load(dir, "guid2lid", &len);
	struct fab_lid_pin *pins = parse_as(GUID2LID, buf, len, "guid2lid", NULL, &err, &n);

	if (!pins || fab_lids_assign(f, pins, n, FAB_LIDS_KEEP, 0, &err))
		fail_msg("%s: %s", dir, err.msg);
	drop(GUID2LID, pins);
	free(buf);
}

static char *lfts_text(const struct fabric *f, const struct rt_routing *r, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *mf = open_memstream(&buf, &n);

	assert_non_null(mf);
	assert_int_equal(fmt_lfts_write(mf, f, r), 0);
	fclose(mf);
	if (len)
		*len = n;
	return buf;
}

/* @text with the first (or, with @all, every) @from replaced by @to; the caller frees. */
static char *replaced(const char *text, const char *from, const char *to, int all)
{
	const char *at = strstr(text, from);
	size_t head = (size_t)(at - text);
	char *out;

	if (!at)
		fail_msg("fixture lacks \"%s\"", from);
	out = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
	assert_non_null(out);
	memcpy(out, text, head);
	strcpy(out + head, to);
	strcat(out, at + strlen(from));
	if (all && strstr(out + head + strlen(to), from)) {
		char *again = replaced(out, from, to, 1);

		free(out);
		out = again;
	}
	return out;
}

/* Parse @text as @w and expect a failure whose message starts with @where and holds @needle. */
static void fails_len(enum which w, const char *text, size_t len, const char *where,
		      const char *needle)
{
	static const char *const names[] = { "bad.dump", "bad.fdbs", "bad.lst", "bad.g2l" };
	struct fab_err err = { { 0 } };
	struct fabric *f = w == LFTS || w == FDBS ? subnet_of("mixed") : NULL;
	size_t npins;
	void *got = parse_as(w, text, len, names[w], f, &err, &npins);

	fab_free(f);
	if (got) {
		drop(w, got);
		fail_msg("expected an error containing \"%s\", the parse succeeded", needle);
	}
	if (strncmp(err.msg, where, strlen(where)))
		fail_msg("error \"%s\" does not start with \"%s\"", err.msg, where);
	if (!strstr(err.msg, needle))
		fail_msg("error \"%s\" does not contain \"%s\"", err.msg, needle);
}

static void fails(enum which w, const char *text, const char *where, const char *needle)
{
	fails_len(w, text, strlen(text), where, needle);
}

static uint32_t node_named(const struct fabric *f, const char *desc)
{
	unsigned count = 0;
	uint32_t n = fab_node_by_desc(f, desc, &count);

	if (n == FAB_NONE || count != 1)
		fail_msg("expected one node \"%s\", found %u", desc, count);
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Split @text in place into its blocks (each from a line starting with
 * "Unicast lids") or, without @blocks, its non-blank lines; sort them.
 */
static char **chunks(char *text, int blocks, size_t *n)
{
	char **v = calloc(strlen(text) + 1, sizeof(*v)), *save = NULL, *p = text;
	size_t len = strlen(text);

	assert_non_null(v);
	*n = 0;
	if (!blocks) {
		for (p = strtok_r(text, "\n", &save); p; p = strtok_r(NULL, "\n", &save))
			v[(*n)++] = p;
	} else {
		if (len && text[len - 1] == '\n')
			text[len - 1] = '\0';	/* the last block ends like the others */
		for (; (p = strstr(p, "Unicast lids")); p++) {
			v[(*n)++] = p;
			if (p > text)
				p[-1] = '\0';
		}
	}
	qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

/* @a and @b hold the same blocks (or lines) in any order; frees both. */
static void same_chunks(char *a, char *b, int blocks, size_t want)
{
	size_t na, nb;
	char **x = chunks(a, blocks, &na), **y = chunks(b, blocks, &nb);

	assert_int_equal(na, want);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
		assert_string_equal(x[i], y[i]);
	free(x);
	free(y);
	free(a);
	free(b);
}

/* --- opensm-subnet.lst ---------------------------------------------------------- */

static void test_subnet_mixed(void **state)
{
	struct fabric *f = subnet_of("mixed");
	uint32_t h1 = node_named(f, "H1"), h4 = node_named(f, "H4"), s1 = node_named(f, "S1");
	uint32_t s2 = node_named(f, "S2"), h3 = node_named(f, "host three");

	(void)state;
	assert_int_equal(f->nnodes, 7);
	assert_int_equal(f->nswitches, 3);
	assert_int_equal(f->nlinks, 10);
	assert_int_equal(f->neps, 3 + 5);
	assert_int_equal(f->sm_node, h1);
	assert_int_equal(f->sm_port, 1);
	assert_int_equal(f->nodes[h1].type, FAB_CA);
	assert_int_equal(f->nodes[h1].nports, 2);
	assert_true(f->nodes[h1].guid == 0x100000 && f->nodes[h1].sysimg_guid == 0x100000);
	assert_true(fab_port(f, h1, 1)->guid == 0x100001);
	assert_true(fab_port(f, h1, 2)->guid == 0x100002);
	assert_int_equal(fab_port(f, h1, 1)->lid, 1);
	assert_int_equal(fab_port(f, h1, 2)->lid, 4);
	assert_int_equal(fab_port(f, s1, 0)->lid, 2);
	assert_int_equal(fab_port(f, s2, 0)->lid, 3);
	assert_int_equal(fab_port(f, h3, 1)->lid, 7);
	assert_int_equal(f->lid_top, 8);
	for (unsigned p = 5; p <= 6; p++) {	/* the parallel links S1-S2 */
		assert_int_equal(fab_port(f, s1, p)->peer, s2);
		assert_int_equal(fab_port(f, s1, p)->peer_port, p);
	}
	assert_int_equal(fab_port(f, h1, 2)->peer, s2);
	assert_int_equal(fab_port(f, h4, 1)->width, FAB_W_1X);
	assert_int_equal(fab_port(f, s1, 5)->width, FAB_W_4X);
	assert_int_equal(fab_port(f, s1, 5)->speed, FAB_S_SDR);
	assert_int_equal(fab_port(f, s1, 5)->state, FAB_LOG_ACTIVE);
	assert_int_equal(fab_port(f, h1, 1)->lmc, 0);
	assert_int_equal(fab_ep_by_lid(f, 4), fab_ep_of_node(f, h1, 2));
	fab_free(f);
}

static void test_subnet_all_cases(void **state)
{
	static const struct { unsigned nodes, sw, links; const char *sm; unsigned sm_port; } want[] = {
		{ 7, 3, 10, "H1", 1 }, { 14, 6, 16, "H1", 1 }, { 12, 5, 12, "R1", 0 },
		{ 7, 3, 10, "H1", 1 },
	};

	(void)state;
	for (size_t c = 0; c < NCASES; c++) {
		struct fabric *f = subnet_of(cases[c]);

		assert_int_equal(f->nnodes, want[c].nodes);
		assert_int_equal(f->nswitches, want[c].sw);
		assert_int_equal(f->nlinks, want[c].links);
		assert_int_equal(f->sm_node, node_named(f, want[c].sm));
		assert_int_equal(f->sm_port, want[c].sm_port);
		for (uint32_t e = 0; e < f->neps; e++)
			assert_int_not_equal(fab_ep_lid(f, e), 0);
		fab_free(f);
	}
}

/* The same lines in reverse order make the same graph. */
static void test_subnet_order_free(void **state)
{
	struct fab_err err = { { 0 } };
	size_t len, n, at = 0;
	char *buf = load("fattree", "opensm-subnet.lst", &len), *copy = strdup(buf);
	char **lines = chunks(copy, 0, &n), *rev = malloc(len + 1);
	struct fabric *a = fmt_subnet_parse(buf, len, "fwd", &err), *b;

	(void)state;
	assert_non_null(rev);
	for (size_t i = n; i-- > 0; at += strlen(lines[i]) + 1)
		sprintf(rev + at, "%s\n", lines[i]);
	b = fmt_subnet_parse(rev, at, "rev", &err);
	assert_non_null(a);
	assert_non_null(b);
	assert_true(fab_topology_hash(a) == fab_topology_hash(b));
	fab_free(a);
	fab_free(b);
	free(lines);
	free(copy);
	free(buf);
	free(rev);
}

/* opensm-subnet.lst and ibnetdiscover agree on graph, descriptions, LIDs, widths, speeds. */
static void test_subnet_matches_ibnetdiscover(void **state)
{
	(void)state;
	for (size_t c = 0; c < NCASES; c++) {
		struct fab_err err = { { 0 } };
		char rel[256];
		struct fabric *a = subnet_of(cases[c]), *b;

		snprintf(rel, sizeof(rel), "osm/%s/ibnetdiscover.out", cases[c]);
		b = fmt_topo_load(tu_data(rel), FMT_AUTO, &err);
		if (!b)
			fail_msg("%s: %s", rel, err.msg);
		assert_true(fab_topology_hash(a) == fab_topology_hash(b));
		assert_int_equal(a->neps, b->neps);
		for (uint32_t e = 0; e < a->neps; e++) {
			const struct fab_port *px = fab_port(a, a->eps[e].node, a->eps[e].port);
			uint32_t y = fab_ep_by_port_guid(b, px->guid);

			assert_int_not_equal(y, FAB_NONE);
			assert_int_equal(px->lid, fab_ep_lid(b, y));
			assert_string_equal(fab_desc(a, a->eps[e].node), fab_desc(b, b->eps[y].node));
		}
		for (uint32_t n = 0; n < a->nnodes; n++) {
			uint32_t m = fab_node_by_guid(b, a->nodes[n].guid);

			assert_int_not_equal(m, FAB_NONE);
			for (unsigned p = 1; p <= a->nodes[n].nports; p++) {
				if (!fab_port_linked(a, n, p))
					continue;
				assert_int_equal(fab_port(a, n, p)->width, fab_port(b, m, p)->width);
				assert_int_equal(fab_port(a, n, p)->speed, fab_port(b, m, p)->speed);
			}
		}
		fab_free(a);
		fab_free(b);
	}
}

/* Braces and blanks inside a description, a router, the swapped second DevID. */
static void test_subnet_forms(void **state)
{
	static const char text[] =
		"{ Rt Ports:02 SystemGUID:0000000000000abc NodeGUID:0000000000000abc"
		" PortGUID:0000000000000abd VenID:0002C9 DevID:1003 Rev:000000A1"
		" {gw {a} b} LID:0004 PN:01 } { SW-SM Ports:24 SystemGUID:0000000000000def"
		" NodeGUID:0000000000000def PortGUID:0000000000000def VenID:000002C9"
		" DevID:10030000 Rev:000000A1 {spine 1} LID:0001 PN:24 } PHY=12x LOG=ACT SPD=14\n"
		"{ SW-SM Ports:24 SystemGUID:0000000000000def NodeGUID:0000000000000def"
		" PortGUID:0000000000000def VenID:0002C9 DevID:1003 Rev:000000A1"
		" {spine 1} LID:0001 PN:24 } { Rt Ports:02 SystemGUID:0000000000000abc"
		" NodeGUID:0000000000000abc PortGUID:0000000000000abd VenID:000002C9"
		" DevID:10030000 Rev:000000A1 {gw {a} b} LID:0004 PN:01 } PHY=12x LOG=ARM SPD=FDR10\n";
	struct fab_err err = { { 0 } };
	struct fabric *f = fmt_subnet_parse(text, strlen(text), "x.lst", &err);
	uint32_t rt, sw;

	(void)state;
	if (!f)
		fail_msg("%s", err.msg);
	rt = node_named(f, "gw {a} b");
	sw = node_named(f, "spine 1");
	assert_int_equal(f->nodes[rt].type, FAB_ROUTER);
	assert_int_equal(f->nodes[sw].nports, 36);
	assert_int_equal(f->nodes[sw].device_id, 0x1003);
	assert_int_equal(f->nodes[rt].device_id, 0x1003);
	assert_int_equal(f->nodes[rt].vendor_id, 0x2c9);
	assert_true(fab_port(f, rt, 1)->guid == 0xabd);
	assert_int_equal(fab_port(f, rt, 1)->lid, 4);
	assert_int_equal(fab_port(f, sw, 0)->lid, 1);
	assert_int_equal(fab_port(f, rt, 1)->width, FAB_W_12X);
	assert_int_equal(fab_port(f, rt, 1)->speed, FAB_S_FDR);
	assert_int_equal(fab_port(f, sw, 36)->speed, FAB_S_FDR10);
	assert_int_equal(fab_port(f, sw, 36)->state, FAB_LOG_ARMED);
	assert_int_equal(f->sm_node, sw);
	assert_int_equal(f->sm_port, 0);
	assert_int_equal(fab_ep_by_lid(f, 4), fab_ep_of_node(f, rt, 1));
	fab_free(f);
}

/* --- opensm-lfts.dump, opensm.fdbs, ibroute output ------------------------------ */

/* OpenSM's two dumps and the tables read back from the switches agree. */
static void test_lfts_fdbs_switches_agree(void **state)
{
	(void)state;
	for (size_t c = 0; c < NCASES; c++) {
		struct fabric *f = subnet_of(cases[c]);
		struct rt_routing *l = fixture(LFTS, cases[c], "opensm-lfts.dump", f);
		struct rt_routing *d = fixture(FDBS, cases[c], "opensm.fdbs", f);
		struct rt_routing *s = fixture(LFTS, cases[c], "dump_fts.out", f);

		assert_int_equal(l->nswitches, f->nswitches);
		if (!rt_equal_lfts(l, d) || !rt_equal_lfts(l, s))
			fail_msg("%s: opensm-lfts.dump, opensm.fdbs and dump_fts differ", cases[c]);
		rt_free(l);
		rt_free(d);
		rt_free(s);
		fab_free(f);
	}
}

/* A switch left out of the dump keeps an empty table. */
static void check_missing_switch(void)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = subnet_of("mixed");
	char *full = load("mixed", "opensm-lfts.dump", NULL);
	char *two = strndup(full, (size_t)(strstr(full, "Unicast lids [0-8] of switch Lid 5") - full));
	struct rt_routing *r = fmt_lfts_parse(two, strlen(two), "two", f, &err);
	uint32_t s3 = f->nodes[node_named(f, "S3")].swidx;

	assert_non_null(r);
	for (unsigned l = 0; l < r->lft_len; l++)
		assert_int_equal(rt_lft_get(r, s3, l), RT_NO_PORT);
	assert_int_equal(rt_lft_get(r, 0, 1), 1);
	rt_free(r);
	free(two);
	free(full);
	fab_free(f);
}

/*
 * Entries as the fixtures give them; with LMC 1 the table runs past the
 * fabric's LIDs; a switch missing from the dump keeps an empty table.
 */
static void test_lfts_values(void **state)
{
	static const struct { const char *c, *sw; unsigned lid, port; } want[] = {
		{ "mixed", "S1", 0, RT_NO_PORT }, { "mixed", "S1", 1, 1 }, { "mixed", "S1", 2, 0 },
		{ "mixed", "S1", 3, 5 }, { "mixed", "S1", 7, 6 }, { "mixed", "S3", 8, 1 },
		{ "mixed-lmc1", "S2", 1, RT_NO_PORT }, { "mixed-lmc1", "S2", 2, 5 },
		{ "mixed-lmc1", "S2", 3, 6 }, { "mixed-lmc1", "S2", 15, 4 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct fabric *f = subnet_of(want[i].c);
		struct rt_routing *r = fixture(LFTS, want[i].c, "opensm-lfts.dump", f);
		int lmc = !strcmp(want[i].c, "mixed-lmc1");

		/* opensm-subnet.lst has no LMC: the fabric ends at 8 or 14, the dump at 8 or 15 */
		assert_int_equal(f->lid_top, lmc ? 14 : 8);
		assert_int_equal(r->lft_len, lmc ? 16 : 9);
		assert_int_equal(rt_lft_get(r, f->nodes[node_named(f, want[i].sw)].swidx,
					    want[i].lid), want[i].port);
		rt_free(r);
		fab_free(f);
	}
	check_missing_switch();
}

/* Our writer, given OpenSM's view of the fabric, writes OpenSM's own file. */
static void test_lfts_write_as_opensm(void **state)
{
	(void)state;
	for (size_t c = 0; c < NCASES; c++) {
		struct fabric *f = subnet_of(cases[c]);
		struct rt_routing *r;

		pin_lids(f, cases[c]);
		r = fixture(LFTS, cases[c], "opensm-lfts.dump", f);
		same_chunks(lfts_text(f, r, NULL), load(cases[c], "opensm-lfts.dump", NULL), 1,
			    f->nswitches);
		rt_free(r);
		fab_free(f);
	}
}

static void test_lfts_round_trip(void **state)
{
	(void)state;
	for (size_t c = 0; c < NCASES; c++) {
		struct fab_err err = { { 0 } };
		struct fabric *f = subnet_of(cases[c]);
		struct rt_routing *r = fixture(FDBS, cases[c], "opensm.fdbs", f), *back;
		size_t len;
		char *text = lfts_text(f, r, &len);

		back = fmt_lfts_parse(text, len, "ours", f, &err);
		if (!back)
			fail_msg("%s: %s", cases[c], err.msg);
		assert_true(rt_equal_lfts(r, back));
		assert_int_equal(back->lft_len, r->lft_len);
		rt_free(back);
		rt_free(r);
		free(text);
		fab_free(f);
	}
}

/* A LID no port owns is annotated as OpenSM does it; a port past the switch's is refused. */
static void test_lfts_write_edges(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = subnet_of("mixed");
	struct rt_routing *r = rt_new(f), *back;
	FILE *null = fopen("/dev/null", "w");
	size_t len;
	char *text;

	(void)state;
	rt_lft(r, 1)[0] = 0;
	rt_lft(r, 1)[1] = 5;
	text = lfts_text(f, r, &len);
	assert_string_equal(strstr(text, "Unicast lids [0-8] of switch Lid 3"),
			    "Unicast lids [0-8] of switch Lid 3 guid 0x0000000000200001 ('S2'):\n"
			    "0x0000 000 # unknown node and type\n"
			    "0x0001 005 # Channel Adapter portguid 0x0000000000100001: 'H1'\n"
			    "8 lids dumped\n"
			    "Unicast lids [0-8] of switch Lid 5 guid 0x0000000000200002 ('S3'):\n"
			    "8 lids dumped\n");
	back = fmt_lfts_parse(text, len, "ours", f, &err);
	assert_non_null(back);
	assert_true(rt_equal_lfts(r, back));
	assert_non_null(null);
	rt_lft(r, 0)[1] = 9;	/* S1 has 8 ports */
	errno = 0;
	assert_int_equal(fmt_lfts_write(null, f, r), -1);
	assert_int_equal(errno, EINVAL);
	fclose(null);
	rt_free(back);
	free(text);
	rt_free(r);
	fab_free(f);
}

/*
 * ibroute's and dump_fts' own layout with ibroute -a's unrouted entries;
 * fdbs with UNREACHABLE, HOPS UNKNOWN, non-optimal entries, ibdiagnet's prefix.
 */
static void test_other_layouts(void **state)
{
	static const char ibroute[] =
		"Unicast lids [0x0-0x8] of switch Lid 2 guid 0x0000000000200000 (S1):\n"
		"  Lid  Out   Destination\n"
		"       Port     Info \n"
		"0x0000 255 : (path #0 - illegal port)\n"
		"0x0001 001 : (Channel Adapter portguid 0x0000000000100001: 'H1')\n"
		"0x0008 007 : (Channel Adapter portguid 0x0000000000100008: 'H4')\n"
		"3 lids dumped \n"
		"Unicast lids [0x0-0x8] of switch DR path slid 0; dlid 0; 0,1,7 guid"
		" 0x0000000000200002 (S3):\n"
		"0x0008 001 : (Channel Adapter portguid 0x0000000000100008: 'H4')\n"
		"1 valid lids dumped \n";
	static const char fdbs[] =
		"osm_ucast_mgr_dump_ucast_routes: Switch 0x0000000000200000\n"
		"LID    : Port : Hops : Optimal\n"
		"0x0001 : UNREACHABLE\n"
		"0x0002 : 000  : 00   : yes\n"
		"0x0003 : 006  : 02   : No 1 hop path possible via port 5!\n"
		"0x0004 : 005  : HOPS UNKNOWN\n"
		"\n";
	static const unsigned want_i[] = { RT_NO_PORT, 1, RT_NO_PORT, RT_NO_PORT, RT_NO_PORT,
					   RT_NO_PORT, RT_NO_PORT, RT_NO_PORT, 7 };
	static const unsigned want_f[] = { RT_NO_PORT, RT_NO_PORT, 0, 6, 5, RT_NO_PORT };
	struct fab_err err = { { 0 } };
	struct fabric *f = subnet_of("mixed");
	struct rt_routing *i = fmt_lfts_parse(ibroute, strlen(ibroute), "ibroute", f, &err);
	struct rt_routing *d = fmt_fdbs_parse(fdbs, strlen(fdbs), "x.fdbs", f, &err);

	(void)state;
	if (!i || !d)
		fail_msg("%s", err.msg);
	for (unsigned l = 0; l < 9; l++)
		assert_int_equal(rt_lft_get(i, 0, l), want_i[l]);
	for (unsigned l = 0; l < 6; l++)
		assert_int_equal(rt_lft_get(d, 0, l), want_f[l]);
	assert_int_equal(rt_lft_get(i, 2, 8), 1);
	assert_int_equal(rt_lft_get(i, 1, 8), RT_NO_PORT);
	rt_free(i);
	rt_free(d);
	fab_free(f);
}

/* --- guid2lid ------------------------------------------------------------------- */

/* Comments, blank lines, short numbers, CRLF, an empty file. */
static void check_guid2lid_forms(void)
{
	static const char text[] = "# comment\n\n  0x10 0x4 0x7  \r\n0x0000000000000011 0x0001 0x0001\n";
	struct fab_err err = { { 0 } };
	struct fab_lid_pin *pins = NULL;
	size_t n = 0;

	assert_int_equal(fmt_guid2lid_parse(text, strlen(text), "g", &pins, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_true(pins[0].guid == 0x10 && pins[1].guid == 0x11);
	assert_int_equal(pins[0].lid, 4);
	assert_int_equal(pins[0].lmc, 2);
	assert_int_equal(pins[1].lid, 1);
	assert_int_equal(pins[1].lmc, 0);
	free(pins);
	pins = NULL;
	assert_int_equal(fmt_guid2lid_parse("", 0, "g", &pins, &n, &err), 0);
	assert_int_equal(n, 0);
	free(pins);
}

static void test_guid2lid_fixtures(void **state)
{
	(void)state;
	for (size_t c = 0; c < NCASES; c++) {
		struct fab_err err = { { 0 } };
		struct fabric *f = subnet_of(cases[c]);
		struct fab_lid_pin *pins = NULL;
		size_t len, n = 0;
		char *buf = load(cases[c], "guid2lid", &len);
		int lmc = !strcmp(cases[c], "mixed-lmc1");

		assert_int_equal(fmt_guid2lid_parse(buf, len, "guid2lid", &pins, &n, &err), 0);
		assert_int_equal(n, f->neps);
		for (size_t i = 0; i < n; i++) {
			uint32_t ep = fab_ep_by_port_guid(f, pins[i].guid);

			assert_int_not_equal(ep, FAB_NONE);
			assert_int_equal(pins[i].lid, fab_ep_lid(f, ep));
			assert_int_equal(pins[i].lmc,
					 f->nodes[f->eps[ep].node].type == FAB_SWITCH ? 0 : lmc);
		}
		free(pins);
		free(buf);
		fab_free(f);
	}
	check_guid2lid_forms();
}

/* Our guid2lid carries the same entries as OpenSM's, in OpenSM's layout. */
static void test_guid2lid_write(void **state)
{
	(void)state;
	for (size_t c = 0; c < NCASES; c++) {
		struct fabric *f = subnet_of(cases[c]);
		char *ours = NULL;
		size_t n = 0;
		FILE *mf = open_memstream(&ours, &n);

		pin_lids(f, cases[c]);
		assert_non_null(mf);
		assert_int_equal(fmt_guid2lid_write(mf, f), 0);
		fclose(mf);
		assert_non_null(strstr(ours, "\n\n0x"));	/* a blank line after each entry */
		same_chunks(ours, load(cases[c], "guid2lid", NULL), 0, f->neps);
		fab_free(f);
	}
}

/* --- bad input ------------------------------------------------------------------ */

/*
 * One bad input made from a fixture of the "mixed" case: @from replaced by
 * @to; with @to NULL, the fixture cut right after @from; with @from NULL,
 * the text @to alone. The error must start with @where and hold @needle.
 */
struct bad {
	const char *from, *to, *where, *needle;
};

static void run_bad(enum which w, const char *file, const struct bad *b, size_t n)
{
	char *full = load("mixed", file, NULL), *t;

	for (size_t i = 0; i < n; i++) {
		if (!b[i].from)
			t = strdup(b[i].to);
		else if (b[i].to)
			t = replaced(full, b[i].from, b[i].to, 0);
		else
			t = strndup(full, (size_t)(strstr(full, b[i].from) - full) + strlen(b[i].from));
		assert_non_null(t);
		fails(w, t, b[i].where, b[i].needle);
		free(t);
	}
	free(full);
}

#define NBAD(b) (sizeof(b) / sizeof((b)[0]))
#define HEAD "Unicast lids [0-8] of switch Lid 2 guid 0x0000000000200000 ('S1'):\n"
#define SW3 "Lid 3 guid 0x0000000000200001"

static void test_bad_lfts(void **state)
{
	static const struct bad b[] = {
		/* truncated: within a block, between blocks, within a line, empty */
		{ "0x0004 005 # Channel Adapter portguid 0x0000000000100002: 'H1'\n", NULL,
		  "bad.dump:5:", "expected \"N lids dumped\" closing the block of switch"
		  " 0x0000000000200000 (line 1), found the end of the file: the file is truncated" },
		{ "8 lids dumped\nUnicast", "Unicast", "bad.dump:10:", "(line 1), found a new block" },
		{ "'S2'\n0x00", NULL, "bad.dump:5:",
		  "expected a decimal output port (0 to 255) after LID 0x0000" },
		{ NULL, "", "bad.dump:0:", "expected at least one \"Unicast lids [...]\" block" },
		/* garbage */
		{ "0x0003 005", "hello world", "bad.dump:4:", "expected \"Unicast lids [...]\","
		  " \"0xLID PORT\" or \"N lids dumped\", found \"hello world # Switch" },
		{ NULL, "0x0001 001 # x\n", "bad.dump:1:", "header before the entry" },
		{ NULL, "8 lids dumped\n", "bad.dump:1:", "outside any" },
		{ NULL, "Multicast mlids [0xc000-0xc000] of switch guid 0x0000000000200000\n",
		  "bad.dump:1:", "found a multicast dump" },
		{ NULL, "\x7f" "ELF\x02\x01\x01\xff\xfe\n", "bad.dump:1:", "found \"?ELF" },
		/* unknown switch, a CA's GUID, malformed GUIDs */
		{ SW3, "Lid 3 guid 0x00000000002000ff", "bad.dump:11:",
		  "unknown switch GUID 0x00000000002000ff" },
		{ SW3, "Lid 3 guid 0x0000000000100000", "bad.dump:11:",
		  "expected a switch GUID, found 0x0000000000100000 of CA \"H1\"" },
		{ SW3, "Lid 3 guid 0x", "bad.dump:11:", "switch GUID of up to 16 hex digits" },
		{ SW3, "Lid 3 guid 0x00000000000000000200001", "bad.dump:11:", "up to 16 hex" },
		/* port beyond the port count (255 means no route and is fine) */
		{ "0x0003 005", "0x0003 009", "bad.dump:4:", "expected a port of 0 to 8 (switch"
		  " 0x0000000000200000 has 8 ports), found port 9 for LID 0x0003" },
		/* LID beyond the table */
		{ "0x0008 007", "0x0009 007", "bad.dump:9:",
		  "expected a LID in the block's range [0-8], found LID 0x0009" },
		{ "[0-8] of switch Lid 2", "[0-49152] of switch Lid 2", "bad.dump:1:",
		  "expected a LID range \"[LO-HI]\" with LO <= HI <= 0xbfff" },
		{ "[0-8] of switch Lid 2", "[5-3] of switch Lid 2", "bad.dump:1:", "LO <= HI" },
		/* malformed numbers */
		{ NULL, HEAD "0xZZ 001\n", "bad.dump:2:", "expected a LID of 1 to 4 hex digits" },
		{ NULL, HEAD "0x12345 001\n", "bad.dump:2:", "expected a LID of 1 to 4 hex" },
		{ NULL, HEAD "0x0001 -01\n", "bad.dump:2:", "expected a decimal output port" },
		{ NULL, HEAD "0x0001 256\n", "bad.dump:2:", "expected a decimal output port" },
		{ NULL, HEAD "0x0001 0x1\n", "bad.dump:2:", "expected a decimal output port" },
		{ NULL, HEAD "0x0001 001\n1 lidz dumped\n", "bad.dump:3:", "found \"1 lidz dumped\"" },
		/* duplicate entries and blocks, counts that do not match */
		{ "0x0003 005", "0x0001 001", "bad.dump:4:",
		  "found LID 0x0001 a second time for switch 0x0000000000200000" },
		{ SW3, "Lid 3 guid 0x0000000000200000", "bad.dump:11:",
		  "found a second block of switch 0x0000000000200000 (first at line 1)" },
		{ "8 lids dumped", "5 lids dumped", "bad.dump:10:",
		  "expected \"8 lids dumped\", found 5: the count does not match the block's entries" },
		{ NULL, HEAD "0x0001 001\n0x0002 000\n3 lids dumped\n", "bad.dump:4:",
		  "expected \"2 lids dumped\" (the block's entries) or \"8 lids dumped\" (its top"
		  " LID), found 3" },
	};
	/* ibroute counts the entries: one lost is noticed */
	static const struct bad ibroute[] = {
		{ "0x0003 005 : (Switch portguid 0x0000000000200001: 'S2')\n", "", "bad.dump:35:",
		  "expected \"7 valid lids dumped\", found 8" },
	};
	static const char nul[] = HEAD "0x00\0\x01\xff\n";

	(void)state;
	run_bad(LFTS, "opensm-lfts.dump", b, NBAD(b));
	run_bad(LFTS, "dump_fts.out", ibroute, NBAD(ibroute));
	fails_len(LFTS, nul, sizeof(nul) - 1, "bad.dump:2:", "binary data (NUL byte)");
}

static void test_bad_fdbs(void **state)
{
	static const struct bad b[] = {
		{ "Optimal\n", NULL, "bad.fdbs:2:", "expected LID entries for switch"
		  " 0x0000000000200000 (line 1), found the end of the file: the file is truncated" },
		{ "0x0003 : ", NULL, "bad.fdbs:5:",
		  "expected a decimal port (0 to 255) or UNREACHABLE for LID 0x0003" },
		{ NULL, "", "bad.fdbs:0:", "expected at least one \"dump_ucast_routes: Switch\"" },
		{ "0x0003 : 005  : 01   : yes", "garbage", "bad.fdbs:5:", "found \"garbage\"" },
		{ NULL, "0x0001 : 001  : 01   : yes\n", "bad.fdbs:1:", "before the first entry" },
		{ "Switch 0x0000000000200001", "Switch 0x0000000000abcdef", "bad.fdbs:11:",
		  "expected a switch of the fabric, found unknown GUID 0x0000000000abcdef" },
		{ "Switch 0x0000000000200001", "Switch 0x0000000000100003", "bad.fdbs:11:",
		  "found CA GUID 0x0000000000100003" },
		{ "Switch 0x0000000000200001", "Switch 0x000000000020000g", "bad.fdbs:11:",
		  "expected a switch GUID" },
		{ "0x0003 : 005  :", "0x0003 : 010  :", "bad.fdbs:5:", "expected a port of 0 to 8"
		  " (switch 0x0000000000200000 has 8 ports), found port 10 for LID 0x0003" },
		{ "0x0008 : 007  : 02   : yes\n", "0x0008 : 007\n0xC000 : 001\n", "bad.fdbs:11:",
		  "expected a unicast LID (1 to 0xbfff), found 0xc000" },
		{ "0x0004 : 005  :", "0x0003 : 005  :", "bad.fdbs:6:", "expected LID 0x0004 (LIDs"
		  " ascend from 1 without gaps or repeats), found a second LID 0x0003" },
		{ "0x0003 : 005  : 01   : yes\n", "", "bad.fdbs:5:",
		  "expected LID 0x0003 (LIDs ascend from 1 without gaps or repeats), found LID 0x0004" },
		{ "Switch 0x0000000000200001", "Switch 0x0000000000200000", "bad.fdbs:11:",
		  "second block of switch 0x0000000000200000 (first at line 1)" },
		{ "0x0003 : 005", "0x0003 : x05", "bad.fdbs:5:", "expected a decimal port" },
		{ "0x0003 : 005", "0x0003 : 0005", "bad.fdbs:5:", "expected a decimal port" },
		{ "0x0003 : 005", "0x0003 - 005", "bad.fdbs:5:", "expected \" : \" after LID 0x0003" },
		{ "0x0003 : 005", "0x00003 : 005", "bad.fdbs:5:", "expected a LID of 1 to 4 hex" },
	};
	static const char nul[] = "dump_ucast_routes: Switch 0x0000000000200000\n\0\0";

	(void)state;
	run_bad(FDBS, "opensm.fdbs", b, NBAD(b));
	fails_len(FDBS, nul, sizeof(nul) - 1, "bad.fdbs:2:", "binary data");
}

#define SW2 "{ SW Ports:08 SystemGUID:0000000000200001 NodeGUID:0000000000200001"

static void test_bad_subnet(void **state)
{
	static const struct bad b[] = {
		/* truncated in a line, empty */
		{ "{H2", NULL, "bad.lst:4:", "expected a description \"{...}\" followed by"
		  " \"LID:\" in the second record" },
		{ "{S1} LID:0002 PN:01 }", NULL, "bad.lst:1:", "expected \"PHY=\"" },
		{ NULL, "", "bad.lst:0:", "expected link records" },
		{ NULL, "\n# nothing\n", "bad.lst:2:", "found none" },
		/* garbage */
		{ SW2, "garbage", "bad.lst:2:", "expected \"{\" in the second record" },
		{ NULL, "{ XX Ports:08 }\n", "bad.lst:1:", "expected node type SW, CA or Rt" },
		{ NULL, "\x89PNG\r\n\x1a\n", "bad.lst:1:", "expected \"{\" in the first record" },
		/* port beyond the port count, LID beyond the unicast range */
		{ "{S1} LID:0002 PN:05 }", "{S1} LID:0002 PN:09 }", "bad.lst:5:",
		  "expected 1 to 254 ports and a port number PN within them in the first record,"
		  " found Ports:08 PN:09" },
		{ "{S1} LID:0002 PN:05 }", "{S1} LID:0002 PN:00 }", "bad.lst:5:", "PN:00" },
		{ "{H2} LID:0006", "{H2} LID:C000", "bad.lst:4:",
		  "expected a unicast LID (0 to 0xbfff) in the second record, found LID:C000" },
		/* malformed numbers and words */
		{ "Ports:02", "Ports:0G", "bad.lst:1:",
		  "expected 1 to 2 hex digits after \"Ports:\" in the first record" },
		{ "NodeGUID:0000000000100000", "NodeGUID:00000000001000000", "bad.lst:1:",
		  "expected 1 to 16 hex digits after \"NodeGUID:\"" },
		{ "NodeGUID:0000000000100000", "NodeGUID:0000000000000000", "bad.lst:1:",
		  "expected a node GUID in the first record, found 0" },
		{ "PHY=4x", "PHY=5x", "bad.lst:1:", "expected \"PHY=\" and a width" },
		{ "LOG=ACT", "LOG=UP", "bad.lst:1:", "expected \"LOG=\"" },
		{ "SPD=2.5", "SPD=2.5 extra", "bad.lst:1:", "expected \"SPD=\" and a speed" },
		/* the same node twice, differently; a port with two LIDs; a port linked twice */
		{ SW2, "{ SW Ports:10 SystemGUID:0000000000200001 NodeGUID:0000000000200001",
		  "bad.lst:5:", "expected node 0x0000000000200001 to be the SW with 16 ports of"
		  " line 2, found a SW with 8 ports in the second record" },
		{ "{S2} LID:0003 PN:01 } PHY", "{S2} LID:0009 PN:01 } PHY", "bad.lst:5:",
		  "expected LID:0009 for this port of node 0x0000000000200001 as before, found"
		  " LID:0003" },
		{ "{S2} LID:0003 PN:05 } PHY", "{S2} LID:0003 PN:07 } PHY", "bad.lst:",
		  "is linked twice" },
	};
	char *full = load("mixed", "opensm-subnet.lst", NULL);
	char *t = replaced(full, "{host three} LID:0007", "{host three} LID:0006", 1);

	(void)state;
	run_bad(SUBNET, "opensm-subnet.lst", b, NBAD(b));
	/* two ports with one LID */
	fails(SUBNET, t, "bad.lst:9:", "expected each LID on one port, found LID:0006 of node"
	      " 0x0000000000100005 in the second record already given at line 4");
	fails_len(SUBNET, "{ CA\0\0\0", 7, "bad.lst:1:", "binary data");
	free(t);
	free(full);
}

#define G6 "0x0000000000100006 0x0007 0x0007"

static void test_bad_guid2lid(void **state)
{
	static const struct bad b[] = {
		{ "0x0000000000100006 0x0007", NULL, "bad.g2l:3:", "expected a base and a top LID" },
		{ G6, "what is this", "bad.g2l:3:",
		  "expected a port GUID \"0x\" and 1 to 16 hex digits at the start of the line" },
		{ NULL, "0x00000000001000060 0x0007 0x0007\n", "bad.g2l:1:", "1 to 16 hex digits" },
		{ NULL, "0x10 0x0007 0x0007 0x9\n", "bad.g2l:1:", "end of the line" },
		{ NULL, "0x10 0x00007 0x0007\n", "bad.g2l:1:", "(\"0x\" and 1 to 4 hex digits" },
		{ NULL, "0x10 7 7\n", "bad.g2l:1:", "expected a base and a top LID" },
		{ NULL, "0x0 0x0007 0x0007\n", "bad.g2l:1:", "expected a port GUID, found GUID 0" },
		{ NULL, "0x10 0x0000 0x0000\n", "bad.g2l:1:", "1 <= base <= top" },
		{ NULL, "0x10 0x0008 0x0007\n", "bad.g2l:1:", "found 0x0008 0x0007" },
		{ NULL, "0x10 0xc000 0xc000\n", "bad.g2l:1:", "<= 0xbfff" },
		{ NULL, "0x10 0x0003 0x0004\n", "bad.g2l:1:",
		  "expected a LID range of 2^LMC LIDs (LMC 0 to 7) aligned to its size, found"
		  " 0x0003-0x0004" },
		{ NULL, "0x10 0x0004 0x0006\n", "bad.g2l:1:", "2^LMC LIDs" },
		{ NULL, "0x10 0x0100 0x01ff\n", "bad.g2l:1:", "LMC 0 to 7" },
		{ G6, "0x0000000000100004 0x0009 0x0009", "bad.g2l:3:",
		  "expected each port GUID once, found 0x0000000000100004 again (first at line 1)" },
		{ G6, "0x0000000000100006 0x0006 0x0006", "bad.g2l:3:",
		  "expected each LID to belong to one port, found LID 0x0006 again (first at line 1)" },
		{ NULL, "0x10 0x1 0x1\n\xff\xfe\x01\n", "bad.g2l:2:", "port GUID" },
	};

	(void)state;
	run_bad(GUID2LID, "guid2lid", b, NBAD(b));
	fails_len(GUID2LID, "0x10 0x1 0x1\n\0", 14, "bad.g2l:2:", "binary data");
}

/* Larger than FMT_SIZE_MAX: refused by size before anything is read. */
static void test_too_large(void **state)
{
	static const char *const where[] = { "bad.dump: ", "bad.fdbs: ", "bad.lst: ", "bad.g2l: " };
	size_t len = (size_t)FMT_SIZE_MAX + 1;
	char *big = malloc(len);

	(void)state;
	assert_non_null(big);
	memset(big, '\n', len);
	for (int w = SUBNET; w <= GUID2LID; w++)
		fails_len(w, big, len, where[w], "larger than the 64 MiB limit");
	/*
	 * LFT dumps may be 1 GiB: the size is checked before any byte is read,
	 * so a length past the limit is refused without touching the buffer.
	 */
	for (int w = LFTS; w <= FDBS; w++)
		fails_len(w, big, (size_t)FMT_DUMP_SIZE_MAX + 1, where[w], "larger than the 1024 MiB limit");
	fails_len(LFTS, big, len, "bad.dump:", "expected at least one");
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subnet_mixed),
		cmocka_unit_test(test_subnet_all_cases),
		cmocka_unit_test(test_subnet_order_free),
		cmocka_unit_test(test_subnet_matches_ibnetdiscover),
		cmocka_unit_test(test_subnet_forms),
		cmocka_unit_test(test_lfts_fdbs_switches_agree),
		cmocka_unit_test(test_lfts_values),
		cmocka_unit_test(test_lfts_write_as_opensm),
		cmocka_unit_test(test_lfts_round_trip),
		cmocka_unit_test(test_lfts_write_edges),
		cmocka_unit_test(test_other_layouts),
		cmocka_unit_test(test_guid2lid_fixtures),
		cmocka_unit_test(test_guid2lid_write),
		cmocka_unit_test(test_bad_lfts),
		cmocka_unit_test(test_bad_fdbs),
		cmocka_unit_test(test_bad_subnet),
		cmocka_unit_test(test_bad_guid2lid),
		cmocka_unit_test(test_too_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
