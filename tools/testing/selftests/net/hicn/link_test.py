#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Link state of UDP faces: a face goes down with its link and up again,
# best route fails over to the other link in the middle of a transfer,
# and interests pending on the only link fail with ENETUNREACH when it
# goes.  The interests pending on the link that goes are sent again at
# once by the forwarder through the other (hicn_stat failover_reforwards):
# the consumer's fetch neither times out nor retransmits.
#
#   netns C (consumer)                              netns P (producer)
#   ca 10.79.1.1/24 fd00:79::1 ---- veth a ---- pa 10.79.1.2/24 fd00:79::2
#   cb 10.79.2.1/24            ---- veth b ---- pb 10.79.2.2/24
#   face A -> 10.79.1.2 (cost 1)                listeners on .1.2, .2.2 and
#   face B -> 10.79.2.2 (cost 2)                [fd00:79::2], auto-faces
#   face 6 -> [fd00:79::2]; route b001::/16     producer of b001:a:b:c::/64
#   via A and B, best route
#
# A link is taken down on P's side, so that C's device loses its carrier
# (the face sees the event of its own host) or on C's side (the device
# goes down and its routes with it).
#
# Helpers (namespaces, setns, fetch, YNL) come from udp_test.py.
#
# Usage: link_test.py  (as root)

import os
import random
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import udp_test as u  # noqa: E402

PID = os.getpid()
NS_C, NS_P = f"hlc-{PID}", f"hlp-{PID}"
ENETUNREACH = 101
OBJ = (2 if "debug" in os.uname().release else 8) << 20
NSEG = (OBJ + 1399) // 1400


def setup():
    u.two_links(NS_C, NS_P, 79)

def cleanup():
    subprocess.run(f"ip netns del {NS_C}; ip netns del {NS_P}", shell=True,
                   stderr=subprocess.DEVNULL)


def link(ns, dev, state):
    u.sh(f"ip -n {ns} link set {dev} {state}")


def wait_up(y, fid, want, secs=5.0):
    """Poll face-get until the face's up flag is @want; the flag seen."""
    end = time.monotonic() + secs
    while True:
        up = u.face_of(y, fid)["up"]
        if up == want or time.monotonic() > end:
            return up
        time.sleep(0.05)


def sent(y, fid):
    return u.face_of(y, fid)["interests-out"]


def fetch_bg(out, lifetime=1000):
    u.enter(NS_C)
    out["t0"] = time.monotonic()
    out["info"] = {}
    out["got"] = u.fetch("b001:a:b:c::1", lifetime=lifetime,
                         info=out["info"])
    out["t1"] = time.monotonic()


def reforwards(y):
    return y.do("counters-get", {}).get("failover-reforwards", 0)


def wait_sent(y, fid, n, secs=60.0):
    end = time.monotonic() + secs
    while sent(y, fid) < n and time.monotonic() < end:
        time.sleep(0.02)
    return sent(y, fid)


def describe(got):
    return len(got) if isinstance(got, bytes) else got


def producer(y, big):
    for a in ("10.79.1.2", "10.79.2.2"):
        y.do("listener-add", {"local": u.a4(a), "auto-faces": 1})
    y.do("listener-add", {"local": u.a6("fd00:79::2"), "auto-faces": 1})
    return u.publish((("b001:a:b:c::1", big),))


def faces(y):
    la = y.do("listener-add", {"local": u.a4("10.79.1.1")})["id"]
    lb = y.do("listener-add", {"local": u.a4("10.79.2.1")})["id"]
    l6 = y.do("listener-add", {"local": u.a6("fd00:79::1")})["id"]
    fa = y.do("face-add", {"listener-id": la,
                           "remote": u.a4("10.79.1.2")})["id"]
    fb = y.do("face-add", {"listener-id": lb,
                           "remote": u.a4("10.79.2.2")})["id"]
    f6 = y.do("face-add", {"listener-id": l6,
                           "remote": u.a6("fd00:79::2")})["id"]
    return la, fa, fb, f6


def test_state(c, fa, fb, f6):
    with c as y:
        u.tap(all(u.face_of(y, f)["up"] == 1 for f in (fa, fb, f6)),
              "faces to reachable peers are up when added")
    link(NS_P, "pa", "down")
    with c as y:
        ua, u6 = wait_up(y, fa, 0), wait_up(y, f6, 0)
        ub = u.face_of(y, fb)["up"]
        u.tap(ua == 0 and u6 == 0 and ub == 1,
              f"the peer's end of link a down (carrier lost): faces A and "
              f"the IPv6 face down, B up ({ua}, {u6}, {ub})")
    link(NS_P, "pa", "up")
    with c as y:
        ua, u6 = wait_up(y, fa, 1), wait_up(y, f6, 1)
        u.tap(ua == 1 and u6 == 1,
              f"link a up again: both faces up ({ua}, {u6})")
    link(NS_C, "cb", "down")
    with c as y:
        ub = wait_up(y, fb, 0)
        u.tap(ub == 0, f"our own device of link b down (its routes go): "
              f"face B down ({ub})")
    link(NS_C, "cb", "up")
    with c as y:
        ub = wait_up(y, fb, 1)
        u.tap(ub == 1, f"our device of link b up: face B up ({ub})")


def test_no_route(c, la):
    with c as y:
        f = y.do("face-add", {"listener-id": la,
                              "remote": u.a4("10.79.9.9")})["id"]
        down = u.face_of(y, f)["up"]
        u.sh(f"ip -n {NS_C} route add 10.79.9.0/24 dev ca")
        up = wait_up(y, f, 1)
        u.tap(down == 0 and up == 1,
              f"a face to a peer without a route is down, and up once a "
              f"route is added by hand ({down}, {up})")
        y.do("face-del", {"id": f})
        u.sh(f"ip -n {NS_C} route del 10.79.9.0/24 dev ca")


def test_best_route(c, fa, fb, big):
    with c as y:
        a0, b0 = sent(y, fa), sent(y, fb)
        got = u.fetch("b001:a:b:c::1")
        a1, b1 = sent(y, fa), sent(y, fb)
        u.tap(got == big and a1 - a0 >= NSEG and b1 == b0,
              f"best route: every interest by the cheaper face A "
              f"(A +{a1 - a0}, B +{b1 - b0}, {describe(got)})")


def test_failover(c, fa, fb, big):
    out = {}
    # Link a's data at 20 Mbit/s: the consumer's interests follow the data
    # back, so "a third in" is seen a third in (unpaced, a window could
    # send nearly every interest between two looks at the counter).
    u.sh(f"tc -n {NS_P} qdisc add dev pa root netem rate 20mbit")
    with c as y:
        a0, b0 = sent(y, fa), sent(y, fb)
        t = threading.Thread(target=fetch_bg, args=(out,))
        t.start()
        mid = wait_sent(y, fa, a0 + NSEG // 3)
        link(NS_P, "pa", "down")
        t.join(120)
        got = out.get("got")
        a1, b1 = sent(y, fa), sent(y, fb)
        u.tap(got == big and mid >= a0 + NSEG // 3 and b1 - b0 > NSEG // 10,
              f"link a down a third into the transfer: best route fails "
              f"over to B and the object arrives intact (A +{a1 - a0}, "
              f"B +{b1 - b0}, {describe(got)})")
    link(NS_P, "pa", "up")
    u.sh(f"tc -n {NS_P} qdisc del dev pa root")
    with c as y:
        wait_up(y, fa, 1)


def test_failover_prompt(c, fa, fb, big):
    """Link a down a third into a transfer with a long lifetime (10 s):
    the interests pending on A are sent again by the forwarder through B
    as soon as A goes down, so the consumer does not wait for its
    retransmission timeout: fewer of its timeouts than the interests the
    forwarder sent again (none on the Debian kernels on a quiet host; a
    slow host, or the debug kernel under TCG, is slow enough for some of
    the consumer's RTT-derived timers to fire anyway: 32 for 42 on a CI
    machine), where without the re-forwarding every pending interest
    times out."""
    out = {}
    u.sh(f"tc -n {NS_P} qdisc add dev pa root netem rate 20mbit")
    with c as y:
        a0, b0, r0 = sent(y, fa), sent(y, fb), reforwards(y)
        t = threading.Thread(target=fetch_bg, args=(out, 10000))
        t.start()
        wait_sent(y, fa, a0 + NSEG // 3)
        t_down = time.monotonic()
        link(NS_P, "pa", "down")
        t.join(120)
        got, hi = out.get("got"), out.get("info", {})
        took = out.get("t1", t_down + 999) - t_down
        r, b1 = reforwards(y) - r0, sent(y, fb)
        u.tap(got == big and r >= 1 and b1 - b0 > NSEG // 10 and
              hi.get("timeouts", r) < r,
              f"link a down a third into the transfer: the forwarder sends "
              f"the interests pending on A again through B at once "
              f"(failover_reforwards +{r}, B +{b1 - b0}); the consumer's "
              f"timeouts fewer than them ({hi}, done {took:.1f} s after, "
              f"{describe(got)})")
    link(NS_P, "pa", "up")
    u.sh(f"tc -n {NS_P} qdisc del dev pa root")
    with c as y:
        wait_up(y, fa, 1)


def test_unreachable(c, fa, fb, big):
    out = {}
    # Link a's data at 20 Mbit/s, so that the transfer is still going
    # when the link goes down (a window of 256 interests and a receive
    # buffer that grows fetch the 8 MiB unpaced in a fifth of a second).
    u.sh(f"tc -n {NS_P} qdisc add dev pa root netem rate 20mbit")
    with c as y:
        y.do("route-del", {"prefix": u.a6("b001::"), "prefix-len": 16,
                           "face-id": fb})
        a0 = sent(y, fa)
        t = threading.Thread(target=fetch_bg, args=(out,))
        t.start()
        wait_sent(y, fa, a0 + NSEG // 4)
        t_down = time.monotonic()
        link(NS_P, "pa", "down")
        t.join(60)
        got = out.get("got")
        took = out.get("t1", t_down + 99) - t_down
        u.tap(isinstance(got, OSError) and got.errno == ENETUNREACH and
              took < 10,
              f"the only link down mid-transfer: the fetch fails with "
              f"ENETUNREACH, not a timeout after every retry "
              f"({describe(got)}, {took:.1f} s)")
        got = u.fetch("b001:a:b:c::1")
        u.tap(isinstance(got, OSError) and got.errno == ENETUNREACH,
              f"a new fetch with no face up: ENETUNREACH ({got})")
    link(NS_P, "pa", "up")
    u.sh(f"tc -n {NS_P} qdisc del dev pa root")
    with c as y:
        up = wait_up(y, fa, 1)
        got = u.fetch("b001:a:b:c::1")
        u.tap(up == 1 and got == big,
              f"the link back: the face is up and fetches again "
              f"({up}, {describe(got)})")


def test_unreachable_rounds(c, fa, big, rounds=8):
    """The face goes down while the consumer's window of interests is
    leaving: one may have passed the FIB before the face went down, and
    the face refuses it (ENETDOWN inside the forwarder); the fetch must
    still fail with ENETUNREACH, in every round.  Link a's data at 20
    Mbit/s, as above."""
    errs = []
    u.sh(f"tc -n {NS_P} qdisc add dev pa root netem rate 20mbit")
    for i in range(rounds):
        out = {}
        with c as y:
            a0 = sent(y, fa)
            t = threading.Thread(target=fetch_bg, args=(out,))
            t.start()
            wait_sent(y, fa, a0 + 16 + 37 * i)
            link(NS_P, "pa", "down")
            t.join(60)
        got = out.get("got")
        if not (isinstance(got, OSError) and got.errno == ENETUNREACH):
            errs.append(f"round {i}: {describe(got)}")
        link(NS_P, "pa", "up")
        with c as y:
            wait_up(y, fa, 1)
    u.sh(f"tc -n {NS_P} qdisc del dev pa root")
    u.tap(not errs, f"the only link down as interests leave, {rounds} "
          f"rounds: every fetch fails with ENETUNREACH ({errs or 'all'})")


def main():
    print("TAP version 13", flush=True)
    setup()
    c, p = u.Host(NS_C), u.Host(NS_P)
    big = random.Random(9).randbytes(OBJ)
    with p as y:
        pfd = producer(y, big)
    with c as y:
        # No cache at C: every fetch goes out by the faces.
        y.do("limits-set", {"cs-max-entries": 0})
        la, fa, fb, f6 = faces(y)
        for f, cost in ((fa, 1), (fb, 2)):
            y.do("route-add", {"prefix": u.a6("b001::"), "prefix-len": 16,
                               "face-id": f, "cost": cost})
    test_state(c, fa, fb, f6)
    test_no_route(c, la)
    test_best_route(c, fa, fb, big)
    test_failover(c, fa, fb, big)
    test_failover_prompt(c, fa, fb, big)
    test_unreachable(c, fa, fb, big)
    test_unreachable_rounds(c, fa, big)
    u.libc.close(pfd)
    print(f"1..{u.ntest}", flush=True)
    return 1 if u.failed else 0


if __name__ == "__main__":
    try:
        rc = main()
    finally:
        cleanup()
    sys.exit(rc)
