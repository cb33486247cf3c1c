/* SPDX-License-Identifier: MIT */
/**
 * DOC: readable evaluation report
 *
 * What `fabroute eval` prints without --json: one section per analysis, a
 * verdict line first in each, details after.
 */
#include <inttypes.h>

#include "cli/eval_text.h"

static void endpoint(FILE *out, const struct fabric *f, uint32_t ep)
{
	const struct fab_ep *e = &f->eps[ep];

	fprintf(out, "\"%s\"", FAB_LABEL(f, e->node));
	if (e->port)
		fprintf(out, " port %u", e->port);
	fprintf(out, " (LID %u)", fab_ep_lid(f, ep));
}

static void print_conn(FILE *out, const struct fabric *f, const struct an_report *rep,
		       const struct an_opts *o)
{
	static const char *const label[AN_NCLASSES] = { "CA->CA", "CA->SW", "SW->CA", "SW->SW" };
	const struct an_conn *c = &rep->conn;
	uint64_t pairs = 0, lost = 0;

	for (unsigned k = 0; k < AN_NCLASSES; k++) {
		pairs += c->pairs[k];
		lost += c->unreachable[k];
	}
	if (!lost)
		fprintf(out, "connectivity: connected: all %" PRIu64 " pairs delivered%s; longest path %u switches\n",
			pairs, o->all_lids ? " on every LID" : "", c->max_hops);
	else
		fprintf(out, "connectivity: NOT connected: %" PRIu64 " of %" PRIu64 " pairs not delivered\n",
			lost, pairs);
	fprintf(out, "  %-7s %12s %12s\n", "class", "pairs", "unreachable");
	for (unsigned k = 0; k < AN_NCLASSES; k++) {
		fprintf(out, "  %-7s %12" PRIu64 " %12" PRIu64, label[k], c->pairs[k], c->unreachable[k]);
		for (unsigned i = 1; i < AN_NFAILS; i++)
			if (c->by_fail[k][i])
				fprintf(out, "  %s: %" PRIu64, an_fail_name(i), c->by_fail[k][i]);
		fputc('\n', out);
	}
	for (unsigned k = 0; k < AN_NCLASSES; k++)
		for (uint32_t i = 0; i < c->nex[k]; i++) {
			fprintf(out, "  e.g. %s: ", an_fail_name(c->ex[k][i].fail));
			endpoint(out, f, c->ex[k][i].src);
			fputs(" -> ", out);
			endpoint(out, f, c->ex[k][i].dst);
			fprintf(out, " DLID %u\n", c->ex[k][i].dlid);
		}
}

static void print_cycle(FILE *out, const struct fabric *f, const struct an_vl *v, unsigned vl)
{
	fprintf(out, "  cycle on VL %u (%u channels):", vl, v->cycle_len);
	for (uint32_t i = 0; i < v->cycle_len; i++)
		fprintf(out, "%s \"%s\"/%u", i ? " ->" : "", FAB_LABEL(f, v->cycle[i].node),
			v->cycle[i].port);
	fputc('\n', out);
}

static void print_cdg(FILE *out, const struct fabric *f, const struct an_cdg *c,
		      const struct an_opts *o)
{
	fprintf(out, "deadlock:     %s (%s paths); VLs used:",
		c->deadlock_free ? "free: no channel dependency cycle" : "POSSIBLE: dependency cycle",
		o->ca_only ? "CA-to-CA" : "all");
	for (unsigned v = 0; v < AN_VLS; v++)
		if (c->vls_used & (1u << v))
			fprintf(out, " %u", v);
	fputc('\n', out);
	fprintf(out, "  %-3s %12s %9s %12s  %s\n", "VL", "pairs", "channels", "dependencies", "acyclic");
	for (unsigned v = 0; v < AN_VLS; v++)
		if ((c->vls_used & (1u << v)) || c->vl[v].channels)
			fprintf(out, "  %-3u %12" PRIu64 " %9u %12" PRIu64 "  %s\n", v, c->vl[v].paths,
				c->vl[v].channels, c->vl[v].deps, c->vl[v].acyclic ? "yes" : "NO");
	if (c->cross_deps)
		fprintf(out, "  dependencies between VLs: %" PRIu64 "%s\n", c->cross_deps,
			c->cross_cycle ? ", and a cycle through several VLs" : "");
	for (unsigned v = 0; v < AN_VLS; v++)
		if (!c->vl[v].acyclic)
			print_cycle(out, f, &c->vl[v], v);
}

static void print_load(FILE *out, const struct fabric *f, const struct an_load *l)
{
	fprintf(out, "load:         %u switch-to-switch links; all-to-all pairs per link: max %" PRIu64,
		l->sw_channels, l->max);
	if (l->sw_channels)
		fprintf(out, " (\"%s\" port %u)", FAB_LABEL(f, l->max_node), l->max_port);
	fprintf(out, ", mean %.1f\n  histogram (%u buckets of [0, max]):", l->mean, AN_LOAD_BUCKETS);
	for (unsigned i = 0; i < AN_LOAD_BUCKETS; i++)
		fprintf(out, " %u", l->hist[i]);
	fprintf(out, "\n  CA max link load (each CA sends 1 in total): %.3f\n", l->ca_max_load);
	fprintf(out, "  DLID balance: largest spread over a switch's switch-facing ports %u", l->balance_max);
	if (l->balance_max)
		fprintf(out, " (\"%s\")", FAB_LABEL(f, l->balance_node));
	fputc('\n', out);
}

static void metric(FILE *out, const char *name, const struct an_perm_metric *m)
{
	fprintf(out, "  %-5s %.4f +- %.4f (99%%, %u patterns)\n", name, m->mean, m->ci, m->samples);
}

static void print_perm(FILE *out, const struct fabric *f, const struct an_perm *p,
		       const struct an_perm_opts *o)
{
	fprintf(out, "permutation:  %u machines\n", p->machines);
	if (o->worst) {
		fprintf(out, "  WORST %u", p->worst);
		if (p->worst)
			fprintf(out, " (link \"%s\" port %u)", FAB_LABEL(f, p->worst_node), p->worst_port);
		fputc('\n', out);
	}
	if (o->sample) {
		metric(out, "ABB", &p->abb);
		metric(out, "AFPB", &p->afpb);
		metric(out, "ADB", &p->adb);
	}
}

void eval_print_text(FILE *out, const struct fabric *f, const struct an_report *rep,
		     const struct an_opts *o, const struct an_perm *perm,
		     const struct an_perm_opts *po)
{
	fprintf(out, "fabric:       %u nodes (%u switches), %u links, %u endpoints, top LID %u\n",
		f->nnodes, f->nswitches, f->nlinks, f->neps, f->lid_top);
	print_conn(out, f, rep, o);
	print_cdg(out, f, &rep->cdg, o);
	if (o->load)
		print_load(out, f, &rep->load);
	if (po->worst || po->sample)
		print_perm(out, f, perm, po);
}

static void print_hops(FILE *out, const char *what, const uint64_t *h, uint64_t pairs,
		       uint64_t lost)
{
	fprintf(out, "  %s hops:", what);
	for (unsigned i = 0; i < AN_DF_HOPS; i++)
		if (h[i])
			fprintf(out, " %u%s: %" PRIu64, i, i == AN_DF_HOPS - 1 ? "+" : "", h[i]);
	fprintf(out, " (%" PRIu64 " pairs", pairs);
	if (lost)
		fprintf(out, ", %" PRIu64 " not delivered", lost);
	fputs(")\n", out);
}

static void flows(FILE *out, const char *name, const struct an_df_flows *fl)
{
	fprintf(out, " %s %" PRIu64 "..%" PRIu64, name, fl->min, fl->max);
}

void eval_print_dfly(FILE *out, const struct an_dfly *m)
{
	fprintf(out, "dragonfly:    %u groups of %u switches, %u global links per switch\n",
		m->groups, m->a, m->h);
	print_hops(out, "CA->CA", m->ca_hops, m->ca_pairs, m->ca_lost);
	fprintf(out, "  CA->CA average %.4f, longest %u\n", m->ca_avg_hops, m->ca_max_hops);
	print_hops(out, "SW->SW", m->sw_hops, m->sw_pairs, m->sw_lost);
	fprintf(out, "  paths not [lc] gc [lc]: %" PRIu64 "; CA pairs with 2+ global hops: %" PRIu64
		"\n", m->off_shape, m->multi_gc);
	fputs("  all-to-all CA flows per channel (min..max):", out);
	flows(out, "tc", &m->tc);
	flows(out, "lc", &m->lc);
	flows(out, "gc", &m->gc);
	fputc('\n', out);
	fputs("  local channels by VL:", out);
	for (unsigned v = 0; v < AN_VLS; v++)
		if (m->lc_vls >> v & 1) {
			char name[8];

			snprintf(name, sizeof(name), "VL%u", v);
			flows(out, name, &m->lc_vl[v]);
		}
	fprintf(out, "\n  group shift +1: %" PRIu64 " pairs, at most %" PRIu64 " on one channel\n",
		m->shift_pairs, m->shift_max);
}
