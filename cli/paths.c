/* SPDX-License-Identifier: MIT */
/**
 * DOC: path files in the commands
 *
 * `fabroute compute` writes, for the engines that plan paths (pathsel,
 * swidest, rename, explicit), the file "paths": every machine pair's path
 * as the tables route it, with the DLID the pair uses, one line per pair
 * (formats/fmt_paths.c). `fabroute eval --paths FILE` checks such a file
 * against tables: every listed path must be followed hop by hop with its
 * DLID and delivered to its destination port.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "cli/paths.h"
#include "engines/lidassign/lidassign.h"

/* The hops of @p as path-file hops into @h (room for @cap). Return: the count. */
static size_t to_hops(const struct an_path *p, struct fmt_hop *h, size_t cap)
{
	size_t n = 0;

	for (uint32_t i = 0; i < p->nhops && n < cap; i++)
		h[n++] = (struct fmt_hop){ p->hops[i].node, p->hops[i].out_port };
	return n;
}

int paths_write_routed(const char *path, const struct fabric *f, const struct rt_routing *r)
{
	FILE *fp = fopen(path, "w");
	struct fmt_paths one = { 0 };
	struct fmt_hop *h = malloc(((size_t)f->nswitches + 1) * sizeof(*h));
	struct an_path p = { 0 };
	int rc = 0;

	if (!fp || !h) {
		cli_err("%s: cannot create: %s", path, fp ? "out of memory" : strerror(errno));
		if (fp)
			fclose(fp);
		free(h);
		return CLI_FAIL;
	}
	for (uint32_t s = 0; s < f->neps && !rc; s++)
		for (uint32_t d = 0; d < f->neps && !rc; d++) {
			unsigned dlid = rt_dlid(r, f, s, d);

			if (s == d || f->nodes[f->eps[s].node].type == FAB_SWITCH ||
			    f->nodes[f->eps[d].node].type == FAB_SWITCH)
				continue;
			rc = an_trace(f, r, s, dlid, rt_path_sl(r, s, d), &p);
			if (!rc && p.fail == AN_DELIVERED) {	/* not routed: nothing to list */
				one.n = one.nhops = 0;
				rc = fmt_paths_add(&one, s, d, dlid, h, to_hops(&p, h, f->nswitches));
				rc = rc ? rc : fmt_paths_write(fp, f, &one);
			}
			an_path_free(&p);	/* an_trace() starts a new path each time */
		}
	fmt_paths_free(&one);
	free(h);
	if (fclose(fp) || rc) {
		cli_err("%s: write error: %s", path, strerror(errno ? errno : EIO));
		return CLI_FAIL;
	}
	return CLI_OK;
}

int paths_compute_file(const char *dir, const struct engine *used, const struct fabric *f,
		       const struct rt_routing *r, int *written)
{
	char path[4096];
	int rc;

	*written = 0;
	if (!la_engine_plans_paths(used))
		return CLI_OK;
	snprintf(path, sizeof(path), "%s/paths", dir);
	rc = paths_write_routed(path, f, r);
	*written = rc == CLI_OK;
	return rc;
}

int paths_apply_dlids(const struct fabric *f, struct rt_routing *r, const struct fmt_paths *ps)
{
	size_t n = (size_t)f->neps * f->neps;
	uint8_t *seen = calloc(n / 8 + 1, 1);

	if (!seen || (!r->dlid_off && !(r->dlid_off = calloc(n + 1, 1)))) {
		free(seen);
		cli_err("out of memory");
		return CLI_FAIL;
	}
	for (size_t i = 0; i < ps->n; i++) {
		size_t pair = (size_t)ps->src[i] * f->neps + ps->dst[i];
		unsigned base = fab_ep_lid(f, ps->dst[i]), size = 1u << fab_ep_lmc(f, ps->dst[i]);

		if (seen[pair / 8] >> (pair % 8) & 1)
			continue;
		seen[pair / 8] |= (uint8_t)(1u << (pair % 8));
		if (base && ps->dlid[i] >= base && ps->dlid[i] < base + size)
			r->dlid_off[pair] = (uint8_t)(ps->dlid[i] - base);
	}
	free(seen);
	return CLI_OK;
}

/* Does @p follow hops @h (@n of them) and end at @dst? */
static int same_walk(const struct fabric *f, const struct an_path *p, const struct fmt_hop *h,
		     size_t n, uint32_t dst)
{
	if (p->fail != AN_DELIVERED || p->nhops != n || p->dst_node != f->eps[dst].node ||
	    p->dst_port != f->eps[dst].port)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (p->hops[i].node != h[i].node || p->hops[i].out_port != h[i].port)
			return 0;
	return 1;
}

/* Where the walk leaves the listed path, for the report. */
static void divergence(const struct fabric *f, const struct an_path *p, const struct fmt_hop *h,
		       size_t n, char *buf, size_t len)
{
	size_t i = 0;

	while (i < n && i < p->nhops && p->hops[i].node == h[i].node &&
	       p->hops[i].out_port == h[i].port)
		i++;
	if (i < n && i < p->nhops)
		snprintf(buf, len, "hop %zu: '%s' sends it out by port %u, the path says %u", i + 1,
			 FAB_LABEL(f, h[i].node), p->hops[i].out_port, h[i].port);
	else if (p->fail != AN_DELIVERED)
		snprintf(buf, len, "%s after %u hops", an_fail_name(p->fail), p->nhops);
	else
		snprintf(buf, len, "delivered to '%s' port %u after %u hops, the path has %zu",
			 p->dst_node == FAB_NONE ? "?" : FAB_LABEL(f, p->dst_node), p->dst_port,
			 p->nhops, n);
}

int paths_check(const struct fabric *f, const struct rt_routing *r, const struct fmt_paths *ps,
		const char *name, struct paths_report *rep)
{
	struct an_path p = { 0 };

	memset(rep, 0, sizeof(*rep));
	for (size_t i = 0; i < ps->n; i++) {
		const struct fmt_hop *h = ps->hop + ps->off[i];
		size_t n = ps->off[i + 1] - ps->off[i];

		if (an_trace(f, r, ps->src[i], ps->dlid[i], rt_path_sl(r, ps->src[i], ps->dst[i]), &p)) {
			an_path_free(&p);
			cli_err("out of memory");
			return CLI_FAIL;
		}
		rep->checked++;
		if (same_walk(f, &p, h, n, ps->dst[i])) {
			rep->followed++;
		} else if (rep->nex < PATHS_EXAMPLES) {
			char why[256];

			divergence(f, &p, h, n, why, sizeof(why));
			snprintf(rep->ex[rep->nex++], sizeof(rep->ex[0]), "%s:%u: DLID %u from '%s' "
				 "to '%s': %s", name, ps->line[i], ps->dlid[i],
				 FAB_LABEL(f, f->eps[ps->src[i]].node),
				 FAB_LABEL(f, f->eps[ps->dst[i]].node), why);
		}
		an_path_free(&p);	/* an_trace() starts a new path each time */
	}
	return CLI_OK;
}
