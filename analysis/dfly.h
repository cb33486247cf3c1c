/* SPDX-License-Identifier: MIT */
/**
 * DOC: dragonfly metrics
 *
 * What papers/004 measures on a dragonfly, for any routing (dla's, or
 * OpenSM's engines' read from their dumps), given the groups
 * (fab_dfly_find()):
 *
 *  - hop histograms of CA-to-CA and switch-to-switch pairs, in
 *    switch-to-switch links crossed (0 for two CAs on one switch);
 *  - the shape of every path between two endpoints: [lc] gc [lc] between
 *    groups, at most one lc inside a group; pairs using two or more gcs;
 *  - flows per directed channel under uniform all-to-all CA traffic (each
 *    CA sends one flow to every other), by class: terminal (tc), local
 *    (lc, also per VL) and global (gc); papers/004 eqs. (1)-(3) give
 *    N-1, (ap)^2 and p^2 + 2ahp^2 for minimal routing;
 *  - the group shift +1: CA i of group G sends to CA i of group G+1 (CAs
 *    of a group in fabric order); the most pairs on one channel.
 *
 * Every pair is traced with an_trace() using the DLID and SL the routing
 * gives it, so VLs follow the SL2VL tables hop by hop. Cost: one trace per
 * ordered endpoint pair (9.4 M for 2550 CAs and 510 switches, a few
 * seconds); 64 bytes per port slot.
 */
#ifndef FABROUTE_ANALYSIS_DFLY_H
#define FABROUTE_ANALYSIS_DFLY_H

#include <jansson.h>

#include "analysis/analysis.h"
#include "fabric/dfly.h"

/* Hop histogram buckets: 0 .. AN_DF_HOPS-2 links, the last one for more. */
#define AN_DF_HOPS 8u

/**
 * struct an_df_flows - flows per directed channel of one class
 * @channels: directed channels of the class (both directions of a link)
 * @min, @max: fewest and most flows on one of them
 */
struct an_df_flows {
	uint32_t channels;
	uint64_t min, max;
};

/**
 * struct an_dfly - dragonfly metrics of a routing
 * @groups, @a, @h: the dragonfly
 * @ca_pairs, @sw_pairs: ordered CA-to-CA and switch-to-switch pairs
 * @ca_lost, @sw_lost: of those, pairs not delivered (not counted below)
 * @ca_hops, @sw_hops: delivered pairs by switch-to-switch links crossed
 * @ca_max_hops, @ca_avg_hops: longest and mean CA-to-CA path
 * @off_shape: delivered endpoint pairs (all classes) whose path is not
 *             [lc] gc [lc] between groups or [lc] inside a group
 * @multi_gc: delivered CA-to-CA pairs whose path takes two or more gcs
 * @tc, @lc, @gc: all-to-all CA flows per directed channel, by class
 * @lc_vl: the same per VL on local channels; @lc_vls: the VLs seen there
 * @shift_pairs, @shift_max: group shift +1 pairs, most on one channel
 */
struct an_dfly {
	uint32_t groups, a, h;
	uint64_t ca_pairs, sw_pairs, ca_lost, sw_lost;
	uint64_t ca_hops[AN_DF_HOPS], sw_hops[AN_DF_HOPS];
	uint32_t ca_max_hops;
	double ca_avg_hops;
	uint64_t off_shape, multi_gc;
	struct an_df_flows tc, lc, gc;
	struct an_df_flows lc_vl[AN_VLS];
	uint16_t lc_vls;
	uint64_t shift_pairs, shift_max;
};

/**
 * an_dfly_run() - the metrics of routing @r on dragonfly @f with groups @d
 * Return: 0, or -1 with @err set (out of memory, routing made for another
 * fabric); *@out is zeroed then.
 */
int an_dfly_run(const struct fabric *f, const struct rt_routing *r, const struct fab_dfly *d,
		struct an_dfly *out, struct fab_err *err);

/** an_json_dfly() - @m as JSON (doc/eval-json.md, "dragonfly"). */
json_t *an_json_dfly(const struct an_dfly *m);

#endif
