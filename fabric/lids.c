/* SPDX-License-Identifier: MIT */
/**
 * DOC: LID assignment
 *
 * The default assignment is deterministic and independent of the order in
 * which a topology file lists nodes: pinned LIDs (guid2lid) first, then the
 * LIDs the fabric already carries (unless renewing), then switches by node
 * GUID and end ports by port GUID, each in the lowest free aligned range.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/index.h"

struct lid_state {
	struct fabric *f;
	uint8_t *used;		/* per LID: 0 free, 1 taken */
	uint16_t *lid;		/* per endpoint: chosen base LID, 0 = none yet */
	uint8_t *lmc;		/* per endpoint */
	/* per LMC: no free aligned range starts below this LID (ranges only fill up) */
	uint32_t next[FAB_LMC_MAX + 1];
};

static int range_free(const struct lid_state *s, uint32_t lid, unsigned lmc)
{
	uint32_t n = 1u << lmc;

	if (lid == 0 || lid % n || lid + n - 1 > FAB_LID_UCAST_MAX)
		return 0;
	for (uint32_t l = lid; l < lid + n; l++)
		if (s->used[l])
			return 0;
	return 1;
}

static void take(struct lid_state *s, uint32_t ep, uint32_t lid, unsigned lmc)
{
	memset(s->used + lid, 1, 1u << lmc);
	s->lid[ep] = (uint16_t)lid;
	s->lmc[ep] = (uint8_t)lmc;
}

static int apply_pins(struct lid_state *s, const struct fab_lid_pin *pins, size_t npins,
		      struct fab_err *err)
{
	for (size_t i = 0; i < npins; i++) {
		uint32_t ep = fab_ep_by_port_guid(s->f, pins[i].guid);

		if (ep == FAB_NONE)
			continue;	/* a port that is not in this fabric (any more) */
		if (s->lid[ep]) {
			fab_err_set(err, "guid2lid: port GUID 0x%016" PRIx64 " is listed twice",
				    pins[i].guid);
			return -1;
		}
		if (pins[i].lmc > FAB_LMC_MAX || !range_free(s, pins[i].lid, pins[i].lmc)) {
			fab_err_set(err, "guid2lid: port GUID 0x%016" PRIx64 ": LID %u with LMC %u %s",
				    pins[i].guid, pins[i].lid, pins[i].lmc,
				    pins[i].lmc > FAB_LMC_MAX ? "has an LMC above 7" :
				    "is out of range, not aligned, or overlaps another entry");
			return -1;
		}
		take(s, ep, pins[i].lid, pins[i].lmc);
	}
	return 0;
}

static void keep_existing(struct lid_state *s)
{
	for (uint32_t e = 0; e < s->f->neps; e++) {
		const struct fab_port *p = fab_port(s->f, s->f->eps[e].node, s->f->eps[e].port);

		if (!s->lid[e] && p->lid && p->lmc <= FAB_LMC_MAX && range_free(s, p->lid, p->lmc))
			take(s, e, p->lid, p->lmc);
	}
}

/* Sort key: switches first, each group by ascending GUID. */
struct ep_key {
	uint64_t guid;
	uint32_t ep;
	uint8_t not_switch;
};

static int cmp_key(const void *a, const void *b)
{
	const struct ep_key *x = a, *y = b;

	if (x->not_switch != y->not_switch)
		return x->not_switch - y->not_switch;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static int next_range(struct lid_state *s, unsigned lmc, uint32_t *out)
{
	uint32_t step = 1u << lmc, lid = s->next[lmc] ? s->next[lmc] : step;

	while (lid <= FAB_LID_UCAST_MAX && !range_free(s, lid, lmc))
		lid += step;
	s->next[lmc] = lid;
	*out = lid;
	return lid <= FAB_LID_UCAST_MAX ? 0 : -1;
}

static int assign_rest(struct lid_state *s, unsigned lmc, struct fab_err *err)
{
	struct fabric *f = s->f;
	struct ep_key *order = malloc(((size_t)f->neps + 1) * sizeof(*order));
	uint32_t n = 0, lid;

	if (!order) {
		fab_err_set(err, "out of memory assigning LIDs");
		return -1;
	}
	for (uint32_t e = 0; e < f->neps; e++) {
		if (s->lid[e])
			continue;
		order[n].ep = e;
		order[n].guid = fab_port(f, f->eps[e].node, f->eps[e].port)->guid;
		order[n++].not_switch = f->nodes[f->eps[e].node].type != FAB_SWITCH;
	}
	qsort(order, n, sizeof(*order), cmp_key);
	for (uint32_t i = 0; i < n; i++) {
		unsigned l = order[i].not_switch ? lmc : 0;

		if (next_range(s, l, &lid)) {
			fab_err_set(err, "out of unicast LIDs: %u endpoints with LMC %u do not fit in 1..0xBFFF",
				    f->neps, lmc);
			free(order);
			return -1;
		}
		take(s, order[i].ep, lid, l);
	}
	free(order);
	return 0;
}

int fab_lids_assign(struct fabric *f, const struct fab_lid_pin *pins, size_t npins,
		    enum fab_lid_mode mode, unsigned lmc, struct fab_err *err)
{
	struct lid_state s = { .f = f };
	int rc = -1;

	if (!f->finalized) {
		fab_err_set(err, "LID assignment needs a finalized fabric");
		return -1;
	}
	if (lmc > FAB_LMC_MAX) {
		fab_err_set(err, "LMC %u, expected 0 to %u", lmc, FAB_LMC_MAX);
		return -1;
	}
	s.used = calloc(FAB_LID_UCAST_MAX + 1, 1);
	s.lid = calloc((size_t)f->neps + 1, sizeof(*s.lid));
	s.lmc = calloc((size_t)f->neps + 1, 1);
	if (!s.used || !s.lid || !s.lmc) {
		fab_err_set(err, "out of memory assigning LIDs");
		goto out;
	}
	if (apply_pins(&s, pins, npins, err))
		goto out;
	if (mode == FAB_LIDS_KEEP)
		keep_existing(&s);
	if (assign_rest(&s, lmc, err))
		goto out;
	for (uint32_t e = 0; e < f->neps; e++) {
		struct fab_port *p = fab_port(f, f->eps[e].node, f->eps[e].port);

		p->lid = s.lid[e];
		p->lmc = s.lmc[e];
	}
	rc = fab_index_lids(f, err);
out:
	free(s.used);
	free(s.lid);
	free(s.lmc);
	return rc;
}

unsigned fab_lmc_max(const struct fabric *f)
{
	unsigned top = 0;

	for (uint32_t e = 0; e < f->neps; e++)
		if (fab_ep_lmc(f, e) > top)
			top = fab_ep_lmc(f, e);
	return top;
}
