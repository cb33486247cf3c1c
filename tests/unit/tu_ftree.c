/* SPDX-License-Identifier: MIT */
/*
 * DOC: test helpers of the fat-tree engines: the CA pairs an up/down
 * routing cannot serve, counted from the cabling alone, and ftree's entries
 * kept by sftree.
 */
#include "tests/unit/testutil.h"

/*
 * CA-to-CA pairs without an up/down path ([sibling hop] up* down*): for each
 * destination leaf, the switches with a way down to it, the switches with
 * a way up to one of those, the leaves with a sibling link to one of those.
 */
uint64_t tu_updown_holes(const struct fabric *f)
{
	uint32_t n = f->nswitches, *q = malloc(((size_t)n + 1) * sizeof(*q));
	uint8_t *down = malloc(n + 1), *up = malloc(n + 1);
	uint32_t *cas = calloc((size_t)n + 1, sizeof(*cas));
	struct fab_shape sh;
	uint64_t holes = 0;

	tu_shape(f, &sh);
	for (uint32_t e = 0; e < f->neps; e++)
		if (tu_is_ca(f, e))
			cas[tu_ep_sw(f, e)]++;
	for (uint32_t d = 0; d < n; d++) {
		uint32_t head = 0, tail = 0;

		if (!cas[d])
			continue;
		memset(down, 0, n);
		memset(up, 0, n);
		down[d] = up[d] = 1;
		q[tail++] = d;
		while (head < tail) {	/* up from d: switches with a way down to d */
			uint32_t s = q[head++];

			for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
				uint32_t t = fab_sw_peer(f, s, p);

				if (t != FAB_NONE && sh.level[t] == sh.level[s] + 1 && !down[t]) {
					down[t] = up[t] = 1;
					q[tail++] = t;
				}
			}
		}
		for (uint32_t i = 0; i < tail; i++) {	/* down from those: ways up */
			uint32_t s = q[i];

			for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
				uint32_t t = fab_sw_peer(f, s, p);

				if (t != FAB_NONE && sh.level[t] + 1 == sh.level[s] && !up[t]) {
					up[t] = 1;
					q[tail++] = t;
				}
			}
		}
		for (uint32_t s = 0; s < n; s++) {
			int ok = up[s];

			for (unsigned p = 1; !ok && sh.level[s] == 1 &&
			     p <= f->nodes[f->switches[s]].nports; p++) {
				uint32_t t = fab_sw_peer(f, s, p);

				ok = t != FAB_NONE && sh.level[t] == 1 && up[t];
			}
			if (!ok)
				holes += (uint64_t)cas[s] * cas[d];
		}
	}
	fab_shape_free(&sh);
	free(q);
	free(down);
	free(up);
	free(cas);
	return holes;
}

/*
 * Every entry ftree made for a CA LID is sftree's too: end-node paths are
 * ftree's wherever ftree routes them.
 */
uint64_t tu_same_ca_entries(const struct fabric *f, const struct rt_routing *ft,
			    const struct rt_routing *sf)
{
	uint64_t added = 0;

	for (uint32_t e = 0; e < f->neps; e++) {
		unsigned lid = fab_ep_lid(f, e);

		for (uint32_t s = 0; s < f->nswitches && tu_is_ca(f, e); s++) {
			uint8_t a = rt_lft(ft, s)[lid], b = rt_lft(sf, s)[lid];

			if (a != RT_NO_PORT && a != b)
				fail_msg("switch %s, CA LID %u: ftree port %u, sftree port %u",
					 fab_desc(f, f->switches[s]), lid, a, b);
			added += a == RT_NO_PORT && b != RT_NO_PORT;
		}
	}
	return added;
}
