/* SPDX-License-Identifier: MIT */
/*
 * The SQLite store (store/): opening and migrations, refusing foreign and
 * newer databases, settings, events, retention, LID allocations, corrupt
 * blobs and concurrent writers (snapshots: test_store_snap.c). Each test
 * works in its own directory under /tmp, removed afterwards.
 */
#include <dirent.h>
#include <pthread.h>
#include <sqlite3.h>
#include <unistd.h>

#include "tests/unit/store_tu.h"

#include "engines/engine.h"
#include "gen/gen.h"

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
		T(test_prune),
		T(test_lids),
		T(test_corrupt),
		T(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
