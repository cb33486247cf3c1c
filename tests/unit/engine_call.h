/* SPDX-License-Identifier: MIT */
/*
 * Calling one engine's route hook directly, with options checked as a
 * chain checks them: what the engine tests share.
 */
#ifndef FABROUTE_TEST_ENGINE_CALL_H
#define FABROUTE_TEST_ENGINE_CALL_H

#include "tests/unit/testutil.h"

#include "engines/engine.h"

/*
 * Route @f with engine @e and options @kv ("name=value", NULL-terminated,
 * may be NULL); *@r gets the routing (NULL unless ENG_OK). Return: the
 * engine's status.
 */
static inline int eng_call(const struct engine *e, const struct fabric *f, const char *const *kv,
			   struct rt_routing **r, struct fab_err *err)
{
	struct eng_chain c;
	struct eng_req q = { .fabric = f, .chain = &c };
	struct eng_res res;
	size_t n = 0;
	int rc;

	memset(&res, 0, sizeof(res));
	while (kv && kv[n])
		n++;
	if (eng_chain_parse(&c, e->name, kv, n, err))
		fail_msg("%s: %s", e->name, err->msg);
	rc = e->route(&q, &c.args[0], &res, err);
	eng_chain_free(&c);
	*r = res.routing;
	return rc;
}

/*
 * Run @chain on @f with eng_run() (the fabric's LIDs kept; an engine that
 * needs more LIDs per port may assign them), evaluated with @eval (NULL:
 * not evaluated); fails the test unless some engine routed.
 */
static inline void eng_run_chain(const struct fabric *f, const char *chain,
				 const struct an_opts *eval, struct eng_res *res)
{
	struct fab_err err = { { 0 } };
	struct eng_chain c;
	struct eng_req q = { .fabric = f, .chain = &c, .assign = 1, .lid_mode = FAB_LIDS_KEEP,
			     .lmc_budget = FAB_LMC_MAX, .eval = eval };

	if (eng_chain_parse(&c, chain, NULL, 0, &err))
		fail_msg("%s: %s", chain, err.msg);
	if (eng_run(&q, res, &err) != ENG_OK)
		fail_msg("%s: %s", chain, err.msg);
	eng_chain_free(&c);
}

/*
 * eng_route_in_place() - route @f with @chain as eng_run_chain() does, give
 * @f the LIDs routed (an engine needing LMC assigns new ones) and return
 * the routing; NULL when no engine of the chain applies.
 */
static inline struct rt_routing *eng_route_in_place(struct fabric *f, const char *chain)
{
	struct fab_err err = { { 0 } };
	struct eng_chain c;
	struct eng_req q = { .fabric = f, .chain = &c, .assign = 1, .lid_mode = FAB_LIDS_KEEP,
			     .lmc_budget = FAB_LMC_MAX };
	struct eng_res res;
	struct rt_routing *r;

	if (eng_chain_parse(&c, chain, NULL, 0, &err))
		fail_msg("%s: %s", chain, err.msg);
	if (eng_run(&q, &res, &err) != ENG_OK) {
		eng_chain_free(&c);
		return NULL;
	}
	eng_chain_free(&c);
	if (fab_lids_assign(f, res.plan, res.nplan, FAB_LIDS_RENEW, 0, &err))
		fail_msg("%s: the LIDs routed: %s", chain, err.msg);
	r = res.routing;
	res.routing = NULL;
	eng_res_free(&res);
	return r;
}

#endif
