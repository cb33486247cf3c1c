/* SPDX-License-Identifier: MIT */
/**
 * DOC: POST /api/whatif
 *
 * {"links": ["NODE:PORT", ...], "switches": ["NODE", ...]}: what removing
 * them would do, answered by the daemon's hook (daemon/whatif.c) without
 * changing anything. One what-if at a time (429 while one runs), bounded in
 * time (504) and memory; a name the fabric does not have is a 400. The
 * answer is doc/api.md's.
 */
#include <string.h>

#include "api/server_impl.h"

void api_h_whatif(struct api_req *rq, struct api_resp *rs)
{
	json_t *b = api_body_object(rq, rs);
	struct api_err err = { 0 };
	const char *key;
	json_t *v;

	if (!b)
		return;
	json_object_foreach(b, key, v)
		if (strcmp(key, "links") && strcmp(key, "switches")) {
			api_fail_new(rs, 400, "bad_parameter", "%.64s: unknown member (links and "
				     "switches are)", key);
			json_decref(b);
			return;
		}
	if (!rq->hooks->whatif)
		api_err_set(&err, 503, "unavailable", "this server answers no what-if");
	else
		rs->json = rq->hooks->whatif(rq->hooks->ud, b, &err);
	if (!rs->json)
		api_fail(rs, &err);
	json_decref(b);
}
