//! Typed device-tree values: the one representation both the DTS writer
//! (`dt/zynq-net.dtsi`, `.dtso`) and `dtb verify` (FDT bytes) encode, so
//! what is checked in a DTB is exactly what was written.
//!
//! Encoding follows the Devicetree Specification v0.4, section 2.2.4
//! (property values): strings NUL-terminated and concatenated, cells
//! big-endian 32-bit (`/bits/ 8|16` narrower), byte strings as is, an empty
//! property has no value.

use serde::Serialize;

/// One cell of a `< >` group: a number or a phandle reference `&label`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// A number (must fit the group's width).
    Num(u64),
    /// `&label`: the phandle of the labelled node.
    Ref(String),
}

/// A property value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A boolean property: present, no value (`xlnx,include-dre;`).
    Empty,
    /// One string or a string list (`"a", "b"`).
    Strings(Vec<String>),
    /// `< >` groups of cells, each `bits` wide (8, 16 or 32).
    Cells {
        /// Cell width in bits.
        bits: u8,
        /// The groups, written `<..>, <..>`.
        groups: Vec<Vec<Cell>>,
    },
    /// A byte string `[00 0a 35]`.
    Bytes(Vec<u8>),
}

/// A property: name and typed value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prop {
    /// Property name.
    pub name: String,
    /// Value.
    pub value: Value,
}

/// What a property's bytes must be, given a phandle resolver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Encoded {
    /// Exactly these bytes.
    Bytes(Vec<u8>),
    /// This many bytes (a phandle the DTB cannot resolve: no `__symbols__`).
    Len(usize),
}

impl Prop {
    /// A string property.
    pub fn str(name: &str, v: &str) -> Self {
        Prop { name: name.into(), value: Value::Strings(vec![v.into()]) }
    }
    /// A string-list property.
    pub fn strs<S: AsRef<str>>(name: &str, v: &[S]) -> Self {
        Prop { name: name.into(), value: Value::Strings(v.iter().map(|s| s.as_ref().to_string()).collect()) }
    }
    /// A single 32-bit cell.
    pub fn u32(name: &str, v: u32) -> Self {
        Self::cells(name, 32, vec![vec![Cell::Num(v.into())]])
    }
    /// Groups of 32-bit cells.
    pub fn cells(name: &str, bits: u8, groups: Vec<Vec<Cell>>) -> Self {
        Prop { name: name.into(), value: Value::Cells { bits, groups } }
    }
    /// A single phandle `<&label>`.
    pub fn phandle(name: &str, label: &str) -> Self {
        Self::cells(name, 32, vec![vec![Cell::Ref(label.into())]])
    }
    /// A boolean (empty) property.
    pub fn flag(name: &str) -> Self {
        Prop { name: name.into(), value: Value::Empty }
    }
    /// A byte-string property.
    pub fn bytes(name: &str, v: &[u8]) -> Self {
        Prop { name: name.into(), value: Value::Bytes(v.to_vec()) }
    }

    /// The DTS source line without the trailing `;` (`phy-mode = "sgmii"`).
    pub fn dts(&self) -> String {
        match &self.value {
            Value::Empty => self.name.clone(),
            Value::Strings(v) => {
                let q: Vec<String> = v.iter().map(|s| format!("\"{s}\"")).collect();
                format!("{} = {}", self.name, q.join(", "))
            }
            Value::Bytes(b) => {
                let h: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
                format!("{} = [{}]", self.name, h.join(" "))
            }
            Value::Cells { bits, groups } => {
                let hex = matches!(self.name.as_str(), "reg" | "xlnx,rxmem");
                let g: Vec<String> = groups
                    .iter()
                    .map(|grp| {
                        let c: Vec<String> = grp
                            .iter()
                            .map(|c| match c {
                                Cell::Ref(l) => format!("&{l}"),
                                // Addresses, sizes and narrow values in hex (as
                                // generated trees write them); counts, speeds,
                                // interrupt specifiers and indexes in decimal.
                                Cell::Num(n) if *bits == 32 && !(hex && *n >= 0x100) => n.to_string(),
                                Cell::Num(n) => format!("0x{n:x}"),
                            })
                            .collect();
                        format!("<{}>", c.join(" "))
                    })
                    .collect();
                let prefix = if *bits == 32 { String::new() } else { format!("/bits/ {bits} ") };
                format!("{} = {prefix}{}", self.name, g.join(", "))
            }
        }
    }

    /// The FDT bytes of the value; phandles through `phandle(label)`.
    pub fn encode(&self, phandle: &dyn Fn(&str) -> Option<u32>) -> Encoded {
        match &self.value {
            Value::Empty => Encoded::Bytes(Vec::new()),
            Value::Strings(v) => {
                let mut out = Vec::new();
                for s in v {
                    out.extend(s.as_bytes());
                    out.push(0);
                }
                Encoded::Bytes(out)
            }
            Value::Bytes(b) => Encoded::Bytes(b.clone()),
            Value::Cells { bits, groups } => {
                let mut out = Vec::new();
                let mut exact = true;
                for c in groups.iter().flatten() {
                    let n = match c {
                        Cell::Num(n) => *n,
                        Cell::Ref(l) => phandle(l).map_or_else(
                            || {
                                exact = false;
                                0
                            },
                            u64::from,
                        ),
                    };
                    match bits {
                        8 => out.push((n & 0xff) as u8),
                        16 => out.extend(((n & 0xffff) as u16).to_be_bytes()),
                        _ => out.extend(((n & 0xffff_ffff) as u32).to_be_bytes()),
                    }
                }
                if exact {
                    Encoded::Bytes(out)
                } else {
                    Encoded::Len(out.len())
                }
            }
        }
    }
}

/// Templates see a property as its DTS line.
impl Serialize for Prop {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.dts())
    }
}

/// Renders FDT bytes for a message: strings as `"a", "b"`, else hex bytes.
pub fn show(v: &[u8]) -> String {
    let printable = !v.is_empty()
        && v.last() == Some(&0)
        && v[..v.len() - 1].iter().all(|b| b.is_ascii_graphic() || *b == b' ' || *b == 0)
        && !v.starts_with(&[0]);
    if printable {
        let parts: Vec<String> =
            v[..v.len() - 1].split(|b| *b == 0).map(|s| format!("\"{}\"", String::from_utf8_lossy(s))).collect();
        parts.join(", ")
    } else if !v.is_empty() && v.len() % 4 == 0 {
        // 32-bit cells, as dtc -O dts prints them
        let cells: Vec<String> =
            v.chunks(4).map(|c| format!("{:#x}", u32::from_be_bytes([c[0], c[1], c[2], c[3]]))).collect();
        format!("<{}>", cells.join(" "))
    } else {
        let bytes: Vec<String> = v.iter().map(|b| format!("{b:02x}")).collect();
        format!("[{}]", bytes.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ph(l: &str) -> Option<u32> {
        (l == "gic").then_some(3)
    }

    #[test]
    fn dts_and_bytes_agree() {
        let p = Prop::strs("clock-names", &["a", "bc"]);
        assert_eq!(p.dts(), "clock-names = \"a\", \"bc\"");
        assert_eq!(p.encode(&ph), Encoded::Bytes(b"a\0bc\0".to_vec()));
        let p = Prop::bytes("local-mac-address", &[0, 0x0a]);
        assert_eq!(p.dts(), "local-mac-address = [00 0a]");
        assert_eq!(p.encode(&ph), Encoded::Bytes(vec![0, 0x0a]));
        let p = Prop::cells("xlnx,num-queues", 16, vec![vec![Cell::Num(2)]]);
        assert_eq!(p.dts(), "xlnx,num-queues = /bits/ 16 <0x2>");
        assert_eq!(p.encode(&ph), Encoded::Bytes(vec![0, 2]));
        let p = Prop::cells("xlnx,addrwidth", 8, vec![vec![Cell::Num(0x40)]]);
        assert_eq!(p.dts(), "xlnx,addrwidth = /bits/ 8 <0x40>");
        assert_eq!(p.encode(&ph), Encoded::Bytes(vec![0x40]));
        let p = Prop::phandle("interrupt-parent", "gic");
        assert_eq!(p.dts(), "interrupt-parent = <&gic>");
        assert_eq!(p.encode(&ph), Encoded::Bytes(vec![0, 0, 0, 3]));
        let p = Prop::cells(
            "clocks",
            32,
            vec![vec![Cell::Ref("nope".into()), Cell::Num(1)], vec![Cell::Ref("nope".into()), Cell::Num(2)]],
        );
        assert_eq!(p.dts(), "clocks = <&nope 1>, <&nope 2>");
        assert_eq!(p.encode(&ph), Encoded::Len(16));
        let p = Prop::cells("reg", 32, vec![vec![Cell::Num(0), Cell::Num(0xa000_0000)]]);
        assert_eq!(p.dts(), "reg = <0 0xa0000000>");
        assert_eq!(p.encode(&ph), Encoded::Bytes(vec![0, 0, 0, 0, 0xa0, 0, 0, 0]));
        // on the bound: a `reg`/`xlnx,rxmem` cell of 0x100 and up is hex, below it decimal
        let p = Prop::cells("reg", 32, vec![vec![Cell::Num(0xff), Cell::Num(0x100)]]);
        assert_eq!(p.dts(), "reg = <255 0x100>");
        assert_eq!(Prop::flag("xlnx,include-dre").dts(), "xlnx,include-dre");
        assert_eq!(Prop::flag("x").encode(&ph), Encoded::Bytes(Vec::new()));
    }

    #[test]
    fn show_strings_and_bytes() {
        assert_eq!(show(b"a\0b\0"), "\"a\", \"b\"");
        assert_eq!(show(&[0, 0, 0, 4, 0, 0, 1, 0]), "<0x4 0x100>");
        assert_eq!(show(&[0, 0x0a, 0x35]), "[00 0a 35]");
        assert_eq!(show(&[]), "[]");
        // not strings: a leading NUL, a byte outside printable ASCII
        assert_eq!(show(b"\0a\0"), "[00 61 00]");
        assert_eq!(show(b"a\x01\0"), "[61 01 00]");
    }
}
