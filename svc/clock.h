/* SPDX-License-Identifier: MIT */
/*
 * svc/clock.h - deadlines for the daemon's and the API's timed waits
 */
#ifndef FABROUTE_SVC_CLOCK_H
#define FABROUTE_SVC_CLOCK_H

#include <pthread.h>
#include <time.h>

/** svc_deadline() - @ms milliseconds from now on clock @clk (pthread_cond_timedwait() and the like). */
static inline struct timespec svc_deadline(clockid_t clk, long long ms)
{
	struct timespec t;

	clock_gettime(clk, &t);
	t.tv_sec += (time_t)(ms / 1000);
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/** svc_cond_init_monotonic() - @cv, its timed waits on CLOCK_MONOTONIC (a clock step moves no deadline). */
static inline void svc_cond_init_monotonic(pthread_cond_t *cv)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &ca);
	pthread_condattr_destroy(&ca);
}

#endif
