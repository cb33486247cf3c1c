/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - local repair of a fat-tree routing around faults (papers/001)
 *
 * InfiniBand switches cannot misroute by themselves: a packet whose LFT
 * entry points at a dead port is dropped. fabroute realises the paper's
 * dynamic local rerouting as a repair the subnet manager writes after the
 * trap: a pure function of (base fabric, base routing, current fabric)
 * that rewrites only the LIDs whose paths crossed a fault (in each fault's
 * group, but where the base turns its switch paths at a subtree root), and
 * gives the base back byte for byte once every fault has recovered.
 *
 * It repairs the routings of sftree, ftree and ftdlr itself (doc/repair.md
 * says what holds on one VL and what needs a second). ftdlr.c holds the
 * engine (whose route hook, without a base, routes like sftree with switch
 * destinations on SL 1), the checks that the change is one a repair can
 * follow, and the tree's labels; ftdlr_repair.c repairs one LID at a time
 * by detours of the label rule; ftdlr_sn.c by the subtree rule, for bases
 * whose switch paths turn at a subtree root; ftdlr_vl.c checks switch
 * destinations on a VL of their own; ftdlr_check.c checks the channel
 * dependencies of a transition between two routings while switches are
 * updated one at a time; ftdlr_stage.c cuts a transition into steps that
 * are safe in any order.
 */
#ifndef FABROUTE_FTDLR_H
#define FABROUTE_FTDLR_H

#include <stdint.h>

#include "engines/engine.h"

/** enum ftdlr_scope - which switches a link repair rewrites */
enum ftdlr_scope {
	FTDLR_MINIMAL = 0,	/* the dead link's upper end, the detour's U-turn switch w */
	FTDLR_GROUP = 1,	/* also every lower switch of the group that sent the LID up to it */
};

/**
 * struct ftdlr_stats - what one repair found and did
 * @k: the tree's arity as the guarantee counts it: the fewest up ports of a
 *     switch below the top (faults <= k - 1 are covered)
 * @link_faults: links between two live switches of the base that are gone
 * @switch_faults: non-leaf switches of the base that are gone
 * @other_faults: leaf switches and CAs that are gone (their LIDs need no
 *                route; the guarantee does not cover them)
 * @lids: LIDs repaired (some live switch's base entry used a dead link)
 * @entries: LFT entries that differ from the base
 * @switches: switches with such an entry
 * @blocks: 64-LID LFT blocks holding such an entry, over all switches
 * @max_blocks: the most on one switch
 * @nonmonotone: detour entries whose U-turn does not go to a label of higher
 *               rank (none up to k - 1 faults)
 * @conflicts: detour entries two detours wanted different (the first kept)
 * @sw_fallback: switch-LID entries recomputed over shortest paths where the
 *               rule gave no way
 * @unrepaired: entries of live switches towards live LIDs left without a way
 * @subtree: LIDs repaired by the subtree rule, turning at the base's subtree
 *           root (a base whose switch paths turn at one: sftree's, ftdlr's)
 * @quick: of those, the LIDs repaired at the few switches where the rule
 *         may differ from the base alone (a memo prepared: the same tables)
 * @switch_sl: the SL the base runs switch destinations on apart from the CA
 *             destinations (ftdlr's static plan: 1), 0 when they share it
 */
struct ftdlr_stats {
	unsigned k;
	unsigned link_faults, switch_faults, other_faults;
	uint32_t lids;
	uint64_t entries;
	uint32_t switches, blocks, max_blocks;
	uint64_t nonmonotone, conflicts, sw_fallback, unrepaired;
	uint32_t subtree, quick;
	unsigned switch_sl;
};

/**
 * ftdlr_repair() - repair routing @br of fabric @bf for fabric @cf
 * @scope: enum ftdlr_scope
 * @threads: the most threads the LIDs are repaired in (0: the online CPUs;
 *           the tables are the same whatever the number)
 * @out: the repaired routing, for @cf (LFTs as long as @br's; path SLs, DLID
 *       offsets and SL2VL tables are @br's, mapped by GUID)
 * Return: ENG_OK with *@out and @st set; ENG_NOT_APPLICABLE with @err saying
 * why @cf is not @bf with links or switches missing, or why @bf and @br are
 * not a fat tree with an up/down routing; ENG_ERROR (out of memory).
 */
int ftdlr_repair(const struct fabric *bf, const struct rt_routing *br, const struct fabric *cf,
		 enum ftdlr_scope scope, unsigned threads, struct rt_routing **out,
		 struct ftdlr_stats *st, struct fab_err *err);
/**
 * ftdlr_repair_memo() - ftdlr_repair(), keeping in @memo what it works out
 * from the base alone (its fat-tree model, turning switches, the LIDs
 * whose paths were checked up*down*) and starting from what @memo holds
 * for this base: the same result, the base's share of the time once.
 * @changed: optional: a new array (free() it) of the switches (index in
 *           @cf) whose table differs from @br's, *@nchanged of them: what
 *           an incremental proof (an_change) compares
 */
int ftdlr_repair_memo(const struct fabric *bf, const struct rt_routing *br,
		      const struct fabric *cf, enum ftdlr_scope scope, unsigned threads,
		      struct eng_memo *memo, struct rt_routing **out, struct ftdlr_stats *st,
		      uint32_t **changed, size_t *nchanged, struct fab_err *err);

/**
 * struct ftdlr_trans - the channel dependencies of a transition
 * @deps: distinct dependencies between (channel, VL) pairs
 * @channels: (channel, VL) pairs used
 * @acyclic: no cycle among them (so no mix of old and new entries forwards
 *           a packet in a circle either)
 * @cycle, @cycle_len: when cyclic, the first channels of one cycle (each
 *                     depends on the next, the last on the first when the
 *                     whole cycle fits), as port slot of the fabric x 16 + VL
 */
#define FTDLR_CYCLE 32
struct ftdlr_trans {
	uint64_t deps;
	uint32_t channels;
	int acyclic;
	uint32_t cycle[FTDLR_CYCLE];
	uint32_t cycle_len;
};

/**
 * ftdlr_transition() - the channel dependency graph of every path a packet
 * can take on fabric @f while its switches go from routing @a (computed for
 * fabric @fa; switches and endpoints matched by GUID) to routing @b (for @f)
 * one at a time: at each switch, the old entry or the new one (with that
 * routing's SL2VL table; path SLs are @b's). With @a == @b (and @fa == @f)
 * it is @b's own dependency graph, switch-sourced paths included.
 * Return: 0 with @t set, or -1 with @err (out of memory, LFTs of @b too short).
 */
int ftdlr_transition(const struct fabric *f, const struct fabric *fa, const struct rt_routing *a,
		     const struct rt_routing *b, struct ftdlr_trans *t, struct fab_err *err);

/**
 * ftdlr_transition_sls() - ftdlr_transition() for the paths of the pairs
 * whose path SL is in the mask @sls only, towards switch LIDs only when
 * @switches_only (pairs towards the rest are then taken not to use @sls)
 */
int ftdlr_transition_sls(const struct fabric *f, const struct fabric *fa,
			 const struct rt_routing *a, const struct rt_routing *b, unsigned sls,
			 int switches_only, struct ftdlr_trans *t, struct fab_err *err);

/**
 * ftdlr_stages() - cut the move from routing @a (of fabric @fa) to routing @b
 * (of @f) into steps that are safe whatever order the switches of one step
 * are written in (ftdlr_stage.c): per LID, an entry changes in the step
 * after every changing entry on its new path (downstream first); path SLs
 * that grow change in a step of their own before, those that shrink in one
 * after
 * @steps: *@steps gets *@nsteps routings for @f, the last a copy of @b's
 *         LFTs; every step shares @b's SL2VL tables (the same in each):
 *         free them with ftdlr_stages_free(), before @b
 * Return: 0, or -1 with @err (out of memory).
 */
int ftdlr_stages(const struct fabric *f, const struct fabric *fa, const struct rt_routing *a,
		 const struct rt_routing *b, struct rt_routing ***steps, unsigned *nsteps,
		 struct fab_err *err);
void ftdlr_stages_free(struct rt_routing **steps, unsigned n);

/* LIDs in an LFT block (what one SMP writes). */
#define FTDLR_BLOCK 64u

/**
 * struct ftdlr_pent - an entry the move changes
 * @sw: the switch (of @f), @asw: the same switch in @fa (FAB_NONE: new)
 * @lid: the LID
 * @first: the step from which it holds @b's entry
 * @before: what it holds in the steps before: @a's entry, or RT_NO_PORT
 *          where the LID breaks before make
 */
struct ftdlr_pent {
	uint32_t sw, asw, lid, first;
	uint8_t before;
};

/**
 * struct ftdlr_plan - ftdlr_stages()'s steps without their copies of the
 * tables: what a writer needs, in time and memory of the changes alone
 * @nsteps: steps (the last holds @b's LFTs)
 * @n: entries that change (those ftdlr_stages() orders), @ent: by switch, then LID
 */
struct ftdlr_plan {
	unsigned nsteps;
	size_t n;
	struct ftdlr_pent *ent;
};

/** ftdlr_plan() - ftdlr_stages()'s move from @a to @b as a plan. Return: 0, or -1 with @err. */
int ftdlr_plan(const struct fabric *f, const struct fabric *fa, const struct rt_routing *a,
	       const struct rt_routing *b, struct ftdlr_plan *p, struct fab_err *err);
void ftdlr_plan_free(struct ftdlr_plan *p);
/**
 * ftdlr_plan_block() - the LFT block of the entries of @p from @i on that
 * share entry @i's switch and block, at step @k: @b's block with the
 * entries of the steps before theirs; for @k < 0 @a's, what the switches
 * held before the move (entries @a holds for LIDs no endpoint of @fa owns
 * included, as they are)
 * @out: the block's 64 entries, RT_NO_PORT past the table
 * Return: the index of the next block's first entry (@p->n after the last)
 */
size_t ftdlr_plan_block(const struct ftdlr_plan *p, const struct rt_routing *a,
			const struct rt_routing *b, size_t i, int k, uint8_t out[FTDLR_BLOCK]);

#endif
