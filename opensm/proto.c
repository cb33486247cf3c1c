/* SPDX-License-Identifier: MIT */
/**
 * DOC: the fabroute-osm protocol
 *
 * Frames are read and written with poll() against a deadline, so that
 * neither OpenSM nor the daemon can be held by a slow or silent peer.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "opensm/proto.h"

static void seterr(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

int64_t osmp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for @events on @fd until @deadline; 0 when ready, -1 with @err. */
static int wait_fd(int fd, short events, int64_t deadline, char *err, size_t errlen)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		int64_t left = deadline < 0 ? -1 : deadline - osmp_now_ms();
		int rc;

		if (deadline >= 0 && left <= 0) {
			seterr(err, errlen, "timed out");
			return -1;
		}
		rc = poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left);
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR) {
			seterr(err, errlen, "poll: %s", strerror(errno));
			return -1;
		}
	}
}

static int write_all(int fd, const char *b, size_t n, int64_t deadline, char *err, size_t errlen)
{
	while (n) {
		ssize_t w;

		if (wait_fd(fd, POLLOUT, deadline, err, errlen))
			return -1;
		w = send(fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w <= 0) {
			seterr(err, errlen, "write: %s", w < 0 ? strerror(errno) : "nothing written");
			return -1;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, char *b, size_t n, int64_t deadline, char *err, size_t errlen)
{
	while (n) {
		ssize_t r;

		if (wait_fd(fd, POLLIN, deadline, err, errlen))
			return -1;
		r = recv(fd, b, n, MSG_DONTWAIT);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0) {
			seterr(err, errlen, "%s", r ? strerror(errno) : "connection closed");
			return -1;
		}
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

int osmp_send(int fd, json_t *msg, int64_t deadline_ms, char *err, size_t errlen)
{
	char *text;
	size_t n;
	unsigned char hdr[4];
	int rc;

	json_object_set_new(msg, "v", json_integer(OSMP_VERSION));
	text = json_dumps(msg, JSON_COMPACT);
	if (!text) {
		seterr(err, errlen, "cannot encode the message (out of memory?)");
		return -1;
	}
	n = strlen(text);
	if (n > OSMP_MSG_MAX) {
		seterr(err, errlen, "message of %zu bytes is larger than %u", n, OSMP_MSG_MAX);
		free(text);
		return -1;
	}
	hdr[0] = (unsigned char)(n >> 24);
	hdr[1] = (unsigned char)(n >> 16);
	hdr[2] = (unsigned char)(n >> 8);
	hdr[3] = (unsigned char)n;
	rc = write_all(fd, (const char *)hdr, 4, deadline_ms, err, errlen) ||
	     write_all(fd, text, n, deadline_ms, err, errlen) ? -1 : 0;
	free(text);
	return rc;
}

json_t *osmp_recv(int fd, int64_t deadline_ms, char *err, size_t errlen)
{
	unsigned char hdr[4];
	json_error_t je;
	json_t *msg, *v;
	uint32_t n;
	char *buf;

	if (read_all(fd, (char *)hdr, 4, deadline_ms, err, errlen))
		return NULL;
	n = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	if (n == 0 || n > OSMP_MSG_MAX) {
		seterr(err, errlen, "frame of %" PRIu32 " bytes (1 to %u allowed)", n, OSMP_MSG_MAX);
		return NULL;
	}
	buf = malloc(n);
	if (!buf) {
		seterr(err, errlen, "out of memory for a frame of %" PRIu32 " bytes", n);
		return NULL;
	}
	if (read_all(fd, buf, n, deadline_ms, err, errlen)) {
		free(buf);
		return NULL;
	}
	msg = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	if (!msg || !json_is_object(msg) || !json_is_string(json_object_get(msg, "type"))) {
		seterr(err, errlen, "not a message: %s", msg ? "expected an object with a \"type\"" : je.text);
		json_decref(msg);
		return NULL;
	}
	v = json_object_get(msg, "v");
	if (!json_is_integer(v) || json_integer_value(v) != OSMP_VERSION) {
		seterr(err, errlen, "protocol version %lld, expected %d",
		       json_is_integer(v) ? (long long)json_integer_value(v) : -1LL, OSMP_VERSION);
		json_decref(msg);
		return NULL;
	}
	return msg;
}

int osmp_connect(const char *path, int64_t deadline_ms, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, rc;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		seterr(err, errlen, "socket path '%s' is too long", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		seterr(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (rc && errno == EINPROGRESS && wait_fd(fd, POLLOUT, deadline_ms, err, errlen) == 0) {
		socklen_t l = sizeof(rc);

		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &rc, &l) == 0 && rc)
			errno = rc;
		else
			rc = 0;
	}
	if (rc) {
		seterr(err, errlen, "connect %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

const char *osmp_type(const json_t *msg)
{
	const char *t = json_string_value(json_object_get(msg, "type"));

	return t ? t : "";
}

json_t *osmp_hex(const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *s = malloc(2 * n + 1);
	json_t *j;

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		s[2 * i] = digits[b[i] >> 4];
		s[2 * i + 1] = digits[b[i] & 15];
	}
	j = json_stringn(s, 2 * n);
	free(s);
	return j;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

long osmp_unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (long)(n / 2);
}

json_t *osmp_guid(uint64_t guid)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%016" PRIx64, guid);
	return json_string(s);
}

int osmp_guid_parse(const json_t *s, uint64_t *guid)
{
	const char *t = json_string_value(s);
	uint64_t v = 0;
	size_t i;

	if (!t || t[0] != '0' || (t[1] != 'x' && t[1] != 'X') || !t[2] || strlen(t + 2) > 16)
		return -1;
	for (i = 2; t[i]; i++) {
		int d = hexval(t[i]);

		if (d < 0)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	*guid = v;
	return 0;
}
