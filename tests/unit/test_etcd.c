/* SPDX-License-Identifier: MIT */
/*
 * daemon/etcd.c against a real etcd (Debian's etcd-server), one member on
 * loopback ports of the test's own, in a temporary directory: put and get of
 * binary values, prefixes, delete, leases that expire, a watch that sees
 * puts and deletes from a revision, an endpoint that is down tried past, and
 * what a member that does not answer costs.
 */
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/testutil.h"

#include "daemon/etcd.h"

static pid_t etcd_pid;
static char dir[] = "/tmp/fabroute-etcd-XXXXXX";
static char url[64];

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int start_etcd(void **state)
{
	unsigned port = 20000 + (unsigned)(getpid() % 12000);	/* below the ephemeral ports (32768 on) */
	char peer[64], data[256];
	struct fab_err err;

	(void)state;
	if (access("/usr/bin/etcd", X_OK)) {
		fprintf(stderr, "no /usr/bin/etcd: scripts/setup.sh installs etcd-server\n");
		return -1;
	}
	if (!mkdtemp(dir))
		return -1;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", port);
	snprintf(peer, sizeof(peer), "http://127.0.0.1:%u", port + 1);
	snprintf(data, sizeof(data), "%s/data", dir);
	etcd_pid = fork();
	if (etcd_pid == 0) {
		char cluster[128];

		snprintf(cluster, sizeof(cluster), "t=%s", peer);
		if (!freopen("/dev/null", "w", stderr) || !freopen("/dev/null", "w", stdout))
			_exit(127);
		execl("/usr/bin/etcd", "etcd", "--name", "t", "--data-dir", data, "--listen-client-urls",
		      url, "--advertise-client-urls", url, "--listen-peer-urls", peer,
		      "--initial-advertise-peer-urls", peer, "--initial-cluster", cluster,
		      (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {	/* up to 10 s */
		struct etcd *c = etcd_new(url, 500, &err);
		struct etcd_kv *kvs;
		size_t n;
		int64_t rev;
		int up = c && !etcd_get(c, "probe", 0, &kvs, &n, &rev, &err);

		if (up)
			etcd_kvs_free(kvs, n);
		etcd_free(c);
		if (up)
			return 0;
		usleep(50000);
	}
	return -1;
}

static int stop_etcd(void **state)
{
	char cmd[300];

	(void)state;
	if (etcd_pid > 0) {
		kill(etcd_pid, SIGTERM);
		waitpid(etcd_pid, NULL, 0);
	}
	if (strncmp(dir, "/tmp/fabroute-etcd-", 19) == 0 && !strchr(dir, 'X')) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			return -1;
	}
	return 0;
}

static struct etcd *client(const char *endpoints)
{
	struct fab_err err = { { 0 } };
	struct etcd *c;

	c = etcd_new(endpoints, 1000, &err);
	if (!c)
		fail_msg("etcd_new: %s", err.msg);
	return c;
}

static void test_put_get(void **state)
{
	static const char bin[] = { 'a', 0, '\xff', '=', '\n', 'z' };
	struct fab_err err = { { 0 } };
	struct etcd *c = client(url);
	struct etcd_kv *kvs;
	size_t n;
	int64_t r1, r2, rev;

	(void)state;
	assert_int_equal(etcd_put(c, "/t/a/1", bin, sizeof(bin), 0, &r1, &err), 0);
	assert_int_equal(etcd_put(c, "/t/a/2", "two", 3, 0, &r2, &err), 0);
	assert_int_equal(etcd_put(c, "/t/b", "other", 5, 0, NULL, &err), 0);
	assert_true(r2 > r1);
	assert_int_equal(etcd_get(c, "/t/a/1", 0, &kvs, &n, &rev, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(kvs[0].len, sizeof(bin));
	assert_memory_equal(kvs[0].val, bin, sizeof(bin));
	assert_int_equal(kvs[0].mod_revision, r1);
	etcd_kvs_free(kvs, n);
	assert_int_equal(etcd_get(c, "/t/a/", 1, &kvs, &n, &rev, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(kvs[1].key, "/t/a/2");
	assert_string_equal(kvs[1].val, "two");
	assert_true(rev >= r2 + 1);
	etcd_kvs_free(kvs, n);
	assert_int_equal(etcd_delete(c, "/t/a/", 1, &err), 0);
	assert_int_equal(etcd_get(c, "/t/", 1, &kvs, &n, &rev, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(kvs[0].key, "/t/b");
	etcd_kvs_free(kvs, n);
	etcd_free(c);
}

static void test_lease(void **state)
{
	struct fab_err err = { { 0 } };
	struct etcd *c = client(url);
	struct etcd_kv *kvs;
	size_t n;
	int64_t rev, id = etcd_lease_grant(c, 1, &err);

	(void)state;
	assert_true(id > 0);
	assert_int_equal(etcd_put(c, "/t/leased", "x", 1, id, NULL, &err), 0);
	assert_int_equal(etcd_lease_keepalive(c, id, &err), 0);
	sleep(3);	/* not kept alive: it expires, and the key goes with it */
	assert_int_equal(etcd_lease_keepalive(c, id, &err), -1);
	assert_non_null(strstr(err.msg, "expired"));
	assert_int_equal(etcd_get(c, "/t/leased", 0, &kvs, &n, &rev, &err), 0);
	assert_int_equal(n, 0);
	etcd_kvs_free(kvs, n);
	etcd_free(c);
}

struct seen {
	char keys[8][32];
	int deleted[8];
	unsigned n;
};

static int on_kv(void *ud, const struct etcd_kv *kv)
{
	struct seen *s = ud;

	if (s->n < 8) {
		snprintf(s->keys[s->n], sizeof(s->keys[0]), "%s=%s", kv->key, kv->val);
		s->deleted[s->n] = kv->deleted;
	}
	return ++s->n == 3;
}

static void test_watch(void **state)
{
	struct fab_err err = { { 0 } };
	struct etcd *c = client(url);
	struct seen s = { .n = 0 };
	int64_t rev;
	int stop = 0;

	(void)state;
	assert_int_equal(etcd_put(c, "/t/w/x", "1", 1, 0, &rev, &err), 0);
	assert_int_equal(etcd_put(c, "/t/other", "no", 2, 0, NULL, &err), 0);
	assert_int_equal(etcd_put(c, "/t/w/y", "2", 1, 0, NULL, &err), 0);
	assert_int_equal(etcd_delete(c, "/t/w/x", 0, &err), 0);
	/* from the first put's revision: the three changes under /t/w/, in order */
	assert_int_equal(etcd_watch(c, "/t/w/", rev, on_kv, &s, &stop, &err), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.keys[0], "/t/w/x=1");
	assert_string_equal(s.keys[1], "/t/w/y=2");
	assert_string_equal(s.keys[2], "/t/w/x=");
	assert_int_equal(s.deleted[2], 1);
	etcd_free(c);
}

static void test_endpoints(void **state)
{
	char both[160];
	struct fab_err err = { { 0 } };
	struct etcd *c;
	double t0;

	(void)state;
	assert_null(etcd_new("127.0.0.1:2379", 100, &err));
	assert_non_null(strstr(err.msg, "expected http://HOST:PORT"));
	assert_null(etcd_new("", 100, &err));
	/* a member that is down first: the next answers */
	snprintf(both, sizeof(both), "http://127.0.0.1:1,%s", url);
	c = client(both);
	assert_int_equal(etcd_put(c, "/t/ep", "ok", 2, 0, NULL, &err), 0);
	etcd_free(c);
	/* none answers: an error naming the member, within the timeout */
	c = client("http://192.0.2.1:2379");
	t0 = now_ms();
	assert_int_equal(etcd_put(c, "/t/ep", "no", 2, 0, NULL, &err), -1);
	assert_true(now_ms() - t0 < 3000);
	assert_non_null(strstr(err.msg, "192.0.2.1"));
	etcd_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get),
		cmocka_unit_test(test_lease),
		cmocka_unit_test(test_watch),
		cmocka_unit_test(test_endpoints),
	};

	return cmocka_run_group_tests(tests, start_etcd, stop_etcd);
}
