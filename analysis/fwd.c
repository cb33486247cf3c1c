/* SPDX-License-Identifier: MIT */
/**
 * DOC: one DLID resolved from every switch
 *
 * an_fwd_resolve() walks the functional graph "switch -> next switch for
 * this DLID", settling each switch once: what a packet for the DLID found
 * at any switch becomes, and after how many switches. The reference
 * evaluator and the switch reachability use it.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

enum { FWD_NEW = 0, FWD_ACTIVE = 1, FWD_DONE = 2 };

int an_fwd_init(struct an_fwd *w, const struct fabric *f)
{
	size_t n = (size_t)f->nswitches + 1;

	memset(w, 0, sizeof(*w));
	w->res = malloc(n);
	w->hops = malloc(n * sizeof(*w->hops));
	w->state = malloc(n);
	w->stack = malloc(n * sizeof(*w->stack));
	if (!w->res || !w->hops || !w->state || !w->stack) {
		an_fwd_fini(w);
		return -1;
	}
	return 0;
}

void an_fwd_fini(struct an_fwd *w)
{
	free(w->res);
	free(w->hops);
	free(w->state);
	free(w->stack);
	memset(w, 0, sizeof(*w));
}

/* Settle the switches on the stack, innermost first, from the result at its end. */
static void settle(struct an_fwd *w, uint32_t depth, enum an_fail res, uint16_t hops)
{
	while (depth--) {
		uint32_t s = w->stack[depth];

		w->res[s] = (uint8_t)res;
		w->hops[s] = res == AN_DELIVERED ? ++hops : 0;
		w->state[s] = FWD_DONE;
		if (res == AN_DELIVERED && hops > w->maxhops)
			w->maxhops = hops;
	}
}

static void walk_from(struct an_fwd *w, const struct an_ctx *c, uint32_t start, unsigned dlid,
		      uint32_t dst)
{
	uint32_t depth = 0, s = start;

	for (;;) {
		uint32_t next;
		uint8_t out, in;
		enum an_fail res;

		w->state[s] = FWD_ACTIVE;
		w->stack[depth++] = s;
		res = an_step(c, s, dlid, dst, &out, &next, &in);
		if (res != AN_DELIVERED || next == FAB_NONE) {
			settle(w, depth, res, 0);
			return;
		}
		if (w->state[next] == FWD_ACTIVE) {
			settle(w, depth, AN_LOOP, 0);
			return;
		}
		if (w->state[next] == FWD_DONE) {
			settle(w, depth, (enum an_fail)w->res[next], w->hops[next]);
			return;
		}
		s = next;
	}
}

void an_fwd_resolve(struct an_fwd *w, const struct an_ctx *c, unsigned dlid, uint32_t dst)
{
	uint32_t n = c->f->nswitches;

	memset(w->state, FWD_NEW, n);
	w->maxhops = 0;
	for (uint32_t s = 0; s < n; s++)
		if (w->state[s] == FWD_NEW)
			walk_from(w, c, s, dlid, dst);
}
