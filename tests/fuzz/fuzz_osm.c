/* SPDX-License-Identifier: MIT */
/**
 * DOC: libFuzzer harness for the subnet a route request carries
 *
 * fabrouted decodes the node, port and link records the OpenSM plugin sends
 * (doc/osm-protocol.md, srco_subnet_fabric()) from a peer it does not
 * trust. The input: three big-endian 16-bit record counts (nodes, ports,
 * links), then the payload. When the records make a fabric, an answer is
 * built for it as for a routing (srco_routing_answer() over an empty
 * routing) and its LFT section must hold every switch. Any crash,
 * sanitizer report or leak is a finding; so is a fabric whose counts are
 * not the input's, or a refusal without a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "daemon/source_osm.h"
#include "opensm/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void broken(const char *why, const struct fabric *f)
{
	fprintf(stderr, "fuzz_osm: %s (%u nodes, %u links)\n", why, f ? f->nnodes : 0, f ? f->nlinks : 0);
	abort();
}

/* Build the answer for @f as for a routing that routes nothing; check its LFT section. */
static void answer(struct fabric *f)
{
	struct epoch *e = epoch_new();
	struct fab_err err = { { 0 } };
	struct srco_answer a;
	json_t *id = json_integer(1);

	if (!e || !id)
		abort();
	e->fabric = f;
	e->routing = rt_new(f);
	if (!e->routing)
		abort();
	if (srco_routing_answer(e, id, &a, &err) == 0) {
		if (json_array_size(json_object_get(a.msg, "lfts")) != f->nswitches ||
		    a.iov[0].iov_len != (size_t)f->nswitches * e->routing->lft_len)
			broken("the answer's LFT section does not hold every switch", f);
		srco_answer_free(&a);
	} else if (!err.msg[0]) {
		broken("srco_routing_answer() failed without a message", f);
	}
	json_decref(id);
	epoch_unref(e);	/* frees the fabric and the routing */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fab_err err = { { 0 } };
	struct fabric *f;
	uint8_t *pay;
	json_t *subnet;

	if (size < 6)
		return 0;
	subnet = json_pack("{s:s, s:i, s:i, s:i}", "sm_port_guid", "0x1", "nodes", (int)osmp_get16(data),
			   "ports", (int)osmp_get16(data + 2), "links", (int)osmp_get16(data + 4));
	pay = malloc(size - 6 + 1);	/* its exact length: reading past it is caught */
	if (!subnet || !pay)
		abort();
	memcpy(pay, data + 6, size - 6);
	f = srco_subnet_fabric(subnet, pay, size - 6, &err);
	if (f && f->nnodes != osmp_get16(data))
		broken("a fabric of another node count than the request's", f);
	if (!f && !err.msg[0])
		broken("srco_subnet_fabric() refused the subnet without a message", NULL);
	if (f)
		answer(f);
	free(pay);
	json_decref(subnet);
	return 0;
}
