/* SPDX-License-Identifier: MIT */
/**
 * DOC: dragonfly metrics: tracing every pair
 *
 * See dfly.h. Channels are port slots (fabric->ports indexes): the slot of
 * the port a link is left by, so both directions of a link are distinct.
 * A CA's own port slot is its channel towards its switch.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/dfly.h"

struct df_run {
	const struct fabric *f;
	const struct rt_routing *r;
	const struct fab_dfly *d;
	struct an_dfly *out;
	uint32_t *cnt;		/* per port slot x VL: all-to-all CA flows */
	uint32_t *shift;	/* per port slot: group shift pairs */
	uint64_t ca_hop_sum;
};

static int is_switch(const struct fabric *f, uint32_t node)
{
	return f->nodes[node].type == FAB_SWITCH;
}

/* The switch (index) endpoint @e sits on or hangs off; FAB_NONE when none. */
static uint32_t ep_switch(const struct fabric *f, uint32_t e)
{
	const struct fab_ep *ep = &f->eps[e];
	const struct fab_port *p = fab_port(f, ep->node, ep->port);

	if (is_switch(f, ep->node))
		return f->nodes[ep->node].swidx;
	if (p->peer != FAB_NONE && is_switch(f, p->peer))
		return f->nodes[p->peer].swidx;
	return FAB_NONE;
}

static uint32_t slot(const struct fabric *f, uint32_t node, unsigned port)
{
	return f->nodes[node].port0 + port;
}

/* Is the delivered path @p the shape minimal routing gives? *@ngc gets its gcs. */
static int path_shape(const struct df_run *x, const struct an_path *p, int same_group,
		      unsigned *ngc)
{
	unsigned before = 0, after = 0, bad = 0;

	*ngc = 0;
	for (uint32_t i = 0; i + 1 < p->nhops; i++) {
		enum fab_df_class c = fab_dfly_class(x->f, x->d, p->hops[i].node, p->hops[i].out_port);

		if (c == FAB_DF_GLOBAL)
			(*ngc)++;
		else if (c == FAB_DF_LOCAL)
			*(*ngc ? &after : &before) += 1;
		else
			bad = 1;
	}
	if (same_group)
		return !bad && !*ngc && before <= 1;
	return !bad && *ngc == 1 && before <= 1 && after <= 1;
}

static void count_flows(struct df_run *x, uint32_t src, const struct an_path *p)
{
	const struct fabric *f = x->f;

	x->cnt[(size_t)slot(f, f->eps[src].node, f->eps[src].port) * AN_VLS + p->src_vl % AN_VLS]++;
	for (uint32_t i = 0; i < p->nhops; i++)
		if (p->hops[i].out_port)
			x->cnt[(size_t)slot(f, p->hops[i].node, p->hops[i].out_port) * AN_VLS +
			       p->hops[i].vl % AN_VLS]++;
}

static void count_pair(struct df_run *x, uint32_t s, uint32_t t, const struct an_path *p)
{
	const struct fabric *f = x->f;
	struct an_dfly *o = x->out;
	int ca = !is_switch(f, f->eps[s].node), cat = !is_switch(f, f->eps[t].node);
	uint32_t ss = ep_switch(f, s), st = ep_switch(f, t);
	uint64_t *lost = ca && cat ? &o->ca_lost : !ca && !cat ? &o->sw_lost : NULL;
	uint64_t *hist = ca && cat ? o->ca_hops : !ca && !cat ? o->sw_hops : NULL;
	unsigned ngc, links;

	if (ca && cat)
		o->ca_pairs++;
	else if (!ca && !cat)
		o->sw_pairs++;
	if (p->fail != AN_DELIVERED || !p->nhops || ss == FAB_NONE || st == FAB_NONE) {
		if (lost)
			(*lost)++;
		return;
	}
	links = p->nhops - 1;
	if (!path_shape(x, p, x->d->group[ss] == x->d->group[st], &ngc))
		o->off_shape++;
	if (hist)
		hist[links < AN_DF_HOPS - 1 ? links : AN_DF_HOPS - 1]++;
	if (!(ca && cat))
		return;
	o->multi_gc += ngc >= 2;
	x->ca_hop_sum += links;
	if (links > o->ca_max_hops)
		o->ca_max_hops = links;
	count_flows(x, s, p);
}

static int trace_all(struct df_run *x)
{
	const struct fabric *f = x->f;

	for (uint32_t s = 0; s < f->neps; s++)
		for (uint32_t t = 0; t < f->neps; t++) {
			struct an_path p;

			if (s == t || !fab_ep_lid(f, t))
				continue;
			if (an_trace(f, x->r, s, rt_dlid(x->r, f, s, t), rt_path_sl(x->r, s, t), &p))
				return -1;
			count_pair(x, s, t, &p);
			an_path_free(&p);
		}
	return 0;
}

static void flows_add(struct an_df_flows *fl, uint64_t v)
{
	if (!fl->channels++ || v < fl->min)
		fl->min = v;
	if (v > fl->max)
		fl->max = v;
}

/* Flows per channel class (and per VL on local channels) from the counts. */
static void sum_flows(struct df_run *x)
{
	const struct fabric *f = x->f;
	struct an_dfly *o = x->out;

	for (uint32_t n = 0; n < f->nnodes; n++)
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			const uint32_t *c = x->cnt + (size_t)slot(f, n, p) * AN_VLS;
			uint64_t sum = 0;

			for (unsigned v = 0; v < AN_VLS; v++)
				sum += c[v];
			if (!fab_port_linked(f, n, p))
				continue;
			if (!is_switch(f, n) || fab_dfly_class(f, x->d, n, p) == FAB_DF_TERMINAL) {
				flows_add(&o->tc, sum);
			} else if (fab_dfly_class(f, x->d, n, p) == FAB_DF_GLOBAL) {
				flows_add(&o->gc, sum);
			} else {
				flows_add(&o->lc, sum);
				for (unsigned v = 0; v < AN_VLS; v++)
					o->lc_vls |= (uint16_t)(c[v] ? 1u << v : 0);
			}
		}
	for (uint32_t n = 0; n < f->nnodes; n++)
		for (unsigned p = 1; is_switch(f, n) && p <= f->nodes[n].nports; p++)
			for (unsigned v = 0; v < AN_VLS; v++)
				if (fab_dfly_class(f, x->d, n, p) == FAB_DF_LOCAL && (o->lc_vls >> v & 1))
					flows_add(&o->lc_vl[v], x->cnt[(size_t)slot(f, n, p) * AN_VLS + v]);
}

/* CA i of group G to CA i of group G+1: the most pairs on one switch-to-switch channel. */
static int group_shift(struct df_run *x)
{
	const struct fabric *f = x->f;
	const struct fab_dfly *d = x->d;
	uint32_t g = d->ngroups, *off = calloc((size_t)g + 2, sizeof(*off));
	uint32_t *cas = malloc(((size_t)f->neps + 1) * sizeof(*cas));
	int rc = -1;

	if (!off || !cas)
		goto out;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t e = 0; e < f->neps; e++) {
			uint32_t sw = ep_switch(f, e);

			if (is_switch(f, f->eps[e].node) || sw == FAB_NONE || !fab_ep_lid(f, e))
				continue;
			if (pass)
				cas[off[d->group[sw] + 1]++] = e;
			else
				off[d->group[sw] + 2]++;
		}
		for (uint32_t G = 0; !pass && G < g; G++)
			off[G + 2] += off[G + 1];
	}
	/* off[G] .. off[G + 1]: the CAs of group G */
	for (uint32_t G = 0; G < g; G++) {
		uint32_t T = (G + 1) % g, nG = off[G + 1] - off[G], nT = off[T + 1] - off[T];

		for (uint32_t i = 0; i < nG && i < nT; i++) {
			uint32_t s = cas[off[G] + i], t = cas[off[T] + i];
			struct an_path p;

			if (an_trace(f, x->r, s, rt_dlid(x->r, f, s, t), rt_path_sl(x->r, s, t), &p))
				goto out;
			x->out->shift_pairs++;
			for (uint32_t k = 0; p.fail == AN_DELIVERED && k + 1 < p.nhops; k++) {
				uint32_t c = ++x->shift[slot(f, p.hops[k].node, p.hops[k].out_port)];

				if (c > x->out->shift_max)
					x->out->shift_max = c;
			}
			an_path_free(&p);
		}
	}
	rc = 0;
out:
	free(off);
	free(cas);
	return rc;
}

int an_dfly_run(const struct fabric *f, const struct rt_routing *r, const struct fab_dfly *d,
		struct an_dfly *out, struct fab_err *err)
{
	struct df_run x = { .f = f, .r = r, .d = d, .out = out };
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (r->nswitches != f->nswitches || r->neps != f->neps) {
		fab_err_set(err, "the routing was made for another fabric");
		return -1;
	}
	out->groups = d->ngroups;
	out->a = d->a;
	out->h = d->h;
	x.cnt = calloc(((size_t)f->nports + 1) * AN_VLS, sizeof(*x.cnt));
	x.shift = calloc((size_t)f->nports + 1, sizeof(*x.shift));
	if (x.cnt && x.shift && !trace_all(&x) && !group_shift(&x)) {
		uint64_t n = out->ca_pairs - out->ca_lost;

		sum_flows(&x);
		out->ca_avg_hops = n ? (double)x.ca_hop_sum / (double)n : 0;
		rc = 0;
	}
	free(x.cnt);
	free(x.shift);
	if (rc) {
		memset(out, 0, sizeof(*out));
		fab_err_set(err, "out of memory");
	}
	return rc;
}

/* --- JSON ------------------------------------------------------------------ */

static json_t *hops_json(const uint64_t *h)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < AN_DF_HOPS; i++)
		json_array_append_new(a, json_integer((json_int_t)h[i]));
	return a;
}

static json_t *flows_json(const struct an_df_flows *fl)
{
	return json_pack("{s:i, s:I, s:I}", "channels", (json_int_t)fl->channels,
			 "min", (json_int_t)fl->min, "max", (json_int_t)fl->max);
}

json_t *an_json_dfly(const struct an_dfly *m)
{
	json_t *vls = json_array(), *lc = flows_json(&m->lc);

	for (unsigned v = 0; vls && v < AN_VLS; v++) {
		json_t *o;

		if (!(m->lc_vls >> v & 1))
			continue;
		o = flows_json(&m->lc_vl[v]);
		json_object_set_new(o, "vl", json_integer(v));
		json_array_append_new(vls, o);
	}
	json_object_set_new(lc, "by_vl", vls);
	return json_pack("{s:i, s:i, s:i, s:{s:I, s:I, s:o, s:f, s:i}, s:{s:I, s:I, s:o},"
			 " s:I, s:I, s:{s:o, s:o, s:o}, s:{s:I, s:I}}",
			 "groups", (json_int_t)m->groups, "a", (json_int_t)m->a, "h", (json_int_t)m->h,
			 "ca_ca", "pairs", (json_int_t)m->ca_pairs, "lost", (json_int_t)m->ca_lost,
			 "hops", hops_json(m->ca_hops), "avg_hops", m->ca_avg_hops,
			 "max_hops", (json_int_t)m->ca_max_hops,
			 "sw_sw", "pairs", (json_int_t)m->sw_pairs, "lost", (json_int_t)m->sw_lost,
			 "hops", hops_json(m->sw_hops),
			 "off_shape", (json_int_t)m->off_shape, "multi_gc", (json_int_t)m->multi_gc,
			 "flows", "tc", flows_json(&m->tc), "lc", lc, "gc", flows_json(&m->gc),
			 "shift", "pairs", (json_int_t)m->shift_pairs, "max", (json_int_t)m->shift_max);
}
