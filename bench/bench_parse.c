/* SPDX-License-Identifier: MIT */
/**
 * DOC: parse benchmark
 *
 * bench_parse FILE [RUNS]: reads and parses a topology file RUNS times
 * (default 20), building the model and its indexes each time, and prints the
 * fastest and median wall time, plus the resident memory the model adds.
 * Prints figures only; never fails on time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fabric/fabric.h"
#include "formats/formats.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Resident set size in bytes, from /proc/self/statm. */
static long rss(void)
{
	long pages = 0, res = 0;
	FILE *fp = fopen("/proc/self/statm", "r");

	if (fp) {
		if (fscanf(fp, "%ld %ld", &pages, &res) != 2)
			res = 0;
		fclose(fp);
	}
	return res * sysconf(_SC_PAGESIZE);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct fabric *load(const char *path, size_t *size)
{
	struct fab_err err = { { 0 } };
	char *buf;
	struct fabric *f;

	if (fmt_read_file(path, &buf, size, &err)) {
		fprintf(stderr, "bench_parse: %s\n", err.msg);
		return NULL;
	}
	f = fmt_topo_parse(buf, *size, path, FMT_AUTO, &err);
	free(buf);
	if (!f)
		fprintf(stderr, "bench_parse: %s\n", err.msg);
	return f;
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 20;
	double *t;
	long before, after;
	size_t size = 0;
	struct fabric *f;

	if (argc < 2 || runs < 1) {
		fprintf(stderr, "usage: bench_parse FILE [RUNS]\n");
		return 2;
	}
	t = calloc((size_t)runs, sizeof(*t));
	if (!t)
		return 1;
	before = rss();
	f = load(argv[1], &size);	/* the first load: memory measured after it */
	if (!f)
		return 1;
	after = rss();
	for (int i = 0; i < runs; i++) {
		double t0 = now();
		struct fabric *g = load(argv[1], &size);

		t[i] = now() - t0;
		fab_free(g);
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp_double);
	printf("file:         %s (%.1f MiB)\n", argv[1], size / 1048576.0);
	printf("fabric:       %u nodes (%u switches), %u links, %u endpoints, top LID %u\n",
	       f->nnodes, f->nswitches, f->nlinks, f->neps, f->lid_top);
	printf("parse+index:  min %.1f ms, median %.1f ms over %d runs (target < 100 ms)\n",
	       t[0] * 1e3, t[runs / 2] * 1e3, runs);
	printf("model memory: %.1f MiB resident added by one loaded fabric; process %.1f MiB "
	       "(target < 50 MiB)\n", (after - before) / 1048576.0, after / 1048576.0);
	fab_free(f);
	free(t);
	return 0;
}
