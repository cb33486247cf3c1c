/* SPDX-License-Identifier: MIT */
/**
 * DOC: file formats
 *
 * Readers and writers for the files fabroute exchanges with the InfiniBand
 * tools:
 *
 *  - topologies: ibnetdiscover output (what `ibnetdiscover` prints, also
 *    what ibsim loads) and ibsim's short net format (`Switch 36 "L1"`,
 *    `[1] "H1"[1]`);
 *  - opensm-lfts.dump (the ibroute format; what OpenSM loads with
 *    `-R file -U`), opensm.fdbs, opensm-subnet.lst and guid2lid;
 *  - SL2VL and path-SL dumps, DLID plans, path files, dragonfly groups
 *    files.
 *
 * Every parser works on a buffer already in memory and takes the name to
 * put in error messages. Errors read "NAME:LINE: expected ..., found ...".
 * A parser either returns a complete result or nothing: never a partial
 * model. Files larger than FMT_SIZE_MAX or holding NUL bytes are refused.
 */
#ifndef FABROUTE_FORMATS_H
#define FABROUTE_FORMATS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fabric/fabric.h"
#include "fabric/routing.h"

/** Largest topology, subnet list or guid2lid file accepted (64 MiB: a full
 * 49151-LID subnet's ibnetdiscover output is ~20 MiB). */
#define FMT_SIZE_MAX (64u << 20)
/** Largest opensm.fdbs, SL2VL or path-SL file read whole: 1 GiB, about 17
 * million entries (3000 switches x 6000 LIDs). These files hold one line per
 * switch and LID, so they outgrow topology files by far. opensm-lfts.dump
 * has no limit: fmt_lfts_read() reads it in pieces. */
#define FMT_DUMP_SIZE_MAX (1024u << 20)

enum fmt_topo {
	FMT_AUTO = 0,	/* detect from the content */
	FMT_IBND,	/* ibnetdiscover output */
	FMT_IBSIM,	/* ibsim short net format */
	FMT_SUBNET,	/* OpenSM's opensm-subnet.lst (read only) */
};

/** fmt_hexval() - value of hex digit @c, -1 when it is not one. */
static inline int fmt_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/** fmt_width_name() - "1x", "4x", ... ; "??" when unknown. */
const char *fmt_width_name(unsigned width);
/** fmt_speed_name() - "SDR", ..., "NDR"; "???" when unknown. */
const char *fmt_speed_name(unsigned speed);

/** fmt_topo_name() - "ibnetdiscover", "ibsim" or "opensm-subnet". */
const char *fmt_topo_name(enum fmt_topo fmt);
/**
 * fmt_topo_from_name() - parse "ibnetdiscover"/"ibnd", "ibsim"/"net",
 * "opensm-subnet"/"subnet" or "auto"; -1 when unknown.
 */
int fmt_topo_from_name(const char *name);
/**
 * fmt_topo_detect() - FMT_SUBNET when the first line that is neither blank
 * nor a comment is a subnet-list record ("{ SW Ports:..."), FMT_IBND when
 * the text carries ibnetdiscover's GUID-named records ("S-<guid>",
 * "H-<guid>", "R-<guid>"), else FMT_IBSIM.
 */
enum fmt_topo fmt_topo_detect(const char *buf, size_t len);

/**
 * fmt_read_file_max() - read a whole file (or "-" for stdin) into a
 * NUL-terminated buffer; refuses files over @max bytes and files with NUL
 * bytes. Return: 0 with *@buf (free() it) and *@len set, or -1 with @err set.
 */
int fmt_read_file_max(const char *path, size_t max, char **buf, size_t *len,
		      struct fab_err *err);

/** fmt_read_file() - fmt_read_file_max() with FMT_SIZE_MAX. */
static inline int fmt_read_file(const char *path, char **buf, size_t *len, struct fab_err *err)
{
	return fmt_read_file_max(path, FMT_SIZE_MAX, buf, len, err);
}

struct fmt_lines;

/** Most skipped lines a parser tells about one by one (then only how many more). */
#define FMT_WARN_MAX 10u

/**
 * struct fmt_opts - how a topology parser treats what the tools print
 * besides the topology
 * @strict: refuse the diagnostic lines ibnetdiscover and its libraries
 *          print among the records ("ibwarn: ...", "...c:123; ...",
 *          "prog: iberror: ...", "WARNING: ...") instead of skipping them
 * @warn: told "NAME:LINE: skipped ..." for each of the first FMT_WARN_MAX
 *        lines skipped, then once how many more were; NULL: not told
 * @arg: passed to @warn
 * @skipped: set by the parser: the lines it skipped
 */
struct fmt_opts {
	int strict;
	void (*warn)(void *arg, const char *msg);
	void *arg;
	unsigned skipped;
};

/**
 * fmt_topo_parse_opts() - parse a topology in format @fmt (FMT_AUTO detects it)
 * @opts: NULL: skip diagnostic lines without telling anyone
 * Return: a finalized fabric (LIDs as the file gives them; ports without one
 * are left at 0), or NULL with @err set.
 */
struct fabric *fmt_topo_parse_opts(const char *buf, size_t len, const char *name,
				   enum fmt_topo fmt, struct fmt_opts *opts, struct fab_err *err);
/** fmt_topo_parse() - fmt_topo_parse_opts() with no options. */
struct fabric *fmt_topo_parse(const char *buf, size_t len, const char *name,
			      enum fmt_topo fmt, struct fab_err *err);
/** fmt_topo_load() - fmt_read_file() then fmt_topo_parse_opts(). */
struct fabric *fmt_topo_load(const char *path, enum fmt_topo fmt, struct fmt_opts *opts,
			     struct fab_err *err);

/**
 * fmt_diag_line() - @line is a diagnostic the InfiniBand tools print
 * (libibmad's "ibwarn: [pid] fn: ...", "ibpanic:", "ibdebug:", "iberror:",
 * a tool's "prog: iberror: ...", libibnetdisc's "file.c:123; ...",
 * "[pid] fn: ..." and "WARNING: ..." / "ERROR: ..." lines). Return 1 or 0.
 */
int fmt_diag_line(const char *line);

/**
 * fmt_skip() - count a skipped line at @it and tell @opts->warn about it
 * (the first FMT_WARN_MAX); @what says what it was.
 */
void fmt_skip(struct fmt_opts *opts, const struct fmt_lines *it, const char *what);
/** fmt_skip_end() - after parsing: tell how many skipped lines went untold. */
void fmt_skip_end(struct fmt_opts *opts, const char *name);

/**
 * fmt_topo_write() - write @f in format @fmt (ibnetdiscover or ibsim;
 * EINVAL for another)
 *
 * ibnetdiscover output is written as the tool prints it, including the
 * vendid/devid/sysimgguid/switchguid/caguid header lines, so ibsim gives
 * every node its GUID back. The ibsim format names nodes by description
 * when descriptions are unique and quote-free, and writes switchguid= /
 * caguid= / rtguid= lines so GUIDs survive too.
 * Return: 0, or -1 on a write error (errno set).
 */
int fmt_topo_write(FILE *out, const struct fabric *f, enum fmt_topo fmt);

/**
 * fmt_ibsim_inexact() - links whose speed ibsim's net format cannot say,
 * which fmt_topo_write() writes as the nearest it can: *@fdr10 links at
 * FDR10 (written as QDR, s=4) and *@xdr at XDR (written as NDR, e=8).
 * Return: their sum.
 */
unsigned fmt_ibsim_inexact(const struct fabric *f, unsigned *fdr10, unsigned *xdr);

/**
 * fmt_lfts_parse() - read opensm-lfts.dump (ibroute output) for fabric @f
 * Switches are matched by node GUID; a switch of @f missing from the dump
 * keeps an all-RT_NO_PORT table. A switch in the dump but not in @f, a port
 * beyond the switch's port count or a malformed line is an error. There is
 * no size limit (the text is read line by line into the tables).
 */
struct rt_routing *fmt_lfts_parse(const char *buf, size_t len, const char *name,
				  const struct fabric *f, struct fab_err *err);

/* fmt_progress_fn - told the bytes read so far and the total (0 when unknown). */
typedef void (*fmt_progress_fn)(void *arg, uint64_t done, uint64_t total);

/*
 * Reading opensm-lfts.dump in pieces of any size, cut anywhere:
 * fmt_lfts_begin(), fmt_lfts_feed() for each piece (-1 once an error is
 * set; later pieces are ignored), then fmt_lfts_end() for the routing (or
 * NULL with the error), which frees the reader. fmt_lfts_abort() frees it
 * without a result. Memory: the tables, one line and a few bytes per LID.
 */
struct fmt_lfts_reader;

struct fmt_lfts_reader *fmt_lfts_begin(const char *name, const struct fabric *f,
				       struct fab_err *err);
int fmt_lfts_feed(struct fmt_lfts_reader *rd, const char *buf, size_t len);
struct rt_routing *fmt_lfts_end(struct fmt_lfts_reader *rd);
void fmt_lfts_abort(struct fmt_lfts_reader *rd);

/**
 * fmt_lfts_read() - fmt_lfts_parse() of everything @in holds, read 4 MiB at
 * a time: no size limit, and the text is never all in memory. @progress
 * (may be NULL) is told the bytes read after each piece, out of @total.
 */
struct rt_routing *fmt_lfts_read(FILE *in, const char *name, const struct fabric *f,
				 fmt_progress_fn progress, void *arg, uint64_t total,
				 struct fab_err *err);
/** fmt_lfts_load() - fmt_lfts_read() of file @path ("-": standard input). */
struct rt_routing *fmt_lfts_load(const char *path, const struct fabric *f,
				 fmt_progress_fn progress, void *arg, struct fab_err *err);
/**
 * fmt_lfts_write() - write @r as opensm-lfts.dump, one block per switch,
 * each entry annotated with the destination's type, port GUID and
 * description as OpenSM writes them; loadable with `opensm -R file -U`.
 * Lines are built in a buffer from a template per LID (fabric/
 * fmt_lfts_write.c), several times faster than formatting each entry.
 * Return: 0, or -1 with errno set (EINVAL when @r does not fit @f, else the
 * stream's error).
 */
int fmt_lfts_write(FILE *out, const struct fabric *f, const struct rt_routing *r);
/** fmt_lfts_write_switch() - the block of switch index @sw alone (formats/fmt_lfts_write.c). */
int fmt_lfts_write_switch(FILE *out, const struct fabric *f, const struct rt_routing *r, uint32_t sw);

/** fmt_fdbs_parse() - read opensm.fdbs (dump_ucast_routes blocks) for fabric @f. */
struct rt_routing *fmt_fdbs_parse(const char *buf, size_t len, const char *name,
				  const struct fabric *f, struct fab_err *err);

/**
 * fmt_subnet_parse() - build a fabric from opensm-subnet.lst
 * Each line describes one direction of a link with both ends' GUIDs, LIDs,
 * port numbers and descriptions; "-SM" marks the SM's node. The result is
 * finalized, with the LIDs the file gives.
 */
struct fabric *fmt_subnet_parse(const char *buf, size_t len, const char *name,
				struct fab_err *err);

/**
 * fmt_guid2lid_parse() - read a guid2lid file ("0xGUID 0xBASE 0xTOP" per
 * line; blank lines allowed). The LMC of an entry is log2(top - base + 1).
 * Return: 0 with *@pins (free() it) and *@npins set, or -1 with @err set.
 */
int fmt_guid2lid_parse(const char *buf, size_t len, const char *name,
		       struct fab_lid_pin **pins, size_t *npins, struct fab_err *err);
/** fmt_guid2lid_write() - write every endpoint's port GUID, base and top LID. */
int fmt_guid2lid_write(FILE *out, const struct fabric *f);

/* --- SL2VL tables and path SLs (formats/fmt_sl.c) ------------------------ */

/**
 * fmt_sl2vl_parse() - read OpenSM's opensm-sl2vl.dump (written with -D 0x43
 * when QoS is on or the engine programs SL2VL) into @r's SL2VL tables for
 * fabric @f. Switches are matched by GUID, one row per (in port, out port);
 * the switches listed get new tables, the others keep theirs. Entries for CA
 * ports are checked and ignored (the model keeps switch tables only).
 * Return: 0, or -1 with @err set ("NAME:LINE: expected ..., found ...") and
 * @r unchanged.
 */
int fmt_sl2vl_parse(const char *buf, size_t len, const char *name, const struct fabric *f,
		    struct rt_routing *r, struct fab_err *err);

/**
 * fmt_sl2vl_write() - write @r's SL2VL tables in the format
 * fmt_sl2vl_parse() reads: every switch's rows for its linked out ports, a
 * single row per CA and router port. Return: 0, or -1 with errno set.
 */
int fmt_sl2vl_write(FILE *out, const struct fabric *f, const struct rt_routing *r);

/**
 * fmt_pathsl_parse() - read a path-SL file (the format `ibdmchk -c` reads:
 * "0xSOURCENODEGUID DLID SL" per line, see formats/fmt_sl.c) into @r->path_sl
 * (allocated with rt_pairs_alloc()). A line sets the pairs from every port
 * of the source node whose routing DLID is that LID; pairs without a line
 * keep their SL.
 * Return: 0, or -1 with @err set and @r unchanged.
 */
int fmt_pathsl_parse(const char *buf, size_t len, const char *name, const struct fabric *f,
		     struct rt_routing *r, struct fab_err *err);
/**
 * fmt_pathsl_write() - write @r's path SLs in the format fmt_pathsl_parse()
 * reads: every (source node, LID of another endpoint). Return: 0, or -1 with
 * errno set (EINVAL when two ports of one node use different SLs towards one
 * destination, which the format cannot say).
 */
int fmt_pathsl_write(FILE *out, const struct fabric *f, const struct rt_routing *r);

/* --- DLID plans (formats/fmt_dlids.c) ------------------------------------ */

/** The name of the DLID plan in a routing's directory (what compute writes). */
#define FMT_DLIDS_FILE "dlid-plan"

/**
 * fmt_dlids_parse() - read a DLID plan ("0xSOURCE OFFSET" and "0xSOURCE
 * 0xDESTINATION DLID" lines, see formats/fmt_dlids.c) into @r->dlid_off
 * (allocated when missing): every pair of a source with an OFFSET line,
 * then every pair line; the other pairs keep their offsets. Files up to
 * FMT_DUMP_SIZE_MAX.
 * Return: 0, or -1 with @err set ("NAME:LINE: what is wrong") and @r's
 * offsets unchanged.
 */
int fmt_dlids_parse(const char *buf, size_t len, const char *name, const struct fabric *f,
		    struct rt_routing *r, struct fab_err *err);
/**
 * fmt_dlids_write() - @r's DLIDs as a plan: a comment, then per source (in
 * endpoint order) its offset (rt_src_offset(); left out when 0) and the
 * pairs that differ from it. Return: 0, or -1 with errno set.
 */
int fmt_dlids_write(FILE *out, const struct fabric *f, const struct rt_routing *r);

/* --- path files (formats/fmt_paths.c) ------------------------------------ */

/** struct fmt_hop - a path leaves switch node @node by @port (0: delivered to the switch). */
struct fmt_hop {
	uint32_t node;
	uint8_t port;
};

/**
 * struct fmt_paths - explicit paths between endpoints
 * @n: paths; path i goes from endpoint @src[i] to endpoint @dst[i] through
 *     hops @hop[@off[i] .. @off[i + 1])
 * @dlid: the DLID of each path, 0 when not given
 * @line: the line each path was read from (0 when built in memory)
 */
struct fmt_paths {
	size_t n, cap;
	uint32_t *src, *dst;
	uint16_t *dlid;
	uint32_t *line;
	size_t *off;
	struct fmt_hop *hop;
	size_t nhops, hcap;
};

/** How fmt_paths_parse() treats DLIDs: optional, required (eval), refused. */
enum fmt_paths_dlid {
	FMT_PATHS_DLID_ANY = 0,
	FMT_PATHS_DLID_NEEDED,
	FMT_PATHS_DLID_NONE,
};

/** fmt_paths_add() - append a path (copied). Return: 0, or -1 when out of memory. */
int fmt_paths_add(struct fmt_paths *p, uint32_t src, uint32_t dst, unsigned dlid,
		  const struct fmt_hop *hops, size_t nhops);
void fmt_paths_free(struct fmt_paths *p);

/**
 * fmt_paths_check() - the @n hops @h lead from endpoint @src to @dst over
 * links of @f, crossing no switch twice. Return: 0, or -1 with @why set.
 */
int fmt_paths_check(const struct fabric *f, const struct fmt_hop *h, size_t n, uint32_t src,
		    uint32_t dst, char *why, size_t len);

/**
 * fmt_paths_parse() - read a path file ("SRC DST [DLID] SWITCH:PORT ..." per
 * line, see formats/fmt_paths.c) for fabric @f; every path is checked with
 * fmt_paths_check(). Files up to FMT_DUMP_SIZE_MAX.
 * Return: 0 with @p filled (fmt_paths_free() it), or -1 with @err set
 * ("NAME:LINE: what is wrong") and @p empty.
 */
int fmt_paths_parse(const char *buf, size_t len, const char *name, const struct fabric *f,
		    enum fmt_paths_dlid mode, struct fmt_paths *p, struct fab_err *err);

/**
 * fmt_paths_write() - one line per path: port GUIDs in hex, the DLID in
 * decimal (when set), then SWITCH_GUID:PORT per hop.
 * Return: 0, or -1 on a write error (errno set).
 */
int fmt_paths_write(FILE *out, const struct fabric *f, const struct fmt_paths *p);

/* --- hosts and their DLIDs (formats/fmt_hosts.c) ---------------------------- */

/**
 * fmt_host_name() - the host CA node @node belongs to: the first word of its
 * description (a node-name-map's name once applied: fmt_names_apply()),
 * without a domain, other characters than letters, digits, '-' and '_' made
 * '_'; "ca-GUID" when that leaves nothing
 */
void fmt_host_name(const struct fabric *f, uint32_t node, char *buf, size_t size);

/**
 * struct fmt_hosts - the linked CA ports, grouped by host name
 * @n: hosts, in natural order of their names (node2 before node10)
 * @name: each host's name
 * @off, @ep: host h's endpoints are @ep[@off[h] .. @off[h + 1]), by port GUID
 */
struct fmt_hosts {
	uint32_t n;
	char **name;
	uint32_t *off, *ep;
};

/** fmt_hosts_build() - the hosts of @f. Return: 0, or -1 with @err. */
int fmt_hosts_build(const struct fabric *f, struct fmt_hosts *h, struct fab_err *err);
void fmt_hosts_free(struct fmt_hosts *h);
/** fmt_hosts_find() - the index of host @name, FAB_NONE when there is none. */
uint32_t fmt_hosts_find(const struct fmt_hosts *h, const char *name);

/** What fmt_hosts_write() writes. */
enum fmt_hosts_fmt {
	FMT_HOSTS_TEXT = 0,	/* a table: host, port, LID, LMC, path bits, other DLIDs */
	FMT_HOSTS_UCX,		/* ucx.conf lines, per host */
	FMT_HOSTS_ENV,		/* a sh fragment exporting the host's UCX path bits */
	FMT_HOSTS_JSON,		/* fmt_hosts_json() */
};

/** fmt_hosts_format_from_name() - "text", "ucx", "env", "json"; -1 when unknown. */
int fmt_hosts_format_from_name(const char *name);

/**
 * fmt_hosts_write() - what host @only (FAB_NONE: every host) needs of
 * routing @r in format @fmt: per port its path bits (the value below 2^LMC
 * with which base LID | bits is the planned DLID of the most CAs), the
 * UCX_IB_LID_PATH_BITS value, and (json) the CAs planned at other DLIDs. Return: 0, or -1 with errno set.
 */
int fmt_hosts_write(FILE *out, const struct fabric *f, const struct rt_routing *r,
		    const struct fmt_hosts *h, uint32_t only, enum fmt_hosts_fmt fmt);
/**
 * fmt_hosts_json() - host @only as {"host", "ports": [{"node", "guid",
 * "port", "lid", "lmc", "leaf", "path_bits", "other_dlids"}], "ucx",
 * "ports_differ", "other_dlids"}; with FAB_NONE {"count", "hosts": [...]}
 */
json_t *fmt_hosts_json(const struct fabric *f, const struct rt_routing *r,
		       const struct fmt_hosts *h, uint32_t only);

/* --- Slurm's topology.conf (formats/fmt_slurm.c) ---------------------------- */

enum fmt_slurm {
	FMT_SLURM_TREE = 0,	/* topology/tree: switches by level, hosts under the leaves */
	FMT_SLURM_BLOCK,	/* topology/block: one block per dragonfly group */
};

/** fmt_slurm_format_from_name() - "slurm-tree" or "slurm-block"; -1 when neither. */
int fmt_slurm_format_from_name(const char *name);

/**
 * fmt_slurm_write() - Slurm's topology.conf for @f in @form (see
 * formats/fmt_slurm.c): hosts @hs, switches named by their descriptions;
 * for blocks, the groups from a groups file's contents (@groups, @glen
 * bytes named @gname; NULL: found).
 * Return: 0, or -1 with @err set (not a tree, no groups, no hosts, a write
 * error), possibly after part of the file was written.
 */
int fmt_slurm_write(FILE *out, const struct fabric *f, const struct fmt_hosts *hs,
		    enum fmt_slurm form, const char *groups, size_t glen, const char *gname,
		    struct fab_err *err);

/* --- dragonfly groups files (formats/fmt_groups.c) ---------------------- */

struct fab_dfly;

/**
 * fmt_groups_read() - the group label of every switch of @f from a groups
 * file ("NODE GROUP" lines, see formats/fmt_groups.c): @group[s] for switch
 * index s, labels numbered from 0 in the order the file first names them.
 * Return: 0; FAB_DFLY_NOT (fabric/dfly.h) when some switch is not named;
 * -1 with @err naming the file and line of a malformed or ambiguous line.
 */
int fmt_groups_read(const struct fabric *f, const char *buf, size_t len, const char *name,
		    uint32_t *group, struct fab_err *err);

/**
 * fmt_dfly_find() - fab_dfly_find() with the groups taken from a groups
 * file's contents (@len bytes named @name), or discovered when @buf is NULL.
 * Return: as fab_dfly_find(); -1 also for a malformed file.
 */
int fmt_dfly_find(const struct fabric *f, const char *buf, size_t len, const char *name,
		  struct fab_dfly *d, struct fab_err *err);

/* --- node-name-map files (formats/fmt_names.c) ------------------------- */

/** struct fmt_names - a node-name-map: node @guid[i] is named @name[i] */
struct fmt_names {
	size_t n;
	uint64_t *guid;
	char **name;
};

/**
 * fmt_names_parse() - read a node-name-map file (OpenSM's and the diags'
 * format: "GUID NAME" per line, see formats/fmt_names.c)
 * Return: 0 with @m filled (fmt_names_free() it), or -1 with @err set
 * ("NAME:LINE: ...") and @m empty.
 */
int fmt_names_parse(const char *buf, size_t len, const char *name, struct fmt_names *m,
		    struct fab_err *err);
/**
 * fmt_guids_parse() - read a GUID file as OpenSM reads root_guid_file,
 * cn_guid_file and io_guid_file: a node-name-map whose names are ignored,
 * one GUID per line, each once, in file order.
 * Return: 0 with *@guids (free() it) and *@n set, or -1 with @err set.
 */
int fmt_guids_parse(const char *buf, size_t len, const char *name, uint64_t **guids, size_t *n,
		    struct fab_err *err);
/** fmt_names_load() - fmt_read_file() then fmt_names_parse(). */
int fmt_names_load(const char *path, struct fmt_names *m, struct fab_err *err);
void fmt_names_free(struct fmt_names *m);
/**
 * fmt_names_apply() - give the nodes of @f that @m lists their names as
 * descriptions (GUIDs @f does not have are ignored) and index them again.
 * Return: the nodes renamed, or -1 with @err set.
 */
int fmt_names_apply(struct fabric *f, const struct fmt_names *m, struct fab_err *err);

/* --- shared by the parsers (formats/fmt_lines.c) ------------------------ */

/**
 * struct fmt_lines - iterate over the lines of a buffer
 * @line: current line, NUL-terminated copy (without the newline)
 * @no: its 1-based number
 */
struct fmt_lines {
	const char *buf, *end, *pos;
	const char *name;
	char *line;
	size_t cap;
	unsigned no;
};

/**
 * fmt_check_size() - refuse what no text file of ours can be: a buffer over
 * @max bytes, or binary data (a NUL byte; the message gives its line).
 * Return: 0, or -1 with @err set.
 */
int fmt_check_size(const char *buf, size_t len, size_t max, const char *name,
		   struct fab_err *err);

/** fmt_check_text() - fmt_check_size() with FMT_SIZE_MAX. */
static inline int fmt_check_text(const char *buf, size_t len, const char *name,
				 struct fab_err *err)
{
	return fmt_check_size(buf, len, FMT_SIZE_MAX, name, err);
}

void fmt_lines_init(struct fmt_lines *it, const char *buf, size_t len, const char *name);
/** fmt_lines_next() - advance; 1 when a line is there, 0 at the end, -1 when out of memory. */
int fmt_lines_next(struct fmt_lines *it);
void fmt_lines_fini(struct fmt_lines *it);
/** fmt_err_at() - set @err to "NAME:LINE: " followed by the message. */
void fmt_err_at(struct fab_err *err, const struct fmt_lines *it, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
