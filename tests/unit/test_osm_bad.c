/* SPDX-License-Identifier: MIT */
/*
 * Bad input for the OpenSM dump parsers (opensm-lfts.dump, opensm.fdbs,
 * opensm-subnet.lst, guid2lid): every refusal names the file, the line and
 * what was expected; nothing partial is returned.
 */
#include "tests/unit/testutil.h"

/* --- bad input ------------------------------------------------------------------ */

/*
 * One bad input made from a fixture of the "mixed" case: @from replaced by
 * @to; with @to NULL, the fixture cut right after @from; with @from NULL,
 * the text @to alone. The error must start with @where and hold @needle.
 */
struct bad {
	const char *from, *to, *where, *needle;
};

static void run_bad(enum tu_osm_fmt w, const char *file, const struct bad *b, size_t n)
{
	char *full = tu_osm_load("mixed", file, NULL), *t;

	for (size_t i = 0; i < n; i++) {
		if (!b[i].from)
			t = strdup(b[i].to);
		else if (b[i].to)
			t = tu_replaced(full, b[i].from, b[i].to, 0);
		else
			t = strndup(full, (size_t)(strstr(full, b[i].from) - full) + strlen(b[i].from));
		assert_non_null(t);
		tu_osm_fails(w, t, b[i].where, b[i].needle);
		free(t);
	}
	free(full);
}

#define NBAD(b) (sizeof(b) / sizeof((b)[0]))
#define HEAD "Unicast lids [0-8] of switch Lid 2 guid 0x0000000000200000 ('S1'):\n"
#define SW3 "Lid 3 guid 0x0000000000200001"

static void test_bad_lfts(void **state)
{
	static const struct bad b[] = {
		/* truncated: within a block, between blocks, within a line, empty */
		{ "0x0004 005 # Channel Adapter portguid 0x0000000000100002: 'H1'\n", NULL,
		  "bad.dump:5:", "expected \"N lids dumped\" closing the block of switch"
		  " 0x0000000000200000 (line 1), found the end of the file: the file is truncated" },
		{ "8 lids dumped\nUnicast", "Unicast", "bad.dump:10:", "(line 1), found a new block" },
		{ "'S2'\n0x00", NULL, "bad.dump:5:",
		  "expected a decimal output port (0 to 255) after LID 0x0000" },
		{ NULL, "", "bad.dump:0:", "expected at least one \"Unicast lids [...]\" block" },
		/* garbage */
		{ "0x0003 005", "hello world", "bad.dump:4:", "expected \"Unicast lids [...]\","
		  " \"0xLID PORT\" or \"N lids dumped\", found \"hello world # Switch" },
		{ NULL, "0x0001 001 # x\n", "bad.dump:1:", "header before the entry" },
		{ NULL, "8 lids dumped\n", "bad.dump:1:", "outside any" },
		{ NULL, "Multicast mlids [0xc000-0xc000] of switch guid 0x0000000000200000\n",
		  "bad.dump:1:", "found a multicast dump" },
		{ NULL, "\x7f" "ELF\x02\x01\x01\xff\xfe\n", "bad.dump:1:", "found \"?ELF" },
		/* unknown switch, a CA's GUID, malformed GUIDs */
		{ SW3, "Lid 3 guid 0x00000000002000ff", "bad.dump:11:",
		  "unknown switch GUID 0x00000000002000ff" },
		{ SW3, "Lid 3 guid 0x0000000000100000", "bad.dump:11:",
		  "expected a switch GUID, found 0x0000000000100000 of CA \"H1\"" },
		{ SW3, "Lid 3 guid 0x", "bad.dump:11:", "switch GUID of up to 16 hex digits" },
		{ SW3, "Lid 3 guid 0x00000000000000000200001", "bad.dump:11:", "up to 16 hex" },
		/* port beyond the port count (255 means no route and is fine) */
		{ "0x0003 005", "0x0003 009", "bad.dump:4:", "expected a port of 0 to 8 (switch"
		  " 0x0000000000200000 has 8 ports), found port 9 for LID 0x0003" },
		/* LID beyond the table */
		{ "0x0008 007", "0x0009 007", "bad.dump:9:",
		  "expected a LID in the block's range [0-8], found LID 0x0009" },
		{ "[0-8] of switch Lid 2", "[0-49152] of switch Lid 2", "bad.dump:1:",
		  "expected a LID range \"[LO-HI]\" with LO <= HI <= 0xbfff" },
		{ "[0-8] of switch Lid 2", "[5-3] of switch Lid 2", "bad.dump:1:", "LO <= HI" },
		/* malformed numbers */
		{ NULL, HEAD "0xZZ 001\n", "bad.dump:2:", "expected a LID of 1 to 4 hex digits" },
		{ NULL, HEAD "0x12345 001\n", "bad.dump:2:", "expected a LID of 1 to 4 hex" },
		{ NULL, HEAD "0x0001 -01\n", "bad.dump:2:", "expected a decimal output port" },
		{ NULL, HEAD "0x0001 256\n", "bad.dump:2:", "expected a decimal output port" },
		{ NULL, HEAD "0x0001 0x1\n", "bad.dump:2:", "expected a decimal output port" },
		{ NULL, HEAD "0x0001 001\n1 lidz dumped\n", "bad.dump:3:", "found \"1 lidz dumped\"" },
		/* duplicate entries and blocks, counts that do not match */
		{ "0x0003 005", "0x0001 001", "bad.dump:4:",
		  "found LID 0x0001 a second time for switch 0x0000000000200000" },
		{ SW3, "Lid 3 guid 0x0000000000200000", "bad.dump:11:",
		  "found a second block of switch 0x0000000000200000 (first at line 1)" },
		{ "8 lids dumped", "5 lids dumped", "bad.dump:10:",
		  "expected \"8 lids dumped\", found 5: the count does not match the block's entries" },
		{ NULL, HEAD "0x0001 001\n0x0002 000\n3 lids dumped\n", "bad.dump:4:",
		  "expected \"2 lids dumped\" (the block's entries) or \"8 lids dumped\" (its top"
		  " LID), found 3" },
	};
	/* ibroute counts the entries: one lost is noticed */
	static const struct bad ibroute[] = {
		{ "0x0003 005 : (Switch portguid 0x0000000000200001: 'S2')\n", "", "bad.dump:35:",
		  "expected \"7 valid lids dumped\", found 8" },
	};
	static const char nul[] = HEAD "0x00\0\x01\xff\n";

	(void)state;
	run_bad(TU_LFTS, "opensm-lfts.dump", b, NBAD(b));
	run_bad(TU_LFTS, "dump_fts.out", ibroute, NBAD(ibroute));
	tu_osm_fails_len(TU_LFTS, nul, sizeof(nul) - 1, "bad.dump:2:", "binary data (NUL byte)");
}

static void test_bad_fdbs(void **state)
{
	static const struct bad b[] = {
		{ "Optimal\n", NULL, "bad.fdbs:2:", "expected LID entries for switch"
		  " 0x0000000000200000 (line 1), found the end of the file: the file is truncated" },
		{ "0x0003 : ", NULL, "bad.fdbs:5:",
		  "expected a decimal port (0 to 255) or UNREACHABLE for LID 0x0003" },
		{ NULL, "", "bad.fdbs:0:", "expected at least one \"dump_ucast_routes: Switch\"" },
		{ "0x0003 : 005  : 01   : yes", "garbage", "bad.fdbs:5:", "found \"garbage\"" },
		{ NULL, "0x0001 : 001  : 01   : yes\n", "bad.fdbs:1:", "before the first entry" },
		{ "Switch 0x0000000000200001", "Switch 0x0000000000abcdef", "bad.fdbs:11:",
		  "expected a switch of the fabric, found unknown GUID 0x0000000000abcdef" },
		{ "Switch 0x0000000000200001", "Switch 0x0000000000100003", "bad.fdbs:11:",
		  "found CA GUID 0x0000000000100003" },
		{ "Switch 0x0000000000200001", "Switch 0x000000000020000g", "bad.fdbs:11:",
		  "expected a switch GUID" },
		{ "0x0003 : 005  :", "0x0003 : 010  :", "bad.fdbs:5:", "expected a port of 0 to 8"
		  " (switch 0x0000000000200000 has 8 ports), found port 10 for LID 0x0003" },
		{ "0x0008 : 007  : 02   : yes\n", "0x0008 : 007\n0xC000 : 001\n", "bad.fdbs:11:",
		  "expected a unicast LID (1 to 0xbfff), found 0xc000" },
		{ "0x0004 : 005  :", "0x0003 : 005  :", "bad.fdbs:6:", "expected LID 0x0004 (LIDs"
		  " ascend from 1 without gaps or repeats), found a second LID 0x0003" },
		{ "0x0003 : 005  : 01   : yes\n", "", "bad.fdbs:5:",
		  "expected LID 0x0003 (LIDs ascend from 1 without gaps or repeats), found LID 0x0004" },
		{ "Switch 0x0000000000200001", "Switch 0x0000000000200000", "bad.fdbs:11:",
		  "second block of switch 0x0000000000200000 (first at line 1)" },
		{ "0x0003 : 005", "0x0003 : x05", "bad.fdbs:5:", "expected a decimal port" },
		{ "0x0003 : 005", "0x0003 : 0005", "bad.fdbs:5:", "expected a decimal port" },
		{ "0x0003 : 005", "0x0003 - 005", "bad.fdbs:5:", "expected \" : \" after LID 0x0003" },
		{ "0x0003 : 005", "0x00003 : 005", "bad.fdbs:5:", "expected a LID of 1 to 4 hex" },
	};
	static const char nul[] = "dump_ucast_routes: Switch 0x0000000000200000\n\0\0";

	(void)state;
	run_bad(TU_FDBS, "opensm.fdbs", b, NBAD(b));
	tu_osm_fails_len(TU_FDBS, nul, sizeof(nul) - 1, "bad.fdbs:2:", "binary data");
}

#define SW2 "{ SW Ports:08 SystemGUID:0000000000200001 NodeGUID:0000000000200001"

static void test_bad_subnet(void **state)
{
	static const struct bad b[] = {
		/* truncated in a line, empty */
		{ "{H2", NULL, "bad.lst:4:", "expected a description \"{...}\" followed by"
		  " \"LID:\" in the second record" },
		{ "{S1} LID:0002 PN:01 }", NULL, "bad.lst:1:", "expected \"PHY=\"" },
		{ NULL, "", "bad.lst:0:", "expected link records" },
		{ NULL, "\n# nothing\n", "bad.lst:2:", "found none" },
		/* garbage */
		{ SW2, "garbage", "bad.lst:2:", "expected \"{\" in the second record" },
		{ NULL, "{ XX Ports:08 }\n", "bad.lst:1:", "expected node type SW, CA or Rt" },
		{ NULL, "\x89PNG\r\n\x1a\n", "bad.lst:1:", "expected \"{\" in the first record" },
		/* port beyond the port count, LID beyond the unicast range */
		{ "{S1} LID:0002 PN:05 }", "{S1} LID:0002 PN:09 }", "bad.lst:5:",
		  "expected 1 to 254 ports and a port number PN within them in the first record,"
		  " found Ports:08 PN:09" },
		{ "{S1} LID:0002 PN:05 }", "{S1} LID:0002 PN:00 }", "bad.lst:5:", "PN:00" },
		{ "{H2} LID:0006", "{H2} LID:C000", "bad.lst:4:",
		  "expected a unicast LID (0 to 0xbfff) in the second record, found LID:C000" },
		/* malformed numbers and words */
		{ "Ports:02", "Ports:0G", "bad.lst:1:",
		  "expected 1 to 2 hex digits after \"Ports:\" in the first record" },
		{ "NodeGUID:0000000000100000", "NodeGUID:00000000001000000", "bad.lst:1:",
		  "expected 1 to 16 hex digits after \"NodeGUID:\"" },
		{ "NodeGUID:0000000000100000", "NodeGUID:0000000000000000", "bad.lst:1:",
		  "expected a node GUID in the first record, found 0" },
		{ "PHY=4x", "PHY=5x", "bad.lst:1:", "expected \"PHY=\" and a width" },
		{ "LOG=ACT", "LOG=UP", "bad.lst:1:", "expected \"LOG=\"" },
		{ "SPD=2.5", "SPD=2.5 extra", "bad.lst:1:", "expected \"SPD=\" and a speed" },
		/* the same node twice, differently; a port with two LIDs; a port linked twice */
		{ SW2, "{ SW Ports:10 SystemGUID:0000000000200001 NodeGUID:0000000000200001",
		  "bad.lst:5:", "expected node 0x0000000000200001 to be the SW with 16 ports of"
		  " line 2, found a SW with 8 ports in the second record" },
		{ "{S2} LID:0003 PN:01 } PHY", "{S2} LID:0009 PN:01 } PHY", "bad.lst:5:",
		  "expected LID:0009 for this port of node 0x0000000000200001 as before, found"
		  " LID:0003" },
		{ "{S2} LID:0003 PN:05 } PHY", "{S2} LID:0003 PN:07 } PHY", "bad.lst:",
		  "is linked twice" },
	};
	char *full = tu_osm_load("mixed", "opensm-subnet.lst", NULL);
	char *t = tu_replaced(full, "{host three} LID:0007", "{host three} LID:0006", 1);

	(void)state;
	run_bad(TU_SUBNET, "opensm-subnet.lst", b, NBAD(b));
	/* two ports with one LID */
	tu_osm_fails(TU_SUBNET, t, "bad.lst:9:", "expected each LID on one port, found LID:0006 of "
		     "node 0x0000000000100005 in the second record already given at line 4");
	tu_osm_fails_len(TU_SUBNET, "{ CA\0\0\0", 7, "bad.lst:1:", "binary data");
	free(t);
	free(full);
}

#define G6 "0x0000000000100006 0x0007 0x0007"

static void test_bad_guid2lid(void **state)
{
	static const struct bad b[] = {
		{ "0x0000000000100006 0x0007", NULL, "bad.g2l:3:", "expected a base and a top LID" },
		{ G6, "what is this", "bad.g2l:3:",
		  "expected a port GUID \"0x\" and 1 to 16 hex digits at the start of the line" },
		{ NULL, "0x00000000001000060 0x0007 0x0007\n", "bad.g2l:1:", "1 to 16 hex digits" },
		{ NULL, "0x10 0x0007 0x0007 0x9\n", "bad.g2l:1:", "end of the line" },
		{ NULL, "0x10 0x00007 0x0007\n", "bad.g2l:1:", "(\"0x\" and 1 to 4 hex digits" },
		{ NULL, "0x10 7 7\n", "bad.g2l:1:", "expected a base and a top LID" },
		{ NULL, "0x0 0x0007 0x0007\n", "bad.g2l:1:", "expected a port GUID, found GUID 0" },
		{ NULL, "0x10 0x0000 0x0000\n", "bad.g2l:1:", "1 <= base <= top" },
		{ NULL, "0x10 0x0008 0x0007\n", "bad.g2l:1:", "found 0x0008 0x0007" },
		{ NULL, "0x10 0xc000 0xc000\n", "bad.g2l:1:", "<= 0xbfff" },
		{ NULL, "0x10 0x0003 0x0004\n", "bad.g2l:1:",
		  "expected a LID range of 2^LMC LIDs (LMC 0 to 7) aligned to its size, found"
		  " 0x0003-0x0004" },
		{ NULL, "0x10 0x0004 0x0006\n", "bad.g2l:1:", "2^LMC LIDs" },
		{ NULL, "0x10 0x0100 0x01ff\n", "bad.g2l:1:", "LMC 0 to 7" },
		{ G6, "0x0000000000100004 0x0009 0x0009", "bad.g2l:3:",
		  "expected each port GUID once, found 0x0000000000100004 again (first at line 1)" },
		{ G6, "0x0000000000100006 0x0006 0x0006", "bad.g2l:3:",
		  "expected each LID to belong to one port, found LID 0x0006 again (first at line 1)" },
		{ NULL, "0x10 0x1 0x1\n\xff\xfe\x01\n", "bad.g2l:2:", "port GUID" },
	};

	(void)state;
	run_bad(TU_GUID2LID, "guid2lid", b, NBAD(b));
	tu_osm_fails_len(TU_GUID2LID, "0x10 0x1 0x1\n\0", 14, "bad.g2l:2:", "binary data");
}

/* Larger than FMT_SIZE_MAX: refused by size before anything is read (but LFT dumps). */
static void test_too_large(void **state)
{
	static const char *const where[] = { "bad.dump: ", "bad.fdbs: ", "bad.lst: ", "bad.g2l: " };
	size_t len = (size_t)FMT_SIZE_MAX + 1;
	char *big = malloc(len);

	(void)state;
	assert_non_null(big);
	memset(big, '\n', len);
	for (int w = TU_SUBNET; w <= TU_GUID2LID; w++)
		tu_osm_fails_len(w, big, len, where[w], "larger than the 64 MiB limit");
	/*
	 * opensm.fdbs may be 1 GiB: the size is checked before any byte is
	 * read, so a length past the limit is refused without touching the
	 * buffer. opensm-lfts.dump has no limit (it is read in pieces): 64 MiB
	 * of empty lines are just empty.
	 */
	tu_osm_fails_len(TU_FDBS, big, (size_t)FMT_DUMP_SIZE_MAX + 1, where[TU_FDBS],
			 "larger than the 1024 MiB limit");
	tu_osm_fails_len(TU_LFTS, big, len, "bad.dump:67108865:", "expected at least one");
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_lfts),
		cmocka_unit_test(test_bad_fdbs),
		cmocka_unit_test(test_bad_subnet),
		cmocka_unit_test(test_bad_guid2lid),
		cmocka_unit_test(test_too_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
