/* SPDX-License-Identifier: MIT */
/**
 * DOC: directed-route SMPs from fabrouted's own port
 *
 * What the fast repair sends (daemon/fastrepair.c): PortInfo Get to learn
 * which ports of a switch went down, LinearForwardingTable Set to write
 * the repaired blocks. libibmad over libibumad, from a local HCA port of
 * fabrouted's own (not OpenSM's), with the subnet manager's M_Key, so the
 * SMPs never queue behind OpenSM's sweep. Every SMP is directed-routed
 * from the node that port belongs to, through switches only, over a fabric
 * the caller gives: one without the dead links, so no route crosses them.
 * Batches of SMPs go out a window at a time (smp_run(), smpwin.h).
 */
#ifndef FABROUTE_DAEMON_SMP_H
#define FABROUTE_DAEMON_SMP_H

#include <stdint.h>

#include "daemon/smpwin.h"
#include "fabric/fabric.h"

/* PortInfo PortState values. */
#define SMP_PORT_DOWN 1
#define SMP_PORT_INIT 2
#define SMP_PORT_ARMED 3
#define SMP_PORT_ACTIVE 4

/**
 * struct smp_opts - the local port and the SMPs' parameters
 * @ca, @port: the HCA port to send from ("" / 0: the first active)
 * @timeout_ms, @retries: per SMP
 * @window: smp_run()'s SMPs in flight at once (0 counts as 1)
 * @mkey: the M_Key the SMPs carry (the subnet manager's: OpenSM's m_key)
 */
struct smp_opts {
	const char *ca;
	unsigned port, timeout_ms, retries, window;
	uint64_t mkey;
};

struct smp;
struct smp_routes;

/** smp_open() - open the MAD port. NULL with @err. */
struct smp *smp_open(const struct smp_opts *o, struct fab_err *err);
void smp_close(struct smp *s);
/** smp_port_guid() - the GUID of the port the SMPs leave from. */
uint64_t smp_port_guid(const struct smp *s);

/**
 * smp_routes() - directed routes over @f from the node of port GUID @from
 * to every node (shortest, through switches only, ports in ascending order)
 * Return: the routes (free with smp_routes_free()), or NULL with @err (the
 * port is not in @f, out of memory).
 */
struct smp_routes *smp_routes(const struct fabric *f, uint64_t from, struct fab_err *err);
void smp_routes_free(struct smp_routes *r);
/**
 * smp_route_entry() - the last hop of the route to @node over @f (the
 * fabric the routes were computed on): *@prev, the node before it, and
 * *@port, its port out to @node. -1 when @node has no route or is the
 * local node.
 */
int smp_route_entry(const struct smp_routes *r, const struct fabric *f, uint32_t node,
		    uint32_t *prev, unsigned *port);
/** smp_reaches() - node @node of the routes' fabric has a route. */
int smp_reaches(const struct smp_routes *r, uint32_t node);

/**
 * smp_dest() - the directed route to node @node in @r as libibmad's port ID
 * Return: 0, or -1 with @err (no route).
 */
int smp_dest(const struct smp_routes *r, uint32_t node, ib_portid_t *id, struct fab_err *err);

/**
 * smp_run() - send the @n SMPs of @reqs, the options' window in flight,
 * each with the options' timeout, retries and M_Key
 * @fail_fast: stop at the first SMP given up (what was in flight may still
 *             land; nothing more is sent)
 * Return: 0 when every SMP was answered, -1 when one was not (see each
 * @done: the caller names it). Counts into @st.
 */
int smp_run(struct smp *s, struct smpw_req *reqs, size_t n, int fail_fast, struct smpw_stats *st);

/** smp_lft_get() - read LFT block @block of switch node @node into @lids. 0, or -1 with @err. */
int smp_lft_get(struct smp *s, const struct smp_routes *r, uint32_t node, unsigned block,
		uint8_t lids[64], struct fab_err *err);

#endif
