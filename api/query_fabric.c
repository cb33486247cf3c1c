/* SPDX-License-Identifier: MIT */
/**
 * DOC: API queries about the fabric
 *
 * GET /api/fabric, /api/nodes, /api/nodes/{guid}, /api/links, /api/lids
 * and /api/engines: the fabric of the epoch as routed (with the LIDs the
 * routing uses), and the engines the daemon can route with. Lists are in
 * fabric order (nodes and links as discovered, LIDs ascending), so the same
 * epoch always gives the same bytes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/report.h"
#include "api/query_impl.h"
#include "engines/engine.h"
#include "formats/formats.h"

/* --- small builders ------------------------------------------------------ */

static json_t *width_json(unsigned w)
{
	return w ? json_string(fmt_width_name(w)) : json_null();
}

static json_t *speed_json(unsigned s)
{
	return s ? json_string(fmt_speed_name(s)) : json_null();
}

static const char *state_name(unsigned s)
{
	static const char *const names[] = { "unknown", "down", "init", "armed", "active" };

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

static const char *phys_name(unsigned s)
{
	switch (s) {
	case FAB_PHYS_POLLING: return "polling";
	case FAB_PHYS_DISABLED: return "disabled";
	case FAB_PHYS_LINKUP: return "linkup";
	default: return "unknown";
	}
}

/* Merge @body into @o (both consumed); NULL when either is missing. */
static json_t *merge(json_t *o, json_t *body, struct api_err *err)
{
	if (!body || json_object_update(o, body)) {
		json_decref(o);
		o = NULL;
	}
	json_decref(body);
	return apiq_end(o, err);
}

/* --- GET /api/fabric ----------------------------------------------------- */

static json_t *shape_json(const struct fab_shape *sh)
{
	json_t *per = json_array();

	for (uint32_t l = 1; per && l <= sh->nlevels && l <= FAB_LEVELS_MAX; l++)
		json_array_append_new(per, json_integer(sh->per_level[l]));
	return json_pack("{s:b, s:i, s:o, s:i, s:i, s:i}", "is_tree", sh->is_tree,
			 "levels", (json_int_t)sh->nlevels, "per_level", per,
			 "hlinks", (json_int_t)sh->hlinks, "groups", (json_int_t)sh->ngroups,
			 "components", (json_int_t)sh->components);
}

static json_t *routing_json(const struct epoch *e)
{
	const struct an_report *rep = &e->report;
	json_t *load = e->opts.load ? json_integer((json_int_t)rep->load.max) : json_null();
	json_t *ca_load = e->opts.load ? json_real(rep->load.ca_max_load) : json_null();
	const char *digest = epoch_digest(e);

	return json_pack("{s:b, s:b, s:o, s:o, s:o, s:b, s:f, s:f, s:s?}", "connected", an_connected(rep),
			 "deadlock_free", rep->cdg.deadlock_free,
			 "vls_used", an_json_bits(rep->cdg.vls_used), "max_link_load", load,
			 "ca_max_link_load", ca_load, "ready", epoch_ready(e),
			 "compute_ms", e->compute_ms, "eval_ms", e->eval_ms,
			 "digest", digest[0] ? digest : NULL);
}

static json_t *counts_json(const struct epoch *e, json_t *shape)
{
	const struct fabric *f = e->fabric;
	uint32_t cas = 0, routers = 0;
	unsigned lmc = 0;
	uint64_t h = e->topo_hash ? e->topo_hash : fab_topology_hash(f);
	char hash[24];

	for (uint32_t n = 0; n < f->nnodes; n++) {
		cas += f->nodes[n].type == FAB_CA;
		routers += f->nodes[n].type == FAB_ROUTER;
	}
	for (uint32_t ep = 0; ep < f->neps; ep++)
		if (fab_ep_lmc(f, ep) > lmc)
			lmc = fab_ep_lmc(f, ep);
	snprintf(hash, sizeof(hash), "%016" PRIx64, h);
	return json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:o}",
			 "topology_hash", hash, "nodes", (json_int_t)f->nnodes,
			 "switches", (json_int_t)f->nswitches, "cas", (json_int_t)cas,
			 "routers", (json_int_t)routers, "links", (json_int_t)f->nlinks,
			 "endpoints", (json_int_t)f->neps, "lid_top", (json_int_t)f->lid_top,
			 "lmc_max", (json_int_t)lmc, "shape", shape, "routing", routing_json(e));
}

json_t *apiq_fabric(const struct epoch *e, struct api_err *err)
{
	json_t *o = apiq_begin(e, err), *shape;
	struct fab_err ferr = { { 0 } };
	struct fab_shape sh;

	if (!o)
		return NULL;
	if (fab_shape(e->fabric, &sh, &ferr)) {
		json_decref(o);
		api_err_set(err, 500, "internal", "shape: %s", ferr.msg);
		return NULL;
	}
	shape = shape_json(&sh);
	fab_shape_free(&sh);
	return merge(o, counts_json(e, shape), err);
}

/* --- GET /api/nodes ------------------------------------------------------ */

unsigned apiq_node_lid(const struct fabric *f, uint32_t n)
{
	if (f->nodes[n].type == FAB_SWITCH)
		return fab_port(f, n, 0)->lid;
	for (unsigned p = 1; p <= f->nodes[n].nports; p++)
		if (fab_port_linked(f, n, p))
			return fab_port(f, n, p)->lid;
	return 0;
}

static unsigned node_links(const struct fabric *f, uint32_t n)
{
	unsigned links = 0;

	for (unsigned p = 1; p <= f->nodes[n].nports; p++)
		links += fab_port_linked(f, n, p);
	return links;
}

/* ?type=: 0 for all, else enum fab_node_type; -1 with 400 when unknown. */
static int type_filter(const char *type, struct api_err *err)
{
	static const char *const names[] = {
		[FAB_CA] = "ca", [FAB_SWITCH] = "sw", [FAB_ROUTER] = "rt",
	};

	if (!type)
		return 0;
	for (int t = FAB_CA; t <= FAB_ROUTER; t++)
		if (!strcasecmp(type, names[t]))
			return t;
	api_err_set(err, 400, "bad_parameter", "type: '%.64s' is not ca, sw or rt", type);
	return -1;
}

static json_t *node_summary(const struct fabric *f, uint32_t n)
{
	const struct fab_node *x = &f->nodes[n];

	return json_pack("{s:o, s:s, s:s, s:i, s:i, s:i}", "guid", an_json_guid(x->guid),
			 "node", fab_desc(f, n), "type", fab_node_type_name(x->type),
			 "ports", (json_int_t)x->nports, "lid", (json_int_t)apiq_node_lid(f, n),
			 "links", (json_int_t)node_links(f, n));
}

json_t *apiq_nodes(const struct epoch *e, const char *type, struct api_err *err)
{
	json_t *o = apiq_begin(e, err), *list;
	const struct fabric *f;
	int t;

	if (!o)
		return NULL;
	t = type_filter(type, err);
	if (t < 0) {
		json_decref(o);
		return NULL;
	}
	f = e->fabric;
	list = json_array();
	for (uint32_t n = 0; list && n < f->nnodes; n++)
		if (!t || f->nodes[n].type == t)
			json_array_append_new(list, node_summary(f, n));
	return merge(o, json_pack("{s:i, s:o}", "count", (json_int_t)json_array_size(list),
				  "nodes", list), err);
}

/* --- GET /api/nodes/{guid} ----------------------------------------------- */

static json_t *port_json(const struct fabric *f, uint32_t n, unsigned p)
{
	const struct fab_port *x = fab_port(f, n, p);
	json_t *peer = x->peer == FAB_NONE ? json_null() : apiq_port_ref(f, x->peer, x->peer_port);

	return json_pack("{s:i, s:o, s:i, s:i, s:o, s:o, s:s, s:s, s:o}", "port", (json_int_t)p,
			 "guid", an_json_guid(x->guid), "lid", (json_int_t)x->lid,
			 "lmc", (json_int_t)x->lmc, "width", width_json(x->width),
			 "speed", speed_json(x->speed), "state", state_name(x->state),
			 "phys", phys_name(x->phys),
			 "peer", peer);
}

/* The switch's LFT: LIDs with a port, and the highest of them. */
static json_t *lft_json(const struct rt_routing *r, uint32_t sw)
{
	const uint8_t *lft = rt_lft(r, sw);
	uint32_t entries = 0, top = 0;

	for (uint32_t lid = 1; lid < r->lft_len; lid++)
		if (lft[lid] != RT_NO_PORT) {
			entries++;
			top = lid;
		}
	return json_pack("{s:i, s:i}", "entries", (json_int_t)entries, "lid_top", (json_int_t)top);
}

json_t *apiq_node(const struct epoch *e, const char *id, struct api_err *err)
{
	json_t *o = apiq_begin(e, err), *ports, *body;
	const struct fab_node *x;
	const struct fabric *f;
	uint32_t n;

	if (!o)
		return NULL;
	f = e->fabric;
	n = apiq_resolve_node(f, "node", id, err);
	if (n == FAB_NONE) {
		json_decref(o);
		return NULL;
	}
	x = &f->nodes[n];
	ports = json_array();
	for (unsigned p = x->type == FAB_SWITCH ? 0 : 1; ports && p <= x->nports; p++)
		json_array_append_new(ports, port_json(f, n, p));
	body = json_pack("{s:o, s:s, s:s, s:o, s:i, s:i, s:o}", "guid", an_json_guid(x->guid),
			 "node", fab_desc(f, n), "type", fab_node_type_name(x->type),
			 "system_guid", an_json_guid(x->sysimg_guid),
			 "vendor_id", (json_int_t)x->vendor_id,
			 "device_id", (json_int_t)x->device_id, "ports", ports);
	if (body && x->type == FAB_SWITCH)
		json_object_set_new(body, "lft", lft_json(e->routing, x->swidx));
	return merge(o, body, err);
}

/* --- GET /api/links ------------------------------------------------------ */

/* Port @p of node @n is the end a link is listed from: the lower (node, port). */
static int link_end(const struct fabric *f, uint32_t n, unsigned p)
{
	const struct fab_port *x = fab_port(f, n, p);

	return x->peer != FAB_NONE && (x->peer > n || (x->peer == n && x->peer_port > p));
}

static json_t *link_json(const struct fabric *f, uint32_t n, unsigned p)
{
	const struct fab_port *x = fab_port(f, n, p);

	return json_pack("{s:o, s:o, s:o, s:o}", "a", apiq_port_ref(f, n, p),
			 "b", apiq_port_ref(f, x->peer, x->peer_port),
			 "width", width_json(x->width), "speed", speed_json(x->speed));
}

json_t *apiq_links(const struct epoch *e, size_t offset, size_t limit, struct api_err *err)
{
	json_t *o = apiq_begin(e, err), *list;
	const struct fabric *f;
	size_t i = 0;

	if (!o)
		return NULL;
	f = e->fabric;
	list = json_array();
	for (uint32_t n = 0; list && n < f->nnodes; n++)
		for (unsigned p = 1; p <= f->nodes[n].nports; p++)
			if (link_end(f, n, p) && i++ >= offset && i <= offset + limit)
				json_array_append_new(list, link_json(f, n, p));
	return merge(o, json_pack("{s:I, s:I, s:o, s:b}", "count", (json_int_t)i, "offset", (json_int_t)offset,
				  "links", list, "more", i > offset + limit), err);
}

/* --- GET /api/lids ------------------------------------------------------- */

struct lid_ep {
	uint32_t lid, ep;
};

static int lid_cmp(const void *a, const void *b)
{
	const struct lid_ep *x = a, *y = b;

	return x->lid < y->lid ? -1 : x->lid > y->lid;
}

static json_t *lid_json(const struct fabric *f, uint32_t ep)
{
	const struct fab_ep *x = &f->eps[ep];

	return json_pack("{s:i, s:i, s:i, s:o, s:s, s:i, s:s}", "lid", (json_int_t)fab_ep_lid(f, ep),
			 "lmc", (json_int_t)fab_ep_lmc(f, ep), "lids", (json_int_t)1 << fab_ep_lmc(f, ep),
			 "guid", an_json_guid(fab_port(f, x->node, x->port)->guid),
			 "node", fab_desc(f, x->node), "port", (json_int_t)x->port,
			 "type", fab_node_type_name(f->nodes[x->node].type));
}

json_t *apiq_lids(const struct epoch *e, struct api_err *err)
{
	json_t *o = apiq_begin(e, err), *list;
	const struct fabric *f;
	struct lid_ep *v;
	uint32_t n = 0;
	json_int_t total = 0;

	if (!o)
		return NULL;
	f = e->fabric;
	v = malloc(((size_t)f->neps + 1) * sizeof(*v));
	list = json_array();
	for (uint32_t ep = 0; v && ep < f->neps; ep++)
		if (fab_ep_lid(f, ep)) {
			v[n++] = (struct lid_ep){ fab_ep_lid(f, ep), ep };
			total += (json_int_t)1 << fab_ep_lmc(f, ep);
		}
	if (v)
		qsort(v, n, sizeof(*v), lid_cmp);
	for (uint32_t i = 0; v && list && i < n; i++)
		json_array_append_new(list, lid_json(f, v[i].ep));
	if (!v) {
		json_decref(list);
		list = NULL;
	}
	free(v);
	return merge(o, json_pack("{s:i, s:I, s:o}", "count", (json_int_t)n, "lids_total", total,
				  "lids", list), err);
}

/* --- GET /api/engines ---------------------------------------------------- */

/* @name is one of the comma-separated engines of @chain. */
static int in_chain(const char *chain, size_t size, const char *name)
{
	size_t len = strlen(name), end = strnlen(chain, size);

	for (size_t i = 0; i < end;) {
		size_t n = strcspn(chain + i, ",");

		if (n > end - i)
			n = end - i;
		if (n == len && !strncmp(chain + i, name, len))
			return 1;
		i += n + 1;
	}
	return 0;
}

static json_t *engine_json(const struct engine *g, const struct epoch *e)
{
	return json_pack("{s:s, s:s, s:b, s:i, s:o, s:b}", "name", g->name,
			 "summary", g->summary ? g->summary : "", "deadlock_free", g->deadlock_free,
			 "vls", (json_int_t)g->vls, "options", eng_options_json(g),
			 "selected", e && in_chain(e->chain, sizeof(e->chain), g->name));
}

static json_t *name_or_null(const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	return n ? json_stringn(s, n) : json_null();
}

json_t *apiq_engines(const struct epoch *e, struct api_err *err)
{
	size_t n;
	const struct engine *const *all = eng_all(&n);
	json_t *list = json_array();

	for (size_t i = 0; list && i < n; i++)
		json_array_append_new(list, engine_json(all[i], e));
	if (!e)
		return apiq_end(json_pack("{s:n, s:o, s:n, s:n}", "epoch", "engines", list,
					  "chain", "engine"), err);
	return apiq_end(json_pack("{s:o, s:o, s:o, s:o}", "epoch", apiq_epoch_json(e),
				  "engines", list,
				  "chain", name_or_null(e->chain, sizeof(e->chain)),
				  "engine", name_or_null(e->engine, sizeof(e->engine))), err);
}
