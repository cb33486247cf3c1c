/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute status, route, reach, vl, events
 *
 * The read-only questions to a running fabrouted: its state on one screen
 * (GET /api/fabric, /api/ready, /api/health: epoch, fabric, readiness,
 * source, read-back drift, store), the path of one pair (/api/route, also
 * in ibtracert's layout: cli/ibfmt.c), switch-to-switch reachability
 * (/api/reachability/switches), VL usage and deadlock freedom
 * (/api/vl-usage) and the event history (/api/events). Each prints text,
 * or the daemon's JSON with --json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"

/* --- shared ------------------------------------------------------------- */

/* GET @path and print the JSON with --json; CLI_OK with @r filled to print as text. */
static int client_query(struct client *c, const char *path, struct client_resp *r, int *printed)
{
	int rc = client_get(c, path, 0, r);

	*printed = 0;
	if (rc == CLI_OK && c->json) {
		rc = client_print_json(r->json);
		*printed = 1;
	}
	return rc;
}

/* "(epoch 4, minhop)" from an answer's "epoch" member. */
static void print_epoch_tag(const json_t *answer)
{
	const json_t *e = json_object_get(answer, "epoch");

	printf(" (epoch %lld, %s)\n", client_int(e, "seq"), client_str(e, "engine", "?"));
}

/* Width of the widest "node" member of the objects of @a, at least @min. */
static int node_width(const json_t *a, int min)
{
	size_t i;
	json_t *v;
	int w = min;

	json_array_foreach(a, i, v) {
		int n = (int)strlen(client_str(v, "node", ""));

		w = n > w ? n : w;
	}
	return w;
}

/* The out port of a hop: its number, or "none" (255: no LFT entry). */
static const char *out_port(const json_t *hop, char *buf, size_t size)
{
	long long p = client_int(hop, "out_port");

	if (p < 0 || p >= 255)
		return "none";
	snprintf(buf, size, "%lld", p);
	return buf;
}

/* The hops of a path, one a line: node, GUID, in port -> out port, VL. */
static void print_hops(const json_t *hops)
{
	int w = node_width(hops, 4);
	char port[16];
	size_t i;
	json_t *h;

	if (!json_array_size(hops))
		return;
	printf("  %3s  %-*s  %-18s  %3s -> %-4s  %s\n", "#", w, "NODE", "GUID", "IN", "OUT", "VL");
	json_array_foreach(hops, i, h)
		printf("  %3zu  %-*s  %-18s  %3lld -> %-4s  %lld\n", i + 1, w,
		       client_str(h, "node", "?"), client_str(h, "guid", "?"), client_int(h, "in_port"),
		       out_port(h, port, sizeof(port)), client_int(h, "vl"));
}

/* One endpoint: "node-000  0x0002fab200000010 port 1, LID 55 (CA)". */
static void print_endpoint(const char *label, const json_t *ep)
{
	printf("%-6s %s  %s port %lld, LID %lld (%s)\n", label, client_str(ep, "node", "?"),
	       client_str(ep, "guid", "?"), client_int(ep, "port"), client_int(ep, "lid"),
	       client_str(ep, "type", "?"));
}

/* --- status ------------------------------------------------------------- */

static const struct client_cmd status_cmd = {
	.name = "status",
	.usage = "Usage: fabroute status [OPTIONS]\n"
		 "\n"
		 "Summarise the running fabrouted on one screen: the epoch in use (sequence,\n"
		 "engine, why and when it was published), the fabric, whether the daemon is\n"
		 "ready (and the checks that fail), the reroutes, the source (with OpenSM:\n"
		 "the plugin's connections and its routing passes routed, fallen back, timed\n"
		 "out or failed), the LFT read-back (entries the switches hold that differ\n"
		 "from the published tables) and the store.\n"
		 "With --json, prints {\"fabric\", \"ready\", \"health\"}: the three answers.\n"
		 "Exit status: 0 ready, 4 not ready, 1 no answer or an error answer.\n",
};

static void status_shape(const json_t *fab)
{
	const json_t *sh = json_object_get(fab, "shape");
	char lv[256];

	printf("topology:   hash %s, ", client_str(fab, "topology_hash", "?"));
	if (client_bool(sh, "is_tree"))
		printf("tree");
	else if (client_int(sh, "groups"))
		printf("dragonfly of %lld groups", client_int(sh, "groups"));
	else
		printf("irregular");
	printf(", %lld switch levels (%s), %lld component%s\n", client_int(sh, "levels"),
	       client_ints(json_object_get(sh, "per_level"), lv, sizeof(lv)),
	       client_int(sh, "components"), client_int(sh, "components") == 1 ? "" : "s");
}

static void status_fabric(const json_t *fab)
{
	const json_t *e = json_object_get(fab, "epoch"), *rt = json_object_get(fab, "routing");
	char vls[128];

	if (!e) {
		printf("epoch:      none: %s\n", client_str(json_object_get(fab, "error"), "message",
							 "no routing published yet"));
		return;
	}
	printf("epoch:      %lld", client_int(e, "seq"));
	if (client_int(e, "snapshot_id") > 0)	/* 0 until the store has it */
		printf(" (snapshot %lld)", client_int(e, "snapshot_id"));
	printf(", published %s, reason: %s\n", client_str(e, "published", "?"), client_str(e, "reason", "?"));
	printf("engine:     %s (chain %s)\n", client_str(e, "engine", "?"), client_str(e, "chain", "?"));
	printf("fabric:     %lld nodes (%lld switches, %lld CAs, %lld routers), %lld links, "
	       "%lld endpoints, LIDs up to %lld\n", client_int(fab, "nodes"), client_int(fab, "switches"),
	       client_int(fab, "cas"), client_int(fab, "routers"), client_int(fab, "links"),
	       client_int(fab, "endpoints"), client_int(fab, "lid_top"));
	status_shape(fab);
	printf("routing:    %s, %s; VLs %s; max link load %lld; computed in %.0f ms, evaluated in %.0f ms\n",
	       client_bool(rt, "connected") ? "connected" : "NOT connected",
	       client_bool(rt, "deadlock_free") ? "deadlock-free" : "deadlock possible",
	       client_ints(json_object_get(rt, "vls_used"), vls, sizeof(vls)),
	       client_int(rt, "max_link_load"), client_real(rt, "compute_ms"), client_real(rt, "eval_ms"));
}

static void status_ready(const json_t *ready, const json_t *health)
{
	size_t i;
	json_t *f;

	printf("ready:      %s\n", client_bool(ready, "ready") ? "yes" : "no");
	json_array_foreach(json_object_get(ready, "failing"), i, f)
		printf("  failing:  %s\n", json_string_value(f) ? json_string_value(f) : "?");
	printf("reroutes:   %lld ok, %lld failed, %s\n", client_int(health, "reroutes_ok"),
	       client_int(health, "reroutes_failed"),
	       client_bool(health, "reroute_in_progress") ? "one in progress" : "none in progress");
	printf("daemon:     fabrouted %s, up %.1f s\n", client_str(health, "version", "?"),
	       client_real(health, "uptime_s"));
}

/* Where the fabric comes from: the file, or OpenSM's plugin with its connections and passes. */
static void status_source(const json_t *health)
{
	const json_t *src = json_object_get(health, "source"), *p = json_object_get(src, "passes");
	long long route = client_int(src, "route_connections"), control = client_int(src, "control_connections");

	if (strcmp(client_str(src, "type", "?"), "opensm")) {
		printf("source:     %s\n", client_str(src, "type", "?"));
		return;
	}
	printf("source:     opensm, plugin %s on %s (%lld route, %lld control connection%s)\n",
	       route + control ? "connected" : "NOT connected", client_str(src, "socket", "?"), route, control,
	       control == 1 ? "" : "s");
	printf("passes:     %lld routed, %lld fallback, %lld timeout, %lld error; %lld routings answered, "
	       "%lld failed\n", client_int(p, "routed"), client_int(p, "fallback"), client_int(p, "timeout"),
	       client_int(p, "error"), client_int(src, "routings"), client_int(src, "failures"));
}

/* The last LFT read-back (source opensm): the switches' tables against the published ones. */
static void status_readback(const json_t *rb, long long seq)
{
	size_t i;
	json_t *x;

	if (!rb)
		return;
	if (!client_bool(rb, "enabled") || json_is_null(json_object_get(rb, "epoch"))) {
		printf("read-back:  %s\n", client_bool(rb, "enabled") ? "on, nothing read yet" : "off");
		return;
	}
	printf("read-back:  epoch %lld", client_int(rb, "epoch"));
	if (client_int(rb, "epoch") != seq)
		printf(" (epoch %lld in use)", seq);
	printf(": %lld of %lld switches read in %.0f ms", client_int(rb, "switches_read"),
	       client_int(rb, "switches"), client_real(rb, "ms"));
	if (client_str(rb, "error", NULL))
		printf(", incomplete: %s", client_str(rb, "error", ""));
	if (client_int(rb, "entries_drifting"))
		printf("; DRIFT: %lld LFT entr%s on %lld switch%s differ%s from the published tables\n",
		       client_int(rb, "entries_drifting"), client_int(rb, "entries_drifting") == 1 ? "y" : "ies",
		       client_int(rb, "switches_drifting"), client_int(rb, "switches_drifting") == 1 ? "" : "es",
		       client_int(rb, "entries_drifting") == 1 ? "s" : "");
	else
		printf("; no drift\n");
	json_array_foreach(json_object_get(rb, "examples"), i, x)
		printf("  drift:    %s %s LID %lld: port %lld programmed, %lld computed\n",
		       client_str(x, "node", "?"), client_str(x, "guid", "?"), client_int(x, "lid"),
		       client_int(x, "programmed"), client_int(x, "computed"));
}

/* The store: writable or not (and why), and whether the epoch in use is stored. */
static void status_store(const json_t *st)
{
	if (!st)
		return;
	if (client_bool(st, "ok"))
		printf("store:      ok, %s; %lld errors since the start\n",
		       client_bool(st, "epoch_stored") ? "epoch stored" : "epoch not stored yet",
		       client_int(st, "errors"));
	else
		printf("store:      NOT writable%s: %s; %lld errors since the start\n",
		       client_bool(st, "disk_full") ? " (disk full)" : "", client_str(st, "error", "?"),
		       client_int(st, "errors"));
}

static int status_print(struct client *c, json_t *fab, json_t *ready, json_t *health)
{
	json_t *all;
	int rc;

	if (!c->json) {
		status_fabric(fab);
		status_ready(ready, health);
		status_source(health);
		status_readback(json_object_get(fab, "readback"),
				client_int(json_object_get(fab, "epoch"), "seq"));
		status_store(json_object_get(health, "store"));
		return CLI_OK;
	}
	all = json_pack("{s:O, s:O, s:O}", "fabric", fab, "ready", ready, "health", health);
	if (!all) {
		cli_err("out of memory joining the status answers");
		return CLI_FAIL;
	}
	rc = client_print_json(all);
	json_decref(all);
	return rc;
}

int cmd_status(int argc, char **argv)
{
	struct client_resp fab = { 0 }, ready = { 0 }, health = { 0 };
	struct client c;
	int rc = client_args(&c, &status_cmd, argc, argv, NULL);

	if (rc || c.help)
		return client_done(&c, rc);
	/* 503: no epoch yet, which status reports rather than fails on. */
	rc = client_get(&c, "/api/fabric", 503, &fab);
	if (rc == CLI_OK)
		rc = client_get(&c, "/api/ready", 503, &ready);
	if (rc == CLI_OK)
		rc = client_get(&c, "/api/health", 0, &health);
	if (rc == CLI_OK)
		rc = status_print(&c, fab.json, ready.json, health.json);
	if (rc == CLI_OK && !client_bool(ready.json, "ready"))
		rc = CLIENT_EXIT_NOT_OK;
	client_resp_free(&fab);
	client_resp_free(&ready);
	client_resp_free(&health);
	return client_done(&c, rc);
}

/* --- route -------------------------------------------------------------- */

static const struct option route_longopts[] = {
	{ "format", required_argument, NULL, CLIENT_OPT_FORMAT },
	{ NULL, 0, NULL, 0 },
};

/* --format: 0 text, 1 ibtracert. */
static int route_option(void *ctx, int opt, const char *arg)
{
	if (strcmp(arg, "text") && strcmp(arg, "ibtracert"))
		return cli_usage_err("route", "--format '%s': expected text or ibtracert", arg);
	*(int *)ctx = !strcmp(arg, "ibtracert");
	return CLI_OK;
}

static const struct client_cmd route_cmd = {
	.name = "route",
	.args = "SRC and DST",
	.usage = "Usage: fabroute route [OPTIONS] SRC DST\n"
		 "\n"
		 "Trace the path from SRC to DST through the LFTs of the epoch in use, with\n"
		 "the DLID and SL the routing gives the pair: one line per switch crossed\n"
		 "(node, GUID, in port -> out port, VL). SRC and DST are LIDs, port or node\n"
		 "GUIDs (0x...) or node descriptions.\n"
		 "Exit status: 0 delivered, 4 not delivered, 1 no answer or an error answer\n"
		 "(an unknown node, for one).\n"
		 "\n"
		 "Options:\n"
		 "      --format F  text (default) or ibtracert: the layout 'ibtracert SLID\n"
		 "                  DLID' prints the path in (From, one line per port\n"
		 "                  entered, To), for the DLID the routing gives the pair\n",
	.min_args = 2,
	.max_args = 2,
	.extra = route_longopts,
	.option = route_option,
};

static void route_text(const json_t *r)
{
	const json_t *src = json_object_get(r, "src"), *dst = json_object_get(r, "dst");

	printf("%s -> %s", client_str(src, "node", "?"), client_str(dst, "node", "?"));
	print_epoch_tag(r);
	print_endpoint("from:", src);
	print_endpoint("to:", dst);
	printf("DLID %lld, SL %lld, %lld hop%s\n", client_int(r, "dlid"), client_int(r, "sl"),
	       client_int(r, "hop_count"), client_int(r, "hop_count") == 1 ? "" : "s");
	print_hops(json_object_get(r, "hops"));
	if (client_bool(r, "delivered"))
		printf("delivered\n");
	else
		printf("not delivered: %s\n", client_str(r, "failure", "unknown failure"));
}

int cmd_route(int argc, char **argv)
{
	struct client_resp r = { 0 };
	struct client c;
	char *path = NULL;
	int printed, tracert = 0, rc = client_args(&c, &route_cmd, argc, argv, &tracert);

	if (rc == CLI_OK && !c.help && tracert && c.json)
		rc = cli_usage_err("route", "give --json or --format ibtracert, not both");
	if (rc || c.help)
		return client_done(&c, rc);
	path = client_path(&c, "/api/route", "src", c.args[0], "dst", c.args[1], NULL);
	rc = path ? client_query(&c, path, &r, &printed) : CLI_FAIL;
	if (rc == CLI_OK && tracert)
		rc = ibfmt_route(&c, r.json);
	else if (rc == CLI_OK && !printed)
		route_text(r.json);
	if (rc == CLI_OK && !client_bool(r.json, "delivered"))
		rc = CLIENT_EXIT_NOT_OK;
	free(path);
	client_resp_free(&r);
	return client_done(&c, rc);
}

/* --- reach -------------------------------------------------------------- */

static const struct client_cmd reach_cmd = {
	.name = "reach",
	.args = "SRC and DST, or nothing",
	.usage = "Usage: fabroute reach [OPTIONS] [SRC DST]\n"
		 "\n"
		 "Switch-to-switch reachability through the LFTs of the epoch in use.\n"
		 "Without arguments: how many ordered switch pairs are not delivered, the\n"
		 "switches involved and example pairs. With two switches (LIDs, GUIDs or\n"
		 "descriptions): whether SRC reaches DST, and the path.\n",
	.min_args = 0,
	.max_args = 2,
};

static void reach_problems(const json_t *per)
{
	int w = node_width(per, 4);
	size_t i;
	json_t *s;

	if (!json_array_size(per))
		return;
	printf("problem switches: %zu\n", json_array_size(per));
	printf("  %-*s  %-18s  %5s  %12s  %16s\n", w, "NODE", "GUID", "LID", "CANNOT REACH",
	       "UNREACHABLE FROM");
	json_array_foreach(per, i, s)
		printf("  %-*s  %-18s  %5lld  %12lld  %16lld\n", w, client_str(s, "node", "?"),
		       client_str(s, "guid", "?"), client_int(s, "lid"), client_int(s, "cannot_reach"),
		       client_int(s, "unreachable_from"));
}

static void reach_examples(const json_t *ex, long long total)
{
	size_t i;
	json_t *e;

	if (!json_array_size(ex))
		return;
	printf("failing pairs (%zu of %lld):\n", json_array_size(ex), total);
	json_array_foreach(ex, i, e)
		printf("  %s -> %s, DLID %lld: %s\n", client_str(json_object_get(e, "src"), "node", "?"),
		       client_str(json_object_get(e, "dst"), "node", "?"), client_int(e, "dlid"),
		       client_str(e, "failure", "?"));
}

static void reach_summary(const json_t *r)
{
	long long bad = client_int(r, "unreachable");

	printf("switch pairs: %lld among %lld switches, %lld not delivered: %s", client_int(r, "pairs"),
	       client_int(r, "switches"), bad, bad ? "incomplete" : "complete");
	print_epoch_tag(r);
	reach_problems(json_object_get(r, "per_switch"));
	reach_examples(json_object_get(r, "examples"), bad);
}

static void reach_pair(const json_t *r)
{
	const json_t *p = json_object_get(r, "path");

	printf("%s -> %s: ", client_str(json_object_get(r, "src"), "node", "?"),
	       client_str(json_object_get(r, "dst"), "node", "?"));
	if (client_bool(r, "reachable"))
		printf("reachable in %lld hop%s", client_int(p, "hop_count"),
		       client_int(p, "hop_count") == 1 ? "" : "s");
	else
		printf("not reachable: %s", client_str(p, "failure", "unknown failure"));
	print_epoch_tag(r);
	print_hops(json_object_get(p, "hops"));
}

int cmd_reach(int argc, char **argv)
{
	struct client_resp r = { 0 };
	struct client c;
	char *path = NULL;
	int printed, rc = client_args(&c, &reach_cmd, argc, argv, NULL);

	if (rc == CLI_OK && !c.help && c.nargs == 1)
		rc = cli_usage_err("reach", "give both SRC and DST, or neither");
	if (rc || c.help)
		return client_done(&c, rc);
	path = client_path(&c, "/api/reachability/switches", "src", c.nargs ? c.args[0] : NULL,
			   "dst", c.nargs ? c.args[1] : NULL, NULL);
	rc = path ? client_query(&c, path, &r, &printed) : CLI_FAIL;
	if (rc == CLI_OK && !printed && c.nargs)
		reach_pair(r.json);
	else if (rc == CLI_OK && !printed)
		reach_summary(r.json);
	free(path);
	client_resp_free(&r);
	return client_done(&c, rc);
}

/* --- vl ------------------------------------------------------------------- */

static const struct client_cmd vl_cmd = {
	.name = "vl",
	.usage = "Usage: fabroute vl [OPTIONS]\n"
		 "\n"
		 "VL usage of the epoch in use: the VLs the paths use and, per VL, the paths,\n"
		 "channels and channel dependencies, and whether the dependency graph is\n"
		 "acyclic; when it is not, a cycle as evidence (a deadlock is possible).\n",
};

static void vl_cycle(const json_t *vl)
{
	const json_t *cyc = json_object_get(vl, "cycle");
	size_t i;
	json_t *ch;

	if (!json_array_size(cyc))
		return;
	printf("cycle on VL %lld (%zu channels, each a switch's output port):\n", client_int(vl, "vl"),
	       json_array_size(cyc));
	json_array_foreach(cyc, i, ch)
		printf("  %s %s port %lld VL %lld ->\n", client_str(ch, "node", "?"),
		       client_str(ch, "guid", "?"), client_int(ch, "port"), client_int(ch, "vl"));
	printf("  (back to %s port %lld)\n", client_str(json_array_get(cyc, 0), "node", "?"),
	       client_int(json_array_get(cyc, 0), "port"));
}

static void vl_text(const json_t *r)
{
	const json_t *vls = json_object_get(r, "vls"), *x = json_object_get(r, "cross_vl");
	const json_t *sl = json_object_get(r, "sl2vl");
	char used[128], sls[128];
	size_t i;
	json_t *v;

	printf("VLs used: %s; %s", client_ints(json_object_get(r, "vls_used"), used, sizeof(used)),
	       client_bool(r, "deadlock_free") ? "deadlock-free" : "deadlock possible");
	print_epoch_tag(r);
	printf("  %3s  %12s  %9s  %12s  %s\n", "VL", "PATHS", "CHANNELS", "DEPENDENCIES", "ACYCLIC");
	json_array_foreach(vls, i, v)
		printf("  %3lld  %12lld  %9lld  %12lld  %s\n", client_int(v, "vl"), client_int(v, "paths"),
		       client_int(v, "channels"), client_int(v, "dependencies"),
		       client_bool(v, "acyclic") ? "yes" : "no");
	json_array_foreach(vls, i, v)
		vl_cycle(v);
	printf("cross-VL dependencies: %lld, %s\n", client_int(x, "dependencies"),
	       client_bool(x, "cycle") ? "a cycle runs through several VLs" : "no cycle across VLs");
	printf("SL2VL: %s, %lld switches with tables; SLs used: %s\n",
	       client_bool(sl, "identity") ? "identity" : "not identity",
	       client_int(sl, "switches_with_tables"),
	       client_ints(json_object_get(sl, "sls_used"), sls, sizeof(sls)));
}

int cmd_vl(int argc, char **argv)
{
	struct client_resp r = { 0 };
	struct client c;
	int printed, rc = client_args(&c, &vl_cmd, argc, argv, NULL);

	if (rc || c.help)
		return client_done(&c, rc);
	rc = client_query(&c, "/api/vl-usage", &r, &printed);
	if (rc == CLI_OK && !printed)
		vl_text(r.json);
	client_resp_free(&r);
	return client_done(&c, rc);
}

/* --- events --------------------------------------------------------------- */

/* What the events options ask the daemon. */
struct events_opts {
	const char *since, *type, *limit;
};

static const struct option events_longopts[] = {
	{ "since", required_argument, NULL, CLIENT_OPT_SINCE },
	{ "type", required_argument, NULL, CLIENT_OPT_TYPE },
	{ "limit", required_argument, NULL, CLIENT_OPT_LIMIT },
	{ NULL, 0, NULL, 0 },
};

static int events_option(void *ctx, int opt, const char *arg)
{
	struct events_opts *o = ctx;
	unsigned long long v;

	if (opt == CLIENT_OPT_SINCE)
		o->since = arg;
	else if (opt == CLIENT_OPT_TYPE)
		o->type = arg;
	else if (cli_parse_uint(arg, 1000, &v) || v == 0)
		return cli_usage_err("events", "--limit '%s': expected an integer 1..1000", arg);
	else
		o->limit = arg;
	return CLI_OK;
}

static const struct client_cmd events_cmd = {
	.name = "events",
	.usage = "Usage: fabroute events [OPTIONS]\n"
		 "\n"
		 "The daemon's event history, oldest first, one line per event: id, time,\n"
		 "type, message.\n"
		 "\n"
		 "Options:\n"
		 "      --since ID|TIME  events after event ID, or from TIME on\n"
		 "                       (2026-11-21T10:00:00Z)\n"
		 "      --type T         only events of type T: trap, fault, reroute, error,\n"
		 "                       engine, config or daemon\n"
		 "      --limit N        the newest N events (1..1000, default 100)\n",
	.extra = events_longopts,
	.option = events_option,
};

static void events_text(const json_t *r)
{
	const json_t *ev = json_object_get(r, "events");
	size_t i;
	json_t *e;

	if (!json_array_size(ev))
		printf("no events\n");
	json_array_foreach(ev, i, e)
		printf("%6lld  %-24s  %-7s  %s\n", client_int(e, "id"), client_str(e, "time", "?"),
		       client_str(e, "type", "?"), client_str(e, "message", ""));
}

int cmd_events(int argc, char **argv)
{
	struct events_opts o = { 0 };
	struct client_resp r = { 0 };
	struct client c;
	char *path = NULL;
	int printed, rc = client_args(&c, &events_cmd, argc, argv, &o);

	if (rc || c.help)
		return client_done(&c, rc);
	path = client_path(&c, "/api/events", "since", o.since, "type", o.type, "limit", o.limit, NULL);
	rc = path ? client_query(&c, path, &r, &printed) : CLI_FAIL;
	if (rc == CLI_OK && !printed)
		events_text(r.json);
	free(path);
	client_resp_free(&r);
	return client_done(&c, rc);
}
