/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftree - fat-tree routing
 *
 * The fat-tree routing papers/000 builds on (section 3: Zahavi's scheme,
 * OpenSM's ftree): up/down routing in which the paths of all sources to
 * one destination converge at one root and come down one dedicated path,
 * with both halves balanced by port counters. Levels and port directions
 * come from struct ft_model (ftree_model.c): leaves are the switches with
 * CAs, levels grow by BFS upwards.
 *
 * Destinations are routed one after the other: CA and router LIDs leaf by
 * leaf (switch order), each leaf's ports in port order, each LID of a
 * port's LMC range as a destination of its own; then switch LIDs. For a CA
 * destination D on leaf L:
 *
 *  1. Sibling shortcut. Leaves linked horizontally to L (a rack-switch
 *     partner, the sibling leaf in the next core) reach D over that link:
 *     one hop, shorter than any up/down path.
 *  2. Dedicated downward path (counted). From L go up, each time through
 *     the up port whose cable carries the fewest dedicated downward paths
 *     so far (then the upper switch crossed by the fewest, then the lowest
 *     port), until a switch without up port: the root of D. Every switch of
 *     this chain forwards D down the cable it was reached by.
 *  3. Upward entries (counted). For each chain switch from L up to the
 *     root, every switch below it that has no entry yet gets one going up,
 *     level by level downwards: among its up ports leading to switches that
 *     just got theirs, the one that carried the fewest upward entries so
 *     far (then the lowest port). A switch thus goes up to the lowest chain
 *     switch above it, its lowest common ancestor with L in a complete
 *     tree, and the counters spread the destinations over the up ports.
 *  4. Secondary entries (not counted), for switch-sourced paths and for
 *     degraded trees, where a switch may be cut off from the chain yet
 *     keep an up/down path: a switch with a down port to a switch whose
 *     path to D only goes down goes down too (levels upwards); then a
 *     switch without entry goes up to the parent nearest to D (levels
 *     downwards); then a leaf still without entry crosses a sibling link to
 *     a leaf that has an up/down path (never two sibling links in a row).
 *
 * Leaves carrying fewer CA LIDs than the fullest leaf route "dummy"
 * destinations through steps 2 and 3 (counters only, no table entry), as
 * OpenSM does, so that partially populated trees stay balanced. Switch
 * destinations get only step 1 and step 4: every switch reaches a switch
 * over a shortest up/down path if there is one, and switch pairs without
 * such a path (roots among themselves, ...) stay unrouted; sftree routes
 * them.
 *
 * Every path is [sibling hop] up* down*. Up and down channels alone are
 * ordered by level, and a sibling hop is only ever the first switch hop of
 * a path (no switch forwards into a leaf whose entry is a sibling hop), so
 * no channel leads into it: the channel dependency graph is acyclic on one
 * VL. Pairs that would need a down-to-up turn stay unrouted and the notes
 * count them: CAs of cores that are not neighbours (a ring of four cores or
 * more), a leaf whose sibling link failed and the other core, leaves of a
 * degraded tree left without a common ancestor.
 *
 * In a complete tree the result is OpenSM's ftree routing up to the order
 * in which destinations, ports and ties are visited (OpenSM orders leaves
 * by its BFS indexing, here switch order); unlike OpenSM it routes degraded
 * trees (missing links or switches) instead of falling back to minhop.
 *
 * ftree_dest.c holds the steps, split in two stages by the counters they
 * use: the first (step 1's states, steps 2 and 3) of a destination may run
 * ahead of the second (step 1's ports, step 4) of earlier ones, in another
 * thread. Destinations are handed over in blocks of FT_BLOCK; the entries
 * of a block are written to the LFTs in one pass (blocks of consecutive
 * LIDs as 8 x 8 byte tiles), the rows of its first switches by the second
 * thread as it finishes the block, the others by the first, the split
 * moving towards the thread that waited for the other; the pairs left
 * unrouted are counted off the block as it is written. The result does
 * not depend on the thread count.
 *
 * Cost: O(destinations x switch links) time (step 4b of a complete tree:
 * O(destinations x switches), see ftree_up.c), O(switch links + LIDs)
 * memory besides the LFTs and the blocks (FT_NBUF of FT_BLOCK x switches x
 * 4 bytes).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engines/ftree/ftree.h"

/* Destinations handed from the first stage to the second at a time. */
#define FT_BLOCK 64u
/* LFT rows asked for this many switches ahead of their writing (flush8()). */
#define FT_AHEAD 16u
/*
 * Blocks in flight with two threads: being filled, in the second stage, and
 * FT_NBUF - 2 more the first stage may run ahead by (the stages take about
 * as long: without room, either waits for the other's every hiccup).
 */
#define FT_NBUF 6u
/*
 * The second thread writes the first switches' rows of each block it
 * finishes, the first thread the others': their split moves by this many
 * switches a block towards the thread that waited for the other.
 */
#define FT_CUT_STEP 32u

/**
 * struct ft_block - up to FT_BLOCK destinations between the stages
 * @d, @n: the destinations (no dummy)
 * @state, @oport, @hops: their slots, one row of nsw entries each
 * @chains, @filled: their chains and their slots' counts per level,
 *                   nlevels + 2 entries each
 */
struct ft_block {
	struct ft_dest d[FT_BLOCK];
	uint32_t n, cut;
	uint8_t *state, *oport;
	uint16_t *hops;
	uint32_t *chains, *filled;
};

/**
 * struct ft_pipe - the routing of all destinations through the two stages
 * @m, @r: the tree, the tables
 * @s1, @s2: the stages
 * @blk, @nbuf: the blocks (FT_NBUF with a second thread, else 1)
 * @k: blocks handed over so far; block k is filled in blk[k % nbuf]
 * @dummy, @dchain: the slot and chain of dummies (first stage only)
 * @threaded: the second stage runs in @tid
 * @mu, @cv, @published, @done, @end: blocks handed to the second stage,
 *                                   blocks it finished, no more blocks
 * @cut, @idle2, @seen2: the switches [0, @cut) of the next block handed
 *                       over are the second thread's to write
 *                       (struct ft_block.cut); the times it waited for a
 *                       block, and their count at the last hand-over
 * @st: the figures, the unrouted pairs counted as blocks are written
 * @lidf: per LID, LID_EP (an endpoint's, LMC range included) and LID_DONE
 *        (written by flush())
 * @nep: per LID, the switch and the CA endpoints whose base LID it is, at
 *       nep[2 * lid] and nep[2 * lid + 1]
 * @ncas: per switch, its ports to CAs and routers
 * @nup: switches of level 1 and more; @n0, @w0: the others (never an
 *       entry), their ports to CAs and routers
 * @missing: see ft_route() (NULL: not asked for)
 */
struct ft_pipe {
	const struct ft_model *m;
	struct rt_routing *r;
	struct ft_stage1 s1;
	struct ft_stage2 s2;
	struct ft_block blk[FT_NBUF];
	uint32_t nbuf, k;
	struct ft_slot dummy;
	uint32_t *dchain;
	int threaded;
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t published, done;
	int end;
	uint32_t cut, idle2, seen2;
	struct ft_stats *st;
	uint8_t *lidf, *missing;
	uint32_t *nep, *ncas;
	uint32_t nup, n0;
	uint64_t w0;
};

enum { LID_EP = 1, LID_DONE = 2 };

static struct ft_slot slot_of(const struct ft_pipe *p, const struct ft_block *b, uint32_t j)
{
	size_t off = (size_t)j * p->m->nsw, lv = (size_t)j * (p->m->nlevels + 2);

	return (struct ft_slot){ b->state + off, b->oport + off, b->hops + off, b->filled + lv };
}

/* --- writing the LFTs ------------------------------------------------------------ */

/*
 * Eight switches from @s0 of a full block of consecutive LIDs: 8 x 8 bytes
 * at a time, read as rows of the block, written as pieces of LFT rows.
 */
static void flush8(const struct ft_pipe *p, const struct ft_block *b, uint32_t s0)
{
	size_t n = p->m->nsw, len = p->r->lft_len;
	uint8_t *row = rt_lft(p->r, s0) + b->d[0].lid;

	if (s0 + FT_AHEAD + 8 <= n)	/* rows far apart: no hardware prefetcher guesses them */
		for (uint32_t k = 0; k < 8; k++) {
			__builtin_prefetch(row + (FT_AHEAD + k) * len, 1);
			__builtin_prefetch(row + (FT_AHEAD + k) * len + FT_BLOCK - 1, 1);
		}
	for (uint32_t j0 = 0; j0 < FT_BLOCK; j0 += 8)
		rt_tile8(row + j0, len, b->oport + j0 * n + s0, n);
}

static void holes_block(struct ft_pipe *p, const struct ft_block *b);
static const struct fab_port *ca_port(const struct fabric *f, uint32_t s, unsigned p);

/* Write the entries of block @b of switches [@s, @end) to the LFTs, one switch row at a time. */
static void write_rows(const struct ft_pipe *p, const struct ft_block *b, uint32_t s,
		       uint32_t end)
{
	uint32_t n = p->m->nsw;
	int run = b->n == FT_BLOCK && b->d[0].lid;

	for (uint32_t j = 1; j < b->n && run; j++)
		run = b->d[j].lid == b->d[0].lid + j;
	for (; run && s + 8 <= end; s += 8)
		flush8(p, b, s);
	for (; s < end; s++) {
		uint8_t *row = rt_lft(p->r, s);

		for (uint32_t j = 0; j < b->n; j++)
			if (b->d[j].lid)
				row[b->d[j].lid] = b->oport[(size_t)j * n + s];
	}
}

/* Block @b is done: the rows the second thread left to write, the holes; its buffer is free. */
static void flush(struct ft_pipe *p, struct ft_block *b)
{
	write_rows(p, b, b->cut, p->m->nsw);
	holes_block(p, b);
	b->n = 0;
}

/* --- the unrouted pairs --------------------------------------------------------- */

/*
 * The pairs towards LID @l left without entry, its column being @col
 * (entries @stride bytes apart): every switch without entry, and every CA
 * port on it, is a source without a way when @l is an endpoint's base LID.
 */
static void holes_col(struct ft_pipe *p, unsigned l, const uint8_t *col, size_t stride)
{
	const uint32_t *level = p->m->level;
	uint32_t n = 0, up = 0;
	uint64_t w = 0;

	for (uint32_t s = 0; s < p->m->nsw; s++)
		if (col[s * stride] == RT_NO_PORT) {
			n++;
			w += p->ncas[s];
			up |= level[s];
		}
	p->st->sw_holes += (uint64_t)p->nep[2 * l] * n;
	p->st->ca_holes += (uint64_t)p->nep[2 * l + 1] * w;
	if (p->missing && up)
		p->missing[l] = 1;
}

/*
 * The unrouted pairs of block @b's destinations, read off the block: a
 * destination every switch of level 1 or more has an entry for (its
 * slot's counts say so) lacks only those of the others.
 */
static void holes_block(struct ft_pipe *p, const struct ft_block *b)
{
	uint32_t nc = p->m->nlevels + 2;

	for (uint32_t j = 0; j < b->n; j++) {
		unsigned l = b->d[j].lid;
		const uint32_t *filled = b->filled + (size_t)j * nc;
		uint32_t got = 0;

		if (!l)
			continue;
		p->lidf[l] |= LID_DONE;
		for (uint32_t k = 1; k < nc; k++)
			got += filled[k];
		if (got == p->nup) {
			p->st->sw_holes += (uint64_t)p->nep[2 * l] * p->n0;
			p->st->ca_holes += p->nep[2 * l + 1] * p->w0;
		} else {
			holes_col(p, l, b->oport + (size_t)j * p->m->nsw, 1);
		}
	}
}

/*
 * The columns no block wrote: no entry, but the endpoints' own
 * (eng_route_endpoints()); the blocks wrote every switch's entry of
 * theirs. Their runs of LIDs are found once, then set row by row.
 * Return: 0, or -1 when out of memory.
 */
static int fill_rest(struct ft_pipe *p)
{
	const struct rt_routing *r = p->r;
	uint32_t *run = malloc(((size_t)r->lft_len + 1) * sizeof(*run)), n = 0;

	if (!run)
		return -1;
	for (unsigned a = 0, b; a < r->lft_len; a = b) {
		for (; a < r->lft_len && (p->lidf[a] & LID_DONE); a++)
			;
		for (b = a; b < r->lft_len && !(p->lidf[b] & LID_DONE); b++)
			;
		if (a < b) {
			run[n++] = a;
			run[n++] = b;
		}
	}
	for (uint32_t s = 0; s < p->m->nsw; s++)
		for (uint32_t k = 0; k < n; k += 2)
			memset(rt_lft(r, s) + run[k], RT_NO_PORT, run[k + 1] - run[k]);
	free(run);
	eng_route_endpoints_if(p->m->f, p->r, p->lidf, LID_DONE);
	return 0;
}

/* The endpoints' LIDs no block wrote (not routed: eng_route_endpoints()'s entries only). */
static void holes_rest(struct ft_pipe *p)
{
	for (unsigned l = 1; l < p->r->lft_len; l++)
		if (p->lidf[l] == LID_EP)
			holes_col(p, l, p->r->lft + l, p->r->lft_len);
}

static void holes_fini(struct ft_pipe *p)
{
	free(p->lidf);
	free(p->nep);
	free(p->ncas);
}

/* The per-LID and per-switch figures of the counting; -1 when out of memory. */
static int holes_init(struct ft_pipe *p, struct ft_stats *st, uint8_t *missing)
{
	const struct ft_model *m = p->m;
	const struct fabric *f = m->f;
	size_t len = p->r->lft_len;

	p->st = st;
	p->missing = missing;
	p->lidf = calloc(len + 1, 1);
	p->nep = calloc(2 * len + 2, sizeof(*p->nep));
	p->ncas = calloc((size_t)m->nsw + 1, sizeof(*p->ncas));
	if (!p->lidf || !p->nep || !p->ncas)
		return -1;
	if (missing)
		memset(missing, 0, len);
	for (uint32_t e = 0; e < f->neps; e++) {
		unsigned l = fab_ep_lid(f, e), n = 1u << fab_ep_lmc(f, e);

		if (l && l < len)
			p->nep[2 * l + (f->nodes[f->eps[e].node].type != FAB_SWITCH)]++;
		for (unsigned k = l; l && k < l + n && k < len; k++)
			p->lidf[k] = LID_EP;
	}
	for (uint32_t s = 0; s < m->nsw; s++) {
		for (unsigned q = 1; q <= f->nodes[f->switches[s]].nports; q++)
			p->ncas[s] += ca_port(f, s, q) != NULL;
		p->nup += m->level[s] != 0;
		p->n0 += !m->level[s];
		p->w0 += m->level[s] ? 0 : p->ncas[s];
	}
	return 0;
}

/* --- the stages, in turn or in two threads -------------------------------------- */

static void second_stage(struct ft_pipe *p, const struct ft_block *b)
{
	for (uint32_t j = 0; j < b->n; j++) {
		struct ft_slot sl = slot_of(p, b, j);

		ft_stage2_run(&p->s2, &b->d[j], &sl);
	}
}

static void *second_thread(void *arg)
{
	struct ft_pipe *p = arg;

	for (uint32_t k = 0;; k++) {
		struct ft_block *b = &p->blk[k % p->nbuf];

		pthread_mutex_lock(&p->mu);
		p->idle2 += p->published <= k && !p->end;
		while (p->published <= k && !p->end)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->published <= k) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		pthread_mutex_unlock(&p->mu);
		second_stage(p, b);
		write_rows(p, b, 0, b->cut);
		pthread_mutex_lock(&p->mu);
		p->done = k + 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
}

/*
 * The second thread waited for a block since the last hand-over: it takes
 * FT_CUT_STEP more switches of the next block's writing; the first waited
 * for it: fewer. Who writes a row never changes what is written.
 */
static void balance(struct ft_pipe *p, int waited)
{
	uint32_t n = p->m->nsw & ~7u;

	if (p->idle2 != p->seen2 && !waited)
		p->cut = p->cut + FT_CUT_STEP < n ? p->cut + FT_CUT_STEP : n;
	else if (waited && p->idle2 == p->seen2)
		p->cut = p->cut > FT_CUT_STEP ? p->cut - FT_CUT_STEP : 0;
	p->seen2 = p->idle2;
}

/*
 * Block k is complete: run its second stage and write it, or hand it to
 * the second thread, which writes its switches [0, cut), and write the
 * rest of block k - lag (lag = nbuf - 2) once that thread finished it.
 * Block k + 1 then goes to the buffer of block k + 1 - nbuf, written
 * already.
 */
static void hand_over(struct ft_pipe *p)
{
	struct ft_block *b = &p->blk[p->k % p->nbuf];
	uint32_t lag = p->nbuf - 2;
	int waited = 0;

	b->cut = 0;
	if (!p->threaded) {
		second_stage(p, b);
		flush(p, b);
		p->k++;
		return;
	}
	pthread_mutex_lock(&p->mu);
	b->cut = p->cut;
	p->published = p->k + 1;
	pthread_cond_broadcast(&p->cv);
	while (p->k >= lag && p->done < p->k + 1 - lag) {
		waited = 1;
		pthread_cond_wait(&p->cv, &p->mu);
	}
	balance(p, waited);
	pthread_mutex_unlock(&p->mu);
	if (p->k >= lag)
		flush(p, &p->blk[(p->k - lag) % p->nbuf]);
	p->k++;
}

/* Route destination @d: its first stage now, its second in its block's turn. */
static void submit(struct ft_pipe *p, struct ft_dest d)
{
	struct ft_block *b = &p->blk[p->k % p->nbuf];
	struct ft_slot sl;

	if (!d.sibs) {	/* a dummy: counters of the first stage only */
		d.chain = p->dchain;
		ft_stage1_run(&p->s1, &d, &p->dummy);
		return;
	}
	d.chain = b->chains + (size_t)b->n * (p->m->nlevels + 2);
	b->d[b->n] = d;
	sl = slot_of(p, b, b->n);
	ft_stage1_run(&p->s1, &b->d[b->n++], &sl);
	if (b->n == FT_BLOCK)
		hand_over(p);
}

/* The last block, then the end of the second thread. */
static void finish(struct ft_pipe *p)
{
	if (p->blk[p->k % p->nbuf].n)
		hand_over(p);
	if (!p->threaded)
		return;
	pthread_mutex_lock(&p->mu);
	p->end = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->tid, NULL);
	p->threaded = 0;
	for (uint32_t k = p->k > p->nbuf - 2 ? p->k - (p->nbuf - 2) : 0; k < p->k; k++)
		flush(p, &p->blk[k % p->nbuf]);	/* the blocks hand_over() left */
}

static void pipe_fini(struct ft_pipe *p)
{
	ft_stage1_fini(&p->s1);
	ft_stage2_fini(&p->s2);
	for (uint32_t i = 0; i < FT_NBUF; i++) {
		free(p->blk[i].state);
		free(p->blk[i].oport);
		free(p->blk[i].hops);
		free(p->blk[i].chains);
		free(p->blk[i].filled);
	}
	free(p->dummy.state);
	free(p->dummy.oport);
	free(p->dummy.hops);
	free(p->dummy.filled);
	free(p->dchain);
	holes_fini(p);
}

/* The stages and @nbuf blocks; -1 when out of memory. */
static int pipe_init(struct ft_pipe *p, const struct ft_model *m, struct rt_routing *r,
		     uint32_t nbuf)
{
	size_t ns = (size_t)m->nsw + 1, nc = (size_t)m->nlevels + 2;
	int bad = 0;

	memset(p, 0, sizeof(*p));
	p->m = m;
	p->r = r;
	p->nbuf = nbuf;
	for (uint32_t i = 0; i < nbuf; i++) {
		struct ft_block *b = &p->blk[i];

		b->state = malloc(ns * FT_BLOCK);
		b->oport = malloc(ns * FT_BLOCK);
		b->hops = malloc(ns * FT_BLOCK * sizeof(*b->hops));
		b->chains = malloc(nc * FT_BLOCK * sizeof(*b->chains));
		b->filled = malloc(nc * FT_BLOCK * sizeof(*b->filled));
		bad |= !b->state || !b->oport || !b->hops || !b->chains || !b->filled;
	}
	p->dummy.state = malloc(ns);
	p->dummy.oport = malloc(ns);
	p->dummy.hops = malloc(ns * sizeof(*p->dummy.hops));
	p->dummy.filled = malloc(nc * sizeof(*p->dummy.filled));
	p->dchain = malloc(nc * sizeof(*p->dchain));
	if (bad || !p->dummy.state || !p->dummy.oport || !p->dummy.hops || !p->dummy.filled ||
	    !p->dchain ||
	    ft_stage1_init(&p->s1, m) || ft_stage2_init(&p->s2, m)) {
		pipe_fini(p);
		return -1;
	}
	return 0;
}

/* Two threads when @threads (0: the online CPUs) allows and there is more than a block. */
static int pipe_start(struct ft_pipe *p, unsigned threads, uint64_t ndest)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!threads)
		threads = cpus > 1 ? (unsigned)cpus : 1;
	if (threads < 2 || ndest <= FT_BLOCK || p->nbuf < FT_NBUF)
		return 0;
	if (pthread_mutex_init(&p->mu, NULL))
		return 0;
	if (pthread_cond_init(&p->cv, NULL)) {
		pthread_mutex_destroy(&p->mu);
		return 0;
	}
	if (pthread_create(&p->tid, NULL, second_thread, p)) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		return 0;
	}
	p->threaded = 1;
	p->cut = p->m->nsw / 8 & ~7u;	/* about the share measured at 3,920 switches */
	return 1;
}

/* --- all destinations ---------------------------------------------------------- */

/* The CA or router port behind port @p of switch @s, or NULL. */
static const struct fab_port *ca_port(const struct fabric *f, uint32_t s, unsigned p)
{
	const struct fab_port *x = fab_port(f, f->switches[s], p);

	if (x->peer == FAB_NONE || f->nodes[x->peer].type == FAB_SWITCH)
		return NULL;
	return fab_port(f, x->peer, x->peer_port);
}

/* The CA port behind port @p of switch @s when it is a compute node (@cn: 1) or not (0). */
static const struct fab_port *cn_port(const struct ft_model *m, uint32_t s, unsigned p, int cn)
{
	const struct fab_port *c = ca_port(m->f, s, p);

	if (!c || !m->cn)
		return cn ? c : NULL;
	return !m->cn[c - m->f->ports] == !cn ? c : NULL;
}

/* Compute node LIDs hanging off leaf @s. */
static uint32_t leaf_lids(const struct ft_model *m, uint32_t s)
{
	uint32_t n = 0;

	for (unsigned p = 1; p <= m->f->nodes[m->f->switches[s]].nports; p++) {
		const struct fab_port *c = cn_port(m, s, p, 1);

		if (c && c->lid)
			n += 1u << c->lmc;
	}
	return n;
}

/* Submit the LIDs of the CA port behind port @q of switch @s; their count. */
static uint32_t route_ca(struct ft_pipe *p, uint32_t s, unsigned q, const struct fab_port *c)
{
	uint32_t done = 0;

	for (unsigned l = 0; c && c->lid && l < (1u << c->lmc); l++, done++)
		submit(p, (struct ft_dest){ .home = s, .port = (uint8_t)q, .sibs = 1, .paths = 1,
					    .hops = 1,
					    .lid = (uint16_t)(c->lid + l < p->r->lft_len ?
							      c->lid + l : 0) });
	return done;
}

/*
 * The non-compute nodes (cn_guid_file, io_guid_file), after every compute
 * node: switch by switch in level order, outside the leaves' quota.
 */
static void route_non_cns(struct ft_pipe *p, struct ft_stats *st)
{
	const struct ft_model *m = p->m;

	for (uint32_t i = 0; m->cn && i < m->lvl_off[m->nlevels + 1]; i++) {
		uint32_t s = m->order[i];

		for (unsigned q = 1; q <= m->f->nodes[m->f->switches[s]].nports; q++)
			st->ca_lids += route_ca(p, s, q, cn_port(m, s, q, 0));
	}
}

/* Route the CA LIDs of leaf @s, then its dummies up to @quota destinations. */
static void route_leaf(struct ft_pipe *p, uint32_t s, uint32_t quota, struct ft_stats *st)
{
	const struct fabric *f = p->m->f;
	uint32_t done = 0;

	for (unsigned q = 1; q <= f->nodes[f->switches[s]].nports; q++)
		done += route_ca(p, s, q, cn_port(p->m, s, q, 1));
	st->ca_lids += done;
	for (; done < quota; done++, st->dummies++)
		submit(p, (struct ft_dest){ .home = s, .port = RT_NO_PORT, .paths = 1, .hops = 1 });
}

static void route_switch(struct ft_pipe *p, uint32_t s)
{
	unsigned lid = fab_port(p->m->f, p->m->f->switches[s], 0)->lid;

	if (lid && lid < p->r->lft_len)
		submit(p, (struct ft_dest){ .home = s, .port = 0, .sibs = 1, .hops = 0,
					    .lid = (uint16_t)lid });
}

int ft_route(const struct ft_model *m, struct rt_routing *r, struct ft_stats *st, unsigned threads,
	     uint8_t *missing)
{
	uint32_t quota = 0;
	struct ft_pipe p;

	memset(st, 0, sizeof(*st));
	if (pipe_init(&p, m, r, threads == 1 ? 1 : FT_NBUF))
		return -1;
	if (holes_init(&p, st, missing)) {
		pipe_fini(&p);
		return -1;
	}
	for (uint32_t i = m->lvl_off[1]; i < m->lvl_off[2]; i++) {
		uint32_t n = leaf_lids(m, m->order[i]);

		quota = n > quota ? n : quota;
	}
	pipe_start(&p, threads, (uint64_t)quota * (m->lvl_off[2] - m->lvl_off[1]) + m->nsw);
	for (uint32_t i = m->lvl_off[1]; i < m->lvl_off[2]; i++)
		route_leaf(&p, m->order[i], quota, st);
	route_non_cns(&p, st);
	for (uint32_t i = 0; i < m->lvl_off[m->nlevels + 1]; i++)
		route_switch(&p, m->order[i]);
	finish(&p);
	if (fill_rest(&p)) {
		pipe_fini(&p);
		return -1;
	}
	holes_rest(&p);
	pipe_fini(&p);
	return 0;
}

/* --- the engine ------------------------------------------------------------------ */

static int ftree_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		struct fab_err *err)
{
	const struct fabric *f = q->fabric;
	struct rt_routing **out = &res->routing;
	struct ft_stats st;
	struct ft_hints h;
	struct ft_model m;
	struct rt_routing *r;
	int rc = ft_hints_init(&h, f, a, err);

	if (rc != ENG_OK)
		return rc;
	rc = ft_model_init_hints(&m, f, &h, err);
	if (rc != ENG_OK) {
		ft_hints_free(&h);
		return rc;
	}
	r = rt_new_rows(f, f->lid_top + 1);
	if (!r || ft_route(&m, r, &st, q->threads, NULL) ||
	    !(r->notes = ft_notes(&m, &h, &st))) {
		fab_err_set(err, "out of memory routing %u switches", f->nswitches);
		rt_free(r);
		rc = ENG_ERROR;
	} else {
		*out = r;
	}
	ft_model_fini(&m);
	ft_hints_free(&h);
	return rc;
}

static const struct eng_opt ftree_opts[] = {
	FT_HINT_OPTIONS,
	{ .name = NULL },
};

const struct engine eng_ftree = {
	.name = "ftree",
	.summary = "fat-tree routing (Zahavi, OpenSM's ftree): balanced up/down paths, one "
		   "dedicated downward path per CA; degraded and multi-core trees too",
	.options = ftree_opts,
	.deadlock_free = 1,
	.vls = 1,
	.route = ftree_route,
};
