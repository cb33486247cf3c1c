/* SPDX-License-Identifier: MIT */
/**
 * DOC: LFT blocks read by SMPs, several in flight
 *
 * The read-back's MAD I/O, straight on libibumad: SubnGet(LinearForwardingTable)
 * requests built with libibmad's encoder, up to RBM_WINDOW of them in flight,
 * matched to their answers by transaction ID, each retried on its own
 * timeout and paced to the configured rate. Nothing is printed: libibmad's
 * RPC layer, which writes a line to stderr for every SMP that times out,
 * is not used; the caller counts what did not answer.
 */
#include <errno.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/loop.h"
#include "daemon/readback.h"

#define RBM_WINDOW 16

struct rbm_port {
	int fd, agent_lid, agent_dr;
	uint64_t guid;
	uint32_t tid;
	void *sbuf, *rbuf;
};

/* One request in flight. */
struct slot {
	size_t req;		/* index into the caller's array; SIZE_MAX: free */
	uint32_t tid;
	unsigned tries;
	double sent_ms;
};

struct rbm_port *rbm_open(const char *ca, unsigned port, char *why, size_t len)
{
	struct rbm_port *p = calloc(1, sizeof(*p));
	umad_port_t info;
	int fd;

	if (!p || umad_init() < 0) {
		snprintf(why, len, "cannot initialise libibumad");
		free(p);
		return NULL;
	}
	fd = umad_open_port(ca && *ca ? ca : NULL, (int)port);
	if (fd < 0) {
		snprintf(why, len, "cannot open the MAD port %s:%u (libibumad: %s)", ca && *ca ? ca : "(first)",
			 port, strerror(-fd));
		free(p);
		return NULL;
	}
	p->fd = fd;
	p->agent_lid = umad_register(fd, IB_SMI_CLASS, 1, 0, NULL);
	p->agent_dr = umad_register(fd, IB_SMI_DIRECT_CLASS, 1, 0, NULL);
	p->sbuf = umad_alloc(1, umad_size() + IB_MAD_SIZE);
	p->rbuf = umad_alloc(1, umad_size() + IB_MAD_SIZE);
	if (p->agent_lid < 0 || p->agent_dr < 0 || !p->sbuf || !p->rbuf) {
		snprintf(why, len, "cannot register for SMPs on the MAD port %s:%u", ca && *ca ? ca : "(first)",
			 port);
		rbm_close(p);
		return NULL;
	}
	if (umad_get_port(ca && *ca ? ca : NULL, (int)port, &info) == 0) {
		p->guid = be64toh(info.port_guid);
		umad_release_port(&info);
	}
	p->tid = (uint32_t)time(NULL) << 12;
	return p;
}

void rbm_close(struct rbm_port *p)
{
	if (!p)
		return;
	umad_close_port(p->fd);
	umad_free(p->sbuf);
	umad_free(p->rbuf);
	free(p);
}

uint64_t rbm_port_guid(const struct rbm_port *p)
{
	return p->guid;
}

static int send_one(struct rbm_port *p, const struct rbm_req *r, uint32_t tid, unsigned timeout_ms)
{
	ib_rpc_t rpc = {
		.mgtclass = r->dest.lid ? IB_SMI_CLASS : IB_SMI_DIRECT_CLASS,
		.method = IB_MAD_METHOD_GET, .attr = { IB_ATTR_LINEARFORWTBL, r->block },
		.timeout = (int)timeout_ms, .datasz = IB_SMP_DATA_SIZE, .dataoffs = IB_SMP_DATA_OFFS,
		.trid = tid,
	};
	ib_portid_t dest = r->dest;

	memset(p->sbuf, 0, umad_size() + IB_MAD_SIZE);
	if (mad_build_pkt(p->sbuf, &rpc, &dest, NULL, NULL) < 0)
		return -1;
	return umad_send(p->fd, r->dest.lid ? p->agent_lid : p->agent_dr, p->sbuf, IB_MAD_SIZE,
			 (int)timeout_ms, 0);
}

/* The answer in p->rbuf: copy its data into the request of the matching slot. */
static void take_answer(struct rbm_port *p, struct rbm_req *reqs, struct slot *w, struct rbm_stats *st)
{
	void *mad = umad_get_mad(p->rbuf);
	uint32_t tid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F);

	for (unsigned i = 0; i < RBM_WINDOW; i++) {
		struct rbm_req *r;

		if (w[i].req == SIZE_MAX || w[i].tid != tid)
			continue;
		r = &reqs[w[i].req];
		if (umad_status(p->rbuf) || (mad_get_field(mad, 0, IB_DRSMP_STATUS_F) & 0x7fff))
			return;	/* a timeout the kernel reports, or an error status: the slot's own timer retries */
		memcpy(r->data, (uint8_t *)mad + IB_SMP_DATA_OFFS, sizeof(r->data));
		r->done = 1;
		w[i].req = SIZE_MAX;
		st->answered++;
		return;
	}
}

/* Slots past their timeout: send again, or give the request up. */
static void expire(struct rbm_port *p, struct rbm_req *reqs, struct slot *w, const struct rbm_opts *o,
		   struct rbm_stats *st)
{
	double now = loop_now_fms();

	for (unsigned i = 0; i < RBM_WINDOW; i++) {
		if (w[i].req == SIZE_MAX || now - w[i].sent_ms < o->timeout_ms)
			continue;
		if (w[i].tries > o->retries) {
			reqs[w[i].req].done = -1;
			w[i].req = SIZE_MAX;
			st->failed++;
			continue;
		}
		w[i].tid = ++p->tid;
		w[i].tries++;
		w[i].sent_ms = now;
		st->sent++;
		if (send_one(p, &reqs[w[i].req], w[i].tid, o->timeout_ms) < 0)
			w[i].sent_ms = now - o->timeout_ms;	/* counts as a timeout */
	}
}

/* Wait until the pace allows the next SMP (@sent so far since @t0). */
static void pace(const struct rbm_opts *o, uint64_t sent, double t0)
{
	double ahead = o->rate ? (double)sent * 1000.0 / o->rate - (loop_now_fms() - t0) : 0;

	if (ahead > 0.05) {
		time_t sec = (time_t)(ahead / 1000);
		struct timespec ts = { sec, (long)((ahead - (double)sec * 1000) * 1e6) };

		nanosleep(&ts, NULL);
	}
}

int rbm_read(struct rbm_port *p, struct rbm_req *reqs, size_t n, const struct rbm_opts *o,
	     struct rbm_stats *st)
{
	struct slot w[RBM_WINDOW];
	size_t next = 0, busy = 0;
	double t0 = loop_now_fms();

	for (unsigned i = 0; i < RBM_WINDOW; i++)
		w[i].req = SIZE_MAX;
	while (next < n || busy) {
		int len = IB_MAD_SIZE;

		if (o->stop && o->stop(o->stop_ud))
			return -1;
		for (unsigned i = 0; i < RBM_WINDOW && next < n; i++) {
			if (w[i].req != SIZE_MAX)
				continue;
			pace(o, st->sent, t0);
			w[i] = (struct slot){ next, ++p->tid, 1, loop_now_fms() };
			reqs[next++].done = 0;
			st->sent++;
			if (send_one(p, &reqs[w[i].req], w[i].tid, o->timeout_ms) < 0)
				w[i].sent_ms -= o->timeout_ms;
		}
		if (umad_recv(p->fd, p->rbuf, &len, 10) >= 0)
			take_answer(p, reqs, w, st);
		expire(p, reqs, w, o, st);
		busy = 0;
		for (unsigned i = 0; i < RBM_WINDOW; i++)
			busy += w[i].req != SIZE_MAX;
	}
	return 0;
}
