/* SPDX-License-Identifier: MIT */
/**
 * DOC: balanced forwarding tables shared by minhop and updn; Up*\/Down* ranks
 *
 * OpenSM's minhop and Up/Down engines differ only in which output ports
 * of a switch may carry traffic towards a destination switch (any port on a
 * shortest path; a port on a shortest legal Up/Down path). The second
 * stage, choosing one of those ports for every LID while balancing the LIDs
 * over the ports, is common to both and lives here (engines/ucast/ucast.c).
 *
 * An engine describes its candidate ports through a callback that fills,
 * for one switch, the candidate ports towards every destination switch;
 * ucast_fill() calls it once per switch and writes the LFTs.
 */
#ifndef FABROUTE_UCAST_H
#define FABROUTE_UCAST_H

#include <stddef.h>
#include <stdint.h>

#include "engines/engine.h"
#include "fabric/fabric.h"
#include "fabric/routing.h"

/**
 * struct ucast_adj - switch-to-switch links of every switch, by port number
 * @off: nswitches + 1 offsets: the links of switch s are [off[s], off[s+1])
 * @peer: switch index at the far end of each link
 * @port: the local port of each link
 * @maxdeg: most links of one switch
 */
struct ucast_adj {
	uint32_t *off;
	uint32_t *peer;
	uint8_t *port;
	uint32_t maxdeg;
};

/** ucast_adj_build() - fill @a from @f. Return: 0, or -1 when out of memory. */
int ucast_adj_build(const struct fabric *f, struct ucast_adj *a);
void ucast_adj_free(struct ucast_adj *a);

/**
 * ucast_split() - find two switches that cannot reach each other
 * Return: 1 with *@a (switch 0) and *@b (the first switch it cannot reach)
 * set, 0 when the switches form one connected graph (or there are none),
 * -1 when out of memory.
 */
int ucast_split(const struct fabric *f, const struct ucast_adj *adj, uint32_t *a, uint32_t *b);

/**
 * struct ucast_cands - candidate output ports of one switch
 * @off: nswitches + 1 offsets: the candidates towards destination switch t
 *       are port[off[t] .. off[t+1]), ascending; none for the switch itself
 *       and for switches it cannot reach
 * @port: room for nswitches * maxdeg ports
 */
struct ucast_cands {
	uint32_t *off;
	uint8_t *port;
};

/** ucast_cands_fn - fill @c with the candidate ports of switch @sw. */
typedef void (*ucast_cands_fn)(const void *ctx, uint32_t sw, struct ucast_cands *c);

/**
 * struct ucast_opts - how ucast_fill() balances
 * @count_switch_lids: LIDs of switches count in the per-port totals too
 *                     (OpenSM counts only CA and router LIDs unless
 *                     port_profile_switch_nodes is set)
 */
struct ucast_opts {
	int count_switch_lids;
};

/**
 * ucast_fill() - write every LFT entry of @r
 * @adj: from ucast_adj_build()
 * @cands: the engine's candidate ports
 *
 * Local LIDs first (eng_route_endpoints()), then, switch by switch, every
 * LID of every endpoint in OpenSM's order, each on the candidate port that
 * carries the fewest LIDs so far (LMC ranges spread over remote systems and
 * nodes as OpenSM does; see ucast.c). LIDs towards switches without
 * candidates stay RT_NO_PORT.
 * Return: 0, or -1 when out of memory.
 */
int ucast_fill(const struct fabric *f, struct rt_routing *r, const struct ucast_adj *adj,
	       const struct ucast_opts *o, ucast_cands_fn cands, const void *ctx);

/* --- Up*\/Down* ranking (engines/ucast/rank.c) -------------------------- */

/** ucast_node_switch() - the switch index node @n stands for: itself, or a CA's first switch; FAB_NONE if none. */
uint32_t ucast_node_switch(const struct fabric *f, uint32_t n);

/**
 * ucast_rank() - rank the switches from @roots (switch indexes; repeats
 * allowed): @rank[s] the BFS distance from the nearest root (UINT32_MAX when
 * not reached), @pos[s] the place of switch s in the (rank, node GUID)
 * order, so that a hop towards a lower place goes up; *@maxrank the largest
 * rank reached. @rank and @pos hold nswitches entries.
 * Return: 0, or -1 when out of memory.
 */
int ucast_rank(const struct fabric *f, const struct ucast_adj *adj, const uint32_t *roots,
	       size_t nroots, uint32_t *rank, uint32_t *pos, uint32_t *maxrank);

#endif
