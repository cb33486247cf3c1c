/* SPDX-License-Identifier: MIT */
/**
 * DOC: API queries, private helpers
 *
 * What the query files share (api/query.c, query_route.c, query_fabric.c,
 * query_topo.c, query_search.c; the file source names its faults with
 * apiq_port_ref() too): the "epoch" member every response starts with, the
 * 503 for a missing routing, small JSON builders, the check of a parameter's
 * text, and the resolution of a node (rather than an endpoint) for GET
 * /api/nodes/{guid} and GET /api/search.
 */
#ifndef FABROUTE_API_QUERY_IMPL_H
#define FABROUTE_API_QUERY_IMPL_H

#include "api/query.h"

/** Longest parameter value accepted (characters). */
#define APIQ_TEXT_MAX 256u

/** apiq_epoch_json() - {"seq", "snapshot_id", "published", "reason", "chain", "engine"}. */
json_t *apiq_epoch_json(const struct epoch *e);

/**
 * apiq_begin() - a response object holding only "epoch", when @e is routed
 * Return: the object, or NULL with @err: 503 not_routed when @e (or its
 * fabric or routing) is missing, 500 internal when the routing does not
 * belong to the fabric or memory ran out.
 */
json_t *apiq_begin(const struct epoch *e, struct api_err *err);

/**
 * apiq_end() - hand @o back, or fail with 500 internal when it is NULL
 * (an allocation failed while building it).
 */
json_t *apiq_end(json_t *o, struct api_err *err);

/** apiq_port_ref() - {"node", "guid", "port"}: a port named by its node. */
json_t *apiq_port_ref(const struct fabric *f, uint32_t node, unsigned port);

/** apiq_node_lid() - a switch's port 0 LID, else the node's first linked port's (0: none). */
unsigned apiq_node_lid(const struct fabric *f, uint32_t n);

/**
 * apiq_check_text() - @text is a parameter value the API reads: present,
 * 1 to APIQ_TEXT_MAX characters, printable, valid UTF-8
 * Return: 0, or -1 with @err: 400 missing_parameter or bad_parameter.
 */
int apiq_check_text(const char *param, const char *text, struct api_err *err);

/**
 * apiq_resolve_node() - the node named by @text: a node GUID, a port GUID
 * (linked or not), a LID or a description, as api_resolve() reads them.
 * Return: the node index, or FAB_NONE with @err (400, 404, 409).
 */
uint32_t apiq_resolve_node(const struct fabric *f, const char *param, const char *text,
			   struct api_err *err);

#endif
