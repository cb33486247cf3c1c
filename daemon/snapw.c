/* SPDX-License-Identifier: MIT */
/**
 * DOC: snapshots stored by a thread of their own
 *
 * One slot under a mutex: snapw_put() fills it when it is empty, the thread
 * empties it once the epoch is stored; both wait on one condition.
 *
 * Storing an epoch is long at scale (at 43,904 CAs its digest, compressing
 * 187 MB of tables and encoding the topology: 0.5-2.5 s of a core) and
 * nothing waits for it but the next snapw_put(), so the thread runs at a
 * lower priority (SNAPW_NICE): a reroute that comes meanwhile, and its
 * proof's second thread, have the cores first.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "daemon/loop.h"
#include "daemon/pipeline.h"
#include "daemon/snapw.h"
#include "svc/log.h"

struct snapw {
	struct store *st;
	pthread_t th;
	pthread_mutex_t mu;	/* guards what follows */
	pthread_cond_t cv;	/* the slot filled or emptied, or quit */
	struct snapw_item slot;	/* .e NULL: empty */
	int quit;
};

static void item_free(struct snapw_item *it)
{
	epoch_unref(it->e);
	json_decref(it->summary);
	free(it->key);
	memset(it, 0, sizeof(*it));
}

/* Store @it's epoch, the routing inputs with it, then prune. */
static void store_one(struct snapw *w, const struct snapw_item *it)
{
	struct epoch *e = it->e;
	struct store_snap_in in = {
		.seq = e->seq, .time_ms = e->published_ms, .reason = e->reason, .chain = e->chain,
		.engine = e->engine, .compute_ms = e->compute_ms, .eval_ms = e->eval_ms,
		.summary = it->summary, .f = e->fabric, .r = e->routing, .digest = epoch_digest(e),
	};
	struct fab_err err = { { 0 } };
	double t0 = loop_now_fms();
	int64_t id = store_snapshot_add(w->st, &in, &err);

	if (id < 0) {
		log_err("epoch %llu not stored: %s", (unsigned long long)e->seq, err.msg);
		pipe_event(w->st, "error", NULL, "epoch %llu not stored: %s", (unsigned long long)e->seq,
			   err.msg);
	} else {
		epoch_set_stored(e, id);
		log_info("epoch %llu stored as snapshot %lld in %.1f ms, %lld ms after its publication",
			 (unsigned long long)e->seq, (long long)id, loop_now_fms() - t0,
			 (long long)(loop_wall_ms() - e->published_ms));
		if (!it->key || store_setting_set(w->st, "routing_key", it->key, &err))
			log_err("%s", it->key ? err.msg : "out of memory");
	}
	if (store_prune(w->st, it->keep, it->max_age_ms, loop_wall_ms(), &err) < 0)
		log_err("%s", err.msg);
}

/* How much nicer than the daemon the thread is. */
#define SNAPW_NICE 10

/* This thread at SNAPW_NICE below the daemon's priority (best effort: logged when refused). */
static void lower_priority(void)
{
	id_t tid = (id_t)gettid();
	int now, want;

	errno = 0;
	now = getpriority(PRIO_PROCESS, tid);
	if (errno)
		return;
	want = now + SNAPW_NICE > 19 ? 19 : now + SNAPW_NICE;
	if (want != now && setpriority(PRIO_PROCESS, tid, want))
		log_info("the snapshot writer keeps the daemon's priority: %s", strerror(errno));
}

static void *snapw_main(void *arg)
{
	struct snapw *w = arg;

	pthread_setname_np(pthread_self(), "fr-snapshots");	/* for top -H, ps -L */
	lower_priority();

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->quit && !w->slot.e)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->slot.e)
			break;	/* quit, and nothing left */
		pthread_mutex_unlock(&w->mu);
		store_one(w, &w->slot);	/* the slot stays full meanwhile: snapw_put() waits */
		pthread_mutex_lock(&w->mu);
		item_free(&w->slot);
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct snapw *snapw_start(struct store *st, struct fab_err *err)
{
	struct snapw *w = calloc(1, sizeof(*w));

	if (!w) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	w->st = st;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->th, NULL, snapw_main, w)) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		free(w);
		fab_err_set(err, "cannot start the thread that stores snapshots");
		return NULL;
	}
	return w;
}

void snapw_stop(struct snapw *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->quit = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
}

void snapw_put(struct snapw *w, struct snapw_item *it)
{
	pthread_mutex_lock(&w->mu);
	while (w->slot.e)
		pthread_cond_wait(&w->cv, &w->mu);
	w->slot = *it;
	memset(it, 0, sizeof(*it));
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void snapw_wait(struct snapw *w)
{
	pthread_mutex_lock(&w->mu);
	while (w->slot.e)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

int snapw_busy(struct snapw *w)
{
	int busy;

	pthread_mutex_lock(&w->mu);
	busy = w->slot.e != NULL;
	pthread_mutex_unlock(&w->mu);
	return busy;
}
