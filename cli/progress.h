/* SPDX-License-Identifier: MIT */
/*
 * Progress of long CLI steps: one line on standard error, rewritten in
 * place, shown only when standard error is a terminal and only once the
 * command has run for a second ("fabroute eval: evaluating 8100/18000
 * destinations (45%), 2.1 s"). Quick commands and scripts see nothing.
 *
 *	struct cli_progress *p = cli_progress_start("eval");
 *	cli_progress_step(p, "reading LFTs", "MiB");
 *	... cli_progress_cb(p, done_bytes, total_bytes) ...
 *	cli_progress_step(p, "evaluating", "destinations");
 *	... an_opts.progress = cli_progress_cb, .progress_arg = p ...
 *	cli_progress_end(p);	(before printing results on a terminal)
 *
 * Every function accepts NULL (what cli_progress_start() returns when
 * standard error is no terminal), and cli_progress_cb() may be called
 * from any thread.
 */
#ifndef FABROUTE_CLI_PROGRESS_H
#define FABROUTE_CLI_PROGRESS_H

#include <stdint.h>

struct cli_progress;

/* cli_progress_start() - progress of command @cmd; NULL when stderr is no terminal. */
struct cli_progress *cli_progress_start(const char *cmd);
/*
 * cli_progress_step() - a new step named @what (a string that outlives
 * the step); its counts are in @unit ("MiB": bytes shown in MiB; NULL: no
 * counts, the time alone).
 */
void cli_progress_step(struct cli_progress *p, const char *what, const char *unit);
/* cli_progress_cb() - @done of @total (0: unknown) in the current step; @arg is the progress. */
void cli_progress_cb(void *arg, uint64_t done, uint64_t total);
/* cli_progress_end() - stop and clear the line; frees @p. */
void cli_progress_end(struct cli_progress *p);

#endif
