/* SPDX-License-Identifier: MIT */
/**
 * DOC: scale benchmark
 *
 * bench_scale [OPTIONS] FAMILY [NAME=VALUE...]: builds a fabric with the
 * generator (as `fabroute gen` does), routes it with an engine chain and
 * proves the routing (connectivity of every pair, switches included, the
 * CDG per VL and the load), then prints the times and the peak resident
 * memory of route + proof. Options:
 *
 *   -e CHAIN      engines (default sftree)
 *   -r RUNS       evaluations timed (default 3; the first is reported too)
 *   -t THREADS    evaluator threads (default: one per online CPU, and the
 *                 evaluation is also timed on one thread)
 *   -R            also time the reference (pair-by-pair) evaluator once and
 *                 say whether both reports are the same
 *   -l            also take one switch-to-switch link down and time
 *                 an_reevaluate() against a full evaluation, with the tables
 *                 kept (the fault alone) and routed again by the engine
 *   -c            also time the canonical order: fab_finalize() of the
 *                 fabric as generated (nodes already by GUID) against the
 *                 same fabric with its nodes in random order (sorted and
 *                 moved), RUNS times each, and the routing's digest (CPU
 *                 time of the thread: load elsewhere does not count)
 *
 * Figures only; never fails on time.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/reference.h"
#include "engines/engine.h"
#include "gen/gen.h"

struct opts {
	const char *chain;
	int runs, reference, link, canon, daemon, no_sums;
	unsigned threads;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned cpus_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

static double peak_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void die(const char *what, const struct fab_err *err)
{
	fprintf(stderr, "bench_scale: %s: %s\n", what, err->msg);
	exit(1);
}

/* CPU time of the whole process (every thread): what a run costs whatever else the machine does. */
static double cpu_process(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct rt_routing *route(struct fabric *f, const char *chain, double *secs)
{
	struct fab_err err = { { 0 } };
	struct eng_chain c;
	struct eng_req q = { .fabric = f, .chain = &c };	/* the generated LIDs, kept */
	struct eng_res res;
	struct rt_routing *r;
	double c0;

	if (eng_chain_parse(&c, chain, NULL, 0, &err))
		die("engine chain", &err);
	c0 = cpu_process();
	if (eng_run(&q, &res, &err) != ENG_OK)
		die("route", &err);
	eng_chain_free(&c);
	*secs = res.route_ms / 1e3;
	printf("route:         %.3f s (%s; CPU %.3f s)\n", *secs, res.used->name, cpu_process() - c0);
	r = res.routing;
	res.routing = NULL;
	eng_res_free(&res);
	return r;
}

/*
 * One routing run as fabrouted makes it: eng_run() with the daemon's
 * evaluation options (daemon/job.c job_eval_opts: the sums for the
 * re-evaluations counted after the publication) and the proven policy,
 * @runs times; prints the medians of the whole run's wall and CPU time, of
 * its route and proof, and of the counting that follows it.
 */
static void run_as_daemon(const struct fabric *f, const char *chain, int runs, int sums)
{
	static const struct an_opts eo = { .load = 1, .parallel = 1, .incremental = 1,
					   .state_later = 1 };
	struct fab_err err = { { 0 } };
	double *t = calloc((size_t)runs * 5, sizeof(*t));
	struct eng_chain c;

	if (!t || eng_chain_parse(&c, chain, NULL, 0, &err))
		die("engine chain", &err);
	for (int i = 0; i < runs; i++) {
		struct eng_req q = { .fabric = f, .chain = &c, .eval = &eo,
				     .policy = ENG_ACCEPT_PROVEN };
		struct eng_res res;
		double t0 = now(), c0 = cpu_process();

		if (eng_run(&q, &res, &err) != ENG_OK)
			die("route", &err);
		t[i] = now() - t0;
		t[runs + i] = cpu_process() - c0;
		t[2 * runs + i] = res.route_ms / 1e3;
		t[3 * runs + i] = res.eval_ms / 1e3;
		t0 = now();
		if (sums && an_state_make(res.fabric, res.routing, &eo, &res.report, &err))
			die("an_state_make", &err);
		t[4 * runs + i] = now() - t0;
		eng_res_free(&res);
	}
	eng_chain_free(&c);
	for (int k = 0; k < 5; k++)
		qsort(t + k * runs, (size_t)runs, sizeof(*t), cmp_double);
	printf("as fabrouted:  %.3f s (CPU %.3f s) for eng_run() with the proof it publishes: "
	       "route %.3f s, proof %.3f s (medians of %d); then the sums for its repairs "
	       "(an_state_make()) %.3f s\n", t[runs / 2], t[runs + runs / 2],
	       t[2 * runs + runs / 2], t[3 * runs + runs / 2], runs, t[4 * runs + runs / 2]);
	free(t);
}

static double evaluate(const struct fabric *f, const struct rt_routing *r, const struct an_opts *o,
		       struct an_report *rep, double *cpu)
{
	struct fab_err err = { { 0 } };
	double t0 = now(), c0 = cpu_process();

	if (an_evaluate(f, r, o, rep, &err))
		die("an_evaluate", &err);
	if (cpu)
		*cpu = cpu_process() - c0;
	return now() - t0;
}

/* The evaluation @o->runs times; prints the first, fastest and median; returns the fastest. */
static double proof(const struct fabric *f, const struct rt_routing *r, const struct an_opts *ao,
		    const struct opts *o, double *t, unsigned cpus)
{
	struct an_report rep;
	double cpu, cmin = 0;

	for (int i = 0; i < o->runs; i++) {
		t[i] = evaluate(f, r, ao, &rep, &cpu);
		cmin = !i || cpu < cmin ? cpu : cmin;
		an_report_free(&rep);
	}
	printf("proof, %u %s first %.3f s", ao->threads ? ao->threads : cpus,
	       (ao->threads ? ao->threads : cpus) > 1 ? "threads:" : "thread: ", t[0]);
	qsort(t, (size_t)o->runs, sizeof(*t), cmp_double);
	printf(", min %.3f s, median %.3f s over %d runs; CPU min %.3f s\n", t[0], t[o->runs / 2],
	       o->runs, cmin);
	return t[0];
}

static int same_cdg(const struct an_cdg *a, const struct an_cdg *b)
{
	if (a->vls_used != b->vls_used || a->cross_deps != b->cross_deps ||
	    a->cross_cycle != b->cross_cycle || a->deadlock_free != b->deadlock_free)
		return 0;
	for (unsigned v = 0; v < AN_VLS; v++) {
		const struct an_vl *x = &a->vl[v], *y = &b->vl[v];

		if (x->paths != y->paths || x->channels != y->channels || x->deps != y->deps ||
		    x->acyclic != y->acyclic || x->cycle_len != y->cycle_len)
			return 0;
		for (uint32_t i = 0; i < x->cycle_len; i++)
			if (x->cycle[i].node != y->cycle[i].node || x->cycle[i].port != y->cycle[i].port ||
			    x->cycle[i].vl != y->cycle[i].vl)
				return 0;
	}
	return 1;
}

static int same_report(const struct an_report *a, const struct an_report *b)
{
	const struct an_conn *x = &a->conn, *y = &b->conn;

	if (memcmp(x->pairs, y->pairs, sizeof(x->pairs)) ||
	    memcmp(x->unreachable, y->unreachable, sizeof(x->unreachable)) ||
	    memcmp(x->by_fail, y->by_fail, sizeof(x->by_fail)) ||
	    memcmp(x->nex, y->nex, sizeof(x->nex)) || x->max_hops != y->max_hops)
		return 0;
	for (unsigned k = 0; k < AN_NCLASSES; k++)
		for (uint32_t i = 0; i < x->nex[k]; i++)
			if (x->ex[k][i].src != y->ex[k][i].src || x->ex[k][i].dst != y->ex[k][i].dst ||
			    x->ex[k][i].dlid != y->ex[k][i].dlid || x->ex[k][i].fail != y->ex[k][i].fail)
				return 0;
	return same_cdg(&a->cdg, &b->cdg) && !memcmp(&a->load, &b->load, sizeof(a->load));
}

static void print_verdict(const struct fabric *f, const struct an_report *rep)
{
	uint64_t pairs = 0, bad = 0;

	for (unsigned k = 0; k < AN_NCLASSES; k++) {
		pairs += rep->conn.pairs[k];
		bad += rep->conn.unreachable[k];
	}
	printf("verdict:       %llu pairs, %llu unreachable, %s, VLs 0x%x, max link load %llu\n",
	       (unsigned long long)pairs, (unsigned long long)bad,
	       rep->cdg.deadlock_free ? "deadlock-free" : "dependency cycle", rep->cdg.vls_used,
	       (unsigned long long)rep->load.max);
	(void)f;
}

/* Re-evaluate from (@pf, @pr, *@prev) to (@f, @r); print the time against a full evaluation. */
static void reeval(const char *what, const struct fabric *pf, const struct rt_routing *pr,
		   struct an_report *prev, const struct fabric *f, const struct rt_routing *r,
		   const struct an_opts *ao)
{
	struct fab_err err = { { 0 } };
	struct an_report inc, full;
	struct an_opts plain = *ao;
	double t0 = now(), t_inc, t_full;

	if (an_reevaluate(pf, pr, prev, f, r, ao, NULL, &inc, &err))
		die("an_reevaluate", &err);
	t_inc = now() - t0;
	plain.incremental = 0;
	t_full = evaluate(f, r, &plain, &full, NULL);
	printf("%s %.3f s for %u of %u destinations (full evaluation %.3f s); same report: %s\n",
	       what, t_inc, inc.dests, f->neps, t_full, same_report(&inc, &full) ? "yes" : "NO");
	an_report_free(prev);
	*prev = inc;
	an_report_free(&full);
}

/*
 * The first switch-to-switch link of the last switch, down: re-evaluated
 * with the tables kept (what the fault alone does), then routed again.
 */
static void link_down(struct fabric *f, const struct rt_routing *r, const struct opts *o)
{
	struct fab_err err = { { 0 } };
	uint8_t *drop = calloc((size_t)f->nnodes + 1, 1);
	struct fabric *g = drop ? fab_subset(f, drop, &err) : NULL;
	struct an_opts ao = { .load = 1, .threads = o->threads, .parallel = 1, .incremental = 1 };
	struct an_report base;
	struct rt_routing *q;
	double t_route, t0;

	free(drop);
	if (!g)
		die("copy", &err);
	for (uint32_t s = g->nswitches, done = 0; s-- > 0 && !done;) {
		uint32_t n = g->switches[s];

		for (unsigned p = 1; p <= g->nodes[n].nports && !done; p++) {
			uint32_t peer = fab_port(g, n, p)->peer;

			if (peer != FAB_NONE && g->nodes[peer].type == FAB_SWITCH) {
				printf("link down:     '%s' port %u\n", fab_desc(g, n), p);
				fab_link_remove(g, n, p);
				done = 1;
			}
		}
	}
	if (fab_finalize(g, &err))
		die("finalize", &err);
	t0 = now();
	evaluate(f, r, &ao, &base, NULL);
	printf("evaluation keeping the sums (an_opts.incremental): %.3f s\n", now() - t0);
	reeval("re-evaluation, tables kept:", f, r, &base, g, r, &ao);
	q = route(g, o->chain, &t_route);
	reeval("re-evaluation, routed again:", g, r, &base, g, q, &ao);
	an_report_free(&base);
	rt_free(q);
	fab_free(g);
}

/*
 * A copy of @f whose nodes are in random order (@seed), not finalized: what
 * a topology file or a subnet manager listing the same fabric in another
 * order hands to fab_finalize().
 */
static struct fabric *scrambled(const struct fabric *f, uint64_t seed)
{
	struct fab_err err = { { 0 } };
	struct fabric *g = fab_copy(f, &err);
	uint32_t *order = malloc(((size_t)f->nnodes + 1) * sizeof(*order));
	struct fab_rng rng;

	if (!g || !order)
		die("scrambled copy", &err);
	fab_rng_seed(&rng, seed);
	for (uint32_t i = 0; i < f->nnodes; i++)
		order[i] = i;
	for (uint32_t i = f->nnodes; i > 1; i--) {
		uint32_t j = (uint32_t)fab_rng_below(&rng, i), t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
	if (fab_reorder(g, order, &err))
		die("scrambled copy", &err);
	free(order);
	return g;
}

/* CPU time of this thread, seconds: what a step costs, whatever else runs on the machine. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* fab_finalize() of @g, CPU seconds. */
static double finalize_time(struct fabric *g)
{
	struct fab_err err = { { 0 } };
	double t0 = cpu_now();

	if (fab_finalize(g, &err))
		die("finalize", &err);
	return cpu_now() - t0;
}

/* -c: what the canonical order and the digest cost. */
static void canon_cost(const struct fabric *f, const struct rt_routing *r, int runs)
{
	struct fab_err err = { { 0 } };
	double *ord = calloc((size_t)runs, sizeof(double)), *scr = calloc((size_t)runs, sizeof(double));
	double *dig = calloc((size_t)runs, sizeof(double));
	char d[RT_DIGEST_HEX];
	int same = 1;

	for (int i = 0; i < runs; i++) {
		struct fabric *a = fab_copy(f, &err), *b = scrambled(f, (uint64_t)i + 1);
		double t0;

		if (!a)
			die("copy", &err);
		a->finalized = 0;
		ord[i] = finalize_time(a);
		scr[i] = finalize_time(b);
		same &= !memcmp(a->ports, b->ports, (size_t)f->nports * sizeof(*f->ports)) &&
			!memcmp(a->switches, b->switches, (size_t)f->nswitches * sizeof(*f->switches));
		t0 = cpu_now();
		if (rt_digest(f, r, d, &err))
			die("digest", &err);
		dig[i] = cpu_now() - t0;
		fab_free(a);
		fab_free(b);
	}
	qsort(ord, (size_t)runs, sizeof(double), cmp_double);
	qsort(scr, (size_t)runs, sizeof(double), cmp_double);
	qsort(dig, (size_t)runs, sizeof(double), cmp_double);
	printf("finalize:      %.2f ms CPU with the nodes by GUID, %.2f ms in random order "
	       "(medians of %d); the same model: %s\n", ord[runs / 2] * 1e3, scr[runs / 2] * 1e3,
	       runs, same ? "yes" : "NO");
	printf("digest:        %.2f ms CPU (median of %d), %s\n", dig[runs / 2] * 1e3, runs, d);
	free(ord);
	free(scr);
	free(dig);
}

static void parse(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "+e:r:t:RlcDS")) != -1) {
		if (c == 'e')
			o->chain = optarg;
		else if (c == 'r')
			o->runs = atoi(optarg);
		else if (c == 't')
			o->threads = (unsigned)atoi(optarg);
		else if (c == 'R')
			o->reference = 1;
		else if (c == 'l')
			o->link = 1;
		else if (c == 'c')
			o->canon = 1;
		else if (c == 'D')
			o->daemon = 1;
		else if (c == 'S')
			o->no_sums = 1;
		else
			exit(2);
	}
	if (optind >= argc || o->runs < 1) {
		fprintf(stderr, "usage: bench_scale [-e CHAIN] [-r RUNS] [-t THREADS] [-R] [-l] [-c] [-D [-S]] "
			"FAMILY [NAME=VALUE...]\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct opts o = { .chain = "sftree", .runs = 3 };
	struct fab_err err = { { 0 } };
	struct an_report rep;
	struct an_opts ao = { .load = 1, .parallel = 1 };
	struct fabric *f;
	struct rt_routing *r;
	double t_route, *t, best;

	parse(argc, argv, &o);
	ao.threads = o.threads;
	f = gen_build(argv[optind], (const char *const *)argv + optind + 1,
		      (size_t)(argc - optind - 1), 1, &err);
	if (!f)
		die("gen", &err);
	printf("fabric:        %u switches, %u endpoints, %u links, top LID %u\n", f->nswitches,
	       f->neps, f->nlinks, f->lid_top);
	if (o.daemon) {
		run_as_daemon(f, o.chain, o.runs, !o.no_sums);
		printf("peak memory:   %.1f MiB resident (one routing run at a time)\n", peak_mib());
		fab_free(f);
		return 0;
	}
	r = route(f, o.chain, &t_route);
	t = calloc((size_t)o.runs, sizeof(*t));
	best = proof(f, r, &ao, &o, t, cpus_online());
	if (!o.threads && cpus_online() > 1) {
		double one = proof(f, r, &(struct an_opts){ .load = 1, .threads = 1 }, &o, t, 1);

		best = one < best ? one : best;
	}
	printf("route + proof: %.3f s (fastest proof)\n", t_route + best);
	printf("peak memory:   %.1f MiB resident (route + proof)\n", peak_mib());
	evaluate(f, r, &ao, &rep, NULL);
	print_verdict(f, &rep);
	if (o.reference) {
		struct an_report ref;
		double t0 = now();

		if (an_evaluate_reference(f, r, &ao, &ref, &err))
			die("an_evaluate_reference", &err);
		printf("reference:     %.3f s (pair by pair, one thread); same report: %s\n",
		       now() - t0, same_report(&rep, &ref) ? "yes" : "NO");
		an_report_free(&ref);
	}
	if (o.link)
		link_down(f, r, &o);
	if (o.canon)
		canon_cost(f, r, o.runs);
	an_report_free(&rep);
	free(t);
	rt_free(r);
	fab_free(f);
	return 0;
}
