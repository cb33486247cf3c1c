/* SPDX-License-Identifier: MIT */
/**
 * DOC: file source
 *
 * The topology comes from a file (ibnetdiscover or ibsim format) or a
 * generator ("gen:FAMILY[:K=V,...]"). Faults are simulated through the API:
 * a link or a switch taken down or brought back up, as traps from a real
 * fabric would report them. The fabric to route is the base topology minus
 * the faults. All functions are thread-safe.
 */
#ifndef FABROUTE_DAEMON_SOURCE_FILE_H
#define FABROUTE_DAEMON_SOURCE_FILE_H

#include <jansson.h>

#include "fabric/fabric.h"

struct srcf;

/**
 * struct srcf_input - where the topology comes from and how it is read
 * @topology: a file, or gen:FAMILY[:K=V,...]
 * @format: auto, ibnetdiscover or ibsim
 * @names: a node-name-map file naming the nodes ("" or NULL: none)
 * @strict: refuse the tools' diagnostic lines among the records (else they
 *	    are skipped, each logged as a warning with its file and line)
 */
struct srcf_input {
	const char *topology, *format, *names;
	int strict;
};

/** srcf_open() - load the topology @in names; NULL with @err. */
struct srcf *srcf_open(const struct srcf_input *in, struct fab_err *err);

/**
 * srcf_names() - give the nodes of @f the names of node-name-map @path (a
 * no-op when @path is NULL or ""). Return: 0, or -1 with @err set.
 */
int srcf_names(struct fabric *f, const char *path, struct fab_err *err);
void srcf_free(struct srcf *s);

/**
 * srcf_reload() - load @topology again (SIGHUP); the faults are kept when
 * they still name existing links and switches, dropped otherwise.
 * Return: 1 when the topology changed, 0 when it did not, -1 with @err
 * (the old topology stays).
 */
int srcf_reload(struct srcf *s, const struct srcf_input *in, struct fab_err *err);
/** srcf_load() - the first half of srcf_reload(): read the topology (may block: a FIFO, a slow disk). */
struct fabric *srcf_load(const struct srcf_input *in, struct fab_err *err);
/**
 * srcf_replace() - the second half: make @f (taken) the topology, faults kept
 * as srcf_reload() does. Return: 1 when the topology or a node's description
 * changed, 0 otherwise.
 */
int srcf_replace(struct srcf *s, struct fabric *f);

/** srcf_fabric() - a new fabric: the topology minus the faults (caller frees). */
struct fabric *srcf_fabric(struct srcf *s, struct fab_err *err);

enum srcf_kind { SRCF_LINK, SRCF_SWITCH };

/**
 * srcf_fault() - take a link ("NODE:PORT", either end) or a switch ("NODE")
 * down (@down = 1) or up; NODE is a description or a node GUID (0x...).
 * @canon: receives the canonical name ("0xGUID:PORT" of the link's lower end)
 * Return: 0; or with @err: 1 no such node or port (404), 2 malformed (400),
 * 3 already in that state (409).
 */
int srcf_fault(struct srcf *s, enum srcf_kind kind, int down, const char *what, char *canon,
	       size_t csize, struct fab_err *err);

/** srcf_faults_json() - {"links": ["0x..:P", ...], "switches": ["0x..", ...]} */
json_t *srcf_faults_json(struct srcf *s);
/**
 * srcf_faults_detail() - the faults as the base topology names them:
 * {"links": [{"fault", "a", "b"}], "switches": [{"fault", "node", "guid",
 * "lid", "level", "cas", "peers"}]}, in the order of srcf_faults_json();
 * a link's ends and a switch's switch neighbours ("peers", their ports) as
 * {"node", "guid", "port"}, a switch's level in the base topology's shape
 */
json_t *srcf_faults_detail(struct srcf *s);
/** srcf_faults_clear() - bring every link and switch back up; how many faults there were. */
size_t srcf_faults_clear(struct srcf *s);
/** srcf_faults_restore() - faults saved with srcf_faults_json(); unknown ones are skipped. */
void srcf_faults_restore(struct srcf *s, const json_t *saved);

#endif
