/* SPDX-License-Identifier: MIT */
/*
 * Topology shape: tree levels and roots, horizontal links, dragonfly
 * groups, components, on generated fabrics with known structure.
 */
#include "gen/gen.h"
#include "tests/unit/testutil.h"

static void test_ft648(void **state)
{
	struct fabric *f = tu_gen("ft648", 1);
	struct fab_shape s;
	uint32_t roots = 0;

	tu_shape(f, &s);
	assert_true(s.is_tree);
	assert_int_equal(s.nlevels, 2);
	assert_int_equal(s.per_level[1], 36);
	assert_int_equal(s.per_level[2], 18);
	assert_int_equal(s.hlinks, 0);
	assert_int_equal(s.ngroups, 0);
	assert_int_equal(s.components, 1);
	for (uint32_t i = 0; i < f->nswitches; i++) {
		roots += s.level[i] == 2;
		assert_int_equal(s.group[i], FAB_NONE);
	}
	assert_int_equal(roots, 18);
	fab_shape_free(&s);
	fab_free(f);
}

static void test_rack_tree(void **state)
{
	struct fabric *f = tu_gen("ft648-rack racks=18 hosts=16 uplinks=18 hlinks=2", 1);
	struct fab_shape s;

	tu_shape(f, &s);
	assert_true(s.is_tree);
	assert_int_equal(s.nlevels, 3);
	assert_int_equal(s.per_level[1], 36);	/* rack switches */
	assert_int_equal(s.per_level[2], 36);	/* core leaves */
	assert_int_equal(s.per_level[3], 18);	/* core spines */
	assert_int_equal(s.hlinks, 36);		/* 18 pairs, 2 links each */
	fab_shape_free(&s);
	fab_free(f);
}

static void test_kary_and_faults(void **state)
{
	struct fabric *f = tu_gen("kary-ntree k=4 n=3", 1);
	struct fab_err err = { { 0 } };
	struct gen_faults faults = { .random_links = 3, .seed = 5 };
	struct fab_shape s;

	tu_shape(f, &s);
	assert_true(s.is_tree);
	assert_int_equal(s.nlevels, 3);
	for (unsigned l = 1; l <= 3; l++)
		assert_int_equal(s.per_level[l], 16);
	fab_shape_free(&s);
	/* a degraded tree is still a tree */
	assert_int_equal(gen_faults_apply(&f, &faults, &err), 0);
	tu_shape(f, &s);
	assert_true(s.is_tree);
	assert_int_equal(s.components, 1);
	fab_shape_free(&s);
	fab_free(f);
}

static void test_multicore(void **state)
{
	struct fabric *f = tu_gen("multicore cores=2 n=4 m=4 r=8 hlinks=1", 1);
	struct fab_shape s;

	tu_shape(f, &s);
	assert_true(s.is_tree);
	assert_int_equal(s.nlevels, 2);
	assert_int_equal(s.per_level[1], 16);
	assert_int_equal(s.per_level[2], 8);
	assert_int_equal(s.hlinks, 8);
	fab_shape_free(&s);
	fab_free(f);
}

static void test_dragonfly(void **state)
{
	struct fabric *f = tu_gen("dragonfly a=4 p=2 h=2", 1);
	struct fab_shape s;
	uint32_t size[9] = { 0 };

	tu_shape(f, &s);
	assert_false(s.is_tree);
	assert_int_equal(s.nlevels, 1);
	assert_int_equal(s.ngroups, 9);
	assert_int_equal(s.group_size, 4);
	for (uint32_t i = 0; i < f->nswitches; i++) {
		assert_true(s.group[i] < 9);
		size[s.group[i]]++;
	}
	for (unsigned g = 0; g < 9; g++)
		assert_int_equal(size[g], 4);
	/* switches of one group are the generator's gNN-swK */
	for (uint32_t i = 0; i < f->nswitches; i++)
		for (uint32_t j = 0; j < f->nswitches; j++)
			assert_int_equal(s.group[i] == s.group[j],
					 !strncmp(fab_desc(f, f->switches[i]), fab_desc(f, f->switches[j]), 3));
	fab_shape_free(&s);
	fab_free(f);
}

static void test_direct_networks(void **state)
{
	struct fabric *f = tu_gen("mesh dims=4,4 hosts=1", 1);
	struct fab_shape s;

	tu_shape(f, &s);
	assert_false(s.is_tree);
	assert_int_equal(s.ngroups, 0);
	assert_int_equal(s.nlevels, 1);
	assert_int_equal(s.hlinks, 24);
	fab_shape_free(&s);
	fab_free(f);
	f = tu_gen("ring switches=8 hosts=1", 1);
	tu_shape(f, &s);
	assert_false(s.is_tree);
	assert_int_equal(s.ngroups, 0);
	fab_shape_free(&s);
	fab_free(f);
}

/* A switch chain with hosts at one end only is not a tree (horizontal links above level 1). */
static void test_ring_with_one_host(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_new();
	uint32_t sw[5], h;

	for (unsigned i = 0; i < 5; i++) {
		struct fab_node_info in = { .type = FAB_SWITCH, .guid = 0x10 + i, .nports = 4 };

		sw[i] = fab_node_add(f, &in, &err);
	}
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(fab_link_add(f, sw[i], 1, sw[(i + 1) % 5], 2, &err), 0);
	{
		struct fab_node_info in = { .type = FAB_CA, .guid = 0x100, .nports = 1 };

		h = fab_node_add(f, &in, &err);
	}
	assert_int_equal(fab_link_add(f, sw[0], 3, h, 1, &err), 0);
	assert_int_equal(fab_finalize(f, &err), 0);
	{
		struct fab_shape s;

		tu_shape(f, &s);
		assert_int_equal(s.nlevels, 3);
		assert_false(s.is_tree);
		assert_int_equal(s.hlinks, 1);
		fab_shape_free(&s);
	}
	fab_free(f);
}

static void test_components_and_unreachable(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_new();
	struct fab_node_info a = { .type = FAB_SWITCH, .guid = 0x10, .nports = 4 };
	struct fab_node_info b = { .type = FAB_SWITCH, .guid = 0x11, .nports = 4 };
	struct fab_node_info c = { .type = FAB_SWITCH, .guid = 0x12, .nports = 4 };
	struct fab_node_info h = { .type = FAB_CA, .guid = 0x100, .nports = 1 };
	uint32_t x = fab_node_add(f, &a, &err), y = fab_node_add(f, &b, &err);
	uint32_t z = fab_node_add(f, &c, &err), w = fab_node_add(f, &h, &err);
	struct fab_shape s;

	(void)z;
	assert_int_equal(fab_link_add(f, x, 1, w, 1, &err), 0);
	assert_int_equal(fab_link_add(f, x, 2, y, 1, &err), 0);
	assert_int_equal(fab_finalize(f, &err), 0);
	tu_shape(f, &s);
	assert_int_equal(s.components, 2);
	assert_int_equal(s.per_level[0], 1);	/* the lone switch has no level */
	assert_int_equal(s.level[2], 0);
	assert_false(s.is_tree);
	fab_shape_free(&s);
	fab_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ft648),
		cmocka_unit_test(test_rack_tree),
		cmocka_unit_test(test_kary_and_faults),
		cmocka_unit_test(test_multicore),
		cmocka_unit_test(test_dragonfly),
		cmocka_unit_test(test_direct_networks),
		cmocka_unit_test(test_ring_with_one_host),
		cmocka_unit_test(test_components_and_unreachable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
