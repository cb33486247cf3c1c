/* SPDX-License-Identifier: MIT */
/**
 * DOC: an etcd v3 client (the replication of the SM nodes' state)
 *
 * The few calls fabrouted's replication needs, over etcd's v3 JSON gateway
 * (HTTP/1.1 POST /v3/..., keys and values in base64) with libcurl: put
 * (with a lease), get (a key or a prefix), delete, lease grant and keep-alive,
 * and a watch that streams the changes under a prefix from a revision.
 * Every call has a deadline; the endpoints are tried in turn, so one member
 * that is down costs at most its connect timeout. Thread-safe: each call
 * uses a curl handle of its own.
 */
#ifndef FABROUTE_DAEMON_ETCD_H
#define FABROUTE_DAEMON_ETCD_H

#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"

/** Largest value put or read (etcd's default request limit is 1.5 MiB). */
#define ETCD_VALUE_MAX (1u << 20)
#define ETCD_ENDPOINTS_MAX 8

/**
 * struct etcd_kv - one key and its value
 * @key: NUL-terminated; @val: @len bytes (NUL-terminated too, not counted)
 * @mod_revision: the revision that last changed it
 * @deleted: in a watch: the key was deleted (@val empty)
 */
struct etcd_kv {
	char *key;
	char *val;
	size_t len;
	int64_t mod_revision;
	int deleted;
};

struct etcd;

/**
 * etcd_new() - a client of the members at @endpoints ("http://h:p,..."),
 * each call bounded by @timeout_ms. Return: the client, or NULL with @err
 * (no endpoint, a malformed one, out of memory).
 */
struct etcd *etcd_new(const char *endpoints, unsigned timeout_ms, struct fab_err *err);
void etcd_free(struct etcd *c);

/** etcd_put() - put @len bytes of @val at @key (@lease 0: none); *@rev (may be NULL) gets the revision. 0, or -1 with @err. */
int etcd_put(struct etcd *c, const char *key, const void *val, size_t len, int64_t lease,
	     int64_t *rev, struct fab_err *err);

/**
 * etcd_get() - the key @key, or every key under it when @prefix
 * Return: 0 with *@kvs (free with etcd_kvs_free()), *@n and *@rev (the
 * store's revision: watch from @rev + 1 to miss nothing; @rev may be NULL),
 * or -1 with @err.
 */
int etcd_get(struct etcd *c, const char *key, int prefix, struct etcd_kv **kvs, size_t *n,
	     int64_t *rev, struct fab_err *err);
void etcd_kvs_free(struct etcd_kv *kvs, size_t n);

/** etcd_delete() - delete @key (every key under it when @prefix). 0, or -1 with @err. */
int etcd_delete(struct etcd *c, const char *key, int prefix, struct fab_err *err);

/** etcd_lease_grant() - a lease of @ttl_s seconds: its id (> 0), or -1 with @err. */
int64_t etcd_lease_grant(struct etcd *c, unsigned ttl_s, struct fab_err *err);
/** etcd_lease_keepalive() - renew lease @id once. 0, or -1 with @err (expired or unreachable). */
int etcd_lease_keepalive(struct etcd *c, int64_t id, struct fab_err *err);

/**
 * etcd_watch() - stream the changes under @prefix from revision @from:
 * @cb(@ud, kv) for each, until @cb returns non-zero, *@stop becomes
 * non-zero (checked at least every second) or the stream breaks.
 * Return: 0 when @cb or @stop ended it, -1 with @err when the stream broke
 * (watch again from the last revision seen + 1).
 */
int etcd_watch(struct etcd *c, const char *prefix, int64_t from,
	       int (*cb)(void *ud, const struct etcd_kv *kv), void *ud, const volatile int *stop,
	       struct fab_err *err);

#endif
