/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute engine, reroute, fault, config - the daemon's control
 *
 * The engine chain (GET /api/engines and /api/config; POST /api/engine), a
 * reroute (POST /api/reroute), the file source's simulated faults (GET and
 * POST /api/faults) and the effective configuration (GET /api/config,
 * printed as a configuration file it would load). POSTs carry the bearer
 * token of --token-file or $FABROUTE_TOKEN_FILE. cli_default_chain() gives
 * `fabroute compute` the chain of a running daemon when no --engine is given.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/client.h"

/** How long reroute --wait waits for a reroute to finish, and how often it asks. */
#define REROUTE_WAIT_MS 60000L
#define REROUTE_POLL_MS 100L

/* --- engine --------------------------------------------------------------- */

static const struct option engine_longopts[] = {
	{ "options", required_argument, NULL, CLIENT_OPT_OPTIONS },
	{ NULL, 0, NULL, 0 },
};

static int engine_option(void *ctx, int opt, const char *arg)
{
	*(const char **)ctx = arg;
	return CLI_OK;
}

static const struct client_cmd engine_cmd = {
	.name = "engine",
	.args = "at most a CHAIN",
	.usage = "Usage: fabroute engine [OPTIONS] [CHAIN]\n"
		 "\n"
		 "Without CHAIN: the engine that routed the epoch in use, the chain the\n"
		 "daemon runs and the engines it has, with their options (--json prints\n"
		 "{\"engines\", \"config\"}). With CHAIN (engines to try in turn, e.g.\n"
		 "sftree,updn): select it and reroute; it is kept across restarts. Needs the\n"
		 "API token.\n"
		 "\n"
		 "Options:\n"
		 "      --options ENG.K=V,...  engine options for CHAIN (default: none)\n",
	.max_args = 1,
	.extra = engine_longopts,
	.option = engine_option,
};

static void engine_options(const json_t *opts)
{
	size_t i;
	json_t *o;

	json_array_foreach(opts, i, o)
		printf("        %s (default '%s'): %s\n", client_str(o, "name", "?"),
		       client_str(o, "default", ""), client_str(o, "help", ""));
}

static void engine_list(const json_t *eng, const json_t *cfg)
{
	const json_t *e = json_object_get(eng, "epoch"), *conf = json_object_get(cfg, "config");
	const json_t *list = json_object_get(eng, "engines");
	int w = 0;
	size_t i;
	json_t *x;

	printf("engine in use:  %s (routed epoch %lld with chain %s)\n", client_str(e, "engine", "?"),
	       client_int(e, "seq"), client_str(e, "chain", "?"));
	printf("chain:          %s\n", client_str(cfg, "engine_in_use", "?"));
	printf("configured:     %s, options: %s\n", client_str(conf, "engine", "?"),
	       *client_str(conf, "engine_options", "") ? client_str(conf, "engine_options", "") : "none");
	printf("engines (* in the epoch's chain):\n");
	json_array_foreach(list, i, x)
		w = (int)strlen(client_str(x, "name", "")) > w ? (int)strlen(client_str(x, "name", "")) : w;
	json_array_foreach(list, i, x) {
		printf("  %c %-*s  %-17s  %lld VL%s  %s\n", client_bool(x, "selected") ? '*' : ' ', w,
		       client_str(x, "name", "?"),
		       client_bool(x, "deadlock_free") ? "deadlock-free" : "not deadlock-free",
		       client_int(x, "vls"), client_int(x, "vls") == 1 ? "" : "s",
		       client_str(x, "summary", ""));
		engine_options(json_object_get(x, "options"));
	}
}

/* GET /api/engines and /api/config. */
static int engine_show(struct client *c)
{
	struct client_resp eng = { 0 }, cfg = { 0 };
	json_t *all;
	int rc = client_get(c, "/api/engines", 0, &eng);

	if (rc == CLI_OK)
		rc = client_get(c, "/api/config", 0, &cfg);
	if (rc == CLI_OK && !c->json)
		engine_list(eng.json, cfg.json);
	if (rc == CLI_OK && c->json) {
		all = json_pack("{s:O, s:O}", "engines", eng.json, "config", cfg.json);
		rc = all ? client_print_json(all) : CLI_FAIL;
		if (!all)
			cli_err("out of memory joining the engine answers");
		json_decref(all);
	}
	client_resp_free(&eng);
	client_resp_free(&cfg);
	return rc;
}

/* POST /api/engine {"chain", "options"}. */
static int engine_select(struct client *c, const char *chain, const char *options)
{
	struct client_resp r = { 0 };
	json_t *body = json_pack("{s:s, s:s}", "chain", chain, "options", options ? options : "");
	int rc;

	if (!body) {
		cli_err("chain '%s': out of memory building the request (or not UTF-8)", chain);
		return CLI_FAIL;
	}
	rc = client_post(c, "/api/engine", body, &r);
	if (rc == CLI_OK && !client_printed(c, &r, &rc))
		printf("engine chain '%s' selected (options: %s); reroute requested\n",
		       client_str(r.json, "chain", chain),
		       *client_str(r.json, "options", "") ? client_str(r.json, "options", "") : "none");
	json_decref(body);
	client_resp_free(&r);
	return rc;
}

int cmd_engine(int argc, char **argv)
{
	const char *options = NULL;
	struct client c;
	int rc = client_args(&c, &engine_cmd, argc, argv, &options);

	if (rc == CLI_OK && !c.help && options && !c.nargs)
		rc = cli_usage_err("engine", "--options goes with a CHAIN");
	if (rc || c.help)
		return client_done(&c, rc);
	rc = c.nargs ? engine_select(&c, c.args[0], options) : engine_show(&c);
	return client_done(&c, rc);
}

/* --- reroute -------------------------------------------------------------- */

static const struct option reroute_longopts[] = {
	{ "wait", no_argument, NULL, CLIENT_OPT_WAIT },
	{ NULL, 0, NULL, 0 },
};

static int reroute_option(void *ctx, int opt, const char *arg)
{
	*(int *)ctx = 1;
	return CLI_OK;
}

static const struct client_cmd reroute_cmd = {
	.name = "reroute",
	.usage = "Usage: fabroute reroute [OPTIONS]\n"
		 "\n"
		 "Ask the daemon to route the fabric again (after its hold-down). Needs the\n"
		 "API token.\n"
		 "\n"
		 "Options:\n"
		 "      --wait  wait (up to 60 s) until a reroute that started after this\n"
		 "              command has finished and none runs; exit 1 when it failed\n"
		 "              (the last good epoch stays in use)\n",
	.extra = reroute_longopts,
	.option = reroute_option,
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The reroutes of the daemon, from GET /api/health. */
struct reroute_state {
	long long done;		/* finished, ok or failed */
	long long failed;
	long long epoch;	/* in use */
	int busy;		/* one runs */
};

static int reroute_state(struct client *c, struct reroute_state *st)
{
	struct client_resp h = { 0 };
	int rc = client_get(c, "/api/health", 0, &h);

	if (rc == CLI_OK) {
		st->failed = client_int(h.json, "reroutes_failed");
		st->done = client_int(h.json, "reroutes_ok") + st->failed;
		st->busy = client_bool(h.json, "reroute_in_progress");
		st->epoch = client_int(h.json, "epoch");
	}
	client_resp_free(&h);
	return rc;
}

/*
 * Poll until no reroute runs and at least @want have finished, up to
 * @deadline (now_ms()). A reroute counts as finished (and its epoch is
 * published) a little before it stops running: it still stores the epoch.
 */
static int reroute_poll(struct client *c, long long want, long long deadline,
			struct reroute_state *st)
{
	const struct timespec poll = { 0, REROUTE_POLL_MS * 1000000L };
	int rc;

	while ((rc = reroute_state(c, st)) == CLI_OK && (st->busy || st->done < want)) {
		if (now_ms() > deadline) {
			cli_err("no reroute finished within %ld s (epoch %lld still in use)",
				REROUTE_WAIT_MS / 1000, st->epoch);
			return CLI_FAIL;
		}
		nanosleep(&poll, NULL);
	}
	return rc;
}

/* After the request: wait for a reroute that started after @before was read. */
static int reroute_wait(struct client *c, const struct reroute_state *before, long long deadline)
{
	struct reroute_state st;
	int rc = reroute_poll(c, before->done + 1, deadline, &st);

	if (rc)
		return rc;
	if (st.failed > before->failed) {
		cli_err("the reroute failed; epoch %lld stays in use (see 'fabroute events --type error')",
			st.epoch);
		return CLI_FAIL;
	}
	if (!c->json)
		printf("rerouted: epoch %lld in use\n", st.epoch);
	return CLI_OK;
}

int cmd_reroute(int argc, char **argv)
{
	struct client_resp r = { 0 };
	struct reroute_state before = { 0 };
	long long deadline = now_ms() + REROUTE_WAIT_MS;
	struct client c;
	int wait = 0, rc = client_args(&c, &reroute_cmd, argc, argv, &wait);

	if (rc || c.help)
		return client_done(&c, rc);
	/*
	 * With --wait, first let a running reroute finish: the next one to
	 * finish then starts after this command did (and sees every change
	 * made before it), be it ours or one already pending.
	 */
	if (wait)
		rc = reroute_poll(&c, 0, deadline, &before);
	if (rc == CLI_OK)
		rc = client_post(&c, "/api/reroute", NULL, &r);
	if (rc == CLI_OK && !client_printed(&c, &r, &rc))
		printf("reroute requested\n");
	if (rc == CLI_OK && wait)
		rc = reroute_wait(&c, &before, deadline);
	client_resp_free(&r);
	return client_done(&c, rc);
}

/* --- fault ---------------------------------------------------------------- */

/* Which element the fault options name. */
struct fault_opts {
	const char *link, *sw;
	int all;
};

static const struct option fault_longopts[] = {
	{ "link", required_argument, NULL, CLIENT_OPT_LINK },
	{ "switch", required_argument, NULL, CLIENT_OPT_SWITCH },
	{ "all", no_argument, NULL, CLIENT_OPT_ALL },
	{ NULL, 0, NULL, 0 },
};

static int fault_option(void *ctx, int opt, const char *arg)
{
	struct fault_opts *o = ctx;

	if (opt == CLIENT_OPT_LINK)
		o->link = arg;
	else if (opt == CLIENT_OPT_ALL)
		o->all = 1;
	else
		o->sw = arg;
	return CLI_OK;
}

static const struct client_cmd fault_cmd = {
	.name = "fault",
	.args = "down or up (or nothing, to list)",
	.usage = "Usage: fabroute fault [OPTIONS]\n"
		 "       fabroute fault [OPTIONS] down|up (--link NODE:PORT | --switch NODE)\n"
		 "       fabroute fault [OPTIONS] up --all\n"
		 "\n"
		 "Simulated faults of the daemon's file source. Without arguments, list the\n"
		 "links and switches down, each by description and by GUID; with down or up,\n"
		 "take a link or a switch down or bring it back, which asks for a reroute.\n"
		 "NODE is a node description or a node GUID (0x...). Needs the API token.\n"
		 "\n"
		 "Options:\n"
		 "      --link NODE:PORT  the link at NODE's PORT\n"
		 "      --switch NODE     the switch NODE (with all its links)\n"
		 "      --all             with up: every link and switch down, in one reroute\n",
	.max_args = 1,
	.extra = fault_longopts,
	.option = fault_option,
};

/* One line per fault: the link's ends or the switch by description, then the GUID form the daemon keeps. */
static void fault_names(const char *label, const json_t *list, const json_t *details, int links)
{
	size_t i;
	json_t *v;

	printf("%s%s\n", label, json_array_size(list) ? "" : " none");
	json_array_foreach(list, i, v) {
		const json_t *d = json_array_get(details, i);
		const char *id = json_string_value(v) ? json_string_value(v) : "?";
		char name[512];

		if (d && links)
			snprintf(name, sizeof(name), "%s:%lld - %s:%lld",
				 client_str(json_object_get(d, "a"), "node", "?"),
				 json_integer_value(json_object_get(json_object_get(d, "a"), "port")),
				 client_str(json_object_get(d, "b"), "node", "?"),
				 json_integer_value(json_object_get(json_object_get(d, "b"), "port")));
		else
			snprintf(name, sizeof(name), "%s", d ? client_str(d, "node", id) : id);
		printf("  %-40s %s\n", name, id);
	}
}

static void fault_list(const json_t *f)
{
	const json_t *d = json_object_get(f, "details");

	fault_names("links down:", json_object_get(f, "links"), json_object_get(d, "links"), 1);
	fault_names("switches down:", json_object_get(f, "switches"), json_object_get(d, "switches"), 0);
}

/* POST /api/faults {"action", "link"|"switch"} or {"action": "up", "all": true}. */
static int fault_post(struct client *c, const char *action, const struct fault_opts *o)
{
	struct client_resp r = { 0 };
	const char *kind = o->link ? "link" : "switch", *what = o->link ? o->link : o->sw;
	json_t *body = o->all ? json_pack("{s:s, s:b}", "action", action, "all", 1) :
		       json_pack("{s:s, s:s}", "action", action, kind, what);
	int rc;

	if (!body) {
		cli_err("%s '%s': out of memory building the request (or not UTF-8)", kind, what);
		return CLI_FAIL;
	}
	rc = client_post(c, "/api/faults", body, &r);
	if (rc == CLI_OK && !client_printed(c, &r, &rc)) {
		if (o->all)
			printf("every fault up: %lld; %s\n", (long long)json_integer_value(json_object_get(r.json, "count")),
			       json_is_true(json_object_get(r.json, "reroute_requested")) ? "reroute requested" :
			       "nothing was down");
		else
			printf("%s %s (%s) %s; reroute requested\n", kind, client_str(r.json, kind, what), what,
			       action);
		fault_list(json_object_get(r.json, "faults"));
	}
	json_decref(body);
	client_resp_free(&r);
	return rc;
}

/* Check the command line: action and exactly one of --link, --switch, or nothing. */
static int fault_check(const struct client *c, const struct fault_opts *o)
{
	const char *a = c->nargs ? c->args[0] : NULL;

	if (a && strcmp(a, "down") && strcmp(a, "up"))
		return cli_usage_err("fault", "'%s': expected down or up", a);
	if (o->all && (!a || strcmp(a, "up") || o->link || o->sw))
		return cli_usage_err("fault", "--all goes with up alone (every fault comes back up)");
	if (a && !o->all && !o->link == !o->sw)
		return cli_usage_err("fault", "%s: give exactly one of --link NODE:PORT and --switch NODE%s", a,
				     strcmp(a, "up") ? "" : ", or --all");
	if (!a && (o->link || o->sw))
		return cli_usage_err("fault", "--%s: say down or up", o->link ? "link" : "switch");
	return CLI_OK;
}

int cmd_fault(int argc, char **argv)
{
	struct fault_opts o = { 0 };
	struct client_resp r = { 0 };
	struct client c;
	int rc = client_args(&c, &fault_cmd, argc, argv, &o);

	if (rc == CLI_OK && !c.help)
		rc = fault_check(&c, &o);
	if (rc || c.help)
		return client_done(&c, rc);
	if (c.nargs) {
		rc = fault_post(&c, c.args[0], &o);
	} else {
		rc = client_get(&c, "/api/faults", 0, &r);
		if (rc == CLI_OK && !client_printed(&c, &r, &rc))
			fault_list(r.json);
	}
	client_resp_free(&r);
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
	if (rc == CLI_OK && !client_printed(&c, &r, &rc))
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
