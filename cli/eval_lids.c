/* SPDX-License-Identifier: MIT */
/**
 * DOC: LIDs for a topology discovered before the SM ran
 *
 * ibnetdiscover run before the subnet manager prints every LID as 0: a
 * routing evaluated on such a topology would find no pair delivered. The
 * LFT dump knows the LIDs, though: OpenSM annotates every entry with the
 * port GUID the LID belongs to ("0x0005 001 # Channel Adapter portguid
 * 0x...: 'node-00'"), and so do ibroute and dump_fts ("0x0005 001 :
 * (Channel Adapter portguid 0x...: 'node-00')", "(path #2 out of 2:
 * portguid 0x...)"). eval_lids_from_dump() reads those annotations, block
 * by block until every endpoint without a LID has been named, and gives
 * each such endpoint the LID range its port GUID covers (the LMC from the
 * range's size). It refuses, saying why, when the routing is opensm.fdbs
 * (no port GUIDs), comes from standard input (it cannot be read twice), or
 * names no LID for some endpoint.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/** struct dump_lids - per endpoint, the lowest and highest LID the annotations give it */
struct dump_lids {
	uint16_t *lo, *hi;	/* lo 0: not named */
	uint8_t *missing;	/* the endpoint has no LID in the topology */
	uint32_t nmissing, named;
};

/* One line of the dump: note the LID of an annotated entry. */
static void note_line(const struct fabric *f, struct dump_lids *d, const char *line)
{
	const char *g;
	unsigned long lid;
	uint64_t guid;
	uint32_t ep;
	char *end;

	while (*line == ' ' || *line == '\t')
		line++;
	if (strncmp(line, "0x", 2))
		return;
	lid = strtoul(line + 2, &end, 16);
	g = strstr(end, "portguid 0x");
	if (lid == 0 || lid > FAB_LID_UCAST_MAX || !g)
		return;
	guid = strtoull(g + 11, NULL, 16);
	ep = fab_ep_by_port_guid(f, guid);
	if (ep == FAB_NONE || !d->missing[ep])
		return;
	if (!d->lo[ep]) {
		d->named++;
		d->lo[ep] = d->hi[ep] = (uint16_t)lid;
	}
	d->lo[ep] = lid < d->lo[ep] ? (uint16_t)lid : d->lo[ep];
	d->hi[ep] = lid > d->hi[ep] ? (uint16_t)lid : d->hi[ep];
}

/* Read @path until every missing endpoint is named at the end of a block; 0 or -1 (errno). */
static int scan(const struct fabric *f, const char *path, struct dump_lids *d)
{
	FILE *in = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	if (!in)
		return -1;
	while (getline(&line, &cap, in) >= 0) {
		note_line(f, d, line);
		if (strstr(line, "lids dumped") && d->named == d->nmissing)
			break;
	}
	if (ferror(in))
		rc = -1;
	free(line);
	fclose(in);
	return rc;
}

/* The smallest LMC whose aligned range from @lo covers @hi; -1 when none does. */
static int range_lmc(unsigned lo, unsigned hi)
{
	for (int l = 0; l <= (int)FAB_LMC_MAX; l++)
		if (lo % (1u << l) == 0 && lo + (1u << l) - 1 >= hi)
			return l;
	return -1;
}

/* The pins of the named endpoints; CLI_OK, or CLI_INPUT after a message. */
static int make_pins(const struct fabric *f, const struct dump_lids *d, const char *topo, const char *lfts,
		     struct fab_lid_pin *pins, size_t *npins)
{
	*npins = 0;
	for (uint32_t ep = 0; ep < f->neps; ep++) {
		const struct fab_ep *e = &f->eps[ep];
		int lmc = d->missing[ep] ? range_lmc(d->lo[ep], d->hi[ep]) : 0;

		if (!d->missing[ep])
			continue;
		if (!d->lo[ep] || lmc < 0) {
			cli_err("%s has no LIDs (ibnetdiscover ran before the SM assigned them?) and the "
				"annotations of %s %s '%s' port %u (port GUID 0x%016" PRIx64 "): give the LIDs "
				"with --guid2lid FILE (OpenSM's guid2lid)", topo, lfts,
				d->lo[ep] ? "give no aligned LID range to" : "name no LID for", FAB_LABEL(f, e->node),
				e->port, fab_port(f, e->node, e->port)->guid);
			return CLI_INPUT;
		}
		pins[(*npins)++] = (struct fab_lid_pin){ .guid = fab_port(f, e->node, e->port)->guid,
							 .lid = d->lo[ep], .lmc = (uint8_t)lmc };
	}
	return CLI_OK;
}

int eval_lids_from_dump(struct fabric *f, const char *topo, const char *lfts)
{
	struct dump_lids d = { 0 };
	struct fab_lid_pin *pins = NULL;
	struct fab_err err = { { 0 } };
	size_t npins = 0;
	int rc = CLI_INPUT;

	for (uint32_t ep = 0; ep < f->neps; ep++)
		d.nmissing += fab_ep_lid(f, ep) == 0;
	if (!d.nmissing)
		return CLI_OK;
	if (!lfts || !strcmp(lfts, "-")) {
		cli_err("%s has no LIDs for %u endpoints (ibnetdiscover ran before the SM assigned them?), and "
			"%s: give the LIDs with --guid2lid FILE (OpenSM's guid2lid)%s", topo, d.nmissing,
			lfts ? "the LFT dump comes from standard input, which cannot be read twice"
			     : "opensm.fdbs names no port GUIDs to take them from",
			lfts ? ", or the LFT dump as a file: its port GUID annotations give them" : "");
		return CLI_INPUT;
	}
	d.lo = calloc(f->neps, sizeof(*d.lo));
	d.hi = calloc(f->neps, sizeof(*d.hi));
	d.missing = calloc(f->neps, 1);
	pins = calloc(d.nmissing, sizeof(*pins));
	if (!d.lo || !d.hi || !d.missing || !pins) {
		cli_err("out of memory reading the LIDs of %s", lfts);
		rc = CLI_FAIL;
		goto out;
	}
	for (uint32_t ep = 0; ep < f->neps; ep++)
		d.missing[ep] = fab_ep_lid(f, ep) == 0;
	if (scan(f, lfts, &d)) {
		cli_err("%s: cannot read: %s", lfts, strerror(errno));
		goto out;
	}
	if (make_pins(f, &d, topo, lfts, pins, &npins))
		goto out;
	if (fab_lids_assign(f, pins, npins, FAB_LIDS_KEEP, 0, &err)) {
		cli_err("%s: the LIDs the annotations of %s give do not fit: %s", topo, lfts, err.msg);
		goto out;
	}
	fprintf(stderr, "fabroute eval: %s has no LIDs for %u endpoints (ibnetdiscover ran before the SM "
		"assigned them?): took them from the port GUID annotations of %s\n", topo, d.nmissing, lfts);
	rc = CLI_OK;
out:
	free(d.lo);
	free(d.hi);
	free(d.missing);
	free(pins);
	return rc;
}
