SUMMARY = "zynq-net forwarding fast path: nftables flowtable"
DESCRIPTION = "Loads an nftables flowtable at boot so established TCP/UDP \
flows between the listed interfaces bypass the classic forwarding path \
(NF_FLOW_TABLE, NFT_FLOW_OFFLOAD; the kernel side comes with the \
zynq-net-flowtable kernel feature). The current-kernel replacement for \
Freescale ASF."
HOMEPAGE = "https://github.com/zynq-net/zynq-net"
SECTION = "net"

LICENSE = "MIT"
LIC_FILES_CHKSUM = "file://${COMMON_LICENSE_DIR}/MIT;md5=0835ade698e0bcf8506ecda2f7b4f302"

SRC_URI = "file://zynq-net-flowtable.nft.in \
           file://zynq-net-flowtable.init \
           file://zynq-net-flowtable.service \
          "

S = "${ZYNQ_NET_FILES_DIR}"

# zynq-net-board: the board's fastpath.flowtable section (read at parse
# time; no generator run needed for this recipe).
inherit zynq-net-board update-rc.d systemd

# The ruleset names the board's interfaces.
PACKAGE_ARCH = "${MACHINE_ARCH}"

ZYNQ_NET_FLOWTABLE_DEVICES ??= "${@zynq_net_board_flowtable(d, 'devices')}"
ZYNQ_NET_FLOWTABLE_DEVICES[doc] = "Interfaces whose forwarded flows are offloaded to the flowtable (all must exist when the table is loaded). Default: fastpath.flowtable.interfaces of ZYNQ_NET_BOARD."

ZYNQ_NET_FLOWTABLE_HW_OFFLOAD ??= "${@zynq_net_board_flowtable(d, 'hw_offload')}"
ZYNQ_NET_FLOWTABLE_HW_OFFLOAD[doc] = "'1': the flowtable asks the drivers for hardware offload ('flags offload'). Default: fastpath.flowtable.hw_offload of ZYNQ_NET_BOARD."

# Nothing to install unless the board asks for a flowtable.
# nooelint: oelint.task.noanonpython
python __anonymous() {
    if not d.getVar('ZYNQ_NET_FLOWTABLE_DEVICES').split():
        raise bb.parse.SkipRecipe("the board (ZYNQ_NET_BOARD = \"%s\") has no fastpath.flowtable "
                                  "interfaces (and ZYNQ_NET_FLOWTABLE_DEVICES is empty)"
                                  % d.getVar('ZYNQ_NET_BOARD'))
}

do_configure[noexec] = "1"

do_compile() {
    devices=$(echo "${ZYNQ_NET_FLOWTABLE_DEVICES}" | sed 's/^ *//; s/ *$//; s/  */, /g')
    if [ "${ZYNQ_NET_FLOWTABLE_HW_OFFLOAD}" = "1" ]; then
        flags='flags offload'
    else
        flags='# no hardware offload (board: fastpath.flowtable.hw_offload)'
    fi
    sed -e "s/@DEVICES@/$devices/" -e "s/@FLAGS@/$flags/" ${S}/zynq-net-flowtable.nft.in > ${B}/zynq-net-flowtable.nft
}

do_install() {
    install -D -m 0644 ${B}/zynq-net-flowtable.nft ${D}${sysconfdir}/nftables/zynq-net-flowtable.nft
    if ${@bb.utils.contains('DISTRO_FEATURES', 'sysvinit', 'true', 'false', d)}; then
        install -D -m 0755 ${S}/zynq-net-flowtable.init ${D}${sysconfdir}/init.d/zynq-net-flowtable
    fi
    if ${@bb.utils.contains('DISTRO_FEATURES', 'systemd', 'true', 'false', d)}; then
        install -D -m 0644 ${S}/zynq-net-flowtable.service ${D}${systemd_system_unitdir}/zynq-net-flowtable.service
    fi
}

INITSCRIPT_NAME = "zynq-net-flowtable"
INITSCRIPT_PARAMS = "start 46 2 3 4 5 ."
SYSTEMD_SERVICE:${PN} = "zynq-net-flowtable.service"

CONFFILES:${PN} = "${sysconfdir}/nftables/zynq-net-flowtable.nft"
RDEPENDS:${PN} = "nftables"
