/* SPDX-License-Identifier: MIT */
/**
 * DOC: the fast repair under OpenSM
 *
 * OpenSM finds out which port went down only in its heavy sweep, and asks
 * its routing engine only after discovering the whole subnet again:
 * hundreds of milliseconds at 648 ports, seconds at 5,000. The fast repair
 * does not wait for it. On a link-state trap (128, which names the switch;
 * 129-131 never reach an event plugin) the plugin's event reaches
 * fabrouted, and a thread of this module
 *
 *  1. asks the switch for the state of each port the routing in force
 *     links (PortInfo Get over fabrouted's own MAD port, directed routes);
 *  2. takes the ports found down out of the fabric in force and has the
 *     pipeline publish the repair of the base for it (pipe_repair_fabric():
 *     eng_run() in ENG_MODE_REPAIR, proven before it is published,
 *     incrementally from the evaluation of the routing in force);
 *  3. writes only the LFT blocks that differ from the routing in force,
 *     step by step as ftdlr_stages() orders them (every step is
 *     deadlock-free whatever order its switches take), over directed routes
 *     that avoid the dead links, with the subnet manager's M_Key;
 *  4. records a "repair_fast" event (switches, blocks, the time from the
 *     trap to the last write) and the time in a histogram.
 *
 * OpenSM's sweep that follows asks fabrouted for the routing of the same
 * fabric and gets the same repair, so it changes no entry (it resends the
 * blocks of the two end switches, whose PortStateChange makes it rewrite
 * them, with the same content). Traps that arrive while one is handled are
 * handled together. Anything the fast path cannot do (no routing in force,
 * switches that do not hold it, no port found down, a port that came back,
 * a repair refused, an SMP not answered) leaves the fault to OpenSM's sweep
 * exactly as without it.
 */
#ifndef FABROUTE_DAEMON_FASTREPAIR_H
#define FABROUTE_DAEMON_FASTREPAIR_H

#include <stdint.h>
#include <stdio.h>

#include "daemon/pipeline.h"
#include "daemon/smp.h"
#include "store/store.h"
#include "svc/epoch.h"

/** Upper bounds (ms) of the trap-to-last-write histogram; the last bucket is +Inf. */
#define FR_HIST_BOUNDS { 1, 2, 5, 10, 20, 50, 100, 250, 500, 1000, 2500 }
#define FR_HIST_N 11

/**
 * struct fr_stats - what the fast path did
 * @traps: link-state traps heard; @repairs: repairs written
 * @refused: traps left to OpenSM's sweep (nothing down, repair refused, ...)
 * @failed: repairs whose writing failed (an SMP not answered)
 * @hist, @sum_ms: time from the trap to the last write of each repair
 */
struct fr_stats {
	uint64_t traps, repairs, refused, failed;
	uint64_t hist[FR_HIST_N + 1];
	double sum_ms;
};

struct fastrep;

/** fr_start() - start the fast repair's thread; the MAD port opens on the first trap. NULL with @err. */
struct fastrep *fr_start(const struct smp_opts *o, struct pipeline *p, struct epoch_slot *slot,
			 struct store *st, struct fab_err *err);
void fr_stop(struct fastrep *fr);

/** fr_trap() - trap @trap about the port(s) of LID @lid (thread-safe, returns at once). */
void fr_trap(struct fastrep *fr, unsigned trap, unsigned lid);

/**
 * fr_installed() - OpenSM installed epoch @seq in the switches (a routed
 * pass), or 0: it installed its own engine's tables. The fast path writes
 * only over tables the switches are known to hold: the epoch OpenSM last
 * installed, or the repair it wrote itself since (thread-safe).
 */
void fr_installed(struct fastrep *fr, uint64_t seq);

void fr_stats(struct fastrep *fr, struct fr_stats *out);

/** fr_metrics() - the fast repair's part of /metrics. */
void fr_metrics(FILE *o, struct fastrep *fr);

#endif
