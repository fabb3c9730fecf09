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
# The caller sets PLAN (the plan file) before calling sysctls.

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
