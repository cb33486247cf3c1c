/* SPDX-License-Identifier: MIT */
/**
 * DOC: OpenSM source
 *
 * fabrouted as OpenSM's routing engine: it listens on a unix socket for
 * the fabroute-osm plugin (doc/osm-protocol.md). A "route" connection
 * brings the subnet OpenSM discovered; it is routed at once through the
 * pipeline (OpenSM's LIDs kept), published, stored, and the LFTs go back.
 * A "control" connection brings OpenSM's events (stored as events) and
 * carries sweep requests the other way.
 */
#ifndef FABROUTE_DAEMON_SOURCE_OSM_H
#define FABROUTE_DAEMON_SOURCE_OSM_H

#include <jansson.h>

#include "daemon/pipeline.h"
#include "store/store.h"

struct srco;

/**
 * srco_open() - listen on @path (a stale socket file is replaced); NULL with @err.
 * @on_event: called (from a connection thread) with each OpenSM event's name
 */
struct srco *srco_open(const char *path, struct pipeline *p, struct store *st,
		       void (*on_event)(void *ud, const char *event), void *ud, struct fab_err *err);
/** srco_free() - close every connection, stop the threads, remove the socket file. */
void srco_free(struct srco *s);

/** srco_sweep() - ask OpenSM for a sweep (@heavy) or a reroute; -1 with @err when no plugin is connected. */
int srco_sweep(struct srco *s, int heavy, struct fab_err *err);

/** srco_status() - {"type": "opensm", "socket", "route_connections", "control_connections", "routings", "failures"} */
json_t *srco_status(struct srco *s);

/**
 * srco_subnet_fabric() - the fabric described by a "route" message's
 * "subnet" (with its LIDs); NULL with @err naming what is wrong.
 */
struct fabric *srco_subnet_fabric(const json_t *subnet, struct fab_err *err);

#endif
