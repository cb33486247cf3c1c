/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the minhop/updn tests (test_engines_base.c, test_engines_osm.c):
 * building fabrics, routing with options, evaluating, shortest-path checks.
 */
#ifndef FABROUTE_ENGINES_UTIL_H
#define FABROUTE_ENGINES_UTIL_H

#include "tests/unit/testutil.h"
#include "tests/unit/engine_call.h"

#include "analysis/analysis.h"
#include "engines/engine.h"
#include "gen/gen.h"
#include "fabric/routing.h"

/* --- helpers ------------------------------------------------------------------- */

#define KV_MAX 6

static inline struct fabric *build(const char *family, const char *const *kv, uint64_t seed,
			    unsigned faults)
{
	struct fab_err err = { { 0 } };
	size_t n = 0;
	struct fabric *f;

	while (kv && n < KV_MAX && kv[n])
		n++;
	f = gen_build(family, kv, n, seed, &err);
	if (!f)
		fail_msg("gen %s: %s", family, err.msg);
	if (faults) {
		struct gen_faults g = { .random_links = faults, .seed = seed + faults };

		if (gen_faults_apply(&f, &g, &err))
			fail_msg("faults on %s: %s", family, err.msg);
	}
	return f;
}

/* Route @f with @e and options "name=value" (NULL-terminated); expect @want. */
static inline struct rt_routing *route_opts(const struct engine *e, const struct fabric *f,
				     const char *const *opts, int want, struct fab_err *err)
{
	struct rt_routing *r = NULL;
	int rc = eng_call(e, f, opts, &r, err);

	if (rc != want)
		fail_msg("%s returned %d, expected %d: %s", e->name, rc, want, err->msg);
	assert_true((r != NULL) == (rc == ENG_OK));
	return r;
}

static inline struct rt_routing *route(const struct engine *e, const struct fabric *f)
{
	struct fab_err err = { { 0 } };

	return route_opts(e, f, NULL, ENG_OK, &err);
}

static inline void evaluate(const struct fabric *f, const struct rt_routing *r, int all_lids,
		     struct an_report *rep)
{
	struct an_opts o = { .all_lids = all_lids };
	struct fab_err err = { { 0 } };

	if (an_evaluate(f, r, &o, rep, &err))
		fail_msg("an_evaluate: %s", err.msg);
}

/* Switch index an endpoint enters the fabric at. */
static inline uint32_t ep_sw(const struct fabric *f, uint32_t e)
{
	uint32_t node = f->eps[e].node;

	if (f->nodes[node].type == FAB_SWITCH)
		return f->nodes[node].swidx;
	return f->nodes[fab_port(f, node, f->eps[e].port)->peer].swidx;
}

static inline int is_ca(const struct fabric *f, uint32_t e)
{
	return f->nodes[f->eps[e].node].type != FAB_SWITCH;
}

/*
 * Every LID of @dst's range from @src is delivered along a shortest path
 * (as many switches as the switch hop distance plus one).
 */
static inline void check_shortest_pair(const struct fabric *f, const struct rt_routing *r,
				const uint8_t *hops, uint32_t src, uint32_t dst)
{
	unsigned want = hops[(size_t)ep_sw(f, src) * f->nswitches + ep_sw(f, dst)] + 1u;

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

/* About @budget pairs spread over the fabric (all classes, or CA pairs only). */
static inline void check_shortest(const struct fabric *f, const struct rt_routing *r, int ca_only,
			   uint64_t budget)
{
	uint8_t *hops = eng_hops(f);
	uint64_t pairs = (uint64_t)f->neps * f->neps, step = pairs / budget + 1, i;

	assert_non_null(hops);
	for (i = 0; i < pairs; i += step) {
		uint32_t src = (uint32_t)(i / f->neps), dst = (uint32_t)(i % f->neps);

		if (src != dst && (!ca_only || (is_ca(f, src) && is_ca(f, dst))))
			check_shortest_pair(f, r, hops, src, dst);
	}
	free(hops);
}

#endif
