/* SPDX-License-Identifier: MIT */
/**
 * DOC: Slurm's topology.conf
 *
 * What Slurm's topology plugins place jobs by, from the fabric:
 *
 *  - topology/tree: one line per switch, by level from the leaves up. A
 *    leaf (a switch with hosts, fab_shape()'s level 1) lists its hosts,
 *    "SwitchName=leaf-00 Nodes=node-[000-017]"; a switch of level k > 1
 *    the switches of level k - 1 it is cabled to, "SwitchName=spine-00
 *    Switches=leaf-[00-35]". A host with ports on several leaves is listed
 *    under the leaf of its first port (by GUID), with a comment. Only trees
 *    (every switch link between adjacent levels or within one) have this
 *    form;
 *  - topology/block (Slurm 23.11 and later): one block per dragonfly group
 *    with the hosts of its switches, "BlockName=group-0 Nodes=...", then
 *    BlockSizes: the smallest block's host count, doubled while the blocks
 *    can make it (Slurm wants each size a power of two times the first,
 *    and every block at least the first). The groups come from a groups
 *    file, else they are found (fab_dfly_find(), then fab_shape()).
 *
 * Host names are fmt_host_name()'s, switch names their descriptions (a
 * node-name-map's names once applied), with characters other than letters, digits, '.', '-'
 * and '_' made '_' (Slurm parses the lists as hostlist expressions); a
 * switch with no name left, or one another switch has, is "sw-" and its
 * GUID. Lists are written as hostlist expressions: "node-[000-017,020]".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/dfly.h"
#include "formats/formats.h"

/* Slurm's longest switch name. */
#define SW_NAME_MAX 64

/* --- hostlist expressions ------------------------------------------------------ */

/* The length of @s without its trailing digits. */
static size_t stem_len(const char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] >= '0' && s[n - 1] <= '9')
		n--;
	return n;
}

static int cmp_name(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/*
 * @names (@n of them, sorted naturally) as a hostlist expression: names
 * with one stem and as many digits after it share brackets, runs of
 * consecutive numbers become ranges.
 */
static void write_hostlist(FILE *out, char **names, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t st = stem_len(names[i]), w = strlen(names[i]) - st, j = i + 1;

		while (j < n && stem_len(names[j]) == st && strlen(names[j]) - st == w && w && w <= 9 &&
		       !strncmp(names[j], names[i], st))
			j++;
		fprintf(out, "%s", i ? "," : "");
		if (j == i + 1) {
			fputs(names[i], out);
			i = j;
			continue;
		}
		fprintf(out, "%.*s[", (int)st, names[i]);
		for (size_t k = i; k < j;) {
			unsigned long a = strtoul(names[k] + st, NULL, 10), b = a;
			size_t l = k + 1;

			while (l < j && strtoul(names[l] + st, NULL, 10) == b + 1)
				b = strtoul(names[l++] + st, NULL, 10);
			fprintf(out, "%s%.*s", k > i ? "," : "", (int)w, names[k] + st);
			if (l > k + 1)
				fprintf(out, "-%.*s", (int)w, names[l - 1] + st);
			k = l;
		}
		fputc(']', out);
		i = j;
	}
}

/* --- names ------------------------------------------------------------------------- */

/* Every switch's name (@sw_names[s], malloc'd): unique, hostlist-safe. 0 or -1 (out of memory). */
static int switch_names(const struct fabric *f, char **names)
{
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s];
		const char *src = fab_desc(f, node);
		char buf[SW_NAME_MAX + 1];
		size_t n = 0;

		for (; *src && n < SW_NAME_MAX; src++) {
			char c = *src;

			buf[n++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
				   c == '-' || c == '_' || c == '.' ? c : '_';
		}
		buf[n] = '\0';
		for (uint32_t t = 0; t < s && n; t++)
			if (!strcmp(names[t], buf))
				n = 0;
		if (!n)
			snprintf(buf, sizeof(buf), "sw-%016" PRIx64, f->nodes[node].guid);
		if (!(names[s] = strdup(buf)))
			return -1;
	}
	return 0;
}

/* The switch index host @h hangs from: its first port's peer (FAB_NONE when not a switch). */
static uint32_t host_switch(const struct fabric *f, const struct fmt_hosts *hs, uint32_t h,
			    int *several)
{
	uint32_t first = FAB_NONE;

	*several = 0;
	for (uint32_t i = hs->off[h]; i < hs->off[h + 1]; i++) {
		const struct fab_ep *e = &f->eps[hs->ep[i]];
		uint32_t peer = fab_port(f, e->node, e->port)->peer, sw;

		if (peer == FAB_NONE || f->nodes[peer].type != FAB_SWITCH)
			continue;
		sw = f->nodes[peer].swidx;
		if (first == FAB_NONE)
			first = sw;
		else if (sw != first)
			*several = 1;
	}
	return first;
}

/* --- the writer's state ------------------------------------------------------------ */

struct slurm {
	const struct fabric *f;
	const struct fmt_hosts *hs;
	char **sw_name;		/* per switch */
	uint32_t *home;		/* per host: its switch (or group, for blocks) */
	char **list;		/* scratch: names of one line */
	uint8_t *written;	/* per switch: its line is written (tree) */
};

static void slurm_free(struct slurm *x)
{
	for (uint32_t s = 0; x->sw_name && s < x->f->nswitches; s++)
		free(x->sw_name[s]);
	free(x->sw_name);
	free(x->home);
	free(x->list);
	free(x->written);
}

static int slurm_init(struct slurm *x, const struct fabric *f, const struct fmt_hosts *hs,
		      struct fab_err *err)
{
	size_t most = (size_t)(hs->n > f->nswitches ? hs->n : f->nswitches) + 1;

	*x = (struct slurm){ .f = f, .hs = hs };
	x->sw_name = calloc((size_t)f->nswitches + 1, sizeof(*x->sw_name));
	x->home = calloc((size_t)hs->n + 1, sizeof(*x->home));
	x->list = calloc(most, sizeof(*x->list));
	x->written = calloc((size_t)f->nswitches + 1, 1);
	if (!x->sw_name || !x->home || !x->list || !x->written || switch_names(f, x->sw_name)) {
		slurm_free(x);
		fab_err_set(err, "out of memory");
		return -1;
	}
	return 0;
}

/* Host homes: their first port's switch; comments for hosts on several switches. */
static void place_hosts(FILE *out, struct slurm *x)
{
	for (uint32_t h = 0; h < x->hs->n; h++) {
		int several;

		x->home[h] = host_switch(x->f, x->hs, h, &several);
		if (several)
			fprintf(out, "# host %s has ports on several switches: listed under %s, its "
				"first port's\n", x->hs->name[h], x->sw_name[x->home[h]]);
	}
}

/* --- topology/tree ------------------------------------------------------------------ */

/* The line of leaf @s: its hosts. 1 when written. */
static int tree_leaf(FILE *out, struct slurm *x, uint32_t s)
{
	size_t n = 0;

	for (uint32_t h = 0; h < x->hs->n; h++)
		if (x->home[h] == s)
			x->list[n++] = x->hs->name[h];
	if (!n)
		return 0;
	fprintf(out, "SwitchName=%s Nodes=", x->sw_name[s]);
	write_hostlist(out, x->list, n);	/* hosts come sorted */
	fputc('\n', out);
	return 1;
}

/* The line of switch @s at level @lv > 1: the written switches of level lv - 1 it links to. */
static int tree_inner(FILE *out, struct slurm *x, const struct fab_shape *sh, uint32_t s)
{
	const struct fabric *f = x->f;
	uint32_t node = f->switches[s];
	size_t n = 0;

	for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
		uint32_t t = fab_sw_peer(f, s, p);
		int dup = 0;

		if (t == FAB_NONE || sh->level[t] + 1 != sh->level[s] || !x->written[t])
			continue;
		for (size_t k = 0; k < n && !dup; k++)
			dup = x->list[k] == x->sw_name[t];
		if (!dup)
			x->list[n++] = x->sw_name[t];
	}
	if (!n)
		return 0;
	qsort(x->list, n, sizeof(*x->list), cmp_name);
	fprintf(out, "SwitchName=%s Switches=", x->sw_name[s]);
	write_hostlist(out, x->list, n);
	fputc('\n', out);
	return 1;
}

static int write_tree(FILE *out, struct slurm *x, struct fab_err *err)
{
	const struct fabric *f = x->f;
	struct fab_shape sh;

	if (fab_shape(f, &sh, err))
		return -1;
	if (!sh.is_tree && !(f->nswitches == 1 && sh.nlevels == 1)) {
		fab_err_set(err, "not a tree: %s; Slurm's topology/tree needs switches by level "
			    "(a dragonfly: use the block form)", sh.ngroups ?
			    "the switches form dragonfly groups" : "some switch link skips a level");
		fab_shape_free(&sh);
		return -1;
	}
	fprintf(out, "# Slurm topology.conf (TopologyPlugin=topology/tree), written by fabroute: "
		"%u switches in %u levels, %u hosts\n", f->nswitches, sh.nlevels, x->hs->n);
	place_hosts(out, x);
	for (uint32_t lv = 1; lv <= sh.nlevels; lv++)
		for (uint32_t s = 0; s < f->nswitches; s++)
			if (sh.level[s] == lv)
				x->written[s] = (uint8_t)(lv == 1 ? tree_leaf(out, x, s) :
							  tree_inner(out, x, &sh, s));
	fab_shape_free(&sh);
	return 0;
}

/* --- topology/block ------------------------------------------------------------------ */

/* Per switch its group: from @groups (a groups file), else found. 0, or -1 with @err. */
static int block_groups(const struct fabric *f, const char *groups, size_t glen, const char *gname,
			uint32_t *group, uint32_t *ngroups, struct fab_err *err)
{
	struct fab_dfly d;
	struct fab_shape sh;
	char why[sizeof(err->msg)];
	int rc;

	*ngroups = 0;
	if (groups) {
		if (fmt_groups_read(f, groups, glen, gname, group, err))
			return -1;
		for (uint32_t s = 0; s < f->nswitches; s++)
			*ngroups = group[s] + 1 > *ngroups ? group[s] + 1 : *ngroups;
		return 0;
	}
	if ((rc = fab_dfly_find(f, NULL, &d, err)) < 0)
		return -1;
	if (rc)
		snprintf(why, sizeof(why), "%s", err->msg);
	if (rc == 0) {
		memcpy(group, d.group, (size_t)f->nswitches * sizeof(*group));
		*ngroups = d.ngroups;
		fab_dfly_free(&d);
		return 0;
	}
	if (fab_shape(f, &sh, err))
		return -1;
	if (sh.ngroups) {
		memcpy(group, sh.group, (size_t)f->nswitches * sizeof(*group));
		*ngroups = sh.ngroups;
	} else {
		fab_err_set(err, "no dragonfly groups found (%s); name them with a groups file", why);
	}
	fab_shape_free(&sh);
	return *ngroups ? 0 : -1;
}

/* BlockName lines; *@base gets the smallest block's host count, *@nblocks the blocks written. */
static void block_lines(FILE *out, struct slurm *x, const uint32_t *group, uint32_t ngroups,
			size_t *base, uint32_t *nblocks)
{
	*base = 0;
	*nblocks = 0;
	for (uint32_t g = 0; g < ngroups; g++) {
		size_t n = 0;

		for (uint32_t h = 0; h < x->hs->n; h++)
			if (x->home[h] != FAB_NONE && group[x->home[h]] == g)
				x->list[n++] = x->hs->name[h];
		if (!n)
			continue;	/* Slurm refuses a block without nodes */
		fprintf(out, "BlockName=group-%u Nodes=", g);
		write_hostlist(out, x->list, n);
		fputc('\n', out);
		*base = !*base || n < *base ? n : *base;
		(*nblocks)++;
	}
}

static int write_block(FILE *out, struct slurm *x, const char *groups, size_t glen,
		       const char *gname, struct fab_err *err)
{
	uint32_t *group = calloc((size_t)x->f->nswitches + 1, sizeof(*group)), ngroups, nblocks;
	size_t base;

	if (!group) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	if (block_groups(x->f, groups, glen, gname, group, &ngroups, err)) {
		free(group);
		return -1;
	}
	fprintf(out, "# Slurm topology.conf (TopologyPlugin=topology/block, Slurm 23.11 and later), "
		"written by fabroute: %u dragonfly groups, %u hosts\n", ngroups, x->hs->n);
	place_hosts(out, x);
	block_lines(out, x, group, ngroups, &base, &nblocks);
	free(group);
	if (!nblocks) {
		fab_err_set(err, "no group has hosts: Slurm needs at least one block with nodes");
		return -1;
	}
	fprintf(out, "BlockSizes=%zu", base);
	for (uint32_t k = 2; k <= nblocks; k *= 2)
		fprintf(out, ",%zu", base * k);
	fputc('\n', out);
	return 0;
}

int fmt_slurm_format_from_name(const char *name)
{
	return !strcmp(name, "slurm-tree") ? FMT_SLURM_TREE :
	       !strcmp(name, "slurm-block") ? FMT_SLURM_BLOCK : -1;
}

int fmt_slurm_write(FILE *out, const struct fabric *f, const struct fmt_hosts *hs,
		    enum fmt_slurm form, const char *groups, size_t glen, const char *gname,
		    struct fab_err *err)
{
	struct slurm x;
	int rc;

	if (!hs->n) {
		fab_err_set(err, "the fabric has no hosts (linked CA ports)");
		return -1;
	}
	if (slurm_init(&x, f, hs, err))
		return -1;
	rc = form == FMT_SLURM_TREE ? write_tree(out, &x, err) :
	     write_block(out, &x, groups, glen, gname, err);
	slurm_free(&x);
	if (!rc && (fflush(out) || ferror(out))) {
		fab_err_set(err, "write error");
		rc = -1;
	}
	return rc;
}
