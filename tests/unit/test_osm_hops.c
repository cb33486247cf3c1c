/* SPDX-License-Identifier: MIT */
/*
 * The plugin's hop matrices (opensm/plugin_hops.c) against a reference
 * written here from what OpenSM's osm_ucast_mgr_build_lid_matrices()
 * leaves behind: own LID at hop 0 on port 0, a neighbour switch's LID at
 * hop 1 on every port linked to it (healthy or not), then the relaxation
 * hops(s, t, p) = 1 + least(r, t) through every healthy link p to a switch
 * r, repeated until nothing changes, never storing 255 or more. The
 * subnets are built in OpenSM's own structures (osm_node_t, osm_switch_t,
 * the switch table): fat trees, random graphs with unhealthy links (one
 * end or both), links removed, parallel links and a link looping back to
 * its own switch, a chain longer than 255 switches, a switch without a LID
 * and one whose LID is past max_lid_ho; rows left over from an earlier
 * pass are overwritten, and fosm_hops_clear() clears every row.
 *
 * osm_link_is_healthy() and osm_switch_clear_hops() live in the opensm
 * executable: they are written here as OpenSM documents them.
 */
#include <jansson.h>
#include <stdbool.h>

#include "opensm/plugin.h"
#include "tests/unit/testutil.h"

#define NONE 0xff

boolean_t osm_link_is_healthy(IN const osm_physp_t *p)
{
	return p->p_remote_physp ? p->healthy && p->p_remote_physp->healthy : TRUE;
}

void osm_switch_clear_hops(IN osm_switch_t *sw)
{
	for (unsigned i = 0; i < sw->num_hops; i++)
		if (sw->hops[i])
			memset(sw->hops[i], NONE, sw->num_ports);
}

/* --- a subnet in OpenSM's structures --------------------------------------- */

struct net {
	osm_opensm_t *osm;
	struct fosm f;
	osm_node_t **node;
	unsigned n, nsw;	/* nodes; the first nsw are switches */
	uint16_t max_lid;
};

/* @nsw switches of @ports ports each (LID 2 + 3 * i), @nca CAs of one port (LIDs after, up to max_lid). */
static struct net *net_new(unsigned nsw, unsigned ports, unsigned nca)
{
	struct net *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->osm = calloc(1, sizeof(*t->osm));
	t->node = calloc(nsw + nca, sizeof(*t->node));
	assert_non_null(t->osm);
	assert_non_null(t->node);
	t->f.osm = t->osm;
	t->n = nsw + nca;
	t->nsw = nsw;
	t->max_lid = (uint16_t)(2 + 3 * nsw + nca);
	cl_qmap_init(&t->osm->subn.sw_guid_tbl);
	for (unsigned i = 0; i < t->n; i++) {
		unsigned np = (i < nsw ? ports : 1) + 1;
		osm_node_t *node = calloc(1, sizeof(*node) + np * sizeof(osm_physp_t));

		assert_non_null(node);
		node->physp_tbl_size = np;
		node->node_info.num_ports = (uint8_t)(np - 1);
		node->node_info.node_type = i < nsw ? IB_NODE_TYPE_SWITCH : IB_NODE_TYPE_CA;
		for (unsigned p = 0; p < np; p++) {
			osm_physp_t *ph = &node->physp_table[p];

			ph->port_guid = cl_hton64(((uint64_t)i + 1) << 8 | p);	/* non-zero: valid */
			ph->port_num = (uint8_t)p;
			ph->p_node = node;
			ph->healthy = TRUE;
			ph->hop_wf = 7;
		}
		node->physp_table[i < nsw ? 0 : 1].port_info.base_lid =
			cl_hton16((uint16_t)(i < nsw ? 2 + 3 * i : 2 + 3 * nsw + (i - nsw)));
		if (i < nsw) {
			osm_switch_t *sw = calloc(1, sizeof(*sw));

			assert_non_null(sw);
			sw->p_node = node;
			sw->num_ports = (uint8_t)np;
			sw->max_lid_ho = t->max_lid;
			sw->num_hops = (uint16_t)(t->max_lid + 1);
			sw->hops = calloc(sw->num_hops, sizeof(*sw->hops));
			assert_non_null(sw->hops);
			node->sw = sw;
			cl_qmap_insert(&t->osm->subn.sw_guid_tbl, ((uint64_t)i * 7919) % 100003 + 1, &sw->map_item);
		}
		t->node[i] = node;
	}
	return t;
}

static void net_free(struct net *t)
{
	for (unsigned i = 0; i < t->n; i++) {
		osm_switch_t *sw = t->node[i]->sw;

		for (unsigned l = 0; sw && l < sw->num_hops; l++)
			free(sw->hops[l]);
		if (sw)
			free(sw->hops);
		free(sw);
		free(t->node[i]);
	}
	free(t->node);
	free(t->osm);
	free(t);
}

static osm_physp_t *port(struct net *t, unsigned node, unsigned p)
{
	assert_true(node < t->n && p < t->node[node]->physp_tbl_size);
	return &t->node[node]->physp_table[p];
}

static void link_ports(struct net *t, unsigned a, unsigned pa, unsigned b, unsigned pb)
{
	osm_physp_t *x = port(t, a, pa), *y = port(t, b, pb);

	assert_null(x->p_remote_physp);
	assert_null(y->p_remote_physp);
	x->p_remote_physp = y;
	y->p_remote_physp = x;
}

static bool port_free(struct net *t, unsigned node, unsigned p)
{
	return !port(t, node, p)->p_remote_physp;
}

static unsigned free_ports(struct net *t, unsigned node)
{
	unsigned n = 0;

	for (unsigned p = 1; p < t->node[node]->physp_tbl_size; p++)
		n += port_free(t, node, p);
	return n;
}

/* The first free port of @node from port 1, 0 when none. */
static unsigned free_port(struct net *t, unsigned node)
{
	for (unsigned p = 1; p < t->node[node]->physp_tbl_size; p++)
		if (port_free(t, node, p))
			return p;
	return 0;
}

static void link_free(struct net *t, unsigned a, unsigned b)
{
	unsigned pa = free_port(t, a), pb;

	assert_int_not_equal(pa, 0);
	port(t, a, pa)->p_remote_physp = port(t, a, pa);	/* held while b's port is found (a == b) */
	pb = free_port(t, b);
	port(t, a, pa)->p_remote_physp = NULL;
	assert_int_not_equal(pb, 0);
	link_ports(t, a, pa, b, pb);
}

/* --- the reference ---------------------------------------------------------- */

static uint16_t sw_lid(struct net *t, unsigned s)
{
	return cl_ntoh16(t->node[s]->physp_table[0].port_info.base_lid);
}

/* The switch at the other end of port @p of switch @s, or -1. */
static int peer(struct net *t, unsigned s, unsigned p)
{
	const osm_physp_t *r = port(t, s, p)->p_remote_physp;

	if (!r || !r->p_node->sw || r->p_node == t->node[s])
		return -1;
	for (unsigned i = 0; i < t->nsw; i++)
		if (t->node[i] == r->p_node)
			return (int)i;
	return -1;
}

#define REF(s, t_, p) ref[((size_t)(s) * t->nsw + (t_)) * ports + (p)]

static void ref_set(uint8_t *ref, struct net *t, size_t ports, unsigned s, unsigned tt, unsigned p, unsigned h)
{
	REF(s, tt, p) = (uint8_t)h;
	if (REF(s, tt, 0) > h)
		REF(s, tt, 0) = (uint8_t)h;
}

/* OpenSM's matrices for switch LIDs, by switch index: [s][t][port]. */
static uint8_t *reference(struct net *t, size_t ports)
{
	uint8_t *ref = malloc((size_t)t->nsw * t->nsw * ports);
	bool changed = true;

	assert_non_null(ref);
	memset(ref, NONE, (size_t)t->nsw * t->nsw * ports);
	for (unsigned s = 0; s < t->nsw; s++) {
		ref_set(ref, t, ports, s, s, 0, 0);
		for (unsigned p = 1; p < t->node[s]->physp_tbl_size; p++)
			if (peer(t, s, p) >= 0)
				ref_set(ref, t, ports, s, (unsigned)peer(t, s, p), p, 1);
	}
	while (changed) {
		changed = false;
		for (unsigned s = 0; s < t->nsw; s++)
			for (unsigned p = 1; p < t->node[s]->physp_tbl_size; p++) {
				int r = peer(t, s, p);

				if (r < 0 || !osm_link_is_healthy(port(t, s, p)))
					continue;
				for (unsigned tt = 0; tt < t->nsw; tt++) {
					unsigned h = REF((unsigned)r, tt, 0);

					if (h != NONE && h + 1 < REF(s, tt, p)) {
						ref_set(ref, t, ports, s, tt, p, h + 1);
						changed = true;
					}
				}
			}
	}
	return ref;
}

/* fosm_hops_fill() gives the reference for every switch LID it may store; other rows are left alone. */
static void check(struct net *t, const char *what)
{
	size_t ports = 0;
	uint8_t *ref;

	for (unsigned s = 0; s < t->nsw; s++)
		if (t->node[s]->physp_tbl_size > ports)
			ports = t->node[s]->physp_tbl_size;
	ref = reference(t, ports);
	assert_int_equal(fosm_hops_fill(&t->f), 0);
	for (unsigned s = 0; s < t->nsw; s++) {
		osm_switch_t *sw = t->node[s]->sw;

		for (unsigned tt = 0; tt < t->nsw; tt++) {
			uint16_t lid = sw_lid(t, tt);
			bool stored = lid && lid <= sw->max_lid_ho;
			const uint8_t *row = stored ? sw->hops[lid] : NULL;

			if (stored && !row)
				fail_msg("%s: switch %u has no row for switch %u (LID %u)", what, s, tt, lid);
			for (unsigned p = 0; row && p < sw->num_ports; p++)
				if (row[p] != REF(s, tt, p))
					fail_msg("%s: switch %u, LID %u (switch %u), port %u: %u hops, expected %u", what,
						 s, lid, tt, p, row[p], REF(s, tt, p));
		}
		for (unsigned p = 1; p < sw->num_ports; p++)
			assert_int_equal(port(t, s, p)->hop_wf, 1);
		for (unsigned i = t->nsw; i < t->n; i++)	/* CA LIDs have no rows */
			assert_null(sw->hops[cl_ntoh16(t->node[i]->physp_table[1].port_info.base_lid)]);
	}
	free(ref);
}

/* --- the subnets --------------------------------------------------------------- */

/* A 2-level tree: @leaves leaves of @k down and @k up ports, @k spines of @leaves ports; CAs on the first leaves. */
static struct net *two_level(unsigned leaves, unsigned k, unsigned cas)
{
	unsigned ports = leaves > 2 * k ? leaves : 2 * k;
	struct net *t = net_new(leaves + k, ports, cas);

	for (unsigned l = 0; l < leaves; l++)
		for (unsigned s = 0; s < k; s++)
			link_ports(t, l, k + 1 + s, leaves + s, 1 + l);
	for (unsigned c = 0; c < cas; c++)
		link_ports(t, (c / k) % leaves, 1 + c % k, t->nsw + c, 1);
	return t;
}

/* A k-ary 3-tree: k^2 leaves and k^2 middle switches (in k pods), k^2 roots; 2k ports each. */
static struct net *kary3(unsigned k)
{
	unsigned n = k * k;
	struct net *t = net_new(3 * n, 2 * k, n);

	for (unsigned pod = 0; pod < k; pod++)
		for (unsigned a = 0; a < k; a++)
			for (unsigned b = 0; b < k; b++) {
				unsigned leaf = pod * k + a, mid = n + pod * k + b, root = 2 * n + b * k + a;

				link_ports(t, leaf, k + 1 + b, mid, 1 + a);
				link_ports(t, mid, k + 1 + a, root, 1 + pod);
			}
	for (unsigned c = 0; c < n; c++)
		link_ports(t, c, 1, 3 * n + c, 1);
	return t;
}

static void test_trees(void **state)
{
	struct net *t = two_level(6, 3, 10);

	(void)state;
	check(t, "2-level tree");
	net_free(t);
	t = kary3(4);
	check(t, "4-ary 3-tree");
	/* a degraded tree: links gone, some unhealthy at one end or both */
	port(t, 0, 5)->p_remote_physp->p_remote_physp = NULL;
	port(t, 0, 5)->p_remote_physp = NULL;
	port(t, 17, 6)->healthy = FALSE;
	port(t, 20, 1)->healthy = FALSE;
	port(t, 20, 1)->p_remote_physp->healthy = FALSE;
	port(t, 40, 2)->healthy = FALSE;
	check(t, "4-ary 3-tree, degraded");
	net_free(t);
}

/* Random graphs: random links between switches (parallel ones and loops included), CAs, unhealthy ports. */
static void test_random(void **state)
{
	(void)state;
	srand(7);
	for (unsigned round = 0; round < 12; round++) {
		unsigned nsw = 5 + (unsigned)rand() % 40, ports = 3 + (unsigned)rand() % 6;
		unsigned nca = (unsigned)rand() % 10, nlinks = nsw * ports / 3;
		struct net *t = net_new(nsw, ports, nca);
		char what[64];

		for (unsigned c = 0; c < nca; c++) {
			unsigned s = (unsigned)rand() % nsw;

			if (free_port(t, s))
				link_free(t, s, nsw + c);
		}
		for (unsigned l = 0; l < nlinks; l++) {
			unsigned a = (unsigned)rand() % nsw, b = (unsigned)rand() % nsw;

			if (free_port(t, a) && free_port(t, b) && (a != b || free_ports(t, a) >= 2))
				link_free(t, a, b);
		}
		for (unsigned s = 0; s < nsw; s++)
			for (unsigned p = 1; p <= ports; p++)
				if (rand() % 8 == 0)
					port(t, s, p)->healthy = FALSE;
		snprintf(what, sizeof(what), "random graph %u (%u switches)", round, nsw);
		check(t, what);
		check(t, what);	/* again, over the rows of the first fill */
		net_free(t);
	}
}

/* A chain of 300 switches: nothing 255 hops or more away is stored. */
static void test_long_chain(void **state)
{
	struct net *t = net_new(300, 2, 0);

	(void)state;
	for (unsigned s = 0; s + 1 < 300; s++)
		link_ports(t, s, 2, s + 1, 1);
	check(t, "chain of 300");
	assert_int_equal(t->node[0]->sw->hops[sw_lid(t, 254)][0], 254);
	assert_int_equal(t->node[0]->sw->hops[sw_lid(t, 255)][0], NONE);
	assert_int_equal(t->node[0]->sw->hops[sw_lid(t, 254)][2], 254);
	assert_int_equal(t->node[0]->sw->hops[sw_lid(t, 255)][2], NONE);
	net_free(t);
}

/* A switch without a LID, one past max_lid_ho; rows from an earlier pass; clearing. */
static void test_lids_and_leftovers(void **state)
{
	struct net *t = two_level(4, 2, 4);
	osm_switch_t *sw0 = t->node[0]->sw;
	uint16_t lid5 = sw_lid(t, 5);

	(void)state;
	t->node[1]->physp_table[0].port_info.base_lid = 0;
	for (unsigned s = 0; s < t->nsw; s++)
		t->node[s]->sw->max_lid_ho = (uint16_t)(lid5 - 1);	/* switch 5 (a spine) is out of range */
	for (unsigned s = 0; s < t->nsw; s++) {	/* leftovers of an earlier pass */
		uint16_t l = sw_lid(t, s);

		sw0->hops[l] = malloc(sw0->num_ports);
		assert_non_null(sw0->hops[l]);
		memset(sw0->hops[l], 3, sw0->num_ports);
	}
	check(t, "a switch without a LID, one past max_lid_ho");
	assert_int_equal(sw0->hops[lid5][1], 3);	/* OpenSM stores nothing there: left as it was */
	assert_int_equal(sw0->hops[sw_lid(t, 0)][0], 0);
	fosm_hops_clear(&t->f);
	for (unsigned s = 0; s < t->nsw; s++)
		for (unsigned l = 0; l < t->node[s]->sw->num_hops; l++)
			for (unsigned p = 0; t->node[s]->sw->hops[l] && p < t->node[s]->sw->num_ports; p++)
				assert_int_equal(t->node[s]->sw->hops[l][p], NONE);
	net_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trees),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_long_chain),
		cmocka_unit_test(test_lids_and_leftovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
