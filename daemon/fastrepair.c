/* SPDX-License-Identifier: MIT */
/**
 * DOC: the fast repair under OpenSM
 *
 * One thread: it sleeps until a trap is queued, takes every LID queued by
 * then (a trap storm is one repair), and runs find -> repair -> write as
 * fastrepair.h describes. The MAD port is opened on the first trap and
 * kept.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "api/server.h"
#include "daemon/fastrepair.h"
#include "daemon/loop.h"
#include "engines/ftdlr/ftdlr.h"
#include "svc/log.h"

#define FR_LIDS_MAX 64

struct fastrep {
	struct smp_opts o;
	char ca[64];
	struct pipeline *p;
	struct epoch_slot *slot;
	struct store *st;
	struct smp *smp;
	struct smp_routes *routes;	/* directed routes over the fabric of ... */
	struct epoch *routes_e;		/* ... this epoch (a reference) */
	pthread_t th;
	pthread_mutex_t mu;	/* guards what follows */
	pthread_cond_t cv;
	int quit;
	unsigned lids[FR_LIDS_MAX], nlids;
	double first_ms;	/* when the first queued trap arrived */
	uint64_t held;		/* the epoch the switches hold (installed or written), 0: unknown */
	struct fr_stats stats;
};

/* A port the routing in force links and the switch reports down. */
struct fr_dead {
	uint32_t node;
	unsigned port;
};

/* What one fast repair did. */
struct fr_run {
	struct fr_dead dead[FR_LIDS_MAX];
	unsigned ndead;
	uint32_t blocks, switches;
	unsigned steps;
	uint64_t smps;		/* SMPs sent, retries included */
	json_t *step_ms;	/* per step: its writes' time */
	double trap_ms, start_ms, probed_ms, repaired_ms, staged_ms, written_ms, routes_ms;
	double cpu0_ms, cpu_ms;	/* fabrouted's CPU time at the start, used to the publication */
};

/*
 * fabrouted's CPU time (ms), all threads: the repair runs in the
 * pipeline's, its proof may use more. Beside the wall time, it tells
 * the work from the time spent waiting for a core.
 */
static double cpu_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/*
 * The directed routes over @e's fabric, from fabrouted's port: those of the
 * last call when it was for the same epoch (the repair just written is the
 * epoch in force at the next trap). NULL with @err.
 */
static const struct smp_routes *routes(struct fastrep *fr, struct epoch *e, struct fr_run *run,
				       struct fab_err *err)
{
	double t0 = loop_now_fms();

	if (fr->routes_e == e)
		return fr->routes;
	smp_routes_free(fr->routes);
	epoch_unref(fr->routes_e);
	fr->routes_e = NULL;
	if ((fr->routes = smp_routes(e->fabric, smp_port_guid(fr->smp), err)))
		fr->routes_e = epoch_ref(e);
	run->routes_ms += loop_now_fms() - t0;
	return fr->routes;
}

/* --- finding the dead ports ----------------------------------------------------- */

static int probe_around(struct fastrep *fr, const struct fabric *f, const struct smp_routes *r,
			uint32_t node, struct fr_run *run, struct fab_err *err);

/* The PortInfo Gets of the linked ports of switch @node over @r, appended to @q at *@n. */
static int port_gets(const struct fabric *f, const struct smp_routes *r, uint32_t node,
		     struct smpw_req *q, size_t *n, struct fab_err *err)
{
	ib_portid_t dest;

	if (smp_dest(r, node, &dest, err))
		return -1;
	for (unsigned p = 1; p <= f->nodes[node].nports; p++)
		if (fab_port(f, node, p)->peer != FAB_NONE)
			q[(*n)++] = (struct smpw_req){ .dest = dest, .attr = IB_ATTR_PORT_INFO,
						       .mod = p, .tag = node };
	return 0;
}

/*
 * Ask switches @nodes over @r for the state of their linked ports, all the
 * Gets a window at a time; the ports down go to @run. A switch that did not
 * answer every Get is asked again around the last hop of its route when
 * @around (that hop may be the dead link), else it fails. 0, or -1 with @err.
 */
static int probe(struct fastrep *fr, const struct fabric *f, const struct smp_routes *r,
		 const uint32_t *nodes, unsigned nn, int around, struct fr_run *run,
		 struct fab_err *err)
{
	struct smpw_stats st = { 0 };
	struct smpw_req *q;
	size_t n = 0, cap = 1, i = 0;
	int rc = 0;

	for (unsigned k = 0; k < nn; k++)
		cap += f->nodes[nodes[k]].nports;
	if (!(q = calloc(cap, sizeof(*q)))) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	for (unsigned k = 0; !rc && k < nn; k++)
		rc = port_gets(f, r, nodes[k], q, &n, err);
	if (!rc)
		smp_run(fr->smp, q, n, 0, &st);
	run->smps += st.sent;
	for (unsigned k = 0; !rc && k < nn; k++) {
		size_t first = i;
		int answered = 1;

		for (; i < n && q[i].tag == nodes[k]; i++)
			answered &= q[i].done == 1;
		if (!answered && around) {
			rc = probe_around(fr, f, r, nodes[k], run, err);
			continue;
		}
		if (!answered) {
			fab_err_set(err, "%s does not answer PortInfo", fab_desc(f, nodes[k]));
			rc = -1;
		}
		for (size_t j = first; !rc && j < i; j++)
			if (mad_get_field(q[j].data, 0, IB_PORT_STATE_F) == SMP_PORT_DOWN &&
			    run->ndead < FR_LIDS_MAX)
				run->dead[run->ndead++] = (struct fr_dead){ nodes[k], q[j].mod };
	}
	free(q);
	return rc;
}

/*
 * probe() over routes that do not enter @node the way @r does: when that
 * last hop is the dead link itself, the first probe gets no answer.
 */
static int probe_around(struct fastrep *fr, const struct fabric *f, const struct smp_routes *r,
			uint32_t node, struct fr_run *run, struct fab_err *err)
{
	struct smp_routes *r2 = NULL;
	struct fabric *g;
	uint32_t prev;
	unsigned port;
	int rc = -1;

	if (smp_route_entry(r, f, node, &prev, &port) || !(g = fab_copy(f, err)))
		return -1;
	fab_link_remove(g, prev, port);
	if (!fab_finalize(g, err) && (r2 = smp_routes(g, smp_port_guid(fr->smp), err)))
		rc = probe(fr, f, r2, &node, 1, 0, run, err);
	smp_routes_free(r2);
	fab_free(g);
	return rc;
}

/*
 * The dead ports of the switches of @lids in the fabric in force: 0, 1 when
 * none is down (the other end of a link already repaired, or a port that
 * came back: it waits for OpenSM to activate it), or -1 with @err.
 */
static int find_dead(struct fastrep *fr, struct epoch *e, const unsigned *lids,
		     unsigned n, struct fr_run *run, struct fab_err *err)
{
	const struct fabric *f = e->fabric;
	const struct smp_routes *r = routes(fr, e, run, err);
	uint32_t nodes[FR_LIDS_MAX];
	unsigned nn = 0;
	int rc;

	for (unsigned i = 0; i < n; i++) {
		uint32_t ep = fab_ep_by_lid(f, lids[i]), node;
		unsigned k = 0;

		if (ep == FAB_NONE || f->nodes[node = f->eps[ep].node].type != FAB_SWITCH)
			continue;
		while (k < nn && nodes[k] != node)
			k++;
		if (k == nn)
			nodes[nn++] = node;
	}
	rc = r ? probe(fr, f, r, nodes, nn, 1, run, err) : -1;
	if (!rc && !run->ndead)
		rc = 1;
	return rc;
}

/* The fabric in force without the dead links; NULL with @err. */
static struct fabric *without_dead(const struct epoch *e, const struct fr_run *run,
				   struct fab_err *err)
{
	struct fabric *f = fab_copy(e->fabric, err);
	int again = 0;	/* a link that is not between switches: finalized anew */

	if (!f)
		return NULL;
	for (unsigned i = 0; i < run->ndead; i++)
		if (fab_port(f, run->dead[i].node, run->dead[i].port)->peer != FAB_NONE &&
		    fab_switch_link_remove(f, run->dead[i].node, run->dead[i].port)) {
			fab_link_remove(f, run->dead[i].node, run->dead[i].port);
			again = 1;
		}
	if (again && fab_finalize(f, err)) {
		fab_free(f);
		return NULL;
	}
	return f;
}

/* --- writing ------------------------------------------------------------------------ */

/* The Sets of step @k of @p: the blocks that differ from the step before's (@a's before the first). */
static int block_sets(const struct fabric *f, const struct smp_routes *r, const struct ftdlr_plan *p,
		      const struct rt_routing *a, const struct rt_routing *b, unsigned k,
		      struct smpw_req **q, size_t *n, struct fab_err *err)
{
	size_t cap = 0;

	for (size_t i = 0, next; i < p->n; i = next) {
		uint8_t before[FTDLR_BLOCK], after[FTDLR_BLOCK];
		struct smpw_req *w;

		ftdlr_plan_block(p, a, b, i, (int)k - 1, before);
		next = ftdlr_plan_block(p, a, b, i, (int)k, after);
		if (!memcmp(before, after, sizeof(after)))
			continue;
		if (*n == cap) {
			if (!(w = realloc(*q, (cap = cap ? 2 * cap : 64) * sizeof(*w)))) {
				fab_err_set(err, "out of memory");
				return -1;
			}
			*q = w;
		}
		w = &(*q)[(*n)++];
		*w = (struct smpw_req){ .attr = IB_ATTR_LINEARFORWTBL,
					.mod = p->ent[i].lid / FTDLR_BLOCK, .set = 1, .tag = p->ent[i].sw };
		if (smp_dest(r, f->switches[p->ent[i].sw], &w->dest, err))
			return -1;
		memcpy(w->data, after, sizeof(after));
	}
	return 0;
}

/*
 * Write step @k of @p (the blocks where it differs from the step before),
 * a window at a time, and wait for every answer: the step is done when all
 * its switches have answered. Stops at the first block not answered.
 */
static int write_step(struct fastrep *fr, const struct fabric *f, const struct smp_routes *r,
		      const struct ftdlr_plan *p, const struct epoch *cur, const struct epoch *rep,
		      unsigned k, struct fr_run *run, uint8_t *touched, struct fab_err *err)
{
	struct smpw_stats st = { 0 };
	struct smpw_req *q = NULL;
	size_t n = 0;
	int rc = block_sets(f, r, p, cur->routing, rep->routing, k, &q, &n, err);

	if (!rc)
		rc = smp_run(fr->smp, q, n, 1, &st);
	run->smps += st.sent;
	for (size_t i = 0; i < n; i++) {
		if (q[i].done == 1) {
			run->blocks++;
			run->switches += !touched[q[i].tag];
			touched[q[i].tag] = 1;
		} else if (q[i].done < 0 && !err->msg[0]) {
			fab_err_set(err, "LFT block %u of %s: no answer", q[i].mod,
				    fab_desc(f, f->switches[q[i].tag]));
		}
	}
	free(q);
	return rc;
}

/*
 * Move the switches from @cur's tables to @rep's, step by step as
 * ftdlr_plan() orders them. 0, or -1 with @err.
 */
static int write_repair(struct fastrep *fr, const struct epoch *cur, struct epoch *rep,
			struct fr_run *run, struct fab_err *err)
{
	const struct smp_routes *r = routes(fr, rep, run, err);
	uint8_t *touched = calloc((size_t)rep->fabric->nswitches + 1, 1);
	struct ftdlr_plan p = { 0 };
	int rc = -1;

	if (!r || !touched)
		goto out;
	if (cur->fabric->nswitches != rep->fabric->nswitches) {
		fab_err_set(err, "the repair's fabric has other switches");
		goto out;
	}
	if (ftdlr_plan(rep->fabric, cur->fabric, cur->routing, rep->routing, &p, err))
		goto out;
	run->steps = p.nsteps;
	rc = 0;
	run->staged_ms = loop_now_fms();
	for (unsigned k = 0; !rc && k < run->steps; k++) {
		double t0 = loop_now_fms();

		rc = write_step(fr, rep->fabric, r, &p, cur, rep, k, run, touched, err);
		json_array_append_new(run->step_ms, json_real(loop_now_fms() - t0));
	}
out:
	ftdlr_plan_free(&p);
	if (!touched)
		fab_err_set(err, "out of memory");
	free(touched);
	return rc;
}

/* --- one repair ------------------------------------------------------------------------ */

static json_t *dead_json(const struct fabric *f, const struct fr_run *run)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < run->ndead; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:i}", "node",
						   fab_desc(f, run->dead[i].node), "guid",
						   an_json_guid(f->nodes[run->dead[i].node].guid),
						   "port", (int)run->dead[i].port));
	return a;
}

static void account(struct fastrep *fr, int outcome, double ms)
{
	static const double bounds[FR_HIST_N] = FR_HIST_BOUNDS;
	unsigned b = 0;

	pthread_mutex_lock(&fr->mu);
	if (outcome == 0) {
		while (b < FR_HIST_N && ms > bounds[b])
			b++;
		fr->stats.repairs++;
		fr->stats.hist[b]++;
		fr->stats.sum_ms += ms;
	} else if (outcome > 0) {
		fr->stats.refused++;
	} else {
		fr->stats.failed++;
	}
	pthread_mutex_unlock(&fr->mu);
}

/* Where the time from the trap to the last write went (ms), and the SMPs sent. */
static json_t *phases_json(const struct fr_run *run)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:O, s:I}", "queued_ms",
			 run->start_ms - run->trap_ms, "probe_ms", run->probed_ms - run->start_ms,
			 "publish_ms", run->repaired_ms - run->probed_ms, "cpu_ms", run->cpu_ms,
			 "stage_ms",
			 run->staged_ms - run->repaired_ms, "routes_ms", run->routes_ms, "write_ms",
			 run->step_ms, "smps", (json_int_t)run->smps);
}

static void report(struct fastrep *fr, const struct epoch *rep, const struct fr_run *run)
{
	double total = run->written_ms - run->trap_ms;

	log_notice("fast repair: epoch %llu written, %u LFT blocks on %u switches in %u steps, "
		   "%.2f ms after the trap (ports probed after %.2f ms, repair published after %.2f)",
		   (unsigned long long)rep->seq, run->blocks, run->switches, run->steps, total,
		   run->probed_ms - run->trap_ms, run->repaired_ms - run->trap_ms);
	pipe_event(fr->st, "repair_fast",
		   json_pack("{s:I, s:o, s:i, s:i, s:i, s:f, s:f, s:f, s:f, s:o}", "epoch",
			     (json_int_t)rep->seq, "dead", dead_json(rep->fabric, run), "blocks",
			     (int)run->blocks, "switches", (int)run->switches, "steps",
			     (int)run->steps, "trap_to_write_ms", total, "trap_to_publish_ms",
			     run->repaired_ms - run->trap_ms, "repair_ms", rep->compute_ms,
			     "eval_ms", rep->eval_ms, "phases", phases_json(run)),
		   "epoch %llu: fast repair written, %u LFT blocks on %u switches, %.1f ms after the "
		   "trap", (unsigned long long)rep->seq, run->blocks, run->switches, total);
	account(fr, 0, total);
}

static uint64_t held(struct fastrep *fr)
{
	uint64_t seq;

	pthread_mutex_lock(&fr->mu);
	seq = fr->held;
	pthread_mutex_unlock(&fr->mu);
	return seq;
}

void fr_installed(struct fastrep *fr, uint64_t seq)
{
	pthread_mutex_lock(&fr->mu);
	fr->held = seq;
	pthread_mutex_unlock(&fr->mu);
}

/* Find, repair, write for the traps of @lids; the fault is OpenSM's sweep's on any failure. */
static void handle(struct fastrep *fr, const unsigned *lids, unsigned n, double trap_ms)
{
	struct fr_run run = { .trap_ms = trap_ms, .start_ms = loop_now_fms(), .step_ms = json_array(),
			      .cpu0_ms = cpu_now_ms() };
	struct fab_err err = { { 0 } };
	struct epoch *cur = epoch_slot_get(fr->slot), *rep = NULL;
	struct fabric *f = NULL;
	int refused = 1, found = 0;

	if (!cur) {
		fab_err_set(&err, "no routing in force");
	} else if (cur->seq != held(fr)) {
		fab_err_set(&err, "the switches do not hold epoch %llu (OpenSM installed no routing of "
			    "fabrouted's since, or its own engine's)", (unsigned long long)cur->seq);
	} else if ((found = find_dead(fr, cur, lids, n, &run, &err)) > 0) {
		log_info("fast repair: no port down on the trap's switches; nothing to repair");
		json_decref(run.step_ms);
		epoch_unref(cur);
		return;
	} else if (!found && (run.probed_ms = loop_now_fms()) > 0 &&
		   (f = without_dead(cur, &run, &err))) {
		rep = pipe_repair_fabric(fr->p, f, &err);	/* takes @f */
		run.repaired_ms = loop_now_fms();
		run.cpu_ms = cpu_now_ms() - run.cpu0_ms;
		refused = !rep;
	}
	if (rep && !write_repair(fr, cur, rep, &run, &err)) {
		run.written_ms = loop_now_fms();
		pipe_repair_written(fr->p);
		fr_installed(fr, rep->seq);
		report(fr, rep, &run);
	} else if (rep) {
		pipe_repair_written(fr->p);
		log_err("fast repair: epoch %llu published, writing it failed after %u blocks: %s; "
			"OpenSM's sweep writes it", (unsigned long long)rep->seq, run.blocks, err.msg);
		pipe_event(fr->st, "repair_fast", json_pack("{s:b, s:s}", "failed", 1, "why", err.msg),
			   "fast repair not written (%s); OpenSM's sweep writes the repair", err.msg);
		fr_installed(fr, 0);	/* partly written: unknown until OpenSM's sweep */
		account(fr, -1, 0);
	} else {
		log_info("fast repair: none (%s); OpenSM's sweep routes", err.msg);
		pipe_event(fr->st, "repair_fast", json_pack("{s:b, s:s}", "refused", refused, "why",
							    err.msg),
			   "no fast repair (%s); OpenSM's sweep routes", err.msg);
		account(fr, 1, 0);
	}
	json_decref(run.step_ms);
	epoch_unref(rep);
	epoch_unref(cur);
}

/* --- the thread ------------------------------------------------------------------------ */

static void *fr_main(void *arg)
{
	struct fastrep *fr = arg;
	struct fab_err why = { { 0 } };

	if (!(fr->smp = smp_open(&fr->o, &why)))	/* ready before the first trap */
		log_warn("fast repair: %s; trying again on the first trap", why.msg);

	for (;;) {
		unsigned lids[FR_LIDS_MAX], n;
		struct fab_err err = { { 0 } };
		double t0;

		pthread_mutex_lock(&fr->mu);
		while (!fr->quit && !fr->nlids)
			pthread_cond_wait(&fr->cv, &fr->mu);
		if (fr->quit) {
			pthread_mutex_unlock(&fr->mu);
			return NULL;
		}
		n = fr->nlids;
		memcpy(lids, fr->lids, n * sizeof(*lids));
		fr->nlids = 0;
		t0 = fr->first_ms;
		pthread_mutex_unlock(&fr->mu);
		if (!fr->smp && !(fr->smp = smp_open(&fr->o, &err))) {	/* it failed at start */
			log_err("fast repair: %s; OpenSM's sweep routes", err.msg);
			account(fr, 1, 0);
			continue;
		}
		handle(fr, lids, n, t0);
	}
}

void fr_trap(struct fastrep *fr, unsigned trap, unsigned lid)
{
	if (trap < 128 || trap > 131)
		return;
	pthread_mutex_lock(&fr->mu);
	fr->stats.traps++;
	if (!fr->nlids)
		fr->first_ms = loop_now_fms();
	for (unsigned i = 0; i < fr->nlids; i++)
		if (fr->lids[i] == lid)
			lid = 0;
	if (lid && fr->nlids < FR_LIDS_MAX)
		fr->lids[fr->nlids++] = lid;
	pthread_cond_signal(&fr->cv);
	pthread_mutex_unlock(&fr->mu);
}

struct fastrep *fr_start(const struct smp_opts *o, struct pipeline *p, struct epoch_slot *slot,
			 struct store *st, struct fab_err *err)
{
	struct fastrep *fr = calloc(1, sizeof(*fr));

	if (!fr) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	fr->o = *o;
	snprintf(fr->ca, sizeof(fr->ca), "%s", o->ca ? o->ca : "");
	fr->o.ca = fr->ca;
	fr->p = p;
	fr->slot = slot;
	fr->st = st;
	pthread_mutex_init(&fr->mu, NULL);
	pthread_cond_init(&fr->cv, NULL);
	if (pthread_create(&fr->th, NULL, fr_main, fr)) {
		pthread_mutex_destroy(&fr->mu);
		pthread_cond_destroy(&fr->cv);
		free(fr);
		fab_err_set(err, "cannot start the fast repair's thread");
		return NULL;
	}
	return fr;
}

void fr_stop(struct fastrep *fr)
{
	if (!fr)
		return;
	pthread_mutex_lock(&fr->mu);
	fr->quit = 1;
	pthread_cond_signal(&fr->cv);
	pthread_mutex_unlock(&fr->mu);
	pthread_join(fr->th, NULL);
	smp_routes_free(fr->routes);
	epoch_unref(fr->routes_e);
	smp_close(fr->smp);
	pthread_mutex_destroy(&fr->mu);
	pthread_cond_destroy(&fr->cv);
	free(fr);
}

void fr_stats(struct fastrep *fr, struct fr_stats *out)
{
	pthread_mutex_lock(&fr->mu);
	*out = fr->stats;
	pthread_mutex_unlock(&fr->mu);
}

void fr_metrics(FILE *o, struct fastrep *fr)
{
	static const double bounds[FR_HIST_N] = FR_HIST_BOUNDS;
	struct fr_stats st;

	fr_stats(fr, &st);
	api_metric(o, "counter", "fabroute_repair_traps_total",
		   "Link-state traps the fast repair heard.", (double)st.traps);
	fprintf(o, "# HELP fabroute_repairs_fast_total Fast repairs, by result (written; left to "
		"OpenSM's sweep: refused; failed: an SMP not answered).\n"
		"# TYPE fabroute_repairs_fast_total counter\n"
		"fabroute_repairs_fast_total{result=\"written\"} %llu\n"
		"fabroute_repairs_fast_total{result=\"refused\"} %llu\n"
		"fabroute_repairs_fast_total{result=\"failed\"} %llu\n",
		(unsigned long long)st.repairs, (unsigned long long)st.refused,
		(unsigned long long)st.failed);
	api_histogram(o, "fabroute_repair_seconds",
		      "Time from a link-state trap to the last LFT block of its repair written.",
		      bounds, FR_HIST_N, st.hist, st.sum_ms);
}
