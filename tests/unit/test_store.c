/* SPDX-License-Identifier: MIT */
/*
 * The SQLite store (store/): opening and migrations, refusing foreign and
 * newer databases, settings, events, snapshot round trips (LFTs, LIDs,
 * path SLs, DLID offsets, SL2VL), shared topologies, diffs, retention, LID
 * allocations, corrupt blobs and concurrent writers. Each test works in its
 * own directory under /tmp, removed afterwards.
 */
#include <dirent.h>
#include <pthread.h>
#include <sqlite3.h>
#include <unistd.h>

#include "tests/unit/testutil.h"

#include "engines/engine.h"
#include "gen/gen.h"
#include "fabric/routing.h"
#include "store/store.h"

/* --- fixtures ---------------------------------------------------------------------- */

struct tmp {
	char dir[64];
	char db[96];
};

static int setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "/tmp/fabroute-store-XXXXXX");
	if (!mkdtemp(t->dir)) {
		free(t);
		return -1;
	}
	snprintf(t->db, sizeof(t->db), "%s/fabrouted.db", t->dir);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmp *t = *state;
	DIR *d = opendir(t->dir);
	struct dirent *e;
	char path[400];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", t->dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(t->dir);
	free(t);
	return 0;
}

static struct store *open_ok(const struct tmp *t)
{
	struct fab_err err = { { 0 } };
	struct store *s = store_open(t->db, &err);

	if (!s)
		fail_msg("store_open: %s", err.msg);
	return s;
}

/* Run @sql on the database through a connection of our own. */
static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_close(db);
}

/* First column of the first row of @sql as text (static buffer). */
static const char *raw_text(const char *path, const char *sql)
{
	static char buf[256];
	sqlite3 *db;
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(buf, sizeof(buf), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return buf;
}

static long long raw_int(const char *path, const char *sql)
{
	return strtoll(raw_text(path, sql), NULL, 10);
}

static void open_fails(const char *path, const char *needle)
{
	struct fab_err err = { { 0 } };
	struct store *s = store_open(path, &err);

	if (s) {
		store_close(s);
		fail_msg("%s: opened, expected an error containing \"%s\"", path, needle);
	}
	if (!strstr(err.msg, path) || !strstr(err.msg, needle))
		fail_msg("error \"%s\" lacks \"%s\" or the path", err.msg, needle);
}

/* Integer member @k of @o. */
static json_int_t ji(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	if (!json_is_integer(v))
		fail_msg("member \"%s\" is not an integer", k);
	return json_integer_value(v);
}

/* String member @k of @o. */
static const char *js(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	if (!v)
		fail_msg("member \"%s\" is not a string", k);
	return v;
}

/* A generated fabric routed by @chain, given the LIDs routed. */
static struct rt_routing *route(struct fabric *f, const char *chain)
{
	struct rt_routing *r = tu_route_in_place(f, chain);

	if (!r) {
		fail_msg("%s does not route", chain);
		abort();
	}
	return r;
}

/* rt_digest() of @f and @r (static buffer). */
static const char *digest_of(const struct fabric *f, const struct rt_routing *r)
{
	static char d[RT_DIGEST_HEX];
	struct fab_err err = { { 0 } };

	if (rt_digest(f, r, d, &err))
		fail_msg("rt_digest: %s", err.msg);
	return d;
}

static int64_t add(struct store *s, const struct fabric *f, const struct rt_routing *r,
		   uint64_t seq, int64_t time_ms)
{
	struct fab_err err = { { 0 } };
	json_t *sum = json_pack("{s:b, s:i}", "connected", 1, "max_hops", 5);
	struct store_snap_in in = { .seq = seq, .time_ms = time_ms, .reason = "test",
				    .chain = "ftree,updn,minhop", .engine = "ftree",
				    .compute_ms = 1.5, .eval_ms = 2.25, .summary = sum,
				    .f = f, .r = r };
	int64_t id = store_snapshot_add(s, &in, &err);

	json_decref(sum);
	if (id <= 0)
		fail_msg("store_snapshot_add: %s", err.msg);
	return id;
}

/* --- opening --------------------------------------------------------------------------- */

/* A fresh database gets the schema; reopening keeps the data and migrates nothing. */
static void test_open(void **state)
{
	struct tmp *t = *state;
	struct fab_err err = { { 0 } };
	struct store *s = open_ok(t);
	char *v;
	json_t *ev;

	assert_int_equal(raw_int(t->db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_string_equal(raw_text(t->db, "PRAGMA journal_mode"), "wal");
	assert_int_equal(raw_int(t->db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
				 " AND name IN ('topologies', 'snapshots', 'lids', 'events',"
				 " 'settings')"), 5);
	assert_true(store_integrity_ok(s));
	assert_int_equal(store_snapshot_latest(s, &err), 0);
	assert_int_equal(store_setting_set(s, "engine.chain", "ftree,minhop", &err), 0);
	assert_true(store_event_add(s, 1000, "daemon", "started", NULL, &err) > 0);
	store_close(s);
	s = open_ok(t);
	assert_int_equal(raw_int(t->db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(store_setting_get(s, "engine.chain", &v, &err), 0);
	assert_string_equal(v, "ftree,minhop");
	free(v);
	ev = store_events_json(s, 0, 0, NULL, 0, &err);
	assert_int_equal(json_array_size(json_object_get(ev, "events")), 1);
	json_decref(ev);
	store_close(s);
	store_close(NULL);
}

/* Newer schemas, other files and other databases are refused, naming the path. */
static void test_refused(void **state)
{
	struct tmp *t = *state;
	char path[128];
	FILE *fp;

	store_close(open_ok(t));
	raw_exec(t->db, "PRAGMA user_version = 99");
	open_fails(t->db, "schema version 99 is newer");
	snprintf(path, sizeof(path), "%s/not-a-db.txt", t->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	for (int i = 0; i < 100; i++)
		fputs("this is a text file, not an SQLite database\n", fp);
	fclose(fp);
	open_fails(path, "not an SQLite database");
	/* an SQLite database of somebody else */
	snprintf(path, sizeof(path), "%s/other.db", t->dir);
	raw_exec(path, "CREATE TABLE foo (x INTEGER)");
	open_fails(path, "not a fabroute database");
	/* a version but none of our tables */
	raw_exec(path, "DROP TABLE foo; PRAGMA user_version = 1");
	open_fails(path, "fabroute tables are missing");
	/* a directory that does not exist */
	snprintf(path, sizeof(path), "%s/no/such/dir.db", t->dir);
	open_fails(path, "cannot open");
}

/* --- settings and events ------------------------------------------------------------------ */

static void test_settings(void **state)
{
	struct fab_err err = { { 0 } };
	struct store *s = open_ok(*state);
	char *v = (char *)"x";

	assert_int_equal(store_setting_get(s, "missing", &v, &err), 0);
	assert_null(v);
	assert_int_equal(store_setting_set(s, "k", "one", &err), 0);
	assert_int_equal(store_setting_get(s, "k", &v, &err), 0);
	assert_string_equal(v, "one");
	free(v);
	assert_int_equal(store_setting_set(s, "k", "two", &err), 0);
	assert_int_equal(store_setting_get(s, "k", &v, &err), 0);
	assert_string_equal(v, "two");
	free(v);
	assert_int_equal(store_setting_set(s, "k", NULL, &err), 0);
	assert_int_equal(store_setting_get(s, "k", &v, &err), 0);
	assert_null(v);
	store_close(s);
}

/* Ids of the events of @j, in order. */
static void event_ids(json_t *j, const int64_t *want, size_t n)
{
	json_t *list = json_object_get(j, "events");

	assert_non_null(list);
	assert_int_equal(json_array_size(list), n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ji(json_array_get(list, i), "id"), want[i]);
	json_decref(j);
}

static void test_events(void **state)
{
	static const char *const types[] = { "trap", "fault", "trap", "reroute", "trap" };
	struct fab_err err = { { 0 } };
	struct store *s = open_ok(*state);
	json_t *d = json_pack("{s:s, s:i}", "port", "leaf-00:3", "trap", 128), *j, *e;
	int64_t id[5];

	for (int i = 0; i < 5; i++)
		id[i] = store_event_add(s, 1700000000000 + i * 1000 + 123, types[i], "msg",
					i == 0 ? d : NULL, &err);
	json_decref(d);
	assert_int_equal(id[0], 1);
	event_ids(store_events_json(s, 0, 0, NULL, 0, &err), id, 5);
	event_ids(store_events_json(s, id[2], 0, NULL, 0, &err), id + 3, 2);
	event_ids(store_events_json(s, 0, 1700000003000, NULL, 0, &err), id + 3, 2);
	event_ids(store_events_json(s, 0, 0, "trap", 0, &err),
		  (const int64_t[]){ id[0], id[2], id[4] }, 3);
	/* the newest N, oldest first */
	event_ids(store_events_json(s, 0, 0, NULL, 2, &err), id + 3, 2);
	event_ids(store_events_json(s, 0, 0, "trap", 2, &err),
		  (const int64_t[]){ id[2], id[4] }, 2);
	event_ids(store_events_json(s, 0, 0, "none", 0, &err), NULL, 0);
	j = store_events_json(s, 0, 0, NULL, 1, &err);
	e = json_array_get(json_object_get(j, "events"), 0);
	assert_string_equal(js(e, "time"), "2023-11-14T22:13:24.123Z");
	assert_int_equal(ji(e, "time_ms"), 1700000004123);
	assert_string_equal(js(e, "type"), "trap");
	assert_true(json_is_null(json_object_get(e, "details")));
	json_decref(j);
	event_ids(store_events_json(s, 0, 0, "fault", 0, &err), &id[1], 1);
	j = store_events_json(s, 0, 0, NULL, 0, &err);
	e = json_object_get(json_array_get(json_object_get(j, "events"), 0), "details");
	assert_string_equal(js(e, "port"), "leaf-00:3");
	assert_false(json_is_true(json_object_get(j, "more")));
	json_decref(j);
	store_close(s);
}

/* Pages of events going back with "before", and the events kept by count. */
static void test_events_pages(void **state)
{
	struct store_event_query q = { .limit = 2 };
	struct fab_err err = { { 0 } };
	struct store *s = open_ok(*state);
	int64_t id[200];
	json_t *j;

	for (int i = 0; i < 5; i++)
		id[i] = store_event_add(s, 1000 + i, "trap", "msg", NULL, &err);
	j = store_events_page(s, &q, &err);
	assert_true(json_is_true(json_object_get(j, "more")));
	event_ids(j, id + 3, 2);
	q.before = id[3];
	j = store_events_page(s, &q, &err);
	assert_true(json_is_true(json_object_get(j, "more")));
	event_ids(j, id + 1, 2);
	q.before = id[1];
	j = store_events_page(s, &q, &err);
	assert_false(json_is_true(json_object_get(j, "more")));
	event_ids(j, id, 1);
	/* at most 100 kept: a storm of 200 leaves the newest 100 (trimmed every 64) */
	store_events_keep(s, 100);
	for (int i = 0; i < 200; i++)
		id[i] = store_event_add(s, 2000 + i, "fault", "storm", NULL, &err);
	q = (struct store_event_query){ .limit = 10000 };
	j = store_events_page(s, &q, &err);
	assert_true(json_array_size(json_object_get(j, "events")) <= 100 + 64);
	assert_true(json_array_size(json_object_get(j, "events")) >= 100);
	assert_int_equal(ji(json_array_get(json_object_get(j, "events"),
					   json_array_size(json_object_get(j, "events")) - 1), "id"), id[199]);
	json_decref(j);
	store_close(s);
}

/* --- snapshots ------------------------------------------------------------------------------- */

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

/* @f with the link leaf-00:3 removed and routed again. */
static struct fabric *faulted(struct rt_routing **r)
{
	static const char *const links[] = { "leaf-00:3" };
	struct gen_faults fl = { .links = links, .nlinks = 1 };
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen("kary-ntree k=2 n=3", 1);

	if (gen_faults_apply(&f, &fl, &err))
		fail_msg("faults: %s", err.msg);
	*r = route(f, "ftree,updn,minhop");
	return f;
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

/* --- retention ------------------------------------------------------------------------------ */

static void test_prune(void **state)
{
	struct tmp *t = *state;
	struct fab_err err = { { 0 } };
	struct store *s = open_ok(t);
	struct fabric *f = tu_gen("kary-ntree k=2 n=3", 1), *g;
	struct rt_routing *r = route(f, "ftree"), *q;

	g = faulted(&q);
	for (int i = 1; i <= 5; i++)	/* topology B only in snapshot 1 */
		add(s, i == 1 ? g : f, i == 1 ? q : r, (uint64_t)i, i * 1000);
	store_event_add(s, 500, "daemon", "old", NULL, &err);
	store_event_add(s, 4500, "daemon", "new", NULL, &err);
	assert_int_equal(raw_int(t->db, "SELECT count(*) FROM topologies"), 2);
	assert_int_equal(store_prune(s, 3, 0, 5000, &err), 2);
	assert_int_equal(raw_int(t->db, "SELECT min(id) FROM snapshots"), 3);
	assert_int_equal(raw_int(t->db, "SELECT count(*) FROM topologies"), 1);
	assert_int_equal(raw_int(t->db, "SELECT count(*) FROM events"), 2);
	/* by age: older than 5000 - 1500 goes, and the old event too */
	assert_int_equal(store_prune(s, 10, 1500, 5000, &err), 1);
	assert_int_equal(raw_int(t->db, "SELECT group_concat(id, '') FROM snapshots"), 45);
	assert_int_equal(raw_int(t->db, "SELECT count(*) FROM events"), 1);
	/* never the newest, whatever keep and age say */
	assert_int_equal(store_prune(s, 0, 1, 100000, &err), 1);
	assert_int_equal(raw_int(t->db, "SELECT group_concat(id, '') FROM snapshots"), 5);
	assert_int_equal(store_prune(s, 0, 1, 100000, &err), 0);
	assert_int_equal(store_snapshot_latest(s, &err), 5);
	assert_int_equal(raw_int(t->db, "SELECT count(*) FROM topologies"), 1);
	assert_true(store_integrity_ok(s));
	rt_free(r);
	rt_free(q);
	fab_free(f);
	fab_free(g);
	store_close(s);
}

/* --- LID allocations ------------------------------------------------------------------------ */

static json_t *lid_of(json_t *lids, uint64_t guid)
{
	char want[24];
	size_t i;
	json_t *e;

	snprintf(want, sizeof(want), "0x%016llx", (unsigned long long)guid);
	json_array_foreach(json_object_get(lids, "lids"), i, e)
		if (!strcmp(js(e, "guid"), want))
			return e;
	return NULL;
}

static void test_lids(void **state)
{
	struct fab_err err = { { 0 } };
	struct store *s = open_ok(*state);
	struct fabric *f = tu_gen("kary-ntree k=2 n=3", 1);
	struct rt_routing *r = route(f, "ftree");
	const struct fab_port *p = fab_port(f, f->eps[f->neps - 1].node, f->eps[f->neps - 1].port);
	struct fab_lid_pin *pins, imp[2] = { { 0x1234, 0xB000, 2 }, { 0x5678, 0, 0 } };
	size_t n;
	json_t *j, *e;

	add(s, f, r, 1, 1000);
	add(s, f, r, 2, 2000);
	assert_int_equal(store_lids_pins(s, &pins, &n, &err), 0);
	assert_int_equal(n, f->neps);
	for (size_t i = 1; i < n; i++)
		assert_true(pins[i - 1].lid < pins[i].lid);
	free(pins);
	j = store_lids_json(s, &err);
	e = lid_of(j, p->guid);
	assert_non_null(e);
	assert_int_equal(ji(e, "lid"), p->lid);
	assert_int_equal(ji(e, "first_seen"), 1000);
	assert_int_equal(ji(e, "last_seen"), 2000);
	json_decref(j);
	/* import: a new allocation; an invalid entry writes nothing */
	assert_int_equal(store_lids_import(s, imp, 1, 3000, &err), 0);
	assert_int_equal(store_lids_import(s, imp + 1, 1, 3000, &err), -1);
	assert_non_null(strstr(err.msg, "0x0000000000005678"));
	/* a GUID taking the LID of another drops the other's allocation */
	imp[1] = (struct fab_lid_pin){ 0x5678, p->lid, 0 };
	assert_int_equal(store_lids_import(s, imp + 1, 1, 4000, &err), 0);
	j = store_lids_json(s, &err);
	assert_null(lid_of(j, p->guid));
	assert_int_equal(ji(lid_of(j, 0x1234), "lmc"), 2);
	assert_int_equal(ji(lid_of(j, 0x1234), "first_seen"), 3000);
	assert_int_equal(json_array_size(json_object_get(j, "lids")), f->neps + 1);
	json_decref(j);
	rt_free(r);
	fab_free(f);
	store_close(s);
}

/* --- corruption ------------------------------------------------------------------------------- */

static void load_fails(struct store *s, int64_t id, const char *needle)
{
	struct fab_err err = { { 0 } };
	struct store_snap snap;
	char want[32];

	snprintf(want, sizeof(want), "snapshot %lld", (long long)id);
	assert_int_equal(store_snapshot_load(s, id, &snap, &err), -1);
	if (!strstr(err.msg, want) || !strstr(err.msg, needle))
		fail_msg("error \"%s\" lacks \"%s\" or \"%s\"", err.msg, want, needle);
	assert_null(snap.f);
	assert_null(snap.r);
}

static void test_corrupt(void **state)
{
	struct tmp *t = *state;
	struct store *s = open_ok(t);
	struct fabric *f = tu_gen("kary-ntree k=2 n=3", 1);
	struct rt_routing *r = route(f, "ftree");
	struct store_snap snap;
	struct fab_err err = { { 0 } };

	for (int i = 1; i <= 6; i++)
		add(s, f, r, (uint64_t)i, i * 1000);
	raw_exec(t->db, "UPDATE snapshots SET lfts = X'00112233' WHERE id = 1;"
		 "UPDATE snapshots SET lfts = substr(lfts, 1, length(lfts) - 7) WHERE id = 2;"
		 "UPDATE snapshots SET lids = substr(lids, 1, 30) || X'0000' WHERE id = 3;"
		 "UPDATE snapshots SET lfts = substr(lfts, 1, 8) || X'0100' ||"
		 " substr(lfts, 11) WHERE id = 4;"
		 "UPDATE snapshots SET lft_len = 70000 WHERE id = 5");
	load_fails(s, 1, "truncated");
	load_fails(s, 2, "LFT blob");
	load_fails(s, 3, "LID blob");
	load_fails(s, 4, "LFT blob is corrupt");
	load_fails(s, 5, "LFT length");
	assert_int_equal(store_snapshot_load(s, 6, &snap, &err), 0);
	store_snap_free(&snap);
	raw_exec(t->db, "UPDATE topologies SET ibnd = substr(ibnd, 1, 40) || zeroblob(20)");
	load_fails(s, 6, "topology blob");
	assert_true(store_integrity_ok(s));
	rt_free(r);
	fab_free(f);
	/* pairs and SL2VL blobs, on a fabric of their own */
	f = tu_gen("gft2 n=4 m=2 r=4", 1);
	r = route(f, "smodk");
	assert_int_equal(rt_sl2vl_set(r, f, 0, 1, 2, 3, 1), 0);
	for (int i = 7; i <= 9; i++)
		add(s, f, r, (uint64_t)i, i * 1000);
	raw_exec(t->db, "UPDATE snapshots SET pairs = substr(pairs, 1, 40) WHERE id = 7;"
		 "UPDATE snapshots SET sl2vl = substr(sl2vl, 1, 8) || X'0900' ||"
		 " substr(sl2vl, 11) WHERE id = 8;"
		 "UPDATE snapshots SET pairs = X'4652505201000400' || substr(pairs, 9)"
		 " WHERE id = 9");
	load_fails(s, 7, "pairs blob");
	load_fails(s, 8, "SL2VL blob is corrupt");
	load_fails(s, 9, "pairs blob is corrupt");
	rt_free(r);
	fab_free(f);
	store_close(s);
}

/* --- threads --------------------------------------------------------------------------------- */

static void *writer(void *arg)
{
	struct fab_err err = { { 0 } };

	for (int i = 0; i < 50; i++)
		if (store_event_add(arg, i, "engine", "thread", NULL, &err) <= 0)
			return arg;
	return NULL;
}

static void test_threads(void **state)
{
	struct tmp *t = *state;
	struct store *s = open_ok(t);
	pthread_t th[4];
	void *ret;

	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, writer, s), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(th[i], &ret), 0);
		assert_null(ret);
	}
	assert_int_equal(raw_int(t->db, "SELECT count(*) FROM events"), 200);
	store_close(s);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_open),
		T(test_refused),
		T(test_settings),
		T(test_events),
		T(test_events_pages),
		T(test_snapshot_roundtrip),
		T(test_snapshot_json),
		T(test_snapshot_pairs),
		T(test_same_hash_other_order),
		T(test_migrate_digest),
		T(test_diff),
		T(test_prune),
		T(test_lids),
		T(test_corrupt),
		T(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
