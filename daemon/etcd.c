/* SPDX-License-Identifier: MIT */
/**
 * DOC: an etcd v3 client
 *
 * JSON over HTTP: each call posts a request to /v3/<service>/<method> of the
 * first endpoint that answers and reads one JSON object back; a watch reads
 * a stream of them, one per line. etcd's gateway writes 64-bit numbers as
 * strings and keys and values in base64 (encoded and decoded here).
 */
#include <curl/curl.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/etcd.h"

struct etcd {
	char *ep[ETCD_ENDPOINTS_MAX];
	unsigned nep;
	unsigned timeout_ms;
};

/* --- base64 ------------------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const void *data, size_t len)
{
	const unsigned char *p = data;
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;

	for (size_t i = 0; out && i < len; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < len ? (unsigned)p[i + 1] << 8 : 0) |
			     (i + 2 < len ? p[i + 2] : 0);

		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < len ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < len ? b64[v & 63] : '=';
	}
	if (out)
		*o = '\0';
	return out;
}

static int b64_value(char ch)
{
	const char *p = ch ? strchr(b64, ch) : NULL;

	return p ? (int)(p - b64) : -1;
}

/* Decode @s into a NUL-terminated buffer (*@len bytes before the NUL); NULL if malformed. */
static char *b64_decode(const char *s, size_t *len)
{
	size_t n = strlen(s), k = 0;
	char *out = malloc(n / 4 * 3 + 1);
	unsigned acc = 0, bits = 0;

	if (!out || n % 4)
		goto bad;
	for (size_t i = 0; i < n; i++) {
		int v = s[i] == '=' ? 0 : b64_value(s[i]);

		if (v < 0 || (s[i] == '=' && (i + 2 < n || (i + 2 == n && s[i + 1] != '='))))
			goto bad;
		acc = acc << 6 | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (char)(acc >> bits & 0xff);
		}
	}
	while (n && s[--n] == '=')
		k--;
	out[k] = '\0';
	*len = k;
	return out;
bad:
	free(out);
	return NULL;
}

/* The base64 of the first key after every key starting with @prefix. */
static char *prefix_end(const char *prefix)
{
	size_t n = strlen(prefix);
	unsigned char *e = malloc(n + 1);
	char *out = NULL;

	if (!e)
		return NULL;
	memcpy(e, prefix, n);
	while (n && e[n - 1] == 0xff)
		n--;
	if (n) {
		e[n - 1]++;
		out = b64_encode(e, n);
	} else {
		out = b64_encode("", 1);	/* "\0": every key */
	}
	free(e);
	return out;
}

/* --- the client --------------------------------------------------------------------- */

struct etcd *etcd_new(const char *endpoints, unsigned timeout_ms, struct fab_err *err)
{
	struct etcd *c = calloc(1, sizeof(*c));
	char *copy = strdup(endpoints ? endpoints : ""), *save = NULL;

	if (!c || !copy) {
		fab_err_set(err, "out of memory");
		goto fail;
	}
	c->timeout_ms = timeout_ms;
	for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		if (strncmp(t, "http://", 7) && strncmp(t, "https://", 8)) {
			fab_err_set(err, "etcd endpoint '%s': expected http://HOST:PORT", t);
			goto fail;
		}
		if (c->nep == ETCD_ENDPOINTS_MAX) {
			fab_err_set(err, "more than %d etcd endpoints", ETCD_ENDPOINTS_MAX);
			goto fail;
		}
		if (!(c->ep[c->nep++] = strdup(t))) {
			fab_err_set(err, "out of memory");
			goto fail;
		}
	}
	if (!c->nep) {
		fab_err_set(err, "no etcd endpoint given");
		goto fail;
	}
	free(copy);
	return c;
fail:
	free(copy);
	etcd_free(c);
	return NULL;
}

void etcd_free(struct etcd *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->nep; i++)
		free(c->ep[i]);
	free(c);
}

struct buf {
	char *p;
	size_t n, cap;
	/* a watch: each line is handed over as it completes */
	int (*line)(void *ud, char *text);
	void *ud;
	int stopped;
	const volatile int *stop;
};

static size_t on_data(char *data, size_t size, size_t nmemb, void *ud)
{
	struct buf *b = ud;
	size_t n = size * nmemb;

	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *p;

		if (cap > 2 * ETCD_VALUE_MAX || !(p = realloc(b->p, cap)))
			return 0;	/* too large: the transfer fails */
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
	b->p[b->n] = '\0';
	for (char *nl; b->line && (nl = memchr(b->p, '\n', b->n));) {
		size_t k = (size_t)(nl - b->p) + 1;

		*nl = '\0';
		if (b->line(b->ud, b->p)) {
			b->stopped = 1;
			return 0;
		}
		memmove(b->p, b->p + k, b->n - k + 1);
		b->n -= k;
	}
	return n;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct buf *b = ud;

	(void)dt, (void)dn, (void)ut, (void)un;
	if (b->stop && *b->stop) {
		b->stopped = 1;
		return 1;
	}
	return 0;
}

/* POST @body to @path of endpoint @i into @b; the HTTP status, or -1 (no connection). */
static long post_one(struct etcd *c, unsigned i, const char *path, const char *body, struct buf *b,
		     int stream, struct fab_err *err)
{
	CURL *h = curl_easy_init();
	struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
	char url[512];
	long status = -1;
	CURLcode rc;

	if (!h || !hdr) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	snprintf(url, sizeof(url), "%s%s", c->ep[i], path);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)c->timeout_ms);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	if (stream) {
		/* etcd ends the stream when its member loses the leader (a minority): seen at once */
		struct curl_slist *more = curl_slist_append(hdr, "Grpc-Metadata-hasleader: true");

		curl_easy_setopt(h, CURLOPT_HTTPHEADER, more ? more : hdr);
		curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(h, CURLOPT_XFERINFODATA, b);
	} else {
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)c->timeout_ms);
	}
	rc = curl_easy_perform(h);
	if (rc == CURLE_OK || (b->stopped && (rc == CURLE_WRITE_ERROR ||
					      rc == CURLE_ABORTED_BY_CALLBACK)))
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	else
		fab_err_set(err, "etcd %s: %s", c->ep[i], curl_easy_strerror(rc));
out:
	curl_slist_free_all(hdr);
	curl_easy_cleanup(h);
	return status;
}

/* The message of an etcd error answer, or its start. */
static void answer_err(const struct buf *b, const char *path, long status, struct fab_err *err)
{
	json_t *j = b->p ? json_loads(b->p, 0, NULL) : NULL;
	const char *m = json_string_value(json_object_get(j, "message"));

	if (!m)
		m = json_string_value(json_object_get(j, "error"));
	fab_err_set(err, "etcd %s: HTTP %ld: %.200s", path, status, m ? m : (b->p ? b->p : ""));
	json_decref(j);
}

/* POST @req to @path of the first endpoint that answers; the answer, or NULL with @err. */
static json_t *call(struct etcd *c, const char *path, json_t *req, struct fab_err *err)
{
	char *body = json_dumps(req, JSON_COMPACT);
	json_t *ans = NULL;

	json_decref(req);
	if (!body) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	for (unsigned i = 0; i < c->nep && !ans; i++) {
		struct buf b = { 0 };
		long status = post_one(c, i, path, body, &b, 0, err);

		if (status == 200 && !(ans = json_loads(b.p ? b.p : "", 0, NULL)))
			fab_err_set(err, "etcd %s: not JSON", path);
		else if (status > 0 && status != 200)
			answer_err(&b, path, status, err);
		free(b.p);
		if (status > 0)
			break;	/* it answered: another member would answer the same */
	}
	free(body);
	return ans;
}

static int64_t num(const json_t *v)
{
	return json_is_string(v) ? strtoll(json_string_value(v), NULL, 10) :
	       (int64_t)json_integer_value(v);
}

int etcd_put(struct etcd *c, const char *key, const void *val, size_t len, int64_t lease,
	     int64_t *rev, struct fab_err *err)
{
	char *k = b64_encode(key, strlen(key)), *v = len <= ETCD_VALUE_MAX ? b64_encode(val, len) : NULL;
	json_t *ans = NULL;

	if (len > ETCD_VALUE_MAX)
		fab_err_set(err, "etcd put %s: %zu bytes, more than %u", key, len, ETCD_VALUE_MAX);
	else if (!k || !v)
		fab_err_set(err, "out of memory");
	else
		ans = call(c, "/v3/kv/put", json_pack("{s:s, s:s, s:I}", "key", k, "value", v, "lease",
						       (json_int_t)lease), err);
	free(k);
	free(v);
	if (ans && rev)
		*rev = num(json_object_get(json_object_get(ans, "header"), "revision"));
	json_decref(ans);
	return ans ? 0 : -1;
}

/* A key request: {"key"} for @key, with "range_end" for every key under it. */
static json_t *key_req(const char *key, int prefix, struct fab_err *err)
{
	char *k = b64_encode(key, strlen(key)), *e = prefix ? prefix_end(key) : NULL;
	json_t *req = k && (e || !prefix) ? json_pack("{s:s}", "key", k) : NULL;

	if (req && e)
		json_object_set_new(req, "range_end", json_string(e));
	if (!req)
		fab_err_set(err, "out of memory");
	free(k);
	free(e);
	return req;
}

/* One kv of an answer into @out; 0, or -1 (malformed). */
static int kv_from(const json_t *j, struct etcd_kv *out)
{
	const char *k = json_string_value(json_object_get(j, "key"));
	const char *v = json_string_value(json_object_get(j, "value"));
	size_t kl = 0;

	memset(out, 0, sizeof(*out));
	if (!k || !(out->key = b64_decode(k, &kl)) || !(out->val = b64_decode(v ? v : "", &out->len))) {
		free(out->key);
		out->key = NULL;
		return -1;
	}
	out->mod_revision = num(json_object_get(j, "mod_revision"));
	return 0;
}

void etcd_kvs_free(struct etcd_kv *kvs, size_t n)
{
	for (size_t i = 0; kvs && i < n; i++) {
		free(kvs[i].key);
		free(kvs[i].val);
	}
	free(kvs);
}

int etcd_get(struct etcd *c, const char *key, int prefix, struct etcd_kv **kvs, size_t *n,
	     int64_t *rev, struct fab_err *err)
{
	json_t *req = key_req(key, prefix, err), *ans = req ? call(c, "/v3/kv/range", req, err) : NULL;
	const json_t *arr = json_object_get(ans, "kvs");
	size_t cnt = json_array_size(arr);

	*kvs = NULL;
	*n = 0;
	if (!ans)
		return -1;
	if (rev)
		*rev = num(json_object_get(json_object_get(ans, "header"), "revision"));
	*kvs = calloc(cnt + 1, sizeof(**kvs));
	for (size_t i = 0; *kvs && i < cnt; i++, (*n)++)
		if (kv_from(json_array_get(arr, i), &(*kvs)[i])) {
			fab_err_set(err, "etcd range %s: a malformed key or value", key);
			break;
		}
	json_decref(ans);
	if (!*kvs || *n < cnt) {
		if (!*kvs)
			fab_err_set(err, "out of memory");
		etcd_kvs_free(*kvs, *n);
		*kvs = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

int etcd_delete(struct etcd *c, const char *key, int prefix, struct fab_err *err)
{
	json_t *req = key_req(key, prefix, err), *ans = req ? call(c, "/v3/kv/deleterange", req, err) : NULL;

	json_decref(ans);
	return ans ? 0 : -1;
}

int64_t etcd_lease_grant(struct etcd *c, unsigned ttl_s, struct fab_err *err)
{
	json_t *ans = call(c, "/v3/lease/grant", json_pack("{s:i}", "TTL", (int)ttl_s), err);
	int64_t id = ans ? num(json_object_get(ans, "ID")) : -1;

	if (ans && id <= 0)
		fab_err_set(err, "etcd lease grant: no lease given");
	json_decref(ans);
	return id > 0 ? id : -1;
}

int etcd_lease_keepalive(struct etcd *c, int64_t id, struct fab_err *err)
{
	json_t *ans = call(c, "/v3/lease/keepalive", json_pack("{s:I}", "ID", (json_int_t)id), err);
	int64_t ttl = num(json_object_get(json_object_get(ans, "result"), "TTL"));

	if (ans && ttl <= 0)
		fab_err_set(err, "etcd lease %" PRId64 " expired", id);
	json_decref(ans);
	return ans && ttl > 0 ? 0 : -1;
}

/* --- watch ---------------------------------------------------------------------------- */

struct watch {
	int (*cb)(void *ud, const struct etcd_kv *kv);
	void *ud;
	int created, bad;
	int64_t seen;	/* the revision of the last event delivered */
};

/* One line of the watch stream: {"result": {"created": true} | {"events": [...]}}. */
static int watch_line(void *ud, char *text)
{
	struct watch *w = ud;
	json_t *j = json_loads(text, 0, NULL), *res = json_object_get(j, "result");
	const json_t *evs = json_object_get(res, "events");
	int stop = 0;

	if (!res) {
		w->bad = 1;
		json_decref(j);
		return 1;
	}
	w->created |= json_is_true(json_object_get(res, "created"));
	for (size_t i = 0; !stop && i < json_array_size(evs); i++) {
		const json_t *ev = json_array_get(evs, i);
		const char *type = json_string_value(json_object_get(ev, "type"));
		struct etcd_kv kv;

		if (kv_from(json_object_get(ev, "kv"), &kv)) {
			w->bad = 1;
			stop = 1;
			break;
		}
		kv.deleted = type && !strcmp(type, "DELETE");
		if (kv.mod_revision > w->seen)
			w->seen = kv.mod_revision;
		stop = w->cb(w->ud, &kv);
		free(kv.key);
		free(kv.val);
	}
	json_decref(j);
	return stop;
}

/* The watch request from revision @from; NULL with @err. */
static char *watch_body(const char *prefix, int64_t from, struct fab_err *err)
{
	json_t *req = key_req(prefix, 1, err), *msg;
	char *body;

	if (!req)
		return NULL;
	json_object_set_new(req, "start_revision", json_integer(from));
	msg = json_pack("{s:o}", "create_request", req);
	body = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
	json_decref(msg);
	if (!body)
		fab_err_set(err, "out of memory");
	return body;
}

int etcd_watch(struct etcd *c, const char *prefix, int64_t from,
	       int (*cb)(void *ud, const struct etcd_kv *kv), void *ud, const volatile int *stop,
	       struct fab_err *err)
{
	struct watch w = { .cb = cb, .ud = ud, .seen = from - 1 };
	long status = -1;

	/* a member that goes away: the next one, from the revision after the last event delivered */
	for (unsigned i = 0; i < c->nep && status < 0 && !*stop; i++) {
		struct buf b = { .line = watch_line, .ud = &w, .stop = stop };
		char *body = watch_body(prefix, w.seen + 1, err);

		if (!body)
			return -1;
		status = post_one(c, i, "/v3/watch", body, &b, 1, err);
		free(b.p);
		free(body);
		if (b.stopped && !w.bad)
			return 0;
	}
	if (w.bad)
		fab_err_set(err, "etcd watch %s: a malformed answer", prefix);
	else if (status >= 0 || *stop)
		fab_err_set(err, "etcd watch %s: the stream ended", prefix);
	return *stop ? 0 : -1;
}
