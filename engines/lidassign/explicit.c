/* SPDX-License-Identifier: MIT */
/**
 * DOC: explicit - fully explicit routing (Sancho, Robles, Duato) (papers/002 §5)
 *
 * One tree per destination, so one LID each: switches with an all-down
 * route first, then the others by up links, nearest first, ties to the
 * least loaded port. The run is la_run.c's.
 */
#include "engines/lidassign/la_impl.h"

static const struct eng_opt explicit_opts[] = { OPT_ROOT, OPT_SEED, { .name = NULL } };

static int explicit_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
			  struct fab_err *err)
{
	return la_route_kind(q, a, res, err, LA_K_EXPLICIT);
}

const struct engine eng_explicit = {
	.name = "explicit",
	.summary = "fully explicit: one Up/Down tree and one LID per destination",
	.options = explicit_opts, .deadlock_free = 1, .vls = 1, .route = explicit_route,
};
