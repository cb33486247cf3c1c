/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the cmocka unit tests. Include after <cmocka.h>'s
 * prerequisites; TEST_DATA is the absolute path of tests/data.
 */
#ifndef FABROUTE_TESTUTIL_H
#define FABROUTE_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fabric/fabric.h"
#include "formats/formats.h"

/* Absolute path of a file under tests/data. */
static inline const char *tu_data(const char *rel)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/%s", TEST_DATA, rel);
	return path;
}

/* Load a file under tests/data; fails the test with the parser's message. */
static inline struct fabric *tu_load(const char *rel, enum fmt_topo fmt)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fmt_topo_load(tu_data(rel), fmt, NULL, &err);

	if (!f)
		fail_msg("%s: %s", rel, err.msg);
	return f;
}

/* The node with GUID @guid; fails the test when there is none. */
static inline uint32_t tu_node(const struct fabric *f, uint64_t guid)
{
	uint32_t n = fab_node_by_guid(f, guid);

	if (n == FAB_NONE)
		fail_msg("no node with GUID 0x%016llx", (unsigned long long)guid);
	return n;
}

static inline const struct fab_port *tu_port(const struct fabric *f, uint64_t guid, unsigned p)
{
	return fab_port(f, tu_node(f, guid), p);
}

/* Parse a topology given as a string; fails the test with the parser's message. */
static inline struct fabric *tu_topo(const char *text, enum fmt_topo fmt)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fmt_topo_parse(text, strlen(text), "<test>", fmt, &err);

	if (!f)
		fail_msg("parse failed: %s", err.msg);
	return f;
}

/* Expect a parse failure whose message contains @needle. */
static inline void tu_topo_fails(const char *text, enum fmt_topo fmt, const char *needle)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fmt_topo_parse(text, strlen(text), "bad.net", fmt, &err);

	if (f) {
		fab_free(f);
		fail_msg("expected a parse error containing \"%s\", parse succeeded", needle);
	}
	if (!strstr(err.msg, needle))
		fail_msg("error \"%s\" does not contain \"%s\"", err.msg, needle);
}

/* Write a fabric to a memory buffer in @fmt; the caller frees. */
static inline char *tu_write(const struct fabric *f, enum fmt_topo fmt, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *mf = open_memstream(&buf, &n);

	assert_non_null(mf);
	assert_int_equal(fmt_topo_write(mf, f, fmt), 0);
	fclose(mf);
	if (len)
		*len = n;
	return buf;
}

#endif
