/* SPDX-License-Identifier: MIT */
/**
 * DOC: store: opening, migrations, settings, retention
 *
 * store_open() opens one SQLite connection in WAL mode, checks that the
 * file is a fabroute database this build can read, and applies the
 * migrations it lacks, each in its own transaction together with the
 * PRAGMA user_version that records it. Every public function takes the
 * store's mutex for its whole duration; writes of more than one statement
 * run between BEGIN IMMEDIATE and COMMIT and roll back on any error.
 * doc/store.md describes the schema.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/internal.h"

/* --- migrations ----------------------------------------------------------------- */

/*
 * migrations[i] takes the schema from version i to i + 1. Released entries
 * are never edited: a change is a new entry (and STORE_SCHEMA_VERSION + 1).
 */
static const char *const migrations[STORE_SCHEMA_VERSION] = {
	/* 0 -> 1: the initial schema */
	"CREATE TABLE topologies ("
	" hash TEXT PRIMARY KEY NOT NULL CHECK (length(hash) = 16),"
	" first_seen INTEGER NOT NULL,"
	" nodes INTEGER NOT NULL, switches INTEGER NOT NULL,"
	" cas INTEGER NOT NULL, links INTEGER NOT NULL,"
	" ibnd BLOB NOT NULL);"
	"CREATE TABLE snapshots ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" seq INTEGER NOT NULL, time_ms INTEGER NOT NULL,"
	" reason TEXT NOT NULL DEFAULT '', chain TEXT NOT NULL DEFAULT '',"
	" engine TEXT NOT NULL DEFAULT '',"
	" topo_hash TEXT NOT NULL REFERENCES topologies(hash),"
	" compute_ms REAL NOT NULL DEFAULT 0, eval_ms REAL NOT NULL DEFAULT 0,"
	" summary TEXT, lft_len INTEGER NOT NULL,"
	" vls_used INTEGER NOT NULL DEFAULT 1, notes TEXT,"
	" lfts BLOB NOT NULL, lids BLOB NOT NULL, pairs BLOB, sl2vl BLOB);"
	"CREATE INDEX snapshots_time ON snapshots(time_ms);"
	"CREATE INDEX snapshots_topo ON snapshots(topo_hash);"
	"CREATE TABLE lids ("
	" guid INTEGER PRIMARY KEY, lid INTEGER NOT NULL, lmc INTEGER NOT NULL DEFAULT 0,"
	" first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL);"
	"CREATE INDEX lids_lid ON lids(lid, lmc);"
	"CREATE TABLE events ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT, time_ms INTEGER NOT NULL,"
	" type TEXT NOT NULL, message TEXT NOT NULL, details TEXT);"
	"CREATE INDEX events_time ON events(time_ms);"
	"CREATE INDEX events_type ON events(type);"
	"CREATE TABLE settings (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);",
	/* 1 -> 2: the routing's digest (rt_digest()); NULL in rows stored before */
	"ALTER TABLE snapshots ADD COLUMN routing_digest TEXT"
	" CHECK (routing_digest IS NULL OR length(routing_digest) = 64);",
};

/* The tables a fabroute database of version >= 1 has. */
static const char *const our_tables[] = {
	"topologies", "snapshots", "lids", "events", "settings",
};

/* --- SQLite helpers ----------------------------------------------------------------- */

void store_db_err(struct store *s, struct fab_err *err, const char *what)
{
	int code = sqlite3_extended_errcode(s->db);

	fab_err_set(err, "store: %s: %s", what, sqlite3_errmsg(s->db));
	pthread_mutex_lock(&s->hmu);
	s->health.ok = 0;
	s->health.full = (code & 0xff) == SQLITE_FULL;
	s->health.errors++;
	snprintf(s->health.error, sizeof(s->health.error), "%s", err->msg);
	pthread_mutex_unlock(&s->hmu);
}

void store_db_ok(struct store *s)
{
	pthread_mutex_lock(&s->hmu);
	s->health.ok = 1;
	s->health.full = 0;
	s->health.error[0] = '\0';
	pthread_mutex_unlock(&s->hmu);
}

void store_health(struct store *s, struct store_health *out)
{
	pthread_mutex_lock(&s->hmu);
	*out = s->health;
	pthread_mutex_unlock(&s->hmu);
}

json_t *store_rows_json(struct store *s, sqlite3_stmt *st, json_t *(*row)(sqlite3_stmt *st),
			const char *key, const char *what, struct fab_err *err)
{
	json_t *list = json_array(), *out = NULL, *e;
	int rc = SQLITE_NOMEM;

	while (list && (rc = sqlite3_step(st)) == SQLITE_ROW)
		if (!(e = row(st)) || json_array_append_new(list, e)) {
			rc = SQLITE_NOMEM;
			break;
		}
	if (rc != SQLITE_DONE && rc != SQLITE_NOMEM)
		store_db_err(s, err, what);
	else if (rc == SQLITE_NOMEM || !(out = json_pack("{s:O}", key, list)))
		fab_err_set(err, "store: out of memory");
	sqlite3_finalize(st);
	json_decref(list);
	return out;
}

json_t *store_page_json(struct store *s, sqlite3_stmt *st, json_t *(*row)(sqlite3_stmt *st), const char *key,
			unsigned limit, int oldest_last, const char *what, struct fab_err *err)
{
	json_t *out = store_rows_json(s, st, row, key, what, err), *list = json_object_get(out, key);
	int more = json_array_size(list) > limit;

	if (more)
		json_array_remove(list, oldest_last ? limit : 0);	/* the extra row is the oldest */
	if (out && json_object_set_new(out, "more", json_boolean(more))) {
		json_decref(out);
		fab_err_set(err, "store: out of memory");
		return NULL;
	}
	return out;
}

int store_db_prepare(struct store *s, const char *sql, sqlite3_stmt **st, struct fab_err *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	store_db_err(s, err, "preparing a statement");
	*st = NULL;
	return -1;
}

int store_db_exec(struct store *s, const char *sql, const char *what, struct fab_err *err)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	store_db_err(s, err, what);
	return -1;
}

int store_db_begin(struct store *s, struct fab_err *err)
{
	return store_db_exec(s, "BEGIN IMMEDIATE", "starting a transaction", err);
}

void store_db_rollback(struct store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_db_commit(struct store *s, struct fab_err *err)
{
	if (!store_db_exec(s, "COMMIT", "committing", err)) {
		store_db_ok(s);
		return 0;
	}
	store_db_rollback(s);
	return -1;
}

/* --- opening ---------------------------------------------------------------------- */

static void open_err(struct fab_err *err, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void open_err(struct fab_err *err, const char *path, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fab_err_set(err, "%s: %s", path, msg);
}

/* One integer from a single-row query; -1 with @err ("PATH: ...") on failure. */
static int query_int(struct store *s, const char *sql, int64_t *out, struct fab_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			*out = sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_ROW) {
		if ((sqlite3_extended_errcode(s->db) & 0xff) == SQLITE_NOTADB)
			open_err(err, s->path, "not an SQLite database (%s)",
				 sqlite3_errmsg(s->db));
		else
			open_err(err, s->path, "cannot read the database: %s",
				 sqlite3_errmsg(s->db));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Tables of @s that match @sql's count; refuse foreign databases. */
static int check_ours(struct store *s, int64_t version, struct fab_err *err)
{
	char sql[320];
	int64_t n;

	if (version == 0) {
		if (query_int(s, "SELECT count(*) FROM sqlite_master"
			      " WHERE name NOT LIKE 'sqlite_%'", &n, err))
			return -1;
		if (n) {
			open_err(err, s->path, "not a fabroute database: it holds %lld other "
				 "objects and no schema version", (long long)n);
			return -1;
		}
		return 0;
	}
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
		 "name IN ('%s', '%s', '%s', '%s', '%s')", our_tables[0], our_tables[1],
		 our_tables[2], our_tables[3], our_tables[4]);
	if (query_int(s, sql, &n, err))
		return -1;
	if (n != (int64_t)(sizeof(our_tables) / sizeof(our_tables[0]))) {
		open_err(err, s->path, "not a fabroute database: schema version %lld but the "
			 "fabroute tables are missing", (long long)version);
		return -1;
	}
	return 0;
}

static int pragmas(struct store *s, struct fab_err *err)
{
	static const char *const sql[] = {
		/* FULL: a commit is on disk before it is acknowledged (NORMAL may lose it on power loss) */
		"PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL",
		"PRAGMA foreign_keys = ON",
	};

	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]); i++)
		if (sqlite3_exec(s->db, sql[i], NULL, NULL, NULL) != SQLITE_OK) {
			open_err(err, s->path, "%s: %s", sql[i], sqlite3_errmsg(s->db));
			return -1;
		}
	return 0;
}

/* Apply migration @v (to version @v + 1) unless another process already did. */
static int migrate_one(struct store *s, int v, struct fab_err *err)
{
	char sql[64];
	int64_t cur;

	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		open_err(err, s->path, "cannot start the migration: %s", sqlite3_errmsg(s->db));
		return -1;
	}
	if (query_int(s, "PRAGMA user_version", &cur, err))
		goto fail;
	if (cur > v) {
		store_db_rollback(s);
		return 0;
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
	if (sqlite3_exec(s->db, migrations[v], NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		open_err(err, s->path, "migration to schema version %d failed: %s", v + 1,
			 sqlite3_errmsg(s->db));
		goto fail;
	}
	return 0;
fail:
	store_db_rollback(s);
	return -1;
}

static int migrate(struct store *s, struct fab_err *err)
{
	int64_t v;

	if (query_int(s, "PRAGMA user_version", &v, err))
		return -1;
	if (v > STORE_SCHEMA_VERSION) {
		open_err(err, s->path, "schema version %lld is newer than this build of fabroute "
			 "supports (%d); upgrade fabroute or use another database", (long long)v,
			 STORE_SCHEMA_VERSION);
		return -1;
	}
	if (v < 0) {
		open_err(err, s->path, "not a fabroute database: schema version %lld",
			 (long long)v);
		return -1;
	}
	if (check_ours(s, v, err) || pragmas(s, err))
		return -1;
	for (int i = (int)v; i < STORE_SCHEMA_VERSION; i++)
		if (migrate_one(s, i, err))
			return -1;
	return 0;
}

struct store *store_open(const char *path, struct fab_err *err)
{
	struct store *s = calloc(1, sizeof(*s));
	int rc;

	if (!s || !(s->path = strdup(path))) {
		free(s);
		fab_err_set(err, "%s: out of memory", path);
		return NULL;
	}
	if (pthread_mutex_init(&s->lock, NULL)) {
		free(s->path);
		free(s);
		fab_err_set(err, "%s: cannot create the store's mutex", path);
		return NULL;
	}
	pthread_mutex_init(&s->hmu, NULL);
	pthread_mutex_init(&s->seq_mu, NULL);
	s->health.ok = 1;
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			     SQLITE_OPEN_FULLMUTEX, NULL);
	if (rc != SQLITE_OK) {
		open_err(err, path, "cannot open the database: %s",
			 s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
		store_close(s);
		return NULL;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, 5000);
	if (sqlite3_db_readonly(s->db, "main") == 1) {
		open_err(err, path, "the database is read-only (fabrouted needs to write it)");
		store_close(s);
		return NULL;
	}
	if (migrate(s, err)) {
		store_close(s);
		return NULL;
	}
	return s;
}

/* --- epoch sequence numbers ------------------------------------------------------- */

/* Record @top as the highest epoch number given or reserved (in a transaction). */
static int seq_record(struct store *s, int64_t top, struct fab_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (store_db_prepare(s, "INSERT INTO settings (key, value) VALUES ('epoch_seq', ?1) "
			     "ON CONFLICT (key) DO UPDATE SET value = excluded.value", &st, err))
		return -1;
	sqlite3_bind_int64(st, 1, top);
	if (sqlite3_step(st) != SQLITE_DONE)
		store_db_err(s, err, "allocating an epoch number");
	else
		rc = 0;
	sqlite3_finalize(st);
	return rc;
}

/*
 * Reserve STORE_SEQ_BLOCK epoch numbers after the highest ever reserved or
 * stored: the database records the last one before any is given, so a
 * number is never given twice, even after a crash (the rest of the block
 * is then skipped). With @s->lock held. The first reserved, or -1 with @err.
 */
static int64_t seq_reserve(struct store *s, struct fab_err *err)
{
	sqlite3_stmt *st = NULL;
	int64_t seq = -1;

	if (store_db_begin(s, err) ||
	    store_db_prepare(s, "SELECT max(coalesce((SELECT CAST(value AS INTEGER) FROM settings"
			     " WHERE key = 'epoch_seq'), 0), coalesce((SELECT max(seq) FROM snapshots), 0))"
			     " + 1", &st, err))
		goto out;
	if (sqlite3_step(st) != SQLITE_ROW) {
		store_db_err(s, err, "allocating an epoch number");
		goto out;
	}
	seq = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (seq_record(s, seq + STORE_SEQ_BLOCK - 1, err) || store_db_commit(s, err))
		seq = -1;
out:
	sqlite3_finalize(st);
	if (seq < 0)
		store_db_rollback(s);
	return seq;
}

int64_t store_seq_next(struct store *s, struct fab_err *err)
{
	int64_t seq = -1;

	pthread_mutex_lock(&s->seq_mu);
	if (s->seq_next && s->seq_next <= s->seq_top) {
		seq = s->seq_next++;
	} else {
		pthread_mutex_lock(&s->lock);
		seq = seq_reserve(s, err);
		pthread_mutex_unlock(&s->lock);
		if (seq > 0) {
			s->seq_next = seq + 1;
			s->seq_top = seq + STORE_SEQ_BLOCK - 1;
		}
	}
	pthread_mutex_unlock(&s->seq_mu);
	return seq;
}

void store_seq_floor(struct store *s, int64_t seq)
{
	pthread_mutex_lock(&s->seq_mu);
	if (s->seq_next && s->seq_next <= seq) {
		s->seq_next = seq + 1;
		if (s->seq_next > s->seq_top)
			s->seq_next = 0;	/* reserve anew: above the stored snapshot */
	}
	pthread_mutex_unlock(&s->seq_mu);
}

/* At a clean close: the numbers reserved and not given are free again. */
static void seq_release(struct store *s)
{
	struct fab_err err;

	if (!s->seq_next || s->seq_next > s->seq_top)
		return;
	pthread_mutex_lock(&s->lock);
	if (store_db_begin(s, &err) || seq_record(s, s->seq_next - 1, &err) ||
	    store_db_commit(s, &err))
		store_db_rollback(s);
	pthread_mutex_unlock(&s->lock);
}

void store_close(struct store *s)
{
	if (!s)
		return;
	seq_release(s);
	sqlite3_close(s->db);
	pthread_mutex_destroy(&s->seq_mu);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->hmu);
	free(s->path);
	free(s);
}

int store_integrity_ok(struct store *s)
{
	sqlite3_stmt *st = NULL;
	int ok = 0;

	pthread_mutex_lock(&s->lock);
	if (sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);

		ok = t && !strcmp((const char *)t, "ok") && sqlite3_step(st) == SQLITE_DONE;
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->lock);
	return ok;
}

/* --- settings ----------------------------------------------------------------------- */

int store_peek_setting(const char *path, const char *key, char **val, struct fab_err *err)
{
	struct store s = { .path = (char *)(uintptr_t)path };
	int rc;

	*val = NULL;
	if (access(path, F_OK))
		return 0;	/* no database yet: nothing stored */
	rc = sqlite3_open_v2(path, &s.db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		open_err(err, path, "cannot open the database: %s", s.db ? sqlite3_errmsg(s.db) : sqlite3_errstr(rc));
		sqlite3_close(s.db);
		return -1;
	}
	sqlite3_busy_timeout(s.db, 1000);
	pthread_mutex_init(&s.lock, NULL);
	pthread_mutex_init(&s.hmu, NULL);
	rc = store_setting_get(&s, key, val, err);
	pthread_mutex_destroy(&s.lock);
	pthread_mutex_destroy(&s.hmu);
	sqlite3_close(s.db);
	return rc;
}

int store_setting_get(struct store *s, const char *key, char **val, struct fab_err *err)
{
	sqlite3_stmt *st;
	int rc = -1;

	*val = NULL;
	pthread_mutex_lock(&s->lock);
	if (store_db_prepare(s, "SELECT value FROM settings WHERE key = ?1", &st, err))
		goto out;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		if (sqlite3_column_text(st, 0))
			*val = strdup((const char *)sqlite3_column_text(st, 0));
		if (*val)
			rc = 0;
		else
			fab_err_set(err, "store: out of memory");
		break;
	case SQLITE_DONE:
		rc = 0;
		break;
	default:
		store_db_err(s, err, "reading a setting");
	}
	sqlite3_finalize(st);
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* A NULL @val removes the setting. */
int store_setting_set(struct store *s, const char *key, const char *val, struct fab_err *err)
{
	sqlite3_stmt *st;
	int rc = -1;

	pthread_mutex_lock(&s->lock);
	if (store_db_prepare(s, val ? "INSERT INTO settings (key, value) VALUES (?1, ?2) "
			     "ON CONFLICT (key) DO UPDATE SET value = excluded.value" :
			     "DELETE FROM settings WHERE key = ?1", &st, err))
		goto out;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (val)
		sqlite3_bind_text(st, 2, val, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE) {
		rc = 0;
		store_db_ok(s);
	} else {
		store_db_err(s, err, "writing a setting");
	}
	sqlite3_finalize(st);
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_settings_set(struct store *s, const char *const *kv, size_t n, struct fab_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	pthread_mutex_lock(&s->lock);
	if (store_db_begin(s, err) ||
	    store_db_prepare(s, "INSERT INTO settings (key, value) VALUES (?1, ?2) "
			     "ON CONFLICT (key) DO UPDATE SET value = excluded.value", &st, err))
		goto out;
	for (size_t i = 0; i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, kv[2 * i], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, kv[2 * i + 1], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			store_db_err(s, err, "writing a setting");
			goto out;
		}
	}
	rc = store_db_commit(s, err);
out:
	sqlite3_finalize(st);
	if (rc)
		store_db_rollback(s);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_probe(struct store *s, int64_t now_ms, struct fab_err *err)
{
	char when[32];

	snprintf(when, sizeof(when), "%lld", (long long)now_ms);
	return store_setting_set(s, "probe", when, err);
}

/* --- retention --------------------------------------------------------------------- */

static const char sql_prune_snaps[] =
	"DELETE FROM snapshots WHERE id <> (SELECT max(id) FROM snapshots) AND"
	" (id NOT IN (SELECT id FROM snapshots ORDER BY id DESC LIMIT ?1)"
	"  OR (?2 AND time_ms < ?3))";

/* Run one DELETE with up to two integer parameters; *@changes gets the row count. */
static int prune_step(struct store *s, const char *sql, int64_t a, int64_t b, int64_t c,
		      int *changes, struct fab_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (store_db_prepare(s, sql, &st, err))
		return -1;
	if (sqlite3_bind_parameter_count(st) >= 1)
		sqlite3_bind_int64(st, 1, a);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, b);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_int64(st, 3, c);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	if (rc)
		store_db_err(s, err, "pruning");
	else if (changes)
		*changes = sqlite3_changes(s->db);
	sqlite3_finalize(st);
	return rc;
}

int store_prune(struct store *s, unsigned keep, int64_t max_age_ms, int64_t now_ms,
		struct fab_err *err)
{
	int64_t aged = max_age_ms > 0, cutoff = aged ? now_ms - max_age_ms : 0;
	int deleted = 0;

	pthread_mutex_lock(&s->lock);
	if (store_db_begin(s, err))
		goto fail;
	if (prune_step(s, sql_prune_snaps, keep, aged, cutoff, &deleted, err) ||
	    prune_step(s, "DELETE FROM topologies WHERE hash NOT IN "
		       "(SELECT topo_hash FROM snapshots)", 0, 0, 0, NULL, err) ||
	    (aged && prune_step(s, "DELETE FROM events WHERE time_ms < ?1", cutoff, 0, 0,
				NULL, err)) ||
	    store_db_commit(s, err))
		goto fail;
	pthread_mutex_unlock(&s->lock);
	return deleted;
fail:
	store_db_rollback(s);
	pthread_mutex_unlock(&s->lock);
	return -1;
}
