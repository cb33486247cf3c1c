/* SPDX-License-Identifier: MIT */
/* The readable report of `fabroute eval`. */
#ifndef FABROUTE_EVAL_TEXT_H
#define FABROUTE_EVAL_TEXT_H

#include <stdio.h>

#include "analysis/analysis.h"
#include "analysis/dfly.h"

void eval_print_text(FILE *out, const struct fabric *f, const struct an_report *rep,
		     const struct an_opts *o, const struct an_perm *perm,
		     const struct an_perm_opts *po);

/** eval_print_dfly() - the dragonfly metrics (eval --metrics dragonfly). */
void eval_print_dfly(FILE *out, const struct an_dfly *m);

#endif
