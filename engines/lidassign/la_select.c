/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - the paths of the path-based engines (papers/002 §5)
 *
 * Path selection. Every machine pair gets legal Up*\/Down* paths between
 * its switches as candidates, at most @max of them: Yen's k shortest
 * (la_updn_kpaths(), longer paths included), or only the minimal-length
 * ones (depth first in port order; papers/002: "a maximum of 16 shortest
 * paths ... some pairs may not have 16"). Most-loaded-link-first (Koibuchi
 * et al.) then
 * removes candidates until each pair has one: a directed switch link's load
 * is the sum over the pairs of (their candidates on it) / (their candidate
 * count), kept exactly as integers scaled by lcm(1..16) = 720720; the most
 * loaded link (ties: the lower link index) loses one candidate of a pair
 * that still has more than one: the longest, then the one whose pair has
 * the most candidates, then the lowest (pair, candidate) index. A link none
 * of whose candidates can go any more is left alone. Per link, a heap of
 * (length, count, index) keys finds that candidate; entries made stale by a
 * count change are dropped when met.
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

#define SCALE 720720u	/* lcm(1..16): every 1/count is an integer */

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

/* --- path selection --------------------------------------------------------------- */

struct lheap {
	uint64_t *e;
	uint32_t n, cap;
};

/*
 * struct sel - path selection at work
 * @cstart, @spn: per switch pair (a * ns + b), its first candidate and how
 *                many there are; candidate i is the @clen[i] hops at
 *                @hops + @cofs[i]
 * @psp: per machine pair, its switch pair
 * @alive, @cnt: per machine pair, its candidates left (bit c) and how many
 * @load: per link, scaled load; @lh: per link, its removable candidates
 * @gh, @gpos, @gn: the links with removable candidates, a max-heap by load
 * @mult: per link, its cables (parallel cables bundled, la_bundle.c); NULL: 1
 */
struct sel {
	const struct la_ctx *c;
	uint32_t npairs;
	uint32_t *cstart;
	uint8_t *spn;
	struct la_hop *hops;
	size_t nhops, hcap;
	size_t *cofs;
	uint8_t *clen;
	uint32_t ncands, ccap;
	uint32_t *psp;
	uint16_t *alive;
	uint8_t *cnt;
	uint64_t *load;
	int64_t *delta;		/* per link, the change being summed up */
	uint32_t *dl, ndl;	/* the links with a change */
	struct lheap *lh;
	uint32_t *gh, *gpos, gn, nlinks;
	const uint32_t *mult;
};

static void pair_ends(const struct sel *s, uint32_t p, uint32_t *a, uint32_t *b)
{
	uint32_t n = s->c->nca, i = p / (n - 1), j = p % (n - 1);

	*a = s->c->epsw[s->c->ca[i]];
	*b = s->c->epsw[s->c->ca[j >= i ? j + 1 : j]];
}

static uint32_t cand_len(const struct sel *s, uint32_t p, uint32_t k)
{
	return s->clen[s->cstart[s->psp[p]] + k];
}

static const struct la_hop *cand(const struct sel *s, uint32_t p, uint32_t k)
{
	return s->hops + s->cofs[s->cstart[s->psp[p]] + k];
}

static uint32_t link_of(const struct sel *s, const struct la_hop *h)
{
	return s->c->linkof[(size_t)h->node * s->c->nports + h->port];
}

/* Room for @nh more hops and @nc more candidates; 0 or -1. */
static int sel_room(struct sel *s, size_t nh, uint32_t nc)
{
	if (s->nhops + nh > s->hcap) {
		size_t cap = s->hcap ? s->hcap * 2 : 4096;
		struct la_hop *h;

		while (cap < s->nhops + nh)
			cap *= 2;
		if (!(h = realloc(s->hops, cap * sizeof(*h))))
			return -1;
		s->hops = h;
		s->hcap = cap;
	}
	if (s->ncands + nc > s->ccap) {
		uint32_t cap = s->ccap ? s->ccap * 2 : 1024;
		size_t *o;
		uint8_t *l;

		while (cap < s->ncands + nc)
			cap *= 2;
		if (!(o = realloc(s->cofs, cap * sizeof(*o))))
			return -1;
		s->cofs = o;
		if (!(l = realloc(s->clen, cap)))
			return -1;
		s->clen = l;
		s->ccap = cap;
	}
	return 0;
}

/* The candidates of switch pair (@a, @b): the shortest legal paths, or Yen's (@yen). */
static int pair_cands(struct sel *s, uint32_t a, uint32_t b, uint32_t max, int yen,
		      struct la_hop *tmp, uint32_t *tlen)
{
	const struct la_ctx *c = s->c;
	uint32_t ns = c->ns, n, len = c->du[(size_t)b * ns + a];

	if (yen) {
		n = la_updn_kpaths(c->u, a, b, max, tmp, tlen);
	} else {
		n = la_updn_paths(c->u, a, b, c->du + (size_t)b * ns, c->dd + (size_t)b * ns, max, tmp);
		for (uint32_t i = 0; i < n; i++)
			tlen[i] = len;
	}
	if (sel_room(s, (size_t)ns * n, n))
		return -1;
	s->cstart[(size_t)a * ns + b] = s->ncands;
	s->spn[(size_t)a * ns + b] = (uint8_t)n;
	for (uint32_t i = 0; i < n; i++) {
		const struct la_hop *h = yen ? tmp + (size_t)i * LA_HOPS_MAX : tmp + (size_t)i * len;

		if (tlen[i] > LA_HOPS_MAX)
			return 1;
		memcpy(s->hops + s->nhops, h, tlen[i] * sizeof(*h));
		s->cofs[s->ncands] = s->nhops;
		s->clen[s->ncands++] = (uint8_t)tlen[i];
		s->nhops += tlen[i];
	}
	return 0;
}

/* Candidates of every switch pair holding machines at both ends. */
static int sel_cands(struct sel *s, uint32_t max, int yen)
{
	const struct la_ctx *c = s->c;
	uint32_t ns = c->ns, tlen[16];
	uint8_t *has = calloc((size_t)ns + 1, 1);
	struct la_hop *tmp = malloc(((size_t)(ns > LA_HOPS_MAX ? ns : LA_HOPS_MAX) * max + 1) *
				    sizeof(*tmp));
	int rc = has && tmp ? 0 : -1;

	for (uint32_t i = 0; !rc && i < c->nca; i++)
		has[c->epsw[c->ca[i]]] = 1;
	for (uint32_t a = 0; !rc && a < ns; a++)
		for (uint32_t b = 0; !rc && b < ns; b++)
			if (has[a] && has[b] && c->du[(size_t)b * ns + a] != UINT16_MAX)
				rc = pair_cands(s, a, b, max, yen, tmp, tlen);
	free(has);
	free(tmp);
	return rc;
}

/* --- the heaps ---- */

static int gless(const struct sel *s, uint32_t x, uint32_t y)	/* x above y */
{
	uint64_t lx = s->load[x], ly = s->load[y];

	if (s->mult) {		/* load per cable: compare lx / mx with ly / my */
		lx *= s->mult[y];
		ly *= s->mult[x];
	}
	return lx != ly ? lx > ly : x < y;
}

static void gswap(struct sel *s, uint32_t i, uint32_t j)
{
	uint32_t t = s->gh[i];

	s->gh[i] = s->gh[j];
	s->gh[j] = t;
	s->gpos[s->gh[i]] = i;
	s->gpos[s->gh[j]] = j;
}

static void gfix(struct sel *s, uint32_t l)
{
	uint32_t i = s->gpos[l];

	if (i == UINT32_MAX)
		return;
	while (i && gless(s, s->gh[i], s->gh[(i - 1) / 2])) {
		gswap(s, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		uint32_t a = 2 * i + 1, b = a + 1, m = i;

		if (a < s->gn && gless(s, s->gh[a], s->gh[m]))
			m = a;
		if (b < s->gn && gless(s, s->gh[b], s->gh[m]))
			m = b;
		if (m == i)
			return;
		gswap(s, i, m);
		i = m;
	}
}

static void gremove(struct sel *s, uint32_t l)
{
	uint32_t i = s->gpos[l], last = s->gh[--s->gn];

	s->gpos[l] = UINT32_MAX;
	if (last == l)
		return;
	s->gh[i] = last;
	s->gpos[last] = i;
	gfix(s, last);
}

static int lpush(struct lheap *h, uint64_t key)
{
	uint32_t i;

	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 8;
		uint64_t *e = realloc(h->e, cap * sizeof(*e));

		if (!e)
			return -1;
		h->e = e;
		h->cap = cap;
	}
	for (i = h->n++; i && h->e[(i - 1) / 2] > key; i = (i - 1) / 2)
		h->e[i] = h->e[(i - 1) / 2];
	h->e[i] = key;
	return 0;
}

static void lpop(struct lheap *h)
{
	uint64_t x = h->e[--h->n];
	uint32_t i = 0;

	for (;;) {
		uint32_t a = 2 * i + 1, m = a;

		if (a >= h->n)
			break;
		if (a + 1 < h->n && h->e[a + 1] < h->e[a])
			m = a + 1;
		if (h->e[m] >= x)
			break;
		h->e[i] = h->e[m];
		i = m;
	}
	if (h->n)
		h->e[i] = x;
}

/* Key: longest first, then most candidates, then lowest (pair, candidate). */
static uint64_t key(uint32_t len, uint32_t cnt, uint32_t p, uint32_t k)
{
	return (uint64_t)(63 - (len > 63 ? 63 : len)) << 58 | (uint64_t)(31 - cnt) << 53 |
	       (uint64_t)p << 4 | k;
}

/* The entries of pair @p's live candidates, with its current count. */
static int push_pair(struct sel *s, uint32_t p)
{
	if (s->cnt[p] < 2)
		return 0;
	for (uint32_t k = 0; k < 16; k++) {
		const struct la_hop *h;
		uint32_t len;

		if (!(s->alive[p] >> k & 1))
			continue;
		h = cand(s, p, k);
		len = cand_len(s, p, k);
		for (uint32_t i = 0; i < len; i++)
			if (lpush(&s->lh[link_of(s, &h[i])], key(len, s->cnt[p], p, k)))
				return -1;
	}
	return 0;
}

/* Add @w to the load of each link of each live candidate of @p (summed in s->delta). */
static void pair_delta(struct sel *s, uint32_t p, int64_t w)
{
	for (uint16_t m = s->alive[p]; m; m &= (uint16_t)(m - 1)) {
		const struct la_hop *h = cand(s, p, (uint32_t)__builtin_ctz(m));
		uint32_t len = cand_len(s, p, (uint32_t)__builtin_ctz(m));

		for (uint32_t i = 0; i < len; i++) {
			uint32_t l = link_of(s, &h[i]);

			if (!s->delta[l])
				s->dl[s->ndl++] = l;
			else if (s->delta[l] == INT64_MIN)
				s->delta[l] = 0;
			s->delta[l] += w;
			if (!s->delta[l])	/* back to 0: keep it listed once */
				s->delta[l] = INT64_MIN;
		}
	}
}

/* Apply the summed changes; each changed link moves in the heap once. */
static void apply_delta(struct sel *s)
{
	for (uint32_t i = 0; i < s->ndl; i++) {
		uint32_t l = s->dl[i];
		int64_t d = s->delta[l] == INT64_MIN ? 0 : s->delta[l];

		s->delta[l] = 0;
		if (!d)
			continue;
		s->load[l] = (uint64_t)((int64_t)s->load[l] + d);
		gfix(s, l);
	}
	s->ndl = 0;
}

static void remove_cand(struct sel *s, uint32_t p, uint32_t k)
{
	pair_delta(s, p, -(int64_t)(SCALE / s->cnt[p]));
	s->alive[p] &= (uint16_t)~(1u << k);
	s->cnt[p]--;
	pair_delta(s, p, (int64_t)(SCALE / s->cnt[p]));
	apply_delta(s);
}

static int sel_init(struct sel *s, uint64_t *cands)
{
	uint32_t nl = s->nlinks;

	s->alive = malloc(((size_t)s->npairs + 1) * sizeof(*s->alive));
	s->cnt = malloc((size_t)s->npairs + 1);
	s->psp = malloc(((size_t)s->npairs + 1) * sizeof(*s->psp));
	s->delta = calloc((size_t)nl + 1, sizeof(*s->delta));
	s->dl = malloc(((size_t)nl + 1) * sizeof(*s->dl));
	s->load = calloc((size_t)nl + 1, sizeof(*s->load));
	s->lh = calloc((size_t)nl + 1, sizeof(*s->lh));
	s->gh = malloc(((size_t)nl + 1) * sizeof(*s->gh));
	s->gpos = malloc(((size_t)nl + 1) * sizeof(*s->gpos));
	if (!s->alive || !s->cnt || !s->load || !s->lh || !s->gh || !s->gpos || !s->psp ||
	    !s->delta || !s->dl)
		return -1;
	for (uint32_t l = 0; l < nl; l++)
		s->gpos[l] = UINT32_MAX;
	for (uint32_t p = 0; p < s->npairs; p++) {
		uint32_t a, b;

		pair_ends(s, p, &a, &b);
		s->psp[p] = a * s->c->ns + b;
		s->cnt[p] = a == b ? 1 : s->spn[(size_t)a * s->c->ns + b];
		s->alive[p] = (uint16_t)((1u << s->cnt[p]) - 1);
		*cands += s->cnt[p];
		if (!s->cnt[p])
			continue;
		pair_delta(s, p, (int64_t)(SCALE / s->cnt[p]));
		if (push_pair(s, p))
			return -1;
	}
	for (uint32_t i = 0; i < s->ndl; i++) {
		uint32_t l = s->dl[i];

		s->load[l] = s->delta[l] == INT64_MIN ? 0 : (uint64_t)s->delta[l];
		s->delta[l] = 0;
	}
	s->ndl = 0;
	for (uint32_t l = 0; l < nl; l++)
		if (s->lh[l].n) {
			s->gh[s->gn] = l;
			s->gpos[l] = s->gn++;
			gfix(s, l);
		}
	return 0;
}

/*
 * Most loaded link first, until no link has a removable candidate. A
 * candidate's heap entry carries its pair's count when it was made; counts
 * only drop, so an entry's key only grows: an entry met with an old count
 * goes back with the current one (the heap's top is then still the true
 * first).
 */
static int mllf(struct sel *s, uint64_t *removed)
{
	while (s->gn) {
		uint32_t l = s->gh[0], p, k, cnt;
		struct lheap *h = &s->lh[l];
		uint64_t e;

		if (!h->n) {
			gremove(s, l);
			continue;
		}
		e = h->e[0];
		lpop(h);
		p = (uint32_t)(e >> 4 & ((1ull << 49) - 1));
		k = (uint32_t)(e & 15);
		cnt = 31 - (uint32_t)(e >> 53 & 31);
		if (!(s->alive[p] >> k & 1) || s->cnt[p] < 2)
			continue;
		if (s->cnt[p] != cnt) {
			if (lpush(h, key(cand_len(s, p, k), s->cnt[p], p, k)))
				return -1;
			continue;
		}
		remove_cand(s, p, k);
		++*removed;
	}
	return 0;
}

static void sel_free(struct sel *s)
{
	for (uint32_t l = 0; s->lh && l < s->nlinks; l++)
		free(s->lh[l].e);
	free(s->lh);
	free(s->cstart);
	free(s->spn);
	free(s->hops);
	free(s->cofs);
	free(s->clen);
	free(s->alive);
	free(s->cnt);
	free(s->psp);
	free(s->delta);
	free(s->dl);
	free(s->load);
	free(s->gh);
	free(s->gpos);
}

/* la_bundle_path_fn: the path chosen for pair @p (none between machines of one switch). */
static uint32_t sel_path(void *arg, uint32_t p, const struct la_hop **h)
{
	const struct sel *s = arg;
	uint32_t a, b, k;

	pair_ends(s, p, &a, &b);
	if (a == b || !s->cnt[p])
		return 0;
	k = (uint32_t)__builtin_ctz(s->alive[p]);
	*h = cand(s, p, k);
	return cand_len(s, p, k);
}

/* Every pair's path into @ps, each bundled hop on the cable its destination got. */
static int sel_emit(const struct sel *s, const struct la_ctx *c, const struct la_bundle *b,
		    const struct la_spread *sp, struct fmt_paths *ps, struct fab_err *err)
{
	struct la_hop cable[LA_HOPS_MAX];

	for (uint32_t p = 0; p < s->npairs; p++) {
		uint32_t i = p / (c->nca - 1), j = p % (c->nca - 1), a, bb, n;
		const struct la_hop *h = NULL;

		j += j >= i;
		pair_ends(s, p, &a, &bb);
		if (!s->cnt[p]) {
			fab_err_set(err, "no legal up/down path from switch '%s' to switch '%s'",
				    FAB_LABEL(c->f, c->f->switches[a]),
				    FAB_LABEL(c->f, c->f->switches[bb]));
			return -1;
		}
		n = sel_path((void *)s, p, &h);
		for (uint32_t x = 0; b->any && x < n; x++)
			cable[x] = (struct la_hop){ h[x].node, la_bundle_port(b, c, sp, &h[x], j) };
		if (la_ctx_add(c, ps, c->ca[i], c->ca[j], b->any ? cable : h, n)) {
			fab_err_set(err, "out of memory");
			return -1;
		}
	}
	return 0;
}

int la_paths_select(const struct la_ctx *c0, uint32_t max, int yen, struct fmt_paths *ps,
		    struct la_sel_stats *st, struct fab_err *err)
{
	struct la_bundle b;
	struct la_spread sp = { 0 };
	struct la_ctx cb;
	const struct la_ctx *c = c0;
	struct sel s = { 0 };
	size_t nsp = (size_t)c0->ns * c0->ns + 1;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	if (max > 16)
		max = 16;
	if (c0->nca < 2)
		return 0;
	if (la_bundle_init(&b, c0, err))
		return -1;
	if (b.any) {	/* parallel cables: select over bundles, spread over cables after */
		cb = *c0;
		cb.u = &b.ub;
		cb.linkof = b.linkof;
		c = &cb;
		s.mult = b.mult;
	}
	s.c = c;
	s.nlinks = c->u->adj.off[c->ns];
	s.npairs = c->nca * (c->nca - 1);
	s.cstart = calloc(nsp, sizeof(*s.cstart));
	s.spn = calloc(nsp, 1);
	rc = s.cstart && s.spn ? sel_cands(&s, max, yen) : -1;
	if (rc > 0) {
		fab_err_set(err, "a shortest legal up/down path is longer than %u hops", LA_HOPS_MAX);
		rc = -1;
		goto out;
	}
	if (rc || sel_init(&s, &st->cands) || mllf(&s, &st->removed) ||
	    (b.any && la_bundle_spread(&b, c, &sp, sel_path, &s))) {
		fab_err_set(err, "out of memory");
		rc = -1;
		goto out;
	}
	rc = sel_emit(&s, c, &b, &sp, ps, err);
out:
	la_spread_free(&sp);
	la_bundle_free(&b);
	sel_free(&s);
	return rc;
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
