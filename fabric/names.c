/* SPDX-License-Identifier: MIT */
/**
 * DOC: naming nodes
 *
 * Users name a node by its description or by a GUID. Descriptions need
 * not be unique: every switch of a vendor may leave the factory with the
 * same one ("SwitchIB Mellanox Technologies"). fab_node_resolve() is the
 * one place that turns a name into a node for every caller (command line,
 * engine options, files of node names, the API): a description several
 * nodes share is refused with their GUIDs, so that nobody routes with a
 * switch picked at random. fab_node_label() is the other direction: how
 * notes, reports and the API show a node, with its GUID when its
 * description does not tell it apart.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/index.h"

/* "0x" and 1 to 16 hex digits: Return 0 with *@g set, else -1. */
static int parse_guid(const char *t, uint64_t *g)
{
	char *end;

	if (strncmp(t, "0x", 2) && strncmp(t, "0X", 2))
		return -1;
	if (!t[2] || strlen(t + 2) > 16 || strspn(t + 2, "0123456789abcdefABCDEF") != strlen(t + 2))
		return -1;
	errno = 0;
	*g = strtoull(t + 2, &end, 16);
	return errno || *end ? -1 : 0;
}

/* "@what \"TEXT\" names N nodes: 0x..., 0x... (name one by its GUID)". */
static void ambiguous(const struct fabric *f, const char *what, const char *text, unsigned count,
		      struct fab_err *err)
{
	char list[300];
	size_t len = 0;
	unsigned shown = 0;

	list[0] = '\0';
	for (uint32_t n = 0; n < f->nnodes && shown < 8; n++) {
		if (strcmp(fab_desc(f, n), text))
			continue;
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s0x%016" PRIx64,
					shown ? ", " : "", f->nodes[n].guid);
		shown++;
	}
	if (count > shown && len < sizeof(list))
		snprintf(list + len, sizeof(list) - len, " and %u more", count - shown);
	fab_err_set(err, "%s\"%.64s\" is the description of %u nodes: %s; name one by its GUID",
		    what ? what : "", text, count, list);
}

uint32_t fab_node_resolve(const struct fabric *f, const char *text, const char *what,
			  struct fab_err *err)
{
	unsigned count = 0;
	uint32_t n = fab_node_by_desc(f, text, &count), ep;
	uint64_t g;

	if (n != FAB_NONE && count > 1) {
		ambiguous(f, what, text, count, err);
		return FAB_NONE;
	}
	if (n != FAB_NONE)
		return n;
	if (!parse_guid(text, &g)) {
		n = fab_node_by_guid(f, g);
		if (n != FAB_NONE)
			return n;
		ep = fab_ep_by_port_guid(f, g);
		if (ep != FAB_NONE)
			return f->eps[ep].node;
		fab_err_set(err, "%sno node \"%.20s\" (no node or port has this GUID)",
			    what ? what : "", text);
		return FAB_NONE;
	}
	fab_err_set(err, "%sno node \"%.64s\" (name a node by its description or by a 0x GUID)",
		    what ? what : "", text);
	return FAB_NONE;
}

unsigned fab_node_desc_count(const struct fabric *f, uint32_t node)
{
	unsigned count = 0;

	if (fab_node_by_desc(f, fab_desc(f, node), &count) == FAB_NONE)
		return 0;
	return count;
}

const char *fab_node_label(const struct fabric *f, uint32_t node, char *buf, size_t size)
{
	const char *d = fab_desc(f, node);

	if (f->idx && fab_node_desc_count(f, node) == 1)
		snprintf(buf, size, "%s", d);
	else
		snprintf(buf, size, "%s (0x%016" PRIx64 ")", d, f->nodes[node].guid);
	return buf;
}
