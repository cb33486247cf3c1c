/* SPDX-License-Identifier: MIT */
/**
 * DOC: the OpenSM plugin (libfabroute-osm.so)
 *
 * OpenSM loads the plugin with ``event_plugin_name fabroute-osm`` and hands
 * it ``event_plugin_options`` (``socket=PATH timeout_ms=N``). The plugin
 *
 * - adds a routing engine named "fabroute" at the head of OpenSM's engine
 *   list (plugin.c). Its build_lid_matrices sends the subnet as OpenSM sees
 *   it to fabrouted over the "route" connection (plugin_subnet.c), then
 *   fills the switches' hop matrices while the daemon routes
 *   (plugin_hops.c), so that OpenSM does not build its own; its
 *   ucast_build_fwd_tables waits for the answer until a deadline, checks
 *   all of it and copies the LFTs into the switches' new_lft. On any
 *   failure it clears the hop matrices and returns -1, and OpenSM's next
 *   engine routes the pass, so OpenSM never depends on the daemon. Each
 *   pass's outcome is reported to the daemon;
 * - keeps the SL2VL tables and path SLs of the routing it installed and
 *   answers OpenSM's update_sl2vl, path_sl and update_vlarb hooks from them
 *   (plugin_vl.c), when that routing uses an SL or a VL other than 0;
 * - keeps a "control" connection from a thread of its own
 *   (plugin_events.c): OpenSM's events go to the daemon, the daemon's
 *   sweep requests go to OpenSM.
 *
 * doc/osm-protocol.md specifies the messages; opensm/proto.c frames them.
 *
 * Locking: the engine runs inside OpenSM's routing pass with osm->lock
 * held exclusively, and report() is called by several OpenSM threads, for
 * traps and LFT changes with osm->lock held. So the plugin never takes
 * osm->lock, and its own state is guarded by fosm.ctl_mu (the control
 * connection) or owned by one thread (the route connection belongs to the
 * routing pass, which OpenSM serialises). The SL/VL state (fosm.vl) is
 * replaced only inside the routing pass; OpenSM calls update_sl2vl and
 * update_vlarb with osm->lock held exclusively and path_sl (SA) with it
 * held shared, so the hooks read it without a lock of their own.
 */
#ifndef FABROUTE_OSM_PLUGIN_H
#define FABROUTE_OSM_PLUGIN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/*
 * osm_config.h must come first: it defines ENABLE_OSM_PERF_MGR, which
 * changes the layout of osm_subn_opt_t and osm_opensm_t, and osm_opensm.h
 * reaches osm_subnet.h before it includes osm_config.h itself. The headers
 * test HAVE_CONFIG_H with #if (-Wundef), and complib's inline functions
 * cast through uint8_t * (clang's -Wcast-align): not ours to fix.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wundef"
#pragma GCC diagnostic ignored "-Wcast-align"
#include <opensm/osm_config.h>
#include <opensm/osm_version.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_helper.h>
#include <opensm/osm_log.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_subnet.h>
#include <opensm/osm_switch.h>
#pragma GCC diagnostic pop

#include "opensm/proto.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/** FOSM_ENGINE - the routing engine's name, as OpenSM logs it. */
#define FOSM_ENGINE "fabroute"
/** FOSM_PLUGIN - what the plugin calls itself in its hello. */
#define FOSM_PLUGIN "fabroute-osm " PACKAGE_VERSION

/* timeout_ms=N bounds; without it (or timeout_ms=auto) each pass gets osmp_deadline_ms() of its subnet */
#define FOSM_TIMEOUT_MIN OSMP_DEADLINE_MIN_MS
#define FOSM_TIMEOUT_MAX OSMP_DEADLINE_MAX_MS
/** FOSM_EVENT_MS - deadline of one event write from report(). */
#define FOSM_EVENT_MS 100
/** FOSM_RETRY_MS - pause between two connection attempts of the control thread. */
#define FOSM_RETRY_MS 1000
/** FOSM_STATE_MS - how often the control thread looks at OpenSM's SM state. */
#define FOSM_STATE_MS 200
/** FOSM_CTL_IO_MS - longest the control thread waits on a hello or a started frame. */
#define FOSM_CTL_IO_MS 1000
/**
 * FOSM_SWEEP_LATE_MS - a sweep fabrouted asked for whose routing pass has
 * not begun this long after is said to be late (once)
 */
#define FOSM_SWEEP_LATE_MS 10000

/** enum fosm_result - how a routing pass ended (the "pass_result" event) */
enum fosm_result {
	FOSM_ROUTED,	/* fabrouted's tables installed */
	FOSM_FALLBACK,	/* fabrouted erred, or its answer was refused: OpenSM's next engine routes */
	FOSM_TIMEOUT,	/* no answer by the deadline: OpenSM's next engine routes */
	FOSM_ERROR,	/* no daemon, a broken connection, a protocol error: OpenSM's next engine routes */
};

/**
 * struct fosm_vl_sw - one switch in the installed SL/VL state
 * @guid: node GUID (host order)
 * @dim: port count + 1 (port 0 included)
 * @def_vls: data VLs of the default mapping, VL = SL mod @def_vls (the
 *	fewest VLs any of the switch's linked ports runs)
 * @tab: the routing's table, @dim^2 x 8 bytes (in port, out port, then 16
 *	VLs packed two to a byte, SL 0 in the high nibble: IB's SL2VL table
 *	order), pointing into fosm_vl.payload; NULL for the default mapping
 */
struct fosm_vl_sw {
	uint64_t guid;
	unsigned dim, def_vls;
	const uint8_t *tab;
};

/**
 * struct fosm_vl_src - a source port that uses SLs other than 0
 * @lid_lo: its base LID; @lid_hi: its last LID (LMC range)
 * @row: the SL of each DLID below fosm_vl.lft_len, packed two to a byte
 */
struct fosm_vl_src {
	unsigned lid_lo, lid_hi;
	const uint8_t *row;
};

/**
 * struct fosm_vl - the SL/VL part of a routing (built, checked, installed)
 * @sls: SLs some path uses (bit per SL; SL 0 always)
 * @vls: VLs some switch sends a used SL on (bit per VL)
 * @sw: every switch, by GUID (@nsw)
 * @src: the sources with path SLs, by LID (@nsrc)
 * @lft_len: DLIDs the routing covers
 * @known: per LID below @lft_len, 1 when a port owned it when routed
 * @payload: the answer's payload, which @sw[].tab and @src[].row point into
 */
struct fosm_vl {
	uint16_t sls, vls;
	struct fosm_vl_sw *sw;
	size_t nsw;
	struct fosm_vl_src *src;
	size_t nsrc;
	size_t lft_len;
	uint8_t *known;
	uint8_t *payload;
};

/**
 * struct fosm_pass - the routing pass under way, from the engine's
 * build_lid_matrices (request sent, hop matrices filled) to its
 * ucast_build_fwd_tables (answer installed)
 * @t0: osmp_now_ms() at its start; the answer's deadline is @t0 +
 *	@timeout_ms + the time the hop matrices took
 * @timeout_ms: this pass's: timeout_ms=N, or osmp_deadline_ms() of the
 *	subnet sent
 * @sent: the request went out; else @res and @err say why not
 * @hops: the plugin filled the hop matrices (cleared again on a fallback)
 * @request_ms: connecting, encoding and sending the subnet
 * @request_bytes: the subnet's records
 * @hops_ms: filling the hop matrices
 */
struct fosm_pass {
	int64_t t0;
	int timeout_ms;
	bool sent, hops;
	enum fosm_result res;
	char err[320];
	int64_t request_ms, hops_ms;
	size_t request_bytes;
};

/** enum fosm_ctl_state - the control connection, as last logged. */
enum fosm_ctl_state {
	FOSM_CTL_NEW,	/* no attempt yet */
	FOSM_CTL_UP,	/* hello exchanged */
	FOSM_CTL_DOWN,	/* daemon away; retrying every FOSM_RETRY_MS */
};

/**
 * struct fosm - everything the plugin keeps (the context OpenSM passes back)
 * @osm: the running OpenSM
 * @socket_path: the daemon's socket (socket=PATH)
 * @timeout_ms: how long a routing pass waits for fabrouted (timeout_ms=N),
 *	from its start, the hop matrices' time not counted; 0 (the default,
 *	timeout_ms=auto): by the subnet's size, osmp_deadline_ms()
 * @osm_hops: OpenSM builds the hop matrices itself (hop_matrices=opensm)
 * @route_fd: the route connection, -1 when closed; used only by the
 *	routing pass (OpenSM runs one at a time)
 * @route_id: id of the last "route" request
 * @pass: the routing pass under way (the routing pass's own)
 * @re: the fabroute engine's entry in OpenSM's list (its SL/VL hooks are
 *	set while an installed routing uses SLs or VLs other than 0)
 * @vl: the SL/VL state of the installed routing, NULL when it uses none
 * @passes: routing passes served by the daemon
 * @fallbacks: routing passes left to OpenSM's next engine
 * @ctl_mu: guards @ctl_fd, @ctl_broken, @ctl_why and the event counters
 * @ctl_fd: the control connection, -1 when down; written by report() under
 *	@ctl_mu, read by the thread (which alone opens and closes it)
 * @ctl_broken: a write failed; the thread closes @ctl_fd and reconnects
 * @ctl_why: why the connection broke (for the thread's log line)
 * @events_sent: events written to the daemon
 * @events_dropped: events dropped (no daemon, or a write failed)
 * @ctl_dropped_seen: @events_dropped when the connection last came up
 * @ctl_state: last logged state of the control connection (thread only)
 * @thread: the control thread
 * @thread_started: @thread exists and must be joined
 * @stop: asks the thread to end
 * @wake: pipe; a byte on wake[1] interrupts the thread's waits
 * @sweep_asked: osmp_now_ms() of the oldest sweep fabrouted asked for whose
 *	routing pass has not begun, 0 when none waits; set by the thread,
 *	cleared by the routing pass
 * @sweep_heavy: a heavy sweep is among those asked (thread only)
 * @sweep_told: @sweep_asked of the ask said to be late (thread only)
 */
struct fosm {
	osm_opensm_t *osm;
	char *socket_path;
	int timeout_ms;
	bool osm_hops;

	int route_fd;
	uint64_t route_id;
	struct fosm_pass pass;
	struct osm_routing_engine *re;
	struct fosm_vl *vl;
	unsigned long passes, fallbacks;

	pthread_mutex_t ctl_mu;
	int ctl_fd;
	bool ctl_broken;
	char ctl_why[160];
	unsigned long events_sent, events_dropped, ctl_dropped_seen;
	enum fosm_ctl_state ctl_state;
	pthread_t thread;
	bool thread_started;
	int sm_state_sent;	/* the SM state last reported (control thread's) */
	atomic_bool stop;
	int wake[2];
	atomic_int_least64_t sweep_asked;
	bool sweep_heavy;
	int64_t sweep_told;
};

/**
 * FOSM_LOG() - one line in OpenSM's log, prefixed "fabroute: "
 * @f: the plugin
 * @level: OSM_LOG_ERROR, OSM_LOG_INFO, OSM_LOG_VERBOSE, ...
 * @fmt: printf format, ending with "\n" as OpenSM's own lines do
 */
#define FOSM_LOG(f, level, fmt, ...) do { \
		if (osm_log_is_active(&(f)->osm->log, (level))) \
			osm_log(&(f)->osm->log, (level), "fabroute: " fmt, ##__VA_ARGS__); \
	} while (0)

/**
 * fosm_hello() - exchange hellos on a fresh connection
 * @f: the plugin
 * @fd: the connection
 * @role: "route" or "control"
 * @deadline: osmp_now_ms() time by which the daemon must have answered
 * @err: reason on failure
 * @errlen: size of @err
 *
 * Return: 0, or -1 (daemon's error message, timeout, unexpected answer).
 */
int fosm_hello(struct fosm *f, int fd, const char *role, int64_t deadline, char *err, size_t errlen);

/**
 * fosm_subnet_encode() - the subnet of a route request
 * @f: the plugin; called with osm->lock held (inside the routing pass)
 * @subnet: gets the request's "subnet" member: sm_port_guid and the
 *	number of node, port and link records
 * @buf: gets the records (malloc'd): nodes, ports (a switch's port 0
 *	included), links, as OpenSM holds them now, in the encoding of
 *	doc/osm-protocol.md
 * @len: gets the length of @buf
 *
 * Return: 0, or -1 when out of memory (nothing left allocated).
 */
int fosm_subnet_encode(struct fosm *f, json_t **subnet, uint8_t **buf, size_t *len);

/**
 * fosm_hops_fill() - fill every switch's hop matrix as OpenSM's
 * osm_ucast_mgr_build_lid_matrices() would (hop weights 1)
 * @f: the plugin; called with osm->lock held, after OpenSM prepared the
 *	switches for the pass
 *
 * Return: 0, or -1 when out of memory (the matrices are then cleared).
 */
int fosm_hops_fill(struct fosm *f);

/** fosm_hops_clear() - clear every switch's hop matrix (osm->lock held). */
void fosm_hops_clear(struct fosm *f);

/**
 * fosm_link_vls() - the OperVLs encoding (1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7,
 * 5 VL0-14) port @p runs, or will run once OpenSM configures the link:
 * the smaller VLCap of both ends, capped by max_op_vls
 */
unsigned fosm_link_vls(const osm_subn_t *subn, const osm_physp_t *p);

/** fosm_vls_count() - data VLs of an OperVLs encoding (1 when invalid). */
unsigned fosm_vls_count(unsigned enc);

/**
 * fosm_apply_routing() - check a "routing" answer and fill every new_lft
 * @f: the plugin; called with osm->lock held
 * @answer: the daemon's "routing" message
 * @rx: its payload; taken over by the SL/VL state when installed
 * @vl_out: gets the SL/VL state to install (NULL when the routing uses
 *	SL 0 and VL 0 only)
 * @err: reason on failure
 * @errlen: size of @err
 *
 * Nothing is written unless the whole answer is good: the payload is
 * exactly the sections the header lists; an LFT for every switch OpenSM
 * knows, every port 0xff or below the switch's port count; the SL2VL
 * tables and path SLs pass fosm_vl_build(). LIDs past lft_len get 0xff,
 * bytes past the switch's highest LID are ignored.
 *
 * Return: the number of switches filled, or -1.
 */
long fosm_apply_routing(struct fosm *f, const json_t *answer, struct osmp_rx *rx, struct fosm_vl **vl_out,
			char *err, size_t errlen);

/**
 * fosm_vl_build() - check the SL2VL and path-SL sections of an answer
 * @f: the plugin; called with osm->lock held
 * @answer: the "routing" header (its "sl2vl" and "path_sl" lists)
 * @sec: the payload after the LFT section, @len bytes
 * @lft_len: the answer's lft_len
 * @out: gets the state (NULL when the routing uses SL 0 and VL 0 only)
 * @err: reason on failure
 * @errlen: size of @err
 *
 * Every listed switch and source port must be known to OpenSM, listed
 * once, with VLs 0 to 14; @len must be exactly what the lists take. When
 * the routing uses an SL or a VL other than 0, OpenSM must program SL2VL
 * tables (QoS on), every switch must have the SL-map capability, and no
 * linked port may be sent a VL it does not run.
 *
 * Return: 0, or -1 with @err (nothing allocated is left).
 */
int fosm_vl_build(struct fosm *f, const json_t *answer, const uint8_t *sec, size_t len, size_t lft_len,
		  struct fosm_vl **out, char *err, size_t errlen);

/**
 * fosm_vl_install() - make @vl (may be NULL) the installed SL/VL state,
 * free the previous one, and set or clear the engine's SL/VL hooks
 * @f: the plugin; called with osm->lock held (inside the routing pass)
 * @vl: the new state, whose payload @rx owns until now
 * @rx: the answer's payload, moved into @vl
 */
void fosm_vl_install(struct fosm *f, struct fosm_vl *vl, struct osmp_rx *rx);

/** fosm_vl_free() - free a state fosm_vl_build() made (NULL is fine). */
void fosm_vl_free(struct fosm_vl *vl);

/** fosm_update_sl2vl() - OpenSM's update_sl2vl hook: the routing's table for (@in, @out). */
void fosm_update_sl2vl(void *context, osm_physp_t *port, uint8_t in, uint8_t out, ib_slvl_table_t *t);

/** fosm_update_vlarb() - OpenSM's update_vlarb hook: weight for every VL in use. */
void fosm_update_vlarb(void *context, osm_physp_t *port, uint8_t port_num, ib_vl_arb_table_t *block,
		       unsigned block_length, unsigned block_num);

/** fosm_path_sl() - OpenSM's path_sl hook: the routing's SL for (source port, DLID). */
uint8_t fosm_path_sl(void *context, uint8_t hint, const ib_net16_t slid, const ib_net16_t dlid);

/**
 * fosm_event_send() - write an event (a message without "v") on the control
 * connection, or count it as dropped; never waits longer than FOSM_EVENT_MS
 */
void fosm_event_send(struct fosm *f, json_t *ev);

/**
 * fosm_events_start() - connect the control connection and start its thread
 * @f: the plugin
 *
 * The first attempt is made at once, before OpenSM's first sweep. Without
 * a thread (logged) the plugin still routes; it only has no events.
 */
void fosm_events_start(struct fosm *f);

/**
 * fosm_events_stop() - stop and join the control thread, close its connection
 * @f: the plugin
 */
void fosm_events_stop(struct fosm *f);

/**
 * fosm_report() - OpenSM's report() callback: forward an event to the daemon
 * @data: the plugin
 * @id: OpenSM's event id
 * @event: its payload (see osm_event_plugin.h)
 *
 * Never takes osm->lock (OpenSM may hold it) and never waits longer than
 * FOSM_EVENT_MS; events are counted and dropped while the daemon is away.
 */
void fosm_report(void *data, osm_epi_event_id_t id, void *event);

#endif
