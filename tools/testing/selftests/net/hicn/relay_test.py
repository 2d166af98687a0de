#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A relay: interests from two consumer hosts go through a third host's
# forwarder to the producer; the relay aggregates them and caches the
# data, so the producer sends each segment once.
#
#   C1 10.78.1.1 ---- 10.78.1.2                  10.78.2.2 ---- 10.78.2.1 P
#                             R (relay: routes b001::/16 to P) producer
#   C2 10.78.3.1 ---- 10.78.3.2                                 b001:a:b:c::/64
#
#   C1, C2: a face to R, route b001::/16 via it.  R: listeners toward C1
#   and C2 make faces for their interests; a face to P.  P: a listener
#   that makes a face for R.
#
# Helpers (namespaces, setns, fetch, YNL) come from udp_test.py.
#
# Usage: relay_test.py  (as root)

import hashlib
import hmac
import os
import random
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import udp_test as u  # noqa: E402

PID = os.getpid()
NS = {n: f"hr{n}-{PID}" for n in ("c1", "c2", "r", "p")}
# 4 MiB objects; 1 MiB on the debug kernel (each packet costs ten times
# more there: the same paths, fewer times).
OBJ = (1 if "debug" in os.uname().release else 4) << 20
NSEG = (OBJ + 1399) // 1400


def setup():
    for ns in NS.values():
        u.sh(f"ip netns add {ns} && ip -n {ns} link set lo up")
    for a, b, net in (("c1", "r", 1), ("p", "r", 2), ("c2", "r", 3)):
        ia, ib = f"v{a}{net}", f"v{b}{net}"
        u.sh(f"ip link add {ia} netns {NS[a]} type veth peer name {ib} "
             f"netns {NS[b]}")
        u.sh(f"ip -n {NS[a]} addr add 10.78.{net}.1/24 dev {ia} && "
             f"ip -n {NS[a]} link set {ia} up && "
             f"ip -n {NS[b]} addr add 10.78.{net}.2/24 dev {ib} && "
             f"ip -n {NS[b]} link set {ib} up")


def cleanup():
    subprocess.run("; ".join(f"ip netns del {ns}" for ns in NS.values()),
                   shell=True, stderr=subprocess.DEVNULL)


def face_to(y, listener_addr, remote):
    lid = y.do("listener-add", {"local": u.a4(listener_addr)})["id"]
    fid = y.do("face-add", {"listener-id": lid, "remote": u.a4(remote)})["id"]
    y.do("route-add", {"prefix": u.a6("b001::"), "prefix-len": 16,
                       "face-id": fid})
    return fid


def fetch_in(ns, name, out, key, ver=0):
    """Fetch @name in @ns into out[@key]; its HICN_INFO counters (sent,
    retx, timeouts) into out[@key + "-info"]."""
    u.enter(ns)
    info = {}
    out[key] = u.fetch(name, ver, info=info)
    out[key + "-info"] = info


def main():
    print("TAP version 13", flush=True)
    setup()
    c1, c2, r, p = (u.Host(NS[n]) for n in ("c1", "c2", "r", "p"))
    rnd = random.Random(5)
    obj_a, obj_b = rnd.randbytes(OBJ), rnd.randbytes(OBJ)
    obj_c = rnd.randbytes(OBJ // 4)

    with p as y:
        y.do("listener-add", {"local": u.a4("10.78.2.1"), "auto-faces": 1})
        pfd = u.publish((("b001:a:b:c::1", obj_a), ("b001:a:b:c::2", obj_b),
                         ("b001:a:b:c::3", b"first"),
                         ("b001:a:b:c::3", b"second"),
                         ("b001:a:b:c::4", obj_c)))
    with r as y:
        for local in ("10.78.1.2", "10.78.3.2"):
            y.do("listener-add", {"local": u.a4(local), "auto-faces": 1})
        face_to(y, "10.78.2.2", "10.78.2.1")
    with c1 as y:
        face_to(y, "10.78.1.1", "10.78.1.2")
    with c2 as y:
        face_to(y, "10.78.3.1", "10.78.3.2")

    def p_face():
        with p as y:
            f = u.udp_faces(y)
            return f[0] if len(f) == 1 else {"data-out": -1,
                                              "interests-in": -1}

    info = {}
    with c1:
        got = u.fetch("b001:a:b:c::1", info=info)
    tap_obj(got, obj_a,
            f"C1 fetches {OBJ >> 20} MiB through the relay, intact")
    sent = p_face()["data-out"]
    # A retransmission of C1 (a slow VM's RTO) that finds R's entry gone
    # is a new interest, and P answers it: one more segment at most each.
    retx = info.get("retx", 0)
    u.tap(NSEG <= sent <= NSEG + retx + NSEG // 20,
          f"P sent about each segment once ({sent} for {NSEG}, "
          f"{retx} retransmitted by C1)")
    with r as y:
        hits0 = y.do("counters-get", {})["cs-hits"]
    # By number (a LATEST interest is never answered from a cache).
    with c2:
        got = u.fetch("b001:a:b:c::1", ver=1)
    tap_obj(got, obj_a, "C2 fetches the same object, intact")
    with r as y:
        hits = y.do("counters-get", {})["cs-hits"] - hits0
    sent2 = p_face()["data-out"]
    # Segment 0 reached R as the answer to C1's LATEST interest, which
    # travels with lifetime 0 (no cache keeps it): P sends it again.
    u.tap(sent2 - sent == 1 and hits >= NSEG - 1,
          f"the relay's cache served C2: P sent only segment 0 again "
          f"({sent2 - sent}), {hits} hits at R")

    # Both at once: the relay aggregates what its cache does not have.
    in0 = p_face()["interests-in"]
    out = {}
    ts = [threading.Thread(target=fetch_in, args=(NS[n], "b001:a:b:c::2",
                                                   out, n))
          for n in ("c1", "c2")]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    tap_obj(out.get("c1"), obj_b, "C1 and C2 at once: C1's copy intact")
    tap_obj(out.get("c2"), obj_b, "C1 and C2 at once: C2's copy intact")
    n_in = p_face()["interests-in"] - in0
    # A consumer's retransmission (a slow VM's RTO) is a new interest R
    # passes on; without aggregation P would see two per segment.
    retx = sum(out.get(n + "-info", {}).get("retx", 0) for n in ("c1", "c2"))
    u.tap(NSEG <= n_in <= NSEG + retx + NSEG // 20,
          f"P saw about one interest per segment for both ({n_in} for "
          f"{NSEG} segments, {retx} retransmitted by C1 and C2)")

    with c1:
        got = u.fetch("b001:a:b:c::3", ver=1)
    u.tap(got == b"first", f"an older version by number, relayed ({got!r})")
    with c2:
        got = u.fetch("b001:a:b:c::3")
    u.tap(got == b"second", f"the newest by LATEST, relayed ({got!r})")

    hop_limit(r)
    stock_names(r, p)
    pit_flood(c1, c2, r, obj_c)
    u.libc.close(pfd)
    print(f"1..{u.ntest}", flush=True)
    return 1 if u.failed else 0


def interest(name, suffix, hops):
    """An interest of the IPv6 + TCP-shaped format with hop limit @hops."""
    b = bytearray(u.pkt6(True, name, suffix, lifetime=2000,
                         src="fd00:78::1"))
    b[7] = hops
    return bytes(b)


def hop_limit(r):
    """A peer behind C1 sends interests with small hop limits.  R routes
    b001:cafe::/32 to a plain UDP socket in P's namespace, which sees what
    R forwards: the hop limit one less; none with 1 or 0 left (counted in
    the peer's face's hop-drops); a name R has cached is answered even
    with hop limit 1."""
    u.enter(NS["p"])
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("10.78.2.1", 9799))
    sink.settimeout(1.5)
    with r as y:
        lid = [li["id"] for li in y.dump("listener-get", {})
               if li["local"] == u.a4("10.78.2.2")][0]
        fid = y.do("face-add", {"listener-id": lid,
                                "remote": u.a4("10.78.2.1"),
                                "remote-port": 9799})["id"]
        y.do("route-add", {"prefix": u.a6("b001:cafe::"), "prefix-len": 32,
                           "face-id": fid})
    u.enter(NS["c1"])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("10.78.1.1", 0))
    s.settimeout(1.5)
    got = []
    for i, hops in enumerate((5, 1, 0)):
        s.sendto(interest(f"b001:cafe::{i + 1:x}", 1 << 21, hops),
                 ("10.78.1.2", 9695))
        try:
            got.append(sink.recv(2048)[7])
        except socket.timeout:
            got.append(None)
    with r as y:
        face = [f for f in u.udp_faces(y)
                if f["remote-port"] == s.getsockname()[1]]
        drops = face[0]["hop-drops"] if face else None
    u.tap(got == [4, None, None] and drops == 2,
          f"a relay forwards an interest with its hop limit less one and "
          f"drops those with none left (forwarded {got}, hop-drops {drops})")
    # Segment 5 of object 1, version 1: in R's cache since C1 fetched it.
    s.sendto(interest("b001:a:b:c::1", (1 << 21) | 5, 1), ("10.78.1.2", 9695))
    try:
        data = s.recv(2048)
    except socket.timeout:
        data = b""
    u.tap(len(data) > 60 and data[53] & 0x40,
          f"hop limit 1 for a name in the relay's cache: answered "
          f"({len(data)} bytes)")
    s.close()
    sink.close()
    with r as y:
        y.do("face-del", {"id": fid})


def captures():
    """The stock packets of the interop captures, by name."""
    caps = {}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "wire/packets.txt")
    for line in open(path):
        if not line.startswith("#"):
            name, _, hexa = line.rstrip("\n").split("\t")
            caps[name] = bytes.fromhex(hexa)
    return caps


def with_lifetime(pkt, ms):
    """A TCP-shaped interest with another lifetime (a field its signature
    does not cover)."""
    return pkt[:58] + ms.to_bytes(2, "big") + pkt[60:]


def data_with_lifetime(pkt, ms):
    """TCP-shaped data with a lifetime of @ms (< 65536: scale 0)."""
    b = bytearray(pkt)
    b[52] &= 0xf0
    b[58:60] = ms.to_bytes(2, "big")
    return bytes(b)


def with_suffix(pkt, suffix):
    return pkt[:44] + suffix.to_bytes(4, "big") + pkt[48:]


def isig_zeroed(pkt):
    """A TCP-shaped interest as its signature covers it (the interop
    README, "What the signature covers"): the IPv6 header up to the
    locator, the TCP-shaped header but the suffix, and the AH's padding
    and signature field zeroed."""
    b = bytearray(pkt)
    b[0:24] = bytes(24)
    b[40:44] = bytes(4)
    b[48:60] = bytes(12)
    b[63] = 0
    siglen = b[61] * 4
    b[104:104 + siglen] = bytes(siglen)
    return bytes(b)


def isig_ok(pkt, key):
    """Does the HMAC-SHA256 signature of interest @pkt verify with @key?"""
    if len(pkt) < 136 or not pkt[53] & 0x10:
        return False
    want = hmac.new(key, isig_zeroed(pkt), hashlib.sha256).digest()
    return pkt[104:136] == want


def signed_interest(man, suffix, key):
    """A signed interest for one suffix, made from the captured signed
    interest manifest @man (its AH: HMAC-SHA256, 32 bytes): no manifest
    flag and no payload, signed again with @key."""
    b = bytearray(man[:136])
    b[4:6] = (136 - 40).to_bytes(2, "big")
    b[44:48] = suffix.to_bytes(4, "big")
    b[53] &= ~0x20
    b[104:136] = hmac.new(key, isig_zeroed(b), hashlib.sha256).digest()
    return bytes(b)


def recv_all(s, wait):
    got = []
    s.settimeout(wait)
    try:
        while True:
            got.append(s.recv(65535))
    except socket.timeout:
        pass
    return got


def stock_names(r, p):
    """Names that are not ours: the interop captures' packets, from
    stock hicn-ping and hiperf (suffixes with V = 0), go through R both
    ways, as they came.  C1 and C2 speak as stock consumers with plain
    UDP sockets; a plain UDP socket at P answers as a stock producer,
    with the captured data, behind R's routes b001::/64 and b002::/16
    (longer than the route of b001::/16 to P's AF_HICN producer)."""
    caps = captures()
    ping_i, ping_d = caps["ping-ipv6tcp-face4#1"], caps["ping-ipv6tcp-face4#2"]
    sig_i = caps["ping-ipv6tcp-signed-face4#1"]
    sig_d = caps["ping-ipv6tcp-signed-face4#2"]
    man_i = caps["hiperf-manifest30-rsa-face4#1"]
    man_d = caps["hiperf-manifest30-rsa-face4#17"]
    u.enter(NS["p"])
    stock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stock.bind(("10.78.2.1", 9797))
    with r as y:
        lid = [li["id"] for li in y.dump("listener-get", {})
               if li["local"] == u.a4("10.78.2.2")][0]
        fid = y.do("face-add", {"listener-id": lid,
                                "remote": u.a4("10.78.2.1"),
                                "remote-port": 9797})["id"]
        for pfx, plen in (("b001::", 64), ("b002::", 16)):
            y.do("route-add", {"prefix": u.a6(pfx), "prefix-len": plen,
                               "face-id": fid})
        y.do("cs-flush", {})
        st0 = y.do("counters-get", {})
    socks = {}
    for ns, local in (("c1", "10.78.1.1"), ("c2", "10.78.3.1")):
        u.enter(NS[ns])
        socks[ns] = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        socks[ns].bind((local, 0))
    s1, s2 = socks["c1"], socks["c2"]
    relay = ("10.78.1.2", 9695)

    # A stock ping: interest out as it came, data back as it came.
    s1.sendto(with_lifetime(ping_i, 2000), relay)
    fwd = recv_all(stock, 1.5)
    u.tap(len(fwd) == 1 and fwd[0][24:48] == ping_i[24:48] and
          not fwd[0][53] & 0x40,
          f"a stock ping interest (suffix 0) leaves R with its name and "
          f"suffix ({[f[24:48].hex() for f in fwd]})")
    # With a finite lifetime, which it keeps: a stock forwarder passes
    # data on as it came, and the compact format's signature covers it.
    ping_d = data_with_lifetime(ping_d, 10000)
    if fwd:
        stock.sendto(ping_d, ("10.78.2.2", 9695))
    back = recv_all(s1, 1.5)
    u.tap(len(back) == 1 and back[0][8:24] == ping_d[8:24] and
          back[0][44:48] == ping_d[44:48] and back[0][53] == ping_d[53] and
          back[0][60:] == ping_d[60:],
          f"its stock data comes back to C1 as it came "
          f"({[b.hex() for b in back]})")

    # C2 asks the same: R's cache answers.
    s2.sendto(with_lifetime(ping_i, 2000), ("10.78.3.2", 9695))
    back = recv_all(s2, 1.5)
    fwd = recv_all(stock, 0.3)
    with r as y:
        hits = y.do("counters-get", {})["cs-hits"] - st0["cs-hits"]
        e, ent = u.err_of(y, "cs-entry-get", {"name": u.a6("b001::1"),
                                               "version": 0, "segment": 0})
    u.tap(len(back) == 1 and back[0][8:24] == ping_d[8:24] and not fwd and
          hits == 1 and e == 0,
          f"C2's identical interest is answered from R's cache, which "
          f"shows it as version 0, segment = suffix (data {len(back)}, "
          f"at P {len(fwd)}, hits {hits}, cs-entry-get {e})")
    # 1.5 s later, the cached copy leaves with the lifetime it came with,
    # as a stock cache sends it (before: what was left of it, ~8500 ms).
    b0 = back[0] if back else b""
    u.tap(len(b0) >= 60 and b0[52] & 0xf == 0 and b0[58:60] == ping_d[58:60],
          f"with the lifetime the data came with, 10000 ms "
          f"(scale {b0[52] & 0xf if b0 else None}, "
          f"{int.from_bytes(b0[58:60], 'big') if b0 else None})")

    # A signed interest manifest for suffixes 0, 1, 2: three interests;
    # the RSA-signed data goes back with its AH untouched.
    with r as y:
        y.do("cs-flush", {})
    s1.sendto(with_lifetime(sig_i, 2000), relay)
    fwd = recv_all(stock, 1.5)
    sfx = sorted(int.from_bytes(f[44:48], "big") for f in fwd)
    u.tap(sfx == [0, 1, 2] and all(f[24:40] == sig_i[24:40] and
                                   len(f) == 60 for f in fwd),
          f"a stock interest manifest of 3 suffixes leaves R as 3 "
          f"interests ({sfx})")
    for i in sfx:
        stock.sendto(with_suffix(sig_d, i), ("10.78.2.2", 9695))
    back = recv_all(s1, 1.5)
    by = {int.from_bytes(b[44:48], "big"): b for b in back}
    d0 = by.get(0, b"")
    u.tap(sorted(by) == [0, 1, 2] and d0[53] == sig_d[53] and
          d0[60:] == sig_d[60:] and len(d0) == len(sig_d),
          f"the 3 signed data come back; AH, signature and payload of "
          f"suffix 0 byte for byte ({sorted(by)}, {len(d0)} B)")

    # A signed interest of one suffix leaves R signed: its AH, signature
    # and payload as they came, and the signature still verifies over
    # what R sent (R wrote the locator, hop limit and lifetime, which it
    # does not cover).  Before, R sent it unsigned (60 bytes).
    one = signed_interest(sig_i, 9, b"ping-secret")
    s1.sendto(one, relay)
    fwd = recv_all(stock, 1.5)
    f0 = fwd[0] if len(fwd) == 1 else b""
    u.tap(isig_ok(one, b"ping-secret") and len(f0) == len(one) and
          f0[44:48] == one[44:48] and f0[60:] == one[60:] and
          isig_ok(f0, b"ping-secret") and f0[7] == one[7] - 1,
          f"a signed interest (HMAC-SHA256) leaves R with its AH and "
          f"signature, which still verifies ({[len(f) for f in fwd]} B, "
          f"hop limit {f0[7] if f0 else None})")

    # A hiperf manifest, signed with RSA, 1468 bytes.
    s1.sendto(with_lifetime(man_i, 2000), relay)
    fwd = recv_all(stock, 1.5)
    if fwd:
        stock.sendto(man_d, ("10.78.2.2", 9695))
    back = recv_all(s1, 1.5)
    u.tap(len(fwd) == 1 and len(back) == 1 and
          back[0][53] == man_d[53] and back[0][60:] == man_d[60:],
          f"a stock signed manifest (flags {man_d[53]:#x}, {len(man_d)} B) "
          f"is relayed as it came ({[len(b) for b in back]})")

    # Data nobody asked for is dropped, and not cached.
    with r as y:
        un0 = u.face_of(y, fid)["unsolicited"]
    stock.sendto(with_suffix(ping_d, 7), ("10.78.2.2", 9695))
    time.sleep(0.3)
    with r as y:
        un = u.face_of(y, fid)["unsolicited"] - un0
        e, _ = u.err_of(y, "cs-entry-get", {"name": u.a6("b001::1"),
                                             "version": 0, "segment": 7})
    u.tap(un == 1 and e == u.ENOENT,
          f"unsolicited stock data is counted and not cached "
          f"(unsolicited +{un}, cs-entry-get {e})")

    # A stock name in a namespace an AF_HICN producer serves: refused
    # there (no segment of ours is suffix 5 with V = 0), counted as name.
    with p as y:
        pf = u.udp_faces(y)
        n0 = pf[0]["drops"]["name"] if len(pf) == 1 else None
    s1.sendto(u.pkt6(True, "b001:a:b:c::1", 5, lifetime=500,
                     src="fd00:78::1"), relay)
    back = recv_all(s1, 1.0)
    with p as y:
        pf = u.udp_faces(y)
        n1 = pf[0]["drops"]["name"] if len(pf) == 1 else None
    u.tap(not back and n0 is not None and n1 == n0 + 1,
          f"a stock name under an AF_HICN producer reaches it and is "
          f"dropped as a name (name drops {n0} -> {n1})")
    for sk in (s1, s2, stock):
        sk.close()
    with r as y:
        y.do("face-del", {"id": fid})


def pit_flood(c1, c2, r, obj_c):
    """A peer behind C1's link floods the relay with interests for names
    nobody answers (P has no route for b001:dead::/32: they wait at R for
    their whole 30 s lifetime).  With R's quota at 256 in-records, the
    flood's face spends its own quota, and C2's consumer, another face
    of the same user (root), still fetches."""
    with r as y:
        y.do("limits-set", {"pit-user-max": 256})
        before = y.do("counters-get", {})
    u.enter(NS["c1"])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("10.78.1.1", 0))
    for i in range(1000):
        s.sendto(u.pkt6(True, f"b001:dead::{i:x}", 1 << 21, lifetime=30000,
                        src="fd00:78::1"), ("10.78.1.2", 9695))
    with r as y:
        for _ in range(200):
            st = y.do("counters-get", {})
            if st["pit-user-drops"] > before["pit-user-drops"]:
                break
            time.sleep(0.05)
        flood = [f for f in u.udp_faces(y) if f["remote-port"] ==
                 s.getsockname()[1]]
    u.tap(st["pit-user-drops"] > before["pit-user-drops"] and
          st["pit-entries"] <= 256 + before["pit-entries"] and
          len(flood) == 1 and flood[0]["drops"]["pit-full"] > 0,
          f"1000 interests from one peer: its face holds 256 at the relay, "
          f"the rest dropped (pit-entries {st['pit-entries']}, "
          f"pit-user-drops +{st['pit-user-drops'] - before['pit-user-drops']}"
          f", pit-full {flood[0]['drops']['pit-full'] if flood else None})")
    with c2:
        got = u.fetch("b001:a:b:c::4")
    tap_obj(got, obj_c, "meanwhile C2, another face of the same user, "
            "fetches through the relay")
    s.close()
    with r as y:
        y.do("limits-set", {"pit-user-max": 16384})


def tap_obj(got, want, what):
    ok = isinstance(got, bytes) and got == want
    u.tap(ok, f"{what} ({len(got) if isinstance(got, bytes) else got})")


if __name__ == "__main__":
    try:
        rc = main()
    finally:
        cleanup()
    sys.exit(rc)
