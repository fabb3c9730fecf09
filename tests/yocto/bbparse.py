#!/usr/bin/env python3
"""Parse the zynq-net layers with a real bitbake, offline, using the layer
list, machine and local.conf lines of one of the project's kas files.

    ZYNQ_NET_YOCTO_DIR=DIR tests/yocto/bbparse.py kas/p1020rdb.yml [--env RECIPE...]

ZYNQ_NET_YOCTO_DIR is a folder holding one tree per repository of the kas
file, named like the kas repo key (poky/, meta-openembedded/, meta-arm/,
meta-xilinx/, meta-xilinx-tools/, meta-freescale/) at the pinned commits:
`tests/yocto/snapshots.py extract DIR` makes it from the snapshots in
../shared/yocto. The kas file's own repository is this checkout, or
ZYNQ_NET_YOCTO_PROJECT (a copy the bitbake user can read). No network is
used (BB_NO_NETWORK = "1"): this checks that every layer parses and that the
image's task graph resolves, not that it builds.

Runs `bitbake -p`, `bitbake -g TARGET` and, for each RECIPE after --env,
`bitbake -e RECIPE`, all on one bitbake server; task-depends.dot,
pn-buildlist and env-RECIPE.txt go to BUILD/zynq-net-results/NAME/. The
build folder (ZYNQ_NET_YOCTO_BUILD, default DIR/build-zynq-net) keeps
bitbake's parse cache: a second run reparses only what changed. Several kas
files may share it (conf/ is rewritten per run; bitbake keeps one recipe
cache per configuration and one code-parser cache for all).

A repository listed in ZYNQ_NET_YOCTO_OPTIONAL (default: none) may be
missing; it is then left out and reported. bitbake refuses to run as root,
so as root the parse runs as ZYNQ_NET_BBUSER (default "bb", created if
needed).

Prints one line `bbparse: NAME machine=M recipes=N cached=N errors=N
seconds=N (parse=N graph=N env=N) graph(TARGET)=ok|failed` and exits
non-zero when the parse, the task graph or a `bitbake -e` fails.
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
BB_SERVER_TIMEOUT = "30"
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


def layer_paths(kas: dict, yocto: pathlib.Path, optional: set,
                project: pathlib.Path = ROOT) -> tuple[list, list]:
    """Layer folders of the kas repos: this project (no url) at PROJECT, the
    others at YOCTO/NAME; a missing repo in OPTIONAL is left out."""
    layers, missing = [], []
    for name, repo in kas["repos"].items():
        base = project if not repo.get("url") else yocto / name
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
    # bash, whatever the user's login shell: `. ./oe-init-build-env DIR`
    # passes DIR only in bash (dash's `.` drops it, and bitbake then ran in
    # the read-only poky folder: "bitbake.lock ... not writable").
    return ["su", user, "-s", "/bin/bash", "-c", cmd]


def main() -> int:
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    kasfile = ROOT / args[0]
    recipes = args[args.index("--env") + 1:] if "--env" in args else []
    yocto = pathlib.Path(os.environ["ZYNQ_NET_YOCTO_DIR"]).resolve()
    project = pathlib.Path(os.environ.get("ZYNQ_NET_YOCTO_PROJECT", ROOT)).resolve()
    optional = set(os.environ.get("ZYNQ_NET_YOCTO_OPTIONAL", "").split())
    kas = load_kas(kasfile)
    layers, missing = layer_paths(kas, yocto, optional, project)
    name = kasfile.stem
    build = pathlib.Path(os.environ.get("ZYNQ_NET_YOCTO_BUILD", yocto / "build-zynq-net"))
    (build / "conf").mkdir(parents=True, exist_ok=True)
    local = [f'MACHINE = "{kas["machine"]}"', f'DISTRO = "{kas["distro"] or "poky"}"',
             f'DL_DIR = "{build}/downloads"', f'SSTATE_DIR = "{build}/sstate"']
    for _, text in sorted(kas["local_conf_header"].items()):
        local.append(text)
    extra = os.environ.get("ZYNQ_NET_YOCTO_LOCAL_CONF", "")
    write_if_changed(build / "conf" / "local.conf", "\n".join(local) + OFFLINE_CONF + extra + "\n")
    write_if_changed(build / "conf" / "bblayers.conf",
                     'BBPATH = "${TOPDIR}"\nBBFILES ?= ""\nBBLAYERS = " \\\n'
                     + "".join(f"    {p} \\\n" for p in layers) + '"\n')
    # Results of this kas file (several kas files may share one build
    # folder, and so bitbake's code-parser cache in TMPDIR/cache).
    results = build / "zynq-net-results" / name
    results.mkdir(parents=True, exist_ok=True)
    for old in results.iterdir():
        old.unlink()
    if os.geteuid() == 0:
        user = os.environ.get("ZYNQ_NET_BBUSER", "bb")
        subprocess.run(as_user("true"), check=True)  # creates the user
        subprocess.run(["chown", "-R", user, str(build)], check=True)
    poky = yocto / "poky"
    target = kas["target"] or "core-image-minimal"
    for m in missing:
        print(f"bbparse: NOTE: {m} not under {yocto}: parsed without it", flush=True)
    # One bitbake server for every command (BB_SERVER_TIMEOUT): the recipe
    # cache is loaded once; `bitbake -m` stops it at the end.
    res_q = shlex.quote(str(results))
    env_cmds = "".join(f"bitbake -e {shlex.quote(r)} > {res_q}/env-{shlex.quote(r.replace('/', '_'))}.txt 2>&1; "
                       f"echo BBENV_RC_{r.replace('/', '_').replace('-', '_')}=$?; " for r in recipes)
    script = (f"export LANG=en_US.UTF-8; cd {shlex.quote(str(poky))} && "
              f". ./oe-init-build-env {shlex.quote(str(build))} >/dev/null && "
              "t0=$(date +%s); bitbake -p 2>&1; echo BBPARSE_RC=$?; t1=$(date +%s); "
              f"bitbake -g {shlex.quote(target)} 2>&1 | tail -n 20; echo BBGRAPH_RC=${{PIPESTATUS[0]}}; "
              f"cp task-depends.dot pn-buildlist {res_q}/ 2>/dev/null; t2=$(date +%s); "
              f"{env_cmds}t3=$(date +%s); bitbake -m >/dev/null 2>&1; "
              "echo BBTIMES parse=$((t1-t0)) graph=$((t2-t1)) env=$((t3-t2))")
    t0 = time.monotonic()
    out = subprocess.run(as_user(script), capture_output=True, text=True).stdout
    secs = time.monotonic() - t0
    sys.stdout.write(out[-20000:])
    m = re.search(r"Parsing of (\d+) \.bb files complete \((\d+) cached, (\d+) parsed\)\. (\d+) targets, (\d+) skipped",
                  out)
    recipes_n = int(m.group(1)) if m else 0
    errors = len(re.findall(r"^ERROR:", out, re.M))
    prc = re.search(r"BBPARSE_RC=(\d+)", out)
    grc = re.search(r"BBGRAPH_RC=(\d+)", out)
    ok = bool(m) and prc and prc.group(1) == "0" and errors == 0
    graph = "ok" if grc and grc.group(1) == "0" else "failed"
    bad_env = [r for r in recipes
               if not re.search(rf"BBENV_RC_{re.escape(r.replace('/', '_').replace('-', '_'))}=0", out)]
    times = re.search(r"BBTIMES (.*)", out)
    summary = (f"bbparse: {name} machine={kas['machine']} recipes={recipes_n} "
               f"cached={m.group(2) if m else 0} errors={errors} seconds={secs:.0f} "
               f"({times.group(1) if times else '?'}) graph({target})={graph}"
               + (f" env-failed={','.join(bad_env)}" if bad_env else "")
               + (f" without={','.join(missing)}" if missing else ""))
    print(summary)
    # Kept beside the results (and appended to a log of every run, for the
    # fresh/cached timings): CI shows test output only on failure.
    (results / "summary.txt").write_text(summary + "\n")
    with open(build / "zynq-net-results" / "runs.log", "a") as log:
        log.write(time.strftime("%Y-%m-%dT%H:%M:%SZ ", time.gmtime()) + summary + "\n")
    return 0 if ok and graph == "ok" and not bad_env else 1


def write_if_changed(path: pathlib.Path, text: str) -> None:
    """Keep the file (and its mtime) when the text is the same: bitbake
    reparses everything when local.conf or bblayers.conf changes."""
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
