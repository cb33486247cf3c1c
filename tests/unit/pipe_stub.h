/* SPDX-License-Identifier: MIT */
/*
 * The reroute pipeline's tests (test_pipeline.c, test_pipe_repair.c) link
 * the real daemon/sched.c, job.c and repair.c, the real event loop, epochs
 * and engines against the stubs of tests/unit/pipe_stub.c: a store that
 * records events and offers one snapshot to restore, and a file source whose
 * fabric a test sets, holds behind a gate or fails. The fixture runs a
 * pipeline with its loop in a thread of its own.
 */
#ifndef FABROUTE_TEST_PIPE_STUB_H
#define FABROUTE_TEST_PIPE_STUB_H

#include <pthread.h>

#include "daemon/pipeline.h"
#include "store/store.h"

#define PS_EVENTS_MAX 64

/* What the stub store recorded and offers. */
struct store {
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* the snapshot gate opened */
	unsigned nevents, nsnapshots;
	uint64_t stored_seq[16];	/* the epochs stored, in the order stored */
	int snap_gate_closed, snap_waiting;	/* store_snapshot_add() waits while closed */
	char event_type[PS_EVENTS_MAX][16];
	char event_msg[PS_EVENTS_MAX][512];
	char *event_details[PS_EVENTS_MAX];	/* JSON text, or NULL */
	char *routing_key;
	struct fabric *snap_f;		/* offered by store_snapshot_load() */
	struct rt_routing *snap_r;
	uint64_t snap_seq;
	uint64_t seq;		/* the last number store_seq_next() gave */
	int seq_fail;
};

/* The stub file source: @topo is what it gives (a copy each time). */
struct srcf {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct fabric *topo;
	int gate_closed, fail, waiting;
	unsigned calls;
	int64_t call_ms[16];
};

extern struct store ps_store;
extern struct srcf ps_src;

/* A pipeline and its loop's thread. */
struct ps_fix {
	struct loop *loop;
	pthread_t th;
	struct epoch_slot slot;
	struct pipeline *p;
};

/* ps_reset() - empty the stubs; the source gives gen_build(@family, @kv) (seed 1). */
void ps_reset(const char *family, const char *const *kv, size_t nkv);
/* ps_reset_tree() - ps_reset() with the 2-ary 3-tree (12 switches, 8 CAs). */
void ps_reset_tree(void);
/* ps_start() - a pipeline with @set over the stubs, its loop running. */
struct ps_fix *ps_start(const struct pipe_settings *set);
/* ps_start_chain() - ps_start() with @chain, @holddown_ms, repairs off, 10 snapshots kept. */
struct ps_fix *ps_start_chain(unsigned holddown_ms, const char *chain);
void ps_stop(struct ps_fix *x);
/* Hold the source's next fabric behind a gate, wait (10 s) until a reroute waits there, let it pass. */
void ps_close_gate(void);
void ps_wait_at_gate(void);
void ps_open_gate(void);
/* ps_wait_for() - wait (10 s) for @ok reroutes and @failed failures and an idle pipeline. */
struct pipe_stats ps_wait_for(struct ps_fix *x, uint64_t ok, uint64_t failed);
/* ps_current() - the current epoch (a reference, NULL when none); ps_current_seq() its number. */
struct epoch *ps_current(struct ps_fix *x);
uint64_t ps_current_seq(struct ps_fix *x);
/* ps_event() - the index of the first event from @from of @type whose message holds @needle; -1 if none. */
int ps_event(unsigned from, const char *type, const char *needle);
/* ps_link_down() - take down the link at port @port of the node named @desc in the source's fabric. */
void ps_link_down(const char *desc, unsigned port);
/* ps_teardown() - a cmocka group teardown: the stubs emptied and freed. */
int ps_teardown(void **state);

#endif
