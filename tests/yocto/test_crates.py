"""The crate list of the tools recipe matches tools/Cargo.lock.

A stale list fails: bitbake would fetch other crate versions than cargo
locked, and `cargo build --frozen` inside the build would stop. Fix with
scripts/update-crates-inc.
"""
import pathlib
import re
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
INC = ROOT / "recipes-rust" / "zynq-net-tools" / "zynq-net-tools-crates.inc"
LOCK = ROOT / "tools" / "Cargo.lock"


def test_check_crates_inc_passes():
    res = subprocess.run([str(ROOT / "scripts" / "check-crates-inc")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_inc_lists_every_locked_crate_with_checksum():
    lock = tomllib.loads(LOCK.read_text())
    want = {(p["name"], p["version"], p.get("checksum"))
            for p in lock["package"] if "crates.io" in p.get("source", "")}
    text = INC.read_text()
    uris = set(re.findall(r"crate://crates\.io/([^/\s]+)/([^\s\\]+)", text))
    sums = dict(re.findall(r'SRC_URI\[([^\]]+)\.sha256sum\] = "([0-9a-f]{64})"', text))
    assert uris == {(n, v) for n, v, _ in want}
    for n, v, c in want:
        assert sums.get(f"{n}-{v}") == c, f"{n} {v}: checksum {sums.get(f'{n}-{v}')} != {c}"


def test_check_detects_a_stale_list(tmp_path, monkeypatch):
    # Run the checker against a copy whose .inc misses one crate.
    sys.path.insert(0, str(ROOT / "scripts"))
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("update_crates_inc",
                                                  str(ROOT / "scripts" / "update-crates-inc"))
    spec = importlib.util.spec_from_loader("update_crates_inc", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    stale = tmp_path / "stale.inc"
    lines = INC.read_text().splitlines(True)
    drop = next(i for i, line in enumerate(lines) if "crate://" in line)
    stale.write_text("".join(lines[:drop] + lines[drop + 1:]))
    monkeypatch.setattr(mod, "INC", stale)
    monkeypatch.setattr(sys, "argv", ["update-crates-inc", "--check"])
    assert mod.main() == 1
