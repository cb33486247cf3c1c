/* SPDX-License-Identifier: MIT */
/**
 * DOC: libFuzzer harness for the daemon's input handling
 *
 * One source built twice, one target per input (see README.md):
 *
 *  -DFUZZ_CONFIG   the input as a fabrouted configuration file:
 *                  config_load_text() over the defaults; when it parses,
 *                  config_check(), config_write() and config_json(). The
 *                  canonical form config_write() prints must load back to
 *                  the same canonical form, and config_json() must hold
 *                  every key (a value jansson refuses would vanish from
 *                  GET /api/config);
 *  -DFUZZ_QUERY    the input as two query parameters, split at the first
 *                  NUL or newline: src and dst of GET /api/route and
 *                  /api/reachability/switches, the id of /api/nodes/{id}
 *                  and the type of /api/nodes, asked of a fixed routed
 *                  epoch (below).
 *
 * Each string reaches the code under test in an allocation of its exact
 * length plus the NUL, so reading past it is caught by AddressSanitizer.
 * Any crash, sanitizer report or leak is a finding, and so is an answer
 * that breaks what api/query.h promises: a query either returns JSON that
 * serialises, or fails with 400, 404 or 409, a known code and a message
 * that starts with the parameter's name (and is valid UTF-8, since it goes
 * out in a JSON string). A broken promise prints the strings and the
 * answer, then aborts.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A broken promise aborts, so that libFuzzer saves the input. With
 * FUZZ_API_LAX set in the environment, each distinct one (by its @why) is
 * reported once and the run goes on: to fuzz past a known finding.
 */
static int lax = -1;

/* 1 when the broken promise @why is to be reported now. */
static int should_report(const char *why)
{
	static const char *seen[64];
	static unsigned nseen;

	if (lax < 0)
		lax = getenv("FUZZ_API_LAX") != NULL;
	if (!lax)
		return 1;
	for (unsigned i = 0; i < nseen; i++)
		if (seen[i] == why)
			return 0;
	if (nseen < sizeof(seen) / sizeof(seen[0]))
		seen[nseen++] = why;
	fprintf(stderr, "FUZZ_API_LAX: first broken promise of its kind (the run goes on):\n");
	return 1;
}

/* After reporting: abort, unless FUZZ_API_LAX is set. */
static void broken(void)
{
	if (!lax)
		abort();
}

/* A malloc'd, NUL-terminated copy of @len bytes at @p. */
static char *dup_n(const void *p, size_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		abort();
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

/* Print @s for a report: printable ASCII as is, the rest as \xNN. */
static void print_escaped(const char *what, const char *s)
{
	fprintf(stderr, "%s: ", what);
	if (!s) {
		fprintf(stderr, "(null)\n");
		return;
	}
	fputc('"', stderr);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p >= 0x20 && *p < 0x7F && *p != '"' && *p != '\\')
			fputc(*p, stderr);
		else
			fprintf(stderr, "\\x%02x", *p);
	fprintf(stderr, "\" (%zu bytes)\n", strlen(s));
}

#ifdef FUZZ_CONFIG
/* ------------------------------------------------------------------------ */
#include "daemon/config.h"

static FILE *devnull;

/* config_write() of @c into memory; the caller frees. */
static char *canonical(const struct config *c)
{
	char *buf = NULL;
	size_t len;
	FILE *mf = open_memstream(&buf, &len);

	if (!mf)
		abort();
	config_write(mf, c);
	if (fclose(mf))
		abort();
	return buf;
}

/* The keys config_write() prints for the defaults: what config_json() must hold. */
static size_t nkeys(void)
{
	static size_t n;
	struct config c;
	char *text;

	if (n)
		return n;
	if (config_defaults(&c))
		abort();
	text = canonical(&c);
	for (const char *p = text; *p; p++)
		n += *p == '\n';
	free(text);
	config_free(&c);
	return n;
}

/*
 * The canonical form of a configuration that parsed must parse again, over
 * the defaults, to the same canonical form (what `fabrouted -n` promises).
 */
static void check_canonical(const struct config *c, const char *input)
{
	struct fab_err err = { { 0 } };
	struct config d;
	char *text = canonical(c), *copy = dup_n(text, strlen(text)), *again;

	if (config_defaults(&d))
		abort();
	if (config_load_text(&d, copy, "canonical", &err)) {
		static const char why[] = "the canonical form does not load back";

		if (should_report(why)) {
			print_escaped("input", input);
			fprintf(stderr, "%s: %s\n--- canonical:\n%s", why, err.msg, text);
			broken();
		}
	}
	again = canonical(&d);
	if (strcmp(text, again) != 0) {
		static const char why[] = "the canonical form changes when loaded back";

		if (should_report(why)) {
			print_escaped("input", input);
			fprintf(stderr, "%s\n--- first:\n%s--- again:\n%s", why, text, again);
			broken();
		}
	}
	free(again);
	free(copy);
	free(text);
	config_free(&d);
}

static void check_json(const struct config *c, const char *input)
{
	json_t *j = config_json(c);
	char *dump = j ? json_dumps(j, JSON_COMPACT) : NULL;
	size_t have = json_object_size(j) - (json_object_get(j, "origin") != NULL);

	if (!j || !dump || have != nkeys() || json_object_size(json_object_get(j, "origin")) != nkeys()) {
		static const char why[] = "config_json() does not hold every key";

		if (should_report(why)) {
			print_escaped("input", input);
			fprintf(stderr, "%s: %s, %zu of %zu keys (a value that is not valid UTF-8 is "
				"dropped by jansson)\n--- canonical:\n", why, !j ? "NULL" :
				!dump ? "does not serialise" : "keys missing", have, nkeys());
			config_write(stderr, c);
			broken();
		}
	}
	free(dump);
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fab_err err = { { 0 } };
	struct config c;
	char *text = dup_n(data, size), *orig = dup_n(data, size);

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	if (config_defaults(&c))
		abort();
	if (config_load_text(&c, text, "fuzz", &err) == 0) {
		struct fab_err cerr = { { 0 } };

		config_check(&c, &cerr);
		config_write(devnull, &c);
		check_json(&c, orig);
		check_canonical(&c, orig);
	} else if (!err.msg[0]) {
		static const char why[] = "config_load_text() failed without a message";

		if (should_report(why)) {
			print_escaped("input", orig);
			fprintf(stderr, "%s\n", why);
			broken();
		}
	}
	config_free(&c);
	free(text);
	free(orig);
	return 0;
}

#elif defined(FUZZ_QUERY)
/* ------------------------------------------------------------------------ */
#include "analysis/analysis.h"
#include "api/query.h"
#include "engines/engine.h"
#include "gen/gen.h"

/*
 * The epoch every input is asked of, built at the first input and kept
 * (read-only) for the whole run: the 2-ary 2-tree (leaf-00, leaf-01,
 * spine-00, spine-01, node-00 to node-03) with three changes so that every
 * kind of answer can be reached:
 *  - node-03 is described "node-02" too: the description is ambiguous (409);
 *  - node-01's only link is removed: a CA with no linked port, whose port
 *    GUID names an unlinked port (404);
 *  - LIDs are given anew with LMC 1: a CA's second LID names it too.
 * It is routed by "sftree,minhop" and evaluated with load, as the daemon
 * does, and must be ready (every pair delivered, deadlock-free).
 */
static const char *const fixed_family = "kary-ntree";
static const char *const fixed_kv[] = { "k=2", "n=2" };

static uint32_t node_named(const struct fabric *f, const char *desc)
{
	unsigned count = 0;
	uint32_t n = fab_node_by_desc(f, desc, &count);

	if (n == FAB_NONE) {
		fprintf(stderr, "the fixed fabric has no node '%s'\n", desc);
		abort();
	}
	return n;
}

static void fixed_fail(const char *what, const struct fab_err *err)
{
	fprintf(stderr, "the fixed epoch: %s: %s\n", what, err->msg);
	abort();
}

static const struct epoch *fixed_epoch(void)
{
	static struct epoch *e;
	struct fab_err err = { { 0 } };
	static const struct an_opts load = { .load = 1 };
	struct eng_chain chain;
	struct eng_req q = { .chain = &chain, .eval = &load };	/* the LIDs given, kept */
	struct eng_res out;
	struct api_err aerr;
	struct fabric *f;
	json_t *all;

	if (e)
		return e;
	f = gen_build(fixed_family, fixed_kv, 2, 1, &err);
	if (!f)
		fixed_fail("gen_build", &err);
	f->nodes[node_named(f, "node-03")].desc = f->nodes[node_named(f, "node-02")].desc;
	fab_link_remove(f, node_named(f, "node-01"), 1);
	if (fab_finalize(f, &err))
		fixed_fail("fab_finalize", &err);
	if (fab_lids_assign(f, NULL, 0, FAB_LIDS_RENEW, 1, &err))
		fixed_fail("fab_lids_assign", &err);
	if (!(e = epoch_new()))
		abort();
	q.fabric = f;
	if (eng_chain_parse(&chain, "sftree,minhop", NULL, 0, &err))
		fixed_fail("eng_chain_parse", &err);
	if (eng_run(&q, &out, &err) != ENG_OK)
		fixed_fail("eng_run", &err);
	fab_free(f);
	e->fabric = f = out.fabric;
	e->routing = out.routing;
	e->opts = out.eval_opts;
	e->report = out.report;
	e->seq = 1;
	e->published_ms = 1767225600123LL;
	snprintf(e->reason, sizeof(e->reason), "startup");
	snprintf(e->chain, sizeof(e->chain), "sftree,minhop");
	snprintf(e->engine, sizeof(e->engine), "%s", out.used->name);
	e->topo_hash = fab_topology_hash(f);
	if (!epoch_ready(e)) {
		fprintf(stderr, "the fixed epoch is not ready:\n%s\n", out.log);
		abort();
	}
	free(out.plan);
	eng_chain_free(&chain);
	/* every switch pair is delivered (once: it does not depend on the input) */
	all = apiq_reach_switches(e, NULL, NULL, &aerr);
	if (!all || !json_is_true(json_object_get(all, "complete"))) {
		fprintf(stderr, "the fixed epoch: switch reachability is not complete: %s\n",
			all ? "" : aerr.msg);
		abort();
	}
	json_decref(all);
	return e;
}

/* The strings under test, for the report of a broken promise. */
static const char *cur_src, *cur_dst;
/* FUZZ_API_VERBOSE set: print every answer (to replay an input by hand). */
static int verbose = -1;

static void report(const char *call, json_t *j, const struct api_err *err, const char *why)
{
	if (!should_report(why))
		return;
	print_escaped("src", cur_src);
	print_escaped("dst", cur_dst);
	fprintf(stderr, "%s: %s\n", call, why);
	if (j) {
		char *dump = json_dumps(j, JSON_COMPACT);

		fprintf(stderr, "answer: %s\n", dump ? dump : "(does not serialise)");
		free(dump);
	} else {
		fprintf(stderr, "error: status %d, code '%.32s', message ", err->status, err->code);
		print_escaped("", err->msg);
	}
	broken();
}

static int known_code(const char *code)
{
	static const char *const codes[] = {
		"bad_parameter", "missing_parameter", "not_found", "ambiguous", NULL,
	};

	for (unsigned i = 0; codes[i]; i++)
		if (strcmp(code, codes[i]) == 0)
			return 1;
	return 0;
}

/* @j (consumed) is JSON that serialises, or @err is a 400/404/409 about @param. */
static void expect(const char *call, json_t *j, const struct api_err *err, const char *param)
{
	size_t plen = strlen(param);
	json_t *ej;
	char *dump;

	if (verbose) {
		dump = j ? json_dumps(j, JSON_COMPACT) : NULL;
		fprintf(stderr, "%s: %d %s: %.200s\n", call, j ? 200 : err->status, j ? "ok" : err->code,
			j ? (dump ? dump : "(does not serialise)") : err->msg);
		free(dump);
	}
	if (j) {
		dump = json_dumps(j, JSON_COMPACT);
		if (!dump || !json_object_get(j, "epoch"))
			report(call, j, err, "the answer does not serialise or has no epoch");
		free(dump);
		json_decref(j);
		return;
	}
	if (err->status != 400 && err->status != 404 && err->status != 409)
		report(call, NULL, err, "status is not 400, 404 or 409");
	if (memchr(err->code, '\0', sizeof(err->code)) == NULL || !known_code(err->code))
		report(call, NULL, err, "unknown error code");
	if (memchr(err->msg, '\0', sizeof(err->msg)) == NULL || !err->msg[0])
		report(call, NULL, err, "empty or unterminated message");
	if (strncmp(err->msg, param, plen) != 0 || err->msg[plen] != ':')
		report(call, NULL, err, param[0] == 's' ? "the message does not start with 'src:'" :
		       param[0] == 'd' ? "the message does not start with 'dst:'" :
		       "the message does not start with the parameter's name");
	ej = api_err_json(err);
	dump = ej ? json_dumps(ej, JSON_COMPACT) : NULL;
	if (!dump)
		report(call, NULL, err, "api_err_json() gives no JSON (message not valid UTF-8?)");
	free(dump);
	json_decref(ej);
}

/* Which parameter an error of a (src, dst) query must name: the first not resolved. */
static const char *failing_param(const struct fabric *f, const char *src, const char *dst,
				 struct api_err *why)
{
	if (api_resolve(f, "src", src, why) == FAB_NONE)
		return "src";
	if (api_resolve(f, "dst", dst, why) == FAB_NONE)
		return "dst";
	return NULL;
}

static void check_route(const struct epoch *e, const char *src, const char *dst)
{
	struct api_err err = { 0 }, why = { 0 };
	const char *param = failing_param(e->fabric, src, dst, &why);
	json_t *j = apiq_route(e, src, dst, &err);

	if (!j && !param)
		report("apiq_route", NULL, &err, "failed although src and dst resolve");
	if (j && param)
		report("apiq_route", j, &why, "answered although a parameter does not resolve");
	if (j && !json_is_true(json_object_get(j, "delivered")))
		report("apiq_route", j, &err, "not delivered on a ready epoch");
	if (!j && (err.status != why.status || strcmp(err.code, why.code) || strcmp(err.msg, why.msg)))
		report("apiq_route", NULL, &err, "the error differs from api_resolve()'s");
	expect("apiq_route", j, &err, param ? param : "?");
}

/* GET /api/reachability/switches?src=&dst= */
static void check_reach(const struct epoch *e, const char *src, const char *dst)
{
	struct api_err err = { 0 }, why = { 0 };
	const char *param = failing_param(e->fabric, src, dst, &why);
	json_t *j = apiq_reach_switches(e, src, dst, &err);

	if (j && param)
		report("apiq_reach_switches", j, &why, "answered although a parameter does not resolve");
	if (j && !json_is_true(json_object_get(j, "reachable")))
		report("apiq_reach_switches", j, &err, "a switch pair is not reachable on a ready epoch");
	if (!j && !param) {
		/* both resolve: the error is the first that is not a switch */
		const struct fabric *f = e->fabric;
		uint32_t s = api_resolve(f, "src", src, &why), d = api_resolve(f, "dst", dst, &why);
		int ssw = f->nodes[f->eps[s].node].type == FAB_SWITCH;
		int dsw = f->nodes[f->eps[d].node].type == FAB_SWITCH;

		if (ssw && dsw)
			report("apiq_reach_switches", NULL, &err, "failed although both name switches");
		param = ssw ? "dst" : "src";
		if (err.status != 400 || strcmp(err.code, "bad_parameter"))
			report("apiq_reach_switches", NULL, &err, "a non-switch is not 400 bad_parameter");
	}
	expect("apiq_reach_switches", j, &err, param ? param : "?");
}

/* GET /api/reachability/switches?src= (no dst): always 400 about dst. */
static void check_reach_half(const struct epoch *e, const char *src)
{
	struct api_err err = { 0 };
	json_t *j = apiq_reach_switches(e, src, NULL, &err);

	if (j || err.status != 400 || strcmp(err.code, "missing_parameter"))
		report("apiq_reach_switches(src only)", j, &err, "expected 400 missing_parameter");
	expect("apiq_reach_switches(src only)", NULL, &err, "dst");
}

static void check_node(const struct epoch *e, const char *id)
{
	struct api_err err = { 0 };
	json_t *j = apiq_node(e, id, &err);

	expect("apiq_node", j, &err, "node");
}

static void check_nodes(const struct epoch *e, const char *type)
{
	struct api_err err = { 0 };
	json_t *j = apiq_nodes(e, type, &err);

	if (!j && (err.status != 400 || strcmp(err.code, "bad_parameter")))
		report("apiq_nodes", NULL, &err, "expected 400 bad_parameter");
	expect("apiq_nodes", j, &err, "type");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct epoch *e = fixed_epoch();
	const char *cut = memchr(data, '\n', size), *nul = memchr(data, '\0', size);
	size_t slen;
	char *src, *dst, *d;

	if (!cut || (nul && nul < cut))
		cut = nul;
	slen = cut ? (size_t)(cut - (const char *)data) : size;
	src = dup_n(data, slen);
	d = cut ? dup_n(cut + 1, size - slen - 1) : dup_n("", 0);
	/* dst ends at its first NUL, as a query string value would: copy that much exactly */
	dst = dup_n(d, strlen(d));
	free(d);
	cur_src = src;
	cur_dst = dst;
	if (verbose < 0)
		verbose = getenv("FUZZ_API_VERBOSE") != NULL;
	if (verbose) {
		print_escaped("src", src);
		print_escaped("dst", dst);
	}

	check_route(e, src, dst);
	check_reach(e, src, dst);
	check_reach(e, src, src);
	check_reach_half(e, src);
	check_node(e, src);
	check_nodes(e, src);

	free(src);
	free(dst);
	return 0;
}

#else
#error "define one of FUZZ_CONFIG, FUZZ_QUERY"
#endif
