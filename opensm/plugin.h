/* SPDX-License-Identifier: MIT */
/**
 * DOC: the OpenSM plugin (libfabroute-osm.so)
 *
 * OpenSM loads the plugin with ``event_plugin_name fabroute-osm`` and hands
 * it ``event_plugin_options`` (``socket=PATH timeout_ms=N``). The plugin
 *
 * - adds a routing engine named "fabroute" at the head of OpenSM's engine
 *   list (plugin.c). Its ucast_build_fwd_tables sends the subnet as OpenSM
 *   sees it to fabrouted over the "route" connection (plugin_subnet.c),
 *   waits for the answer until a deadline and copies the LFTs into the
 *   switches' new_lft. On any failure it returns -1 and OpenSM's next
 *   engine routes the pass, so OpenSM never depends on the daemon;
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
 * routing pass, which OpenSM serialises).
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

#define FOSM_TIMEOUT_DEFAULT 2000
#define FOSM_TIMEOUT_MIN 100
#define FOSM_TIMEOUT_MAX 60000
/** FOSM_EVENT_MS - deadline of one event write from report(). */
#define FOSM_EVENT_MS 100
/** FOSM_RETRY_MS - pause between two connection attempts of the control thread. */
#define FOSM_RETRY_MS 1000
/** FOSM_CTL_IO_MS - longest the control thread waits on a hello or a started frame. */
#define FOSM_CTL_IO_MS 1000

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
 * @timeout_ms: deadline of a routing pass, from its start (timeout_ms=N)
 * @route_fd: the route connection, -1 when closed; used only by the
 *	routing pass (OpenSM runs one at a time)
 * @route_id: id of the last "route" request
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
 */
struct fosm {
	osm_opensm_t *osm;
	char *socket_path;
	int timeout_ms;

	int route_fd;
	uint64_t route_id;
	unsigned long passes, fallbacks;

	pthread_mutex_t ctl_mu;
	int ctl_fd;
	bool ctl_broken;
	char ctl_why[160];
	unsigned long events_sent, events_dropped, ctl_dropped_seen;
	enum fosm_ctl_state ctl_state;
	pthread_t thread;
	bool thread_started;
	atomic_bool stop;
	int wake[2];
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
 * fosm_subnet_json() - the "subnet" member of a route request
 * @f: the plugin; called with osm->lock held (inside the routing pass)
 *
 * Nodes, ports (a switch's port 0 included) and links as OpenSM holds
 * them now, in the encoding of doc/osm-protocol.md.
 *
 * Return: a new object, or NULL when out of memory.
 */
json_t *fosm_subnet_json(struct fosm *f);

/**
 * fosm_apply_lfts() - check a "routing" answer and fill every new_lft
 * @f: the plugin; called with osm->lock held
 * @answer: the daemon's "routing" message
 * @err: reason on failure
 * @errlen: size of @err
 *
 * Nothing is written unless the whole answer is good: an entry for every
 * switch OpenSM knows, each "lft" exactly lft_len bytes of hex, every port
 * 0xff or below the switch's port count. LIDs past lft_len get 0xff, bytes
 * past the switch's highest LID are ignored.
 *
 * Return: the number of switches filled, or -1.
 */
long fosm_apply_lfts(struct fosm *f, const json_t *answer, char *err, size_t errlen);

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
