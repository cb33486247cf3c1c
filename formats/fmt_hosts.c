/* SPDX-License-Identifier: MIT */
/**
 * DOC: hosts and the DLIDs their routing plans
 *
 * A host is a name: the first word of a CA's node description (rdma-ndd
 * sets "hostname device"; a node-name-map's name once applied), without a
 * domain (cut at the first '.'), characters other than letters, digits,
 * '-' and '_' made '_' (what Slurm and a shell case pattern take). CA
 * ports whose nodes have one name are one host's ports; a CA without a
 * name is "ca-" and its node GUID. Hosts come in natural order of their
 * names (node2 before node10), ports by GUID.
 *
 * What a host needs from the routing is, per port, which of a destination's
 * LIDs to send to (the DLID plan, formats/fmt_dlids.c). UCX takes path bits
 * as UCX_IB_LID_PATH_BITS: with one value, every connection of the process
 * goes to the destination's base LID | those bits and comes from its own
 * base LID | the same bits, and UCX drops values of 2^LMC of its own port
 * or more. A port's path bits are the value below 2^LMC with which that
 * rule gives the most CA destinations their planned DLID; the others are
 * listed with their DLIDs. Where every CA port has one LMC (opt, smodk),
 * base | bits is base + bits and the path bits are the plan's offset for
 * the source. The writers give that to a job as a UCX
 * configuration file (--format ucx), a shell fragment that exports it on
 * whichever host sources it (env), a table (text) or everything (json,
 * with the other destinations' DLIDs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"

#define UCX_VAR "UCX_IB_LID_PATH_BITS"

static int is_host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

void fmt_host_name(const struct fabric *f, uint32_t node, char *buf, size_t size)
{
	const char *s = fab_desc(f, node);
	size_t n = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	for (; *s && *s != ' ' && *s != '\t' && *s != '.' && n + 1 < size; s++)
		buf[n++] = is_host_char(*s) ? *s : '_';
	buf[n] = '\0';
	if (!n)
		snprintf(buf, size, "ca-%016" PRIx64, f->nodes[node].guid);
}

struct host_ep {
	char name[FAB_DESC_MAX + 24];
	uint64_t guid;
	uint32_t ep;
};

static int cmp_host_ep(const void *a, const void *b)
{
	const struct host_ep *x = a, *y = b;
	int c = strverscmp(x->name, y->name);

	return c ? c : x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* Every linked CA port, named and sorted; NULL when out of memory. */
static struct host_ep *host_eps(const struct fabric *f, uint32_t *n)
{
	struct host_ep *v = malloc(((size_t)f->neps + 1) * sizeof(*v));

	*n = 0;
	for (uint32_t e = 0; v && e < f->neps; e++) {
		uint32_t node = f->eps[e].node;

		if (f->nodes[node].type != FAB_CA)
			continue;
		fmt_host_name(f, node, v[*n].name, sizeof(v[*n].name));
		v[*n].guid = fab_port(f, node, f->eps[e].port)->guid;
		v[(*n)++].ep = e;
	}
	if (v)
		qsort(v, *n, sizeof(*v), cmp_host_ep);
	return v;
}

int fmt_hosts_build(const struct fabric *f, struct fmt_hosts *h, struct fab_err *err)
{
	uint32_t n;
	struct host_ep *v = host_eps(f, &n);

	memset(h, 0, sizeof(*h));
	h->name = calloc((size_t)n + 1, sizeof(*h->name));
	h->off = calloc((size_t)n + 2, sizeof(*h->off));
	h->ep = calloc((size_t)n + 1, sizeof(*h->ep));
	if (!v || !h->name || !h->off || !h->ep)
		goto oom;
	for (uint32_t i = 0; i < n; i++) {
		if (!i || strcmp(v[i].name, v[i - 1].name)) {
			if (!(h->name[h->n] = strdup(v[i].name)))
				goto oom;
			h->off[h->n++] = i;
		}
		h->ep[i] = v[i].ep;
	}
	h->off[h->n] = n;
	free(v);
	return 0;
oom:
	free(v);
	fmt_hosts_free(h);
	fab_err_set(err, "out of memory");
	return -1;
}

void fmt_hosts_free(struct fmt_hosts *h)
{
	for (uint32_t i = 0; h->name && i < h->n; i++)
		free(h->name[i]);
	free(h->name);
	free(h->off);
	free(h->ep);
	memset(h, 0, sizeof(*h));
}

uint32_t fmt_hosts_find(const struct fmt_hosts *h, const char *name)
{
	for (uint32_t i = 0; i < h->n; i++)
		if (!strcmp(h->name[i], name))
			return i;
	return FAB_NONE;
}

int fmt_hosts_format_from_name(const char *name)
{
	static const char *const names[] = { "text", "ucx", "env", "json" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

/* --- one port's plan ------------------------------------------------------- */

struct port_plan {
	uint32_t ep;
	uint64_t guid;
	unsigned lid, lmc, bits;
	uint32_t others;	/* destinations at another DLID than base + bits */
};

/* A destination of @src's MPI traffic: another CA port with a LID. */
static int ca_dest(const struct fabric *f, uint32_t src, uint32_t d)
{
	return d != src && fab_ep_lid(f, d) && f->nodes[f->eps[d].node].type != FAB_SWITCH;
}

/* Whether UCX with path bits @v sends from @src to CA @d at the planned DLID. */
static int ucx_follows(const struct fabric *f, const struct rt_routing *r, uint32_t src,
		       uint32_t d, unsigned v)
{
	return (fab_ep_lid(f, d) | v) == rt_dlid(r, f, src, d);
}

static void port_plan(const struct fabric *f, const struct rt_routing *r, uint32_t e,
		      struct port_plan *p)
{
	uint32_t hits[1u << FAB_LMC_MAX] = { 0 }, n = 0;
	unsigned nv = 1u << fab_ep_lmc(f, e);

	p->ep = e;
	p->guid = fab_port(f, f->eps[e].node, f->eps[e].port)->guid;
	p->lid = fab_ep_lid(f, e);
	p->lmc = fab_ep_lmc(f, e);
	p->bits = 0;
	for (uint32_t d = 0; d < f->neps; d++) {
		if (!ca_dest(f, e, d))
			continue;
		n++;
		for (unsigned v = 0; v < nv; v++)
			hits[v] += (uint32_t)ucx_follows(f, r, e, d, v);
	}
	for (unsigned v = 1; v < nv; v++)
		if (hits[v] > hits[p->bits])
			p->bits = v;
	p->others = n - hits[p->bits];
}

/* The path bits UCX gets for host @h: its first port's; *@differ when another port's differ. */
static unsigned host_bits(const struct fabric *f, const struct rt_routing *r,
			  const struct fmt_hosts *hs, uint32_t h, int *differ, uint32_t *others)
{
	struct port_plan p, q;

	port_plan(f, r, hs->ep[hs->off[h]], &p);
	*differ = 0;
	*others = p.others;
	for (uint32_t i = hs->off[h] + 1; i < hs->off[h + 1]; i++) {
		port_plan(f, r, hs->ep[i], &q);
		*differ |= q.bits != p.bits;
		*others += q.others;
	}
	return p.bits;
}

/* --- writers ----------------------------------------------------------------- */

static void write_text(FILE *out, const struct fabric *f, const struct rt_routing *r,
		       const struct fmt_hosts *hs, uint32_t h)
{
	for (uint32_t i = hs->off[h]; i < hs->off[h + 1]; i++) {
		struct port_plan p;

		port_plan(f, r, hs->ep[i], &p);
		fprintf(out, "%-20s 0x%016" PRIx64 "  0x%04x  %3u  %9u  %11u\n", hs->name[h], p.guid,
			p.lid, p.lmc, p.bits, p.others);
	}
}

static void write_ucx(FILE *out, const struct fabric *f, const struct rt_routing *r,
		      const struct fmt_hosts *hs, uint32_t h)
{
	uint32_t others;
	int differ;
	unsigned bits = host_bits(f, r, hs, h, &differ, &others);

	fprintf(out, "# host %s\n", hs->name[h]);
	for (uint32_t i = hs->off[h]; i < hs->off[h + 1]; i++) {
		struct port_plan p;

		port_plan(f, r, hs->ep[i], &p);
		fprintf(out, "# port 0x%016" PRIx64 " (%s, LID 0x%04x, LMC %u): every CA at its base "
			"LID | %u", p.guid, fab_desc(f, f->eps[p.ep].node), p.lid, p.lmc, p.bits);
		if (p.others)
			fprintf(out, ", but %u CAs at other DLIDs (--format json names them)", p.others);
		fputc('\n', out);
	}
	if (differ)
		fprintf(out, "# the ports plan different path bits; UCX takes one value per process: "
			"the first port's\n");
	fprintf(out, UCX_VAR "=%u\n", bits);
}

/* The env fragment: hosts grouped by their path bits, one case branch per value. */
static int write_env(FILE *out, const struct fabric *f, const struct rt_routing *r,
		     const struct fmt_hosts *hs, uint32_t only)
{
	uint32_t first = only == FAB_NONE ? 0 : only, last = only == FAB_NONE ? hs->n : only + 1;
	uint8_t *bits = malloc((size_t)hs->n + 1);

	if (!bits) {
		errno = ENOMEM;
		return -1;
	}
	for (uint32_t h = first; h < last; h++) {
		uint32_t others;
		int differ;

		bits[h] = (uint8_t)host_bits(f, r, hs, h, &differ, &others);
	}
	fputs("# fabroute: the UCX path bits the routing plans for each host. Source this file on\n"
	      "# every host of a job (a job prolog, a module, a wrapper around the MPI program):\n"
	      "# it exports " UCX_VAR " for the host it runs on (hostname -s).\n"
	      "case \"$(hostname -s)\" in\n", out);
	for (unsigned v = 0; v < (1u << FAB_LMC_MAX); v++) {
		int any = 0;

		for (uint32_t h = first; h < last; h++) {
			if (bits[h] != v)
				continue;
			fprintf(out, "%s%s", any ? "|" : "", hs->name[h]);
			any = 1;
		}
		if (any)
			fprintf(out, ") export " UCX_VAR "=%u ;;\n", v);
	}
	fputs("esac\n", out);
	free(bits);
	return 0;
}

int fmt_hosts_write(FILE *out, const struct fabric *f, const struct rt_routing *r,
		    const struct fmt_hosts *hs, uint32_t only, enum fmt_hosts_fmt fmt)
{
	uint32_t first = only == FAB_NONE ? 0 : only, last = only == FAB_NONE ? hs->n : only + 1;

	if (fmt == FMT_HOSTS_ENV) {
		if (write_env(out, f, r, hs, only))
			return -1;
	} else if (fmt == FMT_HOSTS_TEXT) {
		fprintf(out, "%-20s %-18s  %-6s  %3s  %9s  %11s\n", "HOST", "PORT GUID", "LID", "LMC",
			"PATH BITS", "OTHER DLIDS");
		for (uint32_t h = first; h < last; h++)
			write_text(out, f, r, hs, h);
	} else if (fmt == FMT_HOSTS_UCX) {
		fputs("# fabroute: UCX configuration (ucx.conf) of the DLIDs the routing plans, per host\n",
		      out);
		for (uint32_t h = first; h < last; h++)
			write_ucx(out, f, r, hs, h);
	} else {
		json_t *j = fmt_hosts_json(f, r, hs, only);
		int rc = !j || json_dumpf(j, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		json_decref(j);
		fputc('\n', out);
		if (rc)
			return -1;
	}
	return fflush(out) || ferror(out) ? -1 : 0;
}

/* --- JSON ------------------------------------------------------------------------ */

static json_t *guid_json(uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, g);
	return json_string(buf);
}

/* The CA destinations port @p plans at another DLID than base | bits: {GUID: DLID}. */
static json_t *others_json(const struct fabric *f, const struct rt_routing *r,
			   const struct port_plan *p)
{
	json_t *o = json_object();

	for (uint32_t d = 0; p->others && d < f->neps; d++) {
		char key[24];

		if (!ca_dest(f, p->ep, d) || ucx_follows(f, r, p->ep, d, p->bits))
			continue;
		snprintf(key, sizeof(key), "0x%016" PRIx64, fab_port(f, f->eps[d].node, f->eps[d].port)->guid);
		json_object_set_new(o, key, json_integer(rt_dlid(r, f, p->ep, d)));
	}
	return o;
}

/* The switch and port a CA port is cabled to. */
static json_t *leaf_json(const struct fabric *f, uint32_t e)
{
	const struct fab_port *p = fab_port(f, f->eps[e].node, f->eps[e].port);

	return json_pack("{s:s, s:o, s:i}", "node", fab_desc(f, p->peer), "guid",
			 guid_json(f->nodes[p->peer].guid), "port", (int)p->peer_port);
}

static json_t *host_json(const struct fabric *f, const struct rt_routing *r,
			 const struct fmt_hosts *hs, uint32_t h)
{
	json_t *ports = json_array();
	uint32_t others;
	int differ;
	unsigned bits = host_bits(f, r, hs, h, &differ, &others);
	char val[8];

	for (uint32_t i = hs->off[h]; i < hs->off[h + 1]; i++) {
		struct port_plan p;

		port_plan(f, r, hs->ep[i], &p);
		json_array_append_new(ports, json_pack("{s:s, s:o, s:i, s:i, s:i, s:o, s:i, s:o}",
			"node", fab_desc(f, f->eps[p.ep].node), "guid", guid_json(p.guid),
			"port", (int)f->eps[p.ep].port, "lid", (int)p.lid, "lmc", (int)p.lmc,
			"leaf", leaf_json(f, p.ep), "path_bits", (int)p.bits,
			"other_dlids", others_json(f, r, &p)));
	}
	snprintf(val, sizeof(val), "%u", bits);
	return json_pack("{s:s, s:o, s:{s:s}, s:b, s:I}", "host", hs->name[h], "ports", ports,
			 "ucx", UCX_VAR, val, "ports_differ", differ,
			 "other_dlids", (json_int_t)others);
}

json_t *fmt_hosts_json(const struct fabric *f, const struct rt_routing *r,
		       const struct fmt_hosts *hs, uint32_t only)
{
	json_t *arr = json_array();

	if (only != FAB_NONE)
		return host_json(f, r, hs, only);
	for (uint32_t h = 0; arr && h < hs->n; h++)
		json_array_append_new(arr, host_json(f, r, hs, h));
	return json_pack("{s:I, s:o}", "count", (json_int_t)hs->n, "hosts", arr);
}
