/* SPDX-License-Identifier: MIT */
/**
 * DOC: GET /api and GET /api/openapi.json
 *
 * The index lists the route table itself (method, path, parameters, whether
 * a bearer token is needed, what the endpoint answers), so it cannot
 * forget an endpoint. The OpenAPI document is doc/openapi.json, written by
 * hand and compiled in (api/assets.h); tests/integration/openapi.sh checks
 * it against the route table and against real answers.
 */
#include <stdio.h>
#include <string.h>

#include "api/assets.h"
#include "api/server_impl.h"

static json_t *params_json(const char *params)
{
	json_t *a = json_array();

	for (const char *p = params; a && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0))
		json_array_append_new(a, json_stringn(p, strcspn(p, ",")));
	return a;
}

void api_h_index(struct api_req *rq, struct api_resp *rs)
{
	json_t *list = json_array();

	for (size_t i = 0; list && i < api_nroutes; i++) {
		const struct api_route *r = &api_routes[i];

		json_array_append_new(list, json_pack("{s:s, s:s, s:o, s:b, s:s}", "method", r->method,
			"path", r->pattern, "params", params_json(r->params), "auth", (r->flags & API_WRITE) != 0,
			"summary", r->summary));
	}
	rs->json = json_pack("{s:s, s:s, s:o, s:s}", "service", "fabrouted", "version", PACKAGE_VERSION,
			     "endpoints", list, "openapi", "/api/openapi.json");
}

void api_h_openapi(struct api_req *rq, struct api_resp *rs)
{
	const struct api_asset *a = api_asset_find("/api/openapi.json");

	if (!a) {
		api_fail_new(rs, 500, "internal", "the OpenAPI document is not built in");
		return;
	}
	snprintf(rs->etag, sizeof(rs->etag), "%s", a->etag);
	rs->ctype = a->ctype;
	if (api_etag_matches(rq->conn, a->etag)) {
		rs->status = 304;
		rs->data = "";
		return;
	}
	rs->data = a->data;
	rs->len = a->len;
}
