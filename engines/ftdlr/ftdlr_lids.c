/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - every LID a repair rewrites, in threads
 *
 * Each LID is repaired from its own column of the base with the state the
 * set-up made (read only from then on) and scratch of its own: the LIDs
 * are independent, so blocks of FD_COLS of them are handed to threads in
 * any order and the tables are the same whatever thread did which. A
 * thread has its own copy of the scratch (the LID at hand's row, marks and
 * classes) and of the memos (u*, l*, w and the switch classes, pure
 * functions of the set-up: a thread that works one out again finds the
 * same), its own change bits and counts, added up at the end. The subtree
 * root's LID goes first, alone: the others turn on its way.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engines/ftdlr/ftdlr_impl.h"

/* The fewest blocks of LIDs worth a second thread. */
#define FD_PAR_BLOCKS 4u

/**
 * struct fd_worker - one thread's part
 * @x: the repair's state, its scratch and memos its own (a shallow copy)
 * @d, @n: every LID to repair; @next: the next block to take (shared)
 * @base, @out: a block's columns, the base's and the repaired
 * @failed: a block could not be written (out of memory)
 */
struct fd_worker {
	struct fd x;
	const struct dst *d;
	uint32_t n, *next;
	uint8_t *base, *out;
	pthread_t tid;
	int started, failed;
};

int fd_find_dst(const struct fd *x, unsigned lid, struct dst *d)
{
	const struct fabric *cf = x->cf, *bf = x->bf;
	uint32_t ep = fab_ep_by_lid(cf, lid), n, leaf;
	const struct fab_port *p;

	if (ep == FAB_NONE)
		return 0;
	n = cf->eps[ep].node;
	d->lid = lid;
	d->is_switch = cf->nodes[n].type == FAB_SWITCH;
	if (d->is_switch) {
		d->sw = bf->nodes[fab_node_by_guid(bf, cf->nodes[n].guid)].swidx;
		d->port = 0;
		return 1;
	}
	p = fab_port(cf, n, cf->eps[ep].port);
	if (p->peer == FAB_NONE || cf->nodes[p->peer].type != FAB_SWITCH)
		return 0;	/* a CA cabled to a CA: nothing of the tree's */
	leaf = fab_node_by_guid(bf, cf->nodes[p->peer].guid);
	d->sw = bf->nodes[leaf].swidx;
	d->port = p->peer_port;
	return 1;
}

/*
 * Repair @d[0..@n) (LIDs in increasing order), their columns read and
 * written at once. Return: 0, or -1 when out of memory.
 */
static int repair_block(struct fd *x, const struct dst *d, uint32_t n, uint8_t *base,
			uint8_t *out)
{
	unsigned lid[FD_COLS] = { 0 };

	for (uint32_t j = 0; j < n; j++)
		lid[j] = d[j].lid;
	fd_columns(x, lid, n, base);
	for (uint32_t j = 0; j < n; j++)
		fd_repair_lid(x, &d[j], base + (size_t)j * x->nsw, out + (size_t)j * x->nsw);
	return fd_put_columns(x, lid, n, base, out);
}

static void *work(void *arg)
{
	struct fd_worker *w = arg;
	uint32_t b;

	while ((b = __atomic_fetch_add(w->next, 1, __ATOMIC_RELAXED)) * FD_COLS < w->n) {
		uint32_t lo = b * FD_COLS, k = w->n - lo < FD_COLS ? w->n - lo : FD_COLS;

		if (repair_block(&w->x, w->d + lo, k, w->base, w->out))
			w->failed = 1;
	}
	return NULL;
}

static void worker_fini(struct fd_worker *w)
{
	struct fd *x = &w->x;

	for (uint32_t s = 0; x->udc && s < x->nsw; s++)
		free(x->udc[s]);
	free(x->udc);
	free(x->ud);
	free(x->row);
	free(x->fixed);
	free(x->mark);
	free(x->bcol);
	free(x->dist);
	free(x->stack);
	free(x->ustar);
	free(x->lstar);
	free(x->wsel);
	free(x->chg);
	free(w->base);
	free(w->out);
}

static void *dup_of(const void *p, size_t n)
{
	void *q = malloc(n + 1);

	return q ? memcpy(q, p, n) : NULL;
}

/* @w: @x with scratch, memos, change bits and counts of its own (@share of the classes' room). */
static int worker_init(struct fd_worker *w, const struct fd *x, unsigned share)
{
	size_t n = x->nsw, words = (size_t)x->nsw * ((x->nblk64 + 63) / 64);
	struct fd *y = &w->x;

	memset(w, 0, sizeof(*w));
	*y = *x;
	y->st.entries = y->st.conflicts = y->st.nonmonotone = y->st.unrepaired = 0;
	y->st.subtree = 0;
	y->ud_sw = FD_NONE;
	y->udc_bytes = 0;
	y->udc_max = x->udc_max / share;
	y->udc = calloc(n + 1, sizeof(*y->udc));
	y->ud = malloc(n + 1);
	y->row = malloc(n + 1);
	y->fixed = malloc(n + 1);
	y->mark = malloc(n + 1);
	y->bcol = malloc(n + 1);
	y->dist = malloc((n + 1) * sizeof(*y->dist));
	y->stack = malloc((n + 1) * sizeof(*y->stack));
	y->ustar = dup_of(x->ustar, n * sizeof(*x->ustar));
	y->lstar = dup_of(x->lstar, n * sizeof(*x->lstar));
	y->wsel = dup_of(x->wsel, (size_t)x->m.nlinks * sizeof(*x->wsel));
	y->chg = calloc(words + 1, sizeof(*y->chg));
	w->base = malloc((size_t)FD_COLS * n + 1);
	w->out = malloc((size_t)FD_COLS * n + 1);
	return y->udc && y->ud && y->row && y->fixed && y->mark && y->bcol && y->dist && y->stack &&
	       y->ustar && y->lstar && y->wsel && y->chg && w->base && w->out ? 0 : -1;
}

/* @w's counts and change bits into @x. */
static void worker_merge(struct fd *x, const struct fd_worker *w)
{
	size_t words = (size_t)x->nsw * ((x->nblk64 + 63) / 64);
	const struct fd *y = &w->x;

	x->st.entries += y->st.entries;
	x->st.conflicts += y->st.conflicts;
	x->st.nonmonotone += y->st.nonmonotone;
	x->st.unrepaired += y->st.unrepaired;
	x->st.subtree += y->st.subtree;
	for (size_t k = 0; k < words; k++)
		x->chg[k] |= y->chg[k];
}

unsigned fd_threads(unsigned threads)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!threads)
		threads = cpus > 1 ? (unsigned)cpus : 1;
	return threads < FD_THREADS_MAX ? threads : FD_THREADS_MAX;
}

/* How many threads for @nblocks blocks of LIDs: fd_threads(), at most one a block. */
static unsigned nworkers(unsigned threads, uint32_t nblocks)
{
	if (nblocks < FD_PAR_BLOCKS)
		return 1;	/* (without asking the system its CPUs: a file read) */
	threads = fd_threads(threads);
	return threads < nblocks ? threads : nblocks;
}

/* Repair @d[0..@n) in @nw threads, this one among them. Return: 0, or -1 (memory). */
static int run_workers(struct fd *x, const struct dst *d, uint32_t n, unsigned nw)
{
	struct fd_worker w[FD_THREADS_MAX];
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	uint32_t next = 0;
	unsigned made = 0;
	int rc = 0;

	x->rows_lock = &lock;	/* the workers' copies of @x share it */
	for (; made < nw && !rc; made++) {
		rc = worker_init(&w[made], x, nw);
		w[made].d = d;
		w[made].n = n;
		w[made].next = &next;
	}
	for (unsigned i = 1; i < made && !rc; i++)
		w[i].started = !pthread_create(&w[i].tid, NULL, work, &w[i]);
	if (!rc)
		work(&w[0]);	/* a thread that did not start leaves its blocks to the others */
	for (unsigned i = 0; i < made; i++) {
		if (w[i].started)
			pthread_join(w[i].tid, NULL);
		rc = rc || w[i].failed ? -1 : 0;
		if (!rc)
			worker_merge(x, &w[i]);
		worker_fini(&w[i]);
	}
	x->rows_lock = NULL;
	pthread_mutex_destroy(&lock);
	return rc;
}

/* By the switch the LID belongs to, then by LID. */
static int cmp_dst(const void *a, const void *b)
{
	const struct dst *x = a, *y = b;

	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	return x->lid < y->lid ? -1 : x->lid > y->lid;
}

/*
 * The LIDs of @d[0..*@n) (in LID order) that fd_quick() repairs at the
 * switches they concern, taken out; the others left in order. Each LID is
 * its own, so they are taken switch by switch: the classes and Q towards a
 * switch are worked out once for all its LIDs (OpenSM numbers a leaf's CAs
 * apart). Return: 0, or -1 when out of memory.
 */
static int quick_all(struct fd *x, struct dst *d, uint32_t *n)
{
	struct dst *by = malloc(((size_t)*n + 1) * sizeof(*by));
	uint8_t *done = calloc((size_t)x->br->lft_len + 1, 1);
	uint32_t k = 0;
	int q = 0;

	if (!by || !done) {
		free(by);
		free(done);
		return -1;
	}
	memcpy(by, d, *n * sizeof(*d));
	qsort(by, *n, sizeof(*by), cmp_dst);
	for (uint32_t i = 0; i < *n && q >= 0; i++) {
		q = fd_quick(x, &by[i]);
		done[by[i].lid] = q == 1;
	}
	if (q < 0) {	/* out of memory */
		free(by);
		free(done);
		return -1;
	}
	for (uint32_t i = 0; i < *n; i++)
		if (!done[d[i].lid])
			d[k++] = d[i];
	*n = k;
	free(by);
	free(done);
	return 0;
}

int fd_repair_lids(struct fd *x, unsigned threads)
{
	uint8_t *base = malloc((size_t)FD_COLS * x->nsw + 1);
	uint8_t *out = malloc((size_t)FD_COLS * x->nsw + 1);
	struct dst *d = malloc(((size_t)x->br->lft_len + 1) * sizeof(*d));
	uint32_t n = 0;
	int rc = -1;

	if (!base || !out || !d)
		goto out;
	if (x->sn != FD_NONE) {	/* the subtree root's LID first: the others turn on its way */
		if (x->need[x->snlid] && fd_find_dst(x, x->snlid, &d[0])) {
			x->st.lids++;
			x->sw_touched[x->snlid] = 1;
			if (repair_block(x, d, 1, base, out))
				goto out;
		}
		fd_sn_ways(x, x->r);
		if (fd_quick_init(x))
			goto out;
	}
	for (uint32_t l = 1; l < x->br->lft_len; l++) {
		if (!x->need[l] || (x->sn != FD_NONE && l == x->snlid) || !fd_find_dst(x, l, &d[n]))
			continue;
		x->st.lids++;
		x->sw_touched[l] = d[n].is_switch;
		n++;
	}
	if (x->nq && quick_all(x, d, &n))
		goto out;
	threads = nworkers(threads, (n + FD_COLS - 1) / FD_COLS);
	rc = 0;
	if (threads > 1)
		rc = run_workers(x, d, n, threads);
	else
		for (uint32_t lo = 0; lo < n && !rc; lo += FD_COLS)
			rc = repair_block(x, d + lo, n - lo < FD_COLS ? n - lo : FD_COLS, base, out);
out:
	free(base);
	free(out);
	free(d);
	return rc;
}
