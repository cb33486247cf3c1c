/* SPDX-License-Identifier: MIT */
/**
 * DOC: opensm.fdbs and opensm-subnet.lst
 *
 * Two of the dumps OpenSM writes with -D 0x43, read so that fabroute can
 * evaluate OpenSM's own routing engines.
 *
 * opensm.fdbs lists, per switch, the output port of every LID from 1 to
 * the switch's top LID, in order and without gaps:
 *
 *   dump_ucast_routes: Switch 0x0000000000200000
 *   LID    : Port : Hops : Optimal
 *   0x0001 : 001  : 01   : yes
 *   0x0002 : UNREACHABLE
 *
 * (ibdiagnet writes the same with "osm_ucast_mgr_dump_ucast_routes:").
 *
 * opensm-subnet.lst describes every link once from each end, the line's
 * first record being the end whose port attributes (width, state, speed)
 * the line gives:
 *
 *   { CA-SM Ports:02 SystemGUID:... NodeGUID:... PortGUID:... VenID:000000
 *     DevID:0000 Rev:000000A1 {H1} LID:0001 PN:01 } { SW Ports:08 ...
 *     {S1} LID:0002 PN:01 } PHY=4x LOG=ACT SPD=2.5
 *
 * (one line in the file). Older OpenSMs (2005) end the line at LOG=: the
 * speed is then unknown. Numbers are hexadecimal. A switch's LID is its
 * port 0's. "-SM" marks the node whose port carries the master SM's LID.
 * The file has no LMC: every port gets LMC 0. OpenSM prints the second
 * record's DevID with the bytes of a 32-bit swap (0x1003 shows as
 * 10030000); the reader undoes that.
 */
#include <ctype.h>
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

/* 1 to @maxd hex digits (no "0x"); *@end gets the first character after them. */
static int parse_hex(const char *p, unsigned maxd, uint64_t *v, const char **end)
{
	uint64_t x = 0;
	unsigned nd = 0;

	for (; isxdigit((unsigned char)*p); p++) {
		if (++nd > maxd)
			return -1;
		x = x << 4 | (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' :
					tolower((unsigned char)*p) - 'a' + 10);
	}
	if (!nd)
		return -1;
	*v = x;
	*end = p;
	return 0;
}

/* 1 to 3 decimal digits of at most 255. */
static int parse_port(const char *p, unsigned *v, const char **end)
{
	unsigned x = 0, nd = 0;

	for (; isdigit((unsigned char)*p); p++)
		if (++nd > 3 || (x = x * 10 + (unsigned)(*p - '0')) > 255)
			return -1;
	if (!nd)
		return -1;
	*v = x;
	*end = p;
	return 0;
}

/* --- opensm.fdbs ----------------------------------------------------------- */

struct fdbs_parse {
	const struct fabric *f;
	struct rt_routing *r;
	struct fmt_lines *it;
	struct fab_err *err;
	unsigned *first_line;	/* per switch: line of its header, 0 = none yet */
	uint32_t sw;		/* switch of the open block, FAB_NONE before the first */
	unsigned next;		/* the LID the open block lists next */
};

/* First pass: the highest LID any entry names, so that the tables are sized once. */
static unsigned fdbs_max_lid(const char *buf, size_t len)
{
	struct fmt_lines it;
	unsigned top = 0;

	fmt_lines_init(&it, buf, len, "");
	while (fmt_lines_next(&it) > 0) {
		const char *q = skip_ws(it.line);
		uint64_t v;

		if (q[0] == '0' && q[1] == 'x' && !parse_hex(q + 2, 4, &v, &q) &&
		    v <= FAB_LID_UCAST_MAX && v > top)
			top = (unsigned)v;
	}
	fmt_lines_fini(&it);
	return top;
}

static int fdbs_block_empty(struct fdbs_parse *ps, const char *found)
{
	fmt_err_at(ps->err, ps->it, "expected LID entries for switch 0x%016" PRIx64
		   " (line %u), found %s: the file is truncated",
		   ps->f->nodes[ps->f->switches[ps->sw]].guid, ps->first_line[ps->sw], found);
	return -1;
}

/* "[prefix]dump_ucast_routes: Switch 0x<guid>": open the block of a switch. */
static int fdbs_header(struct fdbs_parse *ps, const char *p)
{
	uint64_t guid;
	uint32_t node;

	if (ps->sw != FAB_NONE && ps->next == 1)
		return fdbs_block_empty(ps, "a new switch");
	p = strstr(p, "dump_ucast_routes: Switch ") + 26;
	if (p[0] != '0' || p[1] != 'x' || parse_hex(p + 2, 16, &guid, &p) || *skip_ws(p)) {
		fmt_err_at(ps->err, ps->it, "expected a switch GUID (\"0x\" and 1 to 16 hex"
			   " digits) after \"Switch\"");
		return -1;
	}
	node = fab_node_by_guid(ps->f, guid);
	if (node == FAB_NONE || ps->f->nodes[node].type != FAB_SWITCH) {
		fmt_err_at(ps->err, ps->it, "expected a switch of the fabric, found %s GUID"
			   " 0x%016" PRIx64, node == FAB_NONE ? "unknown" :
			   fab_node_type_name(ps->f->nodes[node].type), guid);
		return -1;
	}
	ps->sw = ps->f->nodes[node].swidx;
	if (ps->first_line[ps->sw]) {
		fmt_err_at(ps->err, ps->it, "expected one block per switch, found a second block"
			   " of switch 0x%016" PRIx64 " (first at line %u)", guid,
			   ps->first_line[ps->sw]);
		return -1;
	}
	ps->first_line[ps->sw] = ps->it->no;
	ps->next = 1;
	return 0;
}

static int fdbs_lid(struct fdbs_parse *ps, const char *p, unsigned *lid, const char **end)
{
	uint64_t v;

	if (parse_hex(p + 2, 4, &v, end) || (**end != ' ' && **end != '\t' && **end != ':')) {
		fmt_err_at(ps->err, ps->it, "expected a LID of 1 to 4 hex digits after \"0x\"");
		return -1;
	}
	if (v == 0 || v > FAB_LID_UCAST_MAX) {
		fmt_err_at(ps->err, ps->it, "expected a unicast LID (1 to 0x%x), found 0x%04x",
			   FAB_LID_UCAST_MAX, (unsigned)v);
		return -1;
	}
	if (v != ps->next) {
		fmt_err_at(ps->err, ps->it, "expected LID 0x%04x (LIDs ascend from 1 without gaps"
			   " or repeats), found %sLID 0x%04x", ps->next,
			   v < ps->next ? "a second " : "", (unsigned)v);
		return -1;
	}
	*lid = (unsigned)v;
	return 0;
}

/* "0xLID : PORT : hops : optimal" or "0xLID : UNREACHABLE". */
static int fdbs_entry(struct fdbs_parse *ps, const char *p)
{
	const struct fab_node *n;
	unsigned lid, port;

	if (ps->sw == FAB_NONE) {
		fmt_err_at(ps->err, ps->it, "expected \"dump_ucast_routes: Switch 0x...\" before"
			   " the first entry");
		return -1;
	}
	n = &ps->f->nodes[ps->f->switches[ps->sw]];
	if (fdbs_lid(ps, p, &lid, &p))
		return -1;
	p = skip_ws(p);
	if (*p != ':') {
		fmt_err_at(ps->err, ps->it, "expected \" : \" after LID 0x%04x", lid);
		return -1;
	}
	p = skip_ws(p + 1);
	if (!strncmp(p, "UNREACHABLE", 11) && !*skip_ws(p + 11)) {
		port = RT_NO_PORT;
	} else if (parse_port(p, &port, &p) || (*p && *p != ' ' && *p != '\t' && *p != ':')) {
		fmt_err_at(ps->err, ps->it, "expected a decimal port (0 to 255) or UNREACHABLE"
			   " for LID 0x%04x", lid);
		return -1;
	}
	if (port != RT_NO_PORT && port > n->nports) {
		fmt_err_at(ps->err, ps->it, "expected a port of 0 to %u (switch 0x%016" PRIx64
			   " has %u ports), found port %u for LID 0x%04x", n->nports, n->guid,
			   n->nports, port, lid);
		return -1;
	}
	rt_lft(ps->r, ps->sw)[lid] = (uint8_t)port;
	ps->next = lid + 1;
	return 0;
}

/* A block header: "dump_ucast_routes: Switch", after an optional function-name prefix. */
static int is_fdbs_header(const char *p)
{
	const char *h = strstr(p, "dump_ucast_routes: Switch ");

	if (!h)
		return 0;
	for (; p < h; p++)
		if (!isalpha((unsigned char)*p) && *p != '_')
			return 0;
	return 1;
}

static int fdbs_line(struct fdbs_parse *ps)
{
	const char *p = skip_ws(ps->it->line);

	if (!*p || *p == '#')
		return 0;
	if (is_fdbs_header(p))
		return fdbs_header(ps, p);
	if (p[0] == '0' && p[1] == 'x')
		return fdbs_entry(ps, p);
	if (!strncmp(p, "LID ", 4) && ps->sw != FAB_NONE && ps->next == 1)
		return 0;	/* column titles */
	fmt_err_at(ps->err, ps->it, "expected \"dump_ucast_routes: Switch 0x...\", the column"
		   " titles or a \"0xLID : PORT\" entry, found \"%.40s%s\"", p,
		   strlen(p) > 40 ? "..." : "");
	return -1;
}

static int fdbs_all(struct fdbs_parse *ps)
{
	int more;

	while ((more = fmt_lines_next(ps->it)) > 0)
		if (fdbs_line(ps))
			return -1;
	if (more < 0) {
		fab_err_set(ps->err, "%s: out of memory", ps->it->name);
		return -1;
	}
	if (ps->sw != FAB_NONE && ps->next == 1)
		return fdbs_block_empty(ps, "the end of the file");
	if (ps->sw == FAB_NONE && ps->f->nswitches) {
		fab_err_set(ps->err, "%s:%u: expected at least one \"dump_ucast_routes: Switch\""
			    " block, found none", ps->it->name, ps->it->no);
		return -1;
	}
	return 0;
}

struct rt_routing *fmt_fdbs_parse(const char *buf, size_t len, const char *name,
				  const struct fabric *f, struct fab_err *err)
{
	struct fmt_lines it;
	struct fdbs_parse ps = { .f = f, .it = &it, .err = err, .sw = FAB_NONE };
	unsigned top;
	int rc = -1;

	if (fmt_check_size(buf, len, FMT_DUMP_SIZE_MAX, name, err))
		return NULL;
	top = fdbs_max_lid(buf, len);
	ps.r = rt_new_len(f, top + 1);
	ps.first_line = calloc((size_t)f->nswitches + 1, sizeof(*ps.first_line));
	fmt_lines_init(&it, buf, len, name);
	if (!ps.r || !ps.first_line)
		fab_err_set(err, "%s: out of memory", name);
	else
		rc = fdbs_all(&ps);
	fmt_lines_fini(&it);
	free(ps.first_line);
	if (rc) {
		rt_free(ps.r);
		return NULL;
	}
	return ps.r;
}

/* --- opensm-subnet.lst ----------------------------------------------------- */

/* One "{ ... }" record: a node and one of its ports. */
struct lst_end {
	enum fab_node_type type;
	int sm;
	unsigned nports, pn, lid;
	uint64_t sysimg_guid, guid, port_guid;
	uint32_t vendor_id;
	uint16_t device_id;
	const char *desc;
};

struct lst_parse {
	struct fabric *f;
	struct fmt_lines *it;
	struct fab_err *err;
	uint32_t *hash;		/* node GUID hash: node index + 1, 0 = empty */
	uint32_t hmask;
	unsigned *node_line;	/* per node: line where it first appears */
	uint32_t *lid_slot;	/* per LID: port slot (index in f->ports) + 1 owning it */
	unsigned *lid_line;	/* per LID: line that gave it */
	uint32_t node_cap;
	const char *which;	/* "first" or "second" record, for messages */
};

static int lst_expect(struct lst_parse *ps, const char **p, const char *key)
{
	size_t n = strlen(key);
	const char *q = skip_ws(*p);

	if (strncmp(q, key, n)) {
		fmt_err_at(ps->err, ps->it, "expected \"%s\" in the %s record", key, ps->which);
		return -1;
	}
	*p = q + n;
	return 0;
}

/* "KEY:" and 1 to @maxd hex digits, then a blank. */
static int lst_field(struct lst_parse *ps, const char **p, const char *key, unsigned maxd,
		     uint64_t *v)
{
	if (lst_expect(ps, p, key))
		return -1;
	if (parse_hex(*p, maxd, v, p) || (**p != ' ' && **p != '\t')) {
		fmt_err_at(ps->err, ps->it, "expected 1 to %u hex digits after \"%s\" in the"
			   " %s record", maxd, key, ps->which);
		return -1;
	}
	return 0;
}

static int lst_type(struct lst_parse *ps, const char **p, struct lst_end *e)
{
	static const struct { const char *s; enum fab_node_type t; } types[] = {
		{ "SW", FAB_SWITCH }, { "CA", FAB_CA }, { "Rt", FAB_ROUTER },
	};
	const char *q = skip_ws(*p);

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (strncmp(q, types[i].s, 2))
			continue;
		q += 2;
		e->type = types[i].t;
		e->sm = !strncmp(q, "-SM", 3);
		q += e->sm ? 3 : 0;
		if (*q == ' ' || *q == '\t') {
			*p = q;
			return 0;
		}
		break;
	}
	fmt_err_at(ps->err, ps->it, "expected node type SW, CA or Rt (with \"-SM\" on the SM's"
		   " node) in the %s record", ps->which);
	return -1;
}

/* "{desc} LID:": the description may hold blanks and braces; it ends at "} LID:". */
static int lst_desc(struct lst_parse *ps, char **p, struct lst_end *e)
{
	const char *q = skip_ws(*p);
	char *close;

	if (*q != '{' || !(close = strstr(q + 1, "} LID:"))) {
		fmt_err_at(ps->err, ps->it, "expected a description \"{...}\" followed by"
			   " \"LID:\" in the %s record", ps->which);
		return -1;
	}
	*close = '\0';
	e->desc = q + 1;
	*p = close + 2;
	return 0;
}

static int lst_numbers(struct lst_parse *ps, const char **p, struct lst_end *e)
{
	uint64_t nports, v;

	if (lst_field(ps, p, "Ports:", 2, &nports) ||
	    lst_field(ps, p, "SystemGUID:", 16, &e->sysimg_guid) ||
	    lst_field(ps, p, "NodeGUID:", 16, &e->guid) ||
	    lst_field(ps, p, "PortGUID:", 16, &e->port_guid) ||
	    lst_field(ps, p, "VenID:", 8, &v))
		return -1;
	e->nports = (unsigned)nports;
	e->vendor_id = (uint32_t)v & 0xffffff;
	if (lst_field(ps, p, "DevID:", 8, &v))
		return -1;
	e->device_id = (uint16_t)(v > 0xffff ? v >> 16 : v);
	return lst_field(ps, p, "Rev:", 8, &v);
}

/* One "{ TYPE Ports:.. ... {desc} LID:.. PN:.. }" record. */
static int lst_record(struct lst_parse *ps, char **p, struct lst_end *e)
{
	const char *q = *p;
	uint64_t lid, pn;

	if (lst_expect(ps, &q, "{") || lst_type(ps, &q, e) || lst_numbers(ps, &q, e))
		return -1;
	*p += q - *p;	/* the line stays writable: lst_desc() ends the description */
	if (lst_desc(ps, p, e))
		return -1;
	q = *p;
	if (lst_field(ps, &q, "LID:", 4, &lid) || lst_field(ps, &q, "PN:", 2, &pn) ||
	    lst_expect(ps, &q, "}"))
		return -1;
	if (lid > FAB_LID_UCAST_MAX) {
		fmt_err_at(ps->err, ps->it, "expected a unicast LID (0 to 0x%x) in the %s record,"
			   " found LID:%04X", FAB_LID_UCAST_MAX, ps->which, (unsigned)lid);
		return -1;
	}
	if (e->nports < 1 || e->nports > FAB_PORTS_MAX || pn < 1 || pn > e->nports) {
		fmt_err_at(ps->err, ps->it, "expected 1 to %u ports and a port number PN within"
			   " them in the %s record, found Ports:%02X PN:%02X", FAB_PORTS_MAX,
			   ps->which, e->nports, (unsigned)pn);
		return -1;
	}
	if (!e->guid) {
		fmt_err_at(ps->err, ps->it, "expected a node GUID in the %s record, found 0",
			   ps->which);
		return -1;
	}
	e->lid = (unsigned)lid;
	e->pn = (unsigned)pn;
	*p += q - *p;
	return 0;
}

static uint32_t *lst_slot(const struct lst_parse *ps, uint64_t guid)
{
	uint32_t i = (uint32_t)((guid * 0x9e3779b97f4a7c15ull) >> 32) & ps->hmask;

	while (ps->hash[i] && ps->f->nodes[ps->hash[i] - 1].guid != guid)
		i = (i + 1) & ps->hmask;
	return &ps->hash[i];
}

static uint32_t lst_add_node(struct lst_parse *ps, const struct lst_end *e, uint32_t *slot)
{
	struct fab_node_info in = {
		.type = e->type, .guid = e->guid, .sysimg_guid = e->sysimg_guid,
		.vendor_id = e->vendor_id, .device_id = e->device_id, .nports = e->nports,
		.desc = e->desc,
	};
	struct fab_err sub = { { 0 } };
	uint32_t node;

	if (ps->f->nnodes >= ps->node_cap) {
		uint32_t cap = ps->node_cap ? ps->node_cap * 2 : 256;
		unsigned *nl = realloc(ps->node_line, cap * sizeof(*nl));

		if (!nl) {
			fmt_err_at(ps->err, ps->it, "out of memory");
			return FAB_NONE;
		}
		ps->node_line = nl;
		ps->node_cap = cap;
	}
	node = fab_node_add(ps->f, &in, &sub);
	if (node == FAB_NONE) {
		fmt_err_at(ps->err, ps->it, "%s", sub.msg);
		return FAB_NONE;
	}
	ps->node_line[node] = ps->it->no;
	*slot = node + 1;
	return node;
}

/* Give port slot @slot the LID of record @e; no other port may have it. */
static int lst_lid(struct lst_parse *ps, const struct lst_end *e, uint32_t slot)
{
	uint32_t owner = ps->lid_slot[e->lid];

	if (owner && owner != slot + 1) {
		fmt_err_at(ps->err, ps->it, "expected each LID on one port, found LID:%04X of"
			   " node 0x%016" PRIx64 " in the %s record already given at line %u",
			   e->lid, e->guid, ps->which, ps->lid_line[e->lid]);
		return -1;
	}
	if (!owner) {
		ps->lid_slot[e->lid] = slot + 1;
		ps->lid_line[e->lid] = ps->it->no;
	}
	ps->f->ports[slot].lid = (uint16_t)e->lid;
	return 0;
}

/* The node of record @e, created on first sight and checked against it after. */
static uint32_t lst_node(struct lst_parse *ps, const struct lst_end *e)
{
	uint32_t *slot = lst_slot(ps, e->guid), node;
	const struct fab_node *n;
	struct fab_port *port;
	uint32_t pslot;

	node = *slot ? *slot - 1 : lst_add_node(ps, e, slot);
	if (node == FAB_NONE)
		return FAB_NONE;
	n = &ps->f->nodes[node];
	if (n->type != e->type || n->nports != e->nports) {
		fmt_err_at(ps->err, ps->it, "expected node 0x%016" PRIx64 " to be the %s with"
			   " %u ports of line %u, found a %s with %u ports in the %s record",
			   e->guid, fab_node_type_name(n->type), n->nports, ps->node_line[node],
			   fab_node_type_name(e->type), e->nports, ps->which);
		return FAB_NONE;
	}
	if (e->type != FAB_SWITCH)
		fab_port_set_guid(ps->f, node, e->pn, e->port_guid);
	pslot = n->port0 + (e->type == FAB_SWITCH ? 0 : e->pn);
	port = &ps->f->ports[pslot];
	if (port->lid && e->lid && port->lid != e->lid) {
		fmt_err_at(ps->err, ps->it, "expected LID:%04X for this port of node 0x%016"
			   PRIx64 " as before, found LID:%04X in the %s record", port->lid,
			   e->guid, e->lid, ps->which);
		return FAB_NONE;
	}
	if (e->lid && lst_lid(ps, e, pslot))
		return FAB_NONE;
	if (e->sm && ps->f->sm_node == FAB_NONE) {
		ps->f->sm_node = node;
		ps->f->sm_port = (uint8_t)(e->type == FAB_SWITCH ? 0 : e->pn);
	}
	return node;
}

/* "PHY=4x LOG=ACT SPD=2.5": what the line says about its first record's port. */
struct lst_attr {
	unsigned width, state, speed;
};

static int lst_word(const char *q, const char *const *words, const unsigned *vals, size_t n,
		    unsigned *v, const char **end)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(words[i]);

		if (!strncmp(q, words[i], l) && (q[l] == ' ' || q[l] == '\t' || !q[l])) {
			*v = vals[i];
			*end = q + l;
			return 0;
		}
	}
	return -1;
}

static int lst_attrs(struct lst_parse *ps, const char *p, struct lst_attr *a)
{
	static const char *const w[] = { "1x", "4x", "8x", "12x", "2x", "??" };
	static const unsigned wv[] = { FAB_W_1X, FAB_W_4X, FAB_W_8X, FAB_W_12X, FAB_W_2X, 0 };
	static const char *const l[] = { "ACT", "ARM", "INI", "DWN" };
	static const unsigned lv[] = { FAB_LOG_ACTIVE, FAB_LOG_ARMED, FAB_LOG_INIT, FAB_LOG_DOWN };
	static const char *const s[] = { "2.5", "5", "10", "FDR10", "14", "25", "50", "100", "200",
					 "??" };
	static const unsigned sv[] = { FAB_S_SDR, FAB_S_DDR, FAB_S_QDR, FAB_S_FDR10, FAB_S_FDR,
				       FAB_S_EDR, FAB_S_HDR, FAB_S_NDR, FAB_S_XDR, 0 };

	p = skip_ws(p);
	if (strncmp(p, "PHY=", 4) || lst_word(p + 4, w, wv, 6, &a->width, &p)) {
		fmt_err_at(ps->err, ps->it, "expected \"PHY=\" and a width (1x, 4x, 8x, 12x, 2x"
			   " or \?\?) after the records");
		return -1;
	}
	p = skip_ws(p);
	if (strncmp(p, "LOG=", 4) || lst_word(p + 4, l, lv, 4, &a->state, &p)) {
		fmt_err_at(ps->err, ps->it, "expected \"LOG=\" and a state (ACT, ARM, INI or DWN)"
			   " after the width");
		return -1;
	}
	p = skip_ws(p);
	a->speed = 0;	/* older OpenSMs (and ibdm's topo2subnet) write no SPD= */
	if (*p && (strncmp(p, "SPD=", 4) || lst_word(p + 4, s, sv, 10, &a->speed, &p) ||
		   *skip_ws(p))) {
		fmt_err_at(ps->err, ps->it, "expected \"SPD=\" and a speed (2.5, 5, 10, FDR10, 14,"
			   " 25, 50, 100, 200 or \?\?), or nothing, ending the line");
		return -1;
	}
	return 0;
}

static void lst_set_attrs(struct fabric *f, uint32_t a, unsigned pa, uint32_t b, unsigned pb,
			  const struct lst_attr *at)
{
	struct fab_port *x = fab_port(f, a, pa), *y = fab_port(f, b, pb);

	x->width = (uint8_t)at->width;
	x->speed = (uint16_t)at->speed;
	x->state = (uint8_t)at->state;
	if (!y->width)
		y->width = (uint8_t)at->width;	/* until its own line says otherwise */
	if (!y->speed)
		y->speed = (uint16_t)at->speed;
}

static int lst_line(struct lst_parse *ps)
{
	char *p = (char *)skip_ws(ps->it->line);
	struct lst_end x, y;
	struct lst_attr at;
	struct fab_err sub = { { 0 } };
	uint32_t a, b;

	if (!*p || *p == '#')
		return 0;
	ps->which = "first";
	if (lst_record(ps, &p, &x))
		return -1;
	ps->which = "second";
	if (lst_record(ps, &p, &y) || lst_attrs(ps, p, &at))
		return -1;
	ps->which = "first";
	if ((a = lst_node(ps, &x)) == FAB_NONE)
		return -1;
	ps->which = "second";
	if ((b = lst_node(ps, &y)) == FAB_NONE)
		return -1;
	if (fab_link_add(ps->f, a, x.pn, b, y.pn, &sub)) {
		fmt_err_at(ps->err, ps->it, "%s", sub.msg);
		return -1;
	}
	lst_set_attrs(ps->f, a, x.pn, b, y.pn, &at);
	return 0;
}

static int lst_all(struct lst_parse *ps)
{
	struct fab_err sub = { { 0 } };
	int more;

	while ((more = fmt_lines_next(ps->it)) > 0)
		if (lst_line(ps))
			return -1;
	if (more < 0) {
		fab_err_set(ps->err, "%s: out of memory", ps->it->name);
		return -1;
	}
	if (!ps->f->nnodes) {
		fab_err_set(ps->err, "%s:%u: expected link records \"{ ... } { ... } PHY=...\","
			    " found none", ps->it->name, ps->it->no);
		return -1;
	}
	if (fab_finalize(ps->f, &sub)) {
		fab_err_set(ps->err, "%s: %s", ps->it->name, sub.msg);
		return -1;
	}
	return 0;
}

/*
 * Hash slots for the nodes of a @len-byte file: a link line is at least 190
 * bytes and names two nodes, so this keeps the table at most a third full.
 */
static uint32_t lst_hash_size(size_t len)
{
	size_t want = (len / 128 + 1) * 4;
	uint32_t n = 1024;

	while (n < want)
		n <<= 1;
	return n;
}

struct fabric *fmt_subnet_parse(const char *buf, size_t len, const char *name,
				struct fab_err *err)
{
	struct fmt_lines it;
	struct lst_parse ps = { .it = &it, .err = err };
	int rc = -1;

	if (fmt_check_text(buf, len, name, err))
		return NULL;
	ps.hmask = lst_hash_size(len) - 1;
	ps.f = fab_new();
	ps.hash = calloc((size_t)ps.hmask + 1, sizeof(*ps.hash));
	ps.lid_slot = calloc(FAB_LID_UCAST_MAX + 1, sizeof(*ps.lid_slot));
	ps.lid_line = calloc(FAB_LID_UCAST_MAX + 1, sizeof(*ps.lid_line));
	fmt_lines_init(&it, buf, len, name);
	if (!ps.f || !ps.hash || !ps.lid_slot || !ps.lid_line)
		fab_err_set(err, "%s: out of memory", name);
	else
		rc = lst_all(&ps);
	fmt_lines_fini(&it);
	free(ps.hash);
	free(ps.node_line);
	free(ps.lid_slot);
	free(ps.lid_line);
	if (rc) {
		fab_free(ps.f);
		return NULL;
	}
	return ps.f;
}
