/* SPDX-License-Identifier: MIT */
/**
 * DOC: the run of the path-based engines pathsel, swidest, rename, explicit (papers/002 §5)
 *
 * Four ways to choose one Up*\/Down*-legal path per machine pair, each
 * realised by lidassign (engines/lidassign/lidassign.h) with the LIDs it plans:
 *
 *  - pathsel: path selection, up to `paths` legal paths per pair (Yen's k
 *    shortest, longer ones included; cands=shortest: minimal-length ones
 *    only), most-loaded-link-first (papers/002's "Separate" with
 *    lids=color-l);
 *  - swidest: shortest-widest, pair by pair in (source, destination) order;
 *  - rename: destination renaming (López, Flich, Duato), as papers/002 uses
 *    it: shortest legal paths with the shortest-widest tie-break, LIDs first
 *    fit as the paths come (greedy). Pairs go in (source, destination)
 *    order, which makes it swidest with lids=greedy: papers/002's renaming
 *    LIDs are within 0.8% of its shortest-widest greedy ones in every row
 *    of its Table 3, and routing destination by destination (order=dst)
 *    needs 20-45% fewer LIDs than that on the paper's fabrics;
 *  - explicit: fully explicit routing (Sancho, Robles, Duato): one tree per
 *    destination, so one LID each: switches with an all-down route first
 *    (BFS back from the destination's switch over down links), then the
 *    others by up links, nearest first, ties to the least loaded port.
 *
 * The run: Up*\/Down* from the root (option root; else with seed N >= 1 drawn
 * at random, as papers/002 does; else chosen: engines/lidassign/la_root.c), the
 * paths, their configurations (option lids: the heuristic), then the LID
 * plan: each CA port gets LMC ceil(lg k), its range aligned, switches LMC
 * 0, compact (la_plan()); eng_run() applies that plan. When the LIDs are
 * the subnet manager's (the OpenSM source), they are kept: every port must
 * then already have at least k LIDs, and offsets past k repeat. The tables
 * route every LID of every range from every switch, Up*\/Down*-legal, so the
 * routing is deadlock-free on one VL. Every machine pair's DLID is the one
 * its path was given; paths from switches use the base LID.
 *
 * The notes give the LIDs the plan takes (per-port LMC) beside what the
 * same configurations would take under OpenSM's single global LMC, the
 * share of pairs whose DLID is the base LID (what an SA PathRecord Get
 * returns), and how many entries completion added.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/lidassign/la_impl.h"

/*
 * struct run - one engine run
 * @g: the fabric routed: a copy of the request's with the planned LIDs
 */
struct run {
	const struct eng_req *q;
	const struct eng_args *a;
	enum la_kind kind;
	struct la_updn u;
	struct la_ctx c;
	struct la_sel *sel_h;	/* path selection: every pair's choice, read a destination at a time */
	uint8_t *off;		/* its per-pair offsets, until the routing takes them */
	struct fmt_paths ps;
	struct la_assign as;
	struct la_opts o;
	struct la_sel_stats sel;
	struct la_stats st;
	struct fabric *g;
	struct fab_lid_pin *pins;
	size_t npins;
	struct la_root root;
};

static void run_free(struct run *x)
{
	la_sel_free(x->sel_h);
	free(x->off);
	la_ctx_free(&x->c);
	la_updn_free(&x->u);
	fmt_paths_free(&x->ps);
	la_assign_free(&x->as);
	fab_free(x->g);
	free(x->pins);
}

/* struct la_source of path selection: the selected paths to @d, unless the run must stop. */
static int sel_get(void *ud, uint32_t d, struct fmt_paths *ps, struct fab_err *err)
{
	const struct run *x = ud;

	if (d % 8 == 0 && eng_stopped(x->q)) {
		fab_err_set(err, "stopped");
		return -1;
	}
	if (la_sel_dest(x->sel_h, d, ps)) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	return 0;
}

/*
 * What path selection will hold, about: per machine pair 11 bytes while it
 * selects, the offsets and the routing's DLID table (a byte per endpoint
 * pair each), the candidates (at most paths x 8 hops of 8 bytes per switch
 * pair). Refused beyond the request's memory budget.
 */
static int select_fits(const struct run *x, struct fab_err *err)
{
	const struct fabric *f = x->q->fabric;
	double pairs = (double)x->c.nca * x->c.nca, eps = (double)f->neps * f->neps;
	double need = pairs * 11 + 2 * eps + (double)x->c.ns * x->c.ns * (double)eng_arg_int(x->a, "paths") * 64;

	if (!x->q->budget.memory || need <= (double)x->q->budget.memory)
		return 0;
	fab_err_set(err, "path selection for %u machines needs about %.0f MiB, more than the budget of %.0f MiB "
		    "(engine_memory_mb)", x->c.nca, need / (1 << 20), (double)x->q->budget.memory / (1 << 20));
	return -1;
}

/* Path selection, assigned a destination at a time (every pair's paths are never held at once). */
static int select_assign(struct run *x, struct fab_err *err)
{
	const struct fabric *f = x->q->fabric;
	struct la_source src = { sel_get, x };

	if (select_fits(x, err) ||
	    la_sel_run(&x->c, (uint32_t)eng_arg_int(x->a, "paths"), eng_arg_enum(x->a, "cands") == 1, &x->sel_h,
		       &x->sel, err))
		return -1;
	if (!(x->off = calloc((size_t)f->neps * f->neps + 1, 1))) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	return la_assign_dests(f, &src, &x->o, &x->as, x->off, err);
}

static int make_paths(struct run *x, struct fab_err *err)
{
	switch (x->kind) {
	case LA_K_SELECT:
		return select_assign(x, err);
	case LA_K_WIDEST:
	case LA_K_RENAME:
		return la_paths_widest(&x->c, x->kind == LA_K_RENAME && eng_arg_enum(x->a, "order") == 1,
				       eng_arg_enum(x->a, "weight") == 1, &x->ps, err);
	default:
		return la_paths_explicit(&x->c, &x->ps, err);
	}
}

/* The fabric to route: the plan's LIDs, or the SM's when they are fixed. */
static int lids(struct run *x, struct fab_err *err)
{
	const struct fabric *f = x->q->fabric;

	if (!(x->g = fab_copy(f, err)))
		return ENG_ERROR;
	if (x->q->assign) {
		if (la_plan(f, x->as.lmc, &x->pins, &x->npins, err) ||
		    fab_lids_assign(x->g, x->pins, x->npins, FAB_LIDS_RENEW, 0, err))
			return ENG_ERROR;
		return ENG_OK;
	}
	for (uint32_t e = 0; e < f->neps; e++)
		if ((1u << fab_ep_lmc(f, e)) < x->as.k[e]) {
			fab_err_set(err, "'%s' port %u needs %u LIDs and has %u (the LIDs are the "
				    "subnet manager's: give it LMC %u or more)",
				    FAB_LABEL(f, f->eps[e].node), f->eps[e].port, x->as.k[e],
				    1u << fab_ep_lmc(f, e), la_lmc(x->as.k[e]));
			return ENG_NOT_APPLICABLE;
		}
	return ENG_OK;
}

static const char *const kind_names[] = { "path selection", "shortest-widest",
					  "destination renaming", "fully explicit" };

/* How the root was found, for the notes. */
static const char *root_how(const struct la_root *r, char *buf, size_t size)
{
	if (r->how == LA_ROOT_GIVEN)
		return "given";
	if (r->how == LA_ROOT_DRAWN)
		snprintf(buf, size, "drawn with seed %llu", (unsigned long long)r->seed);
	else
		snprintf(buf, size, "chosen of %u switches scored: candidates' CA max link load %.3f",
			 r->tried, r->load);
	return buf;
}

static char *notes(const struct run *x)
{
	const struct fabric *f = x->q->fabric;
	const struct la_assign *a = &x->as;
	char buf[1024], how[96];
	int n;

	n = snprintf(buf, sizeof(buf), "%s on Up/Down from root '%s' (%s); %llu paths",
		     kind_names[x->kind], FAB_LABEL(f, f->switches[x->root.sw]),
		     root_how(&x->root, how, sizeof(how)), (unsigned long long)a->paths);
	if (x->kind == LA_K_SELECT && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " (from %llu candidates)",
			      (unsigned long long)x->sel.cands);
	if (n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n,
			      "; lids=%s: %llu configurations, %llu LIDs for %u ports with per-port "
			      "LMC (largest %u; under one global LMC %llu), %llu of %llu pairs on the "
			      "base LID; completion added %llu entries, %llu unrouted",
			      la_heur_name(x->o.heur), (unsigned long long)a->configs,
			      (unsigned long long)a->lids, a->cas, a->lmc_max,
			      (unsigned long long)a->lids_global, (unsigned long long)a->sa_pairs,
			      (unsigned long long)a->pairs, (unsigned long long)x->st.filled,
			      (unsigned long long)x->st.unrouted);
	return strdup(buf);
}

int la_route_kind(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		  struct fab_err *err, enum la_kind kind)
{
	struct run x = { .q = q, .a = a, .kind = kind };
	struct rt_routing *r = NULL;
	int rc;

	x.o.heur = kind == LA_K_RENAME ? LA_GREEDY : kind == LA_K_EXPLICIT ? LA_GREEDY :
		   (enum la_heur)eng_arg_enum(a, "lids");
	x.o.dynamic = eng_arg_enum(a, "degree") == 1;
	if (la_updn_root(q->fabric, a, (uint64_t)eng_arg_int(a, "seed"),
			 kind == LA_K_SELECT ? (uint32_t)eng_arg_int(a, "paths") : 16, q, &x.root, err))
		return q->fabric->nswitches ? ENG_ERROR : ENG_NOT_APPLICABLE;
	if (la_updn_build(q->fabric, x.root.sw, &x.u, err) || la_ctx_init(&x.c, q->fabric, &x.u, err)) {
		rc = ENG_NOT_APPLICABLE;
		goto out;
	}
	x.c.q = q;
	if (make_paths(&x, err) || (kind != LA_K_SELECT && la_assign(q->fabric, &x.ps, &x.o, &x.as, err))) {
		rc = ENG_NOT_APPLICABLE;
		goto out;
	}
	rc = lids(&x, err);
	if (rc != ENG_OK)
		goto out;
	rc = ENG_ERROR;
	if (!(r = rt_new(x.g))) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	if (kind == LA_K_SELECT) {
		struct la_source src = { sel_get, &x };
		uint8_t *off = x.off;

		x.off = NULL;	/* the routing takes it */
		if (la_realise_dests(x.g, &src, &x.as, off, &x.u, r, &x.st, err))
			goto out;
	} else if (la_realise(x.g, &x.ps, &x.as, &x.u, r, &x.st, err)) {
		goto out;
	}
	if (!(r->notes = notes(&x))) {
		fab_err_set(err, "out of memory");
		goto out;
	}
	res->routing = r;
	r = NULL;
	res->plan = x.pins;
	res->nplan = x.npins;
	x.pins = NULL;
	rc = ENG_OK;
out:
	rt_free(r);
	run_free(&x);
	return rc;
}

int la_engine_plans_paths(const struct engine *e)
{
	return e == &eng_pathsel || e == &eng_swidest || e == &eng_rename || e == &eng_explicit;
}
