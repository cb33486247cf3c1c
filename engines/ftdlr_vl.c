/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - VLs: rule-abiding paths on one VL, U-turns outside the rule on another
 *
 * Every path to a CA LID is up*down* with U-turns that raise the label's
 * rank, so those paths alone are deadlock-free on the base's one VL. Paths
 * to switch LIDs may turn outside the rule: sftree's switch pairs turn up
 * through its subtree root in every direction, and a switch LID that only a
 * dead link's upper end leads to is reached by a U-turn back into that
 * end's (dirty) label. On a single VL such a turn and a detour close cycles
 * through the channels they share with CA traffic: on the 4-ary 3-tree
 * routed by sftree, 88 of the 128 single link faults would.
 *
 * So once something was repaired, the pairs whose destination is a switch
 * and whose path makes a U-turn that does not raise the label's rank move
 * to SL 1, which the default SL2VL table maps to VL 1 on every switch with
 * two data VLs or more. VL 0 then carries only rule-abiding paths (acyclic
 * by the rule), VL 1 the rest, whose dependency graph is checked here (its
 * paths are few: switch destinations only). A repair without such a pair
 * keeps every path SL; the path SLs of CA destinations never change. Switch
 * LIDs the rule left without a way, and all of them when VL 1 is not
 * acyclic, take their entries from the base's engine run on the current
 * fabric (sftree when the base routes every switch pair, else ftree),
 * counted as recomputed.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr_impl.h"

#define VL_SL 1u

enum { BT_UNKNOWN = 0, BT_BUSY, BT_GOOD, BT_BAD };

/* The switch after current switch @c towards @lid in x->r, FD_NONE if none. */
static uint32_t next_sw(const struct fd *x, uint32_t c, unsigned lid)
{
	uint8_t p = rt_lft_get(x->r, c, lid);
	uint32_t t = p == RT_NO_PORT || p == 0 ? FAB_NONE : eng_sw_peer(x->cf, c, p);

	return t == FAB_NONE ? FD_NONE : t;
}

/*
 * The U-turn (if any) at @b, entered from @a and left towards @c (current
 * switch indexes), does not raise the label's rank.
 */
static int bad_turn(const struct fd *x, const uint32_t *base, uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t ba = base[a], bb = base[b], bc = base[c];
	const uint32_t *lv = x->m.level;

	if (c == FD_NONE || lv[ba] <= lv[bb] || lv[bc] <= lv[bb])
		return 0;
	return fd_rank(x, bc) >= fd_rank(x, ba);
}

/* st[c] := BT_GOOD or BT_BAD: the path from current switch @c to @lid turns outside the rule. */
static uint8_t classify(const struct fd *x, const uint32_t *base, uint8_t *st, uint32_t *stack,
			uint32_t c, unsigned lid)
{
	uint32_t top = 0, cur = c;
	uint8_t res;

	while (st[cur] == BT_UNKNOWN) {
		uint32_t n = next_sw(x, cur, lid);

		st[cur] = BT_BUSY;
		stack[top++] = cur;
		if (n == FD_NONE) {
			st[cur] = BT_GOOD;
			top--;
			break;
		}
		cur = n;
	}
	res = st[cur] == BT_BUSY ? BT_BAD : st[cur];	/* BT_BUSY: a loop */
	while (top--) {
		uint32_t s = stack[top], n = next_sw(x, s, lid);

		if (res != BT_BAD && bad_turn(x, base, s, n, next_sw(x, n, lid)))
			res = BT_BAD;
		st[s] = res;
	}
	return st[c];
}

/* The switch a source endpoint's packets enter first (current index), FD_NONE if none. */
static uint32_t entry_sw(const struct fabric *f, uint32_t e)
{
	uint32_t n = f->eps[e].node;
	const struct fab_port *p = fab_port(f, n, f->eps[e].port);

	if (f->nodes[n].type == FAB_SWITCH)
		return f->nodes[n].swidx;
	if (p->peer == FAB_NONE || f->nodes[p->peer].type != FAB_SWITCH)
		return FD_NONE;
	return f->nodes[p->peer].swidx;
}

/* Move the switch-destination pairs that turn outside the rule to VL_SL. */
static int split(struct fd *x)
{
	const struct fabric *cf = x->cf;
	struct rt_routing *r = x->r;
	size_t n = (size_t)cf->nswitches + 1;
	uint32_t *base = malloc(n * sizeof(*base)), *stack = malloc(n * sizeof(*stack));
	uint8_t *st = malloc(n);

	if (!base || !stack || !st || rt_pairs_alloc(r)) {
		free(base);
		free(stack);
		free(st);
		return -1;
	}
	for (uint32_t s = 0; s < x->nsw; s++)
		if (!fd_dead(x, s))
			base[x->cur[s]] = s;
	for (uint32_t d = 0; d < cf->neps; d++) {
		unsigned lid = fab_ep_lid(cf, d);

		if (cf->nodes[cf->eps[d].node].type != FAB_SWITCH || !lid)
			continue;
		memset(st, BT_UNKNOWN, cf->nswitches);
		for (uint32_t e = 0; e < cf->neps; e++) {
			uint32_t s = entry_sw(cf, e);

			if (e == d || s == FD_NONE ||
			    classify(x, base, st, stack, s, lid) != BT_BAD)
				continue;
			r->path_sl[(size_t)e * r->neps + d] = VL_SL;
			x->st.sl_pairs++;
		}
	}
	free(base);
	free(stack);
	free(st);
	return 0;
}

/* Every pair on SL 0 in the base (the split needs SL 1 free). */
static int sls_free(const struct rt_routing *r)
{
	size_t n = (size_t)r->neps * r->neps;

	for (size_t i = 0; r->path_sl && i < n; i++)
		if (r->path_sl[i])
			return 0;
	return 1;
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
 * @full, the base's engine run on the current fabric, and put their pairs
 * back on the base's SLs.
 */
static void take_switch_lids(struct fd *x, const struct rt_routing *full, const uint8_t *which)
{
	const struct fabric *cf = x->cf;
	struct rt_routing *r = x->r;

	for (uint32_t d = 0; d < cf->neps; d++) {
		unsigned lid = fab_ep_lid(cf, d);
		uint32_t bd = fab_ep_by_port_guid(x->bf, fab_port(cf, cf->eps[d].node, 0)->guid);

		if (cf->nodes[cf->eps[d].node].type != FAB_SWITCH || !lid || (which && !which[lid]))
			continue;
		for (uint32_t s = 0; s < x->nsw; s++)
			if (!fd_dead(x, s))
				rt_lft(r, x->cur[s])[lid] = rt_lft_get(full, x->cur[s], lid);
		for (uint32_t e = 0; r->path_sl && e < cf->neps; e++) {
			uint32_t be = fab_ep_by_port_guid(x->bf, fab_port(cf, cf->eps[e].node,
							  cf->eps[e].port)->guid);

			r->path_sl[(size_t)e * r->neps + d] =
				x->br->path_sl ? x->br->path_sl[(size_t)be * x->br->neps + bd] : 0;
		}
	}
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

/* The pairs that turn outside the rule (if any) to SL 1. */
static int settle_vls(struct fd *x, struct fab_err *err)
{
	if (!sls_free(x->r))
		return 0;	/* the base uses other SLs: leave them */
	if (split(x)) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	if (x->st.sl_pairs)
		x->r->vls_used |= 1u << VL_SL;
	return 0;
}

/* The paths on SL 1 (VL 1) have an acyclic dependency graph: 1, 0, or -1 with @err. */
static int vl1_acyclic(struct fd *x, struct fab_err *err)
{
	struct ftdlr_trans t;

	if (!x->st.sl_pairs)
		return 1;
	if (ftdlr_transition_sls(x->cf, x->cf, x->r, x->r, 1u << VL_SL, &t, err))
		return -1;
	return t.acyclic;
}

/*
 * VL 0 then carries rule-abiding paths only, which the rule makes acyclic;
 * VL 1 the switch paths that turn outside it, checked here. When the rule
 * left a switch LID without a way, that LID's entries come from the base's
 * engine run on the current fabric first; when VL 1 is not acyclic, every
 * switch LID's: VL 1 then carries a subset of that engine's paths, which
 * it makes acyclic.
 */
int fd_vls(struct fd *x, struct fab_err *err)
{
	struct rt_routing *full = NULL;
	int broken = 0, ok;

	if (!x->st.lids)
		return 0;	/* nothing repaired: the base as it is */
	for (uint32_t l = 0; l < x->br->lft_len; l++)
		broken |= x->sw_broken[l];
	if (broken) {
		if (!(full = full_route(x, err)))
			return -1;
		take_switch_lids(x, full, x->sw_broken);
	}
	if (settle_vls(x, err) || (ok = vl1_acyclic(x, err)) < 0)
		goto fail;
	if (!ok) {
		if (!full && !(full = full_route(x, err)))
			return -1;
		take_switch_lids(x, full, NULL);
		x->st.sl_pairs = 0;
		x->r->vls_used = x->br->vls_used;
		if (settle_vls(x, err))
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
