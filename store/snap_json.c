/* SPDX-License-Identifier: MIT */
/**
 * DOC: store: snapshots as JSON
 *
 * The listing and one snapshot's metadata come from the snapshot and
 * topology rows alone (no blob is inflated); a diff loads both snapshots
 * whole and compares them (snap_diff.c). Times are given twice: "time" as
 * ISO 8601 UTC with milliseconds and "time_ms"; GUIDs and the topology
 * hash are hex strings so no reader loses precision.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/internal.h"

#define SNAPSHOTS_LIMIT_DEFAULT 100u
#define SNAPSHOTS_LIMIT_MAX 10000u

/* --- helpers ------------------------------------------------------------------------ */

json_t *store_json_time(int64_t ms)
{
	int64_t sec = ms / 1000, milli = ms % 1000;
	time_t t;
	struct tm tm;
	char buf[64];

	if (milli < 0) {
		milli += 1000;
		sec--;
	}
	t = (time_t)sec;
	if (!gmtime_r(&t, &tm))
		return json_null();
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)milli);
	return json_string(buf);
}

json_t *store_json_guid(uint64_t guid)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, guid);
	return json_string(buf);
}

json_t *store_json_text(const char *text)
{
	json_t *v = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;

	return v ? v : json_null();
}

int store_json_set(json_t *o, const char *key, json_t *v)
{
	if (!v)
		return -1;
	return json_object_set_new(o, key, v);
}

/* --- metadata ------------------------------------------------------------------------- */

/* Columns 0..9 of every metadata query, in this order. */
#define META_COLS "s.id, s.seq, s.time_ms, s.reason, s.chain, s.engine, s.topo_hash," \
	" s.compute_ms, s.eval_ms, s.routing_digest"
#define META_N 10

static const char *col_text(sqlite3_stmt *st, int col)
{
	const char *t = (const char *)sqlite3_column_text(st, col);

	return t ? t : "";
}

static json_t *meta_row(sqlite3_stmt *st)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (store_json_set(o, "id", json_integer(sqlite3_column_int64(st, 0))) ||
	    store_json_set(o, "seq", json_integer(sqlite3_column_int64(st, 1))) ||
	    store_json_set(o, "time", store_json_time(sqlite3_column_int64(st, 2))) ||
	    store_json_set(o, "time_ms", json_integer(sqlite3_column_int64(st, 2))) ||
	    store_json_set(o, "reason", json_string(col_text(st, 3))) ||
	    store_json_set(o, "chain", json_string(col_text(st, 4))) ||
	    store_json_set(o, "engine", json_string(col_text(st, 5))) ||
	    store_json_set(o, "topology_hash", json_string(col_text(st, 6))) ||
	    store_json_set(o, "compute_ms", json_real(sqlite3_column_double(st, 7))) ||
	    store_json_set(o, "eval_ms", json_real(sqlite3_column_double(st, 8))) ||
	    store_json_set(o, "routing_digest", sqlite3_column_type(st, 9) == SQLITE_NULL ?
			   json_null() : json_string(col_text(st, 9)))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *store_snapshots_page(struct store *s, int64_t before, unsigned limit, struct fab_err *err)
{
	json_t *out = NULL;
	sqlite3_stmt *st;

	limit = !limit ? SNAPSHOTS_LIMIT_DEFAULT : limit > SNAPSHOTS_LIMIT_MAX ?
		SNAPSHOTS_LIMIT_MAX : limit;
	pthread_mutex_lock(&s->lock);
	if (!store_db_prepare(s, "SELECT " META_COLS " FROM snapshots s WHERE ?2 = 0 OR s.id < ?2"
			      " ORDER BY s.id DESC LIMIT ?1", &st, err)) {
		sqlite3_bind_int64(st, 1, (int64_t)limit + 1);
		sqlite3_bind_int64(st, 2, before);
		out = store_page_json(s, st, meta_row, "snapshots", limit, 1, "listing snapshots", err);
	}
	pthread_mutex_unlock(&s->lock);
	return out;
}

json_t *store_snapshots_json(struct store *s, unsigned limit, struct fab_err *err)
{
	return store_snapshots_page(s, 0, limit, err);
}

/* Columns after META_COLS in store_snapshot_json()'s query. */
static const char sql_snap_meta[] =
	"SELECT " META_COLS ", s.summary, s.lft_len, s.vls_used, s.notes,"
	" s.pairs IS NOT NULL, s.sl2vl IS NOT NULL,"
	" length(s.lfts) + length(s.lids) + coalesce(length(s.pairs), 0)"
	" + coalesce(length(s.sl2vl), 0),"
	" t.nodes, t.switches, t.cas, t.links"
	" FROM snapshots s LEFT JOIN topologies t ON t.hash = s.topo_hash WHERE s.id = ?1";

static json_t *snap_extra(sqlite3_stmt *st, json_t *o)
{
	const char *notes = (const char *)sqlite3_column_text(st, META_N + 3);
	json_t *fab = json_pack("{s:I, s:I, s:I, s:I}",
				"nodes", (json_int_t)sqlite3_column_int64(st, META_N + 7),
				"switches", (json_int_t)sqlite3_column_int64(st, META_N + 8),
				"cas", (json_int_t)sqlite3_column_int64(st, META_N + 9),
				"links", (json_int_t)sqlite3_column_int64(st, META_N + 10));

	if (!o) {
		json_decref(fab);
		return NULL;
	}
	if (store_json_set(o, "summary",
				 store_json_text((const char *)sqlite3_column_text(st, META_N))) ||
	    store_json_set(o, "fabric", fab) ||
	    store_json_set(o, "lft_len", json_integer(sqlite3_column_int64(st, META_N + 1))) ||
	    store_json_set(o, "vls_used", json_integer(sqlite3_column_int64(st, META_N + 2))) ||
	    store_json_set(o, "notes", notes ? json_string(notes) : json_null()) ||
	    store_json_set(o, "path_sls", json_boolean(sqlite3_column_int(st, META_N + 4))) ||
	    store_json_set(o, "sl2vl", json_boolean(sqlite3_column_int(st, META_N + 5))) ||
	    store_json_set(o, "stored_bytes", json_integer(sqlite3_column_int64(st, META_N + 6)))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *store_snapshot_json(struct store *s, int64_t id, int *missing, struct fab_err *err)
{
	json_t *out = NULL;
	sqlite3_stmt *st;
	int rc;

	if (missing)
		*missing = 0;
	pthread_mutex_lock(&s->lock);
	if (!store_db_prepare(s, sql_snap_meta, &st, err)) {
		sqlite3_bind_int64(st, 1, id);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			if (!(out = snap_extra(st, meta_row(st))))
				fab_err_set(err, "store: out of memory");
		} else if (rc == SQLITE_DONE) {
			fab_err_set(err, "no snapshot %" PRId64, id);
			if (missing)
				*missing = 1;
		} else {
			store_db_err(s, err, "reading a snapshot");
		}
		sqlite3_finalize(st);
	}
	pthread_mutex_unlock(&s->lock);
	return out;
}

/* --- diff ------------------------------------------------------------------------------ */

json_t *store_snapshot_diff_json(struct store *s, int64_t a, int64_t b, int *missing,
				 struct fab_err *err)
{
	struct store_snap x, y;
	json_t *out = NULL;
	int ra, rb = -1;

	if (missing)
		*missing = 0;
	pthread_mutex_lock(&s->lock);
	ra = store_snap_read(s, a, &x, err);
	if (!ra)
		rb = store_snap_read(s, b, &y, err);
	pthread_mutex_unlock(&s->lock);
	if (missing && (ra == 1 || rb == 1))
		*missing = 1;
	if (!ra && !rb) {
		out = store_diff_json(&x, &y);
		if (!out)
			fab_err_set(err, "store: out of memory comparing snapshots");
	}
	if (!ra)
		store_snap_free(&x);
	if (!rb)
		store_snap_free(&y);
	return out;
}
