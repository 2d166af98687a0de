// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control of the consumer's window (CONS_REL, CONS_UNREL).
 *
 * The choice: loss-based AIMD, Reno-style, with slow start; not (yet)
 * hICN's delay-based RAAQM.
 *
 *   - An interest is answered by one data segment or by nothing: there
 *     are no duplicate acknowledgements, so a timeout is the only loss
 *     signal, and a timeout is what halves the window.
 *   - RAAQM decreases the window with a probability that grows as the
 *     RTT rises above the minimum seen on each path (hICN's path label).
 *     Our faces carry no path label yet, and an RTT measured on one host
 *     under emulation (the test VMs run under TCG, 10-50x slower than a
 *     machine, with pauses of tens of milliseconds) rises and falls with
 *     the scheduler, not with a queue: a delay signal would shrink the
 *     window of a transfer that loses nothing.  Loss-based AIMD keeps a
 *     local transfer at its maximum window, and shares a bottleneck with
 *     TCP on TCP's own terms (the benchmark compares against TCP).
 *   - The RTT estimate is kept all the same (it sets the retransmission
 *     timeout), and with it the minimum RTT, so that a RAAQM-like delay
 *     decrease can be added per path once faces report paths.
 *
 * The rules:
 *   - The window starts at HICN_WINDOW_INIT within [min, max] and at most
 *     this many interests of the window are outstanding (the ring of
 *     slots, sized by the maximum, and SO_RCVBUF bound it further).
 *   - Each data segment that fills a slot grows it: by one below ssthresh
 *     (slow start: from 4 to 64 in 60 segments), by one per window of
 *     segments above (additive increase, one per RTT).  It grows also
 *     when the window is not what limits the sending: on one host data
 *     comes back inside the call that sent the interest, so fewer than
 *     two interests are ever outstanding, and the window reaches its
 *     maximum within a few dozen segments; there it costs nothing.
 *   - A timeout halves it (ssthresh = max(window / 2, min)), once per
 *     loss event: a timeout of an interest sent before the last cut is
 *     part of the event that cut (NewReno's recovery, by send time).
 *   - RTT: samples only from interests answered at their first sending
 *     (Karn's rule), smoothed as RFC 6298 (SRTT, RTTVAR with gains 1/8
 *     and 1/4).  RTO = SRTT + max(4 * RTTVAR, one jiffy), at least
 *     HICN_RTO_MIN_MS (200 ms, TCP's floor: below it a pause of the
 *     scheduler passes for a loss) and at most the interest lifetime;
 *     before the first sample it is the lifetime.  Each loss event
 *     doubles it (capped at the lifetime) until a new sample.
 *   - The interest lifetime stays what the network keeps an interest
 *     for: an interest is resent at its RTO, but its last try waits for
 *     its whole lifetime before the fetch fails (consumer.c).
 *
 * HICN_MIN_WINDOW_SIZE == HICN_MAX_WINDOW_SIZE (what HICN_WINDOW sets)
 * makes the window fixed; the RTO still adapts.
 *
 * Every function here runs under hicn_cons.lock.
 */

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "hicn.h"

/**
 * hicn_cc_init() - the congestion state of a new consumer
 * @cc: the state
 */
void hicn_cc_init(struct hicn_cc *cc)
{
	memset(cc, 0, sizeof(*cc));
	cc->min = 1;
	cc->max = HICN_WINDOW_DEFAULT;
	cc->ssthresh = cc->max;
	cc->cwnd = clamp_t(u32, HICN_WINDOW_INIT, cc->min, cc->max);
}

/**
 * hicn_cc_set_bounds() - new window bounds (HICN_*_WINDOW_SIZE, HICN_WINDOW)
 * @cc: the state
 * @min: smallest window, at least 1
 * @max: largest window, at least @min
 *
 * The window moves into the bounds and may grow by slow start to @max.
 */
void hicn_cc_set_bounds(struct hicn_cc *cc, u32 min, u32 max)
{
	cc->min = min;
	cc->max = max;
	cc->ssthresh = max;
	cc->cwnd = clamp(cc->cwnd, min, max);
	cc->cwnd_cnt = 0;
}

/* Fold an RTT sample of @us microseconds into SRTT and RTTVAR (RFC 6298). */
static void hicn_cc_rtt(struct hicn_cc *cc, u64 us)
{
	s64 m;

	if (!cc->min_rtt_us || us < cc->min_rtt_us)
		cc->min_rtt_us = us;
	if (!cc->srtt8_us) {
		cc->srtt8_us = us << 3;		/* SRTT = R */
		cc->rttvar4_us = us << 1;	/* RTTVAR = R / 2 */
		return;
	}
	/* SRTT += (R - SRTT) / 8, RTTVAR += (|R - SRTT| - RTTVAR) / 4 */
	m = (s64)us - (s64)(cc->srtt8_us >> 3);
	cc->srtt8_us += m;
	if (m < 0)
		m = -m;
	m -= cc->rttvar4_us >> 2;
	cc->rttvar4_us += m;
}

/**
 * hicn_cc_data() - a data segment filled a slot of the window
 * @cc: the state
 * @sent_ns: when its interest was last sent (ktime_get_ns())
 * @sample: the interest was sent once: its RTT is a sample
 */
void hicn_cc_data(struct hicn_cc *cc, u64 sent_ns, bool sample)
{
	u64 now = ktime_get_ns();

	if (sample && now >= sent_ns) {
		hicn_cc_rtt(cc, clamp_t(u64, div_u64(now - sent_ns,
						     NSEC_PER_USEC),
					1, U32_MAX));
		cc->backoff = 0;
	}
	if (cc->cwnd >= cc->max)
		return;
	if (cc->cwnd < cc->ssthresh) {
		cc->cwnd++;
	} else if (++cc->cwnd_cnt >= cc->cwnd) {
		cc->cwnd_cnt = 0;
		cc->cwnd++;
	}
}

/**
 * hicn_cc_timeout() - the timer of an interest ran out
 * @cc: the state
 * @sent_ns: when that interest was last sent
 *
 * Return: true when this timeout started a loss event (window halved,
 * RTO doubled); false for a timeout of an interest sent before the last
 * event, which is part of it.
 */
bool hicn_cc_timeout(struct hicn_cc *cc, u64 sent_ns)
{
	if (cc->epoch_ns && sent_ns < cc->epoch_ns)
		return false;
	cc->epoch_ns = ktime_get_ns();
	cc->ssthresh = max(cc->cwnd / 2, cc->min);
	cc->cwnd = cc->ssthresh;
	cc->cwnd_cnt = 0;
	if (cc->backoff < 32)
		cc->backoff++;
	cc->cuts++;
	return true;
}

/* The RTO in microseconds, backoff included, for a lifetime of @ms. */
static u64 hicn_cc_rto_us(const struct hicn_cc *cc, u32 lifetime_ms)
{
	u64 life = (u64)lifetime_ms * USEC_PER_MSEC, rto;

	if (!cc->srtt8_us)
		return life;
	rto = (cc->srtt8_us >> 3) +
	      max_t(u64, cc->rttvar4_us, jiffies_to_usecs(1));
	rto = max_t(u64, rto, (u64)HICN_RTO_MIN_MS * USEC_PER_MSEC);
	rto = min(rto, life);
	if (cc->backoff >= 32)
		return life;
	return min(rto << cc->backoff, life);
}

/**
 * hicn_cc_rto() - the retransmission timeout in force
 * @cc: the state
 * @lifetime_ms: the interest lifetime, its upper bound
 *
 * Return: the RTO in jiffies, at least 1.
 */
unsigned long hicn_cc_rto(const struct hicn_cc *cc, u32 lifetime_ms)
{
	u64 us = hicn_cc_rto_us(cc, lifetime_ms);

	return max(usecs_to_jiffies(min_t(u64, us, U32_MAX)), 1UL);
}

/**
 * hicn_cc_info() - the HICN_INFO fields of the congestion control
 * @cc: the state
 * @lifetime_ms: the interest lifetime
 * @info: filled from hi_srtt_us on, but hi_in_flight
 */
void hicn_cc_info(const struct hicn_cc *cc, u32 lifetime_ms,
		  struct hicn_info *info)
{
	info->hi_srtt_us = min_t(u64, cc->srtt8_us >> 3, U32_MAX);
	info->hi_rttvar_us = min_t(u64, cc->rttvar4_us >> 2, U32_MAX);
	info->hi_min_rtt_us = cc->min_rtt_us;
	info->hi_rto_us = min_t(u64, hicn_cc_rto_us(cc, lifetime_ms), U32_MAX);
	info->hi_window = cc->cwnd;
	info->hi_window_min = cc->min;
	info->hi_window_max = cc->max;
	info->hi_ssthresh = cc->ssthresh;
	info->hi_backoff = cc->backoff;
	info->hi_window_cuts = cc->cuts;
}
