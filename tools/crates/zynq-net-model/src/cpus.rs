//! CPU lists (`"0-3,6"`) and kernel CPU bitmaps (`"0000000f,ffffffff"`).
//!
//! Source: Documentation/networking/scaling.rst and lib/bitmap.c
//! (`bitmap_parse`, `%*pb`): `rps_cpus`, `xps_cpus` and `smp_affinity` take
//! a hex bitmap written as comma-separated 32-bit groups, most significant
//! group first. We always zero-pad every group to 8 digits (never
//! one wide hex word, never an empty group).

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A CPU list as written in a board file: an integer (`2`) or a list string
/// (`"0-3,6"`, ranges inclusive). Parsed and range-checked by validation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum CpuList {
    /// A single CPU number.
    One(u32),
    /// A list of CPU numbers and inclusive ranges, comma-separated.
    List(#[schemars(regex(pattern = r"^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$"))] String),
}

/// Why a CPU list string is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CpuListError {
    /// Not of the form `N`, `N-M`, comma-separated.
    #[error("`{0}` is not a CPU list (expected numbers and ranges like \"0-3,6\")")]
    Syntax(String),
    /// A range whose end is below its start.
    #[error("range `{0}` ends before it starts")]
    Reversed(String),
    /// An empty list.
    #[error("the CPU list is empty")]
    Empty,
    /// A well-formed list naming a CPU number no board has: at or above
    /// [`CPU_NUMBER_LIMIT`] (or too large for a number at all).
    #[error("`{0}` names CPU {1}, beyond any board (CPU numbers are below {CPU_NUMBER_LIMIT})")]
    OutOfRange(String, String),
}

/// CPU numbers are below this: the board's `cpus` is at most 4096 (the
/// schema's bound, arm64's `NR_CPUS` range 2-4096 in arch/arm64/Kconfig).
/// A list is refused at the first number at or above it, before any range
/// is expanded, so `"0-4294967295"` costs nothing.
pub const CPU_NUMBER_LIMIT: u32 = 4096;

impl CpuList {
    /// The set of CPU numbers in the list.
    ///
    /// # Errors
    /// [`CpuListError`] for malformed text, reversed ranges or an empty list.
    pub fn cpus(&self) -> Result<BTreeSet<u32>, CpuListError> {
        match self {
            CpuList::One(n) => Ok(BTreeSet::from([*n])),
            CpuList::List(s) => parse_cpu_list(s),
        }
    }
}

/// Parses `"0-3,6"` into `{0,1,2,3,6}`.
///
/// # Errors
/// [`CpuListError`] for malformed text, reversed ranges or an empty list.
pub fn parse_cpu_list(s: &str) -> Result<BTreeSet<u32>, CpuListError> {
    let mut out = BTreeSet::new();
    if s.trim().is_empty() {
        return Err(CpuListError::Empty);
    }
    for part in s.split(',') {
        let part = part.trim();
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a, b),
            None => (part, part),
        };
        let a = cpu_number(s, a)?;
        let b = cpu_number(s, b)?;
        if b < a {
            return Err(CpuListError::Reversed(part.to_string()));
        }
        out.extend(a..=b);
    }
    Ok(out)
}

/// One CPU number of the list `list`: digits only, below [`CPU_NUMBER_LIMIT`].
fn cpu_number(list: &str, text: &str) -> Result<u32, CpuListError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CpuListError::Syntax(list.to_string()));
    }
    match text.parse::<u32>() {
        Ok(n) if n < CPU_NUMBER_LIMIT => Ok(n),
        // all digits: well-formed, only too large (u32 overflow included)
        _ => Err(CpuListError::OutOfRange(list.to_string(), text.trim_start_matches('0').to_string())),
    }
}

/// Formats a CPU set as a kernel bitmap for a machine with `nr_cpus` CPUs:
/// `ceil(nr_cpus/32)` comma-separated, zero-padded 32-bit hex groups, most
/// significant first. CPUs must be below `nr_cpus` (checked by validation;
/// higher ones widen the bitmap so nothing is lost).
///
/// `kernel_bitmap(&{0..=35}, 48) == "0000000f,ffffffff"`.
pub fn kernel_bitmap(cpus: &BTreeSet<u32>, nr_cpus: u32) -> String {
    let top = cpus.iter().next_back().map_or(0, |c| c + 1);
    let bits = nr_cpus.max(top).max(1);
    let groups = bits.div_ceil(32) as usize;
    let mut words = vec![0u32; groups];
    for &c in cpus {
        words[(c / 32) as usize] |= 1 << (c % 32);
    }
    let mut out = String::with_capacity(groups * 9);
    for (k, w) in words.iter().rev().enumerate() {
        if k > 0 {
            out.push(',');
        }
        // 8 hex digits, zero-padded (what bitmap_parse accepts per group)
        for shift in (0..8).rev() {
            out.push(char::from_digit((w >> (shift * 4)) & 0xf, 16).unwrap_or('0'));
        }
    }
    out
}

/// Formats a CPU set back as a compact list (`0-3,6`).
pub fn format_cpu_list(cpus: &BTreeSet<u32>) -> String {
    let mut parts = Vec::new();
    let mut it = cpus.iter().copied().peekable();
    while let Some(start) = it.next() {
        let mut end = start;
        while it.peek() == Some(&(end + 1)) {
            end += 1;
            it.next();
        }
        parts.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c1_48_cpus_mask_is_grouped_and_padded() {
        let cpus = parse_cpu_list("0-35").unwrap();
        assert_eq!(kernel_bitmap(&cpus, 48), "0000000f,ffffffff");
    }

    #[test]
    fn small_machines_use_one_padded_group() {
        assert_eq!(kernel_bitmap(&parse_cpu_list("1").unwrap(), 4), "00000002");
        assert_eq!(kernel_bitmap(&parse_cpu_list("0-3").unwrap(), 4), "0000000f");
    }

    #[test]
    fn exact_group_boundaries() {
        assert_eq!(kernel_bitmap(&parse_cpu_list("32").unwrap(), 64), "00000001,00000000");
        assert_eq!(kernel_bitmap(&parse_cpu_list("31").unwrap(), 32), "80000000");
        assert_eq!(kernel_bitmap(&parse_cpu_list("0,63").unwrap(), 64), "80000000,00000001");
        // a CPU at or above nr_cpus widens the bitmap instead of being lost
        assert_eq!(kernel_bitmap(&parse_cpu_list("32").unwrap(), 32), "00000001,00000000");
        assert_eq!(kernel_bitmap(&parse_cpu_list("0").unwrap(), 0), "00000001");
    }

    #[test]
    fn lists_parse_and_format_round_trip() {
        let s = parse_cpu_list("0-2,4,6-7").unwrap();
        assert_eq!(s.iter().copied().collect::<Vec<_>>(), vec![0, 1, 2, 4, 6, 7]);
        assert_eq!(format_cpu_list(&s), "0-2,4,6-7");
    }

    #[test]
    fn bad_lists_are_rejected() {
        assert!(matches!(parse_cpu_list("3-1"), Err(CpuListError::Reversed(_))));
        assert!(matches!(parse_cpu_list("a"), Err(CpuListError::Syntax(_))));
        assert!(matches!(parse_cpu_list(""), Err(CpuListError::Empty)));
    }

    /// CPU numbers stop below CPU_NUMBER_LIMIT: a list reaching it is
    /// well-formed but out of range (not a syntax error), refused before it
    /// is expanded, so `0-4294967295` costs nothing; the last CPU parses.
    #[test]
    fn huge_ranges_are_out_of_range_before_expansion() {
        // The small case first: with the limit gone it fails fast, where the
        // 4-billion range would run into the mutation run's timeout.
        assert_eq!(parse_cpu_list("2-4096"), Err(CpuListError::OutOfRange("2-4096".into(), "4096".into())));
        assert_eq!(parse_cpu_list("0-4095").map(|s| s.len()), Ok(4096));
        assert_eq!(parse_cpu_list("4095").map(|s| s.len()), Ok(1));
        assert!(matches!(parse_cpu_list("0-4294967295"), Err(CpuListError::OutOfRange(..))));
        // more digits than a u32 holds: still a number, still out of range
        assert_eq!(
            parse_cpu_list("1,099999999999999999999"),
            Err(CpuListError::OutOfRange("1,099999999999999999999".into(), "99999999999999999999".into()))
        );
        // not digits at all: syntax
        assert!(matches!(parse_cpu_list("1-+3"), Err(CpuListError::Syntax(_))));
        assert!(matches!(parse_cpu_list("1-"), Err(CpuListError::Syntax(_))));
    }
}
