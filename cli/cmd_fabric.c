/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute status, nodes, links, lft - the fabric the daemon routed
 *
 * Its state on one screen (GET /api/fabric, /api/ready, /api/health: epoch,
 * fabric, readiness, source, read-back drift, store), its nodes
 * (/api/nodes), its links with the routes each carries in each direction
 * (/api/links and /api/topology), and one switch's LFT in ibroute's layout
 * (/api/lfts?switch= and /api/lids, cli/ibfmt.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/client.h"

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
	printf("digest:     %s\n", client_str(rt, "digest", "?"));
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

/* --- nodes ---------------------------------------------------------------- */

static const struct option nodes_longopts[] = {
	{ "type", required_argument, NULL, CLIENT_OPT_TYPE },
	{ NULL, 0, NULL, 0 },
};

static int nodes_option(void *ctx, int opt, const char *arg)
{
	if (strcasecmp(arg, "ca") && strcasecmp(arg, "sw") && strcasecmp(arg, "rt"))
		return cli_usage_err("nodes", "--type '%s': expected ca, sw or rt", arg);
	*(const char **)ctx = arg;
	return CLI_OK;
}

static const struct client_cmd nodes_cmd = {
	.name = "nodes",
	.usage = "Usage: fabroute nodes [OPTIONS]\n"
		 "\n"
		 "The nodes of the fabric the epoch in use routed, in fabric order: type,\n"
		 "node GUID, LID (a switch's port 0; a CA's or router's first linked port),\n"
		 "physical ports, linked ports, description.\n"
		 "\n"
		 "Options:\n"
		 "      --type T  only nodes of type T: ca, sw or rt\n",
	.extra = nodes_longopts,
	.option = nodes_option,
};

static void nodes_text(const json_t *r)
{
	size_t i;
	json_t *n;

	printf("%-4s  %-18s  %5s  %5s  %5s  %s\n", "TYPE", "GUID", "LID", "PORTS", "LINKS", "NODE");
	json_array_foreach(json_object_get(r, "nodes"), i, n)
		printf("%-4s  %-18s  %5lld  %5lld  %5lld  %s\n", client_str(n, "type", "?"),
		       client_str(n, "guid", "?"), client_int(n, "lid"), client_int(n, "ports"),
		       client_int(n, "links"), client_str(n, "node", "?"));
	printf("%lld node%s", client_int(r, "count"), client_int(r, "count") == 1 ? "" : "s");
	client_epoch_tag(r);
}

int cmd_nodes(int argc, char **argv)
{
	struct client_resp r = { 0 };
	const char *type = NULL;
	struct client c;
	char *path;
	int rc = client_args(&c, &nodes_cmd, argc, argv, &type);

	if (rc || c.help)
		return client_done(&c, rc);
	path = client_path(&c, "/api/nodes", "type", type, NULL);
	rc = path ? client_get(&c, path, 0, &r) : CLI_FAIL;
	if (rc == CLI_OK && !client_printed(&c, &r, &rc))
		nodes_text(r.json);
	free(path);
	client_resp_free(&r);
	return client_done(&c, rc);
}

/* --- links ---------------------------------------------------------------- */

static const struct client_cmd links_cmd = {
	.name = "links",
	.usage = "Usage: fabroute links [OPTIONS]\n"
		 "\n"
		 "The links of the fabric the epoch in use routed, each once: both ends\n"
		 "(node:port), width and speed, and for links between switches the\n"
		 "endpoint pairs routed over each direction under all-to-all traffic\n"
		 "(A->B, B->A; '-' for the links of CAs and routers).\n"
		 "With --json, prints {\"links\", \"topology\"}: the two answers.\n",
};

/* "GUID:PORT-GUID:PORT", the key of a link direction. */
static void link_key(char *buf, size_t size, const json_t *a, const json_t *b)
{
	snprintf(buf, size, "%s:%lld-%s:%lld", client_str(a, "guid", "?"), client_int(a, "port"),
		 client_str(b, "guid", "?"), client_int(b, "port"));
}

/* The routes of every switch-to-switch link of GET /api/topology, by direction: {key: [ab, ba]}. */
static json_t *link_routes(const json_t *topo)
{
	json_t *map = json_object(), *l;
	char key[128];
	size_t i;

	json_array_foreach(json_object_get(topo, "links"), i, l) {
		const json_t *a = json_object_get(l, "a"), *b = json_object_get(l, "b");
		json_int_t ab = client_int(l, "routes_ab"), ba = client_int(l, "routes_ba");

		link_key(key, sizeof(key), a, b);
		json_object_set_new(map, key, json_pack("[I, I]", ab, ba));
		link_key(key, sizeof(key), b, a);
		json_object_set_new(map, key, json_pack("[I, I]", ba, ab));
	}
	return map;
}

/* "leaf-00:3" into @buf. */
static const char *end_name(char *buf, size_t size, const json_t *end)
{
	snprintf(buf, size, "%s:%lld", client_str(end, "node", "?"), client_int(end, "port"));
	return buf;
}

static void links_text(const json_t *links, const json_t *topo)
{
	json_t *routes = link_routes(topo), *l;
	char a[300], b[300], key[128];
	int wa = 1, wb = 1;
	size_t i;

	json_array_foreach(json_object_get(links, "links"), i, l) {
		int la = (int)strlen(end_name(a, sizeof(a), json_object_get(l, "a")));
		int lb = (int)strlen(end_name(b, sizeof(b), json_object_get(l, "b")));

		wa = la > wa ? la : wa;
		wb = lb > wb ? lb : wb;
	}
	printf("%-*s      %-*s  %-5s  %-5s  %8s  %8s\n", wa, "A", wb, "B", "WIDTH", "SPEED", "A->B", "B->A");
	json_array_foreach(json_object_get(links, "links"), i, l) {
		const json_t *ea = json_object_get(l, "a"), *eb = json_object_get(l, "b"), *r;
		char ab[24] = "-", ba[24] = "-";

		link_key(key, sizeof(key), ea, eb);
		r = json_object_get(routes, key);
		if (r) {
			snprintf(ab, sizeof(ab), "%lld", (long long)json_integer_value(json_array_get(r, 0)));
			snprintf(ba, sizeof(ba), "%lld", (long long)json_integer_value(json_array_get(r, 1)));
		}
		printf("%-*s  <-> %-*s  %-5s  %-5s  %8s  %8s\n", wa, end_name(a, sizeof(a), ea), wb,
		       end_name(b, sizeof(b), eb), client_str(l, "width", "-"), client_str(l, "speed", "-"), ab, ba);
	}
	printf("%lld link%s, the busiest direction carries %lld routes", client_int(links, "count"),
	       client_int(links, "count") == 1 ? "" : "s", client_int(topo, "max_routes"));
	client_epoch_tag(links);
	json_decref(routes);
}

/*
 * Every link: GET /api/links page after page, into @links (its "links" the
 * whole list), all from one epoch.
 */
static int get_links(struct client *c, struct client_resp *links)
{
	struct client_resp page = { 0 };
	json_t *all;
	char path[64];
	int rc = client_get(c, "/api/links", 0, links);

	while (rc == CLI_OK && json_is_true(json_object_get(links->json, "more"))) {
		all = json_object_get(links->json, "links");
		snprintf(path, sizeof(path), "/api/links?offset=%zu", json_array_size(all));
		rc = client_get(c, path, 0, &page);
		if (rc == CLI_OK && client_int(json_object_get(page.json, "epoch"), "seq") !=
				    client_int(json_object_get(links->json, "epoch"), "seq")) {
			cli_err("the routing changed while the links were read (epoch %lld, then %lld); run again",
				client_int(json_object_get(links->json, "epoch"), "seq"),
				client_int(json_object_get(page.json, "epoch"), "seq"));
			rc = CLI_FAIL;
		}
		if (rc == CLI_OK) {
			json_array_extend(all, json_object_get(page.json, "links"));
			json_object_set(links->json, "more", json_object_get(page.json, "more"));
		}
		client_resp_free(&page);
	}
	return rc;
}

int cmd_links(int argc, char **argv)
{
	struct client_resp links = { 0 }, topo = { 0 };
	struct client c;
	json_t *all;
	int rc = client_args(&c, &links_cmd, argc, argv, NULL);

	if (rc || c.help)
		return client_done(&c, rc);
	rc = get_links(&c, &links);
	if (rc == CLI_OK)
		rc = client_get(&c, "/api/topology", 0, &topo);
	if (rc == CLI_OK && client_int(json_object_get(links.json, "epoch"), "seq") !=
			    client_int(json_object_get(topo.json, "epoch"), "seq")) {
		cli_err("the routing changed between the two answers (epoch %lld, then %lld); run again",
			client_int(json_object_get(links.json, "epoch"), "seq"),
			client_int(json_object_get(topo.json, "epoch"), "seq"));
		rc = CLI_FAIL;
	}
	if (rc == CLI_OK && !c.json)
		links_text(links.json, topo.json);
	if (rc == CLI_OK && c.json) {
		all = json_pack("{s:O, s:O}", "links", links.json, "topology", topo.json);
		rc = all ? client_print_json(all) : CLI_FAIL;
		if (!all)
			cli_err("out of memory joining the links answers");
		json_decref(all);
	}
	client_resp_free(&links);
	client_resp_free(&topo);
	return client_done(&c, rc);
}

/* --- lft ------------------------------------------------------------------ */

static const struct client_cmd lft_cmd = {
	.name = "lft",
	.args = "a SWITCH",
	.min_args = 1,
	.max_args = 1,
	.usage = "Usage: fabroute lft [OPTIONS] SWITCH\n"
		 "\n"
		 "The LFT of SWITCH (a LID, GUID or description) in the epoch in use, in the\n"
		 "layout 'ibroute LID' prints the table the switch holds: a header, one line\n"
		 "per LID with a route (output port, destination), 'N valid lids dumped'.\n"
		 "Compare it with ibroute to check what the switch was programmed with.\n"
		 "--json is not taken: the layout is ibroute's (GET /api/lfts?switch= gives\n"
		 "the same table in opensm-lfts.dump format).\n",
};

/* The epoch sequence of an ETag "eSEQ-MS"; -1 when it is not one. */
static long long etag_seq(const char *etag)
{
	long long seq;

	return sscanf(etag, "\"e%lld-", &seq) == 1 ? seq : -1;
}

/* GET /api/lids and the switch's block of the same epoch (two tries); CLI_OK or an exit code. */
static int lft_fetch(struct client *c, const char *path, struct client_resp *lids, struct client_resp *block)
{
	long long a = -1, b = -2;
	int rc = CLI_OK;

	for (int tries = 0; tries < 2 && rc == CLI_OK && a != b; tries++) {
		client_resp_free(lids);
		client_resp_free(block);
		rc = client_get(c, "/api/lids", 0, lids);
		if (rc == CLI_OK)
			rc = client_get_text(c, path, block);
		a = client_int(json_object_get(lids->json, "epoch"), "seq");
		b = etag_seq(block->etag);
	}
	if (rc == CLI_OK && a != b) {
		cli_err("the routing changed between the two answers (epoch %lld, then %lld); run again", a, b);
		rc = CLI_FAIL;
	}
	return rc;
}

int cmd_lft(int argc, char **argv)
{
	struct client_resp lids = { 0 }, block = { 0 };
	struct client c;
	char *path;
	int rc = client_args(&c, &lft_cmd, argc, argv, NULL);

	if (rc == CLI_OK && !c.help && c.json)
		rc = cli_usage_err("lft", "--json: lft prints ibroute's layout only");
	if (rc || c.help)
		return client_done(&c, rc);
	path = client_path(&c, "/api/lfts", "switch", c.args[0], NULL);
	rc = path ? lft_fetch(&c, path, &lids, &block) : CLI_FAIL;
	if (rc == CLI_OK)
		rc = ibfmt_lft(block.body, block.len, lids.json);
	free(path);
	client_resp_free(&lids);
	client_resp_free(&block);
	return client_done(&c, rc);
}
