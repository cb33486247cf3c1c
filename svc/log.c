/* SPDX-License-Identifier: MIT */
/**
 * DOC: daemon log
 *
 * The level is the daemon's only process-wide setting; it lives here, not
 * in the library. Each line is written with one write(2) so lines from
 * several threads never interleave.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "svc/log.h"

static int log_level = LOG_INFO;

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

void log_msg(int level, const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	int n;

	if (level > log_get_level())
		return;
	n = snprintf(line, sizeof(line), "<%d>", level);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;	/* nowhere left to say it */
}
