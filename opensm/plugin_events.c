/* SPDX-License-Identifier: MIT */
/**
 * DOC: the control connection: events out, sweep requests in
 *
 * A thread of the plugin owns the connection: it connects (every
 * FOSM_RETRY_MS while the daemon is away, logging only when the state
 * changes), exchanges hellos, then reads the daemon's messages. The first
 * attempt is made in create(), before OpenSM's first sweep, so that a
 * running daemon sees that sweep's events. A "sweep"
 * sets OpenSM's force_heavy_sweep (or force_reroute) and wakes the sweeper,
 * as OpenSM's console does. OpenSM keeps such a request while it sweeps:
 * the flag stays set and the wake-up waits until the sweep under way ends
 * (a heavy sweep still discovering starts its discovery again; one past it
 * is followed by another), so the plugin asks once. It notes when it was
 * asked until the engine's next routing pass begins; one that has not begun
 * FOSM_SWEEP_LATE_MS later is said to be late, with OpenSM's state and its
 * SMPs awaiting an answer (a sweep waits for every answer), and said again
 * when it begins.
 *
 * report() is called by OpenSM's sweeper, dispatcher and perfmgr threads,
 * some holding osm->lock. It writes an event under fosm.ctl_mu with a
 * deadline of FOSM_EVENT_MS. A write that fails or times out may have left
 * half a frame, so the connection is shut down (which wakes the thread, who
 * closes it and reconnects) and later events are dropped and counted until
 * the daemon is back. Only the thread opens and closes the descriptor; it
 * reads without the mutex, report() writes with it.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "opensm/plugin.h"

/* ------------------------------------------------------------ events out */

static json_t *event_new(const char *name)
{
	return json_pack("{s:s, s:s}", "type", "event", "event", name);
}

/* The LID (and port) a trap is about, where its notice says. */
static void trap_subject(const ib_mad_notice_attr_t *n, uint16_t num, uint16_t *lid, uint8_t *port)
{
	*lid = cl_ntoh16(n->issuer_lid);
	*port = 0;
	switch (num) {
	case 128:
		*lid = cl_ntoh16(n->data_details.ntc_128.sw_lid);
		break;
	case 129:
	case 130:
	case 131:
		*lid = cl_ntoh16(n->data_details.ntc_129_131.lid);
		*port = n->data_details.ntc_129_131.port_num;
		break;
	case 144:
		*lid = cl_ntoh16(n->data_details.ntc_144.lid);
		break;
	case 145:
		*lid = cl_ntoh16(n->data_details.ntc_145.lid);
		break;
	}
}

static json_t *trap_event(const ib_mad_notice_attr_t *n)
{
	bool generic = ib_notice_is_generic(n);
	uint16_t num = cl_ntoh16(generic ? n->g_or_v.generic.trap_num : n->g_or_v.vend.dev_id);
	json_t *ev = event_new("trap");
	uint16_t lid;
	uint8_t port;

	trap_subject(n, generic ? num : 0, &lid, &port);
	if (ev && json_object_update_new(ev, json_pack("{s:i, s:i, s:i, s:i, s:s}", "trap", (int)num,
			"lid", (int)lid, "port", (int)port, "issuer", (int)cl_ntoh16(n->issuer_lid),
			"text", generic ? ib_get_trap_str(cl_hton16(num)) : "vendor-specific trap")))
		goto fail;
	if (ev && !generic && json_object_set_new(ev, "vendor", json_true()))
		goto fail;
	if (ev && generic && num >= 64 && num <= 67 &&
	    json_object_set_new(ev, "guid", osmp_guid(cl_ntoh64(n->data_details.ntc_64_67.gid.unicast.interface_id))))
		goto fail;
	return ev;
fail:
	json_decref(ev);
	return NULL;
}

static json_t *lft_event(const osm_epi_lft_change_event_t *l)
{
	json_t *ev = event_new("lft_change");

	if (ev && json_object_update_new(ev, json_pack("{s:o, s:i}", "guid",
			osmp_guid(cl_ntoh64(osm_node_get_node_guid(l->p_sw->p_node))), "block", (int)l->block_num)))
		goto fail;
	if (ev && (l->flags & LFT_CHANGED_LFT_TOP) && json_object_set_new(ev, "top", json_integer(l->lft_top)))
		goto fail;
	return ev;
fail:
	json_decref(ev);
	return NULL;
}

/* PortCounters deltas from the perfmgr; only those with an error. */
static json_t *port_errors_event(const osm_epi_pe_event_t *pe)
{
	json_t *ev;

	if (!(pe->symbol_err_cnt | pe->link_err_recover | pe->link_downed | pe->rcv_err | pe->rcv_rem_phys_err |
	      pe->rcv_switch_relay_err | pe->xmit_discards | pe->xmit_constraint_err | pe->rcv_constraint_err |
	      pe->link_integrity | pe->buffer_overrun | pe->vl15_dropped))
		return NULL;
	ev = event_new("port_errors");
	if (ev && json_object_update_new(ev, json_pack("{s:o, s:i, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
			"s:I, s:I, s:I, s:I, s:I, s:I, s:I}}",
			"guid", osmp_guid(pe->port_id.node_guid), "port", (int)pe->port_id.port_num, "counters",
			"symbol_err", (json_int_t)pe->symbol_err_cnt, "link_err_recover", (json_int_t)pe->link_err_recover,
			"link_downed", (json_int_t)pe->link_downed, "rcv_err", (json_int_t)pe->rcv_err,
			"rcv_rem_phys_err", (json_int_t)pe->rcv_rem_phys_err,
			"rcv_switch_relay_err", (json_int_t)pe->rcv_switch_relay_err,
			"xmit_discards", (json_int_t)pe->xmit_discards,
			"xmit_constraint_err", (json_int_t)pe->xmit_constraint_err,
			"rcv_constraint_err", (json_int_t)pe->rcv_constraint_err,
			"link_integrity", (json_int_t)pe->link_integrity, "buffer_overrun", (json_int_t)pe->buffer_overrun,
			"vl15_dropped", (json_int_t)pe->vl15_dropped, "xmit_wait", (json_int_t)pe->xmit_wait,
			"seconds", (json_int_t)pe->time_diff_s))) {
		json_decref(ev);
		return NULL;
	}
	return ev;
}

static json_t *routing_done_event(struct fosm *f, void *flags)
{
	const struct osm_routing_engine *used = f->osm->routing_engine_used;	/* set by this thread */

	return json_pack("{s:s, s:s, s:b, s:s}", "type", "event", "event", "routing_done",
			 "reroute", (uintptr_t)flags == UCAST_ROUTING_REROUTE,
			 "engine", used && used->name ? used->name : "none");
}

/* The message for OpenSM event @id, or NULL when it is not forwarded. */
static json_t *event_json(struct fosm *f, osm_epi_event_id_t id, void *event)
{
	switch (id) {
	case OSM_EVENT_ID_TRAP:
		return trap_event(event);
	case OSM_EVENT_ID_HEAVY_SWEEP_START:
		return event_new("heavy_sweep_start");
	case OSM_EVENT_ID_HEAVY_SWEEP_DONE:
		return event_new("heavy_sweep_done");
	case OSM_EVENT_ID_UCAST_ROUTING_DONE:
		return routing_done_event(f, event);
	case OSM_EVENT_ID_SUBNET_UP:
		return event_new("subnet_up");
	case OSM_EVENT_ID_LFT_CHANGE:
		return lft_event(event);
	case OSM_EVENT_ID_STATE_CHANGE:
		return json_pack("{s:s, s:s, s:s}", "type", "event", "event", "state_change",
				 "state", osm_get_sm_mgr_state_str(f->osm->subn.sm_state));
	case OSM_EVENT_ID_PORT_ERRORS:
		return port_errors_event(event);
	default:
		return NULL;	/* data counters, port select, SA dump: not used */
	}
}

/* Write @ev to the daemon if it is there; otherwise count it as dropped. */
void fosm_event_send(struct fosm *f, json_t *ev)
{
	char err[160];

	pthread_mutex_lock(&f->ctl_mu);
	if (f->ctl_fd < 0 || f->ctl_broken) {
		f->events_dropped++;
	} else if (osmp_send(f->ctl_fd, ev, NULL, 0, osmp_now_ms() + FOSM_EVENT_MS, err, sizeof(err))) {
		f->events_dropped++;
		f->ctl_broken = true;
		if (snprintf(f->ctl_why, sizeof(f->ctl_why), "sending an event: %s", err) < 0)
			f->ctl_why[0] = '\0';
		shutdown(f->ctl_fd, SHUT_RDWR);	/* the thread sees it and reconnects */
	} else {
		f->events_sent++;
	}
	pthread_mutex_unlock(&f->ctl_mu);
}

void fosm_report(void *data, osm_epi_event_id_t id, void *event)
{
	struct fosm *f = data;
	json_t *ev = event_json(f, id, event);

	if (ev)
		fosm_event_send(f, ev);
	json_decref(ev);
}

/* -------------------------------------------------------- the connection */

static void ctl_down(struct fosm *f, const char *why)
{
	if (f->ctl_state == FOSM_CTL_UP)
		FOSM_LOG(f, OSM_LOG_ERROR, "control connection lost: %s; events are dropped until fabrouted "
			 "is back (retrying every second)\n", why);
	else if (f->ctl_state == FOSM_CTL_NEW)
		FOSM_LOG(f, OSM_LOG_INFO, "no control connection yet: %s; retrying every second\n", why);
	f->ctl_state = FOSM_CTL_DOWN;
}

static void ctl_connect(struct fosm *f)
{
	int ms = f->timeout_ms && f->timeout_ms < FOSM_CTL_IO_MS ? f->timeout_ms : FOSM_CTL_IO_MS;
	int64_t deadline = osmp_now_ms() + ms;
	unsigned long dropped;
	char err[256];
	int fd = osmp_connect(f->socket_path, deadline, err, sizeof(err));

	if (fd >= 0 && fosm_hello(f, fd, "control", deadline, err, sizeof(err))) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		ctl_down(f, err);
		return;
	}
	pthread_mutex_lock(&f->ctl_mu);
	f->ctl_fd = fd;
	f->ctl_broken = false;
	dropped = f->events_dropped - f->ctl_dropped_seen;
	f->ctl_dropped_seen = f->events_dropped;
	pthread_mutex_unlock(&f->ctl_mu);
	FOSM_LOG(f, OSM_LOG_INFO, "control connection to %s up; %lu events dropped while it was down\n",
		 f->socket_path, dropped);
	f->sm_state_sent = -1;	/* say it again, in case it changed since the hello */
	f->ctl_state = FOSM_CTL_UP;
}

/* Close the connection after a read failed (@why) or a write did. */
static void ctl_close(struct fosm *f, const char *why)
{
	char reason[sizeof(f->ctl_why)];
	int fd;

	pthread_mutex_lock(&f->ctl_mu);
	strncpy(reason, f->ctl_broken ? f->ctl_why : why ? why : "", sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	fd = f->ctl_fd;
	f->ctl_fd = -1;
	f->ctl_broken = false;
	pthread_mutex_unlock(&f->ctl_mu);
	if (fd >= 0)
		close(fd);
	if (why)
		ctl_down(f, reason);
}

/* ----------------------------------------------------- messages coming in */

static void ctl_sweep(struct fosm *f, const json_t *msg)
{
	bool heavy = !json_is_false(json_object_get(msg, "heavy"));
	int_least64_t none = 0;

	if (osm_exit_flag)
		return;
	FOSM_LOG(f, OSM_LOG_INFO, "fabrouted asks for a %s\n", heavy ? "heavy sweep" : "reroute");
	if (atomic_compare_exchange_strong(&f->sweep_asked, &none, osmp_now_ms()))
		f->sweep_heavy = heavy;	/* none waited: this ask is the oldest */
	else
		f->sweep_heavy |= heavy;
	/* as OpenSM's console does: a plain flag, then wake the sweeper */
	if (heavy)
		f->osm->subn.force_heavy_sweep = TRUE;
	else
		f->osm->subn.force_reroute = TRUE;
	osm_opensm_sweep(f->osm);
}

static void ctl_message(struct fosm *f, const json_t *msg)
{
	const char *type = osmp_type(msg);

	if (!strcmp(type, "sweep"))
		ctl_sweep(f, msg);
	else if (!strcmp(type, "error"))
		FOSM_LOG(f, OSM_LOG_ERROR, "fabrouted says: %s\n",
			 json_string_value(json_object_get(msg, "message")) ?
			 json_string_value(json_object_get(msg, "message")) : "(no message)");
	else
		FOSM_LOG(f, OSM_LOG_VERBOSE, "ignoring a '%s' message on the control connection\n", type);
}

/*
 * The SM state, when it changed since it was last sent: fabrouted's role
 * follows it (OpenSM raises no event of its own when it becomes master).
 */
static void ctl_state(struct fosm *f)
{
	int st = (int)f->osm->subn.sm_state;
	json_t *ev;

	if (st == f->sm_state_sent)
		return;
	ev = json_pack("{s:s, s:s, s:s}", "type", "event", "event", "state_change", "state",
		       osm_get_sm_mgr_state_str(f->osm->subn.sm_state));
	f->sm_state_sent = st;
	if (ev)
		fosm_event_send(f, ev);
	json_decref(ev);
}

/*
 * The sweep fabrouted asked for, when its routing pass has not begun
 * FOSM_SWEEP_LATE_MS after: said once, in OpenSM's log and as an event,
 * with what OpenSM is doing; and said again in the log once it has begun.
 */
static void sweep_check(struct fosm *f)
{
	int64_t asked = atomic_load(&f->sweep_asked), now = osmp_now_ms();
	const char *what = f->sweep_heavy ? "heavy sweep" : "reroute", *state;
	int smps;
	json_t *ev;

	if (f->sweep_told && asked != f->sweep_told) {
		FOSM_LOG(f, OSM_LOG_INFO, "the %s fabrouted asked for has begun (asked for %.1f s ago)\n", what,
			 (double)(now - f->sweep_told) / 1e3);
		f->sweep_told = 0;
	}
	if (!asked || f->sweep_told || now - asked < FOSM_SWEEP_LATE_MS)
		return;
	f->sweep_told = asked;
	state = osm_get_sm_mgr_state_str(f->osm->subn.sm_state);
	smps = f->osm->stats.qp0_mads_outstanding;
	FOSM_LOG(f, OSM_LOG_INFO, "the %s fabrouted asked for %.0f s ago has not begun: OpenSM is %s, SMPs "
		 "awaiting an answer: %d\n", what, (double)(now - asked) / 1e3, state, smps);
	ev = json_pack("{s:s, s:s, s:b, s:I, s:s, s:i}", "type", "event", "event", "sweep_late", "heavy",
		       f->sweep_heavy, "waited_ms", (json_int_t)(now - asked), "state", state, "smps_outstanding",
		       smps);
	if (ev)
		fosm_event_send(f, ev);
	json_decref(ev);
}

/* Wait for a message, a wake-up or FOSM_STATE_MS; read and handle one message. */
static void ctl_serve(struct fosm *f)
{
	struct pollfd p[2] = { { .fd = f->ctl_fd, .events = POLLIN }, { .fd = f->wake[0], .events = POLLIN } };
	char err[256];
	json_t *msg;
	int n = poll(p, 2, FOSM_STATE_MS);

	ctl_state(f);
	sweep_check(f);
	if (n <= 0 || !p[0].revents)
		return;	/* EINTR, timeout or stop */
	msg = osmp_recv(f->ctl_fd, osmp_now_ms() + FOSM_CTL_IO_MS, NULL, err, sizeof(err));
	if (!msg) {
		ctl_close(f, err);
		return;
	}
	ctl_message(f, msg);
	json_decref(msg);
}

/* Sleep @ms, or less when woken to stop. */
static void ctl_pause(struct fosm *f, int ms)
{
	struct pollfd p = { .fd = f->wake[0], .events = POLLIN };

	poll(&p, 1, ms);
}

static void *ctl_thread(void *arg)
{
	struct fosm *f = arg;

	while (!atomic_load(&f->stop)) {
		if (f->ctl_fd >= 0) {
			ctl_serve(f);
			continue;
		}
		ctl_pause(f, FOSM_RETRY_MS);
		if (!atomic_load(&f->stop))
			ctl_connect(f);
	}
	ctl_close(f, NULL);
	return NULL;
}

void fosm_events_start(struct fosm *f)
{
	int rc;

	ctl_connect(f);	/* now, so that the first sweep's events reach a running daemon */
	rc = pthread_create(&f->thread, NULL, ctl_thread, f);
	if (rc) {
		ctl_close(f, NULL);
		FOSM_LOG(f, OSM_LOG_ERROR, "cannot start the control thread: %s; no events, no sweep requests\n",
			 strerror(rc));
		return;
	}
	f->thread_started = true;
}

void fosm_events_stop(struct fosm *f)
{
	if (!f->thread_started)
		return;
	atomic_store(&f->stop, true);
	if (write(f->wake[1], "", 1) < 0 && errno != EAGAIN)
		FOSM_LOG(f, OSM_LOG_ERROR, "cannot wake the control thread: %s\n", strerror(errno));
	pthread_join(f->thread, NULL);
	f->thread_started = false;
}
