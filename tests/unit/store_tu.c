/* SPDX-License-Identifier: MIT */
/*
 * What the store's unit tests share: a directory of their own under /tmp
 * for each test, raw SQLite access beside the store's, JSON members, and a
 * generated fabric routed and stored as a snapshot.
 */
#include <dirent.h>
#include <sqlite3.h>
#include <unistd.h>

#include "tests/unit/store_tu.h"

#include "gen/gen.h"

int setup(void **state)
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

int teardown(void **state)
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

struct store *open_ok(const struct tmp *t)
{
	struct fab_err err = { { 0 } };
	struct store *s = store_open(t->db, &err);

	if (!s)
		fail_msg("store_open: %s", err.msg);
	return s;
}

/* Run @sql on the database through a connection of our own. */
void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_close(db);
}

/* First column of the first row of @sql as text (static buffer). */
const char *raw_text(const char *path, const char *sql)
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

long long raw_int(const char *path, const char *sql)
{
	return strtoll(raw_text(path, sql), NULL, 10);
}

void open_fails(const char *path, const char *needle)
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
json_int_t ji(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	if (!json_is_integer(v))
		fail_msg("member \"%s\" is not an integer", k);
	return json_integer_value(v);
}

/* String member @k of @o. */
const char *js(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	if (!v)
		fail_msg("member \"%s\" is not a string", k);
	return v;
}

/* A generated fabric routed by @chain, given the LIDs routed. */
struct rt_routing *route(struct fabric *f, const char *chain)
{
	struct rt_routing *r = tu_route_in_place(f, chain);

	if (!r) {
		fail_msg("%s does not route", chain);
		abort();
	}
	return r;
}

/* rt_digest() of @f and @r (static buffer). */
const char *digest_of(const struct fabric *f, const struct rt_routing *r)
{
	static char d[RT_DIGEST_HEX];
	struct fab_err err = { { 0 } };

	if (rt_digest(f, r, d, &err))
		fail_msg("rt_digest: %s", err.msg);
	return d;
}

int64_t add(struct store *s, const struct fabric *f, const struct rt_routing *r,
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

/* @f with the link leaf-00:3 removed and routed again. */
struct fabric *faulted(struct rt_routing **r)
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
