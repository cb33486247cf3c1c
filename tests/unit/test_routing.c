/* SPDX-License-Identifier: MIT */
/*
 * Routing tables: LFT layout, SL2VL defaults and overrides, per-pair SL and
 * DLID, comparison.
 */
#include "fabric/routing.h"
#include "tests/unit/testutil.h"

/* Two 4-port switches (VLCap 2 and 8), each with one CA; CA LMC 2. */
static struct fabric *two_switches(void)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_new();
	struct fab_node_info s0 = { .type = FAB_SWITCH, .guid = 0x10, .nports = 4, .vl_cap = 2 };
	struct fab_node_info s1 = { .type = FAB_SWITCH, .guid = 0x11, .nports = 4, .vl_cap = 8 };
	struct fab_node_info c0 = { .type = FAB_CA, .guid = 0x100, .nports = 1 };
	struct fab_node_info c1 = { .type = FAB_CA, .guid = 0x200, .nports = 1 };
	uint32_t a = fab_node_add(f, &s0, &err), b = fab_node_add(f, &s1, &err);
	uint32_t x = fab_node_add(f, &c0, &err), y = fab_node_add(f, &c1, &err);

	assert_int_equal(fab_link_add(f, a, 1, b, 1, &err), 0);
	assert_int_equal(fab_link_add(f, a, 2, x, 1, &err), 0);
	assert_int_equal(fab_link_add(f, b, 2, y, 1, &err), 0);
	assert_int_equal(fab_finalize(f, &err), 0);
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 2, &err), 0);
	return f;
}

static void test_new_is_empty(void **state)
{
	struct fabric *f = two_switches();
	struct rt_routing *r = rt_new(f);

	assert_non_null(r);
	assert_int_equal(r->nswitches, 2);
	assert_int_equal(r->lft_len, f->lid_top + 1);
	for (uint32_t s = 0; s < 2; s++)
		for (uint32_t l = 0; l < r->lft_len + 5; l++)
			assert_int_equal(rt_lft_get(r, s, l), RT_NO_PORT);
	assert_null(r->path_sl);
	assert_int_equal(rt_path_sl(r, 0, 3), 0);
	rt_free(r);
	fab_free(f);
}

static void test_lft_layout(void **state)
{
	struct fabric *f = two_switches();
	struct rt_routing *r = rt_new(f), *q = rt_new(f);

	rt_lft(r, 1)[4] = 2;
	assert_int_equal(rt_lft_get(r, 1, 4), 2);
	assert_int_equal(rt_lft_get(r, 0, 4), RT_NO_PORT);
	assert_false(rt_equal_lfts(r, q));
	rt_lft(q, 1)[4] = 2;
	assert_true(rt_equal_lfts(r, q));
	rt_free(r);
	rt_free(q);
	fab_free(f);
}

/* rt_diff() and rt_equal_lfts() over whole 64-LID blocks, partial blocks and tables of other lengths. */
/*
 * A derived routing shares the rows it does not write: the base's rows,
 * mapped; a row written is copied first and the base keeps its entry; the
 * base may go first; SL2VL and pair tables come when asked; after
 * RT_DERIVE_MAX derivations in a row the rows are copied into one block.
 */
/*
 * Rows of 32 MiB and more are mapped (fabric/routing.c): they read as any
 * others, and stay while a routing derived from theirs still uses them.
 */
static void test_mapped_rows(void **state)
{
	struct fabric *f = two_switches();
	uint32_t len = 17u << 20;	/* 2 switches x 17 Mi LIDs: 34 MiB */
	struct rt_routing *r = rt_new_len(f, len), *c, *d;

	(void)state;
	assert_non_null(r);
	assert_non_null(r->lft);
	assert_int_equal(r->lft_len, len);
	for (uint32_t l = 0; l < len; l += 4093)
		assert_int_equal(rt_lft_get(r, 1, l), RT_NO_PORT);
	rt_lft(r, 1)[len - 1] = 3;
	rt_lft(r, 0)[4] = 1;
	c = rt_copy(f, r);
	d = rt_derive(f, r, NULL, 0);
	assert_non_null(c);
	assert_non_null(d);
	assert_true(rt_equal_lfts(r, c));
	rt_free(r);	/* the block stays for d */
	assert_int_equal(rt_lft_get(d, 1, len - 1), 3);
	assert_int_equal(rt_lft_get(d, 0, 4), 1);
	assert_int_equal(rt_lft_get(d, 0, len - 1), RT_NO_PORT);
	assert_true(rt_equal_lfts(c, d));
	rt_free(d);
	assert_int_equal(rt_lft_get(c, 1, len - 1), 3);
	rt_free(c);
	fab_free(f);
}

static void test_derive(void **state)
{
	struct fabric *f = two_switches();
	struct rt_routing *a = rt_new(f), *d, *e, *c;
	const uint32_t swap[] = { 1, FAB_NONE };
	struct rt_diff df;
	uint8_t *row;

	(void)state;
	rt_lft(a, 0)[4] = 1;
	rt_lft(a, 1)[4] = 3;
	assert_int_equal(rt_sl2vl_set(a, f, 1, 1, 2, 0, 3), 0);
	assert_int_equal(rt_pairs_alloc(a), 0);
	a->path_sl[1] = 5;
	d = rt_derive(f, a, NULL, RT_KEEP_SL2VL);
	assert_non_null(d);
	assert_null(d->lft);
	assert_ptr_equal(rt_lft(d, 0), rt_lft(a, 0));
	assert_true(rt_row_shared(d, 1, a, 1));
	assert_true(rt_equal_lfts(a, d));
	assert_int_equal(rt_sl2vl_get(d, f, 1, 1, 2, 0), 3);
	assert_null(d->path_sl);
	e = rt_derive(f, a, NULL, RT_KEEP_PAIRS);
	assert_int_equal(rt_path_sl(e, 0, 1), 5);
	assert_int_equal(rt_sl2vl_get(e, f, 1, 1, 2, 0), 0);	/* the default mapping */
	rt_free(e);
	row = rt_row_own(d, 1);
	assert_ptr_not_equal(row, rt_lft(a, 1));
	assert_ptr_equal(rt_row_own(d, 1), row);	/* once own, kept */
	assert_int_equal(row[4], 3);
	row[4] = 2;
	assert_int_equal(rt_lft_get(a, 1, 4), 3);
	assert_false(rt_equal_lfts(a, d));
	rt_diff(f, a, f, d, &df);
	assert_int_equal(df.entries, 1);
	assert_int_equal(df.switches, 1);
	e = rt_derive(f, d, swap, RT_KEEP_SL2VL);
	rt_free(a);	/* the rows d and e share stay */
	rt_free(d);
	assert_non_null(e);
	assert_int_equal(rt_lft_get(e, 0, 4), 2);
	assert_int_equal(rt_lft_get(e, 1, 4), RT_NO_PORT);
	assert_int_equal(rt_sl2vl_get(e, f, 0, 1, 2, 0), 3);	/* switch 1's, mapped */
	assert_null(e->sl2vl[1]);
	assert_int_equal(e->gen, 2);
	for (unsigned g = e->gen; g < RT_DERIVE_MAX; g++) {
		c = rt_derive(f, e, NULL, 0);
		assert_non_null(c);
		assert_null(c->lft);
		assert_int_equal(c->gen, g + 1);
		rt_free(e);
		e = c;
	}
	c = rt_derive(f, e, NULL, 0);
	assert_non_null(c->lft);	/* copied */
	assert_int_equal(c->gen, 0);
	assert_int_equal(rt_lft_get(c, 0, 4), 2);
	assert_ptr_equal(rt_row_own(c, 0), rt_lft(c, 0));
	rt_free(e);
	rt_free(c);
	fab_free(f);
}

static void test_diff(void **state)
{
	struct fabric *f = two_switches();
	struct rt_routing *a = rt_new_len(f, 200), *b = rt_new_len(f, 200), *c = rt_new_len(f, 260);
	struct rt_diff d;

	for (uint32_t s = 0; s < 2; s++)
		for (unsigned l = 1; l < 200; l++)
			rt_lft(a, s)[l] = rt_lft(b, s)[l] = rt_lft(c, s)[l] = (uint8_t)(1 + l % 3);
	rt_diff(f, a, f, b, &d);
	assert_int_equal(d.entries, 0);
	assert_int_equal(d.blocks + d.switches + d.added, 0);
	assert_true(rt_equal_lfts(a, b));
	rt_lft(b, 0)[5] = 4;	/* block 0 of switch 0, twice */
	rt_lft(b, 0)[63] = 4;
	rt_lft(b, 1)[64] = 4;	/* block 1 and the partial block 3 (192..199) of switch 1 */
	rt_lft(b, 1)[199] = RT_NO_PORT;
	rt_diff(f, a, f, b, &d);
	assert_int_equal(d.entries, 4);
	assert_int_equal(d.blocks, 3);
	assert_int_equal(d.switches, 2);
	assert_int_equal(d.max_blocks, 2);
	assert_false(rt_equal_lfts(a, b));
	/* a longer table: its routed LIDs past the other's end differ from "no route" */
	assert_true(rt_equal_lfts(a, c));
	rt_lft(c, 1)[230] = 2;
	assert_false(rt_equal_lfts(a, c));
	rt_diff(f, a, f, c, &d);
	assert_int_equal(d.entries, 1);
	assert_int_equal(d.blocks, 1);
	assert_int_equal(d.switches, 1);
	rt_free(a);
	rt_free(b);
	rt_free(c);
	fab_free(f);
}

static void test_sl2vl(void **state)
{
	struct fabric *f = two_switches();
	struct rt_routing *r = rt_new(f);

	/* default: SL modulo the switch's VL count */
	assert_int_equal(rt_sl2vl_get(r, f, 0, 1, 2, 5), 1);
	assert_int_equal(rt_sl2vl_get(r, f, 1, 1, 2, 5), 5);
	assert_int_equal(rt_sl2vl_set(r, f, 0, 2, 1, 0, 1), 0);
	assert_int_equal(rt_sl2vl_get(r, f, 0, 2, 1, 0), 1);
	/* other entries of the table keep the default */
	assert_int_equal(rt_sl2vl_get(r, f, 0, 1, 2, 0), 0);
	assert_int_equal(rt_sl2vl_get(r, f, 0, 1, 2, 3), 1);
	assert_int_equal(rt_sl2vl_get(r, f, 1, 2, 1, 0), 0);
	/* out of range */
	assert_int_equal(rt_sl2vl_set(r, f, 0, 5, 1, 0, 1), -1);
	assert_int_equal(rt_sl2vl_set(r, f, 0, 1, 1, 16, 1), -1);
	assert_int_equal(rt_sl2vl_set(r, f, 2, 1, 1, 0, 1), -1);
	assert_int_equal(rt_sl2vl_set(r, f, 0, 1, 1, 0, 16), -1);
	rt_free(r);
	fab_free(f);
}

static void test_pairs(void **state)
{
	struct fabric *f = two_switches();
	struct rt_routing *r = rt_new(f);
	uint32_t x = fab_ep_of_node(f, 2, 1), y = fab_ep_of_node(f, 3, 1);

	/* without per-pair data: the base LID */
	assert_int_equal(rt_dlid(r, f, x, y), fab_ep_lid(f, y));
	assert_int_equal(rt_pairs_alloc(r), 0);
	r->dlid_off[(size_t)x * r->neps + y] = 3;
	r->path_sl[(size_t)x * r->neps + y] = 7;
	assert_int_equal(rt_dlid(r, f, x, y), fab_ep_lid(f, y) + 3);
	assert_int_equal(rt_path_sl(r, x, y), 7);
	assert_int_equal(rt_path_sl(r, y, x), 0);
	/* an offset past the LMC range wraps inside it */
	r->dlid_off[(size_t)x * r->neps + y] = 6;
	assert_int_equal(rt_dlid(r, f, x, y), fab_ep_lid(f, y) + 2);
	/* switch port 0 has LMC 0: always its base LID */
	r->dlid_off[(size_t)x * r->neps + 0] = 3;
	assert_int_equal(rt_dlid(r, f, x, 0), fab_ep_lid(f, 0));
	rt_free(r);
	fab_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_is_empty),
		cmocka_unit_test(test_lft_layout),
		cmocka_unit_test(test_derive),
		cmocka_unit_test(test_mapped_rows),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_sl2vl),
		cmocka_unit_test(test_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
