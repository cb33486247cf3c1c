/* SPDX-License-Identifier: MIT */
/**
 * DOC: opensm-lfts.dump (the ibroute format)
 *
 * One block per switch:
 *
 *   Unicast lids [0-8] of switch Lid 2 guid 0x0000000000200000 ('S1'):
 *   0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'H1'
 *   ...
 *   8 lids dumped
 *
 * OpenSM writes this file with -D 0x43 and loads it with `-R file -U`.
 * The reader also takes what `ibroute` and `dump_fts` print: hexadecimal
 * ranges ("[0x0-0x8]"), a description in plain parentheses, the two
 * column-title lines, entries annotated "0x0001 001 : (...)", entries with
 * port 255 (ibroute -a) and "N valid lids dumped". OpenSM's trailer gives
 * the block's top LID, ibroute's the number of entries; either is
 * accepted, anything else means the block was cut.
 *
 * The reader takes the text in pieces of any size (fmt_lfts_feed()), so a
 * dump of any size is read from a file or a pipe with memory for the tables
 * alone (fmt_lfts_read()); the tables grow when a block header names a LID
 * past them. The writer is in formats/fmt_lfts_write.c.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/formats.h"

/**
 * struct fmt_lfts_reader - the parser's state between pieces of text
 * @it: the file name and the number of the current line (for messages)
 * @first_line: per switch, the line of its block header (0: none yet)
 * @seen: per LID, the number of the last block that listed it
 * @sw: switch of the open block, FAB_NONE between blocks
 * @lo, @hi: the open block's LID range
 * @entries: entries in the open block
 * @carry: the start of a line the last piece cut (@ncarry bytes)
 * @failed: an error was set; everything after is ignored
 */
struct fmt_lfts_reader {
	const struct fabric *f;
	struct rt_routing *r;
	struct fmt_lines it;
	struct fab_err *err;
	unsigned *first_line;
	uint32_t *seen;
	uint32_t sw;
	unsigned lo, hi;
	unsigned entries;
	unsigned nblocks;
	char *carry;
	size_t ncarry, ccap;
	int failed;
};


static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static int digit(char c, unsigned base)
{
	int d = isdigit((unsigned char)c) ? c - '0' :
		isxdigit((unsigned char)c) ? tolower((unsigned char)c) - 'a' + 10 : -1;

	return d >= 0 && (unsigned)d < base ? d : -1;
}

/*
 * Parse an unsigned number in @base (10 or 16; 0: hexadecimal after "0x",
 * else decimal) of at most @max; *@end gets the first character after it.
 * Return: 0, or -1 when there are no digits or the value is above @max.
 */
static int parse_num(const char *p, unsigned base, unsigned long max, unsigned long *v,
		     const char **end)
{
	unsigned long x = 0;
	int d, nd = 0;

	if (base == 0) {
		base = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') ? 16 : 10;
		p += base == 16 ? 2 : 0;
	}
	for (; (d = digit(*p, base)) >= 0; p++, nd++) {
		x = x * base + (unsigned)d;
		if (x > max)
			return -1;
	}
	if (!nd)
		return -1;
	*v = x;
	*end = p;
	return 0;
}

/* A quoted, length-limited and printable copy of a line for error messages. */
static const char *shown(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	for (; *s && n + 4 < size; s++)
		buf[n++] = isprint((unsigned char)*s) ? *s : '?';
	if (*s)
		buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
	buf[n] = '\0';
	return buf;
}

/* The open block has no "N lids dumped": the file was cut there. */
static int unclosed(struct fmt_lfts_reader *ps, const char *found)
{
	fmt_err_at(ps->err, &ps->it, "expected \"N lids dumped\" closing the block of switch"
		   " 0x%016" PRIx64 " (line %u), found %s: the file is truncated",
		   ps->f->nodes[ps->f->switches[ps->sw]].guid, ps->first_line[ps->sw], found);
	return -1;
}

/*
 * "N lids dumped" closes the open block. OpenSM's N is the top LID, that
 * of `ibroute -a` the number of entries; "N valid lids dumped" (ibroute)
 * always counts the entries.
 */
static int close_block(struct fmt_lfts_reader *ps, unsigned long count, int valid)
{
	if (count == ps->entries || (!valid && count == ps->hi)) {
		ps->sw = FAB_NONE;
		return 0;
	}
	if (valid || ps->entries == ps->hi)
		fmt_err_at(ps->err, &ps->it, "expected \"%u %slids dumped\", found %lu: the count"
			   " does not match the block's entries", ps->entries,
			   valid ? "valid " : "", count);
	else
		fmt_err_at(ps->err, &ps->it, "expected \"%u lids dumped\" (the block's entries) or"
			   " \"%u lids dumped\" (its top LID), found %lu: the count does not match"
			   " the block", ps->entries, ps->hi, count);
	return -1;
}

/* "... guid 0x<16 hex>" in a block header: the switch of the block. */
static int header_switch(struct fmt_lfts_reader *ps, const char *p, uint32_t *sw)
{
	const char *g = strstr(p, " guid 0x"), *e = NULL;
	uint64_t guid = 0;
	uint32_t node;
	int d, nd = 0;

	if (g)
		for (e = g + 8; (d = digit(*e, 16)) >= 0 && nd <= 16; e++, nd++)
			guid = guid << 4 | (unsigned)d;
	if (!g || nd == 0 || nd > 16 || (*e && *e != ' ' && *e != '\t')) {
		fmt_err_at(ps->err, &ps->it, "expected \"guid 0x\" and a switch GUID of up to"
			   " 16 hex digits in the block header");
		return -1;
	}
	node = fab_node_by_guid(ps->f, guid);
	if (node == FAB_NONE) {
		fmt_err_at(ps->err, &ps->it, "expected a switch of the fabric, found unknown"
			   " switch GUID 0x%016" PRIx64, guid);
		return -1;
	}
	if (ps->f->nodes[node].type != FAB_SWITCH) {
		fmt_err_at(ps->err, &ps->it, "expected a switch GUID, found 0x%016" PRIx64
			   " of %s \"%s\"", guid, fab_node_type_name(ps->f->nodes[node].type),
			   fab_desc(ps->f, node));
		return -1;
	}
	*sw = ps->f->nodes[node].swidx;
	if (ps->first_line[*sw]) {
		fmt_err_at(ps->err, &ps->it, "expected one block per switch, found a second"
			   " block of switch 0x%016" PRIx64 " (first at line %u)", guid,
			   ps->first_line[*sw]);
		return -1;
	}
	return 0;
}

/* Tables of @len LIDs: the rows move to their new place. */
static int grow(struct fmt_lfts_reader *ps, uint32_t len)
{
	struct rt_routing *r = rt_new_len(ps->f, len);
	uint32_t *seen = realloc(ps->seen, ((size_t)len + 1) * sizeof(*seen));

	if (seen) {
		memset(seen + ps->r->lft_len, 0, ((size_t)len + 1 - ps->r->lft_len) * sizeof(*seen));
		ps->seen = seen;
	}
	if (!r || !seen) {
		rt_free(r);
		fab_err_set(ps->err, "%s: out of memory", ps->it.name);
		return -1;
	}
	for (uint32_t s = 0; s < r->nswitches; s++)
		memcpy(rt_lft(r, s), rt_lft(ps->r, s), ps->r->lft_len);
	rt_free(ps->r);
	ps->r = r;
	return 0;
}

/* "Unicast lids [LO-HI] of switch ... guid 0x...": open a block. */
static int parse_header(struct fmt_lfts_reader *ps, const char *p)
{
	unsigned long lo, hi;
	uint32_t sw;

	if (ps->sw != FAB_NONE)
		return unclosed(ps, "a new block");
	p += 14;
	if (parse_num(p, 0, FAB_LID_UCAST_MAX, &lo, &p) || *p != '-' ||
	    parse_num(p + 1, 0, FAB_LID_UCAST_MAX, &hi, &p) || *p != ']' || lo > hi) {
		fmt_err_at(ps->err, &ps->it, "expected a LID range \"[LO-HI]\" with"
			   " LO <= HI <= 0x%x after \"Unicast lids\"", FAB_LID_UCAST_MAX);
		return -1;
	}
	if (header_switch(ps, p, &sw))
		return -1;
	if (hi >= ps->r->lft_len && grow(ps, (uint32_t)hi + 1))
		return -1;
	ps->sw = sw;
	ps->lo = (unsigned)lo;
	ps->hi = (unsigned)hi;
	ps->entries = 0;
	ps->first_line[sw] = ps->it.no;
	ps->nblocks++;
	return 0;
}

/* "0xLID PORT [annotation]": one entry of the open block. */
static int parse_entry(struct fmt_lfts_reader *ps, const char *p)
{
	const struct fab_node *n;
	unsigned long lid, port;
	char buf[64];

	if (ps->sw == FAB_NONE) {
		fmt_err_at(ps->err, &ps->it, "expected a \"Unicast lids [...] of switch ...\""
			   " header before the entry \"%s\"", shown(p, buf, sizeof(buf)));
		return -1;
	}
	n = &ps->f->nodes[ps->f->switches[ps->sw]];
	if (parse_num(p + 2, 16, 0xffff, &lid, &p) || (*p && *p != ' ' && *p != '\t')) {
		fmt_err_at(ps->err, &ps->it, "expected a LID of 1 to 4 hex digits after \"0x\"");
		return -1;
	}
	p = skip_ws(p);
	if (!isdigit((unsigned char)*p) || parse_num(p, 10, 255, &port, &p) ||
	    (*p && *p != ' ' && *p != '\t')) {
		fmt_err_at(ps->err, &ps->it, "expected a decimal output port (0 to 255) after"
			   " LID 0x%04lx", lid);
		return -1;
	}
	if (lid < ps->lo || lid > ps->hi) {
		fmt_err_at(ps->err, &ps->it, "expected a LID in the block's range [%u-%u],"
			   " found LID 0x%04lx", ps->lo, ps->hi, lid);
		return -1;
	}
	if (port != RT_NO_PORT && port > n->nports) {
		fmt_err_at(ps->err, &ps->it, "expected a port of 0 to %u (switch 0x%016" PRIx64
			   " has %u ports), found port %lu for LID 0x%04lx", n->nports, n->guid,
			   n->nports, port, lid);
		return -1;
	}
	if (ps->seen[lid] == ps->nblocks) {
		fmt_err_at(ps->err, &ps->it, "expected each LID once per block, found LID"
			   " 0x%04lx a second time for switch 0x%016" PRIx64, lid, n->guid);
		return -1;
	}
	ps->seen[lid] = ps->nblocks;
	ps->entries++;
	rt_lft(ps->r, ps->sw)[lid] = (uint8_t)port;
	return 0;
}

/* "N lids dumped" or "N valid lids dumped"; 1 when @p is one, 0 when not. */
static int is_trailer(const char *p, unsigned long *count, int *valid)
{
	if (parse_num(p, 10, 0xffff, count, &p) || *p != ' ')
		return 0;
	p++;
	*valid = !strncmp(p, "valid ", 6);
	if (*valid)
		p += 6;
	if (strncmp(p, "lids dumped", 11))
		return 0;
	return *skip_ws(p + 11) == '\0';
}

static int parse_line(struct fmt_lfts_reader *ps)
{
	const char *p = skip_ws(ps->it.line);
	unsigned long count;
	int valid;
	char buf[64];

	if (!*p || *p == '#')
		return 0;
	if (!strncmp(p, "Unicast lids [", 14))
		return parse_header(ps, p);
	if (!strncmp(p, "0x", 2))
		return parse_entry(ps, p);
	if (is_trailer(p, &count, &valid)) {
		if (ps->sw == FAB_NONE) {
			fmt_err_at(ps->err, &ps->it, "expected \"lids dumped\" only at the end of"
				   " a block, found it outside any");
			return -1;
		}
		return close_block(ps, count, valid);
	}
	/* ibroute's column titles: "Lid  Out   Destination", "Port     Info" */
	if (ps->sw != FAB_NONE && (!strncmp(p, "Lid ", 4) || !strncmp(p, "Port ", 5)))
		return 0;
	if (!strncmp(p, "Multicast mlids", 15)) {
		fmt_err_at(ps->err, &ps->it, "expected unicast tables, found a multicast dump");
		return -1;
	}
	fmt_err_at(ps->err, &ps->it, "expected \"Unicast lids [...]\", \"0xLID PORT\" or"
		   " \"N lids dumped\", found \"%s\"", shown(p, buf, sizeof(buf)));
	return -1;
}

/* --- pieces of text ------------------------------------------------------ */

struct fmt_lfts_reader *fmt_lfts_begin(const char *name, const struct fabric *f,
				       struct fab_err *err)
{
	struct fmt_lfts_reader *rd = calloc(1, sizeof(*rd));

	if (!rd) {
		fab_err_set(err, "%s: out of memory", name);
		return NULL;
	}
	rd->f = f;
	rd->err = err;
	rd->sw = FAB_NONE;
	rd->it.name = name;
	rd->r = rt_new(f);
	rd->first_line = calloc((size_t)f->nswitches + 1, sizeof(*rd->first_line));
	rd->seen = rd->r ? calloc((size_t)rd->r->lft_len + 1, sizeof(*rd->seen)) : NULL;
	if (!rd->r || !rd->first_line || !rd->seen) {
		fab_err_set(err, "%s: out of memory", name);
		fmt_lfts_abort(rd);
		return NULL;
	}
	return rd;
}

void fmt_lfts_abort(struct fmt_lfts_reader *rd)
{
	if (!rd)
		return;
	rt_free(rd->r);
	free(rd->first_line);
	free(rd->seen);
	free(rd->carry);
	free(rd);
}

/* One line, NUL-terminated at @line[@n] (a '\r' before it is dropped). */
static int one_line(struct fmt_lfts_reader *rd, char *line, size_t n)
{
	if (n && line[n - 1] == '\r')
		n--;
	line[n] = '\0';
	rd->it.no++;
	rd->it.line = line;
	if (parse_line(rd)) {
		rd->failed = 1;
		return -1;
	}
	return 0;
}

static int carry(struct fmt_lfts_reader *rd, const char *buf, size_t n)
{
	if (rd->ncarry + n + 1 > rd->ccap) {
		size_t cap = (rd->ncarry + n + 1) * 2;
		char *c = realloc(rd->carry, cap < 256 ? 256 : cap);

		if (!c) {
			fab_err_set(rd->err, "%s: out of memory", rd->it.name);
			rd->failed = 1;
			return -1;
		}
		rd->carry = c;
		rd->ccap = cap < 256 ? 256 : cap;
	}
	memcpy(rd->carry + rd->ncarry, buf, n);
	rd->ncarry += n;
	return 0;
}

/* A NUL byte in @buf: the error names its line. */
static int binary(struct fmt_lfts_reader *rd, const char *buf, const char *nul)
{
	unsigned line = rd->it.no + 1;

	for (const char *p = buf; p < nul; p++)
		line += *p == '\n';
	fab_err_set(rd->err, "%s:%u: binary data (NUL byte), expected a text file", rd->it.name,
		    line);
	rd->failed = 1;
	return -1;
}

/*
 * The complete lines of @buf; the cut one at its end is kept. With
 * @writable, lines are terminated in place, else copied.
 */
static int feed(struct fmt_lfts_reader *rd, char *wbuf, const char *buf, size_t len)
{
	const char *nul;

	if (rd->failed)
		return -1;
	if ((nul = memchr(buf, '\0', len)))
		return binary(rd, buf, nul);
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;

		if (!nl || rd->ncarry || !wbuf) {
			if (carry(rd, buf, n))
				return -1;
			if (!nl)
				return 0;
			if (one_line(rd, rd->carry, rd->ncarry))
				return -1;
			rd->ncarry = 0;
		} else if (one_line(rd, wbuf, n)) {
			return -1;
		}
		buf += n + 1;
		wbuf = wbuf ? wbuf + n + 1 : NULL;
		len -= n + 1;
	}
	return 0;
}

int fmt_lfts_feed(struct fmt_lfts_reader *rd, const char *buf, size_t len)
{
	return feed(rd, NULL, buf, len);
}

struct rt_routing *fmt_lfts_end(struct fmt_lfts_reader *rd)
{
	struct rt_routing *r = NULL;

	if (!rd->failed && rd->ncarry && (carry(rd, "", 0) || one_line(rd, rd->carry, rd->ncarry)))
		rd->failed = 1;
	if (rd->failed) {
		/* the error is set */
	} else if (rd->sw != FAB_NONE) {
		unclosed(rd, "the end of the file");
	} else if (!rd->nblocks && rd->f->nswitches) {
		fab_err_set(rd->err, "%s:%u: expected at least one \"Unicast lids [...]\" block,"
			    " found none", rd->it.name, rd->it.no);
	} else {
		r = rd->r;
		rd->r = NULL;
	}
	fmt_lfts_abort(rd);
	return r;
}

struct rt_routing *fmt_lfts_parse(const char *buf, size_t len, const char *name,
				  const struct fabric *f, struct fab_err *err)
{
	struct fmt_lfts_reader *rd = fmt_lfts_begin(name, f, err);

	if (!rd)
		return NULL;
	fmt_lfts_feed(rd, buf, len);
	return fmt_lfts_end(rd);
}

/* --- files and pipes ------------------------------------------------------ */

#define LFTS_PIECE (4u << 20)

struct rt_routing *fmt_lfts_read(FILE *in, const char *name, const struct fabric *f,
				 fmt_progress_fn progress, void *arg, uint64_t total,
				 struct fab_err *err)
{
	struct fmt_lfts_reader *rd = fmt_lfts_begin(name, f, err);
	char *buf = malloc(LFTS_PIECE);
	uint64_t done = 0;
	size_t n;

	if (!rd || !buf) {
		if (rd)
			fab_err_set(err, "%s: out of memory", name);
		fmt_lfts_abort(rd);
		free(buf);
		return NULL;
	}
	while ((n = fread(buf, 1, LFTS_PIECE, in)) > 0) {
		if (feed(rd, buf, buf, n))
			break;
		done += n;
		if (progress)
			progress(arg, done, total);
	}
	free(buf);
	if (!rd->failed && ferror(in)) {
		fab_err_set(err, "%s: read error: %s", name, strerror(errno));
		rd->failed = 1;
	}
	return fmt_lfts_end(rd);
}

struct rt_routing *fmt_lfts_load(const char *path, const struct fabric *f,
				 fmt_progress_fn progress, void *arg, struct fab_err *err)
{
	struct stat st;
	struct rt_routing *r;
	FILE *fp;

	if (!strcmp(path, "-"))
		return fmt_lfts_read(stdin, "<stdin>", f, progress, arg, 0, err);
	fp = fopen(path, "rb");
	if (!fp) {
		fab_err_set(err, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
		fab_err_set(err, "%s: is a directory, expected a file", path);
		fclose(fp);
		return NULL;
	}
	r = fmt_lfts_read(fp, path, f, progress, arg,
			  S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0, err);
	fclose(fp);
	return r;
}
