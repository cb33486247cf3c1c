/* SPDX-License-Identifier: MIT */
/*
 * Private to analysis/dest*.c: one thread's scratch for the passes over
 * destinations, and what the files of those passes share.
 */
#ifndef FABROUTE_ANALYSIS_DEST_IMPL_H
#define FABROUTE_ANALYSIS_DEST_IMPL_H

#include "analysis/internal.h"

#define AN_CHUNK 32u
/* Most LIDs whose LFT columns a chunk copies out (LIDs x switches bytes). */
#define AN_TSPAN 128u

/* Destinations a block of analysis/dest_block.c takes at once. */
#define AN_BLOCK 32u
/* Most endpoints for the block pass: a switch's sums towards a destination fit in 16 bits. */
#define AN_BLOCK_EPS 65536u

enum { RS_NEW = 0, RS_ACTIVE = 1, RS_DONE = 2 };

/**
 * struct an_blk - the scratch of analysis/dest_block.c: rows of one entry
 * per switch, one row per destination of the block ([j * switches + s])
 * @c: the switch's step (the next switch, or where the packet ends)
 * @fl: the pairs out of the port it leaves by towards the destination:
 *      all in the low 16 bits, CA-to-CA in the high ones
 * @o: the LFT entry
 * @dep: the channel marked and its dependency
 * @up: with struct an_work.rows, as struct an_rows.up
 * @r, @settled, @nsettled: one destination at a time: per switch its
 *                          state, step, result and hops; the delivering
 *                          switches in the order they were settled
 */
struct an_blk {
	uint16_t *c;
	uint32_t *fl;
	uint8_t *o, *dep;
	uint16_t *up;
	uint32_t *r, *settled;
	uint32_t nsettled;
};

/*
 * One DLID over every switch: the steps, the settled results, and the
 * delivering switches in the order they were settled (each after the
 * switch its packets go to next).
 */
struct fwdv {
	uint8_t *out, *sres, *nin, *res;
	uint32_t *nxt;
	uint16_t *hops;
	uint32_t *settled;
	uint32_t nsettled;
	int ready;
};

/**
 * struct an_work - one thread's scratch
 * @fw: per LID offset of the destination's range
 * @rstate, @stack: settling the functional graph
 * @acc_all, @acc_ca: the load push
 * @stamp, @mask, @trail, @group: the CDG walks
 * @tcol, @tlo, @tspan: the LFT columns of LIDs @tlo .. @tlo + @tspan - 1,
 *                      one after the other (@tspan 0: none)
 * @keys: per-pair routings: (LID offset * RT_SLS + SL) per source, one row
 *        per destination of the chunk
 * @kany: per destination of the chunk, whether a source other than itself
 *        has a key other than 0 (none: counted as without per-pair tables)
 * @rows: where the block pass keeps its rows (NULL: not kept)
 * @blk: with struct an_plan.fast, the block pass's scratch
 * @sorted, @kcount: sources sorted by key
 * @gent, @gidx, @gstamp, @gseq: walk starts of one key
 */
struct an_work {
	const struct an_plan *p;
	struct an_acc *acc;
	uint16_t *dhops;
	uint8_t *dfail;
	const struct an_rows *rows;
	struct fwdv *fw;
	uint8_t *rstate;
	uint32_t *stack;
	uint32_t *acc_all, *acc_ca;
	uint32_t *stamp;
	uint16_t *mask;
	uint32_t *trail;
	uint32_t group;
	uint8_t *tcol;
	uint32_t tlo, tspan;
	uint16_t *keys;
	uint16_t kany[AN_CHUNK];
	uint32_t *sorted, *kcount;
	struct an_entry *gent;
	uint32_t *gidx, *gstamp;
	uint32_t gseq;
	struct an_blk blk;
};

/** an_dest_tally() - @n pairs of class @k with result @res. */
void an_dest_tally(struct an_acc *a, enum an_class k, uint64_t n, enum an_fail res);
/**
 * an_dest_conn_rest() - after the switches' sources towards @d (failing
 * classes @fails, longest path @maxh): the direct sources, the facts kept
 * per destination, and the examples while they can enter.
 */
void an_dest_conn_rest(struct an_work *w, uint32_t d, uint8_t fails, uint32_t maxh);
/** an_dest_push() - push w->acc_all and w->acc_ca along @v into the per-port sums. */
void an_dest_push(struct an_work *w, const struct fwdv *v);
/** an_dest_fast() - connectivity, load and CDG towards @d in one pass (struct an_plan.fast). */
void an_dest_fast(struct an_work *w, uint32_t d);
/** an_dest_fwd() - LID offset @off of @dst resolved over every switch (once per destination). */
const struct fwdv *an_dest_fwd(struct an_work *w, uint32_t dst, unsigned off);
/** an_dest_cdg_counts() - the CDG walks towards @d, from the plan's walk starts. 0 or -1 (memory). */
int an_dest_cdg_counts(struct an_work *w, uint32_t d);
/** an_dest_cdg_pairs() - the same with per-pair keys (w->sorted sorted by @key). 0 or -1. */
int an_dest_cdg_pairs(struct an_work *w, uint32_t d, const uint16_t *key);

int an_blk_init(struct an_blk *b, uint32_t nsw);
void an_blk_fini(struct an_blk *b);
/** an_dest_block_fits() - @d can go through an_dest_block() (struct an_plan.block, a LID in the tables). */
int an_dest_block_fits(const struct an_plan *p, uint32_t d);
/**
 * an_dest_block() - connectivity, load and CDG towards @d[0..@m) (@m at
 * most AN_BLOCK, all an_dest_block_fits()), as an_dest_fast() or the
 * three passes of analysis/dest.c would count them
 * Return: 0, or -1 when out of memory.
 */
int an_dest_block(struct an_work *w, const uint32_t *d, uint32_t m);
/*
 * A row's mark (struct an_blk.dep): AN_DEP_NONE, no channel; 0, the
 * channel alone; a port, the channel and its dependency on the channel the
 * next switch leaves by through that port.
 */
#define AN_DEP_NONE 0xffu
/**
 * an_dest_block_rows() - an_dest_block() but the marks and per-port sums:
 * the connectivity, the per-destination facts and the per-switch
 * deliveries go to w->acc as there; row j of w->blk (o, dep, and fl with
 * the load) holds what destination @d[j] adds per switch, for the caller
 * to count (analysis/reeval_block.c counts the differences)
 */
void an_dest_block_rows(struct an_work *w, const uint32_t *d, uint32_t m);
/**
 * an_dest_block_gather() - an_dest_block_rows() in two steps: first the
 * LFT entries (struct an_blk.o) and steps (.c) of rows [0, @m), which
 * the caller may read before it settles any ...
 */
void an_dest_block_gather(struct an_work *w, const uint32_t *d, uint32_t m);
/**
 * an_dest_block_gather_like() - an_dest_block_gather() when @like has
 * gathered the same destinations on tables and links that differ from
 * @w's only at the switches @sw[0..@nsw_diff): its rows, but those read
 */
void an_dest_block_gather_like(struct an_work *w, const struct an_work *like, const uint32_t *d,
			       uint32_t m, const uint32_t *sw, uint32_t nsw_diff);
/**
 * an_dest_block_settle() - ... then the rows @rows[0..@n) (row j for
 * destination @d[j]), counted into w->acc as an_dest_block_rows() counts
 */
void an_dest_block_settle(struct an_work *w, const uint32_t *d, const uint32_t *rows, uint32_t n);
/** an_dest_block_keep() - rows [0, @m) of w->blk (row j for destination @d[j]) into w->rows. */
void an_dest_block_keep(const struct an_work *w, const uint32_t *d, uint32_t m);
/**
 * an_dest_block_step() - the step (struct an_blk.c) of switch @s whose LFT
 * entry is @port, towards destination @d, delivered at switch @at (the
 * destination itself, or the switch it is on), as the gather sets it
 */
uint16_t an_dest_block_step(const struct an_plan *p, uint32_t s, uint8_t port, uint32_t d,
			    uint32_t at);

static inline int an_dest_is_ca(const struct fabric *f, uint32_t ep)
{
	return f->nodes[f->eps[ep].node].type == FAB_CA;
}

#endif
