/* SPDX-License-Identifier: MIT */
/*
 * ibsim's net format: ibsim's own example nets and our samples, each
 * compared with what ibnetdiscover reported when ibsim simulated it (same
 * graph, GUIDs, widths and speeds); GUID numbering and GUID lines; the
 * syntax ibsim accepts; the writer's round trip.
 */
#include <inttypes.h>

#include "testutil.h"

static const char *desc(const struct fabric *f, uint64_t guid)
{
	return fab_desc(f, tu_node(f, guid));
}

/*
 * @net parsed as ibsim's format describes the fabric ibnetdiscover found in
 * @ibnd when ibsim simulated @net: same graph (node GUIDs, types, port
 * counts, cabling), descriptions, ids, port GUIDs, widths and speeds.
 */
static void assert_as_discovered(const char *net, const char *ibnd)
{
	struct fabric *a = tu_load(net, FMT_IBSIM), *b = tu_load(ibnd, FMT_IBND);

	assert_true(fab_topology_hash(a) == fab_topology_hash(b));
	assert_int_equal(a->nnodes, b->nnodes);
	for (uint32_t i = 0; i < a->nnodes; i++) {
		const struct fab_node *x = &a->nodes[i], *y = &b->nodes[tu_node(b, x->guid)];
		uint32_t j = tu_node(b, x->guid);

		assert_string_equal(fab_desc(a, i), fab_desc(b, j));
		assert_true(x->sysimg_guid == y->sysimg_guid);
		assert_int_equal(x->vendor_id, y->vendor_id);
		assert_int_equal(x->device_id, y->device_id);
		for (unsigned p = 1; p <= x->nports; p++) {
			const struct fab_port *u = fab_port(a, i, p), *v = fab_port(b, j, p);

			if (u->peer == FAB_NONE)
				continue;
			assert_true(u->guid == v->guid);
			assert_int_equal(u->width, v->width);
			assert_int_equal(u->speed, v->speed);
		}
	}
	fab_free(a);
	fab_free(b);
}

static void test_examples_as_discovered(void **state)
{
	(void)state;
	assert_as_discovered("ibsim/net", "ibsim/net.txt");
	assert_as_discovered("ibsim/net.1", "ibsim/net.1.txt");
	assert_as_discovered("ibsim/net.2sw2path", "ibsim/net.2sw2path.txt");
	assert_as_discovered("ibsim/net.2sw2path4hca", "ibsim/net.2sw2path4hca.txt");
	assert_as_discovered("ibsim/net.2sw2path4hca2port", "ibsim/net.2sw2path4hca2port.txt");
	assert_as_discovered("ibnd/mixed.net", "ibnd/mixed.txt");
	assert_as_discovered("ibnd/fattree.net", "ibnd/fattree.txt");
}

/* ibsim's numbering: switches from 0x200000, CAs from 0x100000 reserving nports + 1. */
static void test_example_guids(void **state)
{
	struct fabric *f = tu_load("ibsim/net", FMT_AUTO);

	(void)state;
	assert_string_equal(desc(f, 0x200000), "Switch1");
	assert_string_equal(desc(f, 0x200001), "Switch2");
	assert_string_equal(desc(f, 0x100000), "Hca1");
	assert_string_equal(desc(f, 0x100003), "Hca2");
	assert_true(tu_port(f, 0x100003, 2)->guid == 0x100005);
	assert_int_equal(tu_port(f, 0x200000, 2)->peer, tu_node(f, 0x100003));
	assert_int_equal(tu_port(f, 0x200000, 2)->peer_port, 2);
	assert_int_equal(tu_port(f, 0x200000, 3)->width, FAB_W_4X);
	assert_int_equal(tu_port(f, 0x200000, 3)->speed, FAB_S_SDR);
	assert_true(f->nodes[tu_node(f, 0x200001)].sysimg_guid == 0x200001);
	assert_int_equal(f->nlinks, 4);
	fab_free(f);
}

/* ibsim reads ibnetdiscover output too: GUIDs then come from the GUID lines. */
static void test_reads_ibnd_output(void **state)
{
	struct fabric *a = tu_load("ibnd/mixed-lmc2.txt", FMT_IBSIM);
	struct fabric *b = tu_load("ibnd/mixed-lmc2.txt", FMT_IBND);

	(void)state;
	assert_true(fab_topology_hash(a) == fab_topology_hash(b));
	assert_int_equal(tu_port(a, 0x100003, 1)->lid, 24);
	assert_int_equal(tu_port(a, 0x100003, 1)->lmc, 2);
	assert_int_equal(tu_port(a, 0x200002, 0)->lid, 20);
	assert_string_equal(desc(a, 0x300000), "r1");
	/* ids are names here: the node is called by its quoted id */
	assert_int_equal(fab_node_by_desc(a, "S3", NULL), tu_node(a, 0x200002));
	fab_free(a);
	fab_free(b);
}

static void test_guid_lines(void **state)
{
	static const char text[] =
		"switchguid=0x1000\n"
		"Switch 4 \"a\"\n[1] \"c\"[1]\n[2] \"b\"[2]\n\n"
		"Switch 4 \"b\"\n[2] \"a\"[2]\n[3] \"d\"\n\n"
		"switchguid +0x10\n"
		"Switch 4 \"e\"\n\n"
		"hcaguids=500\n"
		"Hca 2 \"c\"\n[1] \"a\"[1]\n\n"
		"Ca 3 \"d\"\n[1] \"b\"[3]\n\n"
		"caguid +2\n"
		"Ca 1 \"f\"\n\n"
		"rtguid=0x40\n"
		"Rt 1 \"r\"\n\n"
		"Switch 4 \"g\"\n";
	struct fabric *f = tu_topo(text, FMT_IBSIM);

	(void)state;
	assert_string_equal(desc(f, 0x1000), "a");
	assert_string_equal(desc(f, 0x1001), "b");
	assert_string_equal(desc(f, 0x1010), "e");	/* base 0x1000 + 0x10 */
	assert_string_equal(desc(f, 0x1011), "g");
	assert_string_equal(desc(f, 500), "c");		/* decimal, as ibsim's strtoull */
	assert_string_equal(desc(f, 503), "d");		/* c reserved 500..502 */
	assert_string_equal(desc(f, 502), "f");		/* base 500 + 2 */
	assert_string_equal(desc(f, 0x40), "r");
	assert_true(tu_port(f, 503, 1)->guid == 504);
	/* "[3] "d"" without a peer port means port 1 */
	assert_int_equal(tu_port(f, 0x1001, 3)->peer, tu_node(f, 503));
	assert_int_equal(tu_port(f, 0x1001, 3)->peer_port, 1);
	fab_free(f);
}

static void test_descriptions_and_lids(void **state)
{
	static const char text[] =
		"# leading comment\n"
		"Switch\t8 \"S1\"\t# \"leaf one\" base port 0 lid 4 lmc 0\n"
		"# comment inside a record\n"
		"[1]\t\"H1\"[1]\n"
		"[2]\t\"H2\"[1]\n"
		"\n"
		"Switch 8 \"S2\" lid 8\n"
		"\n"
		"Hca 1 \"H1\" # host one lid 12\n"
		"[1] \"S1\"[1] lid 16 lmc 2\n"
		"   \n"
		"Hca 1 \"H2\"\n"
		"[1] \"S1\"[2] # lid 20 lmc 1 \"S1\" lid 4 4xSDR\n";
	struct fabric *f = tu_topo(text, FMT_IBSIM);

	(void)state;
	assert_string_equal(desc(f, 0x200000), "leaf one");
	assert_string_equal(desc(f, 0x200001), "S2");
	assert_string_equal(desc(f, 0x100000), "host one");	/* unquoted, ends at " lid " */
	assert_int_equal(tu_port(f, 0x200000, 0)->lid, 4);
	assert_int_equal(tu_port(f, 0x200001, 0)->lid, 8);
	assert_int_equal(tu_port(f, 0x100000, 1)->lid, 16);
	assert_int_equal(tu_port(f, 0x100000, 1)->lmc, 2);
	assert_int_equal(tu_port(f, 0x100002, 1)->lid, 20);	/* ibsim's first "lid " */
	assert_int_equal(tu_port(f, 0x100002, 1)->lmc, 1);
	fab_free(f);
}

/* width=, speed=, w=, s=, devid=: links run at the highest both ends enable. */
static void test_rates(void **state)
{
	static const char text[] =
		"width=9\nspeed=3\ndevid=0x1234\n"
		"Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"H3\"[1] w=2 s=7\n\n"
		"width=15\nspeed=7\ndevid=0\n"
		"Hca 1 \"H1\"\n[1] \"S1\"[1]\n\n"
		"Hca 1 \"H2\"\n[1] \"S1\"[2] w=1 s=1\n\n"
		"Hca 1 \"H3\"\n[1] \"S1\"[3]\n";
	struct fabric *f = tu_topo(text, FMT_IBSIM);

	(void)state;
	assert_int_equal(tu_port(f, 0x200000, 1)->width, FAB_W_12X);	/* 9 & 15 */
	assert_int_equal(tu_port(f, 0x200000, 1)->speed, FAB_S_DDR);	/* 3 & 7 */
	assert_int_equal(tu_port(f, 0x100000, 1)->width, FAB_W_12X);
	assert_int_equal(tu_port(f, 0x200000, 2)->width, FAB_W_1X);	/* 9 & 1 */
	assert_int_equal(tu_port(f, 0x200000, 2)->speed, FAB_S_SDR);	/* 3 & 1 */
	assert_int_equal(tu_port(f, 0x200000, 3)->width, FAB_W_4X);	/* 2 & 15 */
	assert_int_equal(tu_port(f, 0x200000, 3)->speed, FAB_S_QDR);	/* 7 & 7 */
	assert_int_equal(f->nodes[tu_node(f, 0x200000)].device_id, 0x1234);
	assert_int_equal(f->nodes[tu_node(f, 0x100000)].device_id, 0);
	fab_free(f);
}

static void test_writer_roundtrip(void **state)
{
	struct fabric *f = tu_load("ibnd/mixed-lmc2.txt", FMT_IBND), *g;
	char *text = tu_write(f, FMT_IBSIM, NULL);

	(void)state;
	/* named by description, GUID lines before each record */
	assert_non_null(strstr(text, "\nswitchguid=0x0000000000200002\nSwitch\t12 \"S3\"\tlid 20 lmc 0\n"));
	assert_non_null(strstr(text, "\n[1]\t\"S2\"[1]\tw=8 s=4\tlid 24 lmc 2\n"));
	assert_non_null(strstr(text, "\nrtguid=0x0000000000300000\nRt\t2 \"r1\"\n"));
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n"))
		assert_true(strlen(l) <= 255);
	free(text);
	text = tu_write(f, FMT_IBSIM, NULL);
	g = tu_topo(text, FMT_IBSIM);
	assert_true(fab_topology_hash(f) == fab_topology_hash(g));
	for (uint32_t i = 0; i < f->nnodes; i++) {
		uint32_t j = tu_node(g, f->nodes[i].guid);

		assert_string_equal(fab_desc(f, i), fab_desc(g, j));
		for (unsigned p = 0; p <= f->nodes[i].nports; p++) {
			assert_int_equal(fab_port(f, i, p)->lid, fab_port(g, j, p)->lid);
			assert_int_equal(fab_port(f, i, p)->lmc, fab_port(g, j, p)->lmc);
			assert_int_equal(fab_port(f, i, p)->width, fab_port(g, j, p)->width);
			assert_int_equal(fab_port(f, i, p)->speed, fab_port(g, j, p)->speed);
		}
	}
	free(text);
	fab_free(f);
	fab_free(g);
}

/* Duplicate or unusable descriptions: nodes are named by GUID instead. */
static void test_writer_guid_names(void **state)
{
	static const char text[] =
		"Switch 4 \"a\" # \"same\"\n[1] \"b\"[1]\n[2] \"c\"[1]\n\n"
		"Hca 1 \"b\" # \"same\"\n[1] \"a\"[1]\n\n"
		"Hca 1 \"c\" # \"H-0000000000000001\"\n[1] \"a\"[2]\n";
	struct fabric *f = tu_topo(text, FMT_IBSIM), *g;
	char *out = tu_write(f, FMT_IBSIM, NULL);

	(void)state;
	assert_non_null(strstr(out, "Switch\t4 \"sw-0000000000200000\"\t# \"same\"\n"));
	assert_non_null(strstr(out, "[2]\t\"ca-0000000000100002\"[1]\n"));
	g = tu_topo(out, FMT_IBSIM);
	assert_true(fab_topology_hash(f) == fab_topology_hash(g));
	assert_string_equal(desc(g, 0x100002), "H-0000000000000001");
	assert_string_equal(desc(g, 0x100000), "same");
	free(out);
	fab_free(f);
	fab_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples_as_discovered),
		cmocka_unit_test(test_example_guids),
		cmocka_unit_test(test_reads_ibnd_output),
		cmocka_unit_test(test_guid_lines),
		cmocka_unit_test(test_descriptions_and_lids),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_writer_roundtrip),
		cmocka_unit_test(test_writer_guid_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
