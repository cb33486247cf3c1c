/* SPDX-License-Identifier: MIT */
/**
 * DOC: the fabric as a fat tree (ftree, sftree)
 *
 * Levels come from fab_shape(): switches with CAs (or routers) attached are
 * the leaves, level 1; every other switch is one more than its nearest leaf
 * (a BFS up through the switches). Each switch-to-switch port then goes up
 * (to level + 1), down (to level - 1) or sideways between two leaves (a
 * sibling port: multi-core trees, rack-switch pairs). BFS distances never
 * differ by more than one across a link, so nothing else exists.
 *
 * The fabric is a fat tree for these engines when it has CAs, at least two
 * levels, no horizontal link above the leaves, and every leaf has an up
 * port. Switches of higher levels need no up port: in a degraded tree a
 * switch that lost its last link down takes a level above its parents and
 * some of those lose their "up" side; such switches simply act as roots.
 * Switches that no leaf reaches are left out (they have no route and no
 * engine could give them one to a CA). OpenSM's GUID files (ftree_hints.c)
 * may set the leaves (the compute nodes' switches) and the levels (counted
 * from the roots) instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/ftree/ftree.h"

/* The direction of the cable from switch @s to switch @t, or -1 when horizontal above level 1. */
static int link_dir(const uint32_t *level, uint32_t s, uint32_t t)
{
	if (level[t] == level[s] + 1)
		return FT_UP;
	if (level[t] + 1 == level[s])
		return FT_DOWN;
	return level[s] == 1 ? FT_SIB : -1;
}

/* Switch index at the other end of port @p of switch @s, FAB_NONE if none or itself. */
static uint32_t sw_peer(const struct fabric *f, uint32_t s, unsigned p)
{
	uint32_t t = fab_sw_peer(f, s, p);

	return t == s ? FAB_NONE : t;
}

static int not_a_tree_levels(const struct fabric *f, const struct fab_shape *sh,
			     struct fab_err *err)
{
	if (sh->ngroups)
		fab_err_set(err, "not a fat tree: all %u switches have CAs attached, no switch is "
			    "above the leaves (a dragonfly of %u groups of %u switches)",
			    f->nswitches, sh->ngroups, sh->group_size);
	else
		fab_err_set(err, "not a fat tree: all %u switches have CAs attached, no switch is "
			    "above the leaves", f->nswitches);
	return ENG_NOT_APPLICABLE;
}

/* The checks of the DOC comment; ENG_OK or ENG_NOT_APPLICABLE with @err. */
static int check_tree(const struct fabric *f, const struct fab_shape *sh, struct fab_err *err)
{
	uint32_t leaves = 0;

	if (!f->nswitches) {
		fab_err_set(err, "not a fat tree: the fabric has no switch");
		return ENG_NOT_APPLICABLE;
	}
	for (uint32_t s = 0; s < f->nswitches; s++)
		leaves += sh->level[s] == 1;
	if (!leaves) {
		fab_err_set(err, "not a fat tree: no CA is attached to a switch");
		return ENG_NOT_APPLICABLE;
	}
	if (sh->nlevels < 2)
		return not_a_tree_levels(f, sh, err);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		int up = 0;

		if (!sh->level[s])
			continue;
		for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
			uint32_t t = sw_peer(f, s, p);

			if (t == FAB_NONE)
				continue;
			if (link_dir(sh->level, s, t) < 0) {
				fab_err_set(err, "not a fat tree: switches '%s' and '%s' are linked at "
					    "level %u (horizontal links may only join leaf switches)",
					    ft_sw_name(f, s), ft_sw_name(f, t), sh->level[s]);
				return ENG_NOT_APPLICABLE;
			}
			up |= link_dir(sh->level, s, t) == FT_UP;
		}
		if (sh->level[s] == 1 && !up) {
			fab_err_set(err, "not a fat tree: leaf switch '%s' has no link to a switch "
				    "above the leaves", ft_sw_name(f, s));
			return ENG_NOT_APPLICABLE;
		}
	}
	return ENG_OK;
}

/* order[] and lvl_off[]: a counting sort of the switches by level. */
static int build_order(struct ft_model *m)
{
	uint32_t *pos = malloc(((size_t)m->nlevels + 2) * sizeof(*pos));

	m->order = malloc(((size_t)m->nsw + 1) * sizeof(*m->order));
	m->lvl_off = calloc((size_t)m->nlevels + 2, sizeof(*m->lvl_off));
	if (!pos || !m->order || !m->lvl_off) {
		free(pos);
		return -1;
	}
	for (uint32_t s = 0; s < m->nsw; s++)
		if (m->level[s])
			m->lvl_off[m->level[s] + 1]++;
	for (uint32_t l = 1; l <= m->nlevels + 1; l++)
		m->lvl_off[l] += m->lvl_off[l - 1];
	memcpy(pos, m->lvl_off, ((size_t)m->nlevels + 2) * sizeof(*pos));
	for (uint32_t s = 0; s < m->nsw; s++)
		if (m->level[s])
			m->order[pos[m->level[s]]++] = s;
	free(pos);
	return 0;
}

/* off[]: link counts per switch and direction, then prefix sums. */
static void count_links(struct ft_model *m)
{
	const struct fabric *f = m->f;

	for (uint32_t s = 0; s < m->nsw; s++) {
		if (!m->level[s])
			continue;
		for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
			uint32_t t = sw_peer(f, s, p);

			if (t != FAB_NONE)
				m->off[3 * s + 1 + link_dir(m->level, s, t)]++;
		}
	}
	for (uint32_t i = 1; i <= 3 * m->nsw; i++)
		m->off[i] += m->off[i - 1];
	m->nlinks = m->off[3 * m->nsw];
}

/* links[]: filled in port order per direction; @slot maps port slots to links. */
static int fill_links(struct ft_model *m)
{
	const struct fabric *f = m->f;
	uint32_t *fill = malloc(((size_t)3 * m->nsw + 1) * sizeof(*fill));
	uint32_t *slot = malloc(((size_t)f->nports + 1) * sizeof(*slot));

	m->links = malloc(((size_t)m->nlinks + 1) * sizeof(*m->links));
	if (!fill || !slot || !m->links) {
		free(fill);
		free(slot);
		return -1;
	}
	memcpy(fill, m->off, (size_t)3 * m->nsw * sizeof(*fill));
	for (uint32_t s = 0; s < m->nsw; s++) {
		uint32_t node = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[node].nports && m->level[s]; p++) {
			uint32_t t = sw_peer(f, s, p), i;

			if (t == FAB_NONE)
				continue;
			i = fill[3 * s + link_dir(m->level, s, t)]++;
			m->links[i] = (struct ft_link){ .peer = t, .port = (uint8_t)p,
				.peer_port = fab_port(f, node, p)->peer_port };
			slot[f->nodes[node].port0 + p] = i;
		}
	}
	for (uint32_t i = 0; i < m->nlinks; i++) {
		const struct ft_link *l = &m->links[i];

		m->links[i].back = slot[f->nodes[f->switches[l->peer]].port0 + l->peer_port];
	}
	free(fill);
	free(slot);
	return 0;
}

static void count_kinds(struct ft_model *m)
{
	for (uint32_t s = 0; s < m->nsw; s++) {
		if (!m->level[s]) {
			m->nignored++;
			continue;
		}
		m->nleaves += m->level[s] == 1;
		m->nroots += m->level[s] >= 2 && ft_first(m, s, FT_UP) == ft_end(m, s, FT_UP);
		m->nsib += ft_end(m, s, FT_SIB) - ft_first(m, s, FT_SIB);
	}
	m->nsib /= 2;
}

int ft_model_init(struct ft_model *m, const struct fabric *f, struct fab_err *err)
{
	return ft_model_init_hints(m, f, NULL, err);
}

int ft_model_init_hints(struct ft_model *m, const struct fabric *f, const struct ft_hints *h,
			struct fab_err *err)
{
	struct fab_shape sh;
	int rc;

	memset(m, 0, sizeof(*m));
	if (h && (h->nroots || h->cn)) {
		rc = ft_hint_levels(f, h, &sh, err);
		if (rc != ENG_OK)
			return rc;
	} else if (fab_shape(f, &sh, err)) {
		return ENG_ERROR;
	}
	rc = check_tree(f, &sh, err);
	if (rc != ENG_OK) {
		fab_shape_free(&sh);
		return rc;
	}
	m->f = f;
	m->nsw = f->nswitches;
	m->cn = h ? h->cn : NULL;
	m->level = sh.level;
	sh.level = NULL;
	fab_shape_free(&sh);
	for (uint32_t s = 0; s < m->nsw; s++)
		if (m->level[s] > m->nlevels)
			m->nlevels = m->level[s];
	m->off = calloc((size_t)3 * m->nsw + 1, sizeof(*m->off));
	if (!m->off || build_order(m) || (count_links(m), fill_links(m))) {
		ft_model_fini(m);
		fab_err_set(err, "out of memory modelling a fat tree of %u switches", f->nswitches);
		return ENG_ERROR;
	}
	count_kinds(m);
	return ENG_OK;
}

void ft_model_fini(struct ft_model *m)
{
	free(m->level);
	free(m->order);
	free(m->lvl_off);
	free(m->off);
	free(m->links);
	memset(m, 0, sizeof(*m));
}

char *ft_notes(const struct ft_model *m, const struct ft_hints *h, const struct ft_stats *st)
{
	char *s = malloc(1024), files[400] = "", why[300];
	int n;

	if (!s)
		return NULL;
	if (h)
		ft_hints_note(h, files, sizeof(files));
	n = snprintf(s, 1024,
		     "ranks: %u, leaves: %u, roots: %u, sibling links: %u; CA LIDs: %u (+%u dummies); "
		     "CA pairs without up/down path: %llu; switch pairs without up/down path: %llu%s%s",
		     m->nlevels, m->nleaves, m->nroots, m->nsib, st->ca_lids, st->dummies,
		     (unsigned long long)st->ca_holes, (unsigned long long)st->sw_holes,
		     m->nignored ? "; switches no leaf reaches are left unrouted" : "", files);
	if (n > 0 && n < 1024 && ft_osm_refuses(m, h, why, sizeof(why)))
		snprintf(s + n, 1024 - (size_t)n, "; OpenSM's ftree refuses this fabric (%s) and falls "
			 "back to its next engine", why);
	return s;
}
