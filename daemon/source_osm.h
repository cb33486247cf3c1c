/* SPDX-License-Identifier: MIT */
/**
 * DOC: OpenSM source
 *
 * fabrouted as OpenSM's routing engine: it listens on a unix socket for
 * the fabroute-osm plugin (doc/osm-protocol.md). A "route" connection
 * brings the subnet OpenSM discovered; it is routed at once through the
 * pipeline (OpenSM's LIDs kept), published, stored, and the LFTs, SL2VL
 * tables and path SLs go back. A "control" connection brings OpenSM's
 * events (stored as events; the plugin's "pass_result" of each routing pass
 * is also counted) and carries sweep requests the other way.
 */
#ifndef FABROUTE_DAEMON_SOURCE_OSM_H
#define FABROUTE_DAEMON_SOURCE_OSM_H

#include <jansson.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "svc/epoch.h"
#include "daemon/pipeline.h"
#include "store/store.h"

struct srco;

/**
 * srco_open() - listen on @path (a stale socket file is replaced); NULL with @err.
 * @plugin_uid: the user OpenSM runs as: only it and fabrouted's own user
 *              may connect
 * @on_event: called (from a connection thread) with each OpenSM event's name
 *            and message (doc/osm-protocol.md), a trap before it is stored
 */
struct srco *srco_open(const char *path, uid_t plugin_uid, struct pipeline *p, struct store *st,
		       void (*on_event)(void *ud, const char *event, const json_t *msg), void *ud, struct fab_err *err);
/**
 * srco_set_names() - name the nodes of the fabrics OpenSM sends by the
 * node-name-map @path (NULL or "": none), from the next routing request on.
 * Return: 0, or -1 with @err (the names in force stay).
 */
int srco_set_names(struct srco *s, const char *path, struct fab_err *err);
/** srco_free() - close every connection, stop the threads, remove the socket file. */
void srco_free(struct srco *s);

/** srco_sweep() - ask OpenSM for a sweep (@heavy) or a reroute; -1 with @err when no plugin is connected. */
int srco_sweep(struct srco *s, int heavy, struct fab_err *err);

/**
 * srco_status() - {"type": "opensm", "socket", "route_connections",
 * "control_connections", "routings", "failures", "passes": {"routed",
 * "fallback", "timeout", "error"}}
 */
json_t *srco_status(struct srco *s);

/** enum srco_pass - how an OpenSM routing pass ended, as the plugin reports it */
enum srco_pass {
	SRCO_PASS_ROUTED,	/* fabrouted's tables installed */
	SRCO_PASS_FALLBACK,	/* fabrouted erred or the plugin refused the answer: OpenSM's next engine */
	SRCO_PASS_TIMEOUT,	/* no answer by the plugin's deadline: OpenSM's next engine */
	SRCO_PASS_ERROR,	/* no daemon, a broken connection or a protocol error: OpenSM's next engine */
	SRCO_PASS_N
};

/** srco_pass_name() - "routed", "fallback", "timeout", "error". */
const char *srco_pass_name(enum srco_pass p);

/**
 * struct srco_stats - the OpenSM source's figures for /metrics
 * @connected: a plugin connection (route or control) has said hello and is open
 * @passes: routing passes reported by the plugin, by enum srco_pass
 * @refused: connections of users other than OpenSM's and fabrouted's
 * @changes: route requests whose topology differs from the one before
 */
struct srco_stats {
	int connected;
	uint64_t passes[SRCO_PASS_N];
	uint64_t refused;	/* connections of other users closed at once */
	uint64_t changes;
};

/** srco_stats() - fill @out (thread-safe). */
void srco_stats(struct srco *s, struct srco_stats *out);

/**
 * srco_subnet_fabric() - the fabric a "route" message describes (with its LIDs)
 * @subnet: the message's "subnet": sm_port_guid and the record counts
 * @pay: the message's payload, the node, port and link records
 * @len: its length, which must be exactly what the counts take
 * @err: names what is wrong (the section and record index)
 *
 * Return: the fabric, or NULL with @err.
 */
struct fabric *srco_subnet_fabric(const json_t *subnet, const uint8_t *pay, size_t len, struct fab_err *err);

/** srco_vls_count() - data VLs of an OperVLs/VLCap encoding (1 VL0 .. 5 VL0-14; others 1). */
unsigned srco_vls_count(unsigned enc);

/**
 * struct srco_answer - a "routing" answer ready to send
 * @msg: the header
 * @iov: the payload: the epoch's LFTs (a part per run of rows that lie
 *       next to each other: one for a routing made afresh), then @extra
 * @niov: parts of @iov
 * @extra: the SL2VL and path-SL sections
 * @epoch: the epoch whose LFTs @iov points into (a reference)
 */
struct srco_answer {
	json_t *msg;
	struct iovec *iov;
	int niov;
	uint8_t *extra;
	struct epoch *epoch;
};

/**
 * srco_routing_answer() - encode epoch @e's routing as the answer to
 * request @id (doc/osm-protocol.md, "routing")
 * Return: 0, or -1 with @err (out of memory); @a is empty then.
 */
int srco_routing_answer(struct epoch *e, const json_t *id, struct srco_answer *a, struct fab_err *err);
/** srco_answer_free() - release what @a holds. */
void srco_answer_free(struct srco_answer *a);

#endif
