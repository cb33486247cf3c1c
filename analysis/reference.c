/* SPDX-License-Identifier: MIT */
/**
 * DOC: the reference evaluator
 *
 * The evaluator as it was before the per-destination passes (analysis/
 * dest.c): three separate passes, each looking at every (source,
 * destination) pair one by one, and a CDG whose dependencies go through a
 * hash set. It is slow on big fabrics (O(pairs)) but simple, and it stays
 * as the yardstick: the unit tests check that an_evaluate() gives the same
 * report on every fixture and generated fabric, and bench/bench_scale
 * times both. Both share the graph analysis (an_cdg_analyse()) and the
 * load summary.
 *
 * Connectivity: per destination and LID, the LFTs are resolved once from
 * every switch (an_fwd_resolve()) and every source looks up the result at
 * the switch its packets enter first.
 *
 * CDG: paths are walked per (destination LID, path SL) from the switch and
 * in port where each source's packets enter: the state (switch, in port)
 * decides the next hop and its VL, so each state is expanded once per
 * (LID, SL) and shared by every source reaching it.
 *
 * Load: per destination LID, the sources entering at each switch are
 * counted, then pushed along the LFTs from the switches farthest from the
 * destination to the nearest.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"
#include "analysis/reference.h"

/* --- connectivity --------------------------------------------------------- */

/* Result for a source whose port is linked straight to a CA port. */
static enum an_fail direct(const struct fabric *f, uint32_t src, uint32_t dst)
{
	const struct fab_port *x = fab_port(f, f->eps[src].node, f->eps[src].port);

	if (x->peer == FAB_NONE)
		return AN_NO_LINK;
	return f->eps[dst].node == x->peer && f->eps[dst].port == x->peer_port ?
	       AN_DELIVERED : AN_WRONG_PORT;
}

struct conn_state {
	const struct an_ctx *c;
	const struct an_opts *o;
	struct an_conn *out;
	struct an_fwd *fwd;	/* one per LID of the destination's range */
	uint8_t *resolved;
};

static void record(struct an_conn *out, enum an_class k, uint32_t src, uint32_t dst,
		   unsigned dlid, enum an_fail res)
{
	out->pairs[k]++;
	if (res == AN_DELIVERED)
		return;
	out->unreachable[k]++;
	out->by_fail[k][res]++;
	if (out->nex[k] < AN_EXAMPLES)
		out->ex[k][out->nex[k]++] = (struct an_example){ src, dst, (uint16_t)dlid, (uint8_t)res };
}

static const struct an_fwd *fwd_for(struct conn_state *st, uint32_t dst, unsigned off)
{
	if (!st->resolved[off]) {
		an_fwd_resolve(&st->fwd[off], st->c, fab_ep_lid(st->c->f, dst) + off, dst);
		st->resolved[off] = 1;
	}
	return &st->fwd[off];
}

/* Result of one pair for the LID at offset @off of the destination's range. */
static enum an_fail pair_result(struct conn_state *st, uint32_t src, uint32_t dst, unsigned off,
				uint32_t *hops)
{
	uint32_t first = st->c->first[src];
	const struct an_fwd *w;

	if (first == FAB_NONE) {
		*hops = 0;
		return direct(st->c->f, src, dst);
	}
	w = fwd_for(st, dst, off);
	*hops = w->hops[first];
	return (enum an_fail)w->res[first];
}

static void conn_dest(struct conn_state *st, uint32_t dst)
{
	const struct fabric *f = st->c->f;
	const struct rt_routing *r = st->c->r;
	unsigned base = fab_ep_lid(f, dst), nlids = 1u << fab_ep_lmc(f, dst);

	memset(st->resolved, 0, 1u << FAB_LMC_MAX);
	for (uint32_t src = 0; src < f->neps; src++) {
		enum an_class k = an_class_of(f, src, dst);
		unsigned off = r->dlid_off ? r->dlid_off[(size_t)src * r->neps + dst] & (nlids - 1) : 0;
		enum an_fail res;
		uint32_t hops;

		if (src == dst)
			continue;
		if (!base) {
			record(st->out, k, src, dst, 0, AN_NO_ENTRY);
			continue;
		}
		res = pair_result(st, src, dst, off, &hops);
		for (unsigned l = 0; st->o->all_lids && res == AN_DELIVERED && l < nlids; l++) {
			res = pair_result(st, src, dst, l, &hops);
			off = l;
		}
		if (res == AN_DELIVERED && hops > st->out->max_hops)
			st->out->max_hops = hops;
		record(st->out, k, src, dst, base + off, res);
	}
}

static int ref_conn_run(const struct an_ctx *c, const struct an_opts *o, struct an_conn *out)
{
	struct conn_state st = { .c = c, .o = o, .out = out };
	unsigned nfwd = 1;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	for (uint32_t e = 0; e < c->f->neps; e++)
		if (nfwd < (1u << fab_ep_lmc(c->f, e)))
			nfwd = 1u << fab_ep_lmc(c->f, e);
	st.fwd = calloc(nfwd, sizeof(*st.fwd));
	st.resolved = calloc(1u << FAB_LMC_MAX, 1);
	if (!st.fwd || !st.resolved)
		goto out;
	for (unsigned i = 0; i < nfwd; i++)
		if (an_fwd_init(&st.fwd[i], c->f))
			goto out;
	for (uint32_t dst = 0; dst < c->f->neps; dst++)
		conn_dest(&st, dst);
	rc = 0;
out:
	for (unsigned i = 0; st.fwd && i < nfwd; i++)
		an_fwd_fini(&st.fwd[i]);
	free(st.fwd);
	free(st.resolved);
	return rc;
}


/* --- channel dependency graph --------------------------------------------- */

#define NO_CH UINT32_MAX

struct cdg_walk {
	const struct an_ctx *c;
	struct an_edges edges;
	uint8_t *ch_used;	/* per channel id */
	uint32_t *stamp;	/* per state: walk group that expanded it */
	uint16_t *mask;		/* per state: VLs from it to the end of its path */
	uint32_t *trail;	/* states of the current walk */
	uint32_t group;
	struct an_cdg *out;
};

static uint32_t state_of(const struct an_ctx *c, uint32_t sw, unsigned in)
{
	return c->f->nodes[c->f->switches[sw]].port0 + (c->has_sl2vl ? in : 0);
}

static uint32_t chan_id(const struct an_ctx *c, uint32_t sw, unsigned out, unsigned vl)
{
	return (c->f->nodes[c->f->switches[sw]].port0 + out) * AN_VLS + vl;
}

/*
 * Walk from state (sw, in) towards @dlid with @sl, adding the dependencies
 * met on the way, until the path ends or joins a state this group already
 * expanded. *@mask_out gets the VLs the path uses from (sw, in) on.
 * Return: 0, or -1 when out of memory.
 */
static int walk(struct cdg_walk *w, uint32_t sw, unsigned in, unsigned dlid, uint32_t dst,
		unsigned sl, uint16_t *mask_out)
{
	const struct an_ctx *c = w->c;
	uint32_t prev = NO_CH, n = 0, st;
	uint16_t tail = 0;

	for (;;) {
		uint32_t next, ch = NO_CH;
		uint8_t out, next_in = 0;
		enum an_fail res = an_step(c, sw, dlid, dst, &out, &next, &next_in);
		uint16_t bit = 0;

		st = state_of(c, sw, in);
		if (out != RT_NO_PORT && out != 0 && (res == AN_DELIVERED || res == AN_WRONG_PORT)) {
			unsigned vl = an_vl(c, sw, in, out, sl);

			bit = (uint16_t)(1u << vl);
			if (next != FAB_NONE) {
				ch = chan_id(c, sw, out, vl);
				w->ch_used[ch] = 1;
				if (prev != NO_CH && an_edges_add(&w->edges, prev, ch))
					return -1;
			}
		}
		if (w->stamp[st] == w->group) {
			tail = w->mask[st] | bit;	/* joined a walked path (or looped) */
			break;
		}
		w->stamp[st] = w->group;
		w->mask[st] = bit;
		w->trail[n++] = st;
		if (ch == NO_CH || res != AN_DELIVERED)
			break;
		prev = ch;
		sw = next;
		in = next_in;
	}
	while (n--) {
		w->mask[w->trail[n]] |= tail;
		tail = w->mask[w->trail[n]];
	}
	*mask_out = tail;
	return 0;
}

static void count_paths(struct an_cdg *out, uint16_t mask)
{
	out->vls_used |= mask;
	for (unsigned v = 0; mask; v++, mask >>= 1)
		if (mask & 1)
			out->vl[v].paths++;
}

/* Walk every (LID offset, SL) group of sources towards @dst. */
static int walk_dest(struct cdg_walk *w, const struct an_opts *o, uint32_t dst, uint16_t *key)
{
	const struct an_ctx *c = w->c;
	const struct fabric *f = c->f;
	const struct rt_routing *r = c->r;
	unsigned base = fab_ep_lid(f, dst), nlids = 1u << fab_ep_lmc(f, dst);
	uint8_t seen[(1u << FAB_LMC_MAX) * RT_SLS / 8 + 1] = { 0 };

	if (!base || (o->ca_only && f->nodes[f->eps[dst].node].type != FAB_CA))
		return 0;
	for (uint32_t s = 0; s < f->neps; s++) {
		size_t pi = (size_t)s * r->neps + dst;
		unsigned off = r->dlid_off ? r->dlid_off[pi] & (nlids - 1) : 0;

		key[s] = (uint16_t)(off * RT_SLS + (r->path_sl ? r->path_sl[pi] % RT_SLS : 0));
		seen[key[s] / 8] |= (uint8_t)(1u << (key[s] % 8));
	}
	for (unsigned k = 0; k < nlids * RT_SLS; k++) {
		unsigned first_off = o->all_lids ? 0 : k / RT_SLS, last_off = o->all_lids ? nlids : first_off + 1;

		if (!(seen[k / 8] & (1u << (k % 8))))
			continue;
		for (unsigned off = first_off; off < last_off; off++) {
			w->group++;
			for (uint32_t s = 0; s < f->neps; s++) {
				uint16_t mask;

				if (key[s] != k || s == dst || c->first[s] == FAB_NONE ||
				    (o->ca_only && f->nodes[f->eps[s].node].type != FAB_CA))
					continue;
				if (walk(w, c->first[s], c->in_port[s], base + off, dst, k % RT_SLS, &mask))
					return -1;
				if (off == k / RT_SLS)
					count_paths(w->out, mask);
			}
		}
	}
	return 0;
}

static int ref_cdg_run(const struct an_ctx *c, const struct an_opts *o, struct an_cdg *out)
{
	const struct fabric *f = c->f;
	struct cdg_walk w = { .c = c, .out = out };
	uint16_t *key = malloc(((size_t)f->neps + 1) * sizeof(*key));
	struct an_graph g;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	w.ch_used = calloc((size_t)f->nports * AN_VLS + 1, 1);
	w.stamp = calloc((size_t)f->nports + 1, sizeof(*w.stamp));
	w.mask = calloc((size_t)f->nports + 1, sizeof(*w.mask));
	w.trail = malloc(((size_t)f->nports + 1) * sizeof(*w.trail));
	if (!key || !w.ch_used || !w.stamp || !w.mask || !w.trail || an_edges_init(&w.edges))
		goto out;
	for (uint32_t dst = 0; dst < f->neps; dst++)
		if (walk_dest(&w, o, dst, key))
			goto out;
	if (an_graph_build(&g, &w.edges, w.ch_used, (size_t)f->nports * AN_VLS))
		goto out;
	rc = an_cdg_analyse(f, &g, out);
	an_graph_free(&g);
out:
	an_edges_free(&w.edges);
	free(key);
	free(w.ch_used);
	free(w.stamp);
	free(w.mask);
	free(w.trail);
	return rc;
}

/* --- load ----------------------------------------------------------------- */

struct load_state {
	const struct an_ctx *c;
	struct an_fwd fwd;
	uint64_t *all;		/* per port slot: pairs sent out of that port */
	uint64_t *ca;		/* the same, CA-to-CA pairs only */
	uint64_t *acc_all, *acc_ca;	/* per switch */
	uint32_t *order, *bucket;	/* switches by decreasing hops */
};

static int is_ca(const struct fabric *f, uint32_t ep)
{
	return f->nodes[f->eps[ep].node].type == FAB_CA;
}

static uint32_t slot(const struct fabric *f, uint32_t node, unsigned port)
{
	return f->nodes[node].port0 + port;
}

/* Sort delivering switches by hops, farthest first (counting sort). */
static uint32_t order_switches(struct load_state *st)
{
	const struct an_fwd *w = &st->fwd;
	uint32_t n = st->c->f->nswitches, m = 0, max = w->maxhops;

	memset(st->bucket, 0, ((size_t)max + 2) * sizeof(*st->bucket));
	for (uint32_t s = 0; s < n; s++)
		if (w->res[s] == AN_DELIVERED)
			st->bucket[max - w->hops[s] + 1]++;
	for (uint32_t h = 1; h <= max + 1; h++)
		st->bucket[h] += st->bucket[h - 1];
	for (uint32_t s = 0; s < n; s++)
		if (w->res[s] == AN_DELIVERED) {
			st->order[st->bucket[max - w->hops[s]]++] = s;
			m++;
		}
	return m;
}

static void push_along(struct load_state *st, unsigned dlid, uint32_t dst)
{
	const struct fabric *f = st->c->f;
	uint32_t m = order_switches(st);

	for (uint32_t i = 0; i < m; i++) {
		uint32_t s = st->order[i], next;
		uint8_t out, in;

		if (!st->acc_all[s])
			continue;
		an_step(st->c, s, dlid, dst, &out, &next, &in);
		if (out == 0)
			continue;	/* delivered to this switch's port 0 */
		st->all[slot(f, f->switches[s], out)] += st->acc_all[s];
		st->ca[slot(f, f->switches[s], out)] += st->acc_ca[s];
		if (next != FAB_NONE) {
			st->acc_all[next] += st->acc_all[s];
			st->acc_ca[next] += st->acc_ca[s];
		}
	}
}

/* Sources using LID offset @off of @dst: count them where they enter. */
static void load_lid(struct load_state *st, uint32_t dst, unsigned off)
{
	const struct fabric *f = st->c->f;
	const struct rt_routing *r = st->c->r;
	unsigned base = fab_ep_lid(f, dst), mask = (1u << fab_ep_lmc(f, dst)) - 1;
	int any = 0;

	memset(st->acc_all, 0, (size_t)f->nswitches * sizeof(*st->acc_all));
	memset(st->acc_ca, 0, (size_t)f->nswitches * sizeof(*st->acc_ca));
	an_fwd_resolve(&st->fwd, st->c, base + off, dst);
	for (uint32_t src = 0; src < f->neps; src++) {
		uint32_t first = st->c->first[src];
		int both_ca = is_ca(f, src) && is_ca(f, dst);

		if (src == dst || (r->dlid_off ? r->dlid_off[(size_t)src * r->neps + dst] & mask : 0) != off)
			continue;
		if (first == FAB_NONE || st->fwd.res[first] != AN_DELIVERED)
			continue;
		any = 1;
		st->acc_all[first]++;
		st->acc_ca[first] += both_ca;
		if (f->nodes[f->eps[src].node].type != FAB_SWITCH) {
			st->all[slot(f, f->eps[src].node, f->eps[src].port)]++;
			st->ca[slot(f, f->eps[src].node, f->eps[src].port)] += both_ca;
		}
	}
	if (any)
		push_along(st, base + off, dst);
}

static int ref_load_run(const struct an_ctx *c, struct an_load *out)
{
	const struct fabric *f = c->f;
	struct load_state st = { .c = c };
	size_t nsw = (size_t)f->nswitches + 2;
	uint8_t *lid_ep = an_load_lid_ep(f);
	int rc = -1;

	memset(out, 0, sizeof(*out));
	st.all = calloc((size_t)f->nports + 1, sizeof(*st.all));
	st.ca = calloc((size_t)f->nports + 1, sizeof(*st.ca));
	st.acc_all = malloc(nsw * sizeof(*st.acc_all));
	st.acc_ca = malloc(nsw * sizeof(*st.acc_ca));
	st.order = malloc(nsw * sizeof(*st.order));
	st.bucket = malloc((nsw + 1) * sizeof(*st.bucket));
	if (!lid_ep || !st.all || !st.ca || !st.acc_all || !st.acc_ca || !st.order || !st.bucket ||
	    an_fwd_init(&st.fwd, f))
		goto out;
	for (uint32_t dst = 0; dst < f->neps; dst++) {
		unsigned n = 1u << fab_ep_lmc(f, dst);

		for (unsigned off = 0; fab_ep_lid(f, dst) && off < (c->r->dlid_off ? n : 1); off++)
			load_lid(&st, dst, off);
	}
	an_load_summarise(f, st.all, st.ca, out);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t spread = an_load_spread(f, c->r, lid_ep, s);

		if (spread > out->balance_max) {
			out->balance_max = spread;
			out->balance_node = f->switches[s];
		}
	}
	rc = 0;
out:
	an_fwd_fini(&st.fwd);
	free(lid_ep);
	free(st.all);
	free(st.ca);
	free(st.acc_all);
	free(st.acc_ca);
	free(st.order);
	free(st.bucket);
	return rc;
}

/* --- all of it ------------------------------------------------------------ */

int an_evaluate_reference(const struct fabric *f, const struct rt_routing *r,
			  const struct an_opts *o, struct an_report *rep, struct fab_err *err)
{
	struct an_ctx c;
	int rc;

	memset(rep, 0, sizeof(*rep));
	if (an_fabrics_match(f, r, err))
		return -1;
	if (an_ctx_init(&c, f, r)) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	rc = ref_conn_run(&c, o, &rep->conn) || ref_cdg_run(&c, o, &rep->cdg) ||
	     (o->load && ref_load_run(&c, &rep->load));
	if (rc) {
		fab_err_set(err, "out of memory evaluating %u endpoints", f->neps);
		an_report_free(rep);
	}
	rep->dests = f->neps;
	an_ctx_fini(&c);
	return rc ? -1 : 0;
}
