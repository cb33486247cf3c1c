/* SPDX-License-Identifier: MIT */
/*
 * DOC: test helpers of the OpenSM dump parsers: the fixtures of
 * tests/data/osm, a text parsed as one of the four formats, expected
 * failures, and dumps compared block by block.
 */
#include "tests/unit/testutil.h"

const char *const tu_osm_cases[TU_OSM_NCASES] = { "mixed", "fattree", "ring", "mixed-lmc1" };

static int no_pins;	/* what parse_as() returns for a guid2lid without entries */

char *tu_osm_load(const char *dir, const char *file, size_t *len)
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

/* Run the parser of @w; the result (routing, fabric or pins), or NULL with @err set. */
static void *parse_as(enum tu_osm_fmt w, const char *text, size_t len, const char *name,
		      const struct fabric *f, struct fab_err *err, size_t *npins)
{
	struct fab_lid_pin *pins = NULL;

	switch (w) {
	case TU_LFTS:
		return fmt_lfts_parse(text, len, name, f, err);
	case TU_FDBS:
		return fmt_fdbs_parse(text, len, name, f, err);
	case TU_SUBNET:
		return fmt_subnet_parse(text, len, name, err);
	case TU_GUID2LID:
		if (fmt_guid2lid_parse(text, len, name, &pins, npins, err))
			return NULL;
		return pins ? (void *)pins : (void *)&no_pins;
	}
	return NULL;
}

void tu_osm_drop(enum tu_osm_fmt w, void *got)
{
	if (w == TU_LFTS || w == TU_FDBS)
		rt_free(got);
	else if (w == TU_SUBNET)
		fab_free(got);
	else if (got != &no_pins)
		free(got);
}

void *tu_osm_fixture(enum tu_osm_fmt w, const char *dir, const char *file, const struct fabric *f)
{
	struct fab_err err = { { 0 } };
	size_t len, npins;
	char *buf = tu_osm_load(dir, file, &len);
	void *got = parse_as(w, buf, len, file, f, &err, &npins);

	if (!got)
		fail_msg("%s/%s: %s", dir, file, err.msg);
	free(buf);
	return got;
}

struct fabric *tu_osm_subnet(const char *dir)
{
	return tu_osm_fixture(TU_SUBNET, dir, "opensm-subnet.lst", NULL);
}

void tu_osm_pin_lids(struct fabric *f, const char *dir)
{
	struct fab_err err = { { 0 } };
	size_t len, n = 0;
	char *buf = tu_osm_load(dir, "guid2lid", &len);
	struct fab_lid_pin *pins = parse_as(TU_GUID2LID, buf, len, "guid2lid", NULL, &err, &n);

	if (!pins || fab_lids_assign(f, pins, n, FAB_LIDS_KEEP, 0, &err))
		fail_msg("%s: %s", dir, err.msg);
	tu_osm_drop(TU_GUID2LID, pins);
	free(buf);
}

char *tu_lfts_text(const struct fabric *f, const struct rt_routing *r, size_t *len)
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

char *tu_replaced(const char *text, const char *from, const char *to, int all)
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
		char *again = tu_replaced(out, from, to, 1);

		free(out);
		out = again;
	}
	return out;
}

void tu_osm_fails_len(enum tu_osm_fmt w, const char *text, size_t len, const char *where,
		      const char *needle)
{
	static const char *const names[] = { "bad.dump", "bad.fdbs", "bad.lst", "bad.g2l" };
	struct fab_err err = { { 0 } };
	struct fabric *f = w == TU_LFTS || w == TU_FDBS ? tu_osm_subnet("mixed") : NULL;
	size_t npins;
	void *got = parse_as(w, text, len, names[w], f, &err, &npins);

	fab_free(f);
	if (got) {
		tu_osm_drop(w, got);
		fail_msg("expected an error containing \"%s\", the parse succeeded", needle);
	}
	if (strncmp(err.msg, where, strlen(where)))
		fail_msg("error \"%s\" does not start with \"%s\"", err.msg, where);
	if (!strstr(err.msg, needle))
		fail_msg("error \"%s\" does not contain \"%s\"", err.msg, needle);
}

void tu_osm_fails(enum tu_osm_fmt w, const char *text, const char *where, const char *needle)
{
	tu_osm_fails_len(w, text, strlen(text), where, needle);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **tu_chunks(char *text, int blocks, size_t *n)
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

void tu_same_chunks(char *a, char *b, int blocks, size_t want)
{
	size_t na, nb;
	char **x = tu_chunks(a, blocks, &na), **y = tu_chunks(b, blocks, &nb);

	assert_int_equal(na, want);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
		assert_string_equal(x[i], y[i]);
	free(x);
	free(y);
	free(a);
	free(b);
}
