/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabrouted configuration
 *
 * One table (config.c) lists every key with its type, default, range and
 * help. It drives the file parser, the command-line flags (every key is
 * also a flag: `holddown_ms` is `--holddown-ms`), `fabrouted --help`,
 * `fabrouted -n` (the canonical form) and `GET /api/config`.
 *
 * Precedence: defaults, then the file, then the flags. The file is plain
 * "key = value" lines; '#' starts a comment.
 */
#ifndef FABROUTE_DAEMON_CONFIG_H
#define FABROUTE_DAEMON_CONFIG_H

#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

#include "fabric/fabric.h"

/** Where fabrouted looks for its file when neither -c nor flags say otherwise. */
#define CONFIG_DEFAULT_PATH SYSCONFDIR "/fabroute/fabroute.conf"

enum cfg_origin { CFG_DEFAULT, CFG_FILE, CFG_FLAG };

/**
 * struct config - the effective settings (see the table in config.c)
 * @origin: where each key's value came from, in table order
 */
struct config {
	char *engine;
	char *engine_options;
	unsigned engine_timeout_s;
	unsigned engine_memory_mb;
	char *publish_policy;
	char *repair;
	unsigned rebalance_delay_s;
	unsigned rebalance_max_blocks;
	char *source;
	char *socket;
	char *plugin_user;
	char *topology;
	char *topology_format;
	char *engine_files_dir;
	unsigned topology_strict;
	char *node_name_map;
	char *db;
	char *listen;
	char *token_file;
	char *read_token_file;
	char *tls_cert, *tls_key;
	unsigned lmc;
	unsigned holddown_ms;
	unsigned snapshot_keep;
	unsigned snapshot_max_age_days;
	unsigned events_keep;
	char *log_level;
	unsigned api_threads;
	unsigned api_io_threads;
	unsigned api_client_queue;
	unsigned api_max_connections;
	unsigned api_max_connections_per_address;
	unsigned api_request_timeout_s;
	unsigned api_send_timeout_s;
	unsigned api_max_body;
	unsigned api_rate_limit;
	unsigned api_write_rate_limit;
	unsigned dashboard;
	char *metrics_link_routes;
	unsigned readback;
	unsigned readback_interval_s;
	char *readback_ca;
	unsigned readback_port;
	unsigned readback_rate;
	unsigned readback_timeout_ms;
	unsigned readback_retries;
	unsigned fast_repair;
	char *fast_repair_mkey;
	unsigned fast_repair_timeout_ms, fast_repair_window;
	char *replication;
	char *etcd_endpoints;
	char *etcd_prefix;
	char *node_name;
	unsigned etcd_timeout_ms;
	unsigned whatif_timeout_s;
	unsigned whatif_memory_mb;
	unsigned char origin[72];
};

/** config_defaults() - every key at its default. 0, or -1 when out of memory. */
int config_defaults(struct config *c);
void config_free(struct config *c);

/**
 * config_load_file() - read @path over @c
 * Return: 0, or -1 with @err "PATH:LINE: ..." (unknown key, bad value,
 * missing '='); @c may be partly updated then: load into a copy.
 */
int config_load_file(struct config *c, const char *path, struct fab_err *err);

/** config_load_text() - config_load_file() on NUL-terminated @text (modified) named @name. */
int config_load_text(struct config *c, char *text, const char *name, struct fab_err *err);

/**
 * config_set() - set one key from text (a flag or a file line)
 * Return: 0, 1 when @key is unknown, -1 with @err on a bad value.
 */
int config_set(struct config *c, const char *key, const char *val, enum cfg_origin origin,
	       struct fab_err *err);

/** config_check() - cross-key checks (listen address form, engine chain, source). */
int config_check(const struct config *c, struct fab_err *err);

/** config_write() - the canonical form: every key, "key = value", table order. */
void config_write(FILE *out, const struct config *c);
/** config_json() - {"key": value, ...} plus "origin": {"key": "default"|"file"|"flag"}. */
json_t *config_json(const struct config *c);
/** config_man() - the keys as roff .TP paragraphs, for fabrouted(8). */
void config_man(FILE *out);
/** config_help() - the keys as `--help` lists them. */
void config_help(FILE *out);

/** config_uid() - @user (a name or a number) as a uid; 0, or -1 with @err. */
int config_uid(const char *user, uid_t *uid, struct fab_err *err);

/** config_policy() - publish_policy's value as an enum eng_policy; -1 if unknown. */
int config_policy(const char *name);

/** config_restart_keys() - keys whose change needs a restart, changed from @a to @b ("" if none). */
void config_restart_keys(const struct config *a, const struct config *b, char *buf, size_t size);

/**
 * config_listen() - split c->listen ("ADDR:PORT" or "[V6]:PORT") into
 * @host (size @hsize) and *@port. 0, or -1 with @err.
 */
int config_listen(const char *listen, char *host, size_t hsize, unsigned *port, struct fab_err *err);

/** config_mkey() - parse an M_Key (0x hex or decimal) into *@mkey (may be NULL). 0, or -1. */
int config_mkey(const char *s, uint64_t *mkey);

#endif
