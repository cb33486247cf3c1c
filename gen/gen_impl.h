/* SPDX-License-Identifier: MIT */
/*
 * Private to the generators (gen.c, gen_tree.c, gen_direct.c): the shared
 * helpers implementing gen.h's conventions, and the builders gen.c
 * dispatches to.
 */
#ifndef FABROUTE_GEN_IMPL_H
#define FABROUTE_GEN_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "gen/gen.h"

uint32_t gen_add_switch(struct fabric *f, uint32_t *count, unsigned nports, const char *desc,
			struct fab_err *err);
uint32_t gen_add_ca(struct fabric *f, uint32_t *count, unsigned nports, const char *desc,
		    struct fab_err *err);
int gen_check_size(uint64_t nswitches, uint64_t ca_ports, struct fab_err *err);
int gen_check_ports(const char *what, uint64_t nports, struct fab_err *err);
unsigned gen_width(uint64_t count);
uint64_t gen_mul(uint64_t a, uint64_t b);

struct fabric *gen_tree_kary(unsigned k, unsigned n, struct fab_err *err);
struct fabric *gen_tree_mport(unsigned m, unsigned n, struct fab_err *err);
struct fabric *gen_tree_xgft(unsigned h, const uint32_t *m, size_t nm, const uint32_t *w,
			     size_t nw, struct fab_err *err);
struct fabric *gen_tree_gft2(unsigned n, unsigned m, unsigned r, struct fab_err *err);
struct fabric *gen_tree_rack(unsigned racks, unsigned hosts, unsigned uplinks, unsigned hlinks,
			     struct fab_err *err);
struct fabric *gen_tree_multicore(unsigned cores, unsigned n, unsigned m, unsigned r,
				  unsigned hlinks, struct fab_err *err);
/* Where a dragonfly's global links go (see gen_direct.c). */
enum gen_df_wiring { GEN_DF_ABSOLUTE, GEN_DF_RELATIVE, GEN_DF_CIRCULANT };

struct fabric *gen_direct_dragonfly(unsigned a, unsigned p, unsigned h, enum gen_df_wiring w,
				    struct fab_err *err);
struct fabric *gen_direct_random(unsigned switches, unsigned machines, unsigned degree,
				 unsigned radix, uint64_t seed, struct fab_err *err);
struct fabric *gen_direct_ring(unsigned switches, unsigned hosts, struct fab_err *err);
struct fabric *gen_direct_grid(const uint32_t *dims, size_t nd, unsigned hosts, int wrap,
			       struct fab_err *err);

#endif
