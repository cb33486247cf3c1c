/* SPDX-License-Identifier: MIT */
/**
 * DOC: the common case in one pass
 *
 * No per-pair DLIDs or SLs, every hop on VL 0, the DLID the routing gives
 * each pair checked (not every LID of the range), every source in the CDG
 * (not CA-only): then towards a destination, the sources entering a
 * switch all share one fate, and every switch is where some source (the
 * switch itself) enters, so the CDG walks reach every switch but perhaps
 * the destination's own. One loop over the switches then gives what
 * analysis/dest.c and analysis/dest_cdg.c compute in three:
 *
 *  - connectivity: the pairs entering each switch, delivered or not and why;
 *  - load: the pairs entering each delivering switch, pushed along after;
 *  - CDG: each switch's channel towards the destination and its dependency
 *    on the next switch's channel, as bits; the pairs that use VL 0.
 *
 * The sums are the same as those of the three passes (the unit tests
 * check the reports against the reference evaluator).
 */
#include "analysis/dest_impl.h"

/* Switch @t's channel towards the destination and its dependency on the next one. */
static void mark(struct an_acc *a, const struct an_plan *p, const struct fwdv *v, uint32_t t)
{
	uint32_t nx = v->nxt[t];
	size_t bit = (size_t)(p->pt_base[t] + v->out[t]) * p->wblk;

	an_acc_setbit(a, bit);
	if (v->nxt[nx] != FAB_NONE)
		an_acc_setbit(a, bit + 1 + v->out[nx]);
}

/* The failures counted per class, into the sums; the failing classes. */
static uint8_t tally_fails(struct an_acc *a, enum an_class k_sw, enum an_class k_ca,
			   const uint64_t *bad_sw, const uint64_t *bad_ca)
{
	uint8_t fails = 0;

	for (unsigned r = 1; r < AN_NFAILS; r++) {
		an_dest_tally(a, k_sw, bad_sw[r], (enum an_fail)r);
		an_dest_tally(a, k_ca, bad_ca[r], (enum an_fail)r);
		fails |= (uint8_t)((bad_sw[r] ? 1u << k_sw : 0) | (bad_ca[r] ? 1u << k_ca : 0));
	}
	return fails;
}

void an_dest_fast(struct an_work *w, uint32_t d)
{
	const struct an_plan *p = w->p;
	const struct fabric *f = p->c.f;
	const struct fwdv *v = an_dest_fwd(w, d, 0);
	struct an_acc *a = w->acc;
	int dsw = d < f->nswitches, dca = an_dest_is_ca(f, d), load = p->o.load, reached = 0;
	enum an_class k_ca = dsw ? AN_CA_SW : AN_CA_CA, k_sw = dsw ? AN_SW_SW : AN_SW_CA;
	uint32_t dfirst = dsw ? FAB_NONE : p->c.first[d], maxh = 0;
	uint64_t ok_sw = 0, ok_ca = 0, bad_sw[AN_NFAILS] = { 0 }, bad_ca[AN_NFAILS] = { 0 };
	uint64_t paths = 0, any = 0;

	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint64_t nsw = s != d, nca = p->n_nonsw[s] - (s == dfirst), n = nsw + nca;
		uint8_t res = v->res[s], sres = v->sres[s];

		if (res == AN_DELIVERED) {
			ok_sw += nsw;
			ok_ca += nca;
			maxh = n && v->hops[s] > maxh ? v->hops[s] : maxh;
		} else {
			bad_sw[res] += nsw;
			bad_ca[res] += nca;
		}
		if (load) {
			int del = res == AN_DELIVERED;

			w->acc_all[s] = del ? (uint32_t)n : 0;
			w->acc_ca[s] = del && dca ? p->n_ca[s] - (s == dfirst) : 0;
			any |= w->acc_all[s];
			a->dall[s] += (uint32_t)del;
			a->dca[s] += (uint32_t)(del && dca);
		}
		if (!n)
			continue;	/* @d itself, a switch no source enters but through others */
		if ((sres == AN_DELIVERED || sres == AN_WRONG_PORT) && v->out[s] != 0)
			paths += n;
		if (v->nxt[s] != FAB_NONE) {
			reached |= v->nxt[s] == d;
			mark(a, p, v, s);
		}
	}
	if (dsw && !p->n_nonsw[d] && reached && v->nxt[d] != FAB_NONE)
		mark(a, p, v, d);	/* walks from other switches go on through @d */
	a->paths[0] += paths;
	an_dest_tally(a, k_sw, ok_sw, AN_DELIVERED);
	an_dest_tally(a, k_ca, ok_ca, AN_DELIVERED);
	an_dest_conn_rest(w, d, tally_fails(a, k_sw, k_ca, bad_sw, bad_ca), maxh);
	if (!load)
		return;
	if (dfirst != FAB_NONE && v->res[dfirst] == AN_DELIVERED) {
		/* the destination does not send to itself */
		a->eld[2 * d]--;
		a->eld[2 * d + 1] -= (uint32_t)dca;
	}
	if (any)
		an_dest_push(w, v);
}
