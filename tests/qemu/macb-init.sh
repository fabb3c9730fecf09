#!/bin/sh
# /init of the TEST-ONLY initramfs of the two emulated GEM boards:
# scripts/qemu-zcu102 (QEMU xlnx-zcu102, eth0 = gem3, macb as a module of
# Debian's arm64 kernel) and scripts/qemu-zynq7000 (QEMU xilinx-zynq-a9,
# eth0 = gem0, macb built in; /lib/modules/load.order is empty). It loads
# the modules the script listed, then, as /etc/zynq-net/qemu.env says:
# - mode=status (or no qemu.env): brings eth0 up, runs the zynq-net
#   applier from the generated plan (apply, status --json, apply again),
#   dumps what the real driver reports and powers off;
# - mode=lab (scripts/qemu-zcu102 --lab: eth0 = gem2, eth1 = gem3): addresses
#   both ports, applies the plan (which turns forwarding on) and forwards
#   (lab_forward in init-lib.sh: the flowtable when asked, ZNQ:READY, the
#   counters when the host pings the router), dumps and powers off.
#
# Results go to the console as sections (tests/qemu/init-lib.sh).

# shellcheck disable=SC2016 # the sh -c scripts below are single-quoted on purpose

# kmsg, section, guest_setup, apply_plan, ... (the qemu-* script copies it here).
# shellcheck source=tests/qemu/init-lib.sh
. /lib/zynq-net-qemu/init-lib.sh
guest_setup

# QEMU has no programmable logic: the PL interfaces (AXI/XXV Ethernet) of
# the zcu102 board never appear, so cap every `wait` step (docs/applier.md) instead of
# spending the plan's full wait on each run.
export ZYNQ_NET_WAIT_MAX=1
PLAN=/etc/zynq-net/zynq-net.plan
APPLY=/usr/sbin/zynq-net-apply
EXTRA=/etc/zynq-net/extra.plan
IFACE=eth0
read_qemu_env

report_start

# Modules in dependency order (the qemu-* script wrote the list).
section modules sh -c 'while read -r m; do insmod "/lib/modules/$m" || echo "insmod $m failed"; done </lib/modules/load.order; cat /proc/modules'

if [ "$mode" = lab ]; then
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
    section interrupts-initial cat /proc/interrupts
    apply_plan
    # dump: what macb and the stack report after the plan and the traffic
    # (lab_forward calls it).
    dump() {
        section interrupts cat /proc/interrupts
        section irqs sh -c '. /lib/zynq-net-qemu/init-lib.sh; irqs eth0; irqs eth1'
        for d in eth0 eth1; do
            section "ethtool-g-$d" ethtool -g "$d"
            section "ethtool-S-$d" ethtool -S "$d"
            section "queues-$d" queues "$d"
            section "link-stats-$d" ip -s link show dev "$d"
        done
        section sysctls sysctls
    }
    lab_forward
    section dmesg-net sh -c "dmesg | grep -v ZNQ | grep -iE 'macb|eth[01]|ff0d0000|ff0e0000|phylink|fixed'"
    kmsg "ZNQ:DONE uptime=$(cut -d' ' -f1 /proc/uptime)"
    sync
    poweroff -f
fi

wait_netdevs "$IFACE"
section netdevs netdevs

ip link set lo up
ip link set "$IFACE" up
section link-up sh -c "sleep 0.5; ip -d link show $IFACE; ethtool $IFACE"

section before-ethtool-g ethtool -g "$IFACE"
section before-queues queues "$IFACE"

if apply_plan; then
    # The same check under busybox ash (Yocto's usual /bin/sh; this Debian
    # build even prefers its own ip/tc applets over PATH).
    section status-ash-json /bin/busybox sh "$APPLY" status --json "$PLAN"
fi

# Some traffic through the GEM so /proc/interrupts shows where its IRQ lands
# after the plan moved it (compare the two snapshots).
section interrupts-before-ping cat /proc/interrupts
ip addr add 10.0.2.15/24 dev "$IFACE" 2>/dev/null
section ping ping -c 5 -i 0.2 -W 2 10.0.2.2
section interrupts cat /proc/interrupts
section irqs irqs "$IFACE"
section ethtool-g ethtool -g "$IFACE"
section ethtool-k ethtool -k "$IFACE"
section ethtool-c ethtool -c "$IFACE"
section ethtool-l ethtool -l "$IFACE"
section queues queues "$IFACE"
section sysctls sysctls
section tc tc qdisc show dev "$IFACE"
# The variant plan, if any (e.g. a ring size macb must round).
if apply_extra; then
    section extra-ethtool-g ethtool -g "$IFACE"
    section extra-queues queues "$IFACE"
    # macb reopens the device on -G: the board's RPS/XPS/IRQ must survive.
    [ -r "$PLAN" ] && section after-extra-status-json "$APPLY" status --json "$PLAN"
    # The variant's multiq root and u32/skbedit filters on gem3's two TX
    # queues: traffic to the gateway (the dst filter) and, routed through
    # it, to a TEST-NET address (only the src filter matches); each filter's
    # action counts what it mapped (tc -s). Replies do not matter.
    # (text: iproute2 6.1 prints multiq's options as invalid JSON)
    section extra-tc-qdisc tc qdisc show dev "$IFACE"
    ip route add 198.51.100.0/24 via 10.0.2.2 dev "$IFACE" 2>/dev/null
    section extra-ping-dst timeout 15 ping -c 3 -i 0.2 -W 2 10.0.2.2
    # (no reply from TEST-NET: bounded by timeout; the first packet leaves at once)
    section extra-ping-src timeout 2 ping -c 2 -i 0.2 198.51.100.1
    section extra-tc-filter tc -s -j filter show dev "$IFACE" parent 1:
    section extra-tc-filter-text tc -s filter show dev "$IFACE" parent 1:
    section extra-tc-class tc -s class show dev "$IFACE"
fi

section dmesg-net sh -c "dmesg | grep -v ZNQ | grep -iE 'macb|$IFACE|ff0e0000|e000b000|phylink|fixed'"

kmsg "ZNQ:DONE uptime=$(cut -d' ' -f1 /proc/uptime)"
sync
poweroff -f
