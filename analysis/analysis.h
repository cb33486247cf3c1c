/* SPDX-License-Identifier: MIT */
/**
 * DOC: routing analysis
 *
 * What fabroute proves about a routing (struct rt_routing) on a fabric:
 *
 *  - path tracing through the LFTs from any endpoint (a CA or router port,
 *    or a switch's port 0) to any DLID, hop by hop with the VL of each hop,
 *    and why a path fails when it does;
 *  - connectivity of every (source, destination) endpoint pair, by class
 *    (CA->CA, CA->SW, SW->CA, SW->SW), using the DLID the routing assigns to
 *    the pair (and optionally every LID of the destination's LMC range);
 *  - deadlock freedom: the channel dependency graph (CDG) of all paths,
 *    switch-sourced and switch-destined ones included, with channels
 *    (directed switch-to-switch link, VL) and each hop's VL from the pair's
 *    path SL and the switch's SL2VL table; per VL: acyclic or not, with one
 *    cycle as evidence;
 *  - load: routed pairs per channel under all-to-all traffic, per-switch
 *    balance of DLIDs over output ports, and the maximum link load of
 *    machine-to-machine traffic where each machine sends 1 in total;
 *  - permutation metrics (WORST exactly; ABB, AFPB, ADB by sampling).
 *
 * Destination-based routing makes all of this cheap: the path from switch s
 * towards DLID d does not depend on where the packet came from, so per DLID
 * the LFTs form a functional graph over the switches, resolved once
 * (O(switches)) for all sources. Only VLs depend on the source (through the
 * path SL) and on the input port (through SL2VL). an_evaluate() makes one
 * pass per destination that gives its share of connectivity, dependencies
 * and load at once, from the sources counted per switch where they enter:
 * O(destinations x switches) when the routing has no per-pair DLIDs or
 * SLs (O(destinations x endpoints) when it has), spread over threads.
 * an_reevaluate() redoes only the destinations a change touched.
 *
 * Pure functions of (fabric, routing, options): no I/O, no global state.
 */
#ifndef FABROUTE_ANALYSIS_H
#define FABROUTE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/routing.h"

#define AN_VLS 16u
#define AN_EXAMPLES 5u

/* Why a path does not deliver. */
enum an_fail {
	AN_DELIVERED = 0,
	AN_NO_ENTRY,		/* LFT entry is 0xFF or past the table: a black hole */
	AN_LINK_DOWN,		/* LFT points at a port that is not linked */
	AN_LOOP,		/* the packet comes back to a switch it crossed */
	AN_WRONG_PORT,		/* delivered to a port that does not own the DLID */
	AN_NO_LINK,		/* the source port itself is not linked */
	AN_NFAILS,
};

const char *an_fail_name(enum an_fail f);	/* "delivered", "no-entry", ... */

/** struct an_hop - one switch crossed (or the final delivery) */
struct an_hop {
	uint32_t node;
	uint8_t in_port;	/* 0 when the path starts at this switch */
	uint8_t out_port;	/* 0 at the destination switch's port 0 */
	uint8_t vl;		/* VL on the link leaving through out_port */
};

/**
 * struct an_path - a traced path
 * @hops: the switches crossed, in order (a path between two CAs on one
 *        switch has one hop); @nhops of them; allocated by an_trace()
 * @fail: AN_DELIVERED or why not
 * @dst_node, @dst_port: where the packet ended up (FAB_NONE when lost)
 * @src_vl: VL on the source port's link (CA sources)
 */
struct an_path {
	struct an_hop *hops;
	uint32_t nhops, cap;
	enum an_fail fail;
	uint32_t dst_node;
	uint8_t dst_port;
	uint8_t src_vl;
};

/**
 * an_trace() - follow the LFTs from endpoint @src to @dlid with @sl
 * Return: 0 (look at p->fail), or -1 when out of memory. Free p->hops with
 * an_path_free().
 */
int an_trace(const struct fabric *f, const struct rt_routing *r, uint32_t src, unsigned dlid,
	     unsigned sl, struct an_path *p);
void an_path_free(struct an_path *p);

enum an_class { AN_CA_CA, AN_CA_SW, AN_SW_CA, AN_SW_SW, AN_NCLASSES };

const char *an_class_name(enum an_class c);	/* "ca-ca", ... */

struct an_example {
	uint32_t src, dst;	/* endpoints */
	uint16_t dlid;
	uint8_t fail;		/* enum an_fail */
};

/**
 * struct an_conn - connectivity by class
 * @pairs: ordered (source, destination) endpoint pairs checked, self excluded
 * @unreachable: pairs not delivered (with --all-lids: pairs with any LID of
 *               the destination's range not delivered)
 * @by_fail: unreachable pairs by failure kind
 * @ex: up to AN_EXAMPLES failing pairs per class
 * @max_hops: longest delivered path, in switches crossed
 */
struct an_conn {
	uint64_t pairs[AN_NCLASSES];
	uint64_t unreachable[AN_NCLASSES];
	uint64_t by_fail[AN_NCLASSES][AN_NFAILS];
	struct an_example ex[AN_NCLASSES][AN_EXAMPLES];
	uint32_t nex[AN_NCLASSES];
	uint32_t max_hops;
};

/** struct an_channel - a directed switch-to-switch link on one VL */
struct an_channel {
	uint32_t node;		/* the switch it leaves */
	uint8_t port;		/* through this port */
	uint8_t vl;
};

/**
 * struct an_vl - the CDG restricted to one VL
 * @paths: (destination LID, SL) walks that used the VL, counted per pair
 * @channels: channels of this VL carrying at least one path
 * @deps: dependencies between channels of this VL
 * @acyclic: no cycle among them
 * @cycle: when cyclic, one cycle (channel i depends on channel i+1, the
 *         last on the first); @cycle_len channels
 */
struct an_vl {
	uint64_t paths;
	uint32_t channels;
	uint64_t deps;
	int acyclic;
	struct an_channel *cycle;
	uint32_t cycle_len;
};

/**
 * struct an_cdg - deadlock analysis
 * @vls_used: bit v set when some hop of some delivered path uses VL v
 * @vl: per VL
 * @cross_deps: dependencies between channels of different VLs
 * @cross_cycle: a cycle through several VLs exists (each VL alone may be acyclic)
 * @deadlock_free: no cycle at all
 */
struct an_cdg {
	uint16_t vls_used;
	struct an_vl vl[AN_VLS];
	uint64_t cross_deps;
	int cross_cycle;
	int deadlock_free;
};

#define AN_LOAD_BUCKETS 10u

/**
 * struct an_load - load under all-to-all traffic
 * @sw_channels: directed switch-to-switch links
 * @max, @mean: routed pairs per switch-to-switch link (all pairs, all classes)
 * @hist: links by load, AN_LOAD_BUCKETS equal buckets of [0, max]
 * @max_node, @max_port: the busiest link
 * @ca_max_load: papers/002: each CA port sends 1 in total, spread evenly over
 *               the other CA ports; the largest sum over any link (terminal
 *               links included)
 * @balance_max: largest (most - fewest) DLIDs over the used output ports of
 *               one switch, over all switches; @balance_node is that switch
 */
struct an_load {
	uint32_t sw_channels;
	uint64_t max;
	double mean;
	uint32_t hist[AN_LOAD_BUCKETS];
	uint32_t max_node;
	uint8_t max_port;
	double ca_max_load;
	uint32_t balance_max;
	uint32_t balance_node;
};

/* The default of an_opts.rows_max. */
#define AN_ROWS_MAX ((size_t)64 << 20)

/**
 * struct an_opts - what to compute
 * @all_lids: check every LID of each destination's range, not only the DLID
 *            the routing assigns to the pair
 * @ca_only: only CA-to-CA pairs enter the CDG (what ibdmchk checks); the
 *           default includes paths from and to switches
 * @load: compute struct an_load
 * @parallel: spread the destinations over one thread per online CPU
 * @threads: threads to use (overrides @parallel); 0: one, or with @parallel
 *           one per online CPU. The report is the same whatever the count.
 * @incremental: keep in the report what an_reevaluate() needs to redo only
 *               the destinations a later change touches (memory: about
 *               (ports of the widest switch + 2) x 4 bytes per switch port
 *               and VL in use, plus 32 bytes per port); with @load, also
 *               9 bytes per destination and switch, when they come to at most
 *               @rows_max, so that a destination a repair changed only near
 *               the change is worked out there alone
 * @rows_max: the most bytes of those; 0: AN_ROWS_MAX (64 MiB)
 * @state_later: with @incremental, a report made by evaluating every
 *               destination (an_evaluate(), or an_reevaluate() when it
 *               evaluates in full) comes without the state, from the
 *               faster proof of a routing on one VL that does not count;
 *               an_state_make() adds the state afterwards (the same
 *               figures). A re-evaluation keeps the state it updates.
 * @progress: when set, called now and then with the destinations done and
 *            their total, from the calling thread (@progress_arg passed back)
 * @cancel: when set, the evaluation stops soon after *@cancel becomes
 *          non-zero (it is read atomically, as the threads take their next
 *          destinations) and fails with "evaluation cancelled"
 */
struct an_opts {
	int all_lids;
	int ca_only;
	int load;
	int parallel;
	unsigned threads;
	int incremental;
	size_t rows_max;
	int state_later;
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	const int *cancel;
};

struct an_state;

/**
 * struct an_report - what an_evaluate() found
 * @conn, @cdg, @load: the figures
 * @dests: destination endpoints evaluated by the call that made the report
 *         (all of them, or those an_reevaluate() redid)
 * @dests_near: of those an_reevaluate() redid, the ones whose old share
 *              it worked out near the change alone (analysis/reeval_near.c)
 * @dests_kept: of those, the ones worked out from the rows kept beside the
 *              sums, without a pass over every switch (analysis/reeval_kept.c)
 * @state: with an_opts.incremental, the sums an_reevaluate() starts from
 *         (private to analysis/; NULL otherwise)
 * @port_all, @port_ca: with load, per port slot (fabric->nodes[n].port0 + p,
 *                      nports + 1 entries) the pairs routed out of that port
 *                      (a switch port: the pairs whose path leaves by it; a
 *                      CA or router port: the pairs it sends), all pairs and
 *                      CA-to-CA pairs, what @load is taken from; NULL without
 *                      load and from the reference evaluator
 */
struct an_report {
	struct an_conn conn;
	struct an_cdg cdg;
	struct an_load load;
	uint32_t dests, dests_near, dests_kept;
	struct an_state *state;
	uint64_t *port_all, *port_ca;
};

/**
 * an_evaluate() - connectivity, deadlock freedom and (optionally) load
 * Return: 0, or -1 with @err set (out of memory, routing and fabric that do
 * not belong together). Free with an_report_free().
 */
int an_evaluate(const struct fabric *f, const struct rt_routing *r, const struct an_opts *o,
		struct an_report *rep, struct fab_err *err);
void an_report_free(struct an_report *rep);

/**
 * an_state_make() - the state an_reevaluate() starts from, for @rep, a
 * report of (@f, @r) made with @o->state_later (see struct an_opts): the
 * destinations evaluated again, counting, and the sums stored in
 * @rep->state; its figures are left as they are. Nothing to do when
 * @rep->state is set or @o->incremental is not.
 * Return: 0, or -1 with @err set (@rep unchanged).
 */
int an_state_make(const struct fabric *f, const struct rt_routing *r, const struct an_opts *o,
		  struct an_report *rep, struct fab_err *err);

/**
 * struct an_change - what differs between two routings of one fabric
 * @lids: DLIDs whose LFT entry changed on some switch; @nlids
 * @switches: switches whose LFT changed (their rows are compared to find
 *            the LIDs); @nswitches
 */
struct an_change {
	const uint32_t *lids;
	size_t nlids;
	const uint32_t *switches;
	size_t nswitches;
};

/**
 * an_reevaluate() - evaluate (@f, @r) by redoing only what changed since
 * (@prev_f, @prev_r), whose report @prev was made with @o->incremental
 * @chg: the LIDs and switches whose LFT entries changed; NULL: every table
 *       is compared (a few milliseconds per 10^7 entries)
 *
 * A destination is redone when its LFT column changed on some switch or
 * some switch's entry for it points at a port whose link changed (went
 * down, came up, or leads elsewhere): its pairs are taken out of the sums
 * as @prev_r routed them on @prev_f and put back as @r routes them on @f.
 * The report is the one an_evaluate() would give (same figures, cycles
 * and examples); rep->dests says how many destinations were redone. A
 * full evaluation is made instead when more than half the destinations
 * changed (it costs less then), when @prev has no state, the options
 * differ, the fabrics differ in more than links between switches (nodes,
 * ports, endpoints, LIDs, where CAs are cabled), the SL2VL tables differ,
 * or a routing has per-pair DLIDs or SLs.
 *
 * @prev's state moves to @rep (@prev keeps its figures, @prev->state
 * becomes NULL); it is freed on failure. @o->incremental is implied.
 * Return: 0, or -1 with @err set. Free @rep with an_report_free().
 */
int an_reevaluate(const struct fabric *prev_f, const struct rt_routing *prev_r,
		  struct an_report *prev, const struct fabric *f, const struct rt_routing *r,
		  const struct an_opts *o, const struct an_change *chg, struct an_report *rep,
		  struct fab_err *err);

/**
 * struct an_reach - switch-to-switch reachability, as the LFTs deliver it
 * @pairs, @unreachable: ordered (source, destination) switch pairs checked
 *                       and not delivered, with the DLID the routing gives
 *                       the pair
 * @cannot: per switch (index in fabric->switches), destination switches it
 *          cannot reach
 * @from: per switch, source switches that cannot reach it
 * @ex: the first failing pairs by destination then source (src and dst are
 *      endpoint indexes, that is switch indexes); @nex of at most the
 *      @max_examples asked
 */
struct an_reach {
	uint64_t pairs, unreachable;
	uint32_t *cannot, *from;
	struct an_example *ex;
	uint32_t nex;
};

/**
 * an_reach_switches() - every ordered switch pair: per destination switch
 * one resolution over all switches, O(switches^2) in all
 * Return: 0, or -1 with @err set. Free with an_reach_free().
 */
int an_reach_switches(const struct fabric *f, const struct rt_routing *r, uint32_t max_examples,
		      struct an_reach *out, struct fab_err *err);
void an_reach_free(struct an_reach *out);

/** an_connected() - every pair of every class delivered. */
int an_connected(const struct an_report *rep);

/* --- permutation metrics of papers/003 (analysis/perm.c) --------------- */

/**
 * struct an_perm_opts - what to compute
 * @worst: WORST, exactly (refused beyond 8192 machines: it traces every
 *         machine pair and matches them link by link)
 * @sample: ABB, AFPB and ADB by sampling random patterns
 * @seed: seed of the sampling (same seed, same figures)
 * @rel_ci: stop when the 99% confidence interval's half width is below
 *          @rel_ci times the mean (0 means 0.01, papers/003's threshold)
 * @min_samples, @max_samples: patterns per metric: the first batch, doubled
 *                             until @rel_ci is met or @max_samples reached
 *                             (0: 1000 as in papers/003, and 128000;
 *                             @min_samples must be at least 2)
 */
struct an_perm_opts {
	int worst;
	int sample;
	uint64_t seed;
	double rel_ci;
	uint32_t min_samples, max_samples;
};

/**
 * struct an_perm_metric - one sampled average
 * @mean: average of 1 / (maximum link load) over the patterns (a pattern
 *        none of whose pairs is routed counts as 1)
 * @ci: half width of its 99% confidence interval
 * @samples: patterns drawn
 */
struct an_perm_metric {
	double mean, ci;
	uint32_t samples;
};

/**
 * struct an_perm - permutation metrics over the machines (CA ports): every
 * machine sends to at most one and receives from at most one other
 * @machines: CA endpoints taking part
 * @worst: the largest number of pairs of one permutation sharing one link
 *         (a maximum bipartite matching among the pairs routed over each
 *         link); @worst_node and @worst_port: the port a link reaching it
 *         leaves by (the first such switch port in node and port order;
 *         when WORST is 1, the port of the first machine with a routed pair)
 * @abb, @afpb, @adb: average bisect, full permutation and dissemination
 *                    bandwidth; with an odd machine count one machine idles
 *                    in bisect and dissemination patterns
 */
struct an_perm {
	uint32_t machines;
	uint32_t worst;
	uint32_t worst_node;
	uint8_t worst_port;
	struct an_perm_metric abb, afpb, adb;
};

/**
 * an_perm_run() - compute the metrics @o asks for
 * Pairs whose path does not deliver are ignored; links to and from the
 * machines count. Return: 0, or -1 with @err set (fewer than two machines,
 * routing made for another fabric, bad options, WORST over too many
 * machines, out of memory); *@out is zeroed then.
 */
int an_perm_run(const struct fabric *f, const struct rt_routing *r, const struct an_perm_opts *o,
		struct an_perm *out, struct fab_err *err);

#endif
