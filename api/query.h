/* SPDX-License-Identifier: MIT */
/**
 * DOC: API queries
 *
 * The read-only questions the REST API answers about one epoch, as pure
 * functions from (epoch, parameters) to a jansson object. They take no
 * lock and do no I/O, so the HTTP layer (api/server.c) only parses the
 * request, takes a reference to the current epoch, calls one of these and
 * sends the result. Unit tests call them directly on a routed fabric.
 *
 * Every function returns a new JSON object, or NULL with @err filled: the
 * HTTP status, a stable machine-readable code and a message that names the
 * parameter and the value at fault.
 */
#ifndef FABROUTE_API_QUERY_H
#define FABROUTE_API_QUERY_H

#include <jansson.h>
#include <stdint.h>

#include "svc/epoch.h"

/**
 * struct api_err - why a request failed
 * @status: HTTP status (400, 404, 409, 413, 429, 503, 500)
 * @code: "bad_parameter", "missing_parameter", "not_found", "ambiguous",
 *        "not_routed", "too_large", "unauthorized", "rate_limited",
 *        "conflict", "internal", ...
 * @msg: human-readable, names the parameter and value
 * @cand, @ncand: "ambiguous": the node GUIDs of (the first API_CAND_MAX of)
 *                the nodes the name fits, and @ncand how many there are
 */
#define API_CAND_MAX 16
struct api_err {
	int status;
	char code[32];
	char msg[256];
	uint64_t cand[API_CAND_MAX];
	unsigned ncand;
};

void api_err_set(struct api_err *e, int status, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/**
 * api_err_json() - {"error": {"code": ..., "message": ...}}, with
 * "candidates": ["0xGUID", ...] and "count" for an ambiguous name
 */
json_t *api_err_json(const struct api_err *e);

/**
 * api_resolve() - the endpoint named by @text in @f
 *
 * @text is a LID (decimal or 0x hex, any LID of a port's LMC range), a port
 * GUID or node GUID (0x followed by 16 hex digits, or any 0x value above
 * 0xFFFF), or a node description. A node GUID or description of a CA with
 * several linked ports names its first linked port; of a switch, port 0.
 * @param: the parameter's name, for the error message ("src", "dst")
 * Return: the endpoint index, or FAB_NONE with @err: 400 bad_parameter
 * (empty, malformed, LID 0 or above 0xBFFF, too long), 404 not_found,
 * 409 ambiguous (a description several nodes share).
 */
uint32_t api_resolve(const struct fabric *f, const char *param, const char *text,
		     struct api_err *err);

/** GET /api/route?src=&dst= */
json_t *apiq_route(const struct epoch *e, const char *src, const char *dst, struct api_err *err);
/** GET /api/connectivity */
json_t *apiq_connectivity(const struct epoch *e, struct api_err *err);
/** GET /api/reachability/switches[?src=&dst=] (both or neither) */
json_t *apiq_reach_switches(const struct epoch *e, const char *src, const char *dst,
			    struct api_err *err);
/** GET /api/vl-usage */
json_t *apiq_vl_usage(const struct epoch *e, struct api_err *err);
/** GET /api/fabric */
json_t *apiq_fabric(const struct epoch *e, struct api_err *err);
/** GET /api/nodes[?type=ca|sw|rt] */
json_t *apiq_nodes(const struct epoch *e, const char *type, struct api_err *err);
/** GET /api/nodes/{guid} (node GUID, port GUID or description) */
json_t *apiq_node(const struct epoch *e, const char *id, struct api_err *err);
/**
 * apiq_links() - GET /api/links?offset=&limit=: {"count": every link,
 * "offset", "links": at most @limit of them from @offset, in the fabric's
 * order, "more": links beyond the page}
 */
json_t *apiq_links(const struct epoch *e, size_t offset, size_t limit, struct api_err *err);
/** GET /api/lids: the LIDs of the current epoch */
json_t *apiq_lids(const struct epoch *e, struct api_err *err);
/** GET /api/engines: every engine with options; "selected" marks the epoch's chain */
json_t *apiq_engines(const struct epoch *e, struct api_err *err);

/**
 * api_link_routes() - per port slot (fabric->nodes[n].port0 + p), the
 * endpoint pairs whose path leaves a switch through that port under
 * all-to-all traffic (switch ports only are meaningful): the evaluation's
 * counts, or computed on first use and kept with @e when it has none
 * Return: the counts, or NULL when @e is not routed or memory ran out.
 */
const uint64_t *api_link_routes(struct epoch *e);

/** How long a scrape waits for the routes per link being computed. */
#define API_LINK_WAIT_MS 2000
/** api_link_routes_wait() - api_link_routes(), or NULL when they take more than @ms to come. */
const uint64_t *api_link_routes_wait(struct epoch *e, unsigned ms);

struct api_warmer;
/**
 * api_warmer_start() - a thread that computes the routes per link of the
 * epoch in @slot each time api_warmer_kick() says one was published, so
 * that no scrape or /api/topology request pays for it; NULL on failure.
 */
struct api_warmer *api_warmer_start(struct epoch_slot *slot);
/** api_warmer_kick() - an epoch was published (thread-safe; NULL: nothing). */
void api_warmer_kick(struct api_warmer *w);
/** api_warmer_stop() - stop the thread and free (NULL: nothing). */
void api_warmer_stop(struct api_warmer *w);
/**
 * api_link_routes_ca() - api_link_routes() for the CA-to-CA pairs alone
 * (the evaluation's, or counted in the same walk)
 * Return: the counts, or NULL when @e is not routed or memory ran out.
 */
const uint64_t *api_link_routes_ca(struct epoch *e);
/** GET /api/topology: switches by level, pod or group, switch-to-switch links with their routes */
json_t *apiq_topology(struct epoch *e, struct api_err *err);
/**
 * apiq_search() - GET /api/search?q=&limit=: the node @q names exactly, then
 * the nodes whose description holds @q (ignoring case), switches first;
 * at most @limit of them, with their total
 */
json_t *apiq_search(const struct epoch *e, const char *q, unsigned limit, struct api_err *err);

#endif
