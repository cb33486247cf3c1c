/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute route, reach, vl - questions about the routing in force
 *
 * The path of one pair (GET /api/route, also in ibtracert's layout:
 * cli/ibfmt.c), switch-to-switch reachability (/api/reachability/switches),
 * VL usage and deadlock freedom (/api/vl-usage). Each prints text, or the
 * daemon's JSON with --json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"

/* --- paths, shared by route and reach ---------------------------------- */

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
	client_epoch_tag(r);
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
	client_epoch_tag(r);
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
	client_epoch_tag(r);
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
	client_epoch_tag(r);
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
