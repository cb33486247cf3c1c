/* SPDX-License-Identifier: MIT */
/*
 * Fault injection on generated fabrics: explicit links and switches, random
 * faults that keep the switches connected, determinism, error cases.
 */
#include "tests/unit/testutil.h"

static int apply(struct fabric **f, const struct gen_faults *fl, struct fab_err *err)
{
	memset(err, 0, sizeof(*err));
	return gen_faults_apply(f, fl, err);
}

static void test_faults_explicit(void **state)
{
	struct fabric *f = tu_gen("kary-ntree k=4 n=3", 1);
	const char *links[] = { "leaf-00:5", "l2-00:1" };	/* the same link, twice */
	const char *ca_link[] = { "0x0002fab200000010:1" };
	const char *sw[] = { "spine-00" };
	struct gen_faults fl = { .links = links, .nlinks = 2 };
	uint32_t n7 = fab_node_by_desc(f, "node-07", NULL), nodes = f->nnodes;
	uint16_t lid7 = fab_port(f, n7, 1)->lid;
	struct fab_err err;

	(void)state;
	assert_int_equal(apply(&f, &fl, &err), 0);
	assert_int_equal(f->nlinks, 192 - 1);
	assert_int_equal(f->nnodes, nodes);
	assert_false(fab_port_linked(f, fab_node_by_desc(f, "leaf-00", NULL), 5));

	fl = (struct gen_faults){ .switches = sw, .nswitches = 1 };
	assert_int_equal(apply(&f, &fl, &err), 0);
	assert_int_equal(f->nswitches, 47);
	assert_int_equal(f->nlinks, 191 - 4);
	assert_int_equal(fab_node_by_desc(f, "spine-00", NULL), FAB_NONE);

	/* a CA losing its only link leaves the fabric; LIDs of the others stay */
	fl = (struct gen_faults){ .links = ca_link, .nlinks = 1 };
	assert_int_equal(apply(&f, &fl, &err), 0);
	assert_int_equal(tu_count_type(f, FAB_CA), 63);
	assert_int_equal(fab_node_by_desc(f, "node-00", NULL), FAB_NONE);
	n7 = fab_node_by_desc(f, "node-07", NULL);
	assert_int_equal(fab_port(f, n7, 1)->lid, lid7);
	fab_free(f);

	/* a removed leaf takes its CAs along */
	f = tu_gen("kary-ntree k=4 n=3", 1);
	sw[0] = "leaf-03";
	fl = (struct gen_faults){ .switches = sw, .nswitches = 1 };
	assert_int_equal(apply(&f, &fl, &err), 0);
	assert_int_equal(f->nnodes, 112 - 1 - 4);
	fab_free(f);
}

static void test_faults_random(void **state)
{
	struct gen_faults fl = { .random_links = 40, .random_switches = 5, .seed = 11 };
	struct fabric *a = tu_gen("xgft h=3 m=4,4,4 w=1,4,4", 1);
	struct fabric *b = tu_gen("xgft h=3 m=4,4,4 w=1,4,4", 1);
	struct fabric *c = tu_gen("xgft h=3 m=4,4,4 w=1,4,4", 1);
	struct fab_err err;

	(void)state;
	assert_int_equal(apply(&a, &fl, &err), 0);
	assert_int_equal(apply(&b, &fl, &err), 0);
	fl.seed = 12;
	assert_int_equal(apply(&c, &fl, &err), 0);
	tu_assert_same(a, b);
	assert_true(fab_topology_hash(a) != fab_topology_hash(c));
	assert_int_equal(a->nswitches, 48 - 5);
	assert_int_equal(tu_reached(a, 1), a->nswitches);
	assert_int_equal(tu_reached(c, 1), c->nswitches);
	fab_free(a);
	fab_free(b);
	fab_free(c);

	/* a ring loses one link and stays connected; a path has only bridges */
	a = tu_gen("ring switches=6 hosts=1", 1);
	fl = (struct gen_faults){ .random_links = 1, .seed = 5 };
	assert_int_equal(apply(&a, &fl, &err), 0);
	assert_int_equal(tu_sw_links(a), 5);
	assert_int_equal(tu_reached(a, 1), 6);
	/* switches can go down to one: the ends of the path */
	fl = (struct gen_faults){ .random_switches = 5, .seed = 5 };
	assert_int_equal(apply(&a, &fl, &err), 0);
	assert_int_equal(a->nswitches, 1);
	assert_int_equal(tu_count_type(a, FAB_CA), 1);
	fab_free(a);
}

/* A 4x4 mesh (24 links) loses links down to a spanning tree, or 12 of 16 switches. */
static void test_faults_to_the_limit(void **state)
{
	struct fab_err err;

	(void)state;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct fabric *f = tu_gen("mesh dims=4,4 hosts=1", 1);
		struct gen_faults fl = { .random_links = 24 - 15, .seed = seed };

		assert_int_equal(apply(&f, &fl, &err), 0);
		assert_int_equal(tu_sw_links(f), 15);
		assert_int_equal(tu_reached(f, 1), 16);
		fab_free(f);

		f = tu_gen("mesh dims=4,4 hosts=1", 1);
		fl = (struct gen_faults){ .random_switches = 12, .seed = seed };
		assert_int_equal(apply(&f, &fl, &err), 0);
		assert_int_equal(f->nswitches, 4);
		assert_int_equal(tu_reached(f, 1), 4);
		assert_int_equal(tu_count_type(f, FAB_CA), 4);
		fab_free(f);
	}
}

/* Two switches joined by two parallel links: one may go, not both. */
static void test_faults_parallel(void **state)
{
	struct fab_node_info sw = { .type = FAB_SWITCH, .nports = 4 };
	struct fab_node_info ca = { .type = FAB_CA, .nports = 1 };
	struct fabric *f = fab_new();
	struct gen_faults fl = { .random_links = 1, .seed = 3 };
	struct fab_err err = { { 0 } };

	(void)state;
	assert_non_null(f);
	sw.guid = 0x10;
	assert_int_equal(fab_node_add(f, &sw, &err), 0);
	sw.guid = 0x20;
	assert_int_equal(fab_node_add(f, &sw, &err), 1);
	ca.guid = 0x100;
	assert_int_equal(fab_node_add(f, &ca, &err), 2);
	ca.guid = 0x200;
	assert_int_equal(fab_node_add(f, &ca, &err), 3);
	assert_int_equal(fab_link_add(f, 0, 1, 2, 1, &err), 0);
	assert_int_equal(fab_link_add(f, 1, 1, 3, 1, &err), 0);
	assert_int_equal(fab_link_add(f, 0, 2, 1, 2, &err), 0);
	assert_int_equal(fab_link_add(f, 0, 3, 1, 3, &err), 0);
	assert_int_equal(fab_finalize(f, &err), 0);
	assert_int_equal(apply(&f, &fl, &err), 0);
	assert_int_equal(tu_sw_links(f), 1);
	assert_int_equal(apply(&f, &fl, &err), -1);
	assert_non_null(strstr(err.msg, "only 0 of 1"));
	fab_free(f);
}

static void fault_fails(struct fabric **f, const struct gen_faults *fl, const char *needle)
{
	struct fabric *before = *f;
	uint64_t hash = fab_topology_hash(*f);
	struct fab_err err;

	assert_int_equal(apply(f, fl, &err), -1);
	assert_ptr_equal(*f, before);
	assert_true(fab_topology_hash(*f) == hash);
	if (!strstr(err.msg, needle))
		fail_msg("error \"%s\" does not contain \"%s\"", err.msg, needle);
}

static void test_faults_errors(void **state)
{
	struct fabric *f = tu_gen("ring switches=5 hosts=1", 1);
	const char *bad[] = { "sw-9:3", "sw-1:9", "sw-1", "sw-1:x", "0x0002fab1000000ff:2" };
	const char *need[] = { "no node \"sw-9\"", "has ports 1 to 3",
			       "expected NODE:PORT", "expected NODE:PORT", "no node" };
	const char *ca[] = { "node-01" }, *ok[] = { "sw-1:3" }, *unlinked[] = { "sw-1:3" };
	struct gen_faults fl;
	struct fab_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fl = (struct gen_faults){ .links = &bad[i], .nlinks = 1 };
		fault_fails(&f, &fl, need[i]);
	}
	fl = (struct gen_faults){ .switches = ca, .nswitches = 1 };
	fault_fails(&f, &fl, "\"node-01\" is a CA, not a switch");
	fl = (struct gen_faults){ .random_links = 2 };
	fault_fails(&f, &fl, "only 1 of 2 random switch-to-switch links");
	fl = (struct gen_faults){ .random_switches = 5 };
	fault_fails(&f, &fl, "only 4 of 5 random switches");
	/* an explicit link, then the same port again in a second call */
	fl = (struct gen_faults){ .links = ok, .nlinks = 1 };
	assert_int_equal(apply(&f, &fl, &err), 0);
	fl = (struct gen_faults){ .links = unlinked, .nlinks = 1 };
	fault_fails(&f, &fl, "port 3 of \"sw-1\" is not linked");
	/* the ring is now a path: every link is a bridge */
	fl = (struct gen_faults){ .random_links = 1 };
	fault_fails(&f, &fl, "only 0 of 1");
	fab_free(f);
}

/* @a and @b hold the same nodes, ports (states too), lists and links. */
static void same_fabric(const struct fabric *a, const struct fabric *b)
{
	tu_assert_same(a, b);
	assert_int_equal(a->nswitches, b->nswitches);
	assert_int_equal(a->neps, b->neps);
	assert_int_equal(a->nlinks, b->nlinks);
	for (uint32_t e = 0; e < a->neps; e++) {
		assert_int_equal(a->eps[e].node, b->eps[e].node);
		assert_int_equal(a->eps[e].port, b->eps[e].port);
	}
	for (uint32_t i = 0; i < a->nnodes; i++)
		for (unsigned p = 1; p <= a->nodes[i].nports; p++) {
			assert_int_equal(fab_port(a, i, p)->phys, fab_port(b, i, p)->phys);
			assert_int_equal(fab_port(a, i, p)->state, fab_port(b, i, p)->state);
		}
}

/*
 * Links only, every node still linked: gen_faults_applied() takes one copy
 * of the fabric; it gives what the copies without the switches and without
 * the unlinked nodes give (ports in another state than active, too), and
 * leaves the fabric it reads as it was.
 */
static void test_faults_links_only(void **state)
{
	struct fabric *f = tu_gen("kary-ntree k=4 n=3", 1), *got, *c, *want;
	const char *links[] = { "leaf-00:5", "l2-03:2", "spine-05:1" };
	struct gen_faults fl = { .links = links, .nlinks = 3 };
	uint8_t *none = calloc(f->nnodes + 1u, 1);
	uint64_t hash = fab_topology_hash(f);
	struct fab_err err = { { 0 } };

	(void)state;
	fab_port(f, fab_node_by_desc(f, "leaf-01", NULL), 6)->state = FAB_LOG_ARMED;
	got = gen_faults_applied(f, &fl, &err);
	assert_non_null(got);
	assert_true(fab_topology_hash(f) == hash);
	assert_int_equal(fab_port(f, fab_node_by_desc(f, "leaf-01", NULL), 6)->state, FAB_LOG_ARMED);
	c = fab_subset(f, none, &err);
	assert_non_null(c);
	for (size_t i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(links[i], ":"), links[i]);
		fab_link_remove(c, fab_node_by_desc(c, name, NULL),
				(unsigned)atoi(strchr(links[i], ':') + 1));
	}
	want = fab_subset(c, none, &err);
	assert_non_null(want);
	same_fabric(got, want);
	assert_int_equal(got->nlinks, f->nlinks - 3);
	fab_free(got);
	fab_free(c);
	fab_free(want);
	free(none);
	fab_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_faults_explicit),
		cmocka_unit_test(test_faults_random),
		cmocka_unit_test(test_faults_to_the_limit),
		cmocka_unit_test(test_faults_parallel),
		cmocka_unit_test(test_faults_errors),
		cmocka_unit_test(test_faults_links_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
