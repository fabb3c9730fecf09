#!/usr/bin/env python3
"""64-byte frame rates of the two generators the bench can use, port to
port over one veth between two network namespaces (no DUT):

- trafgen (netsniff-ng) as `bench rfc2544-tester` runs it unpaced (blocking
  send path through the qdisc, `-q -b 1000000000pps`) and on its
  packet-mmap TX ring (no `-q`, no `-b`);
- iperf3 UDP with 18-byte datagrams (a 64-byte frame), unlimited (`-b 0`).

Every rate is frames counted at the far port by an nftables netdev ingress
counter that matches only that generator's frames, over the sender's wall
time. Prints one line per generator and the load average (the figures
move with it on a shared host). Needs root, trafgen, iperf3 and nft.

    python3 benches/generator/bench.py [--frames 300000] [--seconds 3]
"""
import argparse
import json
import os
import subprocess
import time

A, B = "zngen-a", "zngen-b"


def sh(*args, ns=None, check=True, **kw):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, check=check, **kw)


def counter(name):
    out = json.loads(sh("nft", "-j", "list", "counter", "netdev", "zngen", name, ns=B).stdout)
    return next(o["counter"]["packets"] for o in out["nftables"] if "counter" in o)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=300000)
    ap.add_argument("--seconds", type=int, default=3)
    o = ap.parse_args()
    for ns in (A, B):
        sh("ip", "netns", "del", ns, check=False)
        sh("ip", "netns", "add", ns)
    try:
        sh("ip", "link", "add", "eth0", "netns", A, "type", "veth", "peer", "name", "eth0", "netns", B)
        for ns, addr in ((A, "10.250.0.1/24"), (B, "10.250.0.2/24")):
            sh("ip", "addr", "add", addr, "dev", "eth0", ns=ns)
            sh("ip", "link", "set", "eth0", "up", ns=ns)
            sh("ip", "link", "set", "lo", "up", ns=ns)
        mac = lambda ns: json.loads(sh("ip", "-j", "link", "show", "eth0", ns=ns).stdout)[0]["address"]
        rules = ("table netdev zngen {\n counter trafgen { }\n counter iperf3 { }\n"
                 " chain in {\n  type filter hook ingress device \"eth0\" priority -500; policy accept;\n"
                 "  ip saddr 198.18.0.0/16 udp dport 7 counter name trafgen drop\n"
                 "  ip saddr 10.250.0.1 udp dport 5299 counter name iperf3\n }\n}\n")
        sh("nft", "-f", "-", ns=B, input=rules)
        cfg = "/tmp/zngen.cfg"
        with open(cfg, "w") as f:
            f.write(f"{{ eth(da={mac(B)}, sa={mac(A)}), ipv4(saddr=198.18.1.2, daddr=198.19.1.2, ttl=64), "
                    "udp(sport=49152, dport=7), fill(0x00, 18) }\n")
        for label, extra in (("trafgen, blocking qdisc path (as the tester sends)", ["-q", "-b", "1000000000pps"]),
                             ("trafgen, packet-mmap TX ring", [])):
            c0 = counter("trafgen")
            t0 = time.monotonic()
            sh("trafgen", "-o", "eth0", "-i", cfg, "-n", str(o.frames), "-P", "1", "-C", *extra, ns=A)
            dt = time.monotonic() - t0
            time.sleep(0.2)
            print(f"{label}: {(counter('trafgen') - c0) / dt:,.0f} frames/s at 64 B")
        srv = subprocess.Popen(["ip", "netns", "exec", B, "iperf3", "-s", "-1", "-p", "5299"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        c0 = counter("iperf3")
        r = json.loads(sh("iperf3", "-c", "10.250.0.2", "-p", "5299", "-u", "-l", "18", "-b", "0", "-t",
                          str(o.seconds), "-J", ns=A).stdout)
        time.sleep(0.2)
        got = counter("iperf3") - c0
        secs = r["end"]["sum"]["seconds"]
        print(f"iperf3 UDP -l 18 -b 0: {got / secs:,.0f} frames/s at 64 B at the far port "
              f"(its sender says {r['end']['sum']['packets'] / secs:,.0f} datagrams/s)")
        srv.wait(timeout=10)
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    finally:
        for ns in (A, B):
            sh("ip", "netns", "del", ns, check=False)


if __name__ == "__main__":
    main()
