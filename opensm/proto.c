/* SPDX-License-Identifier: MIT */
/**
 * DOC: the fabroute-osm protocol
 *
 * Frames are read and written with poll() against a deadline, so that
 * neither OpenSM nor the daemon can be held by a slow or silent peer. A
 * payload is written with writev() straight from the caller's buffers (the
 * daemon's LFTs are sent where the routing keeps them).
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

int osmp_deadline_ms(uint64_t switches, uint64_t lids)
{
	uint64_t entries = switches * lids, ms;

	if (switches > UINT32_MAX || lids > UINT32_MAX)
		return OSMP_DEADLINE_MAX_MS;
	ms = OSMP_DEADLINE_BASE_MS + (entries / 1000 * OSMP_DEADLINE_PER_MENTRY_MS + 999) / 1000;

	return ms > OSMP_DEADLINE_MAX_MS ? OSMP_DEADLINE_MAX_MS : (int)ms;
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

/* Buffers handed to one sendmsg() at most (the kernel's IOV_MAX). */
#define OSMP_SEND_IOV 1024u

/* Write the @n buffers of @iov (consumed as written) before @deadline. */
static int write_iov(int fd, struct iovec *iov, int n, int64_t deadline, char *err, size_t errlen)
{
	struct iovec *end = iov + n;
	struct msghdr mh = { .msg_iov = iov };

	for (;;) {
		ssize_t w;

		while (mh.msg_iov < end && !mh.msg_iov->iov_len)
			mh.msg_iov++;
		if (mh.msg_iov == end)
			return 0;
		mh.msg_iovlen = (size_t)(end - mh.msg_iov);
		mh.msg_iovlen = mh.msg_iovlen < OSMP_SEND_IOV ? mh.msg_iovlen : OSMP_SEND_IOV;
		if (wait_fd(fd, POLLOUT, deadline, err, errlen))
			return -1;
		w = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w <= 0) {
			seterr(err, errlen, "write: %s", w < 0 ? strerror(errno) : "nothing written");
			return -1;
		}
		for (size_t left = (size_t)w; left;) {
			size_t k = left < mh.msg_iov->iov_len ? left : mh.msg_iov->iov_len;

			mh.msg_iov->iov_base = (char *)mh.msg_iov->iov_base + k;
			mh.msg_iov->iov_len -= k;
			left -= k;
			if (!mh.msg_iov->iov_len && left)
				mh.msg_iov++;
		}
	}
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

/* The frame's payload length: the sum of @pay, or -1 when above OSMP_PAYLOAD_MAX. */
static long long payload_len(const struct iovec *pay, int npay)
{
	size_t n = 0;

	for (int i = 0; i < npay; i++) {
		if (pay[i].iov_len > OSMP_PAYLOAD_MAX - n)
			return -1;
		n += pay[i].iov_len;
	}
	return (long long)n;
}

/* Payload parts osmp_send() takes without allocating. */
#define OSMP_IOV_STACK 8

int osmp_send(int fd, json_t *msg, const struct iovec *pay, int npay, int64_t deadline_ms,
	      char *err, size_t errlen)
{
	long long plen = payload_len(pay, npay);
	struct iovec stack[OSMP_IOV_STACK + 2], *iov = stack;
	unsigned char hdr[4];
	char *text;
	size_t n;
	int rc;

	if (plen < 0) {
		seterr(err, errlen, "payload larger than %u bytes", OSMP_PAYLOAD_MAX);
		return -1;
	}
	if (npay > OSMP_IOV_STACK && !(iov = malloc(((size_t)npay + 2) * sizeof(*iov)))) {
		seterr(err, errlen, "out of memory for %d payload parts", npay);
		return -1;
	}
	json_object_set_new(msg, "v", json_integer(OSMP_VERSION));
	if (plen)
		json_object_set_new(msg, "payload", json_integer(plen));
	text = json_dumps(msg, JSON_COMPACT);
	n = text ? strlen(text) : 0;
	if (!text || n > OSMP_MSG_MAX) {
		if (text)
			seterr(err, errlen, "message of %zu bytes is larger than %u", n, OSMP_MSG_MAX);
		else
			seterr(err, errlen, "cannot encode the message (out of memory?)");
		free(text);
		if (iov != stack)
			free(iov);
		return -1;
	}
	hdr[0] = (unsigned char)(n >> 24);
	hdr[1] = (unsigned char)(n >> 16);
	hdr[2] = (unsigned char)(n >> 8);
	hdr[3] = (unsigned char)n;
	iov[0] = (struct iovec){ .iov_base = hdr, .iov_len = 4 };
	iov[1] = (struct iovec){ .iov_base = text, .iov_len = n };
	for (int i = 0; i < npay; i++)
		iov[2 + i] = pay[i];
	rc = write_iov(fd, iov, 2 + npay, deadline_ms, err, errlen);
	free(text);
	if (iov != stack)
		free(iov);
	return rc;
}

/* The frame's JSON object (at most @max bytes), or NULL with @err. */
static json_t *recv_object(int fd, int64_t deadline_ms, uint32_t max, char *err, size_t errlen)
{
	unsigned char hdr[4];
	json_error_t je;
	json_t *msg;
	uint32_t n;
	char *buf;

	if (read_all(fd, (char *)hdr, 4, deadline_ms, err, errlen))
		return NULL;
	n = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
	if (n == 0 || n > max) {
		seterr(err, errlen, "frame of %" PRIu32 " bytes (1 to %" PRIu32 " allowed)", n, max);
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
	return msg;
}

/* Read the payload @msg announces (at most @max bytes) into @rx; 0 or -1 with @err. */
static int recv_payload(int fd, const json_t *msg, int64_t deadline_ms, uint32_t max, struct osmp_rx *rx,
			char *err, size_t errlen)
{
	const json_t *p = json_object_get(msg, "payload");
	json_int_t n = json_integer_value(p);

	if (!p)
		return 0;
	if (!json_is_integer(p) || n < 0 || n > max) {
		seterr(err, errlen, "payload of %s bytes (0 to %" PRIu32 " allowed)",
		       json_is_integer(p) ? "too many" : "a non-integer number of", max);
		return -1;
	}
	if (n && !rx) {
		seterr(err, errlen, "a '%s' message with a payload of %lld bytes (none expected)",
		       osmp_type(msg), (long long)n);
		return -1;
	}
	if (!n)
		return 0;
	rx->payload = malloc((size_t)n);
	if (!rx->payload) {
		seterr(err, errlen, "out of memory for a payload of %lld bytes", (long long)n);
		return -1;
	}
	rx->len = (size_t)n;
	if (read_all(fd, (char *)rx->payload, (size_t)n, deadline_ms, err, errlen)) {
		free(rx->payload);
		rx->payload = NULL;
		rx->len = 0;
		return -1;
	}
	return 0;
}

json_t *osmp_recv(int fd, int64_t deadline_ms, struct osmp_rx *rx, char *err, size_t errlen)
{
	return osmp_recv_max(fd, deadline_ms, rx, OSMP_MSG_MAX, OSMP_PAYLOAD_MAX, err, errlen);
}

json_t *osmp_recv_max(int fd, int64_t deadline_ms, struct osmp_rx *rx, uint32_t msg_max, uint32_t payload_max,
		      char *err, size_t errlen)
{
	json_t *msg, *v;

	if (rx)
		*rx = (struct osmp_rx){ 0 };
	msg = recv_object(fd, deadline_ms, msg_max, err, errlen);
	if (!msg)
		return NULL;
	v = json_object_get(msg, "v");
	if (!json_is_integer(v) || json_integer_value(v) != OSMP_VERSION) {
		long long pv = json_is_integer(v) ? (long long)json_integer_value(v) : 0;

		if (pv > 0)
			seterr(err, errlen, "peer speaks fabroute-osm protocol %lld, this build speaks %d", pv,
			       OSMP_VERSION);
		else
			seterr(err, errlen, "a message without a protocol version (\"v\")");
		if (rx)
			rx->peer_v = pv;
		json_decref(msg);
		return NULL;
	}
	if (recv_payload(fd, msg, deadline_ms, payload_max, rx, err, errlen)) {
		json_decref(msg);
		return NULL;
	}
	return msg;
}

void osmp_refuse_version(int fd, long long peer_v, const char *message, int64_t deadline_ms)
{
	json_t *m = json_pack("{s:s, s:I, s:s}", "type", "error", "v", (json_int_t)peer_v, "message", message);
	char *text = m ? json_dumps(m, JSON_COMPACT) : NULL;
	size_t n = text ? strlen(text) : 0;
	unsigned char hdr[4] = { (unsigned char)(n >> 24), (unsigned char)(n >> 16), (unsigned char)(n >> 8),
				 (unsigned char)n };
	struct iovec iov[2] = { { .iov_base = hdr, .iov_len = 4 }, { .iov_base = text, .iov_len = n } };
	char err[64];

	if (text)
		write_iov(fd, iov, 2, deadline_ms, err, sizeof(err));	/* best effort: the peer is leaving */
	free(text);
	json_decref(m);
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

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
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
