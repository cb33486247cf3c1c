/* SPDX-License-Identifier: MIT */
/**
 * DOC: fat-tree generators
 *
 * Every tree here is an extended generalized fat tree XGFT(h; m1..mh;
 * w1..wh) (Ohring et al.), possibly with extra ports:
 *
 *  - k-ary n-tree (Petrini) = XGFT(n; k..k; 1, k..k), top switches with k
 *    spare up ports so that every switch has 2k ports;
 *  - m-port n-tree (Lin) = XGFT(n; m/2..m/2, m; 1, m/2..m/2);
 *  - T(n+m, r) = XGFT(2; n, r; 1, m), and the 648-port tree is T(18+18, 36).
 *
 * Level 0 holds the CAs, level h the top switches. A level-i node is
 * labelled (a_h..a_{i+1}; b_i..b_1) with a_j < m_j and b_j < w_j; it is
 * linked to the level-(i+1) nodes that share its a_{i+2}.. and b_i.. digits,
 * the parent's b_{i+1} choosing the child's up port and the child's a_{i+1}
 * the parent's down port. Level i has prod(m_{i+1..h}) * prod(w_1..i) nodes,
 * numbered A * W_i + B with A = (a_h..a_{i+1}) in mixed radix (a_{i+1}
 * lowest), B = (b_i..b_1) (b_1 lowest) and W_i = w_1 * .. * w_i. With
 * w1 = 1, CA x hangs on leaf x / m1, port x % m1 + 1.
 *
 * Switches number their down ports first (1..m_i), then their up ports,
 * then any horizontal ports. Switches are created level by level from the
 * leaves up, then the CAs; descriptions are "leaf-NN", "l2-NN" .. and
 * "spine-NN" for the top level, "node-NNNN" for CAs (0-based).
 */
#include <stdio.h>
#include <string.h>

#include "gen/gen.h"
#include "gen/gen_impl.h"

#define TREE_LEVELS_MAX 16
/* CA port GUIDs are node GUID + port and CA node GUIDs lie 16 apart. */
#define TREE_CA_PORTS_MAX 15u

/**
 * struct tree - one XGFT being built
 * @h: levels of switches
 * @m, @w: m_1..m_h and w_1..w_h (index 0 unused)
 * @wp: W_i = w_1 * .. * w_i, W_0 = 1
 * @cnt: nodes per level, level 0 = CAs (saturated when huge)
 * @extra_leaf, @extra_top: ports after the tree's own on level 1 / level h
 * @cas: create level 0; without it the leaves' down ports stay free
 * @prefix: prepended to switch descriptions ("" or "c1-")
 * @hint: per level, the parameters making its port count (for errors);
 *        NULL means "m<i>+w<i+1>"
 * @first: node index of the first node of each level
 */
struct tree {
	unsigned h;
	uint64_t m[TREE_LEVELS_MAX + 1], w[TREE_LEVELS_MAX + 1];
	uint64_t wp[TREE_LEVELS_MAX + 1], cnt[TREE_LEVELS_MAX + 1];
	unsigned extra_leaf, extra_top;
	int cas;
	const char *prefix;
	const char *hint[TREE_LEVELS_MAX + 1];
	uint32_t first[TREE_LEVELS_MAX + 1];
};

/* Fill the counts of @t from h, m and w; everything else is zeroed. */
static void tree_init(struct tree *t, unsigned h, const uint64_t *m, const uint64_t *w)
{
	memset(t, 0, sizeof(*t));
	t->h = h;
	t->cas = 1;
	t->prefix = "";
	t->wp[0] = 1;
	for (unsigned i = 1; i <= h; i++) {
		t->m[i] = m[i - 1];
		t->w[i] = w[i - 1];
		t->wp[i] = gen_mul(t->wp[i - 1], t->w[i]);
	}
	for (unsigned i = 0; i <= h; i++) {
		uint64_t c = t->wp[i];

		for (unsigned j = i + 1; j <= h; j++)
			c = gen_mul(c, t->m[j]);
		t->cnt[i] = c;
	}
}

static uint64_t tree_ports(const struct tree *t, unsigned i)
{
	uint64_t p = t->m[i];

	if (i < t->h)
		p += t->w[i + 1];
	if (i == 1)
		p += t->extra_leaf;
	if (i == t->h)
		p += t->extra_top;
	return p;
}

static uint64_t tree_switches(const struct tree *t)
{
	uint64_t n = 0;

	for (unsigned i = 1; i <= t->h; i++)
		n = n + t->cnt[i] < n ? UINT64_MAX : n + t->cnt[i];
	return n;
}

static void level_name(const struct tree *t, unsigned i, char *buf, size_t len)
{
	if (i == 1)
		snprintf(buf, len, "%sleaf", t->prefix);
	else if (i == t->h)
		snprintf(buf, len, "%sspine", t->prefix);
	else
		snprintf(buf, len, "%sl%u", t->prefix, i);
}

static int tree_check_ports(const struct tree *t, struct fab_err *err)
{
	char what[80], name[24], hint[24];

	if (t->cas && t->w[1] > TREE_CA_PORTS_MAX) {
		fab_err_set(err, "w1=%llu: CAs would have %llu ports; at most %u are possible",
			    (unsigned long long)t->w[1], (unsigned long long)t->w[1],
			    TREE_CA_PORTS_MAX);
		return -1;
	}
	for (unsigned i = 1; i <= t->h; i++) {
		level_name(t, i, name, sizeof(name));
		if (i == t->h)
			snprintf(hint, sizeof(hint), "m%u", i);
		else
			snprintf(hint, sizeof(hint), "m%u+w%u", i, i + 1);
		snprintf(what, sizeof(what), "%s switches (%s)", name, t->hint[i] ? t->hint[i] : hint);
		if (gen_check_ports(what, tree_ports(t, i), err))
			return -1;
	}
	return 0;
}

/* Add the switches of @t, level by level; the counts must have been checked. */
static int tree_add_switches(struct fabric *f, struct tree *t, uint32_t *nsw, struct fab_err *err)
{
	char name[24], desc[48];

	for (unsigned i = 1; i <= t->h; i++) {
		unsigned wd = gen_width(t->cnt[i]);

		level_name(t, i, name, sizeof(name));
		for (uint32_t j = 0; j < t->cnt[i]; j++) {
			uint32_t n;

			snprintf(desc, sizeof(desc), "%s-%0*u", name, (int)wd, j);
			n = gen_add_switch(f, nsw, (unsigned)tree_ports(t, i), desc, err);
			if (n == FAB_NONE)
				return -1;
			if (j == 0)
				t->first[i] = n;
		}
	}
	return 0;
}

/* Add the CAs of @t, named after the fabric-wide CA counter. */
static int tree_add_cas(struct fabric *f, struct tree *t, uint32_t *nca, unsigned width,
			struct fab_err *err)
{
	char desc[48];

	for (uint32_t j = 0; j < t->cnt[0]; j++) {
		uint32_t n;

		snprintf(desc, sizeof(desc), "node-%0*u", (int)width, *nca);
		n = gen_add_ca(f, nca, (unsigned)t->w[1], desc, err);
		if (n == FAB_NONE)
			return -1;
		if (j == 0)
			t->first[0] = n;
	}
	return 0;
}

/* Link every level-i node to its m_i children (see the DOC comment). */
static int tree_link(struct fabric *f, const struct tree *t, struct fab_err *err)
{
	for (unsigned i = t->cas ? 1 : 2; i <= t->h; i++) {
		uint64_t wc = t->wp[i - 1];
		uint64_t cdown = i > 1 ? t->m[i - 1] : 0;

		for (uint64_t p = 0; p < t->cnt[i]; p++) {
			uint64_t ap = p / t->wp[i], bp = p % t->wp[i];
			unsigned cport = (unsigned)(cdown + bp / wc + 1);

			for (uint64_t c = 0; c < t->m[i]; c++) {
				uint64_t child = (c + t->m[i] * ap) * wc + bp % wc;

				if (fab_link_add(f, t->first[i] + (uint32_t)p, (unsigned)c + 1,
						 t->first[i - 1] + (uint32_t)child, cport, err))
					return -1;
			}
		}
	}
	return 0;
}

/* Build a whole fabric that is the single tree @t. */
static struct fabric *tree_build(struct tree *t, struct fab_err *err)
{
	uint32_t nsw = 0, nca = 0;
	struct fabric *f;

	if (tree_check_ports(t, err) ||
	    gen_check_size(tree_switches(t), gen_mul(t->cnt[0], t->w[1]), err))
		return NULL;
	f = fab_new();
	if (!f) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	if (tree_add_switches(f, t, &nsw, err) ||
	    tree_add_cas(f, t, &nca, gen_width(t->cnt[0]), err) || tree_link(f, t, err)) {
		fab_free(f);
		return NULL;
	}
	return f;
}

/* --- the families ---------------------------------------------------------- */

/**
 * gen_tree_xgft() - XGFT(h; m1..mh; w1..wh)
 * @m, @nm: m1..mh and their count, which must be @h
 * @w, @nw: w1..wh and their count, which must be @h; w1 is the CA port count
 * Return: an unfinalized fabric, or NULL with @err set.
 */
struct fabric *gen_tree_xgft(unsigned h, const uint32_t *m, size_t nm, const uint32_t *w,
			     size_t nw, struct fab_err *err)
{
	uint64_t mm[TREE_LEVELS_MAX], ww[TREE_LEVELS_MAX];
	struct tree t;

	if (h < 1 || h > TREE_LEVELS_MAX) {
		fab_err_set(err, "h=%u: expected 1 to %u levels", h, TREE_LEVELS_MAX);
		return NULL;
	}
	if (nm != h || nw != h) {
		fab_err_set(err, "%s has %zu values but h=%u: give m1..mh and w1..wh",
			    nm != h ? "m" : "w", nm != h ? nm : nw, h);
		return NULL;
	}
	for (unsigned i = 0; i < h; i++) {
		mm[i] = m[i];
		ww[i] = w[i];
	}
	tree_init(&t, h, mm, ww);
	return tree_build(&t, err);
}

/**
 * gen_tree_kary() - k-ary n-tree: XGFT(n; k..k; 1, k..k), every switch 2k ports
 * Return: an unfinalized fabric, or NULL with @err set.
 */
struct fabric *gen_tree_kary(unsigned k, unsigned n, struct fab_err *err)
{
	uint64_t m[TREE_LEVELS_MAX], w[TREE_LEVELS_MAX];
	struct tree t;

	for (unsigned i = 0; i < n && i < TREE_LEVELS_MAX; i++) {
		m[i] = k;
		w[i] = i ? k : 1;
	}
	tree_init(&t, n, m, w);
	t.extra_top = k;
	return tree_build(&t, err);
}

/**
 * gen_tree_mport() - m-port n-tree: XGFT(n; m/2..m/2, m; 1, m/2..m/2)
 * @mp: ports per switch, even
 * Return: an unfinalized fabric, or NULL with @err set.
 */
struct fabric *gen_tree_mport(unsigned mp, unsigned n, struct fab_err *err)
{
	uint64_t m[TREE_LEVELS_MAX], w[TREE_LEVELS_MAX];
	struct tree t;

	if (mp % 2) {
		fab_err_set(err, "m=%u: the port count must be even", mp);
		return NULL;
	}
	for (unsigned i = 0; i < n && i < TREE_LEVELS_MAX; i++) {
		m[i] = i + 1 == n ? mp : mp / 2;
		w[i] = i ? mp / 2 : 1;
	}
	tree_init(&t, n, m, w);
	return tree_build(&t, err);
}

/**
 * gen_tree_gft2() - T(n+m, r) = XGFT(2; n, r; 1, m)
 * Return: an unfinalized fabric, or NULL with @err set.
 */
struct fabric *gen_tree_gft2(unsigned n, unsigned m, unsigned r, struct fab_err *err)
{
	const uint64_t mm[2] = { n, r }, ww[2] = { 1, m };
	struct tree t;

	tree_init(&t, 2, mm, ww);
	t.hint[1] = "n+m";
	t.hint[2] = "r";
	return tree_build(&t, err);
}

/* --- ft648-rack: rack switch pairs below the 648-port core --------------------- */

#define CORE_LEAVES 36u
#define CORE_DOWN 18u

static int rack_add_switches(struct fabric *f, unsigned racks, unsigned nports, uint32_t *nsw,
			     struct fab_err *err)
{
	unsigned wd = gen_width(racks);
	char desc[48];

	for (unsigned r = 0; r < racks; r++)
		for (unsigned side = 0; side < 2; side++) {
			snprintf(desc, sizeof(desc), "rack-%0*u%c", (int)wd, r, side ? 'b' : 'a');
			if (gen_add_switch(f, nsw, nports, desc, err) == FAB_NONE)
				return -1;
		}
	return 0;
}

/* Rack switch s is node s; CAs and the core come after the rack switches. */
static int rack_link(struct fabric *f, const struct tree *core, unsigned racks, unsigned hosts,
		     unsigned uplinks, unsigned hlinks, struct fab_err *err)
{
	unsigned wd = gen_width((uint64_t)2 * racks * hosts);
	uint32_t nca = 0;
	char desc[48];

	for (uint32_t s = 0; s < 2 * racks; s++) {
		for (unsigned j = 0; j < hosts; j++) {
			uint32_t ca;

			snprintf(desc, sizeof(desc), "node-%0*u", (int)wd, nca);
			ca = gen_add_ca(f, &nca, 1, desc, err);
			if (ca == FAB_NONE || fab_link_add(f, s, j + 1, ca, 1, err))
				return -1;
		}
		for (unsigned u = 0; u < uplinks; u++) {
			uint32_t g = s * uplinks + u;

			if (fab_link_add(f, s, hosts + u + 1, core->first[1] + g % CORE_LEAVES,
					 g / CORE_LEAVES + 1, err))
				return -1;
		}
		for (unsigned l = 0; s % 2 == 0 && l < hlinks; l++)
			if (fab_link_add(f, s, hosts + uplinks + l + 1, s + 1, hosts + uplinks + l + 1,
					 err))
				return -1;
	}
	return 0;
}

/**
 * gen_tree_rack() - the 648-port core T(18+18, 36) with rack switch pairs below
 * @racks: two-switch units; rack switches "rack-NNa"/"rack-NNb" are created first
 * @hosts: CAs per rack switch, on ports 1..hosts
 * @uplinks: ports hosts+1.. of rack switch s; uplink u goes to core leaf
 *           (s*uplinks+u) % 36, down port (s*uplinks+u) / 36 + 1
 * @hlinks: the last ports, each linked to the same port of the partner
 * Return: an unfinalized fabric, or NULL with @err set.
 */
struct fabric *gen_tree_rack(unsigned racks, unsigned hosts, unsigned uplinks, unsigned hlinks,
			     struct fab_err *err)
{
	const uint64_t mm[2] = { CORE_DOWN, CORE_LEAVES }, ww[2] = { 1, CORE_DOWN };
	uint64_t need = (uint64_t)2 * racks * uplinks;
	uint32_t nsw = 0;
	struct fabric *f;
	struct tree core;

	tree_init(&core, 2, mm, ww);
	core.cas = 0;
	if (gen_check_ports("rack switches (hosts+uplinks+hlinks)",
			    (uint64_t)hosts + uplinks + hlinks, err))
		return NULL;
	if (need > CORE_LEAVES * CORE_DOWN) {
		fab_err_set(err, "racks=%u and uplinks=%u need %llu core leaf ports; the 36 core "
			    "leaves have %u", racks, uplinks, (unsigned long long)need,
			    CORE_LEAVES * CORE_DOWN);
		return NULL;
	}
	if (gen_check_size(tree_switches(&core) + 2u * racks, (uint64_t)2 * racks * hosts, err))
		return NULL;
	f = fab_new();
	if (!f) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	if (rack_add_switches(f, racks, hosts + uplinks + hlinks, &nsw, err) ||
	    tree_add_switches(f, &core, &nsw, err) ||
	    rack_link(f, &core, racks, hosts, uplinks, hlinks, err) || tree_link(f, &core, err)) {
		fab_free(f);
		return NULL;
	}
	return f;
}

/* --- multicore: copies of T(n+m, r) with horizontal links between leaves ------ */

/* Ports after n+m on every leaf: "next core" ports, then "previous core" ports. */
static unsigned mc_hports(unsigned cores, unsigned hlinks)
{
	return cores == 1 ? 0 : cores == 2 ? hlinks : 2 * hlinks;
}

/*
 * Leaf j of core c, port n+m+l+1 ("next") goes to leaf j of core c+1 (mod
 * cores), port n+m+hlinks+l+1 ("previous"); with two cores, the "next"
 * ports of both cores face each other.
 */
static int mc_link(struct fabric *f, const uint32_t *leaf0, unsigned cores, unsigned base,
		   unsigned r, unsigned hlinks, struct fab_err *err)
{
	unsigned pairs = cores == 2 ? 1 : cores > 2 ? cores : 0;
	unsigned back = cores == 2 ? base : base + hlinks;

	for (unsigned c = 0; c < pairs; c++)
		for (unsigned j = 0; j < r; j++)
			for (unsigned l = 0; l < hlinks; l++)
				if (fab_link_add(f, leaf0[c] + j, base + l + 1,
						 leaf0[(c + 1) % cores] + j, back + l + 1, err))
					return -1;
	return 0;
}

static int mc_add_cores(struct fabric *f, struct tree *t, unsigned cores, uint32_t *leaf0,
			struct fab_err *err)
{
	unsigned cw = cores > 10 ? 2 : 1, caw = gen_width(gen_mul(t->cnt[0], cores));
	uint32_t nsw = 0, nca = 0;
	char prefix[16];

	t->prefix = prefix;
	for (unsigned c = 0; c < cores; c++) {
		snprintf(prefix, sizeof(prefix), "c%0*u-", (int)cw, c);
		if (tree_add_switches(f, t, &nsw, err) || tree_add_cas(f, t, &nca, caw, err) ||
		    tree_link(f, t, err))
			return -1;
		leaf0[c] = t->first[1];
	}
	t->prefix = "";
	return 0;
}

/**
 * gen_tree_multicore() - @cores copies of T(n+m, r) ("cC-leaf-NN", "cC-spine-NN")
 * @hlinks: links from every leaf to its sibling in each neighbouring core:
 *          one neighbour with two cores, two (a ring) with three or more
 * Return: an unfinalized fabric, or NULL with @err set.
 */
struct fabric *gen_tree_multicore(unsigned cores, unsigned n, unsigned m, unsigned r,
				  unsigned hlinks, struct fab_err *err)
{
	const uint64_t mm[2] = { n, r }, ww[2] = { 1, m };
	uint32_t leaf0[64];
	struct fabric *f;
	struct tree t;

	if (cores < 1 || cores > 64) {
		fab_err_set(err, "cores=%u: expected 1 to 64", cores);
		return NULL;
	}
	tree_init(&t, 2, mm, ww);
	t.extra_leaf = mc_hports(cores, hlinks);
	t.hint[1] = cores > 2 ? "n+m+2*hlinks" : cores == 2 ? "n+m+hlinks" : "n+m";
	t.hint[2] = "r";
	if (tree_check_ports(&t, err) ||
	    gen_check_size(gen_mul(tree_switches(&t), cores), gen_mul(t.cnt[0], cores), err))
		return NULL;
	f = fab_new();
	if (!f) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	if (mc_add_cores(f, &t, cores, leaf0, err) ||
	    mc_link(f, leaf0, cores, n + m, r, hlinks, err)) {
		fab_free(f);
		return NULL;
	}
	return f;
}
