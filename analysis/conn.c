/* SPDX-License-Identifier: MIT */
/**
 * DOC: connectivity
 *
 * For each destination endpoint and each of its LIDs in use, the LFTs are
 * resolved once from every switch (an_fwd_resolve(): a walk over the
 * functional graph "switch -> next switch for this DLID", each switch
 * settled once). Every source then looks up the result at the switch its
 * packets enter first. All pairs cost O(endpoints x (switches + endpoints)).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

enum { FWD_NEW = 0, FWD_ACTIVE = 1, FWD_DONE = 2 };

int an_fwd_init(struct an_fwd *w, const struct fabric *f)
{
	size_t n = (size_t)f->nswitches + 1;

	memset(w, 0, sizeof(*w));
	w->res = malloc(n);
	w->hops = malloc(n * sizeof(*w->hops));
	w->state = malloc(n);
	w->stack = malloc(n * sizeof(*w->stack));
	if (!w->res || !w->hops || !w->state || !w->stack) {
		an_fwd_fini(w);
		return -1;
	}
	return 0;
}

void an_fwd_fini(struct an_fwd *w)
{
	free(w->res);
	free(w->hops);
	free(w->state);
	free(w->stack);
	memset(w, 0, sizeof(*w));
}

/* Settle the switches on the stack, innermost first, from the result at its end. */
static void settle(struct an_fwd *w, uint32_t depth, enum an_fail res, uint16_t hops)
{
	while (depth--) {
		uint32_t s = w->stack[depth];

		w->res[s] = (uint8_t)res;
		w->hops[s] = res == AN_DELIVERED ? ++hops : 0;
		w->state[s] = FWD_DONE;
		if (res == AN_DELIVERED && hops > w->maxhops)
			w->maxhops = hops;
	}
}

static void walk_from(struct an_fwd *w, const struct an_ctx *c, uint32_t start, unsigned dlid,
		      uint32_t dst)
{
	uint32_t depth = 0, s = start;

	for (;;) {
		uint32_t next;
		uint8_t out, in;
		enum an_fail res;

		w->state[s] = FWD_ACTIVE;
		w->stack[depth++] = s;
		res = an_step(c, s, dlid, dst, &out, &next, &in);
		if (res != AN_DELIVERED || next == FAB_NONE) {
			settle(w, depth, res, 0);
			return;
		}
		if (w->state[next] == FWD_ACTIVE) {
			settle(w, depth, AN_LOOP, 0);
			return;
		}
		if (w->state[next] == FWD_DONE) {
			settle(w, depth, (enum an_fail)w->res[next], w->hops[next]);
			return;
		}
		s = next;
	}
}

void an_fwd_resolve(struct an_fwd *w, const struct an_ctx *c, unsigned dlid, uint32_t dst)
{
	uint32_t n = c->f->nswitches;

	memset(w->state, FWD_NEW, n);
	w->maxhops = 0;
	for (uint32_t s = 0; s < n; s++)
		if (w->state[s] == FWD_NEW)
			walk_from(w, c, s, dlid, dst);
}

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

int an_conn_run(const struct an_ctx *c, const struct an_opts *o, struct an_conn *out)
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

int an_connected(const struct an_report *rep)
{
	for (unsigned k = 0; k < AN_NCLASSES; k++)
		if (rep->conn.unreachable[k])
			return 0;
	return 1;
}
