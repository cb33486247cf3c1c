/* SPDX-License-Identifier: MIT */
/**
 * DOC: fat-tree model shared by ftree and sftree (private to engines/)
 *
 * struct ft_model is the fabric seen as a fat tree: every switch's level
 * (1 for switches with CAs attached, then BFS distance + 1 through the
 * switches, as fab_shape() computes it), and its switch-to-switch ports
 * sorted into up ports (to level + 1), down ports (to level - 1) and
 * sibling ports (horizontal links between two leaves: multi-core trees,
 * rack-switch pairs). ftree_model.c builds it and says, in words a user
 * can read, why a fabric is not a fat tree; ftree.c routes it.
 */
#ifndef FABROUTE_FTREE_H
#define FABROUTE_FTREE_H

#include <stdint.h>

#include "engines/engine.h"

enum ft_dir {
	FT_UP = 0,
	FT_DOWN = 1,
	FT_SIB = 2,
};

/**
 * struct ft_link - one switch-to-switch port, seen from its switch
 * @peer: switch index at the other end
 * @back: index (in struct ft_model.links) of the same cable seen from @peer
 * @port: port number on this switch
 * @peer_port: port number on @peer
 */
struct ft_link {
	uint32_t peer;
	uint32_t back;
	uint8_t port;
	uint8_t peer_port;
};

/**
 * struct ft_model - a fabric as a fat tree
 * @f: the fabric (not owned)
 * @nsw: switches
 * @level: per switch, its level; 0 for switches no leaf reaches (ignored)
 * @nlevels: highest level (the roots' level when the tree is intact)
 * @order: switches of level >= 1 sorted by level, then index
 * @lvl_off: switches of level l are order[lvl_off[l] .. lvl_off[l + 1]),
 *           l = 1..@nlevels
 * @off: links of switch s: up ports links[off[3s] .. off[3s+1]), down
 *       ports [off[3s+1] .. off[3s+2]), sibling ports [off[3s+2] .. off[3s+3]),
 *       each group in port order
 * @links: all of them
 * @nlinks: their count (each cable appears twice)
 * @nleaves, @nroots: switches with CAs; switches of level >= 2 without up port
 * @nsib: sibling cables
 * @nignored: switches no leaf reaches
 * @cn: per port slot, 1 for a compute node (cn_guid_file, io_guid_file);
 *      NULL: every CA and router port is one (not owned)
 */
struct ft_model {
	const struct fabric *f;
	uint32_t nsw;
	uint32_t *level;
	uint32_t nlevels;
	uint32_t *order;
	uint32_t *lvl_off;
	uint32_t *off;
	struct ft_link *links;
	uint32_t nlinks;
	uint32_t nleaves, nroots, nsib, nignored;
	const uint8_t *cn;
};

static inline uint32_t ft_first(const struct ft_model *m, uint32_t s, enum ft_dir d)
{
	return m->off[3 * s + d];
}

static inline uint32_t ft_end(const struct ft_model *m, uint32_t s, enum ft_dir d)
{
	return m->off[3 * s + d + 1];
}

/**
 * struct ft_hints - OpenSM's GUID files for ftree and sftree (ftree_hints.c)
 * @root: per switch, 1 when root_guid_file names it; NULL when none does
 * @nroots: switches root_guid_file names; @root_guids: GUIDs it holds
 * @cn: per port slot, 1 for a compute node; NULL without cn_guid_file and
 *      io_guid_file
 * @cn_file: cn_guid_file was given; @cn_given, @io_given: CA ports each file
 *           names; @ncn, @nio: compute and I/O nodes
 */
struct ft_hints {
	uint8_t *root;
	uint32_t nroots;
	size_t root_guids;
	uint8_t *cn;
	int cn_file;
	uint32_t cn_given, io_given, ncn, nio;
};

/** The options of the three files, for the engines' option tables. */
#define FT_HINT_OPTIONS \
	{ .name = "root_guid_file", .type = ENG_OPT_FILE, .defval = "", \
	  .help = "OpenSM's root_guid_file: root switches by node GUID, one a line; levels are " \
	  "counted down from them", .check = eng_check_guids }, \
	{ .name = "cn_guid_file", .type = ENG_OPT_FILE, .defval = "", \
	  .help = "OpenSM's cn_guid_file: compute node port GUIDs; other CA ports are routed " \
	  "after them, outside the leaves' balance", .check = eng_check_guids }, \
	{ .name = "io_guid_file", .type = ENG_OPT_FILE, .defval = "", \
	  .help = "OpenSM's io_guid_file: I/O node port GUIDs, routed as non-compute nodes " \
	  "(no reverse hops: OpenSM's default max_reverse_hops 0)", .check = eng_check_guids }

/**
 * ft_hints_init() - read the three files of @a for fabric @f
 * Return: ENG_OK, ENG_NOT_APPLICABLE (no compute node left) or ENG_ERROR,
 * with @err set; @h needs ft_hints_free() only after ENG_OK.
 */
int ft_hints_init(struct ft_hints *h, const struct fabric *f, const struct eng_args *a,
		  struct fab_err *err);
void ft_hints_free(struct ft_hints *h);
/**
 * ft_hint_levels() - the switches' levels as the files set them (from the
 * roots, else up from the compute nodes' switches), into @sh's level and
 * nlevels. Return: ENG_OK, ENG_NOT_APPLICABLE or ENG_ERROR with @err.
 */
int ft_hint_levels(const struct fabric *f, const struct ft_hints *h, struct fab_shape *sh,
		   struct fab_err *err);
/** ft_hints_note() - "; compute nodes: ..." for the notes ("" without files); its length. */
int ft_hints_note(const struct ft_hints *h, char *buf, size_t len);

/**
 * ft_model_init_hints() - ft_model_init() with OpenSM's GUID files (@h may
 * be NULL); @m keeps @h->cn, which must outlive it.
 */
int ft_model_init_hints(struct ft_model *m, const struct fabric *f, const struct ft_hints *h,
			struct fab_err *err);

/**
 * ft_model_init() - analyse @f as a fat tree
 * Return: ENG_OK with @m filled, ENG_NOT_APPLICABLE with @err saying why @f
 * is not a fat tree, or ENG_ERROR (out of memory). @m needs ft_model_fini()
 * only after ENG_OK.
 */
int ft_model_init(struct ft_model *m, const struct fabric *f, struct fab_err *err);
void ft_model_fini(struct ft_model *m);

/**
 * struct ft_up - switches grouped by up links, and the counters of ftree's
 * step 4b (ftree_up.c)
 * @m: the tree
 * @mem, @off, @ncls, @lvl: the switches with up links by class (switches of
 *      one level whose up links lead to the same peers through the same
 *      ports, in the same order): class c is mem[off[c] .. off[c + 1]),
 *      the classes of level l are lvl[l] .. lvl[l + 1] - 1
 * @least, @high, @mask, @uw: per member (a position in @mem), the least
 *        count of its up links, how many are two or more above it, and two
 *        bit sets (@uw words each, at mask[2 * uw * i]): the up links at
 *        the least count, the up links one above
 * @base, @cnt: the count of member i's up link j (0: the first), when it
 *              is in neither set, is cnt[base[i] + j] (ft_up_value())
 * @cand: scratch for the caller: up link positions, for ft_up_pick()
 */
struct ft_up {
	const struct ft_model *m;
	uint32_t *mem, *off, ncls, *lvl;
	uint32_t *base, *cnt;
	uint32_t *least, *high;
	uint64_t *mask;
	uint32_t uw;
	uint32_t *cand;
};

/**
 * ft_up_init() - sort the switches of @m into classes, all counts zero
 * Return: 0, or -1 when out of memory (@u needs no ft_up_fini() then).
 */
int ft_up_init(struct ft_up *u, const struct ft_model *m);
void ft_up_fini(struct ft_up *u);

/** ft_up_advance() - ft_up_count()'s slow path: member @i's first set ran empty */
void ft_up_advance(struct ft_up *u, uint32_t i);

/** ft_up_value() - the count of member @i's up link @j */
static inline uint32_t ft_up_value(const struct ft_up *u, uint32_t i, uint32_t j)
{
	const uint64_t *w = u->mask + (size_t)i * 2 * u->uw;

	if (w[j / 64] >> j % 64 & 1)
		return u->least[i];
	if (w[u->uw + j / 64] >> j % 64 & 1)
		return u->least[i] + 1;
	return u->cnt[u->base[i] + j];
}

/** ft_up_pick_some() - ft_up_pick() when not every up link is a candidate */
uint32_t ft_up_pick_some(const struct ft_up *u, uint32_t i, uint32_t n);

/**
 * ft_up_pick() - of the @n up link positions u->cand[0 .. @n) (ascending),
 * the one member @i counted the fewest entries through, the first on a tie
 */
static inline uint32_t ft_up_pick(const struct ft_up *u, uint32_t i, uint32_t n)
{
	uint32_t uw = u->uw, k = 0;
	const uint64_t *w = u->mask + (size_t)i * 2 * uw;

	if (n != u->base[i + 1] - u->base[i])
		return ft_up_pick_some(u, i, n);
	while (!w[k])
		k++;
	return 64 * k + (uint32_t)__builtin_ctzll(w[k]);
}

/**
 * ft_up_take_least() - ft_up_pick() and ft_up_count() of its pick when
 * every up link of member @i is a candidate: the lowest link at the least
 * count, counted. @w and @uw are u->mask + 2 * uw * i and u->uw, which the
 * caller keeps at hand. Return: its position.
 */
static inline uint32_t ft_up_take_least(struct ft_up *u, uint32_t i, uint64_t *w, uint32_t uw)
{
	uint32_t k = 0, j;

	while (!w[k])
		k++;
	j = (uint32_t)__builtin_ctzll(w[k]);
	w[k] &= w[k] - 1;
	w[uw + k] |= 1ull << j;
	if (!w[k]) {	/* the words before k are empty */
		uint32_t r = k + 1;

		while (r < uw && !w[r])
			r++;
		if (r == uw)
			ft_up_advance(u, i);
	}
	return 64 * k + j;
}

/**
 * ft_up_count() - count one more entry through up link @j of member @i
 */
static inline void ft_up_count(struct ft_up *u, uint32_t i, uint32_t j)
{
	uint32_t uw = u->uw, k;
	uint64_t *w = u->mask + (size_t)i * 2 * uw, *nx = w + uw;
	uint64_t bit = 1ull << j % 64, left;

	if (w[j / 64] & bit) {
		left = w[j / 64] &= ~bit;
		nx[j / 64] |= bit;
		for (k = 0; k < uw && !left; k++)
			left = w[k];
		if (!left)
			ft_up_advance(u, i);
	} else if (nx[j / 64] & bit) {	/* one above the least: now two */
		nx[j / 64] &= ~bit;
		u->high[i]++;
		u->cnt[u->base[i] + j] = u->least[i] + 2;
	} else {
		u->cnt[u->base[i] + j]++;
	}
}

/**
 * struct ft_dest - one destination of ftree's routing (ftree_dest.c)
 * @home: the switch it hangs off, or is
 * @port: the port of @home it is delivered through: 0 for the switch
 *        itself, RT_NO_PORT for a dummy
 * @hops: links from @home to it: 1 for a CA LID, 0 for a switch
 * @sibs: step 1 applies (not to dummies)
 * @paths: steps 2 and 3 apply (CA LIDs and dummies, not switches)
 * @lid: the LID whose LFT entries these are; 0: none are written
 * @chain, @nchain: @home and the switches of step 2 above it (room for
 *                  nlevels + 2), filled by the first stage
 */
struct ft_dest {
	uint32_t home;
	uint8_t port, sibs, paths;
	uint16_t hops, lid;
	uint32_t nchain;
	uint32_t *chain;
};

/**
 * struct ft_slot - per switch, for one destination: @state (the stages'
 * own), @oport (the LFT entry, RT_NO_PORT if none) and @hops (links to go);
 * per level, @filled: how many switches have an entry
 */
struct ft_slot {
	uint8_t *state, *oport;
	uint16_t *hops;
	uint32_t *filled;
};

/**
 * struct ft_offers - the ways offered to switches in a round of a stage
 * @stamp, @round: per switch, the round of its offers
 * @best, @bkey: per switch, the best offer: its counter slot and key
 * @cur, @next: switch lists
 */
struct ft_offers {
	uint32_t *stamp, *best;
	uint64_t *bkey;
	uint32_t round;
	uint32_t *cur, *next;
};

/**
 * struct ft_stage1 - the first stage: step 1's states, steps 2 and 3
 * @cnt_down: per up link: dedicated downward paths on its cable
 * @load: per switch: dedicated downward paths crossing it
 * @cnt_up: per down link: destinations its peer routed up through the
 *          cable (step 3)
 */
struct ft_stage1 {
	const struct ft_model *m;
	struct ft_offers o;
	uint32_t *cnt_down, *load, *cnt_up;
};

/**
 * struct ft_stage2 - the second stage: step 1's ports, step 4
 * @lport: per link, its port
 * @cnt_ext: per up link: destinations its peer routed down through the
 *           cable (step 4a)
 * @cnt_sec: per sibling link: entries through it (steps 1 and 4c)
 * @up: the classes and counters of step 4b
 * @dn, @ndn: the switches of state down, level l's in dn[lvl_off[l] ..
 *            lvl_off[l] + ndn[l])
 * @sibl, @nsibl: the leaves with sibling links
 */
struct ft_stage2 {
	const struct ft_model *m;
	struct ft_offers o;
	uint8_t *lport;
	uint32_t *cnt_ext, *cnt_sec;
	struct ft_up up;
	uint32_t *dn, *ndn;
	uint32_t *sibl, nsibl;
};

/** ft_stage1_init() - all counters zero; 0, or -1 when out of memory */
int ft_stage1_init(struct ft_stage1 *a, const struct ft_model *m);
void ft_stage1_fini(struct ft_stage1 *a);

/**
 * ft_stage1_run() - the first stage of destination @d into @sl (every
 * entry of @sl is set), @d's chain included
 */
void ft_stage1_run(struct ft_stage1 *a, struct ft_dest *d, const struct ft_slot *sl);

/** ft_stage2_init() - all counters zero; 0, or -1 when out of memory */
int ft_stage2_init(struct ft_stage2 *b, const struct ft_model *m);
void ft_stage2_fini(struct ft_stage2 *b);

/**
 * ft_stage2_run() - the second stage of destination @d (not a dummy),
 * over its first stage's @sl
 */
void ft_stage2_run(struct ft_stage2 *b, const struct ft_dest *d, const struct ft_slot *sl);

/**
 * ft_sw_name() - a switch's name for notes and reasons: its description,
 * with its GUID when other nodes share the description (fab_node_label())
 */
#define ft_sw_name(f, sw) FAB_LABEL((f), (f)->switches[sw])

/**
 * struct ft_stats - what the fat-tree routing did, for the notes
 * @ca_lids: CA and router LIDs routed as destinations
 * @dummies: phantom destinations routed to keep the counters of leaves
 *           with fewer CAs in step (counters only, no table entry)
 * @ca_holes: (source leaf CA, destination CA LID) pairs without any route
 * @sw_holes: (source switch, destination switch) pairs without any route
 */
struct ft_stats {
	uint32_t ca_lids;
	uint32_t dummies;
	uint64_t ca_holes;
	uint64_t sw_holes;
};

/**
 * ft_route() - the fat-tree routing of papers/000 section 3 (Zahavi): fill
 * the LFTs of @r for every LID of @m's fabric, with up to @threads threads
 * (0: one per online CPU; the result is the same for any count), and count
 * the pairs left unrouted into @st (ca_holes, sw_holes). Every entry of
 * @r is written: its LFTs need not be set before (rt_new_rows()).
 * @missing: NULL, or r->lft_len bytes: missing[l] is set to 1 when a switch
 *           of level 1 or more has no entry for LID l, else 0
 * Return: 0, or -1 when out of memory.
 */
int ft_route(const struct ft_model *m, struct rt_routing *r, struct ft_stats *st, unsigned threads,
	     uint8_t *missing);

/**
 * ft_osm_refuses() - OpenSM's ftree would refuse the fabric of @m (with the
 * files of @h, may be NULL): 1 with @why (ftree_osm.c), else 0
 */
int ft_osm_refuses(const struct ft_model *m, const struct ft_hints *h, char *why, size_t len);

/**
 * ft_notes() - "ranks: 3, leaves: 16, roots: 16, ..." for r->notes, with
 * what the files of @h (may be NULL) did and whether OpenSM's ftree would
 * route the fabric
 * Return: a malloc()ed string, or NULL when out of memory.
 */
char *ft_notes(const struct ft_model *m, const struct ft_hints *h, const struct ft_stats *st);

/* --- sftree ------------------------------------------------------------------------ */

/* LIDs whose columns Algorithm 2 works on at a time, read and written row by row. */
#define SF_BLOCK 64u
/* LFT rows asked for ahead of their turn (copy_block()). */
#define SF_AHEAD 16u

/**
 * struct sf - sftree's switch-to-switch pass (sftree.c, sftree_pass.c)
 * @m, @r: the tree and the routing being completed
 * @lid: per switch, its LID (0 when it has none)
 * @snreach: per switch, sn had an entry for its LID before Algorithm 2
 * @tosn, @snport: per switch, the next switch on its way to sn (FAB_NONE:
 *                none) and its entry for sn's LID
 * @blk, @blids, @nblk: the columns of the LIDs blids[0 .. nblk) (at most
 *                      SF_BLOCK), nsw entries each, while Algorithm 2 routes
 *                      them (load_block(), store_block())
 * @dist, @stack: scratch of measure_col()
 * @sub: per switch, enum sub_kind
 * @detour: per switch, on a detour (may turn packets up)
 * @seen, @via, @list: scratch of single_way_down()
 * @sn, @sm_leaf: the subtree root; the SM's leaf (FAB_NONE: none or unknown)
 * @jchild: per switch, the child of its detour (FAB_NONE: none)
 * @relay: per switch, d + 1 when on the relay of destination d
 * @has: per switch, an entry for the destination at hand before Algorithm 2
 * @pbase, @psw: the switch behind port p of switch s (as fab_sw_peer()) is
 *               psw[pbase[s] + p], p = 0..nports
 * @missing: per LID, ftree left a switch of level 1 or more without entry
 *           (ft_route())
 * @sw_routed .. @ca_failed, @longest, @joined: for the notes
 */
struct sf {
	const struct ft_model *m;
	struct rt_routing *r;
	uint16_t *lid;
	uint8_t *snreach, *snport, *blk;
	uint32_t *tosn;
	unsigned blids[SF_BLOCK];
	uint32_t nblk;
	uint32_t *dist, *stack;
	uint8_t *sub, *detour, *seen;
	uint32_t *via, *list;
	uint32_t sn, sm_leaf;
	uint8_t *has;
	uint32_t *pbase, *psw;
	uint32_t *jchild, *relay;
	uint8_t *missing;
	uint64_t sw_routed, sw_special, sw_failed;
	uint64_t ca_routed, ca_special, ca_failed;
	uint32_t longest, joined;
};

/* struct sf.sub: not in the subtree, in it, in it and other cores may join through it. */
enum sub_kind { SUB_NO = 0, SUB_IN = 1, SUB_JOIN = 2 };

/* The switch behind port @p of switch @s (FAB_NONE: none, or RT_NO_PORT). */
static inline uint32_t peer_sw(const struct sf *x, uint32_t s, uint8_t p)
{
	return p == RT_NO_PORT || p > x->pbase[s + 1] - x->pbase[s] - 1 ? FAB_NONE :
	       x->psw[x->pbase[s] + p];
}

static inline uint32_t next_sw(const struct sf *x, uint32_t s, unsigned lid)
{
	return peer_sw(x, s, rt_lft_get(x->r, s, lid));
}

/**
 * sf_pass() - Algorithm 2 (sftree_pass.c): every switch LID, then every
 * CA LID ftree left a switch without entry for, routed through the subtree
 * of sn (chosen, marked and joined by sftree.c), and the longest
 * switch-to-switch path measured. Return: 0, or -1 when out of memory.
 */
int sf_pass(struct sf *x);

#endif
