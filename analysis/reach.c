/* SPDX-License-Identifier: MIT */
/**
 * DOC: switch-to-switch reachability
 *
 * Every ordered pair of switches, as the LFTs deliver it, with the DLID
 * the routing gives the pair: per destination switch, the LFTs form a
 * functional graph over the switches, resolved once for every source
 * (an_fwd_resolve()), so all pairs cost O(switches^2): about 8 ms for 864
 * switches. Switch i is endpoint i (fabric->eps lists the switches' port 0
 * first).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

struct reach {
	const struct fabric *f;
	const struct rt_routing *r;
	struct an_ctx c;
	struct an_fwd w;
	struct an_reach *out;
	uint32_t max_examples;
};

static void record(struct reach *st, uint32_t s, uint32_t d, unsigned dlid, enum an_fail res)
{
	struct an_reach *out = st->out;

	out->pairs++;
	if (res == AN_DELIVERED)
		return;
	out->unreachable++;
	out->cannot[s]++;
	out->from[d]++;
	if (out->nex < st->max_examples)
		out->ex[out->nex++] = (struct an_example){ s, d, (uint16_t)dlid, (uint8_t)res };
}

/*
 * Every source switch towards switch @d: one resolution per LID of @d's
 * range that some source uses (one in all, since switches have LMC 0).
 */
static void reach_dest(struct reach *st, uint32_t d)
{
	unsigned base = fab_ep_lid(st->f, d), nlids = 1u << fab_ep_lmc(st->f, d);
	uint32_t n = st->f->nswitches;

	for (uint32_t s = 0; !base && s < n; s++)
		if (s != d)
			record(st, s, d, 0, AN_NO_ENTRY);
	for (unsigned off = 0; base && off < nlids; off++) {
		int resolved = 0;

		for (uint32_t s = 0; s < n; s++) {
			unsigned dlid = rt_dlid(st->r, st->f, s, d);

			if (s == d || dlid != base + off)
				continue;
			if (!resolved)
				an_fwd_resolve(&st->w, &st->c, dlid, d);
			resolved = 1;
			record(st, s, d, dlid, (enum an_fail)st->w.res[s]);
		}
	}
}

int an_reach_switches(const struct fabric *f, const struct rt_routing *r, uint32_t max_examples,
		      struct an_reach *out, struct fab_err *err)
{
	struct reach st = { .f = f, .r = r, .out = out, .max_examples = max_examples };
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (an_fabrics_match(f, r, err))
		return -1;
	out->cannot = calloc((size_t)f->nswitches + 1, sizeof(*out->cannot));
	out->from = calloc((size_t)f->nswitches + 1, sizeof(*out->from));
	out->ex = calloc((size_t)max_examples + 1, sizeof(*out->ex));
	if (out->cannot && out->from && out->ex && !an_ctx_init(&st.c, f, r)) {
		if (!an_fwd_init(&st.w, f)) {
			for (uint32_t d = 0; d < f->nswitches; d++)
				reach_dest(&st, d);
			rc = 0;
			an_fwd_fini(&st.w);
		}
		an_ctx_fini(&st.c);
	}
	if (rc) {
		fab_err_set(err, "out of memory resolving %u switches", f->nswitches);
		an_reach_free(out);
	}
	return rc;
}

void an_reach_free(struct an_reach *out)
{
	free(out->cannot);
	free(out->from);
	free(out->ex);
	memset(out, 0, sizeof(*out));
}
