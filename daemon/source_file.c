/* SPDX-License-Identifier: MIT */
/**
 * DOC: file source
 *
 * Faults are kept as canonical names (node GUIDs, a link by its lower end)
 * so that naming a link from either end, or by description, means the same
 * fault. The fabric to route is rebuilt from the base topology on demand
 * with gen_faults_applied(), which also drops the CAs a fault cut off, as
 * discovery would no longer see them.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "api/query_impl.h"
#include "daemon/source_file.h"
#include "formats/formats.h"
#include "gen/gen.h"
#include "svc/log.h"

struct srcf {
	pthread_mutex_t mu;
	struct fabric *base;
	char **links, **switches;
	size_t nlinks, nswitches;
};

/* "gen:FAMILY[:K=V,...]" -> a generated fabric. */
static struct fabric *load_gen(const char *spec, struct fab_err *err)
{
	char *copy = strdup(spec + 4), *params, *save = NULL;
	const char *kv[32];
	size_t n = 0;
	struct fabric *f = NULL;

	if (!copy) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	params = strchr(copy, ':');
	if (params)
		*params++ = '\0';
	for (char *t = params ? strtok_r(params, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		if (n == 32) {
			fab_err_set(err, "topology '%s': more than 32 parameters", spec);
			goto out;
		}
		kv[n++] = t;
	}
	f = gen_build(copy, kv, n, 1, err);
out:
	free(copy);
	return f;
}

static void warn_log(void *arg, const char *msg)
{
	(void)arg;
	log_warn("topology: %s (topology_strict = 1 refuses it)", msg);
}

static struct fabric *load(const struct srcf_input *in, struct fab_err *err)
{
	struct fmt_opts opts = { .strict = in->strict, .warn = warn_log };
	int fmt = fmt_topo_from_name(in->format);
	struct fabric *f;

	if (strncmp(in->topology, "gen:", 4) == 0)
		f = load_gen(in->topology, err);
	else if (fmt < 0) {
		fab_err_set(err, "topology format '%s': expected auto, ibnetdiscover, ibsim or opensm-subnet", in->format);
		return NULL;
	} else {
		f = fmt_topo_load(in->topology, (enum fmt_topo)fmt, &opts, err);
	}
	if (f && srcf_names(f, in->names, err)) {
		fab_free(f);
		return NULL;
	}
	return f;
}

int srcf_names(struct fabric *f, const char *path, struct fab_err *err)
{
	struct fmt_names m;
	struct fab_err sub = { { 0 } };
	int rc;

	if (!path || !*path)
		return 0;
	if (fmt_names_load(path, &m, &sub)) {
		fab_err_set(err, "node_name_map: %s", sub.msg);
		return -1;
	}
	rc = fmt_names_apply(f, &m, err);
	fmt_names_free(&m);
	return rc < 0 ? -1 : 0;
}

struct srcf *srcf_open(const struct srcf_input *in, struct fab_err *err)
{
	struct srcf *s = calloc(1, sizeof(*s));

	if (!s) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	s->base = load(in, err);
	if (!s->base) {
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->mu, NULL);
	return s;
}

static void names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void srcf_free(struct srcf *s)
{
	if (!s)
		return;
	names_free(s->links, s->nlinks);
	names_free(s->switches, s->nswitches);
	fab_free(s->base);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

static ssize_t find_name(char **v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], name) == 0)
			return (ssize_t)i;
	return -1;
}

static int add_name(char ***v, size_t *n, const char *name)
{
	char **g = realloc(*v, (*n + 1) * sizeof(*g));

	if (!g)
		return -1;
	*v = g;
	if (!(g[*n] = strdup(name)))
		return -1;
	(*n)++;
	return 0;
}

static void del_name(char **v, size_t *n, size_t i)
{
	free(v[i]);
	v[i] = v[--*n];
}

/*
 * The node named @text (description or GUID) in @f; FAB_NONE with @err and
 * *@rc: 2 for a name that cannot be one (a bad GUID, a description several
 * nodes share), 1 for no such node.
 */
static uint32_t resolve_node(const struct fabric *f, const char *text, int *rc, struct fab_err *err)
{
	uint32_t n = fab_node_resolve(f, text, NULL, err);
	int guid = (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'));

	if (n == FAB_NONE)
		*rc = fab_node_by_desc(f, text, NULL) != FAB_NONE ||
		      (guid && (!text[2] || strspn(text + 2, "0123456789abcdefABCDEF") != strlen(text + 2) ||
				strlen(text + 2) > 16)) ? 2 : 1;
	return n;
}

/* Canonical name of the link at "NODE:PORT" in @f: its lower end. */
static int canon_link(const struct fabric *f, const char *what, char *canon, size_t csize,
		      struct fab_err *err)
{
	const char *colon = strrchr(what, ':');
	char node[256], *end;
	unsigned long port;
	uint32_t n, m;
	int rc = 0;

	if (!colon || colon == what || (size_t)(colon - what) >= sizeof(node)) {
		fab_err_set(err, "link '%s': expected NODE:PORT", what);
		return 2;
	}
	memcpy(node, what, (size_t)(colon - what));
	node[colon - what] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || errno) {
		fab_err_set(err, "link '%s': port '%s' is not a number", what, colon + 1);
		return 2;
	}
	if ((n = resolve_node(f, node, &rc, err)) == FAB_NONE)
		return rc;
	if (port < 1 || port > f->nodes[n].nports || !fab_port_linked(f, n, (unsigned)port)) {
		fab_err_set(err, "link '%s': port %lu of '%s' is not linked", what, port, fab_desc(f, n));
		return 1;
	}
	m = fab_port(f, n, (unsigned)port)->peer;
	if (f->nodes[m].guid < f->nodes[n].guid ||
	    (f->nodes[m].guid == f->nodes[n].guid && fab_port(f, n, (unsigned)port)->peer_port < port)) {
		port = fab_port(f, n, (unsigned)port)->peer_port;
		n = m;
	}
	snprintf(canon, csize, "0x%016" PRIx64 ":%lu", f->nodes[n].guid, port);
	return 0;
}

static int canon_switch(const struct fabric *f, const char *what, char *canon, size_t csize,
			struct fab_err *err)
{
	int rc = 0;
	uint32_t n = resolve_node(f, what, &rc, err);

	if (n == FAB_NONE)
		return rc;
	if (f->nodes[n].type != FAB_SWITCH) {
		fab_err_set(err, "switch '%s': '%s' is a %s, not a switch", what, fab_desc(f, n),
			    fab_node_type_name(f->nodes[n].type));
		return 2;
	}
	snprintf(canon, csize, "0x%016" PRIx64, f->nodes[n].guid);
	return 0;
}

int srcf_fault(struct srcf *s, enum srcf_kind kind, int down, const char *what, char *canon,
	       size_t csize, struct fab_err *err)
{
	char ***v = kind == SRCF_LINK ? &s->links : &s->switches;
	size_t *n = kind == SRCF_LINK ? &s->nlinks : &s->nswitches;
	const char *name = kind == SRCF_LINK ? "link" : "switch";
	ssize_t at;
	int rc;

	pthread_mutex_lock(&s->mu);
	rc = kind == SRCF_LINK ? canon_link(s->base, what, canon, csize, err) :
	     canon_switch(s->base, what, canon, csize, err);
	if (rc)
		goto out;
	at = find_name(*v, *n, canon);
	if (down && at >= 0) {
		fab_err_set(err, "%s '%s' is already down", name, what);
		rc = 3;
	} else if (!down && at < 0) {
		fab_err_set(err, "%s '%s' is not down", name, what);
		rc = 3;
	} else if (down && add_name(v, n, canon)) {
		fab_err_set(err, "out of memory");
		rc = 2;
	} else if (!down) {
		del_name(*v, n, (size_t)at);
	}
out:
	pthread_mutex_unlock(&s->mu);
	return rc;
}

/* Links whose ends both survive the switch faults (a downed switch takes its links). */
static size_t live_links(const struct srcf *s, const char **out)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nlinks; i++) {
		char sw[32];
		uint64_t a = strtoull(s->links[i], NULL, 16);
		uint32_t node = fab_node_by_guid(s->base, a);
		unsigned port = (unsigned)strtoul(strrchr(s->links[i], ':') + 1, NULL, 10);
		const struct fab_port *p = fab_port(s->base, node, port);
		int dead = 0;

		for (uint32_t end = 0; end < 2; end++) {
			uint64_t g = end ? s->base->nodes[p->peer].guid : a;

			snprintf(sw, sizeof(sw), "0x%016" PRIx64, g);
			dead |= find_name(s->switches, s->nswitches, sw) >= 0;
		}
		if (!dead)
			out[n++] = s->links[i];
	}
	return n;
}

struct fabric *srcf_fabric(struct srcf *s, struct fab_err *err)
{
	struct gen_faults gf = { 0 };
	struct fabric *f = NULL;
	const char **links;

	pthread_mutex_lock(&s->mu);
	links = calloc(s->nlinks + 1, sizeof(*links));
	if (links) {
		gf.links = links;
		gf.nlinks = live_links(s, links);
		gf.switches = (const char *const *)s->switches;
		gf.nswitches = s->nswitches;
		f = gen_faults_applied(s->base, &gf, err);
	} else {
		fab_err_set(err, "out of memory");
	}
	pthread_mutex_unlock(&s->mu);
	free(links);
	return f;
}

json_t *srcf_faults_json(struct srcf *s)
{
	json_t *links = json_array(), *sws = json_array();

	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < s->nlinks; i++)
		json_array_append_new(links, json_string(s->links[i]));
	for (size_t i = 0; i < s->nswitches; i++)
		json_array_append_new(sws, json_string(s->switches[i]));
	pthread_mutex_unlock(&s->mu);
	return json_pack("{s:o, s:o}", "links", links, "switches", sws);
}

/* A downed link of the base topology ("0xGUID:PORT"), its two ends named. */
static json_t *link_detail(const struct fabric *f, const char *name)
{
	uint32_t node = fab_node_by_guid(f, strtoull(name, NULL, 16));
	unsigned port = (unsigned)strtoul(strrchr(name, ':') + 1, NULL, 10);
	const struct fab_port *p = fab_port(f, node, port);

	return json_pack("{s:s, s:o, s:o}", "fault", name, "a", apiq_port_ref(f, node, port),
			 "b", apiq_port_ref(f, p->peer, p->peer_port));
}

/* A downed switch of the base topology: named, its level, CAs and switch neighbours. */
static json_t *switch_detail(const struct fabric *f, const struct fab_shape *sh, const char *name)
{
	uint32_t node = fab_node_by_guid(f, strtoull(name, NULL, 16)), cas = 0;
	json_t *peers = json_array();

	for (unsigned p = 1; peers && p <= f->nodes[node].nports; p++) {
		const struct fab_port *x = fab_port(f, node, p);

		if (x->peer == FAB_NONE)
			continue;
		if (f->nodes[x->peer].type == FAB_SWITCH)
			json_array_append_new(peers, apiq_port_ref(f, x->peer, x->peer_port));
		else
			cas++;
	}
	return json_pack("{s:s, s:s, s:o, s:i, s:i, s:i, s:o}", "fault", name,
			 "node", fab_desc(f, node), "guid", an_json_guid(f->nodes[node].guid),
			 "lid", (json_int_t)fab_port(f, node, 0)->lid,
			 "level", (json_int_t)(sh->level ? sh->level[f->nodes[node].swidx] : 0),
			 "cas", (json_int_t)cas, "peers", peers);
}

json_t *srcf_faults_detail(struct srcf *s)
{
	json_t *links = json_array(), *sws = json_array();
	struct fab_shape sh = { 0 };
	struct fab_err err;

	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; links && i < s->nlinks; i++)
		json_array_append_new(links, link_detail(s->base, s->links[i]));
	if (s->nswitches && fab_shape(s->base, &sh, &err))
		memset(&sh, 0, sizeof(sh));	/* out of memory: levels unknown (0) */
	for (size_t i = 0; sws && i < s->nswitches; i++)
		json_array_append_new(sws, switch_detail(s->base, &sh, s->switches[i]));
	pthread_mutex_unlock(&s->mu);
	fab_shape_free(&sh);
	return json_pack("{s:o, s:o}", "links", links, "switches", sws);
}

size_t srcf_faults_clear(struct srcf *s)
{
	size_t n;

	pthread_mutex_lock(&s->mu);
	n = s->nlinks + s->nswitches;
	names_free(s->links, s->nlinks);
	names_free(s->switches, s->nswitches);
	s->links = s->switches = NULL;
	s->nlinks = s->nswitches = 0;
	pthread_mutex_unlock(&s->mu);
	return n;
}

void srcf_faults_restore(struct srcf *s, const json_t *saved)
{
	static const char *const keys[] = { "links", "switches" };
	char canon[64];
	struct fab_err err;
	size_t i;
	json_t *v;

	for (unsigned k = 0; k < 2; k++)
		json_array_foreach(json_object_get(saved, keys[k]), i, v)
			if (json_is_string(v))
				srcf_fault(s, k ? SRCF_SWITCH : SRCF_LINK, 1, json_string_value(v),
					   canon, sizeof(canon), &err);
}

struct fabric *srcf_load(const struct srcf_input *in, struct fab_err *err)
{
	return load(in, err);
}

/* Some node of @b is named otherwise in @a (the topology hash leaves names out). */
static int renamed(const struct fabric *a, const struct fabric *b)
{
	for (uint32_t n = 0; n < b->nnodes; n++) {
		uint32_t m = fab_node_by_guid(a, b->nodes[n].guid);

		if (m != FAB_NONE && strcmp(fab_desc(a, m), fab_desc(b, n)))
			return 1;
	}
	return 0;
}

int srcf_reload(struct srcf *s, const struct srcf_input *in, struct fab_err *err)
{
	struct fabric *f = load(in, err);

	return f ? srcf_replace(s, f) : -1;
}

int srcf_replace(struct srcf *s, struct fabric *f)
{
	json_t *faults;
	int changed;

	faults = srcf_faults_json(s);
	pthread_mutex_lock(&s->mu);
	changed = fab_topology_hash(f) != fab_topology_hash(s->base) || renamed(s->base, f);
	fab_free(s->base);
	s->base = f;
	names_free(s->links, s->nlinks);
	names_free(s->switches, s->nswitches);
	s->links = s->switches = NULL;
	s->nlinks = s->nswitches = 0;
	pthread_mutex_unlock(&s->mu);
	srcf_faults_restore(s, faults);
	json_decref(faults);
	return changed;
}
