/* SPDX-License-Identifier: MIT */
/**
 * DOC: /metrics, the epoch's part
 *
 * Prometheus text exposition (format 0.0.4) of the current epoch: fabric
 * counts, pairs and unreachable pairs by class, VLs, deadlock freedom,
 * load, timings and the epoch sequence. Gauges only; the counters
 * (reroutes, requests) come from the daemon and the server. The OpenSM
 * source's figures are formatted here (api_osm_metrics()) from the counts
 * the daemon hands in.
 */
#include <stdio.h>
#include <stdlib.h>

#include "api/server_impl.h"

void api_metric(FILE *o, const char *type, const char *name, const char *help, double v)
{
	fprintf(o, "# HELP %s %s\n# TYPE %s %s\n%s %.15g\n", name, help, name, type, name, v);
}

static void gauge(FILE *o, const char *name, const char *help, double v)
{
	api_metric(o, "gauge", name, help, v);
}

void api_osm_metrics(FILE *o, int connected, uint64_t routed, uint64_t fallback, uint64_t timeout,
		     uint64_t error)
{
	fprintf(o, "# HELP fabroute_osm_passes_total OpenSM routing passes, by how they ended (routed: our tables "
		"installed; fallback, timeout, error: OpenSM's next engine routed).\n"
		"# TYPE fabroute_osm_passes_total counter\n"
		"fabroute_osm_passes_total{result=\"routed\"} %llu\nfabroute_osm_passes_total{result=\"fallback\"} %llu\n"
		"fabroute_osm_passes_total{result=\"timeout\"} %llu\nfabroute_osm_passes_total{result=\"error\"} %llu\n",
		(unsigned long long)routed, (unsigned long long)fallback, (unsigned long long)timeout,
		(unsigned long long)error);
	gauge(o, "fabroute_osm_connected", "1 while OpenSM's fabroute-osm plugin is connected.", connected != 0);
}

static void by_class(FILE *o, const char *name, const char *help, const uint64_t *v)
{
	fprintf(o, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
	for (unsigned k = 0; k < AN_NCLASSES; k++)
		fprintf(o, "%s{class=\"%s\"} %llu\n", name, an_class_name(k), (unsigned long long)v[k]);
}

static void fabric_counts(FILE *o, const struct fabric *f)
{
	uint32_t n[4] = { 0 };

	for (uint32_t i = 0; i < f->nnodes; i++)
		n[f->nodes[i].type & 3]++;
	fprintf(o, "# HELP fabroute_fabric_nodes Nodes in the routed fabric, by type.\n"
		"# TYPE fabroute_fabric_nodes gauge\n"
		"fabroute_fabric_nodes{type=\"ca\"} %u\nfabroute_fabric_nodes{type=\"switch\"} %u\n"
		"fabroute_fabric_nodes{type=\"router\"} %u\n", n[FAB_CA], n[FAB_SWITCH], n[FAB_ROUTER]);
	gauge(o, "fabroute_fabric_links", "Links in the routed fabric.", f->nlinks);
	gauge(o, "fabroute_fabric_endpoints", "Endpoints (switch port 0 and linked CA ports).", f->neps);
	gauge(o, "fabroute_fabric_lid_top", "Highest LID in use.", f->lid_top);
}

char *api_epoch_metrics(const struct epoch *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	unsigned vls = 0;

	if (!o)
		return NULL;
	gauge(o, "fabroute_routed", "1 when a routing is published.", e != NULL);
	gauge(o, "fabroute_ready", "1 when every pair is reachable and every VL is deadlock-free.",
	      epoch_ready(e));
	if (e) {
		for (unsigned v = 0; v < AN_VLS; v++)
			vls += (e->report.cdg.vls_used >> v) & 1;
		gauge(o, "fabroute_epoch_seq", "Sequence number of the published epoch.", (double)e->seq);
		gauge(o, "fabroute_epoch_published_timestamp_seconds", "When the epoch was published.",
		      (double)e->published_ms / 1e3);
		fabric_counts(o, e->fabric);
		by_class(o, "fabroute_pairs", "Source-destination pairs evaluated, by class.", e->report.conn.pairs);
		by_class(o, "fabroute_unreachable_pairs", "Pairs the routing does not deliver, by class.",
			 e->report.conn.unreachable);
		gauge(o, "fabroute_vls_used", "Virtual lanes the routing uses.", vls);
		gauge(o, "fabroute_deadlock_free", "1 when every VL's channel dependency graph is acyclic.",
		      e->report.cdg.deadlock_free);
		gauge(o, "fabroute_max_link_load", "Most all-to-all paths over one switch-to-switch link.",
		      (double)e->report.load.max);
		gauge(o, "fabroute_route_compute_seconds", "Time the engine took for this epoch.",
		      e->compute_ms / 1e3);
		gauge(o, "fabroute_route_eval_seconds", "Time the evaluation took for this epoch.",
		      e->eval_ms / 1e3);
	}
	if (fclose(o)) {
		free(buf);
		return NULL;
	}
	return buf;
}
