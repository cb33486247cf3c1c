/* SPDX-License-Identifier: MIT */
/*
 * The REST API's queries on routed fabrics, called directly: name
 * resolution (LIDs, GUIDs, descriptions and every way they can be wrong),
 * routes against an_trace(), LMC and per-pair DLIDs, a black hole seen by
 * route and switch reachability (cross-checked with an_evaluate()). The
 * fabric listings are in test_api_fabric.c.
 */
#include "tests/unit/testutil.h"

#include "api/query.h"

/* The hops of a route answer are those an_trace() finds with its DLID and SL. */
static void expect_trace(const struct epoch *e, json_t *route, uint32_t src)
{
	const struct fabric *f = e->fabric;
	json_t *hops = json_object_get(route, "hops");
	struct an_path p;

	assert_int_equal(an_trace(f, e->routing, src, (unsigned)tu_jint(route, "dlid"),
				  (unsigned)tu_jint(route, "sl"), &p), 0);
	assert_string_equal(tu_jstr(route, "failure"), an_fail_name(p.fail));
	assert_int_equal(json_is_true(json_object_get(route, "delivered")), p.fail == AN_DELIVERED);
	assert_int_equal(tu_jint(route, "hop_count"), p.nhops);
	assert_int_equal(json_array_size(hops), p.nhops);
	for (uint32_t i = 0; i < p.nhops; i++) {
		json_t *h = json_array_get(hops, i);

		assert_string_equal(tu_jstr(h, "node"), fab_desc(f, p.hops[i].node));
		assert_string_equal(tu_jstr(h, "type"), "SW");
		assert_int_equal(tu_jint(h, "in_port"), p.hops[i].in_port);
		assert_int_equal(tu_jint(h, "out_port"), p.hops[i].out_port);
		assert_int_equal(tu_jint(h, "vl"), p.hops[i].vl);
	}
	an_path_free(&p);
}

/* Every way to name endpoint @ep: LID (decimal, hex), port GUID, node GUID, description. */
static unsigned names_of(const struct fabric *f, uint32_t ep, char names[5][64])
{
	uint32_t node = f->eps[ep].node;

	snprintf(names[0], 64, "%u", fab_ep_lid(f, ep));
	snprintf(names[1], 64, "0x%x", fab_ep_lid(f, ep));
	snprintf(names[2], 64, "0x%016llx",
		 (unsigned long long)fab_port(f, node, f->eps[ep].port)->guid);
	snprintf(names[3], 64, "0x%016llx", (unsigned long long)f->nodes[node].guid);
	snprintf(names[4], 64, "%s", fab_desc(f, node));
	return 5;
}

/* --- tests --------------------------------------------------------------- */

static void test_not_routed(void **state)
{
	struct api_err err;
	json_t *j;
	size_t n;

	tu_expect_err(apiq_route(NULL, "1", "2", &err), &err, 503, "not_routed", "no routing");
	tu_expect_err(apiq_connectivity(NULL, &err), &err, 503, "not_routed", "no routing");
	tu_expect_err(apiq_reach_switches(NULL, NULL, NULL, &err), &err, 503, "not_routed", "no");
	tu_expect_err(apiq_vl_usage(NULL, &err), &err, 503, "not_routed", "no routing");
	tu_expect_err(apiq_fabric(NULL, &err), &err, 503, "not_routed", "no routing");
	tu_expect_err(apiq_nodes(NULL, NULL, &err), &err, 503, "not_routed", "no routing");
	tu_expect_err(apiq_node(NULL, "x", &err), &err, 503, "not_routed", "no routing");
	tu_expect_err(apiq_links(NULL, 0, 10, &err), &err, 503, "not_routed", "no routing");
	tu_expect_err(apiq_lids(NULL, &err), &err, 503, "not_routed", "no routing");
	/* the engines are known before anything is routed */
	j = apiq_engines(NULL, &err);
	assert_non_null(j);
	eng_all(&n);
	assert_int_equal(json_array_size(json_object_get(j, "engines")), n);
	assert_true(json_is_null(json_object_get(j, "chain")));
	assert_true(json_is_null(json_object_get(j, "engine")));
	assert_true(json_is_null(json_object_get(j, "epoch")));
	json_decref(j);
}

static void test_epoch_and_errors(void **state)
{
	struct epoch *e = tu_kary_epoch();
	struct api_err err;
	json_t *j = apiq_connectivity(e, &err), *ep;
	const char *want = "{\"epoch\": {\"seq\": 7, \"snapshot_id\": 3, "
			   "\"published\": \"2026-01-01T00:00:00.123Z\", \"reason\": \"startup\", "
			   "\"chain\": \"sftree\", \"engine\": \"sftree\", "
			   "\"engine_log\": \"sftree: routed\\n\"}, ";
	char *text;

	assert_non_null(j);
	text = json_dumps(j, 0);
	if (strncmp(text, want, strlen(want)))
		fail_msg("response starts \"%.160s\"", text);
	free(text);
	assert_true(json_is_true(json_object_get(j, "connected")));
	ep = json_object_get(json_object_get(j, "classes"), "ca-ca");
	assert_int_equal(tu_jint(ep, "pairs"), 8 * 7);
	assert_int_equal(tu_jint(ep, "unreachable"), 0);
	json_decref(j);

	/* error objects; a message cut inside a UTF-8 character stays valid */
	api_err_set(&err, 404, "not_found", "src: %s", "x");
	j = api_err_json(&err);
	assert_string_equal(tu_jstr(json_object_get(j, "error"), "code"), "not_found");
	assert_string_equal(tu_jstr(json_object_get(j, "error"), "message"), "src: x");
	json_decref(j);
	api_err_set(&err, 400, "bad_parameter", "%0254d\xc3\xa9\xc3\xa9", 1);
	assert_int_equal(strlen(err.msg), 254);
	j = api_err_json(&err);
	assert_non_null(j);
	json_decref(j);
	epoch_unref(e);
}

static void test_route_names(void **state)
{
	struct epoch *e = tu_kary_epoch();
	const struct fabric *f = e->fabric;
	uint32_t s = tu_ep_named(f, "node-00"), d = tu_ep_named(f, "node-07");
	char sn[5][64], dn[5][64];
	struct api_err err;
	json_t *ref = apiq_route(e, "node-00", "node-07", &err);

	assert_non_null(ref);
	assert_int_equal(tu_jint(json_object_get(ref, "src"), "lid"), fab_ep_lid(f, s));
	assert_int_equal(tu_jint(ref, "dlid"), rt_dlid(e->routing, f, s, d));
	assert_true(json_is_true(json_object_get(ref, "delivered")));
	assert_int_equal(tu_jint(ref, "hop_count"), 5);
	expect_trace(e, ref, s);
	names_of(f, s, sn);
	names_of(f, d, dn);
	for (unsigned i = 0; i < 5; i++)
		for (unsigned k = 0; k < 5; k++) {
			json_t *j = apiq_route(e, sn[i], dn[k], &err);

			if (!j)
				fail_msg("route %s -> %s: %s", sn[i], dn[k], err.msg);
			assert_true(json_equal(j, ref));
			json_decref(j);
		}
	json_decref(ref);
	epoch_unref(e);
}

/* All 400 ordered pairs, switches included, against an_trace(). */
static void test_route_all_pairs(void **state)
{
	struct epoch *e = tu_kary_epoch();
	const struct fabric *f = e->fabric;
	struct api_err err;

	for (uint32_t s = 0; s < f->neps; s++)
		for (uint32_t d = 0; d < f->neps; d++) {
			char a[16], b[16];
			json_t *j;

			snprintf(a, sizeof(a), "%u", fab_ep_lid(f, s));
			snprintf(b, sizeof(b), "%u", fab_ep_lid(f, d));
			j = apiq_route(e, a, b, &err);
			assert_non_null(j);
			assert_true(json_is_true(json_object_get(j, "delivered")));
			expect_trace(e, j, s);
			json_decref(j);
		}
	epoch_unref(e);
}

/* src == dst: a CA's packet turns around at its switch, a switch's stays at port 0. */
static void test_route_self(void **state)
{
	struct epoch *e = tu_kary_epoch();
	struct api_err err;
	json_t *j = apiq_route(e, "node-03", "node-03", &err), *h;

	assert_non_null(j);
	assert_int_equal(tu_jint(j, "hop_count"), 1);
	h = json_array_get(json_object_get(j, "hops"), 0);
	assert_int_equal(tu_jint(h, "in_port"), tu_jint(h, "out_port"));
	json_decref(j);
	j = apiq_route(e, "leaf-01", "leaf-01", &err);
	assert_non_null(j);
	assert_int_equal(tu_jint(j, "hop_count"), 1);
	h = json_array_get(json_object_get(j, "hops"), 0);
	assert_int_equal(tu_jint(h, "in_port"), 0);
	assert_int_equal(tu_jint(h, "out_port"), 0);
	json_decref(j);
	epoch_unref(e);
}

static void test_resolve_errors(void **state)
{
	static const char *const bad[] = {
		"0", "0x0", "0xC000", "0xc000", "49152", "65535", "99999999999999999999", "12x",
		"0x", "0x12g", "", "0x12345678901234567", "\x01" "abc", "bad\xff", "bad\x7f",
	};
	struct epoch *e = tu_kary_epoch();
	const struct fabric *f = e->fabric;
	struct api_err err;
	char longname[300];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(api_resolve(f, "src", bad[i], &err), FAB_NONE);
		assert_int_equal(err.status, 400);
		assert_string_equal(err.code, "bad_parameter");
		assert_int_equal(strncmp(err.msg, "src: ", 5), 0);
	}
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	tu_expect_err(apiq_route(e, longname, "1", &err), &err, 400, "bad_parameter",
		      "src: longer");
	tu_expect_err(apiq_route(e, "1", "0xC000", &err), &err, 400, "bad_parameter", "dst: ");
	tu_expect_err(apiq_route(e, "12x", "1", &err), &err, 400, "bad_parameter", "src: ");
	tu_expect_err(apiq_route(e, NULL, "1", &err), &err, 400, "missing_parameter", "src: ");
	tu_expect_err(apiq_route(e, "1", NULL, &err), &err, 400, "missing_parameter", "dst: ");
	tu_expect_err(apiq_route(e, "9999", "1", &err), &err, 404, "not_found",
		      "src: no port or node with LID 9999");
	tu_expect_err(apiq_route(e, "1", "0xBFFF", &err), &err, 404, "not_found", "dst: ");
	tu_expect_err(apiq_route(e, "0x0002fab2deadbeef", "1", &err), &err, 404, "not_found",
		      "src: no port or node with GUID 0x0002fab2deadbeef");
	tu_expect_err(apiq_route(e, "1", "no-such-node", &err), &err, 404, "not_found", "dst: ");
	/* 16 hex digits are a GUID even when the value is small */
	tu_expect_err(apiq_route(e, "0x0000000000000001", "1", &err), &err, 404, "not_found",
		      "src: no port or node with GUID");
	/* upper-case hex; a description in UTF-8 */
	assert_int_equal(api_resolve(f, "src", "0X1", &err), tu_ep_named(f, "leaf-00"));
	tu_expect_err(apiq_route(e, "n\xc3\xb8" "de", "1", &err), &err, 404, "not_found", "src: ");
	epoch_unref(e);
}

/*
 * Two switches share the description "dup"; CA "host-b" has port 1
 * unlinked and port 2 on the second switch.
 */
static struct fabric *dup_fabric(void)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_new();
	struct fab_node_info sw = { .type = FAB_SWITCH, .nports = 4, .desc = "dup" };
	struct fab_node_info ca = { .type = FAB_CA, .nports = 1, .desc = "host-a" };

	sw.guid = 0x100;
	assert_int_equal(fab_node_add(f, &sw, &err), 0);
	sw.guid = 0x101;
	assert_int_equal(fab_node_add(f, &sw, &err), 1);
	ca.guid = 0x1000;
	assert_int_equal(fab_node_add(f, &ca, &err), 2);
	ca.guid = 0x1010;
	ca.nports = 2;
	ca.desc = "host-b";
	assert_int_equal(fab_node_add(f, &ca, &err), 3);
	assert_int_equal(fab_link_add(f, 0, 1, 2, 1, &err), 0);
	assert_int_equal(fab_link_add(f, 1, 1, 3, 2, &err), 0);
	assert_int_equal(fab_link_add(f, 0, 2, 1, 2, &err), 0);
	assert_int_equal(fab_finalize(f, &err), 0);
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err), 0);
	return f;
}

static void test_ambiguous_and_unlinked(void **state)
{
	struct epoch *e = tu_epoch_wrap(dup_fabric(), "minhop");
	const struct fabric *f = e->fabric;
	struct api_err err;
	uint32_t ep;
	json_t *j;

	tu_expect_err(apiq_route(e, "host-a", "dup", &err), &err, 409, "ambiguous",
		      "dst: 2 nodes are described 'dup'");
	tu_expect_err(apiq_node(e, "dup", &err), &err, 409, "ambiguous", "node: 2 nodes");
	/* the answer lists the candidates by GUID, in the message and the body */
	assert_non_null(strstr(err.msg, "(0x0000000000000100, 0x0000000000000101)"));
	assert_int_equal(err.ncand, 2);
	j = api_err_json(&err);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "error"), "count")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_object_get(j,
			    "error"), "candidates"), 1)), "0x0000000000000101");
	json_decref(j);
	/* a switch named by GUID is fine: 16 digits, since 0x101 would be a LID */
	tu_expect_err(apiq_route(e, "host-a", "0x101", &err), &err, 404, "not_found",
		      "dst: no port or node with LID 257");
	j = apiq_route(e, "host-a", "0x0000000000000101", &err);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "delivered")));
	json_decref(j);
	/* host-b's node GUID and description name its first linked port, 2 */
	ep = api_resolve(f, "src", "host-b", &err);
	assert_int_not_equal(ep, FAB_NONE);
	assert_int_equal(f->eps[ep].port, 2);
	assert_int_equal(api_resolve(f, "src", "0x0000000000001012", &err), ep);
	assert_int_equal(api_resolve(f, "src", "0x0000000000001010", &err), ep);
	/* port 1's GUID is no endpoint, but names the node */
	assert_int_equal(api_resolve(f, "src", "0x0000000000001011", &err), FAB_NONE);
	tu_expect_err(NULL, &err, 404, "not_found",
		      "src: port 0x0000000000001011 ('host-b' port 1) is not linked");
	j = apiq_node(e, "0x0000000000001011", &err);
	assert_non_null(j);
	assert_string_equal(tu_jstr(j, "node"), "host-b");
	assert_int_equal(json_array_size(json_object_get(j, "ports")), 2);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "ports"), 0),
						 "peer")));
	json_decref(j);
	epoch_unref(e);
}

/* A CA pair whose DLID is not the destination's base LID. */
static int offset_pair(const struct fabric *f, const struct rt_routing *r, uint32_t *s,
		       uint32_t *d)
{
	for (*s = f->nswitches; *s < f->neps; (*s)++)
		for (*d = f->nswitches; *d < f->neps; (*d)++)
			if (rt_dlid(r, f, *s, *d) != fab_ep_lid(f, *d))
				return 0;
	return -1;
}

static void test_lmc(void **state)
{
	struct epoch *e = tu_gen_epoch("kary-ntree k=2 n=3 lmc=1", "sftree");
	const struct fabric *f = e->fabric;
	uint32_t s, d = tu_ep_named(f, "node-05");
	struct api_err err;
	char second[16];
	json_t *a, *b;

	/* the second LID of a range names the port; the DLID stays the routing's */
	snprintf(second, sizeof(second), "%u", fab_ep_lid(f, d) + 1);
	a = apiq_route(e, "node-00", "node-05", &err);
	b = apiq_route(e, "node-00", second, &err);
	assert_non_null(a);
	assert_non_null(b);
	assert_true(json_equal(a, b));
	json_decref(a);
	json_decref(b);
	a = apiq_fabric(e, &err);
	assert_int_equal(tu_jint(a, "lmc_max"), 1);
	json_decref(a);
	epoch_unref(e);

	/* smodk: one LID per top switch, chosen per pair */
	e = tu_gen_epoch("gft2", "smodk");
	f = e->fabric;
	assert_non_null(e->routing->dlid_off);
	assert_int_equal(offset_pair(f, e->routing, &s, &d), 0);
	snprintf(second, sizeof(second), "%u", fab_ep_lid(f, s));
	a = apiq_route(e, second, fab_desc(f, f->eps[d].node), &err);
	assert_non_null(a);
	assert_int_equal(tu_jint(a, "dlid"), rt_dlid(e->routing, f, s, d));
	assert_true(json_is_true(json_object_get(a, "delivered")));
	expect_trace(e, a, s);
	json_decref(a);
	epoch_unref(e);
}

/* pathsel plans LIDs: /api/route gives each pair its planned DLID, /api/lids each port's LMC. */
static void test_planned_lids(void **state)
{
	struct epoch *e = tu_gen_epoch("random switches=8 machines=32 degree=4", "pathsel");
	const struct fabric *f = e->fabric;
	struct api_err err;
	uint32_t s, d;
	json_t *a, *l, *v;
	json_int_t total = 0;
	size_t i;
	int lmc_seen[FAB_LMC_MAX + 1] = { 0 };

	(void)state;
	assert_int_equal(offset_pair(f, e->routing, &s, &d), 0);
	a = apiq_route(e, fab_desc(f, f->eps[s].node), fab_desc(f, f->eps[d].node), &err);
	assert_non_null(a);
	assert_int_equal(tu_jint(a, "dlid"), rt_dlid(e->routing, f, s, d));
	assert_int_equal(tu_jint(a, "dlid_offset"),
			 rt_dlid(e->routing, f, s, d) - fab_ep_lid(f, d));
	assert_true(tu_jint(a, "dlid_offset") > 0);
	assert_true(json_is_true(json_object_get(a, "delivered")));
	expect_trace(e, a, s);
	json_decref(a);
	l = apiq_lids(e, &err);
	assert_non_null(l);
	json_array_foreach(json_object_get(l, "lids"), i, v) {
		assert_int_equal(tu_jint(v, "lids"), 1 << tu_jint(v, "lmc"));
		total += tu_jint(v, "lids");
		lmc_seen[tu_jint(v, "lmc")] = 1;
	}
	assert_int_equal(tu_jint(l, "lids_total"), total);
	assert_true(lmc_seen[0] && (lmc_seen[1] || lmc_seen[2]));	/* per-port LMC */
	json_decref(l);
	epoch_unref(e);
}

/* The per_switch entry of @desc, NULL when the switch has no problem. */
static json_t *per_switch(json_t *reach, const char *desc)
{
	json_t *a = json_object_get(reach, "per_switch"), *v;
	size_t i;

	json_array_foreach(a, i, v)
		if (!strcmp(tu_jstr(v, "node"), desc))
			return v;
	return NULL;
}

static void test_black_hole(void **state)
{
	struct epoch *e = tu_kary_epoch();
	const struct fabric *f = e->fabric;
	uint32_t leaf = tu_ep_named(f, "leaf-00"), l2 = tu_ep_named(f, "l2-00");
	struct fab_err ferr = { { 0 } };
	struct an_report rep;
	struct api_err err;
	json_t *j, *v;

	j = apiq_reach_switches(e, NULL, NULL, &err);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "complete")));
	assert_int_equal(tu_jint(j, "pairs"), 12 * 11);
	assert_int_equal(json_array_size(json_object_get(j, "per_switch")), 0);
	json_decref(j);

	/* switch i is endpoint i; leaf-00 loses its route to l2-00 */
	rt_lft(e->routing, leaf)[fab_ep_lid(f, l2)] = RT_NO_PORT;
	assert_int_equal(an_evaluate(f, e->routing, &e->opts, &rep, &ferr), 0);
	j = apiq_route(e, "leaf-00", "l2-00", &err);
	assert_non_null(j);
	assert_false(json_is_true(json_object_get(j, "delivered")));
	assert_string_equal(tu_jstr(j, "failure"), "no-entry");
	expect_trace(e, j, leaf);
	json_decref(j);

	j = apiq_reach_switches(e, NULL, NULL, &err);
	assert_non_null(j);
	assert_false(json_is_true(json_object_get(j, "complete")));
	assert_true(tu_jint(j, "unreachable") > 0);
	assert_int_equal(tu_jint(j, "unreachable"), rep.conn.unreachable[AN_SW_SW]);
	v = per_switch(j, "leaf-00");
	assert_non_null(v);
	assert_true(tu_jint(v, "cannot_reach") >= 1);
	v = per_switch(j, "l2-00");
	assert_non_null(v);
	assert_int_equal(tu_jint(v, "unreachable_from"), tu_jint(j, "unreachable"));
	v = json_array_get(json_object_get(j, "examples"), 0);
	assert_string_equal(tu_jstr(v, "failure"), "no-entry");
	assert_string_equal(tu_jstr(json_object_get(v, "dst"), "node"), "l2-00");
	json_decref(j);
	an_report_free(&rep);

	/* one pair */
	j = apiq_reach_switches(e, "leaf-00", "0x0002fab100000005", &err);
	assert_non_null(j);
	assert_false(json_is_true(json_object_get(j, "reachable")));
	assert_string_equal(tu_jstr(json_object_get(j, "path"), "failure"), "no-entry");
	json_decref(j);
	j = apiq_reach_switches(e, "l2-00", "leaf-00", &err);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "reachable")));
	json_decref(j);
	tu_expect_err(apiq_reach_switches(e, "leaf-00", NULL, &err), &err, 400, "missing_parameter",
		      "dst: ");
	tu_expect_err(apiq_reach_switches(e, NULL, "leaf-00", &err), &err, 400, "missing_parameter",
		      "src: ");
	tu_expect_err(apiq_reach_switches(e, "node-00", "leaf-00", &err), &err, 400,
		      "bad_parameter", "src: 'node-00' names CA");
	tu_expect_err(apiq_reach_switches(e, "leaf-00", "node-01", &err), &err, 400,
		      "bad_parameter", "dst: ");
	epoch_unref(e);
}

/* ft648 with ftree leaves the spines without routes to each other; sftree fixes that. */
static void test_reach_ft648(void **state)
{
	struct epoch *e = tu_gen_epoch("ft648", "ftree");
	struct api_err err;
	json_t *j = apiq_reach_switches(e, NULL, NULL, &err);

	assert_non_null(j);
	assert_int_equal(tu_jint(j, "switches"), 54);
	assert_int_equal(tu_jint(j, "pairs"), 54 * 53);
	assert_int_equal(tu_jint(j, "unreachable"), e->report.conn.unreachable[AN_SW_SW]);
	assert_int_equal(json_is_true(json_object_get(j, "complete")),
			 e->report.conn.unreachable[AN_SW_SW] == 0);
	assert_true(json_array_size(json_object_get(j, "examples")) <= 20);
	json_decref(j);
	epoch_unref(e);

	e = tu_gen_epoch("ft648", "sftree");
	j = apiq_reach_switches(e, NULL, NULL, &err);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "complete")));
	assert_int_equal(json_array_size(json_object_get(j, "examples")), 0);
	json_decref(j);
	epoch_unref(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_routed),
		cmocka_unit_test(test_epoch_and_errors),
		cmocka_unit_test(test_route_names),
		cmocka_unit_test(test_route_all_pairs),
		cmocka_unit_test(test_route_self),
		cmocka_unit_test(test_resolve_errors),
		cmocka_unit_test(test_ambiguous_and_unlinked),
		cmocka_unit_test(test_lmc),
		cmocka_unit_test(test_planned_lids),
		cmocka_unit_test(test_black_hole),
		cmocka_unit_test(test_reach_ft648),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
