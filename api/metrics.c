/* SPDX-License-Identifier: MIT */
/**
 * DOC: /metrics, the epoch's part
 *
 * Prometheus text exposition (format 0.0.4) of the current epoch: fabric
 * counts, pairs and unreachable pairs by class, VLs, deadlock freedom,
 * load (the busiest link), timings and the epoch sequence. Gauges only; the
 * counters (reroutes, requests) come from the daemon and the server. The
 * OpenSM source's figures and the routes per switch-to-switch link (every
 * link, the busiest N, or none: metrics_link_routes) are formatted here
 * (api_osm_metrics(), api_link_metrics()) for the daemon's part.
 *
 * Values are written as integers when they are whole, else with at most
 * six decimals: 0.1 + 0.2 is "0.3", not 0.30000000000000004.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/server_impl.h"

void api_metric_value(FILE *o, double v)
{
	char buf[64];
	size_t n;

	if (isnan(v) || isinf(v)) {
		fputs(isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf", o);
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15) {
		fprintf(o, "%.0f", v);
		return;
	}
	snprintf(buf, sizeof(buf), "%.6f", v);
	for (n = strlen(buf); n > 1 && buf[n - 1] == '0'; n--)
		buf[n - 1] = '\0';
	if (buf[n - 1] == '.')
		buf[n - 1] = '\0';
	fputs(strcmp(buf, "-0") ? buf : "0", o);
}

void api_metric(FILE *o, const char *type, const char *name, const char *help, double v)
{
	fprintf(o, "# HELP %s %s\n# TYPE %s %s\n%s ", name, help, name, type, name);
	api_metric_value(o, v);
	fputc('\n', o);
}

void api_histogram(FILE *o, const char *name, const char *help, const double *bounds_ms,
		   unsigned n, const uint64_t *hist, double sum_ms)
{
	uint64_t cum = 0;

	fprintf(o, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (unsigned b = 0; b <= n; b++) {
		cum += hist[b];
		if (b < n)
			fprintf(o, "%s_bucket{le=\"%g\"} %llu\n", name, bounds_ms[b] / 1e3,
				(unsigned long long)cum);
		else
			fprintf(o, "%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)cum);
	}
	fprintf(o, "%s_sum %.6f\n%s_count %llu\n", name, sum_ms / 1e3, name, (unsigned long long)cum);
}

void api_label_value(FILE *o, const char *s)
{
	for (; *s; s++)
		if (*s == '\\' || *s == '"')
			fprintf(o, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", o);
		else
			fputc(*s, o);
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
	if (connected >= 0)
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

int api_link_mode_parse(const char *s, unsigned *top)
{
	char *end;
	unsigned long n;

	if (!strcmp(s, "all") || !strcmp(s, "off")) {
		*top = !strcmp(s, "all") ? UINT32_MAX : 0;
		return 0;
	}
	if (strncmp(s, "top:", 4) || !isdigit((unsigned char)s[4]))
		return -1;
	errno = 0;
	n = strtoul(s + 4, &end, 10);
	if (*end || errno || n < 1 || n > 1000000)
		return -1;
	*top = (unsigned)n;
	return 0;
}

struct link_slot {
	uint64_t routes, guid;
	uint32_t node;
	unsigned port;
};

/* Busiest first; ties by GUID and port, so the same routing lists the same links. */
static int busier(const void *a, const void *b)
{
	const struct link_slot *x = a, *y = b;

	if (x->routes != y->routes)
		return x->routes < y->routes ? 1 : -1;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

/* The switch-to-switch links' directions with their routes; their count in *@n. */
static struct link_slot *link_slots(const struct fabric *f, const uint64_t *routes, size_t *n)
{
	struct link_slot *v = malloc(((size_t)f->nports + 1) * sizeof(*v));

	*n = 0;
	for (uint32_t s = 0; v && s < f->nswitches; s++) {
		uint32_t node = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			const struct fab_port *x = fab_port(f, node, p);

			if (x->peer != FAB_NONE && f->nodes[x->peer].type == FAB_SWITCH)
				v[(*n)++] = (struct link_slot){ routes[f->nodes[node].port0 + p],
								 f->nodes[node].guid, node, p };
		}
	}
	return v;
}

void api_link_metrics(FILE *o, struct epoch *e, unsigned top)
{
	const struct fabric *f = e ? e->fabric : NULL;
	const uint64_t *routes = top ? api_link_routes_wait(e, API_LINK_WAIT_MS) : NULL;
	struct link_slot *v;
	size_t n;

	if (!routes || !(v = link_slots(f, routes, &n)))
		return;
	if (top < n) {
		qsort(v, n, sizeof(*v), busier);
		n = top;
	}
	fputs("# HELP fabroute_link_routes Endpoint pairs routed over a switch-to-switch link, "
	      "from guid:port to remote_guid:remote_port, under all-to-all traffic "
	      "(metrics_link_routes: every link or the busiest N).\n"
	      "# TYPE fabroute_link_routes gauge\n", o);
	for (size_t i = 0; i < n; i++) {
		const struct fab_port *x = fab_port(f, v[i].node, v[i].port);

		fprintf(o, "fabroute_link_routes{guid=\"0x%016" PRIx64 "\",port=\"%u\",node=\"", v[i].guid, v[i].port);
		api_label_value(o, fab_desc(f, v[i].node));
		fprintf(o, "\",remote_guid=\"0x%016" PRIx64 "\",remote_port=\"%u\",remote_node=\"",
			f->nodes[x->peer].guid, x->peer_port);
		api_label_value(o, fab_desc(f, x->peer));
		fprintf(o, "\"} %" PRIu64 "\n", v[i].routes);
	}
	free(v);
}

char *api_epoch_metrics(struct epoch *e, int ready)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	unsigned vls = 0;

	if (!o)
		return NULL;
	gauge(o, "fabroute_routed", "1 when a routing is published.", e != NULL);
	gauge(o, "fabroute_ready", "1 when /api/ready answers 200: every pair reachable, every VL "
	      "deadlock-free, the switches read back hold the published tables, the store takes writes.", ready);
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
