/* SPDX-License-Identifier: MIT */
/**
 * DOC: OpenSM source: the subnet in, the routing out
 *
 * A "route" message's subnet, node, port and link records in its payload
 * (doc/osm-protocol.md), becomes a fabric with OpenSM's LIDs; a
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

/* The subnet's record counts, checked against the payload's length. */
struct counts {
	size_t nodes, ports, links;
};

static int get_count(const json_t *subnet, const char *key, size_t *out)
{
	const json_t *v = json_object_get(subnet, key);

	*out = (size_t)json_integer_value(v);
	return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= OSMP_PAYLOAD_MAX ? 0 : -1;
}

static int subnet_counts(const json_t *subnet, size_t len, struct counts *c, struct fab_err *err)
{
	if (!json_is_object(subnet) || get_count(subnet, "nodes", &c->nodes) || get_count(subnet, "ports", &c->ports) ||
	    get_count(subnet, "links", &c->links) || !c->nodes) {
		fab_err_set(err, "subnet: expected an object with the number of nodes (at least 1), ports and links");
		return -1;
	}
	if (len != c->nodes * OSMP_NODE_REC + c->ports * OSMP_PORT_REC + c->links * OSMP_LINK_REC) {
		fab_err_set(err, "subnet: a payload of %zu bytes, but %zu nodes, %zu ports and %zu links take %zu",
			    len, c->nodes, c->ports, c->links,
			    c->nodes * OSMP_NODE_REC + c->ports * OSMP_PORT_REC + c->links * OSMP_LINK_REC);
		return -1;
	}
	return 0;
}

/* NodeDescription: up to its first NUL; bytes outside printable ASCII become '?'. */
static void desc_text(const uint8_t *r, char out[OSMP_DESC_LEN + 1])
{
	size_t i;

	for (i = 0; i < OSMP_DESC_LEN && r[i]; i++)
		out[i] = r[i] >= 0x20 && r[i] < 0x7f ? (char)r[i] : '?';
	out[i] = '\0';
}

static int add_nodes(struct fabric *f, const uint8_t *rec, size_t n, struct fab_err *err)
{
	static const enum fab_node_type types[] = { [OSMP_NODE_CA] = FAB_CA, [OSMP_NODE_SW] = FAB_SWITCH,
						    [OSMP_NODE_RT] = FAB_ROUTER };

	for (size_t i = 0; i < n; i++, rec += OSMP_NODE_REC) {
		char desc[OSMP_DESC_LEN + 1];
		struct fab_node_info in = {
			.guid = osmp_get64(rec), .sysimg_guid = osmp_get64(rec + 8), .vendor_id = osmp_get32(rec + 16),
			.device_id = osmp_get16(rec + 20), .nports = rec[23], .desc = desc,
		};

		if (rec[22] < OSMP_NODE_CA || rec[22] > OSMP_NODE_RT || !in.nports || in.nports > FAB_PORTS_MAX) {
			fab_err_set(err, "subnet.nodes[%zu]: expected a type (1 CA, 2 switch, 3 router) and 1..%u ports, "
				    "found type %u and %u ports", i, FAB_PORTS_MAX, rec[22], rec[23]);
			return -1;
		}
		in.type = types[rec[22]];
		desc_text(rec + 24, desc);
		if (fab_node_add(f, &in, err) != i)
			return -1;
	}
	return 0;
}

/* Port record @i [node, guid, lid, port, lmc, state, phys, width, speed, vls]; @vls gets the port's VLs. */
static int set_port(struct fabric *f, const uint8_t *r, size_t i, uint8_t *vls, struct fab_err *err)
{
	uint32_t node = osmp_get32(r);
	unsigned port = r[14];
	uint16_t lid = osmp_get16(r + 12);
	struct fab_port *p;

	if (node >= f->nnodes || port > f->nodes[node].nports || lid > FAB_LID_UCAST_MAX || r[15] > FAB_LMC_MAX ||
	    r[16] > 15 || r[17] > 15 || r[20] > 15) {
		fab_err_set(err, "subnet.ports[%zu]: expected [node, guid, lid, port, lmc, state, phys, width, speed, "
			    "vls] within range", i);
		return -1;
	}
	if (f->nodes[node].type != FAB_SWITCH && port > 0)
		fab_port_set_guid(f, node, port, osmp_get64(r + 4));
	p = fab_port(f, node, port);
	p->lid = lid;
	p->lmc = r[15];
	p->state = r[16];
	p->phys = r[17];
	p->width = r[18];
	p->speed = r[19];
	vls[p - f->ports] = r[20];
	return 0;
}

static int add_links(struct fabric *f, const uint8_t *r, size_t n, struct fab_err *err)
{
	for (size_t i = 0; i < n; i++, r += OSMP_LINK_REC) {
		uint32_t a = osmp_get32(r), b = osmp_get32(r + 4);

		if (a >= f->nnodes || b >= f->nnodes || !r[8] || r[8] > f->nodes[a].nports || !r[9] ||
		    r[9] > f->nodes[b].nports) {
			fab_err_set(err, "subnet.links[%zu]: expected [node, node, port, port] within range", i);
			return -1;
		}
		if (fab_link_add(f, a, r[8], b, r[9], err))
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

struct fabric *srco_subnet_fabric(const json_t *subnet, const uint8_t *pay, size_t len, struct fab_err *err)
{
	struct fabric *f = fab_new();
	const uint8_t *ports, *links;
	struct counts c;
	uint8_t *vls = NULL;

	if (!f) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	if (subnet_counts(subnet, len, &c, err) || add_nodes(f, pay, c.nodes, err))
		goto fail;
	vls = calloc((size_t)f->nports + 1, 1);
	if (!vls) {
		fab_err_set(err, "out of memory");
		goto fail;
	}
	ports = pay + c.nodes * OSMP_NODE_REC;
	links = ports + c.ports * OSMP_PORT_REC;
	for (size_t i = 0; i < c.ports; i++)
		if (set_port(f, ports + i * OSMP_PORT_REC, i, vls, err))
			goto fail;
	if (add_links(f, links, c.links, err))
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

		if (!rt_sl2vl_custom(r, f, sw))
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
		if (rt_sl2vl_custom(r, f, sw)) {
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
	free(a->iov);
	free(a->extra);
	epoch_unref(a->epoch);
	*a = (struct srco_answer){ 0 };
}

/* @r's rows as parts of a payload, rows that follow each other in memory in one; @extra last. */
static struct iovec *rows_iov(const struct rt_routing *r, void *extra, size_t nextra, int *n)
{
	struct iovec *iov = malloc(((size_t)r->nswitches + 2) * sizeof(*iov));

	*n = 0;
	for (uint32_t s = 0; iov && s < r->nswitches; s++) {
		uint8_t *row = rt_lft(r, s);

		if (*n && (uint8_t *)iov[*n - 1].iov_base + iov[*n - 1].iov_len == row)
			iov[*n - 1].iov_len += r->lft_len;
		else
			iov[(*n)++] = (struct iovec){ .iov_base = row, .iov_len = r->lft_len };
	}
	if (iov)
		iov[(*n)++] = (struct iovec){ .iov_base = extra, .iov_len = nextra };
	return iov;
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
	if (a->extra)
		a->iov = rows_iov(r, a->extra, extra, &a->niov);
	if (!a->msg || !a->extra || !a->iov || !lfts || !sl2vl || !psl) {
		fab_err_set(err, "out of memory for the answer");
		srco_answer_free(a);
		return -1;
	}
	return 0;
}
