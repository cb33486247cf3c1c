/* SPDX-License-Identifier: MIT */
/**
 * DOC: evaluation reports as JSON
 *
 * The JSON form of what analysis/ computes, shared by `fabroute eval --json`
 * and the daemon's API. The schema is documented in doc/eval-json.md and
 * versioned by its "schema" member ("fabroute-eval/1"): members are only
 * ever added within a version.
 */
#ifndef FABROUTE_REPORT_H
#define FABROUTE_REPORT_H

#include <jansson.h>

#include "analysis/analysis.h"

#define AN_JSON_SCHEMA "fabroute-eval/1"

/** an_json_guid() - a GUID as the string "0x" + 16 hex digits. */
json_t *an_json_guid(uint64_t guid);
/** an_json_bits() - the set bits of @mask as an array of their numbers ([0, 3] for 0x9). */
json_t *an_json_bits(uint32_t mask);
/** an_json_endpoint() - {"node", "guid", "type", "port", "lid"} of endpoint @ep. */
json_t *an_json_endpoint(const struct fabric *f, uint32_t ep);
/** an_json_conn() - the "connectivity" member: {"connected", "all_lids", "max_hops", "classes"}. */
json_t *an_json_conn(const struct fabric *f, const struct an_report *rep,
		     const struct an_opts *o);
/** an_json_vl() - one entry of "deadlock"."vls": {"vl", "paths", ..., "cycle": [...]}. */
json_t *an_json_vl(const struct fabric *f, const struct an_vl *v, unsigned vl);
/** an_json_path() - a traced path: {"delivered", "failure", "hops": [...]}. */
json_t *an_json_path(const struct fabric *f, const struct an_path *p);
/**
 * an_json_report() - the whole evaluation: "schema", "fabric",
 * "connectivity", "deadlock", and "load" when computed (@o->load).
 */
json_t *an_json_report(const struct fabric *f, const struct an_report *rep,
		       const struct an_opts *o);
/** an_json_perm() - the permutation metrics that were computed. */
json_t *an_json_perm(const struct fabric *f, const struct an_perm *p,
		     const struct an_perm_opts *o);

#endif
