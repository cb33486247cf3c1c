/* SPDX-License-Identifier: MIT */
/*
 * Private to fabric/: the lookup indexes of a fabric (everybody else goes
 * through the fab_*_by_*() functions of fabric.h) and its canonical order.
 */
#ifndef FABROUTE_INDEX_H
#define FABROUTE_INDEX_H

#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"

/* fab_memdup() - a copy of @n bytes at @p (never a NULL for 0 bytes unless out of memory). */
static inline void *fab_memdup(const void *p, size_t n)
{
	void *q = malloc(n ? n : 1);

	return q && n ? memcpy(q, p, n) : q;
}

int fab_index_build(struct fabric *f, struct fab_err *err);
/** fab_index_lids() - rebuild only the LID index (after LIDs changed). */
int fab_index_lids(struct fabric *f, struct fab_err *err);
void fab_index_free(struct fab_index *idx);
/** fab_index_dup() - a copy of @x, the index of @f (NULL when out of memory). */
struct fab_index *fab_index_dup(const struct fab_index *x, const struct fabric *f);
/** fab_index_ep_of_port() - endpoint of a port slot (index into f->ports). */
uint32_t fab_index_ep_of_port(const struct fabric *f, uint32_t slot);
/** fab_canon_order() - put the nodes in ascending node GUID order (canon.c). */
int fab_canon_order(struct fabric *f, struct fab_err *err);

#endif
