/* SPDX-License-Identifier: MIT */
/*
 * eng_run_chain(): test_pipeline.c's name for tu_run_chain() (testutil.h);
 * this header goes once it calls tu_run_chain() itself.
 */
#ifndef FABROUTE_TEST_ENGINE_CALL_H
#define FABROUTE_TEST_ENGINE_CALL_H

#include "tests/unit/testutil.h"

static inline void eng_run_chain(const struct fabric *f, const char *chain,
				 const struct an_opts *eval, struct eng_res *res)
{
	tu_run_chain(f, chain, eval, res);
}

#endif
