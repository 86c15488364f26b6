#!/usr/bin/env python3
"""Bounded traffic tools for the fastpath namespace tests and the demo.

Standard library only (no scapy), so it runs on a fresh machine.

  traffic.py send IFACE --dst-mac MAC --dst IP (--udp PORT[-PORT] | --syn PORT |
                  --dns NAME [--rand-label]) [--src IP | --rand-src CIDR]
                  [--count N] [--pps N] [--duration S] [--report FILE]
      Raw Ethernet frames through an AF_PACKET socket, stopped by whichever of
      --count / --duration (default 10 s, at most 600 s) / SIGTERM comes first.
      Writes {"sent":N,"failed":N,"seconds":S,"pps":R} to --report (or stdout).
      --udp: random source port, destination PORT or a random one in the range,
      18 bytes of payload. --syn: a bare SYN, no options (IP length 40).
      --dns: a query (RD, type A) for NAME, or with --rand-label for
      <12 random letters>.NAME. IP checksums are right (the kernel checks
      them); UDP checksums are 0 (allowed for IPv4); TCP checksums are right.

  traffic.py listen --port N [--port N...] --out FILE [--answer]
      Counts UDP datagrams per port; on port 53 also per DNS question name
      (the first 1000 names; the rest under "(more)") and per zone (last two
      labels). Writes {"ports":{"53":N,...},"names":{"www.example.com":N,...},
      "zones":{"example.com":N,...}} to FILE every 0.2 s and on SIGTERM.
      --answer replies to DNS queries (NOERROR, no answers) so a client sees
      the query got through.

  traffic.py dnsq SERVER NAME [--timeout S] [--tries N]
      One DNS query from a UDP socket; exits 0 when a reply with the same id
      comes back, 1 otherwise.
"""
import argparse
import ipaddress
import json
import os
import random
import signal
import socket
import struct
import sys
import time

STOP = False


def _stop(_sig, _frm):
    global STOP
    STOP = True


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4(src, dst, proto, payload, ident):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, 0,
                      64, proto, 0, src, dst)
    c = csum(hdr)
    return hdr[:10] + struct.pack("!H", c) + hdr[12:] + payload


def dns_name(name):
    out = b""
    for label in name.strip(".").split("."):
        if label:
            out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def dns_query(name, qid):
    return struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0) + dns_name(name) + \
        struct.pack("!HH", 1, 1)


def mac_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(":"))


def iface_mac(iface):
    with open("/sys/class/net/%s/address" % iface) as f:
        return mac_bytes(f.read().strip())


def cmd_send(a):
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    eth = mac_bytes(a.dst_mac) + iface_mac(a.iface) + b"\x08\x00"
    dst = socket.inet_aton(a.dst)
    if a.rand_src:
        net = ipaddress.ip_network(a.rand_src, strict=False)
        base, size = int(net.network_address), net.num_addresses
        def src():
            return struct.pack("!I", base + random.randrange(size))
    else:
        fixed = socket.inet_aton(a.src) if a.src else None
        if fixed is None:
            sys.exit("send: --src or --rand-src is needed")
        def src():
            return fixed
    rnd = random.Random()
    letters = b"abcdefghijklmnopqrstuvwxyz0123456789"

    if a.udp:
        lo, _, hi = a.udp.partition("-")
        lo, hi = int(lo), int(hi or lo)
        payload = b"fastpath-udp-flood"
        def frame(i):
            s = src()
            udp = struct.pack("!HHHH", rnd.randrange(1024, 65536),
                              lo if lo == hi else rnd.randint(lo, hi),
                              8 + len(payload), 0) + payload
            return eth + ipv4(s, dst, 17, udp, i & 0xFFFF)
    elif a.syn:
        port = int(a.syn)
        def frame(i):
            s = src()
            sp = rnd.randrange(1024, 65536)
            seq = rnd.getrandbits(32)
            tcp = struct.pack("!HHIIBBHHH", sp, port, seq, 0, 5 << 4, 0x02,
                              64240, 0, 0)
            c = csum(s + dst + struct.pack("!BBH", 0, 6, len(tcp)) + tcp)
            tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
            return eth + ipv4(s, dst, 6, tcp, i & 0xFFFF)
    elif a.dns:
        def frame(i):
            s = src()
            if a.rand_label:
                label = bytes(rnd.choice(letters) for _ in range(12)).decode()
                name = label + "." + a.dns
            else:
                name = a.dns
            q = dns_query(name, rnd.getrandbits(16))
            udp = struct.pack("!HHHH", rnd.randrange(1024, 65536), 53,
                              8 + len(q), 0) + q
            return eth + ipv4(s, dst, 17, udp, i & 0xFFFF)
    else:
        sys.exit("send: one of --udp, --syn, --dns is needed")

    duration = min(a.duration, 600.0)
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((a.iface, 0))
    sent = failed = 0
    t0 = time.perf_counter()
    end = t0 + duration
    i = 0
    while not STOP and (a.count <= 0 or sent < a.count):
        now = time.perf_counter()
        if now >= end:
            break
        if a.pps > 0:
            due = int((now - t0) * a.pps) + 1
            if sent + failed >= due:
                time.sleep(min(0.001, (sent + failed + 1) / a.pps - (now - t0)))
                continue
            burst = due - sent - failed
        else:
            burst = 64
        if a.count > 0:
            burst = min(burst, a.count - sent)
        for _ in range(burst):
            i += 1
            try:
                sock.send(frame(i))
                sent += 1
            except OSError:
                failed += 1
    secs = time.perf_counter() - t0
    rep = {"sent": sent, "failed": failed, "seconds": round(secs, 3),
           "pps": round(sent / secs, 1) if secs > 0 else 0}
    text = json.dumps(rep)
    if a.report:
        with open(a.report + ".tmp", "w") as f:
            f.write(text + "\n")
        os.replace(a.report + ".tmp", a.report)
    else:
        print(text)


def parse_qname(msg):
    """First question name of a DNS message, lowercase, or None."""
    if len(msg) < 12:
        return None
    pos, labels = 12, []
    while pos < len(msg):
        n = msg[pos]
        if n == 0:
            return ".".join(labels)
        if n > 63 or pos + 1 + n > len(msg):
            return None
        labels.append(msg[pos + 1:pos + 1 + n].decode("ascii", "replace").lower())
        pos += 1 + n
    return None


def cmd_listen(a):
    import select
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    socks = {}
    for p in a.port:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.bind(("0.0.0.0", p))
        s.setblocking(False)
        socks[s] = p
    ports = {str(p): 0 for p in a.port}
    names, zones = {}, {}
    last = 0.0

    def dump():
        with open(a.out + ".tmp", "w") as f:
            json.dump({"ports": ports, "names": names, "zones": zones}, f)
        os.replace(a.out + ".tmp", a.out)

    dump()
    while not STOP:
        r, _, _ = select.select(list(socks), [], [], 0.1)
        for s in r:
            while True:
                try:
                    msg, peer = s.recvfrom(2048)
                except BlockingIOError:
                    break
                p = socks[s]
                ports[str(p)] += 1
                if p == 53:
                    q = parse_qname(msg)
                    key = "(bad)" if q is None else q
                    if key not in names and len(names) >= 1000:
                        key = "(more)"
                    names[key] = names.get(key, 0) + 1
                    zone = "(bad)" if q is None else ".".join(q.split(".")[-2:])
                    zones[zone] = zones.get(zone, 0) + 1
                    if a.answer and q is not None:
                        hdr = msg[:2] + struct.pack("!HHHHH", 0x8180, 1, 0, 0, 0)
                        s.sendto(hdr + msg[12:], peer)
        now = time.monotonic()
        if now - last >= 0.2:
            dump()
            last = now
    dump()


def cmd_dnsq(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(a.timeout)
    for _ in range(a.tries):
        qid = random.getrandbits(16)
        s.sendto(dns_query(a.name, qid), (a.server, 53))
        try:
            while True:
                msg, _ = s.recvfrom(2048)
                if len(msg) >= 12 and struct.unpack("!H", msg[:2])[0] == qid and msg[2] & 0x80:
                    return 0
        except socket.timeout:
            continue
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("iface")
    s.add_argument("--dst-mac", required=True)
    s.add_argument("--dst", required=True)
    s.add_argument("--src")
    s.add_argument("--rand-src")
    s.add_argument("--udp")
    s.add_argument("--syn")
    s.add_argument("--dns")
    s.add_argument("--rand-label", action="store_true")
    s.add_argument("--count", type=int, default=0)
    s.add_argument("--pps", type=float, default=0)
    s.add_argument("--duration", type=float, default=10.0)
    s.add_argument("--report")
    l = sub.add_parser("listen")
    l.add_argument("--port", type=int, action="append", required=True)
    l.add_argument("--out", required=True)
    l.add_argument("--answer", action="store_true")
    q = sub.add_parser("dnsq")
    q.add_argument("server")
    q.add_argument("name")
    q.add_argument("--timeout", type=float, default=1.0)
    q.add_argument("--tries", type=int, default=3)
    a = ap.parse_args()
    if a.cmd == "send":
        cmd_send(a)
    elif a.cmd == "listen":
        cmd_listen(a)
    else:
        sys.exit(cmd_dnsq(a))


if __name__ == "__main__":
    main()
