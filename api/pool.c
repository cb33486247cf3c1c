/* SPDX-License-Identifier: MIT */
/**
 * DOC: HTTP answer pool
 *
 * The threads that compute answers, apart from the threads that read and
 * write connections: a request that takes more than a moment (anything but
 * health, readiness and errors) is suspended in libmicrohttpd, computed
 * here, and resumed with its answer, so a slow or flooded route never
 * holds up the connections' threads, and /api/health and /api/ready are
 * always answered at once.
 *
 * Fairness: every client has a lane, a queue of its own. A client has at
 * most @per_client answers computed at a time (half the threads, at least
 * one), so it can never hold every thread, and at most @queue admitted
 * (waiting, computed, or being sent: that bounds the memory its answers
 * take); one more gets 429 at once. Idle threads take the lanes in turn. Requests that carry the administrator's token go first,
 * in a lane of their own: no client without the token can delay them by
 * more than the answers already being computed.
 */
#include <stdlib.h>
#include <string.h>

#include "api/server_impl.h"

#define PRIO_QUEUE_MAX 64

/*
 * struct api_lane - one client's tasks
 * @admitted: tasks admitted and not released (queued, running, answered
 *            and being sent)
 */
struct api_lane {
	uint64_t key;
	unsigned admitted, running;
	struct api_task *head, *tail;
	struct api_lane *prev, *next;
};

static struct api_lane *lane_find(struct api_pool *p, uint64_t key)
{
	for (struct api_lane *l = p->lanes; l; l = l->next)
		if (l->key == key)
			return l;
	return NULL;
}

/* With @p->mu held: drop @l when it holds nothing. */
static void lane_release(struct api_pool *p, struct api_lane *l)
{
	if (l->admitted || l->head)
		return;
	if (p->cursor == l)
		p->cursor = l->next;
	if (l->prev)
		l->prev->next = l->next;
	else
		p->lanes = l->next;
	if (l->next)
		l->next->prev = l->prev;
	free(l);
}

int api_pool_admit(struct api_pool *p, uint64_t key, int prio)
{
	struct api_lane *l;
	int rc = API_POOL_OK;

	pthread_mutex_lock(&p->mu);
	if (p->stopping) {
		rc = API_POOL_STOPPING;
	} else if (prio) {
		if (p->prio_admitted >= PRIO_QUEUE_MAX)
			rc = API_POOL_BUSY;
		else
			p->prio_admitted++;
	} else if (!(l = lane_find(p, key))) {
		if (!(l = calloc(1, sizeof(*l)))) {
			rc = API_POOL_BUSY;
		} else {
			l->key = key;
			l->admitted = 1;
			l->next = p->lanes;
			if (p->lanes)
				p->lanes->prev = l;
			p->lanes = l;
		}
	} else if (l->admitted >= p->queue) {
		rc = API_POOL_BUSY;
	} else {
		l->admitted++;
	}
	pthread_mutex_unlock(&p->mu);
	return rc;
}

void api_pool_push(struct api_pool *p, struct api_task *t)
{
	struct api_lane *l = NULL;
	int queued = 0;

	t->next = NULL;
	t->cancelled = 0;
	pthread_mutex_lock(&p->mu);
	if (!p->stopping && t->prio) {
		if (p->prio_tail)
			p->prio_tail->next = t;
		else
			p->prio_head = t;
		p->prio_tail = t;
		queued = 1;
	} else if (!p->stopping && (l = lane_find(p, t->key))) {
		if (l->tail)
			l->tail->next = t;
		else
			l->head = t;
		l->tail = t;
		queued = 1;
	}
	if (queued)
		pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (!queued) {
		t->cancelled = 1;
		t->done(t);
	}
}

/* With @p->mu held: the next task to compute, or NULL. */
static struct api_task *take(struct api_pool *p)
{
	struct api_task *t = p->prio_head;
	struct api_lane *start, *l;

	if (t) {
		if (!(p->prio_head = t->next))
			p->prio_tail = NULL;
		return t;
	}
	start = p->cursor ? p->cursor : p->lanes;
	l = start;
	while (l) {
		if (l->head && l->running < p->per_client) {
			t = l->head;
			if (!(l->head = t->next))
				l->tail = NULL;
			l->running++;
			p->cursor = l->next;	/* the next lane goes first next time */
			return t;
		}
		l = l->next ? l->next : p->lanes;
		if (l == start)
			break;
	}
	return NULL;
}

/* With @p->mu held: @t is computed. */
static void finish(struct api_pool *p, struct api_task *t)
{
	struct api_lane *l = t->prio ? NULL : lane_find(p, t->key);

	if (l)
		l->running--;
}

void api_pool_release(struct api_pool *p, uint64_t key, int prio)
{
	struct api_lane *l;

	pthread_mutex_lock(&p->mu);
	if (prio) {
		p->prio_admitted--;
	} else if ((l = lane_find(p, key))) {
		l->admitted--;
		lane_release(p, l);
	}
	pthread_mutex_unlock(&p->mu);
}

static void *worker(void *arg)
{
	struct api_pool *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct api_task *t = take(p);

		if (!t) {
			if (p->stopping)
				break;
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		pthread_mutex_unlock(&p->mu);
		t->run(t);
		pthread_mutex_lock(&p->mu);
		finish(p, t);
		pthread_cond_broadcast(&p->cv);	/* a lane may take a thread again */
		pthread_mutex_unlock(&p->mu);
		t->done(t);	/* @t may be gone after this */
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int api_pool_start(struct api_pool *p, unsigned threads, unsigned queue)
{
	memset(p, 0, sizeof(*p));
	p->per_client = threads / 2 ? threads / 2 : 1;
	p->queue = queue ? queue : 1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (!(p->th = calloc(threads, sizeof(*p->th)))) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		return -1;
	}
	for (p->nth = 0; p->nth < threads; p->nth++)
		if (pthread_create(&p->th[p->nth], NULL, worker, p)) {
			api_pool_stop(p);
			api_pool_free(p);
			return -1;
		}
	return 0;
}

/* With @p->mu held: take every queued task out (to cancel them). */
static struct api_task *drain(struct api_pool *p)
{
	struct api_task *all = p->prio_head, **end = &all;

	p->prio_head = p->prio_tail = NULL;
	while (*end)
		end = &(*end)->next;
	for (struct api_lane *l = p->lanes; l; l = l->next) {
		*end = l->head;
		while (*end)
			end = &(*end)->next;
		l->head = l->tail = NULL;
	}
	return all;
}

void api_pool_stop(struct api_pool *p)
{
	struct api_task *t;

	if (!p->th)
		return;
	pthread_mutex_lock(&p->mu);
	p->stopping = 1;
	t = drain(p);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	while (t) {	/* answered "stopping" by their done() */
		struct api_task *next = t->next;

		t->cancelled = 1;
		t->done(t);
		t = next;
	}
	for (unsigned i = 0; i < p->nth; i++)
		pthread_join(p->th[i], NULL);
	free(p->th);
	p->th = NULL;
}

void api_pool_free(struct api_pool *p)
{
	while (p->lanes) {
		struct api_lane *l = p->lanes;

		p->lanes = l->next;
		free(l);
	}
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
}
