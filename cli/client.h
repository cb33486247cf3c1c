/* SPDX-License-Identifier: MIT */
/**
 * DOC: the REST client of the fabroute command
 *
 * The subcommands that talk to a running fabrouted (status, route, reach,
 * vl, events, snapshots, engine, reroute, fault) share this small libcurl
 * wrapper: the options every one of them takes (--url, --token-file,
 * --json, --help), one request at a time on one reused connection, JSON
 * answers parsed with jansson, and the daemon's error bodies turned into
 * one line on stderr.
 *
 * Every function that can fail prints why (naming the URL, file or value
 * at fault) and returns an exit code of fabroute(1): CLI_OK, CLI_FAIL (the
 * daemon answered an error or could not be reached), CLI_USAGE or
 * CLI_INPUT (the token file could not be read).
 */
#ifndef FABROUTE_CLI_CLIENT_H
#define FABROUTE_CLI_CLIENT_H

#include <getopt.h>
#include <stdio.h>

#include <curl/curl.h>
#include <jansson.h>

/** Where the client looks when neither --url nor FABROUTE_URL is given. */
#define CLIENT_URL_DEFAULT "http://127.0.0.1:8577"
/** Longest time to set up the connection, and for the whole request (ms). */
#define CLIENT_CONNECT_MS 2000L
#define CLIENT_TOTAL_MS 10000L
/** Largest answer accepted (bytes). */
#define CLIENT_BODY_MAX (64u << 20)

/** Exit status of status (not ready) and route (not delivered): fabroute(1). */
#define CLIENT_EXIT_NOT_OK 4

/* Long option ids of the client subcommands (above those of cli/cli.h). */
enum {
	CLIENT_OPT_URL = 0x200,
	CLIENT_OPT_TOKEN_FILE,
	CLIENT_OPT_JSON,
	CLIENT_OPT_SINCE,
	CLIENT_OPT_TYPE,
	CLIENT_OPT_LIMIT,
	CLIENT_OPT_OPTIONS,
	CLIENT_OPT_LINK,
	CLIENT_OPT_SWITCH,
	CLIENT_OPT_ALL,
	CLIENT_OPT_WAIT,
	CLIENT_OPT_FORMAT,
};

/** The options every client subcommand takes, for its help text. */
#define CLIENT_OPTIONS_HELP \
	"      --url URL          fabrouted's API (default: $FABROUTE_URL, else\n" \
	"                         " CLIENT_URL_DEFAULT ")\n" \
	"      --token-file FILE  bearer token for POST requests (default:\n" \
	"                         $FABROUTE_TOKEN_FILE, else none)\n" \
	"      --json             print the daemon's JSON answer instead of text\n" \
	"  -h, --help             show this help\n"

/**
 * struct client_cmd - what a subcommand tells client_args()
 * @name: the subcommand ("route"), for messages
 * @usage: its help text (the common options are appended)
 * @args: the positional arguments, for messages ("SRC DST"); NULL for none
 * @min_args: fewest positional arguments
 * @max_args: most positional arguments
 * @extra: the subcommand's own long options, ended by a zero entry; NULL for none
 * @option: handles one of @extra into @ctx; CLI_OK, or CLI_USAGE after cli_usage_err()
 */
struct client_cmd {
	const char *name;
	const char *usage;
	const char *args;
	int min_args;
	int max_args;
	const struct option *extra;
	int (*option)(void *ctx, int opt, const char *arg);
};

/**
 * struct client - one subcommand's connection to fabrouted
 * @cmd: the subcommand
 * @url: base URL, without trailing slashes (owned)
 * @token_file: file holding the bearer token, NULL for none (borrowed from argv or env)
 * @token: the token once read (owned)
 * @json: --json was given
 * @help: --help was given (client_args() printed the help)
 * @args: positional arguments
 * @nargs: how many
 * @curl: the libcurl handle, reused by every request
 * @errbuf: libcurl's last error message
 * @quiet: keep why a request failed in @why instead of printing it
 * @why: why the last request failed
 */
struct client {
	const struct client_cmd *cmd;
	char *url;
	const char *token_file;
	char *token;
	int json;
	int help;
	char **args;
	int nargs;
	CURL *curl;
	char errbuf[CURL_ERROR_SIZE];
	char noproxy[512];	/* CURLOPT_NOPROXY: the user's no_proxy plus loopback */
	int quiet;
	char why[512];
};

/**
 * struct client_resp - one answer
 * @status: HTTP status
 * @body: the raw body, NUL-terminated (owned)
 * @len: its length
 * @json: the body parsed (owned), NULL when it is not JSON
 * @etag: the ETag header ("eSEQ-MS" for answers computed from an epoch), "" when none
 */
struct client_resp {
	long status;
	char *body;
	size_t len;
	json_t *json;
	char etag[64];
};

/**
 * client_args() - parse a subcommand's command line and open the client
 * @c: filled; release it with client_done() whatever this returns
 * @cmd: the subcommand
 * @argc, @argv: its arguments, argv[0] being the subcommand's name
 * @ctx: passed to @cmd->option
 *
 * Prints the help (and sets @c->help) for --help.
 * Return: CLI_OK, CLI_USAGE after a message, or CLI_FAIL (libcurl failed).
 */
int client_args(struct client *c, const struct client_cmd *cmd, int argc, char **argv, void *ctx);

/**
 * client_connect() - open @c (filled by client_args(), or zeroed with @c->cmd
 * set) on @url, else $FABROUTE_URL, else CLIENT_URL_DEFAULT
 * Return: CLI_OK, CLI_USAGE after a message (a URL that is not http), CLI_FAIL.
 */
int client_connect(struct client *c, const char *url);

/**
 * client_done() - release @c and check that standard output was written
 * Return: @rc, or CLI_FAIL when writing standard output failed.
 */
int client_done(struct client *c, int rc);

/**
 * client_path() - "@base?k1=v1&k2=v2..." with the values URL-encoded
 * @c: the client (for curl_easy_escape())
 * @base: the path ("/api/route")
 * @...: pairs of key and value (a NULL value skips the pair), ended by a NULL key
 * Return: a new string, NULL after a message when out of memory.
 */
char *client_path(struct client *c, const char *base, ...);

/**
 * client_get() - GET @path
 * @ok_status: a status other than 2xx whose JSON body the caller takes as
 *             is, error body or not (503 for /api/ready); 0 for none
 *
 * Fills @r (release it with client_resp_free()) with a parsed JSON answer.
 * Return: CLI_OK; CLI_FAIL after a message when the daemon cannot be
 * reached, answers an error or something that is not JSON.
 */
int client_get(struct client *c, const char *path, long ok_status, struct client_resp *r);

/**
 * client_get_text() - GET @path, whose answer is not JSON (GET /api/lfts)
 * Fills @r as client_get() does, @r->body being the text (NULL when empty).
 * Return: CLI_OK for a 2xx answer; CLI_FAIL after a message otherwise.
 */
int client_get_text(struct client *c, const char *path, struct client_resp *r);

/**
 * client_post() - POST @body (NULL: "{}") to @path with the bearer token
 * Return: as client_get(); CLI_INPUT when the token file cannot be read.
 */
int client_post(struct client *c, const char *path, const json_t *body, struct client_resp *r);

/** client_resp_free() - release what @r holds (it may be zeroed or half filled). */
void client_resp_free(struct client_resp *r);

/** client_print_json() - @j pretty-printed (JSON_INDENT(2)) on stdout; CLI_OK or CLI_FAIL. */
int client_print_json(const json_t *j);
/**
 * client_query() - GET @path (client_get()) and, with --json, print the
 * answer: *@printed tells whether it was printed. Return: CLI_OK with @r
 * filled, or an exit code.
 */
int client_query(struct client *c, const char *path, struct client_resp *r, int *printed);
/** client_printed() - with --json, print @r's JSON into *@rc and return 1; 0 when the caller prints text. */
int client_printed(const struct client *c, const struct client_resp *r, int *rc);
/** client_epoch_tag() - print " (epoch 4, minhop)" from an answer's "epoch" member, and a newline. */
void client_epoch_tag(const json_t *answer);

/*
 * Members of a JSON answer (@o may be NULL or not an object): the value
 * when present and of the right type, else @dflt, 0 or false.
 */
/** client_str() - string member @key of @o, or @dflt */
const char *client_str(const json_t *o, const char *key, const char *dflt);
/** client_int() - integer member @key of @o, or 0 */
long long client_int(const json_t *o, const char *key);
/** client_real() - number member @key of @o, or 0 */
double client_real(const json_t *o, const char *key);
/** client_bool() - 1 when member @key of @o is true */
int client_bool(const json_t *o, const char *key);
/** client_ints() - a JSON array of integers as "0, 1, 3" into @buf; "none" when empty. */
const char *client_ints(const json_t *a, char *buf, size_t size);


/*
 * The layouts of infiniband-diags (cli/ibfmt.c), from the daemon's answers.
 */
/**
 * ibfmt_route() - print a GET /api/route answer @route as ibtracert prints
 * the path, asking the daemon (@c) for the ports' GUIDs, LIDs and LMCs
 * Return: CLI_OK, CLIENT_EXIT_NOT_OK when the path is not delivered (why on
 * stderr), CLI_FAIL after a message.
 */
int ibfmt_route(struct client *c, const json_t *route);
/**
 * ibfmt_lft() - print one switch's block of GET /api/lfts (@dump, @len bytes,
 * opensm-lfts.dump) as ibroute prints it; @lids: GET /api/lids of the same
 * epoch (for the "path #" lines of LMC ranges)
 * Return: CLI_OK, or CLI_FAIL after a message when @dump is not one block.
 */
int ibfmt_lft(const char *dump, size_t len, const json_t *lids);

#endif
