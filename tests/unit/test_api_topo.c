/* SPDX-License-Identifier: MIT */
/*
 * GET /api/topology and GET /api/search, called directly: pods, the routes
 * per link (all pairs and CA-to-CA) against a walk of the LFTs, the subtree
 * root, one body shared by every answer of an epoch; switches and hosts
 * found by part of their name, LID or GUID.
 */
#include "tests/unit/testutil.h"

#include "api/query.h"

static json_int_t max_i(json_int_t a, json_int_t b)
{
	return a > b ? a : b;
}

/* The evaluation's counts per switch port equal the walk of api/linkload.c. */
static void same_as_walk(struct epoch *e, const char *what)
{
	const struct fabric *f = e->fabric;
	uint64_t *all = e->report.port_all, *ca = e->report.port_ca;
	const uint64_t *wall, *wca;

	assert_non_null(all);
	assert_non_null(ca);
	e->report.port_all = e->report.port_ca = NULL;	/* as if evaluated without load */
	wall = api_link_routes(e);
	wca = api_link_routes_ca(e);
	e->report.port_all = all;
	e->report.port_ca = ca;
	assert_non_null(wall);
	assert_non_null(wca);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t n = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			size_t i = f->nodes[n].port0 + p;

			if (all[i] != wall[i] || ca[i] != wca[i])
				fail_msg("%s: %s port %u: evaluation %llu/%llu, walk %llu/%llu", what,
					 fab_desc(f, n), p, (unsigned long long)all[i],
					 (unsigned long long)ca[i], (unsigned long long)wall[i],
					 (unsigned long long)wca[i]);
		}
	}
	assert_ptr_equal(api_link_routes(e), all);
	assert_ptr_equal(api_link_routes_ca(e), ca);
}

static void test_link_routes_walked(void **state)
{
	static const char *const down[] = { "leaf-00:5", "l2-03:7" };
	const struct gen_faults faults = { .links = down, .nlinks = 2 };
	struct fab_err err = { { 0 } };
	struct fabric *f;
	struct epoch *e;

	(void)state;
	same_as_walk(e = tu_kary_epoch(), "kary sftree");
	epoch_unref(e);
	same_as_walk(e = tu_gen_epoch("kary-ntree k=2 n=3 lmc=1", "sftree"), "kary lmc=1");
	epoch_unref(e);
	same_as_walk(e = tu_gen_epoch("gft2", "smodk"), "gft2 smodk (a DLID per pair)");
	epoch_unref(e);
	same_as_walk(e = tu_gen_epoch("random switches=8 machines=32 degree=4", "pathsel"),
		     "random pathsel (planned LIDs)");
	epoch_unref(e);
	same_as_walk(e = tu_gen_epoch("dragonfly a=4 p=2 h=2", "dla"), "dragonfly dla");
	epoch_unref(e);
	f = tu_gen("kary-ntree k=4 n=3", 1);
	assert_non_null(f);
	assert_int_equal(gen_faults_apply(&f, &faults, &err), 0);
	same_as_walk(e = tu_epoch_wrap(f, "minhop"), "degraded kary minhop");
	epoch_unref(e);
}

/* The switch entry of @desc in a topology answer. */
static json_t *switch_of(json_t *t, const char *desc)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(t, "switches"), i, v)
		if (!strcmp(tu_jstr(v, "node"), desc))
			return v;
	fail_msg("no switch %s", desc);
	return NULL;
}

static void check_links(json_t *t, const struct epoch *e)
{
	json_int_t max = 0, max_ca = 0, leaf00_up = 0;
	json_t *l;
	size_t i;

	json_array_foreach(json_object_get(t, "links"), i, l) {
		json_t *a = json_object_get(l, "a"), *b = json_object_get(l, "b");
		json_t *pa = json_object_get(switch_of(t, tu_jstr(a, "node")), "pod");
		json_t *pb = json_object_get(switch_of(t, tu_jstr(b, "node")), "pod");

		assert_true(tu_jint(l, "ca_routes_ab") <= tu_jint(l, "routes_ab"));
		assert_true(tu_jint(l, "ca_routes_ba") <= tu_jint(l, "routes_ba"));
		max = max_i(max, max_i(tu_jint(l, "routes_ab"), tu_jint(l, "routes_ba")));
		max_ca = max_i(max_ca,
			       max_i(tu_jint(l, "ca_routes_ab"), tu_jint(l, "ca_routes_ba")));
		if (!json_is_null(pa) && !json_is_null(pb))	/* no link joins two pods below the top */
			assert_int_equal(json_integer_value(pa), json_integer_value(pb));
		if (!strcmp(tu_jstr(a, "node"), "leaf-00"))
			leaf00_up += tu_jint(l, "ca_routes_ab");
	}
	assert_int_equal(tu_jint(t, "max_routes"), max);
	assert_int_equal(tu_jint(t, "max_routes"), e->report.load.max);
	assert_int_equal(tu_jint(t, "max_ca_routes"), max_ca);
	/* leaf-00's 2 CAs send to the 6 CAs elsewhere through its uplinks */
	assert_int_equal(leaf00_up, 2 * 6);
}

static void test_topology_tree(void **state)
{
	struct epoch *e = tu_kary_epoch();
	struct api_err err;
	json_t *t = apiq_topology(e, &err), *sw, *root;
	json_int_t per_pod[2] = { 0, 0 };
	char tag[64];
	size_t i;

	(void)state;
	assert_non_null(t);
	assert_string_equal(tu_jstr(t, "kind"), "tree");
	assert_int_equal(tu_jint(t, "levels"), 3);
	assert_int_equal(tu_jint(t, "pods"), 2);
	json_array_foreach(json_object_get(t, "switches"), i, sw) {
		json_t *pod = json_object_get(sw, "pod");

		if (tu_jint(sw, "level") == 3) {
			assert_true(json_is_null(pod));
			continue;
		}
		assert_true(json_is_integer(pod));
		assert_in_range(json_integer_value(pod), 0, 1);
		per_pod[json_integer_value(pod)]++;
	}
	assert_int_equal(per_pod[0], 4);	/* 2 leaves and 2 level-2 switches each */
	assert_int_equal(per_pod[1], 4);
	check_links(t, e);
	root = json_object_get(t, "subtree_root");
	assert_true(json_is_object(root));
	snprintf(tag, sizeof(tag), "subtree root: '%s'", tu_jstr(root, "node"));
	assert_non_null(strstr(e->routing->notes, tag));
	assert_string_equal(tu_jstr(root, "guid"),
			    tu_jstr(switch_of(t, tu_jstr(root, "node")), "guid"));
	json_decref(t);
	epoch_unref(e);
}

static void test_topology_other(void **state)
{
	struct epoch *e = tu_gen_epoch("dragonfly a=4 p=2 h=2", "dla");
	struct api_err err;
	json_t *t = apiq_topology(e, &err), *sw;
	size_t i;

	(void)state;
	assert_non_null(t);
	assert_string_equal(tu_jstr(t, "kind"), "dragonfly");
	assert_int_equal(tu_jint(t, "groups"), 9);
	assert_int_equal(tu_jint(t, "pods"), 0);
	assert_true(json_is_null(json_object_get(t, "subtree_root")));	/* dla names none */
	json_array_foreach(json_object_get(t, "switches"), i, sw) {
		assert_true(json_is_null(json_object_get(sw, "pod")));
		assert_true(json_is_integer(json_object_get(sw, "group")));
	}
	json_decref(t);
	epoch_unref(e);
}

/* Every answer of an epoch shares one body: the second costs no building. */
static void test_topology_shared(void **state)
{
	struct epoch *e = tu_kary_epoch();
	struct api_err err;
	json_t *a = apiq_topology(e, &err), *b = apiq_topology(e, &err);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_true(json_equal(a, b));
	assert_ptr_equal(json_object_get(a, "links"), json_object_get(b, "links"));
	assert_non_null(e->api_cache);
	json_decref(a);
	json_decref(b);
	epoch_unref(e);
}

static json_t *search(const struct epoch *e, const char *q, unsigned limit)
{
	struct api_err err;
	json_t *j = apiq_search(e, q, limit, &err);

	if (!j)
		fail_msg("search '%s': %s", q, err.msg);
	return j;
}

static void test_search(void **state)
{
	struct epoch *e = tu_kary_epoch();
	struct api_err err;
	json_t *j, *r, *at;
	size_t i;

	(void)state;
	/* part of a name, any case: switches first, then the others */
	j = search(e, "E", 20);
	assert_int_equal(tu_jint(j, "total"), 4 + 4 + 8);	/* leaf-0x, spine-0x, node-0x */
	r = json_object_get(j, "results");
	assert_int_equal(json_array_size(r), 16);
	json_array_foreach(r, i, at)
		assert_string_equal(tu_jstr(at, "type"), i < 8 ? "SW" : "CA");
	assert_string_equal(tu_jstr(json_array_get(r, 0), "match"), "name");
	json_decref(j);
	j = search(e, "NODE-0", 3);
	assert_int_equal(tu_jint(j, "total"), 8);
	assert_int_equal(json_array_size(json_object_get(j, "results")), 3);
	json_decref(j);

	/* a whole name: that node first, a host with the switch port it hangs off */
	j = search(e, "node-05", 20);
	assert_int_equal(tu_jint(j, "total"), 1);
	r = json_array_get(json_object_get(j, "results"), 0);
	assert_string_equal(tu_jstr(r, "match"), "exact");
	assert_string_equal(tu_jstr(r, "type"), "CA");
	at = json_array_get(json_object_get(r, "attached"), 0);
	assert_string_equal(tu_jstr(at, "node"), "leaf-02");
	assert_int_equal(tu_jint(at, "via_port"), 1);
	assert_int_equal(fab_port(e->fabric, fab_node_by_desc(e->fabric, "leaf-02", NULL),
				  (unsigned)tu_jint(at, "port"))->peer,
			 fab_node_by_desc(e->fabric, "node-05", NULL));
	json_decref(j);

	/* a LID: the switch that owns it, then the names holding the digits */
	j = search(e, "9", 20);
	r = json_array_get(json_object_get(j, "results"), 0);
	assert_string_equal(tu_jstr(r, "node"), "spine-00");
	assert_string_equal(tu_jstr(r, "match"), "exact");
	assert_int_equal(json_array_size(json_object_get(r, "attached")), 0);
	json_decref(j);
	j = search(e, "0x0002fab100000005", 20);
	assert_string_equal(tu_jstr(json_array_get(json_object_get(j, "results"), 0), "node"),
			    "l2-00");
	json_decref(j);
	j = search(e, "nothing-is-called-that", 20);
	assert_int_equal(tu_jint(j, "total"), 0);
	assert_int_equal(json_array_size(json_object_get(j, "results")), 0);
	json_decref(j);

	tu_expect_err(apiq_search(e, NULL, 20, &err), &err, 400, "missing_parameter", "q: missing");
	tu_expect_err(apiq_search(e, "", 20, &err), &err, 400, "bad_parameter", "q: empty");
	tu_expect_err(apiq_search(e, "a\tb", 20, &err), &err, 400, "bad_parameter",
		      "q: non-printable");
	epoch_unref(e);
	tu_expect_err(apiq_search(NULL, "leaf", 20, &err), &err, 503, "not_routed", "no routing");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_routes_walked),
		cmocka_unit_test(test_topology_tree),
		cmocka_unit_test(test_topology_other),
		cmocka_unit_test(test_topology_shared),
		cmocka_unit_test(test_search),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
