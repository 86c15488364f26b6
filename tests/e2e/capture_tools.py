#!/usr/bin/env python3
"""Helpers of tests/e2e/capture.sh, run inside the test's namespaces.

  frames OUT.pcap SRC_MAC DST_MAC N [QUEUES]  N distinct UDP frames to 10.0.1.2:9000
                                   (payload "seq K"; sports vary for the
                                   queue hash), written to OUT.pcap
  oversize OUT.pcap SRC_MAC DST_MAC   3 frames, the third 1614 bytes (MTU 1500 + 114)
  rawlink OUT.pcap                 one IPv4 packet in a pcap of link type RAW (101)
  span IN.pcap                     "N SECONDS": frames, and the first to last timestamp
  dnsframes OUT.pcap SRC_MAC DST_MAC NAME,...   a DNS query (type A) for each name
  send IFACE IN.pcap INTERVAL      sends the frames of IN.pcap out of IFACE in order
  tcp-server PORT OUT              accepts one connection, reads it to the end,
                                   writes "BYTES SHA256" to OUT
  tcp-client HOST PORT BYTES SECS  sends BYTES (a fixed pseudo-random stream)
                                   paced over about SECS seconds; prints "BYTES SHA256"
  udp-listen PORT OUT SECS         counts datagrams to PORT, rewriting OUT with the
                                   count after each one, for at most SECS seconds
  udp-send HOST PORT SECS STOP     a datagram every 5 ms until STOP exists or SECS pass
"""
import hashlib
import os
import socket
import sys
import time


def frames(out, src_mac, dst_mac, n):
    from scapy.all import Ether, IP, UDP, Raw, wrpcap
    pkts = [Ether(src=src_mac, dst=dst_mac) / IP(src="10.0.1.1", dst="10.0.1.2") /
            UDP(sport=40000 + k, dport=9000) / Raw(b"seq %06d " % k + bytes(range(k % 200)))
            for k in range(n)]
    wrpcap(out, pkts)


def oversize(out, src_mac, dst_mac):
    from scapy.all import Ether, IP, UDP, Raw, wrpcap
    base = Ether(src=src_mac, dst=dst_mac) / IP(src="10.0.1.1", dst="10.0.1.2") / UDP(dport=9000)
    wrpcap(out, [base / Raw(b"a"), base / Raw(b"b"), base / Raw(b"x" * 1572)])


def rawlink(out):
    from scapy.all import IP, UDP, wrpcap
    wrpcap(out, [IP(src="10.0.1.1", dst="10.0.1.2") / UDP(dport=9000)], linktype=101)


def dnsframes(out, src_mac, dst_mac, names):
    from scapy.all import Ether, IP, UDP, DNS, DNSQR, wrpcap
    wrpcap(out, [Ether(src=src_mac, dst=dst_mac) / IP(src="10.0.1.1", dst="10.0.1.2") /
                 UDP(sport=33000 + k, dport=53) / DNS(id=k, rd=1, qd=DNSQR(qname=n))
                 for k, n in enumerate(names.split(","))])


def span(pcap):
    from scapy.all import rdpcap
    p = rdpcap(pcap)
    print(len(p), float(p[-1].time - p[0].time) if p else 0.0)


def send(iface, pcap, interval):
    from scapy.all import rdpcap, conf
    s = conf.L2socket(iface=iface)
    for p in rdpcap(pcap):
        s.send(p)
        time.sleep(interval)
    s.close()


def stream(nbytes):
    block = hashlib.sha256(b"fastpath").digest() * 2048  # 64 KiB
    sent = 0
    while sent < nbytes:
        chunk = block[: min(len(block), nbytes - sent)]
        sent += len(chunk)
        yield chunk


def tcp_server(port, out):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(1)
    ls.settimeout(60)
    c, _ = ls.accept()
    c.settimeout(60)
    h, n = hashlib.sha256(), 0
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        h.update(b)
        n += len(b)
    with open(out + ".tmp", "w") as f:
        f.write("%d %s\n" % (n, h.hexdigest()))
    os.rename(out + ".tmp", out)


def tcp_client(host, port, nbytes, secs):
    s = socket.create_connection((host, port), timeout=30)
    h = hashlib.sha256()
    chunks = list(stream(nbytes))
    pause = secs / max(1, len(chunks))
    for c in chunks:
        s.sendall(c)
        h.update(c)
        time.sleep(pause)
    s.shutdown(socket.SHUT_WR)
    s.recv(1)
    s.close()
    print(nbytes, h.hexdigest())


def udp_listen(port, out, secs):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    s.settimeout(0.2)
    n, end = 0, time.time() + secs
    with open(out, "w") as f:
        f.write("0\n")
    while time.time() < end:
        try:
            s.recv(2048)
        except socket.timeout:
            continue
        n += 1
        with open(out + ".tmp", "w") as f:
            f.write("%d\n" % n)
        os.rename(out + ".tmp", out)


def udp_send(host, port, secs, stop):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    end = time.time() + secs
    k = 0
    while time.time() < end and not os.path.exists(stop):
        s.sendto(b"tick %d" % k, (host, port))
        k += 1
        time.sleep(0.005)


if __name__ == "__main__":
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == "frames":
        frames(a[0], a[1], a[2], int(a[3]))
    elif cmd == "oversize":
        oversize(a[0], a[1], a[2])
    elif cmd == "rawlink":
        rawlink(a[0])
    elif cmd == "dnsframes":
        dnsframes(a[0], a[1], a[2], a[3])
    elif cmd == "span":
        span(a[0])
    elif cmd == "send":
        send(a[0], a[1], float(a[2]))
    elif cmd == "tcp-server":
        tcp_server(int(a[0]), a[1])
    elif cmd == "tcp-client":
        tcp_client(a[0], int(a[1]), int(a[2]), float(a[3]))
    elif cmd == "udp-listen":
        udp_listen(int(a[0]), a[1], float(a[2]))
    elif cmd == "udp-send":
        udp_send(a[0], int(a[1]), float(a[2]), a[3])
    else:
        sys.exit("unknown command " + cmd)
