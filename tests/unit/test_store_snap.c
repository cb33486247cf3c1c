/* SPDX-License-Identifier: MIT */
/*
 * The store's snapshots: round trips (LFTs, LIDs, path SLs, DLID offsets,
 * SL2VL), their JSON, shared topologies, the digest's migration and diffs.
 * Each test works in its own directory under /tmp, removed afterwards.
 */
#include <sqlite3.h>

#include "tests/unit/store_tu.h"

#include "engines/engine.h"
#include "gen/gen.h"

/* Every endpoint of @a has the LID and LMC of the same port GUID in @b, and back. */
static void same_lids(const struct fabric *a, const struct fabric *b)
{
	assert_int_equal(a->neps, b->neps);
	for (uint32_t e = 0; e < a->neps; e++) {
		const struct fab_port *p = fab_port(a, a->eps[e].node, a->eps[e].port);
		uint32_t o = fab_ep_by_port_guid(b, p->guid);

		assert_int_not_equal(o, FAB_NONE);
		assert_int_equal(fab_ep_lid(b, o), p->lid);
		assert_int_equal(fab_ep_lmc(b, o), p->lmc);
	}
}

/* LFTs equal switch by switch, matched by GUID. */
static void same_lfts(const struct fabric *fa, const struct rt_routing *a,
		      const struct fabric *fb, const struct rt_routing *b)
{
	assert_int_equal(a->nswitches, b->nswitches);
	for (uint32_t s = 0; s < fa->nswitches; s++) {
		uint32_t n = fab_node_by_guid(fb, fa->nodes[fa->switches[s]].guid);

		assert_int_not_equal(n, FAB_NONE);
		for (uint32_t l = 0; l < a->lft_len || l < b->lft_len; l++)
			assert_int_equal(rt_lft_get(a, s, l), rt_lft_get(b, fb->nodes[n].swidx, l));
	}
}

/* Pair tables of @a and @b agree for every pair of port GUIDs. */
static void same_pairs(const struct fabric *fa, const uint8_t *a, const struct fabric *fb,
		       const uint8_t *b)
{
	assert_non_null(a);
	assert_non_null(b);
	for (uint32_t i = 0; i < fa->neps; i++)
		for (uint32_t j = 0; j < fa->neps; j++) {
			uint32_t bi = fab_ep_by_port_guid(fb, fab_port(fa, fa->eps[i].node,
								       fa->eps[i].port)->guid);
			uint32_t bj = fab_ep_by_port_guid(fb, fab_port(fa, fa->eps[j].node,
								       fa->eps[j].port)->guid);

			assert_int_equal(a[(size_t)i * fa->neps + j],
					 b[(size_t)bi * fb->neps + bj]);
		}
}

static void test_snapshot_roundtrip(void **state)
{
	struct fab_err err = { { 0 } };
	struct store *s = open_ok(*state);
	struct fabric *f = tu_gen("kary-ntree k=2 n=3", 1);
	struct rt_routing *r = route(f, "ftree");
	struct store_snap snap;
	int64_t id = add(s, f, r, 42, 1700000000000);

	assert_int_equal(store_snapshot_latest(s, &err), id);
	assert_int_equal(store_snapshot_load(s, id, &snap, &err), 0);
	assert_int_equal(snap.id, id);
	assert_int_equal(snap.seq, 42);
	assert_int_equal(snap.time_ms, 1700000000000);
	assert_true(snap.topo_hash == fab_topology_hash(f));
	assert_true(fab_topology_hash(snap.f) == fab_topology_hash(f));
	assert_string_equal(snap.reason, "test");
	assert_string_equal(snap.chain, "ftree,updn,minhop");
	assert_string_equal(snap.engine, "ftree");
	assert_true(snap.compute_ms == 1.5 && snap.eval_ms == 2.25);
	same_lids(f, snap.f);
	same_lfts(f, r, snap.f, snap.r);
	assert_true(rt_equal_lfts(r, snap.r));
	assert_string_equal(snap.digest, digest_of(f, r));
	assert_string_equal(digest_of(snap.f, snap.r), snap.digest);
	assert_null(snap.r->path_sl);
	assert_null(snap.r->dlid_off);
	assert_true(snap.r->vls_used >= 1);
	if (r->notes)
		assert_string_equal(snap.r->notes, r->notes);
	store_snap_free(&snap);
	store_snap_free(&snap);
	rt_free(r);
	fab_free(f);
	store_close(s);
}
/* Listing, metadata, a topology row shared by two snapshots, absent snapshots. */
static void test_snapshot_json(void **state)
{
	struct tmp *t = *state;
	struct fab_err err = { { 0 } };
	struct store *s = open_ok(t);
	struct fabric *f = tu_gen("kary-ntree k=2 n=3", 1);
	struct rt_routing *r = route(f, "ftree"), *q = route(f, "minhop");
	int64_t a = add(s, f, r, 1, 1000), b = add(s, f, q, 2, 2000);
	json_t *j = store_snapshots_json(s, 10, &err), *o;
	struct store_snap snap;
	char hash[17];
	int missing = -1;

	o = json_object_get(j, "snapshots");
	assert_int_equal(json_array_size(o), 2);
	assert_int_equal(ji(json_array_get(o, 0), "id"), b);
	json_decref(j);
	j = store_snapshots_json(s, 1, &err);
	assert_int_equal(json_array_size(json_object_get(j, "snapshots")), 1);
	assert_true(json_is_true(json_object_get(j, "more")));
	json_decref(j);
	j = store_snapshots_page(s, b, 10, &err);	/* older than b: a */
	assert_int_equal(json_array_size(json_object_get(j, "snapshots")), 1);
	assert_int_equal(ji(json_array_get(json_object_get(j, "snapshots"), 0), "id"), a);
	assert_false(json_is_true(json_object_get(j, "more")));
	json_decref(j);
	o = store_snapshot_json(s, a, &missing, &err);
	assert_non_null(o);
	assert_int_equal(missing, 0);
	snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)fab_topology_hash(f));
	assert_string_equal(js(o, "topology_hash"), hash);
	assert_string_equal(js(o, "time"), "1970-01-01T00:00:01.000Z");
	assert_int_equal(ji(json_object_get(o, "fabric"), "switches"), 12);
	assert_int_equal(ji(json_object_get(o, "fabric"), "cas"), 8);
	assert_int_equal(ji(json_object_get(o, "fabric"), "links"), f->nlinks);
	assert_int_equal(ji(json_object_get(o, "summary"), "max_hops"), 5);
	assert_string_equal(js(o, "routing_digest"), digest_of(f, r));
	json_decref(o);
	/* one topology row for both, first seen with the first */
	assert_int_equal(raw_int(t->db, "SELECT count(*) FROM topologies"), 1);
	assert_int_equal(raw_int(t->db, "SELECT first_seen FROM topologies"), 1000);
	/* absent snapshots */
	assert_int_equal(store_snapshot_load(s, 999, &snap, &err), -1);
	assert_string_equal(err.msg, "no snapshot 999");
	assert_null(snap.f);
	assert_null(store_snapshot_json(s, 999, &missing, &err));
	assert_int_equal(missing, 1);
	missing = 0;
	assert_null(store_snapshot_diff_json(s, a, 998, &missing, &err));
	assert_int_equal(missing, 1);
	missing = 0;
	assert_null(store_snapshot_diff_json(s, 997, a, &missing, &err));
	assert_int_equal(missing, 1);
	rt_free(r);
	rt_free(q);
	fab_free(f);
	store_close(s);
}
static void test_snapshot_pairs(void **state)
{
	struct fab_err err = { { 0 } };
	struct store *s = open_ok(*state);
	struct fabric *f = tu_gen("gft2 n=4 m=2 r=4", 1);
	struct rt_routing *r = route(f, "smodk");	/* sets DLID offsets */
	struct store_snap snap;
	int64_t id;
	unsigned nz = 0;

	assert_non_null(r->dlid_off);
	for (size_t i = 0; i < (size_t)r->neps * r->neps; i++)
		nz += r->dlid_off[i] != 0;
	assert_true(nz > 0);
	assert_int_equal(rt_pairs_alloc(r), 0);
	for (size_t i = 0; i < (size_t)r->neps * r->neps; i++)
		r->path_sl[i] = (uint8_t)(i * 7 % 16);
	assert_int_equal(rt_sl2vl_set(r, f, 1, 2, 3, 4, 1), 0);
	r->vls_used = 2;
	id = add(s, f, r, 1, 1000);
	assert_int_equal(store_snapshot_load(s, id, &snap, &err), 0);
	same_lids(f, snap.f);
	assert_true(rt_equal_lfts(r, snap.r));
	same_pairs(f, r->dlid_off, snap.f, snap.r->dlid_off);
	same_pairs(f, r->path_sl, snap.f, snap.r->path_sl);
	assert_int_equal(snap.r->vls_used, 2);
	assert_non_null(snap.r->sl2vl[1]);
	assert_int_equal(rt_sl2vl_get(snap.r, snap.f, 1, 2, 3, 4), 1);
	assert_null(snap.r->sl2vl[0]);
	store_snap_free(&snap);
	rt_free(r);
	fab_free(f);
	store_close(s);
}
/*
 * The same cabling listed in another node order shares the first one's
 * topology row: the snapshot's LFTs, LIDs and pair tables come back matched
 * by GUID. Both orders give one model (nodes by GUID), so they come back
 * as they were routed, switch for switch.
 */
static void test_same_hash_other_order(void **state)
{
	struct fab_err err = { { 0 } };
	struct store *s = open_ok(*state);
	struct fabric *f = tu_load("ibnd/fattree.txt", FMT_AUTO), *g;
	struct rt_routing *r = route(f, "updn"), *q;
	struct store_snap snap;
	int64_t id;

	g = tu_load("ibnd/fattree.net", FMT_AUTO);
	assert_int_equal(fab_lids_assign(g, NULL, 0, FAB_LIDS_KEEP, 0, &err), 0);
	q = route(g, "updn");
	assert_true(fab_topology_hash(f) == fab_topology_hash(g));
	assert_int_equal(rt_pairs_alloc(q), 0);
	for (uint32_t i = 0; i < g->neps; i++)
		for (uint32_t j = 0; j < g->neps; j++)
			q->path_sl[(size_t)i * g->neps + j] = (uint8_t)((i * 3 + j) % 16);
	add(s, f, r, 1, 1000);
	id = add(s, g, q, 2, 2000);
	assert_int_equal(store_snapshot_load(s, id, &snap, &err), 0);
	assert_true(rt_equal_lfts(q, snap.r));
	same_lfts(g, q, snap.f, snap.r);
	same_lids(g, snap.f);
	same_pairs(g, q->path_sl, snap.f, snap.r->path_sl);
	same_pairs(g, q->dlid_off, snap.f, snap.r->dlid_off);
	/* rebuilt from the first fabric's text, it is still the same routing */
	assert_string_equal(snap.digest, digest_of(g, q));
	assert_string_equal(digest_of(snap.f, snap.r), snap.digest);
	store_snap_free(&snap);
	rt_free(r);
	rt_free(q);
	fab_free(f);
	fab_free(g);
	store_close(s);
}
/*
 * A database of schema version 1 (no routing digest) is migrated on open:
 * its snapshots keep a NULL digest, listed as null, and a load computes it
 * from what it rebuilt; a digest the caller hands in is stored as given.
 */
static void test_migrate_digest(void **state)
{
	struct tmp *t = *state;
	struct fab_err err = { { 0 } };
	struct store *s = open_ok(t);
	struct fabric *f = tu_gen("gft2 n=4 m=2 r=4", 1);
	struct rt_routing *r = route(f, "opt");
	const char *given = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
	char want[RT_DIGEST_HEX];
	struct store_snap_in in;
	struct store_snap snap;
	json_t *j;
	int64_t id = add(s, f, r, 1, 1000);

	snprintf(want, sizeof(want), "%s", digest_of(f, r));
	assert_non_null(r->path_sl);	/* opt's LMC: DLID offsets and SLs enter the digest */
	store_close(s);
	raw_exec(t->db, "ALTER TABLE snapshots DROP COLUMN routing_digest; PRAGMA user_version = 1");
	s = open_ok(t);
	assert_int_equal(raw_int(t->db, "PRAGMA user_version"), 2);
	assert_int_equal(raw_int(t->db, "SELECT count(*) FROM snapshots WHERE routing_digest IS NULL"), 1);
	j = store_snapshots_json(s, 10, &err);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "snapshots"), 0),
						 "routing_digest")));
	json_decref(j);
	assert_int_equal(store_snapshot_load(s, id, &snap, &err), 0);
	assert_string_equal(snap.digest, want);
	store_snap_free(&snap);
	in = (struct store_snap_in){ .seq = 2, .time_ms = 2000, .f = f, .r = r, .digest = given };
	id = store_snapshot_add(s, &in, &err);
	assert_true(id > 0);
	assert_int_equal(store_snapshot_load(s, id, &snap, &err), 0);
	assert_string_equal(snap.digest, given);
	store_snap_free(&snap);
	rt_free(r);
	fab_free(f);
	store_close(s);
}
static void test_diff(void **state)
{
	struct fab_err err = { { 0 } };
	struct store *s = open_ok(*state);
	struct fabric *f = tu_gen("kary-ntree k=2 n=3", 1), *g;
	struct rt_routing *r = route(f, "ftree"), *q;
	int64_t a, b, c;
	json_t *d, *x;
	int missing = -1;

	g = faulted(&q);
	a = add(s, f, r, 1, 1000);
	b = add(s, g, q, 2, 2000);
	c = add(s, f, r, 3, 3000);
	d = store_snapshot_diff_json(s, a, b, &missing, &err);
	assert_non_null(d);
	assert_int_equal(missing, 0);
	assert_int_equal(ji(d, "from"), a);
	assert_int_equal(ji(d, "to"), b);
	assert_true(json_is_true(json_object_get(d, "topology_changed")));
	x = json_object_get(d, "links");
	assert_int_equal(ji(x, "removed_total"), 1);
	assert_int_equal(ji(x, "added_total"), 0);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(x, "removed"), 0)),
			       "leaf-00:3 (0x"));
	x = json_object_get(d, "lft");
	assert_true(ji(x, "entries_changed") > 0);
	assert_true(ji(x, "switches_changed") > 0);
	assert_true(json_array_size(json_object_get(x, "switches")) > 0);
	json_decref(d);
	/* the same fabric and routing again: nothing changed */
	d = store_snapshot_diff_json(s, a, c, NULL, &err);
	assert_non_null(d);
	assert_true(json_is_false(json_object_get(d, "topology_changed")));
	assert_int_equal(ji(json_object_get(d, "links"), "removed_total"), 0);
	assert_int_equal(ji(json_object_get(d, "links"), "added_total"), 0);
	assert_int_equal(ji(json_object_get(d, "lids"), "changed_total"), 0);
	assert_int_equal(ji(json_object_get(d, "lft"), "entries_changed"), 0);
	assert_int_equal(ji(json_object_get(d, "lft"), "switches_changed"), 0);
	json_decref(d);
	rt_free(r);
	rt_free(q);
	fab_free(f);
	fab_free(g);
	store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_snapshot_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_hash_other_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_digest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diff, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
