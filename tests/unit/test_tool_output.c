/* SPDX-License-Identifier: MIT */
/*
 * What the InfiniBand tools print, as the parsers must take it:
 * `ibnetdiscover -g` chassis lines, records without blank lines between
 * them, diagnostic lines among the records (skipped with a warning naming
 * the file and line, refused in strict mode), every link width and speed
 * (1x..12x, SDR..XDR) and ibsim's e= written back, opensm-subnet.lst
 * lines without SPD=. And naming nodes: a description several nodes share
 * is refused with their GUIDs, labels carry the GUID where the description
 * does not tell, node-name-map files rename nodes.
 */
#include "tests/unit/testutil.h"

#define SW_REC \
	"vendid=0x2c9\ndevid=0xcb20\nsysimgguid=0x248a070300f6c040\n" \
	"switchguid=0x248a070300f6c040(248a070300f6c040)\n" \
	"Switch\t36 \"S-248a070300f6c040\"\t\t# \"SwitchIB Mellanox Technologies\" base port 0 lid 3 lmc 0\n" \
	"[1]\t\"H-248a070300a5b3e0\"[1](248a070300a5b3e0) \t\t# \"h1 HCA-1\" lid 5 4xEDR\n"
#define CA_REC \
	"vendid=0x2c9\ndevid=0x1013\nsysimgguid=0x248a070300a5b3e3\ncaguid=0x248a070300a5b3e0\n" \
	"Ca\t1 \"H-248a070300a5b3e0\"\t\t# \"h1 HCA-1\"\n" \
	"[1](248a070300a5b3e0) \t\"S-248a070300f6c040\"[1]\t\t# lid 5 lmc 0 \"SwitchIB Mellanox Technologies\" lid 3 4xEDR\n"

struct warned {
	unsigned n;
	char last[512];
};

static void on_warn(void *arg, const char *msg)
{
	struct warned *w = arg;

	w->n++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
}

static struct fabric *parse_opts(const char *text, int strict, struct warned *w,
				 struct fab_err *err)
{
	struct fmt_opts o = { .strict = strict, .warn = on_warn, .arg = w };

	return fmt_topo_parse_opts(text, strlen(text), "dump.txt", FMT_AUTO, &o, err);
}

static void test_chassis_lines(void **state)
{
	static const char text[] =
		"#\n# Topology file: generated on Mon Jan  1 00:00:00 2024\n#\n"
		"\nChassis 1 (guid 0x8f104004120a8)\n"
		"\n# Spine Nodes\n"
		"vendid=0x8f1\ndevid=0x5a31\nsysimgguid=0x8f104004120a8\t\t# Chassis 1 (ISR9288)\n"
		"switchguid=0x8f104004120a9(8f104004120a9)\t# ISR9288/ISR9096 Voltaire sFB-12D 1 Chassis 1\n"
		"Switch\t24 \"S-0008f104004120a9\"\t\t# \"ISR9288 Voltaire sFB-12D\" base port 0 lid 4 lmc 0\n"
		"[1][ext 1]\t\"S-0008f104004120b0\"[19][ext 19]\t\t# \"ISR9288 Voltaire sLB-24D\" lid 5 4xDDR\n"
		"\n# Line Nodes\n"
		"vendid=0x8f1\ndevid=0x5a30\nsysimgguid=0x8f104004120a8\t\t# Chassis 1 (ISR9288)\n"
		"switchguid=0x8f104004120b0(8f104004120b0)\t# ISR9288/ISR9096 Voltaire sLB-24D 1 Chassis 1\n"
		"Switch\t24 \"S-0008f104004120b0\"\t\t# \"ISR9288 Voltaire sLB-24D\" base port 0 lid 5 lmc 0\n"
		"[19][ext 19]\t\"S-0008f104004120a9\"[1][ext 1]\t\t# \"ISR9288 Voltaire sFB-12D\" lid 4 4xDDR\n"
		"[1][ext 1]\t\"H-0002c9020021ab58\"[1](2c9020021ab59) \t\t# \"node1 HCA-1\" lid 6 4xDDR\n"
		"\n# Chassis Switches\n\n# Chassis CAs\n"
		"\nNon-Chassis Nodes\n"
		"\nvendid=0x2c9\ndevid=0x6274\nsysimgguid=0x2c9020021ab5b\ncaguid=0x2c9020021ab58\n"
		"Ca\t2 \"H-0002c9020021ab58\"\t\t# \"node1 HCA-1\"\n"
		"[1](2c9020021ab59) \t\"S-0008f104004120b0\"[1][ext 1]\t\t# lid 6 lmc 0 \"ISR9288 Voltaire sLB-24D\" lid 5 4xDDR\n";
	struct fabric *f = tu_topo(text, FMT_AUTO);

	(void)state;
	assert_int_equal(f->nnodes, 3);
	assert_int_equal(f->nlinks, 2);
	assert_int_equal(tu_port(f, 0x8f104004120b0ull, 19)->peer, tu_node(f, 0x8f104004120a9ull));
	assert_int_equal(tu_port(f, 0x2c9020021ab58ull, 1)->lid, 6);
	fab_free(f);
	/* a "Chassis" line that is not one is still an error */
	tu_topo_fails("Chassis one\n", FMT_IBND, "bad.net:1: expected a record line");
}

static void test_records_without_blank_lines(void **state)
{
	static const char text[] = SW_REC CA_REC;
	struct fabric *f = tu_topo(text, FMT_IBND);

	(void)state;
	assert_int_equal(f->nnodes, 2);
	assert_int_equal(f->nlinks, 1);
	assert_int_equal(tu_port(f, 0x248a070300a5b3e0ull, 1)->speed, FAB_S_EDR);
	fab_free(f);
}

static void test_diagnostic_lines(void **state)
{
	static const char text[] =
		"ibwarn: [3521] mad_rpc: _do_madrpc failed; dport (DR path slid 0; dlid 0; 0,1,13)\n"
		SW_REC
		"src/ibnetdisc.c:236; Failed to find 0x248a070300f6c040 port 2\n"
		"[2]\t\"H-248a070300a5b3f0\"[1](248a070300a5b3f0) \t\t# \"h2 HCA-1\" lid 7 4xEDR\n"
		"\n" CA_REC
		"ibnetdiscover: iberror: failed: discover failed\n"
		"\nCa\t1 \"H-248a070300a5b3f0\"\t\t# \"h2 HCA-1\"\n"
		"[1](248a070300a5b3f0) \t\"S-248a070300f6c040\"[2]\t\t# lid 7 lmc 0 \"s\" lid 3 4xEDR\n";
	struct fab_err err = { { 0 } };
	struct warned w = { 0 };
	struct fabric *f = parse_opts(text, 0, &w, &err);

	(void)state;
	assert_non_null(f);
	assert_int_equal(f->nlinks, 2);
	assert_int_equal(w.n, 3);
	assert_non_null(strstr(w.last, "dump.txt:17: skipped a diagnostic line"));
	assert_non_null(strstr(w.last, "ibnetdiscover: iberror: failed"));
	fab_free(f);
	/* strict: the first one is refused, with its line */
	w.n = 0;
	assert_null(parse_opts(text, 1, &w, &err));
	assert_non_null(strstr(err.msg, "dump.txt:1: expected topology, found a diagnostic line 'ibwarn:"));
	/* a line that is neither topology nor a diagnostic is an error either way */
	assert_null(parse_opts(SW_REC "hello world\n", 0, &w, &err));
	assert_non_null(strstr(err.msg, "dump.txt:7: expected a record line"));
	/* the recognised forms, and look-alikes that are not */
	assert_true(fmt_diag_line("ibwarn: [12] smp_query_status_via: failed"));
	assert_true(fmt_diag_line("ibpanic: [1] main: discover failed: Success"));
	assert_true(fmt_diag_line("[4711] mad_rpc: got status 0x1c"));
	assert_true(fmt_diag_line("../libibnetdisc/ibnetdisc.c:375; Error Occurred"));
	assert_true(fmt_diag_line("WARNING: port 3 of 0x2c9 is in INIT state"));
	assert_true(fmt_diag_line("-E- Failed to open port"));
	assert_false(fmt_diag_line("[1]\t\"S-0000000000000001\"[1]"));
	assert_false(fmt_diag_line("Switch\t8 \"S-0000000000000001\""));
	assert_false(fmt_diag_line("hello world"));
}

static void test_many_diagnostics(void **state)
{
	char *text = malloc(40 * 64 + sizeof(SW_REC CA_REC));
	struct fab_err err = { { 0 } };
	struct warned w = { 0 };
	struct fmt_opts o = { .warn = on_warn, .arg = &w };
	struct fabric *f;
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 40; i++)
		n += (size_t)sprintf(text + n, "ibwarn: [1] mad_rpc: timeout %d\n", i);
	strcpy(text + n, SW_REC "\n" CA_REC);
	f = fmt_topo_parse_opts(text, strlen(text), "d", FMT_AUTO, &o, &err);
	assert_non_null(f);
	assert_int_equal(o.skipped, 40);
	assert_int_equal(w.n, FMT_WARN_MAX + 1);
	assert_string_equal(w.last, "d: skipped 30 more lines like these");
	fab_free(f);
	free(text);
}

/* The ends of one link may say different things (the man page's example does). */
static void test_ends_disagree(void **state)
{
	static const char text[] =
		"Switch\t8 \"S-0000000000000001\"\n"
		"[1]\t\"S-0000000000000002\"[10]\t\t# \"b\" lid 6 1xSDR\n"
		"\nSwitch\t24 \"S-0000000000000002\"\n"
		"[10]\t\"S-0000000000000001\"[1]\t\t# \"a\" lid 3 4xSDR\n";
	struct fabric *f = tu_topo(text, FMT_IBND);

	(void)state;
	assert_int_equal(tu_port(f, 1, 1)->width, FAB_W_1X);
	assert_int_equal(tu_port(f, 2, 10)->width, FAB_W_4X);
	fab_free(f);
}

static void test_xdr_and_2x(void **state)
{
	static const char text[] =
		"Switch\t2 \"S-0000000000000001\"\n"
		"[1]\t\"H-0000000000000002\"[1](3) \t\t# \"h\" lid 0 2xXDR\n"
		"\nCa\t1 \"H-0000000000000002\"\n"
		"[1](3) \t\"S-0000000000000001\"[1]\t\t# lid 0 lmc 0 \"s\" lid 0 2xXDR\n";
	struct fabric *f = tu_topo(text, FMT_IBND);

	(void)state;
	assert_int_equal(tu_port(f, 1, 1)->width, FAB_W_2X);
	assert_int_equal(tu_port(f, 1, 1)->speed, FAB_S_XDR);
	assert_string_equal(fmt_speed_name(FAB_S_XDR), "XDR");
	fab_free(f);
}

/* Every speed and width goes to ibsim's format and comes back (FDR10, XDR nearest). */
static void test_ibsim_rates_written_back(void **state)
{
	static const unsigned speeds[] = { FAB_S_SDR, FAB_S_DDR, FAB_S_QDR, FAB_S_FDR10, FAB_S_FDR,
					   FAB_S_EDR, FAB_S_HDR, FAB_S_NDR, FAB_S_XDR };
	static const unsigned back[] = { FAB_S_SDR, FAB_S_DDR, FAB_S_QDR, FAB_S_QDR, FAB_S_FDR,
					 FAB_S_EDR, FAB_S_HDR, FAB_S_NDR, FAB_S_NDR };
	static const unsigned widths[] = { FAB_W_1X, FAB_W_2X, FAB_W_4X, FAB_W_8X, FAB_W_12X };
	const unsigned ns = sizeof(speeds) / sizeof(speeds[0]);
	struct fab_node_info sw = { .type = FAB_SWITCH, .guid = 0x100, .nports = 64, .desc = "s" };
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_new(), *g;
	unsigned fdr10, xdr, k = 0;
	uint32_t s = fab_node_add(f, &sw, &err);
	char *text;

	(void)state;
	for (unsigned i = 0; i < ns; i++)
		for (unsigned w = 0; w < 5; w++, k++) {
			struct fab_node_info ca = { .type = FAB_CA, .guid = 0x1000 + 0x10 * k, .nports = 1 };
			uint32_t c = fab_node_add(f, &ca, &err);

			assert_int_equal(fab_link_add(f, s, k + 1, c, 1, &err), 0);
			fab_port(f, s, k + 1)->speed = fab_port(f, c, 1)->speed = (uint16_t)speeds[i];
			fab_port(f, s, k + 1)->width = fab_port(f, c, 1)->width = (uint8_t)widths[w];
		}
	assert_int_equal(fab_finalize(f, &err), 0);
	assert_int_equal(fmt_ibsim_inexact(f, &fdr10, &xdr), 10);
	assert_int_equal(fdr10, 5);
	assert_int_equal(xdr, 5);
	text = tu_write(f, FMT_IBSIM, NULL);
	assert_non_null(strstr(text, "e=2"));
	g = tu_topo(text, FMT_IBSIM);
	k = 0;
	for (unsigned i = 0; i < ns; i++)
		for (unsigned w = 0; w < 5; w++, k++) {
			assert_int_equal(tu_port(g, 0x100, k + 1)->speed, back[i]);
			assert_int_equal(tu_port(g, 0x100, k + 1)->width, widths[w]);
		}
	free(text);
	fab_free(g);
	fab_free(f);
}

static void test_ibsim_extspeed(void **state)
{
	static const char text[] =
		"extspeed=2\n"
		"Switch\t8 \"s\"\n[1]\t\"h\"[1]\n[2]\t\"g\"[1]\te=7\n"
		"\nextspeed=0\n"
		"Hca\t1 \"h\"\n[1]\t\"s\"[1]\te=3\n"
		"\nHca\t1 \"g\"\n[1]\t\"s\"[2]\n";
	struct fabric *f = tu_topo(text, FMT_IBSIM);

	(void)state;
	assert_int_equal(tu_port(f, 0x200000, 1)->speed, FAB_S_EDR);	/* e: 2 & 3 */
	assert_int_equal(tu_port(f, 0x200000, 2)->speed, FAB_S_SDR);	/* e: 7 & 0, s: 1 & 1 */
	fab_free(f);
}

static void test_subnet_lst_without_speed(void **state)
{
	static const char text[] =
		"{ SW Ports:08 SystemGUID:a22029083222f0ff NodeGUID:0002c90109fb0000 PortGUID:0002c90109fb0000 VenID:000002C9 DevID:A87C0000 Rev:000000A0 {MT43132 Mellanox Technologies} LID:0002 PN:05 } "
		"{ SW Ports:08 SystemGUID:a22029083222f0ff NodeGUID:0002c90109fb0018 PortGUID:0002c90109fb0018 VenID:000002C9 DevID:0000 Rev:00000000 {MT43132 Mellanox Technologies} LID:000C PN:04 } PHY=4x LOG=ACT\n"
		"{ SW Ports:08 SystemGUID:a22029083222f0ff NodeGUID:0002c90109fb0018 PortGUID:0002c90109fb0018 VenID:000002C9 DevID:A87C0000 Rev:000000A0 {MT43132 Mellanox Technologies} LID:000C PN:04 } "
		"{ SW Ports:08 SystemGUID:a22029083222f0ff NodeGUID:0002c90109fb0000 PortGUID:0002c90109fb0000 VenID:000002C9 DevID:0000 Rev:00000000 {MT43132 Mellanox Technologies} LID:0002 PN:05 } PHY=4x LOG=ACT SPD=200\n";
	struct fab_err err = { { 0 } };
	struct fabric *f = fmt_subnet_parse(text, strlen(text), "subnet.lst", &err);

	(void)state;
	if (!f)
		fail_msg("%s", err.msg);
	assert_int_equal(f->nlinks, 1);
	/* the end whose line has no SPD= takes the other end's */
	assert_int_equal(tu_port(f, 0x0002c90109fb0000ull, 5)->speed, FAB_S_XDR);
	assert_int_equal(tu_port(f, 0x0002c90109fb0018ull, 4)->speed, FAB_S_XDR);
	assert_int_equal(tu_port(f, 0x0002c90109fb0018ull, 4)->width, FAB_W_4X);
	fab_free(f);
	/* the first line alone: the speed is unknown */
	f = fmt_subnet_parse(text, strchr(text, '\n') + 1 - text, "subnet.lst", &err);
	assert_non_null(f);
	assert_int_equal(tu_port(f, 0x0002c90109fb0000ull, 5)->speed, 0);
	fab_free(f);
}

/* --- naming nodes: ambiguous descriptions, labels, node-name-maps ------------ */

/* Six switches with the vendor's description (a real EDR tree's), two CAs. */
static struct fabric *same_names(void)
{
	struct fab_node_info sw = { .type = FAB_SWITCH, .nports = 36,
				    .desc = "SwitchIB Mellanox Technologies" };
	struct fab_node_info ca = { .type = FAB_CA, .nports = 1, .desc = "h1 HCA-1" };
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_new();

	for (unsigned i = 0; i < 6; i++) {
		sw.guid = 0x7cfe900300a5a2c0ull + i;
		assert_int_equal(fab_node_add(f, &sw, &err), i);
		if (i)
			assert_int_equal(fab_link_add(f, 0, i, i, 1, &err), 0);
	}
	ca.guid = 0x1000;
	assert_int_equal(fab_node_add(f, &ca, &err), 6);
	assert_int_equal(fab_link_add(f, 1, 2, 6, 1, &err), 0);
	ca.guid = 0x2000;
	ca.desc = "h2 HCA-1";
	assert_int_equal(fab_node_add(f, &ca, &err), 7);
	assert_int_equal(fab_link_add(f, 2, 2, 7, 1, &err), 0);
	assert_int_equal(fab_finalize(f, &err), 0);
	return f;
}

static void test_resolve(void **state)
{
	struct fabric *f = same_names();
	struct fab_err err = { { 0 } };
	char buf[FAB_LABEL_MAX];

	(void)state;
	assert_int_equal(fab_node_resolve(f, "SwitchIB Mellanox Technologies", "option roots: ",
					  &err), FAB_NONE);
	assert_string_equal(err.msg, "option roots: \"SwitchIB Mellanox Technologies\" is the "
			    "description of 6 nodes: 0x7cfe900300a5a2c0, 0x7cfe900300a5a2c1, "
			    "0x7cfe900300a5a2c2, 0x7cfe900300a5a2c3, 0x7cfe900300a5a2c4, "
			    "0x7cfe900300a5a2c5; name one by its GUID");
	assert_int_equal(fab_node_resolve(f, "0x7cfe900300a5a2c3", NULL, &err),
			 tu_node(f, 0x7cfe900300a5a2c3ull));
	assert_int_equal(fab_node_resolve(f, "h2 HCA-1", NULL, &err), tu_node(f, 0x2000));
	assert_int_equal(fab_node_resolve(f, "0x2001", NULL, &err), tu_node(f, 0x2000));	/* a port GUID */
	assert_int_equal(fab_node_resolve(f, "0x3000", NULL, &err), FAB_NONE);
	assert_non_null(strstr(err.msg, "no node \"0x3000\""));
	assert_int_equal(fab_node_resolve(f, "nosuch", NULL, &err), FAB_NONE);
	assert_non_null(strstr(err.msg, "no node \"nosuch\""));
	/* labels: the GUID only where the description does not tell the node */
	assert_string_equal(fab_node_label(f, tu_node(f, 0x7cfe900300a5a2c2ull), buf, sizeof(buf)),
			    "SwitchIB Mellanox Technologies (0x7cfe900300a5a2c2)");
	assert_string_equal(fab_node_label(f, tu_node(f, 0x1000), buf, sizeof(buf)), "h1 HCA-1");
	fab_free(f);
}

static void test_node_name_map(void **state)
{
	static const char map[] =
		"# spines\n"
		"0x7cfe900300a5a2c0 \"spine-1\"\n"
		"  0x7cfe900300a5a2c1\tspine-2 # after the name\n"
		"\n"
		"4096 \"node-1\"\n"			/* decimal: 0x1000 */
		"0x7cfe900300a5a2c0 \"again\"\n"	/* the first name stays */
		"0x7cfe900300a5a2c5\n"			/* no name: skipped */
		"0x9999 not-in-this-fabric\n";
	struct fabric *f = same_names();
	struct fab_err err = { { 0 } };
	struct fmt_names m;

	(void)state;
	assert_int_equal(fmt_names_parse(map, strlen(map), "map", &m, &err), 0);
	assert_int_equal(m.n, 4);
	assert_int_equal(fmt_names_apply(f, &m, &err), 3);
	assert_string_equal(fab_desc(f, tu_node(f, 0x7cfe900300a5a2c0ull)), "spine-1");
	/* up to the '#', as OpenSM takes it */
	assert_string_equal(fab_desc(f, tu_node(f, 0x7cfe900300a5a2c1ull)), "spine-2 ");
	assert_string_equal(fab_desc(f, tu_node(f, 0x1000)), "node-1");
	assert_int_equal(fab_node_resolve(f, "spine-1", NULL, &err), tu_node(f, 0x7cfe900300a5a2c0ull));
	assert_int_equal(fab_node_resolve(f, "node-1", NULL, &err), tu_node(f, 0x1000));
	fmt_names_free(&m);
	fab_free(f);
	/* a line whose GUID does not parse fails the file, naming the line */
	assert_int_equal(fmt_names_parse("0x1 a\nzz b\n", 11, "map", &m, &err), -1);
	assert_string_equal(err.msg, "map:2: expected a node GUID (0x hex or decimal) and a name, "
			    "found 'zz'");
	assert_int_equal(fmt_names_parse("0x1g a\n", 7, "map", &m, &err), -1);
	assert_int_equal(fmt_names_parse("010 octal\n", 10, "map", &m, &err), 0);
	assert_true(m.n == 1 && m.guid[0] == 8);
	fmt_names_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chassis_lines),
		cmocka_unit_test(test_records_without_blank_lines),
		cmocka_unit_test(test_diagnostic_lines),
		cmocka_unit_test(test_many_diagnostics),
		cmocka_unit_test(test_ends_disagree),
		cmocka_unit_test(test_xdr_and_2x),
		cmocka_unit_test(test_ibsim_rates_written_back),
		cmocka_unit_test(test_ibsim_extspeed),
		cmocka_unit_test(test_subnet_lst_without_speed),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_node_name_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
