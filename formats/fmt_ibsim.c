/* SPDX-License-Identifier: MIT */
/**
 * DOC: ibsim's net format
 *
 * The short topology files ibsim simulates (its sim_net.c reads them)::
 *
 *	# a comment
 *	Switch	8 "L1"			# "leaf 1" lid 3 lmc 0
 *	[1]	"h1"[1]
 *	[2]	"h2"			peer port 1 when [M] is missing
 *	[3]	"S2"[3]	w=8 s=2		enabled width and speed masks
 *	[4]	"S2"[4]	e=2		enabled extended speeds (1 FDR, 2 EDR, 4 HDR, 8 NDR)
 *
 *	caguid=0x100000
 *	Hca	2 "h1"
 *	[1]	"L1"[1]	lid 5 lmc 0
 *
 * Records start with a Switch, Hca (or Ca) or Rt line naming the node by a
 * quoted id, which is also its description unless a '# "desc"' follows.
 * A blank line ends a record. Nodes get GUIDs as ibsim gives them: switches
 * from 0x200000, one GUID each; CAs from 0x100000 and routers from 0, each
 * reserving its port count + 1 GUIDs; "switchguid=G" / "caguid=G" /
 * "rtguid=G" set the next GUID of that type, "switchguid +N" sets it to
 * the last absolute value + N. A CA or router port p has GUID node + p.
 * Every link is listed from both of its ends; it runs at the highest width
 * and speed both ends enable (w=, s=, e=: an extended speed both enable
 * wins over s=; "width=", "speed=" and "extspeed=" lines set the default
 * for the records after them, 4x, SDR and none at first). "devid=" sets
 * the device id of the records after it. Vendor ids are 0 and system image
 * GUIDs equal node GUIDs, as ibsim reports them.
 *
 * ibsim also reads ibnetdiscover output with the same rules (node ids
 * "S-..." are then just names, GUIDs come from the GUID lines), and so does
 * this parser. Unlike ibsim, it refuses what ibsim would skip or misread
 * silently: unknown lines, a record not ended by a blank line, a port listed
 * twice, lines longer than ibsim's 255 characters, and "include", "do" and
 * "module" lines (we never read files by reference).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fmt_topo.h"

struct ibsim_state {
	struct fmt_tb *tb;
	struct fmt_lines it;
	struct fmt_opts *opts;
	uint64_t next[4];	/* next GUID, by enum fab_node_type */
	uint64_t base[4];	/* last absolute GUID line, by type */
	uint16_t devid;
	uint8_t width;		/* enabled masks for the ports of the next records */
	uint16_t speed, ext;
	uint32_t node;		/* node of the current record, FAB_NONE between records */
	uint32_t nnodes;
};

static const char *const type_key[] = { "", "caguid", "switchguid", "rtguid" };

/* A quoted node id at *p: checks what ibsim accepts as an id. */
static int sim_id(struct ibsim_state *st, const char **p, const char *what, const char **id,
		  size_t *n, struct fab_err *err)
{
	char tok[48];
	int r = fmt_quoted(p, id, n);

	if (r == -1)
		fmt_err_at(err, &st->it, "expected the %s in quotes, found '%s'", what,
			   fmt_tok(*p, tok, sizeof(tok)));
	else if (r == -2)
		fmt_err_at(err, &st->it, "expected a closing '\"' after the %s, found end of line",
			   what);
	else if (!*n || *n > FMT_ID_MAX)
		fmt_err_at(err, &st->it, "expected a %s of 1 to %u characters, found %zu", what,
			   FMT_ID_MAX, *n);
	else if (memchr(*id, '#', *n) || memchr(*id, '@', *n))
		fmt_err_at(err, &st->it, "expected a %s without '#' or '@' (module prefixes and aliases are not supported), found '\"%.*s\"'",
			   what, (int)*n, *id);
	else
		return 0;
	return -1;
}

/*
 * "word N" at *p (blanks before it allowed), N read as ibsim's strtoul()
 * does: Return 1 with *v set and *p moved past it, 0 when *p holds no such
 * word, -1 with @err set when N is missing or above @max.
 */
static int sim_word_num(struct ibsim_state *st, const char **p, const char *word,
			uint64_t max, uint64_t *v, struct fab_err *err)
{
	const char *s = fmt_skip_ws(*p);
	char tok[48];

	if (!fmt_word(s, word))
		return 0;
	s = fmt_skip_ws(s + strlen(word));
	*p = s;
	if (fmt_num64(p, v) || *v > max) {
		fmt_err_at(err, &st->it, "expected a number from 0 to %" PRIu64 " after '%s', found '%s'",
			   max, word, fmt_tok(s, tok, sizeof(tok)));
		return -1;
	}
	return 1;
}

/*
 * LID and LMC as ibsim finds them in free text: the first "lid " and the
 * first "lmc " anywhere in @s.
 */
static int sim_scan_lid(struct ibsim_state *st, const char *s, struct fab_port *port,
			struct fab_err *err)
{
	const char *l = strstr(s, "lid "), *m = strstr(s, "lmc ");
	uint64_t v;
	int r;

	if (l && (r = sim_word_num(st, &l, "lid", FAB_LID_UCAST_MAX, &v, err)) != 0) {
		if (r < 0)
			return -1;
		port->lid = (uint16_t)v;
	}
	if (m && (r = sim_word_num(st, &m, "lmc", FAB_LMC_MAX, &v, err)) != 0) {
		if (r < 0)
			return -1;
		port->lmc = (uint8_t)v;
	}
	return 0;
}

/* What ibsim's w=, s= and e= (and width=, speed=, extspeed= lines) accept. */
struct sim_mask {
	char key;
	unsigned min, max;
	const char *what;
};

static const struct sim_mask sim_masks[] = {
	{ 'w', 1, 31, "a link width mask (1 1x, 2 4x, 4 8x, 8 12x, 16 2x)" },
	{ 's', 1, 7, "a link speed mask (1 SDR, 2 DDR, 4 QDR)" },
	{ 'e', 0, 15, "an extended speed mask (1 FDR, 2 EDR, 4 HDR, 8 NDR)" },
};

static const struct sim_mask *sim_mask_of(char key)
{
	for (size_t i = 0; i < sizeof(sim_masks) / sizeof(sim_masks[0]); i++)
		if (sim_masks[i].key == key)
			return &sim_masks[i];
	return NULL;
}

/* "w=N", "s=N" or "e=N" at *p: an enabled width, speed or extended speed mask. */
static int sim_rate(struct ibsim_state *st, const char **p, struct fmt_tb_port *pl,
		    struct fab_err *err)
{
	const struct sim_mask *m = sim_mask_of((*p)[0]);
	const char *s = *p + 2;
	char tok[48];
	uint64_t v;

	if (fmt_num64(&s, &v) || v < m->min || v > m->max) {
		fmt_err_at(err, &st->it, "expected %s from %u to %u after '%c=', found '%s'",
			   m->what, m->min, m->max, m->key, fmt_tok(*p + 2, tok, sizeof(tok)));
		return -1;
	}
	if (m->key == 'w')
		pl->width = (uint8_t)v;
	else if (m->key == 's')
		pl->speed = (uint16_t)v;
	else
		pl->ext = (uint16_t)v;
	*p = s;
	return 0;
}

/*
 * Tokens after a node id or a peer, up to a '#' comment: "lid N", "lmc N"
 * and, on node lines, "base port 0", "enhanced port 0", on port lines,
 * "w=N", "s=N", "e=N". LIDs go to @port unless it is NULL (ibsim reads them for a
 * switch's port 0 and for CA and router ports only).
 */
static int sim_tokens(struct ibsim_state *st, const char *s, struct fab_port *port,
		      struct fmt_tb_port *pl, struct fab_err *err)
{
	char tok[48];
	uint64_t v;
	int r;

	for (s = fmt_skip_ws(s); *s && *s != '#'; s = fmt_skip_ws(s)) {
		if ((r = sim_word_num(st, &s, "lid", FAB_LID_UCAST_MAX, &v, err)) != 0) {
			if (r < 0)
				return -1;
			if (port)
				port->lid = (uint16_t)v;
		} else if ((r = sim_word_num(st, &s, "lmc", FAB_LMC_MAX, &v, err)) != 0) {
			if (r < 0)
				return -1;
			if (port)
				port->lmc = (uint8_t)v;
		} else if (!pl && (!strncmp(s, "base port 0", 11) || !strncmp(s, "enhanced port 0", 15))) {
			s += s[0] == 'b' ? 11 : 15;
		} else if (pl && sim_mask_of(s[0]) && s[1] == '=') {
			if (sim_rate(st, &s, pl, err))
				return -1;
		} else {
			fmt_err_at(err, &st->it, "expected %s or a '#' comment, found '%s'",
				   pl ? "w=N, s=N, e=N, lid N, lmc N" :
				   "lid N, lmc N, base port 0, enhanced port 0",
				   fmt_tok(s, tok, sizeof(tok)));
			return -1;
		}
	}
	return 0;
}

/* "(hex)" as ibnetdiscover writes after port numbers: ibsim ignores it. */
static const char *skip_paren(const char *p)
{
	const char *s = fmt_skip_ws(p);
	uint64_t g;

	if (*s != '(')
		return p;
	s++;
	if (fmt_hex64(&s, &g) || *s != ')')
		return p;
	return s + 1;
}

static int sim_port_line(struct ibsim_state *st, struct fab_err *err)
{
	const struct fab_node *n = &fmt_tb_fabric(st->tb)->nodes[st->node];
	struct fmt_tb_port pl = { .width = st->width, .speed = st->speed, .ext = st->ext,
				  .peer_port = 1 };
	struct fab_port *own;
	const char *p = st->it.line, *id, *c;
	size_t idlen;

	if (fmt_port_num(&st->it, &p, n->nports, "a port number", &pl.port, err))
		return -1;
	p = fmt_skip_ws(skip_paren(p));
	if (sim_id(st, &p, "peer node id", &id, &idlen, err))
		return -1;
	if (*p == '[' && fmt_port_num(&st->it, &p, FAB_PORTS_MAX, "the peer's port number",
				      &pl.peer_port, err))
		return -1;
	p = skip_paren(p);
	own = n->type == FAB_SWITCH ? NULL : fab_port(fmt_tb_fabric(st->tb), st->node, pl.port);
	if (sim_tokens(st, p, own, &pl, err))
		return -1;
	c = strchr(p, '#');
	if (c && own && !own->lid && sim_scan_lid(st, c, own, err))
		return -1;
	return fmt_tb_port(st->tb, &st->it, st->node, &pl, id, idlen, err);
}

/*
 * What follows a node id: '# "desc"' or '# desc' (ended by " lid ",
 * " lmc ", " base port " or " enhanced port "), then for a switch its LID
 * and LMC; or, without '#', the tokens of sim_tokens().
 */
static int sim_node_rest(struct ibsim_state *st, const char *p, enum fab_node_type type,
			 char *desc, struct fab_port *port0, struct fab_err *err)
{
	static const char *const ends[] = { " enhanced port ", " base port ", " lid ", " lmc " };
	const char *c = strchr(p, '#'), *e = NULL;

	if (sim_tokens(st, p, type == FAB_SWITCH ? port0 : NULL, NULL, err))
		return -1;
	if (!c)
		return 0;
	c = fmt_skip_ws(c + 1);
	if (*c == '"') {
		e = strchr(++c, '"');
		snprintf(desc, FAB_DESC_MAX + 1, "%.*s", e ? (int)(e - c) : (int)strlen(c), c);
		if (!e)
			return 0;
		e++;
	} else {
		for (size_t i = 0; i < 4 && !e; i++)
			e = strstr(c, ends[i]);
		snprintf(desc, FAB_DESC_MAX + 1, "%.*s", e ? (int)(e - c) : (int)strlen(c), c);
		if (!e)
			return 0;
	}
	return type == FAB_SWITCH ? sim_scan_lid(st, e, port0, err) : 0;
}

static int sim_node_line(struct ibsim_state *st, enum fab_node_type type, size_t kwlen,
			 struct fab_err *err)
{
	struct fab_node_info in = { .type = type };
	const char *p = fmt_skip_ws(st->it.line + kwlen), *id;
	struct fab_port port0 = { 0 };
	char desc[FAB_DESC_MAX + 1] = "";
	size_t idlen;
	uint32_t node;

	if (fmt_port_count(&st->it, &p, &in.nports, err))
		return -1;
	if (sim_id(st, &p, "node id", &id, &idlen, err) ||
	    sim_node_rest(st, p, type, desc, &port0, err))
		return -1;
	in.guid = st->next[type];
	if (!in.guid) {
		fmt_err_at(err, &st->it, "expected a GUID line (%s=) before this node, found none: ibsim would give it GUID 0%s",
			   type_key[type], type == FAB_ROUTER ? " (it numbers routers from 0)" : "");
		return -1;
	}
	st->next[type] += type == FAB_SWITCH ? 1 : in.nports + 1;
	in.sysimg_guid = in.guid;
	in.device_id = st->devid;
	if (!desc[0])
		snprintf(desc, sizeof(desc), "%.*s", (int)idlen, id);
	in.desc = desc;
	node = fmt_tb_node(st->tb, &st->it, &in, id, idlen, &port0, err);
	if (node == FAB_NONE)
		return -1;
	st->node = node;
	st->nnodes++;
	return 0;
}

/* The rest of an assignment line: optionally "(hex)", then blanks or a comment. */
static int sim_line_end(struct ibsim_state *st, const char *p, struct fab_err *err)
{
	char tok[48];

	p = fmt_skip_ws(skip_paren(p));
	if (*p && *p != '#') {
		fmt_err_at(err, &st->it, "expected the end of the line after the value, found '%s'",
			   fmt_tok(p, tok, sizeof(tok)));
		return -1;
	}
	return 0;
}

/* switchguid=G, caguid=G, hcaguids=G, rtguid=G (absolute) or "... +N" (relative). */
static int sim_guid_line(struct ibsim_state *st, enum fab_node_type type, const char *p,
			 struct fab_err *err)
{
	const char *eq = strchr(p, '='), *v;
	char tok[48];
	uint64_t g;

	p = fmt_skip_ws(p);
	if (!eq && *p != '+') {
		fmt_err_at(err, &st->it, "expected '=GUID' or '+N' after '%s', found '%s'",
			   type_key[type], fmt_tok(p, tok, sizeof(tok)));
		return -1;
	}
	v = fmt_skip_ws((eq ? eq : p) + 1);
	if (*v == '+' || fmt_num64(&v, &g)) {
		fmt_err_at(err, &st->it, "expected %s, found '%s'",
			   eq ? "a GUID after '=' (write '+N' without '=' for a relative one)" :
			   "a number after '+'", fmt_tok(v, tok, sizeof(tok)));
		return -1;
	}
	if (sim_line_end(st, v, err))
		return -1;
	if (eq)
		st->base[type] = g;
	st->next[type] = st->base[type] + (eq ? 0 : g);
	return 0;
}

/* devid=N, width=N, speed=N, extspeed=N. */
static int sim_assign(struct ibsim_state *st, const char *key, const char *p, struct fab_err *err)
{
	const struct sim_mask *m = sim_mask_of(key[0] == 'w' ? 'w' : key[0] == 's' ? 's' : 'e');
	uint64_t min = key[0] == 'd' ? 0 : m->min, max = key[0] == 'd' ? 0xffff : m->max, v;
	const char *eq = strchr(p, '='), *val = eq ? fmt_skip_ws(eq + 1) : st->it.line;
	char tok[48];

	p = val;
	if (!eq || fmt_num64(&p, &v) || v < min || v > max) {
		fmt_err_at(err, &st->it, "expected '%s=N' with N from %" PRIu64 " to %" PRIu64 ", found '%s'",
			   key, min, max, fmt_tok(val, tok, sizeof(tok)));
		return -1;
	}
	if (sim_line_end(st, p, err))
		return -1;
	if (key[0] == 'd')
		st->devid = (uint16_t)v;
	else if (key[0] == 'w')
		st->width = (uint8_t)v;
	else if (key[0] == 's')
		st->speed = (uint16_t)v;
	else
		st->ext = (uint16_t)v;
	return 0;
}

/* @line starts with keyword @kw followed by '=', '+', a blank or the end. */
static const char *keyword(const char *line, const char *kw)
{
	size_t n = strlen(kw);

	if (strncmp(line, kw, n) || (line[n] && !strchr("=+ \t", line[n])))
		return NULL;
	return line + n;
}

static int sim_record_line(struct ibsim_state *st, struct fab_err *err)
{
	static const struct { const char *kw; enum fab_node_type t; } guid_kw[] = {
		{ "switchguid", FAB_SWITCH }, { "caguid", FAB_CA }, { "hcaguid", FAB_CA },
		{ "hcaguids", FAB_CA }, { "rtguid", FAB_ROUTER },
	};
	static const char *const assign_kw[] = { "devid", "width", "speed", "extspeed" };
	static const char *const ignored_kw[] = { "vendid", "sysimgguid", "pdebug" };
	static const char *const refused_kw[] = { "include", "do", "module" };
	static const struct { const char *w; enum fab_node_type t; } node_kw[] = {
		{ "Switch", FAB_SWITCH }, { "Hca", FAB_CA }, { "Ca", FAB_CA }, { "Rt", FAB_ROUTER },
	};
	const char *line = st->it.line, *rest;
	char tok[48];

	for (size_t i = 0; i < sizeof(node_kw) / sizeof(node_kw[0]); i++)
		if (fmt_word(line, node_kw[i].w))
			return sim_node_line(st, node_kw[i].t, strlen(node_kw[i].w), err);
	for (size_t i = 0; i < sizeof(guid_kw) / sizeof(guid_kw[0]); i++)
		if ((rest = keyword(line, guid_kw[i].kw)))
			return sim_guid_line(st, guid_kw[i].t, rest, err);
	for (size_t i = 0; i < 4; i++)
		if ((rest = keyword(line, assign_kw[i])))
			return sim_assign(st, assign_kw[i], rest, err);
	for (size_t i = 0; i < 3; i++)
		if (keyword(line, ignored_kw[i]))
			return 0;
	for (size_t i = 0; i < 3; i++)
		if (keyword(line, refused_kw[i])) {
			fmt_err_at(err, &st->it, "expected a topology line, found '%s': include, do and module lines are not supported",
				   refused_kw[i]);
			return -1;
		}
	fmt_err_at(err, &st->it, "expected a record line (Switch, Hca, Ca, Rt, switchguid=, caguid=, rtguid=, devid=, width=, speed=, extspeed=), a comment or a blank line, found '%s'",
		   fmt_tok(line, tok, sizeof(tok)));
	return -1;
}

static int sim_line(struct ibsim_state *st, struct fab_err *err)
{
	const char *line = st->it.line;
	size_t n = strlen(line);
	char tok[48];

	if (n > FMT_IBSIM_LINE_MAX) {
		fmt_err_at(err, &st->it, "expected at most %u characters on a line (ibsim's limit), found %zu",
			   FMT_IBSIM_LINE_MAX, n);
		return -1;
	}
	if (fmt_is_blank(line)) {
		st->node = FAB_NONE;
		return 0;
	}
	if (line[0] == '#')
		return 0;
	if (fmt_diag_line(line)) {
		if (st->opts && st->opts->strict) {
			fmt_err_at(err, &st->it, "expected topology, found a diagnostic line '%.80s' (strict mode refuses it)",
				   line);
			return -1;
		}
		fmt_skip(st->opts, &st->it, "a diagnostic line, not topology");
		return 0;
	}
	if (line[0] == '[' || line[0] == '@') {
		if (st->node == FAB_NONE || line[0] == '@') {
			fmt_err_at(err, &st->it, "expected a port line '[N] \"peer\"[M]' %s, found '%s'",
				   line[0] == '@' ? "(aliases are not supported)" :
				   "only after a Switch, Hca or Rt line", fmt_tok(line, tok, sizeof(tok)));
			return -1;
		}
		return sim_port_line(st, err);
	}
	if (st->node != FAB_NONE) {
		fmt_err_at(err, &st->it, "expected a port line or a blank line ending the record (ibsim would skip this line), found '%s'",
			   fmt_tok(line, tok, sizeof(tok)));
		return -1;
	}
	return sim_record_line(st, err);
}

struct fabric *fmt_ibsim_parse(const char *buf, size_t len, const char *name,
			       struct fmt_opts *opts, struct fab_err *err)
{
	struct ibsim_state st = {
		.opts = opts,
		.next = { 0, 0x100000, 0x200000, 0 }, .base = { 0, 0x100000, 0x200000, 0 },
		.width = FAB_W_4X, .speed = FAB_S_SDR, .node = FAB_NONE,
	};
	int r;

	st.tb = fmt_tb_new(&st.it, buf, len, name, 1, err);
	if (!st.tb)
		return NULL;
	while ((r = fmt_lines_next(&st.it)) > 0 && !sim_line(&st, err))
		;
	return fmt_tb_end(st.tb, &st.it, r, st.nnodes, "Switch, Hca or Rt", opts, err);
}
