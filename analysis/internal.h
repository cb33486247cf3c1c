/* SPDX-License-Identifier: MIT */
/*
 * Private to analysis/: resolving one DLID over all switches, and the
 * per-endpoint facts every pass needs.
 */
#ifndef FABROUTE_ANALYSIS_INTERNAL_H
#define FABROUTE_ANALYSIS_INTERNAL_H

#include "analysis/analysis.h"

/**
 * struct an_ctx - what every pass shares
 * @first: per endpoint, the switch (index in fabric->switches) its packets
 *         enter first: itself for a switch, the peer for a CA port;
 *         FAB_NONE when the peer is not a switch
 * @in_port: per endpoint, the port of @first the packets come in by (0 for a
 *           switch's own port 0)
 * @has_sl2vl: some switch has an SL2VL table (else VLs ignore in ports)
 */
struct an_ctx {
	const struct fabric *f;
	const struct rt_routing *r;
	uint32_t *first;
	uint8_t *in_port;
	int has_sl2vl;
};

int an_ctx_init(struct an_ctx *c, const struct fabric *f, const struct rt_routing *r);
void an_ctx_fini(struct an_ctx *c);

/**
 * struct an_fwd - one DLID resolved over every switch
 * @res: per switch, enum an_fail of a packet for the DLID found there
 * @hops: per switch, switches crossed from it to delivery, itself included
 * @maxhops: largest @hops of a delivering switch
 */
struct an_fwd {
	uint8_t *res;
	uint16_t *hops;
	uint8_t *state;
	uint32_t *stack;
	uint32_t maxhops;
};

int an_fwd_init(struct an_fwd *w, const struct fabric *f);
void an_fwd_fini(struct an_fwd *w);
/** an_fwd_resolve() - resolve @dlid, owned by endpoint @dst, from every switch. */
void an_fwd_resolve(struct an_fwd *w, const struct an_ctx *c, unsigned dlid, uint32_t dst);

/**
 * an_step() - where a packet for @dlid goes from switch @sw
 * Return: AN_DELIVERED with *@next = FAB_NONE when it is delivered at this
 * switch or on the port leaving it, AN_DELIVERED with *@next the next
 * switch index (and *@next_in its in port) when it travels on, or the
 * failure. *@out gets the output port (RT_NO_PORT when none).
 */
enum an_fail an_step(const struct an_ctx *c, uint32_t sw, unsigned dlid, uint32_t dst,
		     uint8_t *out, uint32_t *next, uint8_t *next_in);

/** an_vl() - VL of the hop leaving switch @sw by @out, entered by @in, with @sl. */
unsigned an_vl(const struct an_ctx *c, uint32_t sw, unsigned in, unsigned out, unsigned sl);

/** an_class_of() - class of the pair (@src, @dst). */
enum an_class an_class_of(const struct fabric *f, uint32_t src, uint32_t dst);

int an_conn_run(const struct an_ctx *c, const struct an_opts *o, struct an_conn *out);
int an_cdg_run(const struct an_ctx *c, const struct an_opts *o, struct an_cdg *out);
void an_cdg_free(struct an_cdg *cdg);
int an_load_run(const struct an_ctx *c, struct an_load *out);

#endif
