/* SPDX-License-Identifier: MIT */
/**
 * DOC: HTTP server
 *
 * One access handler for every request: check the framing and the size as
 * soon as the headers are in (answered before any body), collect the body,
 * match the route, apply the limits (who may ask, how often, known
 * parameters), compute the answer - in the connection's thread for health,
 * readiness and errors, in the answer pool (api/pool.c) for the rest, the
 * connection suspended meanwhile - and count it by endpoint and status for
 * /metrics.
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
#include "formats/formats.h"
#include "svc/log.h"

/* Statuses counted separately in /metrics; the last slot counts the others. */
static const int statuses[] = { 200, 202, 304, 400, 401, 403, 404, 405, 409, 411, 413, 414, 429, 500, 503,
				507, 0 };
#define NSTATUS (sizeof(statuses) / sizeof(statuses[0]))

struct api_server {
	struct MHD_Daemon *mhd;
	struct api_hooks hooks;
	struct store *st;
	unsigned max_body, port;
	int dashboard, tls;
	struct api_access acc;
	struct api_guard guard;
	struct api_pool pool;
	uint64_t (*counts)[NSTATUS];	/* per route, plus one row for unknown paths */
	struct api_latency lat;		/* request durations */
	double start_s;			/* wall-clock start, for process_start_time_seconds */
	char *cert, *key;		/* TLS, PEM */
};

enum { CX_READING, CX_QUEUED, CX_ANSWERED };

/*
 * A request's state across the access handler's calls, made when the
 * request line arrives (on_uri()).
 * @task: the answer pool's handle, while the request is computed there
 *        (first: the pool hands it back, and it is the context)
 * @started: the access handler has seen the headers
 * @nul: the path or query holds a %00
 * @state: CX_READING, CX_QUEUED (in the pool, the connection suspended),
 *         CX_ANSWERED (@rs holds the answer)
 * @gz: the answer is compressed; @admitted: the pool holds room for it
 *      until the answer is sent
 * @path: the path's copy the {} segments point into
 */
struct conn_ctx {
	struct api_task task;
	struct api_server *s;
	int64_t start_us;
	char *body;
	size_t len;
	int started, nul, state, gz, admitted;
	const struct api_route *r;
	size_t row;
	struct api_req rq;
	struct api_resp rs;
	char path[1024];
};

const char *api_arg(struct api_req *rq, const char *name)
{
	return MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, name);
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int api_set_token(struct api_server *s, const char *token)
{
	return api_access_set(&s->acc, 0, token);
}

int api_set_read_token(struct api_server *s, const char *token)
{
	return api_access_set(&s->acc, 1, token);
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

/*
 * Does @url match @pattern exactly (no empty segment, no trailing '/')?
 * Fills @seg with the {} segments, cut in the copy @buf.
 */
static int match(const char *pattern, const char *url, char *buf, size_t size, const char **seg)
{
	const char *p = pattern;
	char *w = buf;
	unsigned nseg = 0;

	snprintf(buf, size, "%s", url);
	while (*p == '/' && *w == '/') {
		size_t pl = strcspn(p + 1, "/"), ul = strcspn(w + 1, "/");

		if (!ul)
			return 0;	/* "//", or a trailing '/' */
		if (pl == 2 && !strncmp(p + 1, "{}", 2)) {
			if (nseg < API_PARAMS_MAX)
				seg[nseg++] = w + 1;
		} else if (pl != ul || strncmp(p + 1, w + 1, pl)) {
			return 0;
		}
		p += 1 + pl;
		w += 1 + ul;
	}
	if (*p || *w)
		return 0;
	for (unsigned i = 0; i < nseg; i++)
		((char *)seg[i])[strcspn(seg[i], "/")] = '\0';
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

/* Run the route's handler into @cx->rs; an ETag the request names gives 304 (only for a 200). */
static void compute(struct conn_ctx *cx)
{
	struct api_server *s = cx->s;
	const struct api_route *r = cx->r;
	struct api_resp *rs = &cx->rs;

	rs->status = 200;
	if (r->flags & API_ETAG) {
		cx->rq.epoch = s->hooks.epoch(s->hooks.ud);
		if (cx->rq.epoch)
			api_epoch_etag(cx->rq.epoch, rs->etag, sizeof(rs->etag));
	}
	r->fn(&cx->rq, rs);
	epoch_unref(cx->rq.epoch);
	cx->rq.epoch = NULL;
	if (!rs->json && !rs->text && !rs->data)
		api_fail_new(rs, 500, "internal", "out of memory");
	if (rs->status >= 300)
		rs->etag[0] = '\0';	/* errors carry no validator */
	if (cx->gz)
		api_resp_gz_etag(rs);
	if (rs->status == 200 && rs->etag[0] && !rs->data && api_etag_matches(cx->rq.conn, rs->etag)) {
		json_decref(rs->json);
		free(rs->text);
		rs->json = NULL;
		rs->text = NULL;
		rs->status = 304;
		rs->data = "";
		rs->len = 0;
		cx->gz = 0;
	}
	api_resp_render(rs, cx->gz && rs->status == 200);
}

static void task_run(struct api_task *t)
{
	compute((struct conn_ctx *)t);
}

static void task_done(struct api_task *t)
{
	struct conn_ctx *cx = (struct conn_ctx *)t;

	if (t->cancelled)
		api_fail_new(&cx->rs, 503, "stopping", "fabrouted is stopping");
	cx->state = CX_ANSWERED;
	MHD_resume_connection(cx->rq.conn);
}

/* Hand @cx to the answer pool, the connection suspended; 0 when answered here instead. */
static int enqueue(struct api_server *s, struct MHD_Connection *c, struct conn_ctx *cx, int admin)
{
	uint64_t key = api_client_key(c);
	int rc = api_pool_admit(&s->pool, key, admin);

	if (rc == API_POOL_BUSY) {
		api_fail_new(&cx->rs, 429, "busy", "too many requests of this client are being answered or "
			     "wait; wait for their answers");
		return 0;
	}
	if (rc == API_POOL_STOPPING) {
		api_fail_new(&cx->rs, 503, "stopping", "fabrouted is stopping");
		return 0;
	}
	cx->task = (struct api_task){ .key = key, .prio = admin, .run = task_run, .done = task_done };
	cx->admitted = 1;	/* released when the answer is sent (on_completed()) */
	cx->state = CX_QUEUED;
	MHD_suspend_connection(c);
	api_pool_push(&s->pool, &cx->task);
	return 1;
}

/* Route, check and answer the request, or hand it to the pool (1). */
static int dispatch(struct api_server *s, struct MHD_Connection *c, const char *url, const char *method,
		    struct conn_ctx *cx)
{
	char allow[64];
	struct api_resp *rs = &cx->rs;
	struct param_check pc = { 0 };
	int admin;

	cx->rq = (struct api_req){ .srv = s, .conn = c, .hooks = &s->hooks, .store = s->st,
				   .body = cx->body ? cx->body : "", .body_len = cx->len };
	if (cx->nul) {
		api_fail_new(rs, 400, "bad_request", "the path or query holds a NUL byte (%%00)");
		return 0;
	}
	if (strlen(url) >= sizeof(cx->path)) {
		api_fail_new(rs, 414, "too_large", "the path is longer than %zu bytes", sizeof(cx->path) - 1);
		return 0;
	}
	cx->r = find_route(url, method, cx->path, sizeof(cx->path), cx->rq.seg, allow, sizeof(allow), &cx->row);
	if (!cx->r) {
		if (allow[0]) {
			snprintf(rs->allow, sizeof(rs->allow), "%s", allow);
			api_fail_new(rs, 405, "method_not_allowed", "%s %s: allowed: %s", method, url, allow);
		} else if (!s->dashboard || (strcmp(method, "GET") && strcmp(method, "HEAD")) ||
			   !api_web_serve(&cx->rq, url, rs)) {
			api_fail_new(rs, 404, "not_found", "no endpoint %s (GET /api lists them)", url);
		}
		return 0;
	}
	if (!api_access_check(&s->acc, c, cx->r->flags, rs, &admin))
		return 0;
	pc.allowed = cx->r->params;
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, check_param, &pc);
	if (pc.bad) {
		api_fail_new(rs, 400, "bad_parameter", "unknown parameter '%.64s'%s%s", pc.bad,
			     cx->r->params[0] ? "; this endpoint takes: " : "; this endpoint takes none",
			     cx->r->params);
		return 0;
	}
	cx->gz = (cx->r->flags & API_GZIP) && api_accepts_gzip(c);
	rs->vary = (cx->r->flags & API_GZIP) != 0;
	if (cx->r->flags & API_INLINE) {
		compute(cx);
		return 0;
	}
	return enqueue(s, c, cx, admin);
}

/* Queue @cx's answer and count it. */
static enum MHD_Result answer(struct api_server *s, struct MHD_Connection *c, struct conn_ctx *cx, int close)
{
	enum MHD_Result ret;

	if (!cx->rs.json && !cx->rs.text && !cx->rs.data && !cx->rs.body)
		api_fail_new(&cx->rs, 500, "internal", "out of memory");
	__atomic_add_fetch(&s->counts[cx->row][status_slot(cx->rs.status)], 1, __ATOMIC_RELAXED);
	api_guard_phase(&s->guard, c, API_PHASE_SENDING);
	ret = api_respond(c, &cx->rs, close);
	api_latency_observe(&s->lat, now_us() - cx->start_us);
	api_resp_free(&cx->rs);
	return ret;
}

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	unsigned *hc = cls;	/* Content-Length headers, Transfer-Encoding headers, chunked */

	if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH))
		hc[0]++;
	if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		hc[1]++;
		hc[2] = !strcasecmp(value, "chunked");
	}
	return MHD_YES;
}

/*
 * What makes a request answered before its body: ambiguous framing (RFC
 * 9112 section 6.3: a proxy in front could read the body differently), a
 * chunked body (the answers' bodies are small: send a Content-Length), a
 * body above max_body. 0 when none; else the status, with @rs filled.
 */
static int early_error(struct api_server *s, struct MHD_Connection *c, struct api_resp *rs)
{
	unsigned hc[3] = { 0 };
	const char *cl;
	unsigned long long n;
	char *end;

	MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, hc);
	if (hc[0] > 1)
		api_fail_new(rs, 400, "bad_request", "more than one Content-Length header");
	else if (hc[0] && hc[1])
		api_fail_new(rs, 400, "bad_request", "both Content-Length and Transfer-Encoding");
	else if (hc[1] > 1 || (hc[1] && !hc[2]))
		api_fail_new(rs, 400, "bad_request", "Transfer-Encoding other than one 'chunked'");
	else if (hc[1])
		api_fail_new(rs, 411, "length_required", "a chunked request body is refused: send the body "
			     "with a Content-Length (at most %u bytes)", s->max_body);
	else if ((cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH)) &&
		 (n = strtoull(cl, &end, 10)) > s->max_body)
		api_fail_new(rs, 413, "too_large", "the request body is larger than %u bytes", s->max_body);
	return rs->status;
}

/* The request line arrived: the request's state, and the raw line's checks. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct api_server *s = cls;
	struct conn_ctx *cx = calloc(1, sizeof(*cx));

	api_guard_begun(&s->guard, c, uri);
	if (cx) {
		cx->s = s;
		cx->start_us = now_us();
		cx->row = api_nroutes;	/* "other", until a route matches */
	}
	if (cx && api_guard_uri(c, uri, !s->tls, &cx->nul))
		__atomic_add_fetch(&s->counts[api_nroutes][status_slot(414)], 1, __ATOMIC_RELAXED);
	return cx;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct api_server *s = cls;
	struct conn_ctx *cx = *con_cls;

	if (!cx)
		return MHD_NO;	/* out of memory in on_uri() */
	if (cx->state == CX_ANSWERED)
		return answer(s, c, cx, 0);
	if (cx->state == CX_QUEUED)
		return MHD_YES;	/* not expected: libmicrohttpd calls again only once resumed */
	if (!cx->started) {
		cx->started = 1;
		if (!cx->nul && !early_error(s, c, &cx->rs))
			return MHD_YES;	/* the body, if any, comes next: its deadline still runs */
		/* answered before the body: libmicrohttpd reads nothing more on this connection */
		api_guard_phase(&s->guard, c, API_PHASE_BUSY);
		if (cx->nul)
			dispatch(s, c, url, method, cx);
		return answer(s, c, cx, 1);
	}
	if (*upload_size) {
		char *b;

		if (cx->len + *upload_size > s->max_body)	/* cannot happen: Content-Length was checked */
			return MHD_NO;
		if (!(b = realloc(cx->body, cx->len + *upload_size + 1)))
			return MHD_NO;
		memcpy(b + cx->len, upload, *upload_size);
		cx->len += *upload_size;
		b[cx->len] = '\0';
		cx->body = b;
		*upload_size = 0;
		return MHD_YES;
	}
	api_guard_phase(&s->guard, c, API_PHASE_BUSY);
	if (dispatch(s, c, url, method, cx))
		return MHD_YES;
	return answer(s, c, cx, 0);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct api_server *s = cls;
	struct conn_ctx *cx = *con_cls;

	api_guard_phase(&s->guard, c, API_PHASE_REQUEST);	/* the next request is due */
	if (cx && cx->admitted)
		api_pool_release(&s->pool, cx->task.key, cx->task.prio);
	if (cx) {
		api_resp_free(&cx->rs);
		free(cx->body);
		free(cx);
		*con_cls = NULL;
	}
}

/* libmicrohttpd's messages: refused connections are counted, client errors go to debug. */
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct api_server *s = cls;
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	if (strstr(msg, "connection limit"))
		api_guard_refused(&s->guard);
	else if (strstr(msg, "resource") || strstr(msg, "memory") || strstr(msg, "Failed to create"))
		log_warn("http: %s", msg);
	else
		log_debug("http: %s", msg);
}

char *api_metrics_text(struct api_server *s)
{
	struct api_guard_counts g;
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
	api_guard_counts(&s->guard, &g);
	api_metric(o, "counter", "fabroute_api_request_timeouts_total", "Connections closed because a "
		   "request (headers and body) did not arrive within api_request_timeout_s.",
		   (double)g.request_timeouts);
	api_metric(o, "counter", "fabroute_api_send_timeouts_total", "Connections closed because the client "
		   "did not take an answer within api_send_timeout_s.", (double)g.send_timeouts);
	api_metric(o, "counter", "fabroute_api_connections_reclaimed_total", "Connections waiting for a "
		   "request closed to make room for new ones (per client or near api_max_connections).",
		   (double)g.reclaimed);
	api_metric(o, "counter", "fabroute_api_connections_refused_total", "Connections refused at once: "
		   "the client's connections were all being answered, or the server was full.",
		   (double)g.refused);
	api_metric(o, "gauge", "fabroute_api_connections", "HTTP connections open.", (double)g.open);
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
	free(s->cert);
	free(s->key);
	api_access_fini(&s->acc);
	free(s);
}

/* The certificate and key files (PEM) into memory; 0, or -1 with @err. */
static int load_tls(struct api_server *s, const struct api_opts *o, struct fab_err *err)
{
	size_t n;

	if (!o->tls_cert || !o->tls_cert[0])
		return 0;
	if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
		fab_err_set(err, "tls_cert: this libmicrohttpd is built without TLS");
		return -1;
	}
	if (fmt_read_file_max(o->tls_cert, 1u << 20, &s->cert, &n, err) ||
	    fmt_read_file_max(o->tls_key, 1u << 20, &s->key, &n, err))
		return -1;
	s->tls = 1;
	return 0;
}

static struct MHD_Daemon *start_mhd(struct api_server *s, const struct api_opts *o, struct sockaddr_storage *ss)
{
	unsigned flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME |
			 (ss->ss_family == AF_INET6 ? MHD_USE_IPv6 : 0) | (s->tls ? MHD_USE_TLS : 0);

	/*
	 * poll(), not epoll: libmicrohttpd's epoll loop (0.9.75 and later)
	 * calls epoll_wait() again, with the full timeout, whenever one call
	 * returned its maximum of 128 events, although the connections it
	 * just marked ready have not been served. A thread holding 128
	 * connections that all became ready at once (keep-alive clients, a
	 * burst of connections opened and closed) then sleeps until another
	 * event or its 30 s timeout, and at the connection limit its listening
	 * socket is out of the set, so nothing else wakes it. poll() serves
	 * every ready connection on each turn.
	 */
	return MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, on_request, s,
				MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)ss,
				MHD_OPTION_THREAD_POOL_SIZE, o->io_threads,
				MHD_OPTION_CONNECTION_LIMIT, o->max_connections,
				MHD_OPTION_NOTIFY_CONNECTION, api_guard_notify, &s->guard,
				MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
				MHD_OPTION_CONNECTION_TIMEOUT, 30u,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
				MHD_OPTION_UNESCAPE_CALLBACK, api_unescape, s,
				s->tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, s->cert,
				MHD_OPTION_HTTPS_MEM_KEY, s->key,
				MHD_OPTION_END);
}

struct api_server *api_start(const struct api_opts *o, const struct api_hooks *h, struct store *st,
			     struct fab_err *err)
{
	struct api_server *s = calloc(1, sizeof(*s));
	struct api_guard_opts go = { .request_timeout_s = o->request_timeout_s,
				     .send_timeout_s = o->send_timeout_s,
				     .max_connections = o->max_connections, .max_per_client = o->max_per_address };
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *di;
	struct timespec ts;

	if (!s || !(s->counts = calloc(api_nroutes + 1, sizeof(*s->counts)))) {
		free(s);
		fab_err_set(err, "out of memory");
		return NULL;
	}
	s->hooks = *h;
	s->st = st;
	s->max_body = o->max_body;
	s->dashboard = o->dashboard;
	clock_gettime(CLOCK_REALTIME, &ts);
	s->start_s = (double)ts.tv_sec + (double)(ts.tv_nsec / 1000000) / 1e3;
	api_access_init(&s->acc, o->rate_limit, o->write_rate_limit);
	if (bind_addr(o->host, o->port, &ss, err) || load_tls(s, o, err)) {
		server_free(s);
		return NULL;
	}
	if (api_guard_start(&s->guard, &go)) {
		fab_err_set(err, "cannot start the HTTP connection guard");
		server_free(s);
		return NULL;
	}
	if (api_pool_start(&s->pool, o->threads, o->client_queue)) {
		fab_err_set(err, "cannot start the HTTP answer threads");
		api_guard_stop(&s->guard);
		server_free(s);
		return NULL;
	}
	if (!(s->mhd = start_mhd(s, o, &ss))) {
		fab_err_set(err, "cannot listen on %s:%u (address in use or not available%s)", o->host, o->port,
			    s->tls ? ", or the TLS certificate and key do not load" : "");
		api_pool_stop(&s->pool);
		api_pool_free(&s->pool);
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
	api_pool_stop(&s->pool);	/* every suspended connection is resumed */
	MHD_stop_daemon(s->mhd);
	api_pool_free(&s->pool);
	api_guard_stop(&s->guard);
	server_free(s);
}
