/* SPDX-License-Identifier: MIT */
/**
 * DOC: GET /api/hosts, /api/hosts/{host}, /api/topology?format=
 *
 * What the routing in force gives the hosts and the schedulers:
 *
 *  - /api/hosts[/{host}]?format=json|text|ucx|env: the DLIDs the routing
 *    plans for every host, or one (formats/fmt_hosts.c): per port its path
 *    bits, the value of UCX_IB_LID_PATH_BITS, the destinations reached at
 *    other DLIDs. {host} is a host name, or anything that names one of its
 *    CA's ports or nodes (a GUID, a LID, a description);
 *  - /api/topology?format=slurm-tree|slurm-block: Slurm's topology.conf
 *    (formats/fmt_slurm.c); without format (or json), the dashboard's
 *    picture of the fabric (api/query_topo.c).
 *
 * Hosts and switches are named by their node descriptions, which carry the
 * daemon's node_name_map names when it has one. Text answers are text/plain.
 */
#include <stdlib.h>
#include <string.h>

#include "api/query_impl.h"
#include "api/server_impl.h"
#include "formats/formats.h"

/* The epoch to answer from, routed, and its hosts in @hs; NULL after answering 503 or 500. */
static struct epoch *routed_hosts(struct api_req *rq, struct api_resp *rs, struct fmt_hosts *hs)
{
	struct epoch *e = rq->epoch ? epoch_ref(rq->epoch) : rq->hooks->epoch(rq->hooks->ud);
	struct fab_err why = { { 0 } };

	if (!e || !e->fabric || !e->routing) {
		epoch_unref(e);
		api_fail_new(rs, 503, "not_routed", "no routing published yet");
		return NULL;
	}
	if (fmt_hosts_build(e->fabric, hs, &why)) {
		api_fail_new(rs, 500, "internal", "%s", why.msg);
		epoch_unref(e);
		return NULL;
	}
	return e;
}

/* @text (taken) as the answer, when @rc says it was written; 0, or -1 after answering 500. */
static int text_answer(struct api_resp *rs, const struct fab_err *why, int rc, char *text)
{
	if (rc) {
		free(text);
		api_fail_new(rs, 500, "internal", "%s", why->msg[0] ? why->msg : "out of memory");
		return -1;
	}
	rs->text = text;
	rs->ctype = "text/plain; charset=utf-8";
	return 0;
}

/* The host {host} names: a host name, or a port or node of one of its CAs. */
static uint32_t find_host(const struct fabric *f, const struct fmt_hosts *hs, const char *text,
			  struct api_err *err)
{
	uint32_t h = fmt_hosts_find(hs, text), node;
	char name[FAB_DESC_MAX + 24];

	if (h != FAB_NONE)
		return h;
	if ((node = apiq_resolve_node(f, "host", text, err)) == FAB_NONE)
		return FAB_NONE;
	if (f->nodes[node].type != FAB_CA) {
		api_err_set(err, 400, "bad_parameter", "host: '%.64s' names %s '%s', not a host's CA",
			    text, fab_node_type_name(f->nodes[node].type), fab_desc(f, node));
		return FAB_NONE;
	}
	fmt_host_name(f, node, name, sizeof(name));
	if ((h = fmt_hosts_find(hs, name)) == FAB_NONE)
		api_err_set(err, 404, "not_found", "host: '%.64s' has no linked port", text);
	return h;
}

static void hosts_answer(struct api_req *rq, struct api_resp *rs, const char *host)
{
	const char *format = api_arg(rq, "format");
	struct fmt_hosts hs;
	struct fab_err why = { { 0 } };
	struct api_err err;
	uint32_t only = FAB_NONE;
	struct epoch *e;
	int fmt = format ? fmt_hosts_format_from_name(format) : FMT_HOSTS_JSON;

	if (fmt < 0) {
		api_fail_new(rs, 400, "bad_parameter", "format: expected json, text, ucx or env, found "
			     "'%.64s'", format);
		return;
	}
	if (!(e = routed_hosts(rq, rs, &hs)))
		return;
	if (host && (apiq_check_text("host", host, &err) ||
		     (only = find_host(e->fabric, &hs, host, &err)) == FAB_NONE)) {
		api_fail(rs, &err);
	} else if (fmt == FMT_HOSTS_JSON) {
		json_t *o = apiq_begin(e, &err), *body = fmt_hosts_json(e->fabric, e->routing, &hs, only);

		if (o && body && !json_object_update(o, body))
			rs->json = o;
		else
			api_fail_new(rs, 500, "internal", "out of memory");
		if (!rs->json)
			json_decref(o);
		json_decref(body);
	} else {
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);
		int rc = !mem || fmt_hosts_write(mem, e->fabric, e->routing, &hs, only,
						 (enum fmt_hosts_fmt)fmt);

		if (mem)
			rc |= fclose(mem);
		text_answer(rs, &why, rc, text);
	}
	fmt_hosts_free(&hs);
	epoch_unref(e);
}

void api_h_hosts(struct api_req *rq, struct api_resp *rs)
{
	hosts_answer(rq, rs, NULL);
}

void api_h_host(struct api_req *rq, struct api_resp *rs)
{
	hosts_answer(rq, rs, rq->seg[0]);
}

/* ?format=slurm-tree|slurm-block as text; else the dashboard's JSON. */
void api_h_topology(struct api_req *rq, struct api_resp *rs)
{
	const char *format = api_arg(rq, "format");
	struct fmt_hosts hs;
	struct fab_err why = { { 0 } };
	struct api_err err;
	struct epoch *e;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int form = format ? fmt_slurm_format_from_name(format) : -1, rc;

	if (format && form < 0 && strcmp(format, "json")) {
		api_fail_new(rs, 400, "bad_parameter", "format: expected json, slurm-tree or slurm-block, "
			     "found '%.64s'", format);
		return;
	}
	if (form < 0) {
		e = rq->epoch ? epoch_ref(rq->epoch) : rq->hooks->epoch(rq->hooks->ud);
		if (!(rs->json = apiq_topology(e, &err)))
			api_fail(rs, &err);
		epoch_unref(e);
		return;
	}
	if (!(e = routed_hosts(rq, rs, &hs)))
		return;
	mem = open_memstream(&text, &len);
	rc = !mem || fmt_slurm_write(mem, e->fabric, &hs, (enum fmt_slurm)form, NULL, 0, NULL, &why);
	if (mem)
		rc |= fclose(mem);
	if (rc && why.msg[0]) {	/* the fabric has no such form: the request cannot be met */
		free(text);
		api_fail_new(rs, 409, "conflict", "format %s: %s", format, why.msg);
	} else {
		text_answer(rs, &why, rc, text);
	}
	fmt_hosts_free(&hs);
	epoch_unref(e);
}
