/* SPDX-License-Identifier: MIT */
/**
 * DOC: permutation metrics (papers/003)
 *
 * Machines are the CA endpoints. A machine pair's path is the directed
 * links it crosses, terminal links included (CA -> switch, ..., switch ->
 * CA), following the LFTs with the DLID rt_dlid() gives the pair; pairs
 * whose path does not deliver are ignored. A directed link is named by the
 * port slot it leaves from.
 *
 * Paths: under destination-based forwarding the switch part of a path only
 * depends on the switch the source's packets enter (its "entry") and on the
 * DLID, so it is traced once per (entry, DLID) key, on first use, and kept.
 * A pair's path is its terminal link followed by its key's links: O(L) per
 * pair (L the path length), O(entries x LIDs + keys x L) memory, never
 * O(machines^2).
 *
 * WORST (eq. 1): a permutation is a set of pairs with distinct sources and
 * distinct destinations, so the most pairs of one permutation on a link is
 * a maximum matching in the bipartite graph (sources, destinations) of the
 * pairs crossing it (Hopcroft-Karp). All M(M - 1) pairs are traced once;
 * then each link whose bound min(distinct sources, distinct destinations)
 * beats the best so far gets its graph built (O(E), E its pairs) and
 * matched (O(E sqrt(M))): O(M^2 L sqrt(M)) at worst, far less on trees,
 * where the bound prunes most links. A source's own link carries only its
 * pairs (matching 1). Beyond PERM_WORST_MAX machines WORST is refused.
 *
 * ABB, AFPB, ADB (section IV) average 1/ML over random patterns, ML being
 * the most routed pairs of the pattern on one link (1 when none is routed):
 * bisect patterns (a random half of the machines each sends to a distinct
 * machine of the other half), full permutations (uniform derangements:
 * uniform permutations drawn until one has no fixed point, e draws on
 * average) and dissemination patterns (a uniform perfect matching, both
 * directions of each matched pair). With an odd machine count one random
 * machine idles in bisect and dissemination patterns (it "sends to
 * itself", which definition 1 leaves out). As in the paper: draw
 * min_samples patterns, take the 99% confidence interval's half width
 * (z = 2.576, sample standard deviation), stop when it is below rel_ci
 * times the mean, else double the sample (keeping the patterns drawn), up
 * to max_samples. A pattern costs O(M L). Each metric has its own random
 * stream derived from the seed: its figures do not depend on which other
 * metrics are computed.
 *
 * Pure: no I/O, no global state.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"
#include "analysis/perm_impl.h"

#define PERM_Z99 2.576
#define PERM_REL_CI 0.01
#define PERM_MIN_SAMPLES 1000u
#define PERM_MAX_SAMPLES 128000u
/* Allocate the arrays of @c back to back. Return: the block, or NULL. */
uint32_t *perm_carve(const struct carve *c, size_t k)
{
	size_t total = 0, at = 0;
	uint32_t *blk;

	for (size_t i = 0; i < k; i++)
		total += c[i].n;
	blk = calloc(total ? total : 1, sizeof(*blk));
	for (size_t i = 0; blk && i < k; at += c[i++].n)
		*c[i].ptr = blk + at;
	return blk;
}

/* --- set-up ---------------------------------------------------------------- */

static void perm_fini(struct perm *p)
{
	free(p->block);
	free(p->keymap);
	free(p->links);
	memset(p, 0, sizeof(*p));
}

static uint32_t count_machines(const struct fabric *f)
{
	uint32_t n = 0;

	for (uint32_t e = 0; e < f->neps; e++)
		n += f->nodes[f->eps[e].node].type == FAB_CA;
	return n;
}

/* Machines entering at each entry switch, in machine order (CSR). */
static void entry_lists(struct perm *p)
{
	for (uint32_t i = 0; i < p->n; i++)
		if (p->entry[i] != NONE)
			p->emach_off[p->entry[i] + 2]++;
	for (uint32_t e = 0; e < p->nentries; e++)
		p->emach_off[e + 2] += p->emach_off[e + 1];
	for (uint32_t i = 0; i < p->n; i++)
		if (p->entry[i] != NONE)
			p->emach[p->emach_off[p->entry[i] + 1]++] = i;
}

/* Number the machines and the switches they enter; @sw_entry is scratch. */
static void find_machines(struct perm *p, uint32_t *sw_entry)
{
	const struct fabric *f = p->f;
	uint32_t i = 0;

	for (uint32_t e = 0; e < f->neps; e++)
		p->ep_mach[e] = f->nodes[f->eps[e].node].type == FAB_CA ? i++ : NONE;
	for (uint32_t e = 0; e < f->neps; e++) {
		const struct fab_ep *ep = &f->eps[e];
		const struct fab_port *x = fab_port(f, ep->node, ep->port);
		uint32_t m = p->ep_mach[e];

		if (m == NONE)
			continue;
		p->ep[m] = e;
		p->term[m] = slot_of(f, ep->node, ep->port);
		p->entry[m] = p->peer[m] = NONE;
		if (x->peer == FAB_NONE)
			continue;
		if (f->nodes[x->peer].type == FAB_SWITCH) {
			uint32_t sw = f->nodes[x->peer].swidx;

			if (sw_entry[sw] == NONE) {
				p->entry_sw[p->nentries] = sw;
				sw_entry[sw] = p->nentries++;
			}
			p->entry[m] = sw_entry[sw];
		} else {
			uint32_t pe = fab_ep_of_node(f, x->peer, x->peer_port);

			p->peer[m] = pe == FAB_NONE ? NONE : p->ep_mach[pe];
		}
	}
	entry_lists(p);
}

static int perm_alloc(struct perm *p)
{
	const struct fabric *f = p->f;
	size_t n = p->n, nsw = (size_t)f->nswitches + 1, nslots = (size_t)f->nports + 1;
	uint32_t *sw_entry;
	const struct carve c[] = {
		{ &p->ep, n }, { &p->term, n }, { &p->entry, n }, { &p->peer, n },
		{ &p->ep_mach, f->neps }, { &p->entry_sw, nsw }, { &p->visit, nsw },
		{ &p->load, nslots }, { &p->lstamp, nslots }, { &p->emach, n },
		{ &p->emach_off, nsw + 1 }, { &sw_entry, nsw },
	};

	p->block = perm_carve(c, sizeof(c) / sizeof(c[0]));
	if (!p->block)
		return -1;
	memset(sw_entry, 0xff, nsw * sizeof(*sw_entry));
	find_machines(p, sw_entry);
	return 0;
}

static int perm_init(struct perm *p, const struct fabric *f, const struct rt_routing *r,
		     struct fab_err *err)
{
	uint64_t mapsz;

	memset(p, 0, sizeof(*p));
	p->f = p->an.f = f;
	p->r = p->an.r = r;
	p->n = count_machines(f);
	if (p->n < 2) {
		fab_err_set(err, "permutation metrics need at least two machines (CA ports); the "
			    "fabric has %u", p->n);
		return -1;
	}
	if (perm_alloc(p))
		goto oom;
	p->lids = f->lid_top + 1;
	mapsz = (uint64_t)p->nentries * p->lids;
	if (mapsz > PERM_KEYMAP_MAX) {
		fab_err_set(err, "the path table for %u entry switches and %u LIDs would need %llu "
			    "MiB; at most %llu MiB are allowed", p->nentries, p->lids,
			    (unsigned long long)(mapsz * 8 >> 20),
			    (unsigned long long)(PERM_KEYMAP_MAX * 8 >> 20));
		perm_fini(p);
		return -1;
	}
	p->keymap = calloc(mapsz ? (size_t)mapsz : 1, sizeof(*p->keymap));
	if (p->keymap)
		return 0;
oom:
	fab_err_set(err, "out of memory setting up permutation metrics for %u machines", p->n);
	perm_fini(p);
	return -1;
}

/* --- paths ----------------------------------------------------------------- */

static int link_push(struct perm *p, uint32_t slot)
{
	if (p->nlinks == p->lcap) {
		uint32_t c = p->lcap ? p->lcap * 2 : 1024;
		uint32_t *q;

		if (p->nlinks >= PERM_LINKS_MAX) {
			p->too_big = 1;
			return -1;
		}
		q = realloc(p->links, (size_t)c * sizeof(*q));
		if (!q)
			return -1;
		p->links = q;
		p->lcap = c;
	}
	p->links[p->nlinks++] = slot;
	return 0;
}

/*
 * Follow @dlid (owned by machine @d) from switch @sw, appending the links
 * left by; *@len gets their number, 0 when the path does not deliver.
 * Return: 0, or -1 when out of memory.
 */
static int key_trace(struct perm *p, uint32_t sw, unsigned dlid, uint32_t d, uint32_t *len)
{
	const struct fabric *f = p->f;
	uint32_t start = p->nlinks;

	*len = 0;
	if (++p->visit_gen == 0) {
		memset(p->visit, 0, (size_t)f->nswitches * sizeof(*p->visit));
		p->visit_gen = 1;
	}
	for (;;) {
		uint32_t next;
		uint8_t out, in;

		p->visit[sw] = p->visit_gen;
		if (an_step(&p->an, sw, dlid, p->ep[d], &out, &next, &in) != AN_DELIVERED)
			break;
		if (link_push(p, slot_of(f, f->switches[sw], out)))
			return -1;
		if (next == FAB_NONE) {
			*len = p->nlinks - start;
			return 0;
		}
		if (p->visit[next] == p->visit_gen)
			break;	/* a loop */
		sw = next;
	}
	p->nlinks = start;
	return 0;
}

/*
 * The path of machine @s to machine @d after its terminal link: *@links,
 * *@len (0 for two CAs linked to each other), traced on first use of the
 * pair's key. *@links stays valid until the next call.
 * Return: 1 when the pair is delivered, 0 when not, -1 when out of memory.
 */
int perm_pair_get(struct perm *p, uint32_t s, uint32_t d, const uint32_t **links, uint32_t *len)
{
	unsigned dlid;
	uint64_t *key;

	*links = NULL;
	*len = 0;
	if (p->entry[s] == NONE)
		return p->peer[s] == d;
	dlid = rt_dlid(p->r, p->f, p->ep[s], p->ep[d]);
	if (!dlid || dlid >= p->lids)
		return 0;
	key = &p->keymap[(size_t)p->entry[s] * p->lids + dlid];
	if (!*key) {
		uint32_t off = p->nlinks;

		if (key_trace(p, p->entry_sw[p->entry[s]], dlid, d, len))
			return -1;
		*key = KEY_TRACED | (uint64_t)*len << 32 | off;
	}
	*links = p->links + KEY_OFF(*key);
	*len = KEY_LEN(*key);
	return *len > 0;
}

void perm_oom(const struct perm *p, struct fab_err *err, const char *what)
{
	if (p->too_big)
		fab_err_set(err, "%s over %u machines: the paths need more than %u MiB", what, p->n,
			    (unsigned)(PERM_LINKS_MAX * sizeof(uint32_t) >> 20));
	else
		fab_err_set(err, "%s over %u machines: out of memory", what, p->n);
}

/* --- sampling -------------------------------------------------------------- */

static void bump(struct perm *p, uint32_t slot, uint32_t *ml)
{
	if (p->lstamp[slot] != p->gen) {
		p->lstamp[slot] = p->gen;
		p->load[slot] = 0;
	}
	if (++p->load[slot] > *ml)
		*ml = p->load[slot];
}

/* Maximum link load of the pattern (@src[i], @dst[i]), i < @np. Return 0 or -1. */
static int pattern_ml(struct perm *p, const uint32_t *src, const uint32_t *dst, uint32_t np,
		      uint32_t *ml)
{
	if (++p->gen == 0) {
		memset(p->lstamp, 0, (size_t)p->f->nports * sizeof(*p->lstamp));
		p->gen = 1;
	}
	*ml = 0;
	for (uint32_t i = 0; i < np; i++) {
		const uint32_t *links;
		uint32_t len;
		int rc = perm_pair_get(p, src[i], dst[i], &links, &len);

		if (rc < 0)
			return -1;
		if (!rc)
			continue;
		bump(p, p->term[src[i]], ml);
		for (uint32_t j = 0; j < len; j++)
			bump(p, links[j], ml);
	}
	return 0;
}

enum pat { PAT_BISECT, PAT_FULL, PAT_DISS, PAT_KINDS };

/* @a: machines in random order; @src, @dst: the pattern's @np pairs */
struct pattern {
	uint32_t *a, *src, *dst;
	uint32_t n, np;
	struct fab_rng rng;
};

static void shuffle(struct pattern *pt)
{
	for (uint32_t i = pt->n - 1; i > 0; i--) {
		uint32_t j = (uint32_t)fab_rng_below(&pt->rng, (uint64_t)i + 1), t = pt->a[i];

		pt->a[i] = pt->a[j];
		pt->a[j] = t;
	}
}

static int fixed_point(const struct pattern *pt)
{
	for (uint32_t i = 0; i < pt->n; i++)
		if (pt->a[i] == i)
			return 1;
	return 0;
}

static void draw(struct pattern *pt, enum pat kind)
{
	uint32_t h = pt->n / 2;

	shuffle(pt);
	switch (kind) {
	case PAT_BISECT:
		for (uint32_t i = 0; i < h; i++) {
			pt->src[i] = pt->a[i];
			pt->dst[i] = pt->a[h + i];
		}
		pt->np = h;
		break;
	case PAT_FULL:
		while (fixed_point(pt))
			shuffle(pt);
		for (uint32_t i = 0; i < pt->n; i++) {
			pt->src[i] = i;
			pt->dst[i] = pt->a[i];
		}
		pt->np = pt->n;
		break;
	default:
		for (uint32_t i = 0; i < h; i++) {
			pt->src[2 * i] = pt->dst[2 * i + 1] = pt->a[2 * i];
			pt->dst[2 * i] = pt->src[2 * i + 1] = pt->a[2 * i + 1];
		}
		pt->np = 2 * h;
		break;
	}
}

/* Running mean and sum of squared deviations (Welford). */
struct stats {
	uint64_t n;
	double mean, m2;
};

static void stats_add(struct stats *s, double x)
{
	double d = x - s->mean;

	s->n++;
	s->mean += d / (double)s->n;
	s->m2 += d * (x - s->mean);
}

static double stats_ci(const struct stats *s)
{
	double var = s->n > 1 ? s->m2 / (double)(s->n - 1) : (double)INFINITY;

	return PERM_Z99 * sqrt(var > 0 ? var : 0) / sqrt((double)s->n);
}

/* Draw patterns until the sample holds @target of them. Return 0 or -1. */
static int sample_to(struct perm *p, struct pattern *pt, enum pat kind, struct stats *s,
		     uint64_t target)
{
	while (s->n < target) {
		uint32_t ml;

		draw(pt, kind);
		if (pattern_ml(p, pt->src, pt->dst, pt->np, &ml))
			return -1;
		stats_add(s, 1.0 / (ml ? ml : 1));
	}
	return 0;
}

/* One metric: the paper's doubling procedure (see the DOC comment). */
static int sample_metric(struct perm *p, struct pattern *pt, enum pat kind,
			 const struct an_perm_opts *o, struct an_perm_metric *out)
{
	struct stats s = { 0 };
	uint64_t target = o->min_samples;

	for (uint32_t i = 0; i < p->n; i++)
		pt->a[i] = i;
	for (;;) {
		if (sample_to(p, pt, kind, &s, target))
			return -1;
		out->mean = s.mean;
		out->ci = stats_ci(&s);
		out->samples = (uint32_t)s.n;
		if (out->ci < o->rel_ci * out->mean || target >= o->max_samples)
			return 0;
		target = target * 2 < o->max_samples ? target * 2 : o->max_samples;
	}
}

static int perm_sample(struct perm *p, const struct an_perm_opts *o, struct an_perm *out,
		       struct fab_err *err)
{
	struct an_perm_metric *m[PAT_KINDS] = { &out->abb, &out->afpb, &out->adb };
	struct pattern pt = { .n = p->n };
	struct fab_rng seeds;
	int rc = 0;

	pt.a = malloc((size_t)p->n * sizeof(*pt.a));
	pt.src = malloc((size_t)p->n * sizeof(*pt.src));
	pt.dst = malloc((size_t)p->n * sizeof(*pt.dst));
	rc = !pt.a || !pt.src || !pt.dst ? -1 : 0;
	fab_rng_seed(&seeds, o->seed);
	for (int kind = 0; kind < PAT_KINDS && !rc; kind++) {
		fab_rng_seed(&pt.rng, fab_rng_next(&seeds));
		rc = sample_metric(p, &pt, (enum pat)kind, o, m[kind]);
	}
	if (rc)
		perm_oom(p, err, "sampling patterns");
	free(pt.a);
	free(pt.src);
	free(pt.dst);
	return rc;
}

/* --- entry point ----------------------------------------------------------- */

/* Check the inputs; @so gets the options with defaults filled in. */
static int perm_check(const struct fabric *f, const struct rt_routing *r,
		      const struct an_perm_opts *o, struct an_perm_opts *so, struct fab_err *err)
{
	if (an_fabrics_match(f, r, err))
		return -1;
	*so = *o;
	so->rel_ci = o->rel_ci == 0 ? PERM_REL_CI : o->rel_ci;
	so->min_samples = o->min_samples ? o->min_samples : PERM_MIN_SAMPLES;
	so->max_samples = o->max_samples ? o->max_samples :
			  so->min_samples > PERM_MAX_SAMPLES ? so->min_samples : PERM_MAX_SAMPLES;
	if (!(so->rel_ci > 0) || !isfinite(so->rel_ci)) {
		fab_err_set(err, "rel_ci %g: expected a positive number", o->rel_ci);
		return -1;
	}
	if (so->min_samples < 2) {
		fab_err_set(err, "min_samples %u: at least 2 patterns are needed for a confidence "
			    "interval", so->min_samples);
		return -1;
	}
	if (so->max_samples < so->min_samples) {
		fab_err_set(err, "max_samples %u is below min_samples %u", so->max_samples,
			    so->min_samples);
		return -1;
	}
	return 0;
}

int an_perm_run(const struct fabric *f, const struct rt_routing *r, const struct an_perm_opts *o,
		struct an_perm *out, struct fab_err *err)
{
	struct an_perm_opts so;
	struct perm p;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (perm_check(f, r, o, &so, err) || perm_init(&p, f, r, err))
		return -1;
	out->machines = p.n;
	if ((!so.worst || !perm_worst(&p, out, err)) && (!so.sample || !perm_sample(&p, &so, out, err)))
		rc = 0;
	perm_fini(&p);
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}
