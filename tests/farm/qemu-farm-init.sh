#!/bin/sh
# /farm-init of an emulated board booked as a labgrid place
# (tests/farm/test_farm_qemu.py; farm/env/qemu-zcu102.yaml,
# qemu-p1020.yaml, qemu-zynq7000.yaml): the initramfs that the board's
# scripts/qemu-* harness builds (--no-boot), plus this file in an appended
# cpio, booted with rdinit=/farm-init. It does what an image's boot does for
# zynq-net (modules when the initramfs has them, links up, the addresses of
# /etc/zynq-net/qemu.env when the harness wrote a lab's, the boot-time
# `zynq-net-apply apply`) and then gives labgrid's ShellDriver an
# interactive shell on the console (the last console= of the command line),
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
if [ -r /lib/modules/load.order ]; then
    while read -r m; do
        insmod "/lib/modules/$m" || echo "farm-init: insmod $m failed"
    done </lib/modules/load.order
fi
i=0
while [ ! -e /sys/class/net/eth0 ] && [ "$i" -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
eth0_addr=""
eth1_addr=""
if [ -r /etc/zynq-net/qemu.env ]; then
    while IFS='=' read -r k v; do
        case $k in
        eth0_addr) eth0_addr=$v ;;
        eth1_addr) eth1_addr=$v ;;
        esac
    done </etc/zynq-net/qemu.env
fi
ip link set lo up
for d in /sys/class/net/eth*; do
    [ -e "$d" ] && ip link set "${d##*/}" up
done
[ -z "$eth0_addr" ] || ip addr add "$eth0_addr" dev eth0
[ -z "$eth1_addr" ] || ip addr add "$eth1_addr" dev eth1
/usr/sbin/zynq-net-apply apply --quiet /etc/zynq-net/zynq-net.plan
echo "farm-init: boot-time zynq-net-apply exited $?"
tty=ttyS0
read -r cmdline </proc/cmdline
for w in $cmdline; do
    case $w in console=*) tty=${w#console=} tty=${tty%%,*} ;; esac
done
case $tty in *[!A-Za-z0-9]* | "") tty=ttyS0 ;; esac
# kernel messages off the console, as labgrid's ShellDriver does after a
# login (there is none here): they would land inside command output
dmesg -n 1
PS1='znfarm-qemu# '
export PS1
exec setsid -c sh -i <>"/dev/$tty" >&0 2>&1
