/* SPDX-License-Identifier: MIT */
/*
 * daemon/smpwin.c against a fake port: it keeps what was sent until the
 * test's rules answer it (the oldest and the newest in turn, so answers
 * come out of order),
 * drop it, or answer with an error status. What the window must do: never
 * more than the window unanswered, as many as the window when there are
 * that many, every answer matched to its request, a lost SMP sent again
 * under a new ID, one never answered given up, an error status given up at
 * once or tried again (retry_errors), the M_Key, method and
 * routing of each SMP as asked, and with fail_fast nothing sent after the
 * first SMP given up.
 */
#include <infiniband/umad.h>
#include <time.h>

#include "tests/unit/testutil.h"

#include "daemon/smpwin.h"

#define FAKE_MAX 256

struct sent {
	uint8_t mad[IB_MAD_SIZE];
	int directed;
};

struct fake {
	struct sent q[FAKE_MAX];	/* unanswered, oldest first */
	unsigned n, max_n;		/* now, and the most at once */
	unsigned sends;
	unsigned tries[FAKE_MAX];	/* per attribute modifier */
	int drop_first_mod5;		/* the first try of modifiers 0, 5, 10... is lost */
	int silent_mod;			/* never answered; -1: none */
	int error_mod;			/* answered with status 0x1c; -1: none */
	unsigned recvs, sends_at_error;
	uint64_t mkey_seen;
	int bad_mkey;
};

static int fake_send(void *ud, void *umad, int directed, unsigned timeout_ms)
{
	struct fake *f = ud;
	uint8_t *mad = umad_get_mad(umad);
	unsigned mod = mad_get_field(mad, 0, IB_MAD_ATTRMOD_F);

	(void)timeout_ms;
	assert_true(f->n < FAKE_MAX);
	f->sends++;
	f->tries[mod % FAKE_MAX]++;
	if (mad_get_field64(mad, 0, IB_MAD_MKEY_F) != f->mkey_seen)
		f->bad_mkey = 1;
	if ((int)mod == f->silent_mod || (f->drop_first_mod5 && mod % 5 == 0 && f->tries[mod] == 1))
		return 0;	/* lost on the way */
	memcpy(f->q[f->n].mad, mad, IB_MAD_SIZE);
	f->q[f->n].directed = directed;
	if (++f->n > f->max_n)
		f->max_n = f->n;
	return 0;
}

/*
 * Answer the oldest or the newest SMP unanswered, in turn: a Set echoes its
 * data, a Get reads (mod, attribute's low byte, 0xab...).
 */
static int fake_recv(void *ud, void *umad, int wait_ms)
{
	struct fake *f = ud;
	uint8_t *mad = umad_get_mad(umad), *data;
	unsigned mod, method, k;
	int directed;

	(void)wait_ms;
	if (!f->n)
		return -1;
	k = f->recvs++ % 2 ? f->n - 1 : 0;
	memset(umad, 0, sizeof(struct ib_user_mad));
	memcpy(mad, f->q[k].mad, IB_MAD_SIZE);
	directed = f->q[k].directed;
	memmove(&f->q[k], &f->q[k + 1], (f->n - k - 1) * sizeof(f->q[0]));
	f->n--;
	mod = mad_get_field(mad, 0, IB_MAD_ATTRMOD_F);
	method = mad_get_field(mad, 0, IB_MAD_METHOD_F);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F),
			 directed ? IB_SMI_DIRECT_CLASS : IB_SMI_CLASS);
	data = mad + IB_SMP_DATA_OFFS;
	if (method == IB_MAD_METHOD_GET) {
		memset(data, 0xab, IB_SMP_DATA_SIZE);
		data[0] = (uint8_t)mod;
		data[1] = (uint8_t)mad_get_field(mad, 0, IB_MAD_ATTRID_F);
	} else {
		assert_int_equal(method, IB_MAD_METHOD_SET);
	}
	mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET_RESPONSE);
	if ((int)mod == f->error_mod) {
		mad_set_field(mad, 0, IB_MAD_STATUS_F, 0x1c);
		f->sends_at_error = f->sends;
	}
	return 0;
}

static struct fake *fake_new(void)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->silent_mod = f->error_mod = -1;
	return f;
}

/* @n requests: even ones directed-routed Sets of a pattern, odd ones LID-routed Gets. */
static struct smpw_req *reqs_new(size_t n)
{
	struct smpw_req *q = calloc(n, sizeof(*q));

	assert_non_null(q);
	for (size_t i = 0; i < n; i++) {
		q[i].attr = IB_ATTR_LINEARFORWTBL;
		q[i].mod = (unsigned)i;
		q[i].tag = (uint32_t)(1000 + i);
		q[i].set = !(i % 2);
		if (i % 2) {
			q[i].dest.lid = (int)(i + 1);
		} else {
			q[i].dest.drpath.cnt = 2;
			q[i].dest.drpath.p[1] = 1;
			q[i].dest.drpath.p[2] = (uint8_t)(i % 30 + 1);
			q[i].dest.drpath.drslid = q[i].dest.drpath.drdlid = 0xffff;
			memset(q[i].data, (int)(i & 0x7f), sizeof(q[i].data));
		}
	}
	return q;
}

static void check_answers(const struct smpw_req *q, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(q[i].done, 1);
		assert_int_equal(q[i].tag, 1000 + i);
		if (q[i].set) {
			assert_int_equal(q[i].data[0], i & 0x7f);
			assert_int_equal(q[i].data[63], i & 0x7f);
		} else {
			assert_int_equal(q[i].data[0], i & 0xff);
			assert_int_equal(q[i].data[1], IB_ATTR_LINEARFORWTBL & 0xff);
			assert_int_equal(q[i].data[2], 0xab);
		}
	}
}

static void test_window(void **state)
{
	const unsigned windows[] = { 1, 4, 16 };

	(void)state;
	for (unsigned w = 0; w < 3; w++) {
		struct fake *f = fake_new();
		struct smpw_io io = { fake_send, fake_recv, f };
		struct smpw_opts o = { .window = windows[w], .timeout_ms = 1000, .retries = 1,
				       .mkey = 0x1122334455667788ULL };
		struct smpw_stats st = { 0 };
		struct smpw_req *q = reqs_new(100);
		uint32_t tid = 7;

		f->mkey_seen = o.mkey;
		assert_int_equal(smpw_run(&io, &tid, q, 100, &o, &st), 0);
		check_answers(q, 100);
		assert_int_equal(f->max_n, windows[w]);	/* never more, and that many when there are */
		assert_int_equal(st.sent, 100);
		assert_int_equal(st.answered, 100);
		assert_int_equal(st.failed, 0);
		assert_int_equal(tid, 107);
		tid = SMPW_TID_FAST | 0x7fffffffu;	/* the counter wraps in its half */
		assert_int_equal(smpw_run(&io, &tid, q, 2, &o, &st), 0);
		assert_int_equal(tid, SMPW_TID_FAST | 1);
		assert_false(f->bad_mkey);
		free(q);
		free(f);
	}
}

static void test_lost_sent_again(void **state)
{
	struct fake *f = fake_new();
	struct smpw_io io = { fake_send, fake_recv, f };
	struct smpw_opts o = { .window = 16, .timeout_ms = 5, .retries = 1 };
	struct smpw_stats st = { 0 };
	struct smpw_req *q = reqs_new(40);
	uint32_t tid = 0;

	(void)state;
	f->drop_first_mod5 = 1;
	assert_int_equal(smpw_run(&io, &tid, q, 40, &o, &st), 0);
	check_answers(q, 40);
	assert_int_equal(st.sent, 48);	/* 8 lost once, sent again */
	assert_int_equal(f->tries[5], 2);
	assert_int_equal(f->tries[6], 1);
	assert_int_equal(st.failed, 0);
	free(q);
	free(f);
}

static void test_given_up(void **state)
{
	struct fake *f = fake_new();
	struct smpw_io io = { fake_send, fake_recv, f };
	struct smpw_opts o = { .window = 8, .timeout_ms = 5, .retries = 2 };
	struct smpw_stats st = { 0 };
	struct smpw_req *q = reqs_new(30);
	uint32_t tid = 0;

	(void)state;
	f->silent_mod = 7;
	f->error_mod = 12;
	assert_int_equal(smpw_run(&io, &tid, q, 30, &o, &st), 0);
	for (size_t i = 0; i < 30; i++)
		assert_int_equal(q[i].done, i == 7 || i == 12 ? -1 : 1);
	assert_int_equal(f->tries[7], 3);	/* the first try and 2 retries */
	assert_int_equal(f->tries[12], 1);	/* an error status is not tried again */
	assert_int_equal(st.failed, 2);
	assert_int_equal(st.answered, 28);
	free(q);
	free(f);
}

static void test_errors_retried(void **state)
{
	struct fake *f = fake_new();
	struct smpw_io io = { fake_send, fake_recv, f };
	struct smpw_opts o = { .window = 8, .timeout_ms = 5, .retries = 2, .retry_errors = 1 };
	struct smpw_stats st = { 0 };
	struct smpw_req *q = reqs_new(30);
	uint32_t tid = 0;

	(void)state;
	f->error_mod = 12;
	assert_int_equal(smpw_run(&io, &tid, q, 30, &o, &st), 0);
	for (size_t i = 0; i < 30; i++)
		assert_int_equal(q[i].done, i == 12 ? -1 : 1);
	assert_int_equal(f->tries[12], 3);	/* sent again on its timer, then given up */
	assert_int_equal(st.failed, 1);
	free(q);
	free(f);
}

static void test_fail_fast(void **state)
{
	struct fake *f = fake_new();
	struct smpw_io io = { fake_send, fake_recv, f };
	struct smpw_opts o = { .window = 4, .timeout_ms = 5, .retries = 1, .fail_fast = 1 };
	struct smpw_stats st = { 0 };
	struct smpw_req *q = reqs_new(50);
	uint32_t tid = 0;

	(void)state;
	f->error_mod = 2;
	assert_int_equal(smpw_run(&io, &tid, q, 50, &o, &st), 1);
	assert_int_equal(q[2].done, -1);
	assert_int_equal(f->sends, f->sends_at_error);	/* nothing sent after it */
	assert_true(f->sends < 50);
	assert_int_equal(q[49].done, 0);
	free(q);
	free(f);
}

static int stop_now(void *ud)
{
	return ++*(int *)ud > 3;
}

static void test_stop(void **state)
{
	struct fake *f = fake_new();
	struct smpw_io io = { fake_send, fake_recv, f };
	int calls = 0;
	struct smpw_opts o = { .window = 2, .timeout_ms = 5, .retries = 1, .stop = stop_now,
			       .stop_ud = &calls };
	struct smpw_stats st = { 0 };
	struct smpw_req *q = reqs_new(50);
	uint32_t tid = 0;

	(void)state;
	assert_int_equal(smpw_run(&io, &tid, q, 50, &o, &st), -1);
	assert_true(st.sent < 50);
	free(q);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_lost_sent_again),
		cmocka_unit_test(test_given_up),
		cmocka_unit_test(test_errors_retried),
		cmocka_unit_test(test_fail_fast),
		cmocka_unit_test(test_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
