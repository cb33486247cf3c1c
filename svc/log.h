/* SPDX-License-Identifier: MIT */
/**
 * DOC: log
 *
 * fabrouted and its modules (api/, daemon/) log one line per message. Under
 * systemd (standard error is the journal stream named by $JOURNAL_STREAM)
 * each message goes to the journal with its priority and fields:
 * SYSLOG_IDENTIFIER=fabrouted, FABROUTE_TOPIC (the message's leading
 * "word:", such as opensm, read-back or rebalance) and whatever the caller
 * adds (FABROUTE_EPOCH=7), so `journalctl -u fabroute -p warning
 * FABROUTE_TOPIC=opensm` selects. Elsewhere (a terminal, a file) each line
 * starts with the local time and the level name. Messages above the
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
/**
 * log_fields() - log_msg() with journal fields: @fields is a NULL-terminated
 * list of "KEY=value" strings (KEY in capitals, FABROUTE_...), which only the
 * journal keeps.
 */
void log_fields(int level, const char *const *fields, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
