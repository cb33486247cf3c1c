/* SPDX-License-Identifier: MIT */
/*
 * Path files in the commands (cli/paths.c): compute's "paths" file, eval's
 * --paths check, and what `fabroute lids` shares with them.
 */
#ifndef FABROUTE_CLI_PATHS_H
#define FABROUTE_CLI_PATHS_H

#include "formats/formats.h"
#include "fabric/routing.h"

#define PATHS_EXAMPLES 5

/*
 * struct paths_report - eval --paths
 * @checked: paths traced; @followed: those the tables follow hop by hop with
 *           their DLID to their destination port
 * @ex: up to PATHS_EXAMPLES paths that are not followed, "FILE:LINE: why"
 */
struct paths_report {
	uint64_t checked, followed;
	char ex[PATHS_EXAMPLES][384];
	unsigned nex;
};

/*
 * paths_write_routed() - write @path: every CA-to-CA pair's walk through
 * @r with the pair's DLID. Return: CLI_OK or CLI_FAIL (after printing why).
 */
int paths_write_routed(const char *path, const struct fabric *f, const struct rt_routing *r);

struct engine;

/*
 * paths_compute_file() - compute's DIR/paths when the engine @used plans
 * paths (*@written set then). Return: CLI_OK or CLI_FAIL.
 */
int paths_compute_file(const char *dir, const struct engine *used, const struct fabric *f,
		       const struct rt_routing *r, int *written);

/*
 * paths_apply_dlids() - the pairs @ps lists use its DLIDs (the first path
 * of each pair; a DLID outside the destination's range is left out).
 * Return: CLI_OK or CLI_FAIL.
 */
int paths_apply_dlids(const struct fabric *f, struct rt_routing *r, const struct fmt_paths *ps);

/*
 * paths_check() - trace every path of @ps (read from @name) with its DLID.
 * Return: CLI_OK with @rep filled, or CLI_FAIL (out of memory).
 */
int paths_check(const struct fabric *f, const struct rt_routing *r, const struct fmt_paths *ps,
		const char *name, struct paths_report *rep);

#endif
