/* SPDX-License-Identifier: MIT */
/*
 * DOC: the helpers of the cmocka unit tests
 *
 * One header for tests/unit/libtestutil.la, which every unit test links:
 * tu_fabric.c (test data, topologies given as text, nodes and endpoints),
 * tu_gen.c (generated fabrics, random faults, and the checks of their
 * shape), tu_engine.c (calling engines, evaluating), tu_ftree.c (fat-tree
 * checks), tu_ftdlr.c (ftdlr's repairs), tu_lidassign.c (fabrics built link
 * by link, papers/002's figures), tu_osm.c (OpenSM dump fixtures) and
 * tu_api.c (epochs and answers of the REST API), tu_canon.c (a fabric
 * rebuilt in another order, routing runs compared). The helpers fail the
 * running test (cmocka's fail_msg()) with a message naming what went wrong
 * instead of returning errors. TEST_DATA is the absolute path of tests/data.
 */
#ifndef FABROUTE_TESTUTIL_H
#define FABROUTE_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/analysis.h"
#include "engines/engine.h"
#include "engines/ftree/ftree.h"
#include "engines/lidassign/lidassign.h"
#include "fabric/fabric.h"
#include "fabric/routing.h"
#include "formats/formats.h"
#include "gen/gen.h"

struct api_err;
struct epoch;
struct ftdlr_trans;

/* --- tu_fabric.c: test data, topologies as text, nodes ------------------------- */

/*
 * tu_stride() - the exhaustive loops take every Nth case (FABROUTE_TEST_STRIDE,
 * unset: 1, all): the sanitizer build, which looks for memory errors on the
 * same code paths several times slower, sets 7 (configure.ac).
 */
unsigned tu_stride(void);
/*
 * tu_take() - whether case @*seen (then counted) is one tu_stride() takes:
 * the first, then every Nth.
 */
int tu_take(unsigned *seen);
/* tu_taken() - how many of @n cases tu_take() takes. */
unsigned tu_taken(unsigned n);
/* tu_data() - the absolute path of @rel under tests/data (a static buffer). */
const char *tu_data(const char *rel);
/* tu_load() - load @rel under tests/data as @fmt; fails the test with the parser's message. */
struct fabric *tu_load(const char *rel, enum fmt_topo fmt);
/* tu_node() - the node with GUID @guid; fails the test when there is none. */
uint32_t tu_node(const struct fabric *f, uint64_t guid);
/* tu_port() - port @p of the node with GUID @guid. */
const struct fab_port *tu_port(const struct fabric *f, uint64_t guid, unsigned p);
/* tu_node_named() - the one node described @desc; fails the test unless exactly one is. */
uint32_t tu_node_named(const struct fabric *f, const char *desc);
/* tu_sw_named() - the switch index of the node described @desc. */
uint32_t tu_sw_named(const struct fabric *f, const char *desc);
/* tu_topo() - parse @text as @fmt; fails the test with the parser's message. */
struct fabric *tu_topo(const char *text, enum fmt_topo fmt);
/* tu_topo_fails() - expect parsing @text as @fmt to fail with a message containing @needle. */
void tu_topo_fails(const char *text, enum fmt_topo fmt, const char *needle);
/* tu_write() - @f written as @fmt into a buffer the caller frees; its length in *@len. */
char *tu_write(const struct fabric *f, enum fmt_topo fmt, size_t *len);
/* tu_is_ca() - whether endpoint @e is a CA's port (not a switch's port 0). */
int tu_is_ca(const struct fabric *f, uint32_t e);
/* tu_ep_sw() - the switch index endpoint @e enters the fabric at. */
uint32_t tu_ep_sw(const struct fabric *f, uint32_t e);
/* tu_shape() - fab_shape() of @f into @s; fails the test on error. */
void tu_shape(const struct fabric *f, struct fab_shape *s);

/* --- tu_gen.c: generated fabrics and their shape -------------------------------- */

#define TU_MAXLVL 8	/* the most tree levels tu_check_tree() counts */

/* tu_gen_try() - build @spec ("family k=v ...") with @seed; NULL with @err set on failure. */
struct fabric *tu_gen_try(const char *spec, uint64_t seed, struct fab_err *err);
/* tu_gen() - build @spec ("family k=v ...", as `fabroute gen` takes it) with @seed. */
struct fabric *tu_gen(const char *spec, uint64_t seed);
/* tu_gen_fails() - expect building @spec to fail with a message containing @needle. */
void tu_gen_fails(const char *spec, const char *needle);
/* tu_dragonfly() - tu_gen("dragonfly a=@a p=@p h=@h wiring=@wiring", 1). */
struct fabric *tu_dragonfly(unsigned a, unsigned p, unsigned h, const char *wiring);
/* tu_faults() - @f with @links random link and @switches random switch faults drawn with @seed. */
struct fabric *tu_faults(struct fabric *f, unsigned links, unsigned switches, uint64_t seed);
/* tu_count_type() - the nodes of type @t. */
uint32_t tu_count_type(const struct fabric *f, enum fab_node_type t);
/* tu_is_sw() - whether node @n is a switch. */
int tu_is_sw(const struct fabric *f, uint32_t n);
/* tu_sw_links() - the links between two switches. */
uint32_t tu_sw_links(const struct fabric *f);
/* tu_reached() - the nodes reached from the first node (the first switch, with @switches_only). */
uint32_t tu_reached(const struct fabric *f, int switches_only);
/* tu_assert_connected() - every node is reached from node 0. */
void tu_assert_connected(const struct fabric *f);
/* tu_levels() - per switch index: 1 for switches with CAs, then BFS distance + 1 (free it). */
uint32_t *tu_levels(const struct fabric *f);
/*
 * tu_check_tree() - @per_level switches on @nlevels levels, @hlinks horizontal links, ports
 * ordered down < up < sideways.
 */
void tu_check_tree(const struct fabric *f, unsigned nlevels, const uint32_t *per_level,
		   uint32_t hlinks);
/* tu_check_counts() - @nsw switches, @nca CAs, @nlinks links, connected. */
void tu_check_counts(const struct fabric *f, uint32_t nsw, uint32_t nca, uint32_t nlinks);
/* tu_check_level_ports() - every switch on level l (1-based) has @ports[l - 1] ports. */
void tu_check_level_ports(const struct fabric *f, const unsigned *ports);
/* tu_check_all_ports() - every switch has @nports ports. */
void tu_check_all_ports(const struct fabric *f, unsigned nports);
/* tu_check_names() - descriptions unique, short and fit for ibsim; the generators' GUIDs. */
void tu_check_names(const struct fabric *f);
/* tu_assert_same() - the same fabric node for node: GUIDs, descriptions, ports, links, LIDs. */
void tu_assert_same(const struct fabric *a, const struct fabric *b);
/* tu_ipow() - @b to the power @e. */
uint64_t tu_ipow(uint64_t b, unsigned e);

/* --- tu_engine.c: engines and the evaluator ------------------------------------- */

/*
 * tu_eng_call() - @e's route hook on @f with options @kv ("name=value", NULL-terminated or NULL);
 * the engine's status, *@r its routing.
 */
int tu_eng_call(const struct engine *e, const struct fabric *f, const char *const *kv,
		struct rt_routing **r, struct fab_err *err);
/* tu_route_opts() - @e on @f with options @opts; fails the test unless it returns @want. */
struct rt_routing *tu_route_opts(const struct engine *e, const struct fabric *f,
				 const char *const *opts, int want, struct fab_err *err);
/* tu_route() - @e on @f with its defaults; fails the test unless it routes, with notes. */
struct rt_routing *tu_route(const struct engine *e, const struct fabric *f);
/*
 * tu_run_chain() - eng_run() of @chain on @f, LIDs kept, evaluated with @eval (NULL: not); fails
 * the test unless some engine routed.
 */
void tu_run_chain(const struct fabric *f, const char *chain, const struct an_opts *eval,
		  struct eng_res *res);
/*
 * tu_route_in_place() - route @f with @chain as tu_run_chain() does and give @f the LIDs routed;
 * NULL when no engine applies.
 */
struct rt_routing *tu_route_in_place(struct fabric *f, const char *chain);
/* tu_eval_opts() - an_evaluate() of @r on @f with @o into @rep; fails the test on error. */
void tu_eval_opts(const struct fabric *f, const struct rt_routing *r, const struct an_opts *o,
		  struct an_report *rep);
/*
 * tu_eval() - an_evaluate() of @r on @f (every LID with @all_lids) into @rep; fails the test on
 * error.
 */
void tu_eval(const struct fabric *f, const struct rt_routing *r, int all_lids,
	     struct an_report *rep);
/*
 * tu_check_shortest() - about @budget pairs (CA pairs only with @ca_only) delivered along shortest
 * paths.
 */
void tu_check_shortest(const struct fabric *f, const struct rt_routing *r, int ca_only,
		       uint64_t budget);

/* --- tu_ftree.c: fat trees --------------------------------------------------- */

/* tu_updown_holes() - the CA-to-CA pairs without an up/down path, from the cabling alone. */
uint64_t tu_updown_holes(const struct fabric *f);
/*
 * tu_same_ca_entries() - fails unless sftree's @sf has ftree's @ft entries for CA LIDs; returns
 * those sftree added.
 */
uint64_t tu_same_ca_entries(const struct fabric *f, const struct rt_routing *ft,
			    const struct rt_routing *sf);

/* --- tu_ftdlr.c: ftdlr's repairs -------------------------------------------- */

/* struct tu_fl - a link of a base: upper switch @c, its down port @p to the lower switch @y */
struct tu_fl {
	uint32_t c, y;	/* switch indexes */
	uint8_t p;
};

/**
 * struct tu_base - a fabric routed as the base of repairs
 * @f, @r: the fabric and its routing
 * @m: the fabric as a fat tree
 * @links: every switch-to-switch link, upper end first; @nlinks
 * @upper: switches above the leaves (the faults a switch may die of); @nupper
 */
struct tu_base {
	struct fabric *f;
	struct rt_routing *r;
	struct ft_model m;
	struct tu_fl *links;
	uint32_t nlinks;
	uint32_t *upper, nupper;
};

/**
 * struct tu_tally - what a run of repairs showed
 * @sets: fault sets repaired
 * @fallback: sets whose switch LIDs were (partly) recomputed by the base engine
 * @sl1: sets whose base runs switch destinations on a VL of their own
 * @entries, @blocks: the most changed of each in one set (blocks: on one switch)
 * @ca_entries, @switches: the most CA-LID entries changed in one set, and
 *                         switches with such an entry
 * @all_switches: the most switches with any changed entry in one set
 */
struct tu_tally {
	unsigned sets, fallback, sl1;
	uint64_t entries, ca_entries;
	uint32_t switches, blocks, all_switches;
};

/* tu_base_init() - @b: tu_gen(@spec) routed by @e, as a fat tree, its links and upper switches. */
void tu_base_init(struct tu_base *b, const char *spec, const struct engine *e);
/* tu_base_fini() - free what tu_base_init() made. */
void tu_base_fini(struct tu_base *b);
/* tu_degrade() - the base's fabric without links @l[0..@nl) and switches @sw[0..@ns). */
struct fabric *tu_degrade(const struct tu_base *b, const uint32_t *l, unsigned nl,
			  const uint32_t *sw, unsigned ns);
/*
 * tu_group_of_link() - mark in @g (per base switch) the group of link @l: its lower end's parents,
 * its upper end's children.
 */
void tu_group_of_link(const struct tu_base *b, const struct tu_fl *l, uint8_t *g);
/* tu_group_of_switch() - mark in @g the 2-hop group of switch @x (papers/001 Def. 12). */
void tu_group_of_switch(const struct tu_base *b, uint32_t x, uint8_t *g);
/* tu_same_sls() - fails unless every pair of @f keeps the SL the base gives it (path records). */
void tu_same_sls(const struct tu_base *b, const struct fabric *f, const struct rt_routing *r,
		 const char *what);
/* tu_ca_changes() - CA-LID entries of @r (for @f) changed from the base; *@sw: their switches. */
uint64_t tu_ca_changes(const struct tu_base *b, const struct fabric *f, const struct rt_routing *r,
		       uint32_t *sw);
struct ftdlr_stats;
struct eng_memo;
/* tu_same_repair() - fails unless @a and @b are the same repair: tables, path SLs, notes and figures. */
void tu_same_repair(const struct rt_routing *a, const struct ftdlr_stats *sa,
		    const struct rt_routing *b, const struct ftdlr_stats *sb);
/*
 * tu_changed_exact() - fails unless @changed (@n, in increasing order) lists exactly the switches
 * whose table in @r differs from @br's (when both have the same switches)
 */
void tu_changed_exact(const struct rt_routing *br, const struct rt_routing *r,
		      const uint32_t *changed, size_t n);
/*
 * tu_memo_same() - fails unless ftdlr_repair_memo() with @memo gives what ftdlr_repair() gives
 * for base (@bf, @br) and fabric @f: the same repair (and the switches it says it changed are
 * those whose table differs), or the same refusal; *@quick (when not
 * NULL) += the LIDs the memo's repair made at their few switches alone
 */
void tu_memo_same(const struct fabric *bf, const struct rt_routing *br, const struct fabric *f,
		  struct eng_memo *memo, uint64_t *quick);
/*
 * tu_check_repair() - repair the base for @f, check what a repair within k - 1 faults must be
 * (CA-LID changes only in @group unless NULL), tally it in @t; the repair (free it).
 */
struct rt_routing *tu_check_repair(const struct tu_base *b, const struct fabric *f,
				   const uint8_t *group, struct tu_tally *t, const char *what);
/*
 * tu_same_report() - every figure of @a (counts, examples, cycles, load) is @b's, else fail
 * naming @what and the first figure that differs
 */
void tu_same_report(const struct an_report *a, const struct an_report *b, const char *what);
/*
 * tu_check_steps() - every step ftdlr_stages() gives from @a (of @fa) to @b (of @f) is acyclic
 * with the one before, and ftdlr_plan()'s blocks are the steps'; the number of steps.
 */
unsigned tu_check_steps(const struct fabric *fa, const struct rt_routing *a,
			const struct fabric *f, const struct rt_routing *b, const char *what);

/* --- tu_lidassign.c: fabrics built link by link, papers/002 ------------------- */

/* struct tu_lb - a fabric being built: each link takes the next free port of both ends */
struct tu_lb {
	struct fabric *f;
	uint8_t used[16384];
};

/* struct tu_lb_rd - the paths of a path set as an R_d, hops as (switch index, port) */
struct tu_lb_rd {
	struct la_rd rd;
	struct la_hop *hops;
	const struct la_hop **p;
	uint32_t *len;
};

/* tu_lb_node() - add a node of type @t, described @desc, with @nports ports. */
uint32_t tu_lb_node(struct tu_lb *b, enum fab_node_type t, const char *desc, unsigned nports);
/* tu_lb_link() - link nodes @x and @y by their next free ports. */
void tu_lb_link(struct tu_lb *b, uint32_t x, uint32_t y);
/* tu_lb_done() - finalize the fabric and give every port a LID (LMC 0); the caller owns it. */
struct fabric *tu_lb_done(struct tu_lb *b);
/* tu_lb_port() - the first port of node @a leading to node @c. */
unsigned tu_lb_port(const struct fabric *f, uint32_t a, uint32_t c);
/* tu_lb_rd() - the paths of @ps (all to one destination) as an R_d in @r. */
void tu_lb_rd(const struct fabric *f, const struct fmt_paths *ps, struct tu_lb_rd *r);
/* tu_lb_rd_free() - free what tu_lb_rd() made. */
void tu_lb_rd_free(struct tu_lb_rd *r);
/* tu_lb_fig6() - papers/002 Fig. 6 and its four paths to m0, in the paper's order, in @ps. */
struct fabric *tu_lb_fig6(struct fmt_paths *ps);
/*
 * tu_lb_reduction() - papers/002 Thm. 1's fabric and paths (in @ps) for the graph of @nv vertices
 * and @ne edges @e.
 */
struct fabric *tu_lb_reduction(uint32_t nv, const uint32_t (*e)[2], size_t ne,
			       struct fmt_paths *ps);

/* --- tu_osm.c: OpenSM dumps (tests/data/osm) ----------------------------------- */

/* the fixture cases under tests/data/osm */
extern const char *const tu_osm_cases[];
#define TU_OSM_NCASES 4

/* the four dump formats */
enum tu_osm_fmt { TU_LFTS, TU_FDBS, TU_SUBNET, TU_GUID2LID };

/* tu_osm_load() - tests/data/osm/@dir/@file in a buffer the caller frees; its length in *@len. */
char *tu_osm_load(const char *dir, const char *file, size_t *len);
/* tu_osm_fixture() - parse fixture @dir/@file as @w (routing or fabric; @f for the tables). */
void *tu_osm_fixture(enum tu_osm_fmt w, const char *dir, const char *file, const struct fabric *f);
/* tu_osm_subnet() - the fabric of case @dir's opensm-subnet.lst. */
struct fabric *tu_osm_subnet(const char *dir);
/* tu_osm_pin_lids() - give @f the LIDs and LMCs of case @dir's guid2lid, as OpenSM had them. */
void tu_osm_pin_lids(struct fabric *f, const char *dir);
/* tu_osm_drop() - free what parsing as @w gave. */
void tu_osm_drop(enum tu_osm_fmt w, void *got);
/*
 * tu_lfts_text() - @r written as an LFT dump into a buffer the caller frees; its length in *@len.
 */
char *tu_lfts_text(const struct fabric *f, const struct rt_routing *r, size_t *len);
/*
 * tu_replaced() - @text with the first (with @all, every) @from replaced by @to; the caller frees.
 */
char *tu_replaced(const char *text, const char *from, const char *to, int all);
/*
 * tu_osm_fails_len() - expect parsing @text (@len bytes) as @w to fail with a message starting
 * with @where and holding @needle.
 */
void tu_osm_fails_len(enum tu_osm_fmt w, const char *text, size_t len, const char *where,
		      const char *needle);
/* tu_osm_fails() - tu_osm_fails_len() of a string. */
void tu_osm_fails(enum tu_osm_fmt w, const char *text, const char *where, const char *needle);
/*
 * tu_chunks() - @text split in place into its blocks (from each "Unicast lids" line; without
 * @blocks, its lines), sorted; free the array.
 */
char **tu_chunks(char *text, int blocks, size_t *n);
/*
 * tu_same_chunks() - @a and @b hold the same @want blocks (without @blocks: lines) in any order;
 * frees both.
 */
void tu_same_chunks(char *a, char *b, int blocks, size_t want);

/* --- tu_api.c: the REST API's epochs and answers ------------------------------- */

/*
 * tu_epoch_wrap() - route @f (freed) with @chain, evaluate with load, and wrap it all in an epoch.
 */
struct epoch *tu_epoch_wrap(struct fabric *f, const char *chain);
/* tu_gen_epoch() - tu_gen(@spec, 1) wrapped by tu_epoch_wrap(). */
struct epoch *tu_gen_epoch(const char *spec, const char *chain);
/* tu_kary_epoch() - the k=2, n=3 k-ary n-tree (12 switches, 8 CAs) routed by sftree. */
struct epoch *tu_kary_epoch(void);
/* tu_expect_err() - @j is NULL and @err is HTTP @status, @code, a message starting with @prefix. */
void tu_expect_err(json_t *j, const struct api_err *err, int status, const char *code,
		   const char *prefix);
/* tu_jint() - the integer member @key of @o; fails the test when it is not one. */
json_int_t tu_jint(const json_t *o, const char *key);
/* tu_jstr() - the string member @key of @o; fails the test when it is not one. */
const char *tu_jstr(const json_t *o, const char *key);
/* tu_ep_named() - the endpoint @desc names, as the API resolves it. */
uint32_t tu_ep_named(const struct fabric *f, const char *desc);

/* --- tu_canon.c: the same fabric in another order ----------------------------- */

/**
 * struct tu_run - one routing run, as tu_run_route() made it
 * @status: eng_run()'s status
 * @res: its result
 * @digest: rt_digest() of the routing (when @status is ENG_OK)
 */
struct tu_run {
	int status;
	struct eng_res res;
	char digest[RT_DIGEST_HEX];
};

/* tu_shuffle() - Fisher-Yates over @n elements of @size bytes (at most 64) with @rng. */
void tu_shuffle(void *base, size_t n, size_t size, struct fab_rng *rng);
/*
 * tu_rebuild() - @f rebuilt with its nodes added in the order @order gives (node indexes of
 * @f), its links in random order (@seed), each from a random end, and the SM where @f has it;
 * finalized. Descriptions, port GUIDs, LIDs, LMCs, widths, speeds and VL capacities come along.
 */
struct fabric *tu_rebuild(const struct fabric *f, const uint32_t *order, uint64_t seed);
/* tu_random_order() - the node indexes of @f in a random order (@seed); free it. */
uint32_t *tu_random_order(const struct fabric *f, uint64_t seed);
/* tu_reverse_order() - the node indexes of @f in reverse order; free it. */
uint32_t *tu_reverse_order(const struct fabric *f);
/*
 * tu_run_route() - one eng_run() of @chain (options @kv, @nkv) on @f, LIDs kept or assigned;
 * a repair of @prev (for @prev_f) when @prev is given. Into @run (free it with tu_run_free()).
 */
void tu_run_route(const struct fabric *f, const char *chain, const char *const *kv, size_t nkv,
		  const struct fabric *prev_f, const struct rt_routing *prev, struct tu_run *run);
/* tu_run_free() - free what tu_run_route() made. */
void tu_run_free(struct tu_run *run);
/*
 * tu_run_same() - runs @a and @b made the same routing: the same engine, LIDs, LFTs, SL2VL
 * tables, path SLs, DLID offsets, notes and digest. @what names the case.
 */
void tu_run_same(const struct tu_run *a, const struct tu_run *b, const char *what);

#endif
