/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - the paths of the path-based engines (papers/002 §5)
 *
 * The context every path-based engine shares (machines, their switches,
 * legal distances), and the paths of all but path selection (that one is
 * engines/lidassign/la_mllf.c).
 *
 * Shortest-widest. Pair after pair, every link starting at weight 1: among
 * the shortest legal paths, the one whose links weigh least in sum (or,
 * with bottleneck, whose heaviest link is lightest, then the sum), ties to
 * the lower port at the first differing hop; each link of the chosen path
 * then weighs one more. Weights are per directed link, like the loads.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/lidassign/la_impl.h"

int la_ctx_init(struct la_ctx *c, const struct fabric *f, const struct la_updn *u,
		struct fab_err *err)
{
	uint32_t ns = f->nswitches, *q = malloc(2 * ((size_t)ns + 1) * sizeof(*q));

	memset(c, 0, sizeof(*c));
	c->f = f;
	c->u = u;
	c->ns = ns;
	c->nports = 1;
	for (uint32_t s = 0; s < ns; s++)
		if (f->nodes[f->switches[s]].nports + 1u > c->nports)
			c->nports = f->nodes[f->switches[s]].nports + 1u;
	c->ca = malloc(((size_t)f->neps + 1) * sizeof(*c->ca));
	c->epsw = malloc(((size_t)f->neps + 1) * sizeof(*c->epsw));
	c->linkof = malloc(((size_t)ns * c->nports + 1) * sizeof(*c->linkof));
	c->du = malloc(((size_t)ns * ns + 1) * sizeof(*c->du));
	c->dd = malloc(((size_t)ns * ns + 1) * sizeof(*c->dd));
	if (!q || !c->ca || !c->epsw || !c->linkof || !c->du || !c->dd) {
		free(q);
		la_ctx_free(c);
		fab_err_set(err, "out of memory");
		return -1;
	}
	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t node = f->eps[e].node;
		const struct fab_port *p = fab_port(f, node, f->eps[e].port);

		if (f->nodes[node].type == FAB_SWITCH) {
			c->epsw[e] = f->nodes[node].swidx;
			continue;
		}
		c->epsw[e] = p->peer != FAB_NONE && f->nodes[p->peer].type == FAB_SWITCH ?
			     f->nodes[p->peer].swidx : FAB_NONE;
		if (c->epsw[e] != FAB_NONE)
			c->ca[c->nca++] = e;
	}
	for (size_t i = 0; i < (size_t)ns * c->nports; i++)
		c->linkof[i] = UINT32_MAX;
	for (uint32_t s = 0; s < ns; s++)
		for (uint32_t k = u->adj.off[s]; k < u->adj.off[s + 1]; k++)
			c->linkof[(size_t)s * c->nports + u->adj.port[k]] = k;
	for (uint32_t t = 0; t < ns; t++)
		la_updn_dist(u, t, c->du + (size_t)t * ns, c->dd + (size_t)t * ns, q);
	free(q);
	return 0;
}

void la_ctx_free(struct la_ctx *c)
{
	free(c->ca);
	free(c->epsw);
	free(c->linkof);
	free(c->du);
	free(c->dd);
	memset(c, 0, sizeof(*c));
}

int la_ctx_add(const struct la_ctx *c, struct fmt_paths *ps, uint32_t src, uint32_t dst,
	       const struct la_hop *h, uint32_t n)
{
	const struct fabric *f = c->f;
	struct fmt_hop hops[256];
	uint32_t dsw = c->epsw[dst];

	if (n + 1 > sizeof(hops) / sizeof(hops[0]))
		return -1;
	for (uint32_t i = 0; i < n; i++)
		hops[i] = (struct fmt_hop){ f->switches[h[i].node], (uint8_t)h[i].port };
	hops[n] = (struct fmt_hop){ f->switches[dsw],
				    (uint8_t)(f->nodes[f->eps[dst].node].type == FAB_SWITCH ? 0 :
					      fab_port(f, f->eps[dst].node, f->eps[dst].port)->peer_port) };
	return fmt_paths_add(ps, src, dst, 0, hops, n + 1);
}

/* --- shortest-widest ------------------------------------------------------------ */

struct wide {
	const struct la_ctx *c;
	const uint16_t *du, *dd;
	uint32_t *w;		/* per link weight */
	uint64_t *cost;		/* per state (x, phase): best (max << 32 | sum) to the end */
	uint32_t *stamp, *choice, round;
	int bottleneck;
};

static uint64_t combine(const struct wide *w, uint32_t lw, uint64_t rest)
{
	uint64_t mx = rest >> 32, sum = (rest & 0xffffffffu) + lw;

	if (!w->bottleneck)
		return sum;
	return (lw > mx ? lw : mx) << 32 | sum;
}

/* Least cost from state (x, down) to the destination along shortest legal hops. */
static uint64_t best(struct wide *w, uint32_t x, int down)
{
	const struct la_updn *u = w->c->u;
	uint32_t st = x * 2 + (uint32_t)down;
	uint16_t left = down ? w->dd[x] : w->du[x];
	uint64_t bc = UINT64_MAX;

	if (w->stamp[st] == w->round)
		return w->cost[st];
	w->stamp[st] = w->round;
	w->choice[st] = UINT32_MAX;
	if (!left)
		bc = 0;
	for (uint32_t k = u->adj.off[x]; k < u->adj.off[x + 1] && left; k++) {
		uint32_t y = u->adj.peer[k];
		int up = la_updn_up(u, x, y), nd;
		uint64_t cst;

		if (up && !down && w->du[y] == left - 1)
			nd = 0;
		else if (!up && w->dd[y] == left - 1)
			nd = 1;
		else
			continue;
		cst = combine(w, w->w[k], best(w, y, nd));
		if (cst < bc) {
			bc = cst;
			w->choice[st] = k;
		}
	}
	w->cost[st] = bc;
	return bc;
}

static int widest_pair(struct wide *w, struct fmt_paths *ps, uint32_t src, uint32_t dst)
{
	const struct la_ctx *c = w->c;
	uint32_t a = c->epsw[src], b = c->epsw[dst], n = 0, x = a;
	struct la_hop hops[256];
	int down = 0;

	w->du = c->du + (size_t)b * c->ns;
	w->dd = c->dd + (size_t)b * c->ns;
	if (w->du[a] == UINT16_MAX || w->du[a] >= 256)
		return 1;
	w->round++;
	best(w, a, 0);
	while (x != b) {
		uint32_t k = w->choice[x * 2 + (uint32_t)down], y = c->u->adj.peer[k];

		hops[n++] = (struct la_hop){ x, c->u->adj.port[k] };
		w->w[k]++;
		down = !la_updn_up(c->u, x, y);
		x = y;
	}
	return la_ctx_add(c, ps, src, dst, hops, n) ? -1 : 0;
}

int la_paths_widest(const struct la_ctx *c, int dst_major, int bottleneck, struct fmt_paths *ps,
		    struct fab_err *err)
{
	size_t nst = 2 * (size_t)c->ns + 1;
	struct wide w = { .c = c, .bottleneck = bottleneck };
	int rc = -1;

	w.w = malloc(((size_t)c->u->adj.off[c->ns] + 1) * sizeof(*w.w));
	w.cost = malloc(nst * sizeof(*w.cost));
	w.stamp = calloc(nst, sizeof(*w.stamp));
	w.choice = malloc(nst * sizeof(*w.choice));
	if (!w.w || !w.cost || !w.stamp || !w.choice) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	for (uint32_t l = 0; l < c->u->adj.off[c->ns]; l++)
		w.w[l] = 1;
	for (uint32_t i = 0; i < c->nca; i++)
		for (uint32_t j = 0; j < c->nca; j++) {
			uint32_t s = dst_major ? c->ca[j] : c->ca[i], d = dst_major ? c->ca[i] : c->ca[j];
			int r;

			if (i == j)
				continue;
			r = widest_pair(&w, ps, s, d);
			if (r > 0)
				fab_err_set(err, "no legal up/down path from switch '%s' to switch '%s'",
					    FAB_LABEL(c->f, c->f->switches[c->epsw[s]]),
					    FAB_LABEL(c->f, c->f->switches[c->epsw[d]]));
			else if (r < 0)
				fab_err_set(err, "out of memory");
			if (r)
				goto out;
		}
	rc = 0;
out:
	free(w.w);
	free(w.cost);
	free(w.stamp);
	free(w.choice);
	return rc;
}

/* --- paths traced through tables ------------------------------------------------------ */

int la_paths_trace(const struct la_ctx *c, const struct rt_routing *r, struct fmt_paths *ps,
		   struct fab_err *err)
{
	const struct fabric *f = c->f;
	struct la_hop hops[256];

	for (uint32_t i = 0; i < c->nca; i++)
		for (uint32_t j = 0; j < c->nca; j++) {
			uint32_t s = c->ca[i], d = c->ca[j], x = c->epsw[s], n = 0;
			unsigned lid = fab_ep_lid(f, d);

			if (i == j)
				continue;
			while (x != c->epsw[d]) {
				unsigned port = rt_lft_get(r, x, lid);
				uint32_t y = port == RT_NO_PORT ? FAB_NONE : fab_sw_peer(f, x, port);

				if (y == FAB_NONE || n == 255) {
					fab_err_set(err, "LID %u is not routed from switch '%s'", lid,
						    FAB_LABEL(f, f->switches[x]));
					return -1;
				}
				hops[n++] = (struct la_hop){ x, port };
				x = y;
			}
			if (la_ctx_add(c, ps, s, d, hops, n)) {
				fab_err_set(err, "out of memory");
				return -1;
			}
		}
	return 0;
}

/* --- fully explicit ------------------------------------------------------------------- */

int la_paths_explicit(struct la_ctx *c, struct fmt_paths *ps, struct fab_err *err)
{
	const struct fabric *f = c->f;
	struct fmt_paths none = { 0 };
	struct la_assign zero = { 0 };
	struct fab_lid_pin *pins = NULL;
	struct fabric *g = NULL;
	struct rt_routing *r = NULL;
	struct la_stats st;
	size_t n;
	int rc = -1;

	zero.k = calloc((size_t)f->neps + 1, sizeof(*zero.k));
	zero.lmc = calloc((size_t)f->neps + 1, 1);
	if (!zero.k || !zero.lmc) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	if (la_plan(f, zero.lmc, &pins, &n, err) || !(g = fab_copy(f, err)) ||
	    fab_lids_assign(g, pins, n, FAB_LIDS_RENEW, 0, err))
		goto out;
	if (!(r = rt_new(g))) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	c->f = g;
	rc = la_realise(g, &none, &zero, c->u, r, &st, err) || la_paths_trace(c, r, ps, err) ?
	     -1 : 0;
	c->f = f;
out:
	free(zero.k);
	free(zero.lmc);
	free(pins);
	rt_free(r);
	fab_free(g);
	return rc;
}
