/* SPDX-License-Identifier: MIT */
/**
 * DOC: the fabroute-osm protocol
 *
 * How the OpenSM plugin (libfabroute-osm.so) and fabrouted talk over a unix
 * stream socket. doc/osm-protocol.md is the full specification; in short:
 *
 * - Framing: a 4-byte big-endian length N (1 <= N <= OSMP_MSG_MAX), then N
 *   bytes of UTF-8 JSON, one object with a "type" string and "v" (the
 *   protocol version, OSMP_VERSION). An object with "payload": P is followed
 *   by P raw bytes (P <= OSMP_PAYLOAD_MAX) whose layout the message's type
 *   defines. A frame out of bounds, JSON that does not parse, a missing
 *   type or another version ends the connection.
 * - The plugin opens two connections, each starting with
 *   {"type":"hello","v":3,"role":"route"|"control","opensm":VERSION,"plugin":VERSION}
 *   and the daemon's {"type":"hello","v":3,"daemon":VERSION} (or
 *   {"type":"error",...} and close). A peer of another version is refused
 *   with one log line on each side.
 * - route: request/answer. {"type":"route","id":N,"subnet":{counts},
 *   "payload":P} and P bytes of node, port and link records (the subnet,
 *   binary) gets {"type":"routing","id":N,...,"payload":P} and P bytes of
 *   LFTs, SL2VL tables and path SLs, or {"type":"error","id":N,"message":TEXT}.
 * - control: the plugin sends {"type":"event",...} (a "pass_result" after
 *   each routing pass); the daemon may send {"type":"sweep","heavy":B}.
 *
 * This module is shared by both sides and depends only on jansson and libc.
 */
#ifndef FABROUTE_OSM_PROTO_H
#define FABROUTE_OSM_PROTO_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define OSMP_VERSION 3
/** Largest JSON part of a frame (the subnet travels in the payload). */
#define OSMP_MSG_MAX (256u << 20)
/** Largest binary payload after it (a subnet; LFTs, SL2VL tables and path SLs of a routing). */
#define OSMP_PAYLOAD_MAX (1u << 30)
/** Default socket path (event_plugin_options socket=PATH, fabrouted --socket PATH). */
#define OSMP_SOCKET_DEFAULT "/run/fabroute/osm.sock"

/**
 * osmp_now_ms() - monotonic clock in milliseconds, for deadlines.
 */
int64_t osmp_now_ms(void);

/* The routing pass's deadline when timeout_ms is not set: base + per 10^6 LFT entries, bounded. */
#define OSMP_DEADLINE_BASE_MS 2000
#define OSMP_DEADLINE_PER_MENTRY_MS 50
#define OSMP_DEADLINE_MIN_MS 100
#define OSMP_DEADLINE_MAX_MS 60000

/**
 * osmp_deadline_ms() - how long a routing pass of a subnet with @switches
 * switches and @lids LIDs may take before OpenSM's own engine routes it:
 * OSMP_DEADLINE_BASE_MS plus OSMP_DEADLINE_PER_MENTRY_MS per million LFT
 * entries (@switches x @lids, what routing and its proof grow with), at
 * most OSMP_DEADLINE_MAX_MS. doc/deploy.md gives the figures it rests on.
 */
int osmp_deadline_ms(uint64_t switches, uint64_t lids);

/**
 * osmp_send() - write @msg as one frame (adds "v", and "payload" when
 * @pay holds bytes), then the @npay buffers of @pay, before @deadline_ms
 * (osmp_now_ms() time; < 0: no deadline). @pay may be NULL.
 * Return: 0, or -1 with @err (timeout, peer gone, too large).
 */
int osmp_send(int fd, json_t *msg, const struct iovec *pay, int npay, int64_t deadline_ms,
	      char *err, size_t errlen);

/**
 * struct osmp_rx - what osmp_recv() read besides the object
 * @payload: the frame's payload (malloc'd, the caller frees it), NULL when none
 * @len: its length
 * @peer_v: the peer's protocol version when the frame was refused for it, else 0
 */
struct osmp_rx {
	uint8_t *payload;
	size_t len;
	long long peer_v;
};

/**
 * osmp_recv() - read one frame before @deadline_ms
 * @rx: gets the payload and the peer's version; NULL when the message read
 *	may not carry a payload (one that does is then an error)
 *
 * Return: the object (caller decrefs) with a string "type" and "v" ==
 * OSMP_VERSION, or NULL with @err ("timed out", "connection closed",
 * "frame of N bytes", "not a message: ...", "peer speaks fabroute-osm
 * protocol N, this build speaks 3").
 */
json_t *osmp_recv(int fd, int64_t deadline_ms, struct osmp_rx *rx, char *err, size_t errlen);

/**
 * osmp_recv_max() - osmp_recv() with the JSON part at most @msg_max bytes
 * and the payload at most @payload_max (each at most the protocol's own
 * bounds): what a receiver expects of its peer, so that a frame it cannot
 * want costs it nothing.
 */
json_t *osmp_recv_max(int fd, int64_t deadline_ms, struct osmp_rx *rx, uint32_t msg_max, uint32_t payload_max,
		      char *err, size_t errlen);

/**
 * osmp_refuse_version() - answer a peer of protocol version @peer_v with an
 * "error" frame of its own version carrying @message (best effort).
 */
void osmp_refuse_version(int fd, long long peer_v, const char *message, int64_t deadline_ms);

/**
 * osmp_connect() - connect to the unix socket @path before @deadline_ms.
 * Return: a blocking, close-on-exec fd, or -1 with @err.
 */
int osmp_connect(const char *path, int64_t deadline_ms, char *err, size_t errlen);

/** osmp_type() - the message's "type", "" when absent. */
const char *osmp_type(const json_t *msg);

/**
 * osmp_nibble() - entry @i of a table of 4-bit values packed two to a byte,
 * the even entry in the high nibble (the order of IB's SL2VL table).
 */
static inline unsigned osmp_nibble(const uint8_t *b, size_t i)
{
	return i % 2 ? b[i / 2] & 15u : b[i / 2] >> 4;
}

/** osmp_set_nibble() - set entry @i (see osmp_nibble()) to @v (0 to 15). */
static inline void osmp_set_nibble(uint8_t *b, size_t i, unsigned v)
{
	b[i / 2] = (uint8_t)(i % 2 ? (b[i / 2] & 0xf0u) | (v & 15u) : (b[i / 2] & 15u) | (v & 15u) << 4);
}

/*
 * The records of a route request's payload, back to back: nodes, ports,
 * links; integers big-endian (doc/osm-protocol.md has the offsets).
 */
#define OSMP_NODE_REC 88	/* guid 8, sysimg 8, vendor 4, device 2, type 1, ports 1, desc 64 */
#define OSMP_PORT_REC 24	/* node 4, guid 8, lid 2, port, lmc, state, phys, width, speed, vls, 3 zero */
#define OSMP_LINK_REC 12	/* node a 4, node b 4, port a, port b, 2 zero */
#define OSMP_DESC_LEN 64	/* NodeDescription */
/* Node types in a node record (IB's NodeType). */
#define OSMP_NODE_CA 1
#define OSMP_NODE_SW 2
#define OSMP_NODE_RT 3

/** osmp_put16(), osmp_put32(), osmp_put64() - store @v big-endian at @b. */
static inline void osmp_put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static inline void osmp_put32(uint8_t *b, uint32_t v)
{
	osmp_put16(b, (uint16_t)(v >> 16));
	osmp_put16(b + 2, (uint16_t)v);
}

static inline void osmp_put64(uint8_t *b, uint64_t v)
{
	osmp_put32(b, (uint32_t)(v >> 32));
	osmp_put32(b + 4, (uint32_t)v);
}

/** osmp_get16(), osmp_get32(), osmp_get64() - load a big-endian integer from @b. */
static inline uint16_t osmp_get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t osmp_get32(const uint8_t *b)
{
	return (uint32_t)osmp_get16(b) << 16 | osmp_get16(b + 2);
}

static inline uint64_t osmp_get64(const uint8_t *b)
{
	return (uint64_t)osmp_get32(b) << 32 | osmp_get32(b + 4);
}

/** osmp_guid() - a GUID as the JSON string "0x%016llx". */
json_t *osmp_guid(uint64_t guid);
/** osmp_guid_parse() - parse "0x..." (1 to 16 hex digits); 0 or -1. */
int osmp_guid_parse(const json_t *s, uint64_t *guid);

#endif
