/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute gen
 *
 * Generates a topology of one of the families of gen/gen.h, optionally
 * removes links and switches, and writes it in ibnetdiscover or ibsim format.
 * On a terminal, a run over a second shows its step on standard error
 * (cli/progress.h).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/progress.h"
#include "gen/gen.h"

static void usage(FILE *out)
{
	fputs("Usage: fabroute gen FAMILY [NAME=VALUE...] [OPTIONS]\n"
	      "       fabroute gen --list [--json]\n"
	      "       fabroute gen FAMILY --help\n"
	      "\n"
	      "Generate a topology. Same family, parameters and seed give the same bytes.\n"
	      "\n"
	      "Options:\n"
	      "  -f, --format FMT        ibnetdiscover (default) or ibsim\n"
	      "  -o, --output FILE       write to FILE instead of standard output\n"
	      "      --seed N            seed for random families and random faults (default 1)\n"
	      "      --remove-link NODE:PORT\n"
	      "                          remove the link at NODE's PORT (NODE: description or\n"
	      "                          0x node GUID); repeatable\n"
	      "      --remove-switch NODE  remove a switch (and CAs left without links); repeatable\n"
	      "      --link-faults N     remove N random switch-to-switch links, never one that\n"
	      "                          would disconnect the switches\n"
	      "      --switch-faults N   remove N random switches, likewise\n"
	      "      --guid2lid FILE     pin LIDs from an OpenSM guid2lid file\n"
	      "      --list              list the families and their parameters\n"
	      "      --json              with --list: as a JSON array of {name, summary, params}\n"
	      "  -h, --help              show this help (with FAMILY: its parameters)\n"
	      "\n"
	      "Example: fabroute gen kary-ntree k=4 n=3 --link-faults 2 --seed 7 -o t.ibnd\n",
	      out);
}

static void family_help(FILE *out, const struct gen_family *fam)
{
	fprintf(out, "%-14s %s\n", fam->name, fam->summary);
	for (const struct gen_param *p = fam->params; p && p->name; p++)
		fprintf(out, "    %-10s %s (default %s)\n", p->name, p->help, p->defval);
}

/* The families as JSON: [{name, summary, params: [{name, help, default}]}]. */
static int list_json(void)
{
	size_t n;
	const struct gen_family *fams = gen_families(&n);
	json_t *arr = json_array();
	int rc;

	for (size_t i = 0; i < n; i++) {
		json_t *params = json_array();

		for (const struct gen_param *p = fams[i].params; p && p->name; p++)
			json_array_append_new(params, json_pack("{s:s, s:s, s:s}", "name", p->name,
								"help", p->help, "default", p->defval));
		json_array_append_new(arr, json_pack("{s:s, s:s, s:o}", "name", fams[i].name,
						     "summary", fams[i].summary, "params", params));
	}
	rc = json_dumpf(arr, stdout, CLI_JSON_FLAGS) || putchar('\n') == EOF ? CLI_FAIL : CLI_OK;
	json_decref(arr);
	return rc;
}

static void list_families(FILE *out)
{
	size_t n;
	const struct gen_family *fams = gen_families(&n);

	fputs("Families (parameters as NAME=VALUE):\n\n", out);
	for (size_t i = 0; i < n; i++) {
		family_help(out, &fams[i]);
		fputc('\n', out);
	}
}

struct gen_opts {
	enum fmt_topo fmt;
	const char *output;
	uint64_t seed;
	const char **links, **switches;
	size_t nlinks, nswitches;
	unsigned link_faults, switch_faults;
	struct cli_lids lids;
	int help, list, json;
};

static int push(const char ***arr, size_t *n, const char *s)
{
	const char **a = realloc(*arr, (*n + 1) * sizeof(**arr));

	if (!a)
		return -1;
	a[(*n)++] = s;
	*arr = a;
	return 0;
}

static int count_opt(const char *arg, unsigned *out)
{
	unsigned long long v;

	if (cli_parse_uint(arg, 100000, &v))
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int parse_opt(void *ctx, int c, const char *arg)
{
	struct gen_opts *o = ctx;
	unsigned long long v;
	int fmt;

	switch (c) {
	case 'f':
		fmt = fmt_topo_from_name(arg);
		if (fmt != FMT_IBND && fmt != FMT_IBSIM)
			return cli_usage_err("gen", "--format '%s': expected ibnetdiscover or ibsim", arg);
		o->fmt = (enum fmt_topo)fmt;
		return 0;
	case 'o':
		o->output = arg;
		return 0;
	case OPT_SEED:
		if (cli_parse_uint(arg, UINT64_MAX, &v))
			return cli_usage_err("gen", "--seed '%s': expected an unsigned integer", arg);
		o->seed = v;
		return 0;
	case OPT_REMOVE_LINK:
		return push(&o->links, &o->nlinks, arg) ? CLI_FAIL : 0;
	case OPT_REMOVE_SWITCH:
		return push(&o->switches, &o->nswitches, arg) ? CLI_FAIL : 0;
	case OPT_LINK_FAULTS:
		return count_opt(arg, &o->link_faults) ?
		       cli_usage_err("gen", "--link-faults '%s': expected a count", arg) : 0;
	case OPT_SWITCH_FAULTS:
		return count_opt(arg, &o->switch_faults) ?
		       cli_usage_err("gen", "--switch-faults '%s': expected a count", arg) : 0;
	case OPT_GUID2LID:
		cli_lids_option(&o->lids, c, arg);
		return 0;
	case OPT_LIST:
		o->list = 1;
		return 0;
	case OPT_JSON:
		o->json = 1;
		return 0;
	case 'h':
		o->help = 1;
		return 0;
	default:
		return cli_usage_err("gen", "unknown option");
	}
}

static int parse_args(int argc, char **argv, struct gen_opts *o)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "remove-link", required_argument, NULL, OPT_REMOVE_LINK },
		{ "remove-switch", required_argument, NULL, OPT_REMOVE_SWITCH },
		{ "link-faults", required_argument, NULL, OPT_LINK_FAULTS },
		{ "switch-faults", required_argument, NULL, OPT_SWITCH_FAULTS },
		{ "guid2lid", required_argument, NULL, OPT_GUID2LID },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	return cli_getopt("gen", argc, argv, ":f:o:h", longopts, parse_opt, o);
}

static int generate(const struct gen_opts *o, const char *family, char **kv, int nkv)
{
	struct fab_err err = { { 0 } };
	struct gen_faults faults = {
		.links = o->links, .nlinks = o->nlinks,
		.switches = o->switches, .nswitches = o->nswitches,
		.random_links = o->link_faults, .random_switches = o->switch_faults,
		.seed = o->seed,
	};
	struct cli_progress *prog = cli_progress_start("gen");
	struct fabric *f;
	int rc;

	cli_progress_step(prog, "generating", NULL);
	f = gen_build(family, (const char *const *)kv, (size_t)nkv, o->seed, &err);
	if (f && (o->nlinks || o->nswitches || o->link_faults || o->switch_faults)) {
		cli_progress_step(prog, "applying faults", NULL);
		if (gen_faults_apply(&f, &faults, &err)) {
			fab_free(f);
			f = NULL;
		}
	}
	if (!f) {
		cli_progress_end(prog);
		return cli_usage_err("gen", "%s", err.msg);
	}
	rc = o->lids.guid2lid ? cli_lids_apply(f, &o->lids) : CLI_OK;
	if (o->output && strcmp(o->output, "-"))
		cli_progress_step(prog, "writing", NULL);
	else
		cli_progress_end(prog), prog = NULL;	/* the output goes to the terminal too */
	if (rc == CLI_OK)
		rc = cli_write(o->output, f, o->fmt);
	cli_progress_end(prog);
	fab_free(f);
	return rc;
}

int cmd_gen(int argc, char **argv)
{
	struct gen_opts o = { .fmt = FMT_IBND, .seed = 1, .lids = { .lmc = -1 } };
	const struct gen_family *fam = NULL;
	int rc = parse_args(argc, argv, &o);

	if (rc)
		goto out;
	if (optind < argc)
		fam = gen_family_find(argv[optind]);
	if (o.json && !o.list) {
		rc = cli_usage_err("gen", "--json goes with --list");
		goto out;
	}
	if (o.list && o.json) {
		rc = list_json();
		goto out;
	}
	if (o.list || (o.help && !fam)) {
		o.list ? list_families(stdout) : usage(stdout);
		goto out;
	}
	if (o.help) {
		family_help(stdout, fam);
		goto out;
	}
	if (optind >= argc) {
		rc = cli_usage_err("gen", "which family? ('fabroute gen --list' lists them)");
		goto out;
	}
	if (!fam) {
		rc = cli_usage_err("gen", "no family '%s' ('fabroute gen --list' lists them)",
				   argv[optind]);
		goto out;
	}
	rc = generate(&o, argv[optind], argv + optind + 1, argc - optind - 1);
out:
	free(o.links);
	free(o.switches);
	return rc;
}
