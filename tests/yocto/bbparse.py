#!/usr/bin/env python3
"""Parse the zynq-net layers with a real bitbake, offline, using the layer
list, machine and local.conf lines of one of the project's kas files.

    ZYNQ_NET_YOCTO_DIR=/var/tmp/yocto tests/yocto/bbparse.py kas/p1020rdb.yml

ZYNQ_NET_YOCTO_DIR is a folder holding one checkout per repository of the
kas file, named like the kas repo key (poky/, meta-openembedded/,
meta-arm/, meta-xilinx/, meta-xilinx-tools/, meta-freescale/,
meta-lts-mixins/), on the series' branches (docs/yocto.md says how to get
them). The kas file's own repository is this checkout. No network is used
(BB_NO_NETWORK = "1"): this checks that every layer parses and that the
image's task graph resolves, not that it builds.

A repository listed in ZYNQ_NET_YOCTO_OPTIONAL (default: meta-lts-mixins)
may be missing; it is then left out and reported. bitbake refuses to run
as root, so as root the parse runs as ZYNQ_NET_BBUSER (default "bb",
created if needed).

Prints one line `bbparse: CONFIG recipes=N errors=N seconds=N graph=ok|...`
and exits non-zero when the parse or the task graph fails.
"""
import os
import pathlib
import pwd
import re
import shlex
import shutil
import subprocess
import sys
import time

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
OFFLINE_CONF = '''
# added by tests/yocto/bbparse.py: offline parse
BB_NO_NETWORK = "1"
CONNECTIVITY_CHECK_URIS = ""
BB_NUMBER_THREADS = "2"
INHERIT:remove = "create-spdx"
'''


def load_kas(path: pathlib.Path, seen=None) -> dict:
    """Merge a kas file with its includes (depth first, later wins)."""
    seen = seen or set()
    data = yaml.safe_load(path.read_text()) or {}
    merged: dict = {"repos": {}, "local_conf_header": {}, "machine": None,
                    "distro": None, "target": None}
    for inc in (data.get("header", {}) or {}).get("includes", []) or []:
        if not isinstance(inc, str):
            raise SystemExit(f"{path}: only includes from this repository are supported")
        sub = load_kas(ROOT / inc, seen)
        for key, val in sub["repos"].items():
            merged["repos"].setdefault(key, {}).update(val or {})
        merged["local_conf_header"].update(sub["local_conf_header"])
        for key in ("machine", "distro", "target"):
            merged[key] = sub[key] or merged[key]
    for key, val in (data.get("repos") or {}).items():
        merged["repos"].setdefault(key, {}).update(val or {})
    merged["local_conf_header"].update(data.get("local_conf_header") or {})
    for key in ("machine", "distro", "target"):
        merged[key] = data.get(key) or merged[key]
    if isinstance(merged["target"], list):
        merged["target"] = merged["target"][0]
    return merged


def layer_paths(kas: dict, yocto: pathlib.Path, optional: set) -> tuple[list, list]:
    layers, missing = [], []
    for name, repo in kas["repos"].items():
        base = ROOT if not repo.get("url") else yocto / name
        if not base.is_dir():
            if name in optional:
                missing.append(name)
                continue
            raise SystemExit(f"bbparse: {base} missing (checkout of kas repo '{name}')")
        sub = repo.get("layers")
        if sub is None:
            layers.append(base)
        else:
            for layer in sub:
                layers.append(base if layer in (".", "") else base / layer)
    return layers, missing


def as_user(cmd: str) -> list:
    if os.geteuid() != 0:
        return ["bash", "-c", cmd]
    user = os.environ.get("ZYNQ_NET_BBUSER", "bb")
    try:
        pwd.getpwnam(user)
    except KeyError:
        subprocess.run(["useradd", "-m", "-s", "/bin/bash", user], check=True)
    return ["su", user, "-c", cmd]


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    kasfile = ROOT / sys.argv[1]
    yocto = pathlib.Path(os.environ["ZYNQ_NET_YOCTO_DIR"]).resolve()
    optional = set(os.environ.get("ZYNQ_NET_YOCTO_OPTIONAL", "meta-lts-mixins").split())
    kas = load_kas(kasfile)
    layers, missing = layer_paths(kas, yocto, optional)
    name = kasfile.stem
    build = pathlib.Path(os.environ.get("ZYNQ_NET_YOCTO_BUILD", yocto / f"build-zynq-net-{name}"))
    (build / "conf").mkdir(parents=True, exist_ok=True)
    local = [f'MACHINE = "{kas["machine"]}"', f'DISTRO = "{kas["distro"] or "poky"}"',
             f'DL_DIR = "{yocto}/downloads"', f'SSTATE_DIR = "{yocto}/sstate"']
    for _, text in sorted(kas["local_conf_header"].items()):
        local.append(text)
    extra = os.environ.get("ZYNQ_NET_YOCTO_LOCAL_CONF", "")
    (build / "conf" / "local.conf").write_text("\n".join(local) + OFFLINE_CONF + extra + "\n")
    (build / "conf" / "bblayers.conf").write_text(
        'BBPATH = "${TOPDIR}"\nBBFILES ?= ""\nBBLAYERS = " \\\n'
        + "".join(f"    {p} \\\n" for p in layers) + '"\n')
    if os.geteuid() == 0:
        user = os.environ.get("ZYNQ_NET_BBUSER", "bb")
        as_user("true")  # creates the user
        shutil.chown(build, user)
        subprocess.run(["chown", "-R", user, str(build), str(yocto)], check=True)
    poky = yocto / "poky"
    target = kas["target"] or "core-image-minimal"
    for m in missing:
        print(f"bbparse: NOTE: {m} not under {yocto}: parsed without it", flush=True)
    script = (f"export LANG=en_US.UTF-8; cd {shlex.quote(str(poky))} && "
              f". ./oe-init-build-env {shlex.quote(str(build))} >/dev/null && "
              "bitbake -p 2>&1; echo BBPARSE_RC=$?; "
              f"bitbake -g {shlex.quote(target)} 2>&1 | tail -n 20; echo BBGRAPH_RC=${{PIPESTATUS[0]}}")
    t0 = time.monotonic()
    out = subprocess.run(as_user(script), capture_output=True, text=True).stdout
    secs = time.monotonic() - t0
    sys.stdout.write(out[-20000:])
    m = re.search(r"Parsing of (\d+) \.bb files complete \((\d+) cached, (\d+) parsed\)\. (\d+) targets, (\d+) skipped",
                  out)
    recipes = int(m.group(1)) if m else 0
    errors = len(re.findall(r"^ERROR:", out, re.M))
    prc = re.search(r"BBPARSE_RC=(\d+)", out)
    grc = re.search(r"BBGRAPH_RC=(\d+)", out)
    ok = bool(m) and prc and prc.group(1) == "0" and errors == 0
    graph = "ok" if grc and grc.group(1) == "0" else "failed"
    print(f"bbparse: {name} machine={kas['machine']} recipes={recipes} errors={errors} "
          f"seconds={secs:.0f} graph({target})={graph}"
          + (f" without={','.join(missing)}" if missing else ""))
    return 0 if ok and graph == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
