/* SPDX-License-Identifier: MIT */
/**
 * DOC: routing engines and the routing run
 *
 * A routing engine is a table of hooks (struct engine) filled with
 * designated initializers, one table per engine, in a file of its name,
 * all listed in engine.c and declared below. The engines live one folder
 * per family, as BIRD keeps one per protocol: ucast/ (minhop, updn, the
 * Up*\/Down* ranking they and lidassign share), ftree/ (ftree, sftree and
 * their fat-tree model), ftdlr/ (local repair), gft2/ (dmodk, smodk, opt),
 * dla/, lidassign/ (the LID assignment heuristics and the path-based
 * engines pathsel, swidest, rename, explicit). A new engine is one folder
 * and one line in engine.c. Its hooks are pure functions: (request,
 * options) -> result, with no I/O and no global state; the same request
 * gives a byte-identical result.
 *
 * eng_run() is the only place that composes a routing run, for the CLI and
 * the daemon alike (a full routing, a repair of a previous routing, a stored
 * routing restored: enum eng_mode): assign LIDs (pins, then new LIDs), try the chain's
 * engines in turn (an engine that cannot route the fabric says so with
 * ENG_NOT_APPLICABLE and a reason a user can read, and the next one runs;
 * ENG_ERROR stops the chain), give engines that need several LIDs per port
 * the LMC they ask for within the request's budget, evaluate the routing
 * and hold it to the request's publish policy.
 *
 * Options have a typed schema (bool, integer range, enum, list, file),
 * checked when a chain is parsed, so a bad value is refused where the
 * configuration is read, naming the option. A file option is read when the
 * chain is parsed (or handed in: eng_chain_parse_files()); engines see its
 * contents, never the file.
 */
#ifndef FABROUTE_ENGINE_H
#define FABROUTE_ENGINE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "fabric/fabric.h"
#include "fabric/routing.h"

enum eng_status {
	ENG_ERROR = -1,
	ENG_OK = 0,
	ENG_NOT_APPLICABLE = 1,
};

#define ENG_OPTS_MAX 8
/** Largest file an option of type ENG_OPT_FILE may name. */
#define ENG_OPT_FILE_MAX (16u << 20)

enum eng_opt_type {
	ENG_OPT_BOOL,	/* 0 or 1 */
	ENG_OPT_INT,	/* an integer from @min to @max */
	ENG_OPT_ENUM,	/* one of @values ("center|osm") */
	ENG_OPT_LIST,	/* comma-separated items, possibly empty */
	ENG_OPT_FILE,	/* a readable file (empty: none), read when the chain is parsed */
};

/**
 * struct eng_opt - one option of an engine (its schema entry)
 * @name: what the user writes before '='
 * @type: enum eng_opt_type
 * @defval: the default, as the user would write it ("" for none)
 * @help: one line
 * @min, @max: ENG_OPT_INT's range
 * @values: ENG_OPT_ENUM's values, separated by '|'
 * @check: ENG_OPT_FILE, optional: checks the file's contents (@name is its
 *         path) when the chain is parsed; 0, or -1 with @err naming the line
 */
struct eng_opt {
	const char *name;
	enum eng_opt_type type;
	const char *defval;
	const char *help;
	long min, max;
	const char *values;
	int (*check)(const char *buf, size_t len, const char *name, struct fab_err *err);
};

/**
 * struct eng_args - the options given to one engine, checked against its
 * schema: @val[i] is the value of option i (NULL: the default), @file[i]
 * and @file_len[i] the contents of a file option. Owned by the chain.
 */
struct eng_args {
	const struct eng_opt *schema;
	char *val[ENG_OPTS_MAX];
	char *file[ENG_OPTS_MAX];
	size_t file_len[ENG_OPTS_MAX];
};

/** eng_arg() - the value of option @name (given or default); NULL if no such option. */
const char *eng_arg(const struct eng_args *a, const char *name);
/** eng_arg_bool() - a checked bool option: 0 or 1 (0 when @a has no such option). */
int eng_arg_bool(const struct eng_args *a, const char *name);
/** eng_arg_int() - a checked integer option (0 when @a has no such option). */
long eng_arg_int(const struct eng_args *a, const char *name);
/** eng_arg_enum() - index of a checked enum option's value in its @values (0 when none). */
unsigned eng_arg_enum(const struct eng_args *a, const char *name);
/**
 * eng_arg_file() - contents of a file option: *@len bytes (not
 * NUL-terminated), NULL when the option is empty.
 */
const char *eng_arg_file(const struct eng_args *a, const char *name, size_t *len);
/**
 * eng_arg_guids() - file option @name read as a GUID file (OpenSM's format
 * of root_guid_file, cn_guid_file and io_guid_file: fmt_guids_parse());
 * *@guids (free() it) and *@n get its GUIDs, none when the option is empty.
 * Return: 1 when the option names a file, 0 when it is empty, -1 with @err.
 */
int eng_arg_guids(const struct eng_args *a, const char *name, uint64_t **guids, size_t *n,
		  struct fab_err *err);
/** eng_check_guids() - a struct eng_opt check: the contents parse as a GUID file. */
int eng_check_guids(const char *buf, size_t len, const char *name, struct fab_err *err);

/**
 * eng_arg_nodes() - option @name as a comma list of nodes (descriptions or
 * 0x node GUIDs) of @f; *@nodes (free() it) gets their indexes, *@n their
 * count (0 when the option is empty). Return: 0, or -1 with @err naming the
 * unknown node.
 */
int eng_arg_nodes(const struct eng_args *a, const char *name, const struct fabric *f,
		  uint32_t **nodes, size_t *n, struct fab_err *err);
/**
 * eng_opt_check() - check @value against option @o's type, naming it as
 * @engine.@o->name in @err. Return: 0 or -1.
 */
int eng_opt_check(const char *engine, const struct eng_opt *o, const char *value,
		  struct fab_err *err);
/** eng_opt_type_text() - "0|1", "1..16", "center|osm", "LIST", "FILE": for help texts. */
const char *eng_opt_type_text(const struct eng_opt *o, char *buf, size_t size);

struct engine;
/**
 * eng_options_json() - @e's options: [{"name", "type", "values", "default",
 * "help"[, "min", "max"]}, ...] (engines/json.c)
 */
json_t *eng_options_json(const struct engine *e);

struct eng_req;
struct eng_res;
struct eng_memo;

/**
 * struct engine - a routing engine
 * @name: e.g. "minhop"
 * @summary: one line for `fabroute engines`
 * @options: schema, ended by an entry with a NULL name (NULL: no options)
 * @deadlock_free: the engine guarantees an acyclic (channel, VL) dependency graph
 * @vls: VLs the engine uses at most
 * @lmc: optional; the LMC the engine needs on the CA ports of @f (0 if NULL)
 * @route: route @req->fabric: ENG_OK with @res->routing set (and, for an
 *         engine that plans LIDs itself, @res->plan), ENG_NOT_APPLICABLE
 *         with @err holding the reason, or ENG_ERROR with @err set. Must not
 *         keep pointers into @req or @a.
 * @repair: optional; used instead of @route when @req carries a previous
 *          routing. ENG_NOT_APPLICABLE lets @route run.
 * @prepare: optional; fill @memo for base (@bf, @br) ahead of its next
 *           repair, with what @repair would work out from the base alone
 *           then (a caller with time on its hands before a fault calls it,
 *           again after each repair). It stops soon after *@stop turns
 *           non-zero (read atomically; NULL: never), keeping what it did:
 *           the next call goes on from there. 0 when done, 1 when stopped,
 *           -1 when out of memory (@memo may stay empty)
 */
struct engine {
	const char *name;
	const char *summary;
	const struct eng_opt *options;
	int deadlock_free;
	unsigned vls;
	unsigned (*lmc)(const struct fabric *f, const struct eng_args *a);
	int (*route)(const struct eng_req *req, const struct eng_args *a, struct eng_res *res,
		     struct fab_err *err);
	int (*repair)(const struct eng_req *req, const struct eng_args *a, struct eng_res *res,
		      struct fab_err *err);
	int (*prepare)(const struct fabric *bf, const struct rt_routing *br, struct eng_memo *memo,
		       const int *stop);
};

extern const struct engine eng_sftree, eng_ftree, eng_opt, eng_dmodk, eng_smodk;
extern const struct engine eng_dla, eng_updn, eng_minhop;
extern const struct engine eng_pathsel, eng_swidest, eng_rename, eng_explicit, eng_ftdlr;

/** eng_all() - every engine, in the order `fabroute engines` lists them. */
const struct engine *const *eng_all(size_t *n);
const struct engine *eng_find(const char *name);

/* --- chains ------------------------------------------------------------ */

#define ENG_CHAIN_MAX 8

/**
 * struct eng_chain - engines to try in turn, with their checked options;
 * release with eng_chain_free()
 */
struct eng_chain {
	size_t n;
	const struct engine *e[ENG_CHAIN_MAX];
	struct eng_args args[ENG_CHAIN_MAX];
};

/**
 * eng_chain_parse() - parse "sftree,updn,minhop" and options
 * @kv: "engine.option=value" (for that engine) or "option=value" (for every
 *      engine of the chain that has the option; an error when none has it)
 * Every value is checked against its option's type and file options are
 * read. Return: 0, or -1 with @err naming the unknown engine, the unknown
 * option or the bad value (the chain is then empty).
 */
int eng_chain_parse(struct eng_chain *c, const char *chain, const char *const *kv, size_t nkv,
		    struct fab_err *err);
/**
 * eng_chain_parse_str() - eng_chain_parse() with the options as one string
 * "eng.k=v,k=v ..." (separated by commas or blanks; a piece without '='
 * continues the list value before it: "updn.roots=s1,s2").
 */
int eng_chain_parse_str(struct eng_chain *c, const char *chain, const char *options,
			struct fab_err *err);

/**
 * struct eng_files - where the file options of a chain come from
 * @read: the contents of the file option whose value is @value: *@data
 *        (malloc'd, or NULL when the caller only checks names) and *@len;
 *        0, or -1 with @err saying why (the chain adds the option's name)
 */
struct eng_files {
	int (*read)(void *ud, const char *value, char **data, size_t *len, struct fab_err *err);
	void *ud;
};

/**
 * eng_chain_parse_files() - eng_chain_parse_str() with every file option's
 * contents from @files instead of the file it names (NULL: the file, any
 * the caller may read, as the command line does). The daemon reads them
 * beforehand, from one directory, bounded in size and time, and hands
 * them in here.
 */
int eng_chain_parse_files(struct eng_chain *c, const char *chain, const char *options,
			  const struct eng_files *files, struct fab_err *err);
void eng_chain_free(struct eng_chain *c);

/* --- the routing run ----------------------------------------------------- */

/**
 * enum eng_policy - what eng_run() accepts from an engine
 * @ENG_ACCEPT_ANY: any routing the engine returns
 * @ENG_ACCEPT_CONNECTED: every pair of every class delivered
 * @ENG_ACCEPT_PROVEN: connected and deadlock-free
 * A routing that falls short makes eng_run() try the chain's next engine.
 * Anything but ENG_ACCEPT_ANY needs an evaluation (@eval in the request).
 */
enum eng_policy {
	ENG_ACCEPT_ANY = 0,
	ENG_ACCEPT_CONNECTED,
	ENG_ACCEPT_PROVEN,
};

/**
 * enum eng_mode - what eng_run() does with the chain
 * @ENG_MODE_ROUTE: each engine routes; one with a repair hook repairs
 *                  @prev instead when a previous routing is given, and
 *                  routes when its repair does not apply
 * @ENG_MODE_REPAIR: each engine only repairs @prev (a repair that does not
 *                   apply, or an engine without a repair hook, lets the next
 *                   engine try; none routes from scratch)
 * @ENG_MODE_KEEP: no engine runs: @prev (a stored routing of @fabric) is
 *                 evaluated and held to the policy as if the chain's first
 *                 engine, the one that made it, had just routed it
 */
enum eng_mode {
	ENG_MODE_ROUTE = 0,
	ENG_MODE_REPAIR,
	ENG_MODE_KEEP,
};

/**
 * struct eng_budget - what one engine of a chain may spend
 * @time_ms: an engine still running after this long is stopped; it counts
 *           as not applicable and the chain's next engine runs (0: no bound)
 * @memory: bytes an engine may plan to use; one that can tell beforehand
 *          that it needs more does not apply (0: no bound)
 * @cancel: once *@cancel is nonzero (another thread sets it), the engine in
 *          progress stops and eng_run() returns ENG_ERROR "cancelled"
 *          (NULL: never)
 */
struct eng_budget {
	unsigned time_ms;
	size_t memory;
	const int *cancel;
};

/**
 * struct eng_since - a routing already evaluated whose evaluation state a
 * routing run may take over (an_reevaluate()): its routing is then proven
 * by redoing only the destinations whose entries or links changed
 * @fabric, @routing: what @report evaluated, with an_opts.incremental
 * @report: its state moves into the run's report (its figures stay)
 */
struct eng_since {
	const struct fabric *fabric;
	const struct rt_routing *routing;
	struct an_report *report;
};

/**
 * struct eng_req - one routing run
 * @fabric: the fabric to route (finalized); never changed
 * @own: optional: @fabric itself, given to eng_run(), which routes it as
 *       it is instead of a copy and frees it (or hands it over as the
 *       result's fabric), whatever it returns
 * @chain: the engines to try, with their options
 * @pins, @npins: LIDs to keep (guid2lid or the store), applied first
 * @lid_mode: FAB_LIDS_KEEP keeps the LIDs @fabric carries after the pins;
 *            FAB_LIDS_RENEW assigns every unpinned port anew
 * @assign: 0: route @fabric's LIDs as they are (an SM owns them; @pins,
 *          @lid_mode and @lmc are ignored); 1: assign LIDs as above first
 * @lmc: LMC of the CA ports that get a new LID
 * @lmc_budget: the largest LMC eng_run() may give CA ports for an engine
 *              that needs more LIDs than they have (0 with @assign 0: the
 *              LIDs are fixed, such an engine does not apply)
 * @prev_fabric, @prev: optional previous routing (and the fabric it was
 *                      computed for): engines with a repair hook use it
 * @memo: optional: where a repair hook keeps what it works out from
 *        @prev_fabric and @prev alone, for the next repair of them
 * @mode: enum eng_mode
 * @eval: evaluate each routing with these options (NULL: no evaluation)
 * @since: optional: evaluate incrementally from this evaluated routing
 *         (same verdicts and figures as a full evaluation)
 * @policy: enum eng_policy
 * @threads: threads an engine may use (0: one per online CPU); a routing
 *           never depends on it
 * @budget: what each engine of the chain may spend (all 0: no bound)
 * @deadline_ms: set by eng_run() for the engine it calls (0: none), from
 *               @budget.time_ms; engines read it through eng_stopped()
 */
/**
 * struct eng_memo - what an engine's repair hook worked out from a base
 * routing alone, kept by the caller beside that base so that the next
 * repair of the same base starts from it (the repair is the same with or
 * without it). An engine uses it only when it made it (@e) for the base it
 * is given (@base_f, @base), and replaces it otherwise; the caller clears
 * it (eng_memo_clear()) before the base it was made for is freed.
 * @data, @free: the engine's, and how to free it
 */
struct eng_memo {
	const struct engine *e;
	const struct fabric *base_f;
	const struct rt_routing *base;
	void *data;
	void (*free)(void *data);
};

/** eng_memo_clear() - free what @m holds; it is empty after. */
void eng_memo_clear(struct eng_memo *m);

struct eng_req {
	const struct fabric *fabric;
	struct fabric *own;
	const struct eng_chain *chain;
	const struct fab_lid_pin *pins;
	size_t npins;
	enum fab_lid_mode lid_mode;
	int assign;
	unsigned lmc, lmc_budget;
	const struct fabric *prev_fabric;
	const struct rt_routing *prev;
	struct eng_memo *memo;
	enum eng_mode mode;
	const struct an_opts *eval;
	const struct eng_since *since;
	enum eng_policy policy;
	unsigned threads;
	struct eng_budget budget;
	double deadline_ms;
};

/**
 * eng_stopped() - the engine in progress must give up: the run was
 * cancelled (@q->budget.cancel) or it is past its time budget. Engines that
 * can run long (the path-based ones) ask it in their long loops and return
 * ENG_NOT_APPLICABLE then; eng_run() reports the reason. Reads a clock: a
 * routing never depends on it, only whether there is one.
 */
int eng_stopped(const struct eng_req *q);

/**
 * struct eng_res - what a routing run gives; release with eng_res_free()
 * @fabric: the fabric as routed: the request's with the LIDs routed
 * @routing: the routing (LFTs, per-pair DLID offsets and SLs, SL2VL, notes)
 * @plan, @nplan: the LID plan: every endpoint's port GUID, base LID and
 *                LMC as routed (in @fabric's endpoint order)
 * @lids_failed: the request's LIDs could not be assigned (ENG_ERROR: bad pins)
 * @used: the engine that routed; @repaired: it came from its repair hook
 * @log: one line per engine tried: "sftree: not applicable: reason"
 * @lids_ms, @route_ms, @eval_ms: time assigning LIDs, in the engine that
 *                                routed, evaluating its routing
 * @evaluated: @report holds the evaluation (with @eval_opts)
 * @changed, @nchanged: from a repair hook that knows them (else NULL): the
 *                      switches (index in @fabric) whose table differs
 *                      from the request's @prev; eng_run() uses and frees
 *                      them (an incremental proof then compares only
 *                      those tables)
 */
struct eng_res {
	struct fabric *fabric;
	struct rt_routing *routing;
	struct fab_lid_pin *plan;
	size_t nplan;
	int lids_failed;
	const struct engine *used;
	int repaired;
	char log[1024];
	double lids_ms, route_ms, eval_ms;
	int evaluated;
	struct an_opts eval_opts;
	struct an_report report;
	uint32_t *changed;
	size_t nchanged;
};

/**
 * eng_run() - route @req->fabric with the first engine of its chain that
 * applies and whose routing meets @req->policy
 * Return: ENG_OK with @res filled, ENG_NOT_APPLICABLE when no engine gave an
 * acceptable routing (@err summarises why, @res->log has each reason),
 * ENG_ERROR with @err (bad LIDs, out of memory, an engine's error). @res
 * holds nothing to free but its log unless ENG_OK is returned.
 */
int eng_run(const struct eng_req *req, struct eng_res *res, struct fab_err *err);
void eng_res_free(struct eng_res *res);

/* --- helpers shared by the engines (engines/common.c) ------------------- */

/**
 * eng_hops() - hop distances between all switches (BFS over switch links):
 * hops[a * nswitches + b], UINT8_MAX when unreachable. Return NULL when out
 * of memory. nswitches^2 bytes.
 */
uint8_t *eng_hops(const struct fabric *f);

/**
 * eng_route_endpoints() - fill every LID of every endpoint's range on its
 * own switch: port 0 for a switch's LIDs, the CA's port for the CA's LIDs.
 * Engines call it, then route what remains between switches.
 */
void eng_route_endpoints(const struct fabric *f, struct rt_routing *r);
/** eng_route_endpoints_if() - the same but for the LIDs l with @flags[l] & @skip. */
void eng_route_endpoints_if(const struct fabric *f, struct rt_routing *r, const uint8_t *flags,
			    uint8_t skip);

/**
 * eng_unreachable() - the ordered endpoint pairs (self excluded) routing
 * @r leaves undelivered in @f, by class (enum an_class), as the evaluator
 * counts them (engines/unreach.c). Return: 0, or -1 when out of memory.
 */
int eng_unreachable(const struct fabric *f, const struct rt_routing *r,
		    uint64_t out[AN_NCLASSES]);
/**
 * eng_unreachable_text() - "unreachable pairs: CA->CA 0, CA->switch 12,
 * switch->CA 12, switch->switch 0" (or "unreachable pairs: none") into @buf.
 */
const char *eng_unreachable_text(const uint64_t n[AN_NCLASSES], char *buf, size_t len);

#endif
