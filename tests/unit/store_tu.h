/* SPDX-License-Identifier: MIT */
/* What the store's unit tests share (tests/unit/store_tu.c). */
#ifndef FABROUTE_TESTS_STORE_TU_H
#define FABROUTE_TESTS_STORE_TU_H

#include "tests/unit/testutil.h"

#include "fabric/routing.h"
#include "store/store.h"

/* struct tmp - a test's directory and its database's path */
struct tmp {
	char dir[64];
	char db[96];
};

/* cmocka setup/teardown: make and remove the test's directory. */
int setup(void **state);
int teardown(void **state);
/* The store at @t->db, opened or the test failed. */
struct store *open_ok(const struct tmp *t);
/* Run @sql on the database through a connection of our own. */
void raw_exec(const char *path, const char *sql);
/* First column of the first row of @sql as text (static buffer), or as an integer. */
const char *raw_text(const char *path, const char *sql);
long long raw_int(const char *path, const char *sql);
/* store_open(@path) fails with an error naming @path and containing @needle. */
void open_fails(const char *path, const char *needle);
/* Integer and string member @k of @o (the test fails when missing). */
json_int_t ji(const json_t *o, const char *k);
const char *js(const json_t *o, const char *k);
/* A generated fabric routed by @chain, given the LIDs routed. */
struct rt_routing *route(struct fabric *f, const char *chain);
/* rt_digest() of @f and @r (static buffer). */
const char *digest_of(const struct fabric *f, const struct rt_routing *r);
/* Store a snapshot of @f and @r as epoch @seq at @time_ms; its id. */
int64_t add(struct store *s, const struct fabric *f, const struct rt_routing *r, uint64_t seq,
	    int64_t time_ms);
/* A generated k=2 n=3 tree with the link leaf-00:3 removed, routed in *@r. */
struct fabric *faulted(struct rt_routing **r);

#endif
