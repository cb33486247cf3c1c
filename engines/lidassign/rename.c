/* SPDX-License-Identifier: MIT */
/**
 * DOC: rename - destination renaming (López, Flich, Duato) (papers/002 §5)
 *
 * Shortest legal paths with the shortest-widest tie-break, LIDs first fit as
 * the paths come (greedy), as papers/002 uses it; see la_run.c's overview
 * for how it compares with swidest. The run is la_run.c's.
 */
#include "engines/lidassign/la_impl.h"

static const struct eng_opt rename_opts[] = {
	{ .name = "order", .type = ENG_OPT_ENUM, .defval = "src",
	  .help = "pairs source by source (src), or destination by destination (dst)",
	  .values = "src|dst" },
	OPT_WEIGHT, OPT_ROOT, OPT_SEED, { .name = NULL },
};

static int rename_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
			struct fab_err *err)
{
	return la_route_kind(q, a, res, err, LA_K_RENAME);
}

const struct engine eng_rename = {
	.name = "rename",
	.summary = "destination renaming: shortest Up/Down paths, LIDs first fit as they come",
	.options = rename_opts, .deadlock_free = 1, .vls = 1, .route = rename_route,
};
