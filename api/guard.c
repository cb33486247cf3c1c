/* SPDX-License-Identifier: MIT */
/**
 * DOC: HTTP connection guard
 *
 * What the server enforces on connections before a request reaches a
 * route:
 *
 * - A deadline for the whole request. libmicrohttpd's connection timeout
 *   is an idle timeout: a client that sends one byte every few seconds,
 *   of its headers or of its body, keeps a connection (and a slot of the
 *   connection limit) for ever, and so does one that sends
 *   "Expect: 100-continue" and then nothing. Every connection is tracked
 *   from libmicrohttpd's "started" notification to its "closed" one; a
 *   request, headers and body, must be complete within the request timeout
 *   of the connection's start or of the previous answer, and an answer
 *   must be taken by the client within the send timeout. A thread wakes a
 *   few times a second and shuts down the sockets past their deadline;
 *   libmicrohttpd then sees the end of the stream and closes the
 *   connection in its own thread. The record leaves the list in the
 *   "closed" notification, which libmicrohttpd sends before it closes the
 *   socket, so a socket number is never shut down after it was reused.
 *
 * - Room for every client. A client (an address; every loopback address
 *   is one client, since any local user may send from any of them) holds
 *   at most max_per_client connections: one more closes one of the
 *   client's connections waiting for a request - a kept-alive connection
 *   served already first (its client had its answer), then a slow sender
 *   (a request under way on a new connection), then a new one, the one
 *   that has waited longest - so that a client flooding its own share
 *   still gets its health check in. A health or readiness check is closed last
 *   for API_GUARD_PROBE_MS from when it is seen - its request line read,
 *   or, for a new connection about to be closed, its request waiting in
 *   the socket (looked at without reading it): on a loaded machine a
 *   thread may accept and close while the thread that holds the check has
 *   not read it yet, or is between its request line and its dispatch.
 *   Only when every one of the client's connections is being answered is
 *   the new one refused. Past the
 *   high-water mark of the whole server (the connection limit less an
 *   eighth), each new connection closes the connection that has waited
 *   longest for a request, of whatever client. Connections refused here or
 *   by libmicrohttpd are counted, never logged one by one.
 *
 * - Checks on the raw request line, before libmicrohttpd parses it: a query
 *   of more than API_QUERY_PARAMS_MAX parameters, and NUL bytes (%00) in
 *   the path or query. libmicrohttpd 0.9.75 keeps every query parameter in
 *   the connection's memory pool; when the pool runs out its error answer
 *   is lost and the connection waits for its timeout without an answer.
 *   Such a request is answered here, directly on the socket, and closed.
 *   NUL bytes would silently cut the decoded values: they are flagged for
 *   a 400 answer by the access handler.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "svc/clock.h"
#include "api/server_impl.h"

/* How long a health or readiness check's request line protects it. */
#define API_GUARD_PROBE_MS 200

/*
 * struct api_conn - one connection
 * @key: its client (api_client_key())
 * @phase: enum api_phase; @dead: shut down here, not yet closed by libmicrohttpd
 * @begun: a request line arrived in this phase (the request is under way)
 * @probe: it asks for /api/health or /api/ready, seen at @probe_ms; @peeked: the socket looked at
 * @served: a request was answered on it (it waits as a kept-alive connection)
 * @since_ms: when the phase began (the oldest waiting request goes first)
 * @deadline_ms: when it is shut down (0: none)
 */
struct api_conn {
	int fd;
	uint64_t key;
	int phase, dead, begun, served, probe, peeked;
	int64_t since_ms, deadline_ms, probe_ms;
	struct api_conn *prev, *next;
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* With @g->mu held: shut @c down (libmicrohttpd closes it in its thread). */
static void kill_conn(struct api_guard *g, struct api_conn *c)
{
	shutdown(c->fd, SHUT_RDWR);
	c->dead = 1;
	c->deadline_ms = 0;
	g->live--;
}

static void *sweeper(void *arg)
{
	struct api_guard *g = arg;
	struct timespec until;

	pthread_mutex_lock(&g->mu);
	while (!g->quit) {
		int64_t now = mono_ms();

		for (struct api_conn *c = g->head; c; c = c->next)
			if (!c->dead && c->deadline_ms && now >= c->deadline_ms) {
				if (c->phase == API_PHASE_REQUEST)
					g->request_timeouts++;
				else
					g->send_timeouts++;
				kill_conn(g, c);
			}
		until = svc_deadline(CLOCK_MONOTONIC, 250);
		pthread_cond_timedwait(&g->cv, &g->mu, &until);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int api_guard_start(struct api_guard *g, const struct api_guard_opts *o)
{
	memset(g, 0, sizeof(*g));
	g->request_ms = (int64_t)o->request_timeout_s * 1000;
	g->send_ms = (int64_t)o->send_timeout_s * 1000;
	g->high = o->max_connections - o->max_connections / 8;
	g->per_client = o->max_per_client;
	pthread_mutex_init(&g->mu, NULL);
	svc_cond_init_monotonic(&g->cv);
	if (pthread_create(&g->thread, NULL, sweeper, g)) {
		pthread_cond_destroy(&g->cv);
		pthread_mutex_destroy(&g->mu);
		return -1;
	}
	g->running = 1;
	return 0;
}

void api_guard_stop(struct api_guard *g)
{
	if (!g->running)
		return;
	pthread_mutex_lock(&g->mu);
	g->quit = 1;
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->thread, NULL);
	while (g->head) {	/* libmicrohttpd has closed them all by now */
		struct api_conn *c = g->head;

		g->head = c->next;
		free(c);
	}
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
	g->running = 0;
}

/*
 * The order in which @c is closed to make room at @now_ms: a kept-alive
 * connection that was served already first, then a request under way on a
 * new connection (a slow sender), then a new one (it may be a health check
 * about to ask), then a health check about to be dispatched.
 */
static int victim_rank(const struct api_conn *c, int64_t now_ms)
{
	if (c->served)
		return 0;
	if (c->probe && now_ms - c->probe_ms < API_GUARD_PROBE_MS)
		return 3;
	return c->begun ? 1 : 2;
}

/* Is @a a better victim than @b at @now_ms? By rank, then the oldest. */
static int before(const struct api_conn *a, const struct api_conn *b, int64_t now_ms)
{
	int ra = victim_rank(a, now_ms), rb = victim_rank(b, now_ms);

	return ra != rb ? ra < rb : a->since_ms < b->since_ms;
}

/*
 * With @g->mu held: the connection of client @key (any client when @key is
 * 0) to close to make room, other than @keep: of those waiting for a
 * request, the first in before()'s order; NULL when none waits. *@n gets the live connections of @key.
 */
static struct api_conn *oldest_waiting(struct api_guard *g, uint64_t key, const struct api_conn *keep,
				       unsigned *n)
{
	struct api_conn *old = NULL;
	int64_t now = mono_ms();

	*n = 0;
	for (struct api_conn *c = g->head; c; c = c->next) {
		if (c->dead || (key && c->key != key))
			continue;
		++*n;
		if (c != keep && c->phase == API_PHASE_REQUEST && (!old || before(c, old, now)))
			old = c;
	}
	return old;
}

/*
 * Does new connection @c hold a health or readiness check not read yet?
 * Looked at once (without reading it); marks @c a probe when it does.
 */
static int probe_waiting(struct api_conn *c)
{
	char line[24];
	ssize_t k;

	if (c->begun || c->served || c->peeked)
		return 0;
	c->peeked = 1;
	k = recv(c->fd, line, sizeof(line) - 1, MSG_PEEK | MSG_DONTWAIT);
	line[k > 0 ? k : 0] = '\0';
	c->probe = !strncmp(line, "GET /api/health ", 16) || !strncmp(line, "GET /api/health?", 16) ||
		   !strncmp(line, "GET /api/ready ", 15) || !strncmp(line, "GET /api/ready?", 15);
	c->probe_ms = mono_ms();
	return c->probe;
}

/* With @g->mu held: the victim oldest_waiting() gives, past the probes among new connections. */
static struct api_conn *victim(struct api_guard *g, uint64_t key, const struct api_conn *keep, unsigned *n)
{
	struct api_conn *old;
	int tries = 8;

	while ((old = oldest_waiting(g, key, keep, n)) && tries-- && probe_waiting(old))
		;
	return old;
}

/* With @g->mu held: make room for @ac; 0, or -1 when it must be refused. */
static int make_room(struct api_guard *g, struct api_conn *ac)
{
	struct api_conn *old;
	unsigned n;

	if (g->per_client) {
		old = victim(g, ac->key, ac, &n);
		if (n > g->per_client) {
			if (!old)
				return -1;
			kill_conn(g, old);
			g->reclaimed++;
		}
	}
	if (g->live > g->high && (old = victim(g, 0, ac, &n))) {
		kill_conn(g, old);
		g->reclaimed++;
	}
	return 0;
}

void api_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
		      enum MHD_ConnectionNotificationCode toe)
{
	struct api_guard *g = cls;
	struct api_conn *ac = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

		if (!ci || !(ac = calloc(1, sizeof(*ac))))
			return;	/* untracked: the idle timeout still applies */
		ac->fd = ci->connect_fd;
		ac->key = api_client_key(c);
		ac->phase = API_PHASE_REQUEST;
		pthread_mutex_lock(&g->mu);
		ac->since_ms = mono_ms();
		ac->deadline_ms = ac->since_ms + g->request_ms;
		ac->next = g->head;
		if (g->head)
			g->head->prev = ac;
		g->head = ac;
		g->live++;
		if (make_room(g, ac)) {
			kill_conn(g, ac);
			g->refused++;
		}
		pthread_mutex_unlock(&g->mu);
		*socket_context = ac;
		return;
	}
	if (!ac)
		return;
	pthread_mutex_lock(&g->mu);
	if (ac->prev)
		ac->prev->next = ac->next;
	else
		g->head = ac->next;
	if (ac->next)
		ac->next->prev = ac->prev;
	if (!ac->dead)
		g->live--;
	pthread_mutex_unlock(&g->mu);
	free(ac);
	*socket_context = NULL;
}

/* The connection's record (NULL when untracked). */
static struct api_conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

void api_guard_phase(struct api_guard *g, struct MHD_Connection *c, enum api_phase phase)
{
	struct api_conn *ac = conn_of(c);
	int64_t now;

	if (!ac)
		return;
	pthread_mutex_lock(&g->mu);
	now = mono_ms();
	ac->served |= ac->phase == API_PHASE_SENDING && phase == API_PHASE_REQUEST;
	ac->phase = phase;
	ac->begun = 0;
	ac->since_ms = now;
	if (!ac->dead)
		ac->deadline_ms = phase == API_PHASE_REQUEST ? now + g->request_ms :
				  phase == API_PHASE_SENDING ? now + g->send_ms : 0;
	pthread_mutex_unlock(&g->mu);
}

void api_guard_begun(struct api_guard *g, struct MHD_Connection *c, const char *uri)
{
	struct api_conn *ac = conn_of(c);
	size_t n = strcspn(uri, "?");

	if (!ac)
		return;
	pthread_mutex_lock(&g->mu);
	ac->begun = 1;
	ac->probe = (n == 11 && !strncmp(uri, "/api/health", n)) || (n == 10 && !strncmp(uri, "/api/ready", n));
	ac->probe_ms = mono_ms();
	pthread_mutex_unlock(&g->mu);
}

void api_guard_refused(struct api_guard *g)
{
	pthread_mutex_lock(&g->mu);
	g->refused++;
	pthread_mutex_unlock(&g->mu);
}

void api_guard_counts(struct api_guard *g, struct api_guard_counts *out)
{
	pthread_mutex_lock(&g->mu);
	*out = (struct api_guard_counts){ .request_timeouts = g->request_timeouts,
					  .send_timeouts = g->send_timeouts, .reclaimed = g->reclaimed,
					  .refused = g->refused, .open = g->live };
	pthread_mutex_unlock(&g->mu);
}

/* Answer @status with a JSON error straight on @c's socket, then shut it down. */
static void answer_raw(struct MHD_Connection *c, int status, const char *reason, const char *code,
		       const char *msg)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	char body[256], head[512];
	int bn, hn;

	if (!ci)
		return;
	bn = snprintf(body, sizeof(body), "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code, msg);
	hn = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
		      "Cache-Control: no-store\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		      status, reason, bn, body);
	if (hn > 0 && (size_t)hn < sizeof(head) &&
	    send(ci->connect_fd, head, (size_t)hn, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		errno = 0;	/* the client went away: nothing more to do */
	shutdown(ci->connect_fd, SHUT_RDWR);
}

int api_guard_uri(struct MHD_Connection *c, const char *uri, int raw_ok, int *nul)
{
	const char *q = strchr(uri, '?');
	unsigned params = 0;
	char msg[128];

	*nul = strstr(uri, "%00") != NULL;
	for (const char *p = q; p && *p; p++)
		params += *p == '&' || p == q;
	if (params <= API_QUERY_PARAMS_MAX)
		return 0;
	snprintf(msg, sizeof(msg), "the query has %u parameters; at most %u are accepted", params,
		 API_QUERY_PARAMS_MAX);
	if (raw_ok) {
		answer_raw(c, 414, "URI Too Long", "too_large", msg);
	} else {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

		if (ci)
			shutdown(ci->connect_fd, SHUT_RDWR);
	}
	return -1;
}
