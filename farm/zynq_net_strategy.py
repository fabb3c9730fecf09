"""labgrid strategy for a board running a zynq-net image: off -> uboot ->
shell -> tuned.

Imported by the environment files of farm/env/ (`imports:`), so
`labgrid-client -c farm/env/zcu102.yaml -p zcu102-1 -s tuned console`, a
pytest test with `--lg-env` and `target.get_driver("Strategy")` all reach
the same states:

- off:    power off (the place's NetworkPowerPort through NetworkPowerDriver);
- uboot:  power cycled, U-Boot's autoboot interrupted (UBootDriver);
- shell:  U-Boot's boot command run, logged in on the console (ShellDriver);
          without a U-Boot driver, powered on and logged in (QEMU's -kernel:
          farm/env/qemu-zcu102.yaml); unlike labgrid's UBootStrategy it does
          not wait for `systemctl is-system-running`: images may use sysvinit;
- tuned:  the boot-time tuning checked with the applier on the board
          (`applier`, `plan` attributes; defaults below),
          `zynq-net-apply status --json /etc/zynq-net/zynq-net.plan`
          (docs/applier.md: exit 0 all steps ok, 3 some skipped or
          differing); any other exit is a StrategyError naming it. The
          JSON report is kept in `self.tuning` for the test to check.

Shape: labgrid's strategy/ubootstrategy.py (v26.0.1): the same bindings and
state enum pattern, one more state.
"""
import enum
import json

import attr
from labgrid.factory import target_factory
from labgrid.strategy.common import Strategy, StrategyError, never_retry

APPLIER = "zynq-net-apply"
PLAN = "/etc/zynq-net/zynq-net.plan"


class Status(enum.Enum):
    unknown = 0
    off = 1
    uboot = 2
    shell = 3
    tuned = 4


@target_factory.reg_driver
@attr.s(eq=False)
class ZynqNetStrategy(Strategy):
    """Power, console, U-Boot and shell of a board with a zynq-net image."""

    # power and U-Boot are optional (labgrid's {CLASS, None} binding): a
    # place without them (a board on manual power, the test farm's netns
    # DUT) still reaches shell (force) and tuned
    bindings = {
        "power": {"PowerProtocol", None},
        "console": "ConsoleProtocol",
        "uboot": {"UBootDriver", None},
        "shell": "ShellDriver",
    }

    status = attr.ib(default=Status.unknown)
    plan = attr.ib(default=PLAN, validator=attr.validators.instance_of(str))
    applier = attr.ib(default=APPLIER, validator=attr.validators.instance_of(str))

    def __attrs_post_init__(self):
        super().__attrs_post_init__()
        self.tuning = None

    @never_retry
    def transition(self, status):
        if not isinstance(status, Status):
            status = Status[status]
        if status == Status.unknown:
            raise StrategyError(f"can not transition to {status}")
        if status == self.status:
            return
        if status == Status.off and self.power is None or status == Status.uboot and self.uboot is None:
            raise StrategyError(f"can not transition to {status.name}: the place has no "
                                f"{'power' if self.power is None else 'U-Boot'} driver")
        if status == Status.off:
            self.target.deactivate(self.console)
            self.target.activate(self.power)
            self.power.off()
        elif status == Status.uboot:
            self.transition(Status.off)
            self.target.activate(self.console)
            self.power.cycle()
            self.target.activate(self.uboot)
        elif status == Status.shell:
            if self.power is None:
                raise StrategyError("can not boot to a shell without a power driver: force('shell') "
                                    "when the board is already up")
            if self.uboot is None:
                # the kernel starts without a boot loader to talk to
                # (QEMU's -kernel, a board booting unattended)
                self.transition(Status.off)
                self.target.activate(self.console)
                self.power.on()
            else:
                self.transition(Status.uboot)
                self.uboot.boot("")
                self.uboot.await_boot()
            self.target.activate(self.shell)
        elif status == Status.tuned:
            if self.status != Status.shell:
                self.transition(Status.shell)
            out, _, rc = self.shell.run(f"{self.applier} status --json {self.plan}")
            if rc not in (0, 3):
                raise StrategyError(f"{self.applier} status {self.plan} exited {rc}: {' '.join(out)[-500:]}")
            # the report is one JSON document; a console may carry a line of
            # something else (a kernel message) before it
            text = "\n".join(out)
            try:
                self.tuning, _ = json.JSONDecoder().raw_decode(text[text.index("{"):])
            except ValueError as e:
                raise StrategyError(f"{self.applier} status --json printed no JSON ({e})") from None
        else:
            raise StrategyError(f"no transition found from {self.status} to {status}")
        self.status = status

    @never_retry
    def force(self, status):
        if not isinstance(status, Status):
            status = Status[status]
        if status == Status.off and self.power is None or status == Status.uboot and self.uboot is None:
            raise StrategyError(f"can not force state {status.name}: the place has no "
                                f"{'power' if self.power is None else 'U-Boot'} driver")
        if status == Status.off:
            self.target.activate(self.power)
        elif status == Status.uboot:
            self.target.activate(self.uboot)
        elif status in (Status.shell, Status.tuned):
            self.target.activate(self.shell)
        else:
            raise StrategyError(f"can not force state {status}")
        self.status = status
