/* SPDX-License-Identifier: MIT */
/**
 * DOC: one destination at a time
 *
 * Towards one DLID the LFTs form a functional graph over the switches: a
 * step (the LFT entry and what its port leads to) per switch, then each
 * switch settled once (delivered after how many switches, or why not).
 * One such resolution per LID of the destination serves all three passes:
 *
 *  - connectivity: every source's fate is that of the switch it enters.
 *    Without per-pair DLIDs the sources are counted per switch once for
 *    all (struct an_plan), so a destination costs O(switches); failing
 *    pairs are then listed source by source only while they can still be
 *    among the examples kept;
 *  - load: the sources entering each switch are pushed along the graph
 *    from the farthest switch to the nearest; a CA source's own link gets
 *    one pair per destination delivered from its switch, summed per switch
 *    (struct an_acc dall, dca) and spread over the CA ports at the end;
 *  - CDG: walks from where sources enter, each (switch, in port) state
 *    expanded once per (LID, SL) and shared by every walk that reaches it,
 *    in the order the pair-by-pair evaluator met them (the VLs marked on a
 *    loop depend on where the loop was entered).
 *
 * With per-pair DLID offsets or SLs the sources are sorted by (offset, SL)
 * for each destination, O(endpoints) per destination; their rows are read
 * AN_CHUNK destinations at a time (one cache line per source and chunk).
 *
 * The CDG walks are in analysis/dest_cdg.c. In the common case (no per-pair
 * tables, VL 0 only) analysis/dest_block.c does all three passes for
 * blocks of destinations at once, and analysis/dest_fast.c, in one loop
 * over the switches, for a destination the block pass does not take.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/dest_impl.h"

#define ALLOC(ptr, n) ((ptr) = calloc((size_t)(n) + 1, sizeof(*(ptr))))

struct an_work *an_work_new(const struct an_plan *p)
{
	const struct fabric *f = p->c.f;
	uint32_t nsw = f->nswitches;
	struct an_work *w = calloc(1, sizeof(*w));
	int ok;

	if (!w)
		return NULL;
	w->p = p;
	ok = ALLOC(w->fw, p->nfwd) && ALLOC(w->rstate, nsw) && ALLOC(w->stack, nsw) &&
	     ALLOC(w->acc_all, nsw) && ALLOC(w->acc_ca, nsw) && ALLOC(w->stamp, p->nstates) &&
	     ALLOC(w->mask, p->nstates) && ALLOC(w->trail, p->nstates) &&
	     ALLOC(w->tcol, (size_t)AN_TSPAN * nsw);
	for (uint32_t i = 0; ok && i < p->nfwd; i++) {
		struct fwdv *v = &w->fw[i];

		ok = ALLOC(v->out, nsw) && ALLOC(v->sres, nsw) && ALLOC(v->nin, nsw) &&
		     ALLOC(v->res, nsw) && ALLOC(v->nxt, nsw) && ALLOC(v->hops, nsw) &&
		     ALLOC(v->settled, nsw);
	}
	if (ok && p->block)
		ok = !an_blk_init(&w->blk, nsw);
	if (ok && p->per_pair)
		ok = ALLOC(w->keys, (size_t)AN_CHUNK * f->neps) && ALLOC(w->sorted, f->neps) &&
		     ALLOC(w->kcount, p->nfwd * RT_SLS + 1) && ALLOC(w->gent, f->neps) &&
		     ALLOC(w->gidx, p->nstates) && ALLOC(w->gstamp, p->nstates);
	if (!ok) {
		an_work_free(w);
		return NULL;
	}
	return w;
}

void an_work_free(struct an_work *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; w->fw && i < w->p->nfwd; i++) {
		free(w->fw[i].out);
		free(w->fw[i].sres);
		free(w->fw[i].nin);
		free(w->fw[i].res);
		free(w->fw[i].nxt);
		free(w->fw[i].hops);
		free(w->fw[i].settled);
	}
	free(w->fw);
	free(w->rstate);
	free(w->stack);
	free(w->acc_all);
	free(w->acc_ca);
	free(w->stamp);
	free(w->mask);
	free(w->trail);
	free(w->tcol);
	free(w->keys);
	free(w->sorted);
	free(w->kcount);
	free(w->gent);
	free(w->gidx);
	free(w->gstamp);
	an_blk_fini(&w->blk);
	free(w);
}

/* --- one DLID resolved ------------------------------------------------------ */

/* Switch @s's step towards @dlid (what an_step() says, from the port table). */
static void step(const struct an_plan *p, struct fwdv *v, const uint8_t *col, uint32_t s,
		 unsigned dlid, uint32_t dst)
{
	uint8_t port = col ? col[s] : rt_lft_get(p->c.r, s, dlid);
	uint32_t at = p->pt_base[s] + port;
	uint32_t e = at < p->pt_base[s + 1] ? p->pt[at] : AN_PT(AN_PT_DOWN, 0, AN_PT_NOVAL);

	v->out[s] = port;
	v->nxt[s] = FAB_NONE;
	if (port == RT_NO_PORT) {
		v->sres[s] = AN_NO_ENTRY;
	} else if (AN_PT_KIND(e) == AN_PT_DOWN) {
		v->sres[s] = AN_LINK_DOWN;
	} else if (AN_PT_KIND(e) == AN_PT_SW) {
		v->sres[s] = AN_DELIVERED;
		v->nxt[s] = AN_PT_VAL(e);
		v->nin[s] = AN_PT_IN(e);
	} else {
		v->sres[s] = AN_PT_VAL(e) == dst ? AN_DELIVERED : AN_WRONG_PORT;
	}
}

/* Settle the switches on the stack, innermost first, from the result at its end. */
static void settle(struct an_work *w, struct fwdv *v, uint32_t depth, enum an_fail res,
		   uint16_t hops)
{
	while (depth--) {
		uint32_t s = w->stack[depth];

		v->res[s] = (uint8_t)res;
		v->hops[s] = res == AN_DELIVERED ? ++hops : 0;
		w->rstate[s] = RS_DONE;
		if (res == AN_DELIVERED)
			v->settled[v->nsettled++] = s;
	}
}

/* Walk the functional graph "switch -> next switch" from every switch, each settled once. */
static void resolve(struct an_work *w, struct fwdv *v, unsigned dlid, uint32_t dst)
{
	uint32_t nsw = w->p->c.f->nswitches;
	const uint8_t *col = NULL;

	if (dlid - w->tlo < w->tspan)
		col = w->tcol + (size_t)(dlid - w->tlo) * nsw;

	memset(w->rstate, RS_NEW, nsw);
	v->nsettled = 0;
	for (uint32_t s0 = 0; s0 < nsw; s0++) {
		uint32_t depth = 0, s = s0;

		if (w->rstate[s0] != RS_NEW)
			continue;
		for (;;) {
			uint32_t t;

			step(w->p, v, col, s, dlid, dst);
			t = v->nxt[s];
			w->rstate[s] = RS_ACTIVE;
			w->stack[depth++] = s;
			if (v->sres[s] != AN_DELIVERED || t == FAB_NONE) {
				settle(w, v, depth, (enum an_fail)v->sres[s], 0);
				break;
			}
			if (w->rstate[t] == RS_ACTIVE) {
				settle(w, v, depth, AN_LOOP, 0);
				break;
			}
			if (w->rstate[t] == RS_DONE) {
				settle(w, v, depth, (enum an_fail)v->res[t], v->hops[t]);
				break;
			}
			s = t;
		}
	}
	v->ready = 1;
}

const struct fwdv *an_dest_fwd(struct an_work *w, uint32_t dst, unsigned off)
{
	struct fwdv *v = &w->fw[off];

	if (!v->ready)
		resolve(w, v, fab_ep_lid(w->p->c.f, dst) + off, dst);
	return v;
}

/* --- connectivity ---------------------------------------------------------- */

/* Result for a source whose port is linked straight to a CA port. */
static enum an_fail direct(const struct fabric *f, uint32_t src, uint32_t dst)
{
	const struct fab_port *x = fab_port(f, f->eps[src].node, f->eps[src].port);

	if (x->peer == FAB_NONE)
		return AN_NO_LINK;
	return f->eps[dst].node == x->peer && f->eps[dst].port == x->peer_port ?
	       AN_DELIVERED : AN_WRONG_PORT;
}

static enum an_fail one_lid(struct an_work *w, uint32_t first, uint32_t src, uint32_t dst,
			    unsigned off, uint32_t *hops)
{
	const struct fwdv *v;

	if (first == FAB_NONE) {
		*hops = 0;
		return direct(w->p->c.f, src, dst);
	}
	v = an_dest_fwd(w, dst, off);
	*hops = v->hops[first];
	return (enum an_fail)v->res[first];
}

/*
 * The result of pairs entering at @first (or of direct source @src) for
 * @dst, with LID offset @off: with all_lids, the first LID of the range
 * that fails (the report names it), else the last one checked.
 */
static enum an_fail pair_at(struct an_work *w, uint32_t first, uint32_t src, uint32_t dst,
			    unsigned off, unsigned *dlid, uint32_t *hops)
{
	const struct fabric *f = w->p->c.f;
	unsigned base = fab_ep_lid(f, dst), nlids = 1u << fab_ep_lmc(f, dst);
	enum an_fail res;

	*hops = 0;
	if (!base) {
		*dlid = 0;
		return AN_NO_ENTRY;
	}
	res = one_lid(w, first, src, dst, off, hops);
	for (unsigned l = 0; w->p->o.all_lids && res == AN_DELIVERED && l < nlids; l++) {
		res = one_lid(w, first, src, dst, l, hops);
		off = l;
	}
	*dlid = base + off;
	return res;
}

void an_dest_tally(struct an_acc *a, enum an_class k, uint64_t n, enum an_fail res)
{
	a->pairs[k] += n;
	if (res == AN_DELIVERED || !n)
		return;
	a->unreachable[k] += n;
	a->by_fail[k][res] += n;
}

/* An example with every byte set (reports are compared byte by byte). */
static void add_example(struct an_pool *pool, uint32_t src, uint32_t dst, unsigned dlid,
			enum an_fail res)
{
	struct an_example e;

	memset(&e, 0, sizeof(e));
	e.src = src;
	e.dst = dst;
	e.dlid = (uint16_t)dlid;
	e.fail = (uint8_t)res;
	an_pool_add(pool, &e);
}

/* Failing pairs towards @dst, source by source, while they can enter @pools. */
static void examples(struct an_work *w, uint32_t dst, const uint16_t *key, struct an_pool *pools)
{
	const struct fabric *f = w->p->c.f;
	int dsw = f->nodes[f->eps[dst].node].type == FAB_SWITCH;
	enum an_class k_ca = dsw ? AN_CA_SW : AN_CA_CA, k_sw = dsw ? AN_SW_SW : AN_SW_CA;

	for (uint32_t src = 0; src < f->neps; src++) {
		enum an_class k = src < f->nswitches ? k_sw : k_ca;
		unsigned dlid;
		uint32_t hops;
		enum an_fail res;

		if (an_pool_full_before(&pools[k_ca], dst, src) &&
		    an_pool_full_before(&pools[k_sw], dst, src))
			return;
		if (src == dst || an_pool_full_before(&pools[k], dst, src))
			continue;
		res = pair_at(w, w->p->c.first[src], src, dst, key ? key[src] / RT_SLS : 0, &dlid,
			      &hops);
		if (res != AN_DELIVERED)
			add_example(&pools[k], src, dst, dlid, res);
	}
}

/*
 * The sources entering each switch towards @d, pair by pair through
 * pair_at() (with all_lids, or when @d has no LID). *@maxh gets the
 * longest delivered path; returns the failing classes.
 */
static uint8_t conn_switches(struct an_work *w, uint32_t d, enum an_class k_ca,
			     enum an_class k_sw, uint32_t *maxh)
{
	const struct an_plan *p = w->p;
	uint32_t dfirst = d < p->c.f->nswitches ? FAB_NONE : p->c.first[d];
	uint8_t fails = 0;

	for (uint32_t s = 0; s < p->c.f->nswitches; s++) {
		uint64_t nsw = s != d, nca = p->n_nonsw[s] - (s == dfirst);
		unsigned dlid;
		uint32_t hops;
		enum an_fail res;

		if (!nsw && !nca)
			continue;
		res = pair_at(w, s, FAB_NONE, d, 0, &dlid, &hops);
		an_dest_tally(w->acc, k_sw, nsw, res);
		an_dest_tally(w->acc, k_ca, nca, res);
		if (res == AN_DELIVERED)
			*maxh = hops > *maxh ? hops : *maxh;
		else
			fails |= (uint8_t)((nsw ? 1u << k_sw : 0) | (nca ? 1u << k_ca : 0));
	}
	return fails;
}

/* The same, the common case: one LID, read straight from its resolution. */
static uint8_t conn_fast(struct an_work *w, uint32_t d, enum an_class k_ca, enum an_class k_sw,
			 uint32_t *maxh)
{
	const struct an_plan *p = w->p;
	const struct fwdv *v = an_dest_fwd(w, d, 0);
	uint32_t dfirst = d < p->c.f->nswitches ? FAB_NONE : p->c.first[d], m = 0;
	uint64_t ok_sw = 0, ok_ca = 0, bad_sw[AN_NFAILS] = { 0 }, bad_ca[AN_NFAILS] = { 0 };
	uint8_t fails = 0;

	for (uint32_t s = 0; s < p->c.f->nswitches; s++) {
		uint64_t nsw = s != d, nca = p->n_nonsw[s] - (s == dfirst);
		uint8_t res = v->res[s];

		if (res == AN_DELIVERED) {
			ok_sw += nsw;
			ok_ca += nca;
			if ((nsw || nca) && v->hops[s] > m)
				m = v->hops[s];
		} else {
			bad_sw[res] += nsw;
			bad_ca[res] += nca;
		}
	}
	*maxh = m;
	an_dest_tally(w->acc, k_sw, ok_sw, AN_DELIVERED);
	an_dest_tally(w->acc, k_ca, ok_ca, AN_DELIVERED);
	for (unsigned r = 1; r < AN_NFAILS; r++) {
		an_dest_tally(w->acc, k_sw, bad_sw[r], (enum an_fail)r);
		an_dest_tally(w->acc, k_ca, bad_ca[r], (enum an_fail)r);
		fails |= (uint8_t)((bad_sw[r] ? 1u << k_sw : 0) | (bad_ca[r] ? 1u << k_ca : 0));
	}
	return fails;
}

/* Every source towards @d from the per-switch counts (no per-pair tables). */
static void conn_counts(struct an_work *w, uint32_t d)
{
	const struct an_plan *p = w->p;
	int dsw = d < p->c.f->nswitches;
	enum an_class k_ca = dsw ? AN_CA_SW : AN_CA_CA, k_sw = dsw ? AN_SW_SW : AN_SW_CA;
	uint32_t maxh = 0;
	uint8_t fails;

	if (p->o.all_lids || !fab_ep_lid(p->c.f, d))
		fails = conn_switches(w, d, k_ca, k_sw, &maxh);
	else
		fails = conn_fast(w, d, k_ca, k_sw, &maxh);
	an_dest_conn_rest(w, d, fails, maxh);
}

void an_dest_conn_rest(struct an_work *w, uint32_t d, uint8_t fails, uint32_t maxh)
{
	const struct an_plan *p = w->p;
	enum an_class k_ca = d < p->c.f->nswitches ? AN_CA_SW : AN_CA_CA;

	for (uint32_t i = 0; i < p->ndirect; i++) {
		uint32_t src = p->direct[i], hops;
		unsigned dlid;
		enum an_fail res;

		if (src == d)
			continue;
		res = pair_at(w, FAB_NONE, src, d, 0, &dlid, &hops);
		an_dest_tally(w->acc, k_ca, 1, res);
		fails |= (uint8_t)(res != AN_DELIVERED ? 1u << k_ca : 0);
	}
	w->dhops[d] = (uint16_t)maxh;
	w->dfail[d] = fails;
	if (fails)
		examples(w, d, NULL, w->acc->ex);
}

/* Every source towards @d, one by one, with its own LID offset. */
static void conn_pairs(struct an_work *w, uint32_t d, const uint16_t *key)
{
	const struct fabric *f = w->p->c.f;
	uint32_t maxh = 0;
	uint8_t fails = 0;

	for (uint32_t src = 0; src < f->neps; src++) {
		enum an_class k = an_class_of(f, src, d);
		unsigned dlid;
		uint32_t hops;
		enum an_fail res;

		if (src == d)
			continue;
		res = pair_at(w, w->p->c.first[src], src, d, key[src] / RT_SLS, &dlid, &hops);
		an_dest_tally(w->acc, k, 1, res);
		if (res == AN_DELIVERED) {
			maxh = hops > maxh ? hops : maxh;
			continue;
		}
		fails |= (uint8_t)(1u << k);
		add_example(&w->acc->ex[k], src, d, dlid, res);
	}
	w->dhops[d] = (uint16_t)maxh;
	w->dfail[d] = fails;
}

/* --- load ---------------------------------------------------------------- */

/*
 * Push the sources counted per switch along the graph: in the reverse of
 * the settling order, every switch comes after all that send to it.
 */
void an_dest_push(struct an_work *w, const struct fwdv *v)
{
	for (uint32_t i = v->nsettled; i--;) {
		uint32_t s = v->settled[i], next = v->nxt[s], slot;

		if (!w->acc_all[s] || v->out[s] == 0)
			continue;
		slot = w->p->pt_base[s] + v->out[s];
		w->acc->ld[2 * slot] += w->acc_all[s];
		w->acc->ld[2 * slot + 1] += w->acc_ca[s];
		if (next != FAB_NONE) {
			w->acc_all[next] += w->acc_all[s];
			w->acc_ca[next] += w->acc_ca[s];
		}
	}
}

static void load_counts(struct an_work *w, uint32_t d)
{
	const struct an_plan *p = w->p;
	const struct fabric *f = p->c.f;
	uint32_t dfirst = d < f->nswitches ? FAB_NONE : p->c.first[d];
	int dca = an_dest_is_ca(f, d), any = 0;
	const struct fwdv *v;

	if (!fab_ep_lid(f, d))
		return;
	v = an_dest_fwd(w, d, 0);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		w->acc_all[s] = w->acc_ca[s] = 0;
		if (v->res[s] != AN_DELIVERED)
			continue;
		w->acc_all[s] = (s != d) + p->n_nonsw[s] - (s == dfirst);
		w->acc_ca[s] = dca ? p->n_ca[s] - (s == dfirst) : 0;
		any |= w->acc_all[s] != 0;
		w->acc->dall[s]++;
		w->acc->dca[s] += (uint32_t)dca;
	}
	if (dfirst != FAB_NONE && v->res[dfirst] == AN_DELIVERED) {
		/* the destination does not send to itself */
		w->acc->eld[2 * d]--;
		w->acc->eld[2 * d + 1] -= (uint32_t)dca;
	}
	if (any)
		an_dest_push(w, v);
}

/* Per-pair routings: the sources of one LID offset, [@lo, @hi) of w->sorted. */
static void load_off(struct an_work *w, uint32_t d, unsigned off, uint32_t lo, uint32_t hi)
{
	const struct fabric *f = w->p->c.f;
	const struct fwdv *v = an_dest_fwd(w, d, off);
	int dca = an_dest_is_ca(f, d), any = 0;

	memset(w->acc_all, 0, (size_t)f->nswitches * sizeof(*w->acc_all));
	memset(w->acc_ca, 0, (size_t)f->nswitches * sizeof(*w->acc_ca));
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t src = w->sorted[i], first = w->p->c.first[src];
		int both = dca && an_dest_is_ca(f, src);

		if (first == FAB_NONE || v->res[first] != AN_DELIVERED)
			continue;
		any = 1;
		w->acc_all[first]++;
		w->acc_ca[first] += (uint32_t)both;
		if (src >= f->nswitches) {
			w->acc->eld[2 * src]++;
			w->acc->eld[2 * src + 1] += (uint32_t)both;
		}
	}
	if (any)
		an_dest_push(w, v);
}

/* --- per destination --------------------------------------------------------- */

/* Per-pair routings: the sources but @d sorted by key (stable). */
static void sort_sources(struct an_work *w, uint32_t d, const uint16_t *key)
{
	const struct fabric *f = w->p->c.f;
	uint32_t nk = (1u << fab_ep_lmc(f, d)) * RT_SLS, sum = 0;

	memset(w->kcount, 0, ((size_t)nk + 1) * sizeof(*w->kcount));
	for (uint32_t s = 0; s < f->neps; s++)
		w->kcount[key[s]] += s != d;
	for (uint32_t k = 0; k < nk; k++) {
		uint32_t c = w->kcount[k];

		w->kcount[k] = sum;
		sum += c;
	}
	for (uint32_t s = 0; s < f->neps; s++)
		if (s != d)
			w->sorted[w->kcount[key[s]]++] = s;
}

/* Per-pair routings: the load of each LID offset's sources. */
static void load_pairs(struct an_work *w, uint32_t d, const uint16_t *key)
{
	const struct fabric *f = w->p->c.f;
	uint32_t lo = 0, n = f->neps - 1;

	if (!fab_ep_lid(f, d))
		return;
	while (lo < n) {
		unsigned off = key[w->sorted[lo]] / RT_SLS;
		uint32_t hi = lo;

		while (hi < n && key[w->sorted[hi]] / RT_SLS == off)
			hi++;
		load_off(w, d, off, lo, hi);
		lo = hi;
	}
}

static int dest_one(struct an_work *w, uint32_t d, const uint16_t *key)
{
	for (uint32_t i = 0; i < w->p->nfwd; i++)
		w->fw[i].ready = 0;
	if (!key && w->p->fast && fab_ep_lid(w->p->c.f, d)) {
		an_dest_fast(w, d);
		return 0;
	}
	if (!key) {
		conn_counts(w, d);
		if (w->p->o.load)
			load_counts(w, d);
		return an_dest_cdg_counts(w, d);
	}
	sort_sources(w, d, key);
	conn_pairs(w, d, key);
	if (w->p->o.load)
		load_pairs(w, d, key);
	return an_dest_cdg_pairs(w, d, key);
}

/* Per-pair routings: the keys of the pairs towards @d[0..@n), row j for d[j]. */
static void gather_keys(struct an_work *w, const uint32_t *d, uint32_t n)
{
	const struct fabric *f = w->p->c.f;
	const struct rt_routing *r = w->p->c.r;
	unsigned mask[AN_CHUNK];

	for (uint32_t j = 0; j < n; j++) {
		mask[j] = (1u << fab_ep_lmc(f, d[j])) - 1;
		w->kany[j] = 0;
	}
	for (uint32_t s = 0; s < f->neps; s++) {
		size_t row = (size_t)s * r->neps;

		for (uint32_t j = 0; j < n; j++) {
			unsigned off = r->dlid_off ? r->dlid_off[row + d[j]] & mask[j] : 0;
			unsigned sl = r->path_sl ? r->path_sl[row + d[j]] % RT_SLS : 0;
			uint16_t k = (uint16_t)(off * RT_SLS + sl);

			w->keys[(size_t)j * f->neps + s] = k;
			w->kany[j] |= s != d[j] ? k : 0;
		}
	}
}

/*
 * Copy the LFT columns of the LIDs of @d[0..@n) out, one after the other,
 * when they are few enough: the destinations then read their column
 * contiguously instead of one byte per switch row.
 */
static void columns(struct an_work *w, const uint32_t *d, uint32_t n)
{
	const struct fabric *f = w->p->c.f;
	const struct rt_routing *r = w->p->c.r;
	uint32_t lo = UINT32_MAX, hi = 0;

	w->tspan = 0;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t base = fab_ep_lid(f, d[j]), top = base + (1u << fab_ep_lmc(f, d[j])) - 1;

		if (!base)
			continue;
		lo = base < lo ? base : lo;
		hi = top > hi ? top : hi;
	}
	if (lo > hi || hi - lo >= AN_TSPAN || hi >= r->lft_len)
		return;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		const uint8_t *row = rt_lft(r, s) + lo;

		for (uint32_t l = 0; l <= hi - lo; l++)
			w->tcol[(size_t)l * f->nswitches + s] = row[l];
	}
	w->tlo = lo;
	w->tspan = hi - lo + 1;
}

/*
 * The destinations of @d[0..@n) the block pass takes, AN_BLOCK at a time;
 * the others are left in @d[0..*@rest). Return: 0, or -1 (memory).
 */
static int run_blocks(struct an_work *w, uint32_t *d, uint32_t n, uint32_t *rest)
{
	uint32_t blk[AN_BLOCK], m = 0, k = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (!an_dest_block_fits(w->p, d[i])) {
			d[k++] = d[i];
			continue;
		}
		blk[m++] = d[i];
		if (m == AN_BLOCK && an_dest_block(w, blk, m))
			return -1;
		m = m == AN_BLOCK ? 0 : m;
	}
	*rest = k;
	return m ? an_dest_block(w, blk, m) : 0;
}

int an_dest_run(struct an_work *w, struct an_acc *acc, const uint32_t *d, uint32_t n,
		uint16_t *dhops, uint8_t *dfail, const struct an_rows *rows)
{
	const struct fabric *f = w->p->c.f;
	uint32_t rest[AN_CHUNK];

	w->acc = acc;
	w->dhops = dhops;
	w->dfail = dfail;
	w->rows = rows && rows->fl ? rows : NULL;
	while (n) {
		uint32_t m = n < AN_CHUNK ? n : AN_CHUNK, k = m;
		const uint32_t *c = d;

		if (w->p->block) {
			memcpy(rest, d, m * sizeof(*rest));
			if (run_blocks(w, rest, m, &k))
				return -1;
			c = rest;
		}
		if (w->p->per_pair)
			gather_keys(w, c, k);
		columns(w, c, k);
		for (uint32_t j = 0; j < k; j++)
			/* every key 0: the sources are counted per switch, as without per-pair tables */
			if (dest_one(w, c[j], w->p->per_pair && w->kany[j] ?
					      w->keys + (size_t)j * f->neps : NULL))
				return -1;
		d += m;
		n -= m;
	}
	return 0;
}

int an_dest_examples(struct an_work *w, uint32_t dst, struct an_pool *pools)
{
	for (uint32_t i = 0; i < w->p->nfwd; i++)
		w->fw[i].ready = 0;
	w->tspan = 0;
	if (w->p->per_pair)
		gather_keys(w, &dst, 1);
	examples(w, dst, w->p->per_pair ? w->keys : NULL, pools);
	return 0;
}
