/* SPDX-License-Identifier: MIT */
/**
 * DOC: engine option files
 *
 * The files engine options name (dla.groups=FILE), read by the daemon
 * beforehand: regular files in engine_files_dir only, at most
 * ENG_OPT_FILE_MAX bytes, within ENGF_TIMEOUT_MS, never under a lock
 * (daemon/engfiles.c).
 */
#ifndef FABROUTE_DAEMON_ENGFILES_H
#define FABROUTE_DAEMON_ENGFILES_H

#include "engines/engine.h"

/** How long a file option's read may take. */
#define ENGF_TIMEOUT_MS 2000u

struct engf;

/** engf_new() - an empty cache; NULL when out of memory. */
struct engf *engf_new(void);
void engf_free(struct engf *f);

/**
 * engf_read() - the file @value names in @dir: a name relative to it or an
 * absolute path inside it, a regular file, read in a thread within
 * ENGF_TIMEOUT_MS. Return: 0 with *@data (malloc'd, NUL-terminated) and
 * *@len, or -1 with @err saying why.
 */
int engf_read(const char *dir, const char *value, char **data, size_t *len, struct fab_err *err);

/**
 * engf_prepare() - read every file the options of @chain name (and the
 * file defaults of its engines), from @dir, into @f. Blocks at most
 * ENGF_TIMEOUT_MS per file; call it with no lock held. 0, or -1 with @err
 * naming the option.
 */
int engf_prepare(struct engf *f, const char *dir, const char *chain, const char *options, struct fab_err *err);

/** engf_gen() - a number that changes whenever a file's contents in @f change. */
uint64_t engf_gen(struct engf *f);

/** engf_source() - file options from @f's cache alone (no I/O): for eng_chain_parse_files(). */
struct eng_files engf_source(struct engf *f);

/**
 * engf_check() - parse @chain and @options with their file options checked
 * by name only (in @dir), nothing read: for the configuration's checks.
 */
int engf_check(const char *dir, const char *chain, const char *options, struct fab_err *err);

#endif
