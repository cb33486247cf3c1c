/* SPDX-License-Identifier: MIT */
/**
 * DOC: OpenSM source
 *
 * One acceptor thread and one thread per plugin connection (at most
 * SRCO_CONNS_MAX). A connection thread blocks in osmp_recv() without a
 * deadline while idle; srco_free() shuts the sockets down to wake it.
 * Answers and sweep requests are written with deadlines, so a stuck plugin
 * costs a thread its connection, never the daemon.
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
#include "opensm/proto.h"

#define SRCO_CONNS_MAX 16
#define SRCO_HELLO_MS 5000
#define SRCO_SEND_MS 30000

enum { ROLE_NONE, ROLE_ROUTE, ROLE_CONTROL };

struct srco_conn {
	struct srco *s;
	pthread_t th;
	int fd, role, used, done;
	/* LFT_CHANGE events since the last routing_done: summed up, not stored one by one */
	uint64_t lft_blocks, lft_switches, last_guid;
};

struct srco {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int lfd, stop_fd;
	pthread_t acceptor;
	struct pipeline *p;
	struct store *st;
	void (*on_event)(void *ud, const char *event);
	void *ud;
	pthread_mutex_t mu;	/* guards conns[] and writes to control sockets */
	struct srco_conn conns[SRCO_CONNS_MAX];
	uint64_t routings, failures;
};

/* --- the subnet ------------------------------------------------------------ */

static int int_at(const json_t *a, size_t i, long long min, long long max, long long *out)
{
	const json_t *v = json_array_get(a, i);

	*out = json_integer_value(v);
	return json_is_integer(v) && *out >= min && *out <= max ? 0 : -1;
}

static int add_nodes(struct fabric *f, const json_t *nodes, struct fab_err *err)
{
	static const char *const types[] = { [FAB_CA] = "CA", [FAB_SWITCH] = "SW", [FAB_ROUTER] = "RT" };
	size_t i;
	json_t *n;

	if (!json_is_array(nodes) || !json_array_size(nodes)) {
		fab_err_set(err, "subnet.nodes: expected a non-empty array");
		return -1;
	}
	json_array_foreach(nodes, i, n) {
		struct fab_node_info in = { 0 };
		const char *t = json_string_value(json_object_get(n, "type"));
		json_int_t ports = json_integer_value(json_object_get(n, "ports"));

		for (unsigned k = FAB_CA; t && k <= FAB_ROUTER; k++)
			if (strcmp(t, types[k]) == 0)
				in.type = (enum fab_node_type)k;
		if (!in.type || osmp_guid_parse(json_object_get(n, "guid"), &in.guid) ||
		    ports < 1 || ports > FAB_PORTS_MAX) {
			fab_err_set(err, "subnet.nodes[%zu]: expected a type (SW, CA, RT), a guid and 1..%u ports",
				    i, FAB_PORTS_MAX);
			return -1;
		}
		in.nports = (unsigned)ports;
		in.desc = json_string_value(json_object_get(n, "desc"));
		osmp_guid_parse(json_object_get(n, "sysimg"), &in.sysimg_guid);
		in.vendor_id = (uint32_t)json_integer_value(json_object_get(n, "vendor"));
		in.device_id = (uint16_t)json_integer_value(json_object_get(n, "device"));
		if (fab_node_add(f, &in, err) != i)
			return -1;
	}
	return 0;
}

/* [node, port, guid, lid, lmc, state, phys, width, speed] */
static int set_port(struct fabric *f, const json_t *a, size_t i, struct fab_err *err)
{
	long long v[9];
	uint64_t guid;
	struct fab_port *p;

	if (!json_is_array(a) || json_array_size(a) != 9 || int_at(a, 0, 0, f->nnodes - 1, &v[0]) ||
	    int_at(a, 1, 0, f->nodes[v[0]].nports, &v[1]) || osmp_guid_parse(json_array_get(a, 2), &guid) ||
	    int_at(a, 3, 0, FAB_LID_UCAST_MAX, &v[3]) || int_at(a, 4, 0, FAB_LMC_MAX, &v[4]) ||
	    int_at(a, 5, 0, 15, &v[5]) || int_at(a, 6, 0, 15, &v[6]) || int_at(a, 7, 0, 255, &v[7]) ||
	    int_at(a, 8, 0, 255, &v[8])) {
		fab_err_set(err, "subnet.ports[%zu]: expected [node, port, guid, lid, lmc, state, phys, "
			    "width, speed] within range", i);
		return -1;
	}
	if (f->nodes[v[0]].type != FAB_SWITCH && v[1] > 0)
		fab_port_set_guid(f, (uint32_t)v[0], (unsigned)v[1], guid);
	p = fab_port(f, (uint32_t)v[0], (unsigned)v[1]);
	p->lid = (uint16_t)v[3];
	p->lmc = (uint8_t)v[4];
	p->state = (uint8_t)v[5];
	p->phys = (uint8_t)v[6];
	p->width = (uint8_t)v[7];
	p->speed = (uint8_t)v[8];
	return 0;
}

static int add_links(struct fabric *f, const json_t *links, struct fab_err *err)
{
	size_t i;
	json_t *a;

	json_array_foreach(links, i, a) {
		long long v[4];

		if (!json_is_array(a) || json_array_size(a) != 4 || int_at(a, 0, 0, f->nnodes - 1, &v[0]) ||
		    int_at(a, 1, 1, f->nodes[v[0]].nports, &v[1]) || int_at(a, 2, 0, f->nnodes - 1, &v[2]) ||
		    int_at(a, 3, 1, f->nodes[v[2]].nports, &v[3])) {
			fab_err_set(err, "subnet.links[%zu]: expected [node, port, node, port] within range", i);
			return -1;
		}
		if (fab_link_add(f, (uint32_t)v[0], (unsigned)v[1], (uint32_t)v[2], (unsigned)v[3], err))
			return -1;
	}
	return 0;
}

struct fabric *srco_subnet_fabric(const json_t *subnet, struct fab_err *err)
{
	struct fabric *f = fab_new();
	const json_t *ports = json_object_get(subnet, "ports"), *links = json_object_get(subnet, "links");
	uint64_t sm = 0;
	size_t i;
	json_t *a;

	if (!f) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
	if (!json_is_object(subnet) || !json_is_array(ports) || !json_is_array(links)) {
		fab_err_set(err, "subnet: expected an object with nodes, ports and links arrays");
		goto fail;
	}
	if (add_nodes(f, json_object_get(subnet, "nodes"), err))
		goto fail;
	json_array_foreach(ports, i, a)
		if (set_port(f, a, i, err))
			goto fail;
	if (add_links(f, links, err) || fab_finalize(f, err))
		goto fail;
	if (osmp_guid_parse(json_object_get(subnet, "sm_port_guid"), &sm) == 0 &&
	    fab_ep_by_port_guid(f, sm) != FAB_NONE) {
		f->sm_node = f->eps[fab_ep_by_port_guid(f, sm)].node;
		f->sm_port = f->eps[fab_ep_by_port_guid(f, sm)].port;
	}
	return f;
fail:
	fab_free(f);
	return NULL;
}

/* --- route connections -------------------------------------------------- */

static json_t *routing_json(const struct epoch *e, const json_t *id)
{
	const struct fabric *f = e->fabric;
	const struct rt_routing *r = e->routing;
	json_t *lfts = json_array();

	for (uint32_t sw = 0; lfts && sw < f->nswitches; sw++)
		json_array_append_new(lfts, json_pack("{s:o, s:o*}", "guid",
			osmp_guid(f->nodes[f->switches[sw]].guid), "lft", osmp_hex(rt_lft(r, sw), r->lft_len)));
	return json_pack("{s:s, s:O?, s:I, s:s, s:I, s:o}", "type", "routing", "id", id,
			 "epoch", (json_int_t)e->seq, "engine", e->engine, "lft_len", (json_int_t)r->lft_len,
			 "lfts", lfts);
}

/* The answer to a "route" request. */
static json_t *route(struct srco *s, const json_t *req)
{
	const json_t *id = json_object_get(req, "id");
	struct fab_err err = { { 0 } };
	struct fabric *f = srco_subnet_fabric(json_object_get(req, "subnet"), &err);
	struct epoch *e = f ? pipe_route_fabric(s->p, f, &err) : NULL;
	json_t *ans;

	pthread_mutex_lock(&s->mu);
	if (e)
		s->routings++;
	else
		s->failures++;
	pthread_mutex_unlock(&s->mu);
	if (!e) {
		log_warn("opensm: routing request not served: %s", err.msg);
		return json_pack("{s:s, s:O?, s:s}", "type", "error", "id", id, "message", err.msg);
	}
	ans = routing_json(e, id);
	epoch_unref(e);
	return ans;
}

/* --- control connections -------------------------------------------------- */

/* An lft_change is counted; routing_done carries the counts. 1 when @msg is consumed. */
static int lft_changes(struct srco_conn *c, json_t *msg, const char *ev)
{
	uint64_t guid = 0;

	if (!strcmp(ev, "lft_change")) {
		osmp_guid_parse(json_object_get(msg, "guid"), &guid);
		c->lft_blocks++;
		c->lft_switches += guid != c->last_guid;
		c->last_guid = guid;
		return 1;
	}
	if (!strcmp(ev, "routing_done")) {
		json_object_set_new(msg, "lft_blocks_changed", json_integer((json_int_t)c->lft_blocks));
		json_object_set_new(msg, "switches_changed", json_integer((json_int_t)c->lft_switches));
		c->lft_blocks = c->lft_switches = c->last_guid = 0;
	}
	return 0;
}

static void record(struct srco_conn *c, json_t *msg)
{
	struct srco *s = c->s;
	const char *ev = json_string_value(json_object_get(msg, "event"));
	struct fab_err err;

	if (!ev || lft_changes(c, msg, ev))
		return;
	json_object_del(msg, "type");
	json_object_del(msg, "v");
	if (store_event_add(s->st, loop_wall_ms(), strcmp(ev, "trap") ? "opensm" : "trap", ev, msg, &err) < 0)
		log_err("%s", err.msg);
	log_debug("opensm event: %s", ev);
	if (s->on_event)
		s->on_event(s->ud, ev);
}

/* --- connections ------------------------------------------------------------ */

static int hello(struct srco_conn *c, char *err, size_t errlen)
{
	json_t *m = osmp_recv(c->fd, osmp_now_ms() + SRCO_HELLO_MS, err, errlen), *ans;
	const char *role = json_string_value(json_object_get(m, "role"));
	int rc;

	if (!m)
		return -1;
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
	rc = osmp_send(c->fd, ans, osmp_now_ms() + SRCO_HELLO_MS, err, errlen) || c->role == ROLE_NONE ? -1 : 0;
	json_decref(ans);
	json_decref(m);
	return rc;
}

static void *conn_main(void *arg)
{
	struct srco_conn *c = arg;
	struct srco *s = c->s;
	char err[256] = "";
	json_t *m;

	if (hello(c, err, sizeof(err)) == 0)
		while ((m = osmp_recv(c->fd, -1, err, sizeof(err)))) {
			if (c->role == ROLE_ROUTE) {
				json_t *ans = strcmp(osmp_type(m), "route") ? json_pack("{s:s, s:s}", "type",
					"error", "message", "expected a route request") : route(s, m);
				int rc = osmp_send(c->fd, ans, osmp_now_ms() + SRCO_SEND_MS, err, sizeof(err));

				json_decref(ans);
				if (rc) {
					json_decref(m);
					break;
				}
			} else if (!strcmp(osmp_type(m), "event")) {
				record(c, m);
			}
			json_decref(m);
		}
	log_notice("opensm: connection closed: %s", err);
	shutdown(c->fd, SHUT_RDWR);	/* the peer sees the end now; the fd is closed when reaped */
	pthread_mutex_lock(&s->mu);
	c->done = 1;
	pthread_mutex_unlock(&s->mu);
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

static void accept_one(struct srco *s)
{
	int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
	struct srco_conn *c;

	if (fd < 0)
		return;
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
		sent += osmp_send(c->fd, m, osmp_now_ms() + 1000, why, sizeof(why)) == 0;
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
		if (s->conns[i].used && !s->conns[i].done)
			*(s->conns[i].role == ROLE_ROUTE ? &route : &control) += 1;
	j = json_pack("{s:s, s:s, s:i, s:i, s:I, s:I}", "type", "opensm", "socket", s->path, "route_connections", route,
		      "control_connections", control, "routings", (json_int_t)s->routings,
		      "failures", (json_int_t)s->failures);
	pthread_mutex_unlock(&s->mu);
	return j;
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

struct srco *srco_open(const char *path, struct pipeline *p, struct store *st,
		       void (*on_event)(void *ud, const char *event), void *ud, struct fab_err *err)
{
	struct srco *s = calloc(1, sizeof(*s));

	if (!s) {
		fab_err_set(err, "out of memory");
		return NULL;
	}
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
	close(s->lfd);
	close(s->stop_fd);
	unlink(s->path);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
