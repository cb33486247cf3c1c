/* SPDX-License-Identifier: MIT */
/**
 * DOC: dashboard files and ETags
 *
 * The dashboard (web/) is served from the files embedded at build time
 * (api/assets.h): a path names one of them exactly or gets 404, so no path
 * can reach anything else. Each file carries an ETag from its content and
 * each epoch-derived answer one from its epoch; a request whose
 * If-None-Match names it gets 304 without a body.
 *
 * Paths and query values are unescaped here rather than by libmicrohttpd:
 * "%00" stays as it is, so that a NUL cannot cut a path or a value short
 * ("/index.html%00.js" names no file, "src=leaf%00x" is not "leaf").
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "api/assets.h"
#include "api/server_impl.h"

const struct api_asset *api_asset_find(const char *path)
{
	if (strcmp(path, "/") == 0)
		path = "/index.html";
	for (unsigned i = 0; i < api_nassets; i++)
		if (strcmp(api_assets[i].path, path) == 0)
			return &api_assets[i];
	return NULL;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

size_t api_unescape(void *cls, struct MHD_Connection *c, char *s)
{
	char *r = s, *w = s;

	while (*r) {
		int hi = r[0] == '%' ? hexval(r[1]) : -1, lo = hi >= 0 ? hexval(r[2]) : -1;

		if (lo >= 0 && (hi | lo)) {
			*w++ = (char)(hi << 4 | lo);
			r += 3;
		} else {
			*w++ = *r++;	/* "%00" and malformed escapes stay as they are */
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

void api_epoch_etag(const struct epoch *e, char *buf, size_t size)
{
	if (e)
		snprintf(buf, size, "\"e%" PRIu64 "-%" PRId64 "\"", e->seq, e->published_ms);
	else
		snprintf(buf, size, "\"e0\"");
}

/* Does the comma-separated list @h name @etag (weak or strong)? */
static int list_has(const char *h, const char *etag)
{
	size_t n = strlen(etag);

	while (*h) {
		h += strspn(h, " \t,");
		if (h[0] == '*' && (h[1] == '\0' || h[1] == ',' || h[1] == ' '))
			return 1;
		if (strncmp(h, "W/", 2) == 0)
			h += 2;
		if (strncmp(h, etag, n) == 0 && (h[n] == '\0' || h[n] == ',' || h[n] == ' '))
			return 1;
		h += strcspn(h, ",");
	}
	return 0;
}

int api_etag_matches(struct MHD_Connection *c, const char *etag)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);

	return h && etag[0] && list_has(h, etag);
}

int api_web_serve(struct api_req *rq, const char *url, struct api_resp *rs)
{
	const struct api_asset *a = strncmp(url, "/api/", 5) ? api_asset_find(url) : NULL;

	if (!a || strcmp(a->path + strlen(a->path) - 5, ".json") == 0)
		return 0;	/* the OpenAPI document is served at /api/openapi.json only */
	snprintf(rs->etag, sizeof(rs->etag), "%s", a->etag);
	rs->ctype = a->ctype;
	rs->status = 200;
	if (api_etag_matches(rq->conn, a->etag)) {
		rs->status = 304;
		rs->data = "";
		return 1;
	}
	rs->data = a->data;
	rs->len = a->len;
	return 1;
}
