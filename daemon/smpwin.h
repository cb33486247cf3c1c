/* SPDX-License-Identifier: MIT */
/**
 * DOC: SMPs in flight, a window at a time
 *
 * What the read-back and the fast repair share to talk to many switches at
 * once: a list of SMPs (Gets and Sets, LID-routed or directed-routed) goes
 * out with up to a window of them unanswered at any time, each matched to
 * its answer by transaction ID and retried on a timer of its own. The SMPs
 * leave and come back through a &struct smpw_io: libibumad's port
 * (smpw_umad_io()) or, in the unit tests, a fake fabric. Nothing is
 * printed; the caller reads what was answered in the requests.
 *
 * The order the SMPs of one call reach their switches is not the order of
 * the list: a caller that needs one group written before another (the fast
 * repair's deadlock-free steps) makes one call per group.
 */
#ifndef FABROUTE_DAEMON_SMPWIN_H
#define FABROUTE_DAEMON_SMPWIN_H

#include <infiniband/mad.h>
#include <stddef.h>
#include <stdint.h>

/** Most SMPs unanswered at once. */
#define SMPW_WINDOW_MAX 64

/**
 * SMPW_TID_FAST - the transaction IDs of the fast repair's SMPs have this
 * bit, the read-back's do not: both ports of one process may see each
 * other's answers (ibsim's umad2sim does), and an answer must never be
 * taken for the other's (a PortInfo read as an LFT block).
 */
#define SMPW_TID_FAST 0x80000000u

/**
 * struct smpw_req - one SMP
 * @dest: a LID, or lid 0 and a directed route
 * @attr, @mod: attribute ID and modifier (e.g. IB_ATTR_LINEARFORWTBL, the block)
 * @set: 1 a Set of @data, 0 a Get
 * @tag: the caller's
 * @done: 1 answered (@data holds the answer's data), -1 no good answer after
 *        every try (or an error status), 0 not yet (not sent, or in flight
 *        when smpw_run() stopped early)
 * @data: what a Set writes; the answer's data
 */
struct smpw_req {
	ib_portid_t dest;
	unsigned attr, mod;
	int set;
	uint32_t tag;
	int done;
	uint8_t data[IB_SMP_DATA_SIZE];
};

/**
 * struct smpw_io - how SMPs leave and come back
 * @send: send the MAD in the umad buffer @umad (umad_size() + IB_MAD_SIZE
 *        bytes, its address set), LID-routed or @directed; <0 on error
 * @recv: take one answer into @umad within @wait_ms; <0 when none came
 * @ud: theirs
 */
struct smpw_io {
	int (*send)(void *ud, void *umad, int directed, unsigned timeout_ms);
	int (*recv)(void *ud, void *umad, int wait_ms);
	void *ud;
};

/**
 * struct smpw_opts - how smpw_run() sends
 * @window: SMPs unanswered at once (1 to SMPW_WINDOW_MAX; 0 counts as 1)
 * @timeout_ms, @retries: per SMP: sent again after @timeout_ms without an
 *        answer, @retries times, then given up
 * @rate: SMPs per second at most (0: no pace)
 * @mkey: the M_Key the SMPs carry
 * @retry_errors: an answer with an error status is sent again on the SMP's
 *        timer like a lost one (a switch may answer so while the subnet
 *        changes); 0: the SMP is given up at once
 * @fail_fast: return at the first SMP given up, sending nothing more
 * @stop: give up when it says 1 (checked at least every 10 ms); may be NULL
 */
struct smpw_opts {
	unsigned window, timeout_ms, retries, rate;
	uint64_t mkey;
	int retry_errors, fail_fast;
	int (*stop)(void *ud);
	void *stop_ud;
};

/** struct smpw_stats - SMPs sent (retries included), answered, given up */
struct smpw_stats {
	uint64_t sent, answered, failed;
};

/**
 * smpw_run() - send the @n SMPs of @reqs, a window at a time
 * @tid: the transaction IDs to use are *@tid + 1, ... (it is advanced),
 *       its SMPW_TID_FAST bit kept
 * Return: 0 once every request is answered or given up (see each @done),
 * 1 when @o->fail_fast stopped at one given up, -1 when @o->stop said so.
 * Counts into @st.
 */
int smpw_run(const struct smpw_io *io, uint32_t *tid, struct smpw_req *reqs, size_t n,
	     const struct smpw_opts *o, struct smpw_stats *st);

/**
 * struct smpw_umad - a libibumad port with an agent per SMP class
 * @fd: umad_open_port()'s
 * @agent_lid, @agent_dr: the LID-routed and the directed-route agents
 */
struct smpw_umad {
	int fd, agent_lid, agent_dr;
};

/** smpw_umad_io() - a &struct smpw_io over @u (which must outlive it). */
struct smpw_io smpw_umad_io(struct smpw_umad *u);

#endif
