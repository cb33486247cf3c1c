/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabrouted on every SM node (replication through etcd)
 *
 * Sites run two or three subnet manager nodes; OpenSM elects the master.
 * A fabrouted runs beside each OpenSM and takes its role from it: master
 * while its OpenSM is MASTER (the plugin reports the SM state), standby
 * otherwise. No second election: the roles follow OpenSM's.
 *
 * The master writes into etcd (daemon/etcd.h) what makes its routing what
 * it is: the routing settings (chain, options, policy, repair...), the base
 * (the fabric its chain last routed, with its LIDs, and the routing's
 * digest), and every epoch it publishes (number, digest, kind, and the
 * base's links it lacks). A standby watches those keys and keeps a warm
 * copy: it routes the base itself through its own pipeline (the engines
 * are canonical: the same fabric gives the same tables), repairs it for
 * each epoch's faults, checks every digest against the master's, and
 * publishes the copies under the master's numbers, so every node answers
 * reads. When its OpenSM becomes master, OpenSM's first pass routes with
 * that base: the repair of the base for the same faults, the same bytes.
 *
 * Writes through the API (POST /api/engine, /api/reroute, /api/faults) are
 * the master's: a standby answers 409 naming the master. A settings change
 * is acknowledged only once etcd stored it (a quorum of members): an
 * acknowledged write is never lost. Without etcd the node routes on its
 * own and says so.
 */
#ifndef FABROUTE_DAEMON_HA_H
#define FABROUTE_DAEMON_HA_H

#include <jansson.h>
#include <stdio.h>

#include "daemon/pipeline.h"
#include "svc/epoch.h"

enum ha_role { HA_SINGLE = 0, HA_MASTER, HA_STANDBY };

/**
 * struct ha_opts - where the replication lives
 * @endpoints: etcd members' client URLs ("http://h:p,...")
 * @prefix: the keys' prefix, e.g. "/fabroute/"
 * @node: this node's name; @api_url: its API (in the master key)
 * @timeout_ms: each etcd call's deadline
 * @settings: this node's own routing settings (its configuration)
 */
struct ha_opts {
	const char *endpoints, *prefix, *node, *api_url;
	unsigned timeout_ms;
	struct pipe_settings settings;
};

struct ha;

/** ha_start() - start the replication threads. NULL with @err (bad endpoints, out of memory). */
struct ha *ha_start(const struct ha_opts *o, struct pipeline *p, struct epoch_slot *slot,
		    struct store *st, struct fab_err *err);
void ha_stop(struct ha *h);

/** ha_sm_state() - the local OpenSM's SM state ("MASTER", "STANDBY", ...): the role follows. */
void ha_sm_state(struct ha *h, const char *state);
enum ha_role ha_role(struct ha *h);
const char *ha_role_name(enum ha_role r);

/** ha_published() - the pipeline published @e (the loop's thread): a master replicates it. */
void ha_published(struct ha *h, const struct epoch *e);

/**
 * ha_write_ok() - writes through the API may be served here: 1, or 0 with
 * @why (the status and error code and message for the client) set.
 */
int ha_write_ok(struct ha *h, int *status, char *code, size_t clen, char *why, size_t wlen);

/**
 * ha_settings_put() - a master's new routing settings @s, stored in etcd
 * before the caller acknowledges them. 0, or -1 with @err (no quorum, etcd
 * down: the change must not be applied).
 */
int ha_settings_put(struct ha *h, const struct pipe_settings *s, struct fab_err *err);

/** ha_json() - role, master, replication state and lag, for /api/health and /api/fabric. */
json_t *ha_json(struct ha *h);
/** ha_metrics() - fabroute_role, fabroute_replication_* for /metrics. */
void ha_metrics(FILE *o, struct ha *h);

#endif
