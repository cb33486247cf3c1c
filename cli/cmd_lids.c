/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute lids
 *
 * Realises an external path set with the fewest LIDs (papers/002): reads a
 * topology and a path file ("SRC DST SWITCH:PORT ...", formats/fmt_paths.c),
 * colours each destination port's paths into configurations with the
 * chosen heuristic, and prints per destination port its paths,
 * configurations and LIDs (2^ceil(lg k)), then the totals beside what the
 * same configurations take under OpenSM's single global LMC. With --exact,
 * an exact colouring per destination (capped in time) gives the optimality
 * gap. With -d, the LID plan and the completed tables are written: LFTs,
 * guid2lid, the topology with those LIDs, and the paths with their DLIDs.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli/cli.h"
#include "engines/lidassign/lidassign.h"

static void usage(FILE *out)
{
	fputs("Usage: fabroute lids --topology FILE --paths FILE [OPTIONS]\n"
	      "\n"
	      "Realise the paths of FILE with the fewest LIDs (Nienaber, Yuan and Duan, \"On\n"
	      "LID Assignment In InfiniBand Networks\"): the paths to\n"
	      "each destination port are split into configurations (no two paths of one\n"
	      "leave a switch by different ports), one LID each; a port with k of them\n"
	      "gets 2^ceil(lg k) LIDs (its LMC). Prints, per destination port, its paths,\n"
	      "configurations and LIDs, then the totals.\n"
	      "\n"
	      "Path file: one path per line, 'SRC DST SWITCH:PORT ...': SRC and DST a port\n"
	      "GUID, a node GUID or a description (a CA stands for its port 1); each hop a\n"
	      "switch (GUID or description) and the port the path leaves it by, the last\n"
	      "one leading to DST. A DLID after DST is ignored. '#' starts a comment.\n"
	      "\n"
	      "Options:\n"
	      "      --topology FILE    ibnetdiscover output or ibsim net file\n"
	      "      --from FMT         its format: auto (default), ibnetdiscover, ibsim,\n"
	      "                         opensm-subnet (opensm-subnet.lst)\n"
	      "      --paths FILE       the paths\n"
	      "      --heuristic H      greedy, sm-s, sm-l, color-s or color-l (default)\n"
	      "      --degree D         color-s/color-l degree: round (default) or candidates\n"
	      "      --sort-by-source   take each destination's paths by source port, then in\n"
	      "                         file order (default: in file order, as given: greedy\n"
	      "                         and the split-merge heuristics depend on the order)\n"
	      "      --input-order      in file order (the default)\n"
	      "      --exact MS         also an exact colouring per destination, at most MS\n"
	      "                         milliseconds of CPU each: the optimum and the gap\n"
	      "  -d, --out-dir DIR      write opensm-lfts.dump, guid2lid, topology.ibnd and\n"
	      "                         paths (with each path's DLID): every LID of every range\n"
	      "                         routed from every switch, Up/Down-legal from the root\n"
	      "      --root NODE        that Up/Down root (description or 0x GUID; default:\n"
	      "                         the switch the path-based engines choose, see --seed)\n"
	      "      --seed N           without --root: 0 (default) chooses the root as pathsel\n"
	      "                         does (the least expected load on the worst link); N >= 1\n"
	      "                         draws it at random with seed N\n"
	      "      --json             print JSON (schema fabroute-lids/1)\n"
	      CLI_INPUT_HELP
	      "  -h, --help             show this help\n"
	      "\n"
	      "Exit status: 0 done; 1 a file could not be written; 2 bad command line;\n"
	      "3 bad input (a path that does not follow the links, crosses a switch twice,\n"
	      "or a port that would need more than 128 LIDs).\n",
	      out);
}

enum { O_TOPO = 0x400, O_PATHS, O_HEUR, O_DEGREE, O_ORDER, O_SORT, O_EXACT, O_ROOT };

struct lids_opts {
	const char *topology, *paths, *out_dir, *root;
	enum fmt_topo from;
	struct la_opts la;
	struct cli_input in;
	double exact_ms;
	uint64_t seed;
	int json, help;
};

static int parse_one(void *ctx, int c, const char *arg)
{
	struct lids_opts *o = ctx;
	unsigned long long v;
	int x;

	switch (c) {
	case O_TOPO: o->topology = arg; return CLI_OK;
	case O_PATHS: o->paths = arg; return CLI_OK;
	case 'd': o->out_dir = arg; return CLI_OK;
	case O_ROOT: o->root = arg; return CLI_OK;
	case O_ORDER: o->la.input_order = 1; return CLI_OK;
	case O_SORT: o->la.input_order = 0; return CLI_OK;
	case OPT_JSON: o->json = 1; return CLI_OK;
	case 'h': o->help = 1; return CLI_OK;
	case O_HEUR:
		if ((x = la_heur_parse(arg)) < 0)
			return cli_usage_err("lids", "--heuristic '%s': expected %s", arg, LA_HEUR_VALUES);
		o->la.heur = (enum la_heur)x;
		return CLI_OK;
	case O_DEGREE:
		if (strcmp(arg, "round") && strcmp(arg, "candidates"))
			return cli_usage_err("lids", "--degree '%s': expected round or candidates", arg);
		o->la.dynamic = !strcmp(arg, "candidates");
		return CLI_OK;
	case O_EXACT:
		if (cli_parse_uint(arg, 3600000, &v) || !v)
			return cli_usage_err("lids", "--exact '%s': expected milliseconds, 1 to 3600000", arg);
		o->exact_ms = (double)v;
		return CLI_OK;
	case OPT_SEED:
		if (cli_parse_uint(arg, 2147483647, &v))
			return cli_usage_err("lids", "--seed '%s': expected 0 to 2147483647", arg);
		o->seed = v;
		return CLI_OK;
	case OPT_FROM:
		if ((x = fmt_topo_from_name(arg)) < 0)
			return cli_usage_err("lids", "--from '%s': expected auto, ibnetdiscover, ibsim or opensm-subnet", arg);
		o->from = (enum fmt_topo)x;
		return CLI_OK;
	default:
		if (cli_input_option(&o->in, c, arg))
			return CLI_OK;
		return cli_usage_err("lids", "bad value '%s'", arg ? arg : "");
	}
}

static int parse_args(int argc, char **argv, struct lids_opts *o)
{
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, O_TOPO },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "paths", required_argument, NULL, O_PATHS },
		{ "heuristic", required_argument, NULL, O_HEUR },
		{ "degree", required_argument, NULL, O_DEGREE },
		{ "input-order", no_argument, NULL, O_ORDER },
		{ "sort-by-source", no_argument, NULL, O_SORT },
		{ "exact", required_argument, NULL, O_EXACT },
		{ "out-dir", required_argument, NULL, 'd' },
		{ "root", required_argument, NULL, O_ROOT },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "json", no_argument, NULL, OPT_JSON },
		CLI_INPUT_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt("lids", argc, argv, ":d:h", longopts, parse_one, o);

	if (rc || o->help)
		return rc;
	if (optind < argc)
		return cli_usage_err("lids", "unexpected argument '%s'", argv[optind]);
	if (!o->topology || !o->paths)
		return cli_usage_err("lids", "--topology and --paths are required");
	return CLI_OK;
}

/*
 * struct lids_run - one run
 * @count: paths per destination endpoint
 * @opt, @proven: with --exact, per destination
 */
struct lids_run {
	const struct lids_opts *o;
	struct fabric *f;
	struct fmt_paths ps;
	struct la_assign a;
	struct la_stats st;
	uint32_t *count, *opt;
	uint8_t *proven;
	uint64_t opt_total, opt_proven;
};

static int load(struct lids_run *x)
{
	struct fab_err err = { { 0 } };
	char *buf;
	size_t len;
	int rc;

	x->f = cli_load(x->o->topology, x->o->from, &x->o->in);
	if (!x->f)
		return CLI_INPUT;
	if (fmt_read_file_max(x->o->paths, FMT_DUMP_SIZE_MAX, &buf, &len, &err)) {
		cli_err("%s", err.msg);
		return CLI_INPUT;
	}
	rc = fmt_paths_parse(buf, len, x->o->paths, x->f, FMT_PATHS_DLID_ANY, &x->ps, &err);
	free(buf);
	if (rc || la_assign(x->f, &x->ps, &x->o->la, &x->a, &err)) {
		cli_err("%s", err.msg);
		return CLI_INPUT;
	}
	x->count = calloc((size_t)x->f->neps + 1, sizeof(*x->count));
	if (!x->count)
		return CLI_FAIL;
	for (size_t i = 0; i < x->ps.n; i++)
		x->count[x->ps.dst[i]]++;
	return CLI_OK;
}

static int exact(struct lids_run *x)
{
	struct fab_err err = { { 0 } };

	x->opt = calloc((size_t)x->f->neps + 1, sizeof(*x->opt));
	x->proven = calloc((size_t)x->f->neps + 1, 1);
	if (!x->opt || !x->proven ||
	    la_optimum(x->f, &x->ps, &x->o->la, x->o->exact_ms, x->opt, x->proven, &err)) {
		cli_err("%s", err.msg[0] ? err.msg : "out of memory");
		return CLI_FAIL;
	}
	for (uint32_t e = 0; e < x->f->neps; e++)
		if (x->a.k[e]) {
			x->opt_total += x->opt[e];
			x->opt_proven += x->proven[e];
		}
	return CLI_OK;
}

/* --- writing the tables ------------------------------------------------------------ */

static FILE *open_out(const char *dir, const char *name, char *path, size_t size)
{
	FILE *fp;

	snprintf(path, size, "%s/%s", dir, name);
	if (!(fp = fopen(path, "w")))
		cli_err("%s: cannot create: %s", path, strerror(errno));
	return fp;
}

static int close_out(FILE *fp, const char *path, int rc)
{
	if (fclose(fp) || rc) {
		cli_err("%s: write error: %s", path, strerror(errno ? errno : EIO));
		return CLI_FAIL;
	}
	return CLI_OK;
}

static int write_all(const struct lids_run *x, const struct rt_routing *r)
{
	const char *dir = x->o->out_dir;
	char path[4096];
	FILE *fp;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		cli_err("%s: cannot create the directory: %s", dir, strerror(errno));
		return CLI_FAIL;
	}
	if (!(fp = open_out(dir, "opensm-lfts.dump", path, sizeof(path))) ||
	    close_out(fp, path, fmt_lfts_write(fp, x->f, r)) ||
	    !(fp = open_out(dir, "guid2lid", path, sizeof(path))) ||
	    close_out(fp, path, fmt_guid2lid_write(fp, x->f)) ||
	    !(fp = open_out(dir, "topology.ibnd", path, sizeof(path))) ||
	    close_out(fp, path, fmt_topo_write(fp, x->f, FMT_IBND)) ||
	    !(fp = open_out(dir, "paths", path, sizeof(path))) ||
	    close_out(fp, path, fmt_paths_write(fp, x->f, &x->ps)))
		return CLI_FAIL;
	if (fab_lmc_max(x->f) && (!(fp = open_out(dir, FMT_DLIDS_FILE, path, sizeof(path))) ||
				  close_out(fp, path, fmt_dlids_write(fp, x->f, r))))
		return CLI_FAIL;
	return CLI_OK;
}

/* LID plan, tables, files. */
static int realise(struct lids_run *x)
{
	static const struct eng_opt schema[] = {
		{ .name = "root", .type = ENG_OPT_LIST, .defval = "" }, { .name = NULL },
	};
	struct eng_args args = { .schema = schema, .val = { (char *)(x->o->root ? x->o->root : "") } };
	struct fab_err err = { { 0 } };
	struct fab_lid_pin *pins = NULL;
	struct rt_routing *r = NULL;
	struct la_updn u = { 0 };
	struct la_root root;
	size_t n;
	int rc = CLI_INPUT;

	if (la_updn_root(x->f, &args, x->o->seed, 16, NULL, &root, &err) ||
	    la_updn_build(x->f, root.sw, &u, &err))
		goto out;
	rc = CLI_FAIL;
	if (la_plan(x->f, x->a.lmc, &pins, &n, &err) ||
	    fab_lids_assign(x->f, pins, n, FAB_LIDS_RENEW, 0, &err) || !(r = rt_new(x->f)) ||
	    la_realise(x->f, &x->ps, &x->a, &u, r, &x->st, &err))
		goto out;
	for (size_t i = 0; i < x->ps.n; i++)
		x->ps.dlid[i] = (uint16_t)(fab_ep_lid(x->f, x->ps.dst[i]) + x->a.offset[i]);
	rc = write_all(x, r);
	if (rc == CLI_OK && !x->o->json)
		printf("written:      %s/{opensm-lfts.dump,guid2lid,topology.ibnd,paths%s}: root '%s', "
		       "completion added %llu entries, %llu unrouted\n", x->o->out_dir,
		       fab_lmc_max(x->f) ? "," FMT_DLIDS_FILE : "",
		       FAB_LABEL(x->f, x->f->switches[root.sw]), (unsigned long long)x->st.filled,
		       (unsigned long long)x->st.unrouted);
	err.msg[0] = '\0';
out:
	if (err.msg[0])
		cli_err("%s", err.msg);
	free(pins);
	rt_free(r);
	la_updn_free(&u);
	return rc;
}

/* --- output ------------------------------------------------------------------------ */

static uint64_t port_guid(const struct fabric *f, uint32_t e)
{
	return fab_port(f, f->eps[e].node, f->eps[e].port)->guid;
}

static void print_text(const struct lids_run *x)
{
	const struct fabric *f = x->f;
	const struct la_assign *a = &x->a;

	printf("heuristic:    %s\n", la_heur_name(x->o->la.heur));
	printf("%-18s  %-24s %6s %15s %5s%s\n", "port", "node", "paths", "configurations", "lids",
	       x->opt ? "  optimum" : "");
	for (uint32_t e = 0; e < f->neps; e++) {
		if (!a->k[e])
			continue;
		printf("0x%016" PRIx64 "  %-24s %6u %15u %5u", port_guid(f, e),
		       FAB_LABEL(f, f->eps[e].node), x->count[e], a->k[e], 1u << a->lmc[e]);
		if (x->opt)
			printf("  %7u%s", x->opt[e], x->proven[e] ? "" : "+");
		putchar('\n');
	}
	printf("total:        %llu paths (%llu identical merged) to %u ports: %llu configurations, "
	       "%llu LIDs with per-port LMC (largest %u)\n", (unsigned long long)a->paths,
	       (unsigned long long)a->dups, a->dests, (unsigned long long)a->configs,
	       (unsigned long long)a->lids, a->lmc_max);
	printf("global LMC:   %llu LIDs for the %u CA ports under one LMC %u (OpenSM), plus %u for "
	       "switches\n", (unsigned long long)a->lids_global, a->cas, a->lmc_max, f->nswitches);
	printf("base LID:     %llu of %llu pairs (what an SA PathRecord Get returns)\n",
	       (unsigned long long)a->sa_pairs, (unsigned long long)a->pairs);
	if (x->opt)
		printf("exact:        %llu configurations at best (%+.1f%% for %s), %llu of %u "
		       "destinations proven optimal ('+': not proven)\n",
		       (unsigned long long)x->opt_total,
		       x->opt_total ? 100.0 * ((double)a->configs / (double)x->opt_total - 1) : 0.0,
		       la_heur_name(x->o->la.heur), (unsigned long long)x->opt_proven, a->dests);
}

static int print_json(const struct lids_run *x)
{
	const struct fabric *f = x->f;
	const struct la_assign *a = &x->a;
	json_t *dests = json_array(), *root;
	char g[24];
	int rc;

	for (uint32_t e = 0; e < f->neps; e++) {
		json_t *d;

		if (!a->k[e])
			continue;
		snprintf(g, sizeof(g), "0x%016" PRIx64, port_guid(f, e));
		d = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i}", "port", g, "node",
			      fab_desc(f, f->eps[e].node), "paths", (json_int_t)x->count[e],
			      "configurations", (json_int_t)a->k[e], "lids", (json_int_t)(1u << a->lmc[e]),
			      "lmc", (json_int_t)a->lmc[e], "lower_bound", (json_int_t)a->lb[e]);
		if (d && x->opt) {
			json_object_set_new(d, "optimum", json_integer(x->opt[e]));
			json_object_set_new(d, "proven", json_boolean(x->proven[e]));
		}
		json_array_append_new(dests, d);
	}
	root = json_pack("{s:s, s:s, s:o, s:{s:I, s:I, s:i, s:I, s:I, s:i, s:I, s:i, s:I, s:I}}",
			 "schema", "fabroute-lids/1", "heuristic", la_heur_name(x->o->la.heur),
			 "destinations", dests, "totals", "paths", (json_int_t)a->paths,
			 "identical_merged", (json_int_t)a->dups, "ports", (json_int_t)a->dests,
			 "configurations", (json_int_t)a->configs, "lids", (json_int_t)a->lids,
			 "lmc_max", (json_int_t)a->lmc_max, "lids_global_lmc", (json_int_t)a->lids_global,
			 "switch_lids", (json_int_t)f->nswitches, "pairs", (json_int_t)a->pairs,
			 "pairs_on_base_lid", (json_int_t)a->sa_pairs);
	if (root && x->opt) {
		json_t *t = json_object_get(root, "totals");

		json_object_set_new(t, "optimum", json_integer((json_int_t)x->opt_total));
		json_object_set_new(t, "proven", json_integer((json_int_t)x->opt_proven));
	}
	if (root && x->o->out_dir)
		json_object_set_new(root, "completion",
				    json_pack("{s:I, s:I}", "filled", (json_int_t)x->st.filled,
					      "unrouted", (json_int_t)x->st.unrouted));
	rc = root && !json_dumpf(root, stdout, CLI_JSON_FLAGS) ? CLI_OK : CLI_FAIL;
	putchar('\n');
	json_decref(root);
	return rc;
}

int cmd_lids(int argc, char **argv)
{
	struct lids_opts o = { .from = FMT_AUTO, .la = { .heur = LA_COLOR_L, .input_order = 1 } };
	struct lids_run x = { .o = &o };
	int rc = parse_args(argc, argv, &o);

	if (rc || o.help) {
		if (o.help)
			usage(stdout);
		return rc;
	}
	rc = load(&x);
	if (rc == CLI_OK && o.exact_ms > 0)
		rc = exact(&x);
	if (rc == CLI_OK && !o.json)
		print_text(&x);
	if (rc == CLI_OK && o.out_dir)
		rc = realise(&x);
	if (rc == CLI_OK && o.json)
		rc = print_json(&x);
	la_assign_free(&x.a);
	fmt_paths_free(&x.ps);
	free(x.count);
	free(x.opt);
	free(x.proven);
	fab_free(x.f);
	return rc;
}
