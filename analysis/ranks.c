/* SPDX-License-Identifier: MIT */
/**
 * DOC: keeping an order of the dependency graph
 *
 * A graph has no cycle exactly when its nodes have an order every edge
 * follows. An acyclic dependency graph on VL 0 gets one when it is searched
 * (analysis/cdg.c: the longest path to each channel); a re-evaluation
 * then counts the dependencies that appear and go (analysis/reeval_block.c),
 * and those that go down in the order are moved here, once every count is
 * in: the channel they lead to is raised above the one they come from, and
 * so is every channel after it whose rank no longer lies above its
 * predecessor's, through the dependencies counted (struct an_acc's blocks).
 * That pass only raises channels reached from the one raised first, so
 * finding the dependency's own start among them is a cycle; no cycle, and
 * every dependency goes up again: the graph is acyclic without being built
 * or searched. An edge that goes up stays up whatever is raised after, so
 * the order holds for the whole graph at the end.
 *
 * A channel never seen in a graph that was ordered (AN_RANK_NONE) has only
 * new dependencies: it starts below every other. A channel that left the
 * graph keeps its rank: it has no dependency until it comes back, and those
 * it comes back with are checked like any other. A cycle, or more raising
 * than the graph has channels twice over, leaves the search to
 * analysis/cdg.c (struct an_ranks.against).
 */
#include <stdlib.h>

#include "analysis/internal.h"

void an_ranks_free(struct an_ranks *rk)
{
	free(rk->rank);
	free(rk->pend);
	*rk = (struct an_ranks){ 0 };
}

void an_ranks_check(struct an_ranks *rk, size_t from, size_t to)
{
	const uint32_t *r = rk->rank;

	if (!r) {
		rk->against++;
		return;
	}
	if (r[from] != AN_RANK_NONE && r[to] != AN_RANK_NONE && r[from] < r[to])
		return;
	if (rk->npend == rk->cap) {
		size_t cap = rk->cap ? 2 * rk->cap : 256;
		uint64_t *n = realloc(rk->pend, cap * sizeof(*n));

		if (!n) {
			rk->against++;
			return;
		}
		rk->pend = n;
		rk->cap = cap;
	}
	rk->pend[rk->npend++] = (uint64_t)from << 32 | (uint32_t)to;
}

/* The counters of the dependencies of channel @x, and where they lead; NULL when none. */
static const uint32_t *deps_of(const struct an_plan *p, const struct an_acc *a, uint32_t x,
			       uint32_t *first, uint32_t *n)
{
	uint32_t pti = x / p->nvs, e = p->pt[pti], t;

	if (!a->blk[x] || AN_PT_KIND(e) != AN_PT_SW)
		return NULL;
	t = AN_PT_VAL(e);
	*first = p->pt_base[t];
	*n = p->pt_base[t + 1] - p->pt_base[t];
	return a->arena + a->blk[x] + 1;
}

/* Below: @y's rank is none or not above @x's. */
static int below(const uint32_t *r, uint32_t y, uint32_t x)
{
	return r[y] == AN_RANK_NONE || r[y] <= r[x];
}

struct raise {
	uint32_t *stack;
	size_t n, cap, work, limit;
};

static int push(struct raise *s, uint32_t x)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		uint32_t *n = realloc(s->stack, cap * sizeof(*n));

		if (!n)
			return -1;
		s->stack = n;
		s->cap = cap;
	}
	s->stack[s->n++] = x;
	return ++s->work > s->limit ? -1 : 0;
}

/* Raise @v above @u and what follows @v as needed. 0, or -1: a cycle through @u, or given up. */
static int raise_after(const struct an_plan *p, const struct an_acc *a, uint32_t *r, uint32_t u,
		       uint32_t v, struct raise *s)
{
	s->n = 0;
	r[v] = r[u] + 1;
	if (push(s, v))
		return -1;
	while (s->n) {
		uint32_t x = s->stack[--s->n], first, n;
		const uint32_t *cnt = deps_of(p, a, x, &first, &n);

		for (uint32_t q = 0; cnt && q < n; q++) {
			uint32_t y;

			if (!cnt[q])
				continue;
			y = (uint32_t)an_acc_index(p, first + q, 0);
			if (y == u)
				return -1;
			if (below(r, y, x)) {
				r[y] = r[x] + 1;
				if (push(s, y))
					return -1;
			}
		}
	}
	return 0;
}

/* The dependency @from -> @to is still counted. */
static int counted(const struct an_plan *p, const struct an_acc *a, uint32_t from, uint32_t to)
{
	uint32_t first, n;
	const uint32_t *cnt = deps_of(p, a, from, &first, &n);
	uint32_t q = to / p->nvs - first;

	return cnt && q < n && cnt[q];
}

void an_ranks_settle(const struct an_plan *p, const struct an_acc *a, struct an_ranks *rk)
{
	struct raise s = { .limit = 2 * (size_t)a->nblk };
	uint32_t *r = rk->rank;

	for (size_t i = 0; r && i < rk->npend && !rk->against; i++) {
		uint32_t from = (uint32_t)(rk->pend[i] >> 32), to = (uint32_t)rk->pend[i];

		if (!counted(p, a, from, to))
			continue;	/* gone again */
		if (r[from] == AN_RANK_NONE)
			r[from] = 0;	/* new: its dependencies in are all pending too */
		if (below(r, to, from) && raise_after(p, a, r, from, to, &s))
			rk->against++;
	}
	rk->npend = 0;
	free(s.stack);
}
