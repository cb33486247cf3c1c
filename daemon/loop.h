/* SPDX-License-Identifier: MIT */
/**
 * DOC: event loop
 *
 * fabrouted's main thread: poll(2) over a few file descriptors (signals,
 * wake-ups from the worker and the API threads, later the OpenSM socket)
 * and a few one-shot timers on the monotonic clock. Callbacks run in the
 * loop's thread; everything here is single-threaded except loop_stop().
 */
#ifndef FABROUTE_DAEMON_LOOP_H
#define FABROUTE_DAEMON_LOOP_H

#include <stdint.h>

struct loop;
struct loop_timer;

typedef void (*loop_fd_cb)(struct loop *l, int fd, void *ud);
typedef void (*loop_timer_cb)(struct loop *l, void *ud);

struct loop *loop_new(void);
/** loop_free() - free the loop and its timers (file descriptors are the owners'). */
void loop_free(struct loop *l);

/** loop_add_fd() - call @cb when @fd is readable. 0, or -1 when out of memory. */
int loop_add_fd(struct loop *l, int fd, loop_fd_cb cb, void *ud);
void loop_del_fd(struct loop *l, int fd);

/** loop_timer_new() - a disarmed one-shot timer; NULL when out of memory. */
struct loop_timer *loop_timer_new(struct loop *l, loop_timer_cb cb, void *ud);
/** loop_timer_arm() - fire once, @delay_ms from now (re-arming moves the deadline). */
void loop_timer_arm(struct loop_timer *t, int64_t delay_ms);
void loop_timer_disarm(struct loop_timer *t);
int loop_timer_armed(const struct loop_timer *t);

/** loop_run() - dispatch until loop_stop(); 0, or -1 when poll fails. */
int loop_run(struct loop *l);
/** loop_stop() - make loop_run() return after the current callback (thread-safe). */
void loop_stop(struct loop *l);

/** loop_now_ms() - monotonic clock in milliseconds. */
int64_t loop_now_ms(void);
/** loop_now_fms() - monotonic clock in milliseconds, with sub-millisecond precision. */
double loop_now_fms(void);
/** loop_wall_ms() - wall clock, milliseconds since the Unix epoch. */
int64_t loop_wall_ms(void);

#endif
