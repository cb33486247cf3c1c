/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute whatif
 *
 * What taking links or switches away would do, without doing it: on a
 * topology file (routed with the chain first, as fabrouted would have
 * routed it, then engines/whatif.h's wi_run()), or by asking a running
 * fabrouted (POST /api/whatif, which answers from the routing in force,
 * with the daemon's chain, repair and policy). The answer is printed as
 * text or as the JSON of doc/api.md; the exit status says whether the
 * fabric would stay connected and deadlock-free.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "engines/whatif.h"

/* Exit status when no engine of the chain would publish a routing (fabroute(1)). */
#define WHATIF_EXIT_NONE 8

enum { OPT_LINK = 0x300, OPT_SWITCH, OPT_TOPO, OPT_URL, OPT_TOKEN, OPT_REPAIR, OPT_POLICY,
       OPT_TIMEOUT };

struct whatif_opts {
	const char **links, **switches;
	size_t nlinks, nswitches;
	const char *topology, *chain, *url, *token_file, *repair, *policy;
	char *options;		/* -O values joined by commas */
	enum fmt_topo from;
	struct cli_input in;
	struct cli_lids lids;
	unsigned long long timeout_s;
	int json, help;
};

static void usage(void)
{
	fputs("Usage: fabroute whatif (--link NODE:PORT | --switch NODE)... [--json]\n"
	      "                       [--topology FILE [-e CHAIN] [OPTIONS] | --url URL]\n"
	      "\n"
	      "What removing links and switches would do, without changing anything: the\n"
	      "fabric without them (and without the CAs left with no link) routed as\n"
	      "fabrouted would route it: the repair of the routing in force when its repair\n"
	      "applies (ftdlr on a fat tree routed by ftree, sftree or ftdlr), else the\n"
	      "chain, held to the publish policy. Says whether the fabric would fall apart\n"
	      "whatever routes it (its parts, the CA pairs no routing can join), which\n"
	      "routing would publish, whether it is connected and deadlock-free (the pairs\n"
	      "that fail, a cycle), the largest link load before and after, and the LFT\n"
	      "entries, 64-LID blocks and switches a subnet manager would rewrite.\n"
	      "\n"
	      "  --link NODE:PORT         a link, named by either end (NODE: a description\n"
	      "                           or a 0x node GUID); repeatable\n"
	      "  --switch NODE            a switch with all its links; repeatable\n"
	      "      --json               print the answer as JSON (doc/api.md)\n"
	      "\n"
	      "Without --topology, ask the fabrouted at --url (POST /api/whatif: its routing\n"
	      "in force, chain, repair and policy; one what-if at a time, bounded in time\n"
	      "and memory):\n"
	      "      --url URL            default: $FABROUTE_URL, else " CLIENT_URL_DEFAULT "\n"
	      "      --token-file FILE    the API token (default: $FABROUTE_TOKEN_FILE)\n"
	      "      --timeout S          give up waiting after S seconds (default 300)\n"
	      "On files:\n"
	      "      --topology FILE      the fabric (ibnetdiscover output or ibsim net file),\n"
	      "                           routed with the chain first: the routing in force\n"
	      "      --from FMT           its format: auto, ibnetdiscover, ibsim\n"
	      "  -e, --engine CHAIN       the chain (default " FABROUTE_ENGINE_DEFAULT ")\n"
	      "  -O, --option [ENG.]K=V   an engine option; repeatable\n"
	      "      --repair ftdlr|none  repair first, as fabrouted's repair key (default ftdlr)\n"
	      "      --policy P           proven, connected or any: what a routing must be to be\n"
	      "                           published (default proven, as fabrouted's)\n"
	      CLI_LIDS_HELP
	      CLI_INPUT_HELP
	      "  -h, --help               show this help\n"
	      "\n"
	      "Exit status: 0 connected and deadlock-free; 4 some pair unreachable, 5 a\n"
	      "dependency cycle, 6 both; 8 no engine would publish a routing; 1 failed (or\n"
	      "the daemon answered an error: 429 while another what-if runs); 2 bad command\n"
	      "line; 3 bad input file.\n", stdout);
}

static int push(const char ***v, size_t *n, const char *s)
{
	const char **g = realloc(*v, (*n + 1) * sizeof(*g));

	if (!g)
		return CLI_FAIL;
	g[(*n)++] = s;
	*v = g;
	return CLI_OK;
}

static int add_option(struct whatif_opts *o, const char *kv)
{
	size_t n = o->options ? strlen(o->options) : 0;
	char *s = realloc(o->options, n + strlen(kv) + 2);

	if (!s)
		return CLI_FAIL;
	sprintf(s + n, "%s%s", n ? "," : "", kv);
	o->options = s;
	return CLI_OK;
}

static int parse_one(void *ctx, int c, const char *arg)
{
	struct whatif_opts *o = ctx;
	int fmt;

	switch (c) {
	case OPT_LINK: return push(&o->links, &o->nlinks, arg);
	case OPT_SWITCH: return push(&o->switches, &o->nswitches, arg);
	case OPT_TOPO: o->topology = arg; return CLI_OK;
	case OPT_URL: o->url = arg; return CLI_OK;
	case OPT_TOKEN: o->token_file = arg; return CLI_OK;
	case OPT_REPAIR: o->repair = arg; return CLI_OK;
	case OPT_POLICY: o->policy = arg; return CLI_OK;
	case OPT_JSON: o->json = 1; return CLI_OK;
	case 'e': o->chain = arg; return CLI_OK;
	case 'O': return add_option(o, arg);
	case 'h': o->help = 1; return CLI_OK;
	case OPT_TIMEOUT:
		if (cli_parse_uint(arg, 86400, &o->timeout_s) || !o->timeout_s)
			return cli_usage_err("whatif", "--timeout '%s': expected 1 to 86400 seconds", arg);
		return CLI_OK;
	case OPT_FROM:
		if ((fmt = fmt_topo_from_name(arg)) < 0)
			return cli_usage_err("whatif", "--from '%s': expected auto, ibnetdiscover or ibsim", arg);
		o->from = (enum fmt_topo)fmt;
		return CLI_OK;
	default:
		if (cli_lids_option(&o->lids, c, arg) > 0 || cli_input_option(&o->in, c, arg))
			return CLI_OK;
		return cli_usage_err("whatif", "bad value '%s'", arg ? arg : "");
	}
}

static int policy_of(const char *p)
{
	return !p || !strcmp(p, "proven") ? ENG_ACCEPT_PROVEN : !strcmp(p, "connected") ?
	       ENG_ACCEPT_CONNECTED : !strcmp(p, "any") ? ENG_ACCEPT_ANY : -1;
}

static int parse_args(int argc, char **argv, struct whatif_opts *o)
{
	static const struct option longopts[] = {
		{ "link", required_argument, NULL, OPT_LINK },
		{ "switch", required_argument, NULL, OPT_SWITCH },
		{ "topology", required_argument, NULL, OPT_TOPO },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "engine", required_argument, NULL, 'e' },
		{ "option", required_argument, NULL, 'O' },
		{ "repair", required_argument, NULL, OPT_REPAIR },
		{ "policy", required_argument, NULL, OPT_POLICY },
		{ "guid2lid", required_argument, NULL, OPT_GUID2LID },
		{ "lmc", required_argument, NULL, OPT_LMC },
		{ "renew-lids", no_argument, NULL, OPT_RENEW_LIDS },
		CLI_INPUT_LONGOPTS,
		{ "url", required_argument, NULL, OPT_URL },
		{ "token-file", required_argument, NULL, OPT_TOKEN },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt("whatif", argc, argv, ":e:O:h", longopts, parse_one, o);

	if (rc || o->help)
		return rc;
	if (optind < argc)
		return cli_usage_err("whatif", "unexpected argument '%s'", argv[optind]);
	if (!o->nlinks && !o->nswitches)
		return cli_usage_err("whatif", "name what to remove: --link NODE:PORT or --switch NODE");
	if (o->topology && (o->url || o->token_file))
		return cli_usage_err("whatif", "--url and --token-file ask a daemon; --topology works on a file");
	if (!o->topology && (o->chain || o->options || o->repair || o->policy || o->lids.guid2lid ||
			     o->lids.lmc >= 0 || o->lids.renew || o->in.strict || o->in.name_map))
		return cli_usage_err("whatif", "-e, -O, --repair, --policy, the LID and input options "
				     "go with --topology (the daemon uses its own settings)");
	if (o->repair && strcmp(o->repair, "ftdlr") && strcmp(o->repair, "none"))
		return cli_usage_err("whatif", "--repair '%s': expected ftdlr or none", o->repair);
	if (policy_of(o->policy) < 0)
		return cli_usage_err("whatif", "--policy '%s': expected proven, connected or any", o->policy);
	return CLI_OK;
}

/* --- the answer as text ------------------------------------------------------------- */

static void print_removed(const json_t *rm)
{
	size_t i;
	json_t *v;

	json_array_foreach(json_object_get(rm, "links"), i, v) {
		const json_t *a = json_object_get(v, "a"), *b = json_object_get(v, "b");

		printf("remove:       link %s:%lld - %s:%lld\n", client_str(a, "node", "?"),
		       client_int(a, "port"), client_str(b, "node", "?"), client_int(b, "port"));
	}
	json_array_foreach(json_object_get(rm, "switches"), i, v)
		printf("remove:       switch %s (%s, %lld CA ports)\n", client_str(v, "node", "?"),
		       client_str(v, "guid", "?"), client_int(v, "cas"));
}

/* The failing pairs and the first cycle, from the evaluation. */
static void print_failures(const json_t *ev)
{
	const json_t *classes = json_object_get(json_object_get(ev, "connectivity"), "classes");
	const char *cls;
	size_t i;
	json_t *c, *v;

	json_object_foreach((json_t *)classes, cls, c) {
		if (!client_int(c, "unreachable"))
			continue;
		printf("  %-6s %lld of %lld pairs unreachable", cls, client_int(c, "unreachable"),
		       client_int(c, "pairs"));
		v = json_array_get(json_object_get(c, "examples"), 0);
		if (v)
			printf(", e.g. %s -> %s (%s)",
			       client_str(json_object_get(v, "src"), "node", "?"),
			       client_str(json_object_get(v, "dst"), "node", "?"), client_str(v, "failure", "?"));
		putchar('\n');
	}
	json_array_foreach(json_object_get(json_object_get(ev, "deadlock"), "vls"), i, v) {
		const json_t *cyc = json_object_get(v, "cycle");
		size_t k;
		json_t *ch;

		if (!json_array_size(cyc))
			continue;
		printf("  cycle on VL %lld:", client_int(v, "vl"));
		json_array_foreach(cyc, k, ch)
			printf(" %s:%lld", client_str(ch, "node", "?"), client_int(ch, "port"));
		putchar('\n');
		break;
	}
}

/* Whether the fabric would hold together: its parts, the largest few, the CA pairs cut. */
static void print_split(const json_t *sp)
{
	long long parts = client_int(sp, "parts");
	size_t i;
	json_t *v;

	if (parts <= 1) {
		printf("split:        no, the fabric stays in one piece\n");
		return;
	}
	printf("split:        into %lld parts; %lld CA pairs no routing can join\n", parts,
	       client_int(sp, "ca_pairs_cut"));
	json_array_foreach(json_object_get(sp, "largest"), i, v)
		printf("  part %zu: %lld CA ports, %lld endpoints, e.g. %s\n", i + 1, client_int(v, "cas"),
		       client_int(v, "endpoints"), client_str(json_object_get(v, "example"), "node", "?"));
	if (parts > (long long)json_array_size(json_object_get(sp, "largest")))
		printf("  ... and %lld smaller parts\n",
		       parts - (long long)json_array_size(json_object_get(sp, "largest")));
}

static int print_text(const json_t *a)
{
	const json_t *rep = json_object_get(a, "repair"), *lost = json_object_get(a, "lost");
	const json_t *d = json_object_get(a, "lft_changes"), *ml = json_object_get(a, "max_link_load");
	const json_t *t = json_object_get(a, "time_ms"), *ev = json_object_get(a, "evaluation");
	const char *by = client_str(a, "routed_by", NULL);
	int conn = client_bool(a, "connected"), free_ = client_bool(a, "deadlock_free");

	print_removed(json_object_get(a, "remove"));
	printf("lost:         %lld endpoints (%lld CA ports): the switches removed, CAs left without a link\n",
	       client_int(lost, "endpoints"), client_int(lost, "cas"));
	print_split(json_object_get(a, "split"));
	printf("repair:       %s%s%s\n", !client_bool(rep, "tried") ? "not tried" :
	       client_bool(rep, "accepted") ? "accepted" : "refused",
	       client_str(rep, "why", NULL) ? ": " : "", client_str(rep, "why", ""));
	if (!by) {
		size_t i;
		json_t *l;

		printf("routed by:    nothing would be published, the routing in force would stay:\n");
		json_array_foreach(json_object_get(a, "log"), i, l)
			printf("  %s\n", json_string_value(l));
		return WHATIF_EXIT_NONE;
	}
	printf("routed by:    the %s (%s)\n", by, client_str(a, "engine", "?"));
	printf("connectivity: %s\n", conn ? "connected (every pair, switches included)" : "NOT connected");
	printf("deadlock:     %s\n", free_ ? "free" : "POSSIBLE (a channel dependency cycle)");
	print_failures(ev);
	printf("max link load: %lld -> %lld routes on the busiest switch-to-switch link\n",
	       client_int(ml, "before"), client_int(ml, "after"));
	printf("LFT changes:  %lld entries in %lld blocks on %lld switches (at most %lld blocks on one)\n",
	       client_int(d, "entries"), client_int(d, "blocks"), client_int(d, "switches"),
	       client_int(d, "max_blocks"));
	printf("time:         %.1f ms (repair %.1f, chain %.1f)\n", client_real(t, "total"),
	       client_real(t, "repair"), client_real(t, "chain"));
	return conn ? (free_ ? CLI_OK : 5) : (free_ ? 4 : 6);
}

/* The exit status an answer means, printed or not. */
static int answer(const struct whatif_opts *o, const json_t *a)
{
	int rc;

	if (!o->json)
		return print_text(a);
	rc = client_print_json(a);
	if (rc)
		return rc;
	if (!client_str(a, "routed_by", NULL))
		return WHATIF_EXIT_NONE;
	return client_bool(a, "connected") ? (client_bool(a, "deadlock_free") ? CLI_OK : 5) :
	       (client_bool(a, "deadlock_free") ? 4 : 6);
}

/* --- through the daemon --------------------------------------------------------------- */

static json_t *names_json(const char **v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static int ask_daemon(const struct whatif_opts *o)
{
	struct client_cmd cmd = { .name = "whatif" };
	struct client c = { .cmd = &cmd };
	struct client_resp r = { 0 };
	json_t *body;
	int rc = client_connect(&c, o->url);

	c.token_file = o->token_file ? o->token_file : getenv("FABROUTE_TOKEN_FILE");
	if (c.token_file && !*c.token_file)
		c.token_file = NULL;
	if (rc != CLI_OK)
		return client_done(&c, rc);
	curl_easy_setopt(c.curl, CURLOPT_TIMEOUT_MS, (long)(o->timeout_s ? o->timeout_s : 300) * 1000L);
	body = json_pack("{s:o, s:o}", "links", names_json(o->links, o->nlinks), "switches",
			 names_json(o->switches, o->nswitches));
	rc = body ? client_post(&c, "/api/whatif", body, &r) : CLI_FAIL;
	if (rc == CLI_OK)
		rc = answer(o, r.json);
	json_decref(body);
	client_resp_free(&r);
	return client_done(&c, rc);
}

/* --- on a file -------------------------------------------------------------------------- */

/* The routing in force: the chain's routing of the topology, evaluated as fabrouted does. */
static int route_base(const struct whatif_opts *o, const struct fabric *f, struct eng_res *res)
{
	static const struct an_opts ao = { .load = 1, .parallel = 1, .incremental = 1 };
	struct fab_lid_pin *pins = NULL;
	size_t npins = 0;
	struct eng_chain c;
	struct fab_err err = { { 0 } };
	struct eng_req req = { .fabric = f, .chain = &c, .assign = 1, .eval = &ao,
			       .lid_mode = o->lids.renew ? FAB_LIDS_RENEW : FAB_LIDS_KEEP,
			       .lmc = o->lids.lmc < 0 ? 0 : (unsigned)o->lids.lmc,
			       .lmc_budget = FAB_LMC_MAX, .policy = (enum eng_policy)policy_of(o->policy) };
	int rc = cli_lids_pins(&o->lids, &pins, &npins);

	if (rc)
		return rc;
	if (eng_chain_parse_str(&c, o->chain, o->options ? o->options : "", &err)) {
		free(pins);
		return cli_usage_err("whatif", "%s", err.msg);
	}
	req.pins = pins;
	req.npins = npins;
	rc = eng_run(&req, res, &err);
	eng_chain_free(&c);
	free(pins);
	if (rc == ENG_OK)
		return CLI_OK;
	cli_err("the routing in force: %s", err.msg);
	return res->lids_failed ? CLI_INPUT : CLI_FAIL;
}

/* Whether fabrouted would repair the routing @base made, as its repair_wanted() decides. */
static void repair_decision(const struct whatif_opts *o, const struct eng_res *base,
			    struct wi_req *q, char *why, size_t size)
{
	const char *eng = base->used->name;

	why[0] = '\0';
	if (o->repair && !strcmp(o->repair, "none"))
		snprintf(why, size, "repairs are off (repair = none)");
	else if (strcmp(eng, "sftree") && strcmp(eng, "ftree") && strcmp(eng, "ftdlr"))
		snprintf(why, size, "the routing in force was made by %s, not by a fat-tree engine", eng);
	q->repair = !why[0];
	q->no_repair = why;
}

static int offline(const struct whatif_opts *o)
{
	struct fabric *f = cli_load(o->topology, o->from, &o->in);
	struct eng_res base;
	struct fab_err err = { { 0 } };
	struct wi_req q = {
		.chain = o->chain, .options = o->options ? o->options : "",
		.policy = (enum eng_policy)policy_of(o->policy), .assign = 1,
		.lmc = o->lids.lmc < 0 ? 0 : (unsigned)o->lids.lmc,
		.links = o->links, .nlinks = o->nlinks, .switches = o->switches, .nswitches = o->nswitches,
	};
	char why[160];
	json_t *a = NULL;
	int rc;

	if (!f)
		return CLI_INPUT;
	rc = route_base(o, f, &base);
	fab_free(f);
	if (rc)
		return rc;
	q.fabric = q.base_fabric = base.fabric;
	q.routing = q.base = base.routing;
	q.report = &base.report;
	repair_decision(o, &base, &q, why, sizeof(why));
	rc = wi_run(&q, &a, &err);
	eng_res_free(&base);
	if (rc) {
		cli_err("%s", err.msg);
		return rc == WI_BAD_NAME ? CLI_USAGE : CLI_FAIL;
	}
	rc = answer(o, a);
	json_decref(a);
	return rc;
}

int cmd_whatif(int argc, char **argv)
{
	struct whatif_opts o = { .from = FMT_AUTO, .lids = { .lmc = -1 } };
	int rc = parse_args(argc, argv, &o);

	if (o.help)
		usage();
	if (rc == CLI_OK && !o.help) {
		if (!o.chain)
			o.chain = FABROUTE_ENGINE_DEFAULT;
		rc = o.topology ? offline(&o) : ask_daemon(&o);
	}
	free(o.links);
	free(o.switches);
	free(o.options);
	return rc;
}
