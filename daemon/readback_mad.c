/* SPDX-License-Identifier: MIT */
/**
 * DOC: LFT blocks read by SMPs, several in flight
 *
 * The read-back's MAD port, straight on libibumad, and its reads: up to
 * RBM_WINDOW SubnGet(LinearForwardingTable) in flight at once, paced to the
 * configured rate (smpwin.h). Nothing is printed; the caller counts what
 * did not answer.
 */
#include <infiniband/umad.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/readback.h"

#define RBM_WINDOW 16

struct rbm_port {
	struct smpw_umad u;
	uint64_t guid;
	uint32_t tid;
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
	p->u.fd = fd;
	p->u.agent_lid = umad_register(fd, IB_SMI_CLASS, 1, 0, NULL);
	p->u.agent_dr = umad_register(fd, IB_SMI_DIRECT_CLASS, 1, 0, NULL);
	if (p->u.agent_lid < 0 || p->u.agent_dr < 0) {
		snprintf(why, len, "cannot register for SMPs on the MAD port %s:%u", ca && *ca ? ca : "(first)",
			 port);
		rbm_close(p);
		return NULL;
	}
	if (umad_get_port(ca && *ca ? ca : NULL, (int)port, &info) == 0) {
		p->guid = be64toh(info.port_guid);
		umad_release_port(&info);
	}
	p->tid = (uint32_t)time(NULL) << 12 & ~SMPW_TID_FAST;
	return p;
}

void rbm_close(struct rbm_port *p)
{
	if (!p)
		return;
	umad_close_port(p->u.fd);
	free(p);
}

uint64_t rbm_port_guid(const struct rbm_port *p)
{
	return p->guid;
}

int rbm_read(struct rbm_port *p, struct smpw_req *reqs, size_t n, const struct smpw_opts *o,
	     struct smpw_stats *st)
{
	struct smpw_io io = smpw_umad_io(&p->u);
	struct smpw_opts w = *o;

	w.window = RBM_WINDOW;
	w.retry_errors = 1;
	w.fail_fast = 0;
	return smpw_run(&io, &p->tid, reqs, n, &w, st) < 0 ? -1 : 0;
}
