# qemu-p1020: boot the generated zynq-net tuning on an emulated P1020-class
# router (QEMU `-M ppce500 -cpu e500v2`, eTSEC NICs on the real gianfar
# driver), built from Debian sources only.
#
# Builds once and caches (under $ZYNQ_NET_CACHE/qemu-p1020):
# - a small kernel from linux-source-6.12: tests/qemu/p1020-qemu-test-only.cfg
#   (the QEMU platform, console, initramfs and net stack on allnoconfig) and
#   the board's generated kernel/zynq-net-*.cfg merged with
#   `merge_config.sh -n`, then olddefconfig; `zynq-net kconfig verify`
#   checks the result (gianfar, the flowtable, tc and RPS are there only
#   because the fragments ask for them);
# - static powerpc busybox, ethtool and iproute2 (ip, tc) cross-built from
#   Debian's source packages (`apt-get source`, private deb-src lists);
# then packs an initramfs with the generated plan, the applier and
# tests/qemu/p1020-init.sh and boots it with a hard timeout. See docs/qemu.md.
#
# Usage: scripts/qemu-p1020 [--gen DIR] [--kernel-gen DIR] [--kernel-board F]
#                           [--plan FILE]
#                           [--applier FILE] [--extra-plan FILE] [--out DIR]
#                           [--zynq-net BIN] [--timeout SEC] [--smp N]
#                           [--build-only] [--userland-only] [--cached-only]
#                           [--no-boot] [--qemu BIN | --system-qemu]
#                           [--lab NAME [--lab-subnet N] [--fastpath DEVS]
#                            -- CMD [ARG...]]
#   --gen DIR         output of `zynq-net gen` for the board to boot (plan,
#                     applier; kernel fragments unless --kernel-gen)
#   --kernel-gen DIR  output of `zynq-net gen` whose kernel/*.cfg the kernel
#                     is built with, and whose board `kconfig verify` checks
#                     (default: --gen; without either: no fragments)
#   --kernel-board F  the board file of --kernel-gen for `kconfig verify`
#                     (default: found from its manifest.json)
#   --plan / --applier / --extra-plan   as in scripts/qemu-zcu102
#   --out DIR         work and result directory (default: a new temp dir)
#   --zynq-net BIN    the zynq-net CLI, for `kconfig verify` (default:
#                     $ZYNQ_NET_BIN)
#   --timeout SEC     hard limit for the QEMU run (default 300; with --lab
#                     the limit for the boot, CMD has no limit of its own)
#   --smp N           emulated e500v2 cores (default 1; 2 boots with the
#                     test-only fragment's KEXEC off, docs/qemu.md "-smp 2")
#   --build-only      only build (or find cached) the kernel, the userland
#                     and the patched qemu-system-ppc (unless --qemu or
#                     --system-qemu)
#   --userland-only   only build (or find cached) the userland
#   --cached-only     download and build nothing: exit 3 when the kernel,
#                     the userland or a package list is not in the cache
#                     yet (a CI with a time budget)
#   --no-boot         build the initramfs too, do not boot
#   --lab NAME        forwarding lab: the two eTSEC ports are tap devices
#                     moved into the host network namespaces NAME-client and
#                     NAME-server (10.21N.1.0/24 and 10.21N.2.0/24, router
#                     .1, host end .2); once the guest has applied the plan
#                     and forwards, CMD runs on the host (targets file in
#                     $ZNQ_LAB_TARGETS, the image record for its bench run
#                     directories in $ZNQ_LAB_IMAGE), then the guest dumps
#                     its counters and the lab is torn down. The guest
#                     routes 198.18.0.0/16 to the client end and
#                     198.19.0.0/16 to the server end (RFC 2544's
#                     benchmarking networks: `zynq-net bench
#                     rfc2544-tester --targets "$ZNQ_LAB_TARGETS"`). Needs
#                     root.
#   --lab-subnet N    N in 10.21N.x (0-9, default 1)
#   --fastpath DEVS   with --lab: the guest loads the board's nftables
#                     flowtable on DEVS (space-separated, e.g. "eth0 eth1":
#                     the board's fastpath.flowtable.interfaces) after the
#                     plan, with tests/qemu/flowtable-load.c (the guest has
#                     no nft); without it the lab forwards on the slow path
#   --qemu BIN        the qemu-system-ppc to boot with (default: the one
#                     scripts/qemu-build ppc builds from Debian's source
#                     with scripts/qemu-patches/: the archive's eTSEC model
#                     stops receiving after one RX ring overflow)
#   --system-qemu     boot with the archive's qemu-system-ppc (to see that)
#
# Results in OUT: console.log, sections/NAME.txt + NAME.rc, result.env
# (boot_seconds, guest_uptime, qemu_rc, done, kernel, smp, kernel_build_s,
# kernel_cached, qemu (the binary); with --lab lab_rc and flowtable=0|1),
# kconfig-report.txt, kernel.config; with --lab also lab-cmd.rc,
# targets.json and image.json (`zynq-net-image 1`, as scripts/zynq-net-farm
# writes it: the board, kernel release, the SHA-256 of the kernel, of the
# initramfs without the lab's settings and of the plan; copy it into a
# bench run directory and `zynq-net bench compare` holds two runs to it).
# Exit: 0 the guest reported ZNQ:DONE (and CMD exited 0); 1 boot failed,
# timed out or CMD failed; 2 usage or setup error; 3 --cached-only and
# something is not cached.
#
# Environment: ZYNQ_NET_CACHE (default /var/tmp/zynq-net-cache);
# ZYNQ_NET_JOBS (make -j, default: nproc).
# shellcheck shell=sh disable=SC2034,SC2154
# (The comment above is this machine's --help. Sourced by scripts/qemu-board,
# whose header lists what a machine file sets and defines.)

options="--kernel-gen --kernel-board --build-only --userland-only --lab --lab-subnet --fastpath --qemu --system-qemu --"
timeout_s=300
smp=1
smp_max=9
smp_expect=1-9
cross=powerpc-linux-gnu-
needs="make ${cross}gcc ${cross}strip apt-get dpkg-source flock cpio gzip timeout sha256sum"
lock_wait=3600
init_sh=$top/tests/qemu/p1020-init.sh
# The Ethernet driver of the ports QEMU emulates: a --gen whose plan has
# no interface on it is another board's (refused before any build).
nic_driver=fsl-gianfar
qemu_system=qemu-system-ppc
qemu_system_pkg="Debian qemu-system-ppc"
qemu_patch=ppc
result_files=kconfig-report.txt
# The kernel (scripts/lib/qemu-common.sh kernel_build).
testfrag=$top/tests/qemu/p1020-qemu-test-only.cfg
ktree_arch=powerpc
kernel_base=allnoconfig
kernel_tag="qemu-p1020 kernel 2 allnoconfig"
kernel_target=vmlinux
kernel_image=vmlinux
# Debian source packages of the guest userland. nftables (and its libnftnl,
# libmnl) would belong here, but deb.debian.org as seen from the test
# machines serves no source files for them (docs/qemu.md): the flowtable is
# loaded by tests/qemu/flowtable-load.c instead.
src_pkgs="busybox ethtool iproute2"

machine_check_args() {
    [ -z "$kboard" ] || [ -f "$kboard" ] || die "--kernel-board $kboard: no such file"
}

machine_gen() {
    [ -z "$gen" ] || [ -n "$kgen" ] || kgen=$gen
    if [ -n "$kgen" ]; then
        [ -d "$kgen" ] || die "--kernel-gen $kgen: not a directory"
        kgen=$(cd "$kgen" && pwd)
        ls "$kgen"/kernel/zynq-net-*.cfg >/dev/null 2>&1 || die "$kgen/kernel: no zynq-net-*.cfg fragments"
        [ -n "$kboard" ] || kboard=$(board_of "$kgen")
    fi
}

# ----------------------------------------------------------- userland ----
# Each tool is built out of tree into $cache/userland/NAME-VERSION and
# installed as static, stripped binaries in its bin/; .done marks success.
ubuild() { # ubuild NAME -> prints the bin directory
    name=$1
    src=$(fetch_src "$name")
    ver=$(cat "$src/.version")
    dest=$cache/userland/$name-$(echo "$ver" | tr ':~' '__')
    if [ -f "$dest/.done" ]; then
        echo "$dest/bin"
        return 0
    fi
    if [ "$cached_only" = 1 ]; then
        log "--cached-only: $name $ver is not built in $cache"
        exit 3
    fi
    log "cross-building $name $ver (static, $cross, make -j$jobs; log in $dest/build.log)"
    rm -rf "$dest"
    mkdir -p "$dest/build" "$dest/bin"
    t0=$(date +%s.%N)
    if ! (run_build "$name" "$src" "$dest/build" "$dest/bin") >"$dest/build.log" 2>&1; then
        tail -n 30 "$dest/build.log" >&2
        die "cross-build of $name failed (see $dest/build.log)"
    fi
    for f in "$dest"/bin/*; do
        "${cross}strip" "$f"
        file_out=$(od -An -tx1 -N20 "$f" | tr -d ' \n')
        # ELF, 32-bit, big-endian, e_machine 0x0014 (PowerPC).
        case $file_out in 7f454c460102*0014) ;; *) die "$f is not a 32-bit big-endian PowerPC ELF" ;; esac
    done
    elapsed "$t0" "$(date +%s.%N)" >"$dest/build-seconds"
    touch "$dest/.done"
    echo "$dest/bin"
}
run_build() { # NAME SRC BUILD BIN
    case $1 in
    busybox) build_busybox "$2" "$3" "$4" ;;
    ethtool) build_ethtool "$2" "$3" "$4" ;;
    iproute2) build_iproute2 "$2" "$3" "$4" ;;
    *) echo "no build recipe for $1"; return 1 ;;
    esac
}

build_busybox() { # SRC BUILD BIN
    # defconfig, static; its tc applet is off (iproute2's tc is the one the
    # applier uses) and applets never shadow PATH (PREFER_APPLETS is off
    # in defconfig).
    nice make -C "$1" O="$2" defconfig
    sed -i -e 's/^# CONFIG_STATIC is not set$/CONFIG_STATIC=y/' \
        -e 's/^CONFIG_TC=y$/# CONFIG_TC is not set/' "$2/.config"
    nice make -C "$2" CROSS_COMPILE="$cross" oldconfig </dev/null
    grep -qx 'CONFIG_STATIC=y' "$2/.config"
    nice make -C "$2" CROSS_COMPILE="$cross" -j"$jobs"
    cp "$2/busybox" "$3/busybox"
}

build_ethtool() { # SRC BUILD BIN
    # Without libmnl (not fetchable, see src_pkgs): the ioctl interface,
    # which covers -g/-G, -c/-C, -k/-K, -l/-L, -i.
    (cd "$2" && nice "$1/configure" --host="${cross%-}" --disable-netlink \
        --disable-pretty-dump LDFLAGS=-static PKG_CONFIG=false)
    nice make -C "$2" -j"$jobs"
    cp "$2/ethtool" "$3/ethtool"
}

build_iproute2() { # SRC BUILD BIN
    # iproute2 builds in its tree: copy it. No libmnl/libelf/libbpf/libcap:
    # tc keeps its built-in qdiscs, classifiers and actions (multiq, u32,
    # skbedit among them).
    cp -a "$1/." "$2/"
    (cd "$2" && PKG_CONFIG=false CC="${cross}gcc" AR="${cross}ar" ./configure --libbpf_force off)
    nice make -C "$2" -j"$jobs" CC="${cross}gcc" AR="${cross}ar" HOSTCC=gcc \
        LDFLAGS=-static SUBDIRS="lib ip tc"
    cp "$2/ip/ip" "$3/ip"
    cp "$2/tc/tc" "$3/tc"
}

machine_userland() {
    srcapt_setup
    for p in $src_pkgs; do
        d=$(ubuild "$p")
        case $p in
        busybox) bb_bin=$d ;;
        ethtool) et_bin=$d ;;
        iproute2) ip_bin=$d ;;
        esac
    done
    ftload_bin=$(flowtable_load)
    [ "$userland_only" = 0 ] || log "userland: $bb_bin $et_bin $ip_bin"
}

machine_kernel() {
    built_kernel
}

machine_prepare() {
    kconfig_verify_report "$kernel_base + tests/qemu/${testfrag##*/}"
}

machine_initramfs() { # IR
    mkdir -p "$1/run"
    cp "$bb_bin/busybox" "$1/bin/busybox"
    ln -s busybox "$1/bin/sh"
    cp "$et_bin/ethtool" "$1/sbin/ethtool"
    cp "$ip_bin/ip" "$1/sbin/ip"
    cp "$ip_bin/tc" "$1/sbin/tc"
}

machine_qemu_args() {
    qemu_opts="-M ppce500 -cpu e500v2 -m 512"
    append="console=ttyS0,115200 printk.devkmsg=on rdinit=/init panic=-1 loglevel=6"
    # The router in the targets file (scripts/lib/qemu-common.sh lab_taps).
    lab_desc="emulated P1020-class router (QEMU ppce500, e500v2 x$smp, eTSEC/gianfar, TCG)"
    if [ -n "$lab" ]; then
        nics="-netdev tap,id=n0,ifname=$lab-t0,script=no,downscript=no -device eTSEC,netdev=n0,mac=52:54:00:10:20:00"
        nics="$nics -netdev tap,id=n1,ifname=$lab-t1,script=no,downscript=no -device eTSEC,netdev=n1,mac=52:54:00:10:20:01"
    else
        nics="-netdev user,id=n0 -device eTSEC,netdev=n0,mac=52:54:00:10:20:00"
        nics="$nics -netdev user,id=n1 -device eTSEC,netdev=n1,mac=52:54:00:10:20:01"
    fi
}
