/* SPDX-License-Identifier: MIT */
/**
 * DOC: store: events and LID allocations
 *
 * Events are append-only rows read back by id, time and type. LID
 * allocations map a port GUID to the base LID and LMC it was last given;
 * recording one drops every older allocation whose LID range it overlaps,
 * so the pins store_lids_pins() returns never conflict with each other.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"

#define EVENTS_LIMIT_DEFAULT 100u
#define EVENTS_LIMIT_MAX 10000u
/* Events added between two trims to store_events_keep()'s count. */
#define EVENTS_TRIM_EVERY 64u

/* --- events ---------------------------------------------------------------------- */

void store_events_keep(struct store *s, unsigned n)
{
	pthread_mutex_lock(&s->lock);
	s->events_keep = n;
	s->events_added = EVENTS_TRIM_EVERY;	/* trim at the next event */
	pthread_mutex_unlock(&s->lock);
}

/* With @s->lock held: delete the events beyond the newest events_keep (ids grow; @last is the newest). */
static void trim_events(struct store *s, int64_t last)
{
	sqlite3_stmt *st;
	struct fab_err err;

	s->events_added = 0;
	if (store_db_prepare(s, "DELETE FROM events WHERE id <= ?1", &st, &err))
		return;
	sqlite3_bind_int64(st, 1, last - (int64_t)s->events_keep);
	if (sqlite3_step(st) != SQLITE_DONE)
		store_db_err(s, &err, "deleting old events");
	sqlite3_finalize(st);
}

int64_t store_event_add(struct store *s, int64_t time_ms, const char *type, const char *message,
			const json_t *details, struct fab_err *err)
{
	char *text = details ? json_dumps(details, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	sqlite3_stmt *st;
	int64_t id = -1;

	if (details && !text) {
		fab_err_set(err, "store: cannot encode the event's details");
		return -1;
	}
	pthread_mutex_lock(&s->lock);
	if (store_db_prepare(s, "INSERT INTO events (time_ms, type, message, details) "
			     "VALUES (?1, ?2, ?3, ?4)", &st, err))
		goto out;
	sqlite3_bind_int64(st, 1, time_ms);
	sqlite3_bind_text(st, 2, type ? type : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, message ? message : "", -1, SQLITE_STATIC);
	if (text)
		sqlite3_bind_text(st, 4, text, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE) {
		id = sqlite3_last_insert_rowid(s->db);
		store_db_ok(s);
	} else {
		store_db_err(s, err, "adding an event");
	}
	sqlite3_finalize(st);
	if (id > 0 && s->events_keep && ++s->events_added >= EVENTS_TRIM_EVERY)
		trim_events(s, id);
out:
	pthread_mutex_unlock(&s->lock);
	free(text);
	return id;
}

static json_t *event_row(sqlite3_stmt *st)
{
	const char *details = (const char *)sqlite3_column_text(st, 4);
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (store_json_set(o, "id", json_integer(sqlite3_column_int64(st, 0))) ||
	    store_json_set(o, "time", store_json_time(sqlite3_column_int64(st, 1))) ||
	    store_json_set(o, "time_ms", json_integer(sqlite3_column_int64(st, 1))) ||
	    store_json_set(o, "type", json_string((const char *)sqlite3_column_text(st, 2))) ||
	    store_json_set(o, "message", json_string((const char *)sqlite3_column_text(st, 3))) ||
	    store_json_set(o, "details", store_json_text(details))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The newest ?4 matches (one more than the page, to tell whether there are more), oldest first. */
static const char sql_events[] =
	"SELECT * FROM (SELECT id, time_ms, type, message, details FROM events"
	" WHERE id > ?1 AND time_ms >= ?2 AND (?3 IS NULL OR type = ?3) AND (?5 = 0 OR id < ?5)"
	" ORDER BY id DESC LIMIT ?4) ORDER BY id ASC";

json_t *store_events_page(struct store *s, const struct store_event_query *q, struct fab_err *err)
{
	unsigned limit = !q->limit ? EVENTS_LIMIT_DEFAULT : q->limit > EVENTS_LIMIT_MAX ? EVENTS_LIMIT_MAX : q->limit;
	json_t *out = NULL;
	sqlite3_stmt *st;

	pthread_mutex_lock(&s->lock);
	if (!store_db_prepare(s, sql_events, &st, err)) {
		sqlite3_bind_int64(st, 1, q->since_id);
		sqlite3_bind_int64(st, 2, q->since_ms);
		if (q->type)
			sqlite3_bind_text(st, 3, q->type, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, (int64_t)limit + 1);
		sqlite3_bind_int64(st, 5, q->before);
		out = store_page_json(s, st, event_row, "events", limit, 0, "reading events", err);
	}
	pthread_mutex_unlock(&s->lock);
	return out;
}

json_t *store_events_json(struct store *s, int64_t since_id, int64_t since_ms, const char *type,
			  unsigned limit, struct fab_err *err)
{
	struct store_event_query q = { .since_id = since_id, .since_ms = since_ms, .type = type, .limit = limit };

	return store_events_page(s, &q, err);
}

/* --- LID allocations ------------------------------------------------------------------ */

/* Steady state: the same allocation seen again only moves last_seen. */
static const char sql_lid_touch[] =
	"UPDATE lids SET last_seen = max(last_seen, ?4) WHERE guid = ?1 AND lid = ?2 AND lmc = ?3";

/* A range that overlaps [?2, ?3] starts at most 2^7 - 1 LIDs below ?2: use the index. */
static const char sql_lid_del[] =
	"DELETE FROM lids WHERE lid BETWEEN ?2 - 127 AND ?3 AND lid + (1 << lmc) - 1 >= ?2"
	" AND guid <> ?1";

/* A new LID or LMC for a GUID is a new allocation: first_seen starts again. */
static const char sql_lid_ups[] =
	"INSERT INTO lids (guid, lid, lmc, first_seen, last_seen) VALUES (?1, ?2, ?3, ?4, ?4)"
	" ON CONFLICT (guid) DO UPDATE SET"
	" first_seen = CASE WHEN lid = excluded.lid AND lmc = excluded.lmc"
	"  THEN min(first_seen, excluded.first_seen) ELSE excluded.first_seen END,"
	" last_seen = max(last_seen, excluded.last_seen),"
	" lid = excluded.lid, lmc = excluded.lmc";

int store_lid_prepare(struct store *s, struct store_lid_stmts *l, struct fab_err *err)
{
	memset(l, 0, sizeof(*l));
	if (store_db_prepare(s, sql_lid_touch, &l->touch, err) ||
	    store_db_prepare(s, sql_lid_del, &l->del, err) ||
	    store_db_prepare(s, sql_lid_ups, &l->ups, err)) {
		store_lid_finalize(l);
		return -1;
	}
	return 0;
}

void store_lid_finalize(struct store_lid_stmts *l)
{
	sqlite3_finalize(l->touch);
	sqlite3_finalize(l->del);
	sqlite3_finalize(l->ups);
	memset(l, 0, sizeof(*l));
}

/* Bind (GUID, LID, top or LMC, time) as ?1..?4 of @st, run it, reset it. */
static int run4(sqlite3_stmt *st, const struct fab_lid_pin *p, int64_t third, int64_t now_ms)
{
	int rc;

	sqlite3_bind_int64(st, 1, store_guid_to_db(p->guid));
	sqlite3_bind_int(st, 2, p->lid);
	sqlite3_bind_int64(st, 3, third);
	sqlite3_bind_int64(st, 4, now_ms);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int store_lid_record(struct store *s, struct store_lid_stmts *l, const struct fab_lid_pin *p,
		     int64_t now_ms, struct fab_err *err)
{
	unsigned top = p->lid + (1u << (p->lmc & 7)) - 1;

	if (!p->lid || p->lmc > FAB_LMC_MAX || top > FAB_LID_UCAST_MAX ||
	    p->lid % (1u << p->lmc)) {
		fab_err_set(err, "store: port GUID 0x%016" PRIx64 ": LID %u with LMC %u is not a "
			    "valid unicast range", p->guid, p->lid, p->lmc);
		return -1;
	}
	if (run4(l->touch, p, p->lmc, now_ms))
		goto fail;
	if (sqlite3_changes(s->db) == 1)
		return 0;
	if (run4(l->del, p, top, now_ms) || run4(l->ups, p, p->lmc, now_ms))
		goto fail;
	return 0;
fail:
	store_db_err(s, err, "recording a LID");
	return -1;
}

int store_lids_import(struct store *s, const struct fab_lid_pin *pins, size_t n, int64_t now_ms,
		      struct fab_err *err)
{
	struct store_lid_stmts l;
	int rc = -1;

	pthread_mutex_lock(&s->lock);
	if (store_lid_prepare(s, &l, err))
		goto out;
	if (!store_db_begin(s, err)) {
		size_t i;

		for (i = 0; i < n; i++)
			if (store_lid_record(s, &l, &pins[i], now_ms, err))
				break;
		if (i == n)
			rc = store_db_commit(s, err);
		if (rc)
			store_db_rollback(s);
	}
	store_lid_finalize(&l);
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* Rows of "SELECT guid, lid, lmc FROM lids ..." into a malloc'd array. */
static int pins_fill(struct store *s, sqlite3_stmt *st, struct fab_lid_pin **pins, size_t *n,
		     struct fab_err *err)
{
	size_t cap = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			struct fab_lid_pin *p;

			cap = cap ? cap * 2 : 64;
			p = realloc(*pins, cap * sizeof(*p));
			if (!p) {
				fab_err_set(err, "store: out of memory");
				return -1;
			}
			*pins = p;
		}
		(*pins)[*n].guid = store_guid_from_db(sqlite3_column_int64(st, 0));
		(*pins)[*n].lid = (uint16_t)sqlite3_column_int(st, 1);
		(*pins)[(*n)++].lmc = (uint8_t)sqlite3_column_int(st, 2);
	}
	if (rc != SQLITE_DONE) {
		store_db_err(s, err, "reading LIDs");
		return -1;
	}
	return 0;
}

int store_lids_pins(struct store *s, struct fab_lid_pin **pins, size_t *n, struct fab_err *err)
{
	sqlite3_stmt *st;
	int rc = -1;

	*pins = NULL;
	*n = 0;
	pthread_mutex_lock(&s->lock);
	if (!store_db_prepare(s, "SELECT guid, lid, lmc FROM lids ORDER BY lid", &st, err)) {
		rc = pins_fill(s, st, pins, n, err);
		sqlite3_finalize(st);
	}
	pthread_mutex_unlock(&s->lock);
	if (rc) {
		free(*pins);
		*pins = NULL;
		*n = 0;
	}
	return rc;
}

static json_t *lid_row(sqlite3_stmt *st)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (store_json_set(o, "guid", store_json_guid(store_guid_from_db(
			   sqlite3_column_int64(st, 0)))) ||
	    store_json_set(o, "lid", json_integer(sqlite3_column_int(st, 1))) ||
	    store_json_set(o, "lmc", json_integer(sqlite3_column_int(st, 2))) ||
	    store_json_set(o, "first_seen", json_integer(sqlite3_column_int64(st, 3))) ||
	    store_json_set(o, "last_seen", json_integer(sqlite3_column_int64(st, 4)))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *store_lids_json(struct store *s, struct fab_err *err)
{
	json_t *out = NULL;
	sqlite3_stmt *st;

	pthread_mutex_lock(&s->lock);
	if (!store_db_prepare(s, "SELECT guid, lid, lmc, first_seen, last_seen FROM lids "
			      "ORDER BY lid", &st, err))
		out = store_rows_json(s, st, lid_row, "lids", "reading LIDs", err);
	pthread_mutex_unlock(&s->lock);
	return out;
}
