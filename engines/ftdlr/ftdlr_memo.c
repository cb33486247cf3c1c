/* SPDX-License-Identifier: MIT */
/**
 * DOC: ftdlr - what is kept of a base between its repairs
 *
 * Part of a repair's set-up depends on the base alone: the base fabric's
 * fat-tree model, the switches where the base's switch paths turn, and
 * whether the base routes a CA LID over up*down* paths. The daemon repairs
 * the same base fault after fault (until it routes anew), so these are
 * kept beside the base (struct eng_memo, owned by the caller) and worked
 * out once: at 16,000 CAs about a quarter of the repair. The up*down*
 * check is kept per LID, since a repair checks only the LIDs it rewrites.
 * For a base that turns its switch paths through a subtree root, the
 * switch classes towards every switch on the base fabric (ftdlr_sn.c):
 * a repair takes them where its dead links leave them as they were,
 * instead of two searches of the tree per destination switch.
 * Nothing kept depends on the current fabric, so a repair made from the
 * memo is the one made without it (test_ftdlr checks the tables).
 */
#include <stdlib.h>
#include <string.h>

#include "engines/ftdlr/ftdlr_impl.h"

static void memo_free(void *data)
{
	struct fd_memo *k = data;

	if (k->m.f)
		ft_model_fini(&k->m);
	free(k->turning);
	free(k->ud_ok);
	free(k->ud_base);
	free(k->ud_build);
	free(k->rule_base);
	free(k->snway0);
	free(k->anchor0);
	free(k->label);
	free(k->col);
	free(k);
}

struct fd_memo *fd_memo_for(struct eng_memo *memo, const struct fabric *bf,
			    const struct rt_routing *br)
{
	struct fd_memo *k;

	if (!memo)
		return NULL;
	if (memo->e == &eng_ftdlr && memo->base_f == bf && memo->base == br && memo->data)
		return memo->data;
	eng_memo_clear(memo);
	k = calloc(1, sizeof(*k));
	if (k && !(k->ud_ok = calloc((size_t)br->lft_len + 1, 1))) {
		free(k);
		k = NULL;
	}
	if (!k)
		return NULL;	/* repaired without one */
	k->lft_len = br->lft_len;
	*memo = (struct eng_memo){ &eng_ftdlr, bf, br, k, memo_free };
	return k;
}

uint8_t *fd_memo_unchecked(const struct fd *x)
{
	uint8_t *chk = malloc((size_t)x->br->lft_len + 1);

	for (uint32_t l = 0; chk && l < x->br->lft_len; l++)
		chk[l] = x->need[l] && !x->keep->ud_ok[l];
	return chk;
}

void fd_memo_checked(struct fd *x, const uint8_t *chk)
{
	for (uint32_t l = 0; l < x->keep->lft_len; l++)
		x->keep->ud_ok[l] |= chk[l];
}
