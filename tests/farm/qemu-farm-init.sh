#!/bin/sh
# /farm-init of the emulated ZCU102 booked as a labgrid place
# (tests/farm/test_farm_qemu.py, farm/env/qemu-zcu102.yaml): the initramfs
# that scripts/qemu-zcu102 builds, plus this file in an appended cpio,
# booted with rdinit=/farm-init. It does what an image's boot does for
# zynq-net (modules, links up, the boot-time `zynq-net-apply apply`) and
# then gives labgrid's ShellDriver an interactive shell on the console,
# instead of the harness's report-and-power-off /init.
/bin/busybox mkdir -p /proc /sys /dev /tmp /run /var/lib /var/log /bbin
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev 2>/dev/null
/bin/busybox --install -s /bbin
PATH=/usr/sbin:/usr/bin:/sbin:/bin:/bbin
# QEMU has no programmable logic: cap the plan's waits for the PL ports
ZYNQ_NET_WAIT_MAX=1
export PATH ZYNQ_NET_WAIT_MAX
while read -r m; do
    insmod "/lib/modules/$m" || echo "farm-init: insmod $m failed"
done </lib/modules/load.order
i=0
while [ ! -e /sys/class/net/eth0 ] && [ "$i" -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
ip link set lo up
ip link set eth0 up
/usr/sbin/zynq-net-apply apply --quiet /etc/zynq-net/zynq-net.plan
echo "farm-init: boot-time zynq-net-apply exited $?"
# kernel messages off the console, as labgrid's ShellDriver does after a
# login (there is none here): they would land inside command output
dmesg -n 1
PS1='zcu102-qemu# '
export PS1
exec setsid -c sh -i <>/dev/ttyPS0 >&0 2>&1
