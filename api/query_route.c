/* SPDX-License-Identifier: MIT */
/**
 * DOC: API queries about the routing
 *
 * GET /api/route, /api/reachability/switches, /api/connectivity and
 * /api/vl-usage. Routes are traced through the epoch's LFTs with
 * an_trace(), using the DLID and SL the routing gives the pair (what an SA
 * PathRecord would return). Connectivity and VL usage come from the
 * epoch's evaluation report, computed when the epoch was built.
 *
 * Switch-to-switch reachability is computed on request by
 * an_reach_switches(): O(switches^2), about 8 ms for 864 switches.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/report.h"
#include "api/query_impl.h"

/** Failing switch pairs listed by GET /api/reachability/switches. */
#define APIQ_REACH_EXAMPLES 20u

/* --- route ------------------------------------------------------------- */

/* The path's hops with the node type each crosses (an_json_path() omits it). */
static void add_hop_types(json_t *path, const struct fabric *f, const struct an_path *p)
{
	json_t *hops = json_object_get(path, "hops");

	for (uint32_t i = 0; i < p->nhops; i++) {
		enum fab_node_type t = f->nodes[p->hops[i].node].type;

		json_object_set_new(json_array_get(hops, i), "type",
				    json_string(fab_node_type_name(t)));
	}
}

/* Trace the pair as the routing addresses it; 500 when out of memory. */
static int trace_pair(const struct epoch *e, uint32_t src, uint32_t dst, struct an_path *p,
		      unsigned *dlid, unsigned *sl, struct api_err *err)
{
	*dlid = rt_dlid(e->routing, e->fabric, src, dst);
	*sl = rt_path_sl(e->routing, src, dst);
	if (an_trace(e->fabric, e->routing, src, *dlid, *sl, p)) {
		api_err_set(err, 500, "internal", "out of memory tracing the path");
		return -1;
	}
	return 0;
}

/* Resolve src and dst; both or neither must be found. */
static int resolve_pair(const struct fabric *f, const char *src, const char *dst, uint32_t *s,
			uint32_t *d, struct api_err *err)
{
	*s = api_resolve(f, "src", src, err);
	if (*s == FAB_NONE)
		return -1;
	*d = api_resolve(f, "dst", dst, err);
	return *d == FAB_NONE ? -1 : 0;
}

json_t *apiq_route(const struct epoch *e, const char *src, const char *dst, struct api_err *err)
{
	json_t *o = apiq_begin(e, err), *path;
	struct an_path p;
	uint32_t s, d;
	unsigned dlid, sl;

	if (!o)
		return NULL;
	if (resolve_pair(e->fabric, src, dst, &s, &d, err) ||
	    trace_pair(e, s, d, &p, &dlid, &sl, err)) {
		json_decref(o);
		return NULL;
	}
	json_object_set_new(o, "src", an_json_endpoint(e->fabric, s));
	json_object_set_new(o, "dst", an_json_endpoint(e->fabric, d));
	json_object_set_new(o, "dlid", json_integer(dlid));
	json_object_set_new(o, "dlid_offset", json_integer(dlid - fab_ep_lid(e->fabric, d)));
	json_object_set_new(o, "sl", json_integer(sl));
	path = an_json_path(e->fabric, &p);
	if (!path) {
		json_decref(o);
		o = NULL;
	} else {
		add_hop_types(path, e->fabric, &p);
		json_object_update(o, path);
		json_decref(path);
	}
	an_path_free(&p);
	return apiq_end(o, err);
}

/* --- reachability between switches -------------------------------------- */

static json_t *per_switch_json(const struct fabric *f, const struct an_reach *st)
{
	json_t *a = json_array();

	for (uint32_t s = 0; a && s < f->nswitches; s++) {
		uint32_t node = f->switches[s];

		if (!st->cannot[s] && !st->from[s])
			continue;
		json_array_append_new(a, json_pack("{s:s, s:o, s:i, s:i, s:i}",
			"node", fab_desc(f, node), "guid", an_json_guid(f->nodes[node].guid),
			"lid", (json_int_t)fab_ep_lid(f, s),
			"cannot_reach", (json_int_t)st->cannot[s],
			"unreachable_from", (json_int_t)st->from[s]));
	}
	return a;
}

static json_t *examples_json(const struct fabric *f, const struct an_reach *st)
{
	json_t *a = json_array();

	for (uint32_t i = 0; a && i < st->nex; i++) {
		const struct an_example *x = &st->ex[i];

		json_array_append_new(a, json_pack("{s:o, s:o, s:i, s:s}",
			"src", an_json_endpoint(f, x->src), "dst", an_json_endpoint(f, x->dst),
			"dlid", (json_int_t)x->dlid, "failure", an_fail_name((enum an_fail)x->fail)));
	}
	return a;
}

static json_t *reach_all(const struct epoch *e, json_t *o, struct api_err *err)
{
	struct an_reach st;
	struct fab_err ferr;
	json_t *sum;

	if (an_reach_switches(e->fabric, e->routing, APIQ_REACH_EXAMPLES, &st, &ferr)) {
		json_decref(o);
		api_err_set(err, 500, "internal", "%s", ferr.msg);
		return NULL;
	}
	sum = json_pack("{s:i, s:I, s:I, s:b, s:o, s:o}", "switches",
			(json_int_t)e->fabric->nswitches, "pairs", (json_int_t)st.pairs,
			"unreachable", (json_int_t)st.unreachable, "complete", st.unreachable == 0,
			"per_switch", per_switch_json(e->fabric, &st),
			"examples", examples_json(e->fabric, &st));
	an_reach_free(&st);
	if (!sum || json_object_update(o, sum)) {
		json_decref(o);
		o = NULL;
	}
	json_decref(sum);
	return apiq_end(o, err);
}

static int need_switch(const struct fabric *f, const char *param, const char *text, uint32_t ep,
		       struct api_err *err)
{
	uint32_t node = f->eps[ep].node;

	if (f->nodes[node].type == FAB_SWITCH)
		return 0;
	api_err_set(err, 400, "bad_parameter", "%s: '%s' names %s '%s', not a switch", param, text,
		    fab_node_type_name(f->nodes[node].type), FAB_LABEL(f, node));
	return -1;
}

static json_t *reach_pair(const struct epoch *e, json_t *o, const char *src, const char *dst,
			  struct api_err *err)
{
	const struct fabric *f = e->fabric;
	struct an_path p;
	uint32_t s, d;
	unsigned dlid, sl;

	if (resolve_pair(f, src, dst, &s, &d, err) || need_switch(f, "src", src, s, err) ||
	    need_switch(f, "dst", dst, d, err) || trace_pair(e, s, d, &p, &dlid, &sl, err)) {
		json_decref(o);
		return NULL;
	}
	json_object_set_new(o, "src", an_json_endpoint(f, s));
	json_object_set_new(o, "dst", an_json_endpoint(f, d));
	json_object_set_new(o, "reachable", json_boolean(p.fail == AN_DELIVERED));
	json_object_set_new(o, "path", an_json_path(f, &p));
	an_path_free(&p);
	return apiq_end(o, err);
}

json_t *apiq_reach_switches(const struct epoch *e, const char *src, const char *dst,
			    struct api_err *err)
{
	json_t *o = apiq_begin(e, err);

	if (!o)
		return NULL;
	if (!src && !dst)
		return reach_all(e, o, err);
	if (src && dst)
		return reach_pair(e, o, src, dst, err);
	json_decref(o);
	api_err_set(err, 400, "missing_parameter", "%s: missing; give both src and dst, or neither",
		    src ? "dst" : "src");
	return NULL;
}

/* --- connectivity and VL usage (from the evaluation report) -------------- */

json_t *apiq_connectivity(const struct epoch *e, struct api_err *err)
{
	json_t *o = apiq_begin(e, err), *conn;

	if (!o)
		return NULL;
	conn = an_json_conn(e->fabric, &e->report, &e->opts);
	if (!conn || json_object_update(o, conn)) {
		json_decref(o);
		o = NULL;
	}
	json_decref(conn);
	return apiq_end(o, err);
}

/* SLs of all pairs' paths: bit s set when some pair uses SL s. */
static uint32_t sls_used(const struct rt_routing *r)
{
	uint32_t mask = 0;

	if (!r->path_sl)
		return 1;
	for (uint32_t s = 0; s < r->neps; s++)
		for (uint32_t d = 0; d < r->neps; d++)
			if (s != d)
				mask |= 1u << (r->path_sl[(size_t)s * r->neps + d] % RT_SLS);
	return mask ? mask : 1;
}

/* switches_with_tables, sls_used, identity (no table maps any SL off VL 0). */
static json_t *sl2vl_json(const struct fabric *f, const struct rt_routing *r)
{
	uint32_t tables = 0;
	int zero = 1;

	for (uint32_t s = 0; s < r->nswitches; s++) {
		size_t dim = (size_t)f->nodes[f->switches[s]].nports + 1;

		if (!r->sl2vl[s])
			continue;
		tables++;
		for (size_t i = 0; zero && i < dim * dim * RT_SLS; i++)
			zero = r->sl2vl[s][i] == 0;
	}
	return json_pack("{s:i, s:o, s:b}", "switches_with_tables", (json_int_t)tables,
			 "sls_used", an_json_bits(sls_used(r)), "identity", zero);
}

/* The VLs some hop uses, each with "cycle": null when acyclic. */
static json_t *vls_json(const struct fabric *f, const struct an_cdg *c)
{
	json_t *a = json_array();

	for (unsigned v = 0; a && v < AN_VLS; v++) {
		json_t *vl;

		if (!(c->vls_used & (1u << v)) && !c->vl[v].channels)
			continue;
		vl = an_json_vl(f, &c->vl[v], v);
		if (vl && !c->vl[v].cycle_len)
			json_object_set_new(vl, "cycle", json_null());
		json_array_append_new(a, vl);
	}
	return a;
}

json_t *apiq_vl_usage(const struct epoch *e, struct api_err *err)
{
	json_t *o = apiq_begin(e, err), *body;
	const struct an_cdg *c;

	if (!o)
		return NULL;
	c = &e->report.cdg;
	body = json_pack("{s:o, s:b, s:o, s:{s:I, s:b}, s:o}", "vls_used", an_json_bits(c->vls_used),
			 "deadlock_free", c->deadlock_free, "vls", vls_json(e->fabric, c),
			 "cross_vl", "dependencies", (json_int_t)c->cross_deps,
			 "cycle", c->cross_cycle,
			 "sl2vl", sl2vl_json(e->fabric, e->routing));
	if (!body || json_object_update(o, body)) {
		json_decref(o);
		o = NULL;
	}
	json_decref(body);
	return apiq_end(o, err);
}
