/* SPDX-License-Identifier: MIT */
/**
 * DOC: event loop
 *
 * A handful of descriptors and timers: arrays scanned linearly are the
 * simplest thing that is fast enough. loop_stop() writes to an eventfd so
 * a poll in progress wakes up.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "daemon/loop.h"

#define LOOP_FDS_MAX 16
#define LOOP_TIMERS_MAX 16

struct loop_timer {
	struct loop *loop;
	loop_timer_cb cb;
	void *ud;
	int64_t deadline;	/* monotonic ms; -1 when disarmed */
};

struct loop_fd {
	int fd;
	loop_fd_cb cb;
	void *ud;
};

struct loop {
	struct loop_fd fds[LOOP_FDS_MAX];
	unsigned nfds;
	struct loop_timer *timers[LOOP_TIMERS_MAX];
	unsigned ntimers;
	int stop_fd;
	int stopping;
};

static int64_t clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t loop_now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

double loop_now_fms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int64_t loop_wall_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}

struct loop *loop_new(void)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->stop_fd < 0) {
		free(l);
		return NULL;
	}
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	for (unsigned i = 0; i < l->ntimers; i++)
		free(l->timers[i]);
	close(l->stop_fd);
	free(l);
}

int loop_add_fd(struct loop *l, int fd, loop_fd_cb cb, void *ud)
{
	if (l->nfds == LOOP_FDS_MAX)
		return -1;
	l->fds[l->nfds++] = (struct loop_fd){ fd, cb, ud };
	return 0;
}

void loop_del_fd(struct loop *l, int fd)
{
	for (unsigned i = 0; i < l->nfds; i++)
		if (l->fds[i].fd == fd) {
			l->fds[i] = l->fds[--l->nfds];
			return;
		}
}

struct loop_timer *loop_timer_new(struct loop *l, loop_timer_cb cb, void *ud)
{
	struct loop_timer *t;

	if (l->ntimers == LOOP_TIMERS_MAX || !(t = malloc(sizeof(*t))))
		return NULL;
	*t = (struct loop_timer){ l, cb, ud, -1 };
	l->timers[l->ntimers++] = t;
	return t;
}

void loop_timer_arm(struct loop_timer *t, int64_t delay_ms)
{
	t->deadline = loop_now_ms() + (delay_ms > 0 ? delay_ms : 0);
}

void loop_timer_disarm(struct loop_timer *t)
{
	t->deadline = -1;
}

int loop_timer_armed(const struct loop_timer *t)
{
	return t->deadline >= 0;
}

void loop_stop(struct loop *l)
{
	uint64_t one = 1;

	__atomic_store_n(&l->stopping, 1, __ATOMIC_RELEASE);
	if (write(l->stop_fd, &one, sizeof(one)) < 0)
		return;	/* the counter is already non-zero: the loop wakes anyway */
}

/* Milliseconds until the nearest timer, -1 when none is armed. */
static int next_timeout(const struct loop *l)
{
	int64_t now = loop_now_ms(), best = -1;

	for (unsigned i = 0; i < l->ntimers; i++) {
		int64_t d = l->timers[i]->deadline;

		if (d >= 0 && (best < 0 || d < best))
			best = d;
	}
	if (best < 0)
		return -1;
	return best <= now ? 0 : (int)(best - now > 60000 ? 60000 : best - now);
}

static void fire_timers(struct loop *l)
{
	int64_t now = loop_now_ms();

	for (unsigned i = 0; i < l->ntimers; i++) {
		struct loop_timer *t = l->timers[i];

		if (t->deadline >= 0 && t->deadline <= now) {
			t->deadline = -1;
			t->cb(l, t->ud);
		}
	}
}

static void dispatch_fds(struct loop *l, const struct pollfd *pfd, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (!(pfd[i].revents & (POLLIN | POLLERR | POLLHUP)))
			continue;
		/* callbacks may remove descriptors: look the entry up again */
		for (unsigned j = 0; j < l->nfds; j++)
			if (l->fds[j].fd == pfd[i].fd) {
				l->fds[j].cb(l, pfd[i].fd, l->fds[j].ud);
				break;
			}
	}
}

int loop_run(struct loop *l)
{
	struct pollfd pfd[LOOP_FDS_MAX + 1];

	while (!__atomic_load_n(&l->stopping, __ATOMIC_ACQUIRE)) {
		unsigned n = l->nfds;

		for (unsigned i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = l->fds[i].fd, .events = POLLIN };
		pfd[n] = (struct pollfd){ .fd = l->stop_fd, .events = POLLIN };
		if (poll(pfd, n + 1, next_timeout(l)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		dispatch_fds(l, pfd, n);
		fire_timers(l);
	}
	return 0;
}
