#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Paths between two hosts: a consumer fetching over a link that loses,
# delays and reorders (netem), and over two links at once (the FIB's
# load-balance and best-route strategies).
#
#   netns C (consumer)                                 netns P (producer)
#   CONS_REL / CONS_UNREL sockets                      producer of
#                                                      b001:a:b:c::/64
#   listener 10.79.1.1:9695                            listener 10.79.1.2:9695
#     face F1 -> 10.79.1.2   c1 ==== veth, netem ==== p1    auto-faces
#   listener 10.79.2.1:9695                            listener 10.79.2.2:9695
#     face F2 -> 10.79.2.2   c2 ====== veth ========= p2    auto-faces
#
#   route b001::/16: F1 (cost 1) for the netem tests; F1 and F2 for the
#   two-path tests.  netem sits on both ends of link 1 (c1's and p1's
#   egress), so interests and data are lost, delayed and reordered.
#
# 1. netem loss 1%, loss 5%, delay 20ms, delay 10ms reorder 10% 50% on
#    link 1: a CONS_REL consumer gets each object intact (sha256 and byte
#    for byte against what was published), and HICN_INFO (version 3)
#    adds up: every segment once, sent - retransmitted = segments, as
#    many timeouts and early retransmissions (RACK) as retransmissions
#    at least; under loss there are retransmissions and window cuts,
#    and more early retransmissions than timeouts; with 20 ms each way
#    no RTT sample is below 40 ms.  F1's counters agree with the socket's.
# 2. CONS_UNREL under 5% loss: the object keeps its length; each segment
#    is either the original's bytes at its offset or zeros, and the
#    zeroed ones are exactly what the one HICN_CMSG_LOST control message
#    and hi_lost count (include/uapi/linux/hicn.h,
#    Documentation/hicn-api.rst, gap_test.c).
# 3. Two links: load-balance spreads the interests over F1 and F2 (each
#    carries at least a fifth of the segments); best-route with costs 1
#    and 2 sends every interest to the cheaper face, and to the other
#    once the costs are swapped.
# Last, nothing is left pending: both PITs empty, F1 and F2 wait for no
# answer.
#
# Segments are 1300 bytes, so a datagram (92 bytes of hICN headers, UDP,
# IPv4) fits a 1500-byte frame and netem's rates are per segment.  The
# CONS_REL sockets allow 10 retransmissions of an interest (3 by
# default): with 5% lost each way one try in ten fails, and the 4 tries
# of some segment of 1,600 would all fail in one fetch out of seven.
# Every socket has a receive timeout, so that a stalled fetch is a
# failure, not a hang.
#
# Helpers (namespaces, setns, YNL, TAP) come from udp_test.py.
#
# Usage: path_test.py  (as root)

import ctypes
import errno
import hashlib
import os
import random
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import udp_test as u  # noqa: E402

PID = os.getpid()
NS_C, NS_P = f"hpc-{PID}", f"hpp-{PID}"
CONS_UNREL = 2
HICN_RETX_LIMIT, HICN_INFO, HICN_CMSG_LOST = 4, 7, 1
SEG = 1300
PREFIX = "b001:a:b:c::"

# Each packet costs about ten times more on the debug kernel (KASAN,
# lockdep, kmemleak under TCG): smaller objects there, the same paths.
DEBUG = "debug" in os.uname().release
# The loss tests: enough packets that 1% lost each way always loses some
# (1,200 packets at least: 0.99^1200 < 1e-5).
LOSS_KIB = 768 if DEBUG else 2048
REL_KIB = 384 if DEBUG else 2048
UNREL_KIB = 192 if DEBUG else 1024
# Lifetimes: a lost CONS_REL interest is resent at its RTO (200 ms at
# least); a lost CONS_UNREL one is given up at its lifetime.
REL_LIFETIME = 2000
UNREL_LIFETIME = 1000 if DEBUG else 500
RCVTIMEO = 60

INFO = struct.Struct("=4I9Q2I2Q10I3Q")
INFO_FIELDS = (
    "version size type protocol interests_sent interests_retx "
    "interests_received segments bytes cache_hits timeouts lost objects "
    "last_version versions mem rmem srtt_us rttvar_us min_rtt_us rto_us "
    "window window_min window_max ssthresh in_flight backoff "
    "window_cuts early_retx spurious_retx").split()


def setup():
    for ns in (NS_C, NS_P):
        u.sh(f"ip netns add {ns} && ip -n {ns} link set lo up")
    for n in (1, 2):
        u.sh(f"ip link add c{n} netns {NS_C} type veth peer name p{n} "
             f"netns {NS_P}")
        for ns, dev, h in ((NS_C, f"c{n}", 1), (NS_P, f"p{n}", 2)):
            u.sh(f"ip -n {ns} addr add 10.79.{n}.{h}/24 dev {dev} && "
                 f"ip -n {ns} link set {dev} up")
    subprocess.run("modprobe sch_netem", shell=True,
                   stderr=subprocess.DEVNULL)


def cleanup():
    subprocess.run(f"ip netns del {NS_C}; ip netns del {NS_P}", shell=True,
                   stderr=subprocess.DEVNULL)


def netem(args):
    """netem @args on both ends of link 1 (None: none); an error or ''."""
    for ns, dev in ((NS_C, "c1"), (NS_P, "p1")):
        cmd = (f"tc -n {ns} qdisc replace dev {dev} root netem {args}"
               if args else f"tc -n {ns} qdisc del dev {dev} root")
        r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
        if r.returncode:
            return f"{cmd}: {r.stderr.strip()}"
    return ""


def seg_count(n):
    return max(1, (n + SEG - 1) // SEG)


def info(s):
    raw = s.getsockopt(u.SOL_HICN, HICN_INFO, INFO.size)
    if len(raw) < INFO.size:
        return dict({f: -1 for f in INFO_FIELDS}, size=len(raw))
    return dict(zip(INFO_FIELDS, INFO.unpack(raw)))


def consumer(proto, lifetime, retx=None):
    s = socket.socket(u.AF, u.SOCK_CONS, proto)
    s.setsockopt(u.SOL_HICN, u.HICN_INTEREST_LIFETIME, lifetime)
    if retx is not None:
        s.setsockopt(u.SOL_HICN, HICN_RETX_LIMIT, retx)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                 struct.pack("ll", RCVTIMEO, 0))
    return s


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class MsgHdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32),
                ("iov", ctypes.POINTER(IoVec)), ("iovlen", ctypes.c_size_t),
                ("control", ctypes.c_void_p),
                ("controllen", ctypes.c_size_t), ("flags", ctypes.c_int)]


CMSG = struct.Struct("=Qii")  # cmsg_len, cmsg_level, cmsg_type


def recvmsg(fd, buf, pos, ctl):
    """recvmsg(2) into @buf from @pos (Python's own refuses a family it
    does not know): (bytes, [(level, type, data)], msg_flags)."""
    iov = IoVec(ctypes.addressof(buf) + pos, len(buf) - pos)
    msg = MsgHdr(None, 0, ctypes.pointer(iov), 1,
                 ctypes.cast(ctl, ctypes.c_void_p), len(ctl), 0)
    n = u.chk(u.libc.recvmsg(fd, ctypes.byref(msg), 0))
    cms, off, raw = [], 0, ctl.raw[:msg.controllen]
    while off + CMSG.size <= len(raw):
        clen, level, ctype = CMSG.unpack_from(raw, off)
        if clen < CMSG.size:
            break
        cms.append((level, ctype, raw[off + CMSG.size:off + clen]))
        off += (clen + 7) & ~7
    return n, cms, msg.flags


def read_object(s, name, size):
    """Connect @s to @name and read to the end: (bytes, control messages,
    error or None).  The buffer has room for more than @size, so that a
    longer object shows."""
    a = u.addr(name, 128)
    u.chk(u.libc.connect(s.fileno(), a, len(a)))
    buf = ctypes.create_string_buffer(size + 65536)
    ctl = ctypes.create_string_buffer(256)
    pos, cms, err = 0, [], None
    try:
        while pos < len(buf):
            n, anc, flags = recvmsg(s.fileno(), buf, pos, ctl)
            cms += anc
            if flags & socket.MSG_CTRUNC:
                cms.append(("MSG_CTRUNC", flags, b""))
            if not n:
                break
            pos += n
    except OSError as e:
        err = e
    return buf.raw[:pos], cms, err


def sha(b):
    return hashlib.sha256(b).hexdigest()[:16]


def publish(pfd, name, data):
    n = u.addr(name, 128)
    u.chk(u.libc.sendto(pfd, data, len(data), 0, n, len(n)))


def out_of(c, fid):
    with c as y:
        f = u.face_of(y, fid)
    return f


def rel_path(c, pfd, f1, idx, desc, args, lossy, min_rtt_us):
    """Test 1 under one netem setting: 3 results."""
    name = f"{PREFIX}{idx}"
    obj = random.Random(idx).randbytes((LOSS_KIB if lossy else REL_KIB)
                                       << 10)
    nseg = seg_count(len(obj))
    publish(pfd, name, obj)
    why = netem(args)
    if why:
        for what in ("object", "HICN_INFO", "F1's counters"):
            u.tap(False, f"netem {desc}: {what}: {why}")
        return
    before = out_of(c, f1)
    t0 = time.monotonic()
    with c:
        s = consumer(u.CONS_REL, REL_LIFETIME, retx=10)
        got, cms, err = read_object(s, name, len(obj))
        hi = info(s)
        s.close()
    secs = time.monotonic() - t0
    after = out_of(c, f1)
    netem(None)

    u.tap(err is None and got == obj and sha(got) == sha(obj) and not cms,
          f"netem {desc}: CONS_REL gets {len(obj) >> 10} KiB intact "
          f"({len(got)} B, sha256 {sha(got)} of {sha(obj)}, err {err}, "
          f"cmsg {cms}, {secs:.1f} s)")

    sent, retx = hi.get("interests_sent", 0), hi.get("interests_retx", 0)
    ok = (hi["version"] == 3 and hi["size"] >= INFO.size and
          hi["type"] == u.SOCK_CONS and hi["protocol"] == u.CONS_REL and
          hi["segments"] == nseg and hi["bytes"] == len(obj) and
          hi["objects"] == 1 and hi["lost"] == 0 and
          sent - retx == nseg and
          hi["timeouts"] + hi["early_retx"] >= retx and
          hi["in_flight"] == 0 and
          0 < hi["min_rtt_us"] <= hi["srtt_us"] and
          hi["min_rtt_us"] >= min_rtt_us and
          200000 <= hi["rto_us"] <= REL_LIFETIME * 1000 and
          hi["window_min"] <= hi["window"] <= hi["window_max"] == 256)
    if lossy:
        # Some of ~2 x nseg packets are lost: a timeout, a resend and a
        # halved window must follow.
        ok = ok and retx > 0 and hi["window_cuts"] > 0
        # Most losses are found by RACK, before their RTO (200 ms at
        # least, where the RTT here is a few ms).
        ok = ok and hi["early_retx"] > hi["timeouts"]
    # Only an early resend can prove spurious.
    ok = ok and hi["spurious_retx"] <= hi["early_retx"]
    what = ("retransmissions and window cuts, more of them early than "
            "at the RTO" if lossy else
            "retransmissions: any")
    u.tap(ok, f"netem {desc}: HICN_INFO adds up, {what} "
          f"(segments {hi.get('segments')} of {nseg}, sent {sent}, "
          f"retx {retx}, timeouts {hi.get('timeouts')}, early "
          f"{hi.get('early_retx')} ({hi.get('spurious_retx')} spurious), "
          f"cuts "
          f"{hi.get('window_cuts')}, srtt {hi.get('srtt_us')} us, min rtt "
          f"{hi.get('min_rtt_us')} us (>= {min_rtt_us}), rto "
          f"{hi.get('rto_us')} us, window {hi.get('window')}, ssthresh "
          f"{hi.get('ssthresh')})")

    d = {k: after[k] - before[k] for k in ("interests-out", "data-in",
                                           "unsolicited")}
    # Each datagram in is the answer to one interest out; every segment
    # took one solicited answer, and what came after a resent interest
    # was answered is unsolicited, so never more than the resends.
    u.tap(nseg <= d["interests-out"] <= sent and
          d["data-in"] - d["unsolicited"] >= nseg and
          d["data-in"] <= d["interests-out"] and
          d["unsolicited"] <= retx and after["malformed"] == 0,
          f"netem {desc}: F1 counted it: {d}, sent {sent}, retx {retx}")


def unrel_gaps(c, pfd, idx):
    """Test 2: CONS_UNREL under 5% loss each way: 3 results."""
    name = f"{PREFIX}{idx}"
    obj = random.Random(idx).randbytes(UNREL_KIB << 10)
    nseg = seg_count(len(obj))
    publish(pfd, name, obj)
    why = netem("loss 5%")
    tries, err = [], None
    t0 = time.monotonic()
    while not why and len(tries) < 5:
        with c:
            s = consumer(CONS_UNREL, UNREL_LIFETIME)
            got, cms, err = read_object(s, name, len(obj))
            hi = info(s)
            s.close()
        tries.append(err)
        # Segment 0 tells the object's length: when it never comes, the
        # fetch fails with ETIMEDOUT after one lifetime, nothing read
        # (Documentation/hicn-api.rst); it starts again.
        if not (err and err.errno == errno.ETIMEDOUT and not got):
            break
    secs = time.monotonic() - t0
    netem(None)
    if why or err:
        for what in ("object", "HICN_CMSG_LOST", "HICN_INFO"):
            u.tap(False, f"CONS_UNREL, loss 5%: {what}: {why or tries}")
        return

    lens = [min(SEG, len(obj) - i * SEG) for i in range(nseg)]
    intact = zeroed = bad = 0
    got_bytes = gap_bytes = 0
    for i, n in enumerate(lens):
        part, want = got[i * SEG:i * SEG + n], obj[i * SEG:i * SEG + n]
        if part == want:
            intact += 1
            got_bytes += n
        elif part == bytes(n):
            zeroed += 1
            gap_bytes += n
        else:
            bad += 1
    u.tap(len(got) == len(obj) and bad == 0 and
          got_bytes + gap_bytes == len(obj),
          f"CONS_UNREL, loss 5%: {len(got)} of {len(obj)} B: {intact} "
          f"segments ({got_bytes} B) equal the original at their offsets, "
          f"{zeroed} ({gap_bytes} B) read as zeros, {bad} neither "
          f"({len(tries)} fetch(es), {secs:.1f} s)")

    lost = [struct.unpack("=I", d)[0] for lv, ty, d in cms
            if lv == u.SOL_HICN and ty == HICN_CMSG_LOST and len(d) == 4]
    u.tap(len(cms) == 1 and len(lost) == 1 and lost[0] == zeroed > 0 and
          hi["lost"] == zeroed,
          f"CONS_UNREL, loss 5%: one HICN_CMSG_LOST counts the zeroed "
          f"segments ({cms and [(lv, ty, d.hex()) for lv, ty, d in cms]}, "
          f"{zeroed} zeroed, hi_lost {hi['lost']})")
    u.tap(hi["segments"] + hi["lost"] == nseg and
          hi["interests_retx"] == 0 and hi["timeouts"] >= hi["lost"] and
          hi["objects"] == 1 and hi["protocol"] == CONS_UNREL and
          hi["interests_sent"] == nseg and hi["bytes"] == len(obj),
          f"CONS_UNREL, loss 5%: HICN_INFO: segments {hi['segments']} + "
          f"lost {hi['lost']} = {nseg}, sent {hi['interests_sent']}, retx "
          f"{hi['interests_retx']}, timeouts {hi['timeouts']}, bytes "
          f"{hi['bytes']}")


def two_paths(c, pfd, f1, f2, idx0):
    """Test 3: load-balance and best-route over both links: 5 results."""
    route = {"prefix": u.a6("b001::"), "prefix-len": 16}

    def fetch_counting(idx):
        name = f"{PREFIX}{idx}"
        obj = random.Random(idx).randbytes(REL_KIB << 10)
        publish(pfd, name, obj)
        b1, b2 = out_of(c, f1), out_of(c, f2)
        with c:
            s = consumer(u.CONS_REL, REL_LIFETIME, retx=10)
            got, _, err = read_object(s, name, len(obj))
            hi = info(s)
            s.close()
        a1, b2a = out_of(c, f1), out_of(c, f2)
        n1 = a1["interests-out"] - b1["interests-out"]
        n2 = b2a["interests-out"] - b2["interests-out"]
        return (got == obj and err is None, n1, n2, seg_count(len(obj)),
                f"{hi['interests_retx']} resent, {hi['cache_hits']} from "
                "C's cache")

    with c as y:
        y.do("route-add", dict(route, **{"face-id": f2, "cost": 1}))
        y.do("strategy-set", dict(route, strategy=1))
        r = y.do("route-get", route)
    nh = sorted((n["face-id"], n["cost"]) for n in r.get("nexthop", []))
    u.tap(r["strategy"] == "load-balance" and
          nh == sorted([(f1, 1), (f2, 1)]),
          f"b001::/16: two next hops, load-balance ({r['strategy']}, {nh})")

    ok, n1, n2, nseg, retx = fetch_counting(idx0)
    u.tap(ok, f"load-balance: {REL_KIB} KiB over two links, intact")
    u.tap(n1 >= nseg // 5 and n2 >= nseg // 5 and n1 + n2 >= nseg,
          f"load-balance: both faces carried interests (F1 {n1}, F2 {n2} "
          f"of {nseg} segments, {retx})")

    with c as y:
        y.do("route-del", dict(route, **{"face-id": f2}))
        y.do("route-add", dict(route, **{"face-id": f2, "cost": 2}))
        y.do("strategy-set", dict(route, strategy=0))
    ok, n1, n2, nseg, retx = fetch_counting(idx0 + 1)
    u.tap(ok and n1 >= nseg and n2 == 0,
          f"best-route, F1 cost 1, F2 cost 2: intact ({ok}), only F1 "
          f"carried interests (F1 {n1}, F2 {n2} of {nseg} segments, "
          f"{retx})")

    with c as y:
        y.do("route-del", dict(route, **{"face-id": f1}))
        y.do("route-add", dict(route, **{"face-id": f1, "cost": 3}))
    ok, n1, n2, nseg, retx = fetch_counting(idx0 + 2)
    u.tap(ok and n2 >= nseg and n1 == 0,
          f"best-route, F1 cost 3, F2 cost 2: intact ({ok}), only F2 "
          f"carried interests (F1 {n1}, F2 {n2} of {nseg} segments, "
          f"{retx})")


def nothing_left(c, p, f1, f2):
    """Every interest was answered or given up: once the consumers are
    closed, both PITs empty (an entry outlives its lifetime by a round
    of the collector at most) and F1 and F2 wait for nothing."""
    end = time.monotonic() + 10
    while True:
        with c as y:
            pc = y.do("counters-get", {})["pit-entries"]
            out = [u.face_of(y, f)["out-pending"] for f in (f1, f2)]
        with p as y:
            pp = y.do("counters-get", {})["pit-entries"]
        if (pc, pp, out) == (0, 0, [0, 0]) or time.monotonic() > end:
            break
        time.sleep(0.2)
    u.tap((pc, pp, out) == (0, 0, [0, 0]),
          f"nothing left pending: PIT entries C {pc}, P {pp}; out-pending "
          f"F1 {out[0]}, F2 {out[1]}")


def main():
    print("TAP version 13", flush=True)
    setup()
    c, p = u.Host(NS_C), u.Host(NS_P)

    with p as y:
        for n in (1, 2):
            y.do("listener-add", {"local": u.a4(f"10.79.{n}.2"),
                                  "auto-faces": 1})
        pfd = u.chk(u.libc.socket(u.AF, u.SOCK_PROD, u.PROD_REL))
        u.setint(pfd, u.HICN_PACKET_SIZE, SEG)
        u.setint(pfd, u.HICN_CONTENT_EXPIRY, 0)
        a = u.addr(PREFIX, 64)
        u.chk(u.libc.bind(pfd, a, len(a)))
    with c as y:
        f = []
        for n in (1, 2):
            lid = y.do("listener-add", {"local": u.a4(f"10.79.{n}.1")})["id"]
            f.append(y.do("face-add", {"listener-id": lid,
                                       "remote": u.a4(f"10.79.{n}.2")})["id"])
        y.do("route-add", {"prefix": u.a6("b001::"), "prefix-len": 16,
                           "face-id": f[0], "cost": 1})

    for idx, (desc, args, lossy, min_rtt) in enumerate((
            ("loss 1%", "loss 1%", True, 1),
            ("loss 5%", "loss 5%", True, 1),
            ("delay 20ms", "delay 20ms", False, 40000),
            ("delay 10ms reorder 10% 50%", "delay 10ms reorder 10% 50%",
             False, 1)), 1):
        rel_path(c, pfd, f[0], idx, desc, args, lossy, min_rtt)

    unrel_gaps(c, pfd, 5)
    two_paths(c, pfd, f[0], f[1], 6)
    nothing_left(c, p, f[0], f[1])

    u.libc.close(pfd)
    print(f"1..{u.ntest}", flush=True)
    return 1 if u.failed else 0


if __name__ == "__main__":
    try:
        rc = main()
    finally:
        cleanup()
    sys.exit(rc)
