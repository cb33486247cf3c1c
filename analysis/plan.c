/* SPDX-License-Identifier: MIT */
/**
 * DOC: the plan of the per-destination passes
 *
 * What every destination's pass reads and nobody writes, built once per
 * evaluation in O(ports + endpoints):
 *
 *  - every switch port as a step sees it (the next switch and its in port,
 *    the endpoint reached, or nothing), so a step is two array reads;
 *  - the sources counted per switch where they enter, by class: with no
 *    per-pair DLIDs or SLs, every source entering a switch has the same
 *    path, so a destination's pass works on these counts instead of on the
 *    sources one by one;
 *  - the CDG walk starts (the states where sources enter) in the order of
 *    their first source, the order the pair-by-pair walks met them in, so
 *    that walks over loops mark the same VLs;
 *  - for the block pass (analysis/dest_block.c), an order of the switches
 *    in which the next switch towards most destinations comes first: in a
 *    tree, top down;
 *  - the order destinations are taken in: by LID, so that consecutive
 *    destinations read neighbouring LFT entries of every switch (one cache
 *    line serves many), or by endpoint when per-pair tables are read.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

static int build_ports(struct an_plan *p)
{
	const struct fabric *f = p->c.f;
	uint32_t n = 0, widest = 0;

	p->pt_base = malloc(((size_t)f->nswitches + 1) * sizeof(*p->pt_base));
	if (!p->pt_base)
		return -1;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		unsigned np = f->nodes[f->switches[s]].nports;

		p->pt_base[s] = n;
		n += np + 1;
		widest = np > widest ? np : widest;
	}
	p->pt_base[f->nswitches] = n;
	p->npt = n;
	p->wblk = widest + 2;
	p->pt = calloc((size_t)n + 1, sizeof(*p->pt));
	if (!p->pt)
		return -1;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s];
		uint32_t *e = p->pt + p->pt_base[s];

		e[0] = AN_PT(AN_PT_EP, 0, s);
		for (unsigned q = 1; q <= f->nodes[node].nports; q++) {
			const struct fab_port *x = fab_port(f, node, q);
			uint32_t ep;

			if (x->peer == FAB_NONE) {
				e[q] = AN_PT(AN_PT_DOWN, 0, AN_PT_NOVAL);
			} else if (f->nodes[x->peer].type == FAB_SWITCH) {
				e[q] = AN_PT(AN_PT_SW, x->peer_port, f->nodes[x->peer].swidx);
			} else {
				ep = fab_ep_of_node(f, x->peer, x->peer_port);
				e[q] = AN_PT(AN_PT_EP, 0, ep < AN_PT_NOVAL ? ep : AN_PT_NOVAL);
			}
		}
	}
	return 0;
}

static int build_sources(struct an_plan *p)
{
	const struct fabric *f = p->c.f;

	p->n_nonsw = calloc((size_t)f->nswitches + 1, sizeof(*p->n_nonsw));
	p->n_ca = calloc((size_t)f->nswitches + 1, sizeof(*p->n_ca));
	p->direct = malloc(((size_t)f->neps + 1) * sizeof(*p->direct));
	if (!p->n_nonsw || !p->n_ca || !p->direct)
		return -1;
	for (uint32_t e = f->nswitches; e < f->neps; e++) {
		uint32_t first = p->c.first[e];

		if (first == FAB_NONE) {
			p->direct[p->ndirect++] = e;
			continue;
		}
		p->n_nonsw[first]++;
		p->n_ca[first] += f->nodes[f->eps[e].node].type == FAB_CA;
	}
	return 0;
}

/* Walk starts in the order of their first source (CA sources only with ca_only). */
static int build_entries(struct an_plan *p)
{
	const struct fabric *f = p->c.f;
	uint32_t *at = malloc(((size_t)p->nstates + 1) * sizeof(*at));

	p->ent = malloc(((size_t)f->neps + 1) * sizeof(*p->ent));
	p->ent_of = malloc(((size_t)f->neps + 1) * sizeof(*p->ent_of));
	p->ent_n = calloc((size_t)f->nswitches + 1, sizeof(*p->ent_n));
	if (!at || !p->ent || !p->ent_of || !p->ent_n) {
		free(at);
		return -1;
	}
	memset(at, 0xff, (size_t)p->nstates * sizeof(*at));
	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t sw = p->c.first[e], st;

		p->ent_of[e] = FAB_NONE;
		if (sw == FAB_NONE || (p->o.ca_only && f->nodes[f->eps[e].node].type != FAB_CA))
			continue;
		st = an_plan_state(p, sw, p->c.in_port[e]);
		if (at[st] == FAB_NONE) {
			at[st] = p->nent;
			p->ent[p->nent++] = (struct an_entry){ .sw = sw, .state = st,
							      .in = p->c.in_port[e] };
		}
		p->ent[at[st]].n++;
		p->ent_n[sw]++;
		p->ent_of[e] = at[st];
	}
	free(at);
	return 0;
}

/* Switches by hops from the nearest one a non-switch source enters, farthest first. */
static int build_order(struct an_plan *p)
{
	uint32_t nsw = p->c.f->nswitches, head = 0, tail = 0, maxd = 0;
	uint32_t *dist = malloc(((size_t)nsw + 1) * sizeof(*dist));
	uint32_t *queue = malloc(((size_t)nsw + 1) * sizeof(*queue));
	uint32_t *cnt = NULL;

	p->sw_order = malloc(((size_t)nsw + 1) * sizeof(*p->sw_order));
	if (!dist || !queue || !p->sw_order)
		goto fail;
	for (uint32_t s = 0; s < nsw; s++) {
		dist[s] = p->n_nonsw[s] ? 0 : UINT32_MAX;
		if (!dist[s])
			queue[tail++] = s;
	}
	while (head < tail) {
		uint32_t s = queue[head++];

		for (uint32_t i = p->pt_base[s] + 1; i < p->pt_base[s + 1]; i++) {
			uint32_t t = AN_PT_VAL(p->pt[i]);

			if (AN_PT_KIND(p->pt[i]) != AN_PT_SW || dist[t] != UINT32_MAX)
				continue;
			dist[t] = dist[s] + 1;
			maxd = dist[t];
			queue[tail++] = t;
		}
	}
	cnt = calloc((size_t)maxd + 2, sizeof(*cnt));
	if (!cnt)
		goto fail;
	for (uint32_t s = 0; s < nsw; s++)
		cnt[dist[s] == UINT32_MAX ? 0 : maxd - dist[s] + 1]++;	/* unreached first */
	for (uint32_t k = 0, sum = 0; k <= maxd + 1; k++) {
		uint32_t c = cnt[k];

		cnt[k] = sum;
		sum += c;
	}
	for (uint32_t s = 0; s < nsw; s++)
		p->sw_order[cnt[dist[s] == UINT32_MAX ? 0 : maxd - dist[s] + 1]++] = s;
	free(cnt);
	free(dist);
	free(queue);
	return 0;
fail:
	free(dist);
	free(queue);
	return -1;
}

/*
 * What the block pass needs per switch: what its sources send to a
 * destination elsewhere (16 bits each: the block pass runs below 2^16
 * endpoints), and each port's step.
 */
static int build_own(struct an_plan *p)
{
	uint32_t nsw = p->c.f->nswitches;

	p->own_ca = malloc(((size_t)nsw + 1) * sizeof(*p->own_ca));
	p->own_sw = malloc(((size_t)nsw + 1) * sizeof(*p->own_sw));
	p->pcode = malloc(((size_t)p->npt + nsw + 1) * sizeof(*p->pcode));
	if (!p->own_ca || !p->own_sw || !p->pcode)
		return -1;
	for (uint32_t s = 0; s < nsw; s++) {
		uint16_t *pc = p->pcode + p->pt_base[s] + s;
		uint32_t np = p->pt_base[s + 1] - p->pt_base[s];

		for (uint32_t q = 0; q < np; q++) {
			uint32_t e = p->pt[p->pt_base[s] + q];

			pc[q] = AN_PT_KIND(e) == AN_PT_SW ? (uint16_t)AN_PT_VAL(e) :
				AN_PT_KIND(e) == AN_PT_EP ? AN_PC_TERM | AN_WRONG_PORT :
				AN_PC_TERM | AN_LINK_DOWN;
		}
		pc[np] = AN_PC_TERM | AN_LINK_DOWN;	/* past the switch's ports */
	}
	for (uint32_t s = 0; s < nsw; s++) {
		p->own_sw[s] = (1 + p->n_nonsw[s]) & 0xffffu;
		p->own_ca[s] = p->own_sw[s] | (p->n_ca[s] & 0xffffu) << 16;
		p->nn_total += p->n_nonsw[s];
	}
	return 0;
}

int an_plan_init(struct an_plan *p, const struct fabric *f, const struct rt_routing *r,
		 const struct an_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->o = *o;
	if (an_ctx_init(&p->c, f, r))
		return -1;
	p->per_pair = r->dlid_off || r->path_sl;
	p->vl_single = !p->c.has_sl2vl && !r->path_sl;
	p->nvs = p->vl_single ? 1 : AN_VLS;
	p->bits = p->vl_single && !p->per_pair && !o->incremental;
	p->block = p->vl_single && !p->per_pair && !o->all_lids && !o->ca_only;
	p->fast = p->block && p->bits;
	p->nfwd = 1;
	for (uint32_t e = 0; e < f->neps; e++)
		if (p->nfwd < (1u << fab_ep_lmc(f, e)))
			p->nfwd = 1u << fab_ep_lmc(f, e);
	if (build_ports(p))
		goto fail;
	p->nstates = p->c.has_sl2vl ? p->npt : f->nswitches;
	if (build_sources(p) || build_entries(p))
		goto fail;
	if (o->load && !(p->lid_ep = an_load_lid_ep(f)))
		goto fail;
	if (p->block && (build_order(p) || build_own(p)))
		goto fail;
	return 0;
fail:
	an_plan_fini(p);
	return -1;
}

void an_plan_fini(struct an_plan *p)
{
	an_ctx_fini(&p->c);
	free(p->pt_base);
	free(p->pt);
	free(p->n_nonsw);
	free(p->n_ca);
	free(p->direct);
	free(p->ent);
	free(p->ent_of);
	free(p->ent_n);
	free(p->lid_ep);
	free(p->sw_order);
	free(p->own_ca);
	free(p->own_sw);
	free(p->pcode);
	memset(p, 0, sizeof(*p));
}

uint32_t *an_plan_order(const struct an_plan *p)
{
	const struct fabric *f = p->c.f;
	uint32_t *order = malloc(((size_t)f->neps + 1) * sizeof(*order)), *by_lid, k = 0;

	if (!order || p->per_pair) {
		for (uint32_t e = 0; order && e < f->neps; e++)
			order[e] = e;
		return order;
	}
	by_lid = malloc(((size_t)f->lid_top + 2) * sizeof(*by_lid));
	if (!by_lid) {
		free(order);
		return NULL;
	}
	memset(by_lid, 0xff, ((size_t)f->lid_top + 1) * sizeof(*by_lid));
	for (uint32_t e = 0; e < f->neps; e++) {
		unsigned lid = fab_ep_lid(f, e);

		if (lid && lid <= f->lid_top && by_lid[lid] == FAB_NONE)
			by_lid[lid] = e;
		else
			order[k++] = e;
	}
	for (uint32_t lid = 1; lid <= f->lid_top; lid++)
		if (by_lid[lid] != FAB_NONE)
			order[k++] = by_lid[lid];
	free(by_lid);
	return order;
}
