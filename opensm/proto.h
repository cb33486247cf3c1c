/* SPDX-License-Identifier: MIT */
/**
 * DOC: the fabroute-osm protocol
 *
 * How the OpenSM plugin (libfabroute-osm.so) and fabrouted talk over a unix
 * stream socket. doc/osm-protocol.md is the full specification; in short:
 *
 * - Framing: a 4-byte big-endian length N (1 <= N <= OSMP_MSG_MAX), then N
 *   bytes of UTF-8 JSON, one object with a "type" string and "v" (the
 *   protocol version, OSMP_VERSION). A frame out of bounds, JSON that does
 *   not parse, a missing type or another version ends the connection.
 * - The plugin opens two connections, each starting with
 *   {"type":"hello","v":1,"role":"route"|"control","opensm":VERSION,"plugin":VERSION}
 *   and the daemon's {"type":"hello","v":1,"daemon":VERSION} (or
 *   {"type":"error",...} and close).
 * - route: request/answer. {"type":"route","id":N,"subnet":{...}} gets
 *   {"type":"routing","id":N,"epoch":SEQ,"engine":NAME,"lfts":[...]} or
 *   {"type":"error","id":N,"message":TEXT}.
 * - control: the plugin sends {"type":"event",...}; the daemon may send
 *   {"type":"sweep","heavy":true|false} at any time.
 *
 * This module is shared by both sides and depends only on jansson and libc.
 */
#ifndef FABROUTE_OSM_PROTO_H
#define FABROUTE_OSM_PROTO_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define OSMP_VERSION 1
/** Largest frame: a subnet of 48k endpoints, or its LFTs in hex, fits well below. */
#define OSMP_MSG_MAX (256u << 20)
/** Default socket path (event_plugin_options socket=PATH, fabrouted --socket PATH). */
#define OSMP_SOCKET_DEFAULT "/run/fabroute/osm.sock"

/**
 * osmp_now_ms() - monotonic clock in milliseconds, for deadlines.
 */
int64_t osmp_now_ms(void);

/**
 * osmp_send() - write @msg as one frame (adds "v"), before @deadline_ms
 * (osmp_now_ms() time; < 0: no deadline)
 * Return: 0, or -1 with @err (timeout, peer gone, too large).
 */
int osmp_send(int fd, json_t *msg, int64_t deadline_ms, char *err, size_t errlen);

/**
 * osmp_recv() - read one frame before @deadline_ms
 * Return: the object (caller decrefs) with a string "type" and "v" ==
 * OSMP_VERSION, or NULL with @err ("timed out", "connection closed",
 * "frame of N bytes", "not JSON: ...", "protocol version N, expected 1").
 */
json_t *osmp_recv(int fd, int64_t deadline_ms, char *err, size_t errlen);

/**
 * osmp_connect() - connect to the unix socket @path before @deadline_ms.
 * Return: a blocking, close-on-exec fd, or -1 with @err.
 */
int osmp_connect(const char *path, int64_t deadline_ms, char *err, size_t errlen);

/** osmp_type() - the message's "type", "" when absent. */
const char *osmp_type(const json_t *msg);

/** osmp_hex() - @n bytes as a new JSON string of 2n lowercase hex digits. */
json_t *osmp_hex(const uint8_t *b, size_t n);
/**
 * osmp_unhex() - decode a hex string into @out (at most @cap bytes)
 * Return: bytes decoded, or -1 when not an even-length hex string or too long.
 */
long osmp_unhex(const char *hex, uint8_t *out, size_t cap);

/** osmp_guid() - a GUID as the JSON string "0x%016llx". */
json_t *osmp_guid(uint64_t guid);
/** osmp_guid_parse() - parse "0x..." (1 to 16 hex digits); 0 or -1. */
int osmp_guid_parse(const json_t *s, uint64_t *guid);

#endif
