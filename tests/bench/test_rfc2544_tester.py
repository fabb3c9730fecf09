"""`zynq-net bench rfc2544-tester` through a namespace lab router whose
egress is shaped by tbf, both directions at once over many flows.

Ground truth we set with tc (tc-tbf(8)): tbf counts each frame as the skb
it sees, the Ethernet frame without its FCS (`F - 4` bytes: a 64-byte
frame is 60, a 1518-byte frame 1514), so a tbf of R bit/s forwards
R / (8 (F - 4)) frames/s; what it passes beyond that rate is at most its
bucket plus its queue (`burst + limit` bytes), which is also the longest
burst it takes from an idle start without loss, plus what it sends at R
while the burst arrives.

- throughput: the NDR lands within 1 % of the shaped frame rate in at
  most 8 search trials, at 64 B (tbf 2 Mbit/s: 4,166.7 frames/s) and at
  1518 B (20 Mbit/s: 1,651.3 frames/s), with both directions sending in
  every trial and the router seeing 2 x 16 distinct source addresses;
- back-to-back: at 64 B against tbf 100 kbit/s with burst 6,000 B and
  limit 6,000 B (200 frames), the longest lossless burst is 200 frames
  plus tbf's drain during the burst, within the search's resolution (1
  frame);
- the generator's port-to-port ceiling is measured and reported, and a
  search whose top is that ceiling says the tester was the limit.

CI time: about 2-3 minutes on 2 loaded cores (the trials are 1-2 s, waits 0.1-1.2 s).
"""
import csv
import json
import pathlib
import signal
import subprocess
import time

import pytest

from benchlab import Lab, need_root_and_iperf3

LAB, SUBNET = "znb2544", 77
FLOWS = 16


@pytest.fixture(scope="module")
def lab(bench_bin):
    need_root_and_iperf3()
    if subprocess.run(["sh", "-c", "command -v trafgen"], capture_output=True).returncode != 0:
        pytest.skip("trafgen is not installed (netsniff-ng, scripts/install-deps)")
    with Lab(bench_bin, LAB, SUBNET) as lab:
        yield lab


def router(*args, check=True):
    return subprocess.run(["ip", "netns", "exec", f"{LAB}-router", *args], capture_output=True, text=True,
                          check=check)


def shape(rate, burst, limit):
    for dev in ("eth0", "eth1"):
        router("tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", rate, "burst", str(burst),
               "limit", str(limit))


def watch_sources():
    """An nft set in the router that records every source address it forwards."""
    router("nft", "delete", "table", "ip", "zn_seen", check=False)
    rules = ("table ip zn_seen {\n set seen { type ipv4_addr; size 65535; flags dynamic; }\n"
             " chain seen_fw {\n  type filter hook forward priority 0; policy accept;\n"
             "  update @seen { ip saddr }\n }\n}\n")
    subprocess.run(["ip", "netns", "exec", f"{LAB}-router", "nft", "-f", "-"], input=rules, text=True,
                   check=True)


def sources_seen():
    out = json.loads(router("nft", "-j", "list", "set", "ip", "zn_seen", "seen").stdout)
    s = next(o["set"] for o in out["nftables"] if "set" in o)
    return {e if isinstance(e, str) else e["elem"]["val"] for e in s.get("elem", [])}


def run(lab, out, *args, settle="0.1", learning="0.1", drain="0.2"):
    r = lab.bench("rfc2544-tester", "--lab", LAB, "-o", str(out), "--flows", str(FLOWS), "--settle", settle,
                  "--learning-wait", learning, "--drain", drain, *args, check=False, timeout=900)
    assert r.returncode in (0, 1), f"{r.stdout}\n{r.stderr}"
    return json.loads((out / "tester.json").read_text()), r


def trace(f):
    return "\n".join(f"  {s['n']} {s['offered_fps']:.1f} pass={s['pass']} short={s['sender_short']} "
                     + " ".join(f"{d['way']}:{d['sent']}/{d['received']}" for d in s["dirs"])
                     for s in f["ndr"]["steps"])


# The line rate (the search's top) is 10 or 100 Mbit/s Ethernet's:
# 14,881 frames/s at 64 B and 8,127 at 1518 B, within what trafgen offers
# on a loaded 2-core host, so the first trial overloads the router.
@pytest.mark.parametrize("frame,rate,bits,burst,line", [(64, "2mbit", 2e6, 1000, "10M"),
                                                        (1518, "20mbit", 20e6, 4000, "100M")])
def test_ndr_within_one_percent_of_the_shaped_rate_both_ways(lab, tmp_path, frame, rate, bits, burst, line):
    # tbf: bucket and queue of `burst` bytes each (16 frames at 64 B, 2.6 at
    # 1518 B): what passes beyond the rate in a 2 s trial is under 0.5 %.
    shape(rate, burst, burst)
    watch_sources()
    res, _ = run(lab, tmp_path, "--tests", "throughput", "--frame-sizes", str(frame), "--line-rate", line,
                 "--trial-seconds", "2", "--final-seconds", "2", "--max-trials", "8", "--resolution", "1",
                 "--pdr", "0.5", "--calibrate-frames", "0")
    f = res["frames"][0]
    truth = bits / (8 * (frame - 4))
    ndr = f["ndr"]
    assert ndr["confirmed"], trace(f)
    assert abs(ndr["fps"] / truth - 1) <= 0.01, f"NDR {ndr['fps']:.1f} vs {truth:.1f}\n{trace(f)}"
    assert ndr["search_trials"] <= 8, trace(f)
    assert not ndr["tester_limited"], trace(f)
    # Full duplex: every trial sent both ways at once and counted each at its far port.
    for s in ndr["steps"]:
        assert [d["way"] for d in s["dirs"]] == ["ab", "ba"], s
    # The PDR tolerates loss, so it is never below the NDR's bracket.
    pdr = f["pdr"][0]
    assert pdr["loss_tolerance_percent"] == 0.5 and pdr["fps"] >= ndr["fps"] * 0.99, pdr
    # Many flows: the router forwarded FLOWS sources from each side.
    seen = sources_seen()
    assert len({a for a in seen if a.startswith("198.18.")}) == FLOWS, sorted(seen)
    assert len({a for a in seen if a.startswith("198.19.")}) == FLOWS, sorted(seen)
    table = (tmp_path / "tester.md").read_text()
    assert f"| {frame} | A->B | {ndr['fps']:.0f} |" in table and f"| {frame} | B->A |" in table, table
    rows = list(csv.DictReader((tmp_path / "tester.csv").open()))
    assert [(r["frame size (B)"], r["direction"]) for r in rows] == [(str(frame), "A->B"), (str(frame), "B->A")]
    assert float(rows[0]["payload Mbit/s"]) == pytest.approx(ndr["fps"] * 8 * (frame - 46) / 1e6, abs=1e-3)
    assert "<table>" in (tmp_path / "tester.html").read_text()


def test_back_to_back_matches_the_configured_queue(lab, tmp_path):
    # 100 kbit/s = 208.3 frames/s of 64 B; bucket 6,000 B + queue 6,000 B
    # = 200 frames of 60 B. Refilling both takes 12,000 B / 12,500 B/s =
    # 0.96 s: the wait before each burst is 1.2 s. A full queue takes 0.48 s
    # to leave: the counters are read 1 s after the burst (with 0.2 s, the
    # frames still queued counted as lost and the burst came out at 148).
    shape("100kbit", 6000, 6000)
    res, _ = run(lab, tmp_path, "--tests", "back-to-back", "--frame-sizes", "64", "--b2b-max-frames", "800",
                 "--b2b-repeats", "2", "--b2b-resolution", "0.1", "--calibrate-frames", "0",
                 settle="1.2", learning="0.3", drain="1.0")
    b = res["frames"][0]["back_to_back"]
    assert len(b["bursts"]) == 2 and not b["unbounded"], b
    configured = 12000 / 60
    # During a burst of N frames sent at G frames/s tbf also sends N * R / G
    # (R = 208.3); G here is the slowest burst rate measured (start-up
    # included, so an overestimate of that drain).
    drain = 208.3 * max(b["bursts"]) / b["burst_fps"]
    for n in b["bursts"]:
        assert configured - 1 <= n <= configured + drain + 1, f"{n} vs {configured} + {drain:.1f}: {b}"


def test_calibration_reports_the_ceiling_and_a_search_capped_by_it_says_so(lab, tmp_path):
    router("tc", "qdisc", "del", "dev", "eth0", "root", check=False)
    router("tc", "qdisc", "del", "dev", "eth1", "root", check=False)
    res, r = run(lab, tmp_path, "--tests", "throughput", "--frame-sizes", "64", "--line-rate", "10G",
                 "--trial-seconds", "1", "--final-seconds", "1", "--max-trials", "3", "--pdr", "0.5",
                 "--calibrate-frames", "50000")
    c = res["ceilings"][0]
    assert c["frame_size"] == 64 and [w for w, _ in c["fps"]] == ["ab", "ba"], c
    assert all(fps > 1000 for _, fps in c["fps"]), c
    assert "calibration 64 B port to port" in r.stderr, r.stderr
    f = res["frames"][0]
    # 10 Gbit/s at 64 B is 14.9 M frames/s: the ceiling is the search's top.
    assert f["top_fps"] == pytest.approx(min(fps for _, fps in c["fps"])), f
    row = next(l for l in (tmp_path / "tester.md").read_text().splitlines() if l.startswith("| 64 | A->B"))
    ndr = f["ndr"]
    limited = ndr["tester_limited"] or ndr["fps"] >= 0.95 * f["ceiling_fps"]
    assert row.endswith("| tester |") == limited, (row, ndr["fps"], f["ceiling_fps"])


def test_frame_loss_curve_follows_the_shaped_rate(lab, tmp_path):
    # tbf 2 Mbit/s = 4,166.7 frames/s of 64 B; a 5 Mbit/s line carries
    # 7,440.5. At p % of the line the loss is 1 - 4,166.7 / (74.405 p) (0 at
    # 56 % and below), give or take the bucket and queue (32 frames, under
    # 0.5 % of a 1 s trial): steps 100, 90, ..., 60 lose, 50 and 40 do not.
    shape("2mbit", 1000, 1000)
    res, _ = run(lab, tmp_path, "--tests", "frame-loss", "--frame-sizes", "64", "--line-rate", "5M",
                 "--loss-step", "10", "--loss-trial-seconds", "1", "--calibrate-frames", "0")
    steps = res["frames"][0]["frame_loss"]
    assert [s["percent"] for s in steps] == [100, 90, 80, 70, 60, 50, 40], steps
    for s in steps:
        want = max(0.0, 1 - 4166.7 / s["offered_fps"]) * 100
        for d in s["dirs"]:
            got = 100 * (d["sent"] - d["received"]) / d["sent"]
            assert abs(got - want) <= 2.0, f"{s['percent']} %: {got:.2f} % lost, expected {want:.2f} %: {s}"
    assert all(d["received"] == d["sent"] for s in steps[-2:] for d in s["dirs"]), steps[-2:]


def lat(res, way):
    return next(d for d in res["frames"][0]["latency"]["summary"] if d["way"] == way)


def lat_trace(res):
    l = res["frames"][0]["latency"]
    return "\n".join(f"  trial {t['n']}: " + " ".join(
        f"{d['way']} {d['probes_received']}/{d['probes_sent']} {d['latency']}" for d in t["dirs"])
        + " load " + " ".join(f"{d['way']}:{d['sent']}/{d['received']}" for d in t["load"])
        for t in l["trials"])


# Latency ground truth (RFC 2544 §26.2). tbf's queue is a bfifo of `limit`
# bytes (net/sched/sch_tbf.c tbf_change: fifo_create_dflt(..., limit);
# sch_fifo.c bfifo_enqueue admits a frame when backlog + len <= limit)
# emptied at the rate R. Offered more than R, the queue stays full: a frame
# admitted has between limit - 2 len and limit - len bytes ahead of it and
# leaves when its own len has been paid for, so it waits between
# (limit - len) / R and limit / R. With limit 25,000 B, R = 2 Mbit/s and
# 60-byte frames (64 B less the FCS): 99.76 to 100.00 ms. On top come the
# veth hops and the router's forwarding (tens of µs); below it nothing.
QUEUE_LIMIT, QUEUE_RATE = 25000, 2e6
TRUTH_US = QUEUE_LIMIT * 8 / QUEUE_RATE * 1e6


def test_latency_through_a_full_queue_is_its_drain_time(lab, tmp_path):
    # 8,000 frames/s of 64 B offered against 4,166.7 passed: the router's
    # queue fills in about 0.11 s, before the first probe (at 0.75 s).
    shape("2mbit", 1000, QUEUE_LIMIT)
    res, _ = run(lab, tmp_path, "--tests", "latency", "--frame-sizes", "64", "--latency-fps", "8000",
                 "--latency-seconds", "3", "--latency-repeats", "2", "--latency-probe-rate", "100",
                 "--calibrate-frames", "0", drain="0.5")
    l = res["frames"][0]["latency"]
    assert l["rate_from"] == "fixed" and l["offered_fps"] == 8000 and l["probe_fps"] == 100, l
    assert [t["n"] for t in l["trials"]] == [1, 2], lat_trace(res)
    for way in ("ab", "ba"):
        d = lat(res, way)
        s = d["latency"]
        # 150 probes a trial leave the port; the full queue drops about
        # half of them (it passes 4,166.7 of 8,000 frames/s).
        assert d["probes_sent"] == 300, lat_trace(res)
        assert 60 <= d["probes_received"] <= 240, lat_trace(res)
        assert sum(t["dirs"][0 if way == "ab" else 1]["probes_received"] for t in l["trials"]) \
            == d["probes_received"], lat_trace(res)
        # Accuracy stated: the median within 1 % of the drain time
        # (measured on a loaded 2-core host: 99.79 ms, probes 99.71-99.92),
        # none slower than it by more than 5 % (host scheduling). The mean
        # within 10 % and the minimum only above 0: when the host stalls
        # the load's sender the queue drains and a few probes pass it
        # (seen once under a heavy build: min 15 us, mean 91.8 ms, median
        # 99.76 ms).
        assert abs(s["median_us"] / TRUTH_US - 1) <= 0.01, f"{way}: {s} vs {TRUTH_US:.0f} us\n{lat_trace(res)}"
        assert abs(s["mean_us"] / TRUTH_US - 1) <= 0.10, f"{way}: {s}\n{lat_trace(res)}"
        assert 0 < s["min_us"], f"{way}: {s}\n{lat_trace(res)}"
        assert s["max_us"] <= 1.05 * TRUTH_US, f"{way}: {s}\n{lat_trace(res)}"
        assert s["min_us"] <= s["median_us"] <= s["p99_us"] <= s["max_us"], s
    rows = list(csv.DictReader((tmp_path / "tester-latency.csv").open()))
    assert [(r["frame size (B)"], r["direction"]) for r in rows] == [("64", "A->B"), ("64", "B->A")], rows
    assert float(rows[0]["median us"]) == pytest.approx(lat(res, "ab")["latency"]["median_us"], abs=0.05)
    md = (tmp_path / "tester.md").read_text()
    assert "## Latency" in md and "| 64 | A->B | 8000 | fixed | 2 |" in md, md
    assert any("--latency-fps" in d for d in res["deviations"]), res["deviations"]


def test_latency_at_the_ndr_is_far_below_a_full_queue(lab, tmp_path):
    # At the NDR the router's queue is idle but for the pacing's small
    # bursts; this tbf's queue holds 1,000 B (16 frames, 4 ms) at most.
    # Measured: median 9 us, max 113 us; a send stamp taken before the
    # tester's own pacing queue would add tens of ms.
    shape("2mbit", 1000, 1000)
    res, _ = run(lab, tmp_path, "--tests", "throughput,latency", "--frame-sizes", "64", "--line-rate", "10M",
                 "--trial-seconds", "2", "--final-seconds", "2", "--max-trials", "8", "--resolution", "1",
                 "--pdr", "", "--latency-seconds", "3", "--latency-repeats", "2", "--calibrate-frames", "0")
    f = res["frames"][0]
    assert f["ndr"]["confirmed"], trace(f)
    l = f["latency"]
    assert l["rate_from"] == "ndr" and l["offered_fps"] == pytest.approx(f["ndr"]["fps"]), l
    for way in ("ab", "ba"):
        d = lat(res, way)
        s = d["latency"]
        assert d["probes_sent"] == 300 and d["probes_received"] >= 290, lat_trace(res)
        assert 0 < s["min_us"] and s["median_us"] <= 0.05 * TRUTH_US and s["max_us"] <= 0.5 * TRUTH_US, \
            f"{way}: {s}\n{lat_trace(res)}"


def children_of(pid):
    """Process ids whose parent is `pid` (/proc/PID/task/*/children, proc(5))."""
    out = set()
    for t in pathlib.Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            out |= {int(x) for x in t.read_text().split()}
        except OSError:
            pass
    return out


def state(pid):
    """The process state letter of /proc/PID/stat (proc(5)), None when gone."""
    try:
        return pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def comm(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


def ns_state(ns):
    nft = subprocess.run(["ip", "netns", "exec", ns, "nft", "list", "tables"], capture_output=True, text=True)
    tc = subprocess.run(["ip", "netns", "exec", ns, "tc", "-j", "qdisc", "show", "dev", "eth0"],
                        capture_output=True, text=True, check=True)
    return nft.stdout, [q["kind"] for q in json.loads(tc.stdout) if q.get("root")]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_run_leaves_the_namespaces_as_they_were(lab, tmp_path, sig):
    # A long latency trial: pacing tbf and nft counters on both ports,
    # trafgen load and netsniff-ng captures running when the signal comes.
    shape("2mbit", 1000, 1000)
    before = {ns: ns_state(ns) for ns in (f"{LAB}-client", f"{LAB}-server")}
    assert all("zn_rfc2544" not in nft and "tbf" not in q for nft, q in before.values()), before
    p = subprocess.Popen([str(lab.binary), "bench", "rfc2544-tester", "--lab", LAB, "-o", str(tmp_path),
                          "--flows", "4", "--tests", "latency", "--frame-sizes", "64", "--latency-fps", "2000",
                          "--latency-seconds", "60", "--latency-repeats", "1", "--calibrate-frames", "0",
                          "--settle", "0", "--learning-wait", "0", "--drain", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        kids = {}
        while time.monotonic() < deadline and p.poll() is None:
            kids = {k: comm(k) for k in children_of(p.pid)}
            if {"trafgen", "netsniff-ng"} <= set(kids.values()):
                break
            time.sleep(0.1)
        assert {"trafgen", "netsniff-ng"} <= set(kids.values()), (kids, p.poll())
        during = ns_state(f"{LAB}-client")
        assert "zn_rfc2544" in during[0] and during[1] == ["tbf"], during
        p.send_signal(sig)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 130, f"{p.returncode}\n{out}\n{err}"
    assert "interrupted" in err, err
    after = {ns: ns_state(ns) for ns in before}
    assert after == before, after
    # The tester's children were ended, not left running (a zombie, ended
    # and not yet reaped by the init that inherited it, counts as ended).
    alive = {k: comm(k) for k in kids if comm(k) in ("trafgen", "netsniff-ng") and state(k) not in ("Z", "X")}
    assert not alive, alive
    netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert f"{LAB}-cala" not in netns and f"{LAB}-calb" not in netns, netns
