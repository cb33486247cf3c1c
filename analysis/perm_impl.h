/* SPDX-License-Identifier: MIT */
/*
 * Private to the permutation metrics (perm.c: paths and sampling,
 * perm_worst.c: WORST): the shared state and helpers.
 */
#ifndef FABROUTE_PERM_IMPL_H
#define FABROUTE_PERM_IMPL_H

#include <stdint.h>

#include "analysis/internal.h"

/*
 * WORST traces machines^2 pairs and matches link by link: 0.5 s for 8192
 * machines on a 2-level tree, 0.5 to 1.7 s for 5184 on a 3-level one.
 */
#define PERM_WORST_MAX 8192u
/* Links kept for all traced paths (4 bytes each): 256 MiB. */
#define PERM_LINKS_MAX ((uint32_t)1 << 26)
/* Key map entries (8 bytes each), entry switches x LIDs: 512 MiB. */
#define PERM_KEYMAP_MAX ((uint64_t)1 << 26)
#define NONE UINT32_MAX
/* A key map entry: traced flag, path length (bits 32-55), offset (0-31). */
#define KEY_TRACED ((uint64_t)1 << 63)
#define KEY_LEN(v) ((uint32_t)((v) >> 32) & 0xffffffu)
#define KEY_OFF(v) ((uint32_t)(v))

/**
 * struct perm - machines, their paths and per-link counters
 * @n: machines; per machine: @ep its endpoint, @term the slot of its own
 *     port (its terminal link), @entry its entry index (NONE when linked
 *     straight to another CA, which @peer then names, else NONE)
 * @ep_mach: per endpoint, its machine index or NONE
 * @entry_sw: per entry, the switch index; @emach_off, @emach the machines
 *            entering there (CSR)
 * @lids: DLIDs covered by @keymap; key entry * lids + DLID is 0 until
 *        traced, then KEY_TRACED with the length and offset of its links in
 *        @links (length 0: not delivered)
 * @visit: per switch, loop detection while tracing
 * @load, @lstamp: per port slot, pairs of the current pattern (valid when
 *                 the stamp is @gen)
 * @too_big: the paths outgrew PERM_LINKS_MAX
 */
struct perm {
	struct an_ctx an;
	const struct fabric *f;
	const struct rt_routing *r;
	uint32_t *block;	/* every uint32_t array below but @links */
	uint32_t n;
	uint32_t *ep, *term, *entry, *peer, *ep_mach;
	uint32_t nentries;
	uint32_t *entry_sw, *emach_off, *emach;
	uint32_t lids;
	uint64_t *keymap;
	uint32_t *links, nlinks, lcap;
	uint32_t *visit, visit_gen;
	uint32_t *load, *lstamp, gen;
	int too_big;
};

static inline uint32_t slot_of(const struct fabric *f, uint32_t node, unsigned port)
{
	return f->nodes[node].port0 + port;
}

/* One of several uint32_t arrays allocated as one zeroed block. */
struct carve {
	uint32_t **ptr;
	size_t n;
};

/* perm_carve() - allocate the arrays of @c back to back, zeroed. Return: the block, or NULL. */
uint32_t *perm_carve(const struct carve *c, size_t k);
/* perm_pair_get() - the links of pair (@s, @d): 1 delivered, 0 not, -1 out of memory. */
int perm_pair_get(struct perm *p, uint32_t s, uint32_t d, const uint32_t **links, uint32_t *len);
/* perm_oom() - out of memory (or of the path budget) while doing @what. */
void perm_oom(const struct perm *p, struct fab_err *err, const char *what);
/* perm_worst() - WORST (perm_worst.c). */
int perm_worst(struct perm *p, struct an_perm *out, struct fab_err *err);

#endif
