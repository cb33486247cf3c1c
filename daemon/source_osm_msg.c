/* SPDX-License-Identifier: MIT */
/**
 * DOC: OpenSM source: the subnet in, the routing out
 *
 * A "route" message's subnet becomes a fabric with OpenSM's LIDs; a
 * node's VL capacity (fab_node.vl_cap, what the default SL2VL mapping
 * "VL = SL mod vl_cap" uses) is the fewest data VLs any of its linked
 * ports will run, as the plugin reports them, so that both sides agree on
 * what "default" means.
 *
 * The answer is a "routing" header and a binary payload of three sections
 * (doc/osm-protocol.md): every switch's LFT, the SL2VL tables that differ
 * from the default mapping, and the path SLs of the sources that use an SL
 * other than 0. A routing on SL 0 with default SL2VL tables costs only its
 * LFTs. The LFT section is sent from the routing's own buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/source_osm.h"
#include "opensm/proto.h"

/* --- the subnet ------------------------------------------------------------ */

#define PORT_COLS 10

static int int_at(const json_t *a, size_t i, long long min, long long max, long long *out)
{
	const json_t *v = json_array_get(a, i);

	*out = json_integer_value(v);
	return json_is_integer(v) && *out >= min && *out <= max ? 0 : -1;
}

static int add_nodes(struct fabric *f, const json_t *nodes, struct fab_err *err)
{
	static const char *const types[] = { [FAB_CA] = "CA", [FAB_SWITCH] = "SW", [FAB_ROUTER] = "RT" };
	size_t i;
	json_t *n;

	if (!json_is_array(nodes) || !json_array_size(nodes)) {
		fab_err_set(err, "subnet.nodes: expected a non-empty array");
		return -1;
	}
	json_array_foreach(nodes, i, n) {
		struct fab_node_info in = { 0 };
		const char *t = json_string_value(json_object_get(n, "type"));
		json_int_t ports = json_integer_value(json_object_get(n, "ports"));

		for (unsigned k = FAB_CA; t && k <= FAB_ROUTER; k++)
			if (strcmp(t, types[k]) == 0)
				in.type = (enum fab_node_type)k;
		if (!in.type || osmp_guid_parse(json_object_get(n, "guid"), &in.guid) ||
		    ports < 1 || ports > FAB_PORTS_MAX) {
			fab_err_set(err, "subnet.nodes[%zu]: expected a type (SW, CA, RT), a guid and 1..%u ports",
				    i, FAB_PORTS_MAX);
			return -1;
		}
		in.nports = (unsigned)ports;
		in.desc = json_string_value(json_object_get(n, "desc"));
		osmp_guid_parse(json_object_get(n, "sysimg"), &in.sysimg_guid);
		in.vendor_id = (uint32_t)json_integer_value(json_object_get(n, "vendor"));
		in.device_id = (uint16_t)json_integer_value(json_object_get(n, "device"));
		if (fab_node_add(f, &in, err) != i)
			return -1;
	}
	return 0;
}

/* [node, port, guid, lid, lmc, state, phys, width, speed, vls]; @vls gets the port's VL encoding. */
static int set_port(struct fabric *f, const json_t *a, size_t i, uint8_t *vls, struct fab_err *err)
{
	long long v[PORT_COLS];
	uint64_t guid;
	struct fab_port *p;

	if (!json_is_array(a) || json_array_size(a) != PORT_COLS || int_at(a, 0, 0, f->nnodes - 1, &v[0]) ||
	    int_at(a, 1, 0, f->nodes[v[0]].nports, &v[1]) || osmp_guid_parse(json_array_get(a, 2), &guid) ||
	    int_at(a, 3, 0, FAB_LID_UCAST_MAX, &v[3]) || int_at(a, 4, 0, FAB_LMC_MAX, &v[4]) ||
	    int_at(a, 5, 0, 15, &v[5]) || int_at(a, 6, 0, 15, &v[6]) || int_at(a, 7, 0, 255, &v[7]) ||
	    int_at(a, 8, 0, 255, &v[8]) || int_at(a, 9, 0, 15, &v[9])) {
		fab_err_set(err, "subnet.ports[%zu]: expected [node, port, guid, lid, lmc, state, phys, "
			    "width, speed, vls] within range", i);
		return -1;
	}
	if (f->nodes[v[0]].type != FAB_SWITCH && v[1] > 0)
		fab_port_set_guid(f, (uint32_t)v[0], (unsigned)v[1], guid);
	p = fab_port(f, (uint32_t)v[0], (unsigned)v[1]);
	p->lid = (uint16_t)v[3];
	p->lmc = (uint8_t)v[4];
	p->state = (uint8_t)v[5];
	p->phys = (uint8_t)v[6];
	p->width = (uint8_t)v[7];
	p->speed = (uint8_t)v[8];
	vls[p - f->ports] = (uint8_t)v[9];
	return 0;
}

static int add_links(struct fabric *f, const json_t *links, struct fab_err *err)
{
	size_t i;
	json_t *a;

	json_array_foreach(links, i, a) {
		long long v[4];

		if (!json_is_array(a) || json_array_size(a) != 4 || int_at(a, 0, 0, f->nnodes - 1, &v[0]) ||
		    int_at(a, 1, 1, f->nodes[v[0]].nports, &v[1]) || int_at(a, 2, 0, f->nnodes - 1, &v[2]) ||
		    int_at(a, 3, 1, f->nodes[v[2]].nports, &v[3])) {
			fab_err_set(err, "subnet.links[%zu]: expected [node, port, node, port] within range", i);
			return -1;
		}
		if (fab_link_add(f, (uint32_t)v[0], (unsigned)v[1], (uint32_t)v[2], (unsigned)v[3], err))
			return -1;
	}
	return 0;
}

unsigned srco_vls_count(unsigned enc)
{
	static const unsigned count[] = { 1, 1, 2, 4, 8, 15 };

	return enc < sizeof(count) / sizeof(count[0]) ? count[enc] : 1;
}

/* Each node's vl_cap: the fewest data VLs of its linked ports (1 when none is linked). */
static void set_vl_caps(struct fabric *f, const uint8_t *vls)
{
	for (uint32_t n = 0; n < f->nnodes; n++) {
		unsigned cap = 0;

		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			unsigned c = srco_vls_count(vls[f->nodes[n].port0 + p]);

			if (fab_port_linked(f, n, p) && (!cap || c < cap))
				cap = c;
		}
		f->nodes[n].vl_cap = (uint8_t)(cap ? cap : 1);
	}
}

static void set_sm(struct fabric *f, const json_t *subnet)
{
	uint64_t sm = 0;
	uint32_t ep;

	if (osmp_guid_parse(json_object_get(subnet, "sm_port_guid"), &sm) == 0 &&
	    (ep = fab_ep_by_port_guid(f, sm)) != FAB_NONE) {
		f->sm_node = f->eps[ep].node;
		f->sm_port = f->eps[ep].port;
	}
}

struct fabric *srco_subnet_fabric(const json_t *subnet, struct fab_err *err)
{
	struct fabric *f = fab_new();
	const json_t *ports = json_object_get(subnet, "ports"), *links = json_object_get(subnet, "links");
	uint8_t *vls = NULL;
	size_t i;
	json_t *a;

	if (!f) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	if (!json_is_object(subnet) || !json_is_array(ports) || !json_is_array(links)) {
		fab_err_set(err, "subnet: expected an object with nodes, ports and links arrays");
		goto fail;
	}
	if (add_nodes(f, json_object_get(subnet, "nodes"), err))
		goto fail;
	vls = calloc((size_t)f->nports + 1, 1);
	if (!vls) {
		fab_err_set(err, "out of memory");
		goto fail;
	}
	json_array_foreach(ports, i, a)
		if (set_port(f, a, i, vls, err))
			goto fail;
	if (add_links(f, links, err))
		goto fail;
	set_vl_caps(f, vls);
	if (fab_finalize(f, err))
		goto fail;
	set_sm(f, subnet);
	free(vls);
	return f;
fail:
	free(vls);
	fab_free(f);
	return NULL;
}

/* --- the routing ----------------------------------------------------------- */

/* Switch @sw's SL2VL table maps some (in, out, SL) away from the default. */
static int sl2vl_differs(const struct fabric *f, const struct rt_routing *r, uint32_t sw)
{
	unsigned dim = f->nodes[f->switches[sw]].nports + 1u, vls = f->nodes[f->switches[sw]].vl_cap;
	const uint8_t *t = r->sl2vl[sw];

	for (size_t i = 0; t && i < (size_t)dim * dim; i++)
		for (unsigned sl = 0; sl < RT_SLS; sl++)
			if (t[i * RT_SLS + sl] != (vls ? sl % vls : 0))
				return 1;
	return 0;
}

/* Source endpoint @src uses an SL other than 0 towards some endpoint. */
static int uses_sl(const struct rt_routing *r, uint32_t src)
{
	const uint8_t *row = r->path_sl ? r->path_sl + (size_t)src * r->neps : NULL;

	for (uint32_t d = 0; row && d < r->neps; d++)
		if (row[d] % RT_SLS)
			return 1;
	return 0;
}

/* Append the SL2VL section: the GUIDs to @guids, the tables to @buf at *@off. */
static void put_sl2vl(const struct fabric *f, const struct rt_routing *r, json_t *guids, uint8_t *buf,
		      size_t *off)
{
	for (uint32_t sw = 0; sw < f->nswitches; sw++) {
		unsigned dim = f->nodes[f->switches[sw]].nports + 1u;
		size_t n = (size_t)dim * dim * RT_SLS;

		if (!sl2vl_differs(f, r, sw))
			continue;
		json_array_append_new(guids, osmp_guid(f->nodes[f->switches[sw]].guid));
		memset(buf + *off, 0, n / 2);
		for (size_t i = 0; i < n; i++)
			osmp_set_nibble(buf + *off, i, r->sl2vl[sw][i]);
		*off += n / 2;
	}
}

/* Append the path-SL section: one row of SLs by DLID per source that uses SLs. */
static void put_path_sl(const struct fabric *f, const struct rt_routing *r, json_t *guids, uint8_t *buf,
			size_t *off)
{
	size_t row = ((size_t)r->lft_len + 1) / 2;

	for (uint32_t s = 0; s < f->neps; s++) {
		uint8_t *b = buf + *off;

		if (!uses_sl(r, s))
			continue;
		json_array_append_new(guids, osmp_guid(fab_port(f, f->eps[s].node, f->eps[s].port)->guid));
		memset(b, 0, row);
		for (uint32_t d = 0; d < f->neps; d++) {
			unsigned base = fab_ep_lid(f, d), nlids = 1u << fab_ep_lmc(f, d);

			for (unsigned l = base; base && d != s && l < base + nlids && l < r->lft_len; l++)
				osmp_set_nibble(b, l, rt_path_sl(r, s, d) % RT_SLS);
		}
		*off += row;
	}
}

/* Bytes the SL2VL and path-SL sections take. */
static size_t extra_size(const struct fabric *f, const struct rt_routing *r)
{
	size_t n = 0;

	for (uint32_t sw = 0; sw < f->nswitches; sw++)
		if (sl2vl_differs(f, r, sw)) {
			size_t dim = f->nodes[f->switches[sw]].nports + 1u;

			n += dim * dim * RT_SLS / 2;
		}
	for (uint32_t s = 0; s < f->neps; s++)
		if (uses_sl(r, s))
			n += ((size_t)r->lft_len + 1) / 2;
	return n;
}

void srco_answer_free(struct srco_answer *a)
{
	json_decref(a->msg);
	free(a->extra);
	epoch_unref(a->epoch);
	*a = (struct srco_answer){ 0 };
}

int srco_routing_answer(struct epoch *e, const json_t *id, struct srco_answer *a, struct fab_err *err)
{
	const struct fabric *f = e->fabric;
	const struct rt_routing *r = e->routing;
	json_t *lfts = json_array(), *sl2vl = json_array(), *psl = json_array();
	size_t extra = extra_size(f, r), off = 0;

	*a = (struct srco_answer){ .epoch = epoch_ref(e) };
	a->extra = malloc(extra + 1);
	for (uint32_t sw = 0; lfts && sw < f->nswitches; sw++)
		json_array_append_new(lfts, osmp_guid(f->nodes[f->switches[sw]].guid));
	if (a->extra && sl2vl && psl) {
		put_sl2vl(f, r, sl2vl, a->extra, &off);
		put_path_sl(f, r, psl, a->extra, &off);
	}
	a->msg = json_pack("{s:s, s:O?, s:I, s:s, s:I, s:o*, s:o*, s:o*}", "type", "routing", "id", id,
			   "epoch", (json_int_t)e->seq, "engine", e->engine, "lft_len", (json_int_t)r->lft_len,
			   "lfts", lfts, "sl2vl", sl2vl, "path_sl", psl);
	if (!a->msg || !a->extra || !lfts || !sl2vl || !psl) {
		fab_err_set(err, "out of memory for the answer");
		srco_answer_free(a);
		return -1;
	}
	a->iov[0] = (struct iovec){ .iov_base = r->lft, .iov_len = (size_t)r->nswitches * r->lft_len };
	a->iov[1] = (struct iovec){ .iov_base = a->extra, .iov_len = extra };
	a->niov = 2;
	return 0;
}
