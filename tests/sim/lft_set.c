/* SPDX-License-Identifier: MIT */
/*
 * lft_set: program simulated switches without a subnet manager (TAP-free
 * helper of tests/sim/lidassign_sim.sh).
 *
 *   lft_set TOPOLOGY LFT_DUMP LOCAL_NODE
 *
 * Reads the topology (with the LIDs the switches already carry in ibsim)
 * and an opensm-lfts.dump, finds a directed route from LOCAL_NODE (the node
 * ibsim attaches this client to, by description) to every switch, and
 * sends each switch SubnSet(SwitchInfo) with LinearFDBTop = the top LID
 * and SubnSet(LinearForwardingTable) for every block up to it, then reads
 * every block back; then brings every linked port from Init to Armed to
 * Active (PortInfo read, PortState changed, written back), which an SM
 * would do and without which no LID-routed packet moves. Per-port LIDs and
 * LMCs stay as the net file gives them: no SM sweeps the fabric. Prints one
 * line per switch; exit 0 when every switch took its table and every port
 * its state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "formats/formats.h"

#define TIMEOUT_MS 500

/* Directed routes from @from: per node, its exit ports from @from (BFS over links). */
static int routes(const struct fabric *f, uint32_t from, uint8_t (*dr)[IB_SUBNET_PATH_HOPS_MAX],
		  uint8_t *len)
{
	uint32_t *q = malloc((size_t)f->nnodes * sizeof(*q)), head = 0, tail = 0;

	if (!q)
		return -1;
	memset(len, 0xff, f->nnodes);
	len[from] = 0;
	q[tail++] = from;
	while (head < tail) {
		uint32_t n = q[head++];

		if (n != from && f->nodes[n].type != FAB_SWITCH)
			continue;	/* a directed route goes through switches only */
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			uint32_t m = fab_port(f, n, p)->peer;

			if (m == FAB_NONE || len[m] != 0xff || len[n] + 1 >= IB_SUBNET_PATH_HOPS_MAX - 1)
				continue;
			memcpy(dr[m], dr[n], len[n]);
			dr[m][len[n]] = (uint8_t)p;
			len[m] = (uint8_t)(len[n] + 1);
			q[tail++] = m;
		}
	}
	free(q);
	return 0;
}

static void portid(ib_portid_t *id, const uint8_t *dr, uint8_t len)
{
	memset(id, 0, sizeof(*id));
	id->drpath.cnt = len;
	id->drpath.p[0] = 0;
	for (uint8_t i = 0; i < len; i++)
		id->drpath.p[i + 1] = dr[i];
	id->drpath.drslid = 0xffff;
	id->drpath.drdlid = 0xffff;
}

static int program(struct ibmad_port *port, const struct fabric *f, const struct rt_routing *r,
		   uint32_t sw, const ib_portid_t *id0)
{
	uint8_t buf[IB_SMP_DATA_SIZE], back[IB_SMP_DATA_SIZE];
	unsigned top = f->lid_top;
	ib_portid_t id = *id0;

	if (!smp_query_via(buf, &id, IB_ATTR_SWITCH_INFO, 0, TIMEOUT_MS, port))
		return -1;
	mad_set_field(buf, 0, IB_SW_LINEAR_FDB_TOP_F, top);
	if (!smp_set_via(buf, &id, IB_ATTR_SWITCH_INFO, 0, TIMEOUT_MS, port))
		return -1;
	for (unsigned b = 0; b * 64 <= top; b++) {
		memset(buf, 0, sizeof(buf));
		for (unsigned i = 0; i < 64; i++)
			buf[i] = rt_lft_get(r, sw, b * 64 + i);
		if (!smp_set_via(buf, &id, IB_ATTR_LINEARFORWTBL, b, TIMEOUT_MS, port) ||
		    !smp_query_via(back, &id, IB_ATTR_LINEARFORWTBL, b, TIMEOUT_MS, port) ||
		    memcmp(buf, back, 64))
			return -1;
	}
	return 0;
}

/* PortState of every linked port to @state (3 Armed, 4 Active); the count that failed. */
static unsigned set_state(struct ibmad_port *port, const struct fabric *f,
			  uint8_t (*dr)[IB_SUBNET_PATH_HOPS_MAX], const uint8_t *len, unsigned state)
{
	uint8_t buf[IB_SMP_DATA_SIZE];
	unsigned bad = 0;

	for (uint32_t n = 0; n < f->nnodes; n++)
		for (unsigned p = 1; p <= f->nodes[n].nports; p++) {
			ib_portid_t id;

			if (fab_port(f, n, p)->peer == FAB_NONE)
				continue;
			portid(&id, dr[n], len[n]);
			if (len[n] == 0xff ||
			    !smp_query_via(buf, &id, IB_ATTR_PORT_INFO, p, TIMEOUT_MS, port)) {
				bad++;
				continue;
			}
			if (mad_get_field(buf, 0, IB_PORT_STATE_F) >= state)
				continue;
			mad_set_field(buf, 0, IB_PORT_STATE_F, state);
			mad_set_field(buf, 0, IB_PORT_PHYS_STATE_F, 0);	/* no change */
			bad += !smp_set_via(buf, &id, IB_ATTR_PORT_INFO, p, TIMEOUT_MS, port);
		}
	return bad;
}

int main(int argc, char **argv)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS }, rc = 0;
	struct fab_err err = { { 0 } };
	struct fabric *f;
	struct rt_routing *r = NULL;
	struct ibmad_port *port;
	uint8_t (*dr)[IB_SUBNET_PATH_HOPS_MAX], *len;
	uint32_t local;
	char *buf;
	size_t blen;

	if (argc != 4) {
		fprintf(stderr, "usage: lft_set TOPOLOGY LFT_DUMP LOCAL_NODE\n");
		return 2;
	}
	f = fmt_topo_load(argv[1], FMT_AUTO, NULL, &err);
	if (f && !fmt_read_file_max(argv[2], FMT_DUMP_SIZE_MAX, &buf, &blen, &err)) {
		r = fmt_lfts_parse(buf, blen, argv[2], f, &err);
		free(buf);
	}
	if (!f || !r) {
		fprintf(stderr, "lft_set: %s\n", err.msg);
		return 1;
	}
	local = fab_node_by_desc(f, argv[3], NULL);
	dr = calloc(f->nnodes, sizeof(*dr));
	len = malloc(f->nnodes);
	port = mad_rpc_open_port(NULL, 0, classes, 2);
	if (local == FAB_NONE || !dr || !len || !port || routes(f, local, dr, len)) {
		fprintf(stderr, "lft_set: %s\n", local == FAB_NONE ? "no such local node" :
			port ? "out of memory" : "cannot open the MAD port");
		return 1;
	}
	mad_rpc_set_retries(port, 3);
	for (uint32_t s = 0; s < f->nswitches; s++) {
		uint32_t n = f->switches[s];
		ib_portid_t id;

		portid(&id, dr[n], len[n]);
		if (len[n] == 0xff || program(port, f, r, s, &id)) {
			printf("switch %s: FAILED\n", fab_desc(f, n));
			rc = 1;
		} else {
			printf("switch %s: %u blocks set and read back\n", fab_desc(f, n),
			       f->lid_top / 64 + 1);
		}
	}
	if (!rc) {
		unsigned bad = set_state(port, f, dr, len, 3);

		bad += set_state(port, f, dr, len, 4);
		printf("ports: %s\n", bad ? "some could not be made active" : "all active");
		rc = bad ? 1 : 0;
	}
	mad_rpc_close_port(port);
	free(dr);
	free(len);
	rt_free(r);
	fab_free(f);
	return rc;
}
