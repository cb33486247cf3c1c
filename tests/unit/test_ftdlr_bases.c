/* SPDX-License-Identifier: MIT */
/*
 * ftdlr repairing every fat-tree base fabrouted publishes: sftree (switch
 * paths turned through its subtree root on the CAs' VL), ftree (up*down*
 * only, switch pairs without such a path unrouted) and ftdlr's own (sftree,
 * switch destinations on SL 1). Within k - 1 link faults every repair is
 * made (ENG_OK), connected in every class (for ftree: every pair the base
 * delivered that still has an up*down* path), deadlock-free by fabroute's
 * evaluator on as many VLs as the base uses (one for sftree and ftree), no
 * path SL changed, and local: CA-LID entries of ftree and ftdlr bases change
 * only in the dead links' groups (sftree's turn at its subtree root), and
 * the entries changed are counted and compared with what routing the
 * degraded fabric afresh changes.
 *
 * 4-ary 3-tree: every set of 1 and 2 link faults, 1000 sampled triples (a
 * sample of both under the sanitizers, tu_stride())
 * (sftree and ftree bases; test_ftdlr_faults.c covers ftdlr's own); with
 * LMC 1, all three bases: every single fault, one pair in 16, 200 triples.
 * 648-port tree and the 5488-CA m-port 3-tree: sampled sets of 1 to k - 1
 * link faults, all three bases.
 */
#include "tests/unit/testutil.h"

#include "engines/ftdlr/ftdlr.h"

/**
 * struct rtally - what a run of repairs changed
 * @sets: fault sets repaired
 * @entries, @switches, @blocks: the most of each in one set (blocks: on one switch)
 * @sum: entries over all sets
 * @fresh: entries a fresh route of the degraded fabric by the base engine
 *         changed, over the sets where it was compared
 * @compared: those sets
 * @subtree: sets repaired (partly) through the base's subtree root
 */
struct rtally {
	unsigned sets, compared, subtree;
	uint64_t entries, sum, fresh, sum_compared;
	uint32_t switches, blocks;
};

/* What a test asks of a base. */
struct want {
	const struct engine *e;	/* the base's engine */
	int all_lids;		/* LMC > 0: check every LID of a range */
	int compare;		/* route the degraded fabric afresh and compare */
};

/* The switch of @f with base switch @bs's GUID (FAB_NONE: gone). */
static uint32_t cur_sw(const struct tu_base *b, const struct fabric *f, uint32_t bs)
{
	uint32_t n = fab_node_by_guid(f, b->f->nodes[b->f->switches[bs]].guid);

	return n == FAB_NONE ? FAB_NONE : f->nodes[n].swidx;
}

/* Following @r's LFTs from switch @s reaches switch @t's port 0 (by LID @lid). */
static int walks_to(const struct fabric *f, const struct rt_routing *r, uint32_t s, uint32_t t,
		    unsigned lid)
{
	for (uint32_t h = 0; h <= f->nswitches; h++) {
		uint8_t p = rt_lft_get(r, s, lid);
		const struct fab_port *fp;

		if (s == t)
			return p == 0;
		if (p == RT_NO_PORT || p == 0 || p > f->nodes[f->switches[s]].nports)
			return 0;
		fp = fab_port(f, f->switches[s], p);
		if (fp->peer == FAB_NONE || f->nodes[fp->peer].type != FAB_SWITCH)
			return 0;
		s = f->nodes[fp->peer].swidx;
	}
	return 0;
}

/* Model link @e of base switch @s is still cabled in @f. */
static int live(const struct tu_base *b, const struct fabric *f, uint32_t s, uint32_t e)
{
	uint32_t cs = cur_sw(b, f, s), cp = cur_sw(b, f, b->m.links[e].peer);
	const struct fab_port *p;

	if (cs == FAB_NONE || cp == FAB_NONE)
		return 0;
	p = fab_port(f, f->switches[cs], b->m.links[e].port);
	return p->peer == f->switches[cp] && p->peer_port == b->m.links[e].peer_port;
}

/* @ud[s] := base switch s has a live up*down* path to base switch @d in @f. */
static void updown_to(const struct tu_base *b, const struct fabric *f, uint32_t d, uint8_t *ud)
{
	uint32_t n = b->f->nswitches, *q = malloc((n + 1) * sizeof(*q)), head = 0, tail = 0;

	memset(ud, 0, n);
	ud[d] = 1;
	q[tail++] = d;
	while (head < tail) {	/* a live down path to d */
		uint32_t s = q[head++];

		for (uint32_t e = ft_first(&b->m, s, FT_UP); e < ft_end(&b->m, s, FT_UP); e++)
			if (!ud[b->m.links[e].peer] && live(b, f, s, e)) {
				ud[b->m.links[e].peer] = 1;
				q[tail++] = b->m.links[e].peer;
			}
	}
	for (head = 0; head < tail; head++) {	/* then a live up path to one of those */
		uint32_t s = q[head];

		for (uint32_t e = ft_first(&b->m, s, FT_DOWN); e < ft_end(&b->m, s, FT_DOWN); e++)
			if (!ud[b->m.links[e].peer] && live(b, f, s, e)) {
				ud[b->m.links[e].peer] = 1;
				q[tail++] = b->m.links[e].peer;
			}
	}
	free(q);
}

/*
 * ftree routes only the pairs towards switches that have an up*down* path:
 * every such pair it delivered on the base that keeps one in @f is
 * delivered by @r (a CA's path is its leaf's).
 */
static void updown_pairs_kept(const struct tu_base *b, const struct fabric *f,
			      const struct rt_routing *r, const char *what)
{
	uint32_t n = b->f->nswitches;
	uint8_t *ud = malloc(n + 1);

	for (uint32_t d = 0; d < n; d++) {
		unsigned lid = fab_port(b->f, b->f->switches[d], 0)->lid;
		uint32_t cd = cur_sw(b, f, d);

		if (cd == FAB_NONE)
			continue;
		updown_to(b, f, d, ud);
		for (uint32_t s = 0; s < n; s++) {
			uint32_t cs = cur_sw(b, f, s);

			if (cs != FAB_NONE && ud[s] && walks_to(b->f, b->r, s, d, lid) &&
			    !walks_to(f, r, cs, cd, lid))
				fail_msg("%s: %s -> %s (LID %u) has an up*down* path and was routed "
					 "by the base, not by the repair", what, fab_desc(b->f,
					 b->f->switches[s]), fab_desc(b->f, b->f->switches[d]), lid);
		}
	}
	free(ud);
}

/* LFT entries of the base engine's fresh routing of @f that differ from the base. */
static uint64_t fresh_changes(const struct tu_base *b, const struct fabric *f,
			      const struct engine *e)
{
	struct rt_routing *r = tu_route(e, f);
	struct rt_diff dd;

	rt_diff(b->f, b->r, f, r, &dd);
	rt_free(r);
	return dd.entries;
}

/* CA-LID entries of @r differ from the base only on switches marked in @g (base indexes). */
static void ca_in_groups(const struct tu_base *b, const struct fabric *f,
			 const struct rt_routing *r, const uint8_t *g, const char *what)
{
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t bs = b->f->nodes[fab_node_by_guid(b->f, f->nodes[f->switches[s]].guid)].swidx;

		for (uint32_t e = 0; !g[bs] && e < f->neps; e++) {
			unsigned lid = fab_ep_lid(f, e), n = 1u << fab_ep_lmc(f, e);

			for (unsigned l = lid; tu_is_ca(f, e) && l < lid + n; l++)
				if (rt_lft_get(r, s, l) != rt_lft_get(b->r, bs, l))
					fail_msg("%s: %s, outside the faults' groups, changed LID %u",
						 what, fab_desc(f, f->switches[s]), l);
		}
	}
}

/*
 * Repair the base for @f and check it (see the DOC comment); counted in @t.
 * The CA LIDs of an ftree or ftdlr base change only on the switches marked
 * in @g, the dead links' groups.
 */
static void check_base(const struct tu_base *b, const struct fabric *f, const uint8_t *g,
		       const struct want *w, struct rtally *t, const char *what)
{
	struct fab_err err = { { 0 } };
	struct an_opts o = { .all_lids = w->all_lids };
	struct rt_routing *r = NULL;
	struct ftdlr_stats st;
	struct an_report rep;
	int ftree = w->e == &eng_ftree, own = w->e == &eng_ftdlr;

	if (ftdlr_repair(b->f, b->r, f, FTDLR_MINIMAL, 0, &r, &st, &err) != ENG_OK)
		fail_msg("%s: %s", what, err.msg);
	if (an_evaluate(f, r, &o, &rep, &err))
		fail_msg("%s: %s", what, err.msg);
	if (!rep.cdg.deadlock_free || rep.cdg.vls_used != (own ? 3u : 1u) || st.unrepaired ||
	    rep.conn.unreachable[AN_CA_CA] || rep.conn.unreachable[AN_SW_CA] ||
	    (!ftree && (rep.conn.unreachable[AN_CA_SW] || rep.conn.unreachable[AN_SW_SW])))
		fail_msg("%s: deadlock-free %d, VLs 0x%x, unreachable CA-CA %llu CA-SW %llu SW-CA "
			 "%llu SW-SW %llu: %s", what, rep.cdg.deadlock_free, rep.cdg.vls_used,
			 (unsigned long long)rep.conn.unreachable[AN_CA_CA],
			 (unsigned long long)rep.conn.unreachable[AN_CA_SW],
			 (unsigned long long)rep.conn.unreachable[AN_SW_CA],
			 (unsigned long long)rep.conn.unreachable[AN_SW_SW], r->notes);
	an_report_free(&rep);
	if (ftree)
		updown_pairs_kept(b, f, r, what);
	if (w->e != &eng_sftree)
		ca_in_groups(b, f, r, g, what);
	tu_same_sls(b, f, r, what);
	t->sets++;
	t->subtree += st.subtree > 0;
	t->sum += st.entries;
	t->entries = st.entries > t->entries ? st.entries : t->entries;
	t->switches = st.switches > t->switches ? st.switches : t->switches;
	t->blocks = st.max_blocks > t->blocks ? st.max_blocks : t->blocks;
	if (w->compare) {
		uint64_t fresh = fresh_changes(b, f, w->e);

		t->compared++;
		t->fresh += fresh;
		t->sum_compared += st.entries;
	}
	rt_free(r);
}

static void one(const struct tu_base *b, const uint32_t *l, unsigned n, const struct want *w,
		struct rtally *t)
{
	struct fabric *f = tu_degrade(b, l, n, NULL, 0);
	uint8_t *g = calloc(b->f->nswitches + 1, 1);
	char what[160];
	int k = 0;

	k += snprintf(what, sizeof(what), "%s base, links", w->e->name);
	for (unsigned i = 0; i < n; i++) {
		tu_group_of_link(b, &b->links[l[i]], g);
		if (k < (int)sizeof(what) - 24)
			k += snprintf(what + k, sizeof(what) - (size_t)k, " %s:%u",
				      fab_desc(b->f, b->f->switches[b->links[l[i]].c]), b->links[l[i]].p);
	}
	check_base(b, f, g, w, t, what);
	free(g);
	fab_free(f);
}

static void tally_add(struct rtally *a, const struct rtally *b)
{
	a->sets += b->sets;
	a->compared += b->compared;
	a->subtree += b->subtree;
	a->sum += b->sum;
	a->fresh += b->fresh;
	a->sum_compared += b->sum_compared;
	a->entries = b->entries > a->entries ? b->entries : a->entries;
	a->switches = b->switches > a->switches ? b->switches : a->switches;
	a->blocks = b->blocks > a->blocks ? b->blocks : a->blocks;
}

static void report(const char *what, const struct rtally *t)
{
	print_message("# %s: %u sets (%u through the subtree root); entries changed: at most %llu "
		      "(mean %.1f) on at most %u switches, %u blocks on one switch", what, t->sets,
		      t->subtree, (unsigned long long)t->entries, t->sets ? (double)t->sum / t->sets : 0,
		      t->switches, t->blocks);
	if (t->compared)
		print_message("; routing afresh: mean %.1f entries where the repair changed %.1f",
			      (double)t->fresh / t->compared, (double)t->sum_compared / t->compared);
	print_message("\n");
}

/* @n distinct links of @b drawn with @rng. */
static void draw(struct fab_rng *rng, const struct tu_base *b, uint32_t *l, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned k;

		do {
			l[i] = (uint32_t)fab_rng_below(rng, b->nlinks);
			for (k = 0; k < i && l[k] != l[i]; k++)
				;
		} while (k < i);
	}
}

/* Every single fault (compared with routing afresh), every pair, @triples sampled triples. */
static void kary43(const char *spec, const struct want *w, unsigned pairs_every,
		   unsigned triples, struct rtally t[3])
{
	struct want nocmp = *w;
	struct fab_rng rng;
	struct tu_base b;
	unsigned k = 0;

	nocmp.compare = 0;
	tu_base_init(&b, spec, w->e);
	assert_int_equal(b.nlinks, 128);
	for (uint32_t i = 0; i < b.nlinks; i++)
		one(&b, &i, 1, w, &t[0]);
	for (uint32_t i = 0; i < b.nlinks; i++)
		for (uint32_t j = i + 1; j < b.nlinks; j++) {
			uint32_t l[2] = { i, j };

			if (k++ % pairs_every == 0)
				one(&b, l, 2, &nocmp, &t[1]);
		}
	fab_rng_seed(&rng, 21);
	for (unsigned s = 0; s < triples; s++) {
		uint32_t l[3];

		draw(&rng, &b, l, 3);
		one(&b, l, 3, &nocmp, &t[2]);
	}
	tu_base_fini(&b);
}

static void test_kary43(const struct engine *e)
{
	struct want w = { .e = e, .compare = 1 };
	struct rtally t[3] = { { 0 } };
	char what[96];

	kary43("kary-ntree k=4 n=3", &w, tu_stride(), 1000 / tu_stride(), t);
	snprintf(what, sizeof(what), "4-ary 3-tree, %s base, single link faults", e->name);
	report(what, &t[0]);
	snprintf(what, sizeof(what), "4-ary 3-tree, %s base, link fault pairs (1 in %u)", e->name,
		 tu_stride());
	report(what, &t[1]);
	snprintf(what, sizeof(what), "4-ary 3-tree, %s base, sampled triples", e->name);
	report(what, &t[2]);
	assert_int_equal(t[1].sets, tu_taken(8128));
	assert_true(t[0].sum < t[0].fresh);	/* local: fewer entries than routing afresh */
}

static void test_kary43_sftree(void **state)
{
	(void)state;
	test_kary43(&eng_sftree);
}

static void test_kary43_ftree(void **state)
{
	(void)state;
	test_kary43(&eng_ftree);
}

/* LMC 1: each LID of a CA repaired on its own, every LID of a range checked. */
static void test_kary43_lmc(void **state)
{
	const struct engine *engines[] = { &eng_sftree, &eng_ftree, &eng_ftdlr };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct want w = { .e = engines[i], .all_lids = 1 };
		struct rtally t[3] = { { 0 } };
		char what[96];

		kary43("kary-ntree k=4 n=3 lmc=1", &w, 16, 200, t);
		snprintf(what, sizeof(what), "4-ary 3-tree LMC 1, %s base, 1, 2 (1 in 16), 3 (200) faults",
			 engines[i]->name);
		tally_add(&t[0], &t[1]);
		tally_add(&t[0], &t[2]);
		report(what, &t[0]);
		assert_int_equal(t[0].sets, 128 + 508 + 200);
	}
}

/* @sets sampled sets of 1 .. k - 1 link faults of @spec, with each base. */
static void sampled(const char *spec, unsigned kmax, unsigned sets, uint64_t seed)
{
	const struct engine *engines[] = { &eng_sftree, &eng_ftree, &eng_ftdlr };

	for (size_t i = 0; i < 3; i++) {
		struct want w = { .e = engines[i] };
		struct rtally t = { 0 };
		struct fab_rng rng;
		struct tu_base b;
		char what[128];

		tu_base_init(&b, spec, engines[i]);
		fab_rng_seed(&rng, seed);
		for (unsigned s = 0; s < sets; s++) {
			uint32_t l[64];
			unsigned n = s == 0 ? 1 : s == 1 ? kmax : 1 + (unsigned)fab_rng_below(&rng, kmax);

			draw(&rng, &b, l, n);
			one(&b, l, n, &w, &t);
		}
		snprintf(what, sizeof(what), "%s, %s base, sets of 1 to %u link faults", spec,
			 engines[i]->name, kmax);
		report(what, &t);
		assert_int_equal(t.sets, sets);
		tu_base_fini(&b);
	}
}

static void test_ft648(void **state)
{
	(void)state;
	sampled("ft648", 17, 40, 648);
}

static void test_mport28(void **state)
{
	(void)state;
	sampled("mport-ntree m=28 n=3", 13, 2, 5488);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kary43_sftree),
		cmocka_unit_test(test_kary43_ftree),
		cmocka_unit_test(test_kary43_lmc),
		cmocka_unit_test(test_ft648),
		cmocka_unit_test(test_mport28),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
