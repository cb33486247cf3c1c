/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabrouted on every SM node - roles and threads
 *
 * Three threads. The watcher reads every key under the prefix, then
 * streams the changes from the next revision; every node learns at once who
 * the master is. The other keys go to the applier, which on a standby
 * applies them (ha_sync.c) in the order settings, base, epoch, whatever
 * etcd's order: routing a warm copy never holds up the watch, and the latest
 * value of a key replaces one not applied yet, so a standby that fell behind
 * routes only the newest. When etcd cannot be reached the watcher says so
 * and tries again every second. The writer, on a master, keeps the master key's
 * lease alive and writes what the pipeline published, the latest first.
 * The role follows the SM state the plugin reports.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/server.h"
#include "daemon/ha_impl.h"
#include "daemon/loop.h"
#include "svc/log.h"

static const char *const role_names[] = { "single", "master", "standby" };

const char *ha_role_name(enum ha_role r)
{
	return r <= HA_STANDBY ? role_names[r] : "?";
}

void ha_event(struct ha *h, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_notice("replication: %s", msg);
	pipe_event(h->st, "daemon", NULL, "replication: %s", msg);
}

int ha_is_master(struct ha *h)
{
	int m;

	pthread_mutex_lock(&h->mu);
	m = h->role == HA_MASTER;
	pthread_mutex_unlock(&h->mu);
	return m;
}

enum ha_role ha_role(struct ha *h)
{
	enum ha_role r;

	pthread_mutex_lock(&h->mu);
	r = h->role;
	pthread_mutex_unlock(&h->mu);
	return r;
}

/* etcd answers (@up) or not (@why): a change is logged and stored as an event. */
static void set_connected(struct ha *h, int up, const char *why)
{
	int was;

	pthread_mutex_lock(&h->mu);
	was = h->connected;
	h->connected = up;
	snprintf(h->error, sizeof(h->error), "%.*s", (int)sizeof(h->error) - 1, up ? "" : why);
	pthread_mutex_unlock(&h->mu);
	if (was && !up)
		ha_event(h, "etcd unreachable (%s): this node routes on its own, its copy may be stale, "
			 "routing settings cannot be changed", why);
	else if (!was && up)
		ha_event(h, "connected to etcd");
}

void ha_sm_state(struct ha *h, const char *state)
{
	enum ha_role r = strcmp(state, "MASTER") ? HA_STANDBY : HA_MASTER, was;

	pthread_mutex_lock(&h->mu);
	was = h->role;
	snprintf(h->sm_state, sizeof(h->sm_state), "%s", state);
	h->role = r;
	if (r == HA_MASTER && was != HA_MASTER) {
		h->takeover = 1;
		h->settings_dirty = 1;
	}
	if (r != HA_MASTER)
		h->lease = 0;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
	if (r != was)
		ha_event(h, "OpenSM here is %s: this node is %s", state, ha_role_name(r));
}

/* --- the watcher and the applier -------------------------------------------------------- */

/* The keys the applier takes, in the order it applies them. */
static const char *const queued_keys[HA_QUEUED] = { "settings", "fabric", "base", "epoch" };

static void queued_free(struct ha_queued *q)
{
	free(q->kv.key);
	free(q->kv.val);
	memset(q, 0, sizeof(*q));
}

/*
 * @kv, received at @recv_ms: "master" applied at once (it names the master,
 * nothing to compute), the others handed to the applier, so that a warm
 * copy being routed never holds up the watch (the latest value of a key
 * replaces one not applied yet).
 */
static void receive(struct ha *h, const struct etcd_kv *kv, int64_t recv_ms)
{
	const char *name = kv->key + strlen(h->prefix);
	struct ha_queued q = { .kv = *kv, .used = 1, .recv_ms = recv_ms };
	unsigned k = 0;

	if (!strcmp(name, "master")) {
		ha_apply(h, kv, recv_ms);
		return;
	}
	while (k < HA_QUEUED && strcmp(name, queued_keys[k]))
		k++;
	if (k == HA_QUEUED)
		return;
	q.kv.key = strdup(kv->key);
	q.kv.val = malloc(kv->len + 1);
	if (!q.kv.key || !q.kv.val) {
		queued_free(&q);
		ha_event(h, "out of memory: the replicated %s is not applied", name);
		return;
	}
	memcpy(q.kv.val, kv->val, kv->len + 1);
	pthread_mutex_lock(&h->mu);
	queued_free(&h->queued[k]);
	h->queued[k] = q;
	pthread_cond_signal(&h->acv);
	pthread_mutex_unlock(&h->mu);
}

static int on_kv(void *ud, const struct etcd_kv *kv)
{
	struct ha *h = ud;

	pthread_mutex_lock(&h->mu);
	h->revision = kv->mod_revision;
	pthread_mutex_unlock(&h->mu);
	receive(h, kv, loop_wall_ms());
	return 0;
}

/* Receive what is there: the master first, then settings, the fabric, the base and the epoch. */
static void receive_all(struct ha *h, const struct etcd_kv *kvs, size_t n)
{
	static const char *const order[] = { "master", "settings", "fabric", "base", "epoch" };

	for (unsigned k = 0; k < 5; k++)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(kvs[i].key + strlen(h->prefix), order[k]))
				receive(h, &kvs[i], 0);
}

/* Apply what was received, key by key in queued_keys' order, until told to quit. */
static void *applier_main(void *arg)
{
	struct ha *h = arg;

	pthread_mutex_lock(&h->mu);
	while (!h->quit) {
		unsigned k = 0;

		while (k < HA_QUEUED && !h->queued[k].used)
			k++;
		if (k == HA_QUEUED) {
			pthread_cond_wait(&h->acv, &h->mu);
			continue;
		}
		struct ha_queued q = h->queued[k];

		memset(&h->queued[k], 0, sizeof(h->queued[k]));
		pthread_mutex_unlock(&h->mu);
		ha_apply(h, &q.kv, q.recv_ms);
		queued_free(&q);
		pthread_mutex_lock(&h->mu);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

static void *watcher_main(void *arg)
{
	struct ha *h = arg;

	while (!h->quit) {
		struct fab_err err = { { 0 } };
		struct etcd_kv *kvs;
		size_t n;
		int64_t rev;

		if (etcd_get(h->etcd, h->prefix, 1, &kvs, &n, &rev, &err)) {
			set_connected(h, 0, err.msg);
			sleep(1);
			continue;
		}
		set_connected(h, 1, "");
		pthread_mutex_lock(&h->mu);
		h->revision = rev;
		pthread_mutex_unlock(&h->mu);
		receive_all(h, kvs, n);
		etcd_kvs_free(kvs, n);
		if (etcd_watch(h->etcd, h->prefix, rev + 1, on_kv, h, &h->quit, &err) && !h->quit) {
			set_connected(h, 0, err.msg);
			sleep(1);
		}
	}
	return NULL;
}

/* --- the writer (a master) ---------------------------------------------------------------- */

/*
 * Announce a takeover and write the settings in force; with @mu held on
 * entry and exit. The replicated settings are adopted first: a node that
 * comes back and is handed the mastership at once (before its watch applied
 * them) would otherwise write its own older ones over what the cluster
 * acknowledged since; a change asks its OpenSM for a pass under them.
 */
static int become_master(struct ha *h)
{
	struct pipe_settings s;
	struct fab_err err = { { 0 } };
	int ok, adopted;

	h->takeover = 0;
	h->settings_dirty = 0;
	pthread_mutex_unlock(&h->mu);
	pthread_mutex_lock(&h->put_mu);
	if ((adopted = ha_adopt_settings(h, &err)) < 0) {
		ok = 0;
	} else if (pipe_settings_get(h->p, &s)) {
		fab_err_set(&err, "out of memory");
		ok = 0;
	} else {
		ok = !ha_put_master(h, &err) && !ha_put_settings(h, &s, &err);
		free((char *)s.chain);
		free((char *)s.options);
	}
	pthread_mutex_unlock(&h->put_mu);
	if (adopted > 0) {
		ha_event(h, "master: the replicated routing settings are in force here (they differed)");
		pipe_ask(h->p, "engine");
	}
	if (!ok)
		ha_event(h, "master, but the replication did not take it (%s); writing again", err.msg);
	pthread_mutex_lock(&h->mu);
	h->settings_dirty = !ok;
	h->lease = ok ? h->lease : 0;
	if (ok && !h->pending)	/* what this node published before it was master */
		h->pending = epoch_slot_get(h->slot);
	return ok ? 0 : -1;
}

/* Write the pending epoch; with @mu held on entry and exit. 0, or -1 when it was not written. */
static int write_pending(struct ha *h)
{
	struct epoch *e = h->pending;
	struct fab_err err = { { 0 } };
	int rc;

	h->pending = NULL;
	pthread_mutex_unlock(&h->mu);
	rc = ha_put_epoch(h, e, &err) ? -1 : 0;
	if (rc)
		ha_event(h, "epoch %llu not replicated: %s", (unsigned long long)e->seq, err.msg);
	pthread_mutex_lock(&h->mu);
	if (rc && !h->pending)
		h->pending = epoch_ref(e);	/* again, unless a newer one came */
	epoch_unref(e);
	return rc;
}

/* Renew the master key's lease; with @mu held on entry and exit. */
static void keep_lease(struct ha *h)
{
	int64_t id = h->lease;
	struct fab_err err;

	pthread_mutex_unlock(&h->mu);
	if (etcd_lease_keepalive(h->etcd, id, &err)) {
		pthread_mutex_lock(&h->mu);
		h->lease = 0;
		h->settings_dirty = 1;	/* the master key again, with a new lease */
	} else {
		pthread_mutex_lock(&h->mu);
	}
}

/*
 * The master's writes. It waits (1 s, or until signalled) unless it has work
 * it can do now: a write that failed is tried again a second later, not at
 * once; a node that is no longer master drops what it had not written (the
 * new master writes its own), so that nothing is left to spin on with @mu held.
 */
static void *writer_main(void *arg)
{
	struct ha *h = arg;

	pthread_mutex_lock(&h->mu);
	while (!h->quit) {
		struct timespec ts;
		int failed = 0;

		if (h->role == HA_MASTER && (h->takeover || h->settings_dirty))
			failed |= become_master(h);
		if (h->role == HA_MASTER && h->pending)
			failed |= write_pending(h);
		if (h->role == HA_MASTER && h->lease > 0)
			keep_lease(h);
		if (h->role != HA_MASTER) {
			epoch_unref(h->pending);
			h->pending = NULL;
			h->takeover = 0;
		}
		if (h->quit || (!failed && (h->pending || h->takeover)))
			continue;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&h->cv, &h->mu, &ts);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

void ha_published(struct ha *h, const struct epoch *e)
{
	if (!e || !strcmp(e->kind, "fallback"))
		return;	/* OpenSM's own engine's tables: no standby can compute them */
	pthread_mutex_lock(&h->mu);
	if (h->role == HA_MASTER) {
		epoch_unref(h->pending);
		h->pending = epoch_ref((struct epoch *)e);
		pthread_cond_signal(&h->cv);
	}
	pthread_mutex_unlock(&h->mu);
}

int ha_settings_put(struct ha *h, const struct pipe_settings *s, struct fab_err *err)
{
	int rc;

	if (!ha_is_master(h))
		return 0;
	pthread_mutex_lock(&h->put_mu);
	rc = ha_put_settings(h, s, err);
	pthread_mutex_unlock(&h->put_mu);
	return rc;
}

/* --- the API ---------------------------------------------------------------------------- */

int ha_write_ok(struct ha *h, int *status, char *code, size_t clen, char *why, size_t wlen)
{
	int ok;

	pthread_mutex_lock(&h->mu);
	ok = h->role != HA_STANDBY;
	if (!ok) {
		*status = 409;
		snprintf(code, clen, "not_master");
		snprintf(why, wlen, "this node is a standby; the master is %s%s%s%s",
			 h->master_node[0] ? h->master_node : "not known",
			 h->master_url[0] ? " (" : "", h->master_url, h->master_url[0] ? ")" : "");
	}
	pthread_mutex_unlock(&h->mu);
	return ok;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The lag's percentile @q (0..1) over the last HA_LAGS; with @mu held. -1 when none. */
static double lag_q(const struct ha *h, double q)
{
	unsigned n = h->nlags < HA_LAGS ? h->nlags : HA_LAGS;
	double v[HA_LAGS];

	if (!n)
		return -1;
	memcpy(v, h->lags, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	return v[(unsigned)(q * (n - 1) + 0.5)];
}

json_t *ha_json(struct ha *h)
{
	json_t *j;

	pthread_mutex_lock(&h->mu);
	j = json_pack("{s:s, s:s, s:s, s:b, s:{s:s, s:s}, s:{s:s, s:s, s:I, s:f, s:f, s:s}, "
		      "s:{s:I, s:s, s:f, s:I, s:s, s:b}}",
		      "role", ha_role_name(h->role), "sm_state", h->sm_state, "node", h->node,
		      "stale", !h->connected,
		      "master", "node", h->master_node, "url", h->master_url,
		      "replication", "state", h->connected ? "connected" : "unreachable",
		      "error", h->error, "revision", (json_int_t)h->revision,
		      "lag_ms_p50", lag_q(h, 0.5), "lag_ms_p99", lag_q(h, 0.99),
		      "config_differs", h->differs,
		      "warm", "seq", (json_int_t)h->warm_seq, "digest", h->warm_digest, "copy_ms", h->copy_ms,
		      "master_seq", (json_int_t)h->repl_seq, "master_digest", h->repl_digest,
		      "diverged", h->diverged);
	pthread_mutex_unlock(&h->mu);
	return j;
}

void ha_metrics(FILE *o, struct ha *h)
{
	pthread_mutex_lock(&h->mu);
	fprintf(o, "# HELP fabroute_role This node's role (1 for the one it has): master while its "
		"OpenSM is master, standby otherwise, single without replication.\n"
		"# TYPE fabroute_role gauge\n");
	for (unsigned r = HA_SINGLE; r <= HA_STANDBY; r++)
		fprintf(o, "fabroute_role{role=\"%s\"} %d\n", role_names[r], h->role == r);
	api_metric(o, "gauge", "fabroute_replication_connected", "1 while etcd answers.",
		   h->connected);
	api_metric(o, "gauge", "fabroute_replication_lag_seconds",
		   "The master's last write to this standby's receipt, the 99th percentile of the last "
		   "512 (-1 before any).", lag_q(h, 0.99) < 0 ? -1 : lag_q(h, 0.99) / 1e3);
	api_metric(o, "gauge", "fabroute_replication_diverged",
		   "1 when this standby's copy of the master's epoch has another digest.", h->diverged);
	pthread_mutex_unlock(&h->mu);
}

/* --- life cycle ------------------------------------------------------------------------- */

static char *dup_or(const char *s)
{
	return strdup(s ? s : "");
}

struct ha *ha_start(const struct ha_opts *o, struct pipeline *p, struct epoch_slot *slot,
		    struct store *st, struct fab_err *err)
{
	struct ha *h = calloc(1, sizeof(*h));

	if (!h || !(h->etcd = etcd_new(o->endpoints, o->timeout_ms, err))) {
		if (h)
			free(h);
		else
			fab_err_set(err, "out of memory");
		return NULL;
	}
	h->o = *o;
	h->prefix = dup_or(o->prefix);
	h->node = dup_or(o->node);
	h->api_url = dup_or(o->api_url);
	h->chain = dup_or(o->settings.chain);
	h->options = dup_or(o->settings.options);
	h->o.settings.chain = h->chain;
	h->o.settings.options = h->options;
	h->p = p;
	h->slot = slot;
	h->st = st;
	h->role = HA_STANDBY;	/* until OpenSM says it is master */
	snprintf(h->sm_state, sizeof(h->sm_state), "unknown");
	pthread_mutex_init(&h->put_mu, NULL);
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	pthread_cond_init(&h->acv, NULL);
	if (pthread_create(&h->applier, NULL, applier_main, h) ||
	    pthread_create(&h->watcher, NULL, watcher_main, h) ||
	    pthread_create(&h->writer, NULL, writer_main, h)) {
		fab_err_set(err, "cannot start the replication's threads");
		ha_stop(h);	/* joins the threads that started */
		return NULL;
	}
	return h;
}

void ha_stop(struct ha *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->quit = 1;
	pthread_cond_signal(&h->cv);
	pthread_cond_signal(&h->acv);
	pthread_mutex_unlock(&h->mu);
	if (h->watcher)
		pthread_join(h->watcher, NULL);
	if (h->writer)
		pthread_join(h->writer, NULL);
	if (h->applier)
		pthread_join(h->applier, NULL);
	for (unsigned k = 0; k < HA_QUEUED; k++)
		queued_free(&h->queued[k]);
	epoch_unref(h->pending);
	fab_free(h->base_f);
	free(h->held_zip);
	etcd_free(h->etcd);
	pthread_mutex_destroy(&h->mu);
	pthread_mutex_destroy(&h->put_mu);
	pthread_cond_destroy(&h->cv);
	pthread_cond_destroy(&h->acv);
	free(h->prefix);
	free(h->node);
	free(h->api_url);
	free(h->chain);
	free(h->options);
	free(h);
}
