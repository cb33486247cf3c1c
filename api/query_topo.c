/* SPDX-License-Identifier: MIT */
/**
 * DOC: GET /api/topology
 *
 * What a picture of the fabric needs in one answer: the switches with
 * their level (fat trees: 1 for leaves) or dragonfly group and the CAs they
 * carry, and every switch-to-switch link with the routes crossing it in
 * each direction under all-to-all traffic (api/linkload.c).
 */
#include <stdlib.h>

#include "analysis/report.h"
#include "api/query_impl.h"

static json_t *opt_index(uint32_t v)
{
	return v == FAB_NONE ? json_null() : json_integer((json_int_t)v);
}

static json_t *switch_json(const struct fabric *f, const struct fab_shape *sh, uint32_t s)
{
	uint32_t node = f->switches[s], cas = 0;

	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t peer = fab_port(f, node, p)->peer;

		cas += peer != FAB_NONE && f->nodes[peer].type != FAB_SWITCH;
	}
	return json_pack("{s:s, s:o, s:i, s:i, s:o, s:i}", "node", fab_desc(f, node),
			 "guid", an_json_guid(f->nodes[node].guid),
			 "lid", (json_int_t)fab_port(f, node, 0)->lid, "level", (json_int_t)sh->level[s],
			 "group", opt_index(sh->ngroups ? sh->group[s] : FAB_NONE), "cas", (json_int_t)cas);
}

/* Switch-to-switch links, once each (from the lower node index), with routes both ways. */
static json_t *links_json(const struct fabric *f, const uint64_t *routes, uint64_t *max)
{
	json_t *list = json_array();

	for (uint32_t n = 0; list && n < f->nnodes; n++) {
		if (f->nodes[n].type != FAB_SWITCH)
			continue;
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *x = fab_port(f, n, p);
			uint64_t ab, ba;

			if (x->peer == FAB_NONE || f->nodes[x->peer].type != FAB_SWITCH ||
			    x->peer < n || (x->peer == n && x->peer_port < p))
				continue;
			ab = routes[f->nodes[n].port0 + p];
			ba = routes[f->nodes[x->peer].port0 + x->peer_port];
			*max = ab > *max ? ab : *max;
			*max = ba > *max ? ba : *max;
			json_array_append_new(list, json_pack("{s:o, s:o, s:I, s:I}",
				"a", apiq_port_ref(f, n, p), "b", apiq_port_ref(f, x->peer, x->peer_port),
				"routes_ab", (json_int_t)ab, "routes_ba", (json_int_t)ba));
		}
	}
	return list;
}

json_t *apiq_topology(struct epoch *e, struct api_err *err)
{
	json_t *o = apiq_begin(e, err), *sw, *links;
	struct fab_err ferr = { { 0 } };
	const uint64_t *routes;
	struct fab_shape sh;
	uint64_t max = 0;

	if (!o)
		return NULL;
	routes = api_link_routes(e);
	if (!routes || fab_shape(e->fabric, &sh, &ferr)) {
		json_decref(o);
		api_err_set(err, 500, "internal", "topology: %s", routes ? ferr.msg : "out of memory");
		return NULL;
	}
	sw = json_array();
	for (uint32_t s = 0; sw && s < e->fabric->nswitches; s++)
		json_array_append_new(sw, switch_json(e->fabric, &sh, s));
	links = links_json(e->fabric, routes, &max);
	if (json_object_update_new(o, json_pack("{s:s, s:i, s:i, s:o, s:o, s:I}",
		"kind", sh.ngroups ? "dragonfly" : sh.is_tree ? "tree" : "other",
		"levels", (json_int_t)sh.nlevels, "groups", (json_int_t)sh.ngroups,
		"switches", sw, "links", links, "max_routes", (json_int_t)max))) {
		json_decref(o);
		o = NULL;
	}
	fab_shape_free(&sh);
	return apiq_end(o, err);
}
