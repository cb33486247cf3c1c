/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute events, snapshots - what happened
 *
 * The event history (GET /api/events) and the routings the daemon kept
 * (/api/snapshots, one snapshot, the difference of two).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"

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
	printf("digest:     %s\n", client_str(s, "routing_digest", "not recorded (stored before schema 2)"));
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
	if (path && rc == CLI_OK && !client_printed(&c, &r, &rc)) {
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
