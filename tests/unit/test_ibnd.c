/* SPDX-License-Identifier: MIT */
/*
 * ibnetdiscover output: the real samples of tests/data/ibnd (captured from
 * ibsim, see tests/data/ibnd/README.md), the writer (golden text, rewriting
 * a sample gives back the tool's own lines), and write -> parse round trips.
 */
#include <inttypes.h>

#include "testutil.h"
#include "formats/fmt_topo.h"

/* Node GUIDs of tests/data/ibnd/mixed.net as ibsim numbers them. */
#define S1 0x200000ull
#define S2 0x200001ull
#define S3 0x200002ull
#define H1 0x100000ull
#define H2 0x100003ull
#define H3 0x100006ull
#define H4 0x100009ull
#define H5 0x10000bull
#define R1 0x300000ull

/* Port @pa of node @a is linked to port @pb of node @b, at @width and @speed. */
static void assert_link(const struct fabric *f, uint64_t a, unsigned pa, uint64_t b, unsigned pb,
			unsigned width, unsigned speed)
{
	const struct fab_port *x = tu_port(f, a, pa), *y = tu_port(f, b, pb);

	assert_int_equal(x->peer, tu_node(f, b));
	assert_int_equal(x->peer_port, pb);
	assert_int_equal(y->peer, tu_node(f, a));
	assert_int_equal(y->peer_port, pa);
	assert_int_equal(x->width, width);
	assert_int_equal(y->width, width);
	assert_int_equal(x->speed, speed);
	assert_int_equal(y->speed, speed);
}

/*
 * @b holds the same nodes as @a with the same attributes, ports, peers,
 * LIDs, descriptions and (with @rates) port GUIDs, widths and speeds.
 */
static void assert_same(const struct fabric *a, const struct fabric *b, int rates)
{
	assert_int_equal(a->nnodes, b->nnodes);
	assert_int_equal(a->nlinks, b->nlinks);
	assert_true(fab_topology_hash(a) == fab_topology_hash(b));
	for (uint32_t i = 0; i < a->nnodes; i++) {
		const struct fab_node *x = &a->nodes[i];
		uint32_t j = tu_node(b, x->guid);
		const struct fab_node *y = &b->nodes[j];

		assert_int_equal(x->type, y->type);
		assert_int_equal(x->nports, y->nports);
		assert_string_equal(fab_desc(a, i), fab_desc(b, j));
		if (rates) {
			assert_true(x->sysimg_guid == y->sysimg_guid);
			assert_int_equal(x->vendor_id, y->vendor_id);
			assert_int_equal(x->device_id, y->device_id);
		}
		for (unsigned p = 0; p <= x->nports; p++) {
			const struct fab_port *u = fab_port(a, i, p), *v = fab_port(b, j, p);

			assert_int_equal(u->lid, v->lid);
			assert_int_equal(u->lmc, v->lmc);
			assert_int_equal(u->peer == FAB_NONE, v->peer == FAB_NONE);
			if (u->peer != FAB_NONE) {
				assert_true(a->nodes[u->peer].guid == b->nodes[v->peer].guid);
				assert_int_equal(u->peer_port, v->peer_port);
			}
			if (rates && (p || x->type == FAB_SWITCH)) {
				assert_true(u->guid == v->guid);
				assert_int_equal(u->width, v->width);
				assert_int_equal(u->speed, v->speed);
			}
		}
	}
}

static struct fabric *reparse(const struct fabric *f, enum fmt_topo fmt)
{
	char *text = tu_write(f, fmt, NULL);
	struct fabric *g = tu_topo(text, fmt);

	free(text);
	return g;
}

/* --- the samples ----------------------------------------------------------- */

static void test_mixed_counts(void **state)
{
	struct fabric *f = tu_load("ibnd/mixed.txt", FMT_AUTO);

	(void)state;
	assert_int_equal(f->nnodes, 9);
	assert_int_equal(f->nswitches, 3);
	assert_int_equal(tu_count_type(f, FAB_SWITCH), 3);
	assert_int_equal(tu_count_type(f, FAB_CA), 5);
	assert_int_equal(tu_count_type(f, FAB_ROUTER), 1);
	assert_int_equal(f->nlinks, 14);
	assert_int_equal(f->neps, 3 + 8);	/* switch port 0s, linked CA and router ports */
	assert_int_equal(f->nodes[tu_node(f, S1)].nports, 12);
	assert_int_equal(f->nodes[tu_node(f, H4)].nports, 1);
	assert_int_equal(f->nodes[tu_node(f, R1)].nports, 2);
	fab_free(f);
}

static void test_mixed_links(void **state)
{
	struct fabric *f = tu_load("ibnd/mixed.txt", FMT_IBND);

	(void)state;
	/* three parallel links S1-S2, the third one 1x */
	assert_link(f, S1, 7, S2, 7, FAB_W_4X, FAB_S_SDR);
	assert_link(f, S1, 8, S2, 8, FAB_W_4X, FAB_S_SDR);
	assert_link(f, S1, 9, S2, 9, FAB_W_1X, FAB_S_SDR);
	/* two S2-S3 at QDR, one S1-S3 at DDR */
	assert_link(f, S2, 11, S3, 11, FAB_W_4X, FAB_S_QDR);
	assert_link(f, S2, 12, S3, 12, FAB_W_4X, FAB_S_QDR);
	assert_link(f, S1, 10, S3, 10, FAB_W_4X, FAB_S_DDR);
	/* h1: both ports on S1; h3: one port on S1, one on S3 */
	assert_link(f, H1, 1, S1, 1, FAB_W_4X, FAB_S_SDR);
	assert_link(f, H1, 2, S1, 2, FAB_W_4X, FAB_S_SDR);
	assert_link(f, H3, 1, S1, 3, FAB_W_4X, FAB_S_SDR);
	assert_link(f, H3, 2, S3, 1, FAB_W_4X, FAB_S_SDR);
	/* h2: port 1 at 12x QDR, port 2 unlinked */
	assert_link(f, H2, 1, S2, 1, FAB_W_12X, FAB_S_QDR);
	assert_false(fab_port_linked(f, tu_node(f, H2), 2));
	assert_link(f, H5, 1, S3, 3, FAB_W_1X, FAB_S_SDR);
	assert_link(f, R1, 1, S3, 2, FAB_W_4X, FAB_S_SDR);
	assert_false(fab_port_linked(f, tu_node(f, R1), 2));
	fab_free(f);
}

static void test_mixed_ids(void **state)
{
	struct fabric *f = tu_load("ibnd/mixed.txt", FMT_IBND);
	const struct fab_node *r = &f->nodes[tu_node(f, R1)];
	unsigned count;

	(void)state;
	/* port GUIDs, as in the parentheses */
	assert_true(tu_port(f, H3, 1)->guid == 0x100007);
	assert_true(tu_port(f, H3, 2)->guid == 0x100008);
	assert_true(tu_port(f, R1, 1)->guid == 0x300001);
	assert_true(tu_port(f, S2, 5)->guid == S2);
	/* LIDs: switches on port 0, CAs and routers per port */
	assert_int_equal(tu_port(f, S1, 0)->lid, 1);
	assert_int_equal(tu_port(f, S2, 0)->lid, 3);
	assert_int_equal(tu_port(f, S3, 0)->lid, 6);
	assert_int_equal(tu_port(f, H1, 1)->lid, 2);
	assert_int_equal(tu_port(f, H1, 2)->lid, 5);
	assert_int_equal(tu_port(f, R1, 1)->lid, 4);
	assert_int_equal(tu_port(f, H5, 1)->lid, 11);
	assert_int_equal(tu_port(f, H5, 1)->lmc, 0);
	assert_int_equal(fab_ep_by_lid(f, 9), fab_ep_by_port_guid(f, 0x100008));
	assert_int_equal(f->lid_top, 11);
	/* descriptions, header lines */
	assert_string_equal(fab_desc(f, tu_node(f, S3)), "S3");
	assert_int_equal(fab_node_by_desc(f, "h2", &count), tu_node(f, H2));
	assert_int_equal(count, 1);
	assert_true(r->sysimg_guid == R1);
	assert_int_equal(r->vendor_id, 0);
	assert_int_equal(r->device_id, 0);
	assert_true(f->nodes[tu_node(f, H4)].sysimg_guid == H4);
	fab_free(f);
}

static void test_lmc2(void **state)
{
	struct fabric *f = tu_load("ibnd/mixed-lmc2.txt", FMT_AUTO);
	struct fabric *g = tu_load("ibnd/mixed.txt", FMT_AUTO);

	(void)state;
	assert_true(fab_topology_hash(f) == fab_topology_hash(g));
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_node *n = &f->nodes[f->eps[e].node];
		unsigned lid = fab_ep_lid(f, e);

		assert_int_not_equal(lid, 0);
		assert_int_equal(fab_ep_lmc(f, e), n->type == FAB_SWITCH ? 0 : 2);
		if (n->type != FAB_SWITCH) {
			assert_int_equal(lid % 4, 0);
			assert_int_equal(fab_ep_by_lid(f, lid + 3), e);
		}
	}
	assert_int_equal(tu_port(f, H2, 1)->lid, 24);
	assert_int_equal(tu_port(f, H5, 1)->lid, 40);
	assert_int_equal(fab_ep_by_lid(f, 43), fab_ep_by_port_guid(f, 0x10000c));
	assert_int_equal(tu_port(f, S3, 0)->lid, 20);
	assert_int_equal(tu_port(f, S3, 0)->lmc, 0);
	fab_free(f);
	fab_free(g);
}

static void test_fattree(void **state)
{
	struct fabric *f = tu_load("ibnd/fattree.txt", FMT_AUTO);
	unsigned leaves = 0, spines = 0;

	(void)state;
	assert_int_equal(f->nnodes, 40);
	assert_int_equal(f->nswitches, 8);
	assert_int_equal(tu_count_type(f, FAB_CA), 32);
	assert_int_equal(f->nlinks, 64);
	assert_int_equal(f->neps, 40);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t n = f->switches[s];
		unsigned up = 0, down = 0;

		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *x = fab_port(f, n, p);

			assert_int_not_equal(x->peer, FAB_NONE);
			if (f->nodes[x->peer].type == FAB_CA)
				down++;
			else
				up++;
		}
		if (f->nodes[n].nports == 16) {
			leaves++;
			assert_int_equal(down, 8);
			assert_int_equal(up, 8);
		} else {
			spines++;
			assert_int_equal(up, 8);
		}
	}
	assert_int_equal(leaves, 4);
	assert_int_equal(spines, 4);
	fab_free(f);
}

/* --- writer ---------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of @text that are not comments, sorted; the caller frees. */
static char **sorted_lines(char *text, size_t *n)
{
	char **v = calloc(strlen(text) + 1, sizeof(*v));
	char *save = NULL;

	assert_non_null(v);
	*n = 0;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (l[0] != '#')
			v[(*n)++] = l;
	qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

static char *slurp(const char *path)
{
	struct fab_err err = { { 0 } };
	char *buf;
	size_t len;

	if (fmt_read_file(path, &buf, &len, &err))
		fail_msg("%s", err.msg);
	return buf;
}

/* Rewriting a real sample gives back the tool's own lines (in another order). */
static void rewrite_sample(const char *rel)
{
	struct fabric *f = tu_load(rel, FMT_IBND);
	char *want = slurp(tu_data(rel)), *got = tu_write(f, FMT_IBND, NULL);
	size_t nw, ng;
	char **w = sorted_lines(want, &nw), **g = sorted_lines(got, &ng);

	assert_int_equal(nw, ng);
	for (size_t i = 0; i < nw; i++)
		assert_string_equal(w[i], g[i]);
	free(w);
	free(g);
	free(want);
	free(got);
	fab_free(f);
}

static void test_rewrite_samples(void **state)
{
	(void)state;
	rewrite_sample("ibnd/mixed.txt");
	rewrite_sample("ibnd/mixed-lmc2.txt");
	rewrite_sample("ibnd/fattree.txt");
	rewrite_sample("ibsim/net.2sw2path4hca2port.txt");
}

static void roundtrip(const char *rel)
{
	struct fabric *f = tu_load(rel, FMT_AUTO), *g, *h;
	char *a, *b;

	g = reparse(f, FMT_IBND);
	assert_same(f, g, 1);
	/* the ibsim format keeps the graph, LIDs and descriptions */
	h = reparse(f, FMT_IBSIM);
	assert_same(f, h, 0);
	/* deterministic: parse(write(f)) writes the same bytes as f */
	a = tu_write(f, FMT_IBND, NULL);
	b = tu_write(g, FMT_IBND, NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	a = tu_write(f, FMT_IBSIM, NULL);
	b = tu_write(h, FMT_IBSIM, NULL);
	assert_string_equal(a, b);
	free(a);
	free(b);
	fab_free(f);
	fab_free(g);
	fab_free(h);
}

static void test_roundtrip(void **state)
{
	(void)state;
	roundtrip("ibnd/mixed.txt");
	roundtrip("ibnd/mixed-lmc2.txt");
	roundtrip("ibnd/fattree.txt");
	roundtrip("ibsim/net.txt");
}

/* A fabric built by hand: one switch, a CA with two ports, a router. */
static struct fabric *tiny(void)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_new();
	struct fab_node_info sw = { .type = FAB_SWITCH, .guid = 0x2c90000000a0, .nports = 4,
				    .desc = "sw \"one\"", .vendor_id = 0x2c9, .device_id = 0xc738,
				    .sysimg_guid = 0x2c90000000a0 };
	struct fab_node_info ca = { .type = FAB_CA, .guid = 0x10, .nports = 2, .desc = "h1" };
	struct fab_node_info rt = { .type = FAB_ROUTER, .guid = 0x30, .nports = 1, .desc = "" };
	uint32_t s, c, r;

	assert_non_null(f);
	s = fab_node_add(f, &sw, &err);
	c = fab_node_add(f, &ca, &err);
	r = fab_node_add(f, &rt, &err);
	assert_int_not_equal(r, FAB_NONE);
	assert_int_equal(fab_link_add(f, s, 1, c, 1, &err), 0);
	assert_int_equal(fab_link_add(f, s, 3, c, 2, &err), 0);
	assert_int_equal(fab_link_add(f, s, 4, r, 1, &err), 0);
	fab_port(f, s, 0)->lid = 1;
	fab_port(f, c, 1)->lid = 4;
	fab_port(f, c, 1)->lmc = 1;
	fab_port(f, c, 2)->lid = 6;
	fab_port(f, s, 1)->width = fab_port(f, c, 1)->width = FAB_W_4X;
	fab_port(f, s, 1)->speed = fab_port(f, c, 1)->speed = FAB_S_EDR;
	fab_port(f, s, 3)->width = fab_port(f, c, 2)->width = FAB_W_12X;
	fab_port(f, s, 3)->speed = fab_port(f, c, 2)->speed = FAB_S_DDR;
	fab_port_set_guid(f, c, 2, 0x99);
	assert_int_equal(fab_finalize(f, &err), 0);
	return f;
}

static const char tiny_ibnd[] =
	"#\n# Topology file: generated by fabroute\n#\n"
	"# Initiated from node 00002c90000000a0 port 00002c90000000a0\n"
	"\nvendid=0x2c9\ndevid=0xc738\nsysimgguid=0x2c90000000a0\n"
	"switchguid=0x2c90000000a0(2c90000000a0)\n"
	"Switch\t4 \"S-00002c90000000a0\"\t\t# \"sw \"one\"\" base port 0 lid 1 lmc 0\n"
	"[1]\t\"H-0000000000000010\"[1](11) \t\t# \"h1\" lid 4 4xEDR\n"
	"[3]\t\"H-0000000000000010\"[2](99) \t\t# \"h1\" lid 6 12xDDR\n"
	"[4]\t\"R-0000000000000030\"[1](31) \t\t# \"RT-0000000000000030\" lid 0 ?????\n"
	"\nvendid=0x0\ndevid=0x0\ncaguid=0x10\n"
	"Ca\t2 \"H-0000000000000010\"\t\t# \"h1\"\n"
	"[1](11) \t\"S-00002c90000000a0\"[1]\t\t# lid 4 lmc 1 \"sw \"one\"\" lid 1 4xEDR\n"
	"[2](99) \t\"S-00002c90000000a0\"[3]\t\t# lid 6 lmc 0 \"sw \"one\"\" lid 1 12xDDR\n"
	"\nvendid=0x0\ndevid=0x0\nrtguid=0x30\n"
	"Rt\t1 \"R-0000000000000030\"\t\t# \"RT-0000000000000030\"\n"
	"[1](31) \t\"S-00002c90000000a0\"[4]\t\t# lid 0 lmc 0 \"sw \"one\"\" lid 1 ?????\n";

/* Descriptions with quotes cannot name nodes: GUID-based ids, quotes turned to '. */
static const char tiny_ibsim[] =
	"# InfiniBand topology in ibsim's net format, generated by fabroute\n"
	"\ndevid=0xc738\nswitchguid=0x00002c90000000a0\n"
	"Switch\t4 \"sw-00002c90000000a0\"\t# \"sw 'one'\" lid 1 lmc 0\n"
	"[1]\t\"ca-0000000000000010\"[1]\te=2\n"
	"[3]\t\"ca-0000000000000010\"[2]\tw=8 s=2\n"
	"[4]\t\"rt-0000000000000030\"[1]\n"
	"\ndevid=0x0\ncaguid=0x0000000000000010\n"
	"Hca\t2 \"ca-0000000000000010\"\t# \"h1\"\n"
	"[1]\t\"sw-00002c90000000a0\"[1]\te=2\tlid 4 lmc 1\n"
	"[2]\t\"sw-00002c90000000a0\"[3]\tw=8 s=2\tlid 6 lmc 0\n"
	"\nrtguid=0x0000000000000030\n"
	"Rt\t1 \"rt-0000000000000030\"\t# \"RT-0000000000000030\"\n"
	"[1]\t\"sw-00002c90000000a0\"[4]\n";

static void test_golden(void **state)
{
	struct fabric *f = tiny(), *g;
	char *text = tu_write(f, FMT_IBND, NULL);

	(void)state;
	assert_string_equal(text, tiny_ibnd);
	free(text);
	text = tu_write(f, FMT_IBSIM, NULL);
	assert_string_equal(text, tiny_ibsim);
	free(text);
	/* reading the golden text back gives the fabric (quotes in descriptions too) */
	g = tu_topo(tiny_ibnd, FMT_AUTO);
	assert_same(f, g, 1);
	fab_free(g);
	fab_free(f);
}

/* --- what the parser accepts beyond the plain samples --------------------- */

static void test_variants(void **state)
{
	/* -g "[ext N]", -f "s= w= v=", a blank before "(guid)", upper-case hex,
	 * a link listed from one end only, "Hca", enhanced port 0, no comments */
	static const char text[] =
		"switchguid=0xA(a)\t\t# Chassis 1\n"
		"Switch\t8 \"S-000000000000000A\"\t\t# \"s\" enhanced port 0 lid 2 lmc 1\n"
		"[1][ext 3]\t\"H-0000000000000010\"[1] (11) \t\t# \"h\" lid 4 4xFDR10 s=4 w=2 v=4\n"
		"[2]\t\"H-0000000000000010\"[2](12)\n"
		"\n"
		"Hca\t2 \"H-0000000000000010\"\n"
		"[1](11) \t\"S-000000000000000a\"[1]\t\t# lid 4 lmc 0 \"s\" lid 2 4xFDR10 s=4 w=2 v=4\n";
	struct fabric *f = tu_topo(text, FMT_IBND);

	(void)state;
	assert_int_equal(f->nlinks, 2);
	assert_link(f, 0xa, 1, 0x10, 1, FAB_W_4X, FAB_S_FDR10);
	assert_true(tu_port(f, 0x10, 2)->guid == 0x12);
	assert_int_equal(tu_port(f, 0xa, 0)->lid, 2);
	assert_int_equal(tu_port(f, 0xa, 0)->lmc, 1);
	assert_string_equal(fab_desc(f, tu_node(f, 0x10)), "CA-0000000000000010");
	fab_free(f);
}

static void test_rate_names(void **state)
{
	static const char *const widths[] = { "1x", "2x", "4x", "8x", "12x" };
	static const char *const speeds[] = { "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR" };

	(void)state;
	for (unsigned w = 0; w < 5; w++)
		for (unsigned s = 0; s < 8; s++) {
			char text[600];
			struct fabric *f;

			snprintf(text, sizeof(text),
				 "Switch\t2 \"S-0000000000000001\"\n"
				 "[1]\t\"H-0000000000000002\"[1](3) \t\t# \"h\" lid 0 %s%s\n"
				 "\nCa\t1 \"H-0000000000000002\"\n"
				 "[1](3) \t\"S-0000000000000001\"[1]\t\t# lid 0 lmc 0 \"s\" lid 0 %s%s\n",
				 widths[w], speeds[s], widths[w], speeds[s]);
			f = tu_topo(text, FMT_IBND);
			assert_string_equal(fmt_width_name(tu_port(f, 1, 1)->width), widths[w]);
			assert_string_equal(fmt_speed_name(tu_port(f, 2, 1)->speed), speeds[s]);
			fab_free(f);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed_counts),
		cmocka_unit_test(test_mixed_links),
		cmocka_unit_test(test_mixed_ids),
		cmocka_unit_test(test_lmc2),
		cmocka_unit_test(test_fattree),
		cmocka_unit_test(test_rewrite_samples),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_rate_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
