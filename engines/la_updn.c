/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - Up*\/Down* for the path-based engines (papers/002 §5)
 *
 * A BFS tree from a root switch gives every switch a level; switches are
 * ordered by (level, node GUID) and a hop towards an earlier switch goes
 * "up" (a lower level, or the same level and a lower GUID), any other hop
 * "down". A legal path never goes up after it went down; since the up hops
 * and the down hops each follow a strict order, legal paths close no cycle
 * of channel dependencies. The root is the option `root`, else a switch
 * drawn with the option `seed` (papers/002: "the root node is randomly
 * selected").
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

#include "engines/lidassign.h"

void la_updn_free(struct la_updn *u)
{
	ucast_adj_free(&u->adj);
	free(u->level);
	free(u->pos);
	memset(u, 0, sizeof(*u));
}

struct rank {
	uint32_t level;
	uint64_t guid;
	uint32_t sw;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

/* BFS levels from the root; the first switch not reached, FAB_NONE when all are. */
static uint32_t levels(struct la_updn *u, uint32_t *queue)
{
	uint32_t ns = u->f->nswitches, head = 0, tail = 0;

	for (uint32_t s = 0; s < ns; s++)
		u->level[s] = UINT32_MAX;
	u->level[u->root] = 0;
	queue[tail++] = u->root;
	while (head < tail) {
		uint32_t v = queue[head++];

		for (uint32_t k = u->adj.off[v]; k < u->adj.off[v + 1]; k++)
			if (u->level[u->adj.peer[k]] == UINT32_MAX) {
				u->level[u->adj.peer[k]] = u->level[v] + 1;
				queue[tail++] = u->adj.peer[k];
			}
	}
	for (uint32_t s = 0; s < ns; s++)
		if (u->level[s] == UINT32_MAX)
			return s;
	return FAB_NONE;
}

int la_updn_build(const struct fabric *f, uint32_t root, struct la_updn *u, struct fab_err *err)
{
	uint32_t ns = f->nswitches, miss;
	uint32_t *queue = NULL;
	struct rank *rk = NULL;

	memset(u, 0, sizeof(*u));
	u->f = f;
	u->root = root;
	if (!ns || root >= ns) {
		fab_err_set(err, "%s", ns ? "the root is not a switch" : "the fabric has no switches");
		return -1;
	}
	queue = malloc((size_t)ns * sizeof(*queue));
	rk = malloc((size_t)ns * sizeof(*rk));
	u->level = malloc((size_t)ns * sizeof(*u->level));
	u->pos = malloc((size_t)ns * sizeof(*u->pos));
	if (!queue || !rk || !u->level || !u->pos || ucast_adj_build(f, &u->adj)) {
		fab_err_set(err, "out of memory");
		goto fail;
	}
	miss = levels(u, queue);
	if (miss != FAB_NONE) {
		fab_err_set(err, "the switches are not all connected: '%s' cannot reach '%s'",
			    fab_desc(f, f->switches[root]), fab_desc(f, f->switches[miss]));
		goto fail;
	}
	for (uint32_t s = 0; s < ns; s++)
		rk[s] = (struct rank){ u->level[s], f->nodes[f->switches[s]].guid, s };
	qsort(rk, ns, sizeof(*rk), cmp_rank);
	for (uint32_t i = 0; i < ns; i++)
		u->pos[rk[i].sw] = i;
	free(queue);
	free(rk);
	return 0;
fail:
	free(queue);
	free(rk);
	la_updn_free(u);
	return -1;
}

/* The switch node @n stands for: itself, or a CA's first switch; FAB_NONE if none. */
static uint32_t node_switch(const struct fabric *f, uint32_t n)
{
	if (f->nodes[n].type == FAB_SWITCH)
		return f->nodes[n].swidx;
	for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
		uint32_t peer = fab_port(f, n, p)->peer;

		if (peer != FAB_NONE && f->nodes[peer].type == FAB_SWITCH)
			return f->nodes[peer].swidx;
	}
	return FAB_NONE;
}

uint32_t la_updn_root(const struct fabric *f, const struct eng_args *a, uint64_t seed,
		      struct fab_err *err)
{
	uint32_t *nodes, sw;
	size_t n;
	struct fab_rng rng;

	if (!f->nswitches) {
		fab_err_set(err, "the fabric has no switches");
		return FAB_NONE;
	}
	if (eng_arg_nodes(a, "root", f, &nodes, &n, err))
		return FAB_NONE;
	if (n > 1) {
		free(nodes);
		fab_err_set(err, "option root: expected one node, found %zu", n);
		return FAB_NONE;
	}
	if (n) {
		sw = node_switch(f, nodes[0]);
		if (sw == FAB_NONE)
			fab_err_set(err, "option root: node '%s' is not linked to a switch",
				    fab_desc(f, nodes[0]));
		free(nodes);
		return sw;
	}
	fab_rng_seed(&rng, seed);
	return (uint32_t)fab_rng_below(&rng, f->nswitches);
}

void la_updn_dist(const struct la_updn *u, uint32_t t, uint16_t *du, uint16_t *dd,
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
