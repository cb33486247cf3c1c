/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - the engine, what a repair may start from, labels and ranks
 *
 * ftdlr repairs a routing instead of computing one: eng_run() calls its
 * repair hook with the routing of a base fabric (req->prev_fabric,
 * req->prev) and the current fabric; without one, its route hook routes
 * like sftree with switch destinations on SL 1. A repair applies when the
 * current fabric is the base with switch links, switches or CAs missing (no
 * node, link or LID the base does not have), the base is a fat tree
 * (struct ft_model: leaves at level 1, no sibling links) whose switches can
 * be labelled, and the base routes every CA LID it rewrites (those whose
 * entries cross a dead link) over up*down* paths (ftree and sftree route
 * them all so).
 *
 * Labels and columns (papers/001, section 2). Every child reaches a given
 * parent through the same rank among its up ports (Corollary 1 of the
 * paper: the D index); that rank is the parent's label. Traffic that stays
 * at and above level L + 1 never changes the label of the level L + 1
 * switches it visits, so the switches of level L + 1 that such traffic
 * connects, across all groups, share one order of labels: a column is a
 * connected part of the switches of level >= L, restricted to level L + 1
 * (on the 4-ary 3-tree: the level-2 switches form one column of four
 * groups, the top switches four columns of one group each).
 *
 * Ranks. In each column a label's dirt counts the dead down-links of live
 * switches with that label and the dead switches with it (a link that is
 * dead because its lower switch died does not count). Clean labels rank
 * highest; the rest by dirt, then label. Every detour U-turns from the
 * dead link's (dirty) upper switch to a switch of higher rank; with at most
 * k - 1 faults some label of each column is clean, so every U-turn goes
 * from dirty to clean and no cycle of U-turns can close: all CA-LID traffic
 * stays deadlock-free on its one VL (the argument of papers/001's proofs,
 * made with one global order per column instead of VCs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr/ftdlr_impl.h"

/* --- what the current fabric may differ in ------------------------------------ */

/* Every node, link and LID of @cf is in @bf; @cf may lack some. ENG_OK or ENG_NOT_APPLICABLE. */
static int check_subset(const struct fabric *bf, const struct fabric *cf, uint32_t lft_len,
			struct fab_err *err)
{
	for (uint32_t n = 0; n < cf->nnodes; n++) {
		const struct fab_node *c = &cf->nodes[n];
		/* a fabric made from the base by taking links away keeps its order: no look-up */
		uint32_t b = n < bf->nnodes && bf->nodes[n].guid == c->guid ? n :
			     fab_node_by_guid(bf, c->guid);

		if (b == FAB_NONE || bf->nodes[b].type != c->type || bf->nodes[b].nports != c->nports) {
			fab_err_set(err, "node '%s' (0x%016llx) is not in the base fabric as it is now",
				    fab_desc(cf, n), (unsigned long long)c->guid);
			return ENG_NOT_APPLICABLE;
		}
		for (unsigned p = 1; p <= c->nports; p++) {
			const struct fab_port *cp = fab_port(cf, n, p), *bp = fab_port(bf, b, p);

			if (cp->peer == FAB_NONE)
				continue;
			if (bp->peer == FAB_NONE || bp->peer_port != cp->peer_port ||
			    bf->nodes[bp->peer].guid != cf->nodes[cp->peer].guid) {
				fab_err_set(err, "link '%s' port %u - '%s' port %u is not in the base "
					    "fabric (recabled or new)", FAB_LABEL(cf, n), p,
					    FAB_LABEL(cf, cp->peer), cp->peer_port);
				return ENG_NOT_APPLICABLE;
			}
		}
	}
	for (uint32_t e = 0; e < cf->neps; e++) {
		const struct fab_port *cp = fab_port(cf, cf->eps[e].node, cf->eps[e].port);
		uint32_t be = e < bf->neps &&
			      fab_port(bf, bf->eps[e].node, bf->eps[e].port)->guid == cp->guid ? e :
			      fab_ep_by_port_guid(bf, cp->guid);

		if (be == FAB_NONE || fab_ep_lid(bf, be) != cp->lid || fab_ep_lmc(bf, be) != cp->lmc ||
		    cp->lid + (1u << cp->lmc) > lft_len) {
			fab_err_set(err, "'%s' port %u has LID %u (LMC %u), not the base's", FAB_LABEL(cf,
				    cf->eps[e].node), cf->eps[e].port, cp->lid, cp->lmc);
			return ENG_NOT_APPLICABLE;
		}
	}
	return ENG_OK;
}

/* --- the base as a tree ---------------------------------------------------------- */

/* x->dead: the switches with an up link x->alive says is dead (a dead switch's too), once each. */
static int dead_links(struct fd *x)
{
	x->ndead = 0;
	if (!(x->dead = malloc(((size_t)x->nsw + 1) * sizeof(*x->dead))))
		return -1;
	for (uint32_t s = 0; s < x->nsw; s++)
		for (uint32_t e = ft_first(&x->m, s, FT_UP); e < ft_end(&x->m, s, FT_UP); e++)
			if (!x->alive[e]) {
				x->dead[x->ndead++] = s;
				break;
			}
	return 0;
}

static int setup_links(struct fd *x)
{
	const struct fabric *bf = x->bf, *cf = x->cf;

	x->plink = malloc(((size_t)bf->nports + 1) * sizeof(*x->plink));
	x->hop = malloc(((size_t)bf->nports + 1) * sizeof(*x->hop));
	x->alive = calloc((size_t)x->m.nlinks + 1, 1);
	x->cur = malloc(((size_t)x->nsw + 1) * sizeof(*x->cur));
	x->p0 = malloc(((size_t)x->nsw + 1) * sizeof(*x->p0));
	x->np = malloc((size_t)x->nsw + 1);
	if (!x->plink || !x->hop || !x->alive || !x->cur || !x->p0 || !x->np)
		return -1;
	for (uint32_t i = 0; i < bf->nports; i++)
		x->plink[i] = x->hop[i] = FD_NONE;
	for (uint32_t s = 0; s < x->nsw; s++) {
		uint32_t b = bf->switches[s], n = b < cf->nnodes && cf->nodes[b].guid == bf->nodes[b].guid ?
						   b : fab_node_by_guid(cf, bf->nodes[b].guid);

		x->cur[s] = n == FAB_NONE ? FD_NONE : cf->nodes[n].swidx;
		x->p0[s] = bf->nodes[bf->switches[s]].port0;
		x->np[s] = bf->nodes[bf->switches[s]].nports;
	}
	for (uint32_t s = 0; s < x->nsw; s++)
		for (uint32_t e = ft_first(&x->m, s, FT_UP); e < ft_end(&x->m, s, FT_SIB); e++) {
			const struct ft_link *l = &x->m.links[e];
			uint32_t cn, pn;

			x->plink[bf->nodes[bf->switches[s]].port0 + l->port] = e;
			if (fd_dead(x, s) || fd_dead(x, l->peer))
				continue;
			cn = cf->switches[x->cur[s]];
			pn = cf->switches[x->cur[l->peer]];
			x->alive[e] = fab_port(cf, cn, l->port)->peer == pn &&
				      fab_port(cf, cn, l->port)->peer_port == l->peer_port;
			if (x->alive[e])
				x->hop[x->p0[s] + l->port] = l->peer;
		}
	return dead_links(x);
}

/* Labels: the rank of the up port by which children reach a switch; all must agree. */
static int setup_labels(struct fd *x, struct fab_err *err)
{
	const struct ft_model *m = &x->m;

	x->label = malloc((size_t)x->nsw + 1);
	if (!x->label)
		return ENG_ERROR;
	memset(x->label, 0xff, x->nsw);
	x->kmax = 1;
	for (uint32_t c = 0; c < x->nsw; c++) {
		uint32_t first = ft_first(m, c, FT_UP), n = ft_end(m, c, FT_UP) - first;

		if (n > x->kmax)
			x->kmax = n;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t u = m->links[first + j].peer;

			if (x->label[u] == 0xff) {
				x->label[u] = (uint8_t)j;
			} else if (x->label[u] != j) {
				fab_err_set(err, "switch '%s' is the up port %u of '%s' but the up port %u "
					    "of another child: its parents cannot be labelled",
					    ft_sw_name(x->bf, u), j + 1, ft_sw_name(x->bf, c),
					    x->label[u] + 1u);
				return ENG_NOT_APPLICABLE;
			}
		}
	}
	for (uint32_t s = 0; s < x->nsw; s++)
		if (x->label[s] == 0xff)
			x->label[s] = 0;
	return ENG_OK;
}

static uint32_t uf_find(uint32_t *uf, uint32_t a)
{
	while (uf[a] != a) {
		uf[a] = uf[uf[a]];
		a = uf[a];
	}
	return a;
}

/* Columns: see the DOC comment. */
static int setup_columns(struct fd *x)
{
	const struct ft_model *m = &x->m;
	uint32_t *uf = malloc(((size_t)x->nsw + 1) * sizeof(*uf));
	uint32_t *id = malloc(((size_t)x->nsw + 1) * sizeof(*id));

	x->col = calloc((size_t)x->nsw + 1, sizeof(*x->col));
	if (!uf || !id || !x->col) {
		free(uf);
		free(id);
		return -1;
	}
	x->ncols = 0;
	for (uint32_t l = 2; l <= m->nlevels; l++) {
		for (uint32_t s = 0; s < x->nsw; s++) {
			uf[s] = s;
			id[s] = FD_NONE;
		}
		for (uint32_t s = 0; s < x->nsw; s++)
			for (uint32_t e = ft_first(m, s, FT_UP); e < ft_end(m, s, FT_UP); e++)
				if (m->level[s] + 1 >= l)
					uf[uf_find(uf, s)] = uf_find(uf, m->links[e].peer);
		for (uint32_t i = m->lvl_off[l]; i < m->lvl_off[l + 1]; i++) {
			uint32_t s = m->order[i], root = uf_find(uf, s);

			if (id[root] == FD_NONE)
				id[root] = x->ncols++;
			x->col[s] = id[root];
		}
	}
	free(uf);
	free(id);
	return 0;
}

/* A copy of @n bytes of @p (NULL: when @p is NULL or out of memory). */
static void *dup_of(const void *p, size_t n)
{
	void *d = p ? malloc(n) : NULL;

	return d ? memcpy(d, p, n) : NULL;
}

/* Labels and columns: the memo's, else worked out (and kept in the memo). */
static int labels_columns(struct fd *x, struct fab_err *err)
{
	struct fd_memo *k = x->keep;
	size_t n = (size_t)x->nsw + 1;
	int rc;

	if (k && k->label && k->col) {
		x->kmax = k->kmax;
		x->ncols = k->ncols;
		x->label = dup_of(k->label, n);
		x->col = dup_of(k->col, n * sizeof(*x->col));
		return x->label && x->col ? ENG_OK : ENG_ERROR;
	}
	rc = setup_labels(x, err);
	if (rc == ENG_OK && setup_columns(x))
		rc = ENG_ERROR;
	if (rc == ENG_OK && k) {	/* kept when both fit in memory */
		free(k->label);
		free(k->col);
		k->label = dup_of(x->label, n);
		k->col = dup_of(x->col, n * sizeof(*x->col));
		k->kmax = x->kmax;
		k->ncols = x->ncols;
	}
	return rc;
}

/* Count the faults into x->st and the dirt of every label. */
static int setup_dirt(struct fd *x)
{
	const struct ft_model *m = &x->m;

	x->dirt = calloc((size_t)(x->ncols + 1) * x->kmax, sizeof(*x->dirt));
	if (!x->dirt)
		return -1;
	for (uint32_t s = 0; s < x->nsw; s++) {
		if (!m->level[s])
			continue;
		if (fd_dead(x, s)) {
			if (m->level[s] >= 2) {
				x->st.switch_faults++;
				x->dirt[(size_t)x->col[s] * x->kmax + x->label[s]]++;
			} else {
				x->st.other_faults++;
			}
			continue;
		}
		for (uint32_t e = ft_first(m, s, FT_DOWN); e < ft_end(m, s, FT_DOWN); e++)
			if (!x->alive[e] && !fd_dead(x, m->links[e].peer)) {
				x->st.link_faults++;
				x->dirt[(size_t)x->col[s] * x->kmax + x->label[s]]++;
			}
	}
	x->clean = calloc((size_t)x->ncols + 1, 1);
	if (!x->clean)
		return -1;
	for (uint32_t s = 0; s < x->nsw; s++)	/* labels in use: those of some switch */
		if (m->level[s] >= 2 && !fd_dirt(x, s))
			x->clean[x->col[s]] = 1;
	/* every endpoint of cf is one of the base's (check_subset()): as many, none is gone */
	for (uint32_t e = 0; x->cf->neps < x->bf->neps && e < x->bf->neps; e++) {
		const struct fab_port *p = fab_port(x->bf, x->bf->eps[e].node, x->bf->eps[e].port);

		if (x->bf->nodes[x->bf->eps[e].node].type != FAB_SWITCH &&
		    fab_ep_by_port_guid(x->cf, p->guid) == FAB_NONE)
			x->st.other_faults++;
	}
	x->st.k = 255;
	for (uint32_t s = 0; s < x->nsw; s++) {
		uint32_t n = ft_end(m, s, FT_UP) - ft_first(m, s, FT_UP);

		if (m->level[s] && m->level[s] < m->nlevels && n < x->st.k)
			x->st.k = n;
	}
	return 0;
}

/* The turning switches of the switch LIDs @lid[0..@n) (in increasing order), by their columns. */
static void turning_cols(struct fd *x, unsigned *lid, uint32_t n, uint8_t *col)
{
	for (uint32_t i = 1; i < n; i++)	/* switches by GUID: their LIDs in any order */
		for (uint32_t k = i; k > 0 && lid[k - 1] > lid[k]; k--) {
			unsigned t = lid[k];

			lid[k] = lid[k - 1];
			lid[k - 1] = t;
		}
	fd_columns(x, lid, n, col);
	for (uint32_t j = 0; j < n; j++) {
		const uint8_t *c = col + (size_t)j * x->nsw;

		for (uint32_t s = 0; s < x->nsw; s++) {
			uint8_t p = c[s], q;
			uint32_t e = p == RT_NO_PORT ? FD_NONE : fd_link(x, s, p), y, f;

			if (e == FD_NONE || is_up_link(x, s, e))
				continue;
			y = x->m.links[e].peer;
			q = c[y];
			f = q == RT_NO_PORT ? FD_NONE : fd_link(x, y, q);
			if (f != FD_NONE && is_up_link(x, y, f))
				x->turning[y] = 1;
		}
	}
}

/*
 * The base's turning switches: where some switch LID's path comes down and
 * goes up again (sftree turns its switch pairs in the subtree of its root).
 * Detours prefer to U-turn there too: when every U-turn of a routing is at
 * one switch, no dependency chain can leave it and come back (papers/000,
 * Lemma 5.9), which keeps a one-VL repair acyclic where sftree's turns and
 * the detours would otherwise meet.
 */
static int setup_turning(struct fd *x)
{
	const struct fabric *bf = x->bf;
	uint8_t *col = malloc((size_t)FD_COLS * x->nsw + 1);
	unsigned lid[FD_COLS];
	uint32_t n = 0;

	x->turning = calloc((size_t)x->nsw + 1, 1);
	if (!x->turning || !col) {
		free(col);
		return -1;
	}
	if (x->keep && x->keep->turning) {
		memcpy(x->turning, x->keep->turning, x->nsw);
		free(col);
		return 0;
	}
	for (uint32_t d = 0; d <= x->nsw; d++) {
		unsigned l = d < x->nsw ? fab_port(bf, bf->switches[d], 0)->lid : 0;

		if (l && l < x->br->lft_len)	/* a LID past the tables has no entries */
			lid[n++] = l;
		if (n && (n == FD_COLS || d == x->nsw)) {
			turning_cols(x, lid, n, col);
			n = 0;
		}
	}
	free(col);
	if (x->keep && (x->keep->turning = malloc((size_t)x->nsw + 1)))
		memcpy(x->keep->turning, x->turning, x->nsw);
	return 0;
}

static char *notes(const struct fd *x, enum ftdlr_scope scope)
{
	const struct ftdlr_stats *s = &x->st;
	unsigned faults = s->link_faults + s->switch_faults;
	char *n = malloc(1024), via[160] = "";

	if (x->sn != FD_NONE)
		snprintf(via, sizeof(via), " (%u turned at the base's subtree root '%s' or its "
			 "ancestors)", s->subtree, ft_sw_name(x->bf, x->sn));
	if (n)
		snprintf(n, 1024, "repair (scope %s) of %u link and %u switch faults (%u leaf "
			 "switches and CAs gone), %s k - 1 = %u: %llu LFT entries changed on %u "
			 "switches, %u blocks (at most %u on one switch); LIDs repaired: %u%s; "
			 "detours not raising the label rank: %llu; switch-LID entries recomputed: "
			 "%llu; entries left without a way: %llu; switch destinations on %s",
			 scope == FTDLR_GROUP ? "group" : "minimal", s->link_faults, s->switch_faults,
			 s->other_faults, faults < s->k ? "within" : "beyond", s->k - 1,
			 (unsigned long long)s->entries, s->switches, s->blocks, s->max_blocks,
			 s->lids, via, (unsigned long long)s->nonmonotone,
			 (unsigned long long)s->sw_fallback, (unsigned long long)s->unrepaired,
			 s->switch_sl ? "a VL of their own" : "the CAs' VL");
	return n;
}

/* --- the repair -------------------------------------------------------------------- */

static void fd_fini(struct fd *x)
{
	if (x->m.f && !x->m_kept)
		ft_model_fini(&x->m);
	free(x->cur);
	free(x->plink);
	free(x->hop);
	free(x->p0);
	free(x->np);
	free(x->alive);
	free(x->label);
	free(x->col);
	free(x->dirt);
	free(x->clean);
	free(x->turning);
	free(x->ustar);
	free(x->wsel);
	free(x->lstar);
	free(x->row);
	free(x->bcol);
	free(x->fixed);
	free(x->mark);
	free(x->dist);
	free(x->stack);
	free(x->need);
	free(x->chg);
	free(x->sw_broken);
	free(x->sw_touched);
	for (uint32_t s = 0; x->udc && s < x->nsw; s++)
		free(x->udc[s]);
	free(x->udc);
	free(x->ud);
	free(x->snway);
	free(x->anchor);
	free(x->dead);
	free(x->qpos);
	free(x->qsw);
	free(x->qnew);
}

static int fd_alloc(struct fd *x)
{
	size_t n = (size_t)x->nsw + 1;

	x->ustar = malloc(n * sizeof(*x->ustar));
	x->lstar = malloc(n * sizeof(*x->lstar));
	x->wsel = malloc(((size_t)x->m.nlinks + 1) * sizeof(*x->wsel));
	x->row = malloc(n);
	x->bcol = malloc(n);
	x->fixed = malloc(n);
	x->mark = malloc(n);
	x->dist = malloc(n * sizeof(*x->dist));
	x->stack = malloc(n * sizeof(*x->stack));
	x->sw_broken = calloc((size_t)x->br->lft_len + 1, 1);
	x->sw_touched = calloc((size_t)x->br->lft_len + 1, 1);
	if (!x->ustar || !x->lstar || !x->wsel || !x->row || !x->bcol || !x->fixed || !x->mark ||
	    !x->dist || !x->stack || !x->sw_broken || !x->sw_touched || fd_changes_init(x))
		return -1;
	for (uint32_t s = 0; s < x->nsw; s++)
		x->ustar[s] = x->lstar[s] = FD_UNSET;
	for (uint32_t e = 0; e < x->m.nlinks; e++)
		x->wsel[e] = FD_UNSET;
	return 0;
}


/*
 * The set-up after the links: labels, checks, columns, turning switches,
 * the subtree root, scratch, the frame.
 */
static int setup_rest(struct fd *x, struct fab_err *err)
{
	int rc = labels_columns(x, err);

	if (rc == ENG_OK)
		rc = fd_updown_check(x, err);
	if (rc == ENG_OK) {
		x->st.switch_sl = fd_switch_sl(x);
		if (setup_dirt(x) || setup_turning(x) || fd_sn_find(x) || fd_alloc(x) ||
		    fd_make_frame(x))
			rc = ENG_ERROR;
	}
	return rc;
}

/* The base's fat-tree model: the one kept, else made (and kept when there is a memo). */
static int base_model(struct fd *x, struct fab_err *err)
{
	int rc;

	if (x->keep && x->keep->m.f) {
		x->m = x->keep->m;
		x->m_kept = 1;
		return ENG_OK;
	}
	rc = ft_model_init(&x->m, x->bf, err);
	if (rc == ENG_OK && x->keep) {
		x->keep->m = x->m;
		x->m_kept = 1;
	}
	return rc;
}

/* Everything but the LIDs' repair: ENG_OK, ENG_NOT_APPLICABLE or ENG_ERROR. */
static int fd_setup(struct fd *x, struct fab_err *err)
{
	int rc;

	if (x->br->nswitches != x->bf->nswitches || x->br->neps != x->bf->neps) {
		fab_err_set(err, "the base routing was not computed for the base fabric");
		return ENG_NOT_APPLICABLE;
	}
	rc = check_subset(x->bf, x->cf, x->br->lft_len, err);
	if (rc == ENG_OK)
		rc = base_model(x, err);
	if (rc != ENG_OK) {
		x->m.f = NULL;
		return rc;
	}
	x->nsw = x->bf->nswitches;
	if (x->m.nsib || x->m.nignored) {
		fab_err_set(err, "the base fabric is not a tree ftdlr repairs: %s", x->m.nsib ?
			    "leaves linked horizontally" : "switches no leaf reaches");
		return ENG_NOT_APPLICABLE;
	}
	if (setup_links(x) || fd_need(x))
		return ENG_ERROR;
	return setup_rest(x, err);
}

int ftdlr_repair(const struct fabric *bf, const struct rt_routing *br, const struct fabric *cf,
		 enum ftdlr_scope scope, unsigned threads, struct rt_routing **out,
		 struct ftdlr_stats *st, struct fab_err *err)
{
	return ftdlr_repair_memo(bf, br, cf, scope, threads, NULL, out, st, NULL, NULL, err);
}

int ftdlr_repair_memo(const struct fabric *bf, const struct rt_routing *br,
		      const struct fabric *cf, enum ftdlr_scope scope, unsigned threads,
		      struct eng_memo *memo, struct rt_routing **out, struct ftdlr_stats *st,
		      uint32_t **changed, size_t *nchanged, struct fab_err *err)
{
	struct fd x;
	int rc;

	memset(&x, 0, sizeof(x));
	x.keep = fd_memo_for(memo, bf, br);
	x.bf = bf;
	x.br = br;
	x.cf = cf;
	x.scope = scope;
	x.m.f = bf;
	err->msg[0] = '\0';
	rc = fd_setup(&x, err);
	if (rc == ENG_OK && (fd_repair_lids(&x, threads) || fd_vls(&x, err)))
		rc = ENG_ERROR;
	if (rc == ENG_OK)
		fd_count_changes(&x);
	if (rc == ENG_OK && !(x.r->notes = notes(&x, scope)))
		rc = ENG_ERROR;
	if (rc == ENG_OK && changed && fd_changed_switches(&x, changed, nchanged))
		rc = ENG_ERROR;
	if (rc == ENG_ERROR && !err->msg[0])	/* else the switch LIDs could not be routed: why */
		fab_err_set(err, "out of memory repairing a routing of %u switches", bf->nswitches);
	if (rc == ENG_OK) {
		*out = x.r;
		*st = x.st;
		x.r = NULL;
	}
	rt_free(x.r);
	fd_fini(&x);
	return rc;
}

/* --- the engine --------------------------------------------------------------------- */

static const struct eng_opt ftdlr_opts[] = {
	{ .name = "base", .type = ENG_OPT_ENUM, .defval = "sftree", .values = "sftree|ftree",
	  .help = "without a routing to repair: route with this engine, switch destinations on "
		  "SL 1 (VL 1), a base whose repairs never change a path SL" },
	{ .name = "scope", .type = ENG_OPT_ENUM, .defval = "minimal", .values = "minimal|group",
	  .help = "minimal: a link repair rewrites the dead link's ends and one U-turn switch "
		  "per LID; group: also the group's lower switches that sent the LID to the "
		  "dead link's upper end" },
	{ 0 },
};

/* Every pair towards a switch on SL 1: the VL plan repairs keep. */
static int static_plan(const struct fabric *f, struct rt_routing *r)
{
	if (rt_pairs_alloc(r))
		return -1;
	for (uint32_t d = 0; d < f->neps; d++)
		for (uint32_t e = 0; e < f->neps && f->nodes[f->eps[d].node].type == FAB_SWITCH; e++)
			r->path_sl[(size_t)e * r->neps + d] = e != d;
	r->vls_used |= 1u << 1;
	return 0;
}

/*
 * Without a routing to repair: the base engine's routing with every pair
 * towards a switch on SL 1, which the default SL2VL maps to VL 1. CA
 * destinations' paths (up*down*, and later repairs' detours of the rule)
 * then have VL 0 to themselves, switch destinations' paths (which turn
 * where the base and the repairs need) VL 1, and no repair ever has to
 * change a path SL.
 */
static int ftdlr_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		       struct fab_err *err)
{
	const struct engine *e = eng_arg_enum(a, "base") ? &eng_ftree : &eng_sftree;
	struct eng_args none = { .schema = NULL };
	int rc = e->route(q, &none, res, err);
	char *notes;
	size_t len;

	if (rc != ENG_OK)
		return rc;
	len = strlen(res->routing->notes) + 96;
	notes = malloc(len);
	if (!notes || static_plan(q->fabric, res->routing)) {
		free(notes);
		fab_err_set(err, "out of memory");
		return ENG_ERROR;
	}
	snprintf(notes, len, "%s; %s, switch destinations on SL 1 (VL 1), CA destinations on SL 0",
		 res->routing->notes, e->name);
	free(res->routing->notes);
	res->routing->notes = notes;
	return ENG_OK;
}

static int ftdlr_repair_hook(const struct eng_req *q, const struct eng_args *a,
			     struct eng_res *res, struct fab_err *err)
{
	struct ftdlr_stats st;

	if (!q->prev_fabric || !q->prev) {
		fab_err_set(err, "no base routing given");
		return ENG_NOT_APPLICABLE;
	}
	return ftdlr_repair_memo(q->prev_fabric, q->prev, q->fabric,
				 eng_arg_enum(a, "scope") ? FTDLR_GROUP : FTDLR_MINIMAL, q->threads,
				 q->memo, &res->routing, &st, &res->changed, &res->nchanged, err);
}

/*
 * The memo of base (@bf, @br) ahead of its next repair: the model and the
 * turning switches (at once), then the switch classes towards every
 * switch, every LID's up*down* check and the LIDs the subtree rule gives
 * back (a run of switches or LIDs at a time, until *@stop: struct
 * engine.prepare).
 */
static int ftdlr_prepare(const struct fabric *bf, const struct rt_routing *br,
			 struct eng_memo *memo, const int *stop)
{
	struct fd x = { .bf = bf, .cf = bf, .br = br, .nsw = bf->nswitches };
	struct fab_err err = { { 0 } };
	int rc = 0;

	x.keep = fd_memo_for(memo, bf, br);
	if (!x.keep || br->nswitches != bf->nswitches)
		return x.keep ? 0 : -1;
	if (x.keep->m.f && x.keep->turning && x.keep->ud_tried && x.keep->ud_all &&
	    x.keep->rb_tried)
		return 0;
	if (base_model(&x, &err) == ENG_OK && !x.m.nsib && !x.m.nignored) {
		rc = setup_links(&x) || setup_turning(&x) ? -1 : 0;
		if (!rc)
			rc = fd_sn_prepare(&x, stop);
		if (!rc)
			rc = fd_updown_prepare(&x, stop);
		if (!rc)
			rc = fd_quick_prepare(&x, stop);
	}
	fd_fini(&x);
	return rc;
}

const struct engine eng_ftdlr = {
	.name = "ftdlr",
	.summary = "local repair of a fat-tree routing around faults (dynamic local rerouting "
		   "in k-ary n-trees, DDLR): rewrites only the faults' groups, base back on "
		   "recovery; without a routing to repair, sftree with switch destinations on VL 1",
	.options = ftdlr_opts,
	.deadlock_free = 1,
	.vls = 2,
	.route = ftdlr_route,
	.repair = ftdlr_repair_hook,
	.prepare = ftdlr_prepare,
};
