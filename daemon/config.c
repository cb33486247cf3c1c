/* SPDX-License-Identifier: MIT */
/**
 * DOC: fabrouted configuration
 *
 * The table below is the single description of every key. Strings are
 * malloc'd copies; integers are checked against the key's range.
 */
#include <ctype.h>
#include <netdb.h>
#include <pwd.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api/server.h"
#include "daemon/config.h"
#include "daemon/engfiles.h"
#include "svc/log.h"
#include "engines/engine.h"
#include "formats/formats.h"
#include "gen/gen.h"

enum cfg_type { CFG_STR, CFG_UINT };

/**
 * struct cfg_key - one configuration key
 * @live: a change takes effect on SIGHUP (else it needs a restart)
 * @arg: what the value looks like, for --help
 */
struct cfg_key {
	const char *key;
	enum cfg_type type;
	size_t off;
	const char *def;
	unsigned min, max;
	int live;
	const char *arg;
	const char *help;
};

#define S(k) CFG_STR, offsetof(struct config, k)
#define U(k) CFG_UINT, offsetof(struct config, k)

static const struct cfg_key keys[] = {
	{ "engine", S(engine), FABROUTE_ENGINE_DEFAULT, 0, 0, 1, "CHAIN",
	  "engines to try in turn; the first that applies routes" },
	{ "engine_options", S(engine_options), "", 0, 0, 1, "ENG.K=V,...",
	  "engine options: ENG.K=V, or K=V for every engine of the chain that has K, separated by "
	  "commas or blanks; a list keeps its commas (updn.roots=s1,s2); each value is checked "
	  "against its type ('fabroute engines' lists them) and a bad one is refused by name" },
	{ "engine_timeout_s", U(engine_timeout_s), "60", 0, 86400, 1, "S",
	  "time each engine of the chain may take for one routing; one still running after it is "
	  "stopped and the chain's next engine routes (0: no bound). SIGTERM stops an engine at once" },
	{ "engine_memory_mb", U(engine_memory_mb), "2048", 0, 1048576, 1, "MB",
	  "memory an engine may plan to use (the path-based ones tell beforehand; one that needs more "
	  "does not apply and the chain's next engine routes; 0: no bound)" },
	{ "publish_policy", S(publish_policy), "proven", 0, 0, 1, "proven|connected|any",
	  "what a routing must be to be published and installed: proven (every pair connected, "
	  "switches included, and deadlock-free), connected, or any; one that falls short lets the "
	  "chain's next engine route (or, under OpenSM, OpenSM's)" },
	{ "repair", S(repair), "ftdlr", 0, 0, 1, "ftdlr|none",
	  "ftdlr: when a change only takes down or brings back links or switches of a fat tree "
	  "routed by ftree, sftree or ftdlr, publish at once the local repair of the last full "
	  "routing (dynamic local rerouting in k-ary n-trees) if it is proven, else route with the chain; none: always the chain" },
	{ "rebalance_delay_s", U(rebalance_delay_s), "30", 0, 86400, 1, "S",
	  "after this long without a change, compute the chain's routing for the repaired fabric "
	  "and adopt it if it connects at least as many pairs, every step from the repair to it "
	  "is deadlock-free while switches update one at a time, and it changes at most "
	  "rebalance_max_blocks LFT blocks (0: never rebalance)" },
	{ "rebalance_max_blocks", U(rebalance_max_blocks), "64", 0, 4000000000u, 1, "N",
	  "most 64-LID LFT blocks a rebalance may change; a larger one is declined and the repair "
	  "stays until the faults recover (which gives the last full routing back) or the next "
	  "change (0: no limit)" },
	{ "source", S(source), "file", 0, 0, 0, "file|opensm",
	  "where the topology comes from: file (a topology file, faults through the API) or opensm "
	  "(OpenSM's fabroute-osm plugin, through socket)" },
	{ "socket", S(socket), "/run/fabroute/osm.sock", 0, 0, 0, "PATH",
	  "with source opensm: the unix socket the plugin connects to" },
	{ "plugin_user", S(plugin_user), "root", 0, 0, 0, "USER",
	  "with source opensm: the user OpenSM runs as (a name or a uid); the socket takes connections "
	  "from it and from fabrouted's own user only (the peer's credentials), any other is closed at once" },
	{ "topology", S(topology), "gen:ft648", 0, 0, 1, "FILE|gen:FAMILY[:K=V,...]",
	  "topology file (ibnetdiscover or ibsim), or a generated fabric; re-read on SIGHUP" },
	{ "topology_format", S(topology_format), "auto", 0, 0, 1, "auto|ibnetdiscover|ibsim|opensm-subnet",
	  "format of the topology file" },
	{ "engine_files_dir", S(engine_files_dir), SYSCONFDIR "/fabroute/engines", 0, 0, 1, "DIR",
	  "the directory files named by engine options (dla.groups=FILE) must be in: a name relative "
	  "to it, or a path inside it; only regular files, read when the configuration is loaded or a "
	  "chain selected, at most 16 MiB and within 2 s each (empty: file options are refused)" },
	{ "topology_strict", U(topology_strict), "0", 0, 1, 1, "0|1",
	  "1: refuse a topology file with the diagnostic lines ibnetdiscover and its libraries "
	  "print among the records (ibwarn: ...); 0: skip them, each logged as a warning with its "
	  "file and line" },
	{ "node_name_map", S(node_name_map), "", 0, 0, 1, "PATH",
	  "node-name-map file (\"GUID NAME\" lines, the format of OpenSM's node_name_map_name and "
	  "the diags' --node-name-map): the nodes it lists carry its names in the API, events, "
	  "notes and output files (with source opensm, from OpenSM's next routing request on); "
	  "re-read on SIGHUP; empty: none" },
	{ "db", S(db), "/var/lib/fabroute/fabroute.db", 0, 0, 0, "PATH",
	  "SQLite database (created if missing)" },
	{ "listen", S(listen), "127.0.0.1:8577", 0, 0, 0, "ADDR:PORT",
	  "address and port of the REST API ([V6]:PORT for IPv6)" },
	{ "token_file", S(token_file), "", 0, 0, 1, "PATH",
	  "file holding the bearer token for POST requests (refused when group or others may read "
	  "or write it: chmod 600); empty: POSTs are refused" },
	{ "read_token_file", S(read_token_file), "", 0, 0, 1, "PATH",
	  "file holding the bearer token reads need (one word of 16 characters or more, chmod 600); "
	  "/api/health, /api/ready and the dashboard's files stay open, and the token_file token is good "
	  "for reads too. Empty: reads are open" },
	{ "tls_cert", S(tls_cert), "", 0, 0, 0, "PATH",
	  "PEM certificate (chain) to serve the API over HTTPS (with tls_key); empty: plain HTTP" },
	{ "tls_key", S(tls_key), "", 0, 0, 0, "PATH",
	  "PEM private key of tls_cert (chmod 600)" },
	{ "lmc", U(lmc), "0", 0, 7, 1, "0-7", "LMC given to CA ports that get a new LID" },
	{ "holddown_ms", U(holddown_ms), "50", 0, 60000, 1, "MS",
	  "least time between two reroutes; changes within it are coalesced into one" },
	{ "snapshot_keep", U(snapshot_keep), "100", 1, 1000000, 1, "N",
	  "snapshots kept in the database (the newest N)" },
	{ "snapshot_max_age_days", U(snapshot_max_age_days), "90", 0, 36500, 1, "DAYS",
	  "snapshots and events older than this are deleted (0: no age limit)" },
	{ "events_keep", U(events_keep), "100000", 0, 100000000, 1, "N",
	  "events kept in the database (the newest N; 0: no limit besides their age): a fault storm "
	  "cannot grow the event history without bound" },
	{ "log_level", S(log_level), "info", 0, 0, 1, "err|warning|notice|info|debug",
	  "messages up to this level go to stderr" },
	{ "api_threads", U(api_threads), "2", 1, 64, 0, "N",
	  "threads computing the API's answers; a client never holds more than half of them" },
	{ "api_io_threads", U(api_io_threads), "2", 1, 64, 0, "N",
	  "threads reading and writing HTTP connections; they also answer /api/health and /api/ready "
	  "at once" },
	{ "api_client_queue", U(api_client_queue), "8", 1, 4096, 0, "N",
	  "requests of one client admitted at a time (waiting for a thread, computed, or their "
	  "answers being sent); one more gets 429. A client is an address; every loopback address "
	  "is one client" },
	{ "api_max_connections", U(api_max_connections), "256", 1, 65536, 0, "N",
	  "concurrent HTTP connections; past seven eighths of them each new connection closes the "
	  "one that has waited longest for a request, so health checks always get in" },
	{ "api_max_connections_per_address", U(api_max_connections_per_address), "64", 0, 65536, 0, "N",
	  "concurrent HTTP connections of one client (every loopback address is one client; 0: no "
	  "limit); one more closes the client's connection that has waited longest for a request, "
	  "or is refused when all of them are being answered" },
	{ "api_request_timeout_s", U(api_request_timeout_s), "10", 1, 3600, 0, "S",
	  "time a client has to send a whole request, headers and body, from the connection's start "
	  "or the last answer (api_header_timeout_s is an older name)" },
	{ "api_send_timeout_s", U(api_send_timeout_s), "60", 1, 3600, 0, "S",
	  "time a client has to take an answer" },
	{ "api_max_body", U(api_max_body), "65536", 64, 16777216, 0, "BYTES",
	  "largest request body (413 beyond)" },
	{ "api_rate_limit", U(api_rate_limit), "0", 0, 10000000, 0, "N",
	  "requests per second per client address (0: no limit; 429 beyond)" },
	{ "api_write_rate_limit", U(api_write_rate_limit), "10", 0, 100000, 0, "N",
	  "POST requests per second per client address (0: no limit; 429 beyond); the token is "
	  "checked first, and POSTs without it count against a bucket of their own" },
	{ "dashboard", U(dashboard), "1", 0, 1, 0, "0|1",
	  "serve the web dashboard at / (the API is served either way)" },
	{ "metrics_link_routes", S(metrics_link_routes), "top:64", 0, 0, 1, "all|top:N|off",
	  "fabroute_link_routes in /metrics: a series per direction of every switch-to-switch link "
	  "(all: 64,000 series at 16,000 CAs), of the N busiest, or none; computed when an epoch "
	  "is published, not at the scrape" },
	{ "readback", U(readback), "1", 0, 1, 0, "0|1",
	  "with source opensm: read the LFTs back from the switches (directed-route SMPs, once OpenSM "
	  "says SUBNET UP; unreached switches retried, never counted as drift) and report drift" },
	{ "readback_interval_s", U(readback_interval_s), "300", 0, 86400, 0, "S",
	  "read every block of every switch this often; after a routing pass only the blocks it "
	  "changed are read (0: only after passes)" },
	{ "readback_ca", S(readback_ca), "", 0, 0, 0, "CA", "local HCA to send SMPs from (empty: the first)" },
	{ "readback_port", U(readback_port), "0", 0, 254, 0, "PORT", "its port (0: the first active)" },
	{ "readback_rate", U(readback_rate), "2000", 1, 1000000, 0, "N", "SMPs per second at most" },
	{ "readback_timeout_ms", U(readback_timeout_ms), "200", 10, 60000, 0, "MS", "SMP timeout" },
	{ "readback_retries", U(readback_retries), "3", 0, 20, 0, "N",
	  "SMP retries; a switch still silent is tried again 1, 2 and 4 s later" },
	{ "fast_repair", U(fast_repair), "1", 0, 1, 0, "0|1",
	  "with source opensm and repair = ftdlr: on a link-state trap, find the dead port, publish "
	  "the proven local repair and write its changed LFT blocks to the switches at once, from "
	  "readback_ca's port, without waiting for OpenSM's sweep (which then installs the same "
	  "tables); 0: repairs reach the switches with OpenSM's sweep" },
	{ "fast_repair_mkey", S(fast_repair_mkey), "0x0", 0, 0, 0, "MKEY",
	  "the M_Key the fast repair's SMPs carry: OpenSM's m_key (0 unless set)" },
	{ "fast_repair_timeout_ms", U(fast_repair_timeout_ms), "50", 1, 10000, 0, "MS",
	  "timeout of each fast repair SMP (a port query or an LFT block write), tried twice" },
	{ "fast_repair_window", U(fast_repair_window), "16", 1, 64, 0, "N",
	  "fast repair SMPs in flight at once: the port queries, and the LFT block writes of one "
	  "deadlock-free step (the next step starts once every switch has answered); 1: one at a "
	  "time" },
	{ "replication", S(replication), "none", 0, 0, 0, "none|etcd",
	  "with source opensm on two or three SM nodes: etcd replicates the master's routing "
	  "settings, base and epochs to the standbys, which keep a warm copy; the role follows "
	  "this node's OpenSM (doc/ha.md)" },
	{ "etcd_endpoints", S(etcd_endpoints), "", 0, 0, 0, "URL,...",
	  "the etcd members' client URLs (http://HOST:PORT, comma-separated)" },
	{ "etcd_prefix", S(etcd_prefix), "/fabroute/", 0, 0, 0, "PREFIX",
	  "the keys' prefix: the same on every node of one subnet" },
	{ "node_name", S(node_name), "", 0, 0, 0, "NAME",
	  "this SM node's name in the replication and the API (empty: the host name)" },
	{ "etcd_timeout_ms", U(etcd_timeout_ms), "1000", 50, 60000, 0, "MS",
	  "deadline of each etcd call" },
	{ "whatif_timeout_s", U(whatif_timeout_s), "60", 1, 3600, 1, "S",
	  "a what-if (POST /api/whatif) runs at most this long (504 beyond)" },
	{ "whatif_memory_mb", U(whatif_memory_mb), "2048", 0, 1048576, 1, "MB",
	  "memory a what-if may use beyond the daemon's own (0: no limit)" },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))
_Static_assert(NKEYS <= sizeof(((struct config *)0)->origin), "struct config: origin[] too small");

int config_mkey(const char *s, uint64_t *mkey)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		return -1;
	if (mkey)
		*mkey = v;
	return 0;
}

static char **str_at(struct config *c, const struct cfg_key *k)
{
	return (char **)((char *)c + k->off);
}

static unsigned *uint_at(struct config *c, const struct cfg_key *k)
{
	return (unsigned *)((char *)c + k->off);
}

/* Older names of keys, still accepted. */
static const char *const aliases[][2] = {
	{ "api_header_timeout_s", "api_request_timeout_s" },
};

static const struct cfg_key *find_key(const char *key)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(aliases[i][0], key) == 0)
			key = aliases[i][1];
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].key, key) == 0)
			return &keys[i];
	return NULL;
}

static int set_value(struct config *c, const struct cfg_key *k, const char *val, struct fab_err *err)
{
	if (k->type == CFG_STR) {
		json_t *utf8 = json_string(val);	/* NULL unless valid UTF-8 */
		char *dup = utf8 ? strdup(val) : NULL;

		json_decref(utf8);
		if (!utf8) {
			fab_err_set(err, "%s: the value is not valid UTF-8", k->key);
			return -1;
		}
		if (!dup) {
			fab_err_set(err, "out of memory");
			return -1;
		}
		free(*str_at(c, k));
		*str_at(c, k) = dup;
		return 0;
	}
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (!isdigit((unsigned char)val[0]) || *end || errno || v < k->min || v > k->max) {
		fab_err_set(err, "%s: expected an integer %u..%u, found '%s'", k->key, k->min, k->max, val);
		return -1;
	}
	*uint_at(c, k) = (unsigned)v;
	return 0;
}

int config_set(struct config *c, const char *key, const char *val, enum cfg_origin origin,
	       struct fab_err *err)
{
	const struct cfg_key *k = find_key(key);

	if (!k)
		return 1;
	if (k->type == CFG_STR && strcmp(key, "log_level") == 0 && log_level_parse(val) < 0) {
		fab_err_set(err, "log_level: expected err, warning, notice, info or debug, found '%s'", val);
		return -1;
	}
	if (set_value(c, k, val, err))
		return -1;
	c->origin[k - keys] = (unsigned char)origin;
	return 0;
}

int config_defaults(struct config *c)
{
	struct fab_err err;

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < NKEYS; i++)
		if (set_value(c, &keys[i], keys[i].def, &err))
			return -1;
	return 0;
}

void config_free(struct config *c)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].type == CFG_STR) {
			free(*str_at(c, &keys[i]));
			*str_at(c, &keys[i]) = NULL;
		}
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Cut a comment: '#' at the start of the line or after a blank; one inside a word is part of it. */
static void cut_comment(char *line)
{
	for (char *p = line; *p; p++)
		if (*p == '#' && (p == line || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			return;
		}
}

static int load_line(struct config *c, char *line, const char *path, unsigned no,
		     struct fab_err *err)
{
	char *eq, *key, *val;
	struct fab_err e2;
	int rc;

	cut_comment(line);
	key = trim(line);
	if (!*key)
		return 0;
	eq = strchr(key, '=');
	if (!eq) {
		fab_err_set(err, "%s:%u: expected 'key = value', found '%s'", path, no, key);
		return -1;
	}
	*eq = '\0';
	key = trim(key);
	val = trim(eq + 1);
	rc = config_set(c, key, val, CFG_FILE, &e2);
	if (rc > 0)
		fab_err_set(err, "%s:%u: unknown key '%s' (fabrouted --help lists the keys)", path, no, key);
	else if (rc < 0)
		fab_err_set(err, "%s:%u: %s", path, no, e2.msg);
	return rc ? -1 : 0;
}

int config_load_text(struct config *c, char *text, const char *name, struct fab_err *err)
{
	char *save = NULL, *line;
	unsigned no = 0;
	int rc = 0;

	/* strtok_r would skip empty lines and lose the numbering: split by hand */
	for (line = text; line && !rc; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		rc = load_line(c, line, name, ++no, err);
	}
	return rc;
}

int config_load_file(struct config *c, const char *path, struct fab_err *err)
{
	size_t len;
	char *text;
	int rc;

	if (fmt_read_file_max(path, 1u << 20, &text, &len, err))
		return -1;
	rc = config_load_text(c, text, path, err);
	free(text);
	return rc;
}

int config_listen(const char *listen, char *host, size_t hsize, unsigned *port, struct fab_err *err)
{
	const char *colon = strrchr(listen, ':'), *h = listen;
	size_t hl;
	char *end;
	unsigned long p;

	if (!colon)
		goto bad;
	hl = (size_t)(colon - listen);
	if (listen[0] == '[') {
		if (hl < 2 || colon[-1] != ']')
			goto bad;
		h++;
		hl -= 2;
	}
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (!hl || hl >= hsize || !isdigit((unsigned char)colon[1]) || *end || errno || p > 65535)
		goto bad;
	memcpy(host, h, hl);
	host[hl] = '\0';
	*port = (unsigned)p;
	return 0;
bad:
	fab_err_set(err, "listen: expected ADDR:PORT or [IPV6]:PORT, found '%s'", listen);
	return -1;
}

int config_policy(const char *name)
{
	static const char *const names[] = {
		[ENG_ACCEPT_ANY] = "any", [ENG_ACCEPT_CONNECTED] = "connected",
		[ENG_ACCEPT_PROVEN] = "proven",
	};

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

/* The listen address must be numeric: the server binds it as it is. */
static int check_listen_host(const char *host, struct fab_err *err)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM }, *ai;

	if (getaddrinfo(host, NULL, &hints, &ai)) {
		fab_err_set(err, "listen: '%s' is not a numeric IPv4 or IPv6 address (write 127.0.0.1, not "
			    "localhost)", host);
		return -1;
	}
	freeaddrinfo(ai);
	return 0;
}

/* "gen:FAMILY[:K=V,...]": a family and parameters the generator knows (values are checked when built). */
static int check_topology(const char *t, struct fab_err *err)
{
	const struct gen_family *g;
	char fam[64];
	size_t n;

	if (strncmp(t, "gen:", 4))
		return 0;
	t += 4;
	n = strcspn(t, ":");
	snprintf(fam, sizeof(fam), "%.*s", (int)n, t);
	if (!(g = gen_family_find(fam))) {
		fab_err_set(err, "topology: no generated family '%s' ('fabroute gen --list' lists them)", fam);
		return -1;
	}
	for (t += n; *t; ) {
		const struct gen_param *p = g->params;
		size_t kl;

		t++;
		kl = strcspn(t, "=,");
		while (p && p->name && (strlen(p->name) != kl || strncmp(p->name, t, kl)))
			p++;
		if (!p || !p->name) {
			fab_err_set(err, "topology: family %s has no parameter '%.*s' ('fabroute gen --list')",
				    fam, (int)kl, t);
			return -1;
		}
		t += strcspn(t, ",");
	}
	return 0;
}

int config_uid(const char *user, uid_t *uid, struct fab_err *err)
{
	struct passwd *pw;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(user, &end, 10);
	if (isdigit((unsigned char)user[0]) && !*end && !errno && v < (unsigned long)(uid_t)-1) {
		*uid = (uid_t)v;
		return 0;
	}
	if ((pw = getpwnam(user))) {
		*uid = pw->pw_uid;
		return 0;
	}
	fab_err_set(err, "plugin_user: no user '%s' (give OpenSM's user, a name or a uid)", user);
	return -1;
}

int config_check(const struct config *c, struct fab_err *err)
{
	char host[256];
	uid_t uid;
	unsigned port, top;

	if (strcmp(c->source, "file") != 0 && strcmp(c->source, "opensm") != 0) {
		fab_err_set(err, "source: expected file or opensm, found '%s'", c->source);
		return -1;
	}
	if (config_policy(c->publish_policy) < 0) {
		fab_err_set(err, "publish_policy: expected proven, connected or any, found '%s'",
			    c->publish_policy);
		return -1;
	}
	if (strcmp(c->repair, "ftdlr") != 0 && strcmp(c->repair, "none") != 0) {
		fab_err_set(err, "repair: expected ftdlr or none, found '%s'", c->repair);
		return -1;
	}
	if (api_link_mode_parse(c->metrics_link_routes, &top)) {
		fab_err_set(err, "metrics_link_routes: expected all, off or top:N (N 1 to 1000000), found '%s'",
			    c->metrics_link_routes);
		return -1;
	}
	if (strcmp(c->replication, "none") && strcmp(c->replication, "etcd")) {
		fab_err_set(err, "replication: expected none or etcd, found '%s'", c->replication);
		return -1;
	}
	if (!strcmp(c->replication, "etcd") && (!c->etcd_endpoints[0] || strcmp(c->source, "opensm"))) {
		fab_err_set(err, "replication = etcd: %s", !c->etcd_endpoints[0] ?
			    "etcd_endpoints must name the members" : "it needs source = opensm");
		return -1;
	}
	if (config_mkey(c->fast_repair_mkey, NULL) < 0) {
		fab_err_set(err, "fast_repair_mkey: expected a 64-bit number (0x... or decimal), "
			    "found '%s'", c->fast_repair_mkey);
		return -1;
	}
	if (fmt_topo_from_name(c->topology_format) < 0) {
		fab_err_set(err, "topology_format: expected auto, ibnetdiscover, ibsim or opensm-subnet, found '%s'",
			    c->topology_format);
		return -1;
	}
	if (!c->topology[0] || !c->db[0]) {
		fab_err_set(err, "%s: must not be empty", !c->topology[0] ? "topology" : "db");
		return -1;
	}
	if (config_listen(c->listen, host, sizeof(host), &port, err))
		return -1;
	if (check_listen_host(host, err) || check_topology(c->topology, err) ||
	    (!strcmp(c->source, "opensm") && config_uid(c->plugin_user, &uid, err)))
		return -1;
	if (!c->tls_cert[0] != !c->tls_key[0]) {
		fab_err_set(err, "%s: set tls_cert and tls_key together", c->tls_cert[0] ? "tls_key" : "tls_cert");
		return -1;
	}
	if (engf_check(c->engine_files_dir, c->engine, c->engine_options, err)) {
		struct fab_err why = *err;

		fab_err_set(err, "%s: %s", strncmp(why.msg, "no engine", 9) &&
			    strncmp(why.msg, "engine chain", 12) && strncmp(why.msg, "empty", 5) ?
			    "engine_options" : "engine", why.msg);
		return -1;
	}
	return 0;
}

void config_write(FILE *out, const struct config *c)
{
	for (size_t i = 0; i < NKEYS; i++) {
		const struct cfg_key *k = &keys[i];

		if (k->type == CFG_STR)
			fprintf(out, "%s = %s\n", k->key, *str_at((struct config *)c, k));
		else
			fprintf(out, "%s = %u\n", k->key, *uint_at((struct config *)c, k));
	}
}

json_t *config_json(const struct config *c)
{
	static const char *const origins[] = { "default", "file", "flag" };
	json_t *o = json_object(), *orig = json_object();

	for (size_t i = 0; i < NKEYS; i++) {
		const struct cfg_key *k = &keys[i];

		json_object_set_new(o, k->key, k->type == CFG_STR ?
				    json_string(*str_at((struct config *)c, k)) :
				    json_integer(*uint_at((struct config *)c, k)));
		json_object_set_new(orig, k->key, json_string(origins[c->origin[i]]));
	}
	json_object_set_new(o, "origin", orig);
	return o;
}

void config_help(FILE *out)
{
	for (size_t i = 0; i < NKEYS; i++) {
		const struct cfg_key *k = &keys[i];
		char flag[64];

		snprintf(flag, sizeof(flag), "--%s", k->key);
		for (char *p = flag; *p; p++)
			if (*p == '_')
				*p = '-';
		fprintf(out, "  %s %s\n      %s%s (default: %s)\n", flag, k->arg, k->help,
			k->live ? "" : "; needs a restart", k->def[0] ? k->def : "empty");
	}
}

/* @s for roff: backslashes and dashes escaped. */
static void roff(FILE *out, const char *s)
{
	for (; *s; s++)
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
}

void config_man(FILE *out)
{
	for (size_t i = 0; i < NKEYS; i++) {
		const struct cfg_key *k = &keys[i];

		fputs(".TP\n.BI ", out);
		roff(out, k->key);
		fputs(" \" = \" ", out);
		roff(out, k->arg);
		fputc('\n', out);
		roff(out, k->help);
		fputs(". Default: ", out);
		if (k->def[0]) {
			fputs("\\fB", out);
			roff(out, k->def);
			fputs("\\fR", out);
		} else {
			fputs("empty", out);
		}
		fputs(k->live ? "; changes on SIGHUP.\n" : "; changes need a restart.\n", out);
	}
}

void config_restart_keys(const struct config *a, const struct config *b, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NKEYS; i++) {
		const struct cfg_key *k = &keys[i];
		int same = k->type == CFG_STR ?
			strcmp(*str_at((struct config *)a, k), *str_at((struct config *)b, k)) == 0 :
			*uint_at((struct config *)a, k) == *uint_at((struct config *)b, k);

		if (!k->live && !same && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", k->key);
	}
}
