# qemu-zcu102: boot the generated zynq-net tuning on an emulated ZCU102.
#
# Fetches (once, cached) Debian's arm64 kernel, busybox-static, dash,
# ethtool and iproute2 with their libraries; builds a TEST-ONLY DTB from the kernel's
# zynqmp-zcu102-rev1.0.dts + the generated dt/zynq-net.dtsi +
# tests/qemu/zcu102-qemu-adapt.dtsi; builds an initramfs with the macb
# module, the generated plan and applier and tests/qemu/macb-init.sh;
# boots `qemu-system-aarch64 -M xlnx-zcu102` with a hard timeout and splits
# the console into result sections. See docs/qemu.md.
#
# Usage: scripts/qemu-zcu102 [--gen DIR] [--plan FILE] [--applier FILE]
#                            [--extra-plan FILE] [--out DIR] [--zynq-net BIN]
#                            [--timeout SEC] [--smp N] [--fetch-only]
#                            [--no-boot] [--cached-only]
#                            [--qemu BIN | --system-qemu]
#                            [--lab NAME [--lab-subnet N] [--fastpath DEVS]
#                             -- CMD [ARG...]]
#   --gen DIR       output directory of `zynq-net gen` for the zcu102 board
#   --plan FILE     use this plan instead of DIR/tuning/zynq-net.plan
#   --applier FILE  use this applier instead of DIR/tuning/zynq-net-apply
#   --extra-plan F  a second plan the guest applies after the first one
#                   (sections extra-*), e.g. a variant with other ring sizes
#   --out DIR       work and result directory (default: a new temp dir)
#   --zynq-net BIN  the zynq-net CLI, for `dtb verify` in dt-report.txt
#                   (default: $ZYNQ_NET_BIN)
#   --timeout SEC   hard limit for the QEMU run (default 180; with --lab
#                   the limit for the boot, CMD has no limit of its own)
#   --smp N         emulated Cortex-A53 cores, 1-4 (default 4)
#   --fetch-only    only fill the cache
#   --no-boot       build DTB and initramfs, do not boot
#   --cached-only   download and build nothing: exit 3 when the patched
#                   QEMU, flowtable-load (--lab), the kernel package or a
#                   package list is not cached (a CI with a time budget)
#   --lab NAME      forwarding lab: gem2 (eth0) and gem3 (eth1) are tap
#                   devices moved into the host network namespaces
#                   NAME-client and NAME-server (10.21N.1.0/24 and
#                   10.21N.2.0/24, router .1, host end .2; the DTB also
#                   gets tests/qemu/zcu102-qemu-lab.dtsi); once the guest has
#                   applied the plan and forwards, CMD runs on the host
#                   (targets file in $ZNQ_LAB_TARGETS), then the guest dumps
#                   its counters and the lab is torn down. Needs root.
#   --lab-subnet N  N in 10.21N.x (0-9, default 1)
#   --fastpath DEVS with --lab: the guest loads the board's nftables
#                   flowtable on DEVS (e.g. "eth0 eth1") after the plan, with
#                   tests/qemu/flowtable-load.c; without it the lab forwards
#                   on the slow path
#   --qemu BIN      the qemu-system-aarch64 to boot with (default: with
#                   --lab the one scripts/qemu-build aarch64 builds from
#                   Debian's source with scripts/qemu-patches/, since the
#                   archive's GEM model corrupts and stalls its RX ring under
#                   overload; without --lab the archive's)
#   --system-qemu   boot with the archive's qemu-system-aarch64
#
# Results in OUT: console.log, sections/NAME.txt + sections/NAME.rc,
# result.env (boot_seconds, guest_uptime, qemu_rc, done, kernel, qemu (the
# binary), smp; with --lab lab_rc and flowtable=0|1), dt-report.txt,
# kconfig-report.txt, kernel.config (the booted kernel's); with --lab also
# lab-cmd.rc and targets.json.
# Exit: 0 booted and the init reported ZNQ:DONE (and CMD exited 0); 1 boot
# failed, timed out or CMD failed; 2 usage or setup error; 3 --cached-only
# and something is not cached.
#
# Environment: ZYNQ_NET_CACHE (default /var/tmp/zynq-net-cache); downloads
# go to $ZYNQ_NET_CACHE/qemu-zcu102. ZYNQ_NET_QEMU_KVER selects the kernel
# ABI (e.g. 6.12.117+deb12); default: the installed linux-source-6.12's.
# shellcheck shell=sh disable=SC2034,SC2154
# (The comment above is this machine's --help. Sourced by scripts/qemu-board,
# whose header lists what a machine file sets and defines.)

options="--fetch-only --lab --lab-subnet --fastpath --qemu --system-qemu --"
timeout_s=180
smp=4
smp_max=4
smp_expect=1-4
# flowtable-load (scripts/lib/qemu-common.sh flowtable_load), static.
cross=aarch64-linux-gnu-
needs="apt-get apt-cache dpkg-deb readelf cpp dtc cpio gzip xz depmod timeout"
lab_needs="${cross}gcc ${cross}strip ip sha256sum"
lock_wait=900
init_sh=$top/tests/qemu/macb-init.sh
# The Ethernet driver of the ports QEMU emulates: a --gen whose plan has
# no interface on it is another board's (refused before any build).
nic_driver=macb
qemu_system=qemu-system-aarch64
qemu_system_pkg=qemu-system-arm
# Without --lab the archive's QEMU boots (the patched one with --lab).
qemu_patch=aarch64
qemu_patch_lab_only=1
result_files="dt-report.txt, kconfig-report.txt"
adapt=$top/tests/qemu/zcu102-qemu-adapt.dtsi
labdtsi=$top/tests/qemu/zcu102-qemu-lab.dtsi
ksrc_tar=/usr/src/linux-source-6.12.tar.xz
# Modules the initramfs loads (with their modules.dep closure): the GEM
# driver, and what multiq/u32/skbedit plan steps need.
modules="macb sch_multiq cls_u32 act_skbedit"
# With --lab (both arms alike): conntrack (the board's nf_conntrack_max)
# and what the flowtable-load transaction needs (Debian builds them as
# modules; an initramfs has no modprobe for the kernel's request_module).
# crc32c_generic first: libcrc32c (under nf_conntrack and nf_tables) asks
# the crypto API for "crc32c" at init, a soft dependency modules.dep does
# not list (modules.softdep: "softdep libcrc32c pre: crc32c").
lab_modules="crc32c_generic nf_conntrack nf_tables nft_ct nf_flow_table_inet nft_flow_offload"
# The userland and the kernel: Debian's arm64 binary packages through a
# private apt configuration (apt_setup, fetch_pkg, fetch_tools, ... in
# scripts/lib/qemu-common.sh; scripts/qemu-board programs).
deb_arch=arm64
multiarch=aarch64-linux-gnu
tools_pkgs="busybox-static dash ethtool iproute2"

# The board file for `dtb verify`: the manifest's, else the reference
# zcu102.yml.
machine_gen() {
    [ -n "$gen" ] || return 0
    kboard=$(sed -n 's/.*"input"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$gen/manifest.json" 2>/dev/null | head -n 1)
    case $kboard in "" | /*) ;; *) [ -f "$kboard" ] || kboard=$top/$kboard ;; esac
    [ -z "$kboard" ] || [ -f "$kboard" ] || kboard=$top/meta-zynq-net/boards/zcu102.yml
    [ -f "$kboard" ] || kboard=""
}

machine_userland() {
    apt_setup
    fetch_tools
    [ -z "$lab" ] || ftload_bin=$(flowtable_load)
}

# ------------------------------------------------------------- kernel ----
kernel_abi() {
    if [ -n "${ZYNQ_NET_QEMU_KVER:-}" ]; then
        echo "$ZYNQ_NET_QEMU_KVER"
        return
    fi
    # Same version as the linux-source-6.12 whose DTS we compile.
    srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
    meta=linux-image-6.12-arm64
    [ -n "$srcver" ] && meta="$meta=$srcver"
    dep=$(apt_run apt-cache show --no-all-versions "$meta" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1)
    [ -n "$dep" ] || dep=$(apt_run apt-cache show --no-all-versions linux-image-6.12-arm64 | sed -n 's/^Depends: //p' | head -n 1)
    echo "$dep" | sed -n 's/.*linux-image-\([^ ,]*\)-arm64.*/\1/p'
}

fetch_kernel() {
    abi=$(kernel_abi)
    [ -n "$abi" ] || die "cannot find Debian's arm64 linux-image-6.12"
    kpkg=linux-image-$abi-arm64-unsigned
    fetch_pkg "$kpkg"
    kroot=$cache/pkgs/$kpkg
    kver=$abi-arm64
    if [ ! -s "$kroot/lib/modules/$kver/modules.dep" ]; then
        depmod -b "$kroot" "$kver"
    fi
    kimage=$kroot/boot/vmlinuz-$kver
    kconfig=$kroot/boot/config-$kver
    [ -f "$kimage" ] || die "no $kimage in $kpkg"
}

# The DTS sources of the installed linux-source-6.12, extracted once.
dts_src() {
    [ -r "$ksrc_tar" ] || die "needs $ksrc_tar (apt-get install linux-source-6.12)"
    srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
    dsrc=$cache/dts-src/$srcver
    if [ ! -f "$dsrc/.done" ] || [ ! -f "$dsrc/include/uapi/linux/input-event-codes.h" ]; then
        log "extracting the ZynqMP DTS from $ksrc_tar"
        rm -rf "$dsrc"
        mkdir -p "$dsrc"
        tar -C "$dsrc" --strip-components=1 -xJf "$ksrc_tar" \
            --wildcards 'linux-source-6.12/arch/arm64/boot/dts/xilinx/*' \
            'linux-source-6.12/include/dt-bindings/*' \
            'linux-source-6.12/include/uapi/linux/input-event-codes.h'
        touch "$dsrc/.done"
    fi
}

machine_kernel() {
    fetch_kernel
    dts_src
    kernel_id=$kver
    log "kernel $kver; userland: $all_pkgs"
}

# ---------------------------------------------------------------- DTB ----
# pl_nodes DTS: "PATH WHY" of every enabled node QEMU cannot emulate:
# programmable-logic IP (AXI/XXV Ethernet, AXI DMA/MCDMA) by compatible,
# and a top-level PL bus (Xilinx names it amba_pl). DTS from `dtc -O dts`
# (properties before subnodes, one per line).
pl_nodes() {
    awk '
        function path(   p, i) { p = ""; for (i = 2; i <= depth; i++) p = p "/" stack[i]; return p == "" ? "/" : p }
        function flush() { if (depth > 0 && !disabled && why != "") print path(), why; why = "" }
        /\{[[:space:]]*$/ {
            flush(); n = $0; sub(/^[[:space:]]*/, "", n); sub(/[[:space:]]*\{[[:space:]]*$/, "", n); sub(/^[^:]*:[[:space:]]*/, "", n)
            stack[++depth] = n; disabled = 0
            if (depth == 2 && n ~ /^amba_pl(@|$)/) why = "PL-bus"
            next
        }
        /^[[:space:]]*\};/ { flush(); depth--; disabled = 1; next }
        /^[[:space:]]*status = "disabled";/ { disabled = 1 }
        /^[[:space:]]*compatible = / {
            if (why == "" && match($0, /"xlnx,(axi-ethernet|xxv-ethernet|axi-dma|axi-mcdma|eth-dma|axi-10g|xxv-usxgmii|mcdma)[^"]*"/))
                why = substr($0, RSTART + 1, RLENGTH - 2)
        }
    ' "$1"
}

build_dtb() {
    mkdir -p "$out/dt"
    top_dts=$out/dt/zcu102-qemu.dts
    pl_dtsi=$out/dt/zcu102-qemu-pl-disabled.dtsi
    frag=""
    [ -n "$gen" ] && [ -f "$gen/dt/zynq-net.dtsi" ] && frag=$gen/dt/zynq-net.dtsi
    : >"$pl_dtsi"
    {
        echo "/* generated by scripts/qemu-zcu102: TEST-ONLY, for QEMU xlnx-zcu102 */"
        echo "#include \"zynqmp-zcu102-rev1.0.dts\""
        [ -n "$frag" ] && echo "#include \"$frag\""
        echo "#include \"$adapt\""
        [ -z "$lab" ] || echo "#include \"$labdtsi\""
        echo "#include \"$pl_dtsi\""
    } >"$top_dts"
    # Pass 1 finds the PL nodes; pass 2 disables them (status only: the
    # nodes stay in the DTB so `dtb verify` still sees what was generated).
    dtc_pass "$top_dts" "$out/dt/pass1.dtb" "$dsrc/arch/arm64/boot/dts/xilinx" "$dsrc/include"
    dtc -q -I dtb -O dts -o "$out/dt/pass1.dts" "$out/dt/pass1.dtb"
    pl_nodes "$out/dt/pass1.dts" >"$out/dt/pl-nodes.txt"
    {
        echo "/* PL nodes QEMU does not emulate (found by scripts/qemu-zcu102) */"
        while read -r node compat; do
            echo "&{$node} { status = \"disabled\"; }; /* $compat */"
        done <"$out/dt/pl-nodes.txt"
    } >"$pl_dtsi"
    dtc_pass "$top_dts" "$out/dt/zcu102-qemu.dtb" "$dsrc/arch/arm64/boot/dts/xilinx" "$dsrc/include"
    rm -f "$out/dt/pass1.dtb" "$out/dt/pass1.pp.dts"
    dtb=$out/dt/zcu102-qemu.dtb
    {
        echo "fragment: ${frag:-none (stock zynqmp-zcu102-rev1.0.dts)}"
        echo "adaptation: $adapt"
        [ -z "$lab" ] || echo "lab adaptation: $labdtsi"
        echo "PL nodes disabled for QEMU (not emulated):"
        if [ -s "$out/dt/pl-nodes.txt" ]; then sed 's/^/  /' "$out/dt/pl-nodes.txt"; else echo "  none"; fi
        # What the generated fragment asked for that the adaptation took
        # away or QEMU cannot provide: reported, never fatal.
        dtb_verify_report "zynq-net dtb verify $kboard (test DTB):"
    } >"$out/dt-report.txt"
}

# ---------------------------------------------------- kernel fragments ----
# Which symbols of the generated kernel fragments Debian's kernel (the one
# QEMU boots) does not have as asked: reported, not fatal.
kconfig_report() {
    rep=$out/kconfig-report.txt
    : >"$rep"
    cp "$kconfig" "$out/kernel.config"
    [ -n "$gen" ] || return 0
    for cfg in "$gen"/kernel/*.cfg; do
        [ -f "$cfg" ] || continue
        grep -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' "$cfg" | while IFS= read -r want; do
            case $want in
            "# "*) sym=${want#\# }; sym=${sym%% *}; val=n ;;
            *) sym=${want%%=*}; val=${want#*=} ;;
            esac
            have=$(grep -E "^$sym=|^# $sym is not set" "$kconfig" | head -n 1)
            case $have in
            "") hv="no $sym at all (not in this kernel's Kconfig or its menu is off)" ;;
            "# "*) hv="$sym off" ;;
            *=m) hv="$sym=m (module; loaded from the initramfs if listed in \$modules)" ;;
            *) hv=$have ;;
            esac
            if [ "${have#*=}" != "$val" ]; then
                echo "${cfg##*/}: wants $sym=$val; the emulated kernel has $hv"
            fi
        done >>"$rep"
    done
}

machine_prepare() {
    build_dtb
    kconfig_report
}

machine_initramfs() { # IR
    mkdir -p "$1/lib/aarch64-linux-gnu" "$1/lib/modules"
    deb_userland_install "$1" ld-linux-aarch64.so.1
    # The tools look up /etc/iproute2 etc. but need nothing there.

    # Modules: the modules.dep closure, dependencies first, decompressed
    # (busybox insmod takes plain ELF).
    mdir=$kroot/lib/modules/$kver
    : >"$1/lib/modules/load.order"
    mods=$modules
    [ -z "$lab" ] || mods="$mods $lab_modules"
    for m in $mods; do
        rel=$(awk -v m="$m" -F: '{ n=$1; sub(/.*\//, "", n); sub(/\.ko.*/, "", n); gsub(/-/, "_", n); if (n == m) { print; exit } }' "$mdir/modules.dep")
        if [ -z "$rel" ]; then
            grep -q "/$m.ko" "$mdir/modules.builtin" 2>/dev/null || log "module $m not in $kver (skipped)"
            continue
        fi
        # modules.dep: "mod: dep1 dep2" with dep1 needing dep2: load reversed.
        for f in $(echo "$rel" | awk -F': *' '{ n = split($2, d, " "); for (i = n; i >= 1; i--) print d[i]; print $1 }'); do
            base=${f##*/}
            base=${base%.xz}
            grep -qx "$base" "$1/lib/modules/load.order" && continue
            xz -dc "$mdir/$f" >"$1/lib/modules/$base"
            echo "$base" >>"$1/lib/modules/load.order"
        done
    done
}

machine_qemu_args() {
    qemu_opts="-M xlnx-zcu102 -m 2G"
    append="console=ttyPS0,115200 earlycon=cdns,mmio,0xff000000,115200n8 printk.devkmsg=on rdinit=/init panic=-1 loglevel=6"
    # The router in the targets file (scripts/lib/qemu-common.sh lab_taps).
    lab_desc="emulated ZCU102 router (QEMU xlnx-zcu102, Cortex-A53 x$smp, GEM/macb, TCG)"
    # The machine's four GEMs take the NICs in order (hw/arm/xlnx-zynqmp.c,
    # nd_table[0..3] -> gem0..gem3): the lab's taps are gem2 and gem3.
    if [ -n "$lab" ]; then
        nics="-nic user -nic user"
        nics="$nics -nic tap,ifname=$lab-t0,script=no,downscript=no,mac=52:54:00:10:30:02"
        nics="$nics -nic tap,ifname=$lab-t1,script=no,downscript=no,mac=52:54:00:10:30:03"
    else
        nics="-nic user -nic user -nic user -nic user"
    fi
}
