/* SPDX-License-Identifier: MIT */
/*
 * The REST API's fabric queries, called directly: VL usage with and
 * without a credit loop, the fabric summary, the node, link and LID
 * listings, and the engines.
 */
#include "tests/unit/testutil.h"

#include "api/query.h"

static void test_vl_usage(void **state)
{
	struct epoch *e = tu_kary_epoch();
	struct api_err err;
	json_t *j = apiq_vl_usage(e, &err), *vls, *v;

	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "deadlock_free")));
	assert_int_equal(json_array_size(json_object_get(j, "vls_used")), 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(j, "vls_used"), 0)), 0);
	vls = json_object_get(j, "vls");
	assert_int_equal(json_array_size(vls), 1);
	v = json_array_get(vls, 0);
	assert_int_equal(tu_jint(v, "vl"), 0);
	assert_true(json_is_true(json_object_get(v, "acyclic")));
	assert_true(json_is_null(json_object_get(v, "cycle")));
	assert_false(json_is_true(json_object_get(json_object_get(j, "cross_vl"), "cycle")));
	v = json_object_get(j, "sl2vl");
	assert_int_equal(tu_jint(v, "switches_with_tables"), 0);
	assert_true(json_is_true(json_object_get(v, "identity")));
	assert_int_equal(json_array_size(json_object_get(v, "sls_used")), 1);
	json_decref(j);
	epoch_unref(e);

	/* minhop on a ring closes a credit loop */
	e = tu_gen_epoch("ring switches=6", "minhop");
	j = apiq_vl_usage(e, &err);
	assert_non_null(j);
	assert_false(json_is_true(json_object_get(j, "deadlock_free")));
	v = json_array_get(json_object_get(j, "vls"), 0);
	assert_false(json_is_true(json_object_get(v, "acyclic")));
	assert_int_equal(json_array_size(json_object_get(v, "cycle")),
			 e->report.cdg.vl[0].cycle_len);
	assert_true(tu_jint(json_array_get(json_object_get(v, "cycle"), 0), "port") > 0);
	json_decref(j);
	epoch_unref(e);
}

static void test_fabric_summary(void **state)
{
	struct epoch *e = tu_kary_epoch();
	const struct fabric *f = e->fabric;
	struct api_err err;
	json_t *j = apiq_fabric(e, &err), *v;
	struct fab_err ferr = { { 0 } };
	char hash[24], digest[RT_DIGEST_HEX];

	assert_non_null(j);
	snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)fab_topology_hash(f));
	assert_string_equal(tu_jstr(j, "topology_hash"), hash);
	assert_int_equal(tu_jint(j, "nodes"), f->nnodes);
	assert_int_equal(tu_jint(j, "switches"), 12);
	assert_int_equal(tu_jint(j, "cas"), 8);
	assert_int_equal(tu_jint(j, "routers"), 0);
	assert_int_equal(tu_jint(j, "links"), f->nlinks);
	assert_int_equal(tu_jint(j, "endpoints"), f->neps);
	assert_int_equal(tu_jint(j, "lid_top"), f->lid_top);
	v = json_object_get(j, "shape");
	assert_true(json_is_true(json_object_get(v, "is_tree")));
	assert_int_equal(tu_jint(v, "levels"), 3);
	assert_int_equal(tu_jint(v, "components"), 1);
	v = json_object_get(j, "routing");
	assert_true(json_is_true(json_object_get(v, "ready")));
	assert_true(json_is_true(json_object_get(v, "connected")));
	assert_int_equal(tu_jint(v, "max_link_load"), e->report.load.max);
	assert_int_equal(rt_digest(f, e->routing, digest, &ferr), 0);
	assert_string_equal(tu_jstr(v, "digest"), digest);
	assert_string_equal(epoch_digest(e), digest);
	json_decref(j);
	epoch_unref(e);
}

static void test_nodes(void **state)
{
	struct epoch *e = tu_kary_epoch();
	const struct fabric *f = e->fabric;
	struct api_err err;
	json_t *j, *v;
	size_t i;

	j = apiq_nodes(e, "sw", &err);
	assert_int_equal(tu_jint(j, "count"), f->nswitches);
	json_array_foreach(json_object_get(j, "nodes"), i, v) {
		assert_string_equal(tu_jstr(v, "type"), "SW");
		assert_int_equal(tu_jint(v, "lid"), fab_ep_lid(f, i));
	}
	json_decref(j);
	j = apiq_nodes(e, "CA", &err);
	assert_int_equal(tu_jint(j, "count"), 8);
	v = json_array_get(json_object_get(j, "nodes"), 0);
	assert_int_equal(tu_jint(v, "links"), 1);
	assert_int_equal(tu_jint(v, "lid"), fab_ep_lid(f, tu_ep_named(f, tu_jstr(v, "node"))));
	json_decref(j);
	j = apiq_nodes(e, "rt", &err);
	assert_int_equal(tu_jint(j, "count"), 0);
	json_decref(j);
	j = apiq_nodes(e, NULL, &err);
	assert_int_equal(tu_jint(j, "count"), f->nnodes);
	json_decref(j);
	tu_expect_err(apiq_nodes(e, "switch", &err), &err, 400, "bad_parameter", "type: 'switch'");
	tu_expect_err(apiq_nodes(e, "", &err), &err, 400, "bad_parameter", "type: ");
	epoch_unref(e);
}

static void test_node(void **state)
{
	struct epoch *e = tu_kary_epoch();
	const struct fabric *f = e->fabric;
	struct api_err err;
	json_t *j = apiq_node(e, "leaf-00", &err), *k, *p;

	/* a switch: ports 0..4, and its LFT routes every LID */
	assert_non_null(j);
	assert_string_equal(tu_jstr(j, "type"), "SW");
	assert_int_equal(json_array_size(json_object_get(j, "ports")), 5);
	assert_int_equal(tu_jint(json_object_get(j, "lft"), "entries"), f->neps);
	assert_int_equal(tu_jint(json_object_get(j, "lft"), "lid_top"), f->lid_top);
	p = json_array_get(json_object_get(j, "ports"), 1);
	assert_string_equal(tu_jstr(json_object_get(p, "peer"), "node"), "node-00");
	assert_string_equal(tu_jstr(p, "state"), "active");
	/* the same node by node GUID and by LID */
	k = apiq_node(e, "0x0002fab100000001", &err);
	assert_true(json_equal(j, k));
	json_decref(k);
	k = apiq_node(e, "1", &err);
	assert_true(json_equal(j, k));
	json_decref(k);
	json_decref(j);
	/* a CA by port GUID: no "lft" */
	j = apiq_node(e, "0x0002fab200000011", &err);
	assert_non_null(j);
	assert_string_equal(tu_jstr(j, "node"), "node-00");
	assert_string_equal(tu_jstr(j, "guid"), "0x0002fab200000010");
	assert_null(json_object_get(j, "lft"));
	assert_int_equal(json_array_size(json_object_get(j, "ports")), 1);
	json_decref(j);
	tu_expect_err(apiq_node(e, "0x0002fab2deadbeef", &err), &err, 404, "not_found", "node: ");
	tu_expect_err(apiq_node(e, "nobody", &err), &err, 404, "not_found", "node: ");
	tu_expect_err(apiq_node(e, NULL, &err), &err, 400, "missing_parameter", "node: ");
	epoch_unref(e);
}

static void test_links_and_lids(void **state)
{
	struct epoch *e = tu_kary_epoch();
	const struct fabric *f = e->fabric;
	struct api_err err;
	json_t *j = apiq_links(e, 0, SIZE_MAX / 2, &err), *v, *page;
	json_int_t prev = 0;
	size_t i;

	assert_int_equal(tu_jint(j, "count"), f->nlinks);
	assert_int_equal(json_array_size(json_object_get(j, "links")), f->nlinks);
	assert_false(json_is_true(json_object_get(j, "more")));
	/* a page: the same links from offset 3, 5 of them, more beyond */
	page = apiq_links(e, 3, 5, &err);
	assert_int_equal(tu_jint(page, "count"), f->nlinks);
	assert_int_equal(tu_jint(page, "offset"), 3);
	assert_int_equal(json_array_size(json_object_get(page, "links")), 5);
	assert_true(json_equal(json_array_get(json_object_get(page, "links"), 0),
			       json_array_get(json_object_get(j, "links"), 3)));
	assert_true(json_is_true(json_object_get(page, "more")));
	json_decref(page);
	page = apiq_links(e, f->nlinks - 2, 5, &err);
	assert_int_equal(json_array_size(json_object_get(page, "links")), 2);
	assert_false(json_is_true(json_object_get(page, "more")));
	json_decref(page);
	json_array_foreach(json_object_get(j, "links"), i, v) {
		json_t *a = json_object_get(v, "a"), *b = json_object_get(v, "b");
		uint32_t na = fab_node_by_desc(f, tu_jstr(a, "node"), NULL);
		const struct fab_port *x = fab_port(f, na, (unsigned)tu_jint(a, "port"));

		assert_string_equal(tu_jstr(b, "node"), fab_desc(f, x->peer));
		assert_int_equal(tu_jint(b, "port"), x->peer_port);
		assert_true(na < x->peer);	/* once, from the lower end */
	}
	json_decref(j);

	j = apiq_lids(e, &err);
	assert_int_equal(tu_jint(j, "count"), f->neps);
	json_array_foreach(json_object_get(j, "lids"), i, v) {
		uint32_t ep = fab_ep_by_lid(f, (unsigned)tu_jint(v, "lid"));

		assert_true(tu_jint(v, "lid") > prev);
		prev = tu_jint(v, "lid");
		assert_string_equal(tu_jstr(v, "node"), fab_desc(f, f->eps[ep].node));
		assert_int_equal(tu_jint(v, "port"), f->eps[ep].port);
	}
	json_decref(j);
	epoch_unref(e);
}

static void test_engines(void **state)
{
	struct epoch *e = tu_gen_epoch("ft648", "sftree,minhop");
	struct api_err err;
	json_t *j = apiq_engines(e, &err), *list;
	const struct engine *const *all;
	size_t n;

	assert_non_null(j);
	all = eng_all(&n);
	list = json_object_get(j, "engines");
	assert_int_equal(json_array_size(list), n);
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(list, i);
		int in = !strcmp(all[i]->name, "sftree") || !strcmp(all[i]->name, "minhop");

		assert_string_equal(tu_jstr(v, "name"), all[i]->name);
		assert_int_equal(json_is_true(json_object_get(v, "selected")), in);
		assert_true(json_is_array(json_object_get(v, "options")));
	}
	assert_string_equal(tu_jstr(j, "chain"), "sftree,minhop");
	assert_string_equal(tu_jstr(j, "engine"), "sftree");
	assert_int_equal(tu_jint(json_object_get(j, "epoch"), "seq"), 7);
	json_decref(j);
	epoch_unref(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vl_usage),
		cmocka_unit_test(test_fabric_summary),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_node),
		cmocka_unit_test(test_links_and_lids),
		cmocka_unit_test(test_engines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
