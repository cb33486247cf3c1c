/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute nodes, links, lft, config; the daemon's chain for compute
 *
 * What the daemon routed, piece by piece: its nodes (GET /api/nodes), its
 * links with the routes each carries in each direction (GET /api/links and
 * /api/topology), one switch's LFT in ibroute's layout (GET /api/lfts?switch=
 * and /api/lids, cli/ibfmt.c) and its effective configuration (GET
 * /api/config), printed as a configuration file it would load.
 *
 * cli_default_chain() gives `fabroute compute` the chain of a running
 * daemon when no --engine is given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/client.h"

/* Print @r's JSON with --json and return 1; 0 when the caller prints text. */
static int printed_json(const struct client *c, const struct client_resp *r, int *rc)
{
	if (!c->json)
		return 0;
	*rc = client_print_json(r->json);
	return 1;
}

/* "(epoch 4, minhop)" from an answer's "epoch" member, and a newline. */
static void epoch_tag(const json_t *answer)
{
	const json_t *e = json_object_get(answer, "epoch");

	printf(" (epoch %lld, %s)\n", client_int(e, "seq"), client_str(e, "engine", "?"));
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
	epoch_tag(r);
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
	if (rc == CLI_OK && !printed_json(&c, &r, &rc))
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
	epoch_tag(links);
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

/* --- config --------------------------------------------------------------- */

static const struct client_cmd config_cmd = {
	.name = "config",
	.usage = "Usage: fabroute config [OPTIONS]\n"
		 "\n"
		 "The daemon's effective configuration as a configuration file it would\n"
		 "load: every key = value, each with where the value comes from (default,\n"
		 "file or flag), after the file read and the engine chain in use (which\n"
		 "differs from 'engine' after 'fabroute engine CHAIN').\n",
};

/* One value as the configuration file writes it. */
static void config_value(char *buf, size_t size, const json_t *v)
{
	if (json_is_string(v))
		snprintf(buf, size, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, size, "%lld", (long long)json_integer_value(v));
	else
		snprintf(buf, size, "?");
}

static void config_text(const json_t *r)
{
	const json_t *conf = json_object_get(r, "config"), *orig = json_object_get(conf, "origin");
	const char *key;
	char val[1024];
	json_t *v;
	int wk = 1, wv = 1;

	json_object_foreach((json_t *)conf, key, v) {
		config_value(val, sizeof(val), v);
		wk = strcmp(key, "origin") && (int)strlen(key) > wk ? (int)strlen(key) : wk;
		wv = strcmp(key, "origin") && (int)strlen(val) > wv ? (int)strlen(val) : wv;
	}
	printf("# fabrouted's effective configuration; file: %s\n",
	       client_str(r, "file", "none (defaults and flags only)"));
	printf("# engine chain in use: %s\n", client_str(r, "engine_in_use", "?"));
	json_object_foreach((json_t *)conf, key, v) {
		if (!strcmp(key, "origin"))
			continue;
		config_value(val, sizeof(val), v);
		printf("%-*s = %-*s  # %s\n", wk, key, wv, val, client_str(orig, key, "?"));
	}
}

int cmd_config(int argc, char **argv)
{
	struct client_resp r = { 0 };
	struct client c;
	int rc = client_args(&c, &config_cmd, argc, argv, NULL);

	if (rc || c.help)
		return client_done(&c, rc);
	rc = client_get(&c, "/api/config", 0, &r);
	if (rc == CLI_OK && !printed_json(&c, &r, &rc))
		config_text(r.json);
	client_resp_free(&r);
	return client_done(&c, rc);
}

/* --- the chain compute routes with ---------------------------------------- */

/* The chain of the daemon @c talks to; CLI_OK with *@chain set, CLI_FAIL with c->why. */
static int daemon_chain(struct client *c, char **chain)
{
	struct client_resp eng = { 0 }, cfg = { 0 };
	const char *s = NULL;
	int rc = client_get(c, "/api/engines", 0, &eng);

	if (rc == CLI_OK)
		s = client_str(eng.json, "chain", NULL);
	if (rc == CLI_OK && !s) {	/* nothing routed yet: the chain it will route with */
		rc = client_get(c, "/api/config", 0, &cfg);
		s = client_str(cfg.json, "engine_in_use", NULL);
	}
	if (rc == CLI_OK && (!s || !*s)) {
		snprintf(c->why, sizeof(c->why), "GET /api/engines and /api/config name no chain");
		rc = CLI_FAIL;
	}
	if (rc == CLI_OK && !(*chain = strdup(s))) {
		cli_err("out of memory copying the chain '%s'", s);
		rc = CLI_FAIL;
		c->why[0] = '\0';
	}
	client_resp_free(&eng);
	client_resp_free(&cfg);
	return rc;
}

int cli_default_chain(const char *url, char **chain)
{
	static const struct client_cmd compute_cmd = { .name = "compute" };
	struct client c = { .cmd = &compute_cmd, .quiet = 1 };
	int rc = client_connect(&c, url);

	*chain = NULL;
	if (rc == CLI_OK)
		rc = daemon_chain(&c, chain);
	if (rc == CLI_OK) {
		fprintf(stderr, "fabroute compute: no --engine: the chain of fabrouted at %s: %s\n", c.url, *chain);
	} else if (c.url && c.why[0]) {
		*chain = strdup(FABROUTE_ENGINE_DEFAULT);
		rc = *chain ? CLI_OK : CLI_FAIL;
		fprintf(stderr, "fabroute compute: no --engine and no chain from fabrouted at %s (%s): "
			"fabrouted's default chain %s\n", c.url, c.why, FABROUTE_ENGINE_DEFAULT);
	}
	c.quiet = 0;
	client_done(&c, CLI_OK);
	return rc;
}
