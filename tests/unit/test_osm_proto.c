/* SPDX-License-Identifier: MIT */
/*
 * The fabroute-osm protocol, version 3, without OpenSM: frames with a
 * binary payload over a socket pair (written in parts, read whole), a peer
 * of another version refused by name, payloads where none may be, the
 * nibble packing and big-endian integers; the subnet's records decoded
 * into a fabric, and records out of range or a payload of the wrong
 * length refused by name; and the daemon's side of a routing answer: a
 * subnet's VL counts becoming the nodes' vl_cap, the LFT section sent from the
 * routing's buffer, only the SL2VL tables that differ from the default
 * mapping, and path-SL rows for the sources that use SLs (every LID of an
 * LMC range).
 */
#include <jansson.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/source_osm.h"
#include "opensm/proto.h"
#include "tests/unit/testutil.h"

/* --- framing ------------------------------------------------------------- */

static void pair(int fd[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd), 0);
}

static void test_payload_roundtrip(void **state)
{
	uint8_t a[3000], b[5];
	struct iovec iov[2] = { { .iov_base = a, .iov_len = sizeof(a) }, { .iov_base = b, .iov_len = sizeof(b) } };
	json_t *m = json_pack("{s:s, s:i}", "type", "routing", "id", 7), *got;
	struct osmp_rx rx;
	char err[128];
	int fd[2];

	(void)state;
	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i * 7);
	memcpy(b, "\x01\x02\x03\x04\x05", 5);
	pair(fd);
	assert_int_equal(osmp_send(fd[0], m, iov, 2, osmp_now_ms() + 2000, err, sizeof(err)), 0);
	got = osmp_recv(fd[1], osmp_now_ms() + 2000, &rx, err, sizeof(err));
	assert_non_null(got);
	assert_int_equal(json_integer_value(json_object_get(got, "v")), 3);
	assert_int_equal(json_integer_value(json_object_get(got, "payload")), sizeof(a) + sizeof(b));
	assert_int_equal(json_integer_value(json_object_get(got, "id")), 7);
	assert_int_equal(rx.len, sizeof(a) + sizeof(b));
	assert_memory_equal(rx.payload, a, sizeof(a));
	assert_memory_equal(rx.payload + sizeof(a), b, sizeof(b));
	assert_int_equal(rx.peer_v, 0);
	free(rx.payload);
	json_decref(got);
	/* no payload: no "payload" member, nothing allocated */
	json_object_del(m, "payload");
	assert_int_equal(osmp_send(fd[0], m, NULL, 0, osmp_now_ms() + 2000, err, sizeof(err)), 0);
	got = osmp_recv(fd[1], osmp_now_ms() + 2000, &rx, err, sizeof(err));
	assert_non_null(got);
	assert_null(json_object_get(got, "payload"));
	assert_null(rx.payload);
	json_decref(got);
	json_decref(m);
	close(fd[0]);
	close(fd[1]);
}

/* A payload in more parts than one sendmsg() takes (the kernel's IOV_MAX) arrives whole, in order. */
static void test_payload_parts(void **state)
{
	enum { N = 2500 };
	struct iovec *iov = calloc(N, sizeof(*iov));
	uint8_t *a = malloc(N);
	json_t *m = json_pack("{s:s}", "type", "routing"), *got;
	struct osmp_rx rx;
	char err[128];
	int fd[2];

	(void)state;
	for (size_t i = 0; i < N; i++) {
		a[i] = (uint8_t)(i * 13 + 1);
		iov[i] = (struct iovec){ .iov_base = a + i, .iov_len = 1 };
	}
	pair(fd);
	assert_int_equal(osmp_send(fd[0], m, iov, N, osmp_now_ms() + 2000, err, sizeof(err)), 0);
	got = osmp_recv(fd[1], osmp_now_ms() + 2000, &rx, err, sizeof(err));
	assert_non_null(got);
	assert_int_equal(rx.len, N);
	assert_memory_equal(rx.payload, a, N);
	free(rx.payload);
	json_decref(got);
	json_decref(m);
	free(iov);
	free(a);
	close(fd[0]);
	close(fd[1]);
}

/* Write one raw frame: the 4-byte length and @json, then @extra. */
static void raw(int fd, const char *json, const char *extra)
{
	uint32_t n = (uint32_t)strlen(json);
	uint8_t hdr[4] = { (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n };

	assert_int_equal(write(fd, hdr, 4), 4);
	assert_int_equal(write(fd, json, n), (ssize_t)n);
	if (extra)
		assert_int_equal(write(fd, extra, strlen(extra)), (ssize_t)strlen(extra));
}

static void test_other_version(void **state)
{
	struct osmp_rx rx;
	char err[128], buf[256];
	json_t *m;
	int fd[2];
	ssize_t n;

	(void)state;
	pair(fd);
	raw(fd[0], "{\"type\":\"hello\",\"v\":1,\"role\":\"route\"}", NULL);
	assert_null(osmp_recv(fd[1], osmp_now_ms() + 2000, &rx, err, sizeof(err)));
	assert_string_equal(err, "peer speaks fabroute-osm protocol 1, this build speaks 3");
	assert_int_equal(rx.peer_v, 1);
	raw(fd[0], "{\"type\":\"hello\"}", NULL);
	assert_null(osmp_recv(fd[1], osmp_now_ms() + 2000, &rx, err, sizeof(err)));
	assert_string_equal(err, "a message without a protocol version (\"v\")");
	assert_int_equal(rx.peer_v, 0);
	/* the refusal is written in the peer's version, so that a v1 plugin can read it */
	osmp_refuse_version(fd[1], 1, "go away", osmp_now_ms() + 2000);
	n = read(fd[0], buf, sizeof(buf) - 1);
	assert_true(n > 4);
	buf[n] = '\0';
	m = json_loads(buf + 4, 0, NULL);
	assert_non_null(m);
	assert_string_equal(osmp_type(m), "error");
	assert_int_equal(json_integer_value(json_object_get(m, "v")), 1);
	assert_string_equal(json_string_value(json_object_get(m, "message")), "go away");
	json_decref(m);
	close(fd[0]);
	close(fd[1]);
}

static void test_bad_payloads(void **state)
{
	struct osmp_rx rx;
	char err[128];
	int fd[2];

	(void)state;
	pair(fd);
	raw(fd[0], "{\"type\":\"event\",\"v\":3,\"payload\":3}", "abc");
	assert_null(osmp_recv(fd[1], osmp_now_ms() + 2000, NULL, err, sizeof(err)));
	assert_string_equal(err, "a 'event' message with a payload of 3 bytes (none expected)");
	close(fd[0]);
	close(fd[1]);
	pair(fd);
	raw(fd[0], "{\"type\":\"routing\",\"v\":3,\"payload\":2147483648}", NULL);
	assert_null(osmp_recv(fd[1], osmp_now_ms() + 2000, &rx, err, sizeof(err)));
	assert_string_equal(err, "payload of too many bytes (0 to 1073741824 allowed)");
	raw(fd[0], "{\"type\":\"routing\",\"v\":3,\"payload\":\"9\"}", NULL);
	assert_null(osmp_recv(fd[1], osmp_now_ms() + 2000, &rx, err, sizeof(err)));
	assert_string_equal(err, "payload of a non-integer number of bytes (0 to 1073741824 allowed)");
	/* announced, never sent: the deadline holds */
	raw(fd[0], "{\"type\":\"routing\",\"v\":3,\"payload\":10}", "12345");
	assert_null(osmp_recv(fd[1], osmp_now_ms() + 200, &rx, err, sizeof(err)));
	assert_string_equal(err, "timed out");
	assert_null(rx.payload);
	close(fd[0]);
	close(fd[1]);
}

static void test_nibbles(void **state)
{
	uint8_t b[3] = { 0 };

	(void)state;
	for (unsigned i = 0; i < 6; i++)
		osmp_set_nibble(b, i, 15 - i);
	assert_memory_equal(b, "\xfe\xdc\xba", 3);
	osmp_set_nibble(b, 3, 0);
	assert_int_equal(b[1], 0xd0);
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(osmp_nibble(b, i), i == 3 ? 0 : 15 - i);
}

/* --- the daemon's answer ----------------------------------------------------- */

/*
 * Two 4-port switches (LIDs 1, 2), h1 on swA[1] (LID 4, LMC 1: LIDs 4-5),
 * h2 on swB[1] (LID 8). swA's ports run VL0-7 (4), swB's port 3 VL0-3 (3).
 */
static const struct {
	uint64_t guid;
	uint8_t type, ports;
	const char *desc;
} NODES[] = { { 0x10, OSMP_NODE_SW, 4, "swA" }, { 0x20, OSMP_NODE_SW, 4, "swB" },
	      { 0x100, OSMP_NODE_CA, 1, "h1" }, { 0x200, OSMP_NODE_CA, 1, "h2" } };
/* node, port, guid, lid, lmc, vls (state 4, phys 5, width 2, speed 4) */
static const struct {
	uint32_t node;
	uint8_t port;
	uint64_t guid;
	uint16_t lid;
	uint8_t lmc, vls;
} PORTS[] = { { 0, 0, 0x10, 1, 0, 4 }, { 0, 1, 0x10, 0, 0, 4 }, { 0, 3, 0x10, 0, 0, 4 }, { 1, 0, 0x20, 2, 0, 4 },
	      { 1, 1, 0x20, 0, 0, 4 }, { 1, 3, 0x20, 0, 0, 3 }, { 2, 1, 0x101, 4, 1, 4 }, { 3, 1, 0x201, 8, 0, 4 } };
static const uint32_t LINKS[][4] = { { 0, 1, 2, 1 }, { 1, 1, 3, 1 }, { 0, 3, 1, 3 } };
#define NN (sizeof(NODES) / sizeof(NODES[0]))
#define NP (sizeof(PORTS) / sizeof(PORTS[0]))
#define NL (sizeof(LINKS) / sizeof(LINKS[0]))
#define SUBNET_LEN (NN * OSMP_NODE_REC + NP * OSMP_PORT_REC + NL * OSMP_LINK_REC)

/* The records of the subnet above into @b (SUBNET_LEN bytes), its counts into a new object. */
static json_t *subnet_records(uint8_t *b)
{
	memset(b, 0, SUBNET_LEN);
	for (size_t i = 0; i < NN; i++, b += OSMP_NODE_REC) {
		osmp_put64(b, NODES[i].guid);
		osmp_put64(b + 8, 0x5000);
		osmp_put32(b + 16, 0x2c9);
		osmp_put16(b + 20, 0xbd36);
		b[22] = NODES[i].type;
		b[23] = NODES[i].ports;
		memcpy(b + 24, NODES[i].desc, strlen(NODES[i].desc));
	}
	for (size_t i = 0; i < NP; i++, b += OSMP_PORT_REC) {
		osmp_put32(b, PORTS[i].node);
		osmp_put64(b + 4, PORTS[i].guid);
		osmp_put16(b + 12, PORTS[i].lid);
		b[14] = PORTS[i].port;
		b[15] = PORTS[i].lmc;
		b[16] = 4;
		b[17] = 5;
		b[18] = 2;
		b[19] = 4;
		b[20] = PORTS[i].vls;
	}
	for (size_t i = 0; i < NL; i++, b += OSMP_LINK_REC) {
		osmp_put32(b, LINKS[i][0]);
		osmp_put32(b + 4, LINKS[i][2]);
		b[8] = (uint8_t)LINKS[i][1];
		b[9] = (uint8_t)LINKS[i][3];
	}
	return json_pack("{s:s, s:i, s:i, s:i}", "sm_port_guid", "0x101", "nodes", (int)NN, "ports", (int)NP,
			 "links", (int)NL);
}

static struct epoch *subnet_epoch(void)
{
	struct fab_err err = { { 0 } };
	uint8_t b[SUBNET_LEN];
	json_t *j = subnet_records(b);
	struct epoch *e = epoch_new();

	assert_non_null(j);
	assert_non_null(e);
	e->fabric = srco_subnet_fabric(j, b, sizeof(b), &err);
	json_decref(j);
	if (!e->fabric)
		fail_msg("subnet: %s", err.msg);
	e->routing = rt_new(e->fabric);
	assert_non_null(e->routing);
	e->seq = 12;
	snprintf(e->engine, sizeof(e->engine), "test");
	return e;
}

static void test_subnet_records(void **state)
{
	struct epoch *e = subnet_epoch();
	const struct fabric *f = e->fabric;
	uint32_t h1 = tu_node(f, 0x100), swb = tu_node(f, 0x20), ep;

	(void)state;
	assert_int_equal(f->nnodes, 4);
	assert_int_equal(f->nswitches, 2);
	assert_int_equal(f->nlinks, 3);
	assert_string_equal(fab_desc(f, h1), "h1");
	assert_int_equal(f->nodes[h1].type, FAB_CA);
	assert_int_equal(f->nodes[swb].type, FAB_SWITCH);
	assert_int_equal(f->nodes[swb].nports, 4);
	assert_int_equal(f->nodes[h1].vendor_id, 0x2c9);
	assert_int_equal(f->nodes[h1].device_id, 0xbd36);
	assert_int_equal(f->nodes[h1].sysimg_guid, 0x5000);
	ep = fab_ep_by_port_guid(f, 0x101);
	assert_int_not_equal(ep, FAB_NONE);
	assert_int_equal(fab_ep_lid(f, ep), 4);
	assert_int_equal(fab_ep_lmc(f, ep), 1);
	assert_int_equal(fab_ep_by_lid(f, 5), ep);
	assert_int_equal(fab_port(f, swb, 0)->lid, 2);
	assert_int_equal(fab_port(f, swb, 3)->speed, 4);
	assert_int_equal(fab_port(f, swb, 3)->width, 2);
	assert_int_equal(fab_port(f, swb, 3)->state, 4);
	assert_int_equal(f->sm_node, h1);
	epoch_unref(e);
}

/* srco_subnet_fabric() on the subnet with byte @off set to @val (or @len bytes): its error. */
static void refused(size_t off, uint8_t val, size_t len, const char *want)
{
	struct fab_err err = { { 0 } };
	uint8_t b[SUBNET_LEN + 1];
	json_t *j = subnet_records(b);

	b[off] = val;
	assert_null(srco_subnet_fabric(j, b, len, &err));
	if (!strstr(err.msg, want))
		fail_msg("error '%s', expected '%s'", err.msg, want);
	json_decref(j);
}

static void test_subnet_bad_records(void **state)
{
	const size_t ports = NN * OSMP_NODE_REC, links = ports + NP * OSMP_PORT_REC;
	struct fab_err err = { { 0 } };
	json_t *j;

	(void)state;
	refused(22, 7, SUBNET_LEN, "subnet.nodes[0]: expected a type (1 CA, 2 switch, 3 router)");
	refused(2 * OSMP_NODE_REC + 23, 0, SUBNET_LEN, "subnet.nodes[2]: expected a type");
	refused(ports + 3 * OSMP_PORT_REC + 14, 5, SUBNET_LEN, "subnet.ports[3]: expected [node, guid");
	refused(ports + 1 * OSMP_PORT_REC + 3, 9, SUBNET_LEN, "subnet.ports[1]:");	/* node 9 */
	refused(ports + 6 * OSMP_PORT_REC + 15, 8, SUBNET_LEN, "subnet.ports[6]:");	/* LMC 8 */
	refused(links + 2 * OSMP_LINK_REC + 9, 5, SUBNET_LEN, "subnet.links[2]: expected [node, node, port, port]");
	refused(links + 8, 0, SUBNET_LEN, "subnet.links[0]:");	/* port 0 */
	refused(0, 0, SUBNET_LEN - 1, "subnet: a payload of 579 bytes, but 4 nodes, 8 ports and 3 links take 580");
	refused(0, 0, SUBNET_LEN + 1, "a payload of 581 bytes");
	j = json_pack("{s:i, s:i}", "nodes", 0, "ports", 0);
	assert_null(srco_subnet_fabric(j, NULL, 0, &err));
	assert_string_equal(err.msg, "subnet: expected an object with the number of nodes (at least 1), ports and links");
	json_decref(j);
	assert_null(srco_subnet_fabric(NULL, NULL, 0, &err));
}

static void test_be(void **state)
{
	uint8_t b[8];

	(void)state;
	osmp_put64(b, 0x0102030405060708ull);
	assert_memory_equal(b, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	assert_int_equal(osmp_get64(b), 0x0102030405060708ull);
	assert_int_equal(osmp_get32(b + 4), 0x05060708u);
	assert_int_equal(osmp_get16(b + 6), 0x0708u);
	osmp_put16(b, 0xfffe);
	assert_int_equal(osmp_get16(b), 0xfffe);
}

static void test_vl_caps(void **state)
{
	struct epoch *e = subnet_epoch();
	const struct fabric *f = e->fabric;

	(void)state;
	assert_int_equal(f->nodes[tu_node(f, 0x10)].vl_cap, 8);
	assert_int_equal(f->nodes[tu_node(f, 0x20)].vl_cap, 4);	/* its port 3 runs VL0-3 */
	assert_int_equal(f->nodes[tu_node(f, 0x100)].vl_cap, 8);
	assert_int_equal(srco_vls_count(5), 15);
	assert_int_equal(srco_vls_count(0), 1);
	assert_int_equal(srco_vls_count(9), 1);
	epoch_unref(e);
}

static void test_answer_sl0(void **state)
{
	struct epoch *e = subnet_epoch();
	struct fab_err err = { { 0 } };
	struct srco_answer a;
	json_t *id = json_integer(5);

	(void)state;
	memset(e->routing->lft, 3, e->routing->lft_len);
	/* a table equal to the default mapping is not sent */
	for (unsigned sl = 0; sl < RT_SLS; sl++)
		assert_int_equal(rt_sl2vl_set(e->routing, e->fabric, 0, 1, 3, sl, sl % 8), 0);
	assert_int_equal(rt_pairs_alloc(e->routing), 0);
	assert_int_equal(srco_routing_answer(e, id, &a, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(a.msg, "id")), 5);
	assert_int_equal(json_integer_value(json_object_get(a.msg, "epoch")), 12);
	assert_int_equal(json_integer_value(json_object_get(a.msg, "lft_len")), e->routing->lft_len);
	assert_int_equal(json_array_size(json_object_get(a.msg, "lfts")), 2);
	assert_int_equal(json_array_size(json_object_get(a.msg, "sl2vl")), 0);
	assert_int_equal(json_array_size(json_object_get(a.msg, "path_sl")), 0);
	assert_int_equal(a.niov, 2);
	assert_ptr_equal(a.iov[0].iov_base, e->routing->lft);	/* sent from the routing's buffer */
	assert_int_equal(a.iov[0].iov_len, 2 * e->routing->lft_len);
	assert_int_equal(a.iov[1].iov_len, 0);
	assert_int_equal(e->refs, 2);	/* the answer holds the epoch while it is sent */
	srco_answer_free(&a);
	assert_int_equal(e->refs, 1);
	json_decref(id);
	epoch_unref(e);
}

/*
 * A routing that shares rows with the one it was derived from (a repair) is
 * sent a part per run of rows lying together: its own row apart, and the
 * payload is the rows in switch order.
 */
static void test_answer_derived(void **state)
{
	struct epoch *e = subnet_epoch();
	struct rt_routing *b = e->routing;
	struct fab_err err = { { 0 } };
	struct srco_answer a;
	struct osmp_rx rx;
	char msg[128];
	json_t *got;
	int fd[2];

	(void)state;
	memset(b->lft, 3, 2 * (size_t)b->lft_len);
	e->routing = rt_derive(e->fabric, b, NULL, RT_KEEP_SL2VL | RT_KEEP_PAIRS);
	rt_free(b);
	rt_row_own(e->routing, 1)[2] = 4;
	assert_int_equal(srco_routing_answer(e, NULL, &a, &err), 0);
	assert_int_equal(a.niov, 3);
	assert_ptr_equal(a.iov[0].iov_base, rt_lft(e->routing, 0));
	assert_ptr_equal(a.iov[1].iov_base, rt_lft(e->routing, 1));
	pair(fd);
	assert_int_equal(osmp_send(fd[0], a.msg, a.iov, a.niov, osmp_now_ms() + 2000, msg, sizeof(msg)), 0);
	got = osmp_recv(fd[1], osmp_now_ms() + 2000, &rx, msg, sizeof(msg));
	assert_non_null(got);
	assert_int_equal(rx.len, 2 * e->routing->lft_len);
	for (size_t i = 0; i < rx.len; i++)
		assert_int_equal(rx.payload[i], i == e->routing->lft_len + 2 ? 4 : 3);
	free(rx.payload);
	json_decref(got);
	close(fd[0]);
	close(fd[1]);
	srco_answer_free(&a);
	epoch_unref(e);
}

static void test_answer_vls(void **state)
{
	struct epoch *e = subnet_epoch();
	const struct fabric *f = e->fabric;
	struct rt_routing *r = e->routing;
	struct fab_err err = { { 0 } };
	uint32_t swb = f->nodes[tu_node(f, 0x20)].swidx, h1, h2;
	struct srco_answer a;
	const uint8_t *tab, *row;
	size_t row_len = (r->lft_len + 1) / 2;

	(void)state;
	assert_int_equal(rt_sl2vl_set(r, f, swb, 1, 3, 1, 2), 0);	/* swB: SL 1 from port 1 to 3 on VL 2 */
	assert_int_equal(rt_pairs_alloc(r), 0);
	h1 = fab_ep_by_port_guid(f, 0x101);
	h2 = fab_ep_by_port_guid(f, 0x201);
	r->path_sl[(size_t)h2 * r->neps + h1] = 1;	/* h2 -> h1 on SL 1 */
	assert_int_equal(srco_routing_answer(e, NULL, &a, &err), 0);
	assert_string_equal(json_string_value(json_array_get(json_object_get(a.msg, "sl2vl"), 0)),
			    "0x0000000000000020");
	assert_int_equal(json_array_size(json_object_get(a.msg, "sl2vl")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(a.msg, "path_sl"), 0)),
			    "0x0000000000000201");
	assert_int_equal(json_array_size(json_object_get(a.msg, "path_sl")), 1);
	assert_int_equal(a.iov[1].iov_len, 5 * 5 * 8 + row_len);
	tab = a.extra;
	for (unsigned in = 0; in < 5; in++)
		for (unsigned out = 0; out < 5; out++)
			for (unsigned sl = 0; sl < 16; sl++)
				assert_int_equal(osmp_nibble(tab, (in * 5 + out) * 16 + sl),
						 in == 1 && out == 3 && sl == 1 ? 2 : sl % 4);
	row = a.extra + 5 * 5 * 8;
	for (unsigned lid = 0; lid < r->lft_len; lid++)
		assert_int_equal(osmp_nibble(row, lid), lid == 4 || lid == 5 ? 1 : 0);	/* h1's LMC range */
	srco_answer_free(&a);
	epoch_unref(e);
}

/* The pass's deadline without timeout_ms: 2 s, 50 ms more per million LFT entries, at most 60 s. */
static void test_deadline(void **state)
{
	(void)state;
	assert_int_equal(osmp_deadline_ms(0, 0), OSMP_DEADLINE_BASE_MS);
	assert_int_equal(osmp_deadline_ms(980, 6468), 2317);		/* 5488 CAs: 6.3 M entries */
	assert_int_equal(osmp_deadline_ms(2000, 18000), 3800);		/* 16000 CAs: 36 M */
	assert_int_equal(osmp_deadline_ms(3920, 47824), 11374);		/* 43904 CAs: 187 M */
	assert_int_equal(osmp_deadline_ms(49151, 49151), OSMP_DEADLINE_MAX_MS);
	assert_int_equal(osmp_deadline_ms(UINT64_MAX, 2), OSMP_DEADLINE_MAX_MS);
	for (uint64_t n = 1000; n < 60000; n += 1000)
		assert_true(osmp_deadline_ms(n / 8, n) <= osmp_deadline_ms(n / 8 + 125, n + 1000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_payload_roundtrip),
		cmocka_unit_test(test_payload_parts),
		cmocka_unit_test(test_other_version),
		cmocka_unit_test(test_bad_payloads),
		cmocka_unit_test(test_nibbles),
		cmocka_unit_test(test_be),
		cmocka_unit_test(test_subnet_records),
		cmocka_unit_test(test_subnet_bad_records),
		cmocka_unit_test(test_vl_caps),
		cmocka_unit_test(test_answer_sl0),
		cmocka_unit_test(test_answer_derived),
		cmocka_unit_test(test_answer_vls),
		cmocka_unit_test(test_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
