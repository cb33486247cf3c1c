/* SPDX-License-Identifier: MIT */
/**
 * DOC: node-name-map
 *
 * The file ibnetdiscover, ibroute and OpenSM read with --node-name-map to
 * give nodes names of the site's choosing instead of their node
 * descriptions: one node GUID and its name per line,
 *
 *   # comment
 *   0x0002c90300a1b2c0 "node001"
 *   0x0002c90300a1b2d0 "leaf-07 rack 3"
 *
 * The GUID is 0x and hex digits (or decimal, as the tools' strtoull()
 * takes it); the name is the text between the quotes, or without quotes
 * the text up to a '#' (trimmed). Lines without a name are skipped, as the
 * tools skip them. A GUID named twice with two different names is an
 * error: which one a tool shows would depend on the tool.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"

/* Most entries a map may hold. */
#define NMAP_MAX (1u << 20)

static int cmp_entry(const void *a, const void *b)
{
	const struct fmt_name *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static int add(struct fmt_namemap *m, uint64_t guid, const char *name, size_t len, unsigned line)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct fmt_name *e = realloc(m->e, cap * sizeof(*e));

		if (!e)
			return -1;
		m->e = e;
		m->cap = cap;
	}
	if (!(m->e[m->n].name = strndup(name, len)))
		return -1;
	m->e[m->n].guid = guid;
	m->e[m->n++].line = line;
	return 0;
}

/* "GUID NAME": 1 when added, 0 when the line holds nothing, -1 on an error. */
static int nmap_line(struct fmt_namemap *m, struct fmt_lines *it, struct fab_err *err)
{
	const char *p = it->line, *name, *end;
	uint64_t guid;
	char *e;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == '#')
		return 0;
	if (!isdigit((unsigned char)*p) || (guid = strtoull(p, &e, 0), e == p) ||
	    (*e && !isspace((unsigned char)*e) && *e != '#')) {
		fmt_err_at(err, it, "expected a node GUID (0x and hex digits) and a name");
		return -1;
	}
	for (p = e; isspace((unsigned char)*p); p++)
		;
	if (*p == '"') {
		name = p + 1;
		if (!(end = strchr(name, '"'))) {
			fmt_err_at(err, it, "expected the closing '\"' of the name");
			return -1;
		}
	} else {
		name = p;
		end = name + strcspn(name, "#");
		while (end > name && isspace((unsigned char)end[-1]))
			end--;
	}
	if (end == name)
		return 0;
	if (m->n >= NMAP_MAX) {
		fmt_err_at(err, it, "more than %u names", NMAP_MAX);
		return -1;
	}
	if (add(m, guid, name, (size_t)(end - name), it->no)) {
		fab_err_set(err, "%s: out of memory", it->name);
		return -1;
	}
	return 1;
}

/* Sort by GUID; the same GUID twice must carry the same name (one entry is kept). */
static int settle(struct fmt_namemap *m, const char *file, struct fab_err *err)
{
	size_t k = 0;

	qsort(m->e, m->n, sizeof(*m->e), cmp_entry);
	for (size_t i = 0; i < m->n; i++) {
		if (k && m->e[k - 1].guid == m->e[i].guid) {
			if (strcmp(m->e[k - 1].name, m->e[i].name)) {
				unsigned a = m->e[k - 1].line, b = m->e[i].line;

				fab_err_set(err, "%s:%u: node GUID 0x%016" PRIx64 " is named '%s' here and "
					    "'%s' on line %u", file, a > b ? a : b, m->e[i].guid,
					    a > b ? m->e[k - 1].name : m->e[i].name,
					    a > b ? m->e[i].name : m->e[k - 1].name, a > b ? b : a);
				for (size_t j = i; j < m->n; j++)	/* not kept yet */
					free(m->e[j].name);
				m->n = k;
				return -1;
			}
			free(m->e[i].name);
			continue;
		}
		m->e[k++] = m->e[i];
	}
	m->n = k;
	return 0;
}

int fmt_namemap_parse(const char *buf, size_t len, const char *name, struct fmt_namemap *m,
		      struct fab_err *err)
{
	struct fmt_lines it;
	int rc = 0, more;

	memset(m, 0, sizeof(*m));
	if (fmt_check_text(buf, len, name, err))
		return -1;
	fmt_lines_init(&it, buf, len, name);
	while (rc >= 0 && (more = fmt_lines_next(&it)) > 0)
		rc = nmap_line(m, &it, err);
	fmt_lines_fini(&it);
	if (rc >= 0 && more < 0) {
		fab_err_set(err, "%s: out of memory", name);
		rc = -1;
	}
	if (rc >= 0 && settle(m, name, err))
		rc = -1;
	if (rc < 0)
		fmt_namemap_free(m);
	return rc < 0 ? -1 : 0;
}

const char *fmt_namemap_get(const struct fmt_namemap *m, uint64_t guid)
{
	size_t lo = 0, hi = m ? m->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->e[mid].guid == guid)
			return m->e[mid].name;
		if (m->e[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void fmt_namemap_free(struct fmt_namemap *m)
{
	for (size_t i = 0; m && i < m->n; i++)
		free(m->e[i].name);
	if (m) {
		free(m->e);
		memset(m, 0, sizeof(*m));
	}
}
