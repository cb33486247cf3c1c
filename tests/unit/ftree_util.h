/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the fat-tree engine tests (test_ftree.c, test_sftree.c):
 * generating fabrics with faults, routing, evaluating, and counting the
 * CA pairs that have an up/down path.
 */
#ifndef FABROUTE_FTREE_UTIL_H
#define FABROUTE_FTREE_UTIL_H

#include <time.h>

#include "tests/unit/testutil.h"
#include "tests/unit/engine_call.h"

#include "analysis/analysis.h"
#include "engines/engine.h"
#include "gen/gen.h"


/* --- helpers ------------------------------------------------------------------ */

/* Build "family k=v ..." (space-separated parameters). */
static inline struct fabric *gen(const char *spec)
{
	struct fab_err err = { { 0 } };
	char buf[256], *save = NULL, *tok;
	const char *kv[16];
	size_t n = 0;
	struct fabric *f;

	snprintf(buf, sizeof(buf), "%s", spec);
	tok = strtok_r(buf, " ", &save);
	for (char *p = strtok_r(NULL, " ", &save); p && n < 16; p = strtok_r(NULL, " ", &save))
		kv[n++] = p;
	f = gen_build(tok, kv, n, 1, &err);
	if (!f)
		fail_msg("gen %s: %s", spec, err.msg);
	return f;
}

/* @spec with @links random link faults and @sws random switch faults drawn with @seed. */
static inline struct fabric *gen_faulty(const char *spec, unsigned links, unsigned sws, uint64_t seed)
{
	struct fab_err err = { { 0 } };
	struct gen_faults g = { .random_links = links, .random_switches = sws, .seed = seed };
	struct fabric *f = gen(spec);

	if ((links || sws) && gen_faults_apply(&f, &g, &err))
		fail_msg("faults on %s: %s", spec, err.msg);
	return f;
}

static inline struct rt_routing *route(const struct engine *e, const struct fabric *f)
{
	struct fab_err err = { { 0 } };
	struct rt_routing *r = NULL;
	int rc = eng_call(e, f, NULL, &r, &err);

	if (rc != ENG_OK)
		fail_msg("%s: status %d: %s", e->name, rc, err.msg);
	assert_non_null(r);
	assert_non_null(r->notes);
	return r;
}

static inline void eval(const struct fabric *f, const struct rt_routing *r, int all_lids,
		 struct an_report *rep)
{
	struct fab_err err = { { 0 } };
	struct an_opts o = { .all_lids = all_lids };

	if (an_evaluate(f, r, &o, rep, &err))
		fail_msg("an_evaluate: %s", err.msg);
}

static inline void levels(const struct fabric *f, struct fab_shape *s)
{
	struct fab_err err = { { 0 } };

	if (fab_shape(f, s, &err))
		fail_msg("fab_shape: %s", err.msg);
}

static inline uint32_t sw_of(const struct fabric *f, const char *desc)
{
	unsigned count;
	uint32_t n = fab_node_by_desc(f, desc, &count);

	assert_int_not_equal(n, FAB_NONE);
	return f->nodes[n].swidx;
}

/* The switch a CA endpoint hangs off. */
static inline uint32_t leaf_of(const struct fabric *f, uint32_t ep)
{
	return f->nodes[fab_port(f, f->eps[ep].node, f->eps[ep].port)->peer].swidx;
}

static inline int is_ca(const struct fabric *f, uint32_t ep)
{
	return f->nodes[f->eps[ep].node].type != FAB_SWITCH;
}

/*
 * CA-to-CA pairs without an up/down path ([sibling hop] up* down*), counted
 * from the cabling alone: for each destination leaf, the switches with a
 * way down to it, the switches with a way up to one of those, the leaves
 * with a sibling link to one of those.
 */
static inline uint64_t updown_holes(const struct fabric *f)
{
	uint32_t n = f->nswitches, *q = malloc(((size_t)n + 1) * sizeof(*q));
	uint8_t *down = malloc(n + 1), *up = malloc(n + 1);
	uint32_t *cas = calloc((size_t)n + 1, sizeof(*cas));
	struct fab_shape sh;
	uint64_t holes = 0;

	levels(f, &sh);
	for (uint32_t e = 0; e < f->neps; e++)
		if (is_ca(f, e))
			cas[leaf_of(f, e)]++;
	for (uint32_t d = 0; d < n; d++) {
		uint32_t head = 0, tail = 0;

		if (!cas[d])
			continue;
		memset(down, 0, n);
		memset(up, 0, n);
		down[d] = up[d] = 1;
		q[tail++] = d;
		while (head < tail) {	/* up from d: switches with a way down to d */
			uint32_t s = q[head++];

			for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
				uint32_t t = fab_sw_peer(f, s, p);

				if (t != FAB_NONE && sh.level[t] == sh.level[s] + 1 && !down[t]) {
					down[t] = up[t] = 1;
					q[tail++] = t;
				}
			}
		}
		for (uint32_t i = 0; i < tail; i++) {	/* down from those: ways up */
			uint32_t s = q[i];

			for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
				uint32_t t = fab_sw_peer(f, s, p);

				if (t != FAB_NONE && sh.level[t] + 1 == sh.level[s] && !up[t]) {
					up[t] = 1;
					q[tail++] = t;
				}
			}
		}
		for (uint32_t s = 0; s < n; s++) {
			int ok = up[s];

			for (unsigned p = 1; !ok && sh.level[s] == 1 &&
			     p <= f->nodes[f->switches[s]].nports; p++) {
				uint32_t t = fab_sw_peer(f, s, p);

				ok = t != FAB_NONE && sh.level[t] == 1 && up[t];
			}
			if (!ok)
				holes += (uint64_t)cas[s] * cas[d];
		}
	}
	fab_shape_free(&sh);
	free(q);
	free(down);
	free(up);
	free(cas);
	return holes;
}

/*
 * Every entry ftree made for a CA LID is sftree's too: end-node paths are
 * ftree's wherever ftree routes them. Returns the CA-LID entries sftree
 * added where ftree had none.
 */
static inline uint64_t same_ca_entries(const struct fabric *f, const struct rt_routing *ft,
				const struct rt_routing *sf)
{
	uint64_t added = 0;

	for (uint32_t e = 0; e < f->neps; e++) {
		unsigned lid = fab_ep_lid(f, e);

		for (uint32_t s = 0; s < f->nswitches && is_ca(f, e); s++) {
			uint8_t a = rt_lft(ft, s)[lid], b = rt_lft(sf, s)[lid];

			if (a != RT_NO_PORT && a != b)
				fail_msg("switch %s, CA LID %u: ftree port %u, sftree port %u",
					 fab_desc(f, f->switches[s]), lid, a, b);
			added += a == RT_NO_PORT && b != RT_NO_PORT;
		}
	}
	return added;
}

#endif
