/* SPDX-License-Identifier: MIT */
/*
 * DOC: test helpers of the canonical determinism test (test_canon.c): one
 * fabric rebuilt with its records in another order (nodes, ports, links,
 * each link declared from either end), a routing run, and the comparison
 * of two runs byte for byte.
 */
#include "tests/unit/testutil.h"

/* A link, as the lower of its two (node, port) ends. */
struct link {
	uint32_t a, b;
	uint8_t pa, pb;
};

/* Every link of @f once; *@n gets how many. */
static struct link *links_of(const struct fabric *f, size_t *n)
{
	struct link *l = malloc(((size_t)f->nlinks + 1) * sizeof(*l));

	assert_non_null(l);
	*n = 0;
	for (uint32_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; p <= f->nodes[i].nports; p++) {
			const struct fab_port *x = fab_port(f, i, p);

			if (x->peer != FAB_NONE && (x->peer > i || (x->peer == i && x->peer_port > p)))
				l[(*n)++] = (struct link){ .a = i, .pa = (uint8_t)p, .b = x->peer,
							   .pb = x->peer_port };
		}
	return l;
}

void tu_shuffle(void *base, size_t n, size_t size, struct fab_rng *rng)
{
	char tmp[64], *b = base;

	assert_true(size <= sizeof(tmp));
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)fab_rng_below(rng, i);

		memcpy(tmp, b + (i - 1) * size, size);
		memmove(b + (i - 1) * size, b + j * size, size);
		memcpy(b + j * size, tmp, size);
	}
}

struct fabric *tu_rebuild(const struct fabric *f, const uint32_t *order, uint64_t seed)
{
	struct fab_err err = { { 0 } };
	struct fabric *g = fab_new();
	uint32_t *map = malloc(((size_t)f->nnodes + 1) * sizeof(*map));
	struct fab_rng rng;
	struct link *l;
	size_t nl;

	assert_non_null(g);
	assert_non_null(map);
	fab_rng_seed(&rng, seed);
	for (uint32_t k = 0; k < f->nnodes; k++) {
		const struct fab_node *n = &f->nodes[order[k]];
		struct fab_node_info in = {
			.type = n->type, .guid = n->guid, .sysimg_guid = n->sysimg_guid,
			.vendor_id = n->vendor_id, .device_id = n->device_id, .nports = n->nports,
			.vl_cap = n->vl_cap, .desc = fab_desc(f, order[k]),
		};
		uint32_t m = fab_node_add(g, &in, &err);

		if (m == FAB_NONE)
			fail_msg("%s", err.msg);
		map[order[k]] = m;
		for (unsigned p = 0; p <= n->nports; p++) {
			const struct fab_port *x = fab_port(f, order[k], p);
			struct fab_port *y;

			if (p && n->type != FAB_SWITCH)
				fab_port_set_guid(g, m, p, x->guid);
			y = fab_port(g, m, p);
			y->lid = x->lid;
			y->lmc = x->lmc;
			y->width = x->width;
			y->speed = x->speed;
		}
	}
	l = links_of(f, &nl);
	tu_shuffle(l, nl, sizeof(*l), &rng);
	for (size_t i = 0; i < nl; i++) {
		int flip = (int)fab_rng_below(&rng, 2);
		int rc = flip ? fab_link_add(g, map[l[i].b], l[i].pb, map[l[i].a], l[i].pa, &err) :
				fab_link_add(g, map[l[i].a], l[i].pa, map[l[i].b], l[i].pb, &err);

		if (rc)
			fail_msg("%s", err.msg);
	}
	if (f->sm_node != FAB_NONE) {
		g->sm_node = map[f->sm_node];
		g->sm_port = f->sm_port;
	}
	if (fab_finalize(g, &err))
		fail_msg("%s", err.msg);
	free(l);
	free(map);
	return g;
}

uint32_t *tu_random_order(const struct fabric *f, uint64_t seed)
{
	uint32_t *o = malloc(((size_t)f->nnodes + 1) * sizeof(*o));
	struct fab_rng rng;

	assert_non_null(o);
	for (uint32_t i = 0; i < f->nnodes; i++)
		o[i] = i;
	fab_rng_seed(&rng, seed);
	tu_shuffle(o, f->nnodes, sizeof(*o), &rng);
	return o;
}

uint32_t *tu_reverse_order(const struct fabric *f)
{
	uint32_t *o = malloc(((size_t)f->nnodes + 1) * sizeof(*o));

	assert_non_null(o);
	for (uint32_t i = 0; i < f->nnodes; i++)
		o[i] = f->nnodes - 1 - i;
	return o;
}

void tu_run_route(const struct fabric *f, const char *chain, const char *const *kv, size_t nkv,
		  const struct fabric *prev_f, const struct rt_routing *prev, struct tu_run *run)
{
	struct fab_err err = { { 0 } };
	struct eng_chain c;
	struct eng_req q = { .fabric = f, .chain = &c, .assign = 1, .lid_mode = FAB_LIDS_KEEP,
			     .lmc_budget = FAB_LMC_MAX, .prev_fabric = prev_f, .prev = prev,
			     .mode = prev ? ENG_MODE_REPAIR : ENG_MODE_ROUTE };

	memset(run, 0, sizeof(*run));
	if (eng_chain_parse(&c, chain, kv, nkv, &err))
		fail_msg("%s: %s", chain, err.msg);
	run->status = eng_run(&q, &run->res, &err);
	eng_chain_free(&c);
	if (run->status == ENG_OK && rt_digest(run->res.fabric, run->res.routing, run->digest, &err))
		fail_msg("%s: %s", chain, err.msg);
}

void tu_run_free(struct tu_run *run)
{
	eng_res_free(&run->res);
}

/* Two pair tables (neps x neps bytes, NULL: all 0) are equal. */
static int same_pairs(const uint8_t *a, const uint8_t *b, uint32_t neps)
{
	size_t n = (size_t)neps * neps;

	for (size_t i = 0; i < n; i++)
		if ((a ? a[i] : 0) != (b ? b[i] : 0))
			return 0;
	return 1;
}

void tu_run_same(const struct tu_run *a, const struct tu_run *b, const char *what)
{
	const struct fabric *fa = a->res.fabric, *fb = b->res.fabric;
	const struct rt_routing *ra = a->res.routing, *rb = b->res.routing;

	if (a->status != b->status)
		fail_msg("%s: status %d, other order %d", what, a->status, b->status);
	if (strcmp(a->res.log, b->res.log))
		fail_msg("%s: log \"%s\", other order \"%s\"", what, a->res.log, b->res.log);
	if (a->status != ENG_OK)
		return;
	if (strcmp(a->res.used->name, b->res.used->name))
		fail_msg("%s: routed by %s, other order by %s", what, a->res.used->name,
			 b->res.used->name);
	if (fa->neps != fb->neps || fa->nswitches != fb->nswitches)
		fail_msg("%s: the fabrics differ in size", what);
	for (uint32_t e = 0; e < fa->neps; e++) {
		const struct fab_port *x = fab_port(fa, fa->eps[e].node, fa->eps[e].port);
		const struct fab_port *y = fab_port(fb, fb->eps[e].node, fb->eps[e].port);

		if (x->guid != y->guid || x->lid != y->lid || x->lmc != y->lmc)
			fail_msg("%s: endpoint %u: 0x%016llx LID %u LMC %u, other order 0x%016llx "
				 "LID %u LMC %u", what, e, (unsigned long long)x->guid, x->lid, x->lmc,
				 (unsigned long long)y->guid, y->lid, y->lmc);
	}
	if (ra->lft_len != rb->lft_len || !rt_equal_lfts(ra, rb))
		fail_msg("%s: the LFTs differ", what);
	for (uint32_t s = 0; s < ra->nswitches; s++) {
		size_t dim = fa->nodes[fa->switches[s]].nports + 1u;

		if (!ra->sl2vl[s] != !rb->sl2vl[s] ||
		    (ra->sl2vl[s] && memcmp(ra->sl2vl[s], rb->sl2vl[s], dim * dim * RT_SLS)))
			fail_msg("%s: the SL2VL tables of switch %u differ", what, s);
	}
	if (!same_pairs(ra->path_sl, rb->path_sl, ra->neps) ||
	    !same_pairs(ra->dlid_off, rb->dlid_off, ra->neps))
		fail_msg("%s: the path SLs or DLID offsets differ", what);
	if (strcmp(ra->notes ? ra->notes : "", rb->notes ? rb->notes : ""))
		fail_msg("%s: notes \"%s\", other order \"%s\"", what, ra->notes, rb->notes);
	if (ra->vls_used != rb->vls_used || strcmp(a->digest, b->digest))
		fail_msg("%s: VLs or digest differ", what);
}
