/* SPDX-License-Identifier: MIT */
/**
 * DOC: the subnet out, the LFTs in
 *
 * Both run inside the routing pass, with osm->lock held, so OpenSM's tables
 * cannot change underneath.
 *
 * Out: the records of doc/osm-protocol.md, written straight into one
 * buffer. Every node of node_guid_tbl, in the table's order, is a node
 * index; every valid physical port (a switch's port 0 included) is a port
 * record, and every p_remote_physp pair is a link, written once from its
 * lower (node, port) end. Links are not filtered on PortState: during the first
 * sweep OpenSM routes while the links are still INIT, and it routes over
 * every p_remote_physp itself. A LID belongs to CA and router ports and to
 * a switch's port 0; a switch's external ports carry LID 0.
 *
 * In: the answer is checked whole before the first new_lft byte changes,
 * so a bad answer leaves the tables as OpenSM prepared them for the next
 * engine. The LFT section of the payload comes first, one table of lft_len
 * bytes per switch in the order of the header's "lfts"; the SL2VL and
 * path-SL sections after it are plugin_vl.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opensm/plugin.h"

/* ------------------------------------------------------------ subnet out */

/* Nodes by address, to find a node's index from a remote port. */
struct node_ix {
	const osm_node_t *node;
	uint32_t ix;
};

static int node_ix_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct node_ix *)a)->node;
	uintptr_t y = (uintptr_t)((const struct node_ix *)b)->node;

	return x < y ? -1 : x > y;
}

static long node_index(const struct node_ix *tab, size_t n, const osm_node_t *node)
{
	struct node_ix key = { .node = node };
	const struct node_ix *hit = bsearch(&key, tab, n, sizeof(*tab), node_ix_cmp);

	return hit ? (long)hit->ix : -1;
}

static uint8_t node_type_code(uint8_t type)
{
	switch (type) {
	case IB_NODE_TYPE_SWITCH:
		return OSMP_NODE_SW;
	case IB_NODE_TYPE_ROUTER:
		return OSMP_NODE_RT;
	default:
		return OSMP_NODE_CA;
	}
}

/* A node record; NodeDescription's bytes up to its first NUL, unprintable ones as '?'. */
static void put_node(uint8_t *r, const osm_node_t *node)
{
	memset(r, 0, OSMP_NODE_REC);
	osmp_put64(r, cl_ntoh64(osm_node_get_node_guid(node)));
	osmp_put64(r + 8, cl_ntoh64(node->node_info.sys_guid));
	osmp_put32(r + 16, cl_ntoh32(ib_node_info_get_vendor_id(&node->node_info)));
	osmp_put16(r + 20, cl_ntoh16(node->node_info.device_id));
	r[22] = node_type_code(osm_node_get_type(node));
	r[23] = node->node_info.num_ports;
	for (size_t i = 0; i < OSMP_DESC_LEN && node->node_desc.description[i]; i++) {
		uint8_t c = node->node_desc.description[i];

		r[24 + i] = c >= 0x20 && c < 0x7f ? c : '?';
	}
}

/*
 * Active speed in fabroute's encoding (1 SDR .. 128 NDR, 0 unknown), the
 * way OpenSM reads it (osm_link_is_throttled): LinkSpeedExtActive when the
 * port (a switch's port 0 for all its ports) has the extended speeds
 * capability, then FDR10 from Mellanox ExtendedPortInfo when the subnet
 * enables it, then LinkSpeedActive.
 */
static int port_speed(const osm_physp_t *p, const osm_physp_t *cap, bool fdr10)
{
	if (cap->port_info.capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS) {
		switch (ib_port_info_get_link_speed_ext_active(&p->port_info)) {
		case IB_LINK_SPEED_EXT_ACTIVE_14:
			return 16;
		case IB_LINK_SPEED_EXT_ACTIVE_25:
			return 32;
		case IB_LINK_SPEED_EXT_ACTIVE_50:
			return 64;
		case 8:	/* 100G: NDR, newer than OpenSM 3.3.23's names */
			return 128;
		}
	}
	if (fdr10 && (p->ext_port_info.link_speed_active & FDR10))
		return 8;
	switch (ib_port_info_get_link_speed_active(&p->port_info)) {
	case IB_LINK_SPEED_ACTIVE_2_5:
		return 1;
	case IB_LINK_SPEED_ACTIVE_5:
		return 2;
	case IB_LINK_SPEED_ACTIVE_10:
		return 4;
	}
	return 0;
}

unsigned fosm_vls_count(unsigned enc)
{
	static const unsigned count[] = { 1, 1, 2, 4, 8, 15 };

	return enc < sizeof(count) / sizeof(count[0]) ? count[enc] : 1;
}

/* As OpenSM sets OperVLs on a link (osm_physp_calc_link_op_vls()). */
unsigned fosm_link_vls(const osm_subn_t *subn, const osm_physp_t *p)
{
	const osm_physp_t *r = p->p_remote_physp;
	unsigned v = ib_port_info_get_vl_cap(&p->port_info);

	if (r && ib_port_info_get_vl_cap(&r->port_info) < v)
		v = ib_port_info_get_vl_cap(&r->port_info);
	if (!r)
		v = ib_port_info_get_op_vls(&p->port_info);
	if (!v)
		v = 1;
	if (v > subn->opt.max_op_vls)
		v = subn->opt.max_op_vls;
	return v;
}

/* A port record: [node, guid, lid, port, lmc, state, phys state, width, speed, vls]. */
static void put_port(uint8_t *r, const osm_subn_t *subn, uint32_t ix, const osm_physp_t *p, const osm_physp_t *cap,
		     bool own_lid)
{
	memset(r, 0, OSMP_PORT_REC);
	osmp_put32(r, ix);
	osmp_put64(r + 4, cl_ntoh64(p->port_guid));
	osmp_put16(r + 12, own_lid ? cl_ntoh16(osm_physp_get_base_lid(p)) : 0);
	r[14] = p->port_num;
	r[15] = own_lid ? osm_physp_get_lmc(p) : 0;
	r[16] = osm_physp_get_port_state(p);
	r[17] = ib_port_info_get_port_phys_state(&p->port_info);
	r[18] = p->port_info.link_width_active;
	r[19] = (uint8_t)port_speed(p, cap, subn->opt.fdr10 != 0);
	r[20] = (uint8_t)fosm_link_vls(subn, p);
}

/* The encoding under way: records written so far. */
struct enc {
	uint8_t *nodes, *ports, *links;
	size_t nnodes, nports, nlinks;
};

/* The ports of node @ix and the links that start at it. */
static void node_ports(const osm_subn_t *subn, struct enc *e, osm_node_t *node, uint32_t ix,
		       const struct node_ix *tab, size_t n)
{
	bool sw = osm_node_get_type(node) == IB_NODE_TYPE_SWITCH;
	const osm_physp_t *sp0 = sw ? osm_node_get_physp_ptr(node, 0) : NULL;

	for (uint32_t i = 0; i < osm_node_get_num_physp(node); i++) {
		const osm_physp_t *p = osm_node_get_physp_ptr(node, i);
		const osm_physp_t *r;
		long rix;
		uint8_t *l;

		if (!p)
			continue;
		put_port(e->ports + e->nports++ * OSMP_PORT_REC, subn, ix, p, sp0 ? sp0 : p, !sw || i == 0);
		r = p->p_remote_physp;
		if (!r || (rix = node_index(tab, n, r->p_node)) < 0)
			continue;
		if ((long)ix > rix || ((long)ix == rix && i > r->port_num))
			continue;	/* written from the other end */
		l = e->links + e->nlinks++ * OSMP_LINK_REC;
		memset(l, 0, OSMP_LINK_REC);
		osmp_put32(l, ix);
		osmp_put32(l + 4, (uint32_t)rix);
		l[8] = (uint8_t)i;
		l[9] = r->port_num;
	}
}

/* All nodes in node_guid_tbl order (@nodes) and by address (@tab); *@nports gets their valid ports. */
static int node_tables(osm_subn_t *subn, osm_node_t ***nodes, struct node_ix **tab, size_t *n, size_t *nports)
{
	cl_qmap_t *map = &subn->node_guid_tbl;
	size_t i = 0;

	*n = cl_qmap_count(map);
	*nports = 0;
	*nodes = calloc(*n ? *n : 1, sizeof(**nodes));
	*tab = calloc(*n ? *n : 1, sizeof(**tab));
	if (!*nodes || !*tab)
		return -1;
	for (cl_map_item_t *it = cl_qmap_head(map); it != cl_qmap_end(map) && i < *n; it = cl_qmap_next(it), i++) {
		osm_node_t *node = (osm_node_t *)it;

		(*nodes)[i] = node;
		(*tab)[i] = (struct node_ix){ .node = node, .ix = (uint32_t)i };
		for (uint32_t k = 0; k < osm_node_get_num_physp(node); k++)
			*nports += osm_node_get_physp_ptr(node, k) != NULL;
	}
	*n = i;
	qsort(*tab, *n, sizeof(**tab), node_ix_cmp);
	return 0;
}

int fosm_subnet_encode(struct fosm *f, json_t **subnet, uint8_t **buf, size_t *len)
{
	osm_subn_t *subn = &f->osm->subn;
	osm_node_t **list = NULL;
	struct node_ix *tab = NULL;
	struct enc e = { 0 };
	size_t n = 0, nports = 0;
	int rc = -1;

	*subnet = NULL;
	*buf = NULL;
	/* a link per port at most: the links are put after the ports, and the buffer cut to size */
	if (node_tables(subn, &list, &tab, &n, &nports) == 0 &&
	    (*buf = malloc(n * OSMP_NODE_REC + nports * (OSMP_PORT_REC + OSMP_LINK_REC) + 1))) {
		e.nodes = *buf;
		e.ports = e.nodes + n * OSMP_NODE_REC;
		e.links = e.ports + nports * OSMP_PORT_REC;
		for (size_t i = 0; i < n; i++) {
			put_node(e.nodes + i * OSMP_NODE_REC, list[i]);
			node_ports(subn, &e, list[i], (uint32_t)i, tab, n);
		}
		*len = n * OSMP_NODE_REC + e.nports * OSMP_PORT_REC + e.nlinks * OSMP_LINK_REC;
		*subnet = json_pack("{s:o, s:I, s:I, s:I}", "sm_port_guid", osmp_guid(cl_ntoh64(subn->sm_port_guid)),
				    "nodes", (json_int_t)n, "ports", (json_int_t)e.nports, "links", (json_int_t)e.nlinks);
		rc = *subnet ? 0 : -1;
	}
	free(list);
	free(tab);
	if (rc) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

/* --------------------------------------------------------------- LFTs in */

/* Switches by node GUID (host order), with a mark per answer entry. */
struct sw_tab {
	struct sw_ent {
		uint64_t guid;
		osm_switch_t *sw;
		const uint8_t *lft;
		bool seen;
	} *e;
	size_t n;
};

static int sw_ent_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct sw_ent *)a)->guid, y = ((const struct sw_ent *)b)->guid;

	return x < y ? -1 : x > y;
}

static int sw_tab_build(osm_subn_t *subn, struct sw_tab *t)
{
	cl_qmap_t *map = &subn->sw_guid_tbl;
	size_t i = 0;

	t->n = cl_qmap_count(map);
	t->e = calloc(t->n ? t->n : 1, sizeof(*t->e));
	if (!t->e)
		return -1;
	for (cl_map_item_t *it = cl_qmap_head(map); it != cl_qmap_end(map) && i < t->n; it = cl_qmap_next(it), i++) {
		osm_switch_t *sw = (osm_switch_t *)it;

		t->e[i] = (struct sw_ent){ .guid = cl_ntoh64(osm_node_get_node_guid(sw->p_node)), .sw = sw };
	}
	t->n = i;
	qsort(t->e, t->n, sizeof(*t->e), sw_ent_cmp);
	return 0;
}

static struct sw_ent *sw_find(struct sw_tab *t, uint64_t guid)
{
	struct sw_ent key = { .guid = guid };

	return bsearch(&key, t->e, t->n, sizeof(*t->e), sw_ent_cmp);
}

/*
 * The first LID of @lft (@len entries) sent to a port the switch does not
 * have (@nports counts port 0), or @len. 0xff (no route) + 1 wraps to 0,
 * so one maximum over the table (which the compiler vectorises) tells
 * whether to look further.
 */
static size_t lft_bad_lid(const uint8_t *lft, size_t len, unsigned nports)
{
	uint8_t top = 0;
	size_t lid;

	for (lid = 0; lid < len; lid++) {
		uint8_t v = (uint8_t)(lft[lid] + 1u);

		top = v > top ? v : top;
	}
	if (top <= nports)
		return len;
	for (lid = 0; lid < len && (uint8_t)(lft[lid] + 1u) <= nports; lid++)
		;
	return lid;
}

/* Pass 1: every GUID known, once, every switch listed; every port possible. */
static int lfts_check(struct sw_tab *t, const json_t *lfts, const uint8_t *sec, size_t len, char *err,
		      size_t errlen)
{
	size_t i, lid;
	json_t *g;

	json_array_foreach(lfts, i, g) {
		const uint8_t *lft = sec + i * len;
		struct sw_ent *s;
		uint64_t guid;

		if (osmp_guid_parse(g, &guid)) {
			snprintf(err, errlen, "malformed routing: lfts[%zu] is not a GUID", i);
			return -1;
		}
		s = sw_find(t, guid);
		if (!s) {
			snprintf(err, errlen, "malformed routing: tables for switch 0x%016" PRIx64
				 ", which OpenSM does not know", guid);
			return -1;
		}
		if (s->seen) {
			snprintf(err, errlen, "malformed routing: switch 0x%016" PRIx64 " twice", s->guid);
			return -1;
		}
		s->seen = true;
		s->lft = lft;
		lid = lft_bad_lid(lft, len, s->sw->num_ports);
		if (lid < len) {
			snprintf(err, errlen, "malformed routing: switch 0x%016" PRIx64 " sends LID %zu "
				 "to port %u of %u", s->guid, lid, lft[lid], s->sw->num_ports - 1u);
			return -1;
		}
	}
	for (i = 0; i < t->n; i++)
		if (!t->e[i].seen) {
			snprintf(err, errlen, "fabrouted sent no tables for switch 0x%016" PRIx64 " (%s)",
				 t->e[i].guid, t->e[i].sw->p_node->print_desc ? t->e[i].sw->p_node->print_desc : "");
			return -1;
		}
	return 0;
}

/* Pass 2: copy into new_lft; LIDs past the answer have no route. */
static void lfts_fill(struct sw_tab *t, size_t len)
{
	for (size_t i = 0; i < t->n; i++) {
		osm_switch_t *sw = t->e[i].sw;
		size_t top = (size_t)sw->max_lid_ho + 1, n;

		if (top > sw->lft_size)
			top = sw->lft_size;
		n = len < top ? len : top;
		memcpy(sw->new_lft, t->e[i].lft, n);
		memset(sw->new_lft + n, OSM_NO_PATH, top - n);
	}
}

/* The header's lft_len and lfts, checked against the payload; -1 with @err. */
static int lft_header(const json_t *answer, const struct osmp_rx *rx, const json_t **lfts, size_t *len,
		      char *err, size_t errlen)
{
	const json_t *jlen = json_object_get(answer, "lft_len");
	json_int_t l = json_is_integer(jlen) ? json_integer_value(jlen) : -1;

	*lfts = json_object_get(answer, "lfts");
	if (!json_is_array(*lfts) || l < 1 || l > IB_LID_UCAST_END_HO + 1) {
		snprintf(err, errlen, "malformed routing: %s", json_is_array(*lfts) ?
			 "lft_len is not 1 to 49152" : "no lfts array");
		return -1;
	}
	*len = (size_t)l;
	if (rx->len / *len < json_array_size(*lfts)) {
		snprintf(err, errlen, "malformed routing: a payload of %zu bytes cannot hold %zu LFTs of %zu bytes",
			 rx->len, json_array_size(*lfts), *len);
		return -1;
	}
	return 0;
}

long fosm_apply_routing(struct fosm *f, const json_t *answer, struct osmp_rx *rx, struct fosm_vl **vl_out,
			char *err, size_t errlen)
{
	const json_t *lfts;
	struct sw_tab t = { 0 };
	size_t len, lft_bytes;
	long rc = -1;

	*vl_out = NULL;
	if (lft_header(answer, rx, &lfts, &len, err, errlen))
		return -1;
	lft_bytes = json_array_size(lfts) * len;
	if (sw_tab_build(&f->osm->subn, &t))
		snprintf(err, errlen, "out of memory for the routing");
	else if (!lfts_check(&t, lfts, rx->payload, len, err, errlen) &&
		 !fosm_vl_build(f, answer, rx->payload + lft_bytes, rx->len - lft_bytes, len, vl_out, err, errlen)) {
		lfts_fill(&t, len);
		rc = (long)t.n;
	}
	free(t.e);
	return rc;
}
