/* SPDX-License-Identifier: MIT */
/**
 * DOC: API routes
 *
 * The route table and the handlers: the read-only queries go to
 * api/query*.c with a reference to the current epoch; history comes from
 * the store; control (POST) goes to the daemon through its hooks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/query_impl.h"
#include "api/server_impl.h"
#include "formats/formats.h"

/* The epoch to answer from: the one the ETag was made from, or the current one. */
static struct epoch *epoch_of(struct api_req *rq)
{
	return rq->epoch ? epoch_ref(rq->epoch) : rq->hooks->epoch(rq->hooks->ud);
}

static void answer(struct api_resp *rs, json_t *j, const struct api_err *err)
{
	if (j)
		rs->json = j;
	else
		api_fail(rs, err);
}

/* Both or neither of src and dst; 0, or -1 after answering 400. */
static int pair_args(struct api_req *rq, struct api_resp *rs, const char **src, const char **dst,
		     int required)
{
	*src = api_arg(rq, "src");
	*dst = api_arg(rq, "dst");
	if ((*src && *dst) || (!required && !*src && !*dst))
		return 0;
	api_fail_new(rs, 400, "missing_parameter", "%s: missing (a LID, port or node GUID, or node description)",
		     *src ? "dst" : "src");
	return -1;
}

static void h_route(struct api_req *rq, struct api_resp *rs)
{
	const char *src, *dst;
	struct api_err err;
	struct epoch *e;

	if (pair_args(rq, rs, &src, &dst, 1))
		return;
	e = epoch_of(rq);
	answer(rs, apiq_route(e, src, dst, &err), &err);
	epoch_unref(e);
}

static void h_reach(struct api_req *rq, struct api_resp *rs)
{
	const char *src, *dst;
	struct api_err err;
	struct epoch *e;

	if (pair_args(rq, rs, &src, &dst, 0))
		return;
	e = epoch_of(rq);
	answer(rs, apiq_reach_switches(e, src, dst, &err), &err);
	epoch_unref(e);
}

/* The handlers that take only the epoch. */
#define EPOCH_HANDLER(name, call)					\
	static void name(struct api_req *rq, struct api_resp *rs)	\
	{								\
		struct epoch *e = epoch_of(rq);				\
		struct api_err err;					\
									\
		answer(rs, call, &err);					\
		epoch_unref(e);						\
	}

EPOCH_HANDLER(h_connectivity, apiq_connectivity(e, &err))
EPOCH_HANDLER(h_vl_usage, apiq_vl_usage(e, &err))
EPOCH_HANDLER(h_nodes, apiq_nodes(e, api_arg(rq, "type"), &err))
EPOCH_HANDLER(h_node, apiq_node(e, rq->seg[0], &err))
EPOCH_HANDLER(h_lids, apiq_lids(e, &err))
EPOCH_HANDLER(h_engines, apiq_engines(e, &err))

static void h_fabric(struct api_req *rq, struct api_resp *rs)
{
	struct epoch *e = epoch_of(rq);
	struct api_err err;
	json_t *j = apiq_fabric(e, &err);

	epoch_unref(e);
	if (j)
		json_object_set_new(j, "readback", rq->hooks->readback(rq->hooks->ud));
	if (j && rq->hooks->ha) {
		json_t *ha = rq->hooks->ha(rq->hooks->ud);

		if (ha)
			json_object_set_new(j, "ha", ha);
	}
	answer(rs, j, &err);
}

/* The switch @name names in @f (a LID, GUID or description); FAB_NONE after answering 4xx. */
static uint32_t lfts_switch(struct api_resp *rs, const struct fabric *f, const char *name)
{
	struct api_err err;
	uint32_t node = apiq_resolve_node(f, "switch", name, &err);

	if (node == FAB_NONE) {
		api_fail(rs, &err);
	} else if (f->nodes[node].type != FAB_SWITCH) {
		api_fail_new(rs, 400, "bad_parameter", "switch: '%s' names %s '%s', not a switch", name,
			     fab_node_type_name(f->nodes[node].type), FAB_LABEL(f, node));
		node = FAB_NONE;
	}
	return node;
}

/*
 * The published LFTs as opensm-lfts.dump (what `opensm -R file -U` loads,
 * what ibroute prints); with ?switch=, that switch's block alone.
 */
static void h_lfts(struct api_req *rq, struct api_resp *rs)
{
	const char *name = api_arg(rq, "switch");
	struct epoch *e = epoch_of(rq);
	uint32_t node = FAB_NONE;
	size_t len = 0;
	FILE *o;

	if (!e || !e->fabric || !e->routing) {
		api_fail_new(rs, 503, "not_routed", "no routing published yet");
		epoch_unref(e);
		return;
	}
	if (name && (node = lfts_switch(rs, e->fabric, name)) == FAB_NONE) {
		epoch_unref(e);
		return;
	}
	o = open_memstream(&rs->text, &len);
	if (o && ((name ? fmt_lfts_write_switch(o, e->fabric, e->routing, e->fabric->nodes[node].swidx)
			: fmt_lfts_write(o, e->fabric, e->routing)) | fclose(o))) {
		free(rs->text);
		rs->text = NULL;
	}
	epoch_unref(e);
}

static void h_config(struct api_req *rq, struct api_resp *rs)
{
	rs->json = rq->hooks->config(rq->hooks->ud);
}

/* --- history ------------------------------------------------------------- */

/* A whole decimal number in [@min, @max]; 0, or -1 after answering 400. */
static int uint_arg(struct api_resp *rs, const char *name, const char *text, long long min,
		    long long max, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(text, &end, 10);
	if (text[0] >= '0' && text[0] <= '9' && !*end && !errno && *out >= min && *out <= max)
		return 0;
	api_fail_new(rs, 400, "bad_parameter", "%s: expected an integer %lld..%lld, found '%.64s'", name,
		     min, max, text);
	return -1;
}

static void h_search(struct api_req *rq, struct api_resp *rs)
{
	const char *limit = api_arg(rq, "limit");
	long long lim = 20;
	struct api_err err;
	struct epoch *e;

	if (limit && uint_arg(rs, "limit", limit, 1, 1000, &lim))
		return;
	e = epoch_of(rq);
	answer(rs, apiq_search(e, api_arg(rq, "q"), (unsigned)lim, &err), &err);
	epoch_unref(e);
}

/* "2026-11-21T10:00:00[.mmm]Z" -> ms since the epoch; -1 when malformed. */
static int64_t parse_time(const char *s)
{
	struct tm tm = { 0 };
	const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	int64_t ms = 0;

	if (!p)
		return -1;
	if (*p == '.') {
		int digits = 0;

		for (p++; *p >= '0' && *p <= '9'; p++)
			if (digits++ < 3)
				ms = ms * 10 + (*p - '0');
		while (digits++ < 3)
			ms *= 10;
	}
	if (strcmp(p, "Z") != 0)
		return -1;
	return (int64_t)timegm(&tm) * 1000 + ms;
}

static const char *const event_types[] = {
	"trap", "fault", "reroute", "repair", "repair_fast", "rebalance", "error", "engine", "config",
	"daemon", "opensm", NULL,
};

static int known_type(const char *t)
{
	for (unsigned i = 0; event_types[i]; i++)
		if (strcmp(t, event_types[i]) == 0)
			return 1;
	return 0;
}

/* Optional whole-number argument @name in [@min, @max] into *@out (kept when absent); 0 or -1 (400). */
static int opt_uint(struct api_req *rq, struct api_resp *rs, const char *name, long long min, long long max,
		    long long *out)
{
	const char *v = api_arg(rq, name);

	return v ? uint_arg(rs, name, v, min, max, out) : 0;
}

/* Pages: at most API_PAGE_MAX items, API_PAGE_DEFAULT when no limit is given. */
#define API_PAGE_DEFAULT 100
#define API_PAGE_MAX 1000

static void h_events(struct api_req *rq, struct api_resp *rs)
{
	const char *since = api_arg(rq, "since"), *type = api_arg(rq, "type");
	long long id = 0, lim = API_PAGE_DEFAULT, before = 0;
	struct store_event_query q;
	int64_t ms = 0;
	struct fab_err err;

	if (since && strchr(since, 'T') && (ms = parse_time(since)) < 0) {
		api_fail_new(rs, 400, "bad_parameter", "since: expected an event id or a time "
			     "like 2026-11-21T10:00:00Z, found '%.64s'", since);
		return;
	}
	if (since && !strchr(since, 'T') && uint_arg(rs, "since", since, 0, INT64_MAX, &id))
		return;
	if (type && !known_type(type)) {
		api_fail_new(rs, 400, "bad_parameter", "type: expected trap, fault, reroute, repair, "
			     "repair_fast, rebalance, error, engine, config, daemon or opensm, found "
			     "'%.64s'", type);
		return;
	}
	if (opt_uint(rq, rs, "limit", 1, API_PAGE_MAX, &lim) || opt_uint(rq, rs, "before", 1, INT64_MAX, &before))
		return;
	q = (struct store_event_query){ .since_id = id, .since_ms = ms, .before = before, .type = type,
					.limit = (unsigned)lim };
	rs->json = store_events_page(rq->store, &q, &err);
	if (!rs->json)
		api_fail_new(rs, 500, "internal", "%s", err.msg);
}

static void h_snapshots(struct api_req *rq, struct api_resp *rs)
{
	long long lim = API_PAGE_DEFAULT, before = 0;
	struct fab_err err;

	if (opt_uint(rq, rs, "limit", 1, API_PAGE_MAX, &lim) || opt_uint(rq, rs, "before", 1, INT64_MAX, &before))
		return;
	rs->json = store_snapshots_page(rq->store, before, (unsigned)lim, &err);
	if (!rs->json)
		api_fail_new(rs, 500, "internal", "%s", err.msg);
}

/* GET /api/links: a page of links (in the fabric's order), 1000 by default. */
static void h_links(struct api_req *rq, struct api_resp *rs)
{
	long long off = 0, lim = API_PAGE_MAX;
	struct api_err err;
	struct epoch *e;

	if (opt_uint(rq, rs, "offset", 0, INT32_MAX, &off) || opt_uint(rq, rs, "limit", 1, 10 * API_PAGE_MAX, &lim))
		return;
	e = epoch_of(rq);
	answer(rs, apiq_links(e, (size_t)off, (size_t)lim, &err), &err);
	epoch_unref(e);
}

static void snapshot_answer(struct api_resp *rs, json_t *j, int missing, const struct fab_err *err)
{
	if (j)
		rs->json = j;
	else
		api_fail_new(rs, missing ? 404 : 500, missing ? "not_found" : "internal", "%s", err->msg);
}

static void h_snapshot(struct api_req *rq, struct api_resp *rs)
{
	struct fab_err err = { { 0 } };
	long long id;
	int missing = 0;
	json_t *j;

	if (uint_arg(rs, "snapshot id", rq->seg[0], 1, INT64_MAX, &id))
		return;
	j = store_snapshot_json(rq->store, id, &missing, &err);
	snapshot_answer(rs, j, missing, &err);
}

static void h_diff(struct api_req *rq, struct api_resp *rs)
{
	struct fab_err err = { { 0 } };
	long long a, b;
	int missing = 0;
	json_t *j;

	if (uint_arg(rs, "snapshot id", rq->seg[0], 1, INT64_MAX, &a) ||
	    uint_arg(rs, "snapshot id", rq->seg[1], 1, INT64_MAX, &b))
		return;
	j = store_snapshot_diff_json(rq->store, a, b, &missing, &err);
	snapshot_answer(rs, j, missing, &err);
}

/* --- control ------------------------------------------------------------- */

json_t *api_body_object(struct api_req *rq, struct api_resp *rs)
{
	json_error_t je;
	json_t *j;

	if (rq->body_len == 0)
		return json_object();
	j = json_loadb(rq->body, rq->body_len, JSON_REJECT_DUPLICATES, &je);
	if (!j) {
		api_fail_new(rs, 400, "bad_json", "request body, line %d column %d: %s", je.line, je.column, je.text);
		return NULL;
	}
	if (json_is_object(j))
		return j;
	json_decref(j);
	api_fail_new(rs, 400, "bad_json", "request body: expected a JSON object");
	return NULL;
}

/* String member @key of @o (NULL when absent); -1 after answering 400 when not a string. */
static int member(struct api_resp *rs, const json_t *o, const char *key, const char **out)
{
	const json_t *v = json_object_get(o, key);

	*out = json_string_value(v);
	if (!v || json_is_string(v))
		return 0;
	api_fail_new(rs, 400, "bad_parameter", "%s: expected a string", key);
	return -1;
}

static void h_engine(struct api_req *rq, struct api_resp *rs)
{
	json_t *b = api_body_object(rq, rs);
	const char *chain, *options;
	struct api_err err;

	if (!b)
		return;
	if (member(rs, b, "chain", &chain) || member(rs, b, "options", &options))
		goto out;
	if (!chain) {
		api_fail_new(rs, 400, "missing_parameter", "chain: missing (e.g. {\"chain\": \"sftree,updn\"})");
		goto out;
	}
	if (rq->hooks->engine(rq->hooks->ud, chain, options ? options : "", &err))
		api_fail(rs, &err);
	else
		rs->json = json_pack("{s:s, s:s, s:b}", "chain", chain, "options", options ? options : "",
				     "reroute_requested", 1);
	rs->status = rs->status == 200 ? 202 : rs->status;
out:
	json_decref(b);
}

static void h_reroute(struct api_req *rq, struct api_resp *rs)
{
	json_t *b = api_body_object(rq, rs);
	struct api_err err;

	if (!b)
		return;
	json_decref(b);
	if (rq->hooks->reroute(rq->hooks->ud, &err)) {
		api_fail(rs, &err);
		return;
	}
	rs->status = 202;
	rs->json = json_pack("{s:b}", "reroute_requested", 1);
}

static void h_fault(struct api_req *rq, struct api_resp *rs)
{
	json_t *b = api_body_object(rq, rs);
	struct api_err err;

	if (!b)
		return;
	rs->json = rq->hooks->fault(rq->hooks->ud, b, &err);
	if (rs->json)
		rs->status = 202;
	else
		api_fail(rs, &err);
	json_decref(b);
}

static void h_faults(struct api_req *rq, struct api_resp *rs)
{
	rs->json = rq->hooks->faults(rq->hooks->ud);
}

/* --- readiness, health, metrics ----------------------------------------- */

/*
 * With a read-back of the current epoch: the switches read must hold its
 * tables. Switches not reached (yet) fail nothing: they are retried, and
 * @notes says how many; so does a read-back that cannot send at all.
 */
static void readback_check(struct api_req *rq, const struct epoch *e, json_t *checks, json_t *failing,
			   json_t *notes)
{
	json_t *rb = rq->hooks->readback(rq->hooks->ud);
	json_int_t drift = json_integer_value(json_object_get(rb, "entries_drifting"));
	json_int_t unread = json_integer_value(json_object_get(rb, "switches_unreadable"));
	const char *why = json_string_value(json_object_get(rb, "error"));

	if (e && json_is_integer(json_object_get(rb, "entries_drifting")) &&
	    json_integer_value(json_object_get(rb, "switches_read")) > 0 &&
	    json_integer_value(json_object_get(rb, "epoch")) == (json_int_t)e->seq) {
		json_object_set_new(checks, "programmed_matches", json_boolean(!drift));
		if (drift)
			json_array_append_new(failing, json_sprintf("read-back: %lld LFT entries in the switches "
				"differ from the published tables", (long long)drift));
	}
	if (notes && why)
		json_array_append_new(notes, json_sprintf("read-back: %s", why));
	else if (notes && unread)
		json_array_append_new(notes, json_sprintf("read-back: %lld switch(es) not reached yet (retried; "
			"not counted against readiness)", (long long)unread));
	json_decref(rb);
}

/* The database must take writes: what it cannot store is lost at the next restart. */
static void store_check(struct api_req *rq, json_t *checks, json_t *failing)
{
	struct store_health h;

	if (!rq->store)
		return;
	store_health(rq->store, &h);
	json_object_set_new(checks, "store_writable", json_boolean(h.ok));
	if (!h.ok)
		json_array_append_new(failing, json_sprintf("store: %s", h.error));
}

/*
 * The verdict of /api/ready, which fabroute_ready reports too: 1 when every
 * check passes. @checks, @failing and @notes are filled (@notes may be NULL).
 */
static int ready_eval(struct api_req *rq, const struct epoch *e, json_t *checks, json_t *failing,
		      json_t *notes)
{
	json_object_set_new(checks, "routed", json_boolean(e != NULL));
	if (!e)
		json_array_append_new(failing, json_string("no routing published yet"));
	for (unsigned k = 0; e && k < AN_NCLASSES; k++) {
		uint64_t u = e->report.conn.unreachable[k];
		char key[32];

		snprintf(key, sizeof(key), "connected_%s", an_class_name(k));
		json_object_set_new(checks, key, json_boolean(u == 0));
		if (u)
			json_array_append_new(failing, json_sprintf("%s: %llu of %llu pairs unreachable",
				an_class_name(k), (unsigned long long)u, (unsigned long long)e->report.conn.pairs[k]));
	}
	if (e) {
		json_object_set_new(checks, "deadlock_free", json_boolean(e->report.cdg.deadlock_free));
		if (!e->report.cdg.deadlock_free)
			json_array_append_new(failing, json_string("a channel dependency graph has a cycle"));
	}
	readback_check(rq, e, checks, failing, notes);
	store_check(rq, checks, failing);
	return epoch_ready(e) && !json_array_size(failing);
}

static void h_ready(struct api_req *rq, struct api_resp *rs)
{
	struct epoch *e = epoch_of(rq);
	json_t *checks = json_object(), *failing = json_array(), *notes = json_array();

	rs->status = ready_eval(rq, e, checks, failing, notes) ? 200 : 503;
	rs->json = json_pack("{s:b, s:I, s:o, s:o, s:o}", "ready", rs->status == 200,
			     "epoch", (json_int_t)(e ? e->seq : 0), "checks", checks, "failing", failing,
			     "notes", notes);
	epoch_unref(e);
}

static void h_health(struct api_req *rq, struct api_resp *rs)
{
	json_t *st = rq->hooks->status(rq->hooks->ud);
	int ok = !json_is_false(json_object_get(json_object_get(st, "store"), "ok"));

	json_object_set_new(st, "status", json_string(ok ? "ok" : "degraded"));
	rs->status = ok ? 200 : 503;	/* degraded: the database refuses writes */
	rs->json = st;
}

static void h_metrics(struct api_req *rq, struct api_resp *rs)
{
	struct epoch *e = epoch_of(rq);
	json_t *checks = json_object(), *failing = json_array();
	int ready = ready_eval(rq, e, checks, failing, NULL);
	char *parts[3] = { api_epoch_metrics(e, ready), rq->hooks->metrics(rq->hooks->ud),
			   api_metrics_text(rq->srv) };
	size_t n = 1;

	json_decref(checks);
	json_decref(failing);
	epoch_unref(e);
	for (unsigned i = 0; i < 3; i++)
		n += parts[i] ? strlen(parts[i]) : 0;
	rs->text = malloc(n);
	rs->ctype = "text/plain; version=0.0.4; charset=utf-8";	/* Prometheus exposition format */
	if (rs->text) {
		rs->text[0] = '\0';
		for (unsigned i = 0; i < 3; i++)
			if (parts[i])
				strcat(rs->text, parts[i]);
	}
	for (unsigned i = 0; i < 3; i++)
		free(parts[i]);
}

#define E API_ETAG
#define OPEN_NOW (API_OPEN | API_INLINE)

const struct api_route api_routes[] = {
	{ "GET", "/api", api_h_index, "", API_INLINE, "this list of endpoints" },
	{ "GET", "/api/openapi.json", api_h_openapi, "", API_INLINE, "the OpenAPI 3.0 description of the API" },
	{ "GET", "/api/route", h_route, "src,dst", E, "the path from src to dst: hops, ports, VLs, DLID, SL" },
	{ "GET", "/api/connectivity", h_connectivity, "", E, "pairs delivered and not, by class" },
	{ "GET", "/api/reachability/switches", h_reach, "src,dst", E,
	  "which switches reach which (switch-to-switch paths)" },
	{ "GET", "/api/vl-usage", h_vl_usage, "", E, "VLs used and the channel dependency graph per VL" },
	{ "GET", "/api/fabric", h_fabric, "", 0, "fabric counts, shape, routing summary, read-back" },
	{ "GET", "/api/topology", api_h_topology, "format", E | API_GZIP,
	  "switches by level or group, switch-to-switch links with their routes; or Slurm's "
	  "topology.conf (format=slurm-tree|slurm-block)" },
	{ "GET", "/api/hosts", api_h_hosts, "format", 0,
	  "the DLIDs the routing plans for every host: path bits, UCX settings (format=json|text|ucx|env)" },
	{ "GET", "/api/hosts/{}", api_h_host, "format", 0, "the same for one host" },
	{ "GET", "/api/search", h_search, "q,limit", E,
	  "nodes named exactly by q, then those whose description holds it" },
	{ "GET", "/api/nodes", h_nodes, "type", E, "every node" },
	{ "GET", "/api/nodes/{}", h_node, "", E, "one node with its ports" },
	{ "GET", "/api/links", h_links, "offset,limit", E | API_GZIP, "every link, a page at a time" },
	{ "GET", "/api/lids", h_lids, "", E, "every LID range" },
	{ "GET", "/api/lfts", h_lfts, "switch", E,
	  "the published LFTs in opensm-lfts.dump format (every switch, or one)" },
	{ "GET", "/api/engines", h_engines, "", E, "the routing engines and their options" },
	{ "GET", "/api/config", h_config, "", 0, "the effective configuration" },
	{ "GET", "/api/events", h_events, "since,before,type,limit", 0, "events, oldest first, a page at a time" },
	{ "GET", "/api/snapshots", h_snapshots, "limit,before", 0, "stored snapshots, newest first, a page at a time" },
	{ "GET", "/api/snapshots/{}", h_snapshot, "", 0, "one snapshot" },
	{ "GET", "/api/snapshots/{}/diff/{}", h_diff, "", 0, "what changed between two snapshots" },
	{ "GET", "/api/faults", h_faults, "", 0, "the simulated faults in force" },
	{ "POST", "/api/engine", h_engine, "", API_WRITE, "select the engine chain (then reroute)" },
	{ "POST", "/api/reroute", h_reroute, "", API_WRITE, "ask for a reroute" },
	{ "POST", "/api/faults", h_fault, "", API_WRITE, "simulate a link or switch going down or up" },
	{ "POST", "/api/whatif", api_h_whatif, "", API_WRITE,
	  "what removing links or switches would do, without doing it (one at a time)" },
	{ "GET", "/api/ready", h_ready, "", OPEN_NOW, "200 when every pair is delivered and every VL deadlock-free" },
	{ "GET", "/api/health", h_health, "", OPEN_NOW, "liveness, counters and the source's state" },
	{ "GET", "/metrics", h_metrics, "", API_GZIP, "Prometheus metrics" },
};

const size_t api_nroutes = sizeof(api_routes) / sizeof(api_routes[0]);
