/* SPDX-License-Identifier: MIT */
/*
 * DOC: test helpers: one engine's route hook called directly (options
 * checked as a chain checks them), chains run by eng_run(), the evaluator,
 * and shortest-path checks.
 */
#include "tests/unit/testutil.h"

int tu_eng_call(const struct engine *e, const struct fabric *f, const char *const *kv,
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

struct rt_routing *tu_route_opts(const struct engine *e, const struct fabric *f,
				 const char *const *opts, int want, struct fab_err *err)
{
	struct rt_routing *r = NULL;
	int rc = tu_eng_call(e, f, opts, &r, err);

	if (rc != want)
		fail_msg("%s returned %d, expected %d: %s", e->name, rc, want, err->msg);
	assert_true((r != NULL) == (rc == ENG_OK));
	return r;
}

struct rt_routing *tu_route(const struct engine *e, const struct fabric *f)
{
	struct fab_err err = { { 0 } };
	struct rt_routing *r = tu_route_opts(e, f, NULL, ENG_OK, &err);

	assert_non_null(r->notes);
	return r;
}

void tu_run_chain(const struct fabric *f, const char *chain, const struct an_opts *eval,
		  struct eng_res *res)
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

struct rt_routing *tu_route_in_place(struct fabric *f, const char *chain)
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

void tu_eval_opts(const struct fabric *f, const struct rt_routing *r, const struct an_opts *o,
		  struct an_report *rep)
{
	struct fab_err err = { { 0 } };

	if (an_evaluate(f, r, o, rep, &err))
		fail_msg("an_evaluate: %s", err.msg);
}

void tu_eval(const struct fabric *f, const struct rt_routing *r, int all_lids,
	     struct an_report *rep)
{
	struct an_opts o = { .all_lids = all_lids };

	tu_eval_opts(f, r, &o, rep);
}

/*
 * Every LID of @dst's range from @src is delivered along a shortest path
 * (as many switches as the switch hop distance plus one).
 */
static void check_shortest_pair(const struct fabric *f, const struct rt_routing *r,
				const uint8_t *hops, uint32_t src, uint32_t dst)
{
	unsigned want = hops[(size_t)tu_ep_sw(f, src) * f->nswitches + tu_ep_sw(f, dst)] + 1u;

	for (unsigned l = 0; l < 1u << fab_ep_lmc(f, dst); l++) {
		struct an_path p = { 0 };

		assert_int_equal(an_trace(f, r, src, fab_ep_lid(f, dst) + l, 0, &p), 0);
		assert_int_equal(p.fail, AN_DELIVERED);
		if (p.nhops != want)
			fail_msg("%s -> %s (LID %u): %u switches, shortest %u",
				 fab_desc(f, f->eps[src].node), fab_desc(f, f->eps[dst].node),
				 fab_ep_lid(f, dst) + l, p.nhops, want);
		an_path_free(&p);
	}
}

void tu_check_shortest(const struct fabric *f, const struct rt_routing *r, int ca_only,
		       uint64_t budget)
{
	uint8_t *hops = eng_hops(f);
	uint64_t pairs = (uint64_t)f->neps * f->neps, step = pairs / budget + 1, i;

	assert_non_null(hops);
	for (i = 0; i < pairs; i += step) {
		uint32_t src = (uint32_t)(i / f->neps), dst = (uint32_t)(i % f->neps);

		if (src != dst && (!ca_only || (tu_is_ca(f, src) && tu_is_ca(f, dst))))
			check_shortest_pair(f, r, hops, src, dst);
	}
	free(hops);
}
