/* SPDX-License-Identifier: MIT */
/*
 * Dragonfly groups (fabric/dfly.c):
 *  - the closed-neighbourhood counts the generator's wirings give (the
 *    brief's figures: 24 of 72 gcs at c = 3 for a=4,h=2 absolute, 18 of 42
 *    at c = 3 = a for a=3,h=2), computed here independently;
 *  - discovery on every wiring and size, the classes of every port;
 *  - the ambiguous shape (a=3,h=2) refused, and solved by a groups file;
 *  - groups files: GUIDs, descriptions, quotes, comments, errors with their
 *    line, unknown nodes, switches left out, renumbering;
 *  - verification: a lost local or global link, unequal groups, a
 *    non-dragonfly.
 */
#include "tests/unit/testutil.h"

#include "fabric/dfly.h"
#include "formats/formats.h"

/* Global links (counted once) whose ends share @c switches in their closed neighbourhoods. */
static unsigned gcs_with_c(const struct fabric *f, unsigned a, unsigned c, unsigned *total)
{
	uint32_t n = f->nswitches;
	uint8_t *adj = calloc((size_t)n * n, 1);
	unsigned hits = 0;

	assert_non_null(adj);
	*total = 0;
	for (uint32_t s = 0; s < n; s++)
		for (unsigned q = 1; q <= f->nodes[f->switches[s]].nports; q++) {
			uint32_t t = fab_port(f, f->switches[s], q)->peer;

			if (t != FAB_NONE && f->nodes[t].type == FAB_SWITCH)
				adj[s * n + f->nodes[t].swidx] = 1;
		}
	for (uint32_t u = 0; u < n; u++)
		for (uint32_t v = u + 1; v < n; v++) {
			unsigned k = 2;

			if (!adj[u * n + v] || u / a == v / a)
				continue;
			for (uint32_t w = 0; w < n; w++)
				k += adj[u * n + w] && adj[v * n + w];
			(*total)++;
			hits += k == c;
		}
	free(adj);
	return hits;
}

static void test_neighbourhoods(void **state)
{
	struct fabric *f = tu_dragonfly(4, 2, 2, "absolute");
	unsigned total;

	(void)state;
	/* the brief counts both directions: 24 of 72 */
	assert_int_equal(gcs_with_c(f, 4, 3, &total), 12);
	assert_int_equal(total, 36);
	fab_free(f);
	f = tu_dragonfly(3, 2, 2, "absolute");
	/* 18 of 42 */
	assert_int_equal(gcs_with_c(f, 3, 3, &total), 9);
	assert_int_equal(total, 21);
	fab_free(f);
	f = tu_dragonfly(8, 4, 4, "absolute");
	assert_true(gcs_with_c(f, 8, 5, &total) > 0);
	fab_free(f);
}

/* Groups found on a generated dragonfly are the generator's, ports classified by layout. */
static void check_found(unsigned a, unsigned p, unsigned h, const char *wiring)
{
	struct fabric *f = tu_dragonfly(a, p, h, wiring);
	struct fab_err err = { { 0 } };
	struct fab_dfly d;
	int rc = fab_dfly_find(f, NULL, &d, &err);

	if (rc)
		fail_msg("a=%u p=%u h=%u %s: %s", a, p, h, wiring, err.msg);
	assert_int_equal(d.ngroups, a * h + 1);
	assert_int_equal(d.a, a);
	assert_int_equal(d.h, h);
	assert_false(d.from_file);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s];

		assert_int_equal(d.group[s], s / a);
		assert_int_equal(d.rank[s], s % a);
		assert_int_equal(d.member[s], s);
		for (unsigned q = 1; q <= f->nodes[node].nports; q++) {
			enum fab_df_class want = q <= p ? FAB_DF_TERMINAL :
						 q < p + a ? FAB_DF_LOCAL : FAB_DF_GLOBAL;

			assert_int_equal(fab_dfly_class(f, &d, node, q), want);
		}
		assert_int_equal(fab_dfly_class(f, &d, node, 0), FAB_DF_NONE);
	}
	fab_dfly_free(&d);
	fab_free(f);
}

static void test_discovery(void **state)
{
	static const char *const wirings[] = { "absolute", "relative", "circulant" };

	(void)state;
	for (unsigned w = 0; w < 3; w++) {
		check_found(4, 2, 2, wirings[w]);
		check_found(6, 3, 3, wirings[w]);
		check_found(4, 4, 2, wirings[w]);
		check_found(8, 4, 4, wirings[w]);
	}
	check_found(10, 5, 5, "absolute");
	check_found(5, 1, 2, "relative");	/* a = h+3 */
	check_found(3, 2, 1, "absolute");	/* a = h+2 */
}

static int find(const struct fabric *f, const char *groups, struct fab_dfly *d,
		struct fab_err *err)
{
	return fmt_dfly_find(f, groups, groups ? strlen(groups) : 0, "groups.txt", d, err);
}

static void expect_not(const struct fabric *f, const char *groups, int want, const char *needle)
{
	struct fab_err err = { { 0 } };
	struct fab_dfly d;
	int rc = find(f, groups, &d, &err);

	if (rc == 0)
		fab_dfly_free(&d);
	if (rc != want)
		fail_msg("expected %d, got %d (%s)", want, rc, err.msg);
	if (!strstr(err.msg, needle))
		fail_msg("\"%s\" does not contain \"%s\"", err.msg, needle);
}

/* Group lines for the first @n switches of @f, group = switch / @a, by description. */
static char *groups_text(const struct fabric *f, unsigned a, uint32_t n)
{
	size_t cap = (size_t)n * 96 + 64, len = 0;
	char *t = malloc(cap);

	assert_non_null(t);
	len += (size_t)snprintf(t, cap, "# groups\n\n");
	for (uint32_t s = 0; s < n; s++)
		len += (size_t)snprintf(t + len, cap - len, "%s grp%u\n",
					fab_desc(f, f->switches[s]), s / a);
	return t;
}

static void test_ambiguous(void **state)
{
	struct fabric *f = tu_dragonfly(3, 2, 2, "absolute");
	struct fab_err err = { { 0 } };
	struct fab_dfly d;
	char *t = groups_text(f, 3, f->nswitches);

	(void)state;
	expect_not(f, NULL, FAB_DFLY_NOT, "name the groups in a file");
	assert_int_equal(find(f, t, &d, &err), 0);
	assert_int_equal(d.ngroups, 7);
	assert_int_equal(d.a, 3);
	assert_int_equal(d.h, 2);
	assert_true(d.from_file);
	for (uint32_t s = 0; s < f->nswitches; s++)
		assert_int_equal(d.group[s], s / 3);
	fab_dfly_free(&d);
	free(t);
	fab_free(f);
}

static void test_groups_file(void **state)
{
	struct fabric *f = tu_dragonfly(4, 2, 2, "relative");
	struct fab_err err = { { 0 } };
	struct fab_dfly d;
	size_t cap = 8192, len = 0;
	char *t = malloc(cap);

	(void)state;
	assert_non_null(t);
	/* GUIDs, quoted descriptions, labels in any order: groups numbered by first switch */
	for (uint32_t s = f->nswitches; s-- > 0;) {
		uint32_t node = f->switches[s];

		if (s % 2)
			len += (size_t)snprintf(t + len, cap - len, "  0x%016llx\tz%u  \n",
						(unsigned long long)f->nodes[node].guid, 8 - s / 4);
		else
			len += (size_t)snprintf(t + len, cap - len, "\"%s\" z%u\n", fab_desc(f, node),
						8 - s / 4);
	}
	len += (size_t)snprintf(t + len, cap - len, "0x0000000000abcdef z1\nnowhere z2\n");
	assert_int_equal(find(f, t, &d, &err), 0);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		assert_int_equal(d.group[s], s / 4);
		assert_int_equal(d.rank[s], s % 4);
	}
	fab_dfly_free(&d);
	free(t);

	expect_not(f, "g00-sw0\n", -1, "groups.txt:1: expected \"NODE GROUP\"");
	expect_not(f, "# c\n\"g00-sw0 a\n", -1, "groups.txt:2: expected a description in double quotes");
	expect_not(f, "g00-sw0 a\ng00-sw0 b\n", -1, "groups.txt:2: switch \"g00-sw0\" is put in group \"b\"; line 1");
	expect_not(f, "node-00 a\n", -1, "groups.txt:1: \"node-00\" is a CA; expected a switch");
	t = groups_text(f, 4, f->nswitches - 1);
	expect_not(f, t, FAB_DFLY_NOT, "names no group for switch \"g08-sw3\"");
	free(t);
	t = groups_text(f, 4, f->nswitches);
	t[strlen("# groups\n\n") + 1] = '9';	/* "g90-sw0": unknown, so g00-sw0 is left out */
	expect_not(f, t, FAB_DFLY_NOT, "1 of its lines name nodes the fabric lacks, the first at line 3");
	free(t);
	/* two groups merged: sizes differ */
	t = groups_text(f, 8, f->nswitches);
	expect_not(f, t, FAB_DFLY_NOT, "groups of different sizes");
	free(t);
	fab_free(f);
}

static struct fabric *faulty(const char *spec, const char *link, const char *sw)
{
	struct fabric *f = tu_gen(spec, 1);
	struct fab_err err = { { 0 } };
	const char *links[1] = { link }, *sws[1] = { sw };
	struct gen_faults g = { .links = links, .nlinks = link != NULL,
				.switches = sws, .nswitches = sw != NULL };

	if (gen_faults_apply(&f, &g, &err))
		fail_msg("%s", err.msg);
	return f;
}

static void test_verification(void **state)
{
	struct fabric *f, *f2;
	char *t;

	(void)state;
	/* a lost local link g00-sw0 - g00-sw1 (port p+1) */
	f = faulty("dragonfly a=4 p=2 h=2", "g00-sw0:3", NULL);
	expect_not(f, NULL, FAB_DFLY_NOT, "(a lost local link?)");
	t = groups_text(f, 4, f->nswitches);
	expect_not(f, t, FAB_DFLY_NOT, "group 0 is not a clique: no local link between \"g00-sw0\" and \"g00-sw1\"");
	free(t);
	fab_free(f);
	/* a lost global link (port p+a) */
	f = faulty("dragonfly a=4 p=2 h=2 wiring=relative", "g03-sw2:6", NULL);
	expect_not(f, NULL, FAB_DFLY_NOT, "(a lost global link?)");
	fab_free(f);
	/* a switch gone: its group is smaller */
	f = faulty("dragonfly a=6 p=3 h=3", NULL, "g04-sw5");
	expect_not(f, NULL, FAB_DFLY_NOT, "not a dragonfly of equal cliques");
	t = groups_text(f, 6, f->nswitches);
	expect_not(f, t, FAB_DFLY_NOT, "groups of different sizes");
	free(t);
	fab_free(f);
	/* not dragonflies */
	f = tu_gen("kary-ntree k=4 n=3", 1);
	expect_not(f, NULL, FAB_DFLY_NOT, "no three switches are linked all to all");
	fab_free(f);
	f = tu_gen("torus dims=4,4,4", 1);
	expect_not(f, NULL, FAB_DFLY_NOT, "no three switches");
	f2 = tu_gen("dragonfly a=2 p=1 h=1", 1);
	expect_not(f2, NULL, FAB_DFLY_NOT, "groups of two switches (name the groups in a file)");
	fab_free(f2);
	fab_free(f);
	f = tu_gen("random switches=1 machines=4 degree=0", 1);
	expect_not(f, NULL, FAB_DFLY_NOT, "1 switch: not a dragonfly");
	fab_free(f);
	/* one group of four: a clique, but no dragonfly */
	f = tu_gen("dragonfly a=4 p=1 h=2", 1);
	t = groups_text(f, 1000, f->nswitches);
	expect_not(f, t, FAB_DFLY_NOT, "one group of 36 switches");
	free(t);
	fab_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_neighbourhoods),
		cmocka_unit_test(test_discovery),
		cmocka_unit_test(test_ambiguous),
		cmocka_unit_test(test_groups_file),
		cmocka_unit_test(test_verification),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
