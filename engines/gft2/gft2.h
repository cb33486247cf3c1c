/* SPDX-License-Identifier: MIT */
/**
 * DOC: 2-level generalized fat trees, shared by the dmodk, smodk and opt engines
 *
 * Private to engines/gft2*.c. gft2_recognise() finds T(n+m, r) in a
 * fabric and numbers its switches and nodes as papers/003 Section II does;
 * gft2_route() turns a rule "LID offset o of node d goes through top
 * switch t" (plus, for source-based schemes, "source s uses offset o of
 * destination d") into LFTs and DLID choices. See engines/gft2/gft2.c for the
 * recognition and numbering rules and the routing of switch LIDs.
 */
#ifndef FABROUTE_ENGINES_GFT2_H
#define FABROUTE_ENGINES_GFT2_H

#include <stdint.h>

#include "engines/engine.h"

/**
 * struct gft2 - a recognised T(n+m, r)
 * @n: nodes (CA and router ports) per bottom switch
 * @m: top switches
 * @r: bottom switches
 * @bsw: switch index (position in fabric->switches) of BSW_0 .. BSW_{r-1}
 * @tsw: switch index of TSW_0 .. TSW_{m-1}
 * @up: up[i * m + t]: the port of BSW_i linked to TSW_t
 * @down: down[t * r + i]: the port of TSW_t linked to BSW_i
 * @node_ep: endpoint (position in fabric->eps) of node 0 .. r * n - 1;
 *           node x hangs on BSW_{x / n}
 */
struct gft2 {
	uint32_t n, m, r;
	uint32_t *bsw;
	uint32_t *tsw;
	uint8_t *up;
	uint8_t *down;
	uint32_t *node_ep;
};

/**
 * gft2_recognise() - find T(n+m, r) in @f and number it
 * Return: ENG_OK with *@g filled (free with gft2_free()),
 * ENG_NOT_APPLICABLE with @err saying what does not fit, or ENG_ERROR
 * (out of memory). *@g needs no freeing unless ENG_OK.
 */
int gft2_recognise(const struct fabric *f, struct gft2 *g, struct fab_err *err);
void gft2_free(struct gft2 *g);

/** gft2_log2() - the smallest l with 2^l >= @x (0 for @x <= 1). */
unsigned gft2_log2(uint32_t x);

/**
 * gft2_lmc_fits() - whether every node of @g can own 2^@lmc LIDs next to
 * the switches' own LIDs in the unicast LID space (alignment included)
 */
int gft2_lmc_fits(const struct fabric *f, const struct gft2 *g, unsigned lmc);

/**
 * struct gft2_rule - how one scheme routes the nodes' LIDs
 * @name: engine name, for messages
 * @lmc: the LMC the scheme needs on the nodes' ports
 * @lmc_why: why, for the message when the fabric's LMC is lower
 *           ("one LID per top switch")
 * @top: top switch (0 .. m - 1) carrying LID offset @off of node @d to
 *       it from the other bottom switches; @off may exceed the scheme's
 *       own range when the port's LMC is larger than needed
 * @src_off: the LID offset node @s uses to reach node @d; NULL: the base
 *           LID for every pair
 * @ctx: passed to @top and @src_off
 */
struct gft2_rule {
	const char *name;
	unsigned lmc;
	const char *lmc_why;
	unsigned (*top)(const struct gft2 *g, const void *ctx, uint32_t d, unsigned off);
	unsigned (*src_off)(const struct gft2 *g, const void *ctx, uint32_t s, uint32_t d);
	const void *ctx;
};

/**
 * gft2_route() - the routing of @f that @rule describes
 * Checks that the nodes' ports carry at least @rule->lmc, then routes
 * every LID up/down (deadlock-free on one VL) and sets the pairs' DLIDs.
 * @notes: copied into the routing's notes
 * Return: ENG_OK with *@out, or ENG_ERROR with @err (LMC too small, out
 * of memory).
 */
int gft2_route(const struct fabric *f, const struct gft2 *g, const struct gft2_rule *rule,
	       const char *notes, struct rt_routing **out, struct fab_err *err);

#endif
