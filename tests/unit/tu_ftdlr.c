/* SPDX-License-Identifier: MIT */
/*
 * DOC: test helpers of ftdlr: a base routing, degraded copies of its
 * fabric, the faults' groups, and the checks every repair and every
 * staged transition must pass with fabroute's evaluator.
 */
#include "tests/unit/testutil.h"

#include "engines/ftdlr/ftdlr.h"

void tu_base_init(struct tu_base *b, const char *spec, const struct engine *e)
{
	struct fab_err err = { { 0 } };

	memset(b, 0, sizeof(*b));
	b->f = tu_gen(spec, 1);
	b->r = tu_route(e, b->f);
	if (ft_model_init(&b->m, b->f, &err) != ENG_OK)
		fail_msg("%s: %s", spec, err.msg);
	b->links = malloc(((size_t)b->m.nlinks + 1) * sizeof(*b->links));
	b->upper = malloc(((size_t)b->f->nswitches + 1) * sizeof(*b->upper));
	assert_non_null(b->links);
	assert_non_null(b->upper);
	for (uint32_t s = 0; s < b->f->nswitches; s++) {
		for (uint32_t i = ft_first(&b->m, s, FT_DOWN); i < ft_end(&b->m, s, FT_DOWN); i++)
			b->links[b->nlinks++] = (struct tu_fl){ s, b->m.links[i].peer,
								b->m.links[i].port };
		if (b->m.level[s] >= 2)
			b->upper[b->nupper++] = s;
	}
}

void tu_base_fini(struct tu_base *b)
{
	ft_model_fini(&b->m);
	rt_free(b->r);
	fab_free(b->f);
	free(b->links);
	free(b->upper);
}

struct fabric *tu_degrade(const struct tu_base *b, const uint32_t *l, unsigned nl,
			  const uint32_t *sw, unsigned ns)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_copy(b->f, &err);
	uint8_t *drop = calloc(b->f->nnodes + 1, 1);

	assert_non_null(f);
	assert_non_null(drop);
	for (unsigned i = 0; i < nl; i++)
		fab_link_remove(f, f->switches[b->links[l[i]].c], b->links[l[i]].p);
	if (fab_finalize(f, &err))
		fail_msg("%s", err.msg);
	for (unsigned i = 0; i < ns; i++)
		drop[f->switches[sw[i]]] = 1;
	if (ns) {
		struct fabric *g = fab_subset(f, drop, &err);

		if (!g)
			fail_msg("%s", err.msg);
		fab_free(f);
		f = g;
	}
	free(drop);
	return f;
}

void tu_group_of_link(const struct tu_base *b, const struct tu_fl *l, uint8_t *g)
{
	const struct ft_model *m = &b->m;

	for (uint32_t i = ft_first(m, l->y, FT_UP); i < ft_end(m, l->y, FT_UP); i++)
		g[m->links[i].peer] = 1;
	for (uint32_t i = ft_first(m, l->c, FT_DOWN); i < ft_end(m, l->c, FT_DOWN); i++)
		g[m->links[i].peer] = 1;
}

/*
 * The 2-hop group of @x: its parents, their children, theirs, and the
 * parents of those on @x's level; and @x's children, which go up through
 * other parents.
 */
void tu_group_of_switch(const struct tu_base *b, uint32_t x, uint8_t *g)
{
	const struct ft_model *m = &b->m;
	uint32_t n = b->f->nswitches;
	uint8_t *s1 = calloc(n, 1), *s2 = calloc(n, 1), *s3 = calloc(n, 1);

	for (uint32_t i = ft_first(m, x, FT_UP); i < ft_end(m, x, FT_UP); i++)
		s1[m->links[i].peer] = 1;
	for (uint32_t i = ft_first(m, x, FT_DOWN); i < ft_end(m, x, FT_DOWN); i++)
		g[m->links[i].peer] = 1;
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t i = ft_first(m, s, FT_DOWN); s1[s] && i < ft_end(m, s, FT_DOWN); i++)
			s2[m->links[i].peer] = 1;
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t i = ft_first(m, s, FT_DOWN); s2[s] && i < ft_end(m, s, FT_DOWN); i++)
			s3[m->links[i].peer] = 1;
	for (uint32_t s = 0; s < n; s++) {
		for (uint32_t i = ft_first(m, s, FT_UP); s3[s] && i < ft_end(m, s, FT_UP); i++)
			g[m->links[i].peer] |= m->level[m->links[i].peer] == m->level[x];
		g[s] |= s1[s] | s2[s] | s3[s];
	}
	free(s1);
	free(s2);
	free(s3);
}

/* The base's index of switch @s of @f. */
static uint32_t base_sw(const struct tu_base *b, const struct fabric *f, uint32_t s)
{
	return b->f->nodes[fab_node_by_guid(b->f, f->nodes[f->switches[s]].guid)].swidx;
}

/* The base's index of endpoint @e of @f. */
static uint32_t base_ep(const struct tu_base *b, const struct fabric *f, uint32_t e)
{
	return fab_ep_by_port_guid(b->f, fab_port(f, f->eps[e].node, f->eps[e].port)->guid);
}

uint64_t tu_ca_changes(const struct tu_base *b, const struct fabric *f, const struct rt_routing *r,
		       uint32_t *sw)
{
	uint64_t n = 0;

	*sw = 0;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t bs = base_sw(b, f, s);
		uint64_t here = 0;

		for (uint32_t e = 0; e < f->neps; e++) {
			unsigned lid = fab_ep_lid(f, e), nl = 1u << fab_ep_lmc(f, e);

			for (unsigned l = lid; tu_is_ca(f, e) && l < lid + nl; l++)
				here += rt_lft_get(r, s, l) != rt_lft_get(b->r, bs, l);
		}
		n += here;
		*sw += here > 0;
	}
	return n;
}

void tu_same_sls(const struct tu_base *b, const struct fabric *f, const struct rt_routing *r,
		 const char *what)
{
	for (uint32_t s = 0; s < f->neps; s++) {
		uint32_t bs = base_ep(b, f, s);

		for (uint32_t d = 0; d < f->neps; d++) {
			uint32_t bd = base_ep(b, f, d);

			if (rt_path_sl(r, s, d) != rt_path_sl(b->r, bs, bd))
				fail_msg("%s: pair %u -> %u moved from SL %u to %u", what, s, d,
					 rt_path_sl(b->r, bs, bd), rt_path_sl(r, s, d));
		}
	}
}

/*
 * What papers/001 and the brief ask of a repair within k - 1 faults: every
 * pair of every class delivered (switches included), an acyclic dependency
 * graph on at most 2 VLs, every path SL as in the base, no detour against
 * the rule, nothing left without a way, and every changed CA-LID entry on
 * a switch marked in @group (NULL: not checked; switch LIDs turn on the
 * subtree root's ways, outside it).
 */
struct rt_routing *tu_check_repair(const struct tu_base *b, const struct fabric *f,
				   const uint8_t *group, struct tu_tally *t, const char *what)
{
	struct fab_err err = { { 0 } };
	struct rt_routing *r = NULL;
	struct ftdlr_stats st;
	struct an_report rep;
	uint64_t unr = 0;

	if (ftdlr_repair(b->f, b->r, f, FTDLR_MINIMAL, 0, &r, &st, &err) != ENG_OK)
		fail_msg("%s: %s", what, err.msg);
	tu_eval(f, r, 0, &rep);
	for (unsigned k = 0; k < AN_NCLASSES; k++)
		unr += rep.conn.unreachable[k];
	if (unr || !rep.cdg.deadlock_free || (rep.cdg.vls_used & ~3u) || st.nonmonotone ||
	    st.unrepaired)
		fail_msg("%s: %llu pairs unreachable (switch-switch %llu), deadlock-free %d, VLs "
			 "0x%x: %s", what, (unsigned long long)unr,
			 (unsigned long long)rep.conn.unreachable[AN_SW_SW], rep.cdg.deadlock_free,
			 rep.cdg.vls_used, r->notes);
	an_report_free(&rep);
	tu_same_sls(b, f, r, what);
	for (uint32_t s = 0; group && s < f->nswitches; s++) {
		uint32_t bs = base_sw(b, f, s);

		for (uint32_t e = 0; !group[bs] && e < f->neps; e++) {
			unsigned lid = fab_ep_lid(f, e);

			if (tu_is_ca(f, e) && rt_lft_get(r, s, lid) != rt_lft_get(b->r, bs, lid))
				fail_msg("%s: switch %s outside the faults' groups changed LID %u: %s",
					 what, fab_desc(f, f->switches[s]), lid, r->notes);
		}
	}
	t->sets++;
	t->fallback += st.sw_fallback > 0;
	t->sl1 += st.switch_sl > 0;
	if (!st.sw_fallback) {
		uint32_t casw;
		uint64_t ca = tu_ca_changes(b, f, r, &casw);

		t->entries = st.entries > t->entries ? st.entries : t->entries;
		t->ca_entries = ca > t->ca_entries ? ca : t->ca_entries;
		t->switches = casw > t->switches ? casw : t->switches;
		t->all_switches = st.switches > t->all_switches ? st.switches : t->all_switches;
		t->blocks = st.max_blocks > t->blocks ? st.max_blocks : t->blocks;
	}
	return r;
}

/* Print the cycle of @t: switch, port, VL, and the switch the channel leads to. */
static void print_cycle(const struct fabric *f, const struct ftdlr_trans *t)
{
	for (uint32_t i = 0; i < t->cycle_len; i++) {
		uint32_t slot = t->cycle[i] / 16, n = 0;

		while (n + 1 < f->nnodes && f->nodes[n + 1].port0 <= slot)
			n++;
		print_message("#   %s:%u VL %u -> %s\n", fab_desc(f, n), slot - f->nodes[n].port0,
			      t->cycle[i] % 16, fab_desc(f, f->ports[slot].peer));
	}
}

/*
 * The plan of the move (what the fast repair writes) against its steps:
 * every block the plan gives, at every step, is the step's; from the
 * second step on, the blocks the plan writes (those that differ from the
 * step before) are exactly the blocks where the steps differ.
 */
static void check_plan(const struct fabric *fa, const struct rt_routing *a, const struct fabric *f,
		       const struct rt_routing *b, struct rt_routing **steps, unsigned n,
		       const char *what)
{
	struct fab_err err = { { 0 } };
	struct ftdlr_plan p;
	size_t written = 0, differ = 0;

	if (ftdlr_plan(f, fa, a, b, &p, &err))
		fail_msg("%s: %s", what, err.msg);
	assert_int_equal(p.nsteps, n);
	for (unsigned k = 0; k < n; k++) {
		for (size_t i = 0, next; i < p.n; i = next) {
			uint8_t was[FTDLR_BLOCK], now[FTDLR_BLOCK], lft[FTDLR_BLOCK];
			uint32_t lo = p.ent[i].lid / FTDLR_BLOCK * FTDLR_BLOCK;

			ftdlr_plan_block(&p, a, b, i, (int)k - 1, was);
			next = ftdlr_plan_block(&p, a, b, i, (int)k, now);
			for (uint32_t j = 0; j < FTDLR_BLOCK; j++)
				lft[j] = rt_lft_get(steps[k], p.ent[i].sw, lo + j);
			assert_memory_equal(now, lft, FTDLR_BLOCK);
			written += k && memcmp(was, now, FTDLR_BLOCK);
		}
		for (uint32_t s = 0; k && s < f->nswitches; s++)
			for (uint32_t lo = 0; lo < b->lft_len; lo += FTDLR_BLOCK) {
				size_t len = b->lft_len - lo < FTDLR_BLOCK ? b->lft_len - lo : FTDLR_BLOCK;

				differ += !!memcmp(rt_lft(steps[k - 1], s) + lo, rt_lft(steps[k], s) + lo,
						   len);
			}
	}
	assert_int_equal(written, differ);
	ftdlr_plan_free(&p);
}

unsigned tu_check_steps(const struct fabric *fa, const struct rt_routing *a,
			const struct fabric *f, const struct rt_routing *b, const char *what)
{
	struct fab_err err = { { 0 } };
	struct rt_routing **steps;
	unsigned n;

	if (ftdlr_stages(f, fa, a, b, &steps, &n, &err))
		fail_msg("%s: %s", what, err.msg);
	for (unsigned k = 0; k < n; k++) {
		const struct fabric *from = k ? f : fa;
		const struct rt_routing *prev = k ? steps[k - 1] : a;
		struct ftdlr_trans t;

		if (ftdlr_transition(f, from, prev, steps[k], &t, &err))
			fail_msg("%s: %s", what, err.msg);
		if (!t.acyclic) {
			struct ftdlr_trans t0, t1;

			print_cycle(f, &t);
			ftdlr_transition_sls(f, from, prev, steps[k], 1, 0, &t0, &err);
			ftdlr_transition_sls(f, from, prev, steps[k], 2, 0, &t1, &err);
			fail_msg("%s: step %u of %u: the dependency graph of the step and the one "
				 "before is cyclic (SL 0 paths alone: %s, SL 1: %s)", what, k + 1, n,
				 t0.acyclic ? "acyclic" : "cyclic", t1.acyclic ? "acyclic" : "cyclic");
		}
	}
	assert_true(rt_equal_lfts(steps[n - 1], b));
	check_plan(fa, a, f, b, steps, n, what);
	ftdlr_stages_free(steps, n);
	return n;
}

/* @a and @b are the same repair: tables, path SLs, notes and figures. */
void tu_same_repair(const struct rt_routing *a, const struct ftdlr_stats *sa,
		    const struct rt_routing *b, const struct ftdlr_stats *sb)
{
	assert_true(rt_equal_lfts(a, b));
	assert_int_equal(!a->path_sl, !b->path_sl);
	if (a->path_sl)
		assert_memory_equal(a->path_sl, b->path_sl, (size_t)a->neps * a->neps);
	assert_string_equal(a->notes, b->notes);
	assert_int_equal(sa->lids, sb->lids);
	assert_int_equal(sa->entries, sb->entries);
	assert_int_equal(sa->switches, sb->switches);
	assert_int_equal(sa->blocks, sb->blocks);
	assert_int_equal(sa->max_blocks, sb->max_blocks);
	assert_int_equal(sa->nonmonotone, sb->nonmonotone);
	assert_int_equal(sa->conflicts, sb->conflicts);
	assert_int_equal(sa->sw_fallback, sb->sw_fallback);
	assert_int_equal(sa->unrepaired, sb->unrepaired);
	assert_int_equal(sa->subtree, sb->subtree);
}

void tu_changed_exact(const struct rt_routing *br, const struct rt_routing *r,
		      const uint32_t *changed, size_t n)
{
	size_t i = 0;

	if (br->nswitches != r->nswitches)
		return;	/* a switch is gone: the indexes differ */
	for (uint32_t s = 0; s < r->nswitches; s++) {
		int differs = memcmp(rt_lft(br, s), rt_lft(r, s), r->lft_len) != 0;

		assert_int_equal(i < n && changed[i] == s, differs);	/* in order, exactly those */
		i += i < n && changed[i] == s;
	}
	assert_int_equal(i, n);
}

void tu_memo_same(const struct fabric *bf, const struct rt_routing *br, const struct fabric *f,
		  struct eng_memo *memo, uint64_t *quick)
{
	struct fab_err e1 = { { 0 } }, e2 = { { 0 } };
	struct ftdlr_stats s1, s2;
	struct rt_routing *r1 = NULL, *r2 = NULL;
	int rc = ftdlr_repair(bf, br, f, FTDLR_MINIMAL, 1, &r1, &s1, &e1);
	uint32_t *changed = NULL;
	size_t nchanged = 0;

	assert_int_equal(ftdlr_repair_memo(bf, br, f, FTDLR_MINIMAL, 1, memo, &r2, &s2, &changed,
					   &nchanged, &e2), rc);
	assert_string_equal(e1.msg, e2.msg);
	if (rc == ENG_OK) {
		tu_same_repair(r1, &s1, r2, &s2);
		tu_changed_exact(br, r2, changed, nchanged);
	}
	free(changed);
	if (rc == ENG_OK && quick)
		*quick += s2.quick;
	assert_ptr_equal(memo->base, br);
	assert_non_null(memo->data);
	rt_free(r1);
	rt_free(r2);
}
