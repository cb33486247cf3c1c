/* SPDX-License-Identifier: MIT */
/*
 * Private declarations shared by the store's files: the store itself, the
 * SQLite helpers (store.c), the compressed blob format and the blob
 * encoders and decoders (blob.c), JSON helpers (snap_json.c) and the
 * unlocked snapshot reader (snapshots.c). See doc/store.md for the schema
 * and the byte layout of every blob.
 */
#ifndef FABROUTE_STORE_INTERNAL_H
#define FABROUTE_STORE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/**
 * struct store - one open database
 * @db: the connection (SQLITE_OPEN_FULLMUTEX)
 * @lock: serializes every public function, so multi-statement operations
 *        and their transactions never interleave
 * @path: as given to store_open(), for messages
 */
struct store {
	sqlite3 *db;
	pthread_mutex_t lock;
	char *path;
	pthread_mutex_t hmu;	/* guards @health alone: read without waiting for @lock */
	struct store_health health;
	unsigned events_keep;	/* store_events_keep(); under @lock */
	unsigned events_added;	/* since the last trim; under @lock */
	pthread_mutex_t seq_mu;	/* guards @seq_next, @seq_top: no wait for @lock */
	int64_t seq_next, seq_top;	/* epoch numbers reserved in the database, not given yet */
};

/* --- SQLite helpers (store.c); callers hold @s->lock ------------------------ */

/** store_db_err() - set @err to "store: WHAT: <sqlite3_errmsg>"; the store's health records it. */
void store_db_err(struct store *s, struct fab_err *err, const char *what);
/** store_db_ok() - a write was committed: the store is healthy again. */
void store_db_ok(struct store *s);
/** store_db_prepare() - prepare @sql; -1 with @err set on failure. */
int store_db_prepare(struct store *s, const char *sql, sqlite3_stmt **st, struct fab_err *err);
/**
 * store_rows_json() - step @st (prepared and bound; finalized here) and
 * answer {@key: [@row(st), ...]}; NULL with @err ("store: @what: ..." or out
 * of memory). Call it with the store's lock held.
 */
json_t *store_rows_json(struct store *s, sqlite3_stmt *st, json_t *(*row)(sqlite3_stmt *st),
			const char *key, const char *what, struct fab_err *err);
/**
 * store_page_json() - store_rows_json() of a query that asked for @limit + 1
 * rows: the rows beyond @limit are dropped and "more" says whether there
 * were any; @oldest_last: rows come newest first (else oldest first).
 */
json_t *store_page_json(struct store *s, sqlite3_stmt *st, json_t *(*row)(sqlite3_stmt *st), const char *key,
			unsigned limit, int oldest_last, const char *what, struct fab_err *err);
/** store_db_exec() - run SQL without results; -1 with @err ("store: WHAT: ...") on failure. */
int store_db_exec(struct store *s, const char *sql, const char *what, struct fab_err *err);
/** store_db_begin() - BEGIN IMMEDIATE. */
int store_db_begin(struct store *s, struct fab_err *err);
/** store_db_commit() - COMMIT; on failure rolls back and sets @err. */
int store_db_commit(struct store *s, struct fab_err *err);
/** store_db_rollback() - ROLLBACK when a transaction is open; keeps @err as is. */
void store_db_rollback(struct store *s);

/* GUIDs live in INTEGER columns as the int64 with the same bit pattern. */
static inline int64_t store_guid_to_db(uint64_t g)
{
	return (int64_t)g;
}

static inline uint64_t store_guid_from_db(int64_t v)
{
	return (uint64_t)v;
}

/**
 * struct store_lid_stmts - the statements that record LID allocations
 * @touch: same allocation seen again: move last_seen
 * @del: drop other GUIDs' allocations the new range overlaps
 * @ups: insert or replace the GUID's allocation
 */
struct store_lid_stmts {
	sqlite3_stmt *touch, *del, *ups;
};

int store_lid_prepare(struct store *s, struct store_lid_stmts *l, struct fab_err *err);
void store_lid_finalize(struct store_lid_stmts *l);
/**
 * store_lid_record() - record that port @p->guid holds @p->lid/@p->lmc at
 * @now_ms; older allocations of other GUIDs that overlap it are dropped.
 * Return: 0, or -1 with @err set (invalid range, SQLite error).
 */
int store_lid_record(struct store *s, struct store_lid_stmts *l, const struct fab_lid_pin *p,
		     int64_t now_ms, struct fab_err *err);

/* --- little-endian byte access ----------------------------------------------- */

static inline void store_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void store_put32(uint8_t *p, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void store_put64(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t store_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t store_get32(const uint8_t *p)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static inline uint64_t store_get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* --- blobs (blob.c) ------------------------------------------------------------ */

#define STORE_BLOB_HDR 24u
#define STORE_BLOB_VERSION 1u

#define STORE_MAGIC_TOPO "FRTP"
#define STORE_MAGIC_LFTS "FRLF"
#define STORE_MAGIC_LIDS "FRLD"
#define STORE_MAGIC_PAIRS "FRPR"
#define STORE_MAGIC_SL2VL "FRSV"

/* Pairs blob flags. */
#define STORE_PAIRS_SL 1u
#define STORE_PAIRS_DLID 2u

/** Size of one record of the LIDs blob: GUID (8), LID (2), LMC (1), pad (1). */
#define STORE_LID_REC 12u

/**
 * struct store_blob - the header in front of every compressed blob
 * @magic: 4 ASCII bytes naming the content
 * @version: STORE_BLOB_VERSION
 * @flags, @count, @param: meaning depends on the blob (doc/store.md)
 * @raw_len: size of the uncompressed payload
 */
struct store_blob {
	char magic[4];
	uint16_t version;
	uint16_t flags;
	uint32_t count;
	uint32_t param;
	uint64_t raw_len;
};

/**
 * struct store_bytes - a malloc'd byte buffer (a blob ready to bind)
 */
struct store_bytes {
	uint8_t *p;
	size_t len;
};

/** store_blob_pack() - header @h then @raw (@h->raw_len bytes) compressed. */
int store_blob_pack(const struct store_blob *h, const void *raw, struct store_bytes *out,
		    struct fab_err *err);

/** struct store_piece - @len bytes at @p: a piece of a blob's payload */
struct store_piece {
	const void *p;
	size_t len;
};

/**
 * store_blob_pack_pieces() - store_blob_pack() of the @n pieces @pc one
 * after the other (@h->raw_len bytes in all), compressed from where they
 * are: no copy of the payload is made (the LFTs take 187 MB at 43,904 CAs)
 */
int store_blob_pack_pieces(const struct store_blob *h, const struct store_piece *pc, size_t n,
			   struct store_bytes *out, struct fab_err *err);
/** store_blob_head() - read and check the header of @blob (magic, version). */
int store_blob_head(const void *blob, size_t len, const char *magic, struct store_blob *h,
		    const char *what, struct fab_err *err);
/**
 * store_blob_inflate() - uncompress @blob whose header @h has been checked;
 * its raw_len must equal @expect. *@raw is malloc'd (at least 1 byte).
 */
int store_blob_inflate(const void *blob, size_t len, const struct store_blob *h,
		       uint64_t expect, uint8_t **raw, const char *what, struct fab_err *err);

/* Encoders: fill @out from the fabric and routing. -1 with @err on failure. */
int store_enc_topo(const struct fabric *f, struct store_bytes *out, struct fab_err *err);
int store_enc_lfts(const struct fabric *f, const struct rt_routing *r, struct store_bytes *out,
		   struct fab_err *err);
int store_enc_lids(const struct fabric *f, struct store_bytes *out, struct fab_err *err);
/* Pairs and SL2VL: out->p stays NULL when the routing has none. */
int store_enc_pairs(const struct fabric *f, const struct rt_routing *r,
		    struct store_bytes *out, struct fab_err *err);
int store_enc_sl2vl(const struct fabric *f, const struct rt_routing *r,
		    struct store_bytes *out, struct fab_err *err);

/*
 * Decoders: @what prefixes messages ("store: snapshot 7"). They check every
 * size against the rebuilt fabric before allocating, and return -1 with
 * @err set on anything malformed.
 */
struct fabric *store_dec_topo(const void *blob, size_t len, const char *what,
			      struct fab_err *err);
int store_dec_lids(const void *blob, size_t len, struct fabric *f, const char *what,
		   struct fab_err *err);
int store_dec_lfts(const void *blob, size_t len, const struct fabric *f, uint32_t lft_len,
		   struct rt_routing *r, const char *what, struct fab_err *err);
int store_dec_pairs(const void *blob, size_t len, const struct fabric *f,
		    struct rt_routing *r, const char *what, struct fab_err *err);
int store_dec_sl2vl(const void *blob, size_t len, const struct fabric *f,
		    struct rt_routing *r, const char *what, struct fab_err *err);

/* --- snapshots (snapshots.c) ---------------------------------------------------- */

/**
 * store_snap_read() - store_snapshot_load() without taking the lock
 * Return: 0, 1 when there is no snapshot @id (@err says so), -1 on error.
 */
int store_snap_read(struct store *s, int64_t id, struct store_snap *out, struct fab_err *err);

/* --- JSON helpers (snap_json.c) ------------------------------------------------- */

/** store_json_time() - "YYYY-MM-DDTHH:MM:SS.mmmZ" (UTC) of @ms. */
json_t *store_json_time(int64_t ms);
/** store_json_guid() - "0x%016llx". */
json_t *store_json_guid(uint64_t guid);
/** store_json_text() - parse stored JSON text; JSON null when NULL or unparsable. */
json_t *store_json_text(const char *text);
/** store_json_set() - json_object_set_new(); -1 when @v is NULL (out of memory). */
int store_json_set(json_t *o, const char *key, json_t *v);

/** store_diff_json() - the diff of two loaded snapshots (snap_diff.c). */
json_t *store_diff_json(const struct store_snap *a, const struct store_snap *b);

#endif
