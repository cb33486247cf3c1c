/* SPDX-License-Identifier: MIT */
/**
 * DOC: store blobs
 *
 * Every blob the store writes is a 24-byte little-endian header (magic,
 * version, flags, count, param, uncompressed size) followed by one zlib
 * stream. The encoders below turn a fabric and its routing into such
 * blobs; the decoders check each header against the fabric rebuilt from
 * the stored topology before allocating anything, so a corrupt or
 * truncated blob is an error message, never a crash or a huge allocation.
 * doc/store.md gives the byte layout of each payload.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/formats.h"
#include "store/internal.h"

/*
 * zlib's level: the LFTs of 43,904 CAs (187 MB) take 0.30 s at 3 (2.4 MB)
 * and 0.98 s at 6 (1.4 MB), and a snapshot is stored before the next
 * reroute may start.
 */
#define STORE_ZLEVEL 3

/* Largest LFT the store accepts: one entry per unicast LID and LID 0. */
#define LFT_LEN_MAX (FAB_LID_UCAST_MAX + 1u)

/* --- header and compression ---------------------------------------------------- */

/* Feed @len bytes at @p to @z (Z_NO_FLUSH), in pieces zlib's counters hold. 0, or -1. */
static int deflate_piece(z_stream *z, const uint8_t *p, size_t len)
{
	while (len) {
		uInt k = len > (1u << 30) ? 1u << 30 : (uInt)len;

		z->next_in = (Bytef *)(uintptr_t)p;
		z->avail_in = k;
		if (deflate(z, Z_NO_FLUSH) != Z_OK || z->avail_in)
			return -1;	/* the output is sized for all of it: no room means an error */
		p += k;
		len -= k;
	}
	return 0;
}

/* Header @h, then the pieces as one zlib stream, into @out (sized for the worst). */
static int pack_stream(const struct store_blob *h, const struct store_piece *pc, size_t n,
		       struct store_bytes *out)
{
	z_stream z = { 0 };
	uLong bound;
	int rc = -1;

	if (deflateInit(&z, STORE_ZLEVEL) != Z_OK)
		return -1;
	bound = deflateBound(&z, (uLong)h->raw_len);
	out->p = bound <= (uInt)-1 ? malloc(STORE_BLOB_HDR + (size_t)bound) : NULL;
	if (!out->p)
		goto done;
	memcpy(out->p, h->magic, 4);
	store_put16(out->p + 4, STORE_BLOB_VERSION);
	store_put16(out->p + 6, h->flags);
	store_put32(out->p + 8, h->count);
	store_put32(out->p + 12, h->param);
	store_put64(out->p + 16, h->raw_len);
	z.next_out = out->p + STORE_BLOB_HDR;
	z.avail_out = (uInt)bound;
	for (size_t i = 0; i < n; i++)
		if (deflate_piece(&z, pc[i].p, pc[i].len))
			goto done;
	if (deflate(&z, Z_FINISH) == Z_STREAM_END) {
		out->len = STORE_BLOB_HDR + (size_t)z.total_out;
		rc = 0;
	}
done:
	deflateEnd(&z);
	return rc;
}

int store_blob_pack_pieces(const struct store_blob *h, const struct store_piece *pc, size_t n,
			   struct store_bytes *out, struct fab_err *err)
{
	uint64_t sum = 0;

	out->p = NULL;
	out->len = 0;
	for (size_t i = 0; i < n; i++)
		sum += pc[i].len;
	if (sum != h->raw_len) {
		fab_err_set(err, "store: %.4s blob of %" PRIu64 " bytes given %" PRIu64, h->magic,
			    h->raw_len, sum);
		return -1;
	}
	if (h->raw_len > (uInt)-1) {
		fab_err_set(err, "store: %.4s blob too large (%" PRIu64 " bytes)", h->magic,
			    h->raw_len);
		return -1;
	}
	if (pack_stream(h, pc, n, out)) {
		free(out->p);
		out->p = NULL;
		fab_err_set(err, "store: out of memory compressing a %.4s blob of %" PRIu64 " bytes",
			    h->magic, h->raw_len);
		return -1;
	}
	return 0;
}

int store_blob_pack(const struct store_blob *h, const void *raw, struct store_bytes *out,
		    struct fab_err *err)
{
	struct store_piece pc = { raw, (size_t)h->raw_len };

	return store_blob_pack_pieces(h, &pc, 1, out, err);
}

int store_blob_head(const void *blob, size_t len, const char *magic, struct store_blob *h,
		    const char *what, struct fab_err *err)
{
	const uint8_t *p = blob;

	if (!p || len < STORE_BLOB_HDR) {
		fab_err_set(err, "%s is truncated (%zu bytes, the header alone takes %u)", what,
			    p ? len : 0, STORE_BLOB_HDR);
		return -1;
	}
	if (memcmp(p, magic, 4)) {
		fab_err_set(err, "%s is corrupt: bad magic, expected \"%s\"", what, magic);
		return -1;
	}
	memcpy(h->magic, p, 4);
	h->version = store_get16(p + 4);
	h->flags = store_get16(p + 6);
	h->count = store_get32(p + 8);
	h->param = store_get32(p + 12);
	h->raw_len = store_get64(p + 16);
	if (h->version != STORE_BLOB_VERSION) {
		fab_err_set(err, "%s has format version %u, this build reads version %u", what,
			    h->version, STORE_BLOB_VERSION);
		return -1;
	}
	return 0;
}

int store_blob_inflate(const void *blob, size_t len, const struct store_blob *h,
		       uint64_t expect, uint8_t **raw, const char *what, struct fab_err *err)
{
	uLongf dlen;
	uLong slen = (uLong)(len - STORE_BLOB_HDR);
	uint8_t *p;
	int rc;

	*raw = NULL;
	if (h->raw_len != expect || expect > (uLong)-1 || expect >= SIZE_MAX) {
		fab_err_set(err, "%s is corrupt: %" PRIu64 " bytes uncompressed, expected %" PRIu64,
			    what, h->raw_len, expect);
		return -1;
	}
	p = malloc((size_t)expect + 1);
	if (!p) {
		fab_err_set(err, "%s: out of memory (%" PRIu64 " bytes)", what, expect);
		return -1;
	}
	dlen = (uLongf)expect;
	rc = uncompress2(p, &dlen, (const uint8_t *)blob + STORE_BLOB_HDR, &slen);
	if (rc != Z_OK || dlen != expect || slen != len - STORE_BLOB_HDR) {
		free(p);
		fab_err_set(err, "%s is corrupt or truncated: %s", what,
			    rc != Z_OK ? (rc == Z_BUF_ERROR ? "data ends early" : zError(rc)) :
			    "size does not match its header");
		return -1;
	}
	p[expect] = 0;
	*raw = p;
	return 0;
}

/* Header check plus inflate, for the decoders. */
static int unpack(const void *blob, size_t len, const char *magic, const char *what,
		  const char *name, struct store_blob *h, struct fab_err *err)
{
	char w[256];

	snprintf(w, sizeof(w), "%s: %s blob", what, name);
	return store_blob_head(blob, len, magic, h, w, err);
}

static int inflate_as(const void *blob, size_t len, const struct store_blob *h, uint64_t expect,
		      uint8_t **raw, const char *what, const char *name, struct fab_err *err)
{
	char w[256];

	snprintf(w, sizeof(w), "%s: %s blob", what, name);
	return store_blob_inflate(blob, len, h, expect, raw, w, err);
}

/* --- topology: the ibnetdiscover text ------------------------------------------ */

int store_enc_topo(const struct fabric *f, struct store_bytes *out, struct fab_err *err)
{
	struct store_blob h = { .magic = STORE_MAGIC_TOPO, .count = f->nnodes,
				.param = f->nlinks };
	char *text = NULL;
	size_t n = 0;
	FILE *mf = open_memstream(&text, &n);
	int rc;

	if (!mf) {
		fab_err_set(err, "store: out of memory writing the topology");
		return -1;
	}
	rc = fmt_topo_write(mf, f, FMT_IBND);
	if (fclose(mf) || rc) {
		free(text);
		fab_err_set(err, "store: writing the topology as ibnetdiscover text failed");
		return -1;
	}
	h.raw_len = n;
	rc = store_blob_pack(&h, text, out, err);
	free(text);
	return rc;
}

struct fabric *store_dec_topo(const void *blob, size_t len, const char *what,
			      struct fab_err *err)
{
	struct store_blob h;
	struct fabric *f;
	uint8_t *raw;
	char name[256];

	if (unpack(blob, len, STORE_MAGIC_TOPO, what, "topology", &h, err))
		return NULL;
	if (h.raw_len > FMT_SIZE_MAX) {
		fab_err_set(err, "%s: topology blob is corrupt: %" PRIu64 " bytes of text", what,
			    h.raw_len);
		return NULL;
	}
	if (inflate_as(blob, len, &h, h.raw_len, &raw, what, "topology", err))
		return NULL;
	snprintf(name, sizeof(name), "%s: topology", what);
	f = fmt_topo_parse((const char *)raw, (size_t)h.raw_len, name, FMT_IBND, err);
	free(raw);
	return f;
}

/* --- LFTs -------------------------------------------------------------------------- */

int store_enc_lfts(const struct fabric *f, const struct rt_routing *r, struct store_bytes *out,
		   struct fab_err *err)
{
	struct store_blob h = { .magic = STORE_MAGIC_LFTS, .count = f->nswitches,
				.param = r->lft_len };
	size_t rec = 8 + (size_t)r->lft_len;
	struct store_piece *pc;
	uint8_t *guids;
	int rc;

	if (r->nswitches != f->nswitches || !r->lft_len || r->lft_len > LFT_LEN_MAX) {
		fab_err_set(err, "store: the routing does not fit the fabric (%u switches, LFT "
			    "length %u; the fabric has %u switches)", r->nswitches, r->lft_len,
			    f->nswitches);
		return -1;
	}
	h.raw_len = (uint64_t)rec * f->nswitches;
	guids = malloc(8 * (size_t)f->nswitches + 1);
	pc = malloc((2 * (size_t)f->nswitches + 1) * sizeof(*pc));
	if (!guids || !pc) {
		free(guids);
		free(pc);
		fab_err_set(err, "store: out of memory packing LFTs");
		return -1;
	}
	/* each record, its GUID then its row, fed to zlib from where they are */
	for (uint32_t s = 0; s < f->nswitches; s++) {
		store_put64(guids + 8 * (size_t)s, f->nodes[f->switches[s]].guid);
		pc[2 * s] = (struct store_piece){ guids + 8 * (size_t)s, 8 };
		pc[2 * s + 1] = (struct store_piece){ rt_lft(r, s), r->lft_len };
	}
	rc = store_blob_pack_pieces(&h, pc, 2 * (size_t)f->nswitches, out, err);
	free(guids);
	free(pc);
	return rc;
}

/* Copy one switch record into @r; checks the GUID and every port number. */
static int lft_record(const struct fabric *f, const uint8_t *p, uint32_t lft_len,
		      struct rt_routing *r, uint8_t *seen, const char *what, struct fab_err *err)
{
	uint64_t guid = store_get64(p);
	uint32_t node = fab_node_by_guid(f, guid), sw;

	if (node == FAB_NONE || f->nodes[node].type != FAB_SWITCH) {
		fab_err_set(err, "%s: LFT blob names switch 0x%016" PRIx64
			    ", which the topology does not have", what, guid);
		return -1;
	}
	sw = f->nodes[node].swidx;
	if (seen[sw]++) {
		fab_err_set(err, "%s: LFT blob lists switch 0x%016" PRIx64 " twice", what, guid);
		return -1;
	}
	for (uint32_t l = 0; l < lft_len; l++) {
		uint8_t port = p[8 + l];

		if (port != RT_NO_PORT && port > f->nodes[node].nports) {
			fab_err_set(err, "%s: LFT blob is corrupt: switch 0x%016" PRIx64
				    " LID %u goes to port %u of %u", what, guid, l, port,
				    f->nodes[node].nports);
			return -1;
		}
	}
	memcpy(rt_lft(r, sw), p + 8, lft_len);
	return 0;
}

int store_dec_lfts(const void *blob, size_t len, const struct fabric *f, uint32_t lft_len,
		   struct rt_routing *r, const char *what, struct fab_err *err)
{
	struct store_blob h;
	size_t rec = 8 + (size_t)lft_len;
	uint8_t *raw, *seen;
	int rc = 0;

	if (unpack(blob, len, STORE_MAGIC_LFTS, what, "LFT", &h, err))
		return -1;
	if (h.count != f->nswitches || h.param != lft_len || lft_len > r->lft_len) {
		fab_err_set(err, "%s: LFT blob is corrupt: %u switches of %u LIDs, expected %u "
			    "of %u", what, h.count, h.param, f->nswitches, lft_len);
		return -1;
	}
	if (inflate_as(blob, len, &h, (uint64_t)rec * h.count, &raw, what, "LFT", err))
		return -1;
	seen = calloc((size_t)f->nswitches + 1, 1);
	if (!seen) {
		free(raw);
		fab_err_set(err, "%s: out of memory", what);
		return -1;
	}
	for (uint32_t s = 0; s < h.count && !rc; s++)
		rc = lft_record(f, raw + s * rec, lft_len, r, seen, what, err);
	free(seen);
	free(raw);
	return rc;
}

/* --- LIDs ---------------------------------------------------------------------------- */

int store_enc_lids(const struct fabric *f, struct store_bytes *out, struct fab_err *err)
{
	struct store_blob h = { .magic = STORE_MAGIC_LIDS };
	uint8_t *raw = malloc((size_t)f->neps * STORE_LID_REC + 1), *p;
	int rc;

	if (!raw) {
		fab_err_set(err, "store: out of memory packing LIDs");
		return -1;
	}
	p = raw;
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_port *x = fab_port(f, f->eps[e].node, f->eps[e].port);

		if (!x->lid)
			continue;
		store_put64(p, x->guid);
		store_put16(p + 8, x->lid);
		p[10] = x->lmc;
		p[11] = 0;
		p += STORE_LID_REC;
		h.count++;
	}
	h.raw_len = (uint64_t)h.count * STORE_LID_REC;
	rc = store_blob_pack(&h, raw, out, err);
	free(raw);
	return rc;
}

int store_dec_lids(const void *blob, size_t len, struct fabric *f, const char *what,
		   struct fab_err *err)
{
	struct store_blob h;
	struct fab_lid_pin *pins;
	struct fab_err e2 = { { 0 } };
	uint8_t *raw;
	int rc;

	if (unpack(blob, len, STORE_MAGIC_LIDS, what, "LID", &h, err))
		return -1;
	if (h.count > f->neps) {
		fab_err_set(err, "%s: LID blob is corrupt: %u entries for %u endpoints", what,
			    h.count, f->neps);
		return -1;
	}
	if (inflate_as(blob, len, &h, (uint64_t)h.count * STORE_LID_REC, &raw, what, "LID", err))
		return -1;
	pins = malloc(((size_t)h.count + 1) * sizeof(*pins));
	if (!pins) {
		free(raw);
		fab_err_set(err, "%s: out of memory", what);
		return -1;
	}
	for (uint32_t i = 0; i < h.count; i++) {
		pins[i].guid = store_get64(raw + (size_t)i * STORE_LID_REC);
		pins[i].lid = store_get16(raw + (size_t)i * STORE_LID_REC + 8);
		pins[i].lmc = raw[(size_t)i * STORE_LID_REC + 10];
	}
	free(raw);
	rc = fab_lids_assign(f, pins, h.count, FAB_LIDS_RENEW, 0, &e2);
	free(pins);
	if (rc)
		fab_err_set(err, "%s: LID blob does not apply: %s", what, e2.msg);
	return rc;
}

/* --- path SLs and DLID offsets ------------------------------------------------------ */

int store_enc_pairs(const struct fabric *f, const struct rt_routing *r,
		    struct store_bytes *out, struct fab_err *err)
{
	struct store_blob h = { .magic = STORE_MAGIC_PAIRS, .count = f->neps };
	size_t n2 = (size_t)f->neps * f->neps, at;
	uint8_t *raw;
	int rc;

	out->p = NULL;
	out->len = 0;
	if (!r->path_sl && !r->dlid_off)
		return 0;
	if (r->neps != f->neps) {
		fab_err_set(err, "store: the routing's pair tables cover %u endpoints, the fabric "
			    "has %u", r->neps, f->neps);
		return -1;
	}
	h.flags = (r->path_sl ? STORE_PAIRS_SL : 0) | (r->dlid_off ? STORE_PAIRS_DLID : 0);
	h.raw_len = (uint64_t)f->neps * 8 + (uint64_t)n2 * (r->path_sl && r->dlid_off ? 2 : 1);
	raw = malloc((size_t)h.raw_len + 1);
	if (!raw) {
		fab_err_set(err, "store: out of memory packing path SLs");
		return -1;
	}
	for (uint32_t e = 0; e < f->neps; e++)
		store_put64(raw + (size_t)e * 8, fab_port(f, f->eps[e].node, f->eps[e].port)->guid);
	at = (size_t)f->neps * 8;
	if (r->path_sl) {
		memcpy(raw + at, r->path_sl, n2);
		at += n2;
	}
	if (r->dlid_off)
		memcpy(raw + at, r->dlid_off, n2);
	rc = store_blob_pack(&h, raw, out, err);
	free(raw);
	return rc;
}

/* map[i]: endpoint of @f with the port GUID of stored endpoint i. */
static uint32_t *pairs_map(const struct fabric *f, const uint8_t *raw, const char *what,
			   struct fab_err *err)
{
	uint32_t *map = malloc(((size_t)f->neps + 1) * sizeof(*map));
	uint8_t *seen = calloc((size_t)f->neps + 1, 1);

	if (!map || !seen) {
		fab_err_set(err, "%s: out of memory", what);
		goto fail;
	}
	for (uint32_t i = 0; i < f->neps; i++) {
		uint64_t guid = store_get64(raw + (size_t)i * 8);

		map[i] = fab_ep_by_port_guid(f, guid);
		if (map[i] == FAB_NONE || seen[map[i]]++) {
			fab_err_set(err, "%s: pairs blob is corrupt: endpoint 0x%016" PRIx64 " %s",
				    what, guid, map[i] == FAB_NONE ? "is not in the topology" :
				    "is listed twice");
			goto fail;
		}
	}
	free(seen);
	return map;
fail:
	free(map);
	free(seen);
	return NULL;
}

static void pairs_permute(uint8_t *dst, const uint8_t *src, const uint32_t *map, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			dst[(size_t)map[i] * n + map[j]] = src[(size_t)i * n + j];
}

int store_dec_pairs(const void *blob, size_t len, const struct fabric *f,
		    struct rt_routing *r, const char *what, struct fab_err *err)
{
	struct store_blob h;
	uint64_t n2 = (uint64_t)f->neps * f->neps;
	uint32_t *map;
	uint8_t *raw;
	const uint8_t *at;

	if (unpack(blob, len, STORE_MAGIC_PAIRS, what, "pairs", &h, err))
		return -1;
	if (h.count != f->neps || r->neps != f->neps || !h.flags ||
	    h.flags > (STORE_PAIRS_SL | STORE_PAIRS_DLID)) {
		fab_err_set(err, "%s: pairs blob is corrupt: %u endpoints (flags %u), the "
			    "topology has %u", what, h.count, h.flags, f->neps);
		return -1;
	}
	if (inflate_as(blob, len, &h, (uint64_t)f->neps * 8 + n2 * (h.flags == 3 ? 2 : 1), &raw,
		       what, "pairs", err))
		return -1;
	map = pairs_map(f, raw, what, err);
	if (!map || rt_pairs_alloc(r)) {
		if (map)
			fab_err_set(err, "%s: out of memory", what);
		free(map);
		free(raw);
		return -1;
	}
	at = raw + (size_t)f->neps * 8;
	if (h.flags & STORE_PAIRS_SL) {
		pairs_permute(r->path_sl, at, map, f->neps);
		at += n2;
	} else {
		free(r->path_sl);
		r->path_sl = NULL;
	}
	if (h.flags & STORE_PAIRS_DLID) {
		pairs_permute(r->dlid_off, at, map, f->neps);
	} else {
		free(r->dlid_off);
		r->dlid_off = NULL;
	}
	free(map);
	free(raw);
	return 0;
}

/* --- SL2VL tables ---------------------------------------------------------------------- */

static size_t sl2vl_size(const struct fabric *f, uint32_t sw)
{
	size_t dim = (size_t)f->nodes[f->switches[sw]].nports + 1;

	return dim * dim * RT_SLS;
}

int store_enc_sl2vl(const struct fabric *f, const struct rt_routing *r,
		    struct store_bytes *out, struct fab_err *err)
{
	struct store_blob h = { .magic = STORE_MAGIC_SL2VL };
	uint8_t *raw, *p;
	int rc;

	out->p = NULL;
	out->len = 0;
	for (uint32_t s = 0; r->sl2vl && s < f->nswitches && s < r->nswitches; s++)
		if (r->sl2vl[s]) {
			h.count++;
			h.raw_len += 9 + sl2vl_size(f, s);
		}
	if (!h.count)
		return 0;
	raw = p = malloc((size_t)h.raw_len);
	if (!raw) {
		fab_err_set(err, "store: out of memory packing SL2VL tables");
		return -1;
	}
	for (uint32_t s = 0; s < f->nswitches && s < r->nswitches; s++) {
		if (!r->sl2vl[s])
			continue;
		store_put64(p, f->nodes[f->switches[s]].guid);
		p[8] = f->nodes[f->switches[s]].nports;
		memcpy(p + 9, r->sl2vl[s], sl2vl_size(f, s));
		p += 9 + sl2vl_size(f, s);
	}
	rc = store_blob_pack(&h, raw, out, err);
	free(raw);
	return rc;
}

/* One record at @p (@left bytes remain); returns its size, 0 on error. */
static size_t sl2vl_record(const struct fabric *f, const uint8_t *p, size_t left,
			   struct rt_routing *r, const char *what, struct fab_err *err)
{
	uint64_t guid = left >= 9 ? store_get64(p) : 0;
	uint32_t node = left >= 9 ? fab_node_by_guid(f, guid) : FAB_NONE, sw;
	size_t size;

	if (node == FAB_NONE || f->nodes[node].type != FAB_SWITCH ||
	    p[8] != f->nodes[node].nports) {
		fab_err_set(err, "%s: SL2VL blob is corrupt: bad switch record", what);
		return 0;
	}
	sw = f->nodes[node].swidx;
	size = sl2vl_size(f, sw);
	if (left - 9 < size || r->sl2vl[sw]) {
		fab_err_set(err, "%s: SL2VL blob is corrupt: switch 0x%016" PRIx64 " %s", what,
			    guid, r->sl2vl[sw] ? "listed twice" : "truncated");
		return 0;
	}
	for (size_t i = 0; i < size; i++)
		if (p[9 + i] > 15) {
			fab_err_set(err, "%s: SL2VL blob is corrupt: VL %u", what, p[9 + i]);
			return 0;
		}
	r->sl2vl[sw] = malloc(size);
	if (!r->sl2vl[sw]) {
		fab_err_set(err, "%s: out of memory", what);
		return 0;
	}
	memcpy(r->sl2vl[sw], p + 9, size);
	return 9 + size;
}

int store_dec_sl2vl(const void *blob, size_t len, const struct fabric *f,
		    struct rt_routing *r, const char *what, struct fab_err *err)
{
	struct store_blob h;
	uint64_t most = 0;
	uint8_t *raw;
	size_t at = 0, n;

	if (unpack(blob, len, STORE_MAGIC_SL2VL, what, "SL2VL", &h, err))
		return -1;
	for (uint32_t s = 0; s < f->nswitches; s++)
		most += 9 + sl2vl_size(f, s);
	if (h.count > f->nswitches || h.raw_len > most) {
		fab_err_set(err, "%s: SL2VL blob is corrupt: %u tables, %" PRIu64 " bytes", what,
			    h.count, h.raw_len);
		return -1;
	}
	if (inflate_as(blob, len, &h, h.raw_len, &raw, what, "SL2VL", err))
		return -1;
	for (uint32_t i = 0; i < h.count; i++, at += n) {
		n = sl2vl_record(f, raw + at, (size_t)h.raw_len - at, r, what, err);
		if (!n) {
			free(raw);
			return -1;
		}
	}
	free(raw);
	if (at != h.raw_len) {
		fab_err_set(err, "%s: SL2VL blob is corrupt: %zu bytes left over", what,
			    (size_t)h.raw_len - at);
		return -1;
	}
	return 0;
}
