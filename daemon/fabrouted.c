/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabrouted
 *
 * The daemon's entry point: command line and configuration, the modules
 * started in dependency order (store, source, pipeline, API) and stopped in
 * reverse, signals (SIGHUP reloads, SIGTERM/SIGINT stop), and readiness
 * through sd_notify(3) once the API listens and the first routing is
 * published or restored (the configuration and its reload: reload.c).
 * While the database refuses writes, a timer probes it every 2 s; once it
 * takes them again, a routing that could not be stored is published and
 * stored anew.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "svc/log.h"

enum { EXIT_USAGE = 2, EXIT_CONFIG = 3 };

static void usage(FILE *out)
{
	fputs("Usage: fabrouted [-c FILE] [--forget-engine] [--KEY VALUE ...]\n"
	      "       fabrouted -n [-c FILE] [--KEY VALUE ...]\n"
	      "\n"
	      "The fabroute routing daemon: routes the fabric with an engine chain, proves\n"
	      "the result, reroutes on faults, keeps snapshots in SQLite and answers the\n"
	      "REST API (doc/api.md).\n"
	      "\n"
	      "  -c, --config FILE   configuration file (the unit uses " CONFIG_DEFAULT_PATH ");\n"
	      "                      without it, the defaults and the flags below\n"
	      "  -n, --check         check the configuration: the token files, the files engine\n"
	      "                      options name, a generated topology, the chain selected\n"
	      "                      through the API that the database holds; print its\n"
	      "                      canonical form, exit\n"
	      "      --forget-engine drop the chain selected through the API (POST /api/engine)\n"
	      "                      and route with the configuration's\n"
	      "  -h, --help          show this help\n"
	      "  -V, --version       show the version\n"
	      "\n"
	      "Every configuration key is also a flag that overrides the file:\n", out);
	config_help(out);
	fputs("\nSignals: SIGHUP reloads the file (a bad file keeps the old configuration),\n"
	      "SIGTERM and SIGINT stop cleanly.\n"
	      "Exit status: 0 stopped cleanly; 1 could not start (database, address, the\n"
	      "chain selected through the API); 2 bad command line; 3 bad configuration\n"
	      "(token or option files included).\n", out);
}

/* --- command line and configuration --------------------------------------- */

static int usage_err(const char *what, const char *arg)
{
	fprintf(stderr, "fabrouted: %s '%s'\nTry 'fabrouted --help'.\n", what, arg);
	return EXIT_USAGE;
}

/* "--holddown-ms" -> "holddown_ms" in @key. */
static void flag_key(const char *flag, char *key, size_t size)
{
	snprintf(key, size, "%s", flag + 2);
	key[strcspn(key, "=")] = '\0';
	for (char *p = key; *p; p++)
		if (*p == '-')
			*p = '_';
}

/* Parse argv into @d (flags kept for reloads); *@check for -n. 0 or an exit code. */
static int parse_args(struct daemon *d, int argc, char **argv, int *check, int *stop)
{
	static char keys[DAEMON_FLAGS_MAX][64];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			*stop = 1;
			return 0;
		}
		if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("fabrouted %s\n", PACKAGE_VERSION);
			*stop = 1;
			return 0;
		}
		if (!strcmp(a, "--man-keys")) {	/* for the build: fabrouted(8)'s key list */
			config_man(stdout);
			*stop = 1;
			return 0;
		}
		if (!strcmp(a, "-n") || !strcmp(a, "--check")) {
			*check = 1;
			continue;
		}
		if (!strcmp(a, "--forget-engine")) {
			d->forget_engine = 1;
			continue;
		}
		if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
			if (++i == argc)
				return usage_err("this option needs a file:", a);
			d->cfg_path = argv[i];
			continue;
		}
		if (strncmp(a, "--", 2) || !a[2])
			return usage_err("unexpected argument", a);
		if (d->nflags == DAEMON_FLAGS_MAX)
			return usage_err("too many flags, at", a);
		flag_key(a, keys[d->nflags], sizeof(keys[0]));
		eq = strchr(a, '=');
		if (!eq && ++i == argc)
			return usage_err("this option needs a value:", a);
		d->flags[2 * d->nflags] = keys[d->nflags];
		d->flags[2 * d->nflags + 1] = eq ? eq + 1 : argv[i];
		d->nflags++;
	}
	return 0;
}

/* --- start, reload, stop --------------------------------------------------- */

static void on_done(void *ud, const struct epoch *e)
{
	struct daemon *d = ud;

	api_warmer_kick(d->warm);
	rb_trigger(d->rb, 1000);	/* the fast repair writes without a sweep; a pass holds it until SUBNET UP */
	if (d->ha)
		ha_published(d->ha, e);
	if (e)
		sd_notifyf(0, "STATUS=epoch %llu: %s, %s", (unsigned long long)e->seq, e->engine,
			   epoch_ready(e) ? "ready" : "NOT ready (see /api/ready)");
	else
		sd_notify(0, "STATUS=no routing yet (see /api/events)");
	if (!d->ready_sent) {
		d->ready_sent = 1;
		sd_notify(0, "READY=1");
	}
}

/* A rebalance is due, or settings changed, with source opensm: ask OpenSM for a routing pass. */
static void ask_sweep(void *ud)
{
	struct daemon *d = ud;
	struct fab_err err;

	if (d->osm && srco_sweep(d->osm, 0, &err))
		log_info("no routing pass asked of OpenSM: %s", err.msg);
}

/* Every 2 s: while the store refuses writes, probe it; store a routing it missed. */
static void on_store_timer(struct loop *l, void *ud)
{
	struct daemon *d = ud;
	struct store_health h;
	struct epoch *e = epoch_slot_get(&d->slot);
	struct pipe_stats ps;
	struct fab_err err;

	store_health(d->st, &h);
	pipe_stats(d->pipe, &ps);
	if ((!h.ok || (e && epoch_snapshot_id(e) <= 0 && d->src && !ps.busy && !ps.storing)) &&
	    store_probe(d->st, loop_wall_ms(), &err) == 0) {
		if (!h.ok)
			log_notice("the database takes writes again");
		if (e && epoch_snapshot_id(e) <= 0 && d->src) {
			log_notice("epoch %llu was not stored: routing again to store it",
				   (unsigned long long)e->seq);
			pipe_request(d->pipe, "store");
		}
	}
	epoch_unref(e);
	loop_timer_arm(d->store_timer, 2000);
}

static void on_signal(struct loop *l, int fd, void *ud)
{
	struct daemon *d = ud;
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return;
	if (si.ssi_signo == SIGHUP) {
		daemon_reload(d);
		return;
	}
	log_notice("signal %u: stopping", si.ssi_signo);
	sd_notify(0, "STOPPING=1");
	loop_stop(l);
}

static int start_signals(struct daemon *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	/* before any thread starts, so that every thread inherits the mask */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return -1;
	signal(SIGPIPE, SIG_IGN);
	d->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return d->sig_fd < 0 ? -1 : loop_add_fd(d->loop, d->sig_fd, on_signal, d);
}

/* "simulated faults restored from the store: leaf-00:19 - spine-03:1, spine-02" */
static void log_restored_faults(struct srcf *src)
{
	json_t *d = srcf_faults_detail(src), *v;
	char line[1024] = "";
	size_t len = 0, i;

	json_array_foreach(json_object_get(d, "links"), i, v)
		if (len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s:%lld - %s:%lld",
				len ? ", " : "", json_string_value(json_object_get(json_object_get(v, "a"), "node")),
				json_integer_value(json_object_get(json_object_get(v, "a"), "port")),
				json_string_value(json_object_get(json_object_get(v, "b"), "node")),
				json_integer_value(json_object_get(json_object_get(v, "b"), "port")));
	json_array_foreach(json_object_get(d, "switches"), i, v)
		if (len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", len ? ", " : "",
						json_string_value(json_object_get(v, "node")));
	if (len)
		log_notice("simulated faults restored from the store: %s", line);
	json_decref(d);
}

static int open_source(struct daemon *d, struct fab_err *err)
{
	struct srcf_input in = { d->cfg.topology, d->cfg.topology_format, d->cfg.node_name_map,
				 (int)d->cfg.topology_strict };
	char *saved = NULL;
	json_t *faults;

	if (strcmp(d->cfg.source, "opensm") == 0)
		return 0;	/* the fabric comes with each of OpenSM's routing requests */
	d->src = srcf_open(&in, err);
	if (!d->src || store_setting_get(d->st, "faults", &saved, err))
		return -1;
	faults = saved ? json_loads(saved, 0, NULL) : NULL;
	if (faults) {
		srcf_faults_restore(d->src, faults);
		log_restored_faults(d->src);
	}
	json_decref(faults);
	free(saved);
	return 0;
}

/* Listening beyond loopback: say what is open to the network. */
static void warn_exposed(const struct config *c, const char *host)
{
	if (!strncmp(host, "127.", 4) || !strcmp(host, "::1"))
		return;
	if (!c->tls_cert[0] || !c->read_token_file[0])
		log_warn("the API listens on %s, reachable from other hosts:%s%s (doc/deploy.md)", host,
			 c->tls_cert[0] ? "" : " plain HTTP, the token travels in clear (tls_cert, tls_key);",
			 c->read_token_file[0] ? "" : " reads need no token (read_token_file)");
}

static int start_api(struct daemon *d, struct fab_err *err)
{
	struct api_hooks hooks = daemon_hooks(d);
	struct api_opts o = {
		.threads = d->cfg.api_threads, .io_threads = d->cfg.api_io_threads,
		.client_queue = d->cfg.api_client_queue, .max_connections = d->cfg.api_max_connections,
		.max_per_address = d->cfg.api_max_connections_per_address,
		.max_body = d->cfg.api_max_body, .rate_limit = d->cfg.api_rate_limit,
		.write_rate_limit = d->cfg.api_write_rate_limit, .dashboard = (int)d->cfg.dashboard,
		.request_timeout_s = d->cfg.api_request_timeout_s, .send_timeout_s = d->cfg.api_send_timeout_s,
		.tls_cert = d->cfg.tls_cert, .tls_key = d->cfg.tls_key,
	};
	char host[256];

	if (config_listen(d->cfg.listen, host, sizeof(host), &o.port, err))
		return -1;
	o.host = host;
	d->api = api_start(&o, &hooks, d->st, err);
	if (!d->api || daemon_apply_token(d, &d->cfg, err))
		return -1;
	log_notice("API listening on http%s://%s%s%s:%u", d->cfg.tls_cert[0] ? "s" : "", strchr(host, ':') ? "[" : "",
		   host, strchr(host, ':') ? "]" : "", api_port(d->api));
	warn_exposed(&d->cfg, host);
	return 0;
}

/* The epoch a pass_result says OpenSM installed, 0 when it installed its own engine's tables. */
static uint64_t installed(const json_t *msg)
{
	const char *r = json_string_value(json_object_get(msg, "result"));

	return r && !strcmp(r, "routed") ? (uint64_t)json_integer_value(json_object_get(msg, "epoch")) : 0;
}

/*
 * A link-state trap: the fast repair. OpenSM's events pace the read-back:
 * it reads once the subnet is up.
 */
static void on_osm_event(void *ud, const char *event, const json_t *msg)
{
	struct daemon *d = ud;

	if (!strcmp(event, "pass_result"))
		pipe_installed(d->pipe, installed(msg), installed(msg) != 0);	/* published or dropped */
	if (!strcmp(event, "trap") && d->fr)
		fr_trap(d->fr, (unsigned)json_integer_value(json_object_get(msg, "trap")),
			(unsigned)json_integer_value(json_object_get(msg, "lid")));
	else if (!strcmp(event, "pass_result") && d->fr)
		fr_installed(d->fr, installed(msg));
	else if (!strcmp(event, "state_change") && d->ha)
		ha_sm_state(d->ha, json_string_value(json_object_get(msg, "state")) ?: "unknown");
	rb_osm_event(d->rb, event);
}

/* An answer OpenSM did not install: the read-back takes what it installed instead. */
static void on_dropped(void *ud, struct epoch *e)
{
	struct daemon *d = ud;

	rb_fallback(d->rb, e);
}

/* The read-back's tables of OpenSM's own engine: the current epoch. */
static void on_fallback(void *ud, struct fabric *f, struct rt_routing *r)
{
	struct daemon *d = ud;
	struct fab_err err = { { 0 } };
	struct epoch *e = pipe_adopt(d->pipe, f, r, &err);

	if (e)
		log_notice("epoch %llu: OpenSM's own engine's tables, as read back, are current",
			   (unsigned long long)e->seq);
	else
		log_err("OpenSM's own engine's tables not published: %s", err.msg);
	epoch_unref(e);
}

/* The fast repair, with source opensm and repair = ftdlr unless fast_repair = 0. */
static int start_fast_repair(struct daemon *d, struct fab_err *err)
{
	struct smp_opts o = {
		.ca = d->cfg.readback_ca, .port = d->cfg.readback_port,
		.timeout_ms = d->cfg.fast_repair_timeout_ms, .retries = 1,
		.window = d->cfg.fast_repair_window,
	};

	if (!d->cfg.fast_repair || strcmp(d->cfg.repair, "ftdlr"))
		return 0;
	if (config_mkey(d->cfg.fast_repair_mkey, &o.mkey)) {
		fab_err_set(err, "fast_repair_mkey: not a number");
		return -1;
	}
	d->fr = fr_start(&o, d->pipe, &d->slot, d->st, err);
	return d->fr ? 0 : -1;
}

/* Source opensm: the read-back, then the listener the plugin connects to. */
static int start_osm(struct daemon *d, struct fab_err *err)
{
	struct rb_opts o = {
		.ca = d->cfg.readback_ca, .port = d->cfg.readback_port,
		.interval_s = d->cfg.readback_interval_s, .timeout_ms = d->cfg.readback_timeout_ms,
		.retries = d->cfg.readback_retries, .rate = d->cfg.readback_rate,
	};
	uid_t uid;

	if (config_uid(d->cfg.plugin_user, &uid, err))
		return -1;
	if (d->cfg.readback && !(d->rb = rb_start(&o, &d->slot, err)))
		return -1;
	rb_set_fallback_cb(d->rb, on_fallback, d);
	pipe_set_dropped_cb(d->pipe, on_dropped, d);
	if (start_fast_repair(d, err))
		return -1;
	d->osm = srco_open(d->cfg.socket, uid, d->pipe, d->st, on_osm_event, d, err);
	return d->osm && !srco_set_names(d->osm, d->cfg.node_name_map, err) ? 0 : -1;
}

/* systemd's watchdog: pinged from the main loop, so a stuck loop stops the pings. */
static void on_watchdog(struct loop *l, void *ud)
{
	struct daemon *d = ud;

	sd_notify(0, "WATCHDOG=1");
	loop_timer_arm(d->watchdog, d->watchdog_ms);
}

static int start_watchdog(struct daemon *d)
{
	uint64_t usec = 0;

	if (sd_watchdog_enabled(0, &usec) <= 0 || !usec)
		return 0;
	d->watchdog_ms = (int64_t)(usec / 2000);	/* twice per period */
	if (!d->watchdog_ms)
		d->watchdog_ms = 1;
	if (!(d->watchdog = loop_timer_new(d->loop, on_watchdog, d)))
		return -1;
	loop_timer_arm(d->watchdog, d->watchdog_ms);
	log_info("systemd watchdog: pinging every %lld ms", (long long)d->watchdog_ms);
	return 0;
}

/* --forget-engine: the chain selected through the API goes; the configuration's routes. */
static int forget_engine(struct daemon *d, struct fab_err *err)
{
	if (!d->forget_engine)
		return 0;
	if (store_setting_set(d->st, "engine_chain", NULL, err) ||
	    store_setting_set(d->st, "engine_options", NULL, err))
		return -1;
	log_notice("the engine chain selected through the API is forgotten: '%s' routes", d->cfg.engine);
	return 0;
}

/* With replication = etcd: this node's part of the SM nodes' replication (daemon/ha.h). */
static int start_ha(struct daemon *d, struct fab_err *err)
{
	char host[256] = "", url[300];
	struct ha_opts o = {
		.endpoints = d->cfg.etcd_endpoints, .prefix = d->cfg.etcd_prefix,
		.node = d->cfg.node_name, .api_url = url, .timeout_ms = d->cfg.etcd_timeout_ms,
		.settings = daemon_settings(d, &d->cfg, NULL, NULL),	/* this node's configuration */
	};

	if (strcmp(d->cfg.replication, "etcd"))
		return 0;
	if (!o.node[0] && gethostname(host, sizeof(host) - 1) == 0)
		o.node = host;
	snprintf(url, sizeof(url), "http%s://%s:%u", d->cfg.tls_cert[0] ? "s" : "", d->cfg.listen, api_port(d->api));
	if ((strrchr(d->cfg.listen, ':')))
		snprintf(url, sizeof(url), "http%s://%.*s:%u", d->cfg.tls_cert[0] ? "s" : "",
			 (int)(strrchr(d->cfg.listen, ':') - d->cfg.listen), d->cfg.listen, api_port(d->api));
	d->ha = ha_start(&o, d->pipe, &d->slot, d->st, err);
	return d->ha ? 0 : -1;
}

/* Modules in dependency order: store, source, loop, pipeline, API. */
/* The first line: what runs, with what, from where. */
static void banner(const struct daemon *d)
{
	const struct config *c = &d->cfg;
	char src[600];

	if (!strcmp(c->source, "opensm"))
		snprintf(src, sizeof(src), "source opensm (plugin socket %s, read-back %s)", c->socket,
			 c->readback ? "on" : "off");
	else
		snprintf(src, sizeof(src), "source file (%s)", c->topology);
	char f_src[64];
	const char *fields[] = { "FABROUTE_VERSION=" PACKAGE_VERSION, f_src, NULL };

	snprintf(f_src, sizeof(f_src), "FABROUTE_SOURCE=%s", c->source);
	log_fields(LOG_NOTICE, fields, "fabrouted %s starting: configuration %s; %s; engine chain %s, "
		   "publish_policy %s, repair %s; database %s; API on %s; log level %s", PACKAGE_VERSION,
		   d->cfg_path ? d->cfg_path : "(defaults and flags)", src, c->engine, c->publish_policy,
		   c->repair, c->db, c->listen, c->log_level);
}

static int start(struct daemon *d, struct fab_err *err)
{
	struct pipe_settings set;
	char *chain, *opts;
	int restored;

	banner(d);
	d->start_ms = loop_now_ms();
	d->sig_fd = -1;
	epoch_slot_init(&d->slot);
	if (!(d->st = store_open(d->cfg.db, err)) || forget_engine(d, err) ||
	    daemon_files_prepare(d, &d->cfg, 1, err) || open_source(d, err))
		return -1;
	store_events_keep(d->st, d->cfg.events_keep);
	if (!(d->loop = loop_new()) || start_signals(d) || start_watchdog(d)) {
		fab_err_set(err, "cannot set up the event loop: %s", strerror(errno));
		return -1;
	}
	set = daemon_effective_settings(d, &d->cfg, &chain, &opts);
	if (chain && strcmp(chain, d->cfg.engine))
		log_notice("engine chain '%s' (selected through the API) overrides the configuration's '%s'",
			   chain, d->cfg.engine);
	d->pipe = pipe_new(d->loop, &d->slot, d->st, d->src, &set, err);
	free(chain);
	free(opts);
	if (!d->pipe)
		return -1;
	d->rl.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	d->store_timer = loop_timer_new(d->loop, on_store_timer, d);
	if (d->rl.fd < 0 || !d->store_timer || loop_add_fd(d->loop, d->rl.fd, daemon_on_reloaded, d)) {
		fab_err_set(err, "cannot set up the event loop: %s", strerror(errno));
		return -1;
	}
	loop_timer_arm(d->store_timer, 2000);
	d->warm = api_warmer_start(&d->slot);
	if (!d->warm) {
		fab_err_set(err, "cannot start the thread that computes the routes per link");
		return -1;
	}
	pipe_set_done_cb(d->pipe, on_done, d);
	pipe_set_sweep_cb(d->pipe, d->src ? NULL : ask_sweep, d);
	restored = d->src && pipe_restore(d->pipe);
	if (!d->src && start_osm(d, err))
		return -1;
	if (start_api(d, err) || start_ha(d, err))
		return -1;
	pipe_event(d->st, "daemon", NULL, "fabrouted %s started", PACKAGE_VERSION);
	if (restored) {
		struct epoch *e = epoch_slot_get(&d->slot);

		on_done(d, e);
		epoch_unref(e);
	} else if (d->src) {
		pipe_request(d->pipe, "startup");
	} else {
		on_done(d, NULL);	/* ready to serve OpenSM: routing starts with its first pass */
	}
	return 0;
}

/* Modules in reverse order; safe after a partial start. */
static void stop(struct daemon *d)
{
	if (d->rl.running) {	/* a reload still reading the topology: it is abandoned */
		pthread_cancel(d->rl.thread);
		pthread_join(d->rl.thread, NULL);
		config_free(&d->rl.cfg);
		d->rl.running = 0;
	}
	api_stop(d->api);
	ha_stop(d->ha);
	srco_free(d->osm);
	fr_stop(d->fr);
	rb_stop(d->rb);
	pipe_free(d->pipe);
	api_warmer_stop(d->warm);
	epoch_slot_fini(&d->slot);
	srcf_free(d->src);
	engf_free(d->files);
	if (d->st)
		pipe_event(d->st, "daemon", NULL, "fabrouted stopped");
	store_close(d->st);
	if (d->store_timer)
		loop_timer_disarm(d->store_timer);
	if (d->rl.fd >= 0) {
		loop_del_fd(d->loop, d->rl.fd);
		close(d->rl.fd);
	}
	loop_free(d->loop);
	if (d->sig_fd >= 0)
		close(d->sig_fd);
	config_free(&d->cfg);
	pthread_mutex_destroy(&d->cfg_mu);
	pthread_mutex_destroy(&d->fault_mu);
	pthread_mutex_destroy(&d->whatif_mu);
}

int main(int argc, char **argv)
{
	struct daemon d = { .sig_fd = -1, .rl.fd = -1 };
	struct fab_err err = { { 0 } };
	int check = 0, done = 0, rc;

	pthread_mutex_init(&d.cfg_mu, NULL);
	pthread_mutex_init(&d.fault_mu, NULL);
	pthread_mutex_init(&d.whatif_mu, NULL);
	rc = parse_args(&d, argc, argv, &check, &done);
	if (rc || done)
		return rc;
	if (daemon_build_config(&d, &d.cfg, &err)) {
		fprintf(stderr, "fabrouted: %s\n", err.msg);
		config_free(&d.cfg);
		return EXIT_CONFIG;
	}
	if (check) {
		rc = daemon_check_mode(&d.cfg, &err);
		if (rc)
			fprintf(stderr, "fabrouted: %s\n", err.msg);
		else
			config_write(stdout, &d.cfg);
		config_free(&d.cfg);
		return rc ? EXIT_CONFIG : 0;
	}
	umask(077);	/* the database and its journal are the daemon's alone, as under systemd */
	log_set_level(log_level_parse(d.cfg.log_level));
	d.files = engf_new();
	d.files_src = engf_source(d.files);
	/* before anything is created: a bad token or option file is a configuration error */
	if (!d.files || daemon_tokens_check(&d.cfg, &err) ||
	    daemon_files_prepare(&d, &d.cfg, 0, &err)) {
		log_err("%s", d.files ? err.msg : "out of memory");
		engf_free(d.files);
		config_free(&d.cfg);
		return EXIT_CONFIG;
	}
	json_object_seed(0);	/* before any thread: jansson seeds its hash tables once, unlocked */
	/*
	 * Large answers (an LFT dump, a topology) are mapped and unmapped: with
	 * glibc's sliding threshold they would come from the threads' arenas,
	 * which keep what was freed, and a burst of large answers would stay in
	 * the resident size.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	rc = start(&d, &err);
	if (rc) {
		log_err("cannot start: %s", err.msg);
		sd_notifyf(0, "STATUS=cannot start: %s", err.msg);
	} else {
		rc = loop_run(d.loop);
	}
	stop(&d);
	if (!rc)
		log_notice("stopped");
	return rc ? 1 : 0;
}
