/* SPDX-License-Identifier: MIT */
/**
 * DOC: the CDG walks of one destination
 *
 * Paths are walked per (destination LID, path SL) from the states where
 * sources enter: the state (switch, in port) decides the next hop and its
 * VL, so each state is expanded once per (LID, SL) and shared by every
 * walk that reaches it. The walks run in the order the pair-by-pair
 * evaluator met them: the VLs marked on a loop depend on where the loop
 * was entered. A walk counts, for each state it expands, the channel the
 * state leaves by and the dependency from the previous channel (struct
 * an_acc). When every hop is on VL 0 the order does not matter and the
 * walks reduce to marking the switches reachable from where sources enter
 * (cdg_vl0()).
 */
#include <string.h>

#include "analysis/dest_impl.h"


static uint32_t chan_id(const struct an_plan *p, uint32_t sw, unsigned out, unsigned vl)
{
	const struct fabric *f = p->c.f;

	return (f->nodes[f->switches[sw]].port0 + out) * AN_VLS + vl;
}

/*
 * Walk from state (@sw, @in) with @sl until the path ends or joins a state
 * this group expanded, counting channels and dependencies of the states
 * expanded here. *@mask_out gets the VLs of the path from (@sw, @in) on.
 * Return: 0, or -1 when out of memory.
 */
static int walk(struct an_work *w, const struct fwdv *v, uint32_t sw, unsigned in, unsigned sl,
		uint16_t *mask_out)
{
	const struct an_plan *p = w->p;
	struct an_acc *a = w->acc;
	uint32_t n = 0, prev = 0, prev_sw = 0;
	unsigned prev_vl = 0, prev_out = 0;
	uint16_t tail = 0;

	for (;;) {
		uint32_t st = an_plan_state(p, sw, in), next = v->nxt[sw], cur = 0;
		uint8_t out = v->out[sw], res = v->sres[sw];
		int fresh = w->stamp[st] != w->group;
		unsigned vl = 0;
		uint16_t bit = 0;

		if (out != RT_NO_PORT && out != 0 && (res == AN_DELIVERED || res == AN_WRONG_PORT)) {
			vl = p->vl_single ? 0 : an_vl(&p->c, sw, in, out, sl);
			bit = (uint16_t)(1u << vl);
			if (next != FAB_NONE) {
				cur = an_acc_block(a, p, p->pt_base[sw] + out, vl);
				if (!cur)
					return -1;
				a->chan[an_acc_index(p, p->pt_base[sw] + out, vl)] += (uint32_t)fresh;
				if (prev && vl == prev_vl)
					a->arena[prev + 1 + out]++;
				else if (prev &&
					 an_acc_cross(a, chan_id(p, prev_sw, prev_out, prev_vl),
						      chan_id(p, sw, out, vl)))
					return -1;
			}
		}
		if (!fresh) {
			tail = w->mask[st] | bit;	/* joined a walked path (or looped) */
			break;
		}
		w->stamp[st] = w->group;
		w->mask[st] = bit;
		w->trail[n++] = st;
		if (!cur || res != AN_DELIVERED)
			break;
		prev = cur;
		prev_vl = vl;
		prev_sw = sw;
		prev_out = out;
		in = v->nin[sw];
		sw = next;
	}
	while (n--) {
		w->mask[w->trail[n]] |= tail;
		tail = w->mask[w->trail[n]];
	}
	*mask_out = tail;
	return 0;
}

static void next_group(struct an_work *w)
{
	if (++w->group == 0) {
		memset(w->stamp, 0, (size_t)w->p->nstates * sizeof(*w->stamp));
		w->group = 1;
	}
}

/* Walk from @e's state; count its @n sources' VLs when @count. */
static int walk_entry(struct an_work *w, const struct fwdv *v, const struct an_entry *e,
		      uint32_t n, unsigned sl, int count)
{
	uint16_t mask;

	if (!n)
		return 0;
	if (walk(w, v, e->sw, e->in, sl, &mask))
		return -1;
	for (unsigned vl = 0; count && mask; vl++, mask >>= 1)
		if (mask & 1)
			w->acc->paths[vl] += n;
	return 0;
}

/*
 * The plan's walk starts towards @d, in order, without @d itself. This
 * runs only with SL2VL tables (no per-pair tables, not every hop on VL
 * 0), where a start is a (switch, in port) state: one source each, so the
 * order of the starts is that of the sources.
 */
static int walk_starts(struct an_work *w, const struct fwdv *v, uint32_t d, int count)
{
	const struct an_plan *p = w->p;

	for (uint32_t i = 0; i < p->nent; i++)
		if (walk_entry(w, v, &p->ent[i], p->ent[i].n - (i == p->ent_of[d]), 0, count))
			return -1;
	return 0;
}

/*
 * Every hop on VL 0 (no SL2VL table, no path SL): the VLs of a path are VL 0
 * as soon as its first hop leaves on a port, whatever the walk order. So
 * the walks become: mark the switches reachable from those where sources
 * enter, count each marked switch's channel and its dependency on the next
 * one; the same counts as walk(), in one pass over the switches.
 */
static int cdg_vl0(struct an_work *w, const struct fwdv *v, uint32_t d, int count)
{
	const struct an_plan *p = w->p;
	struct an_acc *a = w->acc;
	uint32_t dent = p->ent_of[d] != FAB_NONE ? p->c.first[d] : FAB_NONE;
	uint64_t paths = 0;

	for (uint32_t s = 0; s < p->c.f->nswitches; s++) {
		uint32_t n = p->ent_n[s] - (s == dent), t = s;

		if (!n)
			continue;
		if ((v->sres[s] == AN_DELIVERED || v->sres[s] == AN_WRONG_PORT) && v->out[s] != 0)
			paths += n;
		while (w->stamp[t] != w->group) {
			uint32_t nx = v->nxt[t], b;
			size_t bit;

			w->stamp[t] = w->group;
			if (nx == FAB_NONE)
				break;
			if (p->bits) {
				bit = (size_t)(p->pt_base[t] + v->out[t]) * p->wblk;
				an_acc_setbit(a, bit);
				if (v->nxt[nx] != FAB_NONE)
					an_acc_setbit(a, bit + 1 + v->out[nx]);
				t = nx;
				continue;
			}
			b = an_acc_block(a, p, p->pt_base[t] + v->out[t], 0);
			if (!b)
				return -1;
			a->chan[an_acc_index(p, p->pt_base[t] + v->out[t], 0)]++;
			if (v->nxt[nx] != FAB_NONE)
				a->arena[b + 1 + v->out[nx]]++;
			t = nx;
		}
	}
	if (count)
		a->paths[0] += paths;
	return 0;
}

int an_dest_cdg_counts(struct an_work *w, uint32_t d)
{
	const struct fabric *f = w->p->c.f;
	unsigned nlids = 1u << fab_ep_lmc(f, d);

	if (!fab_ep_lid(f, d) || (w->p->o.ca_only && !an_dest_is_ca(f, d)))
		return 0;
	for (unsigned off = 0; off < (w->p->o.all_lids ? nlids : 1); off++) {
		const struct fwdv *v = an_dest_fwd(w, d, off);

		next_group(w);
		if (w->p->vl_single ? cdg_vl0(w, v, d, off == 0) : walk_starts(w, v, d, off == 0))
			return -1;
	}
	return 0;
}

/* Per-pair routings: the walk starts of sources [@lo, @hi) of w->sorted, in order. */
static uint32_t group_starts(struct an_work *w, uint32_t lo, uint32_t hi)
{
	const struct an_plan *p = w->p;
	const struct fabric *f = p->c.f;
	uint32_t n = 0;

	if (++w->gseq == 0) {
		memset(w->gstamp, 0, (size_t)p->nstates * sizeof(*w->gstamp));
		w->gseq = 1;
	}
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t src = w->sorted[i], sw = p->c.first[src], st;

		if (sw == FAB_NONE || (p->o.ca_only && !an_dest_is_ca(f, src)))
			continue;
		st = an_plan_state(p, sw, p->c.in_port[src]);
		if (w->gstamp[st] != w->gseq) {
			w->gstamp[st] = w->gseq;
			w->gidx[st] = n;
			w->gent[n++] = (struct an_entry){ .sw = sw, .state = st,
							  .in = p->c.in_port[src] };
		}
		w->gent[w->gidx[st]].n++;
	}
	return n;
}

/* Per-pair routings: walk each (offset, SL) group of the sorted sources. */
int an_dest_cdg_pairs(struct an_work *w, uint32_t d, const uint16_t *key)
{
	const struct fabric *f = w->p->c.f;
	unsigned nlids = 1u << fab_ep_lmc(f, d);
	uint32_t lo = 0, n = f->neps - 1;

	if (!fab_ep_lid(f, d) || (w->p->o.ca_only && !an_dest_is_ca(f, d)))
		return 0;
	while (lo < n) {
		unsigned k = key[w->sorted[lo]], own = k / RT_SLS;
		uint32_t hi = lo, nent;

		while (hi < n && key[w->sorted[hi]] == k)
			hi++;
		nent = group_starts(w, lo, hi);
		for (unsigned off = w->p->o.all_lids ? 0 : own;
		     off < (w->p->o.all_lids ? nlids : own + 1); off++) {
			const struct fwdv *v = an_dest_fwd(w, d, off);

			next_group(w);
			for (uint32_t i = 0; i < nent; i++)
				if (walk_entry(w, v, &w->gent[i], w->gent[i].n, k % RT_SLS,
					       off == own))
					return -1;
		}
		lo = hi;
	}
	return 0;
}
