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
 * seen, and stamped, then). It rests
 * LP_REST_US between rounds: a ruler reading without pause took a core
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

/* Read block @b of @e; print a change. Return: entries towards the link in it. */
static unsigned poll_block(struct smp *s, const struct smp_routes *r, const struct fabric *f,
			   struct end *e, unsigned b, int report, unsigned long long *reads)
{
	struct fab_err err = { { 0 } };
	uint8_t now[64];

	if (smp_lft_get(s, r, e->node, b, now, &err))
		return towards(e, b);	/* no answer this time: keep the last */
	(*reads)++;
	if (report && memcmp(now, e->blk[b], 64)) {
		unsigned n = 0;

		for (unsigned i = 0; i < 64; i++)
			n += now[i] != e->blk[b][i];
		printf("change %lld %s %u %u\n", now_us(), fab_desc(f, e->node), b, n);
		fflush(stdout);
	}
	memcpy(e->blk[b], now, 64);
	return towards(e, b);
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
	struct smp_opts o = { .timeout_ms = 100, .retries = 1 };
	struct end end[2];
	struct fabric *f;
	struct smp *s;
	struct smp_routes *r;
	unsigned nblk, dead = 0, hot = 0, *order, *cnt;
	const struct timespec rest = { .tv_nsec = LP_REST_US * 1000 };
	unsigned long long reads = 0;
	long long t0, until;
	int clear = 0;

	if (argc != 7) {
		fprintf(stderr, "usage: lft_poll TOPOLOGY SWITCH_A PORT_A SWITCH_B PORT_B SECONDS\n");
		return 2;
	}
	if (!(f = fmt_topo_load(argv[1], FMT_AUTO, NULL, &err)))
		die(argv[1], &err);
	nblk = f->lid_top / 64 + 1;
	for (int k = 0; k < 2; k++) {
		end[k].node = fab_node_by_desc(f, argv[2 + 2 * k], NULL);
		end[k].port = (unsigned)atoi(argv[3 + 2 * k]);
		end[k].blk = calloc(nblk, 64);
		if (end[k].node == FAB_NONE || !end[k].blk)
			die(argv[2 + 2 * k], NULL);
	}
	fab_link_remove(f, end[0].node, end[0].port);	/* routes that avoid the link */
	if (fab_finalize(f, &err) || !(s = smp_open(&o, &err)) ||
	    !(r = smp_routes(f, smp_port_guid(s), &err)))
		die("set-up", &err);
	order = malloc(2 * nblk * sizeof(*order));
	cnt = calloc(2 * nblk, sizeof(*cnt));
	if (!order || !cnt)
		die("out of memory", NULL);
	for (int k = 0; k < 2; k++)
		for (unsigned b = 0; b < nblk; b++)
			dead += cnt[k * nblk + b] = poll_block(s, r, f, &end[k], b, 0, &reads);
	for (unsigned i = 0; i < 2 * nblk; i++)	/* the blocks towards the link first */
		if (cnt[i])
			order[hot++] = i;
	order_rest(order, cnt, 2 * nblk);
	t0 = now_us();
	until = t0 + atoll(argv[6]) * 1000000;
	printf("start %lld\ndead %lld %u\n", t0, t0, dead);
	if (!dead && (clear = 1))
		printf("clear %lld\n", t0);
	fflush(stdout);
	while (now_us() < until) {
		for (unsigned i = 0; i < (clear ? 2 * nblk : hot); i++) {
			struct end *e = &end[order[i] / nblk];
			unsigned b = order[i] % nblk, before = cnt[order[i]];

			cnt[order[i]] = poll_block(s, r, f, e, b, 1, &reads);
			dead = dead - before + cnt[order[i]];
			if (!clear && !dead) {
				clear = 1;
				printf("clear %lld\n", now_us());
				fflush(stdout);
			}
		}
		nanosleep(&rest, NULL);
	}
	{
		long long t1 = now_us();

		printf("end %lld %llu %lld\n", t1, reads,
		       reads ? (t1 - t0) * 2 * nblk / (long long)reads : 0);
	}
	free(order);
	free(cnt);
	smp_routes_free(r);
	smp_close(s);
	fab_free(f);
	return 0;
}
