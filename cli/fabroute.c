/* SPDX-License-Identifier: MIT */
/**
 * DOC: the fabroute command
 *
 * Dispatches to the subcommands and holds what they share: messages, exit
 * codes, loading and writing topologies, LID options. The offline commands
 * work on files; status, route, reach, vl, nodes, links, lft, config,
 * events, snapshots, engine, reroute and fault ask a running fabrouted
 * (cli/client.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/client.h"

static const char usage[] =
	"Usage: fabroute COMMAND [OPTIONS] [ARGS]\n"
	"\n"
	"InfiniBand fabric routing: topologies, routing, evaluation.\n"
	"\n"
	"Commands:\n"
	"  gen FAMILY [NAME=VALUE...]   generate a topology (fat trees, dragonflies, ...)\n"
	"  show FILE                    summarise a topology: counts, levels, groups, LIDs\n"
	"  convert IN [-o OUT]          convert between ibnetdiscover and ibsim formats\n"
	"  eval --topology F --lfts D   evaluate a routing: connectivity, deadlocks, load\n"
	"  compute [-e CHAIN] --topology F -d DIR\n"
	"                               route a topology; write LFTs, LIDs, path SLs\n"
	"  engines                      list the routing engines and their options\n"
	"  lids --topology F --paths P  realise a path set with the fewest LIDs\n"
	"  hosts [HOST] [--format F]    the DLIDs the routing plans for each host (UCX, env)\n"
	"  topology --format slurm-tree|slurm-block\n"
	"                               Slurm's topology.conf: switches and hosts, or groups\n"
	"  whatif (--link N:P | --switch N)...\n"
	"                               what removing links or switches would do (*)\n"
	"  help [COMMAND]               show help for a command\n"
	"\n"
	"Commands that ask a running fabrouted (--url URL, else $FABROUTE_URL):\n"
	"  status                       epoch, fabric, readiness, source, drift, store\n"
	"  route SRC DST                the path of one pair, hop by hop (or as ibtracert)\n"
	"  reach [SRC DST]              switch-to-switch reachability, or one pair\n"
	"  vl                           VL usage and deadlock freedom\n"
	"  nodes [--type T]             the nodes of the routed fabric\n"
	"  links                        the links, with the routes over each direction\n"
	"  lft SWITCH                   one switch's LFT, as ibroute prints it\n"
	"  config                       the daemon's effective configuration\n"
	"  events [--since ID|TIME] [--type T] [--limit N]\n"
	"                               the event history\n"
	"  snapshots [ID | A B]         stored routings: list, one, or a diff\n"
	"  engine [CHAIN [--options K=V,...]]\n"
	"                               the engines, or select a chain (*)\n"
	"  reroute [--wait]             route again (*)\n"
	"  fault [down|up (--link NODE:PORT | --switch NODE)]\n"
	"                               simulated faults: list, or take down/up (*)\n"
	"  (*) POST: needs the API token, --token-file F or $FABROUTE_TOKEN_FILE\n"
	"hosts, topology and whatif ask the daemon too, or work on files (--dir,\n"
	"--topology).\n"
	"\n"
	"Options:\n"
	"  -h, --help     show this help\n"
	"  -V, --version  show the version\n"
	"\n"
	"Run 'fabroute COMMAND --help' for a command's options; see fabroute(1).\n"
	"Exit status: 0 done, 1 failed (for the daemon's commands: it answered an\n"
	"error or could not be reached), 2 bad command line, 3 bad input file\n"
	"(eval: 4 not connected, 5 deadlock possible, 6 both, 7 a --paths path not\n"
	"followed; status: 4 not ready;\n"
	"route: 4 not delivered).\n";

void cli_err(const char *fmt, ...)
{
	va_list ap;

	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);	/* over a progress line (cli/progress.h) */
	fputs("fabroute: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fabroute %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'fabroute %s --help'.\n", cmd);
	return CLI_USAGE;
}

int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *longopts, int (*one)(void *o, int c, const char *arg), void *o)
{
	int c, rc = CLI_OK;

	opterr = 0;
	optind = 1;
	while (rc == CLI_OK && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == '?')
			rc = cli_usage_err(cmd, "unknown option '%s'", argv[optind - 1]);
		else if (c == ':')
			rc = cli_usage_err(cmd, "option '%s' needs a value", argv[optind - 1]);
		else
			rc = one(o, c, optarg);
	}
	return rc;
}

int cli_parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_lids_option(struct cli_lids *l, int opt, const char *arg)
{
	unsigned long long v;

	switch (opt) {
	case OPT_GUID2LID:
		l->guid2lid = arg;
		return 1;
	case OPT_LMC:
		if (cli_parse_uint(arg, FAB_LMC_MAX, &v))
			return -1;
		l->lmc = (int)v;
		return 1;
	case OPT_RENEW_LIDS:
		l->renew = 1;
		return 1;
	default:
		return 0;
	}
}

int cli_lids_pins(const struct cli_lids *l, struct fab_lid_pin **pins, size_t *npins)
{
	struct fab_err err = { { 0 } };
	char *buf;
	size_t len;
	int rc;

	*pins = NULL;
	*npins = 0;
	if (!l->guid2lid)
		return CLI_OK;
	if (fmt_read_file(l->guid2lid, &buf, &len, &err)) {
		cli_err("%s", err.msg);
		return CLI_INPUT;
	}
	rc = fmt_guid2lid_parse(buf, len, l->guid2lid, pins, npins, &err);
	free(buf);
	if (rc) {
		cli_err("%s", err.msg);
		return CLI_INPUT;
	}
	return CLI_OK;
}

int cli_lids_apply(struct fabric *f, const struct cli_lids *l)
{
	struct fab_lid_pin *pins = NULL;
	size_t npins = 0;
	struct fab_err err = { { 0 } };
	int rc = cli_lids_pins(l, &pins, &npins);

	if (rc == CLI_OK && fab_lids_assign(f, pins, npins, l->renew ? FAB_LIDS_RENEW : FAB_LIDS_KEEP,
					    l->lmc < 0 ? 0 : (unsigned)l->lmc, &err)) {
		cli_err("%s", err.msg);
		rc = CLI_INPUT;
	}
	free(pins);
	return rc;
}

int cli_input_option(struct cli_input *in, int opt, const char *arg)
{
	if (opt == OPT_STRICT)
		in->strict = 1;
	else if (opt == OPT_NODE_NAME_MAP)
		in->name_map = arg;
	else
		return 0;
	return 1;
}

void cli_warn(void *arg, const char *msg)
{
	const struct cli_input *in = arg;

	cli_err("%s%s", msg, in && !in->strict ? " (--strict refuses it)" : "");
}

int cli_input_names(struct fabric *f, const struct cli_input *in)
{
	struct fab_err err = { { 0 } };
	struct fmt_names m;
	int rc;

	if (!in || !in->name_map)
		return CLI_OK;
	if (fmt_names_load(in->name_map, &m, &err)) {
		cli_err("--node-name-map %s", err.msg);
		return CLI_INPUT;
	}
	rc = fmt_names_apply(f, &m, &err);
	fmt_names_free(&m);
	if (rc < 0) {
		cli_err("%s", err.msg);
		return CLI_FAIL;
	}
	return CLI_OK;
}

struct fabric *cli_load(const char *path, enum fmt_topo fmt, const struct cli_input *in)
{
	struct fab_err err = { { 0 } };
	struct fmt_opts opts = { .strict = in && in->strict, .warn = cli_warn, .arg = (void *)in };
	struct fabric *f = fmt_topo_load(path, fmt, &opts, &err);

	if (!f) {
		cli_err("%s", err.msg);
		return NULL;
	}
	if (cli_input_names(f, in)) {
		fab_free(f);
		return NULL;
	}
	return f;
}

int cli_write(const char *path, const struct fabric *f, enum fmt_topo fmt)
{
	FILE *out = stdout;
	int rc;

	if (path && strcmp(path, "-")) {
		out = fopen(path, "w");
		if (!out) {
			cli_err("%s: cannot create: %s", path, strerror(errno));
			return CLI_FAIL;
		}
	}
	rc = fmt_topo_write(out, f, fmt);
	if (fflush(out) || ferror(out))
		rc = -1;
	if (out != stdout && fclose(out))
		rc = -1;
	if (rc) {
		cli_err("%s: write error: %s", path && strcmp(path, "-") ? path : "<stdout>",
			strerror(errno));
		return CLI_FAIL;
	}
	return CLI_OK;
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "gen", cmd_gen },
	{ "show", cmd_show },
	{ "convert", cmd_convert },
	{ "eval", cmd_eval },
	{ "compute", cmd_compute },
	{ "engines", cmd_engines },
	{ "lids", cmd_lids },
	{ "hosts", cmd_hosts },
	{ "topology", cmd_topology },
	{ "whatif", cmd_whatif },
	{ "status", cmd_status },
	{ "route", cmd_route },
	{ "reach", cmd_reach },
	{ "vl", cmd_vl },
	{ "events", cmd_events },
	{ "snapshots", cmd_snapshots },
	{ "engine", cmd_engine },
	{ "reroute", cmd_reroute },
	{ "fault", cmd_fault },
	{ "nodes", cmd_nodes },
	{ "links", cmd_links },
	{ "lft", cmd_lft },
	{ "config", cmd_config },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int help(int argc, char **argv)
{
	const struct command *c;
	char *args[] = { NULL, (char *)"--help", NULL };

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return CLI_OK;
	}
	c = find_command(argv[1]);
	if (!c) {
		cli_err("no command '%s'; run 'fabroute --help' for the list", argv[1]);
		return CLI_USAGE;
	}
	if (argc > 2)
		return cli_usage_err("help", "expected at most one COMMAND, found '%s' after '%s'", argv[2],
				     argv[1]);
	args[0] = argv[1];
	return c->run(2, args);
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		fputs(usage, stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("fabroute %s\n", PACKAGE_VERSION);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1);
	c = find_command(argv[1]);
	if (!c) {
		cli_err("no command '%s'; run 'fabroute --help' for the list", argv[1]);
		return CLI_USAGE;
	}
	return c->run(argc - 1, argv + 1);
}
