/* SPDX-License-Identifier: MIT */
/**
 * DOC: infiniband-diags' layouts: ibroute and ibtracert
 *
 * `fabroute lft SWITCH` prints one switch's LFT as `ibroute LID` prints it
 * from the switch itself, and `fabroute route --format ibtracert` prints a
 * path as `ibtracert SLID DLID` does, so that the daemon's tables and what
 * the switches hold can be compared line for line (tests/sim/cli_ibdiag.sh
 * does it on a simulated fabric).
 *
 * ibroute:
 *
 *   Unicast lids [0x0-0x8] of switch Lid 1 guid 0x0002fab100000001 (leaf-00):
 *     Lid  Out   Destination
 *          Port     Info
 *   0x0001 000 : (Switch portguid 0x0002fab100000001: 'leaf-00')
 *   0x0005 001 : (Channel Adapter portguid 0x0002fab200000011: 'node-00')
 *   0x0006 001 : (path #2 out of 2: portguid 0x0002fab200000011)
 *   8 valid lids dumped
 *
 * (the column-title and footer lines end with a space). The range is the
 * switch's whole table; the LIDs of an LMC range after the first one
 * printed are "path #k out of 2^LMC" lines.
 *
 * ibtracert:
 *
 *   From ca {0x0002fab200000010} portnum 1 lid 5-5 "node-00"
 *   [1] -> switch port {0x0002fab100000001}[1] lid 1-1 "leaf-00"
 *   [4] -> switch port {0x0002fab100000004}[1] lid 4-4 "spine-01"
 *   [2] -> switch port {0x0002fab100000002}[4] lid 2-2 "leaf-01"
 *   [2] -> ca port {0x0002fab200000041}[1] lid 8-8 "node-03"
 *   To ca {0x0002fab200000040} portnum 1 lid 8-8 "node-03"
 *
 * From and To name the node GUID, each hop the port GUID of the port the
 * packet enters (a switch's ports carry its node GUID) with the port's LID
 * range (a switch's: its port 0's). The source switch of a switch-sourced
 * path is not a hop of its own: its output port opens the first hop line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/client.h"

/* --- ibroute ---------------------------------------------------------------- */

/* Largest LID a block may name (unicast). */
#define IBF_LID_MAX 0xBFFFu

/* The next line of @p (up to @end) into @line; its length, or -1 at the end. */
static long next_line(const char **p, const char *end, char *line, size_t size)
{
	const char *s = *p, *nl;
	size_t n;

	if (s >= end)
		return -1;
	nl = memchr(s, '\n', (size_t)(end - s));
	n = (size_t)((nl ? nl : end) - s);
	*p = nl ? nl + 1 : end;
	if (n >= size)
		n = size - 1;
	memcpy(line, s, n);
	line[n] = '\0';
	return (long)n;
}

/*
 * The header of a block: "Unicast lids [LO-HI] of switch Lid L guid 0xG
 * ('DESC'):"; 0, or -1 when @line is not one.
 */
static int parse_header(char *line, unsigned *lo, unsigned *hi, unsigned *lid, uint64_t *guid,
			const char **desc)
{
	size_t n = strlen(line);
	int at = 0;

	if (sscanf(line, "Unicast lids [%u-%u] of switch Lid %u guid 0x%" SCNx64 " ('%n", lo, hi, lid,
		   guid, &at) != 4 || at == 0 || n < (size_t)at + 3 || strcmp(line + n - 3, "'):") ||
	    *hi > IBF_LID_MAX || *lo > *hi)
		return -1;
	line[n - 3] = '\0';
	*desc = line + at;
	return 0;
}

/* The LMC ranges of GET /api/lids: per LID, the base LID of its range when the LMC is above 0. */
struct lmc_map {
	uint16_t *base;		/* 0: LMC 0 or no owner */
	uint8_t *lmc;
};

static int lmc_map_make(struct lmc_map *m, const json_t *lids, unsigned top)
{
	size_t i;
	json_t *e;

	m->base = calloc((size_t)top + 1, sizeof(*m->base));
	m->lmc = calloc((size_t)top + 1, sizeof(*m->lmc));
	if (!m->base || !m->lmc)
		return -1;
	json_array_foreach(json_object_get(lids, "lids"), i, e) {
		long long b = client_int(e, "lid"), l = client_int(e, "lmc");

		if (l <= 0 || l > 7 || b <= 0)
			continue;
		for (long long x = b; x < b + (1LL << l) && x <= (long long)top; x++) {
			m->base[x] = (uint16_t)b;
			m->lmc[x] = (uint8_t)l;
		}
	}
	return 0;
}

/* The port GUID of an annotation "TYPE portguid 0xG: 'DESC'"; 0 when none. */
static uint64_t annotation_guid(const char *a)
{
	const char *g = strstr(a, "portguid 0x");
	uint64_t v = 0;

	if (g && sscanf(g, "portguid 0x%" SCNx64, &v) == 1)
		return v;
	return 0;
}

/* ibroute's state between entries: the LMC range of the last port described. */
struct ibroute_state {
	unsigned base, last;
	uint64_t guid;
	unsigned printed;
};

/* One entry "0xLID PORT # ANNOTATION" of the block; 0, or -1 when malformed. */
static int ibroute_entry(const char *line, const struct lmc_map *m, unsigned top, struct ibroute_state *st)
{
	unsigned lid, port;
	int at = 0;
	const char *a;

	if (sscanf(line, "0x%x %u %n", &lid, &port, &at) != 2 || at == 0 || lid > top || port > 255)
		return -1;
	a = line + at;
	if (!strncmp(a, "# ", 2))
		a += 2;
	printf("0x%04x %03u ", lid, port);
	if (lid <= st->last && st->last) {
		printf(": (path #%u out of %u", lid - st->base + 1, st->last - st->base + 1);
		if (st->guid)
			printf(": portguid 0x%016" PRIx64, st->guid);
		printf(")\n");
	} else {
		printf(": (%s)\n", a);
		st->guid = annotation_guid(a);
		if (m->lmc[lid]) {
			st->base = m->base[lid];
			st->last = st->base + (1u << m->lmc[lid]) - 1;
		}
	}
	st->printed++;
	return 0;
}

int ibfmt_lft(const char *dump, size_t len, const json_t *lids)
{
	const char *p = dump, *end = dump + len, *desc;
	struct ibroute_state st = { 0 };
	struct lmc_map m = { 0 };
	unsigned lo, hi, lid;
	uint64_t guid;
	char line[1024];
	int rc = CLI_FAIL, closed = 0;

	if (!dump || next_line(&p, end, line, sizeof(line)) < 0 ||
	    parse_header(line, &lo, &hi, &lid, &guid, &desc)) {
		cli_err("GET /api/lfts: the answer does not start with a block header: '%.80s'",
			dump ? line : "");
		return CLI_FAIL;
	}
	if (lmc_map_make(&m, lids, hi)) {
		cli_err("out of memory reading the LID ranges");
		goto out;
	}
	printf("Unicast lids [0x%x-0x%x] of switch Lid %u guid 0x%016" PRIx64 " (%s):\n", lo, hi, lid, guid,
	       desc);
	printf("  Lid  Out   Destination\n       Port     Info \n");
	while (!closed && next_line(&p, end, line, sizeof(line)) >= 0) {
		unsigned n;
		char tail[16];

		if (sscanf(line, "%u lids dumpe%15s", &n, tail) == 2 && !strcmp(tail, "d")) {
			closed = 1;
		} else if (ibroute_entry(line, &m, hi, &st)) {
			cli_err("GET /api/lfts: expected an entry '0xLID PORT # ...', found '%.80s'", line);
			goto out;
		}
	}
	if (!closed) {
		cli_err("GET /api/lfts: the block of switch 0x%016" PRIx64 " has no 'N lids dumped' line", guid);
		goto out;
	}
	printf("%u valid lids dumped \n", st.printed);
	rc = CLI_OK;
out:
	free(m.base);
	free(m.lmc);
	return rc;
}

/* --- ibtracert -------------------------------------------------------------- */

/* The nodes of a path, asked once each (GET /api/nodes/GUID). */
struct node_cache {
	json_t **nodes;
	size_t n;
	long long seq;		/* the epoch of the route */
};

static const json_t *node_get(struct client *c, struct node_cache *nc, const char *guid, int *rc)
{
	struct client_resp r = { 0 };
	json_t **grown;
	char *path;

	for (size_t i = 0; i < nc->n; i++)
		if (!strcmp(client_str(nc->nodes[i], "guid", ""), guid))
			return nc->nodes[i];
	path = malloc(strlen(guid) + 16);
	grown = realloc(nc->nodes, (nc->n + 1) * sizeof(*grown));
	if (!path || !grown) {
		free(path);
		cli_err("out of memory asking for node %s", guid);
		*rc = CLI_FAIL;
		return NULL;
	}
	nc->nodes = grown;
	sprintf(path, "/api/nodes/%s", guid);
	*rc = client_get(c, path, 0, &r);
	free(path);
	if (*rc == CLI_OK && client_int(json_object_get(r.json, "epoch"), "seq") != nc->seq) {
		cli_err("the routing changed while the path was traced (epoch %lld, then %lld); run again",
			nc->seq, client_int(json_object_get(r.json, "epoch"), "seq"));
		*rc = CLI_FAIL;
	}
	if (*rc != CLI_OK) {
		client_resp_free(&r);
		return NULL;
	}
	nc->nodes[nc->n++] = json_incref(r.json);
	client_resp_free(&r);
	return nc->nodes[nc->n - 1];
}

/* Port @port of @node ({"port", "guid", "lid", "lmc", ...}), NULL when it has none. */
static const json_t *port_of(const json_t *node, long long port)
{
	size_t i;
	json_t *p;

	json_array_foreach(json_object_get(node, "ports"), i, p)
		if (client_int(p, "port") == port)
			return p;
	return NULL;
}

/* ibtracert's name of a node type. */
static const char *type_str(const json_t *node)
{
	const char *t = client_str(node, "type", "");

	return !strcmp(t, "CA") ? "ca" : !strcmp(t, "SW") ? "switch" : !strcmp(t, "RT") ? "router" : "???";
}

/* The port a switch is described by: port 0 (its LID); for others, @port. */
static const json_t *lid_port(const json_t *node, long long port)
{
	return port_of(node, strcmp(client_str(node, "type", ""), "SW") ? port : 0);
}

/* "lid 5-5 \"node-00\"": @node's LID range at @port and its description. */
static void print_lids(const json_t *node, long long port)
{
	const json_t *p = lid_port(node, port);
	long long lid = client_int(p, "lid"), lmc = client_int(p, "lmc");

	printf("lid %lld-%lld \"%s\"\n", lid, lid + (1LL << (lmc & 7)) - 1, client_str(node, "node", ""));
}

/* "From ca {GUID} portnum 1 lid 5-5 \"node-00\"" (or To). */
static void print_end(const char *prompt, const json_t *node, long long port)
{
	int sw = !strcmp(client_str(node, "type", ""), "SW");

	printf("%s %s {%s} portnum %lld ", prompt, type_str(node), client_str(node, "guid", "?"), sw ? 0 : port);
	print_lids(node, port);
}

/* "[OUT] -> switch port {GUID}[IN] lid 1-1 \"leaf-00\"". */
static void print_hop(long long out, const json_t *node, long long in)
{
	const json_t *p = port_of(node, in);

	printf("[%lld] -> %s port {%s}[%lld] ", out, type_str(node), client_str(p, "guid", "?"), in);
	print_lids(node, in);
}

/* The hops of @route, each with its node; the source switch is left out. */
static int tracert_hops(struct client *c, struct node_cache *nc, const json_t *route, const json_t *src,
			long long *out)
{
	const json_t *hops = json_object_get(route, "hops");
	int delivered = client_bool(route, "delivered"), rc = CLI_OK;
	const char *failure = client_str(route, "failure", "");
	size_t n = json_array_size(hops);

	for (size_t i = 0; i < n && rc == CLI_OK; i++) {
		const json_t *h = json_array_get(hops, i), *node;

		/* a switch whose table fails the DLID is where ibtracert stops, unprinted */
		if (i == n - 1 && !delivered && (!strcmp(failure, "no-entry") || !strcmp(failure, "link-down")))
			break;
		if (i == 0 && client_int(h, "in_port") == 0 && !strcmp(client_str(src, "type", ""), "SW")) {
			*out = client_int(h, "out_port");
			continue;
		}
		node = node_get(c, nc, client_str(h, "guid", ""), &rc);
		if (node)
			print_hop(*out, node, client_int(h, "in_port"));
		*out = client_int(h, "out_port");
	}
	return rc;
}

int ibfmt_route(struct client *c, const json_t *route)
{
	const json_t *src = json_object_get(route, "src"), *dst = json_object_get(route, "dst");
	const json_t *hops = json_object_get(route, "hops"), *sn, *dn = NULL;
	struct node_cache nc = { .seq = client_int(json_object_get(route, "epoch"), "seq") };
	long long out = client_int(src, "port");
	int rc = CLI_OK;

	sn = node_get(c, &nc, client_str(src, "guid", ""), &rc);
	if (sn)
		dn = node_get(c, &nc, client_str(dst, "guid", ""), &rc);
	if (dn) {
		print_end("From", sn, client_int(src, "port"));
		rc = tracert_hops(c, &nc, route, src, &out);
	}
	if (rc == CLI_OK && client_bool(route, "delivered")) {
		if (strcmp(client_str(dst, "type", ""), "SW"))
			print_hop(out, dn, client_int(dst, "port"));
		print_end("To", dn, client_int(dst, "port"));
	} else if (rc == CLI_OK) {
		const json_t *last = json_array_get(hops, json_array_size(hops) - 1);

		cli_err("no route from %s to %s: %s at switch '%s' (DLID %lld)", client_str(src, "node", "?"),
			client_str(dst, "node", "?"), client_str(route, "failure", "?"),
			client_str(last, "node", "?"), client_int(route, "dlid"));
		rc = CLIENT_EXIT_NOT_OK;
	}
	for (size_t i = 0; i < nc.n; i++)
		json_decref(nc.nodes[i]);
	free(nc.nodes);
	return rc;
}
