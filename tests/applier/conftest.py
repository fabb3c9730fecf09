"""Helpers for the applier tests: network namespaces with multi-queue veth
pairs named like the board's interfaces, plan parsing, running
zynq-net-apply under busybox ash and dash, and kernel-bitmap arithmetic.

Needs root (namespaces, sysfs writes), iproute2, ethtool, busybox, dash.

Seam for the mutation test (test_mutations.py): ZYNQ_NET_APPLIER names the
applier every test runs (default: the source, SOURCE_APPLIER).
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import uuid

import pytest

from plan_seal import seal_plan, with_driver

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE_APPLIER = ROOT / "tools" / "crates" / "zynq-net-render" / "assets" / "zynq-net-apply.sh"
APPLIER = pathlib.Path(os.environ.get("ZYNQ_NET_APPLIER") or SOURCE_APPLIER).resolve()
PLANS = pathlib.Path(__file__).resolve().parent / "plans"
SHELLS = {"busybox-ash": ["busybox", "sh"], "dash": ["dash"]}


def need(*tools):
    for t in tools:
        if shutil.which(t) is None:
            pytest.skip(f"{t} not installed (scripts/install-deps)")
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, sysfs writes)")


def sh(cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, capture_output=True, text=True, **kw)


# ---------------------------------------------------------------- plans
def parse_plan(path):
    """[(verb, [fields])] in order, version line and comments dropped."""
    steps = []
    for line in pathlib.Path(path).read_text().splitlines():
        if not line or line.startswith("#") or line.startswith("zynq-net-plan ") \
                or line.startswith("end "):
            continue
        f = line.split(" ")
        steps.append((f[0], f[1:]))
    return steps


def plan_interfaces(steps):
    """{iface: queue count}, queue count = highest queue index used + 1 (1 if none)."""
    ifs = {}
    for verb, f in steps:
        if verb in ("board", "sysctl") or not f:
            continue
        n = ifs.setdefault(f[0], 1)
        if verb in ("rps", "rfs", "xps"):
            ifs[f[0]] = max(n, int(f[1].split("-")[1]) + 1)
        if verb == "channels":
            ifs[f[0]] = max(n, int(f[2]))
    return ifs


def write_plan(path, text: str) -> pathlib.Path:
    path = pathlib.Path(path)
    path.write_text(seal_plan(text))
    return path


def as_driver(plan, out, driver="veth", ifaces=None) -> pathlib.Path:
    """A copy of the sealed plan `plan` at `out` whose `ident` lines (of
    `ifaces`, default all) say `driver` (plan_seal.with_driver)."""
    out = pathlib.Path(out)
    out.write_text(with_driver(pathlib.Path(plan).read_text(), driver, ifaces))
    return out


# ---------------------------------------------------------------- bitmaps
def mask_int(mask: str) -> int:
    """Kernel bitmap (comma-separated 32-bit hex groups, MS first) -> int."""
    v = 0
    for g in mask.strip().split(","):
        v = (v << 32) | int(g, 16)
    return v


def cpulist_int(cpulist: str) -> int:
    v = 0
    for part in cpulist.strip().split(","):
        a, _, b = part.partition("-")
        for c in range(int(a), int(b or a) + 1):
            v |= 1 << c
    return v


def online_mask() -> int:
    return cpulist_int(pathlib.Path("/sys/devices/system/cpu/online").read_text())


def pow2_up(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p if n else 0


# ---------------------------------------------------------------- netns
class Netns:
    def __init__(self, ifaces):
        self.name = "zn-" + uuid.uuid4().hex[:8]
        sh(["ip", "netns", "add", self.name])
        self.ifaces = ifaces
        for i, (name, q) in enumerate(sorted(ifaces.items())):
            sh(["ip", "-n", self.name, "link", "add", name, "numtxqueues", str(q),
                "numrxqueues", str(q), "type", "veth", "peer", "name", f"zp{i}",
                "numtxqueues", str(q), "numrxqueues", str(q)])
            sh(["ip", "-n", self.name, "link", "set", name, "up"])
            sh(["ip", "-n", self.name, "link", "set", f"zp{i}", "up"])

    def run(self, cmd, **kw):
        return sh(["ip", "netns", "exec", self.name] + list(cmd), **kw)

    def read(self, path):
        return self.run(["cat", path]).stdout.strip()

    def delete(self):
        sh(["ip", "netns", "del", self.name], check=False)


@pytest.fixture
def netns_factory():
    made = []

    def make(ifaces):
        n = Netns(ifaces)
        made.append(n)
        return n

    yield make
    for n in made:
        n.delete()


class Applier:
    """Runs zynq-net-apply with private state/log/lock paths."""

    def __init__(self, tmp: pathlib.Path, shell, netns=None, proc=None, sysroot=None, extra_env=None):
        self.tmp = tmp
        self.shell = shell
        self.netns = netns
        self.env = dict(os.environ)
        self.env.update({
            "ZYNQ_NET_STATE": str(tmp / "state"),
            "ZYNQ_NET_LOG": str(tmp / "zynq-net.log"),
            "ZYNQ_NET_LOCK": str(tmp / "lock"),
            "ZYNQ_NET_WAIT_MAX": "1",
        })
        if proc:
            self.env["ZYNQ_NET_PROC"] = str(proc)
        if sysroot:
            self.env["ZYNQ_NET_SYS"] = str(sysroot)
        self.env.update(extra_env or {})
        self.prefix = []

    def __call__(self, *args, expect=None):
        cmd = self.prefix + list(self.shell) + [str(APPLIER)] + [str(a) for a in args]
        if self.netns:
            cmd = ["ip", "netns", "exec", self.netns.name] + cmd
        r = subprocess.run(cmd, capture_output=True, text=True, env=self.env, timeout=120)
        if expect is not None:
            assert r.returncode in (expect if isinstance(expect, tuple) else (expect,)), \
                f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
        return r

    def json(self, *args, expect=None):
        r = self(*args, "--json", expect=expect)
        try:
            doc = json.loads(r.stdout)
        except json.JSONDecodeError as e:
            raise AssertionError(f"bad JSON ({e}):\n{r.stdout}\nstderr:\n{r.stderr}")
        doc["_stderr"] = r.stderr
        doc["_rc"] = r.returncode
        return doc


def steps_of(doc, verb=None, iface=None, target=None):
    return [s for s in doc["steps"]
            if (verb is None or s["verb"] == verb)
            and (iface is None or s["iface"] == iface)
            and (target is None or s["target"] == target)]


def fmt(doc):
    return "\n".join(f'{s["result"]:9} {s["verb"]} {s["iface"]} {s["target"]} = {s["desired"]}'
                     f' (actual {s["actual"]}) -- {s["detail"]}' for s in doc["steps"])


MULTIQ_SYMBOLS = {"CONFIG_NET_SCH_MULTIQ": "sch_multiq", "CONFIG_NET_CLS_U32": "cls_u32",
                  "CONFIG_NET_ACT_SKBEDIT": "act_skbedit"}


def kernel_config():
    """(source, {CONFIG_SYMBOL: value}) of the running kernel from
    /proc/config.gz (CONFIG_IKCONFIG_PROC) or /boot/config-RELEASE (Debian
    and Fedora install it); (None, None) when neither exists."""
    import gzip
    release = os.uname().release
    for src, opener in (("/proc/config.gz", gzip.open), (f"/boot/config-{release}", open)):
        try:
            with opener(src, "rt") as f:
                text = f.read()
        except OSError:
            continue
        cfg = {}
        for line in text.splitlines():
            m = re.match(r"(CONFIG_\w+)=(.*)", line) or re.match(r"# (CONFIG_\w+) is not set", line)
            if m:
                cfg[m.group(1)] = m.group(2) if m.lastindex == 2 else "n"
        return src, cfg
    return None, None


class TcSupport:
    """Whether this kernel can run the plan's qdisc/filter steps (multiq
    root qdisc, u32 classifier, skbedit action), with the evidence.

    `has` is False only when the kernel demonstrably lacks one of them: its
    configuration says `not set`, a `=m` module cannot be loaded (modprobe
    fails), or, with no configuration to read, `tc` itself answers that the
    kind is unknown. Any other answer is an error, not a skip."""

    def __init__(self):
        src, cfg = kernel_config()
        self.has, self.why = True, ""
        if cfg is not None:
            missing = [f"{sym} is not set" for sym in MULTIQ_SYMBOLS if cfg.get(sym, "n") not in ("y", "m")]
            if missing:
                self.has, self.why = False, f"{src}: " + ", ".join(missing)
                return
            for sym, mod in MULTIQ_SYMBOLS.items():
                if cfg[sym] == "m":
                    r = sh(["modprobe", mod], check=False)
                    if r.returncode != 0:
                        self.has, self.why = False, f"{src}: {sym}=m, but `modprobe {mod}` failed: {r.stderr.strip()}"
                        return
            self.why = f"{src}: " + ", ".join(f"{sym}={cfg[sym]}" for sym in MULTIQ_SYMBOLS)
            return
        # no configuration to read: ask tc in a scratch namespace
        n = Netns({"eth0": 2})
        try:
            q = n.run(["tc", "qdisc", "add", "dev", "eth0", "root", "handle", "1:", "multiq"], check=False)
            f = n.run(["tc", "filter", "add", "dev", "eth0", "parent", "1:", "protocol", "ip", "prio", "1",
                       "u32", "match", "ip", "dst", "10.0.0.1", "action", "skbedit", "queue_mapping", "1"],
                      check=False) if q.returncode == 0 else q
        finally:
            n.delete()
        if q.returncode == 0 and f.returncode == 0:
            self.why = "no kernel config; tc added multiq and a u32/skbedit filter"
            return
        err = (f.stderr or q.stderr).strip()
        if re.search(r"kind is unknown|Unknown (qdisc|filter|action)|not supported", err):
            self.has, self.why = False, f"no kernel config; tc: {err}"
            return
        raise AssertionError(f"cannot tell whether the kernel has multiq/u32/skbedit: tc said {err!r}")

    def __repr__(self):
        return f"TcSupport(has={self.has}, {self.why})"


@pytest.fixture(scope="session")
def kernel_tc():
    """TcSupport of the running kernel (see there)."""
    need("ip", "tc")
    return TcSupport()


def prepared_proc(tmp: pathlib.Path, interrupts: str) -> pathlib.Path:
    """A /proc stand-in: our interrupts file, sys -> the real /proc/sys."""
    proc = tmp / "proc"
    proc.mkdir(parents=True, exist_ok=True)
    (proc / "interrupts").write_text(interrupts)
    (proc / "sys").symlink_to("/proc/sys")
    return proc


re_mask = re.compile(r"^[0-9a-f,]+$")
