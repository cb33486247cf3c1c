/* SPDX-License-Identifier: MIT */
/**
 * DOC: HTTP server
 *
 * One access handler for every request: collect the body, match the route,
 * apply the limits (size, rate, authorization, known parameters), call the
 * route's handler, count the answer by endpoint and status for /metrics.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api/server_impl.h"
#include "svc/log.h"

/* Statuses counted separately in /metrics; the last slot counts the others. */
static const int statuses[] = { 200, 202, 304, 400, 401, 403, 404, 405, 409, 413, 414, 429, 500, 503, 507, 0 };
#define NSTATUS (sizeof(statuses) / sizeof(statuses[0]))
#define RATE_SLOTS 1024

struct rate_slot {
	uint64_t key;
	double tokens;
	int64_t last_us;
};

/* A token bucket per client address (hashed into a fixed table). */
struct limiter {
	pthread_mutex_t mu;
	unsigned rate;
	struct rate_slot slot[RATE_SLOTS];
};

struct api_server {
	struct MHD_Daemon *mhd;
	struct api_hooks hooks;
	struct store *st;
	unsigned max_body, port;
	int dashboard;
	pthread_mutex_t tok_mu;
	char *token;
	struct limiter rl, wrl, url;	/* reads, authorized writes, unauthorized writes */
	struct api_guard guard;
	uint64_t (*counts)[NSTATUS];	/* per route, plus one row for unknown paths */
	struct api_latency lat;		/* request durations */
	double start_s;			/* wall-clock start, for process_start_time_seconds */
};

/*
 * A request's state across the access handler's calls, made when the
 * request line arrives (on_uri()).
 * @started: the access handler has seen the headers
 * @nul: the path or query holds a %00
 * @framing: why the body's framing is refused, or NULL
 */
struct conn_ctx {
	int64_t start_us;
	char *body;
	size_t len;
	int too_large, started, nul;
	const char *framing;
};

void api_fail(struct api_resp *rs, const struct api_err *err)
{
	json_decref(rs->json);
	rs->json = api_err_json(err);
	rs->status = err->status;
}

void api_fail_new(struct api_resp *rs, int status, const char *code, const char *fmt, ...)
{
	struct api_err err = { .status = status };
	va_list ap;

	snprintf(err.code, sizeof(err.code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(err.msg, sizeof(err.msg), fmt, ap);
	va_end(ap);
	api_fail(rs, &err);
}

const char *api_arg(struct api_req *rq, const char *name)
{
	return MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, name);
}

/* --- limits --------------------------------------------------------------- */

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t client_key(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	uint64_t h = 1469598103934665603ull;
	const unsigned char *b;
	size_t n;

	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET6) {
		b = (const unsigned char *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		n = 16;
	} else {
		b = (const unsigned char *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr;
		n = 4;
	}
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h | 1;
}

/* Take one token for @key; 0 when the client is over its rate. */
static int limiter_take(struct limiter *l, uint64_t key)
{
	struct rate_slot *s = &l->slot[key % RATE_SLOTS];
	int64_t now = now_us();
	int ok;

	if (!l->rate)
		return 1;
	pthread_mutex_lock(&l->mu);
	if (s->key != key)
		*s = (struct rate_slot){ key, l->rate, now };
	s->tokens += (double)(now - s->last_us) * l->rate / 1e6;
	if (s->tokens > l->rate)
		s->tokens = l->rate;	/* a burst of at most one second's worth */
	s->last_us = now;
	ok = s->tokens >= 1.0;
	if (ok)
		s->tokens -= 1.0;
	pthread_mutex_unlock(&l->mu);
	return ok;
}

int api_set_token(struct api_server *s, const char *token)
{
	char *t = token ? strdup(token) : NULL;

	if (token && !t)
		return -1;
	pthread_mutex_lock(&s->tok_mu);
	free(s->token);
	s->token = t;
	pthread_mutex_unlock(&s->tok_mu);
	return 0;
}

/* Constant-time comparison of the presented token; 401/403 on failure. */
static int authorized(struct api_server *s, struct MHD_Connection *c, struct api_resp *rs)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	unsigned char diff = 0;
	size_t n;
	int ok;

	pthread_mutex_lock(&s->tok_mu);
	if (!s->token) {
		pthread_mutex_unlock(&s->tok_mu);
		api_fail_new(rs, 403, "writes_disabled", "no token_file is configured: POST requests are refused");
		return 0;
	}
	n = strlen(s->token);
	ok = h && strncmp(h, "Bearer ", 7) == 0 && strlen(h + 7) == n;
	for (size_t i = 0; ok && i < n; i++)
		diff |= (unsigned char)(h[7 + i] ^ s->token[i]);
	ok = ok && !diff;
	pthread_mutex_unlock(&s->tok_mu);
	if (!ok)
		api_fail_new(rs, 401, "unauthorized", h ? "the bearer token is not valid" :
			     "missing 'Authorization: Bearer TOKEN' header");
	return ok;
}

struct param_check {
	const char *allowed;
	const char *bad;
};

static enum MHD_Result check_param(void *cls, enum MHD_ValueKind kind, const char *key,
				   const char *value)
{
	struct param_check *pc = cls;
	size_t n = strlen(key);

	for (const char *a = pc->allowed; a && *a; a += strcspn(a, ",") + (a[strcspn(a, ",")] != 0))
		if (strncmp(a, key, n) == 0 && (a[n] == ',' || a[n] == '\0'))
			return MHD_YES;
	pc->bad = key;
	return MHD_NO;
}

/* --- dispatch --------------------------------------------------------------- */

/* Does @url match @pattern? Fills @seg with the {} segments (in @buf). */
static int match(const char *pattern, const char *url, char *buf, size_t size, const char **seg)
{
	char *save = NULL, *psave = NULL, pat[128], *u, *p;
	unsigned nseg = 0;

	snprintf(buf, size, "%s", url);
	snprintf(pat, sizeof(pat), "%s", pattern);
	u = strtok_r(buf, "/", &save);
	p = strtok_r(pat, "/", &psave);
	for (; u && p; u = strtok_r(NULL, "/", &save), p = strtok_r(NULL, "/", &psave)) {
		if (strcmp(p, "{}") == 0) {
			if (nseg < API_PARAMS_MAX)
				seg[nseg++] = url + (u - buf);
		} else if (strcmp(p, u) != 0) {
			return 0;
		}
	}
	if (u || p)
		return 0;
	/* the {} segments point into @url: cut them at their '/' in the copy */
	for (unsigned i = 0; i < nseg; i++)
		seg[i] = buf + (seg[i] - url);
	return 1;
}

static size_t status_slot(int status)
{
	for (size_t i = 0; i < NSTATUS - 1; i++)
		if (statuses[i] == status)
			return i;
	return NSTATUS - 1;
}

static const struct api_route *find_route(const char *url, const char *method, char *buf, size_t size,
					  const char **seg, char *allow, size_t asize, size_t *row)
{
	allow[0] = '\0';
	*row = api_nroutes;
	for (size_t i = 0; i < api_nroutes; i++) {
		if (!match(api_routes[i].pattern, url, buf, size, seg))
			continue;
		*row = i;
		if (strcmp(api_routes[i].method, method) == 0 ||
		    (strcmp(method, "HEAD") == 0 && strcmp(api_routes[i].method, "GET") == 0))
			return &api_routes[i];
		snprintf(allow + strlen(allow), asize - strlen(allow), "%s%s%s", allow[0] ? ", " : "",
			 api_routes[i].method, strcmp(api_routes[i].method, "GET") ? "" : ", HEAD");
	}
	return NULL;
}

/*
 * The token is checked before any rate is charged: requests without a valid
 * token count against their own bucket, so that they can never use up the
 * writes of a client that has the token. 0 with @rs filled when refused.
 */
static int rate_ok(struct api_server *s, struct MHD_Connection *c, const struct api_route *r,
		   struct api_resp *rs)
{
	uint64_t key = client_key(c);

	if (r->write && !authorized(s, c, rs)) {
		if (!limiter_take(&s->url, key))
			api_fail_new(rs, 429, "rate_limited", "too many unauthorized requests from this "
				     "address; slow down");
		return 0;
	}
	if (!limiter_take(r->write ? &s->wrl : &s->rl, key)) {
		api_fail_new(rs, 429, "rate_limited", "too many requests from this address; slow down");
		return 0;
	}
	return 1;
}

static void handle(struct api_server *s, struct MHD_Connection *c, const char *url, const char *method,
		   struct conn_ctx *cx, struct api_resp *rs, size_t *row)
{
	char buf[1024], allow[64];
	struct api_req rq = { .srv = s, .conn = c, .hooks = &s->hooks, .store = s->st,
			      .body = cx->body ? cx->body : "", .body_len = cx->len };
	const struct api_route *r;
	struct param_check pc = { 0 };

	if (cx->nul || cx->framing) {
		api_fail_new(rs, 400, "bad_request", "%s", cx->nul ? "the path or query holds a NUL byte (%00)" :
			     cx->framing);
		return;
	}
	if (strlen(url) >= sizeof(buf)) {
		api_fail_new(rs, 414, "too_large", "the path is longer than %zu bytes", sizeof(buf) - 1);
		return;
	}
	r = find_route(url, method, buf, sizeof(buf), rq.seg, allow, sizeof(allow), row);
	if (!r) {
		if (allow[0]) {
			snprintf(rs->allow, sizeof(rs->allow), "%s", allow);
			api_fail_new(rs, 405, "method_not_allowed", "%s %s: allowed: %s", method, url, allow);
		} else if (!s->dashboard || (strcmp(method, "GET") && strcmp(method, "HEAD")) ||
			   !api_web_serve(&rq, url, rs)) {
			api_fail_new(rs, 404, "not_found", "no endpoint %s (GET /api lists them)", url);
		}
		return;
	}
	if (!rate_ok(s, c, r, rs))
		return;
	if (cx->too_large) {
		api_fail_new(rs, 413, "too_large", "the request body is larger than %u bytes", s->max_body);
		return;
	}
	pc.allowed = r->params;
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, check_param, &pc);
	if (pc.bad) {
		api_fail_new(rs, 400, "bad_parameter", "unknown parameter '%.64s'%s%s", pc.bad,
			     r->params[0] ? "; this endpoint takes: " : "; this endpoint takes none",
			     r->params);
		return;
	}
	rs->status = 200;
	if (r->etag) {
		rq.epoch = s->hooks.epoch(s->hooks.ud);
		api_epoch_etag(rq.epoch, rs->etag, sizeof(rs->etag));
		if (rq.epoch && api_etag_matches(c, rs->etag)) {
			rs->status = 304;
			rs->data = "";
		}
	}
	if (rs->status != 304) {
		r->fn(&rq, rs);
		if ((rs->status >= 300 && rs->status != 304) || (r->etag && !rq.epoch))
			rs->etag[0] = '\0';	/* errors carry no validator */
	}
	epoch_unref(rq.epoch);
}

static enum MHD_Result respond(struct MHD_Connection *c, struct api_resp *rs, int close)
{
	char *body = rs->data ? NULL : rs->text ? rs->text :
		json_dumps(rs->json, JSON_COMPACT | JSON_REAL_PRECISION(9));
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (rs->data)
		resp = MHD_create_response_from_buffer(rs->len, (void *)(uintptr_t)rs->data,
						       MHD_RESPMEM_PERSISTENT);
	else if (body)
		resp = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
	else
		return MHD_NO;
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	if (rs->status != 304)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, rs->ctype ? rs->ctype :
					rs->text ? "text/plain; charset=utf-8" : "application/json");
	if (rs->etag[0])
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, rs->etag);
	/* answers with a validator may be kept, but are checked again each time */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, rs->etag[0] ? "no-cache" : "no-store");
	if (close)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	if (rs->status == 401)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"fabroute\"");
	if (rs->allow[0])
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, rs->allow);
	ret = MHD_queue_response(c, (unsigned)rs->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static int collect(struct api_server *s, struct conn_ctx *cx, const char *data, size_t n)
{
	char *b;

	if (cx->too_large || cx->len + n > s->max_body) {
		cx->too_large = 1;
		return 0;
	}
	b = realloc(cx->body, cx->len + n + 1);
	if (!b)
		return -1;
	memcpy(b + cx->len, data, n);
	cx->len += n;
	b[cx->len] = '\0';
	cx->body = b;
	return 0;
}

struct header_count {
	unsigned clen, te;
	int chunked;
};

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct header_count *hc = cls;

	if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH))
		hc->clen++;
	if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		hc->te++;
		hc->chunked = !strcasecmp(value, "chunked");
	}
	return MHD_YES;
}

/*
 * Ambiguous body framing, refused as RFC 9112 section 6.3 asks (a proxy in
 * front could read the body differently): NULL when the framing is sound.
 */
static const char *framing_error(struct MHD_Connection *c)
{
	struct header_count hc = { 0 };

	MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, &hc);
	if (hc.clen > 1)
		return "more than one Content-Length header";
	if (hc.clen && hc.te)
		return "both Content-Length and Transfer-Encoding";
	if (hc.te > 1 || (hc.te && !hc.chunked))
		return "Transfer-Encoding other than one 'chunked'";
	return NULL;
}

/* The request line arrived: the request's state, and the raw line's checks. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct conn_ctx *cx = calloc(1, sizeof(*cx));

	if (cx)
		cx->start_us = now_us();
	if (cx && api_guard_uri(c, uri, &cx->nul)) {
		struct api_server *s = cls;

		__atomic_add_fetch(&s->counts[api_nroutes][status_slot(414)], 1, __ATOMIC_RELAXED);
	}
	return cx;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct api_server *s = cls;
	struct conn_ctx *cx = *con_cls;
	struct api_resp rs = { 0 };
	enum MHD_Result ret;
	size_t row = api_nroutes;	/* "other", until a route matches */

	if (!cx)
		return MHD_NO;	/* out of memory in on_uri() */
	if (!cx->started) {
		cx->started = 1;
		api_guard_phase(&s->guard, c, 0);
		cx->framing = framing_error(c);
		if (!cx->nul && !cx->framing)
			return MHD_YES;
		/* answered before the body: libmicrohttpd reads nothing more on this connection */
	} else if (*upload_size) {
		if (collect(s, cx, upload, *upload_size))
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	handle(s, c, url, method, cx, &rs, &row);
	if (!rs.json && !rs.text && !rs.data)
		api_fail_new(&rs, 500, "internal", "out of memory");
	__atomic_add_fetch(&s->counts[row][status_slot(rs.status)], 1, __ATOMIC_RELAXED);
	ret = respond(c, &rs, cx->framing || cx->nul);
	api_latency_observe(&s->lat, now_us() - cx->start_us);
	json_decref(rs.json);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct api_server *s = cls;
	struct conn_ctx *cx = *con_cls;

	api_guard_phase(&s->guard, c, 1);	/* the next request's headers are due */
	if (cx) {
		free(cx->body);
		free(cx);
		*con_cls = NULL;
	}
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_warn("http: %s", msg);
}

char *api_metrics_text(struct api_server *s)
{
	const union MHD_DaemonInfo *di;
	uint64_t timeouts, reclaimed;
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);

	if (!o)
		return NULL;
	api_process_metrics(o, s->start_s);
	api_latency_write(&s->lat, o);
	fputs("# HELP fabroute_api_requests_total API requests by endpoint and status.\n"
	      "# TYPE fabroute_api_requests_total counter\n", o);
	for (size_t r = 0; r <= api_nroutes; r++)
		for (size_t k = 0; k < NSTATUS; k++) {
			uint64_t v = __atomic_load_n(&s->counts[r][k], __ATOMIC_RELAXED);

			if (!v)
				continue;
			fprintf(o, "fabroute_api_requests_total{endpoint=\"%s\",method=\"%s\",status=\"",
				r < api_nroutes ? api_routes[r].pattern : "other",
				r < api_nroutes ? api_routes[r].method : "any");
			if (statuses[k])
				fprintf(o, "%d\"} %llu\n", statuses[k], (unsigned long long)v);
			else
				fprintf(o, "other\"} %llu\n", (unsigned long long)v);
		}
	api_guard_counts(&s->guard, &timeouts, &reclaimed);
	api_metric(o, "counter", "fabroute_api_header_timeouts_total", "Connections closed because a "
		   "request's headers did not arrive within api_header_timeout_s.", (double)timeouts);
	api_metric(o, "counter", "fabroute_api_connections_reclaimed_total", "Connections waiting for a "
		   "request closed to make room for new ones near api_max_connections.", (double)reclaimed);
	di = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
	api_metric(o, "gauge", "fabroute_api_connections", "HTTP connections open.",
		   di ? (double)di->num_connections : 0);
	if (fclose(o)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The socket address for @host:@port; 0, or -1 with @err. */
static int bind_addr(const char *host, unsigned port, struct sockaddr_storage *ss, struct fab_err *err)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM }, *ai;
	int rc = getaddrinfo(host, NULL, &hints, &ai);

	if (rc) {
		fab_err_set(err, "listen address '%s': %s (give a numeric IPv4 or IPv6 address)", host,
			    gai_strerror(rc));
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)(void *)ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)(void *)ss)->sin_port = htons((uint16_t)port);
	return 0;
}

static void server_free(struct api_server *s)
{
	free(s->counts);
	free(s->token);
	pthread_mutex_destroy(&s->tok_mu);
	pthread_mutex_destroy(&s->rl.mu);
	pthread_mutex_destroy(&s->wrl.mu);
	pthread_mutex_destroy(&s->url.mu);
	free(s);
}

struct api_server *api_start(const struct api_opts *o, const struct api_hooks *h, struct store *st,
			     struct fab_err *err)
{
	struct api_server *s = calloc(1, sizeof(*s));
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *di;

	if (!s || !(s->counts = calloc(api_nroutes + 1, sizeof(*s->counts)))) {
		free(s);
		fab_err_set(err, "out of memory");
		return NULL;
	}
	s->hooks = *h;
	s->st = st;
	s->max_body = o->max_body;
	s->dashboard = o->dashboard;
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		s->start_s = (double)ts.tv_sec + (double)(ts.tv_nsec / 1000000) / 1e3;
	}
	s->rl.rate = o->rate_limit;
	s->wrl.rate = s->url.rate = o->write_rate_limit;
	pthread_mutex_init(&s->tok_mu, NULL);
	pthread_mutex_init(&s->rl.mu, NULL);
	pthread_mutex_init(&s->wrl.mu, NULL);
	pthread_mutex_init(&s->url.mu, NULL);
	if (bind_addr(o->host, o->port, &ss, err)) {
		server_free(s);
		return NULL;
	}
	if (api_guard_start(&s->guard, o->header_timeout_s, o->max_connections)) {
		fab_err_set(err, "cannot start the HTTP connection guard");
		server_free(s);
		return NULL;
	}
	/*
	 * poll(), not epoll: libmicrohttpd's epoll loop (0.9.75 and later)
	 * calls epoll_wait() again, with the full timeout, whenever one call
	 * returned its maximum of 128 events, although the connections it
	 * just marked ready have not been served. A worker holding 128
	 * connections that all became ready at once (keep-alive clients, a
	 * burst of connections opened and closed) then sleeps until another
	 * event or its 30 s timeout, and at the connection limit its listening
	 * socket is out of the set, so nothing else wakes it. poll() serves
	 * every ready connection on each turn.
	 */
	s->mhd = MHD_start_daemon(MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
				  (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				  (uint16_t)o->port, NULL, NULL, on_request, s,
				  MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_THREAD_POOL_SIZE, o->threads,
				  MHD_OPTION_CONNECTION_LIMIT, o->max_connections,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, o->max_per_address,
				  MHD_OPTION_NOTIFY_CONNECTION, api_guard_notify, &s->guard,
				  MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
				  MHD_OPTION_CONNECTION_TIMEOUT, 30u,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
				  MHD_OPTION_UNESCAPE_CALLBACK, api_unescape, s,
				  MHD_OPTION_END);
	if (!s->mhd) {
		fab_err_set(err, "cannot listen on %s:%u (address in use or not available)", o->host, o->port);
		api_guard_stop(&s->guard);
		server_free(s);
		return NULL;
	}
	di = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
	s->port = di ? di->port : o->port;
	return s;
}

unsigned api_port(const struct api_server *s)
{
	return s->port;
}

void api_stop(struct api_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->mhd);
	api_guard_stop(&s->guard);
	server_free(s);
}
