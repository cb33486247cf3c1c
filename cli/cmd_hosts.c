/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute hosts, fabroute topology
 *
 * What the routing gives the hosts and the schedulers. hosts: for each host
 * the DLIDs its routing plans (the path bits UCX takes, and the
 * destinations reached otherwise), as a table, a UCX configuration, a shell
 * fragment or JSON (formats/fmt_hosts.c). topology: Slurm's topology.conf,
 * switches by level with their hosts or one block per dragonfly group
 * (formats/fmt_slurm.c). Both work on files (a compute output directory, or
 * a topology and a DLID plan) or ask a running fabrouted (GET /api/hosts,
 * GET /api/topology?format=), which names hosts by its node_name_map.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"

enum { OPT_DIR = 0x300, OPT_TOPO, OPT_PLAN, OPT_FORMAT, OPT_URL, OPT_GROUPS };

struct hosts_opts {
	const char *cmd, *dir, *topology, *plan, *format, *url, *groups, *out;
	const char *host;
	enum fmt_topo from;
	struct cli_input in;
	int help;
};

static int parse_one(void *ctx, int c, const char *arg)
{
	struct hosts_opts *o = ctx;
	int fmt;

	switch (c) {
	case OPT_DIR: o->dir = arg; break;
	case OPT_TOPO: o->topology = arg; break;
	case OPT_PLAN: o->plan = arg; break;
	case OPT_FORMAT: o->format = arg; break;
	case OPT_URL: o->url = arg; break;
	case OPT_GROUPS: o->groups = arg; break;
	case 'o': o->out = arg; break;
	case 'h': o->help = 1; break;
	case OPT_FROM:
		fmt = fmt_topo_from_name(arg);
		if (fmt < 0)
			return cli_usage_err(o->cmd, "--from '%s': expected auto, ibnetdiscover or ibsim", arg);
		o->from = (enum fmt_topo)fmt;
		break;
	default:
		if (cli_input_option(&o->in, c, arg))
			break;
		return cli_usage_err(o->cmd, "unknown option");
	}
	return CLI_OK;
}

static int parse_args(int argc, char **argv, struct hosts_opts *o, int max_args)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, OPT_DIR },
		{ "topology", required_argument, NULL, OPT_TOPO },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "dlid-plan", required_argument, NULL, OPT_PLAN },
		CLI_INPUT_LONGOPTS,
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "groups", required_argument, NULL, OPT_GROUPS },
		{ "url", required_argument, NULL, OPT_URL },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rc = cli_getopt(o->cmd, argc, argv, ":o:h", longopts, parse_one, o);

	if (rc || o->help)
		return rc;
	if (argc - optind > max_args)
		return cli_usage_err(o->cmd, "unexpected argument '%s'", argv[optind + max_args]);
	if (optind < argc)
		o->host = argv[optind];
	if (o->dir && o->topology)
		return cli_usage_err(o->cmd, "give the fabric with one of --dir and --topology");
	if ((o->dir || o->topology) && o->url)
		return cli_usage_err(o->cmd, "--url asks a daemon; --dir and --topology read files");
	if (!o->dir && !o->topology && (o->in.name_map || o->in.strict || o->plan || o->groups))
		return cli_usage_err(o->cmd, "--node-name-map, --strict, --dlid-plan and --groups go "
				     "with --dir or --topology (the daemon uses its own node_name_map)");
	if (o->dir && o->plan)
		return cli_usage_err(o->cmd, "--dlid-plan goes with --topology (--dir reads DIR/dlid-plan)");
	return CLI_OK;
}

/* Read @path (up to @max bytes) whole into *@buf; CLI_OK or CLI_INPUT after a message. */
static int slurp(const char *path, size_t max, char **buf, size_t *len)
{
	struct fab_err err = { { 0 } };

	if (!fmt_read_file_max(path, max, buf, len, &err))
		return CLI_OK;
	cli_err("%s", err.msg);
	return CLI_INPUT;
}

/* The offline inputs: the fabric (named by --node-name-map), the routing holding the DLID plan. */
struct offline {
	struct fabric *f;
	struct rt_routing *r;
	struct fmt_hosts hs;
};

static void offline_free(struct offline *x)
{
	fmt_hosts_free(&x->hs);
	rt_free(x->r);
	fab_free(x->f);
}

/* The plan: --dlid-plan, or DIR/dlid-plan when there is one. */
static int load_plan(const struct hosts_opts *o, struct offline *x)
{
	struct fab_err err = { { 0 } };
	char path[4096], *buf;
	const char *p = o->plan;
	size_t len;
	int rc;

	if (o->dir) {
		snprintf(path, sizeof(path), "%s/%s", o->dir, FMT_DLIDS_FILE);
		p = access(path, F_OK) == 0 ? path : NULL;
	}
	if (!p) {
		if (fab_lmc_max(x->f))
			fprintf(stderr, "fabroute %s: warning: ports own several LIDs and no DLID plan is "
				"given: every host is shown at base LIDs\n", o->cmd);
		return CLI_OK;
	}
	if ((rc = slurp(p, FMT_DUMP_SIZE_MAX, &buf, &len)))
		return rc;
	rc = fmt_dlids_parse(buf, len, p, x->f, x->r, &err) ? CLI_INPUT : CLI_OK;
	free(buf);
	if (rc)
		cli_err("%s", err.msg);
	return rc;
}

static int load_offline(const struct hosts_opts *o, struct offline *x, int plan)
{
	struct fab_err err = { { 0 } };
	char path[4096];
	int rc;

	memset(x, 0, sizeof(*x));
	snprintf(path, sizeof(path), "%s/topology.ibnd", o->dir ? o->dir : "");
	if (!(x->f = cli_load(o->dir ? path : o->topology, o->dir ? FMT_AUTO : o->from, &o->in)))
		return CLI_INPUT;
	if (!(x->r = rt_new(x->f))) {
		cli_err("out of memory");
		return CLI_FAIL;
	}
	if (plan && (rc = load_plan(o, x)))
		return rc;
	if (fmt_hosts_build(x->f, &x->hs, &err)) {
		cli_err("%s", err.msg);
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* Where the answer goes: -o FILE or standard output; NULL after a message. */
static FILE *open_output(const struct hosts_opts *o)
{
	FILE *fp = o->out && strcmp(o->out, "-") ? fopen(o->out, "w") : stdout;

	if (!fp)
		cli_err("%s: cannot create: %s", o->out, strerror(errno));
	return fp;
}

static int close_output(const struct hosts_opts *o, FILE *fp, int rc)
{
	int bad = fflush(fp) || ferror(fp);

	if (fp != stdout)
		bad |= fclose(fp) != 0;
	if (bad && rc == CLI_OK) {
		cli_err("%s: write error: %s", fp == stdout ? "<stdout>" : o->out, strerror(errno));
		return CLI_FAIL;
	}
	return rc;
}

/* Ask the daemon for @path (text) and write the answer. */
static int from_daemon(const struct hosts_opts *o, const char *base, const char *host_seg)
{
	struct client_cmd cmd = { .name = o->cmd };
	struct client c = { .cmd = &cmd };
	struct client_resp r = { 0 };
	char *path = NULL, *seg = NULL;
	int rc = client_connect(&c, o->url);
	FILE *fp;

	if (rc == CLI_OK && host_seg && !(seg = curl_easy_escape(c.curl, host_seg, 0)))
		rc = CLI_FAIL;
	if (rc == CLI_OK) {
		char full[1024];

		snprintf(full, sizeof(full), "%s%s%s", base, seg ? "/" : "", seg ? seg : "");
		path = client_path(&c, full, "format", o->format, NULL);
		rc = path ? client_get_text(&c, path, &r) : CLI_FAIL;
	}
	if (rc == CLI_OK && (fp = open_output(o))) {
		if (r.body)
			fwrite(r.body, 1, r.len, fp);
		rc = close_output(o, fp, rc);
	} else if (rc == CLI_OK) {
		rc = CLI_FAIL;
	}
	curl_free(seg);
	free(path);
	client_resp_free(&r);
	return client_done(&c, rc);
}

/* --- fabroute hosts ----------------------------------------------------------- */

static void hosts_usage(void)
{
	fputs("Usage: fabroute hosts [HOST] [--format text|ucx|env|json]\n"
	      "                      [--dir DIR | --topology FILE [--dlid-plan FILE] | --url URL]\n"
	      "\n"
	      "The DLIDs the routing plans for each host (or HOST alone): per port the path\n"
	      "bits, with which UCX's rule (every CA destination at its base LID | the bits)\n"
	      "gives the most CAs their planned DLID, and the CAs planned at other DLIDs.\n"
	      "A job that does not use them sends to base LIDs, which is another routing\n"
	      "than the one planned (opt on T(9+9, 18): WORST 9 instead of 3). Hosts are\n"
	      "named by the first word of their CA's node description (or --node-name-map\n"
	      "name).\n"
	      "\n"
	      "Formats:\n"
	      "  text   a table: host, port GUID, LID, LMC, path bits, other DLIDs (default)\n"
	      "  ucx    UCX configuration lines (ucx.conf): UCX_IB_LID_PATH_BITS=N per host\n"
	      "  env    a sh fragment to source on every host of a job: it exports\n"
	      "         UCX_IB_LID_PATH_BITS for the host it runs on (hostname -s)\n"
	      "  json   everything, with the DLID of every destination reached otherwise\n"
	      "\n"
	      "Options:\n"
	      "      --dir DIR             an output directory of 'fabroute compute' (its\n"
	      "                            topology.ibnd and dlid-plan)\n"
	      "      --topology FILE       a topology with the routing's LIDs, and\n"
	      "      --dlid-plan FILE      its DLID plan (without: base LIDs)\n"
	      "      --from FMT            the topology's format: auto, ibnetdiscover, ibsim\n"
	      CLI_INPUT_HELP
	      "      --url URL             without --dir or --topology: ask the fabrouted at URL\n"
	      "                            (default: $FABROUTE_URL, else " CLIENT_URL_DEFAULT ")\n"
	      "  -o, --output FILE         write there instead of standard output\n"
	      "  -h, --help                show this help\n"
	      "\n"
	      "Exit status: 0 done, 1 failed (or the daemon answered an error: an unknown\n"
	      "HOST), 2 bad command line, 3 bad input file.\n", stdout);
}

int cmd_hosts(int argc, char **argv)
{
	struct hosts_opts o = { .cmd = "hosts", .format = "text", .from = FMT_AUTO };
	struct offline x;
	int rc = parse_args(argc, argv, &o, 1), fmt;
	uint32_t only = FAB_NONE;
	FILE *fp;

	if (rc || o.help) {
		if (o.help)
			hosts_usage();
		return rc;
	}
	if ((fmt = fmt_hosts_format_from_name(o.format)) < 0)
		return cli_usage_err("hosts", "--format '%s': expected text, ucx, env or json", o.format);
	if (!o.dir && !o.topology)
		return from_daemon(&o, "/api/hosts", o.host);
	rc = load_offline(&o, &x, 1);
	if (rc == CLI_OK && o.host && (only = fmt_hosts_find(&x.hs, o.host)) == FAB_NONE) {
		cli_err("no host '%s' (hosts are named by the first word of their node description "
			"or node-name-map name)", o.host);
		rc = CLI_FAIL;
	}
	if (rc == CLI_OK && !(fp = open_output(&o)))
		rc = CLI_FAIL;
	if (rc == CLI_OK)
		rc = close_output(&o, fp, fmt_hosts_write(fp, x.f, x.r, &x.hs, only,
							  (enum fmt_hosts_fmt)fmt) ? CLI_FAIL : CLI_OK);
	offline_free(&x);
	return rc;
}

/* --- fabroute topology ---------------------------------------------------------- */

static void topology_usage(void)
{
	fputs("Usage: fabroute topology --format slurm-tree|slurm-block\n"
	      "                         [--dir DIR | --topology FILE | --url URL] [-o FILE]\n"
	      "\n"
	      "Slurm's topology.conf for the fabric:\n"
	      "  slurm-tree   topology/tree: one SwitchName line per switch, leaves with their\n"
	      "               hosts (Nodes=), the levels above with the switches below them\n"
	      "               (Switches=); trees only\n"
	      "  slurm-block  topology/block (Slurm 23.11 and later): one BlockName line per\n"
	      "               dragonfly group with its hosts, and BlockSizes\n"
	      "Hosts are named by the first word of their CA's node description, switches\n"
	      "by their description (or --node-name-map names).\n"
	      "\n"
	      "Options:\n"
	      "      --dir DIR             an output directory of 'fabroute compute'\n"
	      "      --topology FILE       a topology (ibnetdiscover output or ibsim net file)\n"
	      "      --from FMT            its format: auto, ibnetdiscover, ibsim\n"
	      CLI_INPUT_HELP
	      "      --groups FILE         slurm-block: the dragonfly's groups (\"NODE GROUP\"\n"
	      "                            lines) instead of finding them\n"
	      "      --url URL             without --dir or --topology: ask the fabrouted at URL\n"
	      "  -o, --output FILE         write there instead of standard output\n"
	      "  -h, --help                show this help\n"
	      "\n"
	      "Exit status: 0 done, 1 failed (not a tree for slurm-tree, no dragonfly groups\n"
	      "for slurm-block, or the daemon answered an error), 2 bad command line, 3 bad\n"
	      "input file.\n", stdout);
}

static int write_topology(const struct hosts_opts *o, const struct offline *x, enum fmt_slurm form)
{
	struct fab_err err = { { 0 } };
	char *groups = NULL, *text = NULL;
	size_t glen = 0, len = 0;
	FILE *mem, *fp;
	int rc;

	if (o->groups && (rc = slurp(o->groups, FMT_SIZE_MAX, &groups, &glen)))
		return rc;
	if (!(mem = open_memstream(&text, &len))) {
		free(groups);
		cli_err("out of memory");
		return CLI_FAIL;
	}
	rc = fmt_slurm_write(mem, x->f, &x->hs, form, groups, glen, o->groups, &err);
	rc |= fclose(mem);
	free(groups);
	if (rc) {	/* nothing is written when the fabric has no such form */
		cli_err("%s", err.msg[0] ? err.msg : "out of memory");
		free(text);
		return o->groups && !strncmp(err.msg, o->groups, strlen(o->groups)) ? CLI_INPUT : CLI_FAIL;
	}
	if (!(fp = open_output(o))) {
		free(text);
		return CLI_FAIL;
	}
	fwrite(text, 1, len, fp);
	free(text);
	return close_output(o, fp, CLI_OK);
}

int cmd_topology(int argc, char **argv)
{
	struct hosts_opts o = { .cmd = "topology", .from = FMT_AUTO };
	struct offline x;
	int rc = parse_args(argc, argv, &o, 0), form;

	if (rc || o.help) {
		if (o.help)
			topology_usage();
		return rc;
	}
	if (!o.format)
		return cli_usage_err("topology", "--format is required (slurm-tree or slurm-block)");
	if ((form = fmt_slurm_format_from_name(o.format)) < 0)
		return cli_usage_err("topology", "--format '%s': expected slurm-tree or slurm-block",
				     o.format);
	if (o.groups && form != FMT_SLURM_BLOCK)
		return cli_usage_err("topology", "--groups goes with --format slurm-block");
	if (!o.dir && !o.topology)
		return from_daemon(&o, "/api/topology", NULL);
	rc = load_offline(&o, &x, 0);
	if (rc == CLI_OK)
		rc = write_topology(&o, &x, (enum fmt_slurm)form);
	offline_free(&x);
	return rc;
}
