/* SPDX-License-Identifier: MIT */
/*
 * Private to analysis/: one step through a switch, resolving one DLID over
 * all switches, and the parts of the per-destination evaluator (plan,
 * accumulator, per-destination passes, graph analysis, load summary).
 */
#ifndef FABROUTE_ANALYSIS_INTERNAL_H
#define FABROUTE_ANALYSIS_INTERNAL_H

#include "analysis/analysis.h"
#include "analysis/graph.h"

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

/** an_fabrics_match() - @r was made for @f (switch and endpoint counts); -1 with @err. */
int an_fabrics_match(const struct fabric *f, const struct rt_routing *r, struct fab_err *err);

/* --- the per-destination evaluator -------------------------------------- */

/*
 * One switch port, as the passes step through it, in 32 bits (the table of
 * every switch port stays in cache): the kind (what the port leads to), for
 * AN_PT_SW the next switch's in port, and a value: AN_PT_SW the next switch,
 * AN_PT_EP the endpoint there (the switch's own for port 0; AN_PT_NOVAL when
 * none).
 */
enum { AN_PT_DOWN = 0, AN_PT_SW = 1, AN_PT_EP = 2 };
#define AN_PT_NOVAL 0x3fffffu
#define AN_PT(kind, in, val) ((uint32_t)(kind) << 30 | (uint32_t)(in) << 22 | (val))
#define AN_PT_KIND(e) ((e) >> 30)
#define AN_PT_IN(e) ((uint8_t)((e) >> 22))
#define AN_PT_VAL(e) ((e) & AN_PT_NOVAL)

/**
 * struct an_entry - a CDG walk start: the state where sources enter
 * @sw, @in: switch and in port
 * @state: its CDG state
 * @n: its sources
 */
struct an_entry {
	uint32_t sw;
	uint32_t state;
	uint32_t n;
	uint8_t in;
};

/**
 * struct an_plan - what the passes over every destination share (read only)
 * @c: first switch and in port of every endpoint
 * @o: the options
 * @pt_base: per switch, the index of its port 0 in @pt (@npt at the end)
 * @pt: every switch port
 * @wblk: counters per channel block: one for the channel, one per port of
 *        the widest switch (edges to the next switch's channels)
 * @nvs: VL slots per switch port in a block index (1 when every hop is on VL 0)
 * @vl_single: no SL2VL table and no path SL: every hop is on VL 0
 * @bits: @vl_single, no per-pair tables, no an_opts.incremental: channels
 *        and dependencies are kept as bits (which ones exist), not counts
 * @block: @vl_single, no per-pair tables, one LID per pair checked (no
 *         all_lids) and every switch a walk start (not ca_only): the
 *         block pass of analysis/dest_block.c (channels and dependencies
 *         counted without @bits)
 * @fast: @block and @bits: analysis/dest_fast.c, for the destinations the
 *        block pass does not take
 * @per_pair: the routing gives DLID offsets or SLs per pair
 * @nstates: CDG walk states (switches, or switch ports with SL2VL)
 * @nfwd: LIDs of the widest LMC range
 * @n_nonsw, @n_ca: per switch, the non-switch (CA class) and the CA
 *                  (type CA, for the load) sources entering there
 * @direct: sources that enter no switch (a CA port cabled to a CA); @ndirect
 * @ent: CDG walk starts in the order of their first source; @nent
 * @ent_of: per endpoint, its walk start (FAB_NONE)
 * @ent_n: per switch, the sources of the walk starts on it
 * @lid_ep: per LID up to the top LID, 1 when an endpoint owns it
 * @sw_order: with @block, the switches farthest from the sources first (by
 *            hops over switch links from the nearest switch a non-switch
 *            source enters): in a tree, where the next switch of most
 *            switches towards a destination comes before them
 * @own_ca, @own_sw: with @block, per switch, the pairs its sources send to
 *                   a destination that is not on it, a CA and a switch:
 *                   all (low 16 bits) and CA-to-CA (high 16 bits)
 * @nn_total: the non-switch sources entering switches
 * @pcode: with @block, per switch port (the ports of switch s from
 *         pt_base[s] + s on, then one for any port past them) its step as
 *         analysis/dest_block.c codes it: the next switch, or AN_PC_TERM |
 *         AN_WRONG_PORT to a CA, AN_PC_TERM | AN_LINK_DOWN when unlinked
 */
struct an_plan {
	struct an_ctx c;
	struct an_opts o;
	uint32_t *pt_base;
	uint32_t *pt;
	uint32_t npt;
	uint32_t wblk;
	uint32_t nvs;
	int vl_single;
	int bits;
	int block;
	int fast;
	int per_pair;
	uint32_t nstates;
	uint32_t nfwd;
	uint32_t *n_nonsw, *n_ca;
	uint32_t *direct;
	uint32_t ndirect;
	struct an_entry *ent;
	uint32_t nent;
	uint32_t *ent_of;
	uint32_t *ent_n;
	uint8_t *lid_ep;
	uint32_t *sw_order;
	uint32_t *own_ca, *own_sw;
	uint64_t nn_total;
	uint16_t *pcode;
};

/* A step that goes no further, in 16 bits: AN_PC_TERM | enum an_fail. */
#define AN_PC_TERM 0xfff0u

int an_plan_init(struct an_plan *p, const struct fabric *f, const struct rt_routing *r,
		 const struct an_opts *o);
void an_plan_fini(struct an_plan *p);

static inline uint32_t an_plan_state(const struct an_plan *p, uint32_t sw, unsigned in)
{
	return p->c.has_sl2vl ? p->pt_base[sw] + in : sw;
}

/** an_plan_order() - destinations in the order the passes take them (malloc'd); NULL when out of memory. */
uint32_t *an_plan_order(const struct an_plan *p);

/* Failing pairs kept per class: the AN_EXAMPLES smallest by (dst, src). */
struct an_pool {
	struct an_example ex[AN_EXAMPLES];
	uint32_t n;
};

void an_pool_add(struct an_pool *p, const struct an_example *e);
/** an_pool_full_before() - full with examples all before (@dst, @src): nothing there can enter. */
int an_pool_full_before(const struct an_pool *p, uint32_t dst, uint32_t src);

/* Dependency counts between channels on different VLs: (from id, to id) -> count. */
struct an_cmap {
	uint64_t *keys;
	uint32_t *cnt;
	size_t cap, n;
};

/**
 * struct an_acc - sums over a set of destinations, added and subtracted
 * exactly (unsigned, modulo 2^64 or 2^32: a sum of contributions is
 * right whatever the order)
 * @pairs, @unreachable, @by_fail: connectivity counts per class
 * @ex: failing pairs per class
 * @paths: pairs per VL (struct an_vl.paths)
 * @blk: per (switch port, VL slot): offset in @arena of the channel's
 *       block (0: none): [1 + p] its dependencies to port p of the next
 *       switch on the same VL ([0] unused)
 * @chan: per (switch port, VL slot), as @blk: walks through the channel
 *        (apart from the blocks: they are read and written for every
 *        destination at every switch, the blocks only where a dependency
 *        is counted); NULL with @bits
 * @bits: with plan->bits instead of @blk: per switch port, bit 0 the
 *        channel, bit 1 + p a dependency to port p of the next switch
 * @cross: dependencies from one VL to another
 * @ld: per switch port (index in the plan's port table), pairs out of it:
 *      [2 * i] all, [2 * i + 1] CA-to-CA (32 bits are enough: at most
 *      endpoints^2 pairs cross one link, and sums wrap exactly)
 * @eld: per endpoint, pairs out of its own port besides those @dall and
 *       @dca count (same layout)
 * @dall, @dca: per switch, destinations delivered from there: every
 *              non-switch (CA) source entering there sends one pair to each
 */
struct an_acc {
	uint64_t pairs[AN_NCLASSES];
	uint64_t unreachable[AN_NCLASSES];
	uint64_t by_fail[AN_NCLASSES][AN_NFAILS];
	struct an_pool ex[AN_NCLASSES];
	uint64_t paths[AN_VLS];
	uint32_t *blk, *chan;
	uint32_t nblk;
	uint32_t *arena;
	size_t alen, acap;
	uint64_t *bits;
	struct an_cmap cross;
	uint32_t *ld, *eld;
	uint32_t *dall, *dca;
};

static inline void an_acc_setbit(struct an_acc *a, size_t i)
{
	a->bits[i / 64] |= 1ull << (i % 64);
}

static inline int an_acc_bit(const struct an_acc *a, size_t i)
{
	return (int)(a->bits[i / 64] >> (i % 64) & 1);
}

int an_acc_init(struct an_acc *a, const struct an_plan *p);
void an_acc_fini(struct an_acc *a);
/** an_acc_block() - offset of the block of channel (switch port @pti, @vl); 0 when out of memory. */
uint32_t an_acc_block(struct an_acc *a, const struct an_plan *p, uint32_t pti, unsigned vl);

/** an_acc_index() - the index of channel (switch port @pti, @vl) in struct an_acc's @blk and @chan. */
static inline size_t an_acc_index(const struct an_plan *p, uint32_t pti, unsigned vl)
{
	return (size_t)pti * p->nvs + (p->nvs > 1 ? vl : 0);
}
/** an_acc_cross() - count a dependency @from -> @to (graph ids); 0 or -1 (memory). */
int an_acc_cross(struct an_acc *a, uint32_t from, uint32_t to);
/** an_acc_add() - @into += @sign * @from (@sign 1 or -1); 0 or -1 (memory). Pools are merged when adding. */
int an_acc_add(struct an_acc *into, const struct an_plan *p, const struct an_acc *from, int sign);

/* Per-thread scratch of the per-destination passes (analysis/dest.c). */
struct an_work;

/**
 * struct an_rows - what the block pass settled per destination endpoint d
 * and switch s, at [d * switches + s], kept beside the sums so that
 * an_reevaluate() works a destination out near the change without a pass
 * over every switch (analysis/reeval_kept.c); kept with the load and
 * an_opts.incremental, up to an_opts.rows_max bytes
 * @fl: the pairs out of the port the switch leaves by (struct an_blk.fl)
 * @c: the switch's step (struct an_blk.c)
 * @o: the switch's LFT entry (struct an_blk.o)
 * @up: the most switches a delivered packet passes before it, 0 when no
 *      switch sends to it
 * (@fl NULL: no rows kept)
 */
struct an_rows {
	uint32_t *fl;
	uint16_t *c, *up;
	uint8_t *o;
};

struct an_work *an_work_new(const struct an_plan *p);
void an_work_free(struct an_work *w);
/**
 * an_dest_run() - add the pairs towards destinations @d[0..@n) to @acc
 * @dhops, @dfail: per destination endpoint, the longest delivered path and
 *                 the classes with an unreachable pair (set here)
 * @rows: the rows of the destinations the block pass takes, set here (NULL: none)
 * Return: 0, or -1 when out of memory.
 */
int an_dest_run(struct an_work *w, struct an_acc *acc, const uint32_t *d, uint32_t n,
		uint16_t *dhops, uint8_t *dfail, const struct an_rows *rows);
/**
 * an_dest_block_channels() - with struct an_plan.fast and the load, mark
 * the channels that carry pairs (the block pass leaves them to the sums)
 */
void an_dest_block_channels(const struct an_plan *p, struct an_acc *a);
/** an_dest_examples() - add the failing pairs towards @dst to @pools (per class). 0 or -1. */
int an_dest_examples(struct an_work *w, uint32_t dst, struct an_pool *pools);

/**
 * struct an_ranks - an order of a channel dependency graph that every
 * dependency follows (an_graph_ranks()), kept with the sums so that
 * an_reevaluate() proves the graph still acyclic without a search when
 * every dependency it adds goes up in that order: an order every edge
 * follows exists exactly when there is no cycle. Kept only for a graph on
 * VL 0 alone (the block pass's case) found acyclic.
 * @rank: per channel (an_acc_index()), AN_RANK_NONE when not in the graph
 *        it was made for; NULL: no order known
 * @channels, @deps: the graph's channels and dependencies, kept up to date
 * @against: dependencies added since the order was made that it could not
 *           take (a cycle, a channel without a rank, too much to move)
 * @stale: the sums changed otherwise than dependency by dependency
 * @pend, @npend, @cap: dependencies added that go down in the order, as
 *                      from << 32 | to, until an_ranks_settle()
 */
struct an_ranks {
	uint32_t *rank;
	uint64_t channels, deps, against;
	int stale;
	uint64_t *pend;
	size_t npend, cap;
};

#define AN_RANK_NONE UINT32_MAX

/* Counter @c of a channel or dependency goes up (@sign 1) or down (-1) by one: 1 when it appears. */
static inline int an_ranks_step(uint32_t *c, int sign, uint64_t *count)
{
	if (sign > 0 && (*c)++ == 0) {
		(*count)++;
		return 1;
	}
	if (sign < 0 && --(*c) == 0)
		(*count)--;
	return 0;
}

/**
 * an_ranks_check() - dependency @from -> @to (channel indexes) appeared:
 * when it does not go up in the order, it is kept for an_ranks_settle().
 */
void an_ranks_check(struct an_ranks *rk, size_t from, size_t to);
/**
 * an_ranks_settle() - once every dependency of @a is counted: the order
 * moved so that the dependencies an_ranks_check() kept go up, where that
 * is possible without a cycle (else @rk->against counts them).
 */
void an_ranks_settle(const struct an_plan *p, const struct an_acc *a, struct an_ranks *rk);
/** an_ranks_free() - what @rk holds. */
void an_ranks_free(struct an_ranks *rk);

/**
 * an_cdg_analyse() - channels, dependencies, cycles per VL and across VLs
 * of @g (node ids: channel ids, port slot * AN_VLS + VL) into @out, whose
 * paths and vls_used are already set.
 * Return: 0, or -1 when out of memory.
 */
int an_cdg_analyse(const struct fabric *f, const struct an_graph *g, struct an_cdg *out);
/**
 * an_cdg_from_acc() - the CDG of the channels and dependencies counted in
 * @a; with @rk (not NULL), its order made again (NULL when the graph has a
 * cycle or uses other VLs than 0). Return: 0, or -1 when out of memory.
 */
int an_cdg_from_acc(const struct an_plan *p, const struct an_acc *a, struct an_cdg *out,
		    struct an_ranks *rk);
/**
 * an_cdg_ranked() - the CDG as @rk proves it: acyclic, its channels and
 * dependencies counted, when every dependency added since the order was
 * made goes up in it. Return: 1 when @out is filled, 0 when a search is
 * needed.
 */
int an_cdg_ranked(const struct an_ranks *rk, const struct an_acc *a, struct an_cdg *out);
void an_cdg_free(struct an_cdg *cdg);

/** an_load_summarise() - links, max, mean, histogram, CA load from per-slot sums. */
void an_load_summarise(const struct fabric *f, const uint64_t *all, const uint64_t *ca,
		       struct an_load *out);
/** an_load_spread() - DLID spread over the switch-facing ports of switch @s (0 when none). */
uint32_t an_load_spread(const struct fabric *f, const struct rt_routing *r, const uint8_t *lid_ep,
			uint32_t s);
/** an_load_lid_ep() - per LID up to the top LID, 1 when an endpoint owns it (malloc'd). */
uint8_t *an_load_lid_ep(const struct fabric *f);

#endif
