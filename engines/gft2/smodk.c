/* SPDX-License-Identifier: MIT */
/**
 * DOC: smodk - S-mod-k on 2-level generalized fat trees (papers/003 Section III)
 *
 * The top switch depends on the source, which a destination-based LFT
 * cannot see: each node owns one LID per top switch (LMC = ceil(log2 m)),
 * offset o goes through TSW_{o mod m}, and source s uses offset s mod m of
 * every destination (what a PathRecord returns): pair (s, d) crosses
 * TSW_{s mod m}. The recognition, numbering and switch routes are gft2.c's.
 */
#include <stdio.h>

#include "engines/gft2/gft2.h"

static unsigned smodk_top(const struct gft2 *g, const void *ctx, uint32_t d, unsigned off)
{
	(void)ctx;
	(void)d;
	return off % g->m;
}

static unsigned smodk_off(const struct gft2 *g, const void *ctx, uint32_t s, uint32_t d)
{
	(void)ctx;
	(void)d;
	return s % g->m;
}

static unsigned smodk_lmc(const struct fabric *f, const struct eng_args *a)
{
	struct fab_err err;
	struct gft2 g;
	unsigned lmc;

	(void)a;
	if (gft2_recognise(f, &g, &err))
		return 0;
	lmc = gft2_log2(g.m);
	if (!gft2_lmc_fits(f, &g, lmc))
		lmc = 0;
	gft2_free(&g);
	return lmc;
}

static int smodk_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		struct fab_err *err)
{
	const struct fabric *f = q->fabric;
	struct rt_routing **out = &res->routing;
	struct gft2_rule rule = { .name = "smodk", .lmc_why = "one LID per top switch",
				  .top = smodk_top, .src_off = smodk_off };
	struct gft2 g;
	char notes[200];
	int rc;

	(void)a;
	*out = NULL;
	rc = gft2_recognise(f, &g, err);
	if (rc)
		return rc;
	rule.lmc = gft2_log2(g.m);
	if (!gft2_lmc_fits(f, &g, rule.lmc)) {
		fab_err_set(err, "smodk needs LMC %u (one LID per top switch, %u top switches): "
			    "%u CA ports with %u LIDs each do not fit in the unicast LID space",
			    rule.lmc, g.m, g.r * g.n, 1u << rule.lmc);
		gft2_free(&g);
		return ENG_NOT_APPLICABLE;
	}
	snprintf(notes, sizeof(notes), "T(%u+%u, %u): LMC %u; LID offset o through top switch "
		 "o mod %u, node s uses offset s mod %u", g.n, g.m, g.r, rule.lmc, g.m, g.m);
	rc = gft2_route(f, &g, &rule, notes, out, err);
	gft2_free(&g);
	return rc;
}

const struct engine eng_smodk = {
	.name = "smodk",
	.summary = "S-mod-k on 2-level generalized fat trees T(n+m, r) (Nienaber, Mahapatra and Yuan, "
		   "\"Improving Performance of Deterministic Single-path Routing on 2-Level Generalized "
		   "Fat-trees\"): pair (s, d) through top switch s mod m; needs LMC ceil(log2 m), one LID "
		   "per top switch",
	.options = NULL,
	.deadlock_free = 1,
	.vls = 1,
	.lmc = smodk_lmc,
	.route = smodk_route,
};
