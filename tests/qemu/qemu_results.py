"""Reading what an emulated board reported: shared by tests/qemu/test_qemu_*.py.

The scripts/qemu-* scripts split the guest console into sections
(scripts/lib/qemu-common.sh parse_console): OUT/sections/NAME.txt holds the
output of one command the init ran, NAME.rc its exit code, and
OUT/result.env the boot's figures (boot_seconds, guest_uptime, done, ...).
Nothing here knows a board: the helpers parse the plan (docs/plan-format.md),
kernel bitmaps, `ethtool`/`/proc/interrupts` text and the applier's JSON
(docs/applier.md), and the Run.check_* methods hold the checks that more
than one board's test makes (the applier's documented behaviour; the
`check_macb_*` ones the macb driver's, for both emulated GEM boards).
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
from collections.abc import Callable

import pytest

from plan_seal import seal_plan


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


def interrupt_table(text: str) -> list[tuple[int, list[int], list[str]]]:
    """The numbered rows of /proc/interrupts as (IRQ number, per-CPU counts,
    the fields after the counts: chip, hwirq, trigger and action names).
    Rows such as ERR or IPI have no number and are left out."""
    lines = text.splitlines()
    ncpu = len(lines[0].split())
    rows = []
    for line in lines[1:]:
        f = line.split()
        if f and f[0].rstrip(":").isdigit():
            rows.append((int(f[0].rstrip(":")), [int(x) for x in f[1:1 + ncpu]], f[1 + ncpu:]))
    return rows


def irq_rows(text: str, action: str) -> dict[int, list[int]]:
    """IRQ number -> per-CPU counts for /proc/interrupts rows naming action
    (one of the comma-separated action names, e.g. macb's "eth0")."""
    named = re.compile(rf"(^|[\s,]){re.escape(action)}(,|\s|$)")
    return {irq: counts for irq, counts, rest in interrupt_table(text) if named.search(" ".join(rest))}


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


def status_rows(doc: dict) -> list[tuple[str, str, str, str, str]]:
    """(verb, iface, target, result, actual) of each step of `status --json`."""
    return [(r["verb"], r["iface"], r["target"], r["result"], r["actual"]) for r in doc["steps"]]


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

    def boot_seconds(self, note: str = "") -> float:
        """Asserts the script exited 0 and the guest wrote everything
        (result.env done=1); prints and returns boot-to-result in seconds
        (`note` is added to the printed line, e.g. ", -smp 2")."""
        assert self.proc.returncode == 0, "guest did not finish" + self.context()
        assert self.env.get("done") == "1", self.context()
        secs = float(self.env["boot_seconds"])
        print(f"boot-to-result {secs:.1f}s (guest uptime {self.env.get('guest_uptime')}s{note})")
        return secs

    def kernel_config(self, fragments: pathlib.Path) -> set[str]:
        """Asserts `zynq-net kconfig verify` passed on the booted kernel
        (kconfig-verify.rc 0, "mismatches 0") and that every CONFIG_ line of
        the generated fragments in `fragments` (zynq-net-*.cfg; at least one)
        is in its .config; returns the .config's lines."""
        assert (self.out / "kernel.config").exists(), self.context()
        report = (self.out / "kconfig-report.txt").read_text()
        assert (self.out / "kconfig-verify.rc").read_text().strip() == "0", report
        assert "mismatches 0" in report, report
        have = set((self.out / "kernel.config").read_text().splitlines())
        frags = sorted(fragments.glob("zynq-net-*.cfg"))
        assert frags, f"no generated kernel fragments in {fragments}"
        for cfg in frags:
            for line in cfg.read_text().splitlines():
                if line.startswith("CONFIG_"):
                    assert line in have, f"{cfg.name}: {line} not in the booted kernel's .config"
        print(f"kernel built in {self.env.get('kernel_build_s')}s (cached: {self.env.get('kernel_cached')})")
        return have

    def check_exit_codes(self, names: tuple[str, ...]) -> None:
        """docs/applier.md: 0 all applied/unchanged (status: all ok), 3 some
        skipped, failed or differing; the JSON's "exit" is the exit code.
        `names`: sections holding the applier's JSON."""
        for name in names:
            doc = self.json(name)
            rc = self.rc(name)
            bad = doc["skipped"] + doc["failed"] + doc.get("differs", 0)
            assert rc == doc["exit"] == (3 if bad else 0), f"{name}: rc {rc}, {doc}"

    def check_second_apply(self) -> dict[tuple[str, str, str], dict]:
        """The plan applied again (section apply2) changes nothing: no step
        applied, each one that applied or was unchanged the first time
        (apply1) unchanged, any other with its first result. Returns apply1's
        steps by (verb, iface, target)."""
        first = step_keys(self.json("apply1"))
        doc = self.json("apply2")
        assert doc["applied"] == 0, self.text("apply2")
        for key, r in step_keys(doc).items():
            assert r["result"] != "applied", r
            want = "unchanged" if first[key]["result"] in ("applied", "unchanged") else first[key]["result"]
            assert r["result"] == want, (first[key], r)
        return first

    def check_status_ok_where_applied(self, first: dict[tuple[str, str, str], dict]) -> None:
        """`status --json` right after the first apply (section status-json)
        says ok for every step that apply1 (`first`, by key) applied or
        found unchanged."""
        status = step_keys(self.json("status-json"))
        for key, r in first.items():
            if r["result"] in ("applied", "unchanged"):
                assert status[key]["result"] == "ok", (r, status[key])

    def check_status_same_under_ash(self) -> None:
        """The applier is POSIX sh: `status --json` under busybox ash
        (section status-ash-json) reads the system as dash does
        (status2-json), with the same exit code."""
        assert status_rows(self.json("status-ash-json")) == status_rows(self.json("status2-json")), \
            self.text("status-ash-json")
        assert self.rc("status-ash-json") == self.rc("status2-json")

    def check_macb_variant_rings(self) -> None:
        """The variant plan's ring sizes (not powers of two) on macb: the
        driver rounds them up (macb_ring), `ethtool -g` after the variant
        (section extra-ethtool-g) shows that, and the applier reports it
        applied with the size the driver kept, naming it in the detail."""
        cur = ethtool_current(self.text("extra-ethtool-g"))
        got = {r["target"]: r for r in results(self.json("extra-apply"), "rings")}
        rings = [s for s in self.variant if s[0] == "rings"]
        assert rings, "the variant plan has no rings step"
        for _, _, param, value in rings:
            want = macb_ring(param, int(value))
            assert want != int(value), f"variant {param} {value}: nothing for macb to round"
            assert cur[param] == want, self.text("extra-ethtool-g")
            step = got[param]
            assert step["result"] == "applied" and step["actual"] == str(want), step
            assert str(want) in step["detail"], f"rounding not reported: {step}"

    def check_macb_coalesce_unsupported(self) -> None:
        """macb has no get/set_coalesce: `ethtool -c` fails with "not
        supported", and every coalesce step (the variant's, and the board's
        if it has any) is skipped as unsupported."""
        assert self.rc("ethtool-c") != 0, self.text("ethtool-c")
        assert "not supported" in self.text("ethtool-c"), self.text("ethtool-c")
        docs = [self.json("extra-apply")] + ([self.json("apply1")] if self.steps("coalesce") else [])
        for doc in docs:
            steps = results(doc, "coalesce")
            assert steps, f"no coalesce step reported in {doc['plan']}"
            for s in steps:
                assert s["result"] == "skipped" and "unsupported" in s["detail"], s

    def check_sysctls(self) -> dict[str, str]:
        """Every sysctl step of the plan reads back its value (section
        sysctls, init-lib.sh) and apply1 says applied or unchanged; returns
        the read-back values by key (raw text)."""
        guest = dict(line.split(" ", 1) for line in self.text("sysctls").splitlines() if line)
        by_key = {r["target"]: r for r in results(self.json("apply1"), "sysctl")}
        for _, key, *value in self.steps("sysctl"):
            assert guest[key].split() == value, f"{key} = {guest[key]!r}, plan {value}"
            assert by_key[key]["result"] in ("applied", "unchanged"), by_key[key]
        return guest


def boot(tmp_path_factory, script: str, argv: Callable[[pathlib.Path], list[str]], gen: pathlib.Path,
         variant: str, timeout: int, run_class: type[Run] = Run) -> Run:
    """The one boot a test module's tests share: scripts/SCRIPT (e.g.
    "qemu-zcu102") run with `argv(out)`, its command line writing results to
    `out`, plus the variant plan text `variant` (sealed here) as
    --extra-plan and, when ZYNQ_NET_APPLIER is set, that file as --applier
    (the applier under test, tests/applier/test_mutations.py; default: the
    generated one). `gen` is the generated board whose plan the guest runs.
    Raises subprocess.TimeoutExpired after `timeout` seconds."""
    work = tmp_path_factory.mktemp(script)
    plan = work / "variant.plan"
    plan.write_text(seal_plan(variant))
    out = work / "out"
    applier = os.environ.get("ZYNQ_NET_APPLIER")
    proc = subprocess.run(argv(out) + ["--extra-plan", str(plan)] + (["--applier", applier] if applier else []),
                          capture_output=True, text=True, timeout=timeout)
    return run_class(script, out, proc, gen, plan)


def skip_without_tcg(qemu_name: str, package: str) -> None:
    """Skip (saying why) when the QEMU binary or its TCG accelerator is missing."""
    qemu = shutil.which(qemu_name)
    if not qemu:
        pytest.skip(f"{qemu_name} missing (Debian {package}, scripts/deps/apt.txt)")
    accel = subprocess.run([qemu, "-accel", "help"], capture_output=True, text=True)
    if "tcg" not in accel.stdout:
        pytest.skip(f"{qemu} has no TCG accelerator: {accel.stdout.strip()}")
