/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute compute, fabroute engines
 *
 * compute routes a topology with an engine chain and writes what OpenSM and
 * the InfiniBand tools read: opensm-lfts.dump (loadable with
 * `opensm -R file -U`), guid2lid, the path SLs (the format `ibdmchk -c`
 * reads), the SL2VL tables (opensm-sl2vl.dump) of an engine that programs
 * them, the topology with the LIDs used, and summary.json. With --base DIR
 * (an earlier compute's output) the run starts from that routing: an engine
 * with a repair hook (ftdlr) repairs it, the routing must be proven
 * connected and deadlock-free, and the summary says what changed from the
 * base. engines lists the engines with their options.
 */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/report.h"
#include "cli/cli.h"
#include "cli/compute_base.h"
#include "cli/eval_text.h"
#include "cli/paths.h"
#include "cli/progress.h"
#include "engines/engine.h"

static void usage(FILE *out)
{
	fputs("Usage: fabroute compute [--engine CHAIN] --topology FILE --out-dir DIR [OPTIONS]\n"
	      "\n"
	      "Route a topology with the first engine of CHAIN that applies (e.g.\n"
	      "sftree,updn,minhop) and write into DIR:\n"
	      "  opensm-lfts.dump  the LFTs, loadable with 'opensm -R file -U'\n"
	      "  guid2lid          the LIDs routed (with each port's LMC)\n"
	      "  path-sl           path SLs, the format 'ibdmchk -c' reads (only when the\n"
	      "                    engine uses SLs other than 0: one line per node and LID)\n"
	      "  opensm-sl2vl.dump the SL2VL tables, OpenSM's format (only when the engine\n"
	      "                    programs them: dla)\n"
	      "  dlid-plan         which DLID each source uses for each destination (only\n"
	      "                    when ports have LMC > 0: opt, smodk, the path-based\n"
	      "                    engines); 'fabroute eval' reads it from next to the LFTs\n"
	      "  topology.ibnd     the topology with those LIDs (ibnetdiscover format)\n"
	      "  paths             engines that plan paths (pathsel, swidest, rename, explicit):\n"
	      "                    every machine pair's path with its DLID, one per line\n"
	      "  summary.json      engine used, time, notes, the routing's digest (SHA-256 of\n"
	      "                    the LIDs and tables: the same on every node that routed\n"
	      "                    the same), and the evaluation with --eval\n"
	      "\n"
	      "Options:\n"
	      "  -e, --engine CHAIN         engines to try in turn ('fabroute engines' lists them);\n"
	      "                             default: the chain of the fabrouted at --url (said on\n"
	      "                             standard error), else fabrouted's default chain\n"
	      "                             " FABROUTE_ENGINE_DEFAULT "\n"
	      "      --url URL              the fabrouted to take the chain from (default:\n"
	      "                             $FABROUTE_URL, else http://127.0.0.1:8577)\n"
	      "  -O, --option [ENG.]K=V     an engine option; repeatable\n"
	      "      --topology FILE        ibnetdiscover output or ibsim net file\n"
	      "      --from FMT             its format: auto (default), ibnetdiscover, ibsim,\n"
	      "                             opensm-subnet (opensm-subnet.lst)\n"
	      "  -d, --out-dir DIR          where to write (created if missing)\n"
	      "      --eval                 evaluate the routing and print the report\n"
	      "      --json                 print summary.json (with --eval, the evaluation in\n"
	      "                             it) on standard output instead of the text\n"
	      "      --lmc-max N            the largest LMC an engine that needs several LIDs\n"
	      "                             per port may give the CA ports (default 7)\n"
	      "      --base DIR             start from the routing an earlier compute wrote into\n"
	      "                             DIR (topology.ibnd, guid2lid, opensm-lfts.dump, and\n"
	      "                             path-sl, opensm-sl2vl.dump when present): an engine\n"
	      "                             that repairs (ftdlr) changes only what the faults\n"
	      "                             need; DIR's LIDs are kept; only a routing proven\n"
	      "                             connected and deadlock-free is accepted; the summary\n"
	      "                             counts the LFT entries, blocks and switches changed\n"
	      CLI_LIDS_HELP
	      CLI_INPUT_HELP
	      "  -h, --help                 show this help\n"
	      "\n"
	      "Exit status: 0 routed (and, with --eval, connected and deadlock-free);\n"
	      "1 no engine applied or a file could not be written; 2 bad command line;\n"
	      "3 bad input; with --eval 4 unreachable pairs, 5 deadlock possible, 6 both.\n",
	      out);
}

enum { OPT_TOPO = 0x300, OPT_EVAL, OPT_LMC_MAX, OPT_URL, OPT_BASE };

struct compute_opts {
	const char *chain, *topology, *out_dir, *url, *base;
	char *chain_owned;	/* the daemon's or the default chain, without --engine */
	const char **kv;
	size_t nkv;
	enum fmt_topo from;
	struct cli_lids lids;
	struct cli_input in;
	unsigned lmc_max;
	int eval, help, json;
};

static int push_kv(struct compute_opts *o, const char *kv)
{
	const char **n = realloc(o->kv, (o->nkv + 1) * sizeof(*n));

	if (!n)
		return CLI_FAIL;
	n[o->nkv++] = kv;
	o->kv = n;
	return CLI_OK;
}

static int parse_one(void *ctx, int c, const char *arg)
{
	struct compute_opts *o = ctx;
	unsigned long long v;
	int fmt;

	switch (c) {
	case 'e': o->chain = arg; return CLI_OK;
	case 'O': return push_kv(o, arg);
	case 'd': o->out_dir = arg; return CLI_OK;
	case OPT_TOPO: o->topology = arg; return CLI_OK;
	case OPT_EVAL: o->eval = 1; return CLI_OK;
	case OPT_JSON: o->json = 1; return CLI_OK;
	case OPT_URL: o->url = arg; return CLI_OK;
	case OPT_BASE: o->base = arg; return CLI_OK;
	case OPT_LMC_MAX:
		if (cli_parse_uint(arg, FAB_LMC_MAX, &v))
			return cli_usage_err("compute", "--lmc-max '%s': expected 0 to %u", arg, FAB_LMC_MAX);
		o->lmc_max = (unsigned)v;
		return CLI_OK;
	case 'h': o->help = 1; return CLI_OK;
	case OPT_FROM:
		fmt = fmt_topo_from_name(arg);
		if (fmt < 0)
			return cli_usage_err("compute", "--from '%s': expected auto, ibnetdiscover, ibsim or opensm-subnet", arg);
		o->from = (enum fmt_topo)fmt;
		return CLI_OK;
	default:
		if (cli_input_option(&o->in, c, arg) || cli_lids_option(&o->lids, c, arg) > 0)
			return CLI_OK;
		return cli_usage_err("compute", "bad value '%s'", arg ? arg : "");
	}
}

static int parse_args(int argc, char **argv, struct compute_opts *o)
{
	static const struct option longopts[] = {
		{ "engine", required_argument, NULL, 'e' },
		{ "option", required_argument, NULL, 'O' },
		{ "topology", required_argument, NULL, OPT_TOPO },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "out-dir", required_argument, NULL, 'd' },
		{ "eval", no_argument, NULL, OPT_EVAL },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "lmc-max", required_argument, NULL, OPT_LMC_MAX },
		{ "url", required_argument, NULL, OPT_URL },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "guid2lid", required_argument, NULL, OPT_GUID2LID },
		{ "lmc", required_argument, NULL, OPT_LMC },
		{ "renew-lids", no_argument, NULL, OPT_RENEW_LIDS },
		CLI_INPUT_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt("compute", argc, argv, ":e:O:d:h", longopts, parse_one, o);

	if (rc || o->help)
		return rc;
	if (optind < argc)
		return cli_usage_err("compute", "unexpected argument '%s'", argv[optind]);
	if (!o->topology || !o->out_dir)
		return cli_usage_err("compute", "--topology and --out-dir are required");
	if (o->chain && o->url)
		return cli_usage_err("compute", "--url goes without --engine (it names the daemon to take the chain from)");
	if (!o->chain && (rc = cli_default_chain(o->url, &o->chain_owned)) == CLI_OK)
		o->chain = o->chain_owned;
	return rc;
}

/* Open DIR/NAME for writing; NULL after printing why. */
static FILE *open_out(const char *dir, const char *name, char *path, size_t size)
{
	FILE *fp;

	snprintf(path, size, "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (!fp)
		cli_err("%s: cannot create: %s", path, strerror(errno));
	return fp;
}

static int close_out(FILE *fp, const char *path, int rc)
{
	if (fclose(fp) || rc) {
		cli_err("%s: write error: %s", path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* The routing has an SL2VL table for some switch. */
static int has_sl2vl(const struct rt_routing *r)
{
	for (uint32_t s = 0; s < r->nswitches; s++)
		if (r->sl2vl[s])
			return 1;
	return 0;
}

/* Some pair uses an SL other than 0: only then is path-sl worth writing. */
static int some_sl(const struct rt_routing *r)
{
	size_t n = (size_t)r->neps * r->neps;

	for (size_t i = 0; r->path_sl && i < n; i++)
		if (r->path_sl[i])
			return 1;
	return 0;
}

/* Write the files; *@have_pathsl tells whether the path SLs could be written. */
static int write_files(const char *dir, const struct fabric *f, const struct rt_routing *r,
		       int *have_pathsl)
{
	char path[4096];
	FILE *fp;
	int rc;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		cli_err("%s: cannot create the directory: %s", dir, strerror(errno));
		return CLI_FAIL;
	}
	if (!(fp = open_out(dir, "opensm-lfts.dump", path, sizeof(path))) ||
	    close_out(fp, path, fmt_lfts_write(fp, f, r)))
		return CLI_FAIL;
	if (!(fp = open_out(dir, "guid2lid", path, sizeof(path))) ||
	    close_out(fp, path, fmt_guid2lid_write(fp, f)))
		return CLI_FAIL;
	if (!(fp = open_out(dir, "topology.ibnd", path, sizeof(path))) ||
	    close_out(fp, path, fmt_topo_write(fp, f, FMT_IBND)))
		return CLI_FAIL;
	if (has_sl2vl(r) && (!(fp = open_out(dir, "opensm-sl2vl.dump", path, sizeof(path))) ||
			     close_out(fp, path, fmt_sl2vl_write(fp, f, r))))
		return CLI_FAIL;
	if (fab_lmc_max(f) && (!(fp = open_out(dir, FMT_DLIDS_FILE, path, sizeof(path))) ||
			    close_out(fp, path, fmt_dlids_write(fp, f, r))))
		return CLI_FAIL;
	*have_pathsl = 0;
	if (!some_sl(r))
		return CLI_OK;	/* every pair on SL 0: the file would say nothing */
	if (!(fp = open_out(dir, "path-sl", path, sizeof(path))))
		return CLI_FAIL;
	errno = 0;
	rc = fmt_pathsl_write(fp, f, r);
	*have_pathsl = rc == 0;
	if (rc && errno == EINVAL) {
		/* two ports of one node need different SLs: the format cannot say it */
		fclose(fp);
		remove(path);
		return CLI_OK;
	}
	return close_out(fp, path, rc) ? CLI_FAIL : CLI_OK;
}

static json_t *summary_json(const struct compute_opts *o, const struct eng_res *res,
			    const char *digest, int have_pathsl)
{
	const struct fabric *f = res->fabric;
	const struct rt_routing *r = res->routing;
	json_t *log = json_array();
	char *copy = strdup(res->log), *save = NULL, hash[24];

	for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
		json_array_append_new(log, json_string(l));
	free(copy);
	snprintf(hash, sizeof(hash), "%016" PRIx64, fab_topology_hash(f));
	return json_pack("{s:s, s:s, s:s, s:o, s:f, s:s, s:s, s:{s:s, s:i, s:i, s:i, s:i}, s:o,"
			 " s:{s:s, s:s, s:s, s:s?, s:s?, s:s?}}",
			 "schema", "fabroute-compute/1", "engine", res->used->name, "chain", o->chain,
			 "log", log, "compute_ms", res->route_ms, "notes", r->notes ? r->notes : "",
			 "routing_digest", digest,
			 "fabric", "topology_hash", hash, "nodes", (json_int_t)f->nnodes,
			 "switches", (json_int_t)f->nswitches,
			 "endpoints", (json_int_t)f->neps, "lid_top", (json_int_t)f->lid_top,
			 "vls_used", an_json_bits(r->vls_used),
			 "files", "lfts", "opensm-lfts.dump", "guid2lid", "guid2lid",
			 "topology", "topology.ibnd", "path_sl", have_pathsl ? "path-sl" : NULL,
			 "sl2vl", has_sl2vl(r) ? "opensm-sl2vl.dump" : NULL,
			 "dlid_plan", fab_lmc_max(f) ? FMT_DLIDS_FILE : NULL);
}

static int write_summary(const char *dir, json_t *summary)
{
	char path[4096];
	FILE *fp = open_out(dir, "summary.json", path, sizeof(path));
	int rc;

	if (!fp)
		return CLI_FAIL;
	rc = json_dumpf(summary, fp, CLI_JSON_FLAGS);
	fputc('\n', fp);
	return close_out(fp, path, rc) ? CLI_FAIL : CLI_OK;
}

/* Print the evaluation the run made, add it to @summary; the eval exit status. */
static int report(const struct eng_res *res, json_t *summary, int json)
{
	const struct an_report *rep = &res->report;
	struct an_perm_opts po = { 0 };

	if (!json)
		eval_print_text(stdout, res->fabric, rep, &res->eval_opts, NULL, &po);
	json_object_set_new(summary, "evaluation", an_json_report(res->fabric, rep, &res->eval_opts));
	return an_connected(rep) ? (rep->cdg.deadlock_free ? CLI_OK : 5) :
	       (rep->cdg.deadlock_free ? 4 : 6);
}

static void print_outcome(const struct compute_opts *o, const struct eng_res *res,
			  const char *digest)
{
	const struct rt_routing *r = res->routing;

	printf("engine:       %s (chain %s), %.1f ms\n", res->used->name, o->chain, res->route_ms);
	if (strchr(res->log, '\n') != strrchr(res->log, '\n'))
		printf("tried:\n%s", res->log);
	if (r->notes && *r->notes)
		printf("notes:        %s\n", r->notes);
	printf("digest:       %s\n", digest);
}

/*
 * The routing run's request for @f, from the command line; with a base
 * (@b->r set) its routing is the previous one, its LIDs the pins (unless
 * --guid2lid gives others), and only a proven routing is accepted.
 */
static int make_request(const struct compute_opts *o, const struct fabric *f, struct eng_chain *c,
			struct eng_req *req, const struct an_opts *ao, const struct cli_base *b)
{
	struct fab_lid_pin *pins;
	size_t npins;
	struct fab_err err = { { 0 } };
	int rc = cli_lids_pins(&o->lids, &pins, &npins);

	if (rc)
		return rc;
	if (eng_chain_parse(c, o->chain, o->kv, o->nkv, &err)) {
		free(pins);
		return cli_usage_err("compute", "%s", err.msg);
	}
	if (b->r && !npins && b->npins) {	/* the base's LIDs */
		free(pins);
		if (!(pins = malloc(b->npins * sizeof(*pins)))) {
			eng_chain_free(c);
			return CLI_FAIL;
		}
		memcpy(pins, b->pins, b->npins * sizeof(*pins));
		npins = b->npins;
	}
	*req = (struct eng_req){
		.fabric = f, .chain = c, .pins = pins, .npins = npins, .assign = 1,
		.lid_mode = o->lids.renew ? FAB_LIDS_RENEW : FAB_LIDS_KEEP,
		.lmc = o->lids.lmc < 0 ? 0 : (unsigned)o->lids.lmc, .lmc_budget = o->lmc_max,
		.eval = o->eval || b->r ? ao : NULL,
		.prev_fabric = b->f, .prev = b->r,
		.policy = b->r ? ENG_ACCEPT_PROVEN : ENG_ACCEPT_ANY,
	};
	return CLI_OK;
}

static int route(const struct compute_opts *o, const struct fabric *f, const struct cli_base *b,
		 struct cli_progress *pg)
{
	const struct an_opts ao = { .load = 1, .parallel = 1, .progress = cli_progress_cb,
				    .progress_arg = pg };
	struct eng_chain chain;
	struct eng_req req;
	struct eng_res res;
	struct fab_err err = { { 0 } };
	char digest[RT_DIGEST_HEX];
	json_t *summary;
	int rc = make_request(o, f, &chain, &req, &ao, b), have_pathsl = 0, have_paths = 0, erc = CLI_OK;

	if (rc)
		return rc;
	cli_progress_step(pg, o->eval ? "routing and evaluating" : "routing",
			  o->eval ? "destinations" : NULL);
	rc = eng_run(&req, &res, &err);
	free((void *)req.pins);
	eng_chain_free(&chain);
	cli_progress_end(pg);
	if (rc != ENG_OK) {
		cli_err("%s", err.msg);
		return res.lids_failed ? CLI_INPUT : CLI_FAIL;
	}
	if (rt_digest(res.fabric, res.routing, digest, &err)) {
		cli_err("%s", err.msg);
		eng_res_free(&res);
		return CLI_FAIL;
	}
	if (!o->json)
		print_outcome(o, &res, digest);
	rc = write_files(o->out_dir, res.fabric, res.routing, &have_pathsl);
	if (rc == CLI_OK)
		rc = paths_compute_file(o->out_dir, res.used, res.fabric, res.routing, &have_paths);
	summary = rc == CLI_OK ? summary_json(o, &res, digest, have_pathsl) : NULL;
	if (summary && have_paths)
		json_object_set_new(json_object_get(summary, "files"), "paths", json_string("paths"));
	if (summary && b->r)
		json_object_set_new(summary, "base", cli_base_changes(o->base, b, &res));
	if (summary && res.evaluated && o->eval)
		erc = report(&res, summary, o->json);
	if (summary)
		rc = write_summary(o->out_dir, summary);
	if (rc == CLI_OK && o->json)
		rc = json_dumpf(summary, stdout, CLI_JSON_FLAGS) || putchar('\n') == EOF ? CLI_FAIL : CLI_OK;
	else if (rc == CLI_OK)
		printf("written:      %s/{opensm-lfts.dump,guid2lid,%s%s%stopology.ibnd,%ssummary.json}\n",
		       o->out_dir, have_pathsl ? "path-sl," : "",
		       has_sl2vl(res.routing) ? "opensm-sl2vl.dump," : "",
		       fab_lmc_max(res.fabric) ? FMT_DLIDS_FILE "," : "", have_paths ? "paths," : "");
	json_decref(summary);
	eng_res_free(&res);
	return rc == CLI_OK ? erc : rc;
}

int cmd_compute(int argc, char **argv)
{
	struct compute_opts o = { .from = FMT_AUTO, .lids = { .lmc = -1 }, .lmc_max = FAB_LMC_MAX };
	struct cli_base base = { 0 };
	struct cli_progress *pg;
	struct fabric *f;
	int rc = parse_args(argc, argv, &o);

	if (rc || o.help) {
		if (o.help)
			usage(stdout);
		free(o.kv);
		free(o.chain_owned);
		return rc;
	}
	pg = cli_progress_start("compute");
	cli_progress_step(pg, "reading the topology", NULL);
	f = cli_load(o.topology, o.from, &o.in);
	rc = f ? CLI_OK : CLI_INPUT;
	if (rc == CLI_OK && o.base) {
		cli_progress_step(pg, "reading the base", NULL);
		rc = cli_base_load(o.base, &base);
	}
	if (rc == CLI_OK)
		rc = route(&o, f, &base, pg);
	else
		cli_progress_end(pg);
	cli_base_free(&base);
	fab_free(f);
	free(o.kv);
	free(o.chain_owned);
	return rc;
}

/* --- fabroute engines ---------------------------------------------------- */

static json_t *engine_json(const struct engine *e)
{
	json_t *opts = eng_options_json(e);
	return json_pack("{s:s, s:s, s:b, s:i, s:o}", "name", e->name, "summary", e->summary,
			 "deadlock_free", e->deadlock_free, "vls", (json_int_t)e->vls,
			 "options", opts);
}

/* The options of engines: --json, --help; CLI_OK or CLI_USAGE after a message. */
static int engines_args(int argc, char **argv, int *json, int *help)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h')
			*help = 1;
		else if (c == OPT_JSON)
			*json = 1;
		else
			return cli_usage_err("engines", "unknown option '%s'", argv[optind - 1]);
	}
	if (optind < argc && !*help)
		return cli_usage_err("engines", "unexpected argument '%s'", argv[optind]);
	return CLI_OK;
}

int cmd_engines(int argc, char **argv)
{
	size_t n;
	const struct engine *const *all = eng_all(&n);
	int json = 0, help = 0, rc = engines_args(argc, argv, &json, &help);

	if (rc)
		return rc;
	if (help) {
		puts("Usage: fabroute engines [--json]\n\nList the routing engines, what they "
		     "guarantee, and their options\n(give options to compute as -O ENGINE.NAME=VALUE).\n\n"
		     "Options:\n      --json  print a JSON array of the engines\n  -h, --help  show this help");
		return CLI_OK;
	}
	if (json) {
		json_t *arr = json_array();

		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, engine_json(all[i]));
		json_dumpf(arr, stdout, CLI_JSON_FLAGS);
		putchar('\n');
		json_decref(arr);
		return CLI_OK;
	}
	for (size_t i = 0; i < n; i++) {
		printf("%-8s %s\n         %s, %u VL%s\n", all[i]->name, all[i]->summary,
		       all[i]->deadlock_free ? "deadlock-free" : "not deadlock-free",
		       all[i]->vls, all[i]->vls == 1 ? "" : "s");
		for (const struct eng_opt *p = all[i]->options; p && p->name; p++) {
			char buf[48];

			printf("         -O %s.%s=%s  %s (default '%s')\n", all[i]->name, p->name,
			       eng_opt_type_text(p, buf, sizeof(buf)), p->help, p->defval);
		}
	}
	return CLI_OK;
}
