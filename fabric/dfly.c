/* SPDX-License-Identifier: MIT */
/**
 * DOC: dragonfly groups: discovery, groups file, verification
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
#include "fabric/formats.h"

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

/* --- groups file ------------------------------------------------------------ */

struct gfile {
	const struct fabric *f;
	struct fmt_lines it;
	struct fab_err *err;
	uint32_t *group;	/* per switch: label id, FAB_NONE = not named yet */
	uint32_t *line;		/* per switch: the line naming it */
	char **labels;
	uint32_t nlabels, cap;
	unsigned unknown, unknown_line;
};

static uint32_t label_id(struct gfile *g, const char *w, size_t len)
{
	for (uint32_t i = 0; i < g->nlabels; i++)
		if (strlen(g->labels[i]) == len && !strncmp(g->labels[i], w, len))
			return i;
	if (g->nlabels == g->cap) {
		uint32_t cap = g->cap ? g->cap * 2 : 16;
		char **l = realloc(g->labels, cap * sizeof(*l));

		if (!l)
			return FAB_NONE;
		g->labels = l;
		g->cap = cap;
	}
	g->labels[g->nlabels] = strndup(w, len);
	return g->labels[g->nlabels] ? g->nlabels++ : FAB_NONE;
}

/* The node named @name (a 0x GUID or a description); FAB_NONE if none, -1 in *@bad if ambiguous. */
static uint32_t gfile_node(struct gfile *g, const char *name, int *bad)
{
	unsigned count = 0;
	uint32_t n = fab_node_by_desc(g->f, name, &count);

	*bad = 0;
	if (n != FAB_NONE && count > 1) {
		fmt_err_at(g->err, &g->it, "description \"%s\" names %u nodes; give the node GUID",
			   name, count);
		*bad = 1;
		return FAB_NONE;
	}
	if (n == FAB_NONE && name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(name + 2, &end, 16);
		if (!errno && !*end && end != name + 2)
			n = fab_node_by_guid(g->f, v);
	}
	return n;
}

/* Split a line into the node name (copied to @node) and the group word. */
static int gfile_split(struct gfile *g, char *p, char **node, char **word, size_t *wlen)
{
	char *end = p + strlen(p);

	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	*word = end;
	while (*word > p && (*word)[-1] != ' ' && (*word)[-1] != '\t')
		(*word)--;
	*wlen = (size_t)(end - *word);
	end = *word;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == p || !*wlen) {
		fmt_err_at(g->err, &g->it, "expected \"NODE GROUP\" (a node GUID or description, "
			   "then a group name)");
		return -1;
	}
	if (*p == '"') {
		if (end - p < 2 || end[-1] != '"' || memchr(p + 1, '"', (size_t)(end - p - 2))) {
			fmt_err_at(g->err, &g->it, "expected a description in double quotes, then "
				   "the group name");
			return -1;
		}
		p++;
		end--;
	}
	*end = '\0';
	*node = p;
	return 0;
}

static int gfile_line(struct gfile *g)
{
	char *p = g->it.line, *node, *word;
	size_t wlen;
	uint32_t n, sw, id;
	int bad;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#' || *p == '\r')
		return 0;
	if (gfile_split(g, p, &node, &word, &wlen))
		return -1;
	n = gfile_node(g, node, &bad);
	if (bad)
		return -1;
	if (n == FAB_NONE) {
		if (!g->unknown++)
			g->unknown_line = g->it.no;
		return 0;
	}
	if (g->f->nodes[n].type != FAB_SWITCH) {
		fmt_err_at(g->err, &g->it, "\"%s\" is a %s; expected a switch", node,
			   fab_node_type_name(g->f->nodes[n].type));
		return -1;
	}
	sw = g->f->nodes[n].swidx;
	id = label_id(g, word, wlen);
	if (id == FAB_NONE) {
		fab_err_set(g->err, "out of memory");
		return -1;
	}
	if (g->group[sw] != FAB_NONE && g->group[sw] != id) {
		fmt_err_at(g->err, &g->it, "switch \"%s\" is put in group \"%s\"; line %u put it "
			   "in \"%s\"", node, g->labels[id], g->line[sw], g->labels[g->group[sw]]);
		return -1;
	}
	g->group[sw] = id;
	g->line[sw] = g->it.no;
	return 0;
}

/* Group label of every switch from the file; 0, FAB_DFLY_NOT or -1. */
static int gfile_read(const struct fabric *f, const char *buf, size_t len, const char *name,
		      uint32_t *group, struct fab_err *err)
{
	struct gfile g = { .f = f, .err = err, .group = group };
	int rc = 0, more;

	if (fmt_check_text(buf, len, name, err))
		return -1;
	g.line = calloc((size_t)f->nswitches + 1, sizeof(*g.line));
	if (!g.line) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	for (uint32_t s = 0; s < f->nswitches; s++)
		group[s] = FAB_NONE;
	fmt_lines_init(&g.it, buf, len, name);
	while (!rc && (more = fmt_lines_next(&g.it)) != 0)
		rc = more < 0 ? (fab_err_set(err, "out of memory"), -1) : gfile_line(&g);
	fmt_lines_fini(&g.it);
	for (uint32_t s = 0; !rc && s < f->nswitches; s++)
		if (group[s] == FAB_NONE) {
			rc = FAB_DFLY_NOT;
			if (g.unknown)
				fab_err_set(err, "%s names no group for switch \"%s\" (0x%016" PRIx64 "); "
					    "%u of its lines name nodes the fabric lacks, the first at line %u",
					    name, sw_name(f, s), f->nodes[f->switches[s]].guid, g.unknown,
					    g.unknown_line);
			else
				fab_err_set(err, "%s names no group for switch \"%s\" (0x%016" PRIx64 ")",
					    name, sw_name(f, s), f->nodes[f->switches[s]].guid);
		}
	for (uint32_t i = 0; i < g.nlabels; i++)
		free(g.labels[i]);
	free(g.labels);
	free(g.line);
	return rc;
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

int fab_dfly_find(const struct fabric *f, const char *groups, size_t len, const char *name,
		  struct fab_dfly *d, struct fab_err *err)
{
	uint32_t n = f->nswitches, best = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	d->from_file = groups != NULL;
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
	if (groups)
		rc = gfile_read(f, groups, len, name ? name : "groups file", d->group, err);
	else
		rc = discover(f, d->group, &best, err);
	if (!rc)
		rc = number(f, d, n, best, err);
	if (!rc)
		rc = verify(f, d, err);
	if (rc)
		fab_dfly_free(d);
	return rc;
}
