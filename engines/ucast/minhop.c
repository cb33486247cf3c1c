/* SPDX-License-Identifier: MIT */
/**
 * DOC: minhop - OpenSM's min-hop routing
 *
 * Every switch sends every LID along a shortest path, counted in switch
 * hops: hop distances between all switches come from one BFS per switch
 * (eng_hops()), and the output ports of switch s towards a LID hanging off
 * switch t are those whose neighbour w is one hop closer to t
 * (hops(w, t) + 1 == hops(s, t)). Switch LIDs (port 0) and every LID of an
 * LMC range are routed; a LID of a CA or switch on s itself leaves by the
 * CA's port or port 0.
 *
 * Among those ports, each LID takes the least loaded one as OpenSM's
 * minhop does (engines/ucast/ucast.c: OpenSM's order of LIDs, per-port LID
 * counts, LMC ranges spread over remote systems and nodes). With the
 * default options the tables are OpenSM 3.3's, entry for entry; the option
 * count_switch_lids=1 lets switch LIDs count in the per-port totals
 * (OpenSM's port_profile_switch_nodes), which spreads them too instead of
 * sending them all through the port that is least loaded with CA LIDs.
 *
 * Paths are as short as possible but not deadlock-free: on a ring the
 * shortest paths chase each other round it. One VL. Not applicable when the
 * switches do not form one connected graph (or, beyond IB practice, when two
 * switches are more than 254 hops apart).
 *
 * Cost: O(switches x (switch links + LIDs x candidates)) time, switches^2
 * bytes for the hop table.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "engines/engine.h"
#include "engines/ucast/ucast.h"

static const struct eng_opt minhop_opts[] = {
	{ .name = "count_switch_lids", .type = ENG_OPT_BOOL, .defval = "0",
	  .help = "1: LIDs of switches count when balancing ports (OpenSM's port_profile_switch_nodes); "
	  "0: only CA and router LIDs count, as OpenSM does by default" },
	{ .name = NULL },
};

struct minhop {
	const struct fabric *f;
	const struct ucast_adj *adj;
	const uint8_t *hops;
};

/* Ports of switch @s one hop closer to each destination switch. */
static void minhop_cands(const void *ctx, uint32_t s, struct ucast_cands *c)
{
	const struct minhop *m = ctx;
	const struct ucast_adj *adj = m->adj;
	uint32_t ns = m->f->nswitches, n = 0;
	const uint8_t *hs = m->hops + (size_t)s * ns;

	for (uint32_t t = 0; t < ns; t++) {
		c->off[t] = n;
		if (t == s || hs[t] == UINT8_MAX)
			continue;
		for (uint32_t k = adj->off[s]; k < adj->off[s + 1]; k++)
			if (m->hops[(size_t)adj->peer[k] * ns + t] + 1u == hs[t])
				c->port[n++] = adj->port[k];
	}
	c->off[ns] = n;
}

/* ENG_NOT_APPLICABLE with the reason when some switch cannot reach another. */
static int check_reach(const struct fabric *f, const struct ucast_adj *adj, const uint8_t *hops,
		       unsigned *diameter, struct fab_err *err)
{
	uint32_t a, b, ns = f->nswitches;
	int split = ucast_split(f, adj, &a, &b);

	if (split < 0) {
		fab_err_set(err, "out of memory");
		return ENG_ERROR;
	}
	if (split) {
		fab_err_set(err, "the switches are not all connected: '%s' cannot reach '%s'",
			    FAB_LABEL(f, f->switches[a]), FAB_LABEL(f, f->switches[b]));
		return ENG_NOT_APPLICABLE;
	}
	*diameter = 0;
	for (a = 0; a < ns; a++)
		for (b = 0; b < ns; b++) {
			unsigned h = hops[(size_t)a * ns + b];

			if (h == UINT8_MAX) {
				fab_err_set(err, "switches '%s' and '%s' are more than %u hops apart",
					    FAB_LABEL(f, f->switches[a]), FAB_LABEL(f, f->switches[b]),
					    UINT8_MAX - 1);
				return ENG_NOT_APPLICABLE;
			}
			if (h > *diameter)
				*diameter = h;
		}
	return ENG_OK;
}

static char *minhop_notes(unsigned diameter, int count_sw)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "shortest paths (at most %u switch-to-switch hops), ports "
		 "balanced over %s LIDs", diameter, count_sw ? "all" : "CA and router");
	return strdup(buf);
}

static int minhop_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		struct fab_err *err)
{
	const struct fabric *f = q->fabric;
	struct rt_routing **out = &res->routing;
	struct ucast_adj adj = { 0 };
	struct ucast_opts o = { 0 };
	struct rt_routing *r = NULL;
	uint8_t *hops = NULL;
	unsigned diameter = 0;
	int rc = ENG_ERROR;

	*out = NULL;
	o.count_switch_lids = eng_arg_bool(a, "count_switch_lids");
	if (ucast_adj_build(f, &adj) || !(hops = eng_hops(f))) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	rc = check_reach(f, &adj, hops, &diameter, err);
	if (rc != ENG_OK)
		goto out;
	rc = ENG_ERROR;
	r = rt_new(f);
	if (!r || ucast_fill(f, r, &adj, &o, minhop_cands,
			     &(struct minhop){ .f = f, .adj = &adj, .hops = hops }) ||
	    !(r->notes = minhop_notes(diameter, o.count_switch_lids))) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	*out = r;
	r = NULL;
	rc = ENG_OK;
out:
	rt_free(r);
	free(hops);
	ucast_adj_free(&adj);
	return rc;
}

const struct engine eng_minhop = {
	.name = "minhop",
	.summary = "OpenSM's min-hop: shortest paths, LIDs balanced over ports (not deadlock-free)",
	.options = minhop_opts,
	.deadlock_free = 0,
	.vls = 1,
	.route = minhop_route,
};
