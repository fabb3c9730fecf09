# Shared by the TEST-ONLY inits of scripts/qemu-zcu102 and scripts/qemu-p1020
# (tests/qemu/*-init.sh source it from /lib/zynq-net-qemu/init-lib.sh).
#
# Every result goes to /dev/kmsg (works before the UART console is up and
# keeps each line atomic among kernel messages) framed by the markers that
# scripts/lib/qemu-common.sh parses:
#   ZNQ>>> NAME            a section starts
#   ZNQ| NAME| TEXT        one line of its output
#   ZNQ+ NAME| TEXT        continuation of the previous line (long lines)
#   ZNQ<<< NAME rc=N       the section ends; N is the command's exit code
#   ZNQ:DONE uptime=S      everything was written
# The kernel command line needs printk.devkmsg=on (no rate limit).
# The caller sets PLAN (the plan file) before calling sysctls or apply_plan,
# APPLY (the applier) before apply_plan or apply_extra, EXTRA (the variant
# plan) before apply_extra.

# guest_setup: /proc, /sys, /dev and the busybox applets in /bbin, last in
# PATH, so the image's own ethtool, ip and tc (and dash as /bin/sh where it
# has one) win.
guest_setup() {
    /bin/busybox mkdir -p /proc /sys /dev /tmp /run /sbin /usr/bin /usr/sbin /var/lib /var/log /bbin
    /bin/busybox mount -t proc proc /proc
    /bin/busybox mount -t sysfs sysfs /sys
    /bin/busybox mount -t devtmpfs devtmpfs /dev 2>/dev/null
    /bin/busybox --install -s /bbin
    export PATH=/usr/sbin:/usr/bin:/sbin:/bin:/bbin
}

# report_start: ZNQ:START and the sections cmdline, cpus and tools.
report_start() {
    kmsg "ZNQ:START uptime=$(cut -d' ' -f1 /proc/uptime)"
    section cmdline cat /proc/cmdline
    section cpus cat /sys/devices/system/cpu/online
    # shellcheck disable=SC2016 # single-quoted: the inner sh expands it
    section tools sh -c 'for t in sh ip tc ethtool; do printf "%s -> %s\n" "$t" "$(command -v "$t")"; done; ip -V; ethtool --version'
}

# wait_netdevs IFACE...: up to 10 s for every IFACE to appear.
wait_netdevs() {
    tries=0
    for d in "$@"; do
        while [ ! -e "/sys/class/net/$d" ] && [ "$tries" -lt 100 ]; do
            sleep 0.1
            tries=$((tries + 1))
        done
    done
}

# netdevs: "IFACE driver=DRIVER queues=QUEUE... " for every network device.
netdevs() {
    for d in /sys/class/net/*; do
        printf '%s driver=%s queues=%s\n' "${d##*/}" \
            "$(basename "$(readlink "$d/device/driver" 2>/dev/null)" 2>/dev/null)" \
            "$(for q in "$d"/queues/*; do printf '%s ' "${q##*/}"; done)"
    done
}

# apply_plan: the applier on $PLAN as a target runs it, twice: sections plan,
# apply1, status-json, apply2 (nothing may change) and status2-json.
# Returns 1, saying so, when the image has no applier or no plan.
apply_plan() {
    if [ ! -x "$APPLY" ] || [ ! -r "$PLAN" ]; then
        kmsg "ZNQ:NOTE no applier/plan in the initramfs: only the driver state is dumped"
        return 1
    fi
    section plan cat "$PLAN"
    section apply1 "$APPLY" apply --json "$PLAN"
    section status-json "$APPLY" status --json "$PLAN"
    section apply2 "$APPLY" apply --json "$PLAN"
    section status2-json "$APPLY" status --json "$PLAN"
    return 0
}

# apply_extra: the variant plan the test passed (--extra-plan of the qemu-*
# script), for what the board itself does not exercise: sections
# extra-plan, extra-apply and extra-status-json. Returns 1 without one.
apply_extra() {
    [ -x "$APPLY" ] && [ -r "$EXTRA" ] || return 1
    section extra-plan cat "$EXTRA"
    section extra-apply "$APPLY" apply --json "$EXTRA"
    section extra-status-json "$APPLY" status --json "$EXTRA"
    return 0
}

kmsg() {
    printf '%s\n' "$1" >/dev/kmsg
}

# section NAME CMD [ARG...]: run CMD, copy its stdout+stderr to kmsg.
section() {
    name=$1
    shift
    kmsg "ZNQ>>> $name"
    "$@" >/tmp/section.out 2>&1
    rc=$?
    while IFS= read -r line || [ -n "$line" ]; do
        # kmsg records are limited to ~1 KiB: split long lines.
        if [ "${#line}" -le 600 ]; then
            kmsg "ZNQ| $name| $line"
        else
            first=1
            printf '%s\n' "$line" | fold -w 600 | while IFS= read -r chunk; do
                if [ "$first" = 1 ]; then
                    kmsg "ZNQ| $name| $chunk"
                    first=0
                else
                    kmsg "ZNQ+ $name| $chunk"
                fi
            done
        fi
    done </tmp/section.out
    kmsg "ZNQ<<< $name rc=$rc"
    return "$rc"
}

# queues IFACE: every per-queue sysfs file the plan may touch, and the IRQs.
queues() {
    for q in /sys/class/net/"$1"/queues/*; do
        for f in rps_cpus rps_flow_cnt xps_cpus; do
            [ -r "$q/$f" ] && printf '%s/%s %s\n' "${q##*/}" "$f" "$(cat "$q/$f" 2>&1)"
        done
    done
}

irqs() {
    # IRQs whose action names mention IFACE or its device (macb names
    # them after the netdev; list every line so nothing is guessed).
    grep -E "$1|ethernet" /proc/interrupts | while read -r n _; do
        n=${n%:}
        printf 'irq %s smp_affinity %s effective_affinity %s effective_affinity_list %s\n' \
            "$n" "$(cat /proc/irq/"$n"/smp_affinity 2>&1)" \
            "$(cat /proc/irq/"$n"/effective_affinity 2>&1)" \
            "$(cat /proc/irq/"$n"/effective_affinity_list 2>&1)"
    done
}

sysctls() {
    # KEY VALUE of every sysctl step of the plan, read back.
    [ -r "$PLAN" ] || return 0
    grep '^sysctl ' "$PLAN" | while read -r _ key _; do
        p=/proc/sys/$(printf '%s' "$key" | tr . /)
        printf '%s %s\n' "$key" "$(tr '\t\n' '  ' <"$p" 2>&1)"
    done
}

# read_qemu_env: mode, eth0_addr, eth1_addr, eth0_peer, eth1_peer and
# fastpath from /etc/zynq-net/qemu.env (the qemu-* script writes it,
# scripts/lib/qemu-common.sh lab_env; without it: status).
# shellcheck disable=SC2034 # the variables are the init's
read_qemu_env() {
    mode=status
    eth0_addr=""
    eth1_addr=""
    eth0_peer=""
    eth1_peer=""
    fastpath=""
    [ -r /etc/zynq-net/qemu.env ] || return 0
    while IFS='=' read -r k v; do
        case $k in
        mode) mode=$v ;;
        eth0_addr) eth0_addr=$v ;;
        eth1_addr) eth1_addr=$v ;;
        eth0_peer) eth0_peer=$v ;;
        eth1_peer) eth1_peer=$v ;;
        fastpath) fastpath=$v ;;
        esac
    done </etc/zynq-net/qemu.env
}

# lab_routes: RFC 2544's benchmarking networks (198.18.0.0/15, RFC 2544
# appendix C.2.2) through the lab's two links, as the analyser's router
# had them: 198.18.0.0/16 via eth0's peer (the tester's port A, the host's
# client namespace), 198.19.0.0/16 via eth1's peer (port B, the server
# namespace). `zynq-net bench rfc2544-tester --targets` sends its flows
# between them and configures nothing on a router it does not own.
lab_routes() {
    [ -z "$eth0_peer" ] || ip route replace 198.18.0.0/16 via "$eth0_peer" dev eth0
    [ -z "$eth1_peer" ] || ip route replace 198.19.0.0/16 via "$eth1_peer" dev eth1
}

# lab_forward: the forwarding lab's guest half (mode=lab), after the ports
# are addressed and the plan applied (which turns forwarding on). Loads the
# board's flowtable on the interfaces in $fastpath (when set: the fast path
# arm), reports ZNQ:READY and forwards until the host pings the router
# itself (the qemu-* script does after its command), then dumps the
# counters, the flowtables and the CPU time the forwarding took (/proc/stat
# at ZNQ:READY and at the end; the host reads it in between over TCP). The
# caller defines dump (what its driver reports).
lab_forward() {
    lab_routes
    section routes sh -c 'ip addr; ip route; cat /proc/sys/net/ipv4/ip_forward'
    if [ -n "$fastpath" ]; then
        # What the image's zynq-net-flowtable service loads with nft
        # (meta-zynq-net/recipes-connectivity/zynq-net-flowtable): table
        # inet zynq_net_fastpath, flowtable ft on the board's interfaces.
        # shellcheck disable=SC2086 # $fastpath: interface names, checked by the host
        section flowtable-load flowtable-load add zynq_net_fastpath ft $fastpath
    fi
    section flowtables flowtable-load list
    section stat-ready cat /proc/stat
    # The host reads the router's CPU counters around a load of its own
    # (TCP port 7070 on the router's addresses: /proc/stat per connection).
    (while :; do nc -l -p 7070 -e cat /proc/stat; done) >/dev/null 2>&1 &
    # Icmp InEchos (10th field of the values line in /proc/net/snmp):
    # echo requests to the router itself; the traffic the lab forwards
    # never counts there, so the host's first ping ends the lab.
    kmsg "ZNQ:READY uptime=$(cut -d' ' -f1 /proc/uptime)"
    while [ "$(awk '/^Icmp:/ { if (n++) print $10 }' /proc/net/snmp)" = 0 ]; do
        sleep 1
    done
    section stat-end cat /proc/stat
    # Ip ForwDatagrams: what the router forwarded while the host's command
    # ran on the slow path (offloaded packets skip ip_forward()).
    section snmp cat /proc/net/snmp
    section flowtables-end flowtable-load list
    # Offloaded connections carry [OFFLOAD] (kernels with
    # NF_CONNTRACK_PROCFS; nothing to show without it).
    [ -r /proc/net/nf_conntrack ] && section conntrack cat /proc/net/nf_conntrack
    dump
}
