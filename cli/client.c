/* SPDX-License-Identifier: MIT */
/**
 * DOC: the REST client of the fabroute command
 *
 * A small libcurl wrapper for the subcommands that talk to fabrouted: the
 * common options, the base URL (--url, else $FABROUTE_URL, else
 * http://127.0.0.1:8577), the bearer token for POSTs (--token-file, else
 * $FABROUTE_TOKEN_FILE), one handle reused for every request with a 2 s
 * connect and a 10 s total timeout, and the daemon's answers: JSON parsed
 * with jansson, {"error": {"code", "message"}} bodies printed as
 * "fabroute: MESSAGE (CODE, HTTP STATUS)".
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/client.h"
#include "formats/formats.h"

/* Common long options; client_args() appends the subcommand's own. */
static const struct option client_common_opts[] = {
	{ "url", required_argument, NULL, CLIENT_OPT_URL },
	{ "token-file", required_argument, NULL, CLIENT_OPT_TOKEN_FILE },
	{ "json", no_argument, NULL, CLIENT_OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
};

#define CLIENT_NCOMMON (sizeof(client_common_opts) / sizeof(client_common_opts[0]))
/* Room for the subcommand's options in the merged table. */
#define CLIENT_NEXTRA_MAX 8u
/* Largest token file read. */
#define CLIENT_TOKEN_MAX 4096u

/* --- options ------------------------------------------------------------ */

static void client_usage(const struct client_cmd *cmd)
{
	fputs(cmd->usage, stdout);
	fputs("\nOptions common to the commands that talk to fabrouted:\n" CLIENT_OPTIONS_HELP, stdout);
}

/* The environment variable @name, NULL when unset or empty. */
static const char *client_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* Take the base URL from --url (@flag), $FABROUTE_URL or the default. */
static int client_set_url(struct client *c, const char *flag)
{
	const char *env = client_env("FABROUTE_URL");
	const char *url = flag ? flag : env ? env : CLIENT_URL_DEFAULT;
	const char *what = flag ? "--url" : "FABROUTE_URL";
	size_t len = strlen(url);

	if (strncasecmp(url, "http://", 7) && strncasecmp(url, "https://", 8))
		return cli_usage_err(c->cmd->name, "%s '%s': expected http://HOST:PORT or https://HOST:PORT",
				     what, url);
	while (len > 8 && url[len - 1] == '/')
		len--;
	c->url = strndup(url, len);
	if (!c->url) {
		cli_err("out of memory copying the URL '%s'", url);
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* Merge the common options and @extra into @all (CLIENT_NCOMMON + CLIENT_NEXTRA_MAX + 1). */
static void client_merge_opts(struct option *all, const struct option *extra)
{
	size_t n = 0;

	for (size_t i = 0; i < CLIENT_NCOMMON; i++)
		all[n++] = client_common_opts[i];
	for (size_t i = 0; extra && extra[i].name && i < CLIENT_NEXTRA_MAX; i++)
		all[n++] = extra[i];
	memset(&all[n], 0, sizeof(all[n]));
}

/* One option; CLI_OK or CLI_USAGE after a message. */
static int client_option(struct client *c, int opt, const char **url, char **argv, void *ctx)
{
	switch (opt) {
	case 'h':
		c->help = 1;
		return CLI_OK;
	case CLIENT_OPT_URL:
		*url = optarg;
		return CLI_OK;
	case CLIENT_OPT_TOKEN_FILE:
		c->token_file = optarg;
		return CLI_OK;
	case CLIENT_OPT_JSON:
		c->json = 1;
		return CLI_OK;
	case ':':
		return cli_usage_err(c->cmd->name, "option '%s' needs a value", argv[optind - 1]);
	case '?':
		return cli_usage_err(c->cmd->name, "bad option '%s'", argv[optind - 1]);
	default:
		if (c->cmd->option)
			return c->cmd->option(ctx, opt, optarg);
		return cli_usage_err(c->cmd->name, "bad option '%s'", argv[optind - 1]);
	}
}

/*
 * The daemon usually listens on loopback: never send that through a proxy
 * (http_proxy in the environment would otherwise take it). The user's own
 * no_proxy list is kept, loopback added to it.
 */
static void no_proxy_loopback(struct client *c)
{
	const char *user = getenv("no_proxy") ? getenv("no_proxy") : getenv("NO_PROXY");

	snprintf(c->noproxy, sizeof(c->noproxy), "%s%slocalhost,127.0.0.1,::1,[::1]",
		 user && *user && strlen(user) < sizeof(c->noproxy) - 40 ? user : "",
		 user && *user && strlen(user) < sizeof(c->noproxy) - 40 ? "," : "");
	curl_easy_setopt(c->curl, CURLOPT_NOPROXY, c->noproxy);
}

static int client_open(struct client *c)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		cli_err("libcurl: global initialisation failed");
		return CLI_FAIL;
	}
	c->curl = curl_easy_init();
	if (!c->curl) {
		curl_global_cleanup();
		cli_err("libcurl: cannot create a handle");
		return CLI_FAIL;
	}
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS, CLIENT_CONNECT_MS);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, CLIENT_TOTAL_MS);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "fabroute/" PACKAGE_VERSION);
	no_proxy_loopback(c);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	return CLI_OK;
}

int client_args(struct client *c, const struct client_cmd *cmd, int argc, char **argv, void *ctx)
{
	struct option all[CLIENT_NCOMMON + CLIENT_NEXTRA_MAX + 1];
	const char *url = NULL;
	int opt, rc = CLI_OK;

	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	c->token_file = client_env("FABROUTE_TOKEN_FILE");
	client_merge_opts(all, cmd->extra);
	opterr = 0;
	optind = 1;
	while (rc == CLI_OK && (opt = getopt_long(argc, argv, ":h", all, NULL)) != -1)
		rc = client_option(c, opt, &url, argv, ctx);
	if (rc)
		return rc;
	if (c->help) {
		client_usage(cmd);
		return CLI_OK;
	}
	c->args = argv + optind;
	c->nargs = argc - optind;
	if (c->nargs < cmd->min_args || c->nargs > cmd->max_args)
		return cli_usage_err(cmd->name, "expected %s, found %d argument%s%s%s%s",
				     cmd->args ? cmd->args : "no arguments", c->nargs,
				     c->nargs == 1 ? "" : "s", c->nargs ? " ('" : "",
				     c->nargs ? c->args[c->nargs - 1] : "", c->nargs ? "')" : "");
	return client_connect(c, url);
}

int client_connect(struct client *c, const char *url)
{
	int rc = client_set_url(c, url);

	return rc ? rc : client_open(c);
}

int client_done(struct client *c, int rc)
{
	if (c->curl) {
		curl_easy_cleanup(c->curl);
		curl_global_cleanup();
	}
	free(c->url);
	free(c->token);
	memset(c, 0, sizeof(*c));
	if (fflush(stdout) || ferror(stdout)) {
		cli_err("<stdout>: write error: %s", strerror(errno));
		return CLI_FAIL;
	}
	return rc;
}

/* --- paths and tokens ----------------------------------------------------- */

char *client_path(struct client *c, const char *base, ...)
{
	char *out = NULL, sep = '?';
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	const char *key;
	va_list ap;
	int bad = !m;

	if (m)
		fputs(base, m);
	va_start(ap, base);
	while ((key = va_arg(ap, const char *)) != NULL) {
		const char *val = va_arg(ap, const char *);
		char *esc;

		if (!val || bad)
			continue;
		esc = curl_easy_escape(c->curl, val, 0);
		bad = !esc;
		if (esc)
			fprintf(m, "%c%s=%s", sep, key, esc);
		curl_free(esc);
		sep = '&';
	}
	va_end(ap);
	if (m && fclose(m))
		bad = 1;
	if (bad) {
		free(out);
		cli_err("out of memory building the request for %s", base);
		return NULL;
	}
	return out;
}

/* Read and check the token of c->token_file; CLI_OK or CLI_INPUT after a message. */
static int client_load_token(struct client *c)
{
	struct fab_err err = { { 0 } };
	char *text, *s, *e;
	size_t len;
	int word = 1;

	if (fmt_read_file_max(c->token_file, CLIENT_TOKEN_MAX, &text, &len, &err)) {
		cli_err("token file %s", err.msg);
		return CLI_INPUT;
	}
	for (s = text; *s && isspace((unsigned char)*s); s++)
		;
	for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		;
	*e = '\0';
	for (const char *p = s; *p; p++)
		word &= *p >= 0x21 && *p <= 0x7e;
	if (!*s || !word) {
		cli_err("%s: the token file must hold one word of printable ASCII characters",
			c->token_file);
		free(text);
		return CLI_INPUT;
	}
	memmove(text, s, (size_t)(e - s) + 1);
	c->token = text;
	return CLI_OK;
}

/* --- requests ------------------------------------------------------------- */

/* Collects the body; stops the transfer beyond CLIENT_BODY_MAX. */
struct client_sink {
	struct client_resp *r;
	size_t cap;
	int too_big;
	int nomem;
};

static size_t client_write(char *data, size_t size, size_t nmemb, void *ud)
{
	struct client_sink *s = ud;
	struct client_resp *r = s->r;
	size_t n = size * nmemb;

	if (n > CLIENT_BODY_MAX - r->len) {
		s->too_big = 1;
		return 0;
	}
	if (r->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		char *p;

		while (cap < r->len + n + 1)
			cap *= 2;
		p = realloc(r->body, cap);
		if (!p) {
			s->nomem = 1;
			return 0;
		}
		r->body = p;
		s->cap = cap;
	}
	memcpy(r->body + r->len, data, n);
	r->len += n;
	r->body[r->len] = '\0';
	return n;
}

void client_resp_free(struct client_resp *r)
{
	free(r->body);
	json_decref(r->json);
	memset(r, 0, sizeof(*r));
}

/* Append @line to *@h; on failure free the list, leave NULL and return -1. */
static int client_header(struct curl_slist **h, const char *line)
{
	struct curl_slist *t = curl_slist_append(*h, line);

	if (!t)
		curl_slist_free_all(*h);
	*h = t;
	return t ? 0 : -1;
}

/* The headers of a request; NULL when out of memory. */
static struct curl_slist *client_headers(const struct client *c, int post)
{
	struct curl_slist *h = NULL;
	char auth[CLIENT_TOKEN_MAX + 32];

	if (client_header(&h, "Accept: application/json"))
		return NULL;
	if (post && (client_header(&h, "Content-Type: application/json") ||
		     client_header(&h, "Expect:")))
		return NULL;
	if (post && c->token) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", c->token);
		if (client_header(&h, auth))
			return NULL;
	}
	return h;
}

/* Why a request failed: printed, or kept in c->why when c->quiet. */
__attribute__((format(printf, 2, 3)))
static void client_fail(struct client *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	if (!c->quiet)
		cli_err("%s", c->why);
}

/* A transfer that failed: which message, CLI_FAIL. */
static int client_transfer_err(struct client *c, const char *url, CURLcode res,
			       const struct client_sink *s)
{
	if (s->too_big)
		client_fail(c, "%s: the answer is larger than %u MiB", url, CLIENT_BODY_MAX >> 20);
	else if (s->nomem)
		client_fail(c, "%s: out of memory reading the answer", url);
	else
		client_fail(c, "cannot reach fabrouted at %s: %s", c->url,
			    c->errbuf[0] ? c->errbuf : curl_easy_strerror(res));
	return CLI_FAIL;
}

/* The first line of @r's body, at most 120 characters, for a message. */
static void client_snippet(const struct client_resp *r, char *out, size_t size)
{
	size_t n = r->body ? strcspn(r->body, "\r\n") : 0;

	if (n > 120)
		n = 120;
	snprintf(out, size, "%.*s", (int)n, r->body ? r->body : "");
}

/* An answer the caller does not take: the daemon's message, CLI_FAIL. */
static int client_answer_err(struct client *c, const char *method, const char *url,
			     const struct client_resp *r)
{
	const json_t *e = json_object_get(r->json, "error");
	const char *msg = json_string_value(json_object_get(e, "message"));
	char snip[128];

	if (msg) {
		client_fail(c, "%s (%s, HTTP %ld)", msg, client_str(e, "code", "no code"), r->status);
		if (r->status == 401 && !c->token_file && !c->quiet)
			cli_err("give the API token with --token-file FILE or FABROUTE_TOKEN_FILE");
		return CLI_FAIL;
	}
	client_snippet(r, snip, sizeof(snip));
	if (r->status >= 200 && r->status < 300)
		client_fail(c, "%s %s: the answer is not JSON: '%s'", method, url, snip);
	else
		client_fail(c, "%s %s: HTTP %ld: '%s'", method, url, r->status, snip);
	return CLI_FAIL;
}

/* Whether @r is an answer to take: a 2xx status or @ok_status, and JSON when @json. */
static int client_taken(const struct client_resp *r, long ok_status, int json)
{
	int ok = (r->status >= 200 && r->status < 300) || (ok_status && r->status == ok_status);

	return ok && (r->json || !json);
}

/* Keeps the ETag header of an answer (the epoch it was computed from). */
static size_t client_header_cb(char *data, size_t size, size_t nmemb, void *ud)
{
	struct client_resp *r = ud;
	size_t n = size * nmemb, k = strlen("ETag:");

	if (n > k && !strncasecmp(data, "ETag:", k)) {
		const char *v = data + k;
		size_t len = n - k;

		while (len && (*v == ' ' || *v == '\t'))
			v++, len--;
		while (len && (v[len - 1] == '\r' || v[len - 1] == '\n' || v[len - 1] == ' '))
			len--;
		if (len < sizeof(r->etag))
			snprintf(r->etag, sizeof(r->etag), "%.*s", (int)len, v);
	}
	return n;
}

static int client_request(struct client *c, const char *method, const char *path,
			  const char *body, long ok_status, int json, struct client_resp *r)
{
	struct client_sink sink = { .r = r };
	struct curl_slist *hdrs = client_headers(c, body != NULL);
	char *url = malloc(strlen(c->url) + strlen(path) + 1);
	CURLcode res;
	int rc = CLI_OK;

	memset(r, 0, sizeof(*r));
	if (!hdrs || !url) {
		cli_err("out of memory preparing %s %s", method, path);
		rc = CLI_FAIL;
		goto out;
	}
	strcat(strcpy(url, c->url), path);
	c->errbuf[0] = '\0';
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, client_write);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(c->curl, CURLOPT_HEADERFUNCTION, client_header_cb);
	curl_easy_setopt(c->curl, CURLOPT_HEADERDATA, r);
	if (body) {
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	} else {
		curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
	}
	res = curl_easy_perform(c->curl);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, NULL);
	if (res != CURLE_OK) {
		rc = client_transfer_err(c, url, res, &sink);
		goto out;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &r->status);
	if (r->body)
		r->json = json_loadb(r->body, r->len, 0, NULL);
	if (!client_taken(r, ok_status, json))
		rc = client_answer_err(c, method, url, r);
out:
	curl_slist_free_all(hdrs);
	free(url);
	return rc;
}

int client_get(struct client *c, const char *path, long ok_status, struct client_resp *r)
{
	return client_request(c, "GET", path, NULL, ok_status, 1, r);
}

int client_get_text(struct client *c, const char *path, struct client_resp *r)
{
	return client_request(c, "GET", path, NULL, 0, 0, r);
}

int client_post(struct client *c, const char *path, const json_t *body, struct client_resp *r)
{
	char *text;
	int rc;

	memset(r, 0, sizeof(*r));
	if (c->token_file && !c->token && (rc = client_load_token(c)) != CLI_OK)
		return rc;
	text = body ? json_dumps(body, JSON_COMPACT) : strdup("{}");
	if (!text) {
		cli_err("out of memory building the body of POST %s", path);
		return CLI_FAIL;
	}
	rc = client_request(c, "POST", path, text, 0, 1, r);
	free(text);
	return rc;
}

/* --- reading answers ------------------------------------------------------ */

int client_print_json(const json_t *j)
{
	int rc = json_dumpf(j, stdout, CLI_JSON_FLAGS);

	putchar('\n');
	if (rc) {
		cli_err("<stdout>: cannot write the JSON answer");
		return CLI_FAIL;
	}
	return CLI_OK;
}

int client_query(struct client *c, const char *path, struct client_resp *r, int *printed)
{
	int rc = client_get(c, path, 0, r);

	*printed = 0;
	if (rc == CLI_OK && c->json) {
		rc = client_print_json(r->json);
		*printed = 1;
	}
	return rc;
}

int client_printed(const struct client *c, const struct client_resp *r, int *rc)
{
	if (!c->json)
		return 0;
	*rc = client_print_json(r->json);
	return 1;
}

void client_epoch_tag(const json_t *answer)
{
	const json_t *e = json_object_get(answer, "epoch");

	printf(" (epoch %lld, %s)\n", client_int(e, "seq"), client_str(e, "engine", "?"));
}

const char *client_str(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

long long client_int(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

double client_real(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

int client_bool(const json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

const char *client_ints(const json_t *a, char *buf, size_t size)
{
	size_t i, used = 0;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach(a, i, v) {
		int n = snprintf(buf + used, size - used, "%s%lld", i ? ", " : "",
				 (long long)json_integer_value(v));

		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
	return used ? buf : "none";
}
