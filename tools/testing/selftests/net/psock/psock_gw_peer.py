#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The client and server ends of psock_gw.sh (plain TCP: the programs a
# psock-gw pair carries never know about PSOCK).
#
#   psock_gw_peer.py server DIR PORT...      one thread per connection; the
#                                            first 4 bytes name the mode
#   psock_gw_peer.py sink ADDR PORT TOTAL DIR
#   psock_gw_peer.py half ADDR PORT SIZE
#   psock_gw_peer.py sfin ADDR PORT SIZE
#   psock_gw_peer.py echo ADDR PORT FLOWS SIZE
#   psock_gw_peer.py dplx ADDR PORT MIB DIR
#   psock_gw_peer.py rsts ADDR PORT
#   psock_gw_peer.py rstc ADDR PORT DIR
#   psock_gw_peer.py hdr ADDR PORT TYPE DST DPORT [MAGIC]   (PSOCK client)
#   psock_gw_peer.py hold ADDR PORT FLOWS DIR
#   psock_gw_peer.py nohdr ADDR PORT                         (PSOCK client)
#   psock_gw_peer.py deny psock|epoll_wait CMD...
#   psock_gw_peer.py fds N CMD...
#
# Server modes: SINK reads nothing until DIR/go exists, then reads to the
# end and writes "BYTES SHA256" to DIR/sink; HALF reads to the end, then
# answers "BYTES SHA256" and closes; SFIN sends SIZE (4 ASCII digits of
# KiB after the mode) bytes and shuts its side, then reads to the end and
# writes "BYTES" to DIR/sfin; ECHO echoes to the end; DPLX sends MIB MiB
# (4 ASCII digits after the mode) while it reads to the end, then writes
# "BYTES SHA256" to DIR/dplx; RSTS sends 64 KiB and resets (SO_LINGER
# {1, 0}); RSTC answers one byte, then writes to DIR/rstc how its read
# ended ("reset", "eof" or "data").  Any connection counts in
# DIR/accepts.PORT.
#
# deny runs CMD with a seccomp filter (x86_64) that fails a system call:
# psock, socket(..., IPPROTO_PSOCK) with EPROTONOSUPPORT, as on a host
# without psock.ko; epoll_wait, epoll_wait() and epoll_pwait() with EBADF.
# fds runs CMD with exactly N descriptors open: 0, 1, 2 and N - 3 of
# /dev/null (any other one it inherited is closed on exec).
import ctypes
import hashlib
import os
import select
import socket
import struct
import sys
import threading
import time

IPPROTO_PSOCK = 259


def recv_all(c):
    h, n = hashlib.sha256(), 0
    while True:
        d = c.recv(65536)
        if not d:
            return n, h.hexdigest()
        h.update(d)
        n += len(d)


def pattern(size, seed=7):
    return (hashlib.sha256(str(seed).encode()).digest() * (size // 32 + 1))[:size]


def serve(c, d, port):
    with open(os.path.join(d, "accepts.%d" % port), "a") as f:
        f.write("1\n")
    mode = b""
    while len(mode) < 8:
        r = c.recv(8 - len(mode))
        if not r:
            c.close()
            return
        mode += r
    kind = mode[:4]
    if kind == b"SINK":
        while not os.path.exists(os.path.join(d, "go")):
            time.sleep(0.1)
        n, s = recv_all(c)
        with open(os.path.join(d, "sink"), "w") as f:
            f.write("%d %s\n" % (n, s))
    elif kind == b"HALF":
        n, s = recv_all(c)
        c.sendall(("%d %s\n" % (n, s)).encode())
    elif kind == b"SFIN":
        c.sendall(pattern(int(mode[4:]) * 1024))
        c.shutdown(socket.SHUT_WR)
        n, s = recv_all(c)
        with open(os.path.join(d, "sfin"), "w") as f:
            f.write("%d\n" % n)
    elif kind == b"ECHO":
        while True:
            r = c.recv(65536)
            if not r:
                break
            c.sendall(r)
    elif kind == b"DPLX":
        t = threading.Thread(target=c.sendall,
                             args=(pattern(int(mode[4:]) << 20, 11),))
        t.start()
        n, s = recv_all(c)
        t.join()
        with open(os.path.join(d, "dplx"), "w") as f:
            f.write("%d %s\n" % (n, s))
    elif kind == b"RSTS":
        c.sendall(pattern(65536))
        time.sleep(0.2)
        reset(c)
        return
    elif kind == b"RSTC":
        c.sendall(b"R")
        try:
            how = "data" if c.recv(1) else "eof"
        except ConnectionResetError:
            how = "reset"
        with open(os.path.join(d, "rstc"), "w") as f:
            f.write(how + "\n")
    c.close()


def reset(c):
    """Close with SO_LINGER {1, 0}: a TCP reset."""
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()


def server(d, ports):
    socks = []
    for p in ports:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", p))
        s.listen(128)
        socks.append(s)
    while True:
        rd, _, _ = select.select(socks, [], [])
        for s in rd:
            c, _ = s.accept()
            threading.Thread(target=serve, args=(c, d, s.getsockname()[1]),
                             daemon=True).start()


def sink(addr, port, total, d):
    """Send up to total bytes; print how many were accepted when nothing
    more went for 3 s, then wait for DIR/go and send the rest."""
    s = socket.create_connection((addr, port))
    s.sendall(b"SINK0000")
    s.setblocking(False)
    data = pattern(total)
    sent, stalled = 0, False
    h = hashlib.sha256(data)
    while sent < total:
        _, w, _ = select.select([], [s], [], 3)
        if not w:
            if not stalled:
                print("stalled %d" % sent, flush=True)
                with open(os.path.join(d, "stalled"), "w") as f:
                    f.write("%d\n" % sent)
                stalled = True
                while not os.path.exists(os.path.join(d, "go")):
                    time.sleep(0.1)
            continue
        try:
            sent += s.send(data[sent:sent + 262144])
        except BlockingIOError:
            pass
    if not stalled:
        print("never stalled", flush=True)
    s.setblocking(True)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)
    print("sent %d %s" % (sent, h.hexdigest()), flush=True)


def half(addr, port, size):
    """Client FIN first: the answer must still come back."""
    s = socket.create_connection((addr, port))
    data = b"HALF0000" + pattern(size)
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    ans = s.recv(4096).decode().split()
    want = [str(size), hashlib.sha256(pattern(size)).hexdigest()]
    ok = ans == want and s.recv(1) == b""
    print("half: answer %s, want %s" % (ans, want))
    return 0 if ok else 1


def sfin(addr, port, size):
    """Server FIN first: read it all, then still send."""
    s = socket.create_connection((addr, port))
    s.sendall(b"SFIN%04d" % (size // 1024))
    n, h = recv_all(s)
    ok = n == size and h == hashlib.sha256(pattern(size)).hexdigest()
    time.sleep(0.5)
    s.sendall(pattern(size // 2, 9))	# after the server's FIN
    s.shutdown(socket.SHUT_WR)
    s.settimeout(10)
    ok = ok and s.recv(1) == b""
    print("sfin: received %d bytes (%s), sent %d after the server's FIN" %
          (n, "intact" if ok else "wrong", size // 2))
    return 0 if ok else 1


def echo_one(addr, port, size, i, res):
    try:
        s = socket.create_connection((addr, port), timeout=30)
        data = pattern(size, i)
        t = threading.Thread(target=s.sendall, args=(b"ECHO0000" + data,))
        t.start()
        got = b""
        while len(got) < len(data):
            r = s.recv(65536)
            if not r:
                break
            got += r
        t.join()
        s.shutdown(socket.SHUT_WR)
        res[i] = got == data and s.recv(1) == b""
        s.close()
    except OSError as e:
        print("flow %d: %s" % (i, e))
        res[i] = False


def echo(addr, port, flows, size):
    res = [False] * flows
    ts = [threading.Thread(target=echo_one, args=(addr, port, size, i, res))
          for i in range(flows)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print("echo: %d of %d flows intact" % (sum(res), flows))
    return 0 if all(res) else 1


def wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.05)


def dplx(addr, port, mib, d):
    """MIB MiB each way at once.  Both directions stop at a quarter until
    DIR/cut exists (the script writes it once it cut a path, after it saw
    DIR/gate), then go on to the end."""
    size = mib << 20
    q = size // 4
    s = socket.create_connection((addr, port))
    out = memoryview(pattern(size, 13))
    sent_sha = hashlib.sha256(out).hexdigest()
    want_sha = hashlib.sha256(pattern(size, 11)).hexdigest()
    half = threading.Event()

    def send():
        s.sendall(b"DPLX%04d" % mib)
        s.sendall(out[:q])
        half.set()
        wait_for(os.path.join(d, "cut"))
        s.sendall(out[q:])
        s.shutdown(socket.SHUT_WR)

    t = threading.Thread(target=send)
    t.start()
    h, n, gated = hashlib.sha256(), 0, False
    while True:
        if not gated and n >= q:
            half.wait()
            open(os.path.join(d, "gate"), "w").close()
            wait_for(os.path.join(d, "cut"))
            gated = True
        r = s.recv(min(65536, q - n) if not gated and n < q else 65536)
        if not r:
            break
        h.update(r)
        n += len(r)
    t.join()
    ok = n == size and h.hexdigest() == want_sha
    print("dplx: received %d bytes (%s); sent %d %s" %
          (n, "intact" if ok else "wrong", size, sent_sha))
    return 0 if ok else 1


def rsts(addr, port):
    """The server resets: the client must see a reset, not an end of
    stream."""
    s = socket.create_connection((addr, port))
    s.sendall(b"RSTS0000")
    s.settimeout(30)
    n = 0
    try:
        while True:
            r = s.recv(65536)
            if not r:
                print("rsts: end of stream after %d bytes, no reset" % n)
                return 1
            n += len(r)
    except ConnectionResetError:
        print("rsts: reset after %d bytes" % n)
        return 0
    except OSError as e:
        print("rsts: %s after %d bytes" % (e, n))
        return 1


def rstc(addr, port, d):
    """The client resets once the server answered: the server's read must
    end in a reset (DIR/rstc)."""
    s = socket.create_connection((addr, port))
    s.sendall(b"RSTC0000")
    s.settimeout(30)
    if s.recv(1) != b"R":
        print("rstc: no answer")
        return 1
    reset(s)
    print("rstc: reset sent")
    return 0


def hdr(addr, port, typ, dst, dport, magic=0x50534757):
    """A PSOCK client speaking the psock-gw header to an egress itself."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_PSOCK)
    s.settimeout(20)
    s.connect((addr, port))
    a = b"\0" * 10 + b"\xff\xff" + socket.inet_aton(dst)
    s.sendall(struct.pack("!IBBH16s", magic, 1, typ, dport, a) + b"HALF0000")
    s.shutdown(socket.SHUT_WR)
    try:
        got = s.recv(4096)
    except OSError as e:
        got = str(e).encode()
    print("reply: %r" % got)
    return 0


def recv_n(s, n):
    got = b""
    while len(got) < n:
        r = s.recv(n - len(got))
        if not r:
            break
        got += r
    return got


def hold(addr, port, flows, d):
    """FLOWS echo flows at once.  Each sends 1 KiB and reads it back, then
    waits for DIR/release, sends 1 KiB more and its FIN and reads to the
    end.  DIR/held counts the flows echoed before the release: those the
    gateway took at once; the others wait in its listen backlog."""
    res = [False] * flows
    held = [0]
    lock = threading.Lock()
    release = os.path.join(d, "release")

    def one(i):
        try:
            s = socket.create_connection((addr, port), timeout=60)
            a, b = pattern(1024, 100 + i), pattern(1024, 200 + i)
            s.sendall(b"ECHO0000" + a)
            got = recv_n(s, len(a))
            with lock:
                if not os.path.exists(release):
                    held[0] += 1
                    with open(os.path.join(d, "held.new"), "w") as f:
                        f.write("%d\n" % held[0])
                    os.rename(os.path.join(d, "held.new"),
                              os.path.join(d, "held"))
            wait_for(release)
            s.sendall(b)
            s.shutdown(socket.SHUT_WR)
            got += recv_n(s, len(b) + 1)
            res[i] = got == a + b
            s.close()
        except OSError as e:
            print("flow %d: %s" % (i, e))

    ts = [threading.Thread(target=one, args=(i,)) for i in range(flows)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print("hold: %d of %d flows intact, %d echoed before the release" %
          (sum(res), flows, held[0]))
    return 0 if all(res) else 1


def nohdr(addr, port):
    """A PSOCK client that sends 4 bytes of a header, then nothing: the
    egress must close it after its header timeout."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_PSOCK)
    s.settimeout(30)
    s.connect((addr, port))
    s.sendall(struct.pack("!I", 0x50534757))
    t = time.time()
    try:
        how = "data" if s.recv(1) else "end of stream"
    except ConnectionResetError:
        how = "reset"
    except OSError as e:
        how = str(e)
    print("nohdr: %s after %.1f s" % (how, time.time() - t))
    return 0 if how in ("reset", "end of stream") else 1


# seccomp: struct sock_filter (code, jt, jf, k), BPF_LD|BPF_W|BPF_ABS,
# BPF_JMP|BPF_JEQ|BPF_K, BPF_RET|BPF_K over struct seccomp_data (nr at
# 0, arch at 4, args[] from 16).
LD, JEQ, RET = 0x20, 0x15, 0x06
ARCH_X86_64 = 0xc000003e
RET_ALLOW, RET_ERRNO = 0x7fff0000, 0x00050000
DENY = {
    # socket(2) (41) whose protocol (args[2], low half) is IPPROTO_PSOCK
    "psock": [(LD, 0, 0, 4), (JEQ, 0, 5, ARCH_X86_64), (LD, 0, 0, 0),
              (JEQ, 0, 3, 41), (LD, 0, 0, 32), (JEQ, 0, 1, IPPROTO_PSOCK),
              (RET, 0, 0, RET_ERRNO | 93), (RET, 0, 0, RET_ALLOW)],
    # epoll_wait (232), epoll_pwait (281), epoll_pwait2 (441)
    "epoll_wait": [(LD, 0, 0, 4), (JEQ, 0, 5, ARCH_X86_64), (LD, 0, 0, 0),
                   (JEQ, 2, 0, 232), (JEQ, 1, 0, 281), (JEQ, 0, 1, 441),
                   (RET, 0, 0, RET_ERRNO | 9), (RET, 0, 0, RET_ALLOW)],
}


def deny(what, cmd):
    class Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    if os.uname().machine != "x86_64":
        print("deny: x86_64 only")
        return 4
    prog = DENY[what]
    code = ctypes.create_string_buffer(
        b"".join(struct.pack("HBBI", *i) for i in prog))
    fp = Fprog(len(prog), ctypes.addressof(code))
    libc = ctypes.CDLL(None, use_errno=True)
    # PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP SECCOMP_MODE_FILTER
    if libc.prctl(38, 1, 0, 0, 0) or libc.prctl(22, 2, ctypes.byref(fp), 0, 0):
        print("deny: prctl: %s" % os.strerror(ctypes.get_errno()))
        return 4
    os.execvp(cmd[0], cmd)


def fds(n, cmd):
    for f in os.listdir("/proc/self/fd"):
        try:
            if int(f) > 2:
                os.set_inheritable(int(f), False)
        except OSError:
            pass		# listdir()'s own, closed
    for _ in range(n - 3):
        os.set_inheritable(os.open("/dev/null", os.O_RDONLY), True)
    os.execvp(cmd[0], cmd)


def main(a):
    if a[0] == "server":
        server(a[1], [int(p) for p in a[2:]])
    elif a[0] == "sink":
        sink(a[1], int(a[2]), int(a[3]), a[4])
    elif a[0] == "half":
        return half(a[1], int(a[2]), int(a[3]))
    elif a[0] == "sfin":
        return sfin(a[1], int(a[2]), int(a[3]))
    elif a[0] == "echo":
        return echo(a[1], int(a[2]), int(a[3]), int(a[4]))
    elif a[0] == "dplx":
        return dplx(a[1], int(a[2]), int(a[3]), a[4])
    elif a[0] == "rsts":
        return rsts(a[1], int(a[2]))
    elif a[0] == "rstc":
        return rstc(a[1], int(a[2]), a[3])
    elif a[0] == "hdr":
        return hdr(a[1], int(a[2]), int(a[3]), a[4], int(a[5]),
                   int(a[6], 0) if len(a) > 6 else 0x50534757)
    elif a[0] == "hold":
        return hold(a[1], int(a[2]), int(a[3]), a[4])
    elif a[0] == "nohdr":
        return nohdr(a[1], int(a[2]))
    elif a[0] == "deny":
        return deny(a[1], a[2:])
    elif a[0] == "fds":
        return fds(int(a[1]), a[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
