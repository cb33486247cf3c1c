/* SPDX-License-Identifier: MIT */
/**
 * DOC: generator table, parameters and dispatch
 *
 * The family table below is what `fabroute gen --help` prints. Each family
 * has a parallel table of limits (smallest and largest value, how many
 * comma-separated values it takes) that the parser enforces before a
 * builder runs; the builders (gen_tree.c, gen_direct.c) check what depends
 * on several parameters at once (port counts, fabric size). Errors are
 * prefixed with the family name here, so builders write them without it.
 *
 * The helpers gen_add_switch(), gen_add_ca() and the size checks implement
 * the conventions of gen.h (GUIDs from creation order, the endpoint limit)
 * in one place for all builders.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gen/gen.h"
#include "gen/gen_impl.h"

/* Most parameters a family has (lmc included) and most values in a list. */
#define GEN_NPARAMS_MAX 8
#define GEN_LIST_MAX 16

/* Endpoints the unicast LID space holds (LIDs 1 .. 0xBFFF). */
#define GEN_EPS_MAX FAB_LID_UCAST_MAX

/**
 * struct gen_limit - what the parser accepts for one parameter
 * @min, @max: range of every value
 * @maxn: 1 for a single value, else the most values of a comma list
 * @words: NULL for numbers, else the words the value may be, separated by
 *         '|'; the value parsed is the word's position
 */
struct gen_limit {
	uint32_t min, max;
	uint32_t maxn;
	const char *words;
};

/* Parsed parameters of one gen_build() call. */
struct gen_args {
	const struct gen_param *params;
	uint32_t n[GEN_NPARAMS_MAX];
	uint32_t v[GEN_NPARAMS_MAX][GEN_LIST_MAX];
	uint8_t given[GEN_NPARAMS_MAX];
};

typedef struct fabric *(*gen_build_fn)(const struct gen_args *a, uint64_t seed,
				       struct fab_err *err);

struct gen_impl {
	const struct gen_limit *limits;	/* parallel to the family's params */
	gen_build_fn build;
};

/* --- parameter tables ---------------------------------------------------- */

#define LMC_PARAM { "lmc", "0", "LID mask control of the CA ports: 2^lmc LIDs each (0 to 7)" }
#define LMC_LIMIT SCALAR(0, FAB_LMC_MAX)
#define END_PARAM { NULL, NULL, NULL }
#define SCALAR(lo, hi) { (lo), (hi), 1, NULL }
#define LIST(lo, hi, n) { (lo), (hi), (n), NULL }
#define WORDS(w) { 0, 0, 1, (w) }

static const struct gen_param p_kary[] = {
	{ "k", "4", "arity: every switch has k down and k up ports (2k ports), 1 to 127" },
	{ "n", "3", "levels of switches; k^n nodes, n*k^(n-1) switches" },
	LMC_PARAM, END_PARAM,
};
static const struct gen_limit l_kary[] = { SCALAR(1, 127), SCALAR(1, 16), LMC_LIMIT };

static const struct gen_param p_mport[] = {
	{ "m", "4", "ports per switch, even; 2*(m/2)^n nodes" },
	{ "n", "3", "levels of switches; (2n-1)*(m/2)^(n-1) switches" },
	LMC_PARAM, END_PARAM,
};
static const struct gen_limit l_mport[] = { SCALAR(2, FAB_PORTS_MAX), SCALAR(1, 16), LMC_LIMIT };

static const struct gen_param p_xgft[] = {
	{ "h", "3", "levels of switches" },
	{ "m", "4,4,4", "m1..mh: children of a level-i switch (its down ports)" },
	{ "w", "1,4,4", "w1..wh: parents of a level-(i-1) node (its up ports); w1 = ports per CA" },
	LMC_PARAM, END_PARAM,
};
static const struct gen_limit l_xgft[] = {
	SCALAR(1, GEN_LIST_MAX), LIST(1, FAB_PORTS_MAX, GEN_LIST_MAX),
	LIST(1, FAB_PORTS_MAX, GEN_LIST_MAX), LMC_LIMIT,
};

static const struct gen_param p_gft2[] = {
	{ "n", "8", "nodes per bottom switch" },
	{ "m", "8", "up links per bottom switch = top switches (m=n full, m<n slimmed, m>n fatted)" },
	{ "r", "16", "bottom switches = ports per top switch" },
	LMC_PARAM, END_PARAM,
};
static const struct gen_limit l_gft2[] = {
	SCALAR(1, FAB_PORTS_MAX - 1), SCALAR(1, FAB_PORTS_MAX - 1), SCALAR(1, FAB_PORTS_MAX),
	LMC_LIMIT,
};

static const struct gen_param p_ft648[] = { LMC_PARAM, END_PARAM };
static const struct gen_limit l_ft648[] = { LMC_LIMIT };

static const struct gen_param p_rack[] = {
	{ "racks", "18", "two-switch rack units (2*racks rack switches)" },
	{ "hosts", "16", "nodes per rack switch (its first ports)" },
	{ "uplinks", "18", "links from each rack switch to distinct core leaves, spread round robin; "
			   "2*racks*uplinks <= 648" },
	{ "hlinks", "2", "horizontal links between the two switches of a unit (last ports)" },
	LMC_PARAM, END_PARAM,
};
static const struct gen_limit l_rack[] = {
	SCALAR(1, 324), SCALAR(0, FAB_PORTS_MAX - 1), SCALAR(1, 36), SCALAR(0, FAB_PORTS_MAX - 1),
	LMC_LIMIT,
};

static const struct gen_param p_multicore[] = {
	{ "cores", "2", "copies of T(n+m, r); joined in a chain of 2 or a ring of 3 and more" },
	{ "n", "4", "nodes per leaf switch" },
	{ "m", "4", "up links per leaf switch = top switches per core" },
	{ "r", "8", "leaf switches per core = ports per top switch" },
	{ "hlinks", "1", "horizontal links from each leaf to its sibling in each neighbouring core" },
	LMC_PARAM, END_PARAM,
};
static const struct gen_limit l_multicore[] = {
	SCALAR(1, 64), SCALAR(1, FAB_PORTS_MAX - 1), SCALAR(1, FAB_PORTS_MAX - 1),
	SCALAR(1, FAB_PORTS_MAX), SCALAR(0, FAB_PORTS_MAX / 2), LMC_LIMIT,
};

static const struct gen_param p_dragonfly[] = {
	{ "a", "4", "switches per group, linked all to all" },
	{ "p", "2", "nodes per switch" },
	{ "h", "2", "global links per switch; a*h+1 groups, one global link per pair of groups" },
	{ "wiring", "absolute", "where global link j of group i goes: absolute (group j if j < i, "
				"else j+1), relative (group i+j+1 mod g), circulant (link 2k to group "
				"i+k+1, link 2k+1 to i-k-1; a*h even)" },
	LMC_PARAM, END_PARAM,
};
static const struct gen_limit l_dragonfly[] = {
	SCALAR(1, FAB_PORTS_MAX), SCALAR(0, FAB_PORTS_MAX - 1), SCALAR(1, FAB_PORTS_MAX - 1),
	WORDS("absolute|relative|circulant"), LMC_LIMIT,
};

static const struct gen_param p_random[] = {
	{ "switches", "16", "switches" },
	{ "machines", "128", "nodes, each on a switch drawn with uniform probability" },
	{ "degree", "8", "average nodal degree of the switch graph (switches*degree/2 links), "
			 "which is always connected" },
	{ "radix", "0", "ports per switch; 0 makes it just large enough" },
	LMC_PARAM, END_PARAM,
};
static const struct gen_limit l_random[] = {
	SCALAR(1, GEN_EPS_MAX), SCALAR(0, GEN_EPS_MAX), SCALAR(0, FAB_PORTS_MAX - 1),
	SCALAR(0, FAB_PORTS_MAX), LMC_LIMIT,
};

static const struct gen_param p_ring[] = {
	{ "switches", "8", "switches in the ring (at least 3)" },
	{ "hosts", "1", "nodes per switch" },
	LMC_PARAM, END_PARAM,
};
static const struct gen_limit l_ring[] = {
	SCALAR(3, GEN_EPS_MAX), SCALAR(0, FAB_PORTS_MAX - 2), LMC_LIMIT,
};

static const struct gen_param p_mesh[] = {
	{ "dims", "4,4", "switches along each dimension, e.g. 4,4 or 3,3,3 (up to 8 dimensions)" },
	{ "hosts", "1", "nodes per switch" },
	LMC_PARAM, END_PARAM,
};
static const struct gen_limit l_mesh[] = {
	LIST(2, GEN_EPS_MAX, 8), SCALAR(0, FAB_PORTS_MAX - 2), LMC_LIMIT,
};
static const struct gen_param p_torus[] = {
	{ "dims", "4,4", "switches along each dimension, at least 3, e.g. 4,4 or 3,3,3 "
			 "(up to 8 dimensions)" },
	{ "hosts", "1", "nodes per switch" },
	LMC_PARAM, END_PARAM,
};
static const struct gen_limit l_torus[] = {
	LIST(3, GEN_EPS_MAX, 8), SCALAR(0, FAB_PORTS_MAX - 2), LMC_LIMIT,
};

/* --- builders: turn parsed parameters into builder calls ------------------ */

static unsigned arg_index(const struct gen_args *a, const char *name)
{
	unsigned i = 0;

	while (strcmp(a->params[i].name, name))
		i++;
	return i;
}

static uint32_t arg(const struct gen_args *a, const char *name)
{
	return a->v[arg_index(a, name)][0];
}

static const uint32_t *arg_list(const struct gen_args *a, const char *name, size_t *n)
{
	unsigned i = arg_index(a, name);

	*n = a->n[i];
	return a->v[i];
}

static struct fabric *b_kary(const struct gen_args *a, uint64_t seed, struct fab_err *err)
{
	return gen_tree_kary(arg(a, "k"), arg(a, "n"), err);
}

static struct fabric *b_mport(const struct gen_args *a, uint64_t seed, struct fab_err *err)
{
	return gen_tree_mport(arg(a, "m"), arg(a, "n"), err);
}

static struct fabric *b_xgft(const struct gen_args *a, uint64_t seed, struct fab_err *err)
{
	size_t nm, nw;
	const uint32_t *m = arg_list(a, "m", &nm), *w = arg_list(a, "w", &nw);

	return gen_tree_xgft(arg(a, "h"), m, nm, w, nw, err);
}

static struct fabric *b_gft2(const struct gen_args *a, uint64_t seed, struct fab_err *err)
{
	return gen_tree_gft2(arg(a, "n"), arg(a, "m"), arg(a, "r"), err);
}

static struct fabric *b_ft648(const struct gen_args *a, uint64_t seed, struct fab_err *err)
{
	return gen_tree_gft2(18, 18, 36, err);
}

static struct fabric *b_rack(const struct gen_args *a, uint64_t seed, struct fab_err *err)
{
	return gen_tree_rack(arg(a, "racks"), arg(a, "hosts"), arg(a, "uplinks"),
			     arg(a, "hlinks"), err);
}

static struct fabric *b_multicore(const struct gen_args *a, uint64_t seed, struct fab_err *err)
{
	return gen_tree_multicore(arg(a, "cores"), arg(a, "n"), arg(a, "m"), arg(a, "r"),
				  arg(a, "hlinks"), err);
}

static struct fabric *b_dragonfly(const struct gen_args *a, uint64_t seed, struct fab_err *err)
{
	return gen_direct_dragonfly(arg(a, "a"), arg(a, "p"), arg(a, "h"),
				    (enum gen_df_wiring)arg(a, "wiring"), err);
}

static struct fabric *b_random(const struct gen_args *a, uint64_t seed, struct fab_err *err)
{
	return gen_direct_random(arg(a, "switches"), arg(a, "machines"), arg(a, "degree"),
				 arg(a, "radix"), seed, err);
}

static struct fabric *b_ring(const struct gen_args *a, uint64_t seed, struct fab_err *err)
{
	return gen_direct_ring(arg(a, "switches"), arg(a, "hosts"), err);
}

static struct fabric *b_grid(const struct gen_args *a, int wrap, struct fab_err *err)
{
	size_t nd;
	const uint32_t *d = arg_list(a, "dims", &nd);

	return gen_direct_grid(d, nd, arg(a, "hosts"), wrap, err);
}

static struct fabric *b_mesh(const struct gen_args *a, uint64_t seed, struct fab_err *err)
{
	return b_grid(a, 0, err);
}

static struct fabric *b_torus(const struct gen_args *a, uint64_t seed, struct fab_err *err)
{
	return b_grid(a, 1, err);
}

/* --- the family table ----------------------------------------------------- */

enum {
	F_KARY, F_MPORT, F_XGFT, F_GFT2, F_FT648, F_RACK, F_MULTICORE,
	F_DRAGONFLY, F_RANDOM, F_RING, F_MESH, F_TORUS, F_COUNT
};

static const struct gen_family families[F_COUNT] = {
	[F_KARY] = { "kary-ntree", "k-ary n-tree (Petrini): k^n nodes, n*k^(n-1) switches of 2k ports",
		     p_kary },
	[F_MPORT] = { "mport-ntree", "m-port n-tree (Lin): 2*(m/2)^n nodes, "
		      "(2n-1)*(m/2)^(n-1) switches of m ports", p_mport },
	[F_XGFT] = { "xgft", "extended generalized fat tree XGFT(h; m1..mh; w1..wh): level i has "
		     "m(i+1)*..*mh * w1*..*wi switches", p_xgft },
	[F_GFT2] = { "gft2", "2-level generalized fat tree T(n+m, r): r bottom switches with n nodes "
		     "and m up links, m top switches of r ports", p_gft2 },
	[F_FT648] = { "ft648", "648-port 2-stage fat tree: 18 spine and 36 leaf switches of 36 ports, "
		      "648 nodes", p_ft648 },
	[F_RACK] = { "ft648-rack", "3-stage fat tree: the 648-port core below which rack switches, "
		     "paired by horizontal links, hold the nodes", p_rack },
	[F_MULTICORE] = { "multicore", "multi-core fat tree: copies of T(n+m, r) whose sibling "
			  "leaves are joined by horizontal links", p_multicore },
	[F_DRAGONFLY] = { "dragonfly", "fully connected dragonfly (a, p, h): a*h+1 groups of a "
			  "switches, one global link per pair of groups", p_dragonfly },
	[F_RANDOM] = { "random", "random irregular: a connected random switch graph, nodes spread "
		       "over the switches (uses the seed)", p_random },
	[F_RING] = { "ring", "switches in a ring, hosts on each", p_ring },
	[F_MESH] = { "mesh", "n-dimensional mesh of switches, hosts on each", p_mesh },
	[F_TORUS] = { "torus", "n-dimensional torus of switches, hosts on each", p_torus },
};

static const struct gen_impl impls[F_COUNT] = {
	[F_KARY] = { l_kary, b_kary },
	[F_MPORT] = { l_mport, b_mport },
	[F_XGFT] = { l_xgft, b_xgft },
	[F_GFT2] = { l_gft2, b_gft2 },
	[F_FT648] = { l_ft648, b_ft648 },
	[F_RACK] = { l_rack, b_rack },
	[F_MULTICORE] = { l_multicore, b_multicore },
	[F_DRAGONFLY] = { l_dragonfly, b_dragonfly },
	[F_RANDOM] = { l_random, b_random },
	[F_RING] = { l_ring, b_ring },
	[F_MESH] = { l_mesh, b_mesh },
	[F_TORUS] = { l_torus, b_torus },
};

const struct gen_family *gen_families(size_t *n)
{
	if (n)
		*n = F_COUNT;
	return families;
}

const struct gen_family *gen_family_find(const char *name)
{
	for (size_t i = 0; name && i < F_COUNT; i++)
		if (!strcmp(families[i].name, name))
			return &families[i];
	return NULL;
}

/* --- parsing "name=value" ------------------------------------------------- */

/* Decimal digits at *@s; values beyond UINT32_MAX saturate. */
static int parse_uint(const char **s, uint64_t *out)
{
	const char *p = *s;
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		x = x * 10 + (uint64_t)(*p - '0');
		if (x > UINT32_MAX)
			x = (uint64_t)UINT32_MAX + 1;
	}
	*s = p;
	*out = x;
	return 0;
}

static int bad_value(const struct gen_param *p, const struct gen_limit *lim, const char *val,
		     struct fab_err *err)
{
	fab_err_set(err, "%s=\"%.64s\": expected %s", p->name, val,
		    lim->maxn > 1 ? "a comma-separated list of unsigned integers" :
		    "an unsigned integer");
	return -1;
}

static int out_of_range(const struct gen_param *p, const struct gen_limit *lim, const char *val,
			uint64_t x, struct fab_err *err)
{
	if (lim->maxn > 1)
		fab_err_set(err, "%s=%.64s: value %" PRIu64 " is out of range: each value must be "
			    "%" PRIu32 " to %" PRIu32, p->name, val, x, lim->min, lim->max);
	else
		fab_err_set(err, "%s=%" PRIu64 " is out of range: expected %" PRIu32 " to %" PRIu32,
			    p->name, x, lim->min, lim->max);
	return -1;
}

/* @val as one of @lim->words: its position in *@v. */
static int parse_word(const struct gen_param *p, const struct gen_limit *lim, const char *val,
		      uint32_t *v, uint32_t *n, struct fab_err *err)
{
	size_t len = strlen(val);
	uint32_t pos = 0;

	for (const char *w = lim->words; w; pos++) {
		const char *bar = strchr(w, '|');
		size_t wl = bar ? (size_t)(bar - w) : strlen(w);

		if (wl == len && !strncmp(w, val, len)) {
			*v = pos;
			*n = 1;
			return 0;
		}
		w = bar ? bar + 1 : NULL;
	}
	fab_err_set(err, "%s=\"%.64s\": expected one of %s", p->name, val, lim->words);
	return -1;
}

static int parse_value(const struct gen_param *p, const struct gen_limit *lim, const char *val,
		       uint32_t *v, uint32_t *n, struct fab_err *err)
{
	const char *s = val;
	uint64_t x;

	*n = 0;
	if (lim->words)
		return parse_word(p, lim, val, v, n, err);
	for (;;) {
		if (parse_uint(&s, &x) || (*s && (*s != ',' || lim->maxn == 1)))
			return bad_value(p, lim, val, err);
		if (*n == lim->maxn) {
			fab_err_set(err, "%s=%.64s: more than %" PRIu32 " values", p->name, val,
				    lim->maxn);
			return -1;
		}
		if (x < lim->min || x > lim->max)
			return out_of_range(p, lim, val, x, err);
		v[(*n)++] = (uint32_t)x;
		if (!*s++)
			return 0;
	}
}

static void list_names(const struct gen_param *params, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; params[i].name && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", params[i].name);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static int find_param(const struct gen_family *fam, const char *name, size_t len,
		      struct fab_err *err)
{
	char names[200];

	for (int i = 0; fam->params[i].name; i++)
		if (strlen(fam->params[i].name) == len && !strncmp(fam->params[i].name, name, len))
			return i;
	list_names(fam->params, names, sizeof(names));
	fab_err_set(err, "unknown parameter \"%.*s\" (parameters: %s)", (int)(len > 64 ? 64 : len),
		    name, names);
	return -1;
}

static int set_defaults(const struct gen_family *fam, const struct gen_impl *impl,
			struct gen_args *a, struct fab_err *err)
{
	memset(a, 0, sizeof(*a));
	a->params = fam->params;
	for (unsigned i = 0; fam->params[i].name; i++)
		if (parse_value(&fam->params[i], &impl->limits[i], fam->params[i].defval, a->v[i],
				&a->n[i], err))
			return -1;
	return 0;
}

static int parse_args(const struct gen_family *fam, const struct gen_impl *impl,
		      const char *const *kv, size_t nkv, struct gen_args *a, struct fab_err *err)
{
	if (set_defaults(fam, impl, a, err))
		return -1;
	for (size_t k = 0; k < nkv; k++) {
		const char *eq = kv[k] ? strchr(kv[k], '=') : NULL;
		int i;

		if (!eq || eq == kv[k]) {
			fab_err_set(err, "\"%.64s\": expected NAME=VALUE", kv[k] ? kv[k] : "");
			return -1;
		}
		i = find_param(fam, kv[k], (size_t)(eq - kv[k]), err);
		if (i < 0)
			return -1;
		if (a->given[i]) {
			fab_err_set(err, "parameter \"%s\" is given twice", fam->params[i].name);
			return -1;
		}
		a->given[i] = 1;
		if (parse_value(&fam->params[i], &impl->limits[i], eq + 1, a->v[i], &a->n[i], err))
			return -1;
	}
	return 0;
}

/* --- gen_build ------------------------------------------------------------ */

static void prefix_err(struct fab_err *err, const char *name)
{
	char msg[sizeof(err->msg)];

	if (!err)
		return;
	memcpy(msg, err->msg, sizeof(msg));
	msg[sizeof(msg) - 1] = '\0';
	fab_err_set(err, "%s: %s", name, msg);
}

static void unknown_family(const char *family, struct fab_err *err)
{
	char names[300];
	size_t used = 0;

	names[0] = '\0';
	for (size_t i = 0; i < F_COUNT && used < sizeof(names); i++) {
		int w = snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "",
				 families[i].name);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	fab_err_set(err, "unknown topology family \"%.64s\" (families: %s)",
		    family ? family : "", names);
}

struct fabric *gen_build(const char *family, const char *const *kv, size_t nkv, uint64_t seed,
			 struct fab_err *err)
{
	const struct gen_family *fam = gen_family_find(family);
	const struct gen_impl *impl;
	struct gen_args a;
	struct fabric *f;

	if (!fam) {
		unknown_family(family, err);
		return NULL;
	}
	impl = &impls[fam - families];
	if (parse_args(fam, impl, kv, nkv, &a, err)) {
		prefix_err(err, fam->name);
		return NULL;
	}
	f = impl->build(&a, seed, err);
	if (f && (fab_finalize(f, err) ||
		  fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, arg(&a, "lmc"), err))) {
		fab_free(f);
		f = NULL;
	}
	if (!f)
		prefix_err(err, fam->name);
	return f;
}

/* --- helpers for the builders --------------------------------------------- */

/**
 * gen_add_switch() - add switch number *@count (then count it)
 * Its node GUID is GEN_GUID_SWITCH + *@count + 1.
 * Return: the node index, or FAB_NONE with @err set.
 */
uint32_t gen_add_switch(struct fabric *f, uint32_t *count, unsigned nports, const char *desc,
			struct fab_err *err)
{
	struct fab_node_info in = {
		.type = FAB_SWITCH, .guid = GEN_GUID_SWITCH + *count + 1,
		.nports = nports, .desc = desc,
	};
	uint32_t n = fab_node_add(f, &in, err);

	if (n != FAB_NONE)
		(*count)++;
	return n;
}

/**
 * gen_add_ca() - add CA number *@count (then count it)
 * Its node GUID is GEN_GUID_CA + (*@count + 1) * 16; port p gets GUID + p.
 * Return: the node index, or FAB_NONE with @err set.
 */
uint32_t gen_add_ca(struct fabric *f, uint32_t *count, unsigned nports, const char *desc,
		    struct fab_err *err)
{
	struct fab_node_info in = {
		.type = FAB_CA, .guid = GEN_GUID_CA + ((uint64_t)*count + 1) * 16,
		.nports = nports, .desc = desc,
	};
	uint32_t n = fab_node_add(f, &in, err);

	if (n != FAB_NONE)
		(*count)++;
	return n;
}

/**
 * gen_check_size() - refuse fabrics whose endpoints do not fit the LID space
 * @nswitches: switches (each owns a LID on port 0); may be saturated
 * @ca_ports: linked CA ports; may be saturated
 * Return: 0, or -1 with @err set.
 */
int gen_check_size(uint64_t nswitches, uint64_t ca_ports, struct fab_err *err)
{
	uint64_t eps = nswitches + ca_ports;

	if (nswitches <= GEN_EPS_MAX && ca_ports <= GEN_EPS_MAX && eps <= GEN_EPS_MAX)
		return 0;
	if (nswitches > UINT32_MAX || ca_ports > UINT32_MAX)
		fab_err_set(err, "the fabric would have more than %u endpoints; at most %u fit "
			    "in the unicast LID space", UINT32_MAX, GEN_EPS_MAX);
	else
		fab_err_set(err, "%" PRIu64 " switches and %" PRIu64 " CA ports make %" PRIu64
			    " endpoints; at most %u fit in the unicast LID space",
			    nswitches, ca_ports, eps, GEN_EPS_MAX);
	return -1;
}

/**
 * gen_check_ports() - refuse switches with more than FAB_PORTS_MAX ports
 * @what: which switches, e.g. "leaf switches (n+m)"
 * Return: 0, or -1 with @err set.
 */
int gen_check_ports(const char *what, uint64_t nports, struct fab_err *err)
{
	if (nports >= 1 && nports <= FAB_PORTS_MAX)
		return 0;
	if (nports == 0)
		fab_err_set(err, "%s would have no port", what);
	else
		fab_err_set(err, "%s would have %" PRIu64 " ports; at most %u are possible", what,
			    nports, FAB_PORTS_MAX);
	return -1;
}

/** gen_width() - digits to print 0 .. @count - 1, at least 2. */
unsigned gen_width(uint64_t count)
{
	unsigned w = 1;

	for (uint64_t x = count > 1 ? count - 1 : 0; x >= 10; x /= 10)
		w++;
	return w < 2 ? 2 : w;
}

/** gen_mul() - @a * @b, saturated at UINT64_MAX. */
uint64_t gen_mul(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}
