/* SPDX-License-Identifier: MIT */
/*
 * Canonical determinism: every engine's routing depends on the fabric as a
 * graph (GUIDs, ports, links, LIDs) and its options, never on the order in
 * which the fabric's records came. Every engine routes every generator
 * family and the fixtures of tests/data, then the same fabric rebuilt in
 * reverse and in random node order (links in random order, each declared
 * from either end); the two runs must give the same LIDs, LFTs, SL2VL
 * tables, path SLs, DLID offsets, notes and digest. ftdlr's repair is
 * checked the same way, base and faulted fabric both reordered, and so is
 * the assignment of new LIDs beside kept and pinned ones. The
 * subnet OpenSM's plugin sends goes through the daemon's
 * srco_subnet_fabric() in the plugin's order (node_guid_tbl: GUIDs by
 * their network byte order) and in a random order of nodes, ports and
 * links; both must route as the topology file does.
 */
#include <jansson.h>

#include "tests/unit/testutil.h"

#include "daemon/source_osm.h"
#include "engines/ftdlr/ftdlr.h"
#include "gen/gen.h"
#include "opensm/proto.h"

/* Every engine, with the options golden.sh gives it. */
static const struct {
	const char *chain;
	const char *kv[2];
} engines[] = {
	{ "minhop", { NULL } }, { "updn", { NULL } }, { "ftree", { NULL } }, { "sftree", { NULL } },
	{ "dmodk", { NULL } }, { "smodk", { NULL } }, { "opt", { NULL } }, { "dla", { NULL } },
	{ "ftdlr", { NULL } }, { "pathsel", { NULL } }, { "swidest", { "swidest.lids=greedy" } },
	{ "rename", { NULL } }, { "explicit", { NULL } },
};
#define NENGINES (sizeof(engines) / sizeof(engines[0]))

/* Every engine routes @f and @g (the same graph) alike; @name names the fabric. */
static void same_for_all(const struct fabric *f, const struct fabric *g, const char *name,
			 const char *order)
{
	char what[160];

	for (size_t i = 0; i < NENGINES; i++) {
		size_t nkv = engines[i].kv[0] ? 1 : 0;
		struct tu_run a, b;

		tu_run_route(f, engines[i].chain, engines[i].kv, nkv, NULL, NULL, &a);
		tu_run_route(g, engines[i].chain, engines[i].kv, nkv, NULL, NULL, &b);
		snprintf(what, sizeof(what), "%s, %s, %s order", name, engines[i].chain, order);
		tu_run_same(&a, &b, what);
		tu_run_free(&a);
		tu_run_free(&b);
	}
}

/* @f against itself in reverse node order and in a random one. */
static void check_orders(const struct fabric *f, const char *name, uint64_t seed)
{
	uint32_t *rev = tu_reverse_order(f), *rnd = tu_random_order(f, seed);
	struct fabric *g = tu_rebuild(f, rev, seed + 1), *h = tu_rebuild(f, rnd, seed + 2);

	same_for_all(f, g, name, "reverse");
	same_for_all(f, h, name, "random");
	fab_free(g);
	fab_free(h);
	free(rev);
	free(rnd);
}

/* --- every generator family ------------------------------------------------------- */

static const struct {
	const char *name, *spec;
	unsigned link_faults, switch_faults;
} families[] = {
	{ "kary33", "kary-ntree k=3 n=3", 0, 0 },
	{ "kary24lmc", "kary-ntree k=2 n=4 lmc=1", 0, 0 },
	{ "kary33faults", "kary-ntree k=3 n=3", 3, 0 },
	{ "kary33swfault", "kary-ntree k=3 n=3", 0, 1 },
	{ "mport63", "mport-ntree m=6 n=3", 0, 0 },
	{ "xgft", "xgft h=2 m=4,4 w=1,4", 0, 0 },
	{ "gft2slim", "gft2 n=4 m=2 r=6", 0, 0 },
	{ "gft2lmc", "gft2 n=4 m=4 r=6 lmc=1", 0, 0 },
	{ "ft648rack", "ft648-rack racks=2 hosts=4 uplinks=2", 0, 0 },
	{ "multicore", "multicore cores=3 n=2 m=2 r=4", 0, 0 },
	{ "dragonfly", "dragonfly a=4 p=2 h=2", 0, 0 },
	{ "random", "random", 0, 0 },
	{ "ring", "ring switches=6 hosts=2", 0, 0 },
	{ "mesh", "mesh dims=3,3", 0, 0 },
	{ "torus", "torus dims=3,3 hosts=2", 0, 0 },
};

static struct fabric *family(size_t i)
{
	return tu_faults(tu_gen(families[i].spec, 5), families[i].link_faults,
			 families[i].switch_faults, 7);
}

static void test_families(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		struct fabric *f = family(i);

		check_orders(f, families[i].name, 100 + i);
		fab_free(f);
	}
}

/* --- the fixtures: ibnetdiscover output, ibsim nets, OpenSM subnet lists ----------- */

/* A fixture: a topology file, or an OpenSM subnet list (with its SM). */
static struct fabric *fixture(const char *rel)
{
	struct fab_err err = { { 0 } };
	struct fabric *f;
	char *buf = NULL;
	size_t len = 0;

	if (!strstr(rel, ".lst"))
		return tu_load(rel, FMT_AUTO);
	if (fmt_read_file(tu_data(rel), &buf, &len, &err))
		fail_msg("%s: %s", rel, err.msg);
	f = fmt_subnet_parse(buf, len, rel, &err);
	free(buf);
	if (!f) {
		fail_msg("%s: %s", rel, err.msg);
		abort();
	}
	assert_int_not_equal(f->sm_node, FAB_NONE);
	return f;
}

static void test_fixtures(void **state)
{
	static const char *const files[] = {
		"ibnd/mixed.txt", "ibnd/mixed-lmc2.txt", "ibnd/fattree.txt", "ibsim/net.txt",
		"ibsim/net.2sw2path4hca2port.txt", "osm/mixed/opensm-subnet.lst",
		"osm/fattree/opensm-subnet.lst", "osm/ring/opensm-subnet.lst",
		"eval/dragonfly-minhop/ibnetdiscover.out",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct fabric *f = fixture(files[i]);

		check_orders(f, files[i], 200 + i);
		fab_free(f);
	}
}

/* --- LID assignment -------------------------------------------------------------------- */

/*
 * New LIDs do not depend on the order either: a fabric where only every
 * third endpoint keeps its LID and a few more are pinned (as the store's
 * pins keep LIDs across restarts) gets the same LIDs in any order.
 */
static void test_lids(void **state)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = family(2), *g;
	struct fab_lid_pin pins[3];
	uint32_t *o;

	(void)state;
	for (uint32_t e = 0; e < f->neps; e++)
		if (e % 3)
			fab_port(f, f->eps[e].node, f->eps[e].port)->lid = 0;
	for (uint32_t i = 0; i < 3; i++) {
		uint32_t e = f->neps - 1 - 5 * i;

		pins[i] = (struct fab_lid_pin){ .guid = fab_port(f, f->eps[e].node, f->eps[e].port)->guid,
						.lid = (uint16_t)(1000 + 16 * i), .lmc = (uint8_t)i };
	}
	assert_int_equal(fab_finalize(f, &err), 0);
	o = tu_random_order(f, 77);
	g = tu_rebuild(f, o, 78);
	assert_int_equal(fab_lids_assign(f, pins, 3, FAB_LIDS_KEEP, 1, &err), 0);
	assert_int_equal(fab_lids_assign(g, pins, 3, FAB_LIDS_KEEP, 1, &err), 0);
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_port *x = fab_port(f, f->eps[e].node, f->eps[e].port);
		const struct fab_port *y = fab_port(g, g->eps[e].node, g->eps[e].port);

		assert_true(x->guid == y->guid);
		assert_int_equal(x->lid, y->lid);
		assert_int_equal(x->lmc, y->lmc);
	}
	assert_int_equal(fab_port(f, f->eps[f->neps - 1].node, f->eps[f->neps - 1].port)->lid, 1000);
	fab_free(f);
	fab_free(g);
	free(o);
}

/* --- ftdlr's repair ------------------------------------------------------------------ */

/* The steps ftdlr_stages() cuts the move from @base to @rep into are those of the other order's. */
static void same_steps(const struct tu_run *base, const struct tu_run *rep, const struct tu_run *base2,
		       const struct tu_run *rep2)
{
	struct fab_err err = { { 0 } };
	struct rt_routing **s1, **s2;
	unsigned n1, n2;

	if (ftdlr_stages(rep->res.fabric, base->res.fabric, base->res.routing, rep->res.routing, &s1, &n1,
			 &err) ||
	    ftdlr_stages(rep2->res.fabric, base2->res.fabric, base2->res.routing, rep2->res.routing, &s2,
			 &n2, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(n1, n2);
	assert_true(n1 > 1);
	for (unsigned k = 0; k < n1; k++) {
		assert_int_equal(s1[k]->lft_len, s2[k]->lft_len);
		assert_true(rt_equal_lfts(s1[k], s2[k]));
	}
	ftdlr_stages_free(s1, n1);
	ftdlr_stages_free(s2, n2);
}

/* LIDs the repair of @run rewrote, from its notes ("LIDs repaired: N"). */
static unsigned lids_repaired(const struct tu_run *run)
{
	const char *at = strstr(run->res.routing->notes, "LIDs repaired: ");
	unsigned n = 0;

	assert_non_null(at);
	assert_int_equal(sscanf(at, "LIDs repaired: %u", &n), 1);
	return n;
}

/*
 * The repair of @rep's fabric from @base with the memo the daemon keeps
 * (prepared: the model, the turning switches, the switch classes) gives
 * the tables @want has (the repair made in the other order, without one).
 */
static void from_memo(const struct tu_run *base, const struct tu_run *rep, const struct tu_run *want)
{
	struct fab_err err = { { 0 } };
	struct eng_memo memo = { 0 };
	struct ftdlr_stats st;
	struct rt_routing *r;

	assert_int_equal(eng_ftdlr.prepare(base->res.fabric, base->res.routing, &memo, NULL), 0);
	assert_int_equal(ftdlr_repair_memo(base->res.fabric, base->res.routing, rep->res.fabric,
					   FTDLR_MINIMAL, 0, &memo, &r, &st, NULL, NULL, &err), ENG_OK);
	assert_int_equal(r->lft_len, want->res.routing->lft_len);
	assert_true(rt_equal_lfts(r, want->res.routing));
	rt_free(r);
	eng_memo_clear(&memo);
}

/*
 * On an sftree base (its LIDs repaired at their few switches alone once a
 * memo is prepared, ftdlr_quick.c), the base routed on order @f2 with a
 * prepared memo and its faulted fabric @d2 in another order repair to the
 * tables of the plain repair of @d from the base routed on @f's order.
 */
static void quick_in_orders(const struct fabric *f, const struct fabric *f2,
			    const struct fabric *d, const struct fabric *d2)
{
	struct fab_err err = { { 0 } };
	struct eng_memo memo = { 0 };
	struct ftdlr_stats s1, s2;
	struct rt_routing *r1, *r2;
	struct tu_run base, base2;

	tu_run_route(f, "sftree", NULL, 0, NULL, NULL, &base);
	tu_run_route(f2, "sftree", NULL, 0, NULL, NULL, &base2);
	tu_run_same(&base, &base2, "sftree base");
	assert_int_equal(ftdlr_repair(base.res.fabric, base.res.routing, d, FTDLR_MINIMAL, 0, &r1,
				      &s1, &err), ENG_OK);
	assert_int_equal(eng_ftdlr.prepare(base2.res.fabric, base2.res.routing, &memo, NULL), 0);
	assert_int_equal(ftdlr_repair_memo(base2.res.fabric, base2.res.routing, d2, FTDLR_MINIMAL, 0,
					   &memo, &r2, &s2, NULL, NULL, &err), ENG_OK);
	assert_true(s2.quick > 0 && s1.quick == 0);
	assert_int_equal(r1->lft_len, r2->lft_len);
	assert_true(rt_equal_lfts(r1, r2));
	rt_free(r1);
	rt_free(r2);
	eng_memo_clear(&memo);
	tu_run_free(&base);
	tu_run_free(&base2);
}

/*
 * The base routed on one order, @fl repaired on the faulted fabric in
 * another: the repair is the one made when both come in file order, and
 * so are its steps, and so is a repair from a prepared memo; at least
 * @lids LIDs repaired. The same from an sftree base with the quick repair.
 */
static void repair_in_orders(struct fabric *f, const struct gen_faults *fl, unsigned lids)
{
	struct fab_err err = { { 0 } };
	struct fabric *d, *f2, *d2;
	uint32_t *o1, *o2;
	struct tu_run base, base2, a, b;

	d = fab_copy(f, &err);
	assert_non_null(d);
	if (gen_faults_apply(&d, fl, &err))
		fail_msg("%s", err.msg);
	o1 = tu_random_order(f, 31);
	o2 = tu_reverse_order(d);
	f2 = tu_rebuild(f, o1, 32);
	d2 = tu_rebuild(d, o2, 33);
	tu_run_route(f, "ftdlr", NULL, 0, NULL, NULL, &base);
	tu_run_route(f2, "ftdlr", NULL, 0, NULL, NULL, &base2);
	tu_run_same(&base, &base2, "ftdlr base");
	tu_run_route(d, "ftdlr", NULL, 0, base.res.fabric, base.res.routing, &a);
	tu_run_route(d2, "ftdlr", NULL, 0, base2.res.fabric, base2.res.routing, &b);
	assert_int_equal(a.status, ENG_OK);
	assert_true(a.res.repaired);
	assert_true(lids_repaired(&a) >= lids);
	tu_run_same(&a, &b, "ftdlr repair");
	assert_string_not_equal(a.digest, base.digest);
	same_steps(&base, &a, &base2, &b);
	from_memo(&base2, &b, &a);
	quick_in_orders(f, f2, d, d2);
	tu_run_free(&a);
	tu_run_free(&b);
	tu_run_free(&base);
	tu_run_free(&base2);
	fab_free(f2);
	fab_free(d);
	fab_free(d2);
	free(o1);
	free(o2);
}

/*
 * Two link faults on a small tree; an upper switch gone on a 1024-CA tree,
 * whose repair rewrites enough LIDs (4 blocks of 64 and more) to run in
 * the engine's threads (the online CPUs).
 */
static void test_ftdlr_repair(void **state)
{
	static const char *const links[] = { "leaf-02:4", "l2-01:5" };
	static const char *const sw[] = { "l2-003" };
	struct gen_faults fl = { .links = links, .nlinks = 2 }, fs = { .switches = sw, .nswitches = 1 };
	struct fabric *f = family(0), *m = tu_gen("mport-ntree m=16 n=3", 5);

	(void)state;
	repair_in_orders(f, &fl, 1);
	repair_in_orders(m, &fs, 4 * 64);
	fab_free(f);
	fab_free(m);
}

/* --- the subnet from OpenSM's plugin ------------------------------------------------- */

/* VLCap as the plugin encodes a port's VLs (1, 2, 4, 8, 15 data VLs: 1 to 5). */
static uint8_t vls_enc(unsigned cap)
{
	return cap >= 15 ? 5 : cap >= 8 ? 4 : cap >= 4 ? 3 : cap >= 2 ? 2 : 1;
}

struct osm_msg {
	uint8_t *buf;
	size_t len, nports, nlinks;
};

/* Port records of node @n (message index @ix) at @m's end. */
static void osm_ports(const struct fabric *f, uint32_t n, uint32_t ix, struct osm_msg *m)
{
	const struct fab_node *nd = &f->nodes[n];

	for (unsigned p = nd->type == FAB_SWITCH ? 0 : 1; p <= nd->nports; p++) {
		const struct fab_port *x = fab_port(f, n, p);
		uint8_t *r = m->buf + m->len;

		memset(r, 0, OSMP_PORT_REC);
		osmp_put32(r, ix);
		osmp_put64(r + 4, x->guid);
		osmp_put16(r + 12, x->lid);
		r[14] = (uint8_t)p;
		r[15] = x->lmc;
		r[16] = x->state;
		r[17] = x->phys;
		r[18] = x->width;
		r[19] = x->speed;
		r[20] = vls_enc(nd->vl_cap);
		m->len += OSMP_PORT_REC;
		m->nports++;
	}
}

/* Link records, each once from its lower (message index, port) end, as the plugin writes them. */
static void osm_links(const struct fabric *f, const uint32_t *order, const uint32_t *ix,
		      struct osm_msg *m)
{
	for (uint32_t k = 0; k < f->nnodes; k++)
		for (unsigned p = 1; p <= f->nodes[order[k]].nports; p++) {
			const struct fab_port *x = fab_port(f, order[k], p);
			uint8_t *r = m->buf + m->len;

			if (x->peer == FAB_NONE || ix[x->peer] < k || (ix[x->peer] == k && x->peer_port < p))
				continue;
			memset(r, 0, OSMP_LINK_REC);
			osmp_put32(r, k);
			osmp_put32(r + 4, ix[x->peer]);
			r[8] = (uint8_t)p;
			r[9] = x->peer_port;
			m->len += OSMP_LINK_REC;
			m->nlinks++;
		}
}

/*
 * The route request's subnet for @f, nodes in @order; with @shuffle (a
 * seed, 0: none) the port and link records in random order too. Routed
 * through srco_subnet_fabric(), with the SM on port GUID @sm (0: none).
 */
static struct fabric *osm_fabric(const struct fabric *f, const uint32_t *order, uint64_t shuffle,
				 uint64_t sm)
{
	struct fab_err err = { { 0 } };
	struct osm_msg m = { .buf = calloc((size_t)f->nnodes * OSMP_NODE_REC +
					   (size_t)f->nports * (OSMP_PORT_REC + OSMP_LINK_REC) + 1, 1) };
	uint32_t *ix = malloc(((size_t)f->nnodes + 1) * sizeof(*ix));
	struct fab_rng rng;
	struct fabric *g;
	json_t *subnet;
	uint8_t *ports;

	assert_non_null(m.buf);
	assert_non_null(ix);
	for (uint32_t k = 0; k < f->nnodes; k++) {
		const struct fab_node *n = &f->nodes[order[k]];
		uint8_t *r = m.buf + m.len;
		const char *d = fab_desc(f, order[k]);

		ix[order[k]] = k;
		osmp_put64(r, n->guid);
		osmp_put64(r + 8, n->sysimg_guid);
		osmp_put32(r + 16, n->vendor_id);
		osmp_put16(r + 20, n->device_id);
		r[22] = n->type == FAB_SWITCH ? OSMP_NODE_SW : n->type == FAB_CA ? OSMP_NODE_CA : OSMP_NODE_RT;
		r[23] = n->nports;
		memcpy(r + 24, d, strnlen(d, OSMP_DESC_LEN));
		m.len += OSMP_NODE_REC;
	}
	ports = m.buf + m.len;
	for (uint32_t k = 0; k < f->nnodes; k++)
		osm_ports(f, order[k], k, &m);
	osm_links(f, order, ix, &m);
	if (shuffle) {
		fab_rng_seed(&rng, shuffle);
		tu_shuffle(ports, m.nports, OSMP_PORT_REC, &rng);
		tu_shuffle(ports + m.nports * OSMP_PORT_REC, m.nlinks, OSMP_LINK_REC, &rng);
	}
	subnet = json_pack("{s:I, s:I, s:I}", "nodes", (json_int_t)f->nnodes,
			   "ports", (json_int_t)m.nports, "links", (json_int_t)m.nlinks);
	if (sm)
		json_object_set_new(subnet, "sm_port_guid", osmp_guid(sm));
	g = srco_subnet_fabric(subnet, m.buf, m.len, &err);
	if (!g)
		fail_msg("subnet: %s", err.msg);
	json_decref(subnet);
	free(m.buf);
	free(ix);
	return g;
}

/* OpenSM's node_guid_tbl order: a cl_qmap keyed by the GUID in network byte order. */
static uint64_t qmap_key(uint64_t guid)
{
	return __builtin_bswap64(guid);
}

static const struct fabric *qmap_of;

static int qmap_cmp(const void *a, const void *b)
{
	uint64_t x = qmap_key(qmap_of->nodes[*(const uint32_t *)a].guid);
	uint64_t y = qmap_key(qmap_of->nodes[*(const uint32_t *)b].guid);

	return x < y ? -1 : x > y;
}

static uint32_t *qmap_order(const struct fabric *f)
{
	uint32_t *o = malloc(((size_t)f->nnodes + 1) * sizeof(*o));

	assert_non_null(o);
	for (uint32_t i = 0; i < f->nnodes; i++)
		o[i] = i;
	qmap_of = f;
	qsort(o, f->nnodes, sizeof(*o), qmap_cmp);
	return o;
}

/*
 * A rack-switch tree, a k-ary n-tree and a dragonfly: offline from the
 * topology file, and through the daemon from the plugin's subnet in
 * OpenSM's order and in a random one, every engine routes alike; two
 * OpenSMs with the SM on the same port route alike too.
 */
static void test_osm_subnet(void **state)
{
	static const char *const fabs[] = {
		"ft648-rack racks=4 hosts=16 uplinks=4",
		"kary-ntree k=3 n=3",
		"dragonfly a=4 p=2 h=2",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(fabs) / sizeof(fabs[0]); i++) {
		struct fabric *f = tu_gen(fabs[i], 1);
		uint32_t *q, *rnd;
		struct fabric *a, *b, *c, *d;
		uint64_t sm;

		q = qmap_order(f);
		rnd = tu_random_order(f, 300 + i);
		a = osm_fabric(f, q, 0, 0);
		b = osm_fabric(f, rnd, 400 + i, 0);
		same_for_all(f, a, fabs[i], "OpenSM's");
		same_for_all(f, b, fabs[i], "random subnet record");
		sm = fab_port(f, f->eps[f->neps - 1].node, f->eps[f->neps - 1].port)->guid;
		c = osm_fabric(f, q, 0, sm);
		d = osm_fabric(f, rnd, 500 + i, sm);
		assert_int_not_equal(c->sm_node, FAB_NONE);
		same_for_all(c, d, fabs[i], "OpenSM's, with the SM,");
		fab_free(a);
		fab_free(b);
		fab_free(c);
		fab_free(d);
		free(q);
		free(rnd);
		fab_free(f);
	}
}

/* A copy of @f with one change @what makes: fab_routes_alike() must tell it from @f. */
static void differs(const struct fabric *f, int what, const char *name)
{
	struct fab_err err = { { 0 } };
	struct fabric *g = fab_copy(f, &err);
	uint32_t sw = f->switches[0], ep = f->neps - 1;

	assert_non_null(g);
	if (what == 0)
		fab_port(g, g->eps[ep].node, g->eps[ep].port)->lid++;
	else if (what == 1)
		g->nodes[sw].vl_cap = g->nodes[sw].vl_cap == 8 ? 4 : 8;
	else if (what == 2)
		g->nodes[g->eps[ep].node].guid++;
	else if (what == 3)
		g->nodes[sw].sysimg_guid ^= 1;
	else if (what == 4)
		fab_port(g, g->eps[ep].node, g->eps[ep].port)->lmc++;
	else {
		for (unsigned p = 1; p <= g->nodes[sw].nports; p++)
			if (fab_port(g, sw, p)->peer != FAB_NONE) {
				fab_link_remove(g, sw, p);
				break;
			}
		assert_int_equal(fab_finalize(g, &err), 0);
	}
	if (fab_routes_alike(f, g))
		fail_msg("%s: change %d not told apart", name, what);
	fab_free(g);
}

/*
 * fab_routes_alike(): the same graph in any record order is alike, and so
 * with the SM elsewhere; a LID, an LMC, a VL capacity, a node GUID, a
 * system image GUID or a link changed is not.
 */
static void test_alike(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		struct fabric *f = family(i);
		uint32_t *rnd = tu_random_order(f, 600 + i);
		struct fabric *g = tu_rebuild(f, rnd, 700 + i);

		if (!fab_routes_alike(f, g) || !fab_routes_alike(g, f))
			fail_msg("%s: the same graph in another order is not alike", families[i].name);
		g->sm_node = g->eps[0].node;
		g->sm_port = g->eps[0].port;
		if (!fab_routes_alike(f, g))
			fail_msg("%s: the SM elsewhere is not alike", families[i].name);
		for (int what = 0; what < 6; what++)
			differs(f, what, families[i].name);
		fab_free(g);
		free(rnd);
		fab_free(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_lids),
		cmocka_unit_test(test_ftdlr_repair),
		cmocka_unit_test(test_osm_subnet),
		cmocka_unit_test(test_alike),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
