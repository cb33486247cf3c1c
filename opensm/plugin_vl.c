/* SPDX-License-Identifier: MIT */
/**
 * DOC: SL2VL tables, path SLs and VL arbitration from fabrouted's routing
 *
 * After the LFTs, a "routing" answer's payload holds the SL2VL tables of
 * the switches whose mapping differs from the default (VL = SL mod the
 * switch's VL count) and, per source port that uses an SL other than 0,
 * the SL of every DLID (doc/osm-protocol.md). fosm_vl_build() checks them
 * whole, together with what OpenSM must do for them:
 *
 * - a routing that uses an SL or a VL other than 0 needs its SL2VL tables
 *   in the switches. OpenSM programs SL2VL tables only with QoS on, only in
 *   switches with the SL-map capability, and masks every VL with the
 *   port's operational VLs. So such a routing is refused when QoS is off,
 *   when a switch lacks the capability, or when a linked port would be
 *   sent a VL it does not run (the pass falls back to OpenSM's next engine,
 *   with the reason in OpenSM's log and in the pass_result event);
 * - a routing on SL 0 and VL 0 keeps nothing: the engine's SL/VL hooks are
 *   cleared and OpenSM's own QoS settings (if any) apply unchanged.
 *
 * Once installed, OpenSM's hooks read the state: update_sl2vl gives each
 * switch (in, out) pair the routing's mapping (CA and router ports keep
 * OpenSM's QoS mapping: the routing's VLs start at the first switch),
 * path_sl answers SA PathRecords with the routing's SL for the (source
 * port, DLID) pair (the hint for LIDs the routing did not know), and
 * update_vlarb makes sure every VL in use has weight in the low-priority
 * VLArb table (a VL may also sit in the high-priority one), so that no VL
 * the routing uses can starve.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opensm/plugin.h"

#define FOSM_SLS 16u
/** FOSM_VL_DROP - VL 15 (management; a data SL mapped to it is dropped) */
#define FOSM_VL_DROP 15u

/* "0,1,3" for a bit mask. */
static const char *mask_text(unsigned mask, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned b = 0; b < 16 && n < len; b++)
		if (mask & (1u << b))
			n += (size_t)snprintf(buf + n, len - n, "%s%u", n ? "," : "", b);
	return buf;
}

static int vsw_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct fosm_vl_sw *)a)->guid, y = ((const struct fosm_vl_sw *)b)->guid;

	return x < y ? -1 : x > y;
}

static int vsrc_cmp(const void *a, const void *b)
{
	unsigned x = ((const struct fosm_vl_src *)a)->lid_lo, y = ((const struct fosm_vl_src *)b)->lid_lo;

	return x < y ? -1 : x > y;
}

static struct fosm_vl_sw *vsw_find(const struct fosm_vl *v, uint64_t guid)
{
	struct fosm_vl_sw key = { .guid = guid };

	return bsearch(&key, v->sw, v->nsw, sizeof(*v->sw), vsw_cmp);
}

static const char *node_name(const osm_node_t *n)
{
	return n->print_desc ? n->print_desc : "";
}

void fosm_vl_free(struct fosm_vl *vl)
{
	if (!vl)
		return;
	free(vl->sw);
	free(vl->src);
	free(vl->known);
	free(vl->payload);
	free(vl);
}

/* ------------------------------------------------------------- building */

/* The fewest data VLs any linked port of switch node @node runs (1 when none is linked). */
static unsigned switch_def_vls(const osm_subn_t *subn, osm_node_t *node)
{
	unsigned vls = 0;

	for (uint32_t i = 1; i < osm_node_get_num_physp(node); i++) {
		const osm_physp_t *p = osm_node_get_physp_ptr(node, i);
		unsigned c;

		if (!p || !p->p_remote_physp)
			continue;
		c = fosm_vls_count(fosm_link_vls(subn, p));
		if (!vls || c < vls)
			vls = c;
	}
	return vls ? vls : 1;
}

/* Every switch of OpenSM, by GUID, with its default VL count; no tables yet. */
static int vl_switches(osm_subn_t *subn, struct fosm_vl *v)
{
	cl_qmap_t *map = &subn->sw_guid_tbl;
	size_t i = 0;

	v->nsw = cl_qmap_count(map);
	v->sw = calloc(v->nsw ? v->nsw : 1, sizeof(*v->sw));
	if (!v->sw)
		return -1;
	for (cl_map_item_t *it = cl_qmap_head(map); it != cl_qmap_end(map) && i < v->nsw; it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;

		v->sw[i++] = (struct fosm_vl_sw){ .guid = cl_ntoh64(osm_node_get_node_guid(sw->p_node)),
						  .dim = sw->num_ports, .def_vls = switch_def_vls(subn, sw->p_node) };
	}
	v->nsw = i;
	qsort(v->sw, v->nsw, sizeof(*v->sw), vsw_cmp);
	return 0;
}

/* The "sl2vl" list: each table where it lies in @sec, its VLs 0 to 14. *@used gets the bytes taken. */
static int vl_tables(struct fosm_vl *v, const json_t *list, const uint8_t *sec, size_t len, size_t *used,
		     char *err, size_t errlen)
{
	size_t i, off = 0;
	json_t *g;

	json_array_foreach(list, i, g) {
		struct fosm_vl_sw *s;
		uint64_t guid;
		size_t n;

		if (osmp_guid_parse(g, &guid) || !(s = vsw_find(v, guid))) {
			snprintf(err, errlen, "malformed routing: sl2vl[%zu] is not the GUID of a switch OpenSM knows", i);
			return -1;
		}
		if (s->tab) {
			snprintf(err, errlen, "malformed routing: SL2VL table of switch 0x%016" PRIx64 " twice", guid);
			return -1;
		}
		n = (size_t)s->dim * s->dim * FOSM_SLS / 2;
		if (len - off < n) {
			snprintf(err, errlen, "malformed routing: the payload ends inside the SL2VL table of switch "
				 "0x%016" PRIx64 " (%u ports)", guid, s->dim - 1);
			return -1;
		}
		s->tab = sec + off;
		for (size_t k = 0; k < n * 2; k++)
			if (osmp_nibble(s->tab, k) >= FOSM_VL_DROP) {
				snprintf(err, errlen, "malformed routing: switch 0x%016" PRIx64 " maps (in %zu, out %zu, "
					 "SL %zu) to VL %u (0 to 14 allowed)", guid, k / FOSM_SLS / s->dim,
					 k / FOSM_SLS % s->dim, k % FOSM_SLS, osmp_nibble(s->tab, k));
				return -1;
			}
		off += n;
	}
	*used = off;
	return 0;
}

/* Mark the LIDs of every port OpenSM knows (below lft_len) in v->known. */
static int vl_known(osm_subn_t *subn, struct fosm_vl *v)
{
	cl_qmap_t *map = &subn->port_guid_tbl;

	v->known = calloc(v->lft_len, 1);
	if (!v->known)
		return -1;
	for (cl_map_item_t *it = cl_qmap_head(map); it != cl_qmap_end(map); it = cl_qmap_next(it)) {
		osm_port_t *p = (osm_port_t *)it;
		size_t base = cl_ntoh16(osm_port_get_base_lid(p)), n = (size_t)1 << osm_port_get_lmc(p);

		for (size_t l = base; base && l < base + n && l < v->lft_len; l++)
			v->known[l] = 1;
	}
	return 0;
}

/* One "path_sl" entry: the source port of GUID @g, its row at @row. */
static int vl_source(struct fosm *f, struct fosm_vl *v, size_t i, const json_t *g, const uint8_t *row,
		     char *err, size_t errlen)
{
	uint64_t guid;
	osm_port_t *p;
	unsigned base;

	if (osmp_guid_parse(g, &guid) || !(p = osm_get_port_by_guid(&f->osm->subn, cl_hton64(guid))) ||
	    !(base = cl_ntoh16(osm_port_get_base_lid(p)))) {
		snprintf(err, errlen, "malformed routing: path_sl[%zu] is not the GUID of a port OpenSM knows "
			 "with a LID", i);
		return -1;
	}
	v->src[i] = (struct fosm_vl_src){ .lid_lo = base, .lid_hi = base + (1u << osm_port_get_lmc(p)) - 1,
					  .row = row };
	for (size_t l = 0; l < v->lft_len; l++)
		if (v->known[l])
			v->sls |= (uint16_t)(1u << osmp_nibble(row, l));
	return 0;
}

/* The "path_sl" list: rows of SLs by DLID, sources sorted by LID, each once. */
static int vl_sources(struct fosm *f, struct fosm_vl *v, const json_t *list, const uint8_t *sec, size_t len,
		      char *err, size_t errlen)
{
	size_t row = (v->lft_len + 1) / 2, i;
	json_t *g;

	if (len != json_array_size(list) * row) {
		snprintf(err, errlen, "malformed routing: %zu bytes of path SLs after the SL2VL tables, %zu sources "
			 "of %zu bytes listed", len, json_array_size(list), row);
		return -1;
	}
	v->nsrc = json_array_size(list);
	v->src = calloc(v->nsrc + 1, sizeof(*v->src));
	if (!v->src || vl_known(&f->osm->subn, v)) {
		snprintf(err, errlen, "out of memory for the path SLs");
		return -1;
	}
	json_array_foreach(list, i, g)
		if (vl_source(f, v, i, g, sec + i * row, err, errlen))
			return -1;
	qsort(v->src, v->nsrc, sizeof(*v->src), vsrc_cmp);
	for (i = 1; i < v->nsrc; i++)
		if (v->src[i].lid_lo <= v->src[i - 1].lid_hi) {
			snprintf(err, errlen, "malformed routing: path SLs for the port of LID %u twice", v->src[i].lid_lo);
			return -1;
		}
	return 0;
}

/* The VL switch @s sends @sl on from port @in to port @out. */
static unsigned vl_of(const struct fosm_vl_sw *s, unsigned in, unsigned out, unsigned sl)
{
	return s->tab ? osmp_nibble(s->tab, ((size_t)in * s->dim + out) * FOSM_SLS + sl) : sl % s->def_vls;
}

/*
 * The VLs the switch of node @node sends the used SLs on, into v->vls. The
 * first VL that leaves a linked port not running it is described in @err
 * and sets *@bad.
 */
static void vl_ports(struct fosm *f, struct fosm_vl *v, const struct fosm_vl_sw *s, osm_node_t *node,
		     bool *bad, char *err, size_t errlen)
{
	for (unsigned out = 1; out < s->dim; out++) {
		const osm_physp_t *po = osm_node_get_physp_ptr(node, out);
		unsigned runs;

		if (!po || !po->p_remote_physp)
			continue;
		runs = fosm_vls_count(fosm_link_vls(&f->osm->subn, po));
		/* the default mapping ignores the in port: port 0 (always looked at first) says it all */
		for (unsigned in = 0; in < (s->tab ? s->dim : 1u); in++) {
			const osm_physp_t *pi = osm_node_get_physp_ptr(node, in);

			if (in && (!pi || !pi->p_remote_physp))
				continue;	/* nothing enters there */
			for (unsigned sl = 0; sl < FOSM_SLS; sl++) {
				unsigned vl;

				if (!(v->sls & (1u << sl)))
					continue;
				vl = vl_of(s, in, out, sl);
				v->vls |= (uint16_t)(1u << vl);
				if (vl >= runs && !*bad) {
					*bad = true;
					snprintf(err, errlen, "switch 0x%016" PRIx64 " (%s) port %u runs %u data VL%s, "
						 "but the routing sends SL %u from port %u out of it on VL %u", s->guid,
						 node_name(node), out, runs, runs > 1 ? "s" : "", sl, in, vl);
				}
			}
		}
	}
}

/*
 * The VLs the routing uses on linked ports (v->vls) and whether OpenSM and
 * the switches can give it its SL2VL tables: 1 when it needs none (SL 0 on
 * VL 0 everywhere), 0 when they can, -1 with @err when they cannot.
 */
static int vl_needs(struct fosm *f, struct fosm_vl *v, char *err, size_t errlen)
{
	char port_err[256] = "", sls[48], vls[48];
	const char *nocap = NULL;
	uint64_t nocap_guid = 0;
	bool bad = false;

	for (size_t i = 0; i < v->nsw; i++) {
		osm_node_t *node = osm_get_node_by_guid(&f->osm->subn, cl_hton64(v->sw[i].guid));
		const osm_physp_t *p0 = node ? osm_node_get_physp_ptr(node, 0) : NULL;

		if (!node)
			continue;
		vl_ports(f, v, &v->sw[i], node, &bad, port_err, sizeof(port_err));
		if (!nocap && (!p0 || !(p0->port_info.capability_mask & IB_PORT_CAP_HAS_SL_MAP))) {
			nocap = node_name(node);
			nocap_guid = v->sw[i].guid;
		}
	}
	if (v->sls == 1 && v->vls <= 1)
		return 1;
	mask_text(v->sls, sls, sizeof(sls));
	mask_text(v->vls, vls, sizeof(vls));
	if (!f->osm->subn.opt.qos)
		snprintf(err, errlen, "the routing uses SLs %s and VLs %s, but OpenSM's QoS is off, so OpenSM would "
			 "program no SL2VL tables: start OpenSM with -Q (qos TRUE)", sls, vls);
	else if (nocap)
		snprintf(err, errlen, "switch 0x%016" PRIx64 " (%s) cannot map SLs to VLs (no SL2VL table), but the "
			 "routing uses SLs %s and VLs %s", nocap_guid, nocap, sls, vls);
	else if (bad)
		snprintf(err, errlen, "%s", port_err);
	return !f->osm->subn.opt.qos || nocap || bad ? -1 : 0;
}

int fosm_vl_build(struct fosm *f, const json_t *answer, const uint8_t *sec, size_t len, size_t lft_len,
		  struct fosm_vl **out, char *err, size_t errlen)
{
	const json_t *tabs = json_object_get(answer, "sl2vl"), *psl = json_object_get(answer, "path_sl");
	struct fosm_vl *v = calloc(1, sizeof(*v));
	size_t used = 0;

	*out = NULL;
	if (!v || vl_switches(&f->osm->subn, v)) {
		snprintf(err, errlen, "out of memory for the SL2VL tables");
		goto fail;
	}
	if ((tabs && !json_is_array(tabs)) || (psl && !json_is_array(psl))) {
		snprintf(err, errlen, "malformed routing: sl2vl and path_sl must be arrays of GUIDs");
		goto fail;
	}
	v->lft_len = lft_len;
	v->sls = 1;
	if (vl_tables(v, tabs, sec, len, &used, err, errlen) ||
	    vl_sources(f, v, psl, sec + used, len - used, err, errlen))
		goto fail;
	switch (vl_needs(f, v, err, errlen)) {
	case 1:
		fosm_vl_free(v);	/* SL 0 on VL 0 everywhere: OpenSM's settings stand */
		return 0;
	case 0:
		*out = v;
		return 0;
	}
fail:
	fosm_vl_free(v);
	return -1;
}

void fosm_vl_install(struct fosm *f, struct fosm_vl *vl, struct osmp_rx *rx)
{
	char sls[48], vls[48];

	size_t tabs = 0;

	fosm_vl_free(f->vl);
	f->vl = vl;
	if (vl) {
		vl->payload = rx->payload;
		rx->payload = NULL;
		for (size_t i = 0; i < vl->nsw; i++)
			tabs += vl->sw[i].tab != NULL;
		FOSM_LOG(f, OSM_LOG_INFO, "the routing uses SLs %s and VLs %s: OpenSM programs its SL2VL tables "
			 "(%zu of %zu switches not on the default mapping) and answers its path SLs (%zu sources not "
			 "on SL 0)\n", mask_text(vl->sls, sls, sizeof(sls)), mask_text(vl->vls, vls, sizeof(vls)),
			 tabs, vl->nsw, vl->nsrc);
	}
	if (!f->re)
		return;
	f->re->update_sl2vl = vl ? fosm_update_sl2vl : NULL;
	f->re->path_sl = vl ? fosm_path_sl : NULL;
	f->re->update_vlarb = vl ? fosm_update_vlarb : NULL;
}

/* ---------------------------------------------------------------- hooks */

void fosm_update_sl2vl(void *context, osm_physp_t *port, uint8_t in, uint8_t out, ib_slvl_table_t *t)
{
	struct fosm *f = context;
	const struct fosm_vl_sw *s;

	if (!f->vl || osm_node_get_type(port->p_node) != IB_NODE_TYPE_SWITCH)
		return;	/* CA and router ports keep OpenSM's QoS mapping */
	s = vsw_find(f->vl, cl_ntoh64(osm_node_get_node_guid(port->p_node)));
	if (!s || in >= s->dim || out >= s->dim)
		return;
	if (s->tab) {
		memcpy(t->raw_vl_by_sl, s->tab + ((size_t)in * s->dim + out) * FOSM_SLS / 2, sizeof(t->raw_vl_by_sl));
		return;
	}
	for (unsigned sl = 0; sl < FOSM_SLS; sl++)
		osmp_set_nibble(t->raw_vl_by_sl, sl, sl % s->def_vls);
}

/* An entry of @block for VL @vl: a free one (weight 0), else one of a VL not in @inuse; -1 when none. */
static int vlarb_slot(const ib_vl_arb_table_t *block, unsigned n, unsigned inuse)
{
	for (unsigned i = 0; i < n; i++)
		if (!block->vl_entry[i].weight)
			return (int)i;
	for (unsigned i = 0; i < n; i++)
		if (!(inuse & (1u << (block->vl_entry[i].vl & 15))))
			return (int)i;
	return -1;
}

void fosm_update_vlarb(void *context, osm_physp_t *port, uint8_t port_num, ib_vl_arb_table_t *block,
		       unsigned block_length, unsigned block_num)
{
	struct fosm *f = context;
	unsigned runs = fosm_vls_count(ib_port_info_get_op_vls(&port->port_info)), weight = 1, inuse, missing = 0;
	unsigned n = block_length < IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK ? block_length : IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK;

	(void)port_num;
	if (!f->vl || block_num != 0)
		return;	/* the first block of the low-priority table */
	inuse = f->vl->vls & ((1u << runs) - 1);
	for (unsigned i = 0; i < n; i++)
		if (block->vl_entry[i].weight > weight)
			weight = block->vl_entry[i].weight;
	for (unsigned vl = 0; vl < runs; vl++) {
		bool weighted = false;
		int k;

		for (unsigned i = 0; i < n && !weighted; i++)
			weighted = (block->vl_entry[i].vl & 15) == vl && block->vl_entry[i].weight;
		if (!(inuse & (1u << vl)) || weighted)
			continue;
		k = vlarb_slot(block, n, inuse);
		if (k < 0) {
			missing |= 1u << vl;
			continue;
		}
		block->vl_entry[k].vl = (uint8_t)vl;
		block->vl_entry[k].weight = (uint8_t)weight;
	}
	if (missing)
		FOSM_LOG(f, OSM_LOG_VERBOSE, "no room in the VLArb low table of port %u of 0x%016" PRIx64
			 " for VL mask 0x%x\n", port->port_num, cl_ntoh64(osm_node_get_node_guid(port->p_node)), missing);
}

uint8_t fosm_path_sl(void *context, uint8_t hint, const ib_net16_t slid, const ib_net16_t dlid)
{
	struct fosm *f = context;
	const struct fosm_vl *v = f->vl;
	unsigned s = cl_ntoh16(slid), d = cl_ntoh16(dlid);
	size_t lo = 0, hi;

	if (!v || s >= v->lft_len || d >= v->lft_len || !v->known[s] || !v->known[d])
		return hint;	/* a LID the routing did not know */
	hi = v->nsrc;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->src[mid].lid_hi < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < v->nsrc && v->src[lo].lid_lo <= s)
		return (uint8_t)osmp_nibble(v->src[lo].row, d);
	return 0;
}
