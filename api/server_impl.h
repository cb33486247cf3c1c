/* SPDX-License-Identifier: MIT */
/*
 * Private to api/: the request and response the handlers see, and the
 * route table they are dispatched from.
 */
#ifndef FABROUTE_API_SERVER_IMPL_H
#define FABROUTE_API_SERVER_IMPL_H

#include <microhttpd.h>
#include <pthread.h>

#include "api/server.h"

#define API_PARAMS_MAX 3
/* Query parameters a request may carry (414 beyond). */
#define API_QUERY_PARAMS_MAX 64

struct api_server;

/**
 * struct api_req - one request
 * @epoch: for routes with an ETag, the epoch the ETag names (handlers answer from it)
 * @seg: the path's {} segments, in order
 * @body: the request body (POST), NUL-terminated
 */
struct api_req {
	struct api_server *srv;
	struct MHD_Connection *conn;
	const struct api_hooks *hooks;
	struct store *store;
	struct epoch *epoch;
	const char *seg[API_PARAMS_MAX];
	const char *body;
	size_t body_len;
};

/**
 * struct api_resp - what a handler answers: @json, @text or @data, with @status
 * @data: static bytes (an embedded file), @len of them
 * @etag: the ETag to send (quotes included), "" for none
 */
struct api_resp {
	int status;
	json_t *json;
	char *text;
	const void *data;
	size_t len;
	const char *ctype;	/* NULL: application/json, or text/plain for @text */
	char allow[64];
	char etag[48];
};

typedef void (*api_handler)(struct api_req *rq, struct api_resp *rs);

/**
 * struct api_route - one endpoint
 * @pattern: the path, "{}" for a variable segment
 * @params: the query parameters it accepts, comma-separated
 * @write: needs the bearer token, counts against the write rate limit
 * @etag: the answer depends only on the epoch (and the request): it gets an
 *        ETag from the epoch, and If-None-Match gets 304
 * @summary: what it answers, for GET /api
 */
struct api_route {
	const char *method;
	const char *pattern;
	api_handler fn;
	const char *params;
	int write;
	int etag;
	const char *summary;
};

/**
 * struct api_guard - the connections libmicrohttpd holds, for the header
 * deadline (api/guard.c)
 */
struct api_guard {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	int running, quit;
	int64_t timeout_ms;
	unsigned count, high;
	uint64_t header_timeouts, reclaimed;
	struct api_conn *head;
};

/** api_guard_start() - start the thread that enforces @header_timeout_s; 0 or -1. */
int api_guard_start(struct api_guard *g, unsigned header_timeout_s, unsigned max_connections);
/** api_guard_stop() - after MHD_stop_daemon(): stop the thread, free. */
void api_guard_stop(struct api_guard *g);
/** api_guard_notify() - MHD_OPTION_NOTIFY_CONNECTION callback (@cls: the guard). */
void api_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
		      enum MHD_ConnectionNotificationCode toe);
/** api_guard_phase() - @c now waits for a request's headers (1) or has them (0). */
void api_guard_phase(struct api_guard *g, struct MHD_Connection *c, int waiting_headers);
/** api_guard_counts() - connections closed for late headers, and to make room. */
void api_guard_counts(struct api_guard *g, uint64_t *timeouts, uint64_t *reclaimed);
/**
 * api_guard_uri() - check the raw request line's @uri: -1 when it was
 * answered here (414, too many parameters) and closed; *@nul = a %00 in it.
 */
int api_guard_uri(struct MHD_Connection *c, const char *uri, int *nul);

extern const struct api_route api_routes[];
extern const size_t api_nroutes;

/** api_arg() - query parameter @name, or NULL. */
const char *api_arg(struct api_req *rq, const char *name);
/** api_fail() - answer with the error in @err. */
void api_fail(struct api_resp *rs, const struct api_err *err);
/** api_fail_new() - answer with a new error. */
void api_fail_new(struct api_resp *rs, int status, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/**
 * api_epoch_metrics() - the epoch's figures in Prometheus text (malloc'd); @e
 * may be NULL; @ready: what /api/ready answers (api_ready()).
 */
char *api_epoch_metrics(struct epoch *e, int ready);
/** api_epoch_etag() - the ETag of answers computed from @e (quotes included). */
void api_epoch_etag(const struct epoch *e, char *buf, size_t size);
/** api_etag_matches() - the request's If-None-Match names @etag (or is "*"). */
int api_etag_matches(struct MHD_Connection *c, const char *etag);
/** api_h_index() - GET /api: the route table. */
void api_h_index(struct api_req *rq, struct api_resp *rs);
/** api_h_openapi() - GET /api/openapi.json: the embedded OpenAPI document. */
void api_h_openapi(struct api_req *rq, struct api_resp *rs);
/** api_body_object() - a POST's body as a JSON object ({} when empty); NULL after answering 400. */
json_t *api_body_object(struct api_req *rq, struct api_resp *rs);
/** api_h_hosts(), api_h_host() - GET /api/hosts[/{host}] (api/query_hosts.c). */
void api_h_hosts(struct api_req *rq, struct api_resp *rs);
void api_h_host(struct api_req *rq, struct api_resp *rs);
/** api_h_topology() - GET /api/topology[?format=slurm-tree|slurm-block] (api/query_hosts.c). */
void api_h_topology(struct api_req *rq, struct api_resp *rs);
/** api_h_whatif() - POST /api/whatif (api/whatif.c). */
void api_h_whatif(struct api_req *rq, struct api_resp *rs);
/** api_unescape() - MHD_OPTION_UNESCAPE_CALLBACK: %XX decoded in place, except %00. */
size_t api_unescape(void *cls, struct MHD_Connection *c, char *s);
/** api_web_serve() - the dashboard file at @url (GET or HEAD); 0 when there is none. */
int api_web_serve(struct api_req *rq, const char *url, struct api_resp *rs);
#define API_LAT_BUCKETS 12

/** struct api_latency - request durations: counts per bucket (the last: +Inf), their sum */
struct api_latency {
	uint64_t count[API_LAT_BUCKETS + 1];
	uint64_t sum_us;
};

/** api_latency_observe() - count one request of @us microseconds (thread-safe). */
void api_latency_observe(struct api_latency *l, int64_t us);
/** api_latency_write() - fabroute_api_request_duration_seconds, a histogram. */
void api_latency_write(struct api_latency *l, FILE *o);
/** api_process_metrics() - fabroute_build_info and the process_* metrics; @start_s: start time (Unix seconds). */
void api_process_metrics(FILE *o, double start_s);
/** api_metrics_text() - the server's own counters in Prometheus text (malloc'd). */
char *api_metrics_text(struct api_server *s);

#endif
