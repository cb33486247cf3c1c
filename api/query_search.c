/* SPDX-License-Identifier: MIT */
/**
 * DOC: GET /api/search
 *
 * Finding a switch or a host in a fabric of thousands by part of its name:
 * the node the text names exactly (a LID, a GUID or a whole description, as
 * /api/nodes/{guid} reads it) first, then every node whose description
 * holds the text (ignoring case), switches before the other nodes, each in
 * fabric order. A CA or router comes with the switch ports its links go
 * to, so that a client can show where a host hangs off the fabric.
 */
#include <string.h>

#include "analysis/report.h"
#include "api/query_impl.h"

/* The switch ports @n's links go to (a switch: none). */
static json_t *attached_json(const struct fabric *f, uint32_t n)
{
	json_t *list = json_array();

	for (unsigned p = 1; list && f->nodes[n].type != FAB_SWITCH && p <= f->nodes[n].nports; p++) {
		const struct fab_port *x = fab_port(f, n, p);

		if (x->peer == FAB_NONE || f->nodes[x->peer].type != FAB_SWITCH)
			continue;
		json_array_append_new(list, json_pack("{s:s, s:o, s:i, s:i}",
			"node", fab_desc(f, x->peer), "guid", an_json_guid(f->nodes[x->peer].guid),
			"port", (json_int_t)x->peer_port, "via_port", (json_int_t)p));
	}
	return list;
}

static json_t *hit_json(const struct fabric *f, uint32_t n, const char *match)
{
	return json_pack("{s:s, s:o, s:s, s:i, s:s, s:o}", "node", fab_desc(f, n),
			 "guid", an_json_guid(f->nodes[n].guid),
			 "type", fab_node_type_name(f->nodes[n].type), "lid", (json_int_t)apiq_node_lid(f, n),
			 "match", match, "attached", attached_json(f, n));
}

/* The nodes whose description holds @q, switches first (pass 0) then the others. */
static json_int_t by_name(const struct fabric *f, const char *q, uint32_t exact, unsigned limit,
			  json_t *list)
{
	json_int_t total = exact != FAB_NONE;

	for (int pass = 0; pass < 2; pass++)
		for (uint32_t n = 0; n < f->nnodes; n++) {
			if ((f->nodes[n].type == FAB_SWITCH) != !pass || n == exact ||
			    !strcasestr(fab_desc(f, n), q))
				continue;
			if (json_array_size(list) < limit)
				json_array_append_new(list, hit_json(f, n, "name"));
			total++;
		}
	return total;
}

json_t *apiq_search(const struct epoch *e, const char *q, unsigned limit, struct api_err *err)
{
	json_t *o = apiq_begin(e, err), *list;
	struct api_err ignored;
	uint32_t exact;
	json_int_t total;

	if (!o)
		return NULL;
	if (apiq_check_text("q", q, err)) {
		json_decref(o);
		return NULL;
	}
	exact = apiq_resolve_node(e->fabric, "q", q, &ignored);
	list = json_array();
	if (list && exact != FAB_NONE)
		json_array_append_new(list, hit_json(e->fabric, exact, "exact"));
	total = list ? by_name(e->fabric, q, exact, limit, list) : 0;
	if (json_object_update_new(o, json_pack("{s:s, s:I, s:o}", "query", q, "total", total,
						"results", list))) {
		json_decref(o);
		o = NULL;
	}
	return apiq_end(o, err);
}
