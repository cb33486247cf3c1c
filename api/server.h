/* SPDX-License-Identifier: MIT */
/**
 * DOC: HTTP server
 *
 * The REST API over libmicrohttpd: a pool of threads, each running its own
 * event loop, dispatching through one table of routes (api/handlers.c).
 * The server knows the daemon only through struct api_hooks, so the same
 * server runs in the daemon and in tests.
 *
 * Limits (doc/api.md, "Limits"): a client is an address, every loopback
 * address one client. Request bodies above max_body get 413 before they
 * are read, chunked ones 411; a client above rate_limit requests per
 * second (write_rate_limit for POSTs) gets 429; unknown query parameters
 * get 400; POSTs need "Authorization: Bearer TOKEN" (401 without it, 403
 * when no token is configured), checked before the write rate is charged;
 * with a read token, so do reads but health and readiness. A client holds
 * at most max_per_address connections (one more closes its oldest idle
 * one), a request must arrive whole within request_timeout_s and its
 * answer be taken within send_timeout_s. Answers are computed by @threads
 * threads, a client never holding more than half of them, with at most
 * @client_queue of its requests admitted; the administrator's requests go
 * first. Health and readiness are answered in the connections' threads.
 */
#ifndef FABROUTE_API_SERVER_H
#define FABROUTE_API_SERVER_H

#include <jansson.h>
#include <stdio.h>

#include "api/query.h"
#include "store/store.h"

/**
 * struct api_hooks - what the server asks the daemon
 * @epoch: a reference to the current epoch, or NULL
 * @reroute: request a reroute; 0 or -1 with @err
 * @engine: select an engine chain (checked, stored, then rerouted)
 * @fault: apply a simulated fault described by @body; the result object
 * @faults: the faults in force
 * @config: the effective configuration
 * @status: daemon facts for /api/health ("uptime_s", "reroute_in_progress", ...)
 * @metrics: the daemon's part of /metrics (malloc'd Prometheus text)
 * @readback: the last LFT read-back (readback.h's rb_json())
 * @ha: the node's role and replication (daemon/ha.h's ha_json()); it may be
 *      NULL, or return NULL without replication
 * @whatif: answer a what-if (POST /api/whatif's body, checked JSON object):
 *          the answer, or NULL with @err (400/404 a bad body, 429 one is
 *          running, 503 not routed, 504 over its time); the hook may be NULL
 */
struct api_hooks {
	void *ud;
	struct epoch *(*epoch)(void *ud);
	int (*reroute)(void *ud, struct api_err *err);
	int (*engine)(void *ud, const char *chain, const char *options, struct api_err *err);
	json_t *(*fault)(void *ud, const json_t *body, struct api_err *err);
	json_t *(*faults)(void *ud);
	json_t *(*config)(void *ud);
	json_t *(*status)(void *ud);
	char *(*metrics)(void *ud);
	json_t *(*readback)(void *ud);
	json_t *(*ha)(void *ud);
	json_t *(*whatif)(void *ud, const json_t *body, struct api_err *err);
};

/**
 * struct api_opts - where and how to serve
 * @host: numeric IPv4 or IPv6 address; @port: 0 picks a free port
 * @dashboard: serve the dashboard at / (else only the API)
 * @threads: threads computing answers; @io_threads: reading and writing connections
 * @tls_cert, @tls_key: PEM files; serve HTTPS when @tls_cert is set
 */
struct api_opts {
	const char *host;
	unsigned port;
	int dashboard;
	unsigned threads, io_threads, client_queue;
	unsigned max_connections, max_per_address, max_body;
	unsigned rate_limit, write_rate_limit;
	unsigned request_timeout_s, send_timeout_s;
	const char *tls_cert, *tls_key;
};

struct api_server;

/** api_start() - bind and serve; NULL with @err (address in use, bad address). */
struct api_server *api_start(const struct api_opts *o, const struct api_hooks *h, struct store *st,
			     struct fab_err *err);
/** api_stop() - stop accepting, finish the requests in flight, free. */
void api_stop(struct api_server *s);
/** api_port() - the port bound (useful with port 0). */
unsigned api_port(const struct api_server *s);
/** api_metric() - one Prometheus metric of @type ("gauge", "counter") without labels. */
void api_metric(FILE *o, const char *type, const char *name, const char *help, double v);
/**
 * api_histogram() - a Prometheus histogram @name: @n buckets with upper
 * bounds @bounds_ms (printed in seconds) and a last +Inf one, counts @hist
 * (@n + 1, not cumulative), the sum of the samples @sum_ms.
 */
void api_histogram(FILE *o, const char *name, const char *help, const double *bounds_ms,
		   unsigned n, const uint64_t *hist, double sum_ms);
/**
 * api_osm_metrics() - fabroute_osm_passes_total{result}, and with @connected
 * >= 0 (source opensm) fabroute_osm_connected. The counters are written
 * whatever the source, so that a rule using them has a series from the start.
 */
void api_osm_metrics(FILE *o, int connected, uint64_t routed, uint64_t fallback, uint64_t timeout,
		     uint64_t error);
/**
 * api_link_mode_parse() - metrics_link_routes: "all", "off" or "top:N"
 * (1 <= N <= 1000000) into *@top (UINT32_MAX, 0 or N); -1 when malformed.
 */
int api_link_mode_parse(const char *s, unsigned *top);
/**
 * api_link_metrics() - fabroute_link_routes for @e: the @top busiest
 * switch-to-switch link directions (UINT32_MAX: all; 0: none). Waits at most
 * API_LINK_WAIT_MS for the warmer's computation, else writes nothing.
 */
void api_link_metrics(FILE *o, struct epoch *e, unsigned top);

/** api_metric_value() - a sample value: whole numbers as integers, others rounded to 6 decimals. */
void api_metric_value(FILE *o, double v);
/** api_label_value() - @s escaped for a label value (backslash, double quote, newline). */
void api_label_value(FILE *o, const char *s);

/** api_set_token() - the bearer token for POSTs; NULL refuses every POST (thread-safe). */
int api_set_token(struct api_server *s, const char *token);
/**
 * api_set_read_token() - the bearer token reads need (the POST token is
 * good for reads too); NULL: reads are open. Thread-safe.
 */
int api_set_read_token(struct api_server *s, const char *token);

#endif
