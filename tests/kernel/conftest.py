"""Fixtures for the kernel-fragment proofs (docs/kernel-fragments.md).

Real components only: Debian's linux-source-6.12 (scripts/kernel-tree) for
Kconfig, board DTS files and DT bindings; Debian's dtc/fdtoverlay; PyPI
dtschema (dt-mk-schema, dt-validate) from the cache venv
(scripts/install-deps). The processed binding schema is cached under
$ZYNQ_NET_CACHE/dtschema/, keyed by dtschema version and the test supplement.
"""
import collections
import fcntl
import hashlib
import os
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
SCHEMAS = HERE / "schemas"
BOARDS = ROOT / "meta-zynq-net" / "boards"
CACHE = pathlib.Path(os.environ.get("ZYNQ_NET_CACHE", "/var/tmp/zynq-net-cache"))
VENV_BIN = CACHE / "venv" / "bin"


def run(cmd, check=True, **kw):
    """subprocess.run with text output; fails the test with stderr on error."""
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if res.returncode != 0 and check:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {res.returncode}:\n{res.stdout}\n{res.stderr}")
    return res


def tool(name: str) -> pathlib.Path:
    p = VENV_BIN / name
    if not p.exists():
        pytest.fail(f"{p} missing: run scripts/install-deps (scripts/deps/pip.txt has dtschema)")
    return p


@pytest.fixture(scope="session")
def kernel_tree() -> pathlib.Path:
    res = subprocess.run([str(ROOT / "scripts" / "kernel-tree")], capture_output=True, text=True)
    if res.returncode != 0:
        pytest.fail("scripts/kernel-tree failed (run scripts/install-deps): " + res.stderr)
    return pathlib.Path(res.stdout.strip())


@pytest.fixture(scope="session")
def kconfig_symbols(kernel_tree) -> set:
    """Every symbol some Kconfig file of the tree defines (any architecture)."""
    syms = set()
    pat = re.compile(r"^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$", re.M)
    for path in kernel_tree.rglob("Kconfig*"):
        if path.is_file():
            syms.update(pat.findall(path.read_text(errors="replace")))
    return syms


@pytest.fixture(scope="session")
def gen_any(zynq_net, tmp_path_factory):
    """gen_any(path_to_board_yml) -> output dir of `zynq-net gen` (cached)."""
    done = {}

    def _gen(board: pathlib.Path) -> pathlib.Path:
        board = pathlib.Path(board)
        if board not in done:
            out = tmp_path_factory.mktemp(f"gen-{board.stem}") / "out"
            run([zynq_net, "gen", board, "-o", out])
            done[board] = out
        return done[board]

    return _gen


def make(tree, out, arch, *targets):
    run(["make", "-s", "-C", tree, f"O={out}", f"ARCH={arch}", *targets])


def merged_config(tree, workdir: pathlib.Path, arch: str, defconfig: str, fragments):
    """defconfig, merge_config.sh -m (as kernel-yocto merges), olddefconfig.

    Returns (base .config text, final .config path)."""
    out = workdir / "o"
    out.mkdir(parents=True, exist_ok=True)
    make(tree, out, arch, defconfig)
    base = (out / ".config").read_text()
    run([tree / "scripts" / "kconfig" / "merge_config.sh", "-m", "-O", out, out / ".config", *fragments], cwd=out)
    make(tree, out, arch, "olddefconfig")
    return base, out / ".config"


def config_values(text: str) -> dict:
    vals = {}
    for line in text.splitlines():
        m = re.match(r"^CONFIG_([A-Za-z0-9_]+)=(.*)$", line)
        if m:
            vals[m.group(1)] = m.group(2)
            continue
        m = re.match(r"^# CONFIG_([A-Za-z0-9_]+) is not set$", line)
        if m:
            vals[m.group(1)] = "n"
    return vals


def fragment_symbols(kernel_dir: pathlib.Path):
    """[(feature, symbol, value, vendor_only)] from the generated .cfg files."""
    out = []
    for cfg in sorted(kernel_dir.glob("zynq-net-*.cfg")):
        feature = cfg.stem[len("zynq-net-"):]
        text = cfg.read_text()
        # Kconfig symbols may have lower-case letters (I2C_MUX_PCA954x).
        vendor = set(re.findall(r"^# ([A-Za-z0-9_]+): only in ", text, re.M))
        for sym, val in re.findall(r"^CONFIG_([A-Za-z0-9_]+)=(\S+)$", text, re.M):
            out.append((feature, sym, val, sym in vendor))
    return out


# --- device tree -----------------------------------------------------------

def build_dtb(tree, arch: str, dts: str, out: pathlib.Path, includes=(), symbols=True):
    """cpp (kernel include paths) + dtc, like the kernel's dtbs rule.

    `includes` are #included after the board DTS (pl.dtsi, zynq-net.dtsi).
    Returns dtc's warnings (stderr lines)."""
    dts_root = tree / "arch" / arch / "boot" / "dts"
    board = dts_root / dts
    wrapper = out.with_suffix(".wrap.dts")
    wrapper.write_text("".join(f'#include "{p}"\n' for p in [board, *includes]))
    pre = out.with_suffix(".pp.dts")
    run(["cpp", "-nostdinc", "-undef", "-D__DTS__", "-x", "assembler-with-cpp",
         "-I", dts_root, "-I", board.parent, "-I", tree / "include",
         "-I", tree / "scripts" / "dtc" / "include-prefixes", "-o", pre, wrapper])
    res = run(["dtc", *(["-@"] if symbols else []), "-I", "dts", "-O", "dtb",
               "-i", board.parent, "-i", dts_root, "-o", out, pre])
    return res.stderr.splitlines()


def dtc_warnings(lines):
    """dtc warnings without source positions (they shift when we include)."""
    out = collections.Counter()
    for line in lines:
        m = re.search(r"(Warning|ERROR) \(([^)]+)\): (.*)$", line)
        if m:
            out[f"{m.group(2)}: {m.group(3)}"] += 1
    return out


@pytest.fixture(scope="session")
def dt_schema(kernel_tree) -> pathlib.Path:
    """Processed schema of the kernel's bindings + tests/kernel/schemas/."""
    ver = run([tool("dt-validate"), "-V"]).stdout.strip()
    h = hashlib.sha256(ver.encode())
    h.update(str(kernel_tree).encode())
    for p in sorted(SCHEMAS.glob("*.yaml")):
        h.update(p.read_bytes())
    dest_dir = CACHE / "dtschema"
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / f"processed-{h.hexdigest()[:16]}.json"
    with open(dest_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not dest.exists():
            tmp = dest.with_suffix(".tmp")
            with open(tmp, "w") as f:
                res = subprocess.run([str(tool("dt-mk-schema")), "-j",
                                      str(kernel_tree / "Documentation" / "devicetree" / "bindings"),
                                      str(SCHEMAS)], stdout=f, stderr=subprocess.PIPE, text=True)
            if res.returncode != 0:
                pytest.fail("dt-mk-schema failed:\n" + res.stderr[-4000:])
            shutil.move(tmp, dest)
    return dest


def dt_validate(schema: pathlib.Path, dtbs):
    """One dt-validate run over several DTBs (the schema loads once).

    Returns {dtb path: Counter of error records without the file name}."""
    res = subprocess.run([str(tool("dt-validate")), "-s", str(schema), *map(str, dtbs)],
                         capture_output=True, text=True)
    # Findings are records on the output; a crash (a Python traceback, or an
    # exit status other than 0/1: 255 for a missing file) must not read as
    # "no findings".
    assert res.returncode in (0, 1) and "Traceback" not in res.stderr, \
        f"dt-validate failed (exit {res.returncode}):\n{res.stderr[-4000:]}"
    errs = {str(d): collections.Counter() for d in dtbs}
    current = None
    for line in (res.stdout + res.stderr).splitlines():
        for d in errs:
            if line.startswith(d + ": "):
                current = [d, line[len(d) + 2:]]
                errs[d][current[1]] += 1
                break
        else:
            # "\tfrom schema $id: ..." continuation lines belong to the record.
            if current and line.startswith("\t"):
                d, rec = current
                errs[d][rec] -= 1
                if errs[d][rec] == 0:
                    del errs[d][rec]
                current = [d, rec + " | " + line.strip()]
                errs[d][current[1]] += 1
    return errs
