/* SPDX-License-Identifier: MIT */
/*
 * DOC: test helpers of the REST API's queries: epochs routed from generated
 * fabrics, and checks of the answers and errors.
 */
#include "tests/unit/testutil.h"

#include "api/query.h"
#include "svc/epoch.h"

struct epoch *tu_epoch_wrap(struct fabric *f, const char *chain)
{
	const struct an_opts load = { .load = 1 };
	struct eng_res res;
	struct epoch *e = epoch_new();

	assert_non_null(e);
	tu_run_chain(f, chain, &load, &res);
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

struct epoch *tu_gen_epoch(const char *spec, const char *chain)
{
	return tu_epoch_wrap(tu_gen(spec, 1), chain);
}

struct epoch *tu_kary_epoch(void)
{
	return tu_gen_epoch("kary-ntree k=2 n=3", "sftree");
}

void tu_expect_err(json_t *j, const struct api_err *err, int status, const char *code,
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

json_int_t tu_jint(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		fail_msg("\"%s\" is not an integer", key);
	return json_integer_value(v);
}

const char *tu_jstr(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		fail_msg("\"%s\" is not a string", key);
	return json_string_value(v);
}

uint32_t tu_ep_named(const struct fabric *f, const char *desc)
{
	struct api_err err;
	uint32_t ep = api_resolve(f, "t", desc, &err);

	if (ep == FAB_NONE)
		fail_msg("%s: %s", desc, err.msg);
	return ep;
}
