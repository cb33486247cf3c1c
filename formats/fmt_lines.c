/* SPDX-License-Identifier: MIT */
/**
 * DOC: shared helpers of the parsers
 *
 * Reading a whole file with a size limit, iterating over lines, error
 * messages that name the file and the line, format names and detection;
 * telling the diagnostic lines the InfiniBand tools print among their
 * output (libibmad's IBWARN, libibnetdisc's IBND_ERROR, a tool's IBEXIT)
 * from the records, and reporting the lines a parser skipped.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "formats/formats.h"

const char *fmt_topo_name(enum fmt_topo fmt)
{
	switch (fmt) {
	case FMT_IBND:
		return "ibnetdiscover";
	case FMT_IBSIM:
		return "ibsim";
	case FMT_SUBNET:
		return "opensm-subnet";
	case FMT_AUTO:
		break;
	}
	return "auto";
}

int fmt_topo_from_name(const char *name)
{
	if (!strcmp(name, "ibnetdiscover") || !strcmp(name, "ibnd"))
		return FMT_IBND;
	if (!strcmp(name, "ibsim") || !strcmp(name, "net"))
		return FMT_IBSIM;
	if (!strcmp(name, "opensm-subnet") || !strcmp(name, "subnet"))
		return FMT_SUBNET;
	if (!strcmp(name, "auto"))
		return FMT_AUTO;
	return -1;
}

/* A quoted node id of ibnetdiscover: "S-", "H-" or "R-" and 16 hex digits. */
static int is_guid_id(const char *q)
{
	if ((q[0] != 'S' && q[0] != 'H' && q[0] != 'R') || q[1] != '-')
		return 0;
	for (int i = 2; i < 18; i++)
		if (!strchr("0123456789abcdefABCDEF", q[i]))
			return 0;
	return q[18] == '"';
}

/* The first line that is neither blank nor a comment starts a subnet-list record. */
static int subnet_list(const char *p, const char *end)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *s = p;

		while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		if (s < e && *s != '#')
			return e - s > 2 && s[0] == '{' && s[1] == ' ';
		p = e + 1;
	}
	return 0;
}

enum fmt_topo fmt_topo_detect(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	if (subnet_list(p, end))
		return FMT_SUBNET;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t n = (size_t)(e - p);

		if (n > 0 && (p[0] == 'S' || p[0] == 'C' || p[0] == 'H' || p[0] == 'R')) {
			const char *q = memchr(p, '"', n);

			if (q && (size_t)(e - q) > 19 && is_guid_id(q + 1))
				return FMT_IBND;
		}
		p = e + 1;
	}
	return FMT_IBSIM;
}

/* "4096-byte" or "16 MiB": a size limit as a person would write it. */
static const char *limit_text(size_t max, char *buf, size_t size)
{
	if (max >= 1u << 20 && !(max & ((1u << 20) - 1)))
		snprintf(buf, size, "%zu MiB", max >> 20);
	else
		snprintf(buf, size, "%zu-byte", max);
	return buf;
}

/* Read all of @fp; @hint is its size when known (a regular file), else 0. */
static int slurp(FILE *fp, const char *path, size_t max, size_t hint, char **buf, size_t *len,
		 struct fab_err *err)
{
	size_t cap = hint ? hint + 1 : 1 << 16, n = 0;
	char *b = malloc(cap + 1), lim[32];

	if (!b) {
		fab_err_set(err, "%s: out of memory", path);
		return -1;
	}
	for (;;) {
		size_t got = fread(b + n, 1, cap - n, fp);

		n += got;
		if (n > max) {
			fab_err_set(err, "%s: larger than the %s limit for this kind of file",
				    path, limit_text(max, lim, sizeof(lim)));
			free(b);
			return -1;
		}
		if (got == 0)
			break;
		if (n == cap) {
			char *nb = realloc(b, cap * 2 + 1);

			if (!nb) {
				fab_err_set(err, "%s: out of memory", path);
				free(b);
				return -1;
			}
			b = nb;
			cap *= 2;
		}
	}
	if (ferror(fp)) {
		fab_err_set(err, "%s: read error: %s", path, strerror(errno));
		free(b);
		return -1;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int fmt_check_size(const char *buf, size_t len, size_t max, const char *name,
		   struct fab_err *err)
{
	const char *nul;
	unsigned line = 1;
	char lim[32];

	if (len > max) {
		fab_err_set(err, "%s: %zu bytes, larger than the %s limit for this kind of file",
			    name, len, limit_text(max, lim, sizeof(lim)));
		return -1;
	}
	nul = memchr(buf, '\0', len);
	if (!nul)
		return 0;
	for (const char *p = buf; p < nul; p++)
		line += *p == '\n';
	fab_err_set(err, "%s:%u: binary data (NUL byte), expected a text file", name, line);
	return -1;
}

/* fmt_check_size() on a buffer read from a file, freeing it when refused. */
static int check_read(char **buf, size_t len, size_t max, const char *path, struct fab_err *err)
{
	if (fmt_check_size(*buf, len, max, path, err) == 0)
		return 0;
	free(*buf);
	*buf = NULL;
	return -1;
}

int fmt_read_file_max(const char *path, size_t max, char **buf, size_t *len,
		      struct fab_err *err)
{
	FILE *fp;
	struct stat st = { 0 };
	char lim[32];
	int rc;

	if (!strcmp(path, "-")) {
		if (slurp(stdin, "<stdin>", max, 0, buf, len, err))
			return -1;
		return check_read(buf, *len, max, "<stdin>", err);
	}
	fp = fopen(path, "rb");
	if (!fp) {
		fab_err_set(err, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(fp), &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			fab_err_set(err, "%s: is a directory, expected a file", path);
			fclose(fp);
			return -1;
		}
		if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
			fab_err_set(err, "%s: %lld bytes, larger than the %s limit for this kind of file",
				    path, (long long)st.st_size, limit_text(max, lim, sizeof(lim)));
			fclose(fp);
			return -1;
		}
	}
	rc = slurp(fp, path, max, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, buf, len, err);
	fclose(fp);
	if (rc)
		return -1;
	return check_read(buf, *len, max, path, err);
}

void fmt_lines_init(struct fmt_lines *it, const char *buf, size_t len, const char *name)
{
	memset(it, 0, sizeof(*it));
	it->buf = it->pos = buf;
	it->end = buf + len;
	it->name = name;
}

int fmt_lines_next(struct fmt_lines *it)
{
	const char *nl, *e;
	size_t n;

	if (it->pos >= it->end)
		return 0;
	nl = memchr(it->pos, '\n', (size_t)(it->end - it->pos));
	e = nl ? nl : it->end;
	n = (size_t)(e - it->pos);
	if (n && e[-1] == '\r')
		n--;
	if (n + 1 > it->cap) {
		size_t cap = n + 1 < 256 ? 256 : (n + 1) * 2;
		char *l = realloc(it->line, cap);

		if (!l)
			return -1;
		it->line = l;
		it->cap = cap;
	}
	memcpy(it->line, it->pos, n);
	it->line[n] = '\0';
	it->pos = nl ? nl + 1 : it->end;
	it->no++;
	return 1;
}

void fmt_lines_fini(struct fmt_lines *it)
{
	free(it->line);
	it->line = NULL;
	it->cap = 0;
}

void fmt_err_at(struct fab_err *err, const struct fmt_lines *it, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fab_err_set(err, "%s:%u: %s", it->name, it->no, msg);
}

/* --- diagnostic lines among the records ---------------------------------- */

/* @p starts with @w (case-insensitive) followed by one of @after. */
static const char *word_then(const char *p, const char *w, const char *after)
{
	size_t n = strlen(w);

	if (strncasecmp(p, w, n) || !p[n] || !strchr(after, p[n]))
		return NULL;
	return p + n + 1;
}

/* "[pid] fn: " (libibmad's IBVERBOSE). */
static int verbose_line(const char *p)
{
	if (*p++ != '[' || *p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p[0] != ']' || p[1] != ' ')
		return 0;
	for (p += 2; *p && *p != ' ' && *p != ':'; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return 0;
	return p[0] == ':' && p[1] == ' ';
}

/* "path/file.c:123; " (libibnetdisc's IBND_ERROR and IBND_DEBUG). */
static int source_line(const char *p)
{
	const char *c = strstr(p, ".c:");

	if (!c || c == p || memchr(p, ' ', (size_t)(c - p)) || memchr(p, '\t', (size_t)(c - p)))
		return 0;
	c += 3;
	if (*c < '0' || *c > '9')
		return 0;
	while (*c >= '0' && *c <= '9')
		c++;
	return c[0] == ';' && c[1] == ' ';
}

int fmt_diag_line(const char *line)
{
	static const char *const lib[] = { "ibwarn", "ibpanic", "ibdebug", "iberror", "ibinfo" };
	static const char *const level[] = { "warning", "warn", "error", "err", "fatal", "info" };
	const char *p = line, *c;

	for (size_t i = 0; i < sizeof(lib) / sizeof(lib[0]); i++)
		if (word_then(p, lib[i], ":"))
			return 1;
	for (size_t i = 0; i < sizeof(level) / sizeof(level[0]); i++)
		if (word_then(p, level[i], ":"))
			return 1;
	if ((p[0] == '-' && strchr("WEIF", p[1]) && p[2] == '-' && p[3] == ' '))
		return 1;	/* ibutils' "-W- ..." */
	c = strstr(p, ": iberror: ");
	if (c && c > p && !memchr(p, ' ', (size_t)(c - p)))
		return 1;	/* "ibnetdiscover: iberror: failed: ..." */
	return verbose_line(p) || source_line(p);
}

void fmt_skip(struct fmt_opts *opts, const struct fmt_lines *it, const char *what)
{
	char msg[512];

	if (!opts)
		return;
	if (opts->skipped++ >= FMT_WARN_MAX || !opts->warn)
		return;
	snprintf(msg, sizeof(msg), "%s:%u: skipped %s: '%.120s'%s", it->name, it->no, what,
		 it->line, strlen(it->line) > 120 ? "..." : "");
	opts->warn(opts->arg, msg);
}

void fmt_skip_end(struct fmt_opts *opts, const char *name)
{
	char msg[256];

	if (!opts || !opts->warn || opts->skipped <= FMT_WARN_MAX)
		return;
	snprintf(msg, sizeof(msg), "%s: skipped %u more lines like these", name,
		 opts->skipped - FMT_WARN_MAX);
	opts->warn(opts->arg, msg);
}
