/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute eval
 *
 * Evaluates a routing given as OpenSM's dump files (or fabroute's own, which
 * use the same formats): connectivity by class, deadlock freedom per VL,
 * load, and on request the permutation metrics and the dragonfly metrics
 * of papers/004. The exit status tells scripts whether the routing is
 * connected and deadlock-free.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/report.h"
#include "cli/cli.h"
#include "cli/eval_text.h"
#include "cli/paths.h"
#include "cli/progress.h"

static void usage(FILE *out)
{
	fputs("Usage: fabroute eval (--topology FILE | --subnet FILE) (--lfts FILE | --fdbs FILE)\n"
	      "                     [OPTIONS]\n"
	      "\n"
	      "Evaluate a routing: connectivity of every endpoint pair (CA and switch port 0,\n"
	      "by class), deadlock freedom (channel dependency graph per VL, switch paths\n"
	      "included), link load, and on request the permutation metrics of Nienaber,\n"
	      "Mahapatra and Yuan (\"Improving Performance of Deterministic Single-path\n"
	      "Routing on 2-Level Generalized Fat-trees\"): WORST, ABB, AFPB, ADB.\n"
	      "\n"
	      "Fabric:\n"
	      "      --topology FILE   ibnetdiscover output or ibsim net file\n"
	      "      --subnet FILE     OpenSM's opensm-subnet.lst\n"
	      "      --from FMT        format of --topology: auto (default), ibnetdiscover,\n"
	      "                        ibsim, opensm-subnet (opensm-subnet.lst)\n"
	      "      --guid2lid FILE   LIDs and LMCs from OpenSM's guid2lid (use it when the\n"
	      "                        topology file's LIDs are not the routing's)\n"
	      "                        Without it, ports the fabric gives no LID (ibnetdiscover\n"
	      "                        run before the SM) get those the --lfts annotations name.\n"
	      "Routing:\n"
	      "      --lfts FILE       opensm-lfts.dump (ibroute format)\n"
	      "      --fdbs FILE       opensm.fdbs\n"
	      "      --dlid-plan FILE  the DLID each source uses for each destination (the\n"
	      "                        dlid-plan compute writes); default: the dlid-plan next\n"
	      "                        to the --lfts or --fdbs file, when there is one\n"
	      "      --no-dlid-plan    every pair at its destination's base LID\n"
	      "      --path-sl FILE    path SLs per pair (the format ibdmchk -c reads)\n"
	      "      --sl2vl FILE      SL2VL tables (opensm-sl2vl.dump)\n"
	      "                        default for both: the path-sl and opensm-sl2vl.dump\n"
	      "                        next to the --lfts or --fdbs file, when there are\n"
	      "      --no-sl-files     every pair on SL 0, the default SL2VL mapping\n"
	      "What to check:\n"
	      "      --metrics LIST    comma list of conn, cdg, load, worst, perm, all,\n"
	      "                        dragonfly (default conn,cdg,load; conn and cdg are\n"
	      "                        always on; all does not include dragonfly)\n"
	      "      --groups FILE     the dragonfly's groups (\"NODE GROUP\" lines) instead of\n"
	      "                        finding them; implies --metrics dragonfly\n"
	      "      --ca-only         only CA-to-CA paths enter the dependency graph (as ibdmchk)\n"
	      "      --all-lids        check every LID of each destination's LMC range\n"
	      "      --paths FILE      check that the tables follow every path of FILE hop by\n"
	      "                        hop with its DLID (the 'paths' file compute writes);\n"
	      "                        the pairs it lists are evaluated with those DLIDs\n"
	      "      --seed N          seed for sampled metrics (default 1)\n"
	      "      --threads N       evaluate on N threads (default 0: one per CPU)\n"
	      "      --json            print JSON (schema fabroute-eval/1, doc/eval-json.md)\n"
	      CLI_INPUT_HELP
	      "  -h, --help            show this help\n"
	      "\n"
	      "On a terminal, steps that run over a second show their progress on\n"
	      "standard error. LFT dumps are read in pieces: there is no size limit.\n"
	      "\n"
	      "Dragonfly metrics (Maglione-Mathey et al.): hop histograms, paths off\n"
	      "[lc] gc [lc], flows per terminal, local (per VL) and global channel under\n"
	      "all-to-all traffic, the group shift +1; the fabric must be a fully\n"
	      "connected dragonfly.\n"
	      "\n"
	      "Exit status: 0 connected and deadlock-free, 4 some pair unreachable,\n"
	      "5 a dependency cycle (deadlock possible), 6 both; 7 a path of --paths is\n"
	      "not followed; 2 bad command line, 3 bad input file (or not a dragonfly\n"
	      "with --metrics dragonfly), 1 failure.\n",
	      out);
}

struct eval_opts {
	const char *topology, *subnet, *lfts, *fdbs, *path_sl, *sl2vl, *groups, *paths, *plan;
	int no_plan, no_sls;
	enum fmt_topo from;
	struct cli_lids lids;
	struct cli_input in;
	struct an_opts an;
	struct an_perm_opts perm;
	int json, help, dfly;
	struct cli_progress *progress;
};

static int parse_metrics(struct eval_opts *o, const char *list)
{
	char *copy = strdup(list), *save = NULL;
	int rc = CLI_OK;

	if (!copy)
		return CLI_FAIL;
	o->an.load = o->perm.worst = o->perm.sample = 0;
	for (char *m = strtok_r(copy, ",", &save); m && rc == CLI_OK; m = strtok_r(NULL, ",", &save)) {
		if (!strcmp(m, "conn") || !strcmp(m, "cdg"))
			continue;
		else if (!strcmp(m, "load"))
			o->an.load = 1;
		else if (!strcmp(m, "worst"))
			o->perm.worst = 1;
		else if (!strcmp(m, "perm"))
			o->perm.sample = 1;
		else if (!strcmp(m, "all"))
			o->an.load = o->perm.worst = o->perm.sample = 1;
		else if (!strcmp(m, "dragonfly"))
			o->dfly = 1;
		else
			rc = cli_usage_err("eval", "--metrics: no metric '%s' (conn, cdg, load, worst, perm, "
					   "all, dragonfly)", m);
	}
	free(copy);
	return rc;
}

enum { OPT_TOPOLOGY = 0x200, OPT_SUBNET, OPT_LFTS, OPT_FDBS, OPT_PATH_SL, OPT_SL2VL,
       OPT_METRICS, OPT_CA_ONLY, OPT_ALL_LIDS, OPT_THREADS, OPT_GROUPS, OPT_PATHS, OPT_PLAN,
       OPT_NO_PLAN, OPT_NO_SLS };

static int parse_opt(void *ctx, int c, const char *arg)
{
	struct eval_opts *o = ctx;
	unsigned long long v;
	int fmt;

	switch (c) {
	case OPT_TOPOLOGY: o->topology = arg; break;
	case OPT_SUBNET: o->subnet = arg; break;
	case OPT_LFTS: o->lfts = arg; break;
	case OPT_FDBS: o->fdbs = arg; break;
	case OPT_PATH_SL: o->path_sl = arg; break;
	case OPT_SL2VL: o->sl2vl = arg; break;
	case OPT_GROUPS: o->groups = arg; o->dfly = 1; break;
	case OPT_PATHS: o->paths = arg; break;
	case OPT_PLAN: o->plan = arg; break;
	case OPT_NO_PLAN: o->no_plan = 1; break;
	case OPT_NO_SLS: o->no_sls = 1; break;
	case OPT_GUID2LID: o->lids.guid2lid = arg; break;
	case OPT_CA_ONLY: o->an.ca_only = 1; break;
	case OPT_ALL_LIDS: o->an.all_lids = 1; break;
	case OPT_JSON: o->json = 1; break;
	case 'h': o->help = 1; break;
	case OPT_METRICS:
		return parse_metrics(o, arg);
	case OPT_SEED:
		if (cli_parse_uint(arg, UINT64_MAX, &v))
			return cli_usage_err("eval", "--seed '%s': expected an unsigned integer", arg);
		o->perm.seed = v;
		break;
	case OPT_THREADS:
		if (cli_parse_uint(arg, 1024, &v))
			return cli_usage_err("eval", "--threads '%s': expected 0 to 1024", arg);
		o->an.threads = (unsigned)v;
		break;
	case OPT_FROM:
		fmt = fmt_topo_from_name(arg);
		if (fmt < 0)
			return cli_usage_err("eval", "--from '%s': expected auto, ibnetdiscover, ibsim or opensm-subnet", arg);
		o->from = (enum fmt_topo)fmt;
		break;
	default:
		if (cli_input_option(&o->in, c, arg))
			break;
		return cli_usage_err("eval", "unknown option");
	}
	return CLI_OK;
}

static int parse_args(int argc, char **argv, struct eval_opts *o)
{
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, OPT_TOPOLOGY },
		{ "subnet", required_argument, NULL, OPT_SUBNET },
		{ "lfts", required_argument, NULL, OPT_LFTS },
		{ "fdbs", required_argument, NULL, OPT_FDBS },
		{ "path-sl", required_argument, NULL, OPT_PATH_SL },
		{ "sl2vl", required_argument, NULL, OPT_SL2VL },
		{ "groups", required_argument, NULL, OPT_GROUPS },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "guid2lid", required_argument, NULL, OPT_GUID2LID },
		{ "metrics", required_argument, NULL, OPT_METRICS },
		{ "ca-only", no_argument, NULL, OPT_CA_ONLY },
		{ "all-lids", no_argument, NULL, OPT_ALL_LIDS },
		{ "paths", required_argument, NULL, OPT_PATHS },
		{ "dlid-plan", required_argument, NULL, OPT_PLAN },
		{ "no-dlid-plan", no_argument, NULL, OPT_NO_PLAN },
		{ "no-sl-files", no_argument, NULL, OPT_NO_SLS },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "json", no_argument, NULL, OPT_JSON },
		CLI_INPUT_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt("eval", argc, argv, ":h", longopts, parse_opt, o);

	if (rc || o->help)
		return rc;
	if (optind < argc)
		return cli_usage_err("eval", "unexpected argument '%s'", argv[optind]);
	if (!o->topology == !o->subnet)
		return cli_usage_err("eval", "give the fabric with exactly one of --topology and --subnet");
	if (!o->lfts == !o->fdbs)
		return cli_usage_err("eval", "give the routing with exactly one of --lfts and --fdbs");
	if (o->plan && o->no_plan)
		return cli_usage_err("eval", "--dlid-plan and --no-dlid-plan exclude each other");
	if ((o->path_sl || o->sl2vl) && o->no_sls)
		return cli_usage_err("eval", "--path-sl and --sl2vl exclude --no-sl-files");
	return CLI_OK;
}

/*
 * Read @path (at most @max bytes) and hand it to @parse; CLI_OK or CLI_INPUT
 * after printing why.
 */
static int read_and(const char *path, size_t max, struct fab_err *err,
		    int (*parse)(const char *buf, size_t len, const char *name, void *ctx), void *ctx)
{
	char *buf;
	size_t len;
	int rc;

	if (fmt_read_file_max(path, max, &buf, &len, err)) {
		cli_err("%s", err->msg);
		return CLI_INPUT;
	}
	rc = parse(buf, len, path, ctx);
	free(buf);
	if (rc) {
		cli_err("%s", err->msg);
		return CLI_INPUT;
	}
	return CLI_OK;
}

struct loaded {
	const struct eval_opts *o;
	struct fabric *f;
	struct rt_routing *r;
	struct fmt_paths paths;
	struct fab_err err;
};

static int parse_paths(const char *buf, size_t len, const char *name, void *ctx)
{
	struct loaded *l = ctx;

	return fmt_paths_parse(buf, len, name, l->f, FMT_PATHS_DLID_NEEDED, &l->paths, &l->err);
}

static int parse_subnet(const char *buf, size_t len, const char *name, void *ctx)
{
	struct loaded *l = ctx;

	l->f = fmt_subnet_parse(buf, len, name, &l->err);
	return l->f ? 0 : -1;
}

static int parse_fdbs(const char *buf, size_t len, const char *name, void *ctx)
{
	struct loaded *l = ctx;

	l->r = fmt_fdbs_parse(buf, len, name, l->f, &l->err);
	return l->r ? 0 : -1;
}

/* The LFT dump, read in pieces whatever its size; CLI_OK or CLI_INPUT. */
static int load_lfts(struct loaded *l)
{
	cli_progress_step(l->o->progress, "reading the LFTs", "MiB");
	l->r = fmt_lfts_load(l->o->lfts, l->f, cli_progress_cb, l->o->progress, &l->err);
	if (l->r)
		return CLI_OK;
	cli_err("%s", l->err.msg);
	return CLI_INPUT;
}

static int parse_sl2vl(const char *buf, size_t len, const char *name, void *ctx)
{
	struct loaded *l = ctx;

	return fmt_sl2vl_parse(buf, len, name, l->f, l->r, &l->err);
}

static int parse_plan(const char *buf, size_t len, const char *name, void *ctx)
{
	struct loaded *l = ctx;

	return fmt_dlids_parse(buf, len, name, l->f, l->r, &l->err);
}

/*
 * @name next to the routing file (--lfts or --fdbs), where compute and
 * OpenSM write the files that go with the tables, in @path: 0, or -1 when
 * there is none (or the routing came from standard input).
 */
static int beside_routing(const struct eval_opts *o, const char *name, char *path, size_t size)
{
	const char *routing = o->lfts ? o->lfts : o->fdbs, *slash = strrchr(routing, '/');

	if (!strcmp(routing, "-"))
		return -1;
	snprintf(path, size, "%.*s%s", slash ? (int)(slash - routing) + 1 : 0, routing, name);
	return access(path, F_OK) ? -1 : 0;
}

/*
 * The DLID plan: --dlid-plan, else the dlid-plan next to the routing file
 * when there is one. Without a plan, ports with LMC > 0 are only reached at
 * their base LIDs, which is not what an engine that uses them planned: say so.
 */
static int load_plan(struct loaded *l)
{
	char path[4096];
	int rc;

	if (l->o->no_plan)
		return CLI_OK;
	if (l->o->plan)
		return read_and(l->o->plan, FMT_DUMP_SIZE_MAX, &l->err, parse_plan, l);
	if (!beside_routing(l->o, FMT_DLIDS_FILE, path, sizeof(path))) {
		rc = read_and(path, FMT_DUMP_SIZE_MAX, &l->err, parse_plan, l);
		if (rc == CLI_OK)
			fprintf(stderr, "fabroute eval: pairs at the DLIDs of the plan %s "
				"(--no-dlid-plan: at base LIDs)\n", path);
		return rc;
	}
	if (fab_lmc_max(l->f))
		fprintf(stderr, "fabroute eval: warning: ports own several LIDs (LMC > 0) and no DLID "
			"plan is given: every pair is evaluated at its destination's base LID, which "
			"may not be the routing the engine planned (give --dlid-plan FILE, or "
			"--no-dlid-plan to silence this)\n");
	return CLI_OK;
}

static int parse_pathsl(const char *buf, size_t len, const char *name, void *ctx)
{
	struct loaded *l = ctx;

	return fmt_pathsl_parse(buf, len, name, l->f, l->r, &l->err);
}

/*
 * The SL2VL tables and path SLs: --sl2vl and --path-sl, else the
 * opensm-sl2vl.dump and path-sl next to the routing file (an engine that
 * avoids deadlocks with VLs is only proven with them).
 */
static int load_sls(struct loaded *l)
{
	const struct eval_opts *o = l->o;
	char s_path[4096], p_path[4096];
	const char *s = o->sl2vl, *p = o->path_sl;
	int rc = CLI_OK;

	if (!s && !o->no_sls && !beside_routing(o, "opensm-sl2vl.dump", s_path, sizeof(s_path)))
		s = s_path;
	if (!p && !o->no_sls && !beside_routing(o, "path-sl", p_path, sizeof(p_path)))
		p = p_path;
	if (s || p)
		cli_progress_step(o->progress, "reading SL2VL tables and path SLs", NULL);
	if (s)
		rc = read_and(s, FMT_DUMP_SIZE_MAX, &l->err, parse_sl2vl, l);
	if (rc == CLI_OK && p)
		rc = read_and(p, FMT_DUMP_SIZE_MAX, &l->err, parse_pathsl, l);
	if (rc == CLI_OK && s == s_path)
		fprintf(stderr, "fabroute eval: the SL2VL tables of %s (--no-sl-files: the default "
			"mapping)\n", s_path);
	if (rc == CLI_OK && p == p_path)
		fprintf(stderr, "fabroute eval: the path SLs of %s (--no-sl-files: SL 0)\n", p_path);
	return rc;
}

static int load(struct loaded *l)
{
	const struct eval_opts *o = l->o;
	int rc;

	cli_progress_step(o->progress, "reading the fabric", NULL);
	if (o->topology) {
		l->f = cli_load(o->topology, o->from, &o->in);
		rc = l->f ? CLI_OK : CLI_INPUT;
	} else {
		rc = read_and(o->subnet, FMT_SIZE_MAX, &l->err, parse_subnet, l);
		if (rc == CLI_OK)
			rc = cli_input_names(l->f, &o->in);
	}
	if (rc == CLI_OK && o->lids.guid2lid)
		rc = cli_lids_apply(l->f, &o->lids);
	if (rc == CLI_OK)
		rc = eval_lids_from_dump(l->f, o->topology ? o->topology : o->subnet, o->lfts);
	if (rc == CLI_OK && o->lfts)
		rc = load_lfts(l);
	else if (rc == CLI_OK)
		rc = read_and(o->fdbs, FMT_DUMP_SIZE_MAX, &l->err, parse_fdbs, l);
	if (rc == CLI_OK)
		rc = load_plan(l);
	if (rc == CLI_OK)
		rc = load_sls(l);
	if (rc == CLI_OK && o->paths)
		rc = read_and(o->paths, FMT_DUMP_SIZE_MAX, &l->err, parse_paths, l);
	if (rc == CLI_OK && o->paths)
		rc = paths_apply_dlids(l->f, l->r, &l->paths);
	return rc;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static int verdict(const struct an_report *rep)
{
	int conn = an_connected(rep), free_ = rep->cdg.deadlock_free;

	if (conn && free_)
		return CLI_OK;
	return !conn && !free_ ? 6 : !conn ? 4 : 5;
}

static json_t *paths_json(const struct paths_report *pr)
{
	json_t *ex = json_array();

	for (unsigned i = 0; i < pr->nex; i++)
		json_array_append_new(ex, json_string(pr->ex[i]));
	return json_pack("{s:I, s:I, s:I, s:o}", "checked", (json_int_t)pr->checked, "followed",
			 (json_int_t)pr->followed, "not_followed",
			 (json_int_t)(pr->checked - pr->followed), "examples", ex);
}

static void paths_text(const struct paths_report *pr)
{
	printf("paths:        %llu of %llu listed paths followed hop by hop with their DLID\n",
	       (unsigned long long)pr->followed, (unsigned long long)pr->checked);
	for (unsigned i = 0; i < pr->nex; i++)
		printf("  not followed: %s\n", pr->ex[i]);
}

static int print_json(const struct loaded *l, const struct an_report *rep, const struct an_perm *perm,
		      const struct an_dfly *df, const struct paths_report *pr)
{
	json_t *root = an_json_report(l->f, rep, &l->o->an);
	int rc = CLI_FAIL;

	if (root && (l->o->perm.worst || l->o->perm.sample))
		json_object_set_new(root, "permutation", an_json_perm(l->f, perm, &l->o->perm));
	if (root && l->o->dfly)
		json_object_set_new(root, "dragonfly", an_json_dfly(df));
	if (root && l->o->paths)
		json_object_set_new(root, "paths", paths_json(pr));
	if (root && json_dumpf(root, stdout, CLI_JSON_FLAGS) == 0)
		rc = CLI_OK;
	putchar('\n');
	json_decref(root);
	return rc;
}

/* The evaluation and the permutation metrics, with their times; CLI_OK or CLI_FAIL. */
static int compute(struct loaded *l, struct an_report *rep, struct an_perm *perm, double *ms,
		   double *perm_ms)
{
	struct an_opts ao = l->o->an;
	struct timespec t0;

	ao.progress = cli_progress_cb;
	ao.progress_arg = l->o->progress;
	cli_progress_step(l->o->progress, "evaluating", "destinations");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (an_evaluate(l->f, l->r, &ao, rep, &l->err)) {
		cli_err("%s", l->err.msg);
		return CLI_FAIL;
	}
	*ms = ms_since(&t0);
	if (l->o->perm.worst || l->o->perm.sample) {
		cli_progress_step(l->o->progress, "permutation metrics", NULL);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (an_perm_run(l->f, l->r, &l->o->perm, perm, &l->err)) {
			cli_err("%s", l->err.msg);
			an_report_free(rep);
			return CLI_FAIL;
		}
		*perm_ms = ms_since(&t0);
	}
	return CLI_OK;
}

/* The groups of the dragonfly: from --groups, else found. CLI_OK or CLI_INPUT. */
static int dfly_groups(struct loaded *l, struct fab_dfly *d)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (l->o->groups && fmt_read_file(l->o->groups, &buf, &len, &l->err)) {
		cli_err("%s", l->err.msg);
		return CLI_INPUT;
	}
	rc = fmt_dfly_find(l->f, buf, len, l->o->groups, d, &l->err);
	free(buf);
	if (rc == FAB_DFLY_NOT)
		cli_err("not a fully connected dragonfly: %s", l->err.msg);
	else if (rc)
		cli_err("%s", l->err.msg);
	return rc ? CLI_INPUT : CLI_OK;
}

/* The dragonfly metrics when asked for; CLI_OK, CLI_INPUT or CLI_FAIL. */
static int dfly_metrics(struct loaded *l, struct an_dfly *m, double *ms)
{
	struct fab_dfly d;
	struct timespec t0;
	int rc;

	if (!l->o->dfly)
		return CLI_OK;
	if ((rc = dfly_groups(l, &d)) != CLI_OK)
		return rc;
	cli_progress_step(l->o->progress, "dragonfly metrics", NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = an_dfly_run(l->f, l->r, &d, m, &l->err) ? CLI_FAIL : CLI_OK;
	*ms = ms_since(&t0);
	if (rc)
		cli_err("%s", l->err.msg);
	fab_dfly_free(&d);
	return rc;
}

static int evaluate(struct loaded *l)
{
	struct an_report rep;
	struct an_perm perm = { 0 };
	struct an_dfly df = { 0 };
	struct paths_report pr = { 0 };
	double ms = 0, perm_ms = 0, df_ms = 0;
	int rc = dfly_metrics(l, &df, &df_ms);

	if (rc == CLI_OK)
		rc = compute(l, &rep, &perm, &ms, &perm_ms);
	cli_progress_end(l->o->progress);
	if (rc != CLI_OK)
		return rc;
	if (l->o->paths && paths_check(l->f, l->r, &l->paths, l->o->paths, &pr)) {
		an_report_free(&rep);
		return CLI_FAIL;
	}
	if (l->o->json) {
		rc = print_json(l, &rep, &perm, &df, &pr);
	} else {
		eval_print_text(stdout, l->f, &rep, &l->o->an, &perm, &l->o->perm);
		if (l->o->dfly)
			eval_print_dfly(stdout, &df);
		printf("time:         %.1f ms evaluation", ms);
		if (perm_ms > 0)
			printf(", %.1f ms permutation metrics", perm_ms);
		if (l->o->dfly)
			printf(", %.1f ms dragonfly metrics", df_ms);
		putchar('\n');
		if (l->o->paths)
			paths_text(&pr);
		rc = CLI_OK;
	}
	if (rc == CLI_OK)
		rc = pr.followed < pr.checked ? 7 : verdict(&rep);
	an_report_free(&rep);
	return rc;
}

int cmd_eval(int argc, char **argv)
{
	struct eval_opts o = { .from = FMT_AUTO, .lids = { .lmc = -1 },
			       .an = { .load = 1, .parallel = 1 }, .perm = { .seed = 1 } };
	struct loaded l = { .o = &o };
	int rc = parse_args(argc, argv, &o);

	if (rc || o.help) {
		if (o.help)
			usage(stdout);
		return rc;
	}
	o.progress = cli_progress_start("eval");
	rc = load(&l);
	if (rc == CLI_OK)
		rc = evaluate(&l);
	else
		cli_progress_end(o.progress);
	fmt_paths_free(&l.paths);
	rt_free(l.r);
	fab_free(l.f);
	return rc;
}
