/* SPDX-License-Identifier: MIT */
/**
 * DOC: routing engines
 *
 * A routing engine is a table of hooks (struct engine) filled with
 * designated initializers, one table per engine file, all listed in
 * engine.c. route() is a pure function: (const fabric, arguments) ->
 * routing, with no I/O and no global state; the same input gives a
 * byte-identical routing.
 *
 * An engine that cannot route a fabric says so with ENG_NOT_APPLICABLE and a
 * reason a user can read ("not a fat tree: switch 'sw-3' has no up link");
 * a chain ("sftree,updn,minhop") then tries the next engine. ENG_ERROR
 * (out of memory, a bad argument) stops the chain.
 *
 * LIDs: engines route the LIDs the fabric carries. An engine that needs
 * several LIDs per port (opt) says how many through lmc(); when some CA port
 * has fewer, the chain runner assigns LIDs with that LMC before calling
 * route(), and puts the previous ones back when the engine does not apply.
 * Engines route every LID of every range, so a larger LMC is fine.
 */
#ifndef FABROUTE_ENGINE_H
#define FABROUTE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/routing.h"

enum eng_status {
	ENG_ERROR = -1,
	ENG_OK = 0,
	ENG_NOT_APPLICABLE = 1,
};

#define ENG_OPTS_MAX 8

/**
 * struct eng_opt - one option of an engine (its schema entry)
 * @name: what the user writes before '='
 * @defval: the default, as the user would write it ("" for none)
 * @help: one line
 */
struct eng_opt {
	const char *name;
	const char *defval;
	const char *help;
};

/**
 * struct eng_args - the options given to one engine, checked against its
 * schema: @val[i] is the value of option i (NULL: the default)
 */
struct eng_args {
	const struct eng_opt *schema;
	const char *val[ENG_OPTS_MAX];
};

/** eng_arg() - the value of option @name (given or default); NULL if no such option. */
const char *eng_arg(const struct eng_args *a, const char *name);
/** eng_arg_uint() - option @name as an unsigned integer <= @max; 0 or -1 with @err. */
int eng_arg_uint(const struct eng_args *a, const char *name, unsigned max, unsigned *out,
		 struct fab_err *err);
/**
 * eng_arg_nodes() - option @name as a comma list of nodes (descriptions or
 * 0x node GUIDs) of @f; *@nodes (free() it) gets their indexes, *@n their
 * count (0 when the option is empty). Return: 0, or -1 with @err naming the
 * unknown node.
 */
int eng_arg_nodes(const struct eng_args *a, const char *name, const struct fabric *f,
		  uint32_t **nodes, size_t *n, struct fab_err *err);

/**
 * struct engine - a routing engine
 * @name: e.g. "minhop"
 * @summary: one line for `fabroute engines`
 * @options: schema, ended by an entry with a NULL name (NULL: no options)
 * @deadlock_free: the engine guarantees an acyclic CDG (per VL)
 * @vls: VLs the engine uses at most
 * @lmc: optional; the LMC the engine needs on CA ports of @f (0 if NULL)
 * @route: compute a routing for @f. Return ENG_OK with *@out set,
 *         ENG_NOT_APPLICABLE with @err holding the reason, or ENG_ERROR
 *         with @err set. Must not keep pointers to @f or @a.
 */
struct engine {
	const char *name;
	const char *summary;
	const struct eng_opt *options;
	int deadlock_free;
	unsigned vls;
	unsigned (*lmc)(const struct fabric *f, const struct eng_args *a);
	int (*route)(const struct fabric *f, const struct eng_args *a, struct rt_routing **out,
		     struct fab_err *err);
};

/** eng_all() - every engine, in the order `fabroute engines` lists them. */
const struct engine *const *eng_all(size_t *n);
const struct engine *eng_find(const char *name);

/* --- chains ------------------------------------------------------------ */

#define ENG_CHAIN_MAX 8

/**
 * struct eng_chain - engines to try in turn, with their arguments
 */
struct eng_chain {
	size_t n;
	const struct engine *e[ENG_CHAIN_MAX];
	struct eng_args args[ENG_CHAIN_MAX];
};

/**
 * eng_chain_parse() - parse "sftree,updn,minhop" and options
 * @kv: "engine.option=value" (for that engine) or "option=value" (for every
 *      engine of the chain that has the option; an error when none has it).
 *      The strings must outlive the chain.
 * Return: 0, or -1 with @err naming the unknown engine or option.
 */
int eng_chain_parse(struct eng_chain *c, const char *chain, const char *const *kv, size_t nkv,
		    struct fab_err *err);

/**
 * struct eng_outcome - what a chain did
 * @used: the engine whose routing was kept (NULL when none applied)
 * @log: one line per engine tried: "sftree: not applicable: reason"
 */
struct eng_outcome {
	const struct engine *used;
	char log[1024];
};

/**
 * eng_chain_route() - route @f with the first engine of @c that applies
 * LIDs of @f may be reassigned (an engine's lmc()); they are left as the
 * engine that routed saw them.
 * Return: ENG_OK with *@out, ENG_NOT_APPLICABLE when no engine applied
 * (@err summarises why, @res->log has each), ENG_ERROR with @err.
 */
int eng_chain_route(struct fabric *f, const struct eng_chain *c, struct rt_routing **out,
		    struct eng_outcome *res, struct fab_err *err);

/* --- helpers shared by the engines (engines/common.c) ------------------- */

/**
 * eng_sw_peer() - switch index at the other end of port @p of switch @sw,
 * FAB_NONE when the port leads nowhere or to a CA.
 */
uint32_t eng_sw_peer(const struct fabric *f, uint32_t sw, unsigned p);

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

#endif
