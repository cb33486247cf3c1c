/* SPDX-License-Identifier: MIT */
/*
 * OpenSM's dump files: opensm-lfts.dump, opensm.fdbs, opensm-subnet.lst
 * and guid2lid. The fixtures under tests/data/osm/ come from real OpenSM
 * runs under ibsim (see tests/data/osm/README.md); every fabric here is
 * built from its opensm-subnet.lst, and checked once against the
 * ibnetdiscover output of the same simulator.
 */
#include <errno.h>

#include "tests/unit/testutil.h"

static const char *const *const cases = tu_osm_cases;

/* --- opensm-subnet.lst ---------------------------------------------------------- */

static void test_subnet_mixed(void **state)
{
	struct fabric *f = tu_osm_subnet("mixed");
	uint32_t h1 = tu_node_named(f, "H1"), h4 = tu_node_named(f, "H4");
	uint32_t s1 = tu_node_named(f, "S1"), s2 = tu_node_named(f, "S2");
	uint32_t h3 = tu_node_named(f, "host three");

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
	for (size_t c = 0; c < TU_OSM_NCASES; c++) {
		struct fabric *f = tu_osm_subnet(cases[c]);

		assert_int_equal(f->nnodes, want[c].nodes);
		assert_int_equal(f->nswitches, want[c].sw);
		assert_int_equal(f->nlinks, want[c].links);
		assert_int_equal(f->sm_node, tu_node_named(f, want[c].sm));
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
	char *buf = tu_osm_load("fattree", "opensm-subnet.lst", &len), *copy = strdup(buf);
	char **lines = tu_chunks(copy, 0, &n), *rev = malloc(len + 1);
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
	for (size_t c = 0; c < TU_OSM_NCASES; c++) {
		struct fab_err err = { { 0 } };
		char rel[256];
		struct fabric *a = tu_osm_subnet(cases[c]), *b;

		snprintf(rel, sizeof(rel), "osm/%s/ibnetdiscover.out", cases[c]);
		b = fmt_topo_load(tu_data(rel), FMT_AUTO, NULL, &err);
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
	rt = tu_node_named(f, "gw {a} b");
	sw = tu_node_named(f, "spine 1");
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
	for (size_t c = 0; c < TU_OSM_NCASES; c++) {
		struct fabric *f = tu_osm_subnet(cases[c]);
		struct rt_routing *l = tu_osm_fixture(TU_LFTS, cases[c], "opensm-lfts.dump", f);
		struct rt_routing *d = tu_osm_fixture(TU_FDBS, cases[c], "opensm.fdbs", f);
		struct rt_routing *s = tu_osm_fixture(TU_LFTS, cases[c], "dump_fts.out", f);

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
	struct fabric *f = tu_osm_subnet("mixed");
	char *full = tu_osm_load("mixed", "opensm-lfts.dump", NULL);
	const char *cut = strstr(full, "Unicast lids [0-8] of switch Lid 5");
	size_t keep = cut ? (size_t)(cut - full) : 0;
	char *two = strndup(full, keep);
	struct rt_routing *r = fmt_lfts_parse(two, strlen(two), "two", f, &err);
	uint32_t s3 = f->nodes[tu_node_named(f, "S3")].swidx;

	assert_non_null(cut);
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
		struct fabric *f = tu_osm_subnet(want[i].c);
		struct rt_routing *r = tu_osm_fixture(TU_LFTS, want[i].c, "opensm-lfts.dump", f);
		int lmc = !strcmp(want[i].c, "mixed-lmc1");

		/* opensm-subnet.lst has no LMC: the fabric ends at 8 or 14, the dump at 8 or 15 */
		assert_int_equal(f->lid_top, lmc ? 14 : 8);
		assert_int_equal(r->lft_len, lmc ? 16 : 9);
		assert_int_equal(rt_lft_get(r, f->nodes[tu_node_named(f, want[i].sw)].swidx,
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
	for (size_t c = 0; c < TU_OSM_NCASES; c++) {
		struct fabric *f = tu_osm_subnet(cases[c]);
		struct rt_routing *r;

		tu_osm_pin_lids(f, cases[c]);
		r = tu_osm_fixture(TU_LFTS, cases[c], "opensm-lfts.dump", f);
		tu_same_chunks(tu_lfts_text(f, r, NULL),
			       tu_osm_load(cases[c], "opensm-lfts.dump", NULL), 1, f->nswitches);
		rt_free(r);
		fab_free(f);
	}
}

static void test_lfts_round_trip(void **state)
{
	(void)state;
	for (size_t c = 0; c < TU_OSM_NCASES; c++) {
		struct fab_err err = { { 0 } };
		struct fabric *f = tu_osm_subnet(cases[c]);
		struct rt_routing *r = tu_osm_fixture(TU_FDBS, cases[c], "opensm.fdbs", f), *back;
		size_t len;
		char *text = tu_lfts_text(f, r, &len);

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
	struct fabric *f = tu_osm_subnet("mixed");
	struct rt_routing *r = rt_new(f), *back;
	FILE *null = fopen("/dev/null", "w");
	size_t len;
	char *text;

	(void)state;
	rt_lft(r, 1)[0] = 0;
	rt_lft(r, 1)[1] = 5;
	text = tu_lfts_text(f, r, &len);
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

/* --- reading in pieces ------------------------------------------------------- */

/* @text fed in pieces of @piece bytes: the routing, or NULL with @err. */
static struct rt_routing *in_pieces(const struct fabric *f, const char *text, size_t len,
				    size_t piece, struct fab_err *err)
{
	struct fmt_lfts_reader *rd = fmt_lfts_begin("pieces", f, err);

	assert_non_null(rd);
	for (size_t at = 0; at < len; at += piece)
		fmt_lfts_feed(rd, text + at, len - at < piece ? len - at : piece);
	return fmt_lfts_end(rd);
}

static char *crlf(const char *text, size_t len, size_t *out_len)
{
	char *out = malloc(2 * len + 1);
	size_t n = 0;

	assert_non_null(out);
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n')
			out[n++] = '\r';
		out[n++] = text[i];
	}
	*out_len = n;
	return out;
}

/* Cut anywhere (in a line, between '\r' and '\n'), the text reads the same. */
static void test_lfts_pieces(void **state)
{
	static const size_t pieces[] = { 1, 2, 3, 7, 64, 4093 };

	(void)state;
	for (size_t c = 0; c < TU_OSM_NCASES; c++) {
		struct fab_err err = { { 0 } };
		struct fabric *f = tu_osm_subnet(cases[c]);
		struct rt_routing *whole, *r;
		size_t len, len2;
		char *text, *text2;

		tu_osm_pin_lids(f, cases[c]);
		whole = tu_osm_fixture(TU_LFTS, cases[c], "opensm-lfts.dump", f);
		text = tu_osm_load(cases[c], "opensm-lfts.dump", &len);
		text2 = crlf(text, len, &len2);
		for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
			r = in_pieces(f, i % 2 ? text2 : text, i % 2 ? len2 : len, pieces[i], &err);
			if (!r)
				fail_msg("%s in pieces of %zu: %s", cases[c], pieces[i], err.msg);
			assert_true(rt_equal_lfts(whole, r));
			assert_int_equal(r->lft_len, whole->lft_len);
			rt_free(r);
		}
		rt_free(whole);
		free(text);
		free(text2);
		fab_free(f);
	}
}

/* Errors name the same line whatever the pieces; a NUL byte in a later piece too. */
static void test_lfts_pieces_errors(void **state)
{
	struct fab_err whole = { { 0 } }, err = { { 0 } };
	struct fabric *f = tu_osm_subnet("mixed");
	size_t len;
	char *text = tu_osm_load("mixed", "opensm-lfts.dump", &len);
	char *bad = tu_replaced(text, "8 lids dumped", "7 lids dumped", 0);

	(void)state;
	assert_null(fmt_lfts_parse(bad, strlen(bad), "pieces", f, &whole));
	assert_null(in_pieces(f, bad, strlen(bad), 5, &err));
	assert_string_equal(err.msg, whole.msg);
	assert_non_null(strstr(err.msg, "pieces:"));
	text[len - 3] = '\0';	/* in the last line */
	assert_null(fmt_lfts_parse(text, len, "pieces", f, &whole));
	assert_null(in_pieces(f, text, len, 3, &err));
	assert_string_equal(err.msg, whole.msg);
	assert_non_null(strstr(err.msg, "binary data"));
	free(bad);
	free(text);
	fab_free(f);
}

/* A block naming LIDs past the tables grows them; earlier rows stay. */
static void test_lfts_grow(void **state)
{
	static const char text[] =
		"Unicast lids [0-8] of switch Lid 2 guid 0x0000000000200000 ('S1'):\n"
		"0x0001 001\n"
		"8 lids dumped\n"
		"Unicast lids [0-40] of switch Lid 3 guid 0x0000000000200001 ('S2'):\n"
		"0x0028 003\n"
		"40 lids dumped\n";
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_osm_subnet("mixed");
	uint32_t s1 = f->nodes[tu_node_named(f, "S1")].swidx;
	uint32_t s2 = f->nodes[tu_node_named(f, "S2")].swidx;

	(void)state;
	for (size_t piece = 1; piece <= sizeof(text); piece += 9) {
		struct rt_routing *r = in_pieces(f, text, sizeof(text) - 1, piece, &err);

		if (!r)
			fail_msg("%s", err.msg);
		assert_int_equal(r->lft_len, 41);
		assert_int_equal(rt_lft(r, s1)[1], 1);
		assert_int_equal(rt_lft(r, s1)[2], RT_NO_PORT);
		assert_int_equal(rt_lft(r, s2)[40], 3);
		rt_free(r);
	}
	fab_free(f);
}

struct bytes_seen {
	uint64_t done, total;
	unsigned calls;
};

static void on_bytes(void *arg, uint64_t done, uint64_t total)
{
	struct bytes_seen *b = arg;

	assert_true(done > b->done);
	b->done = done;
	b->total = total;
	b->calls++;
}

/* From a file, a stream that is no file, and a path; the bytes read are told. */
static void test_lfts_read_stream(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_osm_subnet("fattree");
	struct rt_routing *r, *back;
	struct bytes_seen seen = { 0 };
	size_t len;
	char *text, path[1100];
	FILE *fp = tmpfile(), *mem;

	(void)state;
	tu_osm_pin_lids(f, "fattree");
	r = tu_osm_fixture(TU_FDBS, "fattree", "opensm.fdbs", f);
	text = tu_lfts_text(f, r, &len);
	assert_non_null(fp);
	assert_int_equal(fmt_lfts_write(fp, f, r), 0);
	rewind(fp);
	back = fmt_lfts_read(fp, "tmp", f, on_bytes, &seen, len, &err);
	assert_non_null(back);
	assert_true(rt_equal_lfts(r, back));
	assert_int_equal(seen.done, len);
	assert_int_equal(seen.total, len);
	rt_free(back);
	fclose(fp);
	mem = fmemopen(text, len, "r");
	assert_non_null(mem);
	back = fmt_lfts_read(mem, "mem", f, NULL, NULL, 0, &err);
	assert_non_null(back);
	assert_true(rt_equal_lfts(r, back));
	rt_free(back);
	fclose(mem);
	snprintf(path, sizeof(path), "%s", tu_data("osm/fattree/opensm-lfts.dump"));
	back = fmt_lfts_load(path, f, NULL, NULL, &err);
	assert_non_null(back);
	assert_true(rt_equal_lfts(r, back));
	rt_free(back);
	assert_null(fmt_lfts_load(tu_data("osm/fattree/none"), f, NULL, NULL, &err));
	assert_non_null(strstr(err.msg, "cannot open"));
	assert_null(fmt_lfts_load(tu_data("osm/fattree"), f, NULL, NULL, &err));
	assert_non_null(strstr(err.msg, "is a directory"));
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
	struct fabric *f = tu_osm_subnet("mixed");
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
	for (size_t c = 0; c < TU_OSM_NCASES; c++) {
		struct fab_err err = { { 0 } };
		struct fabric *f = tu_osm_subnet(cases[c]);
		struct fab_lid_pin *pins = NULL;
		size_t len, n = 0;
		char *buf = tu_osm_load(cases[c], "guid2lid", &len);
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
	for (size_t c = 0; c < TU_OSM_NCASES; c++) {
		struct fabric *f = tu_osm_subnet(cases[c]);
		char *ours = NULL;
		size_t n = 0;
		FILE *mf = open_memstream(&ours, &n);

		tu_osm_pin_lids(f, cases[c]);
		assert_non_null(mf);
		assert_int_equal(fmt_guid2lid_write(mf, f), 0);
		fclose(mf);
		assert_non_null(strstr(ours, "\n\n0x"));	/* a blank line after each entry */
		tu_same_chunks(ours, tu_osm_load(cases[c], "guid2lid", NULL), 0, f->neps);
		fab_free(f);
	}
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
		cmocka_unit_test(test_lfts_pieces),
		cmocka_unit_test(test_lfts_pieces_errors),
		cmocka_unit_test(test_lfts_grow),
		cmocka_unit_test(test_lfts_read_stream),
		cmocka_unit_test(test_other_layouts),
		cmocka_unit_test(test_guid2lid_fixtures),
		cmocka_unit_test(test_guid2lid_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
