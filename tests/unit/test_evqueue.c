/* SPDX-License-Identifier: MIT */
/*
 * daemon/evqueue.c with a real store: events queued from two threads are
 * all stored once the queue stops, each thread's in the order it queued
 * them, with their times, types, messages and details as they were when
 * queued (the caller may change or free its details at once).
 */
#include <pthread.h>

#include "tests/unit/store_tu.h"

#include "daemon/evqueue.h"

#define PER_THREAD 100

struct producer {
	struct evq *q;
	char who;
};

static void *produce(void *arg)
{
	struct producer *p = arg;

	for (int i = 0; i < PER_THREAD; i++) {
		char msg[32];
		json_t *d = json_pack("{s:i}", "i", i);

		snprintf(msg, sizeof(msg), "%c%d", p->who, i);
		assert_int_equal(evq_add(p->q, 1000 + i, p->who == 'a' ? "trap" : "opensm", msg, d), 0);
		json_object_set_new(d, "i", json_integer(-1));	/* changed after: not what is stored */
		json_decref(d);
	}
	return NULL;
}

static void test_stored_in_order(void **state)
{
	const struct tmp *t = *state;
	struct store *s = open_ok(t);
	struct fab_err err = { { 0 } };
	struct evq *q = evq_start(s, &err);
	struct producer a = { q, 'a' }, b = { q, 'b' };
	pthread_t ta, tb;
	char sql[256], want[64];

	assert_non_null(q);
	assert_int_equal(pthread_create(&ta, NULL, produce, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, produce, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	evq_stop(q);	/* stores what still waits */
	assert_int_equal(raw_int(t->db, "SELECT count(*) FROM events"), 2 * PER_THREAD);
	for (char who = 'a'; who <= 'b'; who++) {	/* each thread's events in its order */
		long long prev = 0;

		for (int i = 0; i < PER_THREAD; i++) {
			long long id;

			snprintf(sql, sizeof(sql), "SELECT id FROM events WHERE message = '%c%d'", who, i);
			id = raw_int(t->db, sql);
			assert_true(id > prev);
			prev = id;
			snprintf(sql, sizeof(sql),
				 "SELECT time_ms || ' ' || type || ' ' || details FROM events "
				 "WHERE id = %lld", id);
			snprintf(want, sizeof(want), "%d %s ", 1000 + i, who == 'a' ? "trap" : "opensm");
			assert_non_null(strstr(raw_text(t->db, sql), want));
			snprintf(sql, sizeof(sql), "SELECT json_extract(details, '$.i') FROM events "
				 "WHERE id = %lld", id);
			assert_int_equal(raw_int(t->db, sql), i);
		}
	}
	store_close(s);
}

static void test_stop_empty(void **state)
{
	const struct tmp *t = *state;
	struct store *s = open_ok(t);
	struct fab_err err = { { 0 } };
	struct evq *q = evq_start(s, &err);

	assert_non_null(q);
	evq_stop(q);
	evq_stop(NULL);
	assert_int_equal(raw_int(t->db, "SELECT count(*) FROM events"), 0);
	store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stored_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_empty, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
