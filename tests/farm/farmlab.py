"""A labgrid farm on localhost for the farm tests: the coordinator, an exporter
and a place whose DUT and tester are the namespaces of a `zynq-net lab`, each
with a real OpenSSH server.

```
 host (coordinator, exporter, zynq-net-farm, ssh)
   │ 10.203.N.1/30 ─veth─ mgmt0 10.203.N.2    │ 10.203.N+1.1/30 ─veth─ mgmt0 10.203.N+1.2
   ▼                                           ▼
 LAB-client  eth0 10.201.N.2 ──veth── LAB-router ──veth── eth0 10.201.N+1.2  LAB-server
 (tester: sshd, iperf3 peer)                              (DUT: sshd, iperf3 end)
```

The host reaches each namespace's test-path address over its management
veth (a /32 route), so one address per end serves SSH and traffic, as a
board's NetworkService does on a flat lab network.
"""
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
FARM_SCRIPT = ROOT / "scripts" / "zynq-net-farm"
HERE = pathlib.Path(__file__).resolve().parent
SSHD = "/usr/sbin/sshd"
VENV_BIN = pathlib.Path(sys.executable).parent


def tool(name):
    """A labgrid console script of the interpreter running the tests."""
    p = VENV_BIN / name
    return str(p) if p.exists() else (shutil.which(name) or name)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(pred, timeout, what, proc=None, log=None):
    deadline = time.monotonic() + timeout
    while True:
        if pred():
            return
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{what}: process exited {proc.returncode}\n{log.read_text() if log else ''}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s\n{log.read_text()[-3000:] if log else ''}")
        time.sleep(0.1)


def ip(*args):
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    assert r.returncode == 0, f"ip {' '.join(args)}: {r.stderr}"


class Sshd:
    """An OpenSSH server inside a namespace, key-only, on a management veth
    from the host; the host routes the namespace's test-path address over it."""

    def __init__(self, d: pathlib.Path, netns, host_if, mgmt_host, mgmt_ns, test_addr, key_pub):
        self.d, self.netns, self.host_if = d, netns, host_if
        self.mgmt_host, self.mgmt_ns, self.test_addr = mgmt_host, mgmt_ns, test_addr
        self.key_pub = key_pub
        self.proc = None

    def start(self):
        d = self.d
        d.mkdir(parents=True, exist_ok=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / "hostkey")], check=True)
        (d / "authorized_keys").write_text(self.key_pub)
        (d / "sshd_config").write_text(
            f"ListenAddress 0.0.0.0\nHostKey {d / 'hostkey'}\nAuthorizedKeysFile {d / 'authorized_keys'}\n"
            "PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            f"UsePAM no\nStrictModes no\nPidFile {d / 'sshd.pid'}\nMaxStartups 50\nMaxSessions 50\n")
        os.makedirs("/run/sshd", exist_ok=True)
        subprocess.run(["ip", "link", "del", self.host_if], capture_output=True)
        ip("link", "add", "name", self.host_if, "type", "veth", "peer", "name", "mgmt0", "netns", self.netns)
        ip("addr", "add", f"{self.mgmt_host}/30", "dev", self.host_if)
        ip("link", "set", self.host_if, "up")
        ip("-n", self.netns, "addr", "add", f"{self.mgmt_ns}/30", "dev", "mgmt0")
        ip("-n", self.netns, "link", "set", "mgmt0", "up")
        ip("route", "replace", f"{self.test_addr}/32", "via", self.mgmt_ns)
        self.log = d / "sshd.log"
        self.proc = subprocess.Popen(["ip", "netns", "exec", self.netns, SSHD, "-D", "-e", "-f", str(d / "sshd_config")],
                                     stdout=subprocess.DEVNULL, stderr=self.log.open("w"))

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        subprocess.run(["ip", "route", "del", f"{self.test_addr}/32"], capture_output=True)
        subprocess.run(["ip", "link", "del", self.host_if], capture_output=True)


class Farm:
    """labgrid-coordinator + labgrid-exporter on 127.0.0.1, and the netns place."""

    def __init__(self, tmp: pathlib.Path, zynq_net, lab, subnet):
        self.tmp, self.zynq_net, self.lab, self.subnet = tmp, zynq_net, lab, subnet
        self.procs = []
        self.sshds = []
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.exporter_name = f"znfarm{os.getpid()}"
        self.key = tmp / "id"
        self.tester_addr = f"10.201.{subnet}.2"
        self.dut_addr = f"10.201.{subnet + 1}.2"
        self.env = dict(os.environ, LG_COORDINATOR=self.address, PATH=f"{VENV_BIN}:{os.environ['PATH']}",
                        ZYNQ_NET_BIN=str(zynq_net))

    # ---- processes

    def spawn(self, name, cmd, cwd=None, env=None):
        log = self.tmp / f"{name}.log"
        p = subprocess.Popen(cmd, cwd=cwd or self.tmp, stdout=log.open("w"), stderr=subprocess.STDOUT,
                             env=env or self.env, start_new_session=True)
        self.procs.append(p)
        return p, log

    def client(self, *args, check=True, timeout=60):
        """labgrid-client against this farm (what a lab admin types)."""
        r = subprocess.run([tool("labgrid-client"), "-x", self.address, *args], capture_output=True, text=True,
                           env=self.env, timeout=timeout)
        if check:
            assert r.returncode == 0, f"labgrid-client {' '.join(args)} -> {r.returncode}\n{r.stdout}\n{r.stderr}"
        return r

    def farm_cmd(self, *args):
        return [sys.executable, str(FARM_SCRIPT), "--coordinator", self.address,
                "--lease-dir", str(self.tmp / "leases"), *args]

    def run_farm(self, *args, timeout=300):
        return subprocess.run(self.farm_cmd(*args), capture_output=True, text=True, env=self.env, timeout=timeout)

    def popen_farm(self, *args, stdout=None, stderr=None):
        return subprocess.Popen(self.farm_cmd(*args), stdout=stdout or subprocess.PIPE,
                                stderr=stderr or subprocess.PIPE, text=True, env=self.env, start_new_session=True)

    def status(self):
        r = self.run_farm("status", "--json", timeout=60)
        assert r.returncode == 0, r.stderr
        return {x["place"]: x for x in json.loads(r.stdout)}

    # ---- up / down

    def start_coordinator(self):
        coord_dir = self.tmp / "coordinator"
        coord_dir.mkdir(exist_ok=True)
        p, log = self.spawn("coordinator", [tool("labgrid-coordinator"), "-l", self.address], cwd=coord_dir)

        def up():
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", self.port)) == 0
        wait_for(up, 30, "labgrid-coordinator", p, log)
        self.coordinator = p

    def start_exporter(self, name, config, env=None):
        p, log = self.spawn(f"exporter-{name}", [tool("labgrid-exporter"), "-c", self.address, "-n", name,
                                                 "--hostname", "localhost", str(config)], env=env)
        wait_for(lambda: name in self.client("resources", check=False).stdout, 30, f"exporter {name}", p, log)
        return p

    def __enter__(self):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.key)], check=True)
        pub = (self.tmp / "id.pub").read_text()
        subprocess.run([str(self.zynq_net), "lab", "down", "--name", self.lab], capture_output=True)
        r = subprocess.run([str(self.zynq_net), "lab", "up", "--name", self.lab, "--subnet", str(self.subnet)],
                           capture_output=True, text=True)
        assert r.returncode == 0, f"lab up: {r.stdout}\n{r.stderr}"
        self.lab_up = True
        try:
            n = self.subnet
            for role, ns, host_if, test_addr, k in (("tester", f"{self.lab}-client", f"{self.lab}-mt", self.tester_addr, n),
                                                   ("dut", f"{self.lab}-server", f"{self.lab}-md", self.dut_addr, n + 1)):
                s = Sshd(self.tmp / f"sshd-{role}", ns, host_if, f"10.203.{k}.1", f"10.203.{k}.2", test_addr, pub)
                self.sshds.append(s)
                s.start()
            for s in self.sshds:
                wait_for(lambda s=s: self.ssh_ok(s.test_addr), 20, f"sshd in {s.netns}", s.proc, s.log)
            self.start_coordinator()
            env = dict(self.env, ZNFARM_LAB=self.lab, ZNFARM_DUT_ADDR=self.dut_addr, ZNFARM_TESTER_ADDR=self.tester_addr)
            self.start_exporter(self.exporter_name, HERE / "exporter-netns.yaml", env=env)
            self.place = "znfarm-netns"
            self.client("-p", self.place, "create")
            self.client("-p", self.place, "add-match", f"{self.exporter_name}/netns-dut/*")
            self.client("-p", self.place, "set-tags", "board=netns_lab", "tester=veth")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def ssh_ok(self, addr):
        r = subprocess.run(["ssh", "-i", str(self.key), "-F", "none", "-o", "BatchMode=yes", "-o", "ConnectTimeout=2",
                            "-o", "UserKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=no",
                            "-o", "LogLevel=ERROR", f"root@{addr}", "true"], capture_output=True)
        return r.returncode == 0

    def __exit__(self, *exc):
        for p in reversed(self.procs):
            if p.poll() is None:
                os.killpg(p.pid, 15)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, 9)
                    p.wait()
        for s in self.sshds:
            s.stop()
        if getattr(self, "lab_up", False):
            subprocess.run([str(self.zynq_net), "lab", "down", "--name", self.lab], capture_output=True)
