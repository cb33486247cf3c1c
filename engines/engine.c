/* SPDX-License-Identifier: MIT */
/**
 * DOC: engine registry, typed options and chains
 *
 * The table of engines, the option schema's checks (every value is checked
 * when a chain is parsed, so engines read options that are known to be
 * good), and the parsing of chains with their options. The routing run
 * itself is engines/run.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "formats/formats.h"

static const struct engine *const engines[] = {
	&eng_sftree, &eng_ftree, &eng_opt, &eng_dmodk, &eng_smodk, &eng_dla, &eng_updn,
	&eng_minhop, &eng_pathsel, &eng_swidest, &eng_rename, &eng_explicit, &eng_ftdlr,
};

const struct engine *const *eng_all(size_t *n)
{
	*n = sizeof(engines) / sizeof(engines[0]);
	return engines;
}

const struct engine *eng_find(const char *name)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}

/* --- options ---------------------------------------------------------------- */

static int opt_index(const struct eng_opt *schema, const char *name, size_t len)
{
	for (int i = 0; schema && schema[i].name; i++)
		if (strlen(schema[i].name) == len && !strncmp(schema[i].name, name, len))
			return i;
	return -1;
}

static int arg_index(const struct eng_args *a, const char *name)
{
	return a ? opt_index(a->schema, name, strlen(name)) : -1;
}

const char *eng_arg(const struct eng_args *a, const char *name)
{
	int i = arg_index(a, name);

	if (i < 0)
		return NULL;
	return a->val[i] ? a->val[i] : a->schema[i].defval;
}

int eng_arg_bool(const struct eng_args *a, const char *name)
{
	const char *v = eng_arg(a, name);

	return v && v[0] == '1';
}

long eng_arg_int(const struct eng_args *a, const char *name)
{
	const char *v = eng_arg(a, name);

	return v && *v ? strtol(v, NULL, 0) : 0;
}

/* Position of @v among the '|'-separated @values; -1 when absent. */
static int enum_pos(const char *values, const char *v)
{
	size_t len = strlen(v);
	int pos = 0;

	for (const char *p = values; p && *p; pos++) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);

		if (n == len && !strncmp(p, v, n))
			return pos;
		p = bar ? bar + 1 : NULL;
	}
	return -1;
}

unsigned eng_arg_enum(const struct eng_args *a, const char *name)
{
	int i = arg_index(a, name);
	int pos = i < 0 ? -1 : enum_pos(a->schema[i].values, eng_arg(a, name));

	return pos < 0 ? 0 : (unsigned)pos;
}

const char *eng_arg_file(const struct eng_args *a, const char *name, size_t *len)
{
	int i = arg_index(a, name);

	*len = i < 0 ? 0 : a->file_len[i];
	return i < 0 ? NULL : a->file[i];
}

const char *eng_opt_type_text(const struct eng_opt *o, char *buf, size_t size)
{
	switch (o->type) {
	case ENG_OPT_BOOL:
		return "0|1";
	case ENG_OPT_INT:
		snprintf(buf, size, "%ld..%ld", o->min, o->max);
		return buf;
	case ENG_OPT_ENUM:
		return o->values;
	case ENG_OPT_LIST:
		return "LIST";
	default:
		return "FILE";
	}
}

static int check_int(const char *v, long min, long max)
{
	char *end;
	long x;

	if (!*v || *v == '+' || (*v == '-' && min >= 0))
		return -1;
	errno = 0;
	x = strtol(v, &end, 0);
	return errno || *end || x < min || x > max ? -1 : 0;
}

int eng_opt_check(const char *engine, const struct eng_opt *o, const char *v,
		  struct fab_err *err)
{
	char range[48];
	int bad;

	switch (o->type) {
	case ENG_OPT_BOOL:
		bad = strcmp(v, "0") && strcmp(v, "1");
		break;
	case ENG_OPT_INT:
		bad = check_int(v, o->min, o->max);
		break;
	case ENG_OPT_ENUM:
		bad = enum_pos(o->values, v) < 0;
		break;
	case ENG_OPT_LIST:
		bad = strstr(v, ",,") || *v == ',' || (*v && v[strlen(v) - 1] == ',');
		break;
	default:
		bad = 0;	/* a file: read by the chain */
		break;
	}
	if (bad) {
		const char *want = eng_opt_type_text(o, range, sizeof(range));

		fab_err_set(err, "option %s.%s=%s: expected %s%s", engine, o->name, v,
			    o->type == ENG_OPT_LIST ? "items separated by single commas" :
			    o->type == ENG_OPT_INT ? "an integer from " : "one of ",
			    o->type == ENG_OPT_LIST ? "" : want);
		return -1;
	}
	return 0;
}

int eng_arg_guids(const struct eng_args *a, const char *name, uint64_t **guids, size_t *n,
		  struct fab_err *err)
{
	size_t len;
	const char *buf = eng_arg_file(a, name, &len);

	*guids = NULL;
	*n = 0;
	if (!buf)
		return 0;
	return fmt_guids_parse(buf, len, eng_arg(a, name), guids, n, err) ? -1 : 1;
}

int eng_check_guids(const char *buf, size_t len, const char *name, struct fab_err *err)
{
	uint64_t *g;
	size_t n;

	if (fmt_guids_parse(buf, len, name, &g, &n, err))
		return -1;
	free(g);
	return 0;
}

int eng_arg_nodes(const struct eng_args *a, const char *name, const struct fabric *f,
		  uint32_t **nodes, size_t *n, struct fab_err *err)
{
	const char *v = eng_arg(a, name);
	char *copy, *save = NULL, what[64];
	size_t cap;

	*nodes = NULL;
	*n = 0;
	if (!v || !*v)
		return 0;
	copy = strdup(v);
	cap = strlen(v) / 2 + 2;
	*nodes = malloc(cap * sizeof(**nodes));
	if (!copy || !*nodes) {
		free(copy);
		free(*nodes);
		*nodes = NULL;
		fab_err_set(err, "out of memory");
		return -1;
	}
	snprintf(what, sizeof(what), "option %s: ", name);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint32_t node = fab_node_resolve(f, t, what, err);

		if (node == FAB_NONE) {
			free(copy);
			free(*nodes);
			*nodes = NULL;
			*n = 0;
			return -1;
		}
		(*nodes)[(*n)++] = node;
	}
	free(copy);
	return 0;
}

/* --- chains ------------------------------------------------------------------- */

void eng_chain_free(struct eng_chain *c)
{
	for (size_t i = 0; i < c->n; i++)
		for (unsigned k = 0; k < ENG_OPTS_MAX; k++) {
			free(c->args[i].val[k]);
			free(c->args[i].file[k]);
		}
	memset(c, 0, sizeof(*c));
}

static int chain_engines(struct eng_chain *c, const char *chain, struct fab_err *err)
{
	const char *p = chain;

	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char name[32];

		if (!len || len >= sizeof(name)) {
			fab_err_set(err, "engine chain \"%s\": expected engine names separated by commas",
				    chain);
			return -1;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		if (c->n == ENG_CHAIN_MAX) {
			fab_err_set(err, "engine chain \"%s\": at most %d engines", chain, ENG_CHAIN_MAX);
			return -1;
		}
		c->e[c->n] = eng_find(name);
		if (!c->e[c->n]) {
			fab_err_set(err, "no engine \"%s\" ('fabroute engines' lists them)", name);
			return -1;
		}
		c->args[c->n].schema = c->e[c->n]->options;
		c->n++;
		p += len + (e != NULL);
	}
	if (!c->n) {
		fab_err_set(err, "empty engine chain");
		return -1;
	}
	return 0;
}

/* A file option's contents: from @files, or any file the caller may read (@files NULL). */
static int read_file(const struct eng_files *files, const char *v, char **data, size_t *len, struct fab_err *err)
{
	if (files)
		return files->read(files->ud, v, data, len, err);
	return fmt_read_file_max(v, ENG_OPT_FILE_MAX, data, len, err);
}

/* Set option @k of chain engine @i to @v: checked, a file read. 0 or -1. */
static int set_value(struct eng_chain *c, size_t i, int k, const char *v, const struct eng_files *files,
		     struct fab_err *err)
{
	const struct eng_opt *o = &c->e[i]->options[k];
	struct eng_args *a = &c->args[i];

	if (eng_opt_check(c->e[i]->name, o, v, err))
		return -1;
	free(a->val[k]);
	free(a->file[k]);
	a->file[k] = NULL;
	a->file_len[k] = 0;
	if (!(a->val[k] = strdup(v))) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	if (o->type == ENG_OPT_FILE && *v &&
	    (read_file(files, v, &a->file[k], &a->file_len[k], err) ||
	     (o->check && o->check(a->file[k], a->file_len[k], v, err)))) {
		struct fab_err why = *err;

		fab_err_set(err, "option %s.%s: %s", c->e[i]->name, o->name, why.msg);
		return -1;
	}
	return 0;
}

/* Apply "[engine.]option=value" to the engines it names; 0 or -1. */
static int chain_option(struct eng_chain *c, const char *kv, const struct eng_files *files, struct fab_err *err)
{
	const char *eq = strchr(kv, '='), *dot = strchr(kv, '.'), *opt = kv;
	size_t elen = 0;
	int hits = 0;

	if (!eq || eq == kv) {
		fab_err_set(err, "engine option \"%s\": expected [engine.]option=value", kv);
		return -1;
	}
	if (dot && dot < eq) {
		elen = (size_t)(dot - kv);
		opt = dot + 1;
	}
	for (size_t i = 0; i < c->n; i++) {
		int k;

		if (elen && (strlen(c->e[i]->name) != elen || strncmp(c->e[i]->name, kv, elen)))
			continue;
		k = opt_index(c->e[i]->options, opt, (size_t)(eq - opt));
		if (k < 0)
			continue;
		if (set_value(c, i, k, eq + 1, files, err))
			return -1;
		hits++;
	}
	if (!hits) {
		fab_err_set(err, "engine option \"%s\": no engine of the chain has option \"%.*s\"",
			    kv, (int)(eq - opt), opt);
		return -1;
	}
	return 0;
}

/* Check the defaults of file options too: an engine may read one by default. */
static int chain_defaults(struct eng_chain *c, const struct eng_files *files, struct fab_err *err)
{
	for (size_t i = 0; i < c->n; i++)
		for (int k = 0; c->e[i]->options && c->e[i]->options[k].name; k++) {
			const struct eng_opt *o = &c->e[i]->options[k];

			if (!c->args[i].val[k] && o->type == ENG_OPT_FILE && *o->defval &&
			    set_value(c, i, k, o->defval, files, err))
				return -1;
		}
	return 0;
}

/* eng_chain_parse() with file options from @files (NULL: read the files named). */
static int parse(struct eng_chain *c, const char *chain, const char *const *kv, size_t nkv,
		 const struct eng_files *files, struct fab_err *err)
{
	memset(c, 0, sizeof(*c));
	if (chain_engines(c, chain, err))
		goto fail;
	for (size_t i = 0; i < nkv; i++)
		if (chain_option(c, kv[i], files, err))
			goto fail;
	if (chain_defaults(c, files, err))
		goto fail;
	return 0;
fail:
	eng_chain_free(c);
	return -1;
}

int eng_chain_parse(struct eng_chain *c, const char *chain, const char *const *kv, size_t nkv,
		    struct fab_err *err)
{
	return parse(c, chain, kv, nkv, NULL, err);
}

/*
 * Split "a=1,b.c=x,y d=2" into "a=1", "b.c=x,y", "d=2": pieces separated by
 * commas or blanks; a piece without '=' continues the value before it.
 */
/* Append ",@t" to *@v; 0 or -1. */
static int append_item(char **v, const char *t)
{
	size_t a = strlen(*v), b = strlen(t);
	char *g = realloc(*v, a + b + 2);

	if (!g)
		return -1;
	g[a] = ',';
	memcpy(g + a + 1, t, b + 1);
	*v = g;
	return 0;
}

static int split_options(const char *s, char ***kv, size_t *n)
{
	char *copy = strdup(s), *save = NULL;
	char **v = calloc(strlen(s) / 2 + 2, sizeof(*v));
	int rc = copy && v ? 0 : -1;

	*n = 0;
	*kv = v;
	for (char *t = rc ? NULL : strtok_r(copy, ", \t\n", &save); t;
	     t = strtok_r(NULL, ", \t\n", &save)) {
		if (strchr(t, '=') || !*n)
			rc = (v[(*n)++] = strdup(t)) ? 0 : -1;
		else
			rc = append_item(&v[*n - 1], t);
		if (rc)
			break;
	}
	free(copy);
	return rc;
}

int eng_chain_parse_files(struct eng_chain *c, const char *chain, const char *options,
			  const struct eng_files *files, struct fab_err *err)
{
	char **kv;
	size_t n;
	int rc;

	if (split_options(options ? options : "", &kv, &n)) {
		rc = -1;
		memset(c, 0, sizeof(*c));
		fab_err_set(err, "out of memory");
	} else {
		rc = parse(c, chain, (const char *const *)kv, n, files, err);
	}
	for (size_t i = 0; kv && i < n; i++)
		free(kv[i]);
	free(kv);
	return rc;
}

int eng_chain_parse_str(struct eng_chain *c, const char *chain, const char *options,
			struct fab_err *err)
{
	return eng_chain_parse_files(c, chain, options, NULL, err);
}
