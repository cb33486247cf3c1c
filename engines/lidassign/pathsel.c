/* SPDX-License-Identifier: MIT */
/**
 * DOC: pathsel - path selection (papers/002 §5)
 *
 * Up to `paths` Up*\/Down*-legal paths per machine pair (Yen's k shortest,
 * longer ones included; cands=shortest: minimal-length ones only), then
 * most-loaded-link-first until each pair keeps one (papers/002's "Separate"
 * with lids=color-l). The run is la_run.c's.
 */
#include "engines/lidassign/la_impl.h"

static const struct eng_opt select_opts[] = {
	OPT_LIDS,
	{ .name = "paths", .type = ENG_OPT_INT, .defval = "16",
	  .help = "most legal paths per pair to select from", .min = 1, .max = 16 },
	{ .name = "cands", .type = ENG_OPT_ENUM, .defval = "yen",
	  .help = "candidates: the shortest legal paths, or Yen's k shortest (longer ones too)",
	  .values = "shortest|yen" },
	OPT_ROOT, OPT_SEED, OPT_DEGREE, { .name = NULL },
};

static int select_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
			struct fab_err *err)
{
	return la_route_kind(q, a, res, err, LA_K_SELECT);
}

const struct engine eng_pathsel = {
	.name = "pathsel",
	.summary = "path selection (Nienaber, Yuan and Duan): 16 Up/Down paths per pair, most loaded "
		   "link first, realised with the fewest LIDs (per-port LMC)",
	.options = select_opts, .deadlock_free = 1, .vls = 1, .route = select_route,
};
