/* SPDX-License-Identifier: MIT */
/**
 * DOC: ibnetdiscover output, and the topology parser dispatch
 *
 * ibnetdiscover prints one record per node, records separated by blank
 * lines (taken without them too)::
 *
 *	vendid=0x2c9
 *	devid=0xc738
 *	sysimgguid=0x200000
 *	switchguid=0x200000(200000)
 *	Switch	36 "S-0000000000200000"		# "L1" base port 0 lid 3 lmc 0
 *	[1]	"H-0000000000100000"[1](100001) 		# "h1" lid 5 4xSDR
 *	[2]	"S-0000000000200001"[7]		# "S2" lid 4 4xQDR
 *
 *	caguid=0x100000
 *	Ca	2 "H-0000000000100000"		# "h1"
 *	[1](100001) 	"S-0000000000200000"[1]		# lid 5 lmc 0 "L1" lid 3 4xSDR
 *
 * Node ids carry the type (S, H, R) and the node GUID. A switch's own LID
 * and LMC are on its node line; a CA's or router's on each of its port
 * lines. Unlinked ports are not listed. The comments after the peer carry
 * the peer's description and LID (not needed: every node has its own
 * record) and the link's width and speed.
 *
 * With -g it groups the records by chassis: "Chassis 1 (guid 0x...)" and
 * "Non-Chassis Nodes" lines between them, "[ext N]" after port numbers,
 * comments after the GUID lines. Diagnostic lines the tools print among
 * the records when their output and errors go to one file (fmt_diag_line())
 * are skipped and reported (struct fmt_opts), or refused in strict mode.
 *
 * The parser creates each node at its node line and hands the port lines
 * to the topology builder (fmt_topo.h), which resolves them once the whole
 * file is read. Peers are found by GUID: ids are compared in one spelling.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fmt_topo.h"

/* --- dispatch ------------------------------------------------------------ */

struct fabric *fmt_topo_parse_opts(const char *buf, size_t len, const char *name,
				   enum fmt_topo fmt, struct fmt_opts *opts, struct fab_err *err)
{
	struct fab_err local;

	if (!err)
		err = &local;
	if (opts)
		opts->skipped = 0;
	if (fmt_check_text(buf, len, name, err))
		return NULL;
	if (fmt == FMT_AUTO)
		fmt = fmt_topo_detect(buf, len);
	switch (fmt) {
	case FMT_IBND:
		return fmt_ibnd_parse(buf, len, name, opts, err);
	case FMT_IBSIM:
		return fmt_ibsim_parse(buf, len, name, opts, err);
	case FMT_SUBNET:
		return fmt_subnet_parse(buf, len, name, err);
	case FMT_AUTO:
		break;
	}
	fab_err_set(err, "%s: unknown topology format %d", name, (int)fmt);
	return NULL;
}

struct fabric *fmt_topo_parse(const char *buf, size_t len, const char *name,
			      enum fmt_topo fmt, struct fab_err *err)
{
	return fmt_topo_parse_opts(buf, len, name, fmt, NULL, err);
}

struct fabric *fmt_topo_load(const char *path, enum fmt_topo fmt, struct fmt_opts *opts,
			     struct fab_err *err)
{
	struct fabric *f;
	char *buf;
	size_t len;

	if (fmt_read_file(path, &buf, &len, err))
		return NULL;
	f = fmt_topo_parse_opts(buf, len, strcmp(path, "-") ? path : "<stdin>", fmt, opts, err);
	free(buf);
	return f;
}

/* --- ibnetdiscover records ----------------------------------------------- */

/*
 * What the header lines of a record said (vendid=, devid=, sysimgguid=,
 * switchguid= / caguid= / rtguid=), waiting for the node line.
 */
struct ibnd_hdr {
	uint64_t sysimg, guid;
	uint32_t vendor;
	uint16_t device;
	uint8_t type;		/* type of the GUID line, 0 when none */
	unsigned first_line;	/* first header line, 0 when none */
	unsigned guid_line;
};

struct ibnd_state {
	struct fmt_tb *tb;
	struct fmt_lines it;
	struct fmt_opts *opts;
	struct ibnd_hdr hdr;
	uint32_t node;		/* node of the current record, FAB_NONE between records */
	uint32_t nnodes;
};

static char type_letter(enum fab_node_type t)
{
	return t == FAB_SWITCH ? 'S' : t == FAB_ROUTER ? 'R' : 'H';
}

/*
 * A node id "S-<16 hex>" (or H-, R-) at *p, quotes included. Sets the type
 * and GUID and moves past it. Return 0, or -1 with @err set.
 */
static int ibnd_id(struct ibnd_state *st, const char **p, const char *what,
		   enum fab_node_type *type, uint64_t *guid, struct fab_err *err)
{
	const char *s = *p, *h = s + 3;
	char tok[48];

	if (s[0] == '"' && (s[1] == 'S' || s[1] == 'H' || s[1] == 'R') && s[2] == '-' &&
	    !fmt_hex64(&h, guid) && h == s + 19 && *h == '"') {
		*type = s[1] == 'S' ? FAB_SWITCH : s[1] == 'R' ? FAB_ROUTER : FAB_CA;
		*p = h + 1;
		return 0;
	}
	if (s[0] == '"' && !strchr(s + 1, '"'))
		fmt_err_at(err, &st->it, "expected a closing '\"' after the %s, found end of line",
			   what);
	else
		fmt_err_at(err, &st->it,
			   "expected a %s \"S-<16 hex digits>\" (or H-, R-), found '%s'", what,
			   fmt_tok(s, tok, sizeof(tok)));
	return -1;
}

/* "[ext N]" as ibnetdiscover -g prints after port numbers: skipped. */
static const char *skip_ext(const char *p)
{
	unsigned long n;
	const char *s = p;

	if (strncmp(s, "[ext ", 5))
		return p;
	s += 5;
	if (fmt_uint(&s, 255, &n) || *s != ']')
		return p;
	return s + 1;
}

/* "(hex)" at *p, blanks before it allowed: sets *guid (0 when absent). */
static int paren_guid(struct ibnd_state *st, const char **p, uint64_t *guid, struct fab_err *err)
{
	const char *s = fmt_skip_ws(*p);
	char tok[48];

	*guid = 0;
	if (*s != '(')
		return 0;
	s++;
	if (fmt_hex64(&s, guid) || *s != ')') {
		fmt_err_at(err, &st->it, "expected a port GUID in hex and ')', found '%s'",
			   fmt_tok(s, tok, sizeof(tok)));
		return -1;
	}
	*p = s + 1;
	return 0;
}

/* "lid N" at p (blanks before allowed): Return the position after it or NULL. */
static const char *lid_word(const char *p, const char *word, unsigned long max,
			    unsigned long *v)
{
	size_t n = strlen(word);

	p = fmt_skip_ws(p);
	if (strncmp(p, word, n) || (p[n] != ' ' && p[n] != '\t'))
		return NULL;
	p = fmt_skip_ws(p + n);
	return fmt_uint(&p, max, v) ? NULL : p;
}

/* Width and speed from the end of a port comment: '"desc" lid N 4xSDR'. */
static void comment_width(const char *c, struct fmt_tb_port *pl)
{
	const char *last = NULL, *s = c;
	unsigned long lid;

	while ((s = strstr(s, "\" lid ")))
		last = s++;
	if (!last || !(s = lid_word(last + 1, "lid", 0xffff, &lid)))
		return;
	fmt_width_speed(fmt_skip_ws(s), &pl->width, &pl->speed);
}

/*
 * The own LID and LMC at the start of a CA or router port's comment:
 * "lid L lmc M". Nothing when the comment does not start with "lid".
 */
static int comment_lid(struct ibnd_state *st, const char *c, uint32_t node, unsigned port,
		       struct fab_err *err)
{
	struct fab_port *fp = fab_port(fmt_tb_fabric(st->tb), node, port);
	unsigned long lid, lmc;
	const char *s;
	char tok[48];

	c = fmt_skip_ws(c);
	if (!fmt_word(c, "lid"))
		return 0;
	s = lid_word(c, "lid", FAB_LID_UCAST_MAX, &lid);
	if (!s) {
		fmt_err_at(err, &st->it, "expected a unicast LID (0 to %u) after 'lid', found '%s'",
			   FAB_LID_UCAST_MAX, fmt_tok(fmt_skip_ws(c + 3), tok, sizeof(tok)));
		return -1;
	}
	fp->lid = (uint16_t)lid;
	c = fmt_skip_ws(s);
	if (!fmt_word(c, "lmc"))
		return 0;
	if (!lid_word(c, "lmc", FAB_LMC_MAX, &lmc)) {
		fmt_err_at(err, &st->it, "expected an LMC from 0 to %u after 'lmc', found '%s'",
			   FAB_LMC_MAX, fmt_tok(fmt_skip_ws(c + 3), tok, sizeof(tok)));
		return -1;
	}
	fp->lmc = (uint8_t)lmc;
	return 0;
}

/* What follows a record's fields: nothing or a '#' comment; *@p moves to it. */
static int line_rest(struct ibnd_state *st, const char **p, struct fab_err *err)
{
	char tok[48];

	*p = fmt_skip_ws(*p);
	if (**p && **p != '#') {
		fmt_err_at(err, &st->it, "expected a '#' comment or the end of the line, found '%s'",
			   fmt_tok(*p, tok, sizeof(tok)));
		return -1;
	}
	return 0;
}

/* "[N]" at *p with N from 1 to @max ("ext" suffix skipped). */
static int port_num(struct ibnd_state *st, const char **p, unsigned max, const char *what,
		    uint8_t *port, struct fab_err *err)
{
	if (fmt_port_num(&st->it, p, max, what, port, err))
		return -1;
	*p = skip_ext(*p);
	return 0;
}

static int ibnd_port_line(struct ibnd_state *st, struct fab_err *err)
{
	const struct fabric *f = fmt_tb_fabric(st->tb);
	const struct fab_node *n = &f->nodes[st->node];
	struct fmt_tb_port pl = { 0 };
	const char *p = st->it.line;
	enum fab_node_type ptype;
	uint64_t pguid;
	char peer[20];

	if (port_num(st, &p, n->nports, "a port number", &pl.port, err) ||
	    paren_guid(st, &p, &pl.guid, err))
		return -1;
	p = fmt_skip_ws(p);
	if (!*p) {
		fmt_err_at(err, &st->it, "expected the peer \"S-<16 hex digits>\"[port] after '[%u]', found end of line",
			   pl.port);
		return -1;
	}
	if (ibnd_id(st, &p, "peer node id", &ptype, &pguid, err) ||
	    port_num(st, &p, FAB_PORTS_MAX, "the peer's port number", &pl.peer_port, err) ||
	    paren_guid(st, &p, &pl.peer_guid, err))
		return -1;
	if (line_rest(st, &p, err))
		return -1;
	if (*p == '#') {
		if (n->type != FAB_SWITCH && comment_lid(st, p + 1, st->node, pl.port, err))
			return -1;
		comment_width(p + 1, &pl);
	}
	snprintf(peer, sizeof(peer), "%c-%016" PRIx64, type_letter(ptype), pguid);
	return fmt_tb_port(st->tb, &st->it, st->node, &pl, peer, strlen(peer), err);
}

/* A header line "key=value": Return 1 when @line is one, else 0. */
static int header_key(const char *line, const char *key, const char **val)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) || line[n] != '=')
		return 0;
	*val = line + n + 1;
	return 1;
}

/* The rest of a header line: blanks, then optionally a '#' comment. */
static int header_end(struct ibnd_state *st, const char *p, struct fab_err *err)
{
	char tok[48];

	p = fmt_skip_ws(p);
	if (*p && *p != '#') {
		fmt_err_at(err, &st->it, "expected the end of the line after the value, found '%s'",
			   fmt_tok(p, tok, sizeof(tok)));
		return -1;
	}
	return 0;
}

/* vendid=, devid=, sysimgguid=: Return 1 when handled, -1 on error, 0 when not one. */
static int ibnd_id_header(struct ibnd_state *st, struct fab_err *err)
{
	const char *line = st->it.line, *v, *val;
	uint64_t x;
	char tok[48];
	int which;

	if (header_key(line, "vendid", &v))
		which = 0;
	else if (header_key(line, "devid", &v))
		which = 1;
	else if (header_key(line, "sysimgguid", &v))
		which = 2;
	else
		return 0;
	val = v;
	if (fmt_num64(&v, &x) || (which == 0 && x > 0xffffff) || (which == 1 && x > 0xffff)) {
		fmt_err_at(err, &st->it, "expected %s, found '%s'",
			   which == 0 ? "a 24-bit vendor id" : which == 1 ? "a 16-bit device id" :
			   "a 64-bit GUID", fmt_tok(val, tok, sizeof(tok)));
		return -1;
	}
	if (header_end(st, v, err))
		return -1;
	if (which == 0)
		st->hdr.vendor = (uint32_t)x;
	else if (which == 1)
		st->hdr.device = (uint16_t)x;
	else
		st->hdr.sysimg = x;
	return 1;
}

/* switchguid=0x..(..), caguid=0x.., rtguid=0x..: 1 handled, -1 error, 0 not one. */
static int ibnd_guid_header(struct ibnd_state *st, struct fab_err *err)
{
	static const char *const keys[] = { "caguid", "switchguid", "rtguid" };
	const char *line = st->it.line, *v = NULL, *val;
	uint64_t guid, pguid;
	char tok[48];
	int t;

	for (t = 0; t < 3 && !header_key(line, keys[t], &v); t++)
		;
	if (t == 3)
		return 0;
	if (st->hdr.type) {
		fmt_err_at(err, &st->it, "expected the node line of the %s line %u, found '%s'",
			   keys[st->hdr.type - 1], st->hdr.guid_line, fmt_tok(line, tok, sizeof(tok)));
		return -1;
	}
	val = v;
	if (fmt_num64(&v, &guid) || !guid) {
		fmt_err_at(err, &st->it, "expected a non-zero 64-bit GUID after '%s=', found '%s'",
			   keys[t], fmt_tok(val, tok, sizeof(tok)));
		return -1;
	}
	if (paren_guid(st, &v, &pguid, err) || header_end(st, v, err))
		return -1;
	st->hdr.type = (uint8_t)(t + 1);
	st->hdr.guid = guid;
	st->hdr.guid_line = st->it.no;
	return 1;
}

/*
 * The LID and LMC after a switch's description: "base port 0 lid 3 lmc 0".
 * Other words ("base", "enhanced", "port", "0") are skipped.
 */
static int switch_lid(struct ibnd_state *st, const char *s, struct fab_port *port0,
		      struct fab_err *err)
{
	unsigned long v;
	char tok[48];

	for (s = fmt_skip_ws(s); *s; s = fmt_skip_ws(s)) {
		int is_lid = fmt_word(s, "lid");
		const char *e;

		if (!is_lid && !fmt_word(s, "lmc")) {
			while (*s && *s != ' ' && *s != '\t')
				s++;
			continue;
		}
		e = lid_word(s, is_lid ? "lid" : "lmc", is_lid ? FAB_LID_UCAST_MAX : FAB_LMC_MAX, &v);
		if (!e) {
			fmt_err_at(err, &st->it, "expected %s after '%.3s', found '%s'",
				   is_lid ? "a unicast LID (0 to 49151)" : "an LMC from 0 to 7", s,
				   fmt_tok(fmt_skip_ws(s + 3), tok, sizeof(tok)));
			return -1;
		}
		if (is_lid)
			port0->lid = (uint16_t)v;
		else
			port0->lmc = (uint8_t)v;
		s = e;
	}
	return 0;
}

/*
 * The description in the comment of a node line and, for switches, the LID
 * and LMC after it: '"desc" base port 0 lid 3 lmc 0'. The description ends
 * at the last quote (it may hold quotes itself), for switches at the last
 * '" base port' or '" enhanced port'.
 */
static int node_comment(struct ibnd_state *st, const char *c, enum fab_node_type type,
			char *desc, struct fab_port *port0, struct fab_err *err)
{
	const char *end = NULL, *s;

	c = fmt_skip_ws(c);
	if (*c != '"')
		return type == FAB_SWITCH ? switch_lid(st, c, port0, err) : 0;
	for (s = c + 1; (s = strchr(s, '"')); s++)
		if (type != FAB_SWITCH || !strncmp(s, "\" base port ", 12) ||
		    !strncmp(s, "\" enhanced port ", 16))
			end = s;
	if (!end)
		end = strrchr(c + 1, '"');
	if (!end)
		end = c + 1 + strlen(c + 1);
	snprintf(desc, FAB_DESC_MAX + 1, "%.*s", (int)(end - c - 1), c + 1);
	if (type != FAB_SWITCH || !*end)
		return 0;
	return switch_lid(st, end + 1, port0, err);
}

static int node_type_word(const char *line, enum fab_node_type *type, size_t *len)
{
	static const struct { const char *w; enum fab_node_type t; } words[] = {
		{ "Switch", FAB_SWITCH }, { "Ca", FAB_CA }, { "Hca", FAB_CA }, { "Rt", FAB_ROUTER },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (fmt_word(line, words[i].w)) {
			*type = words[i].t;
			*len = strlen(words[i].w);
			return 1;
		}
	return 0;
}

/* The GUID line of the record, when there was one, must match the node line. */
static int check_guid_line(struct ibnd_state *st, enum fab_node_type type, uint64_t guid,
			   struct fab_err *err)
{
	static const char *const keys[] = { "", "caguid", "switchguid", "rtguid" };

	if (!st->hdr.type)
		return 0;
	if (st->hdr.type != type || st->hdr.guid != guid) {
		fmt_err_at(err, &st->it, "expected \"%c-%016" PRIx64 "\" as %s= on line %u says, found \"%c-%016" PRIx64 "\"",
			   type_letter((enum fab_node_type)st->hdr.type), st->hdr.guid,
			   keys[st->hdr.type], st->hdr.guid_line, type_letter(type), guid);
		return -1;
	}
	return 0;
}

static int ibnd_node_line(struct ibnd_state *st, enum fab_node_type type, size_t kwlen,
			  struct fab_err *err)
{
	const char *p = fmt_skip_ws(st->it.line + kwlen), *idp;
	struct fab_node_info in = { .type = type };
	struct fab_port port0 = { 0 };
	char desc[FAB_DESC_MAX + 1] = "", id[20];
	enum fab_node_type idtype;
	uint32_t node;

	if (fmt_port_count(&st->it, &p, &in.nports, err))
		return -1;
	idp = p;
	if (ibnd_id(st, &p, "node id", &idtype, &in.guid, err))
		return -1;
	if (idtype != type || !in.guid) {
		fmt_err_at(err, &st->it, "expected a node id \"%c-<non-zero 16 hex digits>\" for a %s, found '%.20s'",
			   type_letter(type), type == FAB_SWITCH ? "switch" : type == FAB_CA ? "CA" : "router",
			   idp);
		return -1;
	}
	if (check_guid_line(st, type, in.guid, err))
		return -1;
	if (line_rest(st, &p, err))
		return -1;
	if (*p == '#' && node_comment(st, p + 1, type, desc, &port0, err))
		return -1;
	in.sysimg_guid = st->hdr.sysimg;
	in.vendor_id = st->hdr.vendor;
	in.device_id = st->hdr.device;
	in.desc = desc;
	snprintf(id, sizeof(id), "%c-%016" PRIx64, type_letter(type), in.guid);
	node = fmt_tb_node(st->tb, &st->it, &in, id, strlen(id), &port0, err);
	if (node == FAB_NONE)
		return -1;
	memset(&st->hdr, 0, sizeof(st->hdr));
	st->node = node;
	st->nnodes++;
	return 0;
}

/*
 * Header and node lines start a record, after a blank line or straight
 * after the port lines of the record before (ibsim and other readers take
 * records that are not separated).
 */
static int ibnd_record_line(struct ibnd_state *st, struct fab_err *err)
{
	const char *line = st->it.line;
	enum fab_node_type type;
	size_t kwlen;
	char tok[48];
	int r;

	st->node = FAB_NONE;
	if (node_type_word(line, &type, &kwlen))
		return ibnd_node_line(st, type, kwlen, err);
	r = ibnd_id_header(st, err);
	if (!r)
		r = ibnd_guid_header(st, err);
	if (r < 0)
		return -1;
	if (!r) {
		fmt_err_at(err, &st->it, "expected a record line (vendid=, devid=, sysimgguid=, switchguid=, caguid=, rtguid=, Switch, Ca, Rt), a port line, a comment or a blank line, found '%s'",
			   fmt_tok(line, tok, sizeof(tok)));
		return -1;
	}
	if (!st->hdr.first_line)
		st->hdr.first_line = st->it.no;
	return 0;
}

/* Header lines not followed by their node line. */
static int ibnd_dangling(struct ibnd_state *st, const char *found, struct fab_err *err)
{
	if (!st->hdr.first_line)
		return 0;
	fmt_err_at(err, &st->it, "expected the Switch, Ca or Rt line of the record that starts at line %u, found %s",
		   st->hdr.first_line, found);
	return -1;
}

/*
 * The grouping lines of `ibnetdiscover -g`: "Chassis N (guid 0x...)",
 * "Non-Chassis Nodes", and "Hostname: NAME" of Xsigo chassis. They stand
 * between records; the chassis a node belongs to is not kept.
 */
static int group_line(const char *line)
{
	const char *p = line;
	unsigned long n;
	uint64_t g;

	if (!strcmp(line, "Non-Chassis Nodes") || !strncmp(line, "Hostname: ", 10))
		return 1;
	if (!fmt_word(p, "Chassis"))
		return 0;
	p = fmt_skip_ws(p + 7);
	if (fmt_uint(&p, 255, &n))
		return 0;
	p = fmt_skip_ws(p);
	if (!strncmp(p, "(guid 0x", 8)) {
		p += 8;
		if (fmt_hex64(&p, &g) || *p++ != ')')
			return 0;
	}
	return fmt_is_blank(p);
}

/* A diagnostic line among the records: skipped, or refused in strict mode. */
static int ibnd_diag(struct ibnd_state *st, struct fab_err *err)
{
	if (st->opts && st->opts->strict) {
		fmt_err_at(err, &st->it, "expected topology, found a diagnostic line '%.80s' (strict mode refuses it)",
			   st->it.line);
		return -1;
	}
	fmt_skip(st->opts, &st->it, "a diagnostic line, not topology");
	return 0;
}

static int ibnd_line(struct ibnd_state *st, struct fab_err *err)
{
	const char *line = st->it.line;
	char tok[48];

	if (fmt_is_blank(line) || group_line(line)) {
		st->node = FAB_NONE;
		return ibnd_dangling(st, fmt_is_blank(line) ? "a blank line" : "a chassis line", err);
	}
	if (line[0] == '#')
		return 0;
	if (fmt_diag_line(line))
		return ibnd_diag(st, err);
	if (line[0] == '[') {
		if (st->node == FAB_NONE) {
			fmt_err_at(err, &st->it, "expected a port line only after a Switch, Ca or Rt line, found '%s'",
				   fmt_tok(line, tok, sizeof(tok)));
			return -1;
		}
		return ibnd_port_line(st, err);
	}
	return ibnd_record_line(st, err);
}

struct fabric *fmt_ibnd_parse(const char *buf, size_t len, const char *name,
			      struct fmt_opts *opts, struct fab_err *err)
{
	struct ibnd_state st = { .node = FAB_NONE, .opts = opts };
	int r;

	st.tb = fmt_tb_new(&st.it, buf, len, name, 0, err);
	if (!st.tb)
		return NULL;
	while ((r = fmt_lines_next(&st.it)) > 0 && !ibnd_line(&st, err))
		;
	if (r == 0 && ibnd_dangling(&st, "the end of the file", err))
		r = 1;
	return fmt_tb_end(st.tb, &st.it, r, st.nnodes, "Switch, Ca or Rt", opts, err);
}
