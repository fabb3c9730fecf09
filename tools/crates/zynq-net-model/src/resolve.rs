//! The typed values of a board's strings (ripgrep's `HiArgs`, cargo-deny's
//! `ValidConfig`): MAC addresses, CPU lists, IPv4 prefixes, IRQ name
//! patterns, MCDMA channel ids and bit rates, each with the one parser
//! that turns the string into its value. The loader resolves a board that
//! validation accepted into a [`crate::hi::HiBoard`], which holds these
//! values where the raw board had the strings (its `bench` section
//! included: [`crate::hi::HiBench`]); generators (zynq-net-render, zynq-net-bench) read
//! the values and never see the board's strings.
//!
//! The parsers here are the ones the validator uses for its diagnostics
//! ([`crate::validate`]), so what validation accepts is exactly what
//! resolves.

use std::collections::BTreeSet;
use std::fmt;
use std::net::Ipv4Addr;

use crate::cpus::{parse_cpu_list, CpuList, CpuListError};
use crate::model::{MatchField, QueueSel};

/// A MAC address (`xx:xx:xx:xx:xx:xx`, six octets).
///
/// Displays as lower-case, colon-separated hex (`02:0a:35:00:00:01`), the
/// form iproute2 prints and the applier compares against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Mac(pub [u8; 6]);

impl Mac {
    /// Parses `xx:xx:xx:xx:xx:xx` (exactly two hex digits per octet, either
    /// case); `None` for anything else.
    pub fn parse(s: &str) -> Option<Mac> {
        let mut out = [0u8; 6];
        let mut parts = s.split(':');
        for o in &mut out {
            let p = parts.next()?;
            if p.len() != 2 || !p.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            *o = u8::from_str_radix(p, 16).ok()?;
        }
        parts.next().is_none().then_some(Mac(out))
    }

    /// The six octets.
    pub fn octets(&self) -> [u8; 6] {
        self.0
    }

    /// Bit 0 of the first octet: a multicast (group) address.
    pub fn is_multicast(&self) -> bool {
        self.0[0] & 1 == 1
    }
}

impl fmt::Display for Mac {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e, g] = self.0;
        write!(f, "{a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{g:02x}")
    }
}

/// A set of CPU numbers, each below the board's CPU count (rule `cpu-range`
/// checked before a set is resolved).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CpuSet(BTreeSet<u32>);

impl CpuSet {
    /// The CPUs of a board's CPU list.
    ///
    /// # Errors
    /// [`CpuListError`] for malformed text, reversed ranges or an empty list.
    pub fn from_list(l: &CpuList) -> Result<CpuSet, CpuListError> {
        match l {
            CpuList::One(n) => Ok(CpuSet(BTreeSet::from([*n]))),
            CpuList::List(s) => parse_cpu_list(s).map(CpuSet),
        }
    }

    /// The CPU numbers, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().copied()
    }

    /// The kernel bitmap for a machine of `nr_cpus` CPUs
    /// ([`crate::cpus::kernel_bitmap`]: `0000000f,ffffffff`).
    pub fn kernel_bitmap(&self, nr_cpus: u32) -> String {
        crate::cpus::kernel_bitmap(&self.0, nr_cpus)
    }
}

/// An IPv4 address with an optional prefix length (`192.168.0.3`,
/// `10.0.0.0/8`); displays as written (std's `Ipv4Addr` refuses leading
/// zeros, so the text round-trips).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv4Prefix {
    /// The address.
    pub addr: Ipv4Addr,
    /// The prefix length (0..=32) when one was written.
    pub len: Option<u8>,
}

impl Ipv4Prefix {
    /// Parses `a.b.c.d` or `a.b.c.d/len` (len 0..=32); `None` otherwise.
    pub fn parse(s: &str) -> Option<Ipv4Prefix> {
        let (a, len) = match s.split_once('/') {
            Some((a, l)) => {
                if l.is_empty() || !l.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                (a, Some(l.parse::<u8>().ok().filter(|l| *l <= 32)?))
            }
            None => (s, None),
        };
        Some(Ipv4Prefix { addr: a.parse().ok()?, len })
    }

    /// The prefix length, 32 when none was written.
    pub fn prefix_len(&self) -> u8 {
        self.len.unwrap_or(32)
    }
}

impl fmt::Display for Ipv4Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.len {
            Some(l) => write!(f, "{}/{l}", self.addr),
            None => write!(f, "{}", self.addr),
        }
    }
}

/// A glob over IRQ action names in `/proc/interrupts`, checked by the
/// validator: the schema's character set (`[A-Za-z0-9_.:@*?-]`, 1-64), not
/// a bare IRQ number (rule `irq-number`), at least three literal
/// characters (rule `irq-pattern-broad`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct IrqPattern(String);

impl IrqPattern {
    /// Whether `s` is a pattern the validator accepts (no diagnostic text:
    /// the validator words its own).
    pub fn check(s: &str) -> Option<IrqPattern> {
        let charset =
            (1..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.:@*?-".contains(&b));
        let number = s.bytes().all(|b| b.is_ascii_digit());
        let broad = s.bytes().filter(|b| !matches!(b, b'*' | b'?')).count() < 3;
        (charset && !number && !broad).then(|| IrqPattern(s.to_string()))
    }

    /// The pattern text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An MCDMA channel id as linux-xlnx reads `xlnx,channel-ids`:
/// `kstrtou16(s, 16)` (lib/kstrtox.c: `_parse_integer_fixup_radix` skips
/// an optional `0x`/`0X`), so `"a"` and `"0xa"` are both 10, as the Xilinx
/// device-tree generator writes `"1"`..`"a"`..`"10"`. One to four hex
/// digits (a u16); the validator checks the range 1..16.
pub fn parse_channel_id(s: &str) -> Option<u16> {
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s);
    if h.is_empty() || h.len() > 4 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(h, 16).ok()
}

/// An MCDMA channel id (`xlnx,channel-ids`): its value, 1..=16, and the
/// text the board wrote (`"0x1"`, `"a"`), which the generated device tree
/// repeats as written (the Xilinx generator's spelling is kept). Made only
/// by the loader from a text [`parse_channel_id`] accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelId {
    value: u8,
    written: String,
}

impl ChannelId {
    /// `value` read from `written` (the caller parsed it).
    pub(crate) fn new(value: u8, written: String) -> ChannelId {
        ChannelId { value, written }
    }

    /// The channel number, 1..=16.
    pub fn value(&self) -> u8 {
        self.value
    }

    /// The text as the board wrote it (for `xlnx,channel-ids`).
    pub fn as_written(&self) -> &str {
        &self.written
    }
}

impl AsRef<str> for ChannelId {
    fn as_ref(&self) -> &str {
        &self.written
    }
}

/// A bit rate in bits per second (iperf3's `-b`), from `2500M`, `1G`,
/// `1.5g`, `100k`, `1000000` or `200mbit` (suffixes k/M/G/T are powers of
/// 1000, case-insensitive; an optional `bit`, `bps` or `bit/s` after them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BitRate(f64);

impl BitRate {
    /// Parses a rate; `None` for anything else, a negative or non-finite
    /// number.
    pub fn parse(s: &str) -> Option<BitRate> {
        let t = s.trim().to_ascii_lowercase();
        let t =
            t.strip_suffix("bit/s").or_else(|| t.strip_suffix("bps")).or_else(|| t.strip_suffix("bit")).unwrap_or(&t);
        let (num, mult) = match t.chars().last() {
            Some('k') => (&t[..t.len() - 1], 1e3),
            Some('m') => (&t[..t.len() - 1], 1e6),
            Some('g') => (&t[..t.len() - 1], 1e9),
            Some('t') => (&t[..t.len() - 1], 1e12),
            _ => (t, 1.0),
        };
        let n: f64 = num.trim().parse().ok()?;
        (n >= 0.0 && n.is_finite()).then_some(BitRate(n * mult))
    }

    /// Bits per second.
    pub fn bits_per_second(self) -> f64 {
        self.0
    }
}

/// RPS/XPS CPUs of one queue selection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueCpuSet {
    /// Queue index or `all`.
    pub queue: QueueSel,
    /// The CPUs.
    pub cpus: CpuSet,
}

/// IRQ affinity: the IRQs matching `pattern` go to `cpus`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IrqPin {
    /// IRQ name pattern.
    pub pattern: IrqPattern,
    /// The CPUs.
    pub cpus: CpuSet,
}

/// A u32 + skbedit queue-mapping filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueFilter {
    /// Source or destination address.
    pub match_: MatchField,
    /// The address or prefix.
    pub prefix: Ipv4Prefix,
    /// TX queue (below the TX queue count, rule `skbedit-queue`).
    pub queue: u32,
}

/// A value validation accepted but resolution refused: a zynq-net bug
/// (the loader reports it as rule `internal-error`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    /// JSON pointer of the value.
    pub ptr: String,
    /// What went wrong.
    pub what: String,
}

/// The CPU set of `l`, every CPU below `nr_cpus`. `ptr` names the value
/// and is called only on an error (a board has thousands of CPU lists and
/// formatting each one's pointer was a fifth of resolving).
pub(crate) fn cpus(ptr: impl Fn() -> String, l: &CpuList, nr_cpus: u32) -> Result<CpuSet, Unresolved> {
    let s = CpuSet::from_list(l).map_err(|e| Unresolved { ptr: ptr(), what: e.to_string() })?;
    let high = s.iter().find(|c| *c >= nr_cpus);
    match high {
        Some(c) => Err(Unresolved { ptr: ptr(), what: format!("CPU {c} outside the board's {nr_cpus} CPUs") }),
        None => Ok(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macs_parse_strictly_and_print_lower_case() {
        let m = Mac::parse("02:0A:35:00:00:01").unwrap();
        assert_eq!(m.octets(), [2, 0x0a, 0x35, 0, 0, 1]);
        assert_eq!(m.to_string(), "02:0a:35:00:00:01");
        for bad in
            ["02:0a:35:00:00", "02:0a:35:00:00:01:02", "+2:0a:35:00:00:01", "2:0a:35:00:00:01", "02-0a-35-00-00-01"]
        {
            assert_eq!(Mac::parse(bad), None, "{bad}");
        }
        assert!(Mac::parse("01:00:5e:00:00:01").unwrap().is_multicast());
        assert!(!m.is_multicast());
        // bit 0 alone decides: 33:33:... (IPv6 multicast) is one, 02:... is not
        assert!(Mac::parse("33:33:00:00:00:01").unwrap().is_multicast());
    }

    #[test]
    fn prefixes_round_trip_as_written() {
        for s in ["192.168.0.3", "10.0.0.0/8", "0.0.0.0/0", "1.2.3.4/32"] {
            assert_eq!(Ipv4Prefix::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(Ipv4Prefix::parse("10.0.0.0/8").unwrap().prefix_len(), 8);
        assert_eq!(Ipv4Prefix::parse("10.0.0.1").unwrap().prefix_len(), 32);
        for bad in ["10.0.0.0/33", "10.0.0.0/", "10.0.0.0/+8", "010.0.0.1", "10.0.0", "::1"] {
            assert_eq!(Ipv4Prefix::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn irq_patterns_refuse_numbers_and_near_wildcards() {
        assert_eq!(IrqPattern::check("eth0_g0_rx").unwrap().as_str(), "eth0_g0_rx");
        // three literal characters are enough, two are not (irq-pattern-broad)
        assert_eq!(IrqPattern::check("et?*").map(|p| p.as_str().to_string()), None);
        assert_eq!(IrqPattern::check("eth*").unwrap().as_str(), "eth*");
        for bad in ["63", "e*", "*?*", "", "eth0 rx", &"a".repeat(65)] {
            assert_eq!(IrqPattern::check(bad), None, "{bad}");
        }
    }

    #[test]
    fn channel_ids_are_short_hex() {
        assert_eq!(parse_channel_id("0x1"), Some(1));
        assert_eq!(parse_channel_id("0x10"), Some(16));
        // kstrtou16(s, 16): the 0x prefix is optional (the Xilinx generator
        // writes "1".."a".."10")
        assert_eq!(parse_channel_id("a"), Some(10));
        assert_eq!(parse_channel_id("0xa"), Some(10));
        assert_eq!(parse_channel_id("0XA"), Some(10));
        assert_eq!(parse_channel_id("10"), Some(16));
        assert_eq!(parse_channel_id("0x100"), Some(256));
        // four hex digits are a u16 still; five are not
        assert_eq!(parse_channel_id("ffff"), Some(0xffff));
        assert_eq!(parse_channel_id("0x1234"), Some(0x1234));
        for bad in ["", "0x", "0x+1", "0xg", "1 ", "12345", "0x10000"] {
            assert_eq!(parse_channel_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn rates_take_decimal_suffixes() {
        for (s, bps) in [
            ("2500M", 2.5e9),
            ("1G", 1e9),
            ("1.5g", 1.5e9),
            ("100k", 1e5),
            ("1000000", 1e6),
            ("200mbit", 2e8),
            ("1.2T", 1.2e12),
            // zero is a rate (iperf3 `-b 0`: unlimited); only below it is refused
            ("0", 0.0),
            ("0M", 0.0),
        ] {
            assert_eq!(BitRate::parse(s).map(BitRate::bits_per_second), Some(bps), "{s}");
        }
        for bad in ["fast", "", "M", "-1M", "inf", "NaN", "1X"] {
            assert_eq!(BitRate::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn cpu_sets_come_from_lists() {
        let s = CpuSet::from_list(&CpuList::List("0-2,5".into())).unwrap();
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 1, 2, 5]);
        assert_eq!(s.kernel_bitmap(8), "00000027");
        assert_eq!(CpuSet::from_list(&CpuList::One(3)).unwrap().kernel_bitmap(4), "00000008");
        assert!(CpuSet::from_list(&CpuList::List("3-1".into())).is_err());
    }

    /// A bench CPU list resolves below the CPU count: the last CPU of a
    /// 4-CPU board is 3, CPU 4 is outside it.
    #[test]
    fn bench_cpus_stop_below_the_cpu_count() {
        let at = || "/bench/matrix/pin_cpus".to_string();
        assert!(super::cpus(at, &CpuList::One(3), 4).is_ok());
        let e = super::cpus(at, &CpuList::List("2-4".into()), 4).unwrap_err();
        assert_eq!((e.ptr.as_str(), e.what.as_str()), ("/bench/matrix/pin_cpus", "CPU 4 outside the board's 4 CPUs"));
    }
}
