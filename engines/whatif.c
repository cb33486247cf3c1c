/* SPDX-License-Identifier: MIT */
/**
 * DOC: what-if (see whatif.h)
 *
 * The removals are named as the daemon's simulated faults name them (a
 * link by either end, "NODE:PORT"; a switch, "NODE"; NODE a description or
 * a 0x node GUID), checked against the fabric in force, then taken out with
 * gen_faults_applied(), which also drops the CAs left without a link. Both
 * routing runs go through eng_run() with the daemon's evaluation options
 * (load, incremental state), so the repair is proven from the evaluation
 * of the routing in force as the daemon proves it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/report.h"
#include "engines/whatif.h"
#include "gen/gen.h"

/* How every routing of a what-if is evaluated: as the daemon evaluates what it publishes. */
static const struct an_opts wi_eval = { .load = 1, .parallel = 1, .incremental = 1 };

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* --- the removals ---------------------------------------------------------------- */

/* The node @text names: a 0x node GUID or a description no other node has. */
static uint32_t find_node(const struct fabric *f, const char *what, const char *text,
			  struct fab_err *err)
{
	unsigned count = 0;
	uint32_t n;

	if (!strncmp(text, "0x", 2) || !strncmp(text, "0X", 2)) {
		char *end;
		uint64_t guid;

		errno = 0;
		guid = strtoull(text + 2, &end, 16);
		if (!text[2] || *end || errno) {
			fab_err_set(err, "%s '%s': not a GUID", what, text);
			return FAB_NONE;
		}
		n = fab_node_by_guid(f, guid);
	} else {
		n = fab_node_by_desc(f, text, &count);
		if (count > 1) {
			fab_err_set(err, "%s '%s': %u nodes have this description; name it by GUID",
				    what, text, count);
			return FAB_NONE;
		}
	}
	if (n == FAB_NONE)
		fab_err_set(err, "%s '%s': no node with this GUID or description", what, text);
	return n;
}

static json_t *port_ref(const struct fabric *f, uint32_t node, unsigned port)
{
	return json_pack("{s:s, s:o, s:i}", "node", fab_desc(f, node), "guid",
			 an_json_guid(f->nodes[node].guid), "port", (int)port);
}

/* "NODE:PORT": the link's two ends, and its name for gen_faults_apply() into @canon. */
static json_t *check_link(const struct fabric *f, const char *text, char *canon, size_t size,
			  struct fab_err *err)
{
	const char *colon = strrchr(text, ':');
	char node[256], *end;
	unsigned long port;
	uint32_t n;

	if (!colon || colon == text || (size_t)(colon - text) >= sizeof(node)) {
		fab_err_set(err, "link '%s': expected NODE:PORT", text);
		return NULL;
	}
	memcpy(node, text, (size_t)(colon - text));
	node[colon - text] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || errno) {
		fab_err_set(err, "link '%s': port '%s' is not a number", text, colon + 1);
		return NULL;
	}
	if ((n = find_node(f, "link", node, err)) == FAB_NONE)
		return NULL;
	if (port < 1 || port > f->nodes[n].nports || !fab_port_linked(f, n, (unsigned)port)) {
		fab_err_set(err, "link '%s': port %lu of '%s' is not linked", text, port, fab_desc(f, n));
		return NULL;
	}
	snprintf(canon, size, "0x%016" PRIx64 ":%lu", f->nodes[n].guid, port);
	return json_pack("{s:o, s:o}", "a", port_ref(f, n, (unsigned)port), "b",
			 port_ref(f, fab_port(f, n, (unsigned)port)->peer,
				  fab_port(f, n, (unsigned)port)->peer_port));
}

/* "NODE", a switch: its name, GUID and the CA ports on it; its name for gen_faults_apply(). */
static json_t *check_switch(const struct fabric *f, const char *text, char *canon, size_t size,
			    struct fab_err *err)
{
	uint32_t n = find_node(f, "switch", text, err), cas = 0;

	if (n == FAB_NONE)
		return NULL;
	if (f->nodes[n].type != FAB_SWITCH) {
		fab_err_set(err, "switch '%s': '%s' is a %s, not a switch", text, fab_desc(f, n),
			    fab_node_type_name(f->nodes[n].type));
		return NULL;
	}
	for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
		uint32_t peer = fab_port(f, n, p)->peer;

		cas += peer != FAB_NONE && f->nodes[peer].type != FAB_SWITCH;
	}
	snprintf(canon, size, "0x%016" PRIx64, f->nodes[n].guid);
	return json_pack("{s:s, s:o, s:i}", "node", fab_desc(f, n), "guid",
			 an_json_guid(f->nodes[n].guid), "cas", (int)cas);
}

/* Check every removal; their canonical names into @canon (nlinks + nswitches of 32 bytes). */
static int check_all(const struct wi_req *q, json_t **removed, char (*canon)[32],
		     struct fab_err *err)
{
	json_t *links = json_array(), *sws = json_array(), *one;
	int rc = 0;

	if (!q->nlinks && !q->nswitches) {
		fab_err_set(err, "nothing to remove: name links (NODE:PORT) or switches (NODE)");
		rc = WI_BAD_NAME;
	} else if (q->nlinks + q->nswitches > WI_REMOVE_MAX) {
		fab_err_set(err, "%zu removals: at most %u at once", q->nlinks + q->nswitches,
			    WI_REMOVE_MAX);
		rc = WI_BAD_NAME;
	}
	for (size_t i = 0; !rc && i < q->nlinks; i++) {
		if (!(one = check_link(q->fabric, q->links[i], canon[i], sizeof(canon[i]), err)))
			rc = WI_BAD_NAME;
		json_array_append_new(links, one);
	}
	for (size_t i = 0; !rc && i < q->nswitches; i++) {
		char *c = canon[q->nlinks + i];

		if (!(one = check_switch(q->fabric, q->switches[i], c, sizeof(canon[0]), err)))
			rc = WI_BAD_NAME;
		json_array_append_new(sws, one);
	}
	if (!rc && removed)
		*removed = json_pack("{s:o, s:o}", "links", links, "switches", sws);
	else {
		json_decref(links);
		json_decref(sws);
	}
	if (!rc && removed && !*removed) {
		fab_err_set(err, "out of memory");
		rc = -1;
	}
	return rc;
}

int wi_check(const struct wi_req *q, json_t **removed, struct fab_err *err)
{
	char (*canon)[32] = calloc(q->nlinks + q->nswitches + 1, sizeof(*canon));
	int rc;

	if (removed)
		*removed = NULL;
	if (!canon) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	rc = check_all(q, removed, canon, err);
	free(canon);
	return rc;
}

/* The fabric without the removals; NULL with @err. */
static struct fabric *without(const struct wi_req *q, char (*canon)[32], struct fab_err *err)
{
	const char **names = calloc(q->nlinks + q->nswitches + 1, sizeof(*names));
	struct gen_faults gf = { .nlinks = q->nlinks, .nswitches = q->nswitches };
	struct fabric *f = NULL;

	if (!names)
		fab_err_set(err, "out of memory");
	for (size_t i = 0; names && i < q->nlinks + q->nswitches; i++)
		names[i] = canon[i];
	gf.links = names;
	gf.switches = names ? names + q->nlinks : NULL;
	if (names)
		f = gen_faults_applied(q->fabric, &gf, err);
	free(names);
	return f;
}

/* The endpoints of the fabric in force the removals take away: their count, the first few. */
static json_t *lost_json(const struct fabric *before, const struct fabric *after)
{
	json_t *ex = json_array();
	uint32_t n = 0, cas = 0;

	for (uint32_t e = 0; e < before->neps; e++) {
		const struct fab_ep *p = &before->eps[e];

		if (fab_ep_by_port_guid(after, fab_port(before, p->node, p->port)->guid) != FAB_NONE)
			continue;
		n++;
		cas += before->nodes[p->node].type != FAB_SWITCH;
		if (json_array_size(ex) < 16)
			json_array_append_new(ex, an_json_endpoint(before, e));
	}
	return json_pack("{s:i, s:i, s:o}", "endpoints", (int)n, "cas", (int)cas, "examples", ex);
}

/* One part of the fabric after the removals: a component holding endpoints. */
struct wi_part {
	uint32_t cas, eps;
	uint32_t ex;		/* its endpoint of the smallest node GUID */
	uint64_t guid;		/* that GUID: the order of parts of one size */
};

static int cmp_part(const void *a, const void *b)
{
	const struct wi_part *x = a, *y = b;

	if (x->cas != y->cas)
		return x->cas < y->cas ? 1 : -1;
	if (x->eps != y->eps)
		return x->eps < y->eps ? 1 : -1;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* The parts of @f, largest first, into @part (@f->neps entries); their count, or -1. */
static int parts_of(const struct fabric *f, struct wi_part *part)
{
	uint32_t *comp = malloc(((size_t)f->nnodes + 1) * sizeof(*comp));
	uint32_t *slot = malloc(((size_t)f->nnodes + 1) * sizeof(*slot));
	uint32_t n = 0;

	if (!comp || !slot) {
		free(comp);
		free(slot);
		return -1;
	}
	fab_components(f, comp);
	for (uint32_t i = 0; i < f->nnodes; i++)
		slot[i] = FAB_NONE;
	for (uint32_t e = 0; e < f->neps; e++) {
		uint32_t node = f->eps[e].node, r = comp[node];
		struct wi_part *p;

		if (slot[r] == FAB_NONE) {
			slot[r] = n;
			part[n++] = (struct wi_part){ .ex = e, .guid = f->nodes[node].guid };
		}
		p = &part[slot[r]];
		p->eps++;
		p->cas += f->nodes[node].type != FAB_SWITCH;
		if (f->nodes[node].guid < p->guid) {
			p->ex = e;
			p->guid = f->nodes[node].guid;
		}
	}
	free(comp);
	free(slot);
	qsort(part, n, sizeof(*part), cmp_part);
	return (int)n;
}

/*
 * How the fabric after the removals holds together, whatever routes it:
 * its parts (components holding endpoints), the largest few, and the
 * CA-to-CA pairs (ordered, as the evaluation counts them) in different
 * parts, which no routing can join. NULL when out of memory.
 */
static json_t *split_json(const struct fabric *f)
{
	struct wi_part *part = calloc((size_t)f->neps + 1, sizeof(*part));
	int n = part ? parts_of(f, part) : -1;
	uint64_t cas = 0, within = 0;
	json_t *a = n >= 0 ? json_array() : NULL, *o = NULL;

	for (int i = 0; a && i < n; i++) {
		cas += part[i].cas;
		within += (uint64_t)part[i].cas * (part[i].cas ? part[i].cas - 1 : 0);
		if (i < 8)
			json_array_append_new(a, json_pack("{s:i, s:i, s:o}", "cas", (int)part[i].cas,
				"endpoints", (int)part[i].eps, "example", an_json_endpoint(f, part[i].ex)));
	}
	if (a)
		o = json_pack("{s:i, s:I, s:o}", "parts", n, "ca_pairs_cut",
			      (json_int_t)(cas * (cas ? cas - 1 : 0) - within), "largest", a);
	free(part);
	return o;
}

/* --- the routing runs ---------------------------------------------------------------- */

/* What the runs made, for the answer. */
struct wi_runs {
	struct eng_res res;
	int routed;		/* @res holds the routing that would be published */
	int by_repair;
	char repair_why[512];	/* why no repair: not wanted, or refused */
	char why[1024];		/* why nothing would be published */
	char log[2048];
	double repair_ms, chain_ms;
};

/* The first line of @s into @out. */
static void first_line(char *out, size_t size, const char *s)
{
	snprintf(out, size, "%.*s", (int)strcspn(s, "\n"), s);
}

static void add_log(struct wi_runs *w, const char *log)
{
	size_t n = strlen(w->log);

	snprintf(w->log + n, sizeof(w->log) - n, "%s", log);
}

/* One eng_run() of @chain in @mode on @f; ENG_OK fills @res. */
static int run(const struct wi_req *q, const struct fabric *f, const char *chain,
	       const char *options, enum eng_mode mode, struct eng_res *res, struct fab_err *err)
{
	struct eng_chain c;
	struct eng_since since = { q->fabric, q->routing, q->report };
	struct eng_req req = {
		.fabric = f, .chain = &c, .mode = mode, .eval = &wi_eval, .policy = q->policy,
		.prev_fabric = q->base_fabric, .prev = q->base, .assign = q->assign,
		.lid_mode = FAB_LIDS_KEEP, .lmc = q->lmc, .lmc_budget = q->assign ? FAB_LMC_MAX : 0,
		.since = mode == ENG_MODE_REPAIR && q->report && q->report->state ? &since : NULL,
	};
	int rc;

	if (eng_chain_parse_str(&c, chain, options, err))
		return ENG_ERROR;
	rc = eng_run(&req, res, err);
	eng_chain_free(&c);
	return rc;
}

/* The repair when wanted, else (or when refused) the chain: what the daemon would publish. */
static int route_both(const struct wi_req *q, const struct fabric *f, struct wi_runs *w,
		      struct fab_err *err)
{
	double t0 = now_ms();
	int rc = ENG_NOT_APPLICABLE;

	if (!q->repair) {
		snprintf(w->repair_why, sizeof(w->repair_why), "%s", q->no_repair ? q->no_repair : "");
	} else if ((rc = run(q, f, WI_REPAIR_ENGINE, "", ENG_MODE_REPAIR, &w->res, err)) == ENG_OK) {
		w->by_repair = w->routed = 1;
		add_log(w, w->res.log);
	} else {
		first_line(w->repair_why, sizeof(w->repair_why), rc == ENG_ERROR ? err->msg : w->res.log);
		add_log(w, w->res.log);
	}
	w->repair_ms = now_ms() - t0;
	if (w->routed)
		return 0;
	t0 = now_ms();
	rc = run(q, f, q->chain, q->options, ENG_MODE_ROUTE, &w->res, err);
	w->chain_ms = now_ms() - t0;
	add_log(w, w->res.log);
	if (rc == ENG_ERROR && !w->res.log[0])
		return -1;	/* out of memory, a bad chain: no answer */
	if (rc == ENG_OK)
		w->routed = 1;
	else
		first_line(w->why, sizeof(w->why), err->msg);
	return 0;
}

/* --- the answer ---------------------------------------------------------------------- */

static json_t *log_json(const char *log)
{
	json_t *a = json_array();
	const char *p = log;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (n)
			json_array_append_new(a, json_stringn(p, n));
		p += n + (p[n] == '\n');
	}
	return a;
}

static json_t *routed_json(const struct wi_req *q, const struct wi_runs *w, json_t *o)
{
	const struct an_report *rep = &w->res.report;
	struct rt_diff d;

	rt_diff(q->fabric, q->routing, w->res.fabric, w->res.routing, &d);
	json_object_set_new(o, "routed_by", json_string(w->by_repair ? "repair" : "chain"));
	json_object_set_new(o, "engine", json_string(w->res.used->name));
	json_object_set_new(o, "connected", json_boolean(an_connected(rep)));
	json_object_set_new(o, "deadlock_free", json_boolean(rep->cdg.deadlock_free));
	json_object_set_new(o, "lft_changes", json_pack("{s:I, s:i, s:i, s:i, s:i}",
		"entries", (json_int_t)d.entries, "blocks", (int)d.blocks, "switches", (int)d.switches,
		"max_blocks", (int)d.max_blocks, "switches_added", (int)d.added));
	json_object_set_new(o, "evaluation", an_json_report(w->res.fabric, rep, &w->res.eval_opts));
	return json_integer((json_int_t)rep->load.max);
}

static json_t *answer_json(const struct wi_req *q, const struct wi_runs *w, json_t *removed,
			   const struct fabric *f, uint64_t load_before, double total_ms)
{
	json_t *o = json_object(), *after = json_null();

	json_object_set_new(o, "remove", removed);
	json_object_set_new(o, "lost", lost_json(q->fabric, f));
	json_object_set_new(o, "split", split_json(f));
	json_object_set_new(o, "repair", json_pack("{s:b, s:b, s:s?}", "tried", q->repair,
		"accepted", w->by_repair, "why", w->repair_why[0] ? w->repair_why : NULL));
	if (w->routed) {
		json_decref(after);
		after = routed_json(q, w, o);
	} else {
		json_object_set_new(o, "routed_by", json_null());
		json_object_set_new(o, "why", json_string(w->why));
	}
	json_object_set_new(o, "log", log_json(w->log));
	json_object_set_new(o, "max_link_load", json_pack("{s:I, s:o}", "before",
							  (json_int_t)load_before, "after", after));
	json_object_set_new(o, "time_ms", json_pack("{s:f, s:f, s:f}", "repair", w->repair_ms,
						    "chain", w->chain_ms, "total", total_ms));
	return o;
}

/* The routing in force's largest link load: from its report, else evaluated. */
static int load_before(const struct wi_req *q, uint64_t *max, struct fab_err *err)
{
	struct an_report rep;
	struct an_opts o = { .load = 1, .parallel = 1 };

	if (q->report) {
		*max = q->report->load.max;
		return 0;
	}
	if (an_evaluate(q->fabric, q->routing, &o, &rep, err))
		return -1;
	*max = rep.load.max;
	an_report_free(&rep);
	return 0;
}

int wi_run(const struct wi_req *q, json_t **answer, struct fab_err *err)
{
	double t0 = now_ms();
	char (*canon)[32] = calloc(q->nlinks + q->nswitches + 1, sizeof(*canon));
	struct wi_runs *w = calloc(1, sizeof(*w));
	json_t *removed = NULL;
	struct fabric *f = NULL;
	uint64_t before = 0;
	int rc = canon && w ? 0 : -1;

	*answer = NULL;
	if (rc)
		fab_err_set(err, "out of memory");
	if (!rc)
		rc = check_all(q, &removed, canon, err);
	if (!rc && (load_before(q, &before, err) || !(f = without(q, canon, err))))
		rc = -1;
	if (!rc)
		rc = route_both(q, f, w, err);
	if (!rc)
		*answer = answer_json(q, w, removed, f, before, now_ms() - t0);
	else
		json_decref(removed);
	if (!rc && !*answer) {
		fab_err_set(err, "out of memory");
		rc = -1;
	}
	if (w && w->routed)
		eng_res_free(&w->res);
	fab_free(f);
	free(canon);
	free(w);
	return rc;
}
