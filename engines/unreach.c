/* SPDX-License-Identifier: MIT */
/**
 * DOC: the pairs a routing leaves unreachable, for the engines' notes
 *
 * eng_run() ends every routing's notes with the ordered endpoint pairs it
 * leaves unreachable, by class (CA->CA, CA->switch, switch->CA,
 * switch->switch), so that no engine can leave pairs out unmentioned. When
 * the run evaluates the routing the figures are the evaluator's; else
 * eng_unreachable() counts them: per destination LID, each switch's fate
 * is found once by following the LFTs (delivered, a missing entry, a loop,
 * a wrong end), and the sources hanging off a switch share its fate. Cost:
 * O(endpoints x switches) time, O(switches) memory; O(endpoints^2) when
 * sources use different DLIDs of a destination (LMC with path offsets).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"

enum { UNKNOWN = 0, YES = 1, NO = 2, VISITING = 3 };

/* Does the packet for @lid, at switch @s, end at endpoint @d? Memoised in @st. */
static int reaches(const struct fabric *f, const struct rt_routing *r, uint32_t d, unsigned lid,
		   uint32_t s, uint8_t *st, uint32_t *stack)
{
	uint32_t dn = f->eps[d].node, n = 0;
	unsigned dp = f->eps[d].port;
	int ok;

	for (;;) {
		uint32_t node = f->switches[s], t;
		unsigned p;
		const struct fab_port *x;

		if (st[s] == YES || st[s] == NO) {
			ok = st[s] == YES;
			break;
		}
		if (st[s] == VISITING) {	/* a loop */
			ok = 0;
			break;
		}
		st[s] = VISITING;
		stack[n++] = s;
		p = rt_lft_get(r, s, lid);
		if (p == 0 || p == RT_NO_PORT || p > f->nodes[node].nports) {
			ok = p == 0 && dn == node;
			break;
		}
		x = fab_port(f, node, p);
		if (x->peer == FAB_NONE || f->nodes[x->peer].type != FAB_SWITCH) {
			ok = x->peer == dn && x->peer_port == dp;
			break;
		}
		t = f->nodes[x->peer].swidx;
		s = t;
	}
	while (n)
		st[stack[--n]] = ok ? YES : NO;
	return ok;
}

/* The fate of source endpoint @e towards @d over @lid. */
static int source_reaches(const struct fabric *f, const struct rt_routing *r, uint32_t e,
			  uint32_t d, unsigned lid, uint8_t *st, uint32_t *stack)
{
	const struct fab_node *n = &f->nodes[f->eps[e].node];
	const struct fab_port *x;

	if (!lid)
		return 0;
	if (n->type == FAB_SWITCH)
		return reaches(f, r, d, lid, n->swidx, st, stack);
	x = fab_port(f, f->eps[e].node, f->eps[e].port);
	if (x->peer == FAB_NONE)
		return 0;
	if (f->nodes[x->peer].type != FAB_SWITCH)
		return x->peer == f->eps[d].node && x->peer_port == f->eps[d].port;
	return reaches(f, r, d, lid, f->nodes[x->peer].swidx, st, stack);
}

static unsigned pair_class(const struct fabric *f, uint32_t s, uint32_t d)
{
	int ss = f->nodes[f->eps[s].node].type == FAB_SWITCH;
	int ds = f->nodes[f->eps[d].node].type == FAB_SWITCH;

	return ss ? (ds ? AN_SW_SW : AN_SW_CA) : (ds ? AN_CA_SW : AN_CA_CA);
}

/* Every pair, source by source: when sources use different DLIDs of a destination. */
static void count_by_source(const struct fabric *f, const struct rt_routing *r, uint32_t d,
			    size_t ns, uint8_t *st, uint32_t *stack, uint64_t out[AN_NCLASSES])
{
	unsigned base = fab_ep_lid(f, d), range = 1u << fab_ep_lmc(f, d);

	memset(st, UNKNOWN, ns * range);
	for (uint32_t e = 0; e < f->neps; e++) {
		unsigned lid = rt_dlid(r, f, e, d), k = base ? lid - base : 0;

		if (e != d && !source_reaches(f, r, e, d, lid, st + ns * (k < range ? k : 0), stack))
			out[pair_class(f, e, d)]++;
	}
}

/*
 * One DLID per destination: a switch's fate is its own and that of the CA
 * ports hanging off it (@ca_on[s] of them); CA ports linked to no switch
 * are in @odd.
 */
static void count_by_switch(const struct fabric *f, const struct rt_routing *r, uint32_t d,
			    const uint32_t *ca_on, const uint32_t *odd, uint32_t nodd, uint8_t *st,
			    uint32_t *stack, uint64_t out[AN_NCLASSES])
{
	unsigned lid = fab_ep_lid(f, d), dsw = f->nodes[f->eps[d].node].type == FAB_SWITCH;
	const struct fab_port *dp = fab_port(f, f->eps[d].node, f->eps[d].port);
	uint32_t home = !dsw && dp->peer != FAB_NONE && f->nodes[dp->peer].type == FAB_SWITCH ?
			f->nodes[dp->peer].swidx : FAB_NONE;

	memset(st, UNKNOWN, f->nswitches ? f->nswitches : 1);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		int mine = f->switches[s] == f->eps[d].node;

		if (lid && reaches(f, r, d, lid, s, st, stack))
			continue;
		out[dsw ? AN_SW_SW : AN_SW_CA] += !mine;
		out[dsw ? AN_CA_SW : AN_CA_CA] += ca_on[s] - (s == home);
	}
	for (uint32_t i = 0; i < nodd; i++)
		if (odd[i] != d && !source_reaches(f, r, odd[i], d, lid, st, stack))
			out[pair_class(f, odd[i], d)]++;
}

int eng_unreachable(const struct fabric *f, const struct rt_routing *r,
		    uint64_t out[AN_NCLASSES])
{
	size_t ns = f->nswitches ? f->nswitches : 1;
	uint8_t *st = malloc(ns * (r->dlid_off ? 128 : 1));
	uint32_t *stack = malloc(ns * sizeof(*stack));
	uint32_t *ca_on = calloc(ns, sizeof(*ca_on));
	uint32_t *odd = malloc(((size_t)f->neps + 1) * sizeof(*odd)), nodd = 0;
	int rc = -1;

	memset(out, 0, AN_NCLASSES * sizeof(*out));
	if (!st || !stack || !ca_on || !odd)
		goto out;
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_port *x = fab_port(f, f->eps[e].node, f->eps[e].port);

		if (f->nodes[f->eps[e].node].type == FAB_SWITCH)
			continue;
		if (x->peer != FAB_NONE && f->nodes[x->peer].type == FAB_SWITCH)
			ca_on[f->nodes[x->peer].swidx]++;
		else
			odd[nodd++] = e;
	}
	for (uint32_t d = 0; d < f->neps; d++) {
		if (r->dlid_off)
			count_by_source(f, r, d, ns, st, stack, out);
		else
			count_by_switch(f, r, d, ca_on, odd, nodd, st, stack, out);
	}
	rc = 0;
out:
	free(st);
	free(stack);
	free(ca_on);
	free(odd);
	return rc;
}

const char *eng_unreachable_text(const uint64_t n[AN_NCLASSES], char *buf, size_t len)
{
	if (!n[AN_CA_CA] && !n[AN_CA_SW] && !n[AN_SW_CA] && !n[AN_SW_SW])
		snprintf(buf, len, "unreachable pairs: none");
	else
		snprintf(buf, len, "unreachable pairs: CA->CA %llu, CA->switch %llu, switch->CA %llu, "
			 "switch->switch %llu", (unsigned long long)n[AN_CA_CA],
			 (unsigned long long)n[AN_CA_SW], (unsigned long long)n[AN_SW_CA],
			 (unsigned long long)n[AN_SW_SW]);
	return buf;
}
