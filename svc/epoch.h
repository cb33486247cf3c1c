/* SPDX-License-Identifier: MIT */
/**
 * DOC: epochs
 *
 * An epoch is one published routing of the fabric: the fabric as routed
 * (with its LIDs), the routing, its evaluation, and where it came from.
 * Once published it is immutable and reference counted. API handlers take
 * a reference with epoch_slot_get(), read it without any lock, and drop it
 * with epoch_unref(); a reroute builds the next epoch and swaps it in with
 * epoch_slot_publish(). No request ever sees half a routing.
 */
#ifndef FABROUTE_SVC_EPOCH_H
#define FABROUTE_SVC_EPOCH_H

#include <pthread.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "fabric/fabric.h"
#include "fabric/routing.h"

/**
 * struct epoch - one published routing
 * @refs: references (guarded by @mu)
 * @seq: epoch sequence number, 1 for the first, +1 per publication, allocated
 *        in the store before publication (store_seq_next())
 * @snapshot_id: the store's snapshot id, 0 while not stored; set after
 *               publication: read it with epoch_snapshot_id()
 * @published_ms: wall-clock time of publication (ms since the Unix epoch)
 * @reason: what caused it: "startup", "restore", "fault", "api", "engine", "source"
 * @chain: the engine chain asked for; @engine: the engine that routed
 * @kind: "full" (the chain's routing), "repair" (of the base), "rebalance"
 *        or "restore"; a standby's copy of the master's epoch has the kind of
 *        the epoch it copies (and the reason "mirror")
 * @base_seq: the epoch a repair repairs (the base); @seq for the others
 * @base: a repair's base (a reference), NULL for the others
 * @engine_log: the chain's log (one line per engine tried)
 * @topo_hash: fab_topology_hash() of @fabric
 * @inputs: a hash of the settings the routing was made under (chain, options,
 *          LMC, policy, repair, budget, option files), 0 when not made by the
 *          chain or the repair engine (a restore, OpenSM's own): a routing
 *          made under others is never reused for an unchanged fabric
 * @compute_ms, @eval_ms: time spent routing and evaluating
 * @fabric: the fabric routed, finalized, with LIDs
 * @routing: the routing
 * @opts, @report: the evaluation (switches included, with load)
 * @cache_mu: guards @link_routes and @api_cache, computed on first use
 * @link_routes: per port slot (fabric->nodes[n].port0 + p), the pairs whose
 *               path leaves through that port under all-to-all traffic; then
 *               (from fabric->nports + 1 on) the same for the CA-to-CA pairs
 *               (api_link_routes())
 * @digest: rt_digest() of @fabric and @routing, "" until computed (guarded
 *          by @mu; read it with epoch_digest())
 * @api_cache: an answer of the API built once per epoch (the body of GET
 *             /api/topology), freed with @api_cache_free
 */
struct epoch {
	int refs;
	pthread_mutex_t mu;	/* guards @snapshot_id and @digest, the members set after publication */
	uint64_t seq;
	int64_t snapshot_id;
	int64_t published_ms;
	char reason[32];
	char chain[256];
	char engine[32];
	char kind[12];
	uint64_t base_seq;
	struct epoch *base;
	char *engine_log;
	uint64_t topo_hash;
	uint64_t inputs;
	double compute_ms, eval_ms;
	struct fabric *fabric;
	struct rt_routing *routing;
	struct an_opts opts;
	struct an_report report;
	pthread_mutex_t cache_mu;
	uint64_t *link_routes;
	char digest[RT_DIGEST_HEX];
	void *api_cache;
	void (*api_cache_free)(void *cache);
};

/** epoch_new() - a zeroed epoch holding one reference; NULL when out of memory. */
struct epoch *epoch_new(void);
struct epoch *epoch_ref(struct epoch *e);
/** epoch_unref() - drop a reference; the last one frees fabric, routing and report. */
void epoch_unref(struct epoch *e);

/** epoch_snapshot_id() - @e's snapshot id, 0 while not stored (thread-safe). */
int64_t epoch_snapshot_id(const struct epoch *e);
/** epoch_set_stored() - record that @e is stored as snapshot @id (thread-safe). */
void epoch_set_stored(struct epoch *e, int64_t id);

/**
 * epoch_digest() - the routing's digest (rt_digest() of @e's fabric and
 * routing: 64 hex digits), computed on the first call and kept; what two
 * nodes compare to know they hold the same tables. Thread-safe; "" when
 * @e has no routing or it cannot be computed.
 */
const char *epoch_digest(const struct epoch *e);

/** epoch_ready() - routed, every pair of every class delivered, deadlock-free. */
int epoch_ready(const struct epoch *e);

/**
 * struct epoch_slot - where the current epoch lives
 * @mu: guards @cur (held only to swap or take a reference)
 * @cur: the current epoch, NULL before the first publication
 */
struct epoch_slot {
	pthread_mutex_t mu;
	struct epoch *cur;
};

void epoch_slot_init(struct epoch_slot *s);
/** epoch_slot_fini() - drop the current epoch. */
void epoch_slot_fini(struct epoch_slot *s);
/** epoch_slot_get() - a reference to the current epoch, or NULL; release with epoch_unref(). */
struct epoch *epoch_slot_get(struct epoch_slot *s);
/** epoch_slot_publish() - make @e current (the slot takes the caller's reference). */
void epoch_slot_publish(struct epoch_slot *s, struct epoch *e);

#endif
