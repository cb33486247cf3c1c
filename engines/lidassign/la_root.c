/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - the Up*\/Down* root of the path-based engines
 *
 * Option `root` names it; with `seed` N >= 1 it is drawn at random, as
 * papers/002 does ("the root node is randomly selected"). By default
 * (seed 0) it is chosen, because the root decides which shortest paths
 * stay legal and a random one often leaves few: with a spine of a
 * two-level tree as root, the other spines sit one level below the leaves,
 * so every leaf-to-leaf path must turn at the root (on the EDR tree of
 * tests/data/fabrics its cables carry twice the load of a leaf root's);
 * the paper's random irregular fabrics have no such shape to lose. On the
 * generated trees of the golden tests, the root seed 1 draws left path
 * selection's worst link up to 14 times as loaded as the chosen one's.
 *
 * The choice. Each candidate root is scored by the load its Up*\/Down*
 * orientation leaves when every machine pair spreads its traffic evenly
 * over the paths path selection would take as candidates: the first `cap`
 * shortest legal paths in port order (parallel cables as one link, as
 * path selection sees them; la_bundle.c), which are Yen's first ones too.
 * Counting only those matters: a pair with hundreds of shortest paths has
 * its first 16 often through one switch (below ft648-rack's rack switches,
 * all through one spine when a rack switch is the root).
 * The root whose worst link carries the least per cable wins, then the
 * one with the least load over all links (shorter paths), then the lower
 * switch (the lower GUID). The figure is computed exactly as a flow, per
 * destination switch t: the BFS over (switch, phase) states of
 * la_updn_dist() orders the states by distance to t; each state's count
 * of shortest legal paths (at most cap) follows from its successors'; the
 * traffic of every source then flows down the states, each (state, b)
 * sending its first b paths: to its successors in port order, as many as
 * each has while any are left. The first b paths of a state are the same
 * whatever the source, so flows merge per (state, b): O(cap x links) per
 * destination and candidate.
 *
 * Every switch is scored when that costs at most LA_ROOT_WORK steps (every
 * fabric of tests/data/fabrics, the golden tests and bench/pathsel.sh;
 * 0.35 s for rhino512's 216 switches); beyond, as many as fit (at least
 * LA_ROOT_MIN): the switches are ordered by their hop distance to all
 * others, those alike in distance, machines and links counted once, and
 * candidates taken evenly along that order, so that central and
 * peripheral switches of every kind are tried. The choice depends on the
 * cabling and the GUIDs only.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/lidassign/la_impl.h"

/* Steps of scoring allowed before the candidates are thinned out, and the fewest then scored. */
#define LA_ROOT_WORK (1ull << 28)
#define LA_ROOT_MIN 4u

/*
 * struct chooser - the scoring of candidate roots
 * @v: the orientation from the candidate being scored, over the bundled
 *     links (@v.adj); @mult: cables per link (NULL: 1)
 * @w: per switch, its machines (1 each when the fabric has none)
 * @np: per state, its shortest legal paths to the destination (at most @cap)
 * @fl: per state and b (0: all of its paths), the traffic taking its first b
 * @load: per link, the expected machine pairs on it
 */
struct chooser {
	const struct fabric *f;
	const struct eng_req *q;
	uint32_t ns, cap, nmach;
	struct la_updn v;
	const uint32_t *mult;
	uint32_t *w, *queue, *level, *pos;
	uint16_t *du, *dd;
	uint8_t *np;
	double *fl, *load;
};

struct score {
	double max, sum;
};

/* Where a shortest legal path from state @st goes by link @k of its switch; UINT32_MAX: not there. */
static uint32_t next_state(const struct chooser *ch, uint32_t st, uint32_t k)
{
	uint32_t ns = ch->ns, x = st % ns, y = ch->v.adj.peer[k];
	int down = st >= ns, up = la_updn_up(&ch->v, x, y);
	uint16_t left = down ? ch->dd[x] : ch->du[x];

	if (up && !down && ch->du[y] == left - 1)
		return y;
	if (!up && ch->dd[y] == left - 1)
		return ns + y;
	return UINT32_MAX;
}

/* Each queued state's shortest legal paths to @t, counted up to ch->cap. */
static void count_paths(struct chooser *ch, uint32_t t, uint32_t nq)
{
	for (uint32_t i = 0; i < nq; i++) {
		uint32_t st = ch->queue[i], x = st % ch->ns, n = 0;

		for (uint32_t k = ch->v.adj.off[x]; x != t && k < ch->v.adj.off[x + 1]; k++) {
			uint32_t nx = next_state(ch, st, k);

			if (nx != UINT32_MAX)
				n += ch->np[nx];
		}
		ch->np[st] = (uint8_t)(x == t ? 1 : n < ch->cap ? n : ch->cap);
	}
}

/* State @st sends the traffic @F of its first @b paths on to its successors. */
static void spread(struct chooser *ch, uint32_t st, uint32_t b, double F)
{
	uint32_t x = st % ch->ns, left = b;

	for (uint32_t k = ch->v.adj.off[x]; left && k < ch->v.adj.off[x + 1]; k++) {
		uint32_t nx = next_state(ch, st, k), c;
		double share;

		if (nx == UINT32_MAX)
			continue;
		c = ch->np[nx] < left ? ch->np[nx] : left;
		share = F * c / b;
		ch->load[k] += share;
		ch->fl[(size_t)nx * ch->cap + (c == ch->np[nx] ? 0 : c)] += share;
		left -= c;
	}
}

/* The traffic of every machine pair to switch @t added to ch->load, its hops to *@sum. */
static void flow_to(struct chooser *ch, uint32_t t, double *sum)
{
	uint32_t ns = ch->ns, nq = la_updn_dist(&ch->v, t, ch->du, ch->dd, ch->queue);

	count_paths(ch, t, nq);
	for (uint32_t i = 0; i < nq; i++)
		memset(ch->fl + (size_t)ch->queue[i] * ch->cap, 0, ch->cap * sizeof(*ch->fl));
	for (uint32_t s = 0; s < ns; s++)
		if (s != t && ch->w[s] && ch->du[s] != UINT16_MAX)
			ch->fl[(size_t)s * ch->cap] += (double)ch->w[s] * ch->w[t];
	for (uint32_t i = nq; i-- > 0;) {
		uint32_t st = ch->queue[i];

		for (uint32_t b = 0; st % ns != t && b < ch->cap; b++) {
			double F = ch->fl[(size_t)st * ch->cap + b];

			if (F > 0) {
				*sum += F * (st >= ns ? ch->dd[st - ns] : ch->du[st]);
				spread(ch, st, b ? b : ch->np[st], F);
			}
		}
	}
}

/* Score root @r into *@sc; 0, 2 when the run must stop, -1 when out of memory. */
static int score(struct chooser *ch, uint32_t r, struct score *sc)
{
	uint32_t nl = ch->v.adj.off[ch->ns], maxrank;

	if (ucast_rank(ch->f, &ch->v.adj, &r, 1, ch->level, ch->pos, &maxrank))
		return -1;
	ch->v.root = r;
	memset(ch->load, 0, ((size_t)nl + 1) * sizeof(*ch->load));
	sc->max = sc->sum = 0;
	for (uint32_t t = 0; t < ch->ns; t++) {
		if (!ch->w[t])
			continue;
		if (ch->q && eng_stopped(ch->q))
			return 2;
		flow_to(ch, t, &sc->sum);
	}
	for (uint32_t k = 0; k < nl; k++) {
		double l = ch->load[k] / (ch->mult ? ch->mult[k] : 1);

		if (l > sc->max)
			sc->max = l;
	}
	return 0;
}

/* @a clearly below @b (beyond rounding). */
static int below(double a, double b)
{
	return a < b - 1e-9 * (b > 0 ? b : -b);
}

/* --- which switches to score ------------------------------------------------------- */

struct place {
	uint64_t dist;
	uint32_t w, deg, sw;
};

/* Switches alike: the same distance to all, machines and links. */
static int alike(const struct place *x, const struct place *y)
{
	return x->dist == y->dist && x->w == y->w && x->deg == y->deg;
}

static int cmp_place(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	if (x->deg != y->deg)
		return x->deg < y->deg ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Hop distance from @s to every switch, summed. */
static uint64_t dist_sum(const struct chooser *ch, uint32_t s)
{
	uint32_t ns = ch->ns, head = 0, tail = 0, *d = ch->level, *queue = ch->queue;
	uint64_t sum = 0;

	for (uint32_t x = 0; x < ns; x++)
		d[x] = UINT32_MAX;
	d[s] = 0;
	queue[tail++] = s;
	while (head < tail) {
		uint32_t x = queue[head++];

		sum += d[x];
		for (uint32_t k = ch->v.adj.off[x]; k < ch->v.adj.off[x + 1]; k++)
			if (d[ch->v.adj.peer[k]] == UINT32_MAX) {
				d[ch->v.adj.peer[k]] = d[x] + 1;
				queue[tail++] = ch->v.adj.peer[k];
			}
	}
	return sum;
}

/*
 * The candidates, in switch order, into @cand (room for ns); their count
 * (0 when out of memory). All switches when scoring them all fits
 * LA_ROOT_WORK, else as many as fit taken evenly along the order of
 * struct place, alike switches once.
 */
static uint32_t candidates(struct chooser *ch, uint32_t *cand)
{
	uint32_t ns = ch->ns, nt = 0, nu = 0, k;
	uint64_t per = 0;
	struct place *pl;

	for (uint32_t t = 0; t < ns; t++)
		nt += ch->w[t] > 0;
	per = (uint64_t)nt * (4ull * ch->v.adj.off[ns] + 4ull * ns) + 1;
	k = per * ns <= LA_ROOT_WORK ? ns : (uint32_t)(LA_ROOT_WORK / per);
	if (k >= ns) {
		for (uint32_t s = 0; s < ns; s++)
			cand[s] = s;
		return ns;
	}
	if (!(pl = malloc((size_t)ns * sizeof(*pl))))
		return 0;
	if (k < LA_ROOT_MIN)
		k = LA_ROOT_MIN;
	for (uint32_t s = 0; s < ns; s++)
		pl[s] = (struct place){ dist_sum(ch, s), ch->w[s],
					ch->v.adj.off[s + 1] - ch->v.adj.off[s], s };
	qsort(pl, ns, sizeof(*pl), cmp_place);
	for (uint32_t i = 0; i < ns; i++)	/* alike switches once: the first of each */
		if (!nu || !alike(&pl[i], &pl[nu - 1]))
			pl[nu++] = pl[i];
	if (k > nu)
		k = nu;
	for (uint32_t i = 0; i < k; i++)
		cand[i] = pl[k > 1 ? (uint64_t)i * (nu - 1) / (k - 1) : 0].sw;
	free(pl);
	qsort(cand, k, sizeof(*cand), cmp_u32);
	return k;
}

/* --- the choice --------------------------------------------------------------------- */

/* Machines per switch (1 each when there are none); their count. */
static uint32_t machines(const struct fabric *f, uint32_t *w)
{
	uint32_t n = 0;

	memset(w, 0, (size_t)f->nswitches * sizeof(*w));
	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t node = f->eps[e].node;
		const struct fab_port *p = fab_port(f, node, f->eps[e].port);

		if (f->nodes[node].type != FAB_SWITCH && p->peer != FAB_NONE &&
		    f->nodes[p->peer].type == FAB_SWITCH) {
			w[f->nodes[p->peer].swidx]++;
			n++;
		}
	}
	for (uint32_t s = 0; !n && s < f->nswitches; s++)
		w[s] = 1;
	return n;
}

static int choose_run(struct chooser *ch, struct la_root *out)
{
	uint32_t *cand = malloc(((size_t)ch->ns + 1) * sizeof(*cand)), nc;
	struct score best = { 0, 0 };
	int rc;

	if (!cand)
		return -1;
	nc = candidates(ch, cand);
	out->tried = nc;
	rc = nc ? 0 : -1;
	for (uint32_t i = 0; !rc && i < nc; i++) {
		struct score sc;

		rc = score(ch, cand[i], &sc);
		if (!rc && (!i || below(sc.max, best.max) ||
			    (!below(best.max, sc.max) && below(sc.sum, best.sum)))) {
			best = sc;
			out->sw = cand[i];
		}
	}
	out->load = best.max / (ch->nmach > 1 ? ch->nmach - 1 : 1);
	free(cand);
	return rc;
}

/*
 * la_root_choose() - the root by the rule of the DOC above, into @out
 * (@cap: the candidates path selection keeps per pair, 1 to 16).
 * Return: 0, or -1 with @err (out of memory, or stopped).
 */
static int la_root_choose(const struct fabric *f, uint32_t cap, const struct eng_req *q,
			  struct la_root *out, struct fab_err *err)
{
	uint32_t ns = f->nswitches;
	struct la_updn raw = { .f = f };
	struct la_ctx c = { .f = f, .u = &raw, .ns = ns, .nports = 1 };
	struct la_bundle b = { 0 };
	struct chooser ch = { .f = f, .q = q, .ns = ns, .cap = cap < 1 ? 1 : cap > 16 ? 16 : cap };
	int rc = -1;

	for (uint32_t s = 0; s < ns; s++)
		if (f->nodes[f->switches[s]].nports + 1u > c.nports)
			c.nports = f->nodes[f->switches[s]].nports + 1u;
	ch.w = malloc(((size_t)ns + 1) * sizeof(*ch.w));
	ch.queue = malloc((2 * (size_t)ns + 1) * sizeof(*ch.queue));
	ch.level = malloc(((size_t)ns + 1) * sizeof(*ch.level));
	ch.pos = malloc(((size_t)ns + 1) * sizeof(*ch.pos));
	ch.du = malloc(((size_t)ns + 1) * sizeof(*ch.du));
	ch.dd = malloc(((size_t)ns + 1) * sizeof(*ch.dd));
	ch.np = malloc(2 * (size_t)ns + 1);
	ch.fl = malloc((2 * (size_t)ns * ch.cap + 1) * sizeof(*ch.fl));
	if (!ch.w || !ch.queue || !ch.level || !ch.pos || !ch.du || !ch.dd || !ch.np || !ch.fl ||
	    ucast_adj_build(f, &raw.adj) || la_bundle_init(&b, &c, err))
		goto out;
	ch.v = (struct la_updn){ .f = f, .adj = b.any ? b.ub.adj : raw.adj, .level = ch.level,
				 .pos = ch.pos };
	ch.mult = b.any ? b.mult : NULL;
	ch.nmach = machines(f, ch.w);
	if (!(ch.load = malloc(((size_t)ch.v.adj.off[ns] + 1) * sizeof(*ch.load))))
		goto out;
	out->sw = 0;
	rc = choose_run(&ch, out);
out:
	if (rc == 2)
		fab_err_set(err, "stopped (choosing the Up/Down root)");
	else if (rc)
		fab_err_set(err, "out of memory");
	free(ch.w);
	free(ch.queue);
	free(ch.level);
	free(ch.pos);
	free(ch.du);
	free(ch.dd);
	free(ch.np);
	free(ch.fl);
	free(ch.load);
	la_bundle_free(&b);
	ucast_adj_free(&raw.adj);
	return rc ? -1 : 0;
}

int la_updn_root(const struct fabric *f, const struct eng_args *a, uint64_t seed, uint32_t cap,
		 const struct eng_req *q, struct la_root *out, struct fab_err *err)
{
	uint32_t *nodes;
	size_t n;
	struct fab_rng rng;

	memset(out, 0, sizeof(*out));
	out->sw = FAB_NONE;
	if (!f->nswitches) {
		fab_err_set(err, "the fabric has no switches");
		return -1;
	}
	if (eng_arg_nodes(a, "root", f, &nodes, &n, err))
		return -1;
	if (n > 1) {
		free(nodes);
		fab_err_set(err, "option root: expected one node, found %zu", n);
		return -1;
	}
	if (n) {
		out->how = LA_ROOT_GIVEN;
		out->sw = ucast_node_switch(f, nodes[0]);
		if (out->sw == FAB_NONE)
			fab_err_set(err, "option root: node '%s' is not linked to a switch",
				    FAB_LABEL(f, nodes[0]));
		free(nodes);
		return out->sw == FAB_NONE ? -1 : 0;
	}
	if (seed) {
		out->how = LA_ROOT_DRAWN;
		out->seed = seed;
		fab_rng_seed(&rng, seed);
		out->sw = (uint32_t)fab_rng_below(&rng, f->nswitches);
		return 0;
	}
	out->how = LA_ROOT_CHOSEN;
	return la_root_choose(f, cap, q, out, err);
}
