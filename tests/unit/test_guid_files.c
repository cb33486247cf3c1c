/* SPDX-License-Identifier: MIT */
/*
 * OpenSM's GUID files as engine options, with OpenSM's meaning:
 * root_guid_file for ftree, sftree and updn, cn_guid_file and io_guid_file
 * for ftree and sftree; a malformed file refused when the chain is parsed,
 * naming the file and line. And the notes of ftree saying when OpenSM's
 * ftree would refuse the fabric.
 *
 * The fabric: 2 spines, 4 leaves with 2 hosts each, and a storage node on
 * spine S0. OpenSM 3.3.23 under ibsim routes it with ftree only given the
 * roots (-a) and the compute nodes (-u); then every CA pair is reachable
 * and only the storage node and spine S1 have no up/down path between
 * them, which ftree here gives too.
 */
#include <unistd.h>

#include "tests/unit/testutil.h"

#include "gen/gen.h"

static const char io_net[] =
	"switchguid=0x1000\n"
	"Switch\t8 \"S0\"\n[1]\t\"L0\"[1]\n[2]\t\"L1\"[1]\n[3]\t\"L2\"[1]\n[4]\t\"L3\"[1]\n[5]\t\"io0\"[1]\n\n"
	"Switch\t8 \"S1\"\n[1]\t\"L0\"[2]\n[2]\t\"L1\"[2]\n[3]\t\"L2\"[2]\n[4]\t\"L3\"[2]\n\n"
	"Switch\t8 \"L0\"\n[1]\t\"S0\"[1]\n[2]\t\"S1\"[1]\n[3]\t\"h00\"[1]\n[4]\t\"h01\"[1]\n\n"
	"Switch\t8 \"L1\"\n[1]\t\"S0\"[2]\n[2]\t\"S1\"[2]\n[3]\t\"h10\"[1]\n[4]\t\"h11\"[1]\n\n"
	"Switch\t8 \"L2\"\n[1]\t\"S0\"[3]\n[2]\t\"S1\"[3]\n[3]\t\"h20\"[1]\n[4]\t\"h21\"[1]\n\n"
	"Switch\t8 \"L3\"\n[1]\t\"S0\"[4]\n[2]\t\"S1\"[4]\n[3]\t\"h30\"[1]\n[4]\t\"h31\"[1]\n\n"
	"caguid=0x2000\n"
	"Hca\t1 \"h00\"\n[1]\t\"L0\"[3]\n\nHca\t1 \"h01\"\n[1]\t\"L0\"[4]\n\n"
	"Hca\t1 \"h10\"\n[1]\t\"L1\"[3]\n\nHca\t1 \"h11\"\n[1]\t\"L1\"[4]\n\n"
	"Hca\t1 \"h20\"\n[1]\t\"L2\"[3]\n\nHca\t1 \"h21\"\n[1]\t\"L2\"[4]\n\n"
	"Hca\t1 \"h30\"\n[1]\t\"L3\"[3]\n\nHca\t1 \"h31\"\n[1]\t\"L3\"[4]\n\n"
	"Hca\t1 \"io0\"\n[1]\t\"S0\"[5]\n";

/* Port GUIDs: CAs from 0x2000, two GUIDs each, port 1 at +1; io0 is the ninth. */
static const char cn_file[] = "# compute nodes\n0x2001\n0x2003 h01\n0x2005\n0x2007\n0x2009\n"
			      "0x200b\n0x200d\n0x200f \"h31\"\n";
static const char io_file[] = "0x2011 io0\n";
static const char roots_file[] = "0x1000\n0x0000000000001001 S1\n0x9999 not-here\n";

struct tmp {
	char path[4][64];
};

static const char *tmp_file(struct tmp *t, int i, const char *text)
{
	int fd;

	snprintf(t->path[i], sizeof(t->path[i]), "/tmp/fabroute-guids-XXXXXX");
	fd = mkstemp(t->path[i]);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return t->path[i];
}

static void tmp_free(struct tmp *t)
{
	for (int i = 0; i < 4; i++)
		if (t->path[i][0])
			unlink(t->path[i]);
}

/* Route @f with @chain and options; ENG_OK with an evaluation in @res, or the status. */
static int run(const struct fabric *f, const char *chain, const char *const *kv, size_t nkv,
	       struct eng_res *res, struct fab_err *err)
{
	struct an_opts o = { 0 };
	struct eng_chain c;
	struct eng_req q = { .fabric = f, .chain = &c, .eval = &o };
	int rc;

	if (eng_chain_parse(&c, chain, kv, nkv, err))
		return ENG_ERROR;
	rc = eng_run(&q, res, err);
	eng_chain_free(&c);
	return rc;
}

static void test_cn_and_roots(void **state)
{
	struct fabric *f = tu_topo(io_net, FMT_IBSIM);
	struct fab_err err = { { 0 } };
	struct eng_res res;
	struct tmp t = { 0 };
	char kv[3][120];
	const char *opts[3] = { kv[0], kv[1], kv[2] };

	(void)state;
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err), 0);
	/* without files: the storage node makes S0 a leaf, and it has no way up */
	assert_int_equal(run(f, "ftree", NULL, 0, &res, &err), ENG_NOT_APPLICABLE);
	/* the roots alone: the storage node is a compute node one level up (OpenSM: ERR AB26) */
	snprintf(kv[0], sizeof(kv[0]), "root_guid_file=%s", tmp_file(&t, 0, roots_file));
	assert_int_equal(run(f, "ftree", opts, 1, &res, &err), ENG_NOT_APPLICABLE);
	assert_non_null(strstr(err.msg, "compute nodes hang off"));
	/* roots and compute nodes: routed as OpenSM routes it */
	snprintf(kv[1], sizeof(kv[1]), "ftree.cn_guid_file=%s", tmp_file(&t, 1, cn_file));
	assert_int_equal(run(f, "ftree", opts, 2, &res, &err), ENG_OK);
	assert_int_equal(res.report.conn.unreachable[AN_CA_CA], 0);
	assert_int_equal(res.report.conn.unreachable[AN_CA_SW], 1);
	assert_int_equal(res.report.conn.unreachable[AN_SW_CA], 1);
	assert_true(res.report.cdg.deadlock_free);
	assert_non_null(strstr(res.routing->notes, "compute nodes: 8 CA ports"));
	assert_non_null(strstr(res.routing->notes, "roots: 2 switches of root_guid_file (3 GUIDs)"));
	assert_null(strstr(res.routing->notes, "OpenSM's ftree refuses"));
	eng_res_free(&res);
	/* the compute nodes alone: routed here, refused by OpenSM, and the notes say so */
	assert_int_equal(run(f, "ftree", opts + 1, 1, &res, &err), ENG_OK);
	assert_int_equal(res.report.conn.unreachable[AN_CA_CA], 0);
	assert_non_null(strstr(res.routing->notes, "OpenSM's ftree refuses this fabric (without "
			       "root_guid_file it ranks from every CA, and 'S0' has CAs"));
	eng_res_free(&res);
	/* the I/O node file alone means the same: io0 is no compute node */
	snprintf(kv[2], sizeof(kv[2]), "sftree.io_guid_file=%s", tmp_file(&t, 2, io_file));
	assert_int_equal(run(f, "sftree", opts + 2, 1, &res, &err), ENG_OK);
	assert_int_equal(res.report.conn.unreachable[AN_CA_CA], 0);
	assert_non_null(strstr(res.routing->notes, "I/O nodes: 1"));
	eng_res_free(&res);
	tmp_free(&t);
	fab_free(f);
}

static void test_bad_and_empty_files(void **state)
{
	struct fabric *f = tu_topo(io_net, FMT_IBSIM);
	struct fab_err err = { { 0 } };
	struct eng_res res;
	struct eng_chain c;
	struct tmp t = { 0 };
	char kv[120];
	const char *opts[1] = { kv };

	(void)state;
	assert_int_equal(fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 0, &err), 0);
	snprintf(kv, sizeof(kv), "cn_guid_file=%s", tmp_file(&t, 0, "0x2001\nnode-7\n"));
	assert_int_equal(eng_chain_parse(&c, "ftree", opts, 1, &err), -1);
	assert_non_null(strstr(err.msg, "option ftree.cn_guid_file: "));
	assert_non_null(strstr(err.msg, ":2: expected a GUID (0x hex or decimal), found 'node-7'"));
	/* a file naming no CA port of the fabric: no compute node, not applicable */
	snprintf(kv, sizeof(kv), "cn_guid_file=%s", tmp_file(&t, 1, "0x9999\n"));
	assert_int_equal(run(f, "ftree", opts, 1, &res, &err), ENG_NOT_APPLICABLE);
	assert_non_null(strstr(err.msg, "cn_guid_file names no CA port of this fabric"));
	/* updn: no root of the file in the fabric, not applicable (OpenSM disables updn) */
	snprintf(kv, sizeof(kv), "root_guid_file=%s", tmp_file(&t, 2, "0x9999\n"));
	assert_int_equal(run(f, "updn", opts, 1, &res, &err), ENG_NOT_APPLICABLE);
	/* updn: a CA's GUID stands for its switch */
	snprintf(kv, sizeof(kv), "root_guid_file=%s", tmp_file(&t, 3, "0x2011\n"));
	assert_int_equal(run(f, "updn", opts, 1, &res, &err), ENG_OK);
	assert_non_null(strstr(res.routing->notes, "root 'S0' (given, root_guid_file: 1 GUIDs"));
	eng_res_free(&res);
	tmp_free(&t);
	fab_free(f);
}

/* The notes say when OpenSM's ftree would refuse what ftree routes. */
static void test_osm_refusal_notes(void **state)
{
	struct gen_faults fl = { .random_links = 2, .seed = 7 };
	struct fab_err err = { { 0 } };
	struct fabric *f = tu_gen("kary-ntree k=4 n=3", 1);
	struct eng_res res;

	(void)state;
	tu_run_chain(f, "ftree", NULL, &res);
	assert_null(strstr(res.routing->notes, "OpenSM's ftree refuses"));
	eng_res_free(&res);
	assert_int_equal(gen_faults_apply(&f, &fl, &err), 0);
	tu_run_chain(f, "ftree", NULL, &res);
	assert_non_null(strstr(res.routing->notes, "OpenSM's ftree refuses this fabric (not a pure "
			       "fat tree"));
	eng_res_free(&res);
	fab_free(f);
	f = tu_gen("kary-ntree k=2 n=3 lmc=1", 1);
	tu_run_chain(f, "sftree", NULL, &res);
	assert_non_null(strstr(res.routing->notes, "(LMC 1 on"));
	eng_res_free(&res);
	fab_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cn_and_roots),
		cmocka_unit_test(test_bad_and_empty_files),
		cmocka_unit_test(test_osm_refusal_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
