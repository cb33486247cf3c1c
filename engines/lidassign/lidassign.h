/* SPDX-License-Identifier: MIT */
/**
 * DOC: lidassign - realise any set of paths with the fewest LIDs (papers/002)
 *
 * Destination-based forwarding sends every packet with one DLID out of one
 * port per switch. Two paths to the same destination port *split* when some
 * switch on both sends them out by different ports; they then need
 * different DLIDs. Paths that pairwise do not split form a *configuration*
 * (an in-forest towards the destination) and share one DLID. Finding the
 * fewest configurations is colouring the *split graph* (a vertex per path,
 * an edge per split pair), NP-complete (papers/002, Thm. 1); a port with k
 * configurations needs 2^ceil(lg k) LIDs (its LMC), at most 128.
 *
 * The module, in three layers:
 *
 *  - one destination (engines/lidassign/lidassign.c, engines/lidassign/la_exact.c): the split
 *    test, the split graph, the heuristics greedy, split-merge (s-m/S,
 *    s-m/L) and colouring (color/S, color/L), the checks every result
 *    passes (valid: no split inside a configuration; minimal: every two
 *    configurations hold a split pair, so none can merge) and an exact
 *    DSATUR colouring with a cap, to report the optimality gap;
 *  - a fabric (engines/lidassign/la_fabric.c): a path set between endpoints grouped by
 *    destination port, each port's configurations ranked largest first (so
 *    the base LID, what an SA PathRecord Get returns, serves the most
 *    pairs), the LID plan (per-port LMC, aligned ranges, compact), and the
 *    forwarding tables: the paths, then "completion": every LID of every
 *    range routed from every switch, Up*\/Down*-legal;
 *  - Up*\/Down* (engines/lidassign/la_updn.c) and the engines built on them
 *    (engines/lidassign/pathsel.c): path selection, shortest-widest, destination
 *    renaming and fully explicit routing, all realised through this module.
 *
 * Nothing here does I/O or keeps global state. Same input, same output.
 */
#ifndef FABROUTE_LIDASSIGN_H
#define FABROUTE_LIDASSIGN_H

#include <stddef.h>
#include <stdint.h>

#include "engines/engine.h"
#include "engines/ucast/ucast.h"
#include "fabric/fabric.h"
#include "formats/formats.h"
#include "fabric/routing.h"

/** Most LIDs (and so configurations) one port may have: 2^7. */
#define LA_LIDS_MAX 128u
/** Longest candidate path of the path-based engines, in switch-to-switch hops. */
#define LA_HOPS_MAX 63u

/* --- one destination (engines/lidassign/lidassign.c) ------------------------------- */

/** struct la_hop - a path leaves node @node (a split point) by @port. */
struct la_hop {
	uint32_t node;
	uint32_t port;
};

/**
 * struct la_rd - R_d: the paths towards one destination
 * @n: paths
 * @p, @len: path i is the @len[i] hops @p[i][0 ..]; a path visits a node
 *           at most once
 * @nnodes: every hop's node is below this
 */
struct la_rd {
	uint32_t n;
	const struct la_hop *const *p;
	const uint32_t *len;
	uint32_t nnodes;
};

enum la_heur {
	LA_GREEDY = 0,	/* first fit in input order (papers/002 Fig. 5) */
	LA_SM_S,	/* split at the least used node first, then merge greedily (Fig. 7) */
	LA_SM_L,	/* split at the most used node first */
	LA_COLOR_S,	/* colour the split graph, least split path first */
	LA_COLOR_L,	/* colour the split graph, most split path first */
	LA_NHEUR,
};

/** The values of the `lids` option, in enum la_heur order. */
#define LA_HEUR_VALUES "greedy|sm-s|sm-l|color-s|color-l"

/** la_heur_name() - "greedy", "sm-s", ...; la_heur_parse() - the reverse, -1 if unknown. */
const char *la_heur_name(enum la_heur h);
int la_heur_parse(const char *name);

/**
 * struct la_opts - how to colour
 * @heur: enum la_heur
 * @dynamic: color/S and color/L: degree among the candidates left in the
 *           round, not in the round's graph (a variant; default 0)
 * @input_order: la_assign(): keep each destination's paths in the order
 *               given instead of (source endpoint, order given)
 */
struct la_opts {
	enum la_heur heur;
	int dynamic;
	int input_order;
};

/**
 * la_split() - do paths @a and @b of @r split?
 * Return: 1 with *@at (may be NULL) the first node of @a where they do, else 0.
 */
int la_split(const struct la_rd *r, uint32_t a, uint32_t b, uint32_t *at);

/**
 * struct la_graph - the split graph of some R_d
 * @n: vertices (paths); @words: 64-bit words per adjacency row
 * @adj: n rows of @words words: bit j of row i set when paths i and j split
 * @deg: degree of each vertex; @edges: edges in all
 */
struct la_graph {
	uint32_t n, words;
	uint64_t *adj;
	uint32_t *deg;
	uint64_t edges;
};

static inline int la_graph_has(const struct la_graph *g, uint32_t i, uint32_t j)
{
	return (int)(g->adj[(size_t)i * g->words + j / 64] >> (j % 64) & 1);
}

/** la_graph_build() - the split graph of @r. Return: 0, or -1 when out of memory. */
int la_graph_build(const struct la_rd *r, struct la_graph *g);
/** la_graph_from_edges() - a graph from an edge list (tests, reductions). 0 or -1. */
int la_graph_from_edges(uint32_t n, const uint32_t (*e)[2], size_t ne, struct la_graph *g);
void la_graph_free(struct la_graph *g);

/**
 * la_colour() - partition @r into configurations with heuristic @o->heur
 * @colour: out, per path, its configuration 0 .. *@k - 1
 * Every heuristic returns a minimal configuration set (papers/002 Def. 4).
 * Return: 0, or -1 when out of memory.
 */
int la_colour(const struct la_rd *r, const struct la_opts *o, uint32_t *colour, uint32_t *k);

/**
 * la_check() - @colour (k configurations) is valid (no two paths of one
 * configuration split) and minimal (every two configurations hold a split
 * pair), every configuration non-empty. @g: the split graph of @r.
 * Return: 0, or -1 with @why saying which paths or configurations fail.
 */
int la_check(const struct la_graph *g, const uint32_t *colour, uint32_t k, char *why, size_t len);

/**
 * la_lower_bound() - the most distinct ports any node sends @r's paths out
 * by: those paths pairwise split (a clique), so no colouring uses fewer.
 */
uint32_t la_lower_bound(const struct la_rd *r);

/** la_lmc() - ceil(lg @k): the LMC giving @k configurations a LID each (@k >= 1). */
unsigned la_lmc(uint32_t k);

/* --- exact colouring (engines/lidassign/la_exact.c) --------------------------------- */

/**
 * struct la_exact - what la_exact_colour() found
 * @k: colours of the best colouring found
 * @optimal: the search finished: @k is the chromatic number
 * @nodes: search nodes visited
 */
struct la_exact {
	uint32_t k;
	int optimal;
	uint64_t nodes;
};

/**
 * la_exact_colour() - DSATUR branch and bound on @g
 * @colour: in, a valid colouring with @k0 colours (the first upper bound);
 *          out, the best found
 * @max_nodes: stop after this many search nodes (0: no limit)
 * @max_ms: stop after this many milliseconds of CPU time (0: no limit); the
 *          only thing in the module that reads a clock, for reports only
 * Return: 0, or -1 when out of memory.
 */
int la_exact_colour(const struct la_graph *g, uint32_t *colour, uint32_t k0, uint64_t max_nodes,
		    double max_ms, struct la_exact *res);

/* --- a fabric (engines/lidassign/la_fabric.c) ---------------------------------------- */

/**
 * struct la_assign - the configurations of a path set on a fabric
 * @k: per endpoint, its configurations (0: no path ends there)
 * @lmc: per endpoint, ceil(lg k) (0 without paths)
 * @lb: per endpoint, la_lower_bound() of its paths
 * @offset: per path of the set, its configuration's rank: the DLID is the
 *          destination's base LID + offset (rank 0: the largest)
 * @paths: paths in the set; @dups: identical paths merged (same DLID)
 * @pairs: distinct (source, destination) pairs; @sa_pairs: those whose
 *         (first) path is at offset 0, which an SA PathRecord Get gives
 * @configs: sum of k; @lids: sum of 2^lmc over CA and router ports;
 * @lids_global: CA and router ports x 2^(largest LMC): the LIDs the same
 *               plan takes under OpenSM's single global LMC
 * @lmc_max: the largest LMC; @dests: ports with paths; @cas: CA and router ports
 */
struct la_assign {
	uint32_t neps;
	uint32_t *k;
	uint8_t *lmc;
	uint32_t *lb;
	uint32_t *offset;
	uint64_t paths, dups, pairs, sa_pairs, configs, lids, lids_global;
	uint32_t dests, cas;
	uint8_t lmc_max;
};

/**
 * la_assign() - colour the paths of @ps by destination port
 * @ps: paths between endpoints of @f (hops: switch nodes and ports)
 * Every path is checked (fmt_paths_check()), every destination's result
 * with la_check(). A destination needing more than 128 configurations, or
 * more than one when it is a switch (port 0 has LMC 0), is an error naming
 * the port and the count.
 * Return: 0, or -1 with @err set. Free with la_assign_free().
 */
int la_assign(const struct fabric *f, const struct fmt_paths *ps, const struct la_opts *o,
	      struct la_assign *a, struct fab_err *err);
void la_assign_free(struct la_assign *a);

/**
 * struct la_source - a path set read one destination at a time, for sets
 * too large to hold at once (every machine pair's path)
 * @get: append the paths to endpoint @d to @ps, one per source, sources
 *       ascending; 0, or -1 with @err
 */
struct la_source {
	int (*get)(void *ud, uint32_t d, struct fmt_paths *ps, struct fab_err *err);
	void *ud;
};

/**
 * la_assign_dests() - la_assign() of the paths @src gives, one destination
 * at a time (the same result): @a->offset stays NULL; the offset of each
 * pair's path goes to @off[src * neps + dst] (neps x neps bytes, zeroed
 * by the caller). Return: 0, or -1 with @err.
 */
int la_assign_dests(const struct fabric *f, const struct la_source *src, const struct la_opts *o,
		    struct la_assign *a, uint8_t *off, struct fab_err *err);

/**
 * la_optimum() - the fewest configurations per destination, for reports
 * Per destination port, la_exact_colour() from heuristic @o's colouring,
 * capped at @max_ms of CPU time each: @opt[ep] the best count found (0
 * without paths), @proven[ep] 1 when it is the optimum.
 * Return: 0, or -1 with @err set.
 */
int la_optimum(const struct fabric *f, const struct fmt_paths *ps, const struct la_opts *o,
	       double max_ms, uint32_t *opt, uint8_t *proven, struct fab_err *err);

/**
 * la_plan() - a LID plan: every endpoint of @f, CA and router ports with
 * LMC @lmc[ep] and switches with LMC 0
 * CA and router ports by LMC (largest first), then port GUID, each in the
 * lowest free range aligned to its size; then switches by GUID in the
 * lowest free LIDs (the holes). Compact: the top LID stays below the sum of
 * the ranges + switches + 2^(largest LMC).
 * Return: 0 with *@pins (free() it, one per endpoint) set, or -1 with @err.
 */
int la_plan(const struct fabric *f, const uint8_t *lmc, struct fab_lid_pin **pins, size_t *npins,
	    struct fab_err *err);

struct la_updn;

/**
 * struct la_stats - what la_realise() did
 * @entries: LFT entries the paths set
 * @filled: entries added by completion (every LID from every switch)
 * @aliased: columns of offsets >= k copied from offset (j mod k)
 * @unrouted: (switch, LID) entries no legal completion reaches
 */
struct la_stats {
	uint64_t entries, filled, aliased, unrouted;
};

/**
 * la_realise() - forwarding tables realising the assignment
 * @f: the fabric with the LIDs to route (every destination's range holding
 *     at least its k configurations)
 * @u: the Up*\/Down* orientation completion respects
 * @r: a routing from rt_new(@f); every LFT entry is written
 * Each configuration's paths set its LID's entries on their switches; then
 * every other switch gets a route for that LID: down-only routes first
 * (a switch may hop down to a switch whose route only goes down), then up
 * hops to any routed switch, nearest first, then the least loaded port.
 * Offsets past k repeat offset (j mod k). Destinations without paths
 * (switches, unused ports) get such a tree from their own switch. Per-pair
 * DLID offsets of the paths go to @r->dlid_off.
 * Return: 0, or -1 with @err set.
 */
int la_realise(const struct fabric *f, const struct fmt_paths *ps, const struct la_assign *a,
	       const struct la_updn *u, struct rt_routing *r, struct la_stats *st,
	       struct fab_err *err);

/* --- Up*\/Down* (engines/lidassign/la_updn.c) ----------------------------------------- */

/**
 * la_realise_dests() - la_realise() of the paths @src gives with the
 * per-pair offsets @off of la_assign_dests() (taken: @r->dlid_off becomes
 * it, also on failure). Return: 0, or -1 with @err.
 */
int la_realise_dests(const struct fabric *f, const struct la_source *src, const struct la_assign *a,
		     uint8_t *off, const struct la_updn *u, struct rt_routing *r, struct la_stats *st,
		     struct fab_err *err);

/** How la_realise() completes a LID's table (struct la_updn.fill). */
enum la_fill {
	LA_FILL_NEAREST = 0,	/* nearest first; all-down routes, then load, break ties */
	LA_FILL_DOWN_FIRST,	/* every all-down route first, however long; then up hops */
};

/**
 * struct la_updn - an Up*\/Down* orientation of the switch graph
 * @root: the root switch (index in fabric->switches)
 * @level: BFS distance from the root
 * @pos: place in the (level, node GUID) order: a hop to a switch with a
 *       lower place goes up; legal paths never go up after going down
 * @adj: switch links by port
 * @fill: enum la_fill, how completion builds routes (la_updn_build() sets
 *        LA_FILL_NEAREST)
 */
struct la_updn {
	const struct fabric *f;
	uint32_t root;
	int fill;
	uint32_t *level, *pos;
	struct ucast_adj adj;
};

/**
 * la_updn_build() - orient @f's switches from @root
 * Return: 0, or -1 with @err (no switches, switches not connected, out of memory).
 */
int la_updn_build(const struct fabric *f, uint32_t root, struct la_updn *u, struct fab_err *err);
void la_updn_free(struct la_updn *u);

/** la_updn_up() - the hop from switch @a to switch @b goes up. */
static inline int la_updn_up(const struct la_updn *u, uint32_t a, uint32_t b)
{
	return u->pos[b] < u->pos[a];
}

/** How la_updn_root() found the root (struct la_root.how). */
enum la_root_how { LA_ROOT_GIVEN, LA_ROOT_DRAWN, LA_ROOT_CHOSEN };

/**
 * struct la_root - the Up*\/Down* root of a path-based engine
 * @sw: the root switch (index in fabric->switches)
 * @how: enum la_root_how
 * @seed: drawn: the seed
 * @tried: chosen: the switches scored
 * @load: chosen: its score, the CA max link load (each machine sending 1 in
 *        all) with every machine pair spread evenly over its candidates
 */
struct la_root {
	uint32_t sw;
	int how;
	uint64_t seed;
	uint32_t tried;
	double load;
};

/**
 * la_updn_root() - the root the engines use (engines/lidassign/la_root.c):
 * option "root" (a node; a CA names its switch) when given; else, with
 * @seed >= 1, a switch drawn at random with it (papers/002); else (@seed 0)
 * the switch whose orientation leaves the least expected load on the worst
 * link when each machine pair spreads over its first @cap (1 to 16)
 * shortest legal paths
 * @q: the routing run, for eng_stopped() (NULL: never stopped)
 * Return: 0 with *@out set, or -1 with @err (unknown or ambiguous node, no
 * switches, out of memory, stopped).
 */
int la_updn_root(const struct fabric *f, const struct eng_args *a, uint64_t seed, uint32_t cap,
		 const struct eng_req *q, struct la_root *out, struct fab_err *err);

/**
 * la_updn_dist() - shortest legal distances to switch @t: @du[x] from x when
 * it may still go up, @dd[x] when it may only go down (UINT16_MAX: none).
 * @queue holds 2 x nswitches entries.
 * Return: the states reached, @queue[0 ..] in the order of their distance
 * (x: switch x that may still go up; nswitches + x: that may only go down).
 */
uint32_t la_updn_dist(const struct la_updn *u, uint32_t t, uint16_t *du, uint16_t *dd,
		      uint32_t *queue);

/**
 * la_updn_paths() - up to @max shortest legal switch paths from @s to @t
 * (@du, @dd from la_updn_dist() for @t), depth first in port order: path i
 * is the du[s] hops @hops[i * du[s] ..] (switch index, port) that lead
 * from @s to @t; the caller adds the hop out of @t. Return: the number found.
 */
uint32_t la_updn_paths(const struct la_updn *u, uint32_t s, uint32_t t, const uint16_t *du,
		       const uint16_t *dd, uint32_t max, struct la_hop *hops);

/**
 * la_updn_kpaths() - Yen's k shortest paths among the legal switch-simple
 * paths from @s to @t of at most LA_HOPS_MAX hops: up to @max, shortest
 * first (ties: the first differing hop, lower switch then lower port),
 * longer ones included; path i is the @len[i] hops
 * @hops[i * LA_HOPS_MAX ..] (switch index, port).
 * Return: the number found.
 */
uint32_t la_updn_kpaths(const struct la_updn *u, uint32_t s, uint32_t t, uint32_t max,
			struct la_hop *hops, uint32_t *len);

/* --- the engines (engines/lidassign/pathsel.c) ----------------------------------------- */

/** la_engine_plans_paths() - @e is one of pathsel, swidest, rename, explicit. */
int la_engine_plans_paths(const struct engine *e);

#endif
