/* SPDX-License-Identifier: MIT */
/**
 * DOC: log
 *
 * fabrouted and its modules (api/, daemon/) log one line per message to stderr, prefixed with the
 * syslog level in the "<N>" form journald understands (sd-daemon(3)), so
 * `journalctl -p warning -u fabroute` filters by level. Messages above the
 * configured level are dropped.
 */
#ifndef FABROUTE_SVC_LOG_H
#define FABROUTE_SVC_LOG_H

#include <syslog.h>

/** log_level_parse() - "err", "warning", "notice", "info", "debug" -> LOG_*; -1 if unknown. */
int log_level_parse(const char *name);
const char *log_level_name(int level);
void log_set_level(int level);
int log_get_level(void);

void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
