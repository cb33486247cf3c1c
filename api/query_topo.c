/* SPDX-License-Identifier: MIT */
/**
 * DOC: GET /api/topology
 *
 * What a picture of the fabric needs in one answer: the switches with
 * their level (fat trees: 1 for leaves), pod or dragonfly group and the CAs
 * they carry, every switch-to-switch link with the routes crossing it in
 * each direction under all-to-all traffic, all pairs and CA-to-CA pairs
 * alone (api/linkload.c), and the switch the engine sends the paths from
 * and to switches through, when it names one (sftree's subtree root).
 *
 * The body is built on first use and kept with the epoch: every later
 * answer shares it (jansson's reference counts are atomic, and an answer is
 * only read once built).
 *
 * A pod is a set of switches below the top level of a tree joined by links
 * below the top level: the subtrees of a k-ary or m-port n-tree under its
 * top level, each leaf of a 2-level tree. The dashboard draws a large fabric
 * pod by pod (or group by group).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "api/query_impl.h"

/* How sftree names its subtree root in the routing's notes. */
#define ROOT_TAG "subtree root: '"

static json_t *opt_index(uint32_t v)
{
	return v == FAB_NONE ? json_null() : json_integer((json_int_t)v);
}

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

/*
 * Per switch its pod (FAB_NONE at the top level, outside trees), numbered
 * in switch order; *@npods gets their count. NULL when out of memory.
 */
static uint32_t *pods_of(const struct fabric *f, const struct fab_shape *sh, uint32_t *npods)
{
	uint32_t n = f->nswitches, *up = malloc(((size_t)n + 1) * sizeof(*up));
	uint32_t *pod = malloc(((size_t)n + 1) * sizeof(*pod));

	*npods = 0;
	if (!up || !pod) {
		free(up);
		free(pod);
		return NULL;
	}
	for (uint32_t s = 0; s < n; s++)
		up[s] = s;
	for (uint32_t s = 0; sh->is_tree && s < n; s++) {
		uint32_t node = f->switches[s];

		if (!sh->level[s] || sh->level[s] >= sh->nlevels)
			continue;
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t peer = fab_port(f, node, p)->peer, t;

			if (peer == FAB_NONE || f->nodes[peer].type != FAB_SWITCH)
				continue;
			t = f->nodes[peer].swidx;
			if (sh->level[t] && sh->level[t] < sh->nlevels)
				up[uf_find(up, s)] = uf_find(up, t);
		}
	}
	for (uint32_t s = 0; s < n; s++)
		pod[s] = FAB_NONE;
	for (uint32_t s = 0; s < n; s++) {
		uint32_t r;

		if (!sh->is_tree || !sh->level[s] || sh->level[s] >= sh->nlevels)
			continue;
		r = uf_find(up, s);
		if (pod[r] == FAB_NONE)
			pod[r] = (*npods)++;
		pod[s] = pod[r];
	}
	free(up);
	return pod;
}

static json_t *switch_json(const struct fabric *f, const struct fab_shape *sh, const uint32_t *pod,
			   uint32_t s)
{
	uint32_t node = f->switches[s], cas = 0;

	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t peer = fab_port(f, node, p)->peer;

		cas += peer != FAB_NONE && f->nodes[peer].type != FAB_SWITCH;
	}
	return json_pack("{s:s, s:o, s:i, s:i, s:o, s:o, s:i}", "node", fab_desc(f, node),
			 "guid", an_json_guid(f->nodes[node].guid),
			 "lid", (json_int_t)fab_port(f, node, 0)->lid, "level", (json_int_t)sh->level[s],
			 "group", opt_index(sh->ngroups ? sh->group[s] : FAB_NONE),
			 "pod", opt_index(pod[s]), "cas", (json_int_t)cas);
}

struct maxima {
	uint64_t all, ca;
};

static void keep_max(uint64_t *max, uint64_t a, uint64_t b)
{
	*max = a > *max ? a : *max;
	*max = b > *max ? b : *max;
}

/* Switch-to-switch links, once each (from the lower node index), with routes both ways. */
static json_t *links_json(const struct fabric *f, const uint64_t *all, const uint64_t *ca,
			  struct maxima *max)
{
	json_t *list = json_array();

	for (uint32_t n = 0; list && n < f->nnodes; n++) {
		if (f->nodes[n].type != FAB_SWITCH)
			continue;
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *x = fab_port(f, n, p);
			size_t i = f->nodes[n].port0 + p, j;

			if (x->peer == FAB_NONE || f->nodes[x->peer].type != FAB_SWITCH ||
			    x->peer < n || (x->peer == n && x->peer_port < p))
				continue;
			j = f->nodes[x->peer].port0 + x->peer_port;
			keep_max(&max->all, all[i], all[j]);
			keep_max(&max->ca, ca[i], ca[j]);
			json_array_append_new(list, json_pack("{s:o, s:o, s:I, s:I, s:I, s:I}",
				"a", apiq_port_ref(f, n, p), "b", apiq_port_ref(f, x->peer, x->peer_port),
				"routes_ab", (json_int_t)all[i], "routes_ba", (json_int_t)all[j],
				"ca_routes_ab", (json_int_t)ca[i], "ca_routes_ba", (json_int_t)ca[j]));
		}
	}
	return list;
}

/* The switch the routing's notes name as its subtree root, or null. */
static json_t *root_json(const struct fabric *f, const struct rt_routing *r)
{
	const char *at = r->notes ? strstr(r->notes, ROOT_TAG) : NULL, *end;
	char name[128];
	uint32_t node;
	size_t len;

	if (!at)
		return json_null();
	at += strlen(ROOT_TAG);
	end = strchr(at, '\'');
	len = end ? (size_t)(end - at) : 0;
	if (!len || len >= sizeof(name))
		return json_null();
	memcpy(name, at, len);
	name[len] = '\0';
	node = fab_node_by_desc(f, name, NULL);
	if (node == FAB_NONE || f->nodes[node].type != FAB_SWITCH)
		return json_null();
	return json_pack("{s:s, s:o, s:i}", "node", fab_desc(f, node),
			 "guid", an_json_guid(f->nodes[node].guid),
			 "lid", (json_int_t)fab_port(f, node, 0)->lid);
}

static json_t *body_json(const struct epoch *e, const struct fab_shape *sh, const uint64_t *all,
			 const uint64_t *ca)
{
	const struct fabric *f = e->fabric;
	struct maxima max = { 0, 0 };
	uint32_t npods, *pod = pods_of(f, sh, &npods);
	json_t *sw = pod ? json_array() : NULL, *links;

	for (uint32_t s = 0; sw && s < f->nswitches; s++)
		json_array_append_new(sw, switch_json(f, sh, pod, s));
	free(pod);
	if (!sw)
		return NULL;
	links = links_json(f, all, ca, &max);
	return json_pack("{s:s, s:i, s:i, s:i, s:o, s:o, s:I, s:I, s:o}",
			 "kind", sh->ngroups ? "dragonfly" : sh->is_tree ? "tree" : "other",
			 "levels", (json_int_t)sh->nlevels, "groups", (json_int_t)sh->ngroups,
			 "pods", (json_int_t)npods, "switches", sw, "links", links,
			 "max_routes", (json_int_t)max.all, "max_ca_routes", (json_int_t)max.ca,
			 "subtree_root", root_json(f, e->routing));
}

static void body_free(void *body)
{
	json_decref(body);
}

/* The body, built once per epoch and shared (read only) by every answer. */
static json_t *body_of(struct epoch *e, struct api_err *err)
{
	struct fab_err ferr = { { 0 } };
	const uint64_t *all, *ca;
	struct fab_shape sh;
	json_t *body;

	pthread_mutex_lock(&e->cache_mu);
	body = e->api_cache;
	pthread_mutex_unlock(&e->cache_mu);
	if (body)
		return body;
	all = api_link_routes(e);
	ca = api_link_routes_ca(e);
	if (!all || fab_shape(e->fabric, &sh, &ferr)) {
		api_err_set(err, 500, "internal", "topology: %s", all ? ferr.msg : "out of memory");
		return NULL;
	}
	body = body_json(e, &sh, all, ca);
	fab_shape_free(&sh);
	if (!body) {
		api_err_set(err, 500, "internal", "topology: out of memory");
		return NULL;
	}
	pthread_mutex_lock(&e->cache_mu);
	if (e->api_cache) {	/* another request built it meanwhile */
		json_decref(body);
	} else {
		e->api_cache = body;
		e->api_cache_free = body_free;
	}
	body = e->api_cache;
	pthread_mutex_unlock(&e->cache_mu);
	return body;
}

json_t *apiq_topology(struct epoch *e, struct api_err *err)
{
	json_t *o = apiq_begin(e, err), *body;

	if (!o)
		return NULL;
	body = body_of(e, err);
	if (!body || json_object_update(o, body)) {
		json_decref(o);
		return body ? apiq_end(NULL, err) : NULL;
	}
	return o;
}
