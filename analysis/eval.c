/* SPDX-License-Identifier: MIT */
/**
 * DOC: evaluation
 *
 * an_evaluate() hands the destinations, in chunks, to its threads; each
 * thread adds the pairs of the destinations it took to its own sums
 * (analysis/dest.c, analysis/acc.c), and the sums are added once all are
 * done. Every sum is a count, so the report is the same whatever the
 * thread count and whichever thread took which chunk. The figures are then
 * read off the sums: connectivity counts, the CDG built from the channels
 * and dependencies counted (analysis/cdg.c), the load (analysis/load.c).
 *
 * With an_opts.incremental the sums stay in the report (struct an_state),
 * and an_reevaluate() (analysis/reeval.c) takes out and puts back only
 * the destinations a change touched. Counting every dependency costs more
 * than marking it (at 43,904 CAs 1.8 s against 1 s: the counters miss the
 * cache): with an_opts.state_later the report comes from the marks, and
 * an_state_make() counts afterwards, once the routing is out.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/eval_impl.h"

#define EVAL_CHUNK 32u
#define EVAL_THREADS_MAX 64u

int an_fabrics_match(const struct fabric *f, const struct rt_routing *r, struct fab_err *err)
{
	if (!f->finalized) {
		fab_err_set(err, "the fabric is not finalized");
		return -1;
	}
	if (r->nswitches != f->nswitches || r->neps != f->neps) {
		fab_err_set(err, "the routing was made for another fabric (%u switches, %u endpoints; "
			    "this one has %u and %u)", r->nswitches, r->neps, f->nswitches, f->neps);
		return -1;
	}
	return 0;
}

unsigned an_eval_threads(const struct an_opts *o, uint32_t ndests)
{
	unsigned n = o->threads;
	uint32_t chunks = (ndests + EVAL_CHUNK - 1) / EVAL_CHUNK;

	if (!n && o->parallel) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		n = cpus > 0 ? (unsigned)cpus : 1;
	}
	n = n ? n : 1;
	n = n > EVAL_THREADS_MAX ? EVAL_THREADS_MAX : n;
	return n > chunks && chunks ? chunks : n;
}

/* What the threads share. */
struct run {
	const struct an_plan *p;
	const struct an_opts *o;
	const uint32_t *order;
	uint32_t n;
	atomic_uint_fast32_t next, done, next_sw;
	uint16_t *dhops;
	uint8_t *dfail;
	const struct an_rows *rows;
	uint32_t *spread;
	struct an_acc *acc;
	struct an_work **work;
	int *rc;
};

struct worker {
	struct run *run;
	unsigned i;
};

static void worker_spreads(struct run *run)
{
	const struct fabric *f = run->p->c.f;
	uint32_t s;

	while ((s = (uint32_t)atomic_fetch_add(&run->next_sw, 64)) < f->nswitches)
		for (uint32_t e = s + 64 < f->nswitches ? s + 64 : f->nswitches; s < e; s++)
			run->spread[s] = an_load_spread(f, run->p->c.r, run->p->lid_ep, s);
}

static void *worker(void *arg)
{
	struct worker *wk = arg;
	struct run *run = wk->run;
	uint32_t at;

	while (!run->rc[wk->i] && !an_cancelled(run->o) &&
	       (at = (uint32_t)atomic_fetch_add(&run->next, EVAL_CHUNK)) < run->n) {
		uint32_t m = run->n - at < EVAL_CHUNK ? run->n - at : EVAL_CHUNK;
		uint32_t done;

		run->rc[wk->i] = an_dest_run(run->work[wk->i], &run->acc[wk->i], run->order + at, m,
					     run->dhops, run->dfail, run->rows);
		done = (uint32_t)atomic_fetch_add(&run->done, m) + m;
		if (wk->i == 0 && run->o->progress)
			run->o->progress(run->o->progress_arg, done, run->n);
	}
	if (run->spread)
		worker_spreads(run);
	return NULL;
}

static void run_free(struct run *run, unsigned nt)
{
	for (unsigned i = 0; run->work && i < nt; i++)
		an_work_free(run->work[i]);
	for (unsigned i = 1; run->acc && i < nt; i++)
		an_acc_fini(&run->acc[i]);
	free(run->work);
	free(run->acc);
	free(run->rc);
}

/* Threads 1.. start, the caller is thread 0; all joined before returning. */
static int run_threads(struct run *run, unsigned nt)
{
	pthread_t *tid = calloc(nt, sizeof(*tid));
	struct worker *wk = calloc(nt, sizeof(*wk));
	unsigned started = 1;
	int rc = 0;

	if (!tid || !wk) {
		free(tid);
		free(wk);
		return -1;
	}
	for (unsigned i = 0; i < nt; i++)
		wk[i] = (struct worker){ run, i };
	for (; started < nt; started++)
		if (pthread_create(&tid[started], NULL, worker, &wk[started]))
			break;	/* the threads that started take the rest */
	worker(&wk[0]);
	for (unsigned i = 1; i < started; i++)
		pthread_join(tid[i], NULL);
	for (unsigned i = 0; i < nt; i++)
		rc |= run->rc[i];
	free(tid);
	free(wk);
	return rc;
}

int an_eval_run(const struct an_plan *p, const struct an_opts *o, const uint32_t *order,
		uint32_t n, struct an_acc *out, uint16_t *dhops, uint8_t *dfail,
		const struct an_rows *rows, uint32_t *spread)
{
	unsigned nt = an_eval_threads(o, n);
	struct run run = { .p = p, .o = o, .order = order, .n = n, .dhops = dhops, .dfail = dfail,
			   .rows = rows, .spread = spread };
	int rc = -1;

	run.acc = calloc(nt, sizeof(*run.acc));
	run.work = calloc(nt, sizeof(*run.work));
	run.rc = calloc(nt, sizeof(*run.rc));
	if (!run.acc || !run.work || !run.rc || an_acc_init(&run.acc[0], p))
		goto out;
	for (unsigned i = 0; i < nt; i++)
		if ((i && an_acc_init(&run.acc[i], p)) || !(run.work[i] = an_work_new(p)))
			goto fail;
	atomic_init(&run.next, 0);
	atomic_init(&run.done, 0);
	atomic_init(&run.next_sw, 0);
	if (run_threads(&run, nt) || an_cancelled(o))
		goto fail;
	if (o->progress)
		o->progress(o->progress_arg, n, n);
	for (unsigned i = 1; i < nt; i++)
		if (an_acc_add(&run.acc[0], p, &run.acc[i], 1))
			goto fail;
	an_dest_block_channels(p, &run.acc[0]);
	*out = run.acc[0];
	rc = 0;
	goto out;
fail:
	an_acc_fini(&run.acc[0]);
out:
	if (run.acc)
		run_free(&run, nt);
	else
		free(run.work), free(run.rc);
	return rc;
}

/* --- the report, from the sums -------------------------------------------- */

void an_state_free(struct an_state *st)
{
	if (!st)
		return;
	an_acc_fini(&st->acc);
	an_ranks_free(&st->ranks);
	free(st->spread);
	free(st->dhops);
	free(st->dfail);
	free(st->rows.fl);
	free(st->rows.c);
	free(st->rows.up);
	free(st->rows.o);
	free(st);
}

struct an_state *an_state_new(const struct fabric *f)
{
	struct an_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->dhops = calloc((size_t)f->neps + 1, sizeof(*st->dhops));
	st->dfail = calloc((size_t)f->neps + 1, sizeof(*st->dfail));
	if (!st->dhops || !st->dfail) {
		an_state_free(st);
		return NULL;
	}
	return st;
}

static void finish_conn(const struct an_plan *p, const struct an_state *st,
			const struct an_pool *pools, struct an_conn *out)
{
	const struct fabric *f = p->c.f;

	memcpy(out->pairs, st->acc.pairs, sizeof(out->pairs));
	memcpy(out->unreachable, st->acc.unreachable, sizeof(out->unreachable));
	memcpy(out->by_fail, st->acc.by_fail, sizeof(out->by_fail));
	for (unsigned k = 0; k < AN_NCLASSES; k++) {
		out->nex[k] = pools[k].n;
		memcpy(out->ex[k], pools[k].ex, pools[k].n * sizeof(*pools[k].ex));
	}
	for (uint32_t d = 0; d < f->neps; d++)
		if (st->dhops[d] > out->max_hops)
			out->max_hops = st->dhops[d];
}

/* Pairs out of every port: the sums, plus each CA source's own link; kept in the report. */
static int finish_load(const struct an_plan *p, const struct an_state *st, const uint32_t *spread,
		       struct an_report *rep)
{
	struct an_load *out = &rep->load;
	const struct fabric *f = p->c.f;
	uint64_t *all = malloc(((size_t)f->nports + 1) * sizeof(*all));
	uint64_t *ca = malloc(((size_t)f->nports + 1) * sizeof(*ca));

	if (!all || !ca) {
		free(all);
		free(ca);
		return -1;
	}
	memset(all, 0, ((size_t)f->nports + 1) * sizeof(*all));
	memset(ca, 0, ((size_t)f->nports + 1) * sizeof(*ca));
	for (uint32_t s = 0; s < f->nswitches; s++)
		for (uint32_t q = 0, i = f->nodes[f->switches[s]].port0;
		     p->pt_base[s] + q < p->pt_base[s + 1]; q++) {
			all[i + q] = st->acc.ld[2 * (p->pt_base[s] + q)];
			ca[i + q] = st->acc.ld[2 * (p->pt_base[s] + q) + 1];
		}
	for (uint32_t e = f->nswitches; e < f->neps; e++) {
		uint32_t first = p->c.first[e], i = f->nodes[f->eps[e].node].port0 + f->eps[e].port;
		uint32_t a = st->acc.eld[2 * e], c = st->acc.eld[2 * e + 1];

		if (first != FAB_NONE) {
			a += st->acc.dall[first];	/* sums of 32 bits: they wrap back exactly */
			c += f->nodes[f->eps[e].node].type == FAB_CA ? st->acc.dca[first] : 0;
		}
		all[i] = a;
		ca[i] = c;
	}
	an_load_summarise(f, all, ca, out);
	for (uint32_t s = 0; s < f->nswitches; s++)
		if (spread[s] > out->balance_max) {
			out->balance_max = spread[s];
			out->balance_node = f->switches[s];
		}
	free(rep->port_all);
	free(rep->port_ca);
	rep->port_all = all;
	rep->port_ca = ca;
	return 0;
}

int an_eval_finish(const struct an_plan *p, struct an_state *st, const struct an_pool *pools,
		   const uint32_t *spread, struct an_report *rep)
{
	finish_conn(p, st, pools, &rep->conn);
	if (!an_cdg_ranked(&st->ranks, &st->acc, &rep->cdg) &&
	    an_cdg_from_acc(p, &st->acc, &rep->cdg, st->o.incremental ? &st->ranks : NULL))
		return -1;
	return p->o.load ? finish_load(p, st, spread, rep) : 0;
}

/*
 * With the load, the block pass's rows beside the sums (struct an_rows)
 * when they fit in an_opts.rows_max; none (an_reevaluate() then settles a
 * destination over every switch) when they do not or memory is short.
 */
static void keep_rows(const struct an_plan *p, struct an_state *st)
{
	const struct fabric *f = p->c.f;
	size_t n = (size_t)f->neps * f->nswitches;
	size_t max = p->o.rows_max ? p->o.rows_max : AN_ROWS_MAX;

	if (!p->block || !p->o.load ||
	    n * (sizeof(*st->rows.fl) + sizeof(*st->rows.c) + sizeof(*st->rows.up) + 1) > max)
		return;
	st->rows.fl = malloc(n * sizeof(*st->rows.fl));
	st->rows.c = malloc(n * sizeof(*st->rows.c));
	st->rows.up = malloc(n * sizeof(*st->rows.up));
	st->rows.o = malloc(n);
	if (!st->rows.fl || !st->rows.c || !st->rows.up || !st->rows.o) {
		free(st->rows.fl);
		free(st->rows.c);
		free(st->rows.up);
		free(st->rows.o);
		memset(&st->rows, 0, sizeof(st->rows));
	}
}

int an_evaluate(const struct fabric *f, const struct rt_routing *r, const struct an_opts *o,
		struct an_report *rep, struct fab_err *err)
{
	struct an_plan p;
	struct an_state *st = NULL;
	uint32_t *order = NULL, *spread = NULL;
	struct an_opts later;
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	if (an_fabrics_match(f, r, err))
		return -1;
	if (o->incremental && o->state_later) {	/* the state comes with an_state_make() */
		later = *o;
		later.incremental = 0;
		o = &later;
	}
	if (an_plan_init(&p, f, r, o)) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	order = an_plan_order(&p);
	st = an_state_new(f);
	spread = o->load ? calloc((size_t)f->nswitches + 1, sizeof(*spread)) : NULL;
	if (st && o->incremental)
		keep_rows(&p, st);
	if (order && st && (spread || !o->load) &&
	    !an_eval_run(&p, o, order, f->neps, &st->acc, st->dhops, st->dfail, &st->rows,
			 spread)) {
		st->o = *o;
		st->ready = 1;
		rc = an_eval_finish(&p, st, st->acc.ex, spread, rep);
	}
	rep->dests = f->neps;
	if (rc && an_cancelled(o)) {
		fab_err_set(err, "evaluation cancelled");
		an_report_free(rep);
	} else if (rc) {
		fab_err_set(err, "out of memory evaluating %u endpoints", f->neps);
		an_report_free(rep);
	}
	if (!rc && o->incremental) {
		rep->state = st;
		st->spread = spread;	/* an_reevaluate() works out only the changed ones */
		spread = NULL;
	} else {
		an_state_free(st);
	}
	free(order);
	free(spread);
	an_plan_fini(&p);
	return rc;
}

int an_state_make(const struct fabric *f, const struct rt_routing *r, const struct an_opts *o,
		  struct an_report *rep, struct fab_err *err)
{
	struct an_opts counted = *o;
	struct an_report full;

	if (rep->state || !o->incremental)
		return 0;
	counted.state_later = 0;
	if (an_evaluate(f, r, &counted, &full, err))
		return -1;
	/* release: a reader that sees the pointer sees the sums */
	__atomic_store_n(&rep->state, full.state, __ATOMIC_RELEASE);
	full.state = NULL;
	an_report_free(&full);
	return 0;
}

void an_report_free(struct an_report *rep)
{
	free(rep->port_all);
	free(rep->port_ca);
	rep->port_all = rep->port_ca = NULL;
	an_cdg_free(&rep->cdg);
	an_state_free(rep->state);
	rep->state = NULL;
}

int an_connected(const struct an_report *rep)
{
	for (unsigned k = 0; k < AN_NCLASSES; k++)
		if (rep->conn.unreachable[k])
			return 0;
	return 1;
}
