/* SPDX-License-Identifier: MIT */
/**
 * DOC: engine registry, arguments and chains
 *
 * The table of engines, option parsing against each engine's schema, and
 * the chain runner that tries engines in turn and prepares LIDs for those
 * that need several per port.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"

extern const struct engine eng_minhop, eng_updn, eng_ftree, eng_sftree;
extern const struct engine eng_dmodk, eng_smodk, eng_opt;

static const struct engine *const engines[] = {
	&eng_sftree, &eng_ftree, &eng_opt, &eng_dmodk, &eng_smodk, &eng_updn, &eng_minhop,
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

static int opt_index(const struct eng_opt *schema, const char *name, size_t len)
{
	for (int i = 0; schema && schema[i].name; i++)
		if (strlen(schema[i].name) == len && !strncmp(schema[i].name, name, len))
			return i;
	return -1;
}

const char *eng_arg(const struct eng_args *a, const char *name)
{
	int i = opt_index(a->schema, name, strlen(name));

	if (i < 0)
		return NULL;
	return a->val[i] ? a->val[i] : a->schema[i].defval;
}

int eng_arg_uint(const struct eng_args *a, const char *name, unsigned max, unsigned *out,
		 struct fab_err *err)
{
	const char *v = eng_arg(a, name);
	char *end;
	unsigned long x;

	if (!v || !*v || *v == '-' || *v == '+') {
		fab_err_set(err, "option %s=%s: expected an unsigned integer", name, v ? v : "");
		return -1;
	}
	errno = 0;
	x = strtoul(v, &end, 0);
	if (errno || *end || x > max) {
		fab_err_set(err, "option %s=%s: expected an integer from 0 to %u", name, v, max);
		return -1;
	}
	*out = (unsigned)x;
	return 0;
}

static uint32_t find_node(const struct fabric *f, const char *tok)
{
	char *end;
	unsigned long long g;
	uint32_t n = fab_node_by_desc(f, tok, NULL);

	if (n != FAB_NONE)
		return n;
	if (strncmp(tok, "0x", 2))
		return FAB_NONE;
	errno = 0;
	g = strtoull(tok, &end, 16);
	return errno || *end ? FAB_NONE : fab_node_by_guid(f, g);
}

int eng_arg_nodes(const struct eng_args *a, const char *name, const struct fabric *f,
		  uint32_t **nodes, size_t *n, struct fab_err *err)
{
	const char *v = eng_arg(a, name);
	char *copy, *save = NULL;
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
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint32_t node = find_node(f, t);

		if (node == FAB_NONE) {
			fab_err_set(err, "option %s: no node \"%s\" (give a description or a 0x node GUID)",
				    name, t);
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

static int chain_engines(struct eng_chain *c, const char *chain, struct fab_err *err)
{
	const char *p = chain;

	memset(c, 0, sizeof(*c));
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

/* Apply "[engine.]option=value" to the engines it names; 0 or -1. */
static int chain_option(struct eng_chain *c, const char *kv, struct fab_err *err)
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
		c->args[i].val[k] = eq + 1;
		hits++;
	}
	if (!hits) {
		fab_err_set(err, "engine option \"%s\": no engine of the chain has option \"%.*s\"",
			    kv, (int)(eq - opt), opt);
		return -1;
	}
	return 0;
}

int eng_chain_parse(struct eng_chain *c, const char *chain, const char *const *kv, size_t nkv,
		    struct fab_err *err)
{
	if (chain_engines(c, chain, err))
		return -1;
	for (size_t i = 0; i < nkv; i++)
		if (chain_option(c, kv[i], err))
			return -1;
	return 0;
}

/* LIDs of every endpoint, to put back when an engine that changed them does not apply. */
struct lid_save {
	uint16_t *lid;
	uint8_t *lmc;
};

static int lids_save(const struct fabric *f, struct lid_save *s)
{
	s->lid = malloc(((size_t)f->neps + 1) * sizeof(*s->lid));
	s->lmc = malloc((size_t)f->neps + 1);
	if (!s->lid || !s->lmc)
		return -1;
	for (uint32_t e = 0; e < f->neps; e++) {
		s->lid[e] = fab_ep_lid(f, e);
		s->lmc[e] = fab_ep_lmc(f, e);
	}
	return 0;
}

static int lids_restore(struct fabric *f, const struct lid_save *s, struct fab_err *err)
{
	struct fab_lid_pin *pins = malloc(((size_t)f->neps + 1) * sizeof(*pins));
	size_t n = 0;
	int rc;

	if (!pins) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	for (uint32_t e = 0; e < f->neps; e++)
		if (s->lid[e])
			pins[n++] = (struct fab_lid_pin){
				fab_port(f, f->eps[e].node, f->eps[e].port)->guid, s->lid[e], s->lmc[e] };
	rc = fab_lids_assign(f, pins, n, FAB_LIDS_RENEW, 0, err);
	free(pins);
	return rc;
}

/*
 * Give CA ports at least the LMC engine @e needs (switches keep LMC 0);
 * ports that already have as many LIDs keep them.
 */
static int prepare_lids(struct fabric *f, const struct engine *e, const struct eng_args *a,
			struct fab_err *err)
{
	unsigned lmc = e->lmc ? e->lmc(f, a) : 0;

	for (uint32_t ep = 0; ep < f->neps; ep++)
		if (f->nodes[f->eps[ep].node].type != FAB_SWITCH && fab_ep_lmc(f, ep) < lmc)
			return fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, lmc, err);
	return 0;
}

static void log_line(struct eng_outcome *res, const char *name, const char *what)
{
	size_t n = strlen(res->log);

	snprintf(res->log + n, sizeof(res->log) - n, "%s: %s\n", name, what);
}

int eng_chain_route(struct fabric *f, const struct eng_chain *c, struct rt_routing **out,
		    struct eng_outcome *res, struct fab_err *err)
{
	struct lid_save save = { 0 };
	int rc = ENG_NOT_APPLICABLE;

	memset(res, 0, sizeof(*res));
	*out = NULL;
	if (lids_save(f, &save)) {
		fab_err_set(err, "out of memory");
		rc = ENG_ERROR;
	}
	for (size_t i = 0; rc == ENG_NOT_APPLICABLE && i < c->n; i++) {
		const struct engine *e = c->e[i];

		if (prepare_lids(f, e, &c->args[i], err)) {
			rc = ENG_ERROR;
			break;
		}
		rc = e->route(f, &c->args[i], out, err);
		if (rc == ENG_OK) {
			res->used = e;
			log_line(res, e->name, "routed");
		} else if (rc == ENG_NOT_APPLICABLE) {
			char why[600];

			snprintf(why, sizeof(why), "not applicable: %s", err->msg);
			log_line(res, e->name, why);
			if (lids_restore(f, &save, err))
				rc = ENG_ERROR;
		} else {
			log_line(res, e->name, err->msg);
		}
	}
	if (rc == ENG_NOT_APPLICABLE)
		fab_err_set(err, "no engine of the chain applies to this fabric:\n%s", res->log);
	free(save.lid);
	free(save.lmc);
	return rc;
}
