#!/usr/bin/env python3
"""The upstream layers at the kas files' pins, from `git archive` snapshots.

ZYNQ_NET_YOCTO_SNAPSHOTS names a folder of tarballs `NAME-COMMIT12.tar.xz`
(one per kas repository NAME, made with `git archive --prefix=NAME/`; the
commit is in the tar header: `xz -dc FILE | git get-tar-commit-id`). The
default is `../shared/yocto` beside this checkout. Nothing of them goes into
this repository.

    tests/yocto/snapshots.py check              # every kas pin has its snapshot
    tests/yocto/snapshots.py extract DEST       # DEST/NAME for every pinned repo

`extract` keeps DEST/NAME when DEST/NAME.commit already names the pinned
commit (a cached extraction), so only a moved pin costs time.
"""
import os
import pathlib
import shutil
import subprocess
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
KASFILES = ("kas/zcu102.yml", "kas/zc702.yml", "kas/p1020rdb.yml", "kas/qemuarm64.yml")


def snapshot_dir() -> pathlib.Path:
    """Folder of the snapshots: ZYNQ_NET_YOCTO_SNAPSHOTS, else ../shared/yocto
    beside the checkout."""
    env = os.environ.get("ZYNQ_NET_YOCTO_SNAPSHOTS")
    return pathlib.Path(env) if env else ROOT.parent / "shared" / "yocto"


def kas_pins(kasfile: str) -> dict:
    """{repo name: pinned commit} of a kas file and its includes (repos with
    a url only: the project's own repository has none)."""
    pins: dict = {}

    def load(path: pathlib.Path) -> None:
        data = yaml.safe_load(path.read_text()) or {}
        for inc in (data.get("header") or {}).get("includes") or []:
            load(ROOT / inc)
        for name, repo in (data.get("repos") or {}).items():
            repo = repo or {}
            if repo.get("url"):
                pins[name] = repo.get("commit")
    load(ROOT / kasfile)
    return pins


def all_pins() -> dict:
    """Pins of every kas entry file; a repository pinned differently by two
    files is an error (they share kas/include/)."""
    pins: dict = {}
    for kf in KASFILES:
        for name, commit in kas_pins(kf).items():
            if pins.setdefault(name, commit) != commit:
                raise SystemExit(f"{kf}: {name} pinned to {commit}, elsewhere to {pins[name]}")
    return pins


def tarball(name: str, commit: str, folder: pathlib.Path) -> pathlib.Path:
    return folder / f"{name}-{(commit or '')[:12]}.tar.xz"


def tar_commit(path: pathlib.Path) -> str:
    """The commit recorded by `git archive` in the tarball's pax header."""
    xz = subprocess.Popen(["xz", "-dc", str(path)], stdout=subprocess.PIPE)
    res = subprocess.run(["git", "get-tar-commit-id"], stdin=xz.stdout, capture_output=True, text=True)
    xz.stdout.close()
    xz.wait()
    return res.stdout.strip()


def problems(folder: pathlib.Path) -> list:
    """Every kas pin without a snapshot holding exactly that commit."""
    out = []
    for name, commit in sorted(all_pins().items()):
        if not commit or len(commit) != 40:
            out.append(f"{name}: not pinned by a full `commit:` (got {commit!r})")
            continue
        path = tarball(name, commit, folder)
        if not path.is_file():
            out.append(f"{name}: no snapshot {path.name} in {folder} for the pinned commit {commit}")
            continue
        got = tar_commit(path)
        if got != commit:
            out.append(f"{name}: {path.name} holds commit {got or '(none)'}, the kas pin is {commit}")
    return out


def extract(dest: pathlib.Path, folder: pathlib.Path) -> list:
    """Extract every pinned repository to DEST/NAME (cached by commit)."""
    dest.mkdir(parents=True, exist_ok=True)
    done = []
    for name, commit in sorted(all_pins().items()):
        stamp = dest / f"{name}.commit"
        if stamp.is_file() and stamp.read_text().strip() == commit and (dest / name).is_dir():
            done.append((name, "cached"))
            continue
        shutil.rmtree(dest / name, ignore_errors=True)
        subprocess.run(["tar", "-C", str(dest), "-xJf", str(tarball(name, commit, folder))], check=True)
        stamp.write_text(commit + "\n")
        done.append((name, "extracted"))
    return done


def main() -> int:
    folder = snapshot_dir()
    if len(sys.argv) >= 2 and sys.argv[1] == "check":
        bad = problems(folder)
        for p in bad:
            print(f"snapshots: {p}", file=sys.stderr)
        if not bad:
            print(f"snapshots: every kas pin has its snapshot in {folder}")
        return 1 if bad else 0
    if len(sys.argv) == 3 and sys.argv[1] == "extract":
        bad = problems(folder)
        if bad:
            for p in bad:
                print(f"snapshots: {p}", file=sys.stderr)
            return 1
        for name, how in extract(pathlib.Path(sys.argv[2]), folder):
            print(f"snapshots: {name}: {how}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
