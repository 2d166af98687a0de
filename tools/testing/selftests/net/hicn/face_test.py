#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# What a UDP face drops, by reason, and what a face that goes away does to
# the interests pending on it.
#
#   netns Q (downstream)     netns C (consumer, relay)   netns P (peer)
#                            ca 10.80.1.1/24 fd00:80::1 -- veth a --
#                                                  pa 10.80.1.2/24 fd00:80::2
#                            cb 10.80.2.1/24 ---------- veth b --
#                                                  pb 10.80.2.2/24
#   qc 10.80.3.2/24 -- veth q -- cq 10.80.3.1/24
#   face -> 10.80.3.1        face A -> 10.80.1.2:9 (nobody answers)
#   b005::/16 via it         face B -> 10.80.2.2:9 (nobody answers)
#                            b003::/16 via A; b004::/16 via A (cost 1)
#                            and B (cost 2), load balance
#                            face D -> 10.80.2.2:9695, face E ->
#                            10.80.1.2:9695; listener 10.80.3.1, auto-faces
#                            b005::/16 via a silent face (cost 1), D (2)
#                            b007::/16 via E (cost 1), D (2), load balance
#                                         P: listeners [fd00:80::2]:9695,
#                                         10.80.1.2:9695, 10.80.2.2:9695,
#                                         auto-faces; face S -> 10.80.1.1:9
#                                         (silent), b002::/16 via S;
#                                         producers of b005:a:b:c::/64,
#                                         b007:a:b:c::/64
#
# Drops: a hand-made peer in C (UDP port 40000) gets a face on P's
# listener with a good interest, then sends a few datagrams of each
# malformed kind, interests P has no route for, stock names that reach
# a local producer, interest manifests longer than their payload,
# interests beyond its face's PIT quota, data with a bad transport
# header; exactly the
# counter of each reason rises by the number sent, malformed is their
# sum, and "hicnctl -s face show" prints them.  Then a burst of 1,200
# full-sized datagrams from real-time senders on both CPUs, so that the
# listener's rx work runs only once they are done: its socket's buffer
# holds and the face counts every one.
#
# Failing: consumers in C wait on faces whose peers never answer
# (interest lifetime 10 s, so a consumer with no RTT sample resends only
# after 10 s).  Taking C's device of link a down fails at once, with
# ENETUNREACH, the fetch whose interest went to face A alone; the fetches
# whose interests went to face B keep waiting; deleting face B then fails
# them at once.
#
# Failover: a consumer in C fetches a multi-segment object by b005::/16,
# whose cheaper next hop is silent (lifetime 10 s, no RTT sample: its
# RTO is 10 s); deleting that face sends the pending interest again at
# once through D, and the fetch ends within 3 s, not after 10.  Again
# with C as a relay: a consumer in Q fetches through C, and C's device of
# link a goes down; C sends the entry on through D, and Q's consumer gets
# its object without a retransmission.  Then with three next hops, the
# two cheapest silent: deleting one after the other sends the interest
# to the next lowest cost each time, and to D last.  hicn_stat
# failover_reforwards counts them.
#
# Two out-records: a hand-made peer in Q sends an interest to C twice;
# by load balance C sends it through E, then (E being loaded) through D.
# E's data is held 2 s by netem: D's satisfies the entry, the peer gets
# one data packet, and E's copy is dropped as unsolicited.
#
# Helpers (namespaces, setns, YNL, packets) come from udp_test.py.
#
# Usage: face_test.py  (as root)

import ctypes
import os
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import udp_test as u  # noqa: E402

PID = os.getpid()
NS_C, NS_P, NS_Q = f"hfc-{PID}", f"hfp-{PID}", f"hfq-{PID}"
ENETUNREACH = 101
TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../../../.."))
HICNCTL = os.environ.get("HICNCTL", os.path.join(TOP, "userspace/hicnctl/hicnctl"))
N = 3           # datagrams of each kind
BURST = 600     # datagrams of each sender of the burst (sendmmsg())
LIFETIME = 10000
# The drop reasons that are malformed datagrams (face-drops, hicn.yaml).
MALFORMED = ("truncated", "version", "next-header", "length", "oversized",
             "header", "flags", "lifetime", "control", "ah", "transport",
             "name")
REASONS = MALFORMED + ("no-route", "pit-full", "nomem")


def setup():
    u.two_links(NS_C, NS_P, 80)
    u.sh(f"ip netns add {NS_Q} && ip -n {NS_Q} link set lo up && "
         f"ip link add cq netns {NS_C} type veth peer name qc netns {NS_Q}")
    for ns, dev, n in ((NS_C, "cq", 1), (NS_Q, "qc", 2)):
        u.sh(f"ip -n {ns} addr add 10.80.3.{n}/24 dev {dev} && "
             f"ip -n {ns} link set {dev} up")

def cleanup():
    subprocess.run(f"ip netns del {NS_C}; ip netns del {NS_P}; "
                   f"ip netns del {NS_Q}", shell=True,
                   stderr=subprocess.DEVNULL)


def drops(y, fid):
    f = u.face_of(y, fid)
    d = f.get("drops", {})
    return {r: d.get(r, 0) for r in REASONS} | {
        "malformed": f["malformed"], "unsolicited": f["unsolicited"],
        "hop-drops": f["hop-drops"], "refused": f["refused"]}


def wait_drops(y, fid, want, secs=10.0):
    """Poll until the face's counters are @want (or time runs out)."""
    end = time.monotonic() + secs
    while True:
        got = drops(y, fid)
        if got == want or time.monotonic() > end:
            return got
        time.sleep(0.05)


def bad_datagrams():
    """Reason -> a datagram P's listener must drop for it."""
    name = "b001:a:b:c::2"
    good = u.pkt6(True, name, 1 << 19, src="fd00:80::1")
    sig = u.pkt6(True, name, 1 << 19, b"\x01" + bytes(43), src="fd00:80::1")
    return {
        "truncated": good[:30],
        "version": b"\x50" + good[1:],
        "next-header": good[:6] + b"\x11" + good[7:],
        "length": good[:4] + b"\xff\xff" + good[6:],
        "header": good[:52] + b"\x60" + good[53:],
        "flags": good[:53] + bytes([good[53] | 0x01]) + good[54:],
        "lifetime": u.pkt6(True, name, 1 << 19, lifetime=0,
                           src="fd00:80::1"),
        "control": b"\xc0" + bytes(59),
        "ah": sig[:53] + bytes([sig[53] | 0x10]) + sig[54:],
        # Data of ours (version 1, segment 1) with a bad transport header.
        "transport": u.pkt6(False, name, (1 << 21) | 1, bytes(40),
                            src="fd00:80::1"),
        # A stock name (suffix 5, V = 0) that reaches a local producer.
        "name": u.pkt6(True, "b009:a:b:c::2", 5, src="fd00:80::1"),
        "no-route": u.pkt6(True, "b00f::1", 1 << 19, src="fd00:80::1"),
    }


class Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class Msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32),
                ("iov", ctypes.POINTER(Iovec)), ("iovlen", ctypes.c_size_t),
                ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]


class Mmsghdr(ctypes.Structure):
    _fields_ = [("hdr", Msghdr), ("len", ctypes.c_uint)]


def burst(s, pkt, n):
    """Send @pkt @n times on connected @s by sendmmsg(); return sent."""
    buf = ctypes.create_string_buffer(pkt, len(pkt))
    iov = Iovec(ctypes.cast(buf, ctypes.c_void_p), len(pkt))
    msgs = (Mmsghdr * 1024)()     # UIO_MAXIOV: the most one call sends
    for m in msgs:
        m.hdr.iov = ctypes.pointer(iov)
        m.hdr.iovlen = 1
    sent = 0
    while sent < n:
        r = u.libc.sendmmsg(s.fileno(), msgs, min(n - sent, 1024), 0)
        if r <= 0:
            break
        sent += r
    return sent


def burst_child(cpu, go, pkt, n):
    """On @cpu at real-time priority: wait for @go, send @pkt @n times."""
    sent = 0
    try:
        os.sched_setaffinity(0, {cpu})
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        s.bind(("fd00:80::1", 40000))
        s.connect(("fd00:80::2", 9695))
        os.read(go, 1)
        sent = burst(s, pkt, n)
    finally:
        os._exit(0 if sent == n else 1)


def test_burst(fid, p):
    """
    A burst of full-sized datagrams that comes while the listener's rx
    work cannot run (one real-time sender on each CPU: the work runs once
    they are done): the listener's socket holds them all.  Its receive
    buffer is HICN_UDP_RCVBUF; rmem_default's 208 KiB held about 90 of
    them, and the kernel dropped the rest as UdpRcvbufErrors before any
    face could count them (a consumer's window of data arriving while
    the CPUs were busy came in as losses).  Stock data nobody asked
    for, so that each is counted (unsolicited) and nothing is kept.
    """
    with p as y:
        want = drops(y, fid)
    u.enter(NS_C)
    pkt = u.pkt6(False, "b00f::3", 5, bytes(1300), src="fd00:80::1")
    go_r, go_w = os.pipe()
    kids = []
    for cpu in sorted(os.sched_getaffinity(0))[:2]:
        pid = os.fork()
        if not pid:
            burst_child(cpu, go_r, pkt, BURST)
        kids.append(pid)
    time.sleep(0.5)
    os.write(go_w, b"x" * len(kids))
    ok = all(os.waitpid(k, 0)[1] == 0 for k in kids)
    os.close(go_r)
    os.close(go_w)
    want["unsolicited"] += BURST * len(kids)
    with p as y:
        got = wait_drops(y, fid, want, 30.0)
    errs = subprocess.run(f"ip netns exec {NS_P} nstat -az Udp6RcvbufErrors",
                          shell=True, capture_output=True,
                          text=True).stdout.split()
    u.tap(ok and got == want,
          f"{len(kids)} real-time senders, {BURST} data packets of 1,400 "
          f"bytes each: every one counted (unsolicited "
          f"{got['unsolicited']} of {want['unsolicited']}; "
          f"{' '.join(errs[-3:-1])})")


def test_drops(c, p):
    with p as y:
        y.do("listener-add", {"local": u.a6("fd00:80::2"), "auto-faces": 1})
        ls = y.do("listener-add", {"local": u.a4("10.80.1.2"),
                                   "port": 9696})["id"]
        fs = y.do("face-add", {"listener-id": ls, "remote": u.a4("10.80.1.1"),
                               "remote-port": 9})["id"]
        y.do("route-add", {"prefix": u.a6("b002::"), "prefix-len": 16,
                           "face-id": fs, "cost": 1})
        quota = y.do("limits-get", {})["pit-user-max"]
        pfd = u.publish((("b009:a:b:c::1", b"nine"),), prefix="b009:a:b:c::")
    u.enter(NS_C)
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind(("fd00:80::1", 40000))
    dst = ("fd00:80::2", 9695)
    # A good interest P has no route for makes the face (and a drop).
    s.sendto(u.pkt6(True, "b00f::2", 1 << 19, src="fd00:80::1"), dst)
    with p as y:
        end = time.monotonic() + 10
        hf = []
        while not hf and time.monotonic() < end:
            hf = [f["id"] for f in u.udp_faces(y) if f["remote-port"] == 40000]
            time.sleep(0.05)
        u.tap(len(hf) == 1, f"a good interest made the peer a face ({hf})")
        if not hf:
            s.close()
            return
        fid = hf[0]
        want = wait_drops(y, fid, drops(y, fid) | {"no-route": 1})
    for why, pkt in bad_datagrams().items():
        for _ in range(N):
            s.sendto(pkt, dst)
        want[why] += N
        if why in MALFORMED:
            want["malformed"] += N
        with p as y:
            got = wait_drops(y, fid, want)
        u.tap(got == want, f"{N} datagrams with {why}: exactly that reason "
              f"counted ({ {k: v for k, v in got.items() if v} })")
    # A stock interest manifest (URG) whose count of suffixes (2) is
    # longer than its payload (40 bytes): dropped as name.
    man = bytearray(u.pkt6(True, "b002::1", 0, struct.pack(">I", 2) +
                           bytes(36), src="fd00:80::1"))
    man[53] |= 0x20
    for _ in range(N):
        s.sendto(bytes(man), dst)
    want["name"] += N
    want["malformed"] += N
    with p as y:
        got = wait_drops(y, fid, want)
    u.tap(got == want, f"{N} interest manifests longer than their payload: "
          f"name ({got['name']})")
    u.libc.close(pfd)
    # Interests beyond the face's PIT quota (2): the rest are pit-full.
    with p as y:
        y.do("limits-set", {"pit-user-max": 2})
    for i in range(2 + N):
        s.sendto(u.pkt6(True, f"b002::{i + 1:x}", 1 << 19, lifetime=30000,
                        src="fd00:80::1"), dst)
    want["pit-full"] += N
    with p as y:
        got = wait_drops(y, fid, want)
        y.do("limits-set", {"pit-user-max": quota})
    u.tap(got == want, f"{2 + N} interests on a quota of 2: {N} pit-full "
          f"(pit-full {got['pit-full']})")
    s.close()
    out = subprocess.run([HICNCTL, "-s", "-n", NS_P, "hicn", "face", "show",
                          str(fid)], capture_output=True, text=True)
    line = out.stdout.strip()
    ok = out.returncode == 0 and all(
        f" {r} {want[r]}" in line for r in ("truncated", "no-route",
                                            "pit-full", "transport"))
    u.tap(ok, f"hicnctl -s face show prints the reasons ({line}"
          f"{out.stderr.strip()})")
    test_burst(fid, p)


def fetch_bg(name, out, ns=NS_C):
    """Fetch @name in @ns from a thread: the errno (or bytes), and when."""
    u.enter(ns)
    out["t0"] = time.monotonic()
    got = u.fetch(name, lifetime=LIFETIME)
    out["t1"] = time.monotonic()
    out["got"] = got.errno if isinstance(got, OSError) else got


def fetch_started(name, ns=NS_C):
    """fetch_bg() of @name in @ns, started in a thread: (its out, it)."""
    o = {}
    t = threading.Thread(target=fetch_bg, args=(name, o, ns), daemon=True)
    t.start()
    return o, t


def wait_pending(y, fid, n, secs=20.0):
    end = time.monotonic() + secs
    while True:
        got = u.face_of(y, fid)["out-pending"]
        if got == n or time.monotonic() > end:
            return got
        time.sleep(0.02)


def wait_done(outs, secs):
    end = time.monotonic() + secs
    while time.monotonic() < end and not all("got" in o for o in outs):
        time.sleep(0.02)
    return [o.get("got") for o in outs]


def test_fail(c):
    with c as y:
        la = y.do("listener-add", {"local": u.a4("10.80.1.1")})["id"]
        lb = y.do("listener-add", {"local": u.a4("10.80.2.1")})["id"]
        fa = y.do("face-add", {"listener-id": la, "remote": u.a4("10.80.1.2"),
                               "remote-port": 9})["id"]
        fb = y.do("face-add", {"listener-id": lb, "remote": u.a4("10.80.2.2"),
                               "remote-port": 9})["id"]
        y.do("route-add", {"prefix": u.a6("b003::"), "prefix-len": 16,
                           "face-id": fa, "cost": 1})
        for f, cost in ((fa, 1), (fb, 2)):
            y.do("route-add", {"prefix": u.a6("b004::"), "prefix-len": 16,
                               "face-id": f, "cost": cost})
        y.do("strategy-set", {"prefix": u.a6("b004::"), "prefix-len": 16,
                              "strategy": "load-balance"})
    # X waits on A alone; then Y goes to B (A has more pending).
    outs, threads = [], []
    for name, face, n in (("b003::1", fa, 1), ("b004::1", fb, 1)):
        o, t = fetch_started(name)
        outs.append(o)
        threads.append(t)
        with c as y:
            wait_pending(y, face, n)
    with c as y:
        pa, pb = (u.face_of(y, f)["out-pending"] for f in (fa, fb))
    u.tap((pa, pb) == (1, 1), f"X's interest waits on A, Y's on B "
          f"(out-pending {pa}, {pb})")
    t0 = time.monotonic()
    u.sh(f"ip -n {NS_C} link set ca down")
    x, y_ = wait_done(outs[:1], 4.0)[0], outs[1].get("got")
    dt = time.monotonic() - t0
    u.tap(x == ENETUNREACH and dt < 3.0,
          f"our device of link a down: X's recv() fails with ENETUNREACH "
          f"at once, not after its {LIFETIME} ms lifetime ({x}, "
          f"{dt:.2f} s)")
    with c as y:
        pa, pb = (u.face_of(y, f)["out-pending"] for f in (fa, fb))
    u.tap(y_ is None and pa == 0 and pb == 1,
          f"Y, whose interest went to B, keeps waiting (got {y_}, "
          f"out-pending A {pa}, B {pb})")
    t0 = time.monotonic()
    with c as y:
        y.do("face-del", {"id": fb})
    got = wait_done(outs[1:], 4.0)[0]
    dt = time.monotonic() - t0
    u.tap(got == ENETUNREACH and dt < 3.0,
          f"face-del of B: Y's recv() fails with ENETUNREACH at once "
          f"({got}, {dt:.2f} s)")
    u.sh(f"ip -n {NS_C} link set ca up")
    for t in threads:
        t.join(LIFETIME / 1000 * 2)
    return la, lb


def reforwards(y):
    return y.do("counters-get", {}).get("failover-reforwards", 0)


def route(y, prefix, fid, cost):
    y.do("route-add", {"prefix": u.a6(prefix), "prefix-len": 16,
                       "face-id": fid, "cost": cost})


def failover_setup(c, p, la, lb, objs):
    """P serves @objs (prefix -> (name, data) pairs) on listeners of
    links a and b; C gets face D to P on link b (on listener @lb), E to P
    on link a (on @la) and a listener for Q; Q gets a face to C.  Returns
    the producers' fds, D and E."""
    with p as y:
        for a in ("10.80.1.2", "10.80.2.2"):
            y.do("listener-add", {"local": u.a4(a), "auto-faces": 1})
        fds = [u.publish(o, prefix=pfx, plen=64) for pfx, o in objs.items()]
    with c as y:
        y.do("listener-add", {"local": u.a4("10.80.3.1"), "auto-faces": 1})
        fd = y.do("face-add", {"listener-id": lb,
                               "remote": u.a4("10.80.2.2")})["id"]
        fe = y.do("face-add", {"listener-id": la,
                               "remote": u.a4("10.80.1.2")})["id"]
    with u.Host(NS_Q) as y:
        lq = y.do("listener-add", {"local": u.a4("10.80.3.2")})["id"]
        fq = y.do("face-add", {"listener-id": lq,
                               "remote": u.a4("10.80.3.1")})["id"]
        route(y, "b005::", fq, 1)
    return fds, fd, fe


def silent_face(y, la, port):
    """A face of C on link a to a port of P where nobody answers."""
    return y.do("face-add", {"listener-id": la, "remote": u.a4("10.80.1.2"),
                             "remote-port": port})["id"]


def test_failover(c, fd, la, obj):
    """face-del of the cheaper, silent face: C's pending interest leaves
    again at once through D."""
    with c as y:
        fs = silent_face(y, la, 10)
        wait_up(y, fs)
        route(y, "b005::", fs, 1)
        route(y, "b005::", fd, 2)
        r0, d0 = reforwards(y), u.face_of(y, fd)["interests-out"]
    o, t = fetch_started("b005:a:b:c::1")
    with c as y:
        n = wait_pending(y, fs, 1)
        t0 = time.monotonic()
        y.do("face-del", {"id": fs})
    got = wait_done([o], LIFETIME / 1000 * 2)[0]
    dt = time.monotonic() - t0
    with c as y:
        r, d = reforwards(y) - r0, u.face_of(y, fd)["interests-out"] - d0
    u.tap(n == 1 and got == obj and dt < 3.0 and r >= 1 and d > 1,
          f"face-del of the cheaper next hop with an interest pending: "
          f"it leaves again at once by D and the {len(obj)}-byte object "
          f"arrives in {dt:.2f} s, not after the {LIFETIME} ms RTO "
          f"(failover_reforwards +{r}, D +{d} interests, "
          f"{got if isinstance(got, int) else len(got or b'')})")
    t.join(LIFETIME / 1000 * 2)


def test_failover_relay(c, fd, la, obj):
    """C relays Q's interest; C's device of link a goes down: C sends the
    entry on through D, and Q's consumer never retransmits."""
    with c as y:
        fs = silent_face(y, la, 11)
        wait_up(y, fs)
        route(y, "b005::", fs, 1)
        r0, d0 = reforwards(y), u.face_of(y, fd)["interests-out"]
    o, t = fetch_started("b005:a:b:c::2", NS_Q)
    with c as y:
        n = wait_pending(y, fs, 1)
        t0 = time.monotonic()
        u.sh(f"ip -n {NS_C} link set ca down")
    got = wait_done([o], LIFETIME / 1000 * 2)[0]
    dt = time.monotonic() - t0
    with c as y:
        r, d = reforwards(y) - r0, u.face_of(y, fd)["interests-out"] - d0
        y.do("face-del", {"id": fs})
    u.sh(f"ip -n {NS_C} link set ca up")
    u.tap(n == 1 and got == obj and dt < 3.0 and r >= 1 and d > 1,
          f"relay C, its device of link a down with Q's interest pending "
          f"on it: C sends it on by D at once and Q's consumer has the "
          f"object in {dt:.2f} s, not after its {LIFETIME} ms RTO "
          f"(failover_reforwards +{r}, D +{d} interests, "
          f"{got if isinstance(got, int) else len(got or b'')})")
    t.join(LIFETIME / 1000 * 2)


def test_failover_chain(c, fd, la, obj):
    """Three next hops, the two cheapest silent: deleting the cheapest
    sends C's pending interest on to the next (cost 2), not to D (cost
    3); deleting that one too sends it on to D, and the object arrives at
    once: each failover takes the lowest cost of the next hops left."""
    with c as y:
        s1, s2 = silent_face(y, la, 12), silent_face(y, la, 13)
        wait_up(y, s1)
        wait_up(y, s2)
        y.do("route-del", {"prefix": u.a6("b005::"), "prefix-len": 16,
                           "face-id": fd})
        route(y, "b005::", s1, 1)
        route(y, "b005::", s2, 2)
        route(y, "b005::", fd, 3)
        r0, d0 = reforwards(y), u.face_of(y, fd)["interests-out"]
    o, t = fetch_started("b005:a:b:c::3")
    with c as y:
        n1 = wait_pending(y, s1, 1)
        y.do("face-del", {"id": s1})
        n2 = wait_pending(y, s2, 1)
        d1 = u.face_of(y, fd)["interests-out"] - d0
        t0 = time.monotonic()
        y.do("face-del", {"id": s2})
    got = wait_done([o], LIFETIME / 1000 * 2)[0]
    dt = time.monotonic() - t0
    with c as y:
        r, d = reforwards(y) - r0, u.face_of(y, fd)["interests-out"] - d0
    u.tap(n1 == 1 and n2 == 1 and d1 == 0 and got == obj and dt < 3.0 and
          r >= 2 and d > 1,
          f"three next hops: the cheapest deleted, its pending interest "
          f"goes to the next ({n2} pending there, D +{d1}); that one "
          f"deleted, to D, and the {len(obj)}-byte object arrives in "
          f"{dt:.2f} s (failover_reforwards +{r}, D +{d} interests, "
          f"{got if isinstance(got, int) else len(got or b'')})")
    t.join(LIFETIME / 1000 * 2)


def counts(y, fid):
    f = u.face_of(y, fid)
    return (f["interests-out"], f["data-in"], f["unsolicited"])


def test_two_outs(c, fd, fe):
    """One PIT entry, its interest out on E and then on D: the first data
    satisfies it, the other copy is dropped as unsolicited."""
    with c as y:
        wait_up(y, fe)
        route(y, "b007::", fe, 1)
        route(y, "b007::", fd, 2)
        y.do("strategy-set", {"prefix": u.a6("b007::"), "prefix-len": 16,
                              "strategy": "load-balance"})
        e0, d0 = counts(y, fe), counts(y, fd)
        s0 = y.do("counters-get", {})["unsolicited"]
    u.sh(f"tc -n {NS_P} qdisc add dev pa root netem delay 2000ms")
    u.enter(NS_Q)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("10.80.3.2", 40001))
    s.settimeout(5)
    pkt = u.pkt6(True, "b007:a:b:c::1", 1 << 19, lifetime=8000,
                 src="fd00:80::3")
    s.sendto(pkt, ("10.80.3.1", 9695))
    with c as y:
        first = wait_pending(y, fe, 1)
    s.sendto(pkt, ("10.80.3.1", 9695))
    try:
        data = [s.recv(65535)]
    except OSError:
        data = []
    with c as y:
        end = time.monotonic() + 5
        while counts(y, fe)[2] == e0[2] and time.monotonic() < end:
            time.sleep(0.05)
        e, d = counts(y, fe), counts(y, fd)
        s1 = y.do("counters-get", {})["unsolicited"]
        pit = y.do("counters-get", {})["pit-entries"]
    s.settimeout(0.5)
    try:
        data.append(s.recv(65535))
    except OSError:
        pass
    s.close()
    u.sh(f"tc -n {NS_P} qdisc del dev pa root")
    de = tuple(a - b for a, b in zip(e, e0))
    dd = tuple(a - b for a, b in zip(d, d0))
    u.tap(first == 1 and de == (1, 1, 1) and dd == (1, 1, 0) and
          s1 - s0 == 1 and len(data) == 1 and pit == 0,
          f"an interest sent again goes out a second face (load balance): "
          f"D's data satisfies the entry once, the peer gets one packet, "
          f"E's late copy is unsolicited (E out/in/unsolicited {de}, "
          f"D {dd}, netns unsolicited +{s1 - s0}, {len(data)} packet(s), "
          f"pit-entries {pit})")


def wait_up(y, fid, secs=5.0):
    end = time.monotonic() + secs
    while not u.face_of(y, fid)["up"] and time.monotonic() < end:
        time.sleep(0.05)


def main():
    print("TAP version 13", flush=True)
    setup()
    c, p = u.Host(NS_C), u.Host(NS_P)
    test_drops(c, p)
    la, lb = test_fail(c)
    objs = [(f"b005:a:b:c::{i}", os.urandom(40000 + i)) for i in (1, 2, 3)]
    fds, fd, fe = failover_setup(c, p, la, lb, {
        "b005:a:b:c::": objs, "b007:a:b:c::": [("b007:a:b:c::1",
                                                b"seven" * 20)]})
    test_failover(c, fd, la, objs[0][1])
    test_failover_relay(c, fd, la, objs[1][1])
    test_failover_chain(c, fd, la, objs[2][1])
    test_two_outs(c, fd, fe)
    for f in fds:
        u.libc.close(f)
    print(f"1..{u.ntest}", flush=True)
    return 1 if u.failed else 0


if __name__ == "__main__":
    try:
        rc = main()
    finally:
        cleanup()
    sys.exit(rc)
