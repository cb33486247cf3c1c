/* SPDX-License-Identifier: MIT */
/**
 * DOC: daemon log
 *
 * The level and where lines go are the daemon's only process-wide settings;
 * they live here, not in the library. Where lines go is decided once, at the
 * first message: the journal (sd_journal_sendv(3)) when standard error is
 * the journal stream systemd gave the service, else standard error with a
 * timestamp. Each line is written with one call, so lines from several
 * threads never interleave. When the journal refuses a message, the line
 * goes to standard error with the "<N>" priority prefix journald reads.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

#include "svc/log.h"

#define LOG_FIELDS_MAX 8

static int log_level = LOG_INFO;
static int log_journal = -1;	/* -1: not decided yet */

static const char *const level_names[] = {
	[LOG_ERR] = "err", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

int log_level_parse(const char *name)
{
	for (int l = LOG_ERR; l <= LOG_DEBUG; l++)
		if (level_names[l] && strcmp(name, level_names[l]) == 0)
			return l;
	return -1;
}

const char *log_level_name(int level)
{
	return level >= LOG_ERR && level <= LOG_DEBUG ? level_names[level] : "?";
}

void log_set_level(int level)
{
	__atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
}

int log_get_level(void)
{
	return __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

/* Standard error is the stream $JOURNAL_STREAM ("DEVICE:INODE") names. */
static int stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
	       (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

static int to_journal(void)
{
	int j = __atomic_load_n(&log_journal, __ATOMIC_RELAXED);

	if (j < 0) {
		j = stderr_is_journal();
		__atomic_store_n(&log_journal, j, __ATOMIC_RELAXED);
	}
	return j;
}

/* "opensm" for "opensm: routing request 7 ...": a leading lower-case word and a colon. */
static size_t topic_len(const char *msg)
{
	size_t n = strspn(msg, "abcdefghijklmnopqrstuvwxyz-");

	return n && n < 24 && msg[n] == ':' && msg[n + 1] == ' ' ? n : 0;
}

static int journal_send(int level, const char *msg, const char *const *fields)
{
	char prio[16], topic[48];
	struct iovec iov[LOG_FIELDS_MAX + 4];
	size_t n = 0, tl = topic_len(msg);
	char *m = malloc(strlen(msg) + 9);
	int rc;

	if (!m)
		return -1;
	snprintf(prio, sizeof(prio), "PRIORITY=%d", level);
	snprintf(m, strlen(msg) + 9, "MESSAGE=%s", msg);
	iov[n++] = (struct iovec){ m, strlen(m) };
	iov[n++] = (struct iovec){ prio, strlen(prio) };
	iov[n++] = (struct iovec){ (void *)"SYSLOG_IDENTIFIER=fabrouted", 27 };
	if (tl) {
		snprintf(topic, sizeof(topic), "FABROUTE_TOPIC=%.*s", (int)tl, msg);
		iov[n++] = (struct iovec){ topic, strlen(topic) };
	}
	for (unsigned i = 0; fields && fields[i] && i < LOG_FIELDS_MAX; i++)
		iov[n++] = (struct iovec){ (void *)fields[i], strlen(fields[i]) };
	rc = sd_journal_sendv(iov, (int)n);
	free(m);
	return rc;
}

/* "2026-05-20T14:03:07.123+0200 notice: " */
static int stamp(char *buf, size_t size, int level)
{
	struct timespec ts;
	struct tm tm;
	char t[32], z[8];

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(z, sizeof(z), "%z", &tm);
	return snprintf(buf, size, "%s.%03ld%s %s: ", t, ts.tv_nsec / 1000000, z, log_level_name(level));
}

static void log_vmsg(int level, const char *const *fields, const char *fmt, va_list ap)
{
	char line[2048], msg[1900];
	int n;

	if (level > log_get_level())
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (to_journal() && journal_send(level, msg, fields) >= 0)
		return;
	n = to_journal() ? snprintf(line, sizeof(line), "<%d>", level) : stamp(line, sizeof(line), level);
	n += snprintf(line + n, sizeof(line) - (size_t)n - 1, "%s", msg);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;	/* nowhere left to say it */
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, NULL, fmt, ap);
	va_end(ap);
}

void log_fields(int level, const char *const *fields, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fields, fmt, ap);
	va_end(ap);
}
