/* SPDX-License-Identifier: MIT */
/*
 * lft_poll - an independent ruler for the time a link fault takes to leave
 * the switches' tables (bench/fast_repair.sh). An SMP client of its own
 * (its own umad2sim attachment, SIM_HOST), not fabrouted's and not
 * OpenSM's: it reads the LinearForwardingTable blocks of the two switches at
 * the ends of one link over directed routes that avoid that link, and
 * prints a line each time a block changes, stamped with CLOCK_REALTIME:
 *
 *   lft_poll TOPOLOGY "A" PA "B" PB SECONDS
 *
 *   start US                         the first read is done (realtime, µs)
 *   dead US N                        N entries of A and B point at the link
 *   change US SWITCH BLOCK ENTRIES   a block changed: its entries now
 *   clear US                         no entry of A or B points at the link
 *   end US READS ROUND_US            SECONDS after start: READS block reads,
 *                                    ROUND_US a round of both switches' blocks
 *
 * Until "clear" a round reads only the blocks that held an entry towards
 * the link when it started (a round of every block, 2 x 102 reads one
 * after the other at 5488 CAs, bounded the resolution of "clear"); after
 * it, every block of both switches, so that the last "change" is when they
 * came to hold their final tables (a change elsewhere before "clear" is
 * seen, and stamped, then). It reads LP_CHUNK blocks at a time with
 * LP_WINDOW SMPs in flight (as many as OpenSM keeps on the wire): one
 * read after the other, a round of the 101 blocks of a 5488-CA leaf took
 * 10-20 ms while OpenSM's sweep kept the simulator busy, which the "clear"
 * of a fast repair then waited for; a change is stamped when its batch is
 * answered. It rests LP_REST_US between rounds: a ruler reading without pause took a core
 * (itself and the simulator answering it) from the SM and fabrouted it
 * measures, where on a fabric its reads would cost the SM's host nothing.
 * It reads LIDs 1 to the topology's top LID.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/smp.h"
#include "formats/formats.h"

/* Rest between two rounds of reads (µs). */
#define LP_REST_US 200
/* SMPs in flight at once (as OpenSM's max_wire_smps), and blocks read per batch. */
#define LP_WINDOW 4u
#define LP_CHUNK 8u

struct end {
	uint32_t node;
	unsigned port;
	uint8_t (*blk)[64];	/* last read */
};

static long long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static void die(const char *what, const struct fab_err *err)
{
	fprintf(stderr, "lft_poll: %s: %s\n", what, err ? err->msg : "");
	exit(1);
}

/* Entries of block @b of @e towards its link; the count of one block. */
static unsigned towards(const struct end *e, unsigned b)
{
	unsigned n = 0;

	for (unsigned i = 0; i < 64; i++)
		n += e->blk[b][i] == e->port;
	return n;
}

/* What the rounds read and keep. */
struct ruler {
	struct smp *s;
	const struct smp_routes *r;
	const struct fabric *f;
	struct end end[2];
	unsigned nblk;
	unsigned *cnt;	/* per block (of A, then of B): entries towards the link */
	unsigned dead;	/* their sum */
	unsigned long long reads;
};

/*
 * Read blocks @idx[0..@n) (A's 0 .. nblk - 1, then B's), LP_WINDOW SMPs in
 * flight; print those that changed when @report. A block not answered
 * keeps its last read.
 */
static void read_blocks(struct ruler *u, const unsigned *idx, unsigned n, int report)
{
	struct smpw_req q[LP_CHUNK];
	struct smpw_stats st = { 0 };
	struct fab_err err = { { 0 } };

	memset(q, 0, sizeof(q));
	for (unsigned i = 0; i < n; i++) {
		if (smp_dest(u->r, u->end[idx[i] / u->nblk].node, &q[i].dest, &err))
			die("route", &err);
		q[i].attr = IB_ATTR_LINEARFORWTBL;
		q[i].mod = idx[i] % u->nblk;
	}
	smp_run(u->s, q, n, 0, &st);
	for (unsigned i = 0; i < n; i++) {
		struct end *e = &u->end[idx[i] / u->nblk];
		unsigned b = idx[i] % u->nblk, k = 0;

		if (q[i].done != 1)
			continue;
		u->reads++;
		for (unsigned j = 0; j < 64; j++)
			k += q[i].data[j] != e->blk[b][j];
		if (report && k) {
			printf("change %lld %s %u %u\n", now_us(), fab_desc(u->f, e->node), b, k);
			fflush(stdout);
		}
		memcpy(e->blk[b], q[i].data, 64);
		u->dead -= u->cnt[idx[i]];
		u->dead += u->cnt[idx[i]] = towards(e, b);
	}
}

/* Complete @order (the blocks with @cnt first, already in it) with the others. */
static void order_rest(unsigned *order, const unsigned *cnt, unsigned n)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++)
		k += cnt[i] != 0;
	for (unsigned i = 0; i < n; i++)
		if (!cnt[i])
			order[k++] = i;
}

int main(int argc, char **argv)
{
	struct fab_err err = { { 0 } };
	struct smp_opts o = { .timeout_ms = 100, .retries = 1, .window = LP_WINDOW };
	struct ruler u = { .reads = 0 };
	struct fabric *f;
	struct smp_routes *r;
	unsigned hot = 0, *order;
	const struct timespec rest = { .tv_nsec = LP_REST_US * 1000 };
	long long t0, until;
	int clear = 0;

	if (argc != 7) {
		fprintf(stderr, "usage: lft_poll TOPOLOGY SWITCH_A PORT_A SWITCH_B PORT_B SECONDS\n");
		return 2;
	}
	if (!(f = fmt_topo_load(argv[1], FMT_AUTO, NULL, &err)))
		die(argv[1], &err);
	u.nblk = f->lid_top / 64 + 1;
	for (int k = 0; k < 2; k++) {
		u.end[k].node = fab_node_by_desc(f, argv[2 + 2 * k], NULL);
		u.end[k].port = (unsigned)atoi(argv[3 + 2 * k]);
		u.end[k].blk = calloc(u.nblk, 64);
		if (u.end[k].node == FAB_NONE || !u.end[k].blk)
			die(argv[2 + 2 * k], NULL);
	}
	fab_link_remove(f, u.end[0].node, u.end[0].port);	/* routes that avoid the link */
	if (fab_finalize(f, &err) || !(u.s = smp_open(&o, &err)) ||
	    !(r = smp_routes(f, smp_port_guid(u.s), &err)))
		die("set-up", &err);
	u.f = f;
	u.r = r;
	order = malloc(2 * u.nblk * sizeof(*order));
	u.cnt = calloc(2 * u.nblk, sizeof(*u.cnt));
	if (!order || !u.cnt)
		die("out of memory", NULL);
	for (unsigned i = 0; i < 2 * u.nblk; i++)
		order[i] = i;
	for (unsigned i = 0; i < 2 * u.nblk; i += LP_CHUNK)
		read_blocks(&u, order + i, 2 * u.nblk - i < LP_CHUNK ? 2 * u.nblk - i : LP_CHUNK, 0);
	for (unsigned i = 0; i < 2 * u.nblk; i++)	/* the blocks towards the link first */
		if (u.cnt[i])
			order[hot++] = i;
	order_rest(order, u.cnt, 2 * u.nblk);
	t0 = now_us();
	until = t0 + atoll(argv[6]) * 1000000;
	printf("start %lld\ndead %lld %u\n", t0, t0, u.dead);
	if (!u.dead && (clear = 1))
		printf("clear %lld\n", t0);
	fflush(stdout);
	while (now_us() < until) {
		unsigned n = clear ? 2 * u.nblk : hot;

		for (unsigned i = 0; i < n; i += LP_CHUNK) {
			read_blocks(&u, order + i, n - i < LP_CHUNK ? n - i : LP_CHUNK, 1);
			if (!clear && !u.dead) {
				clear = 1;
				printf("clear %lld\n", now_us());
				fflush(stdout);
			}
		}
		nanosleep(&rest, NULL);
	}
	{
		long long t1 = now_us();

		printf("end %lld %llu %lld\n", t1, u.reads,
		       u.reads ? (t1 - t0) * 2 * u.nblk / (long long)u.reads : 0);
	}
	free(order);
	free(u.cnt);
	smp_routes_free(r);
	smp_close(u.s);
	fab_free(f);
	return 0;
}
