/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - VLs: switch destinations on the CAs' VL or on one of their own
 *
 * A repair never changes a path SL; the base decides the VLs. sftree and
 * ftree bases run every pair on SL 0 (one VL): there the subtree rule
 * (ftdlr_sn.c) or the label rule for every LID keeps the whole routing
 * acyclic. ftdlr's own base (its route hook) runs every pair towards a
 * switch on SL 1, which the default SL2VL table maps to VL 1 on every
 * switch with two data VLs or more (the brief's plan: static SL 1 -> VL 1):
 * VL 0 carries CA destinations only, repaired by the label rule inside
 * each fault's group, VL 1 switch destinations only, repaired by the
 * subtree rule, and its dependency graph is checked here (few LIDs: the
 * switches').
 *
 * Switch LIDs the repair left without a way, and on a VL of their own
 * those it touched and then all of them when that VL is not acyclic, take
 * their entries from the base's engine run on the current fabric (sftree
 * when the base routes every switch pair, else ftree), counted as
 * recomputed. With the subtree rule none was, on any set of up to 3 link
 * faults of the 4-ary 3-tree the unit tests try.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr/ftdlr_impl.h"

/* The static plan of ftdlr's route hook gives switch destinations a VL of their own. */
unsigned fd_switch_sl(const struct fd *x)
{
	const struct fabric *bf = x->bf;
	const struct rt_routing *br = x->br;
	int sl = -1;

	if (!br->path_sl)
		return 0;
	for (uint32_t s = 0; s < bf->neps; s++)
		for (uint32_t d = 0; d < bf->neps; d++) {
			int sw = bf->nodes[bf->eps[d].node].type == FAB_SWITCH;
			unsigned v = rt_path_sl(br, s, d);

			if (s == d)
				continue;
			if (sw && sl < 0)
				sl = (int)v;
			if ((sw && v != (unsigned)sl) || (!sw && v == (unsigned)sl))
				return 0;
		}
	return sl > 0 ? (unsigned)sl : 0;
}

/* The base routes every switch LID from every switch (sftree does, ftree does not). */
static int base_full(const struct fd *x)
{
	const struct fabric *bf = x->bf;

	for (uint32_t d = 0; d < x->nsw; d++) {
		unsigned lid = fab_port(bf, bf->switches[d], 0)->lid;

		for (uint32_t s = 0; lid && s < x->nsw; s++)
			if (rt_lft_get(x->br, s, lid) == RT_NO_PORT)
				return 0;
	}
	return 1;
}

/*
 * Take the entries of the switch LIDs marked in @which (all when NULL) from
 * @full, the base's engine run on the current fabric. Path SLs stay.
 * Return: 0, or -1 when out of memory.
 */
static int take_switch_lids(struct fd *x, const struct rt_routing *full, const uint8_t *which)
{
	const struct fabric *cf = x->cf;

	x->recount = 1;
	for (uint32_t d = 0; d < cf->neps; d++) {
		unsigned lid = fab_ep_lid(cf, d);

		if (cf->nodes[cf->eps[d].node].type != FAB_SWITCH || !lid || (which && !which[lid]))
			continue;
		for (uint32_t s = 0; s < x->nsw; s++) {
			uint32_t c = x->cur[s];
			uint8_t port, *row;

			if (fd_dead(x, s) || rt_lft(x->r, c)[lid] == (port = rt_lft_get(full, c, lid)))
				continue;
			if (!(row = fd_row(x, c)))
				return -1;
			row[lid] = port;
		}
	}
	return 0;
}

/* Switch-LID entries of x->r that differ from the base. */
static uint64_t switch_lid_changes(const struct fd *x)
{
	const struct fabric *cf = x->cf;
	uint64_t n = 0;

	for (uint32_t d = 0; d < cf->neps; d++) {
		unsigned lid = fab_ep_lid(cf, d);

		if (cf->nodes[cf->eps[d].node].type != FAB_SWITCH || !lid)
			continue;
		for (uint32_t s = 0; s < x->nsw; s++)
			n += !fd_dead(x, s) &&
			     rt_lft_get(x->r, x->cur[s], lid) != rt_lft_get(x->br, s, lid);
	}
	return n;
}

/* The base's engine (sftree when the base routes every switch pair, else ftree) on @cf. */
static struct rt_routing *full_route(const struct fd *x, struct fab_err *err)
{
	const struct engine *e = base_full(x) ? &eng_sftree : &eng_ftree;
	struct eng_req q = { .fabric = x->cf };
	struct eng_args a = { .schema = NULL };
	struct eng_res res;

	memset(&res, 0, sizeof(res));
	if (e->route(&q, &a, &res, err) != ENG_OK) {
		rt_free(res.routing);
		return NULL;
	}
	return res.routing;
}

/*
 * The switch destinations' paths (on @sl, which no pair towards a CA uses:
 * switch_sl()) have an acyclic dependency graph: 1, 0, or -1.
 */
static int switch_paths_acyclic(struct fd *x, unsigned sl, struct fab_err *err)
{
	struct ftdlr_trans t;

	if (ftdlr_transition_sls(x->cf, x->cf, x->r, x->r, 1u << sl, 1, &t, err))
		return -1;
	return t.acyclic;
}

/* See the DOC comment. */
int fd_vls(struct fd *x, struct fab_err *err)
{
	struct rt_routing *full = NULL;
	unsigned sl = x->st.switch_sl;
	int broken = 0, ok = 1;

	if (!x->st.lids)
		return 0;	/* nothing repaired: the base as it is */
	for (uint32_t l = 0; l < x->br->lft_len; l++)
		broken |= x->sw_broken[l];
	if (broken) {
		if (!(full = full_route(x, err)))
			return -1;
		if (take_switch_lids(x, full, x->sw_broken))
			goto fail;
	}
	if (sl && (ok = switch_paths_acyclic(x, sl, err)) < 0)
		goto fail;
	if (!ok) {	/* the switch LIDs the repair touched, then all of them */
		if (!full && !(full = full_route(x, err)))
			return -1;
		if (take_switch_lids(x, full, x->sw_touched) ||
		    (ok = switch_paths_acyclic(x, sl, err)) < 0 ||
		    (!ok && take_switch_lids(x, full, NULL)))
			goto fail;
	}
	if (full)
		x->st.sw_fallback = switch_lid_changes(x);
	rt_free(full);
	return 0;
fail:
	rt_free(full);
	return -1;
}
