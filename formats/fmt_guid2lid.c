/* SPDX-License-Identifier: MIT */
/**
 * DOC: guid2lid
 *
 * OpenSM's LID cache (OSM_CACHE_DIR/guid2lid): one line per port,
 *
 *   0x0000000000100004 0x000a 0x000b
 *
 * the port GUID, its base LID and its top LID (base + 2^LMC - 1), with a
 * blank line after every entry. OpenSM reads it at start-up to give ports
 * their LIDs back; fabroute reads it to pin LIDs (fab_lids_assign()) and
 * writes it so OpenSM adopts the LIDs fabroute chose.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"

/* Most entries a file may hold: one per unicast LID. */
#define G2L_MAX FAB_LID_UCAST_MAX
/* Slots of the GUID hash (a power of two, more than twice G2L_MAX). */
#define G2L_HASH (1u << 17)

struct g2l_parse {
	struct fmt_lines *it;
	struct fab_err *err;
	struct fab_lid_pin *pins;
	size_t n, cap;
	uint32_t *lid_line;	/* per LID: line of the entry owning it, 0 = free */
	uint32_t *hash;		/* GUID hash: pin index + 1, 0 = empty */
};

/* Parse "0x" and 1..@maxd hex digits; *@end gets the first character after them. */
static int parse_hex(const char *p, unsigned maxd, uint64_t *v, const char **end)
{
	uint64_t x = 0;
	unsigned nd = 0;

	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return -1;
	for (p += 2; isxdigit((unsigned char)*p); p++) {
		if (++nd > maxd)
			return -1;
		x = x << 4 | (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' :
					tolower((unsigned char)*p) - 'a' + 10);
	}
	if (!nd || (*p && *p != ' ' && *p != '\t'))
		return -1;
	*v = x;
	*end = p;
	return 0;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* The LMC of range @base..@top, or -1 when it is no aligned power-of-two range. */
static int range_lmc(unsigned base, unsigned top)
{
	unsigned n = top - base + 1;
	int lmc = 0;

	while ((1u << lmc) < n)
		lmc++;
	if ((1u << lmc) != n || lmc > (int)FAB_LMC_MAX || base % n)
		return -1;
	return lmc;
}

/* The hash slot of @guid: the one holding it, or the empty one where it would go. */
static uint32_t *guid_slot(const struct g2l_parse *ps, uint64_t guid)
{
	uint64_t h = guid * 0x9e3779b97f4a7c15ull;
	uint32_t i = (uint32_t)(h >> 47) & (G2L_HASH - 1);

	while (ps->hash[i] && ps->pins[ps->hash[i] - 1].guid != guid)
		i = (i + 1) & (G2L_HASH - 1);
	return &ps->hash[i];
}

static int add_pin(struct g2l_parse *ps, uint64_t guid, unsigned base, unsigned top, int lmc)
{
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 64;
		struct fab_lid_pin *p = realloc(ps->pins, cap * sizeof(*p));

		if (!p) {
			fab_err_set(ps->err, "%s: out of memory", ps->it->name);
			return -1;
		}
		ps->pins = p;
		ps->cap = cap;
	}
	ps->pins[ps->n++] = (struct fab_lid_pin){ .guid = guid, .lid = (uint16_t)base,
						  .lmc = (uint8_t)lmc };
	*guid_slot(ps, guid) = (uint32_t)ps->n;
	for (unsigned l = base; l <= top; l++)
		ps->lid_line[l] = ps->it->no;
	return 0;
}

static int check_entry(struct g2l_parse *ps, uint64_t guid, unsigned base, unsigned top)
{
	uint32_t slot;

	if (!guid) {
		fmt_err_at(ps->err, ps->it, "expected a port GUID, found GUID 0");
		return -1;
	}
	if (base == 0 || base > top || top > FAB_LID_UCAST_MAX) {
		fmt_err_at(ps->err, ps->it, "expected base and top LIDs with 1 <= base <= top"
			   " <= 0x%x, found 0x%04x 0x%04x", FAB_LID_UCAST_MAX, base, top);
		return -1;
	}
	if (range_lmc(base, top) < 0) {
		fmt_err_at(ps->err, ps->it, "expected a LID range of 2^LMC LIDs (LMC 0 to %u)"
			   " aligned to its size, found 0x%04x-0x%04x", FAB_LMC_MAX, base, top);
		return -1;
	}
	slot = *guid_slot(ps, guid);
	if (slot) {
		fmt_err_at(ps->err, ps->it, "expected each port GUID once, found 0x%016" PRIx64
			   " again (first at line %u)", guid,
			   ps->lid_line[ps->pins[slot - 1].lid]);
		return -1;
	}
	for (unsigned l = base; l <= top; l++)
		if (ps->lid_line[l]) {
			fmt_err_at(ps->err, ps->it, "expected each LID to belong to one port, found"
				   " LID 0x%04x again (first at line %u)", l, ps->lid_line[l]);
			return -1;
		}
	return 0;
}

static int parse_line(struct g2l_parse *ps)
{
	const char *p = skip_ws(ps->it->line);
	uint64_t guid, base, top;

	if (!*p || *p == '#')
		return 0;
	if (ps->n >= G2L_MAX) {
		fmt_err_at(ps->err, ps->it, "expected at most %u entries (one per unicast LID)",
			   G2L_MAX);
		return -1;
	}
	if (parse_hex(p, 16, &guid, &p)) {
		fmt_err_at(ps->err, ps->it, "expected a port GUID \"0x\" and 1 to 16 hex digits"
			   " at the start of the line");
		return -1;
	}
	if (parse_hex(skip_ws(p), 4, &base, &p) || parse_hex(skip_ws(p), 4, &top, &p)) {
		fmt_err_at(ps->err, ps->it, "expected a base and a top LID (\"0x\" and 1 to 4"
			   " hex digits each) after the GUID");
		return -1;
	}
	if (*skip_ws(p)) {
		fmt_err_at(ps->err, ps->it, "expected the end of the line after the top LID");
		return -1;
	}
	if (check_entry(ps, guid, (unsigned)base, (unsigned)top))
		return -1;
	return add_pin(ps, guid, (unsigned)base, (unsigned)top,
		       range_lmc((unsigned)base, (unsigned)top));
}

int fmt_guid2lid_parse(const char *buf, size_t len, const char *name,
		       struct fab_lid_pin **pins, size_t *npins, struct fab_err *err)
{
	struct fmt_lines it;
	struct g2l_parse ps = { .it = &it, .err = err };
	int rc = -1, more;

	if (fmt_check_text(buf, len, name, err))
		return -1;
	ps.lid_line = calloc(FAB_LID_UCAST_MAX + 1, sizeof(*ps.lid_line));
	ps.hash = calloc(G2L_HASH, sizeof(*ps.hash));
	fmt_lines_init(&it, buf, len, name);
	if (!ps.lid_line || !ps.hash) {
		fab_err_set(err, "%s: out of memory", name);
		goto out;
	}
	while ((more = fmt_lines_next(&it)) > 0)
		if (parse_line(&ps))
			goto out;
	if (more < 0) {
		fab_err_set(err, "%s: out of memory", name);
		goto out;
	}
	*pins = ps.pins;
	*npins = ps.n;
	ps.pins = NULL;
	rc = 0;
out:
	fmt_lines_fini(&it);
	free(ps.lid_line);
	free(ps.hash);
	free(ps.pins);
	return rc;
}

/**
 * fmt_guid2lid_write() - write every endpoint's port GUID, base and top LID
 * @out: the stream to write to
 * @f: the fabric
 *
 * In endpoint order (switches first), as OpenSM writes its cache: one entry
 * per line and a blank line after each. Endpoints without a LID are left
 * out.
 * Return: 0, or -1 on a write error (errno set).
 */
int fmt_guid2lid_write(FILE *out, const struct fabric *f)
{
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_port *p = fab_port(f, f->eps[e].node, f->eps[e].port);

		if (!p->lid)
			continue;
		fprintf(out, "0x%016" PRIx64 " 0x%04x 0x%04x\n\n", p->guid, p->lid,
			p->lid + (1u << p->lmc) - 1);
	}
	if (fflush(out) || ferror(out))
		return -1;
	return 0;
}
