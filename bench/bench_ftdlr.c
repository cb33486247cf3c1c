/* SPDX-License-Identifier: MIT */
/*
 * bench_ftdlr: figures of ftdlr's local repair (papers/001).
 *
 *   bench_ftdlr fig11 [SETS]    papers/001 Fig. 11 by Monte Carlo: the
 *                               4-ary 3-tree (4..10 faults) and the 2-ary
 *                               6-tree (2..10), SETS uniform link-fault sets
 *                               per point (default 2000), disconnecting sets
 *                               included
 *   bench_ftdlr ft648 [SETS]    SETS sets of 17 link faults on the 648-port
 *                               tree (default 1000), each repair checked by
 *                               the evaluator
 *   bench_ftdlr time [N [FAMILY NAME=VALUE...]]
 *                               repair and proof times per single link fault
 *                               (the proof: a full evaluation, and the
 *                               daemon's incremental one), with what is
 *                               kept of the base between repairs made at
 *                               the first, as the daemon does
 *                               from sftree and ftdlr bases: the 648-port
 *                               tree, the 4-ary 3-tree and the 5488-CA
 *                               m-port 3-tree (m=28; N faults spread over
 *                               the links: 100, 128 and 20 by default), or
 *                               the generated fabric named (sftree base: the
 *                               daemon's default chain)
 *   bench_ftdlr singles         every single link fault of the 4-ary 3-tree
 *                               and the 648-port tree from sftree, ftree and
 *                               ftdlr bases: entries changed (and by routing
 *                               afresh), CA max link load, longest path
 *   bench_ftdlr accept [SETS [FAMILY NAME=VALUE...]]
 *                               the default chain's repairs: SETS random sets
 *                               (fixed seed) each of 1, 2 and 3 link faults
 *                               between switches (default 1000; 100 on the
 *                               5488-CA tree) on the 4-ary 3-tree and the
 *                               5488-CA m-port 3-tree, or the generated fabric
 *                               named, repaired from sftree, ftree and ftdlr
 *                               bases, LIDs as generated and LIDs in a random
 *                               order with the SM on the first CA (as OpenSM
 *                               numbers a discovered fabric): repairs accepted
 *                               (the evaluator proves them) against those that
 *                               leave the fault to the chain, and why; entries
 *                               changed, repair and proof times
 *   bench_ftdlr loss MS...      the paper's packets-lost arithmetic for the
 *                               given reconfiguration times
 *
 * Fig. 11 columns: the share of sets in which the fabric itself still
 * connects every CA pair ("physical"); in which a full recompute (sftree on
 * the degraded fabric: the paper's DDRC) connects them all; in which the
 * local repair of the base routing does ("repair"); and in which the repair
 * is also deadlock-free on its own, CA paths ("acyclic CA") and the whole
 * routing with the switch paths ("acyclic all"), no switch-LID fallback
 * ("local": the switch LIDs were not recomputed either). The base is
 * ftdlr's own (sftree, switch destinations on VL 1). Same seed, same sets.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/analysis.h"
#include "bench/ftdlr_loss.h"
#include "engines/ftdlr/ftdlr.h"
#include "engines/ftree/ftree.h"
#include "gen/gen.h"

static void die(const char *what, const struct fab_err *err)
{
	fprintf(stderr, "bench_ftdlr: %s: %s\n", what, err ? err->msg : "");
	exit(1);
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* CPU time of the process: what a step costs whatever else the machine runs. */
static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* A fabric, its switch-to-switch links (node, port of the upper end), its base routing. */
struct tree {
	struct fabric *f;
	struct rt_routing *r;
	uint32_t *node;
	uint8_t *port;
	uint32_t nlinks;
};

/* @e's routing of @f; NULL when @e does not apply (a leaf cut off the tree). */
static struct rt_routing *try_route(const struct engine *e, const struct fabric *f)
{
	struct eng_chain c;
	struct eng_req q = { .fabric = f, .chain = &c };
	struct eng_res res;
	struct fab_err err = { { 0 } };
	int rc;

	memset(&res, 0, sizeof(res));
	if (eng_chain_parse(&c, e->name, NULL, 0, &err))
		die(e->name, &err);
	rc = e->route(&q, &c.args[0], &res, &err);
	eng_chain_free(&c);
	if (rc == ENG_ERROR)
		die(e->name, &err);
	return rc == ENG_OK ? res.routing : NULL;
}

static struct rt_routing *route(const struct engine *e, const struct fabric *f)
{
	struct rt_routing *r = try_route(e, f);

	if (!r) {
		fprintf(stderr, "bench_ftdlr: %s does not apply\n", e->name);
		exit(1);
	}
	return r;
}

/*
 * Give @f's endpoints their LIDs in a random order and put the subnet
 * manager on the first CA (as under ibsim, where OpenSM takes the first),
 * as OpenSM numbers a fabric it discovers: the same graph, other LIDs, and
 * sftree's subtree root on another leaf (never the SM's).
 */
static void relabel(struct fabric *f, struct fab_rng *rng)
{
	struct fab_lid_pin *pin = calloc(f->neps + 1, sizeof(*pin));
	struct fab_err err = { { 0 } };
	uint32_t ncas = 0;

	if (!pin)
		die("relabel", NULL);
	for (uint32_t e = 0; e < f->neps; e++) {
		pin[e].guid = fab_port(f, f->eps[e].node, f->eps[e].port)->guid;
		ncas += f->nodes[f->eps[e].node].type != FAB_SWITCH;
	}
	for (uint32_t i = f->neps; i > 1; i--) {
		uint32_t j = (uint32_t)fab_rng_below(rng, i);
		struct fab_lid_pin x = pin[i - 1];

		pin[i - 1] = pin[j];
		pin[j] = x;
	}
	for (uint32_t i = 0; i < f->neps; i++)
		pin[i].lid = (uint16_t)(i + 1);
	if (fab_lids_assign(f, pin, f->neps, FAB_LIDS_RENEW, 0, &err))
		die("relabel", &err);
	free(pin);
	if (ncas) {
		f->sm_node = f->eps[f->neps - ncas].node;
		f->sm_port = f->eps[f->neps - ncas].port;
	}
}

/*
 * @family routed by @e (the base of the repairs); with @rng, its LIDs in a
 * random order and the SM on the first CA (relabel()).
 */
static void tree_init_as(struct tree *t, const char *family, const char *const *kv, size_t n,
			 const struct engine *e, struct fab_rng *rng)
{
	struct fab_err err = { { 0 } };
	struct ft_model m;

	t->f = gen_build(family, kv, n, 1, &err);
	if (t->f && rng)
		relabel(t->f, rng);
	if (!t->f || ft_model_init(&m, t->f, &err) != ENG_OK)
		die(family, &err);
	t->r = route(e, t->f);
	t->node = malloc((m.nlinks + 1) * sizeof(*t->node));
	t->port = malloc(m.nlinks + 1);
	t->nlinks = 0;
	for (uint32_t s = 0; s < t->f->nswitches; s++)
		for (uint32_t i = ft_first(&m, s, FT_DOWN); i < ft_end(&m, s, FT_DOWN); i++) {
			t->node[t->nlinks] = t->f->switches[s];
			t->port[t->nlinks++] = m.links[i].port;
		}
	ft_model_fini(&m);
}

static void tree_init(struct tree *t, const char *family, const char *const *kv, size_t n,
		      const struct engine *e)
{
	tree_init_as(t, family, kv, n, e, NULL);
}

static void tree_fini(struct tree *t)
{
	fab_free(t->f);
	rt_free(t->r);
	free(t->node);
	free(t->port);
}

/* @n distinct links of @t, uniformly. */
static void draw(struct fab_rng *rng, const struct tree *t, uint32_t *l, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned k;

		do {
			l[i] = (uint32_t)fab_rng_below(rng, t->nlinks);
			for (k = 0; k < i && l[k] != l[i]; k++)
				;
		} while (k < i);
	}
}

static struct fabric *degrade(const struct tree *t, const uint32_t *l, unsigned n)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_copy(t->f, &err);

	if (!f)
		die("copy", &err);
	for (unsigned i = 0; i < n; i++)
		fab_link_remove(f, t->node[l[i]], t->port[l[i]]);
	if (fab_finalize(f, &err))
		die("finalize", &err);
	return f;
}

/* Every CA's switch reaches every other's over live links. */
static int physical(const struct fabric *f)
{
	uint32_t n = f->nswitches, *q = malloc((n + 1) * sizeof(*q)), head = 0, tail = 0;
	uint8_t *seen = calloc(n + 1, 1);
	int ok = 1;

	q[tail++] = 0;
	seen[0] = 1;
	while (head < tail) {
		uint32_t s = q[head++];

		for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
			uint32_t t = fab_sw_peer(f, s, p);

			if (t != FAB_NONE && !seen[t]) {
				seen[t] = 1;
				q[tail++] = t;
			}
		}
	}
	for (uint32_t e = 0; e < f->neps && ok; e++) {
		const struct fab_port *p = fab_port(f, f->eps[e].node, f->eps[e].port);

		if (f->nodes[f->eps[e].node].type != FAB_SWITCH)
			ok = seen[f->nodes[p->peer].swidx];
	}
	free(q);
	free(seen);
	return ok;
}

static void eval(const struct fabric *f, const struct rt_routing *r, int ca_only,
		 struct an_report *rep)
{
	struct fab_err err = { { 0 } };
	struct an_opts o = { .ca_only = ca_only };

	if (an_evaluate(f, r, &o, rep, &err))
		die("evaluate", &err);
}

/* LFT entries repairs changed: in all, the most in one, the most switches in one. */
struct changes {
	uint64_t sum, most, lids, quick;
	uint32_t mostsw;
};

static void changes_add(struct changes *c, const struct ftdlr_stats *st)
{
	c->sum += st->entries;
	c->lids += st->lids;
	c->quick += st->quick;
	c->most = st->entries > c->most ? st->entries : c->most;
	c->mostsw = st->switches > c->mostsw ? st->switches : c->mostsw;
}

/* One point of Fig. 11: counts of sets meeting each column. */
struct point {
	unsigned sets, phys, ddrc, rep, acyc_ca, acyc_all, local;
};

static void one_set(const struct tree *t, const uint32_t *l, unsigned n, struct point *pt)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = degrade(t, l, n);
	struct rt_routing *full = NULL, *r = NULL;
	struct ftdlr_stats st;
	struct an_report rep;

	pt->sets++;
	pt->phys += physical(f);
	if ((full = try_route(&eng_sftree, f))) {
		eval(f, full, 1, &rep);
		pt->ddrc += rep.conn.unreachable[AN_CA_CA] == 0;
		an_report_free(&rep);
	}
	if (ftdlr_repair(t->f, t->r, f, FTDLR_MINIMAL, 0, &r, &st, &err) == ENG_OK) {
		int conn;

		eval(f, r, 1, &rep);
		conn = rep.conn.unreachable[AN_CA_CA] == 0;
		pt->rep += conn;
		pt->acyc_ca += conn && rep.cdg.deadlock_free;
		an_report_free(&rep);
		eval(f, r, 0, &rep);
		pt->acyc_all += conn && rep.cdg.deadlock_free;
		pt->local += conn && rep.cdg.deadlock_free && !st.sw_fallback;
		an_report_free(&rep);
	}
	rt_free(full);
	rt_free(r);
	fab_free(f);
}

static void fig11(const char *title, const char *family, const char *const *kv, size_t nkv,
		  unsigned from, unsigned to, unsigned sets)
{
	struct tree t;
	struct fab_rng rng;
	uint32_t l[32];
	double t0 = now_ms();

	tree_init(&t, family, kv, nkv, &eng_ftdlr);
	fab_rng_seed(&rng, 11);
	printf("%s: %u switch links, %u sets per point\n", title, t.nlinks, sets);
	printf("%7s %9s %9s %9s %11s %11s %9s\n", "faults", "physical", "full", "repair",
	       "acyclic CA", "acyclic all", "local");
	for (unsigned n = from; n <= to; n++) {
		struct point pt = { 0 };

		for (unsigned s = 0; s < sets; s++) {
			draw(&rng, &t, l, n);
			one_set(&t, l, n, &pt);
		}
		printf("%7u %9.4f %9.4f %9.4f %11.4f %11.4f %9.4f\n", n, (double)pt.phys / sets,
		       (double)pt.ddrc / sets, (double)pt.rep / sets, (double)pt.acyc_ca / sets,
		       (double)pt.acyc_all / sets, (double)pt.local / sets);
		fflush(stdout);
	}
	printf("(%.0f s)\n\n", (now_ms() - t0) / 1e3);
	tree_fini(&t);
}

/* 648-port tree, @sets sets of 17 link faults: every repair checked. */
static void ft648(unsigned sets)
{
	struct tree t;
	struct fab_rng rng;
	uint32_t l[17];
	unsigned ok = 0, fallback = 0, proven = 0;
	struct changes ch = { 0 };

	tree_init(&t, "ft648", NULL, 0, &eng_ftdlr);
	fab_rng_seed(&rng, 17);
	for (unsigned s = 0; s < sets; s++) {
		struct fab_err err = { { 0 } };
		struct fabric *f;
		struct rt_routing *r;
		struct ftdlr_stats st;
		struct an_report rep;

		draw(&rng, &t, l, 17);
		f = degrade(&t, l, 17);
		if (ftdlr_repair(t.f, t.r, f, FTDLR_MINIMAL, 0, &r, &st, &err) != ENG_OK)
			die("repair", &err);
		eval(f, r, 0, &rep);
		ok += an_connected(&rep);
		proven += an_connected(&rep) && rep.cdg.deadlock_free;
		fallback += st.sw_fallback > 0;
		changes_add(&ch, &st);
		an_report_free(&rep);
		rt_free(r);
		fab_free(f);
	}
	printf("648-port tree, %u sets of 17 link faults (k - 1 = 17): connected %u, connected and "
	       "deadlock-free %u, switch LIDs recomputed in %u; at most %llu entries on %u switches\n\n",
	       sets, ok, proven, fallback, (unsigned long long)ch.most, ch.mostsw);
	tree_fini(&t);
}

/*
 * CPU ms of the proof the daemon makes of repair @r (of @f), which changed
 * the tables @chg lists: an_reevaluate() from the base's evaluation @kept,
 * which then goes back to the base (not timed) for the next; *@same counts
 * verdicts equal to the full @full's.
 */
static double reeval_cpu(const struct tree *t, const struct fabric *f, const struct rt_routing *r,
			 const struct an_change *chg, const struct an_opts *io,
			 struct an_report *kept, const struct an_report *full, unsigned *same,
			 uint64_t redone[3])
{
	struct fab_err err = { { 0 } };
	struct an_report inc;
	double c0 = cpu_ms(), ms;

	if (an_reevaluate(t->f, t->r, kept, f, r, io, chg, &inc, &err))
		die("re-evaluate", &err);
	ms = cpu_ms() - c0;
	redone[0] += inc.dests;
	redone[1] += inc.dests_near;
	redone[2] += inc.dests_kept;
	*same += an_connected(&inc) == an_connected(full) &&
		 inc.cdg.deadlock_free == full->cdg.deadlock_free;
	an_report_free(kept);
	if (an_reevaluate(f, r, &inc, t->f, t->r, io, chg, kept, &err))
		die("re-evaluate", &err);
	an_report_free(&inc);
	return ms;
}

/*
 * Repair and proof times per single link fault on @family, base @e, @n
 * links spread over the tree; the entries and switches each repair changed.
 */
static void timing(const char *family, const char *const *kv, size_t nkv, const struct engine *e,
		   unsigned n, int osm_lids)
{
	struct fab_rng rng;
	struct tree t;
	double rep_ms = 0, eval_ms = 0, stage_ms = 0, worst = 0, worst_rep = 0, rep_cpu = 0;
	double eval_cpu = 0, inc_cpu = 0, prep_ms, first_ms;
	unsigned proven = 0, same = 0;
	uint64_t redone[3] = { 0, 0, 0 };
	struct changes ch = { 0 };
	struct an_opts io = { .load = 1, .incremental = 1, .threads = 1 };
	struct an_report kept;
	struct fab_err kerr = { { 0 } };
	struct eng_memo memo = { 0 };	/* as the daemon keeps it: prepared after each publication */
	const int stop_now = 1;

	fab_rng_seed(&rng, 23);
	tree_init_as(&t, family, kv, nkv, e, osm_lids ? &rng : NULL);
	if (an_evaluate(t.f, t.r, &io, &kept, &kerr))
		die("evaluate", &kerr);
	first_ms = now_ms();	/* asked to stop from the start: what a fault that comes at once waits for */
	if (eng_ftdlr.prepare(t.f, t.r, &memo, &stop_now) < 0)
		die("prepare", &kerr);
	first_ms = now_ms() - first_ms;
	eng_memo_clear(&memo);
	prep_ms = now_ms();
	if (eng_ftdlr.prepare(t.f, t.r, &memo, NULL))
		die("prepare", &kerr);
	prep_ms = now_ms() - prep_ms;
	for (unsigned i = 0; i < n; i++) {
		if (i && eng_ftdlr.prepare(t.f, t.r, &memo, NULL))
			die("prepare", &kerr);
		uint32_t l = (uint32_t)((uint64_t)i * t.nlinks / n);
		struct fab_err err = { { 0 } };
		struct fabric *f = degrade(&t, &l, 1);
		struct rt_routing *r;
		struct ftdlr_plan plan;
		struct ftdlr_stats st;
		struct an_report rep;
		struct an_change chg = { 0 };
		uint32_t *changed;
		double t0 = now_ms(), c0 = cpu_ms(), t1, t2, t3, c1;

		if (ftdlr_repair_memo(t.f, t.r, f, FTDLR_MINIMAL, 0, &memo, &r, &st, &changed,
				      &chg.nswitches, &err) != ENG_OK)
			die("repair", &err);
		chg.switches = changed;
		t1 = now_ms();
		c1 = cpu_ms();
		eval(f, r, 0, &rep);
		t2 = now_ms();
		rep_cpu += c1 - c0;
		eval_cpu += cpu_ms() - c1;
		inc_cpu += reeval_cpu(&t, f, r, &chg, &io, &kept, &rep, &same, redone);
		free(changed);
		t3 = now_ms();
		if (ftdlr_plan(f, t.f, t.r, r, &plan, &err))
			die("plan", &err);
		t3 = now_ms() - t3;
		ftdlr_plan_free(&plan);
		proven += an_connected(&rep) && rep.cdg.deadlock_free;
		rep_ms += t1 - t0;
		eval_ms += t2 - t1;
		stage_ms += t3;
		worst = t2 - t0 > worst ? t2 - t0 : worst;
		worst_rep = t1 - t0 > worst_rep ? t1 - t0 : worst_rep;
		changes_add(&ch, &st);
		an_report_free(&rep);
		rt_free(r);
		fab_free(f);
	}
	printf("%-20s base %-6s%s: repair %7.2f ms (at most %7.2f), proof (full evaluation, 1 thread) "
	       "%8.2f ms, repair + proof at most %8.2f ms, steps (the plan) %6.2f ms; proven %u of %u; CPU: "
	       "repair %.2f ms, proof %.2f ms, incremental proof %.2f ms (the daemon's: "
	       "an_reevaluate() from the base's, with the load, 1 thread; same verdict %u of %u; "
	       "destinations redone %.1f, %.1f of them near the change alone, %.1f from the rows "
	       "kept); "
	       "entries changed %.1f (at most %llu, on at most %u switches); LIDs repaired %.1f, "
	       "%.1f of them at their few switches alone; the memo prepared "
	       "for the base in %.1f ms (once per base, after its publication; its first run, "
	       "before a stop is heeded, %.1f ms)\n", family, e->name,
	       osm_lids ? " (LIDs as OpenSM numbers them)" : "",
	       rep_ms / n, worst_rep, eval_ms / n, worst, stage_ms / n, proven, n, rep_cpu / n,
	       eval_cpu / n, inc_cpu / n, same, n, (double)redone[0] / n, (double)redone[1] / n,
	       (double)redone[2] / n,
	       (double)ch.sum / n, (unsigned long long)ch.most,
	       ch.mostsw, (double)ch.lids / n, (double)ch.quick / n, prep_ms, first_ms);
	fflush(stdout);
	eng_memo_clear(&memo);
	an_report_free(&kept);
	tree_fini(&t);
}

/*
 * Every single link fault of @family repaired from base @e: entries changed
 * (the repair's, and a fresh route of the degraded tree by @e against the
 * base), the CA max link load (each CA sends 1 in total) and the longest
 * path, against the base's.
 */
static void singles(const char *label, const char *family, const char *const *kv, size_t nkv,
		    const struct engine *e)
{
	struct an_opts o = { .load = 1 };
	struct fab_err err = { { 0 } };
	struct an_report rb;
	struct tree t;
	double load = 0, worst = 0;
	uint64_t fresh = 0;
	uint32_t hops = 0;
	unsigned free = 0, conn = 0;
	struct changes ch = { 0 };

	tree_init(&t, family, kv, nkv, e);
	if (an_evaluate(t.f, t.r, &o, &rb, &err))
		die("evaluate", &err);
	for (uint32_t l = 0; l < t.nlinks; l++) {
		struct fabric *f = degrade(&t, &l, 1);
		struct rt_routing *r, *full;
		struct ftdlr_stats st;
		struct an_report rep;
		struct rt_diff dd;

		if (ftdlr_repair(t.f, t.r, f, FTDLR_MINIMAL, 0, &r, &st, &err) != ENG_OK)
			die("repair", &err);
		if (an_evaluate(f, r, &o, &rep, &err))
			die("evaluate", &err);
		free += rep.cdg.deadlock_free;
		conn += an_connected(&rep);
		changes_add(&ch, &st);
		load += rep.load.ca_max_load;
		worst = rep.load.ca_max_load > worst ? rep.load.ca_max_load : worst;
		hops = rep.conn.max_hops > hops ? rep.conn.max_hops : hops;
		full = route(e, f);
		rt_diff(t.f, t.r, f, full, &dd);
		fresh += dd.entries;
		an_report_free(&rep);
		rt_free(full);
		rt_free(r);
		fab_free(f);
	}
	printf("%-13s base %-6s: %u single link faults, deadlock-free %u, every pair delivered %u; "
	       "entries changed %.1f (at most %llu, on at most %u switches), routing afresh %.1f; CA "
	       "max link load %.2f (worst %.2f, base %.2f); longest path %u switches (base %u)\n",
	       label, e->name, t.nlinks, free, conn, (double)ch.sum / t.nlinks,
	       (unsigned long long)ch.most, ch.mostsw, (double)fresh / t.nlinks, load / t.nlinks,
	       worst, rb.load.ca_max_load, hops, rb.conn.max_hops);
	fflush(stdout);
	an_report_free(&rb);
	tree_fini(&t);
}

/* What became of the repairs of one base, for one number of faults. */
struct verdicts {
	unsigned sets, accepted, refused, unreachable, cyclic, fallback, subtree;
	uint64_t sw_lost;	/* ftree: most switch-destination pairs unrouted beyond the base's */
	unsigned sw_worse;	/* ftree: sets where ftree afresh routes more of them */
	unsigned fresh_na;	/* ftree: sets where ftree does not route the degraded tree */
	double rep_ms, eval_ms;
	struct changes ch;
};

/* Switch-destination pairs ftree leaves unrouted on @f (UINT64_MAX: it does not apply). */
static uint64_t fresh_sw(const struct fabric *f)
{
	struct rt_routing *r = try_route(&eng_ftree, f);
	struct an_report rep;
	uint64_t n;

	if (!r)
		return UINT64_MAX;
	eval(f, r, 0, &rep);
	n = rep.conn.unreachable[AN_CA_SW] + rep.conn.unreachable[AN_SW_SW];
	an_report_free(&rep);
	rt_free(r);
	return n;
}

/*
 * Repair @t's routing for the @n links @l and judge it as fabrouted's
 * default policy does (proven: every pair delivered and deadlock-free, the
 * switch paths included), but for an ftree base, which leaves switch pairs
 * without an up*down* path unrouted: every pair towards a CA delivered and
 * deadlock-free. @base_sw: the base's unrouted switch-destination pairs.
 */
static void judge_one(const struct tree *t, const struct engine *e, const uint32_t *l, unsigned n,
		      uint64_t base_sw, struct verdicts *v)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = degrade(t, l, n);
	struct rt_routing *r;
	struct ftdlr_stats st;
	struct an_report rep;
	double t0 = now_ms(), t1;
	int conn;

	v->sets++;
	if (ftdlr_repair(t->f, t->r, f, FTDLR_MINIMAL, 0, &r, &st, &err) != ENG_OK) {
		v->refused++;
		fprintf(stderr, "bench_ftdlr: %s base, %u faults: not applicable: %s\n", e->name,
			n, err.msg);
		fab_free(f);
		return;
	}
	t1 = now_ms();
	eval(f, r, 0, &rep);
	v->rep_ms += t1 - t0;
	v->eval_ms += now_ms() - t1;
	if (e == &eng_ftree) {
		uint64_t sw = rep.conn.unreachable[AN_CA_SW] + rep.conn.unreachable[AN_SW_SW];
		uint64_t fresh = fresh_sw(f);

		conn = !rep.conn.unreachable[AN_CA_CA] && !rep.conn.unreachable[AN_SW_CA];
		v->sw_lost = sw > base_sw && sw - base_sw > v->sw_lost ? sw - base_sw : v->sw_lost;
		v->sw_worse += fresh != UINT64_MAX && sw > fresh;
		v->fresh_na += fresh == UINT64_MAX;
	} else {
		conn = an_connected(&rep);
	}
	v->unreachable += !conn;
	v->cyclic += !rep.cdg.deadlock_free;
	v->accepted += conn && rep.cdg.deadlock_free;
	v->fallback += st.sw_fallback > 0;
	v->subtree += st.subtree > 0;
	changes_add(&v->ch, &st);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

/* @sets sets each of 1, 2 and 3 faults on @family from base @e; @rng: relabel(). */
static void accept_base(const char *label, const char *family, const char *const *kv, size_t nkv,
			const struct engine *e, struct fab_rng *rng, unsigned sets)
{
	struct an_report rb;
	struct fab_rng draws;
	struct tree t;
	uint32_t l[3];
	uint64_t base_sw;

	tree_init_as(&t, family, kv, nkv, e, rng);
	eval(t.f, t.r, 0, &rb);
	base_sw = rb.conn.unreachable[AN_CA_SW] + rb.conn.unreachable[AN_SW_SW];
	an_report_free(&rb);
	fab_rng_seed(&draws, 21);
	for (unsigned n = 1; n <= 3; n++) {
		struct verdicts v = { 0 };

		for (unsigned s = 0; s < sets; s++) {
			draw(&draws, &t, l, n);
			judge_one(&t, e, l, n, base_sw, &v);
		}
		printf("%-13s %-9s base %-6s %u faults: %4u sets, accepted %4u, to the chain %4u "
		       "(not applicable %u, unreachable pairs %u, cycle %u); switch LIDs "
		       "recomputed in %u, subtree rule in %u; entries %.1f (at most %llu, on at most "
		       "%u switches); repair %.2f ms, proof %.2f ms", label,
		       rng ? "LIDs rand" : "LIDs gen", e->name, n, v.sets, v.accepted,
		       v.sets - v.accepted, v.refused, v.unreachable, v.cyclic, v.fallback,
		       v.subtree, v.sets > v.refused ? (double)v.ch.sum / (v.sets - v.refused) : 0,
		       (unsigned long long)v.ch.most, v.ch.mostsw,
		       v.sets > v.refused ? v.rep_ms / (v.sets - v.refused) : 0,
		       v.sets > v.refused ? v.eval_ms / (v.sets - v.refused) : 0);
		if (e == &eng_ftree)
			printf("; switch-destination pairs unrouted beyond the base's %llu: at most %llu, "
			       "more than ftree routing the degraded tree afresh in %u sets (%u sets "
			       "ftree does not route)", (unsigned long long)base_sw,
			       (unsigned long long)v.sw_lost, v.sw_worse, v.fresh_na);
		printf("\n");
		fflush(stdout);
	}
	tree_fini(&t);
}

/* Every base and both LID layouts of @family. */
static void acceptance(const char *label, const char *family, const char *const *kv, size_t nkv,
		       unsigned sets)
{
	const struct engine *bases[] = { &eng_sftree, &eng_ftree, &eng_ftdlr };

	for (int layout = 0; layout < 2; layout++)
		for (size_t i = 0; i < 3; i++) {
			struct fab_rng rng;

			fab_rng_seed(&rng, 2100);
			accept_base(label, family, kv, nkv, bases[i], layout ? &rng : NULL, sets);
		}
}

static void loss(int argc, char **argv)
{
	const struct loss_tree t = { .accepted = 18, .nodes = 64, .up_share = 0.75 };

	printf("papers/001's arithmetic (saturated 4-ary 3-tree, 18 packets/cycle): 0.03 s = %.0f "
	       "cycles; %.2f packets/cycle on a bottom link, %.2f on a top link; %.0f and %.0f "
	       "packets lost per fault (the paper: 32812 and 24704); %.0fx DDLR's 1.5\n",
	       loss_cycles(0.03), loss_rate_bottom(&t), loss_rate_top(&t),
	       loss_packets(0.03, 0.56), loss_packets(0.03, 0.42), loss_packets(0.03, 0.56) / 1.5);
	for (int i = 0; i < argc; i++) {
		double s = atof(argv[i]) / 1e3;

		printf("  %8.1f ms to the last LFT write: %9.0f packets lost on a bottom link, "
		       "%9.0f on a top link (%.0fx DDLR)\n", s * 1e3, loss_packets(s, 0.56),
		       loss_packets(s, 0.42), loss_packets(s, 0.56) / 1.5);
	}
}

int main(int argc, char **argv)
{
	static const char *const k43[] = { "k=4", "n=3" }, *const k26[] = { "k=2", "n=6" };
	static const char *const m28[] = { "m=28", "n=3" };
	unsigned sets = argc > 2 ? (unsigned)atoi(argv[2]) : 0;

	/* fabrouted's setting (daemon/fabrouted.c): every block of 1 MiB or more is mapped afresh */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	if (argc > 1 && !strcmp(argv[1], "fig11")) {
		fig11("4-ary 3-tree (papers/001 Fig. 11a)", "kary-ntree", k43, 2, 4, 10,
		      sets ? sets : 2000);
		fig11("2-ary 6-tree (papers/001 Fig. 11b)", "kary-ntree", k26, 2, 2, 10,
		      sets ? sets : 2000);
	} else if (argc > 1 && !strcmp(argv[1], "ft648")) {
		ft648(sets ? sets : 1000);
	} else if (argc > 3 && !strcmp(argv[1], "time")) {
		for (int o = 0; o < 2; o++)
			timing(argv[3], (const char *const *)argv + 4, (size_t)argc - 4, &eng_sftree,
			       sets ? sets : 10, o);
	} else if (argc > 1 && !strcmp(argv[1], "time")) {
		timing("ft648", NULL, 0, &eng_sftree, sets ? sets : 100, 0);
		timing("ft648", NULL, 0, &eng_ftdlr, sets ? sets : 100, 0);
		timing("kary-ntree", k43, 2, &eng_sftree, sets ? sets : 128, 0);
		timing("kary-ntree", k43, 2, &eng_ftdlr, sets ? sets : 128, 0);
		timing("mport-ntree", m28, 2, &eng_sftree, sets ? sets : 20, 0);
		timing("mport-ntree", m28, 2, &eng_ftdlr, sets ? sets : 20, 0);
		timing("mport-ntree", m28, 2, &eng_sftree, sets ? sets : 20, 1);
	} else if (argc > 1 && !strcmp(argv[1], "singles")) {
		const struct engine *bases[] = { &eng_sftree, &eng_ftree, &eng_ftdlr };

		for (size_t i = 0; i < 3; i++)
			singles("4-ary 3-tree", "kary-ntree", k43, 2, bases[i]);
		for (size_t i = 0; i < 3; i++)
			singles("648-port tree", "ft648", NULL, 0, bases[i]);
	} else if (argc > 3 && !strcmp(argv[1], "accept")) {
		acceptance(argv[3], argv[3], (const char *const *)argv + 4, (size_t)argc - 4,
		       sets ? sets : 100);
	} else if (argc > 1 && !strcmp(argv[1], "accept")) {
		acceptance("4-ary 3-tree", "kary-ntree", k43, 2, sets ? sets : 1000);
		acceptance("5488-CA tree", "mport-ntree", m28, 2, sets ? sets : 100);
	} else if (argc > 1 && !strcmp(argv[1], "loss")) {
		loss(argc - 2, argv + 2);
	} else {
		fprintf(stderr, "usage: bench_ftdlr fig11 [SETS] | ft648 [SETS] | "
			"time [N [FAMILY NAME=VALUE...]] | singles |\n"
			"       accept [SETS [FAMILY NAME=VALUE...]] | loss MS...\n");
		return 2;
	}
	return 0;
}
