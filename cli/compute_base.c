/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabroute compute --base DIR: the routing a repair starts from
 *
 * DIR is what an earlier `fabroute compute` wrote: topology.ibnd (the
 * fabric with its LIDs), guid2lid, opensm-lfts.dump, and dlid-plan,
 * path-sl and opensm-sl2vl.dump when present. cli_base_load() reads them back into the
 * base fabric and routing that eng_run() hands an engine's repair hook (the
 * routing of the earlier run, as it was written); the guid2lid entries pin
 * the LIDs of the fabric to route, so that both have the same. After the
 * run, cli_base_changes() says what a subnet manager would write to go from
 * the base to the new tables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/compute_base.h"

/* Read DIR/NAME and parse it with @parse; @optional: a missing file is no error (*@found 0). */
static int read_dir(const char *dir, const char *name, int optional, int *found,
		    int (*parse)(const char *buf, size_t len, const char *path, struct cli_base *b,
				 struct fab_err *err),
		    struct cli_base *b)
{
	struct fab_err err = { { 0 } };
	char path[4096];
	struct stat st;
	char *buf;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	*found = stat(path, &st) == 0;
	if (!*found && optional && errno == ENOENT)
		return CLI_OK;
	if (fmt_read_file_max(path, FMT_DUMP_SIZE_MAX, &buf, &len, &err)) {
		cli_err("--base %s: %s", dir, err.msg);
		return CLI_INPUT;
	}
	rc = parse(buf, len, path, b, &err);
	free(buf);
	if (rc) {
		cli_err("--base %s: %s", dir, err.msg);
		return CLI_INPUT;
	}
	return CLI_OK;
}

static int parse_topo(const char *buf, size_t len, const char *path, struct cli_base *b,
		      struct fab_err *err)
{
	b->f = fmt_topo_parse(buf, len, path, FMT_AUTO, err);
	return b->f ? 0 : -1;
}

/* The LIDs of the base: they pin the fabric's too, and the routing was made for them. */
static int parse_guid2lid(const char *buf, size_t len, const char *path, struct cli_base *b,
			  struct fab_err *err)
{
	if (fmt_guid2lid_parse(buf, len, path, &b->pins, &b->npins, err))
		return -1;
	return fab_lids_assign(b->f, b->pins, b->npins, FAB_LIDS_KEEP, 0, err);
}

static int parse_lfts(const char *buf, size_t len, const char *path, struct cli_base *b,
		      struct fab_err *err)
{
	b->r = fmt_lfts_parse(buf, len, path, b->f, err);
	return b->r ? 0 : -1;
}

static int parse_plan(const char *buf, size_t len, const char *path, struct cli_base *b,
		      struct fab_err *err)
{
	return fmt_dlids_parse(buf, len, path, b->f, b->r, err);
}

static int parse_pathsl(const char *buf, size_t len, const char *path, struct cli_base *b,
			struct fab_err *err)
{
	return fmt_pathsl_parse(buf, len, path, b->f, b->r, err);
}

static int parse_sl2vl(const char *buf, size_t len, const char *path, struct cli_base *b,
		       struct fab_err *err)
{
	return fmt_sl2vl_parse(buf, len, path, b->f, b->r, err);
}

/* VLs the base uses: 0 always, and every VL its path SLs map to by the default table. */
static void note_vls(struct cli_base *b)
{
	size_t n = (size_t)b->r->neps * b->r->neps;

	b->r->vls_used = 1;
	for (size_t i = 0; b->r->path_sl && i < n; i++)
		b->r->vls_used |= (uint16_t)(1u << (b->r->path_sl[i] % 16));
}

int cli_base_load(const char *dir, struct cli_base *b)
{
	int found, rc;

	memset(b, 0, sizeof(*b));
	rc = read_dir(dir, "topology.ibnd", 0, &found, parse_topo, b);
	if (rc == CLI_OK)
		rc = read_dir(dir, "guid2lid", 0, &found, parse_guid2lid, b);
	if (rc == CLI_OK)
		rc = read_dir(dir, "opensm-lfts.dump", 0, &found, parse_lfts, b);
	if (rc == CLI_OK)	/* the DLIDs first: path-sl's lines name pairs by them */
		rc = read_dir(dir, FMT_DLIDS_FILE, 1, &found, parse_plan, b);
	if (rc == CLI_OK)
		rc = read_dir(dir, "path-sl", 1, &b->had_pathsl, parse_pathsl, b);
	if (rc == CLI_OK)
		rc = read_dir(dir, "opensm-sl2vl.dump", 1, &b->had_sl2vl, parse_sl2vl, b);
	if (rc == CLI_OK)
		note_vls(b);
	else
		cli_base_free(b);
	return rc;
}

void cli_base_free(struct cli_base *b)
{
	fab_free(b->f);
	rt_free(b->r);
	free(b->pins);
	memset(b, 0, sizeof(*b));
}

json_t *cli_base_changes(const char *dir, const struct cli_base *b, const struct eng_res *res)
{
	struct rt_diff d;

	rt_diff(b->f, b->r, res->fabric, res->routing, &d);
	printf("changed:      %llu LFT entries in %u blocks on %u switches (at most %u blocks on "
	       "one) from the base in %s, by %s\n", (unsigned long long)d.entries, d.blocks,
	       d.switches, d.max_blocks, dir, res->repaired ? "a repair" : "a new routing");
	return json_pack("{s:s, s:b, s:I, s:i, s:i, s:i, s:i}", "dir", dir, "repaired",
			 res->repaired, "entries", (json_int_t)d.entries, "blocks", (int)d.blocks,
			 "switches", (int)d.switches, "max_blocks", (int)d.max_blocks,
			 "switches_added", (int)d.added);
}
