//! `dtb verify`: checks a compiled device tree against the board — every
//! property the fragment writes (the same typed values, [`crate::dtval`]),
//! every property the port's driver probe reads ([`crate::probe`]), and
//! duplicate nodes (a MAC described twice: by a generated `pl.dtsi` and by
//! the board's `node`).
//!
//! Nodes are found by label through `/__symbols__` (DTBs built with
//! `dtc -@`), else by the board's `dt.path`, else by compatible and unit
//! address, so vendor DTBs without symbols can be checked too.

use zynq_net_model::hi::{HiIfaceDt, HiInterface};
use zynq_net_model::model::{Driver, KernelFlavour, Soc};
use zynq_net_model::HiBoard;

use crate::dt::{self, Node, PL_BUS};
use crate::dtval::{show, Encoded, Prop};
use crate::probe::{self, NodeProps};

/// A DTB node with its path.
#[derive(Clone, Copy)]
struct At<'b, 'a> {
    path: &'b str,
    node: fdt::node::FdtNode<'b, 'a>,
}

impl NodeProps for fdt::node::FdtNode<'_, '_> {
    fn prop(&self, name: &str) -> Option<&[u8]> {
        self.property(name).map(|p| p.value)
    }
}

/// Every node of the tree with its full path, in tree order.
fn all_paths<'b, 'a>(fdt: &'b fdt::Fdt<'a>) -> Vec<(String, fdt::node::FdtNode<'b, 'a>)> {
    fn walk<'b, 'a>(path: String, n: fdt::node::FdtNode<'b, 'a>, out: &mut Vec<(String, fdt::node::FdtNode<'b, 'a>)>) {
        for c in n.children() {
            let p = if path == "/" { format!("/{}", c.name) } else { format!("{path}/{}", c.name) };
            walk(p.clone(), c, out);
            out.push((p, c));
        }
    }
    let mut out = Vec::new();
    if let Some(root) = fdt.find_node("/") {
        walk("/".into(), root, &mut out);
    }
    out
}

/// The result of checking a DTB.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    /// Nodes checked.
    pub checked: usize,
    /// Problems, one line each.
    pub problems: Vec<String>,
    /// How each port's node was found (`eth1: /amba_pl@0/ethernet@a0000000 (label)`).
    pub found: Vec<String>,
}

struct Tree<'b, 'a> {
    fdt: &'b fdt::Fdt<'a>,
    nodes: Vec<(String, fdt::node::FdtNode<'b, 'a>)>,
}

impl<'b, 'a> Tree<'b, 'a> {
    fn symbol(&self, label: &str) -> Option<&'a str> {
        self.fdt.find_node("/__symbols__")?.property(label)?.as_str()
    }
    fn get(&self, path: &str) -> Option<At<'_, 'a>> {
        self.nodes.iter().find(|(p, _)| p == path).map(|(p, n)| At { path: p.as_str(), node: *n })
    }
    fn phandle_of(&self, label: &str) -> Option<u32> {
        let n = self.fdt.find_node(self.symbol(label)?)?;
        let p = n.property("phandle").or_else(|| n.property("linux,phandle"))?;
        p.value.try_into().ok().map(u32::from_be_bytes)
    }
    fn by_phandle(&self, ph: u32) -> Option<At<'_, 'a>> {
        self.nodes
            .iter()
            .find(|(_, n)| {
                n.property("phandle")
                    .or_else(|| n.property("linux,phandle"))
                    .is_some_and(|p| p.value == ph.to_be_bytes())
            })
            .map(|(p, n)| At { path: p.as_str(), node: *n })
    }
    /// `#interrupt-cells` of a node's interrupt parent (GIC 3, MPIC 4).
    fn irq_cells(&self, n: &fdt::node::FdtNode<'_, '_>) -> usize {
        let parent = n
            .property("interrupt-parent")
            .and_then(|p| p.value.try_into().ok())
            .map(u32::from_be_bytes)
            .and_then(|ph| self.by_phandle(ph));
        parent
            .and_then(|p| p.node.property("#interrupt-cells"))
            .and_then(|p| p.value.try_into().ok())
            .map_or(3, |b| u32::from_be_bytes(b) as usize)
    }
}

/// Unit addresses of the SoC's own Ethernet labels (zynqmp.dtsi gem0-3,
/// zynq-7000.dtsi gem0-1; enet0-2: pq3-etsec2-N.dtsi on P1010/P1020,
/// pq3-etsec1-N.dtsi on P2020, as p1010si-post.dtsi, p1020si-post.dtsi and
/// p2020si-post.dtsi include them).
fn soc_unit_address(soc: Soc, label: &str) -> Option<u64> {
    let t: &[(&str, u64)] = match soc {
        Soc::Zynqmp => &[("gem0", 0xff0b_0000), ("gem1", 0xff0c_0000), ("gem2", 0xff0d_0000), ("gem3", 0xff0e_0000)],
        Soc::Zynq7000 => &[("gem0", 0xe000_b000), ("gem1", 0xe000_c000)],
        Soc::QoriqP1010 | Soc::QoriqP1020 => &[("enet0", 0xb0000), ("enet1", 0xb1000), ("enet2", 0xb2000)],
        Soc::QoriqP2020 => &[("enet0", 0x24000), ("enet1", 0x25000), ("enet2", 0x26000)],
        Soc::Generic => &[],
    };
    t.iter().find(|(l, _)| *l == label).map(|(_, a)| *a)
}

fn unit_address(name: &str) -> Option<u64> {
    u64::from_str_radix(name.split_once('@')?.1.split(',').next()?, 16).ok()
}

fn has_compat(n: &fdt::node::FdtNode<'_, '_>, list: &[&str]) -> bool {
    n.compatible().is_some_and(|c| c.all().any(|x| list.contains(&x)))
}

/// Finds a port's node: `(path, how)` or the reason it cannot be found.
fn locate<'t>(
    t: &'t Tree<'_, '_>,
    b: &HiBoard,
    driver: Driver,
    dt: &HiIfaceDt,
) -> Result<(At<'t, 't>, &'static str), String> {
    if let Some(p) = t.symbol(&dt.label) {
        return t
            .get(p)
            .map(|a| (a, "label"))
            .ok_or_else(|| format!("&{} points at {p}, which is not in the tree", dt.label));
    }
    if let Some(p) = &dt.path {
        return t.get(p).map(|a| (a, "path")).ok_or_else(|| format!("no node at dt.path {p}"));
    }
    let addr = dt.node.as_ref().map(|n| n.reg).or_else(|| soc_unit_address(b.board.soc, &dt.label));
    let compat = zynq_net_model::drivers::facts(driver).compatibles;
    if let Some(a) = addr {
        let hits: Vec<_> =
            t.nodes.iter().filter(|(_, n)| unit_address(n.name) == Some(a) && has_compat(n, compat)).collect();
        if let [(p, n)] = hits.as_slice() {
            return Ok((At { path: p.as_str(), node: *n }, "compatible + unit address"));
        }
    }
    let why = if t.fdt.find_node("/__symbols__").is_some() {
        "no such label in /__symbols__ (the board DTS or pl.dtsi lacks it)"
    } else {
        "the DTB has no /__symbols__ (compile with dtc -@, or give dt.path)"
    };
    Err(format!("&{}: {why}", dt.label))
}

fn check_props(t: &Tree<'_, '_>, at: At<'_, '_>, props: &[Prop], out: &mut Vec<String>) {
    for p in props {
        let Some(have) = at.node.property(&p.name) else {
            out.push(format!("missing prop  {}: {} (wanted {})", at.path, p.name, p.dts()));
            continue;
        };
        match p.encode(&|l| t.phandle_of(l)) {
            Encoded::Bytes(want) if want != have.value => {
                out.push(format!("different     {}: {} is {}, wanted {}", at.path, p.name, show(have.value), p.dts()))
            }
            Encoded::Len(n) if n != have.value.len() => out.push(format!(
                "different     {}: {} has {} byte(s), wanted {n} ({})",
                at.path,
                p.name,
                have.value.len(),
                p.dts()
            )),
            _ => {}
        }
    }
}

fn check_children(t: &Tree<'_, '_>, at: At<'_, '_>, children: &[Node], rep: &mut Report) {
    for c in children {
        let cpath = format!("{}/{}", at.path, c.name);
        match t.get(&cpath) {
            Some(cn) => {
                rep.checked += 1;
                check_props(t, cn, &c.props, &mut rep.problems);
                check_children(t, cn, &c.children, rep);
            }
            None => rep.problems.push(format!("missing node  {cpath}")),
        }
    }
}

/// Everything the board asked for that the DTB lacks or has differently,
/// plus what the drivers' probe would refuse.
pub fn verify(board: &HiBoard, fdt: &fdt::Fdt<'_>) -> Report {
    let t = Tree { fdt, nodes: all_paths(fdt) };
    let view = dt::view(board);
    let mut rep = Report::default();
    // Rule soc-dts, as `check --kernel-tree` applies it to the board DTS:
    // the root compatible names the SoC (fsl,P2020RDB-PC: qoriq-p2020).
    let root = fdt.find_node("/").and_then(|n| n.property("compatible")).map(|p| crate::probe::strings(p.value));
    if let Some(compat) = root {
        if let Some(s) = zynq_net_model::validate::soc_of_compatible(&compat) {
            if s != board.board.soc {
                rep.problems.push(format!(
                    "soc           /: [soc-dts] root compatible {} is a {s} board, the board file says soc `{}`",
                    compat.join(", "),
                    board.board.soc
                ));
            }
        }
    }
    let flavour = board.board.kernel;
    let mut patches = view.patches.iter();
    let mut pl = view.pl_nodes.chunks(2);
    for i in &board.interfaces {
        let Some(d) = &i.dt else { continue };
        let at = match locate(&t, board, i.driver, d) {
            Ok((at, how)) => {
                rep.found.push(format!("{}: {} ({how})", i.name, at.path));
                at
            }
            Err(e) => {
                rep.problems.push(format!("missing node  {e}"));
                if d.node.is_none() {
                    patches.next();
                } else {
                    pl.next();
                }
                continue;
            }
        };
        rep.checked += 1;
        if d.node.is_none() {
            let Some(p) = patches.next() else { continue };
            check_props(&t, at, &p.props, &mut rep.problems);
            check_children(&t, at, &p.children, &mut rep);
            // `fixed-link`: the node we add wins over a legacy property the
            // overlay cannot delete (of_phy_is_fixed_link).
            for del in p.delete.iter().filter(|d| *d != "fixed-link") {
                // The overlay sets xlnx,phy-type to the matching value instead.
                let ok_value = p.overlay_props.iter().find(|o| &o.name == del).map(|o| o.encode(&|_| None));
                if let Some(v) = at.node.property(del) {
                    if ok_value != Some(Encoded::Bytes(v.value.to_vec())) {
                        rep.problems.push(format!(
                            "not deleted   {}: {del} is {} (the fragment deletes it)",
                            at.path,
                            show(v.value)
                        ));
                    }
                }
            }
        } else if let Some([dma, eth]) = pl.next() {
            check_props(&t, at, &eth.props, &mut rep.problems);
            check_children(&t, at, &eth.children, &mut rep);
            let dpath = format!("{}/{}", at.path.rsplit_once('/').map_or("", |x| x.0), dma.name);
            match t.symbol(&dma.label).and_then(|p| t.get(p)).or_else(|| t.get(&dpath)) {
                Some(da) => {
                    rep.checked += 1;
                    check_props(&t, da, &dma.props, &mut rep.problems);
                    check_children(&t, da, &dma.children, &mut rep);
                }
                None => rep.problems.push(format!("missing node  {dpath} (&{})", dma.label)),
            }
            // A generated label that names another node: the base tree
            // already has it (a design pl.dtsi), and the overlay's node is a
            // duplicate of the design's.
            let ours = format!("/{PL_BUS}/{}", eth.name);
            if at.path != ours && t.get(&ours).is_some() {
                rep.problems.push(format!("duplicate label &{}: it names {}, not the node zynq-net added at {ours}: the base tree already describes this port; patch it by label (drop `node`)", d.label, at.path));
            }
        }
        probe_checks(&t, i, flavour, d, at, &mut rep.problems);
        open_checks(&t, i, flavour, at, &mut rep.problems);
        duplicate_reg(&t, at, &mut rep.problems);
    }
    rep
}

/// The driver's probe table on the node and the DMA node it names.
fn probe_checks(
    t: &Tree<'_, '_>,
    i: &HiInterface,
    flavour: KernelFlavour,
    d: &HiIfaceDt,
    at: At<'_, '_>,
    out: &mut Vec<String>,
) {
    let driver = i.driver;
    let dmaengine = at.node.property("dmas").is_some();
    let (rows, name) = probe::table(driver, flavour, dmaengine);
    if rows.is_empty() {
        return;
    }
    let dma = at
        .node
        .property("axistream-connected")
        .and_then(|p| p.value.get(..4))
        .and_then(|v| v.try_into().ok())
        .map(u32::from_be_bytes)
        .and_then(|ph| t.by_phandle(ph));
    let dma_cells = dma.map_or(3, |d| t.irq_cells(&d.node));
    let dma_props = dma.map(|d| d.node);
    let mut ps: Vec<String> =
        probe::check(&rows, name, &at.node, dma_props.as_ref().map(|n| n as &dyn NodeProps), dma_cells);
    if driver == Driver::XxvMcdma {
        ps.extend(probe::mcdma_irq_names(&at.node, t.irq_cells(&at.node)));
    }
    if driver.is_axi() {
        let mode = at.node.property("phy-mode").and_then(|p| p.as_str()).or(d.phy_mode.as_deref());
        ps.extend(probe::phy_type_problem(&at.node, flavour, mode));
    }
    if driver == Driver::Gianfar {
        ps.extend(gianfar_queues(i, at));
    }
    out.extend(ps.into_iter().map(|p| format!("probe         {}: {p}", at.path)));
}

/// A compiled node as the open rows read it (drivers::OpenNode), with the
/// tree to follow `axistream-connected` and the clock providers.
struct OpenAt<'t, 'b, 'a> {
    t: &'t Tree<'b, 'a>,
    node: fdt::node::FdtNode<'b, 'a>,
}

impl Tree<'_, '_> {
    /// `clocks` split by each provider's `#clock-cells`, named by
    /// `clock-names`: `(name, "phandle:args")`.
    fn clock_list(&self, n: &fdt::node::FdtNode<'_, '_>) -> Vec<(String, String)> {
        let cells: Vec<u32> = n
            .property("clocks")
            .map(|p| p.value.chunks_exact(4).map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]])).collect())
            .unwrap_or_default();
        let names: Vec<String> = n.property("clock-names").map(|p| crate::probe::strings(p.value)).unwrap_or_default();
        let mut out = Vec::new();
        let mut k = 0;
        while k < cells.len() {
            let ph = cells[k];
            let nargs = self
                .by_phandle(ph)
                .and_then(|p| p.node.property("#clock-cells"))
                .and_then(|p| p.value.try_into().ok())
                .map_or(0, |b| u32::from_be_bytes(b) as usize);
            let args = cells.get(k + 1..(k + 1 + nargs).min(cells.len())).unwrap_or_default();
            let name = names.get(out.len()).cloned().unwrap_or_default();
            out.push((name, format!("{ph}:{args:?}")));
            k += 1 + nargs;
        }
        out
    }
}

impl zynq_net_model::drivers::OpenNode for OpenAt<'_, '_, '_> {
    fn has(&self, prop: &str) -> bool {
        self.node.property(prop).is_some()
    }
    fn string(&self, prop: &str) -> Option<String> {
        self.node.property(prop).and_then(|p| p.as_str()).map(str::to_string)
    }
    fn has_child(&self, name: &str) -> bool {
        self.node.children().any(|c| c.name == name)
    }
    fn clocks(&self) -> Vec<(String, String)> {
        self.t.clock_list(&self.node)
    }
    fn phy(&self) -> Option<zynq_net_model::drivers::PhyFacts> {
        use zynq_net_model::drivers::{DP83867_COMPATIBLE, DP83867_ONLY_PROPS, GMII2RGMII_COMPATIBLE};
        let ph = self.node.property("phy-handle")?.value.get(..4)?.try_into().ok().map(u32::from_be_bytes)?;
        let phy = self.t.by_phandle(ph)?.node;
        let has = |p: &str| phy.property(p).is_some();
        let compat = phy.property("compatible").map(|p| crate::probe::strings(p.value)).unwrap_or_default();
        Some(zynq_net_model::drivers::PhyFacts {
            dp83867: compat.iter().any(|c| c == DP83867_COMPATIBLE) || DP83867_ONLY_PROPS.iter().any(|p| has(p)),
            rx_delay: has("ti,rx-internal-delay"),
            tx_delay: has("ti,tx-internal-delay"),
            generic_delays: has("rx-internal-delay-ps") || has("tx-internal-delay-ps"),
            converter: compat.iter().any(|c| c == GMII2RGMII_COMPATIBLE),
        })
    }
    fn dma_clocks(&self) -> Option<Vec<(String, String)>> {
        let ph = self.node.property("axistream-connected")?.value.get(..4)?.try_into().ok().map(u32::from_be_bytes)?;
        let dma = self.t.by_phandle(ph)?;
        Some(self.t.clock_list(&dma.node))
    }
}

/// The open table (drivers::OPEN) on a compiled node: `open  PATH:
/// [rule-id] ...` lines.
fn open_checks(t: &Tree<'_, '_>, i: &HiInterface, flavour: KernelFlavour, at: At<'_, '_>, out: &mut Vec<String>) {
    let n = OpenAt { t, node: at.node };
    for (row, problem) in zynq_net_model::drivers::open_problems(i.driver, flavour, &n) {
        out.push(format!(
            "open          {}: [{}] {}",
            at.path,
            row.rule.id(),
            zynq_net_model::drivers::open_message(row, &problem)
        ));
    }
}

/// gianfar: the queue count the board declares must match the eTSEC's
/// `queue-group` children (gfar_of_init): an `fsl,etsec2` node gets one RX
/// and one TX queue per available child named `queue-group`
/// (gfar_of_group_count), and probe fails unless there are 1 to
/// [`GIANFAR_MAXGROUPS`]; an eTSEC1 (`gianfar`) gets one of each.
fn gianfar_queues(i: &HiInterface, at: At<'_, '_>) -> Option<String> {
    let etsec2 = has_compat(&at.node, &["fsl,etsec2"]);
    let groups = if etsec2 {
        at.node
            .children()
            .filter(|c| (c.name == "queue-group" || c.name.starts_with("queue-group@")) && available(c))
            .count() as u32
    } else {
        1
    };
    if etsec2 && (groups == 0 || groups > GIANFAR_MAXGROUPS) {
        return Some(format!(
            "gianfar (gfar_of_init): fsl,etsec2 with {groups} queue group(s): the driver takes 1 to {GIANFAR_MAXGROUPS} (MAXGROUPS), probe fails (\"Invalid # of int groups\"); give the node 1 or 2 queue-group children"
        ));
    }
    (i.queues.rx > groups || i.queues.tx > groups).then(|| {
        let what = if etsec2 { format!("fsl,etsec2 with {groups} queue group(s)") } else { "eTSEC1".to_string() };
        format!(
            "gianfar (gfar_of_init): {what} gives {groups} RX/TX queue(s), the board says rx {} tx {}",
            i.queues.rx, i.queues.tx
        )
    })
}

/// `MAXGROUPS` of drivers/net/ethernet/freescale/gianfar.h (6.12).
const GIANFAR_MAXGROUPS: u32 = 2;

/// of_device_is_available: no `status`, or `status` "okay" or "ok".
fn available(n: &fdt::node::FdtNode<'_, '_>) -> bool {
    n.property("status").map_or(true, |s| matches!(s.as_str(), Some("okay" | "ok")))
}

/// Another node at the same `reg` as an Ethernet/DMA node: the port is
/// described twice (the overlay added a node a design pl.dtsi already had).
fn duplicate_reg(t: &Tree<'_, '_>, at: At<'_, '_>, out: &mut Vec<String>) {
    let Some(r) = at.node.property("reg") else { return };
    let parent = |p: &str| p.rsplit_once('/').map(|x| x.0.to_string());
    for (p, n) in &t.nodes {
        if p == at.path || n.property("reg").map(|x| x.value) != Some(r.value) {
            continue;
        }
        // Same reg bytes under a bus with the same cells: the same window.
        let same_kind = n.compatible().is_some_and(|c| {
            c.all().any(|x| x.starts_with("xlnx,") || x.starts_with("cdns,") || x.contains("etsec") || x == "gianfar")
        });
        if same_kind && parent(p) != parent(at.path)
            || same_kind && unit_address(n.name) == unit_address(at.node.name) && p != at.path
        {
            out.push(format!("duplicate reg {}: same registers as {p}: the port is described twice (a design pl.dtsi and the board's `node`); patch the design's node by label instead", at.path));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_addresses() {
        assert_eq!(unit_address("ethernet@a0000000"), Some(0xa000_0000));
        assert_eq!(unit_address("ethernet"), None);
        assert_eq!(soc_unit_address(Soc::Zynqmp, "gem3"), Some(0xff0e_0000));
        // p1010si-post.dtsi: pq3-etsec2-1.dtsi, ethernet@b1000
        assert_eq!(soc_unit_address(Soc::QoriqP1010, "enet1"), Some(0xb1000));
        // p2020si-post.dtsi: pq3-etsec1-1.dtsi, enet1: ethernet@25000
        assert_eq!(soc_unit_address(Soc::QoriqP2020, "enet1"), Some(0x25000));
        assert_eq!(soc_unit_address(Soc::Generic, "gem3"), None);
    }

    /// `dts` compiled by the real dtc.
    fn dtc(dts: &str) -> Vec<u8> {
        let tmp = tempfile::tempdir().expect("tmp");
        let (src, dtb) = (tmp.path().join("t.dts"), tmp.path().join("t.dtb"));
        std::fs::write(&src, dts).expect("write dts");
        let o = std::process::Command::new("dtc")
            .args(["-q", "-I", "dts", "-O", "dtb", "-o"])
            .arg(&dtb)
            .arg(&src)
            .output()
            .expect("dtc (device-tree-compiler) runs");
        assert!(o.status.success(), "dtc: {}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(&dtb).expect("dtb")
    }

    /// What the open checks read of a GEM node: its clocks split by the
    /// provider's `#clock-cells` (1, as zynqmp-clk-ccf.dtsi's
    /// `zynqmp_clk`; and 0, a fixed clock) and named by `clock-names`, and
    /// its PHY: a DP83867 by compatible (`ethernet-phy-id2000.a231` beside
    /// the generic c22 string, as the K26 SOM's carrier PHY is written) and
    /// a PHY that is not one (only the generic string, as most boards'
    /// PHYs), whose delays nothing then asks for.
    #[test]
    fn open_node_reads_clocks_and_the_phy() {
        use zynq_net_model::drivers::OpenNode;
        let with_phy = |compat: &str| {
            format!(
                "/dts-v1/;\n/ {{ #address-cells = <1>; #size-cells = <1>;\n\
                 clk: clock-controller {{ #clock-cells = <1>; phandle = <5>; }};\n\
                 fixed: fixed-clock {{ #clock-cells = <0>; phandle = <6>; }};\n\
                 ethernet@1000 {{ compatible = \"cdns,gem\"; reg = <0x1000 0x100>; phy-handle = <7>;\n\
                 clocks = <5 31>, <6>, <5 45>; clock-names = \"pclk\", \"hclk\", \"tx_clk\";\n\
                 mdio {{ #address-cells = <1>; #size-cells = <0>;\n\
                 ethernet-phy@c {{ reg = <0xc>; phandle = <7>; {compat} }}; }}; }};\n}};\n"
            )
        };
        let facts = |dts: &str| {
            let bytes = dtc(dts);
            let fdt = fdt::Fdt::new(&bytes).expect("a valid DTB");
            let t = Tree { fdt: &fdt, nodes: all_paths(&fdt) };
            let n = OpenAt { t: &t, node: t.get("/ethernet@1000").expect("the node").node };
            (n.clocks(), n.phy().expect("a PHY behind phy-handle"))
        };
        let (clocks, phy) =
            facts(&with_phy("compatible = \"ethernet-phy-id2000.a231\", \"ethernet-phy-ieee802.3-c22\";"));
        let named = |v: &[(&str, &str)]| v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
        assert_eq!(clocks, named(&[("pclk", "5:[31]"), ("hclk", "6:[]"), ("tx_clk", "5:[45]")]));
        assert!(phy.dp83867 && !phy.converter && !phy.rx_delay, "{phy:?}");
        let (_, phy) = facts(&with_phy("compatible = \"ethernet-phy-ieee802.3-c22\";"));
        assert!(!phy.dp83867, "a generic PHY taken for a DP83867: {phy:?}");
        let (_, phy) = facts(&with_phy("ti,fifo-depth = <1>;"));
        assert!(phy.dp83867, "a DP83867-only property marks it: {phy:?}");
    }

    /// What `duplicate_reg` reports for the node `/b1/ethernet@1000` (reg
    /// `<0x1000 0x100>`) beside one `other` node, in a tree compiled by
    /// the real dtc.
    fn duplicates_beside(other: &str) -> Vec<String> {
        let dts = format!(
            "/dts-v1/;\n/ {{ #address-cells = <1>; #size-cells = <1>;\n\
             b1 {{ #address-cells = <1>; #size-cells = <1>; compatible = \"simple-bus\"; ranges;\n\
             ethernet@1000 {{ compatible = \"cdns,gem\"; reg = <0x1000 0x100>; }};\n{other}\n}};\n\
             b2 {{ #address-cells = <1>; #size-cells = <1>; compatible = \"simple-bus\"; ranges; }};\n}};\n"
        );
        let bytes = dtc(&dts);
        let fdt = fdt::Fdt::new(&bytes).expect("a valid DTB");
        let t = Tree { fdt: &fdt, nodes: all_paths(&fdt) };
        let mut out = Vec::new();
        duplicate_reg(&t, t.get("/b1/ethernet@1000").expect("the node"), &mut out);
        out
    }

    /// A duplicate is another Ethernet/DMA node (Xilinx, Cadence, eTSEC or
    /// gianfar compatible) with the same `reg` under another bus, or under
    /// the same bus at the same unit address; anything else is not.
    #[test]
    fn duplicate_reg_is_the_same_kind_at_the_same_window() {
        let dup = |other: &str| !duplicates_beside(other).is_empty();
        // another bus, same reg, each kind of compatible
        for compat in ["xlnx,axi-ethernet-1.00.a", "cdns,gem", "fsl,etsec2", "gianfar"] {
            let other = format!("}}; b3 {{ #address-cells = <1>; #size-cells = <1>; ranges; x: ethernet@1000 {{ compatible = \"{compat}\"; reg = <0x1000 0x100>; }};");
            assert!(dup(&other), "{compat} under another bus");
        }
        // another bus, same reg, another kind of device: not a duplicate port
        assert!(!dup("}; b3 { #address-cells = <1>; #size-cells = <1>; ranges; x: serial@1000 { compatible = \"ns16550a\"; reg = <0x1000 0x100>; };"));
        // same bus, same unit address under another name
        assert!(dup("mac@1000 { compatible = \"cdns,gem\"; reg = <0x1000 0x100>; };"));
        // same bus, same reg bytes but another unit address: not the same window
        assert!(!dup("ethernet@2000 { compatible = \"cdns,gem\"; reg = <0x1000 0x100>; };"));
        // another reg
        assert!(!dup("ethernet@2000 { compatible = \"cdns,gem\"; reg = <0x2000 0x100>; };"));
        let msg = duplicates_beside("mac@1000 { compatible = \"cdns,gem\"; reg = <0x1000 0x100>; };");
        assert!(msg[0].starts_with("duplicate reg /b1/ethernet@1000: same registers as /b1/mac@1000"), "{msg:?}");
    }
}
