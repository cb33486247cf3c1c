/* SPDX-License-Identifier: MIT */
/*
 * Private to ftdlr.c and ftdlr_repair.c: one repair's state. Switches are
 * indexed as in the base fabric (struct ft_model of the base); a dead
 * switch has no index in the current fabric.
 */
#ifndef FABROUTE_FTDLR_IMPL_H
#define FABROUTE_FTDLR_IMPL_H

#include <pthread.h>

#include "engines/ftdlr/ftdlr.h"
#include "engines/ftree/ftree.h"

#define FD_NONE UINT32_MAX
#define FD_UNSET (UINT32_MAX - 1)

/**
 * struct fd - one repair
 * @bf, @br, @cf: base fabric and routing, current fabric
 * @r: the repaired routing (for @cf)
 * @m: the base as a fat tree
 * @nsw: base switches
 * @cur: per base switch, its index in @cf (FD_NONE: dead)
 * @plink: per base port slot, the model link leaving by it (FD_NONE: none)
 * @p0, @np: per base switch, its port 0's slot and its ports
 * @hop: per base port slot, the switch its link leads to while both ends
 *       and the link live (FD_NONE: none)
 * @alive: per model link, the cable is still there
 * @label: per base switch above the leaves, its label: the rank of the up
 *         port by which each of its children reaches it
 * @col: per base switch above the leaves, its column (see ftdlr.c)
 * @dirt: per (column, label), dead down-links of live switches with that
 *        label plus dead switches with it; 0: clean
 * @kmax: labels per column (the most up ports of any switch)
 * @clean: per column, some label of it is clean
 * @ustar: per base switch y, the upper switch detours to y go through
 * @wsel: per model down link x->y, the U-turn switch w of its detour
 * @lstar: per dead base switch, the label its detours turn to
 * @turning: per base switch, some switch LID's base path U-turns there
 *            (sftree's subtree root and the ancestors its pairs turn at)
 * @scope: enum ftdlr_scope
 * @row, @fixed, @mark, @dist, @stack: per base switch, for the LID at hand
 * @bcol: per base switch, the base's entry for the LID at hand (its column,
 *        read once: the rows lie far apart)
 * @need: per LID, some live switch's base entry for it crosses a dead link:
 *        the LIDs the repair reads and rewrites (fd_need())
 * @sw_broken: per LID, a switch LID the rule left some switch without a way to
 * @sw_touched: per LID, a switch LID the repair changed
 * @sn: the base's subtree root when its switch paths turn through one
 *      (sftree's sn, ftdlr_sn.c), else FD_NONE
 * @snlid: @sn's LID
 * @ud: per base switch, towards the switch @ud_sw (the LID at hand's): its
 *      class (ftdlr_sn.c); @ud_kept: the base's, kept in the memo
 * @udc: per base switch d, @ud towards d once worked out (NULL: not yet);
 *       @udc_bytes, what they hold, @udc_max, the most they may
 * @dead, @ndead: the base switches with an up link dead in the current
 *                fabric (a dead switch's included): the dead links' lower ends
 * @qpos, @qsw, @qnew, @nq: the switches whose entries the subtree rule may
 *                          set otherwise than on the base (ftdlr_quick.c):
 *                          per base switch 1 + its place in @qsw, else 0;
 *                          per place, the entry it sets for the LID at hand;
 *                          @nq of them for every LID, @nqd for the LIDs of
 *                          switch @qd_sw (@qd_ok: not too many)
 * @snway: per base switch, its entry towards @sn in the repair (RT_NO_PORT: none)
 * @anchor: per base switch, that entry and the next ones only go down to @sn
 * @sw_updown: the base turns no path and runs switch destinations on the
 *             CAs' VL (ftree): switch LIDs are repaired as CA LIDs are
 * @chg: per live switch, a bit per 64-LID block where the repair wrote an
 *       entry other than the base's (@nblk64 blocks; fd_put_columns())
 * @recount: entries were written besides fd_put_columns(): the figures
 *           compare every table with the base's
 * @rows_lock: while threads repair LIDs, held to make a row of @r its own
 *             (fd_row()); NULL otherwise
 * @st: the figures
 * @keep: what is kept of the base between repairs (NULL: nothing); @m is
 *        its model then (@m_kept: not freed with the rest)
 */
struct fd {
	const struct fabric *bf, *cf;
	struct fd_memo *keep;
	int m_kept;
	const struct rt_routing *br;
	struct rt_routing *r;
	struct ft_model m;
	uint32_t nsw;
	uint32_t *cur;
	uint32_t *plink;
	uint32_t *p0, *hop;
	uint8_t *np;
	uint8_t *alive;
	uint8_t *label;
	uint32_t *col;
	uint16_t *dirt;
	uint8_t *clean;
	uint32_t kmax, ncols;
	uint32_t *ustar, *wsel, *lstar;
	uint8_t *turning;
	enum ftdlr_scope scope;
	uint8_t *row, *fixed, *mark, *bcol;
	uint32_t *dist, *stack;
	uint8_t *need;
	uint8_t *sw_broken, *sw_touched;
	uint32_t sn;
	unsigned snlid;
	uint8_t *ud, *snway, *anchor;
	uint32_t ud_sw;
	int ud_kept;
	uint32_t *qpos, *qsw, nq, nqd, qd_sw;
	int qd_ok;
	uint8_t *qnew;
	uint8_t **udc;
	size_t udc_bytes, udc_max;
	uint32_t *dead, ndead;
	int sw_updown;
	uint64_t *chg;
	uint32_t nblk64;
	int recount;
	pthread_mutex_t *rows_lock;
	struct ftdlr_stats st;
};

/* The destination of the LID at hand, in base switch indexes. */
struct dst {
	unsigned lid;
	uint32_t sw;		/* the switch owning the LID, or the CA's leaf */
	uint8_t port;		/* 0 for a switch LID, else the leaf's port to the CA */
	int is_switch;
};

/* Per switch, for one LID: what fd_resolve() found. */
enum { MK_UNKNOWN = 0, MK_BUSY, MK_OK, MK_FAIL };

/* The model link of base switch @s leaving by port @p, FD_NONE if none. */
static inline uint32_t fd_link(const struct fd *x, uint32_t s, unsigned p)
{
	if (p < 1 || p > x->np[s])
		return FD_NONE;
	return x->plink[x->p0[s] + p];
}

/* The live switch base switch @s reaches by port @p over a live link, FD_NONE if none. */
static inline uint32_t fd_hop(const struct fd *x, uint32_t s, unsigned p)
{
	if (p < 1 || p > x->np[s])
		return FD_NONE;
	return x->hop[x->p0[s] + p];
}

/* The most threads a repair uses. */
#define FD_THREADS_MAX 8u

/* LIDs whose columns are read and written at once (ftdlr_cols.c). */
#define FD_COLS 64u

/**
 * fd_columns() - @col[j * nsw + s] := the base's entry of switch @s for
 * @lid[j], j < @n (LIDs in increasing order), read row by row
 */
void fd_columns(const struct fd *x, const unsigned *lid, uint32_t n, uint8_t *col);

/** fd_changes_init() - x->chg for the LFTs' length. Return: 0, or -1 when out of memory. */
int fd_changes_init(struct fd *x);

/**
 * fd_put_columns() - write the entries of the repaired columns @col (as
 * fd_columns() lays them out) of LIDs @lid[0..@n) that differ from the
 * base's (@base, the same layout) into x->r, counted into x->st and x->chg
 * Return: 0, or -1 when out of memory.
 */
int fd_put_columns(struct fd *x, const unsigned *lid, uint32_t n, const uint8_t *base,
		   const uint8_t *col);
/** fd_row() - current switch @c's row of x->r to write (rt_row_own()); NULL when out of memory */
uint8_t *fd_row(struct fd *x, uint32_t c);

/** fd_count_changes() - x->st's switches and blocks changed (and entries with x->recount). */
void fd_count_changes(struct fd *x);
/**
 * fd_changed_switches() - the switches (index in x->r) whose table differs
 * from the base's, into a new array *@list of *@n. Return: 0, or -1 when
 * out of memory.
 */
int fd_changed_switches(const struct fd *x, uint32_t **list, size_t *n);

/**
 * fd_make_frame() - x->r: the repaired routing's frame, the base's tables
 * for the current fabric, shared with the base (ftdlr_frame.c)
 * Return: 0, or -1 when out of memory.
 */
int fd_make_frame(struct fd *x);

/**
 * struct fd_memo - what ftdlr keeps of a base between its repairs (struct
 * eng_memo's data; ftdlr_memo.c): functions of the base alone
 * @m: the base's fat-tree model (@m.f NULL: not made yet)
 * @turning: per base switch, a turning switch (NULL: not found yet)
 * @ud_ok: per LID, its paths checked up*down* (fd_updown_check()); @ud_all:
 *          every CA LID's checked ahead of the repairs (or found not to be
 *          up*down*), those below @ud_next so far
 * @ud_base: [d * switches + s], switch s's class towards d on the base
 *           fabric (ftdlr_sn.c; NULL: not made, or over FD_UDB_MAX bytes);
 *           @ud_tried: made, or found not to be needed; @ud_build, @ud_sw:
 *           ud_base while it is made, its rows below @ud_sw so far
 * @rule_base: per LID, the subtree rule on the base fabric gives the base's
 *             entries and every switch delivers (ftdlr_quick.c; NULL: not
 *             known), with @snway0, @anchor0: the base's ways to sn;
 *             @rb_tried: made, or found not to apply; the LIDs below
 *             @rb_next made so far
 * @lft_len: @ud_ok's length
 */
struct fd_memo {
	struct ft_model m;
	uint8_t *turning;
	uint8_t *ud_ok;
	int ud_all;
	uint32_t ud_next;
	uint8_t *ud_base, *ud_build;
	int ud_tried;
	uint32_t ud_sw;
	uint8_t *rule_base, *snway0, *anchor0;
	int rb_tried;
	uint32_t rb_next;
	uint8_t *label;
	uint32_t *col, kmax, ncols;
	uint32_t lft_len;
};

/* LIDs whose up*down* paths the prepare hook checks between two looks at its stop. */
#define FD_UDA_RUN 512u
/* The most bytes of the base's switch classes kept (switches squared). */
#define FD_UDB_MAX (64u << 20)
/* Switches whose classes the prepare hook works out between two looks at its stop. */
#define FD_UDB_RUN 64u

/**
 * fd_memo_for() - the memo of base (@bf, @br) in @memo: the one there when
 * ftdlr made it for this base, else a new empty one in its place
 * Return: the memo, NULL when @memo is NULL or out of memory.
 */
struct fd_memo *fd_memo_for(struct eng_memo *memo, const struct fabric *bf,
			    const struct rt_routing *br);
/**
 * fd_memo_unchecked() - x->need[] without the LIDs x->keep knows are
 * up*down* (malloc'd, for fd_updown_check()); NULL when out of memory
 */
uint8_t *fd_memo_unchecked(const struct fd *x);
/** fd_memo_checked() - the LIDs of @chk are up*down*: kept in x->keep. */
void fd_memo_checked(struct fd *x, const uint8_t *chk);

/**
 * fd_need() - x->need[] from the base's rows of the switches with a dead
 * link (ftdlr_repair.c). Return: 0, or -1 when out of memory.
 */
int fd_need(struct fd *x);

/**
 * fd_updown_quick() - every CA LID of the base that the repair rewrites
 * (x->need[]) routed over up*down* paths (or not at all), checked a block
 * of LIDs at a time (ftdlr_updown.c)
 * Return: 0 when so, -1 when unsure (a bad path, or out of memory): the
 * LID-by-LID check decides then.
 */
int fd_updown_quick(const struct fd *x);
/**
 * fd_updown_check() - every CA LID the repair rewrites (x->need) routed
 * over up*down* paths in the base, those the memo knows checked left out
 * (ftdlr_updown.c). Return: ENG_OK; ENG_NOT_APPLICABLE with @err naming the
 * first switch whose path is not; ENG_ERROR (memory).
 */
int fd_updown_check(struct fd *x, struct fab_err *err);
/**
 * fd_updown_prepare() - the prepare hook's share: every LID of the base
 * checked ahead of its repairs, once per base, a run of LIDs at a time
 * until *@stop (struct engine.prepare). 0 when done, 1 when stopped, -1
 * when out of memory.
 */
int fd_updown_prepare(struct fd *x, const int *stop);

/* Model link @e of base switch @s goes up. */
static inline int is_up_link(const struct fd *x, uint32_t s, uint32_t e)
{
	return e < ft_first(&x->m, s, FT_DOWN);
}

static inline int fd_dead(const struct fd *x, uint32_t s)
{
	return x->cur[s] == FD_NONE;
}

/* Dirt of the label of base switch @s in its column. */
static inline unsigned fd_dirt(const struct fd *x, uint32_t s)
{
	return x->dirt[(size_t)x->col[s] * x->kmax + x->label[s]];
}

/* The rank of label @l in column @col as one total order: lower is higher. */
static inline uint64_t fd_rank_of(const struct fd *x, uint32_t col, uint32_t l)
{
	return (uint64_t)x->dirt[(size_t)col * x->kmax + l] << 16 | l;
}

/* The rank of @s's label in its column. */
static inline uint64_t fd_rank(const struct fd *x, uint32_t s)
{
	return fd_rank_of(x, x->col[s], x->label[s]);
}

/*
 * A U-turn from upper switch @c to upper switch @q (same column) keeps the
 * rule: @q's label is clean, or, when the column has no clean label left
 * (beyond k - 1 faults), ranks above @c's. Going to clean labels only, a
 * repair and the next one (a fault more or less changes one label's dirt)
 * turn in one order together: their union is acyclic too.
 */
static inline int fd_uturn_ok(const struct fd *x, uint32_t c, uint32_t q)
{
	if (!fd_dirt(x, q))
		return 1;
	return !x->clean[x->col[q]] && fd_rank(x, q) < fd_rank(x, c);
}

/* @p delivers at switch @s. */
static inline int fd_delivers(const struct dst *d, uint32_t s, uint8_t p)
{
	return s == d->sw && p == d->port;
}

/**
 * fd_resolve() - x->mark[] := MK_OK or MK_FAIL for every live switch,
 * following x->row[] towards @d (ftdlr_repair.c)
 */
void fd_resolve(struct fd *x, const struct dst *d);

/**
 * fd_bfs() - x->dist[] := hops from every switch to @d's switch over live
 * links, UINT32_MAX where none (ftdlr_repair.c)
 */
void fd_bfs(struct fd *x, const struct dst *d);

/**
 * fd_sn_find() - x->sn: the subtree root the base turns its switch paths
 * through, if any, and x->sw_updown (ftdlr_sn.c). Return: 0, or -1 when
 * out of memory.
 */
int fd_sn_find(struct fd *x);

/**
 * fd_sn_ways() - x->snway[] and x->anchor[] from the entries of @r (the
 * repair's, or the base's) towards x->sn (ftdlr_sn.c)
 */
void fd_sn_ways(struct fd *x, const struct rt_routing *r);

/**
 * fd_sn_ud() - x->ud[] towards @d's switch: the base's, kept in the memo,
 * where the faults leave it as it was (x->ud_kept); else worked out once
 * per switch (the LIDs of its CAs, and LIDs repaired in any order, share
 * it), up to x->udc_max bytes kept; classify() again beyond (ftdlr_sn.c)
 */
void fd_sn_ud(struct fd *x, const struct dst *d);

/**
 * fd_sn_entry() - the entry of live switch @s towards @d by the subtree
 * rule (ftdlr_sn.c's DOC comment; x->bcol[@s] and x->ud[] set); RT_NO_PORT: none
 */
uint8_t fd_sn_entry(const struct fd *x, const struct dst *d, uint32_t s);

/**
 * fd_sn_lid() - repair @d's entries in x->row[] (the base's on entry, as in
 * x->bcol[]) by the subtree rule (ftdlr_sn.c). Return: 1 when every live
 * switch the base routed towards @d and that still has a way there reaches
 * it, else 0 (x->row[] then undefined).
 */
int fd_sn_lid(struct fd *x, const struct dst *d);

/**
 * fd_find_dst() - the destination owning @lid in the current fabric, in
 * base switch indexes (ftdlr_lids.c). Return: 0 when it is gone.
 */
int fd_find_dst(const struct fd *x, unsigned lid, struct dst *d);

/**
 * fd_quick_prepare() - with x->cf the base and its classes kept, which
 * LIDs the subtree rule leaves as the base routes them, kept in x->keep
 * (ftdlr_quick.c), FD_COLS LIDs at a time until *@stop. Return: 0 when
 * done, 1 when stopped, -1 when out of memory.
 */
int fd_quick_prepare(struct fd *x, const int *stop);

/* The caller of the prepare hook wants it to stop (struct engine.prepare). */
static inline int fd_stopped(const int *stop)
{
	return stop && __atomic_load_n(stop, __ATOMIC_RELAXED);
}
/**
 * fd_quick_init() - after sn's own LID is repaired: the switches where the
 * rule may differ from the base (ftdlr_quick.c). 0, or -1 (memory).
 */
int fd_quick_init(struct fd *x);
/**
 * fd_quick() - repair @d by the subtree rule at those switches alone,
 * straight into the tables, when that is exactly fd_sn_lid()'s repair.
 * Return: 1 when done, 0 when @d needs fd_repair_lid(), -1 when out of memory.
 */
int fd_quick(struct fd *x, const struct dst *d);

/** fd_sn_updown() - sn has an up*down* path to the LID at hand (x->ud[] set): its class is not NO. */
int fd_sn_updown(const struct fd *x);

/**
 * fd_sn_gives_base() - on the base fabric (x->cf the base), the subtree
 * rule gives @d the base's column @bcol and every switch delivers, without
 * sn's way taken backwards (ftdlr_sn.c)
 */
int fd_sn_gives_base(struct fd *x, const struct dst *d, const uint8_t *bcol);

/**
 * fd_sn_prepare() - when the base turns through a subtree root, its
 * switch classes towards every switch on the base fabric (x->cf is the
 * base), kept in x->keep for repairs to start from once all are made,
 * FD_UDB_RUN switches at a time until *@stop (struct engine.prepare)
 * Return: 0 when done, 1 when stopped, -1 when out of memory.
 */
int fd_sn_prepare(struct fd *x, const int *stop);

/**
 * fd_switch_sl() - the SL the base runs every pair towards a switch on when
 * no pair towards a CA uses it (ftdlr_vl.c): 0 when there is none
 */
unsigned fd_switch_sl(const struct fd *x);

/**
 * fd_repair_lid() - repair @d from the base's column @bcol into @out (ftdlr_repair.c):
 * x's scratch and memos change, nothing else of x but sw_broken[@d's LID] and the counts
 */
void fd_repair_lid(struct fd *x, const struct dst *d, const uint8_t *bcol, uint8_t *out);

/** fd_threads() - the threads a repair uses for @threads (0: the online CPUs), at most FD_THREADS_MAX. */
unsigned fd_threads(unsigned threads);

/**
 * fd_repair_lids() - repair every LID that needs it (ftdlr_lids.c) into
 * x->r, which holds the base's entries, in up to @threads threads (0: the
 * online CPUs). Return: 0, or -1 when out of memory.
 */
int fd_repair_lids(struct fd *x, unsigned threads);

/**
 * fd_vls() - once something was repaired: the switch LIDs the repair left
 * without a way taken from a full recompute; with switch destinations on
 * a VL of their own, that VL checked acyclic (ftdlr_vl.c). Return: 0, or
 * -1 with @err.
 */
int fd_vls(struct fd *x, struct fab_err *err);

#endif
