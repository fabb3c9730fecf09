"""Reading what an emulated board reported: shared by tests/qemu/test_qemu_*.py.

The scripts/qemu-* scripts split the guest console into sections
(scripts/lib/qemu-common.sh parse_console): OUT/sections/NAME.txt holds the
output of one command the init ran, NAME.rc its exit code, and
OUT/result.env the boot's figures (boot_seconds, guest_uptime, done, ...).
Nothing here knows a board: the helpers parse the plan (docs/plan-format.md),
kernel bitmaps, `ethtool`/`/proc/interrupts` text and the applier's JSON
(docs/applier.md).
"""
from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess

import pytest

from plan_seal import seal_plan  # noqa: F401 (re-exported to the QEMU tests)


def parse_plan(path: pathlib.Path) -> list[list[str]]:
    """Steps of a plan (docs/plan-format.md) as lists of fields; header,
    comments and the `end` line are not steps."""
    steps = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("zynq-net-plan ") \
                or line.startswith("end "):
            continue
        steps.append(line.split(" "))
    return steps


def mask_int(mask: str) -> int:
    """Kernel bitmap text (comma-separated 32-bit groups) to an int."""
    return int(mask.replace(",", ""), 16)


def lowest_cpu(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def macb_ring(param: str, value: int) -> int:
    """What macb_set_ringparam() (macb_main.c, 6.12) keeps for a requested
    size: clamped to MIN_*_RING_SIZE..MAX_*_RING_SIZE (rx 64..8192, tx
    64..4096), then roundup_pow_of_two()."""
    lo, hi = 64, (8192 if param == "rx" else 4096)
    value = min(max(value, lo), hi)
    return 1 << (value - 1).bit_length()


def ethtool_current(text: str) -> dict[str, int]:
    """'Current hardware settings' of one `ethtool -g`: {"rx": N, "tx": N}."""
    cur = text.split("Current hardware settings:", 1)[1]
    out = {}
    for key in ("RX", "TX"):
        m = re.search(rf"^{key}:\s+(\d+)\s*$", cur, re.M)
        if m:
            out[key.lower()] = int(m.group(1))
    return out


def sysfs_values(text: str) -> dict[str, str]:
    """'rx-0/rps_cpus e' lines (init-lib.sh `queues`) as a dict."""
    vals = {}
    for line in text.splitlines():
        key, _, val = line.partition(" ")
        vals[key] = val.strip()
    return vals


def irq_rows(text: str, action: str) -> dict[int, list[int]]:
    """IRQ number -> per-CPU counts for /proc/interrupts rows naming action
    (one of the comma-separated action names, e.g. macb's "eth0")."""
    lines = text.splitlines()
    ncpu = len(lines[0].split())
    rows = {}
    for line in lines[1:]:
        f = line.split()
        if not f or not f[0].rstrip(":").isdigit():
            continue
        names = " ".join(f[1 + ncpu:])
        if re.search(rf"(^|[\s,]){re.escape(action)}(,|\s|$)", names):
            rows[int(f[0].rstrip(":"))] = [int(x) for x in f[1:1 + ncpu]]
    return rows


def irq_affinity_rows(text: str) -> list[tuple[str, str, str, str]]:
    """(irq, smp_affinity, effective_affinity, effective_affinity_list) of
    init-lib.sh `irqs`."""
    return re.findall(r"^irq (\d+) smp_affinity (\S+) effective_affinity (\S+) "
                      r"effective_affinity_list (\S+)", text, re.M)


def results(doc: dict, verb: str) -> list[dict]:
    """The applier's JSON step results of one verb."""
    return [s for s in doc["steps"] if s["verb"] == verb]


def step_keys(doc: dict) -> dict[tuple[str, str, str], dict]:
    """(verb, iface, target) -> step result of the applier's JSON."""
    return {(r["verb"], r["iface"], r["target"]): r for r in doc["steps"]}


class Run:
    """The results of one boot (the --out directory of a scripts/qemu-*)."""

    def __init__(self, script: str, out: pathlib.Path, proc: subprocess.CompletedProcess,
                 gen: pathlib.Path, variant: pathlib.Path | None):
        self.script = script
        self.out = out
        self.proc = proc
        self.gen = gen
        plan = gen / "tuning" / "zynq-net.plan"
        self.plan = parse_plan(plan) if plan.exists() else []
        self.variant = parse_plan(variant) if variant else []
        self.env = {}
        env = out / "result.env"
        if env.exists():
            for line in env.read_text().splitlines():
                k, _, v = line.partition("=")
                self.env[k] = v

    def context(self) -> str:
        """Script output and the console tail, for assert messages."""
        console = self.out / "console.log"
        tail = ""
        if console.exists():
            tail = "\n".join(console.read_text(errors="replace").splitlines()[-60:])
        return (f"\n--- {self.script} rc {self.proc.returncode}\n{self.proc.stdout[-4000:]}"
                f"\n{self.proc.stderr[-4000:]}\n--- console tail ({console})\n{tail}")

    def text(self, name: str) -> str:
        path = self.out / "sections" / f"{name}.txt"
        assert path.exists(), f"guest did not report section {name}" + self.context()
        return path.read_text()

    def rc(self, name: str) -> int:
        path = self.out / "sections" / f"{name}.rc"
        assert path.exists(), f"guest did not finish section {name}" + self.context()
        return int(path.read_text().strip())

    def json(self, name: str) -> dict:
        raw = self.text(name)
        try:
            return json.loads(raw)
        except json.JSONDecodeError as e:
            raise AssertionError(f"section {name} is not JSON ({e}):\n{raw}") from e

    def steps(self, verb: str) -> list[list[str]]:
        return [s for s in self.plan if s[0] == verb]


def skip_without_tcg(qemu_name: str, package: str) -> None:
    """Skip (saying why) when the QEMU binary or its TCG accelerator is missing."""
    qemu = shutil.which(qemu_name)
    if not qemu:
        pytest.skip(f"{qemu_name} missing (Debian {package}, scripts/deps/apt.txt)")
    accel = subprocess.run([qemu, "-accel", "help"], capture_output=True, text=True)
    if "tcg" not in accel.stdout:
        pytest.skip(f"{qemu} has no TCG accelerator: {accel.stdout.strip()}")
