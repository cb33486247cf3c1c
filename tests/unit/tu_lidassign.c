/* SPDX-License-Identifier: MIT */
/*
 * DOC: test helpers of lidassign: fabrics built link by link (ports taken
 * in order), paths given as node sequences, papers/002's Fig. 6 and the
 * reduction of Thm. 1 (a graph G -> a fabric and one path per vertex whose
 * split graph is G).
 */
#include "tests/unit/testutil.h"

uint32_t tu_lb_node(struct tu_lb *b, enum fab_node_type t, const char *desc, unsigned nports)
{
	struct fab_err err = { { 0 } };
	struct fab_node_info in = { .type = t, .nports = nports, .desc = desc };
	uint32_t n;

	in.guid = (t == FAB_SWITCH ? 0x5000000000ull : 0x7000000000ull) + (uint64_t)b->f->nnodes * 16;
	n = fab_node_add(b->f, &in, &err);
	if (n == FAB_NONE)
		fail_msg("fab_node_add %s: %s", desc, err.msg);
	return n;
}

void tu_lb_link(struct tu_lb *b, uint32_t x, uint32_t y)
{
	struct fab_err err = { { 0 } };

	if (fab_link_add(b->f, x, ++b->used[x], y, ++b->used[y], &err))
		fail_msg("fab_link_add: %s", err.msg);
}

/* Finalize and give every port a LID (LMC 0). */
struct fabric *tu_lb_done(struct tu_lb *b)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = b->f;

	if (fab_finalize(f, &err) || fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err))
		fail_msg("finalize: %s", err.msg);
	b->f = NULL;
	return f;
}

/* The first port of node @a leading to node @c. */
unsigned tu_lb_port(const struct fabric *f, uint32_t a, uint32_t c)
{
	for (unsigned p = 1; p <= f->nodes[a].nports; p++)
		if (fab_port(f, a, p)->peer == c)
			return p;
	fail_msg("no link from '%s' to '%s'", fab_desc(f, a), fab_desc(f, c));
	return 0;
}

/* Add the path through the nodes @v[0] (a CA) .. @v[n - 1] (a CA) to @ps. */
static void lb_path(const struct fabric *f, struct fmt_paths *ps, const uint32_t *v, size_t n)
{
	struct fmt_hop h[512];

	assert_true(n >= 3 && n - 2 <= 512);
	for (size_t i = 1; i + 1 < n; i++)
		h[i - 1] = (struct fmt_hop){ v[i], (uint8_t)tu_lb_port(f, v[i], v[i + 1]) };
	if (fmt_paths_add(ps, fab_ep_of_node(f, v[0], 1), fab_ep_of_node(f, v[n - 1], 1), 0, h,
			  n - 2))
		fail_msg("out of memory");
}

void tu_lb_rd(const struct fabric *f, const struct fmt_paths *ps, struct tu_lb_rd *r)
{
	r->hops = malloc((ps->nhops + 1) * sizeof(*r->hops));
	r->p = malloc((ps->n + 1) * sizeof(*r->p));
	r->len = malloc((ps->n + 1) * sizeof(*r->len));
	assert_non_null(r->hops);
	assert_non_null(r->p);
	assert_non_null(r->len);
	for (size_t h = 0; h < ps->nhops; h++)
		r->hops[h] = (struct la_hop){ f->nodes[ps->hop[h].node].swidx, ps->hop[h].port };
	for (size_t i = 0; i < ps->n; i++) {
		r->p[i] = r->hops + ps->off[i];
		r->len[i] = (uint32_t)(ps->off[i + 1] - ps->off[i]);
	}
	r->rd = (struct la_rd){ (uint32_t)ps->n, r->p, r->len, f->nswitches };
}

void tu_lb_rd_free(struct tu_lb_rd *r)
{
	free(r->hops);
	free(r->p);
	free(r->len);
}

/*
 * papers/002 Fig. 6: links m0-s0, s0-s1, s0-s2, s1-s3, s1-s4, s2-s3, s2-s5,
 * s3-s4, s3-s5, m1-s4, m2-s4, m3-s5, m4-s5; paths to m0 in the paper's
 * order p1 = m1 s4 s1 s0, p2 = m2 s4 s3 s2 s0, p3 = m4 s5 s2 s0,
 * p4 = m3 s5 s3 s1 s0. Machines are added m0, m1, m2, m3, m4.
 */
struct fabric *tu_lb_fig6(struct fmt_paths *ps)
{
	struct tu_lb *b = calloc(1, sizeof(*b));
	uint32_t s[6], m[5];
	char name[8];
	struct fabric *f;

	assert_non_null(b);
	b->f = fab_new();
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		s[i] = tu_lb_node(b, FAB_SWITCH, name, 8);
	}
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		m[i] = tu_lb_node(b, FAB_CA, name, 1);
	}
	tu_lb_link(b, m[0], s[0]);
	tu_lb_link(b, s[0], s[1]);
	tu_lb_link(b, s[0], s[2]);
	tu_lb_link(b, s[1], s[3]);
	tu_lb_link(b, s[1], s[4]);
	tu_lb_link(b, s[2], s[3]);
	tu_lb_link(b, s[2], s[5]);
	tu_lb_link(b, s[3], s[4]);
	tu_lb_link(b, s[3], s[5]);
	tu_lb_link(b, m[1], s[4]);
	tu_lb_link(b, m[2], s[4]);
	tu_lb_link(b, m[3], s[5]);
	tu_lb_link(b, m[4], s[5]);
	f = tu_lb_done(b);
	free(b);
	memset(ps, 0, sizeof(*ps));
	lb_path(f, ps, (uint32_t[]){ m[1], s[4], s[1], s[0], m[0] }, 5);
	lb_path(f, ps, (uint32_t[]){ m[2], s[4], s[3], s[2], s[0], m[0] }, 6);
	lb_path(f, ps, (uint32_t[]){ m[4], s[5], s[2], s[0], m[0] }, 5);
	lb_path(f, ps, (uint32_t[]){ m[3], s[5], s[3], s[1], s[0], m[0] }, 6);
	return f;
}

/*
 * The reduction of papers/002 Thm. 1 for the graph of @nv vertices and the
 * @ne edges @e: CA n_u per vertex, a switch per edge, a switch n_u' per
 * vertex, a switch D with the destination CA d. Path p_u: n_u, the edge
 * switches of u's edges (in edge order), n_u', D, d. Two paths meet only at
 * the switch of a shared edge (where they leave by different ports) and at
 * D (where they leave by the same), so the split graph is G.
 */
struct fabric *tu_lb_reduction(uint32_t nv, const uint32_t (*e)[2], size_t ne,
			       struct fmt_paths *ps)
{
	struct tu_lb *b = calloc(1, sizeof(*b));
	uint32_t *nu = malloc(nv * sizeof(*nu)), *nup = malloc(nv * sizeof(*nup));
	uint32_t *ns = malloc((ne + 1) * sizeof(*ns)), *v = malloc((ne + 4) * sizeof(*v));
	uint32_t dsw, d, *last = malloc(nv * sizeof(*last));
	char name[32];
	struct fabric *f;

	assert_true(b && nu && nup && ns && v && last && nv + ne + 2 < 16384);
	b->f = fab_new();
	for (size_t i = 0; i < ne; i++) {
		snprintf(name, sizeof(name), "e%u-%u", e[i][0], e[i][1]);
		ns[i] = tu_lb_node(b, FAB_SWITCH, name, 4);
	}
	for (uint32_t u = 0; u < nv; u++) {
		snprintf(name, sizeof(name), "n%u'", u);
		nup[u] = tu_lb_node(b, FAB_SWITCH, name, 2);
	}
	dsw = tu_lb_node(b, FAB_SWITCH, "D", (unsigned)(nv + 1 > 254 ? 254 : nv + 1));
	d = tu_lb_node(b, FAB_CA, "d", 1);
	for (uint32_t u = 0; u < nv; u++) {
		snprintf(name, sizeof(name), "n%u", u);
		nu[u] = tu_lb_node(b, FAB_CA, name, 1);
		last[u] = nu[u];
	}
	for (size_t i = 0; i < ne; i++)
		for (int k = 0; k < 2; k++) {
			tu_lb_link(b, last[e[i][k]], ns[i]);
			last[e[i][k]] = ns[i];
		}
	for (uint32_t u = 0; u < nv; u++) {
		tu_lb_link(b, last[u], nup[u]);
		tu_lb_link(b, nup[u], dsw);
	}
	tu_lb_link(b, dsw, d);
	f = tu_lb_done(b);
	memset(ps, 0, sizeof(*ps));
	for (uint32_t u = 0; u < nv; u++) {
		size_t n = 0;

		v[n++] = nu[u];
		for (size_t i = 0; i < ne; i++)
			if (e[i][0] == u || e[i][1] == u)
				v[n++] = ns[i];
		v[n++] = nup[u];
		v[n++] = dsw;
		v[n++] = d;
		lb_path(f, ps, v, n);
	}
	free(b);
	free(nu);
	free(nup);
	free(ns);
	free(v);
	free(last);
	return f;
}
