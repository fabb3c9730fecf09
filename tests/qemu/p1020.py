"""What the tests of the emulated P1020-class router share
(tests/qemu/test_qemu_p1020.py: the applier on gianfar;
tests/qemu/test_p1020_forwarding.py: `zynq-net bench` through it).

scripts/qemu-p1020 builds (once, cached under $ZYNQ_NET_CACHE/qemu-p1020)
a powerpc kernel with the p1020rdb board's generated fragments and a static
userland, and boots the test board's plan on `qemu-system-ppc -M ppce500`;
docs/qemu.md says what it builds and how long that takes.

Environment:
- ZYNQ_NET_P1020_SMP: emulated cores (default 2);
- ZYNQ_NET_QEMU_TIMEOUT: seconds the boot may take (default 300);
- ZYNQ_NET_P1020_CACHED_ONLY=1: never build (a CI with no time for it;
  .ci/run sets 0 and builds everything first); the tests skip, saying so,
  when the kernel or userland is not cached.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import pytest

from qemu_results import skip_without_tcg

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "scripts" / "qemu-p1020"
BOARD = ROOT / "tests" / "qemu" / "boards" / "p1020-qemu.yml"
REF_BOARD = ROOT / "meta-zynq-net" / "boards" / "p1020rdb.yml"
SMP = int(os.environ.get("ZYNQ_NET_P1020_SMP", "2"))
BOOT_TIMEOUT = int(os.environ.get("ZYNQ_NET_QEMU_TIMEOUT", "300"))
# The whole script: a fresh kernel cross-build, the userland and the
# patched QEMU (docs/qemu.md has the figures; minutes on idle cores, much
# longer on a loaded machine).
SCRIPT_TIMEOUT = BOOT_TIMEOUT + 3 * 3600
CACHED_ONLY = os.environ.get("ZYNQ_NET_P1020_CACHED_ONLY") == "1"
# scripts/qemu-p1020 --cached-only: the kernel or userland is not cached.
RC_NOT_CACHED = 3


def skip_without_tools() -> None:
    """Skip (saying why) without the powerpc cross compiler or qemu-system-ppc."""
    if not shutil.which("powerpc-linux-gnu-gcc"):
        pytest.skip("powerpc-linux-gnu-gcc missing (Debian gcc-powerpc-linux-gnu, scripts/deps/apt.txt)")
    skip_without_tcg("qemu-system-ppc", "qemu-system-ppc")
    if not CACHED_ONLY:
        # scripts/qemu-build: the patched qemu-system-ppc the labs boot.
        for tool in ("ninja", "meson", "pkg-config"):
            if not shutil.which(tool):
                pytest.skip(f"{tool} missing (scripts/deps/apt.txt: scripts/qemu-build needs it)")


def script_args(gens: tuple[pathlib.Path, pathlib.Path], out: pathlib.Path,
                zynq_net: pathlib.Path) -> list[str]:
    """scripts/qemu-p1020 booting the test board's plan on the kernel built
    with the reference board's fragments, results in `out`; with
    --cached-only when CACHED_ONLY (then exit 3 = not cached)."""
    gen, ref = gens
    return ([str(SCRIPT), "--gen", str(gen), "--kernel-gen", str(ref), "--out", str(out),
             "--timeout", str(BOOT_TIMEOUT), "--smp", str(SMP), "--zynq-net", str(zynq_net)]
            + (["--cached-only"] if CACHED_ONLY else []))


def skip_if_not_cached(rc: int, stderr: str) -> None:
    """Skip when --cached-only found nothing cached (exit 3), quoting the script."""
    if CACHED_ONLY and rc == RC_NOT_CACHED:
        lines = stderr.strip().splitlines()
        pytest.skip("ZYNQ_NET_P1020_CACHED_ONLY=1 and the P1020 kernel/userland are not cached: "
                    + (lines[-1] if lines else "(no message)"))


def generate(zynq_net: pathlib.Path, base: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """`zynq-net gen` of the test board and of p1020rdb.yml (whose kernel
    fragments the kernel is built with) into base/test and base/ref."""
    out = []
    for name, board in (("test", BOARD), ("ref", REF_BOARD)):
        d = base / name
        subprocess.run([str(zynq_net), "gen", str(board), "-o", str(d)], check=True,
                       capture_output=True)
        out.append(d)
    return out[0], out[1]
