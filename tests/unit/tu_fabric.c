/* SPDX-License-Identifier: MIT */
/*
 * DOC: test helpers: files under tests/data, topologies given as text,
 * nodes and endpoints looked up or failing the test.
 */
#include "tests/unit/testutil.h"

unsigned tu_stride(void)
{
	const char *v = getenv("FABROUTE_TEST_STRIDE");
	unsigned long n = v ? strtoul(v, NULL, 10) : 1;

	return n >= 1 && n <= 1000 ? (unsigned)n : 1;
}

int tu_take(unsigned *seen)
{
	return (*seen)++ % tu_stride() == 0;
}

unsigned tu_taken(unsigned n)
{
	return (n + tu_stride() - 1) / tu_stride();
}

const char *tu_data(const char *rel)
{
	static char path[1024];

	snprintf(path, sizeof(path), "%s/%s", TEST_DATA, rel);
	return path;
}

struct fabric *tu_load(const char *rel, enum fmt_topo fmt)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fmt_topo_load(tu_data(rel), fmt, NULL, &err);

	if (!f)
		fail_msg("%s: %s", rel, err.msg);
	return f;
}

uint32_t tu_node(const struct fabric *f, uint64_t guid)
{
	uint32_t n = fab_node_by_guid(f, guid);

	if (n == FAB_NONE)
		fail_msg("no node with GUID 0x%016llx", (unsigned long long)guid);
	return n;
}

const struct fab_port *tu_port(const struct fabric *f, uint64_t guid, unsigned p)
{
	return fab_port(f, tu_node(f, guid), p);
}

uint32_t tu_node_named(const struct fabric *f, const char *desc)
{
	unsigned count = 0;
	uint32_t n = fab_node_by_desc(f, desc, &count);

	if (n == FAB_NONE || count != 1)
		fail_msg("expected one node \"%s\", found %u", desc, count);
	return n;
}

uint32_t tu_sw_named(const struct fabric *f, const char *desc)
{
	unsigned count;
	uint32_t n = fab_node_by_desc(f, desc, &count);

	assert_int_not_equal(n, FAB_NONE);
	return f->nodes[n].swidx;
}

struct fabric *tu_topo(const char *text, enum fmt_topo fmt)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fmt_topo_parse(text, strlen(text), "<test>", fmt, &err);

	if (!f)
		fail_msg("parse failed: %s", err.msg);
	return f;
}

void tu_topo_fails(const char *text, enum fmt_topo fmt, const char *needle)
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

char *tu_write(const struct fabric *f, enum fmt_topo fmt, size_t *len)
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

int tu_is_ca(const struct fabric *f, uint32_t e)
{
	return f->nodes[f->eps[e].node].type != FAB_SWITCH;
}

uint32_t tu_ep_sw(const struct fabric *f, uint32_t e)
{
	uint32_t node = f->eps[e].node;

	if (f->nodes[node].type == FAB_SWITCH)
		return f->nodes[node].swidx;
	return f->nodes[fab_port(f, node, f->eps[e].port)->peer].swidx;
}

void tu_shape(const struct fabric *f, struct fab_shape *s)
{
	struct fab_err err = { { 0 } };

	if (fab_shape(f, s, &err))
		fail_msg("fab_shape: %s", err.msg);
}
