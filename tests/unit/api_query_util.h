/* SPDX-License-Identifier: MIT */
/*
 * What the tests of the REST API's queries share: epochs routed from
 * generated fabrics, and checks of the answers and errors.
 */
#ifndef FABROUTE_TESTS_API_QUERY_UTIL_H
#define FABROUTE_TESTS_API_QUERY_UTIL_H

#include <jansson.h>

#include "analysis/analysis.h"
#include "api/query.h"
#include "engines/engine.h"
#include "gen/gen.h"
#include "tests/unit/testutil.h"
#include "tests/unit/engine_call.h"

/* --- building epochs ---------------------------------------------------- */

/* Route @f with @chain, evaluate with load, and wrap it all in an epoch. */
static inline struct epoch *wrap(struct fabric *f, const char *chain)
{
	const struct an_opts load = { .load = 1 };
	struct eng_res res;
	struct epoch *e = epoch_new();

	assert_non_null(e);
	eng_run_chain(f, chain, &load, &res);
	fab_free(f);
	e->fabric = f = res.fabric;
	e->routing = res.routing;
	e->opts = res.eval_opts;
	e->report = res.report;
	e->seq = 7;
	e->snapshot_id = 3;
	e->published_ms = 1767225600123LL;	/* 2026-01-01T00:00:00.123Z */
	snprintf(e->reason, sizeof(e->reason), "startup");
	snprintf(e->chain, sizeof(e->chain), "%s", chain);
	snprintf(e->engine, sizeof(e->engine), "%s", res.used->name);
	e->engine_log = strdup(res.log);
	free(res.plan);
	e->topo_hash = fab_topology_hash(f);
	return e;
}

static inline struct epoch *gen_epoch(const char *family, const char *const *kv, size_t nkv,
			       const char *chain)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = gen_build(family, kv, nkv, 1, &err);

	if (!f)
		fail_msg("gen %s: %s", family, err.msg);
	return wrap(f, chain);
}

/* The k=2, n=3 k-ary n-tree (12 switches, 8 CAs) routed by sftree. */
static inline struct epoch *kary(void)
{
	static const char *const kv[] = { "k=2", "n=3" };

	return gen_epoch("kary-ntree", kv, 2, "sftree");
}

/* --- checking answers ---------------------------------------------------- */

static inline void expect_err(json_t *j, const struct api_err *err, int status, const char *code,
		       const char *prefix)
{
	if (j) {
		json_decref(j);
		fail_msg("expected HTTP %d %s, got an answer", status, code);
	}
	assert_int_equal(err->status, status);
	assert_string_equal(err->code, code);
	if (strncmp(err->msg, prefix, strlen(prefix)))
		fail_msg("message \"%s\" does not start with \"%s\"", err->msg, prefix);
}

static inline json_int_t jint(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		fail_msg("\"%s\" is not an integer", key);
	return json_integer_value(v);
}

static inline const char *jstr(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		fail_msg("\"%s\" is not a string", key);
	return json_string_value(v);
}

/* The endpoint a description names (its first linked port). */
static inline uint32_t ep_named(const struct fabric *f, const char *desc)
{
	struct api_err err;
	uint32_t ep = api_resolve(f, "t", desc, &err);

	if (ep == FAB_NONE)
		fail_msg("%s: %s", desc, err.msg);
	return ep;
}

#endif
