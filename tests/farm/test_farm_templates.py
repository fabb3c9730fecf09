"""The farm templates (farm/) against labgrid's own loaders, and docs/farm.md
walked against a localhost farm.

- farm/exporter/lab.yaml through labgrid's ResourceConfig (the exporter's
  loader: Jinja2 with `#` line statements, then YAML) and each resource's
  attrs validators (target_factory);
- docs/farm.md: every ```sh block not marked `<!-- not walked: ... -->`,
  line by line, against a farm the walk itself starts (its coordinator and
  exporter lines; port 20408 replaced by a free one); the exporter serves
  the three boards' consoles from ptys (socat) through ser2net;
- each farm/env/*.yaml through labgrid's Environment on its acquired place:
  every driver and ZynqNetStrategy bound, a byte written through the
  ZCU102's SerialDriver arrives at the board side of its pty;
- ZynqNetStrategy `tuned` on the netns place of tests/farm/farmlab.py, over
  a console served by ser2net with a shell of the DUT namespace behind it.

Not covered (needs the boards): power, U-Boot, a login, a boot.
"""
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
import warnings

import pytest

from farmlab import ROOT, VENV_BIN, free_port, tool, wait_for

DOC = ROOT / "docs" / "farm.md"
LAB = ROOT / "farm" / "exporter" / "lab.yaml"
BOARDS = {"zcu102-1": "ZCU102_1", "zc702-1": "ZC702_1", "p1020rdb-1": "P1020RDB_1"}


def need_tools():
    pytest.importorskip("labgrid", reason="labgrid is not installed (scripts/deps/pip.txt)")
    for t in ("socat", "ser2net"):
        if shutil.which(t) is None and not os.path.exists(f"/usr/sbin/{t}"):
            pytest.skip(f"{t} is not installed (scripts/install-deps)")


def test_exporter_template_loads_with_labgrid():
    need_tools()
    from labgrid.factory import target_factory
    from labgrid.remote.config import ResourceConfig
    from labgrid.target import Target
    cfg = ResourceConfig(str(LAB), {"env": {}, "isolated": False, "hostname": "tester1", "name": "tester1"})
    assert sorted(cfg.data) == sorted(BOARDS), cfg.data.keys()
    seen = set()
    for group, resources in cfg.data.items():
        names = {k for k in resources if k != "location"}
        assert names == {"console", "power", "dut", "tester"}, (group, names)
        for name, params in resources.items():
            if name == "location":
                continue
            params = dict(params)
            cls = params.pop("cls")
            seen.add(cls)
            # the class's own validators (attrs): types of every key; a key
            # the class does not have is only a warning in labgrid's
            # factory (filter_dict): an error here
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                target_factory.make_resource(Target(f"check-{group}"), cls, name, params)
        assert resources["console"]["port"].startswith("/dev/serial/by-id/")
        assert resources["console"]["speed"] == 115200
    assert seen == {"RawSerialPort", "NetworkPowerPort", "NetworkService", "NetworkInterface"}
    # the console path comes from the environment when given (how the walk serves ptys)
    cfg = ResourceConfig(str(LAB), {"env": {"ZYNQ_NET_FARM_CONSOLE_ZC702_1": "/tmp/x"}, "isolated": False})
    assert cfg.data["zc702-1"]["console"]["port"] == "/tmp/x"


def test_exporter_template_errors_are_labgrids(tmp_path):
    """A single-# comment is a Jinja line statement for labgrid's loader: the
    reason the templates' comments are ##; and a key the resource does not
    have is refused by its validators."""
    need_tools()
    import jinja2
    from labgrid.factory import target_factory
    from labgrid.remote.config import ResourceConfig
    from labgrid.target import Target
    path = tmp_path / "lab.yaml"
    path.write_text("# a comment with one hash\n" + LAB.read_text())
    with pytest.raises(jinja2.TemplateSyntaxError):
        ResourceConfig(str(path), {"env": {}})
    with warnings.catch_warnings(), pytest.raises(UserWarning, match="unsupported attribute 'speeed'"):
        warnings.simplefilter("error")
        target_factory.make_resource(Target("check"), "RawSerialPort", "console", {"port": "/dev/x", "speeed": 1})
    from labgrid.exceptions import InvalidConfigError
    with pytest.raises(InvalidConfigError, match="failed to create NetworkPowerPort"):
        target_factory.make_resource(Target("check"), "NetworkPowerPort", "power", {"model": "gude24", "host": "h"})


# ---------------------------------------------------------------- the walk

def doc_blocks(text):
    """(lines, walked) of every ```sh block; a block right after a
    `<!-- not walked: ... -->` line is not walked."""
    blocks = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            prev = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            body = []
            i += 1
            while lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            # join continuation lines
            joined, cur = [], ""
            for ln in body:
                cur += ln[:-1] + " " if ln.endswith("\\") else ln
                if not ln.endswith("\\"):
                    joined.append(cur.strip())
                    cur = ""
            blocks.append((joined, not prev.strip().startswith("<!-- not walked")))
        i += 1
    return blocks


class Walk:
    def __init__(self, tmp: pathlib.Path):
        self.tmp = tmp
        self.port = free_port()
        self.procs = []
        self.env = dict(os.environ, PATH=f"{VENV_BIN}:{os.environ['PATH']}")
        self.env.pop("LG_COORDINATOR", None)
        self.log = []
        for d in ("farm", "scripts"):
            (tmp / d).symlink_to(ROOT / d)
        self.uart = {}
        # labgrid's exporter serves serial ports under /dev only
        # (exporter.py SerialPortExport._start): the pty links go there
        self.links, self.fds = [], []
        for place, var in BOARDS.items():
            console = pathlib.Path(f"/dev/znfarm{os.getpid()}-{place}")
            uart = tmp / f"{place}-uart"
            self.links.append(console)
            p = subprocess.Popen(["socat", f"PTY,link={console},raw,echo=0", f"PTY,link={uart},raw,echo=0"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            self.procs.append(p)
            wait_for(lambda: console.exists() and uart.exists(), 10, f"socat ptys for {place}", p)
            self.env[f"ZYNQ_NET_FARM_CONSOLE_{var}"] = str(console)
            # hold both pty slaves open for the module: when the last
            # holder of a slave closes it (ser2net at each release), reads
            # on its master fail with EIO and socat exits, which left the
            # next acquire with a dead console
            self.fds += [os.open(console, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)]
            self.uart[place] = os.open(uart, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            self.fds.append(self.uart[place])

    def line(self, cmd):
        cmd = cmd.replace("20408", str(self.port))
        self.log.append(cmd)
        if cmd.startswith("export "):
            k, _, v = cmd[len("export "):].partition("=")
            self.env[k] = v
            return
        if cmd.startswith(". "):
            for ln in (self.tmp / cmd[2:].strip()).read_text().splitlines():
                m = re.fullmatch(r"export (\w+)=(.*)", ln.strip())
                if m:
                    self.env[m.group(1)] = shlex.split(m.group(2))[0]
            return
        if cmd.endswith("&"):
            argv = shlex.split(cmd[:-1])
            logf = self.tmp / f"bg{len(self.procs)}.log"
            p = subprocess.Popen(argv, cwd=self.tmp, env=dict(self.env), stdout=logf.open("w"),
                                 stderr=subprocess.STDOUT, start_new_session=True)
            self.procs.append(p)
            if argv[0] == "labgrid-coordinator":
                import socket

                def up():
                    with socket.socket() as s:
                        return s.connect_ex(("127.0.0.1", self.port)) == 0
                wait_for(up, 30, cmd, p, logf)
            elif argv[0] == "labgrid-exporter":
                name = argv[argv.index("-n") + 1]
                wait_for(lambda: len(re.findall(rf"^{name}/", self.client("resources").stdout, re.M)) == 12,
                         30, cmd, p, logf)
            return
        r = subprocess.run(cmd, shell=True, cwd=self.tmp, env=self.env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, f"docs/farm.md: `{cmd}` -> {r.returncode}\n{r.stdout}\n{r.stderr}"
        return r

    def client(self, *args):
        return subprocess.run([tool("labgrid-client"), "-x", f"127.0.0.1:{self.port}", *args], cwd=self.tmp,
                              env=self.env, capture_output=True, text=True, timeout=60)

    def close(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                os.killpg(p.pid, 15)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, 9)
                    p.wait()
        for fd in self.fds:
            os.close(fd)
        for link in self.links:
            if link.is_symlink():
                link.unlink()


@pytest.fixture(scope="module")
def walked(tmp_path_factory):
    need_tools()
    w = Walk(tmp_path_factory.mktemp("walk"))
    try:
        blocks = doc_blocks(DOC.read_text())
        walked = [b for b, ok in blocks if ok]
        assert len(walked) >= 2 and len(blocks) > len(walked), blocks
        w.outputs = [[w.line(cmd) for cmd in block] for block in walked]
        yield w
    finally:
        w.close()


def test_docs_walk(walked):
    places = walked.client("places").stdout.split()
    assert sorted(places) == sorted(BOARDS), places
    show = walked.client("-p", "zcu102-1", "show").stdout
    assert "tags: board=zcu102, link=1g, soc=zynqmp" in show, show
    assert "tester1/zcu102-1/NetworkSerialPort/console" in show and "RemoteNetworkInterface/tester" in show, show
    # everything the walk booked was returned
    st = subprocess.run([sys.executable, str(ROOT / "scripts" / "zynq-net-farm"), "--coordinator",
                         f"127.0.0.1:{walked.port}", "status", "--json"], capture_output=True, text=True,
                        env=walked.env)
    assert st.returncode == 0, st.stderr
    rows = {r["place"]: r for r in json.loads(st.stdout)}
    assert sorted(rows) == sorted(BOARDS) and all(r["holder"] == "free" for r in rows.values()), rows
    assert "Reservation" not in walked.client("reservations").stdout
    # the walk ran the hand booking: the reservation was allocated to the P1020RDB
    assert any(c.startswith("labgrid-client -p + acquire") for c in walked.log), walked.log


CHECK_ENV = r"""
import json, sys
from labgrid import Environment
env = Environment(sys.argv[1])
t = env.get_target("main")
s = t.get_driver("Strategy", activate=False)
ssh = t.get_driver("SSHDriver", activate=False)
res = {"drivers": sorted(type(d).__name__ for d in t.drivers),
       "strategy": type(s).__name__,
       "bound": {k: type(getattr(s, k)).__name__ for k in ("power", "console", "uboot", "shell")},
       "dut": ssh.networkservice.address,
       "uboot_prompt": t.get_driver("UBootDriver", activate=False).prompt}
print(json.dumps(res), flush=True)
if len(sys.argv) > 2:
    con = t.get_driver("SerialDriver", activate=False)
    t.activate(con)
    con.write(sys.argv[2].encode())
    # hold the connection until the test has read the bytes at the far
    # pty (it closes stdin): a client that wrote and closed at once raced
    # ser2net's device open and lost the bytes on a loaded machine
    print("written", flush=True)
    sys.stdin.read()
"""

EXPECT = {"zcu102-1": ("zcu102", "ZynqMP> ", "192.0.2.10"), "zc702-1": ("zc702", "Zynq> ", "192.0.2.20"),
          "p1020rdb-1": ("p1020rdb", "=> ", "192.0.2.30")}


@pytest.mark.parametrize("place", sorted(BOARDS))
def test_environment_binds_on_its_place(walked, place):
    board, prompt, addr = EXPECT[place]
    r = walked.client("-p", place, "acquire")
    assert r.returncode == 0, r.stdout + r.stderr
    try:
        msg = f"zynq-net-farm {place}\n"
        uart = walked.uart[place]
        env = dict(walked.env, LG_COORDINATOR=f"127.0.0.1:{walked.port}")
        p = subprocess.Popen([sys.executable, "-c", CHECK_ENV, str(ROOT / "farm" / "env" / f"{board}.yaml"), msg],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            # a watchdog: a client that hangs before "written" is killed,
            # which ends the reads below with EOF instead of a stuck run
            watchdog = threading.Timer(120, p.kill)
            watchdog.start()
            lines = []
            while not lines or lines[-1] not in ("written\n", ""):
                lines.append(p.stdout.readline())
            watchdog.cancel()
            assert lines[-1] == "written\n", (lines, p.poll())
            res = json.loads([ln for ln in lines if ln.startswith("{")][-1])
            assert res["strategy"] == "ZynqNetStrategy", res
            assert res["bound"] == {"power": "NetworkPowerDriver", "console": "SerialDriver",
                                    "uboot": "UBootDriver", "shell": "ShellDriver"}, res
            assert res["dut"] == addr and res["uboot_prompt"] == prompt, res
            # the byte path: SerialDriver -> ser2net (started by the exporter) -> pty
            got = b""
            deadline = time.monotonic() + 30
            while msg.encode() not in got and time.monotonic() < deadline:
                try:
                    got += os.read(uart, 4096)
                except BlockingIOError:
                    pass
                time.sleep(0.05)
            assert msg.encode() in got, got
        finally:
            out, err = p.communicate(timeout=120)
        assert p.returncode == 0, out + err
    finally:
        walked.client("-p", place, "release")


# ---------------------------------------------------------------- the strategy over a console

@pytest.fixture(scope="module")
def netns_console(farm, tmp_path_factory):
    """A console on the netns place: a pty served by a second exporter
    (ser2net) with an interactive shell of the DUT namespace behind it."""
    need_tools()
    d = tmp_path_factory.mktemp("console")
    console = pathlib.Path(f"/dev/znfarm{os.getpid()}-netns-console")
    ns = f"{farm.lab}-server"
    # the prompt comes from $ENV (POSIX sh reads it when interactive): socat's
    # EXEC splits its command on blanks, so no quoted PS1 on the command line
    (d / "profile").write_text("PS1='farm-dut# '\n")
    shell = f"ip netns exec {ns} /bin/sh -i"
    p = subprocess.Popen(["socat", f"PTY,link={console},raw,echo=0", f"EXEC:{shell},pty,setsid,ctty,stderr,sane"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                         env=dict(os.environ, ENV=str(d / "profile")))
    farm.procs.append(p)
    wait_for(console.exists, 10, "socat console", p)
    held = os.open(console, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)  # see Walk: keeps socat alive
    cfg = d / "exporter.yaml"
    cfg.write_text(f"netns-console:\n  console:\n    cls: RawSerialPort\n    port: {console}\n    speed: 115200\n")
    name = f"{farm.exporter_name}c"
    farm.start_exporter(name, cfg)
    farm.client("-p", farm.place, "add-match", f"{name}/netns-console/*")
    yield console
    farm.client("-p", farm.place, "del-match", f"{name}/netns-console/*")
    os.close(held)
    if console.is_symlink():
        console.unlink()


CHECK_TUNED = r"""
import json, sys
from labgrid import Environment
t = Environment(sys.argv[1]).get_target("main")
s = t.get_driver("Strategy", activate=False)
assert s.power is None and s.uboot is None
s.force("shell")
s.transition("tuned")
status, tuning = s.status.name, s.tuning
try:  # (a failed transition leaves a labgrid strategy broken: last)
    s.transition("off")
    print("transition to off without power did not fail"); sys.exit(1)
except Exception as e:
    no_power = str(e.__cause__ or e)
print(json.dumps({"status": status, "tuning": tuning, "no_power": no_power}))
"""


def test_strategy_reaches_tuned_over_the_console(farm, netns_console, tmp_path):
    from test_farm_bench import APPLIER, BOARD
    gen = tmp_path / "gen"
    subprocess.run([str(farm.zynq_net), "gen", str(BOARD), "-o", str(gen)], check=True, capture_output=True)
    plan = tmp_path / "zynq-net.plan"
    plan.write_bytes((gen / "tuning" / "zynq-net.plan").read_bytes())
    applier = f"env ZYNQ_NET_STATE={tmp_path}/state ZYNQ_NET_LOG={tmp_path}/log ZYNQ_NET_LOCK={tmp_path}/lock sh {APPLIER}"
    r = subprocess.run(["ip", "netns", "exec", f"{farm.lab}-server", *applier.split(), "apply", str(plan)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 3), r.stdout + r.stderr
    farm.client("-p", farm.place, "acquire")
    try:
        env = dict(farm.env, LG_PLACE=farm.place, LG_ZNFARM_APPLIER=applier, LG_ZNFARM_PLAN=str(plan))
        r = subprocess.run([sys.executable, "-c", CHECK_TUNED, str(pathlib.Path(__file__).parent / "env-netns.yaml")],
                           capture_output=True, text=True, env=env, timeout=180)
    finally:
        farm.client("-p", farm.place, "release")
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads(r.stdout.splitlines()[-1])
    assert res["status"] == "tuned", res
    assert "can not transition to off: the place has no power driver" in res["no_power"], res
    # the report is the applier's status --json of the plan, read over the console
    direct = subprocess.run(["ip", "netns", "exec", f"{farm.lab}-server", *applier.split(), "status", "--json", str(plan)],
                            capture_output=True, text=True)
    assert direct.returncode == 0, direct.stdout + direct.stderr
    assert res["tuning"] == json.loads(direct.stdout), (res["tuning"], direct.stdout)
    assert "net.ipv4.tcp_rmem" in json.dumps(res["tuning"])


def test_farm_finds_the_run_directory_in_zynq_nets_own_spellings():
    """The farm reads the bench command's run directory (farm.json goes
    there) as zynq-net spells it: -o DIR, -oDIR, --output DIR, --output=DIR
    (it took --out, which zynq-net refuses, and missed --output)."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("zynq_net_farm", str(ROOT / "scripts" / "zynq-net-farm"))
    spec = importlib.util.spec_from_loader("zynq_net_farm", loader)
    farm = importlib.util.module_from_spec(spec)
    loader.exec_module(farm)
    for args in (["run", "-o", "R"], ["run", "-oR"], ["run", "--output", "R"], ["run", "--output=R"]):
        assert farm.bench_rundir(args) == "R", args
    assert farm.bench_rundir(["run", "--out", "R"]) is None


def test_farm_checks_its_files_before_the_coordinator(tmp_path):
    """`bench`'s file options (--ssh-key, --manifest, --env, the zynq-net
    binary) are checked, all at once, before the coordinator is contacted:
    with none listening, the answer is still about the files."""
    port = free_port()  # nothing listens there
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "zynq-net-farm"), "--coordinator", f"127.0.0.1:{port}",
         "--lease-dir", str(tmp_path / "leases"), "bench", "--place", "p", "--ssh-key", str(tmp_path / "no-key"),
         "--manifest", str(tmp_path / "no-manifest.json"), "--zynq-net", str(tmp_path / "no-zynq-net"),
         "bench", "run", "-o", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    for want in (f"--ssh-key {tmp_path / 'no-key'}: no such file",
                 f"--manifest {tmp_path / 'no-manifest.json'}: not a zynq-net manifest",
                 f"the zynq-net binary `{tmp_path / 'no-zynq-net'}` was not found"):
        assert f"zynq-net-farm: {want}" in r.stderr, r.stderr
    assert "coordinator" not in r.stderr, r.stderr
    assert not (tmp_path / "run").exists()
