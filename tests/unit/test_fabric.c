/* SPDX-License-Identifier: MIT */
/*
 * The fabric model: building, links, lookups, topology hash, subsets and
 * LID assignment, on small fabrics built through the API.
 */
#include "tests/unit/testutil.h"

#define SW(i) (0x100ull + (i))
#define CA(i) (0x1000ull + (i) * 0x10)

static uint32_t add(struct fabric *f, enum fab_node_type t, uint64_t guid, unsigned nports,
		    const char *desc)
{
	struct fab_err err = { { 0 } };
	struct fab_node_info in = { .type = t, .guid = guid, .nports = nports, .desc = desc };
	uint32_t n = fab_node_add(f, &in, &err);

	if (n == FAB_NONE)
		fail_msg("fab_node_add: %s", err.msg);
	return n;
}

static void link(struct fabric *f, uint32_t a, unsigned pa, uint32_t b, unsigned pb)
{
	struct fab_err err = { { 0 } };

	if (fab_link_add(f, a, pa, b, pb, &err))
		fail_msg("fab_link_add: %s", err.msg);
}

static void finalize(struct fabric *f)
{
	struct fab_err err = { { 0 } };

	if (fab_finalize(f, &err))
		fail_msg("fab_finalize: %s", err.msg);
}

/* s0 -- s1 with two parallel links; h0, h1 on s0; h2 (2 ports) on s1. */
static struct fabric *small(void)
{
	struct fabric *f = fab_new();
	uint32_t s0, s1, h0, h1, h2;

	assert_non_null(f);
	s0 = add(f, FAB_SWITCH, SW(0), 8, "s0");
	s1 = add(f, FAB_SWITCH, SW(1), 8, "s1");
	h0 = add(f, FAB_CA, CA(0), 1, "h0");
	h1 = add(f, FAB_CA, CA(1), 1, "h1");
	h2 = add(f, FAB_CA, CA(2), 2, "h2");
	link(f, s0, 1, h0, 1);
	link(f, s0, 2, h1, 1);
	link(f, s0, 3, s1, 3);
	link(f, s0, 4, s1, 4);
	link(f, s1, 1, h2, 1);
	link(f, s1, 2, h2, 2);
	finalize(f);
	return f;
}

static void test_build_counts(void **state)
{
	struct fabric *f = small();

	assert_int_equal(f->nnodes, 5);
	assert_int_equal(f->nswitches, 2);
	assert_int_equal(f->nlinks, 6);
	/* endpoints: 2 switch port 0, h0, h1, h2 port 1 and 2 */
	assert_int_equal(f->neps, 6);
	assert_int_equal(f->eps[0].port, 0);
	assert_int_equal(f->eps[1].port, 0);
	assert_int_equal(f->nodes[f->switches[1]].swidx, 1);
	assert_int_equal(fab_port(f, 2, 1)->guid, CA(0) + 1);
	assert_int_equal(fab_port(f, 0, 5)->guid, SW(0));
	assert_int_equal(fab_port(f, 0, 3)->peer, 1);
	assert_int_equal(fab_port(f, 0, 3)->peer_port, 3);
	assert_int_equal(fab_port(f, 0, 3)->phys, FAB_PHYS_LINKUP);
	assert_int_equal(fab_port(f, 0, 5)->phys, FAB_PHYS_POLLING);
	fab_free(f);
}

static void test_link_errors(void **state)
{
	struct fabric *f = small();
	struct fab_err err = { { 0 } };

	/* the same link from the other end is accepted */
	assert_int_equal(fab_link_add(f, 1, 3, 0, 3, &err), 0);
	assert_int_equal(fab_link_add(f, 0, 1, 1, 5, &err), -1);
	assert_non_null(strstr(err.msg, "linked twice"));
	assert_int_equal(fab_link_add(f, 0, 9, 1, 5, &err), -1);
	assert_non_null(strstr(err.msg, "ports 1 to 8, not port 9"));
	assert_int_equal(fab_link_add(f, 0, 0, 1, 5, &err), -1);
	assert_int_equal(fab_link_add(f, 0, 6, 0, 6, &err), -1);
	assert_non_null(strstr(err.msg, "linked to itself"));
	assert_int_equal(fab_link_add(f, 77, 1, 1, 5, &err), -1);
	fab_free(f);
}

static void test_node_errors(void **state)
{
	struct fabric *f = fab_new();
	struct fab_err err = { { 0 } };
	struct fab_node_info in = { .type = FAB_SWITCH, .guid = 5, .nports = 255 };

	assert_int_equal(fab_node_add(f, &in, &err), FAB_NONE);
	assert_non_null(strstr(err.msg, "255 ports"));
	in.nports = 0;
	assert_int_equal(fab_node_add(f, &in, &err), FAB_NONE);
	in.nports = 4;
	in.guid = 0;
	assert_int_equal(fab_node_add(f, &in, &err), FAB_NONE);
	in.guid = 5;
	in.type = 9;
	assert_int_equal(fab_node_add(f, &in, &err), FAB_NONE);
	assert_non_null(strstr(err.msg, "unknown node type"));
	fab_free(f);
}

static void test_duplicate_guids(void **state)
{
	struct fabric *f = fab_new();
	struct fab_err err = { { 0 } };
	uint32_t a, b, c;

	a = add(f, FAB_SWITCH, SW(0), 4, "a");
	b = add(f, FAB_SWITCH, SW(0), 4, "b");
	link(f, a, 1, b, 1);
	assert_int_equal(fab_finalize(f, &err), -1);
	assert_non_null(strstr(err.msg, "duplicate node GUID"));
	fab_free(f);

	f = fab_new();
	a = add(f, FAB_SWITCH, SW(0), 4, "a");
	b = add(f, FAB_CA, CA(0), 1, "b");
	c = add(f, FAB_CA, CA(1), 1, "c");
	link(f, a, 1, b, 1);
	link(f, a, 2, c, 1);
	fab_port_set_guid(f, c, 1, CA(0) + 1);
	assert_int_equal(fab_finalize(f, &err), -1);
	assert_non_null(strstr(err.msg, "duplicate port GUID"));
	fab_free(f);
}

static void test_lookups(void **state)
{
	struct fabric *f = small();
	struct fab_err err = { { 0 } };
	unsigned count;
	uint32_t e;

	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err), 0);
	assert_int_equal(fab_node_by_guid(f, SW(1)), 1);
	assert_int_equal(fab_node_by_guid(f, 0xdead), FAB_NONE);
	assert_int_equal(fab_node_by_desc(f, "h2", &count), 4);
	assert_int_equal(count, 1);
	assert_int_equal(fab_node_by_desc(f, "nope", &count), FAB_NONE);
	assert_int_equal(count, 0);
	e = fab_ep_by_port_guid(f, CA(2) + 2);
	assert_int_not_equal(e, FAB_NONE);
	assert_int_equal(f->eps[e].node, 4);
	assert_int_equal(f->eps[e].port, 2);
	assert_int_equal(fab_ep_by_lid(f, fab_ep_lid(f, e)), e);
	assert_int_equal(fab_ep_of_node(f, 4, 2), e);
	assert_int_equal(fab_ep_of_node(f, 1, 0), 1);
	assert_int_equal(fab_ep_by_port_guid(f, SW(1)), 1);
	assert_int_equal(fab_ep_by_lid(f, 0), FAB_NONE);
	assert_int_equal(fab_ep_by_lid(f, 0xC000), FAB_NONE);
	fab_free(f);
}

static void test_duplicate_desc_count(void **state)
{
	struct fabric *f = fab_new();
	unsigned count;
	uint32_t s = add(f, FAB_SWITCH, SW(0), 4, "sw");

	for (unsigned i = 0; i < 3; i++)
		link(f, s, i + 1, add(f, FAB_CA, CA(i), 1, "MT4099 ConnectX3"), 1);
	finalize(f);
	assert_int_equal(fab_node_by_desc(f, "MT4099 ConnectX3", &count), 1);
	assert_int_equal(count, 3);
	fab_free(f);
}

static void test_lids_default_order(void **state)
{
	struct fabric *f = small();
	struct fab_err err = { { 0 } };

	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err), 0);
	/* switches by GUID first, then CA ports by port GUID */
	assert_int_equal(fab_port(f, 0, 0)->lid, 1);
	assert_int_equal(fab_port(f, 1, 0)->lid, 2);
	assert_int_equal(fab_port(f, 2, 1)->lid, 3);
	assert_int_equal(fab_port(f, 3, 1)->lid, 4);
	assert_int_equal(fab_port(f, 4, 1)->lid, 5);
	assert_int_equal(fab_port(f, 4, 2)->lid, 6);
	assert_int_equal(f->lid_top, 6);
	fab_free(f);
}

static void test_lids_lmc(void **state)
{
	struct fabric *f = small();
	struct fab_err err = { { 0 } };
	uint32_t e;

	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 2, &err), 0);
	assert_int_equal(fab_port(f, 0, 0)->lmc, 0);
	assert_int_equal(fab_port(f, 1, 0)->lid, 2);
	/* first CA port: next multiple of 4 */
	assert_int_equal(fab_port(f, 2, 1)->lid, 4);
	assert_int_equal(fab_port(f, 2, 1)->lmc, 2);
	assert_int_equal(fab_port(f, 3, 1)->lid, 8);
	assert_int_equal(fab_port(f, 4, 2)->lid, 16);
	assert_int_equal(f->lid_top, 19);
	e = fab_ep_of_node(f, 3, 1);
	for (unsigned l = 8; l < 12; l++)
		assert_int_equal(fab_ep_by_lid(f, l), e);
	assert_int_equal(fab_ep_by_lid(f, 3), FAB_NONE);
	fab_free(f);
}

static void test_lids_pins_and_keep(void **state)
{
	struct fabric *f = small();
	struct fab_err err = { { 0 } };
	struct fab_lid_pin pins[] = {
		{ CA(1) + 1, 40, 1 },	/* h1 */
		{ SW(1), 7, 0 },	/* s1 port 0 */
		{ 0x99999, 3, 0 },	/* not in this fabric: ignored */
	};

	assert_int_equal(fab_lids_assign(f, pins, 3, FAB_LIDS_RENEW, 0, &err), 0);
	assert_int_equal(fab_port(f, 3, 1)->lid, 40);
	assert_int_equal(fab_port(f, 3, 1)->lmc, 1);
	assert_int_equal(fab_port(f, 1, 0)->lid, 7);
	assert_int_equal(fab_port(f, 0, 0)->lid, 1);
	assert_int_equal(fab_port(f, 2, 1)->lid, 2);
	assert_int_equal(fab_ep_by_lid(f, 41), fab_ep_of_node(f, 3, 1));

	/* keep: existing LIDs stay, a new pin wins over a kept LID it collides with */
	pins[0] = (struct fab_lid_pin){ CA(0) + 1, 7, 0 };
	assert_int_equal(fab_lids_assign(f, pins, 1, FAB_LIDS_KEEP, 0, &err), 0);
	assert_int_equal(fab_port(f, 2, 1)->lid, 7);
	assert_int_equal(fab_port(f, 3, 1)->lid, 40);
	assert_int_not_equal(fab_port(f, 1, 0)->lid, 7);
	assert_int_not_equal(fab_port(f, 1, 0)->lid, 0);
	fab_free(f);
}

static void test_lids_pin_errors(void **state)
{
	struct fabric *f = small();
	struct fab_err err = { { 0 } };
	struct fab_lid_pin bad_align[] = { { CA(1) + 1, 41, 1 } };
	struct fab_lid_pin twice[] = { { CA(1) + 1, 40, 0 }, { CA(1) + 1, 42, 0 } };
	struct fab_lid_pin overlap[] = { { CA(1) + 1, 40, 1 }, { CA(0) + 1, 41, 0 } };

	assert_int_equal(fab_lids_assign(f, bad_align, 1, FAB_LIDS_RENEW, 0, &err), -1);
	assert_non_null(strstr(err.msg, "0x0000000000001011"));
	assert_int_equal(fab_lids_assign(f, twice, 2, FAB_LIDS_RENEW, 0, &err), -1);
	assert_non_null(strstr(err.msg, "listed twice"));
	assert_int_equal(fab_lids_assign(f, overlap, 2, FAB_LIDS_RENEW, 0, &err), -1);
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 8, &err), -1);
	fab_free(f);
}

static void test_lids_exhausted(void **state)
{
	struct fabric *f = fab_new();
	struct fab_err err = { { 0 } };
	uint32_t sw[4];

	/* 400 CA ports with LMC 7 need 51200 LIDs: more than 0xBFFF */
	for (unsigned s = 0; s < 4; s++)
		sw[s] = add(f, FAB_SWITCH, SW(s), 100, NULL);
	for (unsigned i = 0; i < 400; i++)
		link(f, sw[i / 100], i % 100 + 1, add(f, FAB_CA, CA(i), 1, NULL), 1);
	finalize(f);
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 7, &err), -1);
	assert_non_null(strstr(err.msg, "out of unicast LIDs"));
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 6, &err), 0);
	assert_int_equal(f->lid_top, 64 * 401 - 1);
	fab_free(f);
}

static void test_finalize_lid_checks(void **state)
{
	struct fabric *f = small();
	struct fab_err err = { { 0 } };

	fab_port(f, 2, 1)->lid = 5;
	fab_port(f, 3, 1)->lid = 5;
	assert_int_equal(fab_finalize(f, &err), -1);
	assert_non_null(strstr(err.msg, "LID 5 is owned twice"));
	fab_port(f, 3, 1)->lid = 6;
	fab_port(f, 3, 1)->lmc = 2;
	assert_int_equal(fab_finalize(f, &err), -1);
	assert_non_null(strstr(err.msg, "not aligned"));
	fab_port(f, 3, 1)->lid = 0xC000;
	fab_port(f, 3, 1)->lmc = 0;
	assert_int_equal(fab_finalize(f, &err), -1);
	assert_non_null(strstr(err.msg, "past the unicast range"));
	fab_port(f, 3, 1)->lid = 8;
	fab_port(f, 3, 1)->lmc = 2;
	assert_int_equal(fab_finalize(f, &err), 0);
	assert_int_equal(f->lid_top, 11);
	fab_free(f);
}

static void test_hash(void **state)
{
	struct fabric *a = small(), *b = fab_new();
	struct fab_err err = { { 0 } };
	uint32_t s0, s1, h0, h1, h2;
	uint64_t ha = fab_topology_hash(a);

	/* same graph, other order, other descriptions and LIDs */
	h2 = add(b, FAB_CA, CA(2), 2, "x");
	s1 = add(b, FAB_SWITCH, SW(1), 8, "y");
	h1 = add(b, FAB_CA, CA(1), 1, NULL);
	s0 = add(b, FAB_SWITCH, SW(0), 8, "z");
	h0 = add(b, FAB_CA, CA(0), 1, NULL);
	link(b, s1, 2, h2, 2);
	link(b, h2, 1, s1, 1);
	link(b, s1, 4, s0, 4);
	link(b, s0, 3, s1, 3);
	link(b, h1, 1, s0, 2);
	link(b, h0, 1, s0, 1);
	finalize(b);
	assert_int_equal(fab_lids_assign(b, NULL, 0, FAB_LIDS_RENEW, 3, &err), 0);
	assert_true(fab_topology_hash(b) == ha);

	/* moving one cable changes it (finalizing put the nodes in GUID order) */
	s0 = fab_node_by_guid(b, SW(0));
	s1 = fab_node_by_guid(b, SW(1));
	fab_link_remove(b, s0, 4);
	link(b, s0, 5, s1, 4);
	finalize(b);
	assert_true(fab_topology_hash(b) != ha);
	fab_free(a);
	fab_free(b);
}

/*
 * small() built the other way round: nodes in another order, every link
 * declared from its other end, the SM on h1. Finalizing gives the same
 * model, array for array; the SM's node follows its node. fab_reorder()
 * moves nodes, links and the SM's node; finalizing puts them back.
 */
static void test_canonical_order(void **state)
{
	static const uint32_t rev[5] = { 4, 3, 2, 1, 0 };
	struct fabric *a = small(), *b = fab_new();
	struct fab_err err = { { 0 } };
	uint32_t s0, s1, h0, h1, h2;

	(void)state;
	h2 = add(b, FAB_CA, CA(2), 2, "h2");
	h1 = add(b, FAB_CA, CA(1), 1, "h1");
	s1 = add(b, FAB_SWITCH, SW(1), 8, "s1");
	h0 = add(b, FAB_CA, CA(0), 1, "h0");
	s0 = add(b, FAB_SWITCH, SW(0), 8, "s0");
	link(b, h2, 2, s1, 2);
	link(b, h2, 1, s1, 1);
	link(b, s1, 4, s0, 4);
	link(b, s1, 3, s0, 3);
	link(b, h1, 1, s0, 2);
	link(b, h0, 1, s0, 1);
	b->sm_node = h1;
	b->sm_port = 1;
	finalize(b);
	assert_int_equal(b->nnodes, a->nnodes);
	assert_int_equal(b->nports, a->nports);
	for (uint32_t n = 0; n < a->nnodes; n++) {
		assert_true(b->nodes[n].guid == a->nodes[n].guid);
		assert_int_equal(b->nodes[n].port0, a->nodes[n].port0);
		assert_int_equal(b->nodes[n].swidx, a->nodes[n].swidx);
		assert_string_equal(fab_desc(b, n), fab_desc(a, n));
	}
	assert_memory_equal(b->ports, a->ports, a->nports * sizeof(*a->ports));
	assert_int_equal(b->nswitches, a->nswitches);
	assert_memory_equal(b->switches, a->switches, a->nswitches * sizeof(*a->switches));
	assert_int_equal(b->neps, a->neps);
	for (uint32_t e = 0; e < a->neps; e++) {
		assert_int_equal(b->eps[e].node, a->eps[e].node);
		assert_int_equal(b->eps[e].port, a->eps[e].port);
	}
	assert_int_equal(b->sm_node, fab_node_by_guid(b, CA(1)));
	assert_int_equal(b->sm_port, 1);
	/* a second finalize keeps it */
	finalize(b);
	assert_memory_equal(b->ports, a->ports, a->nports * sizeof(*a->ports));
	/* reordered by hand, links and SM following, it is finalized back */
	assert_int_equal(fab_reorder(b, rev, &err), 0);
	assert_false(b->finalized);
	assert_true(b->nodes[0].guid == CA(2) && b->nodes[4].guid == SW(0));
	assert_int_equal(fab_port(b, 4, 3)->peer, 3);
	assert_int_equal(b->sm_node, 1);	/* h1 */
	finalize(b);
	assert_memory_equal(b->ports, a->ports, a->nports * sizeof(*a->ports));
	assert_int_equal(b->sm_node, fab_node_by_guid(b, CA(1)));
	fab_free(a);
	fab_free(b);
}

static void test_subset(void **state)
{
	struct fabric *f = small(), *g;
	struct fab_err err = { { 0 } };
	uint8_t drop[5] = { 0, 1, 0, 0, 0 };

	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err), 0);
	g = fab_subset(f, drop, &err);
	assert_non_null(g);
	/* s1 gone, h2 (only on s1) gone too */
	assert_int_equal(g->nnodes, 3);
	assert_int_equal(g->nlinks, 2);
	assert_int_equal(fab_node_by_guid(g, CA(2)), FAB_NONE);
	assert_int_equal(fab_port(g, 0, 3)->peer, FAB_NONE);
	assert_int_equal(fab_port(g, 0, 3)->phys, FAB_PHYS_POLLING);
	/* LIDs kept */
	assert_int_equal(fab_port(g, fab_node_by_guid(g, CA(1)), 1)->lid,
			 fab_port(f, 3, 1)->lid);
	fab_free(g);
	fab_free(f);
}

static void test_link_remove(void **state)
{
	struct fabric *f = small();

	fab_link_remove(f, 1, 2);
	assert_int_equal(fab_port(f, 4, 2)->peer, FAB_NONE);
	fab_link_remove(f, 1, 2);
	finalize(f);
	assert_int_equal(f->nlinks, 5);
	assert_int_equal(f->neps, 5);
	fab_free(f);
}

/* A link between switches taken out of a finalized fabric: what fab_finalize() would make. */
static void test_switch_link_remove(void **state)
{
	struct fabric *f = tu_gen("kary-ntree k=4 n=3", 1), *g;
	struct fab_err err = { { 0 } };
	uint32_t s = f->switches[0], ca = f->eps[f->nswitches].node;
	unsigned p = 1;

	while (fab_sw_peer(f, 0, p) == FAB_NONE)
		p++;
	g = fab_copy(f, &err);
	assert_non_null(g);
	assert_int_equal(fab_switch_link_remove(g, s, p), 0);
	assert_int_equal(g->finalized, 1);
	fab_link_remove(f, s, p);
	finalize(f);
	assert_true(fab_routes_alike(f, g));
	assert_true(fab_topology_hash(f) == fab_topology_hash(g));
	/* not between switches, or gone already: nothing done */
	assert_int_equal(fab_switch_link_remove(g, s, p), -1);
	assert_int_equal(fab_switch_link_remove(g, ca, f->eps[f->nswitches].port), -1);
	assert_int_equal(g->nlinks, f->nlinks);
	fab_free(f);
	fab_free(g);
}

static void test_rng(void **state)
{
	struct fab_rng a, b;
	unsigned hist[5] = { 0 };

	fab_rng_seed(&a, 42);
	fab_rng_seed(&b, 42);
	for (int i = 0; i < 100; i++)
		assert_true(fab_rng_next(&a) == fab_rng_next(&b));
	/* the sequence is fixed forever: generated files depend on it */
	fab_rng_seed(&a, 0);
	assert_true(fab_rng_next(&a) == 0xe220a8397b1dcdafull);
	for (int i = 0; i < 5000; i++)
		hist[fab_rng_below(&a, 5)]++;
	for (int i = 0; i < 5; i++)
		assert_in_range(hist[i], 900, 1100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_counts),
		cmocka_unit_test(test_switch_link_remove),
		cmocka_unit_test(test_link_errors),
		cmocka_unit_test(test_node_errors),
		cmocka_unit_test(test_duplicate_guids),
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_duplicate_desc_count),
		cmocka_unit_test(test_lids_default_order),
		cmocka_unit_test(test_lids_lmc),
		cmocka_unit_test(test_lids_pins_and_keep),
		cmocka_unit_test(test_lids_pin_errors),
		cmocka_unit_test(test_lids_exhausted),
		cmocka_unit_test(test_finalize_lid_checks),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_canonical_order),
		cmocka_unit_test(test_subset),
		cmocka_unit_test(test_link_remove),
		cmocka_unit_test(test_rng),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
