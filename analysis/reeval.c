/* SPDX-License-Identifier: MIT */
/**
 * DOC: re-evaluation after a change
 *
 * A destination's share of every sum depends only on the LFT entries of
 * its LIDs and on the links those entries lead over. When a repair
 * rewrites some entries or a link goes down or comes back, only the
 * destinations whose column changed, or whose entries point at a port
 * whose link changed, have a different share: an_reevaluate() takes their
 * share out as the old routing routed them on the old fabric and puts it
 * back as the new one routes them, and reads the report off the updated
 * sums. Where the block pass takes a destination (the common case), both
 * shares come per switch and only the switches where they differ are
 * counted (analysis/reeval_block.c); the others' shares are made whole,
 * in sums of their own, and added. Only the examples of failing pairs are
 * looked for again (the first destinations that have some, at most a few),
 * and the DLID balance of the switches whose table or links changed. When
 * more than half the destinations changed (an engine that rebalances
 * everything), a full evaluation is cheaper, and is made instead.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/reeval_impl.h"

static int same_nodes(const struct fabric *a, const struct fabric *b)
{
	if (a->nnodes != b->nnodes || a->nports != b->nports || a->nswitches != b->nswitches ||
	    a->neps != b->neps || a->lid_top != b->lid_top)
		return 0;
	for (uint32_t n = 0; n < a->nnodes; n++) {
		const struct fab_node *x = &a->nodes[n], *y = &b->nodes[n];

		if (x->guid != y->guid || x->type != y->type || x->nports != y->nports ||
		    x->port0 != y->port0 || x->vl_cap != y->vl_cap)
			return 0;
	}
	for (uint32_t e = 0; e < a->neps; e++) {
		const struct fab_port *x, *y;

		if (a->eps[e].node != b->eps[e].node || a->eps[e].port != b->eps[e].port)
			return 0;
		x = fab_port(a, a->eps[e].node, a->eps[e].port);
		y = fab_port(b, b->eps[e].node, b->eps[e].port);
		if (x->lid != y->lid || x->lmc != y->lmc)
			return 0;
		if (e >= a->nswitches && (x->peer != y->peer || x->peer_port != y->peer_port))
			return 0;	/* a CA cabled elsewhere: its pairs as a source change */
	}
	return 1;
}

static int same_sl2vl(const struct fabric *f, const struct rt_routing *a, const struct rt_routing *b)
{
	for (uint32_t s = 0; s < f->nswitches; s++) {
		size_t dim = (size_t)f->nodes[f->switches[s]].nports + 1;

		if (!a->sl2vl[s] != !b->sl2vl[s])
			return 0;
		if (a->sl2vl[s] && memcmp(a->sl2vl[s], b->sl2vl[s], dim * dim * RT_SLS))
			return 0;
	}
	return 1;
}

/* The sums of (@pf, @pr) can become those of (@f, @r) destination by destination. */
static int compatible(const struct an_state *st, const struct an_opts *o,
		      const struct fabric *pf, const struct rt_routing *pr,
		      const struct fabric *f, const struct rt_routing *r)
{
	return st && st->ready && st->o.all_lids == o->all_lids && st->o.ca_only == o->ca_only &&
	       st->o.load == o->load && same_nodes(pf, f) && pr->lft_len == r->lft_len &&
	       !pr->dlid_off && !pr->path_sl && !r->dlid_off && !r->path_sl &&
	       same_sl2vl(f, pr, r);
}

/* Mark the LIDs whose entries of switch @s differ; 1 when some do. */
static int mark_row_diff(const struct rt_routing *pr, const struct rt_routing *r, uint32_t s,
			 uint8_t *mark)
{
	const uint8_t *a = rt_lft(pr, s), *b = rt_lft(r, s);

	if (!memcmp(a, b, r->lft_len))
		return 0;
	for (uint32_t l = 0; l < r->lft_len; l++)
		mark[l] |= a[l] != b[l];
	return 1;
}

/*
 * LIDs whose entries changed, or lead over a port whose link changed; in
 * @sw the switches whose table or links changed. Return: 1 when @sw holds
 * them all (not when @chg names LIDs only).
 */
static int mark_lids(const struct fabric *pf, const struct rt_routing *pr, const struct fabric *f,
		     const struct rt_routing *r, const struct an_change *chg, uint8_t *mark,
		     uint8_t *sw)
{
	for (size_t i = 0; chg && i < chg->nlids; i++)
		if (chg->lids[i] < r->lft_len)
			mark[chg->lids[i]] = 1;
	for (size_t i = 0; chg && i < chg->nswitches; i++)
		if (chg->switches[i] < f->nswitches)
			sw[chg->switches[i]] |= (uint8_t)mark_row_diff(pr, r, chg->switches[i], mark);
	for (uint32_t s = 0; !chg && s < f->nswitches; s++)
		sw[s] = (uint8_t)mark_row_diff(pr, r, s, mark);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s];

		for (unsigned q = 1; q <= f->nodes[node].nports; q++) {
			const struct fab_port *x = fab_port(pf, node, q), *y = fab_port(f, node, q);
			const uint8_t *a = rt_lft(pr, s), *b = rt_lft(r, s);

			if (x->peer == y->peer && x->peer_port == y->peer_port)
				continue;
			sw[s] = 1;
			for (uint32_t l = 0; l < r->lft_len; l++)
				mark[l] |= a[l] == q || b[l] == q;
		}
	}
	return !chg || !chg->nlids;
}

/* The switches @sw marks, into @list; their count. */
static uint32_t listed(const uint8_t *sw, uint32_t nsw, uint32_t *list)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < nsw; s++)
		if (sw[s])
			list[n++] = s;
	return n;
}

/* The destinations with a marked LID, in the plan's order; their count. */
static uint32_t affected(const struct an_plan *p, const uint8_t *mark, uint32_t *order)
{
	const struct fabric *f = p->c.f;
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->neps; i++) {
		uint32_t e = order[i];
		unsigned base = fab_ep_lid(f, e), nlids = 1u << fab_ep_lmc(f, e);
		int hit = 0;

		for (unsigned l = 0; base && l < nlids && !hit; l++)
			hit = base + l < p->c.r->lft_len && mark[base + l];
		if (hit)
			order[n++] = e;
	}
	return n;
}

/* The first failing pairs again, from the destinations known to have some. */
static int find_examples(const struct an_plan *p, const struct an_state *st, struct an_pool *pools)
{
	struct an_work *w = an_work_new(p);

	if (!w)
		return -1;
	for (uint32_t d = 0; d < p->c.f->neps; d++) {
		uint8_t open = 0;

		for (unsigned k = 0; k < AN_NCLASSES; k++)
			open |= (uint8_t)(pools[k].n < AN_EXAMPLES ? 1u << k : 0);
		if (!open)
			break;
		if (st->dfail[d] & open)
			an_dest_examples(w, d, pools);
	}
	an_work_free(w);
	return 0;
}

/*
 * Every switch's DLID spread, as an_eval_run() gives it: the kept one
 * where the switch's table and links are the same (@sw, when @all_known),
 * else worked out again; kept in @st for the next time.
 */
static void spreads(const struct an_plan *p, struct an_state *st, const uint8_t *sw, int all_known,
		    uint32_t *spread)
{
	uint32_t nsw = p->c.f->nswitches;

	for (uint32_t s = 0; s < nsw; s++)
		spread[s] = st->spread && all_known && !sw[s] ? st->spread[s] :
			    an_load_spread(p->c.f, p->c.r, p->lid_ep, s);
	if (st->spread)
		memcpy(st->spread, spread, (size_t)nsw * sizeof(*spread));
}

const struct an_plan *an_plan_once_get(struct an_plan_once *po)
{
	pthread_mutex_lock(&po->lock);
	if (!po->built)
		po->built = an_plan_init(&po->p, po->f, po->r, po->o) ? -1 : 1;
	pthread_mutex_unlock(&po->lock);
	return po->built > 0 ? &po->p : NULL;
}

/* Both shares of @dests[0..@n) whole: (@pp's plan)'s out, (@p)'s in. */
static int update_whole(struct an_plan_once *ppo, const struct an_plan *p, struct an_state *st,
			const uint32_t *dests, uint32_t n)
{
	const struct fabric *f = p->c.f;
	const struct an_plan *pp = an_plan_once_get(ppo);
	uint16_t *oh = calloc((size_t)f->neps + 1, sizeof(*oh));
	uint8_t *of = calloc((size_t)f->neps + 1, sizeof(*of));
	struct an_acc old, cur;
	int rc = -1;

	if (!pp || !oh || !of || an_eval_run(pp, &p->o, dests, n, &old, oh, of, NULL, NULL))
		goto out;
	if (!an_eval_run(p, &p->o, dests, n, &cur, st->dhops, st->dfail, NULL, NULL)) {
		rc = an_acc_add(&st->acc, p, &old, -1) || an_acc_add(&st->acc, p, &cur, 1) ? -1 : 0;
		an_acc_fini(&cur);
	}
	an_acc_fini(&old);
out:
	free(oh);
	free(of);
	return rc;
}

/*
 * Take the share of @dests out as (@pp) routed them, put it back as (@p)
 * does: by differences where the block pass takes them, whole otherwise.
 */
static int update(struct an_plan_once *pp, const struct an_plan *p, struct an_state *st,
		  uint32_t *dests, uint32_t n, const uint32_t *sw, uint32_t nsw_diff, uint32_t near[2])
{
	if (an_reeval_blocks(pp, p, st, dests, n, sw, nsw_diff, &n, near))
		return -1;
	if (n) {
		st->ranks.stale = 1;	/* whole sums added: the dependency graph is searched again */
		return update_whole(pp, p, st, dests, n);
	}
	an_ranks_settle(p, &st->acc, &st->ranks);
	return 0;
}

static int redo(const struct fabric *pf, const struct rt_routing *pr, const struct fabric *f,
		const struct rt_routing *r, const struct an_opts *o, const struct an_change *chg,
		struct an_state *st, struct an_report *rep)
{
	struct an_plan_once pp = { .f = pf, .r = pr, .o = o, .lock = PTHREAD_MUTEX_INITIALIZER };
	struct an_plan p;
	struct an_pool pools[AN_NCLASSES];
	uint8_t *mark = calloc((size_t)r->lft_len + 1, 1), *sw = calloc((size_t)f->nswitches + 1, 1);
	uint32_t *order = NULL, *spread = NULL, *swl = NULL, n, near[2] = { 0, 0 }, nsw_diff;
	int rc = -1, all_known;

	memset(pools, 0, sizeof(pools));
	if (an_plan_init(&p, f, r, o)) {
		free(mark);
		free(sw);
		return -1;
	}
	order = an_plan_order(&p);
	spread = o->load ? calloc((size_t)f->nswitches + 1, sizeof(*spread)) : NULL;
	swl = malloc(((size_t)f->nswitches + 1) * sizeof(*swl));
	if (!mark || !sw || !order || (o->load && !spread) || !swl)
		goto out;
	all_known = mark_lids(pf, pr, f, r, chg, mark, sw);
	n = affected(&p, mark, order);
	if (2 * (uint64_t)n > f->neps) {
		rc = 1;	/* taking out and putting back costs more than starting again */
		goto out;
	}
	st->ready = 0;
	nsw_diff = all_known ? listed(sw, f->nswitches, swl) : 0;
	if (update(&pp, &p, st, order, n, all_known ? swl : NULL, nsw_diff, near) ||
	    find_examples(&p, st, pools))
		goto out;
	if (spread)
		spreads(&p, st, sw, all_known, spread);
	st->ready = 1;
	rc = an_eval_finish(&p, st, pools, spread, rep);
	rep->dests = n;
	rep->dests_near = near[0];
	rep->dests_kept = near[1];
out:
	an_plan_fini(&p);
	if (pp.built > 0)
		an_plan_fini(&pp.p);
	pthread_mutex_destroy(&pp.lock);
	free(mark);
	free(sw);
	free(order);
	free(spread);
	free(swl);
	return rc;
}

int an_reevaluate(const struct fabric *prev_f, const struct rt_routing *prev_r,
		  struct an_report *prev, const struct fabric *f, const struct rt_routing *r,
		  const struct an_opts *o, const struct an_change *chg, struct an_report *rep,
		  struct fab_err *err)
{
	struct an_state *st = prev->state;
	struct an_opts oi = *o;
	struct fab_err perr;

	prev->state = NULL;
	oi.incremental = 1;
	memset(rep, 0, sizeof(*rep));
	if (an_fabrics_match(f, r, err)) {
		an_state_free(st);
		return -1;
	}
	if (an_fabrics_match(prev_f, prev_r, &perr) ||
	    !compatible(st, o, prev_f, prev_r, f, r)) {
		an_state_free(st);
		return an_evaluate(f, r, &oi, rep, err);
	}
	switch (redo(prev_f, prev_r, f, r, &oi, chg, st, rep)) {
	case 0:
		rep->state = st;
		return 0;
	case 1:
		an_state_free(st);
		return an_evaluate(f, r, &oi, rep, err);
	default:
		fab_err_set(err, "out of memory evaluating %u endpoints", f->neps);
		an_report_free(rep);
		an_state_free(st);
		return -1;
	}
}
