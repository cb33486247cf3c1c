/* SPDX-License-Identifier: MIT */
/**
 * DOC: writing opensm-lfts.dump
 *
 * A 16000-CA fabric's dump is 2.5 GB: 36 million lines. Every line of a
 * LID is the same in every block but for the port, so the lines are made
 * once per LID ("0x0001 000 # Channel Adapter portguid 0x...: 'H1'\n"),
 * copied into a 1 MiB buffer with the port's three digits patched in, and
 * the buffer written with fwrite(): about ten times faster than printf'ing
 * each entry.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"

#define LFTS_OUT_BUF (1u << 20)
/* "0x" + 4 hex digits + " ": where the port's digits go in a line. */
#define LFTS_PORT_AT 7u

/* OpenSM's names of the node types (ib_get_node_type_str()). */
static const char *type_str(unsigned type)
{
	switch (type) {
	case FAB_CA:
		return "Channel Adapter";
	case FAB_SWITCH:
		return "Switch";
	case FAB_ROUTER:
		return "Router";
	}
	return "???";
}

static int check_tables(const struct fabric *f, const struct rt_routing *r)
{
	if (r->nswitches != f->nswitches || r->lft_len == 0 ||
	    r->lft_len - 1 > FAB_LID_UCAST_MAX)
		return -1;
	for (uint32_t s = 0; s < r->nswitches; s++) {
		unsigned np = f->nodes[f->switches[s]].nports;
		const uint8_t *lft = rt_lft(r, s);

		for (uint32_t l = 0; l < r->lft_len; l++)
			if (lft[l] != RT_NO_PORT && lft[l] > np)
				return -1;
	}
	return 0;
}

/* The output: a buffer flushed with fwrite(); @err once a write failed. */
struct out {
	FILE *fp;
	char *buf;
	size_t len;
	int err;
};

static void flush(struct out *o)
{
	if (o->len && !o->err && fwrite(o->buf, 1, o->len, o->fp) != o->len)
		o->err = 1;
	o->len = 0;
}

/* Room for @n more bytes (@n at most LFTS_OUT_BUF). */
static char *room(struct out *o, size_t n)
{
	if (o->len + n > LFTS_OUT_BUF)
		flush(o);
	return o->buf + o->len;
}

/* A description on one line: control characters would break the format. */
static size_t desc_copy(char *to, const char *s, size_t max)
{
	size_t n = 0;

	for (; *s && n < max; s++)
		to[n++] = iscntrl((unsigned char)*s) ? '?' : *s;
	return n;
}

/**
 * struct lines - the line of every LID, port digits left as "000"
 * @text: the lines back to back; @at: per LID, where its line starts
 *        (@at[lid + 1] - @at[lid] is its length)
 */
struct lines {
	char *text;
	size_t *at;
};

static size_t line_of(const struct fabric *f, unsigned lid, char *to)
{
	uint32_t ep = fab_ep_by_lid(f, lid);
	size_t n = (size_t)sprintf(to, "0x%04x 000 # ", lid);

	if (ep == FAB_NONE) {
		n += (size_t)sprintf(to + n, "unknown node and type");
	} else {
		const struct fab_ep *e = &f->eps[ep];

		n += (size_t)sprintf(to + n, "%s portguid 0x%016" PRIx64 ": '",
				     type_str(f->nodes[e->node].type),
				     fab_port(f, e->node, e->port)->guid);
		n += desc_copy(to + n, fab_desc(f, e->node), FAB_DESC_MAX);
		to[n++] = '\'';
	}
	to[n++] = '\n';
	return n;
}

/* Longest line: "0xffff 000 # " + type + " portguid 0x" + 16 + ": '" + desc + "'\n". */
#define LFTS_LINE_MAX (64u + FAB_DESC_MAX)

static int make_lines(const struct fabric *f, unsigned top, struct lines *l)
{
	size_t n = 0;

	l->at = malloc(((size_t)top + 2) * sizeof(*l->at));
	l->text = malloc(((size_t)top + 1) * LFTS_LINE_MAX + 1);
	if (!l->at || !l->text)
		return -1;
	for (unsigned lid = 0; lid <= top; lid++) {
		l->at[lid] = n;
		n += line_of(f, lid, l->text + n);
	}
	l->at[top + 1] = n;
	return 0;
}

static void put_header(struct out *o, const struct fabric *f, uint32_t node, unsigned top)
{
	char *p = room(o, 128 + FAB_DESC_MAX);
	size_t n = (size_t)sprintf(p, "Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64
				   " ('", top, fab_port(f, node, 0)->lid, f->nodes[node].guid);

	n += desc_copy(p + n, fab_desc(f, node), FAB_DESC_MAX);
	memcpy(p + n, "'):\n", 4);
	o->len += n + 4;
}

static void put_block(struct out *o, const struct lines *l, const uint8_t *lft, unsigned top)
{
	for (unsigned lid = 0; lid <= top; lid++) {
		unsigned port = lft[lid];
		size_t n = l->at[lid + 1] - l->at[lid];
		char *p;

		if (port == RT_NO_PORT)
			continue;
		p = room(o, n);
		memcpy(p, l->text + l->at[lid], n);
		p[LFTS_PORT_AT] = (char)('0' + port / 100);
		p[LFTS_PORT_AT + 1] = (char)('0' + port / 10 % 10);
		p[LFTS_PORT_AT + 2] = (char)('0' + port % 10);
		o->len += n;
	}
	o->len += (size_t)sprintf(room(o, 32), "%u lids dumped\n", top);
}

/* The blocks of switches @first to @last - 1; 0 or -1 with errno set. */
static int write_blocks(FILE *out, const struct fabric *f, const struct rt_routing *r,
			uint32_t first, uint32_t last)
{
	struct out o = { .fp = out };
	struct lines l = { 0 };
	unsigned top;
	int rc = -1;

	if (check_tables(f, r) || last > r->nswitches || first > last) {
		errno = EINVAL;
		return -1;
	}
	top = r->lft_len - 1;
	o.buf = malloc(LFTS_OUT_BUF);
	if (!o.buf || make_lines(f, top, &l)) {
		errno = ENOMEM;
		goto out;
	}
	for (uint32_t s = first; s < last && !o.err; s++) {
		put_header(&o, f, f->switches[s], top);
		put_block(&o, &l, rt_lft(r, s), top);
	}
	flush(&o);
	rc = o.err || fflush(out) || ferror(out) ? -1 : 0;
out:
	free(o.buf);
	free(l.text);
	free(l.at);
	return rc;
}

/**
 * fmt_lfts_write() - write @r as opensm-lfts.dump
 * @out: the stream to write to
 * @f: the fabric @r routes
 * @r: its routing
 *
 * One block per switch in fabric switch order, the range of every block
 * being the whole table ([0-(lft_len - 1)]), entries without a route
 * (RT_NO_PORT) left out, every entry annotated as OpenSM annotates it
 * (OpenSM's loader uses the port GUID of the annotation to follow LID
 * changes). The trailer gives the top LID, as OpenSM's does.
 *
 * Return: 0, or -1 with errno set: EINVAL when @r does not fit @f (other
 * switch count, a port beyond a switch's port count), ENOMEM, else the
 * stream's error.
 */
int fmt_lfts_write(FILE *out, const struct fabric *f, const struct rt_routing *r)
{
	return write_blocks(out, f, r, 0, r->nswitches);
}

/**
 * fmt_lfts_write_switch() - the block of switch @sw (an index of
 * f->switches) alone, as fmt_lfts_write() writes it
 * Return: as fmt_lfts_write(); EINVAL also when @sw is out of range.
 */
int fmt_lfts_write_switch(FILE *out, const struct fabric *f, const struct rt_routing *r, uint32_t sw)
{
	if (sw >= r->nswitches) {
		errno = EINVAL;
		return -1;
	}
	return write_blocks(out, f, r, sw, sw + 1);
}
