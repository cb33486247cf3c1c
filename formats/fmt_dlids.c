/* SPDX-License-Identifier: MIT */
/**
 * DOC: DLID plans
 *
 * A port may own several LIDs (base LID + 2^LMC - 1), each routed its own
 * way, and an engine that uses them (opt, smodk, the path-based engines)
 * plans which DLID every source uses towards every destination: what an SA
 * PathRecord would have to return. The LFTs alone do not say it, so the
 * plan travels with them in a file of its own ("dlid-plan" next to
 * opensm-lfts.dump), one line per source port, plus one per pair that
 * departs from its source's rule:
 *
 *   # comment
 *   0x0008f10400411a08 1
 *   0x0008f10400411a08 0x0008f10400411b10 0x0015
 *
 *  - "SOURCE OFFSET": the port whose GUID is SOURCE (a switch: its node
 *    GUID, port 0) reaches every destination d at d's base LID +
 *    (OFFSET mod 2^LMC(d)); OFFSET is decimal, 0 to 127;
 *  - "SOURCE DESTINATION DLID": that pair uses DLID (0x hex or decimal),
 *    which must be one of DESTINATION's LIDs; it overrides the rule.
 *
 * Ports without a line use base LIDs. Lines may come in any order; a
 * source named twice, or a pair named twice, is an error, as are GUIDs the
 * fabric does not have. The writer picks for each source the offset that
 * reaches the most destinations (rt_src_offset()) and lists the other
 * destinations one by one: an engine whose choice depends on the source
 * only (opt, smodk) writes one line per source, a path-based engine as many
 * pair lines as its choices need. A source whose every pair uses base LIDs
 * gets no line.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"

struct dl_parse {
	const struct fabric *f;
	struct fmt_lines *it;
	struct fab_err *err;
	uint8_t *off;		/* neps^2 offsets being built */
	uint8_t *src_seen;	/* per source: its OFFSET line seen */
	uint8_t *pair_seen;	/* bit per pair: its pair line seen */
};

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* One token of @p (at most @size - 1 characters) into @tok; the rest after it. */
static const char *token(const char *p, char *tok, size_t size)
{
	size_t n = 0;

	p = skip_ws(p);
	while (*p && *p != ' ' && *p != '\t' && *p != '\r') {
		if (n + 1 < size)
			tok[n] = *p;
		n++;
		p++;
	}
	tok[n < size ? n : size - 1] = '\0';
	if (n >= size)
		tok[0] = '\0';	/* too long: no valid token */
	return p;
}

/* A number: "0x" and hex digits, or decimal digits (@hex_ok 0: decimal only). */
static int number(const char *s, int hex_ok, uint64_t max, uint64_t *v)
{
	int base = 10;
	uint64_t x = 0;
	unsigned nd = 0;

	if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; *s; s++, nd++) {
		int d = base == 16 ? fmt_hexval(*s) : (isdigit((unsigned char)*s) ? *s - '0' : -1);

		if (d < 0 || nd >= 16 || x > (max - (uint64_t)d) / (uint64_t)base)
			return -1;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	if (!nd)
		return -1;
	*v = x;
	return 0;
}

/* The endpoint whose port GUID is @tok ("0x" and 1 to 16 hex digits); FAB_NONE after the error. */
static uint32_t endpoint(struct dl_parse *ps, const char *tok, const char *what)
{
	uint64_t guid;
	uint32_t ep;

	if (tok[0] != '0' || (tok[1] != 'x' && tok[1] != 'X') || number(tok, 1, UINT64_MAX, &guid)) {
		fmt_err_at(ps->err, ps->it, "expected the %s port GUID (0x and hex digits), found '%s'",
			   what, tok);
		return FAB_NONE;
	}
	ep = fab_ep_by_port_guid(ps->f, guid);
	if (ep == FAB_NONE)
		fmt_err_at(ps->err, ps->it, "%s port GUID 0x%016" PRIx64 ": no such port in the fabric",
			   what, guid);
	return ep;
}

/* "SOURCE OFFSET": the whole row, unless the first pass already saw it. */
static int src_line(struct dl_parse *ps, uint32_t src, const char *tok)
{
	const struct fabric *f = ps->f;
	uint64_t o;

	if (number(tok, 0, (1u << FAB_LMC_MAX) - 1, &o)) {
		fmt_err_at(ps->err, ps->it, "expected an offset from 0 to %u (decimal), found '%s'",
			   (1u << FAB_LMC_MAX) - 1, tok);
		return -1;
	}
	if (ps->src_seen[src]) {
		fmt_err_at(ps->err, ps->it, "source port 0x%016" PRIx64 " has an offset already",
			   fab_port(f, f->eps[src].node, f->eps[src].port)->guid);
		return -1;
	}
	ps->src_seen[src] = 1;
	for (uint32_t d = 0; d < f->neps; d++)
		ps->off[(size_t)src * f->neps + d] = (uint8_t)(o & ((1u << fab_ep_lmc(f, d)) - 1));
	return 0;
}

/* "SOURCE DESTINATION DLID": one pair. */
static int pair_line(struct dl_parse *ps, uint32_t src, const char *dtok, const char *ltok)
{
	const struct fabric *f = ps->f;
	uint32_t dst = endpoint(ps, dtok, "destination");
	size_t pair = (size_t)src * f->neps + dst;
	uint64_t dlid;
	unsigned base;

	if (dst == FAB_NONE)
		return -1;
	base = fab_ep_lid(f, dst);
	if (number(ltok, 1, FAB_LID_UCAST_MAX, &dlid) || !dlid) {
		fmt_err_at(ps->err, ps->it, "expected a DLID from 1 to 0x%x, found '%s'",
			   FAB_LID_UCAST_MAX, ltok);
		return -1;
	}
	if (dst == src || !base || dlid < base || dlid >= base + (1u << fab_ep_lmc(f, dst))) {
		fmt_err_at(ps->err, ps->it, dst == src ? "a port does not send to itself" :
			   "DLID 0x%04x is not a LID of the destination (LIDs 0x%04x to 0x%04x)",
			   (unsigned)dlid, base, base + (1u << fab_ep_lmc(f, dst)) - 1);
		return -1;
	}
	if (ps->pair_seen[pair / 8] >> (pair % 8) & 1) {
		fmt_err_at(ps->err, ps->it, "this pair has a DLID already");
		return -1;
	}
	ps->pair_seen[pair / 8] |= (uint8_t)(1u << (pair % 8));
	ps->off[pair] = (uint8_t)(dlid - base);
	return 0;
}

/* One line in pass @pass: 0 takes "SOURCE OFFSET" lines, 1 the pair lines. */
static int dl_line(struct dl_parse *ps, int pass)
{
	char t[4][24];
	const char *p = ps->it->line;
	uint32_t src;
	int n = 0;

	if (!*skip_ws(p) || *skip_ws(p) == '#')
		return 0;
	while (n < 4 && *skip_ws(p) && *skip_ws(p) != '\r')
		p = token(p, t[n++], sizeof(t[0]));
	if (n < 2 || n > 3 || (*skip_ws(p) && *skip_ws(p) != '\r')) {
		fmt_err_at(ps->err, ps->it, "expected \"0xSOURCE OFFSET\" or \"0xSOURCE "
			   "0xDESTINATION DLID\"");
		return -1;
	}
	if ((n == 2) != (pass == 0))
		return 0;
	if ((src = endpoint(ps, t[0], "source")) == FAB_NONE)
		return -1;
	return n == 2 ? src_line(ps, src, t[1]) : pair_line(ps, src, t[1], t[2]);
}

int fmt_dlids_parse(const char *buf, size_t len, const char *name, const struct fabric *f,
		    struct rt_routing *r, struct fab_err *err)
{
	size_t npairs = (size_t)f->neps * f->neps;
	struct fmt_lines it;
	struct dl_parse ps = { .f = f, .it = &it, .err = err };
	int rc = -1, more = 0;

	if (fmt_check_size(buf, len, FMT_DUMP_SIZE_MAX, name, err))
		return -1;
	if (r->neps != f->neps) {
		fab_err_set(err, "%s: the routing was made for another fabric", name);
		return -1;
	}
	ps.off = calloc(npairs + 1, 1);
	ps.src_seen = calloc((size_t)f->neps + 1, 1);
	ps.pair_seen = calloc(npairs / 8 + 1, 1);
	if (!ps.off || !ps.src_seen || !ps.pair_seen || (!r->dlid_off && !(r->dlid_off = calloc(npairs + 1, 1)))) {
		fab_err_set(err, "%s: out of memory", name);
		goto out;
	}
	for (int pass = 0; pass < 2 && more >= 0; pass++) {
		fmt_lines_init(&it, buf, len, name);
		while ((more = fmt_lines_next(&it)) > 0)
			if (dl_line(&ps, pass))
				break;
		fmt_lines_fini(&it);
		if (more > 0)
			goto out;
	}
	if (more < 0) {
		fab_err_set(err, "%s: out of memory", name);
		goto out;
	}
	memcpy(r->dlid_off, ps.off, npairs);
	rc = 0;
out:
	free(ps.off);
	free(ps.src_seen);
	free(ps.pair_seen);
	return rc;
}

/* The lines of source @s: its offset, then the destinations it reaches otherwise. */
static void write_source(FILE *out, const struct fabric *f, const struct rt_routing *r, uint32_t s)
{
	uint32_t miss;
	unsigned o = rt_src_offset(r, f, s, &miss);
	uint64_t sg = fab_port(f, f->eps[s].node, f->eps[s].port)->guid;

	if (o)
		fprintf(out, "0x%016" PRIx64 " %u\n", sg, o);
	for (uint32_t d = 0; miss && d < f->neps; d++) {
		unsigned base = fab_ep_lid(f, d), dlid;

		if (d == s || !base)
			continue;
		dlid = rt_dlid(r, f, s, d);
		if (dlid != base + (o & ((1u << fab_ep_lmc(f, d)) - 1)))
			fprintf(out, "0x%016" PRIx64 " 0x%016" PRIx64 " 0x%04x\n", sg,
				fab_port(f, f->eps[d].node, f->eps[d].port)->guid, dlid);
	}
}

int fmt_dlids_write(FILE *out, const struct fabric *f, const struct rt_routing *r)
{
	if (r->neps != f->neps) {
		errno = EINVAL;
		return -1;
	}
	fputs("# fabroute DLID plan: the DLID each source port uses towards each destination.\n"
	      "# \"SOURCE OFFSET\": every destination at its base LID + OFFSET (mod 2^LMC);\n"
	      "# \"SOURCE DESTINATION DLID\": that pair at DLID. Ports not listed use base LIDs.\n",
	      out);
	for (uint32_t s = 0; r->dlid_off && s < f->neps; s++)
		write_source(out, f, r, s);
	if (fflush(out) || ferror(out))
		return -1;
	return 0;
}
