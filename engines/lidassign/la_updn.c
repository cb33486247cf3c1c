/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - Up*\/Down* for the path-based engines (papers/002 §5)
 *
 * A BFS tree from a root switch gives every switch a level; switches are
 * ordered by (level, node GUID) (engines/ucast/rank.c, as updn) and a hop
 * towards an earlier switch goes "up" (a lower level, or the same level and a lower GUID), any other hop
 * "down". A legal path never goes up after it went down; since the up hops
 * and the down hops each follow a strict order, legal paths close no cycle
 * of channel dependencies. The root is the option `root`, else with the
 * option `seed` a switch drawn at random (papers/002: "the root node is
 * randomly selected"), else the one engines/lidassign/la_root.c chooses.
 *
 * Shortest legal distances towards one switch t come from a BFS over
 * states (switch, phase) run backwards from t: du[x] is the shortest legal
 * path from x while it may still go up, dd[x] the shortest all-down path.
 * The shortest legal paths from s are then the walks from (s, up) along
 * which the distance drops by one at every hop; they are enumerated depth
 * first in port order (parallel links give distinct paths: a different
 * port is a different egress).
 */
#include <stdlib.h>
#include <string.h>

#include "engines/lidassign/lidassign.h"

void la_updn_free(struct la_updn *u)
{
	ucast_adj_free(&u->adj);
	free(u->level);
	free(u->pos);
	memset(u, 0, sizeof(*u));
}

int la_updn_build(const struct fabric *f, uint32_t root, struct la_updn *u, struct fab_err *err)
{
	uint32_t ns = f->nswitches, maxrank;

	memset(u, 0, sizeof(*u));
	u->f = f;
	u->root = root;
	if (!ns || root >= ns) {
		fab_err_set(err, "%s", ns ? "the root is not a switch" : "the fabric has no switches");
		return -1;
	}
	u->level = malloc((size_t)ns * sizeof(*u->level));
	u->pos = malloc((size_t)ns * sizeof(*u->pos));
	if (!u->level || !u->pos || ucast_adj_build(f, &u->adj) ||
	    ucast_rank(f, &u->adj, &root, 1, u->level, u->pos, &maxrank)) {
		fab_err_set(err, "out of memory");
		goto fail;
	}
	for (uint32_t s = 0; s < ns; s++)
		if (u->level[s] == UINT32_MAX) {
			fab_err_set(err, "the switches are not all connected: '%s' cannot reach '%s'",
				    FAB_LABEL(f, f->switches[root]), FAB_LABEL(f, f->switches[s]));
			goto fail;
		}
	return 0;
fail:
	la_updn_free(u);
	return -1;
}

uint32_t la_updn_dist(const struct la_updn *u, uint32_t t, uint16_t *du, uint16_t *dd,
		      uint32_t *queue)
{
	uint32_t ns = u->f->nswitches, head = 0, tail = 0;

	for (uint32_t x = 0; x < ns; x++)
		du[x] = dd[x] = UINT16_MAX;
	du[t] = dd[t] = 0;
	queue[tail++] = t;		/* (t, up) */
	queue[tail++] = ns + t;		/* (t, down) */
	while (head < tail) {
		uint32_t st = queue[head++], y = st % ns;
		int down = st >= ns;
		uint16_t d = (uint16_t)((down ? dd[y] : du[y]) + 1);

		for (uint32_t k = u->adj.off[y]; k < u->adj.off[y + 1]; k++) {
			uint32_t x = u->adj.peer[k];
			int up = la_updn_up(u, x, y);	/* the hop x -> y */

			if (up && !down && du[x] == UINT16_MAX) {
				du[x] = d;
				queue[tail++] = x;
			}
			if (!up && down) {
				if (du[x] == UINT16_MAX) {
					du[x] = d;
					queue[tail++] = x;
				}
				if (dd[x] == UINT16_MAX) {
					dd[x] = d;
					queue[tail++] = ns + x;
				}
			}
		}
	}
	return tail;
}

struct walk {
	const struct la_updn *u;
	const uint16_t *du, *dd;
	uint32_t max, found, len;
	struct la_hop *hops, *cur;
};

static void walk(struct walk *w, uint32_t x, int down, uint32_t left)
{
	const struct la_updn *u = w->u;

	if (!left) {
		memcpy(w->hops + (size_t)w->found * w->len, w->cur, w->len * sizeof(*w->cur));
		w->found++;
		return;
	}
	for (uint32_t k = u->adj.off[x]; k < u->adj.off[x + 1] && w->found < w->max; k++) {
		uint32_t y = u->adj.peer[k];
		int up = la_updn_up(u, x, y);

		w->cur[w->len - left] = (struct la_hop){ x, u->adj.port[k] };
		if (up && !down && w->du[y] == left - 1)
			walk(w, y, 0, left - 1);
		else if (!up && w->dd[y] == left - 1)
			walk(w, y, 1, left - 1);
	}
}

uint32_t la_updn_paths(const struct la_updn *u, uint32_t s, uint32_t t, const uint16_t *du,
		       const uint16_t *dd, uint32_t max, struct la_hop *hops)
{
	struct la_hop cur[FAB_LEVELS_MAX * 16];
	struct walk w = { .u = u, .du = du, .dd = dd, .max = max, .hops = hops, .cur = cur };

	(void)t;
	if (du[s] == UINT16_MAX || du[s] > sizeof(cur) / sizeof(cur[0]) || !max)
		return 0;
	w.len = du[s];
	walk(&w, s, 0, du[s]);
	return w.found;
}

/* --- k shortest legal paths (Yen) ----------------------------------------------------- */

/*
 * struct yen - Yen's algorithm over the (switch, phase) states
 * @a: the paths found, @na of them; @b: the candidates, @nb of them; each
 *     path is @maxlen hops from @pool, its length in @alen / @blen
 * @dist, @from, @via: BFS per state: distance, previous state, adjacency
 *                     index of the hop into it
 * @noswitch: switches the spur path may not cross; @noedge: adjacency
 *            indexes it may not take first
 */
struct yen {
	const struct la_updn *u;
	uint32_t t, maxlen, na, nb, max;
	struct la_hop *a, *b;
	uint32_t *alen, *blen, *dist, *from, *via, *queue;
	uint8_t *noswitch, *noedge;
};

/*
 * Shortest legal path from state (@x, @down) to @t avoiding the bans, at
 * most @room hops: into @out; its length or -1.
 */
static int spur_bfs(struct yen *y, uint32_t x, int down, struct la_hop *out, uint32_t room)
{
	const struct la_updn *u = y->u;
	uint32_t ns = u->f->nswitches, head = 0, tail = 0, st = x + (down ? ns : 0), end = UINT32_MAX;
	int n = 0;

	for (uint32_t i = 0; i < 2 * ns; i++)
		y->dist[i] = UINT32_MAX;
	y->dist[st] = 0;
	y->queue[tail++] = st;
	y->noswitch[x] = 1;	/* never back through the spur: with its first hop banned, */
	while (head < tail && end == UINT32_MAX) {	/* a detour could take that hop */
		uint32_t cur = y->queue[head++], v = cur % ns;
		int dn = cur >= ns;

		for (uint32_t k = u->adj.off[v]; k < u->adj.off[v + 1]; k++) {
			uint32_t w = u->adj.peer[k], nx;
			int up = la_updn_up(u, v, w);

			if ((up && dn) || y->noswitch[w] || (cur == st && y->noedge[k]))
				continue;
			nx = w + (up ? 0 : ns);
			if (y->dist[nx] != UINT32_MAX)
				continue;
			y->dist[nx] = y->dist[cur] + 1;
			y->from[nx] = cur;
			y->via[nx] = k;
			if (w == y->t) {
				end = nx;
				break;
			}
			y->queue[tail++] = nx;
		}
	}
	y->noswitch[x] = 0;
	if (end == UINT32_MAX || y->dist[end] > room)
		return -1;
	n = (int)y->dist[end];
	for (uint32_t cur = end, i = (uint32_t)n; cur != st; cur = y->from[cur]) {
		uint32_t k = y->via[cur];

		out[--i] = (struct la_hop){ y->from[cur] % ns, u->adj.port[k] };
	}
	return n;
}

static int same_hops(const struct la_hop *p, uint32_t lp, const struct la_hop *q, uint32_t lq)
{
	if (lp != lq)
		return 0;
	for (uint32_t i = 0; i < lp; i++)
		if (p[i].node != q[i].node || p[i].port != q[i].port)
			return 0;
	return 1;
}

/* Is @p (length @lp) before @q: shorter, else the first differing hop lower. */
static int before(const struct la_hop *p, uint32_t lp, const struct la_hop *q, uint32_t lq)
{
	if (lp != lq)
		return lp < lq;
	for (uint32_t i = 0; i < lp; i++)
		if (p[i].node != q[i].node || p[i].port != q[i].port)
			return p[i].node != q[i].node ? p[i].node < q[i].node : p[i].port < q[i].port;
	return 0;
}

/* The adjacency index of hop @h. */
static uint32_t adj_index(const struct la_updn *u, const struct la_hop *h)
{
	for (uint32_t k = u->adj.off[h->node]; k < u->adj.off[h->node + 1]; k++)
		if (u->adj.port[k] == h->port)
			return k;
	return UINT32_MAX;
}

/* Candidates from the spur nodes of the last path found. */
static void spurs(struct yen *y, struct la_hop *tmp)
{
	const struct la_updn *u = y->u;
	const struct la_hop *last = y->a + (size_t)(y->na - 1) * y->maxlen;
	uint32_t ll = y->alen[y->na - 1];
	int down = 0;

	for (uint32_t i = 0; i < ll; i++) {
		uint32_t spur = last[i].node;
		int n;

		memset(y->noedge, 0, u->adj.off[u->f->nswitches]);
		for (uint32_t q = 0; q < y->na; q++) {
			const struct la_hop *p = y->a + (size_t)q * y->maxlen;

			if (y->alen[q] > i && same_hops(p, i, last, i))
				y->noedge[adj_index(u, &p[i])] = 1;
		}
		for (uint32_t j = 0; j < i; j++)
			y->noswitch[last[j].node] = 1;
		memcpy(tmp, last, i * sizeof(*tmp));
		n = spur_bfs(y, spur, down, tmp + i, y->maxlen - i);
		for (uint32_t j = 0; j < i; j++)
			y->noswitch[last[j].node] = 0;
		if (n >= 0 && i + (uint32_t)n <= y->maxlen && y->nb < y->max * y->maxlen) {
			uint32_t len = i + (uint32_t)n, dup = 0;

			for (uint32_t q = 0; q < y->nb && !dup; q++)
				dup = same_hops(y->b + (size_t)q * y->maxlen, y->blen[q], tmp, len);
			for (uint32_t q = 0; q < y->na && !dup; q++)
				dup = same_hops(y->a + (size_t)q * y->maxlen, y->alen[q], tmp, len);
			if (!dup) {
				memcpy(y->b + (size_t)y->nb * y->maxlen, tmp, len * sizeof(*tmp));
				y->blen[y->nb++] = len;
			}
		}
		down |= !la_updn_up(u, spur, fab_sw_peer(u->f, spur, last[i].port));
	}
}

uint32_t la_updn_kpaths(const struct la_updn *u, uint32_t s, uint32_t t, uint32_t max,
			struct la_hop *hops, uint32_t *len)
{
	uint32_t ns = u->f->nswitches, maxlen = LA_HOPS_MAX, found = 0;
	struct yen y = { .u = u, .t = t, .maxlen = maxlen, .max = max };
	struct la_hop *tmp = malloc(((size_t)maxlen + 1) * sizeof(*tmp));
	size_t bcap = (size_t)max * maxlen + 1;

	y.a = hops;
	y.alen = len;
	y.b = malloc(bcap * maxlen * sizeof(*y.b));
	y.blen = malloc(bcap * sizeof(*y.blen));
	y.dist = malloc(2 * (size_t)ns * sizeof(*y.dist));
	y.from = malloc(2 * (size_t)ns * sizeof(*y.from));
	y.via = malloc(2 * (size_t)ns * sizeof(*y.via));
	y.queue = malloc(2 * (size_t)ns * sizeof(*y.queue));
	y.noswitch = calloc(ns, 1);
	y.noedge = calloc((size_t)u->adj.off[ns] + 1, 1);
	if (tmp && y.b && y.blen && y.dist && y.from && y.via && y.queue && y.noswitch && y.noedge &&
	    max) {
		int n;

		if (s == t) {
			len[0] = 0;
			found = 1;
		} else if ((n = spur_bfs(&y, s, 0, hops, maxlen)) >= 0) {
			len[0] = (uint32_t)n;
			y.na = 1;
			while (y.na < max) {
				uint32_t best = 0;

				spurs(&y, tmp);
				if (!y.nb)
					break;
				for (uint32_t q = 1; q < y.nb; q++)
					if (before(y.b + (size_t)q * maxlen, y.blen[q],
						   y.b + (size_t)best * maxlen, y.blen[best]))
						best = q;
				memcpy(hops + (size_t)y.na * maxlen, y.b + (size_t)best * maxlen,
				       y.blen[best] * sizeof(*hops));
				len[y.na++] = y.blen[best];
				y.nb--;
				memmove(y.b + (size_t)best * maxlen, y.b + (size_t)y.nb * maxlen,
					(size_t)maxlen * sizeof(*y.b));
				y.blen[best] = y.blen[y.nb];
			}
			found = y.na;
		}
	}
	free(tmp);
	free(y.b);
	free(y.blen);
	free(y.dist);
	free(y.from);
	free(y.via);
	free(y.queue);
	free(y.noswitch);
	free(y.noedge);
	return found;
}
