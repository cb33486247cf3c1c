/* SPDX-License-Identifier: MIT */
/**
 * DOC: the fabroute command
 *
 * One file per offline command (cmd_gen.c, cmd_show.c, cmd_convert.c,
 * cmd_eval.c, cmd_compute.c, cmd_lids.c), the commands that work on files
 * or ask the daemon (cmd_hosts.c: hosts, topology; cmd_whatif.c), the
 * daemon's client (client.c)
 * and its commands by concern: cmd_query.c (route, reach, vl),
 * cmd_fabric.c (status, nodes, links, lft), cmd_history.c (events,
 * snapshots), cmd_control.c (engine, reroute, fault, config). This header
 * declares every command and what they share: exit codes, messages,
 * loading and writing topologies, LID options.
 */
#ifndef FABROUTE_CLI_H
#define FABROUTE_CLI_H

#include "fabric/fabric.h"
#include "formats/formats.h"

/*
 * The JSON the commands print: indented, keys in insertion order, reals with
 * 10 significant digits (0.3, not 0.30000000000000004; 1, not 1.0000000000000002).
 */
#define CLI_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

/* Exit codes, documented in fabroute(1). */
enum cli_exit {
	CLI_OK = 0,	/* done */
	CLI_FAIL = 1,	/* the command could not do its work (write error, out of memory) */
	CLI_USAGE = 2,	/* bad command line */
	CLI_INPUT = 3,	/* an input file could not be read or parsed */
};

void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_usage_err() - message plus "try 'fabroute CMD --help'"; returns CLI_USAGE. */
int cli_usage_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct option;

/*
 * cli_getopt() - parse CMD's options with getopt_long(): @one(@o, option,
 * value) for each; an unknown option or one without its value is a usage
 * error naming it. CLI_OK, CLI_USAGE or what @one returned first; optind
 * is then at the first operand.
 */
int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *longopts, int (*one)(void *o, int c, const char *arg), void *o);

/*
 * struct cli_lids - LID options shared by the commands that write or show
 * a fabric: --guid2lid FILE, --lmc N, --renew-lids.
 */
struct cli_lids {
	const char *guid2lid;
	int lmc;		/* -1: keep what the fabric has */
	int renew;
};

/* cli_lids_option() - handle one of the LID options; 1 when consumed, -1 on a bad value. */
int cli_lids_option(struct cli_lids *l, int opt, const char *arg);
/* cli_lids_pins() - the --guid2lid entries (none without it); CLI_OK or an exit code. */
int cli_lids_pins(const struct cli_lids *l, struct fab_lid_pin **pins, size_t *npins);
/* cli_lids_apply() - assign LIDs as asked; CLI_OK or an exit code. */
int cli_lids_apply(struct fabric *f, const struct cli_lids *l);

/*
 * struct cli_input - how the offline commands read a fabric: --strict
 * refuses the diagnostic lines the tools print among the records (else
 * they are skipped with a warning naming the file and line),
 * --node-name-map FILE names nodes as OpenSM and the diags do.
 */
struct cli_input {
	int strict;
	const char *name_map;
};

/* cli_input_option() - handle --strict or --node-name-map; 1 when consumed. */
int cli_input_option(struct cli_input *in, int opt, const char *arg);
/* cli_input_names() - apply --node-name-map to @f; CLI_OK or an exit code after a message. */
int cli_input_names(struct fabric *f, const struct cli_input *in);
/*
 * cli_load() - load a topology ("-" = stdin) in @fmt (@in may be NULL: no
 * input options); NULL after printing why.
 */
struct fabric *cli_load(const char *path, enum fmt_topo fmt, const struct cli_input *in);
/* cli_warn() - "fabroute: MSG" on standard error: a fmt_opts warning callback. */
void cli_warn(void *arg, const char *msg);
/* cli_write() - write @f to @path ("-" or NULL = stdout); CLI_OK or CLI_FAIL. */
int cli_write(const char *path, const struct fabric *f, enum fmt_topo fmt);
/* cli_parse_uint() - strict unsigned parse (decimal or 0x hex) into *@out; 0 or -1. */
int cli_parse_uint(const char *s, unsigned long long max, unsigned long long *out);

int cmd_gen(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_compute(int argc, char **argv);
int cmd_engines(int argc, char **argv);
int cmd_lids(int argc, char **argv);
/* Offline or through a fabrouted: cli/cmd_hosts.c (hosts, topology), cli/cmd_whatif.c (whatif). */
int cmd_hosts(int argc, char **argv);
int cmd_topology(int argc, char **argv);
int cmd_whatif(int argc, char **argv);
/* Commands that ask a running fabrouted (cli/client.h): cli/cmd_query.c
 * (route, reach, vl), cli/cmd_fabric.c (status, nodes, links, lft),
 * cli/cmd_history.c (events, snapshots), cli/cmd_control.c (engine,
 * reroute, fault, config). */
int cmd_status(int argc, char **argv);
int cmd_route(int argc, char **argv);
int cmd_reach(int argc, char **argv);
int cmd_vl(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_snapshots(int argc, char **argv);
int cmd_engine(int argc, char **argv);
int cmd_reroute(int argc, char **argv);
int cmd_fault(int argc, char **argv);
int cmd_nodes(int argc, char **argv);
int cmd_links(int argc, char **argv);
int cmd_lft(int argc, char **argv);
int cmd_config(int argc, char **argv);

/**
 * eval_lids_from_dump() - give the endpoints of @f without a LID the LIDs the
 * port GUID annotations of the LFT dump @lfts name for them (cli/eval_lids.c)
 * @topo: the fabric's file, for messages
 * @lfts: the dump; NULL when the routing is opensm.fdbs
 * Return: CLI_OK (also when every endpoint has a LID), or CLI_INPUT (CLI_FAIL
 * when out of memory) after a message saying why it cannot.
 */
int eval_lids_from_dump(struct fabric *f, const char *topo, const char *lfts);

/**
 * cli_default_chain() - the chain `fabroute compute` routes with when not
 * given one: the chain of the fabrouted at @url (NULL: $FABROUTE_URL, else
 * the default URL), else FABROUTE_ENGINE_DEFAULT when no daemon answers;
 * says on standard error which, and why (cli/cmd_control.c)
 * @chain: set to a new string (free() it)
 * Return: CLI_OK, CLI_USAGE after a message (@url is not http), CLI_FAIL.
 */
int cli_default_chain(const char *url, char **chain);

/* Long option ids shared by the commands. */
enum {
	OPT_GUID2LID = 0x100,
	OPT_LMC,
	OPT_RENEW_LIDS,
	OPT_SEED,
	OPT_REMOVE_LINK,
	OPT_REMOVE_SWITCH,
	OPT_LINK_FAULTS,
	OPT_SWITCH_FAULTS,
	OPT_LIST,
	OPT_JSON,
	OPT_FROM,
	OPT_STRICT,
	OPT_NODE_NAME_MAP,
};

#define CLI_INPUT_LONGOPTS \
	{ "strict", no_argument, NULL, OPT_STRICT }, \
	{ "node-name-map", required_argument, NULL, OPT_NODE_NAME_MAP }

#define CLI_INPUT_HELP \
	"      --strict          refuse the tools' diagnostic lines (ibwarn: ...) among\n" \
	"                        the records instead of skipping them with a warning\n" \
	"      --node-name-map FILE  name nodes by this node-name-map (\"GUID NAME\"\n" \
	"                        lines, as OpenSM and the diags read it)\n"

#define CLI_LIDS_HELP \
	"      --guid2lid FILE   pin LIDs from an OpenSM guid2lid file\n" \
	"      --lmc N           LMC (0-7) for ports that get a new LID\n" \
	"      --renew-lids      forget the LIDs in the input and assign all anew\n"

#endif
