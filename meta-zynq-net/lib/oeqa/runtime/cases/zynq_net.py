#
# SPDX-License-Identifier: MIT
#
"""Runtime checks of the zynq-net boot-time tuning on a booted image.

Run with testimage (e.g. kas/qemuarm64.yml):
    bitbake zynq-net-image -c testimage
TEST_SUITES of zynq-net-image include "zynq_net".
"""

from oeqa.runtime.case import OERuntimeTestCase
from oeqa.core.decorator.depends import OETestDepends
from oeqa.runtime.decorator.package import OEHasPackage

PLAN = '/etc/zynq-net/zynq-net.plan'
APPLY = '/usr/sbin/zynq-net-apply'


class ZynqNetTest(OERuntimeTestCase):

    @OETestDepends(['ssh.SSHTest.test_ssh'])
    @OEHasPackage(['zynq-net-tuning'])
    def test_zynq_net_plan_installed(self):
        status, output = self.target.run(
            "grep -v -e '^#' -e '^[[:space:]]*$' %s | head -n 1" % PLAN)
        msg = 'plan %s missing or unreadable: %s' % (PLAN, output)
        self.assertEqual(status, 0, msg=msg)
        msg = 'plan %s does not start with "zynq-net-plan 2": %s' % (PLAN, output)
        self.assertEqual(output.strip(), 'zynq-net-plan 2', msg=msg)

    @OETestDepends(['zynq_net.ZynqNetTest.test_zynq_net_plan_installed'])
    def test_zynq_net_ran_at_boot(self):
        # The init system ran the applier: a systemd unit that succeeded, or
        # the sysvinit link in the runlevel folders.
        status, output = self.target.run('test -d /run/systemd/system')
        if status == 0:
            status, output = self.target.run('systemctl show -p Result -p ActiveState zynq-net.service')
            msg = 'zynq-net.service did not finish successfully: %s' % output
            self.assertIn('Result=success', output, msg=msg)
        else:
            status, output = self.target.run('ls /etc/rcS.d/ | grep zynq-net')
            msg = 'zynq-net init script not linked in /etc/rcS.d: %s' % output
            self.assertEqual(status, 0, msg=msg)

    @OETestDepends(['zynq_net.ZynqNetTest.test_zynq_net_plan_installed'])
    def test_zynq_net_status(self):
        # Exit 0: every step ok; 3: some skipped (absent interface or file),
        # differing or failed. Skipped is fine on QEMU; differing or failed
        # means the boot-time tuning did not stick.
        status, output = self.target.run('%s status --json %s' % (APPLY, PLAN))
        msg = '%s status exited %d; its report:\n%s' % (APPLY, status, output)
        self.assertIn(status, (0, 3), msg=msg)
        self.assertIn('"command":"status"', output, msg=msg)
        for bad in ('"result":"differs"', '"result":"failed"'):
            self.assertNotIn(bad, output, msg=msg)
