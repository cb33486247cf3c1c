/* SPDX-License-Identifier: MIT */
/**
 * DOC: re-evaluation by differences, a block of destinations at a time
 *
 * an_reevaluate() takes a destination's share out of the sums as the old
 * routing made it and puts it back as the new one makes it. Where the
 * block pass of analysis/dest_block.c takes the destination (the common
 * case: no per-pair tables, every hop on VL 0), both shares come as rows
 * of one entry per switch: the LFT entry, the channel marked and its
 * dependency, the pairs out of the port. A repair changes a few entries
 * of each column, so most switches add the same to both shares: only the
 * switches whose row differs are counted, the old row out and the new one
 * in, straight into the sums kept (an_acc's channel blocks and per-port
 * sums), instead of counting both shares whole into sums of their own and
 * adding those (each as large as the fabric) to the kept ones. What the
 * rows do not hold (connectivity, per-switch deliveries, the endpoints'
 * own links) is counted by the block pass into small sums of each side
 * and added at the end. The blocks are shared out among an_opts' threads,
 * each keeping its rows that differ; they are counted once all are done.
 * The sums are the same as the whole shares give, whatever the threads:
 * the unit tests compare the reports with full evaluations.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dest_impl.h"
#include "analysis/reeval_impl.h"

/* Destinations whose kept rows are asked for ahead of their turn. */
#define KEPT_AHEAD 4u
/* With the rows kept, the fewest destinations worth one more thread. */
#define KEPT_PER_THREAD 512u

/* The most threads of a re-evaluation. */
#define AN_REEVAL_THREADS 16u

/* One side (old or new): the block pass's scratch and the sums of what the rows do not hold. */
struct side {
	struct an_work *w;
	struct an_acc acc;
};

/* Sums of what the rows do not hold. Return: 0, or -1 when out of memory. */
static int rest_init(struct an_acc *a, const struct fabric *f)
{
	memset(a, 0, sizeof(*a));
	a->eld = calloc(2 * (size_t)f->neps + 1, sizeof(*a->eld));
	a->dall = calloc((size_t)f->nswitches + 1, sizeof(*a->dall));
	a->dca = calloc((size_t)f->nswitches + 1, sizeof(*a->dca));
	return a->eld && a->dall && a->dca ? 0 : -1;
}

/* The block pass's scratch for @p (NULL: its plan could not be made). */
static int side_work(struct side *x, const struct an_plan *p, uint16_t *dhops, uint8_t *dfail,
		     const struct an_rows *rows)
{
	if (!p || !(x->w = an_work_new(p)))
		return -1;
	x->w->acc = &x->acc;
	x->w->dhops = dhops;
	x->w->dfail = dfail;
	x->w->rows = rows;
	return 0;
}

static void side_fini(struct side *x)
{
	an_work_free(x->w);
	an_acc_fini(&x->acc);
}

/* One switch's row counted @sign times (1 or -1): entry @slot (switch port), mark @dep, pairs @fl. */
struct diff {
	uint32_t slot, fl;
	uint8_t dep;
	int8_t sign;
};

/*
 * One thread's part: both sides, and the rows that differ, kept to be
 * counted once every thread is done (the kept sums are shared).
 */
struct part {
	struct side old, cur;
	struct an_near *near;
	struct an_kept *kept;
	struct an_acc same;	/* the new side's rest of the rows worked out near the change */
	uint32_t nnear, nkept;
	struct diff *dv;
	size_t ndv, cap;
	int rc;
};

/* What the threads share: the blocks of destinations, taken in turn. */
struct run {
	struct an_plan_once *pp;	/* the old side's plan, made when a pass needs it */
	const struct an_plan *p;
	uint16_t *oh;	/* the old side's hops and fails per destination */
	uint8_t *of;
	const uint32_t *fit;
	uint32_t nfit;
	const uint32_t *sw;	/* the switches whose tables or links differ (NULL: not known) */
	uint32_t nsw;
	const struct an_rows *rows;	/* kept for the old side, updated (NULL: none) */
	atomic_uint_fast32_t next;
	struct part *parts;
};

static int push_diff(struct part *t, uint32_t slot, uint8_t dep, uint32_t fl, int sign)
{
	if (t->ndv == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct diff *n = realloc(t->dv, cap * sizeof(*n));

		if (!n)
			return -1;
		t->dv = n;
		t->cap = cap;
	}
	t->dv[t->ndv++] = (struct diff){ slot, fl, dep, (int8_t)sign };
	return 0;
}

/*
 * Row @j of both sides, at switches @sw[0..@n) (NULL: all @n): the
 * switches whose row differs, old out and new in.
 */
static int diffs(const struct an_plan *p, struct part *t, uint32_t j, const uint32_t *sw,
		 uint32_t n)
{
	const struct an_blk *ob = &t->old.w->blk, *nb = &t->cur.w->blk;
	uint32_t nsw = p->c.f->nswitches;
	int load = p->o.load;

	for (uint32_t k = 0; k < n; k++) {
		uint32_t s = sw ? sw[k] : k;
		size_t i = (size_t)j * nsw + s;
		uint32_t ofl = load ? ob->fl[i] : 0, nfl = load ? nb->fl[i] : 0;

		if (ob->o[i] == nb->o[i] && ob->dep[i] == nb->dep[i] && ofl == nfl)
			continue;
		if (push_diff(t, p->pt_base[s] + ob->o[i], ob->dep[i], ofl, -1) ||
		    push_diff(t, p->pt_base[s] + nb->o[i], nb->dep[i], nfl, 1))
			return -1;
	}
	return 0;
}

/*
 * Rows [0, @m) of both sides, for destinations @d: those that changed
 * only near the change settled on the new side alone, their rest (the
 * same on both sides) left out of the sums, their old rows worked out
 * from the new ones (analysis/reeval_near.c); the others settled on both.
 */
static int passes(const struct run *run, struct part *t, const uint32_t *d, uint32_t m)
{
	struct an_blk *ob, *nb = &t->cur.w->blk;
	uint32_t near[AN_BLOCK], far[AN_BLOCK], nn = 0, nf = 0, nsw = run->p->c.f->nswitches;
	int rc = 0;

	if (!t->old.w && side_work(&t->old, an_plan_once_get(run->pp), run->oh, run->of, NULL))
		return -1;
	ob = &t->old.w->blk;
	an_dest_block_gather(t->cur.w, d, m);
	if (run->sw)
		an_dest_block_gather_like(t->old.w, t->cur.w, d, m, run->sw, run->nsw);
	else
		an_dest_block_gather(t->old.w, d, m);
	for (uint32_t j = 0; j < m; j++)
		if (an_near_find(t->near, run->p, ob, nb, j, d[j], run->sw, run->nsw))
			near[nn++] = j;
		else
			far[nf++] = j;
	t->cur.w->acc = &t->same;
	an_dest_block_settle(t->cur.w, d, near, nn);
	t->cur.w->acc = &t->cur.acc;
	an_dest_block_settle(t->cur.w, d, far, nf);
	an_dest_block_settle(t->old.w, d, far, nf);
	for (uint32_t k = 0; k < nn && !rc; k++) {
		uint32_t n;
		const uint32_t *sw = an_near_old(t->near, run->p, ob, nb, near[k], d[near[k]], &n);

		rc = diffs(run->p, t, near[k], sw, n);
	}
	for (uint32_t k = 0; k < nf && !rc; k++)
		rc = diffs(run->p, t, far[k], NULL, nsw);
	if (run->rows)
		an_dest_block_keep(t->cur.w, d, m);
	t->nnear += nn;
	return rc;
}

/* The rows of the switches an_kept_find() found, old out and new in. */
static int kept_diffs(const struct an_plan *p, struct part *t)
{
	uint32_t n = an_kept_count(t->kept);

	for (uint32_t i = 0; i < n; i++) {
		uint32_t s, fo, fn;
		uint8_t oo, on, mo, mn;

		an_kept_row(t->kept, i, 0, &s, &oo, &mo, &fo);
		an_kept_row(t->kept, i, 1, &s, &on, &mn, &fn);
		if (oo == on && mo == mn && fo == fn)
			continue;
		if (push_diff(t, p->pt_base[s] + oo, mo, fo, -1) ||
		    push_diff(t, p->pt_base[s] + on, mn, fn, 1))
			return -1;
	}
	return 0;
}

/*
 * Destinations @d[0..@m): with the rows kept, those that changed only
 * near the change worked out there alone (analysis/reeval_kept.c), the
 * others by the passes over every switch.
 */
static int block(const struct run *run, struct part *t, const uint32_t *d, uint32_t m)
{
	uint32_t rest[AN_BLOCK], nr = 0;
	int rc = 0;

	if (!run->rows || !run->sw)
		return passes(run, t, d, m);
	for (uint32_t j = 0; j < KEPT_AHEAD && j < m; j++)
		an_kept_ahead(run->p, run->rows, d[j], run->sw, run->nsw);
	for (uint32_t j = 0; j < m && !rc; j++) {
		if (j + KEPT_AHEAD < m)
			an_kept_ahead(run->p, run->rows, d[j + KEPT_AHEAD], run->sw, run->nsw);
		if (!an_kept_find(t->kept, run->p, run->rows, d[j], run->sw, run->nsw)) {
			rest[nr++] = d[j];
			continue;
		}
		if (an_kept_count(t->kept))
			t->cur.w->dhops[d[j]] = (uint16_t)an_kept_longest(t->kept);
		rc = kept_diffs(run->p, t);
		t->nnear++;
		t->nkept++;
	}
	return rc || !nr ? rc : passes(run, t, rest, nr);
}

static void *part_run(void *arg)
{
	struct run *run = ((void **)arg)[0];
	struct part *t = ((void **)arg)[1];
	uint32_t at;

	while (!t->rc && (at = (uint32_t)atomic_fetch_add(&run->next, AN_BLOCK)) < run->nfit) {
		uint32_t m = run->nfit - at < AN_BLOCK ? run->nfit - at : AN_BLOCK;

		t->rc = block(run, t, run->fit + at, m);
	}
	return NULL;
}

/* Threads 1.. start, the caller is part 0; all joined before returning. */
static int run_parts(struct run *run, unsigned nt)
{
	pthread_t tid[AN_REEVAL_THREADS];
	void *arg[AN_REEVAL_THREADS][2];
	unsigned started = 1;
	int rc = 0;

	for (unsigned i = 0; i < nt; i++) {
		arg[i][0] = run;
		arg[i][1] = &run->parts[i];
	}
	for (; started < nt; started++)
		if (pthread_create(&tid[started], NULL, part_run, arg[started]))
			break;	/* the threads that started take the rest */
	part_run(arg[0]);
	for (unsigned i = 1; i < started; i++)
		pthread_join(tid[i], NULL);
	for (unsigned i = 0; i < nt; i++)
		rc |= run->parts[i].rc;
	return rc;
}

/*
 * A part's rows that differ, into the kept sums of @st; the channels and
 * dependencies that appear or go, counted in its order (struct an_ranks),
 * and each dependency that appears checked against it.
 */
static int count_diffs(const struct an_plan *p, const struct part *t, struct an_state *st)
{
	struct an_acc *a = &st->acc;
	struct an_ranks *rk = &st->ranks;

	for (size_t k = 0; k < t->ndv; k++) {
		const struct diff *x = &t->dv[k];
		size_t from = an_acc_index(p, x->slot, 0);
		uint32_t b;

		if (x->dep != AN_DEP_NONE)	/* as the block pass counts them: one VL slot */
			an_ranks_step(&a->chan[from], x->sign, &rk->channels);
		if (x->dep != AN_DEP_NONE && x->dep) {
			if (!(b = an_acc_block(a, p, x->slot, 0)))
				return -1;
			/* appears (on the new side: @p's links): towards the next switch's port @dep */
			if (an_ranks_step(&a->arena[b + 1 + x->dep], x->sign, &rk->deps))
				an_ranks_check(rk, from,
					       an_acc_index(p, p->pt_base[AN_PT_VAL(p->pt[x->slot])] +
								  x->dep, 0));
		}
		if (!x->fl)
			continue;	/* no pairs: the entry may be no port at all */
		/* sums of 32 bits: they wrap back exactly */
		a->ld[2 * x->slot] += (uint32_t)x->sign * (x->fl & 0xffffu);
		a->ld[2 * x->slot + 1] += (uint32_t)x->sign * (x->fl >> 16);
	}
	return 0;
}

static void add64(uint64_t *into, const uint64_t *plus, const uint64_t *minus, size_t n)
{
	for (size_t i = 0; i < n; i++)
		into[i] += plus[i] - minus[i];
}

static void add32(uint32_t *into, const uint32_t *plus, const uint32_t *minus, size_t n)
{
	for (size_t i = 0; i < n; i++)
		into[i] += plus[i] - minus[i];
}

/* What the rows do not hold: the new side's sums in, the old side's out (pools as an_acc_add()). */
static void add_rest(const struct fabric *f, struct an_acc *a, const struct an_acc *n,
		     const struct an_acc *o)
{
	add64(a->pairs, n->pairs, o->pairs, AN_NCLASSES);
	add64(a->unreachable, n->unreachable, o->unreachable, AN_NCLASSES);
	add64(&a->by_fail[0][0], &n->by_fail[0][0], &o->by_fail[0][0],
	      (size_t)AN_NCLASSES * AN_NFAILS);
	add64(a->paths, n->paths, o->paths, AN_VLS);
	for (unsigned k = 0; k < AN_NCLASSES; k++)
		for (uint32_t i = 0; i < n->ex[k].n; i++)
			an_pool_add(&a->ex[k], &n->ex[k].ex[i]);
	add32(a->eld, n->eld, o->eld, 2 * (size_t)f->neps);
	add32(a->dall, n->dall, o->dall, f->nswitches);
	add32(a->dca, n->dca, o->dca, f->nswitches);
}

/* The destinations of @d[0..@n) the block pass takes, first, in their order; their count. */
static uint32_t split(const struct an_plan *p, uint32_t *d, uint32_t n, uint32_t *tmp)
{
	uint32_t k = 0, r = 0;

	for (uint32_t i = 0; i < n; i++)
		if (an_dest_block_fits(p, d[i]))
			d[k++] = d[i];
		else
			tmp[r++] = d[i];
	memcpy(d + k, tmp, r * sizeof(*d));
	return k;
}

int an_reeval_blocks(struct an_plan_once *pp, const struct an_plan *p, struct an_state *st,
		     uint32_t *d, uint32_t n, const uint32_t *sw, uint32_t nsw_diff, uint32_t *rest,
		     uint32_t near[2])
{
	const struct fabric *f = p->c.f;
	uint16_t *oh = calloc((size_t)f->neps + 1, sizeof(*oh));
	uint8_t *of = calloc((size_t)f->neps + 1, sizeof(*of));
	uint32_t *tmp = malloc(((size_t)n + 1) * sizeof(*tmp));
	struct run run = { .pp = pp, .p = p, .oh = oh, .of = of, .fit = d, .sw = sw,
			   .nsw = nsw_diff, .rows = st->rows.fl ? &st->rows : NULL };
	unsigned nt = 0;
	int rc = -1;

	if (!oh || !of || !tmp)
		goto out;
	run.nfit = split(p, d, n, tmp);
	nt = an_eval_threads(&p->o, run.nfit);
	nt = nt > AN_REEVAL_THREADS ? AN_REEVAL_THREADS : nt;
	if (run.rows && nt > 1 + run.nfit / KEPT_PER_THREAD)
		nt = 1 + run.nfit / KEPT_PER_THREAD;	/* a few microseconds each: a thread costs more */
	if (!(run.parts = calloc(nt, sizeof(*run.parts))))
		goto out;
	for (unsigned i = 0; i < nt; i++)
		if (rest_init(&run.parts[i].old.acc, f) ||	/* its scratch: when a pass needs it */
		    rest_init(&run.parts[i].cur.acc, f) ||
		    side_work(&run.parts[i].cur, p, st->dhops, st->dfail, run.rows) ||
		    rest_init(&run.parts[i].same, f) ||
		    !(run.parts[i].near = an_near_new(f->nswitches)) ||
		    !(run.parts[i].kept = an_kept_new(f->nswitches)))
			goto out;
	atomic_init(&run.next, 0);
	if (run.nfit && run_parts(&run, nt))
		goto out;
	near[0] = near[1] = 0;
	for (unsigned i = 0; i < nt; i++) {
		if (count_diffs(p, &run.parts[i], st))
			goto out;
		add_rest(f, &st->acc, &run.parts[i].cur.acc, &run.parts[i].old.acc);
		near[0] += run.parts[i].nnear;
		near[1] += run.parts[i].nkept;
	}
	memmove(d, d + run.nfit, (n - run.nfit) * sizeof(*d));
	*rest = n - run.nfit;
	rc = 0;
out:
	for (unsigned i = 0; run.parts && i < nt; i++) {
		side_fini(&run.parts[i].old);
		side_fini(&run.parts[i].cur);
		an_acc_fini(&run.parts[i].same);
		an_near_free(run.parts[i].near);
		an_kept_free(run.parts[i].kept);
		free(run.parts[i].dv);
	}
	free(run.parts);
	free(oh);
	free(of);
	free(tmp);
	return rc;
}
