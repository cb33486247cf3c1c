/* SPDX-License-Identifier: MIT */
/**
 * DOC: dla - minimal dragonfly routing with VL shifting (papers/004)
 *
 * For fully connected dragonflies: groups of a switches linked all to all
 * (local channels, lc), h global links per switch (gc), every two groups
 * linked. The groups come from fmt_dfly_find() (closed neighbourhoods, or
 * the file of option groups), which also verifies the structure; anything
 * else (a lost local or global link, a non-clique group, unequal groups,
 * a switch running a single data VL) is not applicable, and the chain's
 * next engine routes. dla never routes around a fault: a detour inside a
 * group would take an lc after an lc that followed a gc, and Fig. 8's
 * mapping then drops the packet back to VL0, which can close a cycle
 * through both VLs.
 *
 * Routing (Fig. 4), from the current switch S towards destination switch D:
 *  1. S and D in different groups, S without a gc to D's group: the lc to a
 *     switch of S's group that has one;
 *  2. S and D in different groups: S's gc to D's group;
 *  3. same group: the lc to D (D's own LIDs leave by port 0 or the CA's port).
 * The choice depends only on (S, D), so it is a per-DLID LFT; switch LIDs
 * are routed the same way. Every path is [lc] gc [lc]: at most three switch
 * hops, exactly one global hop between groups. Minimal in global hops, not
 * always shortest: a path gc gc through a third group can be shorter.
 *
 * Where a group pair has several gcs (fewer than a*h+1 groups) or two
 * switches several cables, the LIDs are spread over them: the k-th choice
 * is taken for LID offset o of the j-th endpoint of the destination group,
 * k = j + o. With LMC the LIDs of one port so take different parallel
 * links; with a single gc per pair of groups every LID of a port takes the
 * same path.
 *
 * SL2VL (Fig. 8): a packet that enters by a gc and leaves by an lc goes on
 * VL1, whatever its SL; everything else on VL0. Every path SL is 0 (SLs are
 * ignored: 1 SL, 2 VLs). On VL0 the only switch-to-switch dependency is
 * lc -> gc, a gc -> lc step moves to VL1, and a VL1 lc feeds only
 * terminals: the (channel, VL) dependency graph is acyclic, switch paths
 * included.
 *
 * Cost: O(switches x LIDs) for the tables (one lookup per entry where Fig. 4
 * leaves no choice, cached in a switches^2 table) plus the discovery's
 * O(links x degree); (ports + 1)^2 x 16 bytes of SL2VL per switch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "fabric/dfly.h"
#include "formats/formats.h"

static const struct eng_opt dla_opts[] = {
	{ .name = "groups", .type = ENG_OPT_FILE, .defval = "",
	  .help = "file naming each switch's group, one \"NODE GROUP\" line per switch (NODE: a 0x "
	  "node GUID or a description); empty: groups from the switches' closed neighbourhoods, "
	  "which needs a >= h+2" },
	{ .name = NULL },
};

/**
 * struct dla - the ports dla chooses from
 * @loff, @lport: per (switch, rank of a switch of its group), the lc ports
 *                to that switch: lport[loff[s * a + r] .. loff[s * a + r + 1])
 * @goff, @grank, @gport: per (group, other group), the gcs between them as
 *                        (rank of the switch owning it, port), by rank then port
 * @dsw, @key: per endpoint, its switch (FAB_NONE: none) and its ordinal among
 *             the endpoints of that switch's group
 */
struct dla {
	const struct fabric *f;
	const struct fab_dfly *d;
	uint32_t *loff, *goff, *grank, *dsw, *key;
	uint8_t *lport, *gport;
};

static void dla_free(struct dla *x)
{
	free(x->loff);
	free(x->goff);
	free(x->grank);
	free(x->dsw);
	free(x->key);
	free(x->lport);
	free(x->gport);
}

static uint32_t peer_sw(const struct fabric *f, uint32_t node, unsigned p)
{
	return f->nodes[fab_port(f, node, p)->peer].swidx;
}

/* The lc ports of every switch, by the rank of the switch they lead to. */
static void build_local(struct dla *x)
{
	const struct fabric *f = x->f;
	const struct fab_dfly *d = x->d;
	size_t n = (size_t)f->nswitches * d->a;

	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[node].nports; p++)
			if (fab_dfly_class(f, d, node, p) == FAB_DF_LOCAL)
				x->loff[(size_t)s * d->a + d->rank[peer_sw(f, node, p)] + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		x->loff[i + 1] += x->loff[i];
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[node].nports; p++)
			if (fab_dfly_class(f, d, node, p) == FAB_DF_LOCAL) {
				size_t i = (size_t)s * d->a + d->rank[peer_sw(f, node, p)];

				x->lport[x->loff[i]++] = (uint8_t)p;
			}
	}
	memmove(x->loff + 1, x->loff, n * sizeof(*x->loff));
	x->loff[0] = 0;
}

/* The gcs of every pair of groups, by the rank of their owner, then port. */
static void build_global(struct dla *x)
{
	const struct fabric *f = x->f;
	const struct fab_dfly *d = x->d;
	size_t gg = (size_t)d->ngroups * d->ngroups;

	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < (size_t)d->ngroups * d->a; i++) {
			uint32_t s = d->member[i], node = f->switches[s];

			for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
				size_t k;

				if (fab_dfly_class(f, d, node, p) != FAB_DF_GLOBAL)
					continue;
				k = (size_t)d->group[s] * d->ngroups + d->group[peer_sw(f, node, p)];
				if (!pass) {
					x->goff[k + 1]++;
					continue;
				}
				x->grank[x->goff[k]] = d->rank[s];
				x->gport[x->goff[k]++] = (uint8_t)p;
			}
		}
		if (!pass)
			for (size_t k = 0; k < gg; k++)
				x->goff[k + 1] += x->goff[k];
	}
	memmove(x->goff + 1, x->goff, gg * sizeof(*x->goff));
	x->goff[0] = 0;
}

/* Every endpoint's switch and its ordinal in that switch's group. */
static void build_endpoints(struct dla *x, uint32_t *count)
{
	const struct fabric *f = x->f;

	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_ep *ep = &f->eps[e];
		const struct fab_port *p = fab_port(f, ep->node, ep->port);

		x->dsw[e] = FAB_NONE;
		if (f->nodes[ep->node].type == FAB_SWITCH)
			x->dsw[e] = f->nodes[ep->node].swidx;
		else if (p->peer != FAB_NONE && f->nodes[p->peer].type == FAB_SWITCH)
			x->dsw[e] = f->nodes[p->peer].swidx;
		if (x->dsw[e] != FAB_NONE)
			x->key[e] = count[x->d->group[x->dsw[e]]]++;
	}
}

static int dla_build(struct dla *x, struct fab_err *err)
{
	const struct fabric *f = x->f;
	const struct fab_dfly *d = x->d;
	size_t nl = (size_t)f->nswitches * d->a, gg = (size_t)d->ngroups * d->ngroups;
	size_t ngc = (size_t)f->nswitches * d->h;
	uint32_t *count = calloc(d->ngroups, sizeof(*count));

	x->loff = calloc(nl + 1, sizeof(*x->loff));
	x->lport = malloc((size_t)f->nports + 1);
	x->goff = calloc(gg + 1, sizeof(*x->goff));
	x->grank = malloc((ngc + 1) * sizeof(*x->grank));
	x->gport = malloc(ngc + 1);
	x->dsw = malloc(((size_t)f->neps + 1) * sizeof(*x->dsw));
	x->key = calloc((size_t)f->neps + 1, sizeof(*x->key));
	if (!count || !x->loff || !x->lport || !x->goff || !x->grank || !x->gport || !x->dsw ||
	    !x->key) {
		free(count);
		fab_err_set(err, "out of memory");
		return -1;
	}
	build_local(x);
	build_global(x);
	build_endpoints(x, count);
	free(count);
	return 0;
}

static uint8_t pick_local(const struct dla *x, uint32_t s, uint32_t rank, uint32_t k)
{
	size_t i = (size_t)s * x->d->a + rank;

	return x->lport[x->loff[i] + k % (x->loff[i + 1] - x->loff[i])];
}

/* Fig. 4: the port of switch @s towards switch @t (not @s), @k-th choice. */
static uint8_t pick(const struct dla *x, uint32_t s, uint32_t t, uint32_t k)
{
	const struct fab_dfly *d = x->d;
	size_t i = (size_t)d->group[s] * d->ngroups + d->group[t];
	uint32_t lo = x->goff[i], hi = x->goff[i + 1], own = hi, nown = 0, e;

	if (d->group[s] == d->group[t])
		return pick_local(x, s, d->rank[t], k);
	for (e = lo; e < hi; e++)
		if (x->grank[e] == d->rank[s]) {
			own = own == hi ? e : own;
			nown++;
		}
	if (nown)
		return x->gport[own + k % nown];
	e = lo + k % (hi - lo);
	return pick_local(x, s, x->grank[e], k / (hi - lo));
}

/* The port of @s towards @t when Fig. 4 leaves no choice, else RT_NO_PORT. */
static uint8_t only_port(const struct dla *x, uint32_t s, uint32_t t)
{
	const struct fab_dfly *d = x->d;
	size_t i = (size_t)d->group[s] * d->ngroups + d->group[t], l;
	uint32_t lo = x->goff[i], hi = x->goff[i + 1], nown = 0;

	if (d->group[s] == d->group[t]) {
		l = (size_t)s * d->a + d->rank[t];
		return x->loff[l + 1] - x->loff[l] == 1 ? x->lport[x->loff[l]] : RT_NO_PORT;
	}
	for (uint32_t e = lo; e < hi; e++)
		nown += x->grank[e] == d->rank[s];
	if (nown)
		return nown == 1 ? pick(x, s, t, 0) : RT_NO_PORT;
	l = (size_t)s * d->a + x->grank[lo];
	return hi - lo == 1 && x->loff[l + 1] - x->loff[l] == 1 ? pick(x, s, t, 0) : RT_NO_PORT;
}

/* Every LID on every switch; @only (switches^2 bytes) caches the ports without a choice. */
static void fill_lfts(const struct dla *x, struct rt_routing *r, uint8_t *only)
{
	const struct fabric *f = x->f;
	uint32_t ns = f->nswitches;

	eng_route_endpoints(f, r);
	for (uint32_t s = 0; s < ns; s++)
		for (uint32_t t = 0; t < ns; t++)
			only[(size_t)s * ns + t] = t == s ? RT_NO_PORT : only_port(x, s, t);
	for (uint32_t s = 0; s < ns; s++) {
		uint8_t *lft = rt_lft(r, s);
		const uint8_t *row = only + (size_t)s * ns;

		for (uint32_t e = 0; e < f->neps; e++) {
			unsigned base = fab_ep_lid(f, e), n = 1u << fab_ep_lmc(f, e);
			uint32_t t = x->dsw[e];

			if (!base || t == FAB_NONE || t == s)
				continue;
			for (unsigned o = 0; o < n && base + o < r->lft_len; o++)
				lft[base + o] = row[t] != RT_NO_PORT ? row[t] : pick(x, s, t, x->key[e] + o);
		}
	}
}

/* Fig. 8: VL1 from a gc to an lc, VL0 for everything else, every SL. */
static int fill_sl2vl(const struct dla *x, struct rt_routing *r, struct fab_err *err)
{
	const struct fabric *f = x->f;

	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s];
		unsigned np = f->nodes[node].nports, dim = np + 1;

		/* the layout of routing.h, all VL0 to start with */
		r->sl2vl[s] = calloc((size_t)dim * dim * RT_SLS, 1);
		if (!r->sl2vl[s]) {
			fab_err_set(err, "out of memory");
			return -1;
		}
		for (unsigned in = 1; in <= np; in++) {
			if (fab_dfly_class(f, x->d, node, in) != FAB_DF_GLOBAL)
				continue;
			for (unsigned out = 1; out <= np; out++)
				if (fab_dfly_class(f, x->d, node, out) == FAB_DF_LOCAL)
					memset(r->sl2vl[s] + ((size_t)in * dim + out) * RT_SLS, 1, RT_SLS);
		}
	}
	r->vls_used = x->d->a > 1 ? 0x3 : 0x1;
	return 0;
}

/* Every switch must run VL1 on its local ports. */
static int check_vls(const struct fabric *f, const struct fab_dfly *d, struct fab_err *err)
{
	for (uint32_t s = 0; d->a > 1 && s < f->nswitches; s++) {
		const struct fab_node *n = &f->nodes[f->switches[s]];

		if (n->vl_cap < 2) {
			fab_err_set(err, "switch \"%s\" runs %u data VL on its ports; dla needs VL1 on "
				    "its local ports", FAB_LABEL(f, f->switches[s]), n->vl_cap);
			return ENG_NOT_APPLICABLE;
		}
	}
	return ENG_OK;
}

static int set_notes(const struct fab_dfly *d, struct rt_routing *r, struct fab_err *err)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%u groups of %u switches, %u global links per switch (groups "
		 "from %s); SL 0, VL1 on a local hop after a global one", d->ngroups, d->a, d->h,
		 d->from_file ? "the groups file" : "the closed neighbourhoods");
	r->notes = strdup(buf);
	if (!r->notes) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	return 0;
}

static int dla_route(const struct eng_req *req, const struct eng_args *a, struct eng_res *res,
		     struct fab_err *err)
{
	const struct fabric *f = req->fabric;
	size_t glen;
	const char *groups = eng_arg_file(a, "groups", &glen);
	struct fab_dfly d;
	struct dla x = { .f = f, .d = &d };
	struct rt_routing *r = NULL;
	int rc = fmt_dfly_find(f, groups, glen, eng_arg(a, "groups"), &d, err);

	if (rc)
		return rc == FAB_DFLY_NOT ? ENG_NOT_APPLICABLE : ENG_ERROR;
	rc = check_vls(f, &d, err);
	if (rc == ENG_OK) {
		rc = ENG_ERROR;
		r = rt_new(f);
		if (!r)
			fab_err_set(err, "out of memory");
		else if (!dla_build(&x, err) && !fill_sl2vl(&x, r, err) && !set_notes(&d, r, err))
			rc = ENG_OK;
	}
	if (rc == ENG_OK) {
		uint8_t *only = malloc((size_t)f->nswitches * f->nswitches + 1);

		if (only)
			fill_lfts(&x, r, only);
		else
			rc = ENG_ERROR;
		free(only);
		if (!only)
			fab_err_set(err, "out of memory");
	}
	if (rc != ENG_OK)
		rt_free(r);
	else
		res->routing = r;
	dla_free(&x);
	fab_dfly_free(&d);
	return rc;
}

const struct engine eng_dla = {
	.name = "dla",
	.summary = "minimal dragonfly routing (Maglione-Mathey et al., \"Leveraging InfiniBand "
		   "Controller to Configure Deadlock-Free Routing Engines for Dragonflies\"): "
		   "[lc] gc [lc] paths, VL1 on a local hop after a global one through SL2VL; "
		   "fully connected dragonflies only",
	.options = dla_opts,
	.deadlock_free = 1,
	.vls = 2,
	.route = dla_route,
};
