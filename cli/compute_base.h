/* SPDX-License-Identifier: MIT */
/*
 * fabroute compute --base DIR (cli/compute_base.c): an earlier compute's
 * output read back as the routing a repair starts from.
 */
#ifndef FABROUTE_CLI_COMPUTE_BASE_H
#define FABROUTE_CLI_COMPUTE_BASE_H

#include <jansson.h>

#include "cli/cli.h"
#include "engines/engine.h"

/**
 * struct cli_base - the base fabric and routing, and its LIDs
 * @f, @r: the fabric (with the LIDs of DIR/guid2lid) and its routing
 * @pins, @npins: DIR/guid2lid's entries
 * @had_pathsl, @had_sl2vl: DIR had path-sl, opensm-sl2vl.dump
 */
struct cli_base {
	struct fabric *f;
	struct rt_routing *r;
	struct fab_lid_pin *pins;
	size_t npins;
	int had_pathsl, had_sl2vl;
};

/** cli_base_load() - read DIR; CLI_OK, or CLI_INPUT after saying which file is wrong. */
int cli_base_load(const char *dir, struct cli_base *b);
void cli_base_free(struct cli_base *b);

/**
 * cli_base_changes() - print and return (the summary's "base" member) the
 * LFT entries, blocks and switches that differ between the base and @res
 */
json_t *cli_base_changes(const char *dir, const struct cli_base *b, const struct eng_res *res);

#endif
