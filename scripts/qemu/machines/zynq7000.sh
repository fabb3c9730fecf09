# qemu-zynq7000: boot the generated zynq-net tuning on an emulated Zynq-7000
# (QEMU `-M xilinx-zynq-a9`: 2x Cortex-A9, GIC, Cadence GEM on the real
# macb driver), with the ZC702's device tree.
#
# Builds once and caches (under $ZYNQ_NET_CACHE/qemu-zynq7000):
# - a small kernel from linux-source-6.12 with Debian's
#   gcc-arm-linux-gnueabihf: tests/qemu/zynq7000-qemu-test-only.cfg (the
#   platform, console, initramfs and IPv4 on allnoconfig) and the board's
#   generated kernel/zynq-net-*.cfg merged with `merge_config.sh -n`, then
#   olddefconfig; `zynq-net kconfig verify` checks the result (Debian's
#   armhf kernel has neither ARCH_ZYNQ nor MACB);
# - Debian's armhf busybox-static, dash, ethtool and iproute2 with their
#   libraries (binary packages of the main archive, private apt lists);
# then compiles the kernel's xilinx/zynq-zc702.dts with the generated
# dt/zynq-net.dtsi, packs an initramfs with the generated plan, the applier
# and tests/qemu/macb-init.sh, and boots it with a hard timeout.
# See docs/qemu.md.
#
# Usage: scripts/qemu-zynq7000 [--gen DIR] [--plan FILE] [--applier FILE]
#                              [--extra-plan FILE] [--out DIR] [--zynq-net BIN]
#                              [--timeout SEC] [--smp N] [--build-only]
#                              [--userland-only] [--cached-only] [--no-boot]
#   --gen DIR         output of `zynq-net gen` for the zc702 board (plan,
#                     applier, kernel fragments, DT fragment)
#   --plan / --applier / --extra-plan   as in scripts/qemu-zcu102
#   --out DIR         work and result directory (default: a new temp dir)
#   --zynq-net BIN    the zynq-net CLI, for `kconfig verify` and `dtb verify`
#                     (default: $ZYNQ_NET_BIN)
#   --timeout SEC     hard limit for the QEMU run (default 180)
#   --smp N           emulated Cortex-A9 cores, 1 or 2 (default 1: QEMU 7.2,
#                     Debian bookworm's, models one; later QEMU has
#                     ZYNQ_MAX_CPUS 2)
#   --build-only      only build (or find cached) the kernel and userland
#   --userland-only   only fetch (or find cached) the userland
#   --cached-only     download and build nothing: exit 3 when the kernel,
#                     the userland or a package list is not in the cache
#                     yet (a CI with a time budget)
#   --no-boot         build DTB and initramfs too, do not boot
#
# Results in OUT: console.log, sections/NAME.txt + NAME.rc, result.env
# (boot_seconds, guest_uptime, qemu_rc, done, kernel, kernel_cached,
# kernel_build_s, smp), kconfig-report.txt, kconfig-verify.rc,
# kernel.config, dt-report.txt.
# Exit: 0 the guest reported ZNQ:DONE; 1 boot failed or timed out; 2 usage
# or setup error; 3 --cached-only and something is not cached.
#
# Environment: ZYNQ_NET_CACHE (default /var/tmp/zynq-net-cache);
# ZYNQ_NET_JOBS (make -j, default: nproc).
# shellcheck shell=sh disable=SC2034,SC2154
# (The comment above is this machine's --help. Sourced by scripts/qemu-board,
# whose header lists what a machine file sets and defines.)

options="--build-only --userland-only"
timeout_s=180
# xilinx-zynq-a9: one CPU in QEMU 7.2, two where hw/arm/xilinx_zynq.c has
# ZYNQ_MAX_CPUS 2 (QEMU refuses more than its machine has).
smp=1
smp_max=2
smp_expect="1 or 2"
cross=arm-linux-gnueabihf-
needs="make ${cross}gcc apt-get apt-cache dpkg-deb readelf cpp dtc cpio gzip flock sha256sum"
lock_wait=3600
init_sh=$top/tests/qemu/macb-init.sh
# The Ethernet driver of the ports QEMU emulates: a --gen whose plan has
# no interface on it is another board's (refused before any build).
nic_driver=macb
qemu_system=qemu-system-arm
qemu_system_pkg="Debian qemu-system-arm"
result_files="kconfig-report.txt, dt-report.txt"
board_dts=zynq-zc702.dts
# The kernel (scripts/lib/qemu-common.sh kernel_build).
testfrag=$top/tests/qemu/zynq7000-qemu-test-only.cfg
ktree_arch=arm
kernel_base=allnoconfig
kernel_tag="qemu-zynq7000 kernel 1 allnoconfig"
kernel_target=zImage
kernel_image=arch/arm/boot/zImage
# The userland: Debian armhf binary packages (scripts/qemu-board programs).
deb_arch=armhf
multiarch=arm-linux-gnueabihf
tools_pkgs="busybox-static dash ethtool iproute2"

machine_gen() {
    [ -n "$gen" ] || return 0
    kgen=$gen
    ls "$kgen"/kernel/zynq-net-*.cfg >/dev/null 2>&1 || die "$kgen/kernel: no zynq-net-*.cfg fragments"
    kboard=$(board_of "$kgen")
}

# The packages, fetched once; with --cached-only, exit 3 when one is
# missing (the apt lists are not refreshed then either).
machine_userland() {
    t_user=$(date +%s.%N)
    if [ "$cached_only" = 1 ]; then
        for p in $tools_pkgs; do
            [ -f "$cache/pkgs/$p/.version" ] || { log "--cached-only: $p is not in $cache/pkgs"; exit 3; }
        done
        missing=$(needed_closure 2>&1 >/dev/null | sed -n 's/^MISSING //p')
        [ -z "$missing" ] || { log "--cached-only: libraries not in $cache/pkgs: $missing"; exit 3; }
        all_pkgs="$tools_pkgs (cached)"
    else
        apt_setup
        fetch_tools
    fi
    log "userland: $all_pkgs ($(elapsed "$t_user" "$(date +%s.%N)")s)"
}

machine_kernel() {
    built_kernel
}

# The kernel's xilinx/zynq-zc702.dts, unchanged, with the generated
# dt/zynq-net.dtsi.
build_dtb() {
    mkdir -p "$out/dt"
    ktree=$("$top/scripts/kernel-tree") || die "scripts/kernel-tree failed"
    dts_dir=$ktree/arch/arm/boot/dts/xilinx
    [ -f "$dts_dir/$board_dts" ] || die "no $dts_dir/$board_dts in linux-source-6.12"
    top_dts=$out/dt/zc702-qemu.dts
    frag=""
    [ -n "$gen" ] && [ -f "$gen/dt/zynq-net.dtsi" ] && frag=$gen/dt/zynq-net.dtsi
    {
        echo "/* generated by scripts/qemu-zynq7000: the ZC702 DTS + the board's fragment */"
        echo "#include \"$board_dts\""
        [ -z "$frag" ] || echo "#include \"$frag\""
    } >"$top_dts"
    dtb=$out/dt/zc702-qemu.dtb
    dtc_pass "$top_dts" "$dtb" "$dts_dir" "$ktree/include"
    {
        echo "DTS: arch/arm/boot/dts/xilinx/$board_dts (linux-source-6.12), unchanged for QEMU"
        echo "fragment: ${frag:-none (stock $board_dts)}"
        dtb_verify_report "zynq-net dtb verify $kboard:"
        [ -z "$dtb_verify_rc" ] || echo "$dtb_verify_rc" >"$out/dtb-verify.rc"
    } >"$out/dt-report.txt"
}

machine_prepare() {
    kconfig_verify_report "$kernel_base + tests/qemu/${testfrag##*/}"
    build_dtb
}

machine_initramfs() { # IR
    mkdir -p "$1/lib/modules" "$1/run"
    deb_userland_install "$1" ld-linux-armhf.so.3
    # Every driver is built in: nothing for the init to load.
    : >"$1/lib/modules/load.order"
}

machine_qemu_args() {
    # uart1 is the ZC702's console (serial0 = &uart1: ttyPS0) and QEMU's
    # second -serial (meta-xilinx QB_XILINX_SERIAL = "-serial null -serial ...").
    qemu_opts="-M xilinx-zynq-a9 -m 1024 -serial null"
    # maxcpus: zynq-7000.dtsi lists two CPUs; with -smp 1 the kernel would
    # wait a second for CPU 1 before giving up.
    append="console=ttyPS0,115200 earlycon printk.devkmsg=on rdinit=/init panic=-1 loglevel=6 maxcpus=$smp"
    # The NIC's MAC differs from the board's on purpose: macb takes the DT's
    # local-mac-address (the generated fragment) before the address QEMU
    # loads into the GEM's registers, so the test sees which one won.
    nics="-nic user,model=cadence_gem,mac=52:54:00:12:70:02"
    lab_desc=""
}
