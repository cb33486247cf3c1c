/* SPDX-License-Identifier: MIT */
/**
 * DOC: swidest - shortest-widest paths (papers/002 §5)
 *
 * Pair by pair in (source, destination) order, the shortest legal path of
 * least weight; its links then weigh one more. The run is la_run.c's.
 */
#include "engines/lidassign/la_impl.h"

static const struct eng_opt widest_opts[] = {
	OPT_LIDS, OPT_WEIGHT, OPT_ROOT, OPT_SEED, OPT_DEGREE, { .name = NULL },
};

static int widest_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
			struct fab_err *err)
{
	return la_route_kind(q, a, res, err, LA_K_WIDEST);
}

const struct engine eng_swidest = {
	.name = "swidest",
	.summary = "shortest-widest Up/Down paths (Nienaber, Yuan and Duan), realised with the fewest LIDs",
	.options = widest_opts, .deadlock_free = 1, .vls = 1, .route = widest_route,
};
