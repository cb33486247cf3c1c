/* SPDX-License-Identifier: MIT */
/**
 * DOC: dragonfly groups file
 *
 * One line per switch, "NODE GROUP": NODE a node GUID (0x...) or a node
 * description (in double quotes when it holds blanks), GROUP any word
 * naming the group; '#' starts a comment. Nodes the fabric does not have
 * are skipped (a switch that is down); every switch of the fabric must be
 * named. The labels it gives are checked as groups by fab_dfly_find()
 * (fabric/dfly.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/dfly.h"
#include "formats/formats.h"

static const char *sw_name(const struct fabric *f, uint32_t sw)
{
	return fab_desc(f, f->switches[sw]);
}

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

/* The node named @name (a description or a 0x GUID); FAB_NONE with *@bad set if ambiguous. */
static uint32_t gfile_node(struct gfile *g, const char *name, int *bad)
{
	struct fab_err err = { { 0 } };
	uint32_t n = fab_node_resolve(g->f, name, NULL, &err);

	*bad = 0;
	if (n == FAB_NONE && fab_node_by_desc(g->f, name, NULL) != FAB_NONE) {
		fmt_err_at(g->err, &g->it, "%s", err.msg);
		*bad = 1;
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

int fmt_groups_read(const struct fabric *f, const char *buf, size_t len, const char *name,
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

int fmt_dfly_find(const struct fabric *f, const char *buf, size_t len, const char *name,
		  struct fab_dfly *d, struct fab_err *err)
{
	uint32_t *labels;
	int rc;

	if (!buf || f->nswitches < 2)
		return fab_dfly_find(f, NULL, d, err);
	labels = malloc(((size_t)f->nswitches + 1) * sizeof(*labels));
	if (!labels) {
		memset(d, 0, sizeof(*d));
		fab_err_set(err, "out of memory");
		return -1;
	}
	rc = fmt_groups_read(f, buf, len, name ? name : "groups file", labels, err);
	if (!rc)
		rc = fab_dfly_find(f, labels, d, err);
	else
		memset(d, 0, sizeof(*d));
	free(labels);
	return rc;
}
