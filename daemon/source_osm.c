/* SPDX-License-Identifier: MIT */
/**
 * DOC: OpenSM source
 *
 * One acceptor thread and one thread per plugin connection (at most
 * SRCO_CONNS_MAX). A connection thread blocks in osmp_recv() without a
 * deadline while idle; srco_free() shuts the sockets down to wake it.
 * Answers and sweep requests are written with deadlines, so a stuck plugin
 * costs a thread its connection, never the daemon.
 *
 * Who may connect: the socket file is the daemon's and its group's (0660),
 * and the peer's credentials (SO_PEERCRED) must be OpenSM's user
 * (plugin_user) or fabrouted's own; any other is closed at once and
 * counted. One connection per role: a plugin's new "route" or "control"
 * connection replaces the one before it (a restarted OpenSM's leftovers go),
 * and one that has not said hello within SRCO_HELLO_MS is closed. Frames
 * are capped at what a plugin sends: SRCO_MSG_MAX for the JSON part,
 * SRCO_PAYLOAD_MAX for a subnet.
 *
 * A plugin of another protocol version gets an "error" in its own version
 * and the connection is closed; the daemon logs that once (a plugin
 * retries every second) until a plugin of the right version says hello.
 *
 * Events are stored with a message in plain words ("OpenSM heavy sweep
 * started"), except lft_change, which is not kept: a routing_done that
 * installed fabroute's tables says what changed from the epoch installed
 * before, counted by rt_diff() like the repair and rebalance events, so the
 * figures of one change agree everywhere. A trap is stored with a message
 * naming the node from the last fabric OpenSM sent ("trap 128 link state
 * change: leaf-00"); a pass_result is counted by its result.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "svc/log.h"
#include "daemon/loop.h"
#include "daemon/source_osm.h"
#include "formats/formats.h"
#include "opensm/proto.h"

#define SRCO_CONNS_MAX 16
#define SRCO_HELLO_MS 5000
/** SRCO_MSG_MAX - the JSON part of a frame from the plugin: hello, a route's header, an event */
#define SRCO_MSG_MAX (1u << 20)
/**
 * SRCO_PAYLOAD_MAX - a subnet from the plugin: the largest fabric the LID
 * space holds (about 48k endpoints) with 64-port switches takes about 10 MB
 */
#define SRCO_PAYLOAD_MAX (64u << 20)
#define SRCO_SEND_MS 30000

enum { ROLE_NONE, ROLE_ROUTE, ROLE_CONTROL };

/**
 * struct srco_conn - one plugin connection
 * @up: hello exchanged, the connection serves
 */
struct srco_conn {
	struct srco *s;
	pthread_t th;
	int fd, role, used, done, up;
};

/**
 * struct srco - the OpenSM source
 * @mu: guards @conns, @answered, @last, @prev, the counters, @v_refused and writes to control sockets
 * @answered: the epoch of the last routing served (its fabric names trap subjects)
 * @last: the last one OpenSM said it installed (a routed pass_result)
 * @prev: the one installed before it (routing_done says what changed between them)
 * @routings: route requests answered with a routing; @failures: with an error
 * @changes: routings served whose topology differs from the one served before
 * @passes: routing passes by result, as the plugin reports them
 * @v_refused: a plugin of another version was refused and logged
 * @names: the node-name-map (node_name_map) given to each fabric OpenSM sends
 */
struct srco {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd, stop_fd;
	uid_t plugin_uid;	/* OpenSM's user; fabrouted's own is accepted too */
	uint64_t refused;	/* connections of other users, closed at once */
	int64_t refused_logged_ms;
	pthread_t acceptor;
	struct pipeline *p;
	struct store *st;
	void (*on_event)(void *ud, const char *event, const json_t *msg);
	void *ud;
	pthread_mutex_t mu;
	struct srco_conn conns[SRCO_CONNS_MAX];
	struct epoch *answered, *last, *prev;
	uint64_t routings, failures, changes;
	uint64_t passes[SRCO_PASS_N];
	int v_refused;
	struct fmt_names names;
};

static const char *const pass_names[SRCO_PASS_N] = { "routed", "fallback", "timeout", "error" };

const char *srco_pass_name(enum srco_pass p)
{
	return p < SRCO_PASS_N ? pass_names[p] : "?";
}

/* --- route connections -------------------------------------------------- */

/*
 * Serve a "route" request into @a; 0, or -1 with the error message in
 * @a->msg. @read_ms: reading and parsing the request. The answer carries
 * "ms": where the daemon's time went, for the plugin's log line.
 */
static int route(struct srco *s, const json_t *req, const struct osmp_rx *rx, double read_ms, struct srco_answer *a)
{
	const json_t *id = json_object_get(req, "id");
	struct fab_err err = { { 0 } };
	double t0 = loop_now_fms(), t1;
	struct fabric *f = srco_subnet_fabric(json_object_get(req, "subnet"), rx->payload, rx->len, &err);
	struct epoch *e = NULL;
	char size[160], chain[256];
	int rc = -1;

	if (f) {
		pthread_mutex_lock(&s->mu);
		if (s->names.n && fmt_names_apply(f, &s->names, &err) < 0) {
			fab_free(f);
			f = NULL;
		}
		pthread_mutex_unlock(&s->mu);
	}
	t1 = loop_now_fms();
	if (f) {
		fab_describe(f, size, sizeof(size));
		pipe_chain(s->p, chain, sizeof(chain));
		log_info("opensm: routing request %lld: %s; read in %.1f ms, built in %.1f ms; chain %s",
			 (long long)json_integer_value(id), size, read_ms, t1 - t0, chain);
		e = pipe_route_fabric(s->p, f, &err);
	}
	if (e && !(rc = srco_routing_answer(e, id, a, &err)))
		json_object_set_new(a->msg, "ms", json_pack("{s:f, s:f, s:f, s:f, s:f}", "read", read_ms,
			"subnet", t1 - t0, "route", e->compute_ms, "eval", e->eval_ms,
			"rest", loop_now_fms() - t1 - e->compute_ms - e->eval_ms));
	pthread_mutex_lock(&s->mu);
	if (!rc) {
		s->routings++;
		s->changes += s->answered && s->answered->topo_hash != e->topo_hash;
		epoch_unref(s->answered);
		s->answered = epoch_ref(e);
	} else {
		s->failures++;
	}
	pthread_mutex_unlock(&s->mu);
	epoch_unref(e);
	if (rc) {
		log_warn("opensm: routing request not served: %s", err.msg);
		*a = (struct srco_answer){ .msg = json_pack("{s:s, s:O?, s:s}", "type", "error", "id", id,
							    "message", err.msg) };
	}
	return rc;
}

/* Answer one message on a route connection; -1 when the connection must close. */
static int serve_route(struct srco_conn *c, const json_t *m, const struct osmp_rx *rx, double read_ms, char *err,
		       size_t errlen)
{
	struct srco_answer a = { 0 };
	int rc;

	if (strcmp(osmp_type(m), "route"))
		a.msg = json_pack("{s:s, s:s}", "type", "error", "message", "expected a route request");
	else
		route(c->s, m, rx, read_ms, &a);
	rc = osmp_send(c->fd, a.msg, a.niov ? a.iov : NULL, a.niov, osmp_now_ms() + SRCO_SEND_MS, err, errlen);
	if (rc && a.epoch)	/* the plugin gave up on it (its deadline passed): never installed */
		pipe_installed(c->s->p, a.epoch->seq, 0);
	srco_answer_free(&a);
	return rc;
}

/* --- control connections -------------------------------------------------- */

/* "trap 128 link state change: leaf-00 port 3", the node named from the last fabric routed. */
static void trap_message(struct srco *s, const json_t *msg, char *out, size_t len)
{
	const char *text = json_string_value(json_object_get(msg, "text"));
	json_int_t lid = json_integer_value(json_object_get(msg, "lid"));
	json_int_t port = json_integer_value(json_object_get(msg, "port"));
	char what[96], who[96];

	snprintf(what, sizeof(what), "%s", text && *text ? text : "(no text)");
	if (what[0] >= 'A' && what[0] <= 'Z' && !(what[1] >= 'A' && what[1] <= 'Z'))
		what[0] = (char)(what[0] - 'A' + 'a');	/* OpenSM's "Link state change" */
	snprintf(who, sizeof(who), "LID %lld", (long long)lid);
	pthread_mutex_lock(&s->mu);
	if (s->answered && lid > 0) {
		uint32_t ep = fab_ep_by_lid(s->answered->fabric, (unsigned)lid);

		if (ep != FAB_NONE)
			snprintf(who, sizeof(who), "%s", FAB_LABEL(s->answered->fabric,
								   s->answered->fabric->eps[ep].node));
	}
	pthread_mutex_unlock(&s->mu);
	if (port > 0)
		snprintf(out, len, "trap %lld %s: %s port %lld", (long long)json_integer_value(json_object_get(msg,
			 "trap")), what, who, (long long)port);
	else
		snprintf(out, len, "trap %lld %s: %s", (long long)json_integer_value(json_object_get(msg, "trap")),
			 what, who);
}

/* A pass_result: counted; its message says how the pass ended and why. */
static void pass_message(struct srco *s, const json_t *msg, char *out, size_t len)
{
	const char *res = json_string_value(json_object_get(msg, "result"));
	const char *why = json_string_value(json_object_get(msg, "reason"));
	unsigned k;

	for (k = 0; k < SRCO_PASS_N && (!res || strcmp(res, pass_names[k])); k++)
		;
	pthread_mutex_lock(&s->mu);
	s->passes[k < SRCO_PASS_N ? k : SRCO_PASS_ERROR]++;
	if (k == SRCO_PASS_ROUTED && s->answered && s->answered != s->last &&
	    s->answered->seq == (uint64_t)json_integer_value(json_object_get(msg, "epoch"))) {
		epoch_unref(s->prev);	/* installed: what routing_done compares */
		s->prev = s->last;
		s->last = epoch_ref(s->answered);
	}
	pthread_mutex_unlock(&s->mu);
	if (k == SRCO_PASS_ROUTED)
		snprintf(out, len, "OpenSM routing pass routed: epoch %lld (%s)",
			 (long long)json_integer_value(json_object_get(msg, "epoch")),
			 json_string_value(json_object_get(msg, "engine")) ?: "?");
	else
		snprintf(out, len, "OpenSM routing pass %s: %s", res ? res : "with an unknown result",
			 why ? why : "no reason given");
	if (k != SRCO_PASS_ROUTED)
		log_warn("opensm: %s", out);
}

/*
 * "OpenSM routing done: epoch 7 (ftdlr) installed, 14 LFT blocks on 3
 * switches changed from epoch 6", the counts also in @msg; or "OpenSM
 * routing done by its own updn, not fabroute".
 */
static void routing_done_message(struct srco *s, json_t *msg, char *out, size_t len)
{
	const char *eng = json_string_value(json_object_get(msg, "engine"));
	struct epoch *last, *prev;
	struct rt_diff d = { 0 };

	if (!eng || strcmp(eng, "fabroute")) {
		snprintf(out, len, "OpenSM routing done by its own %s, not fabroute", eng ? eng : "engine");
		return;
	}
	pthread_mutex_lock(&s->mu);
	last = s->last ? epoch_ref(s->last) : NULL;
	prev = s->prev ? epoch_ref(s->prev) : NULL;
	pthread_mutex_unlock(&s->mu);
	if (last && prev) {
		rt_diff(prev->fabric, prev->routing, last->fabric, last->routing, &d);
		snprintf(out, len, "OpenSM routing done: epoch %llu (%s) installed, %u LFT blocks on %u switches "
			 "changed from epoch %llu", (unsigned long long)last->seq, last->engine, d.blocks, d.switches,
			 (unsigned long long)prev->seq);
		json_object_set_new(msg, "epoch", json_integer((json_int_t)last->seq));
		json_object_set_new(msg, "lft_blocks_changed", json_integer(d.blocks));
		json_object_set_new(msg, "switches_changed", json_integer(d.switches));
	} else if (last) {
		snprintf(out, len, "OpenSM routing done: epoch %llu (%s) installed, the first fabroute routed",
			 (unsigned long long)last->seq, last->engine);
		json_object_set_new(msg, "epoch", json_integer((json_int_t)last->seq));
	} else {
		snprintf(out, len, "OpenSM routing done by fabroute");
	}
	epoch_unref(last);
	epoch_unref(prev);
}

/* The other events, in plain words. */
static void event_words(struct srco *s, const json_t *msg, const char *ev, char *out, size_t len)
{
	const char *state = json_string_value(json_object_get(msg, "state"));
	uint64_t guid = 0;
	char who[96];

	if (!strcmp(ev, "heavy_sweep_start") || !strcmp(ev, "heavy_sweep_done"))
		snprintf(out, len, "OpenSM heavy sweep %s", strcmp(ev, "heavy_sweep_done") ? "started" : "done");
	else if (!strcmp(ev, "subnet_up"))
		snprintf(out, len, "OpenSM subnet up");
	else if (!strcmp(ev, "state_change"))
		snprintf(out, len, "OpenSM state: %s", state ? state : "unknown");
	else if (!strcmp(ev, "sweep_late"))
		snprintf(out, len, "OpenSM has not begun the %s fabrouted asked for %.0f s ago: OpenSM is %s, SMPs "
			 "awaiting an answer: %lld", json_is_false(json_object_get(msg, "heavy")) ? "reroute" :
			 "heavy sweep", (double)json_integer_value(json_object_get(msg, "waited_ms")) / 1e3,
			 state ? state : "unknown",
			 (long long)json_integer_value(json_object_get(msg, "smps_outstanding")));
	else if (!strcmp(ev, "port_errors")) {
		osmp_guid_parse(json_object_get(msg, "guid"), &guid);
		snprintf(who, sizeof(who), "0x%016llx", (unsigned long long)guid);
		pthread_mutex_lock(&s->mu);
		if (s->answered && fab_node_by_guid(s->answered->fabric, guid) != FAB_NONE)
			snprintf(who, sizeof(who), "%s",
				 fab_desc(s->answered->fabric, fab_node_by_guid(s->answered->fabric, guid)));
		pthread_mutex_unlock(&s->mu);
		snprintf(out, len, "OpenSM port errors: %s port %lld", who,
			 (long long)json_integer_value(json_object_get(msg, "port")));
	} else
		snprintf(out, len, "OpenSM event %s", ev);
}

static void record(struct srco_conn *c, json_t *msg)
{
	struct srco *s = c->s;
	const char *ev = json_string_value(json_object_get(msg, "event"));
	char text[320];
	struct fab_err err;

	if (!ev || !strcmp(ev, "lft_change"))
		return;	/* OpenSM's block writes: routing_done counts the change from the epochs */
	if (s->on_event && !strcmp(ev, "trap"))	/* the fast repair first: it cannot wait */
		s->on_event(s->ud, ev, msg);
	if (!strcmp(ev, "trap"))
		trap_message(s, msg, text, sizeof(text));
	else if (!strcmp(ev, "pass_result"))
		pass_message(s, msg, text, sizeof(text));
	else if (!strcmp(ev, "routing_done"))
		routing_done_message(s, msg, text, sizeof(text));
	else
		event_words(s, msg, ev, text, sizeof(text));
	json_object_del(msg, "type");
	json_object_del(msg, "v");
	if (store_event_add(s->st, loop_wall_ms(), strcmp(ev, "trap") ? "opensm" : "trap", text, msg, &err) < 0)
		log_err("%s", err.msg);
	if (!strcmp(ev, "sweep_late"))
		log_warn("%s", text);
	else
		log_debug("opensm event: %s", text);
	if (s->on_event && strcmp(ev, "trap"))
		s->on_event(s->ud, ev, msg);
}

/* --- connections ------------------------------------------------------------ */

/* A plugin of protocol @peer_v: refused in its own version, logged once. */
static void refuse_version(struct srco_conn *c, long long peer_v, const char *why)
{
	char msg[160];
	int first;

	snprintf(msg, sizeof(msg), "fabrouted speaks fabroute-osm protocol %d, the plugin %lld: install the "
		 "libfabroute-osm.so built with this fabrouted", OSMP_VERSION, peer_v);
	osmp_refuse_version(c->fd, peer_v, msg, osmp_now_ms() + SRCO_HELLO_MS);
	pthread_mutex_lock(&c->s->mu);
	first = !c->s->v_refused;
	c->s->v_refused = 1;
	pthread_mutex_unlock(&c->s->mu);
	if (first)
		log_warn("opensm: %s: upgrade the OpenSM plugin (libfabroute-osm.so); connection refused", why);
	else
		log_debug("opensm: %s; connection refused", why);
}

/* With @mu held: @c said hello; an older connection of its role goes (one per role). */
static void replace_older(struct srco_conn *c)
{
	for (unsigned i = 0; i < SRCO_CONNS_MAX; i++) {
		struct srco_conn *o = &c->s->conns[i];

		if (o != c && o->used && o->up && !o->done && o->role == c->role) {
			log_notice("opensm: a new %s connection replaces the one before it",
				   c->role == ROLE_ROUTE ? "route" : "control");
			shutdown(o->fd, SHUT_RDWR);	/* its thread sees the end and finishes */
			o->up = 0;
		}
	}
}

/* The SM state a control hello reports, as a state_change event (the role follows it). */
static void hello_state(struct srco *s, const json_t *state)
{
	json_t *ev;

	if (!json_is_string(state) || !s->on_event)
		return;
	ev = json_pack("{s:s, s:O}", "event", "state_change", "state", state);
	if (ev)
		s->on_event(s->ud, "state_change", ev);
	json_decref(ev);
}

static int hello(struct srco_conn *c, char *err, size_t errlen)
{
	struct osmp_rx rx;
	json_t *m = osmp_recv_max(c->fd, osmp_now_ms() + SRCO_HELLO_MS, &rx, SRCO_MSG_MAX, 0, err, errlen), *ans;
	const char *role = json_string_value(json_object_get(m, "role"));
	int rc;

	free(rx.payload);
	if (!m) {
		if (rx.peer_v > 0)
			refuse_version(c, rx.peer_v, err);
		return rx.peer_v > 0 ? 1 : -1;
	}
	c->role = role && !strcmp(role, "route") ? ROLE_ROUTE : role && !strcmp(role, "control") ? ROLE_CONTROL : 0;
	if (strcmp(osmp_type(m), "hello") || !c->role) {
		snprintf(err, errlen, "expected hello with role route or control");
		ans = json_pack("{s:s, s:s}", "type", "error", "message", err);
	} else {
		log_notice("opensm: %s connected (%s, role %s)",
			   json_string_value(json_object_get(m, "plugin")) ?: "a plugin",
			   json_string_value(json_object_get(m, "opensm")) ?: "?", role);
		ans = json_pack("{s:s, s:s}", "type", "hello", "daemon", "fabrouted " PACKAGE_VERSION);
	}
	rc = osmp_send(c->fd, ans, NULL, 0, osmp_now_ms() + SRCO_HELLO_MS, err, errlen) || c->role == ROLE_NONE ? -1 : 0;
	json_decref(ans);
	if (!rc && c->role == ROLE_CONTROL)
		hello_state(c->s, json_object_get(m, "sm_state"));
	json_decref(m);
	pthread_mutex_lock(&c->s->mu);
	c->up = rc == 0;
	if (!rc) {
		c->s->v_refused = 0;
		replace_older(c);
	}
	pthread_mutex_unlock(&c->s->mu);
	return rc;
}

/* Idle until a frame starts on @fd; *@t gets the time it did. */
static int wait_readable(int fd, double *t)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return -1;
	*t = loop_now_fms();
	return 0;
}

static void *conn_main(void *arg)
{
	struct srco_conn *c = arg;
	char err[256] = "";
	int rc = hello(c, err, sizeof(err));
	struct osmp_rx rx = { 0 };
	double t0 = 0;
	json_t *m;

	while (rc == 0 && wait_readable(c->fd, &t0) == 0 &&
	       (m = osmp_recv_max(c->fd, -1, c->role == ROLE_ROUTE ? &rx : NULL, SRCO_MSG_MAX,
				  c->role == ROLE_ROUTE ? SRCO_PAYLOAD_MAX : 0, err, sizeof(err)))) {
		if (c->role == ROLE_ROUTE)
			rc = serve_route(c, m, &rx, loop_now_fms() - t0, err, sizeof(err));
		else if (!strcmp(osmp_type(m), "event"))
			record(c, m);
		json_decref(m);
		free(rx.payload);
		rx = (struct osmp_rx){ 0 };
	}
	if (rc <= 0)
		log_notice("opensm: connection closed: %s", err);
	if (rc == 0 && c->role == ROLE_CONTROL) {	/* OpenSM is gone: no master here any more */
		json_t *gone = json_string("NO OPENSM");

		hello_state(c->s, gone);
		json_decref(gone);
	}
	shutdown(c->fd, SHUT_RDWR);	/* the peer sees the end now; the fd is closed when reaped */
	pthread_mutex_lock(&c->s->mu);
	c->done = 1;
	c->up = 0;
	pthread_mutex_unlock(&c->s->mu);
	return NULL;
}

/* With @mu held: join finished connections, a free slot or NULL. */
static struct srco_conn *free_slot(struct srco *s)
{
	struct srco_conn *slot = NULL;

	for (unsigned i = 0; i < SRCO_CONNS_MAX; i++) {
		struct srco_conn *c = &s->conns[i];

		if (c->used && c->done) {
			pthread_join(c->th, NULL);
			close(c->fd);
			c->used = 0;
		}
		if (!c->used && !slot)
			slot = c;
	}
	return slot;
}

/*
 * May the peer of @fd talk to the daemon: OpenSM's user, or fabrouted's
 * own? Others are counted, and logged at most once a minute.
 */
static int peer_ok(struct srco *s, int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	int64_t now = osmp_now_ms();
	int ok, log = 0;

	ok = !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) && len == sizeof(cr) &&
	     (cr.uid == s->plugin_uid || cr.uid == geteuid());
	if (ok)
		return 1;
	pthread_mutex_lock(&s->mu);
	s->refused++;
	if (now - s->refused_logged_ms >= 60000 || !s->refused_logged_ms) {
		s->refused_logged_ms = now;
		log = 1;
	}
	pthread_mutex_unlock(&s->mu);
	if (log)
		log_warn("opensm: a connection from uid %ld (pid %ld) refused: only plugin_user (uid %ld) and "
			 "fabrouted's own user may use %s (counted in fabroute_osm_connections_refused_total)",
			 len == sizeof(cr) ? (long)cr.uid : -1L, len == sizeof(cr) ? (long)cr.pid : -1L,
			 (long)s->plugin_uid, s->path);
	return 0;
}

static void accept_one(struct srco *s)
{
	int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
	struct srco_conn *c;

	if (fd < 0)
		return;
	if (!peer_ok(s, fd)) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&s->mu);
	c = free_slot(s);
	if (c) {
		*c = (struct srco_conn){ .s = s, .fd = fd, .used = 1 };
		if (pthread_create(&c->th, NULL, conn_main, c))
			c->used = 0;
	}
	pthread_mutex_unlock(&s->mu);
	if (!c || !c->used) {
		log_warn("opensm: connection refused: %s", c ? "cannot start a thread" : "too many connections");
		close(fd);
	}
}

static void *acceptor_main(void *arg)
{
	struct srco *s = arg;

	for (;;) {
		struct pollfd p[2] = { { .fd = s->lfd, .events = POLLIN }, { .fd = s->stop_fd, .events = POLLIN } };

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return NULL;
		if (p[1].revents)
			return NULL;
		if (p[0].revents & POLLIN)
			accept_one(s);
	}
}

int srco_sweep(struct srco *s, int heavy, struct fab_err *err)
{
	char why[256] = "no OpenSM plugin is connected";
	int sent = 0;

	pthread_mutex_lock(&s->mu);
	for (unsigned i = 0; i < SRCO_CONNS_MAX; i++) {
		struct srco_conn *c = &s->conns[i];
		json_t *m;

		if (!c->used || c->done || c->role != ROLE_CONTROL)
			continue;
		m = json_pack("{s:s, s:b}", "type", "sweep", "heavy", heavy);
		sent += osmp_send(c->fd, m, NULL, 0, osmp_now_ms() + 1000, why, sizeof(why)) == 0;
		json_decref(m);
	}
	pthread_mutex_unlock(&s->mu);
	if (!sent)
		fab_err_set(err, "cannot ask OpenSM for a sweep: %s", why);
	return sent ? 0 : -1;
}

json_t *srco_status(struct srco *s)
{
	unsigned route = 0, control = 0;
	json_t *j;

	pthread_mutex_lock(&s->mu);
	for (unsigned i = 0; i < SRCO_CONNS_MAX; i++)
		if (s->conns[i].used && s->conns[i].up)
			*(s->conns[i].role == ROLE_ROUTE ? &route : &control) += 1;
	j = json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:{s:I, s:I, s:I, s:I}}", "type", "opensm", "socket", s->path,
		      "route_connections", route, "control_connections", control,
		      "routings", (json_int_t)s->routings, "failures", (json_int_t)s->failures, "passes",
		      pass_names[SRCO_PASS_ROUTED], (json_int_t)s->passes[SRCO_PASS_ROUTED],
		      pass_names[SRCO_PASS_FALLBACK], (json_int_t)s->passes[SRCO_PASS_FALLBACK],
		      pass_names[SRCO_PASS_TIMEOUT], (json_int_t)s->passes[SRCO_PASS_TIMEOUT],
		      pass_names[SRCO_PASS_ERROR], (json_int_t)s->passes[SRCO_PASS_ERROR]);
	pthread_mutex_unlock(&s->mu);
	return j;
}

void srco_stats(struct srco *s, struct srco_stats *out)
{
	*out = (struct srco_stats){ 0 };
	pthread_mutex_lock(&s->mu);
	for (unsigned i = 0; i < SRCO_CONNS_MAX; i++)
		out->connected |= s->conns[i].used && s->conns[i].up;
	memcpy(out->passes, s->passes, sizeof(out->passes));
	out->refused = s->refused;
	out->changes = s->changes;
	pthread_mutex_unlock(&s->mu);
}

static int listen_on(struct srco *s, const char *path, struct fab_err *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fab_err_set(err, "socket: '%s' is longer than %zu bytes", path, sizeof(sa.sun_path) - 1);
		return -1;
	}
	strcpy(sa.sun_path, path);
	strcpy(s->path, path);
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);	/* left by a daemon that did not stop cleanly */
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(s->lfd, 8)) {
		fab_err_set(err, "socket %s: %s", path, strerror(errno));
		return -1;
	}
	chmod(path, 0660);
	return 0;
}

struct srco *srco_open(const char *path, uid_t plugin_uid, struct pipeline *p, struct store *st,
		       void (*on_event)(void *ud, const char *event, const json_t *msg), void *ud, struct fab_err *err)
{
	struct srco *s = calloc(1, sizeof(*s));

	if (!s) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	s->plugin_uid = plugin_uid;
	s->p = p;
	s->st = st;
	s->on_event = on_event;
	s->ud = ud;
	s->lfd = s->stop_fd = -1;
	pthread_mutex_init(&s->mu, NULL);
	if (listen_on(s, path, err) || (s->stop_fd = eventfd(0, EFD_CLOEXEC)) < 0 ||
	    pthread_create(&s->acceptor, NULL, acceptor_main, s)) {
		if (!err->msg[0])
			fab_err_set(err, "cannot start the OpenSM listener: %s", strerror(errno));
		if (s->lfd >= 0) {
			close(s->lfd);
			unlink(path);
		}
		if (s->stop_fd >= 0)
			close(s->stop_fd);
		pthread_mutex_destroy(&s->mu);
		free(s);
		return NULL;
	}
	log_notice("waiting for OpenSM's fabroute-osm plugin on %s", path);
	return s;
}

int srco_set_names(struct srco *s, const char *path, struct fab_err *err)
{
	struct fmt_names m = { 0 }, old;
	struct fab_err sub = { { 0 } };

	if (path && *path && fmt_names_load(path, &m, &sub)) {
		fab_err_set(err, "node_name_map: %s", sub.msg);
		return -1;
	}
	pthread_mutex_lock(&s->mu);
	old = s->names;
	s->names = m;
	pthread_mutex_unlock(&s->mu);
	fmt_names_free(&old);
	return 0;
}

void srco_free(struct srco *s)
{
	uint64_t one = 1;

	if (!s)
		return;
	if (write(s->stop_fd, &one, sizeof(one)) < 0)
		log_err("opensm: cannot stop the listener: %s", strerror(errno));
	pthread_join(s->acceptor, NULL);
	pthread_mutex_lock(&s->mu);
	for (unsigned i = 0; i < SRCO_CONNS_MAX; i++)
		if (s->conns[i].used)
			shutdown(s->conns[i].fd, SHUT_RDWR);
	pthread_mutex_unlock(&s->mu);
	for (unsigned i = 0; i < SRCO_CONNS_MAX; i++)
		if (s->conns[i].used) {
			pthread_join(s->conns[i].th, NULL);
			close(s->conns[i].fd);
		}
	epoch_unref(s->answered);
	epoch_unref(s->last);
	fmt_names_free(&s->names);
	epoch_unref(s->prev);
	close(s->lfd);
	close(s->stop_fd);
	unlink(s->path);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
