/* SPDX-License-Identifier: MIT */
/*
 * What the path-based engines of lidassign share (engines/lidassign/la_run.c,
 * la_select.c, la_mllf.c, la_heap.c, pathsel.c, swidest.c, rename.c, explicit.c): the fabric's machines and their switches, shortest
 * legal Up*\/Down* distances towards every switch, and the path builders.
 */
#ifndef FABROUTE_LA_IMPL_H
#define FABROUTE_LA_IMPL_H

#include "engines/lidassign/lidassign.h"

/*
 * struct la_ctx - one engine run
 * @ca, @nca: the CA and router endpoints (the machines), in endpoint order
 * @epsw: per endpoint, the switch index its LIDs are delivered from
 * @du, @dd: per destination switch t, la_updn_dist() at [t * nswitches + x]
 * @linkof: per (switch, port), the index of that directed link in
 *          @u->adj (UINT32_MAX: not a switch link); @nports ports per switch
 * @q: the routing run, for eng_stopped() (NULL: never stopped)
 */
struct la_ctx {
	const struct fabric *f;
	const struct la_updn *u;
	const struct eng_req *q;
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
 * Pairs in (source, destination) order. (engines/lidassign/la_mllf.c)
 */
int la_paths_select(const struct la_ctx *c, uint32_t max, int yen, struct fmt_paths *ps,
		    struct la_sel_stats *st, struct fab_err *err);

/*
 * struct la_keys - a min-heap of 64-bit keys (engines/lidassign/la_heap.c):
 * @e[0] the least of @n; zeroed is empty; free(@e) when done
 */
struct la_keys {
	uint64_t *e;
	uint32_t n, cap;
};

/* la_keys_push() - add @key; 0, or -1 when out of memory. la_keys_pop() - drop the least (@h->n > 0). */
int la_keys_push(struct la_keys *h, uint64_t key);
void la_keys_pop(struct la_keys *h);

/*
 * struct la_links - links in a max-heap by load per cable, ties to the lower
 * link: @h[0] is the top of the @n in it; @pos[l] is link l's place
 * (UINT32_MAX: not in it); @load[l] and @mult[l] (NULL: 1 each) are read,
 * never written
 */
struct la_links {
	const uint64_t *load;
	const uint32_t *mult;
	uint32_t *h, *pos, n;
};

/* la_links_init() - an empty heap of room for @nlinks links; 0, or -1 when out of memory. */
int la_links_init(struct la_links *g, uint32_t nlinks, const uint64_t *load, const uint32_t *mult);
void la_links_free(struct la_links *g);
/* la_links_add() - put link @l (not in it) in the heap. */
void la_links_add(struct la_links *g, uint32_t l);
/* la_links_fix() - link @l's load changed: move it to its place (nothing if not in the heap). */
void la_links_fix(struct la_links *g, uint32_t l);
/* la_links_remove() - take link @l (in the heap) out. */
void la_links_remove(struct la_links *g, uint32_t l);

struct la_sel;

/*
 * la_sel_run() - la_paths_select()'s selection, kept compact: *@out holds
 * each pair's choice among its switch pair's candidates. -1 with @err (out
 * of memory, no legal path, or "stopped" when @c->q says so).
 */
int la_sel_run(const struct la_ctx *c, uint32_t max, int yen, struct la_sel **out, struct la_sel_stats *st,
	       struct fab_err *err);
/* la_sel_dest() - add the selected paths to endpoint @dst to @ps, sources ascending. 0 or -1. */
int la_sel_dest(const struct la_sel *s, uint32_t dst, struct fmt_paths *ps);
void la_sel_free(struct la_sel *s);

/*
 * struct la_bundle - the switch graph with each set of parallel cables as
 * one link (engines/lidassign/la_bundle.c)
 * @any: some switches are joined by two cables or more (else all is empty)
 * @ub: the Up*\/Down* orientation over the bundles (its adj only is owned)
 * @mult, @nlinks: per bundle (an index in @ub.adj), its cables
 * @poff, @ports: the ports of bundle l are ports[poff[l] .. poff[l + 1])
 * @linkof: per (switch, port of a bundle's lowest cable), the bundle
 */
struct la_bundle {
	int any;
	struct la_updn ub;
	uint32_t *mult, nlinks;
	uint32_t *poff;
	uint8_t *ports;
	uint32_t *linkof;
};

/* la_bundle_init() - bundle @c's switch graph; 0, or -1 with @err (out of memory). */
int la_bundle_init(struct la_bundle *b, const struct la_ctx *c, struct fab_err *err);
void la_bundle_free(struct la_bundle *b);

/* struct la_spread - the cable of every (bundle, destination) the chosen paths cross */
struct la_spread {
	struct la_use *v;
	size_t n;
};

/* la_bundle_path_fn - the hops (bundled) machine pair @p's path takes, and their count */
typedef uint32_t (*la_bundle_path_fn)(void *arg, uint32_t p, const struct la_hop **h);

/*
 * la_bundle_spread() - give each (bundle, destination machine) the chosen
 * paths cross a cable of the bundle, the heaviest first to the least used.
 * Return: 0, or -1 when out of memory.
 */
int la_bundle_spread(const struct la_bundle *b, const struct la_ctx *c, struct la_spread *sp,
		     la_bundle_path_fn path, void *arg);
/* la_bundle_port() - the port hop @h takes towards machine @dst (its own when not bundled). */
unsigned la_bundle_port(const struct la_bundle *b, const struct la_ctx *c,
			const struct la_spread *sp, const struct la_hop *h, uint32_t dst);
void la_spread_free(struct la_spread *sp);

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

/* --- the run of the path-based engines (engines/lidassign/la_run.c) ----- */

/* Which path-based engine runs: how it chooses paths and LIDs. */
enum la_kind { LA_K_SELECT, LA_K_WIDEST, LA_K_RENAME, LA_K_EXPLICIT };

/* Options the path-based engines share. */
#define OPT_ROOT { .name = "root", .type = ENG_OPT_LIST, .defval = "", \
	.help = "Up/Down root switch (a description or 0x node GUID; a CA names its switch); " \
	"empty: see seed" }
#define OPT_SEED { .name = "seed", .type = ENG_OPT_INT, .defval = "0", \
	.help = "when root is empty: 0 chooses the root that leaves the least expected load on " \
	"the worst link; N >= 1 draws it at random with seed N (the paper's way)", \
	.min = 0, .max = 2147483647 }
#define OPT_LIDS { .name = "lids", .type = ENG_OPT_ENUM, .defval = "color-l", \
	.help = "LID assignment heuristic (Nienaber, Yuan and Duan)", .values = LA_HEUR_VALUES }
#define OPT_DEGREE { .name = "degree", .type = ENG_OPT_ENUM, .defval = "round", \
	.help = "color-s/color-l: a path's degree in the round's split graph, or among the " \
	"candidates left", .values = "round|candidates" }
#define OPT_WEIGHT { .name = "weight", .type = ENG_OPT_ENUM, .defval = "sum", \
	.help = "shortest-widest: least sum of link weights, or least heaviest link (then sum)", \
	.values = "sum|max" }

/*
 * la_route_kind() - route @q as the path-based engine @kind: Up*\/Down*
 * from the root, the paths, their configurations, the LID plan, the
 * tables. Return: enum eng_status.
 */
int la_route_kind(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		  struct fab_err *err, enum la_kind kind);

#endif
