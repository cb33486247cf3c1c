/* SPDX-License-Identifier: MIT */
/**
 * DOC: balanced forwarding tables shared by minhop and updn
 *
 * Every switch is filled on its own: its table depends only on the
 * candidate ports the engine gives it and on the order LIDs are taken in,
 * as in OpenSM's unicast manager (osm_ucast_mgr.c, osm_switch.c), whose
 * choices these are, entry for entry:
 *
 * Order of destinations. CA and router ports first, grouped by the switch
 * they hang off: switches with the most such ports first, then in the
 * order of OpenSM's switch map; within a switch, by its port number. Then
 * every other endpoint (the switches' port 0) in the order of OpenSM's port
 * map. OpenSM keys both maps by the GUID in network byte order, so on the
 * little-endian hosts it runs on the order is that of the byte-reversed
 * GUID; we use the same key. With LMC, offset 0 of every endpoint comes
 * first, then offset 1 of every endpoint whose range has one, and so on.
 *
 * Choice of a port. Each switch keeps, per output port, the number of LIDs
 * routed through it so far (LIDs of switches enter it only with
 * count_switch_lids, OpenSM's port_profile_switch_nodes). Among the
 * candidate ports, visited in ascending order (for the second and later
 * LIDs of a range: starting after the port the previous LID of the range
 * took, wrapping around), the LID goes to:
 *  1. the least loaded port leading to a system (system image GUID, or the
 *     node GUID when unknown) that no earlier LID of the same range reached
 *     from this switch;
 *  2. else the least loaded port leading to a node no earlier LID of the
 *     range reached;
 *  3. else the least loaded port, ties going to the port whose remote node
 *     took the fewest LIDs of the range (OpenSM's tie rule, including its
 *     habit of not letting such a tie win once 1. or 2. had a candidate).
 * The first port in visiting order wins every remaining tie. With LMC 0,
 * all three come down to "the least loaded port, lowest number first".
 * (OpenSM compares raw system image GUIDs, so nodes that report none all
 * count as one system; that gives the same choices as ours unless some
 * nodes report one and others do not.)
 *
 * Checked entry for entry against OpenSM 3.3.23 under ibsim, LMC 0 to 2,
 * up to 334 switches: tests/data/engines/README.md.
 *
 * Cost: per switch, one pass over all LIDs, each looking at its candidate
 * ports; the engine's candidate lists cost O(switches x links) per switch.
 */
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "engines/ucast/ucast.h"

int ucast_adj_build(const struct fabric *f, struct ucast_adj *a)
{
	uint32_t n = 0, cap = 1;

	memset(a, 0, sizeof(*a));
	for (uint32_t s = 0; s < f->nswitches; s++)
		cap += f->nodes[f->switches[s]].nports;
	a->off = malloc(((size_t)f->nswitches + 1) * sizeof(*a->off));
	a->peer = malloc((size_t)cap * sizeof(*a->peer));
	a->port = malloc(cap);
	if (!a->off || !a->peer || !a->port) {
		ucast_adj_free(a);
		return -1;
	}
	for (uint32_t s = 0; s < f->nswitches; s++) {
		a->off[s] = n;
		for (unsigned p = 1; p <= f->nodes[f->switches[s]].nports; p++) {
			uint32_t w = fab_sw_peer(f, s, p);

			if (w == FAB_NONE || w == s)
				continue;
			a->peer[n] = w;
			a->port[n++] = (uint8_t)p;
		}
		if (n - a->off[s] > a->maxdeg)
			a->maxdeg = n - a->off[s];
	}
	a->off[f->nswitches] = n;
	return 0;
}

void ucast_adj_free(struct ucast_adj *a)
{
	free(a->off);
	free(a->peer);
	free(a->port);
	memset(a, 0, sizeof(*a));
}

int ucast_split(const struct fabric *f, const struct ucast_adj *adj, uint32_t *a, uint32_t *b)
{
	uint32_t n = f->nswitches, head = 0, tail = 0, *queue;
	uint8_t *seen;
	int rc = 0;

	if (n < 2)
		return 0;
	queue = malloc((size_t)n * sizeof(*queue));
	seen = calloc(n, 1);
	if (!queue || !seen) {
		free(queue);
		free(seen);
		return -1;
	}
	seen[0] = 1;
	queue[tail++] = 0;
	while (head < tail) {
		uint32_t v = queue[head++];

		for (uint32_t k = adj->off[v]; k < adj->off[v + 1]; k++)
			if (!seen[adj->peer[k]]) {
				seen[adj->peer[k]] = 1;
				queue[tail++] = adj->peer[k];
			}
	}
	for (uint32_t s = 0; s < n && !rc; s++)
		if (!seen[s]) {
			*a = 0;
			*b = s;
			rc = 1;
		}
	free(queue);
	free(seen);
	return rc;
}

/* --- the order of destinations --------------------------------------------- */

/* Key of a GUID in OpenSM's maps (network byte order read as a host integer). */
static uint64_t osm_key(uint64_t guid)
{
	return __builtin_bswap64(guid);
}

/* One LID to route: endpoint, the switch it hangs off, offset in its range. */
struct dest {
	uint32_t ep;
	uint32_t sw;
	uint16_t lid;
	uint8_t off;
	uint8_t counted;
};

struct sw_rank {
	uint32_t links;		/* CA and router ports attached */
	uint64_t key;
	uint32_t sw;
};

struct ep_rank {
	uint64_t key;
	uint32_t ep;
};

static int cmp_sw(const void *a, const void *b)
{
	const struct sw_rank *x = a, *y = b;

	if (x->links != y->links)
		return x->links > y->links ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

static int cmp_ep(const void *a, const void *b)
{
	const struct ep_rank *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->ep < y->ep ? -1 : x->ep > y->ep;
}

/* Switch index endpoint @e hangs off (its own for a switch), FAB_NONE if none. */
static uint32_t ep_switch(const struct fabric *f, uint32_t e)
{
	const struct fab_ep *ep = &f->eps[e];
	const struct fab_port *p;

	if (f->nodes[ep->node].type == FAB_SWITCH)
		return f->nodes[ep->node].swidx;
	p = fab_port(f, ep->node, ep->port);
	if (p->peer == FAB_NONE || f->nodes[p->peer].type != FAB_SWITCH)
		return FAB_NONE;
	return f->nodes[p->peer].swidx;
}

static int is_terminal(const struct fabric *f, uint32_t node)
{
	return f->nodes[node].type != FAB_SWITCH;
}

/* CA and router ports of each switch, in OpenSM's switch order; 0 or -1. */
static int order_attached(const struct fabric *f, uint32_t *order, uint32_t *n, uint8_t *seen)
{
	struct sw_rank *sr = malloc(((size_t)f->nswitches + 1) * sizeof(*sr));

	if (!sr)
		return -1;
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s];

		sr[s] = (struct sw_rank){ 0, osm_key(f->nodes[node].guid), s };
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t peer = fab_port(f, node, p)->peer;

			sr[s].links += peer != FAB_NONE && is_terminal(f, peer);
		}
	}
	qsort(sr, f->nswitches, sizeof(*sr), cmp_sw);
	for (uint32_t i = 0; i < f->nswitches; i++) {
		uint32_t node = f->switches[sr[i].sw];

		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			const struct fab_port *x = fab_port(f, node, p);
			uint32_t e;

			if (x->peer == FAB_NONE || !is_terminal(f, x->peer))
				continue;
			e = fab_ep_of_node(f, x->peer, x->peer_port);
			if (e != FAB_NONE && !seen[e]) {
				seen[e] = 1;
				order[(*n)++] = e;
			}
		}
	}
	free(sr);
	return 0;
}

/* Every endpoint, in the order OpenSM routes them; NULL when out of memory. */
static uint32_t *endpoint_order(const struct fabric *f)
{
	uint32_t *order = malloc(((size_t)f->neps + 1) * sizeof(*order)), n = 0, rest = 0;
	uint8_t *seen = calloc((size_t)f->neps + 1, 1);
	struct ep_rank *er = malloc(((size_t)f->neps + 1) * sizeof(*er));

	if (!order || !seen || !er || order_attached(f, order, &n, seen)) {
		free(order);
		order = NULL;
		goto out;
	}
	for (uint32_t e = 0; e < f->neps; e++)
		if (!seen[e])
			er[rest++] = (struct ep_rank){
				osm_key(fab_port(f, f->eps[e].node, f->eps[e].port)->guid), e };
	qsort(er, rest, sizeof(*er), cmp_ep);
	for (uint32_t i = 0; i < rest; i++)
		order[n++] = er[i].ep;
out:
	free(seen);
	free(er);
	return order;
}

/* The LIDs to route, offset-major over endpoint_order(); NULL when out of memory. */
static struct dest *dest_list(const struct fabric *f, const struct ucast_opts *o, size_t *nd)
{
	uint32_t *order = endpoint_order(f);
	unsigned range = 1;
	size_t n = 0, cap = 1;
	struct dest *d;

	if (!order)
		return NULL;
	for (uint32_t e = 0; e < f->neps; e++) {
		cap += fab_ep_lid(f, e) ? 1u << fab_ep_lmc(f, e) : 0;
		if (fab_ep_lid(f, e) && (1u << fab_ep_lmc(f, e)) > range)
			range = 1u << fab_ep_lmc(f, e);
	}
	d = malloc(cap * sizeof(*d));
	for (unsigned off = 0; d && off < range; off++)
		for (uint32_t i = 0; i < f->neps; i++) {
			uint32_t e = order[i];
			unsigned lid = fab_ep_lid(f, e);

			if (!lid || off >= 1u << fab_ep_lmc(f, e) || lid + off > FAB_LID_UCAST_MAX)
				continue;
			d[n++] = (struct dest){
				.ep = e, .sw = ep_switch(f, e), .lid = (uint16_t)(lid + off),
				.off = (uint8_t)off,
				.counted = is_terminal(f, f->eps[e].node) || o->count_switch_lids,
			};
		}
	free(order);
	*nd = n;
	return d;
}

/* --- choosing ports ---------------------------------------------------------- */

/*
 * struct fill - state of ucast_fill()
 * @count: LIDs routed through each port of the current switch
 * @tbase: per endpoint with LMC > 0, where its remote-node records start in
 *         @tnode and @tfwd (FAB_NONE for LMC 0); @tn: how many it has
 * @tnode, @tfwd: remote node reached by LIDs of the range from the current
 *                switch, and how many LIDs went there
 */
struct fill {
	const struct fabric *f;
	struct rt_routing *r;
	struct dest *dest;
	size_t ndest;
	struct ucast_cands c;
	uint32_t count[FAB_PORTS_MAX + 1];
	uint32_t *tbase;
	uint8_t *tn;
	uint32_t *tnode, *tfwd;
};

static uint64_t sys_of(const struct fabric *f, uint32_t node)
{
	return f->nodes[node].sysimg_guid ? f->nodes[node].sysimg_guid : f->nodes[node].guid;
}

/* Record of endpoint @ep for remote node @rem (by system when @by_sys); NULL if none. */
static uint32_t *trk_find(const struct fill *st, uint32_t ep, uint32_t rem, int by_sys)
{
	uint32_t base = st->tbase[ep];

	if (base == FAB_NONE)
		return NULL;
	for (unsigned i = 0; i < st->tn[ep]; i++) {
		uint32_t node = st->tnode[base + i];

		if (by_sys ? sys_of(st->f, node) == sys_of(st->f, rem) : node == rem)
			return &st->tfwd[base + i];
	}
	return NULL;
}

static void trk_add(struct fill *st, uint32_t ep, uint32_t rem)
{
	uint32_t *fwd = trk_find(st, ep, rem, 0), base = st->tbase[ep];

	if (base == FAB_NONE)
		return;
	if (!fwd && st->tn[ep] < 1u << fab_ep_lmc(st->f, ep)) {
		st->tnode[base + st->tn[ep]] = rem;
		st->tfwd[base + st->tn[ep]] = 0;
		fwd = &st->tfwd[base + st->tn[ep]++];
	}
	if (fwd)
		(*fwd)++;
}

struct best {
	uint8_t port;
	uint32_t load;
};

/* Offer port @p with @load to @b: taken when strictly less loaded. */
static int offer(struct best *b, uint8_t p, uint32_t load)
{
	if (load >= b->load)
		return 0;
	b->port = p;
	b->load = load;
	return 1;
}

/* The least loaded of @cand, visited from index @k0 on, wrapping around. */
static uint8_t least_loaded(const struct fill *st, const uint8_t *cand, uint32_t n, uint32_t k0)
{
	struct best b = { 0, UINT32_MAX };

	for (uint32_t i = k0; i < n; i++)
		offer(&b, cand[i], st->count[cand[i]]);
	for (uint32_t i = 0; i < k0; i++)
		offer(&b, cand[i], st->count[cand[i]]);
	return b.port;
}

/* The port of switch node @node for one LID of endpoint @ep (see the DOC above). */
static uint8_t pick(const struct fill *st, uint32_t node, const uint8_t *cand, uint32_t n,
		    unsigned start, uint32_t ep)
{
	struct best any = { 0, UINT32_MAX }, new_sys = any, new_node = any;
	uint32_t least_fwd = UINT32_MAX, k0 = 0;

	while (k0 < n && cand[k0] < start)
		k0++;
	if (k0 == n)
		k0 = 0;
	if (st->tbase[ep] == FAB_NONE || !st->tn[ep])
		return least_loaded(st, cand, n, k0);	/* every port leads somewhere new */
	for (uint32_t i = 0; i < n; i++) {
		uint8_t p = cand[k0 + i < n ? k0 + i : k0 + i - n];
		uint32_t load = st->count[p], rem = fab_port(st->f, node, p)->peer;
		const uint32_t *used = NULL;

		if (!trk_find(st, ep, rem, 1)) {
			if (offer(&new_sys, p, load))
				least_fwd = 0;
		} else if (!(used = trk_find(st, ep, rem, 0))) {
			if (offer(&new_node, p, load))
				least_fwd = 0;
		}
		if (offer(&any, p, load)) {
			if (used && *used < least_fwd)
				least_fwd = *used;
		} else if (used && load == any.load && *used < least_fwd) {
			least_fwd = *used;
			any.port = p;
		}
	}
	return new_sys.port ? new_sys.port : new_node.port ? new_node.port : any.port;
}

/* Fill the LFT of switch @s. */
static void fill_switch(struct fill *st, uint32_t s, ucast_cands_fn cands, const void *ctx)
{
	const struct fabric *f = st->f;
	uint32_t node = f->switches[s];
	unsigned nports = f->nodes[node].nports;
	uint8_t *lft = rt_lft(st->r, s);

	memset(st->count, 0, sizeof(st->count));
	memset(st->tn, 0, f->neps);
	cands(ctx, s, &st->c);
	for (size_t i = 0; i < st->ndest; i++) {
		const struct dest *d = &st->dest[i];
		uint32_t lo, hi;
		unsigned start = 1;
		uint8_t p;

		if (d->sw == FAB_NONE || d->sw == s || d->lid >= st->r->lft_len)
			continue;
		lo = st->c.off[d->sw];
		hi = st->c.off[d->sw + 1];
		if (lo == hi)
			continue;
		if (d->off)
			start = (lft[d->lid - 1] + 1u) % (nports + 1u);
		p = pick(st, node, st->c.port + lo, hi - lo, start, d->ep);
		lft[d->lid] = p;
		if (d->counted) {
			st->count[p]++;
			trk_add(st, d->ep, fab_port(f, node, p)->peer);
		}
	}
}

/* Room for the remote-node records of the endpoints with LMC > 0; 0 or -1. */
static int trk_alloc(struct fill *st)
{
	const struct fabric *f = st->f;
	size_t n = 0;

	st->tbase = malloc(((size_t)f->neps + 1) * sizeof(*st->tbase));
	st->tn = calloc((size_t)f->neps + 1, 1);
	if (!st->tbase || !st->tn)
		return -1;
	for (uint32_t e = 0; e < f->neps; e++) {
		st->tbase[e] = fab_ep_lmc(f, e) ? (uint32_t)n : FAB_NONE;
		n += fab_ep_lmc(f, e) ? 1u << fab_ep_lmc(f, e) : 0;
	}
	st->tnode = malloc((n + 1) * sizeof(*st->tnode));
	st->tfwd = malloc((n + 1) * sizeof(*st->tfwd));
	return st->tnode && st->tfwd ? 0 : -1;
}

int ucast_fill(const struct fabric *f, struct rt_routing *r, const struct ucast_adj *adj,
	       const struct ucast_opts *o, ucast_cands_fn cands, const void *ctx)
{
	struct fill st = { .f = f, .r = r };
	int rc = -1;

	eng_route_endpoints(f, r);
	st.dest = dest_list(f, o, &st.ndest);
	st.c.off = malloc(((size_t)f->nswitches + 1) * sizeof(*st.c.off));
	st.c.port = malloc((size_t)f->nswitches * adj->maxdeg + 1);
	if (!st.dest || !st.c.off || !st.c.port || trk_alloc(&st))
		goto out;
	for (uint32_t s = 0; s < f->nswitches; s++)
		fill_switch(&st, s, cands, ctx);
	rc = 0;
out:
	free(st.dest);
	free(st.c.off);
	free(st.c.port);
	free(st.tbase);
	free(st.tn);
	free(st.tnode);
	free(st.tfwd);
	return rc;
}
