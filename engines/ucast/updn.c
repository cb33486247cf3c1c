/* SPDX-License-Identifier: MIT */
/**
 * DOC: updn - Up/Down routing (Schroeder et al.'s Autonet rule, as in OpenSM)
 *
 * Ranks. Root switches get rank 0, every other switch its BFS distance from
 * the nearest root. The switches are then totally ordered by (rank, node
 * GUID); a hop towards a switch earlier in that order is "up", any other
 * hop "down" (between equal ranks, towards the lower GUID is up, as in
 * OpenSM). A legal path makes zero or more up hops, then zero or more down
 * hops, never a down hop followed by an up hop. Since up hops and down hops
 * each follow a strict order, no cycle of channel dependencies can form:
 * the routing is deadlock-free on one VL, paths from and to switches
 * included.
 *
 * Roots. Option roots (descriptions or 0x GUIDs; a CA names its switch)
 * and OpenSM's root_guid_file (node GUIDs one a line; a CA's stands for its
 * switch; GUIDs not in the fabric are ignored; a file that names no node of
 * the fabric makes updn not applicable, as OpenSM disables its updn then).
 * Without it, detect=center picks one root: among the switches with CAs
 * attached (all switches when none has), the one with the least total hop
 * distance to all switches, then the lowest GUID. One root makes every
 * pair reachable (up to the root, down its BFS tree). Taking it among the
 * leaves keeps the shortest leaf-to-leaf paths of fat trees legal (on every
 * tree family of the tests, degraded ones included, each CA-to-CA path is
 * a shortest one and CA traffic spreads over all spines as with minhop);
 * spine-to-spine paths turn at the root leaf. detect=osm uses OpenSM's rule instead: every switch for
 * which more than 90% of the CAs sit at one hop distance and no other
 * distance holds more than 5% (the spines of a fat tree). Several roots
 * leave switches without a legal path to one another (two spines: down to
 * a leaf, then up again); strict=1 (default) refuses such a fabric and
 * names a pair, strict=0 routes the rest and leaves those pairs unrouted,
 * as OpenSM does.
 *
 * Paths. Destination-based tables need one next hop per switch and
 * destination, valid however the packet arrived. Per destination switch t,
 * a BFS from t finds each switch's distance and its state: "down" (its
 * route to t only goes down, so a switch above may come down through it)
 * or "up" (its route starts by going up; it may only be entered from
 * below). A switch may hop down only to a switch in state down, up to any.
 * Level by level, a switch takes the first distance at which a legal hop
 * reaches the set found so far, state down when a down hop does. Should
 * that leave a switch unreached (its only down routes crossing switches
 * that chose shorter up routes), the destination is done again with every
 * switch that has an all-down route keeping it, which reaches every switch
 * that has any legal path. The candidate ports of a switch are then its
 * legal hops one step closer to t (down hops to down-state switches for a
 * down-state switch, up hops for an up-state one).
 *
 * OpenSM differs in two corners: its BFS gives each switch the direction of
 * the first hop that reached it and accepts any port at the least hop
 * count, which can mix up and down ports on one switch; and it lets root
 * switches linked to each other hop between them in both directions. Both
 * can close a cycle (the first does on tests/data/engines/random-updn, with
 * paths from and to switches); neither is done here. Balancing over the candidate
 * ports is minhop's (engines/ucast/ucast.c).
 *
 * Cost: one BFS per destination switch, O(switches x (switches + links))
 * time, 2 x switches^2 bytes for distances and states.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/engine.h"
#include "engines/ucast/ucast.h"

static const struct eng_opt updn_opts[] = {
	{ .name = "roots", .type = ENG_OPT_LIST, .defval = "",
	  .help = "root switches, comma-separated descriptions or 0x node GUIDs (a CA stands for its "
	  "switch); empty: detect them" },
	{ .name = "detect", .type = ENG_OPT_ENUM, .defval = "center",
	  .help = "without roots: center (one switch with CAs, nearest to all switches) or osm (OpenSM's "
	  "CA hop histogram: the spines of a tree)",
	  .values = "center|osm" },
	{ .name = "strict", .type = ENG_OPT_BOOL, .defval = "1",
	  .help = "1: refuse a fabric where some switch has no up/down path to another; 0: leave those "
	  "pairs unrouted, as OpenSM does" },
	{ .name = "count_switch_lids", .type = ENG_OPT_BOOL, .defval = "0",
	  .help = "1: LIDs of switches count when balancing ports (as minhop)" },
	{ .name = "root_guid_file", .type = ENG_OPT_FILE, .defval = "",
	  .help = "OpenSM's root_guid_file: root switches by node GUID, one a line (a CA's GUID "
	  "stands for its switch; GUIDs not in the fabric are ignored), besides roots",
	  .check = eng_check_guids },
	{ .name = NULL },
};

#define UNREACHED UINT16_MAX
/* OpenSM's rule looks at hop distances below this (IB_SUBNET_PATH_HOPS_MAX). */
#define OSM_HOPS_MAX 64u

/*
 * struct updn - one routing in progress
 * @pos: place of each switch in the (rank, GUID) order; a hop to a switch
 *       with a lower place goes up
 * @rank: BFS distance from the nearest root
 * @key: per (switch x, destination t) at [x * nswitches + t]: distance << 1,
 *       plus 1 when x is in state down; UNREACHED without a legal path
 * @missing: (switch, destination) pairs without a legal path; @miss_s,
 *           @miss_t: the first one found
 * @redone: destinations routed again with the all-down routes kept
 */
struct updn {
	const struct fabric *f;
	struct ucast_adj adj;
	uint32_t *roots;
	size_t nroots;
	uint32_t *pos, *rank;
	uint16_t *key;
	uint64_t missing;
	uint32_t miss_s, miss_t, redone, maxrank;
	size_t file_guids, file_ignored;
};

/* --- roots -------------------------------------------------------------------- */

/* Add switch @s to the roots, once. */
static void add_switch(struct updn *u, uint32_t s)
{
	for (size_t j = 0; j < u->nroots; j++)
		if (u->roots[j] == s)
			return;
	u->roots[u->nroots++] = s;
}

/* Add the switch standing for @tok to the roots (once); 0 or -1 with @err. */
static int add_root(struct updn *u, const char *tok, struct fab_err *err)
{
	uint32_t node = fab_node_resolve(u->f, tok, "option roots: ", err), s;

	if (node == FAB_NONE)
		return -1;
	s = ucast_node_switch(u->f, node);
	if (s == FAB_NONE) {
		fab_err_set(err, "option roots: node \"%s\" is not linked to any switch", tok);
		return -1;
	}
	add_switch(u, s);
	return 0;
}

/*
 * The roots of root_guid_file, as OpenSM takes them: node GUIDs of switches;
 * a CA's node or port GUID stands for its switch (OpenSM's manual); GUIDs
 * of no node of the fabric are counted and ignored. ENG_OK or ENG_ERROR.
 */
static int roots_file(struct updn *u, const struct eng_args *a, struct fab_err *err)
{
	uint64_t *g;
	size_t n;
	int rc = eng_arg_guids(a, "root_guid_file", &g, &n, err);

	if (rc < 0)
		return ENG_ERROR;
	u->file_guids = n;
	for (size_t i = 0; i < n; i++) {
		uint32_t node = fab_node_by_guid(u->f, g[i]), ep, s;

		if (node == FAB_NONE && (ep = fab_ep_by_port_guid(u->f, g[i])) != FAB_NONE)
			node = u->f->eps[ep].node;
		s = node == FAB_NONE ? FAB_NONE : ucast_node_switch(u->f, node);
		if (s == FAB_NONE)
			u->file_ignored++;
		else
			add_switch(u, s);
	}
	free(g);
	return ENG_OK;
}

/* The comma list @list as root switches; ENG_OK or ENG_ERROR. */
static int roots_given(struct updn *u, const char *list, struct fab_err *err)
{
	char *copy = strdup(list), *save = NULL;
	int rc = ENG_OK;

	u->roots = malloc(((size_t)u->f->nswitches + 1) * sizeof(*u->roots));
	if (!copy || !u->roots) {
		free(copy);
		fab_err_set(err, "out of memory");
		return ENG_ERROR;
	}
	for (char *t = strtok_r(copy, ",", &save); t && rc == ENG_OK; t = strtok_r(NULL, ",", &save))
		if (add_root(u, t, err))
			rc = ENG_ERROR;
	free(copy);
	return rc;
}

/* CA and router ports attached to each switch. */
static void count_terminals(const struct fabric *f, uint32_t *cas)
{
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t node = f->switches[s];

		cas[s] = 0;
		for (unsigned p = 1; p <= f->nodes[node].nports; p++) {
			uint32_t peer = fab_port(f, node, p)->peer;

			cas[s] += peer != FAB_NONE && f->nodes[peer].type != FAB_SWITCH;
		}
	}
}

/* detect=center: the switch with CAs (any, if none has) nearest to all. */
static void roots_center(struct updn *u, const uint8_t *hops, const uint32_t *cas)
{
	const struct fabric *f = u->f;
	uint32_t ns = f->nswitches, best = FAB_NONE, any = 0;
	uint64_t best_sum = UINT64_MAX;

	for (uint32_t s = 0; s < ns; s++)
		any |= cas[s];
	for (uint32_t s = 0; s < ns; s++) {
		uint64_t sum = 0;

		if (any && !cas[s])
			continue;
		for (uint32_t t = 0; t < ns; t++)
			sum += hops[(size_t)s * ns + t];
		if (best == FAB_NONE || sum < best_sum ||
		    (sum == best_sum &&
		     f->nodes[f->switches[s]].guid < f->nodes[f->switches[best]].guid)) {
			best_sum = sum;
			best = s;
		}
	}
	u->roots[0] = best;
	u->nroots = best != FAB_NONE;
}

/* detect=osm: OpenSM's histogram of CA hop distances. */
static void roots_osm(struct updn *u, const uint8_t *hops, const uint32_t *cas)
{
	const struct fabric *f = u->f;
	uint32_t ns = f->nswitches;
	uint64_t total = 0;

	for (uint32_t t = 0; t < ns; t++)
		total += cas[t];
	u->nroots = 0;
	for (uint32_t s = 0; s < ns; s++) {
		uint64_t hist[UINT8_MAX + 1] = { 0 };
		unsigned over90 = 0, over5 = 0;

		for (uint32_t t = 0; t < ns; t++)
			hist[hops[(size_t)s * ns + t]] += cas[t];
		for (unsigned h = 0; h < OSM_HOPS_MAX; h++) {
			over90 += 10 * hist[h] > 9 * total;
			over5 += 20 * hist[h] > total;
		}
		if (over90 == 1 && over5 == 1)
			u->roots[u->nroots++] = s;
	}
}

/* Roots from the option or detected; ENG_OK, ENG_NOT_APPLICABLE or ENG_ERROR. */
static int find_roots(struct updn *u, const struct eng_args *a, struct fab_err *err)
{
	int osm = eng_arg_enum(a, "detect") == 1;
	uint32_t *cas;
	uint8_t *hops;

	if (roots_given(u, eng_arg(a, "roots"), err) || roots_file(u, a, err))
		return ENG_ERROR;
	if (u->nroots)
		return ENG_OK;
	if (*eng_arg(a, "root_guid_file")) {
		fab_err_set(err, "root_guid_file %s: none of its %zu GUIDs is a switch or CA of this "
			    "fabric (OpenSM's updn does not route then either)",
			    eng_arg(a, "root_guid_file"), u->file_guids);
		return ENG_NOT_APPLICABLE;
	}
	free(u->roots);
	u->roots = malloc(((size_t)u->f->nswitches + 1) * sizeof(*u->roots));
	cas = malloc(((size_t)u->f->nswitches + 1) * sizeof(*cas));
	hops = eng_hops(u->f);
	if (u->roots && cas && hops) {
		count_terminals(u->f, cas);
		if (osm)
			roots_osm(u, hops, cas);
		else
			roots_center(u, hops, cas);
	}
	free(cas);
	free(hops);
	if (!u->roots || !cas || !hops) {
		fab_err_set(err, "out of memory");
		return ENG_ERROR;
	}
	if (!u->nroots) {
		fab_err_set(err, "OpenSM's rule (detect=osm) finds no root switch: no switch sees "
			    "over 90%% of the CAs at one hop distance; give roots=");
		return ENG_NOT_APPLICABLE;
	}
	return ENG_OK;
}

/* --- ranks and order ------------------------------------------------------------ */

/* BFS ranks from the roots, then each switch's place in the (rank, GUID) order. */
static int rank_switches(struct updn *u)
{
	uint32_t ns = u->f->nswitches;

	u->rank = malloc(((size_t)ns + 1) * sizeof(*u->rank));
	u->pos = malloc(((size_t)ns + 1) * sizeof(*u->pos));
	if (!u->rank || !u->pos)
		return -1;
	return ucast_rank(u->f, &u->adj, u->roots, u->nroots, u->rank, u->pos, &u->maxrank);
}

/* --- distances to one destination ----------------------------------------------- */

/*
 * Level-by-level BFS from @t over legal hops: e[x] gets distance << 1 | down.
 * Return: switches reached.
 */
static uint32_t bfs_shortest(const struct updn *u, uint32_t t, uint16_t *e, uint32_t *queue)
{
	uint32_t head = 0, tail = 0;

	e[t] = 1;
	queue[tail++] = t;
	while (head < tail) {
		uint32_t w = queue[head++];
		uint16_t next = (uint16_t)(((e[w] >> 1) + 1) << 1);

		for (uint32_t k = u->adj.off[w]; k < u->adj.off[w + 1]; k++) {
			uint32_t x = u->adj.peer[k];
			int down = u->pos[x] < u->pos[w];	/* the hop x -> w goes down */

			if (down && !(e[w] & 1))
				continue;
			if (e[x] == UNREACHED) {
				e[x] = next | (uint16_t)down;
				queue[tail++] = x;
			} else if ((e[x] & ~1u) == next && down) {
				e[x] |= 1;
			}
		}
	}
	return tail;
}

/* Expand @w for bfs_down_first(): switches below it that go up to it. */
static void reach_up(const struct updn *u, uint32_t w, uint16_t *e, uint32_t *q, uint32_t *tail)
{
	for (uint32_t k = u->adj.off[w]; k < u->adj.off[w + 1]; k++) {
		uint32_t x = u->adj.peer[k];

		if (u->pos[x] > u->pos[w] && e[x] == UNREACHED) {
			e[x] = (uint16_t)(((e[w] >> 1) + 1) << 1);
			q[(*tail)++] = x;
		}
	}
}

/*
 * Every switch with an all-down route to @t keeps it (state down); the
 * others go up, to the nearest switch that has a route. @down and @upq hold
 * nswitches each. Return: switches reached.
 */
static uint32_t bfs_down_first(const struct updn *u, uint32_t t, uint16_t *e, uint32_t *down,
			       uint32_t *upq)
{
	uint32_t nd = 0, head = 0, i = 0, uh = 0, ut = 0;

	e[t] = 1;
	down[nd++] = t;
	while (head < nd) {
		uint32_t w = down[head++];

		for (uint32_t k = u->adj.off[w]; k < u->adj.off[w + 1]; k++) {
			uint32_t x = u->adj.peer[k];

			if (u->pos[x] < u->pos[w] && e[x] == UNREACHED) {
				e[x] = (uint16_t)((((e[w] >> 1) + 1) << 1) | 1);
				down[nd++] = x;
			}
		}
	}
	while (i < nd || uh < ut) {
		if (uh == ut || (i < nd && e[down[i]] >> 1 <= e[upq[uh]] >> 1))
			reach_up(u, down[i++], e, upq, &ut);
		else
			reach_up(u, upq[uh++], e, upq, &ut);
	}
	return nd + ut;
}

/* Fill column @t of u->key; count the switches left without a legal path. */
static void route_dest(struct updn *u, uint32_t t, uint16_t *e, uint32_t *q1, uint32_t *q2)
{
	uint32_t ns = u->f->nswitches;

	for (uint32_t x = 0; x < ns; x++)
		e[x] = UNREACHED;
	if (bfs_shortest(u, t, e, q1) < ns) {
		for (uint32_t x = 0; x < ns; x++)
			e[x] = UNREACHED;
		u->redone++;
		bfs_down_first(u, t, e, q1, q2);
	}
	for (uint32_t x = 0; x < ns; x++) {
		u->key[(size_t)x * ns + t] = e[x];
		if (e[x] == UNREACHED && !u->missing++) {
			u->miss_s = x;
			u->miss_t = t;
		}
	}
}

static int route_all(struct updn *u)
{
	uint32_t ns = u->f->nswitches;
	uint16_t *e = malloc(((size_t)ns + 1) * sizeof(*e));
	uint32_t *q1 = malloc(((size_t)ns + 1) * sizeof(*q1));
	uint32_t *q2 = malloc(((size_t)ns + 1) * sizeof(*q2));
	int rc = -1;

	u->key = malloc((size_t)ns * ns * sizeof(*u->key) + 1);
	if (e && q1 && q2 && u->key) {
		for (uint32_t t = 0; t < ns; t++)
			route_dest(u, t, e, q1, q2);
		rc = 0;
	}
	free(e);
	free(q1);
	free(q2);
	return rc;
}

/* Legal hops of switch @s one step closer to each destination. */
static void updn_cands(const void *ctx, uint32_t s, struct ucast_cands *c)
{
	const struct updn *u = ctx;
	uint32_t ns = u->f->nswitches, n = 0;
	const uint16_t *ks = u->key + (size_t)s * ns;

	for (uint32_t t = 0; t < ns; t++) {
		uint16_t k = ks[t];

		c->off[t] = n;
		if (t == s || k == UNREACHED)
			continue;
		for (uint32_t j = u->adj.off[s]; j < u->adj.off[s + 1]; j++) {
			uint32_t w = u->adj.peer[j];
			uint16_t kw = u->key[(size_t)w * ns + t];
			int up = u->pos[w] < u->pos[s];

			if (kw == UNREACHED || (kw >> 1) + 1 != k >> 1)
				continue;
			if ((k & 1) ? !up && (kw & 1) : up)
				c->port[n++] = u->adj.port[j];
		}
	}
	c->off[ns] = n;
}

/* --- the engine ------------------------------------------------------------------ */

/* "'S1', 'S2' and 7 more" into @buf. */
static void root_names(const struct updn *u, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < u->nroots && i < 3; i++) {
		int w = snprintf(buf + used, len - used, "%s'%s'", i ? ", " : "",
				 FAB_LABEL(u->f, u->f->switches[u->roots[i]]));

		if (w < 0 || (size_t)w >= len - used)
			return;
		used += (size_t)w;
	}
	if (u->nroots > 3)
		snprintf(buf + used, len - used, " and %zu more", u->nroots - 3);
}

static char *updn_notes(const struct updn *u, int detected)
{
	char names[200], buf[600], from[160];
	int n;

	if (!u->nroots)
		return strdup("no switches to route");
	root_names(u, names, sizeof(names));
	if (u->file_guids)
		snprintf(from, sizeof(from), "given, root_guid_file: %zu GUIDs, %zu not in the fabric "
			 "ignored", u->file_guids, u->file_ignored);
	n = snprintf(buf, sizeof(buf), "root%s %s (%s), ranks 0-%u", u->nroots > 1 ? "s" : "",
		     names, detected ? "detected" : u->file_guids ? from : "given", u->maxrank);
	if (u->redone && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "; %u of %u destination switches "
			      "routed with all-down routes kept", u->redone, u->f->nswitches);
	if (u->missing && n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n, "; %llu switch pairs without an up/down "
			 "path left unrouted", (unsigned long long)u->missing);
	return strdup(buf);
}

static int not_applicable(const struct updn *u, struct fab_err *err)
{
	char names[200];

	root_names(u, names, sizeof(names));
	fab_err_set(err, "no up/down path from switch '%s' to switch '%s' with root%s %s "
		    "(%llu switch pairs have none; strict=0 routes the others)",
		    FAB_LABEL(u->f, u->f->switches[u->miss_s]),
		    FAB_LABEL(u->f, u->f->switches[u->miss_t]), u->nroots > 1 ? "s" : "", names,
		    (unsigned long long)u->missing);
	return ENG_NOT_APPLICABLE;
}

/* Everything up to the distances; ENG_OK, ENG_NOT_APPLICABLE or ENG_ERROR. */
static int prepare(struct updn *u, const struct eng_args *a, int strict, struct fab_err *err)
{
	uint32_t x, y;
	int rc;

	if (ucast_adj_build(u->f, &u->adj))
		goto oom;
	rc = ucast_split(u->f, &u->adj, &x, &y);
	if (rc < 0)
		goto oom;
	if (rc) {
		fab_err_set(err, "the switches are not all connected: '%s' cannot reach '%s'",
			    FAB_LABEL(u->f, u->f->switches[x]), FAB_LABEL(u->f, u->f->switches[y]));
		return ENG_NOT_APPLICABLE;
	}
	if (!u->f->nswitches)
		return ENG_OK;
	rc = find_roots(u, a, err);
	if (rc != ENG_OK)
		return rc;
	if (rank_switches(u) || route_all(u))
		goto oom;
	if (u->missing && strict)
		return not_applicable(u, err);
	return ENG_OK;
oom:
	fab_err_set(err, "out of memory");
	return ENG_ERROR;
}

static int updn_route(const struct eng_req *q, const struct eng_args *a, struct eng_res *res,
		struct fab_err *err)
{
	const struct fabric *f = q->fabric;
	struct rt_routing **out = &res->routing;
	struct updn u = { .f = f };
	struct ucast_opts o = { 0 };
	struct rt_routing *r = NULL;
	int given = *eng_arg(a, "roots") || *eng_arg(a, "root_guid_file");
	int strict = eng_arg_bool(a, "strict"), rc;

	*out = NULL;
	o.count_switch_lids = eng_arg_bool(a, "count_switch_lids");
	rc = prepare(&u, a, strict, err);
	if (rc == ENG_OK) {
		r = rt_new(f);
		if (!r || ucast_fill(f, r, &u.adj, &o, updn_cands, &u) ||
		    !(r->notes = updn_notes(&u, !given))) {
			fab_err_set(err, "out of memory");
			rc = ENG_ERROR;
		}
	}
	if (rc == ENG_OK) {
		*out = r;
		r = NULL;
	}
	rt_free(r);
	ucast_adj_free(&u.adj);
	free(u.roots);
	free(u.rank);
	free(u.pos);
	free(u.key);
	return rc;
}

const struct engine eng_updn = {
	.name = "updn",
	.summary = "Up/Down: shortest legal up-then-down paths from BFS ranks, deadlock-free on 1 VL",
	.options = updn_opts,
	.deadlock_free = 1,
	.vls = 1,
	.route = updn_route,
};
