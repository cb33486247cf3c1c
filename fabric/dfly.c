/* SPDX-License-Identifier: MIT */
/**
 * DOC: dragonfly groups: discovery, verification
 *
 * See dfly.h for what is found and checked. Cost: O(links x degree) for the
 * closed neighbourhoods (sorted neighbour lists merged per link), O(ports)
 * for the verification, plus an a x a and a g x g table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/dfly.h"

void fab_dfly_free(struct fab_dfly *d)
{
	free(d->group);
	free(d->rank);
	free(d->member);
	free(d->cls);
	memset(d, 0, sizeof(*d));
}

static const char *sw_name(const struct fabric *f, uint32_t sw)
{
	return fab_desc(f, f->switches[sw]);
}

/* --- discovery by closed neighbourhoods ---------------------------------- */

/* |adj(u) ^ adj(v)|: switches adjacent to both. */
static uint32_t common(const uint32_t *off, const uint32_t *adj, uint32_t u, uint32_t v)
{
	uint32_t i = off[u], j = off[v], n = 0;

	while (i < off[u + 1] && j < off[v + 1]) {
		if (adj[i] == adj[j]) {
			n++;
			i++;
			j++;
		} else if (adj[i] < adj[j]) {
			i++;
		} else {
			j++;
		}
	}
	return n;
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

/*
 * Group of every switch: the components of the links whose closed
 * neighbourhoods share the most switches. *@best gets that count.
 */
static int discover(const struct fabric *f, uint32_t *group, uint32_t *best, struct fab_err *err)
{
	uint32_t *off, *adj, n = f->nswitches, top = 0;

	if (fab_sw_neighbours(f, &off, &adj)) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t u = 0; u < n; u++) {
			group[u] = pass ? group[u] : u;
			for (uint32_t k = off[u]; k < off[u + 1]; k++) {
				uint32_t v = adj[k], c;

				if (v < u)
					continue;
				c = 2 + common(off, adj, u, v);
				if (!pass && c > top)
					top = c;
				else if (pass && c == top)
					group[uf_find(group, u)] = uf_find(group, v);
			}
		}
	for (uint32_t u = 0; u < n; u++)
		group[u] = uf_find(group, u);
	free(off);
	free(adj);
	*best = top;
	return 0;
}

/* --- numbering and verification --------------------------------------------- */

/* Groups of one size, at least two: 0, or FAB_DFLY_NOT with the reason. */
static int check_sizes(const struct fabric *f, const struct fab_dfly *d, const uint32_t *size,
		       uint32_t best, struct fab_err *err)
{
	uint32_t big = 0, odd = FAB_NONE;

	for (uint32_t s = 0; s < f->nswitches; s++) {
		if (size[d->group[s]] > size[d->group[big]])
			big = s;
		if (odd == FAB_NONE && size[d->group[s]] != d->a)
			odd = s;
	}
	if (!d->from_file && best < 3)
		fab_err_set(err, "no three switches are linked all to all: not a dragonfly, or "
			    "one with groups of two switches (name the groups in a file)");
	else if (!d->from_file && size[d->group[big]] > best)
		fab_err_set(err, "the closed neighbourhoods do not separate the groups: \"%s\" "
			    "falls in a group of %u switches where local links have %u switches "
			    "in common (global links score like local ones when a <= h+1); "
			    "name the groups in a file (dla.groups)", sw_name(f, big),
			    size[d->group[big]], best);
	else if (odd != FAB_NONE && d->from_file)
		fab_err_set(err, "groups of different sizes: \"%s\" is in a group of %u "
			    "switches, \"%s\" in one of %u", sw_name(f, 0), d->a, sw_name(f, odd),
			    size[d->group[odd]]);
	else if (odd != FAB_NONE)
		fab_err_set(err, "not a dragonfly of equal cliques: \"%s\" is in a group of "
			    "%u switches, \"%s\" in one of %u (a lost local link?)", sw_name(f, 0),
			    d->a, sw_name(f, odd), size[d->group[odd]]);
	else if (d->ngroups < 2)
		fab_err_set(err, "one group of %u switches: not a dragonfly", d->a);
	else
		return 0;
	return FAB_DFLY_NOT;
}

/*
 * Renumber the groups (any ids below @nids) in the order of their first
 * switch, rank the switches, check the sizes. 0, FAB_DFLY_NOT or -1.
 */
static int number(const struct fabric *f, struct fab_dfly *d, uint32_t nids, uint32_t best,
		  struct fab_err *err)
{
	uint32_t n = f->nswitches, *map = malloc(((size_t)nids + 1) * sizeof(*map));
	uint32_t *size = calloc((size_t)n + 1, sizeof(*size));
	int rc;

	if (!map || !size) {
		free(map);
		free(size);
		fab_err_set(err, "out of memory");
		return -1;
	}
	memset(map, 0xff, ((size_t)nids + 1) * sizeof(*map));
	for (uint32_t s = 0; s < n; s++) {
		uint32_t *m = &map[d->group[s]];

		if (*m == FAB_NONE)
			*m = d->ngroups++;
		d->group[s] = *m;
		d->rank[s] = size[*m]++;
	}
	d->a = size[0];
	rc = check_sizes(f, d, size, best, err);
	for (uint32_t s = 0; !rc && s < n; s++)
		d->member[(size_t)d->group[s] * d->a + d->rank[s]] = s;
	free(map);
	free(size);
	return rc;
}

/* Port classes, switch by switch; the local links counted per pair of ranks. */
static int classify(const struct fabric *f, struct fab_dfly *d, uint32_t *lpair, uint32_t *gpair,
		    struct fab_err *err)
{
	uint32_t a = d->a, g = d->ngroups;

	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s], nglob = 0;

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			const struct fab_port *x = fab_port(f, node, p);
			uint32_t t = fab_sw_peer(f, s, p);
			uint8_t *c = &d->cls[f->nodes[node].port0 + p];

			if (x->peer == FAB_NONE)
				continue;
			if (t == FAB_NONE) {
				*c = FAB_DF_TERMINAL;
			} else if (t == s) {
				fab_err_set(err, "switch \"%s\" has a cable from port %u to itself",
					    sw_name(f, s), p);
				return FAB_DFLY_NOT;
			} else if (d->group[t] == d->group[s]) {
				*c = FAB_DF_LOCAL;
				lpair[((size_t)d->group[s] * a + d->rank[s]) * a + d->rank[t]]++;
			} else {
				*c = FAB_DF_GLOBAL;
				gpair[(size_t)d->group[s] * g + d->group[t]]++;
				nglob++;
			}
		}
		if (!s)
			d->h = nglob;
		if (nglob != d->h || !nglob) {
			fab_err_set(err, "switches with different numbers of global links: \"%s\" has "
				    "%u, \"%s\" %u (a lost global link?)", sw_name(f, 0), d->h,
				    sw_name(f, s), nglob);
			return FAB_DFLY_NOT;
		}
	}
	return 0;
}

/* Every group a clique, every two groups linked. */
static int check_links(const struct fabric *f, const struct fab_dfly *d, const uint32_t *lpair,
		       const uint32_t *gpair, struct fab_err *err)
{
	uint32_t a = d->a, g = d->ngroups;

	for (uint32_t G = 0; G < g; G++)
		for (uint32_t i = 0; i < a; i++)
			for (uint32_t j = 0; j < a; j++)
				if (i != j && !lpair[((size_t)G * a + i) * a + j]) {
					fab_err_set(err, "group %u is not a clique: no local link between "
						    "\"%s\" and \"%s\"", G,
						    sw_name(f, d->member[(size_t)G * a + i]),
						    sw_name(f, d->member[(size_t)G * a + j]));
					return FAB_DFLY_NOT;
				}
	for (uint32_t G = 0; G < g; G++)
		for (uint32_t T = 0; T < g; T++)
			if (G != T && !gpair[(size_t)G * g + T]) {
				fab_err_set(err, "groups %u (\"%s\") and %u (\"%s\") have no global link",
					    G, sw_name(f, d->member[(size_t)G * a]), T,
					    sw_name(f, d->member[(size_t)T * a]));
				return FAB_DFLY_NOT;
			}
	return 0;
}

static int verify(const struct fabric *f, struct fab_dfly *d, struct fab_err *err)
{
	size_t a = d->a, g = d->ngroups;
	uint32_t *lpair = calloc(g * a * a + 1, sizeof(*lpair));
	uint32_t *gpair = calloc(g * g + 1, sizeof(*gpair));
	int rc;

	if (!lpair || !gpair) {
		free(lpair);
		free(gpair);
		fab_err_set(err, "out of memory");
		return -1;
	}
	rc = classify(f, d, lpair, gpair, err);
	if (!rc)
		rc = check_links(f, d, lpair, gpair, err);
	free(lpair);
	free(gpair);
	return rc;
}

int fab_dfly_find(const struct fabric *f, const uint32_t *labels, struct fab_dfly *d,
		  struct fab_err *err)
{
	uint32_t n = f->nswitches, best = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	d->from_file = labels != NULL;
	d->group = malloc(((size_t)n + 1) * sizeof(*d->group));
	d->rank = malloc(((size_t)n + 1) * sizeof(*d->rank));
	d->member = malloc(((size_t)n + 1) * sizeof(*d->member));
	d->cls = calloc((size_t)f->nports + 1, 1);
	if (!d->group || !d->rank || !d->member || !d->cls) {
		fab_dfly_free(d);
		fab_err_set(err, "out of memory");
		return -1;
	}
	if (n < 2) {
		fab_dfly_free(d);
		fab_err_set(err, "%u switch%s: not a dragonfly", n, n == 1 ? "" : "es");
		return FAB_DFLY_NOT;
	}
	if (labels) {
		memcpy(d->group, labels, (size_t)n * sizeof(*d->group));
		rc = 0;
	} else {
		rc = discover(f, d->group, &best, err);
	}
	if (!rc)
		rc = number(f, d, n, best, err);
	if (!rc)
		rc = verify(f, d, err);
	if (rc)
		fab_dfly_free(d);
	return rc;
}
