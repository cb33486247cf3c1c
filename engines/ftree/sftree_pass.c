/* SPDX-License-Identifier: MIT */
/**
 * DOC: sftree's Algorithm 2, a block of LIDs at a time
 *
 * The switch-to-switch pass of sftree.c (see its DOC comment for the
 * rules): every switch LID, then every CA LID ftree left some switch
 * without entry for, routed through the subtree of sn. A block of
 * SF_BLOCK LIDs is read from the tables a row at a time (8 x 8 tiles where
 * the LIDs run on), routed in that buffer, written back the same way; a
 * switch LID's column, final once its block is done, is then measured for
 * the notes' longest switch-to-switch path.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftree/ftree.h"

/*
 * What Algorithm 2 reads of the tables as they were before it: sn's
 * entries for the switches, and the way to sn, which it never changes.
 */
static void snapshot(struct sf *x)
{
	for (uint32_t s = 0; s < x->m->nsw; s++) {
		x->snreach[s] = x->lid[s] && rt_lft_get(x->r, x->sn, x->lid[s]) != RT_NO_PORT;
		x->snport[s] = rt_lft_get(x->r, s, x->lid[x->sn]);
		x->tosn[s] = peer_sw(x, s, x->snport[s]);
	}
}

/*
 * The LIDs of the block from @j0 on are the eight consecutive LIDs
 * lids[j0] .. lids[j0] + 7, so that eight switches' entries for them are
 * an 8 x 8 tile: rt_tile8().
 */
static int tile_run(const unsigned *lids, uint32_t n, uint32_t j0)
{
	if (j0 + 8 > n)
		return 0;
	for (uint32_t k = 1; k < 8; k++)
		if (lids[j0 + k] != lids[j0] + k)
			return 0;
	return 1;
}

/*
 * Copy the block's columns from the tables (@back: 0) or back into them
 * (1), a row at a time, 8 x 8 tiles where the LIDs run on.
 */
static void copy_block(struct sf *x, int back)
{
	uint32_t nsw = x->m->nsw, n = x->nblk, tiled = nsw & ~7u, nrest = 0, nrun = 0;
	uint32_t rest[SF_BLOCK], all[SF_BLOCK], run[SF_BLOCK / 8];
	size_t len = x->r->lft_len;
	const unsigned *lids = x->blids;

	for (uint32_t j0 = 0; j0 < n; j0 += 8)
		if (tile_run(lids, n, j0))
			run[nrun++] = j0;
		else
			for (uint32_t j = j0; j < n && j < j0 + 8; j++)
				rest[nrest++] = j;
	for (uint32_t s0 = 0; nrun && s0 < tiled; s0 += 8) {
		uint8_t *row = rt_lft(x->r, s0);

		if (s0 + SF_AHEAD + 8 <= nsw)	/* rows far apart: no hardware prefetcher guesses them */
			for (uint32_t k = 0; k < 8; k++) {
				__builtin_prefetch(row + (SF_AHEAD + k) * len + lids[0]);
				__builtin_prefetch(row + (SF_AHEAD + k) * len + lids[n - 1]);
			}
		for (uint32_t i = 0; i < nrun; i++) {
			uint8_t *t = row + lids[run[i]], *b = x->blk + (size_t)run[i] * nsw + s0;

			if (back)
				rt_tile8(t, len, b, nsw);
			else
				rt_tile8(b, nsw, t, len);
		}
	}
	for (uint32_t j = 0; j < n; j++)
		all[j] = j;
	for (uint32_t s = 0; s < nsw; s++) {
		uint8_t *row = rt_lft(x->r, s);
		const uint32_t *js = s < tiled && nrun ? rest : all;	/* the rest: not in a tile */

		for (uint32_t i = 0, k = s < tiled && nrun ? nrest : n; i < k; i++) {
			uint8_t *b = x->blk + (size_t)js[i] * nsw + s;

			if (back)
				row[lids[js[i]]] = *b;
			else
				*b = row[lids[js[i]]];
		}
	}
}

/*
 * The columns of @lids[0 .. @n) (n <= SF_BLOCK) into blk[j * nsw + s].
 * Routing a LID only writes entries for that LID, so the columns as loaded
 * are what route_to() finds for every LID of the block.
 */
static void load_block(struct sf *x, const unsigned *lids, uint32_t n)
{
	memcpy(x->blids, lids, n * sizeof(*lids));
	x->nblk = n;
	copy_block(x, 0);
}

/* Write the block's columns back into the tables. */
static void store_block(struct sf *x)
{
	copy_block(x, 1);
	x->nblk = 0;
}

/* The entry of switch @s for @lid as it stands: in the block when @lid is one of its LIDs. */
static uint8_t *entry(struct sf *x, uint32_t s, unsigned lid)
{
	for (uint32_t j = 0; j < x->nblk; j++)
		if (x->blids[j] == lid)
			return x->blk + (size_t)j * x->m->nsw + s;
	return rt_lft(x->r, s) + lid;
}

/*
 * Lines 6-18: sn has no entry for the LID of column @col; let it forward
 * the LID to a sibling leaf whose own entry is up/down (not another sibling
 * link). Return 1 when done.
 */
static int sibling_fallback(struct sf *x, uint8_t *col)
{
	const struct ft_model *m = x->m;

	for (uint32_t e = ft_first(m, x->sn, FT_SIB); e < ft_end(m, x->sn, FT_SIB); e++) {
		uint32_t t = m->links[e].peer, n = peer_sw(x, t, col[t]);

		if (!x->has[t] || (n != FAB_NONE && m->level[n] == 1))
			continue;
		col[x->sn] = m->links[e].port;
		x->has[x->sn] = 1;
		return 1;
	}
	return 0;
}

/*
 * sn has no entry for switch @d (column @col), nor a sibling with one, but
 * @d joined the subtree through its child c (join_down()): sn forwards @d
 * the way it forwards c, and so does every switch on that way without an
 * entry for @d; c goes up to @d. Return 1 when done.
 */
static int relay(struct sf *x, uint32_t d, uint8_t *col)
{
	uint32_t c = x->jchild[d], y = x->sn;

	if (c == FAB_NONE || !x->snreach[c] || !x->has[c])
		return 0;
	for (uint32_t n = 0; y != c && y != FAB_NONE && n <= x->m->nsw; n++) {
		uint8_t p;

		if (x->has[y])
			return 1;
		p = *entry(x, y, x->lid[c]);
		col[y] = p;
		x->has[y] = 1;
		x->relay[y] = d + 1;
		y = peer_sw(x, y, p);
	}
	return y == c;
}

/* Where a packet from @s following the way to sn first meets an entry: FAB_NONE if never. */
static uint32_t turn_point(const struct sf *x, uint32_t s)
{
	uint32_t cur = s;

	for (uint32_t steps = 0; steps <= x->m->nsw; steps++) {
		if (x->has[cur])
			return cur;
		cur = x->tosn[cur];
		if (cur == FAB_NONE)
			return FAB_NONE;
	}
	return FAB_NONE;
}

/*
 * A packet may turn at @t: a switch of the subtree, of a detour or of the
 * relay marked @mark (the destination switch + 1; UINT32_MAX for a CA LID).
 */
static int turn_ok(const struct sf *x, uint32_t t, uint32_t mark)
{
	return t != FAB_NONE && (x->sub[t] || x->detour[t] || x->relay[t] == mark);
}

/*
 * Switch @s, without entry in column @col, forwards its LID the way it
 * forwards sn, or failing that (a leaf whose way to sn starts with a
 * sibling link to a leaf whose way on starts with another one) up to a
 * parent whose way to sn turns in the subtree. Return 1 when routed.
 */
static int route_src(struct sf *x, uint32_t s, uint8_t *col, uint32_t mark)
{
	const struct ft_model *m = x->m;

	if (turn_ok(x, turn_point(x, s), mark)) {
		col[s] = x->snport[s];
		return 1;
	}
	for (uint32_t e = ft_first(m, s, FT_UP); e < ft_end(m, s, FT_UP); e++)
		if (turn_ok(x, turn_point(x, m->links[e].peer), mark)) {
			col[s] = m->links[e].port;
			return 1;
		}
	return 0;
}

/*
 * Route every switch without entry for the LID of column @j of the block
 * through the subtree; @d is the destination switch, FAB_NONE for a CA
 * LID. @routed and @failed count the switches, @special those routed
 * through a sibling of sn or a relay.
 */
static void route_to(struct sf *x, uint32_t j, uint32_t d, uint64_t *routed, uint64_t *special,
		     uint64_t *failed)
{
	uint32_t mark = d != FAB_NONE ? d + 1 : UINT32_MAX, nsw = x->m->nsw;
	uint8_t *col = x->blk + (size_t)j * nsw;
	int ok = 1, sp = 0;

	for (uint32_t s = 0; s < nsw; s++)
		x->has[s] = col[s] != RT_NO_PORT;
	if (!x->has[x->sn]) {
		sp = 1;
		ok = sibling_fallback(x, col) || (d != FAB_NONE && relay(x, d, col));
	}
	for (uint32_t s = 0; s < nsw; s++) {
		if (x->has[s] || !x->m->level[s])
			continue;
		if (ok && route_src(x, s, col, mark)) {
			(*routed)++;
			*special += sp;
		} else {
			(*failed)++;
		}
	}
}

static void measure_col(struct sf *x, uint32_t d, const uint8_t *col);

/*
 * route_to() for the LIDs @lids[0 .. @n) (n <= SF_BLOCK), of switches @ds
 * (NULL: CA LIDs); switches' paths are then measured (their columns are
 * final: the pass writes only the entries of the LID it routes).
 */
static void route_block(struct sf *x, const unsigned *lids, const uint32_t *ds, uint32_t n)
{
	load_block(x, lids, n);
	for (uint32_t j = 0; j < n; j++)
		if (ds)
			route_to(x, j, ds[j], &x->sw_routed, &x->sw_special, &x->sw_failed);
		else
			route_to(x, j, FAB_NONE, &x->ca_routed, &x->ca_special, &x->ca_failed);
	for (uint32_t j = 0; ds && j < n; j++)
		measure_col(x, ds[j], x->blk + (size_t)j * x->m->nsw);
	store_block(x);
}

/*
 * Switch-to-CA pairs left without entry by ftree (the switches of another
 * core, a root cut off from a leaf) get the same treatment. Entries ftree
 * made are never changed, and no CA-sourced path crosses a switch without
 * entry for its destination, so every end-node path stays ftree's.
 */
static int route_ca_holes(struct sf *x)
{
	const struct fabric *f = x->m->f;
	uint32_t len = x->r->lft_len, nl = 0;
	uint8_t *hole = calloc((size_t)len + 1, 1);
	unsigned lids[SF_BLOCK];

	if (!hole)
		return -1;
	for (uint32_t e = 0; e < f->neps; e++) {
		unsigned lid = fab_ep_lid(f, e), n = 1u << fab_ep_lmc(f, e);

		for (unsigned l = lid; lid && f->nodes[f->eps[e].node].type != FAB_SWITCH &&
		     l < lid + n && l < len; l++)
			hole[l] = 1;	/* a CA LID */
	}
	for (uint32_t l = 1; l < len; l++) {
		if (hole[l] && x->missing[l])	/* the pass so far changed switch LIDs only */
			lids[nl++] = l;
		if (nl == SF_BLOCK || (nl && l == len - 1)) {
			route_block(x, lids, NULL, nl);
			nl = 0;
		}
	}
	free(hole);
	return 0;
}

#define DIST_UNKNOWN UINT32_MAX
#define DIST_BUSY (UINT32_MAX - 1)
#define DIST_NONE (UINT32_MAX - 2)

/*
 * The longest path to switch @d through the tables (its column @col), into
 * x->longest: each switch's links to @d, found by following the entries
 * from it until a switch whose count is known (DIST_NONE: it never gets
 * there), then counted back along the way. The last switch counted on a
 * way, where it started, is its farthest.
 */
static void measure_col(struct sf *x, uint32_t d, const uint8_t *col)
{
	uint32_t n = x->m->nsw, *dist = x->dist, *stack = x->stack, longest = x->longest;

	memset(dist, 0xff, (size_t)n * sizeof(*dist));	/* DIST_UNKNOWN */
	dist[d] = 0;
	for (uint32_t s = 0; s < n; s++) {
		uint32_t top = 0, cur = s, v;

		while (cur != FAB_NONE && dist[cur] == DIST_UNKNOWN) {
			dist[cur] = DIST_BUSY;
			stack[top++] = cur;
			cur = peer_sw(x, cur, col[cur]);
		}
		if (!top)
			continue;
		v = cur == FAB_NONE || dist[cur] == DIST_BUSY ? DIST_NONE : dist[cur];
		while (top--) {
			v = v == DIST_NONE ? DIST_NONE : v + 1;
			dist[stack[top]] = v;
		}
		if (v != DIST_NONE && v > longest)
			longest = v;
	}
	x->longest = longest;
}

int sf_pass(struct sf *x)
{
	uint32_t ds[SF_BLOCK], n = 0;
	unsigned lids[SF_BLOCK];

	snapshot(x);
	for (uint32_t d = 0; d < x->m->nsw; d++) {
		if (x->lid[d] && d != x->sn) {
			ds[n] = d;
			lids[n++] = x->lid[d];
		}
		if (n == SF_BLOCK || (n && d == x->m->nsw - 1)) {
			route_block(x, lids, ds, n);
			n = 0;
		}
	}
	measure_col(x, x->sn, x->snport);	/* the pass left sn's column as it was */
	return route_ca_holes(x);
}
