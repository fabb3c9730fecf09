"""A plan or journal that was cut short or damaged is refused and changes
nothing (docs/plan-format.md, end line).

- The generated zcu102 plan cut at **every** byte offset, run by busybox ash
  and by dash inside a network namespace with the plan's interfaces: every
  run exits 2 (invalid plan), no value the plan touches changes, and no
  state is written. The uncut plan applies (so the refusals are not a
  refusal of everything).
- One changed byte in any step line (a digit of a value): checksum mismatch,
  exit 2; with `cksum` (coreutils) and with the od fallback that targets
  whose busybox has no cksum applet (poky's defconfig) take.
- The journal `revert` reads ($STATE/saved), cut at every byte offset or
  with one byte changed: `revert` refuses it (exit 2) and restores nothing;
  the lines of a killed run (saved.run) are recovered by the next run.
"""
import os
import pathlib
import shutil
import subprocess

import pytest

from conftest import APPLIER, SHELLS, Applier, as_driver, need, parse_plan, prepared_proc, write_plan
from test_boards import snapshot, veth_queues


def run_many(ns, shell, env, files, *args):
    """Runs `APPLIER ARGS... FILE` for every file inside the namespace with one
    `ip netns exec` (a loop in sh): {file name: (exit code, stderr)}."""
    work = pathlib.Path(env["ZYNQ_NET_STATE"]).parent
    driver = work / "driver.sh"
    driver.write_text(
        'for f in "$@"; do\n'
        f'  {" ".join(shell)} "{APPLIER}" {" ".join(args)} "$f" >/dev/null 2>"$f.err"\n'
        '  echo "${f##*/} $?"\n'
        'done\n')
    r = subprocess.run(["ip", "netns", "exec", ns.name, "sh", str(driver), *map(str, files)],
                       capture_output=True, text=True, env=env, check=True)
    out = {}
    for line in r.stdout.splitlines():
        name, rc = line.rsplit(" ", 1)
        out[name] = (int(rc), pathlib.Path(files[0]).with_name(name + ".err").read_text())
    return out


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_truncated_plan_every_offset(shell, tmp_path, gen_board, netns_factory):
    need("ip", "ethtool", "tc", "cksum", SHELLS[shell][0])
    plan = gen_board("zcu102") / "tuning" / "zynq-net.plan"
    data = plan.read_bytes()
    steps = parse_plan(plan)
    ns = netns_factory(veth_queues(steps))
    proc = prepared_proc(tmp_path, "           CPU0       CPU1\n")
    ap = Applier(tmp_path, SHELLS[shell], netns=ns, proc=proc)
    before = snapshot(ns, steps)
    cuts = tmp_path / "cuts"
    cuts.mkdir()
    files = []
    for n in range(len(data)):
        f = cuts / f"cut{n:05d}"
        f.write_bytes(data[:n])
        files.append(f)
    res = run_many(ns, SHELLS[shell], ap.env, files, "apply")
    assert len(res) == len(data)
    wrong = {k: v for k, v in res.items() if v[0] != 2}
    assert not wrong, f"{len(wrong)} of {len(data)} cuts not refused with exit 2: " \
                      f"{sorted(wrong.items())[:5]}"
    # every refusal says why (truncated / no end line / empty)
    for name, (_, err) in res.items():
        assert "truncated" in err or "empty plan" in err, f"{name}: {err}"
    assert snapshot(ns, steps) == before
    assert not (tmp_path / "state").exists(), "a refused plan must write no state"
    print(f"{shell}: {len(data)} cuts of {plan.name}, all refused with exit 2, nothing changed")
    # the uncut plan is accepted; on veths its ident steps fail (macb and
    # xilinx_axienet ports: test_ident.py), and with them saying veth it applies
    doc = ap.json("apply", plan, expect=3)
    assert [s["result"] for s in doc["steps"] if s["verb"] == "ident"] == ["failed", "failed"], doc
    doc = ap.json("apply", as_driver(plan, tmp_path / "veth.plan"), expect=(0, 3))
    assert doc["applied"] > 0


@pytest.mark.parametrize("cksum", ["cksum", "od"])
@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_damaged_plan_checksum(shell, cksum, tmp_path, gen_board):
    need("cksum", "od", "sed", SHELLS[shell][0])
    plan = gen_board("zcu102") / "tuning" / "zynq-net.plan"
    text = plan.read_text()
    env = {"ZYNQ_NET_CKSUM": "od"} if cksum == "od" else {}
    ap = Applier(tmp_path, SHELLS[shell], extra_env=env)
    # the intact plan passes the check (status: compares, writes nothing)
    r = ap("status", plan)
    assert r.returncode in (0, 3), r.stderr
    lines = text.splitlines(keepends=True)
    tried = 0
    for i, line in enumerate(lines):
        if line.startswith(("#", "zynq-net-plan", "end ")):
            continue
        pos = max(j for j, c in enumerate(line) if c.isdigit() or c.isalpha())
        c = line[pos]
        repl = {"9": "8"}.get(c, "9") if c.isdigit() else ("b" if c != "b" else "c")
        bad = tmp_path / f"bad{i}.plan"
        bad.write_text("".join(lines[:i]) + line[:pos] + repl + line[pos + 1:] + "".join(lines[i + 1:]))
        r = ap("apply", bad)
        assert r.returncode == 2, f"line {i + 1} changed, not refused:\n{r.stdout}{r.stderr}"
        assert "checksum mismatch" in r.stderr, r.stderr
        tried += 1
    # a step removed (count and checksum both wrong) and a step appended after the end
    gone = tmp_path / "gone.plan"
    gone.write_text("".join(ln for ln in lines if not ln.startswith("mtu ")))
    r = ap("apply", gone)
    assert r.returncode == 2 and "counts" in r.stderr, r.stderr
    extra = tmp_path / "extra.plan"
    extra.write_text(text + "mtu eth1 90\n")
    r = ap("apply", extra)
    assert r.returncode == 2 and "after the end line" in r.stderr, r.stderr
    assert tried > 10
    assert not (tmp_path / "state").exists()


def applied_journal(shell, tmp_path, netns_factory, extra_env=None):
    """A namespace with eth0 (4 queues), a plan applied there: (applier, ns, plan, before)."""
    ns = netns_factory({"eth0": 4})
    proc = prepared_proc(tmp_path, "           CPU0       CPU1\n")
    plan = write_plan(tmp_path / "j.plan",
                      "zynq-net-plan 2\nboard journal\nmtu eth0 1400\n"
                      "rps eth0 rx-0 00000001\nrps eth0 rx-1 00000001\nrfs eth0 rx-0 2048\n"
                      "sysctl net.core.somaxconn 2345\n")
    steps = parse_plan(plan)
    ap = Applier(tmp_path, shell, netns=ns, proc=proc, extra_env=extra_env)
    before = snapshot(ns, steps)
    doc = ap.json("apply", plan, expect=0)
    assert doc["applied"] == 5, doc
    return ap, ns, plan, steps, before


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_damaged_journal_refused(shell, tmp_path, netns_factory):
    need("ip", "ethtool", "cksum", SHELLS[shell][0])
    ap, ns, plan, steps, before = applied_journal(SHELLS[shell], tmp_path, netns_factory)
    saved = tmp_path / "state" / "saved"
    data = saved.read_bytes()
    assert data.splitlines()[-1].startswith(b"end 5 "), data
    after = snapshot(ns, steps)
    assert after != before
    # every cut but the empty file (no journal = nothing saved, a valid state
    # only when written by the applier: an empty *file* is refused as well)
    cuts = tmp_path / "jcuts"
    cuts.mkdir()
    for n in range(len(data)):
        saved.write_bytes(data[:n])
        r = ap("revert")
        assert r.returncode == 2, f"journal cut at {n} not refused:\n{r.stdout}{r.stderr}"
        assert "journal" in r.stderr and "damaged" in r.stderr, r.stderr
    # one changed digit in an original
    i = data.index(b" 1500\n")
    saved.write_bytes(data[:i + 1] + b"9" + data[i + 2:])
    r = ap("revert")
    assert r.returncode == 2 and "checksum mismatch" in r.stderr, r.stderr
    # apply refuses it too (it would lose the originals): still nothing changed
    r = ap("apply", plan)
    assert r.returncode == 2, r.stderr
    assert snapshot(ns, steps) == after, "a refused journal must change nothing"
    # the intact journal reverts everything
    saved.write_bytes(data)
    doc = ap.json("revert", expect=0)
    assert doc["restored"] == 5, doc
    assert snapshot(ns, steps) == before


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_killed_run_journal_recovered(shell, tmp_path, netns_factory):
    """A run killed before it sealed the journal leaves saved.run: the next
    run takes its complete lines (a torn last line is dropped), so revert
    still restores what the killed run changed."""
    need("ip", "ethtool", "cksum", SHELLS[shell][0])
    ap, ns, plan, steps, before = applied_journal(SHELLS[shell], tmp_path, netns_factory)
    state = tmp_path / "state"
    sealed = (state / "saved").read_text().splitlines(keepends=True)
    entries = sealed[:-1]
    # as if the run had been killed: the entries only in saved.run, an old
    # (empty) sealed journal, and a torn line at the end
    (state / "saved.run").write_text("".join(entries) + "14+sysctl+-+net.core.rmem_max 21")
    empty = subprocess.run(["cksum"], input=b"", capture_output=True, check=True).stdout.split()
    (state / "saved").write_text(f"end 0 {int(empty[0])} 0\n")
    r = ap("revert", expect=0)
    assert "recovered 5 saved value(s)" in r.stderr, r.stderr
    assert snapshot(ns, steps) == before
    assert "rmem_max" not in (state / "saved").read_text()


def test_applier_without_cksum_uses_od(tmp_path, gen_board):
    """With no cksum on PATH (poky's busybox) the od path verifies the plan."""
    need("busybox")
    plan = gen_board("zcu102") / "tuning" / "zynq-net.plan"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    busybox = shutil.which("busybox")
    for tool in ("sed", "od", "cat", "mkdir", "rm", "mv", "sleep", "date", "grep"):
        (bindir / tool).symlink_to(busybox)
    env = {"PATH": str(bindir)}
    ap = Applier(tmp_path, [busybox, "sh"], extra_env=env)
    ap.env["PATH"] = str(bindir)
    r = ap("status", plan)
    assert r.returncode in (0, 3), r.stderr
    bad = tmp_path / "bad.plan"
    bad.write_text(plan.read_text().replace("board zcu102", "board zcu103"))
    r = ap("status", bad)
    assert r.returncode == 2 and "checksum mismatch" in r.stderr, r.stderr
    assert os.path.exists(plan)
