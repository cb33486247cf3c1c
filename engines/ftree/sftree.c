/* SPDX-License-Identifier: MIT */
/**
 * DOC: sftree - fat-tree routing with deadlock-free switch-to-switch paths
 *
 * papers/000 (sFtree): ftree's routing (ftree.c) for every LID, then one
 * pass over the switch pairs without up/down path (roots among themselves,
 * switches of different subtrees or cores), routing them all through one
 * switch, the subtree root sn, on the same single VL.
 *
 * The same pass then fills the CA-LID entries ftree left empty, for the
 * switch-to-CA paths that have no up/down path (a core's switches towards
 * another core's CAs, a root that lost its link to a leaf): switches send
 * those through sn too. No entry ftree made is changed, and a CA-sourced
 * packet only ever crosses switches that have an entry for its destination,
 * so every end-node path is exactly ftree's.
 *
 * Algorithm 1 (subtree root), with one condition added: sn must have a
 * single way down from each of its ancestors (they form a tree). The paper
 * takes the first leaf whose table reaches every switch, avoiding the leaf
 * the subnet manager's port hangs off; here the switches are scanned level
 * by level from the leaves (switch order within a level) and the first one
 * that reaches every switch, is not the SM's leaf (f->sm_node and sm_port;
 * the SM's own switch when it runs on a switch) and meets the condition is
 * taken. When the SM's location is unknown, nothing is avoided. When no
 * switch reaches every switch (a degraded tree), the one missing the fewest
 * switch LIDs is taken (the paper falls back to the first leaf). In XGFTs
 * (k-ary and m-port n-trees, the 648-port tree, multi-core trees of them),
 * intact or degraded, every leaf has a single way down, so this is the
 * paper's choice. In the rack-switch tree a rack switch's 18 parents share
 * the spines and the first core leaf is taken instead.
 *
 * Why the condition: Lemma 5.9 assumes that traffic leaving the subtree
 * downwards never comes back into it. Ordinary traffic to sn's CAs and to
 * the switches of the subtree does come back; where two ways lead down to
 * sn, a dependency chain can turn up at one switch of the subtree, come
 * down into another and turn again, and close a cycle (the rack-switch tree
 * with one failed link does, with sn a rack switch). With a single way down
 * it cannot: between two down-to-up turns, a chain of dependencies climbs
 * from a subtree switch to a peak and comes down a subtree channel; both
 * legs then run along the one path from the peak down to sn, so at the peak
 * a packet would leave by the link it came in on, a forwarding loop, which
 * a destination-based routing never has.
 *
 * The subtree: sn, its ancestors (their way to sn only goes down) and the
 * leaves that reach sn over one sibling link. Then every switch without an
 * entry for sn gets one, repeatedly until nothing changes: going down to
 * a child with an entry, preferring sn's sibling leaves (another core: the
 * switch joins the subtree, the sibling's ancestors having a single way down
 * to it too), else any child (a detour, in degraded trees: a root that lost
 * its link towards sn's side); or going up to a parent with an entry.
 *
 * Algorithm 2, for each switch s without entry for a destination d (a
 * switch, then a CA LID): when sn has an
 * entry for d, s forwards d the way it forwards sn. The packet heads for
 * sn and the first switch on that way with an up/down entry for d turns it
 * up towards d. That switch is in the subtree: a switch reached before the
 * peak of the way would have given s an up/down path. Each pair is checked
 * by walking the way: a pair whose turn falls outside the subtree (a leaf
 * whose way to sn starts with a sibling link to a leaf whose way to d
 * starts with another one) tries s's up ports instead, and is left unrouted
 * when none works. When sn has no entry for d: the sibling fallback (lines
 * 6-18: a sibling leaf of sn with an up/down entry for d; sn forwards d to
 * it and the target stays sn), else, for a switch d, a relay: d joined
 * through a detour child c, so sn and the switches on its way to c forward
 * d towards c, which goes up to d.
 *
 * The turns of detours and relays (degraded trees only) are outside the
 * argument above; the unit tests check the channel dependency graph of
 * every tree family under many random faults, and `fabroute eval` checks
 * any routing.
 *
 * Hop counts: a pair routed through the subtree takes the way to sn up to
 * the turning switch, then that switch's up/down path (the paper's
 * get_path_length). fabroute's tables carry no hop counts; the notes give
 * the longest switch-to-switch path, and analysis/ traces any pair.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/ftree/ftree.h"

/* --- Algorithm 1 ------------------------------------------------------------------ */

/* The leaf the SM's port hangs off (or the SM's own leaf switch), FAB_NONE if unknown. */
static uint32_t sm_leaf(const struct ft_model *m)
{
	const struct fabric *f = m->f;
	uint32_t node = f->sm_node;

	if (node == FAB_NONE || node >= f->nnodes)
		return FAB_NONE;
	if (f->nodes[node].type == FAB_SWITCH)
		return m->level[f->nodes[node].swidx] == 1 ? f->nodes[node].swidx : FAB_NONE;
	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		const struct fab_port *x = fab_port(f, node, p);

		if ((!f->sm_port || p == f->sm_port) && x->peer != FAB_NONE &&
		    f->nodes[x->peer].type == FAB_SWITCH)
			return f->nodes[x->peer].swidx;
	}
	return FAB_NONE;
}

/* Switch LIDs leaf @s has no entry for. */
static uint32_t missing(const struct sf *x, uint32_t s)
{
	uint32_t n = 0;

	for (uint32_t t = 0; t < x->m->nsw; t++)
		n += x->lid[t] && rt_lft_get(x->r, s, x->lid[t]) == RT_NO_PORT;
	return n;
}

/*
 * Every switch above @s has a single way down to it (parallel cables
 * aside): the ancestors of @s form a tree. A BFS up from @s; @via records
 * through which child each ancestor was found.
 */
static int single_way_down(struct sf *x, uint32_t s)
{
	const struct ft_model *m = x->m;
	uint32_t n = 0, head = 0;
	int ok = 1;

	x->seen[s] = 1;
	x->list[n++] = s;
	while (head < n && ok) {
		uint32_t c = x->list[head++];

		for (uint32_t e = ft_first(m, c, FT_UP); e < ft_end(m, c, FT_UP) && ok; e++) {
			uint32_t p = m->links[e].peer;

			if (!x->seen[p]) {
				x->seen[p] = 1;
				x->via[p] = c;
				x->list[n++] = p;
			} else if (x->via[p] != c) {
				ok = 0;
			}
		}
	}
	for (uint32_t i = 0; i < n; i++)
		x->seen[x->list[i]] = 0;
	return ok;
}

/*
 * Algorithm 1, extended: the first switch, leaves first, that reaches every
 * switch, is not the SM's leaf and has a single way down from each of its
 * ancestors; failing that, the one missing the fewest switch LIDs.
 */
static void choose_root(struct sf *x)
{
	const struct ft_model *m = x->m;
	uint32_t best_miss = UINT32_MAX;
	int best_sm = 1;

	x->sm_leaf = sm_leaf(m);
	x->sn = FAB_NONE;
	for (uint32_t i = 0; i < m->lvl_off[m->nlevels + 1]; i++) {
		uint32_t s = m->order[i], miss = missing(x, s);
		int sm = s == x->sm_leaf;

		if (miss > best_miss || (miss == best_miss && sm >= best_sm) || !x->lid[s] ||
		    !single_way_down(x, s))
			continue;
		x->sn = s;
		best_miss = miss;
		best_sm = sm;
		if (!miss && !sm)
			break;
	}
}

/* --- the subtree -------------------------------------------------------------------- */

/* Mark the subtree of sn (see the DOC comment); levels upwards. */
static void mark_subtree(struct sf *x)
{
	const struct ft_model *m = x->m;
	unsigned lid = x->lid[x->sn];

	x->sub[x->sn] = SUB_IN;
	for (uint32_t i = 0; i < m->lvl_off[m->nlevels + 1]; i++) {
		uint32_t s = m->order[i], t = next_sw(x, s, lid);

		if (s == x->sn || t == FAB_NONE || !x->sub[t])
			continue;
		if (m->level[t] + 1 == m->level[s])
			x->sub[s] = x->sub[t];
		else if (m->level[s] == 1 && t == x->sn)
			x->sub[s] = single_way_down(x, s) ? SUB_JOIN : SUB_IN;
	}
}

/*
 * A down port of @s to a switch that has an entry for sn: one of the
 * subtree others may join through (another core's leaf linked to sn) when
 * there is one, else any; UINT32_MAX if none.
 */
static uint32_t join_link(const struct sf *x, uint32_t s)
{
	const struct ft_model *m = x->m;
	uint32_t any = UINT32_MAX;

	for (uint32_t e = ft_first(m, s, FT_DOWN); e < ft_end(m, s, FT_DOWN); e++) {
		uint32_t c = m->links[e].peer;

		if (x->sub[c] == SUB_JOIN)
			return e;
		if (any == UINT32_MAX && rt_lft_get(x->r, c, x->lid[x->sn]) != RT_NO_PORT)
			any = e;
	}
	return any;
}

/* Switches without entry for sn go down to one that has one; 1 if any did. */
static int join_down(struct sf *x)
{
	const struct ft_model *m = x->m;
	unsigned lid = x->lid[x->sn];
	int changed = 0;

	for (uint32_t i = m->lvl_off[2]; i < m->lvl_off[m->nlevels + 1]; i++) {
		uint32_t s = m->order[i], e, c;

		if (rt_lft_get(x->r, s, lid) != RT_NO_PORT || (e = join_link(x, s)) == UINT32_MAX)
			continue;
		c = m->links[e].peer;
		rt_lft(x->r, s)[lid] = m->links[e].port;
		if (x->sub[c] == SUB_JOIN) {
			x->sub[s] = SUB_JOIN;
		} else {
			x->detour[s] = 1;
			x->detour[c] = 1;
			x->jchild[s] = c;
		}
		x->joined++;
		changed = 1;
	}
	return changed;
}

/* Switches without entry for sn go up to a parent that has one; 1 if any did. */
static int join_up(struct sf *x)
{
	const struct ft_model *m = x->m;
	unsigned lid = x->lid[x->sn];
	int changed = 0;

	for (uint32_t l = m->nlevels - 1; l >= 1; l--)
		for (uint32_t i = m->lvl_off[l]; i < m->lvl_off[l + 1]; i++) {
			uint32_t s = m->order[i];

			if (rt_lft_get(x->r, s, lid) != RT_NO_PORT)
				continue;
			for (uint32_t e = ft_first(m, s, FT_UP); e < ft_end(m, s, FT_UP); e++)
				if (rt_lft_get(x->r, m->links[e].peer, lid) != RT_NO_PORT) {
					rt_lft(x->r, s)[lid] = m->links[e].port;
					x->joined++;
					changed = 1;
					break;
				}
		}
	return changed;
}

/* Give every switch that can get one an entry for sn (see the DOC comment). */
static void join_subtree(struct sf *x)
{
	while (join_down(x) | join_up(x))
		;
}

/* --- the engine ------------------------------------------------------------------ */

/* pbase[] and psw[]; -1 when out of memory. */
static int sf_ports(struct sf *x)
{
	const struct fabric *f = x->m->f;
	uint32_t n = x->m->nsw;

	x->pbase = malloc(((size_t)n + 1) * sizeof(*x->pbase));
	if (!x->pbase)
		return -1;
	x->pbase[0] = 0;
	for (uint32_t s = 0; s < n; s++)
		x->pbase[s + 1] = x->pbase[s] + f->nodes[f->switches[s]].nports + 1;
	x->psw = malloc(((size_t)x->pbase[n] + 1) * sizeof(*x->psw));
	if (!x->psw)
		return -1;
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t p = 0; p < x->pbase[s + 1] - x->pbase[s]; p++)
			x->psw[x->pbase[s] + p] = p ? fab_sw_peer(f, s, p) : FAB_NONE;
	return 0;
}

static int sf_init(struct sf *x, const struct ft_model *m, struct rt_routing *r)
{
	size_t n = m->nsw;

	memset(x, 0, sizeof(*x));
	x->m = m;
	x->r = r;
	x->missing = malloc((size_t)r->lft_len + 1);
	x->lid = calloc(n + 1, sizeof(*x->lid));
	x->snreach = calloc(n + 1, 1);
	x->tosn = malloc((n + 1) * sizeof(*x->tosn));
	x->blk = malloc(n * SF_BLOCK + 1);
	x->snport = malloc(n + 1);
	x->dist = malloc((n + 1) * sizeof(*x->dist));
	x->stack = malloc((n + 1) * sizeof(*x->stack));
	x->sub = calloc(n + 1, 1);
	x->seen = calloc(n + 1, 1);
	x->detour = calloc(n + 1, 1);
	x->jchild = malloc((n + 1) * sizeof(*x->jchild));
	x->relay = calloc(n + 1, sizeof(*x->relay));
	x->has = calloc(n + 1, 1);
	x->via = malloc((n + 1) * sizeof(*x->via));
	x->list = malloc((n + 1) * sizeof(*x->list));
	if (!x->missing || !x->lid || !x->snreach || !x->tosn || !x->blk || !x->snport || !x->dist ||
	    !x->stack || !x->sub || !x->detour ||
	    !x->jchild || !x->relay || !x->has || !x->seen || !x->via || !x->list || sf_ports(x))
		return -1;
	for (uint32_t s = 0; s < m->nsw; s++) {
		unsigned lid = fab_port(m->f, m->f->switches[s], 0)->lid;

		x->lid[s] = (uint16_t)(lid < r->lft_len ? lid : 0);
		x->jchild[s] = FAB_NONE;
	}
	return 0;
}

static void sf_fini(struct sf *x)
{
	free(x->missing);
	free(x->lid);
	free(x->snreach);
	free(x->tosn);
	free(x->blk);
	free(x->snport);
	free(x->dist);
	free(x->stack);
	free(x->sub);
	free(x->seen);
	free(x->detour);
	free(x->jchild);
	free(x->relay);
	free(x->has);
	free(x->via);
	free(x->list);
	free(x->pbase);
	free(x->psw);
}

/* The switch-to-switch pass over ftree's routing @r; -1 when out of memory. */
static int sf_run(struct sf *x)
{
	choose_root(x);
	if (x->sn == FAB_NONE || !x->lid[x->sn])
		return 0;
	mark_subtree(x);
	join_subtree(x);
	return sf_pass(x);
}

static char *sf_notes(const struct sf *x, const struct ft_model *m, const struct ft_hints *h,
		      const struct ft_stats *st)
{
	const struct fabric *f = m->f;
	char *base = ft_notes(m, h, st), *s;
	char why[160];
	size_t len;

	if (!base)
		return NULL;
	if (x->sm_leaf == FAB_NONE)
		snprintf(why, sizeof(why), "the SM's leaf is unknown");
	else
		snprintf(why, sizeof(why), "the SM's leaf is '%s'", ft_sw_name(f, x->sm_leaf));
	len = strlen(base) + 600;
	s = malloc(len);
	if (s && x->sn != FAB_NONE)
		snprintf(s, len, "%s; subtree root: '%s' (%s); switches given a way to it: %u; "
			 "switch pairs routed through it: %llu (%llu through a sibling of it or a "
			 "relay), left unrouted: %llu; switch-to-CA pairs routed through it: %llu (%llu "
			 "through a sibling of it), left unrouted: %llu; longest switch-to-switch "
			 "path: %u links",
			 base, ft_sw_name(f, x->sn), why, x->joined,
			 (unsigned long long)x->sw_routed, (unsigned long long)x->sw_special,
			 (unsigned long long)x->sw_failed, (unsigned long long)x->ca_routed,
			 (unsigned long long)x->ca_special, (unsigned long long)x->ca_failed,
			 x->longest);
	else if (s)
		snprintf(s, len, "%s; no subtree root: no switch has a single way down from each "
			 "of its ancestors, switch pairs without up/down path stay unrouted", base);
	free(base);
	return s;
}

static int sftree_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		struct fab_err *err)
{
	const struct fabric *f = q->fabric;
	struct rt_routing **out = &res->routing;
	struct ft_stats st;
	struct ft_hints h;
	struct ft_model m;
	struct rt_routing *r;
	struct sf x = { 0 };
	int rc = ft_hints_init(&h, f, a, err);

	if (rc != ENG_OK)
		return rc;
	rc = ft_model_init_hints(&m, f, &h, err);
	if (rc != ENG_OK) {
		ft_hints_free(&h);
		return rc;
	}
	r = rt_new_rows(f, f->lid_top + 1);
	if (!r || sf_init(&x, &m, r) || ft_route(&m, r, &st, q->threads, x.missing) || sf_run(&x)) {
		rc = ENG_ERROR;
	} else {
		r->notes = sf_notes(&x, &m, &h, &st);
		rc = r->notes ? ENG_OK : ENG_ERROR;
	}
	sf_fini(&x);
	ft_model_fini(&m);
	ft_hints_free(&h);
	if (rc != ENG_OK) {
		fab_err_set(err, "out of memory routing %u switches", f->nswitches);
		rt_free(r);
		return rc;
	}
	*out = r;
	return ENG_OK;
}

static const struct eng_opt sftree_opts[] = {
	FT_HINT_OPTIONS,
	{ .name = NULL },
};

const struct engine eng_sftree = {
	.name = "sftree",
	.summary = "sFtree (as proposed in \"...Routing Algorithm for Fat-Trees\"): ftree plus "
		   "deadlock-free switch-to-switch routing through one subtree root, all on one VL",
	.options = sftree_opts,
	.deadlock_free = 1,
	.vls = 1,
	.route = sftree_route,
};
