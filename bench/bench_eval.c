/* SPDX-License-Identifier: MIT */
/**
 * DOC: evaluation benchmark
 *
 * bench_eval SUBNET LFTS [RUNS]: loads a fabric from OpenSM's
 * opensm-subnet.lst and a routing from opensm-lfts.dump, then runs the
 * all-pairs evaluation (connectivity of every endpoint pair, switches
 * included, and the channel dependency graph per VL) RUNS times (default 5).
 * Prints the fastest and median time of each part and the peak resident
 * memory. Figures only; never fails on time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "analysis/analysis.h"
#include "formats/formats.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int load(const char *subnet, const char *lfts, struct fabric **f, struct rt_routing **r)
{
	struct fab_err err = { { 0 } };
	char *buf;
	size_t len;

	if (fmt_read_file(subnet, &buf, &len, &err))
		goto fail;
	*f = fmt_subnet_parse(buf, len, subnet, &err);
	free(buf);
	if (!*f)
		goto fail;
	*r = fmt_lfts_load(lfts, *f, NULL, NULL, &err);
	if (*r)
		return 0;
fail:
	fprintf(stderr, "bench_eval: %s\n", err.msg);
	return -1;
}

static double run(const struct fabric *f, const struct rt_routing *r, const struct an_opts *o,
		  struct an_report *rep)
{
	struct fab_err err = { { 0 } };
	double t0 = now();

	if (an_evaluate(f, r, o, rep, &err)) {
		fprintf(stderr, "bench_eval: %s\n", err.msg);
		exit(1);
	}
	return now() - t0;
}

int main(int argc, char **argv)
{
	int runs = argc > 3 ? atoi(argv[3]) : 5;
	struct an_opts base = { 0 }, with_load = { .load = 1 };
	struct fabric *f = NULL;
	struct rt_routing *r = NULL;
	struct an_report rep;
	struct rusage ru;
	double *t, *tl;
	uint64_t pairs = 0;

	if (argc < 3 || runs < 1) {
		fprintf(stderr, "usage: bench_eval SUBNET LFTS [RUNS]\n");
		return 2;
	}
	t = calloc((size_t)runs, sizeof(*t));
	tl = calloc((size_t)runs, sizeof(*tl));
	if (!t || !tl || load(argv[1], argv[2], &f, &r))
		return 1;
	for (int i = 0; i < runs; i++) {
		t[i] = run(f, r, &base, &rep);
		if (i < runs - 1)
			an_report_free(&rep);
	}
	for (unsigned k = 0; k < AN_NCLASSES; k++)
		pairs += rep.conn.pairs[k];
	printf("fabric:        %u switches, %u endpoints (%llu ordered pairs), top LID %u\n",
	       f->nswitches, f->neps, (unsigned long long)pairs, f->lid_top);
	printf("verdict:       %s, %s, VLs used 0x%x\n", an_connected(&rep) ? "connected" : "NOT connected",
	       rep.cdg.deadlock_free ? "deadlock-free" : "dependency cycle", rep.cdg.vls_used);
	an_report_free(&rep);
	for (int i = 0; i < runs; i++) {
		tl[i] = run(f, r, &with_load, &rep);
		an_report_free(&rep);
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp_double);
	qsort(tl, (size_t)runs, sizeof(*tl), cmp_double);
	getrusage(RUSAGE_SELF, &ru);
	printf("conn + CDG:    min %.3f s, median %.3f s over %d runs\n", t[0], t[runs / 2], runs);
	printf("  + load:      min %.3f s, median %.3f s\n", tl[0], tl[runs / 2]);
	printf("peak memory:   %.1f MiB resident\n", (double)ru.ru_maxrss / 1024.0);
	rt_free(r);
	fab_free(f);
	free(t);
	free(tl);
	return 0;
}
