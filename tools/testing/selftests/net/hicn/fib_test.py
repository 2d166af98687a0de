#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The FIB: longest-prefix match, next hops with costs, the best-route and
# load-balance strategies, producers' claims as routes, and the netlink
# objects that configure them (face-get, route-get/add/del, strategy-set)
# driven by the kernel's YNL library from our spec.
#
#   one network namespace (unshare -n):
#
#     consumers --interest--> FIB --+--> face A: producer of b001:a::/32
#                                   +--> face B: producer of b002:b::/32
#     routes added here: b003::/16 via A cost 10, via B cost 5;
#                        b003:0:1::/48 via A; b001::/16 via B
#
# Nothing is published, so every interest is held by the producer it
# reached: the faces' counters (interests-out, out-pending) say where each
# one went.  Waits are for counters reaching a value, with deadlines far
# above what they take.
#
# Usage: fib_test.py  (as root; re-runs itself in a new network namespace)

import ctypes
import os
import socket
import struct
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../../../.."))
KSRC = os.environ.get("KSRC", os.path.join(TOP, ".cache/ksrc"))
SPEC = os.path.join(TOP, "Documentation/netlink/specs/hicn.yaml")

if os.environ.get("FIB_TEST_NETNS") != "1":
    os.environ["FIB_TEST_NETNS"] = "1"
    os.execvp("unshare", ["unshare", "-n", sys.executable] + sys.argv)

sys.path.insert(0, os.path.join(KSRC, "tools/net/ynl"))
from lib import YnlFamily, NlError  # noqa: E402

libc = ctypes.CDLL(None, use_errno=True)
AF = int(open("/sys/module/hicn/parameters/family").read())
SOCK_CONS, SOCK_PROD, CONS_REL, PROD_REL = 7, 8, 1, 3
SOL_HICN, HICN_INTEREST_LIFETIME, HICN_RETX_LIMIT = 300, 3, 4
BEST_ROUTE, LOAD_BALANCE = 0, 1
KIND_CONSUMER, KIND_PRODUCER = 0, 1
EPERM, ENOENT, EEXIST, ENODEV, EINVAL, ENOSPC, ERANGE = \
    1, 2, 17, 19, 22, 28, 34

ntest = 0
failed = 0


def tap(ok, what):
    global ntest, failed
    ntest += 1
    if not ok:
        failed += 1
    print(f"{'ok' if ok else 'not ok'} {ntest} {what}", flush=True)


def chk(r):
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r


def addr(name, plen, ver=0):
    return struct.pack("=HBBI16s8s", AF, plen, 0, ver,
                       socket.inet_pton(socket.AF_INET6, name), bytes(8))


def pfx(name):
    return socket.inet_pton(socket.AF_INET6, name)


def producer(prefix, plen):
    fd = chk(libc.socket(AF, SOCK_PROD, PROD_REL))
    a = addr(prefix, plen)
    chk(libc.bind(fd, a, len(a)))
    return fd


def setint(fd, opt, val):
    v = ctypes.c_int(val)
    chk(libc.setsockopt(fd, SOL_HICN, opt, ctypes.byref(v), 4))


def consumer(name, lifetime_ms):
    """A consumer whose one interest for @name waits @lifetime_ms."""
    fd = chk(libc.socket(AF, SOCK_CONS, CONS_REL))
    setint(fd, HICN_INTEREST_LIFETIME, lifetime_ms)
    setint(fd, HICN_RETX_LIMIT, 0)
    a = addr(name, 128)
    chk(libc.connect(fd, a, len(a)))
    buf = ctypes.create_string_buffer(16)
    libc.recv(fd, buf, 16, socket.MSG_DONTWAIT)
    return fd


ynl = YnlFamily(SPEC, "")


def err_of(op, attrs):
    """(errno, extack message) of a request that fails, (0, '') if not."""
    try:
        ynl.do(op, attrs)
    except NlError as e:
        return e.error, (e.nl_msg.extack or {}).get("msg", "")
    return 0, ""


def face(fid):
    return ynl.do("face-get", {"id": fid})


def route(prefix, plen):
    return ynl.do("route-get", {"prefix": pfx(prefix), "prefix-len": plen})


def nexthops(prefix, plen):
    return [(n["face-id"], n["cost"]) for n in route(prefix, plen)["nexthop"]]


def add(prefix, plen, fid, cost=0):
    ynl.do("route-add", {"prefix": pfx(prefix), "prefix-len": plen,
                         "face-id": fid, "cost": cost})


def wait_for(fn, want, timeout=30.0):
    """Poll fn() until it returns @want; returns the last value."""
    end = time.monotonic() + timeout
    while True:
        got = fn()
        if got == want or time.monotonic() > end:
            return got
        time.sleep(0.05)


def sent_to(fid):
    return face(fid)["interests-out"]


def where_does_it_go(name, fa, fb=None):
    """Send one interest for @name; return 'A', 'B' or a description."""
    if fb is None:
        a0 = sent_to(fa)
        fd = consumer(name, 400)
        n = wait_for(lambda: sent_to(fa) - a0, 1)
        libc.close(fd)
        return "A" if n == 1 else f"A +{n}"
    a0, b0 = sent_to(fa), sent_to(fb)
    fd = consumer(name, 400)
    end = time.monotonic() + 30
    while time.monotonic() < end:
        da, db = sent_to(fa) - a0, sent_to(fb) - b0
        if da or db:
            break
        time.sleep(0.05)
    libc.close(fd)
    if (da, db) == (1, 0):
        return "A"
    if (da, db) == (0, 1):
        return "B"
    return f"A +{da}, B +{db}"


def main():
    print("TAP version 13", flush=True)
    a = producer("b001:a::", 32)
    b = producer("b002:b::", 32)

    # Claims are routes of cost 0 to the producers' faces.
    ra, rb = nexthops("b001:a::", 32), nexthops("b002:b::", 32)
    tap(len(ra) == 1 and ra[0][1] == 0 and len(rb) == 1 and rb[0][1] == 0,
        f"claims are routes of cost 0 to the producers' faces ({ra}, {rb})")
    fa, fb = ra[0][0], rb[0][0]
    fs = face(fa)
    tap(fs["kind"] == "producer" and fs["up"] == 1 and fs["id"] == fa,
        f"face-get: producer A's face, up ({fs})")

    cons = consumer("b001:a::77", 60000)
    faces = ynl.dump("face-get", {})
    kinds = sorted((f["id"], f["kind"]) for f in faces)
    cid = [f["id"] for f in faces if f["kind"] == "consumer"]
    tap(len(faces) == 3 and len(cid) == 1,
        f"face-get dump: two producers and a consumer ({kinds})")
    tap(wait_for(lambda: face(fa)["out-pending"], 1) == 1,
        "an interest in A's namespace waits at A (out-pending 1)")
    libc.close(cons)
    tap(wait_for(lambda: face(fa)["out-pending"], 0) == 0,
        "the consumer closed: A has nothing pending")

    # Best route: the lowest cost.
    add("b003::", 16, fa, 10)
    add("b003::", 16, fb, 5)
    nh = nexthops("b003::", 16)
    tap(nh == [(fa, 10), (fb, 5)],
        f"route-get: next hops in the order added, with costs ({nh})")
    r = route("b003::", 16)
    tap(r["strategy"] == "best-route", "a new route uses best route")
    got = where_does_it_go("b003::1", fa, fb)
    tap(got == "B", f"best route: the lowest cost (B, 5) serves b003::1 ({got})")

    # Longest prefix match, in both directions.
    add("b003:0:1::", 48, fa, 20)
    got = where_does_it_go("b003:0:1::1", fa, fb)
    tap(got == "A", f"a longer prefix wins over a lower cost ({got})")
    got = where_does_it_go("b003:0:2::1", fa, fb)
    tap(got == "B", f"outside the longer prefix, the /16 decides ({got})")
    add("b001::", 16, fb, 0)
    got = where_does_it_go("b001:a::5", fa, fb)
    tap(got == "A", f"a producer's claim inside a shorter route wins ({got})")
    got = where_does_it_go("b001:b::5", fa, fb)
    tap(got == "B", f"the shorter route serves the rest ({got})")
    got = where_does_it_go("b009::1", fa, fb)
    tap(got == "A +0, B +0", f"no route: neither face ({got})")

    # Load balance: the fewest pending interests.
    ynl.do("strategy-set", {"prefix": pfx("b003::"), "prefix-len": 16,
                            "strategy": LOAD_BALANCE})
    tap(route("b003::", 16)["strategy"] == "load-balance",
        "strategy-set: load balance")
    pa, pb = face(fa)["out-pending"], face(fb)["out-pending"]
    held = []
    for i in range(8):
        held.append(consumer(f"b003:0:2::{i + 1:x}", 60000))
        want = i + 1
        wait_for(lambda: face(fa)["out-pending"] + face(fb)["out-pending"]
                 - pa - pb, want)
    da, db = face(fa)["out-pending"] - pa, face(fb)["out-pending"] - pb
    tap((da, db) == (4, 4),
        f"load balance: 8 held interests split 4/4 ({da}/{db})")
    ynl.do("strategy-set", {"prefix": pfx("b003::"), "prefix-len": 16,
                            "strategy": BEST_ROUTE})

    # Removing a next hop with interests pending on it is safe.
    ynl.do("route-del", {"prefix": pfx("b003::"), "prefix-len": 16,
                         "face-id": fb})
    tap(nexthops("b003::", 16) == [(fa, 10)], "route-del: B's next hop gone")
    got = where_does_it_go("b003:0:2::99", fa, fb)
    tap(got == "A", f"after route-del, A serves the /16 ({got})")
    for fd in held:
        libc.close(fd)
    tap(wait_for(lambda: (face(fa)["out-pending"], face(fb)["out-pending"]),
                 (0, 0)) == (0, 0),
        "the held interests' consumers closed: nothing pending anywhere")

    # Failover: a producer that closes takes its next hops with it.
    add("b003::", 16, fb, 5)
    libc.close(b)
    ok = wait_for(lambda: nexthops("b003::", 16), [(fa, 10)]) == [(fa, 10)]
    tap(ok, "a closed producer's next hops leave every route")
    got = where_does_it_go("b003::2", fa)
    tap(got == "A", f"best route fails over to A ({got})")
    e, _ = err_of("face-get", {"id": fb})
    tap(e == ENOENT, f"face-get of the closed producer's face: ENOENT ({e})")
    b = producer("b002:b::", 32)
    fb = nexthops("b002:b::", 32)[0][0]

    errors(fa, fb, cid)
    unprivileged(fa)
    many_routes(fa)

    libc.close(a)
    libc.close(b)
    print(f"1..{ntest}", flush=True)
    return 1 if failed else 0


def errors(fa, fb, cid):
    cases = [
        ("route-add, no face with the id: ENODEV",
         "route-add", {"prefix": pfx("b004::"), "prefix-len": 16,
                       "face-id": 999999}, ENODEV, "no face with this id"),
        ("route-add without a face: EINVAL",
         "route-add", {"prefix": pfx("b004::"), "prefix-len": 16},
         EINVAL, "missing face id"),
        ("route-add without a prefix: EINVAL",
         "route-add", {"prefix-len": 16, "face-id": fa},
         EINVAL, "missing prefix"),
        ("route-add, prefix length 129: EINVAL",
         "route-add", {"prefix": pfx("b004::"), "prefix-len": 129,
                       "face-id": fa}, EINVAL, "prefix length over 128"),
        ("route-add twice: EEXIST",
         "route-add", {"prefix": pfx("b003::"), "prefix-len": 16,
                       "face-id": fa},
         EEXIST, "the face is a next hop of this prefix already"),
        ("route-del of a face that is not a next hop: ENOENT",
         "route-del", {"prefix": pfx("b003::"), "prefix-len": 16,
                       "face-id": fb},
         ENOENT, "the face is not a next hop of this prefix"),
        ("route-del of a prefix without a route: ENOENT",
         "route-del", {"prefix": pfx("b005::"), "prefix-len": 16,
                       "face-id": fa},
         ENOENT, "the face is not a next hop of this prefix"),
        ("route-get of a prefix without a route: ENOENT",
         "route-get", {"prefix": pfx("b005::"), "prefix-len": 16},
         ENOENT, "no route with this prefix"),
        ("strategy-set of a prefix without a route: ENOENT",
         "strategy-set", {"prefix": pfx("b005::"), "prefix-len": 16,
                          "strategy": 1}, ENOENT, "no route with this prefix"),
        ("strategy-set without a strategy: EINVAL",
         "strategy-set", {"prefix": pfx("b003::"), "prefix-len": 16},
         EINVAL, "missing strategy"),
        ("strategy-set, an unknown strategy: ERANGE (the policy)",
         "strategy-set", {"prefix": pfx("b003::"), "prefix-len": 16,
                          "strategy": 7}, ERANGE, "integer out of range"),
        ("face-get of a missing face: ENOENT",
         "face-get", {"id": 999999}, ENOENT, "no face with this id"),
    ]
    # A consumer's face: made here, so that one exists.
    cons = consumer("b001:a::78", 60000)
    cf = [f["id"] for f in ynl.dump("face-get", {}) if f["kind"] == "consumer"]
    cases.append(("route-add via a consumer's face: EINVAL",
                  "route-add", {"prefix": pfx("b004::"), "prefix-len": 16,
                                "face-id": cf[0]},
                  EINVAL, "a consumer's face serves no interests"))
    for what, op, attrs, want, msg in cases:
        e, m = err_of(op, attrs)
        tap(e == want and (not msg or m == msg),
            f"{what} (errno {e}, \"{m}\")")
    libc.close(cons)

    # The ninth next hop of a prefix: ENOSPC.  Producers give faces.
    prods = [producer(f"b00c:{i + 1:x}::", 32) for i in range(9)]
    ids = [nexthops(f"b00c:{i + 1:x}::", 32)[0][0] for i in range(9)]
    for fid in ids[:8]:
        add("b00d::", 16, fid, 1)
    e, m = err_of("route-add", {"prefix": pfx("b00d::"), "prefix-len": 16,
                                "face-id": ids[8]})
    tap(e == ENOSPC, f"a ninth next hop: ENOSPC (errno {e}, \"{m}\")")
    for fd in prods:
        libc.close(fd)
    e, _ = err_of("route-get", {"prefix": pfx("b00d::"), "prefix-len": 16})
    tap(e == ENOENT, "the route goes with the last of its producers' faces")


def unprivileged(fa):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.setgid(65534)
        os.setuid(65534)
        out = []
        try:
            n = YnlFamily(SPEC, "")
            out.append(str(len(n.dump("route-get", {})) > 0))
            try:
                n.do("route-add", {"prefix": pfx("b006::"), "prefix-len": 16,
                                   "face-id": fa})
                out.append("0")
            except NlError as e:
                out.append(str(e.error))
            try:
                n.do("strategy-set", {"prefix": pfx("b003::"),
                                      "prefix-len": 16, "strategy": 1})
                out.append("0")
            except NlError as e:
                out.append(str(e.error))
        except Exception as e:  # noqa: BLE001
            out.append(repr(e))
        os.write(w, " ".join(out).encode())
        os._exit(0)
    os.close(w)
    got = os.read(r, 4096).decode()
    os.close(r)
    os.waitpid(pid, 0)
    tap(got == f"True {EPERM} {EPERM}",
        f"nobody can dump routes but not add or change them ({got})")


def many_routes(fa):
    base = ynl.do("counters-get", {})["fib-entries"]

    def batch(op, lo, hi):
        ops = [(op, {"prefix": pfx(f"b100:{i >> 16:x}:{i & 0xffff:x}::"),
                     "prefix-len": 48, "face-id": fa}, [])
               for i in range(lo, hi)]
        # A batch's acks must fit the socket's receive buffer.
        for k in range(0, len(ops), 40):
            ynl.do_multi(ops[k:k + 40])

    ok = True
    for _ in range(3):
        batch("route-add", 0, 1000)
        ok &= ynl.do("counters-get", {})["fib-entries"] == base + 1000
        batch("route-del", 0, 1000)
        ok &= ynl.do("counters-get", {})["fib-entries"] == base
    tap(ok, "1000 routes added and removed, three times: the count follows")

    batch("route-add", 0, 5000)
    dump = ynl.dump("route-get", {})
    names = [(r["prefix"], r["prefix-len"]) for r in dump
             if r["prefix-len"] == 48 and r["prefix"][:2] == b"\xb1\x00"]
    tap(len(names) == 5000 and len(set(names)) == 5000,
        f"a dump of 5000 routes (several messages) has each once "
        f"({len(names)}, {len(set(names))} distinct)")
    batch("route-del", 0, 5000)
    tap(ynl.do("counters-get", {})["fib-entries"] == base,
        "and all of them deleted")


if __name__ == "__main__":
    sys.exit(main())
