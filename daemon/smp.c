/* SPDX-License-Identifier: MIT */
/**
 * DOC: directed-route SMPs from fabrouted's own port
 *
 * The local port identifies itself with a NodeInfo Get over an empty
 * directed route (its PortGUID). Routes come from one BFS over the given
 * fabric from that port's node: a directed route leaves through the local
 * port, then through switches only, at most IB_SUBNET_PATH_HOPS_MAX - 1
 * hops, the lowest port first at every switch.
 */
#include <infiniband/mad.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/smp.h"

struct smp {
	struct ibmad_port *port;
	struct smpw_umad u;	/* the same port, for smp_run() */
	struct smp_opts o;
	uint32_t tid;
	uint64_t guid;
};

struct smp_routes {
	uint32_t nnodes, from;
	uint8_t *len;				/* per node; 0xff: no route */
	uint8_t (*path)[IB_SUBNET_PATH_HOPS_MAX];	/* exit ports from the local node */
};

struct smp *smp_open(const struct smp_opts *o, struct fab_err *err)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	struct smp *s = calloc(1, sizeof(*s));
	uint8_t buf[IB_SMP_DATA_SIZE] = { 0 };
	ib_portid_t self = { 0 };

	if (!s) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	s->port = mad_rpc_open_port(o->ca && *o->ca ? (char *)o->ca : NULL, (int)o->port, classes, 2);
	if (!s->port) {
		fab_err_set(err, "cannot open the MAD port %s:%u (libibumad)",
			    o->ca && *o->ca ? o->ca : "(first)", o->port);
		free(s);
		return NULL;
	}
	s->o = *o;
	s->o.ca = NULL;
	s->u = (struct smpw_umad){ mad_rpc_portid(s->port), mad_rpc_class_agent(s->port, IB_SMI_CLASS),
				   mad_rpc_class_agent(s->port, IB_SMI_DIRECT_CLASS) };
	s->tid = SMPW_TID_FAST | ((uint32_t)time(NULL) << 12 & ~SMPW_TID_FAST);
	mad_rpc_set_timeout(s->port, (int)o->timeout_ms);
	mad_rpc_set_retries(s->port, (int)o->retries);
	smp_mkey_set(s->port, o->mkey);
	self.drpath.drslid = self.drpath.drdlid = 0xffff;
	if (!smp_query_via(buf, &self, IB_ATTR_NODE_INFO, 0, o->timeout_ms, s->port)) {
		fab_err_set(err, "the local port does not answer NodeInfo");
		smp_close(s);
		return NULL;
	}
	s->guid = mad_get_field64(buf, 0, IB_NODE_PORT_GUID_F);
	return s;
}

void smp_close(struct smp *s)
{
	if (!s)
		return;
	mad_rpc_close_port(s->port);
	free(s);
}

uint64_t smp_port_guid(const struct smp *s)
{
	return s->guid;
}

void smp_routes_free(struct smp_routes *r)
{
	if (!r)
		return;
	free(r->len);
	free(r->path);
	free(r);
}

/* BFS from @from over @f's links, through switches only. */
static void bfs(const struct fabric *f, uint32_t from, struct smp_routes *r, uint32_t *q)
{
	uint32_t head = 0, tail = 0;

	r->len[from] = 0;
	q[tail++] = from;
	while (head < tail) {
		uint32_t n = q[head++];

		if (n != from && f->nodes[n].type != FAB_SWITCH)
			continue;
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t m = fab_port(f, n, p)->peer;

			if (m == FAB_NONE || r->len[m] != 0xff ||
			    r->len[n] + 1 >= IB_SUBNET_PATH_HOPS_MAX - 1)
				continue;
			memcpy(r->path[m], r->path[n], r->len[n]);
			r->path[m][r->len[n]] = (uint8_t)p;
			r->len[m] = (uint8_t)(r->len[n] + 1);
			q[tail++] = m;
		}
	}
}

struct smp_routes *smp_routes(const struct fabric *f, uint64_t from, struct fab_err *err)
{
	uint32_t ep = fab_ep_by_port_guid(f, from);
	struct smp_routes *r = calloc(1, sizeof(*r));
	uint32_t *q = malloc(((size_t)f->nnodes + 1) * sizeof(*q));

	if (r) {
		r->nnodes = f->nnodes;
		r->len = malloc((size_t)f->nnodes + 1);
		r->path = calloc((size_t)f->nnodes + 1, sizeof(*r->path));
	}
	if (!r || !q || !r->len || !r->path) {
		fab_err_set(err, "out of memory");
	} else if (ep == FAB_NONE) {
		fab_err_set(err, "the local port 0x%016" PRIx64 " is not in the fabric", from);
	} else {
		memset(r->len, 0xff, f->nnodes);
		r->from = f->eps[ep].node;
		bfs(f, r->from, r, q);
		free(q);
		return r;
	}
	free(q);
	smp_routes_free(r);
	return NULL;
}

int smp_route_entry(const struct smp_routes *r, const struct fabric *f, uint32_t node,
		    uint32_t *prev, unsigned *port)
{
	uint32_t n = r->from;

	if (!smp_reaches(r, node) || !r->len[node])
		return -1;
	for (unsigned i = 0; i + 1 < r->len[node]; i++)
		n = fab_port(f, n, r->path[node][i])->peer;
	*prev = n;
	*port = r->path[node][r->len[node] - 1];
	return 0;
}

int smp_reaches(const struct smp_routes *r, uint32_t node)
{
	return node < r->nnodes && r->len[node] != 0xff;
}

int smp_dest(const struct smp_routes *r, uint32_t node, ib_portid_t *id, struct fab_err *err)
{
	if (!smp_reaches(r, node)) {
		fab_err_set(err, "no directed route to node %u", node);
		return -1;
	}
	memset(id, 0, sizeof(*id));
	id->drpath.cnt = r->len[node];
	for (unsigned i = 0; i < r->len[node]; i++)
		id->drpath.p[i + 1] = r->path[node][i];
	id->drpath.drslid = id->drpath.drdlid = 0xffff;
	return 0;
}

int smp_run(struct smp *s, struct smpw_req *reqs, size_t n, int fail_fast, struct smpw_stats *st)
{
	struct smpw_io io = smpw_umad_io(&s->u);
	struct smpw_opts o = {
		.window = s->o.window, .timeout_ms = s->o.timeout_ms, .retries = s->o.retries,
		.mkey = s->o.mkey, .fail_fast = fail_fast,
	};
	uint64_t failed = st->failed;

	return smpw_run(&io, &s->tid, reqs, n, &o, st) || st->failed != failed ? -1 : 0;
}

int smp_lft_get(struct smp *s, const struct smp_routes *r, uint32_t node, unsigned block,
		uint8_t lids[64], struct fab_err *err)
{
	uint8_t buf[IB_SMP_DATA_SIZE] = { 0 };
	ib_portid_t id;

	if (smp_dest(r, node, &id, err))
		return -1;
	if (!smp_query_via(buf, &id, IB_ATTR_LINEARFORWTBL, block, s->o.timeout_ms, s->port)) {
		fab_err_set(err, "LFT block %u: no answer", block);
		return -1;
	}
	memcpy(lids, buf, 64);
	return 0;
}
