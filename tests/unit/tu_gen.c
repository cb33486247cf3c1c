/* SPDX-License-Identifier: MIT */
/*
 * DOC: test helpers: fabrics from the generators ("family k=v ..." as
 * `fabroute gen` takes them), random faults, and the checks of a generated
 * fabric's size, levels, ports and names.
 */
#include "tests/unit/testutil.h"

#define TU_GEN_KV 16	/* the most parameters a spec may give */

struct fabric *tu_gen_try(const char *spec, uint64_t seed, struct fab_err *err)
{
	char buf[512], *save = NULL, *family;
	const char *kv[TU_GEN_KV];
	size_t n = 0;

	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf))
		fail_msg("gen %s: longer than %zu characters", spec, sizeof(buf) - 1);
	family = strtok_r(buf, " ", &save);
	for (char *p = strtok_r(NULL, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		if (n == TU_GEN_KV)
			fail_msg("gen %s: more than %d parameters", spec, TU_GEN_KV);
		kv[n++] = p;
	}
	return gen_build(family ? family : "", kv, n, seed, err);
}

struct fabric *tu_gen(const char *spec, uint64_t seed)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen_try(spec, seed, &err);

	if (!f)
		fail_msg("gen %s: %s", spec, err.msg);
	return f;
}

void tu_gen_fails(const char *spec, const char *needle)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen_try(spec, 1, &err);

	if (f) {
		fab_free(f);
		fail_msg("gen %s: expected an error containing \"%s\"", spec, needle);
	}
	if (!strstr(err.msg, needle))
		fail_msg("gen %s: error \"%s\" does not contain \"%s\"", spec, err.msg, needle);
}

struct fabric *tu_dragonfly(unsigned a, unsigned p, unsigned h, const char *wiring)
{
	char spec[96];

	snprintf(spec, sizeof(spec), "dragonfly a=%u p=%u h=%u wiring=%s", a, p, h, wiring);
	return tu_gen(spec, 1);
}

struct fabric *tu_faults(struct fabric *f, unsigned links, unsigned switches, uint64_t seed)
{
	struct fab_err err = { { 0 } };
	struct gen_faults g = { .random_links = links, .random_switches = switches, .seed = seed };

	if ((links || switches) && gen_faults_apply(&f, &g, &err))
		fail_msg("%u link and %u switch faults (seed %llu): %s", links, switches,
			 (unsigned long long)seed, err.msg);
	return f;
}

uint32_t tu_count_type(const struct fabric *f, enum fab_node_type t)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->nnodes; i++)
		n += f->nodes[i].type == t;
	return n;
}

int tu_is_sw(const struct fabric *f, uint32_t n)
{
	return f->nodes[n].type == FAB_SWITCH;
}

uint32_t tu_sw_links(const struct fabric *f)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->nnodes; i++)
		for (unsigned p = 1; tu_is_sw(f, i) && p <= f->nodes[i].nports; p++) {
			const struct fab_port *x = fab_port(f, i, p);

			n += x->peer != FAB_NONE && tu_is_sw(f, x->peer) &&
			     (x->peer > i || (x->peer == i && x->peer_port > p));
		}
	return n;
}

uint32_t tu_reached(const struct fabric *f, int switches_only)
{
	uint32_t *q = calloc(f->nnodes, sizeof(*q)), head = 0, tail = 0, start = 0;
	uint8_t *seen = calloc(f->nnodes, 1);

	assert_non_null(q);
	assert_non_null(seen);
	while (switches_only && start < f->nnodes && !tu_is_sw(f, start))
		start++;
	if (start < f->nnodes) {
		seen[start] = 1;
		q[tail++] = start;
	}
	while (head < tail) {
		uint32_t n = q[head++];

		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t m = fab_port(f, n, p)->peer;

			if (m == FAB_NONE || seen[m] || (switches_only && !tu_is_sw(f, m)))
				continue;
			seen[m] = 1;
			q[tail++] = m;
		}
	}
	free(q);
	free(seen);
	return tail;
}

void tu_assert_connected(const struct fabric *f)
{
	assert_int_equal(tu_reached(f, 0), f->nnodes);
}

uint32_t *tu_levels(const struct fabric *f)
{
	uint32_t *lvl = calloc(f->nswitches + 1u, sizeof(*lvl)), *q, head = 0, tail = 0;

	q = calloc(f->nswitches + 1u, sizeof(*q));
	assert_non_null(lvl);
	assert_non_null(q);
	for (uint32_t s = 0; s < f->nswitches; s++)
		for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports && !lvl[s]; p++) {
			uint32_t m = fab_port(f, f->switches[s], p)->peer;

			if (m != FAB_NONE && !tu_is_sw(f, m)) {
				lvl[s] = 1;
				q[tail++] = s;
			}
		}
	while (head < tail) {
		uint32_t s = q[head++], n = f->switches[s];

		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t m = fab_port(f, n, p)->peer;

			if (m == FAB_NONE || !tu_is_sw(f, m) || lvl[f->nodes[m].swidx])
				continue;
			lvl[f->nodes[m].swidx] = lvl[s] + 1;
			q[tail++] = f->nodes[m].swidx;
		}
	}
	free(q);
	return lvl;
}

/*
 * Ports of switch @s that go down, up and sideways: down < up < sideways.
 * Returns the sideways links it owns (those to a higher node index).
 */
static uint32_t check_ports_order(const struct fabric *f, const uint32_t *lvl, uint32_t s)
{
	unsigned down = 0, up_lo = 999, up_hi = 0, side_lo = 999;
	uint32_t n = f->switches[s], side = 0;

	for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
		const struct fab_port *x = fab_port(f, n, p);
		uint32_t pl;

		if (x->peer == FAB_NONE)
			continue;
		pl = tu_is_sw(f, x->peer) ? lvl[f->nodes[x->peer].swidx] : 0;
		if (pl + 1 == lvl[s]) {
			down = p;
		} else if (pl == lvl[s] + 1) {
			up_lo = p < up_lo ? p : up_lo;
			up_hi = p;
		} else if (pl == lvl[s]) {
			side_lo = p < side_lo ? p : side_lo;
			side += x->peer > n;
		} else {
			fail_msg("\"%s\" port %u joins level %u to level %u", fab_desc(f, n), p,
				 lvl[s], pl);
		}
	}
	assert_true(down < up_lo && down < side_lo);
	assert_true(up_hi < side_lo);
	return side;
}

void tu_check_tree(const struct fabric *f, unsigned nlevels, const uint32_t *per_level,
		   uint32_t hlinks)
{
	uint32_t *lvl = tu_levels(f), cnt[TU_MAXLVL + 2] = { 0 }, side = 0;

	for (uint32_t s = 0; s < f->nswitches; s++) {
		assert_in_range(lvl[s], 1, nlevels);
		cnt[lvl[s]]++;
		side += check_ports_order(f, lvl, s);
	}
	for (unsigned l = 1; l <= nlevels; l++)
		assert_int_equal(cnt[l], per_level[l - 1]);
	assert_int_equal(side, hlinks);
	free(lvl);
}

void tu_check_counts(const struct fabric *f, uint32_t nsw, uint32_t nca, uint32_t nlinks)
{
	assert_int_equal(f->nswitches, nsw);
	assert_int_equal(tu_count_type(f, FAB_CA), nca);
	assert_int_equal(f->nlinks, nlinks);
	tu_assert_connected(f);
}

void tu_check_level_ports(const struct fabric *f, const unsigned *ports)
{
	uint32_t *lvl = tu_levels(f);

	for (uint32_t s = 0; s < f->nswitches; s++)
		assert_int_equal(f->nodes[f->switches[s]].nports, ports[lvl[s] - 1]);
	free(lvl);
}

void tu_check_all_ports(const struct fabric *f, unsigned nports)
{
	for (uint32_t s = 0; s < f->nswitches; s++)
		assert_int_equal(f->nodes[f->switches[s]].nports, nports);
}

void tu_check_names(const struct fabric *f)
{
	uint32_t sw = 0, ca = 0;

	for (uint32_t i = 0; i < f->nnodes; i++) {
		const char *d = fab_desc(f, i);
		unsigned count = 0;

		assert_true(d[0] && strlen(d) < 40);
		assert_null(strpbrk(d, "\"#@ "));
		assert_int_equal(fab_node_by_desc(f, d, &count), i);
		assert_int_equal(count, 1);
		if (tu_is_sw(f, i)) {
			assert_true(f->nodes[i].guid == GEN_GUID_SWITCH + ++sw);
			continue;
		}
		assert_true(f->nodes[i].guid == GEN_GUID_CA + (uint64_t)++ca * 16);
		for (unsigned p = 1; p <= f->nodes[i].nports; p++)
			assert_true(fab_port(f, i, p)->guid == f->nodes[i].guid + p);
	}
}

void tu_assert_same(const struct fabric *a, const struct fabric *b)
{
	assert_true(fab_topology_hash(a) == fab_topology_hash(b));
	assert_int_equal(a->nnodes, b->nnodes);
	for (uint32_t i = 0; i < a->nnodes; i++) {
		assert_true(a->nodes[i].guid == b->nodes[i].guid);
		assert_int_equal(a->nodes[i].type, b->nodes[i].type);
		assert_int_equal(a->nodes[i].nports, b->nodes[i].nports);
		assert_string_equal(fab_desc(a, i), fab_desc(b, i));
		for (unsigned p = 0; p <= a->nodes[i].nports; p++) {
			const struct fab_port *x = fab_port(a, i, p), *y = fab_port(b, i, p);

			assert_true(x->guid == y->guid);
			assert_int_equal(x->peer, y->peer);
			assert_int_equal(x->peer_port, y->peer_port);
			assert_int_equal(x->lid, y->lid);
			assert_int_equal(x->lmc, y->lmc);
		}
	}
}

uint64_t tu_ipow(uint64_t b, unsigned e)
{
	uint64_t r = 1;

	while (e--)
		r *= b;
	return r;
}
