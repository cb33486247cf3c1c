/* SPDX-License-Identifier: MIT */
/*
 * papers/001's estimate of the packets a subnet manager's reconfiguration
 * loses per link fault (L1597-1645), as arithmetic: the time the tables
 * take to arrive, in the simulator's cycles, times the packet rate of one
 * link. bench/bench_ftdlr.c applies it to measured trap-to-last-LFT-write
 * times; tests/unit/test_ftdlr.c checks it against the paper's figures.
 */
#ifndef FABROUTE_BENCH_FTDLR_LOSS_H
#define FABROUTE_BENCH_FTDLR_LOSS_H

/* The paper's clock: 0.03 s "corresponds to approximately 58593 cycles". */
#define LOSS_CYCLES_PER_S 1953125.0

/**
 * struct loss_tree - the traffic of a saturated 4-ary 3-tree
 * @accepted: packets accepted per cycle by the whole network (Fig. 9: 18)
 * @nodes: end nodes (64); a bottom-tier link per node and direction
 * @up_share: share of the packets that cross the top tier (3/4: destinations
 *            outside the source's 16-node subtree)
 */
struct loss_tree {
	double accepted;
	double nodes;
	double up_share;
};

/* Packets per cycle on one bottom-tier link: every packet crosses two (up and down). */
static inline double loss_rate_bottom(const struct loss_tree *t)
{
	return 2.0 * t->accepted / t->nodes;
}

/* Packets per cycle on one top-tier link. */
static inline double loss_rate_top(const struct loss_tree *t)
{
	return 2.0 * t->accepted * t->up_share / t->nodes;
}

/* Whole cycles in @seconds. */
static inline double loss_cycles(double seconds)
{
	return (double)(long long)(seconds * LOSS_CYCLES_PER_S);
}

/* Packets lost on a link carrying @rate packets per cycle while @seconds pass. */
static inline double loss_packets(double seconds, double rate)
{
	return loss_cycles(seconds) * rate;
}

#endif
