/* SPDX-License-Identifier: MIT */
/*
 * What the path-based engines of lidassign share (engines/pathsel.c,
 * engines/la_select.c): the fabric's machines and their switches, shortest
 * legal Up*\/Down* distances towards every switch, and the path builders.
 */
#ifndef FABROUTE_LA_IMPL_H
#define FABROUTE_LA_IMPL_H

#include "engines/lidassign.h"

/*
 * struct la_ctx - one engine run
 * @ca, @nca: the CA and router endpoints (the machines), in endpoint order
 * @epsw: per endpoint, the switch index its LIDs are delivered from
 * @du, @dd: per destination switch t, la_updn_dist() at [t * nswitches + x]
 * @linkof: per (switch, port), the index of that directed link in
 *          @u->adj (UINT32_MAX: not a switch link); @nports ports per switch
 */
struct la_ctx {
	const struct fabric *f;
	const struct la_updn *u;
	uint32_t ns, nca, nports;
	uint32_t *ca, *epsw, *linkof;
	uint16_t *du, *dd;
};

int la_ctx_init(struct la_ctx *c, const struct fabric *f, const struct la_updn *u,
		struct fab_err *err);
void la_ctx_free(struct la_ctx *c);

/*
 * la_ctx_add() - add the path from machine @src to machine @dst made of the
 * @n switch hops @h (switch index, port) and the hop out to @dst.
 */
int la_ctx_add(const struct la_ctx *c, struct fmt_paths *ps, uint32_t src, uint32_t dst,
	       const struct la_hop *h, uint32_t n);

/*
 * struct la_sel_stats - what path selection did
 * @cands: candidate paths in all (over machine pairs); @removed: removed by
 *         most-loaded-link-first
 */
struct la_sel_stats {
	uint64_t cands, removed;
};

/*
 * la_paths_select() - papers/002 "path selection": up to @max legal paths
 * per machine pair (the shortest ones; with @yen the @max shortest, longer
 * ones included), then most-loaded-link-first until each pair has one.
 * Pairs in (source, destination) order.
 */
int la_paths_select(const struct la_ctx *c, uint32_t max, int yen, struct fmt_paths *ps,
		    struct la_sel_stats *st, struct fab_err *err);

/*
 * la_paths_widest() - shortest-widest: pair by pair (source-major, or
 * destination-major with @dst_major), the shortest legal path of least
 * weight (sum of the link weights, or with @bottleneck the largest then
 * the sum); every link of the chosen path then weighs one more.
 */
int la_paths_widest(const struct la_ctx *c, int dst_major, int bottleneck, struct fmt_paths *ps,
		    struct fab_err *err);

/*
 * la_paths_explicit() - fully explicit routing: per destination one tree,
 * what completion builds from empty tables (all-down routes first, then up
 * hops, nearest first, the least loaded port), traced for every pair.
 */
int la_paths_explicit(struct la_ctx *c, struct fmt_paths *ps, struct fab_err *err);

/*
 * la_paths_trace() - the machine-to-machine paths the LFTs of @r give
 * (every pair, with its base LID), for routings made by la_realise().
 */
int la_paths_trace(const struct la_ctx *c, const struct rt_routing *r, struct fmt_paths *ps,
		   struct fab_err *err);

#endif
