/* SPDX-License-Identifier: MIT */
/**
 * DOC: SL2VL tables and path SLs
 *
 * opensm-sl2vl.dump is what OpenSM writes with -D 0x43 when QoS is on (-Q)
 * or when the routing engine programs SL2VL tables itself. One record per
 * port GUID, in GUID order, a blank line after each:
 *
 *   Switch 0x0002fab100000001, base LID 1, "sw-0"
 *   #in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15
 *   #--------------------------------------------------------
 *   0   1   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7
 *   1   1   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7
 *   ...
 *   #--------------------------------------------------------
 *
 * The header names the node type ("Switch", "Channel Adapter", "Router"),
 * the port GUID, the base LID in decimal and the description. A switch
 * has one row per (in port, out port) for every linked out port and every
 * in port 0..N: the VL of SL 0..15 for a packet entering by the in port and
 * leaving by the out port. A CA or router port has a single row "0 0". Lines
 * starting with '#' are comments wherever they are.
 *
 * The path-SL file is what `ibdmchk -c` reads (ibutils, ibdm/ibdm/Fabric.cpp,
 * IBFabric::parsePSLFile(); ibdmchk(1): "Source Guid to DLID -> Path SL
 * mapping. Each line holds: src_node_guid dlid sl"):
 *
 *   0x0002fab200000010 14 2
 *
 * the source NODE GUID ("0x" and lower-case hex digits), the destination LID
 * in decimal and the SL in decimal, separated by single spaces. ibdmchk
 * keeps one SL per (source node, DLID): both ports of a two-port CA use the
 * same SL towards a LID, and a switch source is named by the switch's GUID.
 * ibdmchk matches lines with a regular expression and silently skips any
 * other line (upper-case hex, tabs, double spaces); fabroute refuses such
 * lines instead, so a file it accepts means the same to both. Blank lines
 * and lines starting with '#' are comments (ibdmchk skips them too, unless
 * they hold something like an entry, which fabroute refuses). Once a node
 * has entries, ibdmchk fails on every path from it to a DLID without one:
 * fmt_pathsl_write() writes every (node, DLID) pair.
 *
 * fmt_pathsl_parse() maps each line to the endpoint pairs (port of the
 * source node, endpoint owning the DLID) whose routing DLID (rt_dlid()) is
 * that LID; lines for the other LIDs of an LMC range are checked and do not
 * change the model, which has one SL per pair. Pairs without a line keep
 * the SL the routing had (0 for a fresh one).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* 1 to 5 decimal digits of at most @max; *@end gets the first character after them. */
static int parse_dec(const char *p, unsigned max, unsigned *v, const char **end)
{
	unsigned x = 0, nd = 0;

	for (; isdigit((unsigned char)*p); p++)
		if (++nd > 5 || (x = x * 10 + (unsigned)(*p - '0')) > max)
			return -1;
	if (!nd)
		return -1;
	*v = x;
	*end = p;
	return 0;
}

/*
 * "0x" and 1 to 16 hex digits (lower case only when @lower). Return: 0, -1
 * when malformed, -2 when well formed but with upper-case digits.
 */
static int parse_guid(const char *p, int lower, uint64_t *v, const char **end)
{
	uint64_t x = 0;
	unsigned nd = 0;
	int upper = 0;

	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return -1;
	upper = p[1] == 'X';
	for (p += 2; isxdigit((unsigned char)*p); p++) {
		if (++nd > 16)
			return -1;
		upper |= isupper((unsigned char)*p) != 0;
		x = x << 4 | (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' :
					tolower((unsigned char)*p) - 'a' + 10);
	}
	if (!nd)
		return -1;
	*v = x;
	*end = p;
	return lower && upper ? -2 : 0;
}

/* --- opensm-sl2vl.dump ------------------------------------------------- */

/**
 * struct sl2vl_parse - state of one opensm-sl2vl.dump read
 * @tmp: the tables read so far (only @tmp.nswitches and @tmp.sl2vl are
 *       used); moved into the routing when the whole file is good
 * @sw_line: per switch, the line of its record (0 = not seen)
 * @seen: (in port, out port) rows of the current switch record
 * @node: node of the current record, FAB_NONE outside a record
 * @rows: rows of the current record
 */
struct sl2vl_parse {
	const struct fabric *f;
	const struct rt_routing *r;
	struct fmt_lines *it;
	struct fab_err *err;
	struct rt_routing tmp;
	uint32_t *sw_line;
	uint8_t *seen;
	uint32_t node;
	unsigned rows;
};

static const char *const rec_types[] = { "Switch ", "Channel Adapter ", "Router " };
static const enum fab_node_type rec_node_types[] = { FAB_SWITCH, FAB_CA, FAB_ROUTER };

/* The record type at the start of @p (index in rec_types), or -1. */
static int rec_type(const char *p)
{
	for (unsigned i = 0; i < sizeof(rec_types) / sizeof(rec_types[0]); i++)
		if (!strncmp(p, rec_types[i], strlen(rec_types[i])))
			return (int)i;
	return -1;
}

/* Start the new table of switch @sw from the one the routing has. */
static int sl2vl_start_switch(struct sl2vl_parse *ps, uint32_t sw)
{
	unsigned dim = ps->f->nodes[ps->f->switches[sw]].nports + 1u;
	size_t n = (size_t)dim * dim * RT_SLS;

	if (ps->sw_line[sw]) {
		fmt_err_at(ps->err, ps->it, "expected each switch once, found 0x%016" PRIx64
			   " again (first at line %u)", ps->f->nodes[ps->f->switches[sw]].guid,
			   ps->sw_line[sw]);
		return -1;
	}
	ps->sw_line[sw] = ps->it->no;
	memset(ps->seen, 0, n / RT_SLS);
	if (!ps->r->sl2vl[sw])
		return 0;
	ps->tmp.sl2vl[sw] = malloc(n);
	if (!ps->tmp.sl2vl[sw]) {
		fab_err_set(ps->err, "%s: out of memory", ps->it->name);
		return -1;
	}
	memcpy(ps->tmp.sl2vl[sw], ps->r->sl2vl[sw], n);
	return 0;
}

/* Check the GUID, type and LID of a header against the fabric. */
static int sl2vl_check_port(struct sl2vl_parse *ps, int type, uint64_t guid, unsigned lid)
{
	const struct fabric *f = ps->f;
	uint32_t ep = fab_ep_by_port_guid(f, guid);
	uint32_t node;

	if (ep == FAB_NONE) {
		fmt_err_at(ps->err, ps->it, "expected the GUID of a linked port of the fabric,"
			   " found 0x%016" PRIx64, guid);
		return -1;
	}
	node = f->eps[ep].node;
	if (f->nodes[node].type != rec_node_types[type]) {
		fmt_err_at(ps->err, ps->it, "expected the type the fabric gives port 0x%016" PRIx64
			   " (%s), found %.*s", guid, fab_node_type_name(f->nodes[node].type),
			   (int)strlen(rec_types[type]) - 1, rec_types[type]);
		return -1;
	}
	if (fab_ep_lid(f, ep) && fab_ep_lid(f, ep) != lid) {
		fmt_err_at(ps->err, ps->it, "expected base LID %u (the fabric's) for port 0x%016"
			   PRIx64 ", found %u", fab_ep_lid(f, ep), guid, lid);
		return -1;
	}
	ps->node = node;
	ps->rows = 0;
	return f->nodes[node].type == FAB_SWITCH ? sl2vl_start_switch(ps, f->nodes[node].swidx) : 0;
}

static int sl2vl_header(struct sl2vl_parse *ps, const char *p)
{
	int type = rec_type(p);
	uint64_t guid;
	unsigned lid;
	size_t n;

	if (type < 0) {
		fmt_err_at(ps->err, ps->it, "expected a record header (\"Switch\", \"Channel"
			   " Adapter\" or \"Router\") or an \"IN OUT : VL...\" row, found \"%.40s\"", p);
		return -1;
	}
	p += strlen(rec_types[type]);
	if (parse_guid(p, 0, &guid, &p) || strncmp(p, ", base LID ", 11) ||
	    parse_dec(p + 11, FAB_LID_UCAST_MAX, &lid, &p) || strncmp(p, ", \"", 3)) {
		fmt_err_at(ps->err, ps->it, "expected \"%s0xGUID, base LID N, \\\"DESCRIPTION\\\"\"",
			   rec_types[type]);
		return -1;
	}
	n = strlen(p);
	if (n < 4 || p[n - 1] != '"') {
		fmt_err_at(ps->err, ps->it, "expected the node description in double quotes at"
			   " the end of the line");
		return -1;
	}
	return sl2vl_check_port(ps, type, guid, lid);
}

/* "IN OUT :" and 16 VLs; *@in, *@out and @vl get them. */
static int sl2vl_parse_row(struct sl2vl_parse *ps, const char *p, unsigned *in, unsigned *out,
			   uint8_t vl[RT_SLS])
{
	unsigned v;

	if (parse_dec(p, 255, in, &p) || parse_dec(skip_ws(p), 255, out, &p) ||
	    *(p = skip_ws(p)) != ':') {
		fmt_err_at(ps->err, ps->it, "expected a row \"IN OUT : VL0 ... VL15\" with port"
			   " numbers of at most 255");
		return -1;
	}
	p++;
	for (unsigned sl = 0; sl < RT_SLS; sl++) {
		const char *q = skip_ws(p);

		if (!*q) {
			fmt_err_at(ps->err, ps->it, "expected 16 VLs after ':', found %u", sl);
			return -1;
		}
		if (parse_dec(q, 15, &v, &p) || (*p && *p != ' ' && *p != '\t')) {
			fmt_err_at(ps->err, ps->it, "expected the VL of SL %u (0 to 15), found"
				   " \"%.8s\"", sl, q);
			return -1;
		}
		vl[sl] = (uint8_t)v;
	}
	if (*skip_ws(p)) {
		fmt_err_at(ps->err, ps->it, "expected the end of the row after 16 VLs");
		return -1;
	}
	return 0;
}

static int sl2vl_switch_row(struct sl2vl_parse *ps, unsigned in, unsigned out,
			    const uint8_t vl[RT_SLS])
{
	const struct fab_node *n = &ps->f->nodes[ps->node];
	unsigned dim = n->nports + 1u;

	if (in > n->nports || out > n->nports) {
		fmt_err_at(ps->err, ps->it, "expected in and out ports of at most %u (the"
			   " switch's port count), found %u %u", n->nports, in, out);
		return -1;
	}
	if (ps->seen[in * dim + out]) {
		fmt_err_at(ps->err, ps->it, "expected each (in, out) row once per switch, found"
			   " %u %u again", in, out);
		return -1;
	}
	ps->seen[in * dim + out] = 1;
	for (unsigned sl = 0; sl < RT_SLS; sl++)
		if (rt_sl2vl_set(&ps->tmp, ps->f, n->swidx, in, out, sl, vl[sl])) {
			fab_err_set(ps->err, "%s: out of memory", ps->it->name);
			return -1;
		}
	return 0;
}

static int sl2vl_row(struct sl2vl_parse *ps, const char *p)
{
	unsigned in, out;
	uint8_t vl[RT_SLS];

	if (ps->node == FAB_NONE) {
		fmt_err_at(ps->err, ps->it, "expected a record header (\"Switch 0x...\") before"
			   " the first row of a record");
		return -1;
	}
	if (sl2vl_parse_row(ps, p, &in, &out, vl))
		return -1;
	ps->rows++;
	if (ps->f->nodes[ps->node].type == FAB_SWITCH)
		return sl2vl_switch_row(ps, in, out, vl);
	if (in || out || ps->rows > 1) {
		fmt_err_at(ps->err, ps->it, "expected a single row \"0 0 : ...\" for a channel"
			   " adapter or router port, found %u %u (row %u)", in, out, ps->rows);
		return -1;
	}
	return 0;
}

static int sl2vl_line(struct sl2vl_parse *ps)
{
	const char *p = skip_ws(ps->it->line);

	if (*p == '#')
		return 0;
	if (!*p) {
		ps->node = FAB_NONE;	/* a blank line ends the record */
		return 0;
	}
	if (isdigit((unsigned char)*p))
		return sl2vl_row(ps, p);
	return sl2vl_header(ps, p);
}

static void sl2vl_commit(struct sl2vl_parse *ps, struct rt_routing *r)
{
	for (uint32_t s = 0; s < r->nswitches; s++)
		if (ps->tmp.sl2vl[s]) {
			free(r->sl2vl[s]);
			r->sl2vl[s] = ps->tmp.sl2vl[s];
			ps->tmp.sl2vl[s] = NULL;
		}
}

/**
 * fmt_sl2vl_parse() - read opensm-sl2vl.dump into @r's SL2VL tables
 * @buf: the file's content, @len bytes
 * @name: the file name for error messages
 * @f: the fabric the dump describes (finalized)
 * @r: a routing for @f; the tables of the switches the dump lists are
 *     replaced (rows the dump leaves out keep the routing's values)
 * @err: the error, when there is one
 *
 * Switches are matched by GUID; CA and router records are checked (the
 * port exists, its type and base LID agree, one "0 0" row) and ignored.
 * Return: 0, or -1 with @err set and @r unchanged.
 */
int fmt_sl2vl_parse(const char *buf, size_t len, const char *name, const struct fabric *f,
		    struct rt_routing *r, struct fab_err *err)
{
	struct fmt_lines it;
	struct sl2vl_parse ps = { .f = f, .r = r, .it = &it, .err = err, .node = FAB_NONE };
	unsigned maxp = 0;
	int rc = -1, more;

	if (fmt_check_text(buf, len, name, err))
		return -1;
	if (r->nswitches != f->nswitches) {
		fab_err_set(err, "%s: the routing was made for another fabric", name);
		return -1;
	}
	for (uint32_t s = 0; s < f->nswitches; s++)
		if (f->nodes[f->switches[s]].nports > maxp)
			maxp = f->nodes[f->switches[s]].nports;
	ps.tmp.nswitches = f->nswitches;
	ps.tmp.sl2vl = calloc((size_t)f->nswitches + 1, sizeof(*ps.tmp.sl2vl));
	ps.sw_line = calloc((size_t)f->nswitches + 1, sizeof(*ps.sw_line));
	ps.seen = malloc((size_t)(maxp + 1) * (maxp + 1));
	fmt_lines_init(&it, buf, len, name);
	if (!ps.tmp.sl2vl || !ps.sw_line || !ps.seen) {
		fab_err_set(err, "%s: out of memory", name);
		goto out;
	}
	while ((more = fmt_lines_next(&it)) > 0)
		if (sl2vl_line(&ps))
			goto out;
	if (more < 0) {
		fab_err_set(err, "%s: out of memory", name);
		goto out;
	}
	sl2vl_commit(&ps, r);
	rc = 0;
out:
	fmt_lines_fini(&it);
	for (uint32_t s = 0; ps.tmp.sl2vl && s < f->nswitches; s++)
		free(ps.tmp.sl2vl[s]);
	free(ps.tmp.sl2vl);
	free(ps.sw_line);
	free(ps.seen);
	return rc;
}

/* --- writing opensm-sl2vl.dump ------------------------------------------- */

static int cmp_guid_ep(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void sl2vl_write_row(FILE *out, unsigned in, unsigned o, const uint8_t vl[RT_SLS])
{
	fprintf(out, "%-4u%-4u:", in, o);
	for (unsigned sl = 0; sl < RT_SLS; sl++)
		fprintf(out, " %-2u", vl[sl]);
	fputc('\n', out);
}

/* One record: the header, then the rows of a switch or a CA's single row. */
static void sl2vl_write_record(FILE *out, const struct fabric *f, const struct rt_routing *r,
			       uint32_t ep, int sl0_only)
{
	uint32_t node = f->eps[ep].node;
	const struct fab_node *n = &f->nodes[node];
	uint8_t vl[RT_SLS];

	fprintf(out, "%s0x%016" PRIx64 ", base LID %u, \"%s\"\n",
		rec_types[n->type == FAB_SWITCH ? 0 : n->type == FAB_CA ? 1 : 2],
		fab_port(f, node, f->eps[ep].port)->guid, fab_ep_lid(f, ep), fab_desc(f, node));
	fputs("#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15\n", out);
	fputs("#--------------------------------------------------------\n", out);
	if (n->type != FAB_SWITCH) {
		for (unsigned sl = 0; sl < RT_SLS; sl++)
			vl[sl] = (uint8_t)(sl0_only ? 0 : sl % (n->vl_cap ? n->vl_cap : 1));
		sl2vl_write_row(out, 0, 0, vl);
	}
	for (unsigned o = 1; n->type == FAB_SWITCH && o <= n->nports; o++) {
		if (!fab_port_linked(f, node, o))
			continue;
		for (unsigned in = 0; in <= n->nports; in++) {
			for (unsigned sl = 0; sl < RT_SLS; sl++)
				vl[sl] = (uint8_t)rt_sl2vl_get(r, f, n->swidx, in, o, sl);
			sl2vl_write_row(out, in, o, vl);
		}
	}
	fputs("#--------------------------------------------------------\n\n", out);
}

/* Every pair on SL 0. */
static int sl0_only(const struct rt_routing *r)
{
	for (size_t i = 0; r->path_sl && i < (size_t)r->neps * r->neps; i++)
		if (r->path_sl[i])
			return 0;
	return 1;
}

/**
 * fmt_sl2vl_write() - write @r's SL2VL tables as opensm-sl2vl.dump
 *
 * One record per endpoint in port GUID order. A switch gets a row for every
 * linked out port and every in port 0..N (what OpenSM programs), from its
 * table or the default mapping. The model keeps no tables for CAs and
 * routers: their single row maps every SL to VL 0 when every path uses
 * SL 0, else SL to SL mod their VL count.
 * Return: 0, or -1 on a write error (errno set).
 */
int fmt_sl2vl_write(FILE *out, const struct fabric *f, const struct rt_routing *r)
{
	uint64_t *key = malloc(((size_t)f->neps + 1) * 2 * sizeof(*key));
	int only0 = sl0_only(r);

	if (!key) {
		errno = ENOMEM;
		return -1;
	}
	for (uint32_t e = 0; e < f->neps; e++) {
		key[2 * e] = fab_port(f, f->eps[e].node, f->eps[e].port)->guid;
		key[2 * e + 1] = e;
	}
	qsort(key, f->neps, 2 * sizeof(*key), cmp_guid_ep);
	for (uint32_t i = 0; i < f->neps; i++)
		sl2vl_write_record(out, f, r, (uint32_t)key[2 * i + 1], only0);
	free(key);
	if (fflush(out) || ferror(out))
		return -1;
	return 0;
}

/* --- path SLs (ibdmchk -c) --------------------------------------------- */

/**
 * struct psl_parse - state of one path-SL file read
 * @sl: the path SLs being built, one per (source, destination) endpoint pair
 * @set: bit per pair: set by a line of this file
 */
struct psl_parse {
	const struct fabric *f;
	const struct rt_routing *r;
	struct fmt_lines *it;
	struct fab_err *err;
	uint8_t *sl;
	uint8_t *set;
};

/* The endpoints of @node into @eps (at most nports + 1); returns how many. */
static unsigned node_eps(const struct fabric *f, uint32_t node, uint32_t *eps)
{
	const struct fab_node *n = &f->nodes[node];
	unsigned k = 0;

	if (n->type == FAB_SWITCH) {
		eps[0] = fab_ep_of_node(f, node, 0);
		return eps[0] != FAB_NONE;
	}
	for (unsigned p = 1; p <= n->nports; p++)
		if ((eps[k] = fab_ep_of_node(f, node, p)) != FAB_NONE)
			k++;
	return k;
}

static int psl_lookup(struct psl_parse *ps, uint64_t guid, unsigned dlid, uint32_t *node,
		      uint32_t *dst)
{
	const struct fabric *f = ps->f;

	*node = fab_node_by_guid(f, guid);
	if (*node == FAB_NONE) {
		uint32_t ep = fab_ep_by_port_guid(f, guid);

		if (ep != FAB_NONE)
			fmt_err_at(ps->err, ps->it, "expected a node GUID, found port GUID 0x%016"
				   PRIx64 " of node 0x%016" PRIx64, guid,
				   f->nodes[f->eps[ep].node].guid);
		else
			fmt_err_at(ps->err, ps->it, "expected the GUID of a node of the fabric,"
				   " found 0x%016" PRIx64, guid);
		return -1;
	}
	*dst = fab_ep_by_lid(f, dlid);
	if (*dst == FAB_NONE) {
		fmt_err_at(ps->err, ps->it, "expected a LID owned by a port of the fabric, found"
			   " %u", dlid);
		return -1;
	}
	return 0;
}

static int psl_apply(struct psl_parse *ps, uint32_t node, unsigned dlid, uint32_t dst,
		     unsigned sl)
{
	const struct fabric *f = ps->f;
	uint32_t eps[FAB_PORTS_MAX + 1];
	unsigned k = node_eps(f, node, eps);

	for (unsigned i = 0; i < k; i++) {
		size_t pi = (size_t)eps[i] * f->neps + dst;

		if (eps[i] == dst || rt_dlid(ps->r, f, eps[i], dst) != dlid)
			continue;
		if ((ps->set[pi / 8] & (1u << (pi % 8))) && ps->sl[pi] != sl) {
			fmt_err_at(ps->err, ps->it, "expected one SL per source node and DLID,"
				   " found SL %u for DLID %u after SL %u", sl, dlid, ps->sl[pi]);
			return -1;
		}
		ps->set[pi / 8] |= (uint8_t)(1u << (pi % 8));
		ps->sl[pi] = (uint8_t)sl;
	}
	return 0;
}

/* Whether ibdmchk would find an entry ("0x", [0-9a-z]+, ' ', digits, ' ', a digit) in @p. */
static int has_entry(const char *p)
{
	for (; (p = strstr(p, "0x")); p++) {
		const char *q = p + 2;

		if (!isdigit((unsigned char)*q) && !islower((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q) || islower((unsigned char)*q))
			q++;
		if (*q++ != ' ' || !isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q == ' ' && isdigit((unsigned char)q[1]))
			return 1;
	}
	return 0;
}

static int psl_line(struct psl_parse *ps)
{
	const char *p = ps->it->line;
	uint64_t guid;
	unsigned dlid, sl;
	uint32_t node, dst;
	int rc;

	if (!*skip_ws(p))
		return 0;
	if (*skip_ws(p) == '#') {
		if (!has_entry(p))
			return 0;
		fmt_err_at(ps->err, ps->it, "expected a comment without \"0xGUID DLID SL\" in it"
			   " (ibdmchk would read it as an entry)");
		return -1;
	}
	rc = parse_guid(p, 1, &guid, &p);
	if (rc == -2) {
		fmt_err_at(ps->err, ps->it, "expected \"0x\" and lower-case hex digits in the"
			   " GUID (ibdmchk skips lines with upper-case ones)");
		return -1;
	}
	if (rc || *p != ' ' || parse_dec(p + 1, FAB_LID_UCAST_MAX, &dlid, &p) || *p != ' ' ||
	    parse_dec(p + 1, 15, &sl, &p) || *p || !dlid) {
		fmt_err_at(ps->err, ps->it, "expected \"0xNODEGUID DLID SL\" (DLID 1 to %u and SL"
			   " 0 to 15 in decimal, single spaces, nothing after)", FAB_LID_UCAST_MAX);
		return -1;
	}
	if (psl_lookup(ps, guid, dlid, &node, &dst))
		return -1;
	return psl_apply(ps, node, dlid, dst, sl);
}

/**
 * fmt_pathsl_parse() - read a path-SL file (ibdmchk -c) into @r->path_sl
 * @buf: the file's content, @len bytes
 * @name: the file name for error messages
 * @f: the fabric (finalized, with LIDs)
 * @r: a routing for @f; path_sl and dlid_off are allocated when missing
 * @err: the error, when there is one
 *
 * See the DOC comment above for the format and how lines map to pairs.
 * Return: 0, or -1 with @err set and @r unchanged.
 */
int fmt_pathsl_parse(const char *buf, size_t len, const char *name, const struct fabric *f,
		     struct rt_routing *r, struct fab_err *err)
{
	struct fmt_lines it;
	struct psl_parse ps = { .f = f, .r = r, .it = &it, .err = err };
	size_t npairs = (size_t)f->neps * f->neps;
	int rc = -1, more;

	if (fmt_check_text(buf, len, name, err))
		return -1;
	if (r->neps != f->neps) {
		fab_err_set(err, "%s: the routing was made for another fabric", name);
		return -1;
	}
	ps.sl = calloc(npairs + 1, 1);
	ps.set = calloc(npairs / 8 + 1, 1);
	fmt_lines_init(&it, buf, len, name);
	if (!ps.sl || !ps.set) {
		fab_err_set(err, "%s: out of memory", name);
		goto out;
	}
	if (r->path_sl)
		memcpy(ps.sl, r->path_sl, npairs);
	while ((more = fmt_lines_next(&it)) > 0)
		if (psl_line(&ps))
			goto out;
	if (more < 0 || rt_pairs_alloc(r)) {
		fab_err_set(err, "%s: out of memory", name);
		goto out;
	}
	memcpy(r->path_sl, ps.sl, npairs);
	rc = 0;
out:
	fmt_lines_fini(&it);
	free(ps.sl);
	free(ps.set);
	return rc;
}

/*
 * The SL the endpoints of a node (@eps, @k of them) use towards @dst; -1
 * when none of them is a source for it (the node is @dst's own), -2 when
 * they disagree.
 */
static int node_sl(const struct rt_routing *r, const uint32_t *eps, unsigned k, uint32_t dst)
{
	int sl = -1;

	for (unsigned i = 0; i < k; i++) {
		int s;

		if (eps[i] == dst)
			continue;
		s = (int)rt_path_sl(r, eps[i], dst);
		if (sl >= 0 && s != sl)
			return -2;
		sl = s;
	}
	return sl;
}

/* Every multi-port node uses one SL per destination: else the format cannot say it. */
static int check_expressible(const struct fabric *f, const struct rt_routing *r, uint32_t *eps)
{
	for (uint32_t n = 0; n < f->nnodes; n++) {
		unsigned k = node_eps(f, n, eps);

		for (uint32_t d = 0; k > 1 && d < f->neps; d++)
			if (node_sl(r, eps, k, d) == -2)
				return -1;
	}
	return 0;
}

static void write_node(FILE *out, const struct fabric *f, const struct rt_routing *r,
		       uint32_t node, const uint32_t *eps, unsigned k)
{
	for (uint32_t d = 0; d < f->neps; d++) {
		unsigned base = fab_ep_lid(f, d), nlids = 1u << fab_ep_lmc(f, d);
		int sl = node_sl(r, eps, k, d);

		if (!base || sl < 0)
			continue;
		for (unsigned l = base; l < base + nlids; l++)
			fprintf(out, "0x%016" PRIx64 " %u %d\n", f->nodes[node].guid, l, sl);
	}
}

/**
 * fmt_pathsl_write() - write @r's path SLs as a path-SL file (ibdmchk -c)
 * @out: the stream to write to
 * @f: the fabric
 * @r: the routing
 *
 * One line per (source node, LID of every other endpoint), nodes in fabric
 * order, LIDs by endpoint; all LIDs of an LMC range get the pair's SL. The
 * file has nodes x LIDs lines. A comment line comes first (ibdmchk skips it).
 * Return: 0, or -1 with errno set: EINVAL when @r does not fit @f or when two
 * ports of one node use different SLs towards one destination (the format
 * keeps one SL per node and DLID), else the stream's error. Nothing is
 * written on EINVAL.
 */
int fmt_pathsl_write(FILE *out, const struct fabric *f, const struct rt_routing *r)
{
	uint32_t eps[FAB_PORTS_MAX + 1];

	if (r->neps != f->neps || (r->path_sl && check_expressible(f, r, eps))) {
		errno = EINVAL;
		return -1;
	}
	fprintf(out, "# path SLs: source node GUID, destination LID, SL (ibdmchk -c)\n");
	for (uint32_t n = 0; n < f->nnodes; n++) {
		unsigned k = node_eps(f, n, eps);

		if (k)
			write_node(out, f, r, n, eps, k);
	}
	if (fflush(out) || ferror(out))
		return -1;
	return 0;
}
