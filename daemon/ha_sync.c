/* SPDX-License-Identifier: MIT */
/**
 * DOC: what the master replicates, and how a standby applies it
 *
 * Keys under the prefix:
 *  - master: {"node", "url", "time_ms"}, with a lease: who is master;
 *  - settings: the routing settings {"chain", "options", "lmc", "policy",
 *    "repair", "rebalance_delay_s", "rebalance_max_blocks", ...};
 *  - base: the fabric the master's chain last routed, {"seq", "digest",
 *    "engine", "time_ms"} on one line, then the fabric (ibnetdiscover text
 *    with its LIDs, zlib-compressed);
 *  - epoch: {"seq", "digest", "kind", "base_seq", "dead": [["0xGUID", PORT],
 *    ...] (the base's switch links the epoch's fabric lacks), "time_ms"}.
 * The master writes settings before the base, the base before an epoch
 * that needs it. A standby applies them in that order as they come.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <lzma.h>
#include <zlib.h>

#include "daemon/ha_impl.h"
#include "daemon/loop.h"
#include "formats/formats.h"
#include "svc/log.h"

static const char *str_or(const json_t *v)
{
	const char *s = json_string_value(v);

	return s ? s : "";
}

static int put_json(struct ha *h, const char *name, json_t *j, int64_t lease, struct fab_err *err)
{
	char key[256], *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	int rc;

	json_decref(j);
	if (!text) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	snprintf(key, sizeof(key), "%s%s", h->prefix, name);
	rc = etcd_put(h->etcd, key, text, strlen(text), lease, NULL, err);
	free(text);
	return rc;
}

/* --- the master's side -------------------------------------------------------------- */

int ha_put_master(struct ha *h, struct fab_err *err)
{
	if (h->lease <= 0 && (h->lease = etcd_lease_grant(h->etcd, HA_LEASE_S, err)) < 0)
		return -1;
	return put_json(h, "master", json_pack("{s:s, s:s, s:I}", "node", h->node, "url", h->api_url,
					       "time_ms", (json_int_t)loop_wall_ms()),
			h->lease, err);
}

static json_t *settings_json(const struct pipe_settings *s)
{
	return json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:I}", "chain", s->chain,
			 "options", s->options, "lmc", (int)s->lmc, "policy", s->policy, "repair",
			 s->repair, "holddown_ms", (int)s->holddown_ms, "rebalance_delay_s",
			 (int)s->rebalance_delay_s, "rebalance_max_blocks", (int)s->rebalance_max_blocks,
			 "keep", (int)s->keep, "max_age_days", (int)s->max_age_days, "time_ms",
			 (json_int_t)loop_wall_ms());
}

int ha_put_settings(struct ha *h, const struct pipe_settings *s, struct fab_err *err)
{
	return put_json(h, "settings", settings_json(s), 0, err);
}

/* @f as ibnetdiscover text (*@tlen bytes); NULL with @err. */
static char *base_text(const struct fabric *f, size_t *tlen, struct fab_err *err)
{
	char *text = NULL;
	FILE *m = open_memstream(&text, tlen);

	if (!m || fmt_topo_write(m, f, FMT_IBND) || fclose(m)) {
		fab_err_set(err, "writing the base fabric failed");
		free(text);
		return NULL;
	}
	return text;
}

/*
 * @text (@tlen bytes) xz-compressed (preset 1: a 5488-CA fabric's 2.7 MB of
 * text in about 50 ms, to 110 KB where zlib gives 270) into *@z (*@zlen
 * bytes); 0, or -1 with @err.
 */
static int zip_base(const char *text, size_t tlen, char **z, size_t *zlen, struct fab_err *err)
{
	size_t n = lzma_stream_buffer_bound(tlen);

	*zlen = 0;
	*z = malloc(n);
	if (!*z || lzma_easy_buffer_encode(1, LZMA_CHECK_CRC32, NULL, (const uint8_t *)text, tlen,
					   (uint8_t *)*z, zlen, n) != LZMA_OK) {
		fab_err_set(err, "compressing the base fabric failed");
		free(*z);
		*z = NULL;
		return -1;
	}
	return 0;
}

/*
 * Each node's VL capacity, which the file format does not carry, in node
 * order (the canonical GUID order): runs "CAPxCOUNT" joined by commas. A
 * malloc'd string; NULL when out of memory.
 */
static char *vl_caps_text(const struct fabric *f)
{
	char *out = malloc((size_t)f->nnodes * 12 + 1), *w = out;

	if (!out)
		return NULL;
	*w = '\0';
	for (uint32_t n = 0, run; n < f->nnodes; n += run) {
		for (run = 1; n + run < f->nnodes && f->nodes[n + run].vl_cap == f->nodes[n].vl_cap; run++)
			;
		w += sprintf(w, "%s%ux%u", w == out ? "" : ",", f->nodes[n].vl_cap, run);
	}
	return out;
}

/* vl_caps_text()'s @text onto @f's nodes; 0, or -1 when it does not fit @f. */
static int vl_caps_apply(struct fabric *f, const char *text)
{
	uint32_t n = 0;

	for (const char *p = text; *p; p += *p == ',') {
		char *end;
		unsigned long cap = strtoul(p, &end, 10), run;

		if (end == p || *end != 'x' || cap > 15)
			return -1;
		run = strtoul(end + 1, &end, 10);
		if (!run || run > f->nnodes - n || (*end && *end != ','))
			return -1;
		while (run--)
			f->nodes[n++].vl_cap = (uint8_t)cap;
		p = end;
	}
	return n == f->nnodes ? 0 : -1;
}

/* The identity of the fabric text @text (@tlen bytes): its CRC-32, Adler-32 and length. */
static void text_id(const char *text, size_t tlen, char id[48])
{
	uLong c = crc32(0L, (const Bytef *)text, (uInt)tlen), a = adler32(1L, (const Bytef *)text, (uInt)tlen);

	snprintf(id, 48, "%08lx%08lx-%zu", c & 0xffffffffUL, a & 0xffffffffUL, tlen);
}

/*
 * The fabric key: "@id\n" and the text compressed; 0, or -1 with @err.
 * *@t0 is when the write starts, once the text is compressed: the lag is
 * the replication's, not the compression's.
 */
static int put_fabric(struct ha *h, const char *id, const char *text, size_t tlen, int64_t *t0,
		      struct fab_err *err)
{
	size_t ilen = strlen(id), zlen = 0;
	char key[256], *z = NULL, *val = NULL;
	int rc = -1;

	if (zip_base(text, tlen, &z, &zlen, err))
		return -1;
	*t0 = loop_wall_ms();
	if ((val = malloc(ilen + 1 + zlen))) {
		memcpy(val, id, ilen);
		val[ilen] = '\n';
		memcpy(val + ilen + 1, z, zlen);
		snprintf(key, sizeof(key), "%sfabric", h->prefix);
		rc = etcd_put(h->etcd, key, val, ilen + 1 + zlen, 0, NULL, err);
	} else {
		fab_err_set(err, "out of memory");
	}
	if (!rc) {
		pthread_mutex_lock(&h->mu);
		snprintf(h->fabric_id, sizeof(h->fabric_id), "%s", id);
		pthread_mutex_unlock(&h->mu);
	}
	free(z);
	free(val);
	return rc;
}

/*
 * The base: a small key naming its fabric, which the fabric key holds. The
 * fabric is written only when its text is not the one the fabric key holds
 * already (a takeover, a routing kept for the same fabric: the standbys have
 * it), and before the base, so that a standby that reads the
 * base has its fabric. The base's time_ms is taken before that write (once
 * the text is compressed): the lag of a new fabric is its whole replication.
 */
static int put_base(struct ha *h, const struct epoch *e, struct fab_err *err)
{
	const struct fabric *f = e->fabric;
	size_t tlen = 0;
	char sm[24] = "", id[48], *caps = vl_caps_text(f), *text = caps ? base_text(f, &tlen, err) : NULL;
	int64_t t0 = loop_wall_ms();
	int rc = -1, have;

	if (f->sm_node != FAB_NONE)	/* a routing input the file format does not carry (sftree) */
		snprintf(sm, sizeof(sm), "0x%016" PRIx64, f->nodes[f->sm_node].guid);
	if (text) {
		text_id(text, tlen, id);
		pthread_mutex_lock(&h->mu);
		have = !strcmp(h->fabric_id, id);
		pthread_mutex_unlock(&h->mu);
		if (have || !put_fabric(h, id, text, tlen, &t0, err))
			rc = put_json(h, "base", json_pack("{s:I, s:s, s:s, s:s, s:I, s:s, s:i, s:s, s:I}",
							   "seq", (json_int_t)e->seq, "digest", epoch_digest(e),
							   "engine", e->engine, "fabric", id, "size",
							   (json_int_t)tlen, "sm_guid", sm, "sm_port",
							   (int)f->sm_port, "vl_caps", caps, "time_ms",
							   (json_int_t)t0), 0, err);
	} else if (!err->msg[0]) {
		fab_err_set(err, "out of memory");
	}
	free(text);
	free(caps);
	return rc;
}

/* The switch links of @base's fabric that @f lacks: [["0xGUID", port], ...]. */
static json_t *dead_links(const struct fabric *bf, const struct fabric *f)
{
	json_t *a = json_array();
	char g[24];

	for (uint32_t s = 0; a && s < bf->nswitches; s++) {
		uint32_t n = bf->switches[s], m = fab_node_by_guid(f, bf->nodes[n].guid);

		for (unsigned p = 1; p <= bf->nodes[n].nports; p++) {
			const struct fab_port *bp = fab_port(bf, n, p);

			if (bp->peer == FAB_NONE || bf->nodes[bp->peer].type != FAB_SWITCH)
				continue;
			if (m != FAB_NONE && p <= f->nodes[m].nports && fab_port(f, m, p)->peer != FAB_NONE &&
			    f->nodes[fab_port(f, m, p)->peer].guid == bf->nodes[bp->peer].guid)
				continue;
			snprintf(g, sizeof(g), "0x%016" PRIx64, bf->nodes[n].guid);
			json_array_append_new(a, json_pack("[s, i]", g, (int)p));
		}
	}
	return a;
}

int ha_put_epoch(struct ha *h, struct epoch *e, struct fab_err *err)
{
	int repair = !strcmp(e->kind, "repair");
	struct epoch *base = repair ? e->base : e;

	if (base && h->base_put != base->seq) {	/* a new base, or the first since this node is master */
		if (put_base(h, base, err))
			return -1;
		h->base_put = base->seq;
	}
	return put_json(h, "epoch", json_pack("{s:I, s:s, s:s, s:I, s:o, s:I}", "seq",
					      (json_int_t)e->seq, "digest", epoch_digest(e), "kind",
					      e->kind, "base_seq",
					      (json_int_t)(repair ? e->base_seq : e->seq), "dead",
					      repair && base ? dead_links(base->fabric, e->fabric) :
					      json_array(), "time_ms", (json_int_t)loop_wall_ms()),
			0, err);
}

/* --- the standby's side ------------------------------------------------------------- */

/* The lag of @j: from the master's write (its time_ms) to its receipt at @recv_ms. */
static void lag(struct ha *h, const json_t *j, int64_t recv_ms)
{
	int64_t t = (int64_t)json_integer_value(json_object_get(j, "time_ms"));

	if (t <= 0 || recv_ms <= 0)
		return;
	pthread_mutex_lock(&h->mu);
	h->lags[h->nlags++ % HA_LAGS] = (double)(recv_ms - t);
	pthread_mutex_unlock(&h->mu);
}

/* Compare the master's settings with this node's own: the keys that differ, named. */
static void compare_settings(struct ha *h, const struct pipe_settings *m)
{
	const struct pipe_settings *o = &h->o.settings;
	char d[256] = "";

	if (strcmp(m->chain, o->chain) || strcmp(m->options, o->options))
		snprintf(d, sizeof(d), "engine '%s' '%s' (here '%s' '%s')", m->chain, m->options,
			 o->chain, o->options);
	else if (m->policy != o->policy || m->repair != o->repair || m->lmc != o->lmc)
		snprintf(d, sizeof(d), "publish_policy, repair or lmc");
	pthread_mutex_lock(&h->mu);
	if (strcmp(d, h->differs) && d[0])
		ha_event(h, "the master's routing settings differ from this node's configuration: "
			 "%s; this node follows the master's", d);
	snprintf(h->differs, sizeof(h->differs), "%s", d);
	pthread_mutex_unlock(&h->mu);
}

/* The master's settings @j applied here: 1 when they changed this node's. */
static int apply_settings(struct ha *h, const json_t *j)
{
	struct pipe_settings s = h->o.settings;
	struct fab_err err = { { 0 } };
	int changed = 0;

	s.chain = json_string_value(json_object_get(j, "chain"));
	s.options = json_string_value(json_object_get(j, "options"));
	if (!s.chain || !s.options)
		return 0;
	s.lmc = (unsigned)json_integer_value(json_object_get(j, "lmc"));
	s.policy = (int)json_integer_value(json_object_get(j, "policy"));
	s.repair = (int)json_integer_value(json_object_get(j, "repair"));
	s.rebalance_delay_s = (unsigned)json_integer_value(json_object_get(j, "rebalance_delay_s"));
	s.rebalance_max_blocks = (unsigned)json_integer_value(json_object_get(j, "rebalance_max_blocks"));
	compare_settings(h, &s);
	if (pipe_settings_set(h->p, &s, &changed, &err))
		ha_event(h, "the master's routing settings are refused here: %s", err.msg);
	return changed;
}

int ha_adopt_settings(struct ha *h, struct fab_err *err)
{
	char key[256];
	struct etcd_kv *kv = NULL;
	size_t n = 0;
	json_t *j;
	int changed;

	snprintf(key, sizeof(key), "%ssettings", h->prefix);
	if (etcd_get(h->etcd, key, 0, &kv, &n, NULL, err))
		return -1;
	j = n ? json_loadb(kv[0].val, kv[0].len, 0, NULL) : NULL;
	changed = j ? apply_settings(h, j) : 0;
	json_decref(j);
	etcd_kvs_free(kv, n);
	return changed;
}

/* The master's number @seq published here, with @want as its digest: kept or diverged. */
static void check_copy(struct ha *h, struct epoch *e, uint64_t seq, const char *want,
		       const struct fab_err *err)
{
	int ok = e && !strcmp(epoch_digest(e), want);

	pthread_mutex_lock(&h->mu);
	if (e) {
		h->warm_seq = e->seq;
		snprintf(h->warm_digest, sizeof(h->warm_digest), "%s", epoch_digest(e));
	}
	h->diverged = !ok;
	pthread_mutex_unlock(&h->mu);
	if (!ok)
		ha_event(h, "the warm copy of the master's epoch %llu diverged: %s",
			 (unsigned long long)seq, e ? "another digest" : err->msg);
}

/*
 * The fabric of @size bytes of text, compressed in @zip (@len bytes): xz (the
 * fabric key), or zlib (@zlib: an older master's base); NULL with @err.
 */
static struct fabric *unpack_base(const char *zip, size_t len, size_t size, int zlib,
				  struct fab_err *err)
{
	uLongf tlen = size;
	size_t in = 0, out = 0;
	uint64_t memlimit = 256u << 20;
	char *text = size && size <= FMT_SIZE_MAX ? malloc(size) : NULL;
	struct fabric *f = NULL;
	int ok;

	if (!text) {
		fab_err_set(err, "the replicated base fabric's size %zu is out of range", size);
		return NULL;
	}
	if (zlib)
		ok = uncompress((Bytef *)text, &tlen, (const Bytef *)zip, len) == Z_OK;
	else
		ok = lzma_stream_buffer_decode(&memlimit, 0, NULL, (const uint8_t *)zip, &in, len,
					       (uint8_t *)text, &out, size) == LZMA_OK && out == size;
	if (!ok)
		fab_err_set(err, "the replicated base fabric does not decompress to its %zu bytes", size);
	else
		f = fmt_topo_parse(text, zlib ? tlen : out, "replicated base", FMT_IBND, err);
	free(text);
	return f;
}

/* The copy of the master's epoch @seq with @digest is here already (@base: as the base). */
static int have_copy(struct ha *h, uint64_t seq, const char *digest, int base)
{
	int have;

	pthread_mutex_lock(&h->mu);
	have = base ? h->base_f && h->base_seq == seq && !strcmp(h->base_digest, digest) :
		      h->warm_seq == seq && !strcmp(h->warm_digest, digest) && !h->diverged;
	pthread_mutex_unlock(&h->mu);
	return have;
}

/* The fabric key's value "ID\nZIP": held as the copy of the fabric key. */
static void apply_fabric(struct ha *h, const char *val, size_t len)
{
	const char *nl = memchr(val, '\n', len);
	size_t ilen = nl ? (size_t)(nl - val) : 0, zlen = nl ? len - ilen - 1 : 0;
	char *z = nl && ilen < sizeof(h->held_id) ? malloc(zlen ? zlen : 1) : NULL;

	if (!z) {
		ha_event(h, "the replicated fabric is malformed or too large to hold");
		return;
	}
	memcpy(z, nl + 1, zlen);
	free(h->held_zip);
	h->held_zip = z;
	h->held_zlen = zlen;
	snprintf(h->held_id, sizeof(h->held_id), "%.*s", (int)ilen, val);
	pthread_mutex_lock(&h->mu);
	snprintf(h->fabric_id, sizeof(h->fabric_id), "%s", h->held_id);
	pthread_mutex_unlock(&h->mu);
}

/*
 * The fabric a base names: the copy held, read from etcd again when it is
 * not the one named (a standby that started after it was written and missed
 * it, say); NULL with @err.
 */
static struct fabric *base_fabric(struct ha *h, const char *id, size_t size, struct fab_err *err)
{
	char key[256];
	struct etcd_kv *kvs;
	size_t n;

	if (strcmp(id, h->held_id)) {
		snprintf(key, sizeof(key), "%sfabric", h->prefix);
		if (etcd_get(h->etcd, key, 0, &kvs, &n, NULL, err))
			return NULL;
		if (n == 1)
			apply_fabric(h, kvs[0].val, kvs[0].len);
		etcd_kvs_free(kvs, n);
	}
	if (strcmp(id, h->held_id)) {
		fab_err_set(err, "the fabric %s the base names is not in etcd", id);
		return NULL;
	}
	return unpack_base(h->held_zip, h->held_zlen, size, 0, err);
}

/*
 * The master's base: routed here as this node's base. A base this node holds
 * already (the same number and digest, read again when the watch starts over)
 * is left alone: routing it again would replace the repair in force with the
 * base's tables until the epoch is read again, a window in which this node's
 * OpenSM may take over. The base names its fabric (the fabric key); a base
 * from an older master carries it after its first line.
 */
static void apply_base(struct ha *h, const char *val, size_t len, int64_t recv_ms)
{
	const char *nl = memchr(val, '\n', len);
	struct fab_err err = { { 0 } };
	json_t *meta = json_loadb(val, nl ? (size_t)(nl - val) : len, 0, NULL);
	uint64_t seq = (uint64_t)json_integer_value(json_object_get(meta, "seq"));
	const char *digest = json_string_value(json_object_get(meta, "digest"));
	const char *id = json_string_value(json_object_get(meta, "fabric"));
	size_t size = (size_t)json_integer_value(json_object_get(meta, "size"));
	int again = seq && digest && have_copy(h, seq, digest, 1);
	int64_t t0 = loop_wall_ms();
	struct fabric *f = NULL, *keep = NULL;
	struct epoch *e = NULL;

	lag(h, meta, recv_ms);	/* the copy's own time is copy_ms */
	if (again) {
		json_decref(meta);
		return;
	}
	if (seq && digest && id)
		f = base_fabric(h, id, size, &err);
	else if (seq && digest && nl)
		f = unpack_base(nl + 1, len - (size_t)(nl + 1 - val), size, 1, &err);	/* an older master's */
	if (f && json_object_get(meta, "vl_caps") &&	/* absent from an older master */
	    vl_caps_apply(f, str_or(json_object_get(meta, "vl_caps")))) {
		ha_event(h, "the replicated base's VL capacities do not fit its fabric");
		fab_free(f);
		f = NULL;
	}
	if (f) {	/* where the master's SM was, the VL capacities: its routing depends on them */
		f->sm_node = fab_node_by_guid(f, strtoull(str_or(json_object_get(meta, "sm_guid")),
							   NULL, 16));
		f->sm_port = (uint8_t)json_integer_value(json_object_get(meta, "sm_port"));
		keep = fab_copy(f, &err);
		e = keep ? pipe_mirror(h->p, f, seq, 0, &err) : NULL;
	}
	if (f && !keep)
		fab_free(f);
	if (!seq || !digest)
		ha_event(h, "the replicated base is malformed");
	else
		check_copy(h, e, seq, digest, &err);
	pthread_mutex_lock(&h->mu);
	fab_free(h->base_f);
	h->base_f = e ? keep : NULL;
	h->base_seq = e ? seq : 0;
	snprintf(h->base_digest, sizeof(h->base_digest), "%s", e ? epoch_digest(e) : "");
	if (e)
		h->copy_ms = (double)(loop_wall_ms() - t0);
	pthread_mutex_unlock(&h->mu);
	if (!e)
		fab_free(keep);
	epoch_unref(e);
	json_decref(meta);
}

/* The base fabric without the links @dead names; NULL with @err. */
static struct fabric *without(const struct fabric *bf, const json_t *dead, struct fab_err *err)
{
	struct fabric *f = fab_copy(bf, err);

	for (size_t i = 0; f && i < json_array_size(dead); i++) {
		const json_t *d = json_array_get(dead, i);
		uint64_t g = strtoull(str_or(json_array_get(d, 0)), NULL, 16);
		uint32_t n = fab_node_by_guid(f, g);

		if (n != FAB_NONE)
			fab_link_remove(f, n, (unsigned)json_integer_value(json_array_get(d, 1)));
	}
	if (f && fab_finalize(f, err)) {
		fab_free(f);
		f = NULL;
	}
	return f;
}

static void apply_epoch(struct ha *h, const json_t *j, int64_t recv_ms)
{
	uint64_t seq = (uint64_t)json_integer_value(json_object_get(j, "seq"));
	uint64_t base = (uint64_t)json_integer_value(json_object_get(j, "base_seq"));
	const char *digest = json_string_value(json_object_get(j, "digest"));
	const char *kind = json_string_value(json_object_get(j, "kind"));
	struct fab_err err = { { 0 } };
	struct fabric *f = NULL;
	struct epoch *e;

	lag(h, j, recv_ms);
	if (!seq || !digest || !kind)
		return;
	pthread_mutex_lock(&h->mu);
	h->repl_seq = seq;
	snprintf(h->repl_digest, sizeof(h->repl_digest), "%s", digest);
	if (strcmp(kind, "repair") == 0 && h->base_f && h->base_seq == base)
		f = without(h->base_f, json_object_get(j, "dead"), &err);
	pthread_mutex_unlock(&h->mu);
	if (strcmp(kind, "repair") || have_copy(h, seq, digest, 0)) {
		fab_free(f);
		return;	/* the base itself (copied when the base came), or a copy held already */
	}
	e = f ? pipe_mirror(h->p, f, seq, 1, &err) : NULL;
	if (!f && !err.msg[0])
		fab_err_set(&err, "its base (epoch %llu) is not here", (unsigned long long)base);
	check_copy(h, e, seq, digest, &err);
	epoch_unref(e);
}

static void apply_master(struct ha *h, const json_t *j, int deleted)
{
	pthread_mutex_lock(&h->mu);
	snprintf(h->master_node, sizeof(h->master_node), "%s",
		 deleted ? "" : str_or(json_object_get(j, "node")));
	snprintf(h->master_url, sizeof(h->master_url), "%s",
		 deleted ? "" : str_or(json_object_get(j, "url")));
	pthread_mutex_unlock(&h->mu);
}

void ha_apply(struct ha *h, const struct etcd_kv *kv, int64_t recv_ms)
{
	const char *name = kv->key + strlen(h->prefix);
	json_t *j = NULL;

	if (!strcmp(name, "master")) {
		j = kv->deleted ? NULL : json_loadb(kv->val, kv->len, 0, NULL);
		apply_master(h, j, kv->deleted || !j);
	} else if (kv->deleted || ha_is_master(h)) {
		return;
	} else if (!strcmp(name, "fabric")) {
		apply_fabric(h, kv->val, kv->len);
	} else if (!strcmp(name, "base")) {
		apply_base(h, kv->val, kv->len, recv_ms);
	} else if ((j = json_loadb(kv->val, kv->len, 0, NULL))) {
		if (!strcmp(name, "settings"))
			apply_settings(h, j);
		else if (!strcmp(name, "epoch"))
			apply_epoch(h, j, recv_ms);
	}
	json_decref(j);
}
