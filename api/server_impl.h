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
 * @body, @body_len: @json or @text rendered (api_resp_render()), gzip'd when @gz
 * @vary: the answer depends on Accept-Encoding
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
	char *body;
	size_t body_len;
	int gz, vary;
};

typedef void (*api_handler)(struct api_req *rq, struct api_resp *rs);

/* enum api_route_flags - how a route is served */
enum api_route_flags {
	API_WRITE = 1,	/* needs the administrator's token, counts against the write rate */
	API_ETAG = 2,	/* the answer depends only on the epoch (and the request): ETag, 304 */
	API_INLINE = 4,	/* answered in the connection's thread (cheap: health, readiness) */
	API_OPEN = 8,	/* needs no read token */
	API_GZIP = 16,	/* compressed when the client accepts gzip */
};

/**
 * struct api_route - one endpoint
 * @pattern: the path, "{}" for a variable segment
 * @params: the query parameters it accepts, comma-separated
 * @flags: enum api_route_flags
 * @summary: what it answers, for GET /api
 */
struct api_route {
	const char *method;
	const char *pattern;
	api_handler fn;
	const char *params;
	int flags;
	const char *summary;
};

/* --- connections (api/guard.c) ------------------------------------------- */

/* enum api_phase - where a connection is: what deadline applies */
enum api_phase {
	API_PHASE_REQUEST,	/* a request (headers and body) is due: the request timeout */
	API_PHASE_BUSY,		/* its answer is computed: no deadline */
	API_PHASE_SENDING,	/* its answer is sent: the send timeout */
};

struct api_guard_opts {
	unsigned request_timeout_s, send_timeout_s;
	unsigned max_connections, max_per_client;
};

/**
 * struct api_guard - the connections libmicrohttpd holds: deadlines, room
 * per client and in all (api/guard.c)
 * @live: connections not shut down here
 */
struct api_guard {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	int running, quit;
	int64_t request_ms, send_ms;
	unsigned live, high, per_client;
	uint64_t request_timeouts, send_timeouts, reclaimed, refused;
	struct api_conn *head;
};

struct api_guard_counts {
	uint64_t request_timeouts, send_timeouts, reclaimed, refused;
	unsigned open;
};

/** api_guard_start() - start the thread that enforces the deadlines; 0 or -1. */
int api_guard_start(struct api_guard *g, const struct api_guard_opts *o);
/** api_guard_stop() - after MHD_stop_daemon(): stop the thread, free. */
void api_guard_stop(struct api_guard *g);
/** api_guard_notify() - MHD_OPTION_NOTIFY_CONNECTION callback (@cls: the guard). */
void api_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
		      enum MHD_ConnectionNotificationCode toe);
/** api_guard_phase() - @c enters @phase: its deadline from now. */
void api_guard_phase(struct api_guard *g, struct MHD_Connection *c, enum api_phase phase);
/** api_guard_begun() - the request line of @uri arrived on @c: its request is under way. */
void api_guard_begun(struct api_guard *g, struct MHD_Connection *c, const char *uri);
/** api_guard_refused() - count a connection libmicrohttpd refused. */
void api_guard_refused(struct api_guard *g);
/** api_guard_counts() - the counters, and the connections open. */
void api_guard_counts(struct api_guard *g, struct api_guard_counts *out);
/**
 * api_guard_uri() - check the raw request line's @uri: -1 when it was
 * answered here (414, too many parameters; written on the socket when
 * @raw_ok, else only closed); *@nul = a %00 in it.
 */
int api_guard_uri(struct MHD_Connection *c, const char *uri, int raw_ok, int *nul);

/* --- the answer pool (api/pool.c) ----------------------------------------- */

/**
 * struct api_task - one answer to compute
 * @key: the client; @prio: the administrator's (goes first)
 * @run: computes (in a pool thread); @done: delivers, after @run or
 *       instead of it when @cancelled (the pool stops); @task may be gone after
 */
struct api_task {
	struct api_task *next;
	uint64_t key;
	int prio, cancelled;
	void (*run)(struct api_task *t);
	void (*done)(struct api_task *t);
};

struct api_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t *th;
	unsigned nth, per_client, queue, prio_admitted;
	int stopping;
	struct api_task *prio_head, *prio_tail;
	struct api_lane *lanes, *cursor;
};

enum { API_POOL_OK, API_POOL_BUSY, API_POOL_STOPPING };

/** api_pool_start() - @threads threads; a client may have @queue tasks admitted. 0 or -1. */
int api_pool_start(struct api_pool *p, unsigned threads, unsigned queue);
/** api_pool_admit() - reserve room for a task of client @key: API_POOL_OK, _BUSY or _STOPPING. */
int api_pool_admit(struct api_pool *p, uint64_t key, int prio);
/** api_pool_push() - queue @t (admitted); when the pool is stopping, @t->done() runs at once. */
void api_pool_push(struct api_pool *p, struct api_task *t);
/** api_pool_release() - an admitted task's answer is sent (or dropped): its room is free. */
void api_pool_release(struct api_pool *p, uint64_t key, int prio);
/** api_pool_stop() - cancel what waits, finish what runs, join the threads. */
void api_pool_stop(struct api_pool *p);
/** api_pool_free() - after api_pool_stop() and the last api_pool_release(). */
void api_pool_free(struct api_pool *p);

/* --- who may ask what (api/access.c) --------------------------------------- */

#define API_RATE_SLOTS 1024

struct api_rate_slot {
	uint64_t key;
	double tokens;
	int64_t last_us;
};

/* A token bucket per client (hashed into a fixed table). */
struct api_limiter {
	pthread_mutex_t mu;
	unsigned rate;
	struct api_rate_slot slot[API_RATE_SLOTS];
};

enum { API_LIM_READ, API_LIM_WRITE, API_LIM_UNAUTH, API_LIMITERS };
enum { API_CRED_NONE, API_CRED_BAD, API_CRED_READ, API_CRED_ADMIN };

/**
 * struct api_access - tokens and rates
 * @token: [0] the administrator's, [1] the read token (NULL: none)
 */
struct api_access {
	pthread_mutex_t mu;
	char *token[2];
	struct api_limiter lim[API_LIMITERS];
};

/** api_client_key() - the client of @c: its address, every loopback address one client. */
uint64_t api_client_key(struct MHD_Connection *c);
void api_access_init(struct api_access *a, unsigned read_rate, unsigned write_rate);
void api_access_fini(struct api_access *a);
/** api_access_set() - the administrator's token (@read 0) or the read token (1); NULL: none. 0 or -1. */
int api_access_set(struct api_access *a, int read, const char *token);
/**
 * api_access_check() - may @c ask a route of @flags? 1, with *@admin set when
 * it carries the administrator's token; 0 with @rs filled (401, 403, 429).
 */
int api_access_check(struct api_access *a, struct MHD_Connection *c, int flags, struct api_resp *rs,
		     int *admin);

extern const struct api_route api_routes[];
extern const size_t api_nroutes;

/** api_arg() - query parameter @name, or NULL. */
const char *api_arg(struct api_req *rq, const char *name);
/** api_fail() - answer with the error in @err. */
void api_fail(struct api_resp *rs, const struct api_err *err);
/** api_fail_new() - answer with a new error. */
void api_fail_new(struct api_resp *rs, int status, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/** api_accepts_gzip() - the request's Accept-Encoding takes gzip. */
int api_accepts_gzip(struct MHD_Connection *c);
/** api_resp_render() - @rs->json or @rs->text into @rs->body (gzip'd when @gz and it pays). */
void api_resp_render(struct api_resp *rs, int gz);
/** api_resp_gz_etag() - @rs->etag becomes the compressed representation's. */
void api_resp_gz_etag(struct api_resp *rs);
/** api_resp_free() - release what @rs holds; it is empty after. */
void api_resp_free(struct api_resp *rs);
/** api_respond() - queue @rs on @c (with "Connection: close" when @close). */
enum MHD_Result api_respond(struct MHD_Connection *c, struct api_resp *rs, int close);
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
