#!/bin/sh
# /init of the TEST-ONLY initramfs that scripts/qemu-p1020 boots on QEMU's
# ppce500 machine (e500v2, two eTSEC ports on the gianfar driver). The
# shell is the static busybox ash built from Debian's source package;
# ethtool, ip and tc are the static builds of Debian's sources.
#
# /etc/zynq-net/qemu.env says the mode:
# - mode=status: bring eth0/eth1 up, run the applier on the generated plan
#   (apply, status --json, apply again, status), send traffic through the
#   multiq/skbedit filter, dump what the driver reports, power off;
# - mode=lab: address the ports (eth0_addr, eth1_addr), apply the plan
#   (which turns forwarding on), route RFC 2544's benchmarking networks to
#   the host ends (eth0_peer, eth1_peer: init-lib.sh lab_routes, for the
#   host's `bench rfc2544-tester`), load the board's flowtable on the
#   interfaces in `fastpath` (when set: the fast path arm), report
#   ZNQ:READY and forward until the host pings the router itself
#   (scripts/qemu-p1020 does after its command), then dump the counters,
#   the flowtables and the CPU time the forwarding took (/proc/stat at
#   ZNQ:READY and at the end; the host reads it in between over TCP).
# Results go to the console as sections (tests/qemu/init-lib.sh).

# shellcheck disable=SC2016 # the sh -c scripts below are single-quoted on purpose

# kmsg, section, guest_setup, apply_plan, ... (scripts/qemu-p1020 copies it here).
# shellcheck source=tests/qemu/init-lib.sh
. /lib/zynq-net-qemu/init-lib.sh
guest_setup

PLAN=/etc/zynq-net/zynq-net.plan
APPLY=/usr/sbin/zynq-net-apply
EXTRA=/etc/zynq-net/extra.plan
read_qemu_env

report_start
wait_netdevs eth0 eth1
section netdevs netdevs

ip link set lo up
for d in eth0 eth1; do
    ip link set "$d" up
done
[ -z "$eth0_addr" ] || ip addr add "$eth0_addr" dev eth0
[ -z "$eth1_addr" ] || ip addr add "$eth1_addr" dev eth1
sleep 1
section link-up sh -c 'for d in eth0 eth1; do ip -d link show "$d"; ethtool "$d"; done'
section before-ethtool-g sh -c 'ethtool -g eth0; ethtool -g eth1'
section before-ethtool-c sh -c 'ethtool -c eth0; ethtool -c eth1'
section interrupts-initial cat /proc/interrupts

apply_plan && section interrupts-after-apply cat /proc/interrupts

# dump: what the driver and the stack report after the plan (and traffic).
dump() {
    section interrupts cat /proc/interrupts
    section irqs sh -c '. /lib/zynq-net-qemu/init-lib.sh; irqs eth0; irqs eth1'
    for d in eth0 eth1; do
        section "ethtool-g-$d" ethtool -g "$d"
        section "ethtool-c-$d" ethtool -c "$d"
        section "ethtool-k-$d" ethtool -k "$d"
        section "queues-$d" queues "$d"
        section "tc-qdisc-$d" tc -s qdisc show dev "$d"
        section "tc-filter-$d" tc -s filter show dev "$d"
        section "link-stats-$d" ip -s link show dev "$d"
    done
    section sysctls sysctls
}

if [ "$mode" = lab ]; then
    lab_forward
else
    # Traffic through eth0: the plan's multiq filter maps 198.51.100.1 (the
    # board's management address) to a TX queue; slirp's gateway is
    # 10.0.2.2. The replies do not matter, the filter counts on egress.
    ip addr add 10.0.2.15/24 dev eth0 2>/dev/null
    ip route add 198.51.100.0/24 via 10.0.2.2 dev eth0 2>/dev/null
    # timeout: a ping that never returns must not stop the run.
    section ping-mapped timeout 15 ping -c 3 -W 2 198.51.100.1
    section ping-gw timeout 15 ping -c 3 -W 2 10.0.2.2
    dump
    if apply_extra; then
        section extra-ethtool-g sh -c 'ethtool -g eth0; ethtool -g eth1'
        section extra-ethtool-c sh -c 'ethtool -c eth0; ethtool -c eth1'
        section extra-ethtool-n ethtool -n eth1
        [ -r "$PLAN" ] && section after-extra-status-json "$APPLY" status --json "$PLAN"
    fi
fi

section dmesg-net sh -c "dmesg | grep -v ZNQ | grep -iE 'gianfar|eth[01]|etsec|mdio|phy|smp|cpu'"
kmsg "ZNQ:DONE uptime=$(cut -d' ' -f1 /proc/uptime)"
sync
poweroff -f
