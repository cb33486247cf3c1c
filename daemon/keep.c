/* SPDX-License-Identifier: MIT */
/**
 * DOC: routings kept, not made again
 *
 * Two ways a routing is published without an engine routing it:
 *  - at start, the stored snapshot, when the source's fabric and the
 *    routing inputs are those it was made from (pipe_restore());
 *  - an OpenSM pass over the fabric the routing in force was made for,
 *    under the same settings (job_reuse()): a takeover's first pass on the
 *    new master is one, answered with the warm copy.
 * Both go through eng_run() in ENG_MODE_KEEP: the routing is evaluated and
 * judged like any other (the pass's from the routing in force's proof).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svc/log.h"
#include "daemon/pipeline_impl.h"

/* Routing inputs as one string: a stored snapshot is reusable when it matches. */
char *job_routing_key(const struct pipe_settings *s)
{
	size_t n = strlen(s->chain) + strlen(s->options) + 32;
	char *k = malloc(n);

	if (k)
		snprintf(k, n, "%s|%s|lmc=%u", s->chain, s->options, s->lmc);
	return k;
}

/* A hash of what a routing is made under besides the fabric (struct epoch's @inputs); never 0. */
uint64_t job_inputs(const struct pipe_settings *s)
{
	char key[64];
	uint64_t h = 14695981039346656037ull;
	const char *parts[] = { s->chain, "|", s->options, "|", key };

	snprintf(key, sizeof(key), "%u|%d|%d|%u|%zu|%llu", s->lmc, s->policy, s->repair,
		 s->budget.time_ms, s->budget.memory, (unsigned long long)s->files_gen);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		for (const char *c = parts[i]; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
	return h ? h : 1;
}

/*
 * The routing in force @cur may stand for what this pass would make: OpenSM
 * gave a fabric alike to the one @cur was made for (fab_routes_alike()),
 * under the same settings, and @cur is the chain's routing or a repair of
 * the base that is still the base. Every engine being canonical, routing
 * again would give the same tables.
 */
static int reusable(const struct pipeline *p, const struct job *j, const struct fabric *f,
		    const struct epoch *cur)
{
	int full = !strcmp(cur->kind, "full") || !strcmp(cur->kind, "rebalance");
	int repair = !strcmp(cur->kind, "repair");

	return j->given && !j->repair_only && cur->inputs && cur->inputs == job_inputs(&j->set) &&
	       ((full && p->base.epoch == cur) || (repair && cur->base && cur->base == p->base.epoch)) &&
	       fab_routes_alike(cur->fabric, f);
}

/*
 * @cur's routing for @f, kept (ENG_MODE_KEEP) and proven from @cur's proof:
 * a new epoch without routing again, or NULL (then the pass routes).
 */
struct epoch *job_reuse(struct pipeline *p, struct job *j, const struct fabric *f, struct epoch *cur)
{
	struct eng_chain c;
	struct eng_since since = { cur->fabric, cur->routing, &cur->report };
	struct eng_req req = { .fabric = f, .chain = &c, .prev_fabric = cur->fabric,
			       .prev = cur->routing, .mode = ENG_MODE_KEEP, .eval = &job_eval_opts,
			       .since = &since, .policy = (enum eng_policy)j->set.policy };
	struct fab_err err = { { 0 } };
	struct fabric *g = NULL;
	struct eng_res res;
	struct epoch *e = NULL;
	char line[160];
	int rc;

	if (!reusable(p, j, f, cur))
		return NULL;
	if (f->sm_node != cur->fabric->sm_node || f->sm_port != cur->fabric->sm_port) {
		/*
		 * The SM moved (a failover): the epoch says where it was when the
		 * routing was made (sftree's root avoids its leaf), so that a
		 * standby that routes this epoch's fabric as its base gets these
		 * tables. Alike fabrics number their nodes alike.
		 */
		if (!(g = fab_copy(f, &err)))
			return NULL;
		g->sm_node = cur->fabric->sm_node;
		g->sm_port = cur->fabric->sm_port;
		req.fabric = g;
	}
	if (eng_chain_parse_str(&c, cur->engine, "", &err)) {
		fab_free(g);
		return NULL;
	}
	rc = eng_run(&req, &res, &err);
	eng_chain_free(&c);
	fab_free(g);
	if (rc != ENG_OK || !(e = job_epoch_from(&res, cur->chain, &err))) {
		log_info("the routing in force is not kept for the unchanged fabric, the chain routes: %s",
			 err.msg[0] ? err.msg : res.log);
		return NULL;
	}
	e->inputs = cur->inputs;
	snprintf(e->engine, sizeof(e->engine), "%s", cur->engine);
	snprintf(line, sizeof(line), "%s: kept epoch %llu's routing: the fabric and the settings are those it "
		 "was made for", cur->engine, (unsigned long long)cur->seq);
	free(e->engine_log);
	e->engine_log = strdup(line);
	j->kind = strcmp(cur->kind, "repair") ? JOB_FULL : JOB_REPAIR;	/* job_diff() counts it */
	log_info("%s", line);
	return e;
}

/* --- restore -------------------------------------------------------------------- */

/* Every endpoint of @a has the same LID and LMC in @b (found by port GUID). */
static int same_lids(const struct fabric *a, const struct fabric *b)
{
	if (a->neps != b->neps)
		return 0;
	for (uint32_t e = 0; e < a->neps; e++) {
		const struct fab_port *pa = fab_port(a, a->eps[e].node, a->eps[e].port);
		uint32_t eb = fab_ep_by_port_guid(b, pa->guid);

		if (eb == FAB_NONE || fab_ep_lid(b, eb) != pa->lid || fab_ep_lmc(b, eb) != pa->lmc)
			return 0;
	}
	return 1;
}

/* The stored snapshot matches the fabric the source gives now, with the stored LIDs. */
static int snapshot_matches(struct pipeline *p, const struct store_snap *snap, struct fab_err *err)
{
	struct fabric *f = srcf_fabric(p->src, err);
	struct fab_lid_pin *pins = NULL;
	size_t n = 0;
	int ok = f && !store_lids_pins(p->st, &pins, &n, err) &&
		 !fab_lids_assign(f, pins, n, FAB_LIDS_KEEP, p->set.lmc, err) &&
		 fab_topology_hash(f) == snap->topo_hash && same_lids(f, snap->f);

	free(pins);
	fab_free(f);
	return ok;
}

/* The stored routing @snap as an epoch: eng_run() in ENG_MODE_KEEP evaluates and judges it. */
static struct epoch *restored(struct pipeline *p, const struct store_snap *snap, struct fab_err *err)
{
	struct eng_chain c;
	struct eng_req req = { .fabric = snap->f, .chain = &c, .prev_fabric = snap->f,
			       .prev = snap->r, .mode = ENG_MODE_KEEP, .eval = &job_eval_opts,
			       .policy = (enum eng_policy)p->set.policy };
	struct eng_res res;
	struct epoch *e = NULL;
	int rc;

	if (eng_chain_parse_str(&c, snap->engine, "", err))
		return NULL;
	rc = eng_run(&req, &res, err);
	eng_chain_free(&c);
	if (rc == ENG_OK && (e = job_epoch_from(&res, snap->chain, err))) {
		e->compute_ms = snap->compute_ms;
		free(e->engine_log);
		e->engine_log = strdup("restored from the store");
	}
	return e;
}

int pipe_restore(struct pipeline *p)
{
	struct store_snap snap = { 0 };
	struct fab_err err = { { 0 } };
	char *stored = NULL, *key = job_routing_key(&p->set);
	int64_t id = store_snapshot_latest(p->st, &err);
	struct epoch *e = NULL;
	int done = 0;

	if (!p->src || id <= 0 || !key || store_setting_get(p->st, "routing_key", &stored, &err) ||
	    !stored || strcmp(stored, key) || store_snapshot_load(p->st, id, &snap, &err) ||
	    !snapshot_matches(p, &snap, &err) || !(e = restored(p, &snap, &err)))
		goto out;
	e->seq = snap.seq;
	e->snapshot_id = id;
	snprintf(e->kind, sizeof(e->kind), "restore");
	e->base_seq = e->seq;
	if (job_publish_epoch(p, e, "restore", &err))
		goto out;
	job_make_state(e, NULL);
	if (!repair_routing(e->routing)) {	/* a stored repair's base is not known */
		job_base_set(p, e);
		pthread_mutex_lock(&p->mu);
		p->prep_due = p->set.repair;	/* the worker, idle, prepares its repairs */
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	log_notice("epoch %llu restored from snapshot %lld without recomputing (evaluated in %.0f ms)",
		   (unsigned long long)e->seq, (long long)id, e->eval_ms);
	pipe_event(p->st, "daemon", NULL, "epoch %llu restored from snapshot %lld without recomputing",
		   (unsigned long long)e->seq, (long long)id);
	done = 1;
out:
	if (err.msg[0] && !done)
		log_info("not restoring the stored routing: %s", err.msg);
	epoch_unref(e);
	store_snap_free(&snap);
	free(stored);
	free(key);
	return done;
}
