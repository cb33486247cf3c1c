/* SPDX-License-Identifier: MIT */
/**
 * DOC: lfts_tool - rewrite an opensm-lfts.dump through fabroute's reader and writer
 *
 *   lfts_tool TOPOLOGY IN.dump OUT.dump [--shift]
 *
 * Reads the topology (ibnetdiscover or ibsim format) and IN.dump, and
 * writes OUT.dump with fmt_lfts_write(). With --shift, every route that
 * leaves a switch over one of several parallel links to the same neighbour
 * moves to the next link of that bundle (by port number, wrapping around):
 * the packets still reach the same neighbour, so the routing stays valid,
 * but the tables differ from the input wherever a bundle carries a route.
 * tests/sim/lfts_load.sh uses it to tell the tables OpenSM loaded from our
 * file apart from the ones it computes itself.
 *
 * Prints "moved N of M routes" with --shift. Exit status 0, or 1 with the
 * error on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"

/* The next port of switch node @node after @port that leads to the same neighbour, or @port. */
static unsigned next_in_bundle(const struct fabric *f, uint32_t node, unsigned port)
{
	const struct fab_port *p = fab_port(f, node, port);
	unsigned np = f->nodes[node].nports;

	for (unsigned i = 1; i < np; i++) {
		unsigned q = (port - 1 + i) % np + 1;

		if (fab_port(f, node, q)->peer == p->peer)
			return q;
	}
	return port;
}

/* Move routes onto parallel links; returns how many moved, *@total gets how many routes. */
static unsigned long shift(const struct fabric *f, struct rt_routing *r, unsigned long *total)
{
	unsigned long moved = 0;

	*total = 0;
	for (uint32_t s = 0; s < r->nswitches; s++) {
		uint32_t node = f->switches[s];
		uint8_t *lft = rt_lft(r, s);

		for (uint32_t lid = 0; lid < r->lft_len; lid++) {
			unsigned port = lft[lid], q;

			if (port == RT_NO_PORT)
				continue;
			++*total;
			if (port == 0 || port > f->nodes[node].nports ||
			    !fab_port_linked(f, node, port))
				continue;
			q = next_in_bundle(f, node, port);
			moved += q != port;
			lft[lid] = (uint8_t)q;
		}
	}
	return moved;
}

static int write_dump(const char *path, const struct fabric *f, const struct rt_routing *r)
{
	FILE *out = fopen(path, "w");
	int rc;

	if (!out) {
		fprintf(stderr, "lfts_tool: %s: cannot create: %s\n", path, strerror(errno));
		return -1;
	}
	rc = fmt_lfts_write(out, f, r);
	if (fclose(out) || rc) {
		fprintf(stderr, "lfts_tool: %s: write error: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int run(const char *topo, const char *in, const char *out, int do_shift)
{
	struct fab_err err = { { 0 } };
	struct fabric *f = fmt_topo_load(topo, FMT_AUTO, NULL, &err);
	struct rt_routing *r = NULL;
	unsigned long moved, total;
	char *buf = NULL;
	size_t len;
	int rc = -1;

	if (!f)
		goto fail;
	if (fmt_read_file(in, &buf, &len, &err))
		goto fail;
	r = fmt_lfts_parse(buf, len, in, f, &err);
	if (!r)
		goto fail;
	if (do_shift) {
		moved = shift(f, r, &total);
		printf("moved %lu of %lu routes\n", moved, total);
	}
	rc = write_dump(out, f, r);
	goto out;
fail:
	fprintf(stderr, "lfts_tool: %s\n", err.msg);
out:
	rt_free(r);
	free(buf);
	fab_free(f);
	return rc;
}

int main(int argc, char **argv)
{
	int do_shift = argc == 5 && !strcmp(argv[4], "--shift");

	if (argc != 4 && !do_shift) {
		fprintf(stderr, "usage: lfts_tool TOPOLOGY IN.dump OUT.dump [--shift]\n");
		return 1;
	}
	return run(argv[1], argv[2], argv[3], do_shift) ? 1 : 0;
}
