/* SPDX-License-Identifier: MIT */
/**
 * DOC: plugin entry points and the fabroute routing engine
 *
 * create() refuses to load into an OpenSM other than the one the plugin was
 * built against: the version string must match, and a few fields of
 * osm_opensm_t must hold the values OpenSM gave them before loading plugins
 * (the layout of osm_opensm_t depends on OpenSM's configure options, which
 * the version string does not tell).
 *
 * The engine is registered by name (so OpenSM logs "fabroute tables
 * configured" and ``routing_engine fabroute,updn`` works) and, unless the
 * operator named it in routing_engine, put at the head of the engine list,
 * where OpenSM's setup_routing_engines() appends the configured engines
 * after it. OpenSM owns and frees the list entry.
 *
 * A routing pass spans the engine's two hooks. build_lid_matrices: connect
 * (once; the connection is kept), send the subnet, then fill the hop
 * matrices while fabrouted routes. ucast_build_fwd_tables: wait for the
 * LFTs until timeout_ms after the request went out (the time the hop
 * matrices took not counted: OpenSM's work either way), fill new_lft. Every failure
 * is one log line and -1 from the second hook, so that OpenSM's next
 * engine routes the pass with the hop matrices cleared as OpenSM left
 * them; the route connection is then closed, which also drops a late
 * answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "opensm/plugin.h"

#if OSM_EVENT_PLUGIN_INTERFACE_VER != 2
#error "this plugin speaks OpenSM's event plugin interface version 2"
#endif

/* Prepend "@what: " to the reason already in @err (truncating its end). */
static void err_prefix(char *err, size_t len, const char *what)
{
	char tail[256];
	size_t n = strnlen(err, sizeof(tail) - 1);

	memcpy(tail, err, n);
	tail[n] = '\0';
	if (snprintf(err, len, "%s: %s", what, tail) >= (int)len)
		err[len - 1] = '\0';	/* truncated: a log line is still useful */
}

/* A message from the daemon, made safe for one log line. */
static void err_from_peer(char *err, size_t len, const char *what, const json_t *msg)
{
	const char *m = json_string_value(json_object_get(msg, "message"));
	size_t n;

	snprintf(err, len, "%s: %s", what, m ? m : "(no message)");
	for (n = 0; err[n]; n++)
		if ((unsigned char)err[n] < 0x20 || err[n] == 0x7f)
			err[n] = ' ';
}

int fosm_hello(struct fosm *f, int fd, const char *role, int64_t deadline, char *err, size_t errlen)
{
	json_t *msg = json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", "hello", "role", role,
				"opensm", f->osm->osm_version, "plugin", FOSM_PLUGIN, "sm_state",
				osm_get_sm_mgr_state_str(f->osm->subn.sm_state));
	struct osmp_rx rx;
	int rc;

	if (!msg) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = osmp_send(fd, msg, NULL, 0, deadline, err, errlen);
	json_decref(msg);
	if (rc)
		return -1;
	msg = osmp_recv(fd, deadline, &rx, err, errlen);
	free(rx.payload);
	if (!msg && rx.peer_v > 0 && strlen(err) + 20 < errlen)
		strcat(err, ": upgrade fabrouted");
	else if (!msg && !strcmp(err, "connection closed"))
		snprintf(err, errlen, "fabrouted closed the connection at hello (a fabrouted that speaks another "
			 "fabroute-osm protocol than version %d does so)", OSMP_VERSION);
	if (!msg)
		return -1;
	rc = strcmp(osmp_type(msg), "hello") ? -1 : 0;
	if (rc && !strcmp(osmp_type(msg), "error"))
		err_from_peer(err, errlen, "the daemon refused it", msg);
	else if (rc)
		snprintf(err, errlen, "the daemon answered hello with a '%s' message", osmp_type(msg));
	json_decref(msg);
	return rc;
}

/* ---------------------------------------------------------------- options */

static int parse_timeout(const char *v, int *ms)
{
	char *end;
	long n;

	if (!strcmp(v, "auto")) {
		*ms = 0;
		return 0;
	}
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < FOSM_TIMEOUT_MIN || n > FOSM_TIMEOUT_MAX)
		return -1;
	*ms = (int)n;
	return 0;
}

static void set_socket(struct fosm *f, const char *path)
{
	char *copy;

	if (!*path || strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		FOSM_LOG(f, OSM_LOG_ERROR, "option socket='%s': empty or longer than a unix socket path; "
			 "using %s\n", path, f->socket_path);
		return;
	}
	copy = strdup(path);
	if (!copy) {
		FOSM_LOG(f, OSM_LOG_ERROR, "out of memory for option socket; using %s\n", f->socket_path);
		return;
	}
	free(f->socket_path);
	f->socket_path = copy;
}

static void set_hop_matrices(struct fosm *f, const char *val)
{
	if (!strcmp(val, "fabroute") || !strcmp(val, "opensm"))
		f->osm_hops = !strcmp(val, "opensm");
	else
		FOSM_LOG(f, OSM_LOG_ERROR, "option hop_matrices='%s': expected fabroute or opensm; using %s\n",
			 val, f->osm_hops ? "opensm" : "fabroute");
}

static void set_option(struct fosm *f, const char *key, const char *val)
{
	if (val && !strcmp(key, "hop_matrices"))
		set_hop_matrices(f, val);
	else if (val && !strcmp(key, "socket"))
		set_socket(f, val);
	else if (val && !strcmp(key, "timeout_ms")) {
		if (parse_timeout(val, &f->timeout_ms) && !(f->timeout_ms = 0))
			FOSM_LOG(f, OSM_LOG_ERROR, "option timeout_ms='%s': expected auto or %d to %d; "
				 "using auto (by the subnet's size)\n", val, FOSM_TIMEOUT_MIN, FOSM_TIMEOUT_MAX);
	} else
		FOSM_LOG(f, OSM_LOG_ERROR, "unknown option '%s%s%s' in event_plugin_options ignored "
			 "(known: socket=PATH timeout_ms=N|auto hop_matrices=fabroute|opensm)\n", key, val ? "=" : "", val ? val : "");
}

/* event_plugin_options: KEY=VALUE words, separated by blanks or commas. */
static int parse_options(struct fosm *f, const char *opts)
{
	char *copy, *save = NULL;

	if (!opts)
		return 0;
	copy = strdup(opts);
	if (!copy)
		return -1;
	for (char *w = strtok_r(copy, " \t\n,", &save); w; w = strtok_r(NULL, " \t\n,", &save)) {
		char *eq = strchr(w, '=');

		if (eq)
			*eq++ = '\0';
		set_option(f, w, eq);
	}
	free(copy);
	return 0;
}

/* ------------------------------------------------------------ route pass */

/* Close a kept connection the daemon has closed or written to unasked. */
static void route_drop_stale(struct fosm *f)
{
	struct pollfd p = { .fd = f->route_fd, .events = POLLIN };

	if (f->route_fd >= 0 && poll(&p, 1, 0) != 0) {
		FOSM_LOG(f, OSM_LOG_VERBOSE, "route connection closed by the daemon; reconnecting\n");
		close(f->route_fd);
		f->route_fd = -1;
	}
}

static int route_connect(struct fosm *f, int64_t deadline, char *err, size_t errlen)
{
	route_drop_stale(f);
	if (f->route_fd >= 0)
		return 0;
	f->route_fd = osmp_connect(f->socket_path, deadline, err, errlen);
	if (f->route_fd < 0) {
		err_prefix(err, errlen, "cannot reach fabrouted");
		return -1;
	}
	if (fosm_hello(f, f->route_fd, "route", deadline, err, errlen)) {
		err_prefix(err, errlen, "hello on the route connection");
		return -1;
	}
	FOSM_LOG(f, OSM_LOG_VERBOSE, "route connection to %s open\n", f->socket_path);
	return 0;
}

/* Check that @msg answers request f->route_id with a routing; else *@res says how the pass ends. */
static int route_check_answer(struct fosm *f, const json_t *msg, enum fosm_result *res, char *err, size_t errlen)
{
	const json_t *id = json_object_get(msg, "id");

	*res = FOSM_ERROR;
	if (!strcmp(osmp_type(msg), "error")) {
		err_from_peer(err, errlen, "fabrouted could not route", msg);
		*res = FOSM_FALLBACK;
		return -1;
	}
	if (strcmp(osmp_type(msg), "routing")) {
		snprintf(err, errlen, "fabrouted answered with a '%s' message", osmp_type(msg));
		return -1;
	}
	if (!json_is_integer(id) || (uint64_t)json_integer_value(id) != f->route_id) {
		snprintf(err, errlen, "fabrouted answered request %lld, expected %" PRIu64,
			 json_is_integer(id) ? (long long)json_integer_value(id) : -1LL, f->route_id);
		return -1;
	}
	return 0;
}

/* A transport failure: a timeout once the deadline has passed, else an error. */
static enum fosm_result io_failure(int64_t deadline)
{
	return osmp_now_ms() >= deadline ? FOSM_TIMEOUT : FOSM_ERROR;
}

/* Connect if needed and send the subnet as request ++f->route_id; -1 with @err and *@res. */
static int route_send(struct fosm *f, int64_t deadline, enum fosm_result *res, char *err, size_t errlen)
{
	json_t *msg = NULL, *subnet;
	struct iovec iov;
	uint8_t *buf;
	size_t len;
	int rc;

	*res = FOSM_ERROR;
	if (route_connect(f, deadline, err, errlen)) {
		*res = io_failure(deadline);
		return -1;
	}
	if (fosm_subnet_encode(f, &subnet, &buf, &len) == 0)
		msg = json_pack("{s:s, s:I, s:o}", "type", "route", "id", (json_int_t)++f->route_id, "subnet", subnet);
	if (!msg) {
		snprintf(err, errlen, "out of memory for the route request");
		free(buf);
		return -1;
	}
	iov = (struct iovec){ .iov_base = buf, .iov_len = len };
	f->pass.request_bytes = len;
	rc = osmp_send(f->route_fd, msg, &iov, 1, deadline, err, errlen);
	json_decref(msg);
	free(buf);
	if (rc) {
		err_prefix(err, errlen, "sending the subnet");
		*res = io_failure(deadline);
		return -1;
	}
	return 0;
}

/* The daemon's routing (checked) and its payload in @rx, or NULL with @err and *@res. */
static json_t *route_receive(struct fosm *f, int64_t deadline, struct osmp_rx *rx, enum fosm_result *res,
			     char *err, size_t errlen)
{
	json_t *msg = osmp_recv(f->route_fd, deadline, rx, err, errlen);

	if (!msg) {
		err_prefix(err, errlen, "waiting for the routing");
		*res = io_failure(deadline);
		return NULL;
	}
	if (route_check_answer(f, msg, res, err, errlen)) {
		json_decref(msg);
		return NULL;
	}
	return msg;
}

static const char *const result_names[] = {
	[FOSM_ROUTED] = "routed", [FOSM_FALLBACK] = "fallback", [FOSM_TIMEOUT] = "timeout", [FOSM_ERROR] = "error",
};

/* Tell the daemon how the pass ended: {"event": "pass_result", "result", "ms", ...}. */
static void route_report(struct fosm *f, enum fosm_result res, int64_t t0, const json_t *answer, long switches,
			 const char *why)
{
	json_t *ev = json_pack("{s:s, s:s, s:s, s:I}", "type", "event", "event", "pass_result",
			       "result", result_names[res], "ms", (json_int_t)(osmp_now_ms() - t0));

	if (ev && res == FOSM_ROUTED)
		json_object_update_new(ev, json_pack("{s:O?, s:O?, s:I}", "epoch", json_object_get(answer, "epoch"),
						     "engine", json_object_get(answer, "engine"),
						     "switches", (json_int_t)switches));
	else if (ev)
		json_object_set_new(ev, "reason", json_string(why));
	if (ev)
		fosm_event_send(f, ev);
	json_decref(ev);
}

/*
 * The pass is OpenSM's next engine's: the hop matrices go back to how
 * OpenSM prepared them for the pass (cleared), so that engine builds its
 * own exactly as it would have without the plugin.
 */
static int route_failed(struct fosm *f, enum fosm_result res, const char *why, int64_t t0)
{
	FOSM_LOG(f, OSM_LOG_ERROR, "%s (after %" PRId64 " ms); OpenSM's next routing engine routes this pass\n",
		 why, osmp_now_ms() - t0);
	if (f->pass.hops)
		fosm_hops_clear(f);
	f->pass.hops = false;
	if (f->route_fd >= 0)
		close(f->route_fd);
	f->route_fd = -1;
	f->fallbacks++;
	fosm_vl_install(f, NULL, NULL);
	route_report(f, res, t0, NULL, 0, why);
	return -1;
}

/*
 * build_lid_matrices of the fabroute engine (osm->lock held), the start of
 * the pass: the subnet goes to fabrouted, then, while it routes, the
 * plugin fills the hop matrices OpenSM's multicast routing reads
 * (plugin_hops.c). Returns 1 (OpenSM builds them itself) with
 * hop_matrices=opensm, or when the plugin's fill runs out of memory; 0
 * otherwise, also when the request failed: route_pass() then reports it
 * and hands the pass over.
 */
static int route_start(void *context)
{
	struct fosm *f = context;
	struct fosm_pass *ps = &f->pass;
	int64_t t1;

	*ps = (struct fosm_pass){ .t0 = osmp_now_ms(), .res = FOSM_ERROR, .timeout_ms = f->timeout_ms };
	atomic_store(&f->sweep_asked, 0);	/* this pass routes what fabrouted asked for */
	if (!ps->timeout_ms)
		ps->timeout_ms = osmp_deadline_ms(cl_qmap_count(&f->osm->subn.sw_guid_tbl),
						  cl_qmap_count(&f->osm->subn.port_guid_tbl));
	snprintf(ps->err, sizeof(ps->err), "unknown error");
	ps->sent = !route_send(f, ps->t0 + ps->timeout_ms, &ps->res, ps->err, sizeof(ps->err));
	t1 = osmp_now_ms();
	ps->request_ms = t1 - ps->t0;
	if (!ps->sent)
		return 0;
	if (f->osm_hops)
		return 1;
	if (fosm_hops_fill(f)) {
		FOSM_LOG(f, OSM_LOG_ERROR, "out of memory for the hop matrices; OpenSM builds them\n");
		return 1;
	}
	ps->hops = true;
	ps->hops_ms = osmp_now_ms() - t1;
	return 0;
}

/* "; fabrouted: read 3, subnet 2, sftree 20, evaluation 31, rest 1 ms" from the answer's "ms". */
static void daemon_times(const json_t *answer, char *out, size_t len)
{
	const json_t *ms = json_object_get(answer, "ms");
	const char *engine = json_string_value(json_object_get(answer, "engine"));

	*out = '\0';
	if (json_is_object(ms))
		snprintf(out, len, "; fabrouted: read %.0f, subnet %.0f, %s %.0f, evaluation %.0f, rest %.0f ms",
			 json_number_value(json_object_get(ms, "read")), json_number_value(json_object_get(ms, "subnet")),
			 engine ? engine : "engine", json_number_value(json_object_get(ms, "route")),
			 json_number_value(json_object_get(ms, "eval")), json_number_value(json_object_get(ms, "rest")));
}

/* ucast_build_fwd_tables of the fabroute engine (osm->lock held): the answer, checked and installed. */
static int route_pass(void *context)
{
	struct fosm *f = context;
	struct fosm_pass *ps = &f->pass;
	int64_t t1 = osmp_now_ms(), t2;
	/* the hop matrices are OpenSM's work, done in either case: not counted against fabrouted */
	int64_t matrices_ms = ps->hops ? ps->hops_ms : t1 - ps->t0 - ps->request_ms;
	char err[320] = "unknown error", times[200];
	enum fosm_result res = ps->res;
	struct osmp_rx rx = { 0 };
	struct fosm_vl *vl = NULL;
	json_t *answer = ps->sent ? route_receive(f, ps->t0 + ps->timeout_ms + matrices_ms, &rx, &res, err,
						  sizeof(err)) : NULL;
	long n;
	const char *engine;

	if (!ps->sent)
		return route_failed(f, ps->res, ps->err, ps->t0);
	t2 = osmp_now_ms();
	n = answer ? fosm_apply_routing(f, answer, &rx, &vl, err, sizeof(err)) : -1;
	if (n < 0) {
		json_decref(answer);
		free(rx.payload);
		return route_failed(f, answer ? FOSM_FALLBACK : res, err, ps->t0);
	}
	fosm_vl_install(f, vl, &rx);
	free(rx.payload);
	engine = json_string_value(json_object_get(answer, "engine"));
	daemon_times(answer, times, sizeof(times));
	FOSM_LOG(f, OSM_LOG_INFO, "epoch %" JSON_INTEGER_FORMAT " routed by fabrouted's %s: "
		 "tables of %ld switches in %" PRId64 " ms (deadline %d ms, request %" PRId64 " ms, %zu KiB, hop matrices %s%" PRId64
		 " ms, waited %" PRId64 " ms, installed %" PRId64 " ms%s)\n",
		 json_integer_value(json_object_get(answer, "epoch")), engine ? engine : "(unnamed) engine",
		 n, osmp_now_ms() - ps->t0, ps->timeout_ms, ps->request_ms, (ps->request_bytes + 1023) / 1024,
		 ps->hops ? "" : "by OpenSM ",
		 matrices_ms, t2 - t1, osmp_now_ms() - t2, times);
	route_report(f, FOSM_ROUTED, ps->t0, answer, n, NULL);
	json_decref(answer);
	f->passes++;
	return 0;
}

/* The engine's destroy(): OpenSM is done routing, the connection can go. */
static void route_destroy(void *context)
{
	struct fosm *f = context;

	if (f->route_fd >= 0)
		close(f->route_fd);
	f->route_fd = -1;
	f->re = NULL;	/* OpenSM frees its list entries after this */
}

/*
 * setup() of the registered module, also used for the head insertion. The
 * SL/VL hooks stay NULL until a routing that uses SLs or VLs is installed.
 */
static int engine_setup(struct osm_routing_engine *re, osm_opensm_t *osm)
{
	struct fosm *f = re->context;

	(void)osm;
	re->build_lid_matrices = route_start;
	re->ucast_build_fwd_tables = route_pass;
	re->destroy = route_destroy;
	re->update_sl2vl = NULL;
	re->path_sl = NULL;
	re->update_vlarb = NULL;
	f->re = re;
	return 0;
}

/* Is @word one of the engines named in routing_engine? */
static bool names_engine(const char *names, const char *word)
{
	char *copy, *save = NULL;
	bool found = false;

	if (!names || !(copy = strdup(names)))
		return false;
	for (char *t = strtok_r(copy, ", \t\n", &save); t && !found; t = strtok_r(NULL, ", \t\n", &save))
		found = !strcmp(t, word);
	free(copy);
	return found;
}

static void engine_insert_head(struct fosm *f)
{
	osm_opensm_t *osm = f->osm;
	struct osm_routing_engine *re = calloc(1, sizeof(*re));	/* OpenSM frees it */

	if (!re) {
		FOSM_LOG(f, OSM_LOG_ERROR, "out of memory: engine not added; OpenSM routes alone\n");
		return;
	}
	re->name = FOSM_ENGINE;	/* static: OpenSM does not free names */
	re->type = osm_routing_engine_type(FOSM_ENGINE);
	re->context = f;
	engine_setup(re, osm);
	re->next = osm->routing_engine_list;
	osm->routing_engine_list = re;
}

static void engine_register(struct fosm *f)
{
	osm_opensm_t *osm = f->osm;
	external_routing_engine_module_t mod = {
		.name = FOSM_ENGINE, .setup = engine_setup, .context = f,
	};
	const char *names = osm->subn.opt.routing_engine_names;

	if (osm_register_external_routing_engine(osm, &mod, f) != CL_SUCCESS)
		FOSM_LOG(f, OSM_LOG_ERROR, "cannot register the routing engine name '%s'\n", FOSM_ENGINE);
	if (names_engine(names, FOSM_ENGINE))
		return;	/* OpenSM sets it up where routing_engine puts it */
	for (struct osm_routing_engine *re = osm->routing_engine_list; re; re = re->next)
		if (re->name && !strcmp(re->name, FOSM_ENGINE))
			return;
	engine_insert_head(f);
}

/* ------------------------------------------------------- create / delete */

/*
 * Fields create() can check: osm_subn_init() set max_ucast_lid_ho to
 * 0xBFFF (no switch is known yet) and p_osm; plugin_list, after the
 * optional perfmgr, was initialised just before plugins load; the log was
 * set up from the options. A different layout moves them.
 */
static bool layout_ok(const osm_opensm_t *osm)
{
	return osm->subn.p_osm == osm && osm->subn.max_ucast_lid_ho == IB_LID_UCAST_END_HO &&
	       osm->plugin_list.state == CL_INITIALIZED &&
	       osm->log.log_prefix == osm->subn.opt.log_prefix &&
	       (osm->log.level & ~OSM_LOG_SYS) == (osm->subn.opt.log_flags & ~OSM_LOG_SYS);
}

static bool compatible(osm_opensm_t *osm)
{
	bool same_version = osm->osm_version && !strcmp(osm->osm_version, OSM_VERSION);

	if (!layout_ok(osm)) {
		/* osm->log may be elsewhere too: stderr is all that is safe */
		fprintf(stderr, "fabroute: the running OpenSM ('%s') is not laid out like the headers of "
			"'%s' libfabroute-osm.so was built with (other configure options?); not loading\n",
			osm->osm_version ? osm->osm_version : "?", OSM_VERSION);
		return false;
	}
	if (!same_version) {
		osm_log(&osm->log, OSM_LOG_ERROR, "fabroute: running OpenSM '%s' is not '%s', which "
			"libfabroute-osm.so was built for; not loading\n",
			osm->osm_version ? osm->osm_version : "?", OSM_VERSION);
		return false;
	}
	return true;
}

static void fosm_free(struct fosm *f)
{
	if (f->wake[0] >= 0)
		close(f->wake[0]);
	if (f->wake[1] >= 0)
		close(f->wake[1]);
	if (f->route_fd >= 0)
		close(f->route_fd);
	fosm_vl_free(f->vl);
	pthread_mutex_destroy(&f->ctl_mu);
	free(f->socket_path);
	free(f);
}

static struct fosm *fosm_new(osm_opensm_t *osm)
{
	struct fosm *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->osm = osm;
	f->route_fd = f->ctl_fd = -1;
	f->timeout_ms = 0;	/* auto */
	atomic_init(&f->stop, false);
	atomic_init(&f->sweep_asked, 0);
	pthread_mutex_init(&f->ctl_mu, NULL);
	f->socket_path = strdup(OSMP_SOCKET_DEFAULT);
	if (!f->socket_path || pipe2(f->wake, O_CLOEXEC | O_NONBLOCK)) {
		f->wake[0] = f->wake[1] = -1;
		fosm_free(f);
		return NULL;
	}
	return f;
}

static void *fosm_create(osm_opensm_t *osm)
{
	struct fosm *f;
	char timeout[32];

	if (!compatible(osm))
		return NULL;
	f = fosm_new(osm);
	if (!f || parse_options(f, osm->subn.opt.event_plugin_options)) {
		osm_log(&osm->log, OSM_LOG_ERROR, "fabroute: out of memory; not loading\n");
		if (f)
			fosm_free(f);
		return NULL;
	}
	/* nothing may fail after this: OpenSM keeps pointers to f and to our code */
	engine_register(f);
	if (f->timeout_ms)
		snprintf(timeout, sizeof(timeout), "%d ms", f->timeout_ms);
	else
		snprintf(timeout, sizeof(timeout), "by the subnet's size");
	FOSM_LOG(f, OSM_LOG_INFO, "%s loaded into %s: daemon socket %s, timeout %s, hop matrices by %s, "
		 "engines %s%s%s\n", FOSM_PLUGIN, osm->osm_version, f->socket_path, timeout,
		 f->osm_hops ? "OpenSM" : "the plugin",
		 names_engine(osm->subn.opt.routing_engine_names, FOSM_ENGINE) ? "" : FOSM_ENGINE " then ",
		 osm->subn.opt.routing_engine_names ? osm->subn.opt.routing_engine_names : "minhop",
		 names_engine(osm->subn.opt.routing_engine_names, FOSM_ENGINE) ? " (as configured)" : "");
	fosm_events_start(f);
	return f;
}

static void fosm_delete(void *data)
{
	struct fosm *f = data;

	if (!f)
		return;
	fosm_events_stop(f);
	FOSM_LOG(f, OSM_LOG_INFO, "unloading: %lu passes routed by fabrouted, %lu left to OpenSM; "
		 "%lu events sent, %lu dropped\n", f->passes, f->fallbacks, f->events_sent, f->events_dropped);
	fosm_free(f);
}

/* The one symbol OpenSM looks up (dlsym "osm_event_plugin"). */
__attribute__((visibility("default"))) osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = fosm_create,
	.delete = fosm_delete,
	.report = fosm_report,
};
