/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - the base's columns, read and written a block of LIDs at a time
 *
 * A repair works one LID at a time, on the column of the tables: one entry
 * per switch. The tables are stored by switch, a row per switch, so a
 * column read entry by entry costs a cache miss per switch. Here FD_COLS
 * LIDs (in increasing order: neighbours in every row) are read, and their
 * repaired columns written, switch by switch, each row's few cache lines
 * once for the block. Writing counts what the repair changed (entries,
 * and per switch the 64-LID blocks), so the figures need not compare every
 * table with the base's afterwards.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr/ftdlr_impl.h"

/* Rows of the tables asked for ahead of their turn. */
#define FD_AHEAD 8u

void fd_columns(const struct fd *x, const unsigned *lid, uint32_t n, uint8_t *col)
{
	for (uint32_t s = 0; n && s < x->nsw; s++) {
		const uint8_t *row = rt_lft(x->br, s);

		if (s + FD_AHEAD < x->nsw) {
			/* rows lie far apart: no hardware prefetcher guesses the next one */
			__builtin_prefetch(rt_lft(x->br, s + FD_AHEAD) + lid[0]);
			__builtin_prefetch(rt_lft(x->br, s + FD_AHEAD) + lid[n - 1]);
		}
		for (uint32_t j = 0; j < n; j++)
			col[(size_t)j * x->nsw + s] = row[lid[j]];
	}
}

int fd_changes_init(struct fd *x)
{
	x->nblk64 = (x->br->lft_len + 63) / 64;
	x->chg = calloc((size_t)x->nsw * ((x->nblk64 + 63) / 64) + 1, sizeof(*x->chg));
	return x->chg ? 0 : -1;
}

uint8_t *fd_row(struct fd *x, uint32_t c)
{
	uint8_t *row;

	if (!x->rows_lock)
		return rt_row_own(x->r, c);
	pthread_mutex_lock(x->rows_lock);
	row = rt_row_own(x->r, c);
	pthread_mutex_unlock(x->rows_lock);
	return row;
}

int fd_put_columns(struct fd *x, const unsigned *lid, uint32_t n, const uint8_t *base,
		   const uint8_t *col)
{
	size_t words = (x->nblk64 + 63) / 64;

	for (uint32_t s = 0; s < x->nsw; s++) {
		uint8_t *row = NULL;

		if (fd_dead(x, s))
			continue;
		for (uint32_t j = 0; j < n; j++) {
			size_t i = (size_t)j * x->nsw + s;
			uint32_t b = lid[j] / 64;

			if (col[i] == base[i])
				continue;	/* the base's entry: the frame has it */
			if (!row && !(row = fd_row(x, x->cur[s])))
				return -1;
			row[lid[j]] = col[i];
			x->st.entries++;
			x->chg[s * words + b / 64] |= 1ull << (b % 64);
		}
	}
	return 0;
}

/* Entries, switches and 64-LID blocks of x->r that differ from the base, table by table. */
static void count_all(struct fd *x)
{
	uint32_t len = x->br->lft_len;

	x->st.entries = 0;
	for (uint32_t s = 0; s < x->nsw; s++) {
		const uint8_t *a = rt_lft(x->br, s), *b;
		uint32_t blocks = 0;

		if (fd_dead(x, s))
			continue;
		b = rt_lft(x->r, x->cur[s]);
		for (uint32_t start = 0; start < len; start += 64) {
			uint32_t end = start + 64 < len ? start + 64 : len, n = 0;

			for (uint32_t l = start; l < end; l++)
				n += a[l] != b[l];
			x->st.entries += n;
			blocks += n > 0;
		}
		x->st.switches += blocks > 0;
		x->st.blocks += blocks;
		if (blocks > x->st.max_blocks)
			x->st.max_blocks = blocks;
	}
}

void fd_count_changes(struct fd *x)
{
	size_t words = (x->nblk64 + 63) / 64;

	if (x->recount) {	/* entries taken from a full recompute besides the columns written */
		count_all(x);
		return;
	}
	for (uint32_t s = 0; s < x->nsw; s++) {
		uint32_t blocks = 0;

		for (size_t k = 0; k < words; k++)
			blocks += (uint32_t)__builtin_popcountll(x->chg[s * words + k]);
		x->st.switches += blocks > 0;
		x->st.blocks += blocks;
		if (blocks > x->st.max_blocks)
			x->st.max_blocks = blocks;
	}
}

/* Base switch @s's table differs from the base's (by x->chg, or by comparing with x->recount). */
static int sw_changed(const struct fd *x, uint32_t s, size_t words)
{
	if (x->recount)
		return memcmp(rt_lft(x->br, s), rt_lft(x->r, x->cur[s]), x->br->lft_len) != 0;
	for (size_t k = 0; k < words; k++)
		if (x->chg[s * words + k])
			return 1;
	return 0;
}

int fd_changed_switches(const struct fd *x, uint32_t **list, size_t *n)
{
	size_t words = (x->nblk64 + 63) / 64;

	*n = 0;
	if (!(*list = malloc(((size_t)x->nsw + 1) * sizeof(**list))))
		return -1;
	for (uint32_t s = 0; s < x->nsw; s++)
		if (!fd_dead(x, s) && sw_changed(x, s, words))
			(*list)[(*n)++] = x->cur[s];
	return 0;
}
