/* SPDX-License-Identifier: MIT */
/**
 * DOC: topology builder, shared by both topology parsers
 *
 * The builder (fmt_topo.h) collects what a parser reads: nodes as they
 * come, port lines as pending links. fmt_tb_finish() then resolves the
 * peers by id, checks that both ends of each link agree, sets widths,
 * speeds and port GUIDs, checks LID ranges, and finalizes, naming the file
 * and line of whatever is wrong. Also here: the names ibnetdiscover prints
 * for link widths and speeds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fmt_topo.h"

/* --- link width and speed names ------------------------------------------ */

struct rate_name {
	const char *name;
	uint16_t value;
};

/* Longest names first where one is a prefix of another (12x/1x, FDR10/FDR). */
static const struct rate_name widths[] = {
	{ "12x", FAB_W_12X }, { "1x", FAB_W_1X }, { "2x", FAB_W_2X }, { "4x", FAB_W_4X },
	{ "8x", FAB_W_8X }, { "??", 0 },
};
static const struct rate_name speeds[] = {
	{ "SDR", FAB_S_SDR }, { "DDR", FAB_S_DDR }, { "QDR", FAB_S_QDR },
	{ "FDR10", FAB_S_FDR10 }, { "FDR", FAB_S_FDR }, { "EDR", FAB_S_EDR },
	{ "HDR", FAB_S_HDR }, { "NDR", FAB_S_NDR }, { "XDR", FAB_S_XDR }, { "???", 0 },
};

const char *fmt_width_name(unsigned width)
{
	for (size_t i = 0; i + 1 < sizeof(widths) / sizeof(widths[0]); i++)
		if (widths[i].value == width)
			return widths[i].name;
	return "??";
}

const char *fmt_speed_name(unsigned speed)
{
	for (size_t i = 0; i + 1 < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (speeds[i].value == speed)
			return speeds[i].name;
	return "???";
}

static size_t rate_prefix(const char *p, const struct rate_name *t, size_t n, uint16_t *v)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(t[i].name);

		if (!strncmp(p, t[i].name, len)) {
			*v = t[i].value;
			return len;
		}
	}
	return 0;
}

size_t fmt_width_speed(const char *p, uint8_t *width, uint16_t *speed)
{
	uint16_t w = 0;
	size_t a = rate_prefix(p, widths, sizeof(widths) / sizeof(widths[0]), &w), b;

	if (!a)
		return 0;
	b = rate_prefix(p + a, speeds, sizeof(speeds) / sizeof(speeds[0]), speed);
	if (!b || (p[a + b] && p[a + b] != ' ' && p[a + b] != '\t')) {
		*width = 0;
		*speed = 0;
		return 0;
	}
	*width = (uint8_t)w;
	return a + b;
}

/* --- the topology builder (fmt_topo.h) ----------------------------------- */

/* Where a node comes from: its id (offset in the pool) and its node line. */
struct tb_node {
	uint32_t id;
	uint32_t line;
};

/* One port line waiting for the whole file to be read. */
struct tb_link {
	struct fmt_tb_port pl;
	uint32_t node;
	uint32_t peer_id;	/* offset of the peer's id in the pool */
	uint32_t line;
	uint32_t peer;		/* the peer node, once resolved */
};

struct fmt_tb {
	struct fabric *f;
	const char *name;
	int ibsim;
	char *pool;		/* node ids, NUL-terminated, back to back */
	size_t pool_len, pool_cap;
	struct tb_node *nodes;	/* per node of the fabric */
	uint32_t nodes_cap;
	uint32_t *slot_link;	/* per port slot: its port line in links, FAB_NONE */
	uint32_t slots_cap;
	struct tb_link *links;
	uint32_t nlinks, links_cap;
};

static uint32_t tb_intern(struct fmt_tb *tb, const char *s, size_t n)
{
	uint32_t off;

	if (tb->pool_len + n + 1 > tb->pool_cap) {
		size_t cap = tb->pool_cap ? tb->pool_cap * 2 : 4096;
		char *p;

		while (cap < tb->pool_len + n + 1)
			cap *= 2;
		if (cap > UINT32_MAX || !(p = realloc(tb->pool, cap)))
			return FAB_NONE;
		tb->pool = p;
		tb->pool_cap = cap;
	}
	off = (uint32_t)tb->pool_len;
	memcpy(tb->pool + off, s, n);
	tb->pool[off + n] = '\0';
	tb->pool_len += n + 1;
	return off;
}

struct fmt_tb *fmt_tb_new(struct fmt_lines *it, const char *buf, size_t len, const char *name,
			  int ibsim, struct fab_err *err)
{
	struct fmt_tb *tb = calloc(1, sizeof(*tb));

	if (!tb || !(tb->f = fab_new())) {
		free(tb);
		fab_err_set(err, "%s: out of memory", name);
		return NULL;
	}
	tb->name = name;
	tb->ibsim = ibsim;
	fmt_lines_init(it, buf, len, name);
	return tb;
}

void fmt_tb_free(struct fmt_tb *tb)
{
	if (!tb)
		return;
	fab_free(tb->f);
	free(tb->pool);
	free(tb->nodes);
	free(tb->slot_link);
	free(tb->links);
	free(tb);
}

struct fabric *fmt_tb_fabric(struct fmt_tb *tb)
{
	return tb->f;
}

/* Error at line @line of the file, outside the line iterator. */
static void tb_err(const struct fmt_tb *tb, unsigned line, struct fab_err *err,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void tb_err(const struct fmt_tb *tb, unsigned line, struct fab_err *err,
		   const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fab_err_set(err, "%s:%u: %s", tb->name, line, msg);
}

static const char *tb_id(const struct fmt_tb *tb, uint32_t node)
{
	return tb->pool + tb->nodes[node].id;
}

uint32_t fmt_tb_node(struct fmt_tb *tb, const struct fmt_lines *it,
		     const struct fab_node_info *in, const char *id, size_t idlen,
		     const struct fab_port *port0, struct fab_err *err)
{
	struct fabric *f = tb->f;
	struct fab_err sub = { { 0 } };
	uint32_t node, off, slots = f->nports + in->nports + 1;

	if (slots > FMT_SLOTS_MAX) {
		fmt_err_at(err, it, "expected at most %u ports in all, found more", FMT_SLOTS_MAX);
		return FAB_NONE;
	}
	off = tb_intern(tb, id, idlen);
	if (off == FAB_NONE ||
	    fab_grow((void **)&tb->nodes, &tb->nodes_cap, f->nnodes + 1, sizeof(*tb->nodes)) ||
	    fab_grow((void **)&tb->slot_link, &tb->slots_cap, slots, sizeof(uint32_t))) {
		fmt_err_at(err, it, "out of memory");
		return FAB_NONE;
	}
	node = fab_node_add(f, in, &sub);
	if (node == FAB_NONE) {
		fmt_err_at(err, it, "%s", sub.msg);
		return FAB_NONE;
	}
	tb->nodes[node] = (struct tb_node){ .id = off, .line = it->no };
	for (uint32_t s = f->nodes[node].port0; s < f->nports; s++)
		tb->slot_link[s] = FAB_NONE;
	if (in->type == FAB_SWITCH) {
		fab_port(f, node, 0)->lid = port0->lid;
		fab_port(f, node, 0)->lmc = port0->lmc;
	}
	return node;
}

int fmt_tb_port(struct fmt_tb *tb, const struct fmt_lines *it, uint32_t node,
		const struct fmt_tb_port *pl, const char *peer, size_t peerlen,
		struct fab_err *err)
{
	uint32_t slot = tb->f->nodes[node].port0 + pl->port, off;
	struct tb_link *l;

	if (tb->slot_link[slot] != FAB_NONE) {
		fmt_err_at(err, it, "expected each port listed once, found port %u again (first on line %u)",
			   pl->port, tb->links[tb->slot_link[slot]].line);
		return -1;
	}
	off = tb_intern(tb, peer, peerlen);
	if (off == FAB_NONE ||
	    fab_grow((void **)&tb->links, &tb->links_cap, tb->nlinks + 1, sizeof(*tb->links))) {
		fmt_err_at(err, it, "out of memory");
		return -1;
	}
	l = &tb->links[tb->nlinks];
	l->pl = *pl;
	l->node = node;
	l->peer_id = off;
	l->line = it->no;
	l->peer = FAB_NONE;
	tb->slot_link[slot] = tb->nlinks++;
	return 0;
}

/* --- finishing: open-addressed tables over ids and GUIDs ------------------ */

struct tb_map {
	uint64_t *keys;		/* 0 = empty */
	uint32_t *vals;
	uint32_t mask;
};

static uint64_t tb_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int map_init(struct tb_map *m, uint32_t n)
{
	uint32_t cap = 16;

	while (cap < 2 * (uint64_t)n + 2)
		cap *= 2;
	m->keys = calloc(cap, sizeof(*m->keys));
	m->vals = malloc((size_t)cap * sizeof(*m->vals));
	m->mask = cap - 1;
	return m->keys && m->vals ? 0 : -1;
}

static void map_free(struct tb_map *m)
{
	free(m->keys);
	free(m->vals);
}

/* Insert @key (non-zero); Return FAB_NONE, or the value already there. */
static uint32_t map_put(struct tb_map *m, uint64_t key, uint32_t val)
{
	uint32_t i = (uint32_t)tb_mix(key) & m->mask;

	for (; m->keys[i]; i = (i + 1) & m->mask)
		if (m->keys[i] == key)
			return m->vals[i];
	m->keys[i] = key;
	m->vals[i] = val;
	return FAB_NONE;
}

static uint64_t str_key(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return h | 1;	/* never 0 */
}

/* Ids live in a map keyed by their hash; equal hashes are told apart by strcmp. */
static uint32_t id_find(const struct fmt_tb *tb, const struct tb_map *m, const char *id)
{
	uint64_t key = str_key(id);

	for (uint32_t i = (uint32_t)tb_mix(key) & m->mask; m->keys[i]; i = (i + 1) & m->mask)
		if (m->keys[i] == key && !strcmp(tb_id(tb, m->vals[i]), id))
			return m->vals[i];
	return FAB_NONE;
}

static int index_ids(const struct fmt_tb *tb, struct tb_map *m, struct fab_err *err)
{
	for (uint32_t n = 0; n < tb->f->nnodes; n++) {
		uint32_t prev = id_find(tb, m, tb_id(tb, n)), i;
		uint64_t key = str_key(tb_id(tb, n));

		if (prev != FAB_NONE) {
			tb_err(tb, tb->nodes[n].line, err,
			       "expected a node id not used before, found '\"%s\"' (also on line %u)",
			       tb_id(tb, n), tb->nodes[prev].line);
			return -1;
		}
		for (i = (uint32_t)tb_mix(key) & m->mask; m->keys[i]; i = (i + 1) & m->mask)
			;
		m->keys[i] = key;
		m->vals[i] = n;
	}
	return 0;
}

static int check_node_guids(const struct fmt_tb *tb, struct fab_err *err)
{
	struct tb_map m;
	int rc = 0;

	if (map_init(&m, tb->f->nnodes)) {
		map_free(&m);
		fab_err_set(err, "%s: out of memory", tb->name);
		return -1;
	}
	for (uint32_t n = 0; n < tb->f->nnodes && !rc; n++) {
		uint32_t prev = map_put(&m, tb->f->nodes[n].guid, n);

		if (prev != FAB_NONE) {
			tb_err(tb, tb->nodes[n].line, err,
			       "expected a node GUID not used before, found 0x%016" PRIx64 " (also \"%s\" on line %u)",
			       tb->f->nodes[n].guid, tb_id(tb, prev), tb->nodes[prev].line);
			rc = -1;
		}
	}
	map_free(&m);
	return rc;
}

static uint32_t slot_line(const struct fmt_tb *tb, uint32_t node, unsigned port)
{
	uint32_t l = tb->slot_link[tb->f->nodes[node].port0 + port];

	return l != FAB_NONE ? tb->links[l].line : tb->nodes[node].line;
}

/* --- finishing: links ----------------------------------------------------- */

/* The port line of the peer port must name this port back (when there is one). */
static int check_mirror(const struct fmt_tb *tb, const struct tb_link *l, struct fab_err *err)
{
	const struct fab_node *b = &tb->f->nodes[l->peer];
	uint32_t m = tb->slot_link[b->port0 + l->pl.peer_port];
	const struct tb_link *ml;

	if (m == FAB_NONE) {
		if (!tb->ibsim)
			return 0;
		tb_err(tb, l->line, err,
		       "expected a port line of \"%s\" port %u naming \"%s\"[%u] back (links are listed from both ends), found none",
		       tb_id(tb, l->peer), l->pl.peer_port, tb_id(tb, l->node), l->pl.port);
		return -1;
	}
	ml = &tb->links[m];
	if (ml->pl.peer_port != l->pl.port || strcmp(tb->pool + ml->peer_id, tb_id(tb, l->node))) {
		tb_err(tb, l->line, err,
		       "expected \"%s\" port %u to be linked back to \"%s\"[%u], found it linked to \"%s\"[%u] on line %u",
		       tb_id(tb, l->peer), l->pl.peer_port, tb_id(tb, l->node), l->pl.port,
		       tb->pool + ml->peer_id, ml->pl.peer_port, ml->line);
		return -1;
	}
	return 0;
}

static int link_one(struct fmt_tb *tb, const struct tb_map *ids, struct tb_link *l,
		    struct fab_err *err)
{
	const char *peer = tb->pool + l->peer_id;
	struct fab_err sub = { { 0 } };
	uint32_t b = id_find(tb, ids, peer);

	if (b == FAB_NONE) {
		tb_err(tb, l->line, err, "expected a peer defined in this file, found '\"%s\"'", peer);
		return -1;
	}
	if (l->pl.peer_port > tb->f->nodes[b].nports) {
		tb_err(tb, l->line, err, "expected a port of \"%s\" (1 to %u), found '[%u]'", peer,
		       tb->f->nodes[b].nports, l->pl.peer_port);
		return -1;
	}
	if (b == l->node && l->pl.peer_port == l->pl.port) {
		tb_err(tb, l->line, err, "expected a peer other than the port itself, found '\"%s\"[%u]'",
		       peer, l->pl.port);
		return -1;
	}
	l->peer = b;
	if (check_mirror(tb, l, err))
		return -1;
	if (fab_link_add(tb->f, l->node, l->pl.port, b, l->pl.peer_port, &sub)) {
		tb_err(tb, l->line, err, "expected every port linked once, found %s", sub.msg);
		return -1;
	}
	return 0;
}

/* The first of @order's values that @mask holds, 0 when none. */
static unsigned best_of(unsigned mask, const unsigned *order, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (mask & order[i])
			return order[i];
	return 0;
}

/* ibsim's choice among enabled widths (12x, 8x, 4x, 2x, 1x) and speeds. */
static unsigned sim_width(unsigned mask)
{
	static const unsigned order[] = { FAB_W_12X, FAB_W_8X, FAB_W_4X, FAB_W_2X, FAB_W_1X };

	return best_of(mask, order, sizeof(order) / sizeof(order[0]));
}

static unsigned sim_speed(unsigned mask, unsigned ext)
{
	static const unsigned ext_bit[] = { 8, 4, 2, 1 };
	static const unsigned ext_speed[] = { FAB_S_NDR, FAB_S_HDR, FAB_S_EDR, FAB_S_FDR };
	static const unsigned order[] = { FAB_S_QDR, FAB_S_DDR, FAB_S_SDR };

	for (size_t i = 0; i < 4; i++)
		if (ext & ext_bit[i])
			return ext_speed[i];
	return best_of(mask, order, sizeof(order) / sizeof(order[0]));
}

/*
 * ibsim: each end enables widths and speeds (w=, s=, e=); the link runs at
 * the highest both enable, as ibsim's link_ports() decides: the highest
 * extended speed both enable, else the highest speed. ibnetdiscover: the
 * active values as printed, each port from its own line, from the peer's
 * line when its own says nothing (the two ends may disagree: the man
 * page's example does).
 */
static int link_rates(const struct fmt_tb *tb, const struct tb_link *l, struct fab_err *err)
{
	struct fab_port *x = fab_port(tb->f, l->node, l->pl.port);
	struct fab_port *y = fab_port(tb->f, l->peer, l->pl.peer_port);
	const struct tb_link *m;
	unsigned w, s;

	if (!tb->ibsim) {
		int mine = tb->slot_link[tb->f->nodes[l->peer].port0 + l->pl.peer_port] != FAB_NONE;

		if (l->pl.width)
			x->width = l->pl.width;
		if (l->pl.speed)
			x->speed = l->pl.speed;
		if (l->pl.width && (!mine || !y->width))
			y->width = l->pl.width;
		if (l->pl.speed && (!mine || !y->speed))
			y->speed = l->pl.speed;
		return 0;
	}
	m = &tb->links[tb->slot_link[tb->f->nodes[l->peer].port0 + l->pl.peer_port]];
	w = sim_width(l->pl.width & m->pl.width);
	s = sim_speed(l->pl.speed & m->pl.speed, l->pl.ext & m->pl.ext);
	if (!w || !s) {
		tb_err(tb, l->line, err,
		       "expected a %s both ends enable, found %s=%u here and %s=%u on line %u",
		       !w ? "link width" : "link speed", !w ? "w" : "s",
		       !w ? l->pl.width : l->pl.speed, !w ? "w" : "s",
		       !w ? m->pl.width : m->pl.speed, m->line);
		return -1;
	}
	x->width = y->width = (uint8_t)w;
	x->speed = y->speed = (uint16_t)s;
	return 0;
}

/* ibnetdiscover: port GUIDs in parentheses, the port's own first. */
static int own_guid(struct fmt_tb *tb, const struct tb_link *l, struct fab_err *err)
{
	const struct fab_node *n = &tb->f->nodes[l->node];

	if (!l->pl.guid)
		return 0;
	if (n->type == FAB_SWITCH && l->pl.guid != n->guid) {
		tb_err(tb, l->line, err, "expected the switch's GUID %" PRIx64 " as port GUID, found '(%" PRIx64 ")'",
		       n->guid, l->pl.guid);
		return -1;
	}
	fab_port_set_guid(tb->f, l->node, l->pl.port, l->pl.guid);
	return 0;
}

static int peer_guid(struct fmt_tb *tb, const struct tb_link *l, struct fab_err *err)
{
	const struct fab_node *b = &tb->f->nodes[l->peer];
	uint32_t m = tb->slot_link[b->port0 + l->pl.peer_port];
	uint64_t want = fab_port(tb->f, l->peer, l->pl.peer_port)->guid;

	if (!l->pl.peer_guid || l->pl.peer_guid == want)
		return 0;
	if (b->type == FAB_SWITCH || (m != FAB_NONE && tb->links[m].pl.guid)) {
		tb_err(tb, l->line, err, "expected port GUID %" PRIx64 " for \"%s\"[%u] (line %u), found '(%" PRIx64 ")'",
		       want, tb_id(tb, l->peer), l->pl.peer_port,
		       slot_line(tb, l->peer, l->pl.peer_port), l->pl.peer_guid);
		return -1;
	}
	fab_port_set_guid(tb->f, l->peer, l->pl.peer_port, l->pl.peer_guid);
	return 0;
}

static int tb_links(struct fmt_tb *tb, const struct tb_map *ids, struct fab_err *err)
{
	int rc = 0;

	for (uint32_t i = 0; i < tb->nlinks && !rc; i++)
		rc = link_one(tb, ids, &tb->links[i], err);
	for (uint32_t i = 0; i < tb->nlinks && !rc; i++)
		rc = link_rates(tb, &tb->links[i], err);
	for (uint32_t i = 0; i < tb->nlinks && !rc && !tb->ibsim; i++)
		rc = own_guid(tb, &tb->links[i], err);
	for (uint32_t i = 0; i < tb->nlinks && !rc && !tb->ibsim; i++)
		rc = peer_guid(tb, &tb->links[i], err);
	return rc;
}

/* --- finishing: LID ranges of the endpoints ------------------------------- */

static int lid_range(const struct fmt_tb *tb, uint32_t *owner, uint32_t node, unsigned port,
		     struct fab_err *err)
{
	const struct fab_port *p = fab_port(tb->f, node, port);
	unsigned n = 1u << p->lmc, line = slot_line(tb, node, port);

	if (!p->lid)
		return 0;
	if (p->lid % n) {
		tb_err(tb, line, err, "expected a base LID that is a multiple of %u (LMC %u), found LID %u",
		       n, p->lmc, p->lid);
		return -1;
	}
	/* the parsers keep LIDs <= 0xBFFF, and 0xC000 is a multiple of 2^LMC */
	for (unsigned l = p->lid; l < p->lid + n && l <= FAB_LID_UCAST_MAX; l++) {
		uint32_t o = owner[l];

		if (o) {
			uint32_t on = (o - 1) >> 8, op = (o - 1) & 0xff;

			tb_err(tb, line, err,
			       "expected LIDs no other port owns, found LID %u, which \"%s\" port %u (line %u) owns too",
			       l, tb_id(tb, on), op, slot_line(tb, on, op));
			return -1;
		}
		owner[l] = (node << 8 | port) + 1;
	}
	return 0;
}

/*
 * Endpoints whose LIDs enter the LID table: switch port 0 and linked CA and
 * router ports (others are ignored, as fab_finalize() does).
 */
static int tb_lids(const struct fmt_tb *tb, struct fab_err *err)
{
	uint32_t *owner = calloc(FAB_LID_UCAST_MAX + 1, sizeof(*owner));
	int rc = 0;

	/* node << 8 | port fits: FMT_SLOTS_MAX bounds the node count to 2^21 */
	if (!owner) {
		free(owner);
		fab_err_set(err, "%s: out of memory", tb->name);
		return -1;
	}
	for (uint32_t n = 0; n < tb->f->nnodes && !rc; n++) {
		const struct fab_node *nd = &tb->f->nodes[n];

		if (nd->type == FAB_SWITCH) {
			rc = lid_range(tb, owner, n, 0, err);
			continue;
		}
		for (unsigned p = 1; p <= nd->nports && !rc; p++)
			if (fab_port_linked(tb->f, n, p))
				rc = lid_range(tb, owner, n, p, err);
	}
	free(owner);
	return rc;
}

struct fabric *fmt_tb_finish(struct fmt_tb *tb, struct fab_err *err)
{
	struct fab_err sub = { { 0 } };
	struct fabric *f = NULL;
	struct tb_map ids;

	if (map_init(&ids, tb->f->nnodes))
		fab_err_set(err, "%s: out of memory", tb->name);
	else if (!index_ids(tb, &ids, err) && !check_node_guids(tb, err) &&
		 !tb_links(tb, &ids, err) && !tb_lids(tb, err)) {
		if (fab_finalize(tb->f, &sub)) {
			fab_err_set(err, "%s: %s", tb->name, sub.msg);
		} else {
			f = tb->f;
			tb->f = NULL;
		}
	}
	map_free(&ids);
	fmt_tb_free(tb);
	return f;
}

struct fabric *fmt_tb_end(struct fmt_tb *tb, struct fmt_lines *it, int r, uint32_t nnodes,
			  const char *records, struct fmt_opts *opts, struct fab_err *err)
{
	if (r < 0) {
		fab_err_set(err, "%s:%u: out of memory", it->name, it->no + 1);
	} else if (r == 0 && !nnodes) {
		it->no += !it->no;
		fmt_err_at(err, it, "expected at least one %s record, found the end of the file", records);
		r = 1;
	}
	fmt_lines_fini(it);
	if (r) {
		fmt_tb_free(tb);
		return NULL;
	}
	fmt_skip_end(opts, tb->name);
	return fmt_tb_finish(tb, err);
}

int fmt_port_count(const struct fmt_lines *it, const char **p, unsigned *nports,
		   struct fab_err *err)
{
	const char *s = *p;
	unsigned long v;
	char tok[48];

	if (fmt_uint(&s, 999, &v) || v < 1 || v > FAB_PORTS_MAX) {
		fmt_err_at(err, it, "expected a port count from 1 to %u, found '%s'", FAB_PORTS_MAX,
			   fmt_tok(*p, tok, sizeof(tok)));
		return -1;
	}
	*nports = (unsigned)v;
	*p = fmt_skip_ws(s);
	return 0;
}

int fmt_port_num(const struct fmt_lines *it, const char **p, unsigned max, const char *what,
		 uint8_t *port, struct fab_err *err)
{
	const char *s = *p + 1;
	unsigned long v;
	char tok[48];

	if (**p != '[' || fmt_uint(&s, 999, &v) || *s != ']') {
		fmt_err_at(err, it, "expected %s as '[N]', found '%s'", what,
			   fmt_tok(*p, tok, sizeof(tok)));
		return -1;
	}
	if (v < 1 || v > max) {
		fmt_err_at(err, it, "expected %s from 1 to %u, found '[%lu]'", what, max, v);
		return -1;
	}
	*port = (uint8_t)v;
	*p = s + 1;
	return 0;
}
