/* SPDX-License-Identifier: MIT */
/**
 * DOC: daemon control
 *
 * The hooks the REST API calls: the current epoch, reroute, engine
 * selection, simulated faults, configuration, status and the daemon's
 * counters for /metrics. They run in the API's threads; everything they
 * touch is thread-safe (the pipeline, the source, the store) or guarded by
 * cfg_mu.
 *
 * A write is acknowledged only once it is stored: a fault or an engine
 * selection the store refuses is not applied, and the answer is 507 (disk
 * full) or 503 (any other store error).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/daemon.h"
#include "svc/log.h"
#include "engines/engine.h"
#include "formats/formats.h"

struct pipe_settings daemon_settings(struct daemon *d, const struct config *c, const char *chain,
				     const char *options)
{
	return (struct pipe_settings){
		.chain = chain ? chain : c->engine, .options = options ? options : c->engine_options,
		.files = &d->files_src, .files_gen = engf_gen(d->files),
		.budget = { .time_ms = c->engine_timeout_s * 1000u, .memory = (size_t)c->engine_memory_mb << 20 },
		.lmc = c->lmc, .holddown_ms = c->holddown_ms, .keep = c->snapshot_keep,
		.max_age_days = c->snapshot_max_age_days, .policy = config_policy(c->publish_policy),
		.repair = !strcmp(c->repair, "ftdlr"), .rebalance_delay_s = c->rebalance_delay_s,
		.rebalance_max_blocks = c->rebalance_max_blocks,
	};
}

char *daemon_read_token(const char *path, struct fab_err *err)
{
	char *text, *s, *e;
	struct stat st;
	size_t len;

	if (fmt_read_file_max(path, 4096, &text, &len, err))
		return NULL;
	for (s = text; *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'; s++)
		;
	for (e = s + strlen(s); e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'); e--)
		;
	*e = '\0';
	if (e - s < 16 || strpbrk(s, " \t\r\n")) {
		fab_err_set(err, "%s: the token must be one word of at least 16 characters", path);
		free(text);
		return NULL;
	}
	if (stat(path, &st)) {
		fab_err_set(err, "%s: %s", path, strerror(errno));
		free(text);
		return NULL;
	}
	if (st.st_mode & 077) {	/* as ssh refuses a private key others can read */
		fab_err_set(err, "%s: readable or writable by group or others (mode %03o); chmod 600 it",
			    path, (unsigned)(st.st_mode & 0777));
		free(text);
		return NULL;
	}
	memmove(text, s, (size_t)(e - s) + 1);
	return text;
}

static struct epoch *hook_epoch(void *ud)
{
	struct daemon *d = ud;

	return epoch_slot_get(&d->slot);
}

/* Writes are the master's: a standby refuses them, naming the master. */
static int standby_refuses(struct daemon *d, struct api_err *err)
{
	int status;
	char code[32], why[256];

	if (!d->ha || ha_write_ok(d->ha, &status, code, sizeof(code), why, sizeof(why)))
		return 0;
	api_err_set(err, status, code, "%s", why);
	return 1;
}

static int hook_reroute(void *ud, struct api_err *err)
{
	struct daemon *d = ud;
	struct fab_err e;

	if (standby_refuses(d, err))
		return -1;
	if (!d->osm) {
		pipe_request(d->pipe, "api");
		return 0;
	}
	if (srco_sweep(d->osm, 1, &e) == 0)
		return 0;
	api_err_set(err, 503, "not_connected", "%s", e.msg);
	return -1;
}

/* The store refused a write: 507 when the disk is full, else 503. */
static void store_refused(struct daemon *d, const char *what, const struct fab_err *err, struct api_err *aerr)
{
	struct store_health h;

	store_health(d->st, &h);
	log_err("%s is refused: %s", what, err->msg);
	api_err_set(aerr, h.full ? 507 : 503, h.full ? "insufficient_storage" : "store_unavailable",
		    "%s is not applied: it could not be stored (%s)", what, err->msg);
}

static int hook_engine(void *ud, const char *chain, const char *options, struct api_err *aerr)
{
	struct daemon *d = ud;
	const char *kv[] = { "engine_chain", chain, "engine_options", options };
	struct pipe_settings set;
	struct fab_err err;
	char *dir;
	int rc;

	if (standby_refuses(d, aerr))
		return -1;
	pthread_mutex_lock(&d->cfg_mu);
	dir = strdup(d->cfg.engine_files_dir);
	pthread_mutex_unlock(&d->cfg_mu);
	/* the chain checked and its option files read, before any lock and before it is stored */
	if (!dir)
		fab_err_set(&err, "out of memory");
	rc = dir ? engf_prepare(d->files, dir, chain, options, &err) : -1;
	free(dir);
	if (rc) {
		api_err_set(aerr, 400, "bad_parameter", "chain: %s", err.msg);
		return -1;
	}
	pthread_mutex_lock(&d->cfg_mu);
	set = daemon_settings(d, &d->cfg, chain, options);
	if (d->ha && ha_settings_put(d->ha, &set, &err)) {	/* replicated first: never lost */
		pthread_mutex_unlock(&d->cfg_mu);
		api_err_set(aerr, 503, "not_replicated", "the engine selection is not applied: the "
			    "replication did not store it (%s)", err.msg);
		return -1;
	}
	rc = store_settings_set(d->st, kv, 2, &err);
	if (!rc && pipe_settings_set(d->pipe, &set, NULL, &err))
		log_err("%s", err.msg);	/* checked above: only out of memory */
	pthread_mutex_unlock(&d->cfg_mu);
	if (rc) {
		store_refused(d, "the engine selection", &err, aerr);
		return -1;
	}
	log_notice("engine chain '%s' selected through the API", chain);
	pipe_event(d->st, "engine", json_pack("{s:s, s:s}", "chain", chain, "options", options),
		     "engine chain '%s' selected", chain);
	if (!d->osm)
		pipe_request(d->pipe, "engine");
	else if (srco_sweep(d->osm, 1, &err))	/* a heavy sweep: OpenSM asks its engine again */
		log_warn("the new chain routes OpenSM's next pass: %s", err.msg);
	return 0;
}

/* Parse {"action": "down"|"up", "link": "NODE:PORT"} or {..., "switch": "NODE"}. */
static int fault_args(const json_t *body, int *down, enum srcf_kind *kind, const char **what,
		      int *all, struct api_err *err)
{
	const char *action = json_string_value(json_object_get(body, "action"));
	const json_t *link = json_object_get(body, "link"), *sw = json_object_get(body, "switch");
	const json_t *jall = json_object_get(body, "all");
	const char *key;
	void *it;

	json_object_foreach((json_t *)body, key, it)
		if (strcmp(key, "action") && strcmp(key, "link") && strcmp(key, "switch") && strcmp(key, "all")) {
			api_err_set(err, 400, "bad_parameter", "%.64s: unknown member (expected action, and link, "
				    "switch or all)", key);
			return -1;
		}
	if (!action || (strcmp(action, "down") && strcmp(action, "up"))) {
		api_err_set(err, 400, action ? "bad_parameter" : "missing_parameter",
			    "action: expected \"down\" or \"up\"");
		return -1;
	}
	*down = strcmp(action, "down") == 0;
	*all = json_is_true(jall);
	if (jall && (!json_is_true(jall) || *down || link || sw)) {
		api_err_set(err, 400, "bad_parameter", "all: only true, with action \"up\" and neither link "
			    "nor switch (every simulated fault comes back up)");
		return -1;
	}
	if (*all)
		return 0;
	if (!link == !sw || !json_is_string(link ? link : sw)) {
		api_err_set(err, 400, "missing_parameter", "link or switch: give exactly one, as a string "
			    "(\"NODE:PORT\" or \"NODE\"; NODE a description or 0xGUID), or \"all\": true with "
			    "action \"up\"");
		return -1;
	}
	*kind = link ? SRCF_LINK : SRCF_SWITCH;
	*what = json_string_value(link ? link : sw);
	return 0;
}

static int save_faults(struct daemon *d, struct fab_err *err)
{
	json_t *faults = srcf_faults_json(d->src);
	char *text = json_dumps(faults, JSON_COMPACT);
	int rc = -1;

	if (!text)
		fab_err_set(err, "out of memory");
	else
		rc = store_setting_set(d->st, "faults", text, err);
	free(text);
	json_decref(faults);
	return rc;
}

/* The faults in force with their details: {"links", "switches", "details"}. */
static json_t *faults_json(struct daemon *d)
{
	json_t *j = srcf_faults_json(d->src);

	if (j)
		json_object_set_new(j, "details", srcf_faults_detail(d->src));
	return j;
}

/* {"action": "up", "all": true}: every simulated fault comes back up, as one change. */
static json_t *faults_all_up(struct daemon *d, struct api_err *aerr)
{
	json_t *before;
	struct fab_err err;
	size_t n;

	pthread_mutex_lock(&d->fault_mu);
	before = srcf_faults_json(d->src);
	n = srcf_faults_clear(d->src);
	if (n && save_faults(d, &err)) {
		srcf_faults_restore(d->src, before);
		pthread_mutex_unlock(&d->fault_mu);
		json_decref(before);
		store_refused(d, "the faults' recovery", &err, aerr);
		return NULL;
	}
	pthread_mutex_unlock(&d->fault_mu);
	json_decref(before);
	if (n) {
		pipe_request(d->pipe, "fault");
		log_notice("fault: all %zu back up (simulated)", n);
		pipe_event(d->st, "fault", json_pack("{s:s, s:b, s:I}", "action", "up", "all", 1, "count",
						   (json_int_t)n), "every simulated fault up (%zu)", n);
	}
	return json_pack("{s:s, s:b, s:I, s:o, s:b}", "action", "up", "all", 1, "count", (json_int_t)n,
			 "faults", faults_json(d), "reroute_requested", n > 0);
}

static json_t *hook_fault(void *ud, const json_t *body, struct api_err *aerr)
{
	static const int status[] = { 200, 404, 400, 409 };
	static const char *const code[] = { "", "not_found", "bad_parameter", "conflict" };
	struct daemon *d = ud;
	enum srcf_kind kind;
	const char *what, *kname;
	char canon[64];
	struct fab_err err;
	int down, rc, all;

	if (!d->src) {
		api_err_set(aerr, 409, "conflict", "faults are simulated with the file source only; "
			    "with source opensm, the fabric's own traps reroute");
		return NULL;
	}
	if (fault_args(body, &down, &kind, &what, &all, aerr))
		return NULL;
	if (all)
		return faults_all_up(d, aerr);
	kname = kind == SRCF_LINK ? "link" : "switch";
	pthread_mutex_lock(&d->fault_mu);	/* apply, store (or undo) as one */
	rc = srcf_fault(d->src, kind, down, what, canon, sizeof(canon), &err);
	if (rc) {
		pthread_mutex_unlock(&d->fault_mu);
		api_err_set(aerr, status[rc], code[rc], "%s", err.msg);
		return NULL;
	}
	if (save_faults(d, &err)) {
		char name[64], back[64];
		struct fab_err undo;

		memcpy(name, canon, sizeof(name));
		srcf_fault(d->src, kind, !down, name, back, sizeof(back), &undo);
		pthread_mutex_unlock(&d->fault_mu);
		store_refused(d, "the fault", &err, aerr);
		return NULL;
	}
	pthread_mutex_unlock(&d->fault_mu);
	pipe_request(d->pipe, "fault");
	log_notice("fault: %s %s %s (simulated)", kname, canon, down ? "down" : "up");
	pipe_event(d->st, "fault", json_pack("{s:s, s:s, s:s}", "action", down ? "down" : "up", kname, canon,
					   "named", what), "%s %s %s", kname, what, down ? "down" : "up");
	return json_pack("{s:s, s:s, s:o, s:b}", "action", down ? "down" : "up", kname, canon,
			 "faults", faults_json(d), "reroute_requested", 1);
}

static json_t *hook_faults(void *ud)
{
	struct daemon *d = ud;

	return d->src ? faults_json(d) : json_pack("{s:[], s:[], s:{s:[], s:[]}}", "links", "switches",
						  "details", "links", "switches");
}

static json_t *hook_config(void *ud)
{
	struct daemon *d = ud;
	json_t *j;
	char chain[256];

	pthread_mutex_lock(&d->cfg_mu);
	j = config_json(&d->cfg);
	pthread_mutex_unlock(&d->cfg_mu);
	pipe_chain(d->pipe, chain, sizeof(chain));
	return json_pack("{s:o, s:s, s:s?}", "config", j, "engine_in_use", chain, "file", d->cfg_path);
}

json_t *daemon_store_json(struct daemon *d)
{
	struct store_health h;
	struct epoch *e = epoch_slot_get(&d->slot);
	json_t *j;

	store_health(d->st, &h);
	j = json_pack("{s:b, s:b, s:I, s:s?, s:b}", "ok", h.ok, "disk_full", h.full,
		      "errors", (json_int_t)h.errors, "error", h.ok ? NULL : h.error,
		      "epoch_stored", e && epoch_snapshot_id(e) > 0);
	epoch_unref(e);
	return j;
}

static json_t *hook_status(void *ud)
{
	struct daemon *d = ud;
	struct pipe_stats ps;
	struct epoch *e = epoch_slot_get(&d->slot);
	json_t *j;

	pipe_stats(d->pipe, &ps);
	j = json_pack("{s:s, s:f, s:I, s:b, s:I, s:I}", "version", PACKAGE_VERSION,
		      "uptime_s", (double)(loop_now_ms() - d->start_ms) / 1e3,
		      "epoch", (json_int_t)(e ? e->seq : 0), "reroute_in_progress", ps.busy,
		      "reroutes_ok", (json_int_t)ps.ok, "reroutes_failed", (json_int_t)ps.failed);
	epoch_unref(e);
	json_object_set_new(j, "source", d->osm ? srco_status(d->osm) : json_pack("{s:s}", "type", "file"));
	json_object_set_new(j, "store", daemon_store_json(d));
	json_object_set_new(j, "ha", d->ha ? ha_json(d->ha) : json_pack("{s:s}", "role", "single"));
	return j;
}

/* Reroutes: counts and the duration histogram. */
static void reroute_metrics(FILE *o, const struct pipe_stats *ps)
{
	static const double bounds[PIPE_HIST_N] = PIPE_HIST_BOUNDS;

	fprintf(o, "# HELP fabroute_reroutes_total Reroutes, by result (ok: published; failed: the last good epoch stayed).\n"
		"# TYPE fabroute_reroutes_total counter\n"
		"fabroute_reroutes_total{result=\"ok\"} %llu\nfabroute_reroutes_total{result=\"failed\"} %llu\n",
		(unsigned long long)ps->ok, (unsigned long long)ps->failed);
	api_metric(o, "counter", "fabroute_topology_changes_total",
		   "Changes that asked for a reroute (coalesced by the hold-down).", (double)ps->requests);
	api_histogram(o, "fabroute_reroute_duration_seconds",
		      "Time from a change to the new epoch's publication.", bounds, PIPE_HIST_N,
		      ps->hist, ps->sum_ms);
	api_metric(o, "gauge", "fabroute_reroute_in_progress", "1 while a reroute runs.", ps->busy);
}

static void readback_metrics(FILE *o, struct readback *rb)
{
	json_t *j = rb_json(rb);

	api_metric(o, "gauge", "fabroute_lft_drift_entries", "LFT entries the switches hold that differ "
		   "from the published tables (last read-back; -1 before the first complete one).",
		   (double)rb_drift(rb));
	api_metric(o, "gauge", "fabroute_lft_drift_switches", "Switches with such entries.",
		   (double)json_integer_value(json_object_get(j, "switches_drifting")));
	api_metric(o, "gauge", "fabroute_readback_unreadable_switches", "Switches whose LFT could not be read.",
		   (double)json_integer_value(json_object_get(j, "switches_unreadable")));
	json_decref(j);
}

static char *hook_metrics(void *ud)
{
	struct daemon *d = ud;
	struct store_health h;
	struct pipe_stats ps;
	struct srco_stats os = { 0 };
	struct epoch *e;
	unsigned top;
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);

	if (!o)
		return NULL;
	if (d->osm)
		srco_stats(d->osm, &os);
	pipe_stats(d->pipe, &ps);
	ps.requests += os.changes;	/* under OpenSM: passes that brought another topology */
	reroute_metrics(o, &ps);
	if (d->rb)
		readback_metrics(o, d->rb);
	if (d->fr)
		fr_metrics(o, d->fr);
	if (d->ha)
		ha_metrics(o, d->ha);
	api_osm_metrics(o, d->osm ? os.connected : -1, os.passes[SRCO_PASS_ROUTED], os.passes[SRCO_PASS_FALLBACK],
			os.passes[SRCO_PASS_TIMEOUT], os.passes[SRCO_PASS_ERROR]);
	if (d->osm)
		api_metric(o, "counter", "fabroute_osm_connections_refused_total", "Connections to the plugin "
			   "socket from users other than plugin_user and fabrouted's own, closed at once.",
			   (double)os.refused);
	pthread_mutex_lock(&d->cfg_mu);
	if (api_link_mode_parse(d->cfg.metrics_link_routes, &top))
		top = 0;
	pthread_mutex_unlock(&d->cfg_mu);
	e = epoch_slot_get(&d->slot);
	api_link_metrics(o, e, top);
	epoch_unref(e);
	api_metric(o, "gauge", "fabroute_uptime_seconds", "Time since fabrouted started.",
		   (double)(loop_now_ms() - d->start_ms) / 1e3);
	store_health(d->st, &h);
	api_metric(o, "gauge", "fabroute_store_ok", "1 while the database takes writes (0 after a failed "
		   "write, until one succeeds).", h.ok);
	api_metric(o, "gauge", "fabroute_store_full", "1 while the last store error was a full disk.", h.full);
	api_metric(o, "counter", "fabroute_store_errors_total", "Database errors since fabrouted started.",
		   (double)h.errors);
	if (fclose(o)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static json_t *hook_readback(void *ud)
{
	struct daemon *d = ud;

	return rb_json(d->rb);
}

static json_t *hook_ha(void *ud)
{
	struct daemon *d = ud;

	return d->ha ? ha_json(d->ha) : NULL;
}

struct api_hooks daemon_hooks(struct daemon *d)
{
	return (struct api_hooks){
		.ud = d, .epoch = hook_epoch, .reroute = hook_reroute, .engine = hook_engine,
		.fault = hook_fault, .faults = hook_faults, .config = hook_config,
		.status = hook_status, .metrics = hook_metrics, .readback = hook_readback,
		.ha = hook_ha, .whatif = daemon_hook_whatif,
	};
}
