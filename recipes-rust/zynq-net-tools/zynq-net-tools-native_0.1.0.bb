SUMMARY = "zynq-net generator: board YAML to DT/kernel fragments and boot tuning"
DESCRIPTION = "The zynq-net command line tool built for the build host only: \
turns a YAML board description into device-tree and kernel-config fragments \
and a boot-time tuning plan with its applier, and verifies kernel configs \
and DTBs. meta-zynq-net's zynq-net class runs it at build time; nothing of \
it goes on the target. The benchmark runner (zynq-net bench, lab) is not \
built here: it is a lab-host tool (cargo install, see the README)."
HOMEPAGE = "https://github.com/zynq-net/zynq-net"
SECTION = "devel"

LICENSE = "MIT | Apache-2.0"
# tools/Cargo.toml: license = "MIT OR Apache-2.0"; the texts are at the
# repository root, unpacked beside tools/ (S).
LIC_FILES_CHKSUM = "file://../LICENSE-MIT;md5=b49ed64125cab61dfd716ca67c78f60a \
                    file://../LICENSE-APACHE;md5=22a53954e4e0ec258dfce4391e905dac"

# Sources: this repository's own tools/ workspace, by file:// from the top
# of this layer (the repository root, ZYNQ_NET_TOOLS_LAYERDIR from
# conf/layer.conf). A git:// SRC_URI of the project would need SRCREV to
# name a commit of the very repository that holds the recipe, which is
# either always one commit behind or AUTOREV; file:// builds exactly the
# checked-out tree. Only the workspace files are listed (not tools/ as a
# whole) so a local tools/target/ build directory is neither checksummed
# nor copied.
# (A .bb setting FILESEXTRAPATHS: the files are this layer's own, not the
# recipe folder's; SRC_URI stays path-free so sstate is shared between
# checkouts.)
# nooelint: oelint.vars.fileextrapaths,oelint.vars.outofcontext
FILESEXTRAPATHS:prepend := "${ZYNQ_NET_TOOLS_LAYERDIR}:"
# The crate:// list (generated: scripts/update-crates-inc) comes first.
require zynq-net-tools-crates.inc
SRC_URI += "file://tools/Cargo.toml \
            file://tools/Cargo.lock \
            file://tools/crates \
            file://LICENSE-MIT \
            file://LICENSE-APACHE \
           "

# Where do_unpack puts file:// sources: UNPACKDIR from styhead on,
# WORKDIR in scarthgap (which has no UNPACKDIR).
ZYNQ_NET_FILES_DIR = "${@d.getVar('UNPACKDIR') or d.getVar('WORKDIR')}"
S = "${ZYNQ_NET_FILES_DIR}/tools"

inherit cargo cargo-update-recipe-crates
inherit_defer native

# The generator only: the CLI without its default `bench` feature, so the
# benchmark crate (and indicatif) is not compiled.
CARGO_BUILD_FLAGS:append = " --package zynq-net-cli --no-default-features"
# Built for the build host, where it runs for milliseconds once per board:
# unoptimised, no LTO, 16 codegen units, applied to the `release` build
# cargo.bbclass runs (it passes --release and installs from
# target/<triple>/release). Measured cold on a 2-core host (user + system):
# 114 s of CPU, against 237-248 s with fat LTO and one codegen unit
# (docs/yocto.md); `gen` of every reference board gives the same bytes.
export CARGO_PROFILE_RELEASE_OPT_LEVEL = "0"
export CARGO_PROFILE_RELEASE_LTO = "off"
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS = "16"

# tools/Cargo.toml's rust-version (tests/yocto/test_rust_version.py keeps
# the two equal and checks that no locked crate needs more). Stock
# scarthgap oe-core ships Rust 1.75 (RUSTVERSION ?= "1.75%").
ZYNQ_NET_RUST_MIN ?= "1.75"
ZYNQ_NET_RUST_MIN[doc] = "Lowest Rust version the tools build with (tools/Cargo.toml rust-version)."

# Refuse at parse time, with the reason, instead of a cargo error hours
# later (after rust-native): anything that depends on the generator then
# reports this message when bitbake builds the task graph.
# nooelint: oelint.task.noanonpython
python __anonymous() {
    have = (d.getVar('RUSTVERSION') or '').rstrip('%')
    need = d.getVar('ZYNQ_NET_RUST_MIN')
    if not have:
        raise bb.parse.SkipRecipe("RUSTVERSION is not set: no Rust toolchain recipes in this "
                                  "layer set (zynq-net-tools needs Rust >= %s)" % need)
    if bb.utils.vercmp_string(have, need) < 0:
        raise bb.parse.SkipRecipe("zynq-net-tools needs Rust >= %s (tools/Cargo.toml "
                                  "rust-version) but this layer set builds Rust %s "
                                  "(RUSTVERSION): use oe-core scarthgap's Rust 1.75 or newer"
                                  % (need, have))
}
