/* SPDX-License-Identifier: MIT */
/**
 * DOC: API queries: errors, epochs and names
 *
 * What every query shares: error objects, the "epoch" member that starts
 * every response, and the resolution of what a user types into a port of
 * the fabric (api_resolve()).
 *
 * A name is read in this order:
 *
 *  - decimal digits: a LID;
 *  - 0x and 1 to 16 hex digits: a LID when at most 0xFFFF and written with
 *    fewer than 16 digits, else a GUID (port GUID first, then node GUID);
 *  - anything else: a node description. Text that starts with a digit but
 *    is no number is still tried as a description, and is a 400 (rather
 *    than a 404) when no node has it.
 *
 * Values are at most APIQ_TEXT_MAX characters of printable ASCII or valid
 * UTF-8. Error messages start with the parameter's name and quote the
 * value; they are cut at a character boundary so that they stay valid
 * JSON strings.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "analysis/report.h"
#include "api/query_impl.h"
#include "formats/formats.h"

/* --- UTF-8 ------------------------------------------------------------- */

/* Length of the UTF-8 sequence starting at @s, 0 when it is not valid. */
static size_t utf8_seq(const unsigned char *s)
{
	size_t n;
	unsigned min;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2, min = 0x80, cp = s[0] & 0x1Fu;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3, min = 0x800, cp = s[0] & 0x0Fu;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4, min = 0x10000, cp = s[0] & 0x07u;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

/* Length of the longest prefix of @s that is valid UTF-8. */
static size_t utf8_prefix(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (p[i] && (n = utf8_seq(p + i)) != 0)
		i += n;
	return i;
}

/* --- errors ------------------------------------------------------------ */

void api_err_set(struct api_err *e, int status, const char *code, const char *fmt, ...)
{
	va_list ap;

	e->status = status;
	e->ncand = 0;
	snprintf(e->code, sizeof(e->code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->msg[utf8_prefix(e->msg)] = '\0';
}

json_t *api_err_json(const struct api_err *e)
{
	char msg[sizeof(e->msg)];

	json_t *o, *c;

	snprintf(msg, sizeof(msg), "%s", e->msg);
	msg[utf8_prefix(msg)] = '\0';
	o = json_pack("{s:{s:s, s:s}}", "error", "code", e->code[0] ? e->code : "internal",
		      "message", msg);
	if (!o || !e->ncand)
		return o;
	c = json_array();
	for (unsigned i = 0; c && i < e->ncand && i < API_CAND_MAX; i++)
		json_array_append_new(c, an_json_guid(e->cand[i]));
	json_object_set_new(json_object_get(o, "error"), "candidates", c ? c : json_null());
	json_object_set_new(json_object_get(o, "error"), "count", json_integer(e->ncand));
	return o;
}

/* --- the epoch member --------------------------------------------------- */

/* @ms (ms since the Unix epoch) as "YYYY-MM-DDTHH:MM:SS.mmmZ". */
static void iso_time(int64_t ms, char *buf, size_t size)
{
	int64_t sec = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
	time_t t = (time_t)sec;
	struct tm tm;
	char day[32];

	if (!gmtime_r(&t, &tm) || !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, size, "1970-01-01T00:00:00.000Z");
		return;
	}
	snprintf(buf, size, "%s.%03dZ", day, (int)(ms - sec * 1000));
}

static json_t *fixed_string(const char *s, size_t size)
{
	return json_stringn(s, strnlen(s, size));
}

json_t *apiq_epoch_json(const struct epoch *e)
{
	char when[48];

	iso_time(e->published_ms, when, sizeof(when));
	return json_pack("{s:I, s:I, s:s, s:o, s:o, s:o, s:s}", "seq", (json_int_t)e->seq,
			 "snapshot_id", (json_int_t)epoch_snapshot_id(e), "published", when,
			 "reason", fixed_string(e->reason, sizeof(e->reason)),
			 "chain", fixed_string(e->chain, sizeof(e->chain)),
			 "engine", fixed_string(e->engine, sizeof(e->engine)),
			 "engine_log", e->engine_log ? e->engine_log : "");
}

json_t *apiq_begin(const struct epoch *e, struct api_err *err)
{
	const struct fabric *f;

	if (!e || !e->fabric || !e->routing) {
		api_err_set(err, 503, "not_routed", "no routing published yet");
		return NULL;
	}
	f = e->fabric;
	if (e->routing->nswitches != f->nswitches || e->routing->neps != f->neps) {
		api_err_set(err, 500, "internal", "epoch %" PRIu64 ": the routing does not match "
			    "its fabric", e->seq);
		return NULL;
	}
	return apiq_end(json_pack("{s:o}", "epoch", apiq_epoch_json(e)), err);
}

json_t *apiq_end(json_t *o, struct api_err *err)
{
	if (!o)
		api_err_set(err, 500, "internal", "out of memory building the response");
	return o;
}

json_t *apiq_port_ref(const struct fabric *f, uint32_t node, unsigned port)
{
	return json_pack("{s:s, s:o, s:i}", "node", fab_desc(f, node),
			 "guid", an_json_guid(f->nodes[node].guid), "port", (json_int_t)port);
}

/* --- reading a name ----------------------------------------------------- */

enum id_kind { ID_LID, ID_GUID, ID_DESC };

/**
 * struct id - what a parameter value names
 * @kind: LID, GUID or description
 * @val: the LID or GUID
 * @numeric: a description that starts with a digit (malformed number)
 */
struct id {
	enum id_kind kind;
	uint64_t val;
	int numeric;
};

int apiq_check_text(const char *param, const char *text, struct api_err *err)
{
	size_t len, i;

	if (!text) {
		api_err_set(err, 400, "missing_parameter", "%s: missing", param);
		return -1;
	}
	len = strnlen(text, APIQ_TEXT_MAX + 1);
	if (!len) {
		api_err_set(err, 400, "bad_parameter", "%s: empty", param);
		return -1;
	}
	if (len > APIQ_TEXT_MAX) {
		api_err_set(err, 400, "bad_parameter", "%s: longer than %u characters", param,
			    APIQ_TEXT_MAX);
		return -1;
	}
	for (i = 0; i < len; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7F)
			break;
	if (i < len || utf8_prefix(text) != len) {
		i = i < len ? i : utf8_prefix(text);
		api_err_set(err, 400, "bad_parameter", "%s: non-printable or invalid character "
			    "(byte 0x%02x at offset %zu)", param, (unsigned char)text[i], i);
		return -1;
	}
	return 0;
}

/* "0x" and hex digits; -1 when malformed, else the number of digits (may exceed 16). */
static int parse_hex(const char *s, uint64_t *v)
{
	int n = 0;

	*v = 0;
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2])
		return -1;
	for (s += 2; *s; s++, n++) {
		int d = fmt_hexval(*s);

		if (d < 0)
			return -1;
		*v = *v << 4 | (uint64_t)d;
	}
	return n;
}

/* Decimal digits, saturating at UINT32_MAX; -1 when malformed. */
static int parse_dec(const char *s, uint64_t *v)
{
	*v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		*v = *v * 10 + (uint64_t)(*s - '0');
		if (*v > UINT32_MAX)
			*v = UINT32_MAX;
	}
	return 0;
}

static int classify_number(const char *param, const char *text, struct id *id,
			   struct api_err *err)
{
	int digits = parse_hex(text, &id->val);

	if (digits > 16) {
		api_err_set(err, 400, "bad_parameter", "%s: '%s' has more than 16 hex digits",
			    param, text);
		return -1;
	}
	if (digits > 0) {
		id->kind = digits == 16 || id->val > 0xFFFF ? ID_GUID : ID_LID;
	} else if (parse_dec(text, &id->val)) {
		id->kind = ID_DESC;
		id->numeric = 1;
		return 0;
	} else {
		id->kind = ID_LID;
	}
	if (id->kind == ID_LID && (id->val == 0 || id->val > FAB_LID_UCAST_MAX)) {
		api_err_set(err, 400, "bad_parameter", "%s: LID '%s' is not a unicast LID "
			    "(1 to 49151, 0x1 to 0xBFFF)", param, text);
		return -1;
	}
	return 0;
}

static int classify(const char *param, const char *text, struct id *id, struct api_err *err)
{
	memset(id, 0, sizeof(*id));
	if (apiq_check_text(param, text, err))
		return -1;
	if (text[0] >= '0' && text[0] <= '9')
		return classify_number(param, text, id, err);
	id->kind = ID_DESC;
	return 0;
}

/* --- finding what a name names ------------------------------------------ */

/* @err: 409 ambiguous, naming the nodes described @text (GUIDs in the message and listed). */
static void ambiguous(const struct fabric *f, const char *param, const char *text, unsigned count,
		      struct api_err *err)
{
	char list[120];
	size_t len = 0;

	list[0] = '\0';
	api_err_set(err, 409, "ambiguous", "%s", "");
	for (uint32_t n = 0; n < f->nnodes && err->ncand < API_CAND_MAX; n++)
		if (!strcmp(fab_desc(f, n), text))
			err->cand[err->ncand++] = f->nodes[n].guid;
	for (unsigned i = 0; i < err->ncand && i < 3 && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s0x%016" PRIx64,
					i ? ", " : "", err->cand[i]);
	snprintf(err->msg, sizeof(err->msg), "%s: %u nodes are described '%.64s' (%s%s); name one "
		 "by GUID or LID", param, count, text, list, count > 3 ? ", ..." : "");
	err->msg[utf8_prefix(err->msg)] = '\0';
	err->ncand = count;
}

static uint32_t node_by_desc(const struct fabric *f, const char *param, const struct id *id,
			     const char *text, struct api_err *err)
{
	unsigned count = 0;
	uint32_t n = fab_node_by_desc(f, text, &count);

	if (n != FAB_NONE && count > 1) {
		ambiguous(f, param, text, count, err);
		return FAB_NONE;
	}
	if (n != FAB_NONE)
		return n;
	if (id->numeric)
		api_err_set(err, 400, "bad_parameter", "%s: '%s' is not a LID (decimal or 0x hex), "
			    "a GUID (0x hex) or a node description", param, text);
	else
		api_err_set(err, 404, "not_found", "%s: no node described '%s'", param, text);
	return FAB_NONE;
}

/* The endpoint of a node: a switch's port 0, a CA's or router's first linked port. */
static uint32_t ep_of_node(const struct fabric *f, const char *param, uint32_t node,
			   struct api_err *err)
{
	const struct fab_node *n = &f->nodes[node];
	uint32_t ep = FAB_NONE;

	if (n->type == FAB_SWITCH)
		ep = fab_ep_of_node(f, node, 0);
	for (unsigned p = 1; ep == FAB_NONE && n->type != FAB_SWITCH && p <= n->nports; p++)
		ep = fab_ep_of_node(f, node, p);
	if (ep == FAB_NONE)
		api_err_set(err, 404, "not_found", "%s: node 0x%016" PRIx64 " ('%s') has no linked "
			    "port", param, n->guid, fab_desc(f, node));
	return ep;
}

static uint32_t ep_by_lid(const struct fabric *f, const char *param, uint64_t lid,
			  struct api_err *err)
{
	uint32_t ep = fab_ep_by_lid(f, (unsigned)lid);

	if (ep == FAB_NONE)
		api_err_set(err, 404, "not_found", "%s: no port or node with LID %" PRIu64, param,
			    lid);
	return ep;
}

/* The node one of whose ports, linked or not, has port GUID @guid (O(ports)). */
static uint32_t node_by_port_guid(const struct fabric *f, uint64_t guid, unsigned *port)
{
	uint32_t ep = fab_ep_by_port_guid(f, guid);

	if (ep != FAB_NONE) {
		*port = f->eps[ep].port;
		return f->eps[ep].node;
	}
	for (uint32_t n = 0; n < f->nnodes; n++)
		for (unsigned p = 1; p <= f->nodes[n].nports; p++)
			if (fab_port(f, n, p)->guid == guid) {
				*port = p;
				return n;
			}
	return FAB_NONE;
}

static uint32_t ep_by_guid(const struct fabric *f, const char *param, uint64_t guid,
			   struct api_err *err)
{
	uint32_t ep = fab_ep_by_port_guid(f, guid), node;
	unsigned port;

	if (ep != FAB_NONE)
		return ep;
	node = fab_node_by_guid(f, guid);
	if (node != FAB_NONE)
		return ep_of_node(f, param, node, err);
	node = node_by_port_guid(f, guid, &port);
	if (node != FAB_NONE)
		api_err_set(err, 404, "not_found", "%s: port 0x%016" PRIx64 " ('%s' port %u) is "
			    "not linked", param, guid, fab_desc(f, node), port);
	else
		api_err_set(err, 404, "not_found", "%s: no port or node with GUID 0x%016" PRIx64,
			    param, guid);
	return FAB_NONE;
}

uint32_t api_resolve(const struct fabric *f, const char *param, const char *text,
		     struct api_err *err)
{
	struct id id;
	uint32_t node;

	if (classify(param, text, &id, err))
		return FAB_NONE;
	switch (id.kind) {
	case ID_LID:
		return ep_by_lid(f, param, id.val, err);
	case ID_GUID:
		return ep_by_guid(f, param, id.val, err);
	default:
		node = node_by_desc(f, param, &id, text, err);
		return node == FAB_NONE ? FAB_NONE : ep_of_node(f, param, node, err);
	}
}

uint32_t apiq_resolve_node(const struct fabric *f, const char *param, const char *text,
			   struct api_err *err)
{
	struct id id;
	uint32_t node, ep;
	unsigned port;

	if (classify(param, text, &id, err))
		return FAB_NONE;
	switch (id.kind) {
	case ID_LID:
		ep = ep_by_lid(f, param, id.val, err);
		return ep == FAB_NONE ? FAB_NONE : f->eps[ep].node;
	case ID_GUID:
		node = fab_node_by_guid(f, id.val);
		if (node == FAB_NONE)
			node = node_by_port_guid(f, id.val, &port);
		if (node == FAB_NONE)
			api_err_set(err, 404, "not_found", "%s: no node or port with GUID "
				    "0x%016" PRIx64, param, id.val);
		return node;
	default:
		return node_by_desc(f, param, &id, text, err);
	}
}
