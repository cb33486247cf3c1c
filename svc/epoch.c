/* SPDX-License-Identifier: MIT */
/**
 * DOC: epochs
 *
 * Reference counting under the epoch's own mutex (which also guards the
 * snapshot id, set after publication, and the routing's digest, computed
 * on first use); the slot's mutex is held only long enough to take a
 * reference or swap the pointer.
 */
#include <stdlib.h>
#include <string.h>

#include "svc/epoch.h"

struct epoch *epoch_new(void)
{
	struct epoch *e = calloc(1, sizeof(*e));

	if (e) {
		e->refs = 1;
		pthread_mutex_init(&e->mu, NULL);
		pthread_mutex_init(&e->cache_mu, NULL);
	}
	return e;
}

struct epoch *epoch_ref(struct epoch *e)
{
	if (e) {
		pthread_mutex_lock(&e->mu);
		e->refs++;
		pthread_mutex_unlock(&e->mu);
	}
	return e;
}

void epoch_unref(struct epoch *e)
{
	int last;

	if (!e)
		return;
	pthread_mutex_lock(&e->mu);
	last = --e->refs == 0;
	pthread_mutex_unlock(&e->mu);
	if (!last)
		return;
	an_report_free(&e->report);
	rt_free(e->routing);
	fab_free(e->fabric);
	free(e->engine_log);
	epoch_unref(e->base);
	pthread_mutex_destroy(&e->mu);
	free(e->link_routes);
	if (e->api_cache_free)
		e->api_cache_free(e->api_cache);
	pthread_mutex_destroy(&e->cache_mu);
	free(e);
}

int64_t epoch_snapshot_id(const struct epoch *e)
{
	struct epoch *w = (struct epoch *)e;	/* the lock only: the epoch stays as it is */
	int64_t id;

	pthread_mutex_lock(&w->mu);
	id = e->snapshot_id;
	pthread_mutex_unlock(&w->mu);
	return id;
}

void epoch_set_stored(struct epoch *e, int64_t id)
{
	pthread_mutex_lock(&e->mu);
	e->snapshot_id = id;
	pthread_mutex_unlock(&e->mu);
}

const char *epoch_digest(const struct epoch *e)
{
	struct epoch *w = (struct epoch *)e;	/* a cache: what the epoch holds stays as it is */
	struct fab_err err = { { 0 } };
	char d[RT_DIGEST_HEX];
	int have;

	pthread_mutex_lock(&w->mu);
	have = e->digest[0] != '\0';
	pthread_mutex_unlock(&w->mu);
	if (have)
		return e->digest;	/* written once, never again */
	/* computed without a lock held: two first readers may both compute it, alike */
	if (!e->fabric || !e->routing || rt_digest(e->fabric, e->routing, d, &err))
		return "";
	pthread_mutex_lock(&w->mu);
	if (!e->digest[0])
		memcpy(w->digest, d, sizeof(d));
	pthread_mutex_unlock(&w->mu);
	return e->digest;
}

int epoch_ready(const struct epoch *e)
{
	return e && e->routing && an_connected(&e->report) && e->report.cdg.deadlock_free;
}

void epoch_slot_init(struct epoch_slot *s)
{
	pthread_mutex_init(&s->mu, NULL);
	s->cur = NULL;
}

void epoch_slot_fini(struct epoch_slot *s)
{
	epoch_unref(s->cur);
	s->cur = NULL;
	pthread_mutex_destroy(&s->mu);
}

struct epoch *epoch_slot_get(struct epoch_slot *s)
{
	struct epoch *e;

	pthread_mutex_lock(&s->mu);
	e = epoch_ref(s->cur);
	pthread_mutex_unlock(&s->mu);
	return e;
}

void epoch_slot_publish(struct epoch_slot *s, struct epoch *e)
{
	struct epoch *old;

	pthread_mutex_lock(&s->mu);
	old = s->cur;
	s->cur = e;
	pthread_mutex_unlock(&s->mu);
	epoch_unref(old);
}
