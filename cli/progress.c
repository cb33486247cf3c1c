/* SPDX-License-Identifier: MIT */
/*
 * Progress of long CLI steps (see progress.h): a thread wakes every 100 ms
 * and, once a second has passed since the start, rewrites the line from
 * the step, counts and time the command's threads left under the mutex.
 * FABROUTE_PROGRESS=1 shows it even when standard error is no terminal,
 * =now also without waiting for the first second (each step is drawn when
 * it starts: what the tests look for), =0 never.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/progress.h"

#define PROGRESS_DELAY_S 1.0
#define PROGRESS_TICK_MS 100

struct cli_progress {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const char *cmd, *what, *unit;
	uint64_t done, total;
	struct timespec t0;
	double delay;
	int stop, shown;
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The line, from the state (mutex held). */
static void draw(struct cli_progress *p, double s)
{
	int mib = p->unit && !strcmp(p->unit, "MiB");
	double done = mib ? (double)p->done / 1048576.0 : (double)p->done;
	double total = mib ? (double)p->total / 1048576.0 : (double)p->total;

	fprintf(stderr, "\r\033[Kfabroute %s: %s", p->cmd, p->what ? p->what : "working");
	if (p->unit && p->total)
		fprintf(stderr, " %.0f/%.0f %s (%.0f%%)", done, total, p->unit,
			100.0 * (double)p->done / (double)p->total);
	else if (p->unit && p->done)
		fprintf(stderr, " %.0f %s", done, p->unit);
	fprintf(stderr, ", %.1f s", s);
	fflush(stderr);
	p->shown = 1;
}

static void *ticker(void *arg)
{
	struct cli_progress *p = arg;
	struct timespec wake;

	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		double s = since(&p->t0);

		if (s >= p->delay)
			draw(p, s);
		clock_gettime(CLOCK_REALTIME, &wake);
		wake.tv_nsec += PROGRESS_TICK_MS * 1000000L;
		if (wake.tv_nsec >= 1000000000L) {
			wake.tv_sec++;
			wake.tv_nsec -= 1000000000L;
		}
		while (!p->stop && pthread_cond_timedwait(&p->cv, &p->mu, &wake) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Seconds to wait before the first line; < 0: no progress at all. */
static double delay(void)
{
	const char *env = getenv("FABROUTE_PROGRESS");

	if (env && !strcmp(env, "now"))
		return 0;
	if (env && *env)
		return strcmp(env, "0") ? PROGRESS_DELAY_S : -1;
	return isatty(STDERR_FILENO) ? PROGRESS_DELAY_S : -1;
}

struct cli_progress *cli_progress_start(const char *cmd)
{
	struct cli_progress *p;
	double d = delay();

	if (d < 0 || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->cmd = cmd;
	p->delay = d;
	clock_gettime(CLOCK_MONOTONIC, &p->t0);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (pthread_create(&p->tid, NULL, ticker, p)) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
		free(p);
		return NULL;
	}
	return p;
}

void cli_progress_step(struct cli_progress *p, const char *what, const char *unit)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->what = what;
	p->unit = unit;
	p->done = p->total = 0;
	if (p->delay == 0)
		draw(p, since(&p->t0));
	pthread_mutex_unlock(&p->mu);
}

void cli_progress_cb(void *arg, uint64_t done, uint64_t total)
{
	struct cli_progress *p = arg;

	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->done = done;
	p->total = total;
	pthread_mutex_unlock(&p->mu);
}

void cli_progress_end(struct cli_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->tid, NULL);
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p);
}
