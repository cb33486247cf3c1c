/* SPDX-License-Identifier: MIT */
/**
 * DOC: epochs
 *
 * Reference counting with GCC atomics; the slot's mutex is held only long
 * enough to take a reference or swap the pointer.
 */
#include <stdlib.h>

#include "svc/epoch.h"

struct epoch *epoch_new(void)
{
	struct epoch *e = calloc(1, sizeof(*e));

	if (e) {
		e->refs = 1;
		pthread_mutex_init(&e->cache_mu, NULL);
	}
	return e;
}

struct epoch *epoch_ref(struct epoch *e)
{
	if (e)
		__atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
	return e;
}

void epoch_unref(struct epoch *e)
{
	if (!e || __atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	an_report_free(&e->report);
	rt_free(e->routing);
	fab_free(e->fabric);
	free(e->engine_log);
	free(e->link_routes);
	pthread_mutex_destroy(&e->cache_mu);
	free(e);
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
