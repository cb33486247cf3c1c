/* SPDX-License-Identifier: MIT */
/**
 * DOC: configuration checks before anything starts
 *
 * What `fabrouted -n` checks, and what a start checks before it creates
 * anything (a database, a socket): the token files, the files the engine
 * options name (read as the daemon will read them: regular files in
 * engine_files_dir, bounded in size and time), and for -n the generated
 * topology's parameters and the engine chain selected through the API and
 * stored in the database, which a start would use. Each failure names
 * what is wrong; none can hang.
 *
 * The chain selected through the API is checked again once the database is
 * open (daemon_files_prepare()): a stored chain whose option file cannot
 * be read makes the start fail with the reason, and --forget-engine drops
 * that selection so the configuration's chain routes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon.h"
#include "daemon/engfiles.h"
#include "gen/gen.h"
#include "svc/log.h"

int daemon_tokens_check(const struct config *c, struct fab_err *err)
{
	const char *files[] = { c->token_file, c->read_token_file }, *keys[] = { "token_file", "read_token_file" };

	for (unsigned i = 0; i < 2; i++) {
		struct fab_err why;
		char *tok;

		if (!files[i][0])
			continue;
		if (!(tok = daemon_read_token(files[i], &why))) {
			fab_err_set(err, "%s: %s", keys[i], why.msg);
			return -1;
		}
		free(tok);
	}
	return 0;
}

/* The remedy when the chain selected through the API cannot be used. */
static void api_chain_err(struct fab_err *err, const char *chain, const struct fab_err *why)
{
	fab_err_set(err, "the engine chain '%s' selected through the API (stored in the database) cannot be used: "
		    "%s; put the file back, or start with --forget-engine to route with the configuration's chain",
		    chain, why->msg);
}

int daemon_files_prepare(struct daemon *d, const struct config *c, int api_chain, struct fab_err *err)
{
	char *chain = NULL, *opts = NULL;
	struct fab_err why;
	int rc;

	if (engf_prepare(d->files, c->engine_files_dir, c->engine, c->engine_options, &why)) {
		fab_err_set(err, "engine_options: %s", why.msg);
		return -1;
	}
	if (!api_chain || !d->st)
		return 0;
	if (store_setting_get(d->st, "engine_chain", &chain, &why) ||
	    store_setting_get(d->st, "engine_options", &opts, &why)) {
		log_err("%s", why.msg);	/* the configuration's chain routes then */
		rc = 0;
	} else {
		rc = chain ? engf_prepare(d->files, c->engine_files_dir, chain, opts ? opts : "", &why) : 0;
		if (rc)
			api_chain_err(err, chain, &why);
	}
	free(chain);
	free(opts);
	return rc;
}

/* -n: the generated topology is built once (its parameters' values checked). */
static int check_gen(const struct config *c, struct fab_err *err)
{
	const char *kv[32];
	char *copy, *p, *save = NULL;
	struct fabric *f;
	size_t n = 0;

	if (strncmp(c->topology, "gen:", 4))
		return 0;
	if (!(copy = strdup(c->topology + 4))) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	if ((p = strchr(copy, ':')))
		*p++ = '\0';
	for (char *t = p ? strtok_r(p, ",", &save) : NULL; t && n < 32; t = strtok_r(NULL, ",", &save))
		kv[n++] = t;
	f = gen_build(copy, kv, n, 1, err);
	free(copy);
	if (!f) {
		struct fab_err why = *err;

		fab_err_set(err, "topology: %s", why.msg);
		return -1;
	}
	fab_free(f);
	return 0;
}

/* -n: the chain selected through the API, if the database holds one. */
static int check_api_chain(const struct config *c, struct engf *files, struct fab_err *err)
{
	char *chain = NULL, *opts = NULL;
	struct fab_err why;
	int rc = 0;

	if (store_peek_setting(c->db, "engine_chain", &chain, &why) ||
	    store_peek_setting(c->db, "engine_options", &opts, &why)) {
		fprintf(stderr, "fabrouted: warning: the chain selected through the API is not checked: %s\n",
			why.msg);
	} else if (chain && engf_prepare(files, c->engine_files_dir, chain, opts ? opts : "", &why)) {
		api_chain_err(err, chain, &why);
		rc = -1;
	}
	free(chain);
	free(opts);
	return rc;
}

int daemon_check_mode(const struct config *c, struct fab_err *err)
{
	struct engf *files = engf_new();
	struct fab_err why;
	int rc = -1;

	if (!files) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	if (daemon_tokens_check(c, err) || check_gen(c, err))
		goto out;
	if (engf_prepare(files, c->engine_files_dir, c->engine, c->engine_options, &why)) {
		fab_err_set(err, "engine_options: %s", why.msg);
		goto out;
	}
	rc = check_api_chain(c, files, err);
out:
	engf_free(files);
	return rc;
}
