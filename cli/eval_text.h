/* SPDX-License-Identifier: MIT */
/* The readable report of `fabroute eval`. */
#ifndef FABROUTE_EVAL_TEXT_H
#define FABROUTE_EVAL_TEXT_H

#include <stdio.h>

#include "analysis/analysis.h"

void eval_print_text(FILE *out, const struct fabric *f, const struct an_report *rep,
		     const struct an_opts *o, const struct an_perm *perm,
		     const struct an_perm_opts *po);

#endif
