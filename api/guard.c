/* SPDX-License-Identifier: MIT */
/**
 * DOC: HTTP connection guard
 *
 * What the server enforces on connections before a request reaches a
 * route:
 *
 * - A header deadline. libmicrohttpd's connection timeout is an idle
 *   timeout: a client that sends one header byte every few seconds keeps a
 *   connection (and a slot of the connection limit) for ever. Every
 *   connection is tracked from libmicrohttpd's "started" notification to its
 *   "closed" one; a request's headers must be complete within the header
 *   timeout of the connection's start or of the previous answer. A thread
 *   wakes a few times a second and shuts down the sockets past their
 *   deadline; libmicrohttpd then sees the end of the stream and closes the
 *   connection in its own thread. The record leaves the list in the
 *   "closed" notification, which libmicrohttpd sends before it closes the
 *   socket, so a socket number is never shut down after it was reused.
 *
 * - Room for new connections. libmicrohttpd stops accepting at its
 *   connection limit, and a client that finds the limit reached waits in
 *   the listen queue, health checks included. Past the high-water mark
 *   (the limit less an eighth), each new connection closes the connection
 *   that has waited longest for a request's headers: an idle keep-alive
 *   client or a slow sender, never a request being answered.
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

#include "api/server_impl.h"

struct api_conn {
	int fd;
	int64_t deadline_ms;	/* 0: not waiting for headers */
	struct api_conn *prev, *next;
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *sweeper(void *arg)
{
	struct api_guard *g = arg;
	struct timespec until;

	pthread_mutex_lock(&g->mu);
	while (!g->quit) {
		int64_t now = mono_ms();

		for (struct api_conn *c = g->head; c; c = c->next)
			if (c->deadline_ms && now >= c->deadline_ms) {
				shutdown(c->fd, SHUT_RDWR);
				c->deadline_ms = 0;
				g->header_timeouts++;
			}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += 250 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&g->cv, &g->mu, &until);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int api_guard_start(struct api_guard *g, unsigned header_timeout_s, unsigned max_connections)
{
	pthread_condattr_t ca;

	memset(g, 0, sizeof(*g));
	g->timeout_ms = (int64_t)header_timeout_s * 1000;
	g->high = max_connections - max_connections / 8;
	pthread_mutex_init(&g->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cv, &ca);
	pthread_condattr_destroy(&ca);
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

/* With @g->mu held: close the connection that has waited longest for headers. */
static void reclaim(struct api_guard *g, const struct api_conn *keep)
{
	struct api_conn *old = NULL;

	for (struct api_conn *c = g->head; c; c = c->next)
		if (c != keep && c->deadline_ms && (!old || c->deadline_ms < old->deadline_ms))
			old = c;
	if (!old)
		return;
	shutdown(old->fd, SHUT_RDWR);
	old->deadline_ms = 0;
	g->reclaimed++;
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
		pthread_mutex_lock(&g->mu);
		ac->deadline_ms = mono_ms() + g->timeout_ms;
		ac->next = g->head;
		if (g->head)
			g->head->prev = ac;
		g->head = ac;
		if (++g->count > g->high)
			reclaim(g, ac);
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
	g->count--;
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

void api_guard_phase(struct api_guard *g, struct MHD_Connection *c, int waiting_headers)
{
	struct api_conn *ac = conn_of(c);

	if (!ac)
		return;
	pthread_mutex_lock(&g->mu);
	ac->deadline_ms = waiting_headers ? mono_ms() + g->timeout_ms : 0;
	pthread_mutex_unlock(&g->mu);
}

void api_guard_counts(struct api_guard *g, uint64_t *timeouts, uint64_t *reclaimed)
{
	pthread_mutex_lock(&g->mu);
	*timeouts = g->header_timeouts;
	*reclaimed = g->reclaimed;
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

int api_guard_uri(struct MHD_Connection *c, const char *uri, int *nul)
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
	answer_raw(c, 414, "URI Too Long", "too_large", msg);
	return -1;
}
