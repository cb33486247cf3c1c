/* SPDX-License-Identifier: MIT */
/*
 * Topology files that must be refused: every error names the file and the
 * line ("bad.net:LINE: expected ..., found ...") and no fabric comes back.
 * Leaks on the error paths show under the sanitizer build.
 */
#include <fcntl.h>
#include <unistd.h>

#include "testutil.h"

/* A small valid ibnetdiscover fabric the cases below break one way or another. */
#define SW_HDR "switchguid=0x200000(200000)\n"
#define SW "Switch\t8 \"S-0000000000200000\"\t\t# \"s1\" base port 0 lid 1 lmc 0\n"
#define SW_P1 "[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"h1\" lid 2 4xSDR\n"
#define CA_HDR "caguid=0x100000\n"
#define CA "Ca\t2 \"H-0000000000100000\"\t\t# \"h1\"\n"
#define CA_P1 "[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 2 lmc 0 \"s1\" lid 1 4xSDR\n"

/* The parse fails with "bad.net:<line>: expected" and the message holds @what. */
static void fails(const char *text, enum fmt_topo fmt, unsigned line, const char *what)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "bad.net:%u: expected", line);
	tu_topo_fails(text, fmt, prefix);
	tu_topo_fails(text, fmt, what);
}

static void test_good_base(void **state)
{
	struct fabric *f = tu_topo(SW_HDR SW SW_P1 "\n" CA_HDR CA CA_P1, FMT_IBND);

	(void)state;
	assert_int_equal(f->nlinks, 1);
	fab_free(f);
	f = tu_topo("Switch 8 \"s\"\n[1] \"h\"[1]\n\nHca 1 \"h\"\n[1] \"s\"[1]\n", FMT_IBSIM);
	assert_int_equal(f->nlinks, 1);
	fab_free(f);
}

static void test_truncated(void **state)
{
	(void)state;
	/* a record cut after its header lines */
	fails(SW_HDR SW SW_P1 "\nvendid=0x2c9\n" CA_HDR, FMT_IBND, 6,
	      "expected the Switch, Ca or Rt line of the record that starts at line 5, found the end of the file");
	fails(SW_HDR "\n" SW, FMT_IBND, 2, "record that starts at line 1, found a blank line");
	/* a port line cut in the peer's id, or without a peer */
	fails(SW_HDR SW "[1]\t\"H-00000000001", FMT_IBND, 3, "expected a closing '\"' after the peer node id");
	fails(SW_HDR SW "[1]\n", FMT_IBND, 3, "expected the peer \"S-<16 hex digits>\"[port] after '[1]', found end of line");
	fails(SW_HDR SW "[1]\t\"H-0000000000100000\"\n", FMT_IBND, 3, "expected the peer's port number as '[N]', found 'end of line'");
	fails("Switch 8 \"s\"\n[1]\n", FMT_IBSIM, 2, "expected the peer node id in quotes, found 'end of line'");
	fails("Switch 8 \"s\"\n[1] \"h\n", FMT_IBSIM, 2, "expected a closing '\"' after the peer node id");
	/* the file stops before the peer's record */
	fails(SW_HDR SW SW_P1, FMT_IBND, 3, "expected a peer defined in this file, found '\"H-0000000000100000\"'");
	fails("Switch 8 \"s\"\n[1] \"h\"[1]\n", FMT_IBSIM, 2, "expected a peer defined in this file, found '\"h\"'");
	/* nothing at all */
	fails("", FMT_IBND, 1, "expected at least one Switch, Ca or Rt record, found the end of the file");
	fails("# only a comment\n\n", FMT_IBSIM, 2, "expected at least one Switch, Hca or Rt record");
	fails(SW_HDR SW "\n" CA_HDR "Ca\t2", FMT_IBND, 5, "expected a node id \"S-<16 hex digits>\" (or H-, R-), found 'end of line'");
}

static void test_garbage(void **state)
{
	(void)state;
	fails(SW_HDR SW SW_P1 "\nhello world\n", FMT_IBND, 5,
	      "expected a record line (vendid=, devid=, sysimgguid=, switchguid=, caguid=, rtguid=, Switch, Ca, Rt), a port line, a comment or a blank line, found 'hello'");
	fails("hello world\n", FMT_IBSIM, 1, "found 'hello'");
	fails(SW_HDR SW "[1]\t\"H-0000000000100000\"[1] junk\n", FMT_IBND, 3,
	      "expected a '#' comment or the end of the line, found 'junk'");
	fails("Switch 8 \"s\"\n[1] \"h\"[1] junk\n", FMT_IBSIM, 2,
	      "expected w=N, s=N, e=N, lid N, lmc N or a '#' comment, found 'junk'");
	fails("Switch 8 \"s\" junk\n", FMT_IBSIM, 1, "expected lid N, lmc N, base port 0, enhanced port 0 or a '#' comment, found 'junk'");
	fails(SW_HDR "Switch\t8 \"S-0000000000200000\" junk\n", FMT_IBND, 2, "found 'junk'");
	fails(SW_HDR SW "hello\n", FMT_IBND, 3, "expected a record line (vendid=, devid=, sysimgguid=, switchguid=, caguid=, rtguid=, Switch, Ca, Rt), a port line, a comment or a blank line, found 'hello'");
	fails(SW_HDR SW "[x]\n", FMT_IBND, 3, "expected a port number as '[N]', found '[x]'");
	fails("[1] \"s\"[1]\n", FMT_IBSIM, 1, "expected a port line '[N] \"peer\"[M]' only after a Switch, Hca or Rt line");
	fails("[1]\t\"S-0000000000200000\"[1]\n", FMT_IBND, 1, "expected a port line only after a Switch, Ca or Rt line");
	fails("vendid=zz\n", FMT_IBND, 1, "expected a 24-bit vendor id, found 'zz'");
	fails("devid=0x10000\n", FMT_IBND, 1, "expected a 16-bit device id, found '0x10000'");
	fails("switchguid=0x0\n", FMT_IBND, 1, "expected a non-zero 64-bit GUID after 'switchguid=', found '0x0'");
	fails("Switch 8 \"s\"\n[1] \"h\"[1] w=32\n", FMT_IBSIM, 2, "expected a link width mask (1 1x, 2 4x, 4 8x, 8 12x, 16 2x) from 1 to 31 after 'w=', found '32'");
	fails("Switch 8 \"s\"\n[1] \"h\"[1] s=8\n", FMT_IBSIM, 2, "expected a link speed mask (1 SDR, 2 DDR, 4 QDR) from 1 to 7 after 's=', found '8'");
	fails("Switch 8 \"s\"\n[1] \"h\"[1] e=16\n", FMT_IBSIM, 2, "expected an extended speed mask (1 FDR, 2 EDR, 4 HDR, 8 NDR) from 0 to 15 after 'e=', found '16'");
	fails("width=0\n", FMT_IBSIM, 1, "expected 'width=N' with N from 1 to 31, found '0'");
	fails("switchguid\n", FMT_IBSIM, 1, "expected '=GUID' or '+N' after 'switchguid', found 'end of line'");
	fails("switchguid=+5\n", FMT_IBSIM, 1, "expected a GUID after '=' (write '+N' without '=' for a relative one), found '+5'");
}

static void test_refused_ibsim_lines(void **state)
{
	char line[400];

	(void)state;
	fails("include \"other.net\"\n", FMT_IBSIM, 1, "found 'include': include, do and module lines are not supported");
	fails("do Quit\n", FMT_IBSIM, 1, "found 'do'");
	fails("module=\"m\"\n", FMT_IBSIM, 1, "found 'module'");
	fails("Switch 8 \"s\"\n@a \"h\"[1]\n", FMT_IBSIM, 2, "(aliases are not supported)");
	fails("Switch 8 \"a@b\"\n", FMT_IBSIM, 1, "expected a node id without '#' or '@'");
	fails("Switch 8 \"\"\n", FMT_IBSIM, 1, "expected a node id of 1 to 64 characters, found 0");
	/* a record must end with a blank line: ibsim would swallow the next line */
	fails("Switch 8 \"s\"\n[1] \"h\"[1]\nHca 1 \"h\"\n[1] \"s\"[1]\n", FMT_IBSIM, 3,
	      "expected a port line or a blank line ending the record (ibsim would skip this line), found 'Hca'");
	/* ibsim reads at most 255 characters a line */
	snprintf(line, sizeof(line), "Switch 8 \"s\" # \"%0300d\"\n", 0);
	fails(line, FMT_IBSIM, 1, "expected at most 255 characters on a line (ibsim's limit), found 317");
	/* routers: ibsim numbers them from GUID 0 */
	fails("Rt 1 \"r\"\n", FMT_IBSIM, 1, "expected a GUID line (rtguid=) before this node, found none");
}

static void test_duplicates(void **state)
{
	(void)state;
	/* the same node id twice */
	fails(SW_HDR SW "\n" SW_HDR SW, FMT_IBND, 5, "expected a node id not used before, found '\"S-0000000000200000\"' (also on line 2)");
	fails("Switch 8 \"s\"\n\nHca 1 \"s\"\n", FMT_IBSIM, 3, "expected a node id not used before, found '\"s\"' (also on line 1)");
	/* the same node GUID for two nodes */
	fails(SW_HDR SW "\nRt\t1 \"R-0000000000200000\"\n", FMT_IBND, 4,
	      "expected a node GUID not used before, found 0x0000000000200000 (also \"S-0000000000200000\" on line 2)");
	fails("switchguid=0x10\nSwitch 8 \"a\"\n\nswitchguid=0x10\nSwitch 8 \"b\"\n", FMT_IBSIM, 5,
	      "expected a node GUID not used before, found 0x0000000000000010 (also \"a\" on line 2)");
	/* a GUID line that disagrees with the node line */
	fails(CA_HDR "Ca\t2 \"H-0000000000100001\"\n", FMT_IBND, 2,
	      "expected \"H-0000000000100000\" as caguid= on line 1 says, found \"H-0000000000100001\"");
	fails("switchguid=0x10(10)\nCa\t2 \"H-0000000000000010\"\n", FMT_IBND, 2,
	      "expected \"S-0000000000000010\" as switchguid= on line 1 says");
	fails("Switch\t8 \"H-0000000000000010\"\n", FMT_IBND, 1, "expected a node id \"S-<non-zero 16 hex digits>\" for a switch");
}

static void test_conflicting_links(void **state)
{
	(void)state;
	/* a port listed twice */
	fails(SW_HDR SW SW_P1 SW_P1, FMT_IBND, 4, "expected each port listed once, found port 1 again (first on line 3)");
	fails("Switch 8 \"s\"\n[1] \"h\"[1]\n[1] \"h\"[1]\n", FMT_IBSIM, 3, "found port 1 again (first on line 2)");
	/* the two ends disagree */
	fails(SW_HDR SW SW_P1 "\n" CA_HDR CA "[1](100001) \t\"S-0000000000200000\"[2]\n", FMT_IBND, 3,
	      "expected \"H-0000000000100000\" port 1 to be linked back to \"S-0000000000200000\"[1], found it linked to \"S-0000000000200000\"[2] on line 7");
	fails("Switch 8 \"s\"\n[1] \"h\"[1]\n\nHca 2 \"h\"\n[1] \"s\"[2]\n", FMT_IBSIM, 2,
	      "expected \"h\" port 1 to be linked back to \"s\"[1], found it linked to \"s\"[2] on line 5");
	/* two ports claim the same peer port (the peer lists neither) */
	fails(SW_HDR SW SW_P1 "[2]\t\"H-0000000000100000\"[1]\n\n" CA_HDR CA, FMT_IBND, 4,
	      "expected every port linked once, found \"h1\" port 1 is linked twice");
	/* ibsim: links are listed from both ends */
	fails("Switch 8 \"s\"\n[1] \"h\"[1]\n\nHca 1 \"h\"\n", FMT_IBSIM, 2,
	      "expected a port line of \"h\" port 1 naming \"s\"[1] back (links are listed from both ends), found none");
	/* a port linked to itself */
	fails("Switch 8 \"s\"\n[1] \"s\"[1]\n", FMT_IBSIM, 2, "expected a peer other than the port itself");
	/* widths no end agrees on */
	fails("Switch 8 \"s\"\n[1] \"h\"[1] w=1\n\nHca 1 \"h\"\n[1] \"s\"[1] w=2\n", FMT_IBSIM, 2,
	      "expected a link width both ends enable, found w=1 here and w=2 on line 5");
	/* port GUIDs that disagree */
	fails(SW_HDR SW "[1]\t\"H-0000000000100000\"[1](100009)\n\n" CA_HDR CA CA_P1, FMT_IBND, 3,
	      "expected port GUID 100001 for \"H-0000000000100000\"[1] (line 7), found '(100009)'");
}

static void test_port_numbers(void **state)
{
	(void)state;
	fails(SW_HDR SW "[0]\t\"H-0000000000100000\"[1]\n", FMT_IBND, 3, "expected a port number from 1 to 8, found '[0]'");
	fails(SW_HDR SW "[9]\t\"H-0000000000100000\"[1]\n", FMT_IBND, 3, "expected a port number from 1 to 8, found '[9]'");
	fails(SW_HDR SW "[1]\t\"H-0000000000100000\"[0]\n", FMT_IBND, 3, "expected the peer's port number from 1 to 254, found '[0]'");
	fails(SW_HDR SW "[1]\t\"H-0000000000100000\"[3]\n\n" CA_HDR CA, FMT_IBND, 3,
	      "expected a port of \"H-0000000000100000\" (1 to 2), found '[3]'");
	fails("Switch 8 \"s\"\n[0] \"h\"[1]\n", FMT_IBSIM, 2, "expected a port number from 1 to 8, found '[0]'");
	fails("Switch 8 \"s\"\n[12] \"h\"[1]\n", FMT_IBSIM, 2, "expected a port number from 1 to 8, found '[12]'");
	fails("Switch 8 \"s\"\n[1] \"h\"[2]\n\nHca 1 \"h\"\n", FMT_IBSIM, 2, "expected a port of \"h\" (1 to 1), found '[2]'");
	/* port counts */
	fails("Switch\t0 \"S-0000000000200000\"\n", FMT_IBND, 1, "expected a port count from 1 to 254, found '0'");
	fails("Switch\t255 \"S-0000000000200000\"\n", FMT_IBND, 1, "expected a port count from 1 to 254, found '255'");
	fails("Ca\tx \"H-0000000000200000\"\n", FMT_IBND, 1, "expected a port count from 1 to 254, found 'x'");
	fails("Hca 1000 \"h\"\n", FMT_IBSIM, 1, "expected a port count from 1 to 254, found '1000'");
	fails("Switch \"s\"\n", FMT_IBSIM, 1, "expected a port count from 1 to 254, found '\"s\"'");
}

static void test_lids(void **state)
{
	(void)state;
	/* two ports with the same LID */
	fails(SW_HDR "Switch\t8 \"S-0000000000200000\"\t\t# \"s1\" base port 0 lid 2 lmc 0\n" SW_P1 "\n" CA_HDR CA CA_P1,
	      FMT_IBND, 7, "expected LIDs no other port owns, found LID 2, which \"S-0000000000200000\" port 0 (line 2) owns too");
	/* LMC ranges that overlap: 4..7 and 6 */
	fails("Switch 8 \"s\" lid 6\n[1] \"h\"[1]\n\nHca 1 \"h\"\n[1] \"s\"[1] lid 4 lmc 2\n", FMT_IBSIM, 5,
	      "expected LIDs no other port owns, found LID 6, which \"s\" port 0 (line 1) owns too");
	/* a base LID not aligned to its LMC */
	fails("Switch 8 \"s\"\n[1] \"h\"[1]\n\nHca 1 \"h\"\n[1] \"s\"[1] lid 5 lmc 2\n", FMT_IBSIM, 5,
	      "expected a base LID that is a multiple of 4 (LMC 2), found LID 5");
	fails("Switch 8 \"s\"\n[1] \"h\"[1]\n\nHca 1 \"h\"\n[1] \"s\"[1] lid 49148 lmc 3\n", FMT_IBSIM, 5,
	      "expected a base LID that is a multiple of 8 (LMC 3), found LID 49148");
	/* LIDs past the unicast range (an aligned range ends at 0xBFFF at most) */
	fails(SW_HDR "Switch\t8 \"S-0000000000200000\"\t\t# \"s1\" base port 0 lid 49152 lmc 0\n", FMT_IBND, 2,
	      "expected a unicast LID (0 to 49151) after 'lid', found '49152'");
	fails(SW_HDR SW "[1](1) \t\"H-0000000000100000\"[1]\n\n" CA_HDR CA "[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 2 lmc 8\n",
	      FMT_IBND, 7, "expected an LMC from 0 to 7 after 'lmc', found '8'");
	fails("Switch 8 \"s\" lmc 9\n", FMT_IBSIM, 1, "expected a number from 0 to 7 after 'lmc', found '9'");
}

/* The text parsers refuse NUL bytes even when given a buffer directly. */
static void test_binary_buffer(void **state)
{
	static const char text[] = "Switch 8 \"s\"\n\n\0\x01\x02junk";
	struct fab_err err = { { 0 } };

	(void)state;
	assert_null(fmt_topo_parse(text, sizeof(text) - 1, "bad.net", FMT_AUTO, &err));
	assert_string_equal(err.msg, "bad.net:3: binary data (NUL byte), expected a text file");
	/* no err given: no crash either */
	assert_null(fmt_topo_parse(text, sizeof(text) - 1, "bad.net", FMT_IBSIM, NULL));
}

static char *temp_file(const void *data, size_t len, off_t size)
{
	char *path = strdup("/tmp/fabroute-bad-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	if (size)
		assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
	return path;
}

static void test_files(void **state)
{
	static const char junk[] = "Switch 8 \"s\"\n\x7f" "ELF\0\0\0\x02\x01";
	struct fab_err err = { { 0 } };
	char *path, want[256];

	(void)state;
	/* binary junk: NUL bytes */
	path = temp_file(junk, sizeof(junk) - 1, 0);
	assert_null(fmt_topo_load(path, FMT_AUTO, NULL, &err));
	snprintf(want, sizeof(want), "%s:2: binary data (NUL byte), expected a text file", path);
	assert_string_equal(err.msg, want);
	unlink(path);
	free(path);
	/* a (sparse) file past the 64 MiB limit */
	path = temp_file("Switch 8 \"s\"\n", 13, (off_t)FMT_SIZE_MAX + 1);
	assert_null(fmt_topo_load(path, FMT_IBSIM, NULL, &err));
	snprintf(want, sizeof(want), "%s: %lld bytes, larger than the 64 MiB limit for this kind of file",
		 path, (long long)FMT_SIZE_MAX + 1);
	assert_string_equal(err.msg, want);
	unlink(path);
	free(path);
	/* a file that is not there */
	assert_null(fmt_topo_load("/nonexistent/bad.net", FMT_AUTO, NULL, &err));
	assert_non_null(strstr(err.msg, "/nonexistent/bad.net: cannot open"));
	/* errors in a file name it */
	path = temp_file("Switch 8 \"s\"\n[9] \"h\"[1]\n", 24, 0);
	assert_null(fmt_topo_load(path, FMT_IBSIM, NULL, &err));
	snprintf(want, sizeof(want), "%s:2: expected a port number from 1 to 8, found '[9]'", path);
	assert_string_equal(err.msg, want);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_base),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_refused_ibsim_lines),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_conflicting_links),
		cmocka_unit_test(test_port_numbers),
		cmocka_unit_test(test_lids),
		cmocka_unit_test(test_binary_buffer),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
