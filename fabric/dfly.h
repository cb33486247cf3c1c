/* SPDX-License-Identifier: MIT */
/**
 * DOC: dragonfly structure
 *
 * Finds the groups of a dragonfly (papers/004): a switches per group, linked
 * all to all inside the group (local channels, lc), h links per switch to
 * other groups (global channels, gc), every pair of groups linked. The
 * groups come from the switches' closed neighbourhoods N[v] = {v} + adj(v)
 * or from a groups file (parsed in formats/), and are then verified; what the routing engine
 * dla and the dragonfly metrics of analysis/ build on.
 *
 * Discovery: for every switch-to-switch link u-v, c(u, v) = |N[u] ^ N[v]|.
 * With one global link per pair of groups, a local link has c = a and a
 * global one c = 2 + the global triangles through it, at most h + 1. The
 * groups are the connected components of the links with the largest c.
 * This separates the groups whenever a >= h + 2; on smaller groups (for
 * example a=3, h=2) global links may score like local ones and the groups
 * must be named in a file.
 *
 * Verification, whichever way the groups came: at least two groups, all of
 * the same size a; every two switches of a group linked (parallel cables
 * allowed); every switch with the same number h >= 1 of global ports; every
 * two groups linked. Groups are numbered in the order of their first switch
 * in the fabric, switches within a group in fabric order (their rank), so a
 * file and discovery give the same numbering.
 */
#ifndef FABROUTE_DFLY_H
#define FABROUTE_DFLY_H

#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"

/* What a port is in a dragonfly. */
enum fab_df_class {
	FAB_DF_NONE = 0,	/* not linked (or port 0) */
	FAB_DF_TERMINAL,	/* to a CA or router: tc */
	FAB_DF_LOCAL,		/* to a switch of the same group: lc */
	FAB_DF_GLOBAL,		/* to a switch of another group: gc */
};

/**
 * struct fab_dfly - the groups of a dragonfly
 * @ngroups, @a, @h: groups, switches per group, global ports per switch
 * @group: per switch (index in fabric->switches), its group
 * @rank: per switch, its position in its group (0 .. a-1)
 * @member: switch indexes, group by group in rank order (ngroups * a)
 * @cls: per port slot (index in fabric->ports): enum fab_df_class
 * @from_file: the groups came from a groups file
 */
struct fab_dfly {
	uint32_t ngroups, a, h;
	uint32_t *group;
	uint32_t *rank;
	uint32_t *member;
	uint8_t *cls;
	int from_file;
};

/* fab_dfly_find()'s results besides 0 (a verified dragonfly). */
#define FAB_DFLY_NOT 1	/* not a fully connected dragonfly (or ambiguous): @err says why */

/**
 * fab_dfly_find() - the groups of @f, verified
 * @labels: a group label (any number below nswitches) per switch, as a
 *          groups file gives them (formats/: fmt_groups_read(),
 *          fmt_dfly_find()), or NULL to discover the groups from the closed
 *          neighbourhoods
 * Return: 0 with @d filled (release with fab_dfly_free()), FAB_DFLY_NOT
 * with @err saying why the fabric is not such a dragonfly, or -1 with @err
 * set (out of memory). @d holds nothing to free unless 0 is returned.
 */
int fab_dfly_find(const struct fabric *f, const uint32_t *labels, struct fab_dfly *d,
		  struct fab_err *err);
void fab_dfly_free(struct fab_dfly *d);

/** fab_dfly_class() - class of port @port of node @node (FAB_DF_NONE for CAs' ports). */
static inline enum fab_df_class fab_dfly_class(const struct fabric *f, const struct fab_dfly *d,
					       uint32_t node, unsigned port)
{
	return (enum fab_df_class)d->cls[f->nodes[node].port0 + port];
}

#endif
