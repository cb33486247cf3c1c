/* SPDX-License-Identifier: MIT */
/**
 * DOC: node-name-map files
 *
 * The file OpenSM (node_name_map_name) and the diags (--node-name-map)
 * read to give nodes the names a site uses::
 *
 *	# comment
 *	0x0002c90300a5a2c0 "spine-1"
 *	0x0002c90300a5a2d0  leaf-1	# a comment after the name
 *
 * One node GUID per line, as strtoull() reads it with base 0 ("0x" hex,
 * else decimal; a leading 0 makes it octal, as it does for OpenSM), then
 * the name: what follows up to a '"' or '#', the quotes not included.
 * Blank lines and lines starting with '#' are skipped; a line whose GUID
 * does not parse fails the whole file, as it does for OpenSM; a GUID
 * without a name is skipped. A GUID named twice keeps its first name
 * (OpenSM's map keeps the first too). Names longer than a node
 * description (64 bytes) are cut.
 *
 * Applying a map renames the nodes whose node GUID it lists: every report,
 * output file and the API then use the site's names, as the diags do.
 *
 * OpenSM reads its GUID files (root_guid_file, cn_guid_file, io_guid_file)
 * with the same parser, the rest of each line ignored: fmt_guids_parse().
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"

void fmt_names_free(struct fmt_names *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->name[i]);
	free(m->guid);
	free(m->name);
	memset(m, 0, sizeof(*m));
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* strtoull(p, &e, 0) on digits only: Return 0 with *@g and *@end set. */
static int map_guid(const char *p, uint64_t *g, const char **end)
{
	const char *s = p;
	unsigned base = 10;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	} else if (s[0] == '0') {
		base = 8;
	}
	if (fmt_hexval(*s) < 0 || (unsigned)fmt_hexval(*s) >= base)
		return -1;
	for (; fmt_hexval(*s) >= 0 && (unsigned)fmt_hexval(*s) < base; s++) {
		unsigned d = (unsigned)fmt_hexval(*s);

		if (v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	*g = v;
	*end = s;
	return 0;
}

static int add(struct fmt_names *m, size_t *cap, uint64_t guid, const char *name, size_t len)
{
	if (m->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		uint64_t *g = realloc(m->guid, nc * sizeof(*g));
		char **s;

		if (!g)
			return -1;
		m->guid = g;
		s = realloc(m->name, nc * sizeof(*s));
		if (!s)
			return -1;
		m->name = s;
		*cap = nc;
	}
	if (len > FAB_DESC_MAX)
		len = FAB_DESC_MAX;
	m->name[m->n] = strndup(name, len);
	if (!m->name[m->n])
		return -1;
	m->guid[m->n++] = guid;
	return 0;
}

/* One line: 0 (also when skipped), -1 with @err set. @guids: keep GUIDs without a name. */
static int map_line(struct fmt_names *m, size_t *cap, struct fmt_lines *it, int guids,
		    struct fab_err *err)
{
	const char *p = it->line, *e;
	char tok[48];
	uint64_t g;
	size_t n;

	while (is_space(*p))
		p++;
	if (!*p || *p == '#')
		return 0;
	if (map_guid(p, &g, &e) || (*e && !is_space(*e) && *e != '#')) {
		n = strcspn(p, " \t#");
		snprintf(tok, sizeof(tok), "%.*s%s", (int)(n > 40 ? 40 : n), p, n > 40 ? "..." : "");
		fmt_err_at(err, it, "expected a %sGUID (0x hex or decimal)%s, found '%s'",
			   guids ? "" : "node ", guids ? "" : " and a name", tok);
		return -1;
	}
	p = e;
	while (is_space(*p) || *p == '"')	/* strtok(p, "\"#") skips leading quotes */
		p++;
	if ((!*p || *p == '#') && !guids)
		return 0;
	n = strcspn(p, "\"#");
	if (add(m, cap, g, p, n)) {
		fmt_err_at(err, it, "out of memory");
		return -1;
	}
	return 0;
}

struct entry {
	uint64_t guid;
	size_t i;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Keep the first name of every GUID, in file order. */
static int dedupe(struct fmt_names *m)
{
	struct entry *e = malloc((m->n + 1) * sizeof(*e));
	size_t k = 0;

	if (!e)
		return -1;
	for (size_t i = 0; i < m->n; i++)
		e[i] = (struct entry){ m->guid[i], i };
	qsort(e, m->n, sizeof(*e), cmp_entry);
	for (size_t i = 1; i < m->n; i++)
		if (e[i].guid == e[i - 1].guid) {
			free(m->name[e[i].i]);
			m->name[e[i].i] = NULL;
		}
	for (size_t i = 0; i < m->n; i++)
		if (m->name[i]) {
			m->guid[k] = m->guid[i];
			m->name[k++] = m->name[i];
		}
	m->n = k;
	free(e);
	return 0;
}

static int parse_map(const char *buf, size_t len, const char *name, int guids,
		     struct fmt_names *m, struct fab_err *err)
{
	struct fmt_lines it;
	size_t cap = 0;
	int r, rc = 0;

	memset(m, 0, sizeof(*m));
	if (fmt_check_text(buf, len, name, err))
		return -1;
	fmt_lines_init(&it, buf, len, name);
	while (!rc && (r = fmt_lines_next(&it)) != 0) {
		if (r < 0) {
			fab_err_set(err, "%s: out of memory", name);
			rc = -1;
		} else {
			rc = map_line(m, &cap, &it, guids, err);
		}
	}
	fmt_lines_fini(&it);
	if (!rc && dedupe(m)) {
		fab_err_set(err, "%s: out of memory", name);
		rc = -1;
	}
	if (rc)
		fmt_names_free(m);
	return rc;
}

int fmt_names_parse(const char *buf, size_t len, const char *name, struct fmt_names *m,
		    struct fab_err *err)
{
	return parse_map(buf, len, name, 0, m, err);
}

int fmt_guids_parse(const char *buf, size_t len, const char *name, uint64_t **guids, size_t *n,
		    struct fab_err *err)
{
	struct fmt_names m;

	*guids = NULL;
	*n = 0;
	if (parse_map(buf, len, name, 1, &m, err))
		return -1;
	for (size_t i = 0; i < m.n; i++)
		free(m.name[i]);
	free(m.name);
	*guids = m.guid;
	*n = m.n;
	return 0;
}

int fmt_names_load(const char *path, struct fmt_names *m, struct fab_err *err)
{
	char *buf;
	size_t len;
	int rc;

	memset(m, 0, sizeof(*m));
	if (fmt_read_file(path, &buf, &len, err))
		return -1;
	rc = fmt_names_parse(buf, len, path, m, err);
	free(buf);
	return rc;
}

int fmt_names_apply(struct fabric *f, const struct fmt_names *m, struct fab_err *err)
{
	int renamed = 0;

	for (size_t i = 0; i < m->n; i++) {
		uint32_t n = fab_node_by_guid(f, m->guid[i]);

		if (n == FAB_NONE || !strcmp(fab_desc(f, n), m->name[i]))
			continue;
		if (fab_node_set_desc(f, n, m->name[i])) {
			fab_err_set(err, "out of memory naming nodes");
			return -1;
		}
		renamed++;
	}
	if (renamed && fab_finalize(f, err))
		return -1;
	return renamed;
}
