/* SPDX-License-Identifier: MIT */
/**
 * DOC: HTTP answers
 *
 * What a handler leaves in struct api_resp (a JSON object, text, or static
 * bytes) becomes the bytes sent: rendered once, in the thread that
 * computed the answer, gzip-compressed when the route allows it and the
 * client accepts it (large answers: /metrics, topology, links), then
 * queued on the connection with its headers. A compressed answer carries
 * an ETag of its own (RFC 9110: one per representation) and
 * "Vary: Accept-Encoding".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "api/server_impl.h"

void api_fail(struct api_resp *rs, const struct api_err *err)
{
	json_decref(rs->json);
	rs->json = api_err_json(err);
	rs->status = err->status;
}

void api_fail_new(struct api_resp *rs, int status, const char *code, const char *fmt, ...)
{
	struct api_err err = { .status = status };
	va_list ap;

	snprintf(err.code, sizeof(err.code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(err.msg, sizeof(err.msg), fmt, ap);
	va_end(ap);
	api_fail(rs, &err);
}

/* Is "gzip" (or "*") in @h with a quality above 0? */
static int accepts(const char *h)
{
	while (h && *h) {
		size_t n;
		const char *q;

		h += strspn(h, " \t,");
		n = strcspn(h, " \t;,");
		q = h + n;
		if ((n == 4 && !strncasecmp(h, "gzip", 4)) || (n == 1 && *h == '*')) {
			q += strspn(q, " \t");
			if (*q != ';')
				return 1;
			q += 1 + strspn(q + 1, " \t");
			/* "q=0", "q=0.0", "q=0.000": refused; any other quality accepts */
			return !(q[0] == 'q' && q[1] == '=' && q[2] == '0' &&
				 (q[3] == '\0' || q[3] == ',' || q[3] == ' ' ||
				  (q[3] == '.' && strspn(q + 4, "0") == strcspn(q + 4, " ,"))));
		}
		h += strcspn(h, ",");
	}
	return 0;
}

int api_accepts_gzip(struct MHD_Connection *c)
{
	return accepts(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING));
}

/* @in (@n bytes) as gzip into a malloc'd buffer; NULL when out of memory. */
static unsigned char *gzip(const void *in, size_t n, size_t *out_len)
{
	z_stream z = { 0 };
	size_t cap = n + n / 1000 + 64;
	unsigned char *out = malloc(cap);

	if (!out || deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_in = (unsigned char *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (n > UINT32_MAX || cap > UINT32_MAX || deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(out);
		return NULL;
	}
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

/* The ETag of the compressed form: "e12-345" -> "e12-345-gz". */
static void etag_gz(char *etag, size_t size)
{
	size_t n = strlen(etag);

	if (n >= 2 && etag[n - 1] == '"' && n + 3 < size)
		memcpy(etag + n - 1, "-gz\"", 5);
}

void api_resp_render(struct api_resp *rs, int gz)
{
	if (rs->data || rs->body)
		return;
	if (!rs->text && rs->json)
		rs->text = json_dumps(rs->json, JSON_COMPACT | JSON_REAL_PRECISION(9));
	if (!rs->text)
		return;
	rs->body_len = strlen(rs->text);
	if (gz) {
		size_t zn;
		unsigned char *z = gzip(rs->text, rs->body_len, &zn);

		if (z) {
			free(rs->text);
			rs->text = (char *)z;
			rs->body_len = zn;
			rs->gz = 1;
		}
	}
	rs->body = rs->text;
	rs->text = NULL;
}

void api_resp_gz_etag(struct api_resp *rs)
{
	if (rs->etag[0])
		etag_gz(rs->etag, sizeof(rs->etag));
}

void api_resp_free(struct api_resp *rs)
{
	json_decref(rs->json);
	free(rs->text);
	free(rs->body);
	memset(rs, 0, sizeof(*rs));
}

enum MHD_Result api_respond(struct MHD_Connection *c, struct api_resp *rs, int close)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	api_resp_render(rs, 0);
	if (rs->data)
		resp = MHD_create_response_from_buffer(rs->len, (void *)(uintptr_t)rs->data,
						       MHD_RESPMEM_PERSISTENT);
	else if (rs->body)
		resp = MHD_create_response_from_buffer(rs->body_len, rs->body, MHD_RESPMEM_MUST_FREE);
	else
		return MHD_NO;
	if (!resp)
		return MHD_NO;
	rs->body = NULL;	/* the response owns it now */
	if (rs->status != 304)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, rs->ctype ? rs->ctype :
					rs->json ? "application/json" : "text/plain; charset=utf-8");
	if (rs->gz)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	if (rs->vary)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	if (rs->etag[0])
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, rs->etag);
	/* answers with a validator may be kept, but are checked again each time */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, rs->etag[0] ? "no-cache" : "no-store");
	if (close)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	if (rs->status == 401)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"fabroute\"");
	if (rs->allow[0])
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, rs->allow);
	ret = MHD_queue_response(c, (unsigned)rs->status, resp);
	MHD_destroy_response(resp);
	return ret;
}
