/* SPDX-License-Identifier: MIT */
/**
 * DOC: path files
 *
 * A path file lists explicit routes, one per line:
 *
 *   SRC DST [DLID] SWITCH:PORT SWITCH:PORT ...
 *
 * SRC and DST are endpoints: a port GUID, a node GUID or a node description
 * (a CA or router named by its node stands for its port 1, a switch for its
 * port 0); DLID is decimal; each hop names a switch (node GUID or
 * description) and the port, in decimal, the packet leaves it by. The first
 * hop is the switch SRC's port is linked to (SRC itself for a switch), each
 * next hop the switch at the other end of the port before, and the last
 * port leads to DST (port 0 of DST for a switch). Descriptions with blanks
 * are written in double quotes. '#' starts a comment; blank lines are
 * skipped.
 *
 * `fabroute compute` writes this file (named "paths", GUIDs in hex, with the
 * DLID of every path) for the engines that plan paths; `fabroute lids` reads
 * it without DLIDs, `fabroute eval --paths` with them. A path that does not
 * follow the links, ends elsewhere, or crosses a switch twice (one DLID
 * cannot leave a switch by two ports) is refused with the file and line.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"

void fmt_paths_free(struct fmt_paths *p)
{
	free(p->src);
	free(p->dst);
	free(p->dlid);
	free(p->line);
	free(p->off);
	free(p->hop);
	memset(p, 0, sizeof(*p));
}

static int grow_paths(struct fmt_paths *p)
{
	size_t cap = p->cap ? p->cap * 2 : 256;
	uint32_t *src = realloc(p->src, cap * sizeof(*src));
	uint32_t *dst = src ? realloc(p->dst, cap * sizeof(*dst)) : NULL;
	uint16_t *dlid = dst ? realloc(p->dlid, cap * sizeof(*dlid)) : NULL;
	uint32_t *line = dlid ? realloc(p->line, cap * sizeof(*line)) : NULL;
	size_t *off = line ? realloc(p->off, (cap + 1) * sizeof(*off)) : NULL;

	if (src)
		p->src = src;
	if (dst)
		p->dst = dst;
	if (dlid)
		p->dlid = dlid;
	if (line)
		p->line = line;
	if (!off)
		return -1;
	p->off = off;
	p->cap = cap;
	return 0;
}

int fmt_paths_add(struct fmt_paths *p, uint32_t src, uint32_t dst, unsigned dlid,
		  const struct fmt_hop *hops, size_t nhops)
{
	if (p->n == p->cap && grow_paths(p))
		return -1;
	if (p->nhops + nhops > p->hcap) {
		size_t cap = p->hcap ? p->hcap : 1024;
		struct fmt_hop *h;

		while (cap < p->nhops + nhops)
			cap *= 2;
		h = realloc(p->hop, cap * sizeof(*h));
		if (!h)
			return -1;
		p->hop = h;
		p->hcap = cap;
	}
	if (!p->n)
		p->off[0] = 0;
	memcpy(p->hop + p->nhops, hops, nhops * sizeof(*hops));
	p->nhops += nhops;
	p->src[p->n] = src;
	p->dst[p->n] = dst;
	p->dlid[p->n] = (uint16_t)dlid;
	p->line[p->n] = 0;
	p->off[++p->n] = p->nhops;
	return 0;
}

/* --- checking one path ------------------------------------------------------------ */

/* The switch node a path from endpoint @ep starts at; FAB_NONE when it has none. */
static uint32_t first_switch(const struct fabric *f, uint32_t ep)
{
	uint32_t node = f->eps[ep].node;
	const struct fab_port *p;

	if (f->nodes[node].type == FAB_SWITCH)
		return node;
	p = fab_port(f, node, f->eps[ep].port);
	if (p->peer == FAB_NONE || f->nodes[p->peer].type != FAB_SWITCH)
		return FAB_NONE;
	return p->peer;
}

/* Does leaving @h reach endpoint @ep? */
static int reaches(const struct fabric *f, const struct fmt_hop *h, uint32_t ep)
{
	const struct fab_ep *e = &f->eps[ep];
	const struct fab_port *p;

	if (f->nodes[e->node].type == FAB_SWITCH)
		return h->node == e->node && h->port == 0;
	if (!h->port)
		return 0;
	p = fab_port(f, h->node, h->port);
	return p->peer == e->node && p->peer_port == e->port;
}

static const char *ep_text(const struct fabric *f, uint32_t ep, char *buf, size_t len)
{
	snprintf(buf, len, "'%s' port %u", fab_desc(f, f->eps[ep].node), f->eps[ep].port);
	return buf;
}

int fmt_paths_check(const struct fabric *f, const struct fmt_hop *h, size_t n, uint32_t src,
		    uint32_t dst, char *why, size_t len)
{
	uint32_t at = first_switch(f, src);
	char a[128], b[128];

	if (at == FAB_NONE || !n) {
		snprintf(why, len, "%s", at == FAB_NONE ? "the source is not linked to a switch" :
			 "expected at least one hop");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct fab_port *p;

		if (h[i].node != at) {
			snprintf(why, len, "hop %zu: expected switch '%s', found '%s'", i + 1,
				 fab_desc(f, at), fab_desc(f, h[i].node));
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (h[j].node == at) {
				snprintf(why, len, "hop %zu: switch '%s' is crossed twice (one DLID "
					 "cannot leave it by two ports)", i + 1, fab_desc(f, at));
				return -1;
			}
		if (h[i].port > f->nodes[at].nports) {
			snprintf(why, len, "hop %zu: switch '%s' has no port %u", i + 1,
				 fab_desc(f, at), h[i].port);
			return -1;
		}
		if (i + 1 == n)
			break;
		p = fab_port(f, at, h[i].port);
		if (!h[i].port || p->peer == FAB_NONE || f->nodes[p->peer].type != FAB_SWITCH) {
			snprintf(why, len, "hop %zu: port %u of '%s' does not lead to a switch", i + 1,
				 h[i].port, fab_desc(f, at));
			return -1;
		}
		at = p->peer;
	}
	if (!reaches(f, &h[n - 1], dst)) {
		snprintf(why, len, "the last hop ('%s' port %u) does not lead to %s (from %s)",
			 fab_desc(f, h[n - 1].node), h[n - 1].port, ep_text(f, dst, a, sizeof(a)),
			 ep_text(f, src, b, sizeof(b)));
		return -1;
	}
	return 0;
}

/* --- parsing ---------------------------------------------------------------------- */

/* Next blank-separated token of *@pp (a "quoted" one may hold blanks); NULL at the end. */
static char *next_token(char **pp)
{
	char *p = *pp, *t;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return NULL;
	if (*p == '"') {
		t = ++p;
		while (*p && *p != '"')
			p++;
		if (*p)
			*p++ = '\0';
	} else {
		t = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
	*pp = p;
	return t;
}

static int parse_guid(const char *t, uint64_t *g)
{
	char *end;

	if (strncmp(t, "0x", 2) && strncmp(t, "0X", 2))
		return -1;
	errno = 0;
	*g = strtoull(t + 2, &end, 16);
	return errno || *end || end == t + 2 ? -1 : 0;
}

/* A node by GUID or description; FAB_NONE with @why set. */
static uint32_t find_node(const struct fabric *f, const char *t, char *why, size_t len)
{
	struct fab_err err = { { 0 } };
	uint32_t n = fab_node_resolve(f, t, NULL, &err);

	if (n == FAB_NONE)
		snprintf(why, len, "%.300s", err.msg);
	return n;
}

/* An endpoint: a port GUID, else a node (a CA's port 1, a switch's port 0). */
static uint32_t find_ep(const struct fabric *f, const char *t, char *why, size_t len)
{
	uint64_t g;
	uint32_t ep = parse_guid(t, &g) ? FAB_NONE : fab_ep_by_port_guid(f, g), node;

	if (ep != FAB_NONE)
		return ep;
	node = find_node(f, t, why, len);
	if (node == FAB_NONE)
		return FAB_NONE;
	ep = fab_ep_of_node(f, node, f->nodes[node].type == FAB_SWITCH ? 0 : 1);
	if (ep == FAB_NONE)
		snprintf(why, len, "node \"%s\" has no linked port %u", t,
			 f->nodes[node].type == FAB_SWITCH ? 0 : 1);
	return ep;
}

/* "SWITCH:PORT" into @h; 0 or -1 with @why set. */
static int parse_hop(const struct fabric *f, char *t, struct fmt_hop *h, char *why, size_t len)
{
	char *colon = strrchr(t, ':'), *end;
	unsigned long port;

	if (!colon || !colon[1]) {
		snprintf(why, len, "expected a hop SWITCH:PORT, found \"%s\"", t);
		return -1;
	}
	*colon = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || !isdigit((unsigned char)colon[1]) || port > FAB_PORTS_MAX) {
		snprintf(why, len, "hop \"%s:%s\": expected a port number from 0 to %u", t, colon + 1,
			 FAB_PORTS_MAX);
		return -1;
	}
	h->node = find_node(f, t, why, len);
	if (h->node == FAB_NONE)
		return -1;
	if (f->nodes[h->node].type != FAB_SWITCH) {
		snprintf(why, len, "hop \"%s:%lu\": '%s' is not a switch", t, port, t);
		return -1;
	}
	h->port = (uint8_t)port;
	return 0;
}

struct paths_parse {
	const struct fabric *f;
	struct fmt_paths *p;
	struct fmt_hop *hops;
	size_t cap;
	enum fmt_paths_dlid mode;
	char why[400];
};

/* One line's tokens after SRC and DST; 0 or -1 with why set. */
static int parse_rest(struct paths_parse *ps, char *rest, unsigned *dlid, size_t *nh)
{
	char *t, *end;
	int first = 1;

	*dlid = 0;
	*nh = 0;
	while ((t = next_token(&rest))) {
		if (first && !strchr(t, ':')) {
			unsigned long v;

			errno = 0;
			v = strtoul(t, &end, 10);
			if (errno || *end || !isdigit((unsigned char)*t) || !v ||
			    v > FAB_LID_UCAST_MAX) {
				snprintf(ps->why, sizeof(ps->why), "expected a DLID from 1 to %u or a hop "
					 "SWITCH:PORT, found \"%s\"", FAB_LID_UCAST_MAX, t);
				return -1;
			}
			*dlid = (unsigned)v;
			first = 0;
			continue;
		}
		first = 0;
		if (*nh == ps->cap) {
			size_t cap = ps->cap ? ps->cap * 2 : 16;
			struct fmt_hop *h = realloc(ps->hops, cap * sizeof(*h));

			if (!h) {
				snprintf(ps->why, sizeof(ps->why), "out of memory");
				return -1;
			}
			ps->hops = h;
			ps->cap = cap;
		}
		if (parse_hop(ps->f, t, &ps->hops[*nh], ps->why, sizeof(ps->why)))
			return -1;
		++*nh;
	}
	return 0;
}

static int parse_line(struct paths_parse *ps, char *line)
{
	char *rest = line, *ts = next_token(&rest), *td;
	uint32_t src, dst;
	unsigned dlid;
	size_t nh;

	if (!ts)
		return 0;
	td = next_token(&rest);
	if (!td) {
		snprintf(ps->why, sizeof(ps->why), "expected SRC DST [DLID] SWITCH:PORT ..., found "
			 "only \"%s\"", ts);
		return -1;
	}
	if ((src = find_ep(ps->f, ts, ps->why, sizeof(ps->why))) == FAB_NONE ||
	    (dst = find_ep(ps->f, td, ps->why, sizeof(ps->why))) == FAB_NONE ||
	    parse_rest(ps, rest, &dlid, &nh))
		return -1;
	if (src == dst) {
		snprintf(ps->why, sizeof(ps->why), "the source and the destination are one port");
		return -1;
	}
	if (ps->mode == FMT_PATHS_DLID_NEEDED && !dlid) {
		snprintf(ps->why, sizeof(ps->why), "expected a DLID after the destination");
		return -1;
	}
	if (ps->mode == FMT_PATHS_DLID_NONE && dlid) {
		snprintf(ps->why, sizeof(ps->why), "expected no DLID (the LIDs are what is computed)");
		return -1;
	}
	if (fmt_paths_check(ps->f, ps->hops, nh, src, dst, ps->why, sizeof(ps->why)))
		return -1;
	if (fmt_paths_add(ps->p, src, dst, dlid, ps->hops, nh)) {
		snprintf(ps->why, sizeof(ps->why), "out of memory");
		return -1;
	}
	return 0;
}

int fmt_paths_parse(const char *buf, size_t len, const char *name, const struct fabric *f,
		    enum fmt_paths_dlid mode, struct fmt_paths *p, struct fab_err *err)
{
	struct paths_parse ps = { .f = f, .p = p, .mode = mode };
	struct fmt_lines it;
	int more, rc = -1;

	memset(p, 0, sizeof(*p));
	if (fmt_check_size(buf, len, FMT_DUMP_SIZE_MAX, name, err))
		return -1;
	fmt_lines_init(&it, buf, len, name);
	while ((more = fmt_lines_next(&it)) > 0) {
		if (parse_line(&ps, it.line)) {
			fmt_err_at(err, &it, "%s", ps.why);
			goto out;
		}
		if (p->n && !p->line[p->n - 1])
			p->line[p->n - 1] = it.no;
	}
	if (more < 0) {
		fab_err_set(err, "%s: out of memory", name);
		goto out;
	}
	if (!p->n) {
		fab_err_set(err, "%s: expected at least one path, found none", name);
		goto out;
	}
	rc = 0;
out:
	fmt_lines_fini(&it);
	free(ps.hops);
	if (rc)
		fmt_paths_free(p);
	return rc;
}

/* --- writing ---------------------------------------------------------------------- */

int fmt_paths_write(FILE *out, const struct fabric *f, const struct fmt_paths *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct fab_ep *s = &f->eps[p->src[i]], *d = &f->eps[p->dst[i]];

		fprintf(out, "0x%016" PRIx64 " 0x%016" PRIx64, fab_port(f, s->node, s->port)->guid,
			fab_port(f, d->node, d->port)->guid);
		if (p->dlid[i])
			fprintf(out, " %u", p->dlid[i]);
		for (size_t h = p->off[i]; h < p->off[i + 1]; h++)
			fprintf(out, " 0x%016" PRIx64 ":%u", f->nodes[p->hop[h].node].guid,
				p->hop[h].port);
		if (putc('\n', out) == EOF)
			return -1;
	}
	if (fflush(out) || ferror(out))
		return -1;
	return 0;
}
