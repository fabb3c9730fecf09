//! Kernel config fragments: one dependency-closed `.cfg` per feature and a
//! kernel-cache `.scc` listing them.
//!
//! Each feature lists the symbols it needs *and* the symbols those depend
//! on (Kconfig `depends on`), because `olddefconfig` silently drops a symbol
//! whose dependency is off (`NET_SCH_MULTIQ` on
//! `mpc85xx_smp_defconfig`, where `NET_SCHED` is off). The lists were
//! checked against Debian's linux-source-6.12 Kconfig files named beside
//! each feature; tests/kernel/ proves them with merge_config.sh.

use zynq_net_model::drivers;
use zynq_net_model::hi::HiIfaceDt;
use zynq_net_model::model::{Arch, Driver, KernelFlavour};
use zynq_net_model::HiBoard;

/// A symbol value in a fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Value {
    /// `=y`.
    Y,
    /// `=m`.
    M,
}

/// Where a symbol exists, when not in every kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct VendorOnly {
    /// Which kernel trees have the symbol.
    pub trees: &'static str,
    /// Where it is defined (for the report).
    pub source: &'static str,
    /// What the symbol does and what replaces it elsewhere (for the report).
    pub note: &'static str,
}

/// Symbols that are not in the reference kernel (Debian linux-source-6.12,
/// i.e. mainline 6.12): vendor trees or newer kernels. They are written to
/// the fragments as the board requires them, and every check reports them
/// as vendor-only instead of passing or failing them silently
/// (`zynq-net kconfig verify`, tests/kernel/).
pub const VENDOR_ONLY: &[(&str, VendorOnly)] = &[
    (
        "AS_FASTPATH",
        VendorOnly {
            trees: "QorIQ SDK kernel (kernel flavour qoriq-sdk)",
            source: "QorIQ SDK linux net/Kconfig: Application Specific FastPath (asf)",
            note: "current kernels use the nftables flowtable (NF_FLOW_TABLE, NFT_FLOW_OFFLOAD) instead",
        },
    ),
    (
        "AXIENET_HAS_MCDMA",
        VendorOnly {
            trees: "linux-xlnx (kernel flavour linux-xlnx)",
            source: "linux-xlnx drivers/net/ethernet/xilinx/Kconfig (depends on XILINX_AXI_EMAC)",
            note: "builds axienet's MCDMA path (xlnx,num-queues, xlnx,channel-ids); mainline axienet has no MCDMA",
        },
    ),
    (
        "XILINX_PHY",
        VendorOnly {
            trees: "linux-xlnx (kernel flavour linux-xlnx)",
            source: "linux-xlnx drivers/net/phy/Kconfig: \"Drivers for Xilinx PHYs\" (xilinx_phy.c)",
            note: "the Xilinx PCS/PMA PHY driver, which reads xlnx,phy-type on the PCS/PMA node; mainline has none",
        },
    ),
    (
        "IO_URING_ZCRX",
        VendorOnly {
            trees: "Linux 6.15 and later",
            source: "io_uring/Kconfig (6.15+): depends on IO_URING, NET_RX_BUSY_POLL, PAGE_POOL",
            note: "io_uring zero-copy receive; absent from 6.12",
        },
    ),
];

/// Looks a symbol up in [`VENDOR_ONLY`].
pub fn vendor_only(sym: &str) -> Option<VendorOnly> {
    VENDOR_ONLY.iter().find(|(s, _)| *s == sym).map(|(_, v)| *v)
}

/// One kernel feature fragment.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Feature {
    /// Short name; the file is `zynq-net-NAME.cfg`.
    pub name: &'static str,
    /// One-line description (`.scc` comment and `.cfg` header).
    pub description: &'static str,
    /// `hardware` or `non-hardware` (kernel-cache `kconf` class).
    pub class: &'static str,
    /// Symbols without the `CONFIG_` prefix, in dependency order.
    pub symbols: Vec<(&'static str, Value)>,
}

/// Every GPIO controller label the board's device-tree sections name
/// (SFP cage lines, PHY resets).
fn board_gpio_controllers<'b>(dts: &[&'b HiIfaceDt]) -> Vec<&'b str> {
    let mut out = Vec::new();
    for d in dts {
        if let Some(s) = &d.sfp {
            for g in [&s.mod_def0_gpio, &s.los_gpio, &s.tx_fault_gpio, &s.tx_disable_gpio].into_iter().flatten() {
                out.push(g.controller.as_str());
            }
        }
        for dev in d.mdio.iter().flat_map(|m| m.devices.iter()) {
            out.extend(dev.reset_gpio.as_ref().map(|g| g.controller.as_str()));
        }
    }
    out
}

fn y(list: &[&'static str]) -> Vec<(&'static str, Value)> {
    list.iter().map(|s| (*s, Value::Y)).collect()
}

/// The features a board needs, in a fixed order. Depends only on which
/// features the board uses and on its hardware (never on tuning values), so
/// tuning-only changes leave the fragments byte-identical.
pub fn features(b: &HiBoard) -> Vec<Feature> {
    let mut out = Vec::new();
    let ifs = &b.interfaces;
    // Ethernet drivers and DMA engines (drivers/net/ethernet/*/Kconfig).
    let mut drv = Vec::new();
    let mut drivers: Vec<Driver> = ifs.iter().map(|i| i.driver).collect();
    drivers.sort();
    drivers.dedup();
    for d in drivers {
        // The driver row's symbols (zynq_net_model::drivers::facts: each
        // row cites its Kconfig file and the dependencies it closes).
        drv.extend(y(drivers::facts(d).kconfig));
    }
    // What the device tree names beside the MACs: an SFP cage
    // (drivers/net/phy/Kconfig: SFP depends on I2C && PHYLINK, and PHYLINK
    // comes selected by the phylink MACs, XILINX_AXI_EMAC and MACB) and,
    // on linux-xlnx, the PCS/PMA PHY driver that reads `xlnx,phy-type`
    // (linux-xlnx drivers/net/phy/xilinx_phy.c; XILINX_PHY, vendor-only).
    let dts: Vec<&HiIfaceDt> = ifs.iter().filter_map(|i| i.dt.as_ref()).collect();
    let cages: Vec<&zynq_net_model::model::Sfp> = dts.iter().filter_map(|d| d.sfp.as_ref()).collect();
    if !cages.is_empty() {
        drv.extend(y(&["I2C", "SFP"]));
    }
    // The controllers the cages and PHY resets use (sfp_probe and
    // of_mdiobus_register defer until their I2C adapter and GPIO lines
    // exist): the SoC's own I2C controller when a cage's bus is it or a
    // channel below it, the mux the bus is a channel of, the SoC's GPIO
    // controller when a line is on it (drivers::soc_controllers,
    // drivers::I2C_MUXES).
    let soc = drivers::soc_controllers(b.board.soc);
    let mut ctl: Vec<&'static str> = Vec::new();
    for c in &cages {
        let Some(bus) = c.i2c_bus.as_deref() else { continue };
        if let Some(sc) = &soc {
            let on_soc = sc.i2c_labels.contains(&bus) || bus.split('/').any(|part| sc.i2c_addrs.contains(&part));
            if on_soc {
                ctl.extend(sc.i2c_symbols);
            }
        }
        if let Some(syms) = c.i2c_mux.as_deref().and_then(drivers::i2c_mux_symbols) {
            ctl.extend(["I2C"]);
            ctl.extend(syms);
        }
    }
    if let Some(sc) = &soc {
        if board_gpio_controllers(&dts).contains(&sc.gpio_label) {
            ctl.extend(sc.gpio_symbols);
        }
    }
    for sym in ctl {
        if !drv.iter().any(|(s, _)| *s == sym) {
            drv.push((sym, Value::Y));
        }
    }
    let pcs_pma = dts.iter().any(|d| d.mdio.as_ref().is_some_and(|m| m.devices.iter().any(|x| x.pcs_pma.is_some())));
    if pcs_pma && b.board.kernel == KernelFlavour::LinuxXlnx {
        drv.extend(y(&["XILINX_PHY"]));
    }
    // drivers/net/phy/Kconfig (6.12): DP83867_PHY, inside `if PHYLIB`. Without
    // it phy_attach_direct binds the generic PHY driver, which leaves the
    // board's ti,* delays unapplied.
    let dp83867 = dts.iter().any(|d| d.mdio.as_ref().is_some_and(|m| m.devices.iter().any(|x| x.dp83867.is_some())));
    if dp83867 {
        drv.extend(y(&["PHYLIB", "DP83867_PHY"]));
    }
    // drivers/net/phy/Kconfig (6.12): XILINX_GMII2RGMII, inside `if PHYLIB`.
    // Without it the converter stays at its reset speed whatever the PHY
    // negotiates (xgmiitorgmii_read_status writes the speed).
    let conv = dts.iter().any(|d| d.mdio.as_ref().is_some_and(|m| m.devices.iter().any(|x| x.gmii_to_rgmii.is_some())));
    if conv {
        if !dp83867 {
            drv.extend(y(&["PHYLIB"]));
        }
        drv.extend(y(&["XILINX_GMII2RGMII"]));
    }
    if !drv.is_empty() {
        out.push(Feature {
            name: "drivers",
            description: "Ethernet drivers and DMA engines of the board",
            class: "hardware",
            symbols: drv,
        });
    }
    // e500v2 has no classic FPU; current GCC/Rust emit FPU code for ppce500v2.
    if b.board.soc.is_qoriq() && b.board.arch == Arch::Powerpc {
        // arch/powerpc/Kconfig: MATH_EMULATION depends on BOOKE (e500 is BookE); the
        // choice below it must be FULL (HW_UNIMPLEMENTED assumes an FPU).
        out.push(Feature {
            name: "e500v2",
            description: "e500v2 (P1010/P1020/P2020): floating-point emulation for classic FPU code",
            class: "hardware",
            symbols: y(&["MATH_EMULATION", "MATH_EMULATION_FULL"]),
        });
    }
    // net/Kconfig: RPS (default y) depends on SMP && SYSFS; XPS (no prompt,
    // default y) on SMP; RFS is part of RPS (rps_sock_flow_entries).
    if ifs.iter().any(|i| !i.rps.is_empty() || !i.xps.is_empty() || i.rfs_flow_cnt.is_some())
        || b.system.rfs_sock_flow_entries.is_some()
    {
        out.push(Feature {
            name: "rps",
            description: "RPS/RFS/XPS (Documentation/networking/scaling.rst)",
            class: "non-hardware",
            symbols: y(&["SMP", "SYSFS", "RPS", "XPS"]),
        });
    }
    // net/sched/Kconfig: NET_SCH_MULTIQ needs NET_SCHED; NET_CLS_U32 needs NET_CLS;
    // NET_ACT_SKBEDIT needs NET_CLS_ACT.
    if ifs.iter().any(|i| i.qdisc.is_some()) {
        out.push(Feature {
            name: "multiq",
            description:
                "multiq qdisc, u32 classifier and skbedit queue mapping (Documentation/networking/multiqueue.rst)",
            class: "non-hardware",
            symbols: y(&["NET_SCHED", "NET_SCH_MULTIQ", "NET_CLS", "NET_CLS_U32", "NET_CLS_ACT", "NET_ACT_SKBEDIT"]),
        });
    }
    // net/netfilter/Kconfig: NF_FLOW_TABLE needs NF_CONNTRACK and NETFILTER_INGRESS;
    // NFT_FLOW_OFFLOAD needs NF_TABLES and NF_FLOW_TABLE; NF_TABLES_INET (the
    // `inet` table the flowtable's rule lives in) depends on IPV6, and the
    // IPv4/IPv6 netfilter menus sit under NET and INET (net/Kconfig): listed, so the
    // fragment is closed over its dependencies on a config with IPv6 off.
    if b.fastpath.flowtable.is_some() {
        out.push(Feature {
            name: "flowtable",
            description: "nftables flowtable fast path for forwarding",
            class: "non-hardware",
            symbols: y(&[
                "NET",
                "INET",
                "IPV6",
                "NET_INGRESS",
                "NETFILTER",
                "NETFILTER_INGRESS",
                "NETFILTER_ADVANCED",
                "NF_CONNTRACK",
                "NF_TABLES",
                "NF_TABLES_INET",
                "NF_TABLES_IPV4",
                "NF_FLOW_TABLE_INET",
                "NF_FLOW_TABLE",
                "NFT_CT",
                "NFT_FLOW_OFFLOAD",
            ]),
        });
    } else if b.system.conntrack_max.is_some() {
        out.push(Feature {
            name: "conntrack",
            description: "connection tracking (nf_conntrack_max)",
            class: "non-hardware",
            symbols: y(&["NETFILTER", "NF_CONNTRACK"]),
        });
    }
    // io_uring/Kconfig (6.15+): IO_URING_ZCRX depends on IO_URING, NET_RX_BUSY_POLL, PAGE_POOL.
    if ifs.iter().any(|i| i.zero_copy_rx.is_some()) {
        out.push(Feature {
            name: "zcrx",
            description: "io_uring zero-copy receive (not with PREEMPT_RT: needs NET_RX_BUSY_POLL)",
            class: "non-hardware",
            symbols: y(&["IO_URING", "NET_RX_BUSY_POLL", "PAGE_POOL", "IO_URING_ZCRX"]),
        });
    }
    if b.fastpath.asf.is_some() && b.board.kernel == KernelFlavour::QoriqSdk {
        out.push(Feature {
            name: "asf",
            description: "Freescale Application Specific Fastpath (QorIQ SDK kernel only)",
            class: "non-hardware",
            symbols: y(&["NETFILTER", "NF_CONNTRACK", "AS_FASTPATH"]),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::testutil::{loaded, repo_text};

    fn feature_names(text: &str) -> Vec<&'static str> {
        super::features(&loaded(text)).iter().map(|f| f.name).collect()
    }

    /// The ASF fragment (CONFIG_AS_FASTPATH) comes with `fastpath.asf` on
    /// the QorIQ SDK kernel, not with the SDK kernel alone: the P1020RDB on
    /// qoriq-sdk without ASF (a valid board: the legacy kernel, no fast
    /// path) has none, the good fixture p1020rdb-asf has it.
    #[test]
    fn asf_fragment_needs_asf_not_only_the_sdk_kernel() {
        let p1020 = repo_text("meta-zynq-net/boards/p1020rdb.yml");
        let sdk = p1020.replacen("  kernel: linux-qoriq", "  kernel: qoriq-sdk", 1);
        assert_ne!(sdk, p1020);
        assert!(!feature_names(&sdk).contains(&"asf"), "{:?}", feature_names(&sdk));
        let asf = repo_text("tools/crates/zynq-net-cli/tests/fixtures/good/p1020rdb-asf.yml");
        assert!(feature_names(&asf).contains(&"asf"), "{:?}", feature_names(&asf));
    }
}
