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
 * The reader works in two passes: the first finds the highest top LID of
 * all block headers so that the tables are allocated once, the second
 * checks and stores every line.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/formats.h"

/* The parser's state while it walks the lines. */
struct lfts_parse {
	const struct fabric *f;
	struct rt_routing *r;
	struct fmt_lines *it;
	struct fab_err *err;
	unsigned *first_line;	/* per switch: line of its block header, 0 = none yet */
	uint8_t *seen;		/* per LID: listed in the current block */
	uint32_t sw;		/* switch of the open block, FAB_NONE between blocks */
	unsigned lo, hi;	/* the open block's LID range */
	unsigned entries;	/* entries in the open block */
	unsigned nblocks;
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

/* First pass: the highest top LID named by any block header (bad ones are ignored here). */
static unsigned max_header_top(const char *buf, size_t len)
{
	struct fmt_lines it;
	unsigned top = 0;

	fmt_lines_init(&it, buf, len, "");
	while (fmt_lines_next(&it) > 0) {
		const char *q = skip_ws(it.line), *dash = strchr(q, '-');
		unsigned long v;

		if (!strncmp(q, "Unicast lids [", 14) && dash &&
		    !parse_num(dash + 1, 0, FAB_LID_UCAST_MAX, &v, &q) && v > top)
			top = (unsigned)v;
	}
	fmt_lines_fini(&it);
	return top;
}

/* The open block has no "N lids dumped": the file was cut there. */
static int unclosed(struct lfts_parse *ps, const char *found)
{
	fmt_err_at(ps->err, ps->it, "expected \"N lids dumped\" closing the block of switch"
		   " 0x%016" PRIx64 " (line %u), found %s: the file is truncated",
		   ps->f->nodes[ps->f->switches[ps->sw]].guid, ps->first_line[ps->sw], found);
	return -1;
}

/*
 * "N lids dumped" closes the open block. OpenSM's N is the top LID, that
 * of `ibroute -a` the number of entries; "N valid lids dumped" (ibroute)
 * always counts the entries.
 */
static int close_block(struct lfts_parse *ps, unsigned long count, int valid)
{
	if (count == ps->entries || (!valid && count == ps->hi)) {
		ps->sw = FAB_NONE;
		return 0;
	}
	if (valid || ps->entries == ps->hi)
		fmt_err_at(ps->err, ps->it, "expected \"%u %slids dumped\", found %lu: the count"
			   " does not match the block's entries", ps->entries,
			   valid ? "valid " : "", count);
	else
		fmt_err_at(ps->err, ps->it, "expected \"%u lids dumped\" (the block's entries) or"
			   " \"%u lids dumped\" (its top LID), found %lu: the count does not match"
			   " the block", ps->entries, ps->hi, count);
	return -1;
}

/* "... guid 0x<16 hex>" in a block header: the switch of the block. */
static int header_switch(struct lfts_parse *ps, const char *p, uint32_t *sw)
{
	const char *g = strstr(p, " guid 0x"), *e = NULL;
	uint64_t guid = 0;
	uint32_t node;
	int d, nd = 0;

	if (g)
		for (e = g + 8; (d = digit(*e, 16)) >= 0 && nd <= 16; e++, nd++)
			guid = guid << 4 | (unsigned)d;
	if (!g || nd == 0 || nd > 16 || (*e && *e != ' ' && *e != '\t')) {
		fmt_err_at(ps->err, ps->it, "expected \"guid 0x\" and a switch GUID of up to"
			   " 16 hex digits in the block header");
		return -1;
	}
	node = fab_node_by_guid(ps->f, guid);
	if (node == FAB_NONE) {
		fmt_err_at(ps->err, ps->it, "expected a switch of the fabric, found unknown"
			   " switch GUID 0x%016" PRIx64, guid);
		return -1;
	}
	if (ps->f->nodes[node].type != FAB_SWITCH) {
		fmt_err_at(ps->err, ps->it, "expected a switch GUID, found 0x%016" PRIx64
			   " of %s \"%s\"", guid, fab_node_type_name(ps->f->nodes[node].type),
			   fab_desc(ps->f, node));
		return -1;
	}
	*sw = ps->f->nodes[node].swidx;
	if (ps->first_line[*sw]) {
		fmt_err_at(ps->err, ps->it, "expected one block per switch, found a second"
			   " block of switch 0x%016" PRIx64 " (first at line %u)", guid,
			   ps->first_line[*sw]);
		return -1;
	}
	return 0;
}

/* "Unicast lids [LO-HI] of switch ... guid 0x...": open a block. */
static int parse_header(struct lfts_parse *ps, const char *p)
{
	unsigned long lo, hi;
	uint32_t sw;

	if (ps->sw != FAB_NONE)
		return unclosed(ps, "a new block");
	p += 14;
	if (parse_num(p, 0, FAB_LID_UCAST_MAX, &lo, &p) || *p != '-' ||
	    parse_num(p + 1, 0, FAB_LID_UCAST_MAX, &hi, &p) || *p != ']' || lo > hi) {
		fmt_err_at(ps->err, ps->it, "expected a LID range \"[LO-HI]\" with"
			   " LO <= HI <= 0x%x after \"Unicast lids\"", FAB_LID_UCAST_MAX);
		return -1;
	}
	if (header_switch(ps, p, &sw))
		return -1;
	ps->sw = sw;
	ps->lo = (unsigned)lo;
	ps->hi = (unsigned)hi;
	ps->entries = 0;
	ps->first_line[sw] = ps->it->no;
	ps->nblocks++;
	memset(ps->seen, 0, ps->r->lft_len);
	return 0;
}

/* "0xLID PORT [annotation]": one entry of the open block. */
static int parse_entry(struct lfts_parse *ps, const char *p)
{
	const struct fab_node *n;
	unsigned long lid, port;
	char buf[64];

	if (ps->sw == FAB_NONE) {
		fmt_err_at(ps->err, ps->it, "expected a \"Unicast lids [...] of switch ...\""
			   " header before the entry \"%s\"", shown(p, buf, sizeof(buf)));
		return -1;
	}
	n = &ps->f->nodes[ps->f->switches[ps->sw]];
	if (parse_num(p + 2, 16, 0xffff, &lid, &p) || (*p && *p != ' ' && *p != '\t')) {
		fmt_err_at(ps->err, ps->it, "expected a LID of 1 to 4 hex digits after \"0x\"");
		return -1;
	}
	p = skip_ws(p);
	if (!isdigit((unsigned char)*p) || parse_num(p, 10, 255, &port, &p) ||
	    (*p && *p != ' ' && *p != '\t')) {
		fmt_err_at(ps->err, ps->it, "expected a decimal output port (0 to 255) after"
			   " LID 0x%04lx", lid);
		return -1;
	}
	if (lid < ps->lo || lid > ps->hi) {
		fmt_err_at(ps->err, ps->it, "expected a LID in the block's range [%u-%u],"
			   " found LID 0x%04lx", ps->lo, ps->hi, lid);
		return -1;
	}
	if (port != RT_NO_PORT && port > n->nports) {
		fmt_err_at(ps->err, ps->it, "expected a port of 0 to %u (switch 0x%016" PRIx64
			   " has %u ports), found port %lu for LID 0x%04lx", n->nports, n->guid,
			   n->nports, port, lid);
		return -1;
	}
	if (ps->seen[lid]) {
		fmt_err_at(ps->err, ps->it, "expected each LID once per block, found LID"
			   " 0x%04lx a second time for switch 0x%016" PRIx64, lid, n->guid);
		return -1;
	}
	ps->seen[lid] = 1;
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

static int parse_line(struct lfts_parse *ps)
{
	const char *p = skip_ws(ps->it->line);
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
			fmt_err_at(ps->err, ps->it, "expected \"lids dumped\" only at the end of"
				   " a block, found it outside any");
			return -1;
		}
		return close_block(ps, count, valid);
	}
	/* ibroute's column titles: "Lid  Out   Destination", "Port     Info" */
	if (ps->sw != FAB_NONE && (!strncmp(p, "Lid ", 4) || !strncmp(p, "Port ", 5)))
		return 0;
	if (!strncmp(p, "Multicast mlids", 15)) {
		fmt_err_at(ps->err, ps->it, "expected unicast tables, found a multicast dump");
		return -1;
	}
	fmt_err_at(ps->err, ps->it, "expected \"Unicast lids [...]\", \"0xLID PORT\" or"
		   " \"N lids dumped\", found \"%s\"", shown(p, buf, sizeof(buf)));
	return -1;
}

static int parse_all(struct lfts_parse *ps)
{
	int rc;

	while ((rc = fmt_lines_next(ps->it)) > 0)
		if (parse_line(ps))
			return -1;
	if (rc < 0) {
		fab_err_set(ps->err, "%s: out of memory", ps->it->name);
		return -1;
	}
	if (ps->sw != FAB_NONE)
		return unclosed(ps, "the end of the file");
	if (!ps->nblocks && ps->f->nswitches) {
		fab_err_set(ps->err, "%s:%u: expected at least one \"Unicast lids [...]\" block,"
			    " found none", ps->it->name, ps->it->no);
		return -1;
	}
	return 0;
}

struct rt_routing *fmt_lfts_parse(const char *buf, size_t len, const char *name,
				  const struct fabric *f, struct fab_err *err)
{
	struct fmt_lines it;
	struct lfts_parse ps = { .f = f, .it = &it, .err = err, .sw = FAB_NONE };
	unsigned top;

	if (fmt_check_size(buf, len, FMT_DUMP_SIZE_MAX, name, err))
		return NULL;
	top = max_header_top(buf, len);
	ps.r = rt_new_len(f, top + 1);
	ps.first_line = calloc((size_t)f->nswitches + 1, sizeof(*ps.first_line));
	ps.seen = ps.r ? malloc(ps.r->lft_len) : NULL;
	if (!ps.r || !ps.first_line || !ps.seen) {
		fab_err_set(err, "%s: out of memory", name);
		goto fail;
	}
	fmt_lines_init(&it, buf, len, name);
	if (parse_all(&ps)) {
		fmt_lines_fini(&it);
		goto fail;
	}
	fmt_lines_fini(&it);
	free(ps.first_line);
	free(ps.seen);
	return ps.r;
fail:
	rt_free(ps.r);
	free(ps.first_line);
	free(ps.seen);
	return NULL;
}

/* --- writing -------------------------------------------------------------- */

/* OpenSM's names of the node types (ib_get_node_type_str()). */
static const char *type_str(unsigned type)
{
	switch (type) {
	case FAB_CA:
		return "Channel Adapter";
	case FAB_SWITCH:
		return "Switch";
	case FAB_ROUTER:
		return "Router";
	}
	return "???";
}

/* A description on one line: control characters would break the format. */
static void put_desc(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(iscntrl((unsigned char)*s) ? '?' : *s, out);
}

static void put_annotation(FILE *out, const struct fabric *f, unsigned lid)
{
	uint32_t ep = fab_ep_by_lid(f, lid);
	const struct fab_ep *e;

	if (ep == FAB_NONE) {
		fputs("unknown node and type", out);
		return;
	}
	e = &f->eps[ep];
	fprintf(out, "%s portguid 0x%016" PRIx64 ": '", type_str(f->nodes[e->node].type),
		fab_port(f, e->node, e->port)->guid);
	put_desc(out, fab_desc(f, e->node));
	fputc('\'', out);
}

static int check_tables(const struct fabric *f, const struct rt_routing *r)
{
	if (r->nswitches != f->nswitches || r->lft_len == 0 ||
	    r->lft_len - 1 > FAB_LID_UCAST_MAX)
		return -1;
	for (uint32_t s = 0; s < r->nswitches; s++) {
		unsigned np = f->nodes[f->switches[s]].nports;
		const uint8_t *lft = rt_lft(r, s);

		for (uint32_t l = 0; l < r->lft_len; l++)
			if (lft[l] != RT_NO_PORT && lft[l] > np)
				return -1;
	}
	return 0;
}

/**
 * fmt_lfts_write() - write @r as opensm-lfts.dump
 * @out: the stream to write to
 * @f: the fabric @r routes
 * @r: its routing
 *
 * One block per switch in fabric switch order, the range of every block
 * being the whole table ([0-(lft_len - 1)]), entries without a route
 * (RT_NO_PORT) left out, every entry annotated as OpenSM annotates it
 * (OpenSM's loader uses the port GUID of the annotation to follow LID
 * changes). The trailer gives the top LID, as OpenSM's does.
 *
 * Return: 0, or -1 with errno set: EINVAL when @r does not fit @f (other
 * switch count, a port beyond a switch's port count), else the stream's
 * error.
 */
int fmt_lfts_write(FILE *out, const struct fabric *f, const struct rt_routing *r)
{
	unsigned top;

	if (check_tables(f, r)) {
		errno = EINVAL;
		return -1;
	}
	top = r->lft_len - 1;
	for (uint32_t s = 0; s < r->nswitches; s++) {
		uint32_t node = f->switches[s];
		const uint8_t *lft = rt_lft(r, s);

		fprintf(out, "Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64 " ('",
			top, fab_port(f, node, 0)->lid, f->nodes[node].guid);
		put_desc(out, fab_desc(f, node));
		fputs("'):\n", out);
		for (unsigned lid = 0; lid <= top; lid++) {
			if (lft[lid] == RT_NO_PORT)
				continue;
			fprintf(out, "0x%04x %03u # ", lid, lft[lid]);
			put_annotation(out, f, lid);
			fputc('\n', out);
		}
		fprintf(out, "%u lids dumped\n", top);
	}
	if (fflush(out) || ferror(out))
		return -1;
	return 0;
}
