/* SPDX-License-Identifier: MIT */
/**
 * DOC: would OpenSM's ftree route this fabric?
 *
 * ftree and sftree route degraded and irregular trees that OpenSM's
 * fat-tree routing refuses (it then falls back to its next engine, by
 * default minhop: not deadlock-free). The notes say so, with the first of
 * OpenSM's reasons that holds (osm_ucast_ftree.c, construct_fabric() and
 * fabric_validate_topology(), in its order):
 *
 *  - LMC above 0 on some port; fewer than two switches or two CAs; a CA
 *    linked to a CA; fewer than 2 or more than 8 switch levels;
 *  - without root_guid_file, it ranks from every CA's switch (compute node
 *    or not): every switch with CAs must be a leaf; and the tree must be
 *    "pure": counted down from one
 *    top switch, every leaf (switch with compute nodes) is at the same
 *    depth; and the switches of a level agree on the number of up-going
 *    port groups (peer switches; none at the top), of down-going groups
 *    (leaves excepted) and on the ports in each group.
 *
 * A check, not OpenSM itself: it reads the same topology the same way, but
 * OpenSM's own ranking may still differ in corner cases its log explains.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/ftree/ftree.h"

static void sort_u32(uint32_t *v, uint32_t n)
{
	for (uint32_t a = 1; a < n; a++)
		for (uint32_t b = a; b && v[b - 1] > v[b]; b--) {
			uint32_t t = v[b];

			v[b] = v[b - 1];
			v[b - 1] = t;
		}
}

/*
 * Port groups of switch @s in direction @d (a group: the ports to one peer
 * switch): their count, and in @size (room for the switch's links) the
 * ports of each, sorted, to compare as multisets.
 */
static uint32_t groups(const struct ft_model *m, uint32_t s, enum ft_dir d, uint32_t *size)
{
	uint32_t k = 0, n = 0;

	for (uint32_t i = ft_first(m, s, d); i < ft_end(m, s, d); i++)
		size[k++] = m->links[i].peer;
	sort_u32(size, k);
	for (uint32_t i = 0; i < k;) {
		uint32_t j = i;

		while (j < k && size[j] == size[i])
			j++;
		size[n++] = j - i;
		i = j;
	}
	sort_u32(size, n);
	return n;
}

/* Same groups as the level's first switch @ref, in direction @d? */
static int same_groups(const struct ft_model *m, uint32_t s, uint32_t ref, enum ft_dir d,
		       uint32_t *a, uint32_t *b)
{
	uint32_t na = groups(m, s, d, a), nb = groups(m, ref, d, b);

	return na == nb && !memcmp(a, b, na * sizeof(*a));
}

/* Every leaf as deep below the first top switch. */
static int leaves_level(const struct ft_model *m, uint32_t *dist, uint32_t *q, char *why,
			size_t len)
{
	uint32_t top = m->order[m->lvl_off[m->nlevels]], head = 0, tail = 0;

	for (uint32_t s = 0; s < m->nsw; s++)
		dist[s] = UINT32_MAX;
	dist[top] = 0;
	q[tail++] = top;
	while (head < tail) {
		uint32_t s = q[head++];

		for (uint32_t i = m->off[3 * s]; i < m->off[3 * s + 3]; i++)
			if (dist[m->links[i].peer] == UINT32_MAX) {
				dist[m->links[i].peer] = dist[s] + 1;
				q[tail++] = m->links[i].peer;
			}
	}
	for (uint32_t i = m->lvl_off[1]; i < m->lvl_off[2]; i++) {
		uint32_t s = m->order[i];

		if (dist[s] != m->nlevels - 1) {
			snprintf(why, len, "not a pure fat tree: leaf '%s' is %u links below '%s', not "
				 "%u", ft_sw_name(m->f, s), dist[s], ft_sw_name(m->f, top),
				 m->nlevels - 1);
			return 0;
		}
	}
	return 1;
}

/* The pure fat-tree rules of fabric_validate_topology(). */
static int pure(const struct ft_model *m, char *why, size_t len)
{
	static const char *const dname[] = { "up", "down" };
	size_t w = 1, ns = (size_t)m->nsw + 1;
	uint32_t *a, *b;
	int ok;

	for (uint32_t s = 0; s < m->nsw; s++)	/* room for the links of the widest switch */
		if (m->off[3 * s + 3] - m->off[3 * s] + 1 > w)
			w = m->off[3 * s + 3] - m->off[3 * s] + 1;
	a = malloc((2 * w + 2 * ns) * sizeof(*a));
	b = a + w;
	ok = a && leaves_level(m, a + 2 * w, a + 2 * w + ns, why, len);

	for (uint32_t l = 1; ok && l <= m->nlevels; l++)
		for (uint32_t i = m->lvl_off[l] + 1; ok && i < m->lvl_off[l + 1]; i++) {
			uint32_t s = m->order[i], ref = m->order[m->lvl_off[l]];

			for (int d = FT_UP; ok && d <= FT_DOWN; d++) {
				if ((d == FT_UP && l == m->nlevels) || (d == FT_DOWN && l == 1))
					continue;
				if (same_groups(m, s, ref, (enum ft_dir)d, a, b))
					continue;
				snprintf(why, len, "not a pure fat tree: switches '%s' and '%s' (level "
					 "%u) differ in their %s-going port groups or the ports in "
					 "them", ft_sw_name(m->f, ref), ft_sw_name(m->f, s), l,
					 dname[d]);
				ok = 0;
			}
		}
	if (!a)
		snprintf(why, len, "out of memory checking");
	free(a);
	return ok;
}

/* CA counts, LMC and CA-to-CA links. */
static int endpoints_ok(const struct fabric *f, char *why, size_t len)
{
	uint32_t cas = 0;

	for (uint32_t n = 0; n < f->nnodes; n++) {
		if (f->nodes[n].type == FAB_SWITCH)
			continue;
		cas++;
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			const struct fab_port *x = fab_port(f, n, p);

			if (x->lmc) {
				snprintf(why, len, "LMC %u on '%s' port %u (OpenSM's ftree takes LMC "
					 "0 only)", x->lmc, FAB_LABEL(f, n), p);
				return 0;
			}
			if (x->peer != FAB_NONE && f->nodes[x->peer].type != FAB_SWITCH) {
				snprintf(why, len, "CA '%s' is linked to CA '%s'", FAB_LABEL(f, n),
					 FAB_LABEL(f, x->peer));
				return 0;
			}
		}
	}
	if (f->nswitches < 2 || cas < 2) {
		snprintf(why, len, "%u switches and %u CAs (it needs two of each)", f->nswitches, cas);
		return 0;
	}
	return 1;
}

/* Without root_guid_file OpenSM ranks from every CA's switch: all must be leaves. */
static int cas_on_leaves(const struct ft_model *m, char *why, size_t len)
{
	const struct fabric *f = m->f;

	for (uint32_t s = 0; s < m->nsw; s++) {
		if (m->level[s] <= 1)
			continue;
		for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
			uint32_t x = fab_port(f, f->switches[s], p)->peer;

			if (x != FAB_NONE && f->nodes[x].type != FAB_SWITCH) {
				snprintf(why, len, "without root_guid_file it ranks from every CA, and "
					 "'%s' has CAs %u levels above the leaves",
					 ft_sw_name(f, s), m->level[s] - 1);
				return 0;
			}
		}
	}
	return 1;
}

int ft_osm_refuses(const struct ft_model *m, const struct ft_hints *h, char *why, size_t len)
{
	if (!endpoints_ok(m->f, why, len))
		return 1;
	if (m->nlevels < 2 || m->nlevels > 8) {
		snprintf(why, len, "%u switch levels (it takes 2 to 8)", m->nlevels);
		return 1;
	}
	if (m->nignored) {
		snprintf(why, len, "%u switches no leaf reaches", m->nignored);
		return 1;
	}
	if (h && h->nroots)
		return 0;
	return !cas_on_leaves(m, why, len) || !pure(m, why, len);
}
