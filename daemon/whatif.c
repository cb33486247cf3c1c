/* SPDX-License-Identifier: MIT */
/**
 * DOC: what-if in the daemon
 *
 * POST /api/whatif answers engines/whatif.h's wi_run() for the routing in
 * force, with the daemon's settings: its chain, options and publish policy,
 * its base (the routing the current epoch repairs, or the current epoch
 * itself), the repair decision of daemon/repair.h, the SM's LIDs under
 * OpenSM. Nothing is published, stored or sent to a switch.
 *
 * It may not delay a real reroute, so it runs in a child process: at the
 * lowest CPU priority (SCHED_IDLE: it only gets a CPU nobody else wants),
 * with its address space limited to what the daemon uses plus
 * whatif_memory_mb, killed after whatif_timeout_s (504), and one at a time
 * (429 while one runs). The child sees the epoch as it was when forked and
 * hands its answer back as JSON through a pipe; the daemon's own memory is
 * never touched by it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/query_impl.h"
#include "daemon/daemon.h"
#include "daemon/repair.h"
#include "engines/whatif.h"
#include "svc/log.h"

/* Largest answer read from the child. */
#define WI_ANSWER_MAX (64u << 20)

#if defined(__SANITIZE_ADDRESS__)
#define WI_SANITIZED 1	/* AddressSanitizer reserves terabytes of address space */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WI_SANITIZED 1
#endif
#endif

/* --- the request --------------------------------------------------------------- */

/* A body member: an array of at most WI_REMOVE_MAX strings (absent: none); -1 after @err. */
static int names(const json_t *body, const char *key, const char ***out, size_t *n,
		 struct api_err *err)
{
	const json_t *a = json_object_get(body, key);
	size_t i;
	json_t *v;

	*out = NULL;
	*n = 0;
	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > WI_REMOVE_MAX) {
		api_err_set(err, 400, "bad_parameter", "%s: expected an array of at most %u strings", key,
			    WI_REMOVE_MAX);
		return -1;
	}
	if (!(*out = calloc(json_array_size(a) + 1, sizeof(**out)))) {
		api_err_set(err, 500, "internal", "out of memory");
		return -1;
	}
	json_array_foreach(a, i, v) {
		if (!json_is_string(v)) {
			api_err_set(err, 400, "bad_parameter", "%s[%zu]: expected a string", key, i);
			free(*out);
			*out = NULL;
			return -1;
		}
		(*out)[(*n)++] = json_string_value(v);
	}
	return 0;
}

/* --- the child ------------------------------------------------------------------- */

#ifndef WI_SANITIZED
/* The private writable memory the process maps now (VmData), in bytes; 0 when unknown. */
static rlim_t data_now(void)
{
	FILE *st = fopen("/proc/self/status", "r");
	char line[128];
	unsigned long long kb = 0;

	while (st && fgets(line, sizeof(line), st))
		if (sscanf(line, "VmData: %llu kB", &kb) == 1)
			break;
	if (st)
		fclose(st);
	return (rlim_t)kb * 1024;
}
#endif

/*
 * The child's limits: the lowest priority, and the data the daemon maps at
 * the fork plus @mb MiB (RLIMIT_DATA counts heap and anonymous mappings,
 * and the malloc arenas the child grows).
 */
static void child_limits(unsigned mb)
{
	struct sched_param sp = { 0 };
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_UNBLOCK, &all, NULL);	/* the daemon's threads block SIGTERM */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void)setpriority(PRIO_PROCESS, 0, 19);	/* best effort: the deadline bounds it anyway */
	(void)sched_setscheduler(0, SCHED_IDLE, &sp);
#ifndef WI_SANITIZED
	rlim_t now = mb ? data_now() : 0;

	if (now) {
		struct rlimit rl = { .rlim_cur = now + (rlim_t)mb * 1024 * 1024,
				     .rlim_max = now + (rlim_t)mb * 1024 * 1024 };

		setrlimit(RLIMIT_DATA, &rl);
	}
#else
	(void)mb;	/* AddressSanitizer's shadow memory would count against the limit */
#endif
}

static void write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* In the child: answer @q on @fd as JSON ({"error", "bad"} when it cannot), then exit. */
static void child_main(const struct wi_req *q, int fd, unsigned mb)
{
	struct fab_err err = { { 0 } };
	json_t *a = NULL;
	char *text;
	int rc;

	if (dup2(fd, 3) < 0)
		_exit(2);
	close_range(4, ~0u, 0);	/* the daemon's sockets and files: not the child's to hold */
	child_limits(mb);
	rc = wi_run(q, &a, &err);
	if (rc)
		a = json_pack("{s:s, s:i}", "error", err.msg, "bad", rc);
	text = a ? json_dumps(a, JSON_COMPACT) : NULL;
	if (text)
		write_all(3, text, strlen(text));
	_exit(text ? 0 : 3);
}

/* --- the parent ------------------------------------------------------------------- */

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Read the child's answer until EOF or the deadline; 0, 1 (timed out) or -1 (too large, memory). */
static int read_answer(int fd, double deadline, char **buf, size_t *len)
{
	size_t cap = 1 << 16;

	*len = 0;
	if (!(*buf = malloc(cap + 1)))
		return -1;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return 1;
		if (poll(&p, 1, (int)left + 1) < 0 && errno != EINTR)
			return -1;
		if (!p.revents)
			continue;
		if (*len == cap) {
			char *g = cap < WI_ANSWER_MAX ? realloc(*buf, cap * 2 + 1) : NULL;

			if (!g)
				return -1;
			*buf = g;
			cap *= 2;
		}
		n = read(fd, *buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	(*buf)[*len] = '\0';
	return 0;
}

/* Why the child gave no answer, from its exit status. */
static void child_failed(int status, unsigned mb, struct api_err *err)
{
	if (WIFSIGNALED(status))
		api_err_set(err, 500, "internal", "the what-if process died of signal %d (it may "
			    "use %u MiB: whatif_memory_mb)", WTERMSIG(status), mb);
	else
		api_err_set(err, 500, "internal", "the what-if process gave no answer (exit %d; it "
			    "may use %u MiB: whatif_memory_mb)", WEXITSTATUS(status), mb);
}

/* The child's JSON: the answer, or its error mapped to a status. */
static json_t *child_answer(const char *text, size_t len, unsigned mb, struct api_err *err)
{
	json_t *a = json_loadb(text, len, 0, NULL);
	const char *e = json_string_value(json_object_get(a, "error"));

	if (!a) {
		api_err_set(err, 500, "internal", "the what-if process answered no JSON");
		return NULL;
	}
	if (!e)
		return a;
	if (json_integer_value(json_object_get(a, "bad")) == WI_BAD_NAME)
		api_err_set(err, 400, "bad_parameter", "%s", e);
	else if (strstr(e, "out of memory") && mb)
		api_err_set(err, 500, "internal", "%s: a what-if may use %u MiB beyond what the daemon "
			    "maps (whatif_memory_mb)", e, mb);
	else
		api_err_set(err, 500, "internal", "%s", e);
	json_decref(a);
	return NULL;
}

/* Fork, let the child answer @q within @timeout_s, read its answer. */
static json_t *run_child(const struct wi_req *q, unsigned timeout_s, unsigned mb, struct api_err *err)
{
	int fds[2], status = 0, rc;
	char *text = NULL;
	size_t len = 0;
	json_t *a = NULL;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC)) {
		api_err_set(err, 500, "internal", "cannot make a pipe: %s", strerror(errno));
		return NULL;
	}
	if ((pid = fork()) == 0)
		child_main(q, fds[1], mb);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		api_err_set(err, 503, "unavailable", "cannot start the what-if process: %s", strerror(errno));
		return NULL;
	}
	rc = read_answer(fds[0], now_ms() + timeout_s * 1000.0, &text, &len);
	close(fds[0]);
	if (rc)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc == 1)
		api_err_set(err, 504, "timeout", "the what-if took more than %u s (whatif_timeout_s); "
			    "it runs at the lowest CPU priority, after any other work", timeout_s);
	else if (rc)
		api_err_set(err, 500, "internal", "the what-if's answer is over %u MiB or memory ran out",
			    WI_ANSWER_MAX >> 20);
	else if (!len)
		child_failed(status, mb, err);
	else
		a = child_answer(text, len, mb, err);
	free(text);
	return a;
}

/* --- the hook ------------------------------------------------------------------- */

/* The request for @cur with the daemon's settings @set; *@why gets the repair decision. */
static void make_request(struct daemon *d, const struct epoch *cur, const struct pipe_settings *set,
			 struct wi_req *q, char *why, size_t size)
{
	const struct epoch *base = cur->base ? cur->base : repair_routing(cur->routing) ? NULL : cur;

	*q = (struct wi_req){
		.fabric = cur->fabric, .routing = cur->routing, .report = (struct an_report *)&cur->report,
		.base_fabric = base ? base->fabric : NULL, .base = base ? base->routing : NULL,
		.chain = set->chain, .options = set->options, .policy = (enum eng_policy)set->policy,
		.assign = d->src != NULL, .lmc = set->lmc, .no_repair = why,
	};
	q->repair = repair_wanted(set->repair, "fault", base, why, size);
}

static json_t *whatif(struct daemon *d, const struct epoch *cur, const json_t *body,
		      struct api_err *err)
{
	struct pipe_settings set;
	struct fab_err ferr = { { 0 } };
	struct wi_req q;
	unsigned timeout_s, mb;
	char why[160] = "";
	json_t *a = NULL;
	int rc;

	if (pipe_settings_get(d->pipe, &set)) {
		api_err_set(err, 500, "internal", "out of memory");
		return NULL;
	}
	make_request(d, cur, &set, &q, why, sizeof(why));
	if (!names(body, "links", (const char ***)&q.links, &q.nlinks, err) &&
	    !names(body, "switches", (const char ***)&q.switches, &q.nswitches, err)) {
		if ((rc = wi_check(&q, NULL, &ferr)))	/* a bad name: answered at once */
			api_err_set(err, rc == WI_BAD_NAME ? 400 : 500, rc == WI_BAD_NAME ?
				    "bad_parameter" : "internal", "%s", ferr.msg);
		else {
			pthread_mutex_lock(&d->cfg_mu);
			timeout_s = d->cfg.whatif_timeout_s;
			mb = d->cfg.whatif_memory_mb;
			pthread_mutex_unlock(&d->cfg_mu);
			a = run_child(&q, timeout_s, mb, err);
		}
	}
	free((void *)q.links);
	free((void *)q.switches);
	free((char *)set.chain);
	free((char *)set.options);
	return a;
}

/* The answer @a (taken) after the "epoch" member every answer starts with. */
static json_t *with_epoch(const struct epoch *cur, json_t *a, struct api_err *err)
{
	json_t *o = json_pack("{s:o}", "epoch", apiq_epoch_json(cur));

	if (!o || json_object_update(o, a)) {
		json_decref(o);
		o = NULL;
		api_err_set(err, 500, "internal", "out of memory");
	}
	json_decref(a);
	return o;
}

json_t *daemon_hook_whatif(void *ud, const json_t *body, struct api_err *err)
{
	struct daemon *d = ud;
	struct epoch *cur;
	json_t *a = NULL;
	double t0 = now_ms();

	if (pthread_mutex_trylock(&d->whatif_mu)) {
		api_err_set(err, 429, "busy", "a what-if is running; ask again once it is answered");
		return NULL;
	}
	cur = epoch_slot_get(&d->slot);
	if (!cur || !cur->fabric || !cur->routing)
		api_err_set(err, 503, "not_routed", "no routing published yet");
	else if ((a = whatif(d, cur, body, err)))
		a = with_epoch(cur, a, err);
	epoch_unref(cur);
	pthread_mutex_unlock(&d->whatif_mu);
	log_info("what-if answered in %.0f ms%s%s", now_ms() - t0, a ? "" : ": ", a ? "" : err->msg);
	return a;
}
