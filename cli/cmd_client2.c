/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute snapshots, engine, reroute, fault
 *
 * The daemon's history of routings (GET /api/snapshots, one snapshot, the
 * difference of two) and its control: the engine chain (GET /api/engines
 * and /api/config; POST /api/engine), a reroute (POST /api/reroute) and the
 * file source's simulated faults (GET and POST /api/faults). POSTs carry
 * the bearer token of --token-file or $FABROUTE_TOKEN_FILE.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/client.h"

/** How long reroute --wait waits for a reroute to finish, and how often it asks. */
#define REROUTE_WAIT_MS 60000L
#define REROUTE_POLL_MS 100L

/* Print @r's JSON with --json and return 1; 0 when the caller prints text. */
static int printed_json(const struct client *c, const struct client_resp *r, int *rc)
{
	if (!c->json)
		return 0;
	*rc = client_print_json(r->json);
	return 1;
}

/* --- snapshots ------------------------------------------------------------ */

static const struct option snapshots_longopts[] = {
	{ "limit", required_argument, NULL, CLIENT_OPT_LIMIT },
	{ NULL, 0, NULL, 0 },
};

static int snapshots_option(void *ctx, int opt, const char *arg)
{
	unsigned long long v;

	if (cli_parse_uint(arg, 1000, &v) || v == 0)
		return cli_usage_err("snapshots", "--limit '%s': expected an integer 1..1000", arg);
	*(const char **)ctx = arg;
	return CLI_OK;
}

static const struct client_cmd snapshots_cmd = {
	.name = "snapshots",
	.args = "a snapshot ID, two ids A B, or nothing",
	.usage = "Usage: fabroute snapshots [OPTIONS] [ID | A B]\n"
		 "\n"
		 "The routings the daemon published and stored. Without arguments, the list\n"
		 "(newest first); with ID, one snapshot: fabric, evaluation, storage; with two\n"
		 "ids A B, what changed from A to B: links, LIDs and LFT entries (with the\n"
		 "first examples of each).\n"
		 "\n"
		 "Options:\n"
		 "      --limit N  list at most N snapshots (1..1000, default 100)\n",
	.max_args = 2,
	.extra = snapshots_longopts,
	.option = snapshots_option,
};

static void snapshots_list(const json_t *r)
{
	const json_t *list = json_object_get(r, "snapshots");
	size_t i;
	json_t *s;

	if (!json_array_size(list)) {
		printf("no snapshots\n");
		return;
	}
	printf("%6s  %6s  %-24s  %-8s  %-8s  %-16s  %s\n", "ID", "SEQ", "TIME", "REASON", "ENGINE",
	       "TOPOLOGY", "CHAIN");
	json_array_foreach(list, i, s)
		printf("%6lld  %6lld  %-24s  %-8s  %-8s  %-16s  %s\n", client_int(s, "id"),
		       client_int(s, "seq"), client_str(s, "time", "?"), client_str(s, "reason", "?"),
		       client_str(s, "engine", "?"), client_str(s, "topology_hash", "?"),
		       client_str(s, "chain", "?"));
}

/* The pairs a snapshot's summary counts, "ca-ca 0 of 419256, ..." */
static void snapshot_pairs(const json_t *sum)
{
	const json_t *pairs = json_object_get(sum, "pairs"), *un = json_object_get(sum, "unreachable");
	const char *k;
	json_t *v;
	int first = 1;

	printf("unreachable:");
	json_object_foreach((json_t *)pairs, k, v) {
		printf("%s %s %lld of %lld", first ? "" : ",", k, client_int(un, k),
		       (long long)json_integer_value(v));
		first = 0;
	}
	printf("%s\n", first ? " no pairs counted" : " pairs");
}

static void snapshot_one(const json_t *s)
{
	const json_t *fab = json_object_get(s, "fabric"), *sum = json_object_get(s, "summary");
	char vls[128];

	printf("snapshot:   %lld (epoch %lld), %s, reason: %s\n", client_int(s, "id"),
	       client_int(s, "seq"), client_str(s, "time", "?"), client_str(s, "reason", "?"));
	printf("engine:     %s (chain %s)\n", client_str(s, "engine", "?"), client_str(s, "chain", "?"));
	printf("topology:   hash %s; %lld nodes (%lld switches, %lld CAs), %lld links\n",
	       client_str(s, "topology_hash", "?"), client_int(fab, "nodes"),
	       client_int(fab, "switches"), client_int(fab, "cas"), client_int(fab, "links"));
	if (json_is_object(sum)) {
		printf("routing:    %s, %s; VLs %s; max link load %lld; max hops %lld\n",
		       client_bool(sum, "connected") ? "connected" : "NOT connected",
		       client_bool(sum, "deadlock_free") ? "deadlock-free" : "deadlock possible",
		       client_ints(json_object_get(sum, "vls_used"), vls, sizeof(vls)),
		       client_int(sum, "max_link_load"), client_int(sum, "max_hops"));
		snapshot_pairs(sum);
	}
	printf("times:      computed in %.0f ms, evaluated in %.0f ms\n", client_real(s, "compute_ms"),
	       client_real(s, "eval_ms"));
	printf("stored:     %lld bytes; LFTs of %lld entries; path SLs: %s; SL2VL tables: %s\n",
	       client_int(s, "stored_bytes"), client_int(s, "lft_len"),
	       client_bool(s, "path_sls") ? "yes" : "no", client_bool(s, "sl2vl") ? "yes" : "no");
	if (client_str(s, "notes", NULL))
		printf("notes:      %s\n", client_str(s, "notes", ""));
}

/* A port in a diff: its number, or "none". */
static const char *diff_port(const json_t *v, char *buf, size_t size)
{
	if (!json_is_integer(v))
		return "none";
	snprintf(buf, size, "%lld", (long long)json_integer_value(v));
	return buf;
}

static void diff_links(const json_t *l)
{
	static const char *const keys[] = { "removed", "added" };
	size_t i;
	json_t *v;

	for (unsigned k = 0; k < 2; k++) {
		const json_t *list = json_object_get(l, keys[k]);
		char tot[16];

		snprintf(tot, sizeof(tot), "%s_total", keys[k]);
		printf("links %s: %lld", keys[k], client_int(l, tot));
		if ((long long)json_array_size(list) < client_int(l, tot))
			printf(" (the first %zu)", json_array_size(list));
		putchar('\n');
		json_array_foreach(list, i, v)
			printf("  %c %s\n", k ? '+' : '-', json_string_value(v) ? json_string_value(v) : "?");
	}
}

static void diff_lid_side(const json_t *side)
{
	if (json_is_object(side))
		printf("LID %lld (LMC %lld)", client_int(side, "lid"), client_int(side, "lmc"));
	else
		printf("none");
}

static void diff_lids(const json_t *l)
{
	size_t i;
	json_t *v;

	printf("LIDs changed: %lld\n", client_int(l, "changed_total"));
	json_array_foreach(json_object_get(l, "changed"), i, v) {
		printf("  %s %s: ", client_str(v, "node", "?"), client_str(v, "guid", "?"));
		diff_lid_side(json_object_get(v, "from"));
		printf(" -> ");
		diff_lid_side(json_object_get(v, "to"));
		putchar('\n');
	}
}

static void diff_lft(const json_t *l)
{
	const json_t *sw = json_object_get(l, "switches");
	size_t i, j;
	json_t *s, *e;

	printf("LFT entries changed: %lld on %lld switches", client_int(l, "entries_changed"),
	       client_int(l, "switches_changed"));
	if ((long long)json_array_size(sw) < client_int(l, "switches_changed"))
		printf(" (the first %zu)", json_array_size(sw));
	putchar('\n');
	json_array_foreach(sw, i, s) {
		printf("  %s %s: %lld entries, e.g.", client_str(s, "node", "?"), client_str(s, "guid", "?"),
		       client_int(s, "entries"));
		json_array_foreach(json_object_get(s, "examples"), j, e) {
			char a[16], b[16];

			printf("%s LID %lld port %s -> %s", j ? "," : "", client_int(e, "lid"),
			       diff_port(json_object_get(e, "from"), a, sizeof(a)),
			       diff_port(json_object_get(e, "to"), b, sizeof(b)));
		}
		putchar('\n');
	}
}

static void snapshots_diff(const json_t *d)
{
	printf("snapshot %lld -> %lld: topology %s\n", client_int(d, "from"), client_int(d, "to"),
	       client_bool(d, "topology_changed") ? "changed" : "unchanged");
	diff_links(json_object_get(d, "links"));
	diff_lids(json_object_get(d, "lids"));
	diff_lft(json_object_get(d, "lft"));
}

/* The path of the question the arguments ask; NULL after a message. */
static char *snapshots_path(struct client *c, const char *limit, int *rc)
{
	unsigned long long id[2];
	char *p;

	for (int i = 0; i < c->nargs; i++)
		if (cli_parse_uint(c->args[i], INT64_MAX, &id[i]) || id[i] == 0) {
			*rc = cli_usage_err("snapshots", "snapshot id '%s': expected a positive integer",
					    c->args[i]);
			return NULL;
		}
	if (c->nargs && limit) {
		*rc = cli_usage_err("snapshots", "--limit goes with the list only, not with ids");
		return NULL;
	}
	*rc = CLI_FAIL;
	if (c->nargs == 0)
		return client_path(c, "/api/snapshots", "limit", limit, NULL);
	p = malloc(64);
	if (!p) {
		cli_err("out of memory building the request for snapshot %s", c->args[0]);
		return NULL;
	}
	if (c->nargs == 1)
		snprintf(p, 64, "/api/snapshots/%llu", id[0]);
	else
		snprintf(p, 64, "/api/snapshots/%llu/diff/%llu", id[0], id[1]);
	return p;
}

int cmd_snapshots(int argc, char **argv)
{
	struct client_resp r = { 0 };
	const char *limit = NULL;
	struct client c;
	char *path;
	int rc = client_args(&c, &snapshots_cmd, argc, argv, &limit);

	if (rc || c.help)
		return client_done(&c, rc);
	path = snapshots_path(&c, limit, &rc);
	if (path)
		rc = client_get(&c, path, 0, &r);
	if (path && rc == CLI_OK && !printed_json(&c, &r, &rc)) {
		if (c.nargs == 0)
			snapshots_list(r.json);
		else if (c.nargs == 1)
			snapshot_one(r.json);
		else
			snapshots_diff(r.json);
	}
	free(path);
	client_resp_free(&r);
	return client_done(&c, rc);
}

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
	if (rc == CLI_OK && !printed_json(c, &r, &rc))
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
	if (rc == CLI_OK && !printed_json(&c, &r, &rc))
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
};

static const struct option fault_longopts[] = {
	{ "link", required_argument, NULL, CLIENT_OPT_LINK },
	{ "switch", required_argument, NULL, CLIENT_OPT_SWITCH },
	{ NULL, 0, NULL, 0 },
};

static int fault_option(void *ctx, int opt, const char *arg)
{
	struct fault_opts *o = ctx;

	if (opt == CLIENT_OPT_LINK)
		o->link = arg;
	else
		o->sw = arg;
	return CLI_OK;
}

static const struct client_cmd fault_cmd = {
	.name = "fault",
	.args = "down or up (or nothing, to list)",
	.usage = "Usage: fabroute fault [OPTIONS]\n"
		 "       fabroute fault [OPTIONS] down|up (--link NODE:PORT | --switch NODE)\n"
		 "\n"
		 "Simulated faults of the daemon's file source. Without arguments, list the\n"
		 "links and switches down; with down or up, take a link or a switch down or\n"
		 "bring it back, which asks for a reroute. NODE is a node description or a\n"
		 "node GUID (0x...). Needs the API token.\n"
		 "\n"
		 "Options:\n"
		 "      --link NODE:PORT  the link at NODE's PORT\n"
		 "      --switch NODE     the switch NODE (with all its links)\n",
	.max_args = 1,
	.extra = fault_longopts,
	.option = fault_option,
};

static void fault_names(const char *label, const json_t *list)
{
	size_t i;
	json_t *v;

	printf("%s", label);
	json_array_foreach(list, i, v)
		printf("%s%s", i ? ", " : " ", json_string_value(v) ? json_string_value(v) : "?");
	printf("%s\n", json_array_size(list) ? "" : " none");
}

static void fault_list(const json_t *f)
{
	fault_names("links down:   ", json_object_get(f, "links"));
	fault_names("switches down:", json_object_get(f, "switches"));
}

/* POST /api/faults {"action", "link"|"switch"}. */
static int fault_post(struct client *c, const char *action, const struct fault_opts *o)
{
	struct client_resp r = { 0 };
	const char *kind = o->link ? "link" : "switch", *what = o->link ? o->link : o->sw;
	json_t *body = json_pack("{s:s, s:s}", "action", action, kind, what);
	int rc;

	if (!body) {
		cli_err("%s '%s': out of memory building the request (or not UTF-8)", kind, what);
		return CLI_FAIL;
	}
	rc = client_post(c, "/api/faults", body, &r);
	if (rc == CLI_OK && !printed_json(c, &r, &rc)) {
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
	if (a && !o->link == !o->sw)
		return cli_usage_err("fault", "%s: give exactly one of --link NODE:PORT and --switch NODE", a);
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
		if (rc == CLI_OK && !printed_json(&c, &r, &rc))
			fault_list(r.json);
	}
	client_resp_free(&r);
	return client_done(&c, rc);
}
