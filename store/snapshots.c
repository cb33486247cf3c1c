/* SPDX-License-Identifier: MIT */
/**
 * DOC: store: snapshots
 *
 * store_snapshot_add() writes, in one transaction: the topology (once per
 * topology hash, as compressed ibnetdiscover text), the snapshot row with
 * its LFT, LID, pair and SL2VL blobs, and the LID allocation of every
 * endpoint. store_snapshot_load() reverses it: parse the topology, apply
 * the snapshot's LIDs, then fill a routing from the blobs, matching
 * switches and endpoints by GUID. Any inconsistency between the blobs and
 * the topology fails the load with a message naming the snapshot.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"

/* Largest LFT the store accepts (as blob.c). */
#define LFT_LEN_MAX (FAB_LID_UCAST_MAX + 1u)

/**
 * struct snap_blobs - everything store_snapshot_add() binds, prepared
 * before the transaction starts
 */
struct snap_blobs {
	struct store_bytes lfts, lids, pairs, sl2vl, topo;
	char *summary;
	char hash[17];
	char digest[RT_DIGEST_HEX];
};

static void blobs_free(struct snap_blobs *b)
{
	free(b->lfts.p);
	free(b->lids.p);
	free(b->pairs.p);
	free(b->sl2vl.p);
	free(b->topo.p);
	free(b->summary);
}

static int blobs_make(const struct store_snap_in *in, struct snap_blobs *b, struct fab_err *err)
{
	snprintf(b->hash, sizeof(b->hash), "%016" PRIx64, fab_topology_hash(in->f));
	if (in->digest && strlen(in->digest) == RT_DIGEST_HEX - 1)
		memcpy(b->digest, in->digest, RT_DIGEST_HEX);
	else if (rt_digest(in->f, in->r, b->digest, err))
		return -1;
	if (store_enc_lfts(in->f, in->r, &b->lfts, err) || store_enc_lids(in->f, &b->lids, err) ||
	    store_enc_pairs(in->f, in->r, &b->pairs, err) ||
	    store_enc_sl2vl(in->f, in->r, &b->sl2vl, err))
		return -1;
	if (in->summary && !(b->summary = json_dumps(in->summary, JSON_COMPACT |
						     JSON_ENCODE_ANY))) {
		fab_err_set(err, "store: cannot encode the snapshot's summary");
		return -1;
	}
	return 0;
}

/* Bind @b, or NULL when it is empty. */
static void bind_bytes(sqlite3_stmt *st, int col, const struct store_bytes *b)
{
	if (b->p)
		sqlite3_bind_blob64(st, col, b->p, b->len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, col);
}

/* --- adding ------------------------------------------------------------------------ */

static unsigned count_cas(const struct fabric *f)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < f->nnodes; i++)
		n += f->nodes[i].type == FAB_CA;
	return n;
}

/* Whether topology @hash is stored: 1, 0, or -1 with @err. Under the store's lock. */
static int topo_known(struct store *s, const char *hash, struct fab_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (store_db_prepare(s, "SELECT 1 FROM topologies WHERE hash = ?1", &st, err))
		return -1;
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return rc == SQLITE_ROW;
	store_db_err(s, err, "looking up the topology");
	return -1;
}

/*
 * Insert the topology unless its hash is already there, as @text (its
 * compressed ibnetdiscover text, made before the lock was taken; encoded
 * here when empty).
 */
static int topo_put(struct store *s, const struct fabric *f, const char *hash, int64_t now,
		    struct store_bytes *text, struct fab_err *err)
{
	sqlite3_stmt *st;
	int rc = topo_known(s, hash, err);

	if (rc)
		return rc < 0 ? -1 : 0;
	if ((!text->p && store_enc_topo(f, text, err)) ||
	    store_db_prepare(s, "INSERT INTO topologies (hash, first_seen, nodes, switches, cas,"
			     " links, ibnd) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &st, err))
		return -1;
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, now);
	sqlite3_bind_int64(st, 3, f->nnodes);
	sqlite3_bind_int64(st, 4, f->nswitches);
	sqlite3_bind_int64(st, 5, count_cas(f));
	sqlite3_bind_int64(st, 6, f->nlinks);
	bind_bytes(st, 7, text);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	if (rc)
		store_db_err(s, err, "inserting the topology");
	sqlite3_finalize(st);
	return rc;
}

static const char sql_snap_ins[] =
	"INSERT INTO snapshots (seq, time_ms, reason, chain, engine, topo_hash, compute_ms,"
	" eval_ms, summary, lft_len, vls_used, notes, lfts, lids, pairs, sl2vl, routing_digest)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";

static void bind_text_or_null(sqlite3_stmt *st, int col, const char *t)
{
	if (t)
		sqlite3_bind_text(st, col, t, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, col);
}

static int64_t snap_put(struct store *s, const struct store_snap_in *in,
			const struct snap_blobs *b, struct fab_err *err)
{
	sqlite3_stmt *st;
	int64_t id = -1;

	if (store_db_prepare(s, sql_snap_ins, &st, err))
		return -1;
	sqlite3_bind_int64(st, 1, (int64_t)in->seq);
	sqlite3_bind_int64(st, 2, in->time_ms);
	sqlite3_bind_text(st, 3, in->reason ? in->reason : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, in->chain ? in->chain : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, in->engine ? in->engine : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, b->hash, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 7, in->compute_ms);
	sqlite3_bind_double(st, 8, in->eval_ms);
	bind_text_or_null(st, 9, b->summary);
	sqlite3_bind_int64(st, 10, in->r->lft_len);
	sqlite3_bind_int(st, 11, in->r->vls_used ? in->r->vls_used : 1);
	bind_text_or_null(st, 12, in->r->notes);
	bind_bytes(st, 13, &b->lfts);
	bind_bytes(st, 14, &b->lids);
	bind_bytes(st, 15, &b->pairs);
	bind_bytes(st, 16, &b->sl2vl);
	sqlite3_bind_text(st, 17, b->digest, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(s->db);
	else
		store_db_err(s, err, "inserting the snapshot");
	sqlite3_finalize(st);
	return id;
}

/* The allocation of every endpoint that has a LID, seen at @now. */
static int lids_put(struct store *s, const struct fabric *f, int64_t now, struct fab_err *err)
{
	struct store_lid_stmts l;
	int rc = 0;

	if (store_lid_prepare(s, &l, err))
		return -1;
	for (uint32_t e = 0; !rc && e < f->neps; e++) {
		const struct fab_port *p = fab_port(f, f->eps[e].node, f->eps[e].port);
		struct fab_lid_pin pin = { .guid = p->guid, .lid = p->lid, .lmc = p->lmc };

		if (pin.lid)
			rc = store_lid_record(s, &l, &pin, now, err);
	}
	store_lid_finalize(&l);
	return rc;
}

static int check_in(const struct store_snap_in *in, struct fab_err *err)
{
	if (!in || !in->f || !in->r || !in->f->finalized) {
		fab_err_set(err, "store: a snapshot needs a finalized fabric and a routing");
		return -1;
	}
	return 0;
}

/*
 * The topology's text, when the store does not have it yet: encoded before
 * the transaction (a quarter of a second at 43,904 CAs), so that the
 * store's other users do not wait for it. 0, or -1 with @err.
 */
static int topo_ahead(struct store *s, const struct fabric *f, struct snap_blobs *b,
		      struct fab_err *err)
{
	int known;

	pthread_mutex_lock(&s->lock);
	known = topo_known(s, b->hash, err);
	pthread_mutex_unlock(&s->lock);
	return known < 0 ? -1 : known ? 0 : store_enc_topo(f, &b->topo, err);
}

int64_t store_snapshot_add(struct store *s, const struct store_snap_in *in, struct fab_err *err)
{
	struct snap_blobs b;
	int64_t id = -1;

	memset(&b, 0, sizeof(b));
	if (check_in(in, err) || blobs_make(in, &b, err) || topo_ahead(s, in->f, &b, err)) {
		blobs_free(&b);
		return -1;
	}
	pthread_mutex_lock(&s->lock);
	if (store_db_begin(s, err))
		goto out;
	if (topo_put(s, in->f, b.hash, in->time_ms, &b.topo, err) ||
	    (id = snap_put(s, in, &b, err)) < 0 || lids_put(s, in->f, in->time_ms, err) ||
	    store_db_commit(s, err)) {
		store_db_rollback(s);
		id = -1;
	}
out:
	pthread_mutex_unlock(&s->lock);
	blobs_free(&b);
	return id;
}

/* --- loading ------------------------------------------------------------------------ */

enum {
	C_SEQ, C_TIME, C_REASON, C_CHAIN, C_ENGINE, C_HASH, C_COMPUTE, C_EVAL, C_LFT_LEN,
	C_VLS, C_NOTES, C_LFTS, C_LIDS, C_PAIRS, C_SL2VL, C_IBND, C_DIGEST,
};

static const char sql_snap_get[] =
	"SELECT s.seq, s.time_ms, s.reason, s.chain, s.engine, s.topo_hash, s.compute_ms,"
	" s.eval_ms, s.lft_len, s.vls_used, s.notes, s.lfts, s.lids, s.pairs, s.sl2vl, t.ibnd,"
	" s.routing_digest"
	" FROM snapshots s LEFT JOIN topologies t ON t.hash = s.topo_hash WHERE s.id = ?1";

static char *col_strdup(sqlite3_stmt *st, int col)
{
	const char *t = (const char *)sqlite3_column_text(st, col);

	return strdup(t ? t : "");
}

static int parse_hash(const char *t, uint64_t *out)
{
	char *end;

	if (!t || strlen(t) != 16 || strspn(t, "0123456789abcdef") != 16)
		return -1;
	*out = strtoull(t, &end, 16);
	return *end ? -1 : 0;
}

/* Blob of column @col, as decoders take it. */
#define COL_BLOB(st, col) sqlite3_column_blob(st, col), (size_t)sqlite3_column_bytes(st, col)

/* The routing of the row, for @out->f. */
static int rebuild_routing(sqlite3_stmt *st, struct store_snap *out, const char *what,
			   struct fab_err *err)
{
	int64_t len = sqlite3_column_int64(st, C_LFT_LEN), vls = sqlite3_column_int64(st, C_VLS);
	const char *notes = (const char *)sqlite3_column_text(st, C_NOTES);

	if (len < 1 || len > LFT_LEN_MAX) {
		fab_err_set(err, "%s: LFT length %" PRId64 " is out of range", what, len);
		return -1;
	}
	out->r = rt_new_len(out->f, (uint32_t)len);
	if (!out->r || (notes && !(out->r->notes = strdup(notes)))) {
		fab_err_set(err, "%s: out of memory", what);
		return -1;
	}
	out->r->vls_used = (uint16_t)(vls >= 1 && vls <= 16 ? vls : 1);
	if (store_dec_lfts(COL_BLOB(st, C_LFTS), out->f, (uint32_t)len, out->r, what, err))
		return -1;
	if (sqlite3_column_type(st, C_PAIRS) != SQLITE_NULL &&
	    store_dec_pairs(COL_BLOB(st, C_PAIRS), out->f, out->r, what, err))
		return -1;
	if (sqlite3_column_type(st, C_SL2VL) != SQLITE_NULL &&
	    store_dec_sl2vl(COL_BLOB(st, C_SL2VL), out->f, out->r, what, err))
		return -1;
	return 0;
}

/* The routing digest of the row, or of what was rebuilt for a row stored before it was kept. */
static int stored_digest(sqlite3_stmt *st, struct store_snap *out, const char *what,
			 struct fab_err *err)
{
	const char *d = (const char *)sqlite3_column_text(st, C_DIGEST);

	if (!d)
		return rt_digest(out->f, out->r, out->digest, err);
	if (strlen(d) != RT_DIGEST_HEX - 1 || strspn(d, "0123456789abcdef") != RT_DIGEST_HEX - 1) {
		fab_err_set(err, "%s: its routing digest is malformed", what);
		return -1;
	}
	memcpy(out->digest, d, RT_DIGEST_HEX);
	return 0;
}

/* Everything of the row into @out; @out is freed by the caller on failure. */
static int rebuild(sqlite3_stmt *st, struct store_snap *out, struct fab_err *err)
{
	char what[64];

	snprintf(what, sizeof(what), "store: snapshot %" PRId64, out->id);
	out->seq = (uint64_t)sqlite3_column_int64(st, C_SEQ);
	out->time_ms = sqlite3_column_int64(st, C_TIME);
	out->compute_ms = sqlite3_column_double(st, C_COMPUTE);
	out->eval_ms = sqlite3_column_double(st, C_EVAL);
	out->reason = col_strdup(st, C_REASON);
	out->chain = col_strdup(st, C_CHAIN);
	out->engine = col_strdup(st, C_ENGINE);
	if (!out->reason || !out->chain || !out->engine) {
		fab_err_set(err, "%s: out of memory", what);
		return -1;
	}
	if (parse_hash((const char *)sqlite3_column_text(st, C_HASH), &out->topo_hash) ||
	    sqlite3_column_type(st, C_IBND) == SQLITE_NULL) {
		fab_err_set(err, "%s: its topology is missing or its hash is malformed", what);
		return -1;
	}
	out->f = store_dec_topo(COL_BLOB(st, C_IBND), what, err);
	if (!out->f)
		return -1;
	if (fab_topology_hash(out->f) != out->topo_hash) {
		fab_err_set(err, "%s: the stored topology does not match its hash %016" PRIx64,
			    what, out->topo_hash);
		return -1;
	}
	if (store_dec_lids(COL_BLOB(st, C_LIDS), out->f, what, err) ||
	    rebuild_routing(st, out, what, err))
		return -1;
	return stored_digest(st, out, what, err);
}

int store_snap_read(struct store *s, int64_t id, struct store_snap *out, struct fab_err *err)
{
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	out->id = id;
	if (store_db_prepare(s, sql_snap_get, &st, err))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		rc = rebuild(st, out, err);
	} else if (rc == SQLITE_DONE) {
		fab_err_set(err, "no snapshot %" PRId64, id);
		rc = 1;
	} else {
		store_db_err(s, err, "reading a snapshot");
		rc = -1;
	}
	sqlite3_finalize(st);
	if (rc)
		store_snap_free(out);
	return rc;
}

int store_snapshot_load(struct store *s, int64_t id, struct store_snap *out, struct fab_err *err)
{
	int rc;

	pthread_mutex_lock(&s->lock);
	rc = store_snap_read(s, id, out, err);
	pthread_mutex_unlock(&s->lock);
	return rc ? -1 : 0;
}

void store_snap_free(struct store_snap *snap)
{
	if (!snap)
		return;
	free(snap->reason);
	free(snap->chain);
	free(snap->engine);
	rt_free(snap->r);
	fab_free(snap->f);
	memset(snap, 0, sizeof(*snap));
}

int64_t store_snapshot_latest(struct store *s, struct fab_err *err)
{
	sqlite3_stmt *st;
	int64_t id = -1;

	pthread_mutex_lock(&s->lock);
	if (!store_db_prepare(s, "SELECT coalesce(max(id), 0) FROM snapshots", &st, err)) {
		if (sqlite3_step(st) == SQLITE_ROW)
			id = sqlite3_column_int64(st, 0);
		else
			store_db_err(s, err, "finding the latest snapshot");
		sqlite3_finalize(st);
	}
	pthread_mutex_unlock(&s->lock);
	return id;
}
