/* SPDX-License-Identifier: MIT */
/**
 * DOC: the pairs a routing leaves unreachable, for the engines' notes
 *
 * eng_run() ends every routing's notes with the ordered endpoint pairs it
 * leaves unreachable, by class (CA->CA, CA->switch, switch->CA,
 * switch->switch), so that no engine can leave pairs out unmentioned. When
 * the run evaluates the routing the figures are the evaluator's; else
 * eng_unreachable() counts them: per destination LID, each switch's fate
 * is found once by following the LFTs (delivered, a missing entry, a loop,
 * a wrong end), and the sources hanging off a switch share its fate. The
 * destinations are taken by LID, UR_BLOCK at a time, their columns read a
 * row of the tables at a time (a column alone is a cache miss per switch),
 * and a switch port's step (the next switch, or the endpoint it delivers
 * to) comes from a table of the counting's own, not from the fabric's
 * ports and nodes. Cost: O(endpoints x switches) time, O(UR_BLOCK x
 * switches + ports) memory; O(endpoints^2) when sources use different
 * DLIDs of a destination (LMC with path offsets), the tables then read a
 * column at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"

enum { UNKNOWN = 0, YES = 1, NO = 2, VISITING = 3 };

/* Destinations whose columns are read at a time. */
#define UR_BLOCK 64u
/* Rows asked for ahead of their turn. */
#define UR_AHEAD 16u
/* A port's step when it leads to no switch: UR_END | the endpoint there, or UR_LOST. */
#define UR_END 0x80000000u
#define UR_LOST 0xFFFFFFFFu

/*
 * A destination LID's entries: switch s's is e[s * stride] (a column of a
 * block), or with @r its table's entry for @lid (none past the table).
 */
struct col {
	const uint8_t *e;
	size_t stride;
	const struct rt_routing *r;
	unsigned lid;
};

/**
 * struct ur - the counting
 * @f, @r: the fabric and its routing
 * @base, @step: switch s's port p leads to step[base[s] + p], p = 0..nports
 *               (port 0: the switch's own endpoint)
 * @st, @stack: per switch, its fate towards the destination at hand
 *              (per DLID of its range by source: 128 rows); walk scratch
 * @ca_on: per switch, the CA ports hanging off it
 * @odd, @nodd: the CA ports linked to no switch
 * @out: the counts, by class
 */
struct ur {
	const struct fabric *f;
	const struct rt_routing *r;
	uint32_t *base, *step;
	uint8_t *st;
	uint32_t *stack;
	uint32_t *ca_on, *odd, nodd;
	uint64_t *out;
};

static struct col table_col(const struct rt_routing *r, unsigned lid)
{
	return (struct col){ .r = r, .lid = lid };
}

/* Does the packet for endpoint @d, at switch @s, end there (entries @c)? Memoised in @st. */
static int reaches(const struct ur *u, uint32_t d, struct col c, uint32_t s, uint8_t *st)
{
	uint32_t n = 0;
	int ok;

	for (;;) {
		uint32_t b = u->base[s], t;
		unsigned p;

		if (st[s] == YES || st[s] == NO) {
			ok = st[s] == YES;
			break;
		}
		if (st[s] == VISITING) {	/* a loop */
			ok = 0;
			break;
		}
		st[s] = VISITING;
		u->stack[n++] = s;
		p = c.r ? rt_lft_get(c.r, s, c.lid) : c.e[(size_t)s * c.stride];
		if (p == RT_NO_PORT || p > u->base[s + 1] - b - 1) {
			ok = 0;
			break;
		}
		t = u->step[b + p];
		if (t & UR_END) {	/* delivered to @d, or to another end */
			ok = t == (UR_END | d);
			break;
		}
		s = t;
	}
	while (n)
		st[u->stack[--n]] = ok ? YES : NO;
	return ok;
}

/* The fate of source endpoint @e towards @d over @lid (entries @c). */
static int source_reaches(const struct ur *u, uint32_t e, uint32_t d, unsigned lid, struct col c,
			  uint8_t *st)
{
	const struct fabric *f = u->f;
	const struct fab_node *n = &f->nodes[f->eps[e].node];
	const struct fab_port *x;

	if (!lid)
		return 0;
	if (n->type == FAB_SWITCH)
		return reaches(u, d, c, n->swidx, st);
	x = fab_port(f, f->eps[e].node, f->eps[e].port);
	if (x->peer == FAB_NONE)
		return 0;
	if (f->nodes[x->peer].type != FAB_SWITCH)
		return x->peer == f->eps[d].node && x->peer_port == f->eps[d].port;
	return reaches(u, d, c, f->nodes[x->peer].swidx, st);
}

static unsigned pair_class(const struct fabric *f, uint32_t s, uint32_t d)
{
	int ss = f->nodes[f->eps[s].node].type == FAB_SWITCH;
	int ds = f->nodes[f->eps[d].node].type == FAB_SWITCH;

	return ss ? (ds ? AN_SW_SW : AN_SW_CA) : (ds ? AN_CA_SW : AN_CA_CA);
}

/* Every pair, source by source: when sources use different DLIDs of a destination. */
static void count_by_source(struct ur *u, uint32_t d)
{
	const struct fabric *f = u->f;
	size_t ns = f->nswitches ? f->nswitches : 1;
	unsigned base = fab_ep_lid(f, d), range = 1u << fab_ep_lmc(f, d);

	memset(u->st, UNKNOWN, ns * range);
	for (uint32_t e = 0; e < f->neps; e++) {
		unsigned lid = rt_dlid(u->r, f, e, d), k = base ? lid - base : 0;

		if (e != d && !source_reaches(u, e, d, lid, table_col(u->r, lid),
					      u->st + ns * (k < range ? k : 0)))
			u->out[pair_class(f, e, d)]++;
	}
}

/*
 * One DLID per destination (its entries @c): a switch's fate is its own
 * and that of the CA ports hanging off it; CA ports linked to no switch
 * are counted one by one.
 */
static void count_by_switch(struct ur *u, uint32_t d, struct col c)
{
	const struct fabric *f = u->f;
	unsigned lid = fab_ep_lid(f, d), dsw = f->nodes[f->eps[d].node].type == FAB_SWITCH;
	const struct fab_port *dp = fab_port(f, f->eps[d].node, f->eps[d].port);
	uint32_t home = !dsw && dp->peer != FAB_NONE && f->nodes[dp->peer].type == FAB_SWITCH ?
			f->nodes[dp->peer].swidx : FAB_NONE;

	memset(u->st, UNKNOWN, f->nswitches ? f->nswitches : 1);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		int mine = f->switches[s] == f->eps[d].node;

		if (lid && reaches(u, d, c, s, u->st))
			continue;
		u->out[dsw ? AN_SW_SW : AN_SW_CA] += !mine;
		u->out[dsw ? AN_CA_SW : AN_CA_CA] += u->ca_on[s] - (s == home);
	}
	for (uint32_t i = 0; i < u->nodd; i++)
		if (u->odd[i] != d && !source_reaches(u, u->odd[i], d, lid, c, u->st))
			u->out[pair_class(f, u->odd[i], d)]++;
}

/*
 * The columns of @lid[0 .. @n) into blk[j * @nsw + s], a row at a time (8 x 8
 * tiles where the LIDs run on).
 */
static void gather(const struct rt_routing *r, uint32_t nsw, const unsigned *lid, uint32_t n,
		   uint8_t *blk)
{
	uint32_t tiled = 0;
	size_t len = r->lft_len;
	int run = n == UR_BLOCK;

	for (uint32_t j = 1; j < n && run; j++)
		run = lid[j] == lid[0] + j;
	if (run && r->lft)	/* tiles: rows @len apart, in one block */
		tiled = nsw & ~7u;
	for (uint32_t s = 0, step; s < nsw; s += step) {
		const uint8_t *row = rt_lft(r, s);

		step = s < tiled ? 8 : 1;
		/* rows are far apart: no hardware prefetcher guesses the next ones */
		for (uint32_t k = 0; k < step && s + UR_AHEAD + k < nsw; k++) {
			__builtin_prefetch(rt_lft(r, s + UR_AHEAD + k) + lid[0]);
			__builtin_prefetch(rt_lft(r, s + UR_AHEAD + k) + lid[n - 1]);
		}
		if (s < tiled)
			for (uint32_t j0 = 0; j0 < n; j0 += 8)
				rt_tile8(blk + (size_t)j0 * nsw + s, nsw, row + lid[j0], len);
		else
			for (uint32_t j = 0; j < n; j++)
				blk[(size_t)j * nsw + s] = row[lid[j]];
	}
}

/* count_by_switch() for every destination, by LID, UR_BLOCK columns at a time. */
static int count_blocks(struct ur *u)
{
	const struct fabric *f = u->f;
	const struct rt_routing *r = u->r;
	size_t nsw = f->nswitches;
	uint32_t *byl = malloc(((size_t)r->lft_len + 1) * sizeof(*byl)), d[UR_BLOCK], n = 0;
	uint8_t *blk = malloc(nsw * UR_BLOCK + 1);
	unsigned lid[UR_BLOCK];

	if (!byl || !blk) {
		free(byl);
		free(blk);
		return -1;
	}
	for (uint32_t l = 0; l < r->lft_len; l++)
		byl[l] = FAB_NONE;
	for (uint32_t e = 0; e < f->neps; e++) {
		unsigned l = fab_ep_lid(f, e);

		if (l && l < r->lft_len)
			byl[l] = e;	/* a base LID is one endpoint's */
		else
			count_by_switch(u, e, table_col(r, l));
	}
	for (uint32_t l = 1; l < r->lft_len; l++) {
		if (byl[l] != FAB_NONE) {
			d[n] = byl[l];
			lid[n++] = l;
		}
		if (n == UR_BLOCK || (n && l == r->lft_len - 1)) {
			gather(r, (uint32_t)nsw, lid, n, blk);
			for (uint32_t j = 0; j < n; j++)
				count_by_switch(u, d[j], (struct col){ .e = blk + j * nsw, .stride = 1 });
			n = 0;
		}
	}
	free(byl);
	free(blk);
	return 0;
}

/* Every switch port's step; -1 when out of memory. */
static int steps(struct ur *u)
{
	const struct fabric *f = u->f;

	u->base = malloc(((size_t)f->nswitches + 1) * sizeof(*u->base));
	if (!u->base)
		return -1;
	u->base[0] = 0;
	for (uint32_t s = 0; s < f->nswitches; s++)
		u->base[s + 1] = u->base[s] + f->nodes[f->switches[s]].nports + 1;
	u->step = malloc(((size_t)u->base[f->nswitches] + 1) * sizeof(*u->step));
	if (!u->step)
		return -1;
	for (uint32_t s = 0; s < f->nswitches; s++)
		u->step[u->base[s]] = UR_LOST;
	for (uint32_t e = 0; e < f->neps; e++)	/* port 0: the switch's own endpoint */
		if (f->nodes[f->eps[e].node].type == FAB_SWITCH)
			u->step[u->base[f->nodes[f->eps[e].node].swidx]] = UR_END | e;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s], *t = u->step + u->base[s], e;

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			const struct fab_port *x = fab_port(f, node, p);

			if (x->peer == FAB_NONE) {
				t[p] = UR_LOST;
			} else if (f->nodes[x->peer].type == FAB_SWITCH) {
				t[p] = f->nodes[x->peer].swidx;
			} else {
				e = fab_ep_of_node(f, x->peer, x->peer_port);
				t[p] = e == FAB_NONE ? UR_LOST : UR_END | e;
			}
		}
	}
	return 0;
}

int eng_unreachable(const struct fabric *f, const struct rt_routing *r,
		    uint64_t out[AN_NCLASSES])
{
	size_t ns = f->nswitches ? f->nswitches : 1;
	struct ur u = { .f = f, .r = r, .out = out };
	int rc = -1;

	memset(out, 0, AN_NCLASSES * sizeof(*out));
	u.st = malloc(ns * (r->dlid_off ? 128 : 1));
	u.stack = malloc(ns * sizeof(*u.stack));
	u.ca_on = calloc(ns, sizeof(*u.ca_on));
	u.odd = malloc(((size_t)f->neps + 1) * sizeof(*u.odd));
	if (!u.st || !u.stack || !u.ca_on || !u.odd || steps(&u))
		goto out;
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_port *x = fab_port(f, f->eps[e].node, f->eps[e].port);

		if (f->nodes[f->eps[e].node].type == FAB_SWITCH)
			continue;
		if (x->peer != FAB_NONE && f->nodes[x->peer].type == FAB_SWITCH)
			u.ca_on[f->nodes[x->peer].swidx]++;
		else
			u.odd[u.nodd++] = e;
	}
	if (r->dlid_off) {
		for (uint32_t d = 0; d < f->neps; d++)
			count_by_source(&u, d);
		rc = 0;
	} else {
		rc = count_blocks(&u);
	}
out:
	free(u.st);
	free(u.stack);
	free(u.ca_on);
	free(u.odd);
	free(u.base);
	free(u.step);
	return rc;
}

const char *eng_unreachable_text(const uint64_t n[AN_NCLASSES], char *buf, size_t len)
{
	if (!n[AN_CA_CA] && !n[AN_CA_SW] && !n[AN_SW_CA] && !n[AN_SW_SW])
		snprintf(buf, len, "unreachable pairs: none");
	else
		snprintf(buf, len, "unreachable pairs: CA->CA %llu, CA->switch %llu, switch->CA %llu, "
			 "switch->switch %llu", (unsigned long long)n[AN_CA_CA],
			 (unsigned long long)n[AN_CA_SW], (unsigned long long)n[AN_SW_CA],
			 (unsigned long long)n[AN_SW_SW]);
	return buf;
}
