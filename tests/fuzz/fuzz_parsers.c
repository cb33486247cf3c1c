/* SPDX-License-Identifier: MIT */
/**
 * DOC: libFuzzer harness for the file parsers
 *
 * One source built once per parser, one target each (see README.md):
 *
 *  -DFUZZ_IBND     fmt_topo_parse(FMT_IBND): then writes the fabric in both
 *                  formats and checks that the ibnetdiscover text parses back
 *                  to the same topology hash;
 *  -DFUZZ_IBSIM    fmt_topo_parse(FMT_IBSIM): the same with the ibsim text;
 *  -DFUZZ_LFTS     fmt_lfts_parse() against a fixed fabric (below);
 *  -DFUZZ_FDBS     fmt_fdbs_parse() against the same fabric;
 *  -DFUZZ_SUBNET   fmt_subnet_parse(), then writes the fabric;
 *  -DFUZZ_GUID2LID fmt_guid2lid_parse();
 *  -DFUZZ_SL2VL    fmt_sl2vl_parse() against the fixed fabric;
 *  -DFUZZ_PATHSL   fmt_pathsl_parse() against the fixed fabric, then writes
 *                  the path SLs back;
 *  -DFUZZ_DLIDS    fmt_dlids_parse() against the fixed fabric with LMC 2 on
 *                  its CA ports, then writes the plan and reads it back: the
 *                  same DLID for every pair;
 *  -DFUZZ_GROUPS   fmt_dfly_find() with the input as a groups file, against
 *                  the dragonfly a=3 p=1 h=2 (whose groups discovery cannot
 *                  tell): a verified grouping must be a partition into
 *                  cliques, a refusal must say why;
 *  -DFUZZ_NAMES    fmt_names_parse() (a node-name-map), then
 *                  fmt_names_apply() to a copy of the fixed fabric: every
 *                  node it names must carry its name (cut to 64 bytes).
 *
 * The input is handed over as it comes, without a terminating NUL, so that
 * a parser reading past its length shows up under AddressSanitizer. Any
 * crash, sanitizer report, leak or failed round trip is a finding.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"
#ifdef FUZZ_GROUPS
#include "fabric/dfly.h"
#include "gen/gen.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(FUZZ_LFTS) || defined(FUZZ_FDBS) || defined(FUZZ_SL2VL) || defined(FUZZ_PATHSL) || \
	defined(FUZZ_DLIDS) || defined(FUZZ_NAMES)
#define FUZZ_FIXED_FABRIC
#endif

#ifdef FUZZ_FIXED_FABRIC
/*
 * The fabric the LFT and FDB dumps are read against: ibsim's example
 * net.2sw2path4hca with the LIDs OpenSM gave it (the seeds under
 * corpus/lfts and corpus/fdbs were dumped by that OpenSM run).
 */
static const char fixed_topology[] =
	"Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 1 lmc 0\n"
	"[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 2 4xSDR\n"
	"[2]\t\"H-0000000000100006\"[1](100007) \t\t# \"Hca3\" lid 5 4xSDR\n"
	"[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 3 4xSDR\n"
	"[5]\t\"S-0000000000200001\"[5]\t\t# \"Switch2\" lid 3 4xSDR\n"
	"\n"
	"Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"
	"[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 4 4xSDR\n"
	"[2]\t\"H-0000000000100009\"[1](10000a) \t\t# \"Hca4\" lid 6 4xSDR\n"
	"[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 1 4xSDR\n"
	"[5]\t\"S-0000000000200000\"[5]\t\t# \"Switch1\" lid 1 4xSDR\n"
	"\n"
	"Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"\n"
	"[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 2 lmc 0 \"Switch1\" lid 1 4xSDR\n"
	"\n"
	"Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
	"[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 4 lmc 0 \"Switch2\" lid 3 4xSDR\n"
	"\n"
	"Ca\t2 \"H-0000000000100006\"\t\t# \"Hca3\"\n"
	"[1](100007) \t\"S-0000000000200000\"[2]\t\t# lid 5 lmc 0 \"Switch1\" lid 1 4xSDR\n"
	"\n"
	"Ca\t2 \"H-0000000000100009\"\t\t# \"Hca4\"\n"
	"[1](10000a) \t\"S-0000000000200001\"[2]\t\t# lid 6 lmc 0 \"Switch2\" lid 3 4xSDR\n";

/* Built at the first input and kept (read-only) for the whole run. */
static const struct fabric *fixed_fabric(void)
{
	static struct fabric *f;
	struct fab_err err = { { 0 } };

	if (f)
		return f;
	f = fmt_topo_parse(fixed_topology, sizeof(fixed_topology) - 1, "fixed", FMT_IBND, &err);
#ifdef FUZZ_DLIDS
	/* switches: LIDs 1, 2; CA ports 0x100001, 4, 7, a: LIDs 4-7, 8-11, 12-15, 16-19 */
	if (f && fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 2, &err)) {
		fab_free(f);
		f = NULL;
	}
#endif
	if (!f) {
		fprintf(stderr, "the fixed topology does not parse: %s\n", err.msg);
		abort();
	}
	return f;
}
#endif

#if defined(FUZZ_IBND) || defined(FUZZ_IBSIM) || defined(FUZZ_SUBNET)
/* Write @f in @fmt to memory; the caller frees. Aborts when writing fails. */
static char *write_mem(const struct fabric *f, enum fmt_topo fmt, size_t *len)
{
	char *buf = NULL;
	FILE *mf = open_memstream(&buf, len);

	if (!mf || fmt_topo_write(mf, f, fmt) || fclose(mf))
		abort();
	return buf;
}
#endif

#if defined(FUZZ_IBND) || defined(FUZZ_IBSIM)
/*
 * Writing a fabric read in @fmt and reading the text back in @fmt must give
 * the same graph; writing it in the other format must not fail either.
 */
static void check_rewrite(const struct fabric *f, enum fmt_topo fmt)
{
	struct fab_err err = { { 0 } };
	struct fabric *g;
	size_t len;
	char *text = write_mem(f, fmt, &len);

	g = fmt_topo_parse(text, len, "rewritten", fmt, &err);
	if (!g || fab_topology_hash(g) != fab_topology_hash(f) || g->nnodes != f->nnodes) {
		fprintf(stderr, "%s round trip failed: %s\n--- written:\n%s", fmt_topo_name(fmt),
			g ? "different graph" : err.msg, text);
		abort();
	}
	fab_free(g);
	free(text);
	text = write_mem(f, fmt == FMT_IBND ? FMT_IBSIM : FMT_IBND, &len);
	free(text);
}
#endif

#ifdef FUZZ_DLIDS
/* The plan of @r, written and read back into @back, gives every pair the same DLID. */
static void check_dlids(const struct fabric *f, const struct rt_routing *r, struct rt_routing *back)
{
	struct fab_err err = { { 0 } };
	char *text = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&text, &len);

	if (!mf || fmt_dlids_write(mf, f, r) || fclose(mf))
		abort();
	if (fmt_dlids_parse(text, len, "written", f, back, &err)) {
		fprintf(stderr, "the written plan does not parse: %s\n%s", err.msg, text);
		abort();
	}
	for (uint32_t s = 0; s < f->neps; s++)
		for (uint32_t d = 0; d < f->neps; d++)
			if (s != d && rt_dlid(r, f, s, d) != rt_dlid(back, f, s, d)) {
				fprintf(stderr, "pair %u -> %u: DLID %u, read back %u\n%s", s, d,
					rt_dlid(r, f, s, d), rt_dlid(back, f, s, d), text);
				abort();
			}
	free(text);
}
#endif

#ifdef FUZZ_GROUPS
/* A verified grouping: ranks and members agree, every two switches of a group are linked. */
static void check_groups(const struct fabric *f, const struct fab_dfly *d)
{
	if ((uint64_t)d->ngroups * d->a != f->nswitches)
		abort();
	for (uint32_t s = 0; s < f->nswitches; s++) {
		if (d->member[(size_t)d->group[s] * d->a + d->rank[s]] != s)
			abort();
		for (uint32_t r = 0; r < d->a; r++) {
			uint32_t t = d->member[(size_t)d->group[s] * d->a + r], node = f->switches[s];
			unsigned linked = t == s;

			for (unsigned p = 1; p <= f->nodes[node].nports && !linked; p++)
				linked = fab_port(f, node, p)->peer == f->switches[t];
			if (!linked)
				abort();
		}
	}
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct fab_err err = { { 0 } };

#if defined(FUZZ_IBND) || defined(FUZZ_IBSIM)
#ifdef FUZZ_IBND
	enum fmt_topo fmt = FMT_IBND;
#else
	enum fmt_topo fmt = FMT_IBSIM;
#endif
	struct fabric *f = fmt_topo_parse(buf, size, "fuzz", fmt, &err);

	if (f) {
		check_rewrite(f, fmt);
		fab_free(f);
	}
#elif defined(FUZZ_LFTS) || defined(FUZZ_FDBS)
	const struct fabric *f = fixed_fabric();
	struct rt_routing *r;

#ifdef FUZZ_LFTS
	r = fmt_lfts_parse(buf, size, "fuzz", f, &err);
#else
	r = fmt_fdbs_parse(buf, size, "fuzz", f, &err);
#endif
	rt_free(r);
#elif defined(FUZZ_SUBNET)
	struct fabric *f = fmt_subnet_parse(buf, size, "fuzz", &err);

	if (f) {
		size_t len;

		free(write_mem(f, FMT_IBND, &len));
		fab_free(f);
	}
#elif defined(FUZZ_SL2VL) || defined(FUZZ_PATHSL)
	const struct fabric *f = fixed_fabric();
	struct rt_routing *r = rt_new(f);

	if (!r)
		abort();
#ifdef FUZZ_SL2VL
	fmt_sl2vl_parse(buf, size, "fuzz", f, r, &err);
#else
	if (fmt_pathsl_parse(buf, size, "fuzz", f, r, &err) == 0) {
		FILE *out = fopen("/dev/null", "w");

		if (out) {
			fmt_pathsl_write(out, f, r);
			fclose(out);
		}
	}
#endif
	rt_free(r);
#elif defined(FUZZ_DLIDS)
	const struct fabric *f = fixed_fabric();
	struct rt_routing *r = rt_new(f), *back = rt_new(f);

	if (!r || !back)
		abort();
	if (fmt_dlids_parse(buf, size, "fuzz", f, r, &err) == 0)
		check_dlids(f, r, back);
	else if (!err.msg[0])
		abort();	/* a refusal says why */
	rt_free(r);
	rt_free(back);
#elif defined(FUZZ_GUID2LID)
	struct fab_lid_pin *pins = NULL;
	size_t npins = 0;

	if (fmt_guid2lid_parse(buf, size, "fuzz", &pins, &npins, &err) == 0)
		free(pins);
#elif defined(FUZZ_GROUPS)
	static struct fabric *f;
	static const char *const kv[] = { "a=3", "p=1", "h=2" };
	struct fab_dfly d;

	if (!f && !(f = gen_build("dragonfly", kv, 3, 1, &err)))
		abort();
	if (fmt_dfly_find(f, buf, size, "fuzz", &d, &err) == 0) {
		check_groups(f, &d);
		fab_dfly_free(&d);
	} else if (!err.msg[0]) {
		abort();	/* a refusal says why */
	}
#elif defined(FUZZ_NAMES)
	struct fmt_names m;
	struct fabric *f;

	if (fmt_names_parse(buf, size, "fuzz", &m, &err)) {
		if (!err.msg[0])
			abort();	/* a refusal says why */
		return 0;
	}
	f = fab_copy(fixed_fabric(), &err);
	if (!f || fmt_names_apply(f, &m, &err) < 0)
		abort();
	for (size_t i = 0; i < m.n; i++) {
		uint32_t n = fab_node_by_guid(f, m.guid[i]);

		if (n != FAB_NONE && strcmp(fab_desc(f, n), m.name[i]))
			abort();
	}
	fab_free(f);
	fmt_names_free(&m);
#else
#error "define one of FUZZ_IBND, FUZZ_IBSIM, FUZZ_LFTS, FUZZ_FDBS, FUZZ_SUBNET, FUZZ_GUID2LID, FUZZ_SL2VL, FUZZ_PATHSL, FUZZ_DLIDS, FUZZ_GROUPS, FUZZ_NAMES"
#endif
	return 0;
}
