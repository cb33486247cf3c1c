/* SPDX-License-Identifier: MIT */
/**
 * DOC: direct-network generators
 *
 * Dragonfly, random irregular, ring, mesh and torus fabrics: every switch
 * holds nodes on its first ports, the switch-to-switch links follow.
 *
 * Dragonfly (a, p, h), fully connected: g = a*h+1 groups of a switches,
 * switch s of group G is "gGG-swS". Ports 1..p hold nodes, the next a-1
 * ports go to the other switches of the group in index order, the last h
 * are global: group G's global link j (0 <= j < a*h) sits on switch j / h,
 * global port j % h. Every pair of groups shares exactly one global link;
 * where link j goes depends on the wiring:
 *  - absolute (BookSim2's): to group j when j < G, else j+1, where it is
 *    link G when G < j+1, else G-1;
 *  - relative: to group (G+j+1) mod g, where it is link a*h-1-j;
 *  - circulant (a*h even): link 2k to group G+k+1, where it is link 2k+1,
 *    and link 2k+1 to group G-k-1 (mod g), where it is link 2k.
 * OpenSM's engines route these differently; dla does not care.
 *
 * Random: a random spanning tree (every switch, in a random order, joins
 * one already placed) plus random extra links up to switches*degree/2 links
 * in all, without parallel links; then every machine picks a switch with
 * a free port, uniformly. Everything comes from fab_rng_*() and the seed.
 *
 * Ring, mesh and torus: switch coordinates in mixed radix, the first
 * dimension varying fastest; switch "sw-X-Y" links its "+" port of
 * dimension d (port hosts + 2d + 1) to the "-" port (hosts + 2d + 2) of the
 * next switch along d; the torus wraps around, a ring is a 1-D torus.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "gen/gen_impl.h"

#define GRID_DIMS_MAX 8

static struct fabric *new_fabric(struct fab_err *err)
{
	struct fabric *f = fab_new();

	if (!f)
		fab_err_set(err, "out of memory");
	return f;
}

/* Give each of @nsw switches (nodes first .. first+nsw-1) @hosts CAs on ports 1..hosts. */
static int add_hosts(struct fabric *f, uint32_t first, uint32_t nsw, unsigned hosts,
		     struct fab_err *err)
{
	unsigned wd = gen_width((uint64_t)nsw * hosts);
	uint32_t nca = 0;
	char desc[48];

	for (uint32_t s = 0; s < nsw; s++)
		for (unsigned j = 0; j < hosts; j++) {
			uint32_t ca;

			snprintf(desc, sizeof(desc), "node-%0*u", (int)wd, nca);
			ca = gen_add_ca(f, &nca, 1, desc, err);
			if (ca == FAB_NONE || fab_link_add(f, first + s, j + 1, ca, 1, err))
				return -1;
		}
	return 0;
}

static unsigned digits(uint64_t count)
{
	unsigned w = 1;

	for (uint64_t x = count > 1 ? count - 1 : 0; x >= 10; x /= 10)
		w++;
	return w;
}

/* --- dragonfly -------------------------------------------------------------- */

static int df_add_switches(struct fabric *f, unsigned a, unsigned g, unsigned nports,
			   struct fab_err *err)
{
	unsigned gw = gen_width(g), sw = digits(a);
	uint32_t nsw = 0;
	char desc[48];

	for (unsigned G = 0; G < g; G++)
		for (unsigned s = 0; s < a; s++) {
			snprintf(desc, sizeof(desc), "g%0*u-sw%0*u", (int)gw, G, (int)sw, s);
			if (gen_add_switch(f, &nsw, nports, desc, err) == FAB_NONE)
				return -1;
		}
	return 0;
}

/*
 * Global link @j of group @G: the group @T it leads to and the index @j2 of
 * the same link in @T's numbering.
 */
static void df_global(enum gen_df_wiring w, unsigned g, unsigned G, unsigned j, unsigned *T,
		      unsigned *j2)
{
	switch (w) {
	case GEN_DF_RELATIVE:
		*T = (G + j + 1) % g;
		*j2 = g - 2 - j;
		break;
	case GEN_DF_CIRCULANT:
		*T = j % 2 ? (G + g - j / 2 - 1) % g : (G + j / 2 + 1) % g;
		*j2 = j % 2 ? j - 1 : j + 1;
		break;
	default:
		*T = j < G ? j : j + 1;
		*j2 = G < *T ? G : G - 1;
		break;
	}
}

static int df_link(struct fabric *f, unsigned a, unsigned p, unsigned h, enum gen_df_wiring w,
		   struct fab_err *err)
{
	unsigned g = a * h + 1, gbase = p + a - 1;

	for (unsigned G = 0; G < g; G++) {
		for (unsigned s = 0; s < a; s++)
			for (unsigned t = s + 1; t < a; t++)
				if (fab_link_add(f, G * a + s, p + t, G * a + t, p + s + 1, err))
					return -1;
		/* each global link is added from the lower-numbered group */
		for (unsigned j = 0; j < a * h; j++) {
			unsigned G2, j2;

			df_global(w, g, G, j, &G2, &j2);
			if (G2 > G && fab_link_add(f, G * a + j / h, gbase + j % h + 1,
						   G2 * a + j2 / h, gbase + j2 % h + 1, err))
				return -1;
		}
	}
	return 0;
}

/**
 * gen_direct_dragonfly() - fully connected dragonfly (a, p, h), see the DOC comment
 * @w: the arrangement of the global links
 * Return: an unfinalized fabric, or NULL with @err set.
 */
struct fabric *gen_direct_dragonfly(unsigned a, unsigned p, unsigned h, enum gen_df_wiring w,
				    struct fab_err *err)
{
	uint64_t g = (uint64_t)a * h + 1, nsw = g * a;
	struct fabric *f;

	if (gen_check_ports("switches (p+a-1+h)", (uint64_t)p + a - 1 + h, err) ||
	    gen_check_size(nsw, nsw * p, err))
		return NULL;
	if (w == GEN_DF_CIRCULANT && (a * h) % 2) {
		fab_err_set(err, "wiring=circulant pairs global links 2k and 2k+1: a*h must be even, "
			    "a=%u h=%u give %u", a, h, a * h);
		return NULL;
	}
	f = new_fabric(err);
	if (!f)
		return NULL;
	if (df_add_switches(f, a, (unsigned)g, p + a - 1 + h, err) ||
	    add_hosts(f, 0, (uint32_t)nsw, p, err) || df_link(f, a, p, h, w, err)) {
		fab_free(f);
		return NULL;
	}
	return f;
}

/* --- random irregular --------------------------------------------------------- */

/**
 * struct rnd - a random switch graph being drawn
 * @cap: ports a switch may use (radix, or FAB_PORTS_MAX when automatic)
 * @used: ports taken per switch
 * @ea, @eb: switch links in creation order, @ne of them
 * @mach: the switch of each machine
 * @set: open-addressed set of links (lower index << 32 | higher), 0 = empty
 * @avail: switches with a free port, @navail of them; @pos: where each sits
 */
struct rnd {
	struct fab_rng rng;
	uint32_t nsw, cap, nmach;
	uint32_t *used, *ea, *eb, *mach, *avail, *pos;
	uint64_t ne, *set, mask;
	uint32_t navail;
};

static void rnd_free(struct rnd *r)
{
	free(r->used);
	free(r->ea);
	free(r->eb);
	free(r->mach);
	free(r->avail);
	free(r->pos);
	free(r->set);
}

static int rnd_alloc(struct rnd *r, uint64_t nlinks, struct fab_err *err)
{
	uint64_t cap = 16;

	while (cap < 2 * nlinks + 2)
		cap *= 2;
	r->used = calloc(r->nsw, sizeof(*r->used));
	r->ea = malloc((nlinks + 1) * sizeof(*r->ea));
	r->eb = malloc((nlinks + 1) * sizeof(*r->eb));
	r->mach = malloc(((size_t)r->nmach + 1) * sizeof(*r->mach));
	r->avail = malloc((size_t)r->nsw * sizeof(*r->avail));
	r->pos = malloc((size_t)r->nsw * sizeof(*r->pos));
	r->set = calloc(cap, sizeof(*r->set));
	r->mask = cap - 1;
	if (r->used && r->ea && r->eb && r->mach && r->avail && r->pos && r->set)
		return 0;
	fab_err_set(err, "out of memory");
	return -1;
}

static uint64_t rnd_hash(uint64_t key)
{
	key = (key ^ (key >> 31)) * 0x9e3779b97f4a7c15ull;
	return key ^ (key >> 29);
}

/* Is the link u-v in the set? With @add, put it in when it is not. */
static int rnd_has(struct rnd *r, uint32_t u, uint32_t v, int add)
{
	uint64_t key = u < v ? (uint64_t)u << 32 | v : (uint64_t)v << 32 | u;
	uint64_t i = rnd_hash(key) & r->mask;

	for (; r->set[i]; i = (i + 1) & r->mask)
		if (r->set[i] == key)
			return 1;
	if (add)
		r->set[i] = key;
	return 0;
}

static void avail_add(struct rnd *r, uint32_t s)
{
	r->pos[s] = r->navail;
	r->avail[r->navail++] = s;
}

/* Take one port of switch @s; it leaves @avail when full. */
static void take_port(struct rnd *r, uint32_t s)
{
	uint32_t last;

	if (++r->used[s] < r->cap)
		return;
	last = r->avail[--r->navail];
	r->avail[r->pos[s]] = last;
	r->pos[last] = r->pos[s];
}

static void rnd_link(struct rnd *r, uint32_t u, uint32_t v)
{
	rnd_has(r, u, v, 1);
	r->ea[r->ne] = u;
	r->eb[r->ne++] = v;
	take_port(r, u);
	take_port(r, v);
}

/* A random spanning tree: switches join in random order, each to a placed one. */
static int rnd_tree(struct rnd *r, struct fab_err *err)
{
	uint32_t *perm = malloc((size_t)r->nsw * sizeof(*perm));

	if (!perm) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < r->nsw; i++)
		perm[i] = i;
	for (uint32_t i = r->nsw; i-- > 1;) {	/* Fisher-Yates */
		uint32_t j = (uint32_t)fab_rng_below(&r->rng, i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	avail_add(r, perm[0]);
	for (uint32_t i = 1; i < r->nsw; i++) {
		if (!r->navail) {
			fab_err_set(err, "radix=%u is too small to connect the switches", r->cap);
			free(perm);
			return -1;
		}
		/* draw among the placed switches, then place perm[i] */
		avail_add(r, perm[i]);
		rnd_link(r, r->avail[fab_rng_below(&r->rng, r->navail - 1)], perm[i]);
	}
	free(perm);
	return 0;
}

/* When random draws keep failing: pick uniformly among all possible new links. */
static int rnd_pick_pair(struct rnd *r, uint32_t *u, uint32_t *v)
{
	uint64_t n = 0, k = 0;

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (!n)
				return -1;
			k = fab_rng_below(&r->rng, n);
		}
		for (uint32_t i = 0; i < r->navail; i++)
			for (uint32_t j = i + 1; j < r->navail; j++) {
				if (rnd_has(r, r->avail[i], r->avail[j], 0))
					continue;
				if (pass == 0) {
					n++;
				} else if (k-- == 0) {
					*u = r->avail[i];
					*v = r->avail[j];
					return 0;
				}
			}
	}
	return -1;
}

static int rnd_extra(struct rnd *r, uint64_t nlinks, unsigned degree, struct fab_err *err)
{
	while (r->ne < nlinks) {
		uint32_t u = 0, v = 0;
		int found = 0;

		for (int tries = 0; tries < 64 && r->navail >= 2 && !found; tries++) {
			u = r->avail[fab_rng_below(&r->rng, r->navail)];
			v = r->avail[fab_rng_below(&r->rng, r->navail)];
			found = u != v && !rnd_has(r, u, v, 0);
		}
		if (!found && rnd_pick_pair(r, &u, &v)) {
			fab_err_set(err, "degree=%u: only %llu of %llu switch links fit in %u ports "
				    "per switch without parallel links", degree,
				    (unsigned long long)r->ne, (unsigned long long)nlinks, r->cap);
			return -1;
		}
		rnd_link(r, u, v);
	}
	return 0;
}

static int rnd_machines(struct rnd *r, struct fab_err *err)
{
	for (uint32_t i = 0; i < r->nmach; i++) {
		if (!r->navail) {
			fab_err_set(err, "machines=%u do not fit on the free switch ports", r->nmach);
			return -1;
		}
		r->mach[i] = r->avail[fab_rng_below(&r->rng, r->navail)];
		take_port(r, r->mach[i]);
	}
	return 0;
}

static int rnd_check(unsigned nsw, unsigned machines, unsigned degree, unsigned radix,
		     uint64_t nlinks, struct fab_err *err)
{
	uint64_t cap = (uint64_t)nsw * (radix ? radix : FAB_PORTS_MAX);

	if (nlinks + 1 < nsw) {
		fab_err_set(err, "degree=%u is too low: %u switches need %u links to be connected, "
			    "switches*degree/2 is %llu", degree, nsw, nsw - 1,
			    (unsigned long long)nlinks);
		return -1;
	}
	if (nlinks > (uint64_t)nsw * (nsw - 1) / 2) {
		fab_err_set(err, "degree=%u is too high for %u switches: at most %u without "
			    "parallel links", degree, nsw, nsw - 1);
		return -1;
	}
	if (2 * nlinks + machines > cap) {
		fab_err_set(err, "%llu switch links and machines=%u need %llu ports; %u switches "
			    "of %u ports%s have %llu", (unsigned long long)nlinks, machines,
			    (unsigned long long)(2 * nlinks + machines), nsw,
			    radix ? radix : FAB_PORTS_MAX, radix ? " (radix)" : "",
			    (unsigned long long)cap);
		return -1;
	}
	return gen_check_size(nsw, machines, err);
}

/* Machines on the first ports of their switch, in machine order. */
static int rnd_add_machines(struct fabric *f, const struct rnd *r, uint32_t *next,
			    struct fab_err *err)
{
	unsigned wd = gen_width(r->nmach);
	uint32_t nca = 0;
	char desc[48];

	for (uint32_t i = 0; i < r->nmach; i++) {
		uint32_t ca;

		snprintf(desc, sizeof(desc), "node-%0*u", (int)wd, i);
		ca = gen_add_ca(f, &nca, 1, desc, err);
		if (ca == FAB_NONE || fab_link_add(f, r->mach[i], ++next[r->mach[i]], ca, 1, err))
			return -1;
	}
	return 0;
}

/* Turn the drawn graph into a fabric: machines first, then the switch links. */
static struct fabric *rnd_fabric(const struct rnd *r, unsigned nports, struct fab_err *err)
{
	uint32_t nsw = 0, *next = calloc((size_t)r->nsw + 1, sizeof(*next));
	struct fabric *f = new_fabric(err);
	unsigned wd = gen_width(r->nsw);
	char desc[48];

	if (!f || !next)
		goto fail;
	for (uint32_t s = 0; s < r->nsw; s++) {
		snprintf(desc, sizeof(desc), "sw-%0*u", (int)wd, s);
		if (gen_add_switch(f, &nsw, nports, desc, err) == FAB_NONE)
			goto fail;
	}
	if (rnd_add_machines(f, r, next, err))
		goto fail;
	for (uint64_t e = 0; e < r->ne; e++)
		if (fab_link_add(f, r->ea[e], ++next[r->ea[e]], r->eb[e], ++next[r->eb[e]], err))
			goto fail;
	free(next);
	return f;
fail:
	if (f && !next)
		fab_err_set(err, "out of memory");
	free(next);
	fab_free(f);
	return NULL;
}

/**
 * gen_direct_random() - connected random switch graph with machines spread over it
 * @degree: average nodal degree: switches*degree/2 links
 * @radix: ports per switch; 0 gives every switch the largest count used
 * Return: an unfinalized fabric, or NULL with @err set.
 */
struct fabric *gen_direct_random(unsigned switches, unsigned machines, unsigned degree,
				 unsigned radix, uint64_t seed, struct fab_err *err)
{
	struct rnd r = { .nsw = switches, .nmach = machines,
			 .cap = radix ? radix : FAB_PORTS_MAX };
	uint64_t nlinks = (uint64_t)switches * degree / 2;
	struct fabric *f = NULL;
	unsigned nports = radix;

	if (switches < 1) {
		fab_err_set(err, "switches=0: expected at least one switch");
		return NULL;
	}
	if (rnd_check(switches, machines, degree, radix, nlinks, err))
		return NULL;
	fab_rng_seed(&r.rng, seed);
	if (rnd_alloc(&r, nlinks, err) || rnd_tree(&r, err) || rnd_extra(&r, nlinks, degree, err) ||
	    rnd_machines(&r, err))
		goto out;
	for (uint32_t s = 0; !radix && s < switches; s++)
		nports = r.used[s] > nports ? r.used[s] : nports;
	f = rnd_fabric(&r, nports ? nports : 1, err);
out:
	rnd_free(&r);
	return f;
}

/* --- ring, mesh, torus ---------------------------------------------------------- */

static void grid_desc(char *buf, size_t len, uint32_t s, const uint32_t *dims, size_t nd)
{
	size_t used = (size_t)snprintf(buf, len, "sw");

	for (size_t d = 0; d < nd && used < len; d++) {
		used += (size_t)snprintf(buf + used, len - used, "-%0*u", (int)digits(dims[d]),
					 s % dims[d]);
		s /= dims[d];
	}
}

static int grid_link(struct fabric *f, uint32_t nsw, const uint32_t *dims, size_t nd,
		     unsigned hosts, int wrap, struct fab_err *err)
{
	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t stride = 1;

		for (size_t d = 0; d < nd; stride *= dims[d], d++) {
			uint32_t c = s / stride % dims[d], nb;

			if (c + 1 < dims[d])
				nb = s + stride;
			else if (wrap)
				nb = s - c * stride;
			else
				continue;
			if (fab_link_add(f, s, hosts + 2 * (unsigned)d + 1, nb,
					 hosts + 2 * (unsigned)d + 2, err))
				return -1;
		}
	}
	return 0;
}

/**
 * gen_direct_grid() - mesh (@wrap 0) or torus (@wrap 1) of @nd dimensions
 * @dims: switches along each dimension (at least 2, 3 for a torus)
 * @hosts: CAs per switch, on its first ports
 * Return: an unfinalized fabric, or NULL with @err set.
 */
struct fabric *gen_direct_grid(const uint32_t *dims, size_t nd, unsigned hosts, int wrap,
			       struct fab_err *err)
{
	uint64_t nsw = 1;
	uint32_t count = 0;
	struct fabric *f;
	char desc[64];

	if (nd < 1 || nd > GRID_DIMS_MAX) {
		fab_err_set(err, "dims: expected 1 to %u dimensions", GRID_DIMS_MAX);
		return NULL;
	}
	for (size_t d = 0; d < nd; d++) {
		if (dims[d] < (wrap ? 3u : 2u)) {
			fab_err_set(err, "dims: %u switches along a dimension; expected at least %u",
				    dims[d], wrap ? 3u : 2u);
			return NULL;
		}
		nsw = gen_mul(nsw, dims[d]);
	}
	if (gen_check_ports("switches (hosts+2*dimensions)", hosts + 2 * (uint64_t)nd, err) ||
	    gen_check_size(nsw, gen_mul(nsw, hosts), err))
		return NULL;
	f = new_fabric(err);
	if (!f)
		return NULL;
	for (uint32_t s = 0; s < nsw; s++) {
		grid_desc(desc, sizeof(desc), s, dims, nd);
		if (gen_add_switch(f, &count, hosts + 2 * (unsigned)nd, desc, err) == FAB_NONE)
			goto fail;
	}
	if (add_hosts(f, 0, (uint32_t)nsw, hosts, err) ||
	    grid_link(f, (uint32_t)nsw, dims, nd, hosts, wrap, err))
		goto fail;
	return f;
fail:
	fab_free(f);
	return NULL;
}

/**
 * gen_direct_ring() - a ring: the torus of one dimension
 * Return: an unfinalized fabric, or NULL with @err set.
 */
struct fabric *gen_direct_ring(unsigned switches, unsigned hosts, struct fab_err *err)
{
	const uint32_t dims[1] = { switches };

	return gen_direct_grid(dims, 1, hosts, 1, err);
}
