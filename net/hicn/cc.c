// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control of the consumer's window (CONS_REL, CONS_UNREL).
 *
 * The choice: loss-based AIMD, Reno-style with slow start, RACK's loss
 * detection, TCP Veno's tell of random from congestive losses, and
 * TCP Illinois's and Westwood+'s answers to a path without a queue; not
 * (yet) hICN's delay-based RAAQM.
 *
 *   - An interest is answered by one data segment or by nothing: there
 *     are no duplicate acknowledgements.  Losses are found by time, as
 *     TCP's RACK does (RFC 8985): an interest sent toward another host
 *     whose data has not come while the data of an interest sent after
 *     it has, is lost once it has waited SRTT plus a reordering window
 *     of a quarter of the minimum RTT (at least a jiffy); else at its
 *     RTO.  Either cuts the window (below).  An interest a local
 *     producer serves is never lost, and is answered in the order the
 *     scheduler runs the consumers that share its PIT entries: only
 *     its RTO applies.
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
 *     timeout and RACK's wait), and with it the minimum RTT, which
 *     Veno's estimate of the backlog uses; a RAAQM-like delay decrease
 *     can be added per path once faces report paths.
 *
 * The rules:
 *   - The window starts at HICN_WINDOW_INIT within [min, max] and at most
 *     this many interests of the window are outstanding (the ring of
 *     slots, sized by the maximum, and SO_RCVBUF bound it further).
 *   - The backlog: interests of the window queued in the network, as
 *     TCP Veno estimates them, window * (RTT - min RTT) / RTT, with the
 *     smallest RTT sample of the last round trip (as Linux's tcp_veno:
 *     a sample a pause of the scheduler made long does not count, a
 *     queue that stays a whole round does).  Below 3 interests, the
 *     path has no queue.
 *   - Each data segment that fills a slot grows it: by one below ssthresh
 *     (slow start: from 4 to 256 in 252 segments); above, additive
 *     increase as TCP Illinois does: by 10 per round trip while the path
 *     has no queue, by 1 (Reno's) once it has one.  It grows also
 *     when the window is not what limits the sending: on one host data
 *     comes back inside the call that sent the interest, so fewer than
 *     two interests are ever outstanding, and the window reaches its
 *     maximum within a few dozen segments; there it costs nothing.
 *   - A loss cuts it, once per loss event: a loss of an interest sent
 *     before the last cut is part of the event that cut (NewReno's
 *     recovery, by send time).  A timeout halves it.  An early loss
 *     (RACK) does as TCP Veno: with a queue it halves the window; with
 *     none the loss is taken for a random one (a lossy link, not a full
 *     queue) and the window keeps what the path holds without a queue,
 *     as TCP Westwood+ sets it (window * min RTT / RTT), one less at
 *     least and a fifth less (Veno's cut) at most.  ssthresh = max(cut
 *     window, min).  A transfer over a link that loses at random thus
 *     keeps its window, and one that fills a queue yields as Reno does:
 *     halves, grows by one per round trip.
 *   - An early loss whose first sending is answered after all, sooner
 *     than a round trip after the resend, was a reordering: the
 *     reordering window grows by a quarter of the minimum RTT (up to
 *     SRTT), and once every loss of the event proved so, its cut is
 *     undone (RFC 8985, RFC 3522).
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

/* The reordering window grows up to this many quarters of the min RTT. */
#define HICN_REO_MULT_MAX	16
/* TCP Veno's beta: below this backlog, a loss is taken for a random one. */
#define HICN_VENO_BACKLOG	3
/* TCP Illinois's alpha_max: the growth per round trip while no queue is. */
#define HICN_ALPHA_MAX		10

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
	cc->reo_mult = 1;
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

/*
 * The smallest sample of each round trip, as Linux's TCP Veno keeps it
 * for its backlog: a sample that a pause of the scheduler (or of TCG)
 * made long does not raise it; a queue that stayed a whole round does.
 */
static void hicn_cc_round(struct hicn_cc *cc, u64 sent_ns, u64 now, u32 us)
{
	if (!cc->round_min_us || us < cc->round_min_us)
		cc->round_min_us = us;
	if (sent_ns < cc->round_ns)
		return;
	cc->veno_rtt_us = cc->round_min_us;
	cc->round_min_us = 0;
	cc->round_ns = now;
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

/*
 * Interests of the window queued in the network, as TCP Veno estimates
 * them: cwnd * (RTT - min RTT) / RTT, with the smallest RTT of the last
 * round trip (hicn_cc_round()).
 */
static u32 hicn_cc_backlog(const struct hicn_cc *cc)
{
	u64 rtt = cc->veno_rtt_us;

	if (!rtt || rtt <= cc->min_rtt_us)
		return 0;
	return div64_u64((u64)cc->cwnd * (rtt - cc->min_rtt_us), rtt);
}

/*
 * Segments the window grows by per window of data above ssthresh: as TCP
 * Illinois does, HICN_ALPHA_MAX while no queue is seen (hicn_cc_backlog()
 * below HICN_VENO_BACKLOG: the path is not full, and a loss there was a
 * random one), one (Reno's) once there is a queue.
 */
static u32 hicn_cc_alpha(const struct hicn_cc *cc)
{
	return hicn_cc_backlog(cc) < HICN_VENO_BACKLOG ? HICN_ALPHA_MAX : 1;
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
		u32 us = clamp_t(u64, div_u64(now - sent_ns, NSEC_PER_USEC),
				 1, U32_MAX);

		hicn_cc_rtt(cc, us);
		hicn_cc_round(cc, sent_ns, now, us);
		cc->backoff = 0;
		/* Only an unambiguous answer says what was delivered. */
		cc->rack_sent_ns = max(cc->rack_sent_ns, sent_ns);
	}
	if (cc->cwnd >= cc->max)
		return;
	if (cc->cwnd < cc->ssthresh) {
		cc->cwnd++;
		return;
	}
	/* alpha segments more per window of segments */
	cc->cwnd_cnt += hicn_cc_alpha(cc);
	if (cc->cwnd_cnt >= cc->cwnd) {
		cc->cwnd_cnt = 0;
		cc->cwnd++;
	}
}

/*
 * A loss starts a loss event unless it is part of the last one; the
 * window shrinks to @win (at least the minimum).
 */
static bool hicn_cc_cut(struct hicn_cc *cc, u64 sent_ns, u32 win)
{
	if (cc->epoch_ns && sent_ns < cc->epoch_ns) {
		cc->event_losses++;
		return false;
	}
	cc->epoch_ns = ktime_get_ns();
	cc->event_losses = 1;
	cc->event_spurious = 0;
	cc->prior_cwnd = cc->cwnd;
	cc->prior_ssthresh = cc->ssthresh;
	cc->ssthresh = max(win, cc->min);
	cc->cwnd = cc->ssthresh;
	cc->cwnd_cnt = 0;
	cc->cuts++;
	return true;
}

/*
 * The window after a random loss: the interests the path holds without
 * a queue, as TCP Westwood+ estimates them (delivery rate times minimum
 * RTT: cwnd * min RTT / RTT, with the smallest RTT of the last round, as
 * Veno's backlog), one interest less at least and a fifth (Veno's cut)
 * at most.
 */
static u32 hicn_cc_pipe(const struct hicn_cc *cc)
{
	u32 w = cc->cwnd, hi = max(w - 1, 1U), lo = min(w - w / 5, hi), pipe;
	u64 rtt = cc->veno_rtt_us;

	pipe = rtt > cc->min_rtt_us ?
		div64_u64((u64)w * cc->min_rtt_us, rtt) : w;
	return clamp(pipe, lo, hi);
}

/**
 * hicn_cc_loss() - an interest was found lost before its RTO (RACK)
 * @cc: the state
 * @sent_ns: when that interest was last sent
 *
 * As TCP Veno: with HICN_VENO_BACKLOG interests or more queued in the
 * network (hicn_cc_backlog()) the loss is a queue that overflowed, and
 * the window halves; with fewer it is taken for a random one, a lossy
 * link, and the window keeps what the path holds (hicn_cc_pipe()).
 *
 * Return: true when this loss started a loss event (window cut); false
 * for a loss of an interest sent before the last event, which is part
 * of it.
 */
bool hicn_cc_loss(struct hicn_cc *cc, u64 sent_ns)
{
	if (hicn_cc_backlog(cc) >= HICN_VENO_BACKLOG)
		return hicn_cc_cut(cc, sent_ns, cc->cwnd / 2);
	return hicn_cc_cut(cc, sent_ns, hicn_cc_pipe(cc));
}

/**
 * hicn_cc_timeout() - the timer of an interest ran out
 * @cc: the state
 * @sent_ns: when that interest was last sent
 *
 * A loss that halves the window and doubles the RTO when it starts a
 * loss event.
 *
 * Return: true when it started one.
 */
bool hicn_cc_timeout(struct hicn_cc *cc, u64 sent_ns)
{
	if (!hicn_cc_cut(cc, sent_ns, cc->cwnd / 2))
		return false;
	if (cc->backoff < 32)
		cc->backoff++;
	return true;
}

/**
 * hicn_cc_rack_wait() - how long an interest overtaken by a later one's
 *	data may still wait for its own (RACK)
 * @cc: the state
 * @sent_ns: when the interest was last sent
 *
 * Return: 0 when no interest sent after it has been answered (or there
 * is no RTT yet): only its RTO applies; else SRTT plus the reordering
 * window (a quarter of the minimum RTT), in jiffies, at least one.
 */
unsigned long hicn_cc_rack_wait(const struct hicn_cc *cc, u64 sent_ns)
{
	u64 srtt = cc->srtt8_us >> 3, us;

	if (!cc->srtt8_us || cc->rack_sent_ns <= sent_ns)
		return 0;
	us = srtt + min_t(u64, (u64)cc->reo_mult * cc->min_rtt_us / 4, srtt);
	/* One jiffy more: @sent_ns may have been late in its jiffy. */
	return usecs_to_jiffies(min_t(u64, us, U32_MAX)) + 1;
}

/**
 * hicn_cc_spurious() - was an early loss a reordering?
 * @cc: the state
 * @sent_ns: when the interest, found lost early, was resent
 *
 * Its answer came sooner than any round trip (the minimum RTT) after the
 * resend: it answers the first sending, which was not lost but overtaken
 * (paths, or CPUs, that reorder).  The reordering window grows by a
 * quarter of the minimum RTT; once every loss of the last loss event
 * proved spurious, its window cut is undone, as TCP does on DSACKs
 * (RFC 8985, section 6.2; RFC 3522).
 *
 * Return: true when it was spurious.
 */
bool hicn_cc_spurious(struct hicn_cc *cc, u64 sent_ns)
{
	u64 now = ktime_get_ns();

	if (now < sent_ns ||
	    now - sent_ns >= (u64)cc->min_rtt_us * NSEC_PER_USEC)
		return false;
	if (cc->reo_mult < HICN_REO_MULT_MAX)
		cc->reo_mult++;
	/* Resent after the last cut: one of that event's losses. */
	if (sent_ns >= cc->epoch_ns &&
	    ++cc->event_spurious == cc->event_losses && cc->prior_cwnd) {
		cc->cwnd = clamp(max(cc->cwnd, cc->prior_cwnd), cc->min,
				 cc->max);
		cc->ssthresh = max(cc->ssthresh, cc->prior_ssthresh);
		cc->prior_cwnd = 0;
	}
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
