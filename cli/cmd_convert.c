/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute convert
 *
 * Reads a topology in one format and writes it in another, assigning LIDs
 * to ports that have none (or anew, on request).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

static void usage(FILE *out)
{
	fputs("Usage: fabroute convert [OPTIONS] IN\n"
	      "\n"
	      "Convert a topology between ibnetdiscover output and ibsim's net format\n"
	      "(IN '-' reads standard input). Ports without a LID get one by the default\n"
	      "assignment, so the output always carries LIDs. Link widths and speeds\n"
	      "go to ibsim as w=, s= and e= (NDR needs ibsim 0.12); FDR10 and XDR, which\n"
	      "ibsim cannot simulate, go as QDR and NDR with a warning.\n"
	      "\n"
	      "Options:\n"
	      "      --from FMT        input format: auto (default), ibnetdiscover, ibsim,\n"
	      "                        opensm-subnet (opensm-subnet.lst)\n"
	      "  -t, --to FMT          output format: ibnetdiscover (default) or ibsim\n"
	      "  -o, --output FILE     write to FILE instead of standard output\n"
	      CLI_LIDS_HELP
	      CLI_INPUT_HELP
	      "  -h, --help            show this help\n"
	      "\n"
	      "Example: fabroute convert --to ibsim -o fabric.net ibnetdiscover.out\n",
	      out);
}

struct convert_opts {
	enum fmt_topo from, to;
	const char *output;
	struct cli_lids lids;
	struct cli_input in;
	int help;
};

static int set_fmt(const char *opt, const char *arg, int allow_auto, enum fmt_topo *out)
{
	int fmt = fmt_topo_from_name(arg);

	if (fmt < 0 || (!allow_auto && fmt != FMT_IBND && fmt != FMT_IBSIM))
		return cli_usage_err("convert", "%s '%s': expected %sibnetdiscover or ibsim%s", opt, arg,
				     allow_auto ? "auto, " : "", allow_auto ? ", opensm-subnet" : "");
	*out = (enum fmt_topo)fmt;
	return CLI_OK;
}

static int parse_args(int argc, char **argv, struct convert_opts *o)
{
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "guid2lid", required_argument, NULL, OPT_GUID2LID },
		{ "lmc", required_argument, NULL, OPT_LMC },
		{ "renew-lids", no_argument, NULL, OPT_RENEW_LIDS },
		CLI_INPUT_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc = CLI_OK;

	opterr = 0;
	optind = 1;
	while (rc == CLI_OK && (c = getopt_long(argc, argv, ":t:o:h", longopts, NULL)) != -1) {
		if (c == 'h')
			o->help = 1;
		else if (c == 'o')
			o->output = optarg;
		else if (c == 't')
			rc = set_fmt("--to", optarg, 0, &o->to);
		else if (c == OPT_FROM)
			rc = set_fmt("--from", optarg, 1, &o->from);
		else if (c == ':')
			rc = cli_usage_err("convert", "option '%s' needs a value", argv[optind - 1]);
		else if (c == '?' || (!cli_input_option(&o->in, c, optarg) &&
				      cli_lids_option(&o->lids, c, optarg) <= 0))
			rc = cli_usage_err("convert", "bad option '%s'", argv[optind - 1]);
	}
	if (rc == CLI_OK && !o->help && optind != argc - 1)
		rc = cli_usage_err("convert", "expected one input file");
	return rc;
}

/* Speeds ibsim's format cannot say, and what they become. */
static void warn_inexact(const struct fabric *f)
{
	unsigned fdr10, xdr;

	if (!fmt_ibsim_inexact(f, &fdr10, &xdr))
		return;
	if (fdr10)
		cli_err("warning: %u link%s at FDR10 written as QDR (s=4): ibsim has no FDR10",
			fdr10, fdr10 == 1 ? "" : "s");
	if (xdr)
		cli_err("warning: %u link%s at XDR written as NDR (e=8): ibsim has no XDR", xdr,
			xdr == 1 ? "" : "s");
}

int cmd_convert(int argc, char **argv)
{
	struct convert_opts o = { .from = FMT_AUTO, .to = FMT_IBND, .lids = { .lmc = -1 } };
	struct fabric *f;
	int rc = parse_args(argc, argv, &o);

	if (rc || o.help) {
		if (o.help)
			usage(stdout);
		return rc;
	}
	f = cli_load(argv[optind], o.from, &o.in);
	if (!f)
		return CLI_INPUT;
	rc = cli_lids_apply(f, &o.lids);
	if (rc == CLI_OK && o.to == FMT_IBSIM)
		warn_inexact(f);
	if (rc == CLI_OK)
		rc = cli_write(o.output, f, o.to);
	fab_free(f);
	return rc;
}
