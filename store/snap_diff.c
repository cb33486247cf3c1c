/* SPDX-License-Identifier: MIT */
/**
 * DOC: store: comparing two snapshots
 *
 * Links are compared as unordered pairs of (node GUID, port), LIDs per port
 * GUID, LFTs per switch GUID and LID (a switch present on one side only
 * compares against an all-empty table). Example lists are capped; the
 * totals beside them count everything.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"

#define DIFF_LINKS_MAX 20u
#define DIFF_LIDS_MAX 100u
#define DIFF_SWITCHES_MAX 50u
#define DIFF_EXAMPLES_MAX 5u

/* --- links ------------------------------------------------------------------------ */

/* One link, its lower (GUID, port) end first. */
struct link_key {
	uint64_t ga, gb;
	uint32_t na, nb;
	uint8_t pa, pb;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_link(const void *x, const void *y)
{
	const struct link_key *a = x, *b = y;
	int c = cmp_u64(a->ga, b->ga);

	if (!c)
		c = a->pa - b->pa;
	if (!c)
		c = cmp_u64(a->gb, b->gb);
	if (!c)
		c = a->pb - b->pb;
	return c;
}

static struct link_key *links_of(const struct fabric *f, size_t *n)
{
	struct link_key *k = malloc(((size_t)f->nports + 1) * sizeof(*k));

	*n = 0;
	if (!k)
		return NULL;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; p <= f->nodes[i].nports; p++) {
			const struct fab_port *x = fab_port(f, i, p);
			struct link_key l;

			if (x->peer == FAB_NONE)
				continue;
			l = (struct link_key){ .ga = f->nodes[i].guid, .na = i, .pa = (uint8_t)p,
					       .gb = f->nodes[x->peer].guid, .nb = x->peer,
					       .pb = x->peer_port };
			if (l.ga < l.gb || (l.ga == l.gb && l.pa < l.pb))
				k[(*n)++] = l;
		}
	qsort(k, *n, sizeof(*k), cmp_link);
	return k;
}

static json_t *link_text(const struct fabric *f, const struct link_key *k)
{
	char buf[2 * FAB_DESC_MAX + 96];

	snprintf(buf, sizeof(buf), "%s:%u (0x%016" PRIx64 ") - %s:%u (0x%016" PRIx64 ")",
		 fab_desc(f, k->na), k->pa, k->ga, fab_desc(f, k->nb), k->pb, k->gb);
	return json_string(buf);
}

/* Append @k to @list unless it is full; count it in *@total. */
static int link_note(json_t *list, const struct fabric *f, const struct link_key *k,
		     json_int_t *total)
{
	if ((*total)++ >= DIFF_LINKS_MAX)
		return 0;
	return json_array_append_new(list, link_text(f, k));
}

static int links_merge(const struct fabric *fa, const struct link_key *a, size_t na,
		       const struct fabric *fb, const struct link_key *b, size_t nb,
		       json_t *rem, json_t *add, json_int_t tot[2])
{
	size_t i = 0, j = 0;
	int rc = 0;

	while (!rc && (i < na || j < nb)) {
		int c = i == na ? 1 : j == nb ? -1 : cmp_link(&a[i], &b[j]);

		if (c < 0)
			rc = link_note(rem, fa, &a[i++], &tot[0]);
		else if (c > 0)
			rc = link_note(add, fb, &b[j++], &tot[1]);
		else
			i++, j++;
	}
	return rc;
}

static json_t *diff_links(const struct fabric *fa, const struct fabric *fb)
{
	size_t na, nb;
	struct link_key *a = links_of(fa, &na), *b = links_of(fb, &nb);
	json_t *rem = json_array(), *add = json_array(), *out = NULL;
	json_int_t tot[2] = { 0, 0 };

	if (a && b && rem && add && !links_merge(fa, a, na, fb, b, nb, rem, add, tot))
		out = json_pack("{s:O, s:O, s:I, s:I}", "removed", rem, "added", add,
				"removed_total", tot[0], "added_total", tot[1]);
	json_decref(rem);
	json_decref(add);
	free(a);
	free(b);
	return out;
}

/* --- LIDs --------------------------------------------------------------------------- */

struct lid_key {
	uint64_t guid;
	uint32_t node;
	uint16_t lid;
	uint8_t lmc;
};

static int cmp_lid(const void *x, const void *y)
{
	return cmp_u64(((const struct lid_key *)x)->guid, ((const struct lid_key *)y)->guid);
}

static struct lid_key *lids_of(const struct fabric *f, size_t *n)
{
	struct lid_key *k = malloc(((size_t)f->neps + 1) * sizeof(*k));

	*n = 0;
	if (!k)
		return NULL;
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_port *p = fab_port(f, f->eps[e].node, f->eps[e].port);

		if (p->lid)
			k[(*n)++] = (struct lid_key){ .guid = p->guid, .node = f->eps[e].node,
						      .lid = p->lid, .lmc = p->lmc };
	}
	qsort(k, *n, sizeof(*k), cmp_lid);
	return k;
}

static json_t *lid_side(const struct lid_key *k)
{
	return k ? json_pack("{s:i, s:i}", "lid", k->lid, "lmc", k->lmc) : json_null();
}

static int lid_note(json_t *list, const struct fabric *fa, const struct lid_key *a,
		    const struct fabric *fb, const struct lid_key *b, json_int_t *total)
{
	const struct fabric *f = a ? fa : fb;
	const struct lid_key *k = a ? a : b;

	if ((*total)++ >= DIFF_LIDS_MAX)
		return 0;
	return json_array_append_new(list, json_pack("{s:o, s:s, s:o, s:o}",
						     "guid", store_json_guid(k->guid),
						     "node", fab_desc(f, k->node),
						     "from", lid_side(a), "to", lid_side(b)));
}

static json_t *diff_lids(const struct fabric *fa, const struct fabric *fb)
{
	size_t na, nb, i = 0, j = 0;
	struct lid_key *a = lids_of(fa, &na), *b = lids_of(fb, &nb);
	json_t *list = json_array(), *out = NULL;
	json_int_t total = 0;
	int rc = !a || !b || !list;

	while (!rc && (i < na || j < nb)) {
		int c = i == na ? 1 : j == nb ? -1 : cmp_u64(a[i].guid, b[j].guid);

		if (c < 0)
			rc = lid_note(list, fa, &a[i++], fb, NULL, &total);
		else if (c > 0)
			rc = lid_note(list, fa, NULL, fb, &b[j++], &total);
		else if (a[i].lid != b[j].lid || a[i].lmc != b[j].lmc)
			rc = lid_note(list, fa, &a[i++], fb, &b[j++], &total);
		else
			i++, j++;
	}
	if (!rc)
		out = json_pack("{s:O, s:I}", "changed", list, "changed_total", total);
	json_decref(list);
	free(a);
	free(b);
	return out;
}

/* --- LFTs ----------------------------------------------------------------------------- */

struct lft_acc {
	json_t *list;
	json_int_t entries;
	json_int_t switches;
};

static json_t *port_json(unsigned port)
{
	return port == RT_NO_PORT ? json_null() : json_integer(port);
}

/* One switch: @sa in @a and @sb in @b, either FAB_NONE when absent there. */
static int lft_switch(struct lft_acc *acc, const struct store_snap *a, uint32_t sa,
		      const struct store_snap *b, uint32_t sb)
{
	uint32_t len = a->r->lft_len > b->r->lft_len ? a->r->lft_len : b->r->lft_len;
	const struct fabric *f = sa != FAB_NONE ? a->f : b->f;
	uint32_t node = f->switches[sa != FAB_NONE ? sa : sb];
	json_t *ex = json_array();
	json_int_t n = 0;

	if (!ex)
		return -1;
	for (uint32_t l = 0; l < len; l++) {
		unsigned from = sa != FAB_NONE ? rt_lft_get(a->r, sa, l) : RT_NO_PORT;
		unsigned to = sb != FAB_NONE ? rt_lft_get(b->r, sb, l) : RT_NO_PORT;

		if (from == to || n++ >= DIFF_EXAMPLES_MAX)
			continue;
		if (json_array_append_new(ex, json_pack("{s:i, s:o, s:o}", "lid", (int)l,
							"from", port_json(from),
							"to", port_json(to)))) {
			json_decref(ex);
			return -1;
		}
	}
	acc->entries += n;
	acc->switches += n > 0;
	if (!n || acc->switches > DIFF_SWITCHES_MAX) {
		json_decref(ex);
		return 0;
	}
	return json_array_append_new(acc->list, json_pack("{s:o, s:s, s:I, s:o}",
		"guid", store_json_guid(f->nodes[node].guid), "node", fab_desc(f, node),
		"entries", n, "examples", ex));
}

/* Switch index of @f's node with @guid, FAB_NONE when it has no such switch. */
static uint32_t switch_of(const struct fabric *f, uint64_t guid)
{
	uint32_t n = fab_node_by_guid(f, guid);

	return n != FAB_NONE && f->nodes[n].type == FAB_SWITCH ? f->nodes[n].swidx : FAB_NONE;
}

static json_t *diff_lft(const struct store_snap *a, const struct store_snap *b)
{
	struct lft_acc acc = { .list = json_array() };
	json_t *out = NULL;
	int rc = !acc.list;

	for (uint32_t s = 0; !rc && s < a->f->nswitches; s++)
		rc = lft_switch(&acc, a, s, b,
				switch_of(b->f, a->f->nodes[a->f->switches[s]].guid));
	for (uint32_t s = 0; !rc && s < b->f->nswitches; s++)
		if (switch_of(a->f, b->f->nodes[b->f->switches[s]].guid) == FAB_NONE)
			rc = lft_switch(&acc, a, FAB_NONE, b, s);
	if (!rc)
		out = json_pack("{s:I, s:I, s:O}", "entries_changed", acc.entries,
				"switches_changed", acc.switches, "switches", acc.list);
	json_decref(acc.list);
	return out;
}

/* --- the whole diff ------------------------------------------------------------------- */

json_t *store_diff_json(const struct store_snap *a, const struct store_snap *b)
{
	return json_pack("{s:I, s:I, s:b, s:o, s:o, s:o}",
			 "from", (json_int_t)a->id, "to", (json_int_t)b->id,
			 "topology_changed", a->topo_hash != b->topo_hash,
			 "links", diff_links(a->f, b->f), "lids", diff_lids(a->f, b->f),
			 "lft", diff_lft(a, b));
}
