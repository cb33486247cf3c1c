/* SPDX-License-Identifier: MIT */
/**
 * DOC: events stored by a thread of their own
 *
 * A singly linked list under a mutex; the thread takes the whole list at
 * once and stores it without the lock, so queueing never waits for a commit.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/evqueue.h"
#include "svc/log.h"

struct ev {
	struct ev *next;
	int64_t time_ms;
	json_t *details;
	char *type, *message;
};

struct evq {
	struct store *st;
	pthread_t th;
	pthread_mutex_t mu;	/* guards what follows */
	pthread_cond_t cv;
	struct ev *head, **tail;
	unsigned n;
	int quit;
	uint64_t dropped;
};

static void ev_free(struct ev *e)
{
	json_decref(e->details);
	free(e->type);
	free(e->message);
	free(e);
}

/* Store the events of @e in order, freeing them. */
static void store_all(struct evq *q, struct ev *e)
{
	while (e) {
		struct ev *next = e->next;
		struct fab_err err = { { 0 } };

		if (store_event_add(q->st, e->time_ms, e->type, e->message, e->details, &err) < 0)
			log_err("event not stored: %s", err.msg);
		ev_free(e);
		e = next;
	}
}

static void *evq_main(void *arg)
{
	struct evq *q = arg;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		struct ev *batch = q->head;
		int quit = q->quit;

		q->head = NULL;
		q->tail = &q->head;
		q->n = 0;
		pthread_mutex_unlock(&q->mu);
		store_all(q, batch);
		pthread_mutex_lock(&q->mu);
		if (quit && !q->head)
			break;
		while (!q->quit && !q->head)
			pthread_cond_wait(&q->cv, &q->mu);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

struct evq *evq_start(struct store *st, struct fab_err *err)
{
	struct evq *q = calloc(1, sizeof(*q));

	if (!q) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	q->st = st;
	q->tail = &q->head;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	if (pthread_create(&q->th, NULL, evq_main, q)) {
		pthread_mutex_destroy(&q->mu);
		pthread_cond_destroy(&q->cv);
		free(q);
		fab_err_set(err, "cannot start the thread that stores events");
		return NULL;
	}
	return q;
}

void evq_stop(struct evq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->quit = 1;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->th, NULL);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	free(q);
}

int evq_add(struct evq *q, int64_t time_ms, const char *type, const char *message,
	    json_t *details)
{
	struct ev *e = calloc(1, sizeof(*e));
	int full;

	if (e) {
		e->time_ms = time_ms;
		e->type = strdup(type);
		e->message = strdup(message);
		e->details = details ? json_deep_copy(details) : NULL;
	}
	pthread_mutex_lock(&q->mu);
	full = !e || !e->type || !e->message || q->n >= EVQ_MAX;
	if (full) {
		if (!q->dropped++ || !(q->dropped % 1000))
			log_warn("%llu event(s) not stored: %s", (unsigned long long)q->dropped,
				 e && e->type && e->message ? "too many waiting" : "out of memory");
	} else {
		*q->tail = e;
		q->tail = &e->next;
		q->n++;
		pthread_cond_signal(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	if (full && e)
		ev_free(e);
	return full ? -1 : 0;
}
