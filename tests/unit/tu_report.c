/* SPDX-License-Identifier: MIT */
/* Comparing evaluation reports, figure by figure. */
#include "tests/unit/testutil.h"

#define SAME(field, what)                                                          \
	do {                                                                        \
		if ((a->field) != (b->field))                                       \
			fail_msg("%s: %s differs: %llu, reference %llu", what, #field, \
				 (unsigned long long)(a->field),                     \
				 (unsigned long long)(b->field));                    \
	} while (0)

static void same_conn(const struct an_conn *a, const struct an_conn *b, const char *what)
{
	for (unsigned k = 0; k < AN_NCLASSES; k++) {
		SAME(pairs[k], what);
		SAME(unreachable[k], what);
		for (unsigned r = 0; r < AN_NFAILS; r++)
			SAME(by_fail[k][r], what);
		SAME(nex[k], what);
		for (uint32_t i = 0; i < a->nex[k]; i++) {
			SAME(ex[k][i].src, what);
			SAME(ex[k][i].dst, what);
			SAME(ex[k][i].dlid, what);
			SAME(ex[k][i].fail, what);
		}
	}
	SAME(max_hops, what);
}

static void same_cdg(const struct an_cdg *a, const struct an_cdg *b, const char *what)
{
	SAME(vls_used, what);
	SAME(cross_deps, what);
	SAME(cross_cycle, what);
	SAME(deadlock_free, what);
	for (unsigned v = 0; v < AN_VLS; v++) {
		SAME(vl[v].paths, what);
		SAME(vl[v].channels, what);
		SAME(vl[v].deps, what);
		SAME(vl[v].acyclic, what);
		SAME(vl[v].cycle_len, what);
		for (uint32_t i = 0; i < a->vl[v].cycle_len; i++) {
			SAME(vl[v].cycle[i].node, what);
			SAME(vl[v].cycle[i].port, what);
			SAME(vl[v].cycle[i].vl, what);
		}
	}
}

static void same_load(const struct an_load *a, const struct an_load *b, const char *what)
{
	SAME(sw_channels, what);
	SAME(max, what);
	for (unsigned i = 0; i < AN_LOAD_BUCKETS; i++)
		SAME(hist[i], what);
	SAME(max_node, what);
	SAME(max_port, what);
	SAME(balance_max, what);
	SAME(balance_node, what);
	if (a->mean != b->mean || a->ca_max_load != b->ca_max_load)
		fail_msg("%s: mean %g / %g or CA load %g / %g differ", what, a->mean, b->mean,
			 a->ca_max_load, b->ca_max_load);
}

void tu_same_report(const struct an_report *a, const struct an_report *b, const char *what)
{
	same_conn(&a->conn, &b->conn, what);
	same_cdg(&a->cdg, &b->cdg, what);
	same_load(&a->load, &b->load, what);
}
