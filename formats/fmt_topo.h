/* SPDX-License-Identifier: MIT */
/**
 * DOC: topology builder shared by the two topology parsers (private)
 *
 * Both topology formats name the peer of a port by a quoted node id that
 * may be defined later in the file. The parsers (fmt_ibnd.c, fmt_ibsim.c)
 * therefore create every node as soon as they read its node line, record
 * each port line as a pending link, and leave to fmt_tb_finish() what needs
 * the whole file: resolving ids, checking that both ends of a link agree,
 * widths and speeds, port GUIDs, LID ranges, and fab_finalize(). Every
 * error names the file and the line it comes from.
 *
 * The builder lives in fmt_topo.c. Also here: small scanning helpers, and
 * the names ibnetdiscover prints for link widths and speeds.
 */
#ifndef FABROUTE_FMT_TOPO_H
#define FABROUTE_FMT_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/formats.h"

/** Longest node id ibsim keeps (its NODEIDLEN is 65 with the NUL). */
#define FMT_ID_MAX 64u
/** Longest line ibsim reads (its MAXLINE is 256 with the NUL). */
#define FMT_IBSIM_LINE_MAX 255u
/** Most port slots (all nodes, port 0 included) a topology file may declare. */
#define FMT_SLOTS_MAX (1u << 22)

/**
 * struct fmt_tb_port - one port line, as the parser read it
 * @port: the port the line describes
 * @peer_port: port number at the peer
 * @guid: the port's own GUID as the file gives it, 0 when not given
 * @peer_guid: the peer port's GUID as the file gives it, 0 when not given
 * @width, @speed: ibnetdiscover: the active width and speed (enum fab_width,
 *	enum fab_speed, 0 when unknown); ibsim: the enabled masks (w=, s=)
 * @ext: ibsim: the enabled extended speeds (e=: 1 FDR, 2 EDR, 4 HDR, 8 NDR)
 */
struct fmt_tb_port {
	uint64_t guid;
	uint64_t peer_guid;
	uint16_t speed;
	uint16_t ext;
	uint8_t port;
	uint8_t peer_port;
	uint8_t width;
};

struct fmt_tb;

/**
 * fmt_tb_new() - start building a topology read from @buf (@len bytes of
 * file @name), and @it over its lines (fmt_tb_end() ends both)
 * @ibsim: apply ibsim's rules: every link must be listed from both of its
 *	ends, widths and speeds are enable masks (the link runs at the highest
 *	one both ends enable), port GUIDs in the file are ignored
 * Return: the builder, or NULL with @err set (@it not started).
 */
struct fmt_tb *fmt_tb_new(struct fmt_lines *it, const char *buf, size_t len, const char *name,
			  int ibsim, struct fab_err *err);
/** fmt_tb_free() - drop a builder and the fabric under construction. */
void fmt_tb_free(struct fmt_tb *tb);
/** fmt_tb_fabric() - the fabric under construction (to set LIDs on ports). */
struct fabric *fmt_tb_fabric(struct fmt_tb *tb);

/**
 * fmt_tb_node() - create the node of the node line at @it
 * @id: its quoted id (without the quotes), @idlen bytes
 * @port0: a switch's port 0 LID and LMC as the node line gives them (read
 *	for switches only)
 * Return: the node's index, or FAB_NONE with @err set.
 */
uint32_t fmt_tb_node(struct fmt_tb *tb, const struct fmt_lines *it,
		     const struct fab_node_info *in, const char *id, size_t idlen,
		     const struct fab_port *port0, struct fab_err *err);

/**
 * fmt_tb_port() - record the port line at @it of node @node
 * @peer: the peer's id (without the quotes), @peerlen bytes
 * The port number must already be in range; a port listed twice is an error.
 * Return: 0, or -1 with @err set.
 */
int fmt_tb_port(struct fmt_tb *tb, const struct fmt_lines *it, uint32_t node,
		const struct fmt_tb_port *pl, const char *peer, size_t peerlen,
		struct fab_err *err);

/**
 * fmt_tb_finish() - resolve the links and finalize
 * Frees the builder in every case.
 * Return: the finalized fabric, or NULL with @err set.
 */
struct fabric *fmt_tb_finish(struct fmt_tb *tb, struct fab_err *err);

/**
 * fmt_tb_end() - the end of a parser's read loop over @it: @r is what the
 * loop stopped with (0 at the end of the file, -1 out of memory, 1 when a
 * line was refused with @err set). A file with no node line (@nnodes 0) is
 * refused, naming the @records it should hold ("Switch, Ca or Rt"). A
 * file read tells @opts how many skipped lines went untold (fmt_skip_end()).
 * Ends @it and the builder in every case.
 * Return: the finalized fabric, or NULL with @err set.
 */
struct fabric *fmt_tb_end(struct fmt_tb *tb, struct fmt_lines *it, int r, uint32_t nnodes,
			  const char *records, struct fmt_opts *opts, struct fab_err *err);

/* Parser entry points (fmt_topo_parse() dispatches to them). */
struct fabric *fmt_ibnd_parse(const char *buf, size_t len, const char *name,
			      struct fmt_opts *opts, struct fab_err *err);
struct fabric *fmt_ibsim_parse(const char *buf, size_t len, const char *name,
			       struct fmt_opts *opts, struct fab_err *err);

/* --- scanning helpers ------------------------------------------------- */

static inline const char *fmt_skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static inline int fmt_is_blank(const char *p)
{
	return *fmt_skip_ws(p) == '\0';
}

/** fmt_word() - @p starts with @w followed by a blank or the end of the line. */
static inline int fmt_word(const char *p, const char *w)
{
	size_t n = 0;

	while (w[n]) {
		if (p[n] != w[n])
			return 0;
		n++;
	}
	return p[n] == '\0' || p[n] == ' ' || p[n] == '\t';
}

/**
 * fmt_tok() - the text to quote after "found": from @p up to the next blank,
 * at most 40 characters (then "..."); "end of line" when there is nothing.
 */
static inline const char *fmt_tok(const char *p, char *buf, size_t size)
{
	size_t n = 0;

	if (!*p)
		return "end of line";
	while (p[n] && p[n] != ' ' && p[n] != '\t' && n < 40 && n + 4 < size)
		n++;
	memcpy(buf, p, n);
	if (p[n] && p[n] != ' ' && p[n] != '\t') {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

/**
 * fmt_uint() - a decimal number of at most @max at *@p; advances *@p.
 * Return: 0, or -1 (no digits or too large) leaving *@p unchanged.
 */
static inline int fmt_uint(const char **p, unsigned long max, unsigned long *out)
{
	const char *s = *p;
	unsigned long v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > max)
			return -1;
	}
	*p = s;
	*out = v;
	return 0;
}

/** fmt_hex64() - 1 to 16 hexadecimal digits (no "0x") at *@p; advances *@p. */
static inline int fmt_hex64(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0;

	for (; fmt_hexval(*s) >= 0; s++, n++) {
		if (n == 16)
			return -1;
		v = v << 4 | (uint64_t)fmt_hexval(*s);
	}
	if (!n)
		return -1;
	*p = s;
	*out = v;
	return 0;
}

/**
 * fmt_num64() - a number as strtoull() reads it with base 0 ("0x" hex, a
 * leading 0 octal, else decimal), digits only (no sign, no blanks).
 */
static inline int fmt_num64(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	unsigned base = 10, d;

	if (*s < '0' || *s > '9')
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		if (fmt_hex64(&s, out))
			return -1;
		*p = s;
		return 0;
	}
	if (s[0] == '0')
		base = 8;
	for (; *s >= '0' && *s < (base == 8 ? '8' : ':'); s++) {
		d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	*p = s;
	*out = v;
	return 0;
}

/**
 * fmt_quoted() - a quoted string at *@p: sets *@s and *@n to its contents
 * and moves *@p past the closing quote.
 * Return: 0, -1 when *@p is not a '"', -2 when the closing quote is missing.
 */
static inline int fmt_quoted(const char **p, const char **s, size_t *n)
{
	const char *q;

	if (**p != '"')
		return -1;
	q = strchr(*p + 1, '"');
	if (!q)
		return -2;
	*s = *p + 1;
	*n = (size_t)(q - *s);
	*p = q + 1;
	return 0;
}

/* --- link width and speed names, as ibnetdiscover prints them --------- */

/**
 * fmt_width_speed() - read a token like "4xQDR" or "12xFDR10" at @p
 * Return: its length with *@width and *@speed set (0 where the token says
 * "??" / "???"), or 0 when @p holds no such token.
 */
size_t fmt_width_speed(const char *p, uint8_t *width, uint16_t *speed);

/**
 * fmt_port_num() - "[N]" at *@p with N from 1 to @max; advances *@p past
 * the ']'. @what names the number in the error message.
 * Return: 0, or -1 with @err set ("NAME:LINE: expected ...").
 */
int fmt_port_num(const struct fmt_lines *it, const char **p, unsigned max, const char *what,
		 uint8_t *port, struct fab_err *err);

/**
 * fmt_port_count() - a node line's port count (1 to FAB_PORTS_MAX) at *@p;
 * advances *@p past it and the blanks after it.
 * Return: 0, or -1 with @err set ("NAME:LINE: expected ...").
 */
int fmt_port_count(const struct fmt_lines *it, const char **p, unsigned *nports,
		   struct fab_err *err);

#endif
