/* SPDX-License-Identifier: MIT */
/**
 * DOC: the configuration, built and reloaded
 *
 * The configuration is built from the defaults, the file and the command
 * line's flags, then checked. SIGHUP reads it again; the slow half (the
 * topology with the file source, the engines' option files) runs in a
 * thread of its own, so that a read that blocks (a FIFO, a hung file
 * system) never holds up the loop; the loop then applies it, or keeps the
 * old configuration with the reason logged and stored as an event. The
 * engine chain in force: one selected through the API (stored) wins over
 * the file's, unless the file's changed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "svc/log.h"

/* Build the configuration: defaults, the file, the flags, then the checks. */
int daemon_build_config(const struct daemon *d, struct config *c, struct fab_err *err)
{
	if (config_defaults(c)) {
		fab_err_set(err, "out of memory");
		return -1;
	}
	if (d->cfg_path && config_load_file(c, d->cfg_path, err))
		return -1;
	for (unsigned i = 0; i < d->nflags; i++) {
		int rc = config_set(c, d->flags[2 * i], d->flags[2 * i + 1], CFG_FLAG, err);

		if (rc > 0)
			fab_err_set(err, "unknown option '--%s' (fabrouted --help lists them)", d->flags[2 * i]);
		if (rc)
			return -1;
	}
	return config_check(c, err);
}

/* The administrator's token and the read token into the API; 0, or -1 with @err (none changed). */
int daemon_apply_token(struct daemon *d, const struct config *c, struct fab_err *err)
{
	char *tok = NULL, *rtok = NULL;
	int rc;

	if (c->token_file[0] && !(tok = daemon_read_token(c->token_file, err)))
		return -1;
	if (c->read_token_file[0] && !(rtok = daemon_read_token(c->read_token_file, err))) {
		free(tok);
		return -1;
	}
	rc = api_set_token(d->api, tok) || api_set_read_token(d->api, rtok);
	free(tok);
	free(rtok);
	if (rc)
		fab_err_set(err, "out of memory");
	return rc;
}

/*
 * The engine chain and options in force: an earlier selection through the
 * API (stored) wins over the configuration. Returns the pipeline settings;
 * *@chain and *@opts hold the stored strings (free them).
 */
struct pipe_settings daemon_effective_settings(struct daemon *d, const struct config *c,
					       char **chain, char **opts)
{
	struct fab_err err;

	*chain = *opts = NULL;
	if (store_setting_get(d->st, "engine_chain", chain, &err) ||
	    store_setting_get(d->st, "engine_options", opts, &err))
		log_err("%s", err.msg);
	if (*chain && !*opts)
		*opts = strdup("");
	return daemon_settings(d, c, *chain, *chain ? *opts : NULL);
}

static void reload_refused(struct daemon *d, struct config *c, const struct fab_err *err)
{
	log_err("reload: %s; keeping the old configuration", err->msg);
	pipe_event(d->st, "config", NULL, "reload refused, the old configuration stays: %s", err->msg);
	config_free(c);
	sd_notify(0, "READY=1");
}

/* The reload's second half, in the loop: @c (taken) becomes the configuration. */
static void reload_apply(struct daemon *d, struct config c, int src_changed)
{
	struct config old;
	struct fab_err err = { { 0 } };
	struct pipe_settings set;
	char restart[256], *chain, *opts;
	int changed = 0;
	config_restart_keys(&d->cfg, &c, restart, sizeof(restart));
	if (restart[0])
		log_warn("reload: %s changed; that takes effect after a restart", restart);
	log_set_level(log_level_parse(c.log_level));
	store_events_keep(d->st, c.events_keep);
	if (daemon_apply_token(d, &c, &err))
		log_err("reload: %s; the API keeps the old tokens", err.msg);
	if (strcmp(c.engine, d->cfg.engine) || strcmp(c.engine_options, d->cfg.engine_options)) {
		/* the file's engine changed: it wins over an earlier selection through the API */
		if (store_setting_set(d->st, "engine_chain", c.engine, &err) ||
		    store_setting_set(d->st, "engine_options", c.engine_options, &err))
			log_err("%s", err.msg);
	}
	if (d->osm && srco_set_names(d->osm, c.node_name_map, &err))
		log_err("reload: %s; the names in force stay", err.msg);
	pthread_mutex_lock(&d->cfg_mu);
	old = d->cfg;
	d->cfg = c;
	set = daemon_effective_settings(d, &d->cfg, &chain, &opts);
	if (pipe_settings_set(d->pipe, &set, &changed, &err))
		log_err("reload: %s", err.msg);
	pthread_mutex_unlock(&d->cfg_mu);
	free(chain);
	free(opts);
	config_free(&old);
	log_notice("configuration reloaded%s", changed || src_changed ? ": rerouting" : "");
	pipe_event(d->st, "config", NULL, "configuration reloaded");
	if (changed || src_changed)
		pipe_request(d->pipe, src_changed ? "source" : "config");
	sd_notify(0, "READY=1");
}

/* The reload's slow half, in a thread: the topology (with the file source), the option files. */
static void *reload_main(void *arg)
{
	struct daemon *d = arg;
	struct srcf_input in = { d->rl.cfg.topology, d->rl.cfg.topology_format,
				 d->rl.cfg.node_name_map, (int)d->rl.cfg.topology_strict };
	uint64_t one = 1;

	d->rl.failed = 0;
	if (d->src && !(d->rl.f = srcf_load(&in, &d->rl.err)))
		d->rl.failed = 1;
	else if (daemon_files_prepare(d, &d->rl.cfg, d->rl.api_chain, &d->rl.err))
		d->rl.failed = 1;
	if (d->rl.failed) {
		fab_free(d->rl.f);
		d->rl.f = NULL;
	}
	if (write(d->rl.fd, &one, sizeof(one)) < 0)
		log_err("reload: cannot wake the loop: %s", strerror(errno));
	return NULL;
}

/* The topology is read: apply it with the configuration read with it. */
void daemon_on_reloaded(struct loop *l, int fd, void *ud)
{
	struct daemon *d = ud;
	uint64_t n;

	if (read(fd, &n, sizeof(n)) < 0 || !d->rl.running)
		return;
	pthread_join(d->rl.thread, NULL);
	d->rl.running = 0;
	if (d->rl.failed)
		reload_refused(d, &d->rl.cfg, &d->rl.err);
	else
		reload_apply(d, d->rl.cfg, d->src ? srcf_replace(d->src, d->rl.f) : 0);
	d->rl.f = NULL;
}

/* SIGHUP: a new configuration, or the old one with the reason logged. */
void daemon_reload(struct daemon *d)
{
	struct fab_err err = { { 0 } };
	struct config c;

	if (d->rl.running) {
		log_warn("reload: the previous reload is still reading %s or the option files; this one is "
			 "ignored", d->rl.cfg.topology);
		return;
	}
	sd_notify(0, "RELOADING=1");
	if (daemon_build_config(d, &c, &err)) {
		reload_refused(d, &c, &err);
		return;
	}
	d->rl.cfg = c;
	d->rl.err = (struct fab_err){ { 0 } };
	/* a changed engine in the file wins over the chain selected through the API (reload_apply()) */
	d->rl.api_chain = !strcmp(c.engine, d->cfg.engine) && !strcmp(c.engine_options, d->cfg.engine_options);
	d->rl.running = 1;
	if (pthread_create(&d->rl.thread, NULL, reload_main, d)) {
		d->rl.running = 0;
		fab_err_set(&err, "cannot start a thread to read the topology and option files");
		reload_refused(d, &d->rl.cfg, &err);
	}
}
