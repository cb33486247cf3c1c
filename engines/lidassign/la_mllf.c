/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - path selection (papers/002 §5): most-loaded-link-first
 *
 * Every machine pair gets legal Up*\/Down* paths between its switches as
 * candidates, at most @max of them: Yen's k shortest (la_updn_kpaths(),
 * longer paths included), or only the minimal-length ones (depth first in
 * port order; papers/002: "a maximum of 16 shortest paths ... some pairs may
 * not have 16"). Most-loaded-link-first (Koibuchi et al.) then removes
 * candidates until each pair has one: a directed switch link's load is the
 * sum over the pairs of (their candidates on it) / (their candidate count),
 * kept exactly as integers scaled by lcm(1..16) = 720720; the most loaded
 * link (ties: the lower link index) loses one candidate of a pair that
 * still has more than one: the longest, then the one whose pair has the
 * most candidates, then the lowest (pair, candidate) index. A link none of
 * whose candidates can go any more is left alone.
 *
 * What it costs. The candidates are those of the switch pairs (the machine
 * pairs of one switch pair share them), so they take memory in the number
 * of switch pairs, not machine pairs. A machine pair keeps only which of
 * its switch pair's candidates are left (a 16-bit mask and a count). Per
 * link, a heap holds one key per (switch pair, candidate) crossing it: the
 * key of that candidate's first machine pair in the order above (most
 * candidates, then lowest index); each switch pair keeps its machine pairs
 * in that order, with a cursor per candidate past the pairs that lost it,
 * so finding the first one that still has a candidate costs, over the
 * whole run, about one step per pair and candidate. Keys only grow (counts only drop), so an entry met with a key
 * grown meanwhile goes back with its new one and the heap's top is still
 * the true first: the pairs removed, and so the paths, are the ones a heap
 * of every machine pair's candidates would give. Memory per machine pair:
 * 11 bytes, and 64 per switch pair for the cursors.
 *
 * The selection is then read one destination at a time (la_sel_dest()), so
 * the paths of every pair are never all held at once.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/lidassign/la_impl.h"

#define SCALE 720720u	/* lcm(1..16): every 1/count is an integer */
#define NONE UINT32_MAX
/* Check whether to stop this often (loop turns): cheap against a clock read. */
#define STOP_EVERY 4096u

/*
 * struct la_sel - path selection at work, and its result
 * @cstart, @spn: per switch pair (a * ns + b), its first candidate and how
 *                many there are; candidate i is the @clen[i] hops at
 *                @hops + @cofs[i]
 * @psp: per machine pair, its switch pair
 * @alive, @cnt: per machine pair, its candidates left (bit c) and how many
 * @first, @order: per switch pair, its machine pairs @order[@first[sp] ..
 *                 @first[sp + 1]), most candidates first, then lowest index
 * @cur: per switch pair and candidate k, where in @order to look for the
 *       first pair that has k: every pair before it lacks k (for good)
 * @load: per link, scaled load; @lh: per link, a key per (switch pair,
 *        candidate) crossing it that may still lose a candidate
 * @g: the links with such keys, a max-heap by load per cable (la_heap.c)
 * @cb, @b, @mult: with parallel cables, the switch graph with each set of
 *                 them as one link (la_bundle.c) and its cables per link
 *                 (NULL: 1); @c is then @cb
 * @sp: with parallel cables, the cable of each (bundle, destination)
 */
struct la_sel {
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
	uint32_t *first, *order, *cur;
	uint64_t *load;
	int64_t *delta;		/* per link, the change being summed up */
	uint32_t *dl, ndl;	/* the links with a change */
	struct la_keys *lh;
	struct la_links g;
	uint32_t nlinks;
	uint32_t *machine;	/* per endpoint, its index in c->ca (NONE: not a machine) */
	struct la_ctx cb;
	struct la_bundle b;
	const uint32_t *mult;
	struct la_spread sp;
};

static void pair_ends(const struct la_sel *s, uint32_t p, uint32_t *a, uint32_t *b)
{
	uint32_t n = s->c->nca, i = p / (n - 1), j = p % (n - 1);

	*a = s->c->epsw[s->c->ca[i]];
	*b = s->c->epsw[s->c->ca[j >= i ? j + 1 : j]];
}

static uint32_t sp_len(const struct la_sel *s, uint32_t sp, uint32_t k)
{
	return s->clen[s->cstart[sp] + k];
}

static uint32_t cand_len(const struct la_sel *s, uint32_t p, uint32_t k)
{
	return sp_len(s, s->psp[p], k);
}

static const struct la_hop *sp_cand(const struct la_sel *s, uint32_t sp, uint32_t k)
{
	return s->hops + s->cofs[s->cstart[sp] + k];
}

static const struct la_hop *cand(const struct la_sel *s, uint32_t p, uint32_t k)
{
	return sp_cand(s, s->psp[p], k);
}

static uint32_t link_of(const struct la_sel *s, const struct la_hop *h)
{
	return s->c->linkof[(size_t)h->node * s->c->nports + h->port];
}

/* Room for @nh more hops and @nc more candidates; 0 or -1. */
static int sel_room(struct la_sel *s, size_t nh, uint32_t nc)
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
static int pair_cands(struct la_sel *s, uint32_t a, uint32_t b, uint32_t max, int yen,
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

/* Candidates of every switch pair holding machines at both ends; 2 when stopped. */
static int sel_cands(struct la_sel *s, uint32_t max, int yen)
{
	const struct la_ctx *c = s->c;
	uint32_t ns = c->ns, tlen[16];
	uint8_t *has = calloc((size_t)ns + 1, 1);
	struct la_hop *tmp = malloc(((size_t)(ns > LA_HOPS_MAX ? ns : LA_HOPS_MAX) * max + 1) *
				    sizeof(*tmp));
	int rc = has && tmp ? 0 : -1;

	for (uint32_t i = 0; !rc && i < c->nca; i++)
		has[c->epsw[c->ca[i]]] = 1;
	for (uint32_t a = 0; !rc && a < ns; a++) {
		if (c->q && eng_stopped(c->q))
			rc = 2;
		for (uint32_t b = 0; !rc && b < ns; b++)
			if (has[a] && has[b] && c->du[(size_t)b * ns + a] != UINT16_MAX)
				rc = pair_cands(s, a, b, max, yen, tmp, tlen);
	}
	free(has);
	free(tmp);
	return rc;
}

/* Key: longest first, then most candidates, then lowest (pair, candidate). */
static uint64_t key(uint32_t len, uint32_t cnt, uint32_t p, uint32_t k)
{
	return (uint64_t)(63 - (len > 63 ? 63 : len)) << 58 | (uint64_t)(31 - cnt) << 53 |
	       (uint64_t)p << 4 | k;
}

/* --- the machine pairs of each switch pair, in key order ---- */

/* The order of machine pairs within a switch pair: most candidates, then lowest index. */
static uint64_t rank(const struct la_sel *s, uint32_t p)
{
	return (uint64_t)(31 - s->cnt[p]) << 32 | p;
}

/*
 * The first machine pair of switch pair @sp that may lose candidate @k;
 * NONE if none. The pairs passed lack k and never get it back: the cursor
 * moves past them for good.
 */
static uint32_t best(struct la_sel *s, uint32_t sp, uint32_t k)
{
	uint32_t *cur = &s->cur[(size_t)sp * 16 + k];

	for (; *cur < s->first[sp + 1]; ++*cur) {
		uint32_t p = s->order[*cur];

		if (s->cnt[p] < 2)
			return NONE;	/* the rest have one candidate too */
		if (s->alive[p] >> k & 1)
			return p;
	}
	return NONE;
}

/* The key (sp, k) has on the links of its candidate: its best pair's; 0 if none. */
static uint64_t sp_key(struct la_sel *s, uint32_t sp, uint32_t k)
{
	uint32_t p = best(s, sp, k);

	return p == NONE ? 0 : key(sp_len(s, sp, k), s->cnt[p], p, k);
}

/*
 * @p lost a candidate (s->cnt[p] is one less): move it to its place in its
 * switch pair, the pairs it passes one place back; a cursor among them
 * moves with them (p lacked its candidate: it stays behind the cursor).
 */
static void demote(struct la_sel *s, uint32_t p)
{
	uint32_t sp = s->psp[p], *g = s->order + s->first[sp], n = s->first[sp + 1] - s->first[sp];
	uint64_t old = (uint64_t)(31 - (s->cnt[p] + 1u)) << 32 | p, now = rank(s, p);
	uint32_t lo = 0, hi = n, from;

	while (lo < hi) {	/* where p is: ranks ascend, p's old one among them */
		uint32_t mid = lo + (hi - lo) / 2;
		uint64_t r = g[mid] == p ? old : rank(s, g[mid]);

		if (r < old)
			lo = mid + 1;
		else
			hi = mid;
	}
	from = lo;
	while (lo + 1 < n && rank(s, g[lo + 1]) < now) {
		g[lo] = g[lo + 1];
		lo++;
	}
	g[lo] = p;
	for (uint32_t k = 0; lo > from && k < 16; k++) {
		uint32_t *c = &s->cur[(size_t)sp * 16 + k];

		if (*c > s->first[sp] + from && *c <= s->first[sp] + lo)
			--*c;
	}
}

/* --- loads ---- */

/* Add @w to the load of each link of each live candidate of @p (summed in s->delta). */
static void pair_delta(struct la_sel *s, uint32_t p, int64_t w)
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
static void apply_delta(struct la_sel *s)
{
	for (uint32_t i = 0; i < s->ndl; i++) {
		uint32_t l = s->dl[i];
		int64_t d = s->delta[l] == INT64_MIN ? 0 : s->delta[l];

		s->delta[l] = 0;
		if (!d)
			continue;
		s->load[l] = (uint64_t)((int64_t)s->load[l] + d);
		la_links_fix(&s->g, l);
	}
	s->ndl = 0;
}

static void remove_cand(struct la_sel *s, uint32_t p, uint32_t k)
{
	pair_delta(s, p, -(int64_t)(SCALE / s->cnt[p]));
	s->alive[p] &= (uint16_t)~(1u << k);
	s->cnt[p]--;
	demote(s, p);
	pair_delta(s, p, (int64_t)(SCALE / s->cnt[p]));
	apply_delta(s);
}

/* --- the run ---- */

/* The machine pairs of each switch pair, in index order (all have the same count yet). */
static int group_pairs(struct la_sel *s, size_t nsp)
{
	s->first = calloc(nsp + 2, sizeof(*s->first));
	s->order = malloc(((size_t)s->npairs + 1) * sizeof(*s->order));
	s->cur = malloc((nsp * 16 + 1) * sizeof(*s->cur));
	if (!s->first || !s->order || !s->cur)
		return -1;
	for (uint32_t p = 0; p < s->npairs; p++)
		s->first[s->psp[p] + 2]++;
	for (size_t i = 2; i < nsp + 2; i++)
		s->first[i] += s->first[i - 1];
	for (uint32_t p = 0; p < s->npairs; p++)
		s->order[s->first[s->psp[p] + 1]++] = p;
	for (size_t sp = 0; sp < nsp; sp++)
		for (unsigned k = 0; k < 16; k++)
			s->cur[sp * 16 + k] = s->first[sp];
	return 0;
}

/* 0, -1 when out of memory, 2 when the run must stop. */
static int sel_init(struct la_sel *s, uint64_t *cands)
{
	uint32_t nl = s->nlinks, ns = s->c->ns;

	s->alive = malloc(((size_t)s->npairs + 1) * sizeof(*s->alive));
	s->cnt = malloc((size_t)s->npairs + 1);
	s->psp = malloc(((size_t)s->npairs + 1) * sizeof(*s->psp));
	s->delta = calloc((size_t)nl + 1, sizeof(*s->delta));
	s->dl = malloc(((size_t)nl + 1) * sizeof(*s->dl));
	s->load = calloc((size_t)nl + 1, sizeof(*s->load));
	s->lh = calloc((size_t)nl + 1, sizeof(*s->lh));
	if (!s->alive || !s->cnt || !s->load || !s->lh || !s->psp || !s->delta || !s->dl ||
	    la_links_init(&s->g, nl, s->load, s->mult))
		return -1;
	for (uint32_t p = 0; p < s->npairs; p++) {
		uint32_t a, b;

		if (s->c->q && p % (16 * STOP_EVERY) == 0 && eng_stopped(s->c->q))
			return 2;
		pair_ends(s, p, &a, &b);
		s->psp[p] = a * ns + b;
		s->cnt[p] = a == b ? 1 : s->spn[(size_t)a * ns + b];
		s->alive[p] = (uint16_t)((1u << s->cnt[p]) - 1);
		*cands += s->cnt[p];
		if (s->cnt[p])
			pair_delta(s, p, (int64_t)(SCALE / s->cnt[p]));
	}
	for (uint32_t i = 0; i < s->ndl; i++) {
		uint32_t l = s->dl[i];

		s->load[l] = s->delta[l] == INT64_MIN ? 0 : (uint64_t)s->delta[l];
		s->delta[l] = 0;
	}
	s->ndl = 0;
	if (group_pairs(s, (size_t)ns * ns))
		return -1;
	for (uint32_t sp = 0; sp < ns * ns; sp++)	/* a key per (switch pair, candidate) on each link */
		for (uint32_t k = 0; s->first[sp] < s->first[sp + 1] && k < s->spn[sp]; k++) {
			uint64_t e = sp_key(s, sp, k);
			const struct la_hop *h = sp_cand(s, sp, k);

			for (uint32_t i = 0; e && i < sp_len(s, sp, k); i++)
				if (la_keys_push(&s->lh[link_of(s, &h[i])], e))
					return -1;
		}
	for (uint32_t l = 0; l < nl; l++)
		if (s->lh[l].n)
			la_links_add(&s->g, l);
	return 0;
}

/*
 * Most loaded link first, until no link has a removable candidate: the
 * top link's first key, checked against its switch pair's state now (an
 * older key goes back as it is now); the candidate goes, and the switch
 * pair's next key for it takes its place on the link. 2 when stopped.
 */
static int mllf(struct la_sel *s, uint64_t *removed)
{
	const struct eng_req *q = s->c->q;

	for (uint32_t turn = 0; s->g.n; turn++) {
		uint32_t l = s->g.h[0], p, k, sp;
		struct la_keys *h = &s->lh[l];
		uint64_t e, now;

		if (q && turn % STOP_EVERY == 0 && eng_stopped(q))
			return 2;
		if (!h->n) {
			la_links_remove(&s->g, l);
			continue;
		}
		e = h->e[0];
		la_keys_pop(h);
		p = (uint32_t)(e >> 4 & ((1ull << 49) - 1));
		k = (uint32_t)(e & 15);
		sp = s->psp[p];
		now = sp_key(s, sp, k);
		if (now != e) {
			if (now && la_keys_push(h, now))
				return -1;
			continue;
		}
		remove_cand(s, p, k);
		++*removed;
		if ((now = sp_key(s, sp, k)) && la_keys_push(h, now))
			return -1;
	}
	return 0;
}

/* What only the selection needs. */
static void sel_drop_work(struct la_sel *s)
{
	for (uint32_t l = 0; s->lh && l < s->nlinks; l++)
		free(s->lh[l].e);
	free(s->lh);
	free(s->delta);
	free(s->dl);
	free(s->load);
	la_links_free(&s->g);
	free(s->first);
	free(s->order);
	free(s->cur);
	s->cur = NULL;
	s->lh = NULL;
	s->delta = NULL;
	s->dl = NULL;
	s->load = NULL;
	s->first = s->order = NULL;
}

void la_sel_free(struct la_sel *s)
{
	if (!s)
		return;
	sel_drop_work(s);
	free(s->cstart);
	free(s->spn);
	free(s->hops);
	free(s->cofs);
	free(s->clen);
	free(s->alive);
	free(s->cnt);
	free(s->psp);
	free(s->machine);
	la_spread_free(&s->sp);
	la_bundle_free(&s->b);
	free(s);
}

/* Every pair has a path: a pair of machines on switches with no legal path between them is an error. */
static int sel_check(const struct la_sel *s, struct fab_err *err)
{
	const struct la_ctx *c = s->c;

	for (uint32_t p = 0; p < s->npairs; p++)
		if (!s->cnt[p]) {
			uint32_t a, b;

			pair_ends(s, p, &a, &b);
			fab_err_set(err, "no legal up/down path from switch '%s' to switch '%s'",
				    FAB_LABEL(c->f, c->f->switches[a]), FAB_LABEL(c->f, c->f->switches[b]));
			return -1;
		}
	return 0;
}

/* la_bundle_path_fn: the (bundled) hops of pair @p's path (none between machines of one switch). */
static uint32_t sel_path(void *arg, uint32_t p, const struct la_hop **h)
{
	const struct la_sel *s = arg;
	uint32_t a, b, k;

	pair_ends(s, p, &a, &b);
	if (a == b)
		return 0;
	k = (uint32_t)__builtin_ctz(s->alive[p]);
	*h = cand(s, p, k);
	return cand_len(s, p, k);
}

/* Add pair @p's path, from machine @i to machine @j, to @ps: each bundled hop on its destination's cable. */
static int sel_add(const struct la_sel *s, uint32_t p, uint32_t i, uint32_t j, struct fmt_paths *ps)
{
	const struct la_ctx *c = s->c;
	struct la_hop cable[LA_HOPS_MAX];
	const struct la_hop *h = NULL;
	uint32_t n = sel_path((void *)s, p, &h);

	for (uint32_t x = 0; s->b.any && x < n; x++)
		cable[x] = (struct la_hop){ h[x].node, la_bundle_port(&s->b, c, &s->sp, &h[x], j) };
	return la_ctx_add(c, ps, c->ca[i], c->ca[j], s->b.any ? cable : h, n);
}

/* Path selection over @s->c, with parallel cables over their bundles (then spread over cables). */
static int sel_start(struct la_sel *s, const struct la_ctx *c, struct fab_err *err)
{
	s->c = c;
	if (la_bundle_init(&s->b, c, err))
		return -1;
	if (s->b.any) {
		s->cb = *c;
		s->cb.u = &s->b.ub;
		s->cb.linkof = s->b.linkof;
		s->c = &s->cb;
		s->mult = s->b.mult;
	}
	s->nlinks = s->c->u->adj.off[c->ns];
	return 0;
}

int la_sel_run(const struct la_ctx *c, uint32_t max, int yen, struct la_sel **out, struct la_sel_stats *st,
	       struct fab_err *err)
{
	struct la_sel *s = calloc(1, sizeof(*s));
	size_t nsp = (size_t)c->ns * c->ns + 1;
	int rc = -1;

	*out = NULL;
	memset(st, 0, sizeof(*st));
	if (max > 16)
		max = 16;
	if (!s || !(s->machine = malloc(((size_t)c->f->neps + 1) * sizeof(*s->machine)))) {
		free(s);
		fab_err_set(err, "out of memory");
		return -1;
	}
	if (sel_start(s, c, err)) {
		la_sel_free(s);
		return -1;
	}
	for (uint32_t e = 0; e < c->f->neps; e++)
		s->machine[e] = NONE;
	for (uint32_t i = 0; i < c->nca; i++)
		s->machine[c->ca[i]] = i;
	s->npairs = c->nca >= 2 ? c->nca * (c->nca - 1) : 0;
	s->cstart = calloc(nsp, sizeof(*s->cstart));
	s->spn = calloc(nsp, 1);
	rc = !s->cstart || !s->spn ? -1 : s->npairs ? sel_cands(s, max, yen) : 0;
	if (rc == 1)
		fab_err_set(err, "a shortest legal up/down path is longer than %u hops", LA_HOPS_MAX);
	else if (rc == 0 && s->npairs && !(rc = sel_init(s, &st->cands)))
		rc = mllf(s, &st->removed);
	if (rc == 2)
		fab_err_set(err, "stopped (path selection)");
	else if (rc < 0)
		fab_err_set(err, "out of memory");
	if (rc == 0)
		rc = sel_check(s, err);
	if (rc == 0 && s->b.any && s->npairs && la_bundle_spread(&s->b, s->c, &s->sp, sel_path, s)) {
		fab_err_set(err, "out of memory");
		rc = -1;
	}
	if (rc) {
		la_sel_free(s);
		return -1;
	}
	sel_drop_work(s);
	*out = s;
	return 0;
}

int la_sel_dest(const struct la_sel *s, uint32_t dst, struct fmt_paths *ps)
{
	const struct la_ctx *c = s->c;
	uint32_t j = s->machine[dst], n = c->nca;

	if (j == NONE)
		return 0;	/* switches are no destination of the selected paths */
	for (uint32_t i = 0; i < n; i++)
		if (i != j && sel_add(s, i * (n - 1) + (j > i ? j - 1 : j), i, j, ps))
			return -1;
	return 0;
}

int la_paths_select(const struct la_ctx *c, uint32_t max, int yen, struct fmt_paths *ps,
		    struct la_sel_stats *st, struct fab_err *err)
{
	struct la_sel *s;
	int rc = 0;

	if (la_sel_run(c, max, yen, &s, st, err))
		return -1;
	for (uint32_t p = 0; !rc && p < s->npairs; p++) {	/* pairs in (source, destination) order */
		uint32_t i = p / (c->nca - 1), j = p % (c->nca - 1);

		rc = sel_add(s, p, i, j + (j >= i), ps);
	}
	if (rc)
		fab_err_set(err, "out of memory");
	la_sel_free(s);
	return rc;
}
