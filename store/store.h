/* SPDX-License-Identifier: MIT */
/**
 * DOC: store
 *
 * fabrouted's persistent state in one SQLite database (WAL mode):
 * topologies (by topology hash), snapshots of published routings with
 * their LFTs, LID allocations, events and settings. The schema is
 * versioned (PRAGMA user_version) and migrated forward on open; every
 * write runs in one transaction, so a crash leaves either all of a
 * snapshot or none of it.
 *
 * One connection per store, serialized by the store's own mutex: the
 * functions may be called from any thread.
 *
 * Times are milliseconds since the Unix epoch. JSON results are jansson
 * objects owned by the caller.
 */
#ifndef FABROUTE_STORE_H
#define FABROUTE_STORE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/routing.h"

/** Schema version this build writes (PRAGMA user_version). */
#define STORE_SCHEMA_VERSION 2

struct store;

/**
 * store_open() - open or create the database at @path, migrate it
 * Return: the store, or NULL with @err set (cannot open, not a fabroute
 * database, schema newer than this build knows).
 */
struct store *store_open(const char *path, struct fab_err *err);
void store_close(struct store *s);

/** store_integrity_ok() - PRAGMA integrity_check says "ok". */
int store_integrity_ok(struct store *s);

/**
 * struct store_health - how the database's writes fare
 * @ok: no error since the last committed write
 * @full: the last error was "database or disk is full" (SQLITE_FULL)
 * @errors: errors since the store was opened
 * @error: the last error's message ("" while @ok)
 */
struct store_health {
	int ok, full;
	uint64_t errors;
	char error[512];
};

/** store_health() - a copy of @s's health; never waits for a write in progress. */
void store_health(struct store *s, struct store_health *out);
/**
 * store_probe() - commit a small write (the "probe" setting) to find out
 * whether the database takes writes again; 0 (and healthy), or -1 with @err.
 */
int store_probe(struct store *s, int64_t now_ms, struct fab_err *err);

/** Epoch numbers reserved in the database at a time (one write per this many epochs). */
#define STORE_SEQ_BLOCK 64

/**
 * store_seq_next() - allocate the next epoch sequence number, durably,
 * before the epoch is published: one more than the highest ever allocated
 * or stored. Numbers are reserved in the database STORE_SEQ_BLOCK at a
 * time, so most epochs are published without waiting for a disk write. A
 * number is never handed out twice in the database's life (a crash skips
 * the rest of a reserved block; a clean store_close() gives it back).
 * Return: the number (> 0), or -1 with @err (nothing allocated).
 */
int64_t store_seq_next(struct store *s, struct fab_err *err);
/**
 * store_seq_floor() - an epoch numbered @seq elsewhere (a standby mirrors
 * the master's) was published here: later numbers are above it.
 */
void store_seq_floor(struct store *s, int64_t seq);

/* --- settings: small key/value strings that survive a restart --------- */

/** store_setting_get() - *@val = malloc'd value, or NULL when unset. 0 or -1. */
int store_setting_get(struct store *s, const char *key, char **val, struct fab_err *err);
int store_setting_set(struct store *s, const char *key, const char *val, struct fab_err *err);
/**
 * store_peek_setting() - the setting @key of the database at @path, opened
 * read-only and closed again (nothing created, nothing migrated): for
 * `fabrouted -n`. *@val NULL when the database or the key is absent. 0 or -1.
 */
int store_peek_setting(const char *path, const char *key, char **val, struct fab_err *err);
/** store_settings_set() - @n "key", "value" pairs in @kv, all or none (one transaction). */
int store_settings_set(struct store *s, const char *const *kv, size_t n, struct fab_err *err);

/* --- LID allocations ---------------------------------------------------- */

/**
 * store_lids_pins() - every allocation ever recorded (port GUID, base LID,
 * LMC), to pin LIDs with fab_lids_assign(); *@pins is malloc'd.
 */
int store_lids_pins(struct store *s, struct fab_lid_pin **pins, size_t *n, struct fab_err *err);
/**
 * store_lids_import() - record guid2lid entries (e.g. from OpenSM's
 * guid2lid file) as allocations first and last seen at @now_ms.
 */
int store_lids_import(struct store *s, const struct fab_lid_pin *pins, size_t n, int64_t now_ms,
		      struct fab_err *err);
/**
 * store_lids_json() - {"lids": [{"guid": "0x...", "lid": N, "lmc": N,
 * "first_seen": ms, "last_seen": ms}, ...]} sorted by LID.
 */
json_t *store_lids_json(struct store *s, struct fab_err *err);

/* --- snapshots ---------------------------------------------------------- */

/**
 * struct store_snap_in - a published epoch, as the store records it
 * @seq: epoch sequence number
 * @time_ms: publication time
 * @reason, @chain, @engine: as in struct epoch
 * @compute_ms, @eval_ms: timings
 * @summary: the evaluation summary (any JSON object; stored as text)
 * @f, @r: the fabric (with LIDs) and the routing
 * @digest: rt_digest() of @f and @r when the caller has it (epoch_digest()),
 *          NULL to have the store compute it
 */
struct store_snap_in {
	uint64_t seq;
	int64_t time_ms;
	const char *reason, *chain, *engine;
	double compute_ms, eval_ms;
	const json_t *summary;
	const struct fabric *f;
	const struct rt_routing *r;
	const char *digest;
};

/**
 * store_snapshot_add() - record a snapshot in one transaction
 *
 * Inserts the topology when its hash is new (as compressed ibnetdiscover
 * text, which keeps the LIDs), the snapshot row with its routing digest,
 * its LFTs (one byte per switch and LID, compressed, switches identified
 * by GUID), its LIDs, its path SLs and DLID offsets when the routing has
 * them, and updates the LID allocations (first/last seen) of every port of
 * @f.
 * Return: the snapshot id (> 0), or -1 with @err set (nothing written).
 */
int64_t store_snapshot_add(struct store *s, const struct store_snap_in *in, struct fab_err *err);

/**
 * struct store_snap - a snapshot read back
 * @id, @seq, @time_ms, @topo_hash, @compute_ms, @eval_ms: as stored
 * @reason, @chain, @engine: malloc'd strings
 * @f: the fabric, rebuilt from the stored topology with the snapshot's LIDs
 * @r: the routing rebuilt for @f (LFTs; path SLs, DLID offsets when stored)
 * @digest: the routing's digest as stored (computed from @f and @r for a
 *          snapshot stored before schema version 2)
 */
struct store_snap {
	int64_t id;
	uint64_t seq;
	int64_t time_ms;
	uint64_t topo_hash;
	double compute_ms, eval_ms;
	char *reason, *chain, *engine;
	struct fabric *f;
	struct rt_routing *r;
	char digest[RT_DIGEST_HEX];
};

/** store_snapshot_latest() - id of the newest snapshot, 0 when there is none, -1 on error. */
int64_t store_snapshot_latest(struct store *s, struct fab_err *err);
/** store_snapshot_load() - read snapshot @id whole. 0, or -1 with @err (also when absent). */
int store_snapshot_load(struct store *s, int64_t id, struct store_snap *out, struct fab_err *err);
void store_snap_free(struct store_snap *snap);

/**
 * store_snapshots_json() - {"snapshots": [ {id, seq, time, reason, chain,
 * engine, topology_hash, compute_ms, eval_ms, routing_digest}, ... ]}, newest first, at most
 * @limit.
 */
json_t *store_snapshots_json(struct store *s, unsigned limit, struct fab_err *err);
/**
 * store_snapshots_page() - store_snapshots_json() of the snapshots with an id
 * below @before (0: any), plus "more": older ones exist beyond the page.
 */
json_t *store_snapshots_page(struct store *s, int64_t before, unsigned limit, struct fab_err *err);
/**
 * store_snapshot_json() - one snapshot's metadata plus "summary" and
 * "fabric" counts; NULL with @err "no snapshot N" when absent (*@missing = 1).
 */
json_t *store_snapshot_json(struct store *s, int64_t id, int *missing, struct fab_err *err);
/**
 * store_snapshot_diff_json() - what changed from snapshot @a to @b:
 * {"from": a, "to": b, "topology_changed": bool,
 *  "links": {"removed": [...], "added": [...]},   each "NODE:PORT - NODE:PORT" with GUIDs
 *  "lids": {"changed": [{"guid", "from": {lid,lmc}|null, "to": {lid,lmc}|null}]},
 *  "lft": {"entries_changed": N, "switches_changed": N,
 *          "switches": [{"guid", "node", "entries": N, "examples": [{lid, from, to}]}]}}
 * NULL with @err when either is absent (*@missing = 1).
 */
json_t *store_snapshot_diff_json(struct store *s, int64_t a, int64_t b, int *missing,
				 struct fab_err *err);

/**
 * store_prune() - delete snapshots beyond the newest @keep and those older
 * than @max_age_ms (0 = no age limit), never the newest one; topologies no
 * snapshot refers to any more go too; events older than @max_age_ms go.
 * Return: snapshots deleted, or -1.
 */
int store_prune(struct store *s, unsigned keep, int64_t max_age_ms, int64_t now_ms,
		struct fab_err *err);

/* --- events ------------------------------------------------------------- */

/**
 * store_event_add() - record an event
 * @type: "trap", "fault", "reroute", "repair", "rebalance", "error", "engine", "config", "daemon"
 * @details: JSON object or NULL (stored as text)
 * Return: the event id (> 0), or -1.
 */
int64_t store_event_add(struct store *s, int64_t time_ms, const char *type, const char *message,
			const json_t *details, struct fab_err *err);

/**
 * store_events_json() - {"events": [{id, time, type, message, details}, ...]}
 * oldest first, with id > @since_id, time >= @since_ms, of @type (NULL =
 * any), at most @limit (the newest @limit of those that match).
 */
json_t *store_events_json(struct store *s, int64_t since_id, int64_t since_ms, const char *type,
			  unsigned limit, struct fab_err *err);

/**
 * struct store_event_query - a page of events
 * @since_id, @since_ms: ids above, times at or after (0: any)
 * @before: ids below (0: any): the page before an earlier one
 * @type: NULL for any; @limit: the newest @limit of the matches (0: 100)
 */
struct store_event_query {
	int64_t since_id, since_ms, before;
	const char *type;
	unsigned limit;
};

/**
 * store_events_page() - store_events_json() of @q, plus "more": older
 * matches exist beyond the page (ask again with @before the first id).
 */
json_t *store_events_page(struct store *s, const struct store_event_query *q, struct fab_err *err);

/**
 * store_events_keep() - keep at most @n events (0: no limit): the oldest
 * beyond it are deleted as new ones are added (about every 64).
 */
void store_events_keep(struct store *s, unsigned n);

#endif
