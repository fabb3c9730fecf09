SUMMARY = "zynq-net boot-time network tuning of the board"
DESCRIPTION = "The tuning plan generated from ZYNQ_NET_BOARD, the zynq-net-apply \
applier that executes it at boot (sysvinit script and systemd unit) and the \
board's sysctl.d settings. `zynq-net-apply status` reports what is applied."
HOMEPAGE = "https://github.com/zynq-net/zynq-net"
SECTION = "net"

LICENSE = "MIT"
LIC_FILES_CHKSUM = "file://${COMMON_LICENSE_DIR}/MIT;md5=0835ade698e0bcf8506ecda2f7b4f302"

SRC_URI = "file://run-ptest"

S = "${ZYNQ_NET_FILES_DIR}"

inherit zynq-net update-rc.d systemd ptest

# The plan depends on the board, which depends on the machine.
PACKAGE_ARCH = "${MACHINE_ARCH}"

# Nothing here is compiled for the target (the generator runs on the build
# host; the applier is sh): without this, the cross compiler and the C
# library would be built before this recipe for nothing.
INHIBIT_DEFAULT_DEPS = "1"

do_configure[noexec] = "1"

do_compile() {
    zynq_net_gen
}

# Install paths: docs/artifacts.md of the zynq-net repository.
do_install() {
    install -D -m 0644 ${ZYNQ_NET_GEN_DIR}/tuning/zynq-net.plan ${D}${sysconfdir}/zynq-net/zynq-net.plan
    install -D -m 0755 ${ZYNQ_NET_GEN_DIR}/tuning/zynq-net-apply ${D}${sbindir}/zynq-net-apply
    install -D -m 0644 ${ZYNQ_NET_GEN_DIR}/tuning/99-zynq-net.conf ${D}${sysconfdir}/sysctl.d/99-zynq-net.conf
    if ${@bb.utils.contains('DISTRO_FEATURES', 'sysvinit', 'true', 'false', d)}; then
        install -D -m 0755 ${ZYNQ_NET_GEN_DIR}/tuning/zynq-net.init ${D}${sysconfdir}/init.d/zynq-net
    fi
    if ${@bb.utils.contains('DISTRO_FEATURES', 'systemd', 'true', 'false', d)}; then
        install -D -m 0644 ${ZYNQ_NET_GEN_DIR}/tuning/zynq-net.service ${D}${systemd_system_unitdir}/zynq-net.service
    fi
    # system.irqbalance: ban-pinned (irqbalance --policyscript=, docs/applier.md)
    if [ -f ${ZYNQ_NET_GEN_DIR}/tuning/zynq-net-irqbalance-policy ]; then
        install -D -m 0755 ${ZYNQ_NET_GEN_DIR}/tuning/zynq-net-irqbalance-policy ${D}${sysconfdir}/zynq-net/irqbalance-policy
    fi
    # Interfaces that appear after the boot-time run (late probe, hot-plug).
    if [ -f ${ZYNQ_NET_GEN_DIR}/tuning/90-zynq-net.rules ]; then
        install -D -m 0644 ${ZYNQ_NET_GEN_DIR}/tuning/90-zynq-net.rules ${D}${nonarch_base_libdir}/udev/rules.d/90-zynq-net.rules
    fi
}

# Artifact kinds of manifest.json (docs/artifacts.md) this recipe places on
# the target, or knowingly leaves to other recipes. A kind the generator
# gains later stops the build here instead of silently missing from the
# image; tests/yocto/test_recipe_contract.py checks the reference boards.
ZYNQ_NET_KNOWN_KINDS = "dtsi dtso scc kconfig plan applier sysvinit systemd sysctl udev irqbalance"

python zynq_net_check_manifest() {
    import json, os
    manifest = os.path.join(d.getVar('ZYNQ_NET_GEN_DIR'), 'manifest.json')
    known = set(d.getVar('ZYNQ_NET_KNOWN_KINDS').split())
    with open(manifest) as f:
        artifacts = json.load(f).get('artifacts', [])
    unknown = ['%s (%s)' % (a.get('path'), a.get('kind')) for a in artifacts if a.get('kind') not in known]
    if unknown:
        bb.fatal("zynq-net-tuning does not know where to install %s from %s: add them to "
                 "do_install and ZYNQ_NET_KNOWN_KINDS" % (', '.join(unknown), manifest))
}
do_install[postfuncs] += "zynq_net_check_manifest"

do_install_ptest() {
    install -m 0644 ${ZYNQ_NET_GEN_DIR}/manifest.json ${D}${PTEST_PATH}/manifest.json
}

INITSCRIPT_NAME = "zynq-net"
# As the script's LSB header says: runlevel S, after udev (S 04), before
# networking (runlevels 2-5).
INITSCRIPT_PARAMS = "start 05 S ."

SYSTEMD_SERVICE:${PN} = "zynq-net.service"

FILES:${PN} += "${sysconfdir}/zynq-net ${sysconfdir}/sysctl.d ${nonarch_base_libdir}/udev/rules.d"
CONFFILES:${PN} = "${sysconfdir}/zynq-net/zynq-net.plan ${sysconfdir}/sysctl.d/99-zynq-net.conf"

# The applier is POSIX sh calling ip, ethtool and tc.
RDEPENDS:${PN} = "ethtool iproute2-ip iproute2-tc"
# run-ptest: the applier and plan, plus grep/sed/head of the base utilities.
RDEPENDS:${PN}-ptest += "${PN} ${VIRTUAL-RUNTIME_base-utils}"
