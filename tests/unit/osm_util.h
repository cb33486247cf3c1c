/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the OpenSM dump tests (test_osm_dumps.c, test_osm_bad.c):
 * loading the fixtures of tests/data/osm, parsing a text as one of the four
 * formats, and expecting a failure with a given message.
 */
#ifndef FABROUTE_OSM_UTIL_H
#define FABROUTE_OSM_UTIL_H

#include "tests/unit/testutil.h"

#include <errno.h>

#include "fabric/routing.h"

static const char *const cases[] = { "mixed", "fattree", "ring", "mixed-lmc1" };
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* --- helpers ------------------------------------------------------------------ */

/* noinline: inlined, gcc 12 takes the returned buffer for a dangling local */
__attribute__((noinline, unused)) static char *load(const char *dir, const char *file,
						    size_t *len)
{
	struct fab_err err = { { 0 } };
	char rel[256], *buf = NULL;
	size_t n = 0;

	snprintf(rel, sizeof(rel), "osm/%s/%s", dir, file);
	if (fmt_read_file(tu_data(rel), &buf, &n, &err))
		fail_msg("%s", err.msg);
	if (len)
		*len = n;
	return buf;
}

enum which { LFTS, FDBS, SUBNET, GUID2LID };

static int no_pins;	/* what parse_as() returns for a guid2lid without entries */

/* Run the parser of @w; the result (routing, fabric or pins), or NULL with @err set. */
static inline void *parse_as(enum which w, const char *text, size_t len, const char *name,
		      const struct fabric *f, struct fab_err *err, size_t *npins)
{
	struct fab_lid_pin *pins = NULL;

	switch (w) {
	case LFTS:
		return fmt_lfts_parse(text, len, name, f, err);
	case FDBS:
		return fmt_fdbs_parse(text, len, name, f, err);
	case SUBNET:
		return fmt_subnet_parse(text, len, name, err);
	case GUID2LID:
		if (fmt_guid2lid_parse(text, len, name, &pins, npins, err))
			return NULL;
		return pins ? (void *)pins : (void *)&no_pins;
	}
	return NULL;
}

static inline void drop(enum which w, void *got)
{
	if (w == LFTS || w == FDBS)
		rt_free(got);
	else if (w == SUBNET)
		fab_free(got);
	else if (got != &no_pins)
		free(got);
}

/* Parse a fixture file; fails the test with the parser's message. */
static inline void *fixture(enum which w, const char *dir, const char *file, const struct fabric *f)
{
	struct fab_err err = { { 0 } };
	size_t len, npins;
	char *buf = load(dir, file, &len);
	void *got = parse_as(w, buf, len, file, f, &err, &npins);

	if (!got)
		fail_msg("%s/%s: %s", dir, file, err.msg);
	free(buf);
	return got;
}

static inline struct fabric *subnet_of(const char *dir)
{
	return fixture(SUBNET, dir, "opensm-subnet.lst", NULL);
}

/* Give the fabric the LIDs and LMCs of the case's guid2lid, as OpenSM had them. */
static inline void pin_lids(struct fabric *f, const char *dir)
{
	struct fab_err err = { { 0 } };
	size_t len, n = 0;
	char *buf = load(dir, "guid2lid", &len);
	struct fab_lid_pin *pins = parse_as(GUID2LID, buf, len, "guid2lid", NULL, &err, &n);

	if (!pins || fab_lids_assign(f, pins, n, FAB_LIDS_KEEP, 0, &err))
		fail_msg("%s: %s", dir, err.msg);
	drop(GUID2LID, pins);
	free(buf);
}

static inline char *lfts_text(const struct fabric *f, const struct rt_routing *r, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *mf = open_memstream(&buf, &n);

	assert_non_null(mf);
	assert_int_equal(fmt_lfts_write(mf, f, r), 0);
	fclose(mf);
	if (len)
		*len = n;
	return buf;
}

/* @text with the first (or, with @all, every) @from replaced by @to; the caller frees. */
static inline char *replaced(const char *text, const char *from, const char *to, int all)
{
	const char *at = strstr(text, from);
	size_t head = (size_t)(at - text);
	char *out;

	if (!at)
		fail_msg("fixture lacks \"%s\"", from);
	out = malloc(strlen(text) - strlen(from) + strlen(to) + 1);
	assert_non_null(out);
	memcpy(out, text, head);
	strcpy(out + head, to);
	strcat(out, at + strlen(from));
	if (all && strstr(out + head + strlen(to), from)) {
		char *again = replaced(out, from, to, 1);

		free(out);
		out = again;
	}
	return out;
}

/* Parse @text as @w and expect a failure whose message starts with @where and holds @needle. */
static inline void fails_len(enum which w, const char *text, size_t len, const char *where,
		      const char *needle)
{
	static const char *const names[] = { "bad.dump", "bad.fdbs", "bad.lst", "bad.g2l" };
	struct fab_err err = { { 0 } };
	struct fabric *f = w == LFTS || w == FDBS ? subnet_of("mixed") : NULL;
	size_t npins;
	void *got = parse_as(w, text, len, names[w], f, &err, &npins);

	fab_free(f);
	if (got) {
		drop(w, got);
		fail_msg("expected an error containing \"%s\", the parse succeeded", needle);
	}
	if (strncmp(err.msg, where, strlen(where)))
		fail_msg("error \"%s\" does not start with \"%s\"", err.msg, where);
	if (!strstr(err.msg, needle))
		fail_msg("error \"%s\" does not contain \"%s\"", err.msg, needle);
}

static inline void fails(enum which w, const char *text, const char *where, const char *needle)
{
	fails_len(w, text, strlen(text), where, needle);
}

static inline uint32_t node_named(const struct fabric *f, const char *desc)
{
	unsigned count = 0;
	uint32_t n = fab_node_by_desc(f, desc, &count);

	if (n == FAB_NONE || count != 1)
		fail_msg("expected one node \"%s\", found %u", desc, count);
	return n;
}

static inline int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Split @text in place into its blocks (each from a line starting with
 * "Unicast lids") or, without @blocks, its non-blank lines; sort them.
 */
static inline char **chunks(char *text, int blocks, size_t *n)
{
	char **v = calloc(strlen(text) + 1, sizeof(*v)), *save = NULL, *p = text;
	size_t len = strlen(text);

	assert_non_null(v);
	*n = 0;
	if (!blocks) {
		for (p = strtok_r(text, "\n", &save); p; p = strtok_r(NULL, "\n", &save))
			v[(*n)++] = p;
	} else {
		if (len && text[len - 1] == '\n')
			text[len - 1] = '\0';	/* the last block ends like the others */
		for (; (p = strstr(p, "Unicast lids")); p++) {
			v[(*n)++] = p;
			if (p > text)
				p[-1] = '\0';
		}
	}
	qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

/* @a and @b hold the same blocks (or lines) in any order; frees both. */
static inline void same_chunks(char *a, char *b, int blocks, size_t want)
{
	size_t na, nb;
	char **x = chunks(a, blocks, &na), **y = chunks(b, blocks, &nb);

	assert_int_equal(na, want);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
		assert_string_equal(x[i], y[i]);
	free(x);
	free(y);
	free(a);
	free(b);
}

#endif
