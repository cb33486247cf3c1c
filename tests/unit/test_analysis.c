/* SPDX-License-Identifier: MIT */
/*
 * The evaluator on hand-built fabrics whose answers are known: credit loops
 * on a ring, black holes, forwarding loops, wrong ports, dead links, an
 * unreachable root pair in a fat tree, VL layers that are acyclic only one
 * VL at a time, a cycle running through two VLs, LMC, and link loads; the
 * load's summary against the plain computation on generated fabrics; a
 * report made without its state (an_opts.state_later) and the state made
 * afterwards (an_state_make()).
 */
#include "analysis/analysis.h"
#include "gen/gen.h"
#include "tests/unit/testutil.h"

/*
 * A ring of @n switches, each with @h CAs on ports 3..; switch i port 1
 * goes to switch i+1 (its port 2). LIDs by the default assignment:
 * switch i has LID i + 1.
 */
static struct fabric *ring(unsigned n, unsigned h)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fab_new();

	for (unsigned i = 0; i < n; i++) {
		struct fab_node_info in = { .type = FAB_SWITCH, .guid = 0x100 + i, .nports = 8 };
		char d[16];

		snprintf(d, sizeof(d), "sw%u", i);
		in.desc = d;
		assert_int_equal(fab_node_add(f, &in, &err), i);
	}
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(fab_link_add(f, i, 1, (i + 1) % n, 2, &err), 0);
	for (unsigned i = 0; i < n * h; i++) {
		struct fab_node_info in = { .type = FAB_CA, .guid = 0x1000 + 16 * i, .nports = 1 };
		uint32_t c = fab_node_add(f, &in, &err);

		assert_int_equal(fab_link_add(f, i / h, 3 + i % h, c, 1, &err), 0);
	}
	assert_int_equal(fab_finalize(f, &err), 0);
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err), 0);
	return f;
}

/* Which switch an endpoint hangs off (or is). */
static unsigned home(const struct fabric *f, uint32_t ep)
{
	uint32_t node = f->eps[ep].node;

	if (f->nodes[node].type == FAB_SWITCH)
		return f->nodes[node].swidx;
	return f->nodes[fab_port(f, node, f->eps[ep].port)->peer].swidx;
}

/* Shortest-path routing on the ring, ties clockwise. */
static struct rt_routing *ring_route(const struct fabric *f, unsigned n)
{
	struct rt_routing *r = rt_new(f);

	for (uint32_t e = 0; e < f->neps; e++) {
		unsigned d = home(f, e), lid = fab_ep_lid(f, e);

		for (unsigned s = 0; s < n; s++) {
			unsigned cw = (d + n - s) % n;
			uint8_t port;

			if (s == d)
				port = f->nodes[f->eps[e].node].type == FAB_SWITCH ? 0 :
				       fab_port(f, f->eps[e].node, f->eps[e].port)->peer_port;
			else
				port = cw <= n - cw ? 1 : 2;
			rt_lft(r, s)[lid] = port;
		}
	}
	return r;
}

static void eval(const struct fabric *f, const struct rt_routing *r, struct an_opts o,
		 struct an_report *rep)
{
	tu_eval_opts(f, r, &o, rep);
}

static uint64_t total_unreachable(const struct an_report *rep)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < AN_NCLASSES; k++)
		n += rep->conn.unreachable[k];
	return n;
}

static void test_ring_credit_loop(void **state)
{
	struct fabric *f = ring(5, 2);
	struct rt_routing *r = ring_route(f, 5);
	struct an_report rep;

	eval(f, r, (struct an_opts){ .load = 1 }, &rep);
	assert_true(an_connected(&rep));
	/* 15 endpoints: 10 CAs, 5 switches */
	assert_int_equal(rep.conn.pairs[AN_CA_CA], 90);
	assert_int_equal(rep.conn.pairs[AN_CA_SW], 50);
	assert_int_equal(rep.conn.pairs[AN_SW_CA], 50);
	assert_int_equal(rep.conn.pairs[AN_SW_SW], 20);
	assert_int_equal(rep.conn.max_hops, 3);
	assert_false(rep.cdg.deadlock_free);
	assert_int_equal(rep.cdg.vls_used, 1);
	assert_false(rep.cdg.vl[0].acyclic);
	/* the cycle is the 5 clockwise channels, each switch's port 1 */
	assert_int_equal(rep.cdg.vl[0].cycle_len, 5);
	for (unsigned i = 0; i < 5; i++) {
		const struct an_channel *a = &rep.cdg.vl[0].cycle[i];
		const struct an_channel *b = &rep.cdg.vl[0].cycle[(i + 1) % 5];

		assert_int_equal(a->port, 1);
		assert_int_equal(a->vl, 0);
		assert_int_equal(b->node, (a->node + 1) % 5);
	}
	/* 10 directed ring links */
	assert_int_equal(rep.load.sw_channels, 10);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

/* Destinations spread over threads give the same report, byte for byte, as one thread. */
static void test_parallel_same_report(void **state)
{
	struct fabric *f = ring(5, 2);
	struct rt_routing *r = ring_route(f, 5);
	struct an_report a, b;

	eval(f, r, (struct an_opts){ .load = 1 }, &a);
	eval(f, r, (struct an_opts){ .load = 1, .threads = 3 }, &b);
	assert_memory_equal(&a.conn, &b.conn, sizeof(a.conn));
	assert_memory_equal(&a.load, &b.load, sizeof(a.load));
	assert_int_equal(a.cdg.deadlock_free, b.cdg.deadlock_free);
	assert_int_equal(a.cdg.vls_used, b.cdg.vls_used);
	assert_int_equal(a.cdg.cross_deps, b.cdg.cross_deps);
	for (unsigned v = 0; v < AN_VLS; v++) {
		assert_int_equal(a.cdg.vl[v].deps, b.cdg.vl[v].deps);
		assert_int_equal(a.cdg.vl[v].cycle_len, b.cdg.vl[v].cycle_len);
		if (a.cdg.vl[v].cycle_len)
			assert_memory_equal(a.cdg.vl[v].cycle, b.cdg.vl[v].cycle,
					    a.cdg.vl[v].cycle_len * sizeof(*a.cdg.vl[v].cycle));
	}
	an_report_free(&a);
	an_report_free(&b);
	rt_free(r);
	fab_free(f);
}

/* LASH-like layers: each direction's two-hop paths starting at the last switch on VL 1. */
static void test_acyclic_only_per_vl(void **state)
{
	struct fabric *f = ring(5, 1);
	struct rt_routing *r = ring_route(f, 5);
	struct an_report rep;

	assert_int_equal(rt_pairs_alloc(r), 0);
	for (uint32_t s = 0; s < f->neps; s++)
		for (uint32_t d = 0; d < f->neps; d++) {
			unsigned a = home(f, s), b = home(f, d), cw = (b + 5 - a) % 5;

			if (cw == 2 && a == 4)
				r->path_sl[(size_t)s * r->neps + d] = 1;
			if (cw == 3 && a == 0)
				r->path_sl[(size_t)s * r->neps + d] = 1;
		}
	eval(f, r, (struct an_opts){ 0 }, &rep);
	assert_true(an_connected(&rep));
	assert_int_equal(rep.cdg.vls_used, 3);
	assert_true(rep.cdg.vl[0].acyclic);
	assert_true(rep.cdg.vl[1].acyclic);
	assert_false(rep.cdg.cross_cycle);
	assert_int_equal(rep.cdg.cross_deps, 0);
	assert_true(rep.cdg.deadlock_free);
	assert_true(rep.cdg.vl[1].paths > 0);
	an_report_free(&rep);

	/* the same paths on one VL close the cycle */
	memset(r->path_sl, 0, (size_t)r->neps * r->neps);
	eval(f, r, (struct an_opts){ 0 }, &rep);
	assert_false(rep.cdg.deadlock_free);
	assert_false(rep.cdg.vl[0].acyclic);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

/* Only clockwise routing on a 4-ring, VLs alternating by switch parity: a cycle through 2 VLs. */
static void test_cross_vl_cycle(void **state)
{
	struct fabric *f = ring(4, 1);
	struct rt_routing *r = rt_new(f);
	struct an_report rep;

	for (uint32_t e = 0; e < f->neps; e++) {
		unsigned d = home(f, e), lid = fab_ep_lid(f, e);

		for (unsigned s = 0; s < 4; s++)
			rt_lft(r, s)[lid] = s == d ? (f->nodes[f->eps[e].node].type == FAB_SWITCH ? 0 : 3) : 1;
	}
	for (unsigned s = 0; s < 4; s++)
		for (unsigned in = 0; in <= 8; in++)
			assert_int_equal(rt_sl2vl_set(r, f, s, in, 1, 0, s % 2), 0);
	eval(f, r, (struct an_opts){ 0 }, &rep);
	assert_true(rep.cdg.vl[0].acyclic);
	assert_true(rep.cdg.vl[1].acyclic);
	assert_true(rep.cdg.cross_deps > 0);
	assert_true(rep.cdg.cross_cycle);
	assert_false(rep.cdg.deadlock_free);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

static void test_black_hole_and_loop(void **state)
{
	struct fabric *f = ring(5, 1);
	struct rt_routing *r = ring_route(f, 5);
	uint32_t h0 = fab_ep_of_node(f, 5, 1), h2 = fab_ep_of_node(f, 7, 1);
	unsigned lid2 = fab_ep_lid(f, h2);
	struct an_report rep;
	struct an_path p;

	/* switch 1 drops traffic for host 2: a black hole for every source beyond it */
	rt_lft(r, 1)[lid2] = RT_NO_PORT;
	eval(f, r, (struct an_opts){ 0 }, &rep);
	assert_false(an_connected(&rep));
	/* sources entering at switches 0 and 1 (2 CAs, 2 switches): 4 pairs lost */
	assert_int_equal(total_unreachable(&rep), 4);
	assert_int_equal(rep.conn.by_fail[AN_CA_CA][AN_NO_ENTRY], 2);
	assert_int_equal(rep.conn.by_fail[AN_SW_CA][AN_NO_ENTRY], 2);
	assert_int_equal(rep.conn.nex[AN_CA_CA], 2);
	assert_int_equal(rep.conn.ex[AN_CA_CA][0].dlid, lid2);
	an_report_free(&rep);
	assert_int_equal(an_trace(f, r, h0, lid2, 0, &p), 0);
	assert_int_equal(p.fail, AN_NO_ENTRY);
	assert_int_equal(p.nhops, 2);
	an_path_free(&p);

	/* switches 1 and 2 send host 2's LID to each other: a loop */
	rt_lft(r, 1)[lid2] = 1;
	rt_lft(r, 2)[lid2] = 2;
	eval(f, r, (struct an_opts){ 0 }, &rep);
	assert_int_equal(rep.conn.by_fail[AN_CA_CA][AN_LOOP], 4);
	assert_false(rep.cdg.deadlock_free);	/* the loop is a cycle of the CDG too */
	an_report_free(&rep);
	assert_int_equal(an_trace(f, r, h0, lid2, 0, &p), 0);
	assert_int_equal(p.fail, AN_LOOP);
	an_path_free(&p);
	rt_free(r);
	fab_free(f);
}

static void test_wrong_port_and_link_down(void **state)
{
	struct fabric *f = ring(3, 2);
	struct rt_routing *r = ring_route(f, 3);
	uint32_t a = fab_ep_of_node(f, 3, 1), b = fab_ep_of_node(f, 4, 1);
	unsigned lid_a = fab_ep_lid(f, a);
	struct an_report rep;
	struct an_path p;

	/* host a's LID delivered to host b's port on the same switch */
	rt_lft(r, 0)[lid_a] = fab_port(f, 4, 1)->peer_port;
	/* switch 1 points at an unlinked port for switch 2's LID */
	rt_lft(r, 1)[fab_ep_lid(f, 2)] = 7;
	eval(f, r, (struct an_opts){ 0 }, &rep);
	assert_int_equal(rep.conn.by_fail[AN_CA_CA][AN_WRONG_PORT], 5);
	assert_int_equal(rep.conn.by_fail[AN_CA_SW][AN_LINK_DOWN], 2);
	an_report_free(&rep);
	assert_int_equal(an_trace(f, r, b, lid_a, 0, &p), 0);
	assert_int_equal(p.fail, AN_WRONG_PORT);
	assert_int_equal(p.dst_node, 4);
	an_path_free(&p);
	rt_free(r);
	fab_free(f);
}

static void test_trace_hops(void **state)
{
	struct fabric *f = ring(5, 1);
	struct rt_routing *r = ring_route(f, 5);
	uint32_t h0 = fab_ep_of_node(f, 5, 1), h2 = fab_ep_of_node(f, 7, 1);
	struct an_path p;

	assert_int_equal(rt_sl2vl_set(r, f, 1, 2, 1, 3, 2), 0);
	assert_int_equal(an_trace(f, r, h0, fab_ep_lid(f, h2), 3, &p), 0);
	assert_int_equal(p.fail, AN_DELIVERED);
	assert_int_equal(p.nhops, 3);
	assert_int_equal(p.hops[0].node, 0);
	assert_int_equal(p.hops[0].in_port, 3);
	assert_int_equal(p.hops[0].out_port, 1);
	assert_int_equal(p.hops[0].vl, 3);	/* default: SL 3 on VL 3 */
	assert_int_equal(p.hops[1].node, 1);
	assert_int_equal(p.hops[1].in_port, 2);
	assert_int_equal(p.hops[1].vl, 2);	/* the table set above */
	assert_int_equal(p.hops[2].node, 2);
	assert_int_equal(p.hops[2].out_port, 3);
	assert_int_equal(p.dst_node, 7);
	assert_int_equal(p.dst_port, 1);
	an_path_free(&p);
	/* from a switch's port 0 to a switch */
	assert_int_equal(an_trace(f, r, 4, fab_ep_lid(f, 1), 0, &p), 0);
	assert_int_equal(p.fail, AN_DELIVERED);
	assert_int_equal(p.nhops, 3);
	assert_int_equal(p.hops[0].in_port, 0);
	assert_int_equal(p.hops[2].out_port, 0);
	assert_int_equal(p.dst_port, 0);
	an_path_free(&p);
	rt_free(r);
	fab_free(f);
}

/* ft: a 2-level fat tree whose roots have no route to each other (as ftree without sftree). */
static void test_unreachable_root_pair(void **state)
{
	struct fabric *f = tu_gen("gft2 n=2 m=2 r=2", 1);
	struct rt_routing *r;
	struct an_report rep;
	uint32_t root0 = FAB_NONE, root1 = FAB_NONE;

	assert_non_null(f);
	r = rt_new(f);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s];

		if (strncmp(fab_desc(f, node), "spine", 5))
			continue;
		if (root0 == FAB_NONE)
			root0 = s;
		else
			root1 = s;
	}
	/* route every LID down from the roots and up (first up port) from the leaves */
	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t node = f->eps[e].node;
		unsigned lid = fab_ep_lid(f, e), leaf = FAB_NONE;

		if (f->nodes[node].type == FAB_CA)
			leaf = f->nodes[fab_port(f, node, 1)->peer].swidx;
		else if (strncmp(fab_desc(f, node), "spine", 5))
			leaf = f->nodes[node].swidx;
		for (uint32_t s = 0; s < f->nswitches; s++) {
			uint32_t sn = f->switches[s];
			int is_root = s == root0 || s == root1;

			if (sn == node)
				rt_lft(r, s)[lid] = 0;
			else if (is_root && leaf != FAB_NONE)
				for (unsigned p = 1; p <= f->nodes[sn].nports; p++) {
					if (fab_port(f, sn, p)->peer == f->switches[leaf])
						rt_lft(r, s)[lid] = (uint8_t)p;
				}
			else if (!is_root && s == leaf)
				rt_lft(r, s)[lid] = fab_port(f, node, 1)->peer_port;
			else if (!is_root && leaf != FAB_NONE)
				rt_lft(r, s)[lid] = 3;	/* first up port */
			else if (!is_root)
				rt_lft(r, s)[lid] = (uint8_t)(s == leaf ? 0 : 3 + (node == f->switches[root1]));
		}
	}
	eval(f, r, (struct an_opts){ 0 }, &rep);
	assert_int_equal(rep.conn.unreachable[AN_CA_CA], 0);
	assert_int_equal(rep.conn.unreachable[AN_SW_SW], 2);	/* root0 <-> root1 */
	assert_int_equal(rep.conn.by_fail[AN_SW_SW][AN_NO_ENTRY], 2);
	assert_true(rep.cdg.deadlock_free);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

static void test_lmc_dlids(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = ring(3, 1);
	struct rt_routing *r;
	struct an_report rep;
	uint32_t a = fab_ep_of_node(f, 3, 1), c = fab_ep_of_node(f, 5, 1);

	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 1, &err), 0);
	r = ring_route(f, 3);
	/* ring_route fills base LIDs only: the second LID of each CA has no route */
	eval(f, r, (struct an_opts){ 0 }, &rep);
	assert_true(an_connected(&rep));
	an_report_free(&rep);
	eval(f, r, (struct an_opts){ .all_lids = 1 }, &rep);
	assert_int_equal(rep.conn.unreachable[AN_CA_CA], 6);
	assert_int_equal(rep.conn.by_fail[AN_CA_CA][AN_NO_ENTRY], 6);
	an_report_free(&rep);
	/* a pair told to use the second LID fails unless it is routed */
	assert_int_equal(rt_pairs_alloc(r), 0);
	r->dlid_off[(size_t)a * r->neps + c] = 1;
	eval(f, r, (struct an_opts){ 0 }, &rep);
	assert_int_equal(rep.conn.unreachable[AN_CA_CA], 1);
	assert_int_equal(rep.conn.ex[AN_CA_CA][0].dlid, fab_ep_lid(f, c) + 1);
	an_report_free(&rep);
	for (unsigned s = 0; s < 3; s++)
		rt_lft(r, s)[fab_ep_lid(f, c) + 1] = rt_lft(r, s)[fab_ep_lid(f, c)];
	eval(f, r, (struct an_opts){ 0 }, &rep);
	assert_true(an_connected(&rep));
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

/* Two switches, two CAs each, one link: every cross pair uses the link. */
static void test_load_counts(void **state)
{
	struct fabric *f = ring(2, 2);
	struct rt_routing *r;
	struct an_report rep;

	/* ring(2) links 0:1-1:2 and 1:1-0:2: route everything over port 1 */
	r = ring_route(f, 2);
	eval(f, r, (struct an_opts){ .load = 1 }, &rep);
	assert_true(an_connected(&rep));
	/* 6 endpoints: from switch 0's side (2 CAs + switch) to switch 1's side: 9 pairs */
	assert_int_equal(rep.load.max, 9);
	assert_int_equal(rep.load.sw_channels, 4);
	/* port 1 of each switch carries 9, port 2 carries 0 */
	assert_true(rep.load.mean > 4.49 && rep.load.mean < 4.51);
	assert_int_equal(rep.load.hist[AN_LOAD_BUCKETS - 1], 2);
	assert_int_equal(rep.load.hist[0], 2);
	/* CA to CA: each CA sends 1/3 to each other CA; 4 cross pairs of 1/3 on the link */
	assert_true(rep.load.ca_max_load > 1.333 && rep.load.ca_max_load < 1.334);
	/* each switch sends its 3 remote LIDs on port 1 and none on port 2 */
	assert_int_equal(rep.load.balance_max, 3);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

/*
 * The load's figures, worked out here the plain way from the per-port sums
 * the report keeps: switch-to-switch channels, their total, busiest port
 * and histogram (a division per link), and the largest CA-to-CA share.
 */
static void load_by_hand(const struct fabric *f, const struct an_report *rep)
{
	uint64_t max = 0, total = 0, channels = 0, ca_top = 0, machines = 0;
	uint32_t hist[AN_LOAD_BUCKETS] = { 0 };

	for (uint32_t e = 0; e < f->neps; e++)
		machines += f->nodes[f->eps[e].node].type == FAB_CA;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t n = 0; n < f->nnodes; n++)
			for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
				uint32_t peer = fab_port(f, n, p)->peer, i = f->nodes[n].port0 + p;

				if (peer == FAB_NONE)
					continue;
				if (!pass && rep->port_ca[i] > ca_top)
					ca_top = rep->port_ca[i];
				if (f->nodes[n].type != FAB_SWITCH || f->nodes[peer].type != FAB_SWITCH)
					continue;
				if (pass) {
					hist[rep->port_all[i] * AN_LOAD_BUCKETS / (max + 1)]++;
					continue;
				}
				channels++;
				total += rep->port_all[i];
				max = rep->port_all[i] > max ? rep->port_all[i] : max;
			}
	assert_int_equal(rep->load.sw_channels, channels);
	assert_int_equal(rep->load.max, max);
	assert_true(rep->load.mean == (channels ? (double)total / (double)channels : 0));
	assert_true(rep->load.ca_max_load == (machines > 1 ? (double)ca_top / (double)(machines - 1) : 0));
	assert_int_equal(rep->port_all[f->nodes[rep->load.max_node].port0 + rep->load.max_port], max);
	for (unsigned k = 0; k < AN_LOAD_BUCKETS && max; k++)
		assert_int_equal(rep->load.hist[k], hist[k]);
}

/* The summary of the load equals the plain computation, on trees, a torus, a random fabric, after faults. */
static void test_load_summary(void **state)
{
	static const char *const fabrics[][2] = {
		{ "ft648", "sftree" }, { "torus dims=3,3,3 hosts=1", "minhop" },
		{ "random switches=9 machines=30 degree=3", "minhop" },
		{ "mport-ntree m=6 n=3 lmc=1", "ftree" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(fabrics) / sizeof(fabrics[0]); i++)
		for (uint64_t faults = 0; faults < 2; faults++) {
			struct fabric *f = tu_faults(tu_gen(fabrics[i][0], 3), faults ? 5 : 0, 0, 7);
			struct rt_routing *r = tu_route_in_place(f, fabrics[i][1]);
			struct an_report rep;

			assert_non_null(r);
			eval(f, r, (struct an_opts){ .load = 1 }, &rep);
			assert_true(rep.load.max > 0);
			load_by_hand(f, &rep);
			an_report_free(&rep);
			rt_free(r);
			fab_free(f);
		}
}

/*
 * Published on the proof that does not count (an_opts.state_later), the
 * state made afterwards: the same figures as a counting evaluation, and a
 * state a repair is re-evaluated from; a full evaluation inside
 * an_reevaluate() gives no state either, an_state_make() adds it.
 */
static void state_later_case(struct fabric *f, const char *chain, const char *name)
{
	static const struct an_opts later = { .load = 1, .incremental = 1, .state_later = 1 };
	struct fab_err err = { { 0 } };
	struct rt_routing *r = tu_route_in_place(f, chain), *r2, *pairs;
	struct an_report a, full, rep;
	struct an_state *st;
	uint32_t sw = f->nswitches / 2;
	struct an_change chg = { .switches = &sw, .nswitches = 1 };
	char what[200];

	assert_non_null(r);
	assert_int_equal(an_evaluate(f, r, &later, &a, &err), 0);
	assert_null(a.state);
	assert_int_equal(an_evaluate(f, r, &(struct an_opts){ .load = 1, .incremental = 1 }, &full,
				     &err), 0);
	snprintf(what, sizeof(what), "%s: the proof without the state", name);
	tu_same_report(&a, &full, what);
	assert_int_equal(an_state_make(f, r, &later, &a, &err), 0);
	assert_non_null(st = a.state);
	snprintf(what, sizeof(what), "%s: the state made afterwards", name);
	tu_same_report(&a, &full, what);
	assert_int_equal(an_state_make(f, r, &later, &a, &err), 0);
	assert_ptr_equal(a.state, st);	/* made once */
	r2 = rt_copy(f, r);
	assert_non_null(r2);
	rt_lft(r2, sw)[fab_ep_lid(f, f->neps - 1)] = RT_NO_PORT;
	assert_int_equal(an_reevaluate(f, r, &a, f, r2, &later, &chg, &rep, &err), 0);
	assert_non_null(rep.state);	/* moved from @a */
	assert_null(a.state);
	assert_int_equal(rep.dests, 1);
	an_report_free(&full);
	assert_int_equal(an_evaluate(f, r2, &later, &full, &err), 0);
	snprintf(what, sizeof(what), "%s: a repair proven from the state made afterwards", name);
	tu_same_report(&rep, &full, what);
	an_report_free(&a);
	a = rep;
	pairs = rt_copy(f, r2);
	assert_non_null(pairs);
	assert_int_equal(rt_pairs_alloc(pairs), 0);
	assert_int_equal(an_reevaluate(f, r2, &a, f, pairs, &later, NULL, &rep, &err), 0);
	assert_null(rep.state);	/* evaluated in full */
	assert_int_equal(rep.dests, f->neps);
	assert_int_equal(an_state_make(f, pairs, &later, &rep, &err), 0);
	assert_non_null(rep.state);
	an_report_free(&rep);
	an_report_free(&a);
	assert_int_equal(an_evaluate(f, r, &(struct an_opts){ .load = 1 }, &a, &err), 0);
	assert_int_equal(an_state_make(f, r, &(struct an_opts){ .load = 1 }, &a, &err), 0);
	assert_null(a.state);	/* not asked for */
	an_report_free(&a);
	an_report_free(&full);
	rt_free(r);
	rt_free(r2);
	rt_free(pairs);
}

static void test_state_later(void **state)
{
	struct fabric *f = tu_gen("ft648", 3);
	struct fabric *t = tu_gen("torus dims=3,3,3 hosts=1", 3);
	struct fabric *m = tu_gen("mport-ntree m=6 n=3 lmc=1", 3);

	(void)state;
	state_later_case(f, "sftree", "ft648");
	state_later_case(t, "minhop", "torus");
	state_later_case(m, "ftree", "mport-ntree");
	fab_free(f);
	fab_free(t);
	fab_free(m);
}

static void test_ca_only(void **state)
{
	struct fabric *f = ring(5, 1);
	struct rt_routing *r = ring_route(f, 5);
	struct an_report rep;

	/* CA-to-CA paths alone already close the cycle on a 5-ring: 5 x 4 pairs */
	eval(f, r, (struct an_opts){ .ca_only = 1 }, &rep);
	assert_false(rep.cdg.deadlock_free);
	assert_true(rep.cdg.vl[0].paths == 20);
	an_report_free(&rep);
	rt_free(r);
	fab_free(f);
}

static void test_mismatch(void **state)
{
	struct fabric *f = ring(3, 1), *g = ring(4, 1);
	struct rt_routing *r = ring_route(g, 4);
	struct fab_err err = { { 0 } };
	struct an_report rep;
	struct an_opts o = { 0 };

	assert_int_equal(an_evaluate(f, r, &o, &rep, &err), -1);
	assert_non_null(strstr(err.msg, "another fabric"));
	rt_free(r);
	fab_free(f);
	fab_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_credit_loop),
		cmocka_unit_test(test_parallel_same_report),
		cmocka_unit_test(test_acyclic_only_per_vl),
		cmocka_unit_test(test_cross_vl_cycle),
		cmocka_unit_test(test_black_hole_and_loop),
		cmocka_unit_test(test_wrong_port_and_link_down),
		cmocka_unit_test(test_trace_hops),
		cmocka_unit_test(test_unreachable_root_pair),
		cmocka_unit_test(test_lmc_dlids),
		cmocka_unit_test(test_load_counts),
		cmocka_unit_test(test_load_summary),
		cmocka_unit_test(test_state_later),
		cmocka_unit_test(test_ca_only),
		cmocka_unit_test(test_mismatch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
