/* SPDX-License-Identifier: MIT */
/**
 * DOC: path tracing
 *
 * One step through a switch's LFT (an_step()), the VL of a hop through the
 * SL2VL tables (an_vl()), and whole paths from an endpoint to a DLID
 * (an_trace()). A path may cross at most as many switches as the fabric has;
 * coming back to a switch is a loop.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

const char *an_fail_name(enum an_fail f)
{
	static const char *const names[AN_NFAILS] = {
		[AN_DELIVERED] = "delivered", [AN_NO_ENTRY] = "no-entry",
		[AN_LINK_DOWN] = "link-down", [AN_LOOP] = "loop",
		[AN_WRONG_PORT] = "wrong-port", [AN_NO_LINK] = "no-link",
	};

	return (unsigned)f < AN_NFAILS ? names[f] : "?";
}

const char *an_class_name(enum an_class c)
{
	static const char *const names[AN_NCLASSES] = { "ca-ca", "ca-sw", "sw-ca", "sw-sw" };

	return (unsigned)c < AN_NCLASSES ? names[c] : "?";
}

enum an_class an_class_of(const struct fabric *f, uint32_t src, uint32_t dst)
{
	int s = f->nodes[f->eps[src].node].type == FAB_SWITCH;
	int d = f->nodes[f->eps[dst].node].type == FAB_SWITCH;

	return (enum an_class)(s * 2 + d);
}

int an_ctx_init(struct an_ctx *c, const struct fabric *f, const struct rt_routing *r)
{
	memset(c, 0, sizeof(*c));
	c->f = f;
	c->r = r;
	c->first = malloc(((size_t)f->neps + 1) * sizeof(*c->first));
	c->in_port = malloc((size_t)f->neps + 1);
	if (!c->first || !c->in_port) {
		an_ctx_fini(c);
		return -1;
	}
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_ep *ep = &f->eps[e];
		const struct fab_port *p = fab_port(f, ep->node, ep->port);

		c->first[e] = FAB_NONE;
		c->in_port[e] = 0;
		if (f->nodes[ep->node].type == FAB_SWITCH) {
			c->first[e] = f->nodes[ep->node].swidx;
		} else if (p->peer != FAB_NONE && f->nodes[p->peer].type == FAB_SWITCH) {
			c->first[e] = f->nodes[p->peer].swidx;
			c->in_port[e] = p->peer_port;
		}
	}
	for (uint32_t s = 0; s < r->nswitches && !c->has_sl2vl; s++)
		c->has_sl2vl = r->sl2vl[s] != NULL;
	return 0;
}

void an_ctx_fini(struct an_ctx *c)
{
	free(c->first);
	free(c->in_port);
	c->first = NULL;
	c->in_port = NULL;
}

unsigned an_vl(const struct an_ctx *c, uint32_t sw, unsigned in, unsigned out, unsigned sl)
{
	if (!sl && !c->has_sl2vl)
		return 0;	/* no table anywhere: SL 0 is VL 0 (the common case, kept cheap) */
	return rt_sl2vl_get(c->r, c->f, sw, in, out, sl);
}

enum an_fail an_step(const struct an_ctx *c, uint32_t sw, unsigned dlid, uint32_t dst,
		     uint8_t *out, uint32_t *next, uint8_t *next_in)
{
	const struct fabric *f = c->f;
	uint32_t node = f->switches[sw];
	uint8_t port = rt_lft_get(c->r, sw, dlid);
	const struct fab_port *p;

	*out = port;
	*next = FAB_NONE;
	if (port == RT_NO_PORT)
		return AN_NO_ENTRY;
	if (port == 0)
		return dst != FAB_NONE && f->eps[dst].node == node ? AN_DELIVERED : AN_WRONG_PORT;
	if (port > f->nodes[node].nports)
		return AN_LINK_DOWN;
	p = fab_port(f, node, port);
	if (p->peer == FAB_NONE)
		return AN_LINK_DOWN;
	if (f->nodes[p->peer].type == FAB_SWITCH) {
		*next = f->nodes[p->peer].swidx;
		*next_in = p->peer_port;
		return AN_DELIVERED;
	}
	return dst != FAB_NONE && f->eps[dst].node == p->peer && f->eps[dst].port == p->peer_port ?
	       AN_DELIVERED : AN_WRONG_PORT;
}

static int push_hop(struct an_path *p, struct an_hop h)
{
	if (p->nhops == p->cap) {
		uint32_t cap = p->cap ? p->cap * 2 : 8;
		struct an_hop *n = realloc(p->hops, cap * sizeof(*n));

		if (!n)
			return -1;
		p->hops = n;
		p->cap = cap;
	}
	p->hops[p->nhops++] = h;
	return 0;
}

/* A CA port linked straight to another CA port: delivered there or nowhere. */
static void trace_direct(const struct fabric *f, uint32_t src, uint32_t dst, struct an_path *p)
{
	const struct fab_ep *ep = &f->eps[src];
	const struct fab_port *x = fab_port(f, ep->node, ep->port);

	if (x->peer == FAB_NONE) {
		p->fail = AN_NO_LINK;
		return;
	}
	p->dst_node = x->peer;
	p->dst_port = x->peer_port;
	p->fail = dst != FAB_NONE && f->eps[dst].node == x->peer && f->eps[dst].port == x->peer_port ?
		  AN_DELIVERED : AN_WRONG_PORT;
}

int an_trace(const struct fabric *f, const struct rt_routing *r, uint32_t src, unsigned dlid,
	     unsigned sl, struct an_path *p)
{
	/* has_sl2vl: every hop reads the tables (a VL shift may sit on SL 0) */
	struct an_ctx c = { .f = f, .r = r, .has_sl2vl = 1 };
	uint32_t dst = fab_ep_by_lid(f, dlid), sw;
	uint8_t in = 0;

	memset(p, 0, sizeof(*p));
	p->dst_node = FAB_NONE;
	p->src_vl = (uint8_t)(sl % (f->nodes[f->eps[src].node].vl_cap ? f->nodes[f->eps[src].node].vl_cap : 1));
	if (f->nodes[f->eps[src].node].type == FAB_SWITCH) {
		sw = f->nodes[f->eps[src].node].swidx;
	} else {
		const struct fab_port *x = fab_port(f, f->eps[src].node, f->eps[src].port);

		if (x->peer == FAB_NONE || f->nodes[x->peer].type != FAB_SWITCH) {
			trace_direct(f, src, dst, p);
			return 0;
		}
		sw = f->nodes[x->peer].swidx;
		in = x->peer_port;
	}
	for (;;) {
		uint32_t next;
		uint8_t out, next_in = 0;
		enum an_fail res;

		if (p->nhops >= f->nswitches) {
			p->fail = AN_LOOP;
			return 0;
		}
		res = an_step(&c, sw, dlid, dst, &out, &next, &next_in);
		if (push_hop(p, (struct an_hop){ f->switches[sw], in, out,
				 out == RT_NO_PORT ? 0 : (uint8_t)an_vl(&c, sw, in, out, sl) }))
			return -1;
		if (res != AN_DELIVERED || next == FAB_NONE) {
			p->fail = res;
			if (res == AN_DELIVERED || res == AN_WRONG_PORT) {
				const struct fab_port *x = out ? fab_port(f, f->switches[sw], out) : NULL;

				p->dst_node = x ? x->peer : f->switches[sw];
				p->dst_port = x ? x->peer_port : 0;
			}
			return 0;
		}
		for (uint32_t i = 0; i < p->nhops; i++)
			if (p->hops[i].node == f->switches[next]) {
				p->fail = AN_LOOP;
				return 0;
			}
		sw = next;
		in = next_in;
	}
}

void an_path_free(struct an_path *p)
{
	free(p->hops);
	p->hops = NULL;
	p->nhops = p->cap = 0;
}
