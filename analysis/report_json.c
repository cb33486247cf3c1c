/* SPDX-License-Identifier: MIT */
/**
 * DOC: JSON reports
 *
 * Builds the documented JSON objects (doc/eval-json.md) from analysis
 * results. GUIDs are strings ("0x0002c90300001234") so that no JSON reader
 * loses precision; counts are integers.
 */
#include <inttypes.h>
#include <stdio.h>

#include "analysis/report.h"

json_t *an_json_bits(uint32_t mask)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < 32; i++)
		if (mask & (1u << i))
			json_array_append_new(a, json_integer(i));
	return a;
}

json_t *an_json_guid(uint64_t guid)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%016" PRIx64, guid);
	return json_string(s);
}

json_t *an_json_endpoint(const struct fabric *f, uint32_t ep)
{
	const struct fab_ep *e = &f->eps[ep];
	const struct fab_node *n = &f->nodes[e->node];

	return json_pack("{s:s, s:o, s:s, s:i, s:i}", "node", fab_desc(f, e->node),
			 "guid", an_json_guid(n->guid), "type", fab_node_type_name(n->type),
			 "port", (json_int_t)e->port, "lid", (json_int_t)fab_ep_lid(f, ep));
}

static json_t *channel_json(const struct fabric *f, const struct an_channel *c)
{
	return json_pack("{s:s, s:o, s:i, s:i}", "node", fab_desc(f, c->node),
			 "guid", an_json_guid(f->nodes[c->node].guid), "port", (json_int_t)c->port,
			 "vl", (json_int_t)c->vl);
}

json_t *an_json_path(const struct fabric *f, const struct an_path *p)
{
	json_t *hops = json_array();

	for (uint32_t i = 0; i < p->nhops; i++) {
		const struct an_hop *h = &p->hops[i];

		json_array_append_new(hops, json_pack("{s:s, s:o, s:i, s:i, s:i}",
			"node", fab_desc(f, h->node), "guid", an_json_guid(f->nodes[h->node].guid),
			"in_port", (json_int_t)h->in_port, "out_port", (json_int_t)h->out_port,
			"vl", (json_int_t)h->vl));
	}
	return json_pack("{s:b, s:s, s:i, s:o}", "delivered", p->fail == AN_DELIVERED,
			 "failure", an_fail_name(p->fail), "hop_count", (json_int_t)p->nhops,
			 "hops", hops);
}

static json_t *class_json(const struct fabric *f, const struct an_conn *c, enum an_class k)
{
	json_t *by = json_object(), *ex = json_array();

	for (unsigned i = 1; i < AN_NFAILS; i++)
		if (c->by_fail[k][i])
			json_object_set_new(by, an_fail_name(i), json_integer((json_int_t)c->by_fail[k][i]));
	for (uint32_t i = 0; i < c->nex[k]; i++) {
		const struct an_example *e = &c->ex[k][i];

		json_array_append_new(ex, json_pack("{s:o, s:o, s:i, s:s}",
			"src", an_json_endpoint(f, e->src), "dst", an_json_endpoint(f, e->dst),
			"dlid", (json_int_t)e->dlid, "failure", an_fail_name(e->fail)));
	}
	return json_pack("{s:I, s:I, s:o, s:o}", "pairs", (json_int_t)c->pairs[k],
			 "unreachable", (json_int_t)c->unreachable[k], "by_failure", by,
			 "examples", ex);
}

json_t *an_json_conn(const struct fabric *f, const struct an_report *rep, const struct an_opts *o)
{
	json_t *classes = json_object();

	for (unsigned k = 0; k < AN_NCLASSES; k++)
		json_object_set_new(classes, an_class_name(k), class_json(f, &rep->conn, k));
	return json_pack("{s:b, s:b, s:i, s:o}", "connected", an_connected(rep),
			 "all_lids", o->all_lids, "max_hops", (json_int_t)rep->conn.max_hops,
			 "classes", classes);
}

json_t *an_json_vl(const struct fabric *f, const struct an_vl *v, unsigned vl)
{
	json_t *cyc = json_array();

	for (uint32_t i = 0; i < v->cycle_len; i++)
		json_array_append_new(cyc, channel_json(f, &v->cycle[i]));
	return json_pack("{s:i, s:I, s:i, s:I, s:b, s:o}", "vl", (json_int_t)vl,
			 "paths", (json_int_t)v->paths, "channels", (json_int_t)v->channels,
			 "dependencies", (json_int_t)v->deps, "acyclic", v->acyclic, "cycle", cyc);
}

static json_t *cdg_json(const struct fabric *f, const struct an_cdg *c, const struct an_opts *o)
{
	json_t *used = json_array(), *vls = json_array();

	for (unsigned v = 0; v < AN_VLS; v++) {
		if (c->vls_used & (1u << v))
			json_array_append_new(used, json_integer(v));
		if ((c->vls_used & (1u << v)) || c->vl[v].channels)
			json_array_append_new(vls, an_json_vl(f, &c->vl[v], v));
	}
	return json_pack("{s:b, s:b, s:o, s:I, s:b, s:o}", "deadlock_free", c->deadlock_free,
			 "ca_only", o->ca_only, "vls_used", used,
			 "cross_vl_dependencies", (json_int_t)c->cross_deps,
			 "cross_vl_cycle", c->cross_cycle, "vls", vls);
}

static json_t *load_json(const struct fabric *f, const struct an_load *l)
{
	json_t *hist = json_array();

	for (unsigned i = 0; i < AN_LOAD_BUCKETS; i++)
		json_array_append_new(hist, json_integer(l->hist[i]));
	return json_pack("{s:i, s:I, s:f, s:{s:s, s:o, s:i}, s:o, s:f, s:{s:i, s:s?}}",
			 "switch_links", (json_int_t)l->sw_channels, "max", (json_int_t)l->max,
			 "mean", l->mean,
			 "busiest", "node", l->sw_channels ? fab_desc(f, l->max_node) : "",
			 "guid", an_json_guid(l->sw_channels ? f->nodes[l->max_node].guid : 0),
			 "port", (json_int_t)l->max_port,
			 "histogram", hist, "ca_max_link_load", l->ca_max_load,
			 "balance", "max_spread", (json_int_t)l->balance_max,
			 "switch", l->balance_max ? fab_desc(f, l->balance_node) : NULL);
}

json_t *an_json_report(const struct fabric *f, const struct an_report *rep,
		       const struct an_opts *o)
{
	char hash[24];
	json_t *root;

	snprintf(hash, sizeof(hash), "%016" PRIx64, fab_topology_hash(f));
	root = json_pack("{s:s, s:{s:s, s:i, s:i, s:i, s:i}, s:o, s:o}", "schema", AN_JSON_SCHEMA,
			 "fabric", "hash", hash, "nodes", (json_int_t)f->nnodes,
			 "switches", (json_int_t)f->nswitches, "endpoints", (json_int_t)f->neps,
			 "links", (json_int_t)f->nlinks,
			 "connectivity", an_json_conn(f, rep, o), "deadlock", cdg_json(f, &rep->cdg, o));
	if (root && o->load)
		json_object_set_new(root, "load", load_json(f, &rep->load));
	return root;
}

static json_t *metric_json(const struct an_perm_metric *m)
{
	return json_pack("{s:f, s:f, s:i}", "mean", m->mean, "ci99", m->ci,
			 "samples", (json_int_t)m->samples);
}

json_t *an_json_perm(const struct fabric *f, const struct an_perm *p,
		     const struct an_perm_opts *o)
{
	json_t *root = json_pack("{s:i}", "machines", (json_int_t)p->machines);

	if (!root)
		return NULL;
	if (o->worst && !p->worst)
		json_object_set_new(root, "worst", json_pack("{s:i}", "load", 0));
	else if (o->worst)
		json_object_set_new(root, "worst", json_pack("{s:i, s:{s:s, s:o, s:i}}",
			"load", (json_int_t)p->worst, "link", "node", fab_desc(f, p->worst_node),
			"guid", an_json_guid(f->nodes[p->worst_node].guid),
			"port", (json_int_t)p->worst_port));
	if (o->sample) {
		json_object_set_new(root, "abb", metric_json(&p->abb));
		json_object_set_new(root, "afpb", metric_json(&p->afpb));
		json_object_set_new(root, "adb", metric_json(&p->adb));
		json_object_set_new(root, "seed", json_integer((json_int_t)o->seed));
	}
	return root;
}
