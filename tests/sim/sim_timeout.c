/* SPDX-License-Identifier: MIT */
/**
 * DOC: sim_timeout - the kernel's MAD timeouts for clients of ibsim
 *
 *   LD_PRELOAD="tests/sim/.libs/libsimtimeout.so $UMAD2SIM" opensm ...
 *
 * On a real port, a request sent with umad_send(..., timeout_ms, retries)
 * that gets no answer is sent again `retries` times, each after timeout_ms,
 * and then handed back to the sender by umad_recv() with status ETIMEDOUT:
 * that is how OpenSM learns that an SMP went unanswered (its vendor layer
 * calls the send-error callback, which frees the SMP's place on the wire).
 * ibsim's umad2sim simulates no timeout: a request nobody answers (an
 * SMInfo to the port of an SM that was killed, "no one to handle pkt" in
 * ibsim's log) holds OpenSM's count of SMPs on the wire for ever, and its
 * sweep never ends. Loaded before umad2sim, this library puts the kernel's
 * behaviour back: it keeps a copy of each request sent with a timeout,
 * sends it again when its time is up, hands it back with ETIMEDOUT when no
 * retry is left, and drops an answer that comes after that (the kernel has
 * forgotten the request by then).
 *
 * It interposes umad_send() and umad_recv() only; umad2sim below it still
 * does the I/O. A blocked umad_recv() wakes every ST_TICK_MS to look at the
 * clock. The state is the process's own (a preloaded library has no other
 * place for it), one table under one lock.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <infiniband/umad.h>

#define ST_MAX 512       /* requests awaited at once; more are not timed */
#define ST_MAD 256       /* one MAD: SMPs and single-packet GMPs */
#define ST_TICK_MS 10    /* a blocked receive looks at the clock this often */
#define ST_LATE_MS 5000  /* how long a late answer to a timed-out request is dropped */
#define ST_RESPONSE 0x80 /* the method's response bit */

typedef int (*st_send_fn)(int, int, void *, int, int, int);
typedef int (*st_recv_fn)(int, void *, int *, int);

enum st_state { ST_FREE, ST_WAITING, ST_TIMED_OUT };

struct st_req {
	enum st_state state;
	int fd, agent, timeout_ms, retries_left, len, mclass;
	uint32_t tid; /* the low half of the MAD's TID: the kernel (and umad2sim) own the high half */
	int64_t due_ms;
	unsigned char umad[sizeof(struct ib_user_mad) + ST_MAD];
};

static struct st_req st_reqs[ST_MAX];
static pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;

static int64_t st_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* libibumad's own functions, found once when the library is loaded (before any thread of the program). */
static st_send_fn st_real_send;
static st_recv_fn st_real_recv;

__attribute__((constructor)) static void st_init(void)
{
	st_real_send = (st_send_fn)dlsym(RTLD_NEXT, "umad_send");
	st_real_recv = (st_recv_fn)dlsym(RTLD_NEXT, "umad_recv");
}

static const uint8_t *st_mad(const void *umad)
{
	return ((const struct ib_user_mad *)umad)->data;
}

static uint32_t st_tid(const void *umad)
{
	uint32_t tid;

	memcpy(&tid, st_mad(umad) + 12, sizeof tid);
	return tid;
}

/* The entry awaiting (or that timed out awaiting) the answer to umad's request on fd. Lock held. */
static struct st_req *st_find(int fd, const void *umad)
{
	uint32_t tid = st_tid(umad);
	int mclass = st_mad(umad)[1];

	for (int i = 0; i < ST_MAX; i++) {
		struct st_req *r = &st_reqs[i];
		if (r->state != ST_FREE && r->fd == fd && r->tid == tid && r->mclass == mclass)
			return r;
	}
	return NULL;
}

static void st_track(int fd, int agent, const void *umad, int length, int timeout_ms, int retries)
{
	pthread_mutex_lock(&st_lock);
	struct st_req *r = st_find(fd, umad);

	for (int i = 0; !r && i < ST_MAX; i++)
		if (st_reqs[i].state == ST_FREE)
			r = &st_reqs[i];
	if (r) {
		*r = (struct st_req){ .state = ST_WAITING, .fd = fd, .agent = agent, .timeout_ms = timeout_ms,
				      .retries_left = retries, .len = length, .tid = st_tid(umad),
				      .mclass = st_mad(umad)[1], .due_ms = st_now_ms() + timeout_ms };
		memcpy(r->umad, umad, sizeof(struct ib_user_mad) + (size_t)length);
	}
	pthread_mutex_unlock(&st_lock);
}

int umad_send(int fd, int agentid, void *umad, int length, int timeout_ms, int retries)
{
	const uint8_t *mad = st_mad(umad);
	int timed = timeout_ms > 0 && length >= 24 && length <= ST_MAD && !(mad[3] & ST_RESPONSE);

	if (timed) /* before the send: the answer may come before it returns */
		st_track(fd, agentid, umad, length, timeout_ms, retries < 0 ? 0 : retries);
	int rc = st_real_send(fd, agentid, umad, length, timeout_ms, retries);
	if (rc < 0 && timed) {
		pthread_mutex_lock(&st_lock);
		struct st_req *r = st_find(fd, umad);
		if (r)
			r->state = ST_FREE;
		pthread_mutex_unlock(&st_lock);
	}
	return rc;
}

/*
 * Resends fd's requests whose time is up with retries left; copies the first
 * one without into umad (status ETIMEDOUT) and returns its agent, or -1.
 */
static int st_expire(int fd, void *umad, int *length)
{
	int64_t now = st_now_ms();
	int agent = -1;

	pthread_mutex_lock(&st_lock);
	for (int i = 0; i < ST_MAX; i++) {
		struct st_req *r = &st_reqs[i];

		if (r->state == ST_TIMED_OUT && now - r->due_ms > ST_LATE_MS)
			r->state = ST_FREE;
		if (r->state != ST_WAITING || r->fd != fd || r->due_ms > now)
			continue;
		if (r->retries_left > 0) {
			r->retries_left--;
			r->due_ms = now + r->timeout_ms;
			st_real_send(fd, r->agent, r->umad, r->len, r->timeout_ms, 0);
			continue;
		}
		if (agent >= 0 || *length < r->len)
			continue;
		memcpy(umad, r->umad, sizeof(struct ib_user_mad) + (size_t)r->len);
		((struct ib_user_mad *)umad)->status = ETIMEDOUT;
		((struct ib_user_mad *)umad)->agent_id = (uint32_t)r->agent;
		*length = r->len;
		r->state = ST_TIMED_OUT;
		r->due_ms = now;
		agent = r->agent;
	}
	pthread_mutex_unlock(&st_lock);
	return agent;
}

/* Whether a MAD just received is to be handed on: not an answer that comes too late. */
static int st_answer(int fd, const void *umad)
{
	/* a request from the fabric, or one of ours handed back already timed out by the layer below */
	if (!(st_mad(umad)[3] & ST_RESPONSE) && !((const struct ib_user_mad *)umad)->status)
		return 1;
	pthread_mutex_lock(&st_lock);
	struct st_req *r = st_find(fd, umad);
	int keep = !r || r->state == ST_WAITING;
	if (r)
		r->state = ST_FREE;
	pthread_mutex_unlock(&st_lock);
	return keep;
}

int umad_recv(int fd, void *umad, int *length, int timeout_ms)
{
	int64_t end = timeout_ms > 0 ? st_now_ms() + timeout_ms : -1;
	int room = length ? *length : 0;

	if (!umad || !length)
		return st_real_recv(fd, umad, length, timeout_ms);
	for (;;) {
		*length = room;
		int agent = st_expire(fd, umad, length);
		if (agent >= 0)
			return agent;
		int wait = ST_TICK_MS;
		if (end >= 0 && end - st_now_ms() < wait)
			wait = (int)(end - st_now_ms());
		if (wait <= 0) {
			errno = ETIMEDOUT;
			return -ETIMEDOUT;
		}
		int rc = st_real_recv(fd, umad, length, wait);
		if (rc == -ETIMEDOUT)
			continue;
		if (rc < 0 || *length < 24 || st_answer(fd, umad))
			return rc;
		/* a late answer: dropped, as the kernel does */
	}
}
