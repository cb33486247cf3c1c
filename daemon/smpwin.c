/* SPDX-License-Identifier: MIT */
/**
 * DOC: SMPs in flight, a window at a time
 *
 * The requests are built with libibmad's encoder (mad_build_pkt()) and
 * sent through the caller's &struct smpw_io, filling the window's free
 * slots in the list's order; answers are matched by transaction ID. A
 * timeout the kernel reports, or a busy status, leaves the SMP to its own
 * timer (sent again with a new ID, the given number of times); so does any
 * other error status with @retry_errors, else it gives the SMP up at once. libibmad's RPC layer, which waits for
 * one SMP at a time and prints a line for every timeout, is not used.
 */
#include <infiniband/umad.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/smpwin.h"

/* A umad buffer: the kernel's header, then the MAD. */
#define UMAD_BUF (sizeof(struct ib_user_mad) + IB_MAD_SIZE)

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One SMP in flight. */
struct slot {
	size_t req;		/* index into the caller's array; SIZE_MAX: free */
	uint32_t tid;
	unsigned tries;
	double sent_ms;
};

/* One smpw_run(). */
struct run {
	const struct smpw_io *io;
	const struct smpw_opts *o;
	struct smpw_req *reqs;
	struct smpw_stats *st;
	uint32_t *tid;
	unsigned window;
	int failed;		/* an SMP was given up */
	struct slot w[SMPW_WINDOW_MAX];
	uint64_t sbuf[(UMAD_BUF + 7) / 8], rbuf[(UMAD_BUF + 7) / 8];
};

/* (Re)send the SMP of slot @s under a new transaction ID. */
static void send_slot(struct run *r, struct slot *s)
{
	struct smpw_req *q = &r->reqs[s->req];
	ib_rpc_t rpc = {
		.mgtclass = q->dest.lid ? IB_SMI_CLASS : IB_SMI_DIRECT_CLASS,
		.method = q->set ? IB_MAD_METHOD_SET : IB_MAD_METHOD_GET,
		.attr = { q->attr, q->mod }, .timeout = (int)r->o->timeout_ms,
		.datasz = IB_SMP_DATA_SIZE, .dataoffs = IB_SMP_DATA_OFFS, .mkey = r->o->mkey,
	};
	ib_portid_t dest = q->dest;

	*r->tid = (*r->tid & SMPW_TID_FAST) | ((*r->tid + 1) & ~SMPW_TID_FAST);	/* in its half */
	s->tid = *r->tid;
	s->tries++;
	s->sent_ms = now_ms();
	rpc.trid = s->tid;
	r->st->sent++;
	memset(r->sbuf, 0, sizeof(r->sbuf));
	if (mad_build_pkt(r->sbuf, &rpc, &dest, NULL, q->set ? q->data : NULL) < 0 ||
	    r->io->send(r->io->ud, r->sbuf, !q->dest.lid, r->o->timeout_ms) < 0)
		s->sent_ms -= r->o->timeout_ms;	/* not sent: counts as a timeout */
}

static void give_up(struct run *r, struct slot *s)
{
	r->reqs[s->req].done = -1;
	s->req = SIZE_MAX;
	r->st->failed++;
	r->failed = 1;
}

/* The answer in r->rbuf: complete the slot it answers. */
static void take_answer(struct run *r)
{
	void *mad = umad_get_mad(r->rbuf);
	uint32_t tid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F);
	unsigned status = mad_get_field(mad, 0, IB_MAD_STATUS_F) & 0x7fff;	/* D bit off */

	for (unsigned i = 0; i < r->window; i++) {
		struct slot *s = &r->w[i];

		if (s->req == SIZE_MAX || s->tid != tid)
			continue;
		if (umad_status(r->rbuf) || status == 1 || (status && r->o->retry_errors))
			return;	/* the kernel's timeout, busy, an error: the slot's timer sends it again */
		if (status) {
			give_up(r, s);
			return;
		}
		memcpy(r->reqs[s->req].data, (uint8_t *)mad + IB_SMP_DATA_OFFS, IB_SMP_DATA_SIZE);
		r->reqs[s->req].done = 1;
		s->req = SIZE_MAX;
		r->st->answered++;
		return;
	}
}

/* Slots past their timeout: send again, or give the SMP up. Return: ms to the next timeout. */
static double expire(struct run *r)
{
	double now = now_ms(), next = 10;

	for (unsigned i = 0; i < r->window; i++) {
		struct slot *s = &r->w[i];

		if (s->req != SIZE_MAX && now - s->sent_ms >= r->o->timeout_ms) {
			if (s->tries > r->o->retries)
				give_up(r, s);
			else
				send_slot(r, s);
		}
		if (s->req != SIZE_MAX && s->sent_ms + r->o->timeout_ms - now < next)
			next = s->sent_ms + r->o->timeout_ms - now;
	}
	return next;
}

/* Wait until the pace allows the next SMP (@sent so far since @t0). */
static void pace(const struct smpw_opts *o, uint64_t sent, double t0)
{
	double ahead = o->rate ? (double)sent * 1000.0 / o->rate - (now_ms() - t0) : 0;

	if (ahead > 0.05) {
		time_t sec = (time_t)(ahead / 1000);
		struct timespec ts = { sec, (long)((ahead - (double)sec * 1000) * 1e6) };

		nanosleep(&ts, NULL);
	}
}

/* Fill the free slots from @*next. Return: the slots busy. */
static unsigned fill(struct run *r, size_t *next, size_t n, double t0)
{
	unsigned busy = 0;

	for (unsigned i = 0; i < r->window; i++) {
		if (r->w[i].req == SIZE_MAX && *next < n) {
			pace(r->o, r->st->sent, t0);
			r->w[i] = (struct slot){ .req = *next };
			r->reqs[(*next)++].done = 0;
			send_slot(r, &r->w[i]);
		}
		busy += r->w[i].req != SIZE_MAX;
	}
	return busy;
}

int smpw_run(const struct smpw_io *io, uint32_t *tid, struct smpw_req *reqs, size_t n,
	     const struct smpw_opts *o, struct smpw_stats *st)
{
	struct run *r = calloc(1, sizeof(*r));
	size_t next = 0;
	double t0 = now_ms(), wait = 0;
	int rc = 0;

	if (!r) {
		for (size_t i = 0; i < n; i++)
			reqs[i].done = -1;
		st->failed += n;
		return n && o->fail_fast ? 1 : 0;
	}
	*r = (struct run){ io, o, reqs, st, tid, o->window ? o->window : 1, 0, { { 0 } }, { 0 },
			   { 0 } };
	if (r->window > SMPW_WINDOW_MAX)
		r->window = SMPW_WINDOW_MAX;
	for (unsigned i = 0; i < r->window; i++)
		r->w[i].req = SIZE_MAX;
	for (;;) {
		if (o->stop && o->stop(o->stop_ud)) {
			rc = -1;
			break;
		}
		if (r->failed && o->fail_fast) {
			rc = 1;
			break;
		}
		if (!fill(r, &next, n, t0))
			break;
		if (io->recv(io->ud, r->rbuf, wait < 1 ? 1 : (int)wait) >= 0)
			take_answer(r);
		wait = expire(r);
	}
	if (!rc && r->failed && o->fail_fast)
		rc = 1;
	free(r);
	return rc;
}

static int umad_io_send(void *ud, void *umad, int directed, unsigned timeout_ms)
{
	struct smpw_umad *u = ud;

	return umad_send(u->fd, directed ? u->agent_dr : u->agent_lid, umad, IB_MAD_SIZE,
			 (int)timeout_ms, 0);
}

static int umad_io_recv(void *ud, void *umad, int wait_ms)
{
	struct smpw_umad *u = ud;
	int len = IB_MAD_SIZE;

	return umad_recv(u->fd, umad, &len, wait_ms) >= 0 ? 0 : -1;
}

struct smpw_io smpw_umad_io(struct smpw_umad *u)
{
	return (struct smpw_io){ umad_io_send, umad_io_recv, u };
}
