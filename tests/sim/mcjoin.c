/* SPDX-License-Identifier: MIT */
/**
 * DOC: mcjoin - join a multicast group through the SA, as IPoIB does
 *
 *   mcjoin [MGID]
 *
 * Sends an SA MCMemberRecord Set (join) for MGID (default: the IPv4
 * broadcast group of the default partition, ff12:401b:ffff::ffff:ffff,
 * which OpenSM creates at start) as a full member, from the first local
 * port (under ibsim: the node SIM_HOST names). The SM adds the port to the
 * group and routes the group's spanning tree through the switches'
 * multicast tables, which is what tests/sim/osm_mcast.sh compares with and
 * without the fabroute engine.
 *
 * Prints "joined MGID as LID L: MLID 0xc000" and exits 0, or prints the
 * failure on stderr and exits 1.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#define MCJOIN_TIMEOUT_MS 2000
/* MCMemberRecord component mask: MGID, PortGID, JoinState */
#define MCJOIN_MASK ((1ull << 0) | (1ull << 1) | (1ull << 16))

static int join(struct ibmad_port *port, ib_portid_t *sm, const uint8_t mgid[16], const uint8_t gid[16],
		unsigned *mlid)
{
	uint8_t buf[IB_SA_DATA_SIZE] = { 0 };
	ib_sa_call_t sa = { .method = IB_MAD_METHOD_SET, .attrid = IB_SA_ATTR_MCRECORD, .mask = MCJOIN_MASK };

	mad_encode_field(buf, IB_SA_MCM_MGID_F, (void *)mgid);
	mad_encode_field(buf, IB_SA_MCM_PORTGID_F, (void *)gid);
	mad_set_field(buf, 0, IB_SA_MCM_JOIN_STATE_F, 1);	/* full member */
	sa.trid = mad_trid();
	if (!sa_rpc_call(port, buf, sm, &sa, MCJOIN_TIMEOUT_MS))
		return -1;
	*mlid = mad_get_field(buf, 0, IB_SA_MCM_MLID_F);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mgid_text = argc > 1 ? argv[1] : "ff12:401b:ffff::ffff:ffff";
	int classes[] = { IB_SA_CLASS };
	uint8_t mgid[16], gid[16];
	ib_portid_t sm = { 0 };
	struct ibmad_port *port;
	umad_port_t local;
	unsigned mlid = 0;
	int rc = 1;

	if (argc > 2 || inet_pton(AF_INET6, mgid_text, mgid) != 1) {
		fprintf(stderr, "usage: mcjoin [MGID]   (an IPv6-style GID, default ff12:401b:ffff::ffff:ffff)\n");
		return 2;
	}
	if (umad_get_port(NULL, 0, &local) < 0) {
		fprintf(stderr, "mcjoin: no local InfiniBand port\n");
		return 1;
	}
	memcpy(gid, &local.gid_prefix, 8);	/* both in network order */
	memcpy(gid + 8, &local.port_guid, 8);
	port = mad_rpc_open_port(NULL, 0, classes, 1);
	if (!port)
		fprintf(stderr, "mcjoin: cannot open the port for SA queries\n");
	else if (!(sm.lid = local.sm_lid))
		fprintf(stderr, "mcjoin: the port knows no SM yet (SM LID 0)\n");
	else if (join(port, &sm, mgid, gid, &mlid))
		fprintf(stderr, "mcjoin: the SA refused or did not answer the join of %s\n", mgid_text);
	else {
		printf("joined %s as LID %u: MLID 0x%04x\n", mgid_text, local.base_lid, mlid);
		rc = 0;
	}
	if (port)
		mad_rpc_close_port(port);
	umad_release_port(&local);
	return rc;
}
