SUMMARY = "zynq-net: board description to DT/kernel fragments and boot-time network tuning"
DESCRIPTION = "The zynq-net command line tool: turns a YAML board description \
into device-tree and kernel-config fragments, a boot-time tuning plan with its \
applier, verifies kernel configs and DTBs, and runs throughput benchmarks. \
The native variant is what meta-zynq-net's zynq-net class runs at build time."
HOMEPAGE = "https://github.com/zynq-net/zynq-net"
SECTION = "net"

LICENSE = "MIT | Apache-2.0"
# The workspace declares `license = "MIT OR Apache-2.0"` in tools/Cargo.toml;
# tools/ carries no licence text yet, so the checksums point at the common
# licence files. Switch to file://LICENSE-MIT and file://LICENSE-APACHE once
# they exist in tools/.
LIC_FILES_CHKSUM = "file://${COMMON_LICENSE_DIR}/MIT;md5=0835ade698e0bcf8506ecda2f7b4f302 \
                    file://${COMMON_LICENSE_DIR}/Apache-2.0;md5=89aea4e17d99a7cacdbeed46a0096b10"

# Sources: this repository's own tools/ workspace, taken by file:// relative
# to the layer (the repository root). A git:// SRC_URI of the project would
# need SRCREV to name a commit of the very repository that holds the recipe,
# which is either always one commit behind or AUTOREV; file:// builds exactly
# the checked-out tree. Only the workspace files are listed (not tools/ as a
# whole) so a local tools/target/ build directory is neither checksummed nor
# copied.
# nooelint: oelint.vars.fileextrapaths,oelint.vars.outofcontext
FILESEXTRAPATHS:prepend := "${THISDIR}/../..:"
# The crate:// list (generated, scripts/update-crates-inc) comes first.
require ${BPN}-crates.inc
SRC_URI += "file://tools/Cargo.toml \
            file://tools/Cargo.lock \
            file://tools/crates \
           "

S = "${WORKDIR}/tools"

inherit cargo cargo-update-recipe-crates

# Build the CLI package only (the workspace also holds library crates).
CARGO_BUILD_FLAGS:append = " --package zynq-net-cli"

# tools/Cargo.toml declares rust-version 1.85; scarthgap's oe-core ships
# Rust 1.75 (RUSTVERSION ?= "1.75%"). Stop before compiling with a message
# that says what to add, instead of a cargo error after all crates unpacked.
ZYNQ_NET_RUST_MIN ?= "1.85"
ZYNQ_NET_RUST_MIN[doc] = "Lowest Rust version the tools build with (workspace rust-version)."

python zynq_net_check_rust() {
    have = (d.getVar('RUSTVERSION') or '').rstrip('%')
    need = d.getVar('ZYNQ_NET_RUST_MIN')
    if have and bb.utils.vercmp_string(have, need) < 0:
        bb.fatal("zynq-net-tools needs Rust >= %s (tools/Cargo.toml rust-version) but "
                 "this build uses RUSTVERSION = \"%s\". Add the meta-lts-mixins layer, "
                 "branch scarthgap/rust (kas: kas/include/rust-mixin.yml), which provides "
                 "a newer Rust for scarthgap." % (need, have))
}
do_configure[prefuncs] += "zynq_net_check_rust"

BBCLASSEXTEND = "native"
