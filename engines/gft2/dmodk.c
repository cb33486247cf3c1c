/* SPDX-License-Identifier: MIT */
/**
 * DOC: dmodk - D-mod-k on 2-level generalized fat trees (papers/003 Section III)
 *
 * Offset o of node d goes through top switch TSW_{(d + o) mod m}; with LMC
 * 0 exactly D-mod-k's TSW_{d mod m}. Every source uses the base LID. The
 * recognition, numbering and switch routes are gft2.c's.
 */
#include <stdio.h>

#include "engines/gft2/gft2.h"

static unsigned dmodk_top(const struct gft2 *g, const void *ctx, uint32_t d, unsigned off)
{
	(void)ctx;
	return (d + off) % g->m;
}

static int dmodk_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		struct fab_err *err)
{
	const struct fabric *f = q->fabric;
	struct rt_routing **out = &res->routing;
	const struct gft2_rule rule = { .name = "dmodk", .lmc = 0, .lmc_why = "",
					.top = dmodk_top };
	struct gft2 g;
	char notes[160];
	int rc;

	(void)a;
	*out = NULL;
	rc = gft2_recognise(f, &g, err);
	if (rc)
		return rc;
	snprintf(notes, sizeof(notes), "T(%u+%u, %u): pair (s, d) through top switch d mod %u",
		 g.n, g.m, g.r, g.m);
	rc = gft2_route(f, &g, &rule, notes, out, err);
	gft2_free(&g);
	return rc;
}

const struct engine eng_dmodk = {
	.name = "dmodk",
	.summary = "D-mod-k on 2-level generalized fat trees T(n+m, r) (Nienaber, Mahapatra and Yuan, "
		   "\"Improving Performance of Deterministic Single-path Routing on 2-Level Generalized "
		   "Fat-trees\"): pair (s, d) through top switch d mod m",
	.options = NULL,
	.deadlock_free = 1,
	.vls = 1,
	.lmc = NULL,
	.route = dmodk_route,
};
