/* SPDX-License-Identifier: MIT */
/*
 * The replication's insides, shared by daemon/ha.c (roles, threads, API)
 * and daemon/ha_sync.c (what is written and how a standby applies it).
 */
#ifndef FABROUTE_DAEMON_HA_IMPL_H
#define FABROUTE_DAEMON_HA_IMPL_H

#include <pthread.h>

#include "daemon/etcd.h"
#include "daemon/ha.h"
#include "store/store.h"

#define HA_LAGS 512
#define HA_LEASE_S 4
#define HA_QUEUED 4

/*
 * struct ha_queued - a key received from etcd, waiting for the applier
 * (the latest value of its key wins)
 * @kv: a copy; @used: held
 * @recv_ms: when it was received (wall clock), 0 when read at the watch's
 *           start (not a change: no lag is measured)
 */
struct ha_queued {
	struct etcd_kv kv;
	int used;
	int64_t recv_ms;
};

struct ha {
	struct ha_opts o;
	char *endpoints, *prefix, *node, *api_url, *chain, *options;	/* @o's strings, owned */
	struct etcd *etcd;
	struct pipeline *p;
	struct epoch_slot *slot;
	struct store *st;
	pthread_t watcher, writer, applier;
	/*
	 * One writer of the settings key at a time: a new master's read of the
	 * replicated settings and its write of them back, and an API write, so
	 * that the first cannot write back a value read before the second.
	 */
	pthread_mutex_t put_mu;
	pthread_mutex_t mu;	/* guards everything below */
	pthread_cond_t cv;	/* wakes the writer */
	pthread_cond_t acv;	/* wakes the applier */
	struct ha_queued queued[HA_QUEUED];	/* received, not applied yet: settings, fabric, base, epoch */
	int quit;
	char sm_state[32];
	enum ha_role role;
	int takeover;		/* became master: announce, check the first pass */
	/* the replication's state */
	int connected;
	char error[256];
	int64_t revision;
	char master_node[64], master_url[128];
	double lags[HA_LAGS];
	double copy_ms;		/* the last base's warm copy: received to routed and checked */
	unsigned nlags;
	/* the master's writes, latest wins */
	struct epoch *pending;	/* to replicate */
	int settings_dirty;
	int64_t lease;
	uint64_t base_put;	/* the base last written */
	char fabric_id[48];	/* the fabric key's content, as last written or received ("": unknown) */
	/* the standby's warm copy */
	struct fabric *base_f;	/* the master's base fabric */
	char *held_zip;		/* the fabric key's value last received (compressed text), its id */
	size_t held_zlen;
	char held_id[48];
	uint64_t base_seq, warm_seq;
	char base_digest[80], warm_digest[80], repl_digest[80];
	uint64_t repl_seq;	/* the master's last epoch seen */
	int diverged;
	char differs[256];	/* routing settings of this node's that differ from the master's */
};

/* ha.c */
void ha_event(struct ha *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ha_is_master(struct ha *h);

/* ha_sync.c: the master's side (the writer thread) */
int ha_put_master(struct ha *h, struct fab_err *err);
int ha_put_settings(struct ha *h, const struct pipe_settings *s, struct fab_err *err);
/*
 * ha_adopt_settings() - on becoming master: the replicated settings (the
 * last ones acknowledged, by whichever master) applied here. 1 when they
 * changed this node's, 0 when they did not or there are none yet, -1 with
 * @err when etcd could not be read.
 */
int ha_adopt_settings(struct ha *h, struct fab_err *err);
int ha_put_epoch(struct ha *h, struct epoch *e, struct fab_err *err);

/*
 * ha_sync.c: the standby's side (the applier thread; "master" in the
 * watcher's): apply one key received at @recv_ms (0: read at the watch's
 * start, no lag measured)
 */
void ha_apply(struct ha *h, const struct etcd_kv *kv, int64_t recv_ms);

#endif
