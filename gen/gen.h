/* SPDX-License-Identifier: MIT */
/**
 * DOC: topology generators
 *
 * Builds the fabrics fabroute is tested and benchmarked on. Every family
 * takes named integer parameters ("k=4", "m=18,18,16"); gen_families()
 * lists them with their meaning and defaults, which is what
 * `fabroute gen --help` prints. Output is deterministic: the same family,
 * parameters and seed give the same fabric, node for node and port for
 * port, on every platform.
 *
 * GUIDs: switch i (0-based, in creation order) gets node GUID
 * GEN_GUID_SWITCH + i + 1; CA i gets GEN_GUID_CA + (i + 1) * 16 with port p
 * at node GUID + p (the ibsim convention, so files survive a trip through
 * ibsim unchanged). Descriptions are unique and name the node's role.
 * Tree switches number their down ports first, then their up ports.
 * LIDs are assigned with fab_lids_assign() (FAB_LIDS_RENEW) and the "lmc"
 * parameter every family accepts.
 */
#ifndef FABROUTE_GEN_H
#define FABROUTE_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"

#define GEN_GUID_SWITCH 0x0002fab100000000ull
#define GEN_GUID_CA 0x0002fab200000000ull

/**
 * struct gen_param - one parameter of a family
 * @name: what the user writes before '='
 * @defval: the default, as the user would write it
 * @help: one line
 */
struct gen_param {
	const char *name;
	const char *defval;
	const char *help;
};

/**
 * struct gen_family - one generator
 * @name: e.g. "kary-ntree"
 * @summary: one line
 * @params: parameter table, ended by an entry with a NULL name
 */
struct gen_family {
	const char *name;
	const char *summary;
	const struct gen_param *params;
};

/** gen_families() - the table of families; *@n gets its length. */
const struct gen_family *gen_families(size_t *n);
const struct gen_family *gen_family_find(const char *name);

/**
 * gen_build() - build a fabric of family @family
 * @kv: parameters as "name=value" strings; unknown names, malformed values
 *      and values out of range are errors naming the parameter
 * @seed: for the families that draw random numbers
 * Return: a finalized fabric with LIDs, or NULL with @err set.
 */
struct fabric *gen_build(const char *family, const char *const *kv, size_t nkv, uint64_t seed,
			 struct fab_err *err);

/**
 * struct gen_faults - what to remove from a fabric
 * @links: "NODE:PORT" strings; NODE is a description or a node GUID (0x...)
 * @switches: "NODE" strings
 * @random_links: switch-to-switch links drawn at random (with @seed); a link
 *                whose loss would disconnect the switches is never drawn
 * @random_switches: switches drawn at random, never one whose loss would
 *                   disconnect the remaining switches
 */
struct gen_faults {
	const char *const *links;
	size_t nlinks;
	const char *const *switches;
	size_t nswitches;
	unsigned random_links;
	unsigned random_switches;
	uint64_t seed;
};

/**
 * gen_faults_apply() - remove links and switches from *@f
 * Removed switches take their CAs along when those have no other link.
 * *@f may be replaced by a new fabric (the old one is freed). LIDs of the
 * nodes that stay are kept.
 * Return: 0, or -1 with @err set (unknown node, port not linked, too many
 * random faults for the fabric to stay connected); *@f is unchanged then.
 */
int gen_faults_apply(struct fabric **f, const struct gen_faults *faults, struct fab_err *err);
/**
 * gen_faults_applied() - a new fabric: @f (only read) without the faults,
 * as gen_faults_apply() makes it
 * Return: the fabric, or NULL with @err set.
 */
struct fabric *gen_faults_applied(const struct fabric *f, const struct gen_faults *faults,
				  struct fab_err *err);

#endif
